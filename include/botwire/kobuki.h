/*
 * Kobuki (Yujin) serial protocol: codec, streaming parser and conversions.
 *
 * Frame on the wire, both directions:
 *
 *     AA 55 LEN payload[LEN] CS        CS = XOR of LEN and every payload byte
 *
 * The payload is a run of sub-payloads `id len data[len]`; multi-byte fields
 * are little-endian. A command frame (host to robot) and a feedback frame
 * (robot to host) share the framing but not the identifier space, so every
 * decode names its direction.
 *
 * Firmware builds (wire.h): under BW_DEVICE_SIDE, feedback (what the robot
 * sends) decodes as BW_KOBUKI_UNKNOWN with its bytes, counted as unknown by
 * the iterator, so the version and raw gyro decoders are left out. Every
 * type still encodes: commands share the table-driven encoder with
 * feedback, and refusing them would cost more than it saves.
 *
 * Memory: no function allocates; the caller owns parsers, messages and
 * buffers, and every encoder takes a capacity. Time: nothing reads a clock.
 * Threads: reentrant; one parser must not be used by two threads at once.
 * Errors: 0 ok, negative BW_E* (see wire.h), positive counts.
 */
#ifndef BOTWIRE_KOBUKI_H
#define BOTWIRE_KOBUKI_H

#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BW_KOBUKI_HEADER0 0xAAu
#define BW_KOBUKI_HEADER1 0x55u
#define BW_KOBUKI_MIN_PAYLOAD 3u   /* one sub-payload with one data byte */
#define BW_KOBUKI_MAX_PAYLOAD 255u
#define BW_KOBUKI_MAX_FRAME (3u + BW_KOBUKI_MAX_PAYLOAD + 1u)
/* Largest raw gyro sample count that fits a frame: a sub-payload carries at
 * most 255 - 2 data bytes, of which 2 + 6N are the gyro block. */
#define BW_KOBUKI_GYRO_MAX_SAMPLES 41u

/* Which side sent the bytes: it selects the identifier space. */
typedef enum {
    BW_KOBUKI_FROM_HOST = 0,  /* commands */
    BW_KOBUKI_FROM_ROBOT = 1, /* feedback */
} bw_kobuki_dir_t;

/* Wire identifiers (PROTOCOL-NOTES corrections applied: 13, 14, 21). */
enum {
    BW_KOBUKI_CMD_BASE_CONTROL = 1,
    BW_KOBUKI_CMD_SOUND = 3,
    BW_KOBUKI_CMD_SOUND_SEQUENCE = 4,
    BW_KOBUKI_CMD_REQUEST_EXTRA = 9,
    BW_KOBUKI_CMD_GENERAL_PURPOSE_OUTPUT = 12,
    BW_KOBUKI_CMD_SET_CONTROLLER_GAIN = 13,
    BW_KOBUKI_CMD_GET_CONTROLLER_GAIN = 14,

    BW_KOBUKI_FB_BASIC_SENSOR_DATA = 1,
    BW_KOBUKI_FB_DOCKING_IR = 3,
    BW_KOBUKI_FB_INERTIAL_SENSOR = 4,
    BW_KOBUKI_FB_CLIFF = 5,
    BW_KOBUKI_FB_CURRENT = 6,
    BW_KOBUKI_FB_HARDWARE_VERSION = 10,
    BW_KOBUKI_FB_FIRMWARE_VERSION = 11,
    BW_KOBUKI_FB_RAW_GYRO = 13,
    BW_KOBUKI_FB_GENERAL_PURPOSE_INPUT = 16,
    BW_KOBUKI_FB_UNIQUE_DEVICE_ID = 19,
    BW_KOBUKI_FB_CONTROLLER_INFO = 21,
};

