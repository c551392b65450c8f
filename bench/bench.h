/* Benchmarks of the protocol codecs, run by `botwire bench` and `make bench`. */
#ifndef BOTWIRE_BENCH_H
#define BOTWIRE_BENCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *proto;
    double framing_mb_s; /* framing and checksum only */
    double decode_mb_s;  /* framing, checksum and decoding every message */
    double frames_per_s; /* frames per second, full decode */
    size_t stream_bytes; /* size of the benchmark stream */
    long heap_allocs;    /* allocations during the timed loops; -1 if not counted */
    double sim_hour_s;   /* wall seconds for one hour of robot time; -1 if not run */
} bench_result_t;

/* Runs the Kobuki parser benchmark for about `seconds` per measurement. */
int bench_kobuki(double seconds, bench_result_t *r);

/* Runs the emulated Kobuki and its driver for robot_seconds of virtual time,
 * driving squares; returns the wall seconds taken, or -1 on failure. */
double bench_kobuki_hour(double robot_seconds);

/* Heap allocations made so far by this process, or -1 where they cannot be
 * counted (sanitizer builds replace the allocator). */
long bench_alloc_count(void);

/* Monotonic seconds. */
double bench_now(void);

/*
 * A realistic Kobuki feedback stream: `frames` frames at 50 Hz as a robot
 * sends them (core, docking IR, inertial, cliff, current, raw gyro with 2 or
 * 3 samples, general-purpose input), the robot driving slowly forward.
 * Returns the bytes written (stops before a frame that would not fit).
 */
size_t bench_kobuki_stream(uint8_t *buf, size_t cap, unsigned frames, uint32_t seed);

#endif
