/*
 * `botwire bench --ros2 N`: one `botwire ros2` process serving N emulated
 * Kobukis (sim:kobuki, each in the process at its own 50 Hz) as N ROS 2
 * nodes, on a DDS domain of its own heard on this machine only. Measured
 * over a window once every node is up: the CPU the process takes (every
 * thread, Cyclone's included), and from its closing line the messages it
 * published per second (odom, tf, diagnostics, battery, ...).
 *
 * Beside it the ROS 1 bridge doing the same: a roscore on a free port and
 * N botwire_ros nodes (one process a robot, as ROS 1 runs them), each on
 * its own sim:kobuki; the CPU of the N nodes over the same window, and
 * what their closing lines say they published.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet.h"

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A pipe read line by line: what a read brought past the line wanted
 * stays for the next call (several processes write into one). */
typedef struct {
    int fd;
    char buf[8192];
    size_t held;
} lines_t;

/* Reads until a line containing `want` (1, the line in `line`) or the end
 * or the time (0). */
static int wait_for(lines_t *in, const char *want, double timeout, char *line, size_t cap)
{
    double end = mono() + timeout;
    for (;;) {
        char *nl;
        while ((nl = memchr(in->buf, '\n', in->held)) != NULL) {
            *nl = 0;
            int hit = strstr(in->buf, want) != NULL;
            if (hit)
                snprintf(line, cap, "%.*s", (int)(cap - 1), in->buf);
            in->held -= (size_t)(nl + 1 - in->buf);
            memmove(in->buf, nl + 1, in->held);
            if (hit)
                return 1;
        }
        if (in->held == sizeof in->buf)
            in->held = 0; /* a line longer than the buffer: not one we want */
        double left = end - mono();
        if (left <= 0)
            return 0;
        struct pollfd p = { in->fd, POLLIN, 0 };
        if (poll(&p, 1, (int)ceil(left * 1000)) <= 0)
            continue;
        ssize_t n = read(in->fd, in->buf + in->held, sizeof in->buf - in->held);
        if (n <= 0)
            return 0;
        in->held += (size_t)n;
    }
}

