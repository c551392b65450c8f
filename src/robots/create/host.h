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
 * taken to have reached on its way to the requested ones. */
typedef struct {
    double left, right;
} bw_create_odo_t;

/*
 * One read's worth of motion into *pose (m, rad) and the twist (m/s, rad/s).
 * The Create counts distance and angle since its last read and reports them
 * truncated toward zero to whole millimetres and degrees, the rest lost: read
 * often (every 15 ms in a stream), a slow turn reads as no turn at all. The
 * motion the robot was asked for over the same dt (the requested speeds the
 * same packet carries, reached at BW_CREATE_ACCEL) is taken instead, kept
 * within the whole unit the truncated count allows. exact (lobot's spin flag: the counts include the
 * program's own measurements of its moves) takes the counts as they are,
 * but for spin_deg, when not NAN: the turn a SPIN asked for, which the
 * robot made to within a degree or so; that is taken instead, kept within
 * the unit of the count.
 */
void bw_create_odometry(bw_create_odo_t *odo, bw_pose_t *pose, double *v, double *w,
                        const bw_create_sensors_t *s, double dt, bool exact, double spin_deg);

/* Bumps (front; rear from rear_bits: BW_BUMP_REAR_LEFT / _RIGHT as they
 * apply), cliffs, wheel drops, buttons, battery, charging and the OI mode
 * into the base's state. */
void bw_create_to_state(bw_base_state_t *st, const bw_create_sensors_t *s, uint32_t rear);

#endif
