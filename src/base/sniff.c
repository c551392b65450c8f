/* Which protocol a robot's bytes are in: every family's parser over them,
 * each frame weighed by how hard it is to get by chance. */
#include <string.h>

#include "botwire/create.h"
#include "botwire/kobuki.h"
#include "botwire/lobot.h"
#include "botwire/p2os.h"
#include "botwire/rbsm.h"
#include "botwire/rflex.h"
#include "botwire/sniff.h"

enum { KOBUKI, P2OS, LOBOT, CREATE, RBSM, RFLEX };

/* BW_SNIFF_STRONG: at least strong_frames frames explaining at least
 * 1/share of the bytes. A checksummed frame is near proof by itself, and a
 * bit error rate of 1e-3 already damages half of a Kobuki's 80-byte
 * frames: a quarter of the bytes do. lobot and RBSM frames prove less each:
 * half. */
static const struct {
    const char *family, *protocol;
    size_t strong_frames, share, weak_frames;
    bool when_spoken_to;
} families[BW_SNIFF_FAMILIES] = {
    [KOBUKI] = { "kobuki", "Kobuki", 2, 4, 1, false },
    [P2OS] = { "p2os", "P2OS (Pioneer)", 2, 4, 1, true },
    /* One SENSORS that passes holds some 80 bits a Create fixes (below). */
    [LOBOT] = { "lobot", "the Command Module protocol (lobot)", 1, 2, 1, false },
    [CREATE] = { "create", "the Create Open Interface", 2, 4, 1, true },
    /* Eight bits of footer a message: a run of them, not one. */
    [RBSM] = { "rbsm", "RBSM (RoboBuggy)", 4, 2, 2, false },
    [RFLEX] = { "rflex", "rflex (RWI)", 2, 4, 1, true },
};

/* Kobuki, P2OS, rflex: the shared framer; every frame it takes passed its
 * header, length and checksum. */
static void score_framed(const bw_framing_t *fmt, const uint8_t *data, size_t n,
                         bw_sniff_score_t *s)
{
    bw_framer_t p;
    bw_framer_init(&p, fmt);
    const uint8_t *frame;
    size_t size;
    int rc;
    while ((rc = bw_framer_parse(&p, &data, &n, &frame, &size)) != 0)
        if (rc > 0) {
            s->frames++;
            s->explained += size;
        }
    /* A candidate cut by the end of the bytes is no frame and no evidence
     * against: the finish would only count it. */
}

/* Create Stream frames, with either reading of its checksum. */
static void score_create(const uint8_t *data, size_t n, bw_sniff_score_t *s)
{
    const bw_create_sum_t sums[] = { BW_CREATE_SUM_WITH_HEADER, BW_CREATE_SUM_AFTER_HEADER };
    for (size_t i = 0; i < 2; i++) {
        bw_create_stream_parser_t p;
        bw_create_stream_parser_init(&p, sums[i]);
        const uint8_t *d = data;
        size_t left = n, frames = 0, explained = 0;
        bw_create_stream_frame_t f;
        int rc;
        while ((rc = bw_create_stream_parse(&p, &d, &left, &f)) != 0)
            if (rc > 0) {
                frames++;
                explained += (size_t)f.len + 3u;
            }
        if (explained > s->explained) {
            s->frames = frames;
            s->explained = explained;
        }
    }
}

/* The fields of Create sensor group 6 (lobot's SENSORS bytes 0..51, in
 * the order of BW_CREATE_SENSOR_LIST) that only some values fill, and the
 * spin flag: a '$' with 53 bytes of another protocol behind it almost never
 * passes all of them. Offsets into the data after the '$'. */
enum {
    S_BUMPS = 0, S_WALL = 1, S_VIRTUAL_WALL = 6, S_OVERCURRENTS = 7, S_UNUSED = 8,
    S_BUTTONS = 11, S_CHARGING_STATE = 16, S_CARGO_DIGITAL = 36, S_CHARGING_SOURCES = 39,
    S_OI_MODE = 40, S_SONG_NUMBER = 41, S_SONG_PLAYING = 42, S_STREAM_PACKETS = 43,
};

static bool plausible_sensors(const uint8_t *d)
{
    if (d[S_BUMPS] & 0x80) /* bumps and wheel drops; lobot's rear bumps in 0x60 */
        return false;
    for (size_t i = S_WALL; i <= S_VIRTUAL_WALL; i++) /* wall, four cliffs, virtual wall */
        if (d[i] > 1)
            return false;
    return d[S_OVERCURRENTS] <= 0x1f && d[S_UNUSED] == 0 && d[S_UNUSED + 1] == 0 &&
           (d[S_BUTTONS] & ~0x05) == 0 /* play, advance */
           && d[S_CHARGING_STATE] <= 5 && d[S_CARGO_DIGITAL] <= 0x1f &&
           d[S_CHARGING_SOURCES] <= 3 && d[S_OI_MODE] <= 3 && d[S_SONG_NUMBER] <= 15 &&
           d[S_SONG_PLAYING] <= 1 && d[S_STREAM_PACKETS] <= BW_CREATE_MAX_PACKETS &&
           d[BW_LOBOT_SENSORS_SPIN_FLAG] <= 1;
}

