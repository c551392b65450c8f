/* The B21r as Player's stock configuration has it, and the built-in room,
 * for the rflex tests that check where each sonar looks. Include after
 * <math.h>. */
#ifndef BW_TESTS_RFLEX_B21R_H
#define BW_TESTS_RFLEX_B21R_H

/* The body ring (config/b21r_rflex_lms200.cfg, mrad_sonar_poses): theta
 * (rad), x, y (m), sonar i of the list being transducer i % 4 of bank
 * i / 4, as its num_sonars_in_bank reads the ids. */
static const double player_b21r_body[24][3] = {
    { 3.01069, -0.24786122, 0.03263155 },  { 2.74889, -0.23096988, 0.09567086 },
    { 2.48709, -0.19833834, 0.15219036 },  { 2.22529, -0.15219036, 0.19833834 },
    { 1.96350, -0.09567086, 0.23096988 },  { 1.70170, -0.03263155, 0.24786122 },
    { 1.43990, 0.03263155, 0.24786122 },   { 1.17810, 0.09567086, 0.23096988 },
    { 0.91630, 0.15219036, 0.19833834 },   { 0.65450, 0.19833834, 0.15219036 },
    { 0.39270, 0.23096988, 0.09567086 },   { 0.13090, 0.24786122, 0.03263155 },
    { -0.13090, 0.24786122, -0.03263155 }, { -0.39270, 0.23096988, -0.09567086 },
    { -0.65450, 0.19833834, -0.15219036 }, { -0.91630, 0.15219036, -0.19833834 },
    { -1.17810, 0.09567086, -0.23096988 }, { -1.43990, 0.03263155, -0.24786122 },
    { -1.70170, -0.03263155, -0.24786122 }, { -1.96350, -0.09567086, -0.23096988 },
    { -2.22529, -0.15219036, -0.19833834 }, { -2.48709, -0.19833834, -0.15219036 },
    { -2.74889, -0.23096988, -0.09567086 }, { -3.01069, -0.24786122, -0.03263155 },
};

/* How far a ray from (x, y) at angle a goes before it meets the walls of
 * the room [0, 5] x [0, 4] or the box [3, 3.5] x [0.75, 1.25] in it. */
static inline double to_wall(double x, double y, double a)
{
    double c = cos(a), s = sin(a), t = INFINITY;
    if (c > 1e-12)
        t = fmin(t, (5 - x) / c);
    if (c < -1e-12)
        t = fmin(t, -x / c);
    if (s > 1e-12)
        t = fmin(t, (4 - y) / s);
    if (s < -1e-12)
        t = fmin(t, -y / s);
    /* The box: where the ray is inside both of its slabs. */
    double lo = 0, hi = INFINITY;
    const double box[2][2] = { { 3, 3.5 }, { 0.75, 1.25 } }, o[2] = { x, y }, d[2] = { c, s };
    for (int k = 0; k < 2; k++) {
        if (fabs(d[k]) < 1e-12) {
            if (o[k] < box[k][0] || o[k] > box[k][1])
                hi = -1;
            continue;
        }
        double t0 = (box[k][0] - o[k]) / d[k], t1 = (box[k][1] - o[k]) / d[k];
        lo = fmax(lo, fmin(t0, t1));
        hi = fmin(hi, fmax(t0, t1));
    }
    return lo <= hi ? fmin(t, lo) : t;
}

#endif
