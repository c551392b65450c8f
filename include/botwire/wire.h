/*
 * botwire core: error codes, byte order, checksums, parser statistics and
 * message field descriptors shared by every robot protocol.
 *
 * Memory: nothing here allocates. Time: nothing here reads a clock.
 * Threads: every function is reentrant; state lives in caller-owned structs.
 * This header includes only <stdint.h>, <stddef.h> and <stdbool.h>, so the
 * codec core builds for a microcontroller.
 */
#ifndef BOTWIRE_WIRE_H
#define BOTWIRE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Return convention of the whole library: 0 is success, a negative value is
 * one of the BW_E* errors below, a positive value is a count (bytes written,
 * frames found). "Need more bytes" is never an error.
 */
enum {
    BW_OK = 0,
    BW_EINVAL = -1,    /* invalid argument */
    BW_ENOSPC = -2,    /* output buffer too small */
    BW_ECHECKSUM = -3, /* checksum mismatch */
    BW_ELENGTH = -4,   /* impossible or inconsistent length */
    BW_ETRUNC = -5,    /* input ended inside a message */
    BW_EUNKNOWN = -6,  /* unknown message identifier or name */
    BW_ERANGE = -7,    /* value out of range for its wire field */
    BW_EIO = -8,       /* operating-system I/O error (see the OS error) */
    BW_ETIMEDOUT = -9, /* no answer in time */
    BW_ECLOSED = -10,  /* the link or peer went away */
    BW_ENOTSUP = -11,  /* the robot or build cannot do this */
    BW_ENOMEM = -12,   /* out of memory (never from the codec core) */
    BW_EPROTO = -13,   /* the peer broke the protocol */
    BW_ESTATE = -14,   /* call not valid in the current state */
};

/* A short English description of a BW_E* code (or "ok"); never NULL. */
const char *bw_strerror(int err);

/* The value of a hexadecimal digit ('0'-'9', 'a'-'f', 'A'-'F'): 0..15, or -1
 * for any other character. For the text forms of bytes above the core. */
int bw_hex_value(int c);

/* ---- byte order: explicit helpers, never a packed struct ---------------- */

static inline uint16_t bw_get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)(p[1] << 8));
}
static inline uint32_t bw_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}
static inline uint16_t bw_get_be16(const uint8_t *p)
{
    return (uint16_t)((uint16_t)(p[0] << 8) | p[1]);
}
static inline uint32_t bw_get_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
           (uint32_t)p[3];
}
static inline void bw_put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void bw_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void bw_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void bw_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Signed difference of two free-running 16-bit counters (encoders,
 * timestamps): the shortest way round, in -32768..32767. */
static inline int16_t bw_wrap_delta16(uint16_t cur, uint16_t last)
{
    uint16_t d = (uint16_t)(cur - last);
    return (int16_t)(d >= 0x8000u ? (int32_t)d - 0x10000 : (int32_t)d);
}

/* ---- checksums --------------------------------------------------------- */

/* XOR of n bytes (Kobuki, lobot parity, rflex). */
uint8_t bw_xor8(const uint8_t *p, size_t n);

/* P2OS checksum: successive byte pairs summed as 16-bit words, first byte
 * high, modulo 2^16; an odd last byte is XORed into the low byte. */
uint16_t bw_sum16_pairs(const uint8_t *p, size_t n);

/* ---- parser statistics: one shape for every protocol ------------------- */

/*
 * Wide counters so they never wrap. Invariant kept by every parser: every
 * byte pushed in is, at any time, in exactly one of: an accepted frame, the
 * skipped_bytes count, or the parser's pending buffer.
 */
/* The counters' type: 64 bits, or what a firmware build defines BW_COUNT_T
 * as (32 bits costs an 8-bit AVR far less code and RAM). */
#ifdef BW_COUNT_T
typedef BW_COUNT_T bw_count_t;
#else
typedef uint64_t bw_count_t;
#endif

typedef struct {
    bw_count_t frames;          /* frames accepted (checksum and length good) */
    bw_count_t checksum_errors; /* frames rejected for their checksum */
    bw_count_t length_errors;   /* impossible lengths, mis-sized messages, truncation */
    bw_count_t skipped_bytes;   /* bytes not part of any accepted frame */
    bw_count_t unknown;         /* well-framed messages with an unknown identifier */
    bw_count_t implausible;     /* drivers only: good frames whose values the robot cannot
                                 have (a jump beyond what it can move since the last
                                 one), set aside: what a checksum let through */
} bw_parse_stats_t;

