/* The Mega's program (program.c), alone: commands, the watchdog, RC, the
 * telemetry's bytes, the encoder reset. The emulator's tests run it inside
 * the buggy; the firmware test runs it in a simulated ATmega2560. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/rbsm.h"

static int cmd(bw_rbsm_mega_t *m, uint8_t id, uint32_t word, uint32_t now, size_t *nanswer)
{
    bw_rbsm_frame_t f = { id, word };
    uint8_t tx[BW_RBSM_MSG_LEN];
    size_t n;
    int rc = bw_rbsm_mega_command(m, &f, now, tx, sizeof tx, &n);
    if (nanswer)
        *nanswer = n;
    return rc;
}

/* The messages of one report, as (id, word) pairs. */
typedef struct {
    size_t n;
    uint8_t id[16];
    uint32_t word[16];
} report_t;

static report_t report(bw_rbsm_mega_t *m, uint32_t now, const bw_rbsm_mega_inputs_t *in)
{
    uint8_t tx[BW_RBSM_MEGA_REPORT_MAX];
    size_t n = bw_rbsm_mega_report(m, now, in, tx, sizeof tx);
    assert_int_equal(n % BW_RBSM_MSG_LEN, 0);
    report_t r = { 0 };
    bw_rbsm_parser_t p;
    bw_rbsm_parser_init(&p);
    const uint8_t *d = tx;
    bw_rbsm_frame_t f;
    while (bw_rbsm_parse(&p, &d, &n, &f) == 1) {
        r.id[r.n] = f.id;
        r.word[r.n++] = f.word;
    }
    assert_int_equal(p.stats.skipped_bytes, 0);
    return r;
}

static uint32_t word_of(const report_t *r, uint8_t id, int nth)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->id[i] == id && nth-- == 0)
            return r->word[i];
    fail_msg("no message %u in the report", id);
    return 0;
}

static bool has(const report_t *r, uint8_t id)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->id[i] == id)
            return true;
    return false;
}

static void test_commands_and_clamp(void **state)
{
    (void)state;
    bw_rbsm_mega_t m;
    bw_rbsm_mega_init(&m, false, 0);
    assert_true(bw_rbsm_mega_brake_down(&m)); /* standing braked */
    assert_int_equal(bw_rbsm_mega_steer_target(&m), 0);
    /* the seed's mega_command: 5 degrees (thousandths), brake released (!0) */
    assert_int_equal(cmd(&m, BW_RBSM_MID_MEGA_COMMAND, bw_rbsm_command_word(5000, 1, 0), 10, NULL), 1);
    assert_int_equal(bw_rbsm_mega_steer_target(&m), 5000);
    assert_false(bw_rbsm_mega_brake_down(&m));
    /* beyond the limit: clamped to 15 degrees either way */
    cmd(&m, BW_RBSM_MID_MEGA_STEER_ANGLE, (uint32_t)-40000, 20, NULL);
    assert_int_equal(bw_rbsm_mega_steer_target(&m), -15000);
    cmd(&m, BW_RBSM_MID_MEGA_STEER_ANGLE, 0x7fffffffu, 30, NULL);
    assert_int_equal(bw_rbsm_mega_steer_target(&m), 15000);
    /* brake down by brake_command 0 (seed: 0 = engaged) */
    cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 0, 40, NULL);
    assert_true(bw_rbsm_mega_brake_down(&m));
    /* not for the Mega: ignored; not of the protocol: invalid, error bit */
    assert_int_equal(cmd(&m, BW_RBSM_MID_LIGHTING, 7, 50, NULL), 0);
    assert_int_equal(cmd(&m, 99, 7, 50, NULL), BW_EUNKNOWN);
    assert_true(m.errors & BW_RBSM_ERR_INVALID_MID);
    bw_rbsm_mega_stream_error(&m);
    assert_true(m.errors & BW_RBSM_ERR_LOST_STREAM);
    /* a good command clears both */
    cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 0, 60, NULL);
    assert_int_equal(m.errors & (BW_RBSM_ERR_INVALID_MID | BW_RBSM_ERR_LOST_STREAM), 0);
}

/* The deployed firmware's dialect, as radio_buggy_mega/main.cpp is (a
 * regression test: the program read the seed's ids in the deployed
 * dialect, sent 0, 2 and device id 1, sent its own ids only every tenth
 * loop, and let the host re-arm the brake). */
