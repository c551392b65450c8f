/*
 * libFuzzer harness for the RBSM receiver, codec, catalogue and conversions.
 *
 * Invariants checked (docs/parser-invariants.md, include/botwire/rbsm.h):
 *  - every byte fed is, at every return, in a returned message, counted as
 *    skipped, or held (at most 5), and nothing is held after finish;
 *  - a returned message is the 6 input bytes that end where the accounting
 *    says, and ends in the footer;
 *  - reads cut anywhere give the same messages and counters as the rule
 *    written the plain way (accept at k when byte k+5 is a footer, in sync
 *    go message by message, count a failed VERIFY in sync, skip one byte);
 *  - decode . encode is the identity on frames, and encode . decode on
 *    messages whose values are in range; out of range is BW_ERANGE;
 *  - name lookup maps back; the conversions stay in range (UBSan watches
 *    the float-to-int casts);
 *  - the host driver, given the bytes as the buggy's, cut into reads over
 *    time: its state stays finite, its speed within what its judgement of
 *    the encoder lets through (25 m/s, and a tick of rounding per loop).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/botwire.h"
#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t digest(uint64_t h, const uint8_t *m)
{
    for (size_t i = 0; i < BW_RBSM_MSG_LEN; i++)
        h = (h ^ m[i]) * 1099511628211u;
    return h;
}

typedef struct {
    uint64_t digest;
    bw_parse_stats_t stats;
} outcome_t;

/* The receiver's rule, one byte at a time over the whole input. */
static outcome_t model(const uint8_t *d, size_t size)
{
    outcome_t o = { 14695981039346656037u, { 0 } };
    bool synced = false;
    size_t pos = 0;
    while (pos + BW_RBSM_MSG_LEN <= size) {
        if (d[pos + 5] == BW_RBSM_FOOTER) {
            o.digest = digest(o.digest, d + pos);
            o.stats.frames++;
            pos += BW_RBSM_MSG_LEN;
            synced = true;
            continue;
        }
        if (synced)
            o.stats.length_errors++;
        synced = false;
        o.stats.skipped_bytes++;
        pos++;
    }
    if (pos < size && synced)
        o.stats.length_errors++;
    o.stats.skipped_bytes += size - pos;
    return o;
}

static void check_frame(const bw_rbsm_frame_t *f)
{
    uint8_t w[BW_RBSM_MSG_LEN], again[BW_RBSM_MSG_LEN];
    CHECK(bw_rbsm_encode(w, sizeof w, f->id, f->word) == 6);
    bw_rbsm_frame_t g;
    CHECK(bw_rbsm_decode_frame(w, 6, &g) == 0 && g.id == f->id && g.word == f->word);
    bw_rbsm_msg_t m;
    int rc = bw_rbsm_decode(f, &m);
    CHECK(rc == (bw_rbsm_known(f->id) ? 0 : BW_EUNKNOWN));
    CHECK(m.id == f->id && m.layout == bw_rbsm_layout(f->id));
    if (m.layout == BW_RBSM_UNSIGNED)
        CHECK(m.value >= 0 && m.value <= (int64_t)UINT32_MAX);
    else
        CHECK(m.value >= INT32_MIN && m.value <= INT32_MAX);
    if (m.layout != BW_RBSM_COMMAND)
        CHECK(m.angle == 0 && m.brake == 0 && m.spare == 0);
    CHECK(bw_rbsm_encode_msg(again, sizeof again, &m) == 6);
    CHECK(memcmp(w, again, sizeof w) == 0);
}

