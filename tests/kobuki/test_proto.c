/* Kobuki codec: golden vectors, round trips, parser abuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/kobuki.h"

/* ---- helpers ------------------------------------------------------------- */

/* PROTOCOL-NOTES.md golden commands. */
static const uint8_t BASE_CONTROL_100[] = { 0xAA, 0x55, 0x06, 0x01, 0x04, 0x64, 0x00, 0x00, 0x00, 0x67 };
static const uint8_t REQUEST_EXTRA_0B[] = { 0xAA, 0x55, 0x04, 0x09, 0x02, 0x0B, 0x00, 0x04 };

/* A feedback frame written out by hand from the seed's tables: core, docking
 * IR, inertial, cliff, current, raw gyro (N=2), general-purpose input; LEN 77
 * as PROTOCOL-NOTES.md says a typical frame has. */
static const uint8_t FEEDBACK[] = {
    0xAA, 0x55, 0x4D, 0x01, 0x0F, 0x34, 0x12, 0x02, 0x01, 0x04, 0xFE, 0xFF, 0x02, 0x01, 0xFB, 0x07,
    0x01, 0x06, 0xA7, 0x02, 0x03, 0x03, 0x01, 0x08, 0x20, 0x04, 0x07, 0xD8, 0xDC, 0x96, 0x00, 0x00,
    0x00, 0x00, 0x05, 0x06, 0x23, 0x01, 0xFF, 0x0F, 0x00, 0x00, 0x06, 0x02, 0x0C, 0x0D, 0x0D, 0x0E,
    0x2A, 0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x01, 0x00, 0x80, 0xFF, 0x7F, 0x00, 0x00, 0x10, 0x10,
    0x0F, 0x00, 0x00, 0x00, 0xFF, 0x0F, 0x00, 0x08, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x8B,
};

typedef struct {
    bw_kobuki_parser_t p;
    size_t fed, in_frames;
    size_t nframes;
    uint8_t frames[16][BW_KOBUKI_MAX_FRAME]; /* payloads of accepted frames */
    uint8_t lens[16];
    int rejects;
} feeder_t;

static void feeder_init(feeder_t *f)
{
    memset(f, 0, sizeof *f);
    bw_kobuki_parser_init(&f->p);
}

/* Every byte fed is in an accepted frame, skipped, or held. */
static void check_accounting(const feeder_t *f)
{
    assert_int_equal(f->fed, f->in_frames + f->p.stats.skipped_bytes + (size_t)(f->p.held - f->p.drop));
}

static void feed(feeder_t *f, const uint8_t *data, size_t len)
{
    f->fed += len;
    bw_kobuki_frame_t fr;
    int rc;
    while ((rc = bw_kobuki_parse(&f->p, &data, &len, &fr)) != 0) {
        if (rc < 0) {
            assert_true(rc == BW_ECHECKSUM || rc == BW_ELENGTH);
            f->rejects++;
            continue;
        }
        assert_true(f->nframes < 16);
        memcpy(f->frames[f->nframes], fr.payload, fr.len);
        f->lens[f->nframes++] = fr.len;
        f->in_frames += (size_t)fr.len + 4;
    }
    assert_int_equal(len, 0);
    check_accounting(f);
}

/* End of stream: whatever the held bytes still give. */
static void finish(feeder_t *f)
{
    bw_kobuki_frame_t fr;
    int rc;
    while ((rc = bw_kobuki_parser_finish(&f->p, &fr)) != 0) {
        if (rc < 0) {
            f->rejects++;
            continue;
        }
        memcpy(f->frames[f->nframes], fr.payload, fr.len);
        f->lens[f->nframes++] = fr.len;
        f->in_frames += (size_t)fr.len + 4;
    }
    assert_int_equal(f->p.held, 0);
    check_accounting(f);
}

static void feed_bytewise(feeder_t *f, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++)
        feed(f, data + i, 1);
}

static size_t append(uint8_t *buf, size_t at, const uint8_t *data, size_t n)
{
    memcpy(buf + at, data, n);
    return at + n;
}

static bw_kobuki_msg_t decode_one(const uint8_t *frame, size_t len, bw_kobuki_dir_t dir)
{
    feeder_t f;
    feeder_init(&f);
    feed(&f, frame, len);
    assert_int_equal(f.nframes, 1);
    bw_kobuki_frame_t fr = { f.frames[0], f.lens[0] };
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t m;
    bw_kobuki_iter_init(&it, &fr, dir, NULL);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 1);
    assert_int_equal(bw_kobuki_iter_next(&it, &(bw_kobuki_msg_t){ 0 }), 0);
    return m;
}

/* ---- golden vectors ---------------------------------------------------------- */

static void test_golden_base_control(void **state)
{
    (void)state;
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_BASE_CONTROL);
    m.u.base_control.speed = 100;
    m.u.base_control.radius = 0;
    uint8_t buf[32];
    assert_int_equal(bw_kobuki_encode_frame(buf, sizeof buf, &m, 1), sizeof BASE_CONTROL_100);
    assert_memory_equal(buf, BASE_CONTROL_100, sizeof BASE_CONTROL_100);

    bw_kobuki_msg_t d = decode_one(BASE_CONTROL_100, sizeof BASE_CONTROL_100, BW_KOBUKI_FROM_HOST);
    assert_int_equal(d.type, BW_KOBUKI_BASE_CONTROL);
    assert_int_equal(d.u.base_control.speed, 100);
    assert_int_equal(d.u.base_control.radius, 0);
    /* Identifier 1 from the robot is basic sensor data, whose length is 15:
     * read the wrong way, the same bytes are a mis-sized message. */
    bw_kobuki_msg_t wrong;
    assert_int_equal(bw_kobuki_decode(BW_KOBUKI_FROM_ROBOT, 1, BASE_CONTROL_100 + 5, 4, &wrong),
                     BW_ELENGTH);
}

static void test_golden_request_extra(void **state)
{
    (void)state;
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_REQUEST_EXTRA);
    m.u.request_extra.flags = BW_KOBUKI_EXTRA_HARDWARE_VERSION | BW_KOBUKI_EXTRA_FIRMWARE_VERSION |
                              BW_KOBUKI_EXTRA_UDID;
    uint8_t buf[32];
    assert_int_equal(bw_kobuki_encode_frame(buf, sizeof buf, &m, 1), sizeof REQUEST_EXTRA_0B);
    assert_memory_equal(buf, REQUEST_EXTRA_0B, sizeof REQUEST_EXTRA_0B);
    bw_kobuki_msg_t d = decode_one(REQUEST_EXTRA_0B, sizeof REQUEST_EXTRA_0B, BW_KOBUKI_FROM_HOST);
    assert_int_equal(d.type, BW_KOBUKI_REQUEST_EXTRA);
    assert_int_equal(d.u.request_extra.flags, 0x000B);
}

