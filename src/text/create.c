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
 * what it asked for. A record (both directions) has the question: each
 * reply is paired with the Sensors or Query List before it, in order, and
 * shown as {"type":"reply","ids":[...],"packets":[...]}, the packets as a
 * Stream frame's (encode writes their data bytes back to back). Without the
 * question (--from robot, raw bytes) a reply is skipped as not a frame.
 * A Create 2's packets (43..58, groups 100..107, 15 as dirt_detect) are
 * read so when the host asked for one only a Create 2 has, or sent an
 * opcode only a Create 2 has (create.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jw.h"
#include "botwire/create.h"

#define MAX_ASKED 32 /* questions a record may have asked ahead of their replies */

typedef struct create_state create_state_t;
struct create_state {
    bw_create_cmd_parser_t cmds;
    bw_create_stream_parser_t stream;
    bool from_robot;
    create_state_t *robot; /* the host's: the robot direction's state (NULL: none) */
    uint32_t foreign[256]; /* the host's: opcodes skipped, by byte (Create 2 ones among them) */
    /* The robot's: what the host asked, oldest first, and the reply so far. */
    struct asked {
        uint8_t n, model;
        uint8_t ids[BW_CREATE2_MAX_PACKETS];
        uint16_t size;
    } asked[MAX_ASKED];
    unsigned head, nasked;
    uint8_t reply[BW_CREATE2_MAX_PACKETS * BW_CREATE_GROUP100_SIZE];
    size_t got;
    bool model2; /* a Create 2 is on the line */
    bool model_given; /* --model: the stream parser's model stays */
    uint64_t replies, cut;
};

static void c_init(void *state, bool from_robot, bool frames)
{
    (void)frames;
    create_state_t *s = state;
    bw_create_cmd_parser_init(&s->cmds);
    bw_create_cmd_parser_tally(&s->cmds, s->foreign);
    bw_create_stream_parser_init(&s->stream, BW_CREATE_SUM_WITH_HEADER);
    s->from_robot = from_robot;
}

/* --model create2 (or a record of a ?model=create2 robot): both directions
 * a Create 2's, its commands by their names; create (or create1) a Create
 * 1's. */
static int c_model(void *state, const char *model, char *err, size_t errlen)
{
    create_state_t *s = state;
    bool two = strcmp(model, "create2") == 0;
    if (!two && strcmp(model, "create") != 0 && strcmp(model, "create1") != 0) {
        snprintf(err, errlen, "create has no model \"%s\" (models: create, create2)", model);
        return -1;
    }
    bw_create_model_t m = two ? BW_CREATE_MODEL_2 : BW_CREATE_MODEL_1;
    bw_create_cmd_parser_model(&s->cmds, m);
    bw_create_stream_parser_model(&s->stream, m);
    s->model2 = two;
    s->model_given = true;
    return 0;
}

static void c_pair(void *host, void *robot)
{
    ((create_state_t *)host)->robot = robot;
}

/* The host sent an opcode only a Create 2 has. */
static bool saw_create2_op(const create_state_t *s)
{
    for (unsigned op = 0; op < 256; op++)
        if (s->foreign[op] && bw_create_model_op_name(BW_CREATE_MODEL_2, (uint8_t)op))
            return true;
    return false;
}

/* A Create 2 is on the line: its packets from now on, in the stream too
 * (switched only between frames). */
static void set_model2(create_state_t *r)
{
    r->model2 = true;
    if (!r->model_given && r->stream.held == r->stream.drop)
        bw_create_stream_parser_model(&r->stream, BW_CREATE_MODEL_2);
}

/* A command the host sent: a question whose reply the robot direction
 * waits for, a Stream of a Create 2's packets. */
static void host_saw(create_state_t *s, const bw_create_cmd_t *c)
{
    create_state_t *r = s->robot;
    if (!r)
        return;
    if (!r->model2 && saw_create2_op(s))
        set_model2(r);
    const uint8_t *ids = c->u.packets.ids;
    size_t n = c->u.packets.n;
    if (c->opcode == BW_CREATE_OP_SENSORS) {
        ids = &c->u.sensors;
        n = 1;
    } else if (c->opcode != BW_CREATE_OP_QUERY_LIST && c->opcode != BW_CREATE_OP_STREAM) {
        return;
    }
    if (!r->model2 && bw_create_query_size(ids, n) < 0 &&
        bw_create_model_query_size(BW_CREATE_MODEL_2, ids, n) >= 0)
        set_model2(r);
    if (c->opcode == BW_CREATE_OP_STREAM)
        return;
    bw_create_model_t m = r->model2 ? BW_CREATE_MODEL_2 : BW_CREATE_MODEL_1;
    int size = bw_create_model_query_size(m, ids, n);
    if (size <= 0 || (size_t)size > sizeof r->reply)
        return; /* a packet it does not have: the robot says nothing */
    if (r->nasked == MAX_ASKED) { /* never answered: forget the oldest */
        r->head = (r->head + 1) % MAX_ASKED;
        r->nasked--;
        r->got = 0;
    }
    struct asked *a = &r->asked[(r->head + r->nasked++) % MAX_ASKED];
    a->n = (uint8_t)n;
    a->model = (uint8_t)m;
    memcpy(a->ids, ids, n);
    a->size = (uint16_t)size;
}

static void put_cmd(jw_t *w, const bw_create_cmd_t *c)
{
    bw_create_model_t m = (bw_create_model_t)c->model;
    jw_msg_begin(w, bw_create_model_op_name(m, c->opcode));
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
    default: jw_desc(w, bw_create_model_cmd_desc(m, c->opcode), c); break;
    }
    jw_msg_end(w);
}

