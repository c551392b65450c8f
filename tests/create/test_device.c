/* The emulated Create alone, driven by raw Open Interface bytes in virtual
 * time: modes, Drive, the truncated distance and angle, the stream. */
#include <math.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"

typedef struct {
    bw_device_t *dev;
    double now;
    uint8_t out[65536];
    size_t nout;
} rig_t;

static void open_model(rig_t *r, const char *model)
{
    memset(r, 0, sizeof *r);
    char err[128];
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.model = model;
    assert_int_equal(bw_device_create(&r->dev, "create", &o, 0.0, err, sizeof err), 0);
}

static void open_rig(rig_t *r) { open_model(r, NULL); }

static void send(rig_t *r, const uint8_t *b, size_t n) { bw_device_input(r->dev, b, n, r->now); }

/* Steps to now + s in 5 ms steps, keeping what the robot says. */
static void advance(rig_t *r, double s)
{
    for (double end = r->now + s; r->now < end - 1e-9;) {
        r->now = fmin(end, r->now + 0.005);
        bw_device_step(r->dev, r->now);
        r->nout += bw_device_output(r->dev, r->out + r->nout, sizeof r->out - r->nout);
    }
}

static const bw_body_t *body(rig_t *r) { return &bw_device_sim(r->dev)->body; }

/* Distance and angle, asked with Query List; reading resets them. */
static void query_odometry(rig_t *r, int16_t *dist, int16_t *angle)
{
    static const uint8_t ask[] = { BW_CREATE_OP_QUERY_LIST, 2, BW_CREATE_PKT_DISTANCE,
                                   BW_CREATE_PKT_ANGLE };
    r->nout = 0;
    send(r, ask, sizeof ask);
    advance(r, 0.005);
    assert_int_equal(r->nout, 4);
    *dist = (int16_t)(uint16_t)((r->out[0] << 8) | r->out[1]);
    *angle = (int16_t)(uint16_t)((r->out[2] << 8) | r->out[3]);
}

/* Off until Start; passive ignores Drive (and counts it); Full drives. */
static void test_modes(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r);
    uint8_t drive[5];
    bw_create_encode_drive(drive, sizeof drive, 200, BW_CREATE_RADIUS_STRAIGHT);
    send(&r, drive, sizeof drive);
    advance(&r, 0.5);
    assert_true(fabs(body(&r)->v) < 1e-9);
    static const uint8_t start[] = { BW_CREATE_OP_START };
    send(&r, start, 1);
    send(&r, drive, sizeof drive);
    advance(&r, 0.5);
    assert_true(fabs(body(&r)->v) < 1e-9);
    assert_int_equal(bw_device_stats(r.dev)->ignored_by_id[BW_CREATE_OP_DRIVE], 2);
    static const uint8_t full[] = { BW_CREATE_OP_FULL };
    send(&r, full, 1);
    send(&r, drive, sizeof drive);
    advance(&r, 1.0);
    assert_true(fabs(body(&r)->v - 0.2) < 1e-6);
    /* Turn in place, clockwise: the OI's special radius. */
    bw_create_encode_drive(drive, sizeof drive, 100, BW_CREATE_RADIUS_CW);
    send(&r, drive, sizeof drive);
    advance(&r, 1.0);
    assert_true(fabs(body(&r)->v) < 1e-6);
    assert_true(fabs(body(&r)->w + 0.1 / (0.258 / 2)) < 1e-3);
    /* Opcodes of other Roomba models are no Create 1 opcodes: counted by
     * number (what `botwire sim` lists), each once with its data bytes
     * ("abcd" were once taken for four more unknown opcodes), the robot goes on. */
    static const uint8_t other[] = { 173, 164, 'a', 'b', 'c', 'd', 173 };
    send(&r, other, sizeof other);
    advance(&r, 0.1);
    const bw_device_stats_t *st = bw_device_stats(r.dev);
    assert_int_equal(st->unknown_by_id[173], 2);
    assert_int_equal(st->unknown_by_id[164], 1);
    assert_int_equal(st->link.unknown, 3);
    assert_int_equal(st->unknown_by_id['a'], 0);
    assert_int_equal(st->link.skipped_bytes, sizeof other);
    assert_true(fabs(body(&r)->w + 0.1 / (0.258 / 2)) < 1e-3);
    bw_device_destroy(r.dev);
}

