/* lobot codec: golden vectors, round trips, parser abuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/lobot.h"

/* ---- golden vectors, computed by hand ------------------------------------------- */

/* Every command: id, parameter high and low, parity = id ^ hi ^ lo. */
typedef struct {
    const char *name;
    uint8_t id;
    int16_t param;
    uint8_t wire[4];
} golden_cmd_t;

static const golden_cmd_t GOLDEN_CMDS[] = {
    { "nop", '@', 0, { 0x40, 0x00, 0x00, 0x40 } },
    { "forward", 'F', 200, { 0x46, 0x00, 0xC8, 0x8E } },
    { "reverse", 'R', 100, { 0x52, 0x00, 0x64, 0x36 } },
    { "stop", 'S', 0, { 0x53, 0x00, 0x00, 0x53 } },
    { "left", '<', 300, { 0x3C, 0x01, 0x2C, 0x11 } },
    { "right", '>', 50, { 0x3E, 0x00, 0x32, 0x0C } },
    { "straight", '!', 0, { 0x21, 0x00, 0x00, 0x21 } },
    { "spin", '*', -90, { 0x2A, 0xFF, 0xA6, 0x73 } },
    { "enable_rear_bumps", 'e', 0, { 0x65, 0x00, 0x00, 0x65 } },
    { "disable_rear_bumps", 'd', 0, { 0x64, 0x00, 0x00, 0x64 } },
};
#define NGOLDEN (sizeof GOLDEN_CMDS / sizeof GOLDEN_CMDS[0])

static const uint8_t SPIN_360[] = { 0x2A, 0x01, 0x68, 0x43 };

/* ACKs. BUMPS: left front bump and rear right (0x02 | 0x04), backed up 150
 * mm (FF6A), turned +15 degrees. WHEEL_DROPS: right and caster (0x04 |
 * 0x10). CLIFFS: front left and left (0x04 | 0x08), -300 mm (FED4), -30
 * degrees (FFE2). REMOTE: the Roomba remote's pause (137). */
static const uint8_t READY[] = { 0x3A };
static const uint8_t BUMPS[] = { 0x42, 0x06, 0xFF, 0x6A, 0x00, 0x0F };
static const uint8_t WHEEL_DROPS[] = { 0x57, 0x14 };
static const uint8_t CLIFFS[] = { 0x43, 0x0C, 0xFE, 0xD4, 0xFF, 0xE2 };
static const uint8_t REMOTE[] = { 0x2E, 0x89 };

/* SENSORS with a distinct value at every index: data byte i is 0x80 + i, so
 * every 16-bit value has its sign bit set. */
static void sensors_wire(uint8_t *w)
{
    w[0] = '$';
    for (size_t i = 0; i < BW_LOBOT_SENSORS_SIZE; i++)
        w[1 + i] = (uint8_t)(0x80 + i);
}

/* ---- helpers -------------------------------------------------------------------- */

typedef struct {
    bw_lobot_cmd_parser_t p;
    size_t fed, total;
    size_t ncmds;
    bw_lobot_cmd_t cmds[64];
    int rejects;
} cmd_feeder_t;

static void cmd_feeder_init(cmd_feeder_t *f)
{
    memset(f, 0, sizeof *f);
    bw_lobot_cmd_parser_init(&f->p);
}

/* Every byte fed is in a returned command, skipped, or held. */
static void cmd_accounting(const cmd_feeder_t *f, size_t unread)
{
    assert_int_equal(f->fed - unread, 4 * f->total + f->p.stats.skipped_bytes + f->p.held);
    assert_true(f->p.held < 4);
}

static void cmd_feed(cmd_feeder_t *f, const uint8_t *data, size_t len)
{
    f->fed += len;
    bw_lobot_cmd_t c;
    int rc;
    while ((rc = bw_lobot_cmd_parse(&f->p, &data, &len, &c)) != 0) {
        if (rc < 0) {
            assert_true(rc == BW_ECHECKSUM || rc == BW_EUNKNOWN);
            f->rejects++;
        } else {
            assert_int_equal(rc, 1);
            if (f->ncmds < 64)
                f->cmds[f->ncmds++] = c;
            f->total++;
        }
        cmd_accounting(f, len);
    }
    assert_int_equal(len, 0);
    cmd_accounting(f, 0);
}

static void cmd_feed_bytewise(cmd_feeder_t *f, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++)
        cmd_feed(f, data + i, 1);
}

typedef struct {
    uint8_t id, len;
    uint8_t data[BW_LOBOT_SENSORS_SIZE];
} got_ack_t;

typedef struct {
    bw_lobot_ack_parser_t p;
    size_t fed, in_acks, total;
    size_t nacks; /* kept: the first 32 */
    got_ack_t acks[32];
} ack_feeder_t;

static void ack_feeder_init(ack_feeder_t *f)
{
    memset(f, 0, sizeof *f);
    bw_lobot_ack_parser_init(&f->p);
}

static void ack_accounting(const ack_feeder_t *f, size_t unread)
{
    assert_int_equal(f->fed - unread,
                     f->in_acks + f->p.stats.skipped_bytes + (size_t)(f->p.held - f->p.drop));
}

static void take_ack(ack_feeder_t *f, const bw_lobot_ack_frame_t *a)
{
    assert_int_equal(a->len, bw_lobot_ack_size(a->id));
    f->in_acks += 1u + a->len;
    f->total++;
    if (f->nacks == 32)
        return;
    got_ack_t *g = &f->acks[f->nacks++];
    g->id = a->id;
    g->len = a->len;
    memcpy(g->data, a->data, a->len);
}

static void ack_feed(ack_feeder_t *f, const uint8_t *data, size_t len)
{
    f->fed += len;
    bw_lobot_ack_frame_t a;
    int rc;
    while ((rc = bw_lobot_ack_parse(&f->p, &data, &len, &a)) != 0) {
        assert_int_equal(rc, 1);
        take_ack(f, &a);
        ack_accounting(f, len);
    }
    assert_int_equal(len, 0);
    ack_accounting(f, 0);
}

static void ack_finish(ack_feeder_t *f)
{
    bw_lobot_ack_frame_t a;
    int rc;
    while ((rc = bw_lobot_ack_parser_finish(&f->p, &a)) != 0) {
        assert_int_equal(rc, 1);
        take_ack(f, &a);
    }
    assert_int_equal(f->p.held, 0);
    ack_accounting(f, 0);
}

static void ack_feed_bytewise(ack_feeder_t *f, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++)
        ack_feed(f, data + i, 1);
}

static size_t append(uint8_t *buf, size_t at, const uint8_t *data, size_t n)
{
    memcpy(buf + at, data, n);
    return at + n;
}

/* ---- golden commands ---------------------------------------------------------------- */

