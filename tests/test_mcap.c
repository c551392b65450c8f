/* The MCAP writer and reader (botwire/mcap.h) against the specification
 * (https://mcap.dev/spec): the opening bytes as the spec lays them out, the
 * data section's and the summary's CRCs (zlib's CRC-32 over the spans the
 * spec names), the summary offsets pointing at their groups, a chunk's
 * message index offsets into its records; the reader on every cut of a
 * file, and in pieces of every size; --recover of every cut. Foxglove's own readers read what the
 * writer writes in tests/record/mcap.sh. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "botwire/mcap.h"

typedef struct {
    uint8_t p[1 << 16];
    size_t len;
} out_t;

static int sink(void *ctx, const void *data, size_t n)
{
    out_t *o = ctx;
    if (o->len + n > sizeof o->p)
        return 28; /* ENOSPC */
    memcpy(o->p + o->len, data, n);
    o->len += n;
    return 0;
}

static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A file of 40 messages on two channels, in chunks of about 200 bytes. */
static void write_file(out_t *o, bw_mcap_compression_t c)
{
    o->len = 0;
    bw_mcap_options_t opt = { .profile = "ros2", .library = "botwire", .compression = c,
                              .chunk_size = 200 };
    bw_mcap_writer_t *w = bw_mcap_writer_new(&opt, sink, o);
    assert_non_null(w);
    const char *k[] = { "from" }, *v[] = { "robot" };
    assert_int_equal(bw_mcap_metadata(w, "botwire", k, v, 1), 0);
    assert_int_equal(bw_mcap_channel(w, 0, "/wire/robot", "botwire/kobuki", k, v, 1), 0);
    assert_int_equal(bw_mcap_channel(w, 0, "/wire/host", "botwire/kobuki", NULL, NULL, 0), 1);
    for (unsigned i = 0; i < 40; i++) {
        uint8_t data[16];
        memset(data, (int)i, sizeof data);
        assert_int_equal(bw_mcap_message(w, (int)(i % 2), 1000000000ull + i * 20000000ull, data,
                                         i % 16),
                         0);
    }
    assert_int_equal(bw_mcap_finish(w), 0);
    assert_int_equal(bw_mcap_error(w), 0);
    assert_int_equal(bw_mcap_messages(w), 40);
    bw_mcap_writer_free(w);
}