/* 1 s at 200 mm/s read once: 200 mm (the ramp up costs a few); the same
 * slow turn read every 15 ms: every angle truncates to 0, read once a
 * second it does not. */
static void test_truncated_counts(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r);
    static const uint8_t go[] = { BW_CREATE_OP_START, BW_CREATE_OP_FULL };
    send(&r, go, sizeof go);
    uint8_t drive[5];
    bw_create_encode_drive(drive, sizeof drive, 200, BW_CREATE_RADIUS_STRAIGHT);
    send(&r, drive, sizeof drive);
    int16_t d, a;
    query_odometry(&r, &d, &a);
    advance(&r, 1.0);
    query_odometry(&r, &d, &a);
    assert_true(d >= 175 && d <= 200);
    assert_int_equal(a, 0);
    /* 20 mm/s in place: 0.155 rad/s, 0.13 degrees per 15 ms. */
    bw_create_encode_drive(drive, sizeof drive, 20, BW_CREATE_RADIUS_CCW);
    send(&r, drive, sizeof drive);
    advance(&r, 0.5);
    query_odometry(&r, &d, &a);
    long sum = 0;
    double th0 = body(&r)->pose.theta;
    for (int i = 0; i < 200; i++) { /* 3 s */
        advance(&r, 0.010);
        query_odometry(&r, &d, &a);
        sum += a;
    }
    double turned = bw_angle_diff(body(&r)->pose.theta, th0) * 180 / BW_PI;
    assert_true(turned > 20);
    assert_int_equal(sum, 0);
    advance(&r, 1.0);
    query_odometry(&r, &d, &a);
    assert_true(a >= 8 && a <= 9);
    bw_device_destroy(r.dev);
}

/* Stream: a frame every 15 ms with a good checksum; Pause stops it. */
static void test_stream(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r);
    static const uint8_t go[] = { BW_CREATE_OP_START, BW_CREATE_OP_FULL, BW_CREATE_OP_STREAM, 2,
                                  BW_CREATE_GROUP_6, BW_CREATE_PKT_VOLTAGE };
    send(&r, go, sizeof go);
    r.nout = 0;
    advance(&r, 1.5);
    bw_create_stream_parser_t p;
    bw_create_stream_parser_init(&p, BW_CREATE_SUM_WITH_HEADER);
    const uint8_t *d = r.out;
    size_t n = r.nout;
    bw_create_stream_frame_t f;
    int frames = 0;
    while (bw_create_stream_parse(&p, &d, &n, &f) > 0) {
        bw_create_sensors_t s;
        assert_int_equal(bw_create_decode_stream(&f, &s), 2);
        assert_true(s.voltage > 15000);
        frames++;
    }
    assert_int_equal(p.stats.checksum_errors + p.stats.skipped_bytes, 0);
    assert_true(frames >= 99 && frames <= 101);
    static const uint8_t pause[] = { BW_CREATE_OP_PAUSE_RESUME_STREAM, 0 };
    send(&r, pause, sizeof pause);
    advance(&r, 0.01);
    r.nout = 0;
    advance(&r, 0.5);
    assert_int_equal(r.nout, 0);
    bw_device_destroy(r.dev);
}

/* The OI has no watchdog: a Create drives on its last command when its host
 * goes (a program killed, a cable out), and the emulator must not stop it
 * either. It says so when made (what `botwire sim create` prints first),
 * and again when a host leaves it driving. */
static void test_no_watchdog(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r);
    char line[256];
    assert_int_equal(bw_device_next_notice(r.dev, line, sizeof line), 1);
    assert_non_null(strstr(line, "no watchdog"));
    assert_int_equal(bw_device_next_notice(r.dev, line, sizeof line), 0);
    static const uint8_t go[] = { BW_CREATE_OP_START, BW_CREATE_OP_FULL };
    send(&r, go, sizeof go);
    bw_device_link(r.dev, true, r.now);
    uint8_t drive[5];
    bw_create_encode_drive_direct(drive, sizeof drive, 150, 150);
    send(&r, drive, sizeof drive);
    advance(&r, 0.5);
    bw_device_link(r.dev, false, r.now);
    assert_int_equal(bw_device_next_notice(r.dev, line, sizeof line), 1);
    assert_non_null(strstr(line, "drives on"));
    double x = body(&r)->pose.x;
    advance(&r, 10.0);
    assert_true(fabs(body(&r)->v - 0.15) < 1e-6);
    assert_true(body(&r)->pose.x - x > 1.4);
    bw_device_destroy(r.dev);
}

