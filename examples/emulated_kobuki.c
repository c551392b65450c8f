/* An emulated robot alone (botwire/device.h): a Kobuki's device side in its
 * simulated room, fed a Base Control frame the host would send, stepped
 * for a second, its feedback parsed with the same codec.
 * Build: cc emulated_kobuki.c $(pkg-config --cflags --libs botwire) */
#include <botwire/botwire.h>
#include <stdio.h>

int main(void)
{
    char err[256];
    bw_device_t *dev;
    if (bw_device_create(&dev, "kobuki", NULL, 0.0, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    bw_kobuki_msg_t cmd;
    bw_kobuki_msg_init(&cmd, BW_KOBUKI_BASE_CONTROL);
    cmd.u.base_control = bw_kobuki_base_control_from_twist(0.1, 0); /* 0.1 m/s */
    uint8_t frame[BW_KOBUKI_MAX_FRAME];
    int n = bw_kobuki_encode_frame(frame, sizeof frame, &cmd, 1);
    bw_device_input(dev, frame, (size_t)n, 0.0);

    bw_kobuki_parser_t parser;
    bw_kobuki_parser_init(&parser);
    unsigned feedback = 0;
    for (int step = 1; step <= 100; step++) {
        double now = step * 0.01;
        bw_device_input(dev, frame, (size_t)n, now); /* the host renews it */
        bw_device_step(dev, now);
        uint8_t out[4096];
        size_t len = bw_device_output(dev, out, sizeof out);
        const uint8_t *p = out;
        bw_kobuki_frame_t f;
        while (bw_kobuki_parse(&parser, &p, &len, &f) > 0)
            feedback++;
    }
    const bw_sim_t *sim = bw_device_sim(dev);
    printf("%u feedback frames; the robot truly at x %.2f m\n", feedback, sim->body.pose.x);
    bw_device_destroy(dev);
    return 0;
}
