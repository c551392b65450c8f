/* rflex codec: message catalogue, streaming parser, decode and encode. */
#include "botwire/rflex.h"

#include <string.h>

#include "../../core/framer_inline.h"

#define OFF(member) ((uint16_t)offsetof(bw_rflex_msg_t, u.member))
#define FIELD(name, type, member) { BW_NAME(name), type, 1, OFF(member) }
#define ARRAY(name, type, n, member) { BW_NAME(name), type, n, OFF(member) }
#define DESC(name, fields, len) \
    { BW_NAME(name), fields, (uint8_t)(sizeof fields / sizeof fields[0]), len, BW_ORDER_BE }
#define EMPTY(name) { BW_NAME(name), BW_ROM_NULL, 0, 0, BW_ORDER_BE }

/* ---- field tables: the one definition of each message -------------------- */

static const BW_ROM bw_field_t f_sys_status[] = {
    FIELD("timestamp", BW_FT_U32, sys_status.timestamp),
    FIELD("voltage", BW_FT_U32, sys_status.voltage),
    FIELD("brake", BW_FT_U8, sys_status.brake),
};
static const BW_ROM bw_field_t f_set_dir[] = {
    FIELD("axis", BW_FT_U8, mot_set_dir.axis),
    FIELD("velocity", BW_FT_U32, mot_set_dir.velocity),
    FIELD("acceleration", BW_FT_U32, mot_set_dir.acceleration),
    FIELD("torque", BW_FT_U32, mot_set_dir.torque),
    FIELD("direction", BW_FT_U8, mot_set_dir.direction),
};
static const BW_ROM bw_field_t f_report_req[] = {
    FIELD("period", BW_FT_U32, mot_system_report_req.period),
    FIELD("mask", BW_FT_U32, mot_system_report_req.mask),
};
static const BW_ROM bw_field_t f_system_report[] = {
    FIELD("retval", BW_FT_U32, mot_system_report.retval),
    FIELD("timestamp", BW_FT_U32, mot_system_report.timestamp),
    FIELD("axis", BW_FT_U8, mot_system_report.axis),
    FIELD("position", BW_FT_I32, mot_system_report.position),
    FIELD("velocity", BW_FT_I32, mot_system_report.velocity),
    FIELD("acceleration", BW_FT_I32, mot_system_report.acceleration),
    FIELD("torque", BW_FT_I32, mot_system_report.torque),
};
static const BW_ROM bw_field_t f_sonar_run[] = {
    FIELD("echo_delay", BW_FT_U32, sonar_run.echo_delay),
    FIELD("ping_delay", BW_FT_U32, sonar_run.ping_delay),
    FIELD("set_delay", BW_FT_U32, sonar_run.set_delay),
    FIELD("mode", BW_FT_U8, sonar_run.mode),
};
static const BW_ROM bw_field_t f_sonar_head[] = {
    FIELD("retval", BW_FT_U32, sonar_report.retval),
    FIELD("timestamp", BW_FT_U32, sonar_report.timestamp),
};
static const BW_ROM bw_field_t f_dio_reports_req[] = {
    FIELD("period", BW_FT_U32, dio_reports_req.period),
};
static const BW_ROM bw_field_t f_dio_report[] = {
    FIELD("timestamp", BW_FT_U32, dio_report.timestamp),
    FIELD("address", BW_FT_U8, dio_report.address),
    FIELD("value", BW_FT_U16, dio_report.value),
};
static const BW_ROM bw_field_t f_ir_run[] = {
    ARRAY("params", BW_FT_U32, 5, ir_run.params),
    FIELD("mode", BW_FT_U8, ir_run.mode),
};
static const BW_ROM bw_field_t f_ir_head[] = {
    FIELD("count", BW_FT_U8, ir_report.count),
};
static const BW_ROM bw_field_t f_jstk_state[] = {
    FIELD("timestamp", BW_FT_U32, jstk_state.timestamp),
    FIELD("x", BW_FT_I32, jstk_state.x),
    FIELD("y", BW_FT_I32, jstk_state.y),
    FIELD("buttons", BW_FT_U8, jstk_state.buttons),
};

#define SONAR_HEAD 8u   /* retval, timestamp */
#define SONAR_READING 3u /* id u8, range u16 */
#define IR_HEAD 1u       /* count */

