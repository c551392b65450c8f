/*
 * RBSM (CMU RoboBuggy serial messages) as JSON for `botwire decode` and
 * `botwire encode`.
 *
 * RBSM is the same both ways: a message from the host and one from the Mega
 * read alike, so --from only says which side a record's bytes came from.
 * One message per frame: --frames changes nothing, and an array is not a
 * line encode takes.
 *
 * Every message is {"type":"message"} with its id, its name, "data" (the
 * 32-bit word, unsigned) and "value" (the word as the seed reads it: signed
 * for the steering angles, unsigned for the rest, mega_command included).
 * mega_command also has "angle" (d3 d2, signed) and "brake" (d1), and
 * "spare" (d0, which the seed leaves unused) only when it is not zero, so
 * encode can write it back. Values take their whole wire range (a brake of
 * 7, an angle of -32768), so decode | encode is byte-exact for every message
 * the receiver accepts; what it rejects is counted in the stats line, not
 * shown. The reserved id 252 (the old footer) shows as "reserved" and ids
 * nobody defined as "unknown"; both are counted in "unknown".
 *
 * With --model deployed (or a record whose url says model=deployed) id 19
 * is the deployed firmware's steering word: named "mega_steer_command",
 * its "value" signed (hundredths of a degree, positive to the right), no
 * angle or brake. encode reads a "value" given under that name as signed.
 *
 * encode takes "id", "name" or both (they must agree), then the word as
 * "data", as "value", or for mega_command as "angle" and "brake" (with
 * "spare", 0 unless given); any of them given together must give the same
 * word. Nothing is assumed: a message without a word is an error.
 *
 * docs/rbsm.md's paragraph:
 *
 * RBSM message types (`--proto rbsm`, the CMU RoboBuggy's Arduino Mega;
 * both directions read alike): every message is `message` with `id`, `name`
 * (the seed's define without RBSM_MID_, lower case: enc_ticks_last,
 * enc_ticks_reset, enc_timestamp, enc_reset_request, enc_reset_confirm,
 * mega_teleop_brake_command, brake_command, mega_command, mega_steer_angle,
 * mega_brake_state, mega_auton_state, mega_battery_level,
 * mega_steer_feedback, mega_firmware_hash, lighting, mega_timestamp, error,
 * device_id; `reserved` for 252 and `unknown` for an id nobody defined),
 * `data` (the 32-bit word, unsigned) and `value` (the word read as the seed
 * says: signed for mega_steer_angle and mega_steer_feedback, unsigned for
 * the rest); `mega_command` also has `angle` (signed, thousandths of a
 * degree), `brake`, and `spare` (its unused fourth byte) when that is not
 * zero. `encode` takes a message by `id` or by `name`, in any case
 * (`MEGA_COMMAND`, `rbsm_mid_mega_command`, or the deployed code's names
 * such as `mega_steer_command`), with `data`, `value`, or for mega_command
 * `angle` and `brake`; fields given together must agree. `decode --model
 * deployed` (and a record of a `?model=deployed` buggy) reads id 19 as the
 * deployed firmware does: `mega_steer_command`, `value` the signed steering
 * word (hundredths of a degree, positive to the right), which `encode`
 * takes back by that name.
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "jw.h"
#include "botwire/rbsm.h"

typedef struct {
    bw_rbsm_parser_t parser;
    uint64_t unknown; /* messages whose id is no message */
    bool deployed;    /* --model deployed: id 19 is the steering word */
} rbsm_state_t;

/* The deployed firmware's name for id 19, whose word there is the steering
 * alone (signed hundredths of a degree, positive to the right). */
#define STEER_WORD_NAME "mega_steer_command"

/* mega_command's fields by name, as offsets into bw_rbsm_msg_t. */
#define CMD_FIELD(name, type) { #name, type, 1, (uint16_t)offsetof(bw_rbsm_msg_t, name) }
static const bw_field_t cmd_fields[] = {
    CMD_FIELD(angle, BW_FT_I16),
    CMD_FIELD(brake, BW_FT_U8),
    CMD_FIELD(spare, BW_FT_U8),
};
/* angle and brake always; spare only when not zero. */
static const bw_msgdesc_t cmd_shown = { "mega_command", cmd_fields, 2, 3, BW_ORDER_BE };
static const bw_msgdesc_t cmd_desc = { "mega_command", cmd_fields, 3, 3, BW_ORDER_BE };

