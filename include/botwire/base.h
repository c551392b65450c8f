/*
 * botwire base API: one robot model over every family.
 *
 *     bw_base_t *b;
 *     bw_base_open(&b, "kobuki:/dev/ttyUSB0", NULL, now, err, sizeof err);
 *     bw_base_drive(b, 0.2, 0.0, now);          m/s, rad/s
 *     loop:
 *         wait for input on bw_base_fd(b) or until bw_base_next_deadline(b)
 *         bw_base_poll(b, now);
 *         bw_base_state(b)->pose ...; while (bw_base_next_event(b, &ev)) ...
 *     bw_base_close(b, now);                    stops the robot
 *
 * URLs: `kobuki:/dev/ttyUSB0` (a serial device or a pty path, `?baud=N`),
 * `FAMILY:tcp://HOST:PORT`, and `sim:kobuki` (the emulated robot in this
 * process: `?world=FILE&noise=X&seed=N&start=X,Y,DEG&battery=F`; `fleet=NAME` shares
 * one world with the process's other sim: robots of that fleet, where they
 * see each other).
 *
 * Time is a parameter: every call takes `now` in seconds on the caller's
 * clock. Pass a monotonic wall clock to drive a real robot; pass virtual time
 * to run an in-process emulated robot faster than real time.
 *
 * Supervision: the base is offline after the family's link timeout without a
 * valid frame (Kobuki 100 ms), reopens a port that went away, stops the robot
 * when the last drive command is older than the command timeout (default
 * 0.5 s), and sends a stop when closed. bw_base_stop_on_exit() makes exit()
 * and SIGINT/SIGTERM stop every open base too.
 *
 * Units: SI at this level (m, rad, s, V); pose from odometry, starting at
 * (0, 0, 0) when the base is opened. Threads: single-threaded; no thread
 * inside. Errors: 0 ok, negative BW_E*.
 */
#ifndef BOTWIRE_BASE_H
#define BOTWIRE_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "botwire/device.h"
#include "botwire/geom.h"
#include "botwire/port.h"
#include "botwire/sniff.h"
#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_base bw_base_t;

/* What a base can do; what it cannot is reported, never faked. */
enum {
    BW_CAP_DRIVE = 1u << 0,
    BW_CAP_ODOMETRY = 1u << 1,
    BW_CAP_GYRO = 1u << 2,
    BW_CAP_BUMPERS = 1u << 3,
    BW_CAP_CLIFFS = 1u << 4,
    BW_CAP_WHEEL_DROPS = 1u << 5,
    BW_CAP_BUTTONS = 1u << 6,
    BW_CAP_BATTERY = 1u << 7,
    BW_CAP_CHARGING = 1u << 8,
    BW_CAP_SONAR = 1u << 9,
    BW_CAP_DOCK_IR = 1u << 10,
    BW_CAP_STALL = 1u << 11,
    BW_CAP_VERSION = 1u << 12,
    BW_CAP_REFLEXES = 1u << 13, /* the base's own controller reacts to bumps, cliffs, drops */
    /* Steered, not driven (a RoboBuggy rolls on its own): drive(v, w) sets
     * the turn, v = 0 brakes, any other v only lets it roll. */
    BW_CAP_STEER = 1u << 14,
    BW_CAP_BRAKE = 1u << 15,    /* a brake, reported in state.brake */
    BW_CAP_FAULTS = 1u << 16,   /* the base reports faults (state.faults) */
    /* The base reports each axis's velocity, acceleration and torque
     * (state.trans, state.rot). */
    BW_CAP_MOTOR_REPORT = 1u << 17,
    BW_CAP_MOTOR_VECTOR = 1u << 18, /* it takes a full motor vector (bw_base_motor) */
    BW_CAP_SONAR_TIMING = 1u << 19, /* its sonar timing can be set (bw_base_sonar_timing) */
    /* It counts shaft-encoder ticks: state.encoder, counts_per_m, raw_x,
     * raw_y and each range's raw_x, raw_y (GRL's raw-base-x/y and
     * sonar-reading-base-positions). */
    BW_CAP_ENCODERS = 1u << 20,
    BW_CAP_BUMP_SWITCHES = 1u << 21, /* each bump switch by number (state.bump_switches) */
    BW_CAP_IR = 1u << 22,            /* infrared range sensors (ranges of kind BW_RANGE_IR) */
    BW_CAP_LEDS = 1u << 23,          /* LEDs the host sets (bw_base_led) */
    BW_CAP_SOUND = 1u << 24,         /* sound sequences and tones (bw_base_sound, bw_base_tone) */
    BW_CAP_OUTPUTS = 1u << 25,       /* digital outputs (bw_base_outputs) */
    BW_CAP_GAINS = 1u << 26,         /* the wheel controller's gains (bw_base_gains, state.gains) */
    BW_CAP_UNIQUE_ID = 1u << 27,     /* a unique device id (state.unique_id) */
    BW_CAP_JOYSTICK = 1u << 28,      /* an operator's joystick on the base (state.joystick) */
    BW_CAP_POWER = 1u << 29,         /* the base's power system reports (state.power) */
    /* The base docks itself on command (bw_base_seek_dock: a Create's Seek
     * Dock, a Create 1's Cover and Dock) and reports what its receivers
     * hear of the dock (state.buoys). */
    BW_CAP_SEEK_DOCK = 1u << 30,
};

