/* host_extract — filtered, windowed, sorted, paged rows of the host-side timelines: the spans of a system
 * profile (system_model: ntrace.pb begin/end pairs, instants, unpaired records) and the events of a
 * framework trace (framework_model: Kineto trace.json). These are trace-extract's kinds `system` and
 * `framework`; the device kinds live in extract.h, whose page, column and cell types this module reuses.
 *
 * Owns: nothing beyond the page it returns (extract_page_free). Reads finished, immutable models, so any
 * number of extractions may run at once on any threads. Polls `cancel` every EXTRACT_CHUNK rows.
 * Time: every time in and out is unix-epoch ns on the host clock. System spans are written that way
 * (hardware events already shifted to CPU time, formats.md §9.3); framework times are the trace's µs
 * converted exactly to ns and moved onto the unix epoch with baseTimeNanoseconds when the trace has one
 * (formats.md §10.3: unix ns = baseTimeNanoseconds + ts·1000; without it ts is already unix µs).
 * Rows: system — every SM_SPANS row; framework — every event except metadata (ph M) and events without a
 * usable ts (counted by host_extract_counts). Row indices are table rows, so a cursor is stable.
 * Order: time = (start, row); duration / bytes = (value descending, start, row): a strict total order, so
 * the cursor (the last row shown) resumes exactly. With a memoized order of the sort (host_extract_order_build,
 * kept with the model by tools/memo.h) a page is a slice of it, or one pass over the filter columns plus a
 * walk of it; without one, every row is ranked through a bounded heap. The pages are the same.
 * Errors: -1 with nl_error: NL_ERR_ARGUMENT (field set: an engine value that is malformed or matches no
 * row, an empty glob, a negative or inverted window, a page size out of range, a cursor row out of range or
 * not a row of the kind), NL_ERR_NOMEM, NL_ERR_CANCELLED. */
#ifndef NL_HOST_EXTRACT_H
#define NL_HOST_EXTRACT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract.h"
#include "framework_model.h"
#include "nl_error.h"
#include "system_model.h"

/* Bytes of an event name shown in a cell (Kineto names reach 5 KB); longer ones end in "…". */
#define HOST_EXTRACT_NAME_MAX 240u
/* Bytes of the rendered `attrs` cell of a system span. */
#define HOST_EXTRACT_ATTRS_MAX 400u
/* Scratch a caller passes to host_extract_cell_get. */
#define HOST_EXTRACT_SCRATCH (HOST_EXTRACT_ATTRS_MAX + 8u)

typedef enum host_extract_kind { HOST_EXTRACT_SYSTEM, HOST_EXTRACT_FRAMEWORK } host_extract_kind;
typedef enum host_extract_sort { HOST_EXTRACT_SORT_TIME, HOST_EXTRACT_SORT_DURATION, HOST_EXTRACT_SORT_BYTES,
                                 HOST_EXTRACT_SORT_COUNT } host_extract_sort;

/* The model rows come from: `sys` for HOST_EXTRACT_SYSTEM, `fw` for HOST_EXTRACT_FRAMEWORK (borrowed). */
typedef struct host_extract_source {
    host_extract_kind kind;
    const system_model *sys;
    const framework_model *fw;
} host_extract_source;

/* Filters; NULL / false / 0 = not set. Strings are borrowed for the call.
 *   engine    system: "host" (runtime API spans), "device" or "hardware" (events carrying nc_timestamp_ns),
 *             "nc<N>" (nc_idx), "core<N>" (device_core_idx), "worker<N>" (worker_gid), "thread<N>" (f9);
 *             framework: "host" or "device" (the process role), "pid:<pid>", "tid:<tid>", or a pid, tid,
 *             process name or thread name written exactly (case-insensitive). Matching no row is an error.
 *   name_glob fnmatch(3) glob, case-insensitive, on the event type name (system) or event name (framework)
 *   window    [start_ns, end_ns) in unix ns: rows overlapping it; a zero-length row counts when its instant
 *             lies inside; start == end selects the rows active at that instant
 *   min_duration_ns  end − start ≥ this (instants and unpaired records have 0) */
