/* RBSM codec: golden vectors, catalogue, round trips, receiver abuse, units. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/rbsm.h"

/* ---- helpers ------------------------------------------------------------- */

#define MAXF 512

typedef struct {
    bw_rbsm_parser_t p;
    size_t fed, in_frames;
    size_t nframes;
    uint8_t frames[MAXF][BW_RBSM_MSG_LEN]; /* accepted messages, re-encoded */
    int rejects;
    int truncs;
    uint64_t unknown; /* counted here, as a decoding caller does */
} feeder_t;

static void feeder_init(feeder_t *f)
{
    memset(f, 0, sizeof *f);
    bw_rbsm_parser_init(&f->p);
}

/* Every byte fed is in an accepted message, skipped, or held; `unread` bytes
 * of the current read are still with the caller. */
static void check_accounting_at(const feeder_t *f, size_t unread)
{
    assert_true(f->p.held < BW_RBSM_MSG_LEN);
    assert_int_equal(f->fed - unread, f->in_frames + f->p.stats.skipped_bytes + f->p.held);
    assert_int_equal(f->p.stats.frames, f->nframes);
    assert_int_equal(f->p.stats.checksum_errors, 0);
}

static void take_frame(feeder_t *f, const bw_rbsm_frame_t *fr)
{
    assert_true(f->nframes < MAXF);
    assert_int_equal(bw_rbsm_encode(f->frames[f->nframes], BW_RBSM_MSG_LEN, fr->id, fr->word), 6);
    f->nframes++;
    f->in_frames += BW_RBSM_MSG_LEN;
    bw_rbsm_msg_t m;
    if (bw_rbsm_decode(fr, &m) == BW_EUNKNOWN)
        f->unknown++;
}

static void feed(feeder_t *f, const uint8_t *data, size_t len)
{
    f->fed += len;
    bw_rbsm_frame_t fr;
    int rc;
    while ((rc = bw_rbsm_parse(&f->p, &data, &len, &fr)) != 0) {
        if (rc < 0) {
            assert_int_equal(rc, BW_ELENGTH);
            f->rejects++;
        } else {
            assert_int_equal(rc, 1);
            take_frame(f, &fr);
        }
        check_accounting_at(f, len);
    }
    assert_int_equal(len, 0);
    check_accounting_at(f, 0);
}

static void finish(feeder_t *f)
{
    int rc = bw_rbsm_parser_finish(&f->p);
    assert_true(rc == 0 || rc == BW_ETRUNC);
    if (rc == BW_ETRUNC)
        f->truncs++;
    assert_int_equal(f->p.held, 0);
    assert_false(f->p.synced);
    check_accounting_at(f, 0);
    assert_int_equal(f->fed, f->in_frames + f->p.stats.skipped_bytes);
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

static size_t put_msg(uint8_t *buf, size_t at, uint8_t id, uint32_t word)
{
    assert_int_equal(bw_rbsm_encode(buf + at, BW_RBSM_MSG_LEN, id, word), 6);
    return at + BW_RBSM_MSG_LEN;
}

/* Same messages and counters. */
static void assert_same(const feeder_t *a, const feeder_t *b)
{
    assert_int_equal(a->nframes, b->nframes);
    assert_memory_equal(a->frames, b->frames, a->nframes * BW_RBSM_MSG_LEN);
    assert_memory_equal(&a->p.stats, &b->p.stats, sizeof a->p.stats);
    assert_int_equal(a->rejects, b->rejects);
    assert_int_equal(a->truncs, b->truncs);
}

static void assert_msg_equal(const bw_rbsm_msg_t *a, const bw_rbsm_msg_t *b)
{
    assert_int_equal(a->id, b->id);
    assert_int_equal(a->layout, b->layout);
    assert_true(a->value == b->value);
    assert_int_equal(a->angle, b->angle);
    assert_int_equal(a->brake, b->brake);
    assert_int_equal(a->spare, b->spare);
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* ---- golden vectors ------------------------------------------------------- */

/* Worked by hand from the seed's byte table: id, d3 (most significant) to
 * d0, footer 0x0A. Decimal to hex: 1234 = 0x4D2, 100000 = 0x186A0,
 * 3600000 = 0x36EE80, 12600 = 0x3138, 1500 = 0x5DC, -20000 = 0xFFFFB1E0
 * (0x10000 - 0x4E20), 123456789 = 0x075BCD15. */
typedef struct {
    uint8_t id;
    const char *name;
    uint8_t layout;
    int64_t value;
    uint8_t wire[6];
} golden_t;

static const golden_t GOLDEN[] = {
    { 0, "enc_ticks_last", BW_RBSM_UNSIGNED, 1234, { 0x00, 0x00, 0x00, 0x04, 0xD2, 0x0A } },
    { 1, "enc_ticks_reset", BW_RBSM_UNSIGNED, 100000, { 0x01, 0x00, 0x01, 0x86, 0xA0, 0x0A } },
    { 2, "enc_timestamp", BW_RBSM_UNSIGNED, 3600000, { 0x02, 0x00, 0x36, 0xEE, 0x80, 0x0A } },
    { 5, "enc_reset_request", BW_RBSM_UNSIGNED, 1, { 0x05, 0x00, 0x00, 0x00, 0x01, 0x0A } },
    { 6, "enc_reset_confirm", BW_RBSM_UNSIGNED, 1, { 0x06, 0x00, 0x00, 0x00, 0x01, 0x0A } },
    { 17, "mega_teleop_brake_command", BW_RBSM_UNSIGNED, 1, { 0x11, 0x00, 0x00, 0x00, 0x01, 0x0A } },
    { 18, "brake_command", BW_RBSM_UNSIGNED, 0, { 0x12, 0x00, 0x00, 0x00, 0x00, 0x0A } },
    { 20, "mega_steer_angle", BW_RBSM_SIGNED, -20000, { 0x14, 0xFF, 0xFF, 0xB1, 0xE0, 0x0A } },
    { 21, "mega_brake_state", BW_RBSM_UNSIGNED, 0, { 0x15, 0x00, 0x00, 0x00, 0x00, 0x0A } },
    { 22, "mega_auton_state", BW_RBSM_UNSIGNED, 1, { 0x16, 0x00, 0x00, 0x00, 0x01, 0x0A } },
    { 23, "mega_battery_level", BW_RBSM_UNSIGNED, 12600, { 0x17, 0x00, 0x00, 0x31, 0x38, 0x0A } },
    { 24, "mega_steer_feedback", BW_RBSM_SIGNED, 1500, { 0x18, 0x00, 0x00, 0x05, 0xDC, 0x0A } },
    { 30, "mega_firmware_hash", BW_RBSM_UNSIGNED, 0xDEADBEEF, { 0x1E, 0xDE, 0xAD, 0xBE, 0xEF, 0x0A } },
    { 50, "lighting", BW_RBSM_UNSIGNED, 0x00FF8000, { 0x32, 0x00, 0xFF, 0x80, 0x00, 0x0A } },
    { 253, "mega_timestamp", BW_RBSM_UNSIGNED, 123456789, { 0xFD, 0x07, 0x5B, 0xCD, 0x15, 0x0A } },
    /* watchdog (bit 0) and RC signal lost (bit 3) */
    { 254, "error", BW_RBSM_UNSIGNED, 0x09, { 0xFE, 0x00, 0x00, 0x00, 0x09, 0x0A } },
    { 255, "device_id", BW_RBSM_UNSIGNED, BW_RBSM_DID_DRIVE_ENCODER, { 0xFF, 0x00, 0x00, 0x00, 0x01, 0x0A } },
    /* the largest unsigned and the smallest signed value */
    { 23, "mega_battery_level", BW_RBSM_UNSIGNED, 0xFFFFFFFF, { 0x17, 0xFF, 0xFF, 0xFF, 0xFF, 0x0A } },
    { 24, "mega_steer_feedback", BW_RBSM_SIGNED, INT32_MIN, { 0x18, 0x80, 0x00, 0x00, 0x00, 0x0A } },
};
#define NGOLDEN (sizeof GOLDEN / sizeof GOLDEN[0])

static void test_golden_every_id(void **state)
{
    (void)state;
    for (size_t i = 0; i < NGOLDEN; i++) {
        const golden_t *g = &GOLDEN[i];
        bw_rbsm_msg_t m;
        bw_rbsm_msg_init(&m, g->id);
        assert_int_equal(m.layout, g->layout);
        m.value = g->value;
        uint8_t buf[8];
        memset(buf, 0xEE, sizeof buf);
        assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), 6);
        assert_memory_equal(buf, g->wire, 6);
        assert_int_equal(buf[6], 0xEE);

        bw_rbsm_frame_t f;
        assert_int_equal(bw_rbsm_decode_frame(g->wire, 6, &f), 0);
        assert_int_equal(f.id, g->id);
        assert_int_equal(bw_rbsm_encode(buf, 6, f.id, f.word), 6);
        assert_memory_equal(buf, g->wire, 6);

        bw_rbsm_msg_t d;
        assert_int_equal(bw_rbsm_decode(&f, &d), 0);
        assert_int_equal(d.id, g->id);
        assert_int_equal(d.layout, g->layout);
        assert_true(d.value == g->value);
        assert_int_equal(d.angle, 0);
        assert_int_equal(d.brake, 0);
        assert_int_equal(d.spare, 0);
        assert_string_equal(bw_rbsm_name(g->id), g->name);
        assert_int_equal(bw_rbsm_id(g->name), g->id);

        /* And through the receiver. */
        feeder_t fd;
        feeder_init(&fd);
        feed(&fd, g->wire, 6);
        assert_int_equal(fd.nframes, 1);
        assert_memory_equal(fd.frames[0], g->wire, 6);
        assert_int_equal(fd.p.stats.skipped_bytes, 0);
        assert_int_equal(fd.p.held, 0);
    }
}

