/* `botwire bench`: codec throughput, one JSON line per protocol and frame shape. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "../bench/fleet.h"
#include "botwire/mcap.h"
#include "cli.h"
#include "commands.h"
#include "botwire/runner.h"

static const bench_proto_t *const benches[] = {
    &bench_kobuki,
    &bench_p2os,
    &bench_lobot,
    &bench_create,
    &bench_rbsm,
    &bench_rflex,
};

static void usage(FILE *f)
{
    fprintf(f, "usage: botwire bench [--proto P] [--shape S] [--seconds S]\n"
               "       botwire bench --fleet[=N,N,...] [--seconds S] [--threads N]\n"
               "       botwire bench --fleet-tcp N [--seconds S] [--port P]\n"
               "       botwire bench --ros2[=N] [--ros1 NODE | --subscribe [--odom-rate HZ] [--threads N]]\n"
               "                     [--seconds S]\n"
               "       botwire bench --record [--proto P] [--seconds S]\n"
               "\n"
               "Measures parser throughput on the frame shapes each protocol's clients make its\n"
               "robot send, recorded from its emulated robot driving squares (and, where a shape\n"
               "is not what the emulated robot sends, the recorded values encoded again into\n"
               "that shape by the codec), in reads of 4 KiB, pass after pass for S seconds;\n"
               "the rates are the fastest pass's (on a shared machine, the code's speed when it\n"
               "had its core). One JSON line per shape: proto, shape, framing_mb_s (framing and\n"
               "checksum only), decode_mb_s, frames_per_s and messages_per_s (full decode:\n"
               "every message of every frame into its struct), stream_bytes, heap_allocs\n"
               "during the runs; the first shape of a protocol also has sim_hour_s: wall\n"
               "seconds for one hour of robot time (emulated robot and driver through the\n"
               "protocol, in virtual time).\n"
               "\n"
               "  --proto P        only this protocol (default: all)\n"
               "  --shape S        only this shape (default: all)\n"
               "  --seconds S      time per measurement (default 1; 10 with --fleet-tcp;\n"
               "                   with --fleet, the robot time of each fleet)\n"
               "\n"
               "The shapes:\n");
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        for (size_t k = 0; k < benches[i]->nshapes; k++)
            fprintf(f, "  %-7s %-10s %s\n", k ? "" : benches[i]->name,
                    benches[i]->shapes[k].name, benches[i]->shapes[k].what);
    fprintf(f, "\n"
               "--fleet: fleets of emulated P2OS robots wandering in one world in this process,\n"
               "in virtual time, each robot with its serial line and its host driver\n"
               "(`botwire sim p2os --robots N --fast --wander`): 1, 100, 1000 and 10000 robots\n"
               "(or the sizes given) on one thread, robot time %s s, then the\n"
               "largest on --threads threads (default: one per core). A line each:\n"
               "real_time_factor, cpu_ms_per_robot_s (ms of CPU per robot per robot-second),\n"
               "mem_per_robot_kb, mean_distance_m, cores_used (CPU time over wall time: what\n"
               "the process got), load (the machine's load average: it is shared), and for\n"
               "the threaded run its speedup over one thread and cpu_ratio, its CPU per\n"
               "robot-second over one thread's (what the threads cost beyond the work).\n"
               "A shared machine's speed drifts between runs, so last the largest fleet runs\n"
               "once more, twice as long, in blocks of 1 s of robot time on one thread and on\n"
               "the threads in turn: real_time_factor_threads and real_time_factor_one are\n"
               "each mode's over its blocks, and speedup the first over the second (poses:\n"
               "a hash of the robots' final poses, as `botwire sim` prints it).\n"
               "\n"
               "--fleet-tcp N: how many emulated P2OS robots one core serves in real time. A\n"
               "`botwire sim p2os --robots K` on the first core serves K robots in one world\n"
               "on TCP ports from P (default 20101); this process, on the second core,\n"
               "drives each in a slow circle through the host driver and counts its SIPs.\n"
               "K goes up in steps to N; a line each: server_cpu (cores), cpu_per_robot_ms_s\n"
               "(ms of CPU per robot per second), sips of expected, late (robots with a gap\n"
               "over 150 ms), real_time (every SIP, none late). It stops at the first K that\n"
               "does not hold. Then drive_cpu_s_per_hour: the CPU a `botwire drive` process\n"
               "spends on a 50 Hz Kobuki link (an emulated Kobuki on a pty), per hour.\n"
               "\n"
               "--ros2[=N]: one `botwire ros2` process serving N emulated Kobukis (default\n"
               "100, each in the process at its own 50 Hz) as N ROS 2 nodes on a DDS domain\n"
               "heard on this machine only; over S seconds (default 10) once they are up:\n"
               "messages_per_s it publishes (odom, tf, diagnostics, battery, events; with\n"
               "nobody subscribed, not_sent: no reader, not serialized) and cpu_cores it\n"
               "takes (every thread, Cyclone DDS's included). Then the ROS 1\n"
               "bridge doing the same, for the comparison: a roscore (from the PATH) on a free\n"
               "port and N botwire_ros nodes, one a robot, each on its own sim:kobuki; the\n"
               "same two figures for the N node processes. The node is --ros1 NODE, else the\n"
               "botwire_ros of the build or install this botwire is in; without one the ROS 1\n"
               "line says why it was not measured.\n"
               "  --ros1 NODE      the botwire_ros executable for the ROS 1 side\n"
               "  --subscribe      instead: `botwire ros2 --robots N` and an independent\n"
               "                   subscriber (the tests' ROS 2 peer, its own IDL) taking every\n"
               "                   robot's odom and tf: matched_s (discovery), per robot\n"
               "                   odometry and transforms a second (median, least), latency\n"
               "                   from each odometry's stamp to the subscriber (p50, p99, max\n"
               "                   ms), the CPU of both and the node's memory (RSS each second)\n"
               "  --odom-rate HZ   with --subscribe: odom and tf at HZ (default each robot's 50)\n"
               "  --threads N      with --subscribe: the node's --threads (default: its own,\n"
               "                   one a core); node_threads says how many it used\n"
               "  --peer PATH      with --subscribe: the subscriber (default tests/ros2_peer\n"
               "                   beside botwire)\n"
               "\n"
               "--record: how fast `botwire record` keeps a link's bytes, and the file's size,\n"
               "in each format: each protocol's stream (as above) in 64-byte reads every 2 ms\n"
               "of link time, flushed every 0.25 s, written as JSON Lines and as MCAP with\n"
               "zstd, lz4 and no compression to a file in /tmp, pass after pass for S seconds\n"
               "(default 1). A line each: proto, format, mb_s (wire bytes recorded per second,\n"
               "the fastest pass), wire_bytes, file_bytes and ratio (file over wire).\n"
               "  -h, --help       this help\n",
            "300, 60, 20 and 10");
}

/* Robot time for a fleet of n, so each takes a few seconds at most. */
static double fleet_seconds(size_t n)
{
    return n <= 1 ? 300 : n <= 100 ? 60 : n <= 1000 ? 20 : 10;
}

