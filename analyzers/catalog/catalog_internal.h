/* catalog_internal — state shared by catalog.c (walk, API), catalog_sniff.c (classification) and
 * catalog_group.c (ranks, pairing, profiles) and catalog_ready.c (readiness, choosing). Not for use outside
 * those files.
 *
 * The nl_catalog owns one string pool; every `const char *` in its files, ranks, profiles and notes
 * points into it and dies with nl_catalog_free. Single-threaded while scanning. */
#ifndef NL_CATALOG_INTERNAL_H
#define NL_CATALOG_INTERNAL_H

#include "catalog.h"

/* Bytes read from every file to classify it; JSON and gzip heads are extended to the second size. */
#define CATALOG_SNIFF_BYTES 4096
#define CATALOG_SNIFF_JSON_BYTES (64 * 1024)

typedef struct catalog_pool_block catalog_pool_block;

/* Open-addressing set of (dev, ino) pairs. */
typedef struct catalog_idset {
    uint64_t *keys;            /* 2 words per slot: dev, ino + 1 (0 = empty) */
    size_t cap, count;
} catalog_idset;

struct nl_catalog {
    char *root;
    const char *root_name;     /* last component of the resolved root ("." and symlinks resolved) */
    const char *root_dir_name; /* last component of the resolved root's directory ("" for "/") */
    bool root_is_dir;
    nl_catalog_limits lim;
    bool truncated;

    nl_catalog_file *files;
    size_t file_count, file_cap;
    nl_catalog_rank *ranks;
    size_t rank_count, rank_cap;
    nl_catalog_profile *profiles;
    size_t profile_count, profile_cap;
    nl_catalog_note *notes;
    size_t note_count, note_cap;

    size_t notes_by_code[NL_NOTE_CODE_COUNT];   /* notes offered per code, kept or not */

    catalog_pool_block *pool;
    catalog_idset dirs_seen, files_seen;
};

/* Grow `*arr` (element size `elem`) so that index `*count` is valid; abort on OOM (counts are capped by
 * the scan limits, so these are small allocations in the STYLE §11 sense). Returns the new slot,
 * zeroed, and increments *count. */
void *catalog_push(void **arr, size_t *count, size_t *cap, size_t elem);

/* Copy a string / printf result into the catalog's pool. NULL in → NULL out for catalog_strdup. */
const char *catalog_strdup(nl_catalog *cat, const char *s);
const char *catalog_printf(nl_catalog *cat, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record a note. `path` and the formatted message are copied; `fix` must be a static string or NULL.
 * Beyond NL_CATALOG_MAX_NOTES_PER_CODE notes of one code, only the count grows. */
void catalog_note(nl_catalog *cat, nl_note_code code, nl_note_severity sev, const char *path, const char *fix,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* catalog_sniff.c: classify file `i` (already walked) and read its identity. */
void catalog_classify(nl_catalog *cat, size_t i);

/* catalog_group.c: ranks, NEFF↔NTFF pairing, export attachment, profiles of every kind, ids. */
void catalog_group(nl_catalog *cat);

/* catalog_ready.c: every profile's readiness per analysis (after catalog_group). */
void catalog_readiness(nl_catalog *cat);

/* Basename of a path (pointer into it). */
const char *catalog_basename(const char *path);

#endif
