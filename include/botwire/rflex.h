/*
 * RWI B21/B14/ATRV "reflex" bases: the rflex packet protocol. Codec core:
 * framing, streaming parser, message catalogue, decode and encode.
 *
 * Frame on the wire, both directions (115200 8N1):
 *
 *     1B 02 | port | id | opcode | len | data[len] | xor | 1B 03
 *
 * `len` counts the data bytes only (0..255), so a frame is len + 9 bytes.
 * `xor` is the XOR of port, id, opcode, len and every data byte (so the XOR
 * of port..xor is 0). Multi-byte values are big-endian. There is no
 * escaping: a 1B 02 or 1B 03 inside the data is data, and a frame is found
 * by its length and verified by its checksum and its 1B 03 trailer at
 * len + 7. A frame whose trailer is not 1B 03 is rejected like a bad
 * checksum (counted in checksum_errors: the shared framer's check is one
 * verdict).
 *
 * Sources: PROTOCOL-NOTES.md, checked against the public drivers (Player's
 * rflex driver, CARMEN's rflex module, the ROS `rflex` package in
 * DLu/rwi_ros). All their writers build `1B 02 port id opcode len data`,
 * the XOR of port..data, `1B 03`; Player's and CARMEN's readers take the
 * frame size from len + 9 and then look for the 1B 03. Where the notes and
 * a public driver disagree, this codec follows the notes:
 *  - Escaping. The ROS reader (DLu/rwi_ros) treats 1B as an escape on
 *    input: `1B 00` stands for 1B, `1B 01` is dropped, and the first 1B 03
 *    ends a packet whatever the length says; no public writer ever stuffs,
 *    and the drivers' set-velocity code avoids 0x1B bytes in the rotational
 *    velocity as a "hardware bug" workaround. The notes call the missing
 *    escaping a defect and say to treat a 1B 03 not at the end as data:
 *    done here; nothing is stuffed or unstuffed.
 *  - Sonar report. CARMEN reads each range at the id byte (one byte early);
 *    Player and ROS read id u8 then range u16: followed here. The drivers
 *    loop while 8 + 3n < len, accepting a cut last reading; here the data
 *    must be exactly 8 + 3n bytes.
 *  - Lengths. The drivers accept a SYS status of 9 bytes or more and a DIO
 *    report of 6 or more (and then read 7). Here each fixed-layout message
 *    has exactly its length; any other length decodes as BW_ELENGTH with
 *    the bytes kept (see bw_rflex_decode), so nothing is lost.
 *  - Player's reader repairs IR-port packets that carry one "ghost" byte
 *    after the length; such frames fail the check here and are counted.
 *
 * Message types are named after port and opcode (sys_status,
 * mot_set_dir, ...); fields keep wire units (encoder counts, raw sonar
 * units, the base's timestamps). A (port, opcode) pair the catalogue does
 * not know decodes as `unknown`, with its bytes, and re-encodes byte for
 * byte. The two sides share one opcode space, so decoding needs no
 * direction: SYS/STATUS with no data is the host's request, with 9 bytes
 * the base's answer; JSTK/GET_STATE likewise, with 13.
 *
 * Firmware builds (wire.h): under BW_DEVICE_SIDE the base's messages
 * (sys_status, mot_system_report, sonar_report, dio_report, ir_report,
 * jstk_state)
 * decode as BW_RFLEX_UNKNOWN with their bytes, so the sonar and IR report
 * decoders are left out, and the host's commands do not encode
 * (BW_EINVAL; bw_rflex_frame_data still frames any bytes).
 *
 * Memory: no function allocates; the caller owns parsers, messages and
 * buffers, and every encoder takes a capacity. Time: nothing reads a clock.
 * Threads: reentrant; one parser must not be used by two threads at once.
 * Errors: 0 ok, negative BW_E* (wire.h), positive counts.
 */
#ifndef BOTWIRE_RFLEX_H
#define BOTWIRE_RFLEX_H

