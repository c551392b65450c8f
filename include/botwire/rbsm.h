/*
 * CMU RoboBuggy serial messages (RBSM): codec, streaming receiver, message
 * catalogue and unit conversions.
 *
 * One message, both directions (host to Arduino Mega and back):
 *
 *     id d3 d2 d1 d0 0A
 *
 * a message id, a 32-bit data word sent most significant byte first (d3),
 * and the footer 0x0A. There is no header and no checksum: the footer is the
 * only thing that frames a message, and data bytes may equal 0x0A. (The
 * seed's "252 reserved as the message footer (0xFC)" is a leftover of an
 * older framing; the footer is 0x0A.)
 *
 * The data word, by message (bw_rbsm_layout): steering angles (20, 24) are
 * signed, mega_command (19) packs a steering angle and a brake flag, every
 * other message is unsigned. mega_command's word is
 *
 *     d3 d2 = angle, signed 16 bits (thousandths of a degree, centre 0)
 *     d1    = brake, 1 or 0
 *     d0    = unused (written 0; the deployed host sends 0xC0, kept as `spare`)
 *
 * The codec keeps wire units. Units and polarities, which the deployed code
 * changed from the seed, are a bw_rbsm_variant_t for the conversions at the
 * end of this header.
 *
 * Receiver. The seed's receiver has three states: SYNC (throw bytes away
 * until a footer), READ (buffer the next 5 bytes) and VERIFY (the 6th byte is
 * a footer: a message, back to READ; otherwise dump the buffer, record an
 * error, back to SYNC). After a failed VERIFY it throws away the bytes it
 * held and waits for the next footer, so the good message right behind a bad
 * one is lost, and a stream that starts on a message boundary loses its
 * first message. This receiver keeps the seed's framing and states but
 * rescans instead of dumping. Its rule:
 *
 *   - A message is accepted at stream position k when byte k+5 is a footer
 *     (the seed's VERIFY, of the bytes from k on).
 *   - In sync (READ/VERIFY: the last thing found was a message), the next
 *     candidate is the byte right after that message, so a good stream is
 *     taken message by message whatever its data bytes hold.
 *   - When the byte at k+5 of the candidate at k is not a footer, the
 *     candidate fails: if in sync, that is a failed VERIFY, counted once in
 *     stats.length_errors (and bw_rbsm_parse returns BW_ELENGTH), and the
 *     receiver falls out of sync. Out of sync (SYNC), the next candidate is
 *     the nearest k' > k whose byte k'+5 is a footer; the bytes k..k'-1 are
 *     counted in stats.skipped_bytes. So after a bad message (a lost id,
 *     data or footer byte, a damaged footer) the bytes already held are
 *     rescanned, and the good message behind it is found and kept.
 *   - The receiver starts out of sync: a stream that begins in the middle of
 *     a message loses only that message's tail (skipped), and a stream that
 *     begins on a boundary keeps its first message.
 *
 * Written the plain way, over the whole stream: at position k, if byte k+5
 * is a footer, return bytes k..k+5, go on at k+6 in sync; else, if in sync,
 * count a failed VERIFY and fall out of sync; skip byte k, go on at k+1. The
 * receiver gives exactly that (the fuzz harness checks it against this
 * model) while holding at most 5 bytes between calls and finding the next
 * candidate with memchr.
 *
 * What no rule can do without a checksum: a damaged data byte goes
 * unnoticed while the footer is intact; while the receiver is out of sync
 * (after a bad message or at the start of a stream) a 0x0A data byte five
 * bytes after a wrong start makes a false message; and a byte inserted
 * inside a message makes its last six bytes look like a message, which is
 * returned (the seed's receiver, which restarts only after a footer, drops
 * that one, but loses the good message behind every lost byte, the more
 * common fault on a UART). A false message puts the receiver out of step
 * only until the next candidate fails, which is counted, and the rescan then
 * finds the true boundary again.
 *
 * Invariants (docs/parser-invariants.md), kept at every return:
 *   - every byte pushed in is in exactly one of: a returned message (6
 *     bytes each), stats.skipped_bytes, or the receiver's held bytes;
 *   - at most BW_RBSM_MSG_LEN - 1 bytes are held; after
 *     bw_rbsm_parser_finish none are;
 *   - any split of the input into reads gives the same messages and the same
 *     counters;
 *   - stats.frames counts returned messages, stats.length_errors failed
 *     VERIFYs in sync plus a message cut by the end of the stream,
 *     stats.checksum_errors stays 0 (RBSM has none), and stats.unknown is
 *     left to whoever decodes (bw_rbsm_decode says BW_EUNKNOWN).
 *
 * Memory: no function allocates; the caller owns the receiver, messages and
 * buffers, and every encoder takes a capacity. Time: nothing reads a clock.
 * Threads: reentrant; one receiver must not be used by two threads at once.
 * Errors: 0 ok, negative BW_E* (wire.h), positive counts. The catalogue's
 * names are const data: on an AVR they take RAM only when a program calls
 * a function that uses them (link with --gc-sections).
 */
