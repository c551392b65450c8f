/* JSON Lines written directly for `botwire decode` (jw.h). */
#include "jw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What a writer holds before it writes it out, at the end of a line. */
#define JW_FLUSH_AT (256u * 1024u)

void jw_init(jw_t *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
}

void jw_free(jw_t *w)
{
    free(w->p);
    w->p = NULL;
    w->len = w->cap = 0;
}

bool jw_flush(jw_t *w)
{
    if (!w->failed && w->len && fwrite(w->p, 1, w->len, w->f) != w->len)
        w->failed = true;
    w->len = 0;
    return !w->failed;
}

char *jw_grow(jw_t *w, size_t n)
{
    if (w->failed)
        return NULL;
    size_t cap = w->cap ? w->cap : JW_FLUSH_AT * 2;
    while (cap < w->len + n)
        cap *= 2;
    char *p = realloc(w->p, cap);
    if (!p) {
        w->failed = true;
        return NULL;
    }
    w->p = p;
    w->cap = cap;
    return p + w->len;
}

/* v in decimal at d; returns the end. At most 20 bytes. */
static char *put_int(char *d, int64_t v)
{
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324"
                                   "25262728293031323334353637383940414243444546474849"
                                   "50515253545556575859606162636465666768697071727374"
                                   "75767778798081828384858687888990919293949596979899";
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        *d++ = '-';
        u = 0 - u;
    }
    size_t n = 1;
    for (uint64_t x = u; x >= 10; x /= 10)
        n++;
    char *end = d + n;
    while (u >= 100) {
        const char *p = pairs + (u % 100) * 2;
        u /= 100;
        *--end = p[1];
        *--end = p[0];
    }
    if (u >= 10) {
        end[-1] = pairs[u * 2 + 1];
        end[-2] = pairs[u * 2];
    } else {
        end[-1] = (char)('0' + u);
    }
    return d + n;
}

void jt_bytes(jw_t *w, char tag, const void *p, size_t n)
{
    uint32_t len = (uint32_t)n;
    char *d = n <= UINT32_MAX ? jw_room(w, 5 + n) : NULL;
    if (!d) {
        w->failed = true;
        return;
    }
    *d = tag;
    memcpy(d + 1, &len, 4);
    if (n)
        memcpy(d + 5, p, n);
    w->len += 5 + n;
}

void jw_int(jw_t *w, int64_t v)
{
    if (w->cols) {
        jc_int(w->cols, v);
        return;
    }
    if (w->tape) {
        jt_int(w, v);
        return;
    }
    char *d = jw_room(w, 22);
    if (!d)
        return;
    char *s = d;
    if (w->comma)
        *d++ = ',';
    d = put_int(d, v);
    w->len += (size_t)(d - s);
    w->comma = true;
}

void jw_bool(jw_t *w, bool v)
{
    if (w->cols) {
        jc_bool(w->cols, v);
        return;
    }
    if (w->tape) {
        jt_tag(w, v ? BW_TAPE_TRUE : BW_TAPE_FALSE);
        return;
    }
    if (w->comma)
        jw_raw(w, ",", 1);
    jw_raw(w, v ? "true" : "false", v ? 4 : 5);
    w->comma = true;
}

void jw_open(jw_t *w, char c)
{
    if (w->depth++ == 0)
        w->top = c;
    if (w->cols) {
        jc_open(w->cols, c);
        return;
    }
    if (w->tape) {
        jt_tag(w, c);
        return;
    }
    char *d = jw_room(w, 2);
    if (!d)
        return;
    char *s = d;
    if (w->comma)
        *d++ = ',';
    *d++ = c;
    w->len += (size_t)(d - s);
    w->comma = false;
}

void jw_close(jw_t *w, char c)
{
    w->depth--;
    w->comma = true;
    if (w->cols) {
        jc_close(w->cols, c);
        return;
    }
    if (w->tape) {
        jt_tag(w, c);
        return;
    }
    char *d = jw_room(w, 1);
    if (!d)
        return;
    *d = c;
    w->len++;
}

/* ---- strings, as jansson writes them ------------------------------------- */