/*
 * Every type: F(type, name, port, opcode, id, fields, wire bytes) for a
 * fixed layout, E(type, name, port, opcode, id) for one without data,
 * V(type, name, port, opcode, id, head fields, head bytes) for a variable
 * one (coded by hand after its fixed head). From this one list come the
 * catalogue's field tables (bw_rflex_desc, bw_rflex_head_desc) and the
 * codec's own type table.
 */
#define RFLEX_TYPES(F, E, V)                                                              \
    E(SYS_STATUS_REQ, "sys_status_req", SYS, OP_SYS_STATUS, 0)                            \
    F(SYS_STATUS, "sys_status", SYS, OP_SYS_STATUS, 0, f_sys_status, 9)                   \
    F(MOT_SET_DIR, "mot_set_dir", MOT, OP_MOT_AXIS_SET_DIR, 0, f_set_dir, 14)             \
    E(MOT_SET_DEFAULTS, "mot_set_defaults", MOT, OP_MOT_SET_DEFAULTS, 0)                  \
    E(MOT_BRAKE_SET, "mot_brake_set", MOT, OP_MOT_BRAKE_SET, 0)                           \
    E(MOT_BRAKE_RELEASE, "mot_brake_release", MOT, OP_MOT_BRAKE_RELEASE, 0)               \
    F(MOT_SYSTEM_REPORT, "mot_system_report", MOT, OP_MOT_SYSTEM_REPORT, 0,               \
      f_system_report, 25)                                                                \
    F(MOT_SYSTEM_REPORT_REQ, "mot_system_report_req", MOT, OP_MOT_SYSTEM_REPORT_REQ, 0,   \
      f_report_req, 8)                                                                    \
    F(SONAR_RUN, "sonar_run", SONAR, OP_SONAR_RUN, 4, f_sonar_run, 13)                    \
    V(SONAR_REPORT, "sonar_report", SONAR, OP_SONAR_REPORT, 0, f_sonar_head, SONAR_HEAD)  \
    F(DIO_REPORTS_REQ, "dio_reports_req", DIO, OP_DIO_REPORTS_REQ, 0, f_dio_reports_req, 4) \
    F(DIO_REPORT, "dio_report", DIO, OP_DIO_REPORT, 0, f_dio_report, 7)                   \
    F(IR_RUN, "ir_run", IR, OP_IR_RUN, 0, f_ir_run, 21)                                   \
    V(IR_REPORT, "ir_report", IR, OP_IR_REPORT, 0, f_ir_head, IR_HEAD)                    \
    E(JSTK_STATE_REQ, "jstk_state_req", JSTK, OP_JSTK_GET_STATE, 0)                       \
    F(JSTK_STATE, "jstk_state", JSTK, OP_JSTK_GET_STATE, 0, f_jstk_state, 13)

#define NFIELDS(fields) ((uint8_t)(sizeof fields / sizeof fields[0]))

/* The catalogue's field tables: for tools (a firmware does not link them). */
#define MAKE_DESC(t, name, port, op, id, fields, len) \
    static const BW_ROM bw_msgdesc_t d_##t = DESC(name, fields, len);
#define MAKE_EMPTY(t, name, port, op, id) static const BW_ROM bw_msgdesc_t d_##t = EMPTY(name);
RFLEX_TYPES(MAKE_DESC, MAKE_EMPTY, MAKE_DESC)

#define DESC_PTR(t, name, port, op, id, fields, len) [BW_RFLEX_##t] = &d_##t,
#define EMPTY_PTR(t, name, port, op, id) [BW_RFLEX_##t] = &d_##t,
#define NO_PTR(t, name, port, op, id, fields, len)
static const BW_ROM bw_msgdesc_t *const BW_ROM descs[BW_RFLEX_TYPE_COUNT] = {
    RFLEX_TYPES(DESC_PTR, EMPTY_PTR, NO_PTR)
};
#define NO_EMPTY(t, name, port, op, id)
static const BW_ROM bw_msgdesc_t *const BW_ROM heads[BW_RFLEX_TYPE_COUNT] = {
    RFLEX_TYPES(NO_PTR, NO_EMPTY, DESC_PTR)
};

/* The codec's type table: what it codes each type with. */
typedef struct {
#ifndef BW_NO_NAMES
    const char *name;
#endif
    uint8_t port, opcode, id;
    bool fixed;       /* the whole data has the layout below; else it is its head */
    uint8_t wire_len; /* bytes of that layout */
    uint8_t nfields;
    const BW_ROM bw_field_t *fields;
} type_info_t;

