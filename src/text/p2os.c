/* P2OS messages as JSON for `botwire decode` and `botwire encode`. */
#include <string.h>

#include "jw.h"

typedef struct {
    bw_p2os_parser_t parser;
    bw_parse_stats_t body_stats; /* unknown and malformed bodies */
    bw_p2os_dir_t dir;
} p2os_state_t;

/* The SIP's fixed fields and its trailing ones, by name, as offsets into
 * bw_p2os_msg_t (the codec keeps its own tables private). */
#define SIP_FIELD(name, type) { #name, type, 1, (uint16_t)offsetof(bw_p2os_msg_t, u.sip.name) }
static const bw_field_t sip_fields[] = {
    SIP_FIELD(xpos, BW_FT_U16),    SIP_FIELD(ypos, BW_FT_U16),      SIP_FIELD(thpos, BW_FT_I16),
    SIP_FIELD(lvel, BW_FT_I16),    SIP_FIELD(rvel, BW_FT_I16),      SIP_FIELD(battery, BW_FT_U8),
    SIP_FIELD(stall_bump, BW_FT_U16), SIP_FIELD(control, BW_FT_I16), SIP_FIELD(flags, BW_FT_U16),
    SIP_FIELD(compass, BW_FT_U8),
};
static const bw_msgdesc_t sip_desc = { "sip", sip_fields, 10, 18, BW_ORDER_LE };
static const bw_field_t sip_trailing[] = {
    SIP_FIELD(timer, BW_FT_U16),
    SIP_FIELD(analog, BW_FT_U8),
    SIP_FIELD(digin, BW_FT_U8),
    SIP_FIELD(digout, BW_FT_U8),
};
#define SIP_TRAILING 4u
/* Bytes for cmd, 0x2B and the length byte before a string argument. */
#define MAX_STR_ARG (BW_P2OS_MAX_BODY - 3u)

static void p_init(void *state, bool from_robot, bool frames)
{
    /* One message per frame: --frames changes nothing. */
    (void)frames;
    p2os_state_t *s = state;
    bw_p2os_parser_init(&s->parser);
    memset(&s->body_stats, 0, sizeof s->body_stats);
    s->dir = from_robot ? BW_P2OS_FROM_ROBOT : BW_P2OS_FROM_HOST;
}

/* The first n fields of a table. */
static void put_prefix(jw_t *w, const bw_field_t *f, size_t n, const void *base)
{
    for (size_t k = 0; k < n; k++)
        jw_key_int(w, f[k].name, bw_field_get(base, &f[k], 0));
}

static bool printable(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x20 || p[i] > 0x7E)
            return false;
    return true;
}

static void put_command(jw_t *w, const bw_p2os_command_t *c)
{
    jw_key_int(w, "cmd", c->cmd);
    const char *name = bw_p2os_command_name(c->cmd);
    if (name)
        jw_key_str(w, "name", name);
    if (c->argkind == BW_P2OS_INTARG) {
        jw_key_int(w, "arg", c->value);
    } else if (c->argkind == BW_P2OS_STRARG && printable(c->str, c->len)) {
        jw_key(w, "arg");
        jw_str(w, (const char *)c->str, c->len);
    } else if (c->argkind == BW_P2OS_STRARG) {
        jw_key_hex(w, "arg_hex", c->str, c->len);
    }
    if (c->nextra)
        jw_key_hex(w, "extra", c->extra, c->nextra);
    if (c->argkind != BW_P2OS_RAWARG)
        return;
    if (c->cmd == BW_P2OS_SIM_SET_POSE && c->argtype == 0 && c->len == 12) {
        jw_key_int(w, "x", (int32_t)bw_get_le32(c->str));
        jw_key_int(w, "y", (int32_t)bw_get_le32(c->str + 4));
        jw_key_int(w, "th", (int32_t)bw_get_le32(c->str + 8));
        return;
    }
    jw_key_int(w, "argtype", c->argtype);
    jw_key_hex(w, "data", c->str, c->len);
}