static void test_layout(void **state)
{
    (void)state;
    static out_t o;
    write_file(&o, BW_MCAP_NONE);
    /* magic; Header: opcode 0x01, length 19, profile "ros2", library "botwire" */
    static const uint8_t opening[] = { 0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n', 0x01,
                                       19, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 'r', 'o', 's', '2',
                                       7, 0, 0, 0, 'b', 'o', 't', 'w', 'i', 'r', 'e' };
    assert_memory_equal(o.p, opening, sizeof opening);
    assert_memory_equal(o.p + o.len - 8, BW_MCAP_MAGIC, 8);
    /* Footer: opcode 0x02, length 20, summary start, summary offset start, CRC */
    const uint8_t *f = o.p + o.len - 8 - 29;
    assert_int_equal(f[0], 0x02);
    assert_int_equal(le(f + 1, 8), 20);
    uint64_t summary = le(f + 9, 8), offsets = le(f + 17, 8);
    assert_true(summary < offsets && offsets < o.len);
    /* the summary's CRC: from its start through the footer's offset field */
    uint32_t crc = (uint32_t)crc32(0, o.p + summary, (uInt)(o.len - 8 - 4 - summary));
    assert_int_equal(le(f + 25, 4), crc);
    /* Data End just before the summary: the CRC of every byte before it */
    const uint8_t *de = o.p + summary - 13;
    assert_int_equal(de[0], 0x0F);
    assert_int_equal(le(de + 1, 8), 4);
    assert_int_equal(le(de + 9, 4), (uint32_t)crc32(0, o.p, (uInt)(summary - 13)));
    /* each Summary Offset names a group of records of its opcode */
    unsigned groups = 0;
    bool stats = false;
    for (uint64_t at = offsets; at < (uint64_t)(f - o.p);) {
        assert_int_equal(o.p[at], 0x0E);
        uint8_t op = o.p[at + 9];
        uint64_t start = le(o.p + at + 10, 8), len = le(o.p + at + 18, 8);
        assert_true(start >= summary && start + len <= offsets);
        for (uint64_t r = start; r < start + len; r += 9 + le(o.p + r + 1, 8))
            assert_int_equal(o.p[r], op);
        stats |= op == 0x0B;
        groups++;
        at += 9 + le(o.p + at + 1, 8);
    }
    assert_true(groups >= 4 && stats); /* channels, statistics, chunk and metadata indexes */
    /* every Chunk Index points at a Chunk whose Message Indexes point at
     * Message records inside its (uncompressed) records */
    unsigned chunks = 0;
    for (uint64_t at = summary; at < offsets; at += 9 + le(o.p + at + 1, 8)) {
        if (o.p[at] != 0x08)
            continue;
        const uint8_t *ci = o.p + at + 9;
        uint64_t start = le(ci + 16, 8), length = le(ci + 24, 8);
        const uint8_t *chunk = o.p + start;
        assert_int_equal(chunk[0], 0x06);
        assert_int_equal(9 + le(chunk + 1, 8), length);
        const uint8_t *records = chunk + 9 + 8 + 8 + 8 + 4 + 4 + 8; /* compression "" */
        uint64_t size = le(chunk + 9 + 16, 8);
        assert_int_equal(le(chunk + 9 + 24, 4), (uint32_t)crc32(0, records, (uInt)size));
        uint32_t maplen = (uint32_t)le(ci + 32, 4);
        for (uint32_t m = 0; m < maplen; m += 10) {
            const uint8_t *mi = o.p + le(ci + 36 + m + 2, 8);
            assert_int_equal(mi[0], 0x07);
            uint32_t n = (uint32_t)le(mi + 9 + 2, 4);
            for (uint32_t e = 0; e < n; e += 16) {
                uint64_t off = le(mi + 9 + 6 + e + 8, 8);
                assert_true(off < size);
                assert_int_equal(records[off], 0x05);
                assert_int_equal(le(records + off + 9, 2), le(mi + 9, 2)); /* its channel */
            }
        }
        chunks++;
    }
    assert_true(chunks >= 3);
}

/* Messages a reader gives for in[0..n) pushed in pieces of step; the
 * errors it said, each naming an offset. */
static unsigned read_all(const uint8_t *in, size_t n, size_t step, unsigned *errors, bool *finished)
{
    bw_mcap_reader_t *r = bw_mcap_reader_new();
    assert_non_null(r);
    unsigned got = 0;
    *errors = 0;
    bw_mcap_message_t m;
    char err[256];
    for (size_t at = 0;; at += step) {
        if (at < n)
            assert_int_equal(bw_mcap_reader_push(r, in + at, at + step <= n ? step : n - at), 0);
        else
            bw_mcap_reader_end(r);
        int k;
        while ((k = bw_mcap_next(r, &m, err, sizeof err)) != 0) {
            if (k < 0) {
                assert_memory_equal(err, "offset ", 7);
                (*errors)++;
                continue;
            }
            assert_int_equal(m.len, got % 16); /* in order, whole */
            assert_int_equal(m.log_time, 1000000000ull + got * 20000000ull);
            got++;
        }
        if (at >= n)
            break;
    }
    *finished = bw_mcap_finished(r);
    bw_mcap_reader_free(r);
    return got;
}

static void test_read_back(void **state)
{
    (void)state;
    static out_t o;
    for (int c = BW_MCAP_ZSTD; c <= BW_MCAP_NONE; c++) {
        write_file(&o, (bw_mcap_compression_t)c);
        static const size_t steps[] = { 1, 7, 64, 1 << 16 };
        for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
            unsigned errors;
            bool finished;
            assert_int_equal(read_all(o.p, o.len, steps[s], &errors, &finished), 40);
            assert_int_equal(errors, 0);
            assert_true(finished);
        }
    }
}

