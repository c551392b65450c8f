/* The text layer's shared pieces: its growable buffer, the JSON helpers
 * over field descriptors that every family's encoder reads with, and the
 * registry of protocols. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jw.h"

int jw_buf_append(jw_buf_t *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
    return 0;
}

void jw_buf_free(jw_buf_t *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* ---- JSON helpers ---------------------------------------------------------- */

static int check_int(json_t *v, const char *key, int64_t min, int64_t max, int64_t *out,
                     char *err, size_t errlen)
{
    if (!json_is_integer(v)) {
        snprintf(err, errlen, "field \"%s\" must be an integer", key);
        return -1;
    }
    json_int_t x = json_integer_value(v);
    if (x < min || x > max) {
        snprintf(err, errlen, "field \"%s\": %lld is out of range %lld..%lld", key, (long long)x,
                 (long long)min, (long long)max);
        return -1;
    }
    *out = x;
    return 0;
}

int jm_get_int(json_t *obj, const char *key, int64_t min, int64_t max, int64_t *out, char *err,
               size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        snprintf(err, errlen, "missing field \"%s\"", key);
        return -1;
    }
    return check_int(v, key, min, max, out, err, errlen);
}

int jm_get_fields(json_t *obj, const bw_msgdesc_t *desc, void *base, char *err, size_t errlen)
{
    for (size_t k = 0; k < desc->nfields; k++) {
        const bw_field_t *f = &desc->fields[k];
        if (f->type == BW_FT_PAD)
            continue;
        bw_ftype_t t = (bw_ftype_t)f->type;
        int64_t v;
        if (f->count == 1) {
            if (jm_get_int(obj, f->name, bw_ftype_min(t), bw_ftype_max(t), &v, err, errlen) < 0)
                return -1;
            bw_field_set(base, f, 0, v);
            continue;
        }
        json_t *a = json_object_get(obj, f->name);
        if (!json_is_array(a) || json_array_size(a) != f->count) {
            snprintf(err, errlen, "field \"%s\" must be an array of %u integers", f->name,
                     (unsigned)f->count);
            return -1;
        }
        for (size_t i = 0; i < f->count; i++) {
            if (check_int(json_array_get(a, i), f->name, bw_ftype_min(t), bw_ftype_max(t), &v, err,
                          errlen) < 0)
                return -1;
            bw_field_set(base, f, i, v);
        }
    }
    return 0;
}

int jm_check_keys(json_t *obj, const bw_msgdesc_t *desc, const char *const *extra, char *err,
                  size_t errlen)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        /* "t" and "from" annotate messages decoded from a record. */
        bool ok = !strcmp(key, "type") || !strcmp(key, "t") || !strcmp(key, "from");
        for (size_t k = 0; !ok && desc && k < desc->nfields; k++)
            ok = desc->fields[k].type != BW_FT_PAD && strcmp(desc->fields[k].name, key) == 0;
        for (size_t k = 0; !ok && extra && extra[k]; k++)
            ok = strcmp(extra[k], key) == 0;
        if (!ok) {
            snprintf(err, errlen, "unknown field \"%s\"", key);
            return -1;
        }
    }
    return 0;
}

int jm_get_hex(json_t *obj, const char *key, uint8_t *out, size_t cap, size_t *n, char *err,
               size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_string(v)) {
        snprintf(err, errlen, "field \"%s\" must be a hex string", key);
        return -1;
    }
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (len % 2 || len / 2 > cap) {
        snprintf(err, errlen, "field \"%s\" must hold an even number of hex digits, at most %zu bytes",
                 key, cap);
        return -1;
    }
    for (size_t i = 0; i < len / 2; i++) {
        int hi = bw_hex_value((unsigned char)s[2 * i]);
        int lo = bw_hex_value((unsigned char)s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            snprintf(err, errlen, "field \"%s\" is not hexadecimal", key);
            return -1;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *n = len / 2;
    return 0;
}

/* ---- protocol registry ------------------------------------------------------ */

static const jw_codec_t *const codecs[] = {
    &jw_codec_kobuki,
    &jw_codec_p2os,
    &jw_codec_lobot,
    &jw_codec_create,
    &jw_codec_rbsm,
    &jw_codec_rflex,
};

const jw_codec_t *jw_codec_find(const char *name)
{
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        if (strcasecmp(codecs[i]->name, name) == 0)
            return codecs[i];
    return NULL;
}

const char *jw_codec_names(void)
{
    static char names[128];
    if (!names[0]) {
        for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
            if (i)
                strcat(names, ", ");
            strcat(names, codecs[i]->name);
        }
    }
    return names;
}
