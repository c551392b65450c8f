/*
 * libFuzzer harness for the small framer (BW_SMALL: what a firmware built for
 * size takes) against the fast one, on the Kobuki, P2OS and rflex framings.
 * The first input byte picks the framing, the second how the small framer's
 * reads are cut; the rest is the stream.
 *
 * Invariant checked: from the same bytes both give the same frames, the same
 * rejections in the same order, and the same counters, during the stream
 * and at its end.
 */
#include "botwire/kobuki.h"
#include "botwire/p2os.h"
#include "botwire/rflex.h"

#include <stdlib.h>
#include <string.h>

/* The small framer, built here under other names beside the fast one the
 * library has. */
#undef BW_SMALL
#define BW_SMALL 1
#define bw_framer_init small_framer_init
#define bw_framer_parse small_framer_parse
#define bw_framer_finish small_framer_finish
#define bw_framer_embeds small_framer_embeds
bool small_framer_embeds(const bw_framing_t *fmt, const uint8_t *frame, size_t size);
void small_framer_init(bw_framer_t *p, const bw_framing_t *fmt);
int small_framer_parse(bw_framer_t *p, const uint8_t **data, size_t *len, const uint8_t **frame,
                       size_t *size);
int small_framer_finish(bw_framer_t *p, const uint8_t **frame, size_t *size);
#include "../src/core/framer.c"
#include "check.h"
#undef bw_framer_init
#undef bw_framer_parse
#undef bw_framer_finish
#undef bw_framer_embeds

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one call gave: the result and, for a frame, a digest of its bytes. */
typedef struct {
    int rc;
    uint64_t digest;
} event_t;

enum { MAX_EVENTS = 4096 };

static bool same_stats(const bw_parse_stats_t *a, const bw_parse_stats_t *b)
{
    return a->frames == b->frames && a->checksum_errors == b->checksum_errors &&
           a->length_errors == b->length_errors && a->skipped_bytes == b->skipped_bytes;
}

static event_t event(int rc, const uint8_t *f, size_t fs)
{
    event_t e = { rc, 0 };
    if (rc == 1) {
        e.digest = 14695981039346656037u ^ fs;
        for (size_t i = 0; i < fs; i++)
            e.digest = (e.digest ^ f[i]) * 1099511628211u;
    }
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static event_t fast[MAX_EVENTS];
    if (size < 2)
        return 0;
    const bw_framing_t *fmts[3] = { bw_kobuki_framing(), bw_p2os_framing(), bw_rflex_framing() };
    const bw_framing_t *fmt = fmts[data[0] % 3];
    uint32_t cut = data[1];
    data += 2;
    size -= 2;

    /* The fast framer, in one read. */
    bw_framer_t a;
    bw_framer_init(&a, fmt);
    size_t nev = 0;
    const uint8_t *d = data, *f;
    size_t n = size, fs;
    int rc;
    while ((rc = bw_framer_parse(&a, &d, &n, &f, &fs)) != 0 && nev < MAX_EVENTS)
        fast[nev++] = event(rc, f, fs);
    if (rc != 0)
        return 0; /* more events than kept: not compared */
    while ((rc = bw_framer_finish(&a, &f, &fs)) != 0 && nev < MAX_EVENTS)
        fast[nev++] = event(rc, f, fs);
    if (rc != 0)
        return 0;

    /* The small framer, in reads cut anywhere: the same events in order. */
    static bw_framer_t b;
    small_framer_init(&b, fmt);
    size_t k = 0;
    for (size_t off = 0; off < size;) {
        cut = cut * 1103515245u + 12345u;
        size_t chunk = 1 + (cut >> 16) % 40;
        if (chunk > size - off)
            chunk = size - off;
        d = data + off;
        n = chunk;
        off += chunk;
        while ((rc = small_framer_parse(&b, &d, &n, &f, &fs)) != 0) {
            event_t e = event(rc, f, fs);
            CHECK(k < nev && e.rc == fast[k].rc && e.digest == fast[k].digest);
            k++;
        }
        CHECK(n == 0);
    }
    while ((rc = small_framer_finish(&b, &f, &fs)) != 0) {
        event_t e = event(rc, f, fs);
        CHECK(k < nev && e.rc == fast[k].rc && e.digest == fast[k].digest);
        k++;
    }
    CHECK(k == nev);
    CHECK(same_stats(&a.stats, &b.stats));
    CHECK(a.held == 0 && b.held == 0);
    return 0;
}
