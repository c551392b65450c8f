/* `botwire decode` and `botwire encode` as a library (botwire/json.h): the
 * command's own JSON writers and readers (json/<family>.c), driven as
 * cmd_codec.c drives them, with the text kept in memory instead of written
 * to standard output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli.h"
#include "botwire/json.h"
#include "jw.h"

/* Built with -fvisibility=hidden: the command's helpers (cli_*, jw_*,
 * jm_*) stay inside the library, only bw_json_* is its API. */
#define BW_JSON_API __attribute__((visibility("default")))

/* The first line of a `botwire record` file (as cmd_codec.c). */
static const char record_magic[] = "{\"botwire_record\":";

#define WARNINGS_MAX 64

struct bw_json_decoder {
    const jw_decoder_t *dec;
    void *state[2]; /* [0] bytes from the host, [1] from the robot */
    bool use[2];
    bool from_robot; /* raw input's side */
    bool model_given;
    bool finished;
    enum { UNDECIDED, RAW, RECORD } mode;
    jw_t w;
    FILE *f;        /* the writer's output: into out */
    cli_buf_t out;  /* text not yet taken */
    bool taken;     /* out was handed out: cleared before the next write */
    cli_buf_t pending; /* input not yet decoded (a record's partial line) */
    cli_buf_t bytes;   /* a record line's data */
    size_t line_no;
    long damaged;
    char warnings[WARNINGS_MAX][160];
    unsigned nwarn, warn_first;
    uint64_t warnings_dropped;
};

static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
    bw_json_decoder_t *d = cookie;
    if (d->taken) {
        d->out.len = 0;
        d->taken = false;
    }
    return cli_buf_append(&d->out, buf, n) < 0 ? -1 : (ssize_t)n;
}

/* Both decoders in a model's dialect: 0, or -1 with err. */
static int set_model(bw_json_decoder_t *d, const char *model, char *err, size_t errlen)
{
    if (!d->dec->model) {
        snprintf(err, errlen, "--proto %s has no models", d->dec->name);
        return -1;
    }
    for (int dir = 0; dir < 2; dir++)
        if (d->dec->model(d->state[dir], model, err, errlen) < 0)
            return -1;
    return 0;
}

BW_JSON_API void bw_json_decoder_free(bw_json_decoder_t *d)
{
    if (!d)
        return;
    if (d->f)
        fclose(d->f);
    jw_free(&d->w);
    free(d->state[0]);
    free(d->state[1]);
    cli_buf_free(&d->out);
    cli_buf_free(&d->pending);
    cli_buf_free(&d->bytes);
    free(d);
}

BW_JSON_API int bw_json_decoder_new(bw_json_decoder_t **out, const char *proto, const char *model,
                                    const char *from, bool frames, char *err, size_t errlen)
{
    *out = NULL;
    const cli_codec_t *codec = proto ? cli_codec_find(proto) : NULL;
    const jw_decoder_t *dec = codec ? jw_decoder_find(codec->name) : NULL;
    if (!dec) {
        snprintf(err, errlen, "unknown protocol \"%s\" (one of: %s)", proto ? proto : "",
                 cli_codec_names());
        return BW_EUNKNOWN;
    }
    if (from && strcmp(from, "robot") != 0 && strcmp(from, "host") != 0) {
        snprintf(err, errlen, "from must be robot or host, not \"%s\"", from);
        return BW_EINVAL;
    }
    bw_json_decoder_t *d = calloc(1, sizeof *d);
    if (!d)
        goto oom;
    d->dec = dec;
    static const cookie_io_functions_t io = { .write = out_write };
    d->f = fopencookie(d, "w", io);
    if (!d->f)
        goto oom;
    setvbuf(d->f, NULL, _IONBF, 0); /* jw buffers already */
    jw_init(&d->w, d->f);
    for (int dir = 0; dir < 2; dir++) {
        d->state[dir] = calloc(1, dec->state_size);
        if (!d->state[dir])
            goto oom;
        dec->init(d->state[dir], dir == 1, frames);
    }
    if (dec->pair && !from)
        dec->pair(d->state[0], d->state[1]);
    d->model_given = model != NULL;
    if (model && set_model(d, model, err, errlen) < 0) {
        bw_json_decoder_free(d);
        return BW_EINVAL;
    }
    d->from_robot = !from || strcmp(from, "robot") == 0;
    d->use[0] = !from || !d->from_robot;
    d->use[1] = !from || d->from_robot;
    *out = d;
    return 0;
oom:
    bw_json_decoder_free(d);
    snprintf(err, errlen, "out of memory");
    return BW_ENOMEM;
}

