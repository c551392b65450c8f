/*
 * lobot (Robolocust): the protocol between the high-level controller (the
 * host) and the low-level program on an iRobot Create's Command Module.
 *
 * Host to Command Module, always four bytes:
 *
 *     id  param_hi  param_lo  parity        parity = id ^ param_hi ^ param_lo
 *
 * The parameter is a signed 16-bit value, high byte first, zero for commands
 * that take none. The Command Module stops the robot on a bad parity and on
 * an unknown id.
 *
 * Command Module to host: an ACK id, then a fixed number of data bytes, no
 * checksum; 16-bit values signed, high byte first:
 *
 *     READY ':' 0      BUMPS 'B' 5 (flags, distance, angle)
 *     WHEEL_DROPS 'W' 1 (flags)    CLIFFS 'C' 5 (flags, distance, angle)
 *     REMOTE '.' 1 (infrared byte) SENSORS '$' 53 (Create group 6, spin flag)
 *
 * SENSORS bytes 0..51 are the Create's sensor group 6 as the Create sent it
 * (create.h: the same field names; bytes 8 and 9 are unused), byte 52 is
 * the spin flag (1: distance and angle include the last spin's motion).
 *
 * Rear bumpers. The seed's enum puts them in SENSORS byte 0 as 0x20 (rear
 * right) and 0x40 (rear left), and in the BUMPS flags as 0x04 (rear right)
 * and 0x08 (rear left). The seed's description of the BUMPS flags index
 * ("bits 3 and 4") disagrees with that enum and with its own description of
 * ACK_BUMPS ("bit #2 rear right, bit #3 rear left"); the enum is followed.
 *
 * Memory: no function allocates; caller-owned parsers, messages and buffers;
 * every encoder takes a capacity. Time: nothing reads a clock (the Command
 * Module's wait for a command is the caller's). Threads: reentrant; one
 * parser must not be used by two threads at once. Errors: 0 ok, negative
 * BW_E* (wire.h), positive counts.
 *
 * Device side (the Command Module, an ATmega168): the command parser and
 * the bw_lobot_encode_ack_bytes / _motion / _sensors_bytes encoders use no
 * name or field table, since on an AVR const tables are copied to RAM.
 */
#ifndef BOTWIRE_LOBOT_H
#define BOTWIRE_LOBOT_H

#include "botwire/create.h"
#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BW_LOBOT_CMD_SIZE 4u
#define BW_LOBOT_MAX_ACK 54u /* SENSORS: id and 53 data bytes */

/* Command ids; the parameter each takes. */
enum {
    BW_LOBOT_CMD_NOP = '@',                /* none */
    BW_LOBOT_CMD_FORWARD = 'F',            /* speed, mm/s, 0..500 (keeps the radius) */
    BW_LOBOT_CMD_REVERSE = 'R',            /* speed, mm/s, 0..500 */
    BW_LOBOT_CMD_STOP = 'S',               /* none */
    BW_LOBOT_CMD_LEFT = '<',               /* turn radius, mm (below 100: in place) */
    BW_LOBOT_CMD_RIGHT = '>',              /* turn radius, mm */
    BW_LOBOT_CMD_STRAIGHT = '!',           /* none */
    BW_LOBOT_CMD_SPIN = '*',               /* degrees, CCW positive, -360..360 */
    BW_LOBOT_CMD_ENABLE_REAR_BUMPS = 'e',  /* none */
    BW_LOBOT_CMD_DISABLE_REAR_BUMPS = 'd', /* none */
};

