/* iRobot Create OI codec: commands, sensor packets, Stream frames. */
#include "botwire/create.h"

#include <string.h>

/* ---- sensor packets ---------------------------------------------------------- */

#define FIRST_VALUE 7u /* packets 7..42 are single values */
#define NVALUES (BW_CREATE_LAST_PACKET - FIRST_VALUE + 1u)
#define WIRE_SIZE(type) ((type) == BW_FT_U16 || (type) == BW_FT_I16 ? 2u : 1u)

#define PKT_FIELD(id, name, type) \
    [(id) - FIRST_VALUE] = { BW_NAME(#name), type, 1, (uint16_t)offsetof(bw_create_sensors_t, name) },
#define PKT_PAD(id) [(id) - FIRST_VALUE] = { BW_NAME("unused"), BW_FT_PAD, 1, 0 },

/* Every single-value packet in id order: a group is a run of this table. */
static const BW_ROM bw_field_t f_values[NVALUES] = { BW_CREATE_SENSOR_LIST(PKT_FIELD, PKT_PAD) };

#define PKT_DESC(id, name, type) \
    [id] = { BW_NAME(#name), &f_values[(id) - FIRST_VALUE], 1, WIRE_SIZE(type), BW_ORDER_BE },
#define PKT_PAD_DESC(id) [id] = { BW_NAME("unused"), &f_values[(id) - FIRST_VALUE], 1, 1, BW_ORDER_BE },
#define GROUP(g, first, last, size) \
    [g] = { BW_NAME("group_" #g), &f_values[(first) - FIRST_VALUE], (last) - (first) + 1, size, BW_ORDER_BE },

/* The groups: G(id, first value, last value, data bytes). */
#define CREATE_GROUPS(G) \
    G(0, 7, 26, 26) G(1, 7, 16, 10) G(2, 17, 20, 6) G(3, 21, 26, 10) G(4, 27, 34, 14) \
    G(5, 35, 42, 12) G(6, 7, 42, 52)

/* The catalogue of packets, for tools. */
static const BW_ROM bw_msgdesc_t d_packets[BW_CREATE_LAST_PACKET + 1] = {
    CREATE_GROUPS(GROUP)
    BW_CREATE_SENSOR_LIST(PKT_DESC, PKT_PAD_DESC)
};

/* What the codec codes packets with (a firmware links these, not the
 * catalogue, ten times their size): each packet's data bytes, and each
 * group's run of values. */
#define SIZE_G(g, first, last, size) [g] = size,
#define SIZE_F(id, name, type) [id] = WIRE_SIZE(type),
#define SIZE_P(id) [id] = 1,
static const BW_ROM uint8_t packet_sizes[BW_CREATE_LAST_PACKET + 1] = {
    CREATE_GROUPS(SIZE_G)
    BW_CREATE_SENSOR_LIST(SIZE_F, SIZE_P)
};

#if BW_SMALL
#define RUN_G(g, first, last, size) [g] = { (first) - FIRST_VALUE, (last) - (first) + 1 },
static const BW_ROM uint8_t group_runs[FIRST_VALUE][2] = { CREATE_GROUPS(RUN_G) };

/* The values packet id (0..42) carries: *n of them from the one returned. */
static const BW_ROM bw_field_t *packet_values(uint8_t id, size_t *n)
{
    if (id >= FIRST_VALUE) {
        *n = 1;
        return &f_values[id - FIRST_VALUE];
    }
    *n = group_runs[id][1];
    return &f_values[group_runs[id][0]];
}
#endif

static void decode_values(uint8_t id, const uint8_t *data, bw_create_sensors_t *s)
{
#if BW_SMALL
    size_t n;
    const BW_ROM bw_field_t *f = packet_values(id, &n);
    bw_fields_decode(f, n, BW_ORDER_BE, data, s);
#else
    /* Each packet and group by code of its own, which the compiler makes
     * from its run of the table: a Stream frame's packets are decoded here. */
#define DECODE_G(g, first, last, size)                                                     \
    case g:                                                                                \
        bw_fields_decode_inline(&f_values[(first) - FIRST_VALUE], (last) - (first) + 1u, \
                                BW_ORDER_BE, data, s);                                     \
        break;
#define DECODE_F(id, name, type)                                                              \
    case id: bw_fields_decode_inline(&f_values[(id) - FIRST_VALUE], 1, BW_ORDER_BE, data, s); break;
#define DECODE_P(id)
    switch (id) {
        CREATE_GROUPS(DECODE_G)
        BW_CREATE_SENSOR_LIST(DECODE_F, DECODE_P)
    default: break;
    }
#undef DECODE_G
#undef DECODE_F
#undef DECODE_P
#endif
}

static void encode_values(uint8_t id, const bw_create_sensors_t *s, uint8_t *data)
{
#if BW_SMALL
    size_t n;
    const BW_ROM bw_field_t *f = packet_values(id, &n);
    bw_fields_encode(f, n, BW_ORDER_BE, s, data);
#else
    /* As decoding: each packet and group by code of its own. */
#define ENCODE_G(g, first, last, size)                                                     \
    case g:                                                                                \
        bw_fields_encode_inline(&f_values[(first) - FIRST_VALUE], (last) - (first) + 1u, \
                                BW_ORDER_BE, s, data);                                     \
        break;
#define ENCODE_F(id, name, type)                                                              \
    case id: bw_fields_encode_inline(&f_values[(id) - FIRST_VALUE], 1, BW_ORDER_BE, s, data); break;
#define ENCODE_P(id) ENCODE_F(id, unused, BW_FT_PAD)
    switch (id) {
        CREATE_GROUPS(ENCODE_G)
        BW_CREATE_SENSOR_LIST(ENCODE_F, ENCODE_P)
    default: break;
    }
#undef ENCODE_G
#undef ENCODE_F
#undef ENCODE_P
#endif
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* A lower-case table name against a name in any case. */
static bool name_eq(const char *table, const char *name)
{
    while (*table && *table == lower(*name))
        table++, name++;
    return !*table && !*name;
}

const BW_ROM bw_msgdesc_t *bw_create_packet_desc(uint8_t id)
{
    return id <= BW_CREATE_LAST_PACKET ? &d_packets[id] : BW_ROM_NULL;
}

const char *bw_create_packet_name(uint8_t id)
{
    return id <= BW_CREATE_LAST_PACKET ? d_packets[id].name : NULL;
}

int bw_create_packet_id(const char *name)
{
    for (uint8_t id = 0; id <= BW_CREATE_LAST_PACKET; id++) {
        const BW_ROM bw_msgdesc_t *d = &d_packets[id];
        /* "unused" names two packets, so it names none. */
        if (d->nfields == 1 && d->fields[0].type == BW_FT_PAD)
            continue;
        if (name_eq(d->name, name))
            return id;
    }
    return BW_EUNKNOWN;
}

int bw_create_packet_size(uint8_t id)
{
    return id <= BW_CREATE_LAST_PACKET ? packet_sizes[id] : BW_EUNKNOWN;
}

int bw_create_decode_packet(uint8_t id, const uint8_t *data, size_t len, bw_create_sensors_t *s)
{
    int size = bw_create_packet_size(id);
    if (size < 0)
        return size;
    if (len != (size_t)size)
        return BW_ELENGTH;
    decode_values(id, data, s);
    return 0;
}

int bw_create_encode_packet(uint8_t *buf, size_t cap, uint8_t id, const bw_create_sensors_t *s)
{
    int size = bw_create_packet_size(id);
    if (size < 0)
        return size;
    if (cap < (size_t)size)
        return BW_ENOSPC;
    encode_values(id, s, buf);
    return size;
}

int bw_create_query_size(const uint8_t *ids, size_t n)
{
    int total = 0;
    for (size_t i = 0; i < n; i++) {
        int size = bw_create_packet_size(ids[i]);
        if (size < 0)
            return size;
        /* 255 ids of 52 bytes still fit a 16-bit int. */
        if (total > 0x7FFF - size)
            return BW_ERANGE;
        total += size;
    }
    return total;
}

int bw_create_decode_query(const uint8_t *ids, size_t n, const uint8_t *data, size_t len,
                           bw_create_sensors_t *s)
{
    int total = bw_create_query_size(ids, n);
    if (total < 0)
        return total;
    if ((size_t)total != len)
        return BW_ELENGTH;
    for (size_t i = 0; i < n; i++) {
        decode_values(ids[i], data, s);
        data += packet_sizes[ids[i]];
    }
    return 0;
}

int bw_create_encode_query(uint8_t *buf, size_t cap, const uint8_t *ids, size_t n,
                           const bw_create_sensors_t *s)
{
    int total = bw_create_query_size(ids, n);
    if (total < 0)
        return total;
    if ((size_t)total > cap)
        return BW_ENOSPC;
    for (size_t i = 0; i < n; i++) {
        encode_values(ids[i], s, buf);
        buf += packet_sizes[ids[i]];
    }
    return total;
}

/* ---- Stream frames -------------------------------------------------------- */

static uint8_t sum8(const uint8_t *p, size_t n)
{
    uint8_t s = 0;
#if !BW_SMALL
    /* Every Stream frame's check: eight bytes at a time, summed in the four
     * 16-bit lanes of a word, emptied before a lane can carry into the
     * next (2 * 255 * 128 < 2^16). */
    const uint64_t lanes = 0x00FF00FF00FF00FFu, halves = 0x0000FFFF0000FFFFu;
    while (n >= 8) {
        uint64_t acc = 0, w;
        for (size_t k = 0; n >= 8 && k < 128; k++, n -= 8, p += 8) {
            memcpy(&w, p, 8);
            acc += (w & lanes) + ((w >> 8) & lanes);
        }
        acc = (acc & halves) + ((acc >> 16) & halves);
        s = (uint8_t)(s + acc + (acc >> 32));
    }
#endif
    for (size_t i = 0; i < n; i++)
        s = (uint8_t)(s + p[i]);
    return s;
}

/* First byte the checksum covers. */
static size_t sum_from(uint8_t sum) { return sum == BW_CREATE_SUM_AFTER_HEADER ? 1u : 0u; }

/* Header, count and checksum around the len body bytes already at buf + 2. */
static int close_stream(uint8_t *buf, size_t len, uint8_t sum)
{
    buf[0] = BW_CREATE_STREAM_HEADER;
    buf[1] = (uint8_t)len;
    size_t from = sum_from(sum);
    buf[2 + len] = (uint8_t)(0u - sum8(buf + from, 2 + len - from));
    return (int)len + 3;
}

int bw_create_frame_stream_body(uint8_t *buf, size_t cap, const uint8_t *body, size_t len,
                                bw_create_sum_t sum)
{
    if (len < BW_CREATE_MIN_STREAM_BODY || len > BW_CREATE_MAX_STREAM_BODY)
        return BW_ERANGE;
    if (len + 3 > cap)
        return BW_ENOSPC;
    memmove(buf + 2, body, len);
    return close_stream(buf, len, (uint8_t)sum);
}

int bw_create_encode_stream(uint8_t *buf, size_t cap, const uint8_t *ids, size_t n,
                            const bw_create_sensors_t *s, bw_create_sum_t sum)
{
    int data = bw_create_query_size(ids, n);
    if (data < 0)
        return data;
    /* Compared in size_t: n may be far beyond what an int holds. */
    if (n == 0 || n > BW_CREATE_MAX_STREAM_BODY || (size_t)data + n > BW_CREATE_MAX_STREAM_BODY)
        return BW_ERANGE;
    size_t len = n + (size_t)data;
    if (len + 3 > cap)
        return BW_ENOSPC;
    uint8_t *w = buf + 2;
    for (size_t i = 0; i < n; i++) {
        *w++ = ids[i];
        encode_values(ids[i], s, w);
        w += packet_sizes[ids[i]];
    }
    return close_stream(buf, len, (uint8_t)sum);
}

int bw_create_stream_next(const bw_create_stream_frame_t *f, size_t *off, uint8_t *id,
                          const uint8_t **data)
{
    if (*off >= f->len)
        return 0;
    uint8_t pid = f->body[*off];
    int size = bw_create_packet_size(pid);
    if (size < 0)
        return BW_EUNKNOWN;
    if ((size_t)size > f->len - *off - 1)
        return BW_ETRUNC;
    *id = pid;
    *data = f->body + *off + 1;
    *off += 1 + (size_t)size;
    return 1;
}

int bw_create_decode_stream(const bw_create_stream_frame_t *f, bw_create_sensors_t *s)
{
    size_t off = 0;
    uint8_t id;
    const uint8_t *data;
    int rc, n = 0;
    while ((rc = bw_create_stream_next(f, &off, &id, &data)) == 1) {
        decode_values(id, data, s);
        n++;
    }
    return rc < 0 ? rc : n;
}

/* ---- one streaming scanner for both parsers --------------------------------------- */

/*
 * Both parsers look for a message that starts with one byte (the Stream
 * header, or any opcode) and whose size its first bytes tell. The shared
 * framer (wire.h) needs two fixed header bytes, so this is its one-byte
 * cousin: the same fast path in the caller's input, the same rescan of held
 * bytes after a rejection, the same accounting.
 */

#define NOT_START (-100) /* the byte cannot start a message */

typedef struct {
    /* Size of the message at p (n >= 1 bytes there): its size (may exceed
     * n), 0 when more bytes are needed to tell, NOT_START, or BW_ELENGTH. */
    int (*size)(const uint8_t *p, size_t n, uint8_t opt);
    /* 0 if the whole message is good, else BW_ECHECKSUM, BW_ELENGTH or
     * BW_EUNKNOWN. */
    int (*check)(const uint8_t *p, size_t size, uint8_t opt);
    int start_byte;            /* the one byte that starts a message, or -1 */
    bool count_unknown_starts; /* a skipped non-start byte is also "unknown" */
} scan_ops_t;

typedef struct {
    const scan_ops_t *ops;
    uint8_t opt;
    bw_parse_stats_t *stats;
    uint16_t *held, *drop;
    uint8_t *buf;
    size_t cap;      /* bytes buf holds */
    uint32_t *tally; /* count_unknown_starts: skipped bytes by value (NULL: none) */
} scanner_t;

static int reject(const scanner_t *s, int err)
{
    bw_count_inc(err == BW_ECHECKSUM  ? &s->stats->checksum_errors
                 : err == BW_EUNKNOWN ? &s->stats->unknown
                                      : &s->stats->length_errors);
    return err;
}

#if BW_SMALL
/* The small scanner: bytes go into the buffer one at a time and what is
 * held is looked at after each, as the small framer does (wire.h). */

/* Drops the first k held bytes. */
static void shift(const scanner_t *s, size_t k)
{
    *s->held = (uint16_t)(*s->held - k);
    memmove(s->buf, s->buf + k, *s->held);
}

static int scan_parse(const scanner_t *s, const uint8_t **data, size_t *len, const uint8_t **msg,
                      size_t *size)
{
    shift(s, *s->drop); /* the message returned last time */
    *s->drop = 0;
    for (;;) {
        size_t held = *s->held;
        if (held) {
            int r = s->ops->size(s->buf, held, s->opt);
            if (r == NOT_START) {
                BW_COUNT(s->stats->skipped_bytes);
                if (s->ops->count_unknown_starts) {
                    BW_COUNT(s->stats->unknown);
                    if (s->tally)
                        s->tally[s->buf[0]]++;
                }
                shift(s, 1);
                continue;
            }
            int err = r == BW_ELENGTH || (size_t)r > s->cap ? BW_ELENGTH : 0;
            if (!err && r > 0 && held >= (size_t)r) {
                err = s->ops->check(s->buf, (size_t)r, s->opt);
                if (!err) {
                    BW_COUNT(s->stats->frames);
                    *s->drop = (uint16_t)r;
                    *msg = s->buf;
                    *size = (size_t)r;
                    return 1;
                }
            }
            if (err) {
                BW_COUNT(s->stats->skipped_bytes);
                shift(s, 1);
                return reject(s, err);
            }
        }
        if (*len == 0)
            return 0;
        s->buf[(*s->held)++] = *(*data)++;
        (*len)--;
    }
}

static int scan_finish(const scanner_t *s, const uint8_t **msg, size_t *size)
{
    for (;;) {
        const uint8_t *none = NULL;
        size_t zero = 0;
        int rc = scan_parse(s, &none, &zero, msg, size);
        if (rc != 0 || *s->held == 0)
            return rc;
        /* What is held cannot complete; the parse skips on from its second byte. */
        BW_COUNT(s->stats->length_errors);
        BW_COUNT(s->stats->skipped_bytes);
        shift(s, 1);
    }
}
#else
/* Skips the bytes at p that cannot start a message; returns how many. */
static size_t skip_non_starts(const scanner_t *s, const uint8_t *p, size_t n)
{
    size_t k = 0;
    if (n == 0 || s->ops->start_byte == p[0])
        return 0; /* as between frames that follow each other */
    if (s->ops->start_byte >= 0) {
        const uint8_t *a = memchr(p, s->ops->start_byte, n);
        k = a ? (size_t)(a - p) : n;
    } else {
        while (k < n && s->ops->size(p + k, 1, s->opt) == NOT_START)
            k++;
    }
    s->stats->skipped_bytes += k;
    if (s->ops->count_unknown_starts) {
        s->stats->unknown += k;
        for (size_t i = 0; s->tally && i < k; i++)
            s->tally[p[i]]++;
    }
    return k;
}

/* Drops held bytes [0, from), then up to the next byte that can start a
 * message. */
static void rescan(const scanner_t *s, size_t from)
{
    s->stats->skipped_bytes += from;
    size_t k = from + skip_non_starts(s, s->buf + from, *s->held - from);
    memmove(s->buf, s->buf + k, *s->held - k);
    *s->held = (uint16_t)(*s->held - k);
}

/* Nothing held: messages are found and checked in the caller's input; only
 * one cut by the end of the input is copied. */
static int scan_direct(const scanner_t *s, const uint8_t **data, size_t *len, const uint8_t **msg,
                       size_t *size)
{
    if (*len == 0)
        return 0; /* *data may be NULL (finish): no arithmetic on it */
    const uint8_t *d = *data;
    size_t n = *len;
    int ret = 0;
    for (;;) {
        size_t k = skip_non_starts(s, d, n);
        d += k;
        n -= k;
        if (n == 0)
            goto out;
        int r = s->ops->size(d, n, s->opt);
        /* Cut by the end of the input and too long to hold until the rest
         * comes: refused. */
        int err = r == BW_ELENGTH || ((size_t)r > n && (size_t)r > s->cap) ? BW_ELENGTH : 0;
        if (!err && (r == 0 || (size_t)r > n))
            break;
        if (!err)
            err = s->ops->check(d, (size_t)r, s->opt);
        if (err) {
            /* The candidate's other bytes stay in the input, to be scanned
             * again from its second byte. */
            s->stats->skipped_bytes++;
            d++;
            n--;
            ret = reject(s, err);
            goto out;
        }
        *msg = d;
        *size = (size_t)r;
        s->stats->frames++;
        d += r;
        n -= (size_t)r;
        ret = 1;
        goto out;
    }
    /* Fewer bytes than the message, or than it takes to know its size. */
    memcpy(s->buf, d, n);
    *s->held = (uint16_t)n;
    d += n;
    n = 0;
out:
    *data = d;
    *len = n;
    return ret;
}

static int scan_parse(const scanner_t *s, const uint8_t **data, size_t *len, const uint8_t **msg,
                      size_t *size)
{
    if (*s->drop) {
        /* The message returned from buf last time is no longer in use; the
         * bytes behind it need not start a message. */
        memmove(s->buf, s->buf + *s->drop, (size_t)(*s->held - *s->drop));
        *s->held = (uint16_t)(*s->held - *s->drop);
        *s->drop = 0;
        rescan(s, 0);
    }
    for (;;) {
        if (*s->held == 0)
            return scan_direct(s, data, len, msg, size);
        /* Held bytes start with a byte that can start a message. */
        int r = s->ops->size(s->buf, *s->held, s->opt);
        if (r == BW_ELENGTH || (size_t)r > s->cap) {
            rescan(s, 1);
            return reject(s, BW_ELENGTH);
        }
        size_t need = r > 0 ? (size_t)r : (size_t)*s->held + 1;
        if (r > 0 && *s->held >= need) {
            int err = s->ops->check(s->buf, need, s->opt);
            if (err) {
                rescan(s, 1);
                return reject(s, err);
            }
            *msg = s->buf;
            *size = need;
            s->stats->frames++;
            *s->drop = (uint16_t)need;
            return 1;
        }
        if (*len == 0)
            return 0;
        size_t take = need - *s->held;
        if (take > *len)
            take = *len;
        memcpy(s->buf + *s->held, *data, take);
        *s->held = (uint16_t)(*s->held + take);
        *data += take;
        *len -= take;
    }
}

static int scan_finish(const scanner_t *s, const uint8_t **msg, size_t *size)
{
    for (;;) {
        const uint8_t *none = NULL;
        size_t zero = 0;
        int rc = scan_parse(s, &none, &zero, msg, size);
        if (rc != 0 || *s->held == 0)
            return rc;
        s->stats->length_errors++;
        rescan(s, 1);
    }
}

#endif

/* ---- the Stream parser ----------------------------------------------------------- */

static int stream_size(const uint8_t *p, size_t n, uint8_t opt)
{
    (void)opt;
    if (p[0] != BW_CREATE_STREAM_HEADER)
        return NOT_START;
    if (n < 2)
        return 0;
    return p[1] < BW_CREATE_MIN_STREAM_BODY ? BW_ELENGTH : (int)p[1] + 3;
}

/* The body must be known packets ending exactly at the checksum: with a
 * one-byte header and an 8-bit sum, this is what keeps a false 19 in the
 * data from passing as a frame one time in 256. */
static int stream_check(const uint8_t *p, size_t size, uint8_t opt)
{
    size_t from = sum_from(opt);
    if (sum8(p + from, size - from) != 0)
        return BW_ECHECKSUM;
    const uint8_t *body = p + 2;
    size_t len = size - 3, off = 0;
    while (off < len) {
        int psize = bw_create_packet_size(body[off]);
        if (psize < 0)
            return BW_EUNKNOWN;
        off += 1 + (size_t)psize;
    }
    return off == len ? 0 : BW_ELENGTH;
}

static const scan_ops_t stream_ops = {
    .size = stream_size,
    .check = stream_check,
    .start_byte = BW_CREATE_STREAM_HEADER,
    .count_unknown_starts = false,
};

static scanner_t stream_scanner(bw_create_stream_parser_t *p)
{
    scanner_t s = { &stream_ops, p->sum, &p->stats, &p->held, &p->drop, p->buf, sizeof p->buf, NULL };
    return s;
}

void bw_create_stream_parser_init(bw_create_stream_parser_t *p, bw_create_sum_t sum)
{
    memset(&p->stats, 0, sizeof p->stats);
    p->held = 0;
    p->drop = 0;
    p->sum = (uint8_t)sum;
}

static int body_of(int rc, const uint8_t *m, size_t size, bw_create_stream_frame_t *frame)
{
    if (rc == 1) {
        frame->body = m + 2;
        frame->len = (uint8_t)(size - 3);
    }
    return rc;
}

int bw_create_stream_parse(bw_create_stream_parser_t *p, const uint8_t **data, size_t *len,
                           bw_create_stream_frame_t *frame)
{
    scanner_t s = stream_scanner(p);
    const uint8_t *m = NULL;
    size_t size = 0;
    int rc = scan_parse(&s, data, len, &m, &size);
    return body_of(rc, m, size, frame);
}

int bw_create_stream_parser_finish(bw_create_stream_parser_t *p, bw_create_stream_frame_t *frame)
{
    scanner_t s = stream_scanner(p);
    const uint8_t *m = NULL;
    size_t size = 0;
    int rc = scan_finish(&s, &m, &size);
    return body_of(rc, m, size, frame);
}

/* ---- commands ------------------------------------------------------------------------ */

#define OFF(member) ((uint16_t)offsetof(bw_create_cmd_t, u.member))
#define FIELD(name, type, member) { BW_NAME(name), type, 1, OFF(member) }
#define DESC(name, fields, len) \
    { BW_NAME(name), fields, (uint8_t)(sizeof fields / sizeof fields[0]), len, BW_ORDER_BE }
#define NODATA(name) { BW_NAME(name), BW_ROM_NULL, 0, 0, BW_ORDER_BE }

static const BW_ROM bw_field_t f_baud[] = { FIELD("code", BW_FT_U8, baud) };
static const BW_ROM bw_field_t f_demo[] = { FIELD("demo", BW_FT_I8, demo) };
static const BW_ROM bw_field_t f_drive[] = {
    FIELD("velocity", BW_FT_I16, drive.velocity),
    FIELD("radius", BW_FT_I16, drive.radius),
};
static const BW_ROM bw_field_t f_lsd[] = { FIELD("bits", BW_FT_U8, low_side_drivers) };
static const BW_ROM bw_field_t f_leds[] = {
    FIELD("bits", BW_FT_U8, leds.bits),
    FIELD("color", BW_FT_U8, leds.color),
    FIELD("intensity", BW_FT_U8, leds.intensity),
};
static const BW_ROM bw_field_t f_play[] = { FIELD("song", BW_FT_U8, play) };
static const BW_ROM bw_field_t f_sensors[] = { FIELD("packet_id", BW_FT_U8, sensors) };
static const BW_ROM bw_field_t f_pwm[] = {
    FIELD("lsd2", BW_FT_U8, pwm_low_side_drivers.lsd2),
    FIELD("lsd1", BW_FT_U8, pwm_low_side_drivers.lsd1),
    FIELD("lsd0", BW_FT_U8, pwm_low_side_drivers.lsd0),
};
static const BW_ROM bw_field_t f_drive_direct[] = {
    FIELD("right_velocity", BW_FT_I16, drive_direct.right), /* the OI manual's names */
    FIELD("left_velocity", BW_FT_I16, drive_direct.left),
};
static const BW_ROM bw_field_t f_outputs[] = { FIELD("bits", BW_FT_U8, digital_outputs) };
static const BW_ROM bw_field_t f_pause[] = { FIELD("resume", BW_FT_U8, pause_resume_stream) };
static const BW_ROM bw_field_t f_send_ir[] = { FIELD("byte", BW_FT_U8, send_ir) };
static const BW_ROM bw_field_t f_wait_time[] = { FIELD("time", BW_FT_U8, wait_time) };
static const BW_ROM bw_field_t f_wait_distance[] = { FIELD("distance", BW_FT_I16, wait_distance) };
static const BW_ROM bw_field_t f_wait_angle[] = { FIELD("angle", BW_FT_I16, wait_angle) };
static const BW_ROM bw_field_t f_wait_event[] = { FIELD("event", BW_FT_I8, wait_event) };

/* Every Create 1 opcode, in number order: F(op, name, fields, data bytes)
 * for a fixed layout with data, B(op, name) for one without, V(op, name,
 * kind) for the variable ones, which are coded by hand. */
enum { VAR_SONG = 0xF0, VAR_LIST = 0xF1, VAR_SCRIPT = 0xF2 };
#define CREATE_OPS(F, B, V)                                                 \
    B(BW_CREATE_OP_START, "start")                                          \
    F(BW_CREATE_OP_BAUD, "baud", f_baud, 1)                                 \
    B(BW_CREATE_OP_CONTROL, "control")                                      \
    B(BW_CREATE_OP_SAFE, "safe")                                            \
    B(BW_CREATE_OP_FULL, "full")                                            \
    B(BW_CREATE_OP_SPOT, "spot")                                            \
    B(BW_CREATE_OP_COVER, "cover")                                          \
    F(BW_CREATE_OP_DEMO, "demo", f_demo, 1)                                 \
    F(BW_CREATE_OP_DRIVE, "drive", f_drive, 4)                              \
    F(BW_CREATE_OP_LOW_SIDE_DRIVERS, "low_side_drivers", f_lsd, 1)          \
    F(BW_CREATE_OP_LEDS, "leds", f_leds, 3)                                 \
    V(BW_CREATE_OP_SONG, "song", VAR_SONG)                                  \
    F(BW_CREATE_OP_PLAY, "play", f_play, 1)                                 \
    F(BW_CREATE_OP_SENSORS, "sensors", f_sensors, 1)                        \
    B(BW_CREATE_OP_COVER_AND_DOCK, "cover_and_dock")                        \
    F(BW_CREATE_OP_PWM_LOW_SIDE_DRIVERS, "pwm_low_side_drivers", f_pwm, 3)  \
    F(BW_CREATE_OP_DRIVE_DIRECT, "drive_direct", f_drive_direct, 4)         \
    F(BW_CREATE_OP_DIGITAL_OUTPUTS, "digital_outputs", f_outputs, 1)        \
    V(BW_CREATE_OP_STREAM, "stream", VAR_LIST)                              \
    V(BW_CREATE_OP_QUERY_LIST, "query_list", VAR_LIST)                      \
    F(BW_CREATE_OP_PAUSE_RESUME_STREAM, "pause_resume_stream", f_pause, 1)  \
    F(BW_CREATE_OP_SEND_IR, "send_ir", f_send_ir, 1)                        \
    V(BW_CREATE_OP_SCRIPT, "script", VAR_SCRIPT)                            \
    B(BW_CREATE_OP_PLAY_SCRIPT, "play_script")                              \
    B(BW_CREATE_OP_SHOW_SCRIPT, "show_script")                              \
    F(BW_CREATE_OP_WAIT_TIME, "wait_time", f_wait_time, 1)                  \
    F(BW_CREATE_OP_WAIT_DISTANCE, "wait_distance", f_wait_distance, 2)      \
    F(BW_CREATE_OP_WAIT_ANGLE, "wait_angle", f_wait_angle, 2)               \
    F(BW_CREATE_OP_WAIT_EVENT, "wait_event", f_wait_event, 1)

#define OP_FIRST BW_CREATE_OP_START
#define OP_LAST BW_CREATE_OP_WAIT_EVENT
#define NFIELDS(fields) ((uint8_t)(sizeof fields / sizeof fields[0]))

/* What the codec needs of an opcode, indexed by opcode - 128: its size in
 * bytes (1 + data) or its VAR_* kind, 0 for no Create 1 opcode, and the
 * fields of a fixed layout. Four bytes an opcode, where the catalogue
 * below spends ten: a firmware links only this one. */
typedef struct {
    uint8_t size;
    uint8_t nfields;
    const BW_ROM bw_field_t *fields;
} op_code_t;

#define CODE_F(op, name, f, len) [(op) - OP_FIRST] = { 1 + (len), NFIELDS(f), f },
#define CODE_B(op, name) [(op) - OP_FIRST] = { 1, 0, BW_ROM_NULL },
#define CODE_V(op, name, kind) [(op) - OP_FIRST] = { kind, 0, BW_ROM_NULL },

static const BW_ROM op_code_t op_code[OP_LAST - OP_FIRST + 1] = {
    CREATE_OPS(CODE_F, CODE_B, CODE_V)
};

/* The codec's entry of an opcode, or NULL for no Create 1 opcode. */
static const BW_ROM op_code_t *op_info(uint8_t op)
{
    if (op < OP_FIRST || op > OP_LAST || !op_code[op - OP_FIRST].size)
        return BW_ROM_NULL;
    return &op_code[op - OP_FIRST];
}

/* The catalogue: each opcode's name and field table, for tools. */
typedef struct {
#ifndef BW_NO_NAMES
    const char *name;
#endif
    bw_msgdesc_t desc;
} op_name_t;

#ifdef BW_NO_NAMES
#define OP_NAME(name)
#define NAME_OF(i) ""
#else
#define OP_NAME(name) name,
#define NAME_OF(i) ((i)->name)
#endif
#define NAME_F(op, name, f, len) [(op) - OP_FIRST] = { OP_NAME(name) DESC(name, f, len) },
#define NAME_B(op, name) [(op) - OP_FIRST] = { OP_NAME(name) NODATA(name) },
#define NAME_V(op, name, kind) [(op) - OP_FIRST] = { OP_NAME(name) NODATA(name) },

static const BW_ROM op_name_t op_names[OP_LAST - OP_FIRST + 1] = {
    CREATE_OPS(NAME_F, NAME_B, NAME_V)
};

const char *bw_create_op_name(uint8_t op)
{
    return op_info(op) ? NAME_OF(&op_names[op - OP_FIRST]) : NULL;
}

int bw_create_op_from_name(const char *name)
{
    for (unsigned op = OP_FIRST; op <= OP_LAST; op++)
        if (op_info((uint8_t)op) && name_eq(NAME_OF(&op_names[op - OP_FIRST]), name))
            return (int)op;
    return BW_EUNKNOWN;
}

int bw_create_op_at(unsigned i)
{
    for (unsigned op = OP_FIRST; op <= OP_LAST; op++)
        if (op_info((uint8_t)op) && i-- == 0)
            return (int)op;
    return -1;
}

const BW_ROM bw_msgdesc_t *bw_create_cmd_desc(uint8_t op)
{
    const BW_ROM op_code_t *i = op_info(op);
    return i && i->size < VAR_SONG ? &op_names[op - OP_FIRST].desc : BW_ROM_NULL;
}

static int cmd_size(const uint8_t *p, size_t n, uint8_t opt)
{
    (void)opt;
    const BW_ROM op_code_t *i = op_info(p[0]);
    if (!i)
        return NOT_START;
    switch (i->size) {
    case VAR_SONG:
        if (n < 3)
            return 0;
        return p[2] < 1 || p[2] > BW_CREATE_MAX_SONG ? BW_ELENGTH : 3 + 2 * (int)p[2];
    case VAR_LIST:
        if (n < 2)
            return 0;
        return p[1] > BW_CREATE_MAX_PACKETS ? BW_ELENGTH : 2 + (int)p[1];
    case VAR_SCRIPT:
        if (n < 2)
            return 0;
        return p[1] < 1 || p[1] > BW_CREATE_MAX_SCRIPT ? BW_ELENGTH : 2 + (int)p[1];
    default: return i->size;
    }
}

static int cmd_check(const uint8_t *p, size_t size, uint8_t opt)
{
    (void)p, (void)size, (void)opt;
    return 0;
}

static const scan_ops_t cmd_ops = {
    .size = cmd_size,
    .check = cmd_check,
    .start_byte = -1,
    .count_unknown_starts = true,
};

static scanner_t cmd_scanner(bw_create_cmd_parser_t *p)
{
    scanner_t s = { &cmd_ops, 0, &p->stats, &p->held, &p->drop, p->buf, sizeof p->buf, p->tally };
    return s;
}

void bw_create_cmd_parser_init(bw_create_cmd_parser_t *p)
{
    memset(&p->stats, 0, sizeof p->stats);
    p->held = 0;
    p->drop = 0;
    p->tally = NULL;
}

void bw_create_cmd_parser_tally(bw_create_cmd_parser_t *p, uint32_t *by_byte)
{
    p->tally = by_byte;
}

static int cmd_of(int rc, const uint8_t *m, size_t size, bw_create_cmd_frame_t *cmd)
{
    if (rc > 0) {
        cmd->bytes = m;
        cmd->len = (uint8_t)size;
    }
    return rc;
}

int bw_create_cmd_parse(bw_create_cmd_parser_t *p, const uint8_t **data, size_t *len,
                        bw_create_cmd_frame_t *cmd)
{
    scanner_t s = cmd_scanner(p);
    const uint8_t *m = NULL;
    size_t size = 0;
    int rc = scan_parse(&s, data, len, &m, &size);
    return cmd_of(rc, m, size, cmd);
}

int bw_create_cmd_parser_finish(bw_create_cmd_parser_t *p, bw_create_cmd_frame_t *cmd)
{
    scanner_t s = cmd_scanner(p);
    const uint8_t *m = NULL;
    size_t size = 0;
    int rc = scan_finish(&s, &m, &size);
    return cmd_of(rc, m, size, cmd);
}

void bw_create_cmd_init(bw_create_cmd_t *cmd, uint8_t op)
{
    memset(cmd, 0, sizeof *cmd);
    cmd->opcode = op;
}

int bw_create_decode_cmd(const uint8_t *b, size_t len, bw_create_cmd_t *cmd)
{
    memset(cmd, 0, sizeof *cmd);
    if (len == 0)
        return BW_ELENGTH;
    cmd->opcode = b[0];
    int size = cmd_size(b, len, 0);
    if (size == NOT_START)
        return BW_EUNKNOWN;
    if (size <= 0 || (size_t)size != len)
        return BW_ELENGTH;
    const BW_ROM op_code_t *i = op_info(b[0]);
    switch (i->size) {
    case VAR_SONG:
        cmd->u.song.number = b[1];
        cmd->u.song.length = b[2];
        for (size_t k = 0; k < b[2]; k++) {
            cmd->u.song.notes[k].note = b[3 + 2 * k];
            cmd->u.song.notes[k].duration = b[4 + 2 * k];
        }
        break;
    case VAR_LIST:
        cmd->u.packets.n = b[1];
        memcpy(cmd->u.packets.ids, b + 2, b[1]);
        break;
    case VAR_SCRIPT:
        cmd->u.script.length = b[1];
        memcpy(cmd->u.script.bytes, b + 2, b[1]);
        break;
    default: bw_fields_decode(i->fields, i->nfields, BW_ORDER_BE, b + 1, cmd); break;
    }
    return 0;
}

int bw_create_encode_cmd(uint8_t *buf, size_t cap, const bw_create_cmd_t *cmd)
{
    const BW_ROM op_code_t *i = op_info(cmd->opcode);
    if (!i)
        return BW_EUNKNOWN;
    size_t size;
    switch (i->size) {
    case VAR_SONG:
        if (cmd->u.song.length < 1 || cmd->u.song.length > BW_CREATE_MAX_SONG)
            return BW_ERANGE;
        size = 3u + 2u * cmd->u.song.length;
        break;
    case VAR_LIST:
        if (cmd->u.packets.n > BW_CREATE_MAX_PACKETS)
            return BW_ERANGE;
        size = 2u + cmd->u.packets.n;
        break;
    case VAR_SCRIPT:
        if (cmd->u.script.length < 1 || cmd->u.script.length > BW_CREATE_MAX_SCRIPT)
            return BW_ERANGE;
        size = 2u + cmd->u.script.length;
        break;
    default: size = i->size; break;
    }
    if (size > cap)
        return BW_ENOSPC;
    buf[0] = cmd->opcode;
    switch (i->size) {
    case VAR_SONG:
        buf[1] = cmd->u.song.number;
        buf[2] = cmd->u.song.length;
        for (size_t k = 0; k < cmd->u.song.length; k++) {
            buf[3 + 2 * k] = cmd->u.song.notes[k].note;
            buf[4 + 2 * k] = cmd->u.song.notes[k].duration;
        }
        break;
    case VAR_LIST:
        buf[1] = cmd->u.packets.n;
        memcpy(buf + 2, cmd->u.packets.ids, cmd->u.packets.n);
        break;
    case VAR_SCRIPT:
        buf[1] = cmd->u.script.length;
        memcpy(buf + 2, cmd->u.script.bytes, cmd->u.script.length);
        break;
    default: bw_fields_encode(i->fields, i->nfields, BW_ORDER_BE, cmd, buf + 1); break;
    }
    return (int)size;
}

/* Written by hand, not through the op tables: on an AVR a const table is copied
 * to RAM, and the Command Module has 1 KB of it. A test checks these
 * against the table. */
static int put_op_words(uint8_t *buf, size_t cap, uint8_t op, int16_t a, int16_t b)
{
    if (cap < 5)
        return BW_ENOSPC;
    buf[0] = op;
    bw_put_be16(buf + 1, (uint16_t)a);
    bw_put_be16(buf + 3, (uint16_t)b);
    return 5;
}

int bw_create_encode_drive(uint8_t *buf, size_t cap, int16_t velocity, int16_t radius)
{
    return put_op_words(buf, cap, BW_CREATE_OP_DRIVE, velocity, radius);
}

int bw_create_encode_drive_direct(uint8_t *buf, size_t cap, int16_t right, int16_t left)
{
    return put_op_words(buf, cap, BW_CREATE_OP_DRIVE_DIRECT, right, left);
}

/* ---- baud codes ------------------------------------------------------------------ */

static const BW_ROM uint32_t baud_rates[] = { 300,   600,   1200,  2400,  4800,  9600,
                                       14400, 19200, 28800, 38400, 57600, 115200 };
#define NBAUD (sizeof baud_rates / sizeof baud_rates[0])

uint32_t bw_create_baud_rate(uint8_t code) { return code < NBAUD ? baud_rates[code] : 0; }

int bw_create_baud_code(uint32_t rate)
{
    for (size_t i = 0; i < NBAUD; i++)
        if (baud_rates[i] == rate)
            return (int)i;
    return BW_EINVAL;
}