/* mega_command (19): angle in the first two data bytes (signed 16, d3 d2),
 * brake in the third (d1), the fourth (d0) unused.
 * -15000 = 0xC568 (65536 - 15000 = 50536); brake 1.
 * The deployed Java host: angle 2500 = 0x09C4, brake 1, fourth byte 0xC0. */
static void test_golden_mega_command(void **state)
{
    (void)state;
    static const uint8_t seed[6] = { 0x13, 0xC5, 0x68, 0x01, 0x00, 0x0A };
    static const uint8_t java[6] = { 0x13, 0x09, 0xC4, 0x01, 0xC0, 0x0A };
    bw_rbsm_msg_t m;
    bw_rbsm_msg_init(&m, BW_RBSM_MID_MEGA_COMMAND);
    assert_int_equal(m.layout, BW_RBSM_COMMAND);
    m.angle = -15000;
    m.brake = 1;
    m.value = 12345; /* not looked at */
    uint8_t buf[6];
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), 6);
    assert_memory_equal(buf, seed, 6);
    assert_int_equal(bw_rbsm_command_word(-15000, 1, 0), 0xC5680100u);

    bw_rbsm_frame_t f;
    bw_rbsm_msg_t d;
    assert_int_equal(bw_rbsm_decode_frame(seed, 6, &f), 0);
    assert_int_equal(bw_rbsm_decode(&f, &d), 0);
    assert_int_equal(d.angle, -15000);
    assert_int_equal(d.brake, 1);
    assert_int_equal(d.spare, 0);
    assert_true(d.value == (int32_t)0xC5680100u); /* the word read signed */
    assert_string_equal(bw_rbsm_name(19), "mega_command");

    assert_int_equal(bw_rbsm_decode_frame(java, 6, &f), 0);
    assert_int_equal(bw_rbsm_decode(&f, &d), 0);
    assert_int_equal(d.angle, 2500);
    assert_int_equal(d.brake, 1);
    assert_int_equal(d.spare, 0xC0);
    assert_true(d.value == 0x09C401C0);
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &d), 6);
    assert_memory_equal(buf, java, 6);
}

/* ---- catalogue ------------------------------------------------------------ */

