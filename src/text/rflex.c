/*
 * rflex messages as JSON for `botwire decode` and `botwire encode`.
 *
 * One message per frame: --frames changes nothing, and an array is not a
 * line encode takes. Types and fields are the codec's (bw_rflex_type_name,
 * bw_rflex_desc), in wire units.
 *
 * Every message shows "id", the frame's id byte, since the codec takes it
 * from the message and a frame may carry any value: decode | encode is then
 * byte-exact for every frame the parser accepts. encode gives the id the
 * public drivers send (4 for sonar_run, else 0) when a line has none.
 *
 * Direction: host and base share one opcode space (SYS/STATUS and
 * JSTK/GET_STATE with no data are the host's requests, with data the base's
 * answers), so the codec decodes without one; --from only picks a side of a
 * record, as for the others.
 *
 * Lengths: the codec rejects (BW_ELENGTH) a known (port, opcode) whose data
 * is not its exact length and gives it back as unknown. Here a frame with
 * more bytes than its fields shows the type, its fields and the rest as
 * "extra" (a sonar report: the readings that fit, then the 1 or 2 bytes
 * left); one with fewer stays unknown. Both count as length errors, as the
 * codec says they are.
 *
 * docs/rflex.md's paragraph:
 *
 * rflex message types (`--proto rflex`, RWI B21, B14 and ATRV bases), named
 * after port and opcode, each with `id` (the frame's id byte; `encode`
 * gives 4 for sonar_run and 0 for the others when it is left out):
 * `sys_status_req` (the host's request: no data), `sys_status` (timestamp,
 * voltage, brake), `mot_set_dir` (axis, velocity, acceleration, torque,
 * direction), `mot_set_defaults`, `mot_brake_set`, `mot_brake_release`,
 * `mot_system_report_req` (period, mask), `mot_system_report` (retval,
 * timestamp, axis, position, velocity, acceleration, torque), `sonar_run`
 * (echo_delay, ping_delay, set_delay, mode), `sonar_report` (retval,
 * timestamp, readings as [[id, range], ...]), `dio_reports_req` (period),
 * `dio_report` (timestamp, address, value), `ir_run` (params, an array of
 * five; mode), `ir_report` (count, bytes as hex), `jstk_state_req` (the
 * host's request: no data), `jstk_state` (timestamp, x, y, buttons), and
 * `unknown` (port, id,
 * opcode, length, data as hex). Values are raw counts. Both sides use the
 * same opcodes, so `--from` only picks a side of a record. Data longer than
 * a type's fields is kept as `extra` (hex), shorter data makes the frame
 * `unknown`; both count as length errors. `encode` takes type names in any
 * case (`MOT_SET_DIR` or `mot_set_dir`).
 */
#include <string.h>

#include "jw.h"
#include "botwire/rflex.h"

#define SONAR_HEAD 8u    /* retval, timestamp */
#define SONAR_READING 3u /* id u8, range u16 */

typedef struct {
    bw_rflex_parser_t parser;
    bw_parse_stats_t msg_stats; /* unknown and mis-sized messages */
} rflex_state_t;

static void r_init(void *state, bool from_robot, bool frames)
{
    (void)from_robot;
    (void)frames;
    rflex_state_t *s = state;
    bw_rflex_parser_init(&s->parser);
    memset(&s->msg_stats, 0, sizeof s->msg_stats);
}

/* The data bytes of a frame of a known type that its fields take, when the
 * frame has at least those; -1 when it has fewer. */
static int known_prefix(const bw_rflex_frame_t *f)
{
    bw_rflex_type_t t = bw_rflex_type_of(f->port, f->opcode, f->len);
    const bw_msgdesc_t *d = bw_rflex_desc(t);
    if (d)
        return f->len >= d->wire_len ? d->wire_len : -1;
    if (t == BW_RFLEX_SONAR_REPORT && f->len >= SONAR_HEAD)
        return (int)(SONAR_HEAD + (f->len - SONAR_HEAD) / SONAR_READING * SONAR_READING);
    return -1;
}

