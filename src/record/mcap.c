/* MCAP, written and read (botwire/mcap.h), from the specification at
 * https://mcap.dev/spec (format version 0): records are an opcode, a
 * little-endian u64 length and their fields; strings and byte arrays a u32
 * length and their bytes; maps a u32 length in bytes and their entries. */
#include "botwire/mcap.h"

#include <errno.h>
#include <lz4frame.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

enum {
    OP_HEADER = 0x01,
    OP_FOOTER = 0x02,
    OP_SCHEMA = 0x03,
    OP_CHANNEL = 0x04,
    OP_MESSAGE = 0x05,
    OP_CHUNK = 0x06,
    OP_MESSAGE_INDEX = 0x07,
    OP_CHUNK_INDEX = 0x08,
    OP_STATISTICS = 0x0B,
    OP_METADATA = 0x0C,
    OP_METADATA_INDEX = 0x0D,
    OP_SUMMARY_OFFSET = 0x0E,
    OP_DATA_END = 0x0F,
};

int bw_mcap_compression_parse(const char *name, bw_mcap_compression_t *c)
{
    if (!strcmp(name, "zstd"))
        *c = BW_MCAP_ZSTD;
    else if (!strcmp(name, "lz4"))
        *c = BW_MCAP_LZ4;
    else if (!strcmp(name, "none"))
        *c = BW_MCAP_NONE;
    else
        return -1;
    return 0;
}

/* The largest chunk read (uncompressed): writers make them of 1 to 4 MiB;
 * a damaged size field must not make the reader take gigabytes. */
#define BW_MCAP_CHUNK_MAX (64 << 20)

/* ---- a growing byte buffer ----------------------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} buf_t;

static bool grow(buf_t *b, size_t more)
{
    if (b->oom)
        return false;
    if (b->len + more <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static void put(buf_t *b, const void *data, size_t n)
{
    if (n && grow(b, n)) {
        memcpy(b->p + b->len, data, n);
        b->len += n;
    }
}

static void put_le(buf_t *b, uint64_t v, size_t n)
{
    uint8_t x[8];
    for (size_t i = 0; i < n; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    put(b, x, n);
}

static void put_u8(buf_t *b, uint8_t v) { put_le(b, v, 1); }
static void put_u16(buf_t *b, uint16_t v) { put_le(b, v, 2); }
static void put_u32(buf_t *b, uint32_t v) { put_le(b, v, 4); }
static void put_u64(buf_t *b, uint64_t v) { put_le(b, v, 8); }

static void put_str(buf_t *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u32(b, (uint32_t)n);
    put(b, s, n);
}

/* Rewrites a u32 at `at` (a map's length, known once it is written). */
static void patch_u32(buf_t *b, size_t at, uint32_t v)
{
    if (!b->oom)
        for (size_t i = 0; i < 4; i++)
            b->p[at + i] = (uint8_t)(v >> (8 * i));
}

static void put_string_map(buf_t *b, const char *const *keys, const char *const *values, size_t n)
{
    size_t at = b->len;
    put_u32(b, 0);
    for (size_t i = 0; i < n; i++) {
        put_str(b, keys[i]);
        put_str(b, values[i]);
    }
    patch_u32(b, at, (uint32_t)(b->len - at - 4));
}

/* A record's opcode and length in front of its fields. */
static void put_record(buf_t *b, uint8_t op, const buf_t *fields)
{
    put_u8(b, op);
    put_u64(b, fields->len);
    put(b, fields->p, fields->len);
}

/* ---- writing ----------------------------------------------------------------- */

typedef struct {
    buf_t index; /* this chunk's (log time, offset) pairs */
    uint64_t count;
} channel_t;

struct bw_mcap_writer {
    bw_mcap_options_t opt;
    bw_mcap_sink_fn sink;
    void *ctx;
    int error;
    uint64_t pos;   /* bytes written */
    uint32_t crc;   /* of the data section so far */
    buf_t schemas, channels_out, chunk_indexes, metadata_indexes; /* for the summary */
    int nschemas;
    char **schema_names; /* by id - 1 */
    channel_t *channels;
    int nchannels;
    buf_t chunk;    /* the open chunk's records, uncompressed */
    uint64_t chunk_start, chunk_end, chunk_messages;
    buf_t packed;   /* a chunk compressed */
    buf_t scratch;
    uint64_t messages, first, last;
    uint32_t chunks, metadata;
    bool finished;
    ZSTD_CCtx *zstd; /* kept from chunk to chunk: a context costs more than a small chunk */
};

static void emit(bw_mcap_writer_t *w, const void *data, size_t n)
{
    if (w->error || !n)
        return;
    int e = w->sink(w->ctx, data, n);
    if (e) {
        w->error = e;
        return;
    }
    w->crc = (uint32_t)crc32(w->crc, data, (uInt)n);
    w->pos += n;
}

static void emit_buf(bw_mcap_writer_t *w, const buf_t *b)
{
    if (b->oom) {
        if (!w->error)
            w->error = ENOMEM;
        return;
    }
    emit(w, b->p, b->len);
}

/* A record straight into the data section. */
static void emit_record(bw_mcap_writer_t *w, uint8_t op, const buf_t *fields)
{
    w->scratch.len = 0;
    put_record(&w->scratch, op, fields);
    emit_buf(w, &w->scratch);
}

