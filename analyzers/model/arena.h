/* arena — bump allocator that owns everything of one model.
 *
 * Owns: a list of big malloc'd chunks; every allocation lives until arena_free, and all of them die together
 * (there is no per-object free). One arena per model (STYLE §7): rows, columns, strings of a profile.
 * Threads: not thread-safe; one owner at a time. A finished model is read-only and may be shared.
 * Errors: arena_alloc is a *try* allocation: it returns NULL when malloc fails or the optional byte limit
 * would be exceeded; callers turn that into NL_ERR_NOMEM. Nothing here aborts. */
#ifndef NL_ARENA_H
#define NL_ARENA_H

#include <stddef.h>
#include <stdint.h>

/* Chunks start at ARENA_CHUNK_FIRST bytes and double up to the arena's chunk size (default
 * ARENA_CHUNK_DEFAULT), so a small model costs kilobytes. A request larger than a quarter of the next
 * chunk gets a chunk of its own. */
#define ARENA_CHUNK_FIRST ((size_t)16 << 10)
#define ARENA_CHUNK_DEFAULT ((size_t)1 << 20)
/* Every returned pointer is aligned to this. */
#define ARENA_ALIGN 16

typedef struct arena arena;

/* A new empty arena (no chunk allocated yet); NULL when out of memory. chunk_size = the largest regular
 * chunk, 0 = ARENA_CHUNK_DEFAULT. */
arena *arena_new(size_t chunk_size) __attribute__((warn_unused_result));

/* Release every chunk and the arena itself. Safe on NULL. Every pointer obtained from it becomes invalid. */
void arena_free(arena *a);

/* `size` bytes aligned to ARENA_ALIGN, uninitialised; NULL on failure (size 0 returns a valid pointer). */
void *arena_alloc(arena *a, size_t size) __attribute__((warn_unused_result, malloc));

/* Same, zero-filled. */
void *arena_calloc(arena *a, size_t count, size_t size) __attribute__((warn_unused_result, malloc));

/* Copy `len` bytes and add a NUL terminator; NULL on failure. */
char *arena_strndup(arena *a, const char *s, size_t len) __attribute__((warn_unused_result));

/* Cap the total bytes the arena may reserve from malloc (0 = unlimited). Used by tests to force
 * NL_ERR_NOMEM at every allocation site, and by callers that bound a model's memory. */
void arena_set_limit(arena *a, size_t max_reserved);

/* Bytes handed out by arena_alloc (payload incl. alignment padding) / bytes reserved from malloc. */
size_t arena_used(const arena *a);
size_t arena_reserved(const arena *a);

#endif
