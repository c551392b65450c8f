/*
 * libFuzzer harness for the Kobuki parser, decoder and encoder.
 *
 * Invariants checked (docs/parser-invariants.md):
 *  - every byte fed is, at every step, in an accepted frame, counted as
 *    skipped, or held by the parser, and nothing is held once finished;
 *  - an accepted frame has a good checksum and a legal length;
 *  - the sub-payload walk never reads outside the frame and always ends;
 *  - a decoded message re-encodes, and decoding that gives the same bytes
 *    again (encode . decode is idempotent);
 *  - a frame built by the writer from decoded messages parses back whole.
 */
#include <stdlib.h>
#include <string.h>

#include "botwire/kobuki.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)          \
    do {                  \
        if (!(c))         \
            abort();      \
    } while (0)

/* rc: what decoding m originally returned (0, or BW_ELENGTH for a mis-sized
 * sub-payload, which must come back the same way). */
static void check_roundtrip(const bw_kobuki_msg_t *m, bw_kobuki_dir_t dir, int rc)
{
    uint8_t a[BW_KOBUKI_MAX_FRAME], b[BW_KOBUKI_MAX_FRAME];
    int na = bw_kobuki_encode_sub(a, sizeof a, m);
    CHECK(na >= 2);
    bw_kobuki_msg_t again;
    CHECK(bw_kobuki_decode(dir, a[0], a + 2, a[1], &again) == rc);
    CHECK(again.type == m->type);
    int nb = bw_kobuki_encode_sub(b, sizeof b, &again);
    CHECK(nb == na && memcmp(a, b, (size_t)na) == 0);
}

static void walk(const bw_kobuki_frame_t *f, bw_kobuki_dir_t dir)
{
    bw_parse_stats_t st = { 0 };
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t m[8];
    size_t nm = 0, steps = 0;
    int rc;
    bw_kobuki_iter_init(&it, f, dir, &st);
    while ((rc = bw_kobuki_iter_next(&it, &m[nm < 8 ? nm : 7])) != 0) {
        CHECK(++steps <= f->len);
        CHECK(it.off <= it.len);
        if (rc == BW_ETRUNC)
            break;
        bw_kobuki_msg_t *cur = &m[nm < 8 ? nm : 7];
        if (cur->type == BW_KOBUKI_UNKNOWN) {
            CHECK(cur->u.unknown.data >= f->payload &&
                  cur->u.unknown.data + cur->length <= f->payload + f->len);
        }
        check_roundtrip(cur, dir, rc == BW_ELENGTH ? BW_ELENGTH : 0);
        if (nm < 8)
            nm++;
    }
    /* Rebuild a frame from what decoded and parse it back. */
    uint8_t out[BW_KOBUKI_MAX_FRAME];
    int len = bw_kobuki_encode_frame(out, sizeof out, m, nm);
    if (len > 0) {
        bw_kobuki_parser_t p;
        bw_kobuki_frame_t g;
        const uint8_t *d = out;
        size_t n = (size_t)len;
        bw_kobuki_parser_init(&p);
        CHECK(bw_kobuki_parse(&p, &d, &n, &g) == 1);
        CHECK(n == 0 && g.len == (size_t)len - 4);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* The first byte chooses how the rest is cut into reads. */
    uint32_t cut = data[0] * 2654435761u + 1;
    data++;
    size--;

    bw_kobuki_parser_t p;
    bw_kobuki_parser_init(&p);
    size_t fed = 0, in_frames = 0;
    for (size_t off = 0; off < size;) {
        cut = cut * 1103515245u + 12345u;
        size_t chunk = 1 + (cut >> 16) % 300;
        if (chunk > size - off)
            chunk = size - off;
        const uint8_t *d = data + off;
        size_t n = chunk;
        off += chunk;
        fed += chunk;
        bw_kobuki_frame_t f;
        int rc;
        while ((rc = bw_kobuki_parse(&p, &d, &n, &f)) != 0) {
            CHECK(rc == 1 || rc == BW_ECHECKSUM || rc == BW_ELENGTH);
            if (rc != 1)
                continue;
            CHECK(f.len >= BW_KOBUKI_MIN_PAYLOAD);
            CHECK(bw_xor8(f.payload, f.len) == (uint8_t)(f.payload[f.len] ^ f.len));
            in_frames += (size_t)f.len + 4;
            walk(&f, BW_KOBUKI_FROM_ROBOT);
            walk(&f, BW_KOBUKI_FROM_HOST);
        }
        CHECK(n == 0);
        CHECK(fed == in_frames + p.stats.skipped_bytes + (size_t)(p.held - p.drop));
    }
    bw_kobuki_frame_t f;
    int rc;
    while ((rc = bw_kobuki_parser_finish(&p, &f)) != 0)
        if (rc == 1)
            in_frames += (size_t)f.len + 4;
    CHECK(p.held == 0);
    CHECK(fed == in_frames + p.stats.skipped_bytes);

    /* The decoder on its own, with no checksum in the way. */
    bw_kobuki_frame_t raw = { data, (uint8_t)(size > 255 ? 255 : size) };
    walk(&raw, BW_KOBUKI_FROM_ROBOT);
    walk(&raw, BW_KOBUKI_FROM_HOST);
    return 0;
}