bw_mcap_writer_t *bw_mcap_writer_new(const bw_mcap_options_t *opt, bw_mcap_sink_fn sink,
                                     void *ctx)
{
    bw_mcap_writer_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->opt = *opt;
    if (!w->opt.chunk_size)
        w->opt.chunk_size = 1 << 20;
    w->sink = sink;
    w->ctx = ctx;
    w->crc = (uint32_t)crc32(0, NULL, 0);
    emit(w, BW_MCAP_MAGIC, 8);
    buf_t f = { 0 };
    put_str(&f, opt->profile ? opt->profile : "");
    put_str(&f, opt->library ? opt->library : "botwire");
    emit_record(w, OP_HEADER, &f);
    free(f.p);
    return w;
}

int bw_mcap_schema(bw_mcap_writer_t *w, const char *name, const char *encoding, const void *data,
                   size_t len)
{
    if (w->nschemas >= 65535)
        return -1;
    char **names = realloc(w->schema_names, (size_t)(w->nschemas + 1) * sizeof *names);
    if (!names)
        return -1;
    w->schema_names = names;
    if (!(names[w->nschemas] = strdup(name ? name : "")))
        return -1;
    int id = ++w->nschemas;
    buf_t f = { 0 };
    put_u16(&f, (uint16_t)id);
    put_str(&f, name);
    put_str(&f, encoding);
    put_u32(&f, (uint32_t)len);
    put(&f, data, len);
    emit_record(w, OP_SCHEMA, &f);
    put_record(&w->schemas, OP_SCHEMA, &f);
    bool oom = f.oom;
    free(f.p);
    return oom || w->error ? -1 : id;
}

int bw_mcap_schema_id(const bw_mcap_writer_t *w, const char *name)
{
    for (int i = 0; i < w->nschemas; i++)
        if (!strcmp(w->schema_names[i], name))
            return i + 1;
    return 0;
}

int bw_mcap_channel(bw_mcap_writer_t *w, int schema, const char *topic,
                    const char *message_encoding, const char *const *keys,
                    const char *const *values, size_t n)
{
    if (w->nchannels > 65535 || schema < 0 || schema > w->nschemas)
        return -1;
    channel_t *c = realloc(w->channels, (size_t)(w->nchannels + 1) * sizeof *c);
    if (!c)
        return -1;
    w->channels = c;
    int id = w->nchannels++;
    memset(&c[id], 0, sizeof c[id]);
    buf_t f = { 0 };
    put_u16(&f, (uint16_t)id);
    put_u16(&f, (uint16_t)schema);
    put_str(&f, topic);
    put_str(&f, message_encoding);
    put_string_map(&f, keys, values, n);
    emit_record(w, OP_CHANNEL, &f);
    put_record(&w->channels_out, OP_CHANNEL, &f);
    bool oom = f.oom;
    free(f.p);
    return oom || w->error ? -1 : id;
}

int bw_mcap_metadata(bw_mcap_writer_t *w, const char *name, const char *const *keys,
                     const char *const *values, size_t n)
{
    buf_t f = { 0 };
    put_str(&f, name);
    put_string_map(&f, keys, values, n);
    uint64_t at = w->pos;
    emit_record(w, OP_METADATA, &f);
    buf_t ix = { 0 };
    put_u64(&ix, at);
    put_u64(&ix, 1 + 8 + f.len);
    put_str(&ix, name);
    put_record(&w->metadata_indexes, OP_METADATA_INDEX, &ix);
    bool oom = f.oom || ix.oom;
    free(f.p);
    free(ix.p);
    w->metadata++;
    return oom || w->error ? -1 : 0;
}

int bw_mcap_message(bw_mcap_writer_t *w, int channel, uint64_t log_time, const void *data,
                    size_t len)
{
    if (channel < 0 || channel >= w->nchannels || w->finished)
        return -1;
    channel_t *c = &w->channels[channel];
    if (!w->chunk_messages || log_time < w->chunk_start)
        w->chunk_start = log_time;
    if (!w->chunk_messages || log_time > w->chunk_end)
        w->chunk_end = log_time;
    if (!w->messages || log_time < w->first)
        w->first = log_time;
    if (!w->messages || log_time > w->last)
        w->last = log_time;
    put_u64(&c->index, log_time);
    put_u64(&c->index, w->chunk.len);
    put_u8(&w->chunk, OP_MESSAGE);
    put_u64(&w->chunk, 2 + 4 + 8 + 8 + len);
    put_u16(&w->chunk, (uint16_t)channel);
    put_u32(&w->chunk, (uint32_t)c->count);
    put_u64(&w->chunk, log_time);
    put_u64(&w->chunk, log_time);
    put(&w->chunk, data, len);
    c->count++;
    w->messages++;
    w->chunk_messages++;
    if (w->chunk.oom || c->index.oom) {
        if (!w->error)
            w->error = ENOMEM;
        return -1;
    }
    if (w->chunk.len >= w->opt.chunk_size)
        return bw_mcap_end_chunk(w);
    return w->error ? -1 : 0;
}

/* The open chunk's records compressed into w->packed; the compression's
 * name, NULL when it failed. */
