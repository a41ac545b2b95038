/* extract — filtered, windowed, sorted, paged row extraction from a device model (trace-extract's rows).
 *
 * Owns: nothing beyond the page it returns (extract_page_free). Reads a finished, immutable device_model,
 * so any number of extractions may run at once. Polls `cancel` every EXTRACT_CHUNK rows.
 * Bounded: filters on string columns are resolved once per distinct string (dictionary code → match), so a
 * row costs a few array lookups. With a memoized order of (kind, sort) (extract_order_build, kept with the
 * model by tools/memo.h) the page is a slice of it — O(limit), the cursor found by binary search — and a
 * filtered page costs one pass over the filter columns plus a walk of the order. Without one, the page is
 * chosen with a heap of `limit` entries (no sort of the matches), or, for time order over a table already in
 * time order, by scanning in order; every such call visits each row once to count `total`.
 * Cursor: the row index of the last row shown. Order is a strict total order (sort key, then timestamp,
 * then row), so "rows strictly after the cursor row" resumes exactly and pages concatenate to the full list.
 * Errors: -1 with nl_error: NL_ERR_ARGUMENT (field set: unknown engine, a filter or sort the kind does not
 * have, an inverted window, a cursor row out of range), NL_ERR_UNSUPPORTED (kind collective: the model
 * has no collective rows), NL_ERR_NOMEM, NL_ERR_CANCELLED. */
#ifndef NL_EXTRACT_H
#define NL_EXTRACT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "nl_error.h"

#define EXTRACT_LIMIT_MAX 500u     /* rows one page may hold */
#define EXTRACT_CHUNK 4096u        /* rows decoded per table_read, and between cancel polls */
#define EXTRACT_COLUMNS_MAX 32u    /* columns one projection may name */

typedef enum extract_kind { EXTRACT_INSTRUCTION, EXTRACT_DMA, EXTRACT_SEMAPHORE, EXTRACT_COLLECTIVE, EXTRACT_KIND_COUNT } extract_kind;
typedef enum extract_sort { EXTRACT_SORT_TIME, EXTRACT_SORT_DURATION, EXTRACT_SORT_WAIT, EXTRACT_SORT_BYTES, EXTRACT_SORT_COUNT } extract_sort;

/* Filters; NULL / false = not set. Strings are borrowed for the call. */
typedef struct extract_filter {
    const char *engine;      /* instruction: engine (subgroup) or timeline label, case-insensitive, exact;
                                dma: queue name or subgroup */
    const char *opcode_glob; /* instruction: fnmatch(3) glob, case-insensitive, on opcode or compiler_opcode */
    bool has_start, has_end; /* window [start_ns, end_ns): rows overlapping it; a zero-length row counts when */
    int64_t start_ns, end_ns;/* its instant lies inside; start == end selects rows active at that instant */
    const char *source;      /* instruction: case-insensitive substring of the source location */
    const char *layer;       /* instruction: case-insensitive substring of the layer */
    int64_t min_duration_ns; /* instruction, dma; 0 = no filter */
    int64_t min_wait_ns;     /* instruction; 0 = no filter */
} extract_filter;

/* Every row of one kind's table in one sort's order (row_order.h), built once per (model, kind, sort);
 * immutable, so any number of requests may share it. */
typedef struct extract_order extract_order;

typedef struct extract_request {
    extract_kind kind;
    extract_filter filter;
    extract_sort sort;
    size_t limit;            /* 1..EXTRACT_LIMIT_MAX */
    bool has_after;          /* resume after this row (the cursor) */
    size_t after_row;
    const extract_order *order; /* nullable: extract_order_build(m, kind, sort); pages are the same with or
                                   without it (NL_ERR_INTERNAL when it was built for another kind, sort or
                                   table) */
} extract_request;

typedef struct extract_page {
    size_t *rows;            /* malloc'd row indices in page order */
    size_t count;
    uint64_t total;          /* rows matching the filters */
    uint64_t after_cursor;   /* matching rows after the cursor (== total without one) */
    bool more;               /* after_cursor > count */
    bool time_ordered_scan;  /* no order given; the table was in time order and was scanned in order */
    bool ordered;            /* taken from req->order (a slice, or a walk for a filtered request) */
} extract_page;

