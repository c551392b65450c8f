/* The Create's own program (program.c), alone: the OI's modes and what
 * each command does in each, Drive's radius rules in integers, the stream's
 * schedule, replies with distance and angle read and reset, Safe mode's
 * stop, a Create 2's Reset. The emulator's tests run
 * it inside the simulated robot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/create.h"

static bw_create_cmd_t cmd2(uint8_t op)
{
    bw_create_cmd_t c;
    bw_create_model_cmd_init(&c, BW_CREATE_MODEL_2, op);
    return c;
}

static bw_create_cmd_t drive(int16_t v, int16_t r)
{
    bw_create_cmd_t c = cmd2(BW_CREATE_OP_DRIVE);
    c.u.drive.velocity = v;
    c.u.drive.radius = r;
    return c;
}

static void started(bw_create_robot_t *r, uint8_t mode_op)
{
    bw_create_robot_init(r, BW_CREATE_MODEL_2, 235);
    bw_create_cmd_t c = cmd2(BW_CREATE_OP_START);
    assert_int_equal(bw_create_robot_command(r, &c, 0), 1);
    c = cmd2(mode_op);
    assert_int_equal(bw_create_robot_command(r, &c, 0), 1);
}

/* Drive's rules: the specials, the wheels either side of the centre, the
 * outer wheel held to 500 mm/s, values beyond the limits clamped. */
static void test_drive_wheels(void **state)
{
    (void)state;
    int16_t l, r;
    bw_create_robot_drive_wheels(235, 200, BW_CREATE_RADIUS_STRAIGHT, &l, &r);
    assert_true(l == 200 && r == 200);
    bw_create_robot_drive_wheels(235, 200, BW_CREATE_RADIUS_STRAIGHT_ALT, &l, &r);
    assert_true(l == 200 && r == 200);
    bw_create_robot_drive_wheels(235, 100, BW_CREATE_RADIUS_CCW, &l, &r);
    assert_true(l == -100 && r == 100);
    bw_create_robot_drive_wheels(235, 100, BW_CREATE_RADIUS_CW, &l, &r);
    assert_true(l == 100 && r == -100);
    /* 500 mm to the left: the right wheel 617.5 mm out, the left 382.5 */
    bw_create_robot_drive_wheels(235, 200, 500, &l, &r);
    assert_int_equal(l, 153); /* 200 * 382.5 / 500 = 153 */
    assert_int_equal(r, 247);
    bw_create_robot_drive_wheels(235, 200, -500, &l, &r);
    assert_int_equal(l, 247);
    assert_int_equal(r, 153);
    /* backwards along the same circle */
    bw_create_robot_drive_wheels(235, -200, 500, &l, &r);
    assert_int_equal(l, -153);
    assert_int_equal(r, -247);
    /* the outer wheel would go 558.75: both scaled to keep the arc */
    bw_create_robot_drive_wheels(235, 500, 1000, &l, &r);
    assert_int_equal(r, 500);
    assert_int_equal(l, 395); /* 441.25 * 500 / 558.75 = 394.85 */
    /* backwards, 10 mm to the right: the left wheel 4245.75 mm/s back,
     * the right 3579.75 forward, scaled to 500 */
    bw_create_robot_drive_wheels(235, -333, -10, &l, &r);
    assert_int_equal(l, -500);
    assert_int_equal(r, 422);
    /* limits: 600 mm/s is 500, a radius of 3000 is 2000 */
    bw_create_robot_drive_wheels(235, 600, BW_CREATE_RADIUS_STRAIGHT, &l, &r);
    assert_true(l == 500 && r == 500);
    bw_create_robot_drive_wheels(235, 100, 3000, &l, &r);
    assert_int_equal(l, 94); /* 100 * 1882.5 / 2000 = 94.1 */
    assert_int_equal(r, 106);
}

