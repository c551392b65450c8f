/*
 * The text layer's own header (src/text/: the messages' JSON text form,
 * botwire/json.h its API): the writer, the buffer, the protocol registry,
 * the JSON helpers of the encoders, the decoders.
 *
 * JSON Lines for `botwire decode`, written directly: each message's fixed
 * shape is put out as text, with no tree of values built and freed per
 * message. The text is what jansson's compact dump of the same objects
 * would be, byte for byte (tests compare them): members in the order given,
 * integers in decimal, reals as "%.10g" with ".0" added when they would read
 * back as integers, strings escaped as jansson escapes them. The encode
 * side still reads JSON with jansson. Not part of any API.
 */
#ifndef BOTWIRE_TEXT_JW_H
#define BOTWIRE_TEXT_JW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "botwire/botwire.h"
#include "botwire/json.h"
#include "columns.h"

/* A writer: output buffered in memory, written to f by jw_flush. */
typedef struct {
    char *p;
    size_t len, cap;
    FILE *f;
    bool failed;     /* out of memory or a write failed: the rest is dropped */
    bool comma;      /* the next member or element needs a ',' first */
    unsigned depth;  /* objects and arrays open */
    char top;        /* the outermost one: '{' or '[' */
    /* Record files: every message object ends with "t" (s) and "from". */
    bool annotate;
    double t;
    const char *from;
    double t_shown; /* t as last formatted into t_text */
    char t_text[40];
    size_t t_len;
    /* BW_JSON_TAPE (botwire/json.h): typed entries instead of text. Keys
     * and type names then go out as pointers: they must live as long as
     * the library (names of the codecs' tables, literals). */
    bool tape;
    double t_value; /* t as its text reads back, for the tape and columns */
    /* BW_JSON_COLUMNS: every member to the columns (columns.c) instead. */
    struct jc *cols;
} jw_t;

/* The columns (BW_JSON_COLUMNS): columns.h. */

void jw_init(jw_t *w, FILE *f);
void jw_free(jw_t *w);
/* Writes what is buffered; false once anything failed. */
bool jw_flush(jw_t *w);

/* Room for n more bytes at w->p + w->len, or NULL (w->failed set). */
char *jw_grow(jw_t *w, size_t n);
static inline char *jw_room(jw_t *w, size_t n)
{
    return w->len + n <= w->cap ? w->p + w->len : jw_grow(w, n);
}

/* Copies n bytes; short ones without a call. */
static inline void jw_copy(char *d, const char *s, size_t n)
{
    if (n > 16 && n <= 32) {
        char a[16], b[16];
        memcpy(a, s, 16);
        memcpy(b, s + n - 16, 16);
        memcpy(d, a, 16);
        memcpy(d + n - 16, b, 16);
    } else if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        memcpy(d, s, n);
    }
}

/* Raw text, no separator. */
static inline void jw_raw(jw_t *w, const char *s, size_t n)
{
    char *d = jw_room(w, n);
    if (!d)
        return;
    jw_copy(d, s, n);
    w->len += n;
}

/* ---- the tape (BW_JSON_TAPE): a tag, then its payload unaligned ---------- */
static inline void jt_tag(jw_t *w, char tag)
{
    char *d = jw_room(w, 1);
    if (d) {
        *d = tag;
        w->len++;
    }
}
static inline void jt_tag_ptr(jw_t *w, char tag, const char *p)
{
    char *d = jw_room(w, 1 + sizeof p);
    if (d) {
        *d = tag;
        memcpy(d + 1, &p, sizeof p);
        w->len += 1 + sizeof p;
    }
}
/* An integer's entry at d: returns its end. At most 9 bytes. */
static inline char *jt_put_int(char *d, int64_t v)
{
    if (v >= INT32_MIN && v <= INT32_MAX) {
        int32_t s = (int32_t)v;
        *d = BW_TAPE_INT32;
        memcpy(d + 1, &s, 4);
        return d + 5;
    }
    *d = BW_TAPE_INT;
    memcpy(d + 1, &v, 8);
    return d + 9;
}
static inline void jt_int(jw_t *w, int64_t v)
{
    char *d = jw_room(w, 9);
    if (d)
        w->len += (size_t)(jt_put_int(d, v) - d);
}
/* A string's or hex's bytes: the tag, their count (uint32), the bytes. */
void jt_bytes(jw_t *w, char tag, const void *p, size_t n);

/* A member's key ("key":), after a ',' where one is due. */
static inline void jw_key(jw_t *w, const char *key)
{
    if (w->cols) {
        jc_key(w->cols, key);
        return;
    }
    if (w->tape) {
        jt_tag_ptr(w, BW_TAPE_KEY, key);
        return;
    }
    size_t n = strlen(key);
    char *d = jw_room(w, n + 4);
    if (!d)
        return;
    char *s = d;
    if (w->comma)
        *d++ = ',';
    *d++ = '"';
    jw_copy(d, key, n);
    d += n;
    *d++ = '"';
    *d++ = ':';
    w->len += (size_t)(d - s);
    w->comma = false;
}

/* Values, after a ',' where one is due (array elements). */
void jw_int(jw_t *w, int64_t v);
void jw_bool(jw_t *w, bool v);
/* s[0..n) as a JSON string, escaped as jansson escapes it; s must be
 * valid UTF-8 (see jw_key_str). */
void jw_str(jw_t *w, const char *s, size_t n);
/* Lowercase hex digits of n bytes, as a string. */
void jw_hex(jw_t *w, const uint8_t *p, size_t n);
/* '{' or '[' and their ends. */
void jw_open(jw_t *w, char c);
void jw_close(jw_t *w, char c);