/* The stream's frames in r->out, decoded by a parser of the model: how
 * many, the last one's values in *last. */
static int stream_frames(rig_t *r, bw_create_model_t m, bw_create_sensors_t *last)
{
    bw_create_stream_parser_t p;
    bw_create_stream_parser_init(&p, BW_CREATE_SUM_WITH_HEADER);
    bw_create_stream_parser_model(&p, m);
    const uint8_t *d = r->out;
    size_t n = r->nout;
    bw_create_stream_frame_t f;
    int frames = 0, rc;
    while ((rc = bw_create_stream_parse(&p, &d, &n, &f)) != 0) {
        assert_int_equal(rc, 1);
        assert_true(bw_create_decode_stream(&f, last) > 0);
        frames++;
    }
    assert_int_equal(p.stats.skipped_bytes, 0);
    return frames;
}

/* libcreate's CREATE_2 stream (ids 7..58 of a Create 2) got
 * silence from the emulator. A Create 2 streams them, its encoder counts
 * the wheels' true turning (pi * 72 mm a 508.8 counts); a Create 1 has no
 * packet 43: it answers nothing, and says which packets it was asked. */
static void test_create2_stream_encoders(void **state)
{
    (void)state;
    static const uint8_t go[] = { BW_CREATE_OP_START, BW_CREATE_OP_FULL, BW_CREATE_OP_STREAM, 7,
                                  7, 19, 20, 35, 43, 44, 58 };
    rig_t r;
    open_model(&r, "create2");
    send(&r, go, sizeof go);
    uint8_t drive[5];
    bw_create_encode_drive_direct(drive, sizeof drive, 300, 200);
    send(&r, drive, sizeof drive);
    r.nout = 0;
    advance(&r, 3.0);
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    int frames = stream_frames(&r, BW_CREATE_MODEL_2, &s);
    assert_true(frames >= 199 && frames <= 201);
    assert_int_equal(s.oi_mode, BW_CREATE_MODE_FULL);
    /* The counts against the wheels' true travel, within a count. */
    const double mm_per_count = BW_PI * 72.0 / 508.8;
    const bw_body_t *b = body(&r);
    assert_true(fabs(s.left_encoder_counts * mm_per_count - b->odo_left * 1000) < 2 * mm_per_count + 3.5);
    assert_true(fabs(s.right_encoder_counts * mm_per_count - b->odo_right * 1000) < 2 * mm_per_count + 5.5);
    assert_true(s.left_encoder_counts > 1000 && s.right_encoder_counts > 1500);
    /* The turn the counts give over the Create 2's 235 mm: the true one. */
    double turn = (s.right_encoder_counts - s.left_encoder_counts) * mm_per_count / 235.0;
    assert_true(fabs(bw_angle_diff(turn, b->pose.theta)) < 0.03);
    assert_true(s.stasis == 0 || s.stasis == BW_CREATE2_STASIS_TOGGLING);
    /* Stop: the OI off, the stream with it. */
    static const uint8_t stop[] = { BW_CREATE2_OP_STOP };
    send(&r, stop, 1);
    advance(&r, 0.05);
    r.nout = 0;
    advance(&r, 0.5);
    assert_int_equal(r.nout, 0);
    assert_true(fabs(b->v) < 1e-9 || fabs(b->cmd_left) < 1e-9);
    assert_int_equal(bw_create_device_unknown_packets(r.dev)[43], 0);
    bw_device_destroy(r.dev);
    /* A Create 1 asked the same: silence, counted by packet. */
    open_rig(&r);
    send(&r, go, sizeof go);
    static const uint8_t ask[] = { BW_CREATE_OP_SENSORS, 43, BW_CREATE_OP_SENSORS, 58 };
    send(&r, ask, sizeof ask);
    r.nout = 0;
    advance(&r, 0.5);
    assert_int_equal(r.nout, 0);
    const uint32_t *pk = bw_create_device_unknown_packets(r.dev);
    assert_int_equal(pk[43], 2);
    assert_int_equal(pk[44], 1);
    assert_int_equal(pk[58], 2);
    assert_int_equal(pk[7], 0);
    assert_int_equal(bw_device_stats(r.dev)->ignored_by_id[BW_CREATE_OP_STREAM], 1);
    assert_int_equal(bw_device_stats(r.dev)->ignored_by_id[BW_CREATE_OP_SENSORS], 2);
    /* Said once, in one line, when first asked; not again. */
    char line[256];
    int said = 0, all = 0;
    while (bw_device_next_notice(r.dev, line, sizeof line)) {
        said += strstr(line, "stream asks for packets 43, 44, 58, which a Create 1") != NULL;
        all += strstr(line, "does not have") != NULL;
    }
    assert_int_equal(said, 1);
    assert_int_equal(all, 1);
    bw_device_destroy(r.dev);
}