/* Feeds d in reads whose sizes `cut` chooses; returns what came out. */
static outcome_t stream(uint32_t cut, const uint8_t *d, size_t size)
{
    bw_rbsm_parser_t p;
    bw_rbsm_parser_init(&p);
    outcome_t o = { 14695981039346656037u, { 0 } };
    size_t fed = 0, in_frames = 0;
    for (size_t off = 0; off < size;) {
        cut = cut * 1103515245u + 12345u;
        size_t chunk = (cut >> 16) % 24; /* empty reads too */
        if (chunk > size - off)
            chunk = size - off;
        const uint8_t *in = d + off;
        size_t n = chunk;
        off += chunk;
        fed += chunk;
        bw_rbsm_frame_t f;
        int rc;
        while ((rc = bw_rbsm_parse(&p, &in, &n, &f)) != 0) {
            CHECK(rc == 1 || rc == BW_ELENGTH);
            CHECK(in + n == d + off);
            if (rc == 1) {
                in_frames += BW_RBSM_MSG_LEN;
                /* The message is the input bytes that end here. */
                size_t end = p.stats.skipped_bytes + in_frames;
                uint8_t w[BW_RBSM_MSG_LEN];
                CHECK(bw_rbsm_encode(w, sizeof w, f.id, f.word) == 6);
                CHECK(memcmp(w, d + end - BW_RBSM_MSG_LEN, sizeof w) == 0);
                o.digest = digest(o.digest, w);
                check_frame(&f);
            }
            CHECK(p.held < BW_RBSM_MSG_LEN);
            CHECK(fed - n == in_frames + p.stats.skipped_bytes + p.held);
        }
        CHECK(n == 0);
        CHECK(p.held < BW_RBSM_MSG_LEN);
        CHECK(fed == in_frames + p.stats.skipped_bytes + p.held);
        CHECK(p.stats.frames * BW_RBSM_MSG_LEN == in_frames);
    }
    int rc = bw_rbsm_parser_finish(&p);
    CHECK(rc == 0 || rc == BW_ETRUNC);
    CHECK(p.held == 0 && !p.synced);
    CHECK(fed == in_frames + p.stats.skipped_bytes);
    CHECK(p.stats.checksum_errors == 0 && p.stats.unknown == 0);
    CHECK(bw_rbsm_parser_finish(&p) == 0);
    o.stats = p.stats;
    return o;
}

static void check_msg(const uint8_t *d, size_t size)
{
    if (size < 12)
        return;
    bw_rbsm_msg_t m;
    bw_rbsm_msg_init(&m, d[0]);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | d[1 + i];
    m.value = (int64_t)v;
    m.angle = (int16_t)(uint16_t)((unsigned)d[9] << 8 | d[10]);
    m.brake = d[11];
    m.spare = (uint8_t)(d[11] ^ 0x5A);
    bw_rbsm_frame_t f;
    int rc = bw_rbsm_frame_of(&m, &f);
    bw_rbsm_layout_t l = bw_rbsm_layout(m.id);
    bool fits = l == BW_RBSM_COMMAND ||
                (l == BW_RBSM_SIGNED ? m.value >= INT32_MIN && m.value <= INT32_MAX
                                     : m.value >= 0 && m.value <= (int64_t)UINT32_MAX);
    CHECK(rc == (fits ? 0 : BW_ERANGE));
    if (!fits)
        return;
    bw_rbsm_msg_t back;
    bw_rbsm_decode(&f, &back);
    CHECK(back.id == m.id);
    if (l == BW_RBSM_COMMAND)
        CHECK(back.angle == m.angle && back.brake == m.brake && back.spare == m.spare &&
              back.value == (int32_t)bw_rbsm_command_word(m.angle, m.brake, m.spare));
    else
        CHECK(back.value == m.value);
}

static void check_names(const uint8_t *d, size_t size)
{
    char s[40];
    size_t n = size < sizeof s - 1 ? size : sizeof s - 1;
    memcpy(s, d, n);
    s[n] = 0;
    int id = bw_rbsm_id(s);
    CHECK(id == BW_EUNKNOWN || (id >= 0 && id <= 255));
    if (id >= 0) {
        CHECK(strcmp(bw_rbsm_name((uint8_t)id), "unknown") != 0);
        CHECK(bw_rbsm_id(bw_rbsm_name((uint8_t)id)) == id);
    }
    if (size) {
        const char *name = bw_rbsm_name(d[0]);
        CHECK(name != NULL);
        int back = bw_rbsm_id(name);
        CHECK(strcmp(name, "unknown") == 0 ? back == BW_EUNKNOWN : back == d[0]);
    }
}

