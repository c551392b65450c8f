/* The Create's Open Interface: the stream parser over the emulated Create's
 * group 6 stream (every 15 ms), as a host sees it. */
#include "bench.h"
#include "botwire/create.h"

/* Framing and checksum only, or decoding every frame's packets too. */
static uint64_t pass(const uint8_t *stream, size_t len, uint64_t *frames, bool decode)
{
    bw_create_stream_parser_t p;
    bw_create_stream_parser_init(&p, BW_CREATE_SUM_WITH_HEADER);
    uint64_t sum = 0;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off;
        size_t n = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
        bw_create_stream_frame_t f;
        bw_create_sensors_t s;
        int rc;
        while ((rc = bw_create_stream_parse(&p, &d, &n, &f)) != 0) {
            if (rc < 0)
                continue;
            if (!decode)
                sum += f.len;
            else if (bw_create_decode_stream(&f, &s) >= 0)
                /* Touch a decoded value so the work cannot be optimised away. */
                sum += (uint16_t)s.voltage + (uint16_t)s.distance;
        }
    }
    *frames += p.stats.frames;
    return sum;
}

const bench_proto_t bench_create = {
    .name = "create",
    .sim_url = "sim:create",
    .capture_seconds = 300, /* 20 000 frames, 1.1 MB */
    .own = pass,
};
