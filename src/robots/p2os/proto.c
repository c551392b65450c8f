/* P2OS codec: command catalogue, streaming parser, decode and encode. */
#include "botwire/p2os.h"

#include <string.h>

#include "../../core/framer_inline.h"

#define OFF(member) ((uint16_t)offsetof(bw_p2os_msg_t, u.member))
#define FIELD(name, type, member) { BW_NAME(name), type, 1, OFF(member) }
#define NFIELDS(fields) ((uint8_t)(sizeof fields / sizeof fields[0]))
#define DESC(name, fields, len) { BW_NAME(name), fields, (uint8_t)(sizeof fields / sizeof fields[0]), len, BW_ORDER_LE }

/* ---- field tables --------------------------------------------------------- */

/* SIP body[1..18]: xpos to compass. */
static const BW_ROM bw_field_t f_sip[] = {
    FIELD("xpos", BW_FT_U16, sip.xpos),
    FIELD("ypos", BW_FT_U16, sip.ypos),
    FIELD("thpos", BW_FT_I16, sip.thpos),
    FIELD("lvel", BW_FT_I16, sip.lvel),
    FIELD("rvel", BW_FT_I16, sip.rvel),
    FIELD("battery", BW_FT_U8, sip.battery),
    FIELD("stall_bump", BW_FT_U16, sip.stall_bump),
    FIELD("control", BW_FT_I16, sip.control),
    FIELD("flags", BW_FT_U16, sip.flags),
    FIELD("compass", BW_FT_U8, sip.compass),
};
static const BW_ROM bw_field_t f_sip_trailing[] = {
    FIELD("timer", BW_FT_U16, sip.timer),
    FIELD("analog", BW_FT_U8, sip.analog),
    FIELD("digin", BW_FT_U8, sip.digin),
    FIELD("digout", BW_FT_U8, sip.digout),
};
static const BW_ROM bw_field_t f_config_head[] = {
    FIELD("four_mots", BW_FT_U8, config.four_mots),
    FIELD("rot_vel_top", BW_FT_U16, config.rot_vel_top),
    FIELD("trans_vel_top", BW_FT_U16, config.trans_vel_top),
    FIELD("rot_accel_top", BW_FT_U16, config.rot_accel_top),
    FIELD("trans_accel_top", BW_FT_U16, config.trans_accel_top),
    FIELD("pwm_max", BW_FT_U16, config.pwm_max),
};
static const BW_ROM bw_field_t f_config_tail[] = {
    FIELD("sip_cycle", BW_FT_U8, config.sip_cycle),
    FIELD("host_baud", BW_FT_U8, config.host_baud),
    FIELD("aux_baud", BW_FT_U8, config.aux_baud),
    FIELD("gripper", BW_FT_U16, config.gripper),
    FIELD("front_sonar", BW_FT_U16, config.front_sonar),
    FIELD("rear_sonar", BW_FT_U8, config.rear_sonar),
    FIELD("low_battery", BW_FT_U16, config.low_battery),
    FIELD("rev_count", BW_FT_U16, config.rev_count),
    FIELD("watchdog", BW_FT_U16, config.watchdog),
    FIELD("p2mpacs", BW_FT_U8, config.p2mpacs),
    FIELD("stall_val", BW_FT_U16, config.stall_val),
    FIELD("stall_count", BW_FT_U16, config.stall_count),
    FIELD("joy_vel", BW_FT_U16, config.joy_vel),
    FIELD("joy_rvel", BW_FT_U16, config.joy_rvel),
    FIELD("rot_vel_max", BW_FT_U16, config.rot_vel_max),
    FIELD("trans_vel_max", BW_FT_U16, config.trans_vel_max),
    FIELD("rot_accel", BW_FT_U16, config.rot_accel),
    FIELD("rot_decel", BW_FT_U16, config.rot_decel),
    FIELD("rot_kp", BW_FT_U16, config.rot_kp),
    FIELD("rot_kv", BW_FT_U16, config.rot_kv),
    FIELD("rot_ki", BW_FT_U16, config.rot_ki),
    FIELD("trans_accel", BW_FT_U16, config.trans_accel),
    FIELD("trans_decel", BW_FT_U16, config.trans_decel),
    FIELD("trans_kp", BW_FT_U16, config.trans_kp),
    FIELD("trans_kv", BW_FT_U16, config.trans_kv),
    FIELD("trans_ki", BW_FT_U16, config.trans_ki),
    FIELD("front_bumps", BW_FT_U8, config.front_bumps),
    FIELD("rear_bumps", BW_FT_U8, config.rear_bumps),
    FIELD("charger", BW_FT_U8, config.charger),
    FIELD("sonar_cycle", BW_FT_U8, config.sonar_cycle),
    FIELD("reset_baud", BW_FT_U8, config.reset_baud),
    FIELD("gyro_type", BW_FT_U8, config.gyro_type),
    FIELD("drift_factor", BW_FT_I16, config.drift_factor),
    FIELD("aux2_baud", BW_FT_U8, config.aux2_baud),
    FIELD("aux3_baud", BW_FT_U8, config.aux3_baud),
    FIELD("ticks_mm", BW_FT_U16, config.ticks_mm),
    FIELD("shutdown_voltage", BW_FT_U16, config.shutdown_voltage),
};