static void put_sip(jw_t *w, const bw_p2os_msg_t *m)
{
    const bw_p2os_sip_t *s = &m->u.sip;
    jw_key(w, "moving");
    jw_bool(w, s->moving);
    jw_desc(w, &sip_desc, m);
    jw_key(w, "sonar");
    jw_open(w, '[');
    for (size_t i = 0; i < s->nsonar; i++) {
        jw_open(w, '[');
        jw_int(w, s->sonar[i].number);
        jw_int(w, s->sonar[i].range);
        jw_close(w, ']');
    }
    jw_close(w, ']');
    put_prefix(w, sip_trailing, s->ntrailing, m);
    if (s->nextra)
        jw_key_hex(w, "extra", s->extra, s->nextra);
}

static void put_config(jw_t *w, const bw_p2os_msg_t *m)
{
    const bw_p2os_config_t *c = &m->u.config;
    jw_key_str(w, "robot_type", c->robot_type);
    jw_key_str(w, "subtype", c->subtype);
    jw_key_str(w, "serial", c->serial);
    jw_desc(w, bw_p2os_config_head_desc(), m);
    jw_key_str(w, "name", c->name);
    put_prefix(w, bw_p2os_config_tail_desc()->fields, c->nfields, m);
    if (c->nextra)
        jw_key_hex(w, "extra", c->extra, c->nextra);
}

static void put_simstat(jw_t *w, const bw_p2os_msg_t *m)
{
    const bw_p2os_simstat_t *s = &m->u.simstat;
    jw_key_str(w, "reserved1", s->reserved1);
    jw_key_str(w, "reserved2", s->reserved2);
    put_prefix(w, bw_p2os_simstat_desc()->fields, s->nfields, m);
    if (s->nextra)
        jw_key_hex(w, "extra", s->extra, s->nextra);
}

static void put_msg(jw_t *w, const bw_p2os_msg_t *m)
{
    jw_msg_begin(w, bw_p2os_type_name(m->type));
    switch (m->type) {
    case BW_P2OS_COMMAND: put_command(w, &m->u.command); break;
    case BW_P2OS_SYNC:
        jw_key_int(w, "n", m->u.sync.n);
        if (m->u.sync.has_info) {
            jw_key_str(w, "name", m->u.sync.name);
            jw_key_str(w, "class", m->u.sync.cls);
            jw_key_str(w, "subclass", m->u.sync.subclass);
        }
        break;
    case BW_P2OS_SIP: put_sip(w, m); break;
    case BW_P2OS_CONFIG_PAC: put_config(w, m); break;
    case BW_P2OS_SIMSTAT_PAC: put_simstat(w, m); break;
    case BW_P2OS_ENCODER_PAC:
        jw_key_int(w, "left", m->u.encoder.left);
        jw_key_int(w, "right", m->u.encoder.right);
        break;
    default:
        jw_key_int(w, "id", m->id);
        jw_key_int(w, "length", m->length);
        jw_key_hex(w, "data", m->u.unknown.data, m->length);
        break;
    }
    jw_msg_end(w);
    jw_line_end(w);
}

static int emit_frame(p2os_state_t *s, const bw_p2os_frame_t *frame, jw_t *w)
{
    bw_p2os_msg_t m;
    /* A malformed body (BW_ELENGTH) is counted and shown as unknown with
     * its bytes, so nothing vanishes. */
    if (bw_p2os_decode(s->dir, frame->body, frame->len, &m) < 0)
        s->body_stats.length_errors++;
    else if (m.type == BW_P2OS_UNKNOWN)
        s->body_stats.unknown++;
    put_msg(w, &m);
    return w->failed ? -1 : 0;
}

static int p_push(void *state, const uint8_t *data, size_t n, jw_t *w)
{
    p2os_state_t *s = state;
    bw_p2os_frame_t frame;
    int rc;
    while ((rc = bw_p2os_parse(&s->parser, &data, &n, &frame)) != 0)
        if (rc > 0 && emit_frame(s, &frame, w) < 0)
            return -1;
    return 0;
}

