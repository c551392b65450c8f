/* The live view when the tool is built without libwebsockets: every way in
 * says so, once. */
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "botwire/view.h"

int bw_view_open(bw_view_t **view, const bw_view_options_t *opt, char *err, size_t errlen)
{
    (void)opt;
    *view = NULL;
    snprintf(err, errlen, "this botwire was built without the live view (libwebsockets-dev was "
                          "missing: scripts/deps.sh installs it, then rebuild)");
    return -1;
}
const char *bw_view_url(const bw_view_t *view) { (void)view; return ""; }
int bw_view_add_base(bw_view_t *view, bw_base_t *base, const char *url, bool steer, double now)
{
    (void)view, (void)base, (void)url, (void)steer, (void)now;
    return -1;
}
int bw_view_add_device(bw_view_t *view, bw_device_t *dev, const char *name)
{
    (void)view, (void)dev, (void)name;
    return -1;
}
void bw_view_set_world(bw_view_t *view, const bw_world_t *world) { (void)view, (void)world; }
void bw_view_start(bw_view_t *view) { (void)view; }
int bw_view_fd(const bw_view_t *view) { (void)view; return -1; }
double bw_view_next_deadline(const bw_view_t *view) { (void)view; return INFINITY; }
void bw_view_wait(const bw_view_t *view, int fd, double until)
{
    (void)view;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double left = until - ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
    if (left <= 0)
        return;
    struct pollfd p = { fd, POLLIN, 0 };
    poll(&p, fd >= 0 ? 1 : 0, (int)ceil(fmin(left, 3600.0) * 1000.0));
}
void bw_view_service(bw_view_t *view, double now) { (void)view, (void)now; }
bool bw_view_teleop(bw_view_t *view, int i, double now, double *v, double *w, uint64_t *seq)
{
    (void)view, (void)i, (void)now, (void)v, (void)w;
    if (seq)
        *seq = 0;
    return false;
}
void bw_view_stats(const bw_view_t *view, bw_view_stats_t *out)
{
    (void)view;
    memset(out, 0, sizeof *out);
}
void bw_view_close(bw_view_t *view) { (void)view; }