/* One axis of a base's motion: translation (m/s, m/s^2) or rotation (rad/s,
 * rad/s^2, CCW positive). Torque is a fraction of the base's standard
 * torque (1: what its drivers use; 0: the motor lets the axis coast). */
typedef struct {
    double velocity, acceleration, torque;
} bw_axis_t;

/* Bumpers, by where they are on the robot. */
enum {
    BW_BUMP_FRONT_LEFT = 1u << 0,
    BW_BUMP_FRONT = 1u << 1,
    BW_BUMP_FRONT_RIGHT = 1u << 2,
    BW_BUMP_REAR_LEFT = 1u << 3,
    BW_BUMP_REAR = 1u << 4,
    BW_BUMP_REAR_RIGHT = 1u << 5,
};
/* Cliff (floor) sensors. */
enum {
    BW_CLIFF_LEFT = 1u << 0,
    BW_CLIFF_FRONT_LEFT = 1u << 1,
    BW_CLIFF_FRONT = 1u << 2,
    BW_CLIFF_FRONT_RIGHT = 1u << 3,
    BW_CLIFF_RIGHT = 1u << 4,
};
/* Wheel drops. */
enum {
    BW_DROP_LEFT = 1u << 0,
    BW_DROP_RIGHT = 1u << 1,
    BW_DROP_CASTER = 1u << 2,
};

/* What a docking IR receiver sees: the dock's beams, near and far. */
enum {
    BW_DOCK_NEAR_LEFT = 1u << 0,
    BW_DOCK_NEAR_CENTER = 1u << 1,
    BW_DOCK_NEAR_RIGHT = 1u << 2,
    BW_DOCK_FAR_CENTER = 1u << 3,
    BW_DOCK_FAR_LEFT = 1u << 4,
    BW_DOCK_FAR_RIGHT = 1u << 5,
};

/* What a receiver hears of a Roomba/Create Home Base (state.buoys). */
enum {
    BW_BUOY_RED = 1u << 0,         /* the red buoy: the dock's left, as it faces out */
    BW_BUOY_GREEN = 1u << 1,       /* the green buoy: its right; both along its axis */
    BW_BUOY_FORCE_FIELD = 1u << 2, /* close in front of it */
};

/* Where charge comes from. */
enum {
    BW_SOURCE_INTERNAL = 1u << 0, /* a charger plugged into the robot */
    BW_SOURCE_DOCK = 1u << 1,     /* the docking station */
};

/* What set off a reflex of the base's own controller. */
enum {
    BW_REFLEX_BUMP = 1u << 0,
    BW_REFLEX_CLIFF = 1u << 1,
    BW_REFLEX_WHEEL_DROP = 1u << 2,
    BW_REFLEX_REMOTE = 1u << 3, /* a remote control took over */
};

typedef enum {
    BW_CHARGE_UNKNOWN = 0,
    BW_CHARGE_DISCHARGING,
    BW_CHARGE_CHARGING,
    BW_CHARGE_CHARGED,
} bw_charge_t;

/* One range sensor (a sonar): where it sits on the robot, and its latest
 * reading with the robot's odometry pose when it came, so a reading can be
 * placed in the world even after the robot has moved. */
typedef enum {
    BW_RANGE_SONAR = 0,
    BW_RANGE_IR = 1, /* an infrared proximity sensor (BW_CAP_IR) */
} bw_range_kind_t;