#ifndef BOTWIRE_RBSM_H
#define BOTWIRE_RBSM_H

#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BW_RBSM_FOOTER 0x0Au
#define BW_RBSM_MSG_LEN 6u
#define BW_RBSM_MAX_FRAME BW_RBSM_MSG_LEN
/* The deployed Mega drops the brake when no autonomous command has arrived
 * for this long (the device model's business; no clock here). */
#define BW_RBSM_AUTON_TIMEOUT_MS 1000u

/* Message ids: the seed's, then the ones the deployed code adds (marked). */
enum {
    BW_RBSM_MID_ENC_TICKS_LAST = 0,     /* encoder ticks since the last message */
    BW_RBSM_MID_ENC_TICKS_RESET = 1,    /* encoder ticks since reset */
    BW_RBSM_MID_ENC_TIMESTAMP = 2,      /* encoder time since reset, ms */
    BW_RBSM_MID_ENC_RESET_REQUEST = 5,  /* deployed: host asks for an encoder reset */
    BW_RBSM_MID_ENC_RESET_CONFIRM = 6,  /* deployed: the Mega confirms it */
    BW_RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND = 17, /* deployed: brake as the RC asks */
    BW_RBSM_MID_BRAKE_COMMAND = 18,     /* brake from the host (deployed: auton brake) */
    BW_RBSM_MID_MEGA_COMMAND = 19,      /* angle and brake packed (deployed: steer word) */
    BW_RBSM_MID_MEGA_STEER_ANGLE = 20,  /* steering angle set/reported, signed */
    BW_RBSM_MID_MEGA_BRAKE_STATE = 21,  /* brake state (polarity: the variant) */
    BW_RBSM_MID_MEGA_AUTON_STATE = 22,  /* 0 = RC, !0 = surface (host) control */
    BW_RBSM_MID_MEGA_BATTERY_LEVEL = 23, /* mV */
    BW_RBSM_MID_MEGA_STEER_FEEDBACK = 24, /* measured steering angle, signed */
    BW_RBSM_MID_MEGA_FIRMWARE_HASH = 30, /* deployed: firmware commit hash */
    BW_RBSM_MID_LIGHTING = 50,          /* to the lighting system */
    BW_RBSM_MID_RESERVED = 252,         /* never a message (old footer 0xFC) */
    BW_RBSM_MID_MEGA_TIMESTAMP = 253,   /* deployed: Mega time, ms */
    BW_RBSM_MID_ERROR = 254,            /* BW_RBSM_ERR_* bits */
    BW_RBSM_MID_DEVICE_ID = 255,        /* BW_RBSM_DID_* */
};

/* Device ids (the value of a device_id message). */
enum {
    BW_RBSM_DID_MEGA = 0,          /* steering, brake and RC manager */
    BW_RBSM_DID_DRIVE_ENCODER = 1, /* drive encoder: forward speed */
};

