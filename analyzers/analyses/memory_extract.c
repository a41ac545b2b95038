/* memory_extract — see memory_extract.h. One request runs as host_extract.c's does:
 *   1. resolve: the action list becomes one flag per memory_action; the device is checked;
 *   2. with an order (req->order): one pass setting a bit per matching row (when a filter is set), then the
 *      cursor's position by binary search and a walk of the order picking set rows (few matches are ranked by
 *      their keys instead: row_order_rank_matches);
 *   2'. without one: rows are visited in EXTRACT_CHUNK blocks, counted (`total`, and those after the cursor)
 *      and offered to a topn heap of `limit` keys.
 * Both paths rank by mx_key and keep the same rows, so their pages are equal. */
#include "memory_extract.h"
#include "memory_summary.h"
#include "row_order.h"
#include "topn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const memory_extract_filter_names[MEMORY_EXTRACT_FILTER_COUNT] = {"actions", "device", "min_size",
                                                                             "window"};
static const char *const mx_sort_names[MEMORY_EXTRACT_SORT_COUNT] = {"time", "size"};

/* ---- columns ------------------------------------------------------------------------------------------ */

enum { MX_ROW, MX_DEVICE, MX_ACTION, MX_ADDR, MX_SIZE, MX_STREAM, MX_TIME, MX_SITE, MX_FRAMES, MX_CC, MX_UM, MX_COUNT };
static const extract_column mx_columns[MX_COUNT] = {
    [MX_ROW] = {"row", "trace entry index in the memory model", false},
    [MX_DEVICE] = {"device", "device_traces index", true},
    [MX_ACTION] = {"action", "alloc, free_requested, free_completed, segment_alloc, segment_free, segment_map, "
                             "segment_unmap, oom, snapshot, other", true},
    [MX_ADDR] = {"addr", "address; for oom: device_free, B", true},
    [MX_SIZE] = {"size", "bytes (alloc/free: requested size; oom: the failed request)", true},
    [MX_STREAM] = {"stream", "stream handle as an integer", false},
    [MX_TIME] = {"time_ns", "time_us x 1000, unix ns (allocator clock)", true},
    [MX_SITE] = {"site", "allocation site file:line:function (innermost user frame, else framework)", true},
    [MX_FRAMES] = {"frames", "frames in the entry's stack trace", false},
    [MX_CC] = {"compile_context", "torch.compile context (newer PyTorch)", false},
    [MX_UM] = {"user_metadata", "user metadata (newer PyTorch)", false},
};

const extract_column *memory_extract_columns(size_t *count)
{
    *count = MX_COUNT;
    return mx_columns;
}

int memory_extract_column_find(const char *name)
{
    for (int c = 0; c < MX_COUNT; c++)
        if (!strcmp(mx_columns[c].name, name))
            return c;
    return -1;
}

const char *memory_extract_sort_name(memory_extract_sort s)
{
    return (unsigned)s < MEMORY_EXTRACT_SORT_COUNT ? mx_sort_names[s] : "?";
}

int memory_extract_sort_parse(const char *name, memory_extract_sort *out)
{
    for (int s = 0; s < MEMORY_EXTRACT_SORT_COUNT; s++) {
        if (!strcmp(name, mx_sort_names[s])) {
            *out = (memory_extract_sort)s;
            return 0;
        }
    }
    return -1;
}

/* time_us as unix ns, saturated (time_us comes from the file; INT64_MIN stays free for "no time") */
static int64_t mx_us_to_ns(int64_t us)
{
    if (us > INT64_MAX / 1000)
        return INT64_MAX;
    if (us < INT64_MIN / 1000 + 1)
        return INT64_MIN + 1;
    return us * 1000;
}

