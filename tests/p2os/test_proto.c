/* P2OS codec: golden vectors, round trips, parser abuse, models. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/p2os.h"

/* ---- helpers ------------------------------------------------------------- */

/* PROTOCOL-NOTES.md golden packets. */
static const uint8_t SYNC0[] = { 0xFA, 0xFB, 0x03, 0x00, 0x00, 0x00 };
static const uint8_t SYNC1[] = { 0xFA, 0xFB, 0x03, 0x01, 0x00, 0x01 };
static const uint8_t SYNC2[] = { 0xFA, 0xFB, 0x03, 0x02, 0x00, 0x02 };
static const uint8_t OPEN_1[] = { 0xFA, 0xFB, 0x06, 0x01, 0x3B, 0x01, 0x00, 0x02, 0x3B };
static const uint8_t ENABLE_1[] = { 0xFA, 0xFB, 0x06, 0x04, 0x3B, 0x01, 0x00, 0x05, 0x3B };
static const uint8_t VEL_200[] = { 0xFA, 0xFB, 0x06, 0x0B, 0x3B, 0xC8, 0x00, 0xD3, 0x3B };
static const uint8_t VEL_M200[] = { 0xFA, 0xFB, 0x06, 0x0B, 0x1B, 0xC8, 0x00, 0xD3, 0x1B };
static const uint8_t RVEL_30[] = { 0xFA, 0xFB, 0x06, 0x15, 0x3B, 0x1E, 0x00, 0x33, 0x3B };
static const uint8_t ODD_BODY[] = { 0xFA, 0xFB, 0x07, 0x0F, 0x2B, 0x02, 0x61, 0x62, 0x11, 0xEE };

/* A SIP written out byte by byte (python3) from the offsets of the notes'
 * table, counted from FA: 4 XPOS 0x1234, 6 YPOS 0x7FFF, 8 THPOS -1024,
 * 10 LVEL 200, 12 RVEL -150, 14 BATTERY 125, 15 STALLBUMP 0x0301, 17 CONTROL
 * 1024, 19 FLAGS 0x0003, 21 COMPASS 45, 22 SONAR 3: (0, 0x0123) (7, 5000)
 * (15, 0xFFFF); timer 0x0102, analog 0x80, digin 0x0F, digout 0xF0, then two
 * bytes of newer firmware AA BB. Type 0x33: moving. */
static const uint8_t SIP[] = {
    0xFA, 0xFB, 0x26, 0x33, 0x34, 0x12, 0xFF, 0x7F, 0x00, 0xFC, 0xC8, 0x00, 0x6A, 0xFF,
    0x7D, 0x01, 0x03, 0x00, 0x04, 0x03, 0x00, 0x2D, 0x03, 0x00, 0x23, 0x01, 0x07, 0x88,
    0x13, 0x0F, 0xFF, 0xFF, 0x02, 0x01, 0x80, 0x0F, 0xF0, 0xAA, 0xBB, 0x47, 0x55,
};

typedef struct {
    bw_p2os_parser_t p;
    size_t fed, in_frames;
    size_t nframes;
    uint8_t frames[16][BW_P2OS_MAX_BODY]; /* bodies of accepted frames */
    uint8_t lens[16];
    int rejects;
} feeder_t;

static void feeder_init(feeder_t *f)
{
    memset(f, 0, sizeof *f);
    bw_p2os_parser_init(&f->p);
}

/* Every byte fed is in an accepted frame, skipped, or held; `unread` bytes
 * of the current read are still with the caller. */
static void check_accounting_at(const feeder_t *f, size_t unread)
{
    assert_int_equal(f->fed - unread,
                     f->in_frames + f->p.stats.skipped_bytes + (size_t)(f->p.held - f->p.drop));
}

static void check_accounting(const feeder_t *f) { check_accounting_at(f, 0); }

static void take_frame(feeder_t *f, const bw_p2os_frame_t *fr)
{
    assert_true(f->nframes < 16);
    assert_true(fr->len >= 1 && fr->len <= BW_P2OS_MAX_BODY);
    memcpy(f->frames[f->nframes], fr->body, fr->len);
    f->lens[f->nframes++] = fr->len;
    f->in_frames += (size_t)fr->len + 5;
}

static void feed(feeder_t *f, const uint8_t *data, size_t len)
{
    f->fed += len;
    bw_p2os_frame_t fr;
    int rc;
    while ((rc = bw_p2os_parse(&f->p, &data, &len, &fr)) != 0) {
        if (rc < 0) {
            assert_true(rc == BW_ECHECKSUM || rc == BW_ELENGTH);
            f->rejects++;
            check_accounting_at(f, len);
            continue;
        }
        take_frame(f, &fr);
        check_accounting_at(f, len);
    }
    assert_int_equal(len, 0);
    check_accounting(f);
}

/* End of stream: whatever the held bytes still give. */
static void finish(feeder_t *f)
{
    bw_p2os_frame_t fr;
    int rc;
    while ((rc = bw_p2os_parser_finish(&f->p, &fr)) != 0) {
        if (rc < 0) {
            f->rejects++;
            continue;
        }
        take_frame(f, &fr);
    }
    assert_int_equal(f->p.held, 0);
    check_accounting(f);
}

static void feed_bytewise(feeder_t *f, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++)
        feed(f, data + i, 1);
}

static void feed_mode(feeder_t *f, const uint8_t *data, size_t len, int bytewise)
{
    if (bytewise)
        feed_bytewise(f, data, len);
    else
        feed(f, data, len);
}

static size_t append(uint8_t *buf, size_t at, const uint8_t *data, size_t n)
{
    memcpy(buf + at, data, n);
    return at + n;
}

/* Parses one whole frame and decodes it. */
static bw_p2os_msg_t decode_frame(const uint8_t *frame, size_t len, bw_p2os_dir_t dir, uint8_t *body)
{
    feeder_t f;
    feeder_init(&f);
    feed(&f, frame, len);
    assert_int_equal(f.nframes, 1);
    assert_int_equal(f.lens[0], len - 5);
    memcpy(body, f.frames[0], f.lens[0]);
    bw_p2os_msg_t m;
    assert_int_equal(bw_p2os_decode(dir, body, f.lens[0], &m), 0);
    assert_int_equal(m.length, len - 5);
    assert_int_equal(m.id, body[0]);
    return m;
}

/* Encodes m as a frame (and as a bare body), parses and decodes it without
 * error and re-encodes the result to the same bytes. Returns the decoded
 * message, whose pointers point into `body`. */
static bw_p2os_msg_t roundtrip(const bw_p2os_msg_t *m, bw_p2os_dir_t dir, uint8_t *body)
{
    uint8_t fr[BW_P2OS_MAX_FRAME], again[BW_P2OS_MAX_FRAME], b[BW_P2OS_MAX_BODY];
    int n = bw_p2os_encode_frame(fr, sizeof fr, m);
    assert_true(n >= 6);
    assert_int_equal(bw_p2os_encode_body(b, sizeof b, m), n - 5);
    assert_memory_equal(b, fr + 3, (size_t)n - 5);
    bw_p2os_msg_t d = decode_frame(fr, (size_t)n, dir, body);
    assert_int_equal(d.type, m->type);
    assert_int_equal(bw_p2os_encode_frame(again, sizeof again, &d), n);
    assert_memory_equal(again, fr, (size_t)n);
    return d;
}

/* ---- golden vectors ---------------------------------------------------------- */

typedef struct {
    const uint8_t *frame;
    size_t len;
    uint8_t cmd;
    uint8_t argkind;
    int32_t value;
} golden_t;

static const golden_t GOLDEN[] = {
    { SYNC0, sizeof SYNC0, BW_P2OS_PULSE, BW_P2OS_NOARG, 0 },
    { SYNC1, sizeof SYNC1, BW_P2OS_OPEN, BW_P2OS_NOARG, 0 },
    { SYNC2, sizeof SYNC2, BW_P2OS_CLOSE, BW_P2OS_NOARG, 0 },
    { OPEN_1, sizeof OPEN_1, BW_P2OS_OPEN, BW_P2OS_INTARG, 1 },
    { ENABLE_1, sizeof ENABLE_1, BW_P2OS_ENABLE, BW_P2OS_INTARG, 1 },
    { VEL_200, sizeof VEL_200, BW_P2OS_VEL, BW_P2OS_INTARG, 200 },
    { VEL_M200, sizeof VEL_M200, BW_P2OS_VEL, BW_P2OS_INTARG, -200 },
    { RVEL_30, sizeof RVEL_30, BW_P2OS_RVEL, BW_P2OS_INTARG, 30 },
};

static void test_golden_commands(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof GOLDEN / sizeof GOLDEN[0]; i++) {
        const golden_t *g = &GOLDEN[i];
        uint8_t buf[32], body[BW_P2OS_MAX_BODY];
        int n = g->argkind == BW_P2OS_NOARG ? bw_p2os_encode_cmd(buf, sizeof buf, g->cmd)
                                            : bw_p2os_encode_cmd_int(buf, sizeof buf, g->cmd, g->value);
        assert_int_equal(n, g->len);
        assert_memory_equal(buf, g->frame, g->len);

        bw_p2os_msg_t m;
        bw_p2os_msg_init(&m, BW_P2OS_COMMAND);
        m.u.command.cmd = g->cmd;
        m.u.command.argkind = g->argkind;
        m.u.command.value = g->value;
        memset(buf, 0xEE, sizeof buf);
        assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), g->len);
        assert_memory_equal(buf, g->frame, g->len);

        bw_p2os_msg_t d = decode_frame(g->frame, g->len, BW_P2OS_FROM_HOST, body);
        assert_int_equal(d.type, BW_P2OS_COMMAND);
        assert_int_equal(d.id, g->cmd);
        assert_int_equal(d.u.command.cmd, g->cmd);
        assert_int_equal(d.u.command.argkind, g->argkind);
        assert_int_equal(d.u.command.value, g->value);
    }

    /* The odd-length body: its last byte is XORed into the checksum's low byte. */
    assert_int_equal(bw_sum16_pairs(ODD_BODY + 3, 5), 0x11EE);
    uint8_t buf[32], body[BW_P2OS_MAX_BODY];
    assert_int_equal(bw_p2os_encode_cmd_str(buf, sizeof buf, 0x0F, (const uint8_t *)"ab", 2),
                     sizeof ODD_BODY);
    assert_memory_equal(buf, ODD_BODY, sizeof ODD_BODY);
    bw_p2os_msg_t m;
    bw_p2os_msg_init(&m, BW_P2OS_COMMAND);
    m.u.command.cmd = BW_P2OS_SAY;
    m.u.command.argkind = BW_P2OS_STRARG;
    m.u.command.len = 2;
    memcpy(m.u.command.str, "ab", 2);
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), sizeof ODD_BODY);
    assert_memory_equal(buf, ODD_BODY, sizeof ODD_BODY);
    bw_p2os_msg_t d = decode_frame(ODD_BODY, sizeof ODD_BODY, BW_P2OS_FROM_HOST, body);
    assert_int_equal(d.u.command.cmd, 0x0F);
    assert_int_equal(d.u.command.argkind, BW_P2OS_STRARG);
    assert_int_equal(d.u.command.len, 2);
    assert_memory_equal(d.u.command.str, "ab", 2);
    /* Framing the raw body gives the same bytes. */
    assert_int_equal(bw_p2os_frame_body(buf, sizeof buf, ODD_BODY + 3, 5), sizeof ODD_BODY);
    assert_memory_equal(buf, ODD_BODY, sizeof ODD_BODY);
}

