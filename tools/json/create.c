/*
 * Create Open Interface messages as JSON for `botwire decode` and `botwire
 * encode` (the message types are listed at the top of lobot.c).
 *
 * One message per frame: a command from the host, a Stream frame from the
 * robot. --frames changes nothing, and an array is not a line encode takes.
 *
 * A Stream frame is one object, {"type":"stream","packets":[...]}, its
 * packets in wire order, each shown whole (a packet sent twice is shown
 * twice), so decode | encode gives the frame back byte for byte; the
 * checksum is the header-included one (create.h), the only one decode
 * accepts. Groups 0, 1 and 6 hold the unused packets 15 and 16; when those
 * bytes are not zero the group also has "raw", the packet's id and data as
 * received, which encode writes instead (it must agree with the fields but
 * for those bytes). The Stream command from the host is also "stream", with
 * "ids": encode tells the two apart by "ids" or "packets".
 *
 * Values take their whole wire range, not the robot's (a Drive of 600 mm/s,
 * a Stream asking for packet 99), so everything decode shows encodes back.
 *
 * Replies to Sensors and Query List carry no framing: only the host knows
 * what it asked for, and decode skips them (--packet is not offered: the
 * decode command gives a protocol no options of its own).
 */
#include <string.h>

#include "../cli.h"
#include "jw.h"
#include "botwire/create.h"

typedef struct {
    bw_create_cmd_parser_t cmds;
    bw_create_stream_parser_t stream;
    bool from_robot;
} create_state_t;


static void c_init(void *state, bool from_robot, bool frames)
{
    (void)frames;
    create_state_t *s = state;
    bw_create_cmd_parser_init(&s->cmds);
    bw_create_stream_parser_init(&s->stream, BW_CREATE_SUM_WITH_HEADER);
    s->from_robot = from_robot;
}

static void put_cmd(jw_t *w, const bw_create_cmd_t *c)
{
    jw_msg_begin(w, bw_create_op_name(c->opcode));
    switch (c->opcode) {
    case BW_CREATE_OP_SONG:
        jw_key_int(w, "song", c->u.song.number);
        jw_key(w, "notes");
        jw_open(w, '[');
        for (size_t i = 0; i < c->u.song.length; i++) {
            jw_open(w, '[');
            jw_int(w, c->u.song.notes[i].note);
            jw_int(w, c->u.song.notes[i].duration);
            jw_close(w, ']');
        }
        jw_close(w, ']');
        break;
    case BW_CREATE_OP_STREAM:
    case BW_CREATE_OP_QUERY_LIST:
        jw_key(w, "ids");
        jw_open(w, '[');
        for (size_t i = 0; i < c->u.packets.n; i++)
            jw_int(w, c->u.packets.ids[i]);
        jw_close(w, ']');
        break;
    case BW_CREATE_OP_SCRIPT: jw_key_hex(w, "data", c->u.script.bytes, c->u.script.length); break;
    default: jw_desc(w, bw_create_cmd_desc(c->opcode), c); break;
    }
    jw_msg_end(w);
}

static bool unused_packet(const bw_msgdesc_t *d)
{
    return d->nfields == 1 && d->fields[0].type == BW_FT_PAD;
}

static void put_packet(jw_t *w, uint8_t id, const uint8_t *data)
{
    const bw_msgdesc_t *d = bw_create_packet_desc(id);
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    bw_create_decode_packet(id, data, d->wire_len, &s);
    if (id > BW_CREATE_GROUP_6 && unused_packet(d)) {
        jw_msg_begin(w, "unused");
        jw_key_int(w, "id", id);
        jw_key_int(w, "value", data[0]);
    } else if (id > BW_CREATE_GROUP_6) {
        jw_msg_begin(w, d->name);
        jw_key_int(w, "value", bw_field_get(&s, &d->fields[0], 0));
    } else {
        static const char *const groups[] = {
            "sensors_group0", "sensors_group1", "sensors_group2", "sensors_group3",
            "sensors_group4", "sensors_group5", "sensors_group6",
        };
        jw_msg_begin(w, groups[id]);
        jw_desc(w, d, &s);
        uint8_t again[BW_CREATE_GROUP6_SIZE];
        bw_create_encode_packet(again, sizeof again, id, &s);
        if (memcmp(again, data, d->wire_len) != 0) {
            uint8_t wire[1 + BW_CREATE_GROUP6_SIZE];
            wire[0] = id;
            memcpy(wire + 1, data, d->wire_len);
            jw_key_hex(w, "raw", wire, 1u + d->wire_len);
        }
    }
    jw_msg_end(w);
}

