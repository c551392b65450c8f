/*
 * Pioneer 2 / PeopleBot (P2OS) protocol: codec, streaming parser, models and
 * conversions.
 *
 * One frame both ways:
 *
 *     FA FB COUNT body[COUNT-2] CHK_HI CHK_LO
 *
 * COUNT counts the body and the two checksum bytes, at most 200. The checksum
 * (bw_sum16_pairs of the body) is sent high byte first; values in the body
 * are little-endian. A host body is a command: its number, then optionally an
 * argument: 0x3B and a u16 (a positive int), 0x1B and a u16 magnitude (a
 * negative int), or 0x2B, a length byte and that many bytes (a string).
 * Bytes after an int or a string are kept as the command's `extra` (ARIA's
 * string commands end with a NUL the length byte does not count; the
 * simulator's laser commands add a device index after the int). Any other
 * byte after the command number is a raw argument type: the simulator's
 * SIM_SET_POSE is `E0 00` and three int32 (x mm, y mm, heading degrees). A
 * robot body starts with its packet type: 0, 1, 2 (SYNC replies), 0x32/0x33
 * (the standard SIP, stopped/moving), 0x20 (config), 0x90 (encoder), 0x62
 * (a simulator's SIMSTAT).
 *
 * During the connection handshake the host's SYNC0, SYNC1 and SYNC2 are the
 * bodies 00, 01 and 02: the same bytes as PULSE, OPEN and CLOSE without an
 * argument. The codec decodes host bodies as commands; which meaning applies
 * is the session's business (driver and device), not the codec's.
 *
 * Firmware builds (wire.h): under BW_DEVICE_SIDE a robot's packet decodes
 * as BW_P2OS_UNKNOWN with its body, and a BW_P2OS_COMMAND message does not
 * encode (BW_EINVAL; bw_p2os_encode_cmd and its cousins still do). A
 * firmware that sends SIPs with bw_p2os_encode_sip_frame links none of the
 * other packets' encoders, which bw_p2os_encode_frame brings in.
 *
 * Memory: no function allocates; caller-owned parsers, messages and buffers;
 * every encoder takes a capacity. Time: nothing reads a clock. Threads:
 * reentrant. Errors: 0 ok, negative BW_E* (wire.h), positive counts.
 */
#ifndef BOTWIRE_P2OS_H
#define BOTWIRE_P2OS_H

#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BW_P2OS_HEADER0 0xFAu
#define BW_P2OS_HEADER1 0xFBu
#define BW_P2OS_MIN_COUNT 3u   /* a body of one byte and the checksum */
#define BW_P2OS_MAX_COUNT 200u
#define BW_P2OS_MAX_BODY (BW_P2OS_MAX_COUNT - 2u)
#define BW_P2OS_MAX_FRAME (3u + BW_P2OS_MAX_COUNT)
/* Sonar readings that fit a SIP: (198 - 20) / 3. */
#define BW_P2OS_MAX_SONAR 59u
#define BW_P2OS_MAX_STRING 63u /* longest string kept from SYNC2 and config */

/* Argument types. */
enum {
    BW_P2OS_ARG_INT = 0x3B,    /* positive integer: u16 */
    BW_P2OS_ARG_NEGINT = 0x1B, /* negative integer: u16 magnitude */
    BW_P2OS_ARG_STRING = 0x2B, /* length byte, then the bytes */
};

