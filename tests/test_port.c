/* Ports: in-memory pairs, pseudo-terminals opened as serial devices, TCP,
 * and robot URLs. Waiting for bytes on a real descriptor is done with poll()
 * and a bound, never with a sleep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "botwire/port.h"

#define WAIT_MS 2000

/* ---- helpers ------------------------------------------------------------------ */

/* poll() one descriptor for `events`, up to WAIT_MS; returns revents. */
static short wait_fd(int fd, short events)
{
    struct pollfd p = { .fd = fd, .events = events, .revents = 0 };
    int r;
    do
        r = poll(&p, 1, WAIT_MS);
    while (r < 0 && errno == EINTR);
    assert_true(r >= 0);
    return r == 0 ? 0 : p.revents;
}

/* Reads until `want` bytes arrived or nothing came for WAIT_MS. */
static size_t read_n(bw_port_t *p, uint8_t *buf, size_t want)
{
    size_t got = 0;
    while (got < want) {
        int r = bw_port_read(p, buf + got, want - got);
        assert_true(r >= 0);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (wait_fd(bw_port_fd(p), POLLIN) == 0)
            break;
    }
    return got;
}

static void write_all(bw_port_t *p, const uint8_t *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        int w = bw_port_write(p, buf + done, n - done);
        assert_true(w >= 0);
        if (w == 0)
            assert_true(wait_fd(bw_port_fd(p), POLLOUT) & POLLOUT);
        done += (size_t)w;
    }
}

static void every_byte(uint8_t out[256])
{
    for (int i = 0; i < 256; i++)
        out[i] = (uint8_t)i;
}

/* Sends all 256 byte values from `from` to `to` and checks they arrive
 * unchanged and nothing else arrives. */
static void check_all_bytes(bw_port_t *from, bw_port_t *to)
{
    uint8_t out[256], in[300];
    every_byte(out);
    write_all(from, out, sizeof out);
    assert_int_equal(read_n(to, in, sizeof out), sizeof out);
    assert_memory_equal(in, out, sizeof out);
    assert_int_equal(bw_port_read(to, in, sizeof in), 0); /* no echo, no extra CR */
}

static void check_text(bw_port_t *from, bw_port_t *to, const char *text)
{
    size_t n = strlen(text);
    uint8_t in[64];
    assert_true(n <= sizeof in);
    write_all(from, (const uint8_t *)text, n);
    assert_int_equal(read_n(to, in, n), n);
    assert_memory_equal(in, text, n);
}

/* A temporary directory per test, emptied and removed afterwards. */
typedef struct {
    char dir[64];
} tmpdir_t;

static int tmpdir_setup(void **state)
{
    tmpdir_t *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    snprintf(t->dir, sizeof t->dir, "/tmp/bw_test_port.XXXXXX");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int tmpdir_teardown(void **state)
{
    tmpdir_t *t = *state;
    DIR *d = opendir(t->dir);
    if (d) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", t->dir, e->d_name);
            if (unlink(path) != 0)
                rmdir(path);
        }
        closedir(d);
    }
    int rc = rmdir(t->dir);
    free(t);
    return rc;
}

static void tmp_path(const tmpdir_t *t, const char *name, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%s", t->dir, name);
    assert_true(n > 0 && (size_t)n < cap);
}

static size_t dir_entries(const tmpdir_t *t)
{
    DIR *d = opendir(t->dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Target of a symlink, "" if there is none. */
static const char *link_target(const char *link)
{
    static char buf[PATH_MAX];
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    buf[n >= 0 ? n : 0] = '\0';
    return buf;
}

/* A pointer that is not NULL, to see that failures reset *port. */
static bw_port_t *not_null_port(void)
{
    static int dummy;
    return (bw_port_t *)(void *)&dummy;
}

/* ---- generic --------------------------------------------------------------------- */

static void test_null_arguments(void **state)
{
    (void)state;
    uint8_t b[4] = { 0 };
    assert_int_equal(bw_port_read(NULL, b, sizeof b), BW_EINVAL);
    assert_int_equal(bw_port_write(NULL, b, sizeof b), BW_EINVAL);
    assert_string_equal(bw_port_name(NULL), "");
    assert_int_equal(bw_port_fd(NULL), -1);
    assert_int_equal(bw_port_os_error(NULL), 0);
    bw_port_close(NULL);

    bw_port_t *a, *c;
    assert_int_equal(bw_port_pair(&a, &c, 8), 0);
    assert_int_equal(bw_port_read(a, NULL, 1), BW_EINVAL);
    assert_int_equal(bw_port_write(a, NULL, 1), BW_EINVAL);
    assert_int_equal(bw_port_read(a, NULL, 0), 0);
    assert_int_equal(bw_port_write(a, NULL, 0), 0);
    bw_port_close(a);
    bw_port_close(c);

    assert_int_equal(bw_port_pair(NULL, &c, 8), BW_EINVAL);
    assert_int_equal(bw_port_pair(&a, &a, 8), BW_EINVAL);
    assert_null(a);
}

/* ---- pair -------------------------------------------------------------------------- */

static void test_pair_both_ways(void **state)
{
    (void)state;
    bw_port_t *a = NULL, *b = NULL;
    assert_int_equal(bw_port_pair(&a, &b, 16), 0);
    assert_int_equal(bw_port_fd(a), -1);
    assert_int_equal(bw_port_fd(b), -1);
    assert_string_equal(bw_port_name(a), "pair");
    uint8_t buf[32];
    assert_int_equal(bw_port_read(a, buf, sizeof buf), 0);
    assert_int_equal(bw_port_read(b, buf, sizeof buf), 0);

    assert_int_equal(bw_port_write(a, (const uint8_t *)"hello", 5), 5);
    assert_int_equal(bw_port_write(b, (const uint8_t *)"world!", 6), 6);
    assert_int_equal(bw_port_read(b, buf, sizeof buf), 5);
    assert_memory_equal(buf, "hello", 5);
    assert_int_equal(bw_port_read(a, buf, 4), 4); /* cut to the reader's cap */
    assert_memory_equal(buf, "worl", 4);
    assert_int_equal(bw_port_read(a, buf, sizeof buf), 2);
    assert_memory_equal(buf, "d!", 2);
    assert_int_equal(bw_port_read(a, buf, sizeof buf), 0);
    assert_int_equal(bw_port_os_error(a), 0);
    bw_port_close(a);
    bw_port_close(b);
}

static void test_pair_partial_write_when_full(void **state)
{
    (void)state;
    bw_port_t *a, *b;
    assert_int_equal(bw_port_pair(&a, &b, 8), 0);
    const uint8_t msg[] = "0123456789";
    assert_int_equal(bw_port_write(a, msg, 5), 5);
    assert_int_equal(bw_port_write(a, msg + 5, 5), 3); /* only 3 fit */
    assert_int_equal(bw_port_write(a, msg, 1), 0);
    uint8_t buf[16];
    assert_int_equal(bw_port_read(b, buf, 3), 3);
    assert_memory_equal(buf, "012", 3);
    /* the write wraps round the end of the ring (5 free: 0..2 and 8's tail) */
    assert_int_equal(bw_port_write(a, (const uint8_t *)"abcdefgh", 8), 3);
    assert_int_equal(bw_port_read(b, buf, 2), 2);
    assert_memory_equal(buf, "34", 2);
    assert_int_equal(bw_port_write(a, (const uint8_t *)"wxyz", 4), 2);
    /* the read wraps too */
    assert_int_equal(bw_port_read(b, buf, sizeof buf), 8);
    assert_memory_equal(buf, "567abcwx", 8);
    assert_int_equal(bw_port_read(b, buf, sizeof buf), 0);
    assert_int_equal(bw_port_write(a, (const uint8_t *)"01234567", 8), 8);
    assert_int_equal(bw_port_read(b, buf, sizeof buf), 8);
    assert_memory_equal(buf, "01234567", 8);
    bw_port_close(a);
    bw_port_close(b);

    /* capacity 0 picks 65536 per direction */
    assert_int_equal(bw_port_pair(&a, &b, 0), 0);
    static uint8_t big[70000];
    assert_int_equal(bw_port_write(b, big, sizeof big), 65536);
    assert_int_equal(bw_port_write(a, big, sizeof big), 65536);
    bw_port_close(a);
    bw_port_close(b);
}

/* A large pair starts small and grows as more is in it at once: the
 * bytes come out in order across every growth, wrapped or not, and the
 * capacity still bounds what it holds. */
static void test_pair_grows(void **state)
{
    (void)state;
    bw_port_t *a, *b;
    assert_int_equal(bw_port_pair(&a, &b, 1 << 16), 0);
    static uint8_t data[1 << 17], got[1 << 17];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7 + i / 251);
    size_t wrote = 0, read = 0;
    /* a few bytes in, some out, so the ring holds them wrapped, then more */
    const size_t steps[][2] = { { 200, 150 }, { 200, 0 }, { 100, 50 }, { 3000, 1000 },
                                { 40000, 0 },  { 30000, 7 }, { 0, 1 << 17 } };
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        size_t in_ring = wrote - read, want = steps[k][0];
        size_t fits = (1u << 16) - in_ring < want ? (1u << 16) - in_ring : want;
        assert_int_equal(bw_port_write(a, data + wrote, want), (int)fits);
        wrote += fits;
        if (steps[k][1] == 0)
            continue;
        size_t cap = steps[k][1] < sizeof got - read ? steps[k][1] : sizeof got - read;
        int n = bw_port_read(b, got + read, cap);
        assert_true(n >= 0);
        read += (size_t)n;
    }
    assert_int_equal(read, wrote);
    assert_true(wrote > (1u << 16)); /* it was full once: the bound held */
    assert_memory_equal(got, data, read);
    bw_port_close(a);
    bw_port_close(b);
}