static void test_catalogue(void **state)
{
    (void)state;
    /* Listing: ids in order, every name maps back. */
    int last = -1;
    unsigned n = 0;
    for (int id; (id = bw_rbsm_id_at(n)) >= 0; n++) {
        assert_true(id > last && id <= 255);
        last = id;
        const char *name = bw_rbsm_name((uint8_t)id);
        assert_string_not_equal(name, "unknown");
        assert_int_equal(bw_rbsm_id(name), id);
        assert_int_equal(bw_rbsm_known((uint8_t)id), id != BW_RBSM_MID_RESERVED);
    }
    assert_int_equal(n, 19);
    assert_int_equal(bw_rbsm_id_at(1000), -1);

    /* Every other id is unknown. */
    unsigned named = 0;
    for (unsigned id = 0; id < 256; id++) {
        bool has = strcmp(bw_rbsm_name((uint8_t)id), "unknown") != 0;
        if (has)
            named++;
        else
            assert_false(bw_rbsm_known((uint8_t)id));
    }
    assert_int_equal(named, 19);

    /* Case, prefix, aliases. */
    assert_int_equal(bw_rbsm_id("MEGA_COMMAND"), 19);
    assert_int_equal(bw_rbsm_id("RBSM_MID_MEGA_COMMAND"), 19);
    assert_int_equal(bw_rbsm_id("rbsm_mid_enc_ticks_last"), 0);
    assert_int_equal(bw_rbsm_id("Device_Id"), 255);
    assert_int_equal(bw_rbsm_id("LIGHTING_ID"), 50);
    assert_int_equal(bw_rbsm_id("lighting"), 50);
    assert_int_equal(bw_rbsm_id("RBSM_MID_RESERVED"), 252);
    assert_int_equal(bw_rbsm_id("RBSM_MID_MEGA_AUTON_BRAKE_COMMAND"), 18);
    assert_int_equal(bw_rbsm_id("RBSM_MID_MEGA_STEER_COMMAND"), 19);
    assert_int_equal(bw_rbsm_id("RBSM_MID_COMP_HASH"), 30);
    assert_int_equal(bw_rbsm_id("RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND"), 17);
    assert_int_equal(bw_rbsm_id("mega_timestamp"), 253);
    assert_int_equal(bw_rbsm_id("unknown"), BW_EUNKNOWN);
    assert_int_equal(bw_rbsm_id(""), BW_EUNKNOWN);
    assert_int_equal(bw_rbsm_id("rbsm_mid_"), BW_EUNKNOWN);
    assert_int_equal(bw_rbsm_id("error_"), BW_EUNKNOWN);
    assert_int_equal(bw_rbsm_id("erro"), BW_EUNKNOWN);
    assert_int_equal(bw_rbsm_id("enc_ticks"), BW_EUNKNOWN);
    assert_int_equal(bw_rbsm_id(NULL), BW_EUNKNOWN);
    assert_string_equal(bw_rbsm_name(3), "unknown");
    assert_string_equal(bw_rbsm_name(252), "reserved");

    /* Layouts and brake fields. */
    for (unsigned id = 0; id < 256; id++) {
        bw_rbsm_layout_t l = bw_rbsm_layout((uint8_t)id);
        if (id == 20 || id == 24)
            assert_int_equal(l, BW_RBSM_SIGNED);
        else if (id == 19)
            assert_int_equal(l, BW_RBSM_COMMAND);
        else
            assert_int_equal(l, BW_RBSM_UNSIGNED);
        assert_int_equal(bw_rbsm_is_brake((uint8_t)id), id == 17 || id == 18 || id == 21);
    }

    assert_string_equal(bw_rbsm_device_name(BW_RBSM_DID_MEGA), "mega");
    assert_string_equal(bw_rbsm_device_name(BW_RBSM_DID_DRIVE_ENCODER), "drive_encoder");
    assert_string_equal(bw_rbsm_device_name(2), "unknown");
    assert_string_equal(bw_rbsm_device_name(0xFFFFFFFFu), "unknown");

    static const char *const errs[] = { "watchdog", "lost_stream", "invalid_mid", "rc_lost",
                                        "auton_lost" };
    static const unsigned masks[] = { BW_RBSM_ERR_WATCHDOG, BW_RBSM_ERR_LOST_STREAM,
                                      BW_RBSM_ERR_INVALID_MID, BW_RBSM_ERR_RC_LOST,
                                      BW_RBSM_ERR_AUTON_LOST };
    for (unsigned b = 0; b < BW_RBSM_ERR_BITS; b++) {
        assert_string_equal(bw_rbsm_error_name(b), errs[b]);
        assert_int_equal(masks[b], 1u << b);
    }
    assert_null(bw_rbsm_error_name(5));
    assert_null(bw_rbsm_error_name(31));
}

static void test_unknown_ids(void **state)
{
    (void)state;
    static const uint8_t ids[] = { 3, 4, 10, 25, 49, 51, 100, 251, 252 };
    for (size_t i = 0; i < sizeof ids; i++) {
        bw_rbsm_frame_t f = { ids[i], 0x80000001u };
        bw_rbsm_msg_t m;
        assert_int_equal(bw_rbsm_decode(&f, &m), BW_EUNKNOWN);
        assert_int_equal(m.id, ids[i]);
        assert_int_equal(m.layout, BW_RBSM_UNSIGNED);
        assert_true(m.value == 0x80000001);
        uint8_t buf[6];
        assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), 6);
        assert_int_equal(buf[0], ids[i]);
    }
    /* The receiver returns them; the decoding caller counts them. */
    uint8_t s[36];
    size_t n = put_msg(s, 0, 3, 7);
    n = put_msg(s, n, 21, 0);
    n = put_msg(s, n, 252, 1);
    n = put_msg(s, n, 10, 0x0A0A0A0A);
    n = put_msg(s, n, 254, 0);
    n = put_msg(s, n, 99, 0);
    feeder_t f;
    feeder_init(&f);
    feed(&f, s, n);
    finish(&f);
    assert_int_equal(f.nframes, 6);
    assert_int_equal(f.unknown, 4);
    assert_int_equal(f.p.stats.unknown, 0); /* the receiver leaves it alone */
}

/* ---- encode and decode errors --------------------------------------------- */

static void test_encode_decode_errors(void **state)
{
    (void)state;
    uint8_t buf[6] = { 0 };
    assert_int_equal(bw_rbsm_encode(buf, 5, 1, 2), BW_ENOSPC);
    assert_int_equal(bw_rbsm_encode(buf, 0, 1, 2), BW_ENOSPC);

    bw_rbsm_msg_t m;
    bw_rbsm_msg_init(&m, BW_RBSM_MID_MEGA_BATTERY_LEVEL);
    m.value = -1;
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), BW_ERANGE);
    m.value = (int64_t)UINT32_MAX + 1;
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), BW_ERANGE);
    m.value = UINT32_MAX;
    assert_int_equal(bw_rbsm_encode_msg(buf, 5, &m), BW_ENOSPC);
    assert_int_equal(bw_rbsm_encode_msg(buf, 6, &m), 6);

    bw_rbsm_msg_init(&m, BW_RBSM_MID_MEGA_STEER_ANGLE);
    m.value = (int64_t)INT32_MAX + 1;
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), BW_ERANGE);
    m.value = (int64_t)INT32_MIN - 1;
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), BW_ERANGE);
    m.value = INT32_MIN;
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), 6);

    /* The layout a caller leaves in the message is not what counts. */
    bw_rbsm_msg_init(&m, BW_RBSM_MID_MEGA_STEER_ANGLE);
    m.layout = BW_RBSM_UNSIGNED;
    m.value = -1;
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), 6);
    static const uint8_t minus1[6] = { 0x14, 0xFF, 0xFF, 0xFF, 0xFF, 0x0A };
    assert_memory_equal(buf, minus1, 6);

    static const uint8_t good[7] = { 0x01, 0x00, 0x00, 0x00, 0x01, 0x0A, 0x00 };
    static const uint8_t nofooter[6] = { 0x01, 0x00, 0x00, 0x00, 0x01, 0x0B };
    bw_rbsm_frame_t f;
    assert_int_equal(bw_rbsm_decode_frame(good, 0, &f), BW_ETRUNC);
    assert_int_equal(bw_rbsm_decode_frame(good, 5, &f), BW_ETRUNC);
    assert_int_equal(bw_rbsm_decode_frame(good, 7, &f), BW_ELENGTH);
    assert_int_equal(bw_rbsm_decode_frame(nofooter, 6, &f), BW_ELENGTH);
    assert_int_equal(bw_rbsm_decode_frame(good, 6, &f), 0);
    assert_int_equal(f.id, 1);
    assert_int_equal(f.word, 1);
}

