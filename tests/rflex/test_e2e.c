/* The rflex driver and the emulated B21r, in virtual time over sim:rflex,
 * and over a relay the test controls. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "../run.h"
#include "b21r.h"

static void test_online_and_caps(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rflex");
    run_for(&r, 1.2);
    uint32_t caps = bw_base_caps(r.b);
    assert_true(caps & BW_CAP_DRIVE);
    assert_true(caps & BW_CAP_SONAR && caps & BW_CAP_SONAR_TIMING);
    assert_true(caps & BW_CAP_MOTOR_REPORT && caps & BW_CAP_MOTOR_VECTOR);
    assert_true(caps & BW_CAP_ENCODERS && caps & BW_CAP_BUMP_SWITCHES && caps & BW_CAP_IR);
    assert_true(caps & BW_CAP_JOYSTICK); /* it answered the joystick request */
    assert_false(caps & BW_CAP_POWER);   /* nothing beyond the battery: docs/rflex.md */
    assert_string_equal(r.st->hardware, "RWI b21r");
    assert_false(r.st->brake); /* released on open */
    assert_true(fabs(r.st->battery - 50) < 0.1);
    /* The 24 body sonars, then the IR sensors facing ahead that fit. */
    assert_int_equal(r.st->nranges, BW_BASE_MAX_RANGES);
    assert_int_equal(r.st->nbump_switches, 14);
    assert_true(r.st->counts_per_m == BW_RFLEX_B21R_COUNTS_PER_M);
    assert_int_equal(r.st->link.checksum_errors + r.st->link.skipped_bytes, 0);
    bw_base_close(r.b, r.now);

    run_open(&r, "sim:rflex?model=atrvjr");
    assert_string_equal(r.st->hardware, "RWI atrvjr");
    assert_false(bw_base_caps(r.b) & BW_CAP_SONAR);
    bw_base_close(r.b, r.now);
}

/* A 1 m square by odometry: within 3 cm and 3 degrees. (The odometry is
 * the last report's, up to 100 ms old: 3 cm at 0.3 m/s.) */
static void test_square(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rflex");
    double worst = run_square(&r, "rflex", 1.0, 0.3, 0.8, 200);
    assert_true(hypot(r.st->pose.x, r.st->pose.y) < 0.03);
    assert_true(fabs(r.st->pose.theta) < 3 * BW_PI / 180);
    assert_true(worst < 0.04);
    assert_true(r.sim->travelled > 3.9);
    bw_base_close(r.b, r.now);
}

/* The ring as the state has it: the mounts are Player's poses (a
 * regression test: they were i x 15 degrees counter-clockwise from ahead,
 * so with Player's or rwi_ros's configuration every reading was drawn in
 * the wrong direction), and each reads what its mount faces: facing a wall
 * 1.25 m ahead, the two sonars that face ahead read ~1 m, the two that face
 * back the far wall 3.75 m off. Each reading carries the odometry pose it
 * was taken at. */
