/* Kobuki codec: message catalogue, streaming parser, decode and encode. */
#include "botwire/kobuki.h"

#include <string.h>

#include "../../core/framer_inline.h"

#define OFF(member) ((uint16_t)offsetof(bw_kobuki_msg_t, u.member))
#define FIELD(name, type, member) { BW_NAME(name), type, 1, OFF(member) }
#define ARRAY(name, type, n, member) { BW_NAME(name), type, n, OFF(member) }
#define PAD(n) { BW_NAME("unused"), BW_FT_PAD, n, 0 }
#define DESC(name, fields, len) { BW_NAME(name), fields, (uint8_t)(sizeof fields / sizeof fields[0]), len, BW_ORDER_LE }

static const BW_ROM bw_field_t f_base_control[] = {
    FIELD("speed", BW_FT_I16, base_control.speed),
    FIELD("radius", BW_FT_I16, base_control.radius),
};
static const BW_ROM bw_field_t f_sound[] = {
    FIELD("note", BW_FT_U16, sound.note),
    FIELD("duration", BW_FT_U8, sound.duration),
};
static const BW_ROM bw_field_t f_sound_sequence[] = {
    FIELD("sequence", BW_FT_U8, sound_sequence.sequence),
};
static const BW_ROM bw_field_t f_request_extra[] = {
    FIELD("flags", BW_FT_U16, request_extra.flags),
};
static const BW_ROM bw_field_t f_gp_output[] = {
    FIELD("flags", BW_FT_U16, general_purpose_output.flags),
};
static const BW_ROM bw_field_t f_set_gain[] = {
    FIELD("gain_type", BW_FT_U8, set_controller_gain.gain_type),
    FIELD("p_gain", BW_FT_U32, set_controller_gain.p_gain),
    FIELD("i_gain", BW_FT_U32, set_controller_gain.i_gain),
    FIELD("d_gain", BW_FT_U32, set_controller_gain.d_gain),
};
static const BW_ROM bw_field_t f_get_gain[] = {
    PAD(1),
};
static const BW_ROM bw_field_t f_basic[] = {
    FIELD("timestamp", BW_FT_U16, basic_sensor_data.timestamp),
    FIELD("bumper", BW_FT_U8, basic_sensor_data.bumper),
    FIELD("wheel_drop", BW_FT_U8, basic_sensor_data.wheel_drop),
    FIELD("cliff", BW_FT_U8, basic_sensor_data.cliff),
    FIELD("left_encoder", BW_FT_U16, basic_sensor_data.left_encoder),
    FIELD("right_encoder", BW_FT_U16, basic_sensor_data.right_encoder),
    FIELD("left_pwm", BW_FT_I8, basic_sensor_data.left_pwm),
    FIELD("right_pwm", BW_FT_I8, basic_sensor_data.right_pwm),
    FIELD("button", BW_FT_U8, basic_sensor_data.button),
    FIELD("charger", BW_FT_U8, basic_sensor_data.charger),
    FIELD("battery", BW_FT_U8, basic_sensor_data.battery),
    FIELD("overcurrent", BW_FT_U8, basic_sensor_data.overcurrent),
};
static const BW_ROM bw_field_t f_docking_ir[] = {
    FIELD("right", BW_FT_U8, docking_ir.right),
    FIELD("central", BW_FT_U8, docking_ir.central),
    FIELD("left", BW_FT_U8, docking_ir.left),
};
static const BW_ROM bw_field_t f_inertial[] = {
    FIELD("angle", BW_FT_I16, inertial_sensor.angle),
    FIELD("angle_rate", BW_FT_I16, inertial_sensor.angle_rate),
    PAD(3),
};
static const BW_ROM bw_field_t f_cliff[] = {
    FIELD("right", BW_FT_U16, cliff.right),
    FIELD("central", BW_FT_U16, cliff.central),
    FIELD("left", BW_FT_U16, cliff.left),
};
static const BW_ROM bw_field_t f_current[] = {
    FIELD("left", BW_FT_U8, current.left),
    FIELD("right", BW_FT_U8, current.right),
};
static const BW_ROM bw_field_t f_gpi[] = {
    FIELD("digital_input", BW_FT_U16, general_purpose_input.digital_input),
    ARRAY("analog", BW_FT_U16, 4, general_purpose_input.analog),
    PAD(6),
};
static const BW_ROM bw_field_t f_udid[] = {
    FIELD("udid0", BW_FT_U32, unique_device_id.udid0),
    FIELD("udid1", BW_FT_U32, unique_device_id.udid1),
    FIELD("udid2", BW_FT_U32, unique_device_id.udid2),
};
static const BW_ROM bw_field_t f_controller_info[] = {
    FIELD("gain_type", BW_FT_U8, controller_info.gain_type),
    FIELD("p_gain", BW_FT_U32, controller_info.p_gain),
    FIELD("i_gain", BW_FT_U32, controller_info.i_gain),
    FIELD("d_gain", BW_FT_U32, controller_info.d_gain),
};

