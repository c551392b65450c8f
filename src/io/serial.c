/* Serial devices and pty slaves, through termios. */
#include "port_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

struct serial_port {
    bw_port_t base;
    bool exclusive; /* TIOCEXCL set by us, cleared on close */
};

static const struct {
    int rate;
    speed_t code;
} baud_table[] = {
    { 50, B50 },           { 75, B75 },           { 110, B110 },         { 134, B134 },
    { 150, B150 },         { 200, B200 },         { 300, B300 },         { 600, B600 },
    { 1200, B1200 },       { 1800, B1800 },       { 2400, B2400 },       { 4800, B4800 },
    { 9600, B9600 },       { 19200, B19200 },     { 38400, B38400 },     { 57600, B57600 },
    { 115200, B115200 },   { 230400, B230400 },   { 460800, B460800 },   { 500000, B500000 },
    { 576000, B576000 },   { 921600, B921600 },   { 1000000, B1000000 }, { 1152000, B1152000 },
    { 1500000, B1500000 }, { 2000000, B2000000 }, { 2500000, B2500000 }, { 3000000, B3000000 },
    { 3500000, B3500000 }, { 4000000, B4000000 },
};

static bool baud_code(int rate, speed_t *code)
{
    for (size_t i = 0; i < sizeof baud_table / sizeof baud_table[0]; i++) {
        if (baud_table[i].rate == rate) {
            *code = baud_table[i].code;
            return true;
        }
    }
    return false;
}

/* Unix98 pty slaves (/dev/pts/N) have majors 136..143. */
static bool is_pty_slave(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
        return false;
    unsigned int maj = major(st.st_rdev);
    return maj >= 136 && maj <= 143;
}

static void serial_close(bw_port_t *port)
{
    struct serial_port *s = (struct serial_port *)port;
    if (s->exclusive)
        (void)ioctl(port->fd, TIOCNXCL);
    close(port->fd);
    free(s);
}

static const struct bw_port_ops serial_ops = {
    .read = bw_io_tty_read,
    .write = bw_io_tty_write,
    .close = serial_close,
};

/* A link an emulator made to its pty outlives it when it is killed; the
 * pty's number is then given to the next pty opened, another emulator's or a
 * terminal. A pty made after the link is not the one the link was made for. */
static bool stale_link(const char *path, char *err, size_t errlen)
{
    struct stat l, t;
    char target[256];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0 || lstat(path, &l) != 0 || stat(path, &t) != 0)
        return false;
    target[n] = 0;
    if (strncmp(target, "/dev/pts/", 9) != 0)
        return false;
    bool newer = bw_io_pty_after_link(&t, &l);
    if (newer)
        bw_io_errf(err, errlen,
                   "cannot open %s: it is a stale link to %s, which now belongs to another "
                   "program (the emulator that made it is gone: start it again)",
                   path, target);
    return newer;
}

/* The name of process pid (its comm), or "?". */
static void proc_name(long pid, char *out, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    snprintf(out, cap, "?");
    FILE *c = fopen(path, "r");
    if (c) {
        if (fgets(out, (int)cap, c))
            out[strcspn(out, "\n")] = 0;
        fclose(c);
    }
}

int bw_port_holders(const char *path, char *out, size_t cap)
{
    if (cap)
        out[0] = 0;
    char real[PATH_MAX];
    if (!realpath(path, real))
        return 0;
    /* a pty's slave is held open by the program serving its master (an
     * emulator): that one serves it, it does not hold it against a client */
    unsigned index;
    char comm[32];
    long server = sscanf(real, "/dev/pts/%u", &index) == 1
                      ? bw_io_pty_holder(index, comm, sizeof comm) : 0;
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    size_t n = 0;
    int found = 0;
    long self = (long)getpid();
    struct dirent *p;
    while ((p = readdir(proc)) && found < 4) {
        char *end;
        long pid = strtol(p->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self || pid == server)
            continue;
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
        DIR *fds = opendir(dir);
        if (!fds)
            continue;
        struct dirent *f;
        bool holds = false;
        while (!holds && (f = readdir(fds))) {
            char link[96], target[PATH_MAX];
            snprintf(link, sizeof link, "%s/%.20s", dir, f->d_name);
            ssize_t k = readlink(link, target, sizeof target - 1);
            if (k > 0) {
                target[k] = 0;
                holds = strcmp(target, real) == 0;
            }
        }
        closedir(fds);
        if (!holds)
            continue;
        proc_name(pid, comm, sizeof comm);
        if (n < cap)
            n += (size_t)snprintf(out + n, cap - n, "%s%s pid %ld", found ? ", " : "", comm, pid);
        found++;
    }
    closedir(proc);
    return found;
}

