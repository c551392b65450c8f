/*
 * lobot messages as JSON for `botwire decode` and `botwire encode`.
 *
 * One message per frame (a command, an ACK): --frames changes nothing, and
 * an array is not a line encode takes.
 *
 * A command with a bad parity or an unknown id is not shown: it counts as a
 * checksum error or as unknown. The parser skips its first byte only and
 * rescans the other three, since after a lost, extra or damaged byte they
 * belong to the next command (and until it finds one whose parameter its id
 * takes, it takes no other: lobot.h); writing the four bytes out as a
 * message would send them twice. So decode | encode is byte-exact for every
 * command the parser returns, and what it rejects is what the stats line
 * counts.
 *
 * "cmd" is the id as a one-character string when it is printable ASCII
 * (every known id is); encode takes it so, as "id" (a number: any byte,
 * for a test that sends an unknown one on purpose), or by "name". "param"
 * is always shown and takes the whole signed 16-bit range: values are
 * written as they are (FORWARD 600 goes out as such), so every decoded
 * command encodes back.
 *
 * SENSORS bytes 8 and 9 are unused and not shown; when they are not zero
 * the message also has "raw", the ACK's bytes as received, which encode
 * writes instead (it must agree with the fields but for those two bytes).
 *
 * docs/lobot.md's paragraphs:
 *
 * lobot message types (`--proto lobot`, an iRobot Create with its Command
 * Module): from the host `command` (cmd, the id as a one-character string;
 * name: nop, forward, reverse, stop, left, right, straight, spin,
 * enable_rear_bumps, disable_rear_bumps; param, signed); from the robot
 * `ready`, `bumps` and `cliffs` (flags, distance, angle), `wheel_drops`
 * (flags), `remote` (ir), `sensors` (the Create's group 6 by the
 * OI's names, bumps_wheel_drops to requested_left_speed, then spin_flag).
 * `encode` takes a command by `cmd` letter or by `name`, in any case (`SPIN`
 * or `spin`); param is 0 unless given; `id` (a number) writes any id, known
 * or not. A command with a bad parity or an unknown id is not shown, but
 * counted (as a checksum error, as unknown), and the decoder rescans its
 * bytes for the commands' step.
 *
 * Create Open Interface message types (`--proto create`): from the host one
 * per opcode: `start`, `baud` (code), `control`, `safe`, `full`, `spot`,
 * `cover`, `demo` (demo), `drive` (velocity, radius), `low_side_drivers`
 * (bits), `leds` (bits, color, intensity), `song` (song, notes as
 * [[note, duration], ...]), `play` (song), `sensors` (packet_id),
 * `cover_and_dock`, `pwm_low_side_drivers` (lsd2, lsd1, lsd0),
 * `drive_direct` (right_velocity, left_velocity), `digital_outputs` (bits),
 * `stream` and `query_list` (ids), `pause_resume_stream` (resume), `send_ir`
 * (byte), `script` (data as hex), `play_script`, `show_script`, `wait_time`
 * (time), `wait_distance` (distance), `wait_angle` (angle), `wait_event`
 * (event); from the robot the Stream frames, `stream` (packets: in wire
 * order, `sensors_group0` to `sensors_group6` with the sensor fields by
 * name, a single packet as `{"type":"distance","value":-10}`, and
 * `{"type":"unused","id":15,"value":0}`). Replies to Sensors and Query List
 * have no framing and are skipped; bytes from the host that are no opcode
 * are skipped and unknown. A group or lobot `sensors` whose unused bytes are
 * not zero also has `raw`, its bytes as received, which `encode` writes.
 */
#include <string.h>

#include "jw.h"
#include "botwire/lobot.h"

typedef struct {
    bw_lobot_cmd_parser_t cmds;
    bw_lobot_ack_parser_t acks;
    bool from_robot;
} lobot_state_t;

static void l_init(void *state, bool from_robot, bool frames)
{
    (void)frames;
    lobot_state_t *s = state;
    bw_lobot_cmd_parser_init(&s->cmds);
    bw_lobot_ack_parser_init(&s->acks);
    s->from_robot = from_robot;
}

static bool printable(uint8_t c) { return c >= 0x20 && c <= 0x7E; }

static void put_cmd(jw_t *w, const bw_lobot_cmd_t *c)
{
    jw_msg_begin(w, "command");
    if (printable(c->id)) {
        jw_key(w, "cmd");
        jw_str(w, (const char *)&c->id, 1);
    } else {
        jw_key_int(w, "id", c->id);
    }
    const char *name = bw_lobot_cmd_name(c->id);
    if (name)
        jw_key_str(w, "name", name);
    jw_key_int(w, "param", c->param);
    jw_msg_end(w);
    jw_line_end(w);
}

