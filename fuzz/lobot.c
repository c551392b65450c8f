/*
 * libFuzzer harness for the lobot codec, both directions.
 *
 * Invariants checked (docs/parser-invariants.md), for the command parser
 * (host to Command Module) and the ACK parser (Command Module to host):
 *  - every byte fed is, at every step, in a returned message, counted as
 *    skipped, or held, and nothing is held once the stream is finished;
 *  - reads cut anywhere give the same messages and counters as one read;
 *  - a returned command re-encodes to four bytes that decode to it again;
 *  - a returned ACK has a known id and its size, its data lies in the input
 *    or the parser, and decode -> encode gives its bytes back (SENSORS bytes
 *    8 and 9, unused, as 0), as the device's table-free encoders do;
 *  - the decoders never crash on any input.
 */
#include <stdlib.h>
#include <string.h>

#include "botwire/lobot.h"
#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t digest(uint64_t h, const uint8_t *p, size_t n)
{
    h = h * 1099511628211u + n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

/* The next read size from a cut pattern. */
static size_t next_chunk(uint32_t *cut, size_t left)
{
    *cut = *cut * 1103515245u + 12345u;
    size_t k = 1 + (*cut >> 16) % 80;
    return k < left ? k : left;
}

/* ---- commands ------------------------------------------------------------------ */

static uint64_t on_cmd(uint64_t h, const bw_lobot_cmd_t *c)
{
    uint8_t w[4];
    CHECK(bw_lobot_encode_cmd(w, sizeof w, c->id, c->param) == 4);
    CHECK(c->known && bw_lobot_cmd_known(c->id)); /* an unknown id is rescanned, never returned */
    bw_lobot_cmd_t again;
    CHECK(bw_lobot_decode_cmd(w, 4, &again) == 0);
    CHECK(again.id == c->id && again.param == c->param && again.known == c->known);
    return digest(h, w, 4);
}

static void cmd_stream(uint32_t cut, const uint8_t *data, size_t size)
{
    bw_lobot_cmd_parser_t p;
    bw_lobot_cmd_parser_init(&p);
    uint64_t h = 14695981039346656037u;
    size_t fed = 0, cmds = 0;
    bw_lobot_cmd_t c;
    int rc;
    for (size_t off = 0; off < size;) {
        size_t k = next_chunk(&cut, size - off);
        const uint8_t *d = data + off;
        size_t n = k;
        off += k;
        fed += k;
        while ((rc = bw_lobot_cmd_parse(&p, &d, &n, &c)) != 0) {
            CHECK(rc == 1 || rc == BW_ECHECKSUM || rc == BW_EUNKNOWN);
            if (rc == 1) {
                cmds++;
                h = on_cmd(h, &c);
            }
            CHECK(p.held < 4);
            CHECK(fed - n == 4 * cmds + p.stats.skipped_bytes + p.held);
        }
        CHECK(n == 0);
    }
    CHECK(bw_lobot_cmd_parser_finish(&p) == 0);
    CHECK(p.held == 0);
    CHECK(fed == 4 * cmds + p.stats.skipped_bytes);
    CHECK(p.stats.frames == cmds);

    bw_lobot_cmd_parser_t w;
    bw_lobot_cmd_parser_init(&w);
    uint64_t whole = 14695981039346656037u;
    const uint8_t *d = data;
    size_t n = size;
    while ((rc = bw_lobot_cmd_parse(&w, &d, &n, &c)) != 0)
        if (rc == 1)
            whole = on_cmd(whole, &c);
    bw_lobot_cmd_parser_finish(&w);
    CHECK(whole == h);
    CHECK(memcmp(&w.stats, &p.stats, sizeof p.stats) == 0);
}

/* ---- acknowledgements ----------------------------------------------------------- */

static void check_ack(const uint8_t *id_and_data, size_t n)
{
    uint8_t id = id_and_data[0];
    const uint8_t *data = id_and_data + 1;
    bw_lobot_ack_t a, again;
    CHECK(bw_lobot_decode_ack(id, data, n - 1, &a) == 0);
    uint8_t w[BW_LOBOT_MAX_ACK], v[BW_LOBOT_MAX_ACK];
    CHECK(bw_lobot_encode_ack(w, sizeof w, &a) == (int)n);
    uint8_t want[BW_LOBOT_MAX_ACK];
    memcpy(want, id_and_data, n);
    if (id == BW_LOBOT_ACK_SENSORS)
        want[1 + 8] = want[1 + 9] = 0;
    CHECK(memcmp(w, want, n) == 0);
    CHECK(bw_lobot_decode_ack(w[0], w + 1, n - 1, &again) == 0);
    CHECK(memcmp(&a, &again, sizeof a) == 0);
    /* The device's encoders give the same bytes. */
    CHECK(bw_lobot_encode_ack_bytes(v, sizeof v, id, data) == (int)n);
    CHECK(memcmp(v, id_and_data, n) == 0);
    if (id == BW_LOBOT_ACK_BUMPS || id == BW_LOBOT_ACK_CLIFFS) {
        const bw_lobot_motion_t *m = id == BW_LOBOT_ACK_BUMPS ? &a.u.bumps : &a.u.cliffs;
        CHECK(bw_lobot_encode_motion(v, sizeof v, id, m->flags, m->distance, m->angle) == 6);
        CHECK(memcmp(v, w, 6) == 0);
    }
    if (id == BW_LOBOT_ACK_SENSORS) {
        memcpy(v + 1, data, BW_CREATE_GROUP6_SIZE);
        CHECK(bw_lobot_encode_sensors_bytes(v, sizeof v, v + 1, data[52]) == 54);
        CHECK(memcmp(v, id_and_data, 54) == 0);
    }
}

static uint64_t on_ack(uint64_t h, const bw_lobot_ack_frame_t *a, const bw_lobot_ack_parser_t *p,
                       const uint8_t *in, size_t in_len)
{
    CHECK(bw_lobot_ack_size(a->id) == a->len);
    bool in_input = a->data >= in && a->data + a->len <= in + in_len;
    bool in_parser = a->data >= p->buf && a->data + a->len <= p->buf + sizeof p->buf;
    CHECK(in_input || in_parser);
    uint8_t w[BW_LOBOT_MAX_ACK];
    w[0] = a->id;
    memcpy(w + 1, a->data, a->len);
    check_ack(w, 1u + a->len);
    return digest(h, w, 1u + a->len);
}

static void ack_stream(uint32_t cut, const uint8_t *data, size_t size)
{
    bw_lobot_ack_parser_t p;
    bw_lobot_ack_parser_init(&p);
    uint64_t h = 14695981039346656037u;
    size_t fed = 0, in_acks = 0;
    bw_lobot_ack_frame_t a;
    int rc;
    for (size_t off = 0; off < size;) {
        size_t k = next_chunk(&cut, size - off);
        const uint8_t *d = data + off;
        size_t n = k;
        off += k;
        fed += k;
        while ((rc = bw_lobot_ack_parse(&p, &d, &n, &a)) != 0) {
            CHECK(rc == 1);
            h = on_ack(h, &a, &p, data + off - k, k);
            in_acks += 1u + a.len;
            CHECK(fed - n == in_acks + p.stats.skipped_bytes + (size_t)(p.held - p.drop));
        }
        CHECK(n == 0);
    }
    while ((rc = bw_lobot_ack_parser_finish(&p, &a)) != 0) {
        CHECK(rc == 1);
        h = on_ack(h, &a, &p, data, 0);
        in_acks += 1u + a.len;
    }
    CHECK(p.held == 0);
    CHECK(fed == in_acks + p.stats.skipped_bytes);
    CHECK(p.stats.checksum_errors == 0 && p.stats.unknown == 0);

    bw_lobot_ack_parser_t w;
    bw_lobot_ack_parser_init(&w);
    uint64_t whole = 14695981039346656037u;
    const uint8_t *d = data;
    size_t n = size;
    while (bw_lobot_ack_parse(&w, &d, &n, &a) == 1)
        whole = on_ack(whole, &a, &w, data, size);
    while (bw_lobot_ack_parser_finish(&w, &a) == 1)
        whole = on_ack(whole, &a, &w, data, 0);
    CHECK(whole == h);
    CHECK(memcmp(&w.stats, &p.stats, sizeof p.stats) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* The first byte chooses how the rest is cut into reads. */
    uint32_t cut = data[0] * 2654435761u + 1;
    data++;
    size--;
    cmd_stream(cut, data, size);
    ack_stream(cut, data, size);

    /* The decoders on their own. */
    bw_lobot_cmd_t c;
    int rc = bw_lobot_decode_cmd(data, size, &c);
    CHECK(size == 4 ? rc == 0 || rc == BW_ECHECKSUM || rc == BW_EUNKNOWN : rc == BW_ELENGTH);
    if (size >= 1) {
        bw_lobot_ack_t a;
        rc = bw_lobot_decode_ack(data[0], data + 1, size - 1, &a);
        CHECK(rc == 0 || rc == BW_ELENGTH || rc == BW_EUNKNOWN);
        if (rc == 0)
            check_ack(data, size);
    }
    return 0;
}