static const char *pack(bw_mcap_writer_t *w)
{
    const buf_t *in = &w->chunk;
    w->packed.len = 0;
    switch (w->opt.compression) {
    case BW_MCAP_ZSTD: {
        size_t bound = ZSTD_compressBound(in->len);
        if (!grow(&w->packed, bound))
            return NULL;
        if (!w->zstd && !(w->zstd = ZSTD_createCCtx()))
            return NULL;
        size_t n = ZSTD_compressCCtx(w->zstd, w->packed.p, bound, in->p, in->len, 3);
        if (ZSTD_isError(n))
            return NULL;
        w->packed.len = n;
        return "zstd";
    }
    case BW_MCAP_LZ4: {
        size_t bound = LZ4F_compressFrameBound(in->len, NULL);
        if (!grow(&w->packed, bound))
            return NULL;
        size_t n = LZ4F_compressFrame(w->packed.p, bound, in->p, in->len, NULL);
        if (LZ4F_isError(n))
            return NULL;
        w->packed.len = n;
        return "lz4";
    }
    case BW_MCAP_NONE:
    default:
        put(&w->packed, in->p, in->len);
        return w->packed.oom ? NULL : "";
    }
}

int bw_mcap_end_chunk(bw_mcap_writer_t *w)
{
    if (!w->chunk_messages)
        return w->error ? -1 : 0;
    const char *how = pack(w);
    if (!how) {
        if (!w->error)
            w->error = ENOMEM;
        return -1;
    }
    buf_t f = { 0 }, ix = { 0 };
    put_u64(&f, w->chunk_start);
    put_u64(&f, w->chunk_end);
    put_u64(&f, w->chunk.len);
    put_u32(&f, (uint32_t)crc32(crc32(0, NULL, 0), w->chunk.p, (uInt)w->chunk.len));
    put_str(&f, how);
    put_u64(&f, w->packed.len);
    uint64_t start = w->pos;
    /* the fields, then the compressed records, without copying them again */
    w->scratch.len = 0;
    put_u8(&w->scratch, OP_CHUNK);
    put_u64(&w->scratch, f.len + w->packed.len);
    put(&w->scratch, f.p, f.len);
    emit_buf(w, &w->scratch);
    emit(w, w->packed.p, w->packed.len);
    uint64_t length = w->pos - start;
    /* the message indexes, a record per channel that has messages here */
    buf_t offsets = { 0 };
    uint64_t index_start = w->pos;
    for (int i = 0; i < w->nchannels; i++) {
        channel_t *c = &w->channels[i];
        if (!c->index.len)
            continue;
        buf_t m = { 0 };
        put_u16(&m, (uint16_t)i);
        put_u32(&m, (uint32_t)c->index.len);
        put(&m, c->index.p, c->index.len);
        put_u16(&offsets, (uint16_t)i);
        put_u64(&offsets, w->pos);
        emit_record(w, OP_MESSAGE_INDEX, &m);
        if (m.oom && !w->error)
            w->error = ENOMEM;
        free(m.p);
        c->index.len = 0;
    }
    put_u64(&ix, w->chunk_start);
    put_u64(&ix, w->chunk_end);
    put_u64(&ix, start);
    put_u64(&ix, length);
    put_u32(&ix, (uint32_t)offsets.len);
    put(&ix, offsets.p, offsets.len);
    put_u64(&ix, w->pos - index_start);
    put_str(&ix, how);
    put_u64(&ix, w->packed.len);
    put_u64(&ix, w->chunk.len);
    put_record(&w->chunk_indexes, OP_CHUNK_INDEX, &ix);
    if ((f.oom || ix.oom || offsets.oom || w->chunk_indexes.oom) && !w->error)
        w->error = ENOMEM;
    free(f.p);
    free(ix.p);
    free(offsets.p);
    w->chunk.len = 0;
    w->chunk_messages = 0;
    w->chunks++;
    return w->error ? -1 : 0;
}

/* A group of summary records, and its Summary Offset record. */
static void summary_group(bw_mcap_writer_t *w, uint8_t op, const buf_t *records, buf_t *offsets)
{
    if (!records->len)
        return;
    uint64_t start = w->pos;
    emit_buf(w, records);
    buf_t f = { 0 };
    put_u8(&f, op);
    put_u64(&f, start);
    put_u64(&f, w->pos - start);
    put_record(offsets, OP_SUMMARY_OFFSET, &f);
    free(f.p);
}

int bw_mcap_finish(bw_mcap_writer_t *w)
{
    if (w->finished)
        return w->error ? -1 : 0;
    bw_mcap_end_chunk(w);
    w->finished = true;
    buf_t f = { 0 };
    put_u32(&f, w->crc); /* the data section's CRC: every byte before this record */
    emit_record(w, OP_DATA_END, &f);
    uint64_t summary = w->pos;
    w->crc = (uint32_t)crc32(0, NULL, 0); /* from here, the summary's */
    buf_t offsets = { 0 }, stats = { 0 }, st = { 0 };
    summary_group(w, OP_SCHEMA, &w->schemas, &offsets);
    summary_group(w, OP_CHANNEL, &w->channels_out, &offsets);
    put_u64(&st, w->messages);
    put_u16(&st, (uint16_t)w->nschemas);
    put_u32(&st, (uint32_t)w->nchannels);
    put_u32(&st, 0); /* attachments */
    put_u32(&st, w->metadata);
    put_u32(&st, w->chunks);
    put_u64(&st, w->first);
    put_u64(&st, w->last);
    size_t at = st.len;
    put_u32(&st, 0);
    for (int i = 0; i < w->nchannels; i++) {
        put_u16(&st, (uint16_t)i);
        put_u64(&st, w->channels[i].count);
    }
    patch_u32(&st, at, (uint32_t)(st.len - at - 4));
    put_record(&stats, OP_STATISTICS, &st);
    summary_group(w, OP_STATISTICS, &stats, &offsets);
    summary_group(w, OP_CHUNK_INDEX, &w->chunk_indexes, &offsets);
    summary_group(w, OP_METADATA_INDEX, &w->metadata_indexes, &offsets);
    uint64_t summary_offsets = w->pos;
    emit_buf(w, &offsets);
    /* the footer; its CRC covers the summary up to its own field */
    buf_t foot = { 0 };
    put_u8(&foot, OP_FOOTER);
    put_u64(&foot, 8 + 8 + 4);
    put_u64(&foot, summary);
    put_u64(&foot, summary_offsets);
    emit_buf(w, &foot);
    foot.len = 0;
    put_u32(&foot, w->crc);
    put(&foot, BW_MCAP_MAGIC, 8);
    emit_buf(w, &foot);
    if ((f.oom || offsets.oom || stats.oom || st.oom || foot.oom) && !w->error)
        w->error = ENOMEM;
    free(f.p);
    free(offsets.p);
    free(stats.p);
    free(st.p);
    free(foot.p);
    return w->error ? -1 : 0;
}