static void test_golden_feedback_frame(void **state)
{
    (void)state;
    feeder_t f;
    feeder_init(&f);
    feed(&f, FEEDBACK, sizeof FEEDBACK);
    assert_int_equal(f.nframes, 1);
    assert_int_equal(f.lens[0], 77);
    bw_kobuki_frame_t fr = { f.frames[0], f.lens[0] };
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t m[8];
    bw_parse_stats_t st = { 0 };
    bw_kobuki_iter_init(&it, &fr, BW_KOBUKI_FROM_ROBOT, &st);
    size_t n = 0;
    while (n < 8 && bw_kobuki_iter_next(&it, &m[n]) == 1)
        n++;
    assert_int_equal(n, 7);
    assert_int_equal(st.unknown + st.length_errors, 0);

    const bw_kobuki_basic_sensor_data_t *b = &m[0].u.basic_sensor_data;
    assert_int_equal(m[0].type, BW_KOBUKI_BASIC_SENSOR_DATA);
    assert_int_equal(b->timestamp, 0x1234);
    assert_int_equal(b->bumper, BW_KOBUKI_BUMPER_CENTRAL);
    assert_int_equal(b->wheel_drop, BW_KOBUKI_WHEEL_DROP_RIGHT);
    assert_int_equal(b->cliff, BW_KOBUKI_CLIFF_LEFT);
    assert_int_equal(b->left_encoder, 0xFFFE);
    assert_int_equal(b->right_encoder, 0x0102);
    assert_int_equal(b->left_pwm, -5);
    assert_int_equal(b->right_pwm, 7);
    assert_int_equal(b->button, BW_KOBUKI_BUTTON_0);
    assert_int_equal(b->charger, BW_KOBUKI_CHARGER_DOCKING_CHARGING);
    assert_int_equal(b->battery, 167);
    assert_int_equal(b->overcurrent, BW_KOBUKI_OVERCURRENT_RIGHT);

    assert_int_equal(m[1].type, BW_KOBUKI_DOCKING_IR);
    assert_int_equal(m[1].u.docking_ir.right, BW_KOBUKI_DOCK_NEAR_LEFT);
    assert_int_equal(m[1].u.docking_ir.central, BW_KOBUKI_DOCK_FAR_CENTER);
    assert_int_equal(m[1].u.docking_ir.left, BW_KOBUKI_DOCK_FAR_RIGHT);

    assert_int_equal(m[2].type, BW_KOBUKI_INERTIAL_SENSOR);
    assert_int_equal(m[2].u.inertial_sensor.angle, -9000);
    assert_int_equal(m[2].u.inertial_sensor.angle_rate, 150);

    assert_int_equal(m[3].type, BW_KOBUKI_CLIFF);
    assert_int_equal(m[3].u.cliff.right, 0x0123);
    assert_int_equal(m[3].u.cliff.central, 4095);
    assert_int_equal(m[3].u.cliff.left, 0);

    assert_int_equal(m[4].type, BW_KOBUKI_CURRENT);
    assert_int_equal(m[4].length, 2); /* one byte per motor (PROTOCOL-NOTES) */
    assert_int_equal(m[4].u.current.left, 12);
    assert_int_equal(m[4].u.current.right, 13);

    const bw_kobuki_raw_gyro_t *g = &m[5].u.raw_gyro;
    assert_int_equal(m[5].type, BW_KOBUKI_RAW_GYRO);
    assert_int_equal(g->frame_id, 42);
    assert_int_equal(g->count, 2);
    assert_int_equal(g->samples[0][0], 1);
    assert_int_equal(g->samples[0][1], -1);
    assert_int_equal(g->samples[0][2], 256);
    assert_int_equal(g->samples[1][0], -32768);
    assert_int_equal(g->samples[1][1], 32767);
    assert_int_equal(g->samples[1][2], 0);

    const bw_kobuki_general_purpose_input_t *gp = &m[6].u.general_purpose_input;
    assert_int_equal(m[6].type, BW_KOBUKI_GENERAL_PURPOSE_INPUT);
    assert_int_equal(gp->digital_input, 0x0F);
    assert_int_equal(gp->analog[0], 0);
    assert_int_equal(gp->analog[1], 4095);
    assert_int_equal(gp->analog[2], 0x0800);
    assert_int_equal(gp->analog[3], 1);

    /* Re-encoding what was decoded gives the same frame, byte for byte. */
    uint8_t out[BW_KOBUKI_MAX_FRAME];
    assert_int_equal(bw_kobuki_encode_frame(out, sizeof out, m, 7), sizeof FEEDBACK);
    assert_memory_equal(out, FEEDBACK, sizeof FEEDBACK);
}

/* Written byte by byte from the seed's tables (with PROTOCOL-NOTES.md's
 * identifiers 13 and 21 for the gain messages), not from the codec's:
 * little-endian fields, XOR of LEN and the payload. Each is encoded from its
 * fields and decoded back to them. */
static void encodes_to(const bw_kobuki_msg_t *m, const uint8_t *want, size_t n)
{
    uint8_t buf[64];
    assert_int_equal(bw_kobuki_encode_frame(buf, sizeof buf, m, 1), (int)n);
    assert_memory_equal(buf, want, n);
}

static void test_golden_from_the_seed_tables(void **state)
{
    (void)state;
    bw_kobuki_msg_t m, d;
    /* Sound (id 3, len 3): note 1000 (2 bytes), 100 ms (1 byte). */
    static const uint8_t sound[] = { 0xAA, 0x55, 0x05, 0x03, 0x03, 0xE8, 0x03, 0x64, 0x8A };
    bw_kobuki_msg_init(&m, BW_KOBUKI_SOUND);
    m.u.sound.note = 1000;
    m.u.sound.duration = 100;
    encodes_to(&m, sound, sizeof sound);
    d = decode_one(sound, sizeof sound, BW_KOBUKI_FROM_HOST);
    assert_int_equal(d.type, BW_KOBUKI_SOUND);
    assert_int_equal(d.u.sound.note, 1000);
    assert_int_equal(d.u.sound.duration, 100);
    /* Sound sequence (id 4, len 1): 6, "CLEANINGEND", the last the seed has. */
    static const uint8_t seq[] = { 0xAA, 0x55, 0x03, 0x04, 0x01, 0x06, 0x00 };
    bw_kobuki_msg_init(&m, BW_KOBUKI_SOUND_SEQUENCE);
    m.u.sound_sequence.sequence = 6;
    encodes_to(&m, seq, sizeof seq);
    d = decode_one(seq, sizeof seq, BW_KOBUKI_FROM_HOST);
    assert_int_equal(d.u.sound_sequence.sequence, 6);
    /* General purpose output (id 12, len 2): digital out ch. 0 (0x0001),
     * 12V/1.5A power (0x0080), LED1 green (0x0200), LED2 green (0x0800). */
    static const uint8_t gpo[] = { 0xAA, 0x55, 0x04, 0x0C, 0x02, 0x81, 0x0A, 0x81 };
    bw_kobuki_msg_init(&m, BW_KOBUKI_GENERAL_PURPOSE_OUTPUT);
    m.u.general_purpose_output.flags = 0x0A81;
    encodes_to(&m, gpo, sizeof gpo);
    d = decode_one(gpo, sizeof gpo, BW_KOBUKI_FROM_HOST);
    assert_int_equal(d.u.general_purpose_output.flags, 0x0A81);
    /* Set controller gain (id 13, len 13): user-configured, the seed's
     * defaults Kp 100 * 1000, Ki 0.1 * 1000, Kd 2 * 1000, 4 bytes each. */
    static const uint8_t set_gain[] = { 0xAA, 0x55, 0x0F, 0x0D, 0x0D, 0x01, 0xA0, 0x86, 0x01, 0x00,
                                        0x64, 0x00, 0x00, 0x00, 0xD0, 0x07, 0x00, 0x00, 0x9A };
    bw_kobuki_msg_init(&m, BW_KOBUKI_SET_CONTROLLER_GAIN);
    m.u.set_controller_gain = (bw_kobuki_gain_t){ 1, 100000, 100, 2000 };
    encodes_to(&m, set_gain, sizeof set_gain);
    d = decode_one(set_gain, sizeof set_gain, BW_KOBUKI_FROM_HOST);
    assert_int_equal(d.u.set_controller_gain.gain_type, 1);
    assert_int_equal(d.u.set_controller_gain.p_gain, 100000);
    assert_int_equal(d.u.set_controller_gain.i_gain, 100);
    assert_int_equal(d.u.set_controller_gain.d_gain, 2000);
    /* Unique device id (id 19, len 12): three 4-byte words. */
    static const uint8_t udid[] = { 0xAA, 0x55, 0x0E, 0x13, 0x0C, 0x44, 0x33, 0x22, 0x11, 0x88,
                                    0x77, 0x66, 0x55, 0xCC, 0xBB, 0xAA, 0x99, 0xDD };
    bw_kobuki_msg_init(&m, BW_KOBUKI_UNIQUE_DEVICE_ID);
    m.u.unique_device_id = (bw_kobuki_unique_device_id_t){ 0x11223344, 0x55667788, 0x99AABBCC };
    encodes_to(&m, udid, sizeof udid);
    d = decode_one(udid, sizeof udid, BW_KOBUKI_FROM_ROBOT);
    assert_int_equal(d.u.unique_device_id.udid0, 0x11223344);
    assert_int_equal(d.u.unique_device_id.udid1, 0x55667788);
    assert_int_equal(d.u.unique_device_id.udid2, 0x99AABBCC);
    /* Controller info (id 21, len 13): factory default, the defaults. */
    static const uint8_t info[] = { 0xAA, 0x55, 0x0F, 0x15, 0x0D, 0x00, 0xA0, 0x86, 0x01, 0x00,
                                    0x64, 0x00, 0x00, 0x00, 0xD0, 0x07, 0x00, 0x00, 0x83 };
    bw_kobuki_msg_init(&m, BW_KOBUKI_CONTROLLER_INFO);
    m.u.controller_info = (bw_kobuki_gain_t){ 0, 100000, 100, 2000 };
    encodes_to(&m, info, sizeof info);
    d = decode_one(info, sizeof info, BW_KOBUKI_FROM_ROBOT);
    assert_int_equal(d.u.controller_info.gain_type, 0);
    assert_int_equal(d.u.controller_info.p_gain, 100000);
    assert_int_equal(d.u.controller_info.i_gain, 100);
    assert_int_equal(d.u.controller_info.d_gain, 2000);
}

