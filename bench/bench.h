/* Benchmarks of the protocol codecs and the emulated robots, run by
 * `botwire bench` and `make bench`. */
#ifndef BOTWIRE_BENCH_H
#define BOTWIRE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a pass saw: frames, and the messages in them (a Kobuki frame's
 * sub-payloads, a Create Stream frame's packets; one a frame elsewhere). */
typedef struct {
    uint64_t frames;
    uint64_t messages;
} bench_count_t;

typedef struct {
    const char *proto;
    const char *shape;
    double framing_mb_s;   /* framing and checksum only */
    double decode_mb_s;    /* framing, checksum and decoding every message */
    double frames_per_s;   /* frames per second, full decode */
    double messages_per_s; /* messages per second, full decode */
    size_t stream_bytes;   /* size of the benchmark stream */
    long heap_allocs;      /* allocations during the timed loops; -1 if not counted */
} bench_result_t;

#include "botwire/wire.h"

/* A pass over a stream: returns something computed from what was parsed, so
 * the work cannot be optimised away, and adds what it saw to *n. ctx is the
 * protocol's framing (passes that need it). */
typedef uint64_t (*bench_pass_fn)(const void *ctx, const uint8_t *stream, size_t len,
                                  bench_count_t *n);

/* A pass of a protocol with a parser of its own: framing and its checks
 * alone (decode false), or every message decoded too. */
typedef uint64_t (*bench_own_pass_fn)(const uint8_t *stream, size_t len, bench_count_t *n,
                                      bool decode);

/* A growing byte buffer (the benchmark's streams; the harness allocates,
 * never the passes it times). */
typedef struct {
    uint8_t *p;
    size_t len, cap;
    bool failed;
} bench_buf_t;

/* Appends n bytes; on failure sets b->failed. */
void bench_buf_add(bench_buf_t *b, const uint8_t *data, size_t n);

/* A shape of stream: the frames one kind of client makes the robot send. */
typedef struct {
    const char *name;
    const char *what;       /* one line for --help */
    const char *sim_url;    /* recorded from this emulated robot (NULL: the family's) */
    double capture_seconds; /* robot time recorded (0: the family's) */
    /* Rebuilds the recording into the shape's frames with the codec's own
     * encoders (NULL: the recording as it is). 0, or -1 on failure. */
    int (*build)(const uint8_t *rec, size_t len, bench_buf_t *out);
} bench_shape_t;

/* One protocol: its emulated robot's URL, how it is parsed (the shared
 * framer over its framing plus its full decode pass, or its own parser),
 * and its shapes (the first is the recording as it is). */
typedef struct {
    const char *name;
    const char *sim_url;
    double capture_seconds; /* robot time recorded for the stream */
    const bw_framing_t *(*framing)(void); /* the shared framer's protocols */
    bench_pass_fn decode;                 /* ...their full decode */
    bench_own_pass_fn own;                /* or: a parser of its own */
    const bench_shape_t *shapes;
    size_t nshapes;
} bench_proto_t;

extern const bench_proto_t bench_kobuki;
extern const bench_proto_t bench_p2os;
extern const bench_proto_t bench_lobot;
extern const bench_proto_t bench_create;
extern const bench_proto_t bench_rbsm;
extern const bench_proto_t bench_rflex;

/* The stream of a shape: recorded off the link of its emulated robot
 * driving squares, then rebuilt into the shape's frames. 0 or -1; the
 * caller frees out->p. */
int bench_stream(const bench_proto_t *proto, const bench_shape_t *shape, bench_buf_t *out);

/* One full pass of a protocol's decode over a stream, as the benchmark
 * times it. */
uint64_t bench_decode_pass(const bench_proto_t *proto, const uint8_t *stream, size_t len,
                           bench_count_t *n);

/* Measures a protocol on one of its shapes, for about `seconds` per
 * measurement (framing alone, then full decode). */
int bench_run(const bench_proto_t *proto, const bench_shape_t *shape, double seconds,
              bench_result_t *r);

/* Wall seconds for one hour of robot time of the protocol's emulated robot
 * and its driver, driving squares in virtual time; -1 on failure. */
double bench_sim_hour(const bench_proto_t *proto);

/* Reads arrive in chunks of this size, as from a serial port or a file. */
#define BENCH_CHUNK 4096

/* Heap allocations made so far by this process, or -1 where they cannot be
 * counted (sanitizer builds replace the allocator). */
long bench_alloc_count(void);

/* Monotonic seconds. */
double bench_now(void);

/* `botwire bench --record` (record.c): a stream written as a record in one
 * format, pass after pass for `seconds`; the fastest pass's MB/s of wire
 * bytes and the file's size. */
typedef struct {
    const char *name;    /* "jsonl", "mcap-zstd", ... */
    bool mcap;
    int compression;     /* bw_mcap_compression_t, for MCAP */
} bench_record_format_t;
typedef struct {
    double mb_s;                   /* wire bytes recorded per second */
    unsigned long long file_bytes; /* the file */
    double ratio;                  /* the file's size over the wire bytes' */
} bench_record_result_t;
int bench_record(const uint8_t *stream, size_t len, const bench_record_format_t *f, double seconds,
                 bench_record_result_t *r);

#endif
