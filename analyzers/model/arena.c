/* arena — see arena.h.
 *
 * Design: a singly linked list of chunks, newest first. Each chunk is one malloc: a header followed by the
 * payload. Small requests bump `used` in the current chunk; when it is full, a new chunk of `next_chunk`
 * bytes becomes current (ARENA_CHUNK_FIRST, doubling up to `chunk_size`), and the tail of the old one is
 * wasted — at most a quarter of a chunk, because larger requests never go there: a request above
 * next_chunk/4 gets a dedicated chunk that is linked *behind* the current one, so the current chunk keeps
 * serving small requests.
 *
 *   arena ──▶ [hdr|payload.....used|free]──▶ [hdr|big payload]──▶ [hdr|payload]──▶ NULL
 *
 * Invariants: every returned pointer is ARENA_ALIGN-aligned (the header is padded to ARENA_ALIGN and every
 * size is rounded up); `reserved` = Σ malloc'd bytes and never exceeds `limit` when a limit is set. */
#include "arena.h"

#include <stdlib.h>
#include <string.h>

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t size; /* payload bytes */
    size_t used;
    size_t pad_; /* keeps the header a multiple of ARENA_ALIGN on 64-bit targets */
} arena_chunk;

struct arena {
    arena_chunk *head; /* newest chunk; small requests bump here */
    size_t chunk_size; /* largest regular chunk */
    size_t next_chunk; /* size of the next regular chunk */
    size_t used;
    size_t reserved;
    size_t limit; /* 0 = unlimited */
};

_Static_assert(sizeof(arena_chunk) % ARENA_ALIGN == 0, "arena chunk header must keep payload aligned");

static size_t arena_round(size_t n)
{
    return (n + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1);
}

static unsigned char *arena_payload(arena_chunk *c)
{
    return (unsigned char *)(c + 1);
}

arena *arena_new(size_t chunk_size)
{
    arena *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->chunk_size = chunk_size ? arena_round(chunk_size) : ARENA_CHUNK_DEFAULT;
    a->next_chunk = a->chunk_size < ARENA_CHUNK_FIRST ? a->chunk_size : ARENA_CHUNK_FIRST;
    return a;
}

void arena_free(arena *a)
{
    if (!a)
        return;
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

/* malloc one chunk with `payload` bytes, respecting the limit; NULL on failure. */
static arena_chunk *arena_chunk_new(arena *a, size_t payload)
{
    if (payload > SIZE_MAX - sizeof(arena_chunk))
        return NULL;
    size_t total = sizeof(arena_chunk) + payload;
    if (a->limit && (a->reserved > a->limit || total > a->limit - a->reserved))
        return NULL;
    arena_chunk *c = malloc(total);
    if (!c)
        return NULL;
    c->next = NULL;
    c->size = payload;
    c->used = 0;
    c->pad_ = 0;
    a->reserved += total;
    return c;
}

/* A dedicated chunk for a big request, linked behind the current head. */
static void *arena_alloc_big(arena *a, size_t size)
{
    arena_chunk *c = arena_chunk_new(a, size);
    if (!c)
        return NULL;
    c->used = size;
    if (a->head) {
        c->next = a->head->next;
        a->head->next = c;
    } else {
        a->head = c;
    }
    a->used += size;
    return arena_payload(c);
}

void *arena_alloc(arena *a, size_t size)
{
    if (!a || size > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    size = arena_round(size ? size : 1);
    arena_chunk *c = a->head;
    if (c && c->size - c->used >= size) {
        void *p = arena_payload(c) + c->used;
        c->used += size;
        a->used += size;
        return p;
    }
    if (size > a->next_chunk / 4)
        return arena_alloc_big(a, size);
    c = arena_chunk_new(a, a->next_chunk);
    if (!c)
        return NULL;
    if (a->next_chunk < a->chunk_size)
        a->next_chunk = a->next_chunk * 2 < a->chunk_size ? a->next_chunk * 2 : a->chunk_size;
    c->next = a->head;
    a->head = c;
    c->used = size;
    a->used += size;
    return arena_payload(c);
}

void *arena_calloc(arena *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = arena_alloc(a, count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = arena_alloc(a, len + 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void arena_set_limit(arena *a, size_t max_reserved)
{
    if (a)
        a->limit = max_reserved;
}

size_t arena_used(const arena *a)
{
    return a ? a->used : 0;
}

size_t arena_reserved(const arena *a)
{
    return a ? a->reserved : 0;
}