/*
 * Every type: F(type, name, direction, identifier, fields, wire bytes) for
 * a fixed layout, V(type, name, direction, identifier value) for one coded by
 * hand (a variable layout). From this one list come the field tables of
 * the catalogue (bw_kobuki_desc) and the codec's own type table.
 */
#define KOBUKI_TYPES(F, V)                                                                    \
    V(UNKNOWN, "unknown", FROM_HOST, 0)                                                       \
    F(BASE_CONTROL, "base_control", FROM_HOST, CMD_BASE_CONTROL, f_base_control, 4)           \
    F(SOUND, "sound", FROM_HOST, CMD_SOUND, f_sound, 3)                                       \
    F(SOUND_SEQUENCE, "sound_sequence", FROM_HOST, CMD_SOUND_SEQUENCE, f_sound_sequence, 1)   \
    F(REQUEST_EXTRA, "request_extra", FROM_HOST, CMD_REQUEST_EXTRA, f_request_extra, 2)       \
    F(GENERAL_PURPOSE_OUTPUT, "general_purpose_output", FROM_HOST,                            \
      CMD_GENERAL_PURPOSE_OUTPUT, f_gp_output, 2)                                             \
    F(SET_CONTROLLER_GAIN, "set_controller_gain", FROM_HOST, CMD_SET_CONTROLLER_GAIN,         \
      f_set_gain, 13)                                                                         \
    F(GET_CONTROLLER_GAIN, "get_controller_gain", FROM_HOST, CMD_GET_CONTROLLER_GAIN,         \
      f_get_gain, 1)                                                                          \
    F(BASIC_SENSOR_DATA, "basic_sensor_data", FROM_ROBOT, FB_BASIC_SENSOR_DATA, f_basic, 15)  \
    F(DOCKING_IR, "docking_ir", FROM_ROBOT, FB_DOCKING_IR, f_docking_ir, 3)                   \
    F(INERTIAL_SENSOR, "inertial_sensor", FROM_ROBOT, FB_INERTIAL_SENSOR, f_inertial, 7)      \
    F(CLIFF, "cliff", FROM_ROBOT, FB_CLIFF, f_cliff, 6)                                       \
    F(CURRENT, "current", FROM_ROBOT, FB_CURRENT, f_current, 2)                               \
    V(HARDWARE_VERSION, "hardware_version", FROM_ROBOT, BW_KOBUKI_FB_HARDWARE_VERSION)        \
    V(FIRMWARE_VERSION, "firmware_version", FROM_ROBOT, BW_KOBUKI_FB_FIRMWARE_VERSION)        \
    V(RAW_GYRO, "raw_gyro", FROM_ROBOT, BW_KOBUKI_FB_RAW_GYRO)                                \
    F(GENERAL_PURPOSE_INPUT, "general_purpose_input", FROM_ROBOT, FB_GENERAL_PURPOSE_INPUT,   \
      f_gpi, 16)                                                                              \
    F(UNIQUE_DEVICE_ID, "unique_device_id", FROM_ROBOT, FB_UNIQUE_DEVICE_ID, f_udid, 12)      \
    F(CONTROLLER_INFO, "controller_info", FROM_ROBOT, FB_CONTROLLER_INFO, f_controller_info, 13)

#define NFIELDS(fields) ((uint8_t)(sizeof fields / sizeof fields[0]))
#define NO_DESC(t, name, dir, id)

/* The catalogue's field tables: for tools (a firmware does not link them). */
#define MAKE_DESC(t, name, dir, id, fields, len) \
    static const BW_ROM bw_msgdesc_t d_##t = DESC(name, fields, len);
