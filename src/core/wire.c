#include "botwire/wire.h"

#include <string.h>

int bw_hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

const char *bw_strerror(int err)
{
    switch (err) {
    case BW_OK: return "ok";
    case BW_EINVAL: return "invalid argument";
    case BW_ENOSPC: return "output buffer too small";
    case BW_ECHECKSUM: return "checksum mismatch";
    case BW_ELENGTH: return "impossible or inconsistent length";
    case BW_ETRUNC: return "input ended inside a message";
    case BW_EUNKNOWN: return "unknown message";
    case BW_ERANGE: return "value out of range";
    case BW_EIO: return "input/output error";
    case BW_ETIMEDOUT: return "timed out";
    case BW_ECLOSED: return "link closed";
    case BW_ENOTSUP: return "not supported";
    case BW_ENOMEM: return "out of memory";
    case BW_EPROTO: return "protocol error";
    case BW_ESTATE: return "not valid in the current state";
    default: return err > 0 ? "ok (count)" : "unknown error";
    }
}

uint8_t bw_xor8(const uint8_t *p, size_t n)
{
#if BW_SMALL
    uint8_t x = 0;
    while (n--)
        x ^= *p++;
    return x;
#else
    /* Sixteen bytes at a time, the rest in at most four steps: the
     * checksum is on every frame's hot path. */
    uint64_t a = 0, b = 0, w;
    for (; n >= 16; n -= 16, p += 16) {
        memcpy(&w, p, 8);
        a ^= w;
        memcpy(&w, p + 8, 8);
        b ^= w;
    }
    if (n & 8) {
        memcpy(&w, p, 8);
        a ^= w;
        p += 8;
    }
    if (n & 4) {
        uint32_t h;
        memcpy(&h, p, 4);
        b ^= h;
        p += 4;
    }
    if (n & 2) {
        uint16_t h;
        memcpy(&h, p, 2);
        a ^= h;
        p += 2;
    }
    if (n & 1)
        b ^= *p;
    a ^= b;
    a ^= a >> 32;
    a ^= a >> 16;
    a ^= a >> 8;
    return (uint8_t)a;
#endif
}

uint16_t bw_sum16_pairs(const uint8_t *p, size_t n) { return bw_sum16_pairs_inline(p, n); }

void bw_parse_stats_add(bw_parse_stats_t *dst, const bw_parse_stats_t *src)
{
    dst->frames += src->frames;
    dst->checksum_errors += src->checksum_errors;
    dst->length_errors += src->length_errors;
    dst->skipped_bytes += src->skipped_bytes;
    dst->unknown += src->unknown;
    dst->implausible += src->implausible;
}

#ifdef __GNUC__
__attribute__((noinline)) /* the point of it: see wire.h */
#endif
void bw_count_inc(bw_count_t *c)
{
    ++*c;
}

size_t bw_ftype_size(bw_ftype_t t)
{
    static const BW_ROM uint8_t size[] = { 1, 1, 2, 2, 4, 4, 1 }; /* U8 .. PAD */
    return (unsigned)t < sizeof size ? size[t] : 1;
}

int64_t bw_ftype_min(bw_ftype_t t)
{
    switch (t) {
    case BW_FT_I8: return INT8_MIN;
    case BW_FT_I16: return INT16_MIN;
    case BW_FT_I32: return INT32_MIN;
    default: return 0;
    }
}

int64_t bw_ftype_max(bw_ftype_t t)
{
    switch (t) {
    case BW_FT_I8: return INT8_MAX;
    case BW_FT_I16: return INT16_MAX;
    case BW_FT_I32: return INT32_MAX;
    case BW_FT_U16: return UINT16_MAX;
    case BW_FT_U32: return UINT32_MAX;
    default: return UINT8_MAX;
    }
}

int64_t bw_field_get(const void *base, const BW_ROM bw_field_t *f, size_t i)
{
    const uint8_t *p = (const uint8_t *)base + f->offset + i * bw_ftype_size((bw_ftype_t)f->type);
    switch ((bw_ftype_t)f->type) {
    case BW_FT_U8: return *p;
    case BW_FT_I8: { int8_t v; memcpy(&v, p, 1); return v; }
    case BW_FT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case BW_FT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case BW_FT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case BW_FT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: return 0;
    }
}

void bw_field_set(void *base, const BW_ROM bw_field_t *f, size_t i, int64_t v)
{
    uint8_t *p = (uint8_t *)base + f->offset + i * bw_ftype_size((bw_ftype_t)f->type);
    switch ((bw_ftype_t)f->type) {
    case BW_FT_U8: *p = (uint8_t)v; break;
    case BW_FT_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case BW_FT_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case BW_FT_I16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case BW_FT_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case BW_FT_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    default: break;
    }
}

#if BW_SMALL
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_ORDER BW_ORDER_BE
#else
#define HOST_ORDER BW_ORDER_LE
#endif

/* Both directions in one loop, byte by byte. Element k of a field of
 * size-byte elements (size 1, 2 or 4) is its bytes k * size .. k * size +
 * size - 1 on the wire and in the struct alike, so byte i of the field on
 * the wire is byte i ^ (size - 1) of it in the struct when the orders
 * differ, and byte i when they agree. */