static void test_golden_commands(void **state)
{
    (void)state;
    for (size_t i = 0; i < NGOLDEN; i++) {
        const golden_cmd_t *g = &GOLDEN_CMDS[i];
        uint8_t buf[8];
        memset(buf, 0xEE, sizeof buf);
        assert_int_equal(bw_lobot_encode_cmd(buf, sizeof buf, g->id, g->param), 4);
        assert_memory_equal(buf, g->wire, 4);
        assert_int_equal(buf[4], 0xEE);

        bw_lobot_cmd_t c;
        assert_int_equal(bw_lobot_decode_cmd(g->wire, 4, &c), 0);
        assert_int_equal(c.id, g->id);
        assert_int_equal(c.param, g->param);
        assert_true(c.known);

        cmd_feeder_t f;
        cmd_feeder_init(&f);
        cmd_feed(&f, g->wire, 4);
        assert_int_equal(f.ncmds, 1);
        assert_int_equal(f.cmds[0].id, g->id);
        assert_int_equal(f.cmds[0].param, g->param);
        assert_int_equal(f.p.stats.frames, 1);

        assert_string_equal(bw_lobot_cmd_name(g->id), g->name);
        assert_int_equal(bw_lobot_cmd_id(g->name), g->id);
    }
    uint8_t buf[4];
    assert_int_equal(bw_lobot_encode_cmd(buf, sizeof buf, BW_LOBOT_CMD_SPIN, 360), 4);
    assert_memory_equal(buf, SPIN_360, 4);
    /* The parameter's extremes. */
    bw_lobot_cmd_t c;
    assert_int_equal(bw_lobot_encode_cmd(buf, sizeof buf, 'F', INT16_MIN), 4);
    assert_memory_equal(buf, ((const uint8_t[]){ 0x46, 0x80, 0x00, 0xC6 }), 4);
    assert_int_equal(bw_lobot_decode_cmd(buf, 4, &c), 0);
    assert_int_equal(c.param, INT16_MIN);
    assert_int_equal(bw_lobot_encode_cmd(buf, sizeof buf, 'F', INT16_MAX), 4);
    assert_memory_equal(buf, ((const uint8_t[]){ 0x46, 0x7F, 0xFF, 0xC6 }), 4);
    assert_int_equal(bw_lobot_decode_cmd(buf, 4, &c), 0);
    assert_int_equal(c.param, INT16_MAX);
}

static void test_command_names(void **state)
{
    (void)state;
    /* The catalogue in the seed's order, and every id known exactly once. */
    unsigned n = 0;
    for (int id; (id = bw_lobot_cmd_at(n)) >= 0; n++) {
        assert_int_equal(id, GOLDEN_CMDS[n].id);
        assert_true(bw_lobot_cmd_known((uint8_t)id));
    }
    assert_int_equal(n, 10);
    unsigned known = 0;
    for (unsigned id = 0; id < 256; id++) {
        bool k = bw_lobot_cmd_known((uint8_t)id);
        assert_int_equal(k, bw_lobot_cmd_name((uint8_t)id) != NULL);
        if (k)
            known++;
    }
    assert_int_equal(known, 10);
    /* Any case in, lower case out. */
    assert_int_equal(bw_lobot_cmd_id("FORWARD"), 'F');
    assert_int_equal(bw_lobot_cmd_id("Enable_Rear_Bumps"), 'e');
    assert_int_equal(bw_lobot_cmd_id("Disable_REAR_bumps"), 'd');
    assert_int_equal(bw_lobot_cmd_id("forwards"), BW_EUNKNOWN);
    assert_int_equal(bw_lobot_cmd_id("forwar"), BW_EUNKNOWN);
    assert_int_equal(bw_lobot_cmd_id(""), BW_EUNKNOWN);
    assert_int_equal(bw_lobot_cmd_id("F"), BW_EUNKNOWN);
    assert_null(bw_lobot_cmd_name('X'));
    assert_null(bw_lobot_cmd_name(0));
    /* ACK names. */
    static const struct {
        uint8_t id;
        const char *name;
        int size;
    } acks[] = { { ':', "ready", 0 },  { 'B', "bumps", 5 },  { 'W', "wheel_drops", 1 },
                 { 'C', "cliffs", 5 }, { '.', "remote", 1 }, { '$', "sensors", 53 } };
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(bw_lobot_ack_at(i), acks[i].id);
        assert_string_equal(bw_lobot_ack_name(acks[i].id), acks[i].name);
        assert_int_equal(bw_lobot_ack_id(acks[i].name), acks[i].id);
        assert_int_equal(bw_lobot_ack_size(acks[i].id), acks[i].size);
    }
    assert_int_equal(bw_lobot_ack_at(6), -1);
    assert_int_equal(bw_lobot_ack_id("WHEEL_DROPS"), 'W');
    assert_int_equal(bw_lobot_ack_id("spin"), BW_EUNKNOWN);
    unsigned nacks = 0;
    for (unsigned id = 0; id < 256; id++) {
        bool k = bw_lobot_ack_size((uint8_t)id) >= 0;
        assert_int_equal(k, bw_lobot_ack_desc((uint8_t)id) != NULL);
        assert_int_equal(k, bw_lobot_ack_name((uint8_t)id) != NULL);
        if (k)
            nacks++;
    }
    assert_int_equal(nacks, 6);
}

/* ---- golden ACKs --------------------------------------------------------------------- */

static bw_lobot_ack_t decode_wire(const uint8_t *w, size_t n)
{
    bw_lobot_ack_t a;
    assert_int_equal(bw_lobot_decode_ack(w[0], w + 1, n - 1, &a), 0);
    assert_int_equal(a.id, w[0]);
    /* Re-encoded by the table, the same bytes. */
    uint8_t out[BW_LOBOT_MAX_ACK];
    assert_int_equal(bw_lobot_encode_ack(out, sizeof out, &a), (int)n);
    assert_memory_equal(out, w, n);
    /* By the device's table-free encoder too. */
    memset(out, 0xEE, sizeof out);
    assert_int_equal(bw_lobot_encode_ack_bytes(out, sizeof out, w[0], w + 1), (int)n);
    assert_memory_equal(out, w, n);
    /* And parsed from a stream. */
    ack_feeder_t f;
    ack_feeder_init(&f);
    ack_feed(&f, w, n);
    assert_int_equal(f.nacks, 1);
    assert_int_equal(f.acks[0].id, w[0]);
    assert_int_equal(f.acks[0].len, n - 1);
    assert_memory_equal(f.acks[0].data, w + 1, n - 1);
    return a;
}

