/* Kobuki's device side: host commands in, basic sensor data out. */
#include "botwire/kobuki.h"
#include "common.h"

int main(void)
{
    static bw_kobuki_parser_t parser;
    bw_kobuki_parser_init(&parser);
    for (;;) {
        uint8_t in[16];
        size_t n = size_read(in, sizeof in);
        const uint8_t *d = in;
        bw_kobuki_frame_t f;
        int16_t speed = 0;
        while (bw_kobuki_parse(&parser, &d, &n, &f) > 0) {
            bw_kobuki_iter_t it;
            bw_kobuki_msg_t m;
            bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_HOST, &parser.stats);
            while (bw_kobuki_iter_next(&it, &m) > 0)
                if (m.type == BW_KOBUKI_BASE_CONTROL)
                    speed = m.u.base_control.speed;
        }
        bw_kobuki_msg_t fb;
        bw_kobuki_msg_init(&fb, BW_KOBUKI_BASIC_SENSOR_DATA);
        fb.u.basic_sensor_data.left_encoder = (uint16_t)speed;
        uint8_t out[32];
        int k = bw_kobuki_encode_frame(out, sizeof out, &fb, 1);
        if (k > 0)
            size_write(out, (size_t)k);
    }
}
