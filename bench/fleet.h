/* `botwire bench --fleet`: emulated robots one core serves in real time, and
 * what a drive process costs on a real link (fleet.c). */
#ifndef BOTWIRE_BENCH_FLEET_H
#define BOTWIRE_BENCH_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    size_t robots;
    double seconds;    /* of the counted run */
    double server_cpu; /* the emulator's CPU over the run, cores (1 = one core busy) */
    uint64_t sips, expected; /* SIPs that came, and one per robot per 100 ms */
    uint64_t late;     /* robots with a gap over 150 ms between SIPs */
    double max_gap;    /* s, the longest of any robot */
    bool real_time;    /* every robot: every SIP, none late */
} bench_fleet_result_t;

typedef void (*bench_fleet_report_fn)(void *ctx, const bench_fleet_result_t *r);

/* Runs fleets of P2OS robots up to max_robots in steps, `seconds` each, on
 * TCP ports from `port`, reporting each; stops at the first that does not
 * hold real time. Returns 0, or -1 when a run could not be set up. */
int bench_fleet(size_t max_robots, double seconds, int port, bench_fleet_report_fn report,
                void *ctx);

/* CPU seconds a `botwire drive` process spends per hour on a 50 Hz Kobuki
 * link (an emulated Kobuki on a pty), from a run of `seconds`. */
int bench_drive_cpu(double seconds, double *cpu_per_hour);

/* CPU seconds a process has used (user + system, every thread), from /proc;
 * -1 if it cannot be read. */
double bench_cpu_of(pid_t pid);

/* `botwire bench --ros2 N` (ros2.c): one `botwire ros2` process serving N
 * emulated Kobukis (in-process, each at its own 50 Hz) for `seconds`: the
 * messages it publishes per second and the CPU it takes. */
typedef struct {
    size_t robots;
    double seconds;        /* the node's own run, from its closing line */
    unsigned long long published; /* sent (ROS 2: to a matched reader, or latched) */
    unsigned long long not_sent;  /* ROS 2: no reader matched, not serialized */
    double per_second;     /* messages published per second, sent or not */
    double cpu;            /* cores (1 = one core busy) over the measured window */
} bench_ros2_result_t;
int bench_ros2(size_t robots, double seconds, bench_ros2_result_t *r, char *err, size_t errlen);

/* `botwire bench --ros2 N --subscribe` (ros2.c): `botwire ros2 --robots N`
 * (at odom_rate for odom and tf; 0: each robot's own 50 Hz) and an
 * independent subscriber (`peer`: the tests' ros2_peer, on the Cyclone C
 * API with its own IDL) taking every robot's odom and tf for `seconds`
 * once it has matched every odom writer. line: the subscriber's JSON
 * figures (per robot a second, latency, its CPU), which the rest joins. */
typedef struct {
    size_t robots;
    double node_up_s;  /* from the node's start to every robot's node made */
    double node_cpu;   /* cores, over the subscriber's window */
    double rss_first_mb, rss_last_mb, rss_max_mb; /* the node's, sampled each second */
    unsigned threads;  /* the node's stepping threads, as its lines said */
    char line[2048];
} bench_ros2_sub_t;
/* threads: the node's --threads (0: its default). */
int bench_ros2_subscribe(size_t robots, double seconds, double odom_rate, unsigned threads,
                         const char *peer, bench_ros2_sub_t *r, char *err, size_t errlen);

/* The ROS 1 bridge doing the same (ros2.c): a roscore on a free port and N
 * botwire_ros nodes (the executable `node`), one a robot, each on its own
 * sim:kobuki: the N nodes' CPU and messages per second. */
int bench_ros1(const char *node, size_t robots, double seconds, bench_ros2_result_t *r, char *err,
               size_t errlen);

#endif
