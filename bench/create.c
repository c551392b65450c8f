/* The Create's Open Interface: the stream parser over the Stream frames a
 * host asks for, as it sees them: the emulated Create's group 6 (what
 * botwire's driver streams, every 15 ms), the packet list libcreate
 * streams, every packet alone, and a Create 2's group 100. */
#include <string.h>

#include "bench.h"
#include "botwire/create.h"

/* Framing and checksum only, or decoding every frame's packets too. */
static uint64_t pass(const uint8_t *stream, size_t len, bench_count_t *n, bool decode)
{
    bw_create_stream_parser_t p;
    bw_create_stream_parser_init(&p, BW_CREATE_SUM_WITH_HEADER);
    uint64_t sum = 0, packets = 0;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off;
        size_t k = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
        bw_create_stream_frame_t f;
        bw_create_sensors_t s;
        int rc;
        while ((rc = bw_create_stream_parse(&p, &d, &k, &f)) != 0) {
            if (rc < 0)
                continue;
            if (!decode) {
                sum += f.len;
            } else if ((rc = bw_create_decode_stream(&f, &s)) >= 0) {
                /* Touch a decoded value so the work cannot be optimised away. */
                sum += (uint16_t)s.voltage + (uint16_t)s.distance;
                packets += (uint64_t)rc;
            }
        }
    }
    n->frames += p.stats.frames;
    n->messages += decode ? packets : p.stats.frames;
    return sum;
}

/* Every recorded frame's values again, as Stream frames of ids[0..nids)
 * (nids 0: one frame for each packet 7..last in turn). */
static int rebuild(const uint8_t *rec, size_t len, bench_buf_t *out, bw_create_model_t model,
                   const uint8_t *ids, size_t nids, uint8_t last)
{
    bw_create_stream_parser_t p;
    bw_create_stream_parser_init(&p, BW_CREATE_SUM_WITH_HEADER);
    bw_create_stream_parser_model(&p, model);
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    bw_create_stream_frame_t f;
    uint8_t buf[BW_CREATE_MAX_FRAME];
    int rc;
    while ((rc = bw_create_stream_parse(&p, &rec, &len, &f)) != 0) {
        if (rc < 0 || bw_create_decode_stream(&f, &s) < 0)
            return -1;
        if (nids) {
            int k = bw_create_model_encode_stream(model, buf, sizeof buf, ids, nids, &s,
                                                  BW_CREATE_SUM_WITH_HEADER);
            if (k < 0)
                return -1;
            bench_buf_add(out, buf, (size_t)k);
            continue;
        }
        for (uint8_t id = 7; id <= last; id++) {
            int k = bw_create_model_encode_stream(model, buf, sizeof buf, &id, 1, &s,
                                                  BW_CREATE_SUM_WITH_HEADER);
            if (k < 0)
                return -1;
            bench_buf_add(out, buf, (size_t)k);
        }
    }
    return 0;
}

/* libcreate's list (its data.cpp asks a Create 1 for these 20 packets in
 * one Stream): bumps and drops to dirt detect, IR to battery capacity, OI
 * mode. */
static const uint8_t libcreate_ids[] = { 7,  8,  9,  10, 11, 12, 13, 14, 15, 17,
                                         18, 19, 20, 21, 22, 23, 24, 25, 26, 35 };

static int build_libcreate(const uint8_t *rec, size_t len, bench_buf_t *out)
{
    return rebuild(rec, len, out, BW_CREATE_MODEL_1, libcreate_ids, sizeof libcreate_ids, 0);
}

static int build_singles(const uint8_t *rec, size_t len, bench_buf_t *out)
{
    return rebuild(rec, len, out, BW_CREATE_MODEL_2, NULL, 0, BW_CREATE2_LAST_VALUE);
}

static const bench_shape_t shapes[] = {
    { "group6", "group 6 (packets 7..42) every 15 ms, as botwire streams it", NULL, 0,
      NULL },
    { "libcreate", "libcreate's 20 packets (7-15, 17-26, 35) in one frame", NULL, 0,
      build_libcreate },
    { "group100", "a Create 2's group 100 (packets 7..58) every 15 ms", "sim:create?model=create2",
      0, NULL },
    { "singles", "every Create 2 packet (7..58) alone, a frame each",
      "sim:create?model=create2", 60, build_singles },
};

const bench_proto_t bench_create = {
    .name = "create",
    .sim_url = "sim:create",
    .capture_seconds = 300, /* 20 000 frames, 1.1 MB */
    .own = pass,
    .shapes = shapes,
    .nshapes = sizeof shapes / sizeof shapes[0],
};
