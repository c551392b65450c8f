/* The emulated B21r alone, driven by raw rflex frames in virtual time. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "b21r.h"

typedef struct {
    bw_device_t *dev;
    double now;
    bw_rflex_parser_t parser;
    unsigned count[BW_RFLEX_TYPE_COUNT];
    bw_rflex_msg_t last[BW_RFLEX_TYPE_COUNT];
    bw_rflex_mot_system_report_t axis[2];
    double sonar_t[8]; /* times of the last sonar reports */
    unsigned nsonar;
    uint16_t ranges[256]; /* by sonar id */
    /* A host keeps the base going by sending its set-directions again
     * (every 0.1 s, as the public drivers do); false: sent once. */
    bool resend;
    bw_rflex_msg_t dir[2];
    bool have_dir[2];
    double last_dir;
    unsigned pressed; /* panels a DIO report said pressed (bit: address - 0x40) */
} rig_t;

static void open_rig(rig_t *r, const char *model)
{
    memset(r, 0, sizeof *r);
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.model = model;
    char err[128];
    assert_int_equal(bw_device_create(&r->dev, "rflex", &o, 0.0, err, sizeof err), 0);
    bw_rflex_parser_init(&r->parser);
    r->resend = true;
}

static void send(rig_t *r, const bw_rflex_msg_t *m)
{
    uint8_t f[BW_RFLEX_MAX_FRAME];
    int n = bw_rflex_encode_frame(f, sizeof f, m);
    assert_true(n > 0);
    bw_device_input(r->dev, f, (size_t)n, r->now);
}

static void send_type(rig_t *r, bw_rflex_type_t t)
{
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, t);
    send(r, &m);
}

static void set_dir(rig_t *r, uint8_t axis, int32_t v, uint32_t acc, uint32_t torque)
{
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_SET_DIR);
    m.u.mot_set_dir = bw_rflex_set_dir(axis, v, acc, torque);
    send(r, &m);
    r->dir[axis & 1] = m;
    r->have_dir[axis & 1] = true;
    r->last_dir = r->now;
}

static void collect(rig_t *r)
{
    uint8_t buf[16384];
    size_t n;
    while ((n = bw_device_output(r->dev, buf, sizeof buf)) > 0) {
        const uint8_t *d = buf;
        bw_rflex_frame_t f;
        while (bw_rflex_parse(&r->parser, &d, &n, &f) > 0) {
            bw_rflex_msg_t m;
            assert_int_equal(bw_rflex_decode(&f, &m), 0);
            r->count[m.type]++;
            r->last[m.type] = m;
            if (m.type == BW_RFLEX_MOT_SYSTEM_REPORT)
                r->axis[m.u.mot_system_report.axis & 1] = m.u.mot_system_report;
            if (m.type == BW_RFLEX_DIO_REPORT && m.u.dio_report.value &&
                m.u.dio_report.address >= BW_RFLEX_B21R_BUMPER_ADDRESS)
                r->pressed |= 1u << (m.u.dio_report.address - BW_RFLEX_B21R_BUMPER_ADDRESS);
            if (m.type == BW_RFLEX_SONAR_REPORT) {
                r->sonar_t[r->nsonar++ % 8] = r->now;
                for (unsigned k = 0; k < m.u.sonar_report.count; k++)
                    r->ranges[m.u.sonar_report.readings[k].id] = m.u.sonar_report.readings[k].range;
            }
        }
    }
    assert_int_equal(r->parser.stats.skipped_bytes + r->parser.stats.checksum_errors, 0);
}

static void advance(rig_t *r, double s)
{
    for (double end = r->now + s; r->now < end - 1e-9;) {
        r->now = fmin(end, r->now + 0.005);
        bw_device_step(r->dev, r->now);
        if (r->resend && r->now >= r->last_dir + 0.1 - 1e-9) {
            for (int a = 0; a < 2; a++)
                if (r->have_dir[a])
                    send(r, &r->dir[a]);
            r->last_dir = r->now;
        }
        collect(r);
    }
}

