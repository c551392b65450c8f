/*
 * `botwire bench --ros2 N`: one `botwire ros2` process serving N emulated
 * Kobukis (sim:kobuki, each in the process at its own 50 Hz) as N ROS 2
 * nodes, on a DDS domain of its own heard on this machine only. Measured
 * over a window once every node is up: the CPU the process takes (every
 * thread, Cyclone's included), and from its closing line the messages it
 * published per second (odom, tf, diagnostics, battery, ...).
 */
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Reads fd until a line containing `want` (1) or the end or the time (0). */
static int wait_for(int fd, const char *want, double timeout, char *line, size_t cap)
{
    char buf[8192];
    size_t held = 0;
    double end = mono() + timeout;
    while (mono() < end) {
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, (int)ceil((end - mono()) * 1000)) <= 0)
            continue;
        ssize_t n = read(fd, buf + held, sizeof buf - 1 - held);
        if (n <= 0)
            return 0;
        held += (size_t)n;
        buf[held] = 0;
        char *nl;
        while ((nl = strchr(buf, '\n')) != NULL) {
            *nl = 0;
            if (strstr(buf, want)) {
                snprintf(line, cap, "%.*s", (int)(cap - 1), buf);
                return 1;
            }
            held -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, held + 1);
        }
        if (held == sizeof buf - 1)
            held = 0;
    }
    return 0;
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
    if (!wait_for(out[0], "on DDS domain", 60, line, sizeof line)) {
        snprintf(err, errlen, "botwire ros2 with %zu robots never came up%s", robots,
                 wait_for(errp[0], "", 1, line, sizeof line) ? line : "");
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
    int found = wait_for(errp[0], "messages published in", 30, line, sizeof line);
    waitpid(pid, NULL, 0);
    double ran = 0;
    if (!found || sscanf(strstr(line, "ros2: ") + 6, "%llu messages published in %lf s",
                         &r->published, &ran) != 2 ||
        !(ran > 0) || cpu0 < 0 || cpu1 < 0) {
        snprintf(err, errlen, "botwire ros2 did not say what it published: %s", found ? line : "");
        goto done;
    }
    r->seconds = ran;
    r->per_second = (double)r->published / ran;
    r->cpu = (cpu1 - cpu0) / (t1 - t0);
    rc = 0;
done:
    close(out[0]);
    close(errp[0]);
    return rc;
}