/* Bits of the error word (the value of an error message). */
enum {
    BW_RBSM_ERR_WATCHDOG = 1u << 0,
    BW_RBSM_ERR_LOST_STREAM = 1u << 1,  /* RBSM stream lost */
    BW_RBSM_ERR_INVALID_MID = 1u << 2,  /* a message id the device does not know */
    BW_RBSM_ERR_RC_LOST = 1u << 3,      /* RC signal lost */
    BW_RBSM_ERR_AUTON_LOST = 1u << 4,   /* autonomous (host) signal lost */
};
#define BW_RBSM_ERR_BITS 5u

/* How a message's data word reads. */
typedef enum {
    BW_RBSM_UNSIGNED = 0, /* value = word, 0..UINT32_MAX (unknown ids too) */
    BW_RBSM_SIGNED = 1,   /* value = word as int32 (steering angles) */
    BW_RBSM_COMMAND = 2,  /* mega_command: angle, brake, spare */
} bw_rbsm_layout_t;

/* ---- catalogue ---------------------------------------------------------- */

/* Lower-case name of an id: the seed's define without RBSM_MID_
 * ("enc_ticks_last", ..., "mega_steer_feedback", "lighting", "reserved",
 * "error", "device_id"), and for the deployed ids "enc_reset_request",
 * "enc_reset_confirm", "mega_teleop_brake_command", "mega_firmware_hash",
 * "mega_timestamp"; "unknown" for any other id. Never NULL. */
const char *bw_rbsm_name(uint8_t id);

/* Id of a name, in any case, with or without an "rbsm_mid_" prefix; the
 * deployed code's names are accepted too ("mega_auton_brake_command" 18,
 * "mega_steer_command" 19, "comp_hash" 30, "lighting_id" 50). Returns 0..255,
 * or BW_EUNKNOWN (also for "unknown"). */
int bw_rbsm_id(const char *name);

/* True for the ids of messages: every id with a name but reserved (252). */
bool bw_rbsm_known(uint8_t id);

/* The i-th named id in id order, reserved included (for listing), or -1
 * past the end. */
int bw_rbsm_id_at(unsigned i);

/* How the data word of an id reads (unknown ids: BW_RBSM_UNSIGNED). */
bw_rbsm_layout_t bw_rbsm_layout(uint8_t id);

/* True for the ids whose value is a brake flag read with the variant's
 * polarity: mega_teleop_brake_command, brake_command, mega_brake_state (and
 * mega_command's brake byte). The seed gives the polarity only for
 * mega_brake_state; the same reading is applied to every brake field. */
bool bw_rbsm_is_brake(uint8_t id);

/* "mega", "drive_encoder", or "unknown". Never NULL. */
const char *bw_rbsm_device_name(uint32_t device_id);

/* Name of error bit 0..4 ("watchdog", "lost_stream", "invalid_mid",
 * "rc_lost", "auton_lost"), or NULL for another bit. */
const char *bw_rbsm_error_name(unsigned bit);

/* ---- one message --------------------------------------------------------- */

/* A message as it is on the wire: the id and the data word. */
typedef struct {
    uint8_t id;
    uint32_t word; /* d3 d2 d1 d0, d3 the most significant byte */
} bw_rbsm_frame_t;

/*
 * A message read as the seed says. `value` is the data word read unsigned
 * (BW_RBSM_UNSIGNED) or signed (BW_RBSM_SIGNED). For mega_command
 * (BW_RBSM_COMMAND) angle, brake and spare are its three fields and value is
 * the whole word read signed (the deployed firmware's reading of id 19: a
 * steering angle filling the word); angle, brake and spare are zero for the
 * other layouts.
 */
typedef struct {
    uint8_t id;
    uint8_t layout;  /* bw_rbsm_layout_t of id: set by decoding, ignored by encoding */
    int64_t value;
    int16_t angle;   /* mega_command: d3 d2 */
    uint8_t brake;   /* mega_command: d1 */
    uint8_t spare;   /* mega_command: d0 */
} bw_rbsm_msg_t;

