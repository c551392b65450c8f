/* RBSM's device side (the Mega): messages in, telemetry out. */
#include "botwire/rbsm.h"
#include "common.h"

int main(void)
{
    static bw_rbsm_parser_t parser;
    bw_rbsm_parser_init(&parser);
    for (;;) {
        uint8_t in[16];
        size_t n = size_read(in, sizeof in);
        const uint8_t *d = in;
        bw_rbsm_frame_t f;
        uint32_t steer = 0;
        while (bw_rbsm_parse(&parser, &d, &n, &f) > 0) {
            bw_rbsm_msg_t m;
            if (bw_rbsm_decode(&f, &m) == 0 && m.id == BW_RBSM_MID_MEGA_COMMAND)
                steer = (uint32_t)m.angle;
        }
        uint8_t out[6];
        if (bw_rbsm_encode(out, sizeof out, BW_RBSM_MID_MEGA_STEER_FEEDBACK, steer) == 6)
            size_write(out, 6);
    }
}