static void test_deployed_dialect(void **state)
{
    (void)state;
    bw_rbsm_mega_t m;
    bw_rbsm_mega_init(&m, true, 0);
    /* Power-up: the brake needs the operator's re-arming, whatever the
     * host says. */
    assert_int_equal(cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 0, 5, NULL), 1);
    assert_false(bw_rbsm_mega_watch(&m, 10, false, false));
    assert_true(bw_rbsm_mega_brake_down(&m));
    bw_rbsm_mega_watch(&m, 20, false, true); /* the operator's brake: armed... */
    assert_true(bw_rbsm_mega_brake_down(&m)); /* ...and down while held */
    bw_rbsm_mega_watch(&m, 30, false, false);
    assert_false(bw_rbsm_mega_brake_down(&m));
    /* id 19: a steering word in hundredths to the right, kept as an AVR
     * int (16 bits), clamped to +-1500 at the servo only. */
    assert_int_equal(cmd(&m, BW_RBSM_MID_MEGA_COMMAND, (uint32_t)-700, 30, NULL), 1);
    assert_int_equal(bw_rbsm_mega_steer_target(&m), -700);
    assert_false(bw_rbsm_mega_brake_down(&m)); /* id 19 leaves the brake alone */
    cmd(&m, BW_RBSM_MID_MEGA_COMMAND, 0x00010000u + 1800u, 30, NULL);
    assert_int_equal(m.steer_cmd, 1800);
    assert_int_equal(bw_rbsm_mega_steer_target(&m), 1500);
    /* 18: !0 engaged. */
    cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 7, 30, NULL);
    assert_true(bw_rbsm_mega_brake_down(&m));
    cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 0, 30, NULL);
    assert_false(bw_rbsm_mega_brake_down(&m));
    /* Every other id is an invalid one for it, the seed's commands too;
     * the next complete message clears the bit first. */
    assert_int_equal(cmd(&m, BW_RBSM_MID_MEGA_STEER_ANGLE, 100, 30, NULL), 0);
    assert_true(m.errors & BW_RBSM_ERR_INVALID_MID);
    assert_int_equal(bw_rbsm_mega_steer_target(&m), 1500); /* not obeyed */
    assert_int_equal(cmd(&m, BW_RBSM_MID_MEGA_BRAKE_STATE, 1, 30, NULL), 0);
    assert_false(bw_rbsm_mega_brake_down(&m));
    assert_int_equal(cmd(&m, 99, 0, 30, NULL), BW_EUNKNOWN);
    bw_rbsm_mega_stream_error(&m);
    cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 0, 30, NULL);
    assert_int_equal(m.errors & (BW_RBSM_ERR_INVALID_MID | BW_RBSM_ERR_LOST_STREAM), 0);
    /* Every loop: the twelve, in the firmware's order. */
    static const uint8_t order[12] = { 20, 21, 255, 17, 18, 22, 23, 24, 1, 253, 30, 254 };
    bw_rbsm_mega_inputs_t in = { -250, 12000, 40 };
    for (uint32_t k = 4; k < 30; k++) {
        bw_rbsm_mega_watch(&m, k * 10, false, false);
        report_t r = report(&m, k * 10, &in);
        assert_int_equal(r.n, 12);
        assert_memory_equal(r.id, order, 12);
        assert_int_equal(word_of(&r, BW_RBSM_MID_DEVICE_ID, 0), BW_RBSM_DID_MEGA);
        assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_TIMESTAMP, 0), k * 10);
        assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_FIRMWARE_HASH, 0), BW_RBSM_MEGA_FIRMWARE_HASH);
        assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_BRAKE_STATE, 0), 0); /* released: 0 */
        assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_STEER_ANGLE, 0), 1800); /* unclamped */
        assert_int_equal((int32_t)word_of(&r, BW_RBSM_MID_MEGA_STEER_FEEDBACK, 0), -250);
        assert_int_equal(word_of(&r, BW_RBSM_MID_ENC_TICKS_RESET, 0), 40);
        assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_AUTON_STATE, 0), 1);
        assert_int_equal(word_of(&r, BW_RBSM_MID_ERROR, 0), 0);
    }
    /* The encoder reset: confirmed at once, the count from 0 at the next
     * loop. */
    size_t n;
    assert_int_equal(cmd(&m, BW_RBSM_MID_ENC_RESET_REQUEST, 1, 300, &n), 1);
    assert_int_equal(n, BW_RBSM_MSG_LEN);
    in.enc_ticks = 45;
    report_t r = report(&m, 300, &in);
    assert_int_equal(word_of(&r, BW_RBSM_MID_ENC_TICKS_RESET, 0), 0);
    /* The watchdog: a second without the steering word (the brake
     * command still coming) drops the brake and sets auton-lost; commands
     * again clear the bit but not the brake; the operator's brake re-arms. */
    for (uint32_t t = 300; t <= 1030; t += 10)
        cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 0, t, NULL);
    assert_false(bw_rbsm_mega_watch(&m, 1030, false, false)); /* 19 at 30: 1000 ms exactly */
    cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 0, 1031, NULL);
    assert_true(bw_rbsm_mega_watch(&m, 1031, false, false));
    assert_true(bw_rbsm_mega_brake_down(&m));
    assert_true(m.errors & BW_RBSM_ERR_AUTON_LOST);
    for (uint32_t t = 1040; t <= 1300; t += 10)
        cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 0, t, NULL);
    assert_false(bw_rbsm_mega_watch(&m, 1040, false, true)); /* the operator, too early */
    cmd(&m, BW_RBSM_MID_MEGA_COMMAND, 0, 1300, NULL);
    bw_rbsm_mega_watch(&m, 1310, false, false);
    assert_false(m.errors & BW_RBSM_ERR_AUTON_LOST);
    assert_true(bw_rbsm_mega_brake_down(&m)); /* still needs the operator */
    bw_rbsm_mega_watch(&m, 1320, false, true);
    bw_rbsm_mega_watch(&m, 1330, false, false);
    assert_false(bw_rbsm_mega_brake_down(&m));
    /* RC: the host's brake no longer counts, the operator's does; no
     * watchdog; the steering centred, reported 0, mode 0. */
    cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 1, 1330, NULL);
    bw_rbsm_mega_watch(&m, 5000, true, false);
    assert_false(bw_rbsm_mega_brake_down(&m));
    assert_int_equal(bw_rbsm_mega_steer_target(&m), 0);
    r = report(&m, 5000, &in);
    assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_STEER_ANGLE, 0), 0);
    assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_AUTON_STATE, 0), 0);
    assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND, 0), 0);
    assert_int_equal(word_of(&r, BW_RBSM_MID_BRAKE_COMMAND, 0), 1);
    /* The operator's brake holds in autonomous mode too. */
    cmd(&m, BW_RBSM_MID_BRAKE_COMMAND, 0, 5000, NULL);
    cmd(&m, BW_RBSM_MID_MEGA_COMMAND, 0, 5000, NULL);
    bw_rbsm_mega_watch(&m, 5010, false, true);
    assert_true(bw_rbsm_mega_brake_down(&m));
}