/* Writes the 6 bytes of a message; returns 6 or BW_ENOSPC. */
int bw_rbsm_encode(uint8_t *buf, size_t cap, uint8_t id, uint32_t word);

/* Reads one whole message: exactly 6 bytes ending in the footer. Returns 0;
 * BW_ETRUNC for fewer than 6 bytes; BW_ELENGTH for more, or no footer. */
int bw_rbsm_decode_frame(const uint8_t *buf, size_t len, bw_rbsm_frame_t *frame);

/* Reads a frame as its message: fills every field of *msg. Returns 0, or
 * BW_EUNKNOWN for an id that is no message (unknown or reserved; the word is
 * then read unsigned): count it in stats.unknown. */
int bw_rbsm_decode(const bw_rbsm_frame_t *frame, bw_rbsm_msg_t *msg);

/* The frame of a message. Unsigned layouts take value in 0..UINT32_MAX,
 * signed ones in INT32_MIN..INT32_MAX, else BW_ERANGE; mega_command is
 * written from angle, brake and spare, and its value is not looked at. Any
 * id may be written. Returns 0 or BW_ERANGE. */
int bw_rbsm_frame_of(const bw_rbsm_msg_t *msg, bw_rbsm_frame_t *frame);

/* bw_rbsm_frame_of, then bw_rbsm_encode: 6, BW_ERANGE or BW_ENOSPC. */
int bw_rbsm_encode_msg(uint8_t *buf, size_t cap, const bw_rbsm_msg_t *msg);

/* A zeroed message of an id, with its layout. */
void bw_rbsm_msg_init(bw_rbsm_msg_t *msg, uint8_t id);

/* mega_command's data word from its fields (seed layout). */
static inline uint32_t bw_rbsm_command_word(int16_t angle, uint8_t brake, uint8_t spare)
{
    return ((uint32_t)(uint16_t)angle << 16) | ((uint32_t)brake << 8) | spare;
}

/* ---- streaming receiver -------------------------------------------------- */

/* Caller-owned; zero it with bw_rbsm_parser_init. */
typedef struct {
    bw_parse_stats_t stats;
    uint8_t held;   /* bytes in buf: the start of the next candidate, 0..5 */
    bool synced;    /* the last candidate was a message (READ/VERIFY) */
    uint8_t buf[BW_RBSM_MSG_LEN - 1];
} bw_rbsm_parser_t;

void bw_rbsm_parser_init(bw_rbsm_parser_t *p);

/*
 * Pushes bytes in, any split. Consumes from *data / *len (both advanced) up
 * to and including the next message's footer.
 *
 * Returns 1 with *frame set when a message is complete (a copy: nothing
 * points into the input or the receiver); 0 when all the input is consumed
 * and more bytes are needed; BW_ELENGTH when the candidate in sync had no
 * footer (a failed VERIFY: counted, the held bytes rescanned as above; call
 * again). Unknown ids are returned like any other message.
 */
int bw_rbsm_parse(bw_rbsm_parser_t *p, const uint8_t **data, size_t *len, bw_rbsm_frame_t *frame);

/*
 * End of stream: the held bytes (at most 5) can no longer make a message and
 * are counted as skipped. If they were the start of a message right after a
 * good one (in sync), that truncated message is also counted in
 * stats.length_errors and BW_ETRUNC is returned; otherwise 0. The receiver
 * is then empty and out of sync, reusable for a new stream (stats kept).
 */
int bw_rbsm_parser_finish(bw_rbsm_parser_t *p);

/* ---- variants and units (convert.c) ---------------------------------------- */

