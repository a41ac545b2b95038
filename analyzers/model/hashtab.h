/* hashtab — open-addressing hash index over entries that live elsewhere, parametrised by a type.
 *
 * Owns: only its slot array (in the arena given to hashtab_init). Each slot holds a 32-bit hash and a
 * 32-bit value (an id, a code, an index); the entries themselves live in the owner's storage, and the
 * owner's `hashtab_type.equal` callback compares a stored value against a lookup key (the redis dictType
 * idea). Used by strtab (bytes → id) and by table's string-column dictionaries (id → code).
 * Threads: not thread-safe; lookups on a table nobody mutates may run concurrently.
 * Errors: hashtab_insert returns -1 when the arena cannot grow the slot array (→ NL_ERR_NOMEM). */
#ifndef NL_HASHTAB_H
#define NL_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct hashtab_type {
    /* Nonzero when the entry stored as `value` equals `key`. `ctx` is hashtab.ctx. */
    int (*equal)(const void *ctx, uint32_t value, const void *key);
} hashtab_type;

/* Caller storage; treat fields as private. */
typedef struct hashtab {
    const hashtab_type *type;
    const void *ctx;
    arena *arena;
    uint64_t *slots; /* (hash << 32) | (value + 1); 0 = empty */
    uint32_t mask;   /* capacity - 1; capacity is a power of two */
    uint32_t count;
} hashtab;

/* Largest number of entries (the table keeps load ≤ 1/2). */
#define HASHTAB_COUNT_MAX ((uint32_t)1 << 30)

/* Initialise an empty table (no allocation until the first insert). */
void hashtab_init(hashtab *h, const hashtab_type *type, const void *ctx, arena *a);

/* 1 and *value when an entry equal to `key` with this hash exists, else 0. */
int hashtab_find(const hashtab *h, uint32_t hash, const void *key, uint32_t *value);

/* Add `value` under `hash`; the caller has checked it is absent. 0, or -1 when out of memory or at
 * HASHTAB_COUNT_MAX (the table is unchanged then). value must be < UINT32_MAX. */
int hashtab_insert(hashtab *h, uint32_t hash, uint32_t value) __attribute__((warn_unused_result));

/* Bytes of slot storage (for memory accounting). */
size_t hashtab_bytes(const hashtab *h);

/* A fast non-cryptographic 32-bit hash of bytes (8 bytes per step), and of one 32-bit integer. */
uint32_t hashtab_hash_bytes(const void *data, size_t len);
uint32_t hashtab_hash_u32(uint32_t x);

#endif
