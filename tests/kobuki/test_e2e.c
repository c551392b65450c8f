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
    /* The first feedback frame, at 50 Hz, and its 8 ms on the 115200 baud
     * line (docs/pacing.md). */
    assert_true(r->now <= 0.030);
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
static void feed_frame(feed_t *f, int ticks, double turn, bool damage)
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
    bw_base_poll(f->b, f->now);
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
        cmocka_unit_test(test_stop_when_feedback_stops),
        cmocka_unit_test(test_bumper_and_cliff_sides_as_the_seed_says),
        cmocka_unit_test(test_bad_urls),
    };
    return cmocka_run_group_tests_name("kobuki end to end", tests, NULL, NULL);
}
