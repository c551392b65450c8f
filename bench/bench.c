/* The benchmark harness shared by every protocol. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "botwire/botwire.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    uint8_t *p;
    size_t len, cap;
    bool failed;
} capture_t;

static void tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    (void)now;
    capture_t *c = ctx;
    if (!from_robot || c->failed)
        return;
    if (c->len + n > c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1 << 20;
        while (cap < c->len + n)
            cap *= 2;
        uint8_t *p = realloc(c->p, cap);
        if (!p) {
            c->failed = true;
            return;
        }
        c->p = p;
        c->cap = cap;
    }
    memcpy(c->p + c->len, data, n);
    c->len += n;
}

/* Runs the emulated robot and its driver for robot_seconds of virtual time,
 * driving squares, optionally recording what the robot sends. Returns the
 * wall seconds taken, or -1. */
static double drive_squares(const char *url, double robot_seconds, capture_t *cap)
{
    bw_base_t *b;
    if (bw_base_open(&b, url, NULL, 0.0, NULL, 0) < 0)
        return -1;
    if (cap)
        bw_base_set_tap(b, tap, cap);
    const bw_base_state_t *st = bw_base_state(b);
    double t0 = bench_now(), now = 0, v, w;
    bw_square_t sq;
    bw_square_init(&sq, st->pose, 1.0, 0.3, 1.0);
    while (now < robot_seconds) {
        if (!bw_square_step(&sq, st->pose, &v, &w))
            bw_square_init(&sq, st->pose, 1.0, 0.3, 1.0);
        bw_base_drive(b, v, w, now);
        now = bw_base_next_deadline(b);
        bw_base_poll(b, now);
    }
    double wall = bench_now() - t0;
    bool ok = st->online && st->link.checksum_errors == 0 && (!cap || !cap->failed);
    bw_base_close(b, now);
    return ok ? wall : -1;
}

/* Framing and checksum alone: the shared framer over the protocol's frames. */
static uint64_t run_framing(const void *framing, const uint8_t *stream, size_t len,
                            uint64_t *frames)
{
    bw_framer_t p;
    bw_framer_init(&p, framing);
    uint64_t sum = 0;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off, *f;
        size_t n = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK, size;
        int rc;
        while ((rc = bw_framer_parse(&p, &d, &n, &f, &size)) != 0)
            if (rc > 0)
                sum += size;
    }
    *frames += p.stats.frames;
    return sum;
}

/* A protocol's own parser, framing alone or decoding too. */
static uint64_t own_framing(const void *proto, const uint8_t *stream, size_t len, uint64_t *frames)
{
    return ((const bench_proto_t *)proto)->own(stream, len, frames, false);
}

static uint64_t own_decode(const void *proto, const uint8_t *stream, size_t len, uint64_t *frames)
{
    return ((const bench_proto_t *)proto)->own(stream, len, frames, true);
}

static void measure(bench_pass_fn fn, const void *ctx, const uint8_t *s, size_t len,
                    double seconds, double *mb_s, double *fps, volatile uint64_t *sink)
{
    uint64_t frames = 0, bytes = 0;
    double t0 = bench_now(), t;
    do {
        *sink += fn(ctx, s, len, &frames);
        bytes += len;
        t = bench_now();
    } while (t - t0 < seconds);
    *mb_s = (double)bytes / (t - t0) / 1e6;
    *fps = (double)frames / (t - t0);
}

int bench_run(const bench_proto_t *proto, double seconds, bench_result_t *r)
{
    capture_t cap = { 0 };
    memset(r, 0, sizeof *r);
    r->proto = proto->name;
    if (drive_squares(proto->sim_url, proto->capture_seconds, &cap) < 0 || cap.len == 0) {
        free(cap.p);
        return -1;
    }
    volatile uint64_t sink = 0;
    double fps_framing;
    long a0 = bench_alloc_count();
    if (proto->framing) {
        measure(run_framing, proto->framing(), cap.p, cap.len, seconds, &r->framing_mb_s,
                &fps_framing, &sink);
        measure(proto->decode, NULL, cap.p, cap.len, seconds, &r->decode_mb_s, &r->frames_per_s,
                &sink);
    } else {
        measure(own_framing, proto, cap.p, cap.len, seconds, &r->framing_mb_s, &fps_framing,
                &sink);
        measure(own_decode, proto, cap.p, cap.len, seconds, &r->decode_mb_s, &r->frames_per_s,
                &sink);
    }
    long a1 = bench_alloc_count();
    r->stream_bytes = cap.len;
    r->heap_allocs = a0 < 0 ? -1 : a1 - a0;
    free(cap.p);
    r->sim_hour_s = drive_squares(proto->sim_url, 3600.0, NULL);
    return 0;
}