static void put_frame(jw_t *w, const bw_create_stream_frame_t *f)
{
    jw_msg_begin(w, "stream");
    jw_key(w, "packets");
    jw_open(w, '[');
    size_t off = 0;
    uint8_t id;
    const uint8_t *data;
    /* The parser has walked the body already: every packet is whole. */
    while (bw_create_stream_next(f, &off, &id, &data) > 0)
        put_packet(w, id, data);
    jw_close(w, ']');
    jw_msg_end(w);
}

static int emit_one(create_state_t *s, int rc, const bw_create_cmd_frame_t *cmd,
                    const bw_create_stream_frame_t *frame, jw_t *w)
{
    if (rc <= 0)
        return 0; /* rejected: counted by the parser */
    if (s->from_robot) {
        put_frame(w, frame);
    } else {
        bw_create_cmd_t c;
        bw_create_decode_cmd(cmd->bytes, cmd->len, &c);
        put_cmd(w, &c);
    }
    jw_line_end(w);
    return w->failed ? -1 : 0;
}

static int c_push(void *state, const uint8_t *data, size_t n, jw_t *w)
{
    create_state_t *s = state;
    bw_create_cmd_frame_t cmd;
    bw_create_stream_frame_t frame;
    for (;;) {
        int rc = s->from_robot ? bw_create_stream_parse(&s->stream, &data, &n, &frame)
                               : bw_create_cmd_parse(&s->cmds, &data, &n, &cmd);
        if (rc == 0)
            return 0;
        if (emit_one(s, rc, &cmd, &frame, w) < 0)
            return -1;
    }
}

static int c_finish(void *state, jw_t *w, bw_parse_stats_t *stats)
{
    create_state_t *s = state;
    bw_create_cmd_frame_t cmd;
    bw_create_stream_frame_t frame;
    int status = 0;
    for (;;) {
        int rc = s->from_robot ? bw_create_stream_parser_finish(&s->stream, &frame)
                               : bw_create_cmd_parser_finish(&s->cmds, &cmd);
        if (rc == 0)
            break;
        if (status == 0 && emit_one(s, rc, &cmd, &frame, w) < 0)
            status = -1;
    }
    *stats = s->from_robot ? s->stream.stats : s->cmds.stats;
    return status;
}

const jw_decoder_t jw_decoder_create = {
    .name = "create",
    .state_size = sizeof(create_state_t),
    .init = c_init,
    .push = c_push,
    .finish = c_finish,
};

/* ---- JSON to messages ---------------------------------------------------------- */

/* An array member of at most max elements (at least min). */
static json_t *get_array(json_t *o, const char *key, size_t min, size_t max, const char *what,
                         char *err, size_t errlen)
{
    json_t *a = json_object_get(o, key);
    if (!json_is_array(a) || json_array_size(a) < min || json_array_size(a) > max) {
        snprintf(err, errlen, "field \"%s\" must be an array of %zu..%zu %s", key, min, max, what);
        return NULL;
    }
    return a;
}

static bool get_byte(json_t *v, uint8_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 255)
        return false;
    *out = (uint8_t)json_integer_value(v);
    return true;
}

static int get_song(json_t *o, bw_create_cmd_t *c, char *err, size_t errlen)
{
    static const char *const keys[] = { "song", "notes", NULL };
    int64_t song;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
        jm_get_int(o, "song", 0, 255, &song, err, errlen) < 0)
        return -1;
    json_t *notes = get_array(o, "notes", 1, BW_CREATE_MAX_SONG, "[note, duration] pairs", err,
                              errlen);
    if (!notes)
        return -1;
    c->u.song.number = (uint8_t)song;
    c->u.song.length = (uint8_t)json_array_size(notes);
    for (size_t i = 0; i < c->u.song.length; i++) {
        json_t *p = json_array_get(notes, i);
        bw_create_note_t *nt = &c->u.song.notes[i];
        if (!json_is_array(p) || json_array_size(p) != 2 ||
            !get_byte(json_array_get(p, 0), &nt->note) ||
            !get_byte(json_array_get(p, 1), &nt->duration)) {
            snprintf(err, errlen, "notes[%zu] must be [note, duration]: integers 0..255", i);
            return -1;
        }
    }
    return 0;
}

