/* Every family on a bad cable, in virtual time: a sim: URL with a bit error
 * rate both ways (ber=, seed=), the driver against the emulated robot's true
 * pose. Kobuki, P2OS, lobot, the bare Create and the B21r drive a 1 m square
 * by odometry; the RoboBuggy is pushed off at 2 m/s and steered for 6 s.
 *
 *  - at a bit error rate of 1e-4, odometry ends within 3 cm and 3 degrees of
 *    the truth; at 1e-3 within 10 cm and 5 degrees;
 *  - the noisy runs raise exactly the events the clean run raises (a flipped
 *    bit is no bump, no cliff, no brake, no offline);
 *  - a square reported complete closed in truth too (within the same
 *    tolerance), and every square is completed within its time.
 *
 * usage: test_noisy [FAMILY]   (one family's runs only) */
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
#include "run.h"
#include "../src/base/base_internal.h" /* to make the line noisy midway */

#define SEEDS 3
#define SQUARE_LIMIT 120.0 /* s of virtual time a square may take */

typedef struct {
    double pos, deg; /* the odometry's error against the truth: m, degrees */
    double closed;   /* how far the robot truly ended from its start, m */
    bool done;       /* the square reported itself complete */
    uint64_t implausible, rejected;
    bw_event_t events[RUN_EVENTS];
    size_t nevents;
} outcome_t;

static void url_for(char *url, size_t cap, const char *family, double ber, int seed)
{
    const char *extra = strcmp(family, "rbsm") == 0 ? "push=2" : "";
    if (ber > 0)
        snprintf(url, cap, "sim:%s?ber=%g&seed=%d%s%s", family, ber, seed, *extra ? "&" : "",
                 extra);
    else
        snprintf(url, cap, "sim:%s%s%s", family, *extra ? "?" : "", extra);
}

static void run_one(const char *family, double ber, int seed, outcome_t *o)
{
    char url[160];
    url_for(url, sizeof url, family, ber, seed);
    run_t r;
    run_open(&r, url);
    memset(o, 0, sizeof *o);
    o->done = true;
    if (strcmp(family, "rbsm") == 0) {
        /* Pushed off at 2 m/s, steered at 0.2 rad/s for 6 s, braked. */
        run_drive(&r, 2, 0.2, 6);
        bw_base_stop(r.b, r.now);
        run_for(&r, 2);
    } else {
        bw_square_t sq;
        bw_square_init(&sq, r.st->pose, 1.0, 0.2, 0.8);
        double v, w, end = r.now + SQUARE_LIMIT;
        o->done = false;
        while (r.now < end) {
            if (!bw_square_step(&sq, r.st->pose, &v, &w)) {
                o->done = true;
                break;
            }
            bw_base_drive(r.b, v, w, r.now);
            run_step(&r);
        }
        bw_base_stop(r.b, r.now);
        run_for(&r, 1);
    }
    bw_pose_t odo = run_odo_world(&r), truth = r.sim->body.pose;
    o->pos = hypot(odo.x - truth.x, odo.y - truth.y);
    o->deg = fabs(run_heading_error(&r)) * 180 / BW_PI;
    o->closed = hypot(truth.x - r.origin.x, truth.y - r.origin.y);
    o->implausible = r.st->link.implausible;
    o->rejected = r.st->link.checksum_errors + r.st->link.length_errors;
    memcpy(o->events, r.events, r.nevents * sizeof r.events[0]);
    o->nevents = r.nevents;
    bw_base_close(r.b, r.now);
}

static size_t count_like(const outcome_t *o, const bw_event_t *e)
{
    size_t n = 0;
    for (size_t i = 0; i < o->nevents; i++)
        n += o->events[i].type == e->type && o->events[i].on == e->on &&
             o->events[i].mask == e->mask;
    return n;
}

/* The noisy run's events, each as often as in the clean run, and no other. */
static bool same_events(const outcome_t *clean, const outcome_t *noisy, char *why, size_t cap)
{
    for (size_t i = 0; i < noisy->nevents; i++) {
        const bw_event_t *e = &noisy->events[i];
        if (count_like(noisy, e) != count_like(clean, e)) {
            snprintf(why, cap, "%s %s mask 0x%x at %.2f s: %zu times, %zu in the clean run",
                     bw_event_name(e->type), e->on ? "on" : "off", (unsigned)e->mask, e->t,
                     count_like(noisy, e), count_like(clean, e));
            return false;
        }
    }
    for (size_t i = 0; i < clean->nevents; i++)
        if (count_like(noisy, &clean->events[i]) == 0) {
            snprintf(why, cap, "%s %s missing", bw_event_name(clean->events[i].type),
                     clean->events[i].on ? "on" : "off");
            return false;
        }
    return true;
}

