/* iRobot Create OI codec: golden vectors, round trips, parser abuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/create.h"
#include "botwire/lobot.h"

/* ---- golden vectors, written out by hand from the OI's layouts ------------------ */

typedef struct {
    const char *name;
    uint8_t len;
    uint8_t wire[8];
} golden_cmd_t;

static const golden_cmd_t GOLDEN_CMDS[] = {
    { "start", 1, { 0x80 } },
    { "baud", 2, { 0x81, 0x0A } }, /* 57600 */
    { "control", 1, { 0x82 } },
    { "safe", 1, { 0x83 } },
    { "full", 1, { 0x84 } },
    { "spot", 1, { 0x86 } },
    { "cover", 1, { 0x87 } },
    { "demo", 2, { 0x88, 0xFF } }, /* abort */
    { "drive", 5, { 0x89, 0xFF, 0x38, 0x01, 0xF4 } }, /* -200 mm/s, radius 500 */
    { "low_side_drivers", 2, { 0x8A, 0x07 } },
    { "leds", 4, { 0x8B, 0x0A, 0x80, 0xFF } }, /* play + advance, orange, full */
    { "song", 7, { 0x8C, 0x00, 0x02, 0x3C, 0x20, 0x3E, 0x10 } },
    { "play", 2, { 0x8D, 0x00 } },
    { "sensors", 2, { 0x8E, 0x06 } },
    { "cover_and_dock", 1, { 0x8F } },
    { "pwm_low_side_drivers", 4, { 0x90, 0x80, 0x40, 0x00 } },
    { "drive_direct", 5, { 0x91, 0x00, 0x64, 0xFF, 0x9C } }, /* right 100, left -100 */
    { "digital_outputs", 2, { 0x93, 0x05 } },
    { "stream", 4, { 0x94, 0x02, 0x1D, 0x0D } }, /* the manual's example */
    { "query_list", 5, { 0x95, 0x03, 0x07, 0x13, 0x14 } },
    { "pause_resume_stream", 2, { 0x96, 0x00 } },
    { "send_ir", 2, { 0x97, 0x89 } },
    { "script", 7, { 0x98, 0x05, 0x89, 0x00, 0xC8, 0x80, 0x00 } },
    { "play_script", 1, { 0x99 } },
    { "show_script", 1, { 0x9A } },
    { "wait_time", 2, { 0x9B, 0x0A } },
    { "wait_distance", 3, { 0x9C, 0x01, 0xF4 } },
    { "wait_angle", 3, { 0x9D, 0xFF, 0xA6 } },
    { "wait_event", 2, { 0x9E, 0xFF } },
};
#define NGOLDEN (sizeof GOLDEN_CMDS / sizeof GOLDEN_CMDS[0])

/* The Create 1 manual's Stream example: packet 29 (2 bytes: 2, 25) and
 * packet 13 (0). Its checksum 182 leaves the header out; with the header
 * in, it is 163. */
static const uint8_t MANUAL_STREAM[] = { 19, 5, 29, 2, 25, 13, 0, 163 };
static const uint8_t MANUAL_STREAM_AFTER[] = { 19, 5, 29, 2, 25, 13, 0, 182 };

/* Packets 7 (bumps 0x03), 19 (distance -10), 20 (angle 5), 24 (battery
 * temperature -5): sum 19 + 10 + ... + 0xFB = 859, 859 % 256 = 91, 256 - 91
 * = 0xA5. */
static const uint8_t MULTI_STREAM[] = { 0x13, 0x0A, 0x07, 0x03, 0x13, 0xFF, 0xF6,
                                        0x14, 0x00, 0x05, 0x18, 0xFB, 0xA5 };

/* Group 6 with data byte i = 0x80 + i: the sum is 19 + 53 + 6 + 52 * 128 +
 * 1326 = 8060, 8060 % 256 = 124, so the checksum is 0x84. */
static void group6_frame(uint8_t *f)
{
    f[0] = 19;
    f[1] = 53;
    f[2] = 6;
    for (size_t i = 0; i < 52; i++)
        f[3 + i] = (uint8_t)(0x80 + i);
    f[55] = 0x84;
}

/* ---- helpers ------------------------------------------------------------------------- */

typedef struct {
    bw_create_cmd_parser_t p;
    size_t fed, in_cmds, total;
    size_t ncmds;
    uint8_t cmds[64][BW_CREATE_MAX_CMD];
    uint8_t lens[64];
    int rejects;
} cmd_feeder_t;

static void cmd_feeder_init(cmd_feeder_t *f)
{
    memset(f, 0, sizeof *f);
    bw_create_cmd_parser_init(&f->p);
}

static void cmd_accounting(const cmd_feeder_t *f, size_t unread)
{
    assert_int_equal(f->fed - unread,
                     f->in_cmds + f->p.stats.skipped_bytes + (size_t)(f->p.held - f->p.drop));
}

static void take_cmd(cmd_feeder_t *f, const bw_create_cmd_frame_t *c)
{
    assert_true(c->len >= 1 && c->len <= BW_CREATE_MAX_CMD);
    assert_non_null(bw_create_model_op_name((bw_create_model_t)f->p.model, c->bytes[0]));
    f->in_cmds += c->len;
    f->total++;
    if (f->ncmds == 64)
        return;
    memcpy(f->cmds[f->ncmds], c->bytes, c->len);
    f->lens[f->ncmds++] = c->len;
}

static void cmd_feed(cmd_feeder_t *f, const uint8_t *data, size_t len)
{
    f->fed += len;
    bw_create_cmd_frame_t c;
    int rc;
    while ((rc = bw_create_cmd_parse(&f->p, &data, &len, &c)) != 0) {
        if (rc < 0) {
            assert_int_equal(rc, BW_ELENGTH);
            f->rejects++;
        } else {
            take_cmd(f, &c);
        }
        cmd_accounting(f, len);
    }
    assert_int_equal(len, 0);
    cmd_accounting(f, 0);
}

static void cmd_finish(cmd_feeder_t *f)
{
    bw_create_cmd_frame_t c;
    int rc;
    while ((rc = bw_create_cmd_parser_finish(&f->p, &c)) != 0) {
        if (rc < 0)
            f->rejects++;
        else
            take_cmd(f, &c);
    }
    assert_int_equal(f->p.held, 0);
    cmd_accounting(f, 0);
}

typedef struct {
    bw_create_stream_parser_t p;
    size_t fed, in_frames, total;
    size_t nframes;
    uint8_t frames[16][BW_CREATE_MAX_STREAM_BODY];
    uint8_t lens[16];
    int rejects;
} stream_feeder_t;

static void stream_feeder_init(stream_feeder_t *f, bw_create_sum_t sum)
{
    memset(f, 0, sizeof *f);
    bw_create_stream_parser_init(&f->p, sum);
    /* These are a Create 1's parser's tests (test_create2_packets has the
     * other model's and the default's). */
    bw_create_stream_parser_model(&f->p, BW_CREATE_MODEL_1);
}

static void stream_accounting(const stream_feeder_t *f, size_t unread)
{
    assert_int_equal(f->fed - unread,
                     f->in_frames + f->p.stats.skipped_bytes + (size_t)(f->p.held - f->p.drop));
}

static void take_frame(stream_feeder_t *f, const bw_create_stream_frame_t *fr)
{
    assert_true(fr->len >= BW_CREATE_MIN_STREAM_BODY);
    /* Accepted means it walks. */
    bw_create_sensors_t s;
    assert_true(bw_create_decode_stream(fr, &s) >= 1);
    f->in_frames += (size_t)fr->len + 3;
    f->total++;
    if (f->nframes == 16)
        return;
    memcpy(f->frames[f->nframes], fr->body, fr->len);
    f->lens[f->nframes++] = fr->len;
}

static void stream_feed(stream_feeder_t *f, const uint8_t *data, size_t len)
{
    f->fed += len;
    bw_create_stream_frame_t fr;
    int rc;
    while ((rc = bw_create_stream_parse(&f->p, &data, &len, &fr)) != 0) {
        if (rc < 0) {
            assert_true(rc == BW_ECHECKSUM || rc == BW_ELENGTH || rc == BW_EUNKNOWN);
            f->rejects++;
        } else {
            take_frame(f, &fr);
        }
        stream_accounting(f, len);
    }
    assert_int_equal(len, 0);
    stream_accounting(f, 0);
}

static void stream_finish(stream_feeder_t *f)
{
    bw_create_stream_frame_t fr;
    int rc;
    while ((rc = bw_create_stream_parser_finish(&f->p, &fr)) != 0) {
        if (rc < 0)
            f->rejects++;
        else
            take_frame(f, &fr);
    }
    assert_int_equal(f->p.held, 0);
    stream_accounting(f, 0);
}

static void stream_feed_mode(stream_feeder_t *f, const uint8_t *data, size_t len, int bytewise)
{
    if (!bytewise) {
        stream_feed(f, data, len);
        return;
    }
    for (size_t i = 0; i < len; i++)
        stream_feed(f, data + i, 1);
}

static size_t append(uint8_t *buf, size_t at, const uint8_t *data, size_t n)
{
    memcpy(buf + at, data, n);
    return at + n;
}

/* Every sensor member set: group 6 from bytes 0x80 + i, unused bytes 0. */
static bw_create_sensors_t sample_sensors(void)
{
    uint8_t raw[52];
    for (size_t i = 0; i < 52; i++)
        raw[i] = (uint8_t)(0x80 + i);
    raw[8] = raw[9] = 0;
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    assert_int_equal(bw_create_decode_packet(6, raw, 52, &s), 0);
    return s;
}

/* ---- commands ------------------------------------------------------------------------ */

static bw_create_cmd_t decode_golden(const golden_cmd_t *g)
{
    bw_create_cmd_t c;
    assert_int_equal(bw_create_decode_cmd(g->wire, g->len, &c), 0);
    assert_int_equal(c.opcode, g->wire[0]);
    assert_string_equal(bw_create_op_name(c.opcode), g->name);
    uint8_t out[BW_CREATE_MAX_CMD];
    memset(out, 0xEE, sizeof out);
    assert_int_equal(bw_create_encode_cmd(out, sizeof out, &c), g->len);
    assert_memory_equal(out, g->wire, g->len);
    assert_int_equal(out[g->len], 0xEE);
    return c;
}

static void test_golden_commands(void **state)
{
    (void)state;
    bw_create_cmd_t c[NGOLDEN];
    for (size_t i = 0; i < NGOLDEN; i++)
        c[i] = decode_golden(&GOLDEN_CMDS[i]);
    assert_int_equal(c[1].u.baud, 10);
    assert_int_equal(bw_create_baud_rate(c[1].u.baud), 57600);
    assert_int_equal(c[7].u.demo, BW_CREATE_DEMO_ABORT);
    assert_int_equal(c[8].u.drive.velocity, -200);
    assert_int_equal(c[8].u.drive.radius, 500);
    assert_int_equal(c[10].u.leds.bits, BW_CREATE_LED_PLAY | BW_CREATE_LED_ADVANCE);
    assert_int_equal(c[10].u.leds.color, 128);
    assert_int_equal(c[10].u.leds.intensity, 255);
    assert_int_equal(c[11].u.song.number, 0);
    assert_int_equal(c[11].u.song.length, 2);
    assert_int_equal(c[11].u.song.notes[0].note, 60);
    assert_int_equal(c[11].u.song.notes[0].duration, 32);
    assert_int_equal(c[11].u.song.notes[1].note, 62);
    assert_int_equal(c[11].u.song.notes[1].duration, 16);
    assert_int_equal(c[13].u.sensors, 6);
    assert_int_equal(c[15].u.pwm_low_side_drivers.lsd2, 128);
    assert_int_equal(c[15].u.pwm_low_side_drivers.lsd1, 64);
    assert_int_equal(c[15].u.pwm_low_side_drivers.lsd0, 0);
    assert_int_equal(c[16].u.drive_direct.right, 100);
    assert_int_equal(c[16].u.drive_direct.left, -100);
    assert_int_equal(c[18].u.packets.n, 2);
    assert_int_equal(c[18].u.packets.ids[0], BW_CREATE_PKT_CLIFF_FRONT_LEFT_SIGNAL);
    assert_int_equal(c[18].u.packets.ids[1], BW_CREATE_PKT_VIRTUAL_WALL);
    assert_int_equal(c[19].u.packets.n, 3);
    assert_int_equal(c[19].u.packets.ids[2], BW_CREATE_PKT_ANGLE);
    assert_int_equal(c[21].u.send_ir, BW_CREATE_IR_PAUSE);
    assert_int_equal(c[22].u.script.length, 5);
    assert_int_equal(c[22].u.script.bytes[0], BW_CREATE_OP_DRIVE);
    assert_int_equal(c[25].u.wait_time, 10);
    assert_int_equal(c[26].u.wait_distance, 500);
    assert_int_equal(c[27].u.wait_angle, -90);
    assert_int_equal(c[28].u.wait_event, -1);
}