static void test_golden_acks(void **state)
{
    (void)state;
    bw_lobot_ack_t a = decode_wire(READY, sizeof READY);
    assert_int_equal(a.id, BW_LOBOT_ACK_READY);

    a = decode_wire(BUMPS, sizeof BUMPS);
    assert_int_equal(a.u.bumps.flags, BW_CREATE_BUMP_LEFT | BW_LOBOT_BUMP_ACK_REAR_RIGHT);
    assert_int_equal(a.u.bumps.distance, -150);
    assert_int_equal(a.u.bumps.angle, 15);
    uint8_t out[BW_LOBOT_MAX_ACK];
    assert_int_equal(bw_lobot_encode_motion(out, sizeof out, BW_LOBOT_ACK_BUMPS, 0x06, -150, 15), 6);
    assert_memory_equal(out, BUMPS, 6);

    a = decode_wire(WHEEL_DROPS, sizeof WHEEL_DROPS);
    assert_int_equal(a.u.wheel_drops.flags, BW_CREATE_WHEEL_DROP_RIGHT | BW_CREATE_WHEEL_DROP_CASTER);

    a = decode_wire(CLIFFS, sizeof CLIFFS);
    assert_int_equal(a.u.cliffs.flags, BW_LOBOT_CLIFF_FRONT_LEFT | BW_LOBOT_CLIFF_LEFT);
    assert_int_equal(a.u.cliffs.distance, -300);
    assert_int_equal(a.u.cliffs.angle, -30);
    assert_int_equal(bw_lobot_encode_motion(out, sizeof out, BW_LOBOT_ACK_CLIFFS, 0x0C, -300, -30), 6);
    assert_memory_equal(out, CLIFFS, 6);

    a = decode_wire(REMOTE, sizeof REMOTE);
    assert_int_equal(a.u.remote.infrared_byte, BW_CREATE_IR_PAUSE);

    /* Built from fields. */
    bw_lobot_ack_t m;
    bw_lobot_ack_init(&m, BW_LOBOT_ACK_CLIFFS);
    m.u.cliffs.flags = 0x0C;
    m.u.cliffs.distance = -300;
    m.u.cliffs.angle = -30;
    assert_int_equal(bw_lobot_encode_ack(out, sizeof out, &m), 6);
    assert_memory_equal(out, CLIFFS, 6);
    bw_lobot_ack_init(&m, BW_LOBOT_ACK_READY);
    assert_int_equal(bw_lobot_encode_ack(out, sizeof out, &m), 1);
    assert_int_equal(out[0], ':');
    assert_int_equal(bw_lobot_encode_ack_bytes(out, sizeof out, ':', NULL), 1);
    assert_int_equal(out[0], ':');
}

static void test_golden_sensors(void **state)
{
    (void)state;
    uint8_t w[1 + BW_LOBOT_SENSORS_SIZE];
    sensors_wire(w);
    bw_lobot_ack_t a;
    assert_int_equal(bw_lobot_decode_ack('$', w + 1, BW_LOBOT_SENSORS_SIZE, &a), 0);
    const bw_create_sensors_t *s = &a.u.sensors.oi;
    assert_int_equal(s->bumps_wheel_drops, 0x80);
    assert_int_equal(s->wall, 0x81);
    assert_int_equal(s->cliff_left, 0x82);
    assert_int_equal(s->cliff_front_left, 0x83);
    assert_int_equal(s->cliff_front_right, 0x84);
    assert_int_equal(s->cliff_right, 0x85);
    assert_int_equal(s->virtual_wall, 0x86);
    assert_int_equal(s->lsd_wheel_oc, 0x87);
    /* 0x88, 0x89: the unused bytes. */
    assert_int_equal(s->infrared_byte, 0x8A);
    assert_int_equal(s->buttons, 0x8B);
    assert_int_equal(s->distance, -29555); /* 0x8C8D */
    assert_int_equal(s->angle, -29041);    /* 0x8E8F */
    assert_int_equal(s->charging_state, 0x90);
    assert_int_equal(s->voltage, 37266); /* 0x9192, unsigned */
    assert_int_equal(s->current, -27756); /* 0x9394 */
    assert_int_equal(s->battery_temp, -107); /* 0x95, signed 8 bits */
    assert_int_equal(s->battery_charge, 38551);
    assert_int_equal(s->battery_capacity, 39065);
    assert_int_equal(s->wall_signal, 39579);
    assert_int_equal(s->cliff_left_signal, 40093);
    assert_int_equal(s->cliff_front_left_signal, 40607);
    assert_int_equal(s->cliff_front_right_signal, 41121);
    assert_int_equal(s->cliff_right_signal, 41635);
    assert_int_equal(s->cargo_bay_digital_inputs, 0xA4);
    assert_int_equal(s->cargo_bay_analog_signal, 42406);
    assert_int_equal(s->charging_sources, 0xA7);
    assert_int_equal(s->oi_mode, 0xA8);
    assert_int_equal(s->song_number, 0xA9);
    assert_int_equal(s->song_playing, 0xAA);
    assert_int_equal(s->num_stream_packets, 0xAB);
    assert_int_equal(s->requested_speed, -21331);
    assert_int_equal(s->requested_radius, -20817);
    assert_int_equal(s->requested_right_speed, -20303);
    assert_int_equal(s->requested_left_speed, -19789);
    assert_int_equal(a.u.sensors.spin_flag, 0xB4);

    /* Re-encoded: the unused bytes go out as 0. */
    uint8_t out[BW_LOBOT_MAX_ACK];
    assert_int_equal(bw_lobot_encode_ack(out, sizeof out, &a), 54);
    uint8_t want[54];
    memcpy(want, w, 54);
    want[1 + 8] = 0;
    want[1 + 9] = 0;
    assert_memory_equal(out, want, 54);

    /* The Command Module's way: the Create's 52 bytes already at buf + 1. */
    uint8_t buf[BW_LOBOT_MAX_ACK];
    memcpy(buf + 1, w + 1, 52);
    assert_int_equal(bw_lobot_encode_sensors_bytes(buf, sizeof buf, buf + 1, 0xB4), 54);
    assert_memory_equal(buf, w, 54);
    /* ...or elsewhere. */
    memset(buf, 0, sizeof buf);
    assert_int_equal(bw_lobot_encode_sensors_bytes(buf, sizeof buf, w + 1, 0xB4), 54);
    assert_memory_equal(buf, w, 54);

    /* Rear bumpers in byte 0 of a real-looking block: 0x20 rear right,
     * 0x40 rear left, beside the OI's bits. */
    uint8_t blk[53] = { BW_LOBOT_BUMP_REAR_LEFT | BW_CREATE_BUMP_RIGHT | BW_CREATE_WHEEL_DROP_CASTER };
    blk[BW_LOBOT_SENSORS_SPIN_FLAG] = 1;
    assert_int_equal(bw_lobot_decode_ack('$', blk, sizeof blk, &a), 0);
    assert_int_equal(a.u.sensors.oi.bumps_wheel_drops & BW_LOBOT_BUMP_REAR_BOTH, BW_LOBOT_BUMP_REAR_LEFT);
    assert_false(a.u.sensors.oi.bumps_wheel_drops & BW_LOBOT_BUMP_REAR_RIGHT);
    assert_true(a.u.sensors.oi.bumps_wheel_drops & BW_CREATE_BUMP_RIGHT);
    assert_int_equal(a.u.sensors.spin_flag, 1);
    assert_int_equal(BW_LOBOT_BUMP_REAR_RIGHT, 0x20);
    assert_int_equal(BW_LOBOT_BUMP_ACK_REAR_RIGHT, 0x04);
    assert_int_equal(BW_LOBOT_BUMP_ACK_REAR_LEFT, 0x08);
}