static void test_corrected_identifiers(void **state)
{
    (void)state;
    /* The seed's detail tables say id 1 for the gain messages; the summary
     * tables and PROTOCOL-NOTES.md say 13, 14 and 21. */
    assert_int_equal(bw_kobuki_type_id(BW_KOBUKI_SET_CONTROLLER_GAIN), 13);
    assert_int_equal(bw_kobuki_type_id(BW_KOBUKI_GET_CONTROLLER_GAIN), 14);
    assert_int_equal(bw_kobuki_type_id(BW_KOBUKI_CONTROLLER_INFO), 21);
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_SET_CONTROLLER_GAIN);
    assert_int_equal(m.length, 13);
    bw_kobuki_msg_init(&m, BW_KOBUKI_GET_CONTROLLER_GAIN);
    assert_int_equal(m.length, 1);
    bw_kobuki_msg_init(&m, BW_KOBUKI_CONTROLLER_INFO);
    assert_int_equal(m.length, 13);
    /* Get controller gain: AA 55 03 0E 01 00 CS. */
    uint8_t buf[16];
    bw_kobuki_msg_init(&m, BW_KOBUKI_GET_CONTROLLER_GAIN);
    assert_int_equal(bw_kobuki_encode_frame(buf, sizeof buf, &m, 1), 7);
    const uint8_t want[] = { 0xAA, 0x55, 0x03, 0x0E, 0x01, 0x00, 0x03 ^ 0x0E ^ 0x01 };
    assert_memory_equal(buf, want, 7);
}

static void test_catalogue_consistent(void **state)
{
    (void)state;
    for (unsigned t = 1; t < BW_KOBUKI_TYPE_COUNT; t++) {
        bw_kobuki_type_t type = (bw_kobuki_type_t)t;
        const char *name = bw_kobuki_type_name(type);
        assert_int_equal(bw_kobuki_type_from_name(name), type);
        assert_int_equal(bw_kobuki_type_of(bw_kobuki_type_dir(type), bw_kobuki_type_id(type)), type);
        const bw_msgdesc_t *d = bw_kobuki_desc(type);
        if (d) {
            assert_string_equal(d->name, name);
            size_t wire = 0;
            for (size_t k = 0; k < d->nfields; k++)
                wire += bw_ftype_size((bw_ftype_t)d->fields[k].type) * d->fields[k].count;
            assert_int_equal(wire, d->wire_len);
        }
    }
    assert_int_equal(bw_kobuki_type_from_name("no_such_thing"), BW_KOBUKI_UNKNOWN);
    assert_int_equal(bw_kobuki_type_of(BW_KOBUKI_FROM_HOST, 2), BW_KOBUKI_UNKNOWN);
    assert_int_equal(bw_kobuki_type_of(BW_KOBUKI_FROM_ROBOT, 200), BW_KOBUKI_UNKNOWN);
}

/* ---- round trips ----------------------------------------------------------------- */

/* A message of each type, with values at the edges of their ranges. */
static void sample_msg(bw_kobuki_type_t t, bw_kobuki_msg_t *m)
{
    bw_kobuki_msg_init(m, t);
    switch (t) {
    case BW_KOBUKI_BASE_CONTROL: m->u.base_control = (bw_kobuki_base_control_t){ -32768, 32767 }; break;
    case BW_KOBUKI_SOUND: m->u.sound = (bw_kobuki_sound_t){ 0xFFFF, 255 }; break;
    case BW_KOBUKI_SOUND_SEQUENCE: m->u.sound_sequence.sequence = BW_KOBUKI_SOUND_CLEANING_END; break;
    case BW_KOBUKI_REQUEST_EXTRA: m->u.request_extra.flags = 0x000B; break;
    case BW_KOBUKI_GENERAL_PURPOSE_OUTPUT: m->u.general_purpose_output.flags = 0x0F5A; break;
    case BW_KOBUKI_SET_CONTROLLER_GAIN:
        m->u.set_controller_gain = (bw_kobuki_gain_t){ 1, 100000, 100, 0xFFFFFFFFu };
        break;
    case BW_KOBUKI_GET_CONTROLLER_GAIN: break;
    case BW_KOBUKI_BASIC_SENSOR_DATA:
        m->u.basic_sensor_data = (bw_kobuki_basic_sensor_data_t){
            65535, 7, 3, 7, 65535, 1, -128, 127, 7, 22, 255, 3,
        };
        break;
    case BW_KOBUKI_DOCKING_IR: m->u.docking_ir = (bw_kobuki_docking_ir_t){ 0x3F, 0x15, 0x2A }; break;
    case BW_KOBUKI_INERTIAL_SENSOR: m->u.inertial_sensor = (bw_kobuki_inertial_sensor_t){ -18000, 32767 }; break;
    case BW_KOBUKI_CLIFF: m->u.cliff = (bw_kobuki_cliff_t){ 4095, 1, 65535 }; break;
    case BW_KOBUKI_CURRENT: m->u.current = (bw_kobuki_current_t){ 255, 1 }; break;
    case BW_KOBUKI_HARDWARE_VERSION: m->u.hardware_version = (bw_kobuki_version_t){ 1, 0, 4, false }; break;
    case BW_KOBUKI_FIRMWARE_VERSION: m->u.firmware_version = (bw_kobuki_version_t){ 255, 254, 253, false }; break;
    case BW_KOBUKI_RAW_GYRO:
        m->u.raw_gyro.frame_id = 255;
        m->u.raw_gyro.count = 3;
        for (int i = 0; i < 3; i++)
            for (int a = 0; a < 3; a++)
                m->u.raw_gyro.samples[i][a] = (int16_t)(i * 1000 - a * 12345);
        break;
    case BW_KOBUKI_GENERAL_PURPOSE_INPUT:
        m->u.general_purpose_input = (bw_kobuki_general_purpose_input_t){ 0x000F, { 0, 4095, 2048, 65535 } };
        break;
    case BW_KOBUKI_UNIQUE_DEVICE_ID:
        m->u.unique_device_id = (bw_kobuki_unique_device_id_t){ 0xDEADBEEFu, 0, 0xFFFFFFFFu };
        break;
    case BW_KOBUKI_CONTROLLER_INFO: m->u.controller_info = (bw_kobuki_gain_t){ 0, 100000, 100, 2000 }; break;
    default: break;
    }
}