static const bw_body_t *body(rig_t *r) { return &bw_device_sim(r->dev)->body; }

static void reports_on(rig_t *r)
{
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_SYSTEM_REPORT_REQ);
    m.u.mot_system_report_req = (bw_rflex_mot_system_report_req_t){ 100000, 3 };
    send(r, &m);
}

/* Braked at power-up: a set-direction does nothing until the release; then
 * 0.5 m/s at 0.5 m/s^2 is reached in a second, and the counts follow. */
static void test_brake_and_drive(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    reports_on(&r);
    set_dir(&r, 0, 51500, 51500, BW_RFLEX_STD_TRANS_TORQUE); /* 0.5 m/s, 0.5 m/s^2 */
    advance(&r, 1.0);
    assert_true(fabs(body(&r)->v) < 1e-9);
    send_type(&r, BW_RFLEX_MOT_BRAKE_RELEASE);
    advance(&r, 1.05);
    assert_true(fabs(body(&r)->v - 0.5) < 1e-6);
    advance(&r, 1.0);
    assert_int_equal(r.axis[0].velocity, 51500);
    double pos_m = r.axis[0].position / BW_RFLEX_B21R_COUNTS_PER_M;
    print_message("translation counts %d (%.3f m), rolled %.3f m\n", r.axis[0].position, pos_m,
                  bw_device_sim(r.dev)->travelled);
    assert_true(fabs(pos_m - bw_device_sim(r.dev)->travelled) < 0.06); /* a report behind at most */
    assert_true(r.count[BW_RFLEX_MOT_SYSTEM_REPORT] >= 2 * 29); /* both axes, 10 Hz */
    /* The brake stops it and holds it. */
    send_type(&r, BW_RFLEX_MOT_BRAKE_SET);
    advance(&r, 0.5);
    assert_true(fabs(body(&r)->v) < 1e-9);
    send_type(&r, BW_RFLEX_SYS_STATUS_REQ);
    advance(&r, 0.01);
    assert_int_equal(r.last[BW_RFLEX_SYS_STATUS].u.sys_status.brake, 1);
    double volts = r.last[BW_RFLEX_SYS_STATUS].u.sys_status.voltage * BW_RFLEX_VOLTS_PER_UNIT +
                   BW_RFLEX_B21R_VOLTAGE_OFFSET;
    assert_true(volts > 49 && volts <= 50.0001);
    bw_device_destroy(r.dev);
}

/* Torque 0: the axis coasts, friction stops it, slower than any command
 * would; the report says no torque. */
static void test_coast(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    reports_on(&r);
    send_type(&r, BW_RFLEX_MOT_BRAKE_RELEASE);
    set_dir(&r, 0, 61800, 103000, BW_RFLEX_STD_TRANS_TORQUE); /* 0.6 m/s */
    advance(&r, 1.0);
    double at = bw_device_sim(r.dev)->travelled;
    set_dir(&r, 0, 61800, 103000, 0);
    advance(&r, 1.0);
    assert_true(body(&r)->v > 0.25 && body(&r)->v < 0.35); /* 0.3 m/s^2 of friction */
    assert_int_equal(r.axis[0].torque, 0);
    advance(&r, 2.0);
    assert_true(fabs(body(&r)->v) < 1e-9);
    double coasted = bw_device_sim(r.dev)->travelled - at;
    print_message("coasted %.3f m from 0.6 m/s\n", coasted);
    assert_true(fabs(coasted - 0.6 * 0.6 / (2 * 0.3)) < 0.02);
    bw_device_destroy(r.dev);
}

/* The sonar: run at the drivers' echo delay, each report six readings (one
 * per bank), a reading per 30 ms; the ring sees the room. */