/* Bytes of the UTF-8 sequence that starts with u (0: none starts so). */
static size_t utf8_first(unsigned char u)
{
    if (u < 0x80)
        return 1;
    if (u < 0xC2)
        return 0; /* a continuation byte, or an overlong form of ASCII */
    if (u <= 0xDF)
        return 2;
    if (u <= 0xEF)
        return 3;
    if (u <= 0xF4)
        return 4;
    return 0;
}

/* Whether the n-byte sequence at s is one code point, written shortest. */
static bool utf8_full(const unsigned char *s, size_t n)
{
    int32_t v = s[0] & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (size_t i = 1; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF)
            return false;
        v = (v << 6) + (s[i] & 0x3F);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return false;
    return !((n == 2 && v < 0x80) || (n == 3 && v < 0x800) || (n == 4 && v < 0x10000));
}

static bool utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        size_t k = utf8_first(u[i]);
        if (k == 0 || (k > 1 && (k > n - i || !utf8_full(u + i, k))))
            return false;
        i += k - 1;
    }
    return true;
}

void jw_str(jw_t *w, const char *s, size_t n)
{
    if (w->cols) {
        jc_text(w->cols, 's', s, n);
        return;
    }
    if (w->tape) {
        jt_bytes(w, BW_TAPE_STR, s, n);
        return;
    }
    /* At most six bytes for each byte of s (\u00XX), quotes and a comma. */
    char *d = jw_room(w, 6 * n + 3);
    if (!d)
        return;
    char *start = d;
    if (w->comma)
        *d++ = ',';
    *d++ = '"';
    size_t plain = 0; /* bytes that go out as they are, as most do */
    while (plain < n && (unsigned char)s[plain] >= 0x20 && s[plain] != '"' && s[plain] != '\\')
        plain++;
    jw_copy(d, s, plain);
    d += plain;
    for (size_t i = plain; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            *d++ = (char)c; /* multi-byte sequences go through as they are */
            continue;
        }
        *d++ = '\\';
        switch (c) {
        case '"': *d++ = '"'; break;
        case '\\': *d++ = '\\'; break;
        case '\b': *d++ = 'b'; break;
        case '\f': *d++ = 'f'; break;
        case '\n': *d++ = 'n'; break;
        case '\r': *d++ = 'r'; break;
        case '\t': *d++ = 't'; break;
        default: {
            static const char hex[] = "0123456789ABCDEF";
            *d++ = 'u';
            *d++ = '0';
            *d++ = '0';
            *d++ = hex[c >> 4];
            *d++ = hex[c & 15];
        }
        }
    }
    *d++ = '"';
    w->len += (size_t)(d - start);
    w->comma = true;
}

void jw_hex(jw_t *w, const uint8_t *p, size_t n)
{
    if (w->cols) {
        jc_text(w->cols, 'h', p, n);
        return;
    }
    if (w->tape) {
        jt_bytes(w, BW_TAPE_HEX, p, n);
        return;
    }
    static const char hex[] = "0123456789abcdef";
    char *d = jw_room(w, 2 * n + 3);
    if (!d)
        return;
    char *start = d;
    if (w->comma)
        *d++ = ',';
    *d++ = '"';
    for (size_t i = 0; i < n; i++) {
        *d++ = hex[p[i] >> 4];
        *d++ = hex[p[i] & 15];
    }
    *d++ = '"';
    w->len += (size_t)(d - start);
    w->comma = true;
}

void jw_key_str(jw_t *w, const char *key, const char *s)
{
    size_t n = strlen(s);
    if (!utf8_valid(s, n))
        return;
    jw_key(w, key);
    jw_str(w, s, n);
}

void jw_key_hex(jw_t *w, const char *key, const uint8_t *p, size_t n)
{
    jw_key(w, key);
    jw_hex(w, p, n);
}

/* ---- fields --------------------------------------------------------------- */

/* The keys of a field table ("name": for each field shown), made once per
 * table: most of a message's text, and the same every time. */