/* Adds every counter of src into dst. */
void bw_parse_stats_add(bw_parse_stats_t *dst, const bw_parse_stats_t *src);

/* Adds one to a counter: what the codecs count with under BW_SMALL (below),
 * where one wide increment out of line is far smaller than one in place at
 * every spot that counts. BW_COUNT(counter) picks it or a plain ++. */
void bw_count_inc(bw_count_t *c);

/* ---- firmware builds ---------------------------------------------------- */

/*
 * Where the codec's constant tables live. On an AVR, const data is copied
 * into RAM at start-up unless it is put in the flash address space; BW_ROM
 * does that (GNU C's __flash, so reads through these pointers load from
 * flash). Elsewhere it is empty. A firmware build may also define
 * BW_NO_NAMES: the tables then carry no names (the name lookups answer
 * NULL or "unknown"), which firmware does not need.
 */
#ifndef BW_ROM
#if defined(__AVR__) && defined(__FLASH)
#define BW_ROM __flash
#else
#define BW_ROM
#endif
#endif

/*
 * BW_SMALL picks the codec's smaller paths: checksums a byte at a time,
 * fields copied byte by byte, counters bumped out of line, every frame
 * gathered in the framer (none is taken in place from the caller's input),
 * the catalogue searched rather than indexed. Results are the same, except
 * that a frame longer than BW_FRAMER_MAX is always a length error. On when
 * the compiler optimises for size (-Os), as firmware builds do; define it
 * to 0 or 1 to choose.
 */
#ifndef BW_SMALL
#ifdef __OPTIMIZE_SIZE__
#define BW_SMALL 1
#else
#define BW_SMALL 0
#endif
#endif

/*
 * BW_DEVICE_SIDE builds each codec for the robot's side of the link only,
 * as a robot's firmware uses it: it parses and decodes what the host sends
 * and encodes what the robot answers. Where one function serves both
 * directions, the paths only a host takes are left out, so that the linker
 * drops them: a message the robot sends decodes as the family's unknown
 * type (with its bytes, and counted as unknown where a parser counts), as
 * an identifier the catalogue does not know would; a host command whose
 * encoder is left out answers BW_EINVAL, as a type outside the catalogue
 * does. Kobuki, P2OS and rflex say in their headers what their build
 * leaves out; the other families have no such shared paths. Never defined
 * for the host library, whose behaviour it does not touch. BW_BOTH_SIDES is
 * 0 under it, else 1, for the codecs to test.
 */
#ifdef BW_DEVICE_SIDE
#define BW_BOTH_SIDES 0
#else
#define BW_BOTH_SIDES 1
#endif

/* How the codecs count (bw_count_inc above): BW_COUNT(stats.frames). */
#if BW_SMALL
#define BW_COUNT(counter) bw_count_inc(&(counter))
#else
#define BW_COUNT(counter) ((void)++(counter))
#endif

/* The null pointer into BW_ROM (NULL points into generic memory). */
#define BW_ROM_NULL ((const BW_ROM void *)0)

#ifdef BW_NO_NAMES
#define BW_NAME(s) ""
#else
#define BW_NAME(s) (s)
#endif

/* ---- framing: header, length byte, checksum ----------------------------- */

/*
 * Frames of the shape `H0 H1 .. LEN .. CHECK`: two fixed header bytes, a
 * length byte at a fixed place, a total size of LEN + overhead, and the
 * protocol's own check. Kobuki, P2OS and rflex frames are of this kind, and
 * one streaming framer serves them all.
 */
typedef struct {
    uint8_t header[2];
    uint8_t len_at;           /* index of the length byte, 2 or more */
    uint8_t len_min, len_max; /* legal length-byte values */
    uint8_t overhead;         /* frame size = length byte + overhead */
    /* True if a complete frame (`size` bytes from its first header byte)
     * passes the protocol's checksum, and any trailer it has. */
    bool (*check)(const uint8_t *frame, size_t size);
} bw_framing_t;