/* Message types: one per (direction, identifier), plus unknown. */
typedef enum {
    BW_KOBUKI_UNKNOWN = 0,
    /* commands */
    BW_KOBUKI_BASE_CONTROL,
    BW_KOBUKI_SOUND,
    BW_KOBUKI_SOUND_SEQUENCE,
    BW_KOBUKI_REQUEST_EXTRA,
    BW_KOBUKI_GENERAL_PURPOSE_OUTPUT,
    BW_KOBUKI_SET_CONTROLLER_GAIN,
    BW_KOBUKI_GET_CONTROLLER_GAIN,
    /* feedback */
    BW_KOBUKI_BASIC_SENSOR_DATA,
    BW_KOBUKI_DOCKING_IR,
    BW_KOBUKI_INERTIAL_SENSOR,
    BW_KOBUKI_CLIFF,
    BW_KOBUKI_CURRENT,
    BW_KOBUKI_HARDWARE_VERSION,
    BW_KOBUKI_FIRMWARE_VERSION,
    BW_KOBUKI_RAW_GYRO,
    BW_KOBUKI_GENERAL_PURPOSE_INPUT,
    BW_KOBUKI_UNIQUE_DEVICE_ID,
    BW_KOBUKI_CONTROLLER_INFO,
    BW_KOBUKI_TYPE_COUNT
} bw_kobuki_type_t;

/* Flag values from the seed. */
enum {
    BW_KOBUKI_BUMPER_RIGHT = 0x01,
    BW_KOBUKI_BUMPER_CENTRAL = 0x02,
    BW_KOBUKI_BUMPER_LEFT = 0x04,
    BW_KOBUKI_WHEEL_DROP_RIGHT = 0x01,
    BW_KOBUKI_WHEEL_DROP_LEFT = 0x02,
    BW_KOBUKI_CLIFF_RIGHT = 0x01,
    BW_KOBUKI_CLIFF_CENTRAL = 0x02,
    BW_KOBUKI_CLIFF_LEFT = 0x04,
    BW_KOBUKI_BUTTON_0 = 0x01,
    BW_KOBUKI_BUTTON_1 = 0x02,
    BW_KOBUKI_BUTTON_2 = 0x04,
    BW_KOBUKI_CHARGER_DISCHARGING = 0,
    BW_KOBUKI_CHARGER_DOCKING_CHARGED = 2,
    BW_KOBUKI_CHARGER_DOCKING_CHARGING = 6,
    BW_KOBUKI_CHARGER_ADAPTER_CHARGED = 18,
    BW_KOBUKI_CHARGER_ADAPTER_CHARGING = 22,
    BW_KOBUKI_OVERCURRENT_LEFT = 0x01,
    BW_KOBUKI_OVERCURRENT_RIGHT = 0x02,
    BW_KOBUKI_EXTRA_HARDWARE_VERSION = 0x01,
    BW_KOBUKI_EXTRA_FIRMWARE_VERSION = 0x02,
    BW_KOBUKI_EXTRA_UDID = 0x08,
    BW_KOBUKI_DOCK_NEAR_LEFT = 0x01,
    BW_KOBUKI_DOCK_NEAR_CENTER = 0x02,
    BW_KOBUKI_DOCK_NEAR_RIGHT = 0x04,
    BW_KOBUKI_DOCK_FAR_CENTER = 0x08,
    BW_KOBUKI_DOCK_FAR_LEFT = 0x10,
    BW_KOBUKI_DOCK_FAR_RIGHT = 0x20,
    BW_KOBUKI_SOUND_ON = 0,
    BW_KOBUKI_SOUND_OFF = 1,
    BW_KOBUKI_SOUND_RECHARGE = 2,
    BW_KOBUKI_SOUND_BUTTON = 3,
    BW_KOBUKI_SOUND_ERROR = 4,
    BW_KOBUKI_SOUND_CLEANING_START = 5,
    BW_KOBUKI_SOUND_CLEANING_END = 6,
    /* General Purpose Output flags: digital outputs 0..3, external power,
     * and each LED's red and green (both: orange). */
    BW_KOBUKI_GPO_OUTPUTS = 0x000F,
    BW_KOBUKI_GPO_POWER_3V3 = 0x0010,
    BW_KOBUKI_GPO_POWER_5V = 0x0020,
    BW_KOBUKI_GPO_POWER_12V_5A = 0x0040,
    BW_KOBUKI_GPO_POWER_12V_1A5 = 0x0080,
    BW_KOBUKI_GPO_LED1_RED = 0x0100,
    BW_KOBUKI_GPO_LED1_GREEN = 0x0200,
    BW_KOBUKI_GPO_LED2_RED = 0x0400,
    BW_KOBUKI_GPO_LED2_GREEN = 0x0800,
    BW_KOBUKI_GAIN_FACTORY = 0,
    BW_KOBUKI_GAIN_USER = 1,
};

