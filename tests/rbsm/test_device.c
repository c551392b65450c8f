/* The emulated RoboBuggy alone, driven by raw RBSM messages in virtual time:
 * the circle a steering angle traces, the brake, the watchdog, the RC
 * switch, the encoder, bad input. */
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

typedef struct {
    bw_device_t *dev;
    double now;
    bw_rbsm_parser_t parser;
    /* The last value of every id the buggy sent, and how many of each. */
    uint32_t last[256];
    unsigned count[256];
    bw_rbsm_variant_t variant;
} rig_t;

static void open_rig(rig_t *r, const char *model)
{
    memset(r, 0, sizeof *r);
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.model = model;
    char err[128];
    assert_int_equal(bw_device_create(&r->dev, "rbsm", &o, 0.0, err, sizeof err), 0);
    bw_rbsm_parser_init(&r->parser);
    r->variant = model && strcmp(model, "deployed") == 0 ? BW_RBSM_VARIANT_DEPLOYED
                                                          : BW_RBSM_VARIANT_SEED;
}

static void send(rig_t *r, uint8_t id, uint32_t word)
{
    uint8_t m[6];
    assert_int_equal(bw_rbsm_encode(m, sizeof m, id, word), 6);
    bw_device_input(r->dev, m, sizeof m, r->now);
}

/* MEGA_COMMAND in the seed's layout. */
static void command(rig_t *r, double steer_deg, bool brake)
{
    bw_rbsm_msg_t m;
    assert_int_equal(bw_rbsm_command_from(r->variant, steer_deg * BW_PI / 180, brake, &m), 0);
    uint8_t b[6];
    assert_int_equal(bw_rbsm_encode_msg(b, sizeof b, &m), 6);
    bw_device_input(r->dev, b, sizeof b, r->now);
}

static void collect(rig_t *r)
{
    uint8_t buf[8192];
    size_t n;
    while ((n = bw_device_output(r->dev, buf, sizeof buf)) > 0) {
        const uint8_t *d = buf;
        bw_rbsm_frame_t f;
        while (bw_rbsm_parse(&r->parser, &d, &n, &f) > 0) {
            r->last[f.id] = f.word;
            r->count[f.id]++;
        }
    }
    assert_int_equal(r->parser.stats.skipped_bytes + r->parser.stats.length_errors, 0);
}

static void advance(rig_t *r, double s)
{
    for (double end = r->now + s; r->now < end - 1e-9;) {
        r->now = fmin(end, r->now + 0.005);
        bw_device_step(r->dev, r->now);
        collect(r);
    }
}

/* Keeps commanding for s seconds, every 50 ms. */
static void hold(rig_t *r, double steer_deg, bool brake, double s)
{
    for (double end = r->now + s; r->now < end - 1e-9;) {
        command(r, steer_deg, brake);
        advance(r, 0.05);
    }
}

static const bw_body_t *body(rig_t *r) { return &bw_device_sim(r->dev)->body; }

/* Released, the buggy is pushed off; 10 degrees of steering traces a
 * circle of wheelbase / tan(10 degrees) = 6.41 m, within 2 %. */
static void test_circle(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    hold(&r, 10, false, 3);
    assert_true(body(&r)->v > 2.5);
    double xs[400], ys[400];
    size_t n = 0;
    while (n < 400) {
        hold(&r, 10, false, 0.05);
        xs[n] = body(&r)->pose.x;
        ys[n++] = body(&r)->pose.y;
    }
    double want = BW_RBSM_WHEELBASE_M / tan(10 * BW_PI / 180), got = run_fit_radius(xs, ys, n);
    print_message("circle at 10 degrees: radius %.3f m (wheelbase / tan: %.3f m)\n", got, want);
    assert_true(fabs(got - want) / want < 0.02);
    /* The Mega says what it was told and what the servo did. */
    assert_int_equal((int32_t)r.last[BW_RBSM_MID_MEGA_STEER_ANGLE], 10000);
    assert_int_equal((int32_t)r.last[BW_RBSM_MID_MEGA_STEER_FEEDBACK], 10000);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 1); /* seed: !0 released */
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_AUTON_STATE], 1);
    bw_device_destroy(r.dev);
}

/* The brake stops it: from the push speed in under a second and a half. */
static void test_brake(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    hold(&r, 0, false, 3);
    double v0 = body(&r)->v;
    assert_true(v0 > 2.5);
    hold(&r, 0, true, 1.0);
    assert_true(body(&r)->v < 1e-9);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 0); /* seed: 0 engaged */
    hold(&r, 0, true, 1.0);
    assert_true(body(&r)->v < 1e-9);
    bw_device_destroy(r.dev);
}