static int p_finish(void *state, jw_t *w, bw_parse_stats_t *stats)
{
    p2os_state_t *s = state;
    bw_p2os_frame_t frame;
    int rc, status = 0;
    while ((rc = bw_p2os_parser_finish(&s->parser, &frame)) != 0)
        if (rc > 0 && status == 0 && emit_frame(s, &frame, w) < 0)
            status = -1;
    *stats = s->parser.stats;
    bw_parse_stats_add(stats, &s->body_stats);
    return status;
}

const jw_decoder_t jw_decoder_p2os = {
    .name = "p2os",
    .state_size = sizeof(p2os_state_t),
    .init = p_init,
    .push = p_push,
    .finish = p_finish,
};

/* ---- JSON to messages ---------------------------------------------------------- */

/* A string field that goes out NUL-terminated. */
static int get_cstring(json_t *o, const char *key, char *dst, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) {
        snprintf(err, errlen, "field \"%s\" must be a string", key);
        return -1;
    }
    size_t n = json_string_length(v);
    const char *s = json_string_value(v);
    if (n > BW_P2OS_MAX_STRING || memchr(s, 0, n)) {
        snprintf(err, errlen, "field \"%s\" must be at most %u bytes with no NUL", key,
                 BW_P2OS_MAX_STRING);
        return -1;
    }
    memcpy(dst, s, n);
    dst[n] = 0;
    return 0;
}

/* Reads the fields of f[0..n) present in o, which must be a prefix; returns
 * how many, or -1. */
static int get_prefix(json_t *o, const bw_field_t *f, size_t n, void *base, char *err,
                      size_t errlen)
{
    size_t k = 0;
    while (k < n && json_object_get(o, f[k].name))
        k++;
    for (size_t j = k + 1; j < n; j++) {
        if (json_object_get(o, f[j].name)) {
            snprintf(err, errlen, "field \"%s\" needs \"%s\" before it", f[j].name, f[k].name);
            return -1;
        }
    }
    for (size_t j = 0; j < k; j++) {
        bw_ftype_t t = (bw_ftype_t)f[j].type;
        int64_t v;
        if (jm_get_int(o, f[j].name, bw_ftype_min(t), bw_ftype_max(t), &v, err, errlen) < 0)
            return -1;
        bw_field_set(base, &f[j], 0, v);
    }
    return (int)k;
}

/* "extra" after a prefix of k of the n fields of f: only bytes that cannot
 * be read as field k, or decoding would not give the same message back. */
static int get_extra(json_t *o, const bw_field_t *f, size_t n, size_t k, uint8_t *scratch,
                     uint8_t *nextra, const uint8_t **extra, char *err, size_t errlen)
{
    *nextra = 0;
    *extra = NULL;
    if (!json_object_get(o, "extra"))
        return 0;
    size_t len;
    if (jm_get_hex(o, "extra", scratch, BW_P2OS_MAX_BODY, &len, err, errlen) < 0)
        return -1;
    if (k < n && len >= bw_ftype_size((bw_ftype_t)f[k].type)) {
        snprintf(err, errlen, "field \"extra\" holds %zu bytes, which would read as field \"%s\"",
                 len, f[k].name);
        return -1;
    }
    *nextra = (uint8_t)len;
    *extra = scratch;
    return 0;
}

/* x, y, th of SIM_SET_POSE: int32 mm, mm, degrees after a 0 type byte. */
static int get_set_pose(json_t *o, bw_p2os_command_t *c, char *err, size_t errlen)
{
    static const char *const keys[] = { "x", "y", "th" };
    for (size_t i = 0; i < 3; i++) {
        int64_t v;
        if (jm_get_int(o, keys[i], INT32_MIN, INT32_MAX, &v, err, errlen) < 0)
            return -1;
        bw_put_le32(c->str + 4 * i, (uint32_t)(int32_t)v);
    }
    c->argkind = BW_P2OS_RAWARG;
    c->argtype = 0;
    c->len = 12;
    return 0;
}