/* ---- messages, in wire units ------------------------------------------ */

typedef struct { int16_t speed; int16_t radius; } bw_kobuki_base_control_t; /* mm/s, mm */
typedef struct { uint16_t note; uint8_t duration; } bw_kobuki_sound_t; /* 1/(f*2.75e-6), ms */
/* 0..6, BW_KOBUKI_SOUND_*: the encoder refuses more (BW_ERANGE); the decoder
 * gives a sub-payload of id 4 with more as BW_KOBUKI_UNKNOWN (counted as
 * unknown, its bytes kept), a command the robot does not have. A
 * BW_DEVICE_SIDE build checks neither (its size budget): its program sees
 * the number. */
typedef struct { uint8_t sequence; } bw_kobuki_sound_sequence_t;
typedef struct { uint16_t flags; } bw_kobuki_flags_t; /* request extra, GP output */
/* The seed's factory gains, as sent: "Kp * 1000 (default: 100*1000)",
 * "Ki * 1000 (default: 0.1*1000)", "Kd * 1000 (default: 2*1000)". */
#define BW_KOBUKI_GAIN_P_DEFAULT 100000u
#define BW_KOBUKI_GAIN_I_DEFAULT 100u
#define BW_KOBUKI_GAIN_D_DEFAULT 2000u
typedef struct {
    uint8_t gain_type; /* 0 factory default, 1 user configured */
    uint32_t p_gain;   /* Kp * 1000 */
    uint32_t i_gain;   /* Ki * 1000 */
    uint32_t d_gain;   /* Kd * 1000 */
} bw_kobuki_gain_t;    /* set controller gain, controller info */

typedef struct {
    uint16_t timestamp; /* ms, wraps at 16 bits */
    uint8_t bumper;
    uint8_t wheel_drop;
    uint8_t cliff;
    uint16_t left_encoder; /* ticks, wraps at 16 bits */
    uint16_t right_encoder;
    int8_t left_pwm; /* signed: negative is backward */
    int8_t right_pwm;
    uint8_t button;
    uint8_t charger;
    uint8_t battery; /* 0.1 V */
    uint8_t overcurrent;
} bw_kobuki_basic_sensor_data_t;

typedef struct { uint8_t right, central, left; } bw_kobuki_docking_ir_t;
typedef struct {
    int16_t angle;      /* hundredths of a degree */
    int16_t angle_rate; /* hundredths of a degree per second */
} bw_kobuki_inertial_sensor_t;
typedef struct { uint16_t right, central, left; } bw_kobuki_cliff_t; /* PSD ADC 0..4095 */
typedef struct { uint8_t left, right; } bw_kobuki_current_t;        /* 10 mA */
typedef struct {
    /* 0..255 each in the 4-byte form; in the legacy 2-byte form (a u16 of
     * major*100 + minor*10 + patch) major is 0..655, minor and patch 0..9. */
    uint16_t major, minor, patch;
    bool legacy; /* decoded from, or to be encoded in, the old 2-byte form */
} bw_kobuki_version_t;
typedef struct {
    uint8_t frame_id;
    uint8_t count; /* number of samples, 0..BW_KOBUKI_GYRO_MAX_SAMPLES */
    int16_t samples[BW_KOBUKI_GYRO_MAX_SAMPLES][3]; /* raw x, y, z; 0.00875 deg/s */
} bw_kobuki_raw_gyro_t;
typedef struct {
    uint16_t digital_input;
    uint16_t analog[4]; /* 12-bit ADC, 0..4095 */
} bw_kobuki_general_purpose_input_t;
typedef struct { uint32_t udid0, udid1, udid2; } bw_kobuki_unique_device_id_t;
typedef struct {
    const uint8_t *data; /* points into the decoded frame; NULL encodes zeros */
} bw_kobuki_unknown_t;