static void test_sonar_reads_the_room(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rflex?start=3.75,2.5,0");
    run_for(&r, 1.0);
    for (unsigned i = 0; i < 24; i++) {
        const bw_range_t *rg = &r.st->ranges[i];
        const double *p = player_b21r_body[i];
        assert_int_equal(rg->kind, BW_RANGE_SONAR);
        assert_true(fabs(bw_angle_diff(rg->mount.theta, p[0])) < 1e-4);
        assert_true(fabs(rg->mount.x - p[1]) < 1e-4 && fabs(rg->mount.y - p[2]) < 1e-4);
        double want = to_wall(3.75 + p[1], 2.5 + p[2], p[0]);
        printf("rflex sonar %2u at %6.1f deg reads %.3f m (want %.3f)\n", i,
               rg->mount.theta * 180 / BW_PI, rg->range, want);
        assert_true(fabs(rg->range - want) < 0.01);
        assert_true(rg->t > 0);
        if (fabs(p[0]) < 10 * BW_PI / 180)
            assert_true(fabs(rg->range - 1.01) < 0.02);
        if (fabs(p[0]) > 170 * BW_PI / 180)
            assert_true(fabs(rg->range - 3.53) < 0.02);
    }
    /* Slower timing through the API: a full ring now takes 4 x 0.1 s + 0.2 s,
     * so sonar 0 reads every 0.6 s. */
    assert_int_equal(bw_base_sonar_timing(r.b, 0.1, 0, 0.2, r.now), 0);
    run_for(&r, 0.7);
    double last = r.st->ranges[0].t, first = 0;
    int reads = 0;
    for (double end = r.now + 2.5; r.now < end;) {
        run_step(&r);
        if (r.st->ranges[0].t != last) {
            last = r.st->ranges[0].t;
            first = first > 0 ? first : last;
            reads++;
        }
    }
    printf("rflex sonar 0: %d readings, every %.3f s\n", reads, (last - first) / (reads - 1));
    /* 2.5 s holds 4 or 5 readings 0.6 s apart, by where the ring is. */
    assert_true(reads == 4 || reads == 5);
    assert_true(fabs((last - first) / (reads - 1) - 0.6) < 0.02);
    assert_int_equal(bw_base_sonar_timing(r.b, 0, 0, 0, r.now), BW_EINVAL);
    bw_base_close(r.b, r.now);
}

/* A motor vector with torque 0 lets the base coast to a stop; the measured
 * axis says so. Other bases have no motor vector. */
static void test_coast_and_motor_vector(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rflex");
    bw_axis_t go = { 0.6, 1.0, 1.0 }, spin = { 0, 1.0, 1.0 };
    for (double end = r.now + 1.0; r.now < end;) {
        assert_int_equal(bw_base_motor(r.b, &go, &spin, r.now), 0);
        run_step(&r);
    }
    assert_true(fabs(r.st->trans.velocity - 0.6) < 0.01);
    double at = r.sim->travelled;
    bw_axis_t coast = { 0.6, 1.0, 0 };
    for (double end = r.now + 3.0; r.now < end;) {
        bw_base_motor(r.b, &coast, &spin, r.now);
        run_step(&r);
    }
    double coasted = r.sim->travelled - at;
    printf("rflex: coasted %.3f m from 0.6 m/s with torque 0\n", coasted);
    assert_true(r.sim->body.v < 1e-9);
    assert_true(fabs(r.st->trans.velocity) < 1e-9);
    assert_true(r.st->trans.torque == 0);
    assert_true(coasted > 0.5 && coasted < 0.7);
    bw_base_close(r.b, r.now);

    run_open(&r, "sim:kobuki");
    assert_int_equal(bw_base_motor(r.b, &go, &spin, r.now), BW_ENOTSUP);
    assert_int_equal(bw_base_sonar_timing(r.b, 0.03, 0, 0, r.now), BW_ENOTSUP);
    bw_base_close(r.b, r.now);
}

/* Reads the brake from the device itself: a status request straight to it. */
static bool device_brake(bw_device_t *dev, double now)
{
    uint8_t f[16], buf[4096];
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_SYS_STATUS_REQ);
    int n = bw_rflex_encode_frame(f, sizeof f, &m);
    while (bw_device_output(dev, buf, sizeof buf) > 0)
        ;
    bw_device_input(dev, f, (size_t)n, now);
    bw_device_step(dev, now);
    size_t got = bw_device_output(dev, buf, sizeof buf);
    bw_rflex_parser_t p;
    bw_rflex_parser_init(&p);
    const uint8_t *d = buf;
    bw_rflex_frame_t fr;
    bool brake = false, seen = false;
    while (bw_rflex_parse(&p, &d, &got, &fr) > 0)
        if (bw_rflex_decode(&fr, &m) == 0 && m.type == BW_RFLEX_SYS_STATUS) {
            brake = m.u.sys_status.brake != 0;
            seen = true;
        }
    assert_true(seen);
    return brake;
}