int bench_ros2(size_t robots, double seconds, bench_ros2_result_t *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->robots = robots;
    char **argv = calloc(robots + 12, sizeof *argv);
    char domain[16], window[32];
    if (!argv) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(domain, sizeof domain, "%d", (int)(getpid() % 200) + 1);
    snprintf(window, sizeof window, "%g", seconds + 60); /* ended by SIGINT before */
    size_t k = 0;
    argv[k++] = "botwire";
    argv[k++] = "ros2";
    for (size_t i = 0; i < robots; i++)
        argv[k++] = "sim:kobuki";
    argv[k++] = "--domain";
    argv[k++] = domain;
    argv[k++] = "--for";
    argv[k++] = window;
    argv[k] = NULL;
    int out[2], errp[2];
    if (pipe(out) < 0 || pipe(errp) < 0) {
        free(argv);
        snprintf(err, errlen, "pipe failed");
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        /* this machine only: the bench's traffic is nobody else's */
        setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST", 1);
        unsetenv("CYCLONEDDS_URI");
        dup2(out[1], STDOUT_FILENO);
        dup2(errp[1], STDERR_FILENO);
        close(out[0]);
        close(out[1]);
        close(errp[0]);
        close(errp[1]);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    free(argv);
    close(out[1]);
    close(errp[1]);
    if (pid < 0) {
        close(out[0]);
        close(errp[0]);
        snprintf(err, errlen, "fork failed");
        return -1;
    }
    char line[512];
    int rc = -1;
    lines_t o = { .fd = out[0] }, e = { .fd = errp[0] };
    if (!wait_for(&o, "on DDS domain", 60, line, sizeof line)) {
        snprintf(err, errlen, "botwire ros2 with %zu robots never came up%s", robots,
                 wait_for(&e, "", 1, line, sizeof line) ? line : "");
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        goto done;
    }
    /* Every node up; a second for the robots to come online, then the window. */
    double settle = mono() + 1;
    while (mono() < settle)
        poll(NULL, 0, (int)ceil((settle - mono()) * 1000));
    double t0 = mono(), cpu0 = bench_cpu_of(pid);
    double until = t0 + seconds;
    while (mono() < until)
        poll(NULL, 0, (int)ceil((until - mono()) * 1000));
    double t1 = mono(), cpu1 = bench_cpu_of(pid);
    kill(pid, SIGINT);
    int found = wait_for(&e, "messages published in", 30, line, sizeof line);
    waitpid(pid, NULL, 0);
    double ran = 0;
    const char *after = found ? strstr(line, "/s), ") : NULL;
    if (!found || sscanf(strstr(line, "ros2: ") + 6, "%llu messages published in %lf s",
                         &r->published, &ran) != 2 ||
        !after || sscanf(after + 5, "%llu not sent", &r->not_sent) != 1 || !(ran > 0) || cpu0 < 0 ||
        cpu1 < 0) {
        snprintf(err, errlen, "botwire ros2 did not say what it published: %s", found ? line : "");
        goto done;
    }
    r->seconds = ran;
    /* what its robots gave, sent or not: as roscpp counts a publish with
     * nobody subscribed */
    r->per_second = (double)(r->published + r->not_sent) / ran;
    r->cpu = (cpu1 - cpu0) / (t1 - t0);
    rc = 0;
done:
    close(out[0]);
    close(errp[0]);
    return rc;
}

static void reap(pid_t pid, double timeout);

/* The resident set of a process, MB; -1 if it cannot be read. */
static double rss_of(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb < 0 ? -1 : kb / 1024;
}

/* argv with stdout to a pipe (*out) and stderr to /dev/null, on this
 * machine's loopback alone, without multicast: the node and the
 * subscriber (which reads no ROS 2 settings) by one Cyclone configuration,
 * as the tests run them. */
static pid_t spawn_local(const char *path, char *const argv[], int *out)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        setenv("CYCLONEDDS_URI",
               "<CycloneDDS><Domain><General><Interfaces><NetworkInterface address=\"127.0.0.1\"/>"
               "</Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery>"
               "<ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>120</MaxAutoParticipantIndex>"
               "<Peers><Peer address=\"127.0.0.1\"/>"
               "</Peers></Discovery><Internal><SocketReceiveBufferSize max=\"8MB\"/></Internal></Domain></CycloneDDS>",
               1);
        unsetenv("ROS_AUTOMATIC_DISCOVERY_RANGE");
        unsetenv("ROS_STATIC_PEERS");
        unsetenv("ROS_LOCALHOST_ONLY");
        int null = open("/dev/null", O_RDWR);
        dup2(p[1], STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(p[0]);
        close(p[1]);
        execv(path, argv);
        _exit(127);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    *out = p[0];
    return pid;
}

int bench_ros2_subscribe(size_t robots, double seconds, double odom_rate, unsigned threads,
                         const char *peer, bench_ros2_sub_t *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->robots = robots;
    char n[32], domain[16], window[32], hz[32], secs[32];
    snprintf(n, sizeof n, "1-%zu", robots);
    snprintf(domain, sizeof domain, "%d", (int)(getpid() % 200) + 1);
    snprintf(window, sizeof window, "%g", seconds + 3600); /* ended by SIGINT before */
    snprintf(hz, sizeof hz, "%g", odom_rate);
    snprintf(secs, sizeof secs, "%g", seconds);
    char th[16];
    snprintf(th, sizeof th, "%u", threads);
    char *node_argv[16] = { "botwire", "ros2", "--robots", n, "--domain", domain, "--for", window };
    int k = 8;
    if (threads) { /* else the node's own default */
        node_argv[k++] = "--threads";
        node_argv[k++] = th;
    }
    if (odom_rate > 0) {
        node_argv[k++] = "--odom-rate";
        node_argv[k++] = hz;
        node_argv[k++] = "--tf-rate";
        node_argv[k++] = hz;
    }
    int node_out = -1, peer_out = -1;
    double t0 = mono();
    setenv("ROS_DOMAIN_ID", domain, 1); /* the subscriber's */
    pid_t node = spawn_local("/proc/self/exe", node_argv, &node_out);
    if (node < 0) {
        snprintf(err, errlen, "fork failed");
        return -1;
    }
    char line[2048];
    int rc = -1;
    pid_t sub = -1;
    lines_t o = { .fd = node_out }, p = { .fd = -1 };
    if (!wait_for(&o, "on DDS domain", 60 + (double)robots / 10, line, sizeof line)) {
        snprintf(err, errlen, "botwire ros2 --robots %zu never came up", robots);
        goto done;
    }
    r->node_up_s = mono() - t0;
    const char *on = strstr(line, "stepped on ");
    r->threads = on ? (unsigned)strtoul(on + 11, NULL, 10) : 1;
    char last[32];
    snprintf(last, sizeof last, "%zu", robots);
    char *peer_argv[] = { (char *)peer, "sub", secs, "1", last, NULL };
    sub = spawn_local(peer, peer_argv, &peer_out);
    p.fd = peer_out;
    if (sub < 0 || !wait_for(&p, "matched", 600, line, sizeof line)) {
        snprintf(err, errlen, "the subscriber (%s) never matched every odom writer", peer);
        goto done;
    }
    double w0 = mono(), cpu0 = bench_cpu_of(node);
    r->rss_first_mb = r->rss_max_mb = rss_of(node);
    bool got = false;
    while (!got && mono() < w0 + seconds + 120) {
        got = wait_for(&p, "{", 1, r->line, sizeof r->line);
        double rss = rss_of(node);
        if (rss > r->rss_max_mb)
            r->rss_max_mb = rss;
        if (rss > 0)
            r->rss_last_mb = rss;
    }
    double w1 = mono(), cpu1 = bench_cpu_of(node);
    if (!got || cpu0 < 0 || cpu1 < 0) {
        snprintf(err, errlen, "the subscriber did not say what it took");
        goto done;
    }
    r->node_cpu = (cpu1 - cpu0) / (w1 - w0);
    rc = 0;
done:
    unsetenv("ROS_DOMAIN_ID");
    kill(node, SIGINT);
    if (sub > 0)
        kill(sub, SIGINT);
    reap(node, 30);
    if (sub > 0)
        reap(sub, 10);
    close(node_out);
    if (peer_out >= 0)
        close(peer_out);
    return rc;
}

/* Waits up to `timeout` s for pid to end; kills it past that. */
static void reap(pid_t pid, double timeout)
{
    double end = mono() + timeout;
    while (mono() < end) {
        if (waitpid(pid, NULL, WNOHANG) != 0)
            return;
        poll(NULL, 0, 20);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* A child with the ROS 1 environment of the run, its stdout on `out` (or
 * /dev/null), stderr to /dev/null. */
static pid_t spawn_ros1(char *const argv[], const char *master, const char *home, int out)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    char logs[4200];
    snprintf(logs, sizeof logs, "%s/log", home);
    setenv("ROS_MASTER_URI", master, 1);
    setenv("ROS_HOME", home, 1);
    setenv("ROS_LOG_DIR", logs, 1);
    setenv("ROS_HOSTNAME", "127.0.0.1", 1);
    unsetenv("ROS_IP");
    int null = open("/dev/null", O_RDWR);
    dup2(out >= 0 ? out : null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    dup2(null, STDIN_FILENO);
    setpgid(0, 0); /* a terminal's ^C is the bench's to handle */
    execvp(argv[0], argv);
    _exit(127);
}

int bench_ros1(const char *node, size_t robots, double seconds, bench_ros2_result_t *r, char *err,
               size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->robots = robots;
    char home[] = "/tmp/botwire-bench-ros1.XXXXXX";
    if (!mkdtemp(home)) {
        snprintf(err, errlen, "cannot make a folder for ROS's files in /tmp");
        return -1;
    }
    /* a port nobody listens on, for the master */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t alen = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(s, (struct sockaddr *)&a, &alen) < 0) {
        if (s >= 0)
            close(s);
        snprintf(err, errlen, "no free port for the roscore");
        return -1;
    }
    close(s);
    char port[16], master[64];
    snprintf(port, sizeof port, "%u", ntohs(a.sin_port));
    snprintf(master, sizeof master, "http://127.0.0.1:%s", port);
    pid_t *pids = calloc(robots, sizeof *pids);
    int lines[2] = { -1, -1 };
    if (!pids || pipe(lines) < 0) {
        free(pids);
        snprintf(err, errlen, "out of memory or pipes");
        return -1;
    }
    char *core_argv[] = { "roscore", "-p", port, NULL };
    pid_t core = spawn_ros1(core_argv, master, home, -1);
    int rc = -1;
    size_t started = 0;
    char line[512];
    for (; core > 0 && started < robots; started++) {
        char ns[48];
        snprintf(ns, sizeof ns, "__ns:=/robot%zu", started + 1);
        char *argv[] = { (char *)node, "_url:=sim:kobuki", ns, "__name:=botwire", NULL };
        if ((pids[started] = spawn_ros1(argv, master, home, lines[1])) < 0)
            break;
    }
    close(lines[1]);
    static lines_t in;
    in.fd = lines[0];
    in.held = 0;
    if (core < 0 || started < robots) {
        snprintf(err, errlen, "fork failed");
        goto done;
    }
    /* every node says its robot is online once the master let it in */
    size_t online = 0;
    while (online < robots && wait_for(&in, " online", 120, line, sizeof line))
        online++;
    if (online < robots) {
        snprintf(err, errlen, "%zu of %zu botwire_ros nodes came online in 120 s (is `roscore` "
                              "on the PATH, and %s a ROS 1 botwire_ros?)", online, robots, node);
        goto done;
    }
    double settle = mono() + 1;
    while (mono() < settle)
        poll(NULL, 0, (int)ceil((settle - mono()) * 1000));
    double t0 = mono(), cpu0 = 0, cpu1 = 0;
    for (size_t i = 0; i < robots; i++)
        cpu0 += bench_cpu_of(pids[i]);
    double until = t0 + seconds;
    while (mono() < until)
        poll(NULL, 0, (int)ceil((until - mono()) * 1000));
    for (size_t i = 0; i < robots; i++)
        cpu1 += bench_cpu_of(pids[i]);
    double t1 = mono(), ran = 0;
    for (size_t i = 0; i < robots; i++)
        kill(pids[i], SIGINT);
    size_t said = 0;
    while (said < robots && wait_for(&in, "messages published in", 30, line, sizeof line)) {
        unsigned long long n;
        double t;
        const char *p = strstr(line, "botwire_ros: ");
        if (p && sscanf(p + 13, "%llu messages published in %lf s", &n, &t) == 2 && t > 0) {
            r->published += n;
            ran += t;
            said++;
        }
    }
    if (said < robots) {
        snprintf(err, errlen, "%zu of %zu botwire_ros nodes said what they published", said, robots);
        goto done;
    }
    r->seconds = ran / (double)robots;
    r->per_second = (double)r->published / r->seconds;
    r->cpu = (cpu1 - cpu0) / (t1 - t0);
    rc = 0;
done:
    for (size_t i = 0; i < started; i++) {
        kill(pids[i], SIGINT);
        reap(pids[i], 10);
    }
    if (core > 0) {
        kill(-core, SIGINT); /* roscore and the master and rosout it started */
        reap(core, 15);
        kill(-core, SIGKILL);
    }
    close(lines[0]);
    free(pids);
    pid_t rm = fork();
    if (rm == 0) {
        execlp("rm", "rm", "-rf", home, (char *)NULL);
        _exit(127);
    }
    if (rm > 0)
        waitpid(rm, NULL, 0);
    return rc;
}
