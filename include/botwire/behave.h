/*
 * botwire behaviours: motion on top of the base API, the same for every
 * family. A behaviour looks at the pose and answers a twist; it never reads
 * a clock or touches a port, so it runs unchanged on a real robot and in
 * virtual time.
 */
#ifndef BOTWIRE_BEHAVE_H
#define BOTWIRE_BEHAVE_H

#include "botwire/geom.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Drives a square of side `side` metres, turning left at each corner, by
 * odometry: straight legs toward each corner holding the leg's heading,
 * slowing as the corner nears, then turns in place to the next heading; it
 * ends at the start pose. Corners within 1 mm, headings within 0.2 degree.
 */
typedef struct {
    bw_pose_t start;
    double side;
    double v_max, w_max; /* m/s, rad/s */
    int leg;             /* 0..3, 4 when done */
    bool turning;
} bw_square_t;

void bw_square_init(bw_square_t *sq, bw_pose_t start, double side, double v_max, double w_max);
/* The twist for the current pose: returns 1 with *v, *w while the square
 * goes on, 0 (and a zero twist) once it is complete. */
int bw_square_step(bw_square_t *sq, bw_pose_t pose, double *v, double *w);
/* Which corner the square is heading for (1..4), or 0 when done. */
int bw_square_corner(const bw_square_t *sq);

#ifdef __cplusplus
}
#endif

#endif