static void test_drive_special_radii(void **state)
{
    (void)state;
    static const struct {
        int16_t velocity, radius;
        uint8_t wire[5];
    } g[] = {
        { 200, BW_CREATE_RADIUS_STRAIGHT, { 0x89, 0x00, 0xC8, 0x80, 0x00 } },
        { 200, BW_CREATE_RADIUS_STRAIGHT_ALT, { 0x89, 0x00, 0xC8, 0x7F, 0xFF } },
        { 100, BW_CREATE_RADIUS_CW, { 0x89, 0x00, 0x64, 0xFF, 0xFF } },
        { 100, BW_CREATE_RADIUS_CCW, { 0x89, 0x00, 0x64, 0x00, 0x01 } },
        { -500, -2000, { 0x89, 0xFE, 0x0C, 0xF8, 0x30 } },
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        uint8_t out[8];
        assert_int_equal(bw_create_encode_drive(out, sizeof out, g[i].velocity, g[i].radius), 5);
        assert_memory_equal(out, g[i].wire, 5);
        bw_create_cmd_t c;
        bw_create_cmd_init(&c, BW_CREATE_OP_DRIVE);
        c.u.drive.velocity = g[i].velocity;
        c.u.drive.radius = g[i].radius;
        assert_int_equal(bw_create_encode_cmd(out, sizeof out, &c), 5);
        assert_memory_equal(out, g[i].wire, 5);
        bw_create_cmd_t d;
        assert_int_equal(bw_create_decode_cmd(g[i].wire, 5, &d), 0);
        assert_int_equal(d.u.drive.velocity, g[i].velocity);
        assert_int_equal(d.u.drive.radius, g[i].radius);
        assert_int_equal(bw_create_encode_drive(out, 4, 0, 0), BW_ENOSPC);
    }
    assert_int_equal(BW_CREATE_RADIUS_STRAIGHT, -32768);
    /* Drive Direct by hand and by the table. */
    uint8_t a[5], b[5];
    assert_int_equal(bw_create_encode_drive_direct(a, sizeof a, 100, -100), 5);
    assert_memory_equal(a, GOLDEN_CMDS[16].wire, 5);
    bw_create_cmd_t c;
    bw_create_cmd_init(&c, BW_CREATE_OP_DRIVE_DIRECT);
    c.u.drive_direct.right = 100;
    c.u.drive_direct.left = -100;
    assert_int_equal(bw_create_encode_cmd(b, sizeof b, &c), 5);
    assert_memory_equal(a, b, 5);
    assert_int_equal(bw_create_encode_drive_direct(a, 4, 0, 0), BW_ENOSPC);
}

static void test_op_catalogue(void **state)
{
    (void)state;
    unsigned n = 0;
    for (int op; (op = bw_create_op_at(n)) >= 0; n++) {
        assert_int_equal(op, GOLDEN_CMDS[n].wire[0]);
        assert_string_equal(bw_create_op_name((uint8_t)op), GOLDEN_CMDS[n].name);
        assert_int_equal(bw_create_op_from_name(GOLDEN_CMDS[n].name), op);
        const bw_msgdesc_t *d = bw_create_cmd_desc((uint8_t)op);
        bool variable = op == BW_CREATE_OP_SONG || op == BW_CREATE_OP_STREAM ||
                        op == BW_CREATE_OP_QUERY_LIST || op == BW_CREATE_OP_SCRIPT;
        assert_int_equal(d == NULL, variable);
        if (d) {
            assert_string_equal(d->name, GOLDEN_CMDS[n].name);
            assert_int_equal(d->order, BW_ORDER_BE);
            assert_int_equal(d->wire_len + 1, GOLDEN_CMDS[n].len);
            size_t sum = 0;
            for (size_t k = 0; k < d->nfields; k++)
                sum += bw_ftype_size((bw_ftype_t)d->fields[k].type) * d->fields[k].count;
            assert_int_equal(sum, d->wire_len);
        }
    }
    assert_int_equal(n, NGOLDEN);
    unsigned known = 0;
    for (unsigned op = 0; op < 256; op++)
        if (bw_create_op_name((uint8_t)op))
            known++;
    assert_int_equal(known, 29);
    /* Roomba-only opcodes are not Create 1 opcodes. */
    assert_null(bw_create_op_name(133));
    assert_null(bw_create_op_name(146));
    assert_null(bw_create_op_name(127));
    assert_null(bw_create_op_name(159));
    assert_null(bw_create_cmd_desc(133));
    assert_int_equal(bw_create_op_from_name("DRIVE_DIRECT"), 145);
    assert_int_equal(bw_create_op_from_name("Query_List"), 149);
    assert_int_equal(bw_create_op_from_name("power"), BW_EUNKNOWN);
    assert_int_equal(bw_create_op_from_name("driv"), BW_EUNKNOWN);
}

/* The codec decodes and encodes each packet and group with code of its own
 * (the compiler's, from the field table) where the small build walks the
 * table: both must read and write what the table says, field by field. */
static void test_packets_as_their_tables(void **state)
{
    (void)state;
    for (unsigned id = 0; id <= BW_CREATE_LAST_PACKET; id++) {
        const bw_msgdesc_t *d = bw_create_packet_desc((uint8_t)id);
        for (unsigned seed = 0; seed < 64; seed++) {
            uint8_t wire[BW_CREATE_GROUP6_SIZE];
            for (size_t k = 0; k < d->wire_len; k++)
                wire[k] = (uint8_t)(seed * 89u + k * 37u + (seed & 1 ? 0x80u : 0u));
            bw_create_sensors_t s, want;
            memset(&s, 0, sizeof s);
            memset(&want, 0, sizeof want);
            assert_int_equal(bw_create_decode_packet((uint8_t)id, wire, d->wire_len, &s), 0);
            bw_desc_decode(d, wire, &want);
            for (size_t k = 0; k < d->nfields; k++)
                if (d->fields[k].type != BW_FT_PAD)
                    assert_true(bw_field_get(&s, &d->fields[k], 0) ==
                                bw_field_get(&want, &d->fields[k], 0));
            uint8_t out[BW_CREATE_GROUP6_SIZE], ref[BW_CREATE_GROUP6_SIZE];
            assert_int_equal(bw_create_encode_packet(out, sizeof out, (uint8_t)id, &s), d->wire_len);
            bw_desc_encode(d, &want, ref);
            assert_memory_equal(out, ref, d->wire_len);
        }
    }
}

static void test_roundtrip_every_command(void **state)
{
    (void)state;
    /* One sample per opcode, including the count extremes. */
    bw_create_cmd_t m[40];
    size_t nm = 0;
    for (unsigned i = 0; bw_create_op_at(i) >= 0; i++) {
        bw_create_cmd_t *c = &m[nm++];
        bw_create_cmd_init(c, (uint8_t)bw_create_op_at(i));
        const bw_msgdesc_t *d = bw_create_cmd_desc(c->opcode);
        if (d)
            for (size_t k = 0; k < d->nfields; k++)
                bw_field_set(c, &d->fields[k], 0, bw_ftype_min((bw_ftype_t)d->fields[k].type) + 3 + (int64_t)k);
    }
    bw_create_cmd_t *c = &m[nm++];
    bw_create_cmd_init(c, BW_CREATE_OP_SONG);
    c->u.song.number = 15;
    c->u.song.length = 16;
    for (uint8_t k = 0; k < 16; k++) {
        c->u.song.notes[k].note = (uint8_t)(31 + k);
        c->u.song.notes[k].duration = (uint8_t)(255 - k);
    }
    c = &m[nm++];
    bw_create_cmd_init(c, BW_CREATE_OP_STREAM);
    c->u.packets.n = 43;
    for (uint8_t k = 0; k < 43; k++)
        c->u.packets.ids[k] = k;
    c = &m[nm++];
    bw_create_cmd_init(c, BW_CREATE_OP_QUERY_LIST); /* no packets */
    c = &m[nm++];
    bw_create_cmd_init(c, BW_CREATE_OP_SCRIPT);
    c->u.script.length = 100;
    memset(c->u.script.bytes, 0x99, 100);
    /* Counts the generic loop above left at 0 are out of range: fix them. */
    for (size_t i = 0; i < nm; i++) {
        if (m[i].opcode == BW_CREATE_OP_SONG && m[i].u.song.length == 0)
            m[i].u.song.length = 1;
        if (m[i].opcode == BW_CREATE_OP_SCRIPT && m[i].u.script.length == 0)
            m[i].u.script.length = 1;
    }

    uint8_t stream[2048];
    size_t n = 0;
    for (size_t i = 0; i < nm; i++) {
        int k = bw_create_encode_cmd(stream + n, sizeof stream - n, &m[i]);
        assert_true(k >= 1);
        n += (size_t)k;
    }
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        cmd_feeder_t f;
        cmd_feeder_init(&f);
        if (bytewise)
            for (size_t i = 0; i < n; i++)
                cmd_feed(&f, stream + i, 1);
        else
            cmd_feed(&f, stream, n);
        cmd_finish(&f);
        assert_int_equal(f.total, nm);
        assert_int_equal(f.p.stats.skipped_bytes, 0);
        assert_int_equal(f.p.stats.unknown, 0);
        for (size_t i = 0; i < nm; i++) {
            bw_create_cmd_t d;
            assert_int_equal(bw_create_decode_cmd(f.cmds[i], f.lens[i], &d), 0);
            assert_memory_equal(&d, &m[i], sizeof d);
            uint8_t again[BW_CREATE_MAX_CMD];
            assert_int_equal(bw_create_encode_cmd(again, sizeof again, &d), f.lens[i]);
            assert_memory_equal(again, f.cmds[i], f.lens[i]);
        }
    }
}

static void test_command_errors(void **state)
{
    (void)state;
    uint8_t buf[BW_CREATE_MAX_CMD];
    bw_create_cmd_t c;
    /* Decode: not an opcode, wrong sizes, counts out of range. */
    assert_int_equal(bw_create_decode_cmd((const uint8_t[]){ 133 }, 1, &c), BW_EUNKNOWN);
    assert_int_equal(bw_create_decode_cmd((const uint8_t[]){ 0x13 }, 1, &c), BW_EUNKNOWN);
    assert_int_equal(bw_create_decode_cmd(buf, 0, &c), BW_ELENGTH);
    assert_int_equal(bw_create_decode_cmd(GOLDEN_CMDS[8].wire, 4, &c), BW_ELENGTH);
    assert_int_equal(bw_create_decode_cmd(GOLDEN_CMDS[8].wire, 6, &c), BW_ELENGTH);
    assert_int_equal(bw_create_decode_cmd(GOLDEN_CMDS[11].wire, 2, &c), BW_ELENGTH);
    assert_int_equal(bw_create_decode_cmd((const uint8_t[]){ 0x8C, 0x00, 0x00 }, 3, &c), BW_ELENGTH);
    assert_int_equal(bw_create_decode_cmd((const uint8_t[]){ 0x98, 0x00 }, 2, &c), BW_ELENGTH);
    uint8_t list[64] = { 0x94, 44 };
    assert_int_equal(bw_create_decode_cmd(list, 46, &c), BW_ELENGTH);
    list[1] = 43;
    assert_int_equal(bw_create_decode_cmd(list, 45, &c), 0);
    assert_int_equal(bw_create_decode_cmd((const uint8_t[]){ 0x94, 0x00 }, 2, &c), 0);
    /* Encode: capacity, counts, unknown opcodes. */
    for (size_t i = 0; i < NGOLDEN; i++) {
        const golden_cmd_t *g = &GOLDEN_CMDS[i];
        assert_int_equal(bw_create_decode_cmd(g->wire, g->len, &c), 0);
        assert_int_equal(bw_create_encode_cmd(buf, g->len, &c), g->len);
        assert_int_equal(bw_create_encode_cmd(buf, (size_t)g->len - 1, &c), BW_ENOSPC);
    }
    bw_create_cmd_init(&c, 133);
    assert_int_equal(bw_create_encode_cmd(buf, sizeof buf, &c), BW_EUNKNOWN);
    bw_create_cmd_init(&c, BW_CREATE_OP_SONG);
    assert_int_equal(bw_create_encode_cmd(buf, sizeof buf, &c), BW_ERANGE);
    c.u.song.length = 17;
    assert_int_equal(bw_create_encode_cmd(buf, sizeof buf, &c), BW_ERANGE);
    bw_create_cmd_init(&c, BW_CREATE_OP_STREAM);
    c.u.packets.n = 44;
    assert_int_equal(bw_create_encode_cmd(buf, sizeof buf, &c), BW_ERANGE);
    bw_create_cmd_init(&c, BW_CREATE_OP_SCRIPT);
    assert_int_equal(bw_create_encode_cmd(buf, sizeof buf, &c), BW_ERANGE);
    c.u.script.length = 101;
    assert_int_equal(bw_create_encode_cmd(buf, sizeof buf, &c), BW_ERANGE);
    c.u.script.length = 100;
    assert_int_equal(bw_create_encode_cmd(buf, sizeof buf, &c), 102);
    assert_int_equal(bw_create_encode_cmd(buf, 101, &c), BW_ENOSPC);
}

/* ---- sensor packets ------------------------------------------------------------------ */