/* The largest frame a framer holds while it waits for the rest: a framing
 * here may describe up to 264 bytes (len_max + overhead). A firmware build
 * may define it smaller, to the largest frame its side of the link must
 * take (a robot takes only the host's commands, which are short): a longer
 * frame then counts as a length error unless it arrives whole in one read
 * (and always, under BW_SMALL). The Create's parsers, which have no
 * framing of this shape, hold no more than this either (create.h). */
#ifndef BW_FRAMER_MAX
#define BW_FRAMER_MAX 264u
#endif

/* A streaming framer: caller-owned, no allocation. */
typedef struct {
    const bw_framing_t *fmt;
    bw_parse_stats_t stats;
    uint16_t held; /* bytes in buf: a frame candidate starting with the header */
    uint16_t drop; /* leading bytes of buf returned as a frame last call */
    uint8_t buf[BW_FRAMER_MAX];
} bw_framer_t;

void bw_framer_init(bw_framer_t *p, const bw_framing_t *fmt);

/*
 * Pushes bytes in, any split. Consumes from *data / *len (both advanced) up
 * to and including the end of the next good frame.
 *
 * Returns 1 with *frame (its first header byte) and *size set when a frame is
 * complete; 0 when all input is consumed and more bytes are needed;
 * BW_ECHECKSUM or BW_ELENGTH when a candidate was just rejected (counted;
 * call again). The frame points into the caller's input (no copy) or into the
 * framer, and stays valid until the next call and while the input is
 * unchanged. After a rejection the bytes already held are rescanned for the
 * next header, so a good frame behind garbage or a bad frame is never lost;
 * every byte is in a frame, counted as skipped, or held. A candidate whose
 * bytes so far embed a good frame and the next header is rejected at once
 * (bw_framer_embeds): a damaged length never holds good frames back.
 */
int bw_framer_parse(bw_framer_t *p, const uint8_t **data, size_t *len, const uint8_t **frame,
                    size_t *size);

/*
 * True if the `size` bytes of a frame (or a frame candidate) hold, after its
 * first byte, a complete frame that passes the check and is followed by both
 * header bytes. The framer takes such a candidate's length for a damaged
 * one and rejects it as soon as it sees that (a length error), so the good
 * frames behind a false length never wait for it: a frame whose own bytes
 * embed a frame and the next header is read as what it embeds. Encoders may
 * ask this of what they wrote. (A BW_DEVICE_SIDE build's framer, holding at
 * most BW_FRAMER_MAX bytes of short host commands, does not act on it.)
 */
bool bw_framer_embeds(const bw_framing_t *fmt, const uint8_t *frame, size_t size);

/*
 * End of stream: the held candidate can no longer complete; it counts as one
 * length error, its first byte is skipped and the rest rescanned. Returns as
 * bw_framer_parse; call until 0, when the framer is empty and reusable.
 */
int bw_framer_finish(bw_framer_t *p, const uint8_t **frame, size_t *size);

/* ---- message field descriptors ---------------------------------------- */

/*
 * A fixed-layout message is described once, by a table of fields in wire
 * order. The codecs use the table to encode and decode; tools use the same
 * table to print and parse messages by name, so a message is defined in one
 * place only.
 */
typedef enum {
    BW_FT_U8,
    BW_FT_I8,
    BW_FT_U16,
    BW_FT_I16,
    BW_FT_U32,
    BW_FT_I32,
    BW_FT_PAD, /* unused wire bytes: written as zero, ignored when read;
                  `count` is the number of bytes, `offset` is unused */
} bw_ftype_t;

typedef struct {
    const char *name; /* field name in JSON and docs */
    uint8_t type;     /* bw_ftype_t */
    uint8_t count;    /* 1 for a scalar, n for an array of n elements */
    uint16_t offset;  /* byte offset of the value in the message struct */
} bw_field_t;

enum { BW_ORDER_LE = 0, BW_ORDER_BE = 1 };

typedef struct {
    const char *name;         /* message type name, e.g. "base_control" */
    const BW_ROM bw_field_t *fields; /* in wire order */
    uint8_t nfields;
    uint8_t wire_len;         /* bytes on the wire for all fields */
    uint8_t order;            /* BW_ORDER_LE or BW_ORDER_BE */
} bw_msgdesc_t;

/* Wire size of one element of a field type (PAD: 1). */
size_t bw_ftype_size(bw_ftype_t t);

