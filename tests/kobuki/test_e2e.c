/* Kobuki driver and emulated robot together, in virtual time, over the
 * in-memory link of a sim: URL: the acceptance runs of the base API. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"

typedef struct {
    bw_base_t *b;
    const bw_base_state_t *st;
    const bw_sim_t *sim;
    double now;
    bw_pose_t origin; /* the true pose where odometry started */
    bw_event_t events[64];
    size_t nevents;
} run_t;

static void collect_events(run_t *r)
{
    bw_event_t ev;
    while (bw_base_next_event(r->b, &ev))
        if (r->nevents < 64)
            r->events[r->nevents++] = ev;
}

/* One step of virtual time: to the base's next deadline. */
static void step(run_t *r)
{
    double next = bw_base_next_deadline(r->b);
    assert_true(next > r->now - 1e-9 && next < r->now + 1.0);
    r->now = next;
    bw_base_poll(r->b, r->now);
    collect_events(r);
}

static void run_for(run_t *r, double seconds)
{
    for (double end = r->now + seconds; r->now < end;)
        step(r);
}

static void open_run(run_t *r, const char *url)
{
    char err[256];
    memset(r, 0, sizeof *r);
    assert_int_equal(bw_base_open(&r->b, url, NULL, 0.0, err, sizeof err), 0);
    r->st = bw_base_state(r->b);
    r->sim = bw_device_sim(bw_base_device(r->b));
    while (!r->st->online)
        step(r);
    /* The first feedback frame, at 50 Hz, and its 12 ms on the 115200 baud
     * line (docs/pacing.md): it carries the answers to the opening requests
     * (versions, unique id, gains). */
    assert_true(r->now <= 0.033);
    r->origin = r->sim->body.pose;
}

/* Where odometry puts the robot in the world. */
static bw_pose_t odo_world(const run_t *r) { return bw_pose_compose(r->origin, r->st->pose); }

static size_t find_event(const run_t *r, bw_event_type_t type, bool on, size_t from)
{
    for (size_t i = from; i < r->nevents; i++)
        if (r->events[i].type == type && r->events[i].on == on)
            return i;
    return SIZE_MAX;
}

static void test_online_versions_and_caps(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki");
    assert_int_equal(find_event(&r, BW_EV_ONLINE, true, 0), 0);
    run_for(&r, 0.1);
    assert_string_equal(r.st->firmware, "1.2.0");
    assert_string_equal(r.st->hardware, "1.0.4");
    assert_true(fabs(r.st->battery - 16.7) < 0.05);
    assert_int_equal(r.st->charging, BW_CHARGE_DISCHARGING);
    uint32_t caps = bw_base_caps(r.b);
    assert_true(caps & BW_CAP_BUMPERS);
    assert_true(caps & BW_CAP_GYRO);
    assert_false(caps & BW_CAP_SONAR); /* a Kobuki has none: reported, not faked */
    assert_string_equal(bw_base_family(r.b), "kobuki");
    assert_int_equal(r.st->link.checksum_errors + r.st->link.skipped_bytes, 0);
    assert_true(r.st->link.frames >= 5);
    bw_base_close(r.b, r.now);
}

static void test_square_by_odometry(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki");
    bw_square_t sq;
    bw_square_init(&sq, r.st->pose, 1.0, 0.2, 0.8);
    double worst = 0, v, w;
    while (bw_square_step(&sq, r.st->pose, &v, &w)) {
        bw_base_drive(r.b, v, w, r.now);
        step(&r);
        bw_pose_t o = odo_world(&r);
        worst = fmax(worst, hypot(o.x - r.sim->body.pose.x, o.y - r.sim->body.pose.y));
        assert_true(r.now < 120);
    }
    bw_base_stop(r.b, r.now);
    run_for(&r, 0.5);
    /* Back where it started, by odometry: within 2 cm and 2 degrees. */
    printf("square: end %.4f m, %.3f deg from the start; odometry within %.4f m of the truth\n",
           hypot(r.st->pose.x, r.st->pose.y), r.st->pose.theta * 180 / BW_PI, worst);
    assert_true(hypot(r.st->pose.x, r.st->pose.y) < 0.02);
    assert_true(fabs(r.st->pose.theta) < 2 * BW_PI / 180);
    /* And the odometry matched the true pose all the way round. */
    assert_true(worst < 0.01);
    /* It did travel: the true path is about 4 m. */
    assert_true(r.sim->travelled > 3.9 && r.sim->travelled < 4.2);
    assert_int_equal(find_event(&r, BW_EV_BUMP, true, 0), SIZE_MAX);
    bw_base_close(r.b, r.now);
}

