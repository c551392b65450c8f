/* The live view when the tool is built without libwebsockets: every way in
 * says so, once. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "view.h"

int cli_view_open(cli_view_t **view, const cli_view_options_t *opt, char *err, size_t errlen)
{
    (void)opt;
    *view = NULL;
    snprintf(err, errlen, "this botwire was built without the live view (libwebsockets-dev was "
                          "missing: scripts/deps.sh installs it, then rebuild)");
    return -1;
}
const char *cli_view_url(const cli_view_t *view) { (void)view; return ""; }
int cli_view_add_base(cli_view_t *view, bw_base_t *base, const char *url, bool steer, double now)
{
    (void)view, (void)base, (void)url, (void)steer, (void)now;
    return -1;
}
int cli_view_add_device(cli_view_t *view, bw_device_t *dev, const char *name)
{
    (void)view, (void)dev, (void)name;
    return -1;
}
void cli_view_set_world(cli_view_t *view, const bw_world_t *world) { (void)view, (void)world; }
void cli_view_start(cli_view_t *view) { (void)view; }
int cli_view_fd(const cli_view_t *view) { (void)view; return -1; }
double cli_view_next_deadline(const cli_view_t *view) { (void)view; return INFINITY; }
void cli_view_wait(const cli_view_t *view, int fd, double until)
{
    (void)view;
    cli_wait(fd, until);
}
void cli_view_service(cli_view_t *view, double now) { (void)view, (void)now; }
bool cli_view_teleop(cli_view_t *view, int i, double now, double *v, double *w, uint64_t *seq)
{
    (void)view, (void)i, (void)now, (void)v, (void)w;
    if (seq)
        *seq = 0;
    return false;
}
void cli_view_stats(const cli_view_t *view, cli_view_stats_t *out)
{
    (void)view;
    memset(out, 0, sizeof *out);
}
void cli_view_close(cli_view_t *view) { (void)view; }
