/* Kobuki: the parser over the emulated robot's 50 Hz feedback. */
#include "bench.h"
#include "botwire/kobuki.h"

static uint64_t run_decode(const void *ctx, const uint8_t *stream, size_t len, uint64_t *frames)
{
    (void)ctx;
    bw_kobuki_parser_t p;
    bw_kobuki_parser_init(&p);
    uint64_t sum = 0;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off;
        size_t n = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
        bw_kobuki_frame_t f;
        int rc;
        while ((rc = bw_kobuki_parse(&p, &d, &n, &f)) != 0) {
            if (rc < 0)
                continue;
            bw_kobuki_iter_t it;
            bw_kobuki_msg_t m;
            bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_ROBOT, &p.stats);
            while (bw_kobuki_iter_next(&it, &m) > 0) {
                /* Touch a decoded value so the work cannot be optimised away. */
                if (m.type == BW_KOBUKI_BASIC_SENSOR_DATA)
                    sum += m.u.basic_sensor_data.left_encoder;
                else if (m.type == BW_KOBUKI_RAW_GYRO)
                    sum += (uint64_t)(uint16_t)m.u.raw_gyro.samples[0][2];
                else
                    sum += m.type;
            }
        }
    }
    *frames += p.stats.frames;
    return sum;
}

const bench_proto_t bench_kobuki = {
    .name = "kobuki",
    .sim_url = "sim:kobuki",
    .capture_seconds = 1000, /* 50 000 frames, about 4 MB */
    .framing = bw_kobuki_framing,
    .decode = run_decode,
};
