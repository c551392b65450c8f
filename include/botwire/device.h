/*
 * botwire emulated robots: the device side of each protocol, moving in a
 * simulated world. The same codec as the host side parses the commands and
 * encodes the feedback, byte for byte as the robot would.
 *
 * A device is transport-free: bytes from the host go in with
 * bw_device_input, feedback comes out of bw_device_output, and
 * bw_device_step advances the robot and its world to `now`. Serving it on a
 * pty, a TCP port or an in-memory pair is the caller's loop, e.g.:
 *
 *     bw_device_input(dev, bytes_from_host, n, now);
 *     bw_device_step(dev, now);
 *     n = bw_device_output(dev, buf, sizeof buf);   -> write to the host
 *     sleep until bw_device_next_deadline(dev)
 *
 * The serial line: with options.baud set, the device's bytes cross a line
 * of that rate as a UART sends them, 10 bits a byte (start, 8 data, stop),
 * one after another: bw_device_output gives only the bytes whose last bit
 * is in by the time the device was stepped to, and the host's bytes take
 * effect each when its last bit has reached the robot. Without it (0, the
 * default) both come and go at once, as over TCP. docs/pacing.md.
 *
 * Memory: allocated on create. Threads: one device per thread.
 */
#ifndef BOTWIRE_DEVICE_H
#define BOTWIRE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "botwire/geom.h"
#include "botwire/kobuki.h"
#include "botwire/lobot.h"
#include "botwire/sim.h"
#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_device bw_device_t;

typedef struct {
    const bw_world_t *world; /* NULL: the built-in room; must outlive the device */
    bool has_start;          /* start here instead of the world's start */
    bw_pose_t start;
    double noise;            /* 0 (default): exact; 1: the family's nominal slip
                                and encoder noise; scales linearly */
    uint64_t seed;           /* noise seed */
    const char *model;       /* family-specific model name; NULL: the default */
    double command_timeout;  /* s without a motion command before the robot
                                stops itself; 0: the family's default; <0: never */
    /* rbsm: the push that starts the buggy rolling (m/s it reaches; 0: the
     * default, 3) and the course's slope (degrees, downhill positive). */
    double push, slope;
    /* Robots that share one world and see each other (sim.h): the device's
     * body joins it, and leaves when the device is destroyed. The world is
     * the fleet's unless `world` names one (it must be the same). NULL:
     * alone. */
    struct bw_fleet *fleet;
    /* The serial line's rate, bits/s, both ways (bw_device_family_baud: the
     * family's): the robot's output and the host's input cross it a byte
     * per 10 bits. 0: no line, bytes at once (TCP, unit tests). */
    int baud;
    /* With has_battery: how full the battery starts, 0 (empty) to 1
     * (full); without: full. */
    bool has_battery;
    double battery;
} bw_device_options_t;

/* Zero options: built-in room, no noise, defaults. */
void bw_device_options_init(bw_device_options_t *o);

/* Creates the emulated robot of a family ("kobuki", ...) at time t0.
 * BW_EUNKNOWN for a family or model that is not emulated. */
int bw_device_create(bw_device_t **dev, const char *family, const bw_device_options_t *opt,
                     double t0, char *err, size_t errlen);
void bw_device_destroy(bw_device_t *dev);
/* The world a family's emulated robot moves in when none is given (most:
 * bw_world_default's room; rbsm: a parking lot). BW_EUNKNOWN for a family
 * with no emulated robot. */
int bw_device_default_world(const char *family, bw_world_t *w);

/* Bytes the host wrote at `now`. Unpaced they take effect at now; on a line
 * (options.baud) each takes effect when it has crossed it, after the bytes
 * still on their way (bw_device_step delivers them); beyond 4 KB on the
 * way they are dropped (bw_device_line: in_overrun). */
void bw_device_input(bw_device_t *dev, const uint8_t *data, size_t n, double now);
/* Advances the robot and world to now, producing feedback that is due (and
 * hearing the host's bytes that have come across the line by then). */
void bw_device_step(bw_device_t *dev, double now);
/* Takes up to cap output bytes that have reached the host by the time the
 * device was last stepped to (all it made, unpaced); returns the count.
 * Output that the caller does not take is kept (up to an internal limit,
 * then the oldest is dropped, as on a serial line nobody reads). */
size_t bw_device_output(bw_device_t *dev, uint8_t *buf, size_t cap);
/* Time at which the device next has something to do: its next feedback,
 * the end of the next write of its own or of the host's still crossing the
 * line. After a step to now it is later than now. */
double bw_device_next_deadline(const bw_device_t *dev);

/* The line rate, bits/s, of the serial link of a family's robot (its host
 * driver's default: kobuki 115200, p2os 9600, lobot and create 57600, rbsm
 * 76800, rflex 115200); BW_EUNKNOWN for an unknown family. */
int bw_device_family_baud(const char *family);
/* The same for a model of the family (NULL or "": the family's; the
 * deployed RoboBuggy runs at 57600). */
int bw_device_model_baud(const char *family, const char *model);
/* The device's serial line: its rate and what it holds. A robot that makes
 * more than its line carries queues up to a second of the line (at least
 * 256 bytes) and drops what comes beyond it, whole writes, counted. */