/* One sub-payload. `id` and `length` are the wire identifier and data length;
 * encoders derive both from `type` except for BW_KOBUKI_UNKNOWN. */
typedef struct {
    bw_kobuki_type_t type;
    uint8_t id;
    uint8_t length;
    union {
        bw_kobuki_base_control_t base_control;
        bw_kobuki_sound_t sound;
        bw_kobuki_sound_sequence_t sound_sequence;
        bw_kobuki_flags_t request_extra;
        bw_kobuki_flags_t general_purpose_output;
        bw_kobuki_gain_t set_controller_gain;
        bw_kobuki_basic_sensor_data_t basic_sensor_data;
        bw_kobuki_docking_ir_t docking_ir;
        bw_kobuki_inertial_sensor_t inertial_sensor;
        bw_kobuki_cliff_t cliff;
        bw_kobuki_current_t current;
        bw_kobuki_version_t hardware_version;
        bw_kobuki_version_t firmware_version;
        bw_kobuki_raw_gyro_t raw_gyro;
        bw_kobuki_general_purpose_input_t general_purpose_input;
        bw_kobuki_unique_device_id_t unique_device_id;
        bw_kobuki_gain_t controller_info;
        bw_kobuki_unknown_t unknown;
    } u;
} bw_kobuki_msg_t;

/* ---- message catalogue ------------------------------------------------- */

/* Name of a type ("base_control", ...; "unknown"); never NULL. */
const char *bw_kobuki_type_name(bw_kobuki_type_t type);
/* Type of a name, or BW_KOBUKI_UNKNOWN for a name that is not a type. */
bw_kobuki_type_t bw_kobuki_type_from_name(const char *name);
/* Direction a type belongs to (BW_KOBUKI_UNKNOWN: BW_KOBUKI_FROM_HOST). */
bw_kobuki_dir_t bw_kobuki_type_dir(bw_kobuki_type_t type);
/* Wire identifier of a type (0 for BW_KOBUKI_UNKNOWN). */
uint8_t bw_kobuki_type_id(bw_kobuki_type_t type);
/* Type of a wire identifier in a direction, or BW_KOBUKI_UNKNOWN. */
bw_kobuki_type_t bw_kobuki_type_of(bw_kobuki_dir_t dir, uint8_t id);
/*
 * Field table of a fixed-layout type, with offsets into bw_kobuki_msg_t; NULL
 * for types whose layout varies (raw gyro, versions, unknown). The codec uses
 * these tables itself, so they are the single definition of each message.
 */
const BW_ROM bw_msgdesc_t *bw_kobuki_desc(bw_kobuki_type_t type);

/* ---- streaming parser --------------------------------------------------- */

/* A complete, checksum-verified frame. `payload` points either into the
 * caller's input or into the parser; it stays valid until the next call on
 * the parser and while the caller's input is unchanged. */
typedef struct {
    const uint8_t *payload;
    uint8_t len;
} bw_kobuki_frame_t;

/* The shared framer (wire.h), set up for Kobuki frames. */
typedef bw_framer_t bw_kobuki_parser_t;

/* Kobuki framing: AA 55, LEN 3..255 at offset 2, LEN + 4 bytes, XOR check. */
const bw_framing_t *bw_kobuki_framing(void);

void bw_kobuki_parser_init(bw_kobuki_parser_t *p);