#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BW_RFLEX_ESC 0x1Bu
#define BW_RFLEX_STX 0x02u
#define BW_RFLEX_ETX 0x03u
#define BW_RFLEX_OVERHEAD 9u   /* 1B 02, port, id, opcode, len, xor, 1B 03 */
#define BW_RFLEX_MAX_DATA 255u
#define BW_RFLEX_MAX_FRAME (BW_RFLEX_MAX_DATA + BW_RFLEX_OVERHEAD)
#define BW_RFLEX_BAUD 115200u
/* Sonar readings that fit a report: (255 - 8) / 3. */
#define BW_RFLEX_MAX_SONAR 82u
/* IR report bytes after its first (count) byte. */
#define BW_RFLEX_MAX_IR_BYTES (BW_RFLEX_MAX_DATA - 1u)

/* Ports. */
enum {
    BW_RFLEX_PORT_SYS = 1,
    BW_RFLEX_PORT_MOT = 2,
    BW_RFLEX_PORT_JSTK = 3,
    BW_RFLEX_PORT_SONAR = 4,
    BW_RFLEX_PORT_DIO = 5,
    BW_RFLEX_PORT_IR = 6,
};

/* Opcodes, per port, as the public drivers name them. Only some have a
 * message type here; the others decode as unknown. */
enum {
    BW_RFLEX_OP_SYS_LCD_DUMP = 0,
    BW_RFLEX_OP_SYS_STATUS = 1,

    BW_RFLEX_OP_MOT_AXIS_GET_SYSTEM = 0,
    BW_RFLEX_OP_MOT_AXIS_GET_MODEL = 1,
    BW_RFLEX_OP_MOT_AXIS_GET_TARGET = 2,
    BW_RFLEX_OP_MOT_AXIS_SET_LIMITS = 3,
    BW_RFLEX_OP_MOT_AXIS_GET_LIMITS = 4,
    BW_RFLEX_OP_MOT_AXIS_SET_POS_LIMITS = 5,
    BW_RFLEX_OP_MOT_AXIS_GET_POS_LIMITS = 6,
    BW_RFLEX_OP_MOT_AXIS_SET_DIR = 7,
    BW_RFLEX_OP_MOT_AXIS_SET_POS = 8,
    BW_RFLEX_OP_MOT_AXIS_GET_MODE = 9,
    BW_RFLEX_OP_MOT_SET_DEFAULTS = 10,
    BW_RFLEX_OP_MOT_BRAKE_SET = 11,
    BW_RFLEX_OP_MOT_BRAKE_RELEASE = 12,
    BW_RFLEX_OP_MOT_SYSTEM_REPORT = 33,
    BW_RFLEX_OP_MOT_SYSTEM_REPORT_REQ = 34,
    BW_RFLEX_OP_MOT_GET_NAXES = 65,

    BW_RFLEX_OP_JSTK_GET_STATE = 0,

    BW_RFLEX_OP_SONAR_RUN = 0,
    BW_RFLEX_OP_SONAR_GET_UPDATE = 1,
    BW_RFLEX_OP_SONAR_REPORT = 2,

    BW_RFLEX_OP_DIO_REPORTS_REQ = 0,
    BW_RFLEX_OP_DIO_REPORT = 1,
    BW_RFLEX_OP_DIO_GET_UPDATE = 2,
    BW_RFLEX_OP_DIO_UPDATE = 3,
    BW_RFLEX_OP_DIO_SET = 4,

    BW_RFLEX_OP_IR_RUN = 0,
    BW_RFLEX_OP_IR_REPORT = 1,
};

/* Message types: one per (port, opcode), SYS/STATUS and JSTK/GET_STATE
 * split by length. */