static void test_roundtrip_every_message(void **state)
{
    (void)state;
    for (unsigned t = 1; t < BW_KOBUKI_TYPE_COUNT; t++) {
        bw_kobuki_msg_t m, d;
        sample_msg((bw_kobuki_type_t)t, &m);
        uint8_t buf[BW_KOBUKI_MAX_FRAME];
        int n = bw_kobuki_encode_frame(buf, sizeof buf, &m, 1);
        assert_true(n > 0);
        d = decode_one(buf, (size_t)n, bw_kobuki_type_dir(m.type));
        assert_int_equal(d.type, m.type);
        assert_int_equal(d.id, m.id);
        assert_int_equal(d.length, bw_kobuki_sub_size(&m) - 2);
        /* Compare the message body through its re-encoding (the union has
         * padding that need not match). */
        uint8_t again[BW_KOBUKI_MAX_FRAME];
        assert_int_equal(bw_kobuki_encode_frame(again, sizeof again, &d, 1), n);
        assert_memory_equal(again, buf, (size_t)n);
        if (m.type == BW_KOBUKI_RAW_GYRO)
            assert_memory_equal(&d.u.raw_gyro.samples, &m.u.raw_gyro.samples, sizeof(int16_t) * 9);
        else if (m.type == BW_KOBUKI_BASIC_SENSOR_DATA)
            assert_int_equal(d.u.basic_sensor_data.left_pwm, -128);
    }
}

/* The codec decodes and encodes each fixed layout with code of its own (the
 * compiler's, from the field table) where the small build walks the table:
 * both must read and write what the table says, field by field. */
static void test_fixed_layouts_as_their_tables(void **state)
{
    (void)state;
    for (unsigned t = 1; t < BW_KOBUKI_TYPE_COUNT; t++) {
        const bw_msgdesc_t *d = bw_kobuki_desc((bw_kobuki_type_t)t);
        if (!d)
            continue;
        bw_kobuki_dir_t dir = bw_kobuki_type_dir((bw_kobuki_type_t)t);
        uint8_t id = bw_kobuki_type_id((bw_kobuki_type_t)t);
        for (unsigned seed = 0; seed < 64; seed++) {
            uint8_t wire[BW_KOBUKI_MAX_PAYLOAD];
            for (size_t i = 0; i < d->wire_len; i++)
                wire[i] = (uint8_t)(seed * 89u + i * 37u + (seed & 1 ? 0x80u : 0u));
            bw_kobuki_msg_t m, want;
            memset(&m, 0, sizeof m);
            memset(&want, 0, sizeof want);
            assert_int_equal(bw_kobuki_decode(dir, id, wire, d->wire_len, &m), 0);
            if (t == BW_KOBUKI_SOUND_SEQUENCE && wire[0] > BW_KOBUKI_SOUND_CLEANING_END) {
                /* No sequence of the seed's (0..6): unknown, its bytes kept. */
                assert_int_equal(m.type, BW_KOBUKI_UNKNOWN);
                assert_ptr_equal(m.u.unknown.data, wire);
                continue;
            }
            bw_desc_decode(d, wire, &want);
            for (size_t k = 0; k < d->nfields; k++)
                for (size_t i = 0; d->fields[k].type != BW_FT_PAD && i < d->fields[k].count; i++)
                    assert_true(bw_field_get(&m, &d->fields[k], i) ==
                                bw_field_get(&want, &d->fields[k], i));
            uint8_t out[BW_KOBUKI_MAX_PAYLOAD], ref[BW_KOBUKI_MAX_PAYLOAD];
            assert_int_equal(bw_kobuki_encode_sub(out, sizeof out, &m), 2 + d->wire_len);
            bw_desc_encode(d, &want, ref);
            assert_memory_equal(out + 2, ref, d->wire_len);
        }
    }
}

static void test_versions_both_forms(void **state)
{
    (void)state;
    /* Legacy firmware: len 2, a u16 such as 104 for 1.0.4. */
    const uint8_t legacy[] = { 104, 0 };
    bw_kobuki_msg_t m;
    assert_int_equal(bw_kobuki_decode(BW_KOBUKI_FROM_ROBOT, 11, legacy, 2, &m), 0);
    assert_int_equal(m.type, BW_KOBUKI_FIRMWARE_VERSION);
    assert_int_equal(m.u.firmware_version.major, 1);
    assert_int_equal(m.u.firmware_version.minor, 0);
    assert_int_equal(m.u.firmware_version.patch, 4);
    assert_true(m.u.firmware_version.legacy);
    uint8_t buf[8];
    assert_int_equal(bw_kobuki_encode_sub(buf, sizeof buf, &m), 4);
    assert_memory_equal(buf, ((const uint8_t[]){ 11, 2, 104, 0 }), 4);

    /* Current form: patch, minor, major, 0. */
    const uint8_t modern[] = { 3, 2, 1, 0 };
    assert_int_equal(bw_kobuki_decode(BW_KOBUKI_FROM_ROBOT, 10, modern, 4, &m), 0);
    assert_int_equal(m.type, BW_KOBUKI_HARDWARE_VERSION);
    assert_int_equal(m.u.hardware_version.major, 1);
    assert_int_equal(m.u.hardware_version.minor, 2);
    assert_int_equal(m.u.hardware_version.patch, 3);
    assert_false(m.u.hardware_version.legacy);

    /* Any other length is a length error, reported with its bytes. */
    assert_int_equal(bw_kobuki_decode(BW_KOBUKI_FROM_ROBOT, 10, modern, 3, &m), BW_ELENGTH);
    assert_int_equal(m.type, BW_KOBUKI_UNKNOWN);
    assert_int_equal(m.id, 10);
    assert_int_equal(m.length, 3);
    assert_ptr_equal(m.u.unknown.data, modern);

    /* A legacy version that cannot be packed is refused, not mangled. */
    m.type = BW_KOBUKI_FIRMWARE_VERSION;
    m.u.firmware_version = (bw_kobuki_version_t){ 1, 10, 0, true };
    assert_int_equal(bw_kobuki_encode_sub(buf, sizeof buf, &m), BW_ERANGE);

    /* The largest that packs is 655.3.5 (65535); one more is refused, also
     * where the sum would wrap a 16-bit int (an 8-bit MCU's). */
    m.u.firmware_version = (bw_kobuki_version_t){ 655, 3, 5, true };
    assert_int_equal(bw_kobuki_encode_sub(buf, sizeof buf, &m), 4);
    assert_int_equal(bw_get_le16(buf + 2), 65535);
    m.u.firmware_version = (bw_kobuki_version_t){ 655, 3, 6, true };
    assert_int_equal(bw_kobuki_encode_sub(buf, sizeof buf, &m), BW_ERANGE);
    m.u.firmware_version = (bw_kobuki_version_t){ 655, 9, 9, true };
    assert_int_equal(bw_kobuki_encode_sub(buf, sizeof buf, &m), BW_ERANGE);
    m.u.firmware_version = (bw_kobuki_version_t){ 656, 0, 0, true };
    assert_int_equal(bw_kobuki_encode_sub(buf, sizeof buf, &m), BW_ERANGE);
    m.u.firmware_version = (bw_kobuki_version_t){ 255, 255, 255, false };
    assert_int_equal(bw_kobuki_encode_sub(buf, sizeof buf, &m), 6);
    m.u.firmware_version = (bw_kobuki_version_t){ 255, 256, 255, false };
    assert_int_equal(bw_kobuki_encode_sub(buf, sizeof buf, &m), BW_ERANGE);
}