/* ACK ids and their data sizes. */
enum {
    BW_LOBOT_ACK_READY = ':',
    BW_LOBOT_ACK_BUMPS = 'B',
    BW_LOBOT_ACK_WHEEL_DROPS = 'W',
    BW_LOBOT_ACK_CLIFFS = 'C',
    BW_LOBOT_ACK_REMOTE = '.',
    BW_LOBOT_ACK_SENSORS = '$',
    BW_LOBOT_READY_SIZE = 0,
    BW_LOBOT_BUMPS_SIZE = 5,
    BW_LOBOT_WHEEL_DROPS_SIZE = 1,
    BW_LOBOT_CLIFFS_SIZE = 5,
    BW_LOBOT_REMOTE_SIZE = 1,
    BW_LOBOT_SENSORS_SIZE = 53,
    BW_LOBOT_SENSORS_SPIN_FLAG = 52, /* index of the spin flag in SENSORS */
};

/* Flag bits. Front bumps and wheel drops are the OI's (BW_CREATE_BUMP_*,
 * BW_CREATE_WHEEL_DROP_*) in both SENSORS byte 0 and the BUMPS flags. */
enum {
    BW_LOBOT_BUMP_REAR_RIGHT = 0x20, /* SENSORS byte 0 */
    BW_LOBOT_BUMP_REAR_LEFT = 0x40,
    BW_LOBOT_BUMP_REAR_BOTH = 0x60,
    BW_LOBOT_BUMP_ACK_REAR_RIGHT = 0x04, /* BUMPS flags */
    BW_LOBOT_BUMP_ACK_REAR_LEFT = 0x08,
    BW_LOBOT_BUMP_ACK_REAR_BOTH = 0x0C,
    BW_LOBOT_CLIFF_RIGHT = 0x01, /* CLIFFS flags */
    BW_LOBOT_CLIFF_FRONT_RIGHT = 0x02,
    BW_LOBOT_CLIFF_FRONT_LEFT = 0x04,
    BW_LOBOT_CLIFF_LEFT = 0x08,
};

/* ---- commands ------------------------------------------------------------------- */

typedef struct {
    uint8_t id;    /* BW_LOBOT_CMD_*, or any byte when !known */
    bool known;    /* bw_lobot_decode_cmd: id is one of the ten; ignored by the encoder */
    int16_t param; /* see the ids */
} bw_lobot_cmd_t;

/* Lower-case name of a command id ("forward", "enable_rear_bumps"), or NULL. */
const char *bw_lobot_cmd_name(uint8_t id);
/* Id of a command name in any case ("SPIN" or "spin"), or BW_EUNKNOWN. */
int bw_lobot_cmd_id(const char *name);
/* The i-th command in the seed's order (for listing), or -1 past the end. */
int bw_lobot_cmd_at(unsigned i);
/* True for the ten ids; uses no table. */
bool bw_lobot_cmd_known(uint8_t id);

/* Writes a command. Any id is written, known or not (tests send unknown
 * ones on purpose). Returns 4 or BW_ENOSPC. */
int bw_lobot_encode_cmd(uint8_t *buf, size_t cap, uint8_t id, int16_t param);

/* Decodes four bytes into *cmd (filled in every case but BW_ELENGTH).
 * Returns 0, BW_ELENGTH (len is not 4), BW_ECHECKSUM (bad parity) or
 * BW_EUNKNOWN (good parity, unknown id). */
int bw_lobot_decode_cmd(const uint8_t *buf, size_t len, bw_lobot_cmd_t *cmd);

/* The command parser the Command Module runs, and `botwire decode` on the
 * host's side of a capture. */
typedef struct {
    bw_parse_stats_t stats;
    uint8_t held; /* bytes in buf, 0..3 between calls */
    uint8_t buf[BW_LOBOT_CMD_SIZE];
#if BW_BOTH_SIDES
    bool hunting; /* out of step: after a bad window, and at the start */
#endif
} bw_lobot_cmd_parser_t;

void bw_lobot_cmd_parser_init(bw_lobot_cmd_parser_t *p);