typedef enum {
    BW_RFLEX_UNKNOWN = 0,
    BW_RFLEX_SYS_STATUS_REQ,       /* SYS 1, no data: host asks for sys_status */
    BW_RFLEX_SYS_STATUS,           /* SYS 1, 9 bytes: the base's answer */
    BW_RFLEX_MOT_SET_DIR,          /* MOT 7, 14 bytes */
    BW_RFLEX_MOT_SET_DEFAULTS,     /* MOT 10, no data */
    BW_RFLEX_MOT_BRAKE_SET,        /* MOT 11, no data */
    BW_RFLEX_MOT_BRAKE_RELEASE,    /* MOT 12, no data */
    BW_RFLEX_MOT_SYSTEM_REPORT,    /* MOT 33, 25 bytes: one axis */
    BW_RFLEX_MOT_SYSTEM_REPORT_REQ, /* MOT 34, 8 bytes */
    BW_RFLEX_SONAR_RUN,            /* SONAR 0, 13 bytes */
    BW_RFLEX_SONAR_REPORT,         /* SONAR 2, 8 + 3n bytes */
    BW_RFLEX_DIO_REPORTS_REQ,      /* DIO 0, 4 bytes */
    BW_RFLEX_DIO_REPORT,           /* DIO 1, 7 bytes */
    BW_RFLEX_IR_RUN,               /* IR 0, 21 bytes */
    BW_RFLEX_IR_REPORT,            /* IR 1, 1 + n bytes */
    BW_RFLEX_JSTK_STATE_REQ,       /* JSTK 0, no data: host asks for jstk_state */
    BW_RFLEX_JSTK_STATE,           /* JSTK 0, 13 bytes: the base's answer */
    BW_RFLEX_TYPE_COUNT
} bw_rflex_type_t;

/* Axes of mot_set_dir and mot_system_report, and the report mask bits. */
enum {
    BW_RFLEX_AXIS_TRANS = 0,
    BW_RFLEX_AXIS_ROT = 1,
    BW_RFLEX_MASK_TRANS = 0x1,
    BW_RFLEX_MASK_ROT = 0x2,
};

/* mot_set_dir direction: the drivers send 1 for a velocity >= 0 and 0 for
 * a negative one (their sgn() returns 0 or 1). */
enum {
    BW_RFLEX_DIR_NEGATIVE = 0,
    BW_RFLEX_DIR_POSITIVE = 1,
};

/* sonar_run and ir_run modes the drivers send. */
enum {
    BW_RFLEX_RUN_OFF = 0,
    BW_RFLEX_RUN_ON = 2,
};

/* ---- messages, in wire units ------------------------------------------ */

typedef struct {
    uint32_t timestamp; /* the base's clock */
    uint32_t voltage;   /* raw; the ROS B21 driver reads volts as voltage / 100 + 1.2 */
    uint8_t brake;      /* nonzero: brake engaged */
} bw_rflex_sys_status_t;

typedef struct {
    uint8_t axis;          /* BW_RFLEX_AXIS_* */
    uint32_t velocity;     /* |v|: counts/s (translation) or counts/s of heading */
    uint32_t acceleration; /* counts/s^2 */
    uint32_t torque;       /* raw torque limit (drivers: 30000 trans, 35000 rot) */
    uint8_t direction;     /* BW_RFLEX_DIR_* */
} bw_rflex_mot_set_dir_t;

typedef struct {
    /* Report period. The drivers send 100000 to turn reports on and 0 to
     * turn them off; their comments disagree on the unit (ms or us). */
    uint32_t period;
    uint32_t mask; /* BW_RFLEX_MASK_* (3: both axes; 0 with period 0: off) */
} bw_rflex_mot_system_report_req_t;

/* One axis per report; a base reports both axes as two frames. */
typedef struct {
    uint32_t retval;    /* first word: "rv" in the drivers, which ignore it */
    uint32_t timestamp;
    uint8_t axis;       /* BW_RFLEX_AXIS_* */
    int32_t position;   /* counts: distance (trans) or bearing (rot) */
    int32_t velocity;   /* counts/s, signed */
    int32_t acceleration;
    int32_t torque;
} bw_rflex_mot_system_report_t;

typedef struct {
    uint32_t echo_delay; /* drivers: 30000 on, 0 off */
    uint32_t ping_delay; /* drivers: 0 */
    uint32_t set_delay;  /* drivers: 0 */
    uint8_t mode;        /* BW_RFLEX_RUN_ON (2) or BW_RFLEX_RUN_OFF */
} bw_rflex_sonar_run_t;

