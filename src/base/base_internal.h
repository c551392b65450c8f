/* The inside of a base: what each family's driver.c implements, and the
 * services the base gives it. Private to the library. */
#ifndef BOTWIRE_BASE_INTERNAL_H
#define BOTWIRE_BASE_INTERNAL_H

#include "botwire/base.h"
#include "botwire/port.h"

/*
 * A family's host driver. The base owns the port, the supervision timers and
 * the events; the driver speaks the protocol: it turns input bytes into the
 * state (b->st) and the commanded twist (b->cmd_v, b->cmd_w) into bytes.
 */
typedef struct {
    const char *family;
    size_t size;         /* bytes of driver state (b->drv) */
    uint32_t caps;       /* BW_CAP_* the family always has (drivers may add
                            to b->caps once they know the model) */
    const char *const *params; /* the family's own URL parameters, NULL-terminated (or NULL) */
    double link_timeout; /* default seconds without a valid frame before offline */
    double max_v, max_w; /* the fastest the robot goes (m/s, rad/s); it clamps above */
    /* s of silence inside which no frame of this family has a gap: input
     * after a longer one does not continue what the parser holds (a corrupt
     * length byte must not hold back the frames behind it until its length
     * is reached). 0: never. reset_line drops the held bytes, finding the
     * frames inside them. */
    double line_gap;
    /* True where on_tick and on_drive never write the state (b->st): a poll
     * that reads nothing then leaves it as it was, and bw_base_changes
     * stays (false: every poll may change it). */
    bool quiet_tick;
    int baud;            /* default serial baud rate */
    /* A model's default rate when it is not baud (0: baud; NULL: every
     * model's is baud). */
    int (*model_baud)(const char *model);
    /* Reads family-specific URL parameters; 0 or BW_EINVAL with err (NULL:
     * the family has none). */
    int (*init)(bw_base_t *b, const bw_url_t *url, char *err, size_t errlen);
    /* The port was just (re)opened: start the session, forget the link's
     * history (not the pose). */
    void (*on_open)(bw_base_t *b, double now);
    void (*reset_line)(bw_base_t *b, double now);
    /* Bytes from the robot. Call bw_base_frame_ok for every valid frame. */
    void (*on_input)(bw_base_t *b, const uint8_t *data, size_t n, double now);
    /* Called on every poll after input and supervision (keep-alives; NULL:
     * nothing to do). */
    void (*on_tick)(bw_base_t *b, double now);
    /* The commanded twist changed: send it. */
    void (*on_drive)(bw_base_t *b, double now);
    /* Bytes that stop the robot, written as they are from a signal handler:
     * no state may be needed to send them. Returns the length. */
    size_t (*stop_bytes)(const bw_base_t *b, uint8_t *buf, size_t cap);
    /* End the session before the port closes (after the stop); NULL: none. */
    void (*on_close)(bw_base_t *b, double now);
    /* The pose was set to (0, 0, 0), from a heading of old_theta: a driver
     * that takes its heading from the robot's own (a gyro, the robot's
     * odometry) moves its offset so that the heading goes on from 0 (NULL:
     * the pose is the sum of the driver's steps, nothing to do). */
    void (*reset_pose)(bw_base_t *b, double old_theta);
    /* The driver's own next deadline, or INFINITY (NULL: none). */
    double (*next_deadline)(const bw_base_t *b);
    /* Sets the sonar timing (BW_CAP_SONAR_TIMING; NULL: not supported). */
    int (*sonar_timing)(bw_base_t *b, double echo, double ping, double set, double now);
    /* The optional extras (NULL: not supported; the base checks the caps
     * and that the port is open first). */
    int (*led)(bw_base_t *b, unsigned index, bw_led_t colour, double now);
    int (*sound)(bw_base_t *b, unsigned sequence, double now);
    int (*tone)(bw_base_t *b, double hz, double seconds, double now);
    int (*outputs)(bw_base_t *b, uint32_t mask, double now);
    int (*set_gains)(bw_base_t *b, const bw_gains_t *g, double now);
    int (*request_gains)(bw_base_t *b, double now);
    /* The robot seeks its dock itself (BW_CAP_SEEK_DOCK); on_drive then
     * finds st.self_driving set: the host takes the robot back. */
    int (*seek_dock)(bw_base_t *b, double now);
} bw_driver_ops_t;

#define BW_BASE_EVENTS 64
#define BW_BASE_STOP_MAX 64

/* What events were last reported on (bw_base_state_t's fields of the same
 * names). */
typedef struct {
    bool online, stalled, brake, commands_ignored;
    uint32_t bumpers, cliffs, wheel_drops, buttons, faults;
    bw_charge_t charging;
} bw_base_seen_t;

/* What a poll and the deadline read first, the state, then what is rarely
 * read: a fleet of thousands polls them all, and the memory it touches
 * decides its speed. */