static void fields_copy(const BW_ROM bw_field_t *f, size_t nfields, uint8_t order, uint8_t *wire,
                        uint8_t *base, bool encode)
{
    const uint8_t rev = order != HOST_ORDER;
    for (; nfields; nfields--, f++) {
        const uint8_t t = f->type;
        const bool pad = t == BW_FT_PAD;
        const uint8_t size = (uint8_t)bw_ftype_size((bw_ftype_t)t);
        const uint8_t flip = rev ? (uint8_t)(size - 1) : 0;
        const size_t n = (size_t)f->count * size;
        uint8_t *s = base + f->offset;
        for (size_t i = 0; i < n; i++, wire++) {
            uint8_t *m = &s[i ^ flip];
            if (encode)
                *wire = pad ? 0 : *m;
            else if (!pad)
                *m = *wire;
        }
    }
}

void bw_fields_decode(const BW_ROM bw_field_t *fields, size_t n, uint8_t order,
                      const uint8_t *wire, void *base)
{
    fields_copy(fields, n, order, (uint8_t *)(uintptr_t)wire, base, false); /* wire only read */
}

void bw_fields_encode(const BW_ROM bw_field_t *fields, size_t n, uint8_t order, const void *base,
                      uint8_t *wire)
{
    fields_copy(fields, n, order, wire, (uint8_t *)(uintptr_t)base, true); /* base only read */
}
#else
/* Raw wire word of `size` bytes in the given order. */
static uint32_t get_word(const uint8_t *w, size_t size, uint8_t order)
{
    if (size == 1)
        return w[0];
    if (size == 2)
        return order == BW_ORDER_BE ? bw_get_be16(w) : bw_get_le16(w);
    return order == BW_ORDER_BE ? bw_get_be32(w) : bw_get_le32(w);
}

static void put_word(uint8_t *w, size_t size, uint8_t order, uint32_t v)
{
    if (size == 1)
        w[0] = (uint8_t)v;
    else if (size == 2)
        order == BW_ORDER_BE ? bw_put_be16(w, (uint16_t)v) : bw_put_le16(w, (uint16_t)v);
    else
        order == BW_ORDER_BE ? bw_put_be32(w, v) : bw_put_le32(w, v);
}

void bw_fields_decode(const BW_ROM bw_field_t *fields, size_t nfields, uint8_t order,
                      const uint8_t *wire, void *base)
{
    for (size_t k = 0; k < nfields; k++) {
        const BW_ROM bw_field_t *f = &fields[k];
        size_t size = bw_ftype_size((bw_ftype_t)f->type);
        if (f->type == BW_FT_PAD) {
            wire += f->count;
            continue;
        }
        /* The struct member has exactly the wire width, so the raw word is
         * stored with memcpy; signedness comes back from the member type. */
        uint8_t *dst = (uint8_t *)base + f->offset;
        for (size_t i = 0; i < f->count; i++, wire += size, dst += size) {
            uint32_t v = get_word(wire, size, order);
            if (size == 1) {
                *dst = (uint8_t)v;
            } else if (size == 2) {
                uint16_t h = (uint16_t)v;
                memcpy(dst, &h, 2);
            } else {
                memcpy(dst, &v, 4);
            }
        }
    }
}

void bw_fields_encode(const BW_ROM bw_field_t *fields, size_t nfields, uint8_t order,
                      const void *base, uint8_t *wire)
{
    for (size_t k = 0; k < nfields; k++) {
        const BW_ROM bw_field_t *f = &fields[k];
        size_t size = bw_ftype_size((bw_ftype_t)f->type);
        if (f->type == BW_FT_PAD) {
            memset(wire, 0, f->count);
            wire += f->count;
            continue;
        }
        const uint8_t *src = (const uint8_t *)base + f->offset;
        for (size_t i = 0; i < f->count; i++, wire += size, src += size) {
            uint32_t v;
            if (size == 1) {
                v = *src;
            } else if (size == 2) {
                uint16_t h;
                memcpy(&h, src, 2);
                v = h;
            } else {
                memcpy(&v, src, 4);
            }
            put_word(wire, size, order, v);
        }
    }
}
#endif

void bw_desc_decode_fields(const BW_ROM bw_msgdesc_t *desc, size_t nfields, const uint8_t *wire,
                           void *base)
{
    bw_fields_decode(desc->fields, nfields, desc->order, wire, base);
}

void bw_desc_encode_fields(const BW_ROM bw_msgdesc_t *desc, size_t nfields, const void *base,
                           uint8_t *wire)
{
    bw_fields_encode(desc->fields, nfields, desc->order, base, wire);
}

void bw_desc_decode(const BW_ROM bw_msgdesc_t *desc, const uint8_t *wire, void *base)
{
    bw_desc_decode_fields(desc, desc->nfields, wire, base);
}

void bw_desc_encode(const BW_ROM bw_msgdesc_t *desc, const void *base, uint8_t *wire)
{
    bw_desc_encode_fields(desc, desc->nfields, base, wire);
}
