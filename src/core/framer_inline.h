/* The host framer (bw_framer_parse, wire.h) as code of each protocol's own.
 *
 * A codec calls bw_framer_parse_as with its own constant framing: the
 * compiler then folds the header bytes, the length byte's place and limits
 * and the overhead into the code, and calls (or inlines) the protocol's
 * check directly instead of through a pointer. On frames of 14 to 42 bytes
 * (a Pioneer's) what a frame costs besides its bytes is most of the work.
 * framer.c's bw_framer_parse is the same code for any framing; a BW_SMALL
 * build (firmware) has only its small framer, and bw_framer_parse_as is that. */
#ifndef BOTWIRE_FRAMER_INLINE_H
#define BOTWIRE_FRAMER_INLINE_H

#include "botwire/wire.h"

#include <string.h>

#if BW_SMALL
#define bw_framer_parse_as(p, f, data, len, frame, size) bw_framer_parse((p), (data), (len), (frame), (size))
#else

static inline bool bw_fr_len_ok(const bw_framing_t *f, uint8_t len)
{
    return len >= f->len_min && len <= f->len_max;
}

/* False only if b[0, have) cannot embed a confirmation (bw_framer_embeds):
 * no first header byte after b[0] early enough to start one (a frame and two
 * bytes). Asked of every frame, most of which hold none. On a short frame
 * the library's memchr costs more to set up than its search, so this looks
 * at eight bytes a step without a call, a word tested for a byte equal to
 * the header's first by the zero-byte test; a word may reach past the range
 * but not past b[have - 1] (a byte there that matches only sends the frame
 * to the full search). */
static inline bool bw_fr_may_embed(const bw_framing_t *f, const uint8_t *b, size_t have)
{
    const size_t shortest = (size_t)f->len_min + f->overhead + 2;
    if (have <= shortest)
        return false;
    const size_t last = have - shortest + 1; /* a confirmation starts in [1, last) */
    if (last > 64) /* a long frame (a Kobuki's): the library's search is faster */
        return memchr(b + 1, f->header[0], last - 1) != NULL;
    if (have >= 9) {
        const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        const uint64_t rep = ones * f->header[0];
        for (size_t k = 1; k < last; k += 8) {
            uint64_t w;
            memcpy(&w, b + (k + 8 <= have ? k : have - 8), 8);
            w ^= rep;
            if ((w - ones) & ~w & highs)
                return true;
        }
        return false;
    }
    for (size_t k = 1; k < last; k++)
        if (b[k] == f->header[0])
            return true;
    return false;
}

/* The framer acts on it, but for a robot's own side (BW_DEVICE_SIDE): a
 * firmware takes short host commands into a short buffer (BW_FRAMER_MAX), so
 * a false length holds back little. */
static inline bool bw_fr_confirmed_inside(const bw_framing_t *f, const uint8_t *b, size_t have)
{
    return BW_BOTH_SIDES && bw_fr_may_embed(f, b, have) && bw_framer_embeds(f, b, have);
}

/* Drops held bytes [0, from) and then up to the next possible frame start:
 * both header bytes, or the first one as the last byte held. */
static inline void bw_fr_rescan(bw_framer_t *p, const bw_framing_t *f, size_t from)
{
    const uint8_t h0 = f->header[0], h1 = f->header[1];
    size_t k = from;
    for (; k < p->held; k++)
        if (p->buf[k] == h0 && (k + 1 == p->held || p->buf[k + 1] == h1))
            break;
    p->stats.skipped_bytes += k;
    memmove(p->buf, p->buf + k, p->held - k);
    p->held = (uint16_t)(p->held - k);
}

/* Bytes of a frame candidate (0: its length byte is not yet in). */
static inline size_t bw_fr_frame_size(const bw_framing_t *f, const uint8_t *head, size_t have)
{
    return have > f->len_at ? (size_t)head[f->len_at] + f->overhead : 0;
}

/* Fast path: nothing held, so frames are found and verified in place in the
 * caller's input without a copy. Only a frame cut by the end of the input is
 * copied into the framer. */
