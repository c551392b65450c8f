/* Link supervision in real time, with real processes: the emulator (`botwire
 * sim kobuki --pty LINK`) is killed and restarted under a connected driver;
 * and a driving program that dies stops its robot on the way out.
 * usage: test_kobuki_link BOTWIRE */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "botwire/botwire.h"

static const char *botwire;
static char dir[64];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Starts the emulator on a pty with the link and returns once it has said
 * it is serving (its first line), not after a guessed delay. */
static pid_t start_sim(const char *link)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl(botwire, botwire, "sim", "kobuki", "--pty", link, "--for", "60", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char line[256];
    size_t n = 0;
    while (n < sizeof line - 1) {
        ssize_t r = read(fds[0], line + n, 1);
        if (r <= 0 || line[n] == '\n')
            break;
        n++;
    }
    line[n] = 0;
    close(fds[0]);
    assert_non_null(strstr(line, "botwire sim: kobuki on /dev/"));
    return pid;
}

static bool happened(double t) { return t == t; }

/* Polls the base in real time until the event comes or the time is up;
 * returns the event's time or NAN. */
static double wait_event(bw_base_t *b, bw_event_type_t type, double limit)
{
    double end = now_s() + limit;
    for (;;) {
        double t = now_s();
        if (t > end)
            return NAN;
        double next = fmin(bw_base_next_deadline(b), end);
        struct pollfd p = { bw_base_fd(b), POLLIN, 0 };
        int ms = (int)ceil(fmax(0, next - t) * 1000);
        poll(&p, p.fd >= 0 ? 1 : 0, ms);
        t = now_s();
        bw_base_poll(b, t);
        bw_event_t ev;
        while (bw_base_next_event(b, &ev))
            if (ev.type == type)
                return ev.t;
    }
}

static void test_offline_when_emulator_dies_online_when_back(void **state)
{
    (void)state;
    char link[128], url[160], err[256];
    snprintf(link, sizeof link, "%s/kobuki", dir);
    snprintf(url, sizeof url, "kobuki:%s", link);
    pid_t sim = start_sim(link);
    bw_base_t *b;
    assert_int_equal(bw_base_open(&b, url, NULL, now_s(), err, sizeof err), 0);
    assert_true(happened(wait_event(b, BW_EV_ONLINE, 2.0)));

    kill(sim, SIGKILL);
    double killed = now_s();
    waitpid(sim, NULL, 0);
    double off = wait_event(b, BW_EV_OFFLINE, 2.0);
    assert_true(happened(off));
    printf("offline %.0f ms after the emulator was killed\n", (off - killed) * 1000);
    assert_true(off - killed <= 0.200);
    assert_false(bw_base_state(b)->online);

    /* Back on the same path: the driver reopens it by itself. */
    sim = start_sim(link);
    double back = now_s();
    double on = wait_event(b, BW_EV_ONLINE, 3.0);
    assert_true(happened(on));
    printf("online again %.0f ms after the emulator came back\n", (on - back) * 1000);
    assert_true(bw_base_state(b)->reconnects >= 1);
    /* ...and it drives. */
    bw_base_drive(b, 0.2, 0, now_s());
    double x0 = bw_base_state(b)->pose.x;
    assert_false(happened(wait_event(b, BW_EV_OFFLINE, 0.5)));
    assert_true(bw_base_state(b)->pose.x - x0 > 0.03);
    bw_base_close(b, now_s());
    kill(sim, SIGTERM);
    waitpid(sim, NULL, 0);
}

/* Decodes every Base Control the server received. */
static size_t read_commands(bw_port_t *server, bw_kobuki_base_control_t *out, size_t cap)
{
    bw_kobuki_parser_t p;
    bw_kobuki_parser_init(&p);
    size_t n = 0;
    uint8_t buf[4096];
    int got;
    while ((got = bw_port_read(server, buf, sizeof buf)) > 0) {
        const uint8_t *d = buf;
        size_t len = (size_t)got;
        bw_kobuki_frame_t f;
        int rc;
        while ((rc = bw_kobuki_parse(&p, &d, &len, &f)) != 0) {
            bw_kobuki_iter_t it;
            bw_kobuki_msg_t m;
            bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_HOST, NULL);
            while (rc > 0 && bw_kobuki_iter_next(&it, &m) > 0)
                if (m.type == BW_KOBUKI_BASE_CONTROL && n < cap)
                    out[n++] = m.u.base_control;
        }
    }
    return n;
}

/* A child drives, then dies by signal or exit() without closing its base. */
static void run_child_and_check(int how)
{
    char link[128], url[160], err[256], slave[64];
    snprintf(link, sizeof link, "%s/robot%d", dir, how);
    snprintf(url, sizeof url, "kobuki:%s", link);
    bw_port_t *server;
    assert_int_equal(bw_pty_open(&server, slave, sizeof slave, link, err, sizeof err), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        bw_base_t *b;
        if (bw_base_open(&b, url, NULL, now_s(), err, sizeof err) < 0)
            _exit(3);
        bw_base_stop_on_exit();
        bw_base_drive(b, 0.2, 0, now_s());
        if (how == 0)
            raise(SIGTERM);
        exit(0); /* never closed: the exit handler has to stop it */
    }
    int status;
    waitpid(pid, &status, 0);
    if (how == 0)
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    else
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* Everything the child wrote is in the pty by now. */
    struct pollfd p = { bw_port_fd(server), POLLIN, 0 };
    assert_int_equal(poll(&p, 1, 2000), 1);
    bw_kobuki_base_control_t cmds[8];
    size_t n = read_commands(server, cmds, 8);
    assert_int_equal(n, 2);
    assert_int_equal(cmds[0].speed, 200);
    assert_int_equal(cmds[1].speed, 0); /* the last word was "stop" */
    assert_int_equal(cmds[1].radius, 0);
    bw_port_close(server);
}

static void test_sigterm_stops_the_robot(void **state)
{
    (void)state;
    run_child_and_check(0);
}

static void test_exit_stops_the_robot(void **state)
{
    (void)state;
    run_child_and_check(1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s BOTWIRE\n", argv[0]);
        return 2;
    }
    botwire = argv[1];
    snprintf(dir, sizeof dir, "/tmp/bw-link-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offline_when_emulator_dies_online_when_back),
        cmocka_unit_test(test_sigterm_stops_the_robot),
        cmocka_unit_test(test_exit_stops_the_robot),
    };
    int rc = cmocka_run_group_tests_name("kobuki link, real time", tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
