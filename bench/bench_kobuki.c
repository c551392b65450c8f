/* Kobuki parse throughput on a realistic 50 Hz feedback stream. */
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "botwire/kobuki.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads arrive in chunks, as from a serial port or a file. */
#define CHUNK 4096

static uint64_t run_framing(const uint8_t *stream, size_t len, uint64_t *frames)
{
    bw_kobuki_parser_t p;
    bw_kobuki_parser_init(&p);
    uint64_t sum = 0;
    for (size_t off = 0; off < len; off += CHUNK) {
        const uint8_t *d = stream + off;
        size_t n = len - off < CHUNK ? len - off : CHUNK;
        bw_kobuki_frame_t f;
        int rc;
        while ((rc = bw_kobuki_parse(&p, &d, &n, &f)) != 0)
            if (rc > 0)
                sum += f.len;
    }
    *frames += p.stats.frames;
    return sum;
}

static uint64_t run_decode(const uint8_t *stream, size_t len, uint64_t *frames)
{
    bw_kobuki_parser_t p;
    bw_kobuki_parser_init(&p);
    uint64_t sum = 0;
    for (size_t off = 0; off < len; off += CHUNK) {
        const uint8_t *d = stream + off;
        size_t n = len - off < CHUNK ? len - off : CHUNK;
        bw_kobuki_frame_t f;
        int rc;
        while ((rc = bw_kobuki_parse(&p, &d, &n, &f)) != 0) {
            if (rc < 0)
                continue;
            bw_kobuki_iter_t it;
            bw_kobuki_msg_t m;
            bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_ROBOT, &p.stats);
            while (bw_kobuki_iter_next(&it, &m) > 0) {
                /* Touch a decoded value so the work cannot be optimised away. */
                if (m.type == BW_KOBUKI_BASIC_SENSOR_DATA)
                    sum += m.u.basic_sensor_data.left_encoder;
                else if (m.type == BW_KOBUKI_RAW_GYRO)
                    sum += (uint64_t)(uint16_t)m.u.raw_gyro.samples[0][2];
                else
                    sum += m.type;
            }
        }
    }
    *frames += p.stats.frames;
    return sum;
}

typedef uint64_t (*run_fn)(const uint8_t *, size_t, uint64_t *);

static void measure(run_fn fn, const uint8_t *s, size_t len, double seconds, double *mb_s,
                    double *fps, volatile uint64_t *sink)
{
    uint64_t frames = 0, bytes = 0;
    double t0 = bench_now(), t;
    do {
        *sink += fn(s, len, &frames);
        bytes += len;
        t = bench_now();
    } while (t - t0 < seconds);
    *mb_s = (double)bytes / (t - t0) / 1e6;
    *fps = (double)frames / (t - t0);
}

int bench_kobuki(double seconds, bench_result_t *r)
{
    /* About a minute of robot time: ~4 MB, larger than the L2 cache, as a
     * long log would be. */
    const unsigned frames = 50 * 1000;
    size_t cap = (size_t)frames * BW_KOBUKI_MAX_FRAME;
    uint8_t *stream = malloc(cap);
    if (!stream)
        return -1;
    size_t len = bench_kobuki_stream(stream, cap, frames, 12345);
    volatile uint64_t sink = 0;
    double fps_framing;

    long a0 = bench_alloc_count();
    measure(run_framing, stream, len, seconds, &r->framing_mb_s, &fps_framing, &sink);
    measure(run_decode, stream, len, seconds, &r->decode_mb_s, &r->frames_per_s, &sink);
    long a1 = bench_alloc_count();

    r->proto = "kobuki";
    r->stream_bytes = len;
    r->heap_allocs = a0 < 0 ? -1 : a1 - a0;
    free(stream);
    r->sim_hour_s = bench_kobuki_hour(3600.0);
    return 0;
}