static void put_msg(jw_t *w, const bw_rflex_msg_t *m, const uint8_t *extra, size_t nextra)
{
    if (m->type == BW_RFLEX_UNKNOWN) {
        jw_msg_begin(w, "unknown");
        jw_key_int(w, "port", m->port);
        jw_key_int(w, "id", m->id);
        jw_key_int(w, "opcode", m->opcode);
        jw_key_int(w, "length", m->length);
        jw_key_hex(w, "data", m->u.unknown.data, m->length);
        jw_msg_end(w);
        jw_line_end(w);
        return;
    }
    jw_msg_begin(w, bw_rflex_type_name(m->type));
    jw_key_int(w, "id", m->id);
    const bw_msgdesc_t *d = bw_rflex_desc(m->type);
    if (d) {
        jw_desc(w, d, m);
    } else if (m->type == BW_RFLEX_SONAR_REPORT) {
        const bw_rflex_sonar_report_t *s = &m->u.sonar_report;
        jw_desc(w, bw_rflex_head_desc(m->type), m);
        jw_key(w, "readings");
        jw_open(w, '[');
        for (size_t i = 0; i < s->count; i++) {
            jw_open(w, '[');
            jw_int(w, s->readings[i].id);
            jw_int(w, s->readings[i].range);
            jw_close(w, ']');
        }
        jw_close(w, ']');
    } else if (m->type == BW_RFLEX_IR_REPORT) {
        jw_desc(w, bw_rflex_head_desc(m->type), m);
        jw_key_hex(w, "bytes", m->u.ir_report.bytes, m->u.ir_report.nbytes);
    }
    if (nextra)
        jw_key_hex(w, "extra", extra, nextra);
    jw_msg_end(w);
    jw_line_end(w);
}

static int emit_frame(rflex_state_t *s, const bw_rflex_frame_t *frame, jw_t *w)
{
    bw_rflex_msg_t m;
    size_t used = frame->len;
    if (bw_rflex_decode(frame, &m) < 0) {
        s->msg_stats.length_errors++;
        int n = known_prefix(frame);
        if (n >= 0) {
            bw_rflex_frame_t head = *frame;
            head.len = (uint8_t)n;
            bw_rflex_decode(&head, &m);
            used = (size_t)n;
        }
    } else if (m.type == BW_RFLEX_UNKNOWN) {
        s->msg_stats.unknown++;
    }
    put_msg(w, &m, frame->data + used, frame->len - used);
    return w->failed ? -1 : 0;
}

static int r_push(void *state, const uint8_t *data, size_t n, jw_t *w)
{
    rflex_state_t *s = state;
    bw_rflex_frame_t frame;
    int rc;
    while ((rc = bw_rflex_parse(&s->parser, &data, &n, &frame)) != 0)
        if (rc > 0 && emit_frame(s, &frame, w) < 0)
            return -1;
    return 0;
}

static int r_finish(void *state, jw_t *w, bw_parse_stats_t *stats)
{
    rflex_state_t *s = state;
    bw_rflex_frame_t frame;
    int rc, status = 0;
    while ((rc = bw_rflex_parser_finish(&s->parser, &frame)) != 0)
        if (rc > 0 && status == 0 && emit_frame(s, &frame, w) < 0)
            status = -1;
    *stats = s->parser.stats;
    bw_parse_stats_add(stats, &s->msg_stats);
    return status;
}

const jw_decoder_t jw_decoder_rflex = {
    .name = "rflex",
    .state_size = sizeof(rflex_state_t),
    .init = r_init,
    .push = r_push,
    .finish = r_finish,
};

/* ---- JSON to frames ------------------------------------------------------------ */

static int unknown_type(const char *name, char *err, size_t errlen)
{
    int n = snprintf(err, errlen, "unknown rflex message type \"%s\" (message types:", name);
    for (unsigned t = 1; t < BW_RFLEX_TYPE_COUNT && n > 0 && (size_t)n < errlen; t++)
        n += snprintf(err + n, errlen - (size_t)n, " %s,", bw_rflex_type_name((bw_rflex_type_t)t));
    if (n > 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - (size_t)n, " unknown)");
    return -1;
}