KOBUKI_TYPES(MAKE_DESC, NO_DESC)

#define DESC_PTR(t, name, dir, id, fields, len) [BW_KOBUKI_##t] = &d_##t,
static const BW_ROM bw_msgdesc_t *const BW_ROM descs[BW_KOBUKI_TYPE_COUNT] = {
    KOBUKI_TYPES(DESC_PTR, NO_DESC)
};

/* The codec's type table: what it codes each type with. */
typedef struct {
#ifndef BW_NO_NAMES
    const char *name;
#endif
    uint8_t dir;
    uint8_t id;
    uint8_t wire_len; /* a fixed layout's bytes */
    uint8_t nfields;
    const BW_ROM bw_field_t *fields; /* NULL: a variable layout, coded by hand */
} type_info_t;

#ifdef BW_NO_NAMES
#define TYPE_NAME(name)
#else
#define TYPE_NAME(name) name,
#endif
#define FIXED_TYPE(t, name, dir, id, fields, len) \
    [BW_KOBUKI_##t] = { TYPE_NAME(name) BW_KOBUKI_##dir, BW_KOBUKI_##id, len, NFIELDS(fields), fields },
#define VAR_TYPE(t, name, dir, id) [BW_KOBUKI_##t] = { TYPE_NAME(name) BW_KOBUKI_##dir, id, 0, 0, BW_ROM_NULL },

static const BW_ROM type_info_t types[BW_KOBUKI_TYPE_COUNT] = {
    KOBUKI_TYPES(FIXED_TYPE, VAR_TYPE)
};

#if !BW_SMALL
/* Identifier -> type, per direction; 0 (BW_KOBUKI_UNKNOWN) where undefined.
 * A unit test checks it against `types` entry by entry. (The small build
 * looks through `types` instead.) */
static const BW_ROM uint8_t type_by_id[2][22] = {
    [BW_KOBUKI_FROM_HOST] = {
        [BW_KOBUKI_CMD_BASE_CONTROL] = BW_KOBUKI_BASE_CONTROL,
        [BW_KOBUKI_CMD_SOUND] = BW_KOBUKI_SOUND,
        [BW_KOBUKI_CMD_SOUND_SEQUENCE] = BW_KOBUKI_SOUND_SEQUENCE,
        [BW_KOBUKI_CMD_REQUEST_EXTRA] = BW_KOBUKI_REQUEST_EXTRA,
        [BW_KOBUKI_CMD_GENERAL_PURPOSE_OUTPUT] = BW_KOBUKI_GENERAL_PURPOSE_OUTPUT,
        [BW_KOBUKI_CMD_SET_CONTROLLER_GAIN] = BW_KOBUKI_SET_CONTROLLER_GAIN,
        [BW_KOBUKI_CMD_GET_CONTROLLER_GAIN] = BW_KOBUKI_GET_CONTROLLER_GAIN,
    },
    [BW_KOBUKI_FROM_ROBOT] = {
        [BW_KOBUKI_FB_BASIC_SENSOR_DATA] = BW_KOBUKI_BASIC_SENSOR_DATA,
        [BW_KOBUKI_FB_DOCKING_IR] = BW_KOBUKI_DOCKING_IR,
        [BW_KOBUKI_FB_INERTIAL_SENSOR] = BW_KOBUKI_INERTIAL_SENSOR,
        [BW_KOBUKI_FB_CLIFF] = BW_KOBUKI_CLIFF,
        [BW_KOBUKI_FB_CURRENT] = BW_KOBUKI_CURRENT,
        [BW_KOBUKI_FB_HARDWARE_VERSION] = BW_KOBUKI_HARDWARE_VERSION,
        [BW_KOBUKI_FB_FIRMWARE_VERSION] = BW_KOBUKI_FIRMWARE_VERSION,
        [BW_KOBUKI_FB_RAW_GYRO] = BW_KOBUKI_RAW_GYRO,
        [BW_KOBUKI_FB_GENERAL_PURPOSE_INPUT] = BW_KOBUKI_GENERAL_PURPOSE_INPUT,
        [BW_KOBUKI_FB_UNIQUE_DEVICE_ID] = BW_KOBUKI_UNIQUE_DEVICE_ID,
        [BW_KOBUKI_FB_CONTROLLER_INFO] = BW_KOBUKI_CONTROLLER_INFO,
    },
};
#endif

static const BW_ROM type_info_t *info(bw_kobuki_type_t t)
{
    return (unsigned)t < BW_KOBUKI_TYPE_COUNT ? &types[t] : &types[BW_KOBUKI_UNKNOWN];
}

const char *bw_kobuki_type_name(bw_kobuki_type_t type)
{
#ifdef BW_NO_NAMES
    (void)type;
    return "unknown";
#else
    return info(type)->name;
#endif
}
bw_kobuki_dir_t bw_kobuki_type_dir(bw_kobuki_type_t type) { return (bw_kobuki_dir_t)info(type)->dir; }
uint8_t bw_kobuki_type_id(bw_kobuki_type_t type) { return info(type)->id; }
const BW_ROM bw_msgdesc_t *bw_kobuki_desc(bw_kobuki_type_t type)
{
    return (unsigned)type < BW_KOBUKI_TYPE_COUNT ? descs[type] : BW_ROM_NULL;
}

bw_kobuki_type_t bw_kobuki_type_from_name(const char *name)
{
#ifdef BW_NO_NAMES
    (void)name;
    return BW_KOBUKI_UNKNOWN;
#else
    for (unsigned t = 1; t < BW_KOBUKI_TYPE_COUNT; t++)
        if (strcmp(types[t].name, name) == 0)
            return (bw_kobuki_type_t)t;
    return BW_KOBUKI_UNKNOWN;
#endif
}

static BW_HOT_INLINE bw_kobuki_type_t type_of(bw_kobuki_dir_t dir, uint8_t id)
{
#if BW_SMALL
    for (unsigned t = 1; t < BW_KOBUKI_TYPE_COUNT; t++)
        if (types[t].dir == dir && types[t].id == id)
            return (bw_kobuki_type_t)t;
    return BW_KOBUKI_UNKNOWN;
#else
    if (id >= sizeof type_by_id[0] || (unsigned)dir > 1)
        return BW_KOBUKI_UNKNOWN;
    return (bw_kobuki_type_t)type_by_id[dir][id];
#endif
}

bw_kobuki_type_t bw_kobuki_type_of(bw_kobuki_dir_t dir, uint8_t id) { return type_of(dir, id); }

void bw_kobuki_msg_init(bw_kobuki_msg_t *msg, bw_kobuki_type_t type)
{
    memset(msg, 0, sizeof *msg);
    msg->type = type;
    msg->id = bw_kobuki_type_id(type);
    int size = bw_kobuki_sub_size(msg);
    msg->length = size > 2 ? (uint8_t)(size - 2) : 0;
}

/* ---- framing -------------------------------------------------------------- */

/* CS is the XOR of LEN and the payload, so the XOR of LEN..CS is zero. */
static bool kobuki_check(const uint8_t *frame, size_t size)
{
    return bw_xor8(frame + 2, size - 2) == 0;
}

static const bw_framing_t kobuki_framing = {
    .header = { BW_KOBUKI_HEADER0, BW_KOBUKI_HEADER1 },
    .len_at = 2,
    .len_min = BW_KOBUKI_MIN_PAYLOAD,
    .len_max = BW_KOBUKI_MAX_PAYLOAD,
    .overhead = 4,
    .check = kobuki_check,
};

const bw_framing_t *bw_kobuki_framing(void) { return &kobuki_framing; }

void bw_kobuki_parser_init(bw_kobuki_parser_t *p) { bw_framer_init(p, &kobuki_framing); }

static int payload_of(int rc, const uint8_t *f, size_t size, bw_kobuki_frame_t *frame)
{
    if (rc == 1) {
        frame->payload = f + 3;
        frame->len = (uint8_t)(size - 4);
    }
    return rc;
}

int bw_kobuki_parse(bw_kobuki_parser_t *p, const uint8_t **data, size_t *len,
                    bw_kobuki_frame_t *frame)
{
    const uint8_t *f = NULL;
    size_t size = 0;
    int rc = bw_framer_parse_as(p, &kobuki_framing, data, len, &f, &size);
    return payload_of(rc, f, size, frame);
}

int bw_kobuki_parser_finish(bw_kobuki_parser_t *p, bw_kobuki_frame_t *frame)
{
    const uint8_t *f = NULL;
    size_t size = 0;
    int rc = bw_framer_finish(p, &f, &size);
    return payload_of(rc, f, size, frame);
}

/* ---- decoding ------------------------------------------------------------ */

static int decode_version(const uint8_t *data, size_t len, bw_kobuki_version_t *v)
{
    if (len == 4) {
        v->patch = data[0];
        v->minor = data[1];
        v->major = data[2];
        v->legacy = false;
        return 0;
    }
    if (len == 2) {
        *v = bw_kobuki_version_from_legacy(bw_get_le16(data));
        return 0;
    }
    return BW_ELENGTH;
}

static int decode_gyro(const uint8_t *data, size_t len, bw_kobuki_raw_gyro_t *g)
{
    /* "Followed data length" counts 16-bit words (3 per sample) and must agree
     * with the sub-payload length; it is never used to size anything. */
    if (len < 2 || (len - 2) % 6 != 0)
        return BW_ELENGTH;
    size_t n = (len - 2) / 6;
    if (n > BW_KOBUKI_GYRO_MAX_SAMPLES || data[1] != 3 * n)
        return BW_ELENGTH;
    g->frame_id = data[0];
    g->count = (uint8_t)n;
    const uint8_t *s = data + 2;
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < 3; a++, s += 2)
            g->samples[i][a] = (int16_t)bw_get_le16(s);
    return 0;
}