static void test_bump_into_the_box(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki");
    /* The box is dead ahead of the start: its face at x = 3.0. */
    /* By time, not steps: the line's deadlines make several steps a frame. */
    for (double end = r.now + 12; r.now < end && find_event(&r, BW_EV_BUMP, true, 0) == SIZE_MAX;) {
        bw_base_drive(r.b, 0.3, 0, r.now);
        step(&r);
    }
    size_t bump = find_event(&r, BW_EV_BUMP, true, 0);
    assert_true(bump != SIZE_MAX);
    assert_int_equal(r.events[bump].mask, BW_BUMP_FRONT);
    assert_true(fabs(r.sim->body.pose.x - (3.0 - 0.177)) < 0.01);
    /* Still commanded forward, the robot goes no further than the box: the
     * bumper closes 2 mm before contact, and then the body stops. */
    double x = r.sim->body.pose.x;
    for (double end = r.now + 0.5; r.now < end;) {
        bw_base_drive(r.b, 0.3, 0, r.now);
        step(&r);
    }
    assert_true(r.sim->body.pose.x - x < 0.003);
    assert_true(r.sim->body.pose.x <= 3.0 - 0.177 + 1e-9);
    assert_true(r.sim->body.pose.x > 3.0 - 0.177 - 0.002);
    assert_true(fabs(r.st->v) < 1e-3);
    assert_true(r.st->bumpers & BW_BUMP_FRONT);
    assert_true(r.st->stalled);
    /* Backing off releases the bumper. */
    for (double end = r.now + 1.0; r.now < end;) {
        bw_base_drive(r.b, -0.1, 0, r.now);
        step(&r);
    }
    assert_true(find_event(&r, BW_EV_BUMP, false, bump) != SIZE_MAX);
    assert_int_equal(r.st->bumpers, 0);
    bw_base_close(r.b, r.now);
}

static void test_over_the_stairs(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki");
    /* Face +y (the stairwell starts at y = 3.2), then drive on. */
    while (r.st->pose.theta < BW_PI / 2 - 0.01) {
        bw_base_drive(r.b, 0, 0.5, r.now);
        step(&r);
    }
    for (double end = r.now + 30;
         r.now < end && find_event(&r, BW_EV_WHEEL_DROP, true, 0) == SIZE_MAX;) {
        bw_base_drive(r.b, 0.2, 0, r.now);
        step(&r);
    }
    size_t cliff = find_event(&r, BW_EV_CLIFF, true, 0);
    size_t drop = find_event(&r, BW_EV_WHEEL_DROP, true, 0);
    assert_true(cliff != SIZE_MAX);
    assert_true(drop != SIZE_MAX);
    assert_true(cliff < drop);                          /* cliff first, */
    assert_true(r.events[cliff].t < r.events[drop].t); /* strictly earlier */
    assert_true(r.events[cliff].mask & BW_CLIFF_FRONT);
    /* At a slight angle to the edge one wheel goes first, and the robot,
     * down on one side, goes no further. */
    assert_true(r.events[drop].mask & (BW_DROP_LEFT | BW_DROP_RIGHT));
    /* A dropped robot goes nowhere. */
    bw_pose_t p = r.sim->body.pose;
    run_for(&r, 0.3);
    assert_true(hypot(r.sim->body.pose.x - p.x, r.sim->body.pose.y - p.y) < 1e-9);
    bw_base_close(r.b, r.now);
}

static void test_command_timeout_stops_the_robot(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki");
    bw_base_drive(r.b, 0.2, 0, r.now); /* once, never refreshed */
    double t0 = r.now;
    run_for(&r, 0.4);
    assert_true(r.sim->body.v > 0.19);
    run_for(&r, 0.4); /* past the 0.5 s command timeout, and the deceleration */
    assert_true(fabs(r.sim->body.v) < 1e-9);
    assert_true(fabs(r.st->v) < 1e-3);
    /* It moved for about 0.5 s at 0.2 m/s. */
    assert_true(fabs(r.st->pose.x - 0.2 * 0.5) < 0.03);
    assert_true(r.now - t0 > 0.5);
    bw_base_close(r.b, r.now);
}

static void test_turning_and_gyro_heading(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki");
    /* A full turn and a quarter: the heading wraps through +-pi. */
    double turned = 0, last = r.st->pose.theta;
    while (turned < 2.5 * BW_PI) {
        bw_base_drive(r.b, 0, 1.0, r.now);
        step(&r);
        turned += bw_angle_diff(r.st->pose.theta, last);
        last = r.st->pose.theta;
        if (turned > BW_PI / 4 && turned < 2 * BW_PI)
            assert_true(fabs(r.st->w - 1.0) < 0.05);
    }
    bw_base_stop(r.b, r.now);
    run_for(&r, 0.5);
    double truth = bw_angle_diff(r.sim->body.pose.theta, r.origin.theta);
    assert_true(fabs(bw_angle_diff(r.st->pose.theta, truth)) < 0.002);
    assert_true(hypot(r.st->pose.x, r.st->pose.y) < 0.005); /* turned in place */
    bw_base_close(r.b, r.now);
}

static void test_noise_makes_odometry_drift(void **state)
{
    (void)state;
    /* With nominal noise the square still closes by odometry, but the true
     * pose drifts from it, a little: the emulator is not too perfect. */
    run_t r;
    open_run(&r, "sim:kobuki?noise=1&seed=7");
    bw_square_t sq;
    bw_square_init(&sq, r.st->pose, 1.0, 0.2, 0.8);
    double v, w;
    while (bw_square_step(&sq, r.st->pose, &v, &w)) {
        bw_base_drive(r.b, v, w, r.now);
        step(&r);
    }
    bw_pose_t o = odo_world(&r);
    double drift = hypot(o.x - r.sim->body.pose.x, o.y - r.sim->body.pose.y);
    printf("noise 1: odometry drifted %.4f m from the truth over the square\n", drift);
    assert_true(drift > 0.0005);
    assert_true(drift < 0.2);
    bw_base_close(r.b, r.now);
}

/* The driver alone on a port pair, fed frames the test writes: what a line
 * can do to frames that still pass their checksum. */
typedef struct {
    bw_base_t *b;
    bw_port_t *robot; /* the test's end */
    double now;
    uint16_t stamp, left, right;
    double heading; /* degrees */
    uint8_t bumper, cliff; /* the next frames' flags, as the robot sends them */
} feed_t;

