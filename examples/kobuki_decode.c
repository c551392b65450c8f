/* Decodes Kobuki bytes with the installed botwire library.
 * Build: cc kobuki_decode.c $(pkg-config --cflags --libs botwire) */
#include <botwire/botwire.h>
#include <stdio.h>

int main(void)
{
    /* Two Base Control frames (the second cut in two), with a corrupted frame
     * and line noise between them. */
    static const uint8_t part1[] = { 0x00, 0xAA, 0x55, 0x06, 0x01, 0x04, 0x64, 0x00, 0x00, 0x00,
                                     0x67, 0xAA, 0x55, 0x06, 0x01, 0x04, 0x64, 0x00, 0x00, 0x00,
                                     0x66, 0xAA, 0x55, 0x06, 0x01 };
    static const uint8_t part2[] = { 0x04, 0x9C, 0xFF, 0x00, 0x00, 0x60 };
    const uint8_t *parts[] = { part1, part2 };
    size_t sizes[] = { sizeof part1, sizeof part2 };

    bw_kobuki_parser_t parser;
    bw_kobuki_parser_init(&parser);
    for (int i = 0; i < 2; i++) {
        const uint8_t *data = parts[i];
        size_t len = sizes[i];
        bw_kobuki_frame_t frame;
        int rc;
        while ((rc = bw_kobuki_parse(&parser, &data, &len, &frame)) != 0) {
            if (rc < 0) {
                printf("rejected: %s\n", bw_strerror(rc));
                continue;
            }
            bw_kobuki_iter_t it;
            bw_kobuki_msg_t msg;
            bw_kobuki_iter_init(&it, &frame, BW_KOBUKI_FROM_HOST, &parser.stats);
            while (bw_kobuki_iter_next(&it, &msg) > 0)
                if (msg.type == BW_KOBUKI_BASE_CONTROL)
                    printf("base_control speed=%d radius=%d\n", msg.u.base_control.speed,
                           msg.u.base_control.radius);
        }
    }
    printf("frames=%llu checksum_errors=%llu skipped_bytes=%llu\n",
           (unsigned long long)parser.stats.frames,
           (unsigned long long)parser.stats.checksum_errors,
           (unsigned long long)parser.stats.skipped_bytes);
    return 0;
}