/* The SENSORS table is the Create's group 6 plus the spin flag: the same
 * names, types and order. */
static void test_desc_tables(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 6; i++) {
        uint8_t id = (uint8_t)bw_lobot_ack_at(i);
        const bw_msgdesc_t *d = bw_lobot_ack_desc(id);
        assert_non_null(d);
        assert_int_equal(d->order, BW_ORDER_BE);
        assert_int_equal(d->wire_len, bw_lobot_ack_size(id));
        size_t sum = 0;
        for (size_t k = 0; k < d->nfields; k++) {
            const bw_field_t *f = &d->fields[k];
            sum += bw_ftype_size((bw_ftype_t)f->type) * f->count;
            if (f->type != BW_FT_PAD)
                assert_true(f->offset + bw_ftype_size((bw_ftype_t)f->type) <= sizeof(bw_lobot_ack_t));
        }
        assert_int_equal(sum, d->wire_len);
    }
    const bw_msgdesc_t *ls = bw_lobot_ack_desc('$');
    const bw_msgdesc_t *g6 = bw_create_packet_desc(6);
    assert_int_equal(ls->nfields, g6->nfields + 1);
    assert_int_equal(g6->wire_len + 1, ls->wire_len);
    for (size_t k = 0; k < g6->nfields; k++) {
        assert_string_equal(ls->fields[k].name, g6->fields[k].name);
        assert_int_equal(ls->fields[k].type, g6->fields[k].type);
        if (g6->fields[k].type != BW_FT_PAD)
            assert_int_equal(ls->fields[k].offset,
                             offsetof(bw_lobot_ack_t, u.sensors.oi) + g6->fields[k].offset);
    }
    assert_string_equal(ls->fields[ls->nfields - 1].name, "spin_flag");
    /* Names the brief fixes, in order, and which are signed. */
    static const char *const names[] = {
        "bumps_wheel_drops", "wall", "cliff_left", "cliff_front_left", "cliff_front_right",
        "cliff_right", "virtual_wall", "lsd_wheel_oc", "unused", "unused", "infrared_byte",
        "buttons", "distance", "angle", "charging_state", "voltage", "current", "battery_temp",
        "battery_charge", "battery_capacity", "wall_signal", "cliff_left_signal",
        "cliff_front_left_signal", "cliff_front_right_signal", "cliff_right_signal",
        "cargo_bay_digital_inputs", "cargo_bay_analog_signal", "charging_sources", "oi_mode",
        "song_number", "song_playing", "num_stream_packets", "requested_speed",
        "requested_radius", "requested_right_speed", "requested_left_speed", "spin_flag",
    };
    assert_int_equal(ls->nfields, sizeof names / sizeof names[0]);
    for (size_t k = 0; k < ls->nfields; k++) {
        assert_string_equal(ls->fields[k].name, names[k]);
        bool is_signed = ls->fields[k].type == BW_FT_I8 || ls->fields[k].type == BW_FT_I16;
        bool want = !strcmp(names[k], "distance") || !strcmp(names[k], "angle") ||
                    !strcmp(names[k], "current") || !strcmp(names[k], "battery_temp") ||
                    !strncmp(names[k], "requested_", 10);
        assert_int_equal(is_signed, want);
    }
    assert_int_equal(ls->fields[8].type, BW_FT_PAD);
    assert_int_equal(ls->fields[9].type, BW_FT_PAD);
}

/* ---- round trips ----------------------------------------------------------------------- */

static void test_roundtrip_every_command(void **state)
{
    (void)state;
    static const int16_t params[] = { INT16_MIN, -360, -1, 0, 1, 99, 255, 256, 500, INT16_MAX };
    uint8_t stream[4 + NGOLDEN * 10 * 4];
    /* A stream is joined out of step: its first command must have a
     * parameter its id takes (a NOP here); then every parameter goes. */
    size_t n = append(stream, 0, GOLDEN_CMDS[0].wire, 4);
    for (size_t i = 0; i < NGOLDEN; i++)
        for (size_t k = 0; k < 10; k++) {
            assert_int_equal(bw_lobot_encode_cmd(stream + n, 4, GOLDEN_CMDS[i].id, params[k]), 4);
            bw_lobot_cmd_t c;
            assert_int_equal(bw_lobot_decode_cmd(stream + n, 4, &c), 0);
            assert_int_equal(c.id, GOLDEN_CMDS[i].id);
            assert_int_equal(c.param, params[k]);
            n += 4;
        }
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        cmd_feeder_t f;
        cmd_feeder_init(&f);
        if (bytewise)
            cmd_feed_bytewise(&f, stream, n);
        else
            cmd_feed(&f, stream, n);
        assert_int_equal(f.total, 1 + NGOLDEN * 10);
        assert_int_equal(f.p.stats.frames, 1 + NGOLDEN * 10);
        assert_int_equal(f.p.stats.skipped_bytes, 0);
        for (size_t i = 0; i < 63; i++) {
            assert_int_equal(f.cmds[1 + i].id, GOLDEN_CMDS[i / 10].id);
            assert_int_equal(f.cmds[1 + i].param, params[i % 10]);
        }
    }
}

/* The codec decodes and encodes each ACK with code of its own (the
 * compiler's, from the field table) where the small build walks the table:
 * both must read and write what the table says, field by field. */
static void test_acks_as_their_tables(void **state)
{
    (void)state;
    for (unsigned i = 0; bw_lobot_ack_at(i) >= 0; i++) {
        uint8_t id = (uint8_t)bw_lobot_ack_at(i);
        const bw_msgdesc_t *d = bw_lobot_ack_desc(id);
        for (unsigned seed = 0; seed < 64; seed++) {
            uint8_t wire[BW_LOBOT_MAX_ACK];
            for (size_t k = 0; k < d->wire_len; k++)
                wire[k] = (uint8_t)(seed * 89u + k * 37u + (seed & 1 ? 0x80u : 0u));
            bw_lobot_ack_t a, want;
            assert_int_equal(bw_lobot_decode_ack(id, wire, d->wire_len, &a), 0);
            bw_lobot_ack_init(&want, id);
            bw_desc_decode(d, wire, &want);
            for (size_t k = 0; k < d->nfields; k++)
                if (d->fields[k].type != BW_FT_PAD)
                    assert_true(bw_field_get(&a, &d->fields[k], 0) ==
                                bw_field_get(&want, &d->fields[k], 0));
            uint8_t out[BW_LOBOT_MAX_ACK], ref[BW_LOBOT_MAX_ACK];
            assert_int_equal(bw_lobot_encode_ack(out, sizeof out, &a), 1 + d->wire_len);
            bw_desc_encode(d, &want, ref);
            assert_memory_equal(out + 1, ref, d->wire_len);
        }
    }
}