static void feed_open(feed_t *f)
{
    char err[256];
    bw_port_t *near;
    memset(f, 0, sizeof *f);
    assert_int_equal(bw_port_pair(&near, &f->robot, 1 << 16), 0);
    assert_int_equal(bw_base_open_port(&f->b, "kobuki", near, NULL, 0, err, sizeof err), 0);
}

/* One feedback frame 20 ms on: the wheels each `ticks` further, the gyro
 * `turn` degrees further; with `damage` its inertial sub-payload is
 * mis-sized and the checksum made to match, as two flipped bits can. */
static void feed_write(feed_t *f, int ticks, double turn, bool damage);
static void feed_frame(feed_t *f, int ticks, double turn, bool damage)
{
    feed_write(f, ticks, turn, damage);
    bw_base_poll(f->b, f->now);
}

/* The same frame, written and not read: the host is held back. */
static void feed_write(feed_t *f, int ticks, double turn, bool damage)
{
    f->now += 0.02;
    f->stamp = (uint16_t)(f->stamp + 20);
    f->left = (uint16_t)(f->left + ticks);
    f->right = (uint16_t)(f->right + ticks);
    f->heading += turn;
    bw_kobuki_msg_t m[2];
    bw_kobuki_msg_init(&m[0], BW_KOBUKI_BASIC_SENSOR_DATA);
    m[0].u.basic_sensor_data.timestamp = f->stamp;
    m[0].u.basic_sensor_data.left_encoder = f->left;
    m[0].u.basic_sensor_data.right_encoder = f->right;
    m[0].u.basic_sensor_data.battery = 167;
    m[0].u.basic_sensor_data.bumper = f->bumper;
    m[0].u.basic_sensor_data.cliff = f->cliff;
    bw_kobuki_msg_init(&m[1], BW_KOBUKI_INERTIAL_SENSOR);
    m[1].u.inertial_sensor.angle = (int16_t)lround(f->heading * 100);
    uint8_t fr[64];
    int n = bw_kobuki_encode_frame(fr, sizeof fr, m, 2);
    assert_true(n > 0);
    if (damage) {
        /* AA 55 LEN | 01 0F <15 bytes> | 04 07 ...: the inertial length 7 -> 6 */
        assert_int_equal(fr[3 + 17], 4); /* the inertial sensor's id on the wire */
        fr[3 + 18] ^= 0x01;
        fr[n - 1] ^= 0x01;
    }
    assert_int_equal(bw_port_write(f->robot, fr, (size_t)n), n);
}

/* Regression (a driver held back 1.2 s on a loaded machine set aside the
 * first three frames it then read at once, and lost their motion: its
 * clock had moved 1.2 s, the robot's stamps 20 ms a frame): frames read
 * late and then together are the robot's motion, each by its own stamp;
 * a stamp ahead of the host's clock, or going back, is still set aside. */
static void test_frames_read_late_and_at_once(void **state)
{
    (void)state;
    feed_t f;
    feed_open(&f);
    feed_frame(&f, 0, 0, false);
    for (int i = 0; i < 10; i++)
        feed_frame(&f, 47, 0, false); /* 0.2 m/s */
    for (int i = 0; i < 60; i++)
        feed_write(&f, 47, 0, false); /* 1.2 s the host did not read */
    bw_base_poll(f.b, f.now);
    for (int i = 0; i < 10; i++)
        feed_frame(&f, 47, 0, false);
    const bw_base_state_t *st = bw_base_state(f.b);
    double s = 80 * 47 * BW_KOBUKI_M_PER_TICK;
    printf("kobuki: %.4f m by the driver of %.4f, %llu implausible\n", st->pose.x, s,
           (unsigned long long)st->link.implausible);
    assert_int_equal(st->link.implausible, 0);
    assert_true(fabs(st->pose.x - s) < 1e-6);
    /* A stamp 1.5 s ahead of the host's 20 ms: corrupt, set aside. */
    f.stamp = (uint16_t)(f.stamp + 1500);
    feed_frame(&f, 47, 0, false);
    assert_int_equal(st->link.implausible, 1);
    /* A stamp going back: likewise. */
    f.stamp = (uint16_t)(f.stamp - 1600);
    feed_frame(&f, 47, 0, false);
    assert_int_equal(st->link.implausible, 2);
    bw_base_close(f.b, f.now);
    bw_port_close(f.robot);
}

/* Regression (a frame damaged past its checksum made the heading lag 3
 * degrees for good, at BER 1e-3): a frame whose inertial sub-payload is
 * mis-sized is set aside as implausible; it does not become the gyro's
 * reference, and the heading stays the gyro's. */
static void test_damage_past_the_checksum(void **state)
{
    (void)state;
    feed_t f;
    feed_open(&f);
    feed_frame(&f, 0, 0, false);
    for (int i = 0; i < 20; i++)
        feed_frame(&f, 20, 2.0, false); /* turning 100 deg/s, rolling */
    feed_frame(&f, 20, 2.0, true);
    for (int i = 0; i < 20; i++)
        feed_frame(&f, 20, 2.0, false);
    const bw_base_state_t *st = bw_base_state(f.b);
    printf("kobuki: heading %.3f deg by the driver, %.3f by the gyro; %llu implausible\n",
           st->pose.theta * 180 / BW_PI, f.heading, (unsigned long long)st->link.implausible);
    assert_int_equal(st->link.implausible, 1);
    assert_true(fabs(st->pose.theta * 180 / BW_PI - f.heading) < 0.01);
    /* 41 steps of 20 ticks each wheel, the damaged one's included (the
     * next frame's encoders carry it). */
    double s = 41 * 20 * BW_KOBUKI_M_PER_TICK;
    assert_true(fabs(hypot(st->pose.x, st->pose.y) - s) < 0.01);
    bw_base_close(f.b, f.now);
    bw_port_close(f.robot);
}