typedef struct {
    uint8_t id;     /* bank * BW_RFLEX_SONAR_IDS_PER_BANK + index in the bank */
    uint16_t range; /* raw units: BW_RFLEX_SONAR_COUNTS_PER_M per metre */
} bw_rflex_sonar_reading_t;

typedef struct {
    uint32_t retval;    /* first word; the drivers ignore it */
    uint32_t timestamp;
    uint8_t count;      /* 0..BW_RFLEX_MAX_SONAR */
    bw_rflex_sonar_reading_t readings[BW_RFLEX_MAX_SONAR];
} bw_rflex_sonar_report_t;

typedef struct {
    uint32_t period; /* drivers: 100000 on, 0 off */
} bw_rflex_dio_reports_req_t;

typedef struct {
    uint32_t timestamp;
    uint8_t address; /* BW_RFLEX_B21R_BUMPER_ADDRESS.., BW_RFLEX_HEADING_HOME_ADDRESS */
    uint16_t value;  /* B21r bump panel: low 4 bits, one per panel corner */
} bw_rflex_dio_report_t;

typedef struct {
    /* Five words whose meaning no public source gives: the drivers send
     * 0, 70, 10, 20, 150 to turn the IR on and zeros to turn it off. */
    uint32_t params[5];
    uint8_t mode; /* BW_RFLEX_RUN_ON (2) or BW_RFLEX_RUN_OFF */
} bw_rflex_ir_run_t;

/* The IR report: a count of banks, then 13 bytes a bank (a stamp, eight
 * range bytes, a reserved 0x80: BW_RFLEX_IR_BANK_BYTES below), range j of
 * bank b at data offset 13 b + j + 5 as Player reads it (bw_rflex_ir_range).
 * The bytes are kept as sent. */
typedef struct {
    uint8_t count;  /* data[0] */
    uint8_t nbytes; /* data bytes after it, 0..BW_RFLEX_MAX_IR_BYTES */
    uint8_t bytes[BW_RFLEX_MAX_IR_BYTES];
} bw_rflex_ir_report_t;

/* The joystick's state, the base's answer to a jstk_state_req. Layout from
 * Player's rflex-protocol.txt ("From base to client: JSTK_GET_STATE:
 * Timestamp 4 bytes, X 4 bytes, Y 4 bytes, Buttons 1 byte") and its reader
 * (rflex_commands.cc, parseJoyReport: x and y signed at data offsets 4 and
 * 8, buttons at 12; it drives the base from the stick while button bit 0
 * is set, turning at x * rflex_joy_ang_ratio rad/s, -0.01 in its stock
 * B21r configuration, so a positive x turns clockwise: to the right). */
typedef struct {
    uint32_t timestamp; /* the base's clock */
    int32_t x;          /* sideways: positive to the right */
    int32_t y;          /* forward positive */
    uint8_t buttons;    /* bit 0: BW_RFLEX_JSTK_ENABLE */
} bw_rflex_jstk_state_t;

typedef struct {
    const uint8_t *data; /* `length` bytes; decoded: into the frame; NULL encodes zeros */
} bw_rflex_unknown_t;

/*
 * One frame's message. port, id, opcode and length are the frame's header
 * bytes as decoded. Encoders take port and opcode from `type` (but from the
 * message for BW_RFLEX_UNKNOWN), the length from the contents (but from
 * `length` for unknown), and `id` always from the message: the public
 * drivers send 0, and 4 with SONAR_RUN.
 */
typedef struct {
    bw_rflex_type_t type;
    uint8_t port, id, opcode;
    uint8_t length;
    union {
        bw_rflex_sys_status_t sys_status;
        bw_rflex_mot_set_dir_t mot_set_dir;
        bw_rflex_mot_system_report_req_t mot_system_report_req;
        bw_rflex_mot_system_report_t mot_system_report;
        bw_rflex_sonar_run_t sonar_run;
        bw_rflex_sonar_report_t sonar_report;
        bw_rflex_dio_reports_req_t dio_reports_req;
        bw_rflex_dio_report_t dio_report;
        bw_rflex_ir_run_t ir_run;
        bw_rflex_ir_report_t ir_report;
        bw_rflex_jstk_state_t jstk_state;
        bw_rflex_unknown_t unknown;
    } u;
} bw_rflex_msg_t;