/* ---- round trips ---------------------------------------------------------- */

static void test_roundtrip_every_id(void **state)
{
    (void)state;
    static const int64_t uvals[] = { 0, 1, 0x0A, 0x0A0A0A0A, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF };
    static const int64_t svals[] = { 0, 1, -1, 0x0A, -0x0A0A, INT32_MAX, INT32_MIN };
    for (unsigned id = 0; id < 256; id++) {
        bw_rbsm_layout_t l = bw_rbsm_layout((uint8_t)id);
        for (size_t k = 0; k < 7; k++) {
            bw_rbsm_msg_t m;
            bw_rbsm_msg_init(&m, (uint8_t)id);
            if (l == BW_RBSM_COMMAND) {
                m.angle = (int16_t)(k * 9000 - 27000);
                m.brake = (uint8_t)(k & 1);
                m.spare = (uint8_t)(k * 40);
                m.value = (int32_t)bw_rbsm_command_word(m.angle, m.brake, m.spare);
            } else {
                m.value = l == BW_RBSM_SIGNED ? svals[k] : uvals[k];
            }
            uint8_t w[6];
            assert_int_equal(bw_rbsm_encode_msg(w, sizeof w, &m), 6);
            assert_int_equal(w[0], id);
            assert_int_equal(w[5], BW_RBSM_FOOTER);
            bw_rbsm_frame_t f;
            assert_int_equal(bw_rbsm_decode_frame(w, 6, &f), 0);
            bw_rbsm_msg_t d;
            int rc = bw_rbsm_decode(&f, &d);
            assert_int_equal(rc, bw_rbsm_known((uint8_t)id) ? 0 : BW_EUNKNOWN);
            assert_msg_equal(&d, &m);

            feeder_t fd;
            feeder_init(&fd);
            feed(&fd, w, 6);
            assert_int_equal(fd.nframes, 1);
            assert_memory_equal(fd.frames[0], w, 6);
        }
    }
}

/* ---- receiver ------------------------------------------------------------- */

/* 0x0A anywhere in the data, and as the id, is normal in sync. */
static void test_footer_inside_data(void **state)
{
    (void)state;
    uint8_t s[6 * 40];
    size_t n = 0;
    for (unsigned mask = 0; mask < 16; mask++) {
        uint32_t w = 0x11223344u;
        for (unsigned b = 0; b < 4; b++)
            if (mask & (1u << b))
                w = (w & ~(0xFFu << (8 * b))) | (0x0Au << (8 * b));
        n = put_msg(s, n, 1, w);
        n = put_msg(s, n, 0x0A, w);
    }
    n = put_msg(s, n, 0x0A, 0x0A0A0A0A); /* six footers in a row */
    n = put_msg(s, n, 0x0A, 0x0A0A0A0A);
    n = put_msg(s, n, 24, 0xFFFFFFF6u); /* -10 */
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        if (bytewise)
            feed_bytewise(&f, s, n);
        else
            feed(&f, s, n);
        finish(&f);
        assert_int_equal(f.nframes, n / 6);
        assert_memory_equal(f.frames, s, n);
        assert_int_equal(f.p.stats.skipped_bytes, 0);
        assert_int_equal(f.p.stats.length_errors, 0);
        assert_int_equal(f.rejects, 0);
        assert_int_equal(f.truncs, 0);
    }
}

/* A stream of nothing but footers is a stream of messages of id 0x0A. */
static void test_all_footers(void **state)
{
    (void)state;
    uint8_t s[64];
    memset(s, 0x0A, sizeof s);
    feeder_t f;
    feeder_init(&f);
    feed(&f, s, sizeof s);
    assert_int_equal(f.nframes, 10);
    assert_int_equal(f.p.held, 4);
    finish(&f);
    assert_int_equal(f.truncs, 1);
    assert_int_equal(f.p.stats.length_errors, 1);
    assert_int_equal(f.p.stats.skipped_bytes, 4);
}

/* Joining in the middle of a message: its tail is skipped, nothing else. */
static void test_starts_mid_message(void **state)
{
    (void)state;
    uint8_t good[6 * 4];
    size_t g = put_msg(good, 0, 21, 1);
    g = put_msg(good, g, 20, 0xFFFFD8F0u);
    g = put_msg(good, g, 23, 12000);
    g = put_msg(good, g, 255, 0);
    uint8_t first[6];
    put_msg(first, 0, 1, 0x00018600u);
    for (size_t cut = 0; cut < 6; cut++) {
        uint8_t s[64];
        size_t n = append(s, 0, first + cut, 6 - cut);
        n = append(s, n, good, g);
        for (int bytewise = 0; bytewise < 2; bytewise++) {
            feeder_t f;
            feeder_init(&f);
            if (bytewise)
                feed_bytewise(&f, s, n);
            else
                feed(&f, s, n);
            finish(&f);
            if (cut == 0) {
                /* On a boundary: the first message is kept too (the seed's
                 * receiver waits for a footer and loses it). */
                assert_int_equal(f.nframes, 5);
                assert_memory_equal(f.frames, s, n);
                assert_int_equal(f.p.stats.skipped_bytes, 0);
            } else {
                assert_int_equal(f.nframes, 4);
                assert_memory_equal(f.frames, good, g);
                assert_int_equal(f.p.stats.skipped_bytes, 6 - cut);
            }
            assert_int_equal(f.p.stats.length_errors, 0);
            assert_int_equal(f.rejects, 0);
        }
    }
}

