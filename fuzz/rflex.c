/*
 * libFuzzer harness for the rflex parser, decoder and encoder.
 *
 * Invariants checked (docs/parser-invariants.md): the stream invariants of
 * stream_check.h, and:
 *  - decoding gives 0 or BW_ELENGTH, keeps the header bytes, and an unknown
 *    or rejected message points at the frame's own data;
 *  - a known type decodes only from its (port, opcode), a fixed layout only
 *    from its exact length, a sonar report only from 8 + 3n bytes;
 *  - encode(decode(frame)) gives the frame back byte for byte (there is no
 *    lossy form), decoding that again gives the same type and result, and
 *    the message framed parses back whole in one call.
 */
#include "botwire/rflex.h"
#include "stream_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_frame(const bw_rflex_frame_t *f)
{
    bw_rflex_msg_t m;
    int rc = bw_rflex_decode(f, &m);
    CHECK(rc == 0 || rc == BW_ELENGTH);
    CHECK(m.port == f->port && m.id == f->id && m.opcode == f->opcode && m.length == f->len);
    bw_rflex_type_t t = bw_rflex_type_of(f->port, f->opcode, f->len);
    if (rc < 0) {
        CHECK(t != BW_RFLEX_UNKNOWN);
        CHECK(m.type == BW_RFLEX_UNKNOWN && m.u.unknown.data == f->data);
    } else {
        CHECK(m.type == t);
        if (t == BW_RFLEX_UNKNOWN)
            CHECK(m.u.unknown.data == f->data);
    }
    if (m.type != BW_RFLEX_UNKNOWN) {
        CHECK(bw_rflex_type_port(m.type) == f->port && bw_rflex_type_opcode(m.type) == f->opcode);
        const bw_msgdesc_t *d = bw_rflex_desc(m.type);
        if (d)
            CHECK(d->wire_len == f->len);
        if (m.type == BW_RFLEX_SONAR_REPORT)
            CHECK(m.u.sonar_report.count <= BW_RFLEX_MAX_SONAR &&
                  8u + 3u * m.u.sonar_report.count == f->len);
        if (m.type == BW_RFLEX_IR_REPORT)
            CHECK(1u + m.u.ir_report.nbytes == f->len);
    }

    /* Byte for byte back, as data and as a frame. */
    uint8_t a[BW_RFLEX_MAX_FRAME], b[BW_RFLEX_MAX_FRAME];
    int na = bw_rflex_encode_data(a, sizeof a, &m);
    CHECK(na == (int)f->len && (na == 0 || memcmp(a, f->data, (size_t)na) == 0));
    int nf = bw_rflex_encode_frame(b, sizeof b, &m);
    CHECK(nf == na + (int)BW_RFLEX_OVERHEAD);
    CHECK(b[0] == 0x1B && b[1] == 0x02 && b[2] == f->port && b[3] == f->id &&
          b[4] == f->opcode && b[5] == f->len);
    CHECK(memcmp(b + 6, a, (size_t)na) == 0);
    CHECK(b[nf - 2] == 0x1B && b[nf - 1] == 0x03 && bw_xor8(b + 2, (size_t)nf - 4) == 0);

    /* Framed, it parses back whole in one call, and decodes the same way. */
    bw_rflex_parser_t p;
    bw_rflex_frame_t g;
    const uint8_t *d = b;
    size_t n = (size_t)nf;
    bw_rflex_parser_init(&p);
    if (bw_framer_embeds(bw_rflex_framing(), b, (size_t)nf))
        return; /* read as the frame it embeds, by design */
    CHECK(bw_rflex_parse(&p, &d, &n, &g) == 1);
    CHECK(n == 0 && g.data == b + 6 && g.len == f->len && g.port == f->port && g.id == f->id &&
          g.opcode == f->opcode);
    bw_rflex_msg_t again;
    CHECK(bw_rflex_decode(&g, &again) == rc);
    CHECK(again.type == m.type);
    int nb = bw_rflex_encode_data(a, sizeof a, &again);
    CHECK(nb == na && memcmp(a, b + 6, (size_t)na) == 0);
}

static void on_frame(const uint8_t *frame, size_t size, void *ctx)
{
    (void)ctx;
    CHECK(size == (size_t)frame[5] + BW_RFLEX_OVERHEAD);
    bw_rflex_frame_t f = { frame[2], frame[3], frame[4], frame[5], frame + 6 };
    check_frame(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* The first byte chooses how the rest is cut into reads. */
    fuzz_stream(bw_rflex_framing(), data[0] * 2654435761u + 1, data + 1, size - 1, on_frame, NULL);
    data++;
    size--;

    /* The decoder on its own, with no checksum in the way: the first three
     * bytes are port, id and opcode, the rest (up to 255) the data. */
    if (size >= 3) {
        size_t len = size - 3 > BW_RFLEX_MAX_DATA ? BW_RFLEX_MAX_DATA : size - 3;
        bw_rflex_frame_t f = { data[0], data[1], data[2], (uint8_t)len, data + 3 };
        check_frame(&f);
    }
    return 0;
}