static void test_packet_tables(void **state)
{
    (void)state;
    static const int sizes[43] = {
        26, 10, 6, 10, 14, 12, 52,              /* groups 0..6 */
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 7..16 */
        1, 1, 2, 2,                             /* 17..20 */
        1, 2, 2, 1, 2, 2,                       /* 21..26 */
        2, 2, 2, 2, 2, 1, 2, 1,                 /* 27..34 */
        1, 1, 1, 1, 2, 2, 2, 2,                 /* 35..42 */
    };
    static const uint8_t group_first[7] = { 7, 7, 17, 21, 27, 35, 7 };
    static const uint8_t group_last[7] = { 26, 16, 20, 26, 34, 42, 42 };
    for (uint8_t id = 0; id <= 42; id++) {
        assert_int_equal(bw_create_packet_size(id), sizes[id]);
        const bw_msgdesc_t *d = bw_create_packet_desc(id);
        assert_non_null(d);
        assert_int_equal(d->wire_len, sizes[id]);
        assert_int_equal(d->order, BW_ORDER_BE);
        size_t sum = 0;
        for (size_t k = 0; k < d->nfields; k++) {
            sum += bw_ftype_size((bw_ftype_t)d->fields[k].type) * d->fields[k].count;
            if (d->fields[k].type != BW_FT_PAD)
                assert_true(d->fields[k].offset + 2u <= sizeof(bw_create_sensors_t));
        }
        assert_int_equal(sum, d->wire_len);
        if (id < 7) {
            /* A group is the run of its single packets. */
            assert_int_equal(d->nfields, group_last[id] - group_first[id] + 1);
            for (size_t k = 0; k < d->nfields; k++)
                assert_ptr_equal(&d->fields[k], bw_create_packet_desc((uint8_t)(group_first[id] + k))->fields);
            int total = 0;
            for (uint8_t p = group_first[id]; p <= group_last[id]; p++)
                total += sizes[p];
            assert_int_equal(total, sizes[id]);
        } else {
            assert_int_equal(d->nfields, 1);
            assert_string_equal(d->name, d->fields[0].name);
        }
        assert_string_equal(bw_create_packet_name(id), d->name);
    }
    for (unsigned id = 43; id < 256; id++) {
        assert_int_equal(bw_create_packet_size((uint8_t)id), BW_EUNKNOWN);
        assert_null(bw_create_packet_desc((uint8_t)id));
        assert_null(bw_create_packet_name((uint8_t)id));
    }
    assert_string_equal(bw_create_packet_name(6), "group_6");
    assert_string_equal(bw_create_packet_name(19), "distance");
    assert_string_equal(bw_create_packet_name(39), "requested_speed");
    assert_int_equal(bw_create_packet_id("Requested_Left_Speed"), 42);
    assert_int_equal(bw_create_packet_id("group_0"), 0);
    assert_int_equal(bw_create_packet_id("bumps_wheel_drops"), 7);
    assert_int_equal(bw_create_packet_id("unused"), BW_EUNKNOWN);
    assert_int_equal(bw_create_packet_id("spin_flag"), BW_EUNKNOWN);
    assert_int_equal(bw_create_packet_desc(15)->fields[0].type, BW_FT_PAD);
    assert_int_equal(bw_create_packet_desc(16)->fields[0].type, BW_FT_PAD);
    /* Signed: distance, angle, current, battery temperature, the four
     * requested values. */
    static const uint8_t signed_ids[] = { 19, 20, 23, 24, 39, 40, 41, 42 };
    for (uint8_t id = 7; id <= 42; id++) {
        uint8_t t = bw_create_packet_desc(id)->fields[0].type;
        bool is_signed = t == BW_FT_I8 || t == BW_FT_I16;
        assert_int_equal(is_signed, memchr(signed_ids, id, sizeof signed_ids) != NULL);
    }
}

static void test_packets_roundtrip(void **state)
{
    (void)state;
    bw_create_sensors_t s = sample_sensors();
    for (uint8_t id = 0; id <= 42; id++) {
        uint8_t buf[64];
        int n = bw_create_encode_packet(buf, sizeof buf, id, &s);
        assert_int_equal(n, bw_create_packet_size(id));
        assert_int_equal(bw_create_encode_packet(buf, (size_t)n - 1, id, &s), BW_ENOSPC);
        bw_create_sensors_t d;
        memset(&d, 0, sizeof d);
        assert_int_equal(bw_create_decode_packet(id, buf, (size_t)n, &d), 0);
        /* Only the packet's own members are set. */
        const bw_msgdesc_t *desc = bw_create_packet_desc(id);
        for (size_t k = 0; k < desc->nfields; k++)
            if (desc->fields[k].type != BW_FT_PAD)
                assert_int_equal(bw_field_get(&d, &desc->fields[k], 0), bw_field_get(&s, &desc->fields[k], 0));
        if (id == 19) {
            assert_int_equal(d.distance, s.distance);
            assert_int_equal(d.angle, 0);
        }
        assert_int_equal(bw_create_decode_packet(id, buf, (size_t)n + 1, &d), BW_ELENGTH);
    }
    assert_int_equal(bw_create_decode_packet(43, NULL, 0, &s), BW_EUNKNOWN);
    uint8_t b[4];
    assert_int_equal(bw_create_encode_packet(b, sizeof b, 43, &s), BW_EUNKNOWN);

    /* Group 6 and lobot's SENSORS read the same bytes the same way. */
    uint8_t raw[53];
    for (size_t i = 0; i < 53; i++)
        raw[i] = (uint8_t)(0x80 + i);
    bw_create_sensors_t g6;
    memset(&g6, 0, sizeof g6);
    assert_int_equal(bw_create_decode_packet(6, raw, 52, &g6), 0);
    bw_lobot_ack_t a;
    assert_int_equal(bw_lobot_decode_ack('$', raw, 53, &a), 0);
    assert_memory_equal(&a.u.sensors.oi, &g6, sizeof g6);
    assert_int_equal(g6.distance, -29555);
    assert_int_equal(g6.battery_temp, -107);
    assert_int_equal(g6.requested_left_speed, -19789);

    /* Query List replies: packets back to back, no framing. */
    static const uint8_t ids[] = { 7, 19, 20, 35, 3 };
    int qn = bw_create_query_size(ids, sizeof ids);
    assert_int_equal(qn, 1 + 2 + 2 + 1 + 10);
    uint8_t q[64];
    assert_int_equal(bw_create_encode_query(q, sizeof q, ids, sizeof ids, &s), qn);
    assert_int_equal(bw_create_encode_query(q, (size_t)qn - 1, ids, sizeof ids, &s), BW_ENOSPC);
    bw_create_sensors_t d;
    memset(&d, 0, sizeof d);
    assert_int_equal(bw_create_decode_query(ids, sizeof ids, q, (size_t)qn, &d), 0);
    assert_int_equal(d.bumps_wheel_drops, s.bumps_wheel_drops);
    assert_int_equal(d.distance, s.distance);
    assert_int_equal(d.angle, s.angle);
    assert_int_equal(d.oi_mode, s.oi_mode);
    assert_int_equal(d.charging_state, s.charging_state);
    assert_int_equal(d.battery_capacity, s.battery_capacity);
    assert_int_equal(d.wall_signal, 0);
    assert_int_equal(bw_create_decode_query(ids, sizeof ids, q, (size_t)qn - 1, &d), BW_ELENGTH);
    static const uint8_t bad_ids[] = { 7, 43 };
    assert_int_equal(bw_create_query_size(bad_ids, 2), BW_EUNKNOWN);
    assert_int_equal(bw_create_decode_query(bad_ids, 2, q, 2, &d), BW_EUNKNOWN);
    assert_int_equal(bw_create_encode_query(q, sizeof q, bad_ids, 2, &s), BW_EUNKNOWN);
}

/* ---- Stream frames ------------------------------------------------------------------- */

static void test_golden_stream_frames(void **state)
{
    (void)state;
    /* The manual's example, both checksum rules. */
    uint8_t out[BW_CREATE_MAX_FRAME];
    static const uint8_t ids[] = { 29, 13 };
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    s.cliff_front_left_signal = 0x0219; /* bytes 2, 25 */
    assert_int_equal(bw_create_encode_stream(out, sizeof out, ids, 2, &s, BW_CREATE_SUM_WITH_HEADER), 8);
    assert_memory_equal(out, MANUAL_STREAM, 8);
    assert_int_equal(bw_create_encode_stream(out, sizeof out, ids, 2, &s, BW_CREATE_SUM_AFTER_HEADER), 8);
    assert_memory_equal(out, MANUAL_STREAM_AFTER, 8);
    for (int variant = 0; variant < 2; variant++) {
        const uint8_t *w = variant ? MANUAL_STREAM_AFTER : MANUAL_STREAM;
        stream_feeder_t f;
        stream_feeder_init(&f, (bw_create_sum_t)variant);
        stream_feed(&f, w, 8);
        assert_int_equal(f.nframes, 1);
        assert_int_equal(f.lens[0], 5);
        bw_create_stream_frame_t fr = { f.frames[0], f.lens[0], BW_CREATE_MODEL_1 };
        bw_create_sensors_t d;
        memset(&d, 0xFF, sizeof d);
        assert_int_equal(bw_create_decode_stream(&fr, &d), 2);
        /* 2, 25 is 0x0219 = 537 (the manual's "549 (0x0225)" reads the
         * decimal bytes as hex digits). */
        assert_int_equal(d.cliff_front_left_signal, 537);
        assert_int_equal(d.virtual_wall, 0);
        /* The other rule rejects it. */
        stream_feeder_init(&f, (bw_create_sum_t)!variant);
        stream_feed(&f, w, 8);
        assert_int_equal(f.nframes, 0);
        assert_int_equal(f.p.stats.checksum_errors, 1);
    }

    /* Several packets. */
    static const uint8_t mids[] = { 7, 19, 20, 24 };
    memset(&s, 0, sizeof s);
    s.bumps_wheel_drops = BW_CREATE_BUMP_LEFT | BW_CREATE_BUMP_RIGHT;
    s.distance = -10;
    s.angle = 5;
    s.battery_temp = -5;
    assert_int_equal(bw_create_encode_stream(out, sizeof out, mids, 4, &s, BW_CREATE_SUM_WITH_HEADER),
                     sizeof MULTI_STREAM);
    assert_memory_equal(out, MULTI_STREAM, sizeof MULTI_STREAM);
    bw_create_stream_frame_t fr = { MULTI_STREAM + 2, 10, BW_CREATE_MODEL_1 };
    size_t off = 0;
    uint8_t id;
    const uint8_t *data;
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(bw_create_stream_next(&fr, &off, &id, &data), 1);
        assert_int_equal(id, mids[i]);
    }
    assert_int_equal(bw_create_stream_next(&fr, &off, &id, &data), 0);
    bw_create_sensors_t d;
    memset(&d, 0, sizeof d);
    assert_int_equal(bw_create_decode_stream(&fr, &d), 4);
    assert_memory_equal(&d, &s, sizeof d);

    /* Group 6: the same bytes as lobot's SENSORS 0..51. */
    uint8_t g6[56];
    group6_frame(g6);
    stream_feeder_t f;
    stream_feeder_init(&f, BW_CREATE_SUM_WITH_HEADER);
    stream_feed(&f, g6, sizeof g6);
    assert_int_equal(f.nframes, 1);
    fr.body = f.frames[0];
    fr.len = f.lens[0];
    memset(&d, 0, sizeof d);
    assert_int_equal(bw_create_decode_stream(&fr, &d), 1);
    assert_int_equal(d.bumps_wheel_drops, 0x80);
    assert_int_equal(d.distance, -29555);
    assert_int_equal(d.requested_left_speed, -19789);
    /* Framing an encoded body gives the same frame. */
    assert_int_equal(bw_create_frame_stream_body(out, sizeof out, g6 + 2, 53, BW_CREATE_SUM_WITH_HEADER), 56);
    assert_memory_equal(out, g6, 56);
    /* In place. */
    memcpy(out + 2, g6 + 2, 53);
    assert_int_equal(bw_create_frame_stream_body(out, sizeof out, out + 2, 53, BW_CREATE_SUM_WITH_HEADER), 56);
    assert_memory_equal(out, g6, 56);
}