static void r_init(void *state, bool from_robot, bool frames)
{
    /* Both directions speak the same messages; one per frame. */
    (void)from_robot;
    (void)frames;
    rbsm_state_t *s = state;
    bw_rbsm_parser_init(&s->parser);
    s->unknown = 0;
    s->deployed = false;
}

static int r_model(void *state, const char *model, char *err, size_t errlen)
{
    rbsm_state_t *s = state;
    if (strcmp(model, "seed") != 0 && strcmp(model, "deployed") != 0) {
        snprintf(err, errlen, "rbsm has no model \"%s\" (models: seed, deployed)", model);
        return -1;
    }
    s->deployed = strcmp(model, "deployed") == 0;
    return 0;
}

/* The word as the seed reads it. */
static int64_t value_of(uint8_t id, uint32_t word)
{
    return bw_rbsm_layout(id) == BW_RBSM_SIGNED ? (int64_t)(int32_t)word : (int64_t)word;
}

/* bw_rbsm_name and its length, looked up once per id: the codec walks its
 * packed names. (They are ASCII: nothing to check or escape.) */
static const char *name_of(uint8_t id, size_t *len)
{
    static const char *names[256];
    static size_t lens[256];
    if (!names[id]) {
        names[id] = bw_rbsm_name(id);
        lens[id] = strlen(names[id]);
    }
    *len = lens[id];
    return names[id];
}

static void put_msg(rbsm_state_t *s, const bw_rbsm_frame_t *f, jw_t *w)
{
    bw_rbsm_msg_t m;
    if (bw_rbsm_decode(f, &m) == BW_EUNKNOWN)
        s->unknown++;
    /* The deployed Mega reads id 19 as one signed word: the steering. */
    bool steer_word = s->deployed && f->id == BW_RBSM_MID_MEGA_COMMAND;
    jw_msg_begin(w, "message");
    jw_key_int(w, "id", f->id);
    size_t len = sizeof STEER_WORD_NAME - 1;
    const char *name = steer_word ? STEER_WORD_NAME : name_of(f->id, &len);
    jw_key(w, "name");
    jw_str(w, name, len);
    jw_key_int(w, "data", (int64_t)f->word);
    jw_key_int(w, "value", steer_word ? (int64_t)(int32_t)f->word : value_of(f->id, f->word));
    if (m.layout == BW_RBSM_COMMAND && !steer_word)
        jw_desc(w, m.spare ? &cmd_desc : &cmd_shown, &m);
    jw_msg_end(w);
    jw_line_end(w);
}

static int r_push(void *state, const uint8_t *data, size_t n, jw_t *w)
{
    rbsm_state_t *s = state;
    bw_rbsm_frame_t f;
    int rc;
    /* A failed VERIFY (BW_ELENGTH) is counted by the receiver, which then
     * rescans what it holds: go on. */
    while ((rc = bw_rbsm_parse(&s->parser, &data, &n, &f)) != 0) {
        if (rc > 0)
            put_msg(s, &f, w);
        if (w->failed)
            return -1;
    }
    return 0;
}

static int r_finish(void *state, jw_t *w, bw_parse_stats_t *stats)
{
    (void)w;
    rbsm_state_t *s = state;
    /* The held bytes can no longer make a message: counted, nothing shown. */
    bw_rbsm_parser_finish(&s->parser);
    *stats = s->parser.stats;
    stats->unknown += s->unknown;
    return 0;
}

const jw_decoder_t jw_decoder_rbsm = {
    .name = "rbsm",
    .state_size = sizeof(rbsm_state_t),
    .init = r_init,
    .push = r_push,
    .finish = r_finish,
    .model = r_model,
};

/* ---- JSON to messages ---------------------------------------------------------- */

