/* The P2OS driver and the emulated Pioneer together, in virtual time: over
 * a sim: URL, and over a relay the test controls (so a client can vanish
 * without CLOSE, or the robot fall silent). */
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
    double now;
    bw_event_t events[128];
    size_t nevents;
    /* Relay mode: the test carries bytes between the base and a device. */
    bw_device_t *dev;
    bw_port_t *far; /* the device's end of the base's pair */
    bool cut_up, cut_down; /* stop carrying host->robot, robot->host */
} run_t;

static void relay(run_t *r)
{
    if (!r->dev)
        return;
    uint8_t buf[4096];
    int n;
    while (r->far && (n = bw_port_read(r->far, buf, sizeof buf)) > 0)
        if (!r->cut_up)
            bw_device_input(r->dev, buf, (size_t)n, r->now);
    bw_device_step(r->dev, r->now);
    size_t out;
    while ((out = bw_device_output(r->dev, buf, sizeof buf)) > 0)
        if (r->far && !r->cut_down)
            bw_port_write(r->far, buf, out);
}

static void step(run_t *r)
{
    double next = bw_base_next_deadline(r->b);
    if (r->dev)
        next = fmin(next, bw_device_next_deadline(r->dev));
    next = fmin(next, r->now + 0.1);
    assert_true(next >= r->now - 1e-9);
    r->now = next;
    relay(r);
    bw_base_poll(r->b, r->now);
    relay(r);
    bw_event_t ev;
    while (bw_base_next_event(r->b, &ev))
        if (r->nevents < 128)
            r->events[r->nevents++] = ev;
}

static void run_for(run_t *r, double s)
{
    for (double end = r->now + s; r->now < end;)
        step(r);
}

/* Keeps driving at (v, w) for n steps of the run. */
static void drive_steps(run_t *r, double v, double w, int n)
{
    for (int i = 0; i < n; i++) {
        bw_base_drive(r->b, v, w, r->now);
        step(r);
    }
}

/* The base and its end of the relay go; the robot stays. */
static void close_relay(run_t *r)
{
    bw_base_close(r->b, r->now);
    bw_port_close(r->far);
}

static size_t find_event(const run_t *r, bw_event_type_t type, bool on, size_t from)
{
    for (size_t i = from; i < r->nevents; i++)
        if (r->events[i].type == type && r->events[i].on == on)
            return i;
    return SIZE_MAX;
}

static void wait_online(run_t *r, double limit)
{
    double end = r->now + limit;
    while (!r->st->online && r->now < end)
        step(r);
    assert_true(r->st->online);
}

static void open_url(run_t *r, const char *url)
{
    char err[256];
    memset(r, 0, sizeof *r);
    assert_int_equal(bw_base_open(&r->b, url, NULL, 0.0, err, sizeof err), 0);
    r->st = bw_base_state(r->b);
    wait_online(r, 2.0);
}

/* A base on a pair whose other end this test relays to its own device. */
static void open_relay(run_t *r, bw_device_t *dev, double now)
{
    char err[256];
    bw_port_t *near;
    memset(r, 0, sizeof *r);
    r->now = now;
    r->dev = dev;
    assert_int_equal(bw_port_pair(&near, &r->far, 1 << 16), 0);
    assert_int_equal(bw_base_open_port(&r->b, "p2os", near, NULL, now, err, sizeof err), 0);
    r->st = bw_base_state(r->b);
}

static void test_handshake_model_and_caps(void **state)
{
    (void)state;
    run_t r;
    open_url(&r, "sim:p2os");
    assert_string_equal(r.st->hardware, "Pioneer p2dx");
    assert_string_equal(r.st->name, "botwire");
    assert_true(fabs(r.st->battery - 13.0) < 0.05);
    assert_int_equal(r.st->nranges, 16);
    uint32_t caps = bw_base_caps(r.b);
    assert_true(caps & BW_CAP_SONAR);
    assert_false(caps & BW_CAP_BUMPERS); /* a P2-DX has no bump ring */
    assert_int_equal(r.st->link.checksum_errors + r.st->link.skipped_bytes, 0);
    bw_base_close(r.b, r.now);

    open_url(&r, "sim:p2os?model=p2pb");
    assert_string_equal(r.st->hardware, "Pioneer p2pb");
    assert_int_equal(r.st->nranges, 24);
    assert_true(bw_base_caps(r.b) & BW_CAP_BUMPERS);
    bw_base_close(r.b, r.now);
}

