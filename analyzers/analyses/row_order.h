/* row_order — the rows of one table as a permutation in (value descending, timestamp ascending, row
 * ascending) order: the order trace-extract pages through (timeline.h, for every kind), built once and kept
 * with the model (tools/memo.h) so that a warm page is a slice.
 *
 * Owns: one malloc'd array of 32-bit row indices — none when every row is kept and the table is already
 * in order (the identity, e.g. instructions by time). Immutable once built: any number of threads may
 * read it. Keys come from the caller (row_order_keys_fn) a chunk at a time, so this module knows no table.
 * Rows may be left out (keep = 0: framework metadata events); positions then number the kept rows only.
 * Match bitmaps: one bit per table row (bit r of word r / 64), set for the rows a filter keeps; built by the
 * caller, walked here in order.
 * Errors: -1 with nl_error: NL_ERR_NOMEM, NL_ERR_CANCELLED (polled between chunks and sort passes; the
 * walks and the ranking of matches do not poll: they touch each position or match once, ~1 ms per 1M),
 * NL_ERR_LIMIT (more than 2^32 rows: indices are 32-bit). */
#ifndef NL_ROW_ORDER_H
#define NL_ROW_ORDER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

/* Most rows one row_order_keys_fn call is asked for. */
#define ROW_ORDER_CHUNK 4096u

typedef struct row_order row_order;

/* Keys of rows [base, base + n), n <= ROW_ORDER_CHUNK: value[i] ranks descending, ts[i] ascending among equal
 * values, then the row ascending; keep[i] = 0 leaves the row out of the order. */
typedef void (*row_order_keys_fn)(void *ctx, size_t base, size_t n, int64_t *value, int64_t *ts, uint8_t *keep);

/* The order of a table of `rows` rows. 0 with *out set (free with row_order_free), or -1 with err. */
int row_order_build(size_t rows, row_order_keys_fn keys, void *ctx, const atomic_int *cancel, row_order **out,
                    nl_error *err) __attribute__((warn_unused_result));
void row_order_free(row_order *o);

/* Heap bytes held (for the model cache's byte bound). */
size_t row_order_bytes(const row_order *o);
/* Rows of the table it was built for, and kept rows (= positions). */
size_t row_order_table_rows(const row_order *o);
size_t row_order_count(const row_order *o);
/* Whether the order is the identity (no index array). */
bool row_order_is_identity(const row_order *o);
/* The row at position pos (< row_order_count). */
size_t row_order_at(const row_order *o, size_t pos);

/* How many positions hold a key <= (value, ts, row): for a kept row's own key, its position + 1, i.e. where
 * the rows strictly after it start. Binary search; `keys` (the build's function) reads one row per probe. */
size_t row_order_upper_bound(const row_order *o, int64_t value, int64_t ts, size_t row, row_order_keys_fn keys,
                             void *ctx);

/* Walk positions from `from` on: copy the rows of the first `limit` positions whose row is set in `match`
 * (NULL: every row) into out[]; returns how many were copied. */
size_t row_order_take(const row_order *o, size_t from, const uint64_t *match, size_t limit, size_t *out);
/* Positions in [from, to) whose row is set in `match` (NULL: every row). */
uint64_t row_order_count_matches(const row_order *o, size_t from, size_t to, const uint64_t *match);
/* Positions from `from` on whose row is set in `match`, given `total` = all such positions: counts the
 * shorter side of `from` (at most half the order is walked). */
uint64_t row_order_matches_from(const row_order *o, size_t from, const uint64_t *match, uint64_t total);

/* A filter keeping under 1 row in ROW_ORDER_SPARSE_SHARE has few matches: rank them by their keys
 * (row_order_rank_matches) rather than walk the order, where finding a page could visit every position
 * (a window keeping 23 of 1M instructions). */
#define ROW_ORDER_SPARSE_SHARE 64u

/* One row's place in the order: value descending, then ts, then row. */
typedef struct row_order_key {
    int64_t value, ts;
    size_t row;
} row_order_key;

/* The page order of two keys (a topn comparator; ctx unused): value descending, then ts, then row. The one
 * definition timeline.c pages by, with or without a memoized order. */
int row_order_key_cmp(const void *a, const void *b, const void *ctx);

/* Whether `total` matches are few enough for row_order_rank_matches. */
bool row_order_is_sparse(const row_order *o, uint64_t total);

/* The page of a filtered request without walking the order: the first `limit` rows set in `match` (over
 * `rows` table rows) in the order's ranking, strictly after *after when it is not NULL, by reading each
 * match's key through `keys` (one row a call). out[] has room for `limit`; *count = rows written,
 * *after_count = matches after *after (all of them without one). 0, or -1 when out of memory. */
int row_order_rank_matches(size_t rows, const uint64_t *match, const row_order_key *after, row_order_keys_fn keys,
                           void *ctx, size_t limit, size_t *out, size_t *count, uint64_t *after_count)
    __attribute__((warn_unused_result));

/* Set the bits of rows base + i whose keep[i] is nonzero, i < n, in a zeroed match bitmap; base must be a
 * multiple of 64. Returns how many were set. Branch-free: a filter pass over 1M rows keeping a third of
 * them spent 1 ms on mispredicted branches setting bits one at a time. */
uint64_t row_order_match_pack(uint64_t *match, size_t base, const uint8_t *keep, size_t n);

/* Match bitmap helpers: words for `rows` rows; set / test bit r. */
static inline size_t row_order_match_words(size_t rows)
{
    return (rows + 63) / 64;
}

static inline void row_order_match_set(uint64_t *match, size_t r)
{
    match[r >> 6] |= (uint64_t)1 << (r & 63);
}

static inline bool row_order_match_has(const uint64_t *match, size_t r)
{
    return (match[r >> 6] >> (r & 63)) & 1;
}

#endif
