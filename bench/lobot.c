/* lobot: the ACK parser over the emulated Command Module's output (READY
 * and the 53-byte SENSORS every cycle), as a host sees it. */
#include "bench.h"
#include "botwire/lobot.h"

/* Framing only, or framing and decoding every ACK. */
static uint64_t pass(const uint8_t *stream, size_t len, bench_count_t *count, bool decode)
{
    bw_lobot_ack_parser_t p;
    bw_lobot_ack_parser_init(&p);
    uint64_t sum = 0;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off;
        size_t n = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
        bw_lobot_ack_frame_t f;
        bw_lobot_ack_t a;
        while (bw_lobot_ack_parse(&p, &d, &n, &f) > 0) {
            if (!decode)
                sum += f.len;
            else if (bw_lobot_decode_ack(f.id, f.data, f.len, &a) == 0)
                /* Touch a decoded value so the work cannot be optimised away. */
                sum += a.id == BW_LOBOT_ACK_SENSORS ? (uint16_t)a.u.sensors.oi.voltage : a.id;
        }
    }
    count->frames += p.stats.frames;
    count->messages += p.stats.frames;
    return sum;
}

static const bench_shape_t shapes[] = {
    { "sensors", "READY and the 53-byte SENSORS every cycle", NULL, 0, NULL },
};

const bench_proto_t bench_lobot = {
    .name = "lobot",
    .sim_url = "sim:lobot",
    .capture_seconds = 1000, /* about 20 000 cycles, 1.1 MB */
    .own = pass,
    .shapes = shapes,
    .nshapes = sizeof shapes / sizeof shapes[0],
};
