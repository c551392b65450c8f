/*
 * `botwire bench --record`: how fast the record writer keeps a link's
 * bytes, and how big the file is, in each format. The stream is each
 * protocol's bench stream (its emulated robot driving squares), cut into
 * the 64-byte reads a serial port gives, a read every 2 ms of link time;
 * it is written as `botwire record` writes it (a flush, MCAP's chunk
 * closed, every 0.25 s of link time) to a file in /tmp, pass after pass:
 * the fastest pass's MB/s of wire bytes, and the file's size over the
 * wire bytes'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "botwire/record.h"

#define READ_BYTES 64
#define READ_PERIOD 0.002
#define FLUSH_PERIOD 0.25

/* One pass: the stream recorded into path; its size, or -1. */
static long long one_pass(const char *path, const bench_record_format_t *f, const uint8_t *s,
                          size_t len)
{
    bw_record_options_t o = { .format = f->mcap ? BW_RECORD_MCAP : BW_RECORD_JSONL,
                              .compression = (bw_mcap_compression_t)f->compression,
                              .url = "sim:bench",
                              .family = "bench", .start = 0 };
    bw_record_writer_t *w;
    char err[256];
    if (bw_record_writer_open(&w, path, &o, err, sizeof err) < 0 ||
        bw_record_writer_commit(w, err, sizeof err) < 0)
        return -1;
    double t = 0, next_flush = FLUSH_PERIOD;
    for (size_t at = 0; at < len; at += READ_BYTES) {
        size_t n = len - at < READ_BYTES ? len - at : READ_BYTES;
        bw_record_writer_chunk(w, t, true, s + at, n);
        t += READ_PERIOD;
        if (t >= next_flush) {
            bw_record_writer_flush(w);
            next_flush += FLUSH_PERIOD;
        }
    }
    if (bw_record_writer_close(w) != 0)
        return -1;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    fseek(fp, 0, SEEK_END);
    long long size = ftell(fp);
    fclose(fp);
    return size;
}

int bench_record(const uint8_t *s, size_t len, const bench_record_format_t *f, double seconds,
                 bench_record_result_t *r)
{
    char path[] = "/tmp/botwire-bench-record.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    double t0 = bench_now(), best = 0;
    long long size = -1;
    do {
        double start = bench_now();
        size = one_pass(path, f, s, len);
        double took = bench_now() - start;
        if (size < 0)
            break;
        if (best == 0 || took < best)
            best = took;
    } while (bench_now() - t0 < seconds);
    unlink(path);
    if (size < 0 || best <= 0)
        return -1;
    r->mb_s = (double)len / best / 1e6;
    r->file_bytes = (unsigned long long)size;
    r->ratio = (double)size / (double)len;
    return 0;
}