static void test_square_by_odometry(void **state)
{
    (void)state;
    run_t r;
    open_url(&r, "sim:p2os");
    const bw_sim_t *sim = bw_device_sim(bw_base_device(r.b));
    bw_pose_t origin = sim->body.pose;
    bw_square_t sq;
    bw_square_init(&sq, r.st->pose, 1.0, 0.2, 0.5);
    double v, w, worst = 0;
    while (bw_square_step(&sq, r.st->pose, &v, &w)) {
        bw_base_drive(r.b, v, w, r.now);
        step(&r);
        /* As a SIP comes: between two the robot moves on and odometry waits
         * for the next (100 ms, and then 50 ms on the 9600 baud line). */
        bw_pose_t o = bw_pose_compose(origin, r.st->pose);
        if (r.st->t == r.now)
            worst = fmax(worst, hypot(o.x - sim->body.pose.x, o.y - sim->body.pose.y));
        assert_true(r.now < 200);
    }
    bw_base_stop(r.b, r.now);
    run_for(&r, 1.0);
    printf("p2os square: end %.4f m, %.3f deg from the start; odometry within %.4f m\n",
           hypot(r.st->pose.x, r.st->pose.y), r.st->pose.theta * 180 / BW_PI, worst);
    assert_true(hypot(r.st->pose.x, r.st->pose.y) < 0.02);
    assert_true(fabs(r.st->pose.theta) < 2 * BW_PI / 180);
    assert_true(worst < 0.01);
    assert_true(sim->travelled > 3.9);
    bw_base_close(r.b, r.now);
}

static void test_sonar_reads_the_wall(void **state)
{
    (void)state;
    run_t r;
    open_url(&r, "sim:p2os");
    run_for(&r, 0.5); /* the whole ring, four a SIP */
    const bw_range_t *s0 = &r.st->ranges[0], *s7 = &r.st->ranges[7];
    /* Sonar 0 at (69, 136) mm facing left, the robot at (1, 1) facing +x:
     * the wall at y = 4 m is 2.864 m away; sonar 7 the wall at y = 0. */
    assert_true(fabs(s0->mount.x - 0.069) < 1e-9 && fabs(s0->mount.y - 0.136) < 1e-9);
    assert_true(fabs(s0->mount.theta - BW_PI / 2) < 1e-9);
    assert_true(fabs(s0->range - 2.864) < 0.03);
    assert_true(fabs(s7->range - 0.864) < 0.03);
    assert_true(s0->t > 0 && s0->t <= r.now);
    for (unsigned i = 0; i < r.st->nranges; i++)
        assert_true(r.st->ranges[i].t > 0); /* every one read */
    bw_base_close(r.b, r.now);
}

static void test_peoplebot_bump(void **state)
{
    (void)state;
    run_t r;
    open_url(&r, "sim:p2os?model=p2pb");
    for (int i = 0; i < 1000 && find_event(&r, BW_EV_BUMP, true, 0) == SIZE_MAX; i++) {
        bw_base_drive(r.b, 0.3, 0, r.now);
        step(&r);
    }
    size_t bump = find_event(&r, BW_EV_BUMP, true, 0);
    assert_true(bump != SIZE_MAX);
    assert_int_equal(r.events[bump].mask, BW_BUMP_FRONT);
    drive_steps(&r, 0.3, 0, 20);
    assert_true(r.st->stalled);
    assert_true(fabs(r.st->v) < 1e-3);
    bw_base_close(r.b, r.now);
}

static void test_watchdog_stops_a_silent_client(void **state)
{
    (void)state;
    bw_device_t *dev;
    assert_int_equal(bw_device_create(&dev, "p2os", NULL, 0.0, NULL, 0), 0);
    run_t r;
    open_relay(&r, dev, 0.0);
    wait_online(&r, 3.0);
    for (double end = r.now + 2.0; r.now < end;) {
        bw_base_drive(r.b, 0.3, 0, r.now);
        step(&r);
    }
    assert_true(bw_device_sim(dev)->body.v > 0.25);
    /* The client keeps running but nothing of it reaches the robot. */
    r.cut_up = true;
    double t0 = r.now;
    while (r.now < t0 + 1.9) {
        bw_base_drive(r.b, 0.3, 0, r.now);
        step(&r);
    }
    assert_true(bw_device_sim(dev)->body.v > 0.25); /* not yet */
    while (r.now < t0 + 3.2) {
        bw_base_drive(r.b, 0.3, 0, r.now);
        step(&r);
    }
    assert_true(fabs(bw_device_sim(dev)->body.v) < 1e-9); /* 2 s watchdog */
    close_relay(&r);
    bw_device_destroy(dev);
}

/* The side that truly touches is the side reported: the PeopleBot driven
 * past the box's corner on its left, then on its right (the box spans y
 * 0.75 to 1.25 m), bumps with its left switches, then its right ones. */