/* Client command numbers (PROTOCOL-NOTES.md). */
enum {
    BW_P2OS_PULSE = 0, /* also SYNC0 */
    BW_P2OS_OPEN = 1,  /* also SYNC1 */
    BW_P2OS_CLOSE = 2, /* also SYNC2 */
    BW_P2OS_POLLING = 3,
    BW_P2OS_ENABLE = 4,
    BW_P2OS_SETA = 5,
    BW_P2OS_SETV = 6,
    BW_P2OS_SETO = 7,
    BW_P2OS_MOVE = 8,
    BW_P2OS_ROTATE = 9,
    BW_P2OS_SETRV = 10,
    BW_P2OS_VEL = 11,
    BW_P2OS_HEAD = 12,
    BW_P2OS_DHEAD = 13,
    BW_P2OS_SAY = 15,
    BW_P2OS_JOYINFO = 17,
    BW_P2OS_CONFIG = 18,
    BW_P2OS_ENCODER = 19,
    BW_P2OS_RVEL = 21,
    BW_P2OS_DCHEAD = 22,
    BW_P2OS_SETRA = 23,
    BW_P2OS_SONAR = 28,
    BW_P2OS_STOP = 29,
    BW_P2OS_DIGOUT = 30,
    BW_P2OS_VEL2 = 32,
    BW_P2OS_GRIPPER = 33,
    BW_P2OS_ADSEL = 35,
    BW_P2OS_GRIPPERVAL = 36,
    BW_P2OS_GRIPREQUEST = 37,
    BW_P2OS_IOREQUEST = 40,
    BW_P2OS_PTUPOS = 41,
    BW_P2OS_TTY2 = 42,
    BW_P2OS_GETAUX = 43,
    BW_P2OS_BUMPSTALL = 44,
    BW_P2OS_TCM2 = 45,
    BW_P2OS_JOYDRIVE = 47,
    BW_P2OS_MOVINGBLINK = 49,
    BW_P2OS_HOSTBAUD = 50,
    BW_P2OS_AUX1BAUD = 51,
    BW_P2OS_AUX2BAUD = 52,
    BW_P2OS_ESTOP = 55,
    BW_P2OS_ESTALL = 56,
    BW_P2OS_GYRO = 58,
    BW_P2OS_BATTERYINFO = 62, /* smart-battery robots; SRISim's old END_SIM */
    BW_P2OS_SOUND = 90,       /* AmigoBot */
    BW_P2OS_PLAYLIST = 91,    /* AmigoBot */
    BW_P2OS_SOUNDTOG = 92,    /* AmigoBot: piezo on (1) or muted (0) */
    /* The simulator's own commands (MobileSim / AMRISim). */
    BW_P2OS_SIM_SET_POSE = 224,   /* raw argument: 00, x, y, heading as int32 */
    BW_P2OS_SIM_RESET = 225,      /* back to the start pose, odometry 0 */
    BW_P2OS_SIM_LRF_ENABLE = 230,
    BW_P2OS_SIM_LRF_SET_FOV_START = 231,
    BW_P2OS_SIM_LRF_SET_FOV_END = 232,
    BW_P2OS_SIM_LRF_SET_RES = 233,
    BW_P2OS_SIM_CTRL = 236,
    BW_P2OS_SIM_STAT = 237,       /* 1 (or none): one SIMSTAT; 2: one per SIP; 0: stop */
    BW_P2OS_SIM_MESSAGE = 238,    /* string: shown by the simulator */
    BW_P2OS_SIM_EXIT = 239,       /* int: the simulator exits with that status */
};

/* Robot packet types. */
enum {
    BW_P2OS_PAC_SYNC0 = 0x00,
    BW_P2OS_PAC_SYNC1 = 0x01,
    BW_P2OS_PAC_SYNC2 = 0x02,
    BW_P2OS_PAC_CONFIG = 0x20,
    BW_P2OS_PAC_SIP_STOPPED = 0x32,
    BW_P2OS_PAC_SIP_MOVING = 0x33,
    BW_P2OS_PAC_SIMSTAT = 0x62,
    BW_P2OS_PAC_ENCODER = 0x90,
};

/* SIMSTAT flags. */
enum {
    BW_P2OS_SIMSTAT_MAP = 0x01,        /* documented, not set by current simulators */
    BW_P2OS_SIMSTAT_GEOREF = 0x02,     /* latitude, longitude, altitude, gps_dop valid */
    BW_P2OS_SIMSTAT_ODOM_ERROR = 0x04, /* odom_err_* valid */
};