/* Runs a fleet of n wandering P2OS robots (alternate: bw_runner_opts_t's);
 * its result and the machine's load average over the run; -1 after
 * saying why. */
static int bench_fleet_run(size_t n, double seconds, unsigned threads, double alternate,
                           bw_runner_result_t *r, double *load)
{
    bw_runner_opts_t o = { .family = "p2os", .robots = n, .seconds = seconds, .wander = true,
                          .seed = 1, .threads = threads, .quiet = true, .alternate = alternate };
    char err[512];
    double load0[1] = { -1 }, load1[1] = { -1 };
    (void)getloadavg(load0, 1);
    if (bw_runner_run(&o, r, err, sizeof err) < 0) {
        cli_error("bench", "%s", err);
        return -1;
    }
    (void)getloadavg(load1, 1);
    *load = (load0[0] + load1[0]) / 2;
    return 0;
}

static int fast_line(size_t n, double seconds, unsigned threads, const bw_runner_result_t *one,
                     bw_runner_result_t *out)
{
    bw_runner_result_t r;
    double load;
    fprintf(stderr, "botwire bench: %zu P2OS robots wandering, %g s of robot time, %u thread%s "
                    "...\n", n, seconds, threads, threads == 1 ? "" : "s");
    if (bench_fleet_run(n, seconds, threads, 0, &r, &load) < 0)
        return -1;
    *out = r;
    printf("{\"fleet\":%zu,\"threads\":%u,\"sim_s\":%g,\"wall_s\":%.3f,\"real_time_factor\":%.3f,"
           "\"cpu_ms_per_robot_s\":%.4f,\"mem_per_robot_kb\":%.1f,\"mean_distance_m\":%.3f,"
           "\"online\":%zu,\"cores_used\":%.2f,\"load\":%.2f",
           r.robots, r.threads, r.sim_s, r.wall_s, r.real_time_factor, r.cpu_ms_per_robot_s,
           r.mem_per_robot_kb, r.mean_distance, r.online, r.wall_s > 0 ? r.cpu_s / r.wall_s : 0,
           load);
    if (one && one->real_time_factor > 0)
        printf(",\"speedup\":%.2f,\"cpu_ratio\":%.3f", r.real_time_factor / one->real_time_factor,
               r.cpu_ms_per_robot_s / one->cpu_ms_per_robot_s);
    printf("}\n");
    fflush(stdout);
    return 0;
}

