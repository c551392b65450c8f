/* lobot codec: Command Module commands and acknowledgements. */
#include "botwire/lobot.h"

#include <string.h>

/* ---- commands ------------------------------------------------------------------- */

/* For names only: the parser asks bw_lobot_cmd_known, a switch, so that the
 * Command Module's firmware does not link this table (RAM on an AVR). */
static const struct {
    uint8_t id;
    char name[19];
} cmds[] = {
    { BW_LOBOT_CMD_NOP, "nop" },
    { BW_LOBOT_CMD_FORWARD, "forward" },
    { BW_LOBOT_CMD_REVERSE, "reverse" },
    { BW_LOBOT_CMD_STOP, "stop" },
    { BW_LOBOT_CMD_LEFT, "left" },
    { BW_LOBOT_CMD_RIGHT, "right" },
    { BW_LOBOT_CMD_STRAIGHT, "straight" },
    { BW_LOBOT_CMD_SPIN, "spin" },
    { BW_LOBOT_CMD_ENABLE_REAR_BUMPS, "enable_rear_bumps" },
    { BW_LOBOT_CMD_DISABLE_REAR_BUMPS, "disable_rear_bumps" },
};
#define NCMDS (sizeof cmds / sizeof cmds[0])

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* A lower-case table name against a name in any case. */
static bool name_eq(const char *table, const char *name)
{
    while (*table && *table == lower(*name))
        table++, name++;
    return !*table && !*name;
}

bool bw_lobot_cmd_known(uint8_t id)
{
    switch (id) {
    case BW_LOBOT_CMD_NOP:
    case BW_LOBOT_CMD_FORWARD:
    case BW_LOBOT_CMD_REVERSE:
    case BW_LOBOT_CMD_STOP:
    case BW_LOBOT_CMD_LEFT:
    case BW_LOBOT_CMD_RIGHT:
    case BW_LOBOT_CMD_STRAIGHT:
    case BW_LOBOT_CMD_SPIN:
    case BW_LOBOT_CMD_ENABLE_REAR_BUMPS:
    case BW_LOBOT_CMD_DISABLE_REAR_BUMPS: return true;
    default: return false;
    }
}

const char *bw_lobot_cmd_name(uint8_t id)
{
    for (size_t i = 0; i < NCMDS; i++)
        if (cmds[i].id == id)
            return cmds[i].name;
    return NULL;
}

int bw_lobot_cmd_id(const char *name)
{
    for (size_t i = 0; i < NCMDS; i++)
        if (name_eq(cmds[i].name, name))
            return cmds[i].id;
    return BW_EUNKNOWN;
}

int bw_lobot_cmd_at(unsigned i) { return i < NCMDS ? cmds[i].id : -1; }

int bw_lobot_encode_cmd(uint8_t *buf, size_t cap, uint8_t id, int16_t param)
{
    if (cap < BW_LOBOT_CMD_SIZE)
        return BW_ENOSPC;
    buf[0] = id;
    bw_put_be16(buf + 1, (uint16_t)param);
    buf[3] = (uint8_t)(buf[0] ^ buf[1] ^ buf[2]);
    return BW_LOBOT_CMD_SIZE;
}

int bw_lobot_decode_cmd(const uint8_t *buf, size_t len, bw_lobot_cmd_t *cmd)
{
    if (len != BW_LOBOT_CMD_SIZE)
        return BW_ELENGTH;
    cmd->id = buf[0];
    cmd->param = (int16_t)bw_get_be16(buf + 1);
    cmd->known = bw_lobot_cmd_known(buf[0]);
    if ((buf[0] ^ buf[1] ^ buf[2] ^ buf[3]) != 0)
        return BW_ECHECKSUM;
    return cmd->known ? 0 : BW_EUNKNOWN;
}

/* Out of step (BW_BOTH_SIDES: the Command Module starts a command at each
 * window, finish before it, so its own side never hunts). */