/* Packets asked with Query List, each one byte, into out. */
static void query(rig_t *r, const uint8_t *ids, uint8_t n, uint8_t *out)
{
    uint8_t ask[16] = { BW_CREATE_OP_QUERY_LIST, n };
    memcpy(ask + 2, ids, n);
    r->nout = 0;
    send(r, ask, (size_t)n + 2);
    advance(r, 0.03);
    assert_int_equal(r->nout, n);
    memcpy(out, r->out, n);
}

static void put(rig_t *r, double x, double y, double deg)
{
    assert_int_equal(bw_sim_place(bw_device_sim(r->dev), (bw_pose_t){ x, y, deg * BW_PI / 180 }), 0);
    advance(r, 0.03); /* the sensors, read again */
}

/* The Home Base (the built-in room's dock, at (4.9, 3.0) facing -x: its
 * left is -y): red buoy to its left, green to its right, both along its
 * axis, the force field within 0.61 m; the Create 1's codes 240 + red 8,
 * green 4, force field 2 (Create OI, packet 17), its virtual wall tripped
 * by the force field; the Create 2's 160 + red 8, green 4, force field 1
 * on the omni receiver and on each side one that faces the dock, 0 for
 * nothing (Roomba 600 OI, packets 17, 52, 53). */
static void test_home_base_ir(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r);
    static const uint8_t start = BW_CREATE_OP_START;
    send(&r, &start, 1);
    static const uint8_t ids[] = { BW_CREATE_PKT_INFRARED_BYTE, BW_CREATE_PKT_VIRTUAL_WALL };
    static const struct {
        double x, y, deg;
        uint8_t ir, wall;
    } c1[] = {
        { 3.9, 3.0, 0, BW_CREATE_IR_RED_GREEN_BUOY, 0 },  /* on the axis, 1 m out */
        { 3.9, 2.7, 0, BW_CREATE_IR_RED_BUOY, 0 },        /* the dock's left */
        { 3.9, 3.3, 90, BW_CREATE_IR_GREEN_BUOY, 0 },     /* its right; any heading */
        { 4.5, 3.0, 180, BW_CREATE_IR_RED_GREEN_BUOY_FORCE_FIELD, 1 },
        { 4.5, 3.4, 0, BW_CREATE_IR_GREEN_BUOY_FORCE_FIELD, 1 },
        { 4.5, 1.9, 0, BW_CREATE_IR_NONE, 0 },            /* beside it, past the lobe */
        { 1.0, 3.0, 0, BW_CREATE_IR_NONE, 0 },            /* 3.9 m out: past 8 ft */
    };
    for (size_t i = 0; i < sizeof c1 / sizeof c1[0]; i++) {
        uint8_t got[2];
        put(&r, c1[i].x, c1[i].y, c1[i].deg);
        query(&r, ids, 2, got);
        print_message("Create 1 at (%.1f, %.1f): IR %u, virtual wall %u\n", c1[i].x, c1[i].y,
                      got[0], got[1]);
        assert_int_equal(got[0], c1[i].ir);
        assert_int_equal(got[1], c1[i].wall);
    }
    /* A remote pressed: its character, over the dock's. */
    put(&r, 3.9, 3.0, 0);
    assert_int_equal(bw_create_device_remote(r.dev, BW_CREATE_IR_FORWARD), 0);
    uint8_t got[3];
    query(&r, ids, 1, got);
    assert_int_equal(got[0], BW_CREATE_IR_FORWARD);
    bw_device_destroy(r.dev);

    open_model(&r, "create2");
    send(&r, &start, 1);
    static const uint8_t ids2[] = { BW_CREATE_PKT_INFRARED_BYTE, BW_CREATE_PKT_INFRARED_LEFT,
                                    BW_CREATE_PKT_INFRARED_RIGHT };
    static const struct {
        double x, y, deg;
        uint8_t omni, left, right;
    } c2[] = {
        /* facing the dock: every receiver hears it */
        { 3.9, 3.0, 0, BW_CREATE2_IR_RED_GREEN_BUOY, BW_CREATE2_IR_RED_GREEN_BUOY,
          BW_CREATE2_IR_RED_GREEN_BUOY },
        /* the dock on its right (facing +y): the right receiver and the omni */
        { 3.9, 2.7, 90, BW_CREATE2_IR_RED_BUOY, BW_CREATE2_IR_NONE, BW_CREATE2_IR_RED_BUOY },
        /* on its left (facing -y) */
        { 3.9, 3.3, -90, BW_CREATE2_IR_GREEN_BUOY, BW_CREATE2_IR_GREEN_BUOY, BW_CREATE2_IR_NONE },
        /* behind it: the omni alone */
        { 4.5, 3.0, 180, BW_CREATE2_IR_RED_GREEN_BUOY_FORCE_FIELD, BW_CREATE2_IR_NONE,
          BW_CREATE2_IR_NONE },
        { 1.0, 3.0, 0, BW_CREATE2_IR_NONE, BW_CREATE2_IR_NONE, BW_CREATE2_IR_NONE },
    };
    for (size_t i = 0; i < sizeof c2 / sizeof c2[0]; i++) {
        put(&r, c2[i].x, c2[i].y, c2[i].deg);
        query(&r, ids2, 3, got);
        print_message("Create 2 at (%.1f, %.1f, %.0f deg): omni %u left %u right %u\n", c2[i].x,
                      c2[i].y, c2[i].deg, got[0], got[1], got[2]);
        assert_int_equal(got[0], c2[i].omni);
        assert_int_equal(got[1], c2[i].left);
        assert_int_equal(got[2], c2[i].right);
    }
    bw_device_destroy(r.dev);
}