void memory_extract_cell_get(const memory_model *m, int col, size_t row, char *scratch, extract_cell *out)
{
    memset(out, 0, sizeof *out);
    const table *t = memory_model_trace(m);
    if (row >= table_rows(t))
        return;
    uint64_t flags = table_u64(t, MM_TR_FLAGS, row);
    switch (col) {
    case MX_ROW: out->kind = EXTRACT_CELL_UINT, out->u = row; return;
    case MX_DEVICE: out->kind = EXTRACT_CELL_UINT, out->u = table_u64(t, MM_TR_DEVICE, row); return;
    case MX_ACTION:
        out->kind = EXTRACT_CELL_STR;
        out->s = memory_action_name((memory_action)table_u64(t, MM_TR_ACTION, row));
        return;
    case MX_ADDR:
        if (flags & MM_TR_F_ADDR)
            out->kind = EXTRACT_CELL_INT, out->i = table_i64(t, MM_TR_ADDR, row);
        return;
    case MX_SIZE:
        if (flags & MM_TR_F_SIZE)
            out->kind = EXTRACT_CELL_INT, out->i = table_i64(t, MM_TR_SIZE, row);
        return;
    case MX_STREAM:
        if (flags & MM_TR_F_STREAM)
            out->kind = EXTRACT_CELL_INT, out->i = table_i64(t, MM_TR_STREAM, row);
        return;
    case MX_TIME:
        if (flags & MM_TR_F_TIME)
            out->kind = EXTRACT_CELL_INT, out->i = mx_us_to_ns(table_i64(t, MM_TR_TIME_US, row));
        return;
    case MX_SITE: {
        uint32_t site, via;
        bool user;
        memory_stack_site(m, (uint32_t)table_u64(t, MM_TR_FRAMES, row), &site, &user, &via);
        if (site == MEMORY_SITE_NONE)
            return;
        const table *fr = memory_model_frames(m);
        int n = snprintf(scratch, MEMORY_EXTRACT_SCRATCH, "%s:%lld:%s",
                         memory_model_str(m, table_str(fr, MM_FR_FILENAME, site), NULL),
                         (long long)table_i64(fr, MM_FR_LINE, site),
                         memory_model_str(m, table_str(fr, MM_FR_NAME, site), NULL));
        if (n >= (int)MEMORY_EXTRACT_SCRATCH) { /* cut on a UTF-8 boundary with "…" */
            size_t k = MEMORY_EXTRACT_SCRATCH - 4;
            while (k > 0 && ((unsigned char)scratch[k] & 0xc0) == 0x80)
                k--;
            memcpy(scratch + k, "\xe2\x80\xa6", 4);
        }
        out->kind = EXTRACT_CELL_STR, out->s = scratch;
        return;
    }
    case MX_FRAMES: {
        uint32_t n;
        memory_model_stack(m, (uint32_t)table_u64(t, MM_TR_FRAMES, row), &n);
        out->kind = EXTRACT_CELL_UINT, out->u = n;
        return;
    }
    case MX_CC: case MX_UM: {
        const char *s = memory_model_str(m, table_str(t, col == MX_CC ? MM_TR_COMPILE_CONTEXT : MM_TR_USER_METADATA,
                                                      row), NULL);
        if (s && *s)
            out->kind = EXTRACT_CELL_STR, out->s = s;
        return;
    }
    default: return;
    }
}

/* ---- request ------------------------------------------------------------------------------------------ */

typedef struct mx_ctx {
    const memory_model *m;
    const table *t;
    const memory_extract_request *req;
    size_t rows;
    bool set[MEMORY_EXTRACT_FILTER_COUNT];
    bool action_ok[MM_ACT_COUNT];
    /* one chunk decoded */
    table_value act[EXTRACT_CHUNK], dev[EXTRACT_CHUNK], size[EXTRACT_CHUNK], time[EXTRACT_CHUNK], flags[EXTRACT_CHUNK];
} mx_ctx;

static int mx_arg(nl_error *err, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int mx_arg(nl_error *err, const char *field, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "%s", msg);
    nl_error_set_field(err, field);
    return -1;
}

static int mx_nomem(nl_error *err, const char *what)
{
    return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory for the memory trace %s", what);
}