static int get_readings(json_t *o, bw_rflex_sonar_report_t *s, char *err, size_t errlen)
{
    json_t *readings = json_object_get(o, "readings");
    if (!json_is_array(readings) || json_array_size(readings) > BW_RFLEX_MAX_SONAR) {
        snprintf(err, errlen, "field \"readings\" must be an array of at most %u [id, range] readings",
                 BW_RFLEX_MAX_SONAR);
        return -1;
    }
    s->count = (uint8_t)json_array_size(readings);
    for (size_t i = 0; i < s->count; i++) {
        json_t *r = json_array_get(readings, i);
        json_t *id = json_array_get(r, 0), *range = json_array_get(r, 1);
        if (!json_is_array(r) || json_array_size(r) != 2 || !json_is_integer(id) ||
            !json_is_integer(range) || json_integer_value(id) < 0 || json_integer_value(id) > 255 ||
            json_integer_value(range) < 0 || json_integer_value(range) > 65535) {
            snprintf(err, errlen, "readings[%zu] must be [id, range]: integers 0..255 and 0..65535", i);
            return -1;
        }
        s->readings[i].id = (uint8_t)json_integer_value(id);
        s->readings[i].range = (uint16_t)json_integer_value(range);
    }
    return 0;
}

/* The fields of a known type into m; the keys it may have besides them. */
static int get_known(json_t *o, bw_rflex_msg_t *m, char *err, size_t errlen)
{
    static const char *const fixed_keys[] = { "id", "extra", NULL };
    static const char *const no_data_keys[] = { "id", NULL };
    static const char *const sonar_keys[] = { "id", "readings", "extra", NULL };
    static const char *const ir_keys[] = { "id", "bytes", NULL };
    const bw_msgdesc_t *d = bw_rflex_desc(m->type);
    const char *const *keys = fixed_keys;
    if (m->type == BW_RFLEX_SYS_STATUS_REQ || m->type == BW_RFLEX_JSTK_STATE_REQ)
        keys = no_data_keys; /* with data it would be the answer */
    if (!d) {
        d = bw_rflex_head_desc(m->type);
        keys = m->type == BW_RFLEX_SONAR_REPORT ? sonar_keys : ir_keys;
    }
    int64_t id;
    if (jm_check_keys(o, d, keys, err, errlen) < 0)
        return -1;
    if (json_object_get(o, "id")) {
        if (jm_get_int(o, "id", 0, 255, &id, err, errlen) < 0)
            return -1;
        m->id = (uint8_t)id;
    }
    if (jm_get_fields(o, d, m, err, errlen) < 0)
        return -1;
    if (m->type == BW_RFLEX_SONAR_REPORT)
        return get_readings(o, &m->u.sonar_report, err, errlen);
    if (m->type == BW_RFLEX_IR_REPORT) {
        size_t n;
        if (jm_get_hex(o, "bytes", m->u.ir_report.bytes, BW_RFLEX_MAX_IR_BYTES, &n, err, errlen) < 0)
            return -1;
        m->u.ir_report.nbytes = (uint8_t)n;
    }
    return 0;
}

/* "extra" into data + used: bytes after the fields that decoding gives back
 * as such. Returns their count, or -1. */
static int get_extra(json_t *o, bw_rflex_type_t t, uint8_t *data, size_t used, char *err,
                     size_t errlen)
{
    if (!json_object_get(o, "extra"))
        return 0;
    size_t n;
    if (jm_get_hex(o, "extra", data + used, BW_RFLEX_MAX_DATA - used, &n, err, errlen) < 0)
        return -1;
    if (t == BW_RFLEX_SONAR_REPORT && n >= SONAR_READING) {
        snprintf(err, errlen, "field \"extra\" holds %zu bytes, which would read as a reading "
                              "(at most 2 bytes after the readings)",
                 n);
        return -1;
    }
    return (int)n;
}