#if BW_BOTH_SIDES
#define HUNTING(p) ((p)->hunting)
#define SET_HUNTING(p, v) ((p)->hunting = (v))
#else
#define HUNTING(p) false
#define SET_HUNTING(p, v) ((void)0)
#endif

void bw_lobot_cmd_parser_init(bw_lobot_cmd_parser_t *p)
{
    memset(&p->stats, 0, sizeof p->stats);
    p->held = 0;
    /* A stream may be joined anywhere: the first command is one that fits. */
    SET_HUNTING(p, true);
}

/* The parameter a host sends with the id (lobot.h): what a window must have
 * to be taken while the parser looks for the commands' step again. Parity
 * alone cannot tell: in a run of equal commands every window one to three
 * bytes on has a good parity too (the XOR of a command's four bytes is 0,
 * whichever byte it starts from), and `40 40 00 00`, three bytes into a run
 * of NOPs, is a good NOP of parameter 0x4000. */
static bool param_in_range(uint8_t id, int16_t p)
{
    switch (id) {
    case BW_LOBOT_CMD_FORWARD:
    case BW_LOBOT_CMD_REVERSE: return p >= 0 && p <= BW_CREATE_MAX_SPEED;
    case BW_LOBOT_CMD_LEFT:
    case BW_LOBOT_CMD_RIGHT: return p >= 0 && p <= BW_CREATE_MAX_RADIUS;
    case BW_LOBOT_CMD_SPIN: return p >= -360 && p <= 360;
    default: return p == 0; /* the commands without a parameter: "good form" is 0 */
    }
}

int bw_lobot_cmd_parse(bw_lobot_cmd_parser_t *p, const uint8_t **data, size_t *len,
                       bw_lobot_cmd_t *cmd)
{
    for (;;) {
        if (p->held == BW_LOBOT_CMD_SIZE) {
            int rc = bw_lobot_decode_cmd(p->buf, BW_LOBOT_CMD_SIZE, cmd);
            if (rc == 0 && (!HUNTING(p) || param_in_range(cmd->id, cmd->param))) {
                p->held = 0;
                SET_HUNTING(p, false);
                p->stats.frames++;
                return 1;
            }
            /* A lost, extra or damaged byte shifts every later window: try
             * the window one byte on, until a whole command is found. */
            p->stats.skipped_bytes++;
            memmove(p->buf, p->buf + 1, BW_LOBOT_CMD_SIZE - 1);
            p->held = BW_LOBOT_CMD_SIZE - 1;
            SET_HUNTING(p, true);
            if (rc == 0)
                continue; /* a known id out of its range while out of step: no command */
            if (rc == BW_ECHECKSUM)
                p->stats.checksum_errors++;
            else
                p->stats.unknown++;
            return rc;
        }
        if (*len == 0)
            return 0;
        size_t take = BW_LOBOT_CMD_SIZE - p->held;
        if (take > *len)
            take = *len;
        memcpy(p->buf + p->held, *data, take);
        p->held = (uint8_t)(p->held + take);
        *data += take;
        *len -= take;
    }
}

int bw_lobot_cmd_parser_finish(bw_lobot_cmd_parser_t *p)
{
    if (p->held) {
        p->stats.length_errors++;
        p->stats.skipped_bytes += p->held;
        p->held = 0;
    }
    SET_HUNTING(p, false); /* what comes next starts a command (a new window, a new stream) */
    return 0;
}

/* ---- acknowledgements ------------------------------------------------------------------ */

/* (Inline in the ACK parser: once per byte it looks at.) */
static BW_HOT_INLINE int ack_size(uint8_t id)
{
    switch (id) {
    case BW_LOBOT_ACK_READY: return BW_LOBOT_READY_SIZE;
    case BW_LOBOT_ACK_BUMPS: return BW_LOBOT_BUMPS_SIZE;
    case BW_LOBOT_ACK_WHEEL_DROPS: return BW_LOBOT_WHEEL_DROPS_SIZE;
    case BW_LOBOT_ACK_CLIFFS: return BW_LOBOT_CLIFFS_SIZE;
    case BW_LOBOT_ACK_REMOTE: return BW_LOBOT_REMOTE_SIZE;
    case BW_LOBOT_ACK_SENSORS: return BW_LOBOT_SENSORS_SIZE;
    default: return BW_EUNKNOWN;
    }
}

