/*
 * libFuzzer harness for the iRobot Create OI codec, both directions.
 *
 * Invariants checked (docs/parser-invariants.md), for the command parser
 * (host to Create) and the Stream frame parser (Create to host), under
 * either checksum rule:
 *  - every byte fed is, at every step, in a returned message, counted as
 *    skipped, or held, and nothing is held once the stream is finished;
 *  - reads cut anywhere give the same messages and counters as one read;
 *  - a returned command starts with a Create 1 opcode, decodes, and
 *    re-encodes to the same bytes;
 *  - a returned frame starts with 19, has the size N gives, passes its
 *    checksum and walks as known packets; re-framing its body gives the
 *    same bytes; decode -> encode -> decode -> encode is stable;
 *  - a body decodes to the same count or error and the same values by
 *    bw_create_decode_stream and packet by packet through the catalogue;
 *  - the decoders never crash on any input.
 */
#include <stdlib.h>
#include <string.h>

#include "botwire/create.h"
#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t digest(uint64_t h, const uint8_t *p, size_t n)
{
    h = h * 1099511628211u + n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

static size_t next_chunk(uint32_t *cut, size_t left)
{
    *cut = *cut * 1103515245u + 12345u;
    size_t k = 1 + (*cut >> 16) % 300;
    return k < left ? k : left;
}

static bool inside(const uint8_t *p, size_t n, const uint8_t *base, size_t len)
{
    return p >= base && p + n <= base + len;
}

/* ---- commands ------------------------------------------------------------------- */

/* Whose commands the parsers take this run (the first byte's bit 1). */
static bw_create_model_t model;

static void check_cmd(const uint8_t *b, size_t n)
{
    CHECK(n >= 1 && n <= BW_CREATE_MAX_CMD && bw_create_model_op_name(model, b[0]));
    bw_create_cmd_t c, again;
    CHECK(bw_create_model_decode_cmd(model, b, n, &c) == 0);
    uint8_t w[BW_CREATE_MAX_CMD];
    CHECK(bw_create_encode_cmd(w, sizeof w, &c) == (int)n);
    CHECK(memcmp(w, b, n) == 0);
    CHECK(bw_create_model_decode_cmd(model, w, n, &again) == 0);
    CHECK(memcmp(&c, &again, sizeof c) == 0);
    if (b[0] == BW_CREATE_OP_DRIVE) {
        CHECK(bw_create_encode_drive(w, sizeof w, c.u.drive.velocity, c.u.drive.radius) == 5);
        CHECK(memcmp(w, b, 5) == 0);
    }
    if (b[0] == BW_CREATE_OP_DRIVE_DIRECT) {
        CHECK(bw_create_encode_drive_direct(w, sizeof w, c.u.drive_direct.right,
                                            c.u.drive_direct.left) == 5);
        CHECK(memcmp(w, b, 5) == 0);
    }
}

static uint64_t on_cmd(uint64_t h, const bw_create_cmd_frame_t *c, const bw_create_cmd_parser_t *p,
                       const uint8_t *in, size_t in_len)
{
    CHECK(inside(c->bytes, c->len, in, in_len) || inside(c->bytes, c->len, p->buf, sizeof p->buf));
    check_cmd(c->bytes, c->len);
    return digest(h, c->bytes, c->len);
}

static void cmd_stream(uint32_t cut, const uint8_t *data, size_t size)
{
    bw_create_cmd_parser_t p;
    bw_create_cmd_parser_init(&p);
    bw_create_cmd_parser_model(&p, model);
    static uint32_t tally[256];
    memset(tally, 0, sizeof tally);
    bw_create_cmd_parser_tally(&p, tally);
    uint64_t h = 14695981039346656037u;
    size_t fed = 0, in_cmds = 0;
    bw_create_cmd_frame_t c;
    int rc;
    for (size_t off = 0; off < size;) {
        size_t k = next_chunk(&cut, size - off);
        const uint8_t *d = data + off;
        size_t n = k;
        off += k;
        fed += k;
        while ((rc = bw_create_cmd_parse(&p, &d, &n, &c)) != 0) {
            CHECK(rc == 1 || rc == BW_ELENGTH);
            if (rc == 1) {
                h = on_cmd(h, &c, &p, data + off - k, k);
                in_cmds += c.len;
            }
            CHECK(fed - n == in_cmds + p.stats.skipped_bytes + (size_t)(p.held - p.drop));
        }
        CHECK(n == 0);
    }
    while ((rc = bw_create_cmd_parser_finish(&p, &c)) != 0) {
        CHECK(rc == 1 || rc == BW_ELENGTH);
        if (rc == 1) {
            h = on_cmd(h, &c, &p, data, 0);
            in_cmds += c.len;
        }
    }
    CHECK(p.held == 0);
    CHECK(fed == in_cmds + p.stats.skipped_bytes);
    CHECK(p.stats.unknown <= p.stats.skipped_bytes && p.stats.checksum_errors == 0);
    uint64_t tallied = 0; /* every unknown byte tallied by its value, none an opcode */
    for (unsigned b = 0; b < 256; b++) {
        tallied += tally[b];
        CHECK(!tally[b] || !bw_create_model_op_name(model, (uint8_t)b));
    }
    CHECK(tallied == p.stats.unknown);

    bw_create_cmd_parser_t w;
    bw_create_cmd_parser_init(&w);
    bw_create_cmd_parser_model(&w, model);
    uint64_t whole = 14695981039346656037u;
    const uint8_t *d = data;
    size_t n = size;
    while ((rc = bw_create_cmd_parse(&w, &d, &n, &c)) != 0)
        if (rc == 1)
            whole = on_cmd(whole, &c, &w, data, size);
    while ((rc = bw_create_cmd_parser_finish(&w, &c)) != 0)
        if (rc == 1)
            whole = on_cmd(whole, &c, &w, data, 0);
    CHECK(whole == h);
    CHECK(memcmp(&w.stats, &p.stats, sizeof p.stats) == 0);
}

/* ---- Stream frames --------------------------------------------------------------- */

/* The packet ids of a body that walks, and their number. */
static size_t body_ids(const bw_create_stream_frame_t *f, uint8_t *ids)
{
    size_t off = 0, n = 0;
    uint8_t id;
    const uint8_t *pd;
    int rc;
    while ((rc = bw_create_stream_next(f, &off, &id, &pd)) == 1) {
        CHECK(inside(pd, (size_t)bw_create_model_packet_size((bw_create_model_t)f->model, id),
                     f->body, f->len));
        ids[n++] = id;
    }
    CHECK(rc == 0 && off == f->len);
    return n;
}

static void check_frame(const bw_create_stream_frame_t *f, bw_create_sum_t sum)
{
    const uint8_t *frame = f->body - 2;
    CHECK(frame[0] == BW_CREATE_STREAM_HEADER && frame[1] == f->len);
    CHECK(f->len >= BW_CREATE_MIN_STREAM_BODY);
    /* Re-framed, the same bytes. */
    uint8_t w[BW_CREATE_MAX_FRAME];
    CHECK(bw_create_frame_stream_body(w, sizeof w, f->body, f->len, sum) == f->len + 3);
    CHECK(memcmp(w, frame, (size_t)f->len + 3) == 0);
    /* Decoded and re-encoded from the ids: stable after one round. */
    uint8_t ids[BW_CREATE_MAX_STREAM_BODY];
    size_t n = body_ids(f, ids);
    bw_create_sensors_t s, s2;
    memset(&s, 0, sizeof s);
    CHECK(bw_create_decode_stream(f, &s) == (int)n);
    /* A frame is the model its packets say (the parser takes either's). */
    bw_create_model_t m = (bw_create_model_t)f->model;
    CHECK(m == BW_CREATE_MODEL_1 || m == BW_CREATE_MODEL_2);
    CHECK((m == BW_CREATE_MODEL_2) == (bw_create_encode_stream(w, sizeof w, ids, n, &s, sum) < 0));
    int len = bw_create_model_encode_stream(m, w, sizeof w, ids, n, &s, sum);
    CHECK(len == f->len + 3);
    bw_create_stream_parser_t p;
    bw_create_stream_parser_init(&p, sum);
    const uint8_t *d = w;
    size_t left = (size_t)len;
    bw_create_stream_frame_t g;
    CHECK(bw_create_stream_parse(&p, &d, &left, &g) == 1 && left == 0 && g.len == f->len &&
          g.model == f->model);
    memset(&s2, 0, sizeof s2);
    CHECK(bw_create_decode_stream(&g, &s2) == (int)n);
    CHECK(memcmp(&s, &s2, sizeof s) == 0);
    uint8_t w2[BW_CREATE_MAX_FRAME];
    CHECK(bw_create_model_encode_stream(m, w2, sizeof w2, ids, n, &s2, sum) == len);
    CHECK(memcmp(w, w2, (size_t)len) == 0);
}

static uint64_t on_frame(uint64_t h, const bw_create_stream_frame_t *f,
                         const bw_create_stream_parser_t *p, const uint8_t *in, size_t in_len)
{
    const uint8_t *frame = f->body - 2;
    size_t n = (size_t)f->len + 3;
    CHECK(inside(frame, n, in, in_len) || inside(frame, n, p->buf, sizeof p->buf));
    check_frame(f, (bw_create_sum_t)p->sum);
    return digest(h, frame, n);
}

static void frame_stream(uint32_t cut, bw_create_sum_t sum, const uint8_t *data, size_t size)
{
    bw_create_stream_parser_t p;
    bw_create_stream_parser_init(&p, sum);
    uint64_t h = 14695981039346656037u;
    size_t fed = 0, in_frames = 0;
    bw_create_stream_frame_t f;
    int rc;
    for (size_t off = 0; off < size;) {
        size_t k = next_chunk(&cut, size - off);
        const uint8_t *d = data + off;
        size_t n = k;
        off += k;
        fed += k;
        while ((rc = bw_create_stream_parse(&p, &d, &n, &f)) != 0) {
            CHECK(rc == 1 || rc == BW_ECHECKSUM || rc == BW_ELENGTH || rc == BW_EUNKNOWN);
            if (rc == 1) {
                h = on_frame(h, &f, &p, data + off - k, k);
                in_frames += (size_t)f.len + 3;
            }
            CHECK(fed - n == in_frames + p.stats.skipped_bytes + (size_t)(p.held - p.drop));
        }
        CHECK(n == 0);
    }
    while ((rc = bw_create_stream_parser_finish(&p, &f)) != 0) {
        if (rc == 1) {
            h = on_frame(h, &f, &p, data, 0);
            in_frames += (size_t)f.len + 3;
        }
    }
    CHECK(p.held == 0);
    CHECK(fed == in_frames + p.stats.skipped_bytes);
    CHECK(p.stats.frames * (BW_CREATE_MIN_STREAM_BODY + 3) <= in_frames);

    bw_create_stream_parser_t w;
    bw_create_stream_parser_init(&w, sum);
    uint64_t whole = 14695981039346656037u;
    const uint8_t *d = data;
    size_t n = size;
    while ((rc = bw_create_stream_parse(&w, &d, &n, &f)) != 0)
        if (rc == 1)
            whole = on_frame(whole, &f, &w, data, size);
    while ((rc = bw_create_stream_parser_finish(&w, &f)) != 0)
        if (rc == 1)
            whole = on_frame(whole, &f, &w, data, 0);
    CHECK(whole == h);
    CHECK(memcmp(&w.stats, &p.stats, sizeof p.stats) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* The first byte chooses how the rest is cut into reads, and its low
     * bit the checksum rule. */
    uint32_t cut = data[0] * 2654435761u + 1;
    bw_create_sum_t sum = (data[0] & 1) ? BW_CREATE_SUM_AFTER_HEADER : BW_CREATE_SUM_WITH_HEADER;
    model = (data[0] & 2) ? BW_CREATE_MODEL_2 : BW_CREATE_MODEL_1;
    data++;
    size--;
    cmd_stream(cut, data, size);
    frame_stream(cut, sum, data, size);

    /* The decoders on their own. */
    bw_create_cmd_t c;
    int rc = bw_create_model_decode_cmd(model, data, size, &c);
    CHECK(rc == 0 || rc == BW_EUNKNOWN || rc == BW_ELENGTH);
    if (rc == 0)
        check_cmd(data, size);
    if (size >= 1) {
        bw_create_sensors_t s;
        memset(&s, 0, sizeof s);
        rc = bw_create_decode_packet(data[0], data + 1, size - 1, &s);
        CHECK(rc == 0 || rc == BW_EUNKNOWN || rc == BW_ELENGTH);
        /* The first byte as a count of ids, the next as ids, the rest as
         * the Query List reply. */
        size_t nids = data[0] % 8;
        if (size - 1 >= nids) {
            rc = bw_create_decode_query(data + 1, nids, data + 1 + nids, size - 1 - nids, &s);
            CHECK(rc == 0 || rc == BW_EUNKNOWN || rc == BW_ELENGTH);
            if (rc == 0) {
                uint8_t w[8 * BW_CREATE_GROUP6_SIZE];
                CHECK(bw_create_encode_query(w, sizeof w, data + 1, nids, &s) ==
                      (int)(size - 1 - nids));
            }
        }
        bw_create_stream_frame_t f = { data, (uint8_t)(size > 255 ? 255 : size), BW_CREATE_MODEL_1 };
        rc = bw_create_decode_stream(&f, &s);
        CHECK(rc >= 0 || rc == BW_EUNKNOWN || rc == BW_ETRUNC);
        /* The same body both ways, for each model: the host's walk, and
         * packet by packet through the catalogue, give the same count or
         * error and the same values. */
        for (uint8_t m = 0; m < 3; m++) {
            f.model = m;
            bw_create_sensors_t a, b;
            memset(&a, 0x5A, sizeof a);
            memset(&b, 0x5A, sizeof b);
            int got = bw_create_decode_stream(&f, &a);
            bw_create_model_t pm = m ? BW_CREATE_MODEL_2 : BW_CREATE_MODEL_1;
            size_t off = 0;
            uint8_t id;
            const uint8_t *pd;
            int want = 0, r;
            while ((r = bw_create_stream_next(&f, &off, &id, &pd)) == 1) {
                int psize = bw_create_model_packet_size(pm, id);
                CHECK(bw_create_model_decode_packet(pm, id, pd, (size_t)psize, &b) == 0);
                want++;
            }
            if (r < 0)
                want = r;
            CHECK(got == want);
            CHECK(memcmp(&a, &b, sizeof a) == 0);
        }
    }
    return 0;
}