#if !BW_SMALL
/* A fixed layout's fields by code of each type's own, which the compiler
 * makes from its table (walking the table at run time, as the small build
 * does, was most of what a host spent decoding). */
#define DECODE_FIXED(T, name, dir, id, fields, len) \
    case BW_KOBUKI_##T: bw_fields_decode_inline(fields, NFIELDS(fields), BW_ORDER_LE, data, msg); break;
#define ENCODE_FIXED(T, name, dir, id, fields, len) \
    case BW_KOBUKI_##T: bw_fields_encode_inline(fields, NFIELDS(fields), BW_ORDER_LE, msg, data); break;

static BW_HOT_INLINE void decode_fields(bw_kobuki_type_t t, const uint8_t *data,
                                        bw_kobuki_msg_t *msg)
{
    switch (t) {
        KOBUKI_TYPES(DECODE_FIXED, NO_DESC)
    default: break;
    }
}

static void encode_fields(bw_kobuki_type_t t, const bw_kobuki_msg_t *msg, uint8_t *data)
{
    switch (t) {
        KOBUKI_TYPES(ENCODE_FIXED, NO_DESC)
    default: break;
    }
}
#endif

/* bw_kobuki_decode, inline in the iterator: once per sub-payload. */
static BW_HOT_INLINE int decode(bw_kobuki_dir_t dir, uint8_t id, const uint8_t *data, size_t len,
                                bw_kobuki_msg_t *msg)
{
    bw_kobuki_type_t t = type_of(dir, id);
    if (!BW_BOTH_SIDES && dir != BW_KOBUKI_FROM_HOST)
        t = BW_KOBUKI_UNKNOWN; /* a robot does not read feedback */
    /* A sound sequence the seed does not number (it has 0..6) is no message
     * of the protocol: unknown, its bytes kept, as an unknown identifier
     * is, so that whatever decodes encodes again. (Not in a firmware build:
     * the check cost 80 bytes of an ATmega168's 2 KB budget; the
     * firmware's program sees the number and has no such sound.) */
    if (BW_BOTH_SIDES && t == BW_KOBUKI_SOUND_SEQUENCE && len == 1 &&
        data[0] > BW_KOBUKI_SOUND_CLEANING_END)
        t = BW_KOBUKI_UNKNOWN;
    msg->type = t;
    msg->id = id;
    msg->length = (uint8_t)len;
    const BW_ROM type_info_t *ti = &types[t];
    int rc = 0;
    if (ti->fields) {
        if (len != ti->wire_len)
            rc = BW_ELENGTH;
        else
#if BW_SMALL
            bw_fields_decode(ti->fields, ti->nfields, BW_ORDER_LE, data, msg);
#else
            decode_fields(t, data, msg);
#endif
    } else if (BW_BOTH_SIDES && t == BW_KOBUKI_HARDWARE_VERSION) {
        rc = decode_version(data, len, &msg->u.hardware_version);
    } else if (BW_BOTH_SIDES && t == BW_KOBUKI_FIRMWARE_VERSION) {
        rc = decode_version(data, len, &msg->u.firmware_version);
    } else if (BW_BOTH_SIDES && t == BW_KOBUKI_RAW_GYRO) {
        rc = decode_gyro(data, len, &msg->u.raw_gyro);
    } else {
        msg->u.unknown.data = data;
    }
    if (rc < 0) {
        /* Reported as an unknown-layout sub-payload so the caller can show it. */
        msg->type = BW_KOBUKI_UNKNOWN;
        msg->u.unknown.data = data;
    }
    return rc;
}