/* The seed's own values (Basic Sensor Data): "0x01 for right bumper 0x02
 * for central bumper 0x04 for left bumper", and the same for the cliff
 * sensors: each to its side in the base's state, left as left. */
static void test_bumper_and_cliff_sides_as_the_seed_says(void **state)
{
    (void)state;
    static const struct {
        uint8_t wire;
        uint32_t bump, cliff;
    } sides[] = {
        { 0x01, BW_BUMP_FRONT_RIGHT, BW_CLIFF_RIGHT },
        { 0x02, BW_BUMP_FRONT, BW_CLIFF_FRONT },
        { 0x04, BW_BUMP_FRONT_LEFT, BW_CLIFF_LEFT },
    };
    for (size_t i = 0; i < 3; i++) {
        feed_t f;
        feed_open(&f);
        feed_frame(&f, 0, 0, false);
        f.bumper = sides[i].wire;
        feed_frame(&f, 0, 0, false);
        feed_frame(&f, 0, 0, false); /* two frames agree */
        const bw_base_state_t *st = bw_base_state(f.b);
        assert_int_equal(st->bumpers, sides[i].bump);
        assert_int_equal(st->cliffs, 0);
        f.bumper = 0;
        f.cliff = sides[i].wire;
        feed_frame(&f, 0, 0, false);
        feed_frame(&f, 0, 0, false);
        assert_int_equal(st->bumpers, 0);
        assert_int_equal(st->cliffs, sides[i].cliff);
        bw_base_close(f.b, f.now);
        bw_port_close(f.robot);
    }
}

/* Regression: when feedback stops (a one-way failure: the robot still hears
 * the host) the driver stops the robot as it goes offline. The emulated
 * Kobuki's own command watchdog is off here, so only the driver's stop
 * can do it. */
static void test_stop_when_feedback_stops(void **state)
{
    (void)state;
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.command_timeout = -1;
    bw_device_t *dev;
    char err[256];
    assert_int_equal(bw_device_create(&dev, "kobuki", &o, 0, err, sizeof err), 0);
    bw_port_t *near, *far;
    assert_int_equal(bw_port_pair(&near, &far, 1 << 16), 0);
    bw_base_t *b;
    assert_int_equal(bw_base_open_port(&b, "kobuki", near, NULL, 0, err, sizeof err), 0);
    const bw_base_state_t *st = bw_base_state(b);
    double now = 0, cut = 2, offline = NAN;
    uint8_t buf[4096];
    while (now < 3.5) {
        now += 0.005;
        int n;
        while ((n = bw_port_read(far, buf, sizeof buf)) > 0)
            bw_device_input(dev, buf, (size_t)n, now);
        bw_device_step(dev, now);
        size_t out;
        while ((out = bw_device_output(dev, buf, sizeof buf)) > 0)
            if (now < cut)
                bw_port_write(far, buf, out);
        bw_base_drive(b, 0.2, 0, now); /* the host keeps asking: it cannot know */
        bw_base_poll(b, now);
        if (isnan(offline) && now > cut && !st->online)
            offline = now;
    }
    const bw_sim_t *sim = bw_device_sim(dev);
    printf("kobuki: feedback cut at %.2f s, offline %.3f s later; the robot at %.4f m/s\n", cut,
           offline - cut, sim->body.v);
    assert_true(offline - cut <= 0.11);
    assert_true(fabs(sim->body.v) < 1e-9);
    bw_base_close(b, now);
    bw_port_close(far);
    bw_device_destroy(dev);
}

/* ---- what a Kobuki has besides driving -------------------------------- */

static const bw_kobuki_device_io_t *io_of(run_t *r)
{
    return bw_kobuki_device_io(bw_base_device(r->b));
}

/* The docking IR as the emulated robot sent it: its last docking_ir
 * sub-payload, read off the link by a tap. */
typedef struct {
    bw_kobuki_parser_t parser;
    bw_kobuki_docking_ir_t last;
    unsigned seen;
} dock_tap_t;

static void dock_tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    (void)now;
    dock_tap_t *t = ctx;
    bw_kobuki_frame_t f;
    if (!from_robot)
        return;
    while (bw_kobuki_parse(&t->parser, &data, &n, &f) != 0) {
        bw_kobuki_iter_t it;
        bw_kobuki_msg_t m;
        int rc;
        bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_ROBOT, NULL);
        while ((rc = bw_kobuki_iter_next(&it, &m)) != 0)
            if (rc > 0 && m.type == BW_KOBUKI_DOCKING_IR) {
                t->last = m.u.docking_ir;
                t->seen++;
            }
    }
}

/* Lifts the emulated robot to a pose, and lets a few frames come. */
static void put_at(run_t *r, double x, double y, double deg)
{
    bw_sim_t *sim = bw_device_sim(bw_base_device(r->b));
    assert_int_equal(bw_sim_place(sim, (bw_pose_t){ x, y, deg * BW_PI / 180 }), 0);
    run_for(r, 0.1);
}

