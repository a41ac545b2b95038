/* timeline — see timeline.h.
 *
 * One request runs in three steps:
 *   1. open: check the request against the kind (timeline_check), check the cursor row, and let the
 *      adapter resolve the string filters (one byte per dictionary code, thread or lane, so matching a row
 *      is a lookup; an engine value that names nothing is an argument error);
 *   2. with an order (req->order, memoized per model, kind and sort): find the cursor's position by binary
 *      search; without filters the page is the next `limit` positions and `total` the order's size; with
 *      filters one pass over the filter columns sets a bit per matching row (and counts `total`), and the
 *      page is the first `limit` set rows walking the order from the cursor's position (the rows after the
 *      cursor are counted on the shorter side of it) — or, when the matches are few (row_order.h,
 *      ROW_ORDER_SPARSE_SHARE), the matches ranked by their keys through a heap;
 *   2'. without one, scan: visit the rows in TIMELINE_CHUNK blocks, narrow a keep flag per row by every
 *      filter a column at a time, count the matches (`total`) and those after the cursor, and offer the
 *      latter to a topn heap of `limit` keys — or, for time order with no filter over a table whose rows
 *      are all timeline rows and whose start times never decrease, take the `limit` rows after the cursor;
 *   3. finish: the kept keys sorted best-first are the page.
 * Both paths rank by the same key (tl_key_at) and keep the same rows, so their pages are equal.
 * Chunk buffers: the adapter reads into the context's arrays (timeline_chunk), allocated as one block at
 * the first pass over chunks, so a page sliced from an order allocates none; reads of one row (the cursor's
 * key, the probes of the binary search, the keys of sparse matches) use a one-row chunk inside the context.
 * The order's key callback (tl_order_keys) reads into the same arrays as the passes, which is safe because
 * the ordered path finishes its match pass before it searches or ranks. */
#include "timeline.h"
#include "row_order.h"
#include "topn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(ROW_ORDER_CHUNK <= TIMELINE_CHUNK, "row_order chunks are read into the TIMELINE_CHUNK buffers");
_Static_assert(TIMELINE_CHUNK % 64 == 0, "match bits are packed a word at a time from chunk starts");

const char *const timeline_filter_names[TIMELINE_FILTER_COUNT] = {"engine", "opcode", "window", "source", "layer",
                                                                 "min_duration_ns", "min_wait_ns", "min_bytes"};
static const char *const tl_sort_names[TIMELINE_SORT_COUNT] = {"time", "duration", "wait", "bytes"};

const char *timeline_sort_name(timeline_sort s)
{
    return s < TIMELINE_SORT_COUNT ? tl_sort_names[s] : "?";
}

int timeline_sort_parse(const char *name, timeline_sort *out)
{
    for (int s = 0; name && s < TIMELINE_SORT_COUNT; s++)
        if (!strcmp(name, tl_sort_names[s]))
            return (*out = (timeline_sort)s), 0;
    return -1;
}

int timeline_column_find(const timeline_adapter *ad, const char *name)
{
    for (size_t i = 0; name && i < ad->ncolumns; i++)
        if (!strcmp(ad->columns[i].name, name))
            return (int)i;
    return -1;
}

void timeline_cell_get(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out)
{
    memset(out, 0, sizeof *out);
    if (col >= 0 && (size_t)col < src->adapter->ncolumns)
        src->adapter->cell(src, col, row, scratch, out);
}

/* ---- checking ----------------------------------------------------------------------------------------- */