static void test_golden_sync_replies(void **state)
{
    (void)state;
    /* The robot echoes SYNC0..2 with the same bytes. */
    const uint8_t *const f[] = { SYNC0, SYNC1, SYNC2 };
    for (uint8_t n = 0; n < 3; n++) {
        uint8_t body[BW_P2OS_MAX_BODY], buf[16];
        bw_p2os_msg_t d = decode_frame(f[n], 6, BW_P2OS_FROM_ROBOT, body);
        assert_int_equal(d.type, BW_P2OS_SYNC);
        assert_int_equal(d.u.sync.n, n);
        assert_false(d.u.sync.has_info);
        bw_p2os_msg_t m;
        bw_p2os_msg_init(&m, BW_P2OS_SYNC);
        m.u.sync.n = n;
        assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), 6);
        assert_memory_equal(buf, f[n], 6);
    }
    /* SYNC2 with the robot's name, class and subclass. */
    static const uint8_t body[] = { 0x02, 'M', 'a', 'r', 'v', 'i', 'n', 0, 'P', 'i', 'o', 'n',
                                    'e',  'e', 'r', 0,   'p', '2', 'p', 'b', 0 };
    uint8_t fr[64], b[BW_P2OS_MAX_BODY];
    int n = bw_p2os_frame_body(fr, sizeof fr, body, sizeof body);
    assert_int_equal(n, sizeof body + 5);
    bw_p2os_msg_t d = decode_frame(fr, (size_t)n, BW_P2OS_FROM_ROBOT, b);
    assert_int_equal(d.type, BW_P2OS_SYNC);
    assert_int_equal(d.u.sync.n, 2);
    assert_true(d.u.sync.has_info);
    assert_string_equal(d.u.sync.name, "Marvin");
    assert_string_equal(d.u.sync.cls, "Pioneer");
    assert_string_equal(d.u.sync.subclass, "p2pb");
    uint8_t again[64];
    assert_int_equal(bw_p2os_encode_frame(again, sizeof again, &d), n);
    assert_memory_equal(again, fr, (size_t)n);
}

static void test_golden_sip(void **state)
{
    (void)state;
    uint8_t body[BW_P2OS_MAX_BODY];
    bw_p2os_msg_t d = decode_frame(SIP, sizeof SIP, BW_P2OS_FROM_ROBOT, body);
    const bw_p2os_sip_t *s = &d.u.sip;
    assert_int_equal(d.type, BW_P2OS_SIP);
    assert_int_equal(d.id, BW_P2OS_PAC_SIP_MOVING);
    assert_int_equal(d.length, sizeof SIP - 5);
    assert_true(s->moving);
    assert_int_equal(s->xpos, 0x1234);
    assert_int_equal(s->ypos, 0x7FFF);
    assert_int_equal(s->thpos, -1024);
    assert_int_equal(s->lvel, 200);
    assert_int_equal(s->rvel, -150);
    assert_int_equal(s->battery, 125);
    assert_int_equal(s->stall_bump, 0x0301);
    assert_true(s->stall_bump & BW_P2OS_STALL_LEFT);
    assert_true(s->stall_bump & BW_P2OS_STALL_RIGHT);
    assert_int_equal(s->stall_bump & BW_P2OS_BUMP_FRONT_MASK, 0x0200);
    assert_int_equal(s->stall_bump & BW_P2OS_BUMP_REAR_MASK, 0);
    assert_int_equal(s->control, 1024);
    /* Seed 004, FLAGS: "b0 - motors flag (1=motors enabled) b1 - sonar
     * flag: enabled if 1." (offset 19, little-endian) */
    assert_int_equal(SIP[19] | SIP[20] << 8, 0x0003);
    assert_int_equal(s->flags, 0x0003);
    assert_true(s->flags & BW_P2OS_FLAG_MOTORS);
    assert_int_equal(s->flags & BW_P2OS_FLAG_SONAR, 0x0002);
    /* Seed 004: "Compass byte Compass heading in 2-degree units": the byte
     * at offset 21 from the FA, 45 here, is 90 degrees. */
    assert_int_equal(SIP[21], 45);
    assert_int_equal(s->compass, 45);
    assert_int_equal(s->compass * 2, 90);
    assert_int_equal(s->nsonar, 3);
    assert_int_equal(s->sonar[0].number, 0);
    assert_int_equal(s->sonar[0].range, 0x0123);
    assert_int_equal(s->sonar[1].number, 7);
    assert_int_equal(s->sonar[1].range, 5000);
    assert_int_equal(s->sonar[2].number, 15);
    assert_int_equal(s->sonar[2].range, 0xFFFF);
    assert_int_equal(s->ntrailing, 4);
    assert_int_equal(s->timer, 0x0102);
    assert_int_equal(s->analog, 0x80);
    assert_int_equal(s->digin, 0x0F);
    assert_int_equal(s->digout, 0xF0);
    assert_int_equal(s->nextra, 2);
    assert_ptr_equal(s->extra, body + 34);
    assert_memory_equal(s->extra, ((const uint8_t[]){ 0xAA, 0xBB }), 2);

    /* Built from the fields, it is the same packet. */
    bw_p2os_msg_t m;
    bw_p2os_msg_init(&m, BW_P2OS_SIP);
    m.u.sip = *s;
    static const uint8_t extra[] = { 0xAA, 0xBB };
    m.u.sip.extra = extra;
    uint8_t out[BW_P2OS_MAX_FRAME];
    assert_int_equal(bw_p2os_encode_frame(out, sizeof out, &m), sizeof SIP);
    assert_memory_equal(out, SIP, sizeof SIP);
    /* Stopped: type 0x32, nothing else changes. */
    m.u.sip.moving = false;
    assert_int_equal(bw_p2os_encode_frame(out, sizeof out, &m), sizeof SIP);
    assert_int_equal(out[3], BW_P2OS_PAC_SIP_STOPPED);
    assert_memory_equal(out + 4, SIP + 4, sizeof SIP - 6);
}

static void test_catalogue(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int num;
    } cmds[] = {
        { "pulse", 0 },      { "open", 1 },       { "close", 2 },     { "polling", 3 },
        { "enable", 4 },     { "seta", 5 },       { "setv", 6 },      { "seto", 7 },
        { "move", 8 },       { "rotate", 9 },     { "setrv", 10 },    { "vel", 11 },
        { "head", 12 },      { "dhead", 13 },     { "say", 15 },      { "joyinfo", 17 },
        { "config", 18 },    { "encoder", 19 },   { "rvel", 21 },     { "dchead", 22 },
        { "setra", 23 },     { "sonar", 28 },     { "stop", 29 },     { "digout", 30 },
        { "vel2", 32 },      { "gripper", 33 },   { "adsel", 35 },    { "gripperval", 36 },
        { "griprequest", 37 }, { "iorequest", 40 }, { "ptupos", 41 }, { "tty2", 42 },
        { "getaux", 43 },    { "bumpstall", 44 }, { "tcm2", 45 },     { "joydrive", 47 },
        { "movingblink", 49 }, { "hostbaud", 50 }, { "aux1baud", 51 }, { "aux2baud", 52 },
        { "estop", 55 },     { "estall", 56 },    { "gyro", 58 },     { "batteryinfo", 62 },
        { "sound", 90 },     { "playlist", 91 },  { "soundtog", 92 },
        { "sim_set_pose", 224 }, { "sim_reset", 225 }, { "sim_lrf_enable", 230 },
        { "sim_lrf_set_fov_start", 231 }, { "sim_lrf_set_fov_end", 232 },
        { "sim_lrf_set_res", 233 }, { "sim_ctrl", 236 }, { "sim_stat", 237 },
        { "sim_message", 238 }, { "sim_exit", 239 },
    };
    size_t named = 0;
    for (unsigned c = 0; c < 256; c++)
        named += bw_p2os_command_name((uint8_t)c) != NULL;
    assert_int_equal(named, sizeof cmds / sizeof cmds[0]);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        assert_string_equal(bw_p2os_command_name((uint8_t)cmds[i].num), cmds[i].name);
        assert_int_equal(bw_p2os_command_number(cmds[i].name), cmds[i].num);
    }
    /* The listing is the catalogue in number order. */
    for (unsigned i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        assert_int_equal(bw_p2os_command_at(i), cmds[i].num);
    assert_int_equal(bw_p2os_command_at(sizeof cmds / sizeof cmds[0]), -1);
    assert_null(bw_p2os_command_name(14));
    assert_null(bw_p2os_command_name(57));
    assert_null(bw_p2os_command_name(255));
    /* The manuals write names in capitals. */
    assert_int_equal(bw_p2os_command_number("VEL"), 11);
    assert_int_equal(bw_p2os_command_number("Sim_Set_Pose"), 224);
    assert_int_equal(bw_p2os_command_number("VELX"), -1);
    assert_int_equal(bw_p2os_command_number("VE"), -1);
    assert_int_equal(bw_p2os_command_number(""), -1);
    assert_int_equal(bw_p2os_command_number("warp"), -1);

    assert_string_equal(bw_p2os_type_name(BW_P2OS_COMMAND), "command");
    assert_string_equal(bw_p2os_type_name(BW_P2OS_SYNC), "sync");
    assert_string_equal(bw_p2os_type_name(BW_P2OS_SIP), "sip");
    assert_string_equal(bw_p2os_type_name(BW_P2OS_CONFIG_PAC), "config");
    assert_string_equal(bw_p2os_type_name(BW_P2OS_ENCODER_PAC), "encoder");
    assert_string_equal(bw_p2os_type_name(BW_P2OS_UNKNOWN), "unknown");
    assert_string_equal(bw_p2os_type_name((bw_p2os_type_t)99), "unknown");

    /* The field tables: wire order, sizes that add up, offsets inside the
     * config struct. */
    const bw_msgdesc_t *d[2] = { bw_p2os_config_head_desc(), bw_p2os_config_tail_desc() };
    assert_int_equal(d[0]->nfields, 6);
    assert_int_equal(d[0]->wire_len, 11);
    assert_int_equal(d[1]->nfields, BW_P2OS_CONFIG_FIELDS);
    assert_int_equal(d[1]->wire_len, 61);
    assert_string_equal(d[0]->fields[0].name, "four_mots");
    assert_int_equal(d[0]->fields[0].offset, offsetof(bw_p2os_msg_t, u.config.four_mots));
    assert_string_equal(d[0]->fields[5].name, "pwm_max");
    assert_string_equal(d[1]->fields[0].name, "sip_cycle");
    assert_int_equal(d[1]->fields[0].offset, offsetof(bw_p2os_msg_t, u.config.sip_cycle));
    assert_string_equal(d[1]->fields[32].name, "drift_factor");
    assert_int_equal(d[1]->fields[32].type, BW_FT_I16);
    assert_string_equal(d[1]->fields[36].name, "shutdown_voltage");
    assert_int_equal(d[1]->fields[36].offset, offsetof(bw_p2os_msg_t, u.config.shutdown_voltage));
    for (int t = 0; t < 2; t++) {
        size_t wire = 0;
        for (size_t k = 0; k < d[t]->nfields; k++) {
            const bw_field_t *f = &d[t]->fields[k];
            wire += bw_ftype_size((bw_ftype_t)f->type) * f->count;
            assert_true(f->offset >= offsetof(bw_p2os_msg_t, u.config) &&
                        f->offset + bw_ftype_size((bw_ftype_t)f->type) <=
                            offsetof(bw_p2os_msg_t, u.config.nfields));
            assert_int_equal(d[t]->order, BW_ORDER_LE);
        }
        assert_int_equal(wire, d[t]->wire_len);
    }
}