static void put_ack(jw_t *w, const bw_lobot_ack_frame_t *f)
{
    uint8_t wire[BW_LOBOT_MAX_ACK], again[BW_LOBOT_MAX_ACK];
    bw_lobot_ack_t ack;
    wire[0] = f->id;
    memcpy(wire + 1, f->data, f->len);
    bw_lobot_decode_ack(f->id, f->data, f->len, &ack);
    jw_msg_begin(w, bw_lobot_ack_name(f->id));
    jw_desc(w, bw_lobot_ack_desc(f->id), &ack);
    int n = bw_lobot_encode_ack(again, sizeof again, &ack);
    if (n != 1 + f->len || memcmp(again, wire, (size_t)n) != 0)
        jw_key_hex(w, "raw", wire, 1u + f->len);
    jw_msg_end(w);
    jw_line_end(w);
}

static int l_push(void *state, const uint8_t *data, size_t n, jw_t *w)
{
    lobot_state_t *s = state;
    int rc;
    if (!s->from_robot) {
        bw_lobot_cmd_t cmd;
        /* A bad parity (BW_ECHECKSUM) is counted by the parser; see the top. */
        while ((rc = bw_lobot_cmd_parse(&s->cmds, &data, &n, &cmd)) != 0) {
            if (rc > 0)
                put_cmd(w, &cmd);
            if (w->failed)
                return -1;
        }
        return 0;
    }
    bw_lobot_ack_frame_t f;
    while (bw_lobot_ack_parse(&s->acks, &data, &n, &f) > 0) {
        put_ack(w, &f);
        if (w->failed)
            return -1;
    }
    return 0;
}

static int l_finish(void *state, jw_t *w, bw_parse_stats_t *stats)
{
    lobot_state_t *s = state;
    if (!s->from_robot) {
        bw_lobot_cmd_parser_finish(&s->cmds);
        *stats = s->cmds.stats;
        return 0;
    }
    bw_lobot_ack_frame_t f;
    while (bw_lobot_ack_parser_finish(&s->acks, &f) > 0)
        if (!w->failed)
            put_ack(w, &f);
    *stats = s->acks.stats;
    return w->failed ? -1 : 0;
}

const jw_decoder_t jw_decoder_lobot = {
    .name = "lobot",
    .state_size = sizeof(lobot_state_t),
    .init = l_init,
    .push = l_push,
    .finish = l_finish,
};

/* ---- JSON to messages ---------------------------------------------------------- */

/* "unknown lobot WHAT "name" (WHATs: lead, every name of the table)". */
static int unknown(const char *what, const char *name, const char *lead, int (*at)(unsigned),
                   const char *(*name_of)(uint8_t), char *err, size_t errlen)
{
    int n = snprintf(err, errlen, "unknown lobot %s \"%s\" (%ss:%s%s", what, name, what,
                     lead ? " " : "", lead ? lead : "");
    for (unsigned i = 0; at(i) >= 0 && n > 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, "%s %s", i || lead ? "," : "",
                      name_of((uint8_t)at(i)));
    if (n > 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - (size_t)n, ")");
    return -1;
}

/* The id named by "cmd", "id" and "name", which must agree. */
static int get_cmd_id(json_t *o, uint8_t *id, char *err, size_t errlen)
{
    static const char *const keys[] = { "cmd", "id", "name" };
    int ids[3];
    char shown[3][40];
    for (size_t k = 0; k < 3; k++) {
        json_t *v = json_object_get(o, keys[k]);
        ids[k] = -1;
        if (!v)
            continue;
        if (k == 1) {
            int64_t x;
            if (jm_get_int(o, "id", 0, 255, &x, err, errlen) < 0)
                return -1;
            ids[k] = (int)x;
            snprintf(shown[k], sizeof shown[k], "%d", ids[k]);
            continue;
        }
        const char *s = json_string_value(v);
        if (k == 0 && (!s || json_string_length(v) != 1 || !printable((uint8_t)s[0]))) {
            snprintf(err, errlen, "field \"cmd\" must be one printable ASCII character (another "
                                  "byte is \"id\")");
            return -1;
        }
        if (k == 2 && !s) {
            snprintf(err, errlen, "field \"name\" must be a string");
            return -1;
        }
        ids[k] = k == 0 ? (uint8_t)s[0] : bw_lobot_cmd_id(s);
        if (ids[k] < 0)
            return unknown("command", s, NULL, bw_lobot_cmd_at, bw_lobot_cmd_name, err, errlen);
        snprintf(shown[k], sizeof shown[k], "\"%.20s\" is %d", s, ids[k]);
    }
    int first = -1;
    for (int k = 0; k < 3; k++) {
        if (ids[k] < 0)
            continue;
        if (first < 0) {
            first = k;
        } else if (ids[k] != ids[first]) {
            snprintf(err, errlen, "fields \"%s\" (%s) and \"%s\" (%s) disagree", keys[first],
                     shown[first], keys[k], shown[k]);
            return -1;
        }
    }
    if (first < 0) {
        snprintf(err, errlen, "missing field \"cmd\" or \"name\" (or \"id\")");
        return -1;
    }
    *id = (uint8_t)ids[first];
    return 0;
}