static int get_ids(json_t *o, bw_create_cmd_t *c, char *err, size_t errlen)
{
    static const char *const keys[] = { "ids", NULL };
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0)
        return -1;
    json_t *ids = get_array(o, "ids", 0, BW_CREATE_MAX_PACKETS, "packet ids", err, errlen);
    if (!ids)
        return -1;
    c->u.packets.n = (uint8_t)json_array_size(ids);
    for (size_t i = 0; i < c->u.packets.n; i++) {
        if (!get_byte(json_array_get(ids, i), &c->u.packets.ids[i])) {
            snprintf(err, errlen, "ids[%zu] must be an integer 0..255", i);
            return -1;
        }
    }
    return 0;
}

static int get_script(json_t *o, bw_create_cmd_t *c, char *err, size_t errlen)
{
    static const char *const keys[] = { "data", NULL };
    size_t n;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
        jm_get_hex(o, "data", c->u.script.bytes, BW_CREATE_MAX_SCRIPT, &n, err, errlen) < 0)
        return -1;
    if (n == 0) {
        snprintf(err, errlen, "field \"data\" must hold 1..%u bytes", BW_CREATE_MAX_SCRIPT);
        return -1;
    }
    c->u.script.length = (uint8_t)n;
    return 0;
}

static int encode_cmd(json_t *o, uint8_t op, cli_buf_t *out, char *err, size_t errlen)
{
    bw_create_cmd_t c;
    bw_create_cmd_init(&c, op);
    int rc;
    switch (op) {
    case BW_CREATE_OP_SONG: rc = get_song(o, &c, err, errlen); break;
    case BW_CREATE_OP_STREAM:
    case BW_CREATE_OP_QUERY_LIST: rc = get_ids(o, &c, err, errlen); break;
    case BW_CREATE_OP_SCRIPT: rc = get_script(o, &c, err, errlen); break;
    default: {
        const bw_msgdesc_t *d = bw_create_cmd_desc(op);
        rc = jm_check_keys(o, d, NULL, err, errlen) < 0 ? -1 : jm_get_fields(o, d, &c, err, errlen);
        break;
    }
    }
    if (rc < 0)
        return -1;
    uint8_t buf[BW_CREATE_MAX_CMD];
    int n = bw_create_encode_cmd(buf, sizeof buf, &c);
    if (n < 0) {
        snprintf(err, errlen, "cannot encode %s: %s", bw_create_op_name(op), bw_strerror(n));
        return -1;
    }
    return cli_buf_append(out, buf, (size_t)n) < 0 ? (snprintf(err, errlen, "out of memory"), -1) : 0;
}

/* The packet id a stream packet's type names, or -1. */
static int packet_id(const char *name)
{
    static const char group[] = "sensors_group";
    size_t k = sizeof group - 1;
    if (strncmp(name, group, k) == 0 && name[k] >= '0' && name[k] <= '0' + BW_CREATE_GROUP_6 &&
        name[k + 1] == 0)
        return name[k] - '0';
    for (unsigned id = BW_CREATE_GROUP_6 + 1; id <= BW_CREATE_LAST_PACKET; id++) {
        const bw_msgdesc_t *d = bw_create_packet_desc((uint8_t)id);
        if (!unused_packet(d) && strcmp(d->name, name) == 0)
            return (int)id;
    }
    return -1;
}

