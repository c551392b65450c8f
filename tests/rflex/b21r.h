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

/* The IR ring (the same file's `poses`: x, y (m), theta (rad), as its
 * rflex_banks [4 4 4 4 4 4] read them: sensor i is byte i % 4 of bank
 * i / 4): each IR where body sonar i is, its heading 2 pi less. */
static const double player_b21r_ir[24][3] = {
    { -0.247861, 0.032632, -3.272492 }, { -0.230970, 0.095671, -3.534292 },
    { -0.198338, 0.152190, -3.796091 }, { -0.152190, 0.198338, -4.057890 },
    { -0.095671, 0.230970, -4.319690 }, { -0.032632, 0.247861, -4.581489 },
    { 0.032632, 0.247861, -4.843289 },  { 0.095671, 0.230970, -5.105088 },
    { 0.152190, 0.198338, -5.366888 },  { 0.198338, 0.152190, -5.628687 },
    { 0.230970, 0.095671, -5.890486 },  { 0.247861, 0.032632, -6.152286 },
    { 0.247861, -0.032632, -6.414085 }, { 0.230970, -0.095671, -6.675884 },
    { 0.198338, -0.152190, -6.937684 }, { 0.152190, -0.198338, -7.199483 },
    { 0.095671, -0.230970, -7.461283 }, { 0.032632, -0.247861, -7.723082 },
    { -0.032632, -0.247861, -7.984881 }, { -0.095671, -0.230970, -8.246680 },
    { -0.152190, -0.198338, -8.508480 }, { -0.198338, -0.152190, -8.770280 },
    { -0.230970, -0.095671, -9.032079 }, { -0.247861, -0.032631, -9.293879 },
};

/* How far a ray from (x, y) at angle a goes before it meets the walls of
 * the room [0, 5] x [0, 4], the box [3, 3.5] x [0.75, 1.25] in it, or the
 * back of its dock (x = 4.94, y 2.85..3.15: 4 cm behind the face at 4.9,
 * 0.3 m across). */
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
    if (c > 1e-12) { /* the dock's back */
        double td = (4.94 - x) / c, yd = y + td * s;
        if (td >= 0 && yd >= 2.85 && yd <= 3.15)
            t = fmin(t, td);
    }
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