typedef struct {
    bw_pose_t mount;  /* on the robot: m, m, rad (0 ahead, CCW positive) */
    double max_range; /* m; a reading at max_range saw nothing */
    double range;     /* m; 0 until the first reading */
    double t;         /* caller time of the reading; 0 until the first */
    bw_pose_t at;     /* odometry pose of the robot at that time */
    /* ...its position in translational encoder counts (BW_CAP_ENCODERS;
     * GRL's sonar-reading-base-positions, orientation at.theta). */
    double raw_x, raw_y;
    bw_range_kind_t kind; /* a sonar unless the base says otherwise */
} bw_range_t;

/* LED colours (bw_base_led). */
typedef enum {
    BW_LED_OFF = 0,
    BW_LED_GREEN,
    BW_LED_RED,
    BW_LED_ORANGE,
} bw_led_t;

/* A wheel velocity controller's PID gains, in the robot's own units (the
 * family's doc says which); known false until the robot has said them. */
typedef struct {
    bool known;
    bool user;   /* the user's gains are in force, not the factory's */
    double p, i, d;
} bw_gains_t;

/* A joystick on the base (BW_CAP_JOYSTICK): its axes, -1..1 (forward and
 * left positive), and its buttons (bit i: button i). */
typedef struct {
    bool active;    /* reported since the port was opened */
    double x, y;    /* x: turn (left positive), y: forward */
    uint32_t buttons;
} bw_joystick_t;

/* The base's power system (BW_CAP_POWER), as it reports it; NAN where it
 * says nothing. */
typedef struct {
    double voltage;   /* V, the main battery bus */
    double logic_voltage; /* V, the electronics' supply */
    double current;   /* A */
    uint32_t status;  /* the family's status bits */
} bw_power_t;

#define BW_BASE_MAX_RANGES 48
/* A noisy link (bytes come, no valid frame among them) stays online this
 * many link timeouts, at least 1 s (see bw_base_options_t.link_timeout). */
#define BW_BASE_NOISY_LINK_FACTOR 10

typedef struct {
    double t;            /* caller time of the last valid frame */
    bool online;
    bw_pose_t pose;      /* odometry: m, m, rad */
    double v, w;         /* measured: m/s, rad/s */
    /* Motion the robot's reports did not cover (reports of motion since
     * the last report, lost on a noisy line) is estimated from what the
     * robot was asked and said it was doing, never passed off as measured:
     * estimated is true while v, w and the pose's latest step are such an
     * estimate; estimated_time counts the seconds of motion the pose holds
     * that were estimated, not measured. */
    bool estimated;
    double estimated_time;
    uint32_t bumpers;    /* BW_BUMP_*: contact summarised by where it is */
    /* Each bump switch by its number (BW_CAP_BUMP_SWITCHES): bit i is
     * switch i of nbump_switches, numbered as the family's doc says (GRL's
     * bump-switch-state). Like bumpers, a bit changes when two frames agree. */
    uint64_t bump_switches;
    unsigned nbump_switches;
    uint32_t cliffs;     /* BW_CLIFF_* */
    uint32_t wheel_drops; /* BW_DROP_* */
    uint32_t buttons;    /* bit i: button i */
    bool stalled;
    double battery;      /* V; 0 when unknown */
    /* Where the base reports more of its battery (else 0):
     * A (negative when discharging), Ah, Ah, degrees C. */
    double battery_current, battery_charge, battery_capacity, battery_temp;
    /* How full the battery is, 0..1, where the base can say (a Create's
     * charge over its capacity, a Kobuki's voltage on its pack's curve);
     * 0 when unknown, as battery. */
    double battery_fraction;
    bw_charge_t charging;
    uint32_t charge_sources; /* BW_SOURCE_* */
    char mode[16];       /* the base's own mode where it has one ("full", "safe", ...) */
    bool brake;          /* the brake is engaged (BW_CAP_BRAKE) */
    uint32_t faults;     /* the base's fault bits, the family's (BW_CAP_FAULTS) */
    /* Another controller has the base (a remote, an RC operator): drive
     * commands are not obeyed until it lets go. */
    bool commands_ignored;
    /* Measured, where the base reports them (BW_CAP_MOTOR_REPORT); NAN on
     * bases that do not: nothing the base did not say is given as a number. */
    bw_axis_t trans, rot;
    /* Shaft encoders (BW_CAP_ENCODERS): the base's own counters as it
     * reports them, unwrapped (the family's doc says which: the left and
     * right wheel, or translation and rotation); translational counts per
     * metre; and the pose's position in those counts (GRL's raw-base-x,
     * raw-base-y). */
    int64_t encoder[2];
    double counts_per_m;
    /* Where encoder[] counts the left and right wheel (a Kobuki, a
     * Create 2): their radius, m, so that wheel i has turned
     * encoder[i] / counts_per_m / wheel_radius radians; else 0. */
    double wheel_radius;
    double raw_x, raw_y;
    /* Docking IR (BW_CAP_DOCK_IR): what each receiver sees, right, centre
     * and left (BW_DOCK_* bits); 0 when no beacon is seen. */
    uint8_t dock_ir[3];
    /* BW_CAP_SEEK_DOCK: what the receivers hear of a Home Base (BW_BUOY_*
     * bits): the omnidirectional one, and a Create 2's left and right ones
     * (0 on a Create 1); and whether the base is driving itself, seeking
     * its dock (from bw_base_seek_dock until it docks, gives up, or the
     * host drives or stops it). */
    uint8_t buoys[3];
    bool self_driving;
    char unique_id[40];  /* BW_CAP_UNIQUE_ID: as the family writes it, empty until known */
    bw_gains_t gains;    /* BW_CAP_GAINS */
    bw_joystick_t joystick; /* BW_CAP_JOYSTICK */
    bw_power_t power;    /* BW_CAP_POWER */
    char firmware[32];   /* "1.2.0", empty until known */
    char hardware[32];   /* "1.0.4", or a model such as "Pioneer p2dx" */
    char name[32];       /* the robot's own name, if it has one */
    unsigned nranges;    /* range sensors (BW_CAP_SONAR) */
    bw_range_t ranges[BW_BASE_MAX_RANGES];
    uint64_t reconnects; /* times the port was reopened */
    bw_parse_stats_t link; /* what the parser accepted and dropped */
    uint64_t events_dropped; /* events lost because nobody read them */
} bw_base_state_t;