/*
 * Pushes bytes in, any split. Consumes from *data / *len (both advanced) up
 * to and including the end of the next good frame.
 *
 * Returns 1 with *frame filled when a frame is complete; 0 when all input is
 * consumed and more bytes are needed; BW_ECHECKSUM or BW_ELENGTH when a frame
 * candidate was just rejected (already counted; call again to go on). After
 * a rejection the parser rescans the bytes it already holds for the next
 * AA 55, so a good frame following garbage or a bad frame is never lost.
 * A LEN below BW_KOBUKI_MIN_PAYLOAD is an impossible length.
 */
int bw_kobuki_parse(bw_kobuki_parser_t *p, const uint8_t **data, size_t *len,
                    bw_kobuki_frame_t *frame);

/*
 * End of stream. The frame candidate the parser holds can no longer complete:
 * it counts as one length error, its first byte is skipped, and the rest of
 * what is held is rescanned, since a good frame may sit behind a false header
 * with a long LEN. Returns like bw_kobuki_parse: call until it returns 0, at
 * which point the parser is empty and ready for a new stream.
 */
int bw_kobuki_parser_finish(bw_kobuki_parser_t *p, bw_kobuki_frame_t *frame);

/* ---- sub-payload decoding ---------------------------------------------- */

typedef struct {
    const uint8_t *payload;
    size_t len;
    size_t off;
    bw_kobuki_dir_t dir;
    bw_parse_stats_t *stats; /* may be NULL */
} bw_kobuki_iter_t;

/* Starts walking the sub-payloads of a frame. stats (may be NULL) receives
 * unknown and length-error counts. */
void bw_kobuki_iter_init(bw_kobuki_iter_t *it, const bw_kobuki_frame_t *frame,
                         bw_kobuki_dir_t dir, bw_parse_stats_t *stats);

/*
 * Decodes the next sub-payload into *msg. Returns:
 *   1            *msg filled. An unknown identifier, or a sound sequence
 *                beyond 6, gives type BW_KOBUKI_UNKNOWN (counted in
 *                stats->unknown), skipped by its declared length;
 *   0            end of the payload;
 *   BW_ELENGTH   a known identifier with a length wrong for it: counted as a
 *                length error, *msg filled as BW_KOBUKI_UNKNOWN with its bytes,
 *                skipped by its declared length; call again to go on;
 *   BW_ETRUNC    a sub-payload running past the end of the frame: counted as a
 *                length error; the walk ends. *msg is filled as
 *                BW_KOBUKI_UNKNOWN whose data and length are the bytes left
 *                in the payload (from that sub-payload's id on), so a tool
 *                can keep them (bw_kobuki_writer_add_raw).
 */
int bw_kobuki_iter_next(bw_kobuki_iter_t *it, bw_kobuki_msg_t *msg);

/* Decodes one sub-payload's data (`len` bytes, without id and length). */
int bw_kobuki_decode(bw_kobuki_dir_t dir, uint8_t id, const uint8_t *data, size_t len,
                     bw_kobuki_msg_t *msg);

/* ---- encoding ----------------------------------------------------------- */

/* Wire size of a message as a sub-payload (id + len + data), or a negative
 * error for an impossible message (BW_EINVAL, BW_ERANGE). */
int bw_kobuki_sub_size(const bw_kobuki_msg_t *msg);

/* Writes one sub-payload (id, len, data). Returns bytes written or
 * BW_ENOSPC, BW_EINVAL, BW_ERANGE. */
int bw_kobuki_encode_sub(uint8_t *buf, size_t cap, const bw_kobuki_msg_t *msg);

/* Frame builder: header, then sub-payloads, then LEN and checksum. */
typedef struct {
    uint8_t *buf;
    size_t cap;
    size_t len; /* bytes written so far, header included */
    int err;    /* first error, sticky */
} bw_kobuki_writer_t;

void bw_kobuki_writer_init(bw_kobuki_writer_t *w, uint8_t *buf, size_t cap);
/* Appends a sub-payload. Returns 0 or the (sticky) error: BW_ENOSPC when the
 * buffer or the 255-byte payload limit is exceeded, BW_EINVAL, BW_ERANGE. */