static void test_stream_encode_errors(void **state)
{
    (void)state;
    uint8_t out[BW_CREATE_MAX_FRAME + 8];
    bw_create_sensors_t s = sample_sensors();
    static const uint8_t ids[] = { 6, 6, 6, 6 };
    /* 4 x 53 = 212 bytes fit; five would be 265. */
    assert_int_equal(bw_create_encode_stream(out, sizeof out, ids, 4, &s, 0), 215);
    assert_int_equal(bw_create_encode_stream(out, 214, ids, 4, &s, 0), BW_ENOSPC);
    static const uint8_t five[] = { 6, 6, 6, 6, 6 };
    assert_int_equal(bw_create_encode_stream(out, sizeof out, five, 5, &s, 0), BW_ERANGE);
    assert_int_equal(bw_create_encode_stream(out, sizeof out, ids, 0, &s, 0), BW_ERANGE);
    static const uint8_t bad[] = { 7, 200 };
    assert_int_equal(bw_create_encode_stream(out, sizeof out, bad, 2, &s, 0), BW_EUNKNOWN);
    /* 255 bytes exactly: 127 one-byte packets and one more byte... 85 x
     * (id + 2 bytes) = 255. */
    uint8_t many[85];
    memset(many, 19, sizeof many);
    assert_int_equal(bw_create_encode_stream(out, sizeof out, many, 85, &s, 0), 258);
    assert_int_equal(out[1], 255);
    stream_feeder_t f;
    stream_feeder_init(&f, 0);
    stream_feed(&f, out, 258);
    assert_int_equal(f.nframes, 1);
    assert_int_equal(f.lens[0], 255);
    assert_int_equal(bw_create_frame_stream_body(out, sizeof out, out, 1, 0), BW_ERANGE);
    assert_int_equal(bw_create_frame_stream_body(out, sizeof out, out, 256, 0), BW_ERANGE);
    assert_int_equal(bw_create_frame_stream_body(out, 5, MULTI_STREAM + 2, 10, 0), BW_ENOSPC);
    /* A walk that fails. */
    static const uint8_t cut[] = { 19, 0x01 }; /* distance needs 2 bytes */
    bw_create_stream_frame_t fr = { cut, 2, BW_CREATE_MODEL_1 };
    size_t off = 0;
    uint8_t id;
    const uint8_t *data;
    assert_int_equal(bw_create_stream_next(&fr, &off, &id, &data), BW_ETRUNC);
    bw_create_sensors_t d;
    assert_int_equal(bw_create_decode_stream(&fr, &d), BW_ETRUNC);
    static const uint8_t unk[] = { 50, 0x01 };
    fr.body = unk;
    assert_int_equal(bw_create_decode_stream(&fr, &d), BW_EUNKNOWN);
}

/* ---- a Stream body two ways: the host's walk against the packet catalogue ---------- */

/* The packet-by-packet reference: bw_create_stream_next over the size
 * tables, each packet through bw_create_model_decode_packet. */
static int reference_walk(const bw_create_stream_frame_t *f, bw_create_sensors_t *s, bool *two)
{
    size_t off = 0;
    uint8_t id;
    const uint8_t *data;
    int rc, n = 0;
    bw_create_model_t m = (f->model == BW_CREATE_MODEL_2 || f->model == 2) ? BW_CREATE_MODEL_2
                                                                           : BW_CREATE_MODEL_1;
    *two = false;
    while ((rc = bw_create_stream_next(f, &off, &id, &data)) == 1) {
        int size = bw_create_model_packet_size(m, id);
        assert_int_equal(bw_create_model_decode_packet(m, id, data, (size_t)size, s), 0);
        *two |= bw_create_packet_size(id) < 0;
        n++;
    }
    return rc < 0 ? rc : n;
}

static uint32_t xorshift(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* Decodes body both ways for each model value a frame may carry, from the
 * same starting struct, and checks the same count or error and the same
 * struct; then frames it and checks that the parser takes it (and says its
 * model) exactly when the reference walk does. */
static void both_ways(const uint8_t *body, size_t len, uint32_t fill)
{
    static const uint8_t models[] = { BW_CREATE_MODEL_1, BW_CREATE_MODEL_2, 2, 7 };
    for (size_t k = 0; k < sizeof models; k++) {
        bw_create_stream_frame_t f = { body, (uint8_t)len, models[k] };
        bw_create_sensors_t a, b;
        memset(&a, (int)(fill & 0xFF), sizeof a);
        memset(&b, (int)(fill & 0xFF), sizeof b);
        bool two;
        int want = reference_walk(&f, &a, &two);
        int got = bw_create_decode_stream(&f, &b);
        if (got != want || memcmp(&a, &b, sizeof a) != 0) {
            print_error("model %u, %zu bytes from id %u: walk %d, reference %d\n", models[k], len,
                        len ? body[0] : 0, got, want);
            fail();
        }
        if (k == 3 || len < BW_CREATE_MIN_STREAM_BODY)
            continue;
        /* The parser's check, on the frame alone in its input. */
        uint8_t frame[BW_CREATE_MAX_FRAME];
        assert_int_equal(bw_create_frame_stream_body(frame, sizeof frame, body, len, 0),
                         (int)len + 3);
        bw_create_stream_parser_t p;
        bw_create_stream_parser_init(&p, BW_CREATE_SUM_WITH_HEADER);
        if (k < 2)
            bw_create_stream_parser_model(&p, (bw_create_model_t)models[k]);
        const uint8_t *d = frame;
        size_t n = len + 3;
        bw_create_stream_frame_t out;
        int rc = bw_create_stream_parse(&p, &d, &n, &out);
        int expect = want > 0 ? 1 : want == BW_ETRUNC ? BW_ELENGTH : want;
        if (rc != expect) {
            print_error("parser of model %u, %zu bytes from id %u: %d, reference %d\n", models[k],
                        len, body[0], rc, expect);
            fail();
        }
        if (rc == 1) {
            assert_int_equal(out.len, len); /* in place, or gathered (BW_SMALL) */
            assert_memory_equal(out.body, body, len);
            assert_int_equal(out.model, k < 2 ? models[k] : two ? 1 : 0);
        }
    }
}

static void test_stream_walk_both_ways(void **state)
{
    (void)state;
    static const uint8_t lists[][24] = {
        { 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 35 },
        { 6 },
        { 100 },
        { 7, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58 },
        { 1, 2, 3, 35, 36, 37, 38, 39, 40, 41, 42, 43 },
        { 101, 106, 107, 15, 16, 15, 0, 4, 5, 19, 19, 20 },
    };
    static const uint8_t nids[] = { 20, 1, 1, 17, 12, 12 };
    uint32_t x = 0x2545F491u;
    uint8_t body[BW_CREATE_MAX_STREAM_BODY];
    for (size_t l = 0; l < sizeof nids; l++) {
        for (unsigned rep = 0; rep < 20; rep++) {
            /* The list with values, as a Create 2 would send it. */
            size_t len = 0;
            for (size_t i = 0; i < nids[l]; i++) {
                int size = bw_create_model_packet_size(BW_CREATE_MODEL_2, lists[l][i]);
                assert_true(size > 0);
                body[len++] = lists[l][i];
                for (int k = 0; k < size; k++)
                    body[len++] = (uint8_t)xorshift(&x);
            }
            both_ways(body, len, x);
            /* Cut short at every length, and damaged at every byte. */
            for (size_t cut = 0; cut < len; cut++)
                both_ways(body, cut, x >> 8);
            for (size_t at = 0; at < len; at++) {
                uint8_t was = body[at];
                body[at] = (uint8_t)xorshift(&x);
                both_ways(body, len, x);
                body[at] = (uint8_t)(was + 1);
                both_ways(body, len, x);
                body[at] = was;
            }
        }
    }
    /* Bodies of ids in runs with random jumps, and random bytes. */
    for (unsigned rep = 0; rep < 20000; rep++) {
        size_t len = 0, want = 2 + xorshift(&x) % 200;
        uint8_t id = (uint8_t)(xorshift(&x) % 60);
        while (len < want) {
            if (xorshift(&x) % 4 == 0)
                id = (uint8_t)(xorshift(&x) % 4 == 0 ? xorshift(&x) : xorshift(&x) % 60);
            body[len++] = id++;
            int size = bw_create_model_packet_size(BW_CREATE_MODEL_2, body[len - 1]);
            for (int k = 0; k < (size > 0 ? size : 1) && len < sizeof body; k++)
                body[len++] = (uint8_t)xorshift(&x);
        }
        both_ways(body, len, x);
        both_ways(body, len - 1 - xorshift(&x) % (len - 1), x);
        for (size_t i = 0; i < len; i++)
            body[i] = (uint8_t)xorshift(&x);
        both_ways(body, len, x);
    }
}

/* ---- the Stream parser ------------------------------------------------------------- */

static size_t three_frames(uint8_t *s)
{
    size_t n = 0;
    n = append(s, n, MANUAL_STREAM, sizeof MANUAL_STREAM);
    group6_frame(s + n);
    n += 56;
    n = append(s, n, MULTI_STREAM, sizeof MULTI_STREAM);
    return n;
}

static void expect_three_frames(const stream_feeder_t *f)
{
    uint8_t g6[56];
    group6_frame(g6);
    assert_int_equal(f->nframes, 3);
    assert_int_equal(f->lens[0], 5);
    assert_memory_equal(f->frames[0], MANUAL_STREAM + 2, 5);
    assert_int_equal(f->lens[1], 53);
    assert_memory_equal(f->frames[1], g6 + 2, 53);
    assert_int_equal(f->lens[2], 10);
    assert_memory_equal(f->frames[2], MULTI_STREAM + 2, 10);
}

static void test_stream_every_split_point(void **state)
{
    (void)state;
    uint8_t s[128];
    size_t n = three_frames(s);
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b++) {
            stream_feeder_t f;
            stream_feeder_init(&f, BW_CREATE_SUM_WITH_HEADER);
            stream_feed(&f, s, a);
            stream_feed(&f, s + a, b - a);
            stream_feed(&f, s + b, n - b);
            expect_three_frames(&f);
            assert_int_equal(f.p.stats.skipped_bytes, 0);
            assert_int_equal(f.p.stats.frames, 3);
            stream_finish(&f);
            assert_int_equal(f.p.stats.length_errors, 0);
        }
    stream_feeder_t f;
    stream_feeder_init(&f, BW_CREATE_SUM_WITH_HEADER);
    stream_feed_mode(&f, s, n, 1);
    expect_three_frames(&f);
}

static void test_stream_zero_copy(void **state)
{
    (void)state;
    size_t reps = 20000, n = 56 * reps;
    uint8_t *s = malloc(n);
    assert_non_null(s);
    for (size_t i = 0; i < reps; i++)
        group6_frame(s + 56 * i);
    bw_create_stream_parser_t p;
    bw_create_stream_parser_init(&p, BW_CREATE_SUM_WITH_HEADER);
    const uint8_t *d = s;
    size_t len = n, got = 0;
    bw_create_stream_frame_t fr;
    while (bw_create_stream_parse(&p, &d, &len, &fr) == 1) {
        /* Whole frames in the input are returned where they lie (the
         * small scanner copies every frame). */
        assert_memory_equal(fr.body, s + 56 * got + 2, fr.len);
        if (!BW_SMALL)
            assert_ptr_equal(fr.body, s + 56 * got + 2);
        got++;
    }
    assert_int_equal(got, reps);
    assert_int_equal(p.stats.skipped_bytes, 0);
    free(s);
}

static void test_stream_garbage(void **state)
{
    (void)state;
    static const uint8_t junk[] = { 0x00, 0xFF, 0x05, 0x20 };
    uint8_t s[256];
    size_t n = 0;
    n = append(s, n, junk, sizeof junk);
    n = append(s, n, MANUAL_STREAM, sizeof MANUAL_STREAM);
    n = append(s, n, junk, sizeof junk);
    group6_frame(s + n);
    n += 56;
    n = append(s, n, junk, 3);
    n = append(s, n, MULTI_STREAM, sizeof MULTI_STREAM);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        stream_feeder_t f;
        stream_feeder_init(&f, BW_CREATE_SUM_WITH_HEADER);
        stream_feed_mode(&f, s, n, bytewise);
        expect_three_frames(&f);
        assert_int_equal(f.p.stats.skipped_bytes, 2 * sizeof junk + 3);
        assert_int_equal(f.rejects, 0);
        assert_int_equal(f.p.stats.unknown, 0);
    }
}

static void test_stream_bad_frames_then_good(void **state)
{
    (void)state;
    uint8_t s[512];
    size_t n = 0;
    /* A wrong checksum. None of these bad frames has a 19 after its
     * header, so each is one rejection and its bytes are skipped. */
    n = append(s, n, MANUAL_STREAM, sizeof MANUAL_STREAM);
    s[n - 1] ^= 0x01;
    /* N = 1 and N = 0: impossible lengths. */
    n = append(s, n, (const uint8_t[]){ 19, 1, 7, 0xDF }, 4);
    n = append(s, n, (const uint8_t[]){ 19, 0, 0xED }, 3);
    /* A good checksum around an unknown packet id (50): 19 + 2 + 50 + 1 =
     * 72, checksum 184. */
    n = append(s, n, (const uint8_t[]){ 19, 2, 50, 1, 184 }, 5);
    /* A good checksum around packets that do not end at it: voltage (22,
     * 2 bytes) given 1: 19 + 2 + 22 + 5 = 48, checksum 208. */
    n = append(s, n, (const uint8_t[]){ 19, 2, 22, 5, 208 }, 5);
    n = append(s, n, MANUAL_STREAM, sizeof MANUAL_STREAM);
    size_t good_at = n;
    group6_frame(s + n);
    n += 56;
    n = append(s, n, MULTI_STREAM, sizeof MULTI_STREAM);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        stream_feeder_t f;
        stream_feeder_init(&f, BW_CREATE_SUM_WITH_HEADER);
        stream_feed_mode(&f, s, n, bytewise);
        stream_finish(&f);
        expect_three_frames(&f);
        assert_int_equal(f.p.stats.checksum_errors, 1);
        assert_int_equal(f.p.stats.length_errors, 3);
        assert_int_equal(f.p.stats.unknown, 1);
        assert_int_equal(f.p.stats.skipped_bytes, good_at - sizeof MANUAL_STREAM);
        assert_int_equal(f.rejects, 5);
    }
}

