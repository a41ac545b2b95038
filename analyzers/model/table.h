/* table — an append-only columnar table (struct of arrays) with compact adaptive-width columns.
 *
 * Owns: its segments, column arrays and string dictionaries, all in the arena given to table_new (they die
 * with the model). Rows are appended whole; values are read back by (column, row) or in ranges. Column
 * types: signed/unsigned 64-bit integers, doubles and interned strings (strtab ids). The cell width (1 to 8
 * bytes) adapts per segment of TABLE_SEG_ROWS rows, so a timestamp column costs 3-4 bytes and a mostly-zero
 * byte count 1 byte per row; reading always returns the exact 64-bit value that was appended.
 * Threads: appends need exclusive access; a finished table may be read from many threads.
 * Errors: table_append fails with NL_ERR_NOMEM (arena exhausted, the table is unchanged) or NL_ERR_LIMIT
 * (TABLE_ROWS_MAX rows). */
#ifndef NL_TABLE_H
#define NL_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "nl_error.h"

/* Rows per segment (after the first segment has grown to it) and the row cap of one table. */
#define TABLE_SEG_SHIFT 14
#define TABLE_SEG_ROWS ((size_t)1 << TABLE_SEG_SHIFT)
#define TABLE_ROWS_MAX ((size_t)1 << 32)
/* Most columns one table may have, and distinct strings one string column may hold. */
#define TABLE_COLUMNS_MAX 64u
#define TABLE_DICT_MAX ((uint32_t)1 << 30)

typedef enum table_kind {
    TABLE_INT,  /* int64_t; stored as a zigzag delta from the segment's first value */
    TABLE_UINT, /* uint64_t */
    TABLE_F64,  /* double, stored bit-exact */
    TABLE_STR,  /* uint32_t strtab id; stored as a per-column dictionary code */
} table_kind;

typedef struct table_column {
    const char *name; /* static string, used in messages and dumps */
    table_kind kind;
} table_column;

/* One cell, as appended and as read back; the member in use follows the column kind. */
typedef union table_value {
    int64_t i;
    uint64_t u;
    double d;
    uint32_t s;
} table_value;

typedef struct table table;

/* An empty table with `ncols` columns described by `cols` (borrowed; must outlive the table).
 * NULL when the arena is exhausted or ncols is 0 or above TABLE_COLUMNS_MAX. */
table *table_new(arena *a, const table_column *cols, uint32_t ncols) __attribute__((warn_unused_result));

/* Append one row: `row[c]` for every column c. 0, or -1 with err set (the table is unchanged). */
int table_append(table *t, const table_value *row, nl_error *err) __attribute__((warn_unused_result));

/* Append every row of `src` (same column schema, another arena) after the rows of `t`, as if appended one by
 * one: same values, same dictionary codes. TABLE_STR cells are strtab ids of src's string table; id_map
 * translates them into t's (id_map[src id] = t id; NULL = same table). Used to merge the pieces of a file
 * parsed on several threads. When t ends on a segment boundary, whole segments are copied (memcpy, codes
 * re-encoded) instead of row by row. 0, or -1 with err set (NL_ERR_NOMEM, NL_ERR_LIMIT, NL_ERR_INTERNAL for
 * a schema mismatch); after a failure t may hold part of src's rows and must be discarded. */
int table_append_table(table *t, const table *src, const uint32_t *id_map, nl_error *err)
    __attribute__((warn_unused_result));

size_t table_rows(const table *t);
uint32_t table_ncols(const table *t);
const table_column *table_column_at(const table *t, uint32_t col);

/* One cell. `col` and `row` must be in range (checked by assert only). */
int64_t table_i64(const table *t, uint32_t col, size_t row);
uint64_t table_u64(const table *t, uint32_t col, size_t row);
double table_f64(const table *t, uint32_t col, size_t row);
uint32_t table_str(const table *t, uint32_t col, size_t row);

/* `n` consecutive cells of one column starting at `row` into out[0..n) (faster than per-cell calls).
 * Rows must be in range. */
void table_read(const table *t, uint32_t col, size_t row, size_t n, table_value *out);

/* Smallest and largest value ever appended to a TABLE_INT column; 0 when the table is empty. */
void table_int_range(const table *t, uint32_t col, int64_t *min, int64_t *max);

/* Add `delta` to every value of a TABLE_INT column in O(segments). Fails with NL_ERR_FORMAT (table
 * unchanged) if any value would leave the int64 range. */
int table_shift(table *t, uint32_t col, int64_t delta, nl_error *err) __attribute__((warn_unused_result));

/* Distinct strings in a TABLE_STR column, and the id of dictionary code `code` (< that count).
 * Lets analyses group by a string column with an array indexed by code instead of a hash. */
uint32_t table_dict_size(const table *t, uint32_t col);
uint32_t table_dict_id(const table *t, uint32_t col, uint32_t code);
/* Dictionary code of the string in a TABLE_STR cell. */
uint32_t table_code(const table *t, uint32_t col, size_t row);
/* `n` consecutive dictionary codes of a TABLE_STR column starting at `row` into out[0..n) (a filter pass over
 * a string column; 0.5 ms for 1M codes where table_code per row takes 1.6 ms). Rows must be in range. */
void table_read_codes(const table *t, uint32_t col, size_t row, size_t n, uint32_t *out);

/* Bytes of column storage currently allocated (segments + dictionaries), and of one column's cells. */
size_t table_bytes(const table *t);
size_t table_column_bytes(const table *t, uint32_t col);

#endif