static void test_pair_peer_close(void **state)
{
    (void)state;
    bw_port_t *a, *b;
    assert_int_equal(bw_port_pair(&a, &b, 16), 0);
    assert_int_equal(bw_port_write(a, (const uint8_t *)"abc", 3), 3);
    assert_int_equal(bw_port_write(b, (const uint8_t *)"zz", 2), 2);
    bw_port_close(a);
    uint8_t buf[8];
    assert_int_equal(bw_port_write(b, (const uint8_t *)"q", 1), BW_ECLOSED);
    assert_int_equal(bw_port_read(b, buf, 2), 2); /* what was sent before the close */
    assert_memory_equal(buf, "ab", 2);
    assert_int_equal(bw_port_read(b, buf, sizeof buf), 1);
    assert_int_equal(buf[0], 'c');
    assert_int_equal(bw_port_read(b, buf, sizeof buf), BW_ECLOSED);
    assert_int_equal(bw_port_read(b, buf, sizeof buf), BW_ECLOSED);
    bw_port_close(b); /* frees the shared state: ASan would see a leak or a double free */

    /* the other end closing first */
    assert_int_equal(bw_port_pair(&a, &b, 16), 0);
    bw_port_close(b);
    assert_int_equal(bw_port_read(a, buf, sizeof buf), BW_ECLOSED);
    assert_int_equal(bw_port_write(a, buf, 1), BW_ECLOSED);
    bw_port_close(a);
}

/* ---- pseudo-terminal + serial -------------------------------------------------------- */

static void open_pty(bw_port_t **m, char *slave, size_t cap, const char *link)
{
    char err[256] = "";
    int rc = bw_pty_open(m, slave, cap, link, err, sizeof err);
    if (rc != 0)
        fail_msg("bw_pty_open: %s", err);
}

static bw_port_t *open_client(const char *path, int baud)
{
    char err[256] = "";
    bw_port_t *c = NULL;
    int rc = bw_port_open_serial(&c, path, baud, err, sizeof err);
    if (rc != 0)
        fail_msg("bw_port_open_serial(%s): %s", path, err);
    return c;
}

static void check_not_exclusive(bw_port_t *c)
{
    int excl = -1;
    assert_int_equal(ioctl(bw_port_fd(c), TIOCGEXCL, &excl), 0);
    assert_int_equal(excl, 0);
}