static BW_HOT_INLINE int bw_fr_parse_direct(bw_framer_t *p, const bw_framing_t *f,
                                            const uint8_t **data, size_t *len,
                                            const uint8_t **frame, size_t *size)
{
    const uint8_t *d = *data;
    size_t n = *len;
    int ret = 0;

    for (;;) {
        if (n == 0)
            goto out;
        if (d[0] != f->header[0]) {
            const uint8_t *a = memchr(d, f->header[0], n);
            size_t skip = a ? (size_t)(a - d) : n;
            p->stats.skipped_bytes += skip;
            d += skip;
            n -= skip;
            continue;
        }
        /* The byte after a false first header byte is tested again from the
         * top: it may itself start `H0 H0 H1`. */
        if (n >= 2 && d[1] != f->header[1]) {
            p->stats.skipped_bytes++;
            d++;
            n--;
            continue;
        }
        if (n <= f->len_at)
            break;
        if (!bw_fr_len_ok(f, d[f->len_at])) {
            ret = BW_ELENGTH;
            goto reject;
        }
        size_t total = bw_fr_frame_size(f, d, n);
        if (n < total && total > BW_FRAMER_MAX) {
            /* Cut by the end of the input and too long to hold until the
             * rest comes: this framer takes no such frame. */
            ret = BW_ELENGTH;
            goto reject;
        }
        if (bw_fr_confirmed_inside(f, d, n < total ? n : total)) {
            ret = BW_ELENGTH;
            goto reject;
        }
        if (n < total)
            break;
        if (!f->check(d, total)) {
            ret = BW_ECHECKSUM;
            goto reject;
        }
        *frame = d;
        *size = total;
        p->stats.frames++;
        d += total;
        n -= total;
        ret = 1;
        goto out;
    }
    /* A frame start cut by the end of the input: fewer than a frame's bytes. */
    memcpy(p->buf, d, n);
    p->held = (uint16_t)n;
    d += n;
    n = 0;
    goto out;
reject:
    /* The candidate's first byte starts no frame: counted, and skipped. */
    if (ret == BW_ELENGTH)
        p->stats.length_errors++;
    else
        p->stats.checksum_errors++;
    p->stats.skipped_bytes++;
    d++;
    n--;
out:
    *data = d;
    *len = n;
    return ret;
}

/* bw_framer_parse for the framing f, which must be p's own. */
static BW_HOT_INLINE int bw_framer_parse_as(bw_framer_t *p, const bw_framing_t *f,
                                            const uint8_t **data, size_t *len,
                                            const uint8_t **frame, size_t *size)
{
    if (p->drop) {
        /* The frame returned last time from the buffer is no longer in use.
         * What was held behind it need not start with a header: rescan. */
        memmove(p->buf, p->buf + p->drop, (size_t)(p->held - p->drop));
        p->held = (uint16_t)(p->held - p->drop);
        p->drop = 0;
        bw_fr_rescan(p, f, 0);
    }
    for (;;) {
        if (p->held == 0)
            return bw_fr_parse_direct(p, f, data, len, frame, size);

        /* Held bytes start with the first header byte and, if two or more,
         * both (rescan keeps that true). Check as far as the bytes allow. */
        if (p->held >= 2 && p->buf[1] != f->header[1]) {
            bw_fr_rescan(p, f, 1);
            continue;
        }
        if (p->held > f->len_at && !bw_fr_len_ok(f, p->buf[f->len_at])) {
            p->stats.length_errors++;
            bw_fr_rescan(p, f, 1);
            return BW_ELENGTH;
        }
        size_t need = p->held > f->len_at ? bw_fr_frame_size(f, p->buf, p->held) : (size_t)f->len_at + 1;
        if (need > BW_FRAMER_MAX) { /* longer than this framer holds */
            p->stats.length_errors++;
            bw_fr_rescan(p, f, 1);
            return BW_ELENGTH;
        }
        if (p->held > f->len_at &&
            bw_fr_confirmed_inside(f, p->buf, p->held < need ? p->held : need)) {
            p->stats.length_errors++;
            bw_fr_rescan(p, f, 1);
            return BW_ELENGTH;
        }
        if (p->held >= need) {
            if (!f->check(p->buf, need)) {
                p->stats.checksum_errors++;
                bw_fr_rescan(p, f, 1);
                return BW_ECHECKSUM;
            }
            *frame = p->buf;
            *size = need;
            p->stats.frames++;
            p->drop = (uint16_t)need;
            return 1;
        }
        if (*len == 0)
            return 0;
        size_t take = need - p->held;
        if (take > *len)
            take = *len;
        memcpy(p->buf + p->held, *data, take);
        p->held = (uint16_t)(p->held + take);
        *data += take;
        *len -= take;
    }
}

#endif /* !BW_SMALL */
#endif