static int unknown_name(const char *name, char *err, size_t errlen)
{
    int n = snprintf(err, errlen, "unknown rbsm message name \"%s\" (names:", name);
    for (unsigned i = 0; bw_rbsm_id_at(i) >= 0 && n > 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, "%s %s", i ? "," : "",
                      bw_rbsm_name((uint8_t)bw_rbsm_id_at(i)));
    if (n > 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - (size_t)n, "; \"unknown\" with the \"id\" of an unnamed id)");
    return -1;
}

/* The id given by "id", "name" or both, which must agree. "unknown" names
 * every id without a name, so it needs the id. */
static int get_id(json_t *o, uint8_t *id, char *err, size_t errlen)
{
    json_t *jname = json_object_get(o, "name");
    int64_t num = -1;
    if (json_object_get(o, "id") && jm_get_int(o, "id", 0, 255, &num, err, errlen) < 0)
        return -1;
    if (!jname) {
        if (num < 0) {
            snprintf(err, errlen, "missing field \"id\" or \"name\"");
            return -1;
        }
        *id = (uint8_t)num;
        return 0;
    }
    const char *name = json_string_value(jname);
    if (!name) {
        snprintf(err, errlen, "field \"name\" must be a string");
        return -1;
    }
    int named = bw_rbsm_id(name);
    if (named < 0 && strcasecmp(name, "unknown") != 0)
        return unknown_name(name, err, errlen);
    if (named < 0 && num < 0) {
        snprintf(err, errlen, "name \"%s\" needs the message's \"id\"", name);
        return -1;
    }
    if (named < 0 && strcmp(bw_rbsm_name((uint8_t)num), "unknown") != 0) {
        snprintf(err, errlen, "fields \"id\" (%lld, which is %s) and \"name\" (\"%s\") disagree",
                 (long long)num, bw_rbsm_name((uint8_t)num), name);
        return -1;
    }
    if (named >= 0 && num >= 0 && named != num) {
        snprintf(err, errlen, "fields \"id\" (%lld) and \"name\" (\"%s\" is %d) disagree",
                 (long long)num, name, named);
        return -1;
    }
    *id = (uint8_t)(named >= 0 ? named : num);
    return 0;
}

/* mega_command's word from "angle", "brake" and "spare" (0 unless given). */
static int get_command_word(json_t *o, uint32_t *word, char *err, size_t errlen)
{
    bool angle = json_object_get(o, "angle") != NULL;
    if (angle != (json_object_get(o, "brake") != NULL)) {
        snprintf(err, errlen,
                 "field \"%s\" needs \"%s\": mega_command's angle and brake go together",
                 angle ? "angle" : "brake", angle ? "brake" : "angle");
        return -1;
    }
    bw_rbsm_msg_t m;
    bw_rbsm_msg_init(&m, BW_RBSM_MID_MEGA_COMMAND);
    const bw_msgdesc_t *d = json_object_get(o, "spare") ? &cmd_desc : &cmd_shown;
    if (jm_get_fields(o, d, &m, err, errlen) < 0)
        return -1;
    *word = bw_rbsm_command_word(m.angle, m.brake, m.spare);
    return 0;
}

/* The data word of a message: from "data", "value" and mega_command's
 * fields, whichever are given, which must agree. */
/* Whether a message is named as the deployed firmware names id 19
 * (mega_steer_command, rbsm_mid_ or not, any case): its steering word. */
static bool named_steer_word(json_t *o)
{
    const char *name = json_string_value(json_object_get(o, "name"));
    if (!name)
        return false;
    if (strncasecmp(name, "rbsm_mid_", 9) == 0)
        name += 9;
    return strcasecmp(name, STEER_WORD_NAME) == 0;
}