static void test_pty_raw_bytes_both_ways(void **state)
{
    tmpdir_t *t = *state;
    char link[PATH_MAX], slave[64];
    tmp_path(t, "robot", link, sizeof link);
    bw_port_t *m = NULL;
    open_pty(&m, slave, sizeof slave, link);
    assert_non_null(m);
    assert_true(strncmp(slave, "/dev/pts/", 9) == 0);
    assert_string_equal(bw_port_name(m), slave);
    assert_string_equal(link_target(link), slave);
    assert_true(bw_port_fd(m) >= 0);
    assert_true(fcntl(bw_port_fd(m), F_GETFL) & O_NONBLOCK);
    assert_true(fcntl(bw_port_fd(m), F_GETFD) & FD_CLOEXEC);

    /* Someone left the line cooked (echo, CR/LF mapping, XON/XOFF, parity):
     * opening as a serial device must make it raw 8N1 again. */
    int raw_fd = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
    assert_true(raw_fd >= 0);
    struct termios cooked;
    assert_int_equal(tcgetattr(raw_fd, &cooked), 0);
    cooked.c_iflag |= ICRNL | IXON | IXOFF | ISTRIP;
    cooked.c_oflag |= OPOST | ONLCR;
    cooked.c_lflag |= ICANON | ECHO | ISIG | IEXTEN;
    cooked.c_cflag |= PARENB | CSTOPB;
    cooked.c_cflag = (cooked.c_cflag & ~(tcflag_t)CSIZE) | CS7;
    assert_int_equal(tcsetattr(raw_fd, TCSANOW, &cooked), 0);
    close(raw_fd);

    bw_port_t *c = open_client(link, 115200);
    assert_string_equal(bw_port_name(c), link);
    int fd = bw_port_fd(c);
    assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
    assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);

    struct termios tio;
    assert_int_equal(tcgetattr(fd, &tio), 0);
    assert_int_equal(cfgetospeed(&tio), B115200);
    assert_int_equal(cfgetispeed(&tio), B115200);
    assert_int_equal(tio.c_cflag & CSIZE, CS8);
    assert_int_equal(tio.c_cflag & (PARENB | CSTOPB | CRTSCTS), 0);
    assert_int_equal(tio.c_cflag & (CLOCAL | CREAD), CLOCAL | CREAD);
    assert_int_equal(tio.c_iflag & (IXON | IXOFF | ICRNL | INLCR | IGNCR | ISTRIP), 0);
    assert_int_equal(tio.c_lflag & (ICANON | ECHO | ISIG | IEXTEN), 0);
    assert_int_equal(tio.c_oflag & OPOST, 0);
    /* a pty slave is never left exclusive (see test_pty_reconnect) */
    check_not_exclusive(c);

    /* nothing there yet: 0, not a hang-up */
    uint8_t buf[8];
    assert_int_equal(bw_port_read(c, buf, sizeof buf), 0);
    assert_int_equal(bw_port_read(m, buf, sizeof buf), 0);

    /* CR, LF, ^C, ^D, ^Q/^S, DEL, 0xFF ... all unchanged, no echo */
    check_all_bytes(c, m);
    check_all_bytes(m, c);
    check_all_bytes(c, m);

    bw_port_close(c);
    bw_port_close(m);
    assert_int_equal(dir_entries(t), 0); /* the link is gone */
}

static void test_pty_reconnect(void **state)
{
    tmpdir_t *t = *state;
    char link[PATH_MAX];
    tmp_path(t, "robot", link, sizeof link);
    bw_port_t *m;
    open_pty(&m, NULL, 0, link);

    bw_port_t *c1 = open_client(link, 57600);
    check_text(c1, m, "first");
    check_text(m, c1, "hello first");
    bw_port_close(c1);

    bw_port_t *c2 = open_client(link, 115200);
    check_text(c2, m, "second");
    check_text(m, c2, "hello second");
    bw_port_close(c2);

    /* A client killed without closing: the kernel closes its descriptor but
     * nothing of ours runs. */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        bw_port_t *k = NULL;
        if (bw_port_open_serial(&k, link, 115200, NULL, 0) != 0)
            _exit(1);
        _exit(bw_port_write(k, (const uint8_t *)"dying", 5) == 5 ? 0 : 2);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    uint8_t buf[8];
    assert_int_equal(read_n(m, buf, 5), 5);
    assert_memory_equal(buf, "dying", 5);

    bw_port_t *c3 = open_client(link, 115200);
    check_not_exclusive(c3);
    check_text(c3, m, "third");
    check_text(m, c3, "hello third");
    bw_port_close(c3);
    bw_port_close(m);
}

/* The emulator sees who has the pty open, as it sees TCP clients: opens
 * and last closes, a forked child holding the descriptor on, a client killed
 * without a word. What a departed client wrote stays to be read; what it
 * did not read is gone. */
static void test_pty_clients(void **state)
{
    tmpdir_t *t = *state;
    char link[PATH_MAX];
    tmp_path(t, "robot", link, sizeof link);
    bw_port_t *m;
    open_pty(&m, NULL, 0, link);
    bool emptied = true;
    assert_true(bw_pty_watch_fd(m) >= 0);
    assert_int_equal(bw_pty_clients(m, &emptied), 0);
    assert_false(emptied);

    bw_port_t *c1 = open_client(link, 115200);
    struct pollfd p = { bw_pty_watch_fd(m), POLLIN, 0 };
    assert_int_equal(poll(&p, 1, 1000), 1);
    assert_int_equal(bw_pty_clients(m, &emptied), 1);
    assert_false(emptied);
    int c2 = open(link, O_RDWR | O_NOCTTY | O_NONBLOCK); /* a second program, not botwire */
    assert_true(c2 >= 0);
    assert_int_equal(bw_pty_clients(m, &emptied), 2);
    close(c2);
    assert_int_equal(bw_pty_clients(m, &emptied), 1);
    assert_false(emptied);

    /* A child inherits c1 and the parent closes it: still open. */
    fflush(NULL);
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(go[1]);
        char c;
        _exit(read(go[0], &c, 1) == 1 ? 0 : 1); /* holds c1 until told */
    }
    close(go[0]);
    assert_int_equal(bw_port_write(c1, (const uint8_t *)"last", 4), 4);
    bw_port_close(c1); /* the parent's copy only */
    assert_int_equal(bw_pty_clients(m, &emptied), 1);
    assert_false(emptied);
    assert_int_equal(bw_port_write(m, (const uint8_t *)"unread", 6), 6);
    /* The child is killed: the last copy goes, the count is 0. */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(go[1]);
    assert_int_equal(poll(&p, 1, 1000), 1);
    assert_int_equal(bw_pty_clients(m, &emptied), 0);
    assert_true(emptied);
    uint8_t buf[16];
    assert_int_equal(read_n(m, buf, 4), 4);
    assert_memory_equal(buf, "last", 4);
    /* The next client does not get the last one's unread bytes, even one
     * that opens the line plainly, without flushing it. */
    int c3 = open(link, O_RDWR | O_NOCTTY | O_NONBLOCK);
    assert_true(c3 >= 0);
    assert_int_equal(bw_pty_clients(m, &emptied), 1);
    assert_int_equal(read(c3, buf, sizeof buf), -1);
    assert_int_equal(errno, EAGAIN);
    assert_int_equal(bw_port_write(m, (const uint8_t *)"fresh", 5), 5);
    struct pollfd q = { c3, POLLIN, 0 };
    assert_int_equal(poll(&q, 1, 1000), 1);
    assert_int_equal(read(c3, buf, sizeof buf), 5);
    assert_memory_equal(buf, "fresh", 5);
    close(c3);
    assert_int_equal(bw_pty_clients(m, &emptied), 0);
    assert_true(emptied);
    /* Not a pty master: no answer. */
    assert_int_equal(bw_pty_clients(NULL, NULL), BW_EINVAL);
    assert_int_equal(bw_pty_watch_fd(NULL), -1);
    bw_port_close(m);
}