/* The buggy, as CMU's RoboBuggy code has it: 1.13 m between the axles; the
 * drive encoder counts 7 ticks per turn of a wheel that rolls 0.61 m (one
 * tick per 87 mm). The Mega runs its loop every 10 ms and limits the
 * steering to 15 degrees either way (the deployed firmware's
 * STEERING_LIMIT_LEFT -1500 and _RIGHT 1500 hundredths). The line: the
 * deployed Mega firmware and its ROS host run at 57600 baud (the firmware's
 * "#define BAUD 57600", the host's serial_baud); 76800 is the rate of the
 * older history, which the seed dialect and firmware/rbsm-mega keep. */
#define BW_RBSM_WHEELBASE_M 1.13
#define BW_RBSM_M_PER_TICK (0.61 / 7.0)
#define BW_RBSM_BAUD 76800          /* the seed dialect's */
#define BW_RBSM_DEPLOYED_BAUD 57600 /* the deployed firmware's */
#define BW_RBSM_STEER_LIMIT_DEG 15.0

/*
 * Where the deployed RoboBuggy code departs from the seed. The zero value is
 * the seed's meaning, the default everywhere.
 *   steering: the seed says thousandths of a degree and not which way is
 *             positive (botwire takes it as left, counter-clockwise, as
 *             every other angle here); the deployed firmware sends
 *             hundredths, negative to the left (STEERING_LIMIT_LEFT -1500,
 *             "values > 0 drive to the right"): its unit is hundredths to
 *             the right, which bw_rbsm_steer_left_rad and
 *             bw_rbsm_steer_left_to_wire turn into botwire's left.
 *   brake:    the seed says 0 = engaged, !0 = released; the deployed firmware
 *             sends 1 = engaged (and reads !0 as engaged).
 * The deployed firmware also reads id 19 as a signed steering word
 * (MEGA_STEER_COMMAND, value here; the Mega keeps its low 16 bits, an AVR
 * int) and takes the brake from id 18: to talk to it, send those two with
 * bw_rbsm_encode.
 */
typedef enum {
    BW_RBSM_STEER_MILLIDEG = 0, /* seed: thousandths, positive left */
    BW_RBSM_STEER_CENTIDEG = 1, /* deployed: hundredths, positive right */
} bw_rbsm_steer_unit_t;

typedef enum {
    BW_RBSM_BRAKE_ZERO_ENGAGED = 0, /* seed */
    BW_RBSM_BRAKE_ONE_ENGAGED = 1,  /* deployed */
} bw_rbsm_brake_polarity_t;

typedef struct {
    uint8_t steer_unit;     /* bw_rbsm_steer_unit_t */
    uint8_t brake_polarity; /* bw_rbsm_brake_polarity_t */
} bw_rbsm_variant_t;

#define BW_RBSM_VARIANT_SEED \
    ((bw_rbsm_variant_t){ BW_RBSM_STEER_MILLIDEG, BW_RBSM_BRAKE_ZERO_ENGAGED })
#define BW_RBSM_VARIANT_DEPLOYED \
    ((bw_rbsm_variant_t){ BW_RBSM_STEER_CENTIDEG, BW_RBSM_BRAKE_ONE_ENGAGED })

/* Wire steering units per degree: 1000 or 100. */
int32_t bw_rbsm_steer_per_degree(bw_rbsm_variant_t v);

/* A steering angle (mega_steer_angle, mega_steer_feedback) in radians, in
 * the wire's own sense (the seed's, taken as left; the deployed unit's,
 * right): the size of the unit only. bw_rbsm_steer_left_rad gives the
 * direction. */
double bw_rbsm_steer_to_rad(bw_rbsm_variant_t v, int32_t wire);

/* The nearest wire value of an angle in radians, in the wire's own sense
 * (halves away from zero). Returns 0, or BW_ERANGE for NaN (*wire = 0) or
 * an angle beyond int32 (*wire saturated). */
int bw_rbsm_steer_from_rad(bw_rbsm_variant_t v, double rad, int32_t *wire);

/* The same with the direction: radians to the left (counter-clockwise),
 * as every angle of botwire's state, whatever the variant. The deployed
 * firmware's 1500 (13 00 00 05 dc 0a on id 19) is 15 degrees to the right,
 * -0.2618 rad here; the seed's 15000, 15 degrees to the left. */