static void test_modes(void **state)
{
    (void)state;
    bw_create_robot_t r;
    bw_create_robot_init(&r, BW_CREATE_MODEL_2, 235);
    assert_int_equal(r.s.oi_mode, BW_CREATE_MODE_OFF);
    /* off: nothing but Start (and Reset) is heard */
    bw_create_cmd_t c = drive(200, BW_CREATE_RADIUS_STRAIGHT);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 0);
    c = cmd2(BW_CREATE_OP_SAFE);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 0);
    assert_int_equal(r.s.oi_mode, BW_CREATE_MODE_OFF);
    c = cmd2(BW_CREATE_OP_START);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 1);
    assert_int_equal(r.s.oi_mode, BW_CREATE_MODE_PASSIVE);
    /* passive: the motors are not the host's */
    c = drive(200, BW_CREATE_RADIUS_STRAIGHT);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 0);
    assert_true(r.wheel[0] == 0 && r.wheel[1] == 0);
    c = cmd2(BW_CREATE_OP_SAFE);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 1);
    c = drive(200, BW_CREATE_RADIUS_STRAIGHT);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 1);
    assert_true(r.wheel[0] == 200 && r.wheel[1] == 200);
    assert_int_equal(r.s.requested_speed, 200);
    /* Drive Direct: right first on the wire, each wheel clamped */
    c = cmd2(BW_CREATE_OP_DRIVE_DIRECT);
    c.u.drive_direct.left = -100;
    c.u.drive_direct.right = 700;
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 1);
    assert_int_equal(r.wheel[0], -100);
    assert_int_equal(r.wheel[1], 500);
    assert_int_equal(r.s.requested_right_speed, 700);
    /* Start again: Passive, the wheels stopped */
    c = cmd2(BW_CREATE_OP_START);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 1);
    assert_int_equal(r.s.oi_mode, BW_CREATE_MODE_PASSIVE);
    assert_true(r.wheel[0] == 0 && r.wheel[1] == 0);
    /* Full, then a Create 2's Stop: the OI off */
    c = cmd2(BW_CREATE_OP_FULL);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 1);
    c = drive(-300, BW_CREATE_RADIUS_STRAIGHT);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 1);
    c = cmd2(BW_CREATE2_OP_STOP);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 1);
    assert_int_equal(r.s.oi_mode, BW_CREATE_MODE_OFF);
    assert_true(r.wheel[0] == 0 && r.wheel[1] == 0);
    /* Reset is heard in any mode, and says the counts start again */
    c = cmd2(BW_CREATE2_OP_RESET);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), BW_CREATE_ROBOT_RESET);
    /* a cleaning mode takes the robot from the host */
    started(&r, BW_CREATE_OP_FULL);
    c = drive(100, BW_CREATE_RADIUS_STRAIGHT);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 1);
    c = cmd2(BW_CREATE2_OP_CLEAN);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 0);
    assert_int_equal(r.s.oi_mode, BW_CREATE_MODE_PASSIVE);
    assert_true(r.wheel[0] == 0 && r.wheel[1] == 0);
}

/* Distance and angle: summed between reads, read truncated toward zero,
 * reset by the read; packets 43, 44 stay as the caller sets them. */
static void test_reply_odometry(void **state)
{
    (void)state;
    bw_create_robot_t r;
    started(&r, BW_CREATE_OP_SAFE);
    /* a quarter turn in place over 235 mm: each wheel 92.284 mm */
    for (int i = 0; i < 100; i++)
        bw_create_robot_moved(&r, -922, 923);
    bw_create_robot_moved(&r, 0, 100); /* and 0.1 mm forward on the right */
    bw_create_cmd_t c = cmd2(BW_CREATE_OP_QUERY_LIST);
    c.u.packets.n = 2;
    c.u.packets.ids[0] = BW_CREATE_PKT_DISTANCE;
    c.u.packets.ids[1] = BW_CREATE_PKT_ANGLE;
    assert_int_equal(bw_create_robot_command(&r, &c, 0), BW_CREATE_ROBOT_REPLY);
    uint8_t out[16];
    assert_int_equal(bw_create_robot_reply(&r, out, sizeof out), 4);
    int16_t dist = (int16_t)(out[0] << 8 | out[1]), angle = (int16_t)(out[2] << 8 | out[3]);
    assert_int_equal(dist, 0);   /* (100 * 1 + 100) / 2 um: under a millimetre */
    assert_int_equal(angle, 45); /* 184.6 mm / 235 mm = 0.7856 rad = 45.01 degrees */
    /* read: both reset */
    assert_int_equal(bw_create_robot_command(&r, &c, 0), BW_CREATE_ROBOT_REPLY);
    assert_int_equal(bw_create_robot_reply(&r, out, sizeof out), 4);
    assert_true(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 0);
    /* backwards: toward zero, -1.9 mm reads -1 */
    bw_create_robot_moved(&r, -1900, -1900);
    assert_int_equal(bw_create_robot_command(&r, &c, 0), BW_CREATE_ROBOT_REPLY);
    assert_int_equal(bw_create_robot_reply(&r, out, sizeof out), 4);
    assert_int_equal((int16_t)(out[0] << 8 | out[1]), -1);
    /* a host that never reads them: held, never wrapped (3 km each way) */
    for (int i = 0; i < 3000; i++)
        bw_create_robot_moved(&r, 1000000, 1000000);
    c.u.packets.ids[1] = BW_CREATE_PKT_ANGLE;
    assert_int_equal(bw_create_robot_command(&r, &c, 0), BW_CREATE_ROBOT_REPLY);
    assert_int_equal(bw_create_robot_reply(&r, out, sizeof out), 4);
    assert_int_equal((int16_t)(out[0] << 8 | out[1]), 32767);
    /* a packet a Create 2 has not: no reply */
    c.u.packets.ids[1] = 59;
    assert_int_equal(bw_create_robot_command(&r, &c, 0), 0);
}