static void test_pty_output_without_client_is_dropped(void **state)
{
    tmpdir_t *t = *state;
    char link[PATH_MAX];
    tmp_path(t, "robot", link, sizeof link);
    bw_port_t *m;
    open_pty(&m, NULL, 0, link);

    /* Nobody reads: writes succeed until the terminal buffer is full, then
     * take nothing; never an error. (The kernel moves bytes into the line
     * discipline asynchronously, so a short write may be followed by a
     * full one; a few KiB in, it writes nothing.) */
    uint8_t chunk[1024];
    memset(chunk, 'S', sizeof chunk);
    size_t total = 0;
    int w = -1;
    for (int i = 0; i < 1024 && w != 0; i++) {
        w = bw_port_write(m, chunk, sizeof chunk);
        assert_true(w >= 0);
        total += (size_t)w;
    }
    assert_int_equal(w, 0); /* it filled up, well before 1 MiB */
    assert_true(total > 0);

    /* the next client flushes on open: it sees only what comes after */
    bw_port_t *c = open_client(link, 115200);
    uint8_t buf[16];
    assert_int_equal(bw_port_read(c, buf, sizeof buf), 0);
    check_text(m, c, "fresh");
    assert_int_equal(bw_port_read(c, buf, sizeof buf), 0);
    check_text(c, m, "ok");
    bw_port_close(c);
    bw_port_close(m);
}

static void test_pty_master_close_hangs_up_client(void **state)
{
    tmpdir_t *t = *state;
    char link[PATH_MAX];
    tmp_path(t, "robot", link, sizeof link);
    bw_port_t *m;
    open_pty(&m, NULL, 0, link);
    bw_port_t *c = open_client(link, 115200);
    check_text(m, c, "bye");
    bw_port_close(m);
    struct stat st;
    assert_int_not_equal(lstat(link, &st), 0); /* link removed */

    assert_true(wait_fd(bw_port_fd(c), POLLIN) != 0);
    uint8_t buf[8];
    assert_int_equal(bw_port_read(c, buf, sizeof buf), BW_ECLOSED);
    assert_int_equal(bw_port_read(c, buf, sizeof buf), BW_ECLOSED);
    assert_int_equal(bw_port_write(c, (const uint8_t *)"x", 1), BW_ECLOSED);
    assert_int_equal(bw_port_os_error(c), EIO);
    bw_port_close(c);
}

static void test_pty_link_replace_and_remove(void **state)
{
    tmpdir_t *t = *state;
    char link[PATH_MAX], file[PATH_MAX], sub[PATH_MAX], s1[64], s2[64];
    tmp_path(t, "robot", link, sizeof link);
    tmp_path(t, "file", file, sizeof file);
    tmp_path(t, "sub", sub, sizeof sub);

    /* a dangling link at the name is replaced */
    assert_int_equal(symlink("/nonexistent/bw_gone", link), 0);
    bw_port_t *m1, *m2;
    open_pty(&m1, s1, sizeof s1, link);
    assert_string_equal(link_target(link), s1);

    /* a second emulator may not take the name over while the first serves
     * it: refused, and the first keeps its link and its clients */
    char err[256] = "";
    m2 = not_null_port();
    assert_int_equal(bw_pty_open(&m2, s2, sizeof s2, link, err, sizeof err), BW_ESTATE);
    assert_null(m2);
    assert_non_null(strstr(err, "not taking it over"));
    assert_string_equal(link_target(link), s1);
    assert_int_equal(dir_entries(t), 1); /* no temporary names left behind */
    bw_port_t *c = open_client(link, 115200);
    check_text(c, m1, "still m1");
    bw_port_close(c);

    /* a link to a pty that is gone (its emulator killed before it could
     * remove the link) is stale: replaced */
    bw_port_close(m1);
    assert_int_equal(dir_entries(t), 0);
    struct stat gone;
    assert_int_not_equal(stat("/dev/pts/999999", &gone), 0);
    assert_int_equal(symlink("/dev/pts/999999", link), 0);
    open_pty(&m2, s2, sizeof s2, link);
    assert_string_equal(link_target(link), s2);
    c = open_client(link, 115200);
    check_text(c, m2, "m2");
    bw_port_close(c);

    /* a link repointed elsewhere by someone else is left alone */
    assert_int_equal(unlink(link), 0);
    assert_int_equal(symlink("/dev/null", link), 0);
    bw_port_close(m2);
    assert_string_equal(link_target(link), "/dev/null");

    /* a regular file at the name is never replaced: it is the user's */
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("precious", f);
    fclose(f);
    bw_port_t *m = not_null_port();
    assert_int_equal(bw_pty_open(&m, s1, sizeof s1, file, err, sizeof err), BW_EINVAL);
    assert_null(m);
    assert_non_null(strstr(err, "it exists and is not a link (a file)"));
    struct stat st;
    assert_int_equal(lstat(file, &st), 0);
    assert_true(S_ISREG(st.st_mode) && st.st_size == 8);

    /* nor is a directory */
    assert_int_equal(mkdir(sub, 0700), 0);
    m = not_null_port();
    assert_int_equal(bw_pty_open(&m, s1, sizeof s1, sub, err, sizeof err), BW_EINVAL);
    assert_null(m);
    assert_non_null(strstr(err, "directory"));
    assert_int_equal(dir_entries(t), 3); /* link, file and sub */

    /* a slave path buffer too small */
    assert_int_equal(bw_pty_open(&m, s1, 4, NULL, err, sizeof err), BW_EINVAL);
    assert_null(m);
}

/* Two hosts on one line would fight over the robot: the second is told. */
static void test_second_host_refused(void **state)
{
    tmpdir_t *t = *state;
    char link[PATH_MAX];
    tmp_path(t, "robot", link, sizeof link);
    bw_port_t *m;
    open_pty(&m, NULL, 0, link);
    bw_port_t *c1 = open_client(link, 115200), *c2 = not_null_port();
    char err[512] = "";
    assert_int_equal(bw_port_open_serial(&c2, link, 115200, err, sizeof err), BW_EIO);
    assert_null(c2);
    assert_non_null(strstr(err, "another program is driving this robot through it"));
    bw_port_close(c1); /* and once the first has gone, the next is welcome */
    c2 = open_client(link, 115200);
    check_text(c2, m, "mine now");
    bw_port_close(c2);
    bw_port_close(m);
}

/* A link left by a killed emulator, whose pty number another pty has since
 * taken, does not lead a client to that other pty. */