/* Starting mid-message where the tail holds footers. */
static void test_starts_mid_message_footers_in_tail(void **state)
{
    (void)state;
    /* tail of enc_ticks_reset 0x0A0A0A0A: `0A 0A 0A`, then good messages. */
    uint8_t s[64];
    static const uint8_t tail[3] = { 0x0A, 0x0A, 0x0A };
    size_t n = append(s, 0, tail, 3);
    size_t start = n;
    n = put_msg(s, n, 22, 1);
    n = put_msg(s, n, 23, 12000);
    feeder_t f;
    feeder_init(&f);
    feed(&f, s, n);
    finish(&f);
    assert_int_equal(f.nframes, 2);
    assert_memory_equal(f.frames, s + start, n - start);
    assert_int_equal(f.p.stats.skipped_bytes, 3);
    assert_int_equal(f.p.stats.length_errors, 0);
}

/* A message that lost its footer, and the good ones behind it: the seed's
 * receiver drops the one right behind (it waits for the next footer); this
 * one rescans and keeps them all. */
static void test_missing_footer_then_good(void **state)
{
    (void)state;
    uint8_t s[128];
    size_t n = put_msg(s, 0, 20, 5000);
    uint8_t bad[6];
    put_msg(bad, 0, 21, 1);
    n = append(s, n, bad, 5); /* no footer */
    size_t good_at = n;
    n = put_msg(s, n, 23, 12345);
    n = put_msg(s, n, 24, 0xFFFFFC18u);
    n = put_msg(s, n, 22, 0);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        feeder_t f;
        feeder_init(&f);
        if (bytewise)
            feed_bytewise(&f, s, n);
        else
            feed(&f, s, n);
        finish(&f);
        assert_int_equal(f.nframes, 4);
        assert_memory_equal(f.frames[0], s, 6);
        assert_memory_equal(f.frames[1], s + good_at, n - good_at);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.rejects, 1);
        assert_int_equal(f.p.stats.skipped_bytes, 5);
    }
}

/* Several bad messages in a row, each kind of damage a UART gives. */
static void test_damage_kinds(void **state)
{
    (void)state;
    uint8_t m[6];
    /* footer overwritten */
    {
        uint8_t s[64];
        size_t n = put_msg(s, 0, 1, 100);
        put_msg(m, 0, 1, 101);
        m[5] = 0x0B;
        n = append(s, n, m, 6);
        size_t at = n;
        n = put_msg(s, n, 1, 102);
        n = put_msg(s, n, 1, 103);
        feeder_t f;
        feeder_init(&f);
        feed(&f, s, n);
        finish(&f);
        assert_int_equal(f.nframes, 3);
        assert_memory_equal(f.frames[1], s + at, 12);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, 6);
    }
    /* a data byte lost (its footer arrives one byte early) */
    {
        uint8_t s[64];
        size_t n = put_msg(s, 0, 2, 100);
        put_msg(m, 0, 2, 0x00112233u);
        memmove(m + 2, m + 3, 3);
        n = append(s, n, m, 5);
        size_t at = n;
        n = put_msg(s, n, 2, 102);
        n = put_msg(s, n, 2, 103);
        feeder_t f;
        feeder_init(&f);
        feed(&f, s, n);
        finish(&f);
        assert_int_equal(f.nframes, 3);
        assert_memory_equal(f.frames[1], s + at, 12);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, 5);
    }
    /* the id lost, then two messages without footers in a row */
    {
        uint8_t s[64];
        size_t n = put_msg(s, 0, 2, 100);
        put_msg(m, 0, 2, 0x00112233u);
        n = append(s, n, m + 1, 5);
        n = append(s, n, m, 5);
        n = append(s, n, m, 5);
        size_t at = n;
        n = put_msg(s, n, 2, 102);
        n = put_msg(s, n, 2, 103);
        feeder_t f;
        feeder_init(&f);
        feed(&f, s, n);
        finish(&f);
        assert_int_equal(f.nframes, 3);
        assert_memory_equal(f.frames[1], s + at, 12);
        assert_int_equal(f.p.stats.length_errors, 1);
        assert_int_equal(f.p.stats.skipped_bytes, 15);
    }
}

/* The limit of any footer-only framing, pinned down: a byte inserted inside
 * a message makes its last six bytes look like a message. That false
 * message is returned (there is no checksum to refuse it), and the good
 * message behind it is still found. */
static void test_inserted_byte(void **state)
{
    (void)state;
    uint8_t s[64];
    size_t n = put_msg(s, 0, 23, 12000);
    static const uint8_t longer[7] = { 0x17, 0x00, 0x99, 0x00, 0x2E, 0xE0, 0x0A };
    n = append(s, n, longer, 7);
    size_t at = n;
    n = put_msg(s, n, 23, 12001);
    feeder_t f;
    feeder_init(&f);
    feed(&f, s, n);
    finish(&f);
    assert_int_equal(f.nframes, 3);
    assert_memory_equal(f.frames[1], longer + 1, 6);
    assert_memory_equal(f.frames[2], s + at, 6);
    assert_int_equal(f.p.stats.length_errors, 1);
    assert_int_equal(f.p.stats.skipped_bytes, 1);
}

/* Random junk before, between and after messages. When neither the junk
 * nor the messages hold a 0x0A but in the footer, the only candidates are
 * the true messages: every one is found, every junk byte is skipped, and
 * every junk run after a message is one failed VERIFY. With 0x0A anywhere,
 * the results still do not depend on how the reads are cut. */
static uint8_t no_footer(uint32_t *seed)
{
    uint8_t b = (uint8_t)lcg(seed);
    return b == 0x0A ? 0x0B : b;
}

