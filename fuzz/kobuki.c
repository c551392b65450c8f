/*
 * libFuzzer harness for the Kobuki parser, decoder and encoder.
 *
 * Invariants checked (docs/parser-invariants.md): the stream invariants of
 * stream_check.h, and:
 *  - the sub-payload walk never reads outside the frame and always ends;
 *  - a decoded message re-encodes, and decoding that gives the same bytes
 *    again (encode . decode is idempotent);
 *  - a frame built by the writer from decoded messages parses back whole.
 */
#include "botwire/kobuki.h"
#include "stream_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
        /* (unless its bytes embed a frame and the next header: then it is
         * read as what it embeds, by design) */
        if (bw_framer_embeds(bw_kobuki_framing(), out, (size_t)len))
            return;
        CHECK(bw_kobuki_parse(&p, &d, &n, &g) == 1);
        CHECK(n == 0 && g.len == (size_t)len - 4);
    }
}

static void on_frame(const uint8_t *frame, size_t size, void *ctx)
{
    (void)ctx;
    bw_kobuki_frame_t f = { frame + 3, (uint8_t)(size - 4) };
    walk(&f, BW_KOBUKI_FROM_ROBOT);
    walk(&f, BW_KOBUKI_FROM_HOST);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* The first byte chooses how the rest is cut into reads. */
    fuzz_stream(bw_kobuki_framing(), data[0] * 2654435761u + 1, data + 1, size - 1, on_frame, NULL);
    data++;
    size--;

    /* The decoder on its own, with no checksum in the way. */
    bw_kobuki_frame_t raw = { data, (uint8_t)(size > 255 ? 255 : size) };
    walk(&raw, BW_KOBUKI_FROM_ROBOT);
    walk(&raw, BW_KOBUKI_FROM_HOST);
    return 0;
}
