/* What the hosts of the bare Create and of lobot share: the Create's sensors
 * as the base's state, and odometry from its distance and angle packets.
 * Private to the library. */
#ifndef BOTWIRE_CREATE_HOST_H
#define BOTWIRE_CREATE_HOST_H

#include <stdbool.h>

#include "botwire/base.h"
#include "botwire/create.h"
#include "botwire/geom.h"

#define BW_CREATE_WHEELBASE_M 0.258
/* mm/s^2 each wheel takes to reach a new speed: an assumption (the OI does
 * not say; the emulated Create's is this). When the robot's is another, the
 * estimate below still stays within the whole unit each count allows. */
#define BW_CREATE_ACCEL 1000.0

/* What odometry keeps between reads: the wheel speeds (mm/s) the robot is
 * taken to have reached on its way to the requested ones, and what the
 * counts' bounds kept out of the motion modelled so far (mm, degrees; see
 * bw_create_odometry). */
typedef struct {
    double left, right;
    double carry_mm, carry_deg;
} bw_create_odo_t;

/*
 * One read's worth of motion into *pose (m, rad) and the twist (m/s, rad/s).
 * The Create counts distance and angle since its last read and reports them
 * truncated toward zero to whole millimetres and degrees, the rest lost: read
 * often (every 15 ms in a stream), a slow turn reads as no turn at all. The
 * motion the robot was asked for over the same dt (the requested speeds the
 * same packet carries, reached at BW_CREATE_ACCEL) is taken instead, kept
 * within the whole unit the truncated count allows. The host's dt is the
 * time between two arrivals, off the time between the robot's two counts by
 * the line's and the host's varying latency; a read that arrived late models
 * too much and one early too little, and what the count's unit cut off the
 * one is owed to the next: up to a read's worth is carried to the reads
 * after (reset by exact reads and estimates), so the sum follows the sum
 * of the times, which the latency does not change. exact (lobot's spin flag: the counts include the
 * program's own measurements of its moves) takes the counts as they are,
 * but for spin_deg, when not NAN: the turn a SPIN asked for, which the
 * robot made to within a degree or so; that is taken instead, kept within
 * the unit of the count.
 */
void bw_create_odometry(bw_create_odo_t *odo, bw_pose_t *pose, double *v, double *w,
                        const bw_create_sensors_t *s, double dt, bool exact, double spin_deg);

/*
 * The values a Create can report (packet by packet, the OI's ranges: flags
 * with their unused bits clear, 0/1 bits, signals within 4095, a mode of
 * 0..3, a charging state of 0..5), and the unused packets 15 and 16 at 0
 * (group6: the 52 bytes as received, or NULL). extra_bumps: bits of packet
 * 7 a family also uses (lobot's rear bumpers). requests_in_range: the
 * requested speeds within 500 mm/s and the radius within 2000 mm or a
 * special, as they are when only a program that keeps to them drives the
 * Create (lobot's); a Create a host talks to echoes what it was sent,
 * damaged on the way or not. A host without a checksum (lobot) or with one
 * a flipped pair of bits can pass (the Stream's 8-bit sum) sets a frame
 * that fails this aside.
 */
bool bw_create_values_ok(const bw_create_sensors_t *s, const uint8_t *group6, uint8_t extra_bumps,
                         bool requests_in_range);

/* A jump from the last report no battery makes in one report's time (more
 * than 1 V, 200 mAh or 5 degrees C). */
bool bw_create_battery_jump(const bw_create_sensors_t *last, const bw_create_sensors_t *s);

/*
 * Whether a read's distance and angle fit dt seconds (give or take slack)
 * of the motion the robot can have made: its wheels on their way from the
 * speeds odometry has them at to the ones requested (last: the report
 * before, NULL if none; s: this one), the count truncated toward zero.
 * Returns 0 when they fit, 1 for more motion than that (no robot makes it:
 * a damaged count), -1 for less (a wheel blocked, a robot held, or a
 * damaged count). own_moves: the counts include moves of a controller of
 * its own (lobot's spin flag) at any speed up to the Create's 500 mm/s a
 * wheel; less is then never a fault.
 */
int bw_create_motion_check(const bw_create_odo_t *odo, const bw_create_sensors_t *last,
                           const bw_create_sensors_t *s, double dt, double slack, bool own_moves);

/*
 * Motion no report measured (the reports were lost on the line, or set
 * aside): t seconds at the wheel speeds req says were requested, reached
 * at BW_CREATE_ACCEL, integrated into *pose in steps of at most step
 * seconds; the twist is the last step's. Call once a stretch of one request.
 */
void bw_create_estimate(bw_create_odo_t *odo, bw_pose_t *pose, double *v, double *w,
                        const bw_create_sensors_t *req, double t, double step);

/* Bumps (front; rear from rear_bits: BW_BUMP_REAR_LEFT / _RIGHT as they
 * apply), cliffs, wheel drops, buttons, battery, charging and the OI mode
 * into the base's state. */
void bw_create_to_state(bw_base_state_t *st, const bw_create_sensors_t *s, uint32_t rear);

#endif