/* SIP FLAGS and STALLBUMP bits. */
enum {
    BW_P2OS_FLAG_MOTORS = 0x0001,
    BW_P2OS_FLAG_SONAR = 0x001E, /* bits 1-4: sonar arrays on */
    BW_P2OS_STALL_LEFT = 0x0001,  /* low byte bit 0 */
    BW_P2OS_STALL_RIGHT = 0x0100, /* high byte bit 0 */
    BW_P2OS_BUMP_REAR_MASK = 0x00FE,  /* low byte bits 1-7: rear bumpers */
    BW_P2OS_BUMP_FRONT_MASK = 0xFE00, /* high byte bits 1-7: front bumpers */
};

typedef enum {
    BW_P2OS_FROM_HOST = 0, /* commands */
    BW_P2OS_FROM_ROBOT = 1, /* server packets */
} bw_p2os_dir_t;

typedef enum {
    BW_P2OS_UNKNOWN = 0, /* a body of a type not decoded; see u.unknown */
    BW_P2OS_COMMAND,
    BW_P2OS_SYNC,
    BW_P2OS_SIP,
    BW_P2OS_CONFIG_PAC,
    BW_P2OS_ENCODER_PAC,
    BW_P2OS_SIMSTAT_PAC,
} bw_p2os_type_t;

/* ---- messages, in wire units ------------------------------------------- */

typedef enum {
    BW_P2OS_NOARG = 0,
    BW_P2OS_INTARG,
    BW_P2OS_STRARG,
    BW_P2OS_RAWARG, /* a type byte other than 0x3B, 0x1B, 0x2B, then any bytes */
} bw_p2os_argkind_t;

typedef struct {
    uint8_t cmd;
    uint8_t argkind;  /* bw_p2os_argkind_t */
    uint8_t argtype;  /* RAWARG: the type byte as sent */
    int32_t value;    /* INTARG: -65535..65535 (0x1B with magnitude 0 reads as 0) */
    uint8_t len;      /* STRARG: bytes in str; RAWARG: bytes after the type byte */
    uint8_t str[BW_P2OS_MAX_BODY];
    /* INTARG, STRARG: bytes after the argument, kept as they are. */
    uint8_t nextra;
    const uint8_t *extra; /* into the decoded body; encode: NULL writes zeros */
} bw_p2os_command_t;

typedef struct {
    uint8_t n;        /* 0, 1 or 2 */
    bool has_info;    /* SYNC2 carried the three strings */
    char name[BW_P2OS_MAX_STRING + 1];     /* robot name */
    char cls[BW_P2OS_MAX_STRING + 1];      /* class, e.g. "Pioneer" */
    char subclass[BW_P2OS_MAX_STRING + 1]; /* e.g. "p2dx", "p2pb", "p3dx" */
} bw_p2os_sync_t;

typedef struct {
    uint8_t number;
    uint16_t range; /* RangeConvFactor units */
} bw_p2os_sonar_t;

/* The standard SIP; fields as the server sends them. */
typedef struct {
    bool moving;         /* type 0x33 (else 0x32) */
    uint16_t xpos, ypos; /* 15 bits used, DistConvFactor units */
    int16_t thpos;       /* AngleConvFactor units */
    int16_t lvel, rvel;  /* VelConvFactor units (mm/s) */
    uint8_t battery;     /* 0.1 V */
    uint16_t stall_bump; /* BW_P2OS_STALL_*, BW_P2OS_BUMP_* */
    int16_t control;     /* heading setpoint, AngleConvFactor units */
    uint16_t flags;      /* BW_P2OS_FLAG_* */
    uint8_t compass;     /* 2-degree units */
    uint8_t nsonar;
    bw_p2os_sonar_t sonar[BW_P2OS_MAX_SONAR];
    /* Trailing fields, present only while bytes remained: ntrailing of them
     * in this order. */
    uint8_t ntrailing;   /* 0..4 */
    uint16_t timer;      /* timer / gripper state */
    uint8_t analog, digin, digout;
    /* Any bytes after digout (newer firmware adds fields), kept as they are. */
    uint8_t nextra;
    const uint8_t *extra; /* into the decoded frame; encode: NULL writes zeros */
} bw_p2os_sip_t;

