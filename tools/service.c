/* The commands as services (cli.h): the options every long-running one
 * takes (--detach, --log, --pidfile), and under systemd the notify protocol of
 * sd_notify(3), a datagram of KEY=VALUE lines to the Unix socket
 * $NOTIFY_SOCKET names (a path, or "@name" in the abstract namespace), as
 * systemd documents it; nothing at all when it is not set. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memrchr, pipe2 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static bool readied;
static double watchdog_period = -1; /* s between WATCHDOG=1; 0: none; -1: not yet read */
static double watchdog_next;

void cli_service_notify(const char *text)
{
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !*path)
        return;
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    size_t n = strlen(path);
    if (n >= sizeof a.sun_path || (path[0] != '/' && path[0] != '@'))
        return;
    memcpy(a.sun_path, path, n);
    if (path[0] == '@')
        a.sun_path[0] = 0; /* the abstract namespace */
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    /* best effort, as sd_notify: a service manager gone changes nothing */
    (void)sendto(fd, text, strlen(text), MSG_NOSIGNAL, (const struct sockaddr *)&a,
                 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
    close(fd);
}

void cli_service_ready(const char *status)
{
    if (readied)
        return;
    readied = true;
    char text[512];
    int k = snprintf(text, sizeof text, "READY=1\nMAINPID=%ld\nSTATUS=", (long)getpid());
    /* one line: a fleet's ready lines joined */
    for (const char *c = status; *c && k < (int)sizeof text - 3; c++) {
        if (*c == '\n') {
            if (c[1])
                k += snprintf(text + k, sizeof text - (size_t)k, "; ");
        } else {
            text[k++] = *c;
        }
    }
    text[k] = 0;
    cli_service_notify(text);
}

/* $WATCHDOG_USEC, for this process ($WATCHDOG_PID, when set, names it). */
static double period(void)
{
    if (watchdog_period >= 0)
        return watchdog_period;
    watchdog_period = 0;
    const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
    if (!usec || (pid && *pid && strtol(pid, NULL, 10) != (long)getpid()))
        return 0;
    double us = strtod(usec, NULL);
    if (us > 0 && isfinite(us))
        watchdog_period = us / 2e6; /* twice in each period, as sd_watchdog_enabled(3) advises */
    return watchdog_period;
}

double cli_service_watchdog(double now)
{
    double p = period();
    if (p <= 0)
        return INFINITY;
    if (now >= watchdog_next) {
        cli_service_notify("WATCHDOG=1");
        watchdog_next = now + p;
    }
    return watchdog_next;
}

/* ---- --detach, --log, --pidfile ------------------------------------------------ */

void cli_service_init(cli_service_t *sv, const char *cmd)
{
    memset(sv, 0, sizeof *sv);
    sv->log_fd = sv->pid_fd = sv->announce_fd = -1;
    snprintf(sv->who, sizeof sv->who, "%s", cmd);
}

const char *cli_service_help(int col)
{
    static const char *const options[][2] = {
        { "--detach", "once serving, go on in the background and return (the first lines "
                      "then end with its pid, to stop it: kill PID); it lets go of the "
                      "terminal and of the caller's output and pipes" },
        { "--log FILE", "with --detach: where its later lines go (appended; default: "
                        "nowhere)" },
        { "--pidfile FILE", "the serving process's pid, written before the first line (with "
                            "--detach: the background one's), removed when it ends" },
    };
    static char text[1024];
    size_t k = 0, width = col < 60 ? 80 - (size_t)col : 20;
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        const char *name = options[i][0], *d = options[i][1];
        while (*d) { /* the description in lines of at most `width`, at spaces */
            size_t len = strlen(d);
            if (len > width) {
                len = width;
                while (len > 0 && d[len] != ' ')
                    len--;
                if (len == 0)
                    len = width;
            }
            int m = snprintf(text + k, sizeof text - k, "  %-*s%.*s\n", col - 2, name, (int)len, d);
            if (m < 0 || (size_t)m >= sizeof text - k)
                return text;
            k += (size_t)m;
            name = "";
            d += len;
            while (*d == ' ')
                d++;
        }
    }
    return text;
}

bool cli_service_option(cli_service_t *sv, int c, const char *arg)
{
    switch (c) {
    case CLI_OPT_DETACH: sv->detach = true; return true;
    case CLI_OPT_LOG: sv->log_path = arg; return true;
    case CLI_OPT_PIDFILE: sv->pid_path = arg; return true;
    default: return false;
    }
}

/* The caller's side of --detach: the first lines from the pipe, then the
 * serving process's pid after them, and the exit. */
