/* Server side of a pseudo-terminal: the master end, for emulators. */
#include "port_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

struct pty_port {
    bw_port_t base;
    int slave_fd;      /* held open so clients never disturb the line settings */
    char slave[128];   /* /dev/pts/N */
    char *link;        /* NULL if none */
    int watch_fd;      /* inotify on the slave: clients opening and closing it */
    int clients;       /* opens minus closes seen */
};

static void pty_close(bw_port_t *port)
{
    struct pty_port *p = (struct pty_port *)port;
    if (p->link) {
        /* Only our own link: another emulator may have taken the name over. */
        char target[sizeof p->slave];
        ssize_t n = readlink(p->link, target, sizeof target - 1);
        if (n >= 0) {
            target[n] = '\0';
            if (strcmp(target, p->slave) == 0)
                unlink(p->link);
        }
        free(p->link);
    }
    if (p->slave_fd >= 0)
        close(p->slave_fd);
    if (p->watch_fd >= 0)
        close(p->watch_fd);
    if (port->fd >= 0)
        close(port->fd);
    free(p);
}

static const struct bw_port_ops pty_ops = {
    .read = bw_io_tty_read,
    .write = bw_io_tty_write,
    .close = pty_close,
};

/* The process that holds the master of pty number `index` (its ptmx
 * descriptor says "tty-index: N" in /proc/PID/fdinfo), other than this one:
 * its pid and command name, or 0 when none is visible (another user's, or
 * no /proc). Looked for only when a link leads to a live pty. */
long bw_io_pty_holder(unsigned index, char *comm, size_t cap)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    long found = 0, self = (long)getpid();
    struct dirent *pe;
    while (!found && (pe = readdir(proc)) != NULL) {
        char *end;
        long pid = strtol(pe->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/fd", pid);
        DIR *fds = opendir(path);
        if (!fds)
            continue;
        struct dirent *fe;
        while (!found && (fe = readdir(fds)) != NULL) {
            char fd_path[320], target[64];
            snprintf(fd_path, sizeof fd_path, "/proc/%ld/fd/%s", pid, fe->d_name);
            ssize_t n = readlink(fd_path, target, sizeof target - 1);
            if (n <= 0)
                continue;
            target[n] = '\0';
            if (strcmp(target, "/dev/ptmx") != 0 && strcmp(target, "/dev/pts/ptmx") != 0)
                continue;
            snprintf(fd_path, sizeof fd_path, "/proc/%ld/fdinfo/%s", pid, fe->d_name);
            FILE *f = fopen(fd_path, "r");
            if (!f)
                continue;
            char line[128];
            unsigned idx;
            while (fgets(line, sizeof line, f))
                if (sscanf(line, "tty-index: %u", &idx) == 1 && idx == index)
                    found = pid;
            fclose(f);
        }
        closedir(fds);
    }
    closedir(proc);
    comm[0] = '\0';
    if (found) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/comm", found);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fgets(comm, (int)cap, f))
                comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
    }
    return found;
}

/* Whether process pid started after the wall-clock time `t` (its start in
 * /proc/PID/stat counts clock ticks from the boot, /proc/stat's btime, in
 * whole seconds: the comparison is good to a second or so, which is what
 * telling a later process from the link's maker needs only when the number
 * is given again at once). */
static bool started_after(long pid, double t)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    unsigned long long start = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                            "%*d %*d %llu",
                     &start) != 1)
        return false;
    f = fopen("/proc/stat", "r");
    if (!f)
        return false;
    unsigned long long btime = 0;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "btime %llu", &btime) == 1)
            break;
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    return btime && hz > 0 && (double)btime + (double)start / (double)hz > t;
}

bool bw_io_pty_after_link(const struct stat *pty, const struct stat *link)
{
    double made = (double)link->st_mtim.tv_sec + (double)link->st_mtim.tv_nsec / 1e9;
    double born = (double)pty->st_ctim.tv_sec + (double)pty->st_ctim.tv_nsec / 1e9;
    return born > made + (link->st_mtim.tv_nsec == 0 ? 1.0 : 0.0);
}

/* A link that leads to a pty still served (its /dev/pts entry lives as long
 * as its master is open) is another emulator's: taking it over would hand
 * that one's clients to us, and our exit would delete their link. A link to
 * a pty that is gone (its emulator was killed) is stale and replaced, and so
 * is one whose pty number was given again after the link was made: the pty
 * is newer than the link, or a process started after the link holds it.
 * (Seen: an emulator killed, and its pty number taken by another program's
 * new pty while the tests ran side by side; the emulator restarted on the
 * same link refused it.) */