/*
 * Pushes bytes in, any split (one at a time from a UART is fine); consumes
 * from *data / *len up to the end of the next command. Returns:
 *   1             *cmd filled (always a known id);
 *   0             all input consumed, more bytes needed;
 *   BW_ECHECKSUM  four bytes with a bad parity (counted in
 *                 stats.checksum_errors), or
 *   BW_EUNKNOWN   four bytes with a good parity and an unknown id (counted
 *                 in stats.unknown): in both cases the first byte is skipped
 *                 and the other three rescanned, so a good command behind a
 *                 lost, extra or damaged byte is still found. The Command
 *                 Module stops the robot; a decoder calls again.
 * Until a command is found again (and before the first one: a stream may
 * be joined anywhere) the parser is out of step, and takes only
 * a window whose parameter is one its id takes (NOP, STOP, STRAIGHT, 'e'
 * and 'd': 0; FORWARD, REVERSE: 0..500; LEFT, RIGHT: 0..2000; SPIN:
 * -360..360), skipping the others a byte at a time without a return code:
 * parity cannot tell a shifted window in a run of equal commands (`40 40 00
 * 00`, three bytes into a run of NOPs, has a good parity and a known id). In
 * step, any parameter is taken as sent (FORWARD 600: the program clamps
 * it); finish puts the parser in step, as the Command Module's window
 * starts a command (a BW_DEVICE_SIDE build, the Command Module's, is always
 * in step: it finishes before each window). Every byte pushed in is in a returned command, in stats.skipped_bytes, or
 * held (at most 3).
 */
int bw_lobot_cmd_parse(bw_lobot_cmd_parser_t *p, const uint8_t **data, size_t *len,
                       bw_lobot_cmd_t *cmd);

/* End of stream (or of the Command Module's window): held bytes (a cut
 * command) count as one length error and as skipped. Returns 0; the parser
 * is empty, in step, and reusable. */
int bw_lobot_cmd_parser_finish(bw_lobot_cmd_parser_t *p);

/* ---- acknowledgements ---------------------------------------------------------------- */

typedef struct {
    uint8_t flags;    /* BUMPS: BW_CREATE_BUMP_*, BW_LOBOT_BUMP_ACK_*; CLIFFS: BW_LOBOT_CLIFF_* */
    int16_t distance; /* mm backed up (negative) or moved forward */
    int16_t angle;    /* degrees turned in place, CCW positive */
} bw_lobot_motion_t;

typedef struct {
    bw_create_sensors_t oi; /* bytes 0..51; oi.bumps_wheel_drops also has BW_LOBOT_BUMP_REAR_* */
    uint8_t spin_flag;      /* byte 52 */
} bw_lobot_sensors_t;

typedef struct {
    uint8_t id; /* BW_LOBOT_ACK_* */
    union {
        bw_lobot_motion_t bumps;
        struct {
            uint8_t flags; /* BW_CREATE_WHEEL_DROP_* */
        } wheel_drops;
        bw_lobot_motion_t cliffs;
        struct {
            uint8_t infrared_byte; /* BW_CREATE_IR_* */
        } remote;
        bw_lobot_sensors_t sensors;
    } u;
} bw_lobot_ack_t;

/* Data bytes after an ACK id, or BW_EUNKNOWN; uses no table. */
int bw_lobot_ack_size(uint8_t id);
/* Lower-case name of an ACK id ("ready", "wheel_drops", ...), or NULL. */
const char *bw_lobot_ack_name(uint8_t id);
/* Id of an ACK name in any case, or BW_EUNKNOWN. */
int bw_lobot_ack_id(const char *name);
/* The i-th ACK id in the seed's order (for listing), or -1 past the end. */
int bw_lobot_ack_at(unsigned i);
/*
 * Field table of an ACK's data, offsets into bw_lobot_ack_t (READY has no
 * fields; SENSORS bytes 8 and 9 are BW_FT_PAD), or NULL for an unknown id.
 * The codec decodes and encodes with these tables: they are the one
 * definition of each message; the SENSORS fields come from
 * BW_CREATE_SENSOR_LIST, so the names are the Create's.
 */