/* One command, then silence: 1 s later the brake drops, and the error word
 * says the host was lost; the brake stays down until the host puts it down. */
static void test_watchdog(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    hold(&r, 0, false, 2);
    double last_cmd = r.now - 0.05; /* hold sent its last one a step ago */
    while (r.last[BW_RBSM_MID_MEGA_BRAKE_STATE] != 0 && r.now < last_cmd + 3)
        advance(&r, 0.005);
    print_message("brake dropped %.3f s after the last command\n", r.now - last_cmd);
    assert_true(r.now - last_cmd >= 0.999 && r.now - last_cmd <= 1.06);
    assert_true(r.last[BW_RBSM_MID_ERROR] & BW_RBSM_ERR_AUTON_LOST);
    const char *notice = NULL;
    char line[200];
    while (bw_device_next_notice(r.dev, line, sizeof line))
        notice = line;
    assert_non_null(notice);
    /* Commands again, still asking to roll: the brake stays down. */
    hold(&r, 0, false, 1);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 0);
    /* The host puts the brake down itself: armed again. */
    hold(&r, 0, true, 0.2);
    hold(&r, 0, false, 0.5);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 1);
    assert_false(r.last[BW_RBSM_MID_ERROR] & BW_RBSM_ERR_AUTON_LOST);
    bw_device_destroy(r.dev);
}

/* The RC switch: the operator steers (centre) and the host's commands are
 * read but not obeyed; auton state 0. */
static void test_rc(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    hold(&r, 12, false, 1);
    assert_int_equal(bw_rbsm_device_rc(r.dev, true, false), 0);
    hold(&r, 12, true, 1);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_AUTON_STATE], 0);
    assert_int_equal((int32_t)r.last[BW_RBSM_MID_MEGA_STEER_FEEDBACK], 0);
    assert_true(body(&r)->v > 2); /* the host's brake is not obeyed */
    assert_int_equal(bw_rbsm_device_rc(r.dev, false, false), 0);
    hold(&r, 12, true, 1);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_AUTON_STATE], 1);
    assert_true(body(&r)->v < 1e-9);
    assert_int_equal(bw_rbsm_device_rc(NULL, true, true), BW_EINVAL);
    bw_device_destroy(r.dev);
}

/* The encoder: ticks since reset match the distance rolled, one per 87 mm
 * (RoboBuggy's own figures, written here, not taken from the header: 7
 * ticks a turn of a wheel that rolls 0.61 m); ticks since the last message
 * add up to them; a reset request is confirmed and starts the count again. */
static void test_encoder(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    hold(&r, 0, false, 4);
    double rolled = bw_device_sim(r.dev)->travelled;
    uint32_t ticks = r.last[BW_RBSM_MID_ENC_TICKS_RESET];
    assert_int_equal(ticks, (uint32_t)(rolled / (0.61 / 7)));
    assert_true(r.count[BW_RBSM_MID_ENC_TICKS_LAST] >= 395);
    assert_int_equal(r.last[BW_RBSM_MID_DEVICE_ID], BW_RBSM_DID_DRIVE_ENCODER);
    assert_true(r.count[BW_RBSM_MID_DEVICE_ID] >= 2 * 395); /* both devices, every loop */
    assert_true(fabs(r.last[BW_RBSM_MID_ENC_TIMESTAMP] - r.now * 1000) <= 10);
    send(&r, BW_RBSM_MID_ENC_RESET_REQUEST, 0);
    advance(&r, 0.02);
    assert_int_equal(r.count[BW_RBSM_MID_ENC_RESET_CONFIRM], 1);
    assert_true(r.last[BW_RBSM_MID_ENC_TICKS_RESET] <= 1);
    assert_true(fabs(r.last[BW_RBSM_MID_MEGA_BATTERY_LEVEL] - 12600.0) < 50);
    bw_device_destroy(r.dev);
}

/* Garbage and an id nobody defined: the error word says so, and counts. */
static void test_bad_input(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL);
    hold(&r, 0, true, 0.2);
    static const uint8_t junk[] = { 0x13, 0x00, 0x0A, 0x55, 0x13, 0x01, 0x02, 0x03 };
    bw_device_input(r.dev, junk, sizeof junk, r.now);
    advance(&r, 0.2);
    send(&r, 99, 7);
    advance(&r, 0.2);
    assert_true(r.last[BW_RBSM_MID_ERROR] & BW_RBSM_ERR_INVALID_MID);
    const bw_device_stats_t *st = bw_device_stats(r.dev);
    assert_int_equal(st->unknown_by_id[99], 1);
    assert_true(st->link.skipped_bytes > 0);
    hold(&r, 0, true, 0.2); /* good commands clear the stream bits */
    assert_false(r.last[BW_RBSM_MID_ERROR] & (BW_RBSM_ERR_INVALID_MID | BW_RBSM_ERR_LOST_STREAM));
    bw_device_destroy(r.dev);
}