static int check_live(const char *link, const char *ours, char *err, size_t errlen)
{
    char target[PATH_MAX];
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
        return 0;
    target[n] = '\0';
    if (strcmp(target, ours) == 0)
        return 0; /* a stale link to the number our new pty was given */
    unsigned index;
    char extra;
    struct stat st;
    if (sscanf(target, "/dev/pts/%u%c", &index, &extra) != 1 || stat(target, &st) != 0 ||
        !S_ISCHR(st.st_mode))
        return 0;
    struct stat lst;
    bool have_lst = lstat(link, &lst) == 0;
    if (have_lst && bw_io_pty_after_link(&st, &lst))
        return 0; /* the number was given anew: the link is stale */
    char comm[64];
    long pid = bw_io_pty_holder(index, comm, sizeof comm);
    if (pid > 0 && have_lst &&
        started_after(pid, (double)lst.st_mtim.tv_sec + (double)lst.st_mtim.tv_nsec / 1e9 + 0.05))
        return 0; /* the number was given anew to a later process: the link is stale */
    if (pid > 0 && strncmp(comm, "botwire", 7) == 0)
        bw_io_errf(err, errlen, "%s is served by another emulator (pid %ld, on %s): not taking it "
                                "over (stop that one first, or pick another link)",
                   link, pid, target);
    else if (pid > 0)
        bw_io_errf(err, errlen, "%s leads to %s, which pid %ld (%s) serves: not taking it over "
                                "(remove %s if it is stale)",
                   link, target, pid, comm, link);
    else
        bw_io_errf(err, errlen, "%s leads to %s, which is in use: not taking it over (remove %s "
                                "if it is stale)",
                   link, target, link);
    return BW_ESTATE;
}

/* Points `link` at `target`: a new name is made at once (so of two
 * emulators starting together, one gets it); a stale link is replaced in
 * one rename, so a client opening the name never finds it missing. */
static int make_link(const char *link, const char *target, char *err, size_t errlen)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        struct stat st;
        if (lstat(link, &st) != 0) {
            if (symlink(target, link) == 0)
                return 0;
            if (errno == EEXIST)
                continue; /* made meanwhile: look at it */
            bw_io_errf(err, errlen, "cannot create link %s: %s", link, strerror(errno));
            return BW_EIO;
        }
        if (!S_ISLNK(st.st_mode)) {
            /* Only a link (an old emulator's) is ours to replace. */
            bw_io_errf(err, errlen, "cannot create link %s: it exists and is not a link (%s); not "
                                    "replacing it",
                       link, S_ISDIR(st.st_mode) ? "a directory" : "a file");
            return BW_EINVAL;
        }
        int rc = check_live(link, target, err, errlen);
        if (rc < 0)
            return rc;
        char tmp[PATH_MAX];
        int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", link, (long)getpid());
        if (n < 0 || (size_t)n >= sizeof tmp) {
            bw_io_errf(err, errlen, "cannot create link %s: path too long", link);
            return BW_EINVAL;
        }
        (void)unlink(tmp); /* left by an earlier process with our pid */
        if (symlink(target, tmp) != 0) {
            bw_io_errf(err, errlen, "cannot create link %s: %s", link, strerror(errno));
            return BW_EIO;
        }
        if (rename(tmp, link) != 0) {
            int e = errno;
            (void)unlink(tmp);
            bw_io_errf(err, errlen, "cannot create link %s: %s", link, strerror(e));
            return BW_EIO;
        }
        return 0;
    }
    bw_io_errf(err, errlen, "cannot create link %s: it keeps changing", link);
    return BW_EIO;
}