static void test_msg_init(void **state)
{
    (void)state;
    static const struct {
        bw_p2os_type_t t;
        uint8_t id, length;
    } want[] = {
        { BW_P2OS_COMMAND, 0, 1 },       { BW_P2OS_SYNC, 0, 1 },
        { BW_P2OS_SIP, 0x32, 20 },       { BW_P2OS_CONFIG_PAC, 0x20, 16 },
        { BW_P2OS_ENCODER_PAC, 0x90, 9 }, { BW_P2OS_UNKNOWN, 0, 0 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        bw_p2os_msg_t m;
        memset(&m, 0x5A, sizeof m);
        bw_p2os_msg_init(&m, want[i].t);
        assert_int_equal(m.type, want[i].t);
        assert_int_equal(m.id, want[i].id);
        assert_int_equal(m.length, want[i].length);
        uint8_t buf[BW_P2OS_MAX_FRAME];
        if (want[i].t != BW_P2OS_UNKNOWN) {
            assert_int_equal(bw_p2os_encode_body(buf, sizeof buf, &m), want[i].length);
            assert_int_equal(buf[0], want[i].id);
        }
    }
}

/* ---- round trips ----------------------------------------------------------------- */

static void test_roundtrip_every_command(void **state)
{
    (void)state;
    static const int32_t ints[] = { 0, 1, -1, 200, -200, 255, 256, 32767, -32768, 65535, -65535 };
    uint8_t big[195];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    const struct {
        const uint8_t *s;
        uint8_t n;
    } strs[] = {
        { (const uint8_t *)"hello", 5 },
        { (const uint8_t *)"", 0 },
        { (const uint8_t *)"\0\xff\x2b\xfa\xfb", 5 }, /* a NUL and a false header */
        { big, sizeof big },
    };
    size_t seen = 0;
    for (unsigned c = 0; c < 256; c++) {
        if (!bw_p2os_command_name((uint8_t)c))
            continue;
        seen++;
        bw_p2os_msg_t m, d;
        uint8_t body[BW_P2OS_MAX_BODY];
        bw_p2os_msg_init(&m, BW_P2OS_COMMAND);
        m.u.command.cmd = (uint8_t)c;
        d = roundtrip(&m, BW_P2OS_FROM_HOST, body);
        assert_int_equal(d.length, 1);
        assert_int_equal(d.u.command.argkind, BW_P2OS_NOARG);
        assert_int_equal(d.u.command.cmd, c);

        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
            m.u.command.argkind = BW_P2OS_INTARG;
            m.u.command.value = ints[i];
            d = roundtrip(&m, BW_P2OS_FROM_HOST, body);
            assert_int_equal(d.length, 4);
            assert_int_equal(body[1], ints[i] < 0 ? BW_P2OS_ARG_NEGINT : BW_P2OS_ARG_INT);
            assert_int_equal(bw_get_le16(body + 2), ints[i] < 0 ? -ints[i] : ints[i]);
            assert_int_equal(d.u.command.argkind, BW_P2OS_INTARG);
            assert_int_equal(d.u.command.value, ints[i]);
            /* The convenience encoder agrees. */
            uint8_t a[16], b[16];
            assert_int_equal(bw_p2os_encode_cmd_int(a, sizeof a, (uint8_t)c, ints[i]), 9);
            assert_int_equal(bw_p2os_encode_frame(b, sizeof b, &m), 9);
            assert_memory_equal(a, b, 9);
        }
        for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
            m.u.command.argkind = BW_P2OS_STRARG;
            m.u.command.len = strs[i].n;
            memcpy(m.u.command.str, strs[i].s, strs[i].n);
            d = roundtrip(&m, BW_P2OS_FROM_HOST, body);
            assert_int_equal(d.length, 3 + strs[i].n);
            assert_int_equal(d.u.command.argkind, BW_P2OS_STRARG);
            assert_int_equal(d.u.command.len, strs[i].n);
            assert_memory_equal(d.u.command.str, strs[i].s, strs[i].n);
            uint8_t a[BW_P2OS_MAX_FRAME], b[BW_P2OS_MAX_FRAME];
            int n = bw_p2os_encode_cmd_str(a, sizeof a, (uint8_t)c, strs[i].s, strs[i].n);
            assert_int_equal(n, strs[i].n + 8);
            assert_int_equal(bw_p2os_encode_frame(b, sizeof b, &m), n);
            assert_memory_equal(a, b, (size_t)n);
        }
    }
    assert_int_equal(seen, 57);

    /* A 0x1B with magnitude 0 reads as 0 (the header's contract) and goes
     * back out as 0x3B: the one body that does not re-encode byte for byte. */
    static const uint8_t negzero[] = { 0x0B, 0x1B, 0x00, 0x00 };
    bw_p2os_msg_t m;
    assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_HOST, negzero, 4, &m), 0);
    assert_int_equal(m.u.command.argkind, BW_P2OS_INTARG);
    assert_int_equal(m.u.command.value, 0);
    uint8_t out[8];
    assert_int_equal(bw_p2os_encode_body(out, sizeof out, &m), 4);
    assert_memory_equal(out, ((const uint8_t[]){ 0x0B, 0x3B, 0x00, 0x00 }), 4);
}

static void set_string(char *dst, char c, size_t n)
{
    memset(dst, c, n);
    dst[n] = 0;
}

static void test_roundtrip_sync(void **state)
{
    (void)state;
    uint8_t body[BW_P2OS_MAX_BODY];
    bw_p2os_msg_t m, d;
    for (uint8_t n = 0; n < 3; n++) {
        bw_p2os_msg_init(&m, BW_P2OS_SYNC);
        m.u.sync.n = n;
        d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
        assert_int_equal(d.u.sync.n, n);
        assert_int_equal(d.id, n);
        assert_false(d.u.sync.has_info);
    }
    bw_p2os_msg_init(&m, BW_P2OS_SYNC);
    m.u.sync.n = 2;
    m.u.sync.has_info = true;
    d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body); /* three empty strings */
    assert_true(d.u.sync.has_info);
    assert_int_equal(d.length, 4);
    assert_string_equal(d.u.sync.name, "");
    set_string(m.u.sync.name, 'n', BW_P2OS_MAX_STRING);
    strcpy(m.u.sync.cls, "Pioneer");
    strcpy(m.u.sync.subclass, "p3dx");
    d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
    assert_true(d.u.sync.has_info);
    assert_string_equal(d.u.sync.name, m.u.sync.name);
    assert_string_equal(d.u.sync.cls, "Pioneer");
    assert_string_equal(d.u.sync.subclass, "p3dx");
    assert_int_equal(d.length, 1 + 64 + 8 + 5);
}

/* A SIP with n readings and the first `trailing` of the trailing fields. */
static void sample_sip(bw_p2os_msg_t *m, uint8_t n, uint8_t trailing)
{
    bw_p2os_msg_init(m, BW_P2OS_SIP);
    bw_p2os_sip_t *s = &m->u.sip;
    s->moving = n % 2;
    s->xpos = 0x7FFF;
    s->ypos = 1;
    s->thpos = -32768;
    s->lvel = 32767;
    s->rvel = -1;
    s->battery = 255;
    s->stall_bump = 0xFFFF;
    s->control = -2048;
    s->flags = BW_P2OS_FLAG_MOTORS | BW_P2OS_FLAG_SONAR;
    s->compass = 179;
    s->nsonar = n; /* may be over the limit, to test that; the array is not */
    for (uint8_t i = 0; i < n && i < BW_P2OS_MAX_SONAR; i++) {
        s->sonar[i].number = (uint8_t)(i % 32);
        s->sonar[i].range = (uint16_t)(i * 1111u);
    }
    s->ntrailing = trailing;
    s->timer = 0xBEEF;
    s->analog = 0x11;
    s->digin = 0x22;
    s->digout = 0x33;
}

static void check_sip(const bw_p2os_msg_t *d, const bw_p2os_msg_t *m)
{
    const bw_p2os_sip_t *a = &d->u.sip, *b = &m->u.sip;
    assert_int_equal(d->id, b->moving ? 0x33 : 0x32);
    assert_int_equal(a->moving, b->moving);
    assert_int_equal(a->xpos, b->xpos);
    assert_int_equal(a->ypos, b->ypos);
    assert_int_equal(a->thpos, b->thpos);
    assert_int_equal(a->lvel, b->lvel);
    assert_int_equal(a->rvel, b->rvel);
    assert_int_equal(a->battery, b->battery);
    assert_int_equal(a->stall_bump, b->stall_bump);
    assert_int_equal(a->control, b->control);
    assert_int_equal(a->flags, b->flags);
    assert_int_equal(a->compass, b->compass);
    assert_int_equal(a->nsonar, b->nsonar);
    for (size_t i = 0; i < a->nsonar; i++) {
        assert_int_equal(a->sonar[i].number, b->sonar[i].number);
        assert_int_equal(a->sonar[i].range, b->sonar[i].range);
    }
    assert_int_equal(a->ntrailing, b->ntrailing);
    if (a->ntrailing >= 1)
        assert_int_equal(a->timer, b->timer);
    else
        assert_int_equal(a->timer, 0);
    if (a->ntrailing >= 2)
        assert_int_equal(a->analog, b->analog);
    if (a->ntrailing >= 3)
        assert_int_equal(a->digin, b->digin);
    if (a->ntrailing >= 4)
        assert_int_equal(a->digout, b->digout);
    else
        assert_int_equal(a->digout, 0);
    assert_int_equal(a->nextra, b->nextra);
}

static void test_roundtrip_sip(void **state)
{
    (void)state;
    static const size_t tlen[] = { 0, 2, 3, 4, 5 };
    static const uint8_t extra[] = { 0xDE, 0xAD, 0xBE, 0xEF, 0xFA, 0xFB };
    uint8_t body[BW_P2OS_MAX_BODY];
    bw_p2os_msg_t m, d;
    for (uint8_t t = 0; t <= 4; t++) {
        for (uint8_t n = 0; n <= 5; n += 5) {
            sample_sip(&m, n, t);
            d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
            assert_int_equal(d.length, 20u + 3u * n + tlen[t]);
            check_sip(&d, &m);
            assert_null(d.u.sip.extra);
        }
    }
    /* Newer firmware's bytes after digout are kept as they are. */
    sample_sip(&m, 3, 4);
    m.u.sip.nextra = sizeof extra;
    m.u.sip.extra = extra;
    d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
    check_sip(&d, &m);
    assert_ptr_equal(d.u.sip.extra, body + 20 + 9 + 5);
    assert_memory_equal(d.u.sip.extra, extra, sizeof extra);
    /* NULL extra writes zeros. */
    m.u.sip.extra = NULL;
    d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
    assert_memory_equal(d.u.sip.extra, ((const uint8_t[6]){ 0 }), 6);

    /* The most readings a frame holds; then only a lone byte fits, which is
     * extra, not half a timer. */
    sample_sip(&m, BW_P2OS_MAX_SONAR, 0);
    d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
    assert_int_equal(d.length, 197);
    check_sip(&d, &m);
    m.u.sip.nextra = 1;
    m.u.sip.extra = extra;
    d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
    assert_int_equal(d.length, BW_P2OS_MAX_BODY);
    assert_int_equal(d.u.sip.ntrailing, 0);
    assert_int_equal(d.u.sip.nextra, 1);
    assert_int_equal(d.u.sip.extra[0], 0xDE);
    /* Trailing bytes one at a time after three readings: each prefix. */
    uint8_t fr[BW_P2OS_MAX_FRAME];
    sample_sip(&m, 3, 4);
    m.u.sip.nextra = 1;
    m.u.sip.extra = extra;
    int len = bw_p2os_encode_body(fr, sizeof fr, &m);
    assert_int_equal(len, 20 + 9 + 5 + 1);
    static const uint8_t want_trailing[] = { 0, 0, 1, 2, 3, 4, 4 };
    static const uint8_t want_extra[] = { 0, 1, 0, 0, 0, 0, 1 };
    for (size_t k = 0; k <= 6; k++) {
        assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, fr, 29 + k, &d), 0);
        assert_int_equal(d.u.sip.ntrailing, want_trailing[k]);
        assert_int_equal(d.u.sip.nextra, want_extra[k]);
        uint8_t again[BW_P2OS_MAX_BODY];
        assert_int_equal(bw_p2os_encode_body(again, sizeof again, &d), 29 + k);
        assert_memory_equal(again, fr, 29 + k);
    }
}

static const char *const CONFIG_STRINGS[4] = { "Pioneer", "p2pb", "PB12345", "Marvin" };

/* A config packet with distinct values in every field and the first
 * `nfields` of the tail. */
static void sample_config(bw_p2os_msg_t *m, uint8_t nfields)
{
    bw_p2os_msg_init(m, BW_P2OS_CONFIG_PAC);
    bw_p2os_config_t *c = &m->u.config;
    strcpy(c->robot_type, CONFIG_STRINGS[0]);
    strcpy(c->subtype, CONFIG_STRINGS[1]);
    strcpy(c->serial, CONFIG_STRINGS[2]);
    strcpy(c->name, CONFIG_STRINGS[3]);
    const bw_msgdesc_t *d[2] = { bw_p2os_config_head_desc(), bw_p2os_config_tail_desc() };
    for (int t = 0; t < 2; t++)
        for (size_t k = 0; k < d[t]->nfields; k++) {
            bw_ftype_t ft = (bw_ftype_t)d[t]->fields[k].type;
            int64_t v = (int64_t)(k * 977 + 13 + (size_t)t * 101) % (bw_ftype_max(ft) + 1);
            if (ft == BW_FT_I16)
                v = -(int64_t)(k * 100 + 7);
            bw_field_set(m, &d[t]->fields[k], 0, v);
        }
    c->nfields = nfields;
}

