/* The GRL layer (botwire/behave.h): the wander behaviour stack on an
 * emulated Pioneer, one simulated minute in virtual time.
 * Build: cc wander.c $(pkg-config --cflags --libs botwire) */
#include <botwire/botwire.h>
#include <math.h>
#include <stdio.h>

int main(void)
{
    char err[256];
    double now = 0;
    bw_base_t *b;
    if (bw_base_open(&b, "sim:p2os", NULL, now, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    bw_grl_t g;
    bw_grl_init(&g, b);
    static bw_wander_t w; /* large: its memory of the pings */
    bw_wander_init(&w, &g, 1, 0.3);
    double travelled = 0;
    bw_pose_t last = bw_base_state(b)->pose;
    unsigned bumps = 0;
    for (int step = 0; step < 6000; step++) { /* 10 ms steps */
        now = step * 0.01;
        bw_base_poll(b, now);
        bw_event_t ev;
        while (bw_base_next_event(b, &ev))
            bumps += ev.type == BW_EV_BUMP && ev.on;
        if (step % 5 == 0) { /* a behaviour tick every 50 ms */
            g.now = now;
            bw_wander_tick(&w);
        }
        const bw_pose_t *p = &bw_base_state(b)->pose;
        travelled += hypot(p->x - last.x, p->y - last.y);
        last = *p;
    }
    printf("60 s of wander: %.1f m by odometry, %u bumps\n", travelled, bumps);
    bw_base_close(b, now);
    return 0;
}