static int get_command(json_t *o, bw_p2os_command_t *c, uint8_t *scratch, char *err, size_t errlen)
{
    static const char *const keys[] = { "cmd", "name", "arg", "arg_hex", "extra", "argtype",
                                        "data", "x", "y", "th", NULL };
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0)
        return -1;
    json_t *jname = json_object_get(o, "name");
    int64_t cmd = -1;
    if (json_object_get(o, "cmd") && jm_get_int(o, "cmd", 0, 255, &cmd, err, errlen) < 0)
        return -1;
    if (jname) {
        if (!json_is_string(jname)) {
            snprintf(err, errlen, "field \"name\" must be a string");
            return -1;
        }
        int num = bw_p2os_command_number(json_string_value(jname));
        if (num < 0) {
            int n = snprintf(err, errlen, "unknown p2os command \"%s\" (commands:",
                             json_string_value(jname));
            for (unsigned i = 0; bw_p2os_command_at(i) >= 0 && n > 0 && (size_t)n < errlen; i++)
                n += snprintf(err + n, errlen - (size_t)n, "%s %s", i ? "," : "",
                              bw_p2os_command_name((uint8_t)bw_p2os_command_at(i)));
            if (n > 0 && (size_t)n < errlen)
                snprintf(err + n, errlen - (size_t)n, ")");
            return -1;
        }
        if (cmd >= 0 && cmd != num) {
            snprintf(err, errlen, "command \"%s\" is %d, not \"cmd\" %lld", json_string_value(jname),
                     num, (long long)cmd);
            return -1;
        }
        cmd = num;
    }
    if (cmd < 0) {
        snprintf(err, errlen, "missing field \"cmd\" or \"name\"");
        return -1;
    }
    c->cmd = (uint8_t)cmd;
    json_t *arg = json_object_get(o, "arg");
    bool hex = json_object_get(o, "arg_hex") != NULL;
    bool raw = json_object_get(o, "argtype") || json_object_get(o, "data");
    bool pose = json_object_get(o, "x") || json_object_get(o, "y") || json_object_get(o, "th");
    if ((arg != NULL) + hex + raw + pose > 1) {
        snprintf(err, errlen, "one argument: \"arg\", \"arg_hex\", \"argtype\" with \"data\", "
                              "or \"x\", \"y\", \"th\"");
        return -1;
    }
    if (pose) {
        if (cmd != BW_P2OS_SIM_SET_POSE) {
            snprintf(err, errlen, "\"x\", \"y\", \"th\" are the argument of sim_set_pose only");
            return -1;
        }
        return get_set_pose(o, c, err, errlen);
    }
    if (raw) {
        int64_t t;
        size_t n = 0;
        if (jm_get_int(o, "argtype", 0, 255, &t, err, errlen) < 0)
            return -1;
        if (t == BW_P2OS_ARG_INT || t == BW_P2OS_ARG_NEGINT || t == BW_P2OS_ARG_STRING) {
            snprintf(err, errlen, "\"argtype\" %lld is an int or a string: use \"arg\"", (long long)t);
            return -1;
        }
        if (json_object_get(o, "data") &&
            jm_get_hex(o, "data", c->str, BW_P2OS_MAX_BODY - 2, &n, err, errlen) < 0)
            return -1;
        c->argkind = BW_P2OS_RAWARG;
        c->argtype = (uint8_t)t;
        c->len = (uint8_t)n;
        return 0;
    }
    if (hex) {
        size_t n;
        if (jm_get_hex(o, "arg_hex", c->str, MAX_STR_ARG, &n, err, errlen) < 0)
            return -1;
        c->argkind = BW_P2OS_STRARG;
        c->len = (uint8_t)n;
    } else if (json_is_string(arg)) {
        size_t n = json_string_length(arg);
        if (n > MAX_STR_ARG) {
            snprintf(err, errlen, "field \"arg\" is longer than %u bytes", MAX_STR_ARG);
            return -1;
        }
        c->argkind = BW_P2OS_STRARG;
        c->len = (uint8_t)n;
        memcpy(c->str, json_string_value(arg), n);
    } else if (arg) {
        int64_t v;
        if (!json_is_integer(arg)) {
            snprintf(err, errlen, "field \"arg\" must be an integer or a string");
            return -1;
        }
        if (jm_get_int(o, "arg", -65535, 65535, &v, err, errlen) < 0)
            return -1;
        c->argkind = BW_P2OS_INTARG;
        c->value = (int32_t)v;
    }
    if (json_object_get(o, "extra")) {
        size_t n;
        if (c->argkind == BW_P2OS_NOARG) {
            snprintf(err, errlen, "field \"extra\" follows an argument: give \"arg\" too");
            return -1;
        }
        if (jm_get_hex(o, "extra", scratch, BW_P2OS_MAX_BODY, &n, err, errlen) < 0)
            return -1;
        c->nextra = (uint8_t)n;
        c->extra = scratch;
    }
    return 0;
}