/* Charging on the Home Base: in Passive, 900 mA into the pack (full from
 * empty in 3 hours), Full Charging then Trickle once full, the Home Base
 * among the charging sources (packet 34, bit 1); in Full not charging,
 * the sources the same; driven off, discharging in the next 20 ms. */
/* A model (NULL: a Create 1) in the built-in room, at `at` (NULL: on its
 * Home Base), its battery half full. */
static void open_in_room(rig_t *r, const char *model, const bw_pose_t *at)
{
    memset(r, 0, sizeof *r);
    char err[128];
    bw_device_options_t o;
    bw_device_options_init(&o);
    static bw_world_t w;
    bw_world_default(&w);
    o.world = &w;
    o.model = model;
    o.has_start = true;
    o.start = at ? *at : bw_dock_robot_pose(&w.docks[0], 0.17);
    o.has_battery = true;
    o.battery = 0.5;
    assert_int_equal(bw_device_create(&r->dev, "create", &o, 0.0, err, sizeof err), 0);
}

static void test_home_base_charging(void **state)
{
    (void)state;
    rig_t r;
    open_in_room(&r, NULL, NULL);
    assert_true(body(&r)->docked);
    static const uint8_t start = BW_CREATE_OP_START;
    send(&r, &start, 1);
    static const uint8_t ids[] = { BW_CREATE_PKT_CHARGING_STATE, BW_CREATE_PKT_CHARGING_SOURCES,
                                   BW_CREATE_PKT_CURRENT, BW_CREATE_PKT_BATTERY_CHARGE };
    uint8_t ask[] = { BW_CREATE_OP_QUERY_LIST, 4, ids[0], ids[1], ids[2], ids[3] };
    uint8_t out[6];
#define READ()                                                                                \
    do {                                                                                      \
        r.nout = 0;                                                                           \
        send(&r, ask, sizeof ask);                                                            \
        advance(&r, 0.03);                                                                    \
        assert_int_equal(r.nout, 6);                                                          \
        memcpy(out, r.out, 6);                                                                \
    } while (0)
    READ();
    assert_int_equal(out[0], BW_CREATE_CHARGING_FULL);
    assert_int_equal(out[1], BW_CREATE_SOURCE_HOME_BASE);
    assert_int_equal((int16_t)((out[2] << 8) | out[3]), 900);
    int charge0 = (out[4] << 8) | out[5];
    assert_true(abs(charge0 - 1350) <= 1);
    /* 30 minutes on the dock: 450 mAh more. */
    advance(&r, 1800);
    READ();
    int charge1 = (out[4] << 8) | out[5];
    print_message("Create 1 on the Home Base: %d mAh, 30 min later %d mAh\n", charge0, charge1);
    assert_true(abs(charge1 - charge0 - 450) <= 2);
    assert_int_equal(out[0], BW_CREATE_CHARGING_FULL);
    /* Full in 1.5 hours more: trickle, no current into it. */
    advance(&r, 1.5 * 3600 + 60);
    READ();
    assert_int_equal(out[0], BW_CREATE_CHARGING_TRICKLE);
    assert_int_equal((out[4] << 8) | out[5], 2700);
    /* Full mode: charging ends; the Home Base still there. */
    static const uint8_t full = BW_CREATE_OP_FULL;
    send(&r, &full, 1);
    READ();
    assert_int_equal(out[0], BW_CREATE_CHARGING_NOT);
    assert_int_equal(out[1], BW_CREATE_SOURCE_HOME_BASE);
    /* Driven off: discharging at once, the source gone. */
    uint8_t back[5];
    bw_create_encode_drive_direct(back, sizeof back, -200, -200);
    send(&r, back, sizeof back);
    advance(&r, 0.5);
    assert_false(body(&r)->docked);
    READ();
    assert_int_equal(out[0], BW_CREATE_CHARGING_NOT);
    assert_int_equal(out[1], 0);
    assert_true((int16_t)((out[2] << 8) | out[3]) < 0);
#undef READ
    bw_device_destroy(r.dev);
}