/* The seed's Docking IR: "Right signal | 1 | Flag will be setted when signal
 * is detected 0x01 for NEAR_LEFT state 0x02 for NEAR_CENTER state 0x04 for
 * NEAR_RIGHT state 0x08 for FAR_CENTER state ox10 for FAR_LEFT state 0x20
 * for FAR_RIGHT state", then "Central signal", "Left signal"; and "Kobuki's
 * docking station has 3 IR emitters. The emitted IR lights cover three
 * regions in front of the docking station: left, central and right, each
 * divided in two sub-fields: near and far." The built-in room's dock is at
 * (4.9, 3.0) facing -x; the robot put in front of it sees it with the
 * receiver that faces it, the region and field where it stands. */
static void test_dock_ir_in_front_of_the_dock(void **state)
{
    (void)state;
    run_t r;
    dock_tap_t tap;
    memset(&tap, 0, sizeof tap);
    bw_kobuki_parser_init(&tap.parser);
    open_run(&r, "sim:kobuki?start=3.9,3.0,0");
    bw_base_set_tap(r.b, dock_tap, &tap);
    assert_true(bw_base_caps(r.b) & BW_CAP_DOCK_IR);
    assert_int_equal(r.sim->world->ndocks, 1);
    static const struct {
        double x, y, deg;
        uint8_t right, centre, left; /* BW_DOCK_* per receiver */
    } at[] = {
        /* 1 m straight out, facing it: the central beam's far field, seen
         * by the central receiver alone. */
        { 3.9, 3.0, 0, 0, BW_DOCK_FAR_CENTER, 0 },
        /* 0.5 m out: its near field. */
        { 4.4, 3.0, 0, 0, BW_DOCK_NEAR_CENTER, 0 },
        /* Turned left a quarter: the dock on its right. */
        { 4.4, 3.0, 90, BW_DOCK_NEAR_CENTER, 0, 0 },
        /* Turned right a quarter: on its left. */
        { 4.4, 3.0, -90, 0, 0, BW_DOCK_NEAR_CENTER },
        /* Off the dock's axis, far: at +y its right beam (the dock's right,
         * as it faces -x), the dock 27 degrees to the robot's right, seen
         * ahead and by the right receiver; at -y its left beam, seen ahead
         * and on the left. */
        { 3.9, 3.5, 0, BW_DOCK_FAR_RIGHT, BW_DOCK_FAR_RIGHT, 0 },
        { 3.9, 2.5, 0, 0, BW_DOCK_FAR_LEFT, BW_DOCK_FAR_LEFT },
        /* Facing away: no receiver sees it. */
        { 3.9, 3.0, 180, 0, 0, 0 },
        /* Beyond the beams' reach (3.5 m off). */
        { 1.5, 2.0, 0, 0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        put_at(&r, at[i].x, at[i].y, at[i].deg);
        printf("dock IR at (%.1f, %.1f, %.0f deg): right %#x centre %#x left %#x\n", at[i].x,
               at[i].y, at[i].deg, r.st->dock_ir[0], r.st->dock_ir[1], r.st->dock_ir[2]);
        /* As the emulated robot sent it: right, central, left, each bit of
         * the seed's to the base's of the same name. */
        assert_true(tap.seen > 0);
        assert_int_equal(r.st->dock_ir[0], tap.last.right);
        assert_int_equal(r.st->dock_ir[1], tap.last.central);
        assert_int_equal(r.st->dock_ir[2], tap.last.left);
        /* ...and where the robot truly stands. */
        assert_int_equal(r.st->dock_ir[0], at[i].right);
        assert_int_equal(r.st->dock_ir[1], at[i].centre);
        assert_int_equal(r.st->dock_ir[2], at[i].left);
    }
    bw_base_close(r.b, r.now);
}

/* Each of the seed's six flags on each receiver, to the base's bit of the
 * same name (the driver alone, fed frames). */
static void test_dock_ir_every_flag(void **state)
{
    (void)state;
    static const struct {
        uint8_t wire, base;
    } flags[] = {
        { 0x01, BW_DOCK_NEAR_LEFT }, { 0x02, BW_DOCK_NEAR_CENTER }, { 0x04, BW_DOCK_NEAR_RIGHT },
        { 0x08, BW_DOCK_FAR_CENTER }, { 0x10, BW_DOCK_FAR_LEFT },   { 0x20, BW_DOCK_FAR_RIGHT },
    };
    bw_port_t *near, *robot;
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_port_pair(&near, &robot, 1 << 16), 0);
    assert_int_equal(bw_base_open_port(&b, "kobuki", near, NULL, 0, err, sizeof err), 0);
    const bw_base_state_t *st = bw_base_state(b);
    double now = 0;
    for (size_t i = 0; i < 6; i++)
        for (size_t rx = 0; rx < 3; rx++) {
            bw_kobuki_msg_t m[2];
            bw_kobuki_msg_init(&m[0], BW_KOBUKI_BASIC_SENSOR_DATA);
            now += 0.02;
            m[0].u.basic_sensor_data.timestamp = (uint16_t)lround(now * 1000);
            m[0].u.basic_sensor_data.battery = 167;
            bw_kobuki_msg_init(&m[1], BW_KOBUKI_DOCKING_IR);
            uint8_t *wire[3] = { &m[1].u.docking_ir.right, &m[1].u.docking_ir.central,
                                 &m[1].u.docking_ir.left };
            *wire[rx] = flags[i].wire;
            uint8_t fr[64];
            int n = bw_kobuki_encode_frame(fr, sizeof fr, m, 2);
            assert_true(n > 0);
            assert_int_equal(bw_port_write(robot, fr, (size_t)n), n);
            bw_base_poll(b, now);
            for (size_t k = 0; k < 3; k++)
                assert_int_equal(st->dock_ir[k], k == rx ? flags[i].base : 0);
        }
    bw_base_close(b, now);
    bw_port_close(robot);
}