struct bw_base {
    const bw_driver_ops_t *ops;
    void *drv;
    double max_v, max_w;   /* the ops' limits, or the model's (a driver's init) */
    bw_port_t *port;       /* NULL while the link is down */
    bw_device_t *device;   /* sim: URLs: the robot, in this process */
    bw_port_t *dev_port;   /* ...and its end of the in-memory pair */
    uint32_t caps;
    bool fixed_port;       /* opened on the caller's port: never reopened */
    bool noisy;            /* sim: URLs with ?ber=, drop= or insert= */
    bool cmd_vector;       /* a full motor vector (bw_base_motor) is in force */
    bool cmd_active;       /* a nonzero twist is in force */
    bool sniffing;            /* still scoring the robot's first bytes (heard) */
    bool heard_sure;
    bool wrong;               /* another family's robot: offline, deaf and mute */
    bool unexplained;         /* HEARD_JUDGE bytes and none of them this family's */
    uint64_t changes;      /* bw_base_changes (in the first line, with what a drive reads) */
    double cmd_v, cmd_w;   /* commanded twist, m/s and rad/s */
    double cmd_t;          /* when it was commanded */
    double sim_unheard;    /* when bytes went to the in-process robot that it has not
                              read yet (INFINITY: none): the next poll is due then */
    double next_reopen;
    double last_frame;
    double last_input;     /* when bytes last came from the robot */
    double quiet_seen;     /* the last read that found the line empty */
    double last_poll;      /* when the last poll ended (or the port opened): what
                              a poll reads came after it, and before the poll */
    double quiet_until;    /* the robot is expected to be silent until then */
    bw_base_options_t opt;
    int baud;
    unsigned implausible_run;
    uint64_t implausible;  /* frames set aside (added to st.link) */
    uint64_t heard_total;
    const char *heard_family; /* recognised, or NULL */
    double opened_at;         /* when the port was last opened */
    unsigned closed_unheard;  /* TCP connections closed at once without a byte */
    int slot;              /* in the stop-on-exit registry, or -1 */
    bw_tap_fn tap;
    void *tap_ctx;
    unsigned ev_head, ev_len;
    /* Bumpers, cliffs, wheel drops, buttons, faults, the stall, the brake
     * and the charging state: as the last frame had them, and as two frames
     * in a row agreed. */
    uint32_t raw[10], shown[10]; /* ...and bump_switches' two halves */
    bw_base_seen_t seen;   /* state as of the last events */
    bw_base_state_t st;
    bw_axis_t cmd_axis[2]; /* ...translation and rotation */
    bw_line_t line_up, line_down; /* the bad cable: host to robot, robot to host */
    uint8_t stop[BW_BASE_STOP_MAX];
    size_t stop_len;
    bw_world_t *world;     /* sim: URLs with ?world=FILE */
    struct bw_shared_world *shared; /* sim: URLs with ?fleet=NAME: the world it shares */
    bw_event_t events[BW_BASE_EVENTS];
    bw_url_t url;
    /* The robot's first bytes since the port was opened, scored against
     * every family until the base is sure which one it is (bw_base_heard). */
    uint8_t heard[BW_BASE_HEARD_MAX];
    size_t heard_len;
};

/* For drivers. A valid frame has updated the state (call once per frame
 * that carries all of these, or once per cycle of messages that do).
 * Bumpers, cliffs, wheel drops, buttons, faults, the stall, the brake and
 * the charging state change only when two frames in a row agree, so a bit
 * flipped on the line that the checksum let through (or a line without a
 * checksum) never raises an event. */
void bw_base_frame_ok(bw_base_t *b, double now);
/* What stops the robot has changed (the driver's stop_bytes depend on the
 * state: a Create driving itself is taken back by its mode first): taken
 * again, for the link's loss and for the exit. */
void bw_base_stop_bytes_changed(bw_base_t *b);
/* A frame with values the robot cannot have (bad true): counted as
 * implausible; returns true while the driver should set it aside. After
 * BW_BASE_IMPLAUSIBLE_RUN such frames in a row the values are believed (the
 * robot was reset, or the host was away): false, and the driver takes the
 * frame as its new reference without integrating the jump. bad false ends a
 * run. */
bool bw_base_implausible(bw_base_t *b, bool bad);
/* The base's own controller moved the robot (BW_EV_REFLEX). */
void bw_base_reflex(bw_base_t *b, uint32_t what, uint32_t detail, double distance, double angle,
                    double now);
#define BW_BASE_IMPLAUSIBLE_RUN 3
/* The robot is busy and says nothing until `until` (a move the driver asked
 * for that holds its controller): the link timeout runs from then. */
void bw_base_expect_quiet(bw_base_t *b, double until);
/* Writes to the robot; a failed link is closed and reopened later. Returns
 * the count written or a negative error. */
int bw_base_send(bw_base_t *b, const uint8_t *data, size_t n, double now);

/* ---- the base's own parts, one file each (not for drivers) ---------------- */

/* on_exit.c: the base's place among those a signal or exit() stops. */
void bw_base_slot_take(bw_base_t *b);
void bw_base_slot_update(bw_base_t *b); /* its port changed */
void bw_base_slot_release(bw_base_t *b);
/* heard.c: which robot is there. A session begins (the port opened); the
 * robot's bytes as they come, scored until one family explains them; a
 * robot of another family, let alone. */
void bw_base_heard_reset(bw_base_t *b, double now);
void bw_base_sniff(bw_base_t *b, const uint8_t *data, size_t n);
void bw_base_set_wrong(bw_base_t *b);
/* sim_url.c: a sim: URL's robot, made in this process on a port pair;
 * its shared world left when the base is freed. */
int bw_base_open_sim(bw_base_t *b, double now, char *err, size_t errlen);
void bw_base_leave_shared(bw_base_t *b);
/* params.c: a number parameter of the URL within [lo, hi] (whole if
 * asked): 1 with *out set, 0 when absent, BW_EINVAL with the reason in
 * err; every parameter one the URL's kind or family takes (0, or
 * BW_EINVAL with the reason). */
int bw_base_check_params(const bw_base_t *b, char *err, size_t errlen);
int bw_base_number_param(const bw_base_t *b, const char *key, double lo, double hi, bool whole,
                         double *out, char *err, size_t errlen);

extern const bw_driver_ops_t bw_kobuki_driver_ops;
extern const bw_driver_ops_t bw_p2os_driver_ops;
extern const bw_driver_ops_t bw_lobot_driver_ops;
extern const bw_driver_ops_t bw_create_driver_ops;
extern const bw_driver_ops_t bw_rbsm_driver_ops;
extern const bw_driver_ops_t bw_rflex_driver_ops;

#endif
