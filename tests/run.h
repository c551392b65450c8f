/* A driver and its emulated robot together over a sim: URL, in virtual
 * time: the harness of every family's end-to-end test. Include after
 * <cmocka.h> and botwire.h. */
#ifndef BW_TESTS_RUN_H
#define BW_TESTS_RUN_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RUN_EVENTS 256

typedef struct {
    bw_base_t *b;
    const bw_base_state_t *st;
    const bw_sim_t *sim;
    double now;
    bw_pose_t origin; /* the true pose where odometry started */
    bw_event_t events[RUN_EVENTS];
    size_t nevents;
} run_t;

/* One step of virtual time: to the base's next deadline (at most 0.1 s). */
static inline void run_step(run_t *r)
{
    double next = bw_base_next_deadline(r->b);
    assert_true(next > r->now - 1e-9);
    r->now = fmin(next, r->now + 0.1);
    bw_base_poll(r->b, r->now);
    bw_event_t ev;
    while (bw_base_next_event(r->b, &ev))
        if (r->nevents < RUN_EVENTS)
            r->events[r->nevents++] = ev;
}

static inline void run_for(run_t *r, double seconds)
{
    for (double end = r->now + seconds; r->now < end;)
        run_step(r);
}

/* Keeps commanding (v, w) for the time given. */
static inline void run_drive(run_t *r, double v, double w, double seconds)
{
    for (double end = r->now + seconds; r->now < end;) {
        bw_base_drive(r->b, v, w, r->now);
        run_step(r);
    }
}

/* Opens the URL and waits until the robot is online (within 2 s). */
static inline void run_open(run_t *r, const char *url)
{
    char err[256];
    memset(r, 0, sizeof *r);
    int rc = bw_base_open(&r->b, url, NULL, 0.0, err, sizeof err);
    if (rc < 0)
        fail_msg("%s: %s", url, err);
    r->st = bw_base_state(r->b);
    r->sim = bw_device_sim(bw_base_device(r->b));
    while (!r->st->online && r->now < 2.0)
        run_step(r);
    assert_true(r->st->online);
    r->origin = r->sim->body.pose;
}

/* Where odometry puts the robot in the world. */
static inline bw_pose_t run_odo_world(const run_t *r)
{
    return bw_pose_compose(r->origin, r->st->pose);
}

/* The odometry heading's error against the truth, radians. */
static inline double run_heading_error(const run_t *r)
{
    return bw_angle_diff(run_odo_world(r).theta, r->sim->body.pose.theta);
}

static inline size_t run_find_event(const run_t *r, bw_event_type_t type, bool on, size_t from)
{
    for (size_t i = from; i < r->nevents; i++)
        if (r->events[i].type == type && r->events[i].on == on)
            return i;
    return SIZE_MAX;
}

/* Radius of the circle through points, least squares (Kasa's fit). */
static inline double run_fit_radius(const double *x, const double *y, size_t n)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, sz = 0, sxz = 0, syz = 0;
    for (size_t i = 0; i < n; i++) {
        double z = x[i] * x[i] + y[i] * y[i];
        sx += x[i], sy += y[i], sxx += x[i] * x[i], syy += y[i] * y[i], sxy += x[i] * y[i];
        sz += z, sxz += x[i] * z, syz += y[i] * z;
    }
    /* x^2 + y^2 + D x + E y + F = 0: [sxx sxy sx; sxy syy sy; sx sy n] [D E F]' =
     * -[sxz syz sz]', by elimination. */
    double a[3][4] = { { sxx, sxy, sx, -sxz }, { sxy, syy, sy, -syz }, { sx, sy, (double)n, -sz } };
    for (int c = 0; c < 3; c++)
        for (int r = c + 1; r < 3; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 4; k++)
                a[r][k] -= f * a[c][k];
        }
    double s[3];
    for (int c = 2; c >= 0; c--) {
        double v = a[c][3];
        for (int k = c + 1; k < 3; k++)
            v -= a[c][k] * s[k];
        s[c] = v / a[c][c];
    }
    return sqrt(s[0] * s[0] / 4 + s[1] * s[1] / 4 - s[2]);
}

/* Drives a square of `side` metres by odometry and stops. Returns the worst
 * distance between where odometry and the world had the robot on the way;
 * the end (odometry's) is in r->st->pose. */
static inline double run_square(run_t *r, const char *name, double side, double v, double w,
                                double limit)
{
    bw_square_t sq;
    bw_square_init(&sq, r->st->pose, side, v, w);
    double cv, cw, worst = 0, end = r->now + limit;
    while (bw_square_step(&sq, r->st->pose, &cv, &cw)) {
        bw_base_drive(r->b, cv, cw, r->now);
        run_step(r);
        bw_pose_t o = run_odo_world(r);
        worst = fmax(worst, hypot(o.x - r->sim->body.pose.x, o.y - r->sim->body.pose.y));
        assert_true(r->now < end);
    }
    bw_base_stop(r->b, r->now);
    run_for(r, 1.0);
    printf("%s square: end %.4f m, %.3f deg from the start by odometry; odometry within "
           "%.4f m of the truth\n",
           name, hypot(r->st->pose.x, r->st->pose.y), r->st->pose.theta * 180 / BW_PI, worst);
    return worst;
}

#endif
