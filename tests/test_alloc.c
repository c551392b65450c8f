/* No heap allocation on the paths that run for every byte and every cycle:
 * every family's full decode of a recorded stream (the passes `botwire
 * bench` times), and a base driven and polled in virtual time once open
 * (the driver, the emulated robot, the in-memory link). Allocations are
 * counted by interposing glibc's allocator (bench/alloc_count.c); the
 * sanitizer build brings its own allocator, and the release build runs this. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "../bench/bench.h"

typedef struct {
    uint8_t *p;
    size_t len, cap;
} stream_t;

static void tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    (void)now;
    stream_t *s = ctx;
    if (!from_robot)
        return;
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        s->p = realloc(s->p, s->cap);
        assert_non_null(s->p);
    }
    memcpy(s->p + s->len, data, n);
    s->len += n;
}

/* Opens the URL and drives for `seconds` of virtual time; with a stream,
 * records what the robot sent. Returns the base, open. */
static bw_base_t *drive(const char *url, double seconds, stream_t *s, double *now)
{
    bw_base_options_t o = { 0 };
    if (s) {
        o.tap = tap;
        o.tap_ctx = s;
    }
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open(&b, url, &o, 0, err, sizeof err), 0);
    for (*now = 0; *now < seconds;) {
        bw_base_drive(b, 0.2, 0.3, *now);
        *now = fmin(bw_base_next_deadline(b), *now + 0.05);
        bw_base_poll(b, *now);
        bw_event_t ev;
        while (bw_base_next_event(b, &ev))
            ;
    }
    return b;
}

static void family(const bench_proto_t *p)
{
    stream_t s = { 0 };
    double now;
    bw_base_t *b = drive(p->sim_url, 5, &s, &now);
    bw_base_close(b, now);
    assert_true(s.len > 1000);

    /* The full decode of the stream, in the reads a serial port gives. */
    uint64_t frames = 0, sink = 0;
    long a0 = bench_alloc_count();
    assert_true(a0 >= 0);
    sink += p->own ? p->own(s.p, s.len, &frames, true)
                   : p->decode(p->framing ? p->framing() : NULL, s.p, s.len, &frames);
    long decode_allocs = bench_alloc_count() - a0;

    /* The drive path, once open: 10 s of driving and polling. */
    b = drive(p->sim_url, 0.5, NULL, &now);
    a0 = bench_alloc_count();
    for (double end = now + 10; now < end;) {
        bw_base_drive(b, 0.2, 0.3, now);
        now = fmin(bw_base_next_deadline(b), now + 0.05);
        bw_base_poll(b, now);
        const bw_base_state_t *st = bw_base_state(b);
        sink += (uint64_t)st->link.frames;
        bw_event_t ev;
        while (bw_base_next_event(b, &ev))
            ;
    }
    long drive_allocs = bench_alloc_count() - a0;
    uint64_t link_frames = bw_base_state(b)->link.frames;
    bw_base_close(b, now);
    free(s.p);
    printf("%-7s %zu bytes decoded (%llu frames): %ld allocations; 10 s driven (%llu frames "
           "on the link): %ld allocations (%llu)\n",
           p->name, s.len, (unsigned long long)frames, decode_allocs,
           (unsigned long long)link_frames, drive_allocs, (unsigned long long)(sink & 1));
    assert_true(frames > 10);
    assert_int_equal(decode_allocs, 0);
    assert_int_equal(drive_allocs, 0);
}

static void test_no_allocation(void **state)
{
    (void)state;
    const bench_proto_t *all[] = { &bench_kobuki, &bench_p2os, &bench_lobot,
                                   &bench_create, &bench_rbsm, &bench_rflex };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        family(all[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_no_allocation) };
    return cmocka_run_group_tests_name("no allocation on the hot paths", tests, NULL, NULL);
}