/* ---- catalogue ------------------------------------------------------------ */

/* Name of a type ("sys_status", "mot_set_dir", ...; "unknown"); never NULL. */
const char *bw_rflex_type_name(bw_rflex_type_t type);
/* Type of a name, or BW_RFLEX_UNKNOWN for a name that is not a type. */
bw_rflex_type_t bw_rflex_type_from_name(const char *name);
/* Port and opcode of a type (0 for BW_RFLEX_UNKNOWN). */
uint8_t bw_rflex_type_port(bw_rflex_type_t type);
uint8_t bw_rflex_type_opcode(bw_rflex_type_t type);
/* Type of a frame's (port, opcode), or BW_RFLEX_UNKNOWN. The data length
 * only tells SYS/STATUS and JSTK/GET_STATE apart: 0 is the host's request,
 * anything else the base's answer. */
bw_rflex_type_t bw_rflex_type_of(uint8_t port, uint8_t opcode, size_t len);
/* Lower-case name of a port ("sys", "mot", "jstk", "sonar", "dio", "ir"),
 * or NULL. */
const char *bw_rflex_port_name(uint8_t port);
/*
 * Field table of a fixed-layout type (BW_ORDER_BE, offsets into
 * bw_rflex_msg_t; a type without data has a table of no fields); NULL for
 * sonar_report, ir_report and unknown. The codec codes with these tables,
 * so they are the one definition of each message.
 */
const BW_ROM bw_msgdesc_t *bw_rflex_desc(bw_rflex_type_t type);
/* The fixed leading fields of a variable-layout type: sonar_report
 * (retval, timestamp) and ir_report (count); NULL for the others. */
const BW_ROM bw_msgdesc_t *bw_rflex_head_desc(bw_rflex_type_t type);

/* ---- streaming parser ------------------------------------------------------ */

/* A complete, verified frame: its header bytes and its data. `data` points
 * into the caller's input or into the parser; it stays valid until the next
 * call on the parser and while the caller's input is unchanged. */
typedef struct {
    uint8_t port, id, opcode, len;
    const uint8_t *data;
} bw_rflex_frame_t;

/* The shared framer (wire.h), set up for rflex frames. */
typedef bw_framer_t bw_rflex_parser_t;

/* rflex framing: 1B 02, len 0..255 at offset 5, len + 9 bytes, checked by
 * the XOR of port..xor being 0 and the 1B 03 trailer. */
const bw_framing_t *bw_rflex_framing(void);

void bw_rflex_parser_init(bw_rflex_parser_t *p);

/*
 * Pushes bytes in, any split. Consumes from *data / *len (both advanced) up
 * to and including the end of the next good frame.
 *
 * Returns 1 with *frame filled when a frame is complete; 0 when all input is
 * consumed and more bytes are needed; BW_ECHECKSUM when a candidate was just
 * rejected for its checksum or its trailer (counted; call again). Every
 * length byte is legal, so a false header with a long length is rejected
 * only when its trailer or checksum fails; the bytes it held are then
 * rescanned for the next 1B 02, so a good frame behind garbage, a bad frame
 * or a false header is never lost (`1B 1B 02` keeps its frame). Every byte
 * fed is in an accepted frame, counted as skipped, or held.
 */
int bw_rflex_parse(bw_rflex_parser_t *p, const uint8_t **data, size_t *len,
                   bw_rflex_frame_t *frame);

/* End of stream, as bw_framer_finish: the held candidate counts as one
 * length error, its first byte is skipped and the rest rescanned. Call
 * until 0; the parser is then empty and reusable. */