static const BW_ROM bw_field_t f_simstat[] = {
    FIELD("flags", BW_FT_U32, simstat.flags),
    FIELD("sim_interval", BW_FT_U16, simstat.sim_interval),
    FIELD("real_interval", BW_FT_U16, simstat.real_interval),
    FIELD("last_interval", BW_FT_U16, simstat.last_interval),
    FIELD("true_x", BW_FT_I32, simstat.true_x),
    FIELD("true_y", BW_FT_I32, simstat.true_y),
    FIELD("true_z", BW_FT_I32, simstat.true_z),
    FIELD("true_th", BW_FT_I32, simstat.true_th),
    FIELD("latitude", BW_FT_I32, simstat.latitude),
    FIELD("longitude", BW_FT_I32, simstat.longitude),
    FIELD("altitude", BW_FT_I32, simstat.altitude),
    FIELD("gps_dop", BW_FT_I32, simstat.gps_dop),
    FIELD("odom_err_x", BW_FT_I32, simstat.odom_err_x),
    FIELD("odom_err_y", BW_FT_I32, simstat.odom_err_y),
    FIELD("odom_err_th", BW_FT_I32, simstat.odom_err_th),
};

static const BW_ROM bw_msgdesc_t d_sip = DESC("sip", f_sip, 18);
#define SIP_TRAILING 5u
static const BW_ROM bw_msgdesc_t d_sip_trailing = DESC("sip_trailing", f_sip_trailing, SIP_TRAILING);
static const BW_ROM bw_msgdesc_t d_config_head = DESC("config_head", f_config_head, 11);
static const BW_ROM bw_msgdesc_t d_config_tail = DESC("config_tail", f_config_tail, 61);
static const BW_ROM bw_msgdesc_t d_simstat = DESC("simstat", f_simstat, 54);

/* Body bytes of a SIP before the sonar readings: type, d_sip, count. */
#define SIP_FIXED 20u
/* Body bytes of a command's argument header: cmd, type, (length | u16). */
#define STR_HEAD 3u
#define MAX_STR_ARG (BW_P2OS_MAX_BODY - STR_HEAD)

const BW_ROM bw_msgdesc_t *bw_p2os_config_head_desc(void) { return &d_config_head; }
const BW_ROM bw_msgdesc_t *bw_p2os_config_tail_desc(void) { return &d_config_tail; }
const BW_ROM bw_msgdesc_t *bw_p2os_simstat_desc(void) { return &d_simstat; }

/* Wire bytes of the first k fields of a table and nextra bytes after them,
 * or BW_ERANGE for more fields than it has, or BW_EINVAL for extra bytes
 * that could hold field k: decoding would read them back as it. */
static int prefix_extra_len(const BW_ROM bw_msgdesc_t *d, size_t k, size_t nextra)
{
    if (k > d->nfields)
        return BW_ERANGE;
    size_t len = 0;
    for (size_t i = 0; i <= k && i < d->nfields; i++) {
        size_t n = bw_ftype_size((bw_ftype_t)d->fields[i].type) * d->fields[i].count;
        if (i < k)
            len += n;
        else if (nextra && nextra >= n)
            return BW_EINVAL;
    }
    return (int)(len + nextra);
}

/* Decodes as many whole fields of d as the n bytes at w hold; returns how
 * many, with their bytes in *used. */
static uint8_t decode_prefix(const BW_ROM bw_msgdesc_t *d, const uint8_t *w, size_t n, void *base,
                             size_t *used)
{
    size_t k = 0, off = 0;
    for (; k < d->nfields; k++) {
        size_t size = bw_ftype_size((bw_ftype_t)d->fields[k].type) * d->fields[k].count;
        if (off + size > n)
            break;
        off += size;
    }
    bw_desc_decode_fields(d, k, w, base);
    *used = off;
    return (uint8_t)k;
}

/* ---- catalogue --------------------------------------------------------------- */

/* Command numbers and names, in number order (a sparse table would cost a
 * pointer per number up to 239 on a microcontroller). */