/* The config packet (reply to CONFIG), P2OS fields up to ShutdownVoltage.
 * Strings are NUL-terminated on the wire; numbers follow in this order. */
typedef struct {
    char robot_type[BW_P2OS_MAX_STRING + 1];
    char subtype[BW_P2OS_MAX_STRING + 1];
    char serial[BW_P2OS_MAX_STRING + 1];
    uint8_t four_mots;
    uint16_t rot_vel_top, trans_vel_top, rot_accel_top, trans_accel_top, pwm_max;
    char name[BW_P2OS_MAX_STRING + 1];
    /* From here on, any prefix may be present: nfields says how many. */
    uint8_t sip_cycle, host_baud, aux_baud;
    uint16_t gripper, front_sonar;
    uint8_t rear_sonar;
    uint16_t low_battery, rev_count, watchdog;
    uint8_t p2mpacs;
    uint16_t stall_val, stall_count, joy_vel, joy_rvel, rot_vel_max, trans_vel_max;
    uint16_t rot_accel, rot_decel, rot_kp, rot_kv, rot_ki;
    uint16_t trans_accel, trans_decel, trans_kp, trans_kv, trans_ki;
    uint8_t front_bumps, rear_bumps, charger, sonar_cycle, reset_baud, gyro_type;
    int16_t drift_factor;
    uint8_t aux2_baud, aux3_baud;
    uint16_t ticks_mm, shutdown_voltage;
    uint8_t nfields; /* of the fields from sip_cycle on, 0..BW_P2OS_CONFIG_FIELDS */
    uint8_t nextra;
    const uint8_t *extra; /* bytes after shutdown_voltage */
} bw_p2os_config_t;

typedef struct {
    int32_t left, right; /* encoder counts */
} bw_p2os_encoder_t;

/* A simulator's SIMSTAT packet (reply to SIM_STAT), as MobileSim/AMRISim
 * document and send it: two strings (empty today), then the numbers. */
typedef struct {
    char reserved1[BW_P2OS_MAX_STRING + 1];
    char reserved2[BW_P2OS_MAX_STRING + 1];
    /* From here on, any prefix may be present: nfields says how many. */
    uint32_t flags;                  /* BW_P2OS_SIMSTAT_* */
    uint16_t sim_interval;           /* ms of simulated time per loop */
    uint16_t real_interval;          /* ms of real time a loop should take */
    uint16_t last_interval;          /* ms the last loop took */
    int32_t true_x, true_y, true_z;  /* mm, the robot's true position */
    int32_t true_th;                 /* degrees */
    int32_t latitude, longitude;     /* degrees x 1e7 (GEOREF) */
    int32_t altitude;                /* cm (GEOREF) */
    int32_t gps_dop;                 /* DOP x 100; 0 bad fix; -1 no georeference */
    int32_t odom_err_x, odom_err_y, odom_err_th; /* x 1e7 (ODOM_ERROR) */
    uint8_t nfields; /* of the fields from flags on, 0..BW_P2OS_SIMSTAT_FIELDS */
    uint8_t nextra;
    const uint8_t *extra; /* bytes after odom_err_th (later simulators) */
} bw_p2os_simstat_t;

typedef struct {
    const uint8_t *data; /* the whole body (type byte first); NULL encodes zeros */
} bw_p2os_unknown_t;

/* One frame's body. `id` is the command number or packet type; `length`
 * the body length (decoded; encoders derive it except for unknown). */