static bool unused_packet(const bw_msgdesc_t *d)
{
    return d->nfields == 1 && d->fields[0].type == BW_FT_PAD;
}

static bool is_group(uint8_t id) { return id <= BW_CREATE_GROUP_6 || id >= BW_CREATE_GROUP_100; }

/* A group packet's type, "sensors_group<id>": names that outlive the
 * message (a tape keeps them by their pointers). */
static const char *group_name(uint8_t id)
{
    static const char *const low[] = { "sensors_group0", "sensors_group1", "sensors_group2",
                                       "sensors_group3", "sensors_group4", "sensors_group5",
                                       "sensors_group6" };
    static const char *const high[] = { "sensors_group100", "sensors_group101",
                                        "sensors_group102", "sensors_group103",
                                        "sensors_group104", "sensors_group105",
                                        "sensors_group106", "sensors_group107" };
    if (id <= BW_CREATE_GROUP_6)
        return low[id];
    if (id >= BW_CREATE_GROUP_100 && id - BW_CREATE_GROUP_100 < (int)(sizeof high / sizeof *high))
        return high[id - BW_CREATE_GROUP_100];
    return "sensors_group"; /* no packet of the OI's has such an id */
}

static void put_packet(jw_t *w, bw_create_model_t m, uint8_t id, const uint8_t *data)
{
    const bw_msgdesc_t *d = bw_create_model_packet_desc(m, id);
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    bw_create_model_decode_packet(m, id, data, d->wire_len, &s);
    if (!is_group(id) && unused_packet(d)) {
        jw_msg_begin(w, "unused");
        jw_key_int(w, "id", id);
        jw_key_int(w, "value", data[0]);
    } else if (!is_group(id)) {
        jw_msg_begin(w, d->name);
        jw_key_int(w, "value", bw_field_get(&s, &d->fields[0], 0));
    } else {
        jw_msg_begin(w, group_name(id));
        jw_desc(w, d, &s);
        uint8_t again[BW_CREATE_GROUP100_SIZE];
        bw_create_model_encode_packet(m, again, sizeof again, id, &s);
        if (memcmp(again, data, d->wire_len) != 0) {
            uint8_t wire[1 + BW_CREATE_GROUP100_SIZE];
            wire[0] = id;
            memcpy(wire + 1, data, d->wire_len);
            jw_key_hex(w, "raw", wire, 1u + d->wire_len);
        }
    }
    jw_msg_end(w);
}

