/* A generated Kobuki feedback stream, for benchmarks and the early demo. */
#include "bench.h"

#include "botwire/kobuki.h"

static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

size_t bench_kobuki_stream(uint8_t *buf, size_t cap, unsigned frames, uint32_t seed)
{
    uint32_t rng = seed ? seed : 1;
    size_t len = 0;
    uint16_t enc_l = 1000, enc_r = 64000; /* right wraps within a few seconds */
    uint8_t gyro_id = 0;
    for (unsigned i = 0; i < frames; i++) {
        bw_kobuki_msg_t m[7];
        bw_kobuki_msg_init(&m[0], BW_KOBUKI_BASIC_SENSOR_DATA);
        bw_kobuki_basic_sensor_data_t *b = &m[0].u.basic_sensor_data;
        b->timestamp = (uint16_t)(i * 20u);
        enc_l = (uint16_t)(enc_l + 23 + next_rand(&rng) % 3);
        enc_r = (uint16_t)(enc_r + 23 + next_rand(&rng) % 3);
        b->left_encoder = enc_l;
        b->right_encoder = enc_r;
        b->left_pwm = 40;
        b->right_pwm = 41;
        b->battery = (uint8_t)(165 - i / 3000u % 30u);
        bw_kobuki_msg_init(&m[1], BW_KOBUKI_DOCKING_IR);
        bw_kobuki_msg_init(&m[2], BW_KOBUKI_INERTIAL_SENSOR);
        m[2].u.inertial_sensor.angle = (int16_t)(next_rand(&rng) % 200u);
        m[2].u.inertial_sensor.angle_rate = (int16_t)((int)(next_rand(&rng) % 11u) - 5);
        bw_kobuki_msg_init(&m[3], BW_KOBUKI_CLIFF);
        m[3].u.cliff.right = (uint16_t)(2000 + next_rand(&rng) % 50u);
        m[3].u.cliff.central = (uint16_t)(2010 + next_rand(&rng) % 50u);
        m[3].u.cliff.left = (uint16_t)(1990 + next_rand(&rng) % 50u);
        bw_kobuki_msg_init(&m[4], BW_KOBUKI_CURRENT);
        m[4].u.current.left = 12;
        m[4].u.current.right = 13;
        bw_kobuki_msg_init(&m[5], BW_KOBUKI_RAW_GYRO);
        bw_kobuki_raw_gyro_t *g = &m[5].u.raw_gyro;
        g->count = (uint8_t)(2 + i % 2);
        g->frame_id = gyro_id;
        gyro_id = (uint8_t)(gyro_id + g->count);
        for (unsigned s = 0; s < g->count; s++)
            for (unsigned a = 0; a < 3; a++)
                g->samples[s][a] = (int16_t)((int)(next_rand(&rng) % 64u) - 32);
        bw_kobuki_msg_init(&m[6], BW_KOBUKI_GENERAL_PURPOSE_INPUT);
        for (unsigned c = 0; c < 4; c++)
            m[6].u.general_purpose_input.analog[c] = (uint16_t)(next_rand(&rng) % 4096u);
        int n = bw_kobuki_encode_frame(buf + len, cap - len, m, 7);
        if (n < 0)
            break;
        len += (size_t)n;
    }
    return len;
}