static void check_config(const bw_p2os_msg_t *dm, const bw_p2os_msg_t *mm)
{
    const bw_p2os_config_t *a = &dm->u.config, *b = &mm->u.config;
    assert_string_equal(a->robot_type, b->robot_type);
    assert_string_equal(a->subtype, b->subtype);
    assert_string_equal(a->serial, b->serial);
    assert_string_equal(a->name, b->name);
    const bw_msgdesc_t *head = bw_p2os_config_head_desc(), *tail = bw_p2os_config_tail_desc();
    for (size_t k = 0; k < head->nfields; k++)
        assert_int_equal(bw_field_get(dm, &head->fields[k], 0), bw_field_get(mm, &head->fields[k], 0));
    assert_int_equal(a->nfields, b->nfields);
    for (size_t k = 0; k < tail->nfields; k++)
        assert_int_equal(bw_field_get(dm, &tail->fields[k], 0),
                         k < b->nfields ? bw_field_get(mm, &tail->fields[k], 0) : 0);
    assert_int_equal(a->nextra, b->nextra);
}

static void test_roundtrip_config(void **state)
{
    (void)state;
    uint8_t body[BW_P2OS_MAX_BODY];
    bw_p2os_msg_t m, d;
    size_t strings = 8 + 5 + 8 + 7;
    for (uint8_t k = 0; k <= BW_P2OS_CONFIG_FIELDS; k++) {
        sample_config(&m, k);
        d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
        assert_int_equal(d.id, BW_P2OS_PAC_CONFIG);
        check_config(&d, &m);
        size_t tail = 0;
        for (size_t i = 0; i < k; i++)
            tail += bw_ftype_size((bw_ftype_t)bw_p2os_config_tail_desc()->fields[i].type);
        assert_int_equal(d.length, 1 + strings + 11 + tail);
    }
    assert_int_equal(d.length, 1 + strings + 11 + 61);
    assert_int_equal(d.u.config.drift_factor, -3207);

    /* Bytes after shutdown_voltage are kept. */
    static const uint8_t extra[] = { 1, 2, 3 };
    sample_config(&m, BW_P2OS_CONFIG_FIELDS);
    m.u.config.nextra = 3;
    m.u.config.extra = extra;
    d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
    check_config(&d, &m);
    assert_memory_equal(d.u.config.extra, extra, 3);

    /* Cut anywhere after the name: the complete fields are read, the bytes
     * of a partial one are extra, and the cut body re-encodes exactly. */
    uint8_t full[BW_P2OS_MAX_BODY];
    int len = bw_p2os_encode_body(full, sizeof full, &m);
    size_t name_end = 1 + strings + 11;
    const bw_msgdesc_t *tail = bw_p2os_config_tail_desc();
    for (size_t cut = name_end; cut <= (size_t)len; cut++) {
        size_t k = 0, off = name_end;
        while (k < tail->nfields && off + bw_ftype_size((bw_ftype_t)tail->fields[k].type) <= cut)
            off += bw_ftype_size((bw_ftype_t)tail->fields[k++].type);
        assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, full, cut, &d), 0);
        assert_int_equal(d.type, BW_P2OS_CONFIG_PAC);
        assert_int_equal(d.u.config.nfields, k);
        assert_int_equal(d.u.config.nextra, cut - off);
        if (cut > off)
            assert_ptr_equal(d.u.config.extra, full + off);
        uint8_t again[BW_P2OS_MAX_BODY];
        assert_int_equal(bw_p2os_encode_body(again, sizeof again, &d), cut);
        assert_memory_equal(again, full, cut);
    }
    /* Half of gripper (a u16) after aux_baud. */
    sample_config(&m, 3);
    m.u.config.nextra = 1;
    m.u.config.extra = extra;
    d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
    assert_int_equal(d.u.config.nfields, 3);
    assert_int_equal(d.u.config.nextra, 1);
}

static void test_roundtrip_encoder(void **state)
{
    (void)state;
    static const int32_t v[][2] = { { INT32_MIN, INT32_MAX }, { -1, 0 }, { 123456, -654321 } };
    for (size_t i = 0; i < 3; i++) {
        uint8_t body[BW_P2OS_MAX_BODY];
        bw_p2os_msg_t m;
        bw_p2os_msg_init(&m, BW_P2OS_ENCODER_PAC);
        m.u.encoder.left = v[i][0];
        m.u.encoder.right = v[i][1];
        bw_p2os_msg_t d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
        assert_int_equal(d.length, 9);
        assert_int_equal(d.id, 0x90);
        assert_int_equal(d.u.encoder.left, v[i][0]);
        assert_int_equal(d.u.encoder.right, v[i][1]);
        assert_int_equal(bw_get_le32(body + 1), (uint32_t)v[i][0]);
    }
}

/* ---- config and encoder packets by hand ------------------------------------- */

/* A CONFIGpac (0x20) body written out field by field in the order ARIA's
 * ArRobotConfigPacketReader reads it (the notes only name the packet):
 * three NUL-terminated strings, four_mots u8, five u16, the name, then the
 * 37 fields from sip_cycle to shutdown_voltage. Numbers little-endian, as
 * every P2OS body value. */
static const uint8_t CONFIG_BODY[] = {
    0x20,
    'P', 'i', 'o', 'n', 'e', 'e', 'r', 0x00, /* robot_type */
    'p', '2', 'd', 'x', 0x00,                /* subtype */
    '4', '2', 0x00,                          /* serial */
    0x00,                                    /* four_mots */
    0x2C, 0x01,                              /* rot_vel_top 300 */
    0x98, 0x08,                              /* trans_vel_top 2200 */
    0xF4, 0x01,                              /* rot_accel_top 500 */
    0xE8, 0x03,                              /* trans_accel_top 1000 */
    0x84, 0x03,                              /* pwm_max 900 */
    'R', 'e', 'x', 0x00,                     /* name */
    0x64,                                    /* sip_cycle 100 */
    0x04,                                    /* host_baud */
    0x02,                                    /* aux_baud */
    0x01, 0x00,                              /* gripper */
    0x01, 0x00,                              /* front_sonar */
    0x00,                                    /* rear_sonar */
    0x6E, 0x00,                              /* low_battery 110 */
    0xBA, 0x40,                              /* rev_count 16570 */
    0xD0, 0x07,                              /* watchdog 2000 */
    0x01,                                    /* p2mpacs */
    0xFF, 0x00,                              /* stall_val 255 */
    0x64, 0x00,                              /* stall_count 100 */
    0x2C, 0x01,                              /* joy_vel 300 */
    0x50, 0x00,                              /* joy_rvel 80 */
    0x68, 0x01,                              /* rot_vel_max 360 */
    0xDC, 0x05,                              /* trans_vel_max 1500 */
    0x64, 0x00,                              /* rot_accel 100 */
    0x78, 0x00,                              /* rot_decel 120 */
    0x28, 0x00,                              /* rot_kp 40 */
    0x14, 0x00,                              /* rot_kv 20 */
    0x03, 0x00,                              /* rot_ki 3 */
    0x2C, 0x01,                              /* trans_accel 300 */
    0x36, 0x01,                              /* trans_decel 310 */
    0x1E, 0x00,                              /* trans_kp 30 */
    0x19, 0x00,                              /* trans_kv 25 */
    0x07, 0x00,                              /* trans_ki 7 */
    0x05,                                    /* front_bumps */
    0x04,                                    /* rear_bumps */
    0x01,                                    /* charger */
    0x28,                                    /* sonar_cycle 40 */
    0x02,                                    /* reset_baud */
    0x01,                                    /* gyro_type */
    0x79, 0xF3,                              /* drift_factor -3207 (0x10000 - 3207 = 0xF379) */
    0x03,                                    /* aux2_baud */
    0x05,                                    /* aux3_baud */
    0x80, 0x00,                              /* ticks_mm 128 */
    0x69, 0x00,                              /* shutdown_voltage 105 */
};

static void fill_hand_config(bw_p2os_config_t *c)
{
    strcpy(c->robot_type, "Pioneer");
    strcpy(c->subtype, "p2dx");
    strcpy(c->serial, "42");
    c->four_mots = 0;
    c->rot_vel_top = 300;
    c->trans_vel_top = 2200;
    c->rot_accel_top = 500;
    c->trans_accel_top = 1000;
    c->pwm_max = 900;
    strcpy(c->name, "Rex");
    c->sip_cycle = 100;
    c->host_baud = 4;
    c->aux_baud = 2;
    c->gripper = 1;
    c->front_sonar = 1;
    c->rear_sonar = 0;
    c->low_battery = 110;
    c->rev_count = 16570;
    c->watchdog = 2000;
    c->p2mpacs = 1;
    c->stall_val = 255;
    c->stall_count = 100;
    c->joy_vel = 300;
    c->joy_rvel = 80;
    c->rot_vel_max = 360;
    c->trans_vel_max = 1500;
    c->rot_accel = 100;
    c->rot_decel = 120;
    c->rot_kp = 40;
    c->rot_kv = 20;
    c->rot_ki = 3;
    c->trans_accel = 300;
    c->trans_decel = 310;
    c->trans_kp = 30;
    c->trans_kv = 25;
    c->trans_ki = 7;
    c->front_bumps = 5;
    c->rear_bumps = 4;
    c->charger = 1;
    c->sonar_cycle = 40;
    c->reset_baud = 2;
    c->gyro_type = 1;
    c->drift_factor = -3207;
    c->aux2_baud = 3;
    c->aux3_baud = 5;
    c->ticks_mm = 128;
    c->shutdown_voltage = 105;
    c->nfields = BW_P2OS_CONFIG_FIELDS;
}

static void test_hand_config(void **state)
{
    (void)state;
    assert_int_equal(sizeof CONFIG_BODY, 1 + 8 + 5 + 3 + 1 + 10 + 4 + 61);
    /* Decoded from the hand bytes: every field. */
    bw_p2os_msg_t d;
    assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, CONFIG_BODY, sizeof CONFIG_BODY, &d), 0);
    assert_int_equal(d.type, BW_P2OS_CONFIG_PAC);
    assert_int_equal(d.id, BW_P2OS_PAC_CONFIG);
    bw_p2os_config_t want;
    memset(&want, 0, sizeof want);
    fill_hand_config(&want);
    const bw_p2os_config_t *c = &d.u.config;
    assert_string_equal(c->robot_type, want.robot_type);
    assert_string_equal(c->subtype, want.subtype);
    assert_string_equal(c->serial, want.serial);
    assert_string_equal(c->name, want.name);
    assert_int_equal(c->nfields, BW_P2OS_CONFIG_FIELDS);
    assert_int_equal(c->nextra, 0);
    /* Numbers one by one, so a failure names the field. */
#define SAME(f) assert_int_equal(c->f, want.f)
    SAME(four_mots); SAME(rot_vel_top); SAME(trans_vel_top); SAME(rot_accel_top);
    SAME(trans_accel_top); SAME(pwm_max); SAME(sip_cycle); SAME(host_baud); SAME(aux_baud);
    SAME(gripper); SAME(front_sonar); SAME(rear_sonar); SAME(low_battery); SAME(rev_count);
    SAME(watchdog); SAME(p2mpacs); SAME(stall_val); SAME(stall_count); SAME(joy_vel);
    SAME(joy_rvel); SAME(rot_vel_max); SAME(trans_vel_max); SAME(rot_accel); SAME(rot_decel);
    SAME(rot_kp); SAME(rot_kv); SAME(rot_ki); SAME(trans_accel); SAME(trans_decel);
    SAME(trans_kp); SAME(trans_kv); SAME(trans_ki); SAME(front_bumps); SAME(rear_bumps);
    SAME(charger); SAME(sonar_cycle); SAME(reset_baud); SAME(gyro_type); SAME(drift_factor);
    SAME(aux2_baud); SAME(aux3_baud); SAME(ticks_mm); SAME(shutdown_voltage);