const BW_ROM bw_msgdesc_t *bw_lobot_ack_desc(uint8_t id);

/* Zeroed ACK of an id. */
void bw_lobot_ack_init(bw_lobot_ack_t *ack, uint8_t id);
/* Decodes an ACK's data (len bytes after the id). Returns 0, BW_EUNKNOWN or
 * BW_ELENGTH (len is not the id's size). */
int bw_lobot_decode_ack(uint8_t id, const uint8_t *data, size_t len, bw_lobot_ack_t *ack);
/* Writes an ACK (id, then data; unused bytes as 0). Returns its length,
 * BW_EUNKNOWN or BW_ENOSPC. */
int bw_lobot_encode_ack(uint8_t *buf, size_t cap, const bw_lobot_ack_t *ack);

/* Device-side encoders, with no table. Each returns the ACK's length,
 * BW_ENOSPC, or BW_EINVAL / BW_EUNKNOWN for an id that does not fit. */
/* Any ACK from its data bytes (bw_lobot_ack_size(id) of them; NULL writes
 * zeros). data may lie inside buf (at buf + 1: no copy needed). */
int bw_lobot_encode_ack_bytes(uint8_t *buf, size_t cap, uint8_t id, const uint8_t *data);
/* BUMPS or CLIFFS. */
int bw_lobot_encode_motion(uint8_t *buf, size_t cap, uint8_t id, uint8_t flags, int16_t distance,
                           int16_t angle);
/* SENSORS from the 52 bytes the Create sent for group 6 (they may already
 * lie at buf + 1) and the spin flag. */
int bw_lobot_encode_sensors_bytes(uint8_t *buf, size_t cap, const uint8_t *group6,
                                  uint8_t spin_flag);

/* An ACK as received. data points into the caller's input (no copy) or
 * into the parser; valid until the next call on the parser and while the
 * caller's input is unchanged. */
typedef struct {
    uint8_t id;
    uint8_t len; /* data bytes: bw_lobot_ack_size(id) */
    const uint8_t *data;
} bw_lobot_ack_frame_t;

/* The ACK parser the host runs: caller-owned. */
typedef struct {
    bw_parse_stats_t stats;
    uint8_t held; /* bytes in buf: an ACK id and part of its data */
    uint8_t drop; /* leading bytes of buf returned as an ACK last call */
    uint8_t buf[BW_LOBOT_MAX_ACK];
} bw_lobot_ack_parser_t;

void bw_lobot_ack_parser_init(bw_lobot_ack_parser_t *p);

/*
 * Pushes bytes in, any split; consumes from *data / *len up to the end of
 * the next ACK. A byte that is no ACK id where one is due is skipped and
 * counted in stats.skipped_bytes only (with no checksum, a lost byte makes
 * every following data byte "unknown"; the skipped count is the measure of
 * that, not stats.unknown). Returns 1 with *ack, or 0 when all input is
 * consumed and more bytes are needed; there is no error to return. Every
 * byte pushed in is in a returned ACK, in stats.skipped_bytes, or held.
 */
int bw_lobot_ack_parse(bw_lobot_ack_parser_t *p, const uint8_t **data, size_t *len,
                       bw_lobot_ack_frame_t *ack);

/* End of stream: an ACK cut short counts as one length error; its id is
 * skipped and the bytes after it rescanned (they may hold whole ACKs).
 * Returns 1 with *ack for each found; call until 0, when the parser is
 * empty. */
int bw_lobot_ack_parser_finish(bw_lobot_ack_parser_t *p, bw_lobot_ack_frame_t *ack);

/* ---- the Command Module's program -------------------------------------------------- */