int bw_rflex_parser_finish(bw_rflex_parser_t *p, bw_rflex_frame_t *frame);

/* ---- decoding and encoding --------------------------------------------------- */

/*
 * Decodes a frame (frame->len bytes at frame->data; the header bytes are
 * taken as given, nothing is verified again). Returns 0 with *msg filled: a
 * (port, opcode) the catalogue does not know gives BW_RFLEX_UNKNOWN with
 * u.unknown.data = frame->data (the caller may count it as unknown). Returns
 * BW_ELENGTH for a known pair whose data has a length wrong for it (a
 * fixed layout of another size, a sonar report not 8 + 3n bytes, an empty
 * IR report): *msg is then filled as BW_RFLEX_UNKNOWN with the bytes, so it
 * can be shown and re-encoded as it came.
 */
int bw_rflex_decode(const bw_rflex_frame_t *frame, bw_rflex_msg_t *msg);

/* Data length of a message, or BW_EINVAL (bad type), BW_ERANGE (more sonar
 * readings or IR bytes than a frame holds). */
int bw_rflex_data_len(const bw_rflex_msg_t *msg);

/* Writes the data bytes of a message; returns their count, or BW_ENOSPC or
 * an error as bw_rflex_data_len. */
int bw_rflex_encode_data(uint8_t *buf, size_t cap, const bw_rflex_msg_t *msg);

/* Writes a whole frame; returns its length (data + 9), or an error as
 * bw_rflex_encode_data. */
int bw_rflex_encode_frame(uint8_t *buf, size_t cap, const bw_rflex_msg_t *msg);

/* Frames data that is already encoded (it may already sit at buf + 6).
 * Returns the frame length, BW_ERANGE for more than 255 bytes, BW_ENOSPC. */
int bw_rflex_frame_data(uint8_t *buf, size_t cap, uint8_t port, uint8_t id, uint8_t opcode,
                        const uint8_t *data, size_t len);

/* Zeroed message of a type, with its port, opcode, usual id (4 for
 * sonar_run, else 0) and length set. */
void bw_rflex_msg_init(bw_rflex_msg_t *msg, bw_rflex_type_t type);

/* mot_set_dir as the drivers build it from a signed velocity: |v| and the
 * direction byte (1 for v >= 0). */
bw_rflex_mot_set_dir_t bw_rflex_set_dir(uint8_t axis, int32_t velocity, uint32_t acceleration,
                                        uint32_t torque);

/* The signed velocity a mot_set_dir asks for (direction 0: negative;
 * saturates at INT32_MIN / INT32_MAX). */
int32_t bw_rflex_set_dir_velocity(const bw_rflex_mot_set_dir_t *d);

/* Range byte j of IR bank b as Player reads it (data offset 13 b + j + 5),
 * or -1 when the report is too short to hold it. */
int bw_rflex_ir_range(const bw_rflex_ir_report_t *r, unsigned bank, unsigned j);

/* ---- units and constants (public drivers; PROTOCOL-NOTES.md) ---------------- */

/* Odometry and velocity counts. B21r: the notes' "about 103000 per metre and
 * 35000 per radian", the ROS rflex B21 configuration's values. */
#define BW_RFLEX_B21R_COUNTS_PER_M 103000.0
#define BW_RFLEX_B21R_COUNTS_PER_RAD 35000.0
/* ATRV-Jr: 90.81 counts per mm (90810 per metre), 37000 per radian. */
#define BW_RFLEX_ATRVJR_COUNTS_PER_MM 90.81
#define BW_RFLEX_ATRVJR_COUNTS_PER_M 90810.0
#define BW_RFLEX_ATRVJR_COUNTS_PER_RAD 37000.0

/* Sonar: raw range units per metre (ROS B21 and ATRV-Jr configurations),
 * and the drivers' clamp. */
#define BW_RFLEX_SONAR_COUNTS_PER_M 1476.0
#define BW_RFLEX_SONAR_MAX_RANGE 3000u
/* Sonar ids: each sonar module (bank) numbers its transducers 0..15. */
#define BW_RFLEX_SONAR_IDS_PER_BANK 16u
/* B21r: two rings of 24 sonars 15 degrees apart: the body ring on banks
 * 0..5 (4 sonars each), the base ring on banks 6..13 (3 each). */
