/* Drive a square by odometry. */
#include <math.h>

#include "botwire/behave.h"

/* Tolerances a robot with coarse units can still meet: P2OS headings come in
 * 0.088 degree steps and its turn rates in whole degrees per second. */
#define DIST_TOL 0.001   /* m */
#define ANGLE_TOL 0.0035 /* rad, 0.2 degree */
#define K_DIST 1.5       /* 1/s: speed per metre to go */
#define K_HOLD 2.0       /* 1/s: heading correction on a leg */
#define K_TURN 2.0       /* 1/s */
#define V_MIN 0.02       /* creeping speeds near the goal, so it is reached */
#define W_MIN 0.03

void bw_square_init(bw_square_t *sq, bw_pose_t start, double side, double v_max, double w_max)
{
    sq->start = start;
    sq->side = side;
    sq->v_max = v_max;
    sq->w_max = w_max;
    sq->leg = 0;
    sq->turning = false;
}

static double leg_heading(const bw_square_t *sq, int leg)
{
    return bw_angle_norm(sq->start.theta + leg * (BW_PI / 2));
}

/* The corner a leg ends at. */
static bw_vec2_t corner(const bw_square_t *sq, int leg)
{
    bw_vec2_t c = { sq->start.x, sq->start.y };
    for (int i = 0; i <= leg; i++) {
        double h = leg_heading(sq, i);
        c.x += sq->side * cos(h);
        c.y += sq->side * sin(h);
    }
    return c;
}

static double clamp_mag(double x, double lo, double hi)
{
    double m = fabs(x) < lo ? lo : fabs(x) > hi ? hi : fabs(x);
    return x < 0 ? -m : m;
}

int bw_square_step(bw_square_t *sq, bw_pose_t pose, double *v, double *w)
{
    *v = *w = 0;
    while (sq->leg < 4) {
        double h = leg_heading(sq, sq->leg);
        if (!sq->turning) {
            bw_vec2_t c = corner(sq, sq->leg);
            double to_go = (c.x - pose.x) * cos(h) + (c.y - pose.y) * sin(h);
            if (to_go > DIST_TOL) {
                *v = clamp_mag(K_DIST * to_go, V_MIN, sq->v_max);
                *w = clamp_mag(K_HOLD * bw_angle_diff(h, pose.theta), 0, sq->w_max);
                return 1;
            }
            sq->turning = true;
        }
        double err = bw_angle_diff(leg_heading(sq, sq->leg + 1), pose.theta);
        if (fabs(err) > ANGLE_TOL) {
            *w = clamp_mag(K_TURN * err, W_MIN, sq->w_max);
            return 1;
        }
        sq->leg++;
        sq->turning = false;
    }
    return 0;
}

int bw_square_corner(const bw_square_t *sq)
{
    return sq->leg < 4 ? sq->leg + 1 : 0;
}