static void test_stream_false_header_in_data(void **state)
{
    (void)state;
    /* Distance 0x1313 puts 19 19 in the data. Joined in the middle of the
     * first frame, the false headers are tried and rejected, and the next
     * frame is found. */
    static const uint8_t ids[] = { 19 };
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    s.distance = 0x1313;
    uint8_t fr[8];
    int len = bw_create_encode_stream(fr, sizeof fr, ids, 1, &s, 0);
    assert_int_equal(len, 6);
    assert_memory_equal(fr, ((const uint8_t[]){ 19, 3, 19, 19, 19 }), 5);
    uint8_t st[64];
    size_t n = 0;
    for (int i = 0; i < 3; i++)
        n = append(st, n, fr, 6);
    for (size_t join = 0; join < 6; join++)
        for (int bytewise = 0; bytewise < 2; bytewise++) {
            stream_feeder_t f;
            stream_feeder_init(&f, 0);
            stream_feed_mode(&f, st + join, n - join, bytewise);
            stream_finish(&f);
            assert_int_equal(f.total, join == 0 ? 3 : 2);
            assert_int_equal(f.p.stats.skipped_bytes, join == 0 ? 0 : 6 - join);
            for (size_t i = 0; i < f.nframes; i++)
                assert_memory_equal(f.frames[i], fr + 2, 3);
        }
}

static void test_stream_false_long_header_swallows_frames(void **state)
{
    (void)state;
    /* A false 19 N=200 takes in the good frames behind it; when its
     * checksum fails, they are found by the rescan. */
    uint8_t s[512];
    size_t n = 0;
    s[n++] = 19;
    s[n++] = 200;
    n += three_frames(s + n);
    memset(s + n, 0x11, 300);
    n += 300;
    for (int mode = 0; mode < 3; mode++) {
        stream_feeder_t f;
        stream_feeder_init(&f, 0);
        if (mode < 2) {
            stream_feed_mode(&f, s, n, mode);
        } else {
            stream_feed(&f, s, 40);
            stream_feed(&f, s + 40, n - 40);
        }
        expect_three_frames(&f);
        assert_int_equal(f.p.stats.checksum_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, 2 + 300);
    }
}

static void test_stream_truncated(void **state)
{
    (void)state;
    uint8_t g6[56];
    group6_frame(g6);
    for (size_t keep = 1; keep < 56; keep++) {
        stream_feeder_t f;
        stream_feeder_init(&f, 0);
        stream_feed(&f, MANUAL_STREAM, sizeof MANUAL_STREAM);
        stream_feed(&f, g6, keep);
        stream_finish(&f);
        assert_int_equal(f.total, 1);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, keep);
        stream_feed(&f, MULTI_STREAM, sizeof MULTI_STREAM);
        assert_int_equal(f.total, 2);
    }
    /* A cut false candidate hides a whole frame: finish finds it. */
    uint8_t s[32];
    size_t n = 0;
    s[n++] = 19;
    s[n++] = 100;
    n = append(s, n, MULTI_STREAM, sizeof MULTI_STREAM);
    stream_feeder_t f;
    stream_feeder_init(&f, 0);
    stream_feed(&f, s, n);
    assert_int_equal(f.total, 0);
    stream_finish(&f);
    assert_int_equal(f.total, 1);
    assert_memory_equal(f.frames[0], MULTI_STREAM + 2, 10);
    assert_int_equal(f.p.stats.length_errors, 1);
    assert_int_equal(f.p.stats.skipped_bytes, 2);
}

static void test_stream_random_splits(void **state)
{
    (void)state;
    uint8_t s[8192];
    uint32_t r = 99;
    size_t n = 0;
    bw_create_sensors_t sens = sample_sensors();
    while (n + 300 < sizeof s) {
        r = r * 1103515245u + 12345u;
        if ((r >> 16) % 3 == 0) {
            s[n++] = (r >> 24) % 4 ? (uint8_t)(r >> 24) : 19;
        } else {
            uint8_t ids[4];
            for (int k = 0; k < 4; k++) {
                r = r * 1103515245u + 12345u;
                ids[k] = (uint8_t)((r >> 16) % 43);
            }
            int k = bw_create_encode_stream(s + n, sizeof s - n, ids, 1 + (r >> 28) % 4, &sens, 0);
            assert_true(k > 0);
            n += (size_t)k;
        }
    }
    stream_feeder_t whole, cut;
    stream_feeder_init(&whole, 0);
    stream_feed(&whole, s, n);
    stream_finish(&whole);
    stream_feeder_init(&cut, 0);
    for (size_t off = 0; off < n;) {
        r = r * 1103515245u + 12345u;
        size_t k = 1 + (r >> 16) % 200;
        if (k > n - off)
            k = n - off;
        stream_feed(&cut, s + off, k);
        off += k;
    }
    stream_finish(&cut);
    assert_memory_equal(&whole.p.stats, &cut.p.stats, sizeof whole.p.stats);
    assert_int_equal(whole.total, cut.total);
    assert_true(whole.total > 30);
    assert_memory_equal(whole.frames, cut.frames, sizeof whole.frames);
}

/* ---- the command parser ------------------------------------------------------------ */

static size_t every_cmd(uint8_t *s)
{
    size_t n = 0;
    for (size_t i = 0; i < NGOLDEN; i++)
        n = append(s, n, GOLDEN_CMDS[i].wire, GOLDEN_CMDS[i].len);
    return n;
}

static void expect_every_cmd(const cmd_feeder_t *f)
{
    assert_int_equal(f->ncmds, NGOLDEN);
    for (size_t i = 0; i < NGOLDEN; i++) {
        assert_int_equal(f->lens[i], GOLDEN_CMDS[i].len);
        assert_memory_equal(f->cmds[i], GOLDEN_CMDS[i].wire, GOLDEN_CMDS[i].len);
    }
}

static void test_cmd_every_split_point(void **state)
{
    (void)state;
    uint8_t s[256];
    size_t n = every_cmd(s);
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b++) {
            cmd_feeder_t f;
            cmd_feeder_init(&f);
            cmd_feed(&f, s, a);
            cmd_feed(&f, s + a, b - a);
            cmd_feed(&f, s + b, n - b);
            expect_every_cmd(&f);
            assert_int_equal(f.p.stats.skipped_bytes, 0);
            assert_int_equal(f.p.stats.frames, NGOLDEN);
            cmd_finish(&f);
            assert_int_equal(f.p.stats.length_errors, 0);
        }
}

static void test_cmd_zero_copy(void **state)
{
    (void)state;
    uint8_t s[256];
    size_t n = every_cmd(s);
    bw_create_cmd_parser_t p;
    bw_create_cmd_parser_init(&p);
    const uint8_t *d = s;
    size_t len = n, at = 0, i = 0;
    bw_create_cmd_frame_t c;
    while (bw_create_cmd_parse(&p, &d, &len, &c) == 1) {
        assert_memory_equal(c.bytes, s + at, c.len);
        if (!BW_SMALL)
            assert_ptr_equal(c.bytes, s + at);
        at += GOLDEN_CMDS[i++].len;
    }
    assert_int_equal(i, NGOLDEN);
}

static void test_cmd_unknown_opcodes(void **state)
{
    (void)state;
    /* Bytes that are no opcode of either model: skipped one at a time,
     * counted as skipped and as unknown. */
    static const uint8_t junk[] = { 0x00, 0x7F, 200, 160, 255 };
    uint8_t s[256];
    size_t n = 0;
    n = append(s, n, junk, sizeof junk);
    n = append(s, n, GOLDEN_CMDS[8].wire, 5);
    n = append(s, n, junk, sizeof junk);
    n = append(s, n, GOLDEN_CMDS[11].wire, 7);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        cmd_feeder_t f;
        cmd_feeder_init(&f);
        if (bytewise)
            for (size_t i = 0; i < n; i++)
                cmd_feed(&f, s + i, 1);
        else
            cmd_feed(&f, s, n);
        assert_int_equal(f.ncmds, 2);
        assert_memory_equal(f.cmds[0], GOLDEN_CMDS[8].wire, 5);
        assert_memory_equal(f.cmds[1], GOLDEN_CMDS[11].wire, 7);
        assert_int_equal(f.p.stats.skipped_bytes, 2 * sizeof junk);
        assert_int_equal(f.p.stats.unknown, 2 * sizeof junk);
        assert_int_equal(f.rejects, 0);
    }
}

/* Feeds s whole and byte by byte to a parser of model m. */
static void cmd_feed_model(cmd_feeder_t *f, bw_create_model_t m, const uint8_t *s, size_t n,
                           int bytewise)
{
    cmd_feeder_init(f);
    bw_create_cmd_parser_model(&f->p, m);
    if (bytewise)
        for (size_t i = 0; i < n; i++)
            cmd_feed(f, s + i, 1);
    else
        cmd_feed(f, s, n);
    cmd_finish(f);
}

/* The data bytes of the other model's opcode are no commands.
 * Digit LEDs ASCII "5071" on a Create 1 was five unknown opcodes (and '5'
 * 0x35, ... could have been read as anything); now it is one, skipped whole. */
static void test_cmd_other_model_skipped_whole(void **state)
{
    (void)state;
    static const uint8_t to_c1[] = {
        164, '5', '0', '7', '1',         /* Digit LEDs ASCII */
        163, 137, 0x80, 0x8C, 142,       /* Digit LEDs Raw: data bytes that are Create 1 opcodes */
        167, 0x7F, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, /* Schedule */
        146, 0, 100, 0, 100,             /* Drive PWM */
        173, 7, 133, 165, 0x01, 168, 1, 2, 3, 162, 0x7F, 0x1F,
        137, 0x00, 0xC8, 0x80, 0x00,     /* a Drive after all that */
    };
    static const uint8_t to_c2[] = {
        152, 3, 137, 0x00, 0xC8,         /* Script of three bytes: its bytes are not a Drive */
        147, 137, 151, 142, 155, 137, 156, 0x00, 137, 157, 0x00, 137, 158, 142, 153, 154,
        145, 0x00, 0xC8, 0x00, 0xC8,     /* a Drive Direct after all that */
    };
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        cmd_feeder_t f;
        cmd_feed_model(&f, BW_CREATE_MODEL_1, to_c1, sizeof to_c1, bytewise);
        assert_int_equal(f.ncmds, 1);
        assert_int_equal(f.cmds[0][0], BW_CREATE_OP_DRIVE);
        assert_int_equal(f.p.stats.unknown, 10);
        assert_int_equal(f.p.stats.skipped_bytes, sizeof to_c1 - 5);
        assert_int_equal(f.rejects, 0);
        cmd_feed_model(&f, BW_CREATE_MODEL_2, to_c2, sizeof to_c2, bytewise);
        assert_int_equal(f.ncmds, 1);
        assert_int_equal(f.cmds[0][0], BW_CREATE_OP_DRIVE_DIRECT);
        assert_int_equal(f.p.stats.unknown, 9);
        assert_int_equal(f.p.stats.skipped_bytes, sizeof to_c2 - 5);
        /* On a Create 2, the same bytes to_c1 skipped are its commands. */
        cmd_feed_model(&f, BW_CREATE_MODEL_2, to_c1, sizeof to_c1, bytewise);
        assert_int_equal(f.ncmds, 11);
        assert_int_equal(f.p.stats.unknown, 0);
        assert_int_equal(f.p.stats.skipped_bytes, 0);
    }
    /* Each model's sizes are the other's foreign table: every opcode of
     * one that the other lacks is skipped by its size in the one. */
    for (int m = 0; m < 2; m++) {
        bw_create_model_t own = (bw_create_model_t)m, other = (bw_create_model_t)!m;
        for (unsigned i = 0;; i++) {
            int op = bw_create_model_op_at(own, i);
            if (op < 0)
                break;
            if (bw_create_model_op_name(other, (uint8_t)op))
                continue;
            uint8_t msg[BW_CREATE_MAX_CMD + 8] = { (uint8_t)op, 3, 0, 0, 0 };
            int size = bw_create_model_cmd_size(own, msg, sizeof msg);
            assert_true(size > 0);
            msg[size] = BW_CREATE_OP_START;
            cmd_feeder_t f;
            cmd_feed_model(&f, other, msg, (size_t)size + 1, 0);
            assert_int_equal(f.ncmds, 1);
            assert_int_equal(f.cmds[0][0], BW_CREATE_OP_START);
            assert_int_equal(f.p.stats.unknown, 1);
            assert_int_equal(f.p.stats.skipped_bytes, (size_t)size);
        }
    }
    /* A foreign command cut by the end of the stream counts as unknown. */
    cmd_feeder_t f;
    cmd_feed_model(&f, BW_CREATE_MODEL_1, to_c1, 3, 0);
    assert_int_equal(f.ncmds, 0);
    assert_int_equal(f.p.stats.length_errors, 0);
    assert_true(f.p.stats.unknown >= 1);
}

/* The Create 2's commands: every one decodes and encodes back, by its
 * model; the Create 1's functions know none of its own. */