int bw_kobuki_decode(bw_kobuki_dir_t dir, uint8_t id, const uint8_t *data, size_t len,
                     bw_kobuki_msg_t *msg)
{
    return decode(dir, id, data, len, msg);
}

void bw_kobuki_iter_init(bw_kobuki_iter_t *it, const bw_kobuki_frame_t *frame,
                         bw_kobuki_dir_t dir, bw_parse_stats_t *stats)
{
    it->payload = frame->payload;
    it->len = frame->len;
    it->off = 0;
    it->dir = dir;
    it->stats = stats;
}

int bw_kobuki_iter_next(bw_kobuki_iter_t *it, bw_kobuki_msg_t *msg)
{
    if (it->off >= it->len)
        return 0;
    size_t left = it->len - it->off;
    const uint8_t *sub = it->payload + it->off;
    if (left < 2 || (size_t)sub[1] > left - 2) {
        it->off = it->len;
        if (it->stats)
            BW_COUNT(it->stats->length_errors);
        memset(msg, 0, sizeof *msg);
        msg->type = BW_KOBUKI_UNKNOWN;
        msg->id = sub[0];
        msg->length = (uint8_t)left;
        msg->u.unknown.data = sub;
        return BW_ETRUNC;
    }
    it->off += 2 + (size_t)sub[1];
    int rc = decode(it->dir, sub[0], sub + 2, sub[1], msg);
    if (rc < 0) {
        if (it->stats)
            BW_COUNT(it->stats->length_errors);
        return rc;
    }
    if (msg->type == BW_KOBUKI_UNKNOWN && it->stats)
        BW_COUNT(it->stats->unknown);
    return 1;
}