/* The brake is set when the driver closes, and when the base falls silent. */
static void test_brake_on_close_and_silence(void **state)
{
    (void)state;
    for (int how = 0; how < 2; how++) {
        bw_device_t *dev;
        char err[256];
        assert_int_equal(bw_device_create(&dev, "rflex", NULL, 0, err, sizeof err), 0);
        bw_port_t *near, *far;
        assert_int_equal(bw_port_pair(&near, &far, 1 << 16), 0);
        bw_base_t *b;
        assert_int_equal(bw_base_open_port(&b, "rflex", near, NULL, 0, err, sizeof err), 0);
        const bw_base_state_t *st = bw_base_state(b);
        double now = 0;
        bool mute = false;
        uint8_t buf[8192];
        for (; now < 3; now += 0.01) {
            int n;
            while ((n = bw_port_read(far, buf, sizeof buf)) > 0)
                bw_device_input(dev, buf, (size_t)n, now);
            bw_device_step(dev, now);
            size_t out;
            while ((out = bw_device_output(dev, buf, sizeof buf)) > 0)
                if (!mute)
                    bw_port_write(far, buf, out);
            bw_base_drive(b, 0.3, 0, now);
            bw_base_poll(b, now);
            if (how == 1 && now >= 1.5)
                mute = true; /* the base's reports stop reaching the host */
        }
        assert_true(bw_device_sim(dev)->body.v > 0 || how == 1);
        if (how == 0) {
            assert_false(device_brake(dev, now));
            bw_base_close(b, now);
            int n;
            while ((n = bw_port_read(far, buf, sizeof buf)) > 0)
                bw_device_input(dev, buf, (size_t)n, now);
            assert_true(device_brake(dev, now));
        } else {
            assert_false(st->online);
            int n;
            while ((n = bw_port_read(far, buf, sizeof buf)) > 0)
                bw_device_input(dev, buf, (size_t)n, now);
            bw_device_step(dev, now + 1);
            assert_true(device_brake(dev, now + 1));
            assert_true(bw_device_sim(dev)->body.v < 1e-9);
            bw_base_close(b, now);
        }
        bw_port_close(far);
        bw_device_destroy(dev);
    }
}

/* `botwire drive 'sim:rflex?ber=3e-3&seed=6' --fast --square 1` hung (a
 * regression test): the line took the base offline while the square drove,
 * the driver then sent nothing and left its resend deadline in the past,
 * and virtual time, which goes to the next deadline, stood still. run_step
 * checks every deadline; the squares complete, and the odometry ends where
 * the robot truly is (at three times the worst rate test_noisy takes, a
 * square may close less well: what the odometry says is what matters). */
static void test_noisy_square_in_virtual_time(void **state)
{
    (void)state;
    static const int seeds[] = { 6, 7 };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char url[64];
        snprintf(url, sizeof url, "sim:rflex?ber=3e-3&seed=%d", seeds[i]);
        run_t r;
        run_open(&r, url);
        bw_square_t sq;
        bw_square_init(&sq, r.st->pose, 1.0, 0.2, 0.8);
        double v, w, end = r.now + 120;
        bool done = false;
        while (r.now < end && !(done = !bw_square_step(&sq, r.st->pose, &v, &w))) {
            bw_base_drive(r.b, v, w, r.now);
            run_step(&r);
        }
        bw_base_stop(r.b, r.now);
        run_for(&r, 1);
        bw_pose_t odo = run_odo_world(&r);
        double off = hypot(odo.x - r.sim->body.pose.x, odo.y - r.sim->body.pose.y);
        double closed = hypot(r.sim->body.pose.x - r.origin.x, r.sim->body.pose.y - r.origin.y);
        printf("%s: %s at %.1f s, odometry %.4f m from the truth, closed %.4f m in truth\n", url,
               done ? "done" : "NOT DONE", r.now, off, closed);
        assert_true(done);
        assert_true(off < 0.03);
        bw_base_close(r.b, r.now);
    }
}

