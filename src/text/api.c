/* The messages' text form as a library (botwire/json.h): every family's
 * JSON writers and readers (src/text/<family>.c) over raw bytes or a
 * record (botwire/record.h), the text kept in memory for the caller:
 * `botwire decode` and `encode`, the Python package, programs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/json.h"
#include "botwire/record.h"
#include "jw.h"

/* Built with -fvisibility=hidden: the layer's helpers (jw_*, jm_*) and the
 * record reader stay inside the library, only bw_json_* is its API. */
#define BW_JSON_API __attribute__((visibility("default")))

#define WARNINGS_MAX 64

struct bw_json_decoder {
    const jw_decoder_t *dec;
    void *state[2]; /* [0] bytes from the host, [1] from the robot */
    bool use[2];
    bool from_robot; /* raw input's side */
    bool model_given;
    bool finished;
    bool strict;     /* a damaged record line ends it */
    bool cols_said;  /* the columns' failure was said */
    enum { UNDECIDED, RAW, RECORD, MCAP } mode;
    jw_t w;
    FILE *f;        /* the writer's output: into out */
    jw_buf_t out;   /* text not yet taken */
    bool taken;     /* out was handed out: cleared before the next write */
    jw_buf_t pending; /* input not yet decoded (a record's partial line) */
    bw_record_reader_t rec;
    bw_mcap_reader_t *mcap; /* an MCAP record's reader */
    bool mcap_head;         /* its "botwire" metadata taken */
    uint64_t start_ns;      /* its log times' origin */
    long damaged;
    bw_parse_stats_t stats; /* at the finish */
    void (*on_warning)(const char *text, void *ctx);
    void *warning_ctx;
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
    return jw_buf_append(&d->out, buf, n) < 0 ? -1 : (ssize_t)n;
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
    jc_free(d->w.cols);
    free(d->state[0]);
    free(d->state[1]);
    jw_buf_free(&d->out);
    jw_buf_free(&d->pending);
    bw_record_reader_free(&d->rec);
    bw_mcap_reader_free(d->mcap);
    free(d);
}

