/*
 * botwire geometry: 2-D vectors and poses, as the GRL view has them.
 *
 * Units: metres and radians. Orientation is counter-clockwise positive; a
 * heading q points along (cos q, sin q). Robot ("egocentric") frame: x ahead,
 * y to the left. Pure functions, no allocation, no state.
 */
#ifndef BOTWIRE_GEOM_H
#define BOTWIRE_GEOM_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BW_PI 3.14159265358979323846

typedef struct {
    double x, y;
} bw_vec2_t;

typedef struct {
    double x, y;  /* metres */
    double theta; /* radians, CCW positive */
} bw_pose_t;

/* Angle wrapped into (-pi, pi]. */
double bw_angle_norm(double a);
/* Shortest signed difference a - b, in (-pi, pi]. */
double bw_angle_diff(double a, double b);

/* A point in the frame of pose p (egocentric) -> global. */
bw_vec2_t bw_pose_to_global(bw_pose_t p, bw_vec2_t local);
/* A global point -> the frame of pose p (egocentric). */
bw_vec2_t bw_pose_to_local(bw_pose_t p, bw_vec2_t global);
/* a then b: b expressed in a's frame, composed (a (+) b). */
bw_pose_t bw_pose_compose(bw_pose_t a, bw_pose_t b);
/* b relative to a: the c such that a (+) c = b. */
bw_pose_t bw_pose_relative(bw_pose_t a, bw_pose_t b);

/* True if the poses are within dist_tol metres and ang_tol radians; a
 * negative tolerance leaves that part out of the comparison. */
bool bw_pose_near(bw_pose_t a, bw_pose_t b, double dist_tol, double ang_tol);

double bw_vec2_dist(bw_vec2_t a, bw_vec2_t b);

#ifdef __cplusplus
}
#endif

#endif