/* The threads' speedup measured in one run, the modes in turn (blocks of
 * ALTERNATE s of robot time), so a drift of the machine's speed falls on
 * both alike. */
#define ALTERNATE 1.0
static int alternating_line(size_t n, double seconds, unsigned threads)
{
    bw_runner_result_t r;
    double load;
    fprintf(stderr, "botwire bench: %zu P2OS robots wandering, %g s of robot time, in turn on one "
                    "thread and on %u, %g s each ...\n", n, seconds, threads, ALTERNATE);
    if (bench_fleet_run(n, seconds, threads, ALTERNATE, &r, &load) < 0)
        return -1;
    printf("{\"fleet\":%zu,\"threads\":%u,\"alternating_s\":%g,\"sim_s\":%g,\"wall_s\":%.3f,"
           "\"real_time_factor_threads\":%.3f,\"real_time_factor_one\":%.3f,\"speedup\":%.2f,"
           "\"mean_distance_m\":%.3f,\"online\":%zu,\"load\":%.2f,\"poses\":\"%016llx\"}\n",
           r.robots, r.threads, ALTERNATE, r.sim_s, r.wall_s, r.alt_rtf[0], r.alt_rtf[1],
           r.alt_speedup, r.mean_distance, r.online, load, (unsigned long long)r.poses_hash);
    fflush(stdout);
    return 0;
}

/* "1,100,1000" */
static int parse_sizes(const char *text, size_t *sizes, size_t cap, size_t *n)
{
    *n = 0;
    for (const char *p = text; *p;) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v >= 1 && v <= BW_FLEET_MAX) || v != (double)(size_t)v || *n == cap ||
            (*end && *end != ','))
            return -1;
        sizes[(*n)++] = (size_t)v;
        p = *end ? end + 1 : end;
    }
    return *n ? 0 : -1;
}

static int fast_bench(const char *list, double seconds, unsigned threads)
{
    size_t sizes[16] = { 1, 100, 1000, 10000 }, nsizes = 4;
    if (list && parse_sizes(list, sizes, 16, &nsizes) < 0) {
        cli_error("bench", "--fleet=N,N,... wants robot counts (1 to %d), not \"%s\"",
                  BW_FLEET_MAX, list);
        return 2;
    }
    bw_runner_result_t one;
    for (size_t i = 0; i < nsizes; i++)
        if (fast_line(sizes[i], seconds > 0 ? seconds : fleet_seconds(sizes[i]), 1, NULL, &one) < 0)
            return 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned nth = threads ? threads : cores > 1 ? (unsigned)cores : 2;
    size_t big = sizes[nsizes - 1];
    bw_runner_result_t many;
    if (fast_line(big, seconds > 0 ? seconds : fleet_seconds(big), nth, &one, &many) < 0)
        return 1;
    if (many.threads > 1 && alternating_line(big, 2 * (seconds > 0 ? seconds : fleet_seconds(big)),
                                             nth) < 0)
        return 1;
    return cli_flush_out("bench");
}