typedef enum {
    BW_EV_ONLINE = 1,
    BW_EV_OFFLINE,
    BW_EV_BUMP,
    BW_EV_CLIFF,
    BW_EV_WHEEL_DROP,
    BW_EV_BUTTON,
    BW_EV_POWER,   /* charging state changed */
    BW_EV_STALL,
    BW_EV_REFLEX,  /* the base's own controller moved: mask BW_REFLEX_*; REMOTE
                      also on false when the remote lets go */
    BW_EV_BRAKE,   /* the brake engaged (on) or released */
    BW_EV_FAULT,   /* fault bits (mask, the family's) raised (on) or cleared */
} bw_event_type_t;

typedef struct {
    bw_event_type_t type;
    double t;      /* caller time */
    uint32_t mask; /* the bits that changed (BW_BUMP_*, BW_CLIFF_*, ...) */
    bool on;       /* pressed / detected / online (false: released, cleared) */
    /* BW_EV_REFLEX: how far the base moved (m, negative backwards) and
     * turned (rad, CCW positive) on its own; what set it off in detail (the
     * family's flags: bump, cliff or wheel-drop bits, or the remote's code). */
    double distance, angle;
    uint32_t detail;
} bw_event_t;

/* Name of an event type ("bump", "cliff", ...). */
const char *bw_event_name(bw_event_type_t type);

/* Sees every byte on the link: from_robot true for bytes read from the
 * robot, false for bytes the base sent; now as passed to the call that moved
 * them. */
typedef void (*bw_tap_fn)(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now);

typedef struct {
    /* s without a valid frame before offline (0: the family's default).
     * While bytes still come (a noisy line: the robot is there, its frames
     * are damaged) the link stays online up to BW_BASE_NOISY_LINK_FACTOR
     * times as long, and at least 1 s. Going offline sends the family's
     * stop: a robot that still hears the host is stopped. */
    double link_timeout;
    double command_timeout; /* s after the last drive before stopping; 0: 0.5; <0: never */
    double reopen_interval; /* s between attempts to reopen a lost port; 0: 0.25 */
    bw_tap_fn tap;          /* a tap from the first byte (the session's start) on */
    void *tap_ctx;
    /* sim: URLs: the world the robot moves in, instead of the URL's world=
     * or the family's own (NULL); it must outlive the base. */
    const bw_world_t *world;
    /* sim: URLs: with world, the fleet the robot joins there (bw_fleet_init
     * on that world), so that the robots of one process see and bump into
     * each other without a world file; the caller's, outliving the base. */
    bw_fleet_t *fleet;
} bw_base_options_t;

