/* RBSM: the receiver over the emulated buggy's telemetry (the Mega's and the
 * encoder's messages every 10 ms), as a host sees it. */
#include "bench.h"
#include "botwire/rbsm.h"

/* Framing only (the footer rule), or decoding every message too. */
static uint64_t pass(const uint8_t *stream, size_t len, bench_count_t *count, bool decode)
{
    bw_rbsm_parser_t p;
    bw_rbsm_parser_init(&p);
    uint64_t sum = 0;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off;
        size_t n = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
        bw_rbsm_frame_t f;
        bw_rbsm_msg_t m;
        int rc;
        while ((rc = bw_rbsm_parse(&p, &d, &n, &f)) != 0) {
            if (rc < 0)
                continue;
            if (!decode)
                sum += f.word;
            else if (bw_rbsm_decode(&f, &m) == 0)
                /* Touch a decoded value so the work cannot be optimised away. */
                sum += (uint64_t)m.value + m.layout;
        }
    }
    count->frames += p.stats.frames;
    count->messages += p.stats.frames;
    return sum;
}

static const bench_shape_t shapes[] = {
    { "telemetry", "the buggy's deployed telemetry cycle, every 10 ms", NULL, 0, NULL },
};

const bench_proto_t bench_rbsm = {
    .name = "rbsm",
    .sim_url = "sim:rbsm",
    .capture_seconds = 200, /* 180 000 messages, 1.1 MB */
    .own = pass,
    .shapes = shapes,
    .nshapes = sizeof shapes / sizeof shapes[0],
};