static int get_simstat(json_t *o, bw_p2os_msg_t *m, uint8_t *scratch, char *err, size_t errlen)
{
    const bw_msgdesc_t *d = bw_p2os_simstat_desc();
    const char *keys[BW_P2OS_SIMSTAT_FIELDS + 4];
    size_t nk = 0;
    keys[nk++] = "reserved1";
    keys[nk++] = "reserved2";
    keys[nk++] = "extra";
    for (size_t k = 0; k < d->nfields; k++)
        keys[nk++] = d->fields[k].name;
    keys[nk] = NULL;
    bw_p2os_simstat_t *s = &m->u.simstat;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
        get_cstring(o, "reserved1", s->reserved1, err, errlen) < 0 ||
        get_cstring(o, "reserved2", s->reserved2, err, errlen) < 0)
        return -1;
    int k = get_prefix(o, d->fields, d->nfields, m, err, errlen);
    if (k < 0)
        return -1;
    s->nfields = (uint8_t)k;
    return get_extra(o, d->fields, d->nfields, (size_t)k, scratch, &s->nextra, &s->extra, err,
                     errlen);
}

static int get_sync(json_t *o, bw_p2os_sync_t *s, char *err, size_t errlen)
{
    static const char *const keys[] = { "n", "name", "class", "subclass", NULL };
    int64_t n;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0 || jm_get_int(o, "n", 0, 2, &n, err, errlen) < 0)
        return -1;
    s->n = (uint8_t)n;
    int have = !!json_object_get(o, "name") + !!json_object_get(o, "class") +
               !!json_object_get(o, "subclass");
    if (have == 0)
        return 0;
    if (have != 3 || n != 2) {
        snprintf(err, errlen, "\"name\", \"class\" and \"subclass\" go together, and only with \"n\":2");
        return -1;
    }
    s->has_info = true;
    return get_cstring(o, "name", s->name, err, errlen) < 0 ||
                   get_cstring(o, "class", s->cls, err, errlen) < 0 ||
                   get_cstring(o, "subclass", s->subclass, err, errlen) < 0
               ? -1
               : 0;
}