/* The program holding the advisory lock on fd's file (another botwire
 * host): " (pid N, NAME)" into out, or "" (/proc/locks names it). */
static void lock_holder(int fd, char *out, size_t cap)
{
    out[0] = 0;
    struct stat st;
    FILE *f = fopen("/proc/locks", "r");
    if (!f || fstat(fd, &st) != 0) {
        if (f)
            fclose(f);
        return;
    }
    char line[256];
    while (fgets(line, sizeof line, f)) {
        long pid;
        unsigned maj, min;
        unsigned long long ino;
        char kind[16];
        if (sscanf(line, "%*[^:]: %15s %*s %*s %ld %x:%x:%llu", kind, &pid, &maj, &min, &ino) !=
                5 ||
            strcmp(kind, "FLOCK") != 0 || ino != (unsigned long long)st.st_ino ||
            maj != major(st.st_dev) || min != minor(st.st_dev))
            continue;
        char comm[32];
        proc_name(pid, comm, sizeof comm);
        snprintf(out, cap, " (%s, pid %ld)", comm, pid);
        break;
    }
    fclose(f);
}

/* Why a serial device did not open, and what to do about it. */
static void open_failed(const char *path, int e, char *err, size_t errlen)
{
    if (e == ENOENT || e == ENOTDIR) {
        /* USB adapters and boards; the built-in ttyS* always exist. */
        char found[512] = "";
        size_t n = 0;
        glob_t g;
        memset(&g, 0, sizeof g);
        (void)glob("/dev/ttyUSB*", 0, NULL, &g);
        (void)glob("/dev/ttyACM*", GLOB_APPEND, NULL, &g);
        for (size_t i = 0; i < g.gl_pathc && n < sizeof found - 1; i++)
            n += (size_t)snprintf(found + n, sizeof found - n, "%s%s", n ? ", " : "",
                                  g.gl_pathv[i]);
        globfree(&g);
        bool dev = strncmp(path, "/dev/", 5) == 0;
        bw_io_errf(err, errlen, "cannot open %s: no such %s (%s%s)", path, dev ? "device" : "file",
                   n    ? "serial devices here: "
                   : dev ? "no USB serial device is plugged in: is the robot's cable connected "
                           "and the robot on?"
                         : "and no USB serial device is plugged in; an emulator's link is made "
                           "by botwire sim --pty PATH",
                   found);
    } else if (e == EACCES || e == EPERM) {
        struct stat st;
        if (stat(path, &st) != 0) {
            bw_io_errf(err, errlen, "cannot open %s: permission denied on the way to it", path);
            return;
        }
        const struct passwd *pw = getpwuid(st.st_uid);
        const struct group *gr = getgrgid(st.st_gid);
        char owner[64], group[64];
        snprintf(owner, sizeof owner, "%s", pw ? pw->pw_name : "?");
        snprintf(group, sizeof group, "%s", gr ? gr->gr_name : "?");
        bool group_rw = (st.st_mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP);
        if (group_rw && st.st_gid != 0)
            bw_io_errf(err, errlen,
                       "cannot open %s: permission denied (owner %s, group %s, mode %03o: join "
                       "the group: sudo usermod -aG %s \"$USER\", then log in again)",
                       path, owner, group, (unsigned)(st.st_mode & 0777), group);
        else if ((st.st_mode & (S_IRUSR | S_IWUSR)) == (S_IRUSR | S_IWUSR) && st.st_uid != 0)
            bw_io_errf(err, errlen,
                       "cannot open %s: permission denied (owner %s, group %s, mode %03o: only "
                       "%s can open it; run as %s, or give it a group: sudo chgrp dialout %s && "
                       "sudo chmod g+rw %s)",
                       path, owner, group, (unsigned)(st.st_mode & 0777), owner, owner, path,
                       path);
        else
            bw_io_errf(err, errlen,
                       "cannot open %s: permission denied (owner %s, group %s, mode %03o: only "
                       "root can open it; run as root, or give it a group: sudo chgrp dialout %s "
                       "&& sudo chmod g+rw %s)",
                       path, owner, group, (unsigned)(st.st_mode & 0777), path, path);
    } else if (e == EBUSY) {
        char who[160];
        if (bw_port_holders(path, who, sizeof who) > 0)
            bw_io_errf(err, errlen, "cannot open %s: in use by another program (held by %s)",
                       path, who);
        else
            bw_io_errf(err, errlen, "cannot open %s: in use by another program (fuser -v shows "
                       "which)", path);
    } else {
        bw_io_errf(err, errlen, "cannot open %s: %s", path, strerror(e));
    }
}

