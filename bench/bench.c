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

void bench_buf_add(bench_buf_t *c, const uint8_t *data, size_t n)
{
    if (c->failed)
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

static void tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    (void)now;
    if (from_robot)
        bench_buf_add(ctx, data, n);
}

/* Runs the emulated robot and its driver for robot_seconds of virtual time,
 * driving squares, optionally recording what the robot sends. Returns the
 * wall seconds taken, or -1. */
static double drive_squares(const char *url, double robot_seconds, bench_buf_t *cap)
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
                            bench_count_t *count)
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
    count->frames += p.stats.frames;
    count->messages += p.stats.frames;
    return sum;
}

/* A protocol's own parser, framing alone or decoding too. */
static uint64_t own_framing(const void *proto, const uint8_t *stream, size_t len,
                            bench_count_t *n)
{
    return ((const bench_proto_t *)proto)->own(stream, len, n, false);
}

static uint64_t own_decode(const void *proto, const uint8_t *stream, size_t len, bench_count_t *n)
{
    return ((const bench_proto_t *)proto)->own(stream, len, n, true);
}

uint64_t bench_decode_pass(const bench_proto_t *proto, const uint8_t *stream, size_t len,
                           bench_count_t *n)
{
    return proto->own ? proto->own(stream, len, n, true) : proto->decode(NULL, stream, len, n);
}

/* Passes over the stream for `seconds`, and the rates of the fastest
 * pass: on a machine shared with other work, the speed of the code when it
 * had its core (a pass is a millisecond or two; the mean over the whole
 * time would give the other work's share). */
static void measure(bench_pass_fn fn, const void *ctx, const uint8_t *s, size_t len,
                    double seconds, double *mb_s, double *fps, double *mps,
                    volatile uint64_t *sink)
{
    double t0 = bench_now(), t = t0, best = 0;
    bench_count_t one = { 0, 0 };
    do {
        bench_count_t n = { 0, 0 };
        double start = t;
        *sink += fn(ctx, s, len, &n);
        t = bench_now();
        if (best == 0 || t - start < best) {
            best = t - start;
            one = n;
        }
    } while (t - t0 < seconds);
    *mb_s = (double)len / best / 1e6;
    *fps = (double)one.frames / best;
    *mps = (double)one.messages / best;
}

int bench_stream(const bench_proto_t *proto, const bench_shape_t *shape, bench_buf_t *out)
{
    bench_buf_t rec = { 0 };
    memset(out, 0, sizeof *out);
    const char *url = shape->sim_url ? shape->sim_url : proto->sim_url;
    double secs = shape->capture_seconds > 0 ? shape->capture_seconds : proto->capture_seconds;
    if (drive_squares(url, secs, &rec) < 0 || rec.len == 0 || rec.failed) {
        free(rec.p);
        return -1;
    }
    if (!shape->build) {
        *out = rec;
        return 0;
    }
    int rc = shape->build(rec.p, rec.len, out);
    free(rec.p);
    if (rc < 0 || out->failed || out->len == 0) {
        free(out->p);
        memset(out, 0, sizeof *out);
        return -1;
    }
    return 0;
}

int bench_run(const bench_proto_t *proto, const bench_shape_t *shape, double seconds,
              bench_result_t *r)
{
    bench_buf_t st;
    memset(r, 0, sizeof *r);
    r->proto = proto->name;
    r->shape = shape->name;
    if (bench_stream(proto, shape, &st) < 0)
        return -1;
    volatile uint64_t sink = 0;
    double fps_framing, mps_framing;
    long a0 = bench_alloc_count();
    if (proto->framing) {
        measure(run_framing, proto->framing(), st.p, st.len, seconds, &r->framing_mb_s,
                &fps_framing, &mps_framing, &sink);
        measure(proto->decode, NULL, st.p, st.len, seconds, &r->decode_mb_s, &r->frames_per_s,
                &r->messages_per_s, &sink);
    } else {
        measure(own_framing, proto, st.p, st.len, seconds, &r->framing_mb_s, &fps_framing,
                &mps_framing, &sink);
        measure(own_decode, proto, st.p, st.len, seconds, &r->decode_mb_s, &r->frames_per_s,
                &r->messages_per_s, &sink);
    }
    long a1 = bench_alloc_count();
    r->stream_bytes = st.len;
    r->heap_allocs = a0 < 0 ? -1 : a1 - a0;
    free(st.p);
    return 0;
}

double bench_sim_hour(const bench_proto_t *proto)
{
    return drive_squares(proto->sim_url, 3600.0, NULL);
}