static void test_roundtrip_every_ack(void **state)
{
    (void)state;
    /* A sample of every ACK from the table encoder, parsed back and decoded
     * to the same message. */
    bw_lobot_ack_t m[6];
    for (unsigned i = 0; i < 6; i++)
        bw_lobot_ack_init(&m[i], (uint8_t)bw_lobot_ack_at(i));
    m[1].u.bumps.flags = 0x0F;
    m[1].u.bumps.distance = INT16_MIN;
    m[1].u.bumps.angle = INT16_MAX;
    m[2].u.wheel_drops.flags = 0x1C;
    m[3].u.cliffs.flags = 0x0F;
    m[3].u.cliffs.distance = -1;
    m[3].u.cliffs.angle = 1;
    m[4].u.remote.infrared_byte = BW_CREATE_IR_NONE;
    bw_lobot_sensors_t *s = &m[5].u.sensors;
    s->oi.distance = -500;
    s->oi.angle = 90;
    s->oi.voltage = 65535;
    s->oi.battery_temp = -128;
    s->oi.requested_radius = BW_CREATE_RADIUS_STRAIGHT;
    s->oi.oi_mode = BW_CREATE_MODE_FULL;
    s->spin_flag = 1;
    uint8_t stream[256];
    size_t n = 0;
    for (unsigned i = 0; i < 6; i++) {
        int k = bw_lobot_encode_ack(stream + n, sizeof stream - n, &m[i]);
        assert_int_equal(k, 1 + bw_lobot_ack_size(m[i].id));
        n += (size_t)k;
    }
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        ack_feeder_t f;
        ack_feeder_init(&f);
        if (bytewise)
            ack_feed_bytewise(&f, stream, n);
        else
            ack_feed(&f, stream, n);
        assert_int_equal(f.nacks, 6);
        for (unsigned i = 0; i < 6; i++) {
            bw_lobot_ack_t d;
            assert_int_equal(bw_lobot_decode_ack(f.acks[i].id, f.acks[i].data, f.acks[i].len, &d), 0);
            assert_memory_equal(&d, &m[i], sizeof d);
        }
        assert_int_equal(f.p.stats.frames, 6);
        assert_int_equal(f.p.stats.skipped_bytes, 0);
    }
}

/* ---- encode and decode errors ------------------------------------------------------ */

static void test_errors(void **state)
{
    (void)state;
    uint8_t buf[BW_LOBOT_MAX_ACK];
    bw_lobot_cmd_t c;
    assert_int_equal(bw_lobot_encode_cmd(buf, 3, 'F', 1), BW_ENOSPC);
    assert_int_equal(bw_lobot_encode_cmd(buf, 0, 'F', 1), BW_ENOSPC);
    assert_int_equal(bw_lobot_decode_cmd(GOLDEN_CMDS[1].wire, 3, &c), BW_ELENGTH);
    assert_int_equal(bw_lobot_decode_cmd(GOLDEN_CMDS[1].wire, 5, &c), BW_ELENGTH);
    /* Bad parity: still decoded, for the log. */
    const uint8_t bad[] = { 0x46, 0x00, 0xC8, 0x8F };
    assert_int_equal(bw_lobot_decode_cmd(bad, 4, &c), BW_ECHECKSUM);
    assert_int_equal(c.id, 'F');
    assert_int_equal(c.param, 200);
    /* Unknown id with good parity; the encoder writes any id. */
    assert_int_equal(bw_lobot_encode_cmd(buf, 4, 'X', 7), 4);
    assert_memory_equal(buf, ((const uint8_t[]){ 0x58, 0x00, 0x07, 0x5F }), 4);
    assert_int_equal(bw_lobot_decode_cmd(buf, 4, &c), BW_EUNKNOWN);
    assert_int_equal(c.id, 'X');
    assert_false(c.known);
    assert_int_equal(c.param, 7);

    bw_lobot_ack_t a;
    assert_int_equal(bw_lobot_decode_ack('X', buf, 0, &a), BW_EUNKNOWN);
    assert_int_equal(bw_lobot_decode_ack('B', BUMPS + 1, 4, &a), BW_ELENGTH);
    assert_int_equal(bw_lobot_decode_ack('B', BUMPS + 1, 6, &a), BW_ELENGTH);
    assert_int_equal(bw_lobot_decode_ack(':', buf, 1, &a), BW_ELENGTH);
    assert_int_equal(bw_lobot_decode_ack(':', NULL, 0, &a), 0);
    bw_lobot_ack_init(&a, 'X');
    assert_int_equal(bw_lobot_encode_ack(buf, sizeof buf, &a), BW_EUNKNOWN);
    for (unsigned i = 0; i < 6; i++) {
        uint8_t id = (uint8_t)bw_lobot_ack_at(i);
        size_t n = 1u + (size_t)bw_lobot_ack_size(id);
        bw_lobot_ack_init(&a, id);
        assert_int_equal(bw_lobot_encode_ack(buf, n, &a), (int)n);
        assert_int_equal(bw_lobot_encode_ack(buf, n - 1, &a), BW_ENOSPC);
        assert_int_equal(bw_lobot_encode_ack_bytes(buf, n, id, NULL), (int)n);
        assert_int_equal(bw_lobot_encode_ack_bytes(buf, n - 1, id, NULL), BW_ENOSPC);
    }
    assert_int_equal(bw_lobot_encode_ack_bytes(buf, sizeof buf, 'X', NULL), BW_EUNKNOWN);
    assert_int_equal(bw_lobot_encode_motion(buf, 6, 'W', 0, 0, 0), BW_EINVAL);
    assert_int_equal(bw_lobot_encode_motion(buf, 5, 'B', 0, 0, 0), BW_ENOSPC);
    assert_int_equal(bw_lobot_encode_sensors_bytes(buf, 53, buf + 1, 0), BW_ENOSPC);
}

/* ---- the command parser -------------------------------------------------------------- */

/* Three commands back to back. */
static size_t three_cmds(uint8_t *s)
{
    size_t n = 0;
    n = append(s, n, GOLDEN_CMDS[1].wire, 4); /* forward 200 */
    n = append(s, n, GOLDEN_CMDS[7].wire, 4); /* spin -90 */
    n = append(s, n, GOLDEN_CMDS[3].wire, 4); /* stop */
    return n;
}

