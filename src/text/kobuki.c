/* Kobuki messages as JSON for `botwire decode` and `botwire encode`. */
#include <string.h>

#include "jw.h"

typedef struct {
    bw_kobuki_parser_t parser;
    bw_parse_stats_t sub_stats; /* unknown and mis-sized sub-payloads */
    bw_kobuki_dir_t dir;
    bool frames;
} kobuki_state_t;

static void k_init(void *state, bool from_robot, bool frames)
{
    kobuki_state_t *s = state;
    bw_kobuki_parser_init(&s->parser);
    memset(&s->sub_stats, 0, sizeof s->sub_stats);
    s->dir = from_robot ? BW_KOBUKI_FROM_ROBOT : BW_KOBUKI_FROM_HOST;
    s->frames = frames;
}

static void put_version(jw_t *w, const bw_kobuki_version_t *v)
{
    jw_key_int(w, "major", v->major);
    jw_key_int(w, "minor", v->minor);
    jw_key_int(w, "patch", v->patch);
    if (v->legacy) {
        jw_key(w, "legacy");
        jw_bool(w, true);
    }
}

/* The message's members, after "type". */
static void put_msg(jw_t *w, const bw_kobuki_msg_t *m)
{
    jw_msg_begin(w, bw_kobuki_type_name(m->type));
    const bw_msgdesc_t *desc = bw_kobuki_desc(m->type);
    if (desc) {
        jw_desc(w, desc, m);
        return;
    }
    switch (m->type) {
    case BW_KOBUKI_HARDWARE_VERSION: put_version(w, &m->u.hardware_version); break;
    case BW_KOBUKI_FIRMWARE_VERSION: put_version(w, &m->u.firmware_version); break;
    case BW_KOBUKI_RAW_GYRO: {
        const bw_kobuki_raw_gyro_t *g = &m->u.raw_gyro;
        jw_key_int(w, "frame_id", g->frame_id);
        jw_key(w, "samples");
        jw_open(w, '[');
        for (size_t i = 0; i < g->count; i++) {
            jw_open(w, '[');
            for (size_t a = 0; a < 3; a++)
                jw_int(w, g->samples[i][a]);
            jw_close(w, ']');
        }
        jw_close(w, ']');
        break;
    }
    default:
        jw_key_int(w, "id", m->id);
        jw_key_int(w, "length", m->length);
        jw_key_hex(w, "data", m->u.unknown.data, m->length);
        break;
    }
}

static int emit_frame(kobuki_state_t *s, const bw_kobuki_frame_t *frame, jw_t *w)
{
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t m;
    if (s->frames)
        jw_open(w, '[');
    bw_kobuki_iter_init(&it, frame, s->dir, &s->sub_stats);
    int r;
    for (size_t off = 0; (r = bw_kobuki_iter_next(&it, &m)) != 0; off = it.off) {
        /* A mis-sized sub-payload (BW_ELENGTH) is counted and shown as
         * unknown with its bytes, so nothing vanishes; one overrunning the
         * frame (BW_ETRUNC, also counted) ends the walk, its bytes kept raw.
         * Bytes that must go out as they came are "raw": a message whose
         * encoding differs from the wire (non-zero unused bytes). */
        if (r == BW_ETRUNC) {
            jw_msg_begin(w, "raw");
            jw_key_hex(w, "data", m.u.unknown.data, m.length);
        } else {
            put_msg(w, &m);
            uint8_t again[BW_KOBUKI_MAX_FRAME];
            int n = bw_kobuki_encode_sub(again, sizeof again, &m);
            size_t wire = it.off - off;
            if (n != (int)wire || memcmp(again, frame->payload + off, wire) != 0)
                jw_key_hex(w, "raw", frame->payload + off, wire);
        }
        jw_msg_end(w);
        if (!s->frames)
            jw_line_end(w);
    }
    if (s->frames) {
        jw_close(w, ']');
        jw_line_end(w);
    }
    return w->failed ? -1 : 0;
}

static int k_push(void *state, const uint8_t *data, size_t n, jw_t *w)
{
    kobuki_state_t *s = state;
    bw_kobuki_frame_t frame;
    int rc;
    while ((rc = bw_kobuki_parse(&s->parser, &data, &n, &frame)) != 0)
        if (rc > 0 && emit_frame(s, &frame, w) < 0)
            return -1;
    return 0;
}

static int k_finish(void *state, jw_t *w, bw_parse_stats_t *stats)
{
    kobuki_state_t *s = state;
    bw_kobuki_frame_t frame;
    int rc, status = 0;
    while ((rc = bw_kobuki_parser_finish(&s->parser, &frame)) != 0)
        if (rc > 0 && status == 0 && emit_frame(s, &frame, w) < 0)
            status = -1;
    *stats = s->parser.stats;
    bw_parse_stats_add(stats, &s->sub_stats);
    return status;
}

