/* timeline — filtered, windowed, sorted, paged rows of one profile's timeline table, whatever its kind:
 * trace-extract's rows. The engine knows no table: a small per-kind adapter (timeline_adapter, below) reads
 * its rows' times and sort values a chunk at a time, matches its string filters over a chunk and renders
 * cells; the adapters are timeline_kinds.h (instruction, dma, semaphore over a device model; system spans;
 * framework events).
 *
 * Owns: nothing beyond the page (timeline_page_free) or order (timeline_order_free) it returns. Reads
 * finished, immutable models, so any number of requests may run at once on any threads. Polls `cancel`
 * every TIMELINE_CHUNK rows.
 * Bounded: string filters are resolved by the adapter once per dictionary code (or thread, or lane), so a
 * row costs a few array lookups; filters run a column at a time over chunks and set one bit per matching
 * row. With a memoized order of (kind, sort) (timeline_order_build, kept with the model by tools/memo.h)
 * a page is a slice of it — O(limit), the cursor found by binary search — and a filtered page costs one pass
 * over the filter columns plus a walk of the order (or, for few matches, a ranking of just those). Without
 * one, the page is chosen with a heap of `limit` keys, or, for time order with no filter over a table
 * already in time order, by taking the rows after the cursor; every such call visits each row once.
 * Rows: every table row is a cursor position; a row the adapter leaves out (framework metadata events,
 * events without a timestamp) is never a timeline row. Window: a row [start, end) overlaps [a, b) when
 * start < b and (end > a, or the row is an instant and start >= a); a == b selects the rows active at
 * instant a (start <= a < end, or start == a). Adapters give start and end (end >= start), so the rule is
 * written once (timeline.c).
 * Order: time = (start, row); duration / wait / bytes = (value descending, start, row): a strict total order,
 * so the cursor (the row index of the last row shown) resumes exactly and pages concatenate to the full list.
 * Errors: -1 with nl_error: NL_ERR_ARGUMENT with the field set (timeline_check: a filter or sort the kind
 * does not have, an empty string, a negative time, an inverted window, a page size out of range; the
 * adapter: an engine value that is malformed or matches nothing; a cursor row out of range or not a row of
 * the timeline), NL_ERR_INTERNAL (an order built for another request), NL_ERR_NOMEM, NL_ERR_CANCELLED. */
#ifndef NL_TIMELINE_H
#define NL_TIMELINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"
#include "table.h"

#define TIMELINE_LIMIT_MAX 500u   /* rows one page may hold */
#define TIMELINE_CHUNK 4096u      /* rows read per adapter call, and between cancel polls */
#define TIMELINE_COLUMNS_MAX 32u  /* columns one projection may name */
#define TIMELINE_NAME_MAX 240u    /* bytes of a long name shown in a cell; longer ones end in "…" */
#define TIMELINE_ATTRS_MAX 400u   /* bytes of a rendered key=value list cell */
#define TIMELINE_SCRATCH (TIMELINE_ATTRS_MAX + 8u) /* scratch a caller passes to timeline_cell_get */
#define TIMELINE_LEFT_OUT_MAX 4u  /* reasons an adapter may leave rows out for */

/* Filters, in the order explanations list them; their names are the tool's argument names. */
typedef enum timeline_filter_id {
    TIMELINE_F_ENGINE, TIMELINE_F_OPCODE, TIMELINE_F_WINDOW, TIMELINE_F_SOURCE, TIMELINE_F_LAYER,
    TIMELINE_F_MIN_DURATION, TIMELINE_F_MIN_WAIT, TIMELINE_F_MIN_BYTES, TIMELINE_FILTER_COUNT
} timeline_filter_id;
extern const char *const timeline_filter_names[TIMELINE_FILTER_COUNT];

typedef enum timeline_sort { TIMELINE_SORT_TIME, TIMELINE_SORT_DURATION, TIMELINE_SORT_WAIT, TIMELINE_SORT_BYTES,
                             TIMELINE_SORT_COUNT } timeline_sort;

/* Filters; NULL / false / 0 = not set. Strings are borrowed for the call. What engine, opcode, source and
 * layer match is the adapter's (timeline_kinds.h); the window and minimums are the engine's. */
typedef struct timeline_filter {
    const char *engine;
    const char *opcode_glob;  /* fnmatch(3) glob, case-insensitive */
    bool has_start, has_end;  /* window [start_ns, end_ns), in the adapter's time base */
    int64_t start_ns, end_ns;
    const char *source;       /* case-insensitive substrings */
    const char *layer;
    int64_t min_duration_ns;
    int64_t min_wait_ns;
    int64_t min_bytes;        /* compares the value sort bytes ranks by */
} timeline_filter;

/* Every timeline row of one kind in one sort's order (row_order.h), built once per (model, kind, sort);
 * immutable, so any number of requests may share it. */