#undef SAME
    /* Encoded from the fields (not from the decoded message): the hand bytes. */
    bw_p2os_msg_t m;
    bw_p2os_msg_init(&m, BW_P2OS_CONFIG_PAC);
    fill_hand_config(&m.u.config);
    uint8_t out[BW_P2OS_MAX_BODY];
    memset(out, 0xEE, sizeof out);
    assert_int_equal(bw_p2os_encode_body(out, sizeof out, &m), sizeof CONFIG_BODY);
    assert_memory_equal(out, CONFIG_BODY, sizeof CONFIG_BODY);
}

/* ENCODERpac (0x90): left and right counts, int32 each, little-endian (ARIA
 * reads them with two bufToByte4). Left 100000 = 0x000186A0, right -2 =
 * 0xFFFFFFFE. Checksum (notes' rule) over the 9-byte body: 90A0 + 8601 =
 * 116A1 -> 16A1; + 00FE = 179F; + FFFF = 1179E -> 179E; the odd last byte FF
 * XORed into the low byte: 1761. COUNT = 9 + 2 = 0x0B. */
static void test_hand_encoder(void **state)
{
    (void)state;
    static const uint8_t frame[] = { 0xFA, 0xFB, 0x0B, 0x90, 0xA0, 0x86, 0x01, 0x00,
                                     0xFE, 0xFF, 0xFF, 0xFF, 0x17, 0x61 };
    uint8_t body[BW_P2OS_MAX_BODY];
    bw_p2os_msg_t d = decode_frame(frame, sizeof frame, BW_P2OS_FROM_ROBOT, body);
    assert_int_equal(d.type, BW_P2OS_ENCODER_PAC);
    assert_int_equal(d.u.encoder.left, 100000);
    assert_int_equal(d.u.encoder.right, -2);
    bw_p2os_msg_t m;
    bw_p2os_msg_init(&m, BW_P2OS_ENCODER_PAC);
    m.u.encoder.left = 100000;
    m.u.encoder.right = -2;
    uint8_t out[BW_P2OS_MAX_FRAME];
    assert_int_equal(bw_p2os_encode_frame(out, sizeof out, &m), sizeof frame);
    assert_memory_equal(out, frame, sizeof frame);
}

/* Bytes after an int or a string are kept, as ARIA and the simulator's
 * laser commands send them; any other type byte is a raw argument. Each
 * re-encodes byte for byte. */
static void test_command_extra_and_raw(void **state)
{
    (void)state;
    static const struct {
        uint8_t body[20];
        size_t len;
        uint8_t argkind, nextra, len_or_type;
    } cases[] = {
        /* VEL 200 with a surplus byte. */
        { { 0x0B, 0x3B, 0xC8, 0x00, 0x07 }, 5, BW_P2OS_INTARG, 1, 0 },
        /* SIM_LRF_ENABLE 1 for laser 0: an int and an index byte. */
        { { 0xE6, 0x3B, 0x01, 0x00, 0x00 }, 5, BW_P2OS_INTARG, 1, 0 },
        /* ARIA's comStr: the length counts the characters, a NUL follows. */
        { { 0xEE, 0x2B, 0x05, 'h', 'e', 'l', 'l', 'o', 0x00 }, 9, BW_P2OS_STRARG, 1, 5 },
        /* A string whose length byte is short of the body. */
        { { 0x0F, 0x2B, 0x01, 'a', 'b' }, 5, BW_P2OS_STRARG, 1, 1 },
        /* Type bytes nobody defined: raw, with what follows. */
        { { 0x0B, 0x4B, 0xC8, 0x00 }, 4, BW_P2OS_RAWARG, 0, 0x4B },
        { { 0x0B, 0x00 }, 2, BW_P2OS_RAWARG, 0, 0x00 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bw_p2os_msg_t m;
        assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_HOST, cases[i].body, cases[i].len, &m), 0);
        assert_int_equal(m.type, BW_P2OS_COMMAND);
        assert_int_equal(m.u.command.argkind, cases[i].argkind);
        if (cases[i].argkind == BW_P2OS_RAWARG) {
            assert_int_equal(m.u.command.argtype, cases[i].len_or_type);
            assert_int_equal(m.u.command.len, cases[i].len - 2);
            assert_memory_equal(m.u.command.str, cases[i].body + 2, cases[i].len - 2);
        } else {
            assert_int_equal(m.u.command.nextra, cases[i].nextra);
            assert_ptr_equal(m.u.command.extra, cases[i].body + cases[i].len - cases[i].nextra);
        }
        if (cases[i].argkind == BW_P2OS_STRARG)
            assert_int_equal(m.u.command.len, cases[i].len_or_type);
        uint8_t out[BW_P2OS_MAX_BODY];
        assert_int_equal(bw_p2os_encode_body(out, sizeof out, &m), cases[i].len);
        assert_memory_equal(out, cases[i].body, cases[i].len);
        /* Without the bytes, zeros go in their place. */
        if (m.u.command.nextra) {
            m.u.command.extra = NULL;
            assert_int_equal(bw_p2os_encode_body(out, sizeof out, &m), cases[i].len);
            assert_int_equal(out[cases[i].len - 1], 0);
        }
    }
}

/* The simulator's commands and its SIMSTAT packet, from the layouts in the
 * MobileSim/AMRISim documentation and ARIA's ArSimUtil. */
static void test_golden_simulator(void **state)
{
    (void)state;
    /* SIM_SET_POSE x 1000 mm, y -2000 mm, heading 90 degrees. */
    static const uint8_t set_pose[] = { 0xFA, 0xFB, 0x10, 0xE0, 0x00, 0xE8, 0x03, 0x00, 0x00, 0x30,
                                        0xF8, 0xFF, 0xFF, 0x5A, 0x00, 0x00, 0x00, 0x52, 0xFA };
    uint8_t buf[BW_P2OS_MAX_FRAME];
    assert_int_equal(bw_p2os_encode_sim_set_pose(buf, sizeof buf, 1000, -2000, 90), sizeof set_pose);
    assert_memory_equal(buf, set_pose, sizeof set_pose);
    assert_int_equal(bw_p2os_encode_sim_set_pose(buf, 18, 1000, -2000, 90), BW_ENOSPC);
    int32_t x, y, th;
    assert_int_equal(bw_p2os_sim_set_pose_of(set_pose + 3, 14, &x, &y, &th), 0);
    assert_int_equal(x, 1000);
    assert_int_equal(y, -2000);
    assert_int_equal(th, 90);
    assert_int_equal(bw_p2os_sim_set_pose_of(set_pose + 3, 13, &x, &y, &th), BW_ELENGTH);
    assert_int_equal(bw_p2os_sim_set_pose_of(VEL_200 + 3, 4, &x, &y, &th), BW_ELENGTH);
    /* Framed and decoded, it is a raw argument of type 0. */
    bw_p2os_parser_t p;
    bw_p2os_parser_init(&p);
    const uint8_t *d = set_pose;
    size_t n = sizeof set_pose;
    bw_p2os_frame_t f;
    assert_int_equal(bw_p2os_parse(&p, &d, &n, &f), 1);
    bw_p2os_msg_t m;
    assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_HOST, f.body, f.len, &m), 0);
    assert_int_equal(m.u.command.cmd, BW_P2OS_SIM_SET_POSE);
    assert_int_equal(m.u.command.argkind, BW_P2OS_RAWARG);
    assert_int_equal(m.u.command.argtype, 0);
    assert_int_equal(m.u.command.len, 12);

    /* SIM_RESET, SIM_STAT 2, SIM_EXIT 0, SIM_MESSAGE "hello". */
    static const uint8_t reset[] = { 0xFA, 0xFB, 0x03, 0xE1, 0x00, 0xE1 };
    static const uint8_t stat2[] = { 0xFA, 0xFB, 0x06, 0xED, 0x3B, 0x02, 0x00, 0xEF, 0x3B };
    static const uint8_t exit0[] = { 0xFA, 0xFB, 0x06, 0xEF, 0x3B, 0x00, 0x00, 0xEF, 0x3B };
    static const uint8_t hello[] = { 0xFA, 0xFB, 0x0A, 0xEE, 0x2B, 0x05, 'h', 'e', 'l', 'l', 'o', 0xC5, 0x6E };
    assert_int_equal(bw_p2os_encode_cmd(buf, sizeof buf, BW_P2OS_SIM_RESET), sizeof reset);
    assert_memory_equal(buf, reset, sizeof reset);
    assert_int_equal(bw_p2os_encode_cmd_int(buf, sizeof buf, BW_P2OS_SIM_STAT, 2), sizeof stat2);
    assert_memory_equal(buf, stat2, sizeof stat2);
    assert_int_equal(bw_p2os_encode_cmd_int(buf, sizeof buf, BW_P2OS_SIM_EXIT, 0), sizeof exit0);
    assert_memory_equal(buf, exit0, sizeof exit0);
    assert_int_equal(bw_p2os_encode_cmd_str(buf, sizeof buf, BW_P2OS_SIM_MESSAGE,
                                            (const uint8_t *)"hello", 5),
                     sizeof hello);
    assert_memory_equal(buf, hello, sizeof hello);

    /* SIMSTAT: no georeference, intervals 100/100/101 ms, true pose
     * (1000, -2000, 0) mm and 90 degrees. */
    static const uint8_t simstat[] = {
        0xFA, 0xFB, 0x3B, 0x62, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, 0x00, 0x64, 0x00,
        0x65, 0x00, 0xE8, 0x03, 0x00, 0x00, 0x30, 0xF8, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00,
        0x5A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x5F, 0x9C,
    };
    bw_p2os_parser_init(&p);
    d = simstat;
    n = sizeof simstat;
    assert_int_equal(bw_p2os_parse(&p, &d, &n, &f), 1);
    assert_int_equal(f.len, 57);
    assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, f.body, f.len, &m), 0);
    assert_int_equal(m.type, BW_P2OS_SIMSTAT_PAC);
    assert_string_equal(bw_p2os_type_name(m.type), "simstat");
    const bw_p2os_simstat_t *st = &m.u.simstat;
    assert_string_equal(st->reserved1, "");
    assert_string_equal(st->reserved2, "");
    assert_int_equal(st->nfields, BW_P2OS_SIMSTAT_FIELDS);
    assert_int_equal(st->flags, 0);
    assert_int_equal(st->sim_interval, 100);
    assert_int_equal(st->real_interval, 100);
    assert_int_equal(st->last_interval, 101);
    assert_int_equal(st->true_x, 1000);
    assert_int_equal(st->true_y, -2000);
    assert_int_equal(st->true_z, 0);
    assert_int_equal(st->true_th, 90);
    assert_int_equal(st->latitude, 0);
    assert_int_equal(st->gps_dop, -1);
    assert_int_equal(st->odom_err_th, 0);
    assert_int_equal(st->nextra, 0);
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), sizeof simstat);
    assert_memory_equal(buf, simstat, sizeof simstat);
    /* A later simulator's extra bytes are kept; an older one's shorter
     * packet gives the fields it has. */
    uint8_t longer[BW_P2OS_MAX_BODY];
    memcpy(longer, f.body, 57);
    longer[57] = 0xAB;
    assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, longer, 58, &m), 0);
    assert_int_equal(m.u.simstat.nextra, 1);
    assert_int_equal(bw_p2os_encode_body(buf, sizeof buf, &m), 58);
    assert_memory_equal(buf, longer, 58);
    assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, longer, 3 + 4 + 6 + 8, &m), 0);
    assert_int_equal(m.u.simstat.nfields, 6);
    assert_int_equal(m.u.simstat.true_y, -2000);
    assert_int_equal(m.u.simstat.true_x, 1000);
    /* Its strings must end. */
    static const uint8_t cut[] = { 0x62, 0x00, 'a' };
    assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, cut, sizeof cut, &m), BW_ELENGTH);
}