#define BW_RFLEX_B21R_SONAR_RINGS 2u
#define BW_RFLEX_B21R_SONARS_PER_RING 24u
#define BW_RFLEX_B21R_SONAR_SPACING_DEG 15.0
#define BW_RFLEX_B21R_BODY_SONAR_BANKS 6u
#define BW_RFLEX_B21R_BODY_SONARS_PER_BANK 4u
#define BW_RFLEX_B21R_BASE_SONAR_BANKS 8u
#define BW_RFLEX_B21R_BASE_SONARS_PER_BANK 3u
/* Where the sonars look, as Player's stock B21r configuration has them
 * (config/b21r_rflex_lms200.cfg, mrad_sonar_poses; docs/rflex.md says why
 * that one): sonar i (0..23) of the body ring is transducer i % 4 of bank
 * i / 4 and looks out at 172.5 - 15 i degrees (counter-clockwise from
 * ahead: sonar 0 just left of straight back, then clockwise round the ring,
 * sonars 11 and 12 either side of straight ahead), from 0.25 m off the
 * centre along that bearing. The base ring (24 + j: bank 6 + j / 3,
 * transducer j % 3) looks out at 240 - 15 j degrees from 0.26 m. */
#define BW_RFLEX_B21R_SONAR_RADIUS_M 0.25
#define BW_RFLEX_B21R_BASE_SONAR_RADIUS_M 0.26
#define BW_RFLEX_B21R_SONAR_START_DEG 172.5
#define BW_RFLEX_B21R_BASE_SONAR_START_DEG 240.0
static inline uint8_t bw_rflex_b21r_sonar_id(unsigned i)
{
    return (uint8_t)((i / BW_RFLEX_B21R_BODY_SONARS_PER_BANK) * BW_RFLEX_SONAR_IDS_PER_BANK +
                     i % BW_RFLEX_B21R_BODY_SONARS_PER_BANK);
}
/* The bearing of body sonar i, degrees counter-clockwise from ahead, in
 * (-180, 180]. */
static inline double bw_rflex_b21r_sonar_deg(unsigned i)
{
    double a = BW_RFLEX_B21R_SONAR_START_DEG - BW_RFLEX_B21R_SONAR_SPACING_DEG * (double)i;
    return a <= -180.0 ? a + 360.0 : a;
}
/* The drivers' echo delay when turning the sonar on. */
#define BW_RFLEX_SONAR_ECHO_DELAY 30000u

/* DIO: B21r bump panels report at addresses 0x40..0x4D (14 panels), the
 * low 4 bits of the value giving which corners are pressed; the heading
 * home switch reports at 0x31. Where the panels are, as Player's stock
 * B21r configuration has them (bumper_def): 0x40..0x45 the body's six, 60
 * degrees wide, centred from 150 degrees clockwise (150, 90, 30, -30, -90,
 * -150) at 0.25 m; 0x46..0x4D the base's eight, 45 degrees wide, from 157.5
 * degrees clockwise (157.5, 112.5, ..., -157.5) at 0.26 m. */
#define BW_RFLEX_B21R_BUMPER_ADDRESS 0x40u
#define BW_RFLEX_B21R_BUMPER_COUNT 14u
#define BW_RFLEX_B21R_BODY_PANELS 6u
#define BW_RFLEX_B21R_BASE_PANELS 8u
/* The bearing of panel p (address 0x40 + p), degrees counter-clockwise from
 * ahead, in (-180, 180], and its width. */
static inline double bw_rflex_b21r_panel_deg(unsigned p)
{
    double a = p < BW_RFLEX_B21R_BODY_PANELS
                   ? 150.0 - 60.0 * (double)p
                   : 157.5 - 45.0 * (double)(p - BW_RFLEX_B21R_BODY_PANELS);
    return a <= -180.0 ? a + 360.0 : a;
}
static inline double bw_rflex_b21r_panel_width_deg(unsigned p)
{
    return p < BW_RFLEX_B21R_BODY_PANELS ? 60.0 : 45.0;
}
#define BW_RFLEX_HEADING_HOME_ADDRESS 0x31u