static void test_stale_pty_link(void **state)
{
    tmpdir_t *t = *state;
    char link[PATH_MAX], s1[64], s2[64];
    tmp_path(t, "robot", link, sizeof link);
    bw_port_t *m1, *m2;
    open_pty(&m1, s1, sizeof s1, NULL);
    assert_int_equal(symlink(s1, link), 0); /* the emulator's link, made after its pty */
    bw_port_t *c = open_client(link, 115200);
    bw_port_close(c);
    /* The emulator dies without removing it; later the next pty takes the
     * number. (The clocks of file times tick in milliseconds: the link is
     * dated back a second, as it would be.) */
    bw_port_close(m1);
    open_pty(&m2, s2, sizeof s2, NULL);
    struct stat st;
    assert_int_equal(stat(s2, &st), 0);
    struct timespec when[2] = { st.st_ctim, st.st_ctim };
    when[0].tv_sec -= 1;
    when[1].tv_sec -= 1;
    assert_int_equal(utimensat(AT_FDCWD, link, when, AT_SYMLINK_NOFOLLOW), 0);
    char err[512] = "";
    bw_port_t *p = not_null_port();
    assert_int_equal(bw_port_open_serial(&p, link, 115200, err, sizeof err), BW_EIO);
    assert_null(p);
    if (strcmp(s1, s2) == 0)
        assert_non_null(strstr(err, "stale link"));
    else
        assert_non_null(strstr(err, "no such device"));
    bw_port_close(m2);
}

/* The emulator's side of the same: an emulator restarted on the link of
 * one that was killed takes it over though the old pty number now belongs
 * to another program's pty (here this process's, which started before the
 * link was made: only the pty's own age tells). It used to refuse, "which
 * pid N (python3) serves", when tests ran side by side. */
static void test_stale_pty_link_taken_over(void **state)
{
    tmpdir_t *t = *state;
    char link[PATH_MAX], s1[64], s2[64], s3[64];
    tmp_path(t, "robot", link, sizeof link);
    bw_port_t *m1, *other, *m3;
    open_pty(&m1, s1, sizeof s1, NULL);
    assert_int_equal(symlink(s1, link), 0);
    bw_port_close(m1); /* killed: the link stays */
    open_pty(&other, s2, sizeof s2, NULL);
    struct stat st;
    assert_int_equal(stat(s2, &st), 0);
    struct timespec when[2] = { st.st_ctim, st.st_ctim };
    when[0].tv_sec -= 1;
    when[1].tv_sec -= 1;
    assert_int_equal(utimensat(AT_FDCWD, link, when, AT_SYMLINK_NOFOLLOW), 0);
    if (strcmp(s1, s2) != 0)
        print_message("the pty number was not given again (%s, then %s): the dead link's case "
                      "only\n", s1, s2);
    open_pty(&m3, s3, sizeof s3, link);
    assert_string_equal(link_target(link), s3);
    bw_port_t *c = open_client(link, 115200);
    check_text(c, m3, "the restarted emulator's");
    bw_port_close(c);
    bw_port_close(m3);
    bw_port_close(other);
}

static void test_serial_errors(void **state)
{
    tmpdir_t *t = *state;
    char missing[PATH_MAX], file[PATH_MAX], link[PATH_MAX], want[PATH_MAX + 64];
    tmp_path(t, "ttyUSB9", missing, sizeof missing);
    tmp_path(t, "regular", file, sizeof file);
    tmp_path(t, "robot", link, sizeof link);
    char err[PATH_MAX + 128];

    bw_port_t *p = not_null_port();
    assert_int_equal(bw_port_open_serial(&p, missing, 115200, err, sizeof err), BW_EIO);
    assert_null(p);
    /* What is missing, and what to do: the USB serial devices there are
     * (a path outside /dev is a file, not a device). */
    snprintf(want, sizeof want, "cannot open %s: no such file (", missing);
    assert_memory_equal(err, want, strlen(want));

    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    p = not_null_port();
    assert_int_equal(bw_port_open_serial(&p, file, 115200, err, sizeof err), BW_EINVAL);
    assert_null(p);
    assert_non_null(strstr(err, file));
    assert_non_null(strstr(err, "not a serial device"));
    assert_int_equal(bw_port_open_serial(&p, "/dev/null", 9600, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "not a serial device"));

    bw_port_t *m;
    open_pty(&m, NULL, 0, link);
    p = not_null_port();
    /* Rates termios has no code for are set through termios2 (RoboBuggy's
     * 76800). */
    assert_int_equal(bw_port_open_serial(&p, link, 76800, err, sizeof err), 0);
    bw_port_close(p);
    assert_int_equal(bw_port_open_serial(&p, link, -5, err, sizeof err), BW_EINVAL);
    assert_null(p);
    assert_non_null(strstr(err, "unsupported baud rate -5"));
    assert_int_equal(bw_port_open_serial(&p, link, 0, NULL, 0), BW_EINVAL);
    assert_int_equal(bw_port_open_serial(&p, NULL, 9600, NULL, 0), BW_EINVAL);

    /* other standard rates are taken */
    static const struct {
        int baud;
        speed_t code;
    } rates[] = { { 9600, B9600 }, { 38400, B38400 }, { 230400, B230400 }, { 921600, B921600 } };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        p = open_client(link, rates[i].baud);
        struct termios tio;
        assert_int_equal(tcgetattr(bw_port_fd(p), &tio), 0);
        assert_int_equal(cfgetospeed(&tio), rates[i].code);
        bw_port_close(p);
    }
    bw_port_close(m);
}

/* ---- TCP ---------------------------------------------------------------------------- */

typedef struct {
    bw_listener_t *l;
    bw_port_t *client, *server;
} tcp_link_t;

static void tcp_connect(tcp_link_t *k)
{
    char err[256] = "", want[64];
    assert_int_equal(bw_listener_open(&k->l, NULL, 0, err, sizeof err), 0);
    int port = bw_listener_port(k->l);
    assert_true(port > 0 && port <= 65535);
    assert_true(bw_listener_fd(k->l) >= 0);

    bw_port_t *none = not_null_port();
    assert_int_equal(bw_listener_accept(k->l, &none), 0); /* nobody waiting */
    assert_null(none);

    int rc = bw_port_open_tcp(&k->client, "127.0.0.1", port, 2.0, err, sizeof err);
    if (rc != 0)
        fail_msg("connect: %s", err);
    snprintf(want, sizeof want, "127.0.0.1:%d", port);
    assert_string_equal(bw_port_name(k->client), want);

    assert_true(wait_fd(bw_listener_fd(k->l), POLLIN) & POLLIN);
    assert_int_equal(bw_listener_accept(k->l, &k->server), 1);
    assert_non_null(k->server);
    assert_true(strncmp(bw_port_name(k->server), "127.0.0.1:", 10) == 0);
    assert_int_equal(bw_listener_accept(k->l, &none), 0);
}