/* ---- parser abuse ----------------------------------------------------------------- */

/* Three frames of different shapes back to back. */
static size_t three_frames(uint8_t *buf)
{
    size_t n = 0;
    n = append(buf, n, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
    n = append(buf, n, FEEDBACK, sizeof FEEDBACK);
    n = append(buf, n, REQUEST_EXTRA_0B, sizeof REQUEST_EXTRA_0B);
    return n;
}

static void expect_three(const feeder_t *f)
{
    assert_int_equal(f->nframes, 3);
    assert_int_equal(f->lens[0], 6);
    assert_memory_equal(f->frames[0], BASE_CONTROL_100 + 3, 6);
    assert_int_equal(f->lens[1], 77);
    assert_memory_equal(f->frames[1], FEEDBACK + 3, 77);
    assert_int_equal(f->lens[2], 4);
    assert_memory_equal(f->frames[2], REQUEST_EXTRA_0B + 3, 4);
}

static void test_every_split_point(void **state)
{
    (void)state;
    uint8_t s[256];
    size_t n = three_frames(s);
    for (size_t cut = 0; cut <= n; cut++) {
        feeder_t f;
        feeder_init(&f);
        feed(&f, s, cut);
        feed(&f, s + cut, n - cut);
        expect_three(&f);
        assert_int_equal(f.p.stats.skipped_bytes, 0);
        assert_int_equal(f.p.held, 0);
    }
    /* And every pair of cut points: three reads of any size. */
    for (size_t a = 0; a <= n; a += 3) {
        for (size_t b = a; b <= n; b++) {
            feeder_t f;
            feeder_init(&f);
            feed(&f, s, a);
            feed(&f, s + a, b - a);
            feed(&f, s + b, n - b);
            expect_three(&f);
        }
    }
}

static void test_one_byte_at_a_time(void **state)
{
    (void)state;
    uint8_t s[256];
    size_t n = three_frames(s);
    feeder_t f;
    feeder_init(&f);
    feed_bytewise(&f, s, n);
    expect_three(&f);
    assert_int_equal(f.p.stats.frames, 3);
}

static void test_megabytes_at_once(void **state)
{
    (void)state;
    size_t reps = 20000, n = sizeof FEEDBACK * reps;
    uint8_t *s = malloc(n);
    assert_non_null(s);
    for (size_t i = 0; i < reps; i++)
        memcpy(s + i * sizeof FEEDBACK, FEEDBACK, sizeof FEEDBACK);
    bw_kobuki_parser_t p;
    bw_kobuki_parser_init(&p);
    const uint8_t *d = s;
    size_t len = n;
    bw_kobuki_frame_t fr;
    size_t frames = 0;
    while (bw_kobuki_parse(&p, &d, &len, &fr) == 1)
        frames++;
    assert_int_equal(frames, reps);
    assert_int_equal(p.stats.frames, reps);
    assert_int_equal(p.stats.skipped_bytes, 0);
    free(s);
}

static void test_garbage_before_and_between(void **state)
{
    (void)state;
    static const uint8_t junk1[] = { 0x00, 0xFF, 0x55, 0x12, 0xAA, 0x00 }; /* lone AA too */
    static const uint8_t junk2[] = { 0x55, 0x55, 0xAA, 0x13, 0x37 };
    uint8_t s[512];
    size_t n = 0;
    n = append(s, n, junk1, sizeof junk1);
    n = append(s, n, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
    n = append(s, n, junk2, sizeof junk2);
    n = append(s, n, FEEDBACK, sizeof FEEDBACK);
    n = append(s, n, junk1, sizeof junk1);
    n = append(s, n, REQUEST_EXTRA_0B, sizeof REQUEST_EXTRA_0B);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        if (bytewise)
            feed_bytewise(&f, s, n);
        else
            feed(&f, s, n);
        expect_three(&f);
        assert_int_equal(f.p.stats.skipped_bytes, 2 * sizeof junk1 + sizeof junk2);
        assert_int_equal(f.p.stats.checksum_errors, 0);
    }
}

static void test_aa_aa_55(void **state)
{
    (void)state;
    uint8_t s[64];
    size_t n = 0;
    s[n++] = 0xAA;
    n = append(s, n, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
    s[n++] = 0xAA;
    s[n++] = 0xAA;
    s[n++] = 0xAA;
    n = append(s, n, REQUEST_EXTRA_0B, sizeof REQUEST_EXTRA_0B);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        if (bytewise)
            feed_bytewise(&f, s, n);
        else
            feed(&f, s, n);
        assert_int_equal(f.nframes, 2);
        assert_memory_equal(f.frames[0], BASE_CONTROL_100 + 3, 6);
        assert_memory_equal(f.frames[1], REQUEST_EXTRA_0B + 3, 4);
        assert_int_equal(f.p.stats.skipped_bytes, 4);
    }
}

static void test_false_header_inside_payload(void **state)
{
    (void)state;
    /* A frame whose payload holds AA 55: speed 0x55AA. */
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_BASE_CONTROL);
    m.u.base_control.speed = 0x55AA;
    m.u.base_control.radius = (int16_t)0xAA55u;
    uint8_t fr[16];
    int len = bw_kobuki_encode_frame(fr, sizeof fr, &m, 1);
    assert_int_equal(len, 10);
    assert_int_equal(fr[5], 0xAA);
    assert_int_equal(fr[6], 0x55);
    uint8_t s[64];
    size_t n = 0;
    n = append(s, n, fr, (size_t)len);
    n = append(s, n, fr, (size_t)len);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        if (bytewise)
            feed_bytewise(&f, s, n);
        else
            feed(&f, s, n);
        assert_int_equal(f.nframes, 2);
        assert_int_equal(f.p.stats.skipped_bytes, 0);
    }
    /* Joined mid-stream (the first 4 bytes lost): the parser locks onto the
     * false AA 55 inside the payload, rejects it, and still finds the next
     * real frame. */
    feeder_t f;
    feeder_init(&f);
    feed(&f, s + 4, n - 4);
    /* ...the false header claims 0x55 bytes: the parser waits for them */
    assert_int_equal(f.nframes, 0);
    /* ...then the stream ends, the false candidate is dropped as truncated
     * and the real frame behind it comes out. */
    finish(&f);
    assert_int_equal(f.nframes, 1);
    assert_memory_equal(f.frames[0], fr + 3, 6);
    assert_int_equal(f.p.stats.length_errors, 1);
    assert_int_equal(f.p.stats.skipped_bytes, (size_t)len - 4);

    /* Had the stream gone on, the false candidate would fail its checksum
     * and the real frame would come out all the same. */
    feeder_init(&f);
    feed(&f, s + 4, n - 4);
    uint8_t more[100];
    memset(more, 0, sizeof more);
    feed(&f, more, sizeof more);
    assert_int_equal(f.nframes, 1);
    assert_memory_equal(f.frames[0], fr + 3, 6);
    assert_int_equal(f.p.stats.checksum_errors, 1);
}