const jw_decoder_t jw_decoder_kobuki = {
    .name = "kobuki",
    .state_size = sizeof(kobuki_state_t),
    .init = k_init,
    .push = k_push,
    .finish = k_finish,
};

/* ---- JSON to messages ---------------------------------------------------------- */

static int get_version(json_t *o, bw_kobuki_version_t *v, char *err, size_t errlen)
{
    static const char *const keys[] = { "major", "minor", "patch", "legacy", NULL };
    int64_t x;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0)
        return -1;
    json_t *legacy = json_object_get(o, "legacy");
    if (legacy && !json_is_boolean(legacy)) {
        snprintf(err, errlen, "field \"legacy\" must be true or false");
        return -1;
    }
    v->legacy = json_is_true(legacy);
    int64_t small = v->legacy ? 9 : 255;
    if (jm_get_int(o, "major", 0, v->legacy ? 655 : 255, &x, err, errlen) < 0)
        return -1;
    v->major = (uint16_t)x;
    if (jm_get_int(o, "minor", 0, small, &x, err, errlen) < 0)
        return -1;
    v->minor = (uint16_t)x;
    if (jm_get_int(o, "patch", 0, small, &x, err, errlen) < 0)
        return -1;
    v->patch = (uint16_t)x;
    if (v->legacy && v->major * 100 + v->minor * 10 + v->patch > 0xFFFF) {
        snprintf(err, errlen, "legacy version %u.%u.%u does not fit 16 bits", v->major, v->minor,
                 v->patch);
        return -1;
    }
    return 0;
}

static int get_gyro(json_t *o, bw_kobuki_raw_gyro_t *g, char *err, size_t errlen)
{
    static const char *const keys[] = { "frame_id", "samples", NULL };
    int64_t x;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
        jm_get_int(o, "frame_id", 0, 255, &x, err, errlen) < 0)
        return -1;
    g->frame_id = (uint8_t)x;
    json_t *samples = json_object_get(o, "samples");
    if (!json_is_array(samples) || json_array_size(samples) > BW_KOBUKI_GYRO_MAX_SAMPLES) {
        snprintf(err, errlen, "field \"samples\" must be an array of at most %u [x,y,z] samples",
                 BW_KOBUKI_GYRO_MAX_SAMPLES);
        return -1;
    }
    g->count = (uint8_t)json_array_size(samples);
    for (size_t i = 0; i < g->count; i++) {
        json_t *s = json_array_get(samples, i);
        if (!json_is_array(s) || json_array_size(s) != 3) {
            snprintf(err, errlen, "samples[%zu] must be an array of 3 integers", i);
            return -1;
        }
        for (size_t a = 0; a < 3; a++) {
            json_t *v = json_array_get(s, a);
            if (!json_is_integer(v) || json_integer_value(v) < INT16_MIN ||
                json_integer_value(v) > INT16_MAX) {
                snprintf(err, errlen, "samples[%zu][%zu] must be an integer in -32768..32767", i, a);
                return -1;
            }
            g->samples[i][a] = (int16_t)json_integer_value(v);
        }
    }
    return 0;
}

/* Builds a message from one JSON object; unknown data lands in scratch. */
static int json_to_msg(json_t *o, bw_kobuki_msg_t *m, uint8_t *scratch, char *err, size_t errlen)
{
    json_t *type = json_object_get(o, "type");
    if (!json_is_string(type)) {
        snprintf(err, errlen, "missing string field \"type\"");
        return -1;
    }
    const char *name = json_string_value(type);
    bw_kobuki_type_t t = bw_kobuki_type_from_name(name);
    if (t == BW_KOBUKI_UNKNOWN && strcmp(name, "unknown") != 0) {
        snprintf(err, errlen, "unknown kobuki message type \"%s\"", name);
        return -1;
    }
    bw_kobuki_msg_init(m, t);
    const bw_msgdesc_t *desc = bw_kobuki_desc(t);
    if (desc)
        return jm_check_keys(o, desc, NULL, err, errlen) < 0 ? -1
                                                              : jm_get_fields(o, desc, m, err, errlen);
    switch (t) {
    case BW_KOBUKI_HARDWARE_VERSION: return get_version(o, &m->u.hardware_version, err, errlen);
    case BW_KOBUKI_FIRMWARE_VERSION: return get_version(o, &m->u.firmware_version, err, errlen);
    case BW_KOBUKI_RAW_GYRO: return get_gyro(o, &m->u.raw_gyro, err, errlen);
    default: break;
    }
    static const char *const keys[] = { "id", "length", "data", NULL };
    int64_t id, length;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
        jm_get_int(o, "id", 0, 255, &id, err, errlen) < 0 ||
        jm_get_int(o, "length", 0, BW_KOBUKI_MAX_PAYLOAD - 2, &length, err, errlen) < 0)
        return -1;
    m->id = (uint8_t)id;
    m->length = (uint8_t)length;
    memset(scratch, 0, (size_t)length);
    if (json_object_get(o, "data")) {
        size_t n;
        if (jm_get_hex(o, "data", scratch, BW_KOBUKI_MAX_PAYLOAD, &n, err, errlen) < 0)
            return -1;
        if (n != (size_t)length) {
            snprintf(err, errlen, "field \"data\" holds %zu bytes but \"length\" is %lld", n,
                     (long long)length);
            return -1;
        }
    }
    m->u.unknown.data = scratch;
    return 0;
}