static void test_peoplebot_bump_sides(void **state)
{
    (void)state;
    static const struct {
        const char *url;
        uint32_t side, other;
    } runs[] = {
        { "sim:p2os?model=p2pb&start=1,0.6,0", BW_BUMP_FRONT_LEFT, BW_BUMP_FRONT_RIGHT },
        { "sim:p2os?model=p2pb&start=1,1.4,0", BW_BUMP_FRONT_RIGHT, BW_BUMP_FRONT_LEFT },
    };
    for (size_t k = 0; k < 2; k++) {
        run_t r;
        open_url(&r, runs[k].url);
        for (int i = 0; i < 1000 && find_event(&r, BW_EV_BUMP, true, 0) == SIZE_MAX; i++) {
            bw_base_drive(r.b, 0.3, 0, r.now);
            step(&r);
        }
        size_t bump = find_event(&r, BW_EV_BUMP, true, 0);
        assert_true(bump != SIZE_MAX);
        printf("p2pb from %s: bump mask 0x%x\n", runs[k].url, (unsigned)r.events[bump].mask);
        assert_true(r.events[bump].mask & runs[k].side);
        assert_false(r.events[bump].mask & runs[k].other);
        bw_base_close(r.b, r.now);
    }
}

static void test_offline_when_the_robot_falls_silent(void **state)
{
    (void)state;
    bw_device_t *dev;
    assert_int_equal(bw_device_create(&dev, "p2os", NULL, 0.0, NULL, 0), 0);
    run_t r;
    open_relay(&r, dev, 0.0);
    wait_online(&r, 3.0);
    r.cut_down = true;
    double t0 = r.now;
    while (r.st->online && r.now < t0 + 5)
        step(&r);
    assert_false(r.st->online);
    assert_true(find_event(&r, BW_EV_OFFLINE, false, 0) != SIZE_MAX);
    /* SIPs every 100 ms: silence is seen 0.5 s after the last one (it was
     * noticed only after 2 s before: a regression test). */
    printf("p2os: silent robot seen offline %.3f s after the line went dead\n", r.now - t0);
    assert_true(r.now - t0 >= 0.5 && r.now - t0 <= 0.5 + 0.1 + 1e-6);
    /* The robot speaks again: its SIPs, in the session it kept, bring the
     * driver back online. */
    r.cut_down = false;
    wait_online(&r, 4.0);
    close_relay(&r);
    bw_device_destroy(dev);
}

/* Regression: the motion made across a 2 s stall of the line (nothing
 * either way) was lost: the driver started a new session, which restarts
 * the robot's odometry. The session is still there after the stall, and
 * SIPs give absolute positions: the driver picks them up where they are. */
static void test_stall_loses_no_motion(void **state)
{
    (void)state;
    bw_device_t *dev;
    assert_int_equal(bw_device_create(&dev, "p2os", NULL, 0.0, NULL, 0), 0);
    run_t r;
    open_relay(&r, dev, 0.0);
    wait_online(&r, 3.0);
    bw_pose_t start = bw_device_sim(dev)->body.pose, odo0 = r.st->pose;
    drive_steps(&r, 0.3, 0, 20);
    r.cut_up = r.cut_down = true;
    double t0 = r.now;
    while (r.now < t0 + 2.0) {
        bw_base_drive(r.b, 0.3, 0, r.now);
        step(&r);
    }
    r.cut_up = r.cut_down = false;
    drive_steps(&r, 0.3, 0, 20);
    bw_base_stop(r.b, r.now);
    for (double end = r.now + 1; r.now < end;)
        step(&r);
    const bw_sim_t *sim = bw_device_sim(dev);
    double truth = hypot(sim->body.pose.x - start.x, sim->body.pose.y - start.y);
    double odo = hypot(r.st->pose.x - odo0.x, r.st->pose.y - odo0.y);
    printf("p2os: across a 2 s stall: rolled %.3f m, odometry %.3f m\n", truth, odo);
    assert_true(truth > 0.8); /* it moved on during the stall (until its 2 s watchdog) */
    assert_true(fabs(odo - truth) < 0.01);
    close_relay(&r);
    bw_device_destroy(dev);
}

