/* RBSM codec: message catalogue, streaming receiver, decode and encode. */
#include "botwire/rbsm.h"

#include <string.h>

/* ---- catalogue ----------------------------------------------------------- */

/* Ids in order, and their names packed into one string in the same order:
 * on an AVR every const byte is RAM, and a pointer per name would add 38. */
static const BW_ROM uint8_t ids[] = {
    BW_RBSM_MID_ENC_TICKS_LAST,
    BW_RBSM_MID_ENC_TICKS_RESET,
    BW_RBSM_MID_ENC_TIMESTAMP,
    BW_RBSM_MID_ENC_RESET_REQUEST,
    BW_RBSM_MID_ENC_RESET_CONFIRM,
    BW_RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND,
    BW_RBSM_MID_BRAKE_COMMAND,
    BW_RBSM_MID_MEGA_COMMAND,
    BW_RBSM_MID_MEGA_STEER_ANGLE,
    BW_RBSM_MID_MEGA_BRAKE_STATE,
    BW_RBSM_MID_MEGA_AUTON_STATE,
    BW_RBSM_MID_MEGA_BATTERY_LEVEL,
    BW_RBSM_MID_MEGA_STEER_FEEDBACK,
    BW_RBSM_MID_MEGA_FIRMWARE_HASH,
    BW_RBSM_MID_LIGHTING,
    BW_RBSM_MID_RESERVED,
    BW_RBSM_MID_MEGA_TIMESTAMP,
    BW_RBSM_MID_ERROR,
    BW_RBSM_MID_DEVICE_ID,
};
#define NIDS (sizeof ids / sizeof ids[0])

static const char names[] = "enc_ticks_last\0"
                            "enc_ticks_reset\0"
                            "enc_timestamp\0"
                            "enc_reset_request\0"
                            "enc_reset_confirm\0"
                            "mega_teleop_brake_command\0"
                            "brake_command\0"
                            "mega_command\0"
                            "mega_steer_angle\0"
                            "mega_brake_state\0"
                            "mega_auton_state\0"
                            "mega_battery_level\0"
                            "mega_steer_feedback\0"
                            "mega_firmware_hash\0"
                            "lighting\0"
                            "reserved\0"
                            "mega_timestamp\0"
                            "error\0"
                            "device_id";

/* The deployed code's own names for some ids, accepted by bw_rbsm_id. */
static const BW_ROM uint8_t alias_ids[] = {
    BW_RBSM_MID_BRAKE_COMMAND,
    BW_RBSM_MID_MEGA_COMMAND,
    BW_RBSM_MID_MEGA_FIRMWARE_HASH,
    BW_RBSM_MID_LIGHTING,
};
static const char aliases[] = "mega_auton_brake_command\0"
                              "mega_steer_command\0"
                              "comp_hash\0"
                              "lighting_id";

/* The i-th string of a packed list (i within the list). */
static const char *nth(const char *s, size_t i)
{
    for (; i > 0; i--)
        s += strlen(s) + 1;
    return s;
}

static int index_of(uint8_t id)
{
    for (size_t i = 0; i < NIDS && ids[i] <= id; i++)
        if (ids[i] == id)
            return (int)i;
    return -1;
}

