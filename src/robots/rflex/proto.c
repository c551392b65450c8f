/* rflex codec: message catalogue, streaming parser, decode and encode. */
#include "botwire/rflex.h"

#include <string.h>

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

static const BW_ROM bw_msgdesc_t d_sys_status_req = EMPTY("sys_status_req");
static const BW_ROM bw_msgdesc_t d_sys_status = DESC("sys_status", f_sys_status, 9);
static const BW_ROM bw_msgdesc_t d_set_dir = DESC("mot_set_dir", f_set_dir, 14);
static const BW_ROM bw_msgdesc_t d_set_defaults = EMPTY("mot_set_defaults");
static const BW_ROM bw_msgdesc_t d_brake_set = EMPTY("mot_brake_set");
static const BW_ROM bw_msgdesc_t d_brake_release = EMPTY("mot_brake_release");
static const BW_ROM bw_msgdesc_t d_system_report = DESC("mot_system_report", f_system_report, 25);
static const BW_ROM bw_msgdesc_t d_report_req = DESC("mot_system_report_req", f_report_req, 8);
static const BW_ROM bw_msgdesc_t d_sonar_run = DESC("sonar_run", f_sonar_run, 13);
static const BW_ROM bw_msgdesc_t d_sonar_head = DESC("sonar_report", f_sonar_head, 8);
static const BW_ROM bw_msgdesc_t d_dio_reports_req = DESC("dio_reports_req", f_dio_reports_req, 4);
static const BW_ROM bw_msgdesc_t d_dio_report = DESC("dio_report", f_dio_report, 7);
static const BW_ROM bw_msgdesc_t d_ir_run = DESC("ir_run", f_ir_run, 21);
static const BW_ROM bw_msgdesc_t d_ir_head = DESC("ir_report", f_ir_head, 1);

#define SONAR_HEAD 8u   /* retval, timestamp */
#define SONAR_READING 3u /* id u8, range u16 */
#define IR_HEAD 1u       /* count */

typedef struct {
    const char *name;
    uint8_t port, opcode, id;
    const BW_ROM bw_msgdesc_t *desc; /* whole data; NULL: variable layout */
    const BW_ROM bw_msgdesc_t *head; /* variable layout: its fixed leading fields */
} type_info_t;

static const BW_ROM type_info_t types[BW_RFLEX_TYPE_COUNT] = {
    [BW_RFLEX_UNKNOWN] = { BW_NAME("unknown"), 0, 0, 0, BW_ROM_NULL, BW_ROM_NULL },
    [BW_RFLEX_SYS_STATUS_REQ] = { BW_NAME("sys_status_req"), BW_RFLEX_PORT_SYS, BW_RFLEX_OP_SYS_STATUS, 0,
                                  &d_sys_status_req, BW_ROM_NULL },
    [BW_RFLEX_SYS_STATUS] = { BW_NAME("sys_status"), BW_RFLEX_PORT_SYS, BW_RFLEX_OP_SYS_STATUS, 0,
                              &d_sys_status, BW_ROM_NULL },
    [BW_RFLEX_MOT_SET_DIR] = { BW_NAME("mot_set_dir"), BW_RFLEX_PORT_MOT, BW_RFLEX_OP_MOT_AXIS_SET_DIR, 0,
                               &d_set_dir, BW_ROM_NULL },
    [BW_RFLEX_MOT_SET_DEFAULTS] = { BW_NAME("mot_set_defaults"), BW_RFLEX_PORT_MOT,
                                    BW_RFLEX_OP_MOT_SET_DEFAULTS, 0, &d_set_defaults, BW_ROM_NULL },
    [BW_RFLEX_MOT_BRAKE_SET] = { BW_NAME("mot_brake_set"), BW_RFLEX_PORT_MOT, BW_RFLEX_OP_MOT_BRAKE_SET, 0,
                                 &d_brake_set, BW_ROM_NULL },
    [BW_RFLEX_MOT_BRAKE_RELEASE] = { BW_NAME("mot_brake_release"), BW_RFLEX_PORT_MOT,
                                     BW_RFLEX_OP_MOT_BRAKE_RELEASE, 0, &d_brake_release, BW_ROM_NULL },
    [BW_RFLEX_MOT_SYSTEM_REPORT] = { BW_NAME("mot_system_report"), BW_RFLEX_PORT_MOT,
                                     BW_RFLEX_OP_MOT_SYSTEM_REPORT, 0, &d_system_report, BW_ROM_NULL },
    [BW_RFLEX_MOT_SYSTEM_REPORT_REQ] = { BW_NAME("mot_system_report_req"), BW_RFLEX_PORT_MOT,
                                         BW_RFLEX_OP_MOT_SYSTEM_REPORT_REQ, 0, &d_report_req,
                                         BW_ROM_NULL },
    [BW_RFLEX_SONAR_RUN] = { BW_NAME("sonar_run"), BW_RFLEX_PORT_SONAR, BW_RFLEX_OP_SONAR_RUN, 4,
                             &d_sonar_run, BW_ROM_NULL },
    [BW_RFLEX_SONAR_REPORT] = { BW_NAME("sonar_report"), BW_RFLEX_PORT_SONAR, BW_RFLEX_OP_SONAR_REPORT, 0,
                                BW_ROM_NULL, &d_sonar_head },
    [BW_RFLEX_DIO_REPORTS_REQ] = { BW_NAME("dio_reports_req"), BW_RFLEX_PORT_DIO,
                                   BW_RFLEX_OP_DIO_REPORTS_REQ, 0, &d_dio_reports_req, BW_ROM_NULL },
    [BW_RFLEX_DIO_REPORT] = { BW_NAME("dio_report"), BW_RFLEX_PORT_DIO, BW_RFLEX_OP_DIO_REPORT, 0,
                              &d_dio_report, BW_ROM_NULL },
    [BW_RFLEX_IR_RUN] = { BW_NAME("ir_run"), BW_RFLEX_PORT_IR, BW_RFLEX_OP_IR_RUN, 0, &d_ir_run, BW_ROM_NULL },
    [BW_RFLEX_IR_REPORT] = { BW_NAME("ir_report"), BW_RFLEX_PORT_IR, BW_RFLEX_OP_IR_REPORT, 0, BW_ROM_NULL,
                             &d_ir_head },
};

