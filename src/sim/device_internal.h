/* The inside of an emulated robot: what each family's device.c implements,
 * and the plumbing they share. Private to the library. */
#ifndef BOTWIRE_SIM_DEVICE_INTERNAL_H
#define BOTWIRE_SIM_DEVICE_INTERNAL_H

#include "botwire/device.h"

typedef struct {
    const char *family;
    size_t size; /* bytes of the family's own state (bw_device_t.priv) */
    /* Sets up the body parameters and the family state; the sim is already
     * initialised with the world. Returns 0 or BW_EUNKNOWN (model) with err. */
    int (*init)(bw_device_t *d, const bw_device_options_t *o, double t0, char *err,
                size_t errlen);
    /* Host bytes that take effect at now (the sim has been stepped to now). */
    void (*input)(bw_device_t *d, const uint8_t *data, size_t n, double now);
    /* Advances to now, emitting the feedback that falls due on the way. */
    void (*step)(bw_device_t *d, double now);
    double (*next_deadline)(const bw_device_t *d);
    /* Drops whatever the parser holds of a command not finished (counted
     * as skipped): a new client, or a silence no frame has inside it. */
    void (*reset_line)(bw_device_t *d);
    /* A client came or went (NULL: nothing to do); the line is reset first. */
    void (*link)(bw_device_t *d, bool connected, double now);
    /* A session is open (NULL: the family has none, always true). */
    bool (*in_session)(const bw_device_t *d);
    /* The sim the robot moves in (NULL: the device's own). A family built
     * around another device (lobot around its Create) names that one's. */
    bw_sim_t *(*sim)(bw_device_t *d);
    /* Name of a command number (NULL: the family has no names). */
    const char *(*command_name)(unsigned id);
    /* Frees what init allocated beyond the family state (NULL: nothing). */
    void (*destroy)(bw_device_t *d);
    /* The family's own built-in world, when none is given (NULL: the room
     * of bw_world_default). */
    void (*default_world)(bw_world_t *w);
    /* The docks its robot charges on and hears (sim.h: "kobuki",
     * "create"); NULL: a family without a dock. */
    const char *dock_family;
} bw_device_ops_t;

/* Output kept for a host that does not read: about a second of feedback of
 * any family; beyond it the oldest bytes go, as on a serial line. */
#define BW_DEVICE_OUT_CAP 16384
/* Host bytes on their way to a paced robot (a write far ahead of the line,
 * 4 s of it at 9600 baud): beyond, they are dropped and counted. */
#define BW_DEVICE_IN_CAP 4096
/* Bytes each of the two rings starts with, inside the device: a host that
 * reads as it goes keeps a frame or two in them. A ring grows, doubling, up
 * to its cap above when more is in it at once (a host that does not read,
 * a fast line's burst), so what thousands of robots in one process touch
 * stays small. */
#define BW_DEVICE_OUT_FIRST 512
#define BW_DEVICE_IN_FIRST 128
/* Writes remembered on a line, so a reader is woken at the end of each
 * (more in flight at once merge with the last). */
#define BW_DEVICE_MARKS 64
/* s of silence after which half a frame is dropped: a frame's bytes come
 * together, even at 9600 baud. */
#define BW_DEVICE_LINE_GAP 0.5
#define BW_DEVICE_NOTICES 8
#define BW_DEVICE_NOTICE_LEN 160

/* One direction of the serial line: a UART sending the bytes queued on it
 * one after another, each taking byte_time (10 bits: start, 8 data, stop).
 * Counting every byte ever queued, byte j's last bit is in at
 * t0 + (j - first + 1) * byte_time, where the burst the line is sending
 * began at t0 with byte `first`: bytes queued while the line is busy follow
 * the ones before without a gap, and one queued on an idle line starts at
 * once. The same expression gives the deadlines and the delivery, so a
 * reader woken at a deadline finds the bytes there, exactly. */
typedef struct {
    double byte_time;     /* s; 0: unpaced, every byte in at once */
    double t0;            /* when the burst's first byte started */
    uint64_t first;       /* ...that byte */
    uint64_t queued;      /* bytes queued, ever */
    uint64_t done;        /* bytes wholly across, ever */
    unsigned ends_head, ends_len;
    uint64_t overrun;     /* bytes beyond the queue's bound, dropped */
    uint64_t *ends;       /* BW_DEVICE_MARKS: where writes still on the line end
                             (in the device, after what a step reads first) */
} bw_uart_t;

/* The fields every step touches first, the large buffers (of which a
 * step touches the first few lines: the rings start over when empty) and
 * what is rarely read after them: a fleet of thousands steps them all every
 * frame, and what fits in the cache decides its speed. */
struct bw_device {
    const bw_device_ops_t *ops;
    void *priv;
    double clock;         /* the latest time the device was given: its output's time */
    double last_input;    /* when host bytes last came */
    /* The serial line (bw_device_options_t.baud). out[] holds the robot's
     * bytes from out_head: those tx has carried across (for the host to
     * take), then those still on the line. in[] holds the host's bytes
     * still on their way, rx counting them. */
    int baud;
    bw_uart_t tx, rx;
    uint8_t *out, *in;    /* out_first and in_first, or grown (allocated) */
    size_t out_size, in_size; /* their bytes */
    size_t out_head, out_len;
    size_t in_head, in_len;
    uint64_t out_dropped;
    bw_sim_t sim;
    bool exit_requested;
    int exit_status;
    unsigned notice_head, notice_len;
    bw_parse_stats_t body; /* malformed and unknown commands inside good frames */
    bw_world_t *own_world; /* the built-in room, when no world is given (allocated) */
    uint8_t out_first[BW_DEVICE_OUT_FIRST];
    uint8_t in_first[BW_DEVICE_IN_FIRST];
    bw_device_stats_t stats; /* its link counts first: set at every input */
    uint64_t tx_ends[BW_DEVICE_MARKS], rx_ends[BW_DEVICE_MARKS]; /* tx.ends, rx.ends */
    char notices[BW_DEVICE_NOTICES][BW_DEVICE_NOTICE_LEN];
};

/* lobot's Create, or NULL for another device. */
bw_device_t *bw_lobot_create_of(bw_device_t *d);

/* Queues feedback bytes for the host. */
void bw_device_emit(bw_device_t *d, const uint8_t *bytes, size_t n);
/* Counts a well-framed command the robot does not act on: a known one it
 * leaves alone, or one of a number the protocol does not define. */
void bw_device_ignored(bw_device_t *d, unsigned id);
void bw_device_unknown(bw_device_t *d, unsigned id);
/* Counts a good frame whose content is malformed for its type. */
void bw_device_malformed(bw_device_t *d);
/* Sets the link statistics: the framer's, plus the commands counted above. */
void bw_device_link_stats(bw_device_t *d, const bw_parse_stats_t *framer);
/* Queues a line for the operator (bw_device_next_notice). */
void bw_device_notice(bw_device_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

extern const bw_device_ops_t bw_kobuki_device_ops;
extern const bw_device_ops_t bw_p2os_device_ops;
extern const bw_device_ops_t bw_create_device_ops;
extern const bw_device_ops_t bw_lobot_device_ops;
extern const bw_device_ops_t bw_rbsm_device_ops;
extern const bw_device_ops_t bw_rflex_device_ops;

#endif