int bw_kobuki_writer_add(bw_kobuki_writer_t *w, const bw_kobuki_msg_t *msg);
/* Appends bytes as they are, outside any sub-payload (what a frame carried
 * that could not be read as one): 0 or the sticky error, as above. */
int bw_kobuki_writer_add_raw(bw_kobuki_writer_t *w, const uint8_t *bytes, size_t n);
/* Finishes the frame: returns its total length, or the first error
 * (BW_ELENGTH for a payload shorter than BW_KOBUKI_MIN_PAYLOAD). */
int bw_kobuki_writer_finish(bw_kobuki_writer_t *w);

/* One frame of n messages; returns its length or a negative error. */
int bw_kobuki_encode_frame(uint8_t *buf, size_t cap, const bw_kobuki_msg_t *msgs, size_t n);

/* Fills *msg with a zeroed message of the given type (id and length set). */
void bw_kobuki_msg_init(bw_kobuki_msg_t *msg, bw_kobuki_type_t type);

/* ---- conversions: wire units <-> SI, in one place ---------------------- */

#define BW_KOBUKI_WHEELBASE_M 0.230
#define BW_KOBUKI_M_PER_TICK 0.000085292090497737556558
#define BW_KOBUKI_WHEEL_RADIUS_M 0.035 /* 2578.33 ticks a turn of it */
/* The battery pack's curve as kobuki_driver's Battery module reads it:
 * empty at 13.2 V, full at 16.7 V. */
#define BW_KOBUKI_BATTERY_EMPTY_V 13.2
#define BW_KOBUKI_BATTERY_FULL_V 16.7
#define BW_KOBUKI_GYRO_DPS_PER_DIGIT 0.00875
#define BW_KOBUKI_SOUND_NOTE_A 0.00000275

/* (v m/s, w rad/s) to Base Control speed (mm/s) and radius (mm), as the
 * reference driver does; saturates to int16. */
bw_kobuki_base_control_t bw_kobuki_base_control_from_twist(double v, double w);
/* Base Control back to (v, w): the inverse of the above, as the robot reads
 * it. Radius +1 / -1 is rotation in place (speed is the wheel speed, CCW for
 * +1 with positive speed). */
void bw_kobuki_base_control_to_twist(bw_kobuki_base_control_t bc, double *v, double *w);
/* Wheel speeds (mm/s) the robot applies for a Base Control command. */
void bw_kobuki_base_control_to_wheels(bw_kobuki_base_control_t bc, double *left_mm_s,
                                      double *right_mm_s);

static inline double bw_kobuki_ticks_to_m(int32_t ticks)
{
    return (double)ticks * BW_KOBUKI_M_PER_TICK;
}
/* Inertial angle or rate (hundredths of a degree) to radians (per second). */
static inline double bw_kobuki_centideg_to_rad(int32_t cdeg)
{
    return (double)cdeg * (3.14159265358979323846 / 18000.0);
}
/* Raw gyro sample to robot-frame angular velocity in deg/s: x = -raw_y,
 * y = raw_x, z = raw_z, times 0.00875. */
void bw_kobuki_gyro_to_dps(const int16_t raw[3], double dps[3]);
/* Sound note value for a frequency in Hz (0 for f <= 0 or out of range). */
uint16_t bw_kobuki_note_from_hz(double hz);
double bw_kobuki_note_to_hz(uint16_t note);
/* Version as major, minor, patch from the legacy 2-byte form. */
bw_kobuki_version_t bw_kobuki_version_from_legacy(uint16_t v);

/* ---- the robot's own program ---------------------------------------------
 *
 * The Kobuki side of the protocol in integers: what it obeys of the host's
 * commands, its command timeout, and the feedback frame it sends every 20
 * ms from what its sensors read. Codec core: the emulator runs it
 * (src/robots/kobuki/device.c) and a firmware can, unchanged; whatever
 * moves the wheels reads `command` (bw_kobuki_robot_wheels gives the wheel
 * speeds it asks for).
 */