/* lobot: a plausible SENSORS, and the acknowledgements right next to one
 * (READY follows every SENSORS, an event comes just before). */
static void score_lobot(const uint8_t *data, size_t n, bw_sniff_score_t *s)
{
    bw_lobot_ack_parser_t p;
    bw_lobot_ack_parser_init(&p);
    const uint8_t *d = data;
    size_t left = n, prev_end = (size_t)-1, prev_len = 0;
    bool prev_counted = false;
    bw_lobot_ack_frame_t f;
    while (bw_lobot_ack_parse(&p, &d, &left, &f) > 0) {
        size_t end = (size_t)(d - data), len = 1u + f.len, start = end - len;
        bool sensors = f.id == BW_LOBOT_ACK_SENSORS && f.len == BW_LOBOT_SENSORS_SIZE &&
                       plausible_sensors(f.data);
        bool next_to = start == prev_end;
        bool counted = sensors || (next_to && prev_counted);
        if (sensors && next_to && !prev_counted)
            s->explained += prev_len; /* the event just before it */
        if (sensors)
            s->frames++;
        if (counted)
            s->explained += len;
        prev_end = end;
        prev_len = len;
        prev_counted = counted;
    }
}

/* RBSM: runs of two or more messages back to back with known ids. */
static void score_rbsm(const uint8_t *data, size_t n, bw_sniff_score_t *s)
{
    bw_rbsm_parser_t p;
    bw_rbsm_parser_init(&p);
    const uint8_t *d = data;
    size_t left = n, prev_end = (size_t)-1, run = 0;
    bw_rbsm_frame_t f;
    int rc;
    while ((rc = bw_rbsm_parse(&p, &d, &left, &f)) != 0) {
        if (rc < 0)
            continue;
        size_t end = (size_t)(d - data);
        bool known = bw_rbsm_known(f.id);
        if (known && run > 0 && end - BW_RBSM_MSG_LEN == prev_end) {
            run++;
        } else {
            if (run >= 2) {
                s->frames += run;
                s->explained += run * BW_RBSM_MSG_LEN;
            }
            run = known ? 1 : 0;
        }
        prev_end = end;
    }
    if (run >= 2) {
        s->frames += run;
        s->explained += run * BW_RBSM_MSG_LEN;
    }
}

void bw_sniff(const uint8_t *data, size_t n, bw_sniff_t *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->best = -1;
    for (size_t i = 0; i < BW_SNIFF_FAMILIES; i++)
        out->score[i].family = families[i].family;
    if (!data || n == 0)
        return;
    score_framed(bw_kobuki_framing(), data, n, &out->score[KOBUKI]);
    score_framed(bw_p2os_framing(), data, n, &out->score[P2OS]);
    score_framed(bw_rflex_framing(), data, n, &out->score[RFLEX]);
    score_create(data, n, &out->score[CREATE]);
    score_lobot(data, n, &out->score[LOBOT]);
    score_rbsm(data, n, &out->score[RBSM]);
    for (size_t i = 0; i < BW_SNIFF_FAMILIES; i++) {
        bw_sniff_score_t *s = &out->score[i];
        if (s->frames >= families[i].strong_frames && families[i].share * s->explained >= n)
            s->confidence = BW_SNIFF_STRONG;
        else if (s->frames >= families[i].weak_frames)
            s->confidence = BW_SNIFF_WEAK;
        if (s->confidence == BW_SNIFF_NONE)
            continue;
        const bw_sniff_score_t *b = out->best >= 0 ? &out->score[out->best] : NULL;
        if (!b || s->explained > b->explained ||
            (s->explained == b->explained && s->confidence > b->confidence))
            out->best = (int)i;
    }
}

const bw_sniff_score_t *bw_sniff_find(const bw_sniff_t *s, const char *family)
{
    for (size_t i = 0; family && i < BW_SNIFF_FAMILIES; i++)
        if (strcmp(s->score[i].family, family) == 0)
            return &s->score[i];
    return NULL;
}

const char *bw_sniff_protocol(const char *family)
{
    for (size_t i = 0; family && i < BW_SNIFF_FAMILIES; i++)
        if (strcmp(families[i].family, family) == 0)
            return families[i].protocol;
    return NULL;
}

bool bw_sniff_speaks_when_spoken_to(const char *family)
{
    for (size_t i = 0; family && i < BW_SNIFF_FAMILIES; i++)
        if (strcmp(families[i].family, family) == 0)
            return families[i].when_spoken_to;
    return false;
}
