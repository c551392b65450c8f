/* Ports: dispatch to the kind's ops, and the pieces the kinds share. */
#include "port_internal.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void bw_io_port_init(bw_port_t *port, const struct bw_port_ops *ops, int fd, const char *name)
{
    port->ops = ops;
    port->fd = fd;
    port->os_error = 0;
    snprintf(port->name, sizeof port->name, "%s", name);
}

void bw_io_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int bw_io_fail(bw_port_t *port, int e, int code)
{
    port->os_error = e;
    return code;
}

/* Errors meaning the other side is gone: a pty whose other end closed, a
 * USB adapter unplugged, a descriptor revoked by a hang-up. */
static int tty_errno_code(int e)
{
    switch (e) {
    case EIO:
    case ENXIO:
    case ENODEV:
    case EBADF:
    case EPIPE:
        return BW_ECLOSED;
    default:
        return BW_EIO;
    }
}

int bw_io_tty_read(bw_port_t *port, uint8_t *buf, size_t cap)
{
    ssize_t r = read(port->fd, buf, cap);
    if (r > 0)
        return (int)r;
    if (r == 0) {
        /* With VMIN=1 a non-blocking read of an idle line fails with EAGAIN,
         * so 0 means hang-up (what a pty slave reads once its master is
         * closed). But the termios is shared by everyone who has the tty
         * open, and with VMIN=0 an idle line also reads 0: only a hang-up
         * shows POLLHUP/POLLERR. */
        struct pollfd p = { .fd = port->fd, .events = POLLIN, .revents = 0 };
        if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
            return BW_ECLOSED;
        return 0;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    return bw_io_fail(port, errno, tty_errno_code(errno));
}

int bw_io_tty_write(bw_port_t *port, const uint8_t *buf, size_t n)
{
    ssize_t w = write(port->fd, buf, n);
    if (w >= 0)
        return (int)w;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    return bw_io_fail(port, errno, tty_errno_code(errno));
}

int bw_port_read(bw_port_t *port, uint8_t *buf, size_t cap)
{
    if (!port || (!buf && cap > 0))
        return BW_EINVAL;
    if (cap == 0)
        return 0;
    if (cap > INT_MAX)
        cap = INT_MAX; /* the count must fit the int result */
    return port->ops->read(port, buf, cap);
}

int bw_port_write(bw_port_t *port, const uint8_t *buf, size_t n)
{
    if (!port || (!buf && n > 0))
        return BW_EINVAL;
    if (n == 0)
        return 0;
    if (n > INT_MAX)
        n = INT_MAX;
    return port->ops->write(port, buf, n);
}

int bw_port_fd(const bw_port_t *port)
{
    return port ? port->fd : -1;
}

int bw_port_os_error(const bw_port_t *port)
{
    return port ? port->os_error : 0;
}

const char *bw_port_name(const bw_port_t *port)
{
    return port ? port->name : "";
}

void bw_port_close(bw_port_t *port)
{
    if (port)
        port->ops->close(port);
}