static void wait_for_announcement(int fd, pid_t pid)
{
    char buf[4096];
    size_t n = 0;
    bool any = false;
    for (;;) {
        ssize_t k = read(fd, buf + n, sizeof buf - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        any = true;
        n += (size_t)k;
        if (n == sizeof buf - 1) { /* a long announcement: out as it comes, the end kept */
            size_t keep = 0;
            char *nl = memrchr(buf, '\n', n);
            if (nl) {
                keep = n - (size_t)(nl + 1 - buf);
                fwrite(buf, 1, n - keep, stdout);
                memmove(buf, nl + 1, keep);
            } else {
                fwrite(buf, 1, n, stdout);
            }
            n = keep;
        }
    }
    close(fd);
    if (!any) { /* it ended before serving: its own errors said why */
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        fflush(NULL);
        _exit(WIFEXITED(st) && WEXITSTATUS(st) ? WEXITSTATUS(st) : 1);
    }
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    fwrite(buf, 1, n, stdout);
    printf(" (pid %ld)\n", (long)pid);
    fflush(NULL);
    _exit(0);
}

int cli_service_begin(cli_service_t *sv)
{
    if (sv->log_path && !sv->detach) {
        cli_error(sv->who, "--log goes with --detach (without it the lines are on stderr)");
        return 2;
    }
    if (sv->log_path &&
        (sv->log_fd = open(sv->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666)) < 0) {
        cli_error(sv->who, "cannot write %s: %s", sv->log_path, strerror(errno));
        return 1;
    }
    if (sv->pid_path &&
        (sv->pid_fd = open(sv->pid_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        cli_error(sv->who, "cannot write %s: %s", sv->pid_path, strerror(errno));
        cli_service_end(sv);
        return 1;
    }
    if (!sv->detach)
        return 0;
    int p[2];
    fflush(NULL);
    if (pipe2(p, O_CLOEXEC) < 0) {
        cli_error(sv->who, "cannot go to the background: %s", strerror(errno));
        cli_service_end(sv);
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        cli_error(sv->who, "cannot go to the background: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        cli_service_end(sv);
        return 1;
    }
    if (pid > 0) {
        close(p[1]);
        wait_for_announcement(p[0], pid); /* does not return */
    }
    /* The serving process: its own session (no terminal's signals), its
     * first lines down the pipe; errors before them go to the caller's
     * stderr, as they would without --detach. */
    close(p[0]);
    setsid();
    sv->announce_fd = p[1];
    return 0;
}

/* All of it, or false with errno set; a signal caught meanwhile (without
 * SA_RESTART it interrupts a write that a full pipe holds) does not cut
 * it short: the stop it asks for is the serving loop's to act on. */
static bool write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = EIO;
            return false;
        }
        p += k;
        n -= (size_t)k;
    }
    return true;
}

void cli_service_announce(cli_service_t *sv, const char *text, const char *what)
{
    if (sv->pid_fd >= 0) { /* there before the caller goes on */
        char line[32];
        int k = snprintf(line, sizeof line, "%ld\n", (long)getpid());
        if (write(sv->pid_fd, line, (size_t)k) != k)
            cli_error(sv->who, "cannot write the pid file: %s", strerror(errno));
        close(sv->pid_fd);
        sv->pid_fd = -1;
    }
    fflush(NULL);
    if (sv->announce_fd < 0) {
        /* Written past stdio; where the output itself is broken (a
         * reader gone, a full disk), stdio tries once more, so that the
         * end of the command says so, as for any other line. */
        if (!write_all(STDOUT_FILENO, text, strlen(text)) || !write_all(STDOUT_FILENO, "\n", 1)) {
            fputs("\n", stdout);
            fflush(stdout);
        }
        return;
    }
    /* A caller gone: serving on all the same. */
    (void)write_all(sv->announce_fd, text, strlen(text));
    /* A daemon lets go of its caller's terminal and pipes: a script that
     * captures or pipes the output is not held until the service ends. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(sv->log_fd >= 0 ? sv->log_fd : null, STDERR_FILENO);
        close(null);
    }
    close(sv->announce_fd); /* the caller's read ends: it prints and returns */
    sv->announce_fd = -1;
    if (sv->log_fd >= 0) {
        close(sv->log_fd);
        sv->log_fd = -1;
    }
    char cmd[sizeof sv->who];
    memcpy(cmd, sv->who, sizeof cmd);
    if (snprintf(sv->who, sizeof sv->who, "%s [%s, pid %ld]", cmd, what, (long)getpid()) < 0)
        memcpy(sv->who, cmd, sizeof cmd);
}

void cli_service_end(cli_service_t *sv)
{
    if (sv->pid_fd >= 0)
        close(sv->pid_fd);
    sv->pid_fd = -1;
    if (sv->pid_path)
        unlink(sv->pid_path);
    sv->pid_path = NULL;
    if (sv->log_fd >= 0)
        close(sv->log_fd);
    sv->log_fd = -1;
}
