/*
 * `botwire bench --fleet N`: how many emulated P2OS robots one core serves in
 * real time. A `botwire sim p2os --robots K --tcp` process, pinned to the
 * first core, serves K robots in one world on K TCP ports; this process,
 * pinned to the second, connects a host driver to each (the handshake, then
 * each driving a slow circle with its sonar on) and counts the SIPs that
 * arrive. Real time holds when every robot's SIPs come every 100 ms: none
 * missing over the run, none more than 150 ms after the one before. K goes
 * up in steps to N; the largest K that holds is the answer, with the server's
 * CPU per robot.
 *
 * Then the CPU a `botwire drive` process spends on a real 50 Hz Kobuki link
 * (an emulated Kobuki on a pty), per hour.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet.h"
#include "botwire/botwire.h"

#define SIP_PERIOD 0.1 /* s: the P2OS server's SIP cycle */
#define LATE 0.15      /* s between SIPs that counts as off schedule */

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((size_t)cpu, &set);
    (void)sched_setaffinity(0, sizeof set, &set);
}

/* Starts argv as a child pinned to cpu, its stdout on *out (and its stderr
 * to /dev/null). Returns its pid, or -1. */
static pid_t spawn(char *const argv[], int cpu, int *out)
{
    int fd[2];
    if (pipe(fd) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        pin(cpu);
        dup2(fd[1], STDOUT_FILENO);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        close(fd[0]);
        close(fd[1]);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fd[1]);
    *out = fd[0];
    return pid;
}

/* Reads lines from fd until `want` lines have come or `timeout` s passed. */
static int read_lines(int fd, int want, double timeout, char *last, size_t cap)
{
    char buf[4096];
    int lines = 0;
    size_t held = 0;
    double end = mono() + timeout;
    while (lines < want && mono() < end) {
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, (int)ceil((end - mono()) * 1000)) <= 0)
            continue;
        ssize_t n = read(fd, buf + held, sizeof buf - 1 - held);
        if (n <= 0)
            break;
        held += (size_t)n;
        buf[held] = 0;
        char *nl;
        while ((nl = strchr(buf, '\n')) != NULL) {
            *nl = 0;
            snprintf(last, cap, "%.*s", (int)(cap - 1), buf);
            lines++;
            memmove(buf, nl + 1, held - (size_t)(nl + 1 - buf) + 1);
            held -= (size_t)(nl + 1 - buf);
        }
        if (held == sizeof buf - 1)
            held = 0; /* a line too long to keep: not ours */
    }
    return lines;
}

/* CPU seconds a process has used (user + system, every thread), from /proc. */
double bench_cpu_of(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *p = strrchr(text, ')'); /* the name may hold spaces */
    unsigned long utime = 0, stime = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                     &stime) != 2)
        return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static void stop(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGINT);
    int status;
    waitpid(pid, &status, 0);
}

/* One run of k robots for `seconds`; fills r; returns 0, or -1 when it
 * could not be set up (said on stderr). */