int bw_lobot_ack_size(uint8_t id) { return ack_size(id); }

#define OFF(member) ((uint16_t)offsetof(bw_lobot_ack_t, u.member))
#define FIELD(name, type, member) { BW_NAME(name), type, 1, OFF(member) }
#define DESC(name, fields, len) \
    { BW_NAME(name), fields, (uint8_t)(sizeof fields / sizeof fields[0]), len, BW_ORDER_BE }
#define FIRST_VALUE 7u
#define NVALUES (BW_CREATE_LAST_PACKET - FIRST_VALUE + 1u)
#define SENSOR(id, name, type) [(id) - FIRST_VALUE] = FIELD(#name, type, sensors.oi.name),
#define UNUSED(id) [(id) - FIRST_VALUE] = { BW_NAME("unused"), BW_FT_PAD, 1, 0 },

static const BW_ROM bw_field_t f_bumps[] = {
    FIELD("flags", BW_FT_U8, bumps.flags),
    FIELD("distance", BW_FT_I16, bumps.distance),
    FIELD("angle", BW_FT_I16, bumps.angle),
};
static const BW_ROM bw_field_t f_wheel_drops[] = {
    FIELD("flags", BW_FT_U8, wheel_drops.flags),
};
static const BW_ROM bw_field_t f_cliffs[] = {
    FIELD("flags", BW_FT_U8, cliffs.flags),
    FIELD("distance", BW_FT_I16, cliffs.distance),
    FIELD("angle", BW_FT_I16, cliffs.angle),
};
static const BW_ROM bw_field_t f_remote[] = {
    FIELD("ir", BW_FT_U8, remote.infrared_byte),
};
/* The Create's group 6, then the spin flag. */
static const BW_ROM bw_field_t f_sensors[] = {
    BW_CREATE_SENSOR_LIST(SENSOR, UNUSED)
    [NVALUES] = FIELD("spin_flag", BW_FT_U8, sensors.spin_flag),
};

static const BW_ROM bw_msgdesc_t acks[] = {
    { BW_NAME("ready"), BW_ROM_NULL, 0, BW_LOBOT_READY_SIZE, BW_ORDER_BE },
    DESC("bumps", f_bumps, BW_LOBOT_BUMPS_SIZE),
    DESC("wheel_drops", f_wheel_drops, BW_LOBOT_WHEEL_DROPS_SIZE),
    DESC("cliffs", f_cliffs, BW_LOBOT_CLIFFS_SIZE),
    DESC("remote", f_remote, BW_LOBOT_REMOTE_SIZE),
    DESC("sensors", f_sensors, BW_LOBOT_SENSORS_SIZE),
};
static const BW_ROM uint8_t ack_ids[] = {
    BW_LOBOT_ACK_READY,  BW_LOBOT_ACK_BUMPS,  BW_LOBOT_ACK_WHEEL_DROPS,
    BW_LOBOT_ACK_CLIFFS, BW_LOBOT_ACK_REMOTE, BW_LOBOT_ACK_SENSORS,
};
#define NACKS (sizeof ack_ids / sizeof ack_ids[0])

const BW_ROM bw_msgdesc_t *bw_lobot_ack_desc(uint8_t id)
{
    for (size_t i = 0; i < NACKS; i++)
        if (ack_ids[i] == id)
            return &acks[i];
    return BW_ROM_NULL;
}

const char *bw_lobot_ack_name(uint8_t id)
{
    const BW_ROM bw_msgdesc_t *d = bw_lobot_ack_desc(id);
    return d ? d->name : NULL;
}

int bw_lobot_ack_id(const char *name)
{
    for (size_t i = 0; i < NACKS; i++)
        if (name_eq(acks[i].name, name))
            return ack_ids[i];
    return BW_EUNKNOWN;
}

