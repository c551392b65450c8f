/*
 * botwire ports: the byte pipes between a driver and a robot.
 *
 * A port is a real serial device (termios: raw 8N1, chosen baud, exclusive
 * open), the client end of a pseudo-terminal (opened like a serial device),
 * a TCP connection, or one end of an in-memory pair (tests, in-process
 * emulated robots). The server sides used by emulators are here too: the
 * master end of a pseudo-terminal and a TCP listener.
 *
 * Every port is non-blocking: a read returns what is there now. Errors: 0 ok
 * or nothing to read, negative BW_E* (the OS error kept in the port, see
 * bw_port_os_error), positive byte counts. Ports are single-threaded; they
 * allocate on open and free on close.
 */
#ifndef BOTWIRE_PORT_H
#define BOTWIRE_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_port bw_port_t;

/*
 * Opens a serial device (or a pty's slave path, or a symlink to one): raw
 * mode, 8N1, no flow control, `baud` (one of the standard rates, e.g. 9600,
 * 38400, 57600, 115200), exclusive (TIOCEXCL), non-blocking, and stale input
 * flushed. A symlink to a pty older than the pty it names now (left by an
 * emulator that was killed; the number since reused) is refused. Returns 0
 * or BW_EIO / BW_EINVAL (unsupported baud), with a one-line reason in err (may
 * be NULL).
 */
int bw_port_open_serial(bw_port_t **port, const char *path, int baud, char *err, size_t errlen);

/* Connects to host:port over TCP (TCP_NODELAY). Blocks for at most
 * timeout_s seconds while connecting. */
int bw_port_open_tcp(bw_port_t **port, const char *host, int tcp_port, double timeout_s, char *err,
                     size_t errlen);

/* Two connected in-memory ports: bytes written to one are read from the
 * other. Each direction buffers `capacity` bytes; a write beyond that is
 * cut short (returns fewer bytes), as a full serial line would drop them.
 * Closing one end makes reads and writes on the other return BW_ECLOSED
 * once its buffered bytes are read. */
int bw_port_pair(bw_port_t **a, bw_port_t **b, size_t capacity);

/* Reads what is available now, up to cap bytes. Returns the byte count, 0 if
 * nothing is there, BW_ECLOSED when the peer is gone (hang-up, EOF, the
 * device vanished), BW_EIO on another OS error. */
int bw_port_read(bw_port_t *port, uint8_t *buf, size_t cap);

/* Writes up to n bytes without blocking. Returns the count written (less
 * than n if the OS or pair buffer is full), BW_ECLOSED or BW_EIO. */
int bw_port_write(bw_port_t *port, const uint8_t *buf, size_t n);

/* Descriptor to poll for input, or -1 (in-memory ports). */
int bw_port_fd(const bw_port_t *port);
/* errno of the last failure, 0 if none. */
int bw_port_os_error(const bw_port_t *port);
/* What the port was opened on ("/dev/ttyUSB0", "127.0.0.1:8101", "pair"). */
const char *bw_port_name(const bw_port_t *port);
/* Closes and frees (NULL is fine). */
void bw_port_close(bw_port_t *port);

/* ---- the serial ports of this computer ------------------------------------------ */

/* The programs other than this one that hold the device at path open (for
 * a pty, other than the one serving its master: an emulator serves its
 * pty, it does not hold it against a client), as fuser names them: "NAME
 * pid N, ..." into out (up to 4), and their count (0: none is seen; another
 * user's are seen only by root). */
int bw_port_holders(const char *path, char *out, size_t cap);

/* What sysfs says of a serial device (a tty): its kernel name and driver,
 * and for a USB adapter its ids and strings; "" where it says nothing. */
typedef struct {
    char path[256];      /* the device itself (/dev/ttyUSB0), the name given resolved */
    char by_id[256];     /* its /dev/serial/by-id name, "" if none */
    char name[32];       /* ttyUSB0 */
    char driver[32];     /* ftdi_sio, cdc_acm, pl2303, serial8250, "pty" ... */
    char vendor_id[8], product_id[8]; /* "0403", "6001" */
    char manufacturer[64], product[64], serial[64];
} bw_port_desc_t;

/* Describes the device at path (any name of it: a by-id link, a symlink).
 * 0, or BW_EINVAL (no such device, or not a terminal) with err. */
int bw_port_describe(const char *path, bw_port_desc_t *d, char *err, size_t errlen);

