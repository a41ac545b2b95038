/* kvlist — see kvlist.h.
 *
 * Entries are an array in the arena, grown by doubling (old arrays abandoned in the arena); a hashtab maps
 * key id → entry index so set and get are O(1) even for a hostile record with many keys. */
#include "kvlist.h"

#include <math.h>
#include <string.h>

#include "hashtab.h"

struct kvlist {
    arena *arena;
    const strtab *names;
    hashtab index;
    kvlist_entry *entries;
    uint32_t count;
    uint32_t cap;
};

static int kvlist_equal(const void *ctx, uint32_t value, const void *key)
{
    const kvlist *l = ctx;
    return l->entries[value].key == *(const uint32_t *)key;
}

static const hashtab_type kvlist_type = {.equal = kvlist_equal};

kvlist *kvlist_new(arena *a, const strtab *names)
{
    kvlist *l = arena_calloc(a, 1, sizeof *l);
    if (!l)
        return NULL;
    l->arena = a;
    l->names = names;
    hashtab_init(&l->index, &kvlist_type, l, a);
    return l;
}

static int kvlist_grow(kvlist *l)
{
    uint32_t cap = l->cap ? l->cap * 2 : 32;
    kvlist_entry *e = arena_alloc(l->arena, (size_t)cap * sizeof *e);
    if (!e)
        return -1;
    if (l->count)
        memcpy(e, l->entries, (size_t)l->count * sizeof *e);
    l->entries = e;
    l->cap = cap;
    return 0;
}

int kvlist_set(kvlist *l, const kvlist_entry *e, nl_error *err)
{
    uint32_t hash = hashtab_hash_u32(e->key);
    uint32_t idx;
    if (hashtab_find(&l->index, hash, &e->key, &idx)) {
        l->entries[idx] = *e;
        return 0;
    }
    if (l->count >= KVLIST_ENTRIES_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "record has more than KVLIST_ENTRIES_MAX (%u) keys",
                            (unsigned)KVLIST_ENTRIES_MAX);
    if (l->count == l->cap && kvlist_grow(l) != 0)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory adding a record key");
    l->entries[l->count] = *e;
    if (hashtab_insert(&l->index, hash, l->count) != 0)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory adding a record key");
    l->count++;
    return 0;
}

size_t kvlist_count(const kvlist *l)
{
    return l ? l->count : 0;
}

const kvlist_entry *kvlist_at(const kvlist *l, size_t i)
{
    return l && i < l->count ? &l->entries[i] : NULL;
}

const kvlist_entry *kvlist_get(const kvlist *l, const char *key)
{
    if (!l || !key)
        return NULL;
    uint32_t id = strtab_find(l->names, key, strlen(key));
    uint32_t idx;
    if (id == STRTAB_NONE || !hashtab_find(&l->index, hashtab_hash_u32(id), &id, &idx))
        return NULL;
    return &l->entries[idx];
}

int kvlist_get_i64(const kvlist *l, const char *key, int64_t *out)
{
    const kvlist_entry *e = kvlist_get(l, key);
    if (!e)
        return 0;
    switch (e->kind) {
    case KVLIST_INT:
    case KVLIST_BOOL: *out = e->i; return 1;
    case KVLIST_UINT:
        if (e->u > (uint64_t)INT64_MAX)
            return 0;
        *out = (int64_t)e->u;
        return 1;
    case KVLIST_DOUBLE:
        /* -2^63 is exact; 2^63 is the first double above INT64_MAX. */
        if (!isfinite(e->num) || e->num != floor(e->num) || e->num < -9223372036854775808.0 ||
            e->num >= 9223372036854775808.0)
            return 0;
        *out = (int64_t)e->num;
        return 1;
    default: return 0;
    }
}

int kvlist_get_num(const kvlist *l, const char *key, double *out)
{
    const kvlist_entry *e = kvlist_get(l, key);
    if (!e || e->kind == KVLIST_NULL || e->kind == KVLIST_STRING || e->kind == KVLIST_COMPOUND)
        return 0;
    *out = e->num;
    return 1;
}

int kvlist_get_str(const kvlist *l, const char *key, const char **out)
{
    const kvlist_entry *e = kvlist_get(l, key);
    if (!e || e->kind != KVLIST_STRING)
        return 0;
    *out = strtab_str(l->names, e->text, NULL);
    return 1;
}

const char *kvlist_key_str(const kvlist *l, const kvlist_entry *e)
{
    return strtab_str(l->names, e->key, NULL);
}

const char *kvlist_text_str(const kvlist *l, const kvlist_entry *e)
{
    return strtab_str(l->names, e->text, NULL);
}