static const struct {
    uint8_t cmd;
    char name[23];
} commands[] = {
    { BW_P2OS_PULSE, "pulse" },
    { BW_P2OS_OPEN, "open" },
    { BW_P2OS_CLOSE, "close" },
    { BW_P2OS_POLLING, "polling" },
    { BW_P2OS_ENABLE, "enable" },
    { BW_P2OS_SETA, "seta" },
    { BW_P2OS_SETV, "setv" },
    { BW_P2OS_SETO, "seto" },
    { BW_P2OS_MOVE, "move" },
    { BW_P2OS_ROTATE, "rotate" },
    { BW_P2OS_SETRV, "setrv" },
    { BW_P2OS_VEL, "vel" },
    { BW_P2OS_HEAD, "head" },
    { BW_P2OS_DHEAD, "dhead" },
    { BW_P2OS_SAY, "say" },
    { BW_P2OS_JOYINFO, "joyinfo" },
    { BW_P2OS_CONFIG, "config" },
    { BW_P2OS_ENCODER, "encoder" },
    { BW_P2OS_RVEL, "rvel" },
    { BW_P2OS_DCHEAD, "dchead" },
    { BW_P2OS_SETRA, "setra" },
    { BW_P2OS_SONAR, "sonar" },
    { BW_P2OS_STOP, "stop" },
    { BW_P2OS_DIGOUT, "digout" },
    { BW_P2OS_VEL2, "vel2" },
    { BW_P2OS_GRIPPER, "gripper" },
    { BW_P2OS_ADSEL, "adsel" },
    { BW_P2OS_GRIPPERVAL, "gripperval" },
    { BW_P2OS_GRIPREQUEST, "griprequest" },
    { BW_P2OS_IOREQUEST, "iorequest" },
    { BW_P2OS_PTUPOS, "ptupos" },
    { BW_P2OS_TTY2, "tty2" },
    { BW_P2OS_GETAUX, "getaux" },
    { BW_P2OS_BUMPSTALL, "bumpstall" },
    { BW_P2OS_TCM2, "tcm2" },
    { BW_P2OS_JOYDRIVE, "joydrive" },
    { BW_P2OS_MOVINGBLINK, "movingblink" },
    { BW_P2OS_HOSTBAUD, "hostbaud" },
    { BW_P2OS_AUX1BAUD, "aux1baud" },
    { BW_P2OS_AUX2BAUD, "aux2baud" },
    { BW_P2OS_ESTOP, "estop" },
    { BW_P2OS_ESTALL, "estall" },
    { BW_P2OS_GYRO, "gyro" },
    { BW_P2OS_BATTERYINFO, "batteryinfo" },
    { BW_P2OS_SOUND, "sound" },
    { BW_P2OS_PLAYLIST, "playlist" },
    { BW_P2OS_SOUNDTOG, "soundtog" },
    { BW_P2OS_SIM_SET_POSE, "sim_set_pose" },
    { BW_P2OS_SIM_RESET, "sim_reset" },
    { BW_P2OS_SIM_LRF_ENABLE, "sim_lrf_enable" },
    { BW_P2OS_SIM_LRF_SET_FOV_START, "sim_lrf_set_fov_start" },
    { BW_P2OS_SIM_LRF_SET_FOV_END, "sim_lrf_set_fov_end" },
    { BW_P2OS_SIM_LRF_SET_RES, "sim_lrf_set_res" },
    { BW_P2OS_SIM_CTRL, "sim_ctrl" },
    { BW_P2OS_SIM_STAT, "sim_stat" },
    { BW_P2OS_SIM_MESSAGE, "sim_message" },
    { BW_P2OS_SIM_EXIT, "sim_exit" },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const char *bw_p2os_command_name(uint8_t cmd)
{
    for (size_t i = 0; i < NCOMMANDS && commands[i].cmd <= cmd; i++)
        if (commands[i].cmd == cmd)
            return commands[i].name;
    return NULL;
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

int bw_p2os_command_number(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const char *a = commands[i].name, *b = name;
        while (*a && *a == lower(*b))
            a++, b++;
        if (!*a && !*b)
            return commands[i].cmd;
    }
    return -1;
}

int bw_p2os_command_at(unsigned i) { return i < NCOMMANDS ? commands[i].cmd : -1; }

const char *bw_p2os_type_name(bw_p2os_type_t type)
{
    switch (type) {
    case BW_P2OS_COMMAND: return "command";
    case BW_P2OS_SYNC: return "sync";
    case BW_P2OS_SIP: return "sip";
    case BW_P2OS_CONFIG_PAC: return "config";
    case BW_P2OS_ENCODER_PAC: return "encoder";
    case BW_P2OS_SIMSTAT_PAC: return "simstat";
    default: return "unknown";
    }
}

/* ---- parser ---------------------------------------------------------------------- */

/* The whole sum is compared as one value: no partial byte tests that an
 * operator-precedence slip can break. */
static bool p2os_check(const uint8_t *frame, size_t size)
{
    size_t blen = size - 5;
    return bw_sum16_pairs_inline(frame + 3, blen) == bw_get_be16(frame + 3 + blen);
}

static const bw_framing_t p2os_framing = {
    .header = { BW_P2OS_HEADER0, BW_P2OS_HEADER1 },
    .len_at = 2,
    .len_min = BW_P2OS_MIN_COUNT,
    .len_max = BW_P2OS_MAX_COUNT,
    .overhead = 3,
    .check = p2os_check,
};

const bw_framing_t *bw_p2os_framing(void) { return &p2os_framing; }

void bw_p2os_parser_init(bw_p2os_parser_t *p) { bw_framer_init(p, &p2os_framing); }

static int body_of(int rc, const uint8_t *f, size_t size, bw_p2os_frame_t *frame)
{
    if (rc == 1) {
        frame->body = f + 3;
        frame->len = (uint8_t)(size - 5);
    }
    return rc;
}

int bw_p2os_parse(bw_p2os_parser_t *p, const uint8_t **data, size_t *len, bw_p2os_frame_t *frame)
{
    const uint8_t *f = NULL;
    size_t size = 0;
    int rc = bw_framer_parse_as(p, &p2os_framing, data, len, &f, &size);
    return body_of(rc, f, size, frame);
}

int bw_p2os_parser_finish(bw_p2os_parser_t *p, bw_p2os_frame_t *frame)
{
    const uint8_t *f = NULL;
    size_t size = 0;
    int rc = bw_framer_finish(p, &f, &size);
    return body_of(rc, f, size, frame);
}

/* ---- decoding ------------------------------------------------------------ */

static int get_string(const uint8_t *b, size_t len, size_t *off, char *dst)
{
    const uint8_t *s = b + *off;
    const uint8_t *nul = memchr(s, 0, len - *off);
    if (!nul || (size_t)(nul - s) > BW_P2OS_MAX_STRING)
        return BW_ELENGTH;
    size_t n = (size_t)(nul - s);
    memcpy(dst, s, n);
    dst[n] = 0;
    *off += n + 1;
    return 0;
}

static int decode_command(const uint8_t *b, size_t len, bw_p2os_command_t *c)
{
    c->cmd = b[0];
    if (len == 1) {
        c->argkind = BW_P2OS_NOARG;
        return 0;
    }
    const uint8_t t = b[1];
    size_t end;
    if (t == BW_P2OS_ARG_INT || t == BW_P2OS_ARG_NEGINT) {
        if (len < 4)
            return BW_ELENGTH;
        int32_t mag = bw_get_le16(b + 2);
        c->argkind = BW_P2OS_INTARG;
        c->value = t == BW_P2OS_ARG_INT ? mag : -mag;
        end = 4;
    } else {
        /* A string's bytes, or a raw argument's: all after its type byte. */
        size_t at = 2, n = len - 2;
        if (t == BW_P2OS_ARG_STRING) {
            if (len < STR_HEAD || len - STR_HEAD < b[2])
                return BW_ELENGTH;
            c->argkind = BW_P2OS_STRARG;
            at = STR_HEAD;
            n = b[2];
        } else {
            c->argkind = BW_P2OS_RAWARG;
            c->argtype = t;
        }
        c->len = (uint8_t)n;
        memcpy(c->str, b + at, n);
        if (c->argkind == BW_P2OS_RAWARG)
            return 0;
        end = at + n;
    }
    c->nextra = (uint8_t)(len - end);
    c->extra = c->nextra ? b + end : NULL;
    return 0;
}

static int decode_sync(const uint8_t *b, size_t len, bw_p2os_sync_t *s)
{
    s->n = b[0];
    if (len == 1)
        return 0;
    if (b[0] != BW_P2OS_PAC_SYNC2)
        return BW_ELENGTH;
    size_t off = 1;
    if (get_string(b, len, &off, s->name) < 0 || get_string(b, len, &off, s->cls) < 0 ||
        get_string(b, len, &off, s->subclass) < 0 || off != len)
        return BW_ELENGTH;
    s->has_info = true;
    return 0;
}

static int decode_sip(const uint8_t *b, size_t len, bw_p2os_msg_t *msg)
{
    bw_p2os_sip_t *s = &msg->u.sip;
    /* 60 readings cannot fit 198 bytes anyway; the count is checked on its
     * own because it sizes the copy into sonar[]. */
    if (len < SIP_FIXED || b[SIP_FIXED - 1] > BW_P2OS_MAX_SONAR)
        return BW_ELENGTH;
    size_t end = SIP_FIXED + 3u * b[SIP_FIXED - 1];
    if (len < end)
        return BW_ELENGTH;
    s->moving = b[0] == BW_P2OS_PAC_SIP_MOVING;
    bw_fields_decode_inline(f_sip, NFIELDS(f_sip), BW_ORDER_LE, b + 1, msg);
    s->nsonar = b[SIP_FIXED - 1];
    for (size_t i = 0; i < s->nsonar; i++) {
        s->sonar[i].number = b[SIP_FIXED + 3 * i];
        s->sonar[i].range = bw_get_le16(b + SIP_FIXED + 3 * i + 1);
    }
#if !BW_SMALL
    if (len - end >= SIP_TRAILING) {
        /* All of them, as a SIP mostly comes. */
        bw_fields_decode_inline(f_sip_trailing, NFIELDS(f_sip_trailing), BW_ORDER_LE, b + end, msg);
        s->ntrailing = NFIELDS(f_sip_trailing);
        end += SIP_TRAILING;
    } else
#endif
    {
        size_t used;
        s->ntrailing = decode_prefix(&d_sip_trailing, b + end, len - end, msg, &used);
        end += used;
    }
    s->nextra = (uint8_t)(len - end);
    s->extra = s->nextra ? b + end : NULL;
    return 0;
}

static int decode_config(const uint8_t *b, size_t len, bw_p2os_msg_t *msg)
{
    bw_p2os_config_t *c = &msg->u.config;
    size_t off = 1;
    if (get_string(b, len, &off, c->robot_type) < 0 || get_string(b, len, &off, c->subtype) < 0 ||
        get_string(b, len, &off, c->serial) < 0 || len - off < d_config_head.wire_len)
        return BW_ELENGTH;
    bw_desc_decode(&d_config_head, b + off, msg);
    off += d_config_head.wire_len;
    if (get_string(b, len, &off, c->name) < 0)
        return BW_ELENGTH;
    size_t used;
    c->nfields = decode_prefix(&d_config_tail, b + off, len - off, msg, &used);
    off += used;
    c->nextra = (uint8_t)(len - off);
    c->extra = c->nextra ? b + off : NULL;
    return 0;
}

static int decode_simstat(const uint8_t *b, size_t len, bw_p2os_msg_t *msg)
{
    bw_p2os_simstat_t *s = &msg->u.simstat;
    size_t off = 1;
    if (get_string(b, len, &off, s->reserved1) < 0 || get_string(b, len, &off, s->reserved2) < 0)
        return BW_ELENGTH;
    size_t used;
    s->nfields = decode_prefix(&d_simstat, b + off, len - off, msg, &used);
    off += used;
    s->nextra = (uint8_t)(len - off);
    s->extra = s->nextra ? b + off : NULL;
    return 0;
}

int bw_p2os_decode(bw_p2os_dir_t dir, const uint8_t *body, size_t len, bw_p2os_msg_t *msg)
{
    bw_zero(msg, sizeof *msg);
    msg->length = (uint8_t)(len > 255 ? 255 : len);
    /* No frame carries an empty body or one over 198 bytes. */
    if (len == 0 || len > BW_P2OS_MAX_BODY) {
        msg->u.unknown.data = body;
        return BW_ELENGTH;
    }
    msg->id = body[0];
    int rc = 0;
    if (dir == BW_P2OS_FROM_HOST) {
        msg->type = BW_P2OS_COMMAND;
        rc = decode_command(body, len, &msg->u.command);
    } else if (dir != BW_P2OS_FROM_ROBOT) {
        rc = BW_EINVAL;
    } else {
        /* A robot does not read the robot's packets: unknown to it. */
        switch (BW_BOTH_SIDES ? (int)body[0] : -1) {
        case BW_P2OS_PAC_SYNC0:
        case BW_P2OS_PAC_SYNC1:
        case BW_P2OS_PAC_SYNC2:
            msg->type = BW_P2OS_SYNC;
            rc = decode_sync(body, len, &msg->u.sync);
            break;
        case BW_P2OS_PAC_SIP_STOPPED:
        case BW_P2OS_PAC_SIP_MOVING:
            msg->type = BW_P2OS_SIP;
            rc = decode_sip(body, len, msg);
            break;
        case BW_P2OS_PAC_CONFIG:
            msg->type = BW_P2OS_CONFIG_PAC;
            rc = decode_config(body, len, msg);
            break;
        case BW_P2OS_PAC_SIMSTAT:
            msg->type = BW_P2OS_SIMSTAT_PAC;
            rc = decode_simstat(body, len, msg);
            break;
        case BW_P2OS_PAC_ENCODER:
            if (len != 9) {
                rc = BW_ELENGTH;
                break;
            }
            msg->type = BW_P2OS_ENCODER_PAC;
            msg->u.encoder.left = (int32_t)bw_get_le32(body + 1);
            msg->u.encoder.right = (int32_t)bw_get_le32(body + 5);
            break;
        default:
            msg->u.unknown.data = body;
            return 0;
        }
    }
    if (rc < 0) {
        /* Reported as an unknown-layout body so the caller can show it. */
        memset(&msg->u, 0, sizeof msg->u);
        msg->type = BW_P2OS_UNKNOWN;
        msg->u.unknown.data = body;
    }
    return rc;
}

/* ---- encoding ------------------------------------------------------------------------ */

/* Length of a string field that goes out NUL-terminated. */
static int string_len(const char *s)
{
    const char *nul = memchr(s, 0, BW_P2OS_MAX_STRING + 1);
    return nul ? (int)(nul - s) : BW_ERANGE;
}

static int strings_len(const char *const *s, size_t n)
{
    int total = 0;
    for (size_t i = 0; i < n; i++) {
        int k = string_len(s[i]);
        if (k < 0)
            return k;
        total += k + 1;
    }
    return total;
}

static int command_len(const bw_p2os_command_t *c)
{
    switch (c->argkind) {
    case BW_P2OS_NOARG: return 1;
    case BW_P2OS_INTARG:
        return c->value < -65535 || c->value > 65535 ? BW_ERANGE : 4 + c->nextra;
    case BW_P2OS_STRARG: return (int)STR_HEAD + c->len + c->nextra;
    case BW_P2OS_RAWARG:
        /* Read back, these type bytes would be an int or a string. */
        if (c->argtype == BW_P2OS_ARG_INT || c->argtype == BW_P2OS_ARG_NEGINT ||
            c->argtype == BW_P2OS_ARG_STRING)
            return BW_EINVAL;
        return 2 + c->len;
    default: return BW_EINVAL;
    }
}

static int sync_len(const bw_p2os_sync_t *s)
{
    if (s->n > BW_P2OS_PAC_SYNC2)
        return BW_ERANGE;
    if (!s->has_info)
        return 1;
    if (s->n != BW_P2OS_PAC_SYNC2)
        return BW_EINVAL;
    const char *const str[] = { s->name, s->cls, s->subclass };
    int n = strings_len(str, 3);
    return n < 0 ? n : 1 + n;
}

static int sip_len(const bw_p2os_sip_t *s)
{
    if (s->nsonar > BW_P2OS_MAX_SONAR)
        return BW_ERANGE;
    int n = prefix_extra_len(&d_sip_trailing, s->ntrailing, s->nextra);
    return n < 0 ? n : (int)(SIP_FIXED + 3u * s->nsonar) + n;
}

static int simstat_len(const bw_p2os_simstat_t *s)
{
    int n = prefix_extra_len(&d_simstat, s->nfields, s->nextra);
    if (n < 0)
        return n;
    const char *const str[] = { s->reserved1, s->reserved2 };
    int k = strings_len(str, 2);
    return k < 0 ? k : 1 + k + n;
}

static int config_len(const bw_p2os_config_t *c)
{
    int n = prefix_extra_len(&d_config_tail, c->nfields, c->nextra);
    if (n < 0)
        return n;
    const char *const str[] = { c->robot_type, c->subtype, c->serial, c->name };
    int k = strings_len(str, 4);
    return k < 0 ? k : 1 + k + d_config_head.wire_len + n;
}

/* Body length of a message, or a negative error; the body limit is the
 * caller's to check. */
static int body_len(const bw_p2os_msg_t *m)
{
    switch (m->type) {
    case BW_P2OS_COMMAND: return BW_BOTH_SIDES ? command_len(&m->u.command) : BW_EINVAL;
    case BW_P2OS_SYNC: return sync_len(&m->u.sync);
    case BW_P2OS_SIP: return sip_len(&m->u.sip);
    case BW_P2OS_CONFIG_PAC: return config_len(&m->u.config);
    case BW_P2OS_ENCODER_PAC: return 9;
    case BW_P2OS_SIMSTAT_PAC: return simstat_len(&m->u.simstat);
    case BW_P2OS_UNKNOWN:
        if (m->length == 0)
            return BW_ERANGE;
        /* data holds the whole body: its type byte is the id. */
        if (m->u.unknown.data && m->u.unknown.data[0] != m->id)
            return BW_EINVAL;
        return m->length;
    default: return BW_EINVAL;
    }
}

static uint8_t *put_string(uint8_t *w, const char *s)
{
    size_t n = strlen(s) + 1;
    memcpy(w, s, n);
    return w + n;
}

static uint8_t *put_extra(uint8_t *w, const uint8_t *extra, size_t n)
{
    if (extra)
        memmove(w, extra, n);
    else
        memset(w, 0, n);
    return w + n;
}

/* The writers of each type's body, whose length the matching *_len()
 * gave as n (without an error). */
static void write_command(uint8_t *w, const bw_p2os_msg_t *m, size_t n)
{
    (void)n;
    const bw_p2os_command_t *c = &m->u.command;
    w[0] = c->cmd;
    if (c->argkind == BW_P2OS_INTARG) {
        w[1] = c->value < 0 ? BW_P2OS_ARG_NEGINT : BW_P2OS_ARG_INT;
        bw_put_le16(w + 2, (uint16_t)(c->value < 0 ? -c->value : c->value));
        put_extra(w + 4, c->extra, c->nextra);
    } else if (c->argkind == BW_P2OS_STRARG) {
        w[1] = BW_P2OS_ARG_STRING;
        w[2] = c->len;
        memcpy(w + STR_HEAD, c->str, c->len);
        put_extra(w + STR_HEAD + c->len, c->extra, c->nextra);
    } else if (c->argkind == BW_P2OS_RAWARG) {
        w[1] = c->argtype;
        memcpy(w + 2, c->str, c->len);
    }
}

static void write_sync(uint8_t *w, const bw_p2os_msg_t *m, size_t n)
{
    (void)n;
    const bw_p2os_sync_t *s = &m->u.sync;
    w[0] = s->n;
    if (s->has_info)
        put_string(put_string(put_string(w + 1, s->name), s->cls), s->subclass);
}

static void write_sip(uint8_t *w, const bw_p2os_msg_t *m, size_t n)
{
    const bw_p2os_sip_t *s = &m->u.sip;
    w[0] = s->moving ? BW_P2OS_PAC_SIP_MOVING : BW_P2OS_PAC_SIP_STOPPED;
    bw_desc_encode(&d_sip, m, w + 1);
    w[SIP_FIXED - 1] = s->nsonar;
    uint8_t *r = w + SIP_FIXED;
    for (size_t i = 0; i < s->nsonar; i++, r += 3) {
        r[0] = s->sonar[i].number;
        bw_put_le16(r + 1, s->sonar[i].range);
    }
    bw_desc_encode_fields(&d_sip_trailing, s->ntrailing, m, r);
    put_extra(w + n - s->nextra, s->extra, s->nextra); /* the extra bytes end the body */
}

static void write_config(uint8_t *w, const bw_p2os_msg_t *m, size_t n)
{
    const bw_p2os_config_t *c = &m->u.config;
    w[0] = BW_P2OS_PAC_CONFIG;
    uint8_t *r = put_string(put_string(put_string(w + 1, c->robot_type), c->subtype), c->serial);
    bw_desc_encode(&d_config_head, m, r);
    r = put_string(r + d_config_head.wire_len, c->name);
    bw_desc_encode_fields(&d_config_tail, c->nfields, m, r);
    put_extra(w + n - c->nextra, c->extra, c->nextra);
}

static void write_simstat(uint8_t *w, const bw_p2os_msg_t *m, size_t n)
{
    const bw_p2os_simstat_t *st = &m->u.simstat;
    w[0] = BW_P2OS_PAC_SIMSTAT;
    uint8_t *r = put_string(put_string(w + 1, st->reserved1), st->reserved2);
    bw_desc_encode_fields(&d_simstat, st->nfields, m, r);
    put_extra(w + n - st->nextra, st->extra, st->nextra);
}

static void write_encoder(uint8_t *w, const bw_p2os_msg_t *m, size_t n)
{
    (void)n;
    w[0] = BW_P2OS_PAC_ENCODER;
    bw_put_le32(w + 1, (uint32_t)m->u.encoder.left);
    bw_put_le32(w + 5, (uint32_t)m->u.encoder.right);
}

static void write_unknown(uint8_t *w, const bw_p2os_msg_t *m, size_t n)
{
    if (m->u.unknown.data) {
        memmove(w, m->u.unknown.data, n);
    } else {
        memset(w, 0, n);
        w[0] = m->id;
    }
}

typedef void writer_t(uint8_t *w, const bw_p2os_msg_t *m, size_t n);

/* The writer of a message's body (a type outside the catalogue has none:
 * body_len() refuses it). */
static writer_t *writer_of(const bw_p2os_msg_t *m)
{
    switch (m->type) {
    case BW_P2OS_COMMAND: return BW_BOTH_SIDES ? write_command : NULL;
    case BW_P2OS_SYNC: return write_sync;
    case BW_P2OS_SIP: return write_sip;
    case BW_P2OS_CONFIG_PAC: return write_config;
    case BW_P2OS_SIMSTAT_PAC: return write_simstat;
    case BW_P2OS_ENCODER_PAC: return write_encoder;
    default: return write_unknown;
    }
}

/* Body length n (or an error) with the frame limit applied. */
static int checked(int n)
{
    return n > (int)BW_P2OS_MAX_BODY ? BW_ERANGE : n;
}

int bw_p2os_encode_body(uint8_t *buf, size_t cap, const bw_p2os_msg_t *msg)
{
    int n = checked(body_len(msg));
    if (n < 0)
        return n;
    if ((size_t)n > cap)
        return BW_ENOSPC;
    writer_of(msg)(buf, msg, (size_t)n);
    return n;
}

/* Header and checksum around the n body bytes already at buf + 3. */
static int close_frame(uint8_t *buf, size_t n)
{
    buf[0] = BW_P2OS_HEADER0;
    buf[1] = BW_P2OS_HEADER1;
    buf[2] = (uint8_t)(n + 2);
    bw_put_be16(buf + 3 + n, bw_sum16_pairs(buf + 3, n));
    return (int)n + 5;
}

/* A frame of the message m, whose body length (or error) is n, with the
 * body written by write. */
static int encode_frame(uint8_t *buf, size_t cap, const bw_p2os_msg_t *m, int n, writer_t *write)
{
    n = checked(n);
    if (n < 0)
        return n;
    if ((size_t)n + 5 > cap)
        return BW_ENOSPC;
    write(buf + 3, m, (size_t)n);
    return close_frame(buf, (size_t)n);
}

int bw_p2os_encode_frame(uint8_t *buf, size_t cap, const bw_p2os_msg_t *msg)
{
    return encode_frame(buf, cap, msg, body_len(msg), writer_of(msg));
}

int bw_p2os_encode_sip_frame(uint8_t *buf, size_t cap, const bw_p2os_msg_t *msg)
{
    return encode_frame(buf, cap, msg, msg->type == BW_P2OS_SIP ? sip_len(&msg->u.sip) : BW_EINVAL,
                        write_sip);
}

int bw_p2os_frame_body(uint8_t *buf, size_t cap, const uint8_t *body, size_t len)
{
    if (len == 0 || len > BW_P2OS_MAX_BODY)
        return BW_ERANGE;
    if (len + 5 > cap)
        return BW_ENOSPC;
    memmove(buf + 3, body, len); /* the body may already sit in buf */
    return close_frame(buf, len);
}

int bw_p2os_encode_cmd(uint8_t *buf, size_t cap, uint8_t cmd)
{
    return bw_p2os_frame_body(buf, cap, &cmd, 1);
}

int bw_p2os_encode_cmd_int(uint8_t *buf, size_t cap, uint8_t cmd, int32_t value)
{
    if (value < -65535 || value > 65535)
        return BW_ERANGE;
    uint8_t body[4] = { cmd, value < 0 ? BW_P2OS_ARG_NEGINT : BW_P2OS_ARG_INT };
    bw_put_le16(body + 2, (uint16_t)(value < 0 ? -value : value));
    return bw_p2os_frame_body(buf, cap, body, sizeof body);
}

int bw_p2os_encode_cmd_str(uint8_t *buf, size_t cap, uint8_t cmd, const uint8_t *s, size_t n)
{
    if (n > MAX_STR_ARG)
        return BW_ERANGE;
    if (n + STR_HEAD + 5 > cap)
        return BW_ENOSPC;
    if (n)
        memmove(buf + 3 + STR_HEAD, s, n);
    buf[3] = cmd;
    buf[4] = BW_P2OS_ARG_STRING;
    buf[5] = (uint8_t)n;
    return close_frame(buf, n + STR_HEAD);
}

int bw_p2os_encode_sim_set_pose(uint8_t *buf, size_t cap, int32_t x, int32_t y, int32_t th)
{
    uint8_t body[14] = { BW_P2OS_SIM_SET_POSE, 0x00 };
    bw_put_le32(body + 2, (uint32_t)x);
    bw_put_le32(body + 6, (uint32_t)y);
    bw_put_le32(body + 10, (uint32_t)th);
    return bw_p2os_frame_body(buf, cap, body, sizeof body);
}

int bw_p2os_sim_set_pose_of(const uint8_t *body, size_t len, int32_t *x, int32_t *y, int32_t *th)
{
    if (len != 14 || body[0] != BW_P2OS_SIM_SET_POSE)
        return BW_ELENGTH;
    *x = (int32_t)bw_get_le32(body + 2);
    *y = (int32_t)bw_get_le32(body + 6);
    *th = (int32_t)bw_get_le32(body + 10);
    return 0;
}

void bw_p2os_msg_init(bw_p2os_msg_t *msg, bw_p2os_type_t type)
{
    memset(msg, 0, sizeof *msg);
    msg->type = type;
    switch (type) {
    case BW_P2OS_SIP: msg->id = BW_P2OS_PAC_SIP_STOPPED; break;
    case BW_P2OS_CONFIG_PAC: msg->id = BW_P2OS_PAC_CONFIG; break;
    case BW_P2OS_ENCODER_PAC: msg->id = BW_P2OS_PAC_ENCODER; break;
    case BW_P2OS_SIMSTAT_PAC: msg->id = BW_P2OS_PAC_SIMSTAT; break;
    default: break;
    }
    int n = body_len(msg);
    msg->length = (uint8_t)(n > 0 ? n : 0);
}