static int tl_arg_error(nl_error *err, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int tl_arg_error(nl_error *err, const char *field, const char *fmt, ...)
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

static int tl_nomem(nl_error *err, const char *what)
{
    return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (%s)", what);
}

/* Which filters a request sets. */
static void tl_set(const timeline_filter *f, bool set[TIMELINE_FILTER_COUNT])
{
    set[TIMELINE_F_ENGINE] = f->engine != NULL;
    set[TIMELINE_F_OPCODE] = f->opcode_glob != NULL;
    set[TIMELINE_F_WINDOW] = f->has_start || f->has_end;
    set[TIMELINE_F_SOURCE] = f->source != NULL;
    set[TIMELINE_F_LAYER] = f->layer != NULL;
    set[TIMELINE_F_MIN_DURATION] = f->min_duration_ns != 0;
    set[TIMELINE_F_MIN_WAIT] = f->min_wait_ns != 0;
    set[TIMELINE_F_MIN_BYTES] = f->min_bytes != 0;
}

/* The first set filter the kind does not have, in the order argument errors name them, or NULL. */
static const char *tl_foreign_filter(const timeline_adapter *ad, const bool set[TIMELINE_FILTER_COUNT])
{
    static const timeline_filter_id order[] = {TIMELINE_F_OPCODE, TIMELINE_F_SOURCE, TIMELINE_F_LAYER, TIMELINE_F_MIN_WAIT,
                                               TIMELINE_F_ENGINE, TIMELINE_F_MIN_DURATION, TIMELINE_F_WINDOW,
                                               TIMELINE_F_MIN_BYTES};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (set[order[i]] && !(ad->filters & (1u << order[i])))
            return timeline_filter_names[order[i]];
    return NULL;
}

int timeline_check(const timeline_adapter *ad, const timeline_request *req, nl_error *err)
{
    const timeline_filter *f = &req->filter;
    bool set[TIMELINE_FILTER_COUNT];
    tl_set(f, set);
    const char *foreign = tl_foreign_filter(ad, set);
    if (foreign)
        return tl_arg_error(err, foreign, "%s does not apply to kind %s; %s", foreign, ad->kind, ad->filters_accepted);
    if (req->sort >= TIMELINE_SORT_COUNT)
        return tl_arg_error(err, "sort", "unknown sort; accepted: time, duration, wait, bytes");
    if (!(ad->sorts & (1u << req->sort)))
        return tl_arg_error(err, "sort", "sort %s is not available for kind %s; accepted: %s",
                            timeline_sort_name(req->sort), ad->kind, ad->sorts_accepted);
    const char *empty = f->engine && !*f->engine ? "engine" : f->opcode_glob && !*f->opcode_glob ? "opcode"
                      : f->source && !*f->source ? "source" : f->layer && !*f->layer ? "layer" : NULL;
    if (empty)
        return tl_arg_error(err, empty, "%s must not be empty (omit it to match every row)", empty);
    if (f->min_bytes < 0)
        return tl_arg_error(err, "min_bytes", "minimums must be >= 0 B");
    if (f->min_duration_ns < 0 || f->min_wait_ns < 0 || (f->has_start && f->start_ns < 0) || (f->has_end && f->end_ns < 0))
        return tl_arg_error(err, f->has_start && f->start_ns < 0 ? "start_ns" : f->has_end && f->end_ns < 0 ? "end_ns"
                            : f->min_wait_ns < 0 ? "min_wait_ns" : "min_duration_ns", "times and minimums must be >= 0 ns");
    if (f->has_start && f->has_end && f->end_ns < f->start_ns)
        return tl_arg_error(err, "end_ns", "%lld is before start_ns %lld. The window is [start_ns, end_ns) in %s; pass "
                            "end_ns >= start_ns (equal selects the rows active at that instant)", (long long)f->end_ns,
                            (long long)f->start_ns, ad->unix_time ? "unix ns (see timeline in a result)"
                                                                   : "ns from the profile start");
    if (req->limit < 1 || req->limit > TIMELINE_LIMIT_MAX)
        return tl_arg_error(err, "max_rows", "%zu; accepted 1..%u", req->limit, TIMELINE_LIMIT_MAX);
    return 0;
}

/* ---- context ------------------------------------------------------------------------------------------ */

/* Chunk arrays: start, end, duration and scratch always, wait and bytes when the request reads them. */
enum { TL_ARRAYS_MAX = 6 };

typedef struct tl_ctx {
    const timeline_source *src;
    const timeline_adapter *ad;
    const timeline_request *req;
    void *st;                  /* the adapter's resolved filters */
    size_t rows;
    bool set[TIMELINE_FILTER_COUNT];
    bool any;                  /* some filter is set */
    unsigned arrays;           /* TIMELINE_WAIT / TIMELINE_BYTES: whether those arrays exist */
    void *block;               /* the chunk's arrays, allocated at the first read of more than one row */
    timeline_chunk big;        /* TIMELINE_CHUNK rows in `block` */
    uint8_t *keep, *keep2;     /* per chunk row: passes the filters (keep2: explain's one-filter pass) */
    timeline_chunk one;        /* one row (the cursor's, a binary search's probe), in the arrays below */
    table_value one_cells[TL_ARRAYS_MAX];
    uint8_t one_left_out;
    uint32_t one_codes[2];
} tl_ctx;

static void tl_close(tl_ctx *c)
{
    if (c->ad && c->ad->close)
        c->ad->close(c->st);
    free(c->block);
    memset(c, 0, sizeof *c);
}

static int tl_cursor_error(const tl_ctx *c, nl_error *err)
{
    return tl_arg_error(err, "cursor", "the cursor points at row %zu, which is not a %s row (the table has %zu rows)",
                        c->req->after_row, c->ad->kind, c->rows);
}

/* The arrays a request reads besides start, end and duration. */
static unsigned tl_arrays_needed(const timeline_request *req)
{
    unsigned a = 0;
    if (req->sort == TIMELINE_SORT_WAIT || req->filter.min_wait_ns)
        a |= TIMELINE_WAIT;
    if (req->sort == TIMELINE_SORT_BYTES || req->filter.min_bytes)
        a |= TIMELINE_BYTES;
    return a;
}

static int tl_open(tl_ctx *c, const timeline_source *src, const timeline_request *req, nl_error *err)
{
    memset(c, 0, sizeof *c);
    if (timeline_check(src->adapter, req, err))
        return -1;
    c->src = src;
    c->ad = src->adapter;
    c->req = req;
    c->rows = c->ad->rows(src);
    tl_set(&req->filter, c->set);
    for (int f = 0; f < TIMELINE_FILTER_COUNT; f++)
        c->any = c->any || c->set[f];
    c->arrays = tl_arrays_needed(req);
    table_value *cell = c->one_cells;
    c->one = (timeline_chunk){cell, cell + 1, cell + 2, c->arrays & TIMELINE_WAIT ? cell + 3 : NULL,
                              c->arrays & TIMELINE_BYTES ? cell + 4 : NULL, &c->one_left_out, cell + 5,
                              {c->one_codes, c->one_codes + 1}};
    if (req->has_after && req->after_row >= c->rows)
        return tl_cursor_error(c, err);
    return c->ad->open(src, &req->filter, &c->st, err);
}

/* Allocate the TIMELINE_CHUNK-row arrays (before any read of more than one row): one block, so a request that
 * never reads a chunk (a page sliced from an order) allocates none. */
static int tl_big(tl_ctx *c, nl_error *err)
{
    if (c->block)
        return 0;
    bool wait = c->arrays & TIMELINE_WAIT, bytes = c->arrays & TIMELINE_BYTES;
    size_t cells = TIMELINE_CHUNK * (size_t)(4 + wait + bytes), flags = TIMELINE_CHUNK * (3 + 2 * sizeof(uint32_t));
    if (!(c->block = malloc(cells * sizeof(table_value) + flags)))
        return tl_nomem(err, "chunk buffers");
    table_value *v = c->block;
    uint8_t *b = (uint8_t *)(v + cells);
    uint32_t *codes = (uint32_t *)(b + 3 * (size_t)TIMELINE_CHUNK); /* 4-aligned: TIMELINE_CHUNK % 64 == 0 */
    table_value *next = v + 4 * (size_t)TIMELINE_CHUNK;
    c->big = (timeline_chunk){v, v + TIMELINE_CHUNK, v + 2 * (size_t)TIMELINE_CHUNK, NULL, NULL, b,
                              v + 3 * (size_t)TIMELINE_CHUNK, {codes, codes + TIMELINE_CHUNK}};
    if (wait) {
        c->big.wait = next;
        next += TIMELINE_CHUNK;
    }
    if (bytes)
        c->big.bytes = next;
    c->keep = b + TIMELINE_CHUNK;
    c->keep2 = b + 2 * (size_t)TIMELINE_CHUNK;
    return 0;
}

static bool tl_cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

static size_t tl_chunk_rows(const tl_ctx *c, size_t base)
{
    return c->rows - base < TIMELINE_CHUNK ? c->rows - base : TIMELINE_CHUNK;
}

/* ---- matching ----------------------------------------------------------------------------------------- */

/* The fields filter `which` reads. */
static unsigned tl_filter_fields(int which)
{
    switch (which) {
    case TIMELINE_F_WINDOW: return TIMELINE_START | TIMELINE_END;
    case TIMELINE_F_MIN_DURATION: return TIMELINE_DURATION;
    case TIMELINE_F_MIN_WAIT: return TIMELINE_WAIT;
    case TIMELINE_F_MIN_BYTES: return TIMELINE_BYTES;
    default: return 0;
    }
}

/* The fields a sort's key reads. */
static unsigned tl_sort_fields(timeline_sort s)
{
    static const unsigned value[TIMELINE_SORT_COUNT] = {0, TIMELINE_DURATION, TIMELINE_WAIT, TIMELINE_BYTES};
    return TIMELINE_START | value[s];
}

/* Read the fields rows [base, base + n) need, the adapter's left-out reasons included when it has any, into
 * the one-row chunk or (tl_big done) the big one; returns it. */
static const timeline_chunk *tl_read(tl_ctx *c, size_t base, size_t n, unsigned fields)
{
    const timeline_chunk *ch = n == 1 ? &c->one : &c->big;
    if (c->ad->nleft_out)
        fields |= TIMELINE_LEFT_OUT;
    if (fields)
        c->ad->read(c->st, base, n, fields, ch);
    return ch;
}

/* keep[i] = chunk row i is a timeline row (tl_read read the reasons). Hot loops keep their pointers and
 * bounds in locals: a store through uint8_t * may alias anything, so fields read through a pointer would be
 * loaded again on every row. */
static void tl_keep_eligible(const tl_ctx *c, const timeline_chunk *ch, size_t n, uint8_t *keep)
{
    if (!c->ad->nleft_out) {
        memset(keep, 1, n);
        return;
    }
    const uint8_t *why = ch->left_out;
    for (size_t i = 0; i < n; i++)
        keep[i] = why[i] == 0;
}

/* keep[i] &= row i [start, end) lies in the window: the window rule of the design note, the one place it is
 * written. */
static void tl_keep_window(const timeline_filter *f, const table_value *start, const table_value *end, size_t n,
                           uint8_t *keep)
{
    int64_t a = f->has_start ? f->start_ns : INT64_MIN, b = f->has_end ? f->end_ns : INT64_MAX;
    if (a == b) {
        for (size_t i = 0; i < n; i++) {
            int64_t s = start[i].i, e = end[i].i;
            keep[i] &= s <= a && (e > a || s == a);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t s = start[i].i, e = end[i].i;
        keep[i] &= s < b && (e > a || (e == s && s >= a));
    }
}

static void tl_keep_at_least(const table_value *v, int64_t min, size_t n, uint8_t *keep)
{
    for (size_t i = 0; i < n; i++)
        keep[i] &= v[i].i >= min;
}

/* keep[i] &= filter `which` holds for chunk row i (its fields already read). */
static void tl_keep_filter(tl_ctx *c, const timeline_chunk *ch, int which, size_t base, size_t n, uint8_t *keep)
{
    const timeline_filter *f = &c->req->filter;
    switch (which) {
    case TIMELINE_F_WINDOW: tl_keep_window(f, ch->start, ch->end, n, keep); return;
    case TIMELINE_F_MIN_DURATION: tl_keep_at_least(ch->duration, f->min_duration_ns, n, keep); return;
    case TIMELINE_F_MIN_WAIT: tl_keep_at_least(ch->wait, f->min_wait_ns, n, keep); return;
    case TIMELINE_F_MIN_BYTES: tl_keep_at_least(ch->bytes, f->min_bytes, n, keep); return;
    default: c->ad->match(c->st, (timeline_filter_id)which, base, n, ch, keep); return;
    }
}

/* c->keep[i] = chunk row i is a timeline row passing every set filter, with `extra` fields read too (tl_big
 * done). A filter at a time over the chunk, so each filter's loop is tight and predictable, rather than every
 * filter per row. */
static const timeline_chunk *tl_keep_chunk(tl_ctx *c, size_t base, size_t n, unsigned extra)
{
    unsigned fields = extra;
    for (int f = 0; f < TIMELINE_FILTER_COUNT; f++)
        if (c->set[f])
            fields |= tl_filter_fields(f);
    const timeline_chunk *ch = tl_read(c, base, n, fields);
    tl_keep_eligible(c, ch, n, c->keep);
    for (int f = 0; f < TIMELINE_FILTER_COUNT; f++)
        if (c->set[f])
            tl_keep_filter(c, ch, f, base, n, c->keep);
    return ch;
}

/* ---- keys --------------------------------------------------------------------------------------------- */

/* A row's page key: sort value (descending; 0 for time order), start, row. */
typedef row_order_key tl_key;

static tl_key tl_key_at(const tl_ctx *c, const timeline_chunk *ch, size_t base, size_t i)
{
    tl_key k = {0, ch->start[i].i, base + i};
    switch (c->req->sort) {
    case TIMELINE_SORT_DURATION: k.value = ch->duration[i].i; break;
    case TIMELINE_SORT_WAIT: k.value = ch->wait[i].i; break;
    case TIMELINE_SORT_BYTES: k.value = ch->bytes[i].i; break;
    default: break;
    }
    return k;
}

/* row_order_keys_fn: the keys of rows [base, base + n); rows that are not timeline rows are left out. Reads of
 * more than one row come from the order build, which did tl_big. */
static void tl_order_keys(void *ctx, size_t base, size_t n, int64_t *value, int64_t *ts, uint8_t *keep)
{
    tl_ctx *c = ctx;
    const timeline_chunk *ch = tl_read(c, base, n, tl_sort_fields(c->req->sort));
    tl_keep_eligible(c, ch, n, keep);
    for (size_t i = 0; i < n; i++) {
        tl_key k = tl_key_at(c, ch, base, i);
        value[i] = k.value;
        ts[i] = k.ts;
    }
}

/* The cursor row's key; an argument error when it is not a timeline row. */
static int tl_cursor_key(tl_ctx *c, tl_key *after, nl_error *err)
{
    uint8_t keep;
    tl_order_keys(c, c->req->after_row, 1, &after->value, &after->ts, &keep);
    after->row = c->req->after_row;
    return keep ? 0 : tl_cursor_error(c, err);
}

/* ---- scan --------------------------------------------------------------------------------------------- */

static int tl_page_rows(timeline_page *out, size_t n, nl_error *err)
{
    if (!(out->rows = malloc((n ? n : 1) * sizeof *out->rows)))
        return tl_nomem(err, "page");
    return 0;
}

/* Whether the start times never decrease in row order (then time order is row order). */
static int tl_time_ordered(tl_ctx *c, const atomic_int *cancel, bool *ordered, nl_error *err)
{
    int64_t prev = INT64_MIN;
    *ordered = true;
    if (tl_big(c, err))
        return -1;
    for (size_t base = 0; base < c->rows && *ordered; base += TIMELINE_CHUNK) {
        if (tl_cancelled(cancel))
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        size_t n = tl_chunk_rows(c, base);
        const timeline_chunk *ch = tl_read(c, base, n, TIMELINE_START);
        for (size_t i = 0; i < n && *ordered; i++) {
            *ordered = ch->start[i].i >= prev;
            prev = ch->start[i].i;
        }
    }
    return 0;
}

/* Time order, no filter, every row a timeline row, rows already in time order: the rows after the cursor. */
static int tl_page_in_order(tl_ctx *c, timeline_page *out, nl_error *err)
{
    size_t first = c->req->has_after ? c->req->after_row + 1 : 0;
    size_t n = c->rows - first < c->req->limit ? c->rows - first : c->req->limit;
    out->total = c->rows;
    out->after_cursor = c->rows - first;
    if (tl_page_rows(out, n, err))
        return -1;
    for (size_t i = 0; i < n; i++)
        out->rows[i] = first + i;
    out->count = n;
    out->time_ordered_scan = true;
    return 0;
}

/* Rank every matching row through a heap of `limit` keys (no order given). */
static int tl_page_scan(tl_ctx *c, const tl_key *after, const atomic_int *cancel, timeline_page *out, nl_error *err)
{
    topn heap;
    if (tl_big(c, err))
        return -1;
    if (topn_init(&heap, sizeof(tl_key), c->req->limit, row_order_key_cmp, NULL))
        return tl_nomem(err, "page heap");
    unsigned key_fields = tl_sort_fields(c->req->sort);
    for (size_t base = 0; base < c->rows; base += TIMELINE_CHUNK) {
        if (tl_cancelled(cancel)) {
            topn_close(&heap);
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        }
        size_t n = tl_chunk_rows(c, base);
        const timeline_chunk *ch = tl_keep_chunk(c, base, n, key_fields);
        for (size_t i = 0; i < n; i++) {
            if (!c->keep[i])
                continue;
            out->total++;
            tl_key k = tl_key_at(c, ch, base, i);
            if (c->req->has_after && row_order_key_cmp(&k, after, NULL) <= 0)
                continue;
            out->after_cursor++;
            topn_offer(&heap, &k);
        }
    }
    size_t n = topn_finish(&heap);
    int rc = tl_page_rows(out, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        out->rows[i] = ((const tl_key *)topn_at(&heap, i))->row;
    out->count = rc ? 0 : n;
    topn_close(&heap);
    return rc;
}

/* ---- memoized order ----------------------------------------------------------------------------------- */

struct timeline_order {
    const timeline_adapter *adapter;
    timeline_sort sort;
    row_order *rows;
};

int timeline_order_build(const timeline_source *src, timeline_sort sort, const atomic_int *cancel,
                         timeline_order **out, nl_error *err)
{
    timeline_request req = {.sort = sort, .limit = 1};
    timeline_order *o = NULL;
    tl_ctx c;
    int rc = tl_open(&c, src, &req, err);
    if (!rc)
        rc = tl_big(&c, err);
    if (!rc && !(o = calloc(1, sizeof *o)))
        rc = tl_nomem(err, "order");
    if (!rc)
        rc = row_order_build(c.rows, tl_order_keys, &c, cancel, &o->rows, err);
    tl_close(&c);
    if (rc) {
        timeline_order_free(o);
        *out = NULL;
        return -1;
    }
    o->adapter = src->adapter;
    o->sort = sort;
    *out = o;
    return 0;
}

void timeline_order_free(timeline_order *o)
{
    if (o)
        row_order_free(o->rows);
    free(o);
}

size_t timeline_order_bytes(const timeline_order *o)
{
    return sizeof *o + row_order_bytes(o->rows);
}

/* One bit per row that is a timeline row passing every set filter; *total = how many. */
static int tl_match_bits(tl_ctx *c, const atomic_int *cancel, uint64_t **out, uint64_t *total, nl_error *err)
{
    if (tl_big(c, err))
        return -1;
    uint64_t *match = calloc(row_order_match_words(c->rows) + 1, sizeof *match);
    if (!match)
        return tl_nomem(err, "match bits");
    *total = 0;
    for (size_t base = 0; base < c->rows; base += TIMELINE_CHUNK) {
        if (tl_cancelled(cancel)) {
            free(match);
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        }
        size_t n = tl_chunk_rows(c, base);
        tl_keep_chunk(c, base, n, 0);
        *total += row_order_match_pack(match, base, c->keep, n);
    }
    *out = match;
    return 0;
}

/* The page from a memoized order: step 2 of the design note. */
static int tl_page_ordered(tl_ctx *c, const timeline_order *o, const tl_key *after, const atomic_int *cancel,
                           timeline_page *out, nl_error *err)
{
    if (o->adapter != c->ad || o->sort != c->req->sort || row_order_table_rows(o->rows) != c->rows)
        return nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "the order was built for %s by %s over %zu rows, not for "
                            "this request", o->adapter->kind, timeline_sort_name(o->sort), row_order_table_rows(o->rows));
    uint64_t *match = NULL;
    if (c->any && tl_match_bits(c, cancel, &match, &out->total, err))
        return -1;
    out->ordered = true;
    if (tl_page_rows(out, c->req->limit, err)) {
        free(match);
        return -1;
    }
    const tl_key *cursor = c->req->has_after ? after : NULL;
    if (match && row_order_is_sparse(o->rows, out->total)) {
        int rc = row_order_rank_matches(c->rows, match, cursor, tl_order_keys, c, c->req->limit, out->rows, &out->count,
                                        &out->after_cursor);
        free(match);
        return rc ? tl_nomem(err, "page heap") : 0;
    }
    size_t from = cursor ? row_order_upper_bound(o->rows, after->value, after->ts, after->row, tl_order_keys, c) : 0;
    if (!match)
        out->total = row_order_count(o->rows);
    out->after_cursor = row_order_matches_from(o->rows, from, match, out->total);
    out->count = row_order_take(o->rows, from, match, c->req->limit, out->rows);
    free(match);
    return 0;
}

/* ---- run ---------------------------------------------------------------------------------------------- */

/* The page without an order: in row order when that is time order, else ranked (step 2'). */
static int tl_page_unordered(tl_ctx *c, const tl_key *after, const atomic_int *cancel, timeline_page *out,
                             nl_error *err)
{
    bool ordered = false;
    if (c->req->sort == TIMELINE_SORT_TIME && !c->any && !c->ad->nleft_out && c->rows &&
        tl_time_ordered(c, cancel, &ordered, err))
        return -1;
    return ordered ? tl_page_in_order(c, out, err) : tl_page_scan(c, after, cancel, out, err);
}

int timeline_run(const timeline_source *src, const timeline_request *req, const atomic_int *cancel,
                 timeline_page *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    tl_ctx c;
    tl_key after = {0, 0, 0};
    int rc = tl_open(&c, src, req, err);
    if (!rc && req->has_after)
        rc = tl_cursor_key(&c, &after, err);
    if (!rc)
        rc = req->order ? tl_page_ordered(&c, req->order, &after, cancel, out, err)
                        : tl_page_unordered(&c, &after, cancel, out, err);
    if (!rc && !out->rows)
        rc = tl_page_rows(out, 0, err);
    tl_close(&c);
    if (rc) {
        timeline_page_free(out);
        return -1;
    }
    out->more = out->after_cursor > out->count;
    return 0;
}

void timeline_page_free(timeline_page *p)
{
    free(p->rows);
    memset(p, 0, sizeof *p);
}

/* ---- explain and counts ------------------------------------------------------------------------------- */

int timeline_explain(const timeline_source *src, const timeline_request *req, const atomic_int *cancel,
                     int64_t counts[TIMELINE_FILTER_COUNT], nl_error *err)
{
    tl_ctx c;
    int rc = tl_open(&c, src, req, err);
    if (!rc)
        rc = tl_big(&c, err);
    unsigned fields = 0;
    for (int f = 0; f < TIMELINE_FILTER_COUNT; f++) {
        counts[f] = !rc && c.set[f] ? 0 : -1;
        if (!rc && c.set[f])
            fields |= tl_filter_fields(f);
    }
    for (size_t base = 0; !rc && base < c.rows; base += TIMELINE_CHUNK) {
        if (tl_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = tl_chunk_rows(&c, base);
        const timeline_chunk *ch = tl_read(&c, base, n, fields);
        tl_keep_eligible(&c, ch, n, c.keep);
        for (int f = 0; f < TIMELINE_FILTER_COUNT; f++) {
            if (!c.set[f])
                continue;
            memcpy(c.keep2, c.keep, n);
            tl_keep_filter(&c, ch, f, base, n, c.keep2);
            for (size_t i = 0; i < n; i++)
                counts[f] += c.keep2[i];
        }
    }
    tl_close(&c);
    return rc;
}

int timeline_count(const timeline_source *src, const atomic_int *cancel, timeline_counts *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    timeline_request req = {.limit = 1};
    tl_ctx c;
    int rc = tl_open(&c, src, &req, err);
    if (!rc)
        rc = tl_big(&c, err);
    out->rows = c.rows;
    for (size_t base = 0; !rc && base < c.rows; base += TIMELINE_CHUNK) {
        if (tl_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = tl_chunk_rows(&c, base);
        const timeline_chunk *ch = tl_read(&c, base, n, TIMELINE_START | TIMELINE_END);
        for (size_t i = 0; i < n; i++) {
            uint8_t why = c.ad->nleft_out ? ch->left_out[i] : 0;
            if (why) {
                out->left_out[(why <= TIMELINE_LEFT_OUT_MAX ? why : TIMELINE_LEFT_OUT_MAX) - 1u]++;
                continue;
            }
            out->eligible++;
            if (!out->has_range || ch->start[i].i < out->first_ns)
                out->first_ns = ch->start[i].i;
            if (!out->has_range || ch->end[i].i > out->last_ns)
                out->last_ns = ch->end[i].i;
            out->has_range = true;
        }
    }
    tl_close(&c);
    return rc;
}