/* One packet of a Stream frame: its id and data appended at body + *len. */
static int get_packet(json_t *o, uint8_t *body, size_t *len, char *err, size_t errlen)
{
    json_t *type = json_object_get(o, "type");
    if (!json_is_object(o) || !json_is_string(type)) {
        snprintf(err, errlen, "must be an object with a string \"type\"");
        return -1;
    }
    const char *name = json_string_value(type);
    int id = packet_id(name);
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    uint8_t wire[1 + BW_CREATE_GROUP6_SIZE];
    if (strcmp(name, "unused") == 0) {
        static const char *const keys[] = { "id", "value", NULL };
        int64_t v, pid;
        if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
            jm_get_int(o, "id", BW_CREATE_PKT_UNUSED_15, BW_CREATE_PKT_UNUSED_16, &pid, err,
                       errlen) < 0 ||
            jm_get_int(o, "value", 0, 255, &v, err, errlen) < 0)
            return -1;
        wire[0] = (uint8_t)pid;
        wire[1] = (uint8_t)v;
    } else if (id > BW_CREATE_GROUP_6) {
        static const char *const keys[] = { "value", NULL };
        const bw_field_t *f = &bw_create_packet_desc((uint8_t)id)->fields[0];
        bw_ftype_t t = (bw_ftype_t)f->type;
        int64_t v;
        if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
            jm_get_int(o, "value", bw_ftype_min(t), bw_ftype_max(t), &v, err, errlen) < 0)
            return -1;
        bw_field_set(&s, f, 0, v);
    } else if (id >= 0) {
        static const char *const keys[] = { "raw", NULL };
        const bw_msgdesc_t *d = bw_create_packet_desc((uint8_t)id);
        if (jm_check_keys(o, d, keys, err, errlen) < 0 || jm_get_fields(o, d, &s, err, errlen) < 0)
            return -1;
    } else {
        snprintf(err, errlen, "unknown sensor packet \"%s\"", name);
        return -1;
    }
    if (id >= 0) {
        wire[0] = (uint8_t)id;
        bw_create_encode_packet(wire + 1, sizeof wire - 1, (uint8_t)id, &s);
    }
    size_t n = 1u + (size_t)bw_create_packet_size(wire[0]);
    if (json_object_get(o, "raw")) {
        /* The bytes as received: the fields' encoding but for unused bytes. */
        uint8_t raw[1 + BW_CREATE_GROUP6_SIZE], again[BW_CREATE_GROUP6_SIZE];
        size_t nraw;
        bw_create_sensors_t back;
        memset(&back, 0, sizeof back);
        if (jm_get_hex(o, "raw", raw, sizeof raw, &nraw, err, errlen) < 0)
            return -1;
        if (nraw != n || raw[0] != wire[0] ||
            bw_create_decode_packet(raw[0], raw + 1, nraw - 1, &back) < 0 ||
            bw_create_encode_packet(again, sizeof again, raw[0], &back) != (int)n - 1 ||
            memcmp(again, wire + 1, n - 1) != 0) {
            snprintf(err, errlen, "field \"raw\" must be this packet as received: id %u and its %zu "
                                  "data bytes, which differ from the fields in unused bytes only",
                     wire[0], n - 1);
            return -1;
        }
        memcpy(wire, raw, n);
    }
    if (*len + n > BW_CREATE_MAX_STREAM_BODY) {
        snprintf(err, errlen, "the frame's packets exceed the %u bytes a Stream frame holds",
                 BW_CREATE_MAX_STREAM_BODY);
        return -1;
    }
    memcpy(body + *len, wire, n);
    *len += n;
    return 0;
}

static int encode_stream_frame(json_t *o, cli_buf_t *out, char *err, size_t errlen)
{
    static const char *const keys[] = { "packets", NULL };
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0)
        return -1;
    json_t *packets = get_array(o, "packets", 1, BW_CREATE_MAX_STREAM_BODY / 2, "sensor packets",
                                err, errlen);
    if (!packets)
        return -1;
    uint8_t body[BW_CREATE_MAX_STREAM_BODY];
    size_t len = 0;
    for (size_t i = 0; i < json_array_size(packets); i++) {
        char why[CLI_ERRLEN];
        if (get_packet(json_array_get(packets, i), body, &len, why, sizeof why) < 0) {
            snprintf(err, errlen, "packets[%zu]: %.900s", i, why);
            return -1;
        }
    }
    uint8_t frame[BW_CREATE_MAX_FRAME];
    int n = bw_create_frame_stream_body(frame, sizeof frame, body, len, BW_CREATE_SUM_WITH_HEADER);
    if (n < 0) {
        snprintf(err, errlen, "cannot frame the stream: %s", bw_strerror(n));
        return -1;
    }
    return cli_buf_append(out, frame, (size_t)n) < 0 ? (snprintf(err, errlen, "out of memory"), -1)
                                                     : 0;
}

static int c_encode(json_t *line, cli_buf_t *out, char *err, size_t errlen)
{
    if (!json_is_object(line)) {
        snprintf(err, errlen, "a line must be one message object (create has one message per "
                              "frame)");
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
    int op = -1;
    for (unsigned i = 0; op < 0 && bw_create_op_at(i) >= 0; i++)
        if (strcmp(bw_create_op_name((uint8_t)bw_create_op_at(i)), name) == 0)
            op = bw_create_op_at(i);
    if (op < 0) {
        snprintf(err, errlen, "unknown create message type \"%s\"", name);
        return -1;
    }
    if (op == BW_CREATE_OP_STREAM && json_object_get(line, "packets")) {
        if (json_object_get(line, "ids")) {
            snprintf(err, errlen, "a stream has \"ids\" (the Stream command) or \"packets\" (a "
                                  "Stream frame), not both");
            return -1;
        }
        return encode_stream_frame(line, out, err, errlen);
    }
    return encode_cmd(line, (uint8_t)op, out, err, errlen);
}

const cli_codec_t cli_codec_create = {
    .name = "create",
    .summary = "iRobot Create Open Interface (commands, Stream frames)",
    .encode = c_encode,
};