/* Members at once. */
static inline void jw_key_int(jw_t *w, const char *key, int64_t v)
{
    jw_key(w, key);
    jw_int(w, v);
}
/* A NUL-terminated string from the wire: left out, member and all, unless
 * it is valid UTF-8 (no overlong forms, surrogates or code points past
 * U+10FFFF), as jansson leaves out a member whose string it refuses. */
void jw_key_str(jw_t *w, const char *key, const char *s);
void jw_key_hex(jw_t *w, const char *key, const uint8_t *p, size_t n);


/* Every named field of the first n of a table from the struct at base
 * (arrays as arrays), as jm_put_fields. */
void jw_fields(jw_t *w, const bw_field_t *fields, size_t n, const void *base);
static inline void jw_desc(jw_t *w, const bw_msgdesc_t *d, const void *base)
{
    jw_fields(w, d->fields, d->nfields, base);
}

/* A message object: {"type":type (a name of the codec's, plain ASCII
 * with nothing to escape) ... then, for a record, "t" and "from"
 * when it is a line's object or an element of a line's array (as
 * annotated, the members of one are not). */
void jw_msg_begin(jw_t *w, const char *type);
void jw_msg_end(jw_t *w);
/* Sets w->t to t, read from the JSON number token[0..n): "t" is then
 * written without printf where the token tells its text. */
void jw_set_t(jw_t *w, double t, const char *token, size_t n);

/* The end of a line: a message, or a frame's array of them. */
void jw_line_end(jw_t *w);

/* {"type":"stats",...}, as jm_stats, on its own line. */
/* {"type":"stats",...}; damaged_lines >= 0 (a record file's lines that
 * could not be read) adds that count. */
void jw_stats_line(jw_t *w, const bw_parse_stats_t *s, long damaged_lines);

/* A growable byte buffer. */
typedef struct {
    uint8_t *p;
    size_t len, cap;
} jw_buf_t;

/* Appends n bytes; returns 0 or -1 when out of memory. */
int jw_buf_append(jw_buf_t *b, const void *data, size_t n);
void jw_buf_free(jw_buf_t *b);

/* Error message buffer size of the encoders. */
#define JW_ERRLEN 1024

/* One protocol's encoder: `botwire encode`, bw_json_encode. */
typedef struct {
    const char *name;
    const char *summary;
    /* Encodes one JSON line into bytes appended to out. Returns 0, 1 when the
     * line is not a message (a stats line), or -1 with a message in err. */
    int (*encode)(json_t *line, jw_buf_t *out, char *err, size_t errlen);
} jw_codec_t;

const jw_codec_t *jw_codec_find(const char *name);
/* Comma-separated names of every protocol, for help texts. */
const char *jw_codec_names(void);

extern const jw_codec_t jw_codec_kobuki;
extern const jw_codec_t jw_codec_p2os;
extern const jw_codec_t jw_codec_lobot;
extern const jw_codec_t jw_codec_create;
extern const jw_codec_t jw_codec_rbsm;
extern const jw_codec_t jw_codec_rflex;

/* ---- JSON helpers over field descriptors (the encoders') ------------------ */

/* Reads every field of desc from obj into base, range-checked. */
int jm_get_fields(json_t *obj, const bw_msgdesc_t *desc, void *base, char *err, size_t errlen);
/* Reads an integer member within [min, max]. */
int jm_get_int(json_t *obj, const char *key, int64_t min, int64_t max, int64_t *out, char *err,
               size_t errlen);
/* Fails naming the first member of obj that is neither "type", nor "t" or
 * "from" (the annotations of a decoded record), nor a field of desc (may be
 * NULL), nor in the NULL-terminated extra list. */
int jm_check_keys(json_t *obj, const bw_msgdesc_t *desc, const char *const *extra, char *err,
                  size_t errlen);
/* Decodes a hex string member into out (at most cap bytes); -1 with err. */
int jm_get_hex(json_t *obj, const char *key, uint8_t *out, size_t cap, size_t *n, char *err,
               size_t errlen);

/* One protocol's decoder: `botwire decode`, bw_json_decoder (its
 * jw_codec_t has its `encode`). */
typedef struct {
    const char *name;
    size_t state_size;
    void (*init)(void *state, bool from_robot, bool frames);
    /* Pushes raw bytes and writes what decodes. Returns 0, or -1 once the
     * writer has failed. */
    int (*push)(void *state, const uint8_t *data, size_t n, jw_t *w);
    /* End of input: writes what the held bytes still give, counts what is
     * unfinished, reports the counters. Returns 0, or -1 as push. */
    int (*finish)(void *state, jw_t *w, bw_parse_stats_t *stats);
    /* Optional (NULL: one dialect): after init, the dialect of a model
     * (`decode --model`, or the model= of a record's url). Returns 0, or -1
     * with a message in err for a model the protocol does not have. */
    int (*model)(void *state, const char *model, char *err, size_t errlen);
    /* Gives the host direction's state the robot direction's, when one
     * input holds both (a record): a reply the protocol does not frame is
     * told by what the host asked (NULL: the protocol's frames say it all). */
    void (*pair)(void *host_state, void *robot_state);
} jw_decoder_t;

/* The decoder of a protocol by its name (as jw_codec_t's), or NULL. */
const jw_decoder_t *jw_decoder_find(const char *name);

extern const jw_decoder_t jw_decoder_kobuki;
extern const jw_decoder_t jw_decoder_p2os;
extern const jw_decoder_t jw_decoder_lobot;
extern const jw_decoder_t jw_decoder_create;
extern const jw_decoder_t jw_decoder_rbsm;
extern const jw_decoder_t jw_decoder_rflex;

#endif