int bw_mcap_error(const bw_mcap_writer_t *w) { return w->error; }
uint64_t bw_mcap_messages(const bw_mcap_writer_t *w) { return w->messages; }

void bw_mcap_writer_free(bw_mcap_writer_t *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->nchannels; i++)
        free(w->channels[i].index.p);
    free(w->channels);
    for (int i = 0; i < w->nschemas; i++)
        free(w->schema_names[i]);
    free(w->schema_names);
    free(w->schemas.p);
    free(w->channels_out.p);
    free(w->chunk_indexes.p);
    free(w->metadata_indexes.p);
    free(w->chunk.p);
    free(w->packed.p);
    free(w->scratch.p);
    ZSTD_freeCCtx(w->zstd);
    free(w);
}

/* ---- reading ----------------------------------------------------------------- */

/* A string map's entries, as read. */
typedef struct {
    char **keys, **values;
    size_t n;
} rmap_t;

typedef struct {
    char *topic, *encoding;
    uint16_t schema;
    rmap_t meta;
} rchannel_t;

typedef struct {
    char *name, *encoding;
    uint8_t *data;
    size_t len;
} rschema_t;

typedef struct {
    char *name;
    rmap_t map;
} rmeta_t;

struct bw_mcap_reader {
    buf_t in;           /* bytes pushed and not yet read */
    size_t at;          /* the next unread byte of in */
    uint64_t pos;       /* its offset in the file */
    bool started, ended, done, finished;
    buf_t chunk;        /* a chunk's records, uncompressed */
    size_t in_chunk;    /* the next record's place in it */
    uint64_t chunk_at;  /* the chunk's offset in the file */
    rchannel_t *channels;
    size_t nchannels;   /* ids 0..nchannels-1 have room */
    rschema_t *schemas;
    size_t nschemas;    /* ids 1..nschemas have room (at [id - 1]) */
    rmeta_t *meta;      /* the Metadata records, in file order */
    size_t nmeta;
    char *profile, *library; /* the Header's */
    char compression[8];     /* the first chunk's ("" for none) */
    bool chunked;            /* a chunk was seen */
    uint64_t good_to;        /* the offset after the last record read whole and sound */
    uint64_t received;       /* bytes pushed */
    ZSTD_DCtx *zstd;    /* kept from chunk to chunk */
};

bw_mcap_reader_t *bw_mcap_reader_new(void) { return calloc(1, sizeof(bw_mcap_reader_t)); }

int bw_mcap_reader_push(bw_mcap_reader_t *r, const void *data, size_t n)
{
    if (r->at && r->at >= r->in.len / 2) { /* what is read makes room */
        memmove(r->in.p, r->in.p + r->at, r->in.len - r->at);
        r->in.len -= r->at;
        r->at = 0;
    }
    put(&r->in, data, n);
    r->received += n;
    return r->in.oom ? -1 : 0;
}

void bw_mcap_reader_end(bw_mcap_reader_t *r) { r->ended = true; }

/* A cursor over a record's fields. */
typedef struct {
    const uint8_t *p;
    size_t len, at;
    bool bad;
} cur_t;

static uint64_t get_le(cur_t *c, size_t n)
{
    if (c->bad || c->len - c->at < n) {
        c->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)c->p[c->at + i] << (8 * i);
    c->at += n;
    return v;
}

/* A string's bytes (not terminated) and its length. */
static const uint8_t *get_bytes(cur_t *c, size_t *n, size_t lensize)
{
    uint64_t len = get_le(c, lensize);
    if (c->bad || c->len - c->at < len) {
        c->bad = true;
        *n = 0;
        return NULL;
    }
    const uint8_t *p = c->p + c->at;
    c->at += (size_t)len;
    *n = (size_t)len;
    return p;
}

static char *get_str(cur_t *c)
{
    size_t n;
    const uint8_t *p = get_bytes(c, &n, 4);
    if (c->bad)
        return NULL;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

static void say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int bw_mcap_reader_read(bw_mcap_reader_t *r, FILE *in, char *err, size_t errlen)
{
    uint8_t buf[1 << 15];
    size_t n = fread(buf, 1, sizeof buf, in);
    if (n == 0 && ferror(in)) {
        say(err, errlen, "cannot read it: %s", strerror(errno));
        return -1;
    }
    if (n == 0) {
        bw_mcap_reader_end(r);
        return 0;
    }
    if (bw_mcap_reader_push(r, buf, n) < 0) {
        say(err, errlen, "out of memory");
        return -1;
    }
    return 1;
}

static void free_map(rmap_t *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->keys[i]);
        free(m->values[i]);
    }
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* A string map (its u32 length in bytes, then key and value strings)
 * into *out. 0, or -1 if damaged or out of memory. */