static void test_watchdog(void **state)
{
    (void)state;
    bw_rbsm_mega_t m;
    bw_rbsm_mega_init(&m, false, 0);
    cmd(&m, BW_RBSM_MID_MEGA_COMMAND, bw_rbsm_command_word(0, 1, 0), 0, NULL); /* released */
    assert_false(bw_rbsm_mega_watch(&m, 1000, false, false)); /* a second exactly: still fine */
    assert_false(bw_rbsm_mega_brake_down(&m));
    assert_true(bw_rbsm_mega_watch(&m, 1001, false, false)); /* fires once */
    assert_true(bw_rbsm_mega_brake_down(&m));
    assert_true(m.errors & BW_RBSM_ERR_AUTON_LOST);
    assert_false(bw_rbsm_mega_watch(&m, 1010, false, false));
    /* commands again, but released: the brake stays down until the host
     * puts it down itself */
    cmd(&m, BW_RBSM_MID_MEGA_COMMAND, bw_rbsm_command_word(0, 1, 0), 1020, NULL);
    bw_rbsm_mega_watch(&m, 1030, false, false);
    assert_true(bw_rbsm_mega_brake_down(&m));
    cmd(&m, BW_RBSM_MID_MEGA_COMMAND, bw_rbsm_command_word(0, 0, 0), 1040, NULL); /* down */
    cmd(&m, BW_RBSM_MID_MEGA_COMMAND, bw_rbsm_command_word(0, 1, 0), 1050, NULL); /* released */
    bw_rbsm_mega_watch(&m, 1060, false, false);
    assert_false(bw_rbsm_mega_brake_down(&m));
    assert_int_equal(m.errors & BW_RBSM_ERR_AUTON_LOST, 0);
    /* the clock wraps: a command just before 2^32 ms and a loop just after */
    bw_rbsm_mega_init(&m, false, 0xfffffff0u);
    assert_false(bw_rbsm_mega_watch(&m, 0x10u, false, false));
}

static void test_rc(void **state)
{
    (void)state;
    bw_rbsm_mega_t m;
    bw_rbsm_mega_init(&m, false, 0);
    cmd(&m, BW_RBSM_MID_MEGA_COMMAND, bw_rbsm_command_word(8000, 1, 0), 0, NULL);
    /* the operator drives: the steering centres, the brake is the operator's,
     * no watchdog however long the host is silent */
    assert_false(bw_rbsm_mega_watch(&m, 5000, true, false));
    assert_int_equal(bw_rbsm_mega_steer_target(&m), 0);
    assert_false(bw_rbsm_mega_brake_down(&m));
    bw_rbsm_mega_watch(&m, 5010, true, true);
    assert_true(bw_rbsm_mega_brake_down(&m));
    bw_rbsm_mega_inputs_t in = { 123, 12600, 0 };
    report_t r = report(&m, 5010, &in);
    assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_AUTON_STATE, 0), 0);
    assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_STEER_ANGLE, 0), 0);
    assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_STEER_FEEDBACK, 0), 123);
    assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_BRAKE_STATE, 0), 0); /* seed: 0 = engaged */
}