static void test_unknown(void **state)
{
    (void)state;
    /* An IO packet (0xF0) is not decoded: unknown, not an error. */
    static const uint8_t io[] = { 0xF0, 1, 2, 3 };
    bw_p2os_msg_t m;
    assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, io, sizeof io, &m), 0);
    assert_int_equal(m.type, BW_P2OS_UNKNOWN);
    assert_int_equal(m.id, 0xF0);
    assert_int_equal(m.length, 4);
    assert_ptr_equal(m.u.unknown.data, io);
    uint8_t body[BW_P2OS_MAX_BODY];
    bw_p2os_msg_t d = roundtrip(&m, BW_P2OS_FROM_ROBOT, body);
    assert_int_equal(d.type, BW_P2OS_UNKNOWN);
    assert_memory_equal(body, io, sizeof io);
    /* No data: the id, then zeros. */
    bw_p2os_msg_init(&m, BW_P2OS_UNKNOWN);
    m.id = 0x77;
    m.length = 3;
    uint8_t out[16];
    assert_int_equal(bw_p2os_encode_frame(out, sizeof out, &m), 8);
    assert_memory_equal(out + 3, ((const uint8_t[]){ 0x77, 0, 0 }), 3);
    /* Data whose type byte disagrees with id, or no body at all. */
    m.u.unknown.data = io;
    assert_int_equal(bw_p2os_encode_body(out, sizeof out, &m), BW_EINVAL);
    m.u.unknown.data = NULL;
    m.length = 0;
    assert_int_equal(bw_p2os_encode_body(out, sizeof out, &m), BW_ERANGE);
}

/* ---- decode errors ----------------------------------------------------------------- */

static void expect_elength(bw_p2os_dir_t dir, const uint8_t *body, size_t len)
{
    bw_p2os_msg_t m;
    memset(&m, 0x5A, sizeof m);
    assert_int_equal(bw_p2os_decode(dir, body, len, &m), BW_ELENGTH);
    assert_int_equal(m.type, BW_P2OS_UNKNOWN);
    assert_int_equal(m.length, len);
    assert_ptr_equal(m.u.unknown.data, body);
    if (len)
        assert_int_equal(m.id, body[0]);
    /* It re-encodes to the same bytes, which fail the same way again. */
    if (len) {
        uint8_t out[BW_P2OS_MAX_BODY];
        assert_int_equal(bw_p2os_encode_body(out, sizeof out, &m), len);
        assert_memory_equal(out, body, len);
    }
}

static void test_decode_errors(void **state)
{
    (void)state;
    const bw_p2os_dir_t H = BW_P2OS_FROM_HOST, R = BW_P2OS_FROM_ROBOT;
    /* Commands: an int or a string cut short. */
    expect_elength(H, (const uint8_t[]){ 0x0B, 0x3B }, 2);
    expect_elength(H, (const uint8_t[]){ 0x0B, 0x3B, 0xC8 }, 3);
    expect_elength(H, (const uint8_t[]){ 0x0B, 0x1B, 0xC8 }, 3);
    expect_elength(H, (const uint8_t[]){ 0x0F, 0x2B }, 2);
    expect_elength(H, (const uint8_t[]){ 0x0F, 0x2B, 0x05, 'a', 'b' }, 5);
    expect_elength(H, (const uint8_t[]){ 0x0F, 0x2B, 0xFF }, 3);
    /* Sync: bytes after SYNC0/1, SYNC2 strings unterminated, too long, or
     * followed by more bytes. */
    expect_elength(R, (const uint8_t[]){ 0x00, 0x00 }, 2);
    expect_elength(R, (const uint8_t[]){ 0x01, 'x', 0 }, 3);
    expect_elength(R, (const uint8_t[]){ 0x02, 'a', 0, 'b', 0, 'c' }, 6);
    expect_elength(R, (const uint8_t[]){ 0x02, 'a', 0, 'b', 0 }, 5);
    expect_elength(R, (const uint8_t[]){ 0x02, 'a', 0, 'b', 0, 'c', 0, 0 }, 8);
    uint8_t longname[70] = { 0x02 };
    memset(longname + 1, 'n', 64);
    longname[65] = 0;
    longname[66] = 0;
    longname[67] = 0;
    expect_elength(R, longname, 68);
    /* ...while 63 characters fit. */
    bw_p2os_msg_t m;
    longname[64] = 0;
    assert_int_equal(bw_p2os_decode(R, longname, 67, &m), 0);
    assert_int_equal(strlen(m.u.sync.name), 63);
    /* SIP: cut in the fixed part, too many readings, cut in the readings. */
    uint8_t sip[BW_P2OS_MAX_BODY];
    bw_p2os_msg_t s;
    sample_sip(&s, 4, 0);
    int n = bw_p2os_encode_body(sip, sizeof sip, &s);
    assert_int_equal(n, 32);
    for (size_t cut = 1; cut < 32; cut++)
        expect_elength(R, sip, cut);
    sip[19] = BW_P2OS_MAX_SONAR + 1;
    uint8_t big[BW_P2OS_MAX_BODY];
    memcpy(big, sip, 20);
    memset(big + 20, 0, sizeof big - 20);
    expect_elength(R, big, sizeof big);
    big[19] = 0xFF;
    expect_elength(R, big, sizeof big);
    /* Encoder: exactly 8 bytes after the type. */
    uint8_t enc[10] = { 0x90 };
    expect_elength(R, enc, 8);
    expect_elength(R, enc, 10);
    expect_elength(R, enc, 1);
    /* Config: strings unterminated, head cut, name unterminated or long. */
    bw_p2os_msg_t c;
    sample_config(&c, 0);
    uint8_t cfg[BW_P2OS_MAX_BODY];
    n = bw_p2os_encode_body(cfg, sizeof cfg, &c);
    assert_int_equal(n, 1 + 28 + 11);
    for (int cut = 1; cut < n; cut++)
        expect_elength(R, cfg, (size_t)cut);
    assert_int_equal(bw_p2os_decode(R, cfg, (size_t)n, &m), 0);
    uint8_t cfg2[BW_P2OS_MAX_BODY] = { 0x20 };
    memset(cfg2 + 1, 'x', 100);
    cfg2[101] = 0;
    expect_elength(R, cfg2, 102);
    /* Empty body, and one longer than any frame holds. */
    assert_int_equal(bw_p2os_decode(R, big, 0, &m), BW_ELENGTH);
    assert_int_equal(m.type, BW_P2OS_UNKNOWN);
    assert_int_equal(m.length, 0);
    uint8_t huge[BW_P2OS_MAX_BODY + 1] = { 0x0B };
    assert_int_equal(bw_p2os_decode(H, huge, sizeof huge, &m), BW_ELENGTH);
    assert_int_equal(m.type, BW_P2OS_UNKNOWN);
    /* An unknown direction. */
    assert_int_equal(bw_p2os_decode((bw_p2os_dir_t)2, VEL_200 + 3, 4, &m), BW_EINVAL);
    assert_int_equal(m.type, BW_P2OS_UNKNOWN);
}

/* ---- encode errors ------------------------------------------------------------------ */

/* The SIP encoder a firmware links alone writes what the general one does,
 * and refuses what it refuses. */
static void test_encode_sip_frame(void **state)
{
    (void)state;
    uint8_t a[BW_P2OS_MAX_FRAME], b[BW_P2OS_MAX_FRAME];
    bw_p2os_msg_t m;
    for (uint8_t n = 0; n <= BW_P2OS_MAX_SONAR; n += 7)
        for (uint8_t t = 0; t <= 4; t++) {
            sample_sip(&m, n, t);
            int len = bw_p2os_encode_frame(a, sizeof a, &m);
            assert_true(len > 0);
            assert_int_equal(bw_p2os_encode_sip_frame(b, sizeof b, &m), len);
            assert_memory_equal(a, b, (size_t)len);
            assert_int_equal(bw_p2os_encode_sip_frame(b, (size_t)len - 1, &m), BW_ENOSPC);
        }
    sample_sip(&m, 3, 4);
    m.u.sip.nsonar = BW_P2OS_MAX_SONAR + 1;
    assert_int_equal(bw_p2os_encode_sip_frame(b, sizeof b, &m), BW_ERANGE);
    assert_int_equal(bw_p2os_encode_frame(b, sizeof b, &m), BW_ERANGE);
    sample_sip(&m, 3, 2);
    m.u.sip.nextra = 1; /* one byte could be read back as digin */
    assert_int_equal(bw_p2os_encode_sip_frame(b, sizeof b, &m), BW_EINVAL);
    assert_int_equal(bw_p2os_encode_frame(b, sizeof b, &m), BW_EINVAL);
    m.u.sip.ntrailing = 5;
    m.u.sip.nextra = 0;
    assert_int_equal(bw_p2os_encode_sip_frame(b, sizeof b, &m), BW_ERANGE);
    bw_p2os_msg_init(&m, BW_P2OS_ENCODER_PAC);
    assert_int_equal(bw_p2os_encode_sip_frame(b, sizeof b, &m), BW_EINVAL);
}

