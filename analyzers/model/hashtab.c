/* hashtab — see hashtab.h.
 *
 * Design: linear probing over a power-of-two array of 64-bit slots. A slot packs the full 32-bit hash
 * (high half) and value+1 (low half), so 0 means empty, a probe rejects most non-matches without touching
 * the owner's entries, and growing rehashes from the stored hashes without calling back into the owner.
 * There is no deletion (models only grow), so probing stops at the first empty slot.
 *
 * Growth: when count would exceed capacity/2 the slot array doubles; the new array comes from the arena and
 * the old one is abandoned there (its bytes die with the model; total waste ≤ the final array's size).
 * First allocation: 64 slots. */
#include "hashtab.h"

#include <string.h>

#define HASHTAB_INITIAL_SLOTS 64u

void hashtab_init(hashtab *h, const hashtab_type *type, const void *ctx, arena *a)
{
    memset(h, 0, sizeof *h);
    h->type = type;
    h->ctx = ctx;
    h->arena = a;
}

int hashtab_find(const hashtab *h, uint32_t hash, const void *key, uint32_t *value)
{
    if (!h->slots)
        return 0;
    uint32_t i = hash & h->mask;
    for (;;) {
        uint64_t s = h->slots[i];
        if (!s)
            return 0;
        if ((uint32_t)(s >> 32) == hash) {
            uint32_t v = (uint32_t)s - 1;
            if (h->type->equal(h->ctx, v, key)) {
                *value = v;
                return 1;
            }
        }
        i = (i + 1) & h->mask;
    }
}

static void hashtab_place(uint64_t *slots, uint32_t mask, uint64_t s)
{
    uint32_t i = (uint32_t)(s >> 32) & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = s;
}

static int hashtab_grow(hashtab *h)
{
    uint32_t cap = h->slots ? (h->mask + 1) * 2 : HASHTAB_INITIAL_SLOTS;
    uint64_t *slots = arena_calloc(h->arena, cap, sizeof *slots);
    if (!slots)
        return -1;
    if (h->slots) {
        for (uint32_t i = 0; i <= h->mask; i++)
            if (h->slots[i])
                hashtab_place(slots, cap - 1, h->slots[i]);
    }
    h->slots = slots;
    h->mask = cap - 1;
    return 0;
}

int hashtab_insert(hashtab *h, uint32_t hash, uint32_t value)
{
    if (value == UINT32_MAX || h->count >= HASHTAB_COUNT_MAX)
        return -1;
    if ((!h->slots || (h->count + 1) * 2 > h->mask + 1) && hashtab_grow(h) != 0)
        return -1;
    hashtab_place(h->slots, h->mask, ((uint64_t)hash << 32) | ((uint64_t)value + 1));
    h->count++;
    return 0;
}

size_t hashtab_bytes(const hashtab *h)
{
    return h->slots ? ((size_t)h->mask + 1) * sizeof(uint64_t) : 0;
}

/* Multiply-xorshift mixing (the finaliser of murmur3/splitmix64). */
static uint64_t hashtab_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

uint32_t hashtab_hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)len * 0x100000001b3ull);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x87c37b91114253d5ull;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    if (len) {
        uint64_t w = 0;
        memcpy(&w, p, len);
        h = (h ^ w) * 0x4cf5ad432745937full;
    }
    return (uint32_t)hashtab_mix(h);
}

uint32_t hashtab_hash_u32(uint32_t x)
{
    return (uint32_t)hashtab_mix((uint64_t)x + 0x9e3779b97f4a7c15ull);
}