static int get_map(cur_t *c, rmap_t *out)
{
    memset(out, 0, sizeof *out);
    uint64_t maplen = get_le(c, 4);
    if (c->bad || c->len - c->at < maplen)
        return -1;
    cur_t m = { c->p + c->at, (size_t)maplen, 0, false };
    c->at += (size_t)maplen;
    while (m.at < m.len) {
        char *k = get_str(&m), *v = get_str(&m);
        char **ks = k && v ? realloc(out->keys, (out->n + 1) * sizeof *ks) : NULL;
        if (ks)
            out->keys = ks;
        char **vs = ks ? realloc(out->values, (out->n + 1) * sizeof *vs) : NULL;
        if (!vs) {
            free(k);
            free(v);
            free_map(out);
            return -1;
        }
        out->values = vs;
        out->keys[out->n] = k;
        out->values[out->n] = v;
        out->n++;
    }
    return 0;
}

/* A Channel record's fields: kept by id (a later one of the same id, as
 * the summary repeats them, replaces it). 0, or -1 if damaged. */
static int take_channel(bw_mcap_reader_t *r, const uint8_t *p, size_t len)
{
    cur_t c = { p, len, 0, false };
    uint16_t id = (uint16_t)get_le(&c, 2);
    uint16_t schema = (uint16_t)get_le(&c, 2);
    char *topic = get_str(&c), *enc = get_str(&c);
    rmap_t meta;
    if (c.bad || !topic || !enc || get_map(&c, &meta) < 0) {
        free(topic);
        free(enc);
        return -1;
    }
    if (id >= r->nchannels) {
        rchannel_t *n = realloc(r->channels, ((size_t)id + 1) * sizeof *n);
        if (!n) {
            free(topic);
            free(enc);
            free_map(&meta);
            return -1;
        }
        memset(n + r->nchannels, 0, ((size_t)id + 1 - r->nchannels) * sizeof *n);
        r->channels = n;
        r->nchannels = (size_t)id + 1;
    }
    rchannel_t *ch = &r->channels[id];
    free(ch->topic);
    free(ch->encoding);
    free_map(&ch->meta);
    ch->topic = topic;
    ch->encoding = enc;
    ch->schema = schema;
    ch->meta = meta;
    return 0;
}

/* A Schema record's fields, kept by id as channels are. 0, or -1. */
static int take_schema(bw_mcap_reader_t *r, const uint8_t *p, size_t len)
{
    cur_t c = { p, len, 0, false };
    uint16_t id = (uint16_t)get_le(&c, 2);
    char *name = get_str(&c), *enc = get_str(&c);
    size_t n = 0;
    const uint8_t *data = get_bytes(&c, &n, 4);
    uint8_t *copy = !c.bad && id > 0 ? malloc(n ? n : 1) : NULL;
    if (!copy || !name || !enc) {
        free(name);
        free(enc);
        free(copy);
        return -1;
    }
    memcpy(copy, data, n);
    if (id > r->nschemas) {
        rschema_t *s = realloc(r->schemas, (size_t)id * sizeof *s);
        if (!s) {
            free(name);
            free(enc);
            free(copy);
            return -1;
        }
        memset(s + r->nschemas, 0, ((size_t)id - r->nschemas) * sizeof *s);
        r->schemas = s;
        r->nschemas = id;
    }
    rschema_t *s = &r->schemas[id - 1];
    free(s->name);
    free(s->encoding);
    free(s->data);
    *s = (rschema_t){ name, enc, copy, n };
    return 0;
}

static int take_metadata(bw_mcap_reader_t *r, const uint8_t *p, size_t len)
{
    cur_t c = { p, len, 0, false };
    char *name = get_str(&c);
    rmap_t map = { 0 };
    rmeta_t *n = NULL;
    if (!name || get_map(&c, &map) < 0 || !(n = realloc(r->meta, (r->nmeta + 1) * sizeof *n))) {
        free_map(&map);
        free(name);
        return -1;
    }
    r->meta = n;
    n[r->nmeta++] = (rmeta_t){ name, map };
    return 0;
}

/* The Header's profile and library. */
static void take_header(bw_mcap_reader_t *r, const uint8_t *p, size_t len)
{
    cur_t c = { p, len, 0, false };
    char *profile = get_str(&c), *library = get_str(&c);
    if (r->profile || !profile || !library) {
        free(profile);
        free(library);
        return;
    }
    r->profile = profile;
    r->library = library;
}

/* A Message record's fields into *m; 0, or -1 if damaged or on a channel
 * not seen. */
static int take_message(bw_mcap_reader_t *r, const uint8_t *p, size_t len, bw_mcap_message_t *m)
{
    cur_t c = { p, len, 0, false };
    uint16_t id = (uint16_t)get_le(&c, 2);
    (void)get_le(&c, 4);
    m->log_time = get_le(&c, 8);
    (void)get_le(&c, 8);
    if (c.bad || id >= r->nchannels || !r->channels[id].topic)
        return -1;
    m->channel = id;
    m->topic = r->channels[id].topic;
    m->message_encoding = r->channels[id].encoding;
    m->data = c.p + c.at;
    m->len = c.len - c.at;
    return 0;
}

/* A chunk's records, decompressed into r->chunk and checked. 0, or -1 with
 * err. */