static void test_bad_checksum_then_good(void **state)
{
    (void)state;
    uint8_t s[256];
    size_t n = 0;
    n = append(s, n, FEEDBACK, sizeof FEEDBACK);
    s[n - 1] ^= 0x01; /* bad checksum */
    n = append(s, n, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
    n = append(s, n, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
    s[n - 4] ^= 0x80; /* a payload bit flipped */
    n = append(s, n, REQUEST_EXTRA_0B, sizeof REQUEST_EXTRA_0B);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        if (bytewise)
            feed_bytewise(&f, s, n);
        else
            feed(&f, s, n);
        assert_int_equal(f.nframes, 2);
        assert_memory_equal(f.frames[0], BASE_CONTROL_100 + 3, 6);
        assert_memory_equal(f.frames[1], REQUEST_EXTRA_0B + 3, 4);
        assert_int_equal(f.p.stats.checksum_errors, 2);
        assert_int_equal(f.rejects, 2);
        assert_int_equal(f.p.stats.skipped_bytes, sizeof FEEDBACK + sizeof BASE_CONTROL_100);
    }
}

static void test_impossible_lengths(void **state)
{
    (void)state;
    for (uint8_t len = 0; len < BW_KOBUKI_MIN_PAYLOAD; len++) {
        uint8_t s[64];
        size_t n = 0;
        s[n++] = 0xAA;
        s[n++] = 0x55;
        s[n++] = len;
        s[n++] = len; /* a "checksum" that would pass: XOR of LEN alone */
        n = append(s, n, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
        for (int bytewise = 0; bytewise < 2; bytewise++) {
            feeder_t f;
            feeder_init(&f);
            if (bytewise)
                feed_bytewise(&f, s, n);
            else
                feed(&f, s, n);
            assert_int_equal(f.nframes, 1);
            assert_memory_equal(f.frames[0], BASE_CONTROL_100 + 3, 6);
            assert_int_equal(f.p.stats.length_errors, 1);
            assert_int_equal(f.p.stats.skipped_bytes, 4);
        }
    }
}

static void test_len_255_frame(void **state)
{
    (void)state;
    /* A full 255-byte payload: 41 gyro samples (250 bytes) + docking IR (5). */
    bw_kobuki_msg_t m[2];
    bw_kobuki_msg_init(&m[0], BW_KOBUKI_RAW_GYRO);
    m[0].u.raw_gyro.count = BW_KOBUKI_GYRO_MAX_SAMPLES;
    for (unsigned i = 0; i < BW_KOBUKI_GYRO_MAX_SAMPLES; i++)
        m[0].u.raw_gyro.samples[i][2] = (int16_t)(i * 700 - 14000);
    bw_kobuki_msg_init(&m[1], BW_KOBUKI_DOCKING_IR);
    m[1].u.docking_ir.central = BW_KOBUKI_DOCK_NEAR_CENTER;
    uint8_t fr[BW_KOBUKI_MAX_FRAME];
    int len = bw_kobuki_encode_frame(fr, sizeof fr, m, 2);
    assert_int_equal(len, BW_KOBUKI_MAX_FRAME);
    assert_int_equal(fr[2], 255);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        if (bytewise)
            feed_bytewise(&f, fr, (size_t)len);
        else
            feed(&f, fr, (size_t)len);
        assert_int_equal(f.nframes, 1);
        assert_int_equal(f.lens[0], 255);
        bw_kobuki_frame_t g = { f.frames[0], 255 };
        bw_kobuki_iter_t it;
        bw_kobuki_msg_t d;
        bw_kobuki_iter_init(&it, &g, BW_KOBUKI_FROM_ROBOT, NULL);
        assert_int_equal(bw_kobuki_iter_next(&it, &d), 1);
        assert_int_equal(d.u.raw_gyro.count, 41);
        assert_int_equal(d.u.raw_gyro.samples[40][2], 40 * 700 - 14000);
        assert_int_equal(bw_kobuki_iter_next(&it, &d), 1);
        assert_int_equal(d.u.docking_ir.central, BW_KOBUKI_DOCK_NEAR_CENTER);
    }
    /* One more sample does not fit a frame. */
    m[0].u.raw_gyro.count = BW_KOBUKI_GYRO_MAX_SAMPLES + 1;
    assert_int_equal(bw_kobuki_encode_frame(fr, sizeof fr, m, 1), BW_ERANGE);
}

static void test_false_len_255_swallows_good_frames(void **state)
{
    (void)state;
    /* A false header claiming 255 bytes, followed by good frames and filler:
     * the bytes the parser already took are rescanned, nothing is lost. */
    uint8_t s[600];
    size_t n = 0;
    s[n++] = 0xAA;
    s[n++] = 0x55;
    s[n++] = 0xFF;
    n = append(s, n, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
    n = append(s, n, FEEDBACK, sizeof FEEDBACK);
    n = append(s, n, REQUEST_EXTRA_0B, sizeof REQUEST_EXTRA_0B);
    memset(s + n, 0x11, 300);
    n += 300;
    for (int mode = 0; mode < 3; mode++) {
        feeder_t f;
        feeder_init(&f);
        if (mode == 0) {
            feed(&f, s, n);
        } else if (mode == 1) {
            feed_bytewise(&f, s, n);
        } else {
            feed(&f, s, 40); /* the false header is held across reads */
            feed(&f, s + 40, n - 40);
        }
        expect_three(&f);
        /* A false length, seen as such from the good frames inside it. */
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.checksum_errors, 0);
        assert_int_equal(f.p.stats.skipped_bytes, 3 + 300);
    }
}

/* Regression (a bad cable gave the Kobuki phantom offline events): a length
 * byte damaged to 255 held the 50 Hz feedback behind it for over three
 * frames. A good frame no longer waits for it: it comes out as soon as the
 * next frame's header follows it, in whatever reads the bytes come, long
 * before the false length could be complete. */
static void test_good_frames_never_wait_behind_a_false_length(void **state)
{
    (void)state;
    uint8_t s[600];
    size_t n = 0;
    s[n++] = 0xAA;
    s[n++] = 0x55;
    s[n++] = 0xFF; /* was 0x4D */
    size_t first_end = n + sizeof FEEDBACK;
    for (int i = 0; i < 3; i++)
        n = append(s, n, FEEDBACK, sizeof FEEDBACK);
    for (int mode = 0; mode < 2; mode++) {
        feeder_t f;
        feeder_init(&f);
        /* every byte up to the next frame's two header bytes, as one read
         * or byte by byte: the first good frame is out, 3 + 255 + 1 bytes
         * are far from in */
        if (mode == 0)
            feed(&f, s, first_end + 2);
        else
            feed_bytewise(&f, s, first_end + 2);
        assert_int_equal(f.nframes, 1);
        assert_int_equal(f.lens[0], sizeof FEEDBACK - 4);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, 3);
        /* the rest of the stream: every frame, nothing more rejected */
        feed(&f, s + first_end + 2, n - first_end - 2);
        finish(&f);
        assert_int_equal(f.nframes, 3);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.checksum_errors, 0);
    }
}

/* Regression: bytes held behind a frame returned from the parser's buffer
 * were not rescanned, so a held run like 00 55 03 passed for a header when
 * the stream came a byte at a time (found by the P2OS fuzz harness's
 * split-against-whole check). */