static int k_encode(json_t *line, jw_buf_t *out, char *err, size_t errlen)
{
    if (json_is_object(line)) {
        json_t *type = json_object_get(line, "type");
        if (json_is_string(type) && strcmp(json_string_value(type), "stats") == 0)
            return 1;
    }
    size_t n = json_is_array(line) ? json_array_size(line) : 1;
    if (!json_is_array(line) && !json_is_object(line)) {
        snprintf(err, errlen, "a line must be a message object or an array of them (one frame)");
        return -1;
    }
    if (n == 0) {
        snprintf(err, errlen, "an empty array is not a frame");
        return -1;
    }
    uint8_t frame[BW_KOBUKI_MAX_FRAME];
    uint8_t scratch[BW_KOBUKI_MAX_PAYLOAD];
    bw_kobuki_writer_t w;
    bw_kobuki_writer_init(&w, frame, sizeof frame);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_is_array(line) ? json_array_get(line, i) : line;
        bw_kobuki_msg_t m;
        if (!json_is_object(o)) {
            snprintf(err, errlen, "frame element %zu is not an object", i);
            return -1;
        }
        json_t *type = json_object_get(o, "type");
        json_t *raw = json_incref(json_object_get(o, "raw")); /* kept across the del below */
        int rc;
        if (json_is_string(type) && strcmp(json_string_value(type), "raw") == 0) {
            static const char *const keys[] = { "data", NULL };
            size_t nb;
            if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
                jm_get_hex(o, "data", scratch, BW_KOBUKI_MAX_PAYLOAD, &nb, err, errlen) < 0)
                return -1;
            rc = bw_kobuki_writer_add_raw(&w, scratch, nb);
        } else {
            /* Read and checked as the message, then written as the bytes. */
            if (raw)
                json_object_del(o, "raw");
            int ok = json_to_msg(o, &m, scratch, err, errlen);
            if (raw)
                json_object_set_new(o, "raw", raw); /* the reference goes back */
            if (ok < 0)
                return -1;
            if (raw) {
                uint8_t bytes[BW_KOBUKI_MAX_PAYLOAD];
                size_t nb;
                if (jm_get_hex(o, "raw", bytes, sizeof bytes, &nb, err, errlen) < 0)
                    return -1;
                if (nb < 2 || bytes[0] != bw_kobuki_type_id(m.type) || bytes[1] != nb - 2) {
                    snprintf(err, errlen, "field \"raw\" must be this %s's sub-payload (id %u, "
                                          "its length, data)",
                             bw_kobuki_type_name(m.type), bw_kobuki_type_id(m.type));
                    return -1;
                }
                rc = bw_kobuki_writer_add_raw(&w, bytes, nb);
            } else {
                rc = bw_kobuki_writer_add(&w, &m);
            }
        }
        if (rc == BW_ENOSPC) {
            snprintf(err, errlen, "frame payload exceeds %u bytes", BW_KOBUKI_MAX_PAYLOAD);
            return -1;
        }
        if (rc == BW_ERANGE && m.type == BW_KOBUKI_SOUND_SEQUENCE) {
            snprintf(err, errlen,
                     "field \"sequence\": %u is out of range 0..6 (ON, OFF, RECHARGE, BUTTON, "
                     "ERROR, CLEANINGSTART, CLEANINGEND)",
                     m.u.sound_sequence.sequence);
            return -1;
        }
        if (rc < 0) {
            snprintf(err, errlen, "cannot encode %s: %s", bw_kobuki_type_name(m.type), bw_strerror(rc));
            return -1;
        }
    }
    int len = bw_kobuki_writer_finish(&w);
    if (len < 0) {
        snprintf(err, errlen, "frame payload below the %u-byte minimum", BW_KOBUKI_MIN_PAYLOAD);
        return -1;
    }
    return jw_buf_append(out, frame, (size_t)len) < 0 ? (snprintf(err, errlen, "out of memory"), -1)
                                                       : 0;
}

const jw_codec_t jw_codec_kobuki = {
    .name = "kobuki",
    .summary = "Yujin Kobuki (AA 55 frames)",
    .encode = k_encode,
};