static void tcp_close(tcp_link_t *k)
{
    bw_port_close(k->client);
    bw_port_close(k->server);
    bw_listener_close(k->l);
}

static int nodelay(bw_port_t *p)
{
    int v = 0;
    socklen_t len = sizeof v;
    assert_int_equal(getsockopt(bw_port_fd(p), IPPROTO_TCP, TCP_NODELAY, &v, &len), 0);
    return v;
}

static void test_tcp_both_ways(void **state)
{
    (void)state;
    tcp_link_t k = { 0 };
    tcp_connect(&k);
    assert_true(nodelay(k.client) != 0);
    assert_true(nodelay(k.server) != 0);
    assert_true(fcntl(bw_port_fd(k.client), F_GETFL) & O_NONBLOCK);
    assert_true(fcntl(bw_port_fd(k.server), F_GETFD) & FD_CLOEXEC);
    uint8_t buf[8];
    assert_int_equal(bw_port_read(k.client, buf, sizeof buf), 0);
    assert_int_equal(bw_port_read(k.server, buf, sizeof buf), 0);
    check_all_bytes(k.client, k.server);
    check_all_bytes(k.server, k.client);
    tcp_close(&k);
}

static void test_tcp_peer_close(void **state)
{
    (void)state;
    tcp_link_t k = { 0 };
    tcp_connect(&k);
    check_text(k.server, k.client, "last words");
    bw_port_close(k.server);
    k.server = NULL;

    uint8_t buf[8];
    assert_true(wait_fd(bw_port_fd(k.client), POLLIN) & POLLIN);
    assert_int_equal(bw_port_read(k.client, buf, sizeof buf), BW_ECLOSED);

    /* The first write after the peer's close is accepted locally and
     * answered with a reset; a later one fails. With SIGPIPE not blocked,
     * a send without MSG_NOSIGNAL would kill this test here. */
    int w = 0;
    for (int i = 0; i < 10 && w >= 0; i++) {
        w = bw_port_write(k.client, (const uint8_t *)"x", 1);
        if (w >= 0)
            (void)wait_fd(bw_port_fd(k.client), 0); /* waits for POLLERR/POLLHUP */
    }
    assert_int_equal(w, BW_ECLOSED);
    assert_true(bw_port_os_error(k.client) == EPIPE ||
                bw_port_os_error(k.client) == ECONNRESET);
    tcp_close(&k);

    /* and the other way round */
    tcp_connect(&k);
    bw_port_close(k.client);
    k.client = NULL;
    assert_true(wait_fd(bw_port_fd(k.server), POLLIN) & POLLIN);
    assert_int_equal(bw_port_read(k.server, buf, sizeof buf), BW_ECLOSED);
    tcp_close(&k);
}

static void test_tcp_errors(void **state)
{
    (void)state;
    char err[256] = "", want[64];
    bw_listener_t *l = NULL;
    assert_int_equal(bw_listener_open(&l, "", 0, err, sizeof err), 0);
    int port = bw_listener_port(l);
    bw_listener_close(l); /* now nobody listens there */

    bw_port_t *p = not_null_port();
    assert_int_equal(bw_port_open_tcp(&p, "127.0.0.1", port, 2.0, err, sizeof err), BW_EIO);
    assert_null(p);
    snprintf(want, sizeof want, "cannot connect to 127.0.0.1:%d: Connection refused", port);
    assert_string_equal(err, want);

    assert_int_equal(bw_port_open_tcp(&p, "127.0.0.1", 0, 1.0, err, sizeof err), BW_EINVAL);
    assert_int_equal(bw_port_open_tcp(&p, "127.0.0.1", 65536, 1.0, err, sizeof err), BW_EINVAL);
    assert_int_equal(bw_port_open_tcp(&p, "", 80, 1.0, err, sizeof err), BW_EINVAL);
    assert_int_equal(bw_port_open_tcp(&p, "127.0.0.1", 80, -1.0, err, sizeof err), BW_EINVAL);
    assert_int_equal(bw_listener_open(&l, NULL, 70000, err, sizeof err), BW_EINVAL);
    assert_null(l);
    /* 192.0.2.1 (TEST-NET-1) is no address of this machine; numeric, so no DNS */
    assert_int_equal(bw_listener_open(&l, "192.0.2.1", 0, err, sizeof err), BW_EIO);
    assert_null(l);
    assert_string_equal(err, "cannot listen on 192.0.2.1:0: Cannot assign requested address");
    assert_int_equal(bw_listener_accept(NULL, &p), BW_EINVAL);
    assert_int_equal(bw_listener_fd(NULL), -1);
    assert_int_equal(bw_listener_port(NULL), -1);
    bw_listener_close(NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This thread's time runnable but not running so far, s (the kernel's
 * schedstat; 0 where it keeps none). */
static double waited_s(void)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long ran = 0, waited = 0;
    int got = f ? fscanf(f, "%llu %llu", &ran, &waited) : 0;
    if (f)
        fclose(f);
    return got == 2 ? (double)waited / 1e9 : 0.0;
}

static void test_tcp_connect_timeout(void **state)
{
    (void)state;
    /* Once the listener's accept queue is full the kernel drops further
     * SYNs, so the next connect can only end by our timeout. */
    char err[256] = "";
    bw_listener_t *l = NULL;
    assert_int_equal(bw_listener_open(&l, NULL, 0, err, sizeof err), 0);
    bw_port_t *queued[16] = { 0 };
    int rc = 0;
    size_t n = 0;
    double took = 0, held = 0;
    for (; n < 16; n++) {
        double t0 = now_s(), w0 = waited_s();
        rc = bw_port_open_tcp(&queued[n], "127.0.0.1", bw_listener_port(l), 0.25, err, sizeof err);
        took = now_s() - t0;
        held = waited_s() - w0;
        if (rc != 0)
            break;
    }
    assert_true(n >= 1 && n < 16);
    assert_int_equal(rc, BW_ETIMEDOUT);
    assert_null(queued[n]);
    assert_non_null(strstr(err, "Connection timed out"));
    /* The timeout, 0.25 s: at least that (less the millisecond its clock
     * rounds to), and less than the 1 s a timeout rounded up to whole
     * seconds would take, once the time a loaded machine kept this thread
     * runnable but not running is taken off. */
    if (!(took >= 0.249 && took - held < 0.75))
        fail_msg("the connect took %.3f s (%.3f s of it held back by the machine), wanted the "
                 "0.25 s timeout", took, held);
    for (size_t i = 0; i < n; i++)
        bw_port_close(queued[i]);
    bw_listener_close(l);
}