static void expect_three_cmds(const cmd_feeder_t *f)
{
    assert_int_equal(f->ncmds, 3);
    assert_int_equal(f->cmds[0].id, 'F');
    assert_int_equal(f->cmds[0].param, 200);
    assert_int_equal(f->cmds[1].id, '*');
    assert_int_equal(f->cmds[1].param, -90);
    assert_int_equal(f->cmds[2].id, 'S');
}

static void test_cmd_every_split_point(void **state)
{
    (void)state;
    uint8_t s[16];
    size_t n = three_cmds(s);
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b++) {
            cmd_feeder_t f;
            cmd_feeder_init(&f);
            cmd_feed(&f, s, a);
            cmd_feed(&f, s + a, b - a);
            cmd_feed(&f, s + b, n - b);
            expect_three_cmds(&f);
            assert_int_equal(f.p.stats.skipped_bytes, 0);
            assert_int_equal(f.p.stats.checksum_errors, 0);
            assert_int_equal(f.p.held, 0);
            assert_int_equal(bw_lobot_cmd_parser_finish(&f.p), 0);
            assert_int_equal(f.p.stats.length_errors, 0);
        }
}

static void test_cmd_garbage_and_bad_parity(void **state)
{
    (void)state;
    /* One stray byte before, two between, a command with its parity
     * flipped: each parity error skips one byte and rescans; the good
     * commands behind are all found. */
    uint8_t s[64];
    size_t n = 0;
    s[n++] = 0x00;
    n = append(s, n, GOLDEN_CMDS[1].wire, 4);
    s[n++] = 0x11;
    s[n++] = 0x22;
    n = append(s, n, GOLDEN_CMDS[7].wire, 4);
    n = append(s, n, GOLDEN_CMDS[4].wire, 4);
    s[n - 1] ^= 0x01;
    n = append(s, n, GOLDEN_CMDS[3].wire, 4);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        cmd_feeder_t f;
        cmd_feeder_init(&f);
        if (bytewise)
            cmd_feed_bytewise(&f, s, n);
        else
            cmd_feed(&f, s, n);
        expect_three_cmds(&f);
        assert_int_equal(f.p.stats.skipped_bytes, 1 + 2 + 4);
        /* Windows tried: 1 at the stray byte, 2 at the pair, 4 from the
         * flipped command to the end of its bytes. */
        assert_int_equal(f.p.stats.checksum_errors, 7);
        assert_int_equal(f.rejects, 7);
        assert_int_equal(f.p.stats.unknown, 0);
        assert_int_equal(f.p.stats.frames, 3);
    }
    /* A lost byte: `46 00 C8 | 2A FF A6 73` without its 00 shifts the
     * window; the parity check catches it and the next command is found. */
    uint8_t t[] = { 0x46, 0xC8, 0x8E, 0x2A, 0xFF, 0xA6, 0x73 };
    cmd_feeder_t f;
    cmd_feeder_init(&f);
    cmd_feed(&f, t, sizeof t);
    assert_int_equal(f.ncmds, 1);
    assert_int_equal(f.cmds[0].id, '*');
    assert_int_equal(f.p.stats.skipped_bytes, 3);
    assert_int_equal(f.p.stats.checksum_errors, 3);
}

static void test_cmd_unknown_ids(void **state)
{
    (void)state;
    /* 'X' with good parity is no command: counted as unknown, its first byte
     * skipped and the rest rescanned, as after a bad parity (a shifted
     * window in a run of equal commands has a good parity too). The good
     * command behind it is found. */
    uint8_t s[16];
    size_t n = 0;
    n += (size_t)bw_lobot_encode_cmd(s + n, 4, 'X', 7);
    n = append(s, n, GOLDEN_CMDS[0].wire, 4);
    n += (size_t)bw_lobot_encode_cmd(s + n, 4, 0xFF, -1);
    cmd_feeder_t f;
    cmd_feeder_init(&f);
    cmd_feed(&f, s, n);
    assert_int_equal(f.ncmds, 1);
    assert_true(f.cmds[0].known);
    assert_int_equal(f.cmds[0].id, '@');
    assert_int_equal(f.p.stats.unknown, 2);
    assert_int_equal(f.p.stats.frames, 1);
    /* X's four bytes; 0xFF's first, the other three held to the end. */
    assert_int_equal(f.p.stats.skipped_bytes, 4 + 1);
    assert_int_equal(f.p.held, 3);
    assert_int_equal(bw_lobot_cmd_parser_finish(&f.p), 0);
    assert_int_equal(f.p.stats.skipped_bytes, 8);
}

/* A run of equal commands joined at its second, third or fourth byte
 * (after a damaged byte, or a capture that starts there): every window has
 * a good parity (a command's four bytes XOR to 0 from whichever byte), and
 * from the fourth byte a run of NOPs reads as NOPs of parameter 0x4000. Out
 * of step (as a parser starts), the parser takes only commands with a
 * parameter their id takes, and finds the step within four bytes. */
static void test_cmd_shifted_runs(void **state)
{
    (void)state;
    static const uint8_t ids[] = { '@', 'S', '!', 'F', '<' };
    static const int16_t params[] = { 0, 0, 0, 200, 300 };
    for (size_t k = 0; k < sizeof ids; k++)
        for (size_t shift = 1; shift < 4; shift++)
            for (int damaged = 0; damaged < 2; damaged++) {
                uint8_t s[4 * 10];
                size_t n = 0;
                for (int i = 0; i < 10; i++)
                    n += (size_t)bw_lobot_encode_cmd(s + n, 4, ids[k], params[k]);
                cmd_feeder_t f;
                cmd_feeder_init(&f);
                if (damaged) { /* in step, then a byte flipped: the window goes bad */
                    cmd_feed(&f, s, 4);
                    assert_int_equal(f.ncmds, 1);
                    s[4] ^= 0x10;
                    cmd_feed(&f, s + 4, n - 4);
                    assert_int_equal(f.ncmds, 1 + 8);
                } else {
                    cmd_feed(&f, s + shift, n - shift);
                    assert_int_equal(f.ncmds, 9);
                }
                for (size_t i = 0; i < f.ncmds; i++) {
                    assert_int_equal(f.cmds[i].id, ids[k]);
                    assert_int_equal(f.cmds[i].param, params[k]);
                }
            }
}

/* Bit errors both ways over a driver's command stream (NOPs mostly, a
 * change now and then): every command whose four bytes came intact is
 * found, at a bit error rate of 1e-4 and 1e-3, and nothing else but what a
 * damaged command's bytes happen to make (a bad window is never shown). */
