/* rflex's device side (the base): commands in, system reports out. */
#include "botwire/rflex.h"
#include "common.h"

int main(void)
{
    static bw_rflex_parser_t parser;
    bw_rflex_parser_init(&parser);
    for (;;) {
        uint8_t in[16];
        size_t n = size_read(in, sizeof in);
        const uint8_t *d = in;
        bw_rflex_frame_t f;
        bw_rflex_msg_t m;
        int32_t vel = 0;
        while (bw_rflex_parse(&parser, &d, &n, &f) > 0)
            if (bw_rflex_decode(&f, &m) == 0 && m.type == BW_RFLEX_MOT_SET_DIR)
                vel = bw_rflex_set_dir_velocity(&m.u.mot_set_dir);
        bw_rflex_msg_init(&m, BW_RFLEX_MOT_SYSTEM_REPORT);
        m.u.mot_system_report.velocity = vel;
        uint8_t out[40];
        int k = bw_rflex_encode_frame(out, sizeof out, &m);
        if (k > 0)
            size_write(out, (size_t)k);
    }
}
