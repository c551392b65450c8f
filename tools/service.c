/* The commands as systemd services (cli.h): the notify protocol of
 * sd_notify(3), a datagram of KEY=VALUE lines to the Unix socket
 * $NOTIFY_SOCKET names (a path, or "@name" in the abstract namespace), as
 * systemd documents it; nothing at all when it is not set. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
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