static void test_garbage(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    for (int round = 0; round < 400; round++) {
        bool clean = round % 2 == 0;
        uint8_t s[64 * (6 + 13) + 8];
        uint8_t want[64][6];
        size_t n = 0, nmsgs = 0, junk_bytes = 0, errors = 0;
        while (nmsgs < 64) {
            size_t junk = lcg(&seed) % 3 ? 0 : lcg(&seed) % 14;
            for (size_t i = 0; i < junk; i++)
                s[n++] = clean ? no_footer(&seed) : (uint8_t)lcg(&seed);
            junk_bytes += junk;
            if (junk && nmsgs)
                errors++;
            uint8_t id = clean ? no_footer(&seed) : (uint8_t)lcg(&seed);
            uint32_t w = 0;
            for (int b = 0; b < 4; b++)
                w = (w << 8) | (clean ? no_footer(&seed) : (uint8_t)lcg(&seed));
            n = put_msg(s, n, id, w);
            memcpy(want[nmsgs++], s + n - 6, 6);
        }
        size_t tail = lcg(&seed) % 8;
        for (size_t i = 0; i < tail; i++)
            s[n++] = clean ? no_footer(&seed) : (uint8_t)lcg(&seed);
        junk_bytes += tail;
        if (tail)
            errors++;

        feeder_t a, b;
        feeder_init(&a);
        feeder_init(&b);
        feed(&a, s, n);
        finish(&a);
        uint32_t cut = seed;
        for (size_t off = 0; off < n;) {
            size_t k = 1 + lcg(&cut) % 13;
            if (k > n - off)
                k = n - off;
            feed(&b, s + off, k);
            off += k;
        }
        finish(&b);
        assert_same(&a, &b);
        if (clean) {
            assert_int_equal(a.nframes, nmsgs);
            assert_memory_equal(a.frames, want, nmsgs * 6);
            assert_int_equal(a.p.stats.skipped_bytes, junk_bytes);
            assert_int_equal(a.p.stats.length_errors, errors);
        }
    }
}

/* Pure junk: all skipped (the last five held until the end). */
static void test_pure_garbage(void **state)
{
    (void)state;
    uint8_t s[1000];
    uint32_t seed = 7;
    for (size_t i = 0; i < sizeof s; i++) {
        uint8_t b = (uint8_t)lcg(&seed);
        s[i] = b == 0x0A ? 0x00 : b;
    }
    feeder_t f;
    feeder_init(&f);
    feed(&f, s, sizeof s);
    assert_int_equal(f.nframes, 0);
    assert_int_equal(f.p.held, 5);
    assert_int_equal(f.p.stats.skipped_bytes, sizeof s - 5);
    finish(&f);
    assert_int_equal(f.truncs, 0);
    assert_int_equal(f.p.stats.length_errors, 0);
    assert_int_equal(f.p.stats.skipped_bytes, sizeof s);
}

/* The stream every split test uses: a mid-message start, footers in the
 * data, a lost footer, junk, a cut end. Byte offsets:
 *   0  0B 0C 0D 0A           tail of 01 0A 0B 0C 0D 0A
 *   4  14 FF FF 0A 0A 0A     mega_steer_angle 0xFFFF0A0A
 *  10  0A 0A 0A 0A 0A 0A     id 0x0A, 0x0A0A0A0A
 *  16  13 FE D4 01 00 0A     mega_command -300, brake 1
 *  22  15 00 00 00 00        mega_brake_state without its footer
 *  27  17 00 00 2E 18 0A     mega_battery_level 11800
 *  33  FF 00 0A 13 37        junk
 *  38  FE 00 00 00 02 0A     error: lost stream
 *  44  FF 00 00 00 00 0A     device_id: mega
 *  50  18 00 00 FF           cut by the end of the stream
 * Joining mid-message with footers in the next data is the worst case of a
 * footer-only framing: the first candidate is 2..7 (0D 0A 14 FF FF 0A, a
 * false message), which puts 8..13 in step (another), and the failed VERIFY
 * at 14 brings the receiver back on 16. Then a failed VERIFY at 22, one at
 * 33 (the rescan skips the junk's 0A: no message could end there), and the
 * cut message at the end: 6 messages, 4 length errors, 18 bytes skipped. */
static size_t mixed_stream(uint8_t *s)
{
    uint8_t m[6];
    size_t n = 0;
    put_msg(m, 0, 1, 0x0A0B0C0Du);
    n = append(s, n, m + 2, 4);
    n = put_msg(s, n, 20, 0xFFFF0A0Au);
    n = put_msg(s, n, 0x0A, 0x0A0A0A0A);
    n = put_msg(s, n, 19, bw_rbsm_command_word(-300, 1, 0));
    put_msg(m, 0, 21, 0);
    n = append(s, n, m, 5);
    n = put_msg(s, n, 23, 11800);
    static const uint8_t junk[] = { 0xFF, 0x00, 0x0A, 0x13, 0x37 };
    n = append(s, n, junk, sizeof junk);
    n = put_msg(s, n, 254, BW_RBSM_ERR_LOST_STREAM);
    n = put_msg(s, n, 255, BW_RBSM_DID_MEGA);
    put_msg(m, 0, 24, 0x0000FF0Au);
    n = append(s, n, m, 4);
    return n;
}

static void test_every_split_point(void **state)
{
    (void)state;
    uint8_t s[128];
    size_t n = mixed_stream(s);
    feeder_t whole;
    feeder_init(&whole);
    feed(&whole, s, n);
    finish(&whole);
    assert_int_equal(whole.nframes, 6);
    static const uint8_t false0[6] = { 0x0D, 0x0A, 0x14, 0xFF, 0xFF, 0x0A };
    static const uint8_t false1[6] = { 0x0A, 0x0A, 0x0A, 0x0A, 0x0A, 0x0A };
    assert_memory_equal(whole.frames[0], false0, 6);
    assert_memory_equal(whole.frames[1], false1, 6);
    assert_memory_equal(whole.frames[2], s + 16, 6);
    assert_memory_equal(whole.frames[3], s + 27, 6);
    assert_memory_equal(whole.frames[4], s + 38, 12);
    assert_int_equal(whole.p.stats.length_errors, 4);
    assert_int_equal(whole.rejects, 3);
    assert_int_equal(whole.truncs, 1);
    assert_int_equal(whole.p.stats.skipped_bytes, 18);
    assert_int_equal(n, 54);

    for (size_t i = 0; i <= n; i++) {
        feeder_t f;
        feeder_init(&f);
        feed(&f, s, i);
        feed(&f, s + i, n - i);
        finish(&f);
        assert_same(&whole, &f);
        for (size_t j = i; j <= n; j++) {
            feeder_t g;
            feeder_init(&g);
            feed(&g, s, i);
            feed(&g, s + i, j - i);
            feed(&g, s + j, n - j);
            finish(&g);
            assert_same(&whole, &g);
        }
    }
    feeder_t b;
    feeder_init(&b);
    feed_bytewise(&b, s, n);
    finish(&b);
    assert_same(&whole, &b);

    /* An empty read with no buffer at all. */
    bw_rbsm_parser_t p;
    bw_rbsm_parser_init(&p);
    const uint8_t *none = NULL;
    size_t zero = 0;
    bw_rbsm_frame_t fr;
    assert_int_equal(bw_rbsm_parse(&p, &none, &zero, &fr), 0);
    assert_null(none);
    assert_int_equal(p.held, 0);

    /* Empty reads change nothing. */
    feeder_t e;
    feeder_init(&e);
    feed(&e, s, 0);
    feed(&e, s, 7);
    feed(&e, s + 7, 0);
    feed(&e, s + 7, n - 7);
    finish(&e);
    assert_same(&whole, &e);
}

