/* P2OS: the parser over the emulated Pioneer's SIPs (10 Hz, four sonar
 * readings each), as a host sees them. */
#include "bench.h"
#include "botwire/p2os.h"

static uint64_t run_decode(const void *ctx, const uint8_t *stream, size_t len, uint64_t *frames)
{
    (void)ctx;
    bw_p2os_parser_t p;
    bw_p2os_parser_init(&p);
    uint64_t sum = 0;
    bw_p2os_msg_t m;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off;
        size_t n = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
        bw_p2os_frame_t f;
        int rc;
        while ((rc = bw_p2os_parse(&p, &d, &n, &f)) != 0) {
            if (rc < 0 || bw_p2os_decode(BW_P2OS_FROM_ROBOT, f.body, f.len, &m) < 0)
                continue;
            /* Touch a decoded value so the work cannot be optimised away. */
            sum += m.type == BW_P2OS_SIP ? m.u.sip.xpos + m.u.sip.nsonar : m.type;
        }
    }
    *frames += p.stats.frames;
    return sum;
}

const bench_proto_t bench_p2os = {
    .name = "p2os",
    .sim_url = "sim:p2os",
    .capture_seconds = 3000, /* 30 000 SIPs, about 1 MB */
    .framing = bw_p2os_framing,
    .decode = run_decode,
};