static void test_create2_commands(void **state)
{
    (void)state;
    static const uint8_t digits[] = { 164, '5', '0', '7', '1' };
    bw_create_cmd_t c;
    assert_int_equal(bw_create_model_decode_cmd(BW_CREATE_MODEL_2, digits, 5, &c), 0);
    assert_int_equal(c.model, BW_CREATE_MODEL_2);
    assert_memory_equal(c.u.digits, "5071", 4);
    assert_int_equal(bw_create_decode_cmd(digits, 5, &c), BW_EUNKNOWN);
    static const uint8_t pwm[] = { 146, 0xFF, 0x01, 0x00, 0xFF };
    assert_int_equal(bw_create_model_decode_cmd(BW_CREATE_MODEL_2, pwm, 5, &c), 0);
    assert_int_equal(c.u.drive_pwm.right, -255);
    assert_int_equal(c.u.drive_pwm.left, 255);
    static const uint8_t stream[] = { 148, 16, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58 };
    assert_int_equal(bw_create_model_decode_cmd(BW_CREATE_MODEL_2, stream, sizeof stream, &c), 0);
    assert_int_equal(c.u.packets.n, 16);
    uint8_t out[BW_CREATE_MAX_CMD];
    assert_int_equal(bw_create_encode_cmd(out, sizeof out, &c), sizeof stream);
    assert_memory_equal(out, stream, sizeof stream);
    assert_string_equal(bw_create_model_op_name(BW_CREATE_MODEL_2, 7), "reset");
    assert_string_equal(bw_create_model_op_name(BW_CREATE_MODEL_2, 173), "stop");
    assert_string_equal(bw_create_model_op_name(BW_CREATE_MODEL_2, 135), "clean");
    assert_string_equal(bw_create_op_name(135), "cover");
    assert_null(bw_create_model_op_name(BW_CREATE_MODEL_2, 152));
    assert_null(bw_create_op_name(173));
    assert_int_equal(bw_create_model_op_from_name(BW_CREATE_MODEL_2, "Seek_Dock"), 143);
    /* Reset (7) sits in the tables where 174 would: 174 is no opcode. */
    assert_null(bw_create_model_op_name(BW_CREATE_MODEL_2, 174));
    static const uint8_t b174[] = { 174, 128 };
    assert_int_equal(bw_create_model_cmd_size(BW_CREATE_MODEL_2, b174, 2), BW_EUNKNOWN);
    for (int m = 0; m < 2; m++) {
        cmd_feeder_t f;
        cmd_feed_model(&f, (bw_create_model_t)m, b174, 2, 0);
        assert_int_equal(f.ncmds, 1);
        assert_int_equal(f.p.stats.skipped_bytes, 1);
    }
    /* Every opcode of the Create 2 OI, with its data bytes (spec's quick
     * reference), round trip through its layout. */
    static const struct { uint8_t op, data; } sizes[] = {
        { 7, 0 }, { 128, 0 }, { 129, 1 }, { 130, 0 }, { 131, 0 }, { 132, 0 }, { 133, 0 },
        { 134, 0 }, { 135, 0 }, { 136, 0 }, { 137, 4 }, { 138, 1 }, { 139, 3 }, { 141, 1 },
        { 142, 1 }, { 143, 0 }, { 144, 3 }, { 145, 4 }, { 146, 4 }, { 150, 1 }, { 162, 2 },
        { 163, 4 }, { 164, 4 }, { 165, 1 }, { 167, 15 }, { 168, 3 }, { 173, 0 },
    };
    unsigned nops = 0;
    while (bw_create_model_op_at(BW_CREATE_MODEL_2, nops) >= 0)
        nops++;
    assert_int_equal(nops, sizeof sizes / sizeof sizes[0] + 3); /* and Song, Stream, Query List */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t w[20];
        for (size_t k = 0; k < sizeof w; k++)
            w[k] = (uint8_t)(0x11 * (k + 1));
        w[0] = sizes[i].op;
        assert_int_equal(bw_create_model_cmd_size(BW_CREATE_MODEL_2, w, 1), 1 + sizes[i].data);
        assert_int_equal(bw_create_model_decode_cmd(BW_CREATE_MODEL_2, w, 1u + sizes[i].data, &c), 0);
        assert_int_equal(bw_create_encode_cmd(out, sizeof out, &c), 1 + sizes[i].data);
        assert_memory_equal(out, w, 1u + sizes[i].data);
    }
}

/* The Create 2's packets (Create 2 OI, packets 43..58 and groups 100..107). */
static void test_create2_packets(void **state)
{
    (void)state;
    const bw_create_model_t m2 = BW_CREATE_MODEL_2;
    assert_int_equal(bw_create_model_packet_size(m2, 100), 80);
    assert_int_equal(bw_create_model_packet_size(m2, 101), 28);
    assert_int_equal(bw_create_model_packet_size(m2, 106), 12);
    assert_int_equal(bw_create_model_packet_size(m2, 107), 9);
    assert_int_equal(bw_create_model_packet_size(m2, 6), 52);
    assert_int_equal(bw_create_model_packet_size(m2, 43), 2);
    assert_int_equal(bw_create_model_packet_size(m2, 45), 1);
    assert_int_equal(bw_create_model_packet_size(m2, 58), 1);
    assert_int_equal(bw_create_model_packet_size(m2, 59), BW_EUNKNOWN);
    assert_int_equal(bw_create_model_packet_size(m2, 99), BW_EUNKNOWN);
    assert_int_equal(bw_create_model_packet_size(m2, 102), BW_EUNKNOWN);
    assert_int_equal(bw_create_model_packet_size(m2, 108), BW_EUNKNOWN);
    assert_int_equal(bw_create_packet_size(43), BW_EUNKNOWN);
    assert_int_equal(bw_create_packet_size(100), BW_EUNKNOWN);
    assert_string_equal(bw_create_model_packet_name(m2, 15), "dirt_detect");
    assert_string_equal(bw_create_packet_name(15), "unused");
    assert_string_equal(bw_create_model_packet_name(m2, 43), "left_encoder_counts");
    assert_string_equal(bw_create_model_packet_name(m2, 107), "group_107");
    assert_int_equal(bw_create_model_packet_id(m2, "stasis"), 58);
    assert_int_equal(bw_create_packet_id("stasis"), BW_EUNKNOWN);
    /* Group 101 from hand-written bytes: encoders 0x7FFF and -32768 (the
     * wrap), the light bumper, six signals, IR, four currents, stasis. */
    static const uint8_t g101[28] = {
        0x7F, 0xFF, 0x80, 0x00, 0x21, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04,
        0x00, 0x05, 0x0F, 0xFF, 0xA1, 0xA2, 0xFF, 0x38, 0x00, 0xC8, 0x00, 0x0A, 0x00, 0x0B, 0x03,
    };
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    assert_int_equal(bw_create_model_decode_packet(m2, 101, g101, sizeof g101, &s), 0);
    assert_int_equal(s.left_encoder_counts, 32767);
    assert_int_equal(s.right_encoder_counts, -32768);
    assert_int_equal(s.light_bumper, BW_CREATE2_LIGHT_LEFT | BW_CREATE2_LIGHT_RIGHT);
    assert_int_equal(s.light_bump_left_signal, 1);
    assert_int_equal(s.light_bump_right_signal, 4095);
    assert_int_equal(s.infrared_left, 0xA1);
    assert_int_equal(s.infrared_right, 0xA2);
    assert_int_equal(s.left_motor_current, -200);
    assert_int_equal(s.right_motor_current, 200);
    assert_int_equal(s.side_brush_motor_current, 11);
    assert_int_equal(s.stasis, 3);
    uint8_t out[80];
    assert_int_equal(bw_create_model_encode_packet(m2, out, sizeof out, 101, &s), 28);
    assert_memory_equal(out, g101, 28);
    /* Group 100 is group 6 then group 101; byte 15 is Dirt Detect. */
    s.dirt_detect = 42;
    s.distance = 1234;
    assert_int_equal(bw_create_model_encode_packet(m2, out, sizeof out, 100, &s), 80);
    assert_int_equal(out[15 - 7], 42);
    assert_int_equal(out[12], 0x04);
    assert_int_equal(out[13], 0xD2);
    assert_memory_equal(out + 52, g101, 28);
    bw_create_sensors_t t;
    memset(&t, 0, sizeof t);
    assert_int_equal(bw_create_model_decode_packet(m2, 100, out, 80, &t), 0);
    assert_memory_equal(&t, &s, sizeof s);
    /* A Create 1's group 6 carries no Dirt Detect. */
    assert_int_equal(bw_create_encode_packet(out, sizeof out, 6, &s), 52);
    assert_int_equal(out[15 - 7], 0);
    /* libcreate's CREATE_2 stream request: ids 7..58 but 15/16's
     * neighbours, one frame; a Create 1 parser refuses it as unknown. */
    static const uint8_t ids[] = { 7, 9, 10, 11, 12, 13, 14, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                                   27, 28, 29, 30, 31, 35, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52,
                                   53, 54, 55, 56, 57, 58 };
    uint8_t frame[BW_CREATE_MAX_FRAME];
    int len = bw_create_model_encode_stream(m2, frame, sizeof frame, ids, sizeof ids, &s,
                                            BW_CREATE_SUM_WITH_HEADER);
    assert_true(len > 0);
    assert_int_equal(bw_create_encode_stream(frame, sizeof frame, ids, sizeof ids, &s,
                                             BW_CREATE_SUM_WITH_HEADER),
                     BW_EUNKNOWN);
    /* A Create 1's parser, a Create 2's, and the default one, which takes
     * either's and says whose (what the base's sniffer, which does not know
     * the robot's model, sees a Create 2 by). */
    for (int m = 0; m < 3; m++) {
        bw_create_stream_parser_t p;
        bw_create_stream_parser_init(&p, BW_CREATE_SUM_WITH_HEADER);
        if (m < 2)
            bw_create_stream_parser_model(&p, (bw_create_model_t)m);
        const uint8_t *d = frame;
        size_t n = (size_t)len;
        bw_create_stream_frame_t fr;
        int rc, good = 0, unknown = 0;
        while ((rc = bw_create_stream_parse(&p, &d, &n, &fr)) != 0) {
            if (rc == 1) {
                memset(&t, 0, sizeof t);
                assert_int_equal(fr.model, BW_CREATE_MODEL_2);
                assert_int_equal(bw_create_decode_stream(&fr, &t), (int)sizeof ids);
                assert_int_equal(t.left_encoder_counts, 32767);
                assert_int_equal(t.stasis, 3);
                good++;
            } else if (rc == BW_EUNKNOWN) {
                unknown++;
            }
        }
        assert_int_equal(good, m != 0);
        assert_int_equal(unknown > 0, m == 0);
    }
    /* The default parser gives a frame of a Create 1's packets a Create 1's
     * model: its byte 15 is unused, not Dirt Detect. */
    {
        bw_create_stream_parser_t p;
        bw_create_stream_parser_init(&p, BW_CREATE_SUM_WITH_HEADER);
        static const uint8_t g6[] = { 6 };
        len = bw_create_encode_stream(frame, sizeof frame, g6, 1, &s, BW_CREATE_SUM_WITH_HEADER);
        const uint8_t *d = frame;
        size_t n = (size_t)len;
        bw_create_stream_frame_t fr;
        assert_int_equal(bw_create_stream_parse(&p, &d, &n, &fr), 1);
        assert_int_equal(fr.model, BW_CREATE_MODEL_1);
    }
}

/* ---- Create 2 commands and packets by hand (Create 2 OI specification) -------- */

/* Decodes hand bytes as a Create 2 command, checks they re-encode the same,
 * and returns the command (the caller checks the fields). */
static bw_create_cmd_t c2_decode(const uint8_t *w, size_t n)
{
    bw_create_cmd_t c;
    assert_int_equal(bw_create_model_decode_cmd(BW_CREATE_MODEL_2, w, n, &c), 0);
    assert_int_equal(c.opcode, w[0]);
    assert_int_equal(bw_create_model_cmd_size(BW_CREATE_MODEL_2, w, n), (int)n);
    uint8_t out[BW_CREATE_MAX_CMD];
    assert_int_equal(bw_create_encode_cmd(out, sizeof out, &c), (int)n);
    assert_memory_equal(out, w, n);
    return c;
}

/* Encodes a command built from its fields; it must be the hand bytes. */
static void c2_encodes_to(const bw_create_cmd_t *c, const uint8_t *w, size_t n)
{
    uint8_t out[BW_CREATE_MAX_CMD];
    memset(out, 0xEE, sizeof out);
    assert_int_equal(bw_create_encode_cmd(out, sizeof out, c), (int)n);
    assert_memory_equal(out, w, n);
    assert_int_equal(out[n], 0xEE);
}

/* Every Create 2 command whose only test was a round trip through its own
 * layout, written from the spec's serial sequences: opcode, then the data
 * bytes in the order the spec lists them, 16-bit values high byte first. */