/* Run the request. 0 with *out filled (free with extract_page_free), or -1 with err. */
int extract_run(const device_model *m, const extract_request *req, const atomic_int *cancel, extract_page *out,
                nl_error *err) __attribute__((warn_unused_result));
void extract_page_free(extract_page *p);

/* The order of every row of `kind` by `sort` (the order extract_run pages through), for req->order. 0 with
 * *out set (free with extract_order_free), or -1 with err: NL_ERR_ARGUMENT (field "sort") for a sort the
 * kind does not have, NL_ERR_UNSUPPORTED for kind collective, NL_ERR_NOMEM, NL_ERR_CANCELLED.
 * Cost: 4 bytes per row (none when the table is already in that order); built in 25-45 ms at 1M rows. */
int extract_order_build(const device_model *m, extract_kind kind, extract_sort sort, const atomic_int *cancel,
                        extract_order **out, nl_error *err) __attribute__((warn_unused_result));
void extract_order_free(extract_order *o);
/* Heap bytes of an order (for the model cache's byte bound). */
size_t extract_order_bytes(const extract_order *o);

/* When a request matches nothing: how many rows each set filter matches on its own (a filter that is not
 * set gets -1), in the order engine, opcode, window, source, layer, min_duration, min_wait. */
enum { EXTRACT_F_ENGINE, EXTRACT_F_OPCODE, EXTRACT_F_WINDOW, EXTRACT_F_SOURCE, EXTRACT_F_LAYER, EXTRACT_F_MIN_DURATION,
       EXTRACT_F_MIN_WAIT, EXTRACT_FILTER_COUNT };
extern const char *const extract_filter_names[EXTRACT_FILTER_COUNT];
int extract_explain(const device_model *m, const extract_request *req, const atomic_int *cancel,
                    int64_t counts[EXTRACT_FILTER_COUNT], nl_error *err) __attribute__((warn_unused_result));

/* Whether any instruction carries a source location. */
bool extract_has_sources(const device_model *m);

/* The engine names a kind's `engine` filter accepts in this model, comma-separated into buf (truncated with
 * " …" when it does not fit). */
void extract_engines(const device_model *m, extract_kind kind, char *buf, size_t cap);

/* ---- projection ---- */

typedef enum extract_cell_kind {
    EXTRACT_CELL_NULL,       /* absent (empty string) */
    EXTRACT_CELL_INT,        /* i: ns times, signed values */
    EXTRACT_CELL_UINT,       /* u: byte counts */
    EXTRACT_CELL_ID,         /* u: a 64-bit id (render as a decimal string: ids exceed 2^53) */
    EXTRACT_CELL_STR,        /* s: borrowed from the model */
    EXTRACT_CELL_BOOL,       /* i: 0/1 */
} extract_cell_kind;

typedef struct extract_cell {
    extract_cell_kind kind;
    int64_t i;
    uint64_t u;
    const char *s;
} extract_cell;

typedef struct extract_column {
    const char *name;
    const char *what;        /* short description with unit */
    bool is_default;         /* part of the projection when the caller names none */
} extract_column;

/* The columns of a kind (static storage) and their count. */
const extract_column *extract_columns(extract_kind kind, size_t *count);
/* Index of a column by name, or -1. */
int extract_column_find(extract_kind kind, const char *name);
/* The value of column `col` (an index into extract_columns) at `row`. */
void extract_cell_get(const device_model *m, extract_kind kind, int col, size_t row, extract_cell *out);

/* Names ("instruction", ..., "time", ...); parse returns -1 for an unknown name. */
const char *extract_kind_name(extract_kind k);
const char *extract_sort_name(extract_sort s);
int extract_kind_parse(const char *name, extract_kind *out);
int extract_sort_parse(const char *name, extract_sort *out);

#endif
