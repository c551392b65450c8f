/* Which robot is there (base.h: bw_base_heard): a session's first bytes
 * scored against every family (sniff.c), and a robot of another family
 * named and let alone. */
#include <string.h>

#include "base_internal.h"

/* ---- which robot is there --------------------------------------------------------- */

void bw_base_heard_reset(bw_base_t *b, double now)
{
    b->heard_len = 0;
    b->heard_total = 0;
    b->wrong = false;
    b->unexplained = false;
    b->opened_at = now;
    b->last_poll = now;
    /* An in-process robot is of the base's family by construction. */
    b->sniffing = !b->device;
    b->heard_family = b->device ? b->ops->family : NULL;
    b->heard_sure = b->device != NULL;
}

/* The robot is not of this family: offline until the port is reopened,
 * and it hears nothing more from us nor we from it. */
void bw_base_set_wrong(bw_base_t *b)
{
    b->changes++;
    b->wrong = true;
    b->sniffing = false;
    b->st.online = false;
    bw_base_slot_update(b);
}

/* The robot's first bytes, scored against every family until one explains
 * them beyond doubt. A robot of another family is named and let alone: its
 * bytes may still pass this family's parser (a lobot SENSORS is a '$' and
 * any 53 bytes), so the verdict does not wait for the driver to fail; and a
 * driver that came online on HEARD_JUDGE bytes its family's frames do not
 * explain at all (noise, a wrong baud rate) is put offline the same way.
 * The whole buffer is scored again at every read that adds to it, until the
 * verdict or the buffer is full: a session's first few KB, once. */
#define HEARD_JUDGE 1024
void bw_base_sniff(bw_base_t *b, const uint8_t *data, size_t n)
{
    size_t room = sizeof b->heard - b->heard_len, take = n < room ? n : room;
    memcpy(b->heard + b->heard_len, data, take);
    b->heard_len += take;
    bw_sniff_t s;
    bw_sniff(b->heard, b->heard_len, &s);
    const bw_sniff_score_t *own = bw_sniff_find(&s, b->ops->family);
    const bw_sniff_score_t *best = s.best >= 0 ? &s.score[s.best] : NULL;
    b->heard_family = best ? best->family : NULL;
    if (own->confidence == BW_SNIFF_STRONG) {
        b->heard_family = own->family;
        b->heard_sure = true;
        b->sniffing = false;
    } else if (best && best != own && best->confidence == BW_SNIFF_STRONG &&
               4 * own->explained < best->explained) {
        b->heard_sure = true;
        bw_base_set_wrong(b);
    } else if (own->confidence == BW_SNIFF_NONE && b->heard_len >= HEARD_JUDGE) {
        b->unexplained = true; /* online on these bytes would be on nothing */
        if (b->st.online)
            bw_base_set_wrong(b);
    }
    if (b->heard_len == sizeof b->heard)
        b->sniffing = false; /* as sure as it gets: family may stay a guess */
}

void bw_base_heard(const bw_base_t *b, bw_base_heard_t *h)
{
    h->bytes = b->heard_total;
    h->family = b->heard_family;
    h->sure = b->heard_sure;
    h->wrong = b->wrong;
    h->closed_unheard = b->closed_unheard;
}