static void test_sonar(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_SONAR_RUN);
    m.u.sonar_run = (bw_rflex_sonar_run_t){ BW_RFLEX_SONAR_ECHO_DELAY, 0, 0, BW_RFLEX_RUN_ON };
    send(&r, &m);
    advance(&r, 1.0);
    assert_true(r.count[BW_RFLEX_SONAR_REPORT] >= 32 && r.count[BW_RFLEX_SONAR_REPORT] <= 34);
    assert_int_equal(r.last[BW_RFLEX_SONAR_REPORT].u.sonar_report.count, 6);
    /* At (1, 1) facing +x in the room: the walls 1 m behind (sonars 0 and
     * 23, at +-172.5 degrees) and to the right (17, 18: -82.5, -97.5), 3 m
     * to the left (5, 6); the box 2 m ahead lies between the rays of the two
     * front sonars (11, 12 at +-7.5 degrees), which pass it to the far wall
     * 4 m off. All 7.5 degrees off square: the range is (d - 0.25 cos 7.5) /
     * cos 7.5 for a wall d from the centre. */
    const double k = 1 / cos(7.5 * BW_PI / 180), in = 0.25 * cos(7.5 * BW_PI / 180);
    const double want[][2] = { { 0, (1 - in) * k },  { 23, (1 - in) * k },
                               { 17, (1 - in) * k }, { 18, (1 - in) * k },
                               { 5, (3 - in) * k },  { 6, (3 - in) * k },
                               { 11, (4 - in) * k },    { 12, (4 - in) * k } };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double got = r.ranges[bw_rflex_b21r_sonar_id((unsigned)want[i][0])] /
                     BW_RFLEX_SONAR_COUNTS_PER_M;
        print_message("sonar %g reads %.3f m (want %.3f)\n", want[i][0], got, want[i][1]);
        assert_true(fabs(got - want[i][1]) < 0.01);
    }
    /* Slower timing: 100 ms echo, a 200 ms set delay: 4 reports per 0.6 s. */
    m.u.sonar_run = (bw_rflex_sonar_run_t){ 100000, 0, 200000, BW_RFLEX_RUN_ON };
    send(&r, &m);
    unsigned before = r.count[BW_RFLEX_SONAR_REPORT];
    advance(&r, 1.2);
    assert_int_equal(r.count[BW_RFLEX_SONAR_REPORT] - before, 8);
    m.u.sonar_run = (bw_rflex_sonar_run_t){ 0, 0, 0, BW_RFLEX_RUN_OFF };
    send(&r, &m);
    before = r.count[BW_RFLEX_SONAR_REPORT];
    advance(&r, 0.5);
    assert_int_equal(r.count[BW_RFLEX_SONAR_REPORT], before);
    bw_device_destroy(r.dev);
}

/* A regression test: the ring put sonar i at +15 i degrees, so with
 * Player's (or rwi_ros's) poses every reading landed in the wrong
 * direction. The B21r 1.25 m from a wall, facing it (at 3.75, 2.5 in the
 * room, the box behind it to the right): each sonar reads what its
 * configured pose faces, the two facing ahead the wall ~1 m off, the two
 * facing back the far wall 3.75 m off. */
static void test_sonar_faces_as_configured(void **state)
{
    (void)state;
    rig_t r;
    memset(&r, 0, sizeof r);
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.has_start = true;
    o.start = (bw_pose_t){ 3.75, 2.5, 0 };
    char err[128];
    assert_int_equal(bw_device_create(&r.dev, "rflex", &o, 0.0, err, sizeof err), 0);
    bw_rflex_parser_init(&r.parser);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_SONAR_RUN);
    m.u.sonar_run = (bw_rflex_sonar_run_t){ BW_RFLEX_SONAR_ECHO_DELAY, 0, 0, BW_RFLEX_RUN_ON };
    send(&r, &m);
    advance(&r, 0.5);
    unsigned ahead = 0, back = 0;
    for (unsigned i = 0; i < 24; i++) {
        const double *p = player_b21r_body[i];
        double want = to_wall(3.75 + p[1], 2.5 + p[2], p[0]);
        uint8_t id = (uint8_t)(i / 4 * 16 + i % 4);
        double got = r.ranges[id] / BW_RFLEX_SONAR_COUNTS_PER_M;
        print_message("sonar %2u (id 0x%02x) at %6.1f deg reads %.3f m (want %.3f)\n", i, id,
                      p[0] * 180 / BW_PI, got, want);
        assert_true(fabs(got - want) < 0.01);
        if (fabs(p[0]) < 10 * BW_PI / 180) {
            assert_true(fabs(got - 1.01) < 0.02);
            ahead++;
        }
        if (fabs(p[0]) > 170 * BW_PI / 180) {
            assert_true(fabs(got - 3.53) < 0.02);
            back++;
        }
    }
    assert_int_equal(ahead, 2);
    assert_int_equal(back, 2);
    bw_device_destroy(r.dev);
}