static int mx_parse_actions(mx_ctx *c, const char *list, nl_error *err)
{
    const char *p = list;
    int n = 0;
    while (*p) {
        const char *q = p + strcspn(p, ",");
        const char *a = p, *b = q;
        while (a < b && *a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        int found = -1;
        for (int k = 0; k < MM_ACT_COUNT && found < 0; k++) {
            const char *name = memory_action_name((memory_action)k);
            if (strlen(name) == (size_t)(b - a) && !strncasecmp(name, a, (size_t)(b - a)))
                found = k;
        }
        if (found < 0)
            return mx_arg(err, "actions", "unknown action '%.*s'; the actions are alloc, free_requested, "
                          "free_completed, segment_alloc, segment_free, segment_map, segment_unmap, oom, snapshot, "
                          "other", (int)(b - a), a);
        c->action_ok[found] = true;
        n++;
        p = *q ? q + 1 : q;
    }
    if (!n)
        return mx_arg(err, "actions", "an empty action list");
    return 0;
}

static int mx_open(mx_ctx *c, const memory_model *m, const memory_extract_request *req, nl_error *err)
{
    memset(c, 0, offsetof(mx_ctx, act));
    c->m = m;
    c->t = memory_model_trace(m);
    c->req = req;
    c->rows = table_rows(c->t);
    const memory_extract_filter *f = &req->filter;
    if (req->limit < 1 || req->limit > EXTRACT_LIMIT_MAX)
        return mx_arg(err, "limit", "the page size %zu is outside 1..%u", req->limit, EXTRACT_LIMIT_MAX);
    if ((unsigned)req->sort >= MEMORY_EXTRACT_SORT_COUNT)
        return mx_arg(err, "sort", "unknown sort; the memory trace sorts by time or size");
    if (req->has_after && req->after_row >= c->rows)
        return mx_arg(err, "cursor", "the cursor points at row %zu; the trace has %zu rows", req->after_row, c->rows);
    if (f->actions) {
        c->set[MEMORY_EXTRACT_F_ACTIONS] = true;
        if (mx_parse_actions(c, f->actions, err) != 0)
            return -1;
    }
    if (f->has_device) {
        if (f->device >= memory_model_info_of(m)->trace_devices)
            return mx_arg(err, "device", "device %u has no trace; device_traces holds %u devices", f->device,
                          memory_model_info_of(m)->trace_devices);
        c->set[MEMORY_EXTRACT_F_DEVICE] = true;
    }
    if (f->min_size < 0)
        return mx_arg(err, "min_size", "min_size %lld is negative", (long long)f->min_size);
    c->set[MEMORY_EXTRACT_F_MIN_SIZE] = f->min_size > 0;
    if ((f->has_start && f->start_ns < 0) || (f->has_end && f->end_ns < 0))
        return mx_arg(err, "window", "a window bound is negative");
    if (f->has_start && f->has_end && f->end_ns < f->start_ns)
        return mx_arg(err, "window", "the window ends (%lld) before it starts (%lld)", (long long)f->end_ns,
                      (long long)f->start_ns);
    c->set[MEMORY_EXTRACT_F_WINDOW] = f->has_start || f->has_end;
    return 0;
}

static void mx_read(mx_ctx *c, size_t base, size_t n)
{
    table_read(c->t, MM_TR_ACTION, base, n, c->act);
    table_read(c->t, MM_TR_DEVICE, base, n, c->dev);
    table_read(c->t, MM_TR_SIZE, base, n, c->size);
    table_read(c->t, MM_TR_TIME_US, base, n, c->time);
    table_read(c->t, MM_TR_FLAGS, base, n, c->flags);
}

/* time in ns, INT64_MIN for entries without one */
static int64_t mx_time(const mx_ctx *c, size_t i)
{
    return (c->flags[i].u & MM_TR_F_TIME) ? mx_us_to_ns(c->time[i].i) : INT64_MIN;
}

static bool mx_test(const mx_ctx *c, int which, size_t i)
{
    const memory_extract_filter *f = &c->req->filter;
    switch (which) {
    case MEMORY_EXTRACT_F_ACTIONS: return c->action_ok[c->act[i].u < MM_ACT_COUNT ? c->act[i].u : MM_ACT_OTHER];
    case MEMORY_EXTRACT_F_DEVICE: return c->dev[i].u == f->device;
    case MEMORY_EXTRACT_F_MIN_SIZE: return c->size[i].i >= f->min_size;
    default: {
        if (!(c->flags[i].u & MM_TR_F_TIME))
            return false;
        int64_t t = mx_time(c, i);
        if (f->has_start && f->has_end && f->start_ns == f->end_ns)
            return t == f->start_ns;
        return (!f->has_start || t >= f->start_ns) && (!f->has_end || t < f->end_ns);
    }
    }
}

static bool mx_matches(const mx_ctx *c, size_t i)
{
    for (int f = 0; f < MEMORY_EXTRACT_FILTER_COUNT; f++)
        if (c->set[f] && !mx_test(c, f, i))
            return false;
    return true;
}

static row_order_key mx_key(const mx_ctx *c, size_t base, size_t i)
{
    row_order_key k = {0, mx_time(c, i), base + i};
    if (c->req->sort == MEMORY_EXTRACT_SORT_SIZE)
        k.value = c->size[i].i;
    return k;
}

static void mx_keys(void *ctx, size_t base, size_t n, int64_t *value, int64_t *ts, uint8_t *keep)
{
    mx_ctx *c = ctx;
    mx_read(c, base, n);
    for (size_t i = 0; i < n; i++) {
        row_order_key k = mx_key(c, base, i);
        value[i] = k.value;
        ts[i] = k.ts;
        keep[i] = 1;
    }
}

static bool mx_cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

static bool mx_any_filter(const mx_ctx *c)
{
    for (int f = 0; f < MEMORY_EXTRACT_FILTER_COUNT; f++)
        if (c->set[f])
            return true;
    return false;
}

static int mx_page_scan(mx_ctx *c, const row_order_key *after, const atomic_int *cancel, extract_page *out,
                        nl_error *err)
{
    topn heap;
    if (topn_init(&heap, sizeof(row_order_key), c->req->limit, row_order_key_cmp, NULL) != 0)
        return mx_nomem(err, "page heap");
    int rc = 0;
    for (size_t base = 0; base < c->rows; base += EXTRACT_CHUNK) {
        if (mx_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = c->rows - base < EXTRACT_CHUNK ? c->rows - base : EXTRACT_CHUNK;
        mx_read(c, base, n);
        for (size_t i = 0; i < n; i++) {
            if (!mx_matches(c, i))
                continue;
            out->total++;
            row_order_key k = mx_key(c, base, i);
            if (c->req->has_after && row_order_key_cmp(&k, after, NULL) <= 0)
                continue;
            out->after_cursor++;
            topn_offer(&heap, &k);
        }
    }
    if (!rc) {
        size_t n = topn_finish(&heap);
        if (!(out->rows = malloc((n ? n : 1) * sizeof *out->rows))) {
            rc = mx_nomem(err, "page");
        } else {
            for (size_t i = 0; i < n; i++)
                out->rows[i] = ((const row_order_key *)topn_at(&heap, i))->row;
            out->count = n;
        }
    }
    topn_close(&heap);
    return rc;
}

/* ---- memoized order ----------------------------------------------------------------------------------- */

struct memory_extract_order {
    memory_extract_sort sort;
    row_order *rows;
};

int memory_extract_order_build(const memory_model *m, memory_extract_sort sort, const atomic_int *cancel,
                               memory_extract_order **out, nl_error *err)
{
    *out = NULL;
    memory_extract_request req = {.sort = sort, .limit = 1};
    mx_ctx *c = malloc(sizeof *c);
    memory_extract_order *o = calloc(1, sizeof *o);
    int rc = !c || !o ? mx_nomem(err, "order") : mx_open(c, m, &req, err);
    if (!rc)
        rc = row_order_build(c->rows, mx_keys, c, cancel, &o->rows, err);
    free(c);
    if (rc) {
        memory_extract_order_free(o);
        return -1;
    }
    o->sort = sort;
    *out = o;
    return 0;
}

void memory_extract_order_free(memory_extract_order *o)
{
    if (o)
        row_order_free(o->rows);
    free(o);
}

size_t memory_extract_order_bytes(const memory_extract_order *o)
{
    return sizeof *o + row_order_bytes(o->rows);
}

/* One bit per matching row; *total = how many. */
static int mx_match_bits(mx_ctx *c, const atomic_int *cancel, uint64_t **out, uint64_t *total, nl_error *err)
{
    uint64_t *match = calloc(row_order_match_words(c->rows) + 1, sizeof *match);
    uint8_t *keep = malloc(EXTRACT_CHUNK);
    int rc = !match || !keep ? mx_nomem(err, "match bits") : 0;
    *total = 0;
    for (size_t base = 0; !rc && base < c->rows; base += EXTRACT_CHUNK) {
        if (mx_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = c->rows - base < EXTRACT_CHUNK ? c->rows - base : EXTRACT_CHUNK;
        mx_read(c, base, n);
        for (size_t i = 0; i < n; i++)
            keep[i] = mx_matches(c, i);
        *total += row_order_match_pack(match, base, keep, n);
    }
    free(keep);
    if (rc) {
        free(match);
        return -1;
    }
    *out = match;
    return 0;
}

static int mx_page_ordered(mx_ctx *c, const memory_extract_order *o, const row_order_key *after,
                           const atomic_int *cancel, extract_page *out, nl_error *err)
{
    if (o->sort != c->req->sort || row_order_table_rows(o->rows) != c->rows)
        return nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "the order was built by %s over %zu rows, not for this "
                            "request", memory_extract_sort_name(o->sort), row_order_table_rows(o->rows));
    uint64_t *match = NULL;
    if (mx_any_filter(c) && mx_match_bits(c, cancel, &match, &out->total, err) != 0)
        return -1;
    out->ordered = true;
    if (!(out->rows = malloc(c->req->limit * sizeof *out->rows))) {
        free(match);
        return mx_nomem(err, "page");
    }
    if (match && row_order_is_sparse(o->rows, out->total)) {
        int rc = row_order_rank_matches(c->rows, match, c->req->has_after ? after : NULL, mx_keys, c, c->req->limit,
                                        out->rows, &out->count, &out->after_cursor);
        free(match);
        return rc ? mx_nomem(err, "page heap") : 0;
    }
    size_t from = c->req->has_after ? row_order_upper_bound(o->rows, after->value, after->ts, after->row, mx_keys, c)
                                    : 0;
    if (!match)
        out->total = row_order_count(o->rows);
    out->after_cursor = row_order_matches_from(o->rows, from, match, out->total);
    out->count = row_order_take(o->rows, from, match, c->req->limit, out->rows);
    free(match);
    return 0;
}

int memory_extract_run(const memory_model *m, const memory_extract_request *req, const atomic_int *cancel,
                       extract_page *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    mx_ctx *c = malloc(sizeof *c);
    if (!c)
        return mx_nomem(err, "request");
    row_order_key after = {0};
    int rc = mx_open(c, m, req, err);
    if (!rc && req->has_after) {
        mx_read(c, req->after_row, 1);
        after = mx_key(c, req->after_row, 0);
    }
    if (!rc)
        rc = req->order ? mx_page_ordered(c, req->order, &after, cancel, out, err)
                        : mx_page_scan(c, &after, cancel, out, err);
    free(c);
    if (rc) {
        extract_page_free(out);
        return -1;
    }
    out->more = out->after_cursor > out->count;
    return 0;
}

int memory_extract_explain(const memory_model *m, const memory_extract_request *req, const atomic_int *cancel,
                           int64_t counts[MEMORY_EXTRACT_FILTER_COUNT], nl_error *err)
{
    mx_ctx *c = malloc(sizeof *c);
    if (!c)
        return mx_nomem(err, "request");
    int rc = mx_open(c, m, req, err);
    for (int f = 0; f < MEMORY_EXTRACT_FILTER_COUNT; f++)
        counts[f] = !rc && c->set[f] ? 0 : -1;
    for (size_t base = 0; !rc && base < c->rows; base += EXTRACT_CHUNK) {
        if (mx_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = c->rows - base < EXTRACT_CHUNK ? c->rows - base : EXTRACT_CHUNK;
        mx_read(c, base, n);
        for (size_t i = 0; i < n; i++)
            for (int f = 0; f < MEMORY_EXTRACT_FILTER_COUNT; f++)
                if (c->set[f] && mx_test(c, f, i))
                    counts[f]++;
    }
    free(c);
    return rc ? -1 : 0;
}