/* A long run of random messages in sync: all found, nothing skipped. */
static void test_long_stream(void **state)
{
    (void)state;
    enum { N = 400 };
    static uint8_t s[N * 6];
    uint32_t seed = 99;
    size_t n = 0;
    for (int i = 0; i < N; i++)
        n = put_msg(s, n, (uint8_t)lcg(&seed), lcg(&seed) ^ (lcg(&seed) << 16));
    feeder_t f;
    feeder_init(&f);
    uint32_t cut = 3;
    for (size_t off = 0; off < n;) {
        size_t k = lcg(&cut) % 40;
        if (k > n - off)
            k = n - off;
        feed(&f, s + off, k);
        off += k;
    }
    finish(&f);
    assert_int_equal(f.nframes, N);
    assert_memory_equal(f.frames, s, n);
    assert_int_equal(f.p.stats.skipped_bytes, 0);
    assert_int_equal(f.p.stats.length_errors, 0);
}

/* The accounting at every return, with bytes still unread: a message cut in
 * the middle of a read leaves the rest with the caller. */
static void test_accounting_mid_read(void **state)
{
    (void)state;
    uint8_t s[64];
    size_t n = put_msg(s, 0, 1, 1);
    n = put_msg(s, n, 2, 2);
    n = append(s, n, s, 3);
    bw_rbsm_parser_t p;
    bw_rbsm_parser_init(&p);
    const uint8_t *d = s;
    size_t len = n;
    bw_rbsm_frame_t f;
    assert_int_equal(bw_rbsm_parse(&p, &d, &len, &f), 1);
    assert_int_equal(len, n - 6);
    assert_ptr_equal(d, s + 6);
    assert_int_equal(f.id, 1);
    assert_int_equal(bw_rbsm_parse(&p, &d, &len, &f), 1);
    assert_int_equal(len, 3);
    assert_int_equal(f.id, 2);
    assert_int_equal(f.word, 2);
    assert_int_equal(bw_rbsm_parse(&p, &d, &len, &f), 0);
    assert_int_equal(len, 0);
    assert_int_equal(p.held, 3);
    assert_int_equal(p.stats.frames, 2);
    assert_int_equal(p.stats.skipped_bytes, 0);
    assert_int_equal(bw_rbsm_parser_finish(&p), BW_ETRUNC);
    assert_int_equal(p.stats.skipped_bytes, 3);
    assert_int_equal(p.stats.length_errors, 1);
}

static void test_finish(void **state)
{
    (void)state;
    uint8_t s[16];
    size_t n = put_msg(s, 0, 21, 0);

    /* Nothing held. */
    feeder_t f;
    feeder_init(&f);
    assert_int_equal(bw_rbsm_parser_finish(&f.p), 0);
    feed(&f, s, 6);
    assert_int_equal(bw_rbsm_parser_finish(&f.p), 0);
    assert_int_equal(f.p.stats.length_errors, 0);

    /* A message cut after a good one: truncated, counted. */
    feeder_init(&f);
    feed(&f, s, 6);
    feed(&f, s, 3);
    finish(&f);
    assert_int_equal(f.truncs, 1);
    assert_int_equal(f.p.stats.length_errors, 1);
    assert_int_equal(f.p.stats.skipped_bytes, 3);

    /* Bytes never in sync: skipped only. */
    feeder_init(&f);
    feed(&f, s, 4);
    finish(&f);
    assert_int_equal(f.truncs, 0);
    assert_int_equal(f.p.stats.length_errors, 0);
    assert_int_equal(f.p.stats.skipped_bytes, 4);

    /* Reusable for a new stream: starts out of sync, stats kept. */
    feed(&f, s + 2, 4); /* a new stream joined mid-message */
    n = put_msg(s, 0, 22, 1);
    feed(&f, s, n);
    finish(&f);
    assert_int_equal(f.nframes, 1);
    assert_int_equal(f.p.stats.skipped_bytes, 8);
    assert_int_equal(f.p.stats.length_errors, 0);
    assert_int_equal(bw_rbsm_parser_finish(&f.p), 0);
}

/* ---- units and variants ---------------------------------------------------- */