/* docs/rflex.md's count, as Player reads it: facing a wall 1.25 m ahead in
 * a 10 m room, the eight sonars from 52.5 degrees left to 52.5 right see
 * it within Player's maximum range (3000 counts, 2.03 m): the two facing
 * ahead at 1.011 m, sonars 8 and 15 at 1.804 m (1.25 / cos 52.5 less the
 * ring's 0.25 m); the other 16 read the maximum or beyond. (The docs said
 * 18.) */
static void test_sonar_within_players_range(void **state)
{
    (void)state;
    bw_world_t room;
    bw_world_init(&room);
    assert_int_equal(bw_world_add_box(&room, 0, 0, 10, 10), 0);
    room.start = (bw_pose_t){ 8.75, 5, 0 };
    rig_t r;
    memset(&r, 0, sizeof r);
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.world = &room;
    char err[128];
    assert_int_equal(bw_device_create(&r.dev, "rflex", &o, 0.0, err, sizeof err), 0);
    bw_rflex_parser_init(&r.parser);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_SONAR_RUN);
    m.u.sonar_run = (bw_rflex_sonar_run_t){ BW_RFLEX_SONAR_ECHO_DELAY, 0, 0, BW_RFLEX_RUN_ON };
    send(&r, &m);
    advance(&r, 0.5);
    unsigned within = 0;
    for (unsigned i = 0; i < 24; i++) {
        uint8_t id = (uint8_t)(i / 4 * 16 + i % 4);
        unsigned raw = r.ranges[id];
        if (raw == 0 || raw >= BW_RFLEX_SONAR_MAX_RANGE)
            continue;
        within++;
        assert_true(i >= 8 && i <= 15);
        double got = raw / BW_RFLEX_SONAR_COUNTS_PER_M;
        if (i == 8 || i == 15)
            assert_true(fabs(got - 1.804) < 0.002);
        if (i == 11 || i == 12)
            assert_true(fabs(got - 1.011) < 0.002);
    }
    assert_int_equal(within, 8);
    bw_device_destroy(r.dev);
}

/* Player's bumper_def, the bearing of each panel's centre (degrees) from its
 * x, y: body 0x40..0x45, base 0x46..0x4D. */
static const double player_b21r_panels[14][2] = {
    { -0.216506, 0.125000 }, { 0.000000, 0.250000 },  { 0.216506, 0.125000 },
    { 0.216506, -0.125000 }, { 0.000000, -0.250000 }, { -0.216506, -0.125000 },
    { -0.240209, 0.099498 }, { -0.099498, 0.240209 }, { 0.099498, 0.240209 },
    { 0.240209, 0.099498 },  { 0.240209, -0.099498 }, { 0.099498, -0.240209 },
    { -0.099498, -0.240209 }, { -0.240209, -0.099498 },
};

/* The panels the DIO reports of a run say pressed. */
static unsigned dio_pressed(rig_t *r, double seconds)
{
    r->pressed = 0;
    advance(r, seconds);
    return r->pressed;
}

/* A regression test: the panels were eight round the base at 0x40..0x47
 * from straight ahead counter-clockwise. Driven head-on into the box, the
 * base's front pair presses (0x49 at +22.5 degrees and 0x4A at -22.5 in
 * Player's configuration, the wall on their seam); backed into the wall,
 * the rear pair (0x46 at 157.5, 0x4D at -157.5). Nothing else. */
