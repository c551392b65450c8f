/* The bare Create driver and the emulated Create, in virtual time over
 * sim:create: the Open Interface straight from the host. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "../run.h"

static void test_online_and_state(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create");
    assert_true(r.now < 0.1); /* the first stream frame, 15 ms after the ask */
    run_for(&r, 0.5);
    assert_string_equal(r.st->mode, "full");
    assert_true(fabs(r.st->battery - 16.5) < 0.2);
    assert_true(r.st->battery_capacity > 2.0);
    assert_true(r.st->link.frames >= 30);
    assert_int_equal(r.st->link.checksum_errors + r.st->link.skipped_bytes, 0);
    bw_base_close(r.b, r.now);
}

/* The same 1 m square as lobot's: within 3 cm and 3 degrees, odometry
 * within 1 cm of the truth on the way. */
static void test_square(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create");
    double worst = run_square(&r, "create", 1.0, 0.2, 0.5, 200);
    assert_true(hypot(r.st->pose.x, r.st->pose.y) < 0.03);
    assert_true(fabs(r.st->pose.theta) < 3 * BW_PI / 180);
    assert_true(worst < 0.01);
    assert_true(r.sim->travelled > 3.9);
    bw_base_close(r.b, r.now);
}

/* 30 s at 0.1 rad/s, streamed every 15 ms: each frame's angle truncates to
 * 0, and the driver's heading still follows the true one. */
static void test_slow_turn(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create");
    double turned = 0, prev = r.sim->body.pose.theta, worst = 0;
    for (double end = r.now + 30; r.now < end;) {
        bw_base_drive(r.b, 0, 0.1, r.now);
        run_step(&r);
        turned += bw_angle_diff(r.sim->body.pose.theta, prev);
        prev = r.sim->body.pose.theta;
        worst = fmax(worst, fabs(run_heading_error(&r)));
    }
    printf("create slow turn: true %.1f deg, driver off by at most %.2f deg\n",
           turned * 180 / BW_PI, worst * 180 / BW_PI);
    assert_true(turned * 180 / BW_PI > 150);
    assert_true(worst < 3 * BW_PI / 180);
    bw_base_close(r.b, r.now);
}

/* Full mode: into the box, a bump reported, and the Create pushes on as
 * told (no reflexes of its own). */
static void test_bump(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create");
    run_drive(&r, 0.3, 0, 8);
    size_t i = run_find_event(&r, BW_EV_BUMP, true, 0);
    assert_int_not_equal(i, SIZE_MAX);
    assert_int_equal(r.events[i].mask, BW_BUMP_FRONT_LEFT | BW_BUMP_FRONT_RIGHT);
    assert_int_equal(run_find_event(&r, BW_EV_REFLEX, true, 0), SIZE_MAX);
    assert_false(bw_base_caps(r.b) & BW_CAP_REFLEXES);
    bw_base_close(r.b, r.now);
}

/* Safe mode: at the stair edge the Create itself stops and falls back to
 * passive; the driver says so. */
static void test_safe_mode_cliff(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create?mode=safe");
    run_for(&r, 0.1);
    assert_string_equal(r.st->mode, "safe");
    run_drive(&r, 0, 0.5, BW_PI / 2 / 0.5 + 0.2);
    run_drive(&r, 0.2, 0, 14);
    assert_true(run_find_event(&r, BW_EV_CLIFF, true, 0) != SIZE_MAX);
    assert_string_equal(r.st->mode, "passive");
    assert_true(fabs(r.sim->body.v) < 1e-9);
    assert_false(r.sim->body.drop_left || r.sim->body.drop_right);
    bw_base_close(r.b, r.now);
}

static void test_bad_mode(void **state)
{
    (void)state;
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open(&b, "sim:create?mode=sport", NULL, 0, err, sizeof err),
                     BW_EINVAL);
    assert_non_null(strstr(err, "mode=sport"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_online_and_state), cmocka_unit_test(test_square),
        cmocka_unit_test(test_slow_turn),        cmocka_unit_test(test_bump),
        cmocka_unit_test(test_safe_mode_cliff),  cmocka_unit_test(test_bad_mode),
    };
    return cmocka_run_group_tests_name("create driver and emulated robot", tests, NULL, NULL);
}