typedef struct host_extract_filter {
    const char *engine;
    const char *name_glob;
    bool has_start, has_end;
    int64_t start_ns, end_ns;
    int64_t min_duration_ns;
} host_extract_filter;

/* Every timeline row of one source in one sort's order (row_order.h), built once per (model, sort). */
typedef struct host_extract_order host_extract_order;

typedef struct host_extract_request {
    host_extract_filter filter;
    host_extract_sort sort;
    size_t limit;            /* 1..EXTRACT_LIMIT_MAX */
    bool has_after;          /* resume after this row (the cursor) */
    size_t after_row;
    const host_extract_order *order; /* nullable: host_extract_order_build(src, sort); NL_ERR_INTERNAL when it
                                        was built for another kind, sort or table */
} host_extract_request;

/* Run the request. 0 with *out filled (free with extract_page_free), or -1 with err. */
int host_extract_run(const host_extract_source *src, const host_extract_request *req, const atomic_int *cancel,
                     extract_page *out, nl_error *err) __attribute__((warn_unused_result));

/* The order of every timeline row of src by `sort` (metadata and untimed framework events left out), for
 * req->order. 0 with *out set (free with host_extract_order_free), or -1 with err (NL_ERR_ARGUMENT for an
 * unknown sort, NL_ERR_NOMEM, NL_ERR_CANCELLED). Cost: 4 bytes per row (none when already in order). */
int host_extract_order_build(const host_extract_source *src, host_extract_sort sort, const atomic_int *cancel,
                             host_extract_order **out, nl_error *err) __attribute__((warn_unused_result));
void host_extract_order_free(host_extract_order *o);
size_t host_extract_order_bytes(const host_extract_order *o);

/* When nothing matched: how many rows each set filter matches on its own (-1 for a filter not set). */
enum { HOST_EXTRACT_F_ENGINE, HOST_EXTRACT_F_NAME, HOST_EXTRACT_F_WINDOW, HOST_EXTRACT_F_MIN_DURATION,
       HOST_EXTRACT_FILTER_COUNT };
extern const char *const host_extract_filter_names[HOST_EXTRACT_FILTER_COUNT];
int host_extract_explain(const host_extract_source *src, const host_extract_request *req, const atomic_int *cancel,
                         int64_t counts[HOST_EXTRACT_FILTER_COUNT], nl_error *err) __attribute__((warn_unused_result));

/* What the kind's table holds: `rows` table rows (the cursor space), `eligible` of them are timeline rows,
 * `metadata` / `untimed` framework events left out; first/last = earliest start and latest end (unix ns)
 * over the eligible rows (has_range 0 when there are none). */
typedef struct host_extract_counts {
    size_t rows;
    uint64_t eligible, metadata, untimed;
    bool has_range;
    int64_t first_ns, last_ns;
} host_extract_counts;
void host_extract_count(const host_extract_source *src, host_extract_counts *out);

/* The engine values this source accepts, comma-separated into buf (cut with " …" when it does not fit). */
void host_extract_engines(const host_extract_source *src, char *buf, size_t cap);

/* ---- projection ---- */

const extract_column *host_extract_columns(host_extract_kind kind, size_t *count);
int host_extract_column_find(host_extract_kind kind, const char *name);
/* The value of column `col` at `row`; `scratch` (HOST_EXTRACT_SCRATCH bytes) backs cut names and attrs, so
 * a string cell is valid until the next call with the same scratch. */
void host_extract_cell_get(const host_extract_source *src, int col, size_t row, char *scratch, extract_cell *out);

const char *host_extract_kind_name(host_extract_kind k);
const char *host_extract_sort_name(host_extract_sort s);
/* "time", "duration", "bytes"; -1 for any other name. */
int host_extract_sort_parse(const char *name, host_extract_sort *out);

#endif
