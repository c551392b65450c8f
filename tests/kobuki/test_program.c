/* The Kobuki's own program (program.c), alone: what it obeys, its command
 * timeout, its feedback frame, the wheel speeds in integers. The emulator's
 * tests run it inside the simulated robot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/kobuki.h"

static const uint32_t UDID[3] = { 1, 2, 3 };

static bw_kobuki_msg_t base_control(int16_t speed, int16_t radius)
{
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_BASE_CONTROL);
    m.u.base_control = (bw_kobuki_base_control_t){ speed, radius };
    return m;
}

/* The types of one feedback frame's sub-payloads, in order. */
static size_t types(const uint8_t *frame, size_t len, bw_kobuki_type_t *out, size_t cap,
                    bw_kobuki_msg_t *keep, bw_kobuki_type_t want)
{
    bw_kobuki_parser_t p;
    bw_kobuki_frame_t f;
    bw_kobuki_parser_init(&p);
    const uint8_t *data = frame;
    size_t n = len;
    assert_int_equal(bw_kobuki_parse(&p, &data, &n, &f), 1);
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t m;
    bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_ROBOT, NULL);
    size_t k = 0;
    while (bw_kobuki_iter_next(&it, &m) > 0) {
        assert_true(k < cap);
        out[k++] = m.type;
        if (keep && m.type == want)
            *keep = m;
    }
    return k;
}

static void test_commands(void **state)
{
    (void)state;
    bw_kobuki_robot_t r;
    bw_kobuki_robot_init(&r, 0, 500, UDID);
    bw_kobuki_msg_t m = base_control(200, 0);
    assert_int_equal(bw_kobuki_robot_command(&r, &m, 10), 1);
    assert_int_equal(r.command.speed, 200);
    bw_kobuki_msg_init(&m, BW_KOBUKI_SOUND_SEQUENCE);
    m.u.sound_sequence.sequence = 3;
    assert_int_equal(bw_kobuki_robot_command(&r, &m, 20), 1);
    assert_int_equal(r.sound_sequence, 3);
    assert_int_equal(r.sounds, 1);
    bw_kobuki_msg_init(&m, BW_KOBUKI_GENERAL_PURPOSE_OUTPUT);
    m.u.general_purpose_output.flags = 0x0f00;
    assert_int_equal(bw_kobuki_robot_command(&r, &m, 20), 1);
    assert_int_equal(r.gp_output, 0x0f00);
    /* feedback a host sent: not a command */
    bw_kobuki_msg_init(&m, BW_KOBUKI_CLIFF);
    assert_int_equal(bw_kobuki_robot_command(&r, &m, 20), 0);
    bw_kobuki_msg_init(&m, BW_KOBUKI_UNKNOWN);
    assert_int_equal(bw_kobuki_robot_command(&r, &m, 20), BW_EUNKNOWN);
    assert_int_equal(r.command.speed, 200); /* neither changed the motion */
}

static void test_timeout(void **state)
{
    (void)state;
    bw_kobuki_robot_t r;
    bw_kobuki_robot_init(&r, 1000, 500, UDID);
    bw_kobuki_msg_t m = base_control(150, 0);
    bw_kobuki_robot_command(&r, &m, 1000);
    assert_false(bw_kobuki_robot_watch(&r, 1500)); /* at the timeout: still going */
    assert_true(bw_kobuki_robot_watch(&r, 1501));
    assert_int_equal(r.command.speed, 0);
    assert_false(bw_kobuki_robot_watch(&r, 3000)); /* stopped once */
    /* the clock wraps: 32-bit milliseconds after 49 days */
    bw_kobuki_robot_init(&r, UINT32_MAX - 100, 500, UDID);
    bw_kobuki_robot_command(&r, &m, UINT32_MAX - 100);
    assert_false(bw_kobuki_robot_watch(&r, 300));
    assert_true(bw_kobuki_robot_watch(&r, 400));
    /* 0: never */
    bw_kobuki_robot_init(&r, 0, 0, UDID);
    bw_kobuki_robot_command(&r, &m, 0);
    assert_false(bw_kobuki_robot_watch(&r, 100000));
}