static void test_create2_hand_commands(void **state)
{
    (void)state;
    bw_create_cmd_t c, b;
    const bw_create_model_t m2 = BW_CREATE_MODEL_2;

    /* No data: Reset 7, Power 133, Clean 135, Max 136, Seek Dock 143, Stop 173. */
    static const uint8_t bare[] = { 0x07, 0x85, 0x87, 0x88, 0x8F, 0xAD };
    static const char *const bare_names[] = { "reset", "power", "clean", "max", "seek_dock", "stop" };
    for (size_t i = 0; i < sizeof bare; i++) {
        c = c2_decode(&bare[i], 1);
        assert_string_equal(bw_create_model_op_name(m2, bare[i]), bare_names[i]);
        bw_create_model_cmd_init(&b, m2, bare[i]);
        c2_encodes_to(&b, &bare[i], 1);
    }

    /* Baud [129][11]: 115200, a Create 2's default. */
    static const uint8_t baud[] = { 0x81, 0x0B };
    c = c2_decode(baud, sizeof baud);
    assert_int_equal(c.u.baud, 11);
    assert_int_equal(bw_create_baud_rate(c.u.baud), 115200);

    /* Motors [138][bits]: main brush 0x04, vacuum 0x02, side brush
     * clockwise 0x08 = 0x0E. */
    static const uint8_t motors[] = { 0x8A, 0x0E };
    c = c2_decode(motors, sizeof motors);
    assert_int_equal(c.u.motors, 0x0E);
    bw_create_model_cmd_init(&b, m2, BW_CREATE2_OP_MOTORS);
    b.u.motors = 0x0E;
    c2_encodes_to(&b, motors, sizeof motors);

    /* PWM Motors [144][main brush][side brush][vacuum]: main and side
     * -127..127 (signed), vacuum 0..127. Main -64 = 0xC0, side 127, vacuum
     * 100 = 0x64. */
    static const uint8_t pwm_motors[] = { 0x90, 0xC0, 0x7F, 0x64 };
    c = c2_decode(pwm_motors, sizeof pwm_motors);
    assert_int_equal(c.u.pwm_motors.main_brush, -64);
    assert_int_equal(c.u.pwm_motors.side_brush, 127);
    assert_int_equal(c.u.pwm_motors.vacuum, 100);
    bw_create_model_cmd_init(&b, m2, BW_CREATE2_OP_PWM_MOTORS);
    b.u.pwm_motors.main_brush = -64;
    b.u.pwm_motors.side_brush = 127;
    b.u.pwm_motors.vacuum = 100;
    c2_encodes_to(&b, pwm_motors, sizeof pwm_motors);

    /* Drive PWM [146][right hi][right lo][left hi][left lo], -255..255:
     * right 255 = 00 FF, left -100 = FF 9C. */
    static const uint8_t drive_pwm[] = { 0x92, 0x00, 0xFF, 0xFF, 0x9C };
    c = c2_decode(drive_pwm, sizeof drive_pwm);
    assert_int_equal(c.u.drive_pwm.right, 255);
    assert_int_equal(c.u.drive_pwm.left, -100);
    bw_create_model_cmd_init(&b, m2, BW_CREATE2_OP_DRIVE_PWM);
    b.u.drive_pwm.right = 255;
    b.u.drive_pwm.left = -100;
    c2_encodes_to(&b, drive_pwm, sizeof drive_pwm);

    /* LEDs [139][LED bits][power color][power intensity]: check robot 0x08 +
     * debris 0x01, green (0), half intensity (128). */
    static const uint8_t leds[] = { 0x8B, 0x09, 0x00, 0x80 };
    c = c2_decode(leds, sizeof leds);
    assert_int_equal(c.u.leds.bits, BW_CREATE2_LED_CHECK_ROBOT | BW_CREATE2_LED_DEBRIS);
    assert_int_equal(c.u.leds.color, 0);
    assert_int_equal(c.u.leds.intensity, 128);
    bw_create_model_cmd_init(&b, m2, BW_CREATE_OP_LEDS);
    b.u.leds.bits = 0x09;
    b.u.leds.intensity = 128;
    c2_encodes_to(&b, leds, sizeof leds);

    /* Song [140][number 0..4][length][note][duration]...: song 4, one note,
     * C5 (72 = 0x48) for 64/64 s. */
    static const uint8_t song[] = { 0x8C, 0x04, 0x01, 0x48, 0x40 };
    c = c2_decode(song, sizeof song);
    assert_int_equal(c.u.song.number, 4);
    assert_int_equal(c.u.song.length, 1);
    assert_int_equal(c.u.song.notes[0].note, 72);
    assert_int_equal(c.u.song.notes[0].duration, 64);

    /* Scheduling LEDs [162][weekday bits][scheduling bits]: Monday 0x02 +
     * Friday 0x20; colon 0x01 + PM 0x02 + clock 0x08. */
    static const uint8_t sched_leds[] = { 0xA2, 0x22, 0x0B };
    c = c2_decode(sched_leds, sizeof sched_leds);
    assert_int_equal(c.u.scheduling_leds.weekday, 0x22);
    assert_int_equal(c.u.scheduling_leds.schedule, 0x0B);
    bw_create_model_cmd_init(&b, m2, BW_CREATE2_OP_SCHEDULING_LEDS);
    b.u.scheduling_leds.weekday = 0x22;
    b.u.scheduling_leds.schedule = 0x0B;
    c2_encodes_to(&b, sched_leds, sizeof sched_leds);

    /* Digit LEDs Raw [163][digit 3][digit 2][digit 1][digit 0]: digit 3 is
     * the leftmost. "8" (all seven segments, 0x7F), "1" (B, C: 0x06), "2"
     * (A B D E G: 0x5B), "3" (A B C D G: 0x4F). */
    static const uint8_t raw[] = { 0xA3, 0x7F, 0x06, 0x5B, 0x4F };
    c = c2_decode(raw, sizeof raw);
    assert_memory_equal(c.u.digits, ((const uint8_t[]){ 0x7F, 0x06, 0x5B, 0x4F }), 4);
    bw_create_model_cmd_init(&b, m2, BW_CREATE2_OP_DIGIT_LEDS_RAW);
    memcpy(b.u.digits, ((const uint8_t[]){ 0x7F, 0x06, 0x5B, 0x4F }), 4);
    c2_encodes_to(&b, raw, sizeof raw);

    /* Digit LEDs ASCII [164][digit 3]..[digit 0]: "ABCD" reads left to right. */
    static const uint8_t ascii[] = { 0xA4, 0x41, 0x42, 0x43, 0x44 };
    c = c2_decode(ascii, sizeof ascii);
    assert_memory_equal(c.u.digits, "ABCD", 4);
    bw_create_model_cmd_init(&b, m2, BW_CREATE2_OP_DIGIT_LEDS_ASCII);
    memcpy(b.u.digits, "ABCD", 4);
    c2_encodes_to(&b, ascii, sizeof ascii);

    /* Buttons [165][bits]: clock 0x80 + dock 0x04. */
    static const uint8_t buttons[] = { 0xA5, 0x84 };
    c = c2_decode(buttons, sizeof buttons);
    assert_int_equal(c.u.buttons, BW_CREATE2_BUTTON_CLOCK | BW_CREATE2_BUTTON_DOCK);
    bw_create_model_cmd_init(&b, m2, BW_CREATE2_OP_BUTTONS);
    b.u.buttons = 0x84;
    c2_encodes_to(&b, buttons, sizeof buttons);

    /* Schedule [167][days][Sun hour][Sun minute][Mon hour]..[Sat minute],
     * the spec's example: 3:00 PM on Wednesday and 10:36 AM on Friday, days
     * Wednesday 0x08 + Friday 0x20 = 40. */
    static const uint8_t schedule[] = { 167, 40, 0, 0, 0, 0, 0, 0, 15, 0, 0, 0, 10, 36, 0, 0 };
    c = c2_decode(schedule, sizeof schedule);
    assert_int_equal(c.u.schedule.days, 40);
    assert_int_equal(c.u.schedule.times[3][0], 15); /* Wednesday */
    assert_int_equal(c.u.schedule.times[3][1], 0);
    assert_int_equal(c.u.schedule.times[5][0], 10); /* Friday */
    assert_int_equal(c.u.schedule.times[5][1], 36);
    assert_int_equal(c.u.schedule.times[0][0], 0);
    assert_int_equal(c.u.schedule.times[6][1], 0);
    bw_create_model_cmd_init(&b, m2, BW_CREATE2_OP_SCHEDULE);
    b.u.schedule.days = 40;
    b.u.schedule.times[3][0] = 15;
    b.u.schedule.times[5][0] = 10;
    b.u.schedule.times[5][1] = 36;
    c2_encodes_to(&b, schedule, sizeof schedule);

    /* Set Day/Time [168][day][hour][minute], the spec's example: 1:15 PM on
     * Thursday (day 4). */
    static const uint8_t day_time[] = { 168, 4, 13, 15 };
    c = c2_decode(day_time, sizeof day_time);
    assert_int_equal(c.u.set_day_time.day, 4);
    assert_int_equal(c.u.set_day_time.hour, 13);
    assert_int_equal(c.u.set_day_time.minute, 15);
    bw_create_model_cmd_init(&b, m2, BW_CREATE2_OP_SET_DAY_TIME);
    b.u.set_day_time.day = 4;
    b.u.set_day_time.hour = 13;
    b.u.set_day_time.minute = 15;
    c2_encodes_to(&b, day_time, sizeof day_time);

    /* Query List [149][n][ids]: both encoder counts. */
    static const uint8_t query[] = { 0x95, 0x02, 0x2B, 0x2C };
    c = c2_decode(query, sizeof query);
    assert_int_equal(c.u.packets.n, 2);
    assert_int_equal(c.u.packets.ids[0], BW_CREATE_PKT_LEFT_ENCODER_COUNTS);
    assert_int_equal(c.u.packets.ids[1], BW_CREATE_PKT_RIGHT_ENCODER_COUNTS);
}

/* The Create 2's single packets (15 and 43..58) and groups 106, 107 and 100
 * from hand bytes: sizes and signedness as the spec's packet descriptions
 * give them, 16-bit values high byte first. */
static void test_create2_hand_packets(void **state)
{
    (void)state;
    const bw_create_model_t m2 = BW_CREATE_MODEL_2;
    static const struct {
        uint8_t id;
        uint8_t len;
        uint8_t wire[2];
        int32_t value;
    } one[] = {
        { 15, 1, { 0x2A }, 42 },                 /* dirt detect, unsigned */
        { 43, 2, { 0x12, 0x34 }, 4660 },         /* left encoder counts */
        { 44, 2, { 0xFE, 0xDC }, -292 },         /* right: 0xFEDC - 0x10000 */
        { 45, 1, { 0x24 }, 0x24 },               /* light bumper: center left, right */
        { 46, 2, { 0x0F, 0xFF }, 4095 },         /* light bump signals 0..4095 */
        { 47, 2, { 0x01, 0x00 }, 256 },
        { 48, 2, { 0x00, 0x80 }, 128 },
        { 49, 2, { 0x02, 0x9A }, 666 },
        { 50, 2, { 0x03, 0xE8 }, 1000 },
        { 51, 2, { 0x07, 0xD0 }, 2000 },
        { 52, 1, { 0xA1 }, 161 },                /* IR character left, unsigned */
        { 53, 1, { 0xF2 }, 242 },                /* IR character right */
        { 54, 2, { 0xFF, 0x9C }, -100 },         /* motor currents, signed mA */
        { 55, 2, { 0x01, 0x2C }, 300 },
        { 56, 2, { 0xFE, 0x0C }, -500 },
        { 57, 2, { 0x00, 0x64 }, 100 },
        { 58, 1, { 0x02 }, BW_CREATE2_STASIS_DISABLED },
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        assert_int_equal(bw_create_model_packet_size(m2, one[i].id), one[i].len);
        bw_create_sensors_t s;
        memset(&s, 0, sizeof s);
        assert_int_equal(bw_create_model_decode_packet(m2, one[i].id, one[i].wire, one[i].len, &s), 0);
        const bw_msgdesc_t *d = bw_create_model_packet_desc(m2, one[i].id);
        assert_int_equal(d->nfields, 1);
        assert_true(bw_field_get(&s, &d->fields[0], 0) == one[i].value);
        uint8_t out[4];
        assert_int_equal(bw_create_model_encode_packet(m2, out, sizeof out, one[i].id, &s), one[i].len);
        assert_memory_equal(out, one[i].wire, one[i].len);
    }

    /* Group 106: 46..51, the six light bump signals. */
    static const uint8_t g106[12] = { 0x0F, 0xFF, 0x01, 0x00, 0x00, 0x80,
                                      0x02, 0x9A, 0x03, 0xE8, 0x07, 0xD0 };
    /* Group 107: 54..58, four currents and stasis. */
    static const uint8_t g107[9] = { 0xFF, 0x9C, 0x01, 0x2C, 0xFE, 0x0C, 0x00, 0x64, 0x02 };
    bw_create_sensors_t s, t;
    memset(&s, 0, sizeof s);
    assert_int_equal(bw_create_model_decode_packet(m2, 106, g106, sizeof g106, &s), 0);
    assert_int_equal(bw_create_model_decode_packet(m2, 107, g107, sizeof g107, &s), 0);
    assert_int_equal(s.light_bump_left_signal, 4095);
    assert_int_equal(s.light_bump_front_left_signal, 256);
    assert_int_equal(s.light_bump_center_left_signal, 128);
    assert_int_equal(s.light_bump_center_right_signal, 666);
    assert_int_equal(s.light_bump_front_right_signal, 1000);
    assert_int_equal(s.light_bump_right_signal, 2000);
    assert_int_equal(s.left_motor_current, -100);
    assert_int_equal(s.right_motor_current, 300);
    assert_int_equal(s.main_brush_motor_current, -500);
    assert_int_equal(s.side_brush_motor_current, 100);
    assert_int_equal(s.stasis, BW_CREATE2_STASIS_DISABLED);
    memset(&t, 0, sizeof t);
    t.light_bump_left_signal = 4095;
    t.light_bump_front_left_signal = 256;
    t.light_bump_center_left_signal = 128;
    t.light_bump_center_right_signal = 666;
    t.light_bump_front_right_signal = 1000;
    t.light_bump_right_signal = 2000;
    t.left_motor_current = -100;
    t.right_motor_current = 300;
    t.main_brush_motor_current = -500;
    t.side_brush_motor_current = 100;
    t.stasis = BW_CREATE2_STASIS_DISABLED;
    uint8_t out[BW_CREATE_GROUP100_SIZE];
    assert_int_equal(bw_create_model_encode_packet(m2, out, sizeof out, 106, &t), 12);
    assert_memory_equal(out, g106, 12);
    assert_int_equal(bw_create_model_encode_packet(m2, out, sizeof out, 107, &t), 9);
    assert_memory_equal(out, g107, 9);

    /* Group 100: 7..58, 80 bytes: group 6's 52 bytes (byte 15 - 7 = 8 Dirt
     * Detect, byte 9 unused), then group 101's 28. The first 52 here are
     * 0x80 + i, as group6_frame's; the rest 43..58 from above. */
    uint8_t g100[80];
    for (size_t i = 0; i < 52; i++)
        g100[i] = (uint8_t)(0x80 + i);
    g100[9] = 0; /* packet 16: unused, sent as 0 */
    static const uint8_t g101[28] = { 0x12, 0x34, 0xFE, 0xDC, 0x24, 0x0F, 0xFF, 0x01, 0x00, 0x00,
                                      0x80, 0x02, 0x9A, 0x03, 0xE8, 0x07, 0xD0, 0xA1, 0xF2, 0xFF,
                                      0x9C, 0x01, 0x2C, 0xFE, 0x0C, 0x00, 0x64, 0x02 };
    memcpy(g100 + 52, g101, 28);
    memset(&s, 0, sizeof s);
    assert_int_equal(bw_create_model_decode_packet(m2, 100, g100, sizeof g100, &s), 0);
    assert_int_equal(s.bumps_wheel_drops, 0x80);
    assert_int_equal(s.dirt_detect, 0x88);
    assert_int_equal(s.infrared_byte, 0x8A);
    assert_int_equal(s.distance, -29555); /* 0x8C8D */
    assert_int_equal(s.voltage, 37266);   /* 0x9192 */
    assert_int_equal(s.battery_temp, -107);
    assert_int_equal(s.requested_left_speed, -19789); /* 0xB2B3 */
    assert_int_equal(s.left_encoder_counts, 4660);
    assert_int_equal(s.right_encoder_counts, -292);
    assert_int_equal(s.light_bumper, BW_CREATE2_LIGHT_CENTER_LEFT | BW_CREATE2_LIGHT_RIGHT);
    assert_int_equal(s.light_bump_right_signal, 2000);
    assert_int_equal(s.infrared_left, 161);
    assert_int_equal(s.infrared_right, 242);
    assert_int_equal(s.side_brush_motor_current, 100);
    assert_int_equal(s.stasis, 2);
    assert_int_equal(bw_create_model_encode_packet(m2, out, sizeof out, 100, &s), 80);
    assert_memory_equal(out, g100, 80);
}