BW_JSON_API int bw_json_decoder_new(bw_json_decoder_t **out, const char *proto, const char *model,
                                    const char *from, bool frames, char *err, size_t errlen)
{
    *out = NULL;
    const jw_codec_t *codec = proto ? jw_codec_find(proto) : NULL;
    const jw_decoder_t *dec = codec ? jw_decoder_find(codec->name) : NULL;
    if (!dec) {
        snprintf(err, errlen, "unknown protocol \"%s\" (one of: %s)", proto ? proto : "",
                 jw_codec_names());
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
    bw_record_reader_init(&d->rec);
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
    if (d->on_warning) {
        d->on_warning(text, d->warning_ctx);
        return;
    }
    if (d->nwarn == WARNINGS_MAX) {
        d->warn_first = (d->warn_first + 1) % WARNINGS_MAX;
        d->nwarn--;
        d->warnings_dropped++;
    }
    snprintf(d->warnings[(d->warn_first + d->nwarn) % WARNINGS_MAX], sizeof d->warnings[0], "%.*s",
             (int)sizeof d->warnings[0] - 1, text);
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

/* One line of a record (docs/record-format.md). Returns 0; -1 with a
 * message in err for a line that cannot be read; -2 when the output
 * failed (or memory ran out). */
static int record_line(bw_json_decoder_t *d, const char *line, size_t n, char *err, size_t errlen)
{
    bw_record_chunk_t c;
    int rc = bw_record_reader_line(&d->rec, line, n, &c, err, errlen);
    if (rc == BW_ENOMEM)
        return -2;
    if (rc < 0)
        return -1;
    if (rc == 0)
        return d->rec.line_no == 1 && d->rec.url ? record_model(d, d->rec.url, err, errlen) : 0;
    int dir = c.from_robot;
    if (!d->use[dir])
        return 0;
    if (c.t_text)
        jw_set_t(&d->w, c.t, c.t_text, c.t_len);
    else
        d->w.t = c.t;
    d->w.from = dir ? "robot" : "host";
    return d->dec->push(d->state[dir], c.data, c.len, &d->w) < 0 ? -2 : 0;
}

/* Whether pending starts as an MCAP file does: 1, 0, -1 too short to tell. */
static int mcap_sniff(const jw_buf_t *b)
{
    size_t n = b->len < 8 ? b->len : 8;
    if (memcmp(b->p, BW_MCAP_MAGIC, n) != 0)
        return 0;
    return n == 8 ? 1 : -1;
}

/* The messages of an MCAP record that pending completes (all of them, at
 * the end): the bytes on /wire/robot and /wire/host, t from the
 * "botwire" metadata's start_ns. Returns as record_feed. */
static int mcap_feed(bw_json_decoder_t *d, bool at_end)
{
    if (!d->mcap && !(d->mcap = bw_mcap_reader_new()))
        return -2;
    if (bw_mcap_reader_push(d->mcap, d->pending.p, d->pending.len) < 0)
        return -2;
    d->pending.len = 0;
    if (at_end)
        bw_mcap_reader_end(d->mcap);
    for (;;) {
        bw_mcap_message_t m;
        char err[JW_ERRLEN];
        int k = bw_mcap_next(d->mcap, &m, err, sizeof err);
        if (k == 0)
            return 0;
        if (k < 0) {
            /* a damaged chunk, a cut-off end: said once, counted, the rest
             * still read */
            warn(d, err);
            if (d->strict)
                return -1;
            d->damaged++;
            continue;
        }
        if (!d->mcap_head) {
            d->mcap_head = true;
            const char *ns = bw_mcap_meta(d->mcap, "botwire", "start_ns");
            d->start_ns = ns ? strtoull(ns, NULL, 10) : 0;
            if (record_model(d, bw_mcap_meta(d->mcap, "botwire", "url"), err, sizeof err) < 0) {
                warn(d, err);
                return -1;
            }
        }
        const uint8_t *bytes;
        size_t len;
        int dir = bw_record_mcap_wire(&m, &bytes, &len, err, sizeof err);
        if (dir == -2) { /* as a damaged chunk */
            warn(d, err);
            if (d->strict)
                return -1;
            d->damaged++;
            continue;
        }
        if (dir < 0 || !d->use[dir])
            continue;
        /* exact to the microsecond the record keeps, as the JSON Lines
         * record's t: the same bytes decode to the same lines */
        d->w.t = (double)(int64_t)(m.log_time - d->start_ns) / 1e9;
        d->w.from = dir ? "robot" : "host";
        if (d->dec->push(d->state[dir], bytes, len, &d->w) < 0)
            return -2;
    }
}

/* The complete lines of pending (and at the end, the last one). Returns 0;
 * -1 at a damaged line when strict (its reason the next warning); -2 when
 * the output failed. */
static int record_feed(bw_json_decoder_t *d, bool at_end)
{
    jw_buf_t *buf = &d->pending;
    size_t pos = 0;
    int rc = 0;
    for (;;) {
        const uint8_t *nl = memchr(buf->p + pos, '\n', buf->len - pos);
        size_t end = nl ? (size_t)(nl - buf->p) : buf->len;
        if (!nl && !at_end)
            break;
        if (end > pos || nl) {
            char err[JW_ERRLEN];
            rc = record_line(d, (const char *)buf->p + pos, end - pos, err, sizeof err);
            if (rc == -1) {
                /* A damaged line (a recorder killed mid-line, a bad copy):
                 * said once, counted, and the rest still read. */
                warn(d, err);
                if (d->strict) {
                    pos = nl ? end + 1 : end;
                    break;
                }
                d->damaged++;
                rc = 0;
            } else if (rc < 0) {
                return rc;
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

/* Before a push or the finish: a tape handed out is written over (text
 * goes through the FILE into out, which out_write empties). */
static void writing(bw_json_decoder_t *d)
{
    if (d->w.tape && d->taken) {
        d->w.len = 0;
        d->taken = false;
    }
}

static int decoded(bw_json_decoder_t *d, int rc)
{
    /* What decoded before a damaged line is kept, and handed out: a tape
     * where the writer holds it, text through the FILE. */
    const char *why;
    if (d->w.cols && jc_failed(d->w.cols, &why) && rc != -2) {
        /* said once, at the first (the columns take nothing more) */
        if (!d->cols_said) {
            d->cols_said = true;
            warn(d, why);
        }
        return BW_EINVAL;
    }
    if (d->w.tape || d->w.cols)
        return rc == -2 || d->w.failed ? BW_ENOMEM : rc == -1 ? BW_EINVAL : 0;
    if (rc == -2 || !jw_flush(&d->w) || fflush(d->f) != 0)
        return BW_ENOMEM;
    return rc == -1 ? BW_EINVAL : 0;
}

BW_JSON_API int bw_json_decoder_push(bw_json_decoder_t *d, const uint8_t *data, size_t n)
{
    if (d->finished)
        return BW_ESTATE;
    writing(d);
    if (d->mode == RAW)
        return decoded(d, d->dec->push(d->state[d->from_robot], data, n, &d->w));
    if (jw_buf_append(&d->pending, data, n) < 0)
        return BW_ENOMEM;
    if (d->mode == UNDECIDED) {
        int is = bw_record_sniff(d->pending.p, d->pending.len);
        int mc = mcap_sniff(&d->pending);
        if (is < 0 || mc < 0)
            return 0;
        d->mode = is ? RECORD : mc ? MCAP : RAW;
    }
    if (d->mode == RECORD) {
        d->w.annotate = true;
        return decoded(d, record_feed(d, false));
    }
    if (d->mode == MCAP) {
        d->w.annotate = true;
        return decoded(d, mcap_feed(d, false));
    }
    int rc = d->dec->push(d->state[d->from_robot], d->pending.p, d->pending.len, &d->w);
    d->pending.len = 0;
    return decoded(d, rc);
}

BW_JSON_API int bw_json_decoder_finish(bw_json_decoder_t *d)
{
    if (d->finished)
        return BW_ESTATE;
    writing(d);
    int rc = 0;
    if (d->mode == UNDECIDED) {
        /* Too short to be a record: raw bytes. */
        d->mode = RAW;
        rc = d->dec->push(d->state[d->from_robot], d->pending.p, d->pending.len, &d->w);
        d->pending.len = 0;
    } else if (d->mode == RECORD) {
        rc = record_feed(d, true);
    } else if (d->mode == MCAP) {
        rc = mcap_feed(d, true);
    }
    d->finished = true;
    if (rc < 0)
        return decoded(d, rc);
    for (int dir = 0; dir < 2; dir++) {
        bool both = d->mode == RECORD || d->mode == MCAP;
        if (!d->use[dir] || (!both && dir != d->from_robot))
            continue;
        bw_parse_stats_t s;
        d->w.from = dir ? "robot" : "host";
        d->dec->finish(d->state[dir], &d->w, &s);
        bw_parse_stats_add(&d->stats, &s);
    }
    d->w.annotate = false;
    if (!d->w.failed)
        jw_stats_line(&d->w, &d->stats, d->mode == RECORD || d->mode == MCAP ? d->damaged : -1);
    return decoded(d, 0);
}

BW_JSON_API int bw_json_decoder_options(bw_json_decoder_t *d, unsigned flags)
{
    if (d->mode != UNDECIDED || d->finished ||
        (flags & ~(BW_JSON_RAW | BW_JSON_STRICT | BW_JSON_TAPE | BW_JSON_COLUMNS)) ||
        ((flags & BW_JSON_TAPE) && (flags & BW_JSON_COLUMNS)))
        return d->finished || d->mode != UNDECIDED ? BW_ESTATE : BW_EINVAL;
    if ((flags & BW_JSON_COLUMNS) && !d->w.cols && !(d->w.cols = jc_new()))
        return BW_ENOMEM;
    if (flags & BW_JSON_RAW)
        d->mode = RAW;
    d->strict = flags & BW_JSON_STRICT;
    d->w.tape = flags & BW_JSON_TAPE;
    return 0;
}

BW_JSON_API void bw_json_decoder_on_warning(bw_json_decoder_t *d,
                                            void (*fn)(const char *text, void *ctx), void *ctx)
{
    d->on_warning = fn;
    d->warning_ctx = ctx;
}

BW_JSON_API const char *bw_json_protocol_name(const char *name)
{
    const jw_codec_t *c = name ? jw_codec_find(name) : NULL;
    return c ? c->name : NULL;
}

BW_JSON_API void bw_json_decoder_stats(const bw_json_decoder_t *d, bw_parse_stats_t *out)
{
    *out = d->stats;
}

BW_JSON_API const char *bw_json_decoder_text(bw_json_decoder_t *d, size_t *len)
{
    const jw_buf_t *b = &d->out;
    jw_buf_t tape = { (uint8_t *)d->w.p, d->w.len, d->w.cap };
    if (d->w.tape)
        b = &tape;
    *len = d->taken ? 0 : b->len;
    d->taken = true;
    return b->p ? (const char *)b->p : "";
}

BW_JSON_API size_t bw_json_decoder_columns(const bw_json_decoder_t *d)
{
    return d->w.cols ? jc_count(d->w.cols) : 0;
}

BW_JSON_API int bw_json_decoder_column(bw_json_decoder_t *d, size_t i, bw_json_column_t *out)
{
    return d->w.cols ? jc_column(d->w.cols, i, out) : BW_EINVAL;
}

BW_JSON_API size_t bw_json_decoder_types(const bw_json_decoder_t *d)
{
    return d->w.cols ? jc_types(d->w.cols) : 0;
}

BW_JSON_API const char *bw_json_decoder_type(const bw_json_decoder_t *d, size_t i, size_t *rows)
{
    *rows = 0;
    return d->w.cols ? jc_type(d->w.cols, i, rows) : NULL;
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
    const jw_codec_t *codec = proto ? jw_codec_find(proto) : NULL;
    if (!codec) {
        snprintf(err, errlen, "unknown protocol \"%s\" (one of: %s)", proto ? proto : "",
                 jw_codec_names());
        return BW_EUNKNOWN;
    }
    json_error_t jerr;
    json_t *v = json_loadb(json, n, JSON_REJECT_DUPLICATES, &jerr);
    if (!v) {
        snprintf(err, errlen, "malformed JSON: %s", jerr.text);
        return BW_EINVAL;
    }
    jw_buf_t frame = { 0 };
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
    jw_buf_free(&frame);
    return rc;
}

BW_JSON_API const char *bw_json_protocols(void)
{
    return jw_codec_names();
}
