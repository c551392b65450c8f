/* P2OS: the parser over the emulated Pioneer's SIPs (10 Hz, four sonar
 * readings each, as it drives squares), and over SIPs of 0, 8 and 16
 * readings with the fields later firmware adds, as a host sees them. */
#include "bench.h"
#include "botwire/p2os.h"

static uint64_t run_decode(const void *ctx, const uint8_t *stream, size_t len, bench_count_t *n)
{
    (void)ctx;
    bw_p2os_parser_t p;
    bw_p2os_parser_init(&p);
    uint64_t sum = 0;
    bw_p2os_msg_t m;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off;
        size_t k = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
        bw_p2os_frame_t f;
        int rc;
        while ((rc = bw_p2os_parse(&p, &d, &k, &f)) != 0) {
            if (rc < 0 || bw_p2os_decode(BW_P2OS_FROM_ROBOT, f.body, f.len, &m) < 0)
                continue;
            /* Touch a decoded value so the work cannot be optimised away. */
            sum += m.type == BW_P2OS_SIP ? m.u.sip.xpos + m.u.sip.nsonar : m.type;
        }
    }
    n->frames += p.stats.frames;
    n->messages += p.stats.frames;
    return sum;
}

/* Bytes ARCOS sends after digout (battery voltage x10, charge stage,
 * rotational velocity, fault flags): kept as the SIP's extra bytes. */
static const uint8_t arcos_extra[] = { 0x82, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };

/* Each recorded SIP again with `nsonar` readings (the recorded ones, then
 * the next sonar numbers with the same ranges), all four trailing fields
 * and the bytes ARCOS adds after them. */
static int rebuild(const uint8_t *rec, size_t len, bench_buf_t *out, unsigned nsonar)
{
    bw_p2os_parser_t p;
    bw_p2os_parser_init(&p);
    bw_p2os_frame_t f;
    bw_p2os_msg_t m;
    unsigned next = 0;
    int rc;
    while ((rc = bw_p2os_parse(&p, &rec, &len, &f)) != 0) {
        if (rc < 0 || bw_p2os_decode(BW_P2OS_FROM_ROBOT, f.body, f.len, &m) < 0)
            return -1;
        if (m.type != BW_P2OS_SIP)
            continue;
        bw_p2os_sip_t *s = &m.u.sip;
        for (unsigned i = 0; i < nsonar; i++, next = (next + 1) % 16) {
            s->sonar[i].number = (uint8_t)next;
            s->sonar[i].range = (uint16_t)(s->nsonar ? s->sonar[i % s->nsonar].range : 5000);
        }
        s->nsonar = (uint8_t)nsonar;
        s->ntrailing = 4;
        s->timer = (uint16_t)(s->xpos * 7u);
        s->analog = 128;
        s->digin = 0x0F;
        s->digout = 0x00;
        s->nextra = sizeof arcos_extra;
        s->extra = arcos_extra;
        uint8_t buf[BW_P2OS_MAX_FRAME];
        int k = bw_p2os_encode_frame(buf, sizeof buf, &m);
        if (k < 0)
            return -1;
        bench_buf_add(out, buf, (size_t)k);
    }
    return 0;
}

static int build_sip0(const uint8_t *rec, size_t len, bench_buf_t *out)
{
    return rebuild(rec, len, out, 0);
}

static int build_sip8(const uint8_t *rec, size_t len, bench_buf_t *out)
{
    return rebuild(rec, len, out, 8);
}

static int build_sip16(const uint8_t *rec, size_t len, bench_buf_t *out)
{
    return rebuild(rec, len, out, 16);
}

static const bench_shape_t shapes[] = {
    { "squares", "the emulated Pioneer's SIPs, four sonar readings each", NULL,
      0, NULL },
    { "sip0", "SIPs of no sonar reading, trailing fields, ARCOS's 7 bytes", NULL, 0,
      build_sip0 },
    { "sip8", "SIPs of 8 sonar readings, trailing fields, ARCOS's 7 bytes", NULL, 0,
      build_sip8 },
    { "sip16", "SIPs of 16 sonar readings, trailing fields, ARCOS's 7 bytes", NULL, 0,
      build_sip16 },
};

const bench_proto_t bench_p2os = {
    .name = "p2os",
    .sim_url = "sim:p2os",
    .capture_seconds = 3000, /* 30 000 SIPs, about 1 MB */
    .framing = bw_p2os_framing,
    .decode = run_decode,
    .shapes = shapes,
    .nshapes = sizeof shapes / sizeof shapes[0],
};