/* The seed: "Contains Unique Device IDentifier of robot. ... It can be
 * represented by triplet form: <UDID0>-<UDID1>-<UDID2>"; asked for with
 * Request Extra "0x08 for Unique Device ID". kobuki_core writes each in
 * decimal. */
static void test_unique_id(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki?seed=3000000000");
    run_for(&r, 0.2);
    assert_true(bw_base_caps(r.b) & BW_CAP_UNIQUE_ID);
    const bw_kobuki_device_io_t *io = io_of(&r);
    char want[40];
    snprintf(want, sizeof want, "%lu-%lu-%lu", (unsigned long)io->udid[0],
             (unsigned long)io->udid[1], (unsigned long)io->udid[2]);
    printf("kobuki unique id: %s\n", r.st->unique_id);
    assert_string_equal(r.st->unique_id, want);
    assert_string_equal(r.st->unique_id, "1263485525-3000000000-0"); /* "KOBU", the seed */
    bw_base_close(r.b, r.now);
}

/* The seed's Set Controller Gain: "Type | 1 | 0 for factory-default PID gain
 * 1 for user-configured PID gain", "P gain | 4 | Kp * 1000 (default:
 * 100*1000)", "I gain | 4 | Ki * 1000 (default: 0.1*1000)", "D gain | 4 |
 * Kd * 1000 (default: 2*1000)"; Controller Info says the same back. The
 * base's gains are Kp, Ki, Kd. */
static void test_gains(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki");
    run_for(&r, 0.2);
    const bw_kobuki_device_io_t *io = io_of(&r);
    /* Asked for at the start: the factory's. */
    assert_true(r.st->gains.known);
    assert_false(r.st->gains.user);
    assert_int_equal(io->gain.gain_type, 0);
    assert_true(fabs(r.st->gains.p - io->gain.p_gain / 1000.0) < 1e-12);
    assert_true(fabs(r.st->gains.p - 100) < 1e-12);
    assert_true(fabs(r.st->gains.i - 0.1) < 1e-12);
    assert_true(fabs(r.st->gains.d - 2) < 1e-12);

    bw_gains_t g = { .user = true, .p = 50, .i = 0.25, .d = 1.5 };
    assert_int_equal(bw_base_set_gains(r.b, &g, r.now), 0);
    run_for(&r, 0.1);
    assert_int_equal(io->gain.gain_type, 1);
    assert_int_equal(io->gain.p_gain, 50000);
    assert_int_equal(io->gain.i_gain, 250);
    assert_int_equal(io->gain.d_gain, 1500);
    assert_true(r.st->gains.user);
    assert_true(fabs(r.st->gains.p - 50) < 1e-12);
    assert_true(fabs(r.st->gains.i - 0.25) < 1e-12);
    assert_true(fabs(r.st->gains.d - 1.5) < 1e-12);

    /* Back to the factory's. */
    g.user = false;
    assert_int_equal(bw_base_set_gains(r.b, &g, r.now), 0);
    run_for(&r, 0.1);
    assert_int_equal(io->gain.gain_type, 0);
    assert_int_equal(io->gain.p_gain, 100000);
    assert_int_equal(io->gain.i_gain, 100);
    assert_int_equal(io->gain.d_gain, 2000);
    assert_false(r.st->gains.user);
    assert_true(fabs(r.st->gains.p - 100) < 1e-12);

    /* Asked again, said again. */
    assert_int_equal(bw_base_request_gains(r.b, r.now), 0);
    run_for(&r, 0.1);
    assert_true(r.st->gains.known);
    /* Beyond Kp * 1000 in 32 bits: refused, nothing sent. */
    g = (bw_gains_t){ .user = true, .p = 5e6, .i = 0, .d = 0 };
    assert_int_equal(bw_base_set_gains(r.b, &g, r.now), BW_EINVAL);
    run_for(&r, 0.1);
    assert_int_equal(io->gain.gain_type, 0);
    bw_base_close(r.b, r.now);
}

/* The seed's General Purpose Output: "Digital output flags | 2 | ... 0x0001
 * for digital output ch. 0 0x0002 for digital output ch. 1 0x0004 for
 * digital output ch. 2 0x0008 for digital output ch. 3 ... 0x0010 for
 * external power 3.3V ch. 0x0020 for external power 5V ch. 0x0040 for
 * external power 12V/5A ch. 0x0080 for external power 12V/1.5A ch. ...
 * 0x0100 for red colour of LED1 0x0200 for green colour of LED1 0x0400 for
 * red colour of LED2 0x0800 for green colour of LED2". LEDs and outputs are
 * one command: setting one keeps the other. */