static void test_rescan_after_frame_from_buffer(void **state)
{
    (void)state;
    uint8_t s[600];
    size_t n = 0;
    s[n++] = 0xAA;
    s[n++] = 0x55;
    s[n++] = 0xFF;
    n = append(s, n, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
    static const uint8_t trap[] = { 0x00, 0x55, 0x03, 0x01, 0x01, 0x00, 0x03 };
    n = append(s, n, trap, sizeof trap);
    memset(s + n, 0x11, 300);
    n += 300;
    feeder_t whole, bytewise;
    feeder_init(&whole);
    feeder_init(&bytewise);
    feed(&whole, s, n);
    feed_bytewise(&bytewise, s, n);
    finish(&whole);
    finish(&bytewise);
    assert_int_equal(whole.nframes, 1);
    assert_int_equal(bytewise.nframes, 1);
    assert_memory_equal(bytewise.frames[0], BASE_CONTROL_100 + 3, 6);
    assert_memory_equal(&whole.p.stats, &bytewise.p.stats, sizeof whole.p.stats);
}

static void test_gyro_count_disagrees_with_len(void **state)
{
    (void)state;
    /* Payload: gyro with len 14 (N=2) but "followed data length" 9, then an
     * unknown id 99, then docking IR. */
    static const uint8_t payload[] = {
        0x0D, 0x0E, 0x07, 0x09, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0,
        99,   0x02, 0xDE, 0xAD,
        0x03, 0x03, 0x01, 0x02, 0x04,
    };
    bw_kobuki_frame_t fr = { payload, sizeof payload };
    bw_parse_stats_t st = { 0 };
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t m;
    bw_kobuki_iter_init(&it, &fr, BW_KOBUKI_FROM_ROBOT, &st);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), BW_ELENGTH);
    assert_int_equal(m.type, BW_KOBUKI_UNKNOWN);
    assert_int_equal(m.id, 13);
    assert_int_equal(m.length, 14);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 1);
    assert_int_equal(m.type, BW_KOBUKI_UNKNOWN);
    assert_int_equal(m.id, 99);
    assert_int_equal(m.length, 2);
    assert_memory_equal(m.u.unknown.data, ((const uint8_t[]){ 0xDE, 0xAD }), 2);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 1);
    assert_int_equal(m.type, BW_KOBUKI_DOCKING_IR);
    assert_int_equal(m.u.docking_ir.left, 4);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 0);
    assert_int_equal(st.length_errors, 1);
    assert_int_equal(st.unknown, 1);

    /* A gyro length that is not 2 + 6N, and one that claims more samples
     * than the frame holds. */
    static const uint8_t odd[] = { 0x00, 0x03, 1, 0, 2, 0, 3 };
    assert_int_equal(bw_kobuki_decode(BW_KOBUKI_FROM_ROBOT, 13, odd, sizeof odd, &m), BW_ELENGTH);
    static const uint8_t big[] = { 0x00, 0xF0, 1, 0, 2, 0, 3, 0 };
    assert_int_equal(bw_kobuki_decode(BW_KOBUKI_FROM_ROBOT, 13, big, sizeof big, &m), BW_ELENGTH);
}

static void test_mis_sized_and_overrunning_subpayloads(void **state)
{
    (void)state;
    /* Basic sensor data with 14 bytes instead of 15, then current. */
    uint8_t payload[32] = { 0x01, 14 };
    size_t n = 16;
    payload[n++] = 0x06;
    payload[n++] = 0x02;
    payload[n++] = 7;
    payload[n++] = 8;
    bw_kobuki_frame_t fr = { payload, (uint8_t)n };
    bw_parse_stats_t st = { 0 };
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t m;
    bw_kobuki_iter_init(&it, &fr, BW_KOBUKI_FROM_ROBOT, &st);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), BW_ELENGTH);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 1);
    assert_int_equal(m.type, BW_KOBUKI_CURRENT);
    assert_int_equal(m.u.current.left, 7);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 0);
    assert_int_equal(st.length_errors, 1);

    /* The seed's 4-byte current (two bytes per motor) is not the robot's. */
    static const uint8_t cur4[] = { 1, 0, 2, 0 };
    assert_int_equal(bw_kobuki_decode(BW_KOBUKI_FROM_ROBOT, 6, cur4, 4, &m), BW_ELENGTH);

    /* A sub-payload claiming more bytes than the frame has: the walk ends. */
    static const uint8_t over[] = { 0x03, 0x03, 1, 2, 3, 0x05, 0x06, 1, 2 };
    bw_kobuki_frame_t fo = { over, sizeof over };
    memset(&st, 0, sizeof st);
    bw_kobuki_iter_init(&it, &fo, BW_KOBUKI_FROM_ROBOT, &st);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 1);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), BW_ETRUNC);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 0);
    assert_int_equal(st.length_errors, 1);
    /* A lone trailing identifier byte without its length. */
    static const uint8_t lone[] = { 0x03, 0x03, 1, 2, 3, 0x05 };
    bw_kobuki_frame_t fl = { lone, sizeof lone };
    bw_kobuki_iter_init(&it, &fl, BW_KOBUKI_FROM_ROBOT, &st);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 1);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), BW_ETRUNC);
}