static void warn(bw_json_decoder_t *d, const char *text)
{
    if (d->nwarn == WARNINGS_MAX) {
        d->warn_first = (d->warn_first + 1) % WARNINGS_MAX;
        d->nwarn--;
        d->warnings_dropped++;
    }
    snprintf(d->warnings[(d->warn_first + d->nwarn) % WARNINGS_MAX], sizeof d->warnings[0], "%s",
             text);
    d->nwarn++;
}

/* The model= of a record header's url, unless a model was given. */
static int record_model(bw_json_decoder_t *d, const char *url, char *err, size_t errlen)
{
    bw_url_t u;
    char why[8];
    const char *model;
    if (d->model_given || !url || !d->dec->model || bw_url_parse(url, &u, why, sizeof why) < 0 ||
        !(model = bw_url_param(&u, "model")))
        return 0;
    if (set_model(d, model, err, errlen) < 0) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, " (line 1's url)");
        return -1;
    }
    return 0;
}

/* One line of a record (docs/record-format.md), read as the command reads
 * it. Returns 0; -1 with a message in err for a bad line; -2 when the
 * output failed. */
static int record_line(bw_json_decoder_t *d, const char *line, size_t n, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *o = json_loadb(line, n, 0, &jerr);
    if (!o) {
        snprintf(err, errlen, "line %zu: malformed JSON: %s", d->line_no, jerr.text);
        return -1;
    }
    int rc = -1;
    json_t *jt = json_object_get(o, "t"), *from = json_object_get(o, "from");
    json_t *data = json_object_get(o, "data");
    if (d->line_no == 1) {
        json_t *v = json_object_get(o, "botwire_record");
        if (!json_is_integer(v) || json_integer_value(v) != 1) {
            snprintf(err, errlen, "line 1: not a version 1 botwire record");
            goto out;
        }
        rc = record_model(d, json_string_value(json_object_get(o, "url")), err, errlen);
        goto out;
    }
    if (!json_is_number(jt) || !json_is_string(from) || !json_is_string(data) ||
        (strcmp(json_string_value(from), "robot") && strcmp(json_string_value(from), "host"))) {
        snprintf(err, errlen,
                 "line %zu: expected {\"t\":SECONDS,\"from\":\"robot\"|\"host\",\"data\":\"HEX\"}",
                 d->line_no);
        goto out;
    }
    int dir = strcmp(json_string_value(from), "robot") == 0;
    size_t cap = json_string_length(data) / 2 + 1, got;
    char why[CLI_ERRLEN];
    if (cap > d->bytes.cap) {
        uint8_t *p = realloc(d->bytes.p, cap);
        if (!p) {
            snprintf(err, errlen, "out of memory");
            rc = -2;
            goto out;
        }
        d->bytes.p = p;
        d->bytes.cap = cap;
    }
    if (jm_get_hex(o, "data", d->bytes.p, cap, &got, why, sizeof why) < 0) {
        snprintf(err, errlen, "line %zu: %.200s", d->line_no, why);
        goto out;
    }
    rc = 0;
    if (d->use[dir]) {
        d->w.t = json_number_value(jt);
        d->w.from = dir ? "robot" : "host";
        rc = d->dec->push(d->state[dir], d->bytes.p, got, &d->w) < 0 ? -2 : 0;
    }
out:
    json_decref(o);
    return rc;
}

/* The complete lines of pending (and at the end, the last one). Returns 0,
 * or -2 when the output failed. */
static int record_feed(bw_json_decoder_t *d, bool at_end)
{
    cli_buf_t *buf = &d->pending;
    size_t pos = 0;
    int rc = 0;
    for (;;) {
        const uint8_t *nl = memchr(buf->p + pos, '\n', buf->len - pos);
        size_t end = nl ? (size_t)(nl - buf->p) : buf->len;
        if (!nl && !at_end)
            break;
        if (end > pos || nl) {
            d->line_no++;
            char err[CLI_ERRLEN];
            if (end > pos &&
                (rc = record_line(d, (const char *)buf->p + pos, end - pos, err, sizeof err)) < 0) {
                if (rc != -1)
                    return rc;
                d->damaged++; /* said, counted, and the rest still read */
                warn(d, err);
                rc = 0;
            }
        }
        pos = nl ? end + 1 : end;
        if (!nl)
            break;
    }
    memmove(buf->p, buf->p + pos, buf->len - pos);
    buf->len -= pos;
    return rc;
}