static int get_sip(json_t *o, bw_p2os_msg_t *m, uint8_t *scratch, char *err, size_t errlen)
{
    static const char *const keys[] = { "moving", "sonar", "timer", "analog", "digin", "digout",
                                        "extra", NULL };
    bw_p2os_sip_t *s = &m->u.sip;
    if (jm_check_keys(o, &sip_desc, keys, err, errlen) < 0)
        return -1;
    json_t *moving = json_object_get(o, "moving");
    if (!json_is_boolean(moving)) {
        snprintf(err, errlen, "field \"moving\" must be true or false");
        return -1;
    }
    s->moving = json_is_true(moving);
    if (jm_get_fields(o, &sip_desc, m, err, errlen) < 0)
        return -1;
    json_t *sonar = json_object_get(o, "sonar");
    if (!json_is_array(sonar) || json_array_size(sonar) > BW_P2OS_MAX_SONAR) {
        snprintf(err, errlen, "field \"sonar\" must be an array of at most %u [number, range] readings",
                 BW_P2OS_MAX_SONAR);
        return -1;
    }
    s->nsonar = (uint8_t)json_array_size(sonar);
    for (size_t i = 0; i < s->nsonar; i++) {
        json_t *r = json_array_get(sonar, i);
        json_t *num = json_array_get(r, 0), *range = json_array_get(r, 1);
        if (!json_is_array(r) || json_array_size(r) != 2 || !json_is_integer(num) ||
            !json_is_integer(range) || json_integer_value(num) < 0 ||
            json_integer_value(num) > 255 || json_integer_value(range) < 0 ||
            json_integer_value(range) > 65535) {
            snprintf(err, errlen, "sonar[%zu] must be [number, range]: integers 0..255 and 0..65535", i);
            return -1;
        }
        s->sonar[i].number = (uint8_t)json_integer_value(num);
        s->sonar[i].range = (uint16_t)json_integer_value(range);
    }
    int k = get_prefix(o, sip_trailing, SIP_TRAILING, m, err, errlen);
    if (k < 0)
        return -1;
    s->ntrailing = (uint8_t)k;
    return get_extra(o, sip_trailing, SIP_TRAILING, (size_t)k, scratch, &s->nextra, &s->extra, err,
                     errlen);
}

static int get_config(json_t *o, bw_p2os_msg_t *m, uint8_t *scratch, char *err, size_t errlen)
{
    const bw_msgdesc_t *head = bw_p2os_config_head_desc(), *tail = bw_p2os_config_tail_desc();
    const char *keys[BW_P2OS_CONFIG_FIELDS + 6];
    size_t nk = 0;
    keys[nk++] = "robot_type";
    keys[nk++] = "subtype";
    keys[nk++] = "serial";
    keys[nk++] = "name";
    keys[nk++] = "extra";
    for (size_t k = 0; k < tail->nfields; k++)
        keys[nk++] = tail->fields[k].name;
    keys[nk] = NULL;
    bw_p2os_config_t *c = &m->u.config;
    if (jm_check_keys(o, head, keys, err, errlen) < 0 ||
        get_cstring(o, "robot_type", c->robot_type, err, errlen) < 0 ||
        get_cstring(o, "subtype", c->subtype, err, errlen) < 0 ||
        get_cstring(o, "serial", c->serial, err, errlen) < 0 ||
        jm_get_fields(o, head, m, err, errlen) < 0 || get_cstring(o, "name", c->name, err, errlen) < 0)
        return -1;
    int k = get_prefix(o, tail->fields, tail->nfields, m, err, errlen);
    if (k < 0)
        return -1;
    c->nfields = (uint8_t)k;
    return get_extra(o, tail->fields, tail->nfields, (size_t)k, scratch, &c->nextra, &c->extra, err,
                     errlen);
}

static int get_unknown(json_t *o, bw_p2os_msg_t *m, uint8_t *scratch, char *err, size_t errlen)
{
    static const char *const keys[] = { "id", "length", "data", NULL };
    int64_t id, length;
    if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
        jm_get_int(o, "id", 0, 255, &id, err, errlen) < 0 ||
        jm_get_int(o, "length", 1, BW_P2OS_MAX_BODY, &length, err, errlen) < 0)
        return -1;
    m->id = (uint8_t)id;
    m->length = (uint8_t)length;
    if (!json_object_get(o, "data"))
        return 0; /* the id, then zeros */
    size_t n;
    if (jm_get_hex(o, "data", scratch, BW_P2OS_MAX_BODY, &n, err, errlen) < 0)
        return -1;
    if (n != (size_t)length) {
        snprintf(err, errlen, "field \"data\" holds %zu bytes but \"length\" is %lld", n,
                 (long long)length);
        return -1;
    }
    if (scratch[0] != id) {
        snprintf(err, errlen, "field \"data\" is the whole body: its first byte must be \"id\" %lld",
                 (long long)id);
        return -1;
    }
    m->u.unknown.data = scratch;
    return 0;
}