int bw_pty_open(bw_port_t **master, char *slave_path, size_t slave_cap, const char *link,
                char *err, size_t errlen)
{
    if (master)
        *master = NULL;
    if (!master || (link && !*link)) {
        bw_io_errf(err, errlen, "bad arguments to bw_pty_open");
        return BW_EINVAL;
    }
    struct pty_port *p = calloc(1, sizeof *p);
    if (!p) {
        bw_io_errf(err, errlen, "cannot create a pseudo-terminal: out of memory");
        return BW_ENOMEM;
    }
    p->slave_fd = -1;
    p->watch_fd = -1;
    p->base.fd = -1;
    int rc = BW_EIO;

    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0) {
        bw_io_errf(err, errlen, "cannot create a pseudo-terminal: %s", strerror(errno));
        goto fail;
    }
    p->base.fd = m;
    if (grantpt(m) != 0 || unlockpt(m) != 0) {
        bw_io_errf(err, errlen, "cannot unlock the pseudo-terminal: %s", strerror(errno));
        goto fail;
    }
    int e = ptsname_r(m, p->slave, sizeof p->slave);
    if (e != 0) {
        bw_io_errf(err, errlen, "cannot name the pseudo-terminal: %s", strerror(e));
        goto fail;
    }
    p->slave_fd = open(p->slave, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (p->slave_fd < 0) {
        bw_io_errf(err, errlen, "cannot open %s: %s", p->slave, strerror(errno));
        goto fail;
    }
    struct termios t;
    if (tcgetattr(p->slave_fd, &t) != 0) {
        bw_io_errf(err, errlen, "cannot read the line settings of %s: %s", p->slave,
                   strerror(errno));
        goto fail;
    }
    cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    if (tcsetattr(p->slave_fd, TCSANOW, &t) != 0) {
        bw_io_errf(err, errlen, "cannot set %s raw: %s", p->slave, strerror(errno));
        goto fail;
    }
    /* Our own slave descriptor is open already, so only clients count. A
     * kernel without inotify leaves the clients unknown (see bw_pty_clients). */
    p->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (p->watch_fd >= 0 && inotify_add_watch(p->watch_fd, p->slave, IN_OPEN | IN_CLOSE) < 0) {
        close(p->watch_fd);
        p->watch_fd = -1;
    }
    int fl = fcntl(m, F_GETFL);
    if (fl < 0 || fcntl(m, F_SETFL, fl | O_NONBLOCK) != 0) {
        bw_io_errf(err, errlen, "cannot make the pseudo-terminal non-blocking: %s",
                   strerror(errno));
        goto fail;
    }
    if (slave_path && slave_cap > 0) {
        size_t len = strlen(p->slave);
        if (len >= slave_cap) {
            bw_io_errf(err, errlen, "slave path %s does not fit in %zu bytes", p->slave,
                       slave_cap);
            rc = BW_EINVAL;
            goto fail;
        }
        memcpy(slave_path, p->slave, len + 1);
    }
    if (link) {
        p->link = strdup(link);
        if (!p->link) {
            bw_io_errf(err, errlen, "cannot create link %s: out of memory", link);
            rc = BW_ENOMEM;
            goto fail;
        }
        rc = make_link(link, p->slave, err, errlen);
        if (rc != 0) {
            free(p->link);
            p->link = NULL;
            goto fail;
        }
    }
    bw_io_port_init(&p->base, &pty_ops, m, p->slave);
    *master = &p->base;
    return 0;

fail:
    pty_close(&p->base);
    return rc;
}

static struct pty_port *as_pty(const bw_port_t *port)
{
    return port && port->ops == &pty_ops ? (struct pty_port *)port : NULL;
}

int bw_pty_watch_fd(const bw_port_t *master)
{
    const struct pty_port *p = as_pty(master);
    return p ? p->watch_fd : -1;
}

int bw_pty_clients(bw_port_t *master, bool *emptied)
{
    struct pty_port *p = as_pty(master);
    if (emptied)
        *emptied = false;
    if (!p)
        return BW_EINVAL;
    if (p->watch_fd < 0)
        return BW_ENOTSUP;
    /* Every open of the slave is one IN_OPEN, and its last close (whoever
     * holds the descriptor then: a forked child, a dup) one IN_CLOSE. */
    union {
        struct inotify_event ev;
        char bytes[4096];
    } buf;
    ssize_t n;
    while ((n = read(p->watch_fd, buf.bytes, sizeof buf.bytes)) > 0) {
        for (ssize_t off = 0; off + (ssize_t)sizeof(struct inotify_event) <= n;) {
            struct inotify_event ev;
            memcpy(&ev, buf.bytes + off, sizeof ev);
            if (ev.mask & IN_OPEN)
                p->clients++;
            if ((ev.mask & IN_CLOSE) && p->clients > 0 && --p->clients == 0) {
                /* What the last client did not read is nobody's now. */
                (void)tcflush(p->slave_fd, TCIFLUSH);
                if (emptied)
                    *emptied = true;
            }
            off += (ssize_t)(sizeof ev + ev.len);
        }
    }
    return p->clients;
}