typedef struct {
    bw_p2os_type_t type;
    uint8_t id;
    uint8_t length;
    union {
        bw_p2os_command_t command;
        bw_p2os_sync_t sync;
        bw_p2os_sip_t sip;
        bw_p2os_config_t config;
        bw_p2os_encoder_t encoder;
        bw_p2os_simstat_t simstat;
        bw_p2os_unknown_t unknown;
    } u;
} bw_p2os_msg_t;

/* ---- catalogue ------------------------------------------------------------ */

/* Lower-case name of a command number ("vel", "rvel", "sim_set_pose", ...),
 * or NULL. */
const char *bw_p2os_command_name(uint8_t cmd);
/* Number of a command name, in any case ("VEL" or "vel"), or -1. */
int bw_p2os_command_number(const char *name);
/* The i-th command of the catalogue in number order (for listing), or -1
 * past the end. */
int bw_p2os_command_at(unsigned i);
/* Name of a message type ("command", "sync", "sip", "config", "encoder",
 * "simstat", "unknown"); never NULL. */
const char *bw_p2os_type_name(bw_p2os_type_t type);
/* Field tables of the config packet's numeric parts (for tools and docs):
 * the six from four_mots to pwm_max, and the ones from sip_cycle on. */
const BW_ROM bw_msgdesc_t *bw_p2os_config_head_desc(void);
const BW_ROM bw_msgdesc_t *bw_p2os_config_tail_desc(void);
#define BW_P2OS_CONFIG_FIELDS 37u /* fields in the tail table */
/* The SIMSTAT numbers, flags to odom_err_th. */
const BW_ROM bw_msgdesc_t *bw_p2os_simstat_desc(void);
#define BW_P2OS_SIMSTAT_FIELDS 15u

/* ---- streaming parser ---------------------------------------------------------- */

/* A complete, checksum-verified frame: its body (COUNT - 2 bytes). Valid
 * until the next call on the parser and while the caller's input is unchanged. */
typedef struct {
    const uint8_t *body;
    uint8_t len;
} bw_p2os_frame_t;

/* The shared framer (wire.h), set up for P2OS frames. */
typedef bw_framer_t bw_p2os_parser_t;

/* P2OS framing: FA FB, COUNT 3..200 at offset 2, COUNT + 3 bytes, the 16-bit
 * checksum of the body sent high byte first. */
const bw_framing_t *bw_p2os_framing(void);

void bw_p2os_parser_init(bw_p2os_parser_t *p);

/*
 * bw_framer_parse for P2OS frames: bytes in any split; returns 1 with
 * a frame, 0 when more bytes are needed, BW_ECHECKSUM / BW_ELENGTH for a
 * rejected candidate (counted; call again). A COUNT below 3 or above 200 is an
 * impossible length. After a rejection the held bytes are rescanned for the
 * next FA FB, so `FA FA FB` and good frames behind bad ones are never lost.
 */
int bw_p2os_parse(bw_p2os_parser_t *p, const uint8_t **data, size_t *len, bw_p2os_frame_t *frame);

/* End of stream, as bw_framer_finish. */
int bw_p2os_parser_finish(bw_p2os_parser_t *p, bw_p2os_frame_t *frame);

/* ---- decoding and encoding ---------------------------------------------------------- */

/*
 * Decodes a body. Returns 0 with *msg filled (a body of a type the codec does
 * not decode gives BW_P2OS_UNKNOWN, and the caller may count it as unknown),
 * or BW_ELENGTH for a body too short or malformed for its type (a command
 * with a cut int or string argument, a SIP cut inside its fixed fields or sonar
 * readings, a string without its terminator): *msg is then filled as
 * BW_P2OS_UNKNOWN with the body's bytes.
 */
int bw_p2os_decode(bw_p2os_dir_t dir, const uint8_t *body, size_t len, bw_p2os_msg_t *msg);