static void test_cmd_noisy_stream(void **state)
{
    (void)state;
    enum { N = 20000 };
    static uint8_t s[4 * N];
    static bool intact[N];
    static const double bers[] = { 1e-4, 1e-3 };
    for (size_t b = 0; b < 2; b++) {
        uint32_t r = 4242;
        int16_t speed = 0;
        for (size_t i = 0; i < N; i++) {
            r = r * 1103515245u + 12345u;
            uint8_t id = BW_LOBOT_CMD_NOP;
            int16_t param = 0;
            switch ((r >> 16) % 16) {
            case 0: id = BW_LOBOT_CMD_FORWARD, param = speed = (int16_t)((r >> 8) % 501); break;
            case 1: id = BW_LOBOT_CMD_LEFT, param = (int16_t)((r >> 8) % 2001); break;
            case 2: id = BW_LOBOT_CMD_RIGHT, param = 0; break;
            case 3: id = BW_LOBOT_CMD_STRAIGHT; break;
            case 4: id = BW_LOBOT_CMD_STOP, speed = 0; break;
            case 5: id = BW_LOBOT_CMD_SPIN, param = (int16_t)((int)((r >> 8) % 721) - 360); break;
            default: break;
            }
            (void)speed;
            bw_lobot_encode_cmd(s + 4 * i, 4, id, param);
        }
        /* Flip bits; a command is intact when none of its 32 bits flipped. */
        size_t nintact = 0;
        uint8_t want[4 * N];
        memcpy(want, s, sizeof want);
        for (size_t i = 0; i < N; i++) {
            intact[i] = true;
            for (int bit = 0; bit < 32; bit++) {
                r = r * 1103515245u + 12345u;
                if ((double)(r >> 8) / (double)(1u << 24) < bers[b]) {
                    s[4 * i + (size_t)bit / 8] ^= (uint8_t)(1u << (bit % 8));
                    intact[i] = false;
                }
            }
            nintact += intact[i];
        }
        cmd_feeder_t f;
        cmd_feeder_init(&f);
        bw_lobot_cmd_parser_t *p = &f.p;
        const uint8_t *d = s;
        size_t len = sizeof s, found = 0, next = 0;
        bw_lobot_cmd_t c;
        int rc;
        while ((rc = bw_lobot_cmd_parse(p, &d, &len, &c)) != 0) {
            if (rc != 1)
                continue;
            size_t at = (size_t)(d - s) - 4; /* where the command began */
            if (at % 4 == 0 && intact[at / 4]) {
                /* Intact commands come in order, none missed. */
                while (next < at / 4 && !intact[next])
                    next++;
                assert_int_equal(at / 4, next);
                assert_memory_equal(s + at, want + at, 4);
                found++;
                next++;
            }
        }
        while (next < N && !intact[next])
            next++;
        assert_int_equal(next, N);
        printf("lobot commands at a bit error rate of %g: %zu of %zu intact commands found, "
               "%llu bad windows\n",
               bers[b], found, nintact,
               (unsigned long long)(p->stats.checksum_errors + p->stats.unknown));
        assert_int_equal(found, nintact);
        assert_true(nintact < N);
    }
}

static void test_cmd_truncated(void **state)
{
    (void)state;
    for (size_t keep = 1; keep < 4; keep++) {
        cmd_feeder_t f;
        cmd_feeder_init(&f);
        cmd_feed(&f, GOLDEN_CMDS[1].wire, 4);
        cmd_feed(&f, GOLDEN_CMDS[2].wire, keep);
        assert_int_equal(f.p.held, keep);
        assert_int_equal(bw_lobot_cmd_parser_finish(&f.p), 0);
        assert_int_equal(f.p.held, 0);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, keep);
        cmd_accounting(&f, 0);
        /* Usable again. */
        cmd_feed(&f, GOLDEN_CMDS[3].wire, 4);
        assert_int_equal(f.ncmds, 2);
        assert_int_equal(f.cmds[1].id, 'S');
    }
    cmd_feeder_t f;
    cmd_feeder_init(&f);
    assert_int_equal(bw_lobot_cmd_parser_finish(&f.p), 0);
    assert_int_equal(f.p.stats.length_errors, 0);
}

/* Random bytes and commands in random splits: the accounting holds at
 * every step, and the result does not depend on the splits. */
static void test_cmd_random_splits(void **state)
{
    (void)state;
    uint8_t s[4096];
    uint32_t r = 12345;
    size_t n = 0;
    while (n + 8 < sizeof s) {
        r = r * 1103515245u + 12345u;
        if ((r >> 16) % 3 == 0)
            s[n++] = (uint8_t)(r >> 24);
        else
            n = append(s, n, GOLDEN_CMDS[(r >> 20) % NGOLDEN].wire, 4);
    }
    cmd_feeder_t whole, cut;
    cmd_feeder_init(&whole);
    cmd_feed(&whole, s, n);
    cmd_feeder_init(&cut);
    for (size_t off = 0; off < n;) {
        r = r * 1103515245u + 12345u;
        size_t k = 1 + (r >> 16) % 9;
        if (k > n - off)
            k = n - off;
        cmd_feed(&cut, s + off, k);
        off += k;
    }
    assert_memory_equal(&whole.p.stats, &cut.p.stats, sizeof whole.p.stats);
    assert_int_equal(whole.total, cut.total);
    assert_memory_equal(whole.cmds, cut.cmds, sizeof whole.cmds);
    assert_true(whole.total > 500);
}

/* ---- the ACK parser -------------------------------------------------------------------- */

static size_t every_ack(uint8_t *s)
{
    size_t n = 0;
    n = append(s, n, READY, sizeof READY);
    n = append(s, n, BUMPS, sizeof BUMPS);
    n = append(s, n, WHEEL_DROPS, sizeof WHEEL_DROPS);
    n = append(s, n, CLIFFS, sizeof CLIFFS);
    n = append(s, n, REMOTE, sizeof REMOTE);
    sensors_wire(s + n);
    n += 54;
    n = append(s, n, READY, sizeof READY);
    return n;
}

static void expect_every_ack(const ack_feeder_t *f)
{
    static const uint8_t ids[] = { ':', 'B', 'W', 'C', '.', '$', ':' };
    assert_int_equal(f->nacks, 7);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(f->acks[i].id, ids[i]);
    assert_memory_equal(f->acks[1].data, BUMPS + 1, 5);
    assert_memory_equal(f->acks[3].data, CLIFFS + 1, 5);
    assert_int_equal(f->acks[5].len, 53);
    assert_int_equal(f->acks[5].data[0], 0x80);
    assert_int_equal(f->acks[5].data[52], 0xB4);
}

static void test_ack_every_split_point(void **state)
{
    (void)state;
    uint8_t s[128];
    size_t n = every_ack(s);
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b++) {
            ack_feeder_t f;
            ack_feeder_init(&f);
            ack_feed(&f, s, a);
            ack_feed(&f, s + a, b - a);
            ack_feed(&f, s + b, n - b);
            expect_every_ack(&f);
            assert_int_equal(f.p.stats.skipped_bytes, 0);
            ack_finish(&f);
            assert_int_equal(f.p.stats.length_errors, 0);
        }
    ack_feeder_t f;
    ack_feeder_init(&f);
    ack_feed_bytewise(&f, s, n);
    expect_every_ack(&f);
}