static void test_steering_units(void **state)
{
    (void)state;
    const bw_rbsm_variant_t seed = BW_RBSM_VARIANT_SEED, dep = BW_RBSM_VARIANT_DEPLOYED;
    bw_rbsm_variant_t zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&zero, &seed, sizeof seed); /* zero is the seed */
    assert_int_equal(bw_rbsm_steer_per_degree(seed), 1000);
    assert_int_equal(bw_rbsm_steer_per_degree(dep), 100);

    /* 0.1 rad = 5.7295779513 degrees */
    int32_t w;
    assert_int_equal(bw_rbsm_steer_from_rad(seed, 0.1, &w), 0);
    assert_int_equal(w, 5730);
    assert_int_equal(bw_rbsm_steer_from_rad(seed, -0.1, &w), 0);
    assert_int_equal(w, -5730);
    assert_int_equal(bw_rbsm_steer_from_rad(dep, 0.1, &w), 0);
    assert_int_equal(w, 573);
    /* With the direction: the deployed unit points right
     * (STEERING_LIMIT_LEFT -1500): 0.1 rad to the left is -573 hundredths,
     * and the host's 13 00 00 05 dc 0a (+1500) is 15 degrees to the right
     * (a regression test: it read as 15 to the left). The seed's is left. */
    assert_int_equal(bw_rbsm_steer_left_to_wire(dep, 0.1, &w), 0);
    assert_int_equal(w, -573);
    assert_int_equal(bw_rbsm_steer_left_to_wire(seed, 0.1, &w), 0);
    assert_int_equal(w, 5730);
    const double deg15 = 15 * 3.14159265358979323846 / 180;
    assert_true(fabs(bw_rbsm_steer_left_rad(dep, 1500) + deg15) < 1e-12);
    assert_true(fabs(bw_rbsm_steer_left_rad(seed, 15000) - deg15) < 1e-12);
    assert_true(bw_rbsm_steer_left_rad(dep, 0) == 0.0 && !signbit(bw_rbsm_steer_left_rad(dep, 0)));
    assert_int_equal(bw_rbsm_steer_from_rad(seed, 0.0, &w), 0);
    assert_int_equal(w, 0);
    /* 30 degrees */
    assert_int_equal(bw_rbsm_steer_from_rad(seed, 3.14159265358979323846 / 6, &w), 0);
    assert_int_equal(w, 30000);

    double r = bw_rbsm_steer_to_rad(seed, 5730);
    assert_true(r > 0.1000073 && r < 0.1000074); /* 5.73 degrees */
    r = bw_rbsm_steer_to_rad(dep, -573);
    assert_true(r < -0.1000073 && r > -0.1000074);
    assert_true(bw_rbsm_steer_to_rad(seed, 0) == 0.0);
    r = bw_rbsm_steer_to_rad(seed, 90000);
    assert_true(r > 1.5707963 && r < 1.5707964);

    /* Out of range, NaN. */
    assert_int_equal(bw_rbsm_steer_from_rad(seed, 1e10, &w), BW_ERANGE);
    assert_int_equal(w, INT32_MAX);
    assert_int_equal(bw_rbsm_steer_from_rad(seed, -1e10, &w), BW_ERANGE);
    assert_int_equal(w, INT32_MIN);
    volatile double z = 0.0;
    assert_int_equal(bw_rbsm_steer_from_rad(seed, z / z, &w), BW_ERANGE);
    assert_int_equal(w, 0);

    /* mega_command's 16-bit angle: +-32.767 degrees in thousandths. */
    int16_t a;
    assert_int_equal(bw_rbsm_command_angle_from_rad(seed, 0.1, &a), 0);
    assert_int_equal(a, 5730);
    assert_int_equal(bw_rbsm_command_angle_from_rad(seed, 0.6, &a), BW_ERANGE);
    assert_int_equal(a, INT16_MAX);
    assert_int_equal(bw_rbsm_command_angle_from_rad(seed, -0.6, &a), BW_ERANGE);
    assert_int_equal(a, INT16_MIN);
    assert_int_equal(bw_rbsm_command_angle_from_rad(dep, 0.6, &a), 0);
    assert_int_equal(a, 3438); /* 34.377 degrees */
    assert_int_equal(bw_rbsm_command_angle_from_rad(seed, z / z, &a), BW_ERANGE);
    assert_int_equal(a, 0);
}

static void test_brake_polarity(void **state)
{
    (void)state;
    const bw_rbsm_variant_t seed = BW_RBSM_VARIANT_SEED, dep = BW_RBSM_VARIANT_DEPLOYED;
    assert_int_equal(bw_rbsm_brake_to_wire(seed, true), 0);
    assert_int_equal(bw_rbsm_brake_to_wire(seed, false), 1);
    assert_int_equal(bw_rbsm_brake_to_wire(dep, true), 1);
    assert_int_equal(bw_rbsm_brake_to_wire(dep, false), 0);
    assert_true(bw_rbsm_brake_engaged(seed, 0));
    assert_false(bw_rbsm_brake_engaged(seed, 1));
    assert_false(bw_rbsm_brake_engaged(seed, 0xFFFFFFFFu)); /* !0 = disengaged */
    assert_true(bw_rbsm_brake_engaged(dep, 1));
    assert_true(bw_rbsm_brake_engaged(dep, 7));
    assert_false(bw_rbsm_brake_engaged(dep, 0));
    for (int e = 0; e < 2; e++) {
        assert_int_equal(bw_rbsm_brake_engaged(seed, bw_rbsm_brake_to_wire(seed, e)), e);
        assert_int_equal(bw_rbsm_brake_engaged(dep, bw_rbsm_brake_to_wire(dep, e)), e);
    }
}

/* 0.1 rad = 5730 = 0x1662 thousandths; engaged in the seed's polarity is 0. */
static void test_command_from(void **state)
{
    (void)state;
    bw_rbsm_msg_t m;
    assert_int_equal(bw_rbsm_command_from(BW_RBSM_VARIANT_SEED, 0.1, true, &m), 0);
    static const uint8_t seed_engaged[6] = { 0x13, 0x16, 0x62, 0x00, 0x00, 0x0A };
    uint8_t buf[6];
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), 6);
    assert_memory_equal(buf, seed_engaged, 6);
    bw_rbsm_frame_t f;
    bw_rbsm_msg_t d;
    assert_int_equal(bw_rbsm_decode_frame(buf, 6, &f), 0);
    assert_int_equal(bw_rbsm_decode(&f, &d), 0);
    assert_msg_equal(&d, &m);

    /* Deployed units and polarity (the seed's layout, the wire's sense):
     * -573 = 0xFDC3, engaged = 1. */
    assert_int_equal(bw_rbsm_command_from(BW_RBSM_VARIANT_DEPLOYED, -0.1, true, &m), 0);
    static const uint8_t dep_engaged[6] = { 0x13, 0xFD, 0xC3, 0x01, 0x00, 0x0A };
    assert_int_equal(bw_rbsm_encode_msg(buf, sizeof buf, &m), 6);
    assert_memory_equal(buf, dep_engaged, 6);

    assert_int_equal(bw_rbsm_command_from(BW_RBSM_VARIANT_SEED, 1.0, false, &m), BW_ERANGE);
    assert_int_equal(m.angle, INT16_MAX);
    assert_int_equal(m.brake, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_every_id),
        cmocka_unit_test(test_golden_mega_command),
        cmocka_unit_test(test_catalogue),
        cmocka_unit_test(test_unknown_ids),
        cmocka_unit_test(test_encode_decode_errors),
        cmocka_unit_test(test_roundtrip_every_id),
        cmocka_unit_test(test_footer_inside_data),
        cmocka_unit_test(test_all_footers),
        cmocka_unit_test(test_starts_mid_message),
        cmocka_unit_test(test_starts_mid_message_footers_in_tail),
        cmocka_unit_test(test_missing_footer_then_good),
        cmocka_unit_test(test_damage_kinds),
        cmocka_unit_test(test_inserted_byte),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_pure_garbage),
        cmocka_unit_test(test_every_split_point),
        cmocka_unit_test(test_long_stream),
        cmocka_unit_test(test_accounting_mid_read),
        cmocka_unit_test(test_finish),
        cmocka_unit_test(test_steering_units),
        cmocka_unit_test(test_brake_polarity),
        cmocka_unit_test(test_command_from),
    };
    return cmocka_run_group_tests_name("rbsm codec", tests, NULL, NULL);
}