double bw_rbsm_steer_left_rad(bw_rbsm_variant_t v, int32_t wire);
int bw_rbsm_steer_left_to_wire(bw_rbsm_variant_t v, double rad, int32_t *wire);

/* The same for mega_command's 16-bit angle (+-32.767 degrees in the seed's
 * unit; the wire's sense: mega_command is the seed's layout): BW_ERANGE
 * beyond int16, *angle saturated. */
int bw_rbsm_command_angle_from_rad(bw_rbsm_variant_t v, double rad, int16_t *angle);

/* A brake flag on the wire: the seed writes engaged as 0 and released as 1,
 * the deployed firmware engaged as 1 and released as 0. */
uint32_t bw_rbsm_brake_to_wire(bw_rbsm_variant_t v, bool engaged);

/* Whether a brake value means engaged: seed: value == 0; deployed: != 0. */
bool bw_rbsm_brake_engaged(bw_rbsm_variant_t v, uint32_t wire);

/* A mega_command message: angle from radians, brake flag with the variant's
 * polarity, spare 0. Returns 0, or BW_ERANGE as
 * bw_rbsm_command_angle_from_rad (the message is still filled, saturated). */
int bw_rbsm_command_from(bw_rbsm_variant_t v, double rad, bool engaged, bw_rbsm_msg_t *msg);

/* ---- the Mega's program (program.c) ------------------------------------------ */

/*
 * The RoboBuggy Mega's side of RBSM, written as its firmware is: no
 * allocation, no floating point, no clock of its own. The emulator runs it
 * over a simulated buggy; firmware/rbsm-mega runs it over the real pins.
 *
 * The seed dialect. Commands, one received message at a time
 * (bw_rbsm_mega_command): the steering (mega_command, mega_steer_angle),
 * clamped to BW_RBSM_STEER_LIMIT_DEG; the brake (mega_command,
 * brake_command, mega_brake_state); an encoder reset request, answered with
 * a confirm. Other ids of the protocol are not for the Mega (ignored);
 * unknown ids set the invalid-id error bit, a receive error the lost-stream
 * bit (bw_rbsm_mega_stream_error), and a good command clears both.
 *
 * Each 10 ms loop: bw_rbsm_mega_watch reads the RC switch and runs the
 * watchdog (in autonomous mode, a second without a steering or a brake
 * command drops the brake and sets the auton-lost bit, until the host puts
 * the brake down itself); the firmware then sets the servo to
 * bw_rbsm_mega_steer_target and the brake to bw_rbsm_mega_brake_down;
 * bw_rbsm_mega_report writes the loop's telemetry: device_id mega,
 * mega_steer_angle (commanded), mega_steer_feedback (measured),
 * mega_brake_state, mega_auton_state, every tenth loop (or when the error
 * word changed) mega_battery_level and error; then device_id drive_encoder,
 * enc_ticks_last, enc_ticks_reset, enc_timestamp. With the RC switch on, the
 * operator drives: commands are read and not obeyed, the steering centres,
 * the brake is the operator's.
 *
 * The deployed dialect, as the RoboBuggy repository's Mega firmware
 * (radio_buggy_mega/main.cpp) is. It obeys three ids: 19 (the steering
 * word, hundredths to the right; the Mega keeps it as a 16-bit int and
 * clamps the servo's target to +-1500, but reports it unclamped), 18 (the
 * brake, !0 engaged) and 5 (encoder reset, confirmed). Every complete
 * message clears the two receive-error bits; every other id, the
 * protocol's own telemetry ids included, then sets the invalid-id bit. The
 * brake is down while the operator's brake (the RC) is, or in autonomous
 * mode while the host's is, or while the Mega needs a reset: from power-up,
 * and again whenever, in autonomous mode, the steering or the brake
 * command has not come for a second (the auton-lost bit set meanwhile);
 * only the operator's brake, pressed while the commands come, re-arms it.
 * Each loop it sends mega_steer_angle, mega_brake_state, device_id mega,
 * mega_teleop_brake_command (the operator's brake), brake_command (the
 * host's), mega_auton_state, mega_battery_level, mega_steer_feedback,
 * enc_ticks_reset, mega_timestamp, mega_firmware_hash and error, in that
 * order, and never enc_ticks_last, enc_timestamp or device_id
 * drive_encoder.
 */
