/*
 * libFuzzer harness for the P2OS parser, decoder and encoder.
 *
 * Invariants checked (docs/parser-invariants.md): the stream invariants of
 * stream_check.h, and:
 *  - decoding, from either side, stays inside the body, and any pointer it
 *    returns points into the body;
 *  - encode(decode(body)) gives the body back byte for byte (but for the one
 *    lossy form, an 0x1B argument of magnitude 0), decoding that again gives
 *    the same result, and the message framed parses back whole.
 */
#include "botwire/p2os.h"
#include "stream_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool inside(const uint8_t *p, size_t n, const uint8_t *body, size_t len)
{
    return p >= body && p + n <= body + len;
}

static void check_body(const uint8_t *body, size_t len, bw_p2os_dir_t dir)
{
    bw_p2os_msg_t m;
    int rc = bw_p2os_decode(dir, body, len, &m);
    CHECK(rc == 0 || rc == BW_ELENGTH);
    if (len == 0 || len > BW_P2OS_MAX_BODY) {
        CHECK(rc == BW_ELENGTH && m.type == BW_P2OS_UNKNOWN);
        return;
    }
    CHECK(m.id == body[0] && m.length == len);
    if (dir == BW_P2OS_FROM_HOST)
        CHECK(m.type == (rc == 0 ? BW_P2OS_COMMAND : BW_P2OS_UNKNOWN));
    switch (m.type) {
    case BW_P2OS_UNKNOWN: CHECK(m.u.unknown.data == body); break;
    case BW_P2OS_SIP:
        CHECK(m.u.sip.nsonar <= BW_P2OS_MAX_SONAR && m.u.sip.ntrailing <= 4);
        if (m.u.sip.nextra)
            CHECK(m.u.sip.extra + m.u.sip.nextra == body + len &&
                  inside(m.u.sip.extra, m.u.sip.nextra, body, len));
        break;
    case BW_P2OS_CONFIG_PAC:
        CHECK(m.u.config.nfields <= BW_P2OS_CONFIG_FIELDS);
        if (m.u.config.nextra)
            CHECK(m.u.config.extra + m.u.config.nextra == body + len &&
                  inside(m.u.config.extra, m.u.config.nextra, body, len));
        break;
    case BW_P2OS_SIMSTAT_PAC:
        CHECK(m.u.simstat.nfields <= BW_P2OS_SIMSTAT_FIELDS);
        if (m.u.simstat.nextra)
            CHECK(m.u.simstat.extra + m.u.simstat.nextra == body + len &&
                  inside(m.u.simstat.extra, m.u.simstat.nextra, body, len));
        break;
    case BW_P2OS_COMMAND:
        CHECK(m.u.command.argkind <= BW_P2OS_RAWARG);
        if (m.u.command.nextra)
            CHECK(m.u.command.extra + m.u.command.nextra == body + len &&
                  inside(m.u.command.extra, m.u.command.nextra, body, len));
        break;
    default: break;
    }

    uint8_t a[BW_P2OS_MAX_FRAME], b[BW_P2OS_MAX_FRAME];
    int na = bw_p2os_encode_body(a, sizeof a, &m);
    bool negzero = dir == BW_P2OS_FROM_HOST && rc == 0 && len >= 4 &&
                   body[1] == BW_P2OS_ARG_NEGINT && body[2] == 0 && body[3] == 0;
    if (!negzero)
        CHECK(na == (int)len && memcmp(a, body, len) == 0);
    CHECK(na > 0);
    bw_p2os_msg_t again;
    CHECK(bw_p2os_decode(dir, a, (size_t)na, &again) == rc);
    CHECK(again.type == m.type);
    int nb = bw_p2os_encode_body(b, sizeof b, &again);
    CHECK(nb == na && memcmp(a, b, (size_t)na) == 0);

    /* Framed, it parses back whole in one call. */
    uint8_t fr[BW_P2OS_MAX_FRAME];
    int nf = bw_p2os_encode_frame(fr, sizeof fr, &m);
    CHECK(nf == na + 5);
    bw_p2os_parser_t p;
    bw_p2os_frame_t g;
    const uint8_t *d = fr;
    size_t n = (size_t)nf;
    bw_p2os_parser_init(&p);
    if (bw_framer_embeds(bw_p2os_framing(), fr, (size_t)nf))
        return; /* read as the frame it embeds, by design */
    CHECK(bw_p2os_parse(&p, &d, &n, &g) == 1);
    CHECK(n == 0 && g.len == na && memcmp(g.body, a, (size_t)na) == 0);
}

static void on_frame(const uint8_t *frame, size_t size, void *ctx)
{
    (void)ctx;
    check_body(frame + 3, size - 5, BW_P2OS_FROM_ROBOT);
    check_body(frame + 3, size - 5, BW_P2OS_FROM_HOST);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* The first byte chooses how the rest is cut into reads. */
    fuzz_stream(bw_p2os_framing(), data[0] * 2654435761u + 1, data + 1, size - 1, on_frame, NULL);
    data++;
    size--;

    /* The decoder on its own, with no checksum in the way. */
    check_body(data, size, BW_P2OS_FROM_ROBOT);
    check_body(data, size, BW_P2OS_FROM_HOST);
    size_t body = size > BW_P2OS_MAX_BODY ? BW_P2OS_MAX_BODY : size;
    check_body(data, body, BW_P2OS_FROM_ROBOT);
    check_body(data, body, BW_P2OS_FROM_HOST);
    return 0;
}