/* Group 6 of a Create 1 (packets 7..42) from group6_frame's hand bytes, every
 * field, both ways: the stream test checks three fields, lobot's SENSORS
 * test the rest through the shared table; here the create codec's own. */
static void test_group6_every_field(void **state)
{
    (void)state;
    uint8_t f[56];
    group6_frame(f);
    f[3 + 8] = f[3 + 9] = 0; /* the unused bytes 15, 16 go out as 0 */
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    assert_int_equal(bw_create_decode_packet(6, f + 3, 52, &s), 0);
    bw_create_sensors_t w;
    memset(&w, 0, sizeof w);
    w.bumps_wheel_drops = 0x80;
    w.wall = 0x81;
    w.cliff_left = 0x82;
    w.cliff_front_left = 0x83;
    w.cliff_front_right = 0x84;
    w.cliff_right = 0x85;
    w.virtual_wall = 0x86;
    w.lsd_wheel_oc = 0x87;
    w.infrared_byte = 0x8A;
    w.buttons = 0x8B;
    w.distance = (int16_t)(0x8C8D - 0x10000);
    w.angle = (int16_t)(0x8E8F - 0x10000);
    w.charging_state = 0x90;
    w.voltage = 0x9192;
    w.current = (int16_t)(0x9394 - 0x10000);
    w.battery_temp = (int8_t)(0x95 - 0x100);
    w.battery_charge = 0x9697;
    w.battery_capacity = 0x9899;
    w.wall_signal = 0x9A9B;
    w.cliff_left_signal = 0x9C9D;
    w.cliff_front_left_signal = 0x9E9F;
    w.cliff_front_right_signal = 0xA0A1;
    w.cliff_right_signal = 0xA2A3;
    w.cargo_bay_digital_inputs = 0xA4;
    w.cargo_bay_analog_signal = 0xA5A6;
    w.charging_sources = 0xA7;
    w.oi_mode = 0xA8;
    w.song_number = 0xA9;
    w.song_playing = 0xAA;
    w.num_stream_packets = 0xAB;
    w.requested_speed = (int16_t)(0xACAD - 0x10000);
    w.requested_radius = (int16_t)(0xAEAF - 0x10000);
    w.requested_right_speed = (int16_t)(0xB0B1 - 0x10000);
    w.requested_left_speed = (int16_t)(0xB2B3 - 0x10000);
    assert_memory_equal(&s, &w, sizeof s);
    uint8_t out[52];
    assert_int_equal(bw_create_encode_packet(out, sizeof out, 6, &w), 52);
    assert_memory_equal(out, f + 3, 52);
}

static void test_cmd_bad_counts(void **state)
{
    (void)state;
    /* Song of length 0 and 17, Stream of 44, Script of 0 and 101: each
     * rejected, its opcode skipped, the bytes after it rescanned. */
    uint8_t s[256];
    size_t n = 0;
    n = append(s, n, (const uint8_t[]){ 0x8C, 0x01, 0x00 }, 3);
    n = append(s, n, (const uint8_t[]){ 0x8C, 0x01, 17 }, 3);
    n = append(s, n, (const uint8_t[]){ 0x94, 44 }, 2);
    n = append(s, n, (const uint8_t[]){ 0x98, 0 }, 2);
    n = append(s, n, (const uint8_t[]){ 0x98, 101 }, 2);
    size_t bad = n;
    n = append(s, n, GOLDEN_CMDS[0].wire, 1);
    n = append(s, n, GOLDEN_CMDS[18].wire, 4);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        cmd_feeder_t f;
        cmd_feeder_init(&f);
        if (bytewise)
            for (size_t i = 0; i < n; i++)
                cmd_feed(&f, s + i, 1);
        else
            cmd_feed(&f, s, n);
        assert_int_equal(f.ncmds, 2);
        assert_int_equal(f.cmds[0][0], 0x80);
        assert_memory_equal(f.cmds[1], GOLDEN_CMDS[18].wire, 4);
        assert_int_equal(f.rejects, 5);
        assert_int_equal(f.p.stats.length_errors, 5);
        assert_int_equal(f.p.stats.skipped_bytes, bad);
        /* The counts after the opcodes are bytes where an opcode is due. */
        assert_int_equal(f.p.stats.unknown, bad - 5);
    }
    /* A count byte that is itself an opcode is rescanned as one: a Stream
     * of 137 (> 43) followed by a Drive's data is a Drive. */
    static const uint8_t t[] = { 0x94, 0x89, 0x00, 0xC8, 0x80, 0x00 };
    cmd_feeder_t f;
    cmd_feeder_init(&f);
    cmd_feed(&f, t, sizeof t);
    assert_int_equal(f.ncmds, 1);
    assert_int_equal(f.lens[0], 5);
    assert_memory_equal(f.cmds[0], t + 1, 5);
    assert_int_equal(f.p.stats.length_errors, 1);
    assert_int_equal(f.p.stats.skipped_bytes, 1);
}

static void test_cmd_truncated(void **state)
{
    (void)state;
    /* A Song cut anywhere: one length error at the end, the opcode
     * skipped and the rest rescanned (its bytes are no opcodes). */
    const golden_cmd_t *song = &GOLDEN_CMDS[11];
    for (size_t keep = 1; keep < song->len; keep++) {
        cmd_feeder_t f;
        cmd_feeder_init(&f);
        cmd_feed(&f, GOLDEN_CMDS[3].wire, 1);
        cmd_feed(&f, song->wire, keep);
        cmd_finish(&f);
        assert_int_equal(f.total, 1);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, keep);
        cmd_feed(&f, GOLDEN_CMDS[8].wire, 5);
        assert_int_equal(f.total, 2);
    }
    /* A cut Drive whose data holds whole commands: finish finds them. */
    static const uint8_t s[] = { 0x89, 0x80, 0x83, 0x00 };
    cmd_feeder_t f;
    cmd_feeder_init(&f);
    cmd_feed(&f, s, sizeof s);
    assert_int_equal(f.total, 0);
    cmd_finish(&f);
    assert_int_equal(f.total, 2);
    assert_int_equal(f.cmds[0][0], 0x80);
    assert_int_equal(f.cmds[1][0], 0x83);
    assert_int_equal(f.p.stats.length_errors, 1);
    assert_int_equal(f.p.stats.skipped_bytes, 2);
    assert_int_equal(f.p.stats.unknown, 1);
}

static void test_cmd_random_splits(void **state)
{
    (void)state;
    uint8_t s[8192];
    uint32_t r = 4242;
    size_t n = 0;
    while (n + 16 < sizeof s) {
        r = r * 1103515245u + 12345u;
        if ((r >> 16) % 4 == 0) {
            s[n++] = (uint8_t)(r >> 24);
        } else {
            const golden_cmd_t *g = &GOLDEN_CMDS[(r >> 20) % NGOLDEN];
            n = append(s, n, g->wire, g->len);
        }
    }
    cmd_feeder_t whole, cut;
    cmd_feeder_init(&whole);
    cmd_feed(&whole, s, n);
    cmd_finish(&whole);
    cmd_feeder_init(&cut);
    for (size_t off = 0; off < n;) {
        r = r * 1103515245u + 12345u;
        size_t k = 1 + (r >> 16) % 13;
        if (k > n - off)
            k = n - off;
        cmd_feed(&cut, s + off, k);
        off += k;
    }
    cmd_finish(&cut);
    assert_memory_equal(&whole.p.stats, &cut.p.stats, sizeof whole.p.stats);
    assert_int_equal(whole.total, cut.total);
    assert_true(whole.total > 500);
    assert_memory_equal(whole.cmds, cut.cmds, sizeof whole.cmds);
}

static void test_baud_codes(void **state)
{
    (void)state;
    static const uint32_t rates[] = { 300,   600,   1200,  2400,  4800,  9600,
                                      14400, 19200, 28800, 38400, 57600, 115200 };
    for (uint8_t c = 0; c < 12; c++) {
        assert_int_equal(bw_create_baud_rate(c), rates[c]);
        assert_int_equal(bw_create_baud_code(rates[c]), c);
    }
    assert_int_equal(bw_create_baud_rate(12), 0);
    assert_int_equal(bw_create_baud_code(56000), BW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_commands),
        cmocka_unit_test(test_drive_special_radii),
        cmocka_unit_test(test_op_catalogue),
        cmocka_unit_test(test_roundtrip_every_command),
        cmocka_unit_test(test_packets_as_their_tables),
        cmocka_unit_test(test_command_errors),
        cmocka_unit_test(test_packet_tables),
        cmocka_unit_test(test_packets_roundtrip),
        cmocka_unit_test(test_golden_stream_frames),
        cmocka_unit_test(test_stream_encode_errors),
        cmocka_unit_test(test_stream_walk_both_ways),
        cmocka_unit_test(test_stream_every_split_point),
        cmocka_unit_test(test_stream_zero_copy),
        cmocka_unit_test(test_stream_garbage),
        cmocka_unit_test(test_stream_bad_frames_then_good),
        cmocka_unit_test(test_stream_false_header_in_data),
        cmocka_unit_test(test_stream_false_long_header_swallows_frames),
        cmocka_unit_test(test_stream_truncated),
        cmocka_unit_test(test_stream_random_splits),
        cmocka_unit_test(test_cmd_every_split_point),
        cmocka_unit_test(test_cmd_zero_copy),
        cmocka_unit_test(test_cmd_unknown_opcodes),
        cmocka_unit_test(test_cmd_other_model_skipped_whole),
        cmocka_unit_test(test_create2_commands),
        cmocka_unit_test(test_create2_packets),
        cmocka_unit_test(test_create2_hand_commands),
        cmocka_unit_test(test_create2_hand_packets),
        cmocka_unit_test(test_group6_every_field),
        cmocka_unit_test(test_cmd_bad_counts),
        cmocka_unit_test(test_cmd_truncated),
        cmocka_unit_test(test_cmd_random_splits),
        cmocka_unit_test(test_baud_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