static int open_chunk(bw_mcap_reader_t *r, const uint8_t *p, size_t len, char *err, size_t errlen)
{
    cur_t c = { p, len, 0, false };
    (void)get_le(&c, 8);
    (void)get_le(&c, 8);
    uint64_t size = get_le(&c, 8);
    uint32_t crc = (uint32_t)get_le(&c, 4);
    size_t nname;
    const uint8_t *name = get_bytes(&c, &nname, 4);
    size_t npacked;
    const uint8_t *packed = get_bytes(&c, &npacked, 8);
    if (c.bad) {
        say(err, errlen, "offset %llu: a chunk whose fields do not fit its length",
            (unsigned long long)r->chunk_at);
        return -1;
    }
    if (size > BW_MCAP_CHUNK_MAX) {
        say(err, errlen, "offset %llu: a chunk of %llu bytes uncompressed, more than botwire "
            "reads (%d MiB; damaged?)", (unsigned long long)r->chunk_at, (unsigned long long)size,
            BW_MCAP_CHUNK_MAX >> 20);
        return -1;
    }
    /* A size the compressed bytes cannot hold is damage, found before
     * memory is taken for it: stored bytes are the size; a zstd frame says
     * its size (one frame a chunk, as MCAP's writers make them); LZ4 packs
     * 255 bytes in one at the most. */
    bool zstd = nname == 4 && !memcmp(name, "zstd", 4), lz4 = nname == 3 && !memcmp(name, "lz4", 3);
    if (!r->chunked && (zstd || lz4 || nname == 0)) {
        r->chunked = true;
        memcpy(r->compression, name, nname);
        r->compression[nname] = 0;
    }
    unsigned long long said = zstd ? ZSTD_getFrameContentSize(packed, npacked) : 0;
    if ((nname == 0 && npacked != size) || (lz4 && size > (uint64_t)npacked * 255 + 1024) ||
        (zstd && (said == ZSTD_CONTENTSIZE_ERROR ||
                  (said != ZSTD_CONTENTSIZE_UNKNOWN && said != size)))) {
        say(err, errlen, "offset %llu: a chunk that does not decompress to its %llu bytes (damaged)",
            (unsigned long long)r->chunk_at, (unsigned long long)size);
        return -1;
    }
    r->chunk.len = 0;
    r->in_chunk = 0;
    if (!grow(&r->chunk, (size_t)size ? (size_t)size : 1)) {
        say(err, errlen, "offset %llu: out of memory for a chunk of %llu bytes",
            (unsigned long long)r->chunk_at, (unsigned long long)size);
        return -1;
    }
    bool ok;
    if (nname == 0) {
        memcpy(r->chunk.p, packed, npacked);
        ok = true;
    } else if (zstd) {
        if (!r->zstd && !(r->zstd = ZSTD_createDCtx())) {
            say(err, errlen, "offset %llu: out of memory for zstd", (unsigned long long)r->chunk_at);
            return -1;
        }
        size_t n = ZSTD_decompressDCtx(r->zstd, r->chunk.p, (size_t)size, packed, npacked);
        ok = !ZSTD_isError(n) && n == size;
    } else if (lz4) {
        LZ4F_dctx *d;
        ok = !LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION));
        size_t out = 0, in = 0;
        while (ok && in < npacked) {
            size_t o = (size_t)size - out, i = npacked - in;
            size_t hint = LZ4F_decompress(d, r->chunk.p + out, &o, packed + in, &i, NULL);
            if (LZ4F_isError(hint) || (o == 0 && i == 0))
                ok = false;
            out += o;
            in += i;
            if (hint == 0)
                break;
        }
        ok = ok && out == size;
        if (d)
            LZ4F_freeDecompressionContext(d);
    } else {
        say(err, errlen, "offset %llu: a chunk compressed with \"%.*s\", which botwire does not read",
            (unsigned long long)r->chunk_at, (int)(nname > 32 ? 32 : nname), (const char *)name);
        return -1;
    }
    if (!ok) {
        say(err, errlen, "offset %llu: a chunk that does not decompress to its %llu bytes (damaged)",
            (unsigned long long)r->chunk_at, (unsigned long long)size);
        return -1;
    }
    if (crc && (uint32_t)crc32(crc32(0, NULL, 0), r->chunk.p, (uInt)size) != crc) {
        say(err, errlen, "offset %llu: a chunk whose CRC is not its records' (damaged)",
            (unsigned long long)r->chunk_at);
        return -1;
    }
    r->chunk.len = (size_t)size;
    return 0;
}

/* The next message of the open chunk: 1, 0 when it has no more, -1 with
 * err (the chunk's rest passed over). */
static int chunk_next(bw_mcap_reader_t *r, bw_mcap_message_t *m, char *err, size_t errlen)
{
    while (r->in_chunk < r->chunk.len) {
        cur_t c = { r->chunk.p, r->chunk.len, r->in_chunk, false };
        uint8_t op = (uint8_t)get_le(&c, 1);
        uint64_t len = get_le(&c, 8);
        if (c.bad || c.len - c.at < len) {
            say(err, errlen, "offset %llu: a record at %zu inside the chunk overruns it (damaged)",
                (unsigned long long)r->chunk_at, r->in_chunk);
            r->in_chunk = r->chunk.len;
            return -1;
        }
        const uint8_t *p = c.p + c.at;
        size_t at = r->in_chunk;
        r->in_chunk = c.at + (size_t)len;
        int bad = 0;
        if (op == OP_MESSAGE) {
            if (take_message(r, p, (size_t)len, m) == 0)
                return 1;
            bad = 1;
        } else if (op == OP_CHANNEL) {
            bad = take_channel(r, p, (size_t)len);
        } else if (op == OP_SCHEMA) {
            bad = take_schema(r, p, (size_t)len);
        }
        if (bad) {
            say(err, errlen, "offset %llu: a damaged %s record at %zu inside the chunk",
                (unsigned long long)r->chunk_at,
                op == OP_MESSAGE ? "message" : op == OP_CHANNEL ? "channel" : "schema", at);
            return -1;
        }
    }
    return 0;
}