static void test_truncated_at_end_of_stream(void **state)
{
    (void)state;
    for (size_t keep = 1; keep < sizeof FEEDBACK; keep += 7) {
        feeder_t f;
        feeder_init(&f);
        feed(&f, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
        feed(&f, FEEDBACK, keep);
        assert_int_equal(f.nframes, 1);
        finish(&f);
        assert_int_equal(f.nframes, 1);
        assert_int_equal(f.p.stats.skipped_bytes, keep);
        assert_int_equal(f.p.stats.length_errors, 1);
        /* The parser is usable again once finished. */
        feed(&f, REQUEST_EXTRA_0B, sizeof REQUEST_EXTRA_0B);
        assert_int_equal(f.nframes, 2);
    }
    /* Nothing pending: finishing drops nothing and counts nothing. */
    feeder_t f;
    feeder_init(&f);
    feed(&f, BASE_CONTROL_100, sizeof BASE_CONTROL_100);
    finish(&f);
    assert_int_equal(f.p.stats.length_errors, 0);
    assert_int_equal(f.p.stats.skipped_bytes, 0);
}

static void test_multiple_subpayloads_in_a_command_frame(void **state)
{
    (void)state;
    bw_kobuki_msg_t m[3];
    sample_msg(BW_KOBUKI_BASE_CONTROL, &m[0]);
    sample_msg(BW_KOBUKI_SOUND_SEQUENCE, &m[1]);
    sample_msg(BW_KOBUKI_GENERAL_PURPOSE_OUTPUT, &m[2]);
    uint8_t buf[64];
    int n = bw_kobuki_encode_frame(buf, sizeof buf, m, 3);
    assert_int_equal(n, 4 + 6 + 3 + 4);
    feeder_t f;
    feeder_init(&f);
    feed(&f, buf, (size_t)n);
    bw_kobuki_frame_t fr = { f.frames[0], f.lens[0] };
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t d;
    bw_kobuki_iter_init(&it, &fr, BW_KOBUKI_FROM_HOST, NULL);
    assert_int_equal(bw_kobuki_iter_next(&it, &d), 1);
    assert_int_equal(d.type, BW_KOBUKI_BASE_CONTROL);
    assert_int_equal(bw_kobuki_iter_next(&it, &d), 1);
    assert_int_equal(d.type, BW_KOBUKI_SOUND_SEQUENCE);
    assert_int_equal(bw_kobuki_iter_next(&it, &d), 1);
    assert_int_equal(d.type, BW_KOBUKI_GENERAL_PURPOSE_OUTPUT);
    assert_int_equal(bw_kobuki_iter_next(&it, &d), 0);
}

/* The seed's Sound Sequence: "Sequence number | 1 | 0 for ON sound 1 for
 * OFF sound 2 for RECHARGE sound 3 for BUTTON sound 4 for ERROR sound 5 for
 * CLEANINGSTART sound 6 for CLEANINGEND sound". The byte holds more; the
 * robot has no more: the encoder refuses 7 and up, and a 7 from the wire
 * is a command the protocol does not have (unknown, counted, its bytes
 * kept so that it encodes back as it came). */
static void test_sound_sequence_0_to_6_only(void **state)
{
    (void)state;
    bw_kobuki_msg_t m;
    uint8_t buf[16];
    for (unsigned seq = 0; seq <= 255; seq++) {
        bw_kobuki_msg_init(&m, BW_KOBUKI_SOUND_SEQUENCE);
        m.u.sound_sequence.sequence = (uint8_t)seq;
        int want = seq <= 6 ? 3 : BW_ERANGE;
        assert_int_equal(bw_kobuki_encode_sub(buf, sizeof buf, &m), want);
        assert_int_equal(bw_kobuki_sub_size(&m), seq <= 6 ? 3 : BW_ERANGE);
        assert_int_equal(bw_kobuki_encode_frame(buf, sizeof buf, &m, 1), seq <= 6 ? 7 : BW_ERANGE);
    }
    /* AA 55 03 04 01 07 CS: the frame is well made, its sequence is not one. */
    static const uint8_t seven[] = { 0xAA, 0x55, 0x03, 0x04, 0x01, 0x07, 0x01 };
    bw_kobuki_parser_t p;
    bw_kobuki_frame_t f;
    const uint8_t *data = seven;
    size_t n = sizeof seven;
    bw_kobuki_parser_init(&p);
    assert_int_equal(bw_kobuki_parse(&p, &data, &n, &f), 1);
    bw_parse_stats_t st = { 0 };
    bw_kobuki_iter_t it;
    bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_HOST, &st);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 1);
    assert_int_equal(m.type, BW_KOBUKI_UNKNOWN);
    assert_int_equal(m.id, BW_KOBUKI_CMD_SOUND_SEQUENCE);
    assert_int_equal(m.length, 1);
    assert_int_equal(m.u.unknown.data[0], 7);
    assert_int_equal(st.unknown, 1);
    assert_int_equal(st.length_errors, 0);
    assert_int_equal(bw_kobuki_iter_next(&it, &m), 0);
    /* ...and 6 is the last the seed has: a sound sequence. */
    assert_int_equal(bw_kobuki_decode(BW_KOBUKI_FROM_HOST, 4, (const uint8_t[]){ 6 }, 1, &m), 0);
    assert_int_equal(m.type, BW_KOBUKI_SOUND_SEQUENCE);
    assert_int_equal(m.u.sound_sequence.sequence, BW_KOBUKI_SOUND_CLEANING_END);
    /* The unknown re-encodes as the bytes that came. */
    assert_int_equal(bw_kobuki_decode(BW_KOBUKI_FROM_HOST, 4, seven + 5, 1, &m), 0);
    assert_int_equal(bw_kobuki_encode_frame(buf, sizeof buf, &m, 1), (int)sizeof seven);
    assert_memory_equal(buf, seven, sizeof seven);
}

static void test_writer_limits(void **state)
{
    (void)state;
    bw_kobuki_msg_t m;
    sample_msg(BW_KOBUKI_BASE_CONTROL, &m);
    uint8_t buf[BW_KOBUKI_MAX_FRAME + 8];
    /* Exactly enough room, and one byte too little. */
    assert_int_equal(bw_kobuki_encode_frame(buf, 10, &m, 1), 10);
    assert_int_equal(bw_kobuki_encode_frame(buf, 9, &m, 1), BW_ENOSPC);
    assert_int_equal(bw_kobuki_encode_frame(buf, 3, &m, 1), BW_ENOSPC);
    assert_int_equal(bw_kobuki_encode_sub(buf, 5, &m), BW_ENOSPC);
    /* 42 base controls are 252 payload bytes; a 43rd passes 255. */
    bw_kobuki_writer_t w;
    bw_kobuki_writer_init(&w, buf, sizeof buf);
    for (int i = 0; i < 42; i++)
        assert_int_equal(bw_kobuki_writer_add(&w, &m), 0);
    assert_int_equal(bw_kobuki_writer_add(&w, &m), BW_ENOSPC);
    assert_int_equal(bw_kobuki_writer_finish(&w), BW_ENOSPC); /* sticky */
    /* An empty frame, or one below the 3-byte minimum, is refused. */
    bw_kobuki_writer_init(&w, buf, sizeof buf);
    assert_int_equal(bw_kobuki_writer_finish(&w), BW_ELENGTH);
    bw_kobuki_msg_t u;
    bw_kobuki_msg_init(&u, BW_KOBUKI_UNKNOWN);
    u.id = 77;
    u.length = 0;
    assert_int_equal(bw_kobuki_encode_frame(buf, sizeof buf, &u, 1), BW_ELENGTH);
    /* Unknown with no data pointer encodes zeros. */
    u.length = 3;
    assert_int_equal(bw_kobuki_encode_frame(buf, sizeof buf, &u, 1), 9);
    assert_memory_equal(buf + 3, ((const uint8_t[]){ 77, 3, 0, 0, 0 }), 5);
    /* A type outside the enum is invalid. */
    u.type = BW_KOBUKI_TYPE_COUNT;
    assert_int_equal(bw_kobuki_sub_size(&u), BW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_base_control),
        cmocka_unit_test(test_golden_request_extra),
        cmocka_unit_test(test_golden_feedback_frame),
        cmocka_unit_test(test_golden_from_the_seed_tables),
        cmocka_unit_test(test_corrected_identifiers),
        cmocka_unit_test(test_catalogue_consistent),
        cmocka_unit_test(test_roundtrip_every_message),
        cmocka_unit_test(test_fixed_layouts_as_their_tables),
        cmocka_unit_test(test_versions_both_forms),
        cmocka_unit_test(test_every_split_point),
        cmocka_unit_test(test_one_byte_at_a_time),
        cmocka_unit_test(test_megabytes_at_once),
        cmocka_unit_test(test_garbage_before_and_between),
        cmocka_unit_test(test_aa_aa_55),
        cmocka_unit_test(test_false_header_inside_payload),
        cmocka_unit_test(test_bad_checksum_then_good),
        cmocka_unit_test(test_impossible_lengths),
        cmocka_unit_test(test_len_255_frame),
        cmocka_unit_test(test_false_len_255_swallows_good_frames),
        cmocka_unit_test(test_good_frames_never_wait_behind_a_false_length),
        cmocka_unit_test(test_rescan_after_frame_from_buffer),
        cmocka_unit_test(test_gyro_count_disagrees_with_len),
        cmocka_unit_test(test_mis_sized_and_overrunning_subpayloads),
        cmocka_unit_test(test_truncated_at_end_of_stream),
        cmocka_unit_test(test_multiple_subpayloads_in_a_command_frame),
        cmocka_unit_test(test_writer_limits),
        cmocka_unit_test(test_sound_sequence_0_to_6_only),
    };
    return cmocka_run_group_tests_name("kobuki codec", tests, NULL, NULL);
}
