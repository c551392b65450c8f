/* 2-D poses and vectors. */
#include <math.h>

#include "botwire/geom.h"

double bw_angle_norm(double a)
{
    /* fmod is exact, so no drift creeps in however large a is; within a
     * turn it returns a itself, which the usual angle is, without the call. */
    double r = a < 2.0 * BW_PI && a > -2.0 * BW_PI ? a : fmod(a, 2.0 * BW_PI);
    if (r > BW_PI)
        r -= 2.0 * BW_PI;
    else if (r <= -BW_PI)
        r += 2.0 * BW_PI;
    return r;
}

double bw_angle_diff(double a, double b) { return bw_angle_norm(a - b); }

bw_vec2_t bw_pose_to_global(bw_pose_t p, bw_vec2_t local)
{
    double c = cos(p.theta), s = sin(p.theta);
    bw_vec2_t g = { p.x + c * local.x - s * local.y, p.y + s * local.x + c * local.y };
    return g;
}

bw_vec2_t bw_pose_to_local(bw_pose_t p, bw_vec2_t global)
{
    double c = cos(p.theta), s = sin(p.theta);
    double dx = global.x - p.x, dy = global.y - p.y;
    bw_vec2_t l = { c * dx + s * dy, -s * dx + c * dy };
    return l;
}

bw_pose_t bw_pose_compose(bw_pose_t a, bw_pose_t b)
{
    bw_vec2_t local = { b.x, b.y };
    bw_vec2_t g = bw_pose_to_global(a, local);
    bw_pose_t r = { g.x, g.y, bw_angle_norm(a.theta + b.theta) };
    return r;
}

bw_pose_t bw_pose_relative(bw_pose_t a, bw_pose_t b)
{
    bw_vec2_t global = { b.x, b.y };
    bw_vec2_t l = bw_pose_to_local(a, global);
    bw_pose_t r = { l.x, l.y, bw_angle_diff(b.theta, a.theta) };
    return r;
}

bool bw_pose_near(bw_pose_t a, bw_pose_t b, double dist_tol, double ang_tol)
{
    if (dist_tol >= 0 && !(hypot(a.x - b.x, a.y - b.y) <= dist_tol))
        return false;
    if (ang_tol >= 0 && !(fabs(bw_angle_diff(a.theta, b.theta)) <= ang_tol))
        return false;
    return true;
}

double bw_vec2_dist(bw_vec2_t a, bw_vec2_t b) { return hypot(a.x - b.x, a.y - b.y); }