/* ---- encoding ------------------------------------------------------------ */

static int version_data_len(const bw_kobuki_version_t *v)
{
    if (!v->legacy)
        return (v->major | v->minor | v->patch) > 255 ? BW_ERANGE : 4;
    /* major * 100 + minor * 10 + patch must fit 16 bits, 65535 at most: told
     * without a product that a 16-bit int would wrap. */
    return v->major > 655 || v->minor > 9 || v->patch > 9 ||
                   (v->major == 655 && v->minor * 10u + v->patch > 35)
               ? BW_ERANGE
               : 2;
}

static int data_len(const bw_kobuki_msg_t *msg)
{
    if ((unsigned)msg->type >= BW_KOBUKI_TYPE_COUNT)
        return BW_EINVAL;
    /* The seed numbers the sequences 0 (ON) to 6 (CLEANINGEND); a byte has
     * room for more, the robot has no more. (A firmware build encodes
     * feedback only: it is spared the check.) */
    if (BW_BOTH_SIDES && msg->type == BW_KOBUKI_SOUND_SEQUENCE &&
        msg->u.sound_sequence.sequence > BW_KOBUKI_SOUND_CLEANING_END)
        return BW_ERANGE;
    if (types[msg->type].fields)
        return types[msg->type].wire_len;
    switch (msg->type) {
    case BW_KOBUKI_HARDWARE_VERSION: return version_data_len(&msg->u.hardware_version);
    case BW_KOBUKI_FIRMWARE_VERSION: return version_data_len(&msg->u.firmware_version);
    case BW_KOBUKI_RAW_GYRO:
        if (msg->u.raw_gyro.count > BW_KOBUKI_GYRO_MAX_SAMPLES)
            return BW_ERANGE;
        return 2 + 6 * msg->u.raw_gyro.count;
    default: return msg->length;
    }
}

int bw_kobuki_sub_size(const bw_kobuki_msg_t *msg)
{
    int n = data_len(msg);
    return n < 0 ? n : n + 2;
}