/* Collects the stamps (id 253) and the ids of every loop a run sends. */
typedef struct {
    uint32_t ms[512];
    size_t n;
    unsigned ids[256];
} loops_t;

static void advance_loops(rig_t *r, double s, loops_t *l)
{
    for (double end = r->now + s; r->now < end - 1e-9;) {
        r->now = fmin(end, r->now + 0.005);
        bw_device_step(r->dev, r->now);
        uint8_t buf[8192];
        size_t n;
        while ((n = bw_device_output(r->dev, buf, sizeof buf)) > 0) {
            const uint8_t *d = buf;
            bw_rbsm_frame_t f;
            while (bw_rbsm_parse(&r->parser, &d, &n, &f) > 0) {
                r->last[f.id] = f.word;
                r->count[f.id]++;
                l->ids[f.id]++;
                if (f.id == BW_RBSM_MID_DEVICE_ID && f.word != BW_RBSM_DID_MEGA)
                    fail_msg("device id %lu", (unsigned long)f.word);
                if (f.id == BW_RBSM_MID_MEGA_TIMESTAMP && l->n < 512)
                    l->ms[l->n++] = f.word;
            }
        }
    }
}

/* The deployed dialect, as the RoboBuggy repository's Mega firmware is (a
 * regression test: the emulator sent the seed's encoder messages, 0, 2 and
 * device id 1, its own ids every tenth loop, steered left for a positive
 * word, and looped every 10 ms whatever its line could carry). */
static void test_deployed(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, "deployed");
    loops_t l;
    memset(&l, 0, sizeof l);
    for (int i = 0; i < 60; i++) {
        send(&r, BW_RBSM_MID_MEGA_COMMAND, 1500); /* 13 00 00 05 dc 0a: 15 degrees right */
        send(&r, BW_RBSM_MID_BRAKE_COMMAND, 0);
        advance_loops(&r, 0.05, &l);
    }
    assert_int_equal((int32_t)r.last[BW_RBSM_MID_MEGA_STEER_FEEDBACK], 1500);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 0); /* released */
    assert_true(body(&r)->v > 1);
    print_message("deployed, 19 = +1500: w %.3f rad/s\n", body(&r)->w);
    assert_true(body(&r)->w < -0.3); /* to the right: clockwise */
    /* The ids of every loop, and none other: 20, 21, 255 (0), 17, 18, 22,
     * 23, 24, 1, 253, 30, 254; never 0 or 2. */
    static const uint8_t every[] = { 20, 21, 255, 17, 18, 22, 23, 24, 1, 253, 30, 254 };
    for (unsigned id = 0; id < 256; id++) {
        bool want = memchr(every, (int)id, sizeof every) != NULL;
        if (want)
            assert_true(l.ids[id] + 1 >= l.n && l.ids[id] <= l.n + 1);
        else if (id != BW_RBSM_MID_ENC_RESET_CONFIRM)
            assert_int_equal(l.ids[id], 0);
    }
    /* The loop at the line's pace: 72 bytes at 57600 baud, 12.5 ms, once
     * the 128-byte ring has filled (the first loops every 10 ms). */
    assert_true(l.n > 200);
    double late = (double)(l.ms[l.n - 1] - l.ms[l.n - 101]) / 100;
    print_message("deployed loop: %u %u %u ... last 100 every %.2f ms\n", l.ms[0], l.ms[1],
                  l.ms[2], late);
    assert_int_equal(l.ms[1] - l.ms[0], 10);
    assert_true(fabs(late - 12.5) < 0.05);
    /* The host's steering angle and brake state ids are invalid ones for
     * it: not obeyed, the invalid-id bit set until the next good command. */
    send(&r, BW_RBSM_MID_MEGA_BRAKE_STATE, 1);
    advance_loops(&r, 0.02, &l);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 0);
    assert_true(r.last[BW_RBSM_MID_ERROR] & BW_RBSM_ERR_INVALID_MID);
    send(&r, BW_RBSM_MID_BRAKE_COMMAND, 0);
    send(&r, BW_RBSM_MID_MEGA_COMMAND, 1500);
    advance_loops(&r, 0.02, &l);
    assert_false(r.last[BW_RBSM_MID_ERROR] & BW_RBSM_ERR_INVALID_MID);
    /* A host gone a second: the brake drops, auton-lost; back, the emulated
     * operator re-arms the brake and the host's release holds again. */
    advance_loops(&r, 1.2, &l);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 1);
    assert_true(r.last[BW_RBSM_MID_ERROR] & BW_RBSM_ERR_AUTON_LOST);
    for (int i = 0; i < 4; i++) {
        send(&r, BW_RBSM_MID_MEGA_COMMAND, 0);
        send(&r, BW_RBSM_MID_BRAKE_COMMAND, 0);
        advance_loops(&r, 0.05, &l);
    }
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 0);
    assert_int_equal(r.last[BW_RBSM_MID_ERROR], 0);
    /* With the RC taken over by a caller, nobody re-arms it. */
    bw_rbsm_device_rc(r.dev, false, false);
    advance_loops(&r, 1.2, &l);
    for (int i = 0; i < 10; i++) {
        send(&r, BW_RBSM_MID_MEGA_COMMAND, 0);
        send(&r, BW_RBSM_MID_BRAKE_COMMAND, 0);
        advance_loops(&r, 0.05, &l);
    }
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 1);
    bw_rbsm_device_rc(r.dev, false, true); /* the operator's brake, down... */
    send(&r, BW_RBSM_MID_MEGA_COMMAND, 0);
    send(&r, BW_RBSM_MID_BRAKE_COMMAND, 0);
    advance_loops(&r, 0.03, &l);
    bw_rbsm_device_rc(r.dev, false, false); /* ...and up */
    send(&r, BW_RBSM_MID_MEGA_COMMAND, 0);
    send(&r, BW_RBSM_MID_BRAKE_COMMAND, 0);
    advance_loops(&r, 0.03, &l);
    assert_int_equal(r.last[BW_RBSM_MID_MEGA_BRAKE_STATE], 0);
    bw_device_destroy(r.dev);
    bw_device_t *d;
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.model = "nixie";
    char err[128];
    assert_int_equal(bw_device_create(&d, "rbsm", &o, 0, err, sizeof err), BW_EUNKNOWN);
    assert_non_null(strstr(err, "seed, deployed"));
}