/* A reply whole: the question's packets, from the reply's bytes. */
static void put_reply(jw_t *w, const struct asked *a, const uint8_t *data)
{
    jw_msg_begin(w, "reply");
    jw_key(w, "ids");
    jw_open(w, '[');
    for (size_t i = 0; i < a->n; i++)
        jw_int(w, a->ids[i]);
    jw_close(w, ']');
    jw_key(w, "packets");
    jw_open(w, '[');
    for (size_t i = 0; i < a->n; i++) {
        put_packet(w, (bw_create_model_t)a->model, a->ids[i], data);
        data += bw_create_model_packet_size((bw_create_model_t)a->model, a->ids[i]);
    }
    jw_close(w, ']');
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
        put_packet(w, (bw_create_model_t)f->model, id, data);
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
        bw_create_model_decode_cmd((bw_create_model_t)s->cmds.model, cmd->bytes, cmd->len, &c);
        put_cmd(w, &c);
        host_saw(s, &c);
    }
    jw_line_end(w);
    return w->failed ? -1 : 0;
}

/* The robot's bytes while a question waits: its reply, unless a Stream
 * frame is under way (its bytes come first). Returns -1 (write failed), 0
 * (all input taken) or 1 (no reply to read now). */
static int take_reply(create_state_t *s, const uint8_t **data, size_t *n, jw_t *w)
{
    while (s->nasked && *n && s->stream.held == s->stream.drop) {
        const struct asked *a = &s->asked[s->head];
        size_t k = a->size - s->got;
        if (k > *n)
            k = *n;
        memcpy(s->reply + s->got, *data, k);
        s->got += k;
        *data += k;
        *n -= k;
        if (s->got < a->size)
            return 0;
        put_reply(w, a, s->reply);
        jw_line_end(w);
        s->replies++;
        s->got = 0;
        s->head = (s->head + 1) % MAX_ASKED;
        s->nasked--;
        if (w->failed)
            return -1;
    }
    return *n ? 1 : 0;
}