static int encode_command(json_t *o, uint8_t *buf, size_t cap, char *err, size_t errlen)
{
    static const char *const keys[] = { "cmd", "id", "name", "param", NULL };
    uint8_t id = 0;
    int64_t param = 0;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0 || get_cmd_id(o, &id, err, errlen) < 0)
        return -1;
    if (json_object_get(o, "param") &&
        jm_get_int(o, "param", INT16_MIN, INT16_MAX, &param, err, errlen) < 0)
        return -1;
    return bw_lobot_encode_cmd(buf, cap, id, (int16_t)param);
}

static int encode_ack(json_t *o, uint8_t id, uint8_t *buf, size_t cap, char *err, size_t errlen)
{
    static const char *const keys[] = { "raw", NULL };
    const bw_msgdesc_t *d = bw_lobot_ack_desc(id);
    bw_lobot_ack_t ack;
    bw_lobot_ack_init(&ack, id);
    if (jm_check_keys(o, d, keys, err, errlen) < 0 || jm_get_fields(o, d, &ack, err, errlen) < 0)
        return -1;
    int n = bw_lobot_encode_ack(buf, cap, &ack);
    if (n < 0 || !json_object_get(o, "raw"))
        return n;
    /* The bytes as received: the fields' encoding but for the unused bytes. */
    uint8_t raw[BW_LOBOT_MAX_ACK], again[BW_LOBOT_MAX_ACK];
    size_t nraw;
    bw_lobot_ack_t back;
    if (jm_get_hex(o, "raw", raw, sizeof raw, &nraw, err, errlen) < 0)
        return -1;
    if (nraw != (size_t)n || raw[0] != id || bw_lobot_decode_ack(id, raw + 1, nraw - 1, &back) < 0 ||
        bw_lobot_encode_ack(again, sizeof again, &back) != n || memcmp(again, buf, (size_t)n) != 0) {
        snprintf(err, errlen, "field \"raw\" must be this %s ACK as received: '%c' and its %d data "
                              "bytes, which differ from the fields in unused bytes only",
                 d->name, id, n - 1);
        return -1;
    }
    memcpy(buf, raw, nraw);
    return n;
}

static int l_encode(json_t *line, jw_buf_t *out, char *err, size_t errlen)
{
    if (!json_is_object(line)) {
        snprintf(err, errlen, "a line must be one message object (lobot has one message per frame)");
        return -1;
    }
    json_t *type = json_object_get(line, "type");
    if (!json_is_string(type)) {
        snprintf(err, errlen, "missing string field \"type\"");
        return -1;
    }
    const char *name = json_string_value(type);
    if (strcmp(name, "stats") == 0)
        return 1;
    uint8_t buf[BW_LOBOT_MAX_ACK];
    int n;
    if (strcmp(name, "command") == 0) {
        n = encode_command(line, buf, sizeof buf, err, errlen);
    } else {
        int id = -1;
        for (unsigned i = 0; id < 0 && bw_lobot_ack_at(i) >= 0; i++)
            if (strcmp(bw_lobot_ack_name((uint8_t)bw_lobot_ack_at(i)), name) == 0)
                id = bw_lobot_ack_at(i);
        if (id < 0)
            return unknown("message type", name, "command", bw_lobot_ack_at, bw_lobot_ack_name, err,
                           errlen);
        n = encode_ack(line, (uint8_t)id, buf, sizeof buf, err, errlen);
    }
    if (n < 0)
        return -1;
    return jw_buf_append(out, buf, (size_t)n) < 0 ? (snprintf(err, errlen, "out of memory"), -1) : 0;
}

const jw_codec_t jw_codec_lobot = {
    .name = "lobot",
    .summary = "iRobot Create + Command Module, lobot (4-byte commands, ACKs)",
    .encode = l_encode,
};