static void test_bump_panels_as_configured(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    r.resend = true;
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_DIO_REPORTS_REQ);
    m.u.dio_reports_req.period = BW_RFLEX_REPORT_PERIOD;
    send(&r, &m);
    send_type(&r, BW_RFLEX_MOT_BRAKE_RELEASE);
    set_dir(&r, 0, 41200, 51500, BW_RFLEX_STD_TRANS_TORQUE); /* 0.4 m/s into the box */
    unsigned front = dio_pressed(&r, 6.0);
    print_message("into the box: panels 0x%04x\n", front);
    assert_int_equal(front, 1u << 9 | 1u << 10);
    for (unsigned p = 0; p < 14; p++)
        if (front >> p & 1)
            assert_true(fabs(atan2(player_b21r_panels[p][1], player_b21r_panels[p][0])) <
                        25 * BW_PI / 180);
    /* Back off, turn round, and back into the box. */
    set_dir(&r, 0, -20600, 51500, BW_RFLEX_STD_TRANS_TORQUE);
    assert_int_equal(dio_pressed(&r, 1.0), 0);
    set_dir(&r, 0, 0, 51500, BW_RFLEX_STD_TRANS_TORQUE);
    set_dir(&r, 1, (int32_t)(0.5 * BW_RFLEX_B21R_COUNTS_PER_RAD), BW_RFLEX_STD_ROT_ACC,
            BW_RFLEX_STD_ROT_TORQUE);
    advance(&r, 0.3);
    while (bw_angle_diff(body(&r)->pose.theta, BW_PI) < -0.02 ||
           bw_angle_diff(body(&r)->pose.theta, BW_PI) > 0.3)
        advance(&r, 0.01);
    set_dir(&r, 1, 0, BW_RFLEX_STD_ROT_ACC, BW_RFLEX_STD_ROT_TORQUE);
    advance(&r, 0.5);
    double heading = body(&r)->pose.theta;
    print_message("turned to %.1f deg\n", heading * 180 / BW_PI);
    set_dir(&r, 0, -41200, 51500, BW_RFLEX_STD_TRANS_TORQUE);
    unsigned rear = dio_pressed(&r, 6.0);
    print_message("backed into the box: panels 0x%04x\n", rear);
    assert_int_equal(rear, 1u << 6 | 1u << 13);
    for (unsigned p = 0; p < 14; p++)
        if (rear >> p & 1)
            assert_true(fabs(atan2(player_b21r_panels[p][1], player_b21r_panels[p][0])) >
                        155 * BW_PI / 180);
    bw_device_destroy(r.dev);
}

/* Into the box: the front bump panel reports, and lets go when it backs. */
static void test_bump_panel(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_DIO_REPORTS_REQ);
    m.u.dio_reports_req.period = BW_RFLEX_REPORT_PERIOD;
    send(&r, &m);
    send_type(&r, BW_RFLEX_MOT_BRAKE_RELEASE);
    set_dir(&r, 0, 41200, 51500, BW_RFLEX_STD_TRANS_TORQUE); /* 0.4 m/s */
    advance(&r, 6.0);
    assert_true(r.count[BW_RFLEX_DIO_REPORT] >= 1);
    assert_int_equal(r.last[BW_RFLEX_DIO_REPORT].u.dio_report.address,
                     BW_RFLEX_B21R_BUMPER_ADDRESS + 10); /* the second of the front pair */
    assert_int_equal(r.last[BW_RFLEX_DIO_REPORT].u.dio_report.value, 3);
    set_dir(&r, 0, -20600, 51500, BW_RFLEX_STD_TRANS_TORQUE);
    advance(&r, 1.0);
    assert_int_equal(r.last[BW_RFLEX_DIO_REPORT].u.dio_report.value, 0);
    bw_device_destroy(r.dev);
}

/* The failsafe (a regression test: the emulated base drove on forever once
 * its host died). A host that stops sending set-directions, even one still
 * asking for its status, has the base stop both axes within the failsafe's
 * second; one that resends keeps it going. The operator is told both what
 * the base does (first) and when it happens. */
