/* strtab — see strtab.h.
 *
 * Layout in the arena:
 *   each string:   [u32 len][u32 hash][bytes ...][NUL]      (one arena_alloc per distinct string)
 *   id → string:   `entries`, an array of pointers to the record above, grown by doubling (old arrays are
 *                  abandoned in the arena; waste ≤ the final array)
 *   bytes → id:    a hashtab whose slots carry the hash, with `strtab_equal` comparing length and bytes
 *
 * Interning a string that is already present costs one hash over its bytes (8 bytes per step) plus one
 * probe, usually a single memcmp. */
#include "strtab.h"

#include <string.h>

#include "hashtab.h"

#define STRTAB_INITIAL_ENTRIES 64u

typedef struct strtab_key {
    const char *s;
    size_t len;
} strtab_key;

struct strtab {
    arena *arena;
    hashtab index;
    unsigned char **entries; /* id → record */
    uint32_t count;
    uint32_t cap;
    size_t payload_bytes;
};

static uint32_t strtab_rec_len(const unsigned char *rec)
{
    uint32_t len;
    memcpy(&len, rec, sizeof len);
    return len;
}

static int strtab_equal(const void *ctx, uint32_t value, const void *key)
{
    const strtab *t = ctx;
    const strtab_key *k = key;
    const unsigned char *rec = t->entries[value];
    return strtab_rec_len(rec) == k->len && memcmp(rec + 8, k->s, k->len) == 0;
}

static const hashtab_type strtab_hashtab_type = {.equal = strtab_equal};

static int strtab_grow_entries(strtab *t)
{
    uint32_t cap = t->cap ? t->cap * 2 : STRTAB_INITIAL_ENTRIES;
    unsigned char **e = arena_alloc(t->arena, (size_t)cap * sizeof *e);
    if (!e)
        return -1;
    if (t->count)
        memcpy(e, t->entries, (size_t)t->count * sizeof *e);
    t->entries = e;
    t->cap = cap;
    return 0;
}

/* Store a new record and index it; -1 on arena exhaustion. */
static int strtab_add(strtab *t, const char *s, size_t len, uint32_t hash, uint32_t *id)
{
    if (t->count == t->cap && strtab_grow_entries(t) != 0)
        return -1;
    unsigned char *rec = arena_alloc(t->arena, 8 + len + 1);
    if (!rec)
        return -1;
    uint32_t len32 = (uint32_t)len;
    memcpy(rec, &len32, 4);
    memcpy(rec + 4, &hash, 4);
    if (len)
        memcpy(rec + 8, s, len);
    rec[8 + len] = '\0';
    t->entries[t->count] = rec;
    if (hashtab_insert(&t->index, hash, t->count) != 0)
        return -1;
    *id = t->count++;
    t->payload_bytes += 8 + len + 1;
    return 0;
}

strtab *strtab_new(arena *a)
{
    strtab *t = arena_calloc(a, 1, sizeof *t);
    if (!t)
        return NULL;
    t->arena = a;
    hashtab_init(&t->index, &strtab_hashtab_type, t, a);
    uint32_t id;
    if (strtab_add(t, "", 0, hashtab_hash_bytes("", 0), &id) != 0)
        return NULL;
    return t;
}

int strtab_intern(strtab *t, const char *s, size_t len, uint32_t *id, nl_error *err)
{
    if (len == 0) {
        *id = 0;
        return 0;
    }
    if (len > STRTAB_STRING_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "string of %zu bytes exceeds STRTAB_STRING_MAX (%zu)",
                            len, STRTAB_STRING_MAX);
    uint32_t hash = hashtab_hash_bytes(s, len);
    strtab_key key = {s, len};
    if (hashtab_find(&t->index, hash, &key, id))
        return 0;
    if (t->count >= STRTAB_COUNT_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "more than STRTAB_COUNT_MAX (%u) distinct strings",
                            (unsigned)STRTAB_COUNT_MAX);
    if (strtab_add(t, s, len, hash, id) != 0)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory interning a %zu-byte string", len);
    return 0;
}

uint32_t strtab_find(const strtab *t, const char *s, size_t len)
{
    if (len == 0)
        return 0;
    strtab_key key = {s, len};
    uint32_t id;
    return hashtab_find(&t->index, hashtab_hash_bytes(s, len), &key, &id) ? id : STRTAB_NONE;
}

const char *strtab_str(const strtab *t, uint32_t id, size_t *len)
{
    if (!t || id >= t->count)
        return NULL;
    const unsigned char *rec = t->entries[id];
    if (len)
        *len = strtab_rec_len(rec);
    return (const char *)rec + 8;
}

uint32_t strtab_count(const strtab *t)
{
    return t->count;
}

size_t strtab_bytes(const strtab *t)
{
    return t->payload_bytes + (size_t)t->cap * sizeof(unsigned char *) + hashtab_bytes(&t->index);
}
