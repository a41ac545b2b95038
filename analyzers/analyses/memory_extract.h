/* memory_extract — filtered, windowed, sorted, paged rows of a memory snapshot's allocator trace (the
 * device_traces entries of a memory_model): trace-extract's kind `memory`. Same shape as host_extract.h:
 * pages are extract.h's extract_page, columns extract_column, cells extract_cell; orders are row_order.h.
 *
 * Owns: nothing beyond the page it returns (extract_page_free). Reads a finished, immutable memory_model, so
 * any number of extractions may run at once on any threads. Polls `cancel` every EXTRACT_CHUNK rows.
 * Time: an entry's time_us is the allocator's clock (unix µs on CUDA); in and out it is unix ns
 * (time_us × 1000) like the other host kinds. Entries without time_us (2.0's `snapshot` marker) have no
 * time: they never match a window and sort before every timed entry in time order.
 * Rows: every trace row (all devices, device by device in file order). Row indices are table rows, so a
 * cursor is stable. Order: time = (time, row); size = (size descending, time, row): a strict total order,
 * so the cursor (the last row shown) resumes exactly. With a memoized order (memory_extract_order_build) a
 * page is a slice of it, or a pass over the filter columns plus a walk of it; without one every row is
 * ranked through a bounded heap. The pages are the same.
 * Errors: -1 with nl_error: NL_ERR_ARGUMENT (field set: an action name outside memory_action, a device the
 * snapshot has no trace for, a negative size or window, an inverted window, a page size out of range, a
 * cursor row out of range), NL_ERR_NOMEM, NL_ERR_CANCELLED, NL_ERR_INTERNAL (an order built for another
 * sort or model). */
#ifndef NL_MEMORY_EXTRACT_H
#define NL_MEMORY_EXTRACT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract.h"
#include "memory_model.h"
#include "nl_error.h"

/* Scratch a caller passes to memory_extract_cell_get (the site cell "file:line:name", cut with "…"). */
#define MEMORY_EXTRACT_SCRATCH 320u

typedef enum memory_extract_sort { MEMORY_EXTRACT_SORT_TIME, MEMORY_EXTRACT_SORT_SIZE, MEMORY_EXTRACT_SORT_COUNT }
    memory_extract_sort;

/* Filters; NULL / false / 0 = not set. Strings are borrowed for the call.
 *   actions   comma-separated action names as PyTorch writes them ("alloc,free_completed", "oom"; "other" =
 *             any unknown action), case-insensitive
 *   device    the device_traces index
 *   min_size  size ≥ this many bytes
 *   window    [start_ns, end_ns) in unix ns on time_us × 1000: an entry is an instant, kept when it lies
 *             inside; start == end keeps the entries at that instant */
typedef struct memory_extract_filter {
    const char *actions;
    bool has_device;
    uint32_t device;
    int64_t min_size;
    bool has_start, has_end;
    int64_t start_ns, end_ns;
} memory_extract_filter;

typedef struct memory_extract_order memory_extract_order;

typedef struct memory_extract_request {
    memory_extract_filter filter;
    memory_extract_sort sort;
    size_t limit;     /* 1..EXTRACT_LIMIT_MAX */
    bool has_after;   /* resume after this row (the cursor) */
    size_t after_row;
    const memory_extract_order *order; /* nullable: memory_extract_order_build(m, sort) */
} memory_extract_request;

int memory_extract_run(const memory_model *m, const memory_extract_request *req, const atomic_int *cancel,
                       extract_page *out, nl_error *err) __attribute__((warn_unused_result));

/* Every trace row in `sort`'s order, for req->order. 0 with *out (memory_extract_order_free), or -1 with err.
 * Cost: 4 bytes per row (none when the trace is already in that order, e.g. time order of one device). */
int memory_extract_order_build(const memory_model *m, memory_extract_sort sort, const atomic_int *cancel,
                               memory_extract_order **out, nl_error *err) __attribute__((warn_unused_result));
void memory_extract_order_free(memory_extract_order *o);
size_t memory_extract_order_bytes(const memory_extract_order *o);

/* When nothing matched: how many rows each set filter matches on its own (-1 for a filter not set). */
enum { MEMORY_EXTRACT_F_ACTIONS, MEMORY_EXTRACT_F_DEVICE, MEMORY_EXTRACT_F_MIN_SIZE, MEMORY_EXTRACT_F_WINDOW,
       MEMORY_EXTRACT_FILTER_COUNT };
extern const char *const memory_extract_filter_names[MEMORY_EXTRACT_FILTER_COUNT];
int memory_extract_explain(const memory_model *m, const memory_extract_request *req, const atomic_int *cancel,
                           int64_t counts[MEMORY_EXTRACT_FILTER_COUNT], nl_error *err)
    __attribute__((warn_unused_result));

/* ---- projection ---- */

/* Columns: row, device, action, addr (device_free for oom), size, stream, time_ns, site (the entry's
 * allocation site: memory_summary.h's rule), frames (frames in its stack), compile_context, user_metadata. */
const extract_column *memory_extract_columns(size_t *count);
int memory_extract_column_find(const char *name);
void memory_extract_cell_get(const memory_model *m, int col, size_t row, char *scratch, extract_cell *out);

const char *memory_extract_sort_name(memory_extract_sort s);
/* "time", "size"; -1 for any other name. */
int memory_extract_sort_parse(const char *name, memory_extract_sort *out);

#endif
