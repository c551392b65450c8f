/* The RoboBuggy driver and the emulated buggy, in virtual time over
 * sim:rbsm, and over a relay the test controls (to silence the host). */
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

/* drive(v, w) for the w that holds a steering angle at the measured speed. */
static void hold_angle(run_t *r, double deg, double seconds)
{
    for (double end = r->now + seconds; r->now < end;) {
        double w = r->st->v > 0.05 ? r->st->v * tan(deg * BW_PI / 180) / BW_RBSM_WHEELBASE_M
                                   : copysign(0.1, deg);
        bw_base_drive(r->b, 1, w, r->now);
        run_step(r);
    }
}

static void test_online_and_caps(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm");
    run_for(&r, 0.3);
    uint32_t caps = bw_base_caps(r.b);
    assert_true(caps & BW_CAP_STEER);
    assert_false(caps & BW_CAP_DRIVE); /* its speed is not commanded */
    assert_true(caps & BW_CAP_BRAKE);
    assert_true(r.st->brake); /* it stands braked */
    assert_string_equal(r.st->mode, "auton");
    assert_false(r.st->commands_ignored);
    assert_true(fabs(r.st->battery - 12.6) < 0.05);
    assert_int_equal(r.st->faults, 0);
    assert_int_equal(r.st->link.skipped_bytes + r.st->link.length_errors, 0);
    bw_base_close(r.b, r.now);
}

/* 10 degrees held: the true path and the odometry are both circles of
 * wheelbase / tan(10 degrees), within 2 %. */
static void test_circle(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm");
    hold_angle(&r, 10, 4);
    double tx[512], ty[512], ox[512], oy[512];
    size_t n = 0;
    while (n < 512) {
        hold_angle(&r, 10, 0.04);
        tx[n] = r.sim->body.pose.x;
        ty[n] = r.sim->body.pose.y;
        ox[n] = r.st->pose.x;
        oy[n++] = r.st->pose.y;
    }
    double want = BW_RBSM_WHEELBASE_M / tan(10 * BW_PI / 180);
    double rt = run_fit_radius(tx, ty, n), ro = run_fit_radius(ox, oy, n);
    printf("rbsm circle at 10 degrees: true radius %.3f m, odometry %.3f m, wheelbase / tan "
           "%.3f m\n",
           rt, ro, want);
    assert_true(fabs(rt - want) / want < 0.02);
    assert_true(fabs(ro - want) / want < 0.02);
    bw_base_close(r.b, r.now);
}

/* v = 0 brakes: the buggy stops, the brake event says so; the odometry ends
 * within 5 cm of the true pose after the roll and the stop. */
static void test_brake_and_odometry(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm");
    run_drive(&r, 1, 0.25, 6);
    assert_false(r.st->brake);
    assert_true(r.st->v > 2);
    size_t from = r.nevents;
    run_drive(&r, 0, 0, 2);
    assert_true(r.sim->body.v < 1e-9);
    assert_true(r.st->brake);
    assert_true(run_find_event(&r, BW_EV_BRAKE, true, from) != SIZE_MAX);
    bw_pose_t o = run_odo_world(&r);
    double err = hypot(o.x - r.sim->body.pose.x, o.y - r.sim->body.pose.y);
    printf("rbsm: rolled %.2f m; odometry %.3f m from the true pose, heading %.2f deg\n",
           r.sim->travelled, err, run_heading_error(&r) * 180 / BW_PI);
    assert_true(r.sim->travelled > 10);
    assert_true(err < 0.05);
    assert_true(fabs(run_heading_error(&r)) < 2 * BW_PI / 180);
    bw_base_close(r.b, r.now);
}

/* The RC switch thrown: the driver says its commands are ignored (mode rc,
 * an event), and says so again when the host has the buggy back. */