/* Stream: a frame every 15 ms from the command on, paused and resumed,
 * ended by the OI going off. */
static void test_stream(void **state)
{
    (void)state;
    bw_create_robot_t r;
    started(&r, BW_CREATE_OP_FULL);
    bw_create_cmd_t c = cmd2(BW_CREATE_OP_STREAM);
    c.u.packets.n = 2;
    c.u.packets.ids[0] = BW_CREATE_PKT_LEFT_ENCODER_COUNTS;
    c.u.packets.ids[1] = BW_CREATE_PKT_RIGHT_ENCODER_COUNTS;
    assert_int_equal(bw_create_robot_command(&r, &c, 1000), 1);
    assert_int_equal(r.s.num_stream_packets, 2);
    assert_false(bw_create_robot_stream_due(&r, 1014));
    assert_true(bw_create_robot_stream_due(&r, 1015));
    r.s.left_encoder_counts = 0x1234;
    r.s.right_encoder_counts = -2;
    uint8_t out[BW_CREATE_MAX_FRAME];
    size_t n = bw_create_robot_stream(&r, 1015, out, sizeof out);
    static const uint8_t want[] = { 19, 6, 43, 0x12, 0x34, 44, 0xff, 0xfe, 0 };
    assert_int_equal(n, sizeof want);
    uint8_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum = (uint8_t)(sum + out[i]);
    assert_int_equal(sum, 0); /* the checksum makes the frame sum to 0 */
    assert_memory_equal(out, want, n - 1);
    assert_false(bw_create_robot_stream_due(&r, 1029));
    assert_true(bw_create_robot_stream_due(&r, 1030));
    c = cmd2(BW_CREATE_OP_PAUSE_RESUME_STREAM);
    c.u.pause_resume_stream = 0;
    assert_int_equal(bw_create_robot_command(&r, &c, 1030), 1);
    assert_false(bw_create_robot_stream_due(&r, 1031));
    c.u.pause_resume_stream = 1;
    assert_int_equal(bw_create_robot_command(&r, &c, 1031), 1);
    assert_true(bw_create_robot_stream_due(&r, 1031));
    c = cmd2(BW_CREATE2_OP_STOP);
    assert_int_equal(bw_create_robot_command(&r, &c, 1032), 1);
    assert_false(bw_create_robot_stream_due(&r, 2000));
}

/* Safe mode: danger while driving stops the wheels and leaves Passive;
 * Full mode drives on; a Buttons push ends after 1/6 s. */
static void test_watch(void **state)
{
    (void)state;
    bw_create_robot_t r;
    started(&r, BW_CREATE_OP_SAFE);
    assert_false(bw_create_robot_watch(&r, 10, true)); /* standing: nothing to stop */
    bw_create_cmd_t c = drive(100, BW_CREATE_RADIUS_STRAIGHT);
    assert_int_equal(bw_create_robot_command(&r, &c, 10), 1);
    assert_false(bw_create_robot_watch(&r, 20, false));
    assert_true(bw_create_robot_watch(&r, 30, true));
    assert_true(r.wheel[0] == 0 && r.wheel[1] == 0);
    assert_int_equal(r.s.oi_mode, BW_CREATE_MODE_PASSIVE);
    started(&r, BW_CREATE_OP_FULL);
    assert_int_equal(bw_create_robot_command(&r, &c, 10), 1);
    assert_false(bw_create_robot_watch(&r, 20, true));
    assert_int_equal(r.wheel[0], 100);
    c = cmd2(BW_CREATE2_OP_BUTTONS);
    c.u.buttons = 0x01;
    assert_int_equal(bw_create_robot_command(&r, &c, 100), 1);
    assert_int_equal(r.s.buttons, 0x01);
    (void)bw_create_robot_watch(&r, 100 + BW_CREATE2_BUTTON_MS - 1, false);
    assert_int_equal(r.s.buttons, 0x01);
    (void)bw_create_robot_watch(&r, 100 + BW_CREATE2_BUTTON_MS, false);
    assert_int_equal(r.s.buttons, 0);
}

