/* A host driver and its emulated robot over a line the test cuts and
 * damages at will, in virtual time: what a sim: URL's bad cable (random bit
 * errors) cannot do on purpose, such as losing every seventh frame, cutting
 * the link both ways for two seconds, or flipping two bits a checksum cannot
 * see. The base is opened on one end of an in-memory port pair; the robot,
 * made here, is pumped on the other. Used by the Create's and lobot's tests.
 * Include after <cmocka.h> and botwire.h. */
#ifndef BW_TESTS_CREATE_LINE_H
#define BW_TESTS_CREATE_LINE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LINE_EVENTS 256

typedef struct line line_t;
/* Bytes one side sent, as they leave it: the hook may change them in place
 * (up to 64 bytes more room than n) and returns how many go on (0: lost). */
typedef size_t (*line_hook_t)(line_t *l, uint8_t *bytes, size_t n);

struct line {
    bw_base_t *b;
    bw_device_t *dev;
    bw_port_t *robot; /* the robot's end of the pair */
    const bw_base_state_t *st;
    const bw_sim_t *sim;
    double now;
    bw_pose_t origin;      /* the true pose where odometry started */
    bool cut_up, cut_down; /* host to robot, robot to host: every byte lost */
    line_hook_t down;      /* NULL: the robot's bytes go as they are */
    line_hook_t up;        /* NULL: the host's bytes go as they are (the same, the other way) */
    void *ctx;
    unsigned chunks, host_chunks; /* output chunks so far: the robot's, the host's */       /* robot output chunks so far (a Stream frame is one) */
    bool seen_estimated;   /* st->estimated was true after some step */
    bw_event_t events[LINE_EVENTS];
    size_t nevents;
};

/* Host bytes to the robot (unless cut), the robot's bytes to the host
 * (unless cut, through the hook). Returns whether any byte moved. */
static inline bool line_pump(line_t *l)
{
    uint8_t buf[4096];
    bool moved = false;
    int n;
    while ((n = bw_port_read(l->robot, buf, sizeof buf - 64)) > 0) {
        l->host_chunks++;
        moved = true;
        size_t k = l->up ? l->up(l, buf, (size_t)n) : (size_t)n;
        if (!l->cut_up && k)
            bw_device_input(l->dev, buf, k, l->now);
    }
    bw_device_step(l->dev, l->now);
    size_t out;
    while ((out = bw_device_output(l->dev, buf, sizeof buf)) > 0) {
        l->chunks++;
        if (l->down)
            out = l->down(l, buf, out);
        if (!l->cut_down && out) {
            bw_port_write(l->robot, buf, out);
            moved = true;
        }
    }
    return moved;
}

/* To the next thing due (the base's deadline, the robot's, at most 5 ms
 * on), then back and forth until the line is quiet, as over a wire of no
 * length. */
static inline void line_step(line_t *l)
{
    double next = fmin(bw_base_next_deadline(l->b), bw_device_next_deadline(l->dev));
    l->now = fmax(l->now, fmin(next, l->now + 0.005));
    for (int round = 0; round < 8; round++) {
        bool moved = line_pump(l);
        bw_base_poll(l->b, l->now);
        if (!moved && round > 0)
            break;
    }
    l->seen_estimated |= l->st->estimated;
    bw_event_t ev;
    while (bw_base_next_event(l->b, &ev))
        if (l->nevents < LINE_EVENTS)
            l->events[l->nevents++] = ev;
}

static inline void line_for(line_t *l, double seconds)
{
    for (double end = l->now + seconds; l->now < end - 1e-9;)
        line_step(l);
}

static inline void line_drive(line_t *l, double v, double w, double seconds)
{
    for (double end = l->now + seconds; l->now < end - 1e-9;) {
        bw_base_drive(l->b, v, w, l->now);
        line_step(l);
    }
}

/* The robot of a family (o: its options, NULL for the defaults), its
 * driver on the other end, online; the hooks (or NULL) act from the first
 * byte. */
static inline void line_open_with(line_t *l, const char *family, const bw_device_options_t *o,
                                  line_hook_t up, line_hook_t down, void *ctx)
{
    memset(l, 0, sizeof *l);
    l->up = up;
    l->down = down;
    l->ctx = ctx;
    char err[256];
    assert_int_equal(bw_device_create(&l->dev, family, o, 0.0, err, sizeof err), 0);
    bw_port_t *host;
    assert_int_equal(bw_port_pair(&host, &l->robot, 1 << 16), 0);
    bw_device_link(l->dev, true, 0.0);
    assert_int_equal(bw_base_open_port(&l->b, family, host, NULL, 0.0, err, sizeof err), 0);
    l->st = bw_base_state(l->b);
    l->sim = bw_device_sim(l->dev);
    while (!l->st->online && l->now < 2.0)
        line_step(l);
    assert_true(l->st->online);
    l->origin = l->sim->body.pose;
}

static inline void line_open(line_t *l, const char *family)
{
    line_open_with(l, family, NULL, NULL, NULL, NULL);
}

static inline void line_close(line_t *l)
{
    bw_base_close(l->b, l->now);
    bw_port_close(l->robot);
    bw_device_destroy(l->dev);
}

/* Odometry's pose in the world, and its errors against the truth. */
static inline bw_pose_t line_odo_world(const line_t *l)
{
    return bw_pose_compose(l->origin, l->st->pose);
}

static inline double line_pos_error(const line_t *l)
{
    bw_pose_t o = line_odo_world(l);
    return hypot(o.x - l->sim->body.pose.x, o.y - l->sim->body.pose.y);
}

static inline double line_heading_error(const line_t *l)
{
    return bw_angle_diff(line_odo_world(l).theta, l->sim->body.pose.theta);
}

static inline size_t line_count_events(const line_t *l, bw_event_type_t type, bool on)
{
    size_t n = 0;
    for (size_t i = 0; i < l->nevents; i++)
        n += l->events[i].type == type && l->events[i].on == on;
    return n;
}

/* A 1 m square by odometry at 0.2 m/s and 0.8 rad/s (test_noisy's), then a
 * second at rest. Returns false if it was not done within limit seconds. */
static inline bool line_square(line_t *l, double limit)
{
    bw_square_t sq;
    bw_square_init(&sq, l->st->pose, 1.0, 0.2, 0.8);
    double v, w, end = l->now + limit;
    while (bw_square_step(&sq, l->st->pose, &v, &w)) {
        if (l->now > end)
            return false;
        bw_base_drive(l->b, v, w, l->now);
        line_step(l);
    }
    bw_base_stop(l->b, l->now);
    line_for(l, 1.0);
    return true;
}

#endif