static void test_report_and_encoder(void **state)
{
    (void)state;
    bw_rbsm_mega_t m;
    bw_rbsm_mega_init(&m, false, 0);
    bw_rbsm_mega_inputs_t in = { -250, 12345, 1000 };
    /* the first loop: the fast messages only (the error word, 0, is as
     * sent; battery and error wait for the tenth loop) */
    report_t r = report(&m, 10, &in);
    static const uint8_t fast[] = {
        BW_RBSM_MID_DEVICE_ID,      BW_RBSM_MID_MEGA_STEER_ANGLE, BW_RBSM_MID_MEGA_STEER_FEEDBACK,
        BW_RBSM_MID_MEGA_BRAKE_STATE, BW_RBSM_MID_MEGA_AUTON_STATE, BW_RBSM_MID_DEVICE_ID,
        BW_RBSM_MID_ENC_TICKS_LAST, BW_RBSM_MID_ENC_TICKS_RESET,  BW_RBSM_MID_ENC_TIMESTAMP,
    };
    assert_int_equal(r.n, sizeof fast);
    assert_memory_equal(r.id, fast, sizeof fast);
    assert_int_equal(word_of(&r, BW_RBSM_MID_DEVICE_ID, 0), BW_RBSM_DID_MEGA);
    assert_int_equal(word_of(&r, BW_RBSM_MID_DEVICE_ID, 1), BW_RBSM_DID_DRIVE_ENCODER);
    assert_int_equal((int32_t)word_of(&r, BW_RBSM_MID_MEGA_STEER_FEEDBACK, 0), -250);
    assert_int_equal(word_of(&r, BW_RBSM_MID_ENC_TICKS_RESET, 0), 1000); /* since power-up */
    assert_int_equal(word_of(&r, BW_RBSM_MID_ENC_TICKS_LAST, 0), 1000);
    assert_int_equal(word_of(&r, BW_RBSM_MID_ENC_TIMESTAMP, 0), 10);
    in.enc_ticks = 1007;
    r = report(&m, 20, &in);
    assert_int_equal(word_of(&r, BW_RBSM_MID_ENC_TICKS_LAST, 0), 7);
    /* a reset request: confirmed at once, counted from the next report */
    size_t n;
    assert_int_equal(cmd(&m, BW_RBSM_MID_ENC_RESET_REQUEST, 0, 25, &n), 1);
    assert_int_equal(n, BW_RBSM_MSG_LEN);
    in.enc_ticks = 1010;
    r = report(&m, 30, &in);
    assert_int_equal(word_of(&r, BW_RBSM_MID_ENC_TICKS_RESET, 0), 0);
    assert_int_equal(word_of(&r, BW_RBSM_MID_ENC_TICKS_LAST, 0), 0);
    in.enc_ticks = 1013;
    r = report(&m, 40, &in);
    assert_int_equal(word_of(&r, BW_RBSM_MID_ENC_TICKS_RESET, 0), 3);
    /* a changed error word goes out at once, with the battery */
    cmd(&m, 99, 0, 45, NULL);
    r = report(&m, 50, &in);
    assert_int_equal(word_of(&r, BW_RBSM_MID_ERROR, 0), BW_RBSM_ERR_INVALID_MID);
    assert_int_equal(word_of(&r, BW_RBSM_MID_MEGA_BATTERY_LEVEL, 0), 12345);
    /* and not again until the tenth loop */
    r = report(&m, 60, &in);
    assert_false(has(&r, BW_RBSM_MID_ERROR));
    for (uint32_t t = 70; t <= 90; t += 10)
        r = report(&m, t, &in);
    assert_false(has(&r, BW_RBSM_MID_ERROR));
    r = report(&m, 100, &in);
    assert_true(has(&r, BW_RBSM_MID_ERROR));
    assert_false(has(&r, BW_RBSM_MID_MEGA_FIRMWARE_HASH)); /* the seed's dialect has none */
    /* a buffer too small takes whole messages only */
    uint8_t small[20];
    assert_int_equal(bw_rbsm_mega_report(&m, 110, &in, small, sizeof small), 3 * BW_RBSM_MSG_LEN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commands_and_clamp), cmocka_unit_test(test_deployed_dialect),
        cmocka_unit_test(test_watchdog),           cmocka_unit_test(test_rc),
        cmocka_unit_test(test_report_and_encoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
