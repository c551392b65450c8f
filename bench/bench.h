/* Benchmarks of the protocol codecs and the emulated robots, run by
 * `botwire bench` and `make bench`. */
#ifndef BOTWIRE_BENCH_H
#define BOTWIRE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *proto;
    double framing_mb_s; /* framing and checksum only */
    double decode_mb_s;  /* framing, checksum and decoding every message */
    double frames_per_s; /* frames per second, full decode */
    size_t stream_bytes; /* size of the benchmark stream */
    long heap_allocs;    /* allocations during the timed loops; -1 if not counted */
    double sim_hour_s;   /* wall seconds for one hour of robot time; -1 on failure */
} bench_result_t;

#include "botwire/wire.h"

/* A pass over a stream: returns something computed from what was parsed, so
 * the work cannot be optimised away, and adds the frames seen to *frames.
 * ctx is the protocol's framing (passes that need it). */
typedef uint64_t (*bench_pass_fn)(const void *ctx, const uint8_t *stream, size_t len,
                                  uint64_t *frames);

/* A pass of a protocol with a parser of its own: framing and its checks
 * alone (decode false), or every message decoded too. */
typedef uint64_t (*bench_own_pass_fn)(const uint8_t *stream, size_t len, uint64_t *frames,
                                      bool decode);

/* One protocol: its emulated robot's URL, and how it is parsed: the shared
 * framer over its framing plus its full decode pass, or its own parser. */
typedef struct {
    const char *name;
    const char *sim_url;
    double capture_seconds; /* robot time recorded for the stream */
    const bw_framing_t *(*framing)(void); /* the shared framer's protocols */
    bench_pass_fn decode;                 /* ...their full decode */
    bench_own_pass_fn own;                /* or: a parser of its own */
} bench_proto_t;

extern const bench_proto_t bench_kobuki;
extern const bench_proto_t bench_p2os;
extern const bench_proto_t bench_lobot;
extern const bench_proto_t bench_create;
extern const bench_proto_t bench_rbsm;
extern const bench_proto_t bench_rflex;

/* Measures a protocol for about `seconds` per measurement. The stream is
 * what its emulated robot sends while driving squares, recorded off the
 * link; then one hour of robot time of robot and driver is timed. */
int bench_run(const bench_proto_t *proto, double seconds, bench_result_t *r);

/* Reads arrive in chunks of this size, as from a serial port or a file. */
#define BENCH_CHUNK 4096

/* Heap allocations made so far by this process, or -1 where they cannot be
 * counted (sanitizer builds replace the allocator). */
long bench_alloc_count(void);

/* Monotonic seconds. */
double bench_now(void);

#endif