static void test_report(void **state)
{
    (void)state;
    bw_kobuki_robot_t r;
    bw_kobuki_robot_init(&r, 0, 500, UDID);
    bw_kobuki_robot_inputs_t in;
    memset(&in, 0, sizeof in);
    in.timestamp_ms = 40;
    in.left_encoder = 65000;
    in.right_encoder = 500;
    in.battery = 167;
    in.gyro_samples = 2;
    in.gyro[1][2] = -7;
    uint8_t frame[BW_KOBUKI_ROBOT_REPORT_MAX];
    size_t len = bw_kobuki_robot_report(&r, &in, frame, sizeof frame);
    assert_true(len > 0);
    bw_kobuki_type_t t[16];
    bw_kobuki_msg_t basic, gyro;
    assert_int_equal(types(frame, len, t, 16, &basic, BW_KOBUKI_BASIC_SENSOR_DATA), 7);
    assert_int_equal(basic.u.basic_sensor_data.left_encoder, 65000);
    assert_int_equal(basic.u.basic_sensor_data.battery, 167);
    types(frame, len, t, 16, &gyro, BW_KOBUKI_RAW_GYRO);
    assert_int_equal(gyro.u.raw_gyro.count, 2);
    assert_int_equal(gyro.u.raw_gyro.samples[1][2], -7);
    assert_int_equal(r.gyro_frame_id, 2); /* the next frame's first sample */

    /* what the host asked for comes once, in the next frame */
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_REQUEST_EXTRA);
    m.u.request_extra.flags = BW_KOBUKI_EXTRA_HARDWARE_VERSION | BW_KOBUKI_EXTRA_FIRMWARE_VERSION |
                              BW_KOBUKI_EXTRA_UDID;
    bw_kobuki_robot_command(&r, &m, 50);
    bw_kobuki_msg_init(&m, BW_KOBUKI_GET_CONTROLLER_GAIN);
    bw_kobuki_robot_command(&r, &m, 50);
    len = bw_kobuki_robot_report(&r, &in, frame, sizeof frame);
    bw_kobuki_msg_t id;
    assert_int_equal(types(frame, len, t, 16, &id, BW_KOBUKI_UNIQUE_DEVICE_ID), 11);
    assert_int_equal(t[7], BW_KOBUKI_HARDWARE_VERSION);
    assert_int_equal(t[8], BW_KOBUKI_FIRMWARE_VERSION);
    assert_int_equal(t[10], BW_KOBUKI_CONTROLLER_INFO);
    assert_int_equal(id.u.unique_device_id.udid2, 3);
    len = bw_kobuki_robot_report(&r, &in, frame, sizeof frame);
    assert_int_equal(types(frame, len, t, 16, NULL, BW_KOBUKI_UNKNOWN), 7);
    /* too small a buffer: nothing */
    assert_int_equal(bw_kobuki_robot_report(&r, &in, frame, 20), 0);
}

/* The integer wheel speeds against the reference conversion (doubles). */
static void test_wheels(void **state)
{
    (void)state;
    static const int16_t speeds[] = { 0, 1, -1, 37, -150, 300, 700, -700, 32767, -32768 };
    static const int16_t radii[] = { 0, 1, -1, 2, -2, 114, 115, 116, -116, 300, -300, 1000, 32767,
                                     -32768 };
    for (size_t i = 0; i < sizeof speeds / sizeof *speeds; i++)
        for (size_t k = 0; k < sizeof radii / sizeof *radii; k++) {
            bw_kobuki_robot_t r;
            bw_kobuki_robot_init(&r, 0, 0, UDID);
            r.command = (bw_kobuki_base_control_t){ speeds[i], radii[k] };
            int32_t l, rr;
            double dl, dr;
            bw_kobuki_robot_wheels(&r, &l, &rr);
            bw_kobuki_base_control_to_wheels(r.command, &dl, &dr);
            assert_true(l - dl <= 0.5 + 1e-6 && dl - l <= 0.5 + 1e-6);
            assert_true(rr - dr <= 0.5 + 1e-6 && dr - rr <= 0.5 + 1e-6);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_wheels),
    };
    return cmocka_run_group_tests_name("kobuki program", tests, NULL, NULL);
}