static void test_reconnect_without_close(void **state)
{
    (void)state;
    bw_device_t *dev;
    assert_int_equal(bw_device_create(&dev, "p2os", NULL, 0.0, NULL, 0), 0);
    run_t a;
    open_relay(&a, dev, 0.0);
    wait_online(&a, 3.0);
    drive_steps(&a, 0.2, 0, 10);
    /* Client A dies: nothing it says any more reaches the robot, so no
     * CLOSE; on a serial line the robot cannot tell. */
    a.cut_up = a.cut_down = true;
    double now = a.now;
    bw_base_close(a.b, now);
    bw_port_close(a.far);

    /* Client B on the same robot: its SYNC0 lands in A's open session, SIPs
     * answer its handshake; it closes that session and starts over. */
    run_t b;
    open_relay(&b, dev, now);
    wait_online(&b, 5.0);
    assert_true(b.st->link.frames > 0);
    printf("reconnected without CLOSE in %.2f s\n", b.now - now);
    /* And it drives. */
    double x0 = b.st->pose.x;
    drive_steps(&b, 0.2, 0, 30);
    assert_true(b.st->pose.x - x0 > 0.1);
    close_relay(&b);

    /* Over TCP the robot sees the client go, and the next one needs no CLOSE. */
    bw_device_link(dev, false, b.now);
    run_t c;
    open_relay(&c, dev, b.now);
    wait_online(&c, 2.0);
    close_relay(&c);
    bw_device_destroy(dev);
}

static void test_close_ends_the_session(void **state)
{
    (void)state;
    bw_device_t *dev;
    assert_int_equal(bw_device_create(&dev, "p2os", NULL, 0.0, NULL, 0), 0);
    run_t r;
    open_relay(&r, dev, 0.0);
    wait_online(&r, 3.0);
    drive_steps(&r, 0.3, 0, 10);
    bw_base_close(r.b, r.now); /* VEL 0, RVEL 0, ENABLE 0, CLOSE */
    relay(&r);
    uint8_t buf[256];
    r.now += 1.0;
    bw_device_step(dev, r.now);
    /* No more SIPs: the session is over. */
    assert_int_equal(bw_device_output(dev, buf, sizeof buf), 0);
    assert_true(fabs(bw_device_sim(dev)->body.v) < 1e-9);
    bw_port_close(r.far);
    bw_device_destroy(dev);
}

static void test_bad_model(void **state)
{
    (void)state;
    bw_base_t *b = NULL;
    char err[256];
    assert_int_equal(bw_base_open(&b, "sim:p2os?model=p9", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "p9"));
    assert_null(b);
}

/* What a tap on the link saw the host send. */
typedef struct {
    uint8_t bytes[4096];
    size_t n;
} sent_t;

static void tap_sent(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    (void)now;
    sent_t *t = ctx;
    if (!from_robot && t->n + n <= sizeof t->bytes) {
        memcpy(t->bytes + t->n, data, n);
        t->n += n;
    }
}

/* A tone on the Pioneer's piezo: SAY (#15) with (duration in 20 ms, MIDI
 * note) pairs, as the operations manual gives them; the emulated robot
 * heard each one whole (its count of SAY, a command it knows and leaves
 * alone). 440 Hz is note 69; 10 s is 500 steps, two pairs. */
static void test_tone(void **state)
{
    (void)state;
    run_t r;
    open_url(&r, "sim:p2os");
    run_for(&r, 0.5);
    sent_t t = { .n = 0 };
    bw_base_set_tap(r.b, tap_sent, &t);
    assert_true(bw_base_caps(r.b) & BW_CAP_SOUND);
    assert_int_equal(bw_base_tone(r.b, 440, 0.5, r.now), 0);
    assert_int_equal(bw_base_tone(r.b, 440, 10, r.now), 0);
    assert_int_equal(bw_base_tone(r.b, 5, 1, r.now), BW_EINVAL); /* below MIDI note 1 */
    assert_int_equal(bw_base_sound(r.b, 1, r.now), BW_ENOTSUP); /* a Pioneer has no sequences */
    run_for(&r, 0.5);
    assert_non_null(memmem(t.bytes, t.n, (const uint8_t[]){ 15, 0x2B, 2, 25, 69 }, 5));
    assert_non_null(memmem(t.bytes, t.n, (const uint8_t[]){ 15, 0x2B, 4, 255, 69, 245, 69 }, 7));
    const bw_device_stats_t *ds = bw_device_stats(bw_base_device(r.b));
    assert_int_equal(ds->ignored_by_id[BW_P2OS_SAY], 2);
    assert_int_equal(ds->link.checksum_errors + ds->link.length_errors, 0);
    bw_base_set_tap(r.b, NULL, NULL);
    bw_base_close(r.b, r.now);
}

/* Seed 003 (GRL): "raw-base-x raw-base-y - The estimated global position of
 * the robot expressed in units of translational shaft encoder counts." A
 * Pioneer's counts come in its encoder packets (ENCODER 2) and its TicksMM
 * in the config packet: the wheels' counts are the emulator's true wheel
 * travel in counts, and raw_x its true travel along x. */