typedef struct timeline_order timeline_order;

typedef struct timeline_request {
    timeline_filter filter;
    timeline_sort sort;
    size_t limit;             /* 1..TIMELINE_LIMIT_MAX */
    bool has_after;           /* resume after this row (the cursor) */
    size_t after_row;
    const timeline_order *order; /* nullable: timeline_order_build(src, sort); pages are the same with or
                                    without it */
} timeline_request;

typedef struct timeline_page {
    size_t *rows;             /* malloc'd row indices in page order */
    size_t count;
    uint64_t total;           /* rows matching the filters */
    uint64_t after_cursor;    /* matching rows after the cursor (== total without one) */
    bool more;                /* after_cursor > count */
    bool time_ordered_scan;   /* no order given; the table was in time order and was taken in order */
    bool ordered;             /* taken from req->order (a slice, or a walk for a filtered request) */
} timeline_page;

/* ---- projection ---- */

typedef enum timeline_cell_kind {
    TIMELINE_CELL_NULL,       /* absent */
    TIMELINE_CELL_INT,        /* i: ns times, signed values */
    TIMELINE_CELL_UINT,       /* u: byte counts */
    TIMELINE_CELL_ID,         /* u: a 64-bit id (render as a decimal string: ids exceed 2^53) */
    TIMELINE_CELL_STR,        /* s: borrowed from the model or the caller's scratch */
    TIMELINE_CELL_BOOL,       /* i: 0/1 */
} timeline_cell_kind;

typedef struct timeline_cell {
    timeline_cell_kind kind;
    int64_t i;
    uint64_t u;
    const char *s;
} timeline_cell;

/* Setters for adapters' cells; a string cell is absent when the string is NULL or empty. */
static inline void timeline_cell_int(timeline_cell *c, int64_t v)
{
    c->kind = TIMELINE_CELL_INT;
    c->i = v;
}

static inline void timeline_cell_uint(timeline_cell *c, timeline_cell_kind kind, uint64_t v) /* UINT or ID */
{
    c->kind = kind;
    c->u = v;
}

static inline void timeline_cell_bool(timeline_cell *c, bool v)
{
    c->kind = TIMELINE_CELL_BOOL;
    c->i = v;
}

static inline void timeline_cell_str(timeline_cell *c, const char *s)
{
    if (s && *s) {
        c->kind = TIMELINE_CELL_STR;
        c->s = s;
    }
}

typedef struct timeline_column {
    const char *name;
    const char *what;         /* short description with unit */
    bool is_default;          /* part of the projection when the caller names none */
} timeline_column;

/* ---- the adapter of a kind ----
 *
 * Static descriptions plus callbacks; `src` pairs an adapter with the model it reads (borrowed). The
 * engine asks `read` for the fields it needs of rows [base, base + n), n <= TIMELINE_CHUNK, into the
 * chunk's arrays (cells of member .i), which the adapter may fill straight from its table with table_read;
 * `match` narrows keep[] by one of the kind's string filters (engine, opcode, source, layer) as resolved by
 * `open`. Both may use the chunk's scratch and codes arrays, and start, end and duration as scratch when
 * those are not asked for; wait and bytes exist only when asked for. */

enum {
    TIMELINE_START = 1u << 0,    /* start, ns */
    TIMELINE_END = 1u << 1,      /* end >= start; = start for an instant (saturating, never overflowing) */
    TIMELINE_DURATION = 1u << 2, /* the value sort duration ranks by and min_duration_ns compares */
    TIMELINE_WAIT = 1u << 3,     /* the value of sort wait and min_wait_ns */
    TIMELINE_BYTES = 1u << 4,    /* the value of sort bytes, clamped to INT64_MAX */
    TIMELINE_LEFT_OUT = 1u << 5, /* 0 for a timeline row, k >= 1 when left out for reason k */
};

typedef struct timeline_chunk {
    table_value *start, *end, *duration, *wait, *bytes; /* member .i */
    uint8_t *left_out;
    table_value *scratch;        /* the adapter's, one cell per row */
    uint32_t *codes[2];          /* the adapter's, for table_read_codes */
} timeline_chunk;

typedef struct timeline_source timeline_source;

