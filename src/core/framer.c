/* The streaming framer shared by every protocol whose frames are a header,
 * a length byte and a checksum. */
#include "botwire/wire.h"
#include "framer_inline.h"

#include <string.h>

void bw_framer_init(bw_framer_t *p, const bw_framing_t *fmt)
{
    p->fmt = fmt;
    memset(&p->stats, 0, sizeof p->stats);
    p->held = 0;
    p->drop = 0;
}

static bool len_ok(const bw_framing_t *f, uint8_t len)
{
    return len >= f->len_min && len <= f->len_max;
}

/*
 * A candidate whose length byte was damaged would hold the good frames
 * behind it until its false length is reached. So within a candidate's own
 * bytes b[0, have), a frame that starts after its first byte, is complete,
 * passes the check and is followed by both header bytes (the next frame
 * begins: a second sign that the line is in step there) shows the
 * candidate's length to be false, and the candidate is rejected as soon as
 * that is seen. Only confirmations ending at or after `from` are looked for
 * (a caller that looked before needs only the new ones).
 */
static bool embeds(const bw_framing_t *f, const uint8_t *b, size_t have, size_t from)
{
    const uint8_t h0 = f->header[0], h1 = f->header[1];
    for (size_t k = 1; k + f->len_at < have; k++) {
        const uint8_t *a = memchr(b + k, h0, have - f->len_at - k);
        if (!a)
            return false;
        k = (size_t)(a - b);
        if (b[k + 1] != h1 || !len_ok(f, b[k + f->len_at]))
            continue;
        size_t s = (size_t)b[k + f->len_at] + f->overhead, end = k + s + 2;
        if (end <= have && end >= from && b[k + s] == h0 && b[k + s + 1] == h1 &&
            f->check(b + k, s))
            return true;
    }
    return false;
}

bool bw_framer_embeds(const bw_framing_t *fmt, const uint8_t *frame, size_t size)
{
    return embeds(fmt, frame, size, 0);
}

#if BW_SMALL
/* The framer acts on it, but for a robot's own side (BW_DEVICE_SIDE): a
 * firmware takes short host commands into a short buffer (BW_FRAMER_MAX), so
 * a false length holds back little, and the AVR budget has no room for it. */
static bool confirmed_inside(const bw_framing_t *f, const uint8_t *b, size_t have, size_t from)
{
    return BW_BOTH_SIDES && embeds(f, b, have, from);
}

/* The small framer: bytes go into the buffer one at a time, and what is held
 * is examined after each. The held bytes are a frame candidate from their
 * first byte on, never longer than the frame its length byte asks for, so
 * a frame is complete when its last byte comes in (only bw_framer_finish
 * leaves more held, and then a candidate is rejected as soon as it can be). */

/* Drops the first n held bytes. */
static void shift(bw_framer_t *p, size_t n)
{
    p->held = (uint16_t)(p->held - n);
    memmove(p->buf, p->buf + n, p->held);
}

int bw_framer_parse(bw_framer_t *p, const uint8_t **data, size_t *len, const uint8_t **frame,
                    size_t *size)
{
    const bw_framing_t *f = p->fmt;
    const uint8_t *d = *data;
    size_t n = *len;
    int rc;
    shift(p, p->drop); /* the frame returned last time */
    p->drop = 0;
    bool grown = false; /* held grew by one byte since the candidate was last looked at */
    for (;;) {
        const uint8_t *b = p->buf;
        size_t held = p->held;
        rc = 0;
        bool skip = false;
        if (held) {
            /* The header bytes held must match; the length, once held, must
             * be legal and its frame fit the buffer. */
            skip = b[0] != f->header[0] || (held >= 2 && b[1] != f->header[1]);
            size_t need = held > f->len_at ? (size_t)b[f->len_at] + f->overhead : BW_FRAMER_MAX;
            if (!skip && held > f->len_at &&
                (!len_ok(f, b[f->len_at]) || need > BW_FRAMER_MAX)) {
                rc = BW_ELENGTH;
            } else if (!skip && confirmed_inside(f, b, held < need ? held : need, grown ? held : 0)) {
                rc = BW_ELENGTH;
            } else if (!skip && held >= need) {
                if (f->check(b, need)) {
                    *frame = b;
                    *size = need;
                    BW_COUNT(p->stats.frames);
                    p->drop = (uint16_t)need;
                    rc = 1;
                    break;
                }
                rc = BW_ECHECKSUM;
            }
        }
        if (rc) {
            bw_count_inc(rc == BW_ELENGTH ? &p->stats.length_errors : &p->stats.checksum_errors);
            skip = true;
        }
        if (skip) {
            /* The first held byte starts no frame. */
            BW_COUNT(p->stats.skipped_bytes);
            shift(p, 1);
            grown = false;
            if (rc)
                break;
        } else {
            if (n == 0)
                break;
            p->buf[p->held++] = *d++;
            n--;
            grown = true;
        }
    }
    *data = d;
    *len = n;
    return rc;
}

int bw_framer_finish(bw_framer_t *p, const uint8_t **frame, size_t *size)
{
    for (;;) {
        const uint8_t *none = NULL;
        size_t zero = 0;
        int rc = bw_framer_parse(p, &none, &zero, frame, size);
        if (rc != 0 || p->held == 0)
            return rc;
        /* What is held cannot complete; the parse skips to the next header. */
        BW_COUNT(p->stats.length_errors);
        BW_COUNT(p->stats.skipped_bytes);
        shift(p, 1);
    }
}
#else
/* The host framer: framer_inline.h, here for any framing. */
int bw_framer_parse(bw_framer_t *p, const uint8_t **data, size_t *len, const uint8_t **frame,
                    size_t *size)
{
    return bw_framer_parse_as(p, p->fmt, data, len, frame, size);
}

int bw_framer_finish(bw_framer_t *p, const uint8_t **frame, size_t *size)
{
    for (;;) {
        const uint8_t *none = NULL;
        size_t zero = 0;
        int rc = bw_framer_parse(p, &none, &zero, frame, size);
        if (rc != 0 || p->held == 0)
            return rc;
        p->stats.length_errors++;
        bw_fr_rescan(p, p->fmt, 1);
    }
}
#endif
