/*
 * Which robot protocol a stream of bytes is in: the bytes a robot sent,
 * tried against every family's parser, so that a host speaking the wrong
 * family's protocol can say which family it is hearing.
 *
 *     bw_sniff_t s;
 *     bw_sniff(bytes, n, &s);
 *     if (s.best >= 0 && s.score[s.best].confidence == BW_SNIFF_STRONG)
 *         ... s.score[s.best].family ...
 *
 * Evidence differs by family. Kobuki, P2OS, rflex and Create Stream frames
 * carry a header and a checksum: a frame that passes is hard to get by
 * chance. lobot's acknowledgements have no checksum (a '$' and any 53 bytes
 * pass the host's parser), so only a SENSORS whose fixed fields hold values
 * a Create can send counts, with the acknowledgements right next to one.
 * RBSM has neither header nor checksum: only a run of messages, one after
 * another, each with a known id and its 0x0A footer six bytes on, counts.
 *
 * Memory: allocates nothing (each parser lives on the stack for the call).
 * Time: no clock. Threads: reentrant. Cost: one pass of each family's parser
 * over the bytes.
 */
#ifndef BOTWIRE_SNIFF_H
#define BOTWIRE_SNIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BW_SNIFF_FAMILIES 6

typedef enum {
    BW_SNIFF_NONE = 0, /* nothing of this family's protocol */
    BW_SNIFF_WEAK,     /* a frame or two, among bytes it does not explain */
    /* This family's frames explain a good share of the bytes (a quarter
     * where frames carry a checksum, half for lobot and RBSM), and there
     * are enough of them that chance does not make them (see above). */
    BW_SNIFF_STRONG,
} bw_sniff_confidence_t;

typedef struct {
    const char *family;    /* "kobuki", "p2os", "lobot", "create", "rbsm", "rflex" */
    size_t explained;      /* bytes in frames that count as evidence (see above) */
    size_t frames;         /* those frames */
    bw_sniff_confidence_t confidence;
} bw_sniff_score_t;

typedef struct {
    size_t n;                                  /* bytes looked at */
    bw_sniff_score_t score[BW_SNIFF_FAMILIES]; /* one per family, in the order above */
    /* The family that explains the most bytes among those with at least
     * BW_SNIFF_WEAK (the stronger on a tie), or -1 when none does. */
    int best;
} bw_sniff_t;

/* Scores n bytes as a robot sent them (from the start of a session or from
 * anywhere in its stream; a frame cut at either end is not held against a
 * family) against every family. data may be NULL when n is 0. */
void bw_sniff(const uint8_t *data, size_t n, bw_sniff_t *out);

/* The score of a family in s, or NULL for a name it has not. */
const bw_sniff_score_t *bw_sniff_find(const bw_sniff_t *s, const char *family);

/* A family's protocol in words, for messages: "Kobuki", "P2OS (Pioneer)",
 * "the Command Module protocol (lobot)", "the Create Open Interface",
 * "RBSM (RoboBuggy)", "rflex (RWI)"; NULL for an unknown family. */
const char *bw_sniff_protocol(const char *family);

/* True for the families whose robots send nothing until the host speaks
 * their protocol (P2OS, Create, rflex): silence on the line says little
 * about which family is there. */
bool bw_sniff_speaks_when_spoken_to(const char *family);

#ifdef __cplusplus
}
#endif

#endif