static int get_word(json_t *o, uint8_t id, uint32_t *word, char *err, size_t errlen)
{
    /* Named as the deployed firmware names it, id 19's "value" is its
     * steering word, signed (as `decode --model deployed` writes it). */
    bool steer_word = named_steer_word(o);
    bool command = bw_rbsm_layout(id) == BW_RBSM_COMMAND;
    bool fields = json_object_get(o, "angle") || json_object_get(o, "brake");
    bool has_data = json_object_get(o, "data") != NULL;
    bool has_value = json_object_get(o, "value") != NULL;
    if (!command) {
        for (size_t k = 0; k < cmd_desc.nfields; k++) {
            if (json_object_get(o, cmd_fields[k].name)) {
                snprintf(err, errlen, "field \"%s\" is mega_command's (id %u) only, not %s's",
                         cmd_fields[k].name, BW_RBSM_MID_MEGA_COMMAND, bw_rbsm_name(id));
                return -1;
            }
        }
    } else if (json_object_get(o, "spare") && !fields) {
        snprintf(err, errlen, "field \"spare\" goes with \"angle\" and \"brake\"");
        return -1;
    }
    if (!has_data && !has_value && !fields) {
        if (command)
            snprintf(err, errlen, "missing field \"data\", \"value\", or \"angle\" and \"brake\"");
        else
            snprintf(err, errlen, "missing field \"data\" or \"value\"");
        return -1;
    }
    int64_t data = 0, value = 0;
    uint32_t from_fields = 0;
    if (has_data && jm_get_int(o, "data", 0, (int64_t)UINT32_MAX, &data, err, errlen) < 0)
        return -1;
    if (has_value) {
        bool is_signed = bw_rbsm_layout(id) == BW_RBSM_SIGNED || steer_word;
        if (jm_get_int(o, "value", is_signed ? (int64_t)INT32_MIN : 0,
                       is_signed ? (int64_t)INT32_MAX : (int64_t)UINT32_MAX, &value, err,
                       errlen) < 0)
            return -1;
    }
    uint32_t from_value = (uint32_t)value; /* a signed value as its two's complement */
    if (fields && get_command_word(o, &from_fields, err, errlen) < 0)
        return -1;
    if (has_data && has_value && from_value != (uint32_t)data) {
        if (value < 0)
            snprintf(err, errlen, "fields \"data\" (%lld) and \"value\" (%lld, data %lu) disagree",
                     (long long)data, (long long)value, (unsigned long)from_value);
        else
            snprintf(err, errlen, "fields \"data\" (%lld) and \"value\" (%lld) disagree",
                     (long long)data, (long long)value);
        return -1;
    }
    *word = has_data ? (uint32_t)data : has_value ? from_value : from_fields;
    if (fields && from_fields != *word) {
        const char *spare = json_object_get(o, "spare") ? ", \"spare\"" : "";
        snprintf(err, errlen,
                 "fields \"angle\", \"brake\"%s (data %lu) and \"%s\" (%lld) disagree", spare,
                 (unsigned long)from_fields, has_data ? "data" : "value",
                 has_data ? (long long)data : (long long)value);
        return -1;
    }
    return 0;
}

static int r_encode(json_t *line, jw_buf_t *out, char *err, size_t errlen)
{
    static const char *const keys[] = { "id", "name", "data", "value", NULL };
    if (!json_is_object(line)) {
        snprintf(err, errlen, "a line must be one message object (rbsm has one message per frame)");
        return -1;
    }
    json_t *type = json_object_get(line, "type");
    if (!json_is_string(type)) {
        snprintf(err, errlen, "missing string field \"type\"");
        return -1;
    }
    const char *tname = json_string_value(type);
    if (strcmp(tname, "stats") == 0)
        return 1;
    if (strcmp(tname, "message") != 0) {
        snprintf(err, errlen,
                 "unknown rbsm message type \"%s\" (every rbsm message is \"message\")", tname);
        return -1;
    }
    uint8_t id;
    uint32_t word;
    if (jm_check_keys(line, &cmd_desc, keys, err, errlen) < 0 ||
        get_id(line, &id, err, errlen) < 0 || get_word(line, id, &word, err, errlen) < 0)
        return -1;
    uint8_t buf[BW_RBSM_MAX_FRAME];
    int n = bw_rbsm_encode(buf, sizeof buf, id, word);
    if (n < 0) {
        snprintf(err, errlen, "cannot encode %s: %s", bw_rbsm_name(id), bw_strerror(n));
        return -1;
    }
    if (jw_buf_append(out, buf, (size_t)n) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

const jw_codec_t jw_codec_rbsm = {
    .name = "rbsm",
    .summary = "CMU RoboBuggy serial messages, RBSM (id, 4 data bytes, footer 0A)",
    .encode = r_encode,
};
