/* `botwire demo`: the main job of `make demo`. */
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: botwire demo [--seconds S]\n"
               "\n"
               "Generates S seconds (default 2) of Kobuki feedback as a robot sends it at\n"
               "50 Hz, damages it the way a noisy link does (garbage, a corrupted frame, a\n"
               "truncated tail), decodes it and prints what came through.\n");
}

int cmd_demo(int argc, char **argv)
{
    double seconds = 2.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            char *end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds >= 0.1 && seconds <= 3600)) {
                cli_error("demo", "--seconds must be a number in [0.1, 3600]");
                return 2;
            }
            continue;
        }
        cli_error("demo", "unexpected argument \"%s\"", argv[i]);
        usage(stderr);
        return 2;
    }
    unsigned frames = (unsigned)(seconds * 50.0 + 0.5);
    size_t cap = (size_t)frames * BW_KOBUKI_MAX_FRAME + 64;
    uint8_t *clean = malloc(cap), *noisy = malloc(cap + 64);
    if (!clean || !noisy) {
        cli_error("demo", "out of memory");
        return 1;
    }
    size_t len = bench_kobuki_stream(clean, cap, frames, 7);

    /* Garbage in front, a flipped byte in the third frame, a false header,
     * and the stream cut in the middle of its last frame. */
    static const uint8_t garbage[] = { 0x00, 0xAA, 0x13, 0xAA, 0xAA, 0x55, 0x01, 0x42 };
    size_t n = 0;
    memcpy(noisy, garbage, sizeof garbage);
    n += sizeof garbage;
    memcpy(noisy + n, clean, len - 40);
    noisy[n + 2 * (len / frames) + 20] ^= 0x10;
    n += len - 40;

    printf("botwire demo: %u Kobuki feedback frames (%.1f s at 50 Hz, %zu bytes), sent over a\n"
           "noisy link: %zu garbage bytes, one corrupted frame, the stream cut mid-frame.\n\n",
           frames, seconds, len, sizeof garbage);

    bw_kobuki_parser_t p;
    bw_kobuki_parser_init(&p);
    unsigned long counts[BW_KOBUKI_TYPE_COUNT] = { 0 };
    bw_kobuki_basic_sensor_data_t first = { 0 }, last = { 0 };
    int16_t angle = 0;
    int32_t dl = 0, dr = 0;
    const uint8_t *d = noisy;
    size_t left = n;
    bw_kobuki_frame_t f;
    int rc;
    bool ended = false;
    for (;;) {
        rc = ended ? bw_kobuki_parser_finish(&p, &f) : bw_kobuki_parse(&p, &d, &left, &f);
        if (rc == 0 && !ended) {
            ended = true; /* end of the stream: what is held may still hold a frame */
            continue;
        }
        if (rc == 0)
            break;
        if (rc < 0)
            continue;
        bw_kobuki_iter_t it;
        bw_kobuki_msg_t m;
        bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_ROBOT, &p.stats);
        while (bw_kobuki_iter_next(&it, &m) > 0) {
            counts[m.type]++;
            if (m.type == BW_KOBUKI_BASIC_SENSOR_DATA) {
                if (counts[m.type] == 1)
                    first = last = m.u.basic_sensor_data;
                dl += bw_wrap_delta16(m.u.basic_sensor_data.left_encoder, last.left_encoder);
                dr += bw_wrap_delta16(m.u.basic_sensor_data.right_encoder, last.right_encoder);
                last = m.u.basic_sensor_data;
            } else if (m.type == BW_KOBUKI_INERTIAL_SENSOR) {
                angle = m.u.inertial_sensor.angle;
            }
        }
    }

    printf("  %-24s %s\n", "message", "count");
    for (unsigned t = 1; t < BW_KOBUKI_TYPE_COUNT; t++)
        if (counts[t])
            printf("  %-24s %lu\n", bw_kobuki_type_name((bw_kobuki_type_t)t), counts[t]);
    printf("\n  robot time      %u ms .. %u ms\n", first.timestamp, last.timestamp);
    printf("  wheel travel    left %.3f m, right %.3f m (right encoder wrapped at 16 bits)\n",
           bw_kobuki_ticks_to_m(dl), bw_kobuki_ticks_to_m(dr));
    printf("  heading         %.2f deg (inertial sensor)\n", angle / 100.0);
    printf("  battery         %.1f V\n", last.battery / 10.0);
    printf("\n  parser: frames %llu, checksum errors %llu, length errors %llu, "
           "skipped bytes %llu, unknown %llu\n",
           (unsigned long long)p.stats.frames, (unsigned long long)p.stats.checksum_errors,
           (unsigned long long)p.stats.length_errors, (unsigned long long)p.stats.skipped_bytes,
           (unsigned long long)p.stats.unknown);
    printf("  every byte accounted for: %zu in = %llu in frames + %llu skipped\n", n,
           (unsigned long long)(n - p.stats.skipped_bytes), (unsigned long long)p.stats.skipped_bytes);
    free(clean);
    free(noisy);
    return 0;
}