/*
 * The low-level program of the Command Module, written as its firmware is:
 * no allocation, no clock of its own, one USART. The Command Module's one
 * USART talks either to the host (its USB port) or to the Create (its serial
 * port), as a select line says; bytes from the side not selected are lost.
 * That is why the host may send only in the window after a READY.
 *
 * One cycle: ask the Create for sensor group 6; react (wheel drop > cliff >
 * bump > remote: stop, or back up and spin, measuring the motion with the
 * Create's distance and angle packets); switch to the host; send at most one
 * event ACK, then SENSORS (the motion the program made itself added to its
 * distance and angle, spin flag 1), then READY unless a wheel drop, a cliff
 * or the remote holds the host off; wait up to the window for one command
 * (silence, a bad parity or an unknown id: STOP); switch to the Create; carry
 * the command out; wait 50 ms; again.
 *
 * Reactions (back-up mm / spin degrees, CCW positive, at 225 mm/s and
 * 150 mm/s): bumps both -300/-30, left -150/-15, right -150/+15; rear bumps
 * (only after 'e'; the switches on the Create's cargo bay digital inputs 0
 * rear right and 1 rear left) both +25/+20, left +75/+10, right +75/-10;
 * cliffs by the deployed firmware's table (e.g. left -100/-15, right
 * -100/+15, all four -300/180); a wheel drop stops the robot at once.
 */
typedef struct {
    uint16_t window_ms; /* wait for a command after READY: 1500 (seed), 250 (deployed) */
} bw_lobot_cm_config_t;

typedef struct {
    bw_lobot_cm_config_t cfg;
    uint8_t state;
    bool usb;                 /* the select line: the USART is the host's */
    uint32_t wake;            /* ms: when the state next needs a step */
    uint32_t started;         /* ms: when the state began */
    uint8_t got;              /* bytes of the reply collected */
    uint8_t reply[52];        /* group 6, or distance and angle */
    uint8_t sensors[52];      /* the last group 6 */
    bool have_sensors;
    bw_lobot_cmd_parser_t cmd; /* the host's commands */
    bw_lobot_cmd_t next;      /* the command to carry out */
    int16_t speed, radius;    /* the drive in force: mm/s, mm (OI specials) */
    uint8_t ack_id;           /* event ACK to send (0: none) */
    uint8_t ack[5];
    int16_t odo_distance, odo_angle; /* own motion, for the next SENSORS */
    bool spin_flag;
    bool rear_enabled, hold_off;
    /* A reaction or a spin in progress: up to two moves (back up, spin). */
    uint8_t moves, move;
    uint8_t spins;            /* bit i: move i is a spin (else a straight move) */
    int16_t target[2];        /* mm, degrees */
    int16_t measured[2];      /* mm, degrees */
} bw_lobot_cm_t;

void bw_lobot_cm_init(bw_lobot_cm_t *cm, const bw_lobot_cm_config_t *cfg, uint32_t now_ms);

/* The reaction the program makes to what a BUMPS or CLIFFS ACK's flags say
 * (the table above): the back-up in mm and the spin in degrees it plans
 * (the ACK then says what the Create measured). Returns 0, or BW_EINVAL for
 * flags the program never sends with that id. A host checks an ACK by it. */
int bw_lobot_reaction(uint8_t id, uint8_t flags, int16_t *backup, int16_t *spin);

/*
 * Runs the program at now_ms. rx are the bytes the USART received since the
 * last call, from the side selected then. Writes what the USART sends into
 * tx (at most cap bytes; 64 suffice) and returns the count: they go to the
 * side selected when the call began. When a call changes the select line it
 * returns at once: call again (bw_lobot_cm_next_ms says when).
 */
size_t bw_lobot_cm_step(bw_lobot_cm_t *cm, uint32_t now_ms, const uint8_t *rx, size_t nrx,
                        uint8_t *tx, size_t cap);
/* When the program next needs a step (ms, on the caller's clock). */
uint32_t bw_lobot_cm_next_ms(const bw_lobot_cm_t *cm);

#ifdef __cplusplus
}
#endif

#endif /* BOTWIRE_LOBOT_H */