static void test_failsafe(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    char line[256];
    assert_true(bw_device_next_notice(r.dev, line, sizeof line));
    print_message("first notice: %s\n", line);
    assert_non_null(strstr(line, "failsafe"));
    reports_on(&r);
    send_type(&r, BW_RFLEX_MOT_BRAKE_RELEASE);
    set_dir(&r, 0, 51500, 103000, BW_RFLEX_STD_TRANS_TORQUE); /* 0.5 m/s */
    set_dir(&r, 1, 17500, 100000, BW_RFLEX_STD_ROT_TORQUE);   /* 0.5 rad/s */
    advance(&r, 3.0); /* resent every 0.1 s: still going */
    assert_true(fabs(body(&r)->v - 0.5) < 1e-6 && fabs(body(&r)->w - 0.5) < 1e-6);
    assert_false(bw_device_next_notice(r.dev, line, sizeof line));
    /* The host dies: only status requests (not move commands) come. */
    r.resend = false;
    double died = r.now;
    while (r.now < died + 0.95) {
        send_type(&r, BW_RFLEX_SYS_STATUS_REQ);
        advance(&r, 0.1);
    }
    assert_true(body(&r)->v > 0.49); /* within the failsafe's interval: on */
    advance(&r, 1.0);
    assert_true(fabs(body(&r)->v) < 1e-9 && fabs(body(&r)->w) < 1e-9);
    assert_int_equal(r.axis[0].velocity, 0);
    send_type(&r, BW_RFLEX_SYS_STATUS_REQ);
    advance(&r, 0.01);
    assert_int_equal(r.last[BW_RFLEX_SYS_STATUS].u.sys_status.brake, 0); /* stopped, not braked */
    assert_true(bw_device_next_notice(r.dev, line, sizeof line));
    print_message("then: %s\n", line);
    assert_non_null(strstr(line, "failsafe"));
    /* A new command moves it again. */
    r.resend = true;
    set_dir(&r, 0, 20600, 103000, BW_RFLEX_STD_TRANS_TORQUE);
    advance(&r, 2.0);
    assert_true(fabs(body(&r)->v - 0.2) < 1e-6);
    bw_device_destroy(r.dev);
}

/* An unknown port, a known message of the wrong length: counted. */
static void test_bad_input(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, "atrvjr");
    uint8_t f[32];
    int n = bw_rflex_frame_data(f, sizeof f, 9, 0, 1, (const uint8_t *)"ab", 2);
    bw_device_input(r.dev, f, (size_t)n, r.now);
    n = bw_rflex_frame_data(f, sizeof f, BW_RFLEX_PORT_MOT, 0, BW_RFLEX_OP_MOT_AXIS_SET_DIR,
                            (const uint8_t *)"abc", 3);
    bw_device_input(r.dev, f, (size_t)n, r.now);
    advance(&r, 0.05);
    const bw_device_stats_t *st = bw_device_stats(r.dev);
    assert_int_equal(st->unknown_by_id[9], 1);
    assert_int_equal(st->link.length_errors, 1);
    bw_device_destroy(r.dev);
    bw_device_t *d;
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.model = "b14";
    char err[128];
    assert_int_equal(bw_device_create(&d, "rflex", &o, 0, err, sizeof err), BW_EUNKNOWN);
    assert_non_null(strstr(err, "b21r, atrvjr"));
}

/* The IR ring, as Player's reader takes it: ir_run with the drivers' words
 * starts a report every 150 ms (the fifth word, taken as ms) of six banks of
 * 13 bytes (a stamp, eight sensor bytes, the reserved 0x80: Player's
 * rflex-protocol.txt), sensor j of bank b at Player's data offset
 * 13 b + j + 5. At (1, 1) facing +x, IR 0 and 23 (posed as sonars 0 and 23,
 * +-172.5 degrees) see the wall behind: Player's calibration (range =
 * 4000 raw^-2) gives the true distance within 2 %; the ones facing ahead,
 * 2 m from the box, see nothing (0); the four unfitted bytes of each bank
 * are 0. ir_run off stops it; an ATRV-Jr ignores it. The joystick answers
 * each request with what its stick reads. */