/* One decimal: the JSON line's MB/s. */
static double round1(double x) { return (double)(long long)(x * 10) / 10; }

static void fleet_line(void *ctx, const bench_fleet_result_t *r)
{
    (void)ctx;
    printf("{\"fleet\":%zu,\"seconds\":%g,\"server_cpu\":%.3f,\"cpu_per_robot_ms_s\":%.3f,"
           "\"sips\":%llu,\"expected\":%llu,\"late\":%llu,\"max_gap_ms\":%.1f,\"real_time\":%s}\n",
           r->robots, r->seconds, r->server_cpu, r->server_cpu * 1000 / (double)r->robots,
           (unsigned long long)r->sips, (unsigned long long)r->expected,
           (unsigned long long)r->late, r->max_gap * 1000, r->real_time ? "true" : "false");
    fflush(stdout);
}

/* The first of `rel` (paths relative to this botwire's folder) that is
 * an executable, in path; NULL if none is. */
static const char *beside_self(const char *const *rel, size_t n, char *path, size_t cap)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return NULL;
    self[len] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    for (size_t i = 0; i < n; i++) {
        snprintf(path, cap, "%s/%s", self, rel[i]);
        if (access(path, X_OK) == 0)
            return path;
    }
    return NULL;
}

/* The botwire_ros beside this botwire: the build's (ros/botwire_ros/) or the
 * install's (../lib/botwire_ros/); NULL if neither is there. */
static const char *ros1_node(char *path, size_t cap)
{
    static const char *const beside[] = { "ros/botwire_ros/botwire_ros",
                                          "../lib/botwire_ros/botwire_ros" };
    return beside_self(beside, 2, path, cap);
}

/* The tests' ROS 2 peer beside this botwire (the build's tests/ros2_peer);
 * NULL if it is not there. */
static const char *ros2_peer(char *path, size_t cap)
{
    static const char *const beside[] = { "tests/ros2_peer" };
    return beside_self(beside, 1, path, cap);
}

static void ros_line(const char *side, const bench_ros2_result_t *r)
{
    printf("{\"%s_robots\":%zu,\"seconds\":%.1f,\"published\":%llu,\"not_sent\":%llu,"
           "\"messages_per_s\":%.0f,\"cpu_cores\":%.3f,\"cpu_ms_per_robot_s\":%.3f}\n",
           side, r->robots, r->seconds, r->published, r->not_sent, r->per_second, r->cpu,
           r->cpu * 1000 / (double)r->robots);
    fflush(stdout);
}

static int ros2_subscribe_bench(size_t n, double seconds, double odom_rate, unsigned threads,
                                const char *peer)
{
    char found[4200];
    if (!peer)
        peer = ros2_peer(found, sizeof found);
    if (!peer) {
        cli_error("bench", "--subscribe needs the tests' ROS 2 peer: a build with ROS 2 has "
                           "tests/ros2_peer beside botwire (or --peer PATH)");
        return 2;
    }
    fprintf(stderr,
            "botwire bench: botwire ros2 --robots %zu (odom and tf at %g Hz) and a subscriber of "
            "every robot's odom and tf (%s), %g s once it has matched them ...\n",
            n, odom_rate > 0 ? odom_rate : 50.0, peer, seconds);
    bench_ros2_sub_t r;
    char err[256];
    if (bench_ros2_subscribe(n, seconds, odom_rate, threads, peer, &r, err, sizeof err) < 0) {
        cli_error("bench", "%s", err);
        return 1;
    }
    /* the subscriber's figures, with the node's before them */
    const char *rest = strchr(r.line, '{');
    printf("{\"ros2_subscribe_robots\":%zu,\"odom_hz_asked\":%g,\"node_threads\":%u,"
           "\"node_up_s\":%.2f,"
           "\"node_cpu_cores\":%.3f,\"node_rss_mb_first\":%.1f,\"node_rss_mb_last\":%.1f,"
           "\"node_rss_mb_max\":%.1f,%s\n",
           r.robots, odom_rate > 0 ? odom_rate : 50.0, r.threads, r.node_up_s, r.node_cpu,
           r.rss_first_mb,
           r.rss_last_mb, r.rss_max_mb, rest ? rest + 1 : "}");
    return cli_flush_out("bench");
}

