/* One hour of robot time: the emulated Kobuki and the driver, through the
 * protocol, in virtual time, driving squares. */
#include "bench.h"
#include "botwire/botwire.h"

double bench_kobuki_hour(double robot_seconds)
{
    bw_base_t *b;
    char err[256];
    if (bw_base_open(&b, "sim:kobuki", NULL, 0.0, err, sizeof err) < 0)
        return -1;
    const bw_base_state_t *st = bw_base_state(b);
    double t0 = bench_now(), now = 0, v, w;
    bw_square_t sq;
    bw_square_init(&sq, st->pose, 1.0, 0.3, 1.0);
    while (now < robot_seconds) {
        if (!bw_square_step(&sq, st->pose, &v, &w))
            bw_square_init(&sq, st->pose, 1.0, 0.3, 1.0);
        bw_base_drive(b, v, w, now);
        now = bw_base_next_deadline(b);
        bw_base_poll(b, now);
    }
    double wall = bench_now() - t0;
    bool ok = st->online && st->link.frames >= (uint64_t)(robot_seconds * 49);
    bw_base_close(b, now);
    return ok ? wall : -1;
}