#ifdef BW_NO_NAMES
#define TYPE_NAME(name)
#else
#define TYPE_NAME(name) name,
#endif
#define FIXED_TYPE(t, name, port, op, id, fields, len)                                 \
    [BW_RFLEX_##t] = { TYPE_NAME(name) BW_RFLEX_PORT_##port, BW_RFLEX_##op, id, true, len, \
                       NFIELDS(fields), fields },
#define EMPTY_TYPE(t, name, port, op, id) \
    [BW_RFLEX_##t] = { TYPE_NAME(name) BW_RFLEX_PORT_##port, BW_RFLEX_##op, id, true, 0, 0, BW_ROM_NULL },
#define VAR_TYPE(t, name, port, op, id, fields, len)                                    \
    [BW_RFLEX_##t] = { TYPE_NAME(name) BW_RFLEX_PORT_##port, BW_RFLEX_##op, id, false, len, \
                       NFIELDS(fields), fields },

static const BW_ROM type_info_t types[BW_RFLEX_TYPE_COUNT] = {
    [BW_RFLEX_UNKNOWN] = { TYPE_NAME("unknown") 0, 0, 0, false, 0, 0, BW_ROM_NULL },
    RFLEX_TYPES(FIXED_TYPE, EMPTY_TYPE, VAR_TYPE)
};

/* The types the base sends; the others are the host's. */
#define ROBOT_TYPES                                                                            \
    (1ul << BW_RFLEX_SYS_STATUS | 1ul << BW_RFLEX_MOT_SYSTEM_REPORT |                          \
     1ul << BW_RFLEX_SONAR_REPORT | 1ul << BW_RFLEX_DIO_REPORT | 1ul << BW_RFLEX_IR_REPORT |   \
     1ul << BW_RFLEX_JSTK_STATE)

static bool robot_sends(bw_rflex_type_t t) { return (ROBOT_TYPES >> t) & 1u; }

static const BW_ROM type_info_t *info(bw_rflex_type_t t)
{
    return (unsigned)t < BW_RFLEX_TYPE_COUNT ? &types[t] : &types[BW_RFLEX_UNKNOWN];
}

const char *bw_rflex_type_name(bw_rflex_type_t type)
{
#ifdef BW_NO_NAMES
    (void)type;
    return "unknown";
#else
    return info(type)->name;
#endif
}
uint8_t bw_rflex_type_port(bw_rflex_type_t type) { return info(type)->port; }
uint8_t bw_rflex_type_opcode(bw_rflex_type_t type) { return info(type)->opcode; }
const BW_ROM bw_msgdesc_t *bw_rflex_desc(bw_rflex_type_t type)
{
    return (unsigned)type < BW_RFLEX_TYPE_COUNT ? descs[type] : BW_ROM_NULL;
}
const BW_ROM bw_msgdesc_t *bw_rflex_head_desc(bw_rflex_type_t type)
{
    return (unsigned)type < BW_RFLEX_TYPE_COUNT ? heads[type] : BW_ROM_NULL;
}

bw_rflex_type_t bw_rflex_type_from_name(const char *name)
{
#ifdef BW_NO_NAMES
    (void)name;
#else
    for (unsigned t = 1; t < BW_RFLEX_TYPE_COUNT; t++)
        if (strcmp(types[t].name, name) == 0)
            return (bw_rflex_type_t)t;
#endif
    return BW_RFLEX_UNKNOWN;
}

static BW_HOT_INLINE bw_rflex_type_t type_of(uint8_t port, uint8_t opcode, size_t len)
{
    /* (Host builds: unrolled, each entry's port and opcode folded in.) */
    BW_UNROLL_ALL
    for (unsigned t = 1; t < BW_RFLEX_TYPE_COUNT; t++)
        if (types[t].port == port && types[t].opcode == opcode) {
            /* A request without data (sys_status_req, jstk_state_req) is
             * listed just before its answer on the same (port, opcode):
             * with data, the frame is the answer. One rule, not one test
             * per pair: the firmware's flash is counted. */
            if (len != 0 && t + 1 < BW_RFLEX_TYPE_COUNT && types[t + 1].port == port &&
                types[t + 1].opcode == opcode)
                t++;
            return (bw_rflex_type_t)t;
        }
    return BW_RFLEX_UNKNOWN;
}

bw_rflex_type_t bw_rflex_type_of(uint8_t port, uint8_t opcode, size_t len)
{
    return type_of(port, opcode, len);
}

const char *bw_rflex_port_name(uint8_t port)
{
    static const char names[7][6] = { "", "sys", "mot", "jstk", "sonar", "dio", "ir" };
    return port >= 1 && port <= 6 ? names[port] : NULL;
}

/* ---- framing -------------------------------------------------------------- */

/* XOR of port..xor is zero when the checksum is right; the trailer is
 * checked too, since without escaping it is the only end marker. */
static bool rflex_check(const uint8_t *frame, size_t size)
{
    return frame[size - 2] == BW_RFLEX_ESC && frame[size - 1] == BW_RFLEX_ETX &&
           bw_xor8(frame + 2, size - 4) == 0;
}

static const bw_framing_t rflex_framing = {
    .header = { BW_RFLEX_ESC, BW_RFLEX_STX },
    .len_at = 5,
    .len_min = 0,
    .len_max = BW_RFLEX_MAX_DATA,
    .overhead = BW_RFLEX_OVERHEAD,
    .check = rflex_check,
};

const bw_framing_t *bw_rflex_framing(void) { return &rflex_framing; }

void bw_rflex_parser_init(bw_rflex_parser_t *p) { bw_framer_init(p, &rflex_framing); }

static int view_of(int rc, const uint8_t *f, bw_rflex_frame_t *frame)
{
    if (rc == 1) {
        frame->port = f[2];
        frame->id = f[3];
        frame->opcode = f[4];
        frame->len = f[5];
        frame->data = f + 6;
    }
    return rc;
}

int bw_rflex_parse(bw_rflex_parser_t *p, const uint8_t **data, size_t *len,
                   bw_rflex_frame_t *frame)
{
    const uint8_t *f = NULL;
    size_t size = 0;
    int rc = bw_framer_parse_as(p, &rflex_framing, data, len, &f, &size);
    return view_of(rc, f, frame);
}

int bw_rflex_parser_finish(bw_rflex_parser_t *p, bw_rflex_frame_t *frame)
{
    const uint8_t *f = NULL;
    size_t size = 0;
    int rc = bw_framer_finish(p, &f, &size);
    return view_of(rc, f, frame);
}

/* ---- decoding ------------------------------------------------------------- */

static int decode_sonar(const uint8_t *d, size_t len, bw_rflex_msg_t *msg)
{
    if (len < SONAR_HEAD || (len - SONAR_HEAD) % SONAR_READING != 0)
        return BW_ELENGTH;
    bw_rflex_sonar_report_t *s = &msg->u.sonar_report;
    bw_fields_decode_inline(f_sonar_head, NFIELDS(f_sonar_head), BW_ORDER_BE, d, msg);
    /* At most (255 - 8) / 3 = 82: the length byte bounds the count. */
    s->count = (uint8_t)((len - SONAR_HEAD) / SONAR_READING);
    const uint8_t *r = d + SONAR_HEAD;
    for (size_t i = 0; i < s->count; i++, r += SONAR_READING) {
        s->readings[i].id = r[0];
        s->readings[i].range = bw_get_be16(r + 1);
    }
    return 0;
}

static int decode_ir(const uint8_t *d, size_t len, bw_rflex_msg_t *msg)
{
    if (len < IR_HEAD)
        return BW_ELENGTH;
    bw_rflex_ir_report_t *r = &msg->u.ir_report;
    bw_fields_decode(f_ir_head, NFIELDS(f_ir_head), BW_ORDER_BE, d, msg);
    r->nbytes = (uint8_t)(len - IR_HEAD);
    memcpy(r->bytes, d + IR_HEAD, r->nbytes);
    return 0;
}

#if !BW_SMALL
/* A fixed layout's fields by code of each type's own, which the compiler
 * makes from its table (the small build walks the table). */
#define DECODE_FIXED(T, name, port, op, id, fields, len) \
    case BW_RFLEX_##T: bw_fields_decode_inline(fields, NFIELDS(fields), BW_ORDER_BE, data, msg); break;
#define NO_DECODE(T, name, port, op, id)
#define NO_DECODE_VAR(T, name, port, op, id, fields, len)

static BW_HOT_INLINE void decode_fields(bw_rflex_type_t t, const uint8_t *data, bw_rflex_msg_t *msg)
{
    switch (t) {
        RFLEX_TYPES(DECODE_FIXED, NO_DECODE, NO_DECODE_VAR)
    default: break;
    }
}
#endif

int bw_rflex_decode(const bw_rflex_frame_t *frame, bw_rflex_msg_t *msg)
{
    bw_zero(msg, sizeof *msg);
    msg->port = frame->port;
    msg->id = frame->id;
    msg->opcode = frame->opcode;
    msg->length = frame->len;
    bw_rflex_type_t t = type_of(frame->port, frame->opcode, frame->len);
    if (!BW_BOTH_SIDES && robot_sends(t))
        t = BW_RFLEX_UNKNOWN; /* a base does not read reports */
    msg->type = t;
    const BW_ROM type_info_t *ti = &types[t];
    int rc = 0;
    if (ti->fixed) {
        if (frame->len != ti->wire_len)
            rc = BW_ELENGTH;
        else
#if BW_SMALL
            bw_fields_decode(ti->fields, ti->nfields, BW_ORDER_BE, frame->data, msg);
#else
            decode_fields(t, frame->data, msg);
#endif
    } else if (BW_BOTH_SIDES && t == BW_RFLEX_SONAR_REPORT) {
        rc = decode_sonar(frame->data, frame->len, msg);
    } else if (BW_BOTH_SIDES && t == BW_RFLEX_IR_REPORT) {
        rc = decode_ir(frame->data, frame->len, msg);
    } else {
        msg->u.unknown.data = frame->data;
    }
    if (rc < 0) {
        /* Reported with its bytes so the caller can show and resend it. */
        memset(&msg->u, 0, sizeof msg->u);
        msg->type = BW_RFLEX_UNKNOWN;
        msg->u.unknown.data = frame->data;
    }
    return rc;
}

/* ---- encoding ------------------------------------------------------------- */

int bw_rflex_data_len(const bw_rflex_msg_t *msg)
{
    if ((unsigned)msg->type >= BW_RFLEX_TYPE_COUNT ||
        (!BW_BOTH_SIDES && msg->type != BW_RFLEX_UNKNOWN && !robot_sends(msg->type)))
        return BW_EINVAL;
    if (types[msg->type].fixed)
        return types[msg->type].wire_len;
    switch (msg->type) {
    case BW_RFLEX_SONAR_REPORT:
        if (msg->u.sonar_report.count > BW_RFLEX_MAX_SONAR)
            return BW_ERANGE;
        return (int)(SONAR_HEAD + SONAR_READING * msg->u.sonar_report.count);
    case BW_RFLEX_IR_REPORT:
        if (msg->u.ir_report.nbytes > BW_RFLEX_MAX_IR_BYTES)
            return BW_ERANGE;
        return (int)(IR_HEAD + msg->u.ir_report.nbytes);
    default: return msg->length;
    }
}

/* Writes the n data bytes of a message whose length bw_rflex_data_len gave. */
static void write_data(uint8_t *w, const bw_rflex_msg_t *msg, size_t n)
{
    const BW_ROM type_info_t *ti = &types[msg->type];
    if (ti->fixed) {
        bw_fields_encode(ti->fields, ti->nfields, BW_ORDER_BE, msg, w);
    } else if (msg->type == BW_RFLEX_SONAR_REPORT) {
        const bw_rflex_sonar_report_t *s = &msg->u.sonar_report;
        bw_fields_encode(f_sonar_head, NFIELDS(f_sonar_head), BW_ORDER_BE, msg, w);
        uint8_t *r = w + SONAR_HEAD;
        for (size_t i = 0; i < s->count; i++, r += SONAR_READING) {
            r[0] = s->readings[i].id;
            bw_put_be16(r + 1, s->readings[i].range);
        }
    } else if (msg->type == BW_RFLEX_IR_REPORT) {
        bw_fields_encode(f_ir_head, NFIELDS(f_ir_head), BW_ORDER_BE, msg, w);
        memcpy(w + IR_HEAD, msg->u.ir_report.bytes, msg->u.ir_report.nbytes);
    } else if (msg->u.unknown.data) {
        /* The data may be the very bytes being written over (a frame
         * re-encoded in place). */
        memmove(w, msg->u.unknown.data, n);
    } else {
        memset(w, 0, n);
    }
}

int bw_rflex_encode_data(uint8_t *buf, size_t cap, const bw_rflex_msg_t *msg)
{
    int n = bw_rflex_data_len(msg);
    if (n < 0)
        return n;
    if ((size_t)n > cap)
        return BW_ENOSPC;
    write_data(buf, msg, (size_t)n);
    return n;
}

/* Header, checksum and trailer around the n data bytes already at buf + 6. */
static int close_frame(uint8_t *buf, uint8_t port, uint8_t id, uint8_t opcode, size_t n)
{
    buf[0] = BW_RFLEX_ESC;
    buf[1] = BW_RFLEX_STX;
    buf[2] = port;
    buf[3] = id;
    buf[4] = opcode;
    buf[5] = (uint8_t)n;
    buf[6 + n] = bw_xor8(buf + 2, n + 4);
    buf[7 + n] = BW_RFLEX_ESC;
    buf[8 + n] = BW_RFLEX_ETX;
    return (int)(n + BW_RFLEX_OVERHEAD);
}

int bw_rflex_encode_frame(uint8_t *buf, size_t cap, const bw_rflex_msg_t *msg)
{
    int n = bw_rflex_data_len(msg);
    if (n < 0)
        return n;
    if ((size_t)n + BW_RFLEX_OVERHEAD > cap)
        return BW_ENOSPC;
    write_data(buf + 6, msg, (size_t)n);
    bool unknown = msg->type == BW_RFLEX_UNKNOWN;
    return close_frame(buf, unknown ? msg->port : types[msg->type].port, msg->id,
                       unknown ? msg->opcode : types[msg->type].opcode, (size_t)n);
}

int bw_rflex_frame_data(uint8_t *buf, size_t cap, uint8_t port, uint8_t id, uint8_t opcode,
                        const uint8_t *data, size_t len)
{
    if (len > BW_RFLEX_MAX_DATA)
        return BW_ERANGE;
    if (len + BW_RFLEX_OVERHEAD > cap)
        return BW_ENOSPC;
    if (len)
        memmove(buf + 6, data, len);
    return close_frame(buf, port, id, opcode, len);
}

void bw_rflex_msg_init(bw_rflex_msg_t *msg, bw_rflex_type_t type)
{
    memset(msg, 0, sizeof *msg);
    const BW_ROM type_info_t *ti = info(type);
    msg->type = (unsigned)type < BW_RFLEX_TYPE_COUNT ? type : BW_RFLEX_UNKNOWN;
    msg->port = ti->port;
    msg->opcode = ti->opcode;
    msg->id = ti->id;
    int n = bw_rflex_data_len(msg);
    msg->length = (uint8_t)(n > 0 ? n : 0);
}

/* ---- helpers -------------------------------------------------------------- */

bw_rflex_mot_set_dir_t bw_rflex_set_dir(uint8_t axis, int32_t velocity, uint32_t acceleration,
                                        uint32_t torque)
{
    bw_rflex_mot_set_dir_t d;
    d.axis = axis;
    /* |INT32_MIN| fits a u32: negate in unsigned arithmetic. */
    d.velocity = velocity < 0 ? 0u - (uint32_t)velocity : (uint32_t)velocity;
    d.acceleration = acceleration;
    d.torque = torque;
    d.direction = velocity < 0 ? BW_RFLEX_DIR_NEGATIVE : BW_RFLEX_DIR_POSITIVE;
    return d;
}

int32_t bw_rflex_set_dir_velocity(const bw_rflex_mot_set_dir_t *d)
{
    if (d->direction == BW_RFLEX_DIR_NEGATIVE)
        return d->velocity >= 0x80000000u ? INT32_MIN : -(int32_t)d->velocity;
    return d->velocity > (uint32_t)INT32_MAX ? INT32_MAX : (int32_t)d->velocity;
}

int bw_rflex_ir_range(const bw_rflex_ir_report_t *r, unsigned bank, unsigned j)
{
    /* Player's data offset 13 b + j + 5, less the count byte before bytes[]. */
    if (bank > BW_RFLEX_MAX_DATA || j > BW_RFLEX_MAX_DATA)
        return -1;
    size_t at = 13u * bank + j + 5u - IR_HEAD;
    return at < r->nbytes ? r->bytes[at] : -1;
}