/* Writes a DIO report from the base: panel address, value. */
static void dio(bw_port_t *far, uint8_t address, uint16_t value)
{
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_DIO_REPORT);
    m.u.dio_report = (bw_rflex_dio_report_t){ 0, address, value };
    uint8_t f[BW_RFLEX_MAX_FRAME];
    int n = bw_rflex_encode_frame(f, sizeof f, &m);
    assert_true(n > 0);
    assert_int_equal(bw_port_write(far, f, (size_t)n), n);
}

/* A regression test: the driver took 0x40..0x47 as eight panels round the
 * base from straight ahead counter-clockwise. By Player's configuration
 * each of the 14 panels is the side it faces: the body's six, 60 degrees
 * wide from 150 degrees clockwise, span two sides each; the base's eight,
 * 45 degrees from 157.5, one each. The heading-home switch and addresses
 * past 0x4D are no panel. */
static void test_panel_sides(void **state)
{
    (void)state;
    const uint32_t FL = BW_BUMP_FRONT_LEFT, F = BW_BUMP_FRONT, FR = BW_BUMP_FRONT_RIGHT,
                   RL = BW_BUMP_REAR_LEFT, R = BW_BUMP_REAR, RR = BW_BUMP_REAR_RIGHT;
    const uint32_t want[16] = {
        RL | R, FL | RL, F | FL, F | FR, FR | RR, RR | R, /* body: 150, 90, 30, -30, -90, -150 */
        R, RL, FL, F, F, FR, RR, R,                       /* base: 157.5, 112.5, ..., -157.5 */
        0, 0,                                             /* 0x4E, 0x4F: no panel */
    };
    char err[256];
    bw_port_t *near, *far;
    assert_int_equal(bw_port_pair(&near, &far, 1 << 16), 0);
    bw_base_t *b;
    assert_int_equal(bw_base_open_port(&b, "rflex", near, NULL, 0, err, sizeof err), 0);
    const bw_base_state_t *st = bw_base_state(b);
    double now = 0;
    uint8_t sink[4096];
    for (unsigned p = 0; p < 16; p++) {
        /* Pressed, then a second frame (a panel nobody pressed, let go):
         * two frames agree, and the state shows it. */
        dio(far, (uint8_t)(0x40 + p), 3);
        dio(far, BW_RFLEX_HEADING_HOME_ADDRESS, 1);
        dio(far, (uint8_t)(0x40 + (p + 1) % 14), 0);
        bw_base_poll(b, now += 0.01);
        print_message("panel 0x%02x: bumpers 0x%02x (want 0x%02x)\n", 0x40 + p, st->bumpers,
                      want[p]);
        assert_int_equal(st->bumpers, want[p]);
        dio(far, (uint8_t)(0x40 + p), 0);
        dio(far, (uint8_t)(0x40 + (p + 1) % 14), 0);
        bw_base_poll(b, now += 0.01);
        assert_int_equal(st->bumpers, 0);
        while (bw_port_read(far, sink, sizeof sink) > 0)
            ;
    }
    bw_base_close(b, now);
    bw_port_close(far);
}

/* Backed into the wall, the driver says rear (the base's rear pair); driven
 * into the box, front (test_link's test_bumps_and_brake). */
static void test_backed_into_a_wall(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rflex?start=1,2,0");
    double hit = -1;
    for (double end = r.now + 6; r.now < end && hit < 0;) {
        bw_base_drive(r.b, -0.3, 0, r.now);
        run_step(&r);
        if (r.sim->body.contact)
            hit = r.now;
    }
    assert_true(hit > 0);
    run_drive(&r, -0.3, 0, 0.3);
    bw_base_stop(r.b, r.now);
    run_for(&r, 0.3);
    unsigned n = 0;
    for (size_t i = 0; i < r.nevents; i++)
        if (r.events[i].type == BW_EV_BUMP && r.events[i].on) {
            print_message("bump at %.2f s (contact %.2f s): 0x%02x\n", r.events[i].t, hit,
                          r.events[i].mask);
            assert_int_equal(r.events[i].mask, BW_BUMP_REAR);
            assert_true(r.events[i].t - hit < 0.1);
            n++;
        }
    assert_int_equal(n, 1);
    /* The switches: the base's rear pair, 0x46 and 0x4D. */
    assert_true(r.st->bump_switches == (1ull << 6 | 1ull << 13));
    bw_base_close(r.b, r.now);
}

