/* rflex: the shared framer over the emulated B21r's reports (both axes
 * every 100 ms, a sonar report every 30 ms), as a host sees them. */
#include "bench.h"
#include "botwire/rflex.h"

static uint64_t run_decode(const void *ctx, const uint8_t *stream, size_t len,
                           bench_count_t *count)
{
    (void)ctx;
    bw_rflex_parser_t p;
    bw_rflex_parser_init(&p);
    uint64_t sum = 0;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off;
        size_t n = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
        bw_rflex_frame_t f;
        bw_rflex_msg_t m;
        int rc;
        while ((rc = bw_rflex_parse(&p, &d, &n, &f)) != 0) {
            if (rc < 0 || bw_rflex_decode(&f, &m) < 0)
                continue;
            /* Touch a decoded value so the work cannot be optimised away. */
            sum += m.type == BW_RFLEX_SONAR_REPORT ? m.u.sonar_report.readings[0].range
                   : m.type == BW_RFLEX_MOT_SYSTEM_REPORT ? (uint32_t)m.u.mot_system_report.position
                                                           : m.type;
        }
    }
    count->frames += p.stats.frames;
    count->messages += p.stats.frames;
    return sum;
}

static const bench_shape_t shapes[] = {
    { "b21r", "B21r: MOT system, sonar, IR and bump reports mixed", NULL, 0, NULL },
};

const bench_proto_t bench_rflex = {
    .name = "rflex",
    .sim_url = "sim:rflex",
    .capture_seconds = 2000, /* 20 000 reports of each axis, 67 000 sonar reports, 2.2 MB */
    .framing = bw_rflex_framing,
    .decode = run_decode,
    .shapes = shapes,
    .nshapes = sizeof shapes / sizeof shapes[0],
};