static void test_encode_errors(void **state)
{
    (void)state;
    uint8_t buf[BW_P2OS_MAX_FRAME + 16];
    bw_p2os_msg_t m;

    /* Exactly enough room, and one byte too little, for each shape. */
    bw_p2os_msg_t samples[6];
    bw_p2os_msg_init(&samples[0], BW_P2OS_COMMAND);
    samples[0].u.command.argkind = BW_P2OS_INTARG;
    samples[0].u.command.value = -5;
    sample_sip(&samples[1], 7, 3);
    sample_config(&samples[2], 20);
    bw_p2os_msg_init(&samples[3], BW_P2OS_ENCODER_PAC);
    bw_p2os_msg_init(&samples[4], BW_P2OS_SYNC);
    samples[4].u.sync.n = 2;
    samples[4].u.sync.has_info = true;
    bw_p2os_msg_init(&samples[5], BW_P2OS_UNKNOWN);
    samples[5].id = 0xF0;
    samples[5].length = 12;
    for (size_t i = 0; i < 6; i++) {
        int n = bw_p2os_encode_frame(buf, sizeof buf, &samples[i]);
        assert_true(n > 5);
        assert_int_equal(bw_p2os_encode_frame(buf, (size_t)n, &samples[i]), n);
        assert_int_equal(bw_p2os_encode_frame(buf, (size_t)n - 1, &samples[i]), BW_ENOSPC);
        assert_int_equal(bw_p2os_encode_frame(buf, 0, &samples[i]), BW_ENOSPC);
        assert_int_equal(bw_p2os_encode_body(buf, (size_t)n - 5, &samples[i]), n - 5);
        assert_int_equal(bw_p2os_encode_body(buf, (size_t)n - 6, &samples[i]), BW_ENOSPC);
    }
    assert_int_equal(bw_p2os_encode_cmd(buf, 6, 0), 6);
    assert_int_equal(bw_p2os_encode_cmd(buf, 5, 0), BW_ENOSPC);
    assert_int_equal(bw_p2os_encode_cmd_int(buf, 8, 11, 200), BW_ENOSPC);
    assert_int_equal(bw_p2os_encode_cmd_str(buf, 9, 15, (const uint8_t *)"ab", 2), BW_ENOSPC);
    assert_int_equal(bw_p2os_encode_cmd_str(buf, 10, 15, (const uint8_t *)"ab", 2), 10);
    assert_int_equal(bw_p2os_frame_body(buf, 9, VEL_200 + 3, 4), 9);
    assert_int_equal(bw_p2os_frame_body(buf, 8, VEL_200 + 3, 4), BW_ENOSPC);

    /* Ints beyond +-65535. */
    bw_p2os_msg_init(&m, BW_P2OS_COMMAND);
    m.u.command.argkind = BW_P2OS_INTARG;
    m.u.command.value = 65536;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    m.u.command.value = -65536;
    assert_int_equal(bw_p2os_encode_body(buf, sizeof buf, &m), BW_ERANGE);
    m.u.command.value = INT32_MIN;
    assert_int_equal(bw_p2os_encode_body(buf, sizeof buf, &m), BW_ERANGE);
    assert_int_equal(bw_p2os_encode_cmd_int(buf, sizeof buf, 11, 65536), BW_ERANGE);
    assert_int_equal(bw_p2os_encode_cmd_int(buf, sizeof buf, 11, -65536), BW_ERANGE);
    /* Strings too long for a frame: 195 bytes fit after cmd, 2B and length. */
    m.u.command.argkind = BW_P2OS_STRARG;
    m.u.command.len = 196;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    m.u.command.len = 195;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_P2OS_MAX_FRAME);
    assert_int_equal(bw_p2os_encode_cmd_str(buf, sizeof buf, 15, buf, 196), BW_ERANGE);
    /* A bad argument kind; a raw argument whose type byte would read back
     * as an int or a string; a bad type. */
    m.u.command.argkind = 4;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_EINVAL);
    m.u.command.argkind = BW_P2OS_RAWARG;
    m.u.command.len = 0;
    for (unsigned t = 0; t < 3; t++) {
        m.u.command.argtype = (uint8_t[]){ 0x3B, 0x1B, 0x2B }[t];
        assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_EINVAL);
    }
    m.u.command.argtype = 0x4B;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), 7);
    m.u.command.len = 197;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    m.type = (bw_p2os_type_t)42;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_EINVAL);

    /* SIP: too many readings, more trailing fields than exist, a body over
     * 198, extra bytes that would decode as a trailing field. */
    sample_sip(&m, BW_P2OS_MAX_SONAR + 1, 0);
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    sample_sip(&m, 1, 5);
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    sample_sip(&m, BW_P2OS_MAX_SONAR, 1);
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    assert_int_equal(bw_p2os_encode_body(buf, sizeof buf, &m), BW_ERANGE);
    sample_sip(&m, 1, 0);
    m.u.sip.nextra = 2;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_EINVAL);
    m.u.sip.ntrailing = 1;
    m.u.sip.nextra = 1;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_EINVAL);

    /* Sync: n beyond 2, strings on a SYNC0, a string with no terminator. */
    bw_p2os_msg_init(&m, BW_P2OS_SYNC);
    m.u.sync.n = 3;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    m.u.sync.n = 0;
    m.u.sync.has_info = true;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_EINVAL);
    m.u.sync.n = 2;
    memset(m.u.sync.cls, 'c', sizeof m.u.sync.cls);
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);

    /* Config: four long strings pass 198 bytes; too many tail fields; a
     * partial field's worth of extra bytes where a whole field fits. */
    sample_config(&m, 0);
    set_string(m.u.config.robot_type, 'r', 63);
    set_string(m.u.config.subtype, 's', 63);
    set_string(m.u.config.serial, 'n', 63);
    assert_int_equal(bw_p2os_encode_body(buf, sizeof buf, &m), BW_ERANGE);
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    m.u.config.serial[0] = 0; /* 1 + 2 * 64 + 1 + 11 + 7 bytes fit */
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), 148 + 5);
    sample_config(&m, BW_P2OS_CONFIG_FIELDS + 1);
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    sample_config(&m, 0);
    m.u.config.nextra = 1; /* sip_cycle is one byte: it would read as that */
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_EINVAL);
    sample_config(&m, 3);
    m.u.config.nextra = 2; /* a whole gripper */
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_EINVAL);
    sample_config(&m, 0);
    memset(m.u.config.name, 'x', sizeof m.u.config.name);
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);

    /* Unknown bodies of 1..198 bytes only. */
    bw_p2os_msg_init(&m, BW_P2OS_UNKNOWN);
    m.length = BW_P2OS_MAX_BODY + 1;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_ERANGE);
    m.length = BW_P2OS_MAX_BODY;
    assert_int_equal(bw_p2os_encode_frame(buf, sizeof buf, &m), BW_P2OS_MAX_FRAME);
    assert_int_equal(bw_p2os_frame_body(buf, sizeof buf, buf, 0), BW_ERANGE);
    assert_int_equal(bw_p2os_frame_body(buf, sizeof buf, buf, BW_P2OS_MAX_BODY + 1), BW_ERANGE);
}

/* ---- parser abuse ----------------------------------------------------------------- */

/* Three frames of different shapes back to back. */
static size_t three_frames(uint8_t *buf)
{
    size_t n = 0;
    n = append(buf, n, VEL_200, sizeof VEL_200);
    n = append(buf, n, SIP, sizeof SIP);
    n = append(buf, n, ODD_BODY, sizeof ODD_BODY);
    return n;
}

static void expect_three(const feeder_t *f)
{
    assert_int_equal(f->nframes, 3);
    assert_int_equal(f->lens[0], 4);
    assert_memory_equal(f->frames[0], VEL_200 + 3, 4);
    assert_int_equal(f->lens[1], sizeof SIP - 5);
    assert_memory_equal(f->frames[1], SIP + 3, sizeof SIP - 5);
    assert_int_equal(f->lens[2], 5);
    assert_memory_equal(f->frames[2], ODD_BODY + 3, 5);
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
        finish(&f);
        assert_int_equal(f.p.stats.length_errors, 0);
    }
    for (size_t a = 0; a <= n; a++) {
        for (size_t b = a; b <= n; b++) {
            feeder_t f;
            feeder_init(&f);
            feed(&f, s, a);
            feed(&f, s + a, b - a);
            feed(&f, s + b, n - b);
            expect_three(&f);
            assert_int_equal(f.p.stats.frames, 3);
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
    assert_int_equal(f.p.stats.skipped_bytes, 0);
}

static void test_zero_copy_and_megabytes(void **state)
{
    (void)state;
    size_t reps = 20000, n = sizeof SIP * reps;
    uint8_t *s = malloc(n);
    assert_non_null(s);
    for (size_t i = 0; i < reps; i++)
        memcpy(s + i * sizeof SIP, SIP, sizeof SIP);
    bw_p2os_parser_t p;
    bw_p2os_parser_init(&p);
    const uint8_t *d = s;
    size_t len = n;
    bw_p2os_frame_t fr;
    size_t frames = 0;
    while (bw_p2os_parse(&p, &d, &len, &fr) == 1) {
        /* Whole frames in the input are returned where they lie (the
         * small framer copies every frame). */
        assert_memory_equal(fr.body, s + frames * sizeof SIP + 3, fr.len);
        if (!BW_SMALL)
            assert_ptr_equal(fr.body, s + frames * sizeof SIP + 3);
        frames++;
    }
    assert_int_equal(frames, reps);
    assert_int_equal(p.stats.frames, reps);
    assert_int_equal(p.stats.skipped_bytes, 0);
    assert_int_equal(p.held, 0);
    free(s);
}

static void test_garbage_before_and_between(void **state)
{
    (void)state;
    static const uint8_t junk1[] = { 0x00, 0xFB, 0x03, 0x12, 0xFA, 0x00 }; /* lone FA too */
    static const uint8_t junk2[] = { 0xFB, 0xFB, 0xFA, 0x13, 0x37 };
    uint8_t s[512];
    size_t n = 0;
    n = append(s, n, junk1, sizeof junk1);
    n = append(s, n, VEL_200, sizeof VEL_200);
    n = append(s, n, junk2, sizeof junk2);
    n = append(s, n, SIP, sizeof SIP);
    n = append(s, n, junk1, sizeof junk1);
    n = append(s, n, ODD_BODY, sizeof ODD_BODY);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        feed_mode(&f, s, n, bytewise);
        expect_three(&f);
        assert_int_equal(f.p.stats.skipped_bytes, 2 * sizeof junk1 + sizeof junk2);
        assert_int_equal(f.p.stats.checksum_errors, 0);
        assert_int_equal(f.p.stats.length_errors, 0);
    }
}

static void test_fa_fa_fb(void **state)
{
    (void)state;
    uint8_t s[64];
    size_t n = 0;
    s[n++] = 0xFA;
    n = append(s, n, VEL_200, sizeof VEL_200);
    s[n++] = 0xFA;
    s[n++] = 0xFA;
    s[n++] = 0xFA;
    n = append(s, n, ODD_BODY, sizeof ODD_BODY);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        feed_mode(&f, s, n, bytewise);
        assert_int_equal(f.nframes, 2);
        assert_memory_equal(f.frames[0], VEL_200 + 3, 4);
        assert_memory_equal(f.frames[1], ODD_BODY + 3, 5);
        assert_int_equal(f.p.stats.skipped_bytes, 4);
    }
    /* FA FA at the end of one read, FB at the start of the next. */
    feeder_t f;
    feeder_init(&f);
    feed(&f, (const uint8_t[]){ 0x00, 0xFA, 0xFA }, 3);
    feed(&f, VEL_200 + 1, sizeof VEL_200 - 1);
    assert_int_equal(f.nframes, 1);
    assert_memory_equal(f.frames[0], VEL_200 + 3, 4);
    assert_int_equal(f.p.stats.skipped_bytes, 2);
}

static void test_false_header_inside_body(void **state)
{
    (void)state;
    /* VEL 0xFBFA: the body holds FA FB. */
    uint8_t fr[16];
    int len = bw_p2os_encode_cmd_int(fr, sizeof fr, BW_P2OS_VEL, 0xFBFA);
    assert_int_equal(len, 9);
    assert_memory_equal(fr + 5, ((const uint8_t[]){ 0xFA, 0xFB, 0x06, 0x36 }), 4);
    uint8_t s[32];
    size_t n = 0;
    n = append(s, n, fr, (size_t)len);
    n = append(s, n, fr, (size_t)len);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        feed_mode(&f, s, n, bytewise);
        assert_int_equal(f.nframes, 2);
        assert_int_equal(f.p.stats.skipped_bytes, 0);
    }
    /* Joined mid-stream (the first 5 bytes lost): the false FA FB 06 claims a
     * frame that runs into the real one, fails its checksum, and the real
     * frame is found inside the rejected bytes. */
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        feed_mode(&f, s + 5, n - 5, bytewise);
        assert_int_equal(f.nframes, 1);
        assert_memory_equal(f.frames[0], fr + 3, 4);
        assert_int_equal(f.p.stats.checksum_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, 4);
    }
}

static void test_bad_checksum_then_good(void **state)
{
    (void)state;
    uint8_t s[256];
    size_t n = 0;
    n = append(s, n, SIP, sizeof SIP);
    s[n - 1] ^= 0x01; /* checksum low byte */
    n = append(s, n, VEL_200, sizeof VEL_200);
    n = append(s, n, VEL_200, sizeof VEL_200);
    s[n - 4] ^= 0x80; /* a body bit */
    n = append(s, n, VEL_M200, sizeof VEL_M200);
    s[n - 2] ^= 0x01; /* checksum high byte */
    n = append(s, n, RVEL_30, sizeof RVEL_30);
    s[n - 2] = 0x3B; /* checksum sent low byte first */
    s[n - 1] = 0x33;
    n = append(s, n, ODD_BODY, sizeof ODD_BODY);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        feed_mode(&f, s, n, bytewise);
        assert_int_equal(f.nframes, 2);
        assert_memory_equal(f.frames[0], VEL_200 + 3, 4);
        assert_memory_equal(f.frames[1], ODD_BODY + 3, 5);
        assert_int_equal(f.p.stats.checksum_errors, 4);
        assert_int_equal(f.rejects, 4);
        assert_int_equal(f.p.stats.skipped_bytes,
                         sizeof SIP + sizeof VEL_200 + sizeof VEL_M200 + sizeof RVEL_30);
    }
}

static void test_impossible_counts(void **state)
{
    (void)state;
    static const uint8_t counts[] = { 0, 1, 2, 201, 255 };
    for (size_t i = 0; i < sizeof counts; i++) {
        uint8_t s[64];
        size_t n = 0;
        s[n++] = 0xFA;
        s[n++] = 0xFB;
        s[n++] = counts[i];
        s[n++] = 0x00;
        n = append(s, n, VEL_200, sizeof VEL_200);
        for (int bytewise = 0; bytewise < 2; bytewise++) {
            feeder_t f;
            feeder_init(&f);
            feed_mode(&f, s, n, bytewise);
            assert_int_equal(f.nframes, 1);
            assert_memory_equal(f.frames[0], VEL_200 + 3, 4);
            assert_int_equal(f.p.stats.length_errors, 1);
            assert_int_equal(f.p.stats.skipped_bytes, 4);
            assert_int_equal(f.rejects, 1);
        }
    }
}