/* GRL's raw position, from the seed (003, "Low-level interface"):
 *   "raw-base-x raw-base-y - The estimated global position of the robot
 *   expressed in units of translational shaft encoder counts."
 *   "sonar-reading-base-positions ... They describe the robot's estimated
 *   pose in the global coordinate system at the moment that each tranducer
 *   received its last return. Position is expressed in units of shaft
 *   encoder counts."
 * After an arc: the raw position is the pose in the B21r's 103000 counts a
 * metre, and where the emulated base truly is, in those counts, within
 * 5 mm of them; the encoders are the emulated base's own counters; each
 * sonar reading's raw position is the pose it was taken at, in counts. */
static void test_encoders_and_raw_position(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rflex?start=1,1,0");
    run_drive(&r, 0.4, 0.3, 4.0);
    bw_base_stop(r.b, r.now);
    run_for(&r, 1.5);
    const bw_base_state_t *st = r.st;
    double cpm = BW_RFLEX_B21R_COUNTS_PER_M;
    assert_true(st->counts_per_m == cpm);
    assert_true(fabs(st->raw_x - st->pose.x * cpm) < 1e-6 * cpm);
    assert_true(fabs(st->raw_y - st->pose.y * cpm) < 1e-6 * cpm);
    /* The truth, in the frame odometry started in, in counts. */
    bw_vec2_t truth = bw_pose_to_local(r.origin, (bw_vec2_t){ r.sim->body.pose.x, r.sim->body.pose.y });
    printf("rflex raw (%.0f, %.0f) counts, the emulated base truly at (%.0f, %.0f)\n", st->raw_x,
           st->raw_y, truth.x * cpm, truth.y * cpm);
    assert_true(st->raw_x > 0.5 * cpm); /* it went somewhere */
    assert_true(fabs(st->raw_x - truth.x * cpm) < 0.005 * cpm);
    assert_true(fabs(st->raw_y - truth.y * cpm) < 0.005 * cpm);
    /* The encoders: the emulated base's counters, translation and rotation. */
    double counts[2];
    assert_int_equal(bw_rflex_device_counts(bw_base_device(r.b), counts), 0);
    printf("rflex encoders %lld, %lld; the base's counters %.1f, %.1f\n",
           (long long)st->encoder[0], (long long)st->encoder[1], counts[0], counts[1]);
    assert_true(fabs((double)st->encoder[0] - counts[0]) <= 1);
    assert_true(fabs((double)st->encoder[1] - counts[1]) <= 1);
    assert_true(fabs((double)st->encoder[1] / BW_RFLEX_B21R_COUNTS_PER_RAD - 1.2) < 0.05); /* 0.3 rad/s, 4 s */
    /* Every sonar read at rest since: its raw position is the robot's. */
    unsigned n = 0;
    for (unsigned i = 0; i < st->nranges; i++) {
        const bw_range_t *rg = &st->ranges[i];
        assert_true(rg->t > 0);
        assert_true(fabs(rg->raw_x - rg->at.x * cpm) < 1e-6 * cpm);
        assert_true(fabs(rg->raw_y - rg->at.y * cpm) < 1e-6 * cpm);
        if (rg->t > r.now - 1.0) {
            assert_true(fabs(rg->raw_x - st->raw_x) < 1 && fabs(rg->raw_y - st->raw_y) < 1);
            n++;
        }
    }
    assert_int_equal(n, st->nranges);
    bw_base_close(r.b, r.now);
    bw_device_t *other = NULL;
    assert_int_equal(bw_rflex_device_counts(other, counts), BW_EINVAL);
}