static void encode_version(uint8_t *d, const bw_kobuki_version_t *v)
{
    if (v->legacy) {
        bw_put_le16(d, (uint16_t)(v->major * 100u + v->minor * 10u + v->patch));
    } else {
        d[0] = (uint8_t)v->patch;
        d[1] = (uint8_t)v->minor;
        d[2] = (uint8_t)v->major;
        d[3] = 0;
    }
}

int bw_kobuki_encode_sub(uint8_t *buf, size_t cap, const bw_kobuki_msg_t *msg)
{
    int n = data_len(msg);
    if (n < 0)
        return n;
    if ((size_t)n + 2 > cap)
        return BW_ENOSPC;
    uint8_t *d = buf + 2;
    buf[0] = msg->type == BW_KOBUKI_UNKNOWN ? msg->id : types[msg->type].id;
    buf[1] = (uint8_t)n;
    const BW_ROM type_info_t *ti = &types[msg->type];
    if (ti->fields) {
#if BW_SMALL
        bw_fields_encode(ti->fields, ti->nfields, BW_ORDER_LE, msg, d);
#else
        encode_fields(msg->type, msg, d);
#endif
    } else if (msg->type == BW_KOBUKI_HARDWARE_VERSION) {
        encode_version(d, &msg->u.hardware_version);
    } else if (msg->type == BW_KOBUKI_FIRMWARE_VERSION) {
        encode_version(d, &msg->u.firmware_version);
    } else if (msg->type == BW_KOBUKI_RAW_GYRO) {
        const bw_kobuki_raw_gyro_t *g = &msg->u.raw_gyro;
        d[0] = g->frame_id;
        d[1] = (uint8_t)(3 * g->count);
        d += 2;
        for (size_t i = 0; i < g->count; i++)
            for (size_t a = 0; a < 3; a++, d += 2)
                bw_put_le16(d, (uint16_t)g->samples[i][a]);
    } else if (msg->u.unknown.data) {
        memcpy(d, msg->u.unknown.data, (size_t)n);
    } else {
        memset(d, 0, (size_t)n);
    }
    return n + 2;
}

void bw_kobuki_writer_init(bw_kobuki_writer_t *w, uint8_t *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->len = 3;
    w->err = cap < 4 ? BW_ENOSPC : 0;
}

int bw_kobuki_writer_add(bw_kobuki_writer_t *w, const bw_kobuki_msg_t *msg)
{
    if (w->err)
        return w->err;
    /* The room left is the buffer's or the payload limit's, the smaller. */
    size_t room = w->cap - w->len, limit = BW_KOBUKI_MAX_PAYLOAD - (w->len - 3);
    int n = bw_kobuki_encode_sub(w->buf + w->len, room < limit ? room : limit, msg);
    if (n < 0)
        return w->err = n;
    w->len += (size_t)n;
    return 0;
}

int bw_kobuki_writer_add_raw(bw_kobuki_writer_t *w, const uint8_t *bytes, size_t n)
{
    if (w->err)
        return w->err;
    if (w->len - 3 + n > BW_KOBUKI_MAX_PAYLOAD || w->len + n > w->cap)
        return w->err = BW_ENOSPC;
    if (n)
        memmove(w->buf + w->len, bytes, n);
    w->len += n;
    return 0;
}

int bw_kobuki_writer_finish(bw_kobuki_writer_t *w)
{
    if (w->err)
        return w->err;
    size_t plen = w->len - 3;
    if (plen < BW_KOBUKI_MIN_PAYLOAD)
        return w->err = BW_ELENGTH;
    if (w->len + 1 > w->cap)
        return w->err = BW_ENOSPC;
    w->buf[0] = BW_KOBUKI_HEADER0;
    w->buf[1] = BW_KOBUKI_HEADER1;
    w->buf[2] = (uint8_t)plen;
    w->buf[w->len] = bw_xor8(w->buf + 2, plen + 1);
    return (int)(w->len + 1);
}

int bw_kobuki_encode_frame(uint8_t *buf, size_t cap, const bw_kobuki_msg_t *msgs, size_t n)
{
    bw_kobuki_writer_t w;
    bw_kobuki_writer_init(&w, buf, cap);
    for (size_t i = 0; i < n; i++)
        bw_kobuki_writer_add(&w, &msgs[i]);
    return bw_kobuki_writer_finish(&w);
}
