/* lobot's device side: the Command Module's codec, commands in, SENSORS
 * and READY out (the program around it is firmware/lobot-cm's). */
#include "botwire/lobot.h"
#include "common.h"

int main(void)
{
    static bw_lobot_cmd_parser_t parser;
    bw_lobot_cmd_parser_init(&parser);
    uint8_t group6[BW_LOBOT_SENSORS_SIZE - 1] = { 0 };
    for (;;) {
        uint8_t in[8];
        size_t n = size_read(in, sizeof in);
        const uint8_t *d = in;
        bw_lobot_cmd_t c;
        while (bw_lobot_cmd_parse(&parser, &d, &n, &c) > 0)
            group6[0] = c.id;
        uint8_t out[BW_LOBOT_SENSORS_SIZE + 1];
        if (bw_lobot_encode_sensors_bytes(out, sizeof out, group6, true) > 0)
            size_write(out, sizeof out);
    }
}
