/*
 * The stream invariants of the shared framer (docs/parser-invariants.md),
 * checked the same way for every protocol harness:
 *  - every byte fed is, at every step, in an accepted frame, counted as
 *    skipped, or held, and nothing is held once the stream is finished;
 *  - an accepted frame starts with the header, has a legal length, the size
 *    that length gives, and passes the protocol's check;
 *  - reads cut anywhere give the same frames and counters as one read.
 */
#ifndef BOTWIRE_FUZZ_STREAM_CHECK_H
#define BOTWIRE_FUZZ_STREAM_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "botwire/wire.h"
#include "check.h"

typedef void (*fuzz_frame_fn)(const uint8_t *frame, size_t size, void *ctx);

/* The frames of a pass folded into one number. */
static uint64_t fuzz_digest(uint64_t h, const uint8_t *frame, size_t size)
{
    h = h * 1099511628211u + size;
    for (size_t i = 0; i < size; i++)
        h = (h ^ frame[i]) * 1099511628211u;
    return h;
}

static void fuzz_check_frame(const bw_framing_t *fmt, const uint8_t *f, size_t size)
{
    CHECK(size > fmt->len_at && size <= BW_FRAMER_MAX);
    CHECK(f[0] == fmt->header[0] && f[1] == fmt->header[1]);
    CHECK(f[fmt->len_at] >= fmt->len_min && f[fmt->len_at] <= fmt->len_max);
    CHECK(size == (size_t)f[fmt->len_at] + fmt->overhead);
    CHECK(fmt->check(f, size));
}

/* Feeds data in reads whose sizes `cut` chooses, checks the invariants, and
 * calls on_frame for every frame. */
static void fuzz_stream(const bw_framing_t *fmt, uint32_t cut, const uint8_t *data, size_t size,
                        fuzz_frame_fn on_frame, void *ctx)
{
    bw_framer_t p;
    bw_framer_init(&p, fmt);
    uint64_t digest = 14695981039346656037u;
    size_t fed = 0, in_frames = 0;
    const uint8_t *f;
    size_t fs;
    int rc;
    for (size_t off = 0; off < size;) {
        cut = cut * 1103515245u + 12345u;
        size_t chunk = 1 + (cut >> 16) % 300;
        if (chunk > size - off)
            chunk = size - off;
        const uint8_t *d = data + off;
        size_t n = chunk;
        off += chunk;
        fed += chunk;
        while ((rc = bw_framer_parse(&p, &d, &n, &f, &fs)) != 0) {
            CHECK(rc == 1 || rc == BW_ECHECKSUM || rc == BW_ELENGTH);
            if (rc == 1) {
                fuzz_check_frame(fmt, f, fs);
                in_frames += fs;
                digest = fuzz_digest(digest, f, fs);
                on_frame(f, fs, ctx);
            }
            CHECK(fed - n == in_frames + p.stats.skipped_bytes + (size_t)(p.held - p.drop));
        }
        CHECK(n == 0);
    }
    while ((rc = bw_framer_finish(&p, &f, &fs)) != 0) {
        if (rc == 1) {
            fuzz_check_frame(fmt, f, fs);
            in_frames += fs;
            digest = fuzz_digest(digest, f, fs);
            on_frame(f, fs, ctx);
        }
    }
    CHECK(p.held == 0);
    CHECK(fed == in_frames + p.stats.skipped_bytes);
    CHECK(p.stats.frames * ((size_t)fmt->len_min + fmt->overhead) <= in_frames);

    /* The same input in one read. */
    bw_framer_t w;
    bw_framer_init(&w, fmt);
    uint64_t whole = 14695981039346656037u;
    const uint8_t *d = data;
    size_t n = size;
    while ((rc = bw_framer_parse(&w, &d, &n, &f, &fs)) != 0)
        if (rc == 1)
            whole = fuzz_digest(whole, f, fs);
    while ((rc = bw_framer_finish(&w, &f, &fs)) != 0)
        if (rc == 1)
            whole = fuzz_digest(whole, f, fs);
    CHECK(whole == digest);
    CHECK(memcmp(&w.stats, &p.stats, sizeof p.stats) == 0);
}

#endif
