/* kvlist — a flat key → value record (summary[0], metadata[0], a summary-json profile, ...).
 *
 * Owns: its entries and key index, in the arena given to kvlist_new; keys and string values are ids in the
 * strtab given there (borrowed, same lifetime). Numbers keep both their value and the text they were
 * written as, so a tool can show "0.001869298853" exactly and still compute with it. Setting a key that is
 * already present replaces its value in place (JSON "last duplicate wins"); order is first-seen.
 * Threads: not thread-safe while filling; read-only afterwards. Errors: NL_ERR_NOMEM, NL_ERR_LIMIT. */
#ifndef NL_KVLIST_H
#define NL_KVLIST_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "nl_error.h"
#include "strtab.h"

/* Most keys one record may hold. */
#define KVLIST_ENTRIES_MAX ((uint32_t)1 << 20)

typedef enum kvlist_kind {
    KVLIST_NULL,
    KVLIST_BOOL,     /* num = 0 or 1, i = 0 or 1 */
    KVLIST_INT,      /* integral literal that fits int64: i exact, num = (double)i */
    KVLIST_UINT,     /* integral literal above INT64_MAX: u exact, num = (double)u */
    KVLIST_DOUBLE,   /* any other number: num */
    KVLIST_STRING,   /* text = the string */
    KVLIST_COMPOUND, /* an array or object; its content is not kept */
} kvlist_kind;

typedef struct kvlist_entry {
    uint32_t key;  /* strtab id */
    uint32_t text; /* strtab id: the string value, or a number's literal text; 0 ("") otherwise */
    kvlist_kind kind;
    double num;
    int64_t i;
    uint64_t u;
} kvlist_entry;

typedef struct kvlist kvlist;

/* An empty record; NULL when the arena is exhausted. */
kvlist *kvlist_new(arena *a, const strtab *names) __attribute__((warn_unused_result));

/* Add or replace the entry for e->key. 0 or -1 with err set. */
int kvlist_set(kvlist *l, const kvlist_entry *e, nl_error *err) __attribute__((warn_unused_result));

size_t kvlist_count(const kvlist *l);
/* Entry i in first-seen order (borrowed), NULL when out of range. */
const kvlist_entry *kvlist_at(const kvlist *l, size_t i);
/* Entry named `key` (borrowed), NULL when absent. */
const kvlist_entry *kvlist_get(const kvlist *l, const char *key);

/* Typed lookups; 1 and *out when the key exists with a usable value, else 0 (*out untouched).
 * kvlist_get_i64 accepts INT, UINT ≤ INT64_MAX, BOOL and integral DOUBLEs within int64 range.
 * kvlist_get_num accepts any number or bool. kvlist_get_str accepts strings only (borrowed, NUL-terminated). */
int kvlist_get_i64(const kvlist *l, const char *key, int64_t *out);
int kvlist_get_num(const kvlist *l, const char *key, double *out);
int kvlist_get_str(const kvlist *l, const char *key, const char **out);

/* The key / text of an entry as a borrowed NUL-terminated string. */
const char *kvlist_key_str(const kvlist *l, const kvlist_entry *e);
const char *kvlist_text_str(const kvlist *l, const kvlist_entry *e);

#endif