typedef struct {
    int baud;              /* 0: unpaced */
    size_t out_on_line;    /* the robot's bytes sent and not yet across */
    size_t in_on_line;     /* the host's bytes not yet across */
    uint64_t out_overrun;  /* the robot's bytes dropped: its line was full */
    uint64_t in_overrun;   /* the host's bytes dropped: written too far ahead */
} bw_device_line_t;
void bw_device_line(const bw_device_t *dev, bw_device_line_t *out);
/* A client connected (true) or went away (false), for transports that know
 * (TCP, pty); families with sessions (P2OS) reset theirs. */
void bw_device_link(bw_device_t *dev, bool connected, double now);

/* True while a client holds a session (P2OS: between OPEN and CLOSE);
 * always true for families without sessions. An emulator serving one client
 * at a time can let go of a client that never starts one. */
bool bw_device_in_session(const bw_device_t *dev);

/* The simulation inside: the true pose, the world. */
bw_sim_t *bw_device_sim(bw_device_t *dev);
const char *bw_device_family(const bw_device_t *dev);
/* What the emulated robot made of the host's bytes. Every well-framed
 * command it does not act on is counted here, by its number, so nothing is
 * dropped silently: `ignored` for commands of the protocol the emulated
 * robot knowingly leaves alone (a joystick request on a robot without one),
 * `link.unknown` for numbers the protocol does not define. */
typedef struct {
    bw_parse_stats_t link;       /* frames accepted and rejected, bytes skipped */
    uint64_t ignored;            /* known commands not acted on */
    uint32_t ignored_by_id[256]; /* ...by command number (or message id) */
    uint32_t unknown_by_id[256]; /* link.unknown by command number */
} bw_device_stats_t;

const bw_device_stats_t *bw_device_stats(const bw_device_t *dev);
/* Name of a command number in the family's protocol, or NULL. */
const char *bw_device_command_name(const bw_device_t *dev, unsigned id);

/* Takes the oldest line of text the emulated robot has for its operator (a
 * message the host sent for display, a pose the host set, a command it
 * stopped on): 1 with the line in buf (cut to cap), 0 if there is none.
 * Unread lines beyond a few are dropped, oldest first. */
int bw_device_next_notice(bw_device_t *dev, char *buf, size_t cap);
/* True once the host has asked the emulator itself to exit (P2OS SIM_EXIT),
 * with the exit status it asked for. */
bool bw_device_exit_requested(const bw_device_t *dev, int *status);
/* Output bytes lost because nobody took them in time (see bw_device_output). */
uint64_t bw_device_dropped(const bw_device_t *dev);

/* ---- family specifics ---------------------------------------------------- */

/* Kobuki: what the host has set on the emulated robot. */
typedef struct {
    uint16_t gp_output;      /* digital outputs, external power, LEDs (0x0100..0x0800) */
    uint32_t gp_outputs;     /* general purpose output commands (the LEDs') received */
    uint8_t sound_sequence;  /* the last sequence played */
    uint16_t sound_note;     /* the last note played, and its duration (ms) */
    uint8_t sound_duration;
    uint32_t sounds;         /* sounds and sequences played */
    bw_kobuki_gain_t gain;   /* the wheel controller's PID gains */
    bw_kobuki_base_control_t command; /* the motion command in force */
    uint32_t udid[3];        /* its unique device id, as it sends it */
} bw_kobuki_device_io_t;

/* NULL if dev is not a Kobuki. */
const bw_kobuki_device_io_t *bw_kobuki_device_io(const bw_device_t *dev);

/* Create (and lobot, whose Create it is): what the infrared receiver hears,
 * as the Roomba remote sends it (BW_CREATE_IR_*, 255: nothing). BW_EINVAL
 * for another family. */
int bw_create_device_remote(bw_device_t *dev, uint8_t ir_byte);

/* lobot: the Command Module program inside (its state, for tests), and the
 * bytes from the host it never heard because its USART was the Create's. */
const bw_lobot_cm_t *bw_lobot_device_program(const bw_device_t *dev);
uint64_t bw_lobot_device_unheard(const bw_device_t *dev);

/* rbsm: the RC transmitter's auton switch. rc true: the operator drives (the
 * steering centred, the brake as the operator holds it) and the host's
 * commands are read but not obeyed; false: the host drives. BW_EINVAL for
 * another family. */
int bw_rbsm_device_rc(bw_device_t *dev, bool rc, bool brake_engaged);

/* rbsm model "buggy": the buggy without its Mega, for a Mega that runs
 * elsewhere (firmware in a simulated chip). It has no serial link; its
 * servo and brake are set here, and what the Mega's pins would read is
 * below. BW_EINVAL for another family or model. */
int bw_rbsm_device_actuate(bw_device_t *dev, double steer_rad, bool brake_down);
typedef struct {
    double steer;       /* rad: the servo's angle (what its potentiometer reads) */
    double v;           /* m/s */
    uint32_t enc_ticks; /* the drive encoder's count (it counts either way) */
    double battery;     /* V */
    bool rc, rc_brake;  /* the RC switch and the operator's brake */
    bool braked;        /* the brake is down */
} bw_rbsm_buggy_t;
int bw_rbsm_device_buggy(const bw_device_t *dev, bw_rbsm_buggy_t *out);

#ifdef __cplusplus
}
#endif

#endif