int bw_lobot_ack_at(unsigned i) { return i < NACKS ? ack_ids[i] : -1; }

void bw_lobot_ack_init(bw_lobot_ack_t *ack, uint8_t id)
{
    memset(ack, 0, sizeof *ack);
    ack->id = id;
}

int bw_lobot_decode_ack(uint8_t id, const uint8_t *data, size_t len, bw_lobot_ack_t *ack)
{
    bw_lobot_ack_init(ack, id);
    const BW_ROM bw_msgdesc_t *d = bw_lobot_ack_desc(id);
    if (!d)
        return BW_EUNKNOWN;
    if (len != d->wire_len)
        return BW_ELENGTH;
#if BW_SMALL
    bw_desc_decode(d, data, ack);
#else
    /* Each ACK by code of its own: the loop over the catalogue unrolled,
     * the compiler folds each entry's field table into its decoder. */
    BW_UNROLL_ALL
    for (size_t i = 0; i < NACKS; i++)
        if (ack_ids[i] == id)
            bw_fields_decode_inline(acks[i].fields, acks[i].nfields, BW_ORDER_BE, data, ack);
#endif
    return 0;
}

int bw_lobot_encode_ack(uint8_t *buf, size_t cap, const bw_lobot_ack_t *ack)
{
    const BW_ROM bw_msgdesc_t *d = bw_lobot_ack_desc(ack->id);
    if (!d)
        return BW_EUNKNOWN;
    if (cap < 1u + d->wire_len)
        return BW_ENOSPC;
    buf[0] = ack->id;
#if BW_SMALL
    bw_desc_encode(d, ack, buf + 1);
#else
    /* As decoding: each ACK by code of its own. */
    BW_UNROLL_ALL
    for (size_t i = 0; i < NACKS; i++)
        if (ack_ids[i] == ack->id)
            bw_fields_encode_inline(acks[i].fields, acks[i].nfields, BW_ORDER_BE, ack, buf + 1);
#endif
    return 1 + d->wire_len;
}

int bw_lobot_encode_ack_bytes(uint8_t *buf, size_t cap, uint8_t id, const uint8_t *data)
{
    int n = bw_lobot_ack_size(id);
    if (n < 0)
        return n;
    if (cap < 1u + (size_t)n)
        return BW_ENOSPC;
    if (data)
        memmove(buf + 1, data, (size_t)n);
    else
        memset(buf + 1, 0, (size_t)n);
    buf[0] = id;
    return 1 + n;
}

/* By hand, not through f_bumps: see the top of lobot.h. A test checks the
 * two agree. */
int bw_lobot_encode_motion(uint8_t *buf, size_t cap, uint8_t id, uint8_t flags, int16_t distance,
                           int16_t angle)
{
    if (id != BW_LOBOT_ACK_BUMPS && id != BW_LOBOT_ACK_CLIFFS)
        return BW_EINVAL;
    if (cap < 1u + BW_LOBOT_BUMPS_SIZE)
        return BW_ENOSPC;
    buf[0] = id;
    buf[1] = flags;
    bw_put_be16(buf + 2, (uint16_t)distance);
    bw_put_be16(buf + 4, (uint16_t)angle);
    return 1 + BW_LOBOT_BUMPS_SIZE;
}

int bw_lobot_encode_sensors_bytes(uint8_t *buf, size_t cap, const uint8_t *group6,
                                  uint8_t spin_flag)
{
    if (cap < 1u + BW_LOBOT_SENSORS_SIZE)
        return BW_ENOSPC;
    memmove(buf + 1, group6, BW_CREATE_GROUP6_SIZE);
    buf[0] = BW_LOBOT_ACK_SENSORS;
    buf[1 + BW_LOBOT_SENSORS_SPIN_FLAG] = spin_flag;
    return 1 + BW_LOBOT_SENSORS_SIZE;
}

/* ---- the ACK parser ----------------------------------------------------------------- */