typedef struct {
    const bw_field_t *fields; /* NULL: a free slot */
    size_t n;
    char *text;      /* the keys, one after another */
    uint16_t *end;   /* key k ends at text + end[k]; PAD fields have none */
    size_t room;     /* bytes the fields' text takes at most */
} keys_t;

static keys_t *keys_of(const bw_field_t *fields, size_t n)
{
    static keys_t cache[256];
    size_t h = ((uintptr_t)fields >> 3) * 31 + n;
    for (size_t i = 0; i < 256; i++) {
        keys_t *k = &cache[(h + i) % 256];
        if (k->fields == fields && k->n == n)
            return k;
        if (k->fields)
            continue;
        size_t len = 0, room = 0;
        for (size_t f = 0; f < n; f++) {
            if (fields[f].type == BW_FT_PAD)
                continue;
            len += strlen(fields[f].name) + 3;
            room += strlen(fields[f].name) + 3 + 1 + 2 + 12 * (size_t)fields[f].count;
        }
        char *text = malloc(len ? len : 1);
        uint16_t *end = malloc((n ? n : 1) * sizeof *end);
        if (!text || !end || len > UINT16_MAX) {
            free(text);
            free(end);
            return NULL;
        }
        size_t at = 0;
        for (size_t f = 0; f < n; f++) {
            if (fields[f].type != BW_FT_PAD) {
                size_t m = strlen(fields[f].name);
                text[at] = '"';
                memcpy(text + at + 1, fields[f].name, m);
                memcpy(text + at + 1 + m, "\":", 2);
                at += m + 3;
            }
            end[f] = (uint16_t)at;
        }
        *k = (keys_t){ fields, n, text, end, room };
        return k;
    }
    return NULL;
}

/* jw_fields on a tape: the table, then every element of its fields. */
static void tape_fields(jw_t *w, const bw_field_t *fields, size_t n, const void *base)
{
    size_t values = 0;
    for (size_t k = 0; k < n; k++)
        values += fields[k].type == BW_FT_PAD ? 0 : fields[k].count;
    uint32_t count = (uint32_t)n;
    char *d = jw_room(w, 1 + sizeof fields + 4 + 8 * values);
    if (!d)
        return;
    char *start = d;
    *d++ = BW_TAPE_FIELDS;
    memcpy(d, &fields, sizeof fields);
    d += sizeof fields;
    memcpy(d, &count, 4);
    d += 4;
    for (size_t k = 0; k < n; k++) {
        const bw_field_t *f = &fields[k];
        if (f->type == BW_FT_PAD)
            continue;
        size_t size = bw_ftype_size((bw_ftype_t)f->type);
        const uint8_t *p = (const uint8_t *)base + f->offset;
        for (size_t i = 0; i < f->count; i++, p += size, d += 8) {
            int64_t v = jw_field_value(p, f->type);
            memcpy(d, &v, 8);
        }
    }
    w->len += (size_t)(d - start);
}

void jw_fields(jw_t *w, const bw_field_t *fields, size_t n, const void *base)
{
    if (w->cols) {
        jc_fields(w->cols, fields, n, base);
        return;
    }
    if (w->tape) {
        tape_fields(w, fields, n, base);
        w->comma = true;
        return;
    }
    const keys_t *keys = keys_of(fields, n);
    char *d = keys ? jw_room(w, keys->room) : NULL;
    if (!d) {
        if (!w->failed)
            w->failed = true; /* out of memory */
        return;
    }
    char *start = d;
    bool comma = w->comma;
    size_t from = 0;
    for (size_t k = 0; k < n; k++) {
        const bw_field_t *f = &fields[k];
        if (f->type == BW_FT_PAD)
            continue;
        if (comma)
            *d++ = ',';
        comma = true;
        size_t m = keys->end[k] - from;
        jw_copy(d, keys->text + from, m);
        d += m;
        from = keys->end[k];
        const uint8_t *p = (const uint8_t *)base + f->offset;
        if (f->count == 1) {
            d = put_int(d, jw_field_value(p, f->type));
            continue;
        }
        size_t size = bw_ftype_size((bw_ftype_t)f->type);
        *d++ = '[';
        for (size_t i = 0; i < f->count; i++, p += size) {
            if (i)
                *d++ = ',';
            d = put_int(d, jw_field_value(p, f->type));
        }
        *d++ = ']';
    }
    w->len += (size_t)(d - start);
    w->comma = comma;
}