/* An unknown frame's header bytes and data, the data written to data. */
static int get_unknown(json_t *o, bw_rflex_msg_t *m, uint8_t *data, size_t *n, char *err,
                       size_t errlen)
{
    static const char *const keys[] = { "port", "id", "opcode", "length", "data", NULL };
    int64_t port, id = 0, opcode, length = -1;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
        jm_get_int(o, "port", 0, 255, &port, err, errlen) < 0 ||
        (json_object_get(o, "id") && jm_get_int(o, "id", 0, 255, &id, err, errlen) < 0) ||
        jm_get_int(o, "opcode", 0, 255, &opcode, err, errlen) < 0 ||
        (json_object_get(o, "length") &&
         jm_get_int(o, "length", 0, BW_RFLEX_MAX_DATA, &length, err, errlen) < 0))
        return -1;
    m->port = (uint8_t)port;
    m->id = (uint8_t)id;
    m->opcode = (uint8_t)opcode;
    if (!json_object_get(o, "data")) {
        if (length < 0) {
            snprintf(err, errlen, "missing field \"data\"");
            return -1;
        }
        memset(data, 0, (size_t)length); /* the header, then zeros */
        *n = (size_t)length;
        return 0;
    }
    if (jm_get_hex(o, "data", data, BW_RFLEX_MAX_DATA, n, err, errlen) < 0)
        return -1;
    if (length >= 0 && *n != (size_t)length) {
        snprintf(err, errlen, "field \"data\" holds %zu bytes but \"length\" is %lld", *n,
                 (long long)length);
        return -1;
    }
    return 0;
}

static int r_encode(json_t *line, jw_buf_t *out, char *err, size_t errlen)
{
    if (!json_is_object(line)) {
        snprintf(err, errlen, "a line must be one message object (rflex has one message per frame)");
        return -1;
    }
    json_t *type = json_object_get(line, "type");
    if (!json_is_string(type)) {
        snprintf(err, errlen, "missing string field \"type\"");
        return -1;
    }
    /* Names in any case: the catalogue's are lower case. */
    char name[32];
    const char *given = json_string_value(type);
    size_t len = json_string_length(type);
    if (len >= sizeof name || memchr(given, 0, len))
        return unknown_type(given, err, errlen);
    for (size_t i = 0; i <= len; i++)
        name[i] = given[i] >= 'A' && given[i] <= 'Z' ? (char)(given[i] - 'A' + 'a') : given[i];
    if (strcmp(name, "stats") == 0)
        return 1;
    bw_rflex_type_t t = bw_rflex_type_from_name(name);
    if (t == BW_RFLEX_UNKNOWN && strcmp(name, "unknown") != 0)
        return unknown_type(given, err, errlen);

    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, t);
    uint8_t frame[BW_RFLEX_MAX_FRAME];
    uint8_t *data = frame + 6; /* where bw_rflex_frame_data wants it */
    size_t n;
    if (t == BW_RFLEX_UNKNOWN) {
        if (get_unknown(line, &m, data, &n, err, errlen) < 0)
            return -1;
    } else {
        if (get_known(line, &m, err, errlen) < 0)
            return -1;
        int k = bw_rflex_encode_data(data, BW_RFLEX_MAX_DATA, &m);
        if (k < 0) {
            snprintf(err, errlen, "cannot encode %s: %s", bw_rflex_type_name(t), bw_strerror(k));
            return -1;
        }
        int e = get_extra(line, t, data, (size_t)k, err, errlen);
        if (e < 0)
            return -1;
        n = (size_t)k + (size_t)e;
    }
    int size = bw_rflex_frame_data(frame, sizeof frame, m.port, m.id, m.opcode, data, n);
    if (size < 0) {
        snprintf(err, errlen, "cannot encode %s: %s", bw_rflex_type_name(t), bw_strerror(size));
        return -1;
    }
    return jw_buf_append(out, frame, (size_t)size) < 0 ? (snprintf(err, errlen, "out of memory"), -1)
                                                        : 0;
}

const jw_codec_t jw_codec_rflex = {
    .name = "rflex",
    .summary = "RWI B21/B14/ATRV reflex bases (1B 02 ... 1B 03 frames)",
    .encode = r_encode,
};