static int decoded(bw_json_decoder_t *d, int rc)
{
    if (rc < 0 || !jw_flush(&d->w) || fflush(d->f) != 0)
        return BW_ENOMEM;
    return 0;
}

BW_JSON_API int bw_json_decoder_push(bw_json_decoder_t *d, const uint8_t *data, size_t n)
{
    if (d->finished)
        return BW_ESTATE;
    if (d->mode == RAW)
        return decoded(d, d->dec->push(d->state[d->from_robot], data, n, &d->w));
    if (cli_buf_append(&d->pending, data, n) < 0)
        return BW_ENOMEM;
    if (d->mode == UNDECIDED && d->pending.len >= sizeof record_magic - 1)
        d->mode = memcmp(d->pending.p, record_magic, sizeof record_magic - 1) == 0 ? RECORD : RAW;
    if (d->mode == UNDECIDED)
        return 0;
    if (d->mode == RECORD) {
        d->w.annotate = true;
        return decoded(d, record_feed(d, false));
    }
    int rc = d->dec->push(d->state[d->from_robot], d->pending.p, d->pending.len, &d->w);
    d->pending.len = 0;
    return decoded(d, rc);
}

BW_JSON_API int bw_json_decoder_finish(bw_json_decoder_t *d)
{
    if (d->finished)
        return BW_ESTATE;
    int rc = 0;
    if (d->mode == UNDECIDED) {
        /* Too short to be a record: raw bytes. */
        d->mode = RAW;
        rc = d->dec->push(d->state[d->from_robot], d->pending.p, d->pending.len, &d->w);
        d->pending.len = 0;
    } else if (d->mode == RECORD) {
        rc = record_feed(d, true);
    }
    d->finished = true;
    if (rc < 0)
        return decoded(d, rc);
    bw_parse_stats_t stats = { 0 };
    for (int dir = 0; dir < 2; dir++) {
        if (!d->use[dir] || (d->mode != RECORD && dir != d->from_robot))
            continue;
        bw_parse_stats_t s;
        d->w.from = dir ? "robot" : "host";
        d->dec->finish(d->state[dir], &d->w, &s);
        bw_parse_stats_add(&stats, &s);
    }
    d->w.annotate = false;
    if (!d->w.failed)
        jw_stats_line(&d->w, &stats, d->mode == RECORD ? d->damaged : -1);
    return decoded(d, 0);
}

BW_JSON_API const char *bw_json_decoder_text(bw_json_decoder_t *d, size_t *len)
{
    *len = d->taken ? 0 : d->out.len;
    d->taken = true;
    return d->out.p ? (const char *)d->out.p : "";
}

BW_JSON_API int bw_json_decoder_next_warning(bw_json_decoder_t *d, char *buf, size_t cap)
{
    if (d->nwarn == 0)
        return 0;
    snprintf(buf, cap, "%s", d->warnings[d->warn_first]);
    d->warn_first = (d->warn_first + 1) % WARNINGS_MAX;
    d->nwarn--;
    return 1;
}

BW_JSON_API int bw_json_encode(const char *proto, const char *json, size_t n, uint8_t *out,
                               size_t cap, size_t *len, char *err, size_t errlen)
{
    *len = 0;
    const cli_codec_t *codec = proto ? cli_codec_find(proto) : NULL;
    if (!codec) {
        snprintf(err, errlen, "unknown protocol \"%s\" (one of: %s)", proto ? proto : "",
                 cli_codec_names());
        return BW_EUNKNOWN;
    }
    json_error_t jerr;
    json_t *v = json_loadb(json, n, JSON_REJECT_DUPLICATES, &jerr);
    if (!v) {
        snprintf(err, errlen, "malformed JSON: %s", jerr.text);
        return BW_EINVAL;
    }
    cli_buf_t frame = { 0 };
    int rc = codec->encode(v, &frame, err, errlen);
    json_decref(v);
    if (rc < 0) {
        rc = BW_EINVAL;
    } else if (rc == 0) {
        *len = frame.len;
        if (frame.len > cap)
            rc = BW_ENOSPC;
        else if (frame.len)
            memcpy(out, frame.p, frame.len);
    }
    cli_buf_free(&frame);
    return rc;
}

BW_JSON_API const char *bw_json_protocols(void)
{
    return cli_codec_names();
}