static void family_on_a_bad_cable(const char *family)
{
    static const struct {
        double ber, pos, deg;
    } levels[] = { { 1e-4, 0.03, 3 }, { 1e-3, 0.10, 5 } };
    outcome_t clean, o;
    run_one(family, 0, 0, &clean);
    printf("%-6s clean:      odometry %.4f m %.2f deg from the truth, closed %.4f m\n", family,
           clean.pos, clean.deg, clean.closed);
    int failures = 0;
    for (size_t l = 0; l < 2; l++)
        for (int seed = 1; seed <= SEEDS; seed++) {
            run_one(family, levels[l].ber, seed, &o);
            char why[160] = "";
            bool ok = o.done && o.pos <= levels[l].pos && o.deg <= levels[l].deg;
            if (!ok)
                snprintf(why, sizeof why, "%s odometry beyond %g m or %g degrees",
                         o.done ? "" : "not complete in time;", levels[l].pos, levels[l].deg);
            else
                ok = same_events(&clean, &o, why, sizeof why);
            /* A square said to be complete is closed in truth. */
            if (ok && strcmp(family, "rbsm") != 0 && o.closed > levels[l].pos) {
                snprintf(why, sizeof why, "reported complete, truly %.3f m from its start",
                         o.closed);
                ok = false;
            }
            printf("%-6s ber %g seed %d: %s odometry %.4f m %.2f deg from the truth, closed "
                   "%.4f m; %llu rejected, %llu implausible%s%s\n",
                   family, levels[l].ber, seed, o.done ? "" : "NOT DONE,", o.pos, o.deg,
                   o.closed, (unsigned long long)o.rejected, (unsigned long long)o.implausible,
                   ok ? "" : "; FAILS: ", why);
            failures += !ok;
        }
    assert_int_equal(failures, 0);
}

static void test_kobuki(void **state)
{
    (void)state;
    family_on_a_bad_cable("kobuki");
}
static void test_p2os(void **state)
{
    (void)state;
    family_on_a_bad_cable("p2os");
}
static void test_lobot(void **state)
{
    (void)state;
    family_on_a_bad_cable("lobot");
}
static void test_create(void **state)
{
    (void)state;
    family_on_a_bad_cable("create");
}
static void test_rflex(void **state)
{
    (void)state;
    family_on_a_bad_cable("rflex");
}
static void test_rbsm(void **state)
{
    (void)state;
    family_on_a_bad_cable("rbsm");
}

/* A link that turns noisy midway (every frame damaged, the bytes still
 * coming: the robot is there) stays online for BW_BASE_NOISY_LINK_FACTOR
 * link timeouts, then is lost; clean again, it is back. P2OS's timeout is
 * 0.5 s: online through 3 s of noise, offline by 6 s (10 timeouts: 5 s). */
static void test_noisy_link_stays_online(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:p2os");
    run_for(&r, 1.0);
    assert_true(r.st->online);
    uint64_t frames = r.st->link.frames, skipped = r.st->link.skipped_bytes;
    size_t from = r.nevents;
    assert_int_equal(bw_line_init(&r.b->line_down, 0.1, 0, 0, 5), 0);
    r.b->noisy = true;
    run_for(&r, 3.0);
    assert_true(r.st->link.skipped_bytes > skipped + 500); /* bytes came */
    assert_true(r.st->link.frames <= frames + 1);           /* no frame good */
    assert_true(r.st->online);
    for (size_t i = from; i < r.nevents; i++)
        assert_int_not_equal(r.events[i].type, BW_EV_OFFLINE);
    run_for(&r, 3.0);
    assert_false(r.st->online);
    bool off = false;
    for (size_t i = from; i < r.nevents; i++)
        off |= r.events[i].type == BW_EV_OFFLINE;
    assert_true(off);
    assert_int_equal(bw_line_init(&r.b->line_down, 0, 0, 0, 5), 0);
    run_for(&r, 3.0);
    assert_true(r.st->online);
    bw_base_close(r.b, r.now);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kobuki), cmocka_unit_test(test_p2os),
        cmocka_unit_test(test_lobot),  cmocka_unit_test(test_create),
        cmocka_unit_test(test_rflex),  cmocka_unit_test(test_rbsm),
        cmocka_unit_test(test_noisy_link_stays_online),
    };
    if (argc > 1) {
        char filter[64];
        snprintf(filter, sizeof filter, "test_%s", argv[1]);
        cmocka_set_test_filter(filter);
    }
    return cmocka_run_group_tests_name("every family on a bad cable", tests, NULL, NULL);
}