typedef struct {
    uint16_t timestamp_ms;      /* the robot's millisecond clock, wrapping */
    uint8_t bumper, wheel_drop, cliff;   /* BW_KOBUKI_BUMPER_*, _WHEEL_DROP_*, _CLIFF_* */
    uint16_t left_encoder, right_encoder; /* ticks, wrapping */
    int8_t left_pwm, right_pwm;
    uint8_t charger;            /* BW_KOBUKI_CHARGER_* */
    uint8_t battery;            /* 0.1 V */
    uint8_t overcurrent;        /* BW_KOBUKI_OVERCURRENT_* */
    bw_kobuki_docking_ir_t docking_ir;
    int16_t angle, angle_rate;  /* hundredths of a degree (per second) */
    uint16_t cliff_adc[3];      /* left, central, right */
    uint8_t current[2];         /* left, right: 10 mA */
    uint8_t gyro_samples;       /* raw gyro samples this frame, 0..3 */
    int16_t gyro[3][3];         /* each sample's x, y, z */
    uint16_t digital_input;
    uint16_t analog_input[4];
} bw_kobuki_robot_inputs_t;

typedef struct {
    bw_kobuki_base_control_t command; /* the motion command in force */
    uint16_t gp_output;      /* digital outputs, external power, LEDs */
    uint32_t gp_outputs;     /* general purpose output commands received */
    uint8_t sound_sequence;  /* the last sequence played */
    uint16_t sound_note;     /* the last note, and its duration (ms) */
    uint8_t sound_duration;
    uint32_t sounds;         /* sounds and sequences played */
    bw_kobuki_gain_t gain;   /* the wheel controller's PID gains */
    uint32_t udid[3];        /* the unique device id it sends */
    bw_kobuki_version_t hardware, firmware; /* the versions it sends */
    uint32_t timeout_ms;     /* no Base Control for this long stops it; 0: never */
    uint32_t last_command_ms;
    uint16_t pending_extra;  /* request-extra flags to answer in the next frame */
    bool pending_gain;       /* controller info to send */
    uint8_t gyro_frame_id;
} bw_kobuki_robot_t;

/* The command timeout the emulator and the base firmware give the program:
 * no Base Control for this long stops the wheels. */
#define BW_KOBUKI_ROBOT_TIMEOUT_MS 500u

/* Bytes bw_kobuki_robot_report writes at most. */
#define BW_KOBUKI_ROBOT_REPORT_MAX 160

void bw_kobuki_robot_init(bw_kobuki_robot_t *r, uint32_t now_ms, uint32_t timeout_ms,
                          const uint32_t udid[3]);
/* One of the host's messages: 1 obeyed, 0 not a command (feedback a host
 * sent), BW_EUNKNOWN one the robot does not know. */
int bw_kobuki_robot_command(bw_kobuki_robot_t *r, const bw_kobuki_msg_t *m, uint32_t now_ms);
/* The command timeout: true when it has just stopped the wheels. */
bool bw_kobuki_robot_watch(bw_kobuki_robot_t *r, uint32_t now_ms);
/* The feedback frame of what the sensors read, with the versions, id and
 * gains the host asked for since the last: its length (0 if cap is too
 * small). */
size_t bw_kobuki_robot_report(bw_kobuki_robot_t *r, const bw_kobuki_robot_inputs_t *in,
                              uint8_t *out, size_t cap);
/* The wheel speeds (mm/s, left and right) the command in force asks for,
 * in integers: Base Control's speed and radius over the 230 mm wheelbase. */
void bw_kobuki_robot_wheels(const bw_kobuki_robot_t *r, int32_t *left_mm_s, int32_t *right_mm_s);

#ifdef __cplusplus
}
#endif

#endif /* BOTWIRE_KOBUKI_H */