/* Writes an axis report from the base. */
static void axis_report(bw_port_t *far, uint8_t axis, int32_t pos, uint32_t stamp)
{
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_SYSTEM_REPORT);
    m.u.mot_system_report.timestamp = stamp;
    m.u.mot_system_report.axis = axis;
    m.u.mot_system_report.position = pos;
    uint8_t f[BW_RFLEX_MAX_FRAME];
    int n = bw_rflex_encode_frame(f, sizeof f, &m);
    assert_true(n > 0);
    assert_int_equal(bw_port_write(far, f, (size_t)n), n);
}

/* A base on a pair whose other end (*far) the test writes the base's frames
 * to itself. */
static bw_base_t *base_on_pair(bw_port_t **far)
{
    char err[256];
    bw_port_t *near;
    assert_int_equal(bw_port_pair(&near, far, 1 << 16), 0);
    bw_base_t *b;
    assert_int_equal(bw_base_open_port(&b, "rflex", near, NULL, 0, err, sizeof err), 0);
    return b;
}

/* The wire's counters are 32 bits; the state's are not: a counter that
 * passes INT32_MAX goes on counting up, one that passes INT32_MIN down. */
static void test_encoders_unwrap(void **state)
{
    (void)state;
    bw_port_t *far;
    bw_base_t *b = base_on_pair(&far);
    const bw_base_state_t *st = bw_base_state(b);
    double now = 0;
    int64_t pos = (int64_t)INT32_MAX - 900, rot = (int64_t)INT32_MIN + 900;
    for (int k = 0; k < 8; k++, pos += 300, rot -= 300) {
        axis_report(far, BW_RFLEX_AXIS_TRANS, (int32_t)(uint32_t)pos, (uint32_t)k * 10);
        axis_report(far, BW_RFLEX_AXIS_ROT, (int32_t)(uint32_t)rot, (uint32_t)k * 10);
        bw_base_poll(b, now += 0.01);
        assert_int_equal(st->encoder[0], pos);
        assert_int_equal(st->encoder[1], rot);
    }
    assert_true(st->encoder[0] > INT32_MAX && st->encoder[1] < INT32_MIN);
    assert_int_equal(st->link.implausible, 0);
    bw_base_close(b, now);
    bw_port_close(far);
}

/* A report stamped later than the base's clock can read is set aside (its
 * stamp damaged, and so may the rest be); reports a caller polling at
 * 10 Hz reads up to 90 ms after they came are not. The reports come every
 * 50 ms, stamped in ms as they come; the robot at rest. */
static void test_stamp_from_the_future(void **state)
{
    (void)state;
    bw_port_t *far;
    bw_base_t *b = base_on_pair(&far);
    const bw_base_state_t *st = bw_base_state(b);
    double now = 0;
    for (int j = 1; j <= 30; j++) { /* 3 s: the clock confirmed after 1 */
        for (int k = 1; k >= 0; k--) {
            uint32_t stamp = (uint32_t)lround((j * 0.1 - k * 0.05) * 1000);
            axis_report(far, BW_RFLEX_AXIS_TRANS, 1000, stamp);
            axis_report(far, BW_RFLEX_AXIS_ROT, 2000, stamp);
        }
        bw_base_poll(b, now = j * 0.1 + 0.09);
    }
    assert_int_equal(st->link.implausible, 0);
    axis_report(far, BW_RFLEX_AXIS_TRANS, 1000, (uint32_t)lround((now + 5) * 1000));
    bw_base_poll(b, now += 0.1);
    assert_int_equal(st->link.implausible, 1);
    /* The next report in time is believed again. */
    axis_report(far, BW_RFLEX_AXIS_TRANS, 1000, (uint32_t)lround((now - 0.05) * 1000));
    bw_base_poll(b, now += 0.1);
    assert_int_equal(st->link.implausible, 1);
    bw_base_close(b, now);
    bw_port_close(far);
}

/* The panel the wall presses, by the emulated base's true contact: the
 * base's panels (0x46..0x4D) whose arc holds it. */