const char *bw_rbsm_name(uint8_t id)
{
    int i = index_of(id);
    return i < 0 ? "unknown" : nth(names, (size_t)i);
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* Length of the prefix of s that equals the lower-case word w, ignoring
 * case, if s starts with all of w; else 0. */
static size_t starts_with(const char *s, const char *w)
{
    size_t n = 0;
    while (w[n] && lower(s[n]) == w[n])
        n++;
    return w[n] ? 0 : n;
}

/* Index of name in a packed list of n strings, or -1. */
static int find(const char *list, size_t n, const char *name)
{
    const char *s = list;
    for (size_t i = 0; i < n; i++, s += strlen(s) + 1) {
        size_t k = starts_with(name, s);
        if (k && !name[k])
            return (int)i;
    }
    return -1;
}

int bw_rbsm_id(const char *name)
{
    if (!name)
        return BW_EUNKNOWN;
    name += starts_with(name, "rbsm_mid_");
    int i = find(names, NIDS, name);
    if (i >= 0)
        return ids[i];
    i = find(aliases, sizeof alias_ids, name);
    return i >= 0 ? alias_ids[i] : BW_EUNKNOWN;
}

static BW_HOT_INLINE bool known(uint8_t id)
{
#if BW_SMALL
    return id != BW_RBSM_MID_RESERVED && index_of(id) >= 0;
#else
    /* Asked of every message decoded: the search unrolled over the table,
     * which the compiler turns into a test of a few bits. */
    bool found = false;
    BW_UNROLL_ALL
    for (size_t i = 0; i < NIDS; i++)
        found |= ids[i] == id;
    return found && id != BW_RBSM_MID_RESERVED;
#endif
}

bool bw_rbsm_known(uint8_t id) { return known(id); }

int bw_rbsm_id_at(unsigned i) { return i < NIDS ? ids[i] : -1; }

static BW_HOT_INLINE bw_rbsm_layout_t layout(uint8_t id)
{
    switch (id) {
    case BW_RBSM_MID_MEGA_STEER_ANGLE:
    case BW_RBSM_MID_MEGA_STEER_FEEDBACK: return BW_RBSM_SIGNED;
    case BW_RBSM_MID_MEGA_COMMAND: return BW_RBSM_COMMAND;
    default: return BW_RBSM_UNSIGNED;
    }
}

bw_rbsm_layout_t bw_rbsm_layout(uint8_t id) { return layout(id); }

bool bw_rbsm_is_brake(uint8_t id)
{
    return id == BW_RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND || id == BW_RBSM_MID_BRAKE_COMMAND ||
           id == BW_RBSM_MID_MEGA_BRAKE_STATE;
}

const char *bw_rbsm_device_name(uint32_t device_id)
{
    switch (device_id) {
    case BW_RBSM_DID_MEGA: return "mega";
    case BW_RBSM_DID_DRIVE_ENCODER: return "drive_encoder";
    default: return "unknown";
    }
}

static const char error_names[] = "watchdog\0"
                                  "lost_stream\0"
                                  "invalid_mid\0"
                                  "rc_lost\0"
                                  "auton_lost";

const char *bw_rbsm_error_name(unsigned bit)
{
    return bit < BW_RBSM_ERR_BITS ? nth(error_names, bit) : NULL;
}

/* ---- one message ---------------------------------------------------------- */

int bw_rbsm_encode(uint8_t *buf, size_t cap, uint8_t id, uint32_t word)
{
    if (cap < BW_RBSM_MSG_LEN)
        return BW_ENOSPC;
    buf[0] = id;
    bw_put_be32(buf + 1, word);
    buf[5] = BW_RBSM_FOOTER;
    return (int)BW_RBSM_MSG_LEN;
}

int bw_rbsm_decode_frame(const uint8_t *buf, size_t len, bw_rbsm_frame_t *frame)
{
    if (len < BW_RBSM_MSG_LEN)
        return BW_ETRUNC;
    if (len > BW_RBSM_MSG_LEN || buf[5] != BW_RBSM_FOOTER)
        return BW_ELENGTH;
    frame->id = buf[0];
    frame->word = bw_get_be32(buf + 1);
    return 0;
}

static BW_HOT_INLINE void msg_init(bw_rbsm_msg_t *msg, uint8_t id)
{
    memset(msg, 0, sizeof *msg);
    msg->id = id;
    msg->layout = (uint8_t)layout(id);
}

void bw_rbsm_msg_init(bw_rbsm_msg_t *msg, uint8_t id) { msg_init(msg, id); }

int bw_rbsm_decode(const bw_rbsm_frame_t *frame, bw_rbsm_msg_t *msg)
{
    uint32_t w = frame->word;
    msg_init(msg, frame->id);
    if (msg->layout == BW_RBSM_UNSIGNED) {
        msg->value = w;
    } else {
        msg->value = (int32_t)w;
        if (msg->layout == BW_RBSM_COMMAND) {
            msg->angle = (int16_t)(uint16_t)(w >> 16);
            msg->brake = (uint8_t)(w >> 8);
            msg->spare = (uint8_t)w;
        }
    }
    return known(frame->id) ? 0 : BW_EUNKNOWN;
}

int bw_rbsm_frame_of(const bw_rbsm_msg_t *msg, bw_rbsm_frame_t *frame)
{
    uint32_t w;
    switch (bw_rbsm_layout(msg->id)) {
    case BW_RBSM_COMMAND: w = bw_rbsm_command_word(msg->angle, msg->brake, msg->spare); break;
    case BW_RBSM_SIGNED:
        if (msg->value < INT32_MIN || msg->value > INT32_MAX)
            return BW_ERANGE;
        w = (uint32_t)(int32_t)msg->value;
        break;
    case BW_RBSM_UNSIGNED:
    default:
        if (msg->value < 0 || msg->value > (int64_t)UINT32_MAX)
            return BW_ERANGE;
        w = (uint32_t)msg->value;
        break;
    }
    frame->id = msg->id;
    frame->word = w;
    return 0;
}

int bw_rbsm_encode_msg(uint8_t *buf, size_t cap, const bw_rbsm_msg_t *msg)
{
    bw_rbsm_frame_t f;
    int rc = bw_rbsm_frame_of(msg, &f);
    return rc < 0 ? rc : bw_rbsm_encode(buf, cap, f.id, f.word);
}

/* ---- streaming receiver --------------------------------------------------- */

void bw_rbsm_parser_init(bw_rbsm_parser_t *p) { memset(p, 0, sizeof *p); }

/*
 * The receiver looks at one stream: the held bytes, then the caller's input.
 * Byte k of it is buf[k] while k < held, else d[k - held]. Since held is at
 * most 5, a candidate's footer (k + 5 >= 5) is always in the input.
 */
static uint8_t at(const bw_rbsm_parser_t *p, const uint8_t *d, size_t k)
{
    return k < p->held ? p->buf[k] : d[k - p->held];
}

/* Drops the first n bytes of the stream (n <= held + len). */
static void consume(bw_rbsm_parser_t *p, const uint8_t **data, size_t *len, size_t n)
{
    if (n < p->held) {
        /* (held <= sizeof buf; the bound says so to the compiler) */
        for (size_t i = 0; i + n < p->held && i + n < sizeof p->buf; i++)
            p->buf[i] = p->buf[i + n];
        p->held = (uint8_t)(p->held - n);
        return;
    }
    n -= p->held;
    p->held = 0;
    *data += n;
    *len -= n;
}

static int parse(bw_rbsm_parser_t *p, const uint8_t **data, size_t *len, bw_rbsm_frame_t *frame)
{
    for (;;) {
        const uint8_t *d = *data;
        size_t n = *len, avail = p->held + n;
        if (avail < BW_RBSM_MSG_LEN) {
            if (n) { /* an empty read may come with a NULL pointer */
                memcpy(p->buf + p->held, d, n);
                *data = d + n;
                *len = 0;
            }
            p->held = (uint8_t)avail;
            return 0;
        }
        if (d[5 - p->held] == BW_RBSM_FOOTER) {
            frame->id = at(p, d, 0);
            frame->word = ((uint32_t)at(p, d, 1) << 24) | ((uint32_t)at(p, d, 2) << 16) |
                          ((uint32_t)at(p, d, 3) << 8) | at(p, d, 4);
            consume(p, data, len, BW_RBSM_MSG_LEN);
            p->synced = true;
            p->stats.frames++;
            return 1;
        }
        /* The next candidate is the nearest later start whose sixth byte is
         * a footer; with no footer in sight, the last 5 bytes may still
         * start one. Only input bytes can be a later candidate's footer. */
        size_t from = BW_RBSM_MSG_LEN - p->held;
        const uint8_t *f = memchr(d + from, BW_RBSM_FOOTER, n - from);
        size_t next = f ? (size_t)(f - d) + p->held - 5 : avail - 5;
        p->stats.skipped_bytes += next;
        consume(p, data, len, next);
        if (p->synced) {
            p->synced = false;
            p->stats.length_errors++;
            return BW_ELENGTH;
        }
    }
}

int bw_rbsm_parse(bw_rbsm_parser_t *p, const uint8_t **data, size_t *len, bw_rbsm_frame_t *frame)
{
#if !BW_SMALL
    /* What parse does for a message that starts the input with nothing
     * held, as they come one after another: once per 6 bytes. */
    if (p->held == 0 && *len >= BW_RBSM_MSG_LEN && (*data)[5] == BW_RBSM_FOOTER) {
        frame->id = (*data)[0];
        frame->word = bw_get_be32(*data + 1);
        *data += BW_RBSM_MSG_LEN;
        *len -= BW_RBSM_MSG_LEN;
        p->synced = true;
        p->stats.frames++;
        return 1;
    }
#endif
    return parse(p, data, len, frame);
}

int bw_rbsm_parser_finish(bw_rbsm_parser_t *p)
{
    int rc = 0;
    if (p->held && p->synced) {
        p->stats.length_errors++;
        rc = BW_ETRUNC;
    }
    p->stats.skipped_bytes += p->held;
    p->held = 0;
    p->synced = false;
    return rc;
}