/* The deployed Mega on a paced line: its putc waits for the line, so its
 * loop is the line's pace at 57600 (12.5 ms, nothing dropped) and its own
 * 10 ms where the line carries more (a regression test: the loop was paced
 * at 57600 whatever rate the line ran at). */
static double paced_loop(int baud, uint64_t *overrun)
{
    rig_t r;
    memset(&r, 0, sizeof r);
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.model = "deployed";
    o.baud = baud;
    char err[128];
    assert_int_equal(bw_device_create(&r.dev, "rbsm", &o, 0.0, err, sizeof err), 0);
    bw_rbsm_parser_init(&r.parser);
    r.variant = BW_RBSM_VARIANT_DEPLOYED;
    loops_t l;
    memset(&l, 0, sizeof l);
    for (int i = 0; i < 40; i++) {
        send(&r, BW_RBSM_MID_MEGA_COMMAND, 0);
        send(&r, BW_RBSM_MID_BRAKE_COMMAND, 0);
        advance_loops(&r, 0.05, &l);
    }
    assert_true(l.n > 101);
    bw_device_line_t line;
    bw_device_line(r.dev, &line);
    assert_int_equal(line.baud, baud);
    *overrun = line.out_overrun;
    double every = (double)(l.ms[l.n - 1] - l.ms[l.n - 101]) / 100;
    bw_device_destroy(r.dev);
    return every;
}

static void test_deployed_paced(void **state)
{
    (void)state;
    uint64_t overrun;
    double at57600 = paced_loop(BW_RBSM_DEPLOYED_BAUD, &overrun);
    print_message("deployed on a 57600 line: a loop every %.2f ms, %llu bytes dropped\n", at57600,
                  (unsigned long long)overrun);
    assert_true(fabs(at57600 - 12.5) < 0.05);
    assert_int_equal(overrun, 0);
    double at115200 = paced_loop(115200, &overrun);
    print_message("deployed on a 115200 line: a loop every %.2f ms\n", at115200);
    assert_true(fabs(at115200 - 10) < 0.05);
    assert_int_equal(overrun, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_circle),   cmocka_unit_test(test_brake),
        cmocka_unit_test(test_watchdog), cmocka_unit_test(test_rc),
        cmocka_unit_test(test_encoder),  cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_deployed), cmocka_unit_test(test_deployed_paced),
    };
    return cmocka_run_group_tests_name("the emulated RoboBuggy", tests, NULL, NULL);
}
