/* TCP client connections and the listener emulators serve on. */
#include "port_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct bw_listener {
    int fd;
    int port;
};

static int tcp_errno_code(int e)
{
    switch (e) {
    case ECONNRESET:
    case EPIPE:
    case ENOTCONN:
    case ECONNABORTED:
    case ETIMEDOUT:
    case EHOSTUNREACH:
    case ENETUNREACH:
    case ENETDOWN:
    case ESHUTDOWN:
        return BW_ECLOSED;
    default:
        return BW_EIO;
    }
}

static int tcp_read(bw_port_t *port, uint8_t *buf, size_t cap)
{
    ssize_t r = recv(port->fd, buf, cap, 0);
    if (r > 0)
        return (int)r;
    if (r == 0)
        return BW_ECLOSED;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    return bw_io_fail(port, errno, tcp_errno_code(errno));
}

static int tcp_write(bw_port_t *port, const uint8_t *buf, size_t n)
{
    /* MSG_NOSIGNAL: a peer that went away must not kill us with SIGPIPE. */
    ssize_t w = send(port->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w >= 0)
        return (int)w;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    return bw_io_fail(port, errno, tcp_errno_code(errno));
}

static void tcp_close(bw_port_t *port)
{
    close(port->fd);
    free(port);
}

static const struct bw_port_ops tcp_ops = {
    .read = tcp_read,
    .write = tcp_write,
    .close = tcp_close,
};

/* "host:port", or "[v6]:port" when the host has colons. The name is for
 * display, so a very long host is cut to 256 characters. */
static void host_port_name(char *out, size_t cap, const char *host, int port)
{
    if (strchr(host, ':'))
        snprintf(out, cap, "[%.256s]:%d", host, port);
    else
        snprintf(out, cap, "%.256s:%d", host, port);
}

static int make_tcp_port(bw_port_t **port, int fd, const char *name)
{
    bw_port_t *p = calloc(1, sizeof *p);
    if (!p)
        return BW_ENOMEM;
    bw_io_port_init(p, &tcp_ops, fd, name);
    *port = p;
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Connects fd to addr, waiting until deadline (monotonic ms). Returns 0 or
 * the errno. */
static int connect_until(int fd, const struct addrinfo *ai, int64_t deadline)
{
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
        return 0;
    if (errno != EINPROGRESS && errno != EINTR)
        return errno;
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left < 0)
            left = 0;
        struct pollfd p = { .fd = fd, .events = POLLOUT, .revents = 0 };
        int r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return errno;
        if (r == 0)
            return ETIMEDOUT;
        int soerr = 0;
        socklen_t len = sizeof soerr;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
            return errno;
        return soerr;
    }
}

int bw_port_open_tcp(bw_port_t **port, const char *host, int tcp_port, double timeout_s, char *err,
                     size_t errlen)
{
    if (port)
        *port = NULL;
    if (!port || !host || !*host) {
        bw_io_errf(err, errlen, "no TCP host given");
        return BW_EINVAL;
    }
    if (tcp_port < 1 || tcp_port > 65535) {
        bw_io_errf(err, errlen, "bad TCP port %d (expected 1..65535)", tcp_port);
        return BW_EINVAL;
    }
    if (!(timeout_s >= 0)) {
        bw_io_errf(err, errlen, "bad connect timeout %g s", timeout_s);
        return BW_EINVAL;
    }
    char name[BW_PORT_NAME_MAX];
    host_port_name(name, sizeof name, host, tcp_port);

    char service[8];
    snprintf(service, sizeof service, "%d", tcp_port);
    struct addrinfo hints = { 0 };
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    struct addrinfo *list = NULL;
    int g = getaddrinfo(host, service, &hints, &list);
    if (g != 0) {
        bw_io_errf(err, errlen, "cannot connect to %s: %s", name,
                   g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
        return BW_EIO;
    }
    double ms = timeout_s * 1000.0;
    int64_t wait_ms = ms > 1e12 ? (int64_t)1e12 : (int64_t)ms;
    if ((double)wait_ms < ms)
        wait_ms++;
    int64_t deadline = now_ms() + wait_ms;
    int fd = -1, e = ECONNREFUSED;
    for (const struct addrinfo *ai = list; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        e = connect_until(fd, ai, deadline);
        if (e == 0)
            break;
        close(fd);
        fd = -1;
        if (e == ETIMEDOUT)
            break;
    }
    freeaddrinfo(list);
    if (fd < 0) {
        bw_io_errf(err, errlen, "cannot connect to %s: %s", name, strerror(e));
        return e == ETIMEDOUT ? BW_ETIMEDOUT : BW_EIO;
    }
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
        bw_io_errf(err, errlen, "cannot set TCP_NODELAY on %s: %s", name, strerror(errno));
        close(fd);
        return BW_EIO;
    }
    if (make_tcp_port(port, fd, name) != 0) {
        bw_io_errf(err, errlen, "cannot connect to %s: out of memory", name);
        close(fd);
        return BW_ENOMEM;
    }
    return 0;
}

