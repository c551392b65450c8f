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
    /* At (1, 1) facing +x in the room: the box 1.75 m ahead of sonar 0, the
     * walls 0.75 m behind (12) and to the right (18), 2.75 m left (6). */
    const double want[][2] = { { 0, 1.75 }, { 6, 2.75 }, { 12, 0.75 }, { 18, 0.75 } };
    for (size_t i = 0; i < 4; i++) {
        double got = r.ranges[bw_rflex_b21r_sonar_id((unsigned)want[i][0])] /
                     BW_RFLEX_SONAR_COUNTS_PER_M;
        print_message("sonar %g reads %.3f m (want %.2f)\n", want[i][0], got, want[i][1]);
        assert_true(fabs(got - want[i][1]) < 0.03);
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
    assert_int_equal(r.last[BW_RFLEX_DIO_REPORT].u.dio_report.address, BW_RFLEX_B21R_BUMPER_ADDRESS);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brake_and_drive), cmocka_unit_test(test_coast),
        cmocka_unit_test(test_sonar),           cmocka_unit_test(test_bump_panel),
        cmocka_unit_test(test_bad_input),       cmocka_unit_test(test_failsafe),
    };
    return cmocka_run_group_tests_name("the emulated B21r", tests, NULL, NULL);
}
