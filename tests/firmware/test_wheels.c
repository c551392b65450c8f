/* The base firmware's wheel speed loop (firmware/base/wheels.c) on the
 * host, against a simulated DC motor: a first-order lag from PWM to speed,
 * a load that holds the wheel until the motor beats it, a quadrature
 * encoder's 16-bit count. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../firmware/base/wheels.h"

#define HZ 100
#define SUB 10              /* plant steps per control period */
#define K 40.0              /* counts/s per PWM step, unloaded */
#define TAU 0.08            /* s */
#define FRICTION 300.0      /* counts/s of speed the load takes */

typedef struct {
    double speed;  /* counts/s */
    double count;  /* counts, unwrapped */
    bool held;     /* a wall: the wheel does not turn */
} motor_t;

static void plant(motor_t *m, int16_t pwm)
{
    double dt = 1.0 / (HZ * SUB);
    for (int i = 0; i < SUB; i++) {
        double drive = K * pwm;
        double want = fabs(drive) <= FRICTION ? 0 : drive - (drive > 0 ? FRICTION : -FRICTION);
        m->speed += (want - m->speed) * dt / TAU;
        if (m->held)
            m->speed = 0;
        m->count += m->speed * dt;
    }
}

static uint16_t counts(const motor_t *m)
{
    return (uint16_t)(uint32_t)(int64_t)floor(m->count);
}

static bw_wheel_t wheel(const motor_t *m)
{
    bw_wheel_t w;
    bw_wheel_init(&w, 40, 12, 8000, 255, HZ, counts(m));
    return w;
}

/* Runs n periods; the highest speed seen. */
static double run(bw_wheel_t *w, motor_t *m, int n)
{
    double peak = 0;
    for (int i = 0; i < n; i++) {
        plant(m, w->pwm);
        bw_wheel_step(w, counts(m));
        if (fabs(m->speed) > peak)
            peak = fabs(m->speed);
    }
    return peak;
}

static void test_reaches_and_holds(void **state)
{
    (void)state;
    motor_t m = { 0 };
    bw_wheel_t w = wheel(&m);
    bw_wheel_set(&w, 4000, false);
    double peak = run(&w, &m, 100); /* 1 s: 0.5 s of ramp at 8000 counts/s^2, then held */
    assert_true(fabs(m.speed - 4000) < 0.02 * 4000);
    assert_true(peak < 4000 * 1.05);
    /* backwards, through zero */
    bw_wheel_set(&w, -2500, false);
    run(&w, &m, 150);
    assert_true(fabs(m.speed + 2500) < 0.02 * 2500);
}

static void test_acceleration_limit(void **state)
{
    (void)state;
    motor_t m = { 0 };
    bw_wheel_t w = wheel(&m);
    bw_wheel_set(&w, 6000, false);
    int32_t last = 0;
    for (int i = 0; i < 30; i++) {
        plant(&m, w.pwm);
        bw_wheel_step(&w, counts(&m));
        assert_true(w.aim - last <= 8000 / HZ);
        last = w.aim;
    }
    assert_true(m.speed < 0.3 * 8000 + 300); /* 0.3 s in: at most what the ramp allows */
}

static void test_no_windup_when_held(void **state)
{
    (void)state;
    motor_t m = { 0 };
    bw_wheel_t w = wheel(&m);
    bw_wheel_set(&w, 3000, false);
    m.held = true;
    run(&w, &m, 200); /* 2 s against a wall */
    assert_int_equal(w.pwm, 255);
    m.held = false;
    double peak = run(&w, &m, 150);
    assert_true(peak < 3000 * 1.15); /* not the overshoot of 2 s of integral */
    assert_true(fabs(m.speed - 3000) < 0.02 * 3000);
}

static void test_stop_now(void **state)
{
    (void)state;
    motor_t m = { 0 };
    bw_wheel_t w = wheel(&m);
    bw_wheel_set(&w, 4000, false);
    run(&w, &m, 100);
    bw_wheel_set(&w, 0, true);
    assert_int_equal(w.aim, 0);
    run(&w, &m, 50);
    assert_true(fabs(m.speed) < 50);
    assert_int_equal(w.pwm, 0); /* at rest, nothing held against it */
}

static void test_encoder_wraps(void **state)
{
    (void)state;
    motor_t m = { .count = 65535.0 - 500 };
    bw_wheel_t w = wheel(&m);
    bw_wheel_set(&w, 5000, false);
    for (int i = 0; i < 120; i++) { /* well past the 16-bit wrap */
        double before = m.count;
        plant(&m, w.pwm);
        bw_wheel_step(&w, counts(&m));
        /* the speed measured over each period, the wrap's included */
        assert_true(fabs(w.speed - (m.count - before) * HZ) < 2 * HZ);
    }
    assert_true(m.count > 65536 + 1000);
    assert_true(abs(w.speed - 5000) < 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reaches_and_holds),
        cmocka_unit_test(test_acceleration_limit),
        cmocka_unit_test(test_no_windup_when_held),
        cmocka_unit_test(test_stop_now),
        cmocka_unit_test(test_encoder_wraps),
    };
    return cmocka_run_group_tests_name("base firmware wheel loop", tests, NULL, NULL);
}