static void test_every_cut(void **state)
{
    (void)state;
    static out_t o;
    write_file(&o, BW_MCAP_ZSTD);
    unsigned last = 0;
    for (size_t n = 0; n < o.len; n++) {
        unsigned errors;
        bool finished;
        unsigned got = read_all(o.p, n, 4096, &errors, &finished);
        assert_false(finished);
        assert_true(got >= last && got <= 40); /* a longer cut never reads less */
        assert_true(errors <= 1);              /* the cut, said once */
        last = got;
    }
    assert_int_equal(last, 40); /* all messages before the summary */
}

/* --recover of every cut: a finished file of the messages the cut held
 * (read_all's count), same Header, metadata, channels and compression. */
static void test_recover_every_cut(void **state)
{
    (void)state;
    static out_t o, r;
    write_file(&o, BW_MCAP_LZ4);
    for (size_t n = 0; n < o.len; n++) {
        unsigned errors;
        bool finished;
        unsigned want = read_all(o.p, n, 4096, &errors, &finished);
        FILE *in = fmemopen(o.p, n ? n : 1, "rb");
        assert_non_null(in);
        if (!n)
            fgetc(in); /* an empty file */
        r.len = 0;
        bw_mcap_recover_t rep;
        char err[256];
        int rc = bw_mcap_recover(in, NULL, sink, &r, NULL, &rep, err, sizeof err);
        fclose(in);
        if (n < 8) { /* not even the magic */
            assert_int_equal(rc, -1);
            assert_string_equal(err, "offset 0: not an MCAP file (its first bytes are not MCAP's magic)");
            continue;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(rep.messages, want);
        assert_int_equal(rep.size, n);
        assert_false(rep.finished);
        assert_int_equal(read_all(r.p, r.len, 4096, &errors, &finished), want);
        assert_int_equal(errors, 0);
        assert_true(finished);
        /* what the writer had defined by the cut is there */
        bw_mcap_reader_t *rd = bw_mcap_reader_new();
        assert_int_equal(bw_mcap_reader_push(rd, r.p, r.len), 0);
        bw_mcap_reader_end(rd);
        bw_mcap_message_t m;
        while (bw_mcap_next(rd, &m, err, sizeof err) != 0)
            ;
        const char *from = bw_mcap_meta(rd, "botwire", "from");
        assert_true(want == 0 || (from && !strcmp(from, "robot")));
        bw_mcap_reader_free(rd);
        if (want > 0) /* the first chunk's compression kept */
            assert_non_null(memmem(r.p, r.len, "\x03\0\0\0lz4", 7));
    }
}

static void test_not_mcap(void **state)
{
    (void)state;
    static const char text[] = "{\"botwire_record\":1}\n";
    bw_mcap_reader_t *r = bw_mcap_reader_new();
    assert_int_equal(bw_mcap_reader_push(r, text, sizeof text - 1), 0);
    bw_mcap_reader_end(r);
    bw_mcap_message_t m;
    char err[256];
    assert_int_equal(bw_mcap_next(r, &m, err, sizeof err), -1);
    assert_string_equal(err, "offset 0: not an MCAP file (its first bytes are not MCAP's magic)");
    assert_int_equal(bw_mcap_next(r, &m, err, sizeof err), 0);
    bw_mcap_reader_free(r);
}

static void test_write_error(void **state)
{
    (void)state;
    static out_t o;
    o.len = sizeof o.p - 100; /* a disk almost full */
    bw_mcap_options_t opt = { .compression = BW_MCAP_NONE };
    bw_mcap_writer_t *w = bw_mcap_writer_new(&opt, sink, &o);
    uint8_t data[200] = { 0 };
    int rc = bw_mcap_message(w, -1, 0, data, 1); /* no such channel */
    assert_int_equal(rc, -1);
    assert_int_equal(bw_mcap_channel(w, 0, "/a", "x", NULL, NULL, 0), 0);
    assert_int_equal(bw_mcap_message(w, 0, 0, data, sizeof data), 0); /* in the open chunk */
    assert_int_equal(bw_mcap_finish(w), -1);
    assert_int_equal(bw_mcap_error(w), 28);
    bw_mcap_writer_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),    cmocka_unit_test(test_read_back),
        cmocka_unit_test(test_every_cut), cmocka_unit_test(test_recover_every_cut),
        cmocka_unit_test(test_not_mcap),
        cmocka_unit_test(test_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