static const BW_ROM type_info_t *info(bw_rflex_type_t t)
{
    return (unsigned)t < BW_RFLEX_TYPE_COUNT ? &types[t] : &types[BW_RFLEX_UNKNOWN];
}

const char *bw_rflex_type_name(bw_rflex_type_t type) { return info(type)->name; }
uint8_t bw_rflex_type_port(bw_rflex_type_t type) { return info(type)->port; }
uint8_t bw_rflex_type_opcode(bw_rflex_type_t type) { return info(type)->opcode; }
const BW_ROM bw_msgdesc_t *bw_rflex_desc(bw_rflex_type_t type) { return info(type)->desc; }
const BW_ROM bw_msgdesc_t *bw_rflex_head_desc(bw_rflex_type_t type) { return info(type)->head; }

bw_rflex_type_t bw_rflex_type_from_name(const char *name)
{
    for (unsigned t = 1; t < BW_RFLEX_TYPE_COUNT; t++)
        if (strcmp(types[t].name, name) == 0)
            return (bw_rflex_type_t)t;
    return BW_RFLEX_UNKNOWN;
}

bw_rflex_type_t bw_rflex_type_of(uint8_t port, uint8_t opcode, size_t len)
{
    if (port == BW_RFLEX_PORT_SYS && opcode == BW_RFLEX_OP_SYS_STATUS)
        return len == 0 ? BW_RFLEX_SYS_STATUS_REQ : BW_RFLEX_SYS_STATUS;
    for (unsigned t = 1; t < BW_RFLEX_TYPE_COUNT; t++)
        if (types[t].port == port && types[t].opcode == opcode)
            return (bw_rflex_type_t)t;
    return BW_RFLEX_UNKNOWN;
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
    int rc = bw_framer_parse(p, data, len, &f, &size);
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
    bw_desc_decode(&d_sonar_head, d, msg);
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
    bw_desc_decode(&d_ir_head, d, msg);
    r->nbytes = (uint8_t)(len - IR_HEAD);
    memcpy(r->bytes, d + IR_HEAD, r->nbytes);
    return 0;
}

int bw_rflex_decode(const bw_rflex_frame_t *frame, bw_rflex_msg_t *msg)
{
    memset(msg, 0, sizeof *msg);
    msg->port = frame->port;
    msg->id = frame->id;
    msg->opcode = frame->opcode;
    msg->length = frame->len;
    bw_rflex_type_t t = bw_rflex_type_of(frame->port, frame->opcode, frame->len);
    msg->type = t;
    const BW_ROM bw_msgdesc_t *desc = types[t].desc;
    int rc = 0;
    if (desc) {
        if (frame->len != desc->wire_len)
            rc = BW_ELENGTH;
        else
            bw_desc_decode(desc, frame->data, msg);
    } else if (t == BW_RFLEX_SONAR_REPORT) {
        rc = decode_sonar(frame->data, frame->len, msg);
    } else if (t == BW_RFLEX_IR_REPORT) {
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
    if ((unsigned)msg->type >= BW_RFLEX_TYPE_COUNT)
        return BW_EINVAL;
    const BW_ROM bw_msgdesc_t *desc = types[msg->type].desc;
    if (desc)
        return desc->wire_len;
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
    const BW_ROM bw_msgdesc_t *desc = types[msg->type].desc;
    if (desc) {
        bw_desc_encode(desc, msg, w);
    } else if (msg->type == BW_RFLEX_SONAR_REPORT) {
        const bw_rflex_sonar_report_t *s = &msg->u.sonar_report;
        bw_desc_encode(&d_sonar_head, msg, w);
        uint8_t *r = w + SONAR_HEAD;
        for (size_t i = 0; i < s->count; i++, r += SONAR_READING) {
            r[0] = s->readings[i].id;
            bw_put_be16(r + 1, s->readings[i].range);
        }
    } else if (msg->type == BW_RFLEX_IR_REPORT) {
        bw_desc_encode(&d_ir_head, msg, w);
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