/* ---- messages and lines --------------------------------------------------- */

void jw_msg_begin(jw_t *w, const char *type)
{
    if (w->depth++ == 0)
        w->top = '{';
    if (w->cols) {
        jc_msg_begin(w->cols, type);
        return;
    }
    if (w->tape) {
        jt_tag_ptr(w, BW_TAPE_MSG, type);
        return;
    }
    size_t n = strlen(type);
    char *d = jw_room(w, n + 11);
    if (!d)
        return;
    char *s = d;
    if (w->comma)
        *d++ = ',';
    memcpy(d, "{\"type\":\"", 9);
    d += 9;
    jw_copy(d, type, n); /* a name of the codec's: nothing to escape */
    d += n;
    *d++ = '"';
    w->len += (size_t)(d - s);
    w->comma = true;
}

/* t as jansson writes a real of precision 10: "%.10g", then ".0" if that
 * reads as an integer, and the exponent without '+' or leading zeros. */
static size_t real_text(double v, char *buf, size_t size)
{
    int ret = snprintf(buf, size, "%.10g", v);
    if (ret < 0 || (size_t)ret + 3 >= size)
        return 0;
    size_t len = (size_t)ret;
    if (!strchr(buf, '.') && !strchr(buf, 'e')) {
        memcpy(buf + len, ".0", 3);
        len += 2;
    }
    char *start = strchr(buf, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, len - (size_t)(end - buf));
            len -= (size_t)(end - start);
        }
    }
    return len;
}

/*
 * real_text from the JSON number t was read from, when that tells it
 * without printf: a plain decimal ([-]digits[.digits]) of at most 10
 * significant digits. t is then the double nearest that decimal, and
 * "%.10g" gives those digits back (t is within 2^-53 of the decimal, far
 * closer than any other of 10 digits), trailing zeros off, in fixed or
 * exponent form as printf chooses by the exponent; then what real_text
 * does to it. Returns the length, or 0 to leave it to real_text.
 */
static size_t token_text(double t, const char *tok, size_t n, char *buf)
{
    const char *p = tok, *end = tok + n;
    bool neg = p < end && *p == '-';
    p += neg;
    char digits[64];
    size_t nd = 0, nint = 0;
    for (; p < end && *p != '.'; p++, nint++) {
        if (*p < '0' || *p > '9' || nd >= sizeof digits)
            return 0;
        digits[nd++] = *p;
    }
    if (p < end)
        for (p++; p < end; p++) {
            if (*p < '0' || *p > '9' || nd >= sizeof digits)
                return 0;
            digits[nd++] = *p;
        }
    if (nint == 0)
        return 0;
    size_t lead = 0;
    while (lead < nd && digits[lead] == '0')
        lead++;
    if (lead == nd) { /* zero: "%.10g" gives "0" or, for -0.0 (not "-0"), "-0" */
        static const char zero[] = "-0.0";
        size_t len = signbit(t) ? 4 : 3;
        memcpy(buf, &zero[4 - len], len);
        return len;
    }
    char *d = buf;
    if (neg)
        *d++ = '-';
    const char *sig = digits + lead;
    size_t len = nd - lead;
    while (sig[len - 1] == '0')
        len--;
    if (len > 10)
        return 0;
    long x = (long)nint - 1 - (long)lead; /* the decimal exponent */
    if (x < -4 || x >= 10) {
        *d++ = sig[0];
        if (len > 1) {
            *d++ = '.';
            memcpy(d, sig + 1, len - 1);
            d += len - 1;
        }
        *d++ = 'e';
        if (x < 0)
            *d++ = '-';
        unsigned long e = (unsigned long)(x < 0 ? -x : x);
        char ed[8], *q = ed + sizeof ed;
        do
            *--q = (char)('0' + e % 10);
        while (e /= 10);
        memcpy(d, q, (size_t)(ed + sizeof ed - q));
        d += ed + sizeof ed - q;
    } else if (x >= 0) {
        for (long i = 0; i <= x; i++)
            *d++ = (size_t)i < len ? sig[i] : '0';
        *d++ = '.';
        if ((size_t)x + 1 < len) {
            memcpy(d, sig + x + 1, len - (size_t)x - 1);
            d += len - (size_t)x - 1;
        } else {
            *d++ = '0'; /* real_text's ".0" */
        }
    } else {
        memcpy(d, "0.", 2);
        d += 2;
        for (long i = -1; i > x; i--)
            *d++ = '0';
        memcpy(d, sig, len);
        d += len;
    }
    return (size_t)(d - buf);
}

