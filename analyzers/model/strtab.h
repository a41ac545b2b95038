/* strtab — string interning for one model: equal byte strings get the same 32-bit id.
 *
 * Owns: nothing itself; the table, its index and every string's bytes live in the arena given to
 * strtab_new and die with it. Id 0 is always the empty string, so zeroed columns read as "".
 * Strings are byte strings (embedded NULs allowed); strtab_str also NUL-terminates them.
 * Threads: not thread-safe while interning; a finished table may be read from any thread.
 * Errors: strtab_intern fails with NL_ERR_NOMEM (arena exhausted) or NL_ERR_LIMIT (a cap below). */
#ifndef NL_STRTAB_H
#define NL_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "nl_error.h"

/* Caps: longest string, number of distinct strings. */
#define STRTAB_STRING_MAX ((size_t)1 << 30)
#define STRTAB_COUNT_MAX ((uint32_t)1 << 30)
/* Returned by strtab_find when the string was never interned. */
#define STRTAB_NONE UINT32_MAX

typedef struct strtab strtab;

/* An empty table holding only "" (id 0); NULL when the arena is exhausted. */
strtab *strtab_new(arena *a) __attribute__((warn_unused_result));

/* Id of `s[0..len)`, adding it when new. 0 or -1 (err set, *id untouched). */
int strtab_intern(strtab *t, const char *s, size_t len, uint32_t *id, nl_error *err)
    __attribute__((warn_unused_result));

/* Id of an interned string, or STRTAB_NONE. Never adds. */
uint32_t strtab_find(const strtab *t, const char *s, size_t len);

/* Borrowed, NUL-terminated bytes of `id` (valid while the arena lives); *len gets the length when
 * non-NULL. NULL when id is out of range. */
const char *strtab_str(const strtab *t, uint32_t id, size_t *len);

/* Number of distinct strings (including ""). */
uint32_t strtab_count(const strtab *t);

/* Bytes used by string payloads plus the id index (for memory accounting). */
size_t strtab_bytes(const strtab *t);

#endif