static void test_count_200_frame(void **state)
{
    (void)state;
    /* The largest frame: a SIP with 59 readings and one byte more. */
    bw_p2os_msg_t m;
    sample_sip(&m, BW_P2OS_MAX_SONAR, 0);
    m.u.sip.nextra = 1;
    uint8_t fr[BW_P2OS_MAX_FRAME];
    int len = bw_p2os_encode_frame(fr, sizeof fr, &m);
    assert_int_equal(len, BW_P2OS_MAX_FRAME);
    assert_int_equal(fr[2], 200);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        feed_mode(&f, fr, (size_t)len, bytewise);
        assert_int_equal(f.nframes, 1);
        assert_int_equal(f.lens[0], BW_P2OS_MAX_BODY);
        bw_p2os_msg_t d;
        assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, f.frames[0], f.lens[0], &d), 0);
        assert_int_equal(d.u.sip.nsonar, 59);
        assert_int_equal(d.u.sip.sonar[58].range, 58 * 1111);
    }
}

static void test_false_count_200_swallows_good_frames(void **state)
{
    (void)state;
    /* A false header claiming 200 bytes, then good frames and filler: the
     * bytes the parser already took are rescanned, nothing is lost. */
    uint8_t s[600];
    size_t n = 0;
    s[n++] = 0xFA;
    s[n++] = 0xFB;
    s[n++] = 200;
    n = append(s, n, VEL_200, sizeof VEL_200);
    n = append(s, n, SIP, sizeof SIP);
    n = append(s, n, ODD_BODY, sizeof ODD_BODY);
    memset(s + n, 0x11, 300);
    n += 300;
    for (int mode = 0; mode < 3; mode++) {
        feeder_t f;
        feeder_init(&f);
        if (mode < 2) {
            feed_mode(&f, s, n, mode);
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

static void test_rescan_after_frame_from_buffer(void **state)
{
    (void)state;
    /* A frame found inside a rejected candidate is returned from the
     * parser's buffer; the bytes held after it are garbage followed by
     * `?? FB 03 00 00 00`, which is no frame: it has no FA. */
    uint8_t s[600];
    size_t n = 0;
    s[n++] = 0xFA;
    s[n++] = 0xFB;
    s[n++] = 200;
    n = append(s, n, VEL_200, sizeof VEL_200);
    n = append(s, n, (const uint8_t[]){ 0x00, 0xFB, 0x03, 0x00, 0x00, 0x00 }, 6);
    n = append(s, n, ODD_BODY, sizeof ODD_BODY);
    memset(s + n, 0x22, 300);
    n += 300;
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        feed_mode(&f, s, n, bytewise);
        assert_int_equal(f.nframes, 2);
        assert_memory_equal(f.frames[0], VEL_200 + 3, 4);
        assert_memory_equal(f.frames[1], ODD_BODY + 3, 5);
        assert_int_equal(f.p.stats.skipped_bytes, 3 + 6 + 300);
    }
}

static void test_truncated_at_end_of_stream(void **state)
{
    (void)state;
    for (size_t keep = 1; keep < sizeof SIP; keep++) {
        feeder_t f;
        feeder_init(&f);
        feed(&f, VEL_200, sizeof VEL_200);
        feed(&f, SIP, keep);
        assert_int_equal(f.nframes, 1);
        finish(&f);
        assert_int_equal(f.nframes, 1);
        assert_int_equal(f.p.stats.skipped_bytes, keep);
        assert_int_equal(f.p.stats.length_errors, 1);
        /* The parser is usable again once finished. */
        feed(&f, ODD_BODY, sizeof ODD_BODY);
        assert_int_equal(f.nframes, 2);
    }
    /* A truncated false candidate hides a whole frame: finish finds it. */
    uint8_t s[64];
    size_t n = 0;
    s[n++] = 0xFA;
    s[n++] = 0xFB;
    s[n++] = 100;
    n = append(s, n, ODD_BODY, sizeof ODD_BODY);
    feeder_t f;
    feeder_init(&f);
    feed(&f, s, n);
    assert_int_equal(f.nframes, 0);
    finish(&f);
    assert_int_equal(f.nframes, 1);
    assert_memory_equal(f.frames[0], ODD_BODY + 3, 5);
    assert_int_equal(f.p.stats.length_errors, 1);
    assert_int_equal(f.p.stats.skipped_bytes, 3);
    /* Nothing pending: finishing drops nothing and counts nothing. */
    feeder_init(&f);
    feed(&f, VEL_200, sizeof VEL_200);
    finish(&f);
    assert_int_equal(f.p.stats.length_errors, 0);
    assert_int_equal(f.p.stats.skipped_bytes, 0);
}

/* ---- models and conversions --------------------------------------------------------- */

static void check_ring(const bw_p2os_model_t *m, const int16_t (*want)[3], unsigned n)
{
    assert_int_equal(m->nsonar, n);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(m->sonar[i].x, want[i][0]);
        assert_int_equal(m->sonar[i].y, want[i][1]);
        assert_int_equal(m->sonar[i].heading, want[i][2]);
    }
}

static void test_models(void **state)
{
    (void)state;
    static const int16_t p2dx[16][3] = {
        { 69, 136, 90 },     { 114, 119, 50 },    { 148, 78, 30 },     { 166, 27, 10 },
        { 166, -27, -10 },   { 148, -78, -30 },   { 114, -119, -50 },  { 69, -136, -90 },
        { -157, -136, -90 }, { -203, -119, -130 }, { -237, -78, -150 }, { -255, -27, -170 },
        { -255, 27, 170 },   { -237, 78, 150 },   { -203, 119, 130 },  { -157, 136, 90 },
    };
    static const int16_t p2pb[24][3] = {
        { 69, 136, 90 },     { 114, 119, 50 },    { 148, 78, 30 },     { 166, 27, 10 },
        { 166, -27, -10 },   { 148, -78, -30 },   { 114, -119, -50 },  { 69, -136, -90 },
        { -20, 136, 90 },    { 24, 119, 50 },     { 58, 78, 30 },      { 77, 27, 10 },
        { 77, -27, -10 },    { 58, -78, -30 },    { 24, -119, -50 },   { -20, -136, -90 },
        { -157, -136, -90 }, { -203, -119, -130 }, { -237, -78, -150 }, { -255, -27, -170 },
        { -255, 27, 170 },   { -237, 78, 150 },   { -203, 119, 130 },  { -157, 136, 90 },
    };
    static const int16_t p2at[16][3] = {
        { 147, 136, 90 },    { 193, 119, 50 },    { 227, 79, 30 },     { 245, 27, 10 },
        { 245, -27, -10 },   { 227, -79, -30 },   { 193, -119, -50 },  { 147, -136, -90 },
        { -144, -136, -90 }, { -189, -119, -130 }, { -223, -79, -150 }, { -241, -27, -170 },
        { -241, 27, 170 },   { -223, 79, 150 },   { -189, 119, 130 },  { -144, 136, 90 },
    };
    /* The notes' factors (p2dx) and the public parameter files (p2pb, p2at). */
    const struct {
        const char *name;
        double dist, diff, radius;
        uint8_t front, rear;
        const int16_t (*ring)[3];
        unsigned nsonar;
    } want[] = {
        { "p2dx", 0.84, 0.0056, 0.26, 0, 0, p2dx, 16 },
        { "p2pb", 0.424, 0.0056, 0.26, 5, 5, p2pb, 24 },
        { "p2at", 1.32, 0.0034, 0.40, 0, 0, p2at, 16 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const bw_p2os_model_t *m = bw_p2os_model(want[i].name);
        assert_non_null(m);
        assert_string_equal(m->subclass, want[i].name);
        assert_string_equal(m->cls, "Pioneer");
        assert_true(m->dist_conv == want[i].dist);
        assert_true(m->angle_conv == 0.001534);
        assert_true(m->vel_conv == 1.0);
        assert_true(m->range_conv == 0.268);
        assert_true(m->diff_conv == want[i].diff);
        assert_true(m->radius == want[i].radius);
        assert_int_equal(m->front_bumpers, want[i].front);
        assert_int_equal(m->rear_bumpers, want[i].rear);
        check_ring(m, want[i].ring, want[i].nsonar);
    }

    assert_null(bw_p2os_model("p3dx"));
    assert_null(bw_p2os_model("P2DX"));
    assert_null(bw_p2os_model(""));
    unsigned n = 0;
    while (bw_p2os_model_at(n))
        n++;
    assert_int_equal(n, 3);
    assert_null(bw_p2os_model_at(1000));
    for (unsigned i = 0; i < 3; i++)
        assert_ptr_equal(bw_p2os_model(bw_p2os_model_at(i)->subclass), bw_p2os_model_at(i));
}

static void test_wrap15_delta(void **state)
{
    (void)state;
    assert_int_equal(bw_p2os_wrap15_delta(1, 0), 1);
    assert_int_equal(bw_p2os_wrap15_delta(0, 1), -1);
    assert_int_equal(bw_p2os_wrap15_delta(500, 500), 0);
    /* Across the 15-bit wrap, both ways. */
    assert_int_equal(bw_p2os_wrap15_delta(0, 0x7FFF), 1);
    assert_int_equal(bw_p2os_wrap15_delta(0x7FFF, 0), -1);
    assert_int_equal(bw_p2os_wrap15_delta(10, 0x7FF0), 26);
    assert_int_equal(bw_p2os_wrap15_delta(0x7FF0, 10), -26);
    /* The 16th bit is not part of the position. */
    assert_int_equal(bw_p2os_wrap15_delta(0x8005, 0x0003), 2);
    assert_int_equal(bw_p2os_wrap15_delta(0x0005, 0xFFFF), 6);
    /* Up to +-0x1000 is taken as it is; beyond, it wraps by 0x8000. */
    assert_int_equal(bw_p2os_wrap15_delta(0x1000, 0), 0x1000);
    assert_int_equal(bw_p2os_wrap15_delta(0, 0x1000), -0x1000);
    assert_int_equal(bw_p2os_wrap15_delta(0x1001, 0), 0x1001 - 0x8000);
    assert_int_equal(bw_p2os_wrap15_delta(0, 0x1001), 0x8000 - 0x1001);
    assert_int_equal(bw_p2os_wrap15_delta(0x7FFF, 0x0000), -1);
    assert_int_equal(bw_p2os_wrap15_delta(0x4000, 0), 0x4000 - 0x8000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_commands),
        cmocka_unit_test(test_golden_sync_replies),
        cmocka_unit_test(test_golden_sip),
        cmocka_unit_test(test_catalogue),
        cmocka_unit_test(test_msg_init),
        cmocka_unit_test(test_roundtrip_every_command),
        cmocka_unit_test(test_roundtrip_sync),
        cmocka_unit_test(test_roundtrip_sip),
        cmocka_unit_test(test_roundtrip_config),
        cmocka_unit_test(test_roundtrip_encoder),
        cmocka_unit_test(test_hand_config),
        cmocka_unit_test(test_hand_encoder),
        cmocka_unit_test(test_command_extra_and_raw),
        cmocka_unit_test(test_golden_simulator),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_encode_sip_frame),
        cmocka_unit_test(test_encode_errors),
        cmocka_unit_test(test_every_split_point),
        cmocka_unit_test(test_one_byte_at_a_time),
        cmocka_unit_test(test_zero_copy_and_megabytes),
        cmocka_unit_test(test_garbage_before_and_between),
        cmocka_unit_test(test_fa_fa_fb),
        cmocka_unit_test(test_false_header_inside_body),
        cmocka_unit_test(test_bad_checksum_then_good),
        cmocka_unit_test(test_impossible_counts),
        cmocka_unit_test(test_count_200_frame),
        cmocka_unit_test(test_false_count_200_swallows_good_frames),
        cmocka_unit_test(test_rescan_after_frame_from_buffer),
        cmocka_unit_test(test_truncated_at_end_of_stream),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_wrap15_delta),
    };
    return cmocka_run_group_tests_name("p2os codec", tests, NULL, NULL);
}