/*
 * Opens a robot by URL at time now. For sim: URLs the emulated robot is
 * created in this process (see bw_base_device). Returns 0, or a negative
 * error with a one-line reason in err: BW_EINVAL (bad URL), BW_EUNKNOWN
 * (family), BW_EIO (the port cannot be opened).
 */
int bw_base_open(bw_base_t **base, const char *url, const bw_base_options_t *opt, double now,
                 char *err, size_t errlen);
/*
 * Opens a robot of a family on a port the caller opened (any transport the
 * library does not know). The family may carry a URL's options after a
 * "?" ("create?model=create2&mode=safe"). The base takes the port in every case (closing it
 * if the open fails) and cannot reopen it: a lost link stays offline.
 */
int bw_base_open_port(bw_base_t **base, const char *family, bw_port_t *port,
                      const bw_base_options_t *opt, double now, char *err, size_t errlen);

/* Stops the robot (and ends its session, for families that have one), then
 * closes the port and frees the base. NULL is fine. */
void bw_base_close(bw_base_t *base, double now);

/* Drive at v m/s and w rad/s (CCW positive) until the next call; the robot
 * stops by itself when no drive comes within the command timeout. */
int bw_base_drive(bw_base_t *base, double v, double w, double now);
int bw_base_stop(bw_base_t *base, double now);
/* The odometry starts again from (0, 0, 0) here, as the robot stands
 * (kobuki_ros's and create_robot's reset_odometry); the robot's own
 * counters are left alone. 0. */
int bw_base_reset_odometry(bw_base_t *base);
/* A full motor vector per axis: velocity, the acceleration to reach it, the
 * torque allowed (bases with BW_CAP_MOTOR_VECTOR; BW_ENOTSUP on the others).
 * It lasts as a drive does (the command timeout); bw_base_drive goes back
 * to the base's own acceleration and torque. */
int bw_base_motor(bw_base_t *base, const bw_axis_t *trans, const bw_axis_t *rot, double now);
/* The sonar's timing, s: how long each ping listens for its echo, the pause
 * after a ping, the pause after a full round (BW_CAP_SONAR_TIMING;
 * BW_ENOTSUP on other bases). */
int bw_base_sonar_timing(bw_base_t *base, double echo, double ping, double set, double now);

/* What some bases have besides driving (BW_ENOTSUP on the others; BW_EINVAL
 * for a value out of the base's range; BW_ECLOSED while the link is down). */
/* Sets LED `index` (numbered from 1 as on the robot) to a colour (BW_CAP_LEDS). */
int bw_base_led(bw_base_t *base, unsigned index, bw_led_t colour, double now);
/* Plays the base's built-in sound sequence `sequence` (the family's
 * numbering; BW_CAP_SOUND). */
int bw_base_sound(bw_base_t *base, unsigned sequence, double now);
/* Plays a tone of hz for seconds (BW_CAP_SOUND). */
int bw_base_tone(bw_base_t *base, double hz, double seconds, double now);
/* Sets the digital outputs: bit i is output i (BW_CAP_OUTPUTS). */
int bw_base_outputs(bw_base_t *base, uint32_t mask, double now);
/* Sets the wheel controller's gains (BW_CAP_GAINS): user true sets p, i, d;
 * false goes back to the factory's. The robot's answer updates
 * state.gains. */
int bw_base_set_gains(bw_base_t *base, const bw_gains_t *gains, double now);
/* Asks the robot for its gains; state.gains is updated when it answers. */
int bw_base_request_gains(bw_base_t *base, double now);
/* The base seeks its dock itself (BW_CAP_SEEK_DOCK): state.self_driving
 * until it is on (state.charge_sources says the dock) or gives up; any
 * bw_base_drive or bw_base_stop takes it back (a stop stops it, and leaves
 * a base that has docked standing on its dock, charging).
 * BW_ENOTSUP where the base cannot. */
int bw_base_seek_dock(bw_base_t *base, double now);