/* The serial devices there are, in the order a person looks for them: the
 * /dev/serial/by-id names (one per device), then /dev/ttyUSB*, ttyACM*,
 * and the ttyS* with a UART behind them, that have no by-id name. At most
 * cap paths into paths[] (each up to 256 bytes); how many there are. */
size_t bw_port_list(char (*paths)[256], size_t cap);

/* ---- server sides ---------------------------------------------------------- */

/*
 * Creates a pseudo-terminal and returns its master end as a port. The slave
 * end is set raw and held open, so client opens and closes never disturb the
 * line settings; output written while no client reads is dropped when the
 * terminal buffer is full. The slave's path (e.g. /dev/pts/5) is copied to
 * slave_path. If `link` is not NULL a symlink with that name is pointed at
 * the slave, replacing a stale symlink (atomically, so a client reopening
 * it sees the old or the new one). A symlink that leads to a pty still
 * served (its master open: another emulator's) is left alone and the call
 * fails (BW_ESTATE, err naming the process that serves it where it can be
 * seen); so is any other file there (BW_EINVAL). bw_port_close removes the
 * link if it still points at this pty.
 */
int bw_pty_open(bw_port_t **master, char *slave_path, size_t slave_cap, const char *link,
                char *err, size_t errlen);

/*
 * Clients that have the pty's slave end open now (opens minus closes since
 * bw_pty_open), so an emulator sees a client come and go as over TCP, even
 * one killed without a word. *emptied (may be NULL) is set when the count
 * fell to 0 since the last call (the last client left, whether or not
 * another has come since); the bytes written to the clients and not read by
 * then are discarded, while what the clients wrote stays to be read. Returns
 * the count, BW_ENOTSUP when the system cannot tell (no inotify), BW_EINVAL
 * for a port that is not a pty master. Call when bw_pty_watch_fd (-1 if
 * none) is readable.
 */
int bw_pty_clients(bw_port_t *master, bool *emptied);
int bw_pty_watch_fd(const bw_port_t *master);

typedef struct bw_listener bw_listener_t;

/* Listens on host:port (host NULL or "" for 127.0.0.1; port 0 picks a free
 * one, see bw_listener_port). SO_REUSEADDR, non-blocking. */
int bw_listener_open(bw_listener_t **l, const char *host, int tcp_port, char *err, size_t errlen);
/* Accepts one waiting client: 1 with *client set, 0 if none is waiting,
 * negative on error. */
int bw_listener_accept(bw_listener_t *l, bw_port_t **client);
int bw_listener_fd(const bw_listener_t *l);
int bw_listener_port(const bw_listener_t *l);
void bw_listener_close(bw_listener_t *l);

/* ---- URLs ------------------------------------------------------------------------ */

typedef enum {
    BW_URL_SERIAL, /* FAMILY:/dev/ttyUSB0?baud=115200  (also a pty path) */
    BW_URL_TCP,    /* FAMILY:tcp://HOST:PORT */
    BW_URL_SIM,    /* sim:FAMILY?world=FILE&seed=N&noise=X (in-process emulator) */
} bw_url_kind_t;

#define BW_URL_MAX_PARAMS 8

typedef struct {
    bw_url_kind_t kind;
    char family[16];  /* "kobuki", "p2os", ... */
    char path[256];   /* BW_URL_SERIAL */
    char host[128];   /* BW_URL_TCP */
    int port;         /* BW_URL_TCP */
    size_t nparams;
    struct {
        char key[32];
        char value[224];
    } params[BW_URL_MAX_PARAMS];
} bw_url_t;

/*
 * Parses a robot URL: `FAMILY:PATH[?k=v&...]`, `FAMILY:tcp://HOST:PORT[?...]`
 * or `sim:FAMILY[?...]`. The family is not checked against the known ones
 * here. Returns 0 or BW_EINVAL with the reason in err.
 */
int bw_url_parse(const char *text, bw_url_t *url, char *err, size_t errlen);
/* Value of a query parameter, or NULL. */
const char *bw_url_param(const bw_url_t *url, const char *key);
/*
 * A name for one model of a family, taken wherever a family is named (URLs,
 * `botwire sim FAMILY`, `--family`, world files' robot lines): "create2" is
 * the create family's model create2 (a Create 2 or Roomba 600, as the
 * README's table gives it its own row). For an alias: true, *family and
 * *model its family and model; for any other name: false. A URL parsed
 * with one has the family and a model=MODEL parameter (a model= given that
 * says otherwise is refused).
 */
bool bw_family_alias(const char *name, const char **family, const char **model);

#ifdef __cplusplus
}
#endif

#endif