static void test_ack_garbage(void **state)
{
    (void)state;
    /* Bytes that are no ACK id are skipped one at a time and counted as
     * skipped only. */
    static const uint8_t junk[] = { 0x00, 0x13, 'x', 0xFF, 'S' };
    uint8_t s[256];
    size_t n = 0;
    n = append(s, n, junk, sizeof junk);
    n = append(s, n, BUMPS, sizeof BUMPS);
    n = append(s, n, junk, sizeof junk);
    n = append(s, n, REMOTE, sizeof REMOTE);
    n = append(s, n, junk, 2);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        ack_feeder_t f;
        ack_feeder_init(&f);
        if (bytewise)
            ack_feed_bytewise(&f, s, n);
        else
            ack_feed(&f, s, n);
        assert_int_equal(f.nacks, 2);
        assert_int_equal(f.acks[0].id, 'B');
        assert_int_equal(f.acks[1].id, '.');
        assert_int_equal(f.p.stats.skipped_bytes, 2 * sizeof junk + 2);
        assert_int_equal(f.p.stats.unknown, 0);
        assert_int_equal(f.p.stats.frames, 2);
    }
}

static void test_ack_zero_copy(void **state)
{
    (void)state;
    size_t reps = 20000, n = 54 * reps;
    uint8_t *s = malloc(n);
    assert_non_null(s);
    for (size_t i = 0; i < reps; i++)
        sensors_wire(s + 54 * i);
    bw_lobot_ack_parser_t p;
    bw_lobot_ack_parser_init(&p);
    const uint8_t *d = s;
    size_t len = n, got = 0;
    bw_lobot_ack_frame_t a;
    while (bw_lobot_ack_parse(&p, &d, &len, &a) == 1) {
        assert_ptr_equal(a.data, s + 54 * got + 1);
        got++;
    }
    assert_int_equal(got, reps);
    assert_int_equal(p.stats.frames, reps);
    assert_int_equal(p.held, 0);
    free(s);
}

static void test_ack_truncated(void **state)
{
    (void)state;
    /* A SENSORS cut anywhere: one length error at the end, its id skipped,
     * and the bytes after it rescanned. Data bytes 0x80.. hold no ACK id. */
    uint8_t w[54];
    sensors_wire(w);
    for (size_t keep = 1; keep < 54; keep++) {
        ack_feeder_t f;
        ack_feeder_init(&f);
        ack_feed(&f, BUMPS, sizeof BUMPS);
        ack_feed(&f, w, keep);
        assert_int_equal(f.nacks, 1);
        ack_finish(&f);
        assert_int_equal(f.nacks, 1);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, keep);
        ack_feed(&f, READY, 1);
        assert_int_equal(f.nacks, 2);
    }
    /* A cut BUMPS whose data bytes hold whole ACKs: finish finds them. */
    static const uint8_t s[] = { 'B', ':', '.', 0x89 };
    ack_feeder_t f;
    ack_feeder_init(&f);
    ack_feed(&f, s, sizeof s);
    assert_int_equal(f.nacks, 0);
    ack_finish(&f);
    assert_int_equal(f.nacks, 2);
    assert_int_equal(f.acks[0].id, ':');
    assert_int_equal(f.acks[1].id, '.');
    assert_int_equal(f.acks[1].data[0], 0x89);
    assert_int_equal(f.p.stats.length_errors, 1);
    assert_int_equal(f.p.stats.skipped_bytes, 1);
    /* A cut CLIFFS inside a cut SENSORS: two length errors. */
    static const uint8_t t[] = { '$', 0x01, 'C', 0x02 };
    ack_feeder_init(&f);
    ack_feed(&f, t, sizeof t);
    ack_finish(&f);
    assert_int_equal(f.nacks, 0);
    assert_int_equal(f.p.stats.length_errors, 2);
    assert_int_equal(f.p.stats.skipped_bytes, 4);
    /* Nothing held: nothing counted. */
    ack_feeder_init(&f);
    ack_feed(&f, REMOTE, sizeof REMOTE);
    ack_finish(&f);
    assert_int_equal(f.p.stats.length_errors, 0);
}

static void test_ack_random_splits(void **state)
{
    (void)state;
    uint8_t s[4096];
    uint32_t r = 777;
    size_t n = 0;
    while (n + 60 < sizeof s) {
        r = r * 1103515245u + 12345u;
        if ((r >> 16) % 4 == 0) {
            s[n++] = (uint8_t)(r >> 24);
        } else {
            uint8_t id = (uint8_t)bw_lobot_ack_at((r >> 20) % 6);
            n += (size_t)bw_lobot_encode_ack_bytes(s + n, sizeof s - n, id, s);
        }
    }
    ack_feeder_t whole, cut;
    ack_feeder_init(&whole);
    ack_feed(&whole, s, n);
    ack_finish(&whole);
    ack_feeder_init(&cut);
    for (size_t off = 0; off < n;) {
        r = r * 1103515245u + 12345u;
        size_t k = 1 + (r >> 16) % 70;
        if (k > n - off)
            k = n - off;
        ack_feed(&cut, s + off, k);
        off += k;
    }
    ack_finish(&cut);
    assert_memory_equal(&whole.p.stats, &cut.p.stats, sizeof whole.p.stats);
    assert_int_equal(whole.total, cut.total);
    assert_true(whole.total > 100);
    assert_memory_equal(whole.acks, cut.acks, sizeof whole.acks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_commands),
        cmocka_unit_test(test_command_names),
        cmocka_unit_test(test_golden_acks),
        cmocka_unit_test(test_golden_sensors),
        cmocka_unit_test(test_desc_tables),
        cmocka_unit_test(test_roundtrip_every_command),
        cmocka_unit_test(test_roundtrip_every_ack),
        cmocka_unit_test(test_acks_as_their_tables),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cmd_every_split_point),
        cmocka_unit_test(test_cmd_garbage_and_bad_parity),
        cmocka_unit_test(test_cmd_unknown_ids),
        cmocka_unit_test(test_cmd_shifted_runs),
        cmocka_unit_test(test_cmd_noisy_stream),
        cmocka_unit_test(test_cmd_truncated),
        cmocka_unit_test(test_cmd_random_splits),
        cmocka_unit_test(test_ack_every_split_point),
        cmocka_unit_test(test_ack_garbage),
        cmocka_unit_test(test_ack_zero_copy),
        cmocka_unit_test(test_ack_truncated),
        cmocka_unit_test(test_ack_random_splits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