static void test_leds_and_outputs(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki");
    const bw_kobuki_device_io_t *io = io_of(&r);
    uint32_t caps = bw_base_caps(r.b);
    assert_true((caps & BW_CAP_LEDS) && (caps & BW_CAP_OUTPUTS));
    static const struct {
        int what; /* 1, 2: that LED; 0: the outputs */
        unsigned value;
        uint16_t robot; /* what the emulated robot then holds */
    } steps[] = {
        { 1, BW_LED_GREEN, 0x0200 },
        { 2, BW_LED_RED, 0x0600 },
        { 0, 0x81, 0x0681 },       /* output 0, 12 V/1.5 A: the LEDs stay */
        { 1, BW_LED_ORANGE, 0x0781 }, /* red and green */
        { 2, BW_LED_GREEN, 0x0B81 },
        { 1, BW_LED_OFF, 0x0881 },
        { 0, 0x3E, 0x083E },       /* outputs 1-3, 3.3 V, 5 V */
        { 2, BW_LED_OFF, 0x003E },
        { 0, 0, 0x0000 },
    };
    uint32_t sent = io->gp_outputs;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        int rc = steps[i].what ? bw_base_led(r.b, (unsigned)steps[i].what,
                                             (bw_led_t)steps[i].value, r.now)
                               : bw_base_outputs(r.b, steps[i].value, r.now);
        assert_int_equal(rc, 0);
        run_for(&r, 0.05);
        assert_int_equal(io->gp_output, steps[i].robot);
        assert_int_equal(io->gp_outputs, ++sent);
    }
    /* Two LEDs, eight output bits: nothing else is, and nothing is sent. */
    assert_int_equal(bw_base_led(r.b, 0, BW_LED_GREEN, r.now), BW_EINVAL);
    assert_int_equal(bw_base_led(r.b, 3, BW_LED_GREEN, r.now), BW_EINVAL);
    assert_int_equal(bw_base_led(r.b, 1, (bw_led_t)7, r.now), BW_EINVAL);
    assert_int_equal(bw_base_outputs(r.b, 0x100, r.now), BW_EINVAL);
    run_for(&r, 0.05);
    assert_int_equal(io->gp_outputs, sent);
    bw_base_close(r.b, r.now);
}

/* The seed: Sound Sequence "0 for ON sound 1 for OFF sound 2 for RECHARGE
 * sound 3 for BUTTON sound 4 for ERROR sound 5 for CLEANINGSTART sound 6
 * for CLEANINGEND sound"; Sound "Note | 2 | 1/(f a), where f is frequency
 * of sound in Hz, and a is 0.00000275", "Duration | 1 | Duration of
 * playing note in milli-seconds". */
static void test_sounds(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki");
    const bw_kobuki_device_io_t *io = io_of(&r);
    assert_true(bw_base_caps(r.b) & BW_CAP_SOUND);
    for (unsigned seq = 0; seq <= 6; seq++) {
        assert_int_equal(bw_base_sound(r.b, seq, r.now), 0);
        run_for(&r, 0.05);
        assert_int_equal(io->sound_sequence, seq);
        assert_int_equal(io->sounds, seq + 1);
    }
    assert_int_equal(bw_base_sound(r.b, 3, r.now), 0);
    run_for(&r, 0.05);
    assert_int_equal(io->sound_sequence, BW_KOBUKI_SOUND_BUTTON);
    assert_int_equal(bw_base_sound(r.b, 7, r.now), BW_EINVAL); /* the seed has no 7 */
    run_for(&r, 0.05);
    assert_int_equal(io->sounds, 8);
    /* 440 Hz: 1 / (440 * 0.00000275) = 826.4, for 200 ms. */
    assert_int_equal(bw_base_tone(r.b, 440, 0.2, r.now), 0);
    run_for(&r, 0.05);
    assert_int_equal(io->sound_note, 826);
    assert_int_equal(io->sound_duration, 200);
    assert_int_equal(io->sounds, 9);
    /* A byte of milliseconds: 255 ms at most; a note that fits 16 bits. */
    assert_int_equal(bw_base_tone(r.b, 440, 0.255, r.now), 0);
    assert_int_equal(bw_base_tone(r.b, 440, 0.3, r.now), BW_EINVAL);
    assert_int_equal(bw_base_tone(r.b, 5, 0.1, r.now), BW_EINVAL);
    run_for(&r, 0.05);
    assert_int_equal(io->sound_duration, 255);
    assert_int_equal(io->sounds, 10);
    bw_base_close(r.b, r.now);
}

/* Basic Sensor Data: "Left encoder | 2 | Accumulated encoder data of left
 * and right wheels in ticks Increments of this value means forward
 * direction It circulates from 0 to 65535". The base's counters are the
 * robot's, carried on past the wrap, and agree with how far each wheel
 * truly went: 0.000085292090497737556558 m a tick (kobuki_core's tick_to_rad
 * 0.002436916871363930187454 rad by its 0.035 m wheel radius). */