/* Runs the robot's own docking from `at` in the built-in room, its battery
 * half full: Start, then the command `cmd`, until the contacts touch or
 * `limit` seconds. The seconds it took, or -1. */
static double seek_from(const char *model, bw_pose_t at, const uint8_t *cmd, size_t n, double limit,
                        rig_t *r)
{
    open_in_room(r, model, &at);
    static const uint8_t start = BW_CREATE_OP_START;
    send(r, &start, 1);
    send(r, cmd, n);
    while (r->now < limit && !body(r)->docked)
        advance(r, 0.1), r->nout = 0;
    return body(r)->docked ? r->now : -1;
}

/* Seek Dock (a Create 2's 143) and Cover and Dock (a Create 1's 143, and
 * Demo 1): the robot docks itself on the built-in room's Home Base (4.9,
 * 3.0, facing -x; its left is -y) from ten poses within 2 m and 60 degrees
 * of its axis, facing anywhere, by the buoys its omnidirectional receiver
 * hears; it stops on the contacts and stays in Passive, charging. */
static void test_seek_dock(void **state)
{
    (void)state;
    static const struct {
        double x, y, deg;
    } at[10] = {
        { 3.9, 3.0, 0 },     { 3.2, 3.0, 180 },  { 3.5, 2.2, 90 },   { 3.5, 3.8, -90 },
        { 4.0, 2.0, 30 },    { 4.2, 3.6, 200 },  { 3.1, 2.6, -45 },  { 3.1, 3.5, 135 },
        { 4.3, 3.3, 0 },     { 3.0, 3.0, 270 },
    };
    static const uint8_t seek = BW_CREATE2_OP_SEEK_DOCK, cover_dock = BW_CREATE_OP_COVER_AND_DOCK;
    static const uint8_t demo1[] = { BW_CREATE_OP_DEMO, 1 };
    for (int m = 0; m < 3; m++) {
        const char *model = m == 0 ? "create2" : "create";
        const uint8_t *cmd = m == 0 ? &seek : m == 1 ? &cover_dock : demo1;
        size_t n = m == 2 ? 2 : 1;
        for (int i = 0; i < 10; i++) {
            rig_t r;
            bw_pose_t p = { at[i].x, at[i].y, at[i].deg * BW_PI / 180 };
            double took = seek_from(model, p, cmd, n, 300, &r);
            print_message("%s, %s from (%.1f, %.1f, %.0f deg): %s in %.1f s\n", model,
                          m == 0 ? "Seek Dock" : m == 1 ? "Cover and Dock" : "Demo 1", p.x, p.y,
                          at[i].deg, took >= 0 ? "docked" : "not docked", r.now);
            assert_true(took >= 0);
            /* on the contacts, standing, in Passive, charging */
            advance(&r, 1);
            assert_true(body(&r)->docked);
            assert_true(fabs(body(&r)->v) < 1e-6 && fabs(body(&r)->w) < 1e-6);
            static const uint8_t ask[] = { BW_CREATE_OP_QUERY_LIST, 3, BW_CREATE_PKT_OI_MODE,
                                           BW_CREATE_PKT_CHARGING_SOURCES,
                                           BW_CREATE_PKT_CHARGING_STATE };
            r.nout = 0;
            send(&r, ask, sizeof ask);
            advance(&r, 0.02);
            assert_int_equal(r.nout, 3);
            assert_int_equal(r.out[0], BW_CREATE_MODE_PASSIVE);
            assert_int_equal(r.out[1], BW_CREATE_SOURCE_HOME_BASE);
            assert_int_equal(r.out[2], BW_CREATE_CHARGING_FULL);
            bw_device_destroy(r.dev);
        }
    }
}

