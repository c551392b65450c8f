/* Kobuki: the parser over the emulated robot's 50 Hz feedback, and over
 * frames with every sub-payload kobuki_core reads. */
#include "bench.h"
#include "botwire/kobuki.h"

static uint64_t run_decode(const void *ctx, const uint8_t *stream, size_t len, bench_count_t *n)
{
    (void)ctx;
    bw_kobuki_parser_t p;
    bw_kobuki_parser_init(&p);
    uint64_t sum = 0, msgs = 0;
    for (size_t off = 0; off < len; off += BENCH_CHUNK) {
        const uint8_t *d = stream + off;
        size_t k = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK;
        bw_kobuki_frame_t f;
        int rc;
        while ((rc = bw_kobuki_parse(&p, &d, &k, &f)) != 0) {
            if (rc < 0)
                continue;
            bw_kobuki_iter_t it;
            bw_kobuki_msg_t m;
            bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_ROBOT, &p.stats);
            while (bw_kobuki_iter_next(&it, &m) > 0) {
                msgs++;
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
    n->frames += p.stats.frames;
    n->messages += msgs;
    return sum;
}

/* Each recorded frame again with the sub-payloads kobuki_core asks for on
 * top of the stream (hardware and firmware version, unique device id,
 * controller info: once at start-up on a robot, here in every frame), so
 * that every sub-payload it reads is decoded in every frame. */
static int build_every(const uint8_t *rec, size_t len, bench_buf_t *out)
{
    bw_kobuki_parser_t p;
    bw_kobuki_parser_init(&p);
    bw_kobuki_frame_t f;
    int rc;
    while ((rc = bw_kobuki_parse(&p, &rec, &len, &f)) != 0) {
        if (rc < 0)
            return -1;
        uint8_t buf[BW_KOBUKI_MAX_FRAME];
        bw_kobuki_writer_t w;
        bw_kobuki_writer_init(&w, buf, sizeof buf);
        bw_kobuki_iter_t it;
        bw_kobuki_msg_t m;
        bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_ROBOT, NULL);
        while (bw_kobuki_iter_next(&it, &m) > 0)
            bw_kobuki_writer_add(&w, &m);
        bw_kobuki_msg_init(&m, BW_KOBUKI_HARDWARE_VERSION);
        m.u.hardware_version = (bw_kobuki_version_t){ 1, 0, 4, false };
        bw_kobuki_writer_add(&w, &m);
        bw_kobuki_msg_init(&m, BW_KOBUKI_FIRMWARE_VERSION);
        m.u.firmware_version = (bw_kobuki_version_t){ 1, 2, 0, false };
        bw_kobuki_writer_add(&w, &m);
        bw_kobuki_msg_init(&m, BW_KOBUKI_UNIQUE_DEVICE_ID);
        m.u.unique_device_id = (bw_kobuki_unique_device_id_t){ 0x0034ff06u, 0x4e4b3036u,
                                                               0x43146057u };
        bw_kobuki_writer_add(&w, &m);
        bw_kobuki_msg_init(&m, BW_KOBUKI_CONTROLLER_INFO);
        m.u.controller_info.gain_type = 1;
        m.u.controller_info.p_gain = 100000;
        m.u.controller_info.i_gain = 100;
        m.u.controller_info.d_gain = 2000;
        bw_kobuki_writer_add(&w, &m);
        int k = bw_kobuki_writer_finish(&w);
        if (k < 0)
            return -1;
        bench_buf_add(out, buf, (size_t)k);
    }
    return 0;
}

static const bench_shape_t shapes[] = {
    { "feedback", "the emulated Kobuki's 50 Hz feedback, 7 sub-payloads a frame", NULL, 0,
      NULL },
    { "every_sub", "the feedback and versions, unique id, controller info a frame", NULL, 0,
      build_every },
};

const bench_proto_t bench_kobuki = {
    .name = "kobuki",
    .sim_url = "sim:kobuki",
    .capture_seconds = 1000, /* 50 000 frames, about 4 MB */
    .framing = bw_kobuki_framing,
    .decode = run_decode,
    .shapes = shapes,
    .nshapes = sizeof shapes / sizeof shapes[0],
};