static int ros2_bench(size_t n, double seconds, const char *ros1)
{
    fprintf(stderr, "botwire bench: botwire ros2 with %zu emulated Kobukis, %g s ...\n", n,
            seconds);
    bench_ros2_result_t r;
    char err[256];
    if (bench_ros2(n, seconds, &r, err, sizeof err) < 0) {
        cli_error("bench", "%s", err);
        return 1;
    }
    ros_line("ros2", &r);
    char found[4200];
    if (!ros1)
        ros1 = ros1_node(found, sizeof found);
    if (!ros1) {
        fprintf(stderr, "botwire bench: the ROS 1 bridge not measured: no botwire_ros beside this "
                        "botwire (a build with ROS 1 has one; or --ros1 NODE)\n");
        return cli_flush_out("bench");
    }
    fprintf(stderr, "botwire bench: the ROS 1 bridge, a roscore and %zu botwire_ros nodes (%s), "
                    "%g s ...\n", n, ros1, seconds);
    if (bench_ros1(ros1, n, seconds, &r, err, sizeof err) < 0) {
        cli_error("bench", "the ROS 1 side: %s", err);
        return 1;
    }
    ros_line("ros1", &r);
    return cli_flush_out("bench");
}

static int record_bench(const char *proto, double seconds)
{
    static const bench_record_format_t formats[] = {
        { "jsonl", false, 0 },
        { "mcap-zstd", true, BW_MCAP_ZSTD },
        { "mcap-lz4", true, BW_MCAP_LZ4 },
        { "mcap-none", true, BW_MCAP_NONE },
    };
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
        const bench_proto_t *b = benches[i];
        if (proto && strcmp(proto, b->name) != 0)
            continue;
        fprintf(stderr, "botwire bench: %s: recording a stream from its emulated robot, then "
                        "writing it as a record in each format (%g s each) ...\n", b->name,
                seconds);
        bench_buf_t st;
        if (bench_stream(b, &b->shapes[0], &st) < 0) {
            cli_error("bench", "%s: could not record a stream from its emulated robot", b->name);
            return 1;
        }
        for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++) {
            bench_record_result_t r;
            if (bench_record(st.p, st.len, &formats[k], seconds, &r) < 0) {
                free(st.p);
                cli_error("bench", "%s: could not write a %s record in /tmp", b->name,
                          formats[k].name);
                return 1;
            }
            printf("{\"proto\":\"%s\",\"format\":\"%s\",\"mb_s\":%.1f,\"wire_bytes\":%zu,"
                   "\"file_bytes\":%llu,\"ratio\":%.3f}\n",
                   b->name, formats[k].name, r.mb_s, st.len, r.file_bytes, r.ratio);
            fflush(stdout);
        }
        free(st.p);
    }
    return cli_flush_out("bench");
}