int bw_port_open_serial(bw_port_t **port, const char *path, int baud, char *err, size_t errlen)
{
    if (port)
        *port = NULL;
    if (!port || !path || !*path) {
        bw_io_errf(err, errlen, "no serial device given");
        return BW_EINVAL;
    }
    speed_t speed;
    /* A rate without a termios code is set afterwards through termios2. */
    bool custom = !baud_code(baud, &speed);
    if (custom)
        speed = B38400;
    if (baud <= 0) {
        bw_io_errf(err, errlen, "unsupported baud rate %d", baud);
        return BW_EINVAL;
    }
    struct serial_port *s = calloc(1, sizeof *s);
    if (!s) {
        bw_io_errf(err, errlen, "cannot open %s: out of memory", path);
        return BW_ENOMEM;
    }
    if (stale_link(path, err, errlen)) {
        free(s);
        return BW_EIO;
    }
    int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        open_failed(path, errno, err, errlen);
        free(s);
        return BW_EIO;
    }
    int rc = BW_EIO;
    if (!isatty(fd)) {
        bw_io_errf(err, errlen, "%s is not a serial device", path);
        rc = BW_EINVAL;
        goto fail;
    }
    /* Not on a pty slave: the emulator holds its slave open for the whole
     * run, so the flag would outlive a client killed before its close and
     * lock every later client out (TIOCEXCL lasts until the last close). */
    /* Two hosts on one line fight over the robot without knowing it: a
     * second botwire host (of any kind) is refused. TIOCEXCL cannot say so
     * on an emulator's pty (below); an advisory lock on the open line can. */
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            char who[96];
            lock_holder(fd, who, sizeof who);
            bw_io_errf(err, errlen, "cannot open %s: another program is driving this robot "
                                    "through it%s", path, who);
        } else {
            bw_io_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        }
        goto fail;
    }
    if (!is_pty_slave(fd)) {
        if (ioctl(fd, TIOCEXCL) != 0) {
            bw_io_errf(err, errlen, "cannot lock %s for exclusive use: %s", path, strerror(errno));
            goto fail;
        }
        s->exclusive = true;
    }
    struct termios t;
    if (tcgetattr(fd, &t) != 0) {
        bw_io_errf(err, errlen, "cannot read the line settings of %s: %s", path, strerror(errno));
        goto fail;
    }
    cfmakeraw(&t);
    t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
    /* VMIN=1, not 0: with O_NONBLOCK an idle line then reads EAGAIN, while
     * VMIN=0 reads 0 there, the same as a hang-up. */
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    if (cfsetispeed(&t, speed) != 0 || cfsetospeed(&t, speed) != 0 ||
        tcsetattr(fd, TCSANOW, &t) != 0) {
        bw_io_errf(err, errlen, "cannot set %s to %d baud 8N1: %s", path, baud, strerror(errno));
        goto fail;
    }
    int e;
    if (custom && (e = bw_io_set_any_baud(fd, baud)) != 0) {
        bw_io_errf(err, errlen, "cannot set %s to %d baud: %s", path, baud, strerror(-e));
        rc = BW_EINVAL;
        goto fail;
    }
    if (tcflush(fd, TCIOFLUSH) != 0) {
        bw_io_errf(err, errlen, "cannot flush %s: %s", path, strerror(errno));
        goto fail;
    }
    bw_io_port_init(&s->base, &serial_ops, fd, path);
    *port = &s->base;
    return 0;

fail:
    if (s->exclusive)
        (void)ioctl(fd, TIOCNXCL);
    close(fd);
    free(s);
    return rc;
}