static void test_encoder_counts(void **state)
{
    (void)state;
    run_t r;
    open_url(&r, "sim:p2os");
    run_for(&r, 0.5);
    assert_true(bw_base_caps(r.b) & BW_CAP_ENCODERS);
    assert_true(fabs(r.st->counts_per_m - 128000) < 1e-9); /* the config packet's TicksMM 128 */
    const bw_sim_t *sim = bw_device_sim(bw_base_device(r.b));
    double x0 = sim->body.pose.x;
    int64_t left0 = r.st->encoder[0];
    for (double end = r.now + 4.0; r.now < end;) {
        bw_base_drive(r.b, 0.3, 0, r.now);
        step(&r);
    }
    bw_base_stop(r.b, r.now);
    run_for(&r, 2.0);
    const double per_m = 1000.0 * 128;
    /* The wheels' counts, as the robot counts them. */
    assert_int_equal(r.st->encoder[0], lround(sim->body.odo_left * per_m));
    assert_int_equal(r.st->encoder[1], lround(sim->body.odo_right * per_m));
    assert_true((double)(r.st->encoder[0] - left0) > 0.9 * per_m);
    /* raw_x: the true travel in counts, within a SIP position unit (0.84 mm). */
    double truth = (sim->body.pose.x - x0) * per_m;
    printf("p2os raw_x %.0f counts, true travel %.0f counts, wheels %lld %lld\n", r.st->raw_x,
           truth, (long long)r.st->encoder[0], (long long)r.st->encoder[1]);
    assert_true(fabs(r.st->raw_x - truth) < 0.84 * 128);
    assert_true(fabs(r.st->raw_y) < 0.84 * 128);
    bw_base_close(r.b, r.now);
}

/* The PeopleBot's bump switches by number, as ARIA and ROSARIA number them:
 * the front ring's five first (seed 004: "bits 1-5 of that same msbyte
 * correspond to the front bumpers switch states"), then the rear ring's
 * ("Bits 1-5 of that same byte correspond to the bump switch states (1=on)
 * for the rear bumpers accessory"). Straight into the box, the middle
 * front switch (2); backing into it, the middle rear one (7). */
static void test_peoplebot_bump_switches(void **state)
{
    (void)state;
    static const struct {
        const char *url;
        double v;
        unsigned sw;
    } runs[] = {
        { "sim:p2os?model=p2pb", 0.3, 2 },
        { "sim:p2os?model=p2pb&start=2,1,180", -0.3, 7 },
    };
    for (size_t k = 0; k < 2; k++) {
        run_t r;
        open_url(&r, runs[k].url);
        assert_true(bw_base_caps(r.b) & BW_CAP_BUMP_SWITCHES);
        assert_int_equal(r.st->nbump_switches, 10);
        const bw_sim_t *sim = bw_device_sim(bw_base_device(r.b));
        for (int i = 0; i < 1000 && !r.st->bump_switches; i++) {
            bw_base_drive(r.b, runs[k].v, 0, r.now);
            step(&r);
        }
        printf("p2pb %s: switches 0x%llx, contact at %.1f deg\n", runs[k].url,
               (unsigned long long)r.st->bump_switches, sim->body.contact_angle * 180 / BW_PI);
        assert_true(sim->body.contact);
        /* The side the emulator truly touches: ahead, or behind. */
        assert_true(runs[k].v > 0 ? fabs(sim->body.contact_angle) < BW_PI / 10
                                  : fabs(sim->body.contact_angle) > 0.9 * BW_PI);
        assert_int_equal(r.st->bump_switches, 1u << runs[k].sw);
        bw_base_close(r.b, r.now);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_model_and_caps),
        cmocka_unit_test(test_square_by_odometry),
        cmocka_unit_test(test_sonar_reads_the_wall),
        cmocka_unit_test(test_peoplebot_bump),
        cmocka_unit_test(test_peoplebot_bump_sides),
        cmocka_unit_test(test_watchdog_stops_a_silent_client),
        cmocka_unit_test(test_offline_when_the_robot_falls_silent),
        cmocka_unit_test(test_stall_loses_no_motion),
        cmocka_unit_test(test_reconnect_without_close),
        cmocka_unit_test(test_close_ends_the_session),
        cmocka_unit_test(test_bad_model),
        cmocka_unit_test(test_encoder_counts),
        cmocka_unit_test(test_peoplebot_bump_switches),
        cmocka_unit_test(test_tone),
    };
    return cmocka_run_group_tests_name("p2os end to end", tests, NULL, NULL);
}
