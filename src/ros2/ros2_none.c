/* The ROS 2 node when the tool is built without Cyclone DDS: every way in
 * says so. */
#include <stdio.h>
#include <string.h>

#include "botwire/ros2.h"

int bw_ros2_open(bw_ros2_t **node, const bw_ros2_options_t *opt, char *err, size_t errlen)
{
    (void)opt;
    *node = NULL;
    snprintf(err, errlen, "this botwire was built without ROS 2 (cyclonedds-dev and "
                          "cyclonedds-tools were missing: scripts/deps.sh installs them, then "
                          "rebuild)");
    return BW_ENOTSUP;
}
int bw_ros2_add(bw_ros2_t *node, bw_base_t *base, const char *ns, const char *frame_prefix,
                const char *url, char *err, size_t errlen)
{
    (void)node, (void)base, (void)ns, (void)frame_prefix, (void)url;
    snprintf(err, errlen, "this botwire was built without ROS 2");
    return BW_ENOTSUP;
}
void bw_ros2_step(bw_ros2_t *node, double now) { (void)node, (void)now; }
bool bw_ros2_commanded(const bw_ros2_t *node, size_t i) { return (void)node, (void)i, false; }
void bw_ros2_stats(const bw_ros2_t *node, bw_ros2_stats_t *stats)
{
    (void)node;
    memset(stats, 0, sizeof *stats);
}
void bw_ros2_close(bw_ros2_t *node, double now) { (void)node, (void)now; }
int bw_ros2_domain(const bw_ros2_t *node)
{
    (void)node;
    return 0;
}
int bw_ros2_cdr_open(bw_ros2_cdr_t **view, bw_base_t *base, const char *ns, const char *url,
                     const bw_ros2_options_t *opt, bw_ros2_cdr_fn fn, void *ctx, char *err,
                     size_t errlen)
{
    (void)base, (void)ns, (void)url, (void)opt, (void)fn, (void)ctx;
    *view = NULL;
    snprintf(err, errlen, "this botwire was built without ROS 2");
    return BW_ENOTSUP;
}
void bw_ros2_cdr_step(bw_ros2_cdr_t *view, double now) { (void)view, (void)now; }
void bw_ros2_cdr_event(bw_ros2_cdr_t *view, const bw_event_t *ev) { (void)view, (void)ev; }
void bw_ros2_cdr_clock(bw_ros2_cdr_t *view, uint64_t stamp_ns) { (void)view, (void)stamp_ns; }
void bw_ros2_cdr_close(bw_ros2_cdr_t *view) { (void)view; }

int bw_ros2_list(const bw_ros2_options_t *opt, double seconds, FILE *out, char *err, size_t errlen)
{
    (void)opt, (void)seconds, (void)out;
    snprintf(err, errlen, "built without Cyclone DDS (cyclonedds-dev): no ROS 2");
    return BW_ENOTSUP;
}

int bw_ros2_echo(const bw_ros2_options_t *opt, const char *topic, double seconds, long count,
                 FILE *out, char *err, size_t errlen)
{
    (void)opt, (void)topic, (void)seconds, (void)count, (void)out;
    snprintf(err, errlen, "built without Cyclone DDS (cyclonedds-dev): no ROS 2");
    return BW_ENOTSUP;
}

int bw_ros2_print_cdr(const char *type, const char *schema, const uint8_t *data, size_t len,
                      FILE *out)
{
    (void)type, (void)schema, (void)data, (void)len, (void)out;
    return -1;
}
