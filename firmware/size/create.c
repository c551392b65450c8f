/* The Create's own side of the Open Interface: commands in, a stream out. */
#include "botwire/create.h"
#include "common.h"

int main(void)
{
    static bw_create_cmd_parser_t parser;
    bw_create_cmd_parser_init(&parser);
    for (;;) {
        uint8_t in[16];
        size_t n = size_read(in, sizeof in);
        const uint8_t *d = in;
        bw_create_cmd_frame_t f = { 0 };
        bw_create_sensors_t s = { 0 };
        while (bw_create_cmd_parse(&parser, &d, &n, &f) > 0) {
            bw_create_cmd_t c;
            if (bw_create_decode_cmd(f.bytes, f.len, &c) == 0 && c.opcode == BW_CREATE_OP_DRIVE)
                s.requested_speed = c.u.drive.velocity;
        }
        static const uint8_t ids[] = { BW_CREATE_GROUP_6 };
        uint8_t out[64];
        int k = bw_create_encode_stream(out, sizeof out, ids, 1, &s, BW_CREATE_SUM_WITH_HEADER);
        if (k > 0)
            size_write(out, (size_t)k);
    }
}