typedef struct timeline_adapter {
    const char *kind;               /* "instruction", "dma", "semaphore", "system", "framework" */
    const void *data;               /* the adapter's own static description (e.g. which table) */
    unsigned filters;               /* 1u << timeline_filter_id of the filters the kind has */
    unsigned sorts;                 /* 1u << timeline_sort of the sorts the kind has */
    const char *filters_accepted;   /* ends "<filter> does not apply to kind <kind>; " */
    const char *sorts_accepted;     /* ends "sort <s> is not available for kind <kind>; accepted: " */
    unsigned cursor_filters;        /* filters a cursor's fingerprint spells (tools/trace_extract.c): those
                                       of every kind of the model, so one model's cursors share one form */
    const timeline_column *columns;
    size_t ncolumns;
    bool unix_time;                 /* times are unix ns on the host clock, else ns from the profile start */
    const char *units_time;         /* what a time means, for the result's units */
    const char *units_opcode;       /* what opcode globs (NULL: the opcode column) */
    const char *const *left_out_names; /* why rows are left out, reason k at [k - 1] */
    size_t nleft_out;               /* <= TIMELINE_LEFT_OUT_MAX; 0: every row is a timeline row */
    const char *engines_note;       /* follows the accepted engines in an engine error ("" for none) */

    size_t (*rows)(const timeline_source *src);
    /* Resolve f's string filters against the model into *state (NULL f: none). An engine value that is
     * malformed or names nothing is NL_ERR_ARGUMENT, field "engine". *state is set even when it fails; the
     * engine closes it either way (close(NULL) does nothing). */
    int (*open)(const timeline_source *src, const timeline_filter *f, void **state, nl_error *err);
    void (*close)(void *state);
    void (*read)(void *state, size_t base, size_t n, unsigned fields, const timeline_chunk *out);
    void (*match)(void *state, timeline_filter_id which, size_t base, size_t n, const timeline_chunk *scratch,
                  uint8_t *keep);
    /* Column `col` at `row`; scratch (TIMELINE_SCRATCH bytes) backs cut strings until its next use. */
    void (*cell)(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out);
    /* The engine values this model accepts, comma-separated into buf (cut with " …"). */
    void (*engines)(const timeline_source *src, char *buf, size_t cap);
    /* Why a request may match nothing though rows exist (NULL: nothing to add). */
    const char *(*empty_hint)(const timeline_source *src, const timeline_filter *f);
} timeline_adapter;

struct timeline_source {
    const timeline_adapter *adapter;
    const void *model;
};

/* ---- requests ---- */

/* Whether a request suits the kind, before any model is read: a filter or sort the kind does not have, an
 * empty string filter, a negative time or minimum, an inverted window, a page size out of range. 0, or -1
 * with NL_ERR_ARGUMENT and the argument named in err->field; messages complete "Invalid argument <field>: ". */
int timeline_check(const timeline_adapter *ad, const timeline_request *req, nl_error *err)
    __attribute__((warn_unused_result));

/* Run the request (timeline_check included). 0 with *out filled (free with timeline_page_free), or -1. */
int timeline_run(const timeline_source *src, const timeline_request *req, const atomic_int *cancel,
                 timeline_page *out, nl_error *err) __attribute__((warn_unused_result));
void timeline_page_free(timeline_page *p);

/* The order of every timeline row by `sort` (the order timeline_run pages through), for req->order. 0 with
 * *out set (free with timeline_order_free), or -1 (NL_ERR_ARGUMENT, field "sort", for a sort the kind does
 * not have). Cost: 4 bytes per timeline row (none when the table is already in that order). */
int timeline_order_build(const timeline_source *src, timeline_sort sort, const atomic_int *cancel,
                         timeline_order **out, nl_error *err) __attribute__((warn_unused_result));
void timeline_order_free(timeline_order *o);
size_t timeline_order_bytes(const timeline_order *o);

/* When a request matches nothing: how many timeline rows each set filter matches on its own (-1 for a
 * filter that is not set), indexed by timeline_filter_id. */
int timeline_explain(const timeline_source *src, const timeline_request *req, const atomic_int *cancel,
                     int64_t counts[TIMELINE_FILTER_COUNT], nl_error *err) __attribute__((warn_unused_result));

/* What the table holds: `rows` table rows (the cursor space), `eligible` of them timeline rows, left_out[k - 1]
 * rows left out for reason k; first/last = earliest start and latest end over the timeline rows (has_range
 * false when there are none). */
typedef struct timeline_counts {
    size_t rows;
    uint64_t eligible;
    uint64_t left_out[TIMELINE_LEFT_OUT_MAX];
    bool has_range;
    int64_t first_ns, last_ns;
} timeline_counts;
int timeline_count(const timeline_source *src, const atomic_int *cancel, timeline_counts *out, nl_error *err)
    __attribute__((warn_unused_result));

/* Index of a column of the kind by name, or -1. */
int timeline_column_find(const timeline_adapter *ad, const char *name);
/* The value of column `col` (an index into ad->columns) at `row`; see timeline_adapter.cell. */
void timeline_cell_get(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out);

/* "time", "duration", "wait", "bytes"; parse returns -1 for any other name. */
const char *timeline_sort_name(timeline_sort s);
int timeline_sort_parse(const char *name, timeline_sort *out);

#endif