static uint64_t panels_at(double contact)
{
    uint64_t want = 0;
    for (unsigned p = BW_RFLEX_B21R_BODY_PANELS; p < BW_RFLEX_B21R_BUMPER_COUNT; p++) {
        double off = fabs(bw_angle_diff(contact, bw_rflex_b21r_panel_deg(p) * BW_PI / 180));
        if (off <= (bw_rflex_b21r_panel_width_deg(p) / 2 + 5) * BW_PI / 180)
            want |= 1ull << p;
    }
    return want;
}

/* GRL's bump switches, from the seed (003): "bump-switch-state - A vector
 * of booleans, indexed by bump switch number, giving the state of each
 * bump switch." A switch is a panel, numbered by its DIO address less 0x40
 * (Player's bumper index; docs/rflex.md). Driven into the east wall at
 * -22.5 degrees the wall meets panel 0x49 (switch 9, centred at 22.5
 * degrees) square on, and only it; head on, the seam of 0x49 and 0x4A
 * (switches 9 and 10). Either way the bumpers say front, and the switches
 * are those of the panels the emulated base's true contact lies on. */
static void test_bump_switches(void **state)
{
    (void)state;
    static const struct {
        const char *url;
        uint64_t want;
    } cases[] = {
        { "sim:rflex?start=4.2,2.5,-22.5", 1ull << 9 },
        { "sim:rflex?start=4.2,2.5,0", 1ull << 9 | 1ull << 10 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        run_t r;
        run_open(&r, cases[c].url);
        assert_int_equal(r.st->nbump_switches, 14);
        assert_true(r.st->bump_switches == 0);
        for (double end = r.now + 6; r.now < end && !r.sim->body.contact;)
            run_drive(&r, 0.3, 0, 0.01);
        assert_true(r.sim->body.contact);
        run_drive(&r, 0.3, 0, 0.3);
        bw_base_stop(r.b, r.now);
        run_for(&r, 0.3);
        assert_true(r.sim->body.contact);
        uint64_t truth = panels_at(r.sim->body.contact_angle);
        print_message("%s: contact at %.1f deg, switches 0x%llx (the truth's panels 0x%llx), "
                      "bumpers 0x%02x\n",
                      cases[c].url, r.sim->body.contact_angle * 180 / BW_PI,
                      (unsigned long long)r.st->bump_switches, (unsigned long long)truth,
                      r.st->bumpers);
        assert_true(truth == cases[c].want);
        assert_true(r.st->bump_switches == truth);
        assert_int_equal(r.st->bumpers, BW_BUMP_FRONT);
        /* Backed off: every switch lets go. */
        run_drive(&r, -0.3, 0, 0.5);
        bw_base_stop(r.b, r.now);
        run_for(&r, 0.3);
        assert_false(r.sim->body.contact);
        assert_true(r.st->bump_switches == 0);
        assert_int_equal(r.st->bumpers, 0);
        bw_base_close(r.b, r.now);
    }
}

/* The IR ring: the sensors that face ahead (those the state has room for),
 * mounted where Player's B21r configuration poses them, each reading the
 * emulated base's true distance to the east wall 0.8 m ahead of its
 * centre as Player's calibration reads it back (range = 4000 raw^-2 from a
 * byte: within 2 %), and 0.8 m (the configuration's ir_max_range) where
 * the wall is farther. */
static void test_ir_reads_the_wall(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rflex?start=4.2,2.5,0");
    run_for(&r, 1.0);
    const bw_base_state_t *st = r.st;
    unsigned nir = 0, near = 0, far = 0;
    for (unsigned k = 0; k < st->nranges; k++) {
        const bw_range_t *rg = &st->ranges[k];
        if (rg->kind != BW_RANGE_IR)
            continue;
        assert_true(k >= 24);
        /* Which of Player's 24: by where it is mounted. */
        int i = -1;
        for (unsigned j = 0; j < 24; j++)
            if (fabs(rg->mount.x - player_b21r_ir[j][0]) < 1e-4 &&
                fabs(rg->mount.y - player_b21r_ir[j][1]) < 1e-4)
                i = (int)j;
        assert_true(i >= 0);
        assert_true(fabs(bw_angle_diff(rg->mount.theta, player_b21r_ir[i][2])) < 1e-4);
        assert_true(rg->max_range == 0.8);
        assert_true(rg->t > r.now - 0.5);
        bw_pose_t sensor = bw_pose_compose(r.sim->body.pose, rg->mount);
        double want = to_wall(sensor.x, sensor.y, sensor.theta);
        printf("rflex IR %2d at %6.1f deg reads %.3f m (truly %.3f)\n", i,
               rg->mount.theta * 180 / BW_PI, rg->range, want);
        if (want < 0.8) {
            assert_true(fabs(rg->range - want) < 0.02 * want);
            near++;
        } else {
            assert_true(rg->range == 0.8);
            far++;
        }
        nir++;
    }
    assert_int_equal(nir, BW_BASE_MAX_RANGES - 24);
    assert_true(near >= 4 && far >= 2);
    /* The ATRV-Jr has none here. */
    bw_base_close(r.b, r.now);
    run_open(&r, "sim:rflex?model=atrvjr");
    assert_false(bw_base_caps(r.b) & BW_CAP_IR);
    assert_int_equal(r.st->nranges, 0);
    bw_base_close(r.b, r.now);
}

/* The joystick: asked for as Player's driver asks, read from the emulated
 * base's stick, axes to -1..1 (left and forward positive; +-100 full
 * scale), never obeyed: the base stays where it is. */
static void test_joystick(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rflex");
    run_for(&r, 0.5);
    assert_true(bw_base_caps(r.b) & BW_CAP_JOYSTICK);
    assert_true(r.st->joystick.active);
    assert_true(r.st->joystick.x == 0 && r.st->joystick.y == 0 && r.st->joystick.buttons == 0);
    bw_device_t *dev = bw_base_device(r.b);
    assert_int_equal(bw_rflex_device_joystick(dev, 50, -25, BW_RFLEX_JSTK_ENABLE), 0);
    run_for(&r, 0.3);
    assert_true(fabs(r.st->joystick.x + 0.5) < 1e-9); /* x to the right: a right turn */
    assert_true(fabs(r.st->joystick.y + 0.25) < 1e-9);
    assert_int_equal(r.st->joystick.buttons, BW_RFLEX_JSTK_ENABLE);
    assert_int_equal(bw_rflex_device_joystick(dev, -1000, 100, 0), 0);
    run_for(&r, 0.3);
    assert_true(r.st->joystick.x == 1 && r.st->joystick.y == 1);
    assert_true(fabs(r.sim->body.v) < 1e-9 && fabs(r.sim->body.w) < 1e-9);
    bw_base_close(r.b, r.now);
}

static void test_bad_model(void **state)
{
    (void)state;
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open(&b, "sim:rflex?model=b14", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "b21r or atrvjr"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_online_and_caps),
        cmocka_unit_test(test_square),
        cmocka_unit_test(test_sonar_reads_the_room),
        cmocka_unit_test(test_coast_and_motor_vector),
        cmocka_unit_test(test_brake_on_close_and_silence),
        cmocka_unit_test(test_noisy_square_in_virtual_time),
        cmocka_unit_test(test_bad_model),
        cmocka_unit_test(test_panel_sides),
        cmocka_unit_test(test_backed_into_a_wall),
        cmocka_unit_test(test_encoders_and_raw_position),
        cmocka_unit_test(test_encoders_unwrap),
        cmocka_unit_test(test_stamp_from_the_future),
        cmocka_unit_test(test_bump_switches),
        cmocka_unit_test(test_ir_reads_the_wall),
        cmocka_unit_test(test_joystick),
    };
    return cmocka_run_group_tests_name("rflex driver and emulated B21r", tests, NULL, NULL);
}
