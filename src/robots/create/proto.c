/* iRobot Create OI codec: commands, sensor packets, Stream frames. */
#include "botwire/create.h"

#include <string.h>

/* ---- sensor packets ---------------------------------------------------------- */

#define FIRST_VALUE 7u /* packets 7..42 (a Create 2: 7..58) are single values */
#define NVALUES (BW_CREATE_LAST_PACKET - FIRST_VALUE + 1u)
#define NVALUES2 (BW_CREATE2_LAST_VALUE - FIRST_VALUE + 1u)
#define WIRE_SIZE(type) ((type) == BW_FT_U16 || (type) == BW_FT_I16 ? 2u : 1u)
#define MODEL2(m) ((m) == BW_CREATE_MODEL_2)

#define PKT_FIELD(id, name, type) \
    [(id) - FIRST_VALUE] = { BW_NAME(#name), type, 1, (uint16_t)offsetof(bw_create_sensors_t, name) },
#define PKT_PAD(id) [(id) - FIRST_VALUE] = { BW_NAME("unused"), BW_FT_PAD, 1, 0 },
/* The Create 2's byte 15 is its Dirt Detect, 16 stays unused: picked by
 * the name the list gives the unused byte. */
#define PKT_PAD2(id) PAD2_##id
#define PAD2_BW_CREATE_PKT_UNUSED_15 PKT_FIELD(BW_CREATE_PKT_DIRT_DETECT, dirt_detect, BW_FT_U8)
#define PAD2_BW_CREATE_PKT_UNUSED_16 PKT_PAD(BW_CREATE_PKT_UNUSED_16)

/* Every single-value packet in id order: a group is a run of this table. */
static const BW_ROM bw_field_t f_values[NVALUES] = { BW_CREATE_SENSOR_LIST(PKT_FIELD, PKT_PAD) };
static const BW_ROM bw_field_t f_values2[NVALUES2] = {
    BW_CREATE_SENSOR_LIST(PKT_FIELD, PKT_PAD2) BW_CREATE2_SENSOR_LIST(PKT_FIELD)
};

#define PKT_DESC(id, name, type) \
    [id] = { BW_NAME(#name), &f_values[(id) - FIRST_VALUE], 1, WIRE_SIZE(type), BW_ORDER_BE },
#define PKT_PAD_DESC(id) [id] = { BW_NAME("unused"), &f_values[(id) - FIRST_VALUE], 1, 1, BW_ORDER_BE },
#define GROUP(g, first, last, size) \
    [g] = { BW_NAME("group_" #g), &f_values[(first) - FIRST_VALUE], (last) - (first) + 1, size, BW_ORDER_BE },
#define PKT_DESC2(id, name, type) \
    [id] = { BW_NAME(#name), &f_values2[(id) - FIRST_VALUE], 1, WIRE_SIZE(type), BW_ORDER_BE },
#define PKT_PAD_DESC2(id) PAD_DESC2_##id
#define PAD_DESC2_BW_CREATE_PKT_UNUSED_15 PKT_DESC2(BW_CREATE_PKT_DIRT_DETECT, dirt_detect, BW_FT_U8)
#define PAD_DESC2_BW_CREATE_PKT_UNUSED_16 \
    [BW_CREATE_PKT_UNUSED_16] = { BW_NAME("unused"), &f_values2[16 - FIRST_VALUE], 1, 1, BW_ORDER_BE },
#define GROUP2(g, first, last, size) \
    [g] = { BW_NAME("group_" #g), &f_values2[(first) - FIRST_VALUE], (last) - (first) + 1, size, BW_ORDER_BE },

/* The groups: G(id, first value, last value, data bytes). */
#define CREATE_GROUPS(G) \
    G(0, 7, 26, 26) G(1, 7, 16, 10) G(2, 17, 20, 6) G(3, 21, 26, 10) G(4, 27, 34, 14) \
    G(5, 35, 42, 12) G(6, 7, 42, 52)
#define CREATE2_ONLY_GROUPS(G) \
    G(100, 7, 58, 80) G(101, 43, 58, 28) G(106, 46, 51, 12) G(107, 54, 58, 9)
#define CREATE2_GROUPS(G) CREATE_GROUPS(G) CREATE2_ONLY_GROUPS(G)

/* The catalogues of packets, for tools. */
static const BW_ROM bw_msgdesc_t d_packets[BW_CREATE_LAST_PACKET + 1] = {
    CREATE_GROUPS(GROUP)
    BW_CREATE_SENSOR_LIST(PKT_DESC, PKT_PAD_DESC)
};
static const BW_ROM bw_msgdesc_t d_packets2[BW_CREATE2_LAST_PACKET + 1] = {
    CREATE2_GROUPS(GROUP2)
    BW_CREATE_SENSOR_LIST(PKT_DESC2, PKT_PAD_DESC2)
    BW_CREATE2_SENSOR_LIST(PKT_DESC2)
};

/* What the codec codes packets with (a firmware links these, not the
 * catalogue, ten times their size): each packet's data bytes (0: no such
 * packet of a Create 2), and each group's run of values. */
#define SIZE_G(g, first, last, size) [g] = size,
#define SIZE_F(id, name, type) [id] = WIRE_SIZE(type),
#define SIZE_P(id) [id] = 1,
static const BW_ROM uint8_t packet_sizes[BW_CREATE_LAST_PACKET + 1] = {
    CREATE_GROUPS(SIZE_G)
    BW_CREATE_SENSOR_LIST(SIZE_F, SIZE_P)
};
static const BW_ROM uint8_t packet_sizes2[BW_CREATE2_LAST_PACKET + 1] = {
    CREATE2_GROUPS(SIZE_G)
    BW_CREATE_SENSOR_LIST(SIZE_F, SIZE_P)
    BW_CREATE2_SENSOR_LIST(SIZE_F)
};

/* What the codec needs of a model's packets. A Create 1's functions reach
 * only pkt1: a firmware for it links none of a Create 2's tables. */
typedef struct {
    const BW_ROM uint8_t *sizes; /* data bytes by id; 0: no such packet */
    uint8_t last;                /* the highest id */
    uint8_t model;
#if BW_SMALL
    const BW_ROM bw_field_t *values; /* from packet 7 on */
#endif
} pkt_model_t;

#if BW_SMALL
#define PKT_VALUES(v) , v
#else
#define PKT_VALUES(v)
#endif
static const BW_ROM pkt_model_t pkt1 = { packet_sizes, BW_CREATE_LAST_PACKET,
                                         BW_CREATE_MODEL_1 PKT_VALUES(f_values) };
static const BW_ROM pkt_model_t pkt2 = { packet_sizes2, BW_CREATE2_LAST_PACKET,
                                         BW_CREATE_MODEL_2 PKT_VALUES(f_values2) };

/* A Stream parser not told its model: either model's packets (a Create
 * 2's are the Create 1's and more, of the same sizes). */
#define MODEL_ANY 2u
#if BW_BOTH_SIDES
#define STREAM_DEFAULT MODEL_ANY
#else
#define STREAM_DEFAULT BW_CREATE_MODEL_1 /* a firmware links a Create 1's tables only */
#endif

static const BW_ROM pkt_model_t *pkts(uint8_t model)
{
    return MODEL2(model) || model == MODEL_ANY ? &pkt2 : &pkt1;
}

/* Data bytes of a model's packet, or BW_EUNKNOWN. */
static int size_in(const BW_ROM pkt_model_t *pm, uint8_t id)
{
    return id <= pm->last && pm->sizes[id] ? pm->sizes[id] : BW_EUNKNOWN;
}

static int size_of(uint8_t model, uint8_t id) { return size_in(pkts(model), id); }

#if BW_SMALL
#define RUN_G(g, first, last, size) { (first) - FIRST_VALUE, (last) - (first) + 1 },
/* Groups 0..6 then (a Create 2's) 100, 101, 106, 107: where their runs
 * start in the values and how many they hold. */
static const BW_ROM uint8_t group_runs[FIRST_VALUE + 4][2] = { CREATE2_GROUPS(RUN_G) };

/* The values packet id (known to the model) carries: *n of them from the
 * one returned. */
static const BW_ROM bw_field_t *packet_values(const BW_ROM pkt_model_t *pm, uint8_t id, size_t *n)
{
    if (id >= FIRST_VALUE && id <= BW_CREATE2_LAST_VALUE) {
        *n = 1;
        return &pm->values[id - FIRST_VALUE];
    }
    size_t g = id < FIRST_VALUE ? id : id == 100 ? 7 : id == 101 ? 8 : id == 106 ? 9 : 10;
    *n = group_runs[g][1];
    return &pm->values[group_runs[g][0]];
}
#endif

static void decode_values(const BW_ROM pkt_model_t *pm, uint8_t id, const uint8_t *data,
                          bw_create_sensors_t *s)
{
#if BW_SMALL
    size_t n;
    const BW_ROM bw_field_t *f = packet_values(pm, id, &n);
    bw_fields_decode(f, n, BW_ORDER_BE, data, s);
#else
    /* Each packet and group by code of its own, which the compiler makes
     * from its run of the table: a Stream frame's packets are decoded here. */
#define DECODE_G(tbl, g, first, last)                                                 \
    case g:                                                                           \
        bw_fields_decode_inline(&tbl[(first) - FIRST_VALUE], (last) - (first) + 1u,  \
                                BW_ORDER_BE, data, s);                                \
        break;
#define DECODE_G1(g, first, last, size) DECODE_G(f_values, g, first, last)
#define DECODE_G2(g, first, last, size) DECODE_G(f_values2, g, first, last)
#define DECODE_F1(id, name, type) DECODE_G(f_values, id, id, id)
#define DECODE_F2(id, name, type) DECODE_G(f_values2, id, id, id)
#define DECODE_P(id)
#define DECODE_P2(id) DECODE_P2_##id
#define DECODE_P2_BW_CREATE_PKT_UNUSED_15 DECODE_F2(BW_CREATE_PKT_DIRT_DETECT, dirt_detect, BW_FT_U8)
#define DECODE_P2_BW_CREATE_PKT_UNUSED_16
    if (MODEL2(pm->model)) {
        switch (id) {
            CREATE2_GROUPS(DECODE_G2)
            BW_CREATE_SENSOR_LIST(DECODE_F2, DECODE_P2)
            BW_CREATE2_SENSOR_LIST(DECODE_F2)
        default: break;
        }
        return;
    }
    switch (id) {
        CREATE_GROUPS(DECODE_G1)
        BW_CREATE_SENSOR_LIST(DECODE_F1, DECODE_P)
    default: break;
    }
#endif
}

static void encode_values(const BW_ROM pkt_model_t *pm, uint8_t id, const bw_create_sensors_t *s,
                          uint8_t *data)
{
#if BW_SMALL
    size_t n;
    const BW_ROM bw_field_t *f = packet_values(pm, id, &n);
    bw_fields_encode(f, n, BW_ORDER_BE, s, data);
#else
    /* As decoding: each packet and group by code of its own. */
#define ENCODE_G(tbl, g, first, last)                                                 \
    case g:                                                                           \
        bw_fields_encode_inline(&tbl[(first) - FIRST_VALUE], (last) - (first) + 1u,  \
                                BW_ORDER_BE, s, data);                                \
        break;
#define ENCODE_G1(g, first, last, size) ENCODE_G(f_values, g, first, last)
#define ENCODE_G2(g, first, last, size) ENCODE_G(f_values2, g, first, last)
#define ENCODE_F1(id, name, type) ENCODE_G(f_values, id, id, id)
#define ENCODE_F2(id, name, type) ENCODE_G(f_values2, id, id, id)
#define ENCODE_P1(id) ENCODE_F1(id, unused, BW_FT_PAD)
#define ENCODE_P2(id) ENCODE_F2(id, unused, BW_FT_PAD)
    if (MODEL2(pm->model)) {
        switch (id) {
            CREATE2_GROUPS(ENCODE_G2)
            BW_CREATE_SENSOR_LIST(ENCODE_F2, ENCODE_P2)
            BW_CREATE2_SENSOR_LIST(ENCODE_F2)
        default: break;
        }
        return;
    }
    switch (id) {
        CREATE_GROUPS(ENCODE_G1)
        BW_CREATE_SENSOR_LIST(ENCODE_F1, ENCODE_P1)
    default: break;
    }
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

const BW_ROM bw_msgdesc_t *bw_create_model_packet_desc(bw_create_model_t m, uint8_t id)
{
    if (size_of((uint8_t)m, id) < 0)
        return BW_ROM_NULL;
    return MODEL2(m) ? &d_packets2[id] : &d_packets[id];
}

const BW_ROM bw_msgdesc_t *bw_create_packet_desc(uint8_t id)
{
    return bw_create_model_packet_desc(BW_CREATE_MODEL_1, id);
}

const char *bw_create_model_packet_name(bw_create_model_t m, uint8_t id)
{
    const BW_ROM bw_msgdesc_t *d = bw_create_model_packet_desc(m, id);
    return d ? d->name : NULL;
}

const char *bw_create_packet_name(uint8_t id)
{
    return bw_create_model_packet_name(BW_CREATE_MODEL_1, id);
}

int bw_create_model_packet_id(bw_create_model_t m, const char *name)
{
    for (unsigned id = 0; id <= BW_CREATE2_LAST_PACKET; id++) {
        const BW_ROM bw_msgdesc_t *d = bw_create_model_packet_desc(m, (uint8_t)id);
        /* "unused" names two packets, so it names none. */
        if (!d || (d->nfields == 1 && d->fields[0].type == BW_FT_PAD))
            continue;
        if (name_eq(d->name, name))
            return (int)id;
    }
    return BW_EUNKNOWN;
}

int bw_create_packet_id(const char *name) { return bw_create_model_packet_id(BW_CREATE_MODEL_1, name); }

int bw_create_model_packet_size(bw_create_model_t m, uint8_t id) { return size_of((uint8_t)m, id); }

int bw_create_packet_size(uint8_t id) { return size_in(&pkt1, id); }

static int decode_packet_in(const BW_ROM pkt_model_t *pm, uint8_t id, const uint8_t *data,
                            size_t len, bw_create_sensors_t *s)
{
    int size = size_in(pm, id);
    if (size < 0)
        return size;
    if (len != (size_t)size)
        return BW_ELENGTH;
    decode_values(pm, id, data, s);
    return 0;
}

int bw_create_model_decode_packet(bw_create_model_t m, uint8_t id, const uint8_t *data, size_t len,
                                  bw_create_sensors_t *s)
{
    return decode_packet_in(pkts((uint8_t)m), id, data, len, s);
}

int bw_create_decode_packet(uint8_t id, const uint8_t *data, size_t len, bw_create_sensors_t *s)
{
    return decode_packet_in(&pkt1, id, data, len, s);
}

static int encode_packet_in(const BW_ROM pkt_model_t *pm, uint8_t *buf, size_t cap, uint8_t id,
                            const bw_create_sensors_t *s)
{
    int size = size_in(pm, id);
    if (size < 0)
        return size;
    if (cap < (size_t)size)
        return BW_ENOSPC;
    encode_values(pm, id, s, buf);
    return size;
}

int bw_create_model_encode_packet(bw_create_model_t m, uint8_t *buf, size_t cap, uint8_t id,
                                  const bw_create_sensors_t *s)
{
    return encode_packet_in(pkts((uint8_t)m), buf, cap, id, s);
}

int bw_create_encode_packet(uint8_t *buf, size_t cap, uint8_t id, const bw_create_sensors_t *s)
{
    return encode_packet_in(&pkt1, buf, cap, id, s);
}

static int query_size_in(const BW_ROM pkt_model_t *pm, const uint8_t *ids, size_t n)
{
    int total = 0;
    for (size_t i = 0; i < n; i++) {
        int size = size_in(pm, ids[i]);
        if (size < 0)
            return size;
        /* 255 ids of 80 bytes still fit a 16-bit int. */
        if (total > 0x7FFF - size)
            return BW_ERANGE;
        total += size;
    }
    return total;
}

int bw_create_model_query_size(bw_create_model_t m, const uint8_t *ids, size_t n)
{
    return query_size_in(pkts((uint8_t)m), ids, n);
}

int bw_create_query_size(const uint8_t *ids, size_t n) { return query_size_in(&pkt1, ids, n); }

static int decode_query_in(const BW_ROM pkt_model_t *pm, const uint8_t *ids, size_t n,
                           const uint8_t *data, size_t len, bw_create_sensors_t *s)
{
    int total = query_size_in(pm, ids, n);
    if (total < 0)
        return total;
    if ((size_t)total != len)
        return BW_ELENGTH;
    for (size_t i = 0; i < n; i++) {
        decode_values(pm, ids[i], data, s);
        data += size_in(pm, ids[i]);
    }
    return 0;
}

int bw_create_model_decode_query(bw_create_model_t m, const uint8_t *ids, size_t n,
                                 const uint8_t *data, size_t len, bw_create_sensors_t *s)
{
    return decode_query_in(pkts((uint8_t)m), ids, n, data, len, s);
}

int bw_create_decode_query(const uint8_t *ids, size_t n, const uint8_t *data, size_t len,
                           bw_create_sensors_t *s)
{
    return decode_query_in(&pkt1, ids, n, data, len, s);
}

static int encode_query_in(const BW_ROM pkt_model_t *pm, uint8_t *buf, size_t cap,
                           const uint8_t *ids, size_t n, const bw_create_sensors_t *s)
{
    int total = query_size_in(pm, ids, n);
    if (total < 0)
        return total;
    if ((size_t)total > cap)
        return BW_ENOSPC;
    for (size_t i = 0; i < n; i++) {
        encode_values(pm, ids[i], s, buf);
        buf += size_in(pm, ids[i]);
    }
    return total;
}

int bw_create_model_encode_query(bw_create_model_t m, uint8_t *buf, size_t cap, const uint8_t *ids,
                                 size_t n, const bw_create_sensors_t *s)
{
    return encode_query_in(pkts((uint8_t)m), buf, cap, ids, n, s);
}

int bw_create_encode_query(uint8_t *buf, size_t cap, const uint8_t *ids, size_t n,
                           const bw_create_sensors_t *s)
{
    return encode_query_in(&pkt1, buf, cap, ids, n, s);
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

static int encode_stream_in(const BW_ROM pkt_model_t *pm, uint8_t *buf, size_t cap,
                            const uint8_t *ids, size_t n, const bw_create_sensors_t *s,
                            bw_create_sum_t sum)
{
    int data = query_size_in(pm, ids, n);
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
        encode_values(pm, ids[i], s, w);
        w += size_in(pm, ids[i]);
    }
    return close_stream(buf, len, (uint8_t)sum);
}

int bw_create_model_encode_stream(bw_create_model_t m, uint8_t *buf, size_t cap, const uint8_t *ids,
                                  size_t n, const bw_create_sensors_t *s, bw_create_sum_t sum)
{
    return encode_stream_in(pkts((uint8_t)m), buf, cap, ids, n, s, sum);
}

int bw_create_encode_stream(uint8_t *buf, size_t cap, const uint8_t *ids, size_t n,
                            const bw_create_sensors_t *s, bw_create_sum_t sum)
{
    return encode_stream_in(&pkt1, buf, cap, ids, n, s, sum);
}

#if !BW_SMALL
/*
 * The host's walk of a Stream frame's body, which libcreate fills with 20
 * packets of one or two bytes: returns the number of packets, or BW_EUNKNOWN
 * (an id the model does not have) or BW_ETRUNC (a packet past the end) for
 * the first packet that is either; with decode, decodes each packet into
 * *s as it goes (as decode_values would; without, returns 0 for a body that
 * walks). walk2 is a Create 2's, and sets *two when a
 * packet only a Create 2 has is there.
 *
 * The trap is latency: where a packet starts hangs on the size of the one
 * before, which hangs on its id, read from the body where that one starts,
 * about 20 times a frame. Each packet is code of its own, made from the
 * packet list (its size, member and type folded in), in id order: after a
 * packet, a body whose next id is this one's plus one (libcreate's 7..15,
 * 17..26; a Create 2's 43..58) runs straight into the next packet's code,
 * its place known without a load; only a jump in the list goes through the
 * switch. A table walk by id costs ten times the instructions a packet.
 */
#define WALK_LOAD(name, type)                                                 \
    if (decode) {                                                             \
        if (WIRE_SIZE(type) == 1) {                                           \
            memcpy(&s->name, d, 1);                                           \
        } else {                                                              \
            const uint16_t v_ = bw_get_be16(d);                               \
            memcpy(&s->name, &v_, 2);                                         \
        }                                                                     \
    }
/* A packet of `size` bytes (its data at d), then the next: straight on if
 * its id follows. The end is one test: the last packet's, inside it. The
 * packets of a run are counted when it ends: it began at id `first`. */
#define WALK_STEP(id, size, what)                                             \
    case id: {                                                                \
        i += 1u + (size);                                                     \
        const uint8_t *const d = body + i - (size);                           \
        if (i >= len) {                                                       \
            if (i > len)                                                      \
                return BW_ETRUNC;                                             \
            what;                                                             \
            return decode ? n + (id) - first + 1 : 0;                         \
        }                                                                     \
        what;                                                                 \
        if (body[i] != (uint8_t)((id) + 1u)) {                                \
            n += (id) - first + 1;                                            \
            goto next;                                                        \
        }                                                                     \
    }                                                                         \
        WALK_FALLTHROUGH;
#define WALK_F(id, name, type) WALK_STEP(id, WIRE_SIZE(type), WALK_LOAD(name, type))
#define WALK_F_TWO(id, name, type) WALK_STEP(id, WIRE_SIZE(type), WALK_LOAD(name, type); *two = 1)
#define WALK_P(id) WALK_STEP(id, 1u, (void)d)
#define WALK_P2(id) WALK_P2_##id
#define WALK_P2_BW_CREATE_PKT_UNUSED_15 WALK_F(BW_CREATE_PKT_DIRT_DETECT, dirt_detect, BW_FT_U8)
#define WALK_P2_BW_CREATE_PKT_UNUSED_16 WALK_P(BW_CREATE_PKT_UNUSED_16)
/* A group: by decode_values, then the switch. */
#define WALK_GROUP(g, size, pm, mark)                                         \
    case g:                                                                   \
        if (i + (size) >= len)                                                \
            return BW_ETRUNC;                                                 \
        if (decode)                                                           \
            decode_values(pm, g, body + i + 1u, s);                           \
        mark;                                                                 \
        i += 1u + (size);                                                     \
        n++;                                                                  \
        if (i == len)                                                         \
            return decode ? n : 0;                                            \
        goto next;
#define WALK_G1(g, first, last, size) WALK_GROUP(g, size, &pkt1, (void)0)
#define WALK_G2(g, first, last, size) WALK_GROUP(g, size, &pkt2, (void)0)
#define WALK_G2_TWO(g, first, last, size) WALK_GROUP(g, size, &pkt2, *two = 1)
#if defined(__GNUC__)
#define WALK_FALLTHROUGH __attribute__((fallthrough))
#else
#define WALK_FALLTHROUGH
#endif

static BW_HOT_INLINE int walk1(const uint8_t *body, size_t len, bool decode,
                              bw_create_sensors_t *s)
{
    size_t i = 0;
    int n = 0, first;
    if (!len)
        return 0;
next:
    first = body[i];
    switch (body[i]) {
        CREATE_GROUPS(WALK_G1)
        BW_CREATE_SENSOR_LIST(WALK_F, WALK_P)
    default: return BW_EUNKNOWN; /* also 43, after 42 */
    }
}

static BW_HOT_INLINE int walk2(const uint8_t *body, size_t len, bool decode,
                              bw_create_sensors_t *s, uint8_t *two)
{
    size_t i = 0;
    int n = 0, first;
    if (!len)
        return 0;
next:
    first = body[i];
    switch (body[i]) {
        CREATE_GROUPS(WALK_G2)
        CREATE2_ONLY_GROUPS(WALK_G2_TWO)
        BW_CREATE_SENSOR_LIST(WALK_F, WALK_P2)
        BW_CREATE2_SENSOR_LIST(WALK_F_TWO)
    default: return BW_EUNKNOWN; /* also 59, after 58 */
    }
}

/* As walk1 or walk2 by the model (its Stream functions' pkts()). */
static BW_HOT_INLINE int walk(uint8_t model, const uint8_t *body, size_t len, bool decode,
                              bw_create_sensors_t *s, uint8_t *two)
{
    if (MODEL2(model) || model == MODEL_ANY)
        return walk2(body, len, decode, s, two);
    return walk1(body, len, decode, s);
}
#endif

int bw_create_stream_next(const bw_create_stream_frame_t *f, size_t *off, uint8_t *id,
                          const uint8_t **data)
{
    if (*off >= f->len)
        return 0;
    uint8_t pid = f->body[*off];
    int size = size_of(f->model, pid);
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
#if !BW_SMALL
    /* As the walk below (the same results, packet by packet: a test
     * compares the two on damaged bodies too). */
    uint8_t two = 0;
    return walk(f->model, f->body, f->len, true, s, &two);
#else
    size_t off = 0;
    uint8_t id;
    const uint8_t *data;
    int rc, n = 0;
    while ((rc = bw_create_stream_next(f, &off, &id, &data)) == 1) {
        decode_values(pkts(f->model), id, data, s);
        n++;
    }
    return rc < 0 ? rc : n;
#endif
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
/* FOREIGN - k: a message of k bytes that is not one, which is skipped
 * whole and counted once as unknown (another model's command). */
#define FOREIGN (-1000)
/* Whether a command parser knows the other model's opcodes, to skip their
 * data: an emulator's does, to count what it was sent; a robot's own
 * firmware (BW_DEVICE_SIDE) is one model and, as the robot does, passes
 * over the bytes it does not know one at a time (create.h). */
#define SKIP_FOREIGN BW_BOTH_SIDES

typedef struct scanner scanner_t;

typedef struct {
    /* Size of the message at p (n >= 1 bytes there): its size (may exceed
     * n), 0 when more bytes are needed to tell, NOT_START, FOREIGN - k, or
     * BW_ELENGTH. */
    int (*size)(const uint8_t *p, size_t n, uint8_t opt, const BW_ROM void *ctx);
    /* Whether a byte starts a FOREIGN message (NULL: none does): what is
     * left of one cut by the end counts as unknown, not as a length error. */
    bool (*foreign)(uint8_t b, const BW_ROM void *ctx);
    /* 0 if the whole message is good, else BW_ECHECKSUM, BW_ELENGTH or
     * BW_EUNKNOWN. */
    int (*check)(const scanner_t *s, const uint8_t *p, size_t size);
    int start_byte;            /* the one byte that starts a message, or -1 */
    bool count_unknown_starts; /* a skipped non-start byte is also "unknown" */
} scan_ops_t;

struct scanner {
    const scan_ops_t *ops;
    uint8_t opt;
    const BW_ROM void *ctx; /* the command parser's model (cmd_model_t) */
    bw_parse_stats_t *stats;
    uint16_t *held, *drop;
    uint8_t *buf;
    size_t cap;      /* bytes buf holds */
    uint32_t *tally; /* count_unknown_starts: skipped bytes by value (NULL: none) */
#if !BW_SMALL
    uint8_t *kinds; /* the Stream check's: 1 if a packet only a Create 2 has is there */
#endif
};
#if BW_SMALL
#define NO_KINDS
#else
#define NO_KINDS , NULL
#endif

/* A message skipped as unknown (counted once, by its first byte too). */
static void count_unknown(const scanner_t *s, uint8_t first)
{
    BW_COUNT(s->stats->unknown);
    if (s->tally)
        s->tally[first]++;
}

#if SKIP_FOREIGN
/* The bytes of a FOREIGN size r, or 1 (the first alone) when the scanner
 * cannot hold them all. */
static size_t foreign_len(const scanner_t *s, int r)
{
    size_t k = (size_t)(FOREIGN - r);
    return k > s->cap ? 1u : k;
}
#endif

/* What is held at the end of the input: a foreign message cut short counts
 * as unknown, anything else as a length error; its first byte goes. */
static void count_cut(const scanner_t *s)
{
#if SKIP_FOREIGN
    if (s->ops->foreign && s->ops->foreign(s->buf[0], s->ctx)) {
        count_unknown(s, s->buf[0]);
        return;
    }
#endif
    BW_COUNT(s->stats->length_errors);
}

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
            int r = s->ops->size(s->buf, held, s->opt, s->ctx);
            if (r == NOT_START) {
                BW_COUNT(s->stats->skipped_bytes);
                if (s->ops->count_unknown_starts)
                    count_unknown(s, s->buf[0]);
                shift(s, 1);
                continue;
            }
#if SKIP_FOREIGN
            if (r <= FOREIGN) {
                size_t k = foreign_len(s, r);
                if (held < k)
                    goto more;
                s->stats->skipped_bytes += k;
                count_unknown(s, s->buf[0]);
                shift(s, k);
                continue;
            }
#endif
            int err = r == BW_ELENGTH || (size_t)r > s->cap ? BW_ELENGTH : 0;
            if (!err && r > 0 && held >= (size_t)r) {
                err = s->ops->check(s, s->buf, (size_t)r);
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
#if SKIP_FOREIGN
    more:
#endif
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
        count_cut(s);
        BW_COUNT(s->stats->skipped_bytes);
        shift(s, 1);
    }
}
#else
/* The scanner's hot functions are inlined into each parser, whose ops
 * (stream_ops, cmd_ops) are then constants: the compiler calls its size
 * and check directly, or inlines them, where a call through the table cost
 * a Stream frame of libcreate's a fifth of its framing. */

/* Skips the bytes at p that cannot start a message; returns how many. */
static BW_HOT_INLINE size_t skip_non_starts(const scanner_t *s, const uint8_t *p, size_t n)
{
    size_t k = 0;
    if (n == 0 || s->ops->start_byte == p[0])
        return 0; /* as between frames that follow each other */
    if (s->ops->start_byte >= 0) {
        const uint8_t *a = memchr(p, s->ops->start_byte, n);
        k = a ? (size_t)(a - p) : n;
    } else {
        while (k < n && s->ops->size(p + k, 1, s->opt, s->ctx) == NOT_START)
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
static BW_HOT_INLINE int scan_direct(const scanner_t *s, const uint8_t **data, size_t *len,
                                     const uint8_t **msg, size_t *size)
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
        int r = s->ops->size(d, n, s->opt, s->ctx);
        if (r == NOT_START) { /* a foreign message whose count proved out of range */
            s->stats->skipped_bytes++;
            count_unknown(s, d[0]);
            d++;
            n--;
            continue;
        }
#if SKIP_FOREIGN
        if (r <= FOREIGN) {
            size_t f = foreign_len(s, r);
            if (f > n)
                break;
            s->stats->skipped_bytes += f;
            count_unknown(s, d[0]);
            d += f;
            n -= f;
            continue;
        }
#endif
        /* Cut by the end of the input and too long to hold until the rest
         * comes: refused. */
        int err = r == BW_ELENGTH || ((size_t)r > n && (size_t)r > s->cap) ? BW_ELENGTH : 0;
        if (!err && (r == 0 || (size_t)r > n))
            break;
        if (!err)
            err = s->ops->check(s, d, (size_t)r);
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

static BW_HOT_INLINE int scan_parse(const scanner_t *s, const uint8_t **data, size_t *len,
                                    const uint8_t **msg, size_t *size)
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
        int r = s->ops->size(s->buf, *s->held, s->opt, s->ctx);
        size_t need;
        if (r == NOT_START) { /* a foreign message whose count proved out of range */
            count_unknown(s, s->buf[0]);
            rescan(s, 1);
            continue;
        }
#if SKIP_FOREIGN
        if (r <= FOREIGN) {
            need = foreign_len(s, r);
            if (*s->held >= need) {
                count_unknown(s, s->buf[0]);
                rescan(s, need);
                continue;
            }
        } else
#endif
        {
            if (r == BW_ELENGTH || (size_t)r > s->cap) {
                rescan(s, 1);
                return reject(s, BW_ELENGTH);
            }
            need = r > 0 ? (size_t)r : (size_t)*s->held + 1;
            if (r > 0 && *s->held >= need) {
                int err = s->ops->check(s, s->buf, need);
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
        count_cut(s);
        rescan(s, 1);
    }
}

#endif

/* ---- the Stream parser ----------------------------------------------------------- */

static int stream_size(const uint8_t *p, size_t n, uint8_t opt, const BW_ROM void *ctx)
{
    (void)opt, (void)ctx;
    if (p[0] != BW_CREATE_STREAM_HEADER)
        return NOT_START;
    if (n < 2)
        return 0;
    return p[1] < BW_CREATE_MIN_STREAM_BODY ? BW_ELENGTH : (int)p[1] + 3;
}

/* The body must be known packets ending exactly at the checksum: with a
 * one-byte header and an 8-bit sum, this is what keeps a false 19 in the
 * data from passing as a frame one time in 256. */
/* A Stream scanner's opt: the checksum rule, and the model above it. */
#define STREAM_OPT(sum, model) ((uint8_t)((sum) | (model) << 1))
#define OPT_SUM(opt) ((uint8_t)((opt) & 1u))
#define OPT_MODEL(opt) ((uint8_t)((opt) >> 1))

static int stream_check(const scanner_t *s, const uint8_t *p, size_t size)
{
    const uint8_t opt = s->opt;
    size_t from = sum_from(OPT_SUM(opt));
    if (sum8(p + from, size - from) != 0)
        return BW_ECHECKSUM;
    const uint8_t *body = p + 2;
    size_t len = size - 3, off = 0;
#if !BW_SMALL
    (void)off;
    uint8_t two = 0;
    int n = walk(OPT_MODEL(opt), body, len, false, NULL, &two);
    if (s->kinds)
        *s->kinds = two;
    return n == BW_ETRUNC ? BW_ELENGTH : n < 0 ? n : 0;
#else
    while (off < len) {
        int psize = size_of(OPT_MODEL(opt), body[off]);
        if (psize < 0)
            return BW_EUNKNOWN;
        off += 1 + (size_t)psize;
    }
    return off == len ? 0 : BW_ELENGTH;
#endif
}

static const scan_ops_t stream_ops = {
    .size = stream_size,
    .foreign = NULL,
    .check = stream_check,
    .start_byte = BW_CREATE_STREAM_HEADER,
    .count_unknown_starts = false,
};

static scanner_t stream_scanner(bw_create_stream_parser_t *p)
{
    scanner_t s = { &stream_ops, STREAM_OPT(p->sum, p->model), BW_ROM_NULL, &p->stats, &p->held,
                    &p->drop,    p->buf,                        sizeof p->buf, NULL NO_KINDS };
    return s;
}

void bw_create_stream_parser_init(bw_create_stream_parser_t *p, bw_create_sum_t sum)
{
    memset(&p->stats, 0, sizeof p->stats);
    p->held = 0;
    p->drop = 0;
    p->sum = (uint8_t)sum;
    p->model = STREAM_DEFAULT;
}

void bw_create_stream_parser_model(bw_create_stream_parser_t *p, bw_create_model_t m)
{
    p->model = (uint8_t)m;
}

#if BW_SMALL
/* The model a frame's packets say: a Create 2's if one is only a Create 2's
 * (the body has walked: every id is a packet). */
static uint8_t frame_model(const uint8_t *body, size_t len)
{
    for (size_t off = 0; off < len; off += 1u + (size_t)size_in(&pkt2, body[off]))
        if (size_in(&pkt1, body[off]) < 0)
            return BW_CREATE_MODEL_2;
    return BW_CREATE_MODEL_1;
}
#endif

/* kinds: the check's of the frame (host builds), which says its model as
 * frame_model does, without walking the body again. */
static int body_of(int rc, const uint8_t *m, size_t size, uint8_t model, uint8_t kinds,
                   bw_create_stream_frame_t *frame)
{
    if (rc == 1) {
        frame->body = m + 2;
        frame->len = (uint8_t)(size - 3);
#if BW_SMALL
        (void)kinds;
        frame->model = model == MODEL_ANY ? frame_model(frame->body, frame->len) : model;
#else
        frame->model = model != MODEL_ANY ? model : kinds ? BW_CREATE_MODEL_2 : BW_CREATE_MODEL_1;
#endif
    }
    return rc;
}

int bw_create_stream_parse(bw_create_stream_parser_t *p, const uint8_t **data, size_t *len,
                           bw_create_stream_frame_t *frame)
{
    scanner_t s = stream_scanner(p);
    uint8_t kinds = 0;
#if !BW_SMALL
    s.kinds = &kinds;
#endif
    const uint8_t *m = NULL;
    size_t size = 0;
    int rc = scan_parse(&s, data, len, &m, &size);
    return body_of(rc, m, size, p->model, kinds, frame);
}

int bw_create_stream_parser_finish(bw_create_stream_parser_t *p, bw_create_stream_frame_t *frame)
{
    scanner_t s = stream_scanner(p);
    uint8_t kinds = 0;
#if !BW_SMALL
    s.kinds = &kinds;
#endif
    const uint8_t *m = NULL;
    size_t size = 0;
    int rc = scan_finish(&s, &m, &size);
    return body_of(rc, m, size, p->model, kinds, frame);
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
/* The Create 2's own layouts. */
static const BW_ROM bw_field_t f_motors[] = { FIELD("bits", BW_FT_U8, motors) };
static const BW_ROM bw_field_t f_pwm_motors[] = {
    FIELD("main_brush", BW_FT_I8, pwm_motors.main_brush),
    FIELD("side_brush", BW_FT_I8, pwm_motors.side_brush),
    FIELD("vacuum", BW_FT_U8, pwm_motors.vacuum),
};
static const BW_ROM bw_field_t f_drive_pwm[] = {
    FIELD("right_pwm", BW_FT_I16, drive_pwm.right),
    FIELD("left_pwm", BW_FT_I16, drive_pwm.left),
};
static const BW_ROM bw_field_t f_scheduling_leds[] = {
    FIELD("weekday", BW_FT_U8, scheduling_leds.weekday),
    FIELD("schedule", BW_FT_U8, scheduling_leds.schedule),
};
static const BW_ROM bw_field_t f_digits[] = { { BW_NAME("digits"), BW_FT_U8, 4, OFF(digits) } };
static const BW_ROM bw_field_t f_buttons[] = { FIELD("buttons", BW_FT_U8, buttons) };
static const BW_ROM bw_field_t f_schedule[] = {
    FIELD("days", BW_FT_U8, schedule.days),
    { BW_NAME("times"), BW_FT_U8, 14, OFF(schedule.times) }, /* hour, minute from Sunday */
};
static const BW_ROM bw_field_t f_day_time[] = {
    FIELD("day", BW_FT_U8, set_day_time.day),
    FIELD("hour", BW_FT_U8, set_day_time.hour),
    FIELD("minute", BW_FT_U8, set_day_time.minute),
};

/* Every opcode of a model, in number order: F(op, name, fields, data bytes)
 * for a fixed layout with data, B(op, name) for one without, V(op, name,
 * kind) for the variable ones, which are coded by hand. */
enum { VAR_SONG = 0x70, VAR_LIST = 0x71, VAR_SCRIPT = 0x72 };
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

/* The Create 2's (Roomba 600 OI), Reset (7) first. */
#define CREATE2_OPS(F, B, V)                                                    \
    B(BW_CREATE2_OP_RESET, "reset")                                             \
    B(BW_CREATE_OP_START, "start")                                              \
    F(BW_CREATE_OP_BAUD, "baud", f_baud, 1)                                     \
    B(BW_CREATE_OP_CONTROL, "control")                                          \
    B(BW_CREATE_OP_SAFE, "safe")                                                \
    B(BW_CREATE_OP_FULL, "full")                                                \
    B(BW_CREATE2_OP_POWER, "power")                                             \
    B(BW_CREATE_OP_SPOT, "spot")                                                \
    B(BW_CREATE2_OP_CLEAN, "clean")                                             \
    B(BW_CREATE2_OP_MAX, "max")                                                 \
    F(BW_CREATE_OP_DRIVE, "drive", f_drive, 4)                                  \
    F(BW_CREATE2_OP_MOTORS, "motors", f_motors, 1)                              \
    F(BW_CREATE_OP_LEDS, "leds", f_leds, 3)                                     \
    V(BW_CREATE_OP_SONG, "song", VAR_SONG)                                      \
    F(BW_CREATE_OP_PLAY, "play", f_play, 1)                                     \
    F(BW_CREATE_OP_SENSORS, "sensors", f_sensors, 1)                            \
    B(BW_CREATE2_OP_SEEK_DOCK, "seek_dock")                                     \
    F(BW_CREATE2_OP_PWM_MOTORS, "pwm_motors", f_pwm_motors, 3)                  \
    F(BW_CREATE_OP_DRIVE_DIRECT, "drive_direct", f_drive_direct, 4)             \
    F(BW_CREATE2_OP_DRIVE_PWM, "drive_pwm", f_drive_pwm, 4)                     \
    V(BW_CREATE_OP_STREAM, "stream", VAR_LIST)                                  \
    V(BW_CREATE_OP_QUERY_LIST, "query_list", VAR_LIST)                          \
    F(BW_CREATE_OP_PAUSE_RESUME_STREAM, "pause_resume_stream", f_pause, 1)      \
    F(BW_CREATE2_OP_SCHEDULING_LEDS, "scheduling_leds", f_scheduling_leds, 2)   \
    F(BW_CREATE2_OP_DIGIT_LEDS_RAW, "digit_leds_raw", f_digits, 4)              \
    F(BW_CREATE2_OP_DIGIT_LEDS_ASCII, "digit_leds_ascii", f_digits, 4)          \
    F(BW_CREATE2_OP_BUTTONS, "buttons", f_buttons, 1)                           \
    F(BW_CREATE2_OP_SCHEDULE, "schedule", f_schedule, 15)                       \
    F(BW_CREATE2_OP_SET_DAY_TIME, "set_day_time", f_day_time, 3)                \
    B(BW_CREATE2_OP_STOP, "stop")

/* The other model's own opcodes, X(op, size or VAR_SCRIPT): a parser of
 * one model skips them whole (checked against the catalogues by the tests). */
#define CREATE1_FOREIGN(X)                                                                \
    X(BW_CREATE2_OP_RESET, 1) X(BW_CREATE2_OP_POWER, 1) X(BW_CREATE2_OP_DRIVE_PWM, 5)    \
    X(BW_CREATE2_OP_SCHEDULING_LEDS, 3) X(BW_CREATE2_OP_DIGIT_LEDS_RAW, 5)               \
    X(BW_CREATE2_OP_DIGIT_LEDS_ASCII, 5) X(BW_CREATE2_OP_BUTTONS, 2)                     \
    X(BW_CREATE2_OP_SCHEDULE, 16) X(BW_CREATE2_OP_SET_DAY_TIME, 4) X(BW_CREATE2_OP_STOP, 1)
#define CREATE2_FOREIGN(X)                                                                \
    X(BW_CREATE_OP_DIGITAL_OUTPUTS, 2) X(BW_CREATE_OP_SEND_IR, 2)                        \
    X(BW_CREATE_OP_SCRIPT, VAR_SCRIPT) X(BW_CREATE_OP_PLAY_SCRIPT, 1)                    \
    X(BW_CREATE_OP_SHOW_SCRIPT, 1) X(BW_CREATE_OP_WAIT_TIME, 2)                          \
    X(BW_CREATE_OP_WAIT_DISTANCE, 3) X(BW_CREATE_OP_WAIT_ANGLE, 3)                       \
    X(BW_CREATE_OP_WAIT_EVENT, 2)

#define OP_FIRST BW_CREATE_OP_START
#define OP_LAST BW_CREATE2_OP_STOP
/* An opcode's place in the tables: 128..173, then Reset (7). */
#define NOPS (OP_LAST - OP_FIRST + 2)
#define OPIDX(op) ((int)(op) == (int)BW_CREATE2_OP_RESET ? NOPS - 1 : (int)(op) - OP_FIRST)
#define NFIELDS(fields) ((uint8_t)(sizeof fields / sizeof fields[0]))
#define FOREIGN_OP 0x80 /* op_code_t.size: the other model's opcode */

/* What the codec needs of an opcode of a model, by OPIDX: its size in bytes
 * (1 + data) or its VAR_* kind, with FOREIGN_OP for an opcode of the other
 * model only, 0 for no opcode of either; and the fields of a fixed layout.
 * Four bytes an opcode, where the catalogue below spends ten: a firmware
 * links only its model's. */
typedef struct {
    uint8_t size;
    uint8_t nfields;
    const BW_ROM bw_field_t *fields;
} op_code_t;

#define CODE_F(op, name, f, len) [OPIDX(op)] = { 1 + (len), NFIELDS(f), f },
#define CODE_B(op, name) [OPIDX(op)] = { 1, 0, BW_ROM_NULL },
#define CODE_V(op, name, kind) [OPIDX(op)] = { kind, 0, BW_ROM_NULL },
#define CODE_X(op, size) [OPIDX(op)] = { FOREIGN_OP | (size), 0, BW_ROM_NULL },

#if SKIP_FOREIGN
#define NOPS1 NOPS
#define FOREIGN1 CREATE1_FOREIGN(CODE_X)
#define FOREIGN2 CREATE2_FOREIGN(CODE_X)
#else
#define NOPS1 (BW_CREATE_OP_WAIT_EVENT - OP_FIRST + 1) /* a Create 1 firmware's: 128..158 */
#define FOREIGN1
#define FOREIGN2
#endif
static const BW_ROM op_code_t op_code[NOPS1] = { CREATE_OPS(CODE_F, CODE_B, CODE_V) FOREIGN1 };
static const BW_ROM op_code_t op_code2[NOPS] = { CREATE2_OPS(CODE_F, CODE_B, CODE_V) FOREIGN2 };

/* What a parser needs of a model's commands. A Create 1's functions reach
 * only cmd1: a firmware for it links none of a Create 2's tables. */
typedef struct {
    const BW_ROM op_code_t *code;
    uint8_t nops;        /* entries in code */
    uint8_t max_packets; /* in a Stream or Query List */
    uint8_t model;
} cmd_model_t;

static const BW_ROM cmd_model_t cmd1 = { op_code, NOPS1, BW_CREATE_MAX_PACKETS, BW_CREATE_MODEL_1 };
static const BW_ROM cmd_model_t cmd2 = { op_code2, NOPS, BW_CREATE2_MAX_PACKETS, BW_CREATE_MODEL_2 };

static const BW_ROM cmd_model_t *cmds(uint8_t model) { return MODEL2(model) ? &cmd2 : &cmd1; }

/* The tables' entry of a byte (an opcode of either model), or NULL. */
static const BW_ROM op_code_t *op_entry(const BW_ROM cmd_model_t *cm, uint8_t op)
{
    /* Reset sits past Stop, where 174 would: 174 is no opcode. */
    if (op != BW_CREATE2_OP_RESET && (op < OP_FIRST || op > OP_LAST))
        return BW_ROM_NULL;
    uint8_t i = (uint8_t)OPIDX(op);
    if (i >= cm->nops || !cm->code[i].size)
        return BW_ROM_NULL;
    return &cm->code[i];
}

/* The entry of an opcode of the model, or NULL. */
static const BW_ROM op_code_t *op_info(const BW_ROM cmd_model_t *cm, uint8_t op)
{
    const BW_ROM op_code_t *i = op_entry(cm, op);
#if SKIP_FOREIGN
    if (i && (i->size & FOREIGN_OP))
        return BW_ROM_NULL;
#endif
    return i;
}

/* An opcode's place in its model's tables, or -1 for no opcode of it. */
static int op_index(const BW_ROM cmd_model_t *cm, uint8_t op)
{
    return op_info(cm, op) ? OPIDX(op) : -1;
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
#define NAME_F(op, name, f, len) [OPIDX(op)] = { OP_NAME(name) DESC(name, f, len) },
#define NAME_B(op, name) [OPIDX(op)] = { OP_NAME(name) NODATA(name) },
#define NAME_V(op, name, kind) [OPIDX(op)] = { OP_NAME(name) NODATA(name) },

static const BW_ROM op_name_t op_names[NOPS] = { CREATE_OPS(NAME_F, NAME_B, NAME_V) };
static const BW_ROM op_name_t op_names2[NOPS] = { CREATE2_OPS(NAME_F, NAME_B, NAME_V) };

static const BW_ROM op_name_t *op_catalogue(uint8_t model, uint8_t op)
{
    int i = op_index(cmds(model), op);
    if (i < 0)
        return BW_ROM_NULL;
    return MODEL2(model) ? &op_names2[i] : &op_names[i];
}

const char *bw_create_model_op_name(bw_create_model_t m, uint8_t op)
{
    const BW_ROM op_name_t *n = op_catalogue((uint8_t)m, op);
    return n ? NAME_OF(n) : NULL;
}

const char *bw_create_op_name(uint8_t op) { return bw_create_model_op_name(BW_CREATE_MODEL_1, op); }

int bw_create_model_op_from_name(bw_create_model_t m, const char *name)
{
    for (unsigned op = 0; op < 256; op++) {
        const BW_ROM op_name_t *n = op_catalogue((uint8_t)m, (uint8_t)op);
        if (n && name_eq(NAME_OF(n), name))
            return (int)op;
    }
    return BW_EUNKNOWN;
}

int bw_create_op_from_name(const char *name)
{
    return bw_create_model_op_from_name(BW_CREATE_MODEL_1, name);
}

int bw_create_model_op_at(bw_create_model_t m, unsigned i)
{
    for (unsigned op = 0; op < 256; op++)
        if (op_index(cmds((uint8_t)m), (uint8_t)op) >= 0 && i-- == 0)
            return (int)op;
    return -1;
}

int bw_create_op_at(unsigned i) { return bw_create_model_op_at(BW_CREATE_MODEL_1, i); }

const BW_ROM bw_msgdesc_t *bw_create_model_cmd_desc(bw_create_model_t m, uint8_t op)
{
    const BW_ROM op_code_t *i = op_info(cmds((uint8_t)m), op);
    return i && i->size < VAR_SONG ? &op_catalogue((uint8_t)m, op)->desc : BW_ROM_NULL;
}

const BW_ROM bw_msgdesc_t *bw_create_cmd_desc(uint8_t op)
{
    return bw_create_model_cmd_desc(BW_CREATE_MODEL_1, op);
}

/* The size of the command at p by its entry i: as bw_create_model_cmd_size. */
static inline int entry_size(const BW_ROM cmd_model_t *cm, const BW_ROM op_code_t *i,
                             const uint8_t *p, size_t n)
{
    switch (i->size & ~FOREIGN_OP) {
    case VAR_SONG:
        if (n < 3)
            return 0;
        return p[2] < 1 || p[2] > BW_CREATE_MAX_SONG ? BW_ELENGTH : 3 + 2 * (int)p[2];
    case VAR_LIST:
        if (n < 2)
            return 0;
        return p[1] > cm->max_packets ? BW_ELENGTH : 2 + (int)p[1];
    case VAR_SCRIPT:
        if (n < 2)
            return 0;
        return p[1] < 1 || p[1] > BW_CREATE_MAX_SCRIPT ? BW_ELENGTH : 2 + (int)p[1];
    default: return i->size & ~FOREIGN_OP;
    }
}

/* A parser's: an opcode of the other model only is a FOREIGN message of its
 * size there (its data bytes are not commands); one with a count out of
 * range there is the opcode alone (NOT_START). */
static int cmd_size(const uint8_t *p, size_t n, uint8_t opt, const BW_ROM void *ctx)
{
    (void)opt;
    const BW_ROM cmd_model_t *cm = ctx;
    const BW_ROM op_code_t *i = op_entry(cm, p[0]);
    if (!i)
        return NOT_START;
    int r = entry_size(cm, i, p, n);
#if SKIP_FOREIGN
    if (i->size & FOREIGN_OP)
        return r == BW_ELENGTH ? NOT_START : r == 0 ? 0 : FOREIGN - r;
#endif
    return r;
}

/* The size of a model's command at p, with NOT_START for no opcode of it. */
static int own_size(const BW_ROM cmd_model_t *cm, const uint8_t *p, size_t n)
{
    return op_info(cm, p[0]) ? cmd_size(p, n, 0, cm) : NOT_START;
}

int bw_create_model_cmd_size(bw_create_model_t m, const uint8_t *bytes, size_t n)
{
    if (n == 0)
        return 0;
    int r = own_size(cmds((uint8_t)m), bytes, n);
    return r == NOT_START ? BW_EUNKNOWN : r;
}

#if SKIP_FOREIGN
static bool cmd_foreign(uint8_t b, const BW_ROM void *ctx)
{
    const BW_ROM op_code_t *i = op_entry(ctx, b);
    return i && (i->size & FOREIGN_OP);
}
#else
#define cmd_foreign NULL
#endif

static int cmd_check(const scanner_t *s, const uint8_t *p, size_t size)
{
    (void)s, (void)p, (void)size;
    return 0;
}

static const scan_ops_t cmd_ops = {
    .size = cmd_size,
    .foreign = cmd_foreign,
    .check = cmd_check,
    .start_byte = -1,
    .count_unknown_starts = true,
};

static scanner_t cmd_scanner(bw_create_cmd_parser_t *p)
{
    scanner_t s = { &cmd_ops, 0, p->cmds, &p->stats, &p->held, &p->drop, p->buf, sizeof p->buf,
                    p->tally NO_KINDS };
    return s;
}

void bw_create_cmd_parser_init(bw_create_cmd_parser_t *p)
{
    memset(&p->stats, 0, sizeof p->stats);
    p->held = 0;
    p->drop = 0;
    p->model = BW_CREATE_MODEL_1;
    p->cmds = &cmd1;
    p->tally = NULL;
}

void bw_create_cmd_parser_model(bw_create_cmd_parser_t *p, bw_create_model_t m)
{
    p->model = (uint8_t)m;
    p->cmds = cmds((uint8_t)m);
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

void bw_create_model_cmd_init(bw_create_cmd_t *cmd, bw_create_model_t m, uint8_t op)
{
    memset(cmd, 0, sizeof *cmd);
    cmd->opcode = op;
    cmd->model = (uint8_t)m;
}

void bw_create_cmd_init(bw_create_cmd_t *cmd, uint8_t op)
{
    bw_create_model_cmd_init(cmd, BW_CREATE_MODEL_1, op);
}

static int decode_cmd_in(const BW_ROM cmd_model_t *cm, const uint8_t *b, size_t len,
                         bw_create_cmd_t *cmd)
{
    memset(cmd, 0, sizeof *cmd);
    cmd->model = cm->model;
    if (len == 0)
        return BW_ELENGTH;
    cmd->opcode = b[0];
    int size = own_size(cm, b, len);
    if (size == NOT_START)
        return BW_EUNKNOWN;
    if (size <= 0 || (size_t)size != len)
        return BW_ELENGTH;
    const BW_ROM op_code_t *i = op_info(cm, b[0]);
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

int bw_create_model_decode_cmd(bw_create_model_t m, const uint8_t *b, size_t len,
                               bw_create_cmd_t *cmd)
{
    return decode_cmd_in(cmds((uint8_t)m), b, len, cmd);
}

int bw_create_decode_cmd(const uint8_t *b, size_t len, bw_create_cmd_t *cmd)
{
    return decode_cmd_in(&cmd1, b, len, cmd);
}

int bw_create_encode_cmd(uint8_t *buf, size_t cap, const bw_create_cmd_t *cmd)
{
    const BW_ROM cmd_model_t *cm = cmds(cmd->model);
    const BW_ROM op_code_t *i = op_info(cm, cmd->opcode);
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
        if (cmd->u.packets.n > cm->max_packets)
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
