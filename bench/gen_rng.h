/* gen_rng — the synthetic profile generator's deterministic PRNG: xoshiro256** seeded through splitmix64.
 *
 * Owns: nothing; the state lives in a caller-owned gen_rng (there is no global generator).
 * Threads: one gen_rng per thread of use; the functions are pure arithmetic on the struct.
 * Determinism: only 64-bit integer arithmetic and exact conversions, so the same (seed, stream) gives the
 * same sequence on every platform and compiler. Changing the order of draws changes the output; the
 * generator documents where each draw happens (gen_model.c). */
#ifndef NL_GEN_RNG_H
#define NL_GEN_RNG_H

#include <stdint.h>

typedef struct gen_rng {
    uint64_t s[4];
} gen_rng;

/* splitmix64 step: used for seeding and as a stand-alone hash of 64-bit keys. */
static inline uint64_t gen_rng_mix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Seed one independent stream: (seed, stream) pairs never share state. */
static inline void gen_rng_seed(gen_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = gen_rng_mix(&x);
}

static inline uint64_t gen_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t gen_rng_next(gen_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = gen_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = gen_rng_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n) for n > 0 (modulo bias below 2^-40 for the small n used here). */
static inline uint64_t gen_rng_below(gen_rng *r, uint64_t n)
{
    return gen_rng_next(r) % n;
}

/* Uniform in [lo, hi], inclusive; lo <= hi. */
static inline int64_t gen_rng_range(gen_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)gen_rng_below(r, (uint64_t)(hi - lo) + 1);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double gen_rng_unit(gen_rng *r)
{
    return (double)(gen_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* True with probability percent/100. */
static inline int gen_rng_chance(gen_rng *r, unsigned percent)
{
    return gen_rng_below(r, 100) < percent;
}

#endif