/* ---- URLs ------------------------------------------------------------------------------- */

static void parse_ok(const char *text, bw_url_t *u)
{
    char err[256] = "";
    int rc = bw_url_parse(text, u, err, sizeof err);
    if (rc != 0)
        fail_msg("bw_url_parse(%s): %s", text, err);
}

static void test_url_serial(void **state)
{
    (void)state;
    bw_url_t u;
    parse_ok("kobuki:/dev/ttyUSB0?baud=115200", &u);
    assert_int_equal(u.kind, BW_URL_SERIAL);
    assert_string_equal(u.family, "kobuki");
    assert_string_equal(u.path, "/dev/ttyUSB0");
    assert_int_equal(u.nparams, 1);
    assert_string_equal(bw_url_param(&u, "baud"), "115200");
    assert_null(bw_url_param(&u, "bau"));
    assert_null(bw_url_param(&u, "baudx"));
    assert_null(bw_url_param(NULL, "baud"));
    assert_null(bw_url_param(&u, NULL));

    parse_ok("p2os:./run/pty0", &u);
    assert_int_equal(u.kind, BW_URL_SERIAL);
    assert_string_equal(u.family, "p2os");
    assert_string_equal(u.path, "./run/pty0");
    assert_int_equal(u.nparams, 0);
    assert_string_equal(u.host, "");

    /* Families in any case, as people write them: P2OS, Kobuki. */
    parse_ok("P2OS:/dev/ttyS0", &u);
    assert_string_equal(u.family, "p2os");
    assert_string_equal(u.path, "/dev/ttyS0");
    parse_ok("SIM:Kobuki", &u);
    assert_int_equal(u.kind, BW_URL_SIM);
    assert_string_equal(u.family, "kobuki");

    parse_ok("rflex_2:/tmp/a:b", &u); /* a colon inside a path is fine */
    assert_string_equal(u.family, "rflex_2");
    assert_string_equal(u.path, "/tmp/a:b");

    char text[300], path[256];
    memset(path, 'p', sizeof path);
    path[0] = '/';
    path[255] = '\0'; /* 255 characters: the longest that fits */
    snprintf(text, sizeof text, "abcdefghijklmno:%s", path);
    parse_ok(text, &u);
    assert_string_equal(u.family, "abcdefghijklmno"); /* 15 characters */
    assert_string_equal(u.path, path);
}

static void test_url_tcp(void **state)
{
    (void)state;
    bw_url_t u;
    parse_ok("kobuki:tcp://127.0.0.1:8101", &u);
    assert_int_equal(u.kind, BW_URL_TCP);
    assert_string_equal(u.family, "kobuki");
    assert_string_equal(u.host, "127.0.0.1");
    assert_int_equal(u.port, 8101);
    assert_string_equal(u.path, "");

    parse_ok("p2os:tcp://robot-3.lab.example:65535?timeout=2.5&retry", &u);
    assert_string_equal(u.host, "robot-3.lab.example");
    assert_int_equal(u.port, 65535);
    assert_int_equal(u.nparams, 2);
    assert_string_equal(bw_url_param(&u, "timeout"), "2.5");
    assert_string_equal(bw_url_param(&u, "retry"), "");

    parse_ok("kobuki:tcp://[::1]:1", &u);
    assert_string_equal(u.host, "::1");
    assert_int_equal(u.port, 1);
    parse_ok("kobuki:tcp://[fe80::1%eth0]:8101?x=1", &u);
    assert_string_equal(u.host, "fe80::1%eth0");
    assert_string_equal(bw_url_param(&u, "x"), "1");
}

static void test_url_sim_and_query(void **state)
{
    (void)state;
    bw_url_t u;
    parse_ok("sim:kobuki?world=worlds/room.txt&seed=42&noise=0.01", &u);
    assert_int_equal(u.kind, BW_URL_SIM);
    assert_string_equal(u.family, "kobuki");
    assert_int_equal(u.nparams, 3);
    assert_string_equal(u.params[0].key, "world");
    assert_string_equal(bw_url_param(&u, "world"), "worlds/room.txt");
    assert_string_equal(bw_url_param(&u, "seed"), "42");
    assert_string_equal(bw_url_param(&u, "noise"), "0.01");

    parse_ok("sim:p2os", &u);
    assert_int_equal(u.kind, BW_URL_SIM);
    assert_string_equal(u.family, "p2os");
    assert_int_equal(u.nparams, 0);

    /* create2: the create family's model create2, on every kind of URL */
    parse_ok("sim:create2?seed=2", &u);
    assert_string_equal(u.family, "create");
    assert_string_equal(bw_url_param(&u, "model"), "create2");
    assert_string_equal(bw_url_param(&u, "seed"), "2");
    parse_ok("create2:/dev/ttyUSB0?model=create2", &u);
    assert_int_equal(u.kind, BW_URL_SERIAL);
    assert_string_equal(u.family, "create");
    assert_int_equal(u.nparams, 1);
    parse_ok("create2:tcp://localhost:9000", &u);
    assert_string_equal(u.family, "create");
    assert_string_equal(bw_url_param(&u, "model"), "create2");
    char err[160];
    assert_int_equal(bw_url_parse("sim:create2?model=create", &u, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "create2 is the create family's model create2: model=create says otherwise"));
    assert_int_equal(bw_url_parse("sim:create2?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8", &u, err, sizeof err),
                     BW_EINVAL);
    assert_non_null(strstr(err, "adds model=create2"));
    const char *fam, *model;
    assert_true(bw_family_alias("create2", &fam, &model));
    assert_string_equal(fam, "create");
    assert_string_equal(model, "create2");
    assert_false(bw_family_alias("create", &fam, &model));
    assert_false(bw_family_alias(NULL, &fam, &model));

    /* only the first '=' splits; '?' after the first belongs to the value */
    parse_ok("sim:kobuki?expr=a=b?c&flag", &u);
    assert_string_equal(bw_url_param(&u, "expr"), "a=b?c");
    assert_string_equal(bw_url_param(&u, "flag"), "");

    /* the limits exactly: 8 parameters, a 31-character key, a 223-character value */
    char text[512], key[32], value[224];
    memset(key, 'k', sizeof key - 1);
    key[31] = '\0';
    memset(value, 'v', sizeof value - 1);
    value[223] = '\0';
    snprintf(text, sizeof text, "sim:kobuki?a=1&b=2&c=3&d=4&e=5&f=6&g=7&%s=%s", key, value);
    parse_ok(text, &u);
    assert_int_equal(u.nparams, BW_URL_MAX_PARAMS);
    assert_string_equal(bw_url_param(&u, key), value);
    assert_string_equal(bw_url_param(&u, "g"), "7");
}

