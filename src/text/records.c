/* A record file read whole for programs and the Python package
 * (bw_json_record_*, botwire/json.h): JSON Lines or MCAP, through the
 * record layer's reader (bw_record_read). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/botwire.h"
#include "botwire/json.h"
#include "botwire/record.h"

#define BW_JSON_API __attribute__((visibility("default")))

typedef struct {
    double t;
    bool from_robot;
    size_t at, len; /* in bytes */
} chunk_t;

struct bw_json_record {
    char *header;   /* one JSON object */
    chunk_t *chunks;
    size_t n, cap;
    uint8_t *bytes;
    size_t nbytes, bytes_cap;
    char why[300];  /* the first damaged part's reason */
    bool damaged, oom;
};

static int on_head(void *ctx, const bw_record_head_t *h)
{
    bw_json_record_t *r = ctx;
    json_t *o = json_object();
    json_object_set_new(o, "botwire_record", json_integer(1));
    if (h->url)
        json_object_set_new(o, "url", json_string(h->url));
    if (h->family)
        json_object_set_new(o, "family", json_string(h->family));
    if (h->start)
        json_object_set_new(o, "start", json_string(h->start));
    if (h->format == BW_RECORD_MCAP)
        json_object_set_new(o, "format", json_string("mcap"));
    r->header = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return r->header ? 0 : 1;
}

static int on_chunk(void *ctx, const bw_record_chunk_t *c)
{
    bw_json_record_t *r = ctx;
    if (!c)
        return 0;
    if (r->n == r->cap) {
        size_t cap = r->cap * 2 + 256;
        chunk_t *p = realloc(r->chunks, cap * sizeof *p);
        if (!p)
            return 1;
        r->chunks = p;
        r->cap = cap;
    }
    if (r->nbytes + c->len > r->bytes_cap) {
        size_t cap = (r->nbytes + c->len) * 2 + 4096;
        uint8_t *p = realloc(r->bytes, cap);
        if (!p)
            return 1;
        r->bytes = p;
        r->bytes_cap = cap;
    }
    memcpy(r->bytes + r->nbytes, c->data, c->len);
    r->chunks[r->n++] = (chunk_t){ c->t, c->from_robot, r->nbytes, c->len };
    r->nbytes += c->len;
    return 0;
}

static void on_damaged(void *ctx, const char *why)
{
    bw_json_record_t *r = ctx;
    if (!r->damaged)
        snprintf(r->why, sizeof r->why, "%s", why);
    r->damaged = true;
}

BW_JSON_API void bw_json_record_free(bw_json_record_t *r)
{
    if (!r)
        return;
    free(r->header);
    free(r->chunks);
    free(r->bytes);
    free(r);
}

BW_JSON_API int bw_json_record_read(bw_json_record_t **out, const char *path, char *err,
                                    size_t errlen)
{
    *out = NULL;
    FILE *in = fopen(path, "rb");
    if (!in) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return BW_EIO;
    }
    bw_json_record_t *r = calloc(1, sizeof *r);
    if (!r) {
        fclose(in);
        snprintf(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    bw_record_visitor_t v = { .head = on_head, .chunk = on_chunk, .damaged = on_damaged, .ctx = r };
    char why[300];
    int rc = bw_record_read(in, &v, why, sizeof why);
    fclose(in);
    if (rc > 0) {
        snprintf(err, errlen, "out of memory");
        bw_json_record_free(r);
        return BW_ENOMEM;
    }
    if (rc < 0 || r->damaged || !r->header) {
        snprintf(err, errlen, "%s: %s", path,
                 rc < 0 ? why : r->damaged ? r->why : "empty, not a botwire record");
        bw_json_record_free(r);
        return BW_EINVAL;
    }
    *out = r;
    return 0;
}

BW_JSON_API const char *bw_json_record_header(const bw_json_record_t *r) { return r->header; }

BW_JSON_API size_t bw_json_record_chunks(const bw_json_record_t *r) { return r->n; }

BW_JSON_API int bw_json_record_chunk(const bw_json_record_t *r, size_t i, double *t,
                                     int *from_robot, const uint8_t **data, size_t *len)
{
    if (i >= r->n)
        return BW_EINVAL;
    const chunk_t *c = &r->chunks[i];
    *t = c->t;
    *from_robot = c->from_robot;
    *data = r->bytes + c->at;
    *len = c->len;
    return 0;
}