/* The host takes the robot back: Safe (or Full) stops the seeking robot at
 * once and it stays stopped; a Create 1's Demo -1 aborts it the same way. */
static void test_seek_dock_cancelled(void **state)
{
    (void)state;
    static const uint8_t seek = BW_CREATE2_OP_SEEK_DOCK, safe = BW_CREATE_OP_SAFE;
    rig_t r;
    (void)seek_from("create2", (bw_pose_t){ 3.0, 3.0, 1.0 }, &seek, 1, 1.0, &r);
    assert_true(fabs(body(&r)->cmd_left) + fabs(body(&r)->cmd_right) > 0.05); /* it drives itself */
    send(&r, &safe, 1);
    advance(&r, 0.005);
    assert_true(fabs(body(&r)->cmd_left) < 1e-9 && fabs(body(&r)->cmd_right) < 1e-9);
    advance(&r, 5);
    assert_true(fabs(body(&r)->v) < 1e-6);
    bw_device_destroy(r.dev);
    static const uint8_t demo1[] = { BW_CREATE_OP_DEMO, 1 }, abort_demo[] = { BW_CREATE_OP_DEMO, 0xFF };
    (void)seek_from("create", (bw_pose_t){ 3.0, 3.0, 1.0 }, demo1, 2, 1.0, &r);
    assert_true(fabs(body(&r)->cmd_left) + fabs(body(&r)->cmd_right) > 0.05);
    send(&r, abort_demo, 2);
    advance(&r, 0.005);
    assert_true(fabs(body(&r)->cmd_left) < 1e-9 && fabs(body(&r)->cmd_right) < 1e-9);
    bw_device_destroy(r.dev);
}

/* The counts are 16 bits and wrap: 32768 counts are 14.5 m of a wheel. */
static void test_create2_encoder_wrap(void **state)
{
    (void)state;
    rig_t r;
    open_model(&r, "create2");
    static const uint8_t go[] = { BW_CREATE_OP_START, BW_CREATE_OP_FULL };
    send(&r, go, sizeof go);
    uint8_t drive[5];
    /* In place, where no wall stops it: the left wheel backwards. */
    bw_create_encode_drive_direct(drive, sizeof drive, 500, -500);
    send(&r, drive, sizeof drive);
    static const uint8_t ask[] = { BW_CREATE_OP_QUERY_LIST, 1, BW_CREATE_PKT_LEFT_ENCODER_COUNTS };
    long unwrapped = 0;
    int16_t last = 0;
    double at = 0;
    for (int i = 0; i < 40; i++) { /* 40 s at 0.5 m/s: 20 m of wheel */
        advance(&r, 1.0);
        r.nout = 0;
        at = body(&r)->odo_left; /* where the wheel is as the query comes */
        send(&r, ask, sizeof ask);
        advance(&r, 0.005);
        assert_int_equal(r.nout, 2);
        int16_t c = (int16_t)(uint16_t)((r.out[0] << 8) | r.out[1]);
        unwrapped += (int16_t)(uint16_t)((uint16_t)c - (uint16_t)last);
        last = c;
    }
    assert_true(unwrapped < -32768);
    double mm = (double)unwrapped * BW_PI * 72.0 / 508.8;
    assert_true(fabs(mm - at * 1000) < 0.45); /* a count */
    bw_device_destroy(r.dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_truncated_counts),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_no_watchdog),
        cmocka_unit_test(test_create2_stream_encoders),
        cmocka_unit_test(test_create2_encoder_wrap),
        cmocka_unit_test(test_home_base_ir),
        cmocka_unit_test(test_home_base_charging),
        cmocka_unit_test(test_seek_dock),
        cmocka_unit_test(test_seek_dock_cancelled),
    };
    return cmocka_run_group_tests_name("the emulated Create", tests, NULL, NULL);
}
