/* The simulation's random numbers: xorshift64*, seeded through splitmix64.
 * Private to src/sim. Deterministic: the same seed gives the same run. */
#ifndef BOTWIRE_SIM_RNG_H
#define BOTWIRE_SIM_RNG_H

#include <stdint.h>

/* splitmix64: spreads neighbouring seeds (1, 2, ...) into unrelated states. */
static inline uint64_t bw_rng_seed(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x ? x : 0x2545F4914F6CDD1Dull; /* xorshift must never hold zero */
}

static inline uint64_t bw_rng_next(uint64_t *st)
{
    uint64_t x = *st;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *st = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in (0, 1): never 0, so a log() of it stays finite. */
static inline double bw_rng_uniform(uint64_t *st)
{
    return ((double)(bw_rng_next(st) >> 11) + 0.5) * 0x1p-53;
}

#endif