static void check_units(const uint8_t *d, size_t size)
{
    if (size < 9)
        return;
    double rad;
    memcpy(&rad, d, sizeof rad); /* any bit pattern: NaN, infinities too */
    bw_rbsm_variant_t v = { (uint8_t)(d[8] & 1), (uint8_t)(d[8] >> 1 & 1) };
    int32_t w;
    int16_t a;
    int rc = bw_rbsm_steer_from_rad(v, rad, &w);
    CHECK(rc == 0 || rc == BW_ERANGE);
    if (rc == 0) {
        /* Within half a wire unit, allowing for rounding of the product. */
        double back = bw_rbsm_steer_to_rad(v, w);
        double unit = bw_rbsm_steer_to_rad(v, 1);
        double diff = back > rad ? back - rad : rad - back;
        double mag = rad < 0 ? -rad : rad;
        CHECK(diff <= 0.5 * unit + mag * 1e-12);
    }
    rc = bw_rbsm_command_angle_from_rad(v, rad, &a);
    CHECK(rc == 0 || rc == BW_ERANGE);
    bw_rbsm_msg_t m;
    rc = bw_rbsm_command_from(v, rad, d[8] & 4, &m);
    CHECK(rc == 0 || rc == BW_ERANGE);
    CHECK(m.id == BW_RBSM_MID_MEGA_COMMAND && m.angle == a);
    CHECK(bw_rbsm_brake_engaged(v, m.brake) == ((d[8] & 4) != 0));
}

/* The host driver on a port pair: the bytes in reads of 1..64, 1..20 ms
 * apart, as the cut says. */
static void check_driver(uint32_t cut, const uint8_t *data, size_t size)
{
    bw_port_t *near, *far;
    bw_base_t *b;
    char err[128];
    CHECK(bw_port_pair(&near, &far, 1 << 16) == 0);
    CHECK(bw_base_open_port(&b, "rbsm", near, NULL, 0, err, sizeof err) == 0);
    const bw_base_state_t *st = bw_base_state(b);
    double now = 0;
    uint8_t sink[256];
    for (size_t i = 0; i < size;) {
        cut = cut * 1103515245u + 12345u;
        size_t n = 1 + (cut >> 16) % 64;
        if (n > size - i)
            n = size - i;
        CHECK(bw_port_write(far, data + i, n) == (int)n);
        i += n;
        now += (1 + (cut >> 8) % 20) / 1000.0;
        bw_base_poll(b, now);
        while (bw_port_read(far, sink, sizeof sink) > 0) {
        }
        CHECK(isfinite(st->pose.x) && isfinite(st->pose.y) && isfinite(st->pose.theta));
        CHECK(isfinite(st->w) && st->v >= 0 && st->v <= 50);
    }
    bw_base_close(b, now);
    bw_port_close(far);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* The first byte chooses how the rest is cut into reads. */
    uint32_t cut = data[0] * 2654435761u + 1;
    data++;
    size--;

    outcome_t want = model(data, size);
    outcome_t cut_reads = stream(cut, data, size);
    outcome_t other_cuts = stream(cut ^ 0x9E3779B9u, data, size);
    CHECK(memcmp(&want.stats, &cut_reads.stats, sizeof want.stats) == 0);
    CHECK(want.digest == cut_reads.digest);
    CHECK(memcmp(&want.stats, &other_cuts.stats, sizeof want.stats) == 0);
    CHECK(want.digest == other_cuts.digest);

    /* All in a single read. */
    bw_rbsm_parser_t p;
    bw_rbsm_parser_init(&p);
    const uint8_t *in = data;
    size_t n = size;
    bw_rbsm_frame_t f;
    uint64_t h = 14695981039346656037u;
    int rc;
    while ((rc = bw_rbsm_parse(&p, &in, &n, &f)) != 0) {
        if (rc == 1) {
            uint8_t w[BW_RBSM_MSG_LEN];
            bw_rbsm_encode(w, sizeof w, f.id, f.word);
            h = digest(h, w);
        }
    }
    bw_rbsm_parser_finish(&p);
    CHECK(h == want.digest);
    CHECK(memcmp(&p.stats, &want.stats, sizeof p.stats) == 0);

    /* The one-message decoder on the raw bytes. */
    bw_rbsm_frame_t g;
    rc = bw_rbsm_decode_frame(data, size, &g);
    if (size < 6)
        CHECK(rc == BW_ETRUNC);
    else if (size > 6 || data[5] != BW_RBSM_FOOTER)
        CHECK(rc == BW_ELENGTH);
    else
        CHECK(rc == 0 && g.id == data[0] && g.word == bw_get_be32(data + 1));

    check_msg(data, size);
    check_names(data, size);
    check_units(data, size);
    check_driver(cut, data, size);
    return 0;
}