/* Does everything due at now: reads and decodes input, supervises the link,
 * sends what the protocol needs. Call when bw_base_fd is readable or at
 * bw_base_next_deadline, or simply often. */
int bw_base_poll(bw_base_t *base, double now);
/* Descriptor to wait on (-1 when there is none, e.g. sim: URLs). */
int bw_base_fd(const bw_base_t *base);
/* The latest time by which bw_base_poll should be called. */
double bw_base_next_deadline(const bw_base_t *base);
/* The same without the in-process robot's own deadline (sim: URLs:
 * bw_device_next_deadline of bw_base_device), which bw_base_next_deadline
 * adds: for a caller that steps that robot itself between polls and keeps
 * both. Only the base's calls change it (a poll, a drive, a send). */
double bw_base_host_deadline(const bw_base_t *base);

const bw_base_state_t *bw_base_state(const bw_base_t *base);
/* A count that moves at every call that may change the state: a poll
 * (but one that reads nothing, where the link stays as it was and the
 * family's driver only sends on its own), a command the driver sends on
 * (drive, motor, the extras). The same count means the same state, so a
 * caller may keep what it worked out of it. */
uint64_t bw_base_changes(const bw_base_t *base);
/* Takes the oldest pending event: 1 with *ev filled, 0 if there is none. */
int bw_base_next_event(bw_base_t *base, bw_event_t *ev);
/* What this base can do (BW_CAP_*); may grow once the robot has said what
 * model it is. */
uint32_t bw_base_caps(const bw_base_t *base);
const char *bw_base_family(const bw_base_t *base);
/* The fastest the robot drives and turns (m/s, rad/s) as it comes from the
 * factory; faster commands are clamped by the robot. */
void bw_base_limits(const bw_base_t *base, double *max_v, double *max_w);
/* The serial line's baud rate (the family's, or the URL's ?baud=); 0 for
 * a link that has none (TCP, sim:). */
int bw_base_baud(const bw_base_t *base);
/* A family's own baud rate (what a URL without ?baud= opens at), in any
 * case; 0 for an unknown family. */
int bw_base_family_baud(const char *family);
/* The in-process emulated robot of a sim: URL, or NULL. */
bw_device_t *bw_base_device(bw_base_t *base);

/* What the base has heard from the robot since its port was last opened,
 * and which robot that makes it. The base keeps the robot's first
 * BW_BASE_HEARD_MAX bytes and scores them against every family's protocol
 * (bw_sniff) until it is sure, so that a robot of another family is named
 * rather than driven: a '$' and any 53 bytes pass lobot's parser, so a
 * lobot base on a Kobuki would otherwise come online and report nonsense. */
#define BW_BASE_HEARD_MAX 4096
typedef struct {
    uint64_t bytes; /* bytes from the robot (0: the line has been silent) */
    /* The family whose protocol those bytes are in: the base's own, another
     * one (then wrong is true), or NULL while none is recognised. */
    const char *family;
    /* family is settled: its frames explain a good share of the bytes, and chance
     * does not make that many (bw_sniff's BW_SNIFF_STRONG); for another
     * family, the base's own frames explain few of them too. A base on an
     * in-process robot (sim: URLs) is sure of its own family at once. */
    bool sure;
    /* The robot is not of the base's family: it speaks another family's
     * protocol (sure, family), or the base's driver came online on bytes
     * its family's frames do not explain at all (noise, a wrong baud rate:
     * family is NULL, or another family weakly). The base is offline and
     * stays so until the port is reopened, sends the robot nothing
     * (bw_base_drive answers BW_EPROTO) and stops decoding. */
    bool wrong;
    /* TCP: connections in a row that the far end accepted and closed within
     * a second without sending a byte, as a robot server that has a client
     * already does. Reset by the first byte that comes. */
    unsigned closed_unheard;
} bw_base_heard_t;

void bw_base_heard(const bw_base_t *base, bw_base_heard_t *heard);

/* Sets the tap (bw_base_options_t.tap to see the bytes of the open too);
 * NULL removes it. */
void bw_base_set_tap(bw_base_t *base, bw_tap_fn fn, void *ctx);

/* Makes exit() and SIGINT/SIGTERM send the stop command to every base that
 * is still open (then the signal's default action runs). Call once. */
void bw_base_stop_on_exit(void);

#ifdef __cplusplus
}
#endif

#endif