/* ---- listener ------------------------------------------------------------- */

int bw_listener_open(bw_listener_t **l, const char *host, int tcp_port, char *err, size_t errlen)
{
    if (l)
        *l = NULL;
    if (!l) {
        bw_io_errf(err, errlen, "bad arguments to bw_listener_open");
        return BW_EINVAL;
    }
    if (!host || !*host)
        host = "127.0.0.1";
    if (tcp_port < 0 || tcp_port > 65535) {
        bw_io_errf(err, errlen, "bad TCP port %d (expected 0..65535)", tcp_port);
        return BW_EINVAL;
    }
    char name[BW_PORT_NAME_MAX];
    host_port_name(name, sizeof name, host, tcp_port);

    char service[8];
    snprintf(service, sizeof service, "%d", tcp_port);
    struct addrinfo hints = { 0 };
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    struct addrinfo *list = NULL;
    int g = getaddrinfo(host, service, &hints, &list);
    if (g != 0) {
        bw_io_errf(err, errlen, "cannot listen on %s: %s", name,
                   g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
        return BW_EIO;
    }
    int fd = -1, e = EADDRNOTAVAIL;
    for (const struct addrinfo *ai = list; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
            bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 4) == 0)
            break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(list);
    if (fd < 0) {
        bw_io_errf(err, errlen, "cannot listen on %s: %s", name, strerror(e));
        return BW_EIO;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        bw_io_errf(err, errlen, "cannot listen on %s: %s", name, strerror(errno));
        close(fd);
        return BW_EIO;
    }
    char serv[NI_MAXSERV];
    if (getnameinfo((struct sockaddr *)&ss, len, NULL, 0, serv, sizeof serv, NI_NUMERICSERV) != 0) {
        bw_io_errf(err, errlen, "cannot listen on %s: no local port", name);
        close(fd);
        return BW_EIO;
    }
    struct bw_listener *nl = calloc(1, sizeof *nl);
    if (!nl) {
        bw_io_errf(err, errlen, "cannot listen on %s: out of memory", name);
        close(fd);
        return BW_ENOMEM;
    }
    nl->fd = fd;
    nl->port = atoi(serv);
    *l = nl;
    return 0;
}

int bw_listener_accept(bw_listener_t *l, bw_port_t **client)
{
    if (client)
        *client = NULL;
    if (!l || !client)
        return BW_EINVAL;
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        /* ECONNABORTED: the client gave up while queued; nobody is waiting. */
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED)
            return 0;
        return BW_EIO;
    }
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    char name[BW_PORT_NAME_MAX] = "peer";
    if (getnameinfo((struct sockaddr *)&ss, len, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) == 0)
        host_port_name(name, sizeof name, host, atoi(serv));
    if (make_tcp_port(client, fd, name) != 0) {
        close(fd);
        return BW_ENOMEM;
    }
    return 1;
}

int bw_listener_fd(const bw_listener_t *l)
{
    return l ? l->fd : -1;
}

int bw_listener_port(const bw_listener_t *l)
{
    return l ? l->port : -1;
}

void bw_listener_close(bw_listener_t *l)
{
    if (!l)
        return;
    close(l->fd);
    free(l);
}