static void test_url_errors(void **state)
{
    (void)state;
    char long_family[64], too_many[128], long_value[300], long_key[64], long_path[300];
    snprintf(long_family, sizeof long_family, "abcdefghijklmnop:/dev/x"); /* 16 */
    snprintf(too_many, sizeof too_many, "kobuki:/dev/x?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9");
    int n = snprintf(long_value, sizeof long_value, "kobuki:/dev/x?v=");
    memset(long_value + n, 'x', 224);
    long_value[n + 224] = '\0';
    n = snprintf(long_key, sizeof long_key, "kobuki:/dev/x?");
    memset(long_key + n, 'k', 32);
    snprintf(long_key + n + 32, sizeof long_key - (size_t)n - 32, "=1");
    n = snprintf(long_path, sizeof long_path, "kobuki:/");
    memset(long_path + n, 'p', 255);
    long_path[n + 255] = '\0';

    static const char forms[] = "expected FAMILY:/dev/PATH, FAMILY:tcp://HOST:PORT or sim:FAMILY";
    /* Duplicate keys are refused, not "last wins": a repeated key is a typo. */
    const struct {
        const char *text;
        const char *reason;
    } cases[] = {
        { "", forms },
        { "kobuki", forms },
        { "/dev/ttyUSB0", forms },
        { ":/dev/x", "missing robot family" },
        { "ko-buki:/dev/x", "bad robot family" },
        { long_family, "longer than 15 characters" },
        { "kobuki:", "nothing after \"kobuki:\"" },
        { "kobuki:dev/ttyUSB0", "a device path starts with / or ." },
        { "kobuki:tcp://host", "missing TCP port" },
        { "kobuki:tcp://host:", "missing TCP port" },
        { "kobuki:tcp://", "missing host and port" },
        { "kobuki:tcp://:8101", "missing host" },
        { "kobuki:tcp://host:0", "bad TCP port \"0\"" },
        { "kobuki:tcp://host:70000", "bad TCP port \"70000\"" },
        { "kobuki:tcp://host:http", "bad TCP port \"http\"" },
        { "kobuki:tcp://host:80/x", "bad TCP port" },
        { "kobuki:tcp://host:-1", "bad TCP port" },
        { "kobuki:tcp://ho/st:80", "bad character '/' in the host" },
        { "kobuki:tcp://::1:8101", "needs brackets" },
        { "kobuki:tcp://[::1:8101", "missing ']'" },
        { "kobuki:tcp://[::1]", "missing TCP port" },
        { "kobuki:tcp://[::1]8101", "missing TCP port" },
        { "kobuki:tcp://[]:8101", "empty host" },
        { "kobuki:tcp://[host]:8101", "not an IPv6 address" },
        { "tcp://host:8101", "missing robot family" },
        { "sim:", "sim: needs a robot family" },
        { "sim", forms },
        { "sim:/dev/x", "bad robot family" },
        { "sim:abcdefghijklmnop", "longer than 15 characters" },
        { too_many, "more than 8 query parameters" },
        { long_value, "value of \"v\" is longer than 223 characters" },
        { long_key, "longer than 31 characters" },
        { long_path, "device path is longer than 255 characters" },
        { "kobuki:/dev/x?baud=1&baud=2", "query parameter \"baud\" given twice" },
        { "kobuki:/dev/x?", "empty query parameter" },
        { "kobuki:/dev/x?a=1&&b=2", "empty query parameter" },
        { "kobuki:/dev/x?a=1&", "empty query parameter" },
        { "kobuki:/dev/x?=1", "query parameter without a name" },
        { "kobuki:/dev/x?a b=1", "bad query parameter name" },
        { "kobuki:/dev/x\n", "control character" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bw_url_t u;
        memset(&u, 0xA5, sizeof u);
        char err[512] = "";
        int rc = bw_url_parse(cases[i].text, &u, err, sizeof err);
        if (rc != BW_EINVAL || !strstr(err, cases[i].reason) ||
            strncmp(err, "bad robot URL \"", 15) != 0 || strchr(err, '\n'))
            fail_msg("case %zu \"%s\": rc %d, err \"%s\", wanted \"%s\"", i, cases[i].text, rc,
                     err, cases[i].reason);
        /* nothing half-parsed is left behind */
        assert_int_equal(u.kind, 0);
        assert_string_equal(u.family, "");
        assert_int_equal(u.nparams, 0);
        assert_null(bw_url_param(&u, "a"));
    }

    char err[256] = "";
    bw_url_t u;
    assert_int_equal(bw_url_parse("kobuki", &u, err, sizeof err), BW_EINVAL);
    assert_string_equal(err, "bad robot URL \"kobuki\": expected FAMILY:/dev/PATH, "
                             "FAMILY:tcp://HOST:PORT or sim:FAMILY");
    assert_int_equal(bw_url_parse(NULL, &u, err, sizeof err), BW_EINVAL);
    assert_int_equal(bw_url_parse("sim:kobuki", NULL, err, sizeof err), BW_EINVAL);
    assert_int_equal(bw_url_parse("kobuki", &u, NULL, 0), BW_EINVAL);
    assert_int_equal(bw_url_parse("kobuki", &u, err, 8), BW_EINVAL); /* cut short, terminated */
    assert_int_equal(strlen(err), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_pair_both_ways),
        cmocka_unit_test(test_pair_partial_write_when_full),
        cmocka_unit_test(test_pair_grows),
        cmocka_unit_test(test_pair_peer_close),
        cmocka_unit_test_setup_teardown(test_pty_raw_bytes_both_ways, tmpdir_setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_pty_reconnect, tmpdir_setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_pty_clients, tmpdir_setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_pty_output_without_client_is_dropped, tmpdir_setup,
                                        tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_pty_master_close_hangs_up_client, tmpdir_setup,
                                        tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_pty_link_replace_and_remove, tmpdir_setup,
                                        tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_stale_pty_link, tmpdir_setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_stale_pty_link_taken_over, tmpdir_setup,
                                        tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_second_host_refused, tmpdir_setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_serial_errors, tmpdir_setup, tmpdir_teardown),
        cmocka_unit_test(test_tcp_both_ways),
        cmocka_unit_test(test_tcp_peer_close),
        cmocka_unit_test(test_tcp_errors),
        cmocka_unit_test(test_tcp_connect_timeout),
        cmocka_unit_test(test_url_serial),
        cmocka_unit_test(test_url_tcp),
        cmocka_unit_test(test_url_sim_and_query),
        cmocka_unit_test(test_url_errors),
    };
    return cmocka_run_group_tests_name("ports", tests, NULL, NULL);
}