/* Smallest and largest value a field type can carry. */
int64_t bw_ftype_min(bw_ftype_t t);
int64_t bw_ftype_max(bw_ftype_t t);

/* Reads element i of field f of the struct at base, widened to int64. */
int64_t bw_field_get(const void *base, const BW_ROM bw_field_t *f, size_t i);

/* Stores v (already range-checked by the caller) into element i. */
void bw_field_set(void *base, const BW_ROM bw_field_t *f, size_t i, int64_t v);

/* Decodes desc->wire_len bytes at wire into the struct at base. */
void bw_desc_decode(const BW_ROM bw_msgdesc_t *desc, const uint8_t *wire, void *base);

/* Encodes the struct at base into desc->wire_len bytes at wire. */
void bw_desc_encode(const BW_ROM bw_msgdesc_t *desc, const void *base, uint8_t *wire);

/* As the two above, for the first nfields fields of desc only (a message
 * that may arrive cut short after any field). */
void bw_desc_decode_fields(const BW_ROM bw_msgdesc_t *desc, size_t nfields, const uint8_t *wire,
                           void *base);
void bw_desc_encode_fields(const BW_ROM bw_msgdesc_t *desc, size_t nfields, const void *base,
                           uint8_t *wire);

/* The codecs' own: as the two above, for n fields of a table in the given
 * order (BW_ORDER_*) with no descriptor around them (a codec whose messages
 * are runs of one table). */
void bw_fields_decode(const BW_ROM bw_field_t *fields, size_t n, uint8_t order,
                      const uint8_t *wire, void *base);
void bw_fields_encode(const BW_ROM bw_field_t *fields, size_t n, uint8_t order, const void *base,
                      uint8_t *wire);

/* For the codecs' hot paths (host builds; under BW_SMALL code size comes
 * first): BW_HOT_INLINE inlines a function even where the compiler would
 * rather not; BW_UNROLL_ALL before a loop over a constant table unrolls it
 * whole, so that each entry's values are folded into code of its own. */
#if !BW_SMALL && defined(__GNUC__)
#define BW_HOT_INLINE inline __attribute__((always_inline))
#if defined(__clang__)
#define BW_UNROLL_ALL _Pragma("unroll")
#else
#define BW_UNROLL_ALL _Pragma("GCC unroll 255")
#endif
#else
#define BW_HOT_INLINE inline
#define BW_UNROLL_ALL
#endif

/* Zeroes n bytes of a message a decoder fills. GCC writes a memset of a
 * large constant size in place as `rep stos`, about three times slower on
 * x86-64 than the C library's memset, so the host build hides the size. */
static inline void bw_zero(void *p, size_t n)
{
#if !BW_SMALL && defined(__GNUC__)
    __asm__("" : "+r"(n));
#endif
    __builtin_memset(p, 0, n);
}

/* bw_sum16_pairs as code of its caller's own (the P2OS framer's check; the
 * library's bw_sum16_pairs is this). Host builds on GCC or clang sum the
 * pairs' first bytes and their second ones four at a time, in the 16-bit
 * lanes of a 64-bit word, at most 65 words a round (64 and a last short
 * one); one multiply then adds the four lanes: lane 3 of
 * w * 0x0001000100010001 is their sum, and no partial sum below it (three
 * lanes at most, 3 * 65 * 255 < 2^16) carries into it. The last 2, 4 or 6
 * bytes of the pairs come from the one load that ends where they end,
 * shifted down. */