static void test_ir_and_joystick(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    static const uint32_t on[5] = BW_RFLEX_IR_ON_PARAMS;
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_IR_RUN);
    memcpy(m.u.ir_run.params, on, sizeof on);
    m.u.ir_run.mode = BW_RFLEX_RUN_ON;
    send(&r, &m);
    advance(&r, 1.0);
    assert_int_equal(r.count[BW_RFLEX_IR_REPORT], 6);
    const bw_rflex_ir_report_t *ir = &r.last[BW_RFLEX_IR_REPORT].u.ir_report;
    assert_int_equal(ir->count, 6);
    assert_int_equal(ir->nbytes, 6 * 13);
    double behind = (1 - 0.25 * cos(7.5 * BW_PI / 180)) / cos(7.5 * BW_PI / 180);
    for (unsigned b = 0; b < 6; b++) {
        assert_int_equal(ir->bytes[13 * b + 12], 0x80);
        for (unsigned j = 4; j < 8; j++)
            assert_int_equal(bw_rflex_ir_range(ir, b, j), 0);
    }
    static const unsigned back[] = { 0, 23 }, ahead[] = { 11, 12 };
    for (size_t k = 0; k < 2; k++) {
        int raw = bw_rflex_ir_range(ir, back[k] / 4, back[k] % 4);
        double got = BW_RFLEX_B21R_IR_CALIB_A * pow(raw, BW_RFLEX_B21R_IR_CALIB_B);
        print_message("IR %u: byte %d, %.3f m (truly %.3f)\n", back[k], raw, got, behind);
        assert_true(fabs(got - behind) < 0.02 * behind);
        assert_int_equal(bw_rflex_ir_range(ir, ahead[k] / 4, ahead[k] % 4), 0);
    }
    m.u.ir_run = (bw_rflex_ir_run_t){ { 0 }, BW_RFLEX_RUN_OFF };
    send(&r, &m);
    unsigned before = r.count[BW_RFLEX_IR_REPORT];
    advance(&r, 0.5);
    assert_int_equal(r.count[BW_RFLEX_IR_REPORT], before);

    send_type(&r, BW_RFLEX_JSTK_STATE_REQ);
    advance(&r, 0.01);
    assert_int_equal(r.count[BW_RFLEX_JSTK_STATE], 1);
    const bw_rflex_jstk_state_t *js = &r.last[BW_RFLEX_JSTK_STATE].u.jstk_state;
    assert_true(js->x == 0 && js->y == 0 && js->buttons == 0);
    assert_int_equal(bw_rflex_device_joystick(r.dev, -30, 60, 1), 0);
    send_type(&r, BW_RFLEX_JSTK_STATE_REQ);
    advance(&r, 0.01);
    assert_int_equal(r.count[BW_RFLEX_JSTK_STATE], 2);
    assert_true(js->x == -30 && js->y == 60 && js->buttons == 1);
    bw_device_destroy(r.dev);

    open_rig(&r, "atrvjr");
    memcpy(m.u.ir_run.params, on, sizeof on);
    m.u.ir_run.mode = BW_RFLEX_RUN_ON;
    send(&r, &m);
    advance(&r, 0.5);
    assert_int_equal(r.count[BW_RFLEX_IR_REPORT], 0);
    assert_int_equal(bw_device_stats(r.dev)->ignored_by_id[BW_RFLEX_PORT_IR], 1);
    bw_device_destroy(r.dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brake_and_drive), cmocka_unit_test(test_coast),
        cmocka_unit_test(test_sonar),           cmocka_unit_test(test_bump_panel),
        cmocka_unit_test(test_bad_input),       cmocka_unit_test(test_failsafe),
        cmocka_unit_test(test_sonar_faces_as_configured),
        cmocka_unit_test(test_sonar_within_players_range),
        cmocka_unit_test(test_bump_panels_as_configured),
        cmocka_unit_test(test_ir_and_joystick),
    };
    return cmocka_run_group_tests_name("the emulated B21r", tests, NULL, NULL);
}