void bw_lobot_ack_parser_init(bw_lobot_ack_parser_t *p)
{
    memset(&p->stats, 0, sizeof p->stats);
    p->held = 0;
    p->drop = 0;
}

/* Drops held bytes [0, from), then up to the next ACK id. */
static void ack_rescan(bw_lobot_ack_parser_t *p, size_t from)
{
    size_t k = from;
    while (k < p->held && ack_size(p->buf[k]) < 0)
        k++;
    p->stats.skipped_bytes += k;
    memmove(p->buf, p->buf + k, p->held - k);
    p->held = (uint8_t)(p->held - k);
}

/* Nothing held: ACKs are returned where they lie in the caller's input;
 * only one cut by the end of the input is copied. */
static int ack_direct(bw_lobot_ack_parser_t *p, const uint8_t **data, size_t *len,
                      bw_lobot_ack_frame_t *ack)
{
    if (*len == 0)
        return 0; /* *data may be NULL (finish): no arithmetic on it */
    const uint8_t *d = *data;
    size_t n = *len, k = 0;
    int ret = 0;
    while (k < n && ack_size(d[k]) < 0)
        k++;
    p->stats.skipped_bytes += k;
    d += k;
    n -= k;
    if (n > 0) {
        size_t size = 1u + (size_t)ack_size(d[0]);
        if (n >= size) {
            ack->id = d[0];
            ack->len = (uint8_t)(size - 1);
            ack->data = d + 1;
            p->stats.frames++;
            d += size;
            n -= size;
            ret = 1;
        } else {
            memcpy(p->buf, d, n);
            p->held = (uint8_t)n;
            d += n;
            n = 0;
        }
    }
    *data = d;
    *len = n;
    return ret;
}

static int ack_parse(bw_lobot_ack_parser_t *p, const uint8_t **data, size_t *len,
                     bw_lobot_ack_frame_t *ack)
{
    if (p->drop) {
        memmove(p->buf, p->buf + p->drop, (size_t)(p->held - p->drop));
        p->held = (uint8_t)(p->held - p->drop);
        p->drop = 0;
        ack_rescan(p, 0);
    }
    for (;;) {
        if (p->held == 0)
            return ack_direct(p, data, len, ack);
        /* Held bytes start with an ACK id. */
        size_t need = 1u + (size_t)ack_size(p->buf[0]);
        if (p->held >= need) {
            ack->id = p->buf[0];
            ack->len = (uint8_t)(need - 1);
            ack->data = p->buf + 1;
            p->stats.frames++;
            p->drop = (uint8_t)need;
            return 1;
        }
        if (*len == 0)
            return 0;
        size_t take = need - p->held;
        if (take > *len)
            take = *len;
        memcpy(p->buf + p->held, *data, take);
        p->held = (uint8_t)(p->held + take);
        *data += take;
        *len -= take;
    }
}

int bw_lobot_ack_parse(bw_lobot_ack_parser_t *p, const uint8_t **data, size_t *len,
                       bw_lobot_ack_frame_t *ack)
{
#if !BW_SMALL
    /* What ack_direct does for an ACK that starts the input with nothing
     * held, as they come one after another: once per ACK. */
    if (p->drop == 0 && p->held == 0 && *len) {
        int size = ack_size((*data)[0]);
        if (size >= 0 && *len > (size_t)size) {
            ack->id = (*data)[0];
            ack->len = (uint8_t)size;
            ack->data = *data + 1;
            p->stats.frames++;
            *data += 1 + (size_t)size;
            *len -= 1 + (size_t)size;
            return 1;
        }
    }
#endif
    return ack_parse(p, data, len, ack);
}

int bw_lobot_ack_parser_finish(bw_lobot_ack_parser_t *p, bw_lobot_ack_frame_t *ack)
{
    for (;;) {
        const uint8_t *none = NULL;
        size_t zero = 0;
        int rc = bw_lobot_ack_parse(p, &none, &zero, ack);
        if (rc != 0 || p->held == 0)
            return rc;
        p->stats.length_errors++;
        ack_rescan(p, 1);
    }
}