static BW_HOT_INLINE uint16_t bw_sum16_pairs_inline(const uint8_t *p, size_t n)
{
    uint16_t sum = 0; /* modulo 2^16 by its width */
#if !BW_SMALL && defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t lanes = 0x00FF00FF00FF00FFu, fold = 0x0001000100010001u;
    if (n >= 8) {
        /* An odd last byte is XORed into the low byte once the pairs are summed. */
        const uint8_t last = n & 1 ? p[n - 1] : 0;
        size_t words = n / 8;
        const unsigned rest = (unsigned)(n % 8 & ~1u);
        while (words) {
            size_t k = words < 64 ? words : 64;
            words -= k;
            uint64_t even = 0, odd = 0, w;
            do {
                __builtin_memcpy(&w, p, 8);
                /* In a register: vector code would take longer to set up
                 * than a frame's few words to sum. */
                __asm__("" : "+r"(w));
                even += w & lanes; /* bytes 0, 2, 4, 6: each pair's first */
                odd += (w >> 8) & lanes;
                p += 8;
            } while (--k);
            if (!words && rest) {
                /* 2, 4 or 6 bytes left: the word that ends with them, the
                 * bytes before them (summed already) shifted out. */
                __builtin_memcpy(&w, p + rest - 8, 8);
                w >>= 8 * (8 - rest);
                even += w & lanes;
                odd += (w >> 8) & lanes;
            }
            sum = (uint16_t)(sum + (((even * fold) >> 48) << 8) + ((odd * fold) >> 48));
        }
        return (uint16_t)(sum ^ last);
    }
#endif
    for (; n >= 2; n -= 2, p += 2)
        sum = (uint16_t)(sum + (uint16_t)(p[0] << 8 | p[1]));
    if (n)
        sum ^= p[0];
    return sum;
}

/*
 * bw_fields_decode and bw_fields_encode as code of each message's own (host
 * builds). Called by a codec with one of its constant field tables, the
 * compiler unrolls the walk over the table and folds every field's type,
 * count and offset in: what is left are the message's loads and stores,
 * generated from its one table at build time. Same results as
 * bw_fields_decode and bw_fields_encode, which they are under BW_SMALL
 * (code size first) and for compilers other than GCC and clang.
 */
#if !BW_SMALL && defined(__GNUC__)
static BW_HOT_INLINE void
bw_fields_decode_inline(const BW_ROM bw_field_t *fields, size_t n, uint8_t order,
                        const uint8_t *wire, void *base)
{
    BW_UNROLL_ALL
    for (size_t k = 0; k < n; k++) {
        const uint8_t type = fields[k].type, count = fields[k].count;
        uint8_t *dst = (uint8_t *)base + fields[k].offset;
        if (type == BW_FT_PAD) {
            wire += count;
            continue;
        }
        const size_t size = type <= BW_FT_I8 ? 1u : type <= BW_FT_I16 ? 2u : 4u;
        BW_UNROLL_ALL
        for (size_t i = 0; i < count; i++, wire += size, dst += size) {
            /* The member has exactly the wire width; its type gives the sign. */
            if (size == 1) {
                *dst = *wire;
            } else if (size == 2) {
                const uint16_t v = order == BW_ORDER_BE ? bw_get_be16(wire) : bw_get_le16(wire);
                __builtin_memcpy(dst, &v, 2);
            } else {
                const uint32_t v = order == BW_ORDER_BE ? bw_get_be32(wire) : bw_get_le32(wire);
                __builtin_memcpy(dst, &v, 4);
            }
        }
    }
}

/* bw_fields_encode as code of each message's own, as the above. */
static BW_HOT_INLINE void
bw_fields_encode_inline(const BW_ROM bw_field_t *fields, size_t n, uint8_t order,
                        const void *base, uint8_t *wire)
{
    BW_UNROLL_ALL
    for (size_t k = 0; k < n; k++) {
        const uint8_t type = fields[k].type, count = fields[k].count;
        const uint8_t *src = (const uint8_t *)base + fields[k].offset;
        if (type == BW_FT_PAD) {
            __builtin_memset(wire, 0, count);
            wire += count;
            continue;
        }
        const size_t size = type <= BW_FT_I8 ? 1u : type <= BW_FT_I16 ? 2u : 4u;
        BW_UNROLL_ALL
        for (size_t i = 0; i < count; i++, wire += size, src += size) {
            if (size == 1) {
                *wire = *src;
            } else if (size == 2) {
                uint16_t v;
                __builtin_memcpy(&v, src, 2);
                order == BW_ORDER_BE ? bw_put_be16(wire, v) : bw_put_le16(wire, v);
            } else {
                uint32_t v;
                __builtin_memcpy(&v, src, 4);
                order == BW_ORDER_BE ? bw_put_be32(wire, v) : bw_put_le32(wire, v);
            }
        }
    }
}
#else
#define bw_fields_decode_inline bw_fields_decode
#define bw_fields_encode_inline bw_fields_encode
#endif

#ifdef __cplusplus
}
#endif

#endif /* BOTWIRE_WIRE_H */