static void test_rc(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm");
    run_drive(&r, 1, 0, 1);
    assert_int_equal(bw_rbsm_device_rc(bw_base_device(r.b), true, false), 0);
    size_t from = r.nevents;
    run_drive(&r, 0, 0, 0.5);
    assert_true(r.st->commands_ignored);
    assert_string_equal(r.st->mode, "rc");
    size_t i = run_find_event(&r, BW_EV_REFLEX, true, from);
    assert_int_not_equal(i, SIZE_MAX);
    assert_int_equal(r.events[i].mask, BW_REFLEX_REMOTE);
    assert_true(r.sim->body.v > 1); /* the host's brake is not obeyed */
    assert_int_equal(bw_rbsm_device_rc(bw_base_device(r.b), false, false), 0);
    run_drive(&r, 0, 0, 1.5);
    assert_false(r.st->commands_ignored);
    assert_true(run_find_event(&r, BW_EV_REFLEX, false, from) != SIZE_MAX);
    assert_true(r.sim->body.v < 1e-9);
    bw_base_close(r.b, r.now);
}

/* The host falls silent (its bytes stop reaching the Mega): a second later
 * the brake is down and the fault event carries the auton-lost bit. */
static void test_silent_host(void **state)
{
    (void)state;
    bw_device_t *dev;
    char err[256];
    assert_int_equal(bw_device_create(&dev, "rbsm", NULL, 0, err, sizeof err), 0);
    bw_port_t *near, *far;
    assert_int_equal(bw_port_pair(&near, &far, 1 << 16), 0);
    bw_base_t *b;
    assert_int_equal(bw_base_open_port(&b, "rbsm", near, NULL, 0, err, sizeof err), 0);
    const bw_base_state_t *st = bw_base_state(b);
    bool cut = false;
    double now = 0, cut_at = 3;
    bool fault = false;
    uint8_t buf[4096];
    while (now < 6) {
        now += 0.01;
        int n;
        while ((n = bw_port_read(far, buf, sizeof buf)) > 0)
            if (!cut)
                bw_device_input(dev, buf, (size_t)n, now);
        bw_device_step(dev, now);
        size_t out;
        while ((out = bw_device_output(dev, buf, sizeof buf)) > 0)
            bw_port_write(far, buf, out);
        bw_base_drive(b, now < cut_at ? 1 : 1, 0, now);
        bw_base_poll(b, now);
        bw_event_t ev;
        while (bw_base_next_event(b, &ev))
            if (ev.type == BW_EV_FAULT && ev.on && (ev.mask & BW_RBSM_ERR_AUTON_LOST)) {
                fault = true;
                printf("rbsm: host silent at %.2f s, fault event at %.2f s\n", cut_at, ev.t);
                assert_true(ev.t - cut_at >= 0.99 && ev.t - cut_at < 1.1);
            }
        if (now >= cut_at)
            cut = true;
    }
    assert_true(fault);
    assert_true(st->brake);
    assert_true(st->faults & BW_RBSM_ERR_AUTON_LOST);
    assert_true(bw_device_sim(dev)->body.v < 1e-9);
    bw_base_close(b, now);
    bw_port_close(far);
    bw_device_destroy(dev);
}

/* The deployed firmware's dialect end to end. */
static void test_deployed(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm?model=deployed");
    hold_angle(&r, -8, 4);
    assert_true(r.st->v > 2);
    assert_true(r.st->w < -0.3);
    assert_true(r.sim->body.w < -0.3);
    run_drive(&r, 0, 0, 2);
    assert_true(r.sim->body.v < 1e-9);
    assert_true(r.st->brake);
    assert_string_equal(r.st->firmware, "0b07e00d");
    bw_base_close(r.b, r.now);
}

static void test_bad_params(void **state)
{
    (void)state;
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open(&b, "sim:rbsm?model=nixie", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "seed or deployed"));
    assert_int_equal(bw_base_open(&b, "sim:rbsm?push=99", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_int_equal(bw_base_open(&b, "rbsm:/dev/null?slope=2", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "sim:rbsm only"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_online_and_caps), cmocka_unit_test(test_circle),
        cmocka_unit_test(test_brake_and_odometry), cmocka_unit_test(test_rc),
        cmocka_unit_test(test_silent_host),     cmocka_unit_test(test_deployed),
        cmocka_unit_test(test_bad_params),
    };
    return cmocka_run_group_tests_name("rbsm driver and emulated buggy", tests, NULL, NULL);
}