static int c_push(void *state, const uint8_t *data, size_t n, jw_t *w)
{
    create_state_t *s = state;
    bw_create_cmd_frame_t cmd;
    bw_create_stream_frame_t frame;
    for (;;) {
        if (s->from_robot && s->nasked) {
            int r = take_reply(s, &data, &n, w);
            if (r <= 0)
                return r;
        }
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
    if (s->from_robot) {
        stats->frames += s->replies;
        stats->length_errors += s->got > 0; /* a reply cut by the end */
    }
    return status;
}

const jw_decoder_t jw_decoder_create = {
    .name = "create",
    .state_size = sizeof(create_state_t),
    .init = c_init,
    .push = c_push,
    .finish = c_finish,
    .model = c_model,
    .pair = c_pair,
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
    json_t *ids = get_array(o, "ids", 0,
                            c->model == BW_CREATE_MODEL_2 ? BW_CREATE2_MAX_PACKETS
                                                          : BW_CREATE_MAX_PACKETS,
                            "packet ids", err, errlen);
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

static int encode_cmd(json_t *o, bw_create_model_t m, uint8_t op, jw_buf_t *out, char *err,
                      size_t errlen)
{
    bw_create_cmd_t c;
    bw_create_model_cmd_init(&c, m, op);
    int rc;
    switch (op) {
    case BW_CREATE_OP_SONG: rc = get_song(o, &c, err, errlen); break;
    case BW_CREATE_OP_STREAM:
    case BW_CREATE_OP_QUERY_LIST: rc = get_ids(o, &c, err, errlen); break;
    case BW_CREATE_OP_SCRIPT: rc = get_script(o, &c, err, errlen); break;
    default: {
        const bw_msgdesc_t *d = bw_create_model_cmd_desc(m, op);
        rc = jm_check_keys(o, d, NULL, err, errlen) < 0 ? -1 : jm_get_fields(o, d, &c, err, errlen);
        break;
    }
    }
    if (rc < 0)
        return -1;
    uint8_t buf[BW_CREATE_MAX_CMD];
    int n = bw_create_encode_cmd(buf, sizeof buf, &c);
    if (n < 0) {
        snprintf(err, errlen, "cannot encode %s: %s", bw_create_model_op_name(m, op), bw_strerror(n));
        return -1;
    }
    return jw_buf_append(out, buf, (size_t)n) < 0 ? (snprintf(err, errlen, "out of memory"), -1) : 0;
}

/* The packet id a stream packet's type names, or -1; *m: the model that
 * has it (a Create 1's names first). */
static int packet_id(const char *name, bw_create_model_t *m)
{
    static const char group[] = "sensors_group";
    size_t k = sizeof group - 1;
    *m = BW_CREATE_MODEL_1;
    if (strncmp(name, group, k) == 0) {
        char *end;
        long g = strtol(name + k, &end, 10);
        if (name[k] < '0' || name[k] > '9' || *end || (name[k] == '0' && name[k + 1]))
            return -1;
        if (g >= 0 && g <= BW_CREATE_GROUP_6)
            return (int)g;
        *m = BW_CREATE_MODEL_2;
        return g <= BW_CREATE2_LAST_PACKET && bw_create_model_packet_size(*m, (uint8_t)g) > 0
                   ? (int)g
                   : -1;
    }
    for (int model = 0; model < 2; model++) {
        *m = (bw_create_model_t)model;
        for (unsigned id = BW_CREATE_GROUP_6 + 1; id <= BW_CREATE2_LAST_VALUE; id++) {
            const bw_msgdesc_t *d = bw_create_model_packet_desc(*m, (uint8_t)id);
            if (d && !unused_packet(d) && strcmp(d->name, name) == 0)
                return (int)id;
        }
    }
    return -1;
}

/* One packet of a Stream frame: its id and data appended at body + *len
 * (at most cap bytes in all). */
static int get_packet(json_t *o, uint8_t *body, size_t *len, size_t cap, char *err, size_t errlen)
{
    json_t *type = json_object_get(o, "type");
    if (!json_is_object(o) || !json_is_string(type)) {
        snprintf(err, errlen, "must be an object with a string \"type\"");
        return -1;
    }
    const char *name = json_string_value(type);
    bw_create_model_t m;
    int id = packet_id(name, &m);
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    uint8_t wire[1 + BW_CREATE_GROUP100_SIZE];
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
        m = BW_CREATE_MODEL_1;
    } else if (id >= 0 && !is_group((uint8_t)id)) {
        static const char *const keys[] = { "value", NULL };
        const bw_field_t *f = &bw_create_model_packet_desc(m, (uint8_t)id)->fields[0];
        bw_ftype_t t = (bw_ftype_t)f->type;
        int64_t v;
        if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
            jm_get_int(o, "value", bw_ftype_min(t), bw_ftype_max(t), &v, err, errlen) < 0)
            return -1;
        bw_field_set(&s, f, 0, v);
    } else if (id >= 0) {
        static const char *const keys[] = { "raw", NULL };
        const bw_msgdesc_t *d = bw_create_model_packet_desc(m, (uint8_t)id);
        if (jm_check_keys(o, d, keys, err, errlen) < 0 || jm_get_fields(o, d, &s, err, errlen) < 0)
            return -1;
    } else {
        snprintf(err, errlen, "unknown sensor packet \"%s\"", name);
        return -1;
    }
    if (id >= 0) {
        wire[0] = (uint8_t)id;
        bw_create_model_encode_packet(m, wire + 1, sizeof wire - 1, (uint8_t)id, &s);
    }
    size_t n = 1u + (size_t)bw_create_model_packet_size(m, wire[0]);
    if (json_object_get(o, "raw")) {
        /* The bytes as received: the fields' encoding but for unused bytes. */
        uint8_t raw[1 + BW_CREATE_GROUP100_SIZE], again[BW_CREATE_GROUP100_SIZE];
        size_t nraw;
        bw_create_sensors_t back;
        memset(&back, 0, sizeof back);
        if (jm_get_hex(o, "raw", raw, sizeof raw, &nraw, err, errlen) < 0)
            return -1;
        if (nraw != n || raw[0] != wire[0] ||
            bw_create_model_decode_packet(m, raw[0], raw + 1, nraw - 1, &back) < 0 ||
            bw_create_model_encode_packet(m, again, sizeof again, raw[0], &back) != (int)n - 1 ||
            memcmp(again, wire + 1, n - 1) != 0) {
            snprintf(err, errlen, "field \"raw\" must be this packet as received: id %u and its %zu "
                                  "data bytes, which differ from the fields in unused bytes only",
                     wire[0], n - 1);
            return -1;
        }
        memcpy(wire, raw, n);
    }
    if (*len + n > cap) {
        if (cap == BW_CREATE_MAX_STREAM_BODY)
            snprintf(err, errlen, "the frame's packets exceed the %u bytes a Stream frame holds",
                     BW_CREATE_MAX_STREAM_BODY);
        else
            snprintf(err, errlen, "the packets exceed the %zu bytes this holds", cap);
        return -1;
    }
    memcpy(body + *len, wire, n);
    *len += n;
    return 0;
}