/* Seek Dock: Passive, and the program drives by what the receiver hears.
 * A crossing says which way the dock lies: red alone, then both, driving
 * straight (from the dock's left towards its axis), puts the dock within
 * half a turn clockwise: in the overlap the robot turns clockwise to the
 * middle of that. The host taking the robot back (Full) stops it; on the
 * Home Base it stops, docked; after BW_CREATE_SEEK_MS it gives up. */
static void test_seek_dock(void **state)
{
    (void)state;
    bw_create_robot_t r;
    started(&r, BW_CREATE_OP_FULL);
    bw_create_cmd_t seek = cmd2(BW_CREATE2_OP_SEEK_DOCK);
    assert_int_equal(bw_create_robot_command(&r, &seek, 0), 1);
    assert_int_equal(r.s.oi_mode, BW_CREATE_MODE_PASSIVE);
    assert_int_equal(r.seek.state, BW_CREATE_SEEK_DRIVE);
    r.s.infrared_byte = BW_CREATE2_IR_RED_BUOY;
    assert_true(bw_create_robot_watch(&r, 5, false)); /* on, straight ahead */
    assert_true(r.wheel[0] == 200 && r.wheel[1] == 200);
    bw_create_robot_moved(&r, 10000, 10000);
    r.s.infrared_byte = BW_CREATE2_IR_RED_GREEN_BUOY;
    assert_true(bw_create_robot_watch(&r, 10, false));
    assert_true(r.seek.known);
    assert_true(r.wheel[0] > 0 && r.wheel[1] < 0); /* round clockwise */
    assert_int_equal(r.wheel[0], -r.wheel[1]);
    /* Full: the host's again, the wheels stopped */
    bw_create_cmd_t full = cmd2(BW_CREATE_OP_FULL);
    assert_int_equal(bw_create_robot_command(&r, &full, 15), 1);
    assert_true(r.wheel[0] == 0 && r.wheel[1] == 0);
    assert_int_equal(r.seek.result, BW_CREATE_SEEK_CANCELLED);
    assert_false(bw_create_robot_watch(&r, 20, false));
    /* on the Home Base: stopped, docked */
    assert_int_equal(bw_create_robot_command(&r, &seek, 100), 1);
    assert_true(bw_create_robot_watch(&r, 105, false));
    r.s.charging_sources = BW_CREATE_SOURCE_HOME_BASE;
    assert_true(bw_create_robot_watch(&r, 110, false));
    assert_true(r.wheel[0] == 0 && r.wheel[1] == 0);
    assert_int_equal(r.seek.result, BW_CREATE_SEEK_DOCKED);
    assert_int_equal(r.s.oi_mode, BW_CREATE_MODE_PASSIVE);
    /* hearing nothing for ten minutes: it gives up */
    r.s.charging_sources = 0;
    r.s.infrared_byte = BW_CREATE2_IR_NONE;
    assert_int_equal(bw_create_robot_command(&r, &seek, 1000), 1);
    assert_true(bw_create_robot_watch(&r, 1005, false));
    (void)bw_create_robot_watch(&r, 1000 + BW_CREATE_SEEK_MS - 1, false);
    assert_int_equal(r.seek.state, BW_CREATE_SEEK_DRIVE);
    assert_true(bw_create_robot_watch(&r, 1000 + BW_CREATE_SEEK_MS, false));
    assert_true(r.wheel[0] == 0 && r.wheel[1] == 0);
    assert_int_equal(r.seek.result, BW_CREATE_SEEK_GAVE_UP);
}

/* The program's heading, from the wheels alone: 185 um of turn a step
 * (the right wheel's less the left's) is 787.234 urad on a 235 mm
 * wheelbase; the rest carried, 1000 steps are 787234 urad; past pi it
 * wraps; as many steps back come back to 0 exactly. */
static void test_heading(void **state)
{
    (void)state;
    bw_create_robot_t r;
    started(&r, BW_CREATE_OP_FULL);
    for (int i = 0; i < 1000; i++)
        bw_create_robot_moved(&r, -92, 93);
    assert_int_equal(r.heading_urad, 787234);
    for (int i = 0; i < 3000; i++)
        bw_create_robot_moved(&r, -92, 93);
    assert_int_equal(r.heading_urad, 3148936 - 2 * BW_CREATE_PI_URAD);
    for (int i = 0; i < 4000; i++)
        bw_create_robot_moved(&r, 92, -93);
    assert_int_equal(r.heading_urad, 0);
    assert_int_equal(r.heading_rest, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drive_wheels),   cmocka_unit_test(test_modes),
        cmocka_unit_test(test_reply_odometry), cmocka_unit_test(test_stream),
        cmocka_unit_test(test_watch),          cmocka_unit_test(test_seek_dock),
        cmocka_unit_test(test_heading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