static const char *const type_names[] = { "command", "sync",    "sip",    "config",
                                          "encoder", "simstat", "unknown" };
static const bw_p2os_type_t type_values[] = { BW_P2OS_COMMAND,     BW_P2OS_SYNC,
                                              BW_P2OS_SIP,         BW_P2OS_CONFIG_PAC,
                                              BW_P2OS_ENCODER_PAC, BW_P2OS_SIMSTAT_PAC,
                                              BW_P2OS_UNKNOWN };

/* Builds a message from one JSON object; extra and unknown bytes land in
 * scratch. */
static int json_to_msg(json_t *o, bw_p2os_msg_t *m, uint8_t *scratch, char *err, size_t errlen)
{
    json_t *type = json_object_get(o, "type");
    if (!json_is_string(type)) {
        snprintf(err, errlen, "missing string field \"type\"");
        return -1;
    }
    const char *name = json_string_value(type);
    size_t t = 0;
    while (t < sizeof type_names / sizeof type_names[0] && strcmp(type_names[t], name) != 0)
        t++;
    if (t == sizeof type_names / sizeof type_names[0]) {
        snprintf(err, errlen, "unknown p2os message type \"%s\"", name);
        return -1;
    }
    bw_p2os_msg_init(m, type_values[t]);
    switch (m->type) {
    case BW_P2OS_COMMAND: return get_command(o, &m->u.command, scratch, err, errlen);
    case BW_P2OS_SIMSTAT_PAC: return get_simstat(o, m, scratch, err, errlen);
    case BW_P2OS_SYNC: return get_sync(o, &m->u.sync, err, errlen);
    case BW_P2OS_SIP: return get_sip(o, m, scratch, err, errlen);
    case BW_P2OS_CONFIG_PAC: return get_config(o, m, scratch, err, errlen);
    case BW_P2OS_ENCODER_PAC: {
        static const char *const keys[] = { "left", "right", NULL };
        int64_t l, r;
        if (jm_check_keys(o, NULL, keys, err, errlen) < 0 ||
            jm_get_int(o, "left", INT32_MIN, INT32_MAX, &l, err, errlen) < 0 ||
            jm_get_int(o, "right", INT32_MIN, INT32_MAX, &r, err, errlen) < 0)
            return -1;
        m->u.encoder.left = (int32_t)l;
        m->u.encoder.right = (int32_t)r;
        return 0;
    }
    default: return get_unknown(o, m, scratch, err, errlen);
    }
}

static int p_encode(json_t *line, jw_buf_t *out, char *err, size_t errlen)
{
    if (!json_is_object(line)) {
        snprintf(err, errlen, "a line must be one message object (p2os has one message per frame)");
        return -1;
    }
    json_t *type = json_object_get(line, "type");
    if (json_is_string(type) && strcmp(json_string_value(type), "stats") == 0)
        return 1;
    bw_p2os_msg_t m;
    uint8_t scratch[BW_P2OS_MAX_BODY];
    if (json_to_msg(line, &m, scratch, err, errlen) < 0)
        return -1;
    uint8_t frame[BW_P2OS_MAX_FRAME];
    int len = bw_p2os_encode_frame(frame, sizeof frame, &m);
    if (len == BW_ERANGE) {
        snprintf(err, errlen, "%s does not fit a frame (a body of at most %u bytes)",
                 bw_p2os_type_name(m.type), BW_P2OS_MAX_BODY);
        return -1;
    }
    if (len < 0) {
        snprintf(err, errlen, "cannot encode %s: %s", bw_p2os_type_name(m.type), bw_strerror(len));
        return -1;
    }
    return jw_buf_append(out, frame, (size_t)len) < 0 ? (snprintf(err, errlen, "out of memory"), -1)
                                                       : 0;
}

const jw_codec_t jw_codec_p2os = {
    .name = "p2os",
    .summary = "Pioneer 2 / PeopleBot P2OS (FA FB frames)",
    .encode = p_encode,
};