static int encode_stream_frame(json_t *o, jw_buf_t *out, char *err, size_t errlen)
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
        char why[JW_ERRLEN];
        if (get_packet(json_array_get(packets, i), body, &len, sizeof body, why, sizeof why) < 0) {
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
    return jw_buf_append(out, frame, (size_t)n) < 0 ? (snprintf(err, errlen, "out of memory"), -1)
                                                     : 0;
}

/* A reply to Sensors or Query List: its packets' data bytes, no framing. */
static int encode_reply(json_t *o, jw_buf_t *out, char *err, size_t errlen)
{
    static const char *const keys[] = { "ids", "packets", NULL };
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0)
        return -1;
    json_t *packets = get_array(o, "packets", 1, BW_CREATE2_MAX_PACKETS, "sensor packets", err,
                                errlen);
    json_t *ids = get_array(o, "ids", 1, BW_CREATE2_MAX_PACKETS, "packet ids", err, errlen);
    if (!packets || !ids)
        return -1;
    if (json_array_size(ids) != json_array_size(packets)) {
        snprintf(err, errlen, "\"ids\" and \"packets\" must be as long");
        return -1;
    }
    for (size_t i = 0; i < json_array_size(packets); i++) {
        uint8_t body[1 + BW_CREATE_GROUP100_SIZE];
        size_t len = 0;
        char why[JW_ERRLEN];
        uint8_t id;
        if (get_packet(json_array_get(packets, i), body, &len, sizeof body, why, sizeof why) < 0) {
            snprintf(err, errlen, "packets[%zu]: %.900s", i, why);
            return -1;
        }
        if (!get_byte(json_array_get(ids, i), &id) || id != body[0]) {
            snprintf(err, errlen, "ids[%zu] must be the id of packets[%zu] (%u)", i, i, body[0]);
            return -1;
        }
        if (jw_buf_append(out, body + 1, len - 1) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

static int c_encode(json_t *line, jw_buf_t *out, char *err, size_t errlen)
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
    if (strcmp(name, "reply") == 0)
        return encode_reply(line, out, err, errlen);
    /* A Create 1's command, else a Create 2's (its own names: "stop",
     * "digit_leds_ascii", "clean"...; a shared name is the Create 1's, the
     * same bytes). */
    int op = -1;
    bw_create_model_t m = BW_CREATE_MODEL_1;
    for (int k = 0; op < 0 && k < 2; k++) {
        m = (bw_create_model_t)k;
        for (unsigned i = 0; op < 0 && bw_create_model_op_at(m, i) >= 0; i++) {
            int o = bw_create_model_op_at(m, i);
            if (strcmp(bw_create_model_op_name(m, (uint8_t)o), name) == 0)
                op = o;
        }
    }
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
    return encode_cmd(line, m, (uint8_t)op, out, err, errlen);
}

const jw_codec_t jw_codec_create = {
    .name = "create",
    .summary = "iRobot Create Open Interface (commands, Stream frames)",
    .encode = c_encode,
};
