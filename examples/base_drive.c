/* The robot API (botwire/base.h): an emulated Kobuki in this process, in
 * virtual time, driven 2 s at 0.2 m/s and stopped; the same calls drive a
 * real one ("kobuki:/dev/ttyUSB0", with a monotonic clock for now).
 * Build: cc base_drive.c $(pkg-config --cflags --libs botwire) */
#include <botwire/botwire.h>
#include <stdio.h>

int main(void)
{
    char err[256];
    double now = 0; /* virtual time: the caller's clock, in seconds */
    bw_base_t *b;
    if (bw_base_open(&b, "sim:kobuki", NULL, now, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (int step = 0; step <= 300; step++) { /* 10 ms steps */
        now = step * 0.01;
        /* A real loop waits for bw_base_fd(b) or bw_base_next_deadline(b). */
        bw_base_drive(b, now < 2.0 ? 0.2 : 0, 0, now);
        bw_base_poll(b, now);
        bw_event_t ev;
        while (bw_base_next_event(b, &ev))
            printf("%.2f s: %s\n", ev.t, bw_event_name(ev.type));
    }
    const bw_base_state_t *s = bw_base_state(b);
    printf("x %.2f m, v %.2f m/s, online %d\n", s->pose.x, s->v, s->online);
    bw_base_close(b, now); /* stops the robot */
    return 0;
}
