/* A bad cable: bit errors, lost and spurious bytes. */
#include <math.h>

#include "botwire/sim.h"
#include "rng.h"

/* Bits until the next error: geometric, so a quiet line costs nothing. */
static uint64_t next_gap(bw_line_t *l)
{
    if (l->ber <= 0)
        return UINT64_MAX;
    double g = floor(log(bw_rng_uniform(&l->rng)) / log1p(-l->ber));
    return g >= 1e18 ? UINT64_MAX : (uint64_t)g;
}

int bw_line_init(bw_line_t *l, double ber, double drop, double insert, uint64_t seed)
{
    if (!(ber >= 0 && ber <= 0.1) || !(drop >= 0 && drop <= 0.5) ||
        !(insert >= 0 && insert <= 0.5))
        return BW_EINVAL;
    *l = (bw_line_t){ ber, drop, insert, bw_rng_seed(seed), 0, 0, 0, 0 };
    l->bits_to_flip = next_gap(l);
    return 0;
}

size_t bw_line_pass(bw_line_t *l, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        if (l->insert > 0 && bw_rng_uniform(&l->rng) < l->insert) {
            out[k++] = (uint8_t)bw_rng_next(&l->rng);
            l->inserted++;
            if (k == cap)
                break;
        }
        if (l->drop > 0 && bw_rng_uniform(&l->rng) < l->drop) {
            l->dropped++;
            continue;
        }
        uint8_t b = in[i];
        while (l->bits_to_flip < 8) {
            b ^= (uint8_t)(1u << l->bits_to_flip);
            l->flipped++;
            uint64_t gap = next_gap(l);
            l->bits_to_flip = gap == UINT64_MAX ? UINT64_MAX : l->bits_to_flip + 1 + gap;
        }
        if (l->bits_to_flip != UINT64_MAX)
            l->bits_to_flip -= 8;
        out[k++] = b;
    }
    return k;
}