static void test_encoders_as_the_wheels_went(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki?start=2.0,2.0,0"); /* clear 1.3 m ahead, 1.8 m behind */
    assert_true(bw_base_caps(r.b) & BW_CAP_ENCODERS);
    assert_true(fabs(r.st->counts_per_m - 1 / (0.002436916871363930187454 * 0.035)) < 1e-6);
    assert_true(fabs(r.st->counts_per_m - 11724.41658) < 1e-4);
    int64_t e0[2] = { r.st->encoder[0], r.st->encoder[1] };
    double o0[2] = { r.sim->body.odo_left, r.sim->body.odo_right };
    const double tick = BW_KOBUKI_M_PER_TICK;
    /* Forward 1 m (the left counter, near 65535 at power-on, wraps), then
     * back 2 m (the right one, near 0, wraps below). */
    static const double legs[] = { 1.0, -2.0 };
    for (size_t leg = 0; leg < 2; leg++) {
        double x0 = r.sim->body.pose.x;
        for (double end = r.now + 10; fabs(r.sim->body.pose.x - x0) < fabs(legs[leg]);) {
            bw_base_drive(r.b, legs[leg] > 0 ? 0.3 : -0.3, 0, r.now);
            step(&r);
            assert_true(r.now < end);
        }
        bw_base_stop(r.b, r.now);
        run_for(&r, 0.5);
        int64_t want[2] = {
            (int64_t)floor(r.sim->body.odo_left / tick) - (int64_t)floor(o0[0] / tick),
            (int64_t)floor(r.sim->body.odo_right / tick) - (int64_t)floor(o0[1] / tick),
        };
        printf("kobuki encoders: %lld %lld (from %lld %lld); the wheels truly %lld %lld ticks\n",
               (long long)r.st->encoder[0], (long long)r.st->encoder[1], (long long)e0[0],
               (long long)e0[1], (long long)want[0], (long long)want[1]);
        assert_int_equal(r.st->encoder[0] - e0[0], want[0]);
        assert_int_equal(r.st->encoder[1] - e0[1], want[1]);
        /* raw_x: the pose in counts. */
        assert_true(fabs(r.st->raw_x - r.st->pose.x * r.st->counts_per_m) < 1e-6);
    }
    assert_true(r.st->encoder[0] < 65536); /* back below where it wrapped */
    assert_true(r.st->encoder[1] < 0);     /* wrapped below 0, carried on */
    assert_true(e0[0] + 11000 > 65535);    /* ...and the left one went past 65535 */
    bw_base_close(r.b, r.now);
}

/* Basic Sensor Data: "Bumper | 1 | Flag will be setted when bumper is
 * pressed 0x01 for right bumper 0x02 for central bumper 0x04 for left
 * bumper": switch 0 right, 1 central, 2 left. Driven into the north wall
 * at 50 degrees off square, heading up and to the left, the robot touches
 * it on its right: the right switch. */
static void test_bump_switches(void **state)
{
    (void)state;
    run_t r;
    open_run(&r, "sim:kobuki?start=3.5,3.0,140");
    assert_true(bw_base_caps(r.b) & BW_CAP_BUMP_SWITCHES);
    assert_int_equal(r.st->nbump_switches, 3);
    assert_int_equal(r.st->bump_switches, 0);
    for (double end = r.now + 10; r.now < end && !r.st->bump_switches;) {
        bw_base_drive(r.b, 0.2, 0, r.now);
        step(&r);
    }
    bw_base_stop(r.b, r.now);
    run_for(&r, 0.1);
    printf("kobuki bump switches %#llx at (%.3f, %.3f), the contact %.1f deg off ahead\n",
           (unsigned long long)r.st->bump_switches, r.sim->body.pose.x, r.sim->body.pose.y,
           r.sim->body.contact_angle * 180 / BW_PI);
    assert_true(r.sim->body.contact);
    assert_true(r.sim->body.contact_angle < -BW_PI / 6); /* on its right, truly */
    assert_int_equal(r.st->bump_switches, 1u << 0);
    assert_int_equal(r.st->bumpers, BW_BUMP_FRONT_RIGHT);
    bw_base_close(r.b, r.now);
}

static void test_bad_urls(void **state)
{
    (void)state;
    bw_base_t *b = NULL;
    char err[256];
    assert_int_equal(bw_base_open(&b, "sim:roomba", NULL, 0, err, sizeof err), BW_EUNKNOWN);
    assert_non_null(strstr(err, "roomba"));
    assert_null(b);
    assert_int_equal(bw_base_open(&b, "nonsense", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_int_equal(bw_base_open(&b, "sim:kobuki?noise=lots", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "noise"));
    assert_int_equal(bw_base_open(&b, "sim:kobuki?world=/no/such/world", NULL, 0, err, sizeof err),
                     BW_EIO);
    assert_non_null(strstr(err, "/no/such/world"));
    assert_int_equal(bw_base_open(&b, "kobuki:/dev/no-such-tty", NULL, 0, err, sizeof err), BW_EIO);
    assert_non_null(strstr(err, "/dev/no-such-tty"));
    assert_int_equal(bw_base_open(&b, "kobuki:/dev/null?baud=fast", NULL, 0, err, sizeof err),
                     BW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_online_versions_and_caps),
        cmocka_unit_test(test_square_by_odometry),
        cmocka_unit_test(test_bump_into_the_box),
        cmocka_unit_test(test_over_the_stairs),
        cmocka_unit_test(test_command_timeout_stops_the_robot),
        cmocka_unit_test(test_turning_and_gyro_heading),
        cmocka_unit_test(test_noise_makes_odometry_drift),
        cmocka_unit_test(test_damage_past_the_checksum),
        cmocka_unit_test(test_frames_read_late_and_at_once),
        cmocka_unit_test(test_stop_when_feedback_stops),
        cmocka_unit_test(test_bumper_and_cliff_sides_as_the_seed_says),
        cmocka_unit_test(test_bad_urls),
        cmocka_unit_test(test_dock_ir_in_front_of_the_dock),
        cmocka_unit_test(test_dock_ir_every_flag),
        cmocka_unit_test(test_unique_id),
        cmocka_unit_test(test_gains),
        cmocka_unit_test(test_leds_and_outputs),
        cmocka_unit_test(test_sounds),
        cmocka_unit_test(test_encoders_as_the_wheels_went),
        cmocka_unit_test(test_bump_switches),
    };
    return cmocka_run_group_tests_name("kobuki end to end", tests, NULL, NULL);
}