#define BW_RBSM_MEGA_LOOP_MS 10
#define BW_RBSM_MEGA_WATCHDOG_MS 1000
#define BW_RBSM_MEGA_FIRMWARE_HASH 0x0b07e00du
/* Bytes bw_rbsm_mega_report writes at most: 16 messages (the seed's 13, the
 * deployed 12). */
#define BW_RBSM_MEGA_REPORT_MAX (16 * BW_RBSM_MSG_LEN)

typedef struct {
    int32_t steer_feedback; /* the servo's measured angle, wire units */
    uint32_t battery_mv;
    uint32_t enc_ticks;     /* the drive encoder's count since power-up (wraps) */
} bw_rbsm_mega_inputs_t;

typedef struct {
    bw_rbsm_variant_t variant;
    bool deployed;               /* the deployed dialect (its variant, ids, telemetry) */
    int32_t steer_cmd;           /* wire units: seed clamped, deployed as received (int16) */
    bool brake_cmd;              /* the host wants the brake down */
    bool needs_reset;            /* the watchdog dropped the brake (deployed: or power-up) */
    bool rc, rc_brake;           /* the RC switch and the operator's brake, last read */
    uint32_t last_steer, last_brake; /* ms: when those commands last came */
    uint32_t loops;
    uint32_t errors, errors_sent; /* BW_RBSM_ERR_* */
    uint32_t enc_base;           /* encoder count at the last reset */
    uint32_t ticks_sent;         /* enc_ticks_reset in the last report */
    bool enc_reset;              /* a reset asked for: taken at the next report */
} bw_rbsm_mega_t;

/* Standing braked, steering centred, at now_ms (the deployed Mega also
 * needing a reset: the operator's brake). */
void bw_rbsm_mega_init(bw_rbsm_mega_t *m, bool deployed, uint32_t now_ms);

/* Obeys one message from the host. An answer (the encoder reset confirm)
 * goes to tx (up to cap bytes; its length in *ntx, 0 for none). Returns 1
 * for a command obeyed (or read under RC), 0 for an id not for the Mega
 * (the deployed Mega sets the invalid-id bit for it), BW_EUNKNOWN for an id
 * the protocol does not define. */
int bw_rbsm_mega_command(bw_rbsm_mega_t *m, const bw_rbsm_frame_t *f, uint32_t now_ms,
                         uint8_t *tx, size_t cap, size_t *ntx);
/* The receiver lost a message (bw_rbsm_parse returned an error). */
void bw_rbsm_mega_stream_error(bw_rbsm_mega_t *m);
/* Start of a loop: the RC switch (rc: the operator drives) and the
 * operator's brake, and the watchdog. Returns true when the watchdog has
 * just dropped the brake. */
bool bw_rbsm_mega_watch(bw_rbsm_mega_t *m, uint32_t now_ms, bool rc, bool rc_brake);
/* Where the servo should be (wire units): the command (deployed: clamped
 * here), or centre under RC. */
int32_t bw_rbsm_mega_steer_target(const bw_rbsm_mega_t *m);
bool bw_rbsm_mega_brake_down(const bw_rbsm_mega_t *m);
/* End of a loop: the telemetry, into tx (BW_RBSM_MEGA_REPORT_MAX bytes
 * suffice). Returns the byte count. */
size_t bw_rbsm_mega_report(bw_rbsm_mega_t *m, uint32_t now_ms, const bw_rbsm_mega_inputs_t *in,
                           uint8_t *tx, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* BOTWIRE_RBSM_H */