/* Writes the body of a message; returns its length, or BW_ENOSPC,
 * BW_EINVAL (bad type or argument kind), BW_ERANGE (a value that cannot be
 * sent: an int beyond +-65535, too many sonar readings, a string too long
 * for the frame or containing a NUL where one ends it). */
int bw_p2os_encode_body(uint8_t *buf, size_t cap, const bw_p2os_msg_t *msg);

/* Writes a whole frame (header, count, body, checksum); returns its length
 * or an error as bw_p2os_encode_body, or BW_ERANGE for a body over 198. */
int bw_p2os_encode_frame(uint8_t *buf, size_t cap, const bw_p2os_msg_t *msg);

/* A SIP frame alone: what bw_p2os_encode_frame writes for a message of type
 * BW_P2OS_SIP (BW_EINVAL for another type), for a firmware, which then
 * links none of the other packets' encoders. */
int bw_p2os_encode_sip_frame(uint8_t *buf, size_t cap, const bw_p2os_msg_t *msg);

/* Frames a body that is already encoded. */
int bw_p2os_frame_body(uint8_t *buf, size_t cap, const uint8_t *body, size_t len);

/* Convenience: a command frame with no argument, an int argument, or a string. */
int bw_p2os_encode_cmd(uint8_t *buf, size_t cap, uint8_t cmd);
int bw_p2os_encode_cmd_int(uint8_t *buf, size_t cap, uint8_t cmd, int32_t value);
int bw_p2os_encode_cmd_str(uint8_t *buf, size_t cap, uint8_t cmd, const uint8_t *s, size_t n);

/* SIM_SET_POSE as ARIA sends it: `E0 00`, then x and y (mm) and the heading
 * (degrees) as int32, little-endian. Returns the frame length or BW_ENOSPC. */
int bw_p2os_encode_sim_set_pose(uint8_t *buf, size_t cap, int32_t x, int32_t y, int32_t th);
/* Reads a SIM_SET_POSE body (14 bytes; the type byte is not looked at, as
 * the simulators do not). Returns 0, or BW_ELENGTH for another body. */
int bw_p2os_sim_set_pose_of(const uint8_t *body, size_t len, int32_t *x, int32_t *y, int32_t *th);

/* Zeroed message of a type (id set to the usual packet type). */
void bw_p2os_msg_init(bw_p2os_msg_t *msg, bw_p2os_type_t type);

/* ---- models and conversions ------------------------------------------------------------- */

typedef struct {
    int16_t x, y;    /* mm, robot frame */
    int16_t heading; /* degrees, CCW positive */
} bw_p2os_sonar_pose_t;

/* A robot model: its conversion factors and geometry (PROTOCOL-NOTES.md and
 * the public parameter files of these robots). */
typedef struct {
    const char *subclass;   /* "p2dx", "p2pb", "p2at" */
    const char *cls;        /* "Pioneer" */
    double dist_conv;       /* mm per position unit */
    double angle_conv;      /* rad per heading unit (2 pi / 4096) */
    double vel_conv;        /* mm/s per velocity unit */
    double range_conv;      /* mm per sonar unit */
    double diff_conv;       /* rad/s per mm/s of (right - left) / 2 */
    double radius;          /* m, for collisions */
    unsigned nsonar;
    const bw_p2os_sonar_pose_t *sonar;
    uint8_t front_bumpers;  /* switches in the front ring (0: none) */
    uint8_t rear_bumpers;
} bw_p2os_model_t;

/* The model of a subclass, or NULL. */
const bw_p2os_model_t *bw_p2os_model(const char *subclass);
/* All the models, for listing. */
const bw_p2os_model_t *bw_p2os_model_at(unsigned i);

/* Signed difference of two 15-bit wrapping positions: a delta beyond
 * +-0x1000 wraps by 0x8000. */
int32_t bw_p2os_wrap15_delta(uint16_t cur, uint16_t last);

#ifdef __cplusplus
}
#endif

#endif