int bw_mcap_next(bw_mcap_reader_t *r, bw_mcap_message_t *m, char *err, size_t errlen)
{
    if (r->in_chunk < r->chunk.len) {
        int k = chunk_next(r, m, err, errlen);
        if (k)
            return k;
    }
    if (r->done)
        return 0;
    if (!r->started) {
        size_t have = r->in.len - r->at;
        if (have < 8 && !r->ended)
            return 0;
        if (have < 8 || memcmp(r->in.p + r->at, BW_MCAP_MAGIC, 8) != 0) {
            r->done = true;
            say(err, errlen, "offset 0: not an MCAP file (its first bytes are not MCAP's magic)");
            return -1;
        }
        r->started = true;
        r->at += 8;
        r->pos += 8;
    }
    for (;;) {
        uint64_t at = r->pos;
        size_t have = r->in.len - r->at;
        const uint8_t *rec = r->in.p + r->at;
        if (have == 0 && r->ended) {
            r->done = true;
            return 0; /* the end, after a complete record: a file cut between records */
        }
        if (have < 9) {
            if (!r->ended)
                return 0;
            r->done = true;
            say(err, errlen, "offset %llu: the file ends inside a record's opening (cut off)",
                (unsigned long long)at);
            return -1;
        }
        uint8_t op = rec[0];
        cur_t c = { rec + 1, 8, 0, false };
        uint64_t len = get_le(&c, 8);
        if (len > ((uint64_t)1 << 32)) {
            r->done = true;
            say(err, errlen, "offset %llu: a record of %llu bytes (a damaged length)",
                (unsigned long long)at, (unsigned long long)len);
            return -1;
        }
        if (have - 9 < len) {
            if (!r->ended)
                return 0;
            r->done = true;
            say(err, errlen, "offset %llu: the file ends inside a record of %llu bytes (%zu there: "
                "cut off)", (unsigned long long)at, (unsigned long long)len, have - 9);
            return -1;
        }
        const uint8_t *p = rec + 9;
        r->at += 9 + (size_t)len;
        r->pos += 9 + len;
        int bad = 0;
        switch (op) {
        case OP_FOOTER:
            if (r->in.len - r->at < 8 && !r->ended) { /* the closing magic yet to come */
                r->at -= 9 + (size_t)len;
                r->pos -= 9 + len;
                return 0;
            }
            r->finished = r->in.len - r->at >= 8 && !memcmp(r->in.p + r->at, BW_MCAP_MAGIC, 8);
            r->done = true;
            return 0;
        case OP_HEADER: take_header(r, p, (size_t)len); break;
        case OP_SCHEMA: bad = take_schema(r, p, (size_t)len); break;
        case OP_CHANNEL: bad = take_channel(r, p, (size_t)len); break;
        case OP_METADATA: bad = take_metadata(r, p, (size_t)len); break;
        case OP_MESSAGE:
            if (take_message(r, p, (size_t)len, m) == 0) {
                r->good_to = r->pos;
                return 1;
            }
            bad = 1;
            break;
        case OP_CHUNK: {
            r->chunk_at = at;
            if (open_chunk(r, p, (size_t)len, err, errlen) < 0)
                return -1;
            r->good_to = r->pos;
            int k = chunk_next(r, m, err, errlen);
            if (k)
                return k;
            break;
        }
        default: break; /* the summary's and the indexes' records, and what a later
                           version adds: not needed to read in order */
        }
        if (bad) {
            say(err, errlen, "offset %llu: a damaged %s record", (unsigned long long)at,
                op == OP_MESSAGE ? "message" : op == OP_CHANNEL ? "channel"
                : op == OP_SCHEMA ? "schema" : "metadata");
            return -1;
        }
        if (op != OP_CHUNK)
            r->good_to = r->pos;
    }
}

const char *bw_mcap_meta(const bw_mcap_reader_t *r, const char *name, const char *key)
{
    for (size_t i = 0; i < r->nmeta; i++) {
        if (strcmp(r->meta[i].name, name) != 0)
            continue;
        const rmap_t *m = &r->meta[i].map;
        for (size_t k = 0; k < m->n; k++)
            if (!strcmp(m->keys[k], key))
                return m->values[k];
    }
    return NULL;
}

bool bw_mcap_finished(const bw_mcap_reader_t *r) { return r->finished; }

void bw_mcap_reader_free(bw_mcap_reader_t *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nchannels; i++) {
        free(r->channels[i].topic);
        free(r->channels[i].encoding);
        free_map(&r->channels[i].meta);
    }
    for (size_t i = 0; i < r->nschemas; i++) {
        free(r->schemas[i].name);
        free(r->schemas[i].encoding);
        free(r->schemas[i].data);
    }
    for (size_t i = 0; i < r->nmeta; i++) {
        free(r->meta[i].name);
        free_map(&r->meta[i].map);
    }
    free(r->schemas);
    free(r->profile);
    free(r->library);
    free(r->channels);
    free(r->meta);
    free(r->in.p);
    free(r->chunk.p);
    ZSTD_freeDCtx(r->zstd);
    free(r);
}