static int fleet_run(size_t k, double seconds, int port, bench_fleet_result_t *r)
{
    memset(r, 0, sizeof *r);
    r->robots = k;
    char nbuf[32], tcp[64], forbuf[32];
    snprintf(nbuf, sizeof nbuf, "%zu", k);
    snprintf(tcp, sizeof tcp, "127.0.0.1:%d", port);
    snprintf(forbuf, sizeof forbuf, "%g", seconds + 60);
    char *argv[] = { "botwire", "sim", "p2os", "--robots", nbuf, "--tcp", tcp, "--idle", "1e6",
                     "--for", forbuf, NULL };
    int out;
    pid_t pid = spawn(argv, 0, &out);
    if (pid < 0) {
        fprintf(stderr, "botwire bench: cannot start the emulator: %s\n", strerror(errno));
        return -1;
    }
    char last[512] = "";
    if (read_lines(out, (int)k, 30, last, sizeof last) < (int)k) {
        fprintf(stderr, "botwire bench: the emulator did not serve %zu robots from port %d (%s)\n",
                k, port, *last ? last : "no word from it; is the port range free?");
        stop(pid);
        close(out);
        return -1;
    }
    bw_base_t **b = calloc(k, sizeof *b);
    double *last_t = calloc(k, sizeof *last_t), *max_gap = calloc(k, sizeof *max_gap);
    uint64_t *sips = calloc(k, sizeof *sips);
    struct pollfd *p = calloc(k, sizeof *p);
    int rc = -1;
    double t0 = mono();
    if (!b || !last_t || !max_gap || !sips || !p)
        goto done;
    for (size_t i = 0; i < k; i++) {
        char url[96], err[256];
        snprintf(url, sizeof url, "p2os:tcp://127.0.0.1:%d", port + (int)i);
        if (bw_base_open(&b[i], url, NULL, mono() - t0, err, sizeof err) < 0) {
            fprintf(stderr, "botwire bench: %s: %s\n", url, err);
            goto done;
        }
    }
    /* Until every robot is online (the handshake done), then the run. */
    double start = -1, end = INFINITY, next_drive = 0;
    size_t online = 0;
    bool counting = false;
    double cpu0 = -1; /* the emulator's CPU seconds when the count began */
    for (;;) {
        double now = mono() - t0;
        if (now >= end)
            break;
        if (start < 0 && now > 60) {
            fprintf(stderr, "botwire bench: %zu of %zu robots online after 60 s\n", online, k);
            goto done;
        }
        double until = start < 0 ? now + 0.05 : end;
        for (size_t i = 0; i < k; i++) {
            p[i] = (struct pollfd){ bw_base_fd(b[i]), POLLIN, 0 };
            until = fmin(until, bw_base_next_deadline(b[i]));
        }
        until = fmin(until, next_drive);
        int wait_ms = (int)ceil(fmax(0, until - now) * 1000);
        (void)poll(p, k, wait_ms);
        now = mono() - t0;
        bool drive = now >= next_drive;
        if (drive)
            next_drive = now + 0.25; /* within the command timeout */
        online = 0;
        for (size_t i = 0; i < k; i++) {
            if ((p[i].revents & POLLIN) || now >= bw_base_next_deadline(b[i]) || drive) {
                if (drive)
                    bw_base_drive(b[i], 0.1, 0.25, now); /* a slow circle */
                bw_base_poll(b[i], now);
            }
            const bw_base_state_t *st = bw_base_state(b[i]);
            online += st->online;
            if (counting && st->t > start && st->t != last_t[i]) {
                if (last_t[i] > start)
                    max_gap[i] = fmax(max_gap[i], st->t - last_t[i]);
                sips[i]++;
                last_t[i] = st->t;
            }
        }
        if (start < 0 && online == k) {
            /* everyone online: a second to settle, then count */
            start = now + 1;
            end = start + seconds;
        }
        if (start >= 0 && now >= start && !counting) {
            counting = true;
            cpu0 = bench_cpu_of(pid);
            start = now;
            end = start + seconds;
        }
    }
    double cpu = bench_cpu_of(pid);
    r->seconds = seconds;
    r->server_cpu = cpu >= 0 && cpu0 >= 0 ? (cpu - cpu0) / seconds : -1;
    r->expected = (uint64_t)floor(seconds / SIP_PERIOD) * k;
    r->real_time = true;
    for (size_t i = 0; i < k; i++) {
        r->sips += sips[i];
        r->max_gap = fmax(r->max_gap, max_gap[i]);
        if (sips[i] + 1 < (uint64_t)floor(seconds / SIP_PERIOD) || max_gap[i] > LATE)
            r->real_time = false;
        if (max_gap[i] > LATE)
            r->late++;
    }
    rc = 0;
done:
    for (size_t i = 0; b && i < k; i++)
        bw_base_close(b[i], mono() - t0);
    free(b);
    free(last_t);
    free(max_gap);
    free(sips);
    free(p);
    stop(pid);
    close(out);
    return rc;
}

int bench_fleet(size_t max_robots, double seconds, int port, bench_fleet_report_fn report,
                void *ctx)
{
    pin(1); /* the clients on the second core, the emulator on the first */
    size_t step = max_robots >= 1000 ? 250 : max_robots >= 100 ? 50 : 1;
    for (size_t k = step < max_robots ? step : max_robots;; k += step) {
        if (k > max_robots)
            k = max_robots;
        bench_fleet_result_t r;
        if (fleet_run(k, seconds, port, &r) < 0)
            return -1;
        report(ctx, &r);
        if (!r.real_time || k == max_robots)
            break;
    }
    return 0;
}

int bench_drive_cpu(double seconds, double *cpu_per_hour)
{
    char dir[] = "/tmp/botwire-bench-XXXXXX";
    if (!mkdtemp(dir))
        return -1;
    char link[64], forbuf[32], url[96], dur[32];
    snprintf(link, sizeof link, "%s/kobuki", dir);
    snprintf(forbuf, sizeof forbuf, "%g", seconds + 30);
    char *sim[] = { "botwire", "sim", "kobuki", "--pty", link, "--for", forbuf, NULL };
    int out;
    pid_t spid = spawn(sim, 0, &out);
    char last[512];
    int rc = -1;
    if (spid < 0 || read_lines(out, 1, 30, last, sizeof last) < 1)
        goto done;
    snprintf(url, sizeof url, "kobuki:%s", link);
    snprintf(dur, sizeof dur, "%g", seconds);
    char *drive[] = { "botwire", "drive", url, "--v", "0", "--for", dur, NULL };
    int dout;
    pid_t dpid = spawn(drive, 1, &dout);
    if (dpid < 0)
        goto done;
    char sink[4096];
    while (read(dout, sink, sizeof sink) > 0)
        ;
    close(dout);
    int status;
    struct rusage ru;
    if (wait4(dpid, &status, 0, &ru) == dpid && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        double used = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        *cpu_per_hour = used / seconds * 3600;
        rc = 0;
    }
done:
    stop(spid);
    if (spid >= 0)
        close(out);
    unlink(link);
    rmdir(dir);
    return rc;
}
