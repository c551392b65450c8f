/* Private: what every kind of port shares. Each kind embeds struct bw_port
 * as its first member and allocates the whole (calloc); ops->close releases
 * everything, the struct included. */
#ifndef BOTWIRE_PORT_INTERNAL_H
#define BOTWIRE_PORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "botwire/port.h"

struct bw_port_ops {
    /* cap and n are 1..INT_MAX here; the dispatch checked the arguments. */
    int (*read)(bw_port_t *port, uint8_t *buf, size_t cap);
    int (*write)(bw_port_t *port, const uint8_t *buf, size_t n);
    void (*close)(bw_port_t *port);
};

#define BW_PORT_NAME_MAX 300

struct bw_port {
    const struct bw_port_ops *ops;
    int fd;       /* -1 for in-memory ports */
    int os_error; /* errno of the last failure */
    char name[BW_PORT_NAME_MAX];
};

void bw_io_port_init(bw_port_t *port, const struct bw_port_ops *ops, int fd, const char *name);

/* The process that holds the master of pty number index, other than this
 * one: its pid and command name, 0 when none is visible (pty.c). */
long bw_io_pty_holder(unsigned index, char *comm, size_t cap);

/* One-line error text into err (which may be NULL). */
void bw_io_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Remembers errno e in the port and returns code. */
int bw_io_fail(bw_port_t *port, int e, int code);

/* read()/write() on a terminal (serial device, pty master or slave), with
 * errors mapped to BW_ECLOSED / BW_EIO. */
/* Sets a baud rate termios has no code for (0, or -errno; -ENOTSUP where
 * the system has no way). */
int bw_io_set_any_baud(int fd, int baud);
int bw_io_tty_read(bw_port_t *port, uint8_t *buf, size_t cap);
int bw_io_tty_write(bw_port_t *port, const uint8_t *buf, size_t n);

/* Whether the pty `pty` (stat of /dev/pts/N) was made after the link to it
 * (`link`, its lstat): an emulator makes its pty first and its link after,
 * so a pty newer than the link is not the one the link was made for (the
 * emulator was killed, and the number given to the next pty). Both times
 * are the kernel's coarse clock; a file system that keeps whole seconds
 * gets a second's margin. */
struct stat;
bool bw_io_pty_after_link(const struct stat *pty, const struct stat *link);

#endif
