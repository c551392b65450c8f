/* The host side's Create odometry (src/robots/create/host.c) on its own:
 * counts truncated by the robot, times as a host sees them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/robots/create/host.h"

#define CYCLE 0.060 /* s between the robot's reads */

/* A small deterministic generator: the latencies of the reads. */
static double next_latency(uint32_t *x, double most)
{
    *x = *x * 1664525u + 1013904223u;
    return most * (double)(*x >> 8) / (double)(1u << 24);
}

/* n reads of a robot whose wheels turn at left/right mm/s all along: each
 * read counts the motion since the last, truncated toward zero, the rest
 * lost, as the Create does; the host takes each read when it arrives, up to
 * `jitter` s late. Returns the heading (deg) and the distance (mm) the host
 * ends with; *truth_deg and *truth_mm what the robot did. */
static void drive(double left, double right, int n, double jitter, double *deg, double *mm,
                  double *truth_deg, double *truth_mm)
{
    bw_create_odo_t odo = { .left = left, .right = right };
    bw_pose_t pose = { 0, 0, 0 };
    double v, w, seen = 0;
    uint32_t x = 7;
    double per_mm = (left + right) / 2 * CYCLE;
    double per_deg = (right - left) / (BW_CREATE_WHEELBASE_M * 1000) * 180 / BW_PI * CYCLE;
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    s.requested_left_speed = (int16_t)left;
    s.requested_right_speed = (int16_t)right;
    s.distance = (int16_t)trunc(per_mm);
    s.angle = (int16_t)trunc(per_deg);
    for (int k = 1; k <= n; k++) {
        double arrived = k * CYCLE + next_latency(&x, jitter);
        bw_create_odometry(&odo, &pose, &v, &w, &s, arrived - seen, false, NAN);
        seen = arrived;
    }
    *deg = pose.theta * 180 / BW_PI;
    *mm = hypot(pose.x, pose.y) * 1000;
    *truth_deg = per_deg * n;
    *truth_mm = per_mm * n;
}

/* Read on time, the counts' units hold what the requested speeds say: the
 * model is taken whole. */
static void test_on_time_is_the_model(void **state)
{
    (void)state;
    double deg, mm, tdeg, tmm;
    drive(-103, 103, 30, 0, &deg, &mm, &tdeg, &tmm);
    assert_true(fabs(deg - tdeg) < 1e-6); /* 2.74 degrees a read, counted 2 */
    drive(210, 210, 30, 0, &deg, &mm, &tdeg, &tmm);
    assert_true(fabs(mm - tmm) < 1e-6); /* 12.6 mm a read, counted 12 */
}

/* Read up to 20 ms late (a USB serial adapter, a loaded host, a pty): a
 * late read models more time than the robot counted and its unit cuts it
 * off, an early one less; what is cut off one read is owed to the next, so
 * the sum follows the robot, but for the last read's lateness (20 ms of
 * motion: 0.9 degrees, 4.2 mm). Without the carry a turn of 90 reads
 * (247 degrees) ended 5 degrees short. */
static void test_late_reads_lose_nothing(void **state)
{
    (void)state;
    double deg, mm, tdeg, tmm;
    drive(-103, 103, 90, 0.020, &deg, &mm, &tdeg, &tmm);
    double turned = deg < 0 ? deg + 360 : deg;
    assert_true(fabs(turned - tdeg) < 1.0);
    drive(210, 210, 100, 0.020, &deg, &mm, &tdeg, &tmm);
    assert_true(fabs(mm - tmm) < 4.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_on_time_is_the_model),
        cmocka_unit_test(test_late_reads_lose_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
