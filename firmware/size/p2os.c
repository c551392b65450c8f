/* P2OS's device side: commands in, SIPs out. */
#include "botwire/p2os.h"
#include "common.h"

int main(void)
{
    static bw_p2os_parser_t parser;
    bw_p2os_parser_init(&parser);
    for (;;) {
        uint8_t in[16];
        size_t n = size_read(in, sizeof in);
        const uint8_t *d = in;
        bw_p2os_frame_t f;
        bw_p2os_msg_t m;
        int16_t vel = 0;
        while (bw_p2os_parse(&parser, &d, &n, &f) > 0)
            if (bw_p2os_decode(BW_P2OS_FROM_HOST, f.body, f.len, &m) == 0 && m.type == BW_P2OS_COMMAND)
                vel = (int16_t)m.u.command.value;
        bw_p2os_msg_init(&m, BW_P2OS_SIP);
        m.u.sip.lvel = vel;
        uint8_t out[64];
        int k = bw_p2os_encode_sip_frame(out, sizeof out, &m);
        if (k > 0)
            size_write(out, (size_t)k);
    }
}
