/* No heap allocation on the paths that run for every byte and every cycle:
 * every family's full decode of the stream of every shape `botwire bench`
 * times (the passes it times), and a base driven and polled in virtual time
 * once open (the driver, the emulated robot, the in-memory link) for every
 * emulated robot the shapes come from. Allocations are
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

/* Opens the URL and drives for `seconds` of virtual time. Returns the
 * base, open. */
static bw_base_t *drive(const char *url, double seconds, double *now)
{
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open(&b, url, NULL, 0, err, sizeof err), 0);
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

/* The drive path, once open: 10 s of driving and polling, with the
 * emulated robot and the in-memory link. */
static void drive_path(const char *name, const char *url)
{
    double now;
    uint64_t sink = 0;
    bw_base_t *b = drive(url, 0.5, &now);
    long a0 = bench_alloc_count();
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
    printf("%-7s %s: 10 s driven (%llu frames on the link): heap_allocs: %ld (%llu)\n", name, url,
           (unsigned long long)link_frames, drive_allocs, (unsigned long long)(sink & 1));
    assert_true(link_frames > 10);
    assert_int_equal(drive_allocs, 0);
}

static void family(const bench_proto_t *p)
{
    uint64_t sink = 0;

    /* The full decode of every shape's stream (the passes `botwire bench`
     * times), in the reads a serial port gives. */
    for (size_t k = 0; k < p->nshapes; k++) {
        bench_buf_t s;
        assert_int_equal(bench_stream(p, &p->shapes[k], &s), 0);
        assert_true(s.len > 1000);
        bench_count_t n = { 0, 0 };
        long a0 = bench_alloc_count();
        assert_true(a0 >= 0);
        sink += bench_decode_pass(p, s.p, s.len, &n);
        long decode_allocs = bench_alloc_count() - a0;
        printf("%-7s %-10s %zu bytes decoded (%llu frames, %llu messages): heap_allocs: %ld\n",
               p->name, p->shapes[k].name, s.len, (unsigned long long)n.frames,
               (unsigned long long)n.messages, decode_allocs);
        free(s.p);
        assert_true(n.frames > 10);
        assert_true(n.messages >= n.frames);
        assert_int_equal(decode_allocs, 0);
    }

    /* The drive path of each emulated robot the shapes come from. */
    drive_path(p->name, p->sim_url);
    for (size_t k = 0; k < p->nshapes; k++) {
        const char *url = p->shapes[k].sim_url;
        bool seen = !url || strcmp(url, p->sim_url) == 0;
        for (size_t j = 0; j < k && !seen; j++)
            seen = p->shapes[j].sim_url && strcmp(p->shapes[j].sim_url, url) == 0;
        if (!seen)
            drive_path(p->name, url);
    }
    (void)sink;
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