/* IR. The report (Player's rflex-protocol.txt, "IR_REPORT 1": "BankCount
 * 1 byte", then per bank "Timestamp? 4 Bytes, IR value 8 bytes (1 byte for
 * each sensor), Reserved 1 byte (seems to always be 0x80)"), so 13 bytes a
 * bank, sensor j of bank b at data offset 13 b + j + 5 (bw_rflex_ir_range).
 * Player's stock B21r configuration (b21r_rflex_lms200.cfg: rflex_bank_count
 * 6, rflex_banks [4 4 4 4 4 4], poses, rflex_ir_calib [4000 -2 ...],
 * ir_min_range 0.1, ir_max_range 0.8): 24 sensors, sensor i being j = i % 4
 * of bank i / 4 and posed as body sonar i (same x, y and heading); range =
 * 4000 raw^-2 m (rflex.cc: "range = a*voltage^b"), below 0.1 m read as 0,
 * beyond 0.8 m as 0.8. The drivers turn it on with ir_run 0, 70, 10, 20,
 * 150, mode 2 (BW_RFLEX_IR_ON_PARAMS). */
#define BW_RFLEX_IR_BANK_BYTES 13u
#define BW_RFLEX_IR_BANK_SENSORS 8u /* range bytes a bank holds */
#define BW_RFLEX_IR_RESERVED 0x80u
#define BW_RFLEX_B21R_IR_BANKS 6u
#define BW_RFLEX_B21R_IR_PER_BANK 4u
#define BW_RFLEX_B21R_IR_COUNT 24u
#define BW_RFLEX_B21R_IR_CALIB_A 4000.0
#define BW_RFLEX_B21R_IR_CALIB_B (-2.0)
#define BW_RFLEX_B21R_IR_MIN_M 0.1
#define BW_RFLEX_B21R_IR_MAX_M 0.8
#define BW_RFLEX_IR_ON_PARAMS { 0u, 70u, 10u, 20u, 150u }

/* Joystick: bit 0 of the buttons is the one Player's driver drives by. No
 * public source gives the axes' full scale: botwire takes +-100 as full
 * deflection (with Player's stock ratio of -0.01 rad/s a count, 1 rad/s),
 * an assumption docs/rflex.md explains. */
#define BW_RFLEX_JSTK_ENABLE 0x01u
#define BW_RFLEX_JSTK_FULL_SCALE 100.0

/* Battery: volts = voltage / 100 + offset (ROS rflex: 1.2 V on the B21r). */
#define BW_RFLEX_VOLTS_PER_UNIT 0.01
#define BW_RFLEX_B21R_VOLTAGE_OFFSET 1.2

/* Torque and acceleration the drivers send with every set-direction. */
#define BW_RFLEX_STD_TRANS_TORQUE 30000u
#define BW_RFLEX_STD_ROT_ACC 100000u
#define BW_RFLEX_STD_ROT_TORQUE 35000u

/* Report periods the drivers ask for (odometry and DIO). */
#define BW_RFLEX_REPORT_PERIOD 100000u

/* ---- the emulated base (host builds; src/robots/rflex/device.c) ------------- */

struct bw_device;

/* Its two axes' encoder counters as it keeps them (translation, rotation;
 * counts, not wrapped: the wire carries them modulo 2^32). BW_EINVAL for
 * another family. */
int bw_rflex_device_counts(const struct bw_device *dev, double counts[2]);

/* What its joystick reads from now on (raw, as jstk_state carries it).
 * BW_EINVAL for another family. */
int bw_rflex_device_joystick(struct bw_device *dev, int32_t x, int32_t y, uint8_t buttons);

#ifdef __cplusplus
}
#endif

#endif /* BOTWIRE_RFLEX_H */