void jw_set_t(jw_t *w, double t, const char *token, size_t n)
{
    w->t = t;
    if (memcmp(&t, &w->t_shown, sizeof t) == 0 && w->t_len)
        return;
    size_t len = isfinite(t) ? token_text(t, token, n, w->t_text) : 0;
    if (len) {
        w->t_len = len;
        w->t_shown = t;
        w->t_value = NAN;
    }
}

void jw_msg_end(jw_t *w)
{
    if (w->annotate && (w->depth == 1 || (w->depth == 2 && w->top == '['))) {
        /* jansson has no real for inf or NaN: "t" is then left out. */
        if (isfinite(w->t)) {
            if (w->t_len == 0 || memcmp(&w->t, &w->t_shown, sizeof w->t) != 0) {
                w->t_len = real_text(w->t, w->t_text, sizeof w->t_text);
                w->t_shown = w->t;
                w->t_value = NAN;
            }
            jw_key(w, "t");
            if (w->tape || w->cols) {
                /* the number the text says, as a reader of the text gets it */
                if (isnan(w->t_value)) {
                    char text[sizeof w->t_text + 1];
                    memcpy(text, w->t_text, w->t_len);
                    text[w->t_len] = 0;
                    w->t_value = strtod(text, NULL);
                }
                char *d = w->cols ? NULL : jw_room(w, 9);
                if (w->cols) {
                    jc_real(w->cols, w->t_value);
                } else if (d) {
                    *d = BW_TAPE_REAL;
                    memcpy(d + 1, &w->t_value, 8);
                    w->len += 9;
                }
            } else {
                jw_raw(w, w->t_text, w->t_len);
            }
            w->comma = true;
        }
        jw_key_str(w, "from", w->from);
    }
    jw_close(w, '}');
}

void jw_line_end(jw_t *w)
{
    if (w->cols) {
        w->comma = false;
        return;
    }
    char *d = jw_room(w, 1);
    if (!d)
        return;
    *d = '\n';
    w->len++;
    w->comma = false;
    if (w->len >= JW_FLUSH_AT && !w->tape) /* a tape is taken from memory */
        jw_flush(w);
}

void jw_stats_line(jw_t *w, const bw_parse_stats_t *s, long damaged_lines)
{
    jw_msg_begin(w, "stats");
    jw_key_int(w, "frames", (int64_t)s->frames);
    jw_key_int(w, "checksum_errors", (int64_t)s->checksum_errors);
    jw_key_int(w, "length_errors", (int64_t)s->length_errors);
    jw_key_int(w, "skipped_bytes", (int64_t)s->skipped_bytes);
    jw_key_int(w, "unknown", (int64_t)s->unknown);
    if (damaged_lines >= 0)
        jw_key_int(w, "damaged_lines", damaged_lines);
    jw_close(w, '}');
    jw_line_end(w);
}

const jw_decoder_t *jw_decoder_find(const char *name)
{
    static const jw_decoder_t *const decoders[] = {
        &jw_decoder_kobuki, &jw_decoder_p2os, &jw_decoder_lobot,
        &jw_decoder_create, &jw_decoder_rbsm, &jw_decoder_rflex,
    };
    for (size_t i = 0; i < sizeof decoders / sizeof decoders[0]; i++)
        if (strcasecmp(decoders[i]->name, name) == 0)
            return decoders[i];
    return NULL;
}