/* ---- recovering ------------------------------------------------------------------ */

typedef struct {
    bw_mcap_writer_t *w;
    int *channel;  /* the old channel id's new one + 1 (0: not yet written) */
    int *schema;   /* the same for schemas */
    size_t metadata; /* the old file's Metadata records written so far */
} recovery_t;

/* The new file's writer, once the old one's Header (and, by its first
 * message, the compression of its first chunk) is known. */
static bw_mcap_writer_t *recovery_writer(recovery_t *v, const bw_mcap_reader_t *r,
                                         const bw_mcap_compression_t *compression,
                                         bw_mcap_sink_fn sink, void *ctx)
{
    if (v->w)
        return v->w;
    bw_mcap_options_t o = { .profile = r->profile ? r->profile : "",
                            .library = r->library ? r->library : "botwire" };
    if (compression)
        o.compression = *compression;
    else if (!r->chunked || !strcmp(r->compression, "zstd"))
        o.compression = BW_MCAP_ZSTD;
    else
        o.compression = !strcmp(r->compression, "lz4") ? BW_MCAP_LZ4 : BW_MCAP_NONE;
    return v->w = bw_mcap_writer_new(&o, sink, ctx);
}

/* A channel of the old file into the new, its schema first. 0, or -1 when
 * the writer failed. */
static int recovery_channel(recovery_t *v, const bw_mcap_reader_t *r, size_t old,
                            bw_mcap_recover_t *rep)
{
    const rchannel_t *ch = &r->channels[old];
    int schema = 0;
    if (ch->schema && ch->schema <= r->nschemas && r->schemas[ch->schema - 1].name) {
        if (!v->schema[ch->schema]) {
            const rschema_t *s = &r->schemas[ch->schema - 1];
            int id = bw_mcap_schema(v->w, s->name, s->encoding, s->data, s->len);
            if (id < 0)
                return -1;
            v->schema[ch->schema] = id + 1;
            rep->schemas++;
        }
        schema = v->schema[ch->schema] - 1;
    }
    int id = bw_mcap_channel(v->w, schema, ch->topic, ch->encoding,
                             (const char *const *)ch->meta.keys,
                             (const char *const *)ch->meta.values, ch->meta.n);
    if (id < 0)
        return -1;
    v->channel[old] = id + 1;
    rep->channels++;
    return 0;
}

/* What the old file defined since the last call (Metadata records, and
 * channels with their schemas, in its order), into the new. 0, or -1. */
static int recovery_sync(recovery_t *v, const bw_mcap_reader_t *r, bw_mcap_recover_t *rep)
{
    for (; v->metadata < r->nmeta; v->metadata++) {
        const rmeta_t *m = &r->meta[v->metadata];
        if (bw_mcap_metadata(v->w, m->name, (const char *const *)m->map.keys,
                             (const char *const *)m->map.values, m->map.n) < 0)
            return -1;
        rep->metadata++;
    }
    for (size_t i = 0; i < r->nchannels; i++)
        if (r->channels[i].topic && !v->channel[i] && recovery_channel(v, r, i, rep) < 0)
            return -1;
    return 0;
}

int bw_mcap_recover(FILE *in, const bw_mcap_compression_t *compression, bw_mcap_sink_fn sink,
                    void *ctx, void (*damaged)(void *ctx, const char *why),
                    bw_mcap_recover_t *rep, char *err, size_t errlen)
{
    memset(rep, 0, sizeof *rep);
    recovery_t v = { 0 };
    bw_mcap_reader_t *r = bw_mcap_reader_new();
    v.channel = calloc(65536, sizeof *v.channel);
    v.schema = calloc(65536, sizeof *v.schema);
    int rc = -1;
    if (!r || !v.channel || !v.schema) {
        say(err, errlen, "out of memory");
        goto done;
    }
    char why[300];
    for (;;) {
        bw_mcap_message_t m;
        int k = bw_mcap_next(r, &m, why, sizeof why);
        if (k == 0) {
            if (r->ended)
                break;
            if (bw_mcap_reader_read(r, in, err, errlen) < 0)
                goto done;
            continue;
        }
        if (k < 0) {
            if (!r->started) { /* not MCAP at all: nothing to write */
                say(err, errlen, "%s", why);
                goto done;
            }
            rep->damaged++;
            if (damaged)
                damaged(ctx, why);
            continue;
        }
        if (!recovery_writer(&v, r, compression, sink, ctx) || recovery_sync(&v, r, rep) < 0 ||
            bw_mcap_message(v.w, v.channel[m.channel] - 1, m.log_time, m.data, m.len) < 0)
            break;
        rep->messages++;
    }
    rep->size = r->received;
    rep->read_to = r->good_to;
    rep->finished = r->finished;
    /* a file of no messages keeps its Header and metadata */
    if (recovery_writer(&v, r, compression, sink, ctx) && recovery_sync(&v, r, rep) == 0 &&
        bw_mcap_finish(v.w) == 0) {
        rc = 0;
    } else {
        int e = v.w ? bw_mcap_error(v.w) : ENOMEM;
        say(err, errlen, "cannot write the recovered file: %s", strerror(e ? e : ENOMEM));
    }
done:
    bw_mcap_writer_free(v.w);
    bw_mcap_reader_free(r);
    free(v.channel);
    free(v.schema);
    return rc;
}