static int fleet_bench(size_t n, double seconds, int port)
{
    if (port + (int)n - 1 > 65535) {
        cli_error("bench", "%zu robots from port %d go beyond port 65535", n, port);
        return 2;
    }
    fprintf(stderr, "botwire bench: fleets of emulated P2OS robots up to %zu, %g s each, on "
                    "ports from %d ...\n", n, seconds, port);
    if (bench_fleet(n, seconds, port, fleet_line, NULL) < 0)
        return 1;
    fprintf(stderr, "botwire bench: a drive process on a 50 Hz Kobuki link, %g s ...\n", seconds);
    double per_hour;
    if (bench_drive_cpu(seconds, &per_hour) < 0) {
        cli_error("bench", "the Kobuki drive run failed");
        return 1;
    }
    printf("{\"drive\":\"kobuki\",\"link_hz\":50,\"drive_cpu_s_per_hour\":%.2f}\n", per_hour);
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        { "proto", required_argument, NULL, 'p' },
        { "shape", required_argument, NULL, 'S' },
        { "seconds", required_argument, NULL, 's' },
        { "fleet", optional_argument, NULL, 'F' },
        { "fleet-tcp", required_argument, NULL, 'f' },
        { "ros2", optional_argument, NULL, 'R' },
        { "ros1", required_argument, NULL, '1' },
        { "subscribe", no_argument, NULL, 'u' },
        { "odom-rate", required_argument, NULL, 'o' },
        { "peer", required_argument, NULL, 'e' },
        { "record", no_argument, NULL, 'r' },
        { "threads", required_argument, NULL, 'T' },
        { "port", required_argument, NULL, 'P' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *proto = NULL, *shape = NULL, *ros1 = NULL, *peer = NULL;
    bool subscribe = false;
    double odom_rate = 0;
    bool record = false;
    double seconds = 0, fleet = 0, port = 20101, threads = 0, ros2 = 0;
    bool fast = false;
    const char *sizes = NULL;
    int c;
    optind = 0;
    while ((c = cli_getopt("bench", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'p': proto = optarg; break;
        case 'S': shape = optarg; break;
        case 's': {
            char *end;
            seconds = strtod(optarg, &end);
            if (*end || !(seconds > 0 && seconds <= 600)) {
                cli_error("bench", "--seconds must be a number in (0, 600], not \"%s\"", optarg);
                return 2;
            }
            break;
        }
        case 'F':
            fast = true;
            sizes = optarg;
            break;
        case 'f':
            if (cli_number("bench", "--fleet-tcp", optarg, 1, BW_FLEET_MAX, &fleet) < 0)
                return 2;
            break;
        case 'R':
            ros2 = 100;
            if (optarg && cli_number("bench", "--ros2", optarg, 1, 10000, &ros2) < 0)
                return 2;
            break;
        case '1': ros1 = optarg; break;
        case 'u': subscribe = true; break;
        case 'e': peer = optarg; break;
        case 'o':
            if (cli_number("bench", "--odom-rate", optarg, 0.1, 1000, &odom_rate) < 0)
                return 2;
            break;
        case 'r': record = true; break;
        case 'T':
            if (cli_number("bench", "--threads", optarg, 1, 256, &threads) < 0)
                return 2;
            break;
        case 'P':
            if (cli_number("bench", "--port", optarg, 1024, 65535, &port) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (optind < argc) {
        cli_error("bench", "unexpected argument \"%s\"%s", argv[optind],
                  fast ? " (--fleet=N,N,... for fleet sizes; --fleet-tcp N for the real-time TCP "
                         "fleet)"
                       : "");
        return 2;
    }
    if ((fast && fleet > 0) || (ros2 > 0 && (fast || fleet > 0))) {
        cli_error("bench", "--fleet, --fleet-tcp or --ros2: one at a time");
        return 2;
    }
    if (ros1 && !(ros2 > 0)) {
        cli_error("bench", "--ros1 goes with --ros2 (the comparison it is the other side of)");
        return 2;
    }
    if (record && (fast || fleet > 0 || ros2 > 0 || shape)) {
        cli_error("bench", "--record goes with --proto and --seconds alone");
        return 2;
    }
    if ((subscribe || odom_rate > 0 || peer) && !(ros2 > 0)) {
        cli_error("bench", "--subscribe, --odom-rate and --peer go with --ros2");
        return 2;
    }
    if ((odom_rate > 0 || peer) && !subscribe) {
        cli_error("bench", "--odom-rate and --peer go with --ros2 --subscribe");
        return 2;
    }
    if (threads > 0 && !fast && !(ros2 > 0 && subscribe)) {
        cli_error("bench", "--threads goes with --fleet or --ros2 --subscribe");
        return 2;
    }
    if (ros1 && subscribe) {
        cli_error("bench", "--ros1 or --subscribe: the ROS 1 comparison has no subscriber");
        return 2;
    }
    if (ros2 > 0 && subscribe)
        return ros2_subscribe_bench((size_t)ros2, seconds > 0 ? seconds : 10, odom_rate,
                                    (unsigned)threads, peer);
    if (ros2 > 0)
        return ros2_bench((size_t)ros2, seconds > 0 ? seconds : 10, ros1);
    if (fast)
        return fast_bench(sizes, seconds, (unsigned)threads);
    if (proto) {
        bool known = false;
        char names[160] = "";
        size_t n = 0;
        for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
            known |= strcmp(proto, benches[i]->name) == 0;
            if (n < sizeof names)
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                                      benches[i]->name);
        }
        if (!known) {
            cli_error("bench", "no benchmark for protocol \"%s\" (known: %s)", proto, names);
            return 2;
        }
    }
    if (shape) {
        /* Known among the protocols picked: a bad name lists theirs. */
        bool known = false;
        char names[400] = "";
        size_t n = 0;
        for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
            if (proto && strcmp(proto, benches[i]->name) != 0)
                continue;
            for (size_t k = 0; k < benches[i]->nshapes; k++) {
                const char *name = benches[i]->shapes[k].name;
                known |= strcmp(shape, name) == 0;
                if (n < sizeof names)
                    n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                                          name);
            }
        }
        if (!known) {
            cli_error("bench", "no shape \"%s\"%s%s (known: %s)", shape, proto ? " for " : "",
                      proto ? proto : "", names);
            return 2;
        }
    }
    if (fleet > 0)
        return fleet_bench((size_t)fleet, seconds > 0 ? seconds : 10, (int)port);
    if (record)
        return record_bench(proto, seconds > 0 ? seconds : 1.0);
    if (seconds == 0)
        seconds = 1.0;
    bool any = false;
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
        const bench_proto_t *b = benches[i];
        if (proto && strcmp(proto, b->name) != 0)
            continue;
        for (size_t k = 0; k < b->nshapes; k++) {
            const bench_shape_t *sh = &b->shapes[k];
            if (shape && strcmp(shape, sh->name) != 0)
                continue;
            any = true;
            fprintf(stderr,
                    "botwire bench: %s %s: recording a stream from its emulated robot, then "
                    "framing and full decode%s (%g s each) ...\n",
                    b->name, sh->name, k == 0 ? " and an hour of robot time" : "", seconds);
            bench_result_t r;
            if (bench_run(b, sh, seconds, &r) < 0) {
                cli_error("bench", "%s %s: could not record a stream from its emulated robot",
                          b->name, sh->name);
                return 1;
            }
            double hour = k == 0 ? bench_sim_hour(b) : -1;
            json_t *o = json_object();
            json_object_set_new(o, "proto", json_string(r.proto));
            json_object_set_new(o, "shape", json_string(r.shape));
            json_object_set_new(o, "framing_mb_s", json_real(round1(r.framing_mb_s)));
            json_object_set_new(o, "decode_mb_s", json_real(round1(r.decode_mb_s)));
            json_object_set_new(o, "frames_per_s", json_integer((json_int_t)r.frames_per_s));
            json_object_set_new(o, "messages_per_s", json_integer((json_int_t)r.messages_per_s));
            json_object_set_new(o, "stream_bytes", json_integer((json_int_t)r.stream_bytes));
            json_object_set_new(o, "heap_allocs",
                                r.heap_allocs < 0 ? json_null() : json_integer(r.heap_allocs));
            if (hour >= 0)
                json_object_set_new(o, "sim_hour_s",
                                    json_real((double)(long long)(hour * 1000) / 1000));
            json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
            json_decref(o);
            putchar('\n');
            int out = cli_flush_out("bench");
            if (out)
                return out;
        }
    }
    return any ? 0 : 2;
}
