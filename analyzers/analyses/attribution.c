/* attribution — see attribution.h.
 *
 * Passes (each polls the cancel flag every ATTR_CHUNK rows):
 *   1. instructions, in chunks decoded with table_read: accumulate the group of each row (slot = dictionary
 *      code of the key column), coverage, and — when sections are wanted — per-engine sums, the busy span of
 *      every non-EVENT_SEMAPHORE instruction (interval + row, per engine) and the skinny DMA-trigger rows;
 *   2. rank: metric per group, total, then a topn heap of `top` groups after the cursor;
 *   3. per engine (sections): walk the spans in start order with the running maximum end — every start
 *      beyond it opens a gap between two merged busy intervals, and the row that set the maximum is the
 *      instruction before the gap — and take the merged busy time over the same spans (same merge rule as
 *      interval_union, so it agrees with device_summary and the export's active_time). Exports list
 *      instructions by timestamp, so the walk runs online during pass 1 in O(1) memory per engine; an
 *      engine whose spans come out of order is walked again from its spans collected and sorted (a second
 *      pass over the table, for that engine only). Why: collecting every span first held 20 B per
 *      instruction (20 MB at 1M), the largest transient of a cold kernel-attribution (issue 6, ≤ 100 MB);
 *   4. active_time rows per engine (union), and the DMA table for the small-DMA report.
 *
 * Split for memoization: passes 1, 3 and 4 produce an attr_groups (per grouping) and an attr_sections (per
 * gap setting), both independent of metric, page and cursor; pass 2 (attr_compute_from) is all a warm call
 * has to do — O(groups), no row is read. attr_compute runs pass 1 once for both and then the same pass 2, so
 * the memoized and the direct path share every line that produces a number.
 *
 * Conventions (formats.md §11.2–11.5): rows with an empty key form one group (key id 0); DMA size classes
 * count packets, because descriptors are what the hardware moves (aggregated records are reported beside
 * them); idle gaps skip zero-length instructions, as the merged busy time does. */
#include "attribution.h"
#include "intervals.h"
#include "topn.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const attr_group_by_names[ATTR_GROUP_BY_COUNT] = {"source", "layer", "opcode", "hlo", "engine"};
static const char *const attr_metric_names[ATTR_METRIC_KINDS] = {"time", "duration", "wait", "hbm_bytes", "dma_bytes",
                                                                 "count"};
static const uint32_t attr_key_columns[ATTR_GROUP_BY_COUNT] = {DM_INSTR_SOURCE, DM_INSTR_LAYER, DM_INSTR_OPCODE,
                                                               DM_INSTR_HLO_NAME, DM_INSTR_ENGINE};

const char *attr_group_by_name(attr_group_by by)
{
    return by < ATTR_GROUP_BY_COUNT ? attr_group_by_names[by] : "?";
}

const char *attr_metric_name(attr_metric metric)
{
    return metric < ATTR_METRIC_KINDS ? attr_metric_names[metric] : "?";
}

int attr_group_by_parse(const char *name, attr_group_by *out)
{
    for (int i = 0; name && i < ATTR_GROUP_BY_COUNT; i++)
        if (!strcmp(name, attr_group_by_names[i]))
            return (*out = (attr_group_by)i), 0;
    return -1;
}

int attr_metric_parse(const char *name, attr_metric *out)
{
    for (int i = 0; name && i < ATTR_METRIC_KINDS; i++)
        if (!strcmp(name, attr_metric_names[i]))
            return (*out = (attr_metric)i), 0;
    return -1;
}

uint32_t attr_group_keys(const device_model *m, attr_group_by by)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    return t && by < ATTR_GROUP_BY_COUNT ? table_dict_size(t, attr_key_columns[by]) : 0;
}

static bool attr_column_has_values(const table *t, uint32_t col)
{
    for (uint32_t code = 0; code < table_dict_size(t, col); code++)
        if (table_dict_id(t, col, code) != 0)
            return true;
    return false;
}

attr_group_by attr_effective_group_by(const device_model *m, attr_group_by by, bool *source_abstained)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    *source_abstained = by == ATTR_BY_SOURCE && !(t && attr_column_has_values(t, DM_INSTR_SOURCE));
    return *source_abstained ? ATTR_BY_OPCODE : by;
}

static bool attr_cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

static int64_t attr_clamp(uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* ---- pass 1: instructions ----------------------------------------------------------------------------- */

enum { AC_TS, AC_DUR, AC_WAIT, AC_HR, AC_HW, AC_SR, AC_SW, AC_FLAGS, AC_OPCODE, AC_SOURCE, AC_NCOLS };
static const uint32_t attr_chunk_columns[AC_NCOLS] = {DM_INSTR_TIMESTAMP, DM_INSTR_DURATION, DM_INSTR_EVT_WAIT,
    DM_INSTR_HBM_READ, DM_INSTR_HBM_WRITE, DM_INSTR_SBUF_READ, DM_INSTR_SBUF_WRITE, DM_INSTR_FLAGS, DM_INSTR_OPCODE,
    DM_INSTR_SOURCE};

struct attr_groups {
    attr_group_by group_by;    /* the grouping the slots are keyed by */
    bool has_table;            /* the model has an instruction table (else nothing is ranked) */
    attr_group *groups;        /* [ngroups]: slot = dictionary code; code and key filled, value/share not */
    uint32_t ngroups;
    attr_coverage coverage;
};

struct attr_sections {
    int64_t gap_min_ns;
    uint32_t gaps_per_engine;
    attr_engine *engines;      /* [engine_count], first-seen order */
    size_t engine_count;
    uint64_t engines_not_itemised;
    attr_small_dma small_dma;
};

/* Busy spans of one engine collected for sorting (only for an engine whose spans came out of order). */
typedef struct attr_spans {
    interval_vec iv;
    uint32_t *rows;
    size_t rows_cap;
} attr_spans;

/* The gap walk of one engine, fed spans in start order (see pass 3). */
typedef struct attr_walk {
    topn heap;             /* the largest gaps */
    bool heap_ready;
    interval_stream busy;  /* merged busy time */
    int64_t cur_end;       /* running maximum end, and the row that set it */
    uint32_t cur_row;
    bool open;
    int64_t last_start;    /* start of the last non-empty span fed */
    bool unordered;        /* a span started before last_start: redo from sorted spans */
} attr_walk;

typedef struct attr_pass {
    const device_model *m;
    const table *t;
    uint32_t key_col;
    attr_groups *g;            /* filled when groups are wanted, else NULL */
    attr_sections *s;          /* filled when sections are wanted, else NULL */
    uint32_t semaphore;        /* strtab id of EVENT_SEMAPHORE (0 when absent) */
    bool has_source;
    int *engine_slot;          /* engine dictionary code → index in s->engines, -1 = not itemised */
    attr_walk *walks;          /* [nwalks], one per itemised engine */
    size_t nwalks;
    attr_source_count *skinny; /* [source dictionary size], sections only */
    table_value *cols[AC_NCOLS];
} attr_pass;

typedef struct attr_gap_key {
    int64_t gap, start, end;
    uint32_t before, after;
} attr_gap_key;

static int attr_gap_cmp(const void *pa, const void *pb, const void *ctx)
{
    const attr_gap_key *a = pa, *b = pb;
    (void)ctx;
    if (a->gap != b->gap)
        return a->gap > b->gap ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

/* One span of the gap walk: a start beyond the running maximum end opens a new merged piece, and a gap
 * when it exceeds gap_min_ns. Empty spans are skipped, as the merged busy time skips them. */
static void attr_walk_span(attr_walk *w, int64_t start, int64_t end, uint32_t row, int64_t gap_min_ns,
                           attr_engine *eng)
{
    if (end <= start)
        return;
    interval_stream_add(&w->busy, start, end);
    if (!w->open || start > w->cur_end) {
        eng->busy_intervals++;
        if (w->open && start - w->cur_end > gap_min_ns) {
            attr_gap_key k = {start - w->cur_end, w->cur_end, start, w->cur_row, row};
            eng->gaps_over_min++;
            eng->gaps_over_min_ns += k.gap;
            topn_offer(&w->heap, &k);
        }
    }
    if (!w->open || end > w->cur_end) {
        w->cur_end = end;
        w->cur_row = row;
    }
    w->open = true;
}

/* Pass 1's feed: spans in row order, walked at once while their starts do not decrease (rows with equal
 * starts keep row order, which is the sorted order (start, row) too). */
static void attr_walk_feed(attr_walk *w, int64_t start, int64_t end, uint32_t row, int64_t gap_min_ns,
                           attr_engine *eng)
{
    if (w->unordered || end <= start)
        return;
    if (w->open && start < w->last_start) {
        w->unordered = true;
        return;
    }
    w->last_start = start;
    attr_walk_span(w, start, end, row, gap_min_ns, eng);
}

static int attr_spans_push(attr_spans *s, int64_t start, int64_t end, size_t row)
{
    if (s->iv.n == s->rows_cap) {
        size_t cap = s->rows_cap ? s->rows_cap * 2 : 1024;
        uint32_t *grown = realloc(s->rows, cap * sizeof *grown);
        if (!grown)
            return -1;
        s->rows = grown;
        s->rows_cap = cap;
    }
    if (interval_vec_push(&s->iv, start, end))
        return -1;
    s->rows[s->iv.n - 1] = (uint32_t)row;
    return 0;
}

static void attr_pass_close(attr_pass *p)
{
    free(p->engine_slot);
    for (size_t e = 0; p->walks && e < p->nwalks; e++)
        if (p->walks[e].heap_ready)
            topn_close(&p->walks[e].heap);
    free(p->walks);
    free(p->skinny);
    for (int c = 0; c < AC_NCOLS; c++)
        free(p->cols[c]);
}

/* Itemise up to ATTR_ENGINES_MAX engines (dictionary order = first seen). */
static int attr_engines_open(attr_pass *p, attr_sections *s, nl_error *err)
{
    uint32_t n = table_dict_size(p->t, DM_INSTR_ENGINE);
    size_t itemised = n < ATTR_ENGINES_MAX ? n : ATTR_ENGINES_MAX;
    p->engine_slot = malloc((n ? n : 1) * sizeof *p->engine_slot);
    s->engines = calloc(itemised ? itemised : 1, sizeof *s->engines);
    p->walks = calloc(itemised ? itemised : 1, sizeof *p->walks);
    if (!p->engine_slot || !s->engines || !p->walks)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (engines)");
    p->nwalks = itemised;
    for (size_t e = 0; e < itemised; e++) {
        if (topn_init(&p->walks[e].heap, sizeof(attr_gap_key), s->gaps_per_engine, attr_gap_cmp, NULL))
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (idle gaps)");
        p->walks[e].heap_ready = true;
    }
    for (uint32_t code = 0; code < n; code++) {
        p->engine_slot[code] = code < itemised ? (int)code : -1;
        if (code < itemised)
            s->engines[code].name = table_dict_id(p->t, DM_INSTR_ENGINE, code);
    }
    s->engine_count = itemised;
    return 0;
}

/* `g` and/or `s` are zeroed storage to fill; `by` is the grouping of g. */
static int attr_pass_open(attr_pass *p, const device_model *m, attr_group_by by, attr_groups *g, attr_sections *s,
                          nl_error *err)
{
    memset(p, 0, sizeof *p);
    p->m = m;
    p->g = g;
    p->s = s;
    p->t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    p->semaphore = device_model_str_find(m, "EVENT_SEMAPHORE");
    if (p->semaphore == STRTAB_NONE)
        p->semaphore = UINT32_MAX;
    p->has_source = p->t && attr_column_has_values(p->t, DM_INSTR_SOURCE);
    if (g) {
        g->group_by = by;
        p->key_col = attr_key_columns[by];
        g->ngroups = p->t ? table_dict_size(p->t, p->key_col) : 0;
        g->has_table = p->t != NULL;
    }
    if (!p->t)
        return 0;
    if (g && !(g->groups = calloc(g->ngroups ? g->ngroups : 1, sizeof *g->groups)))
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (groups)");
    for (int c = 0; c < AC_NCOLS; c++)
        if (!(p->cols[c] = malloc(ATTR_CHUNK * sizeof(table_value))))
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (chunk buffers)");
    if (!s)
        return 0;
    if (p->has_source) {
        uint32_t n = table_dict_size(p->t, DM_INSTR_SOURCE);
        if (!(p->skinny = calloc(n, sizeof *p->skinny)))
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (skinny DMA sources)");
    }
    return attr_engines_open(p, s, err);
}

static void attr_add_group(attr_pass *p, size_t row, size_t i, uint64_t dma_bytes)
{
    table_value *const *v = p->cols;
    attr_group *g = &p->g->groups[table_code(p->t, p->key_col, row)];
    g->count++;
    g->duration_ns += v[AC_DUR][i].i;
    g->wait_ns += v[AC_WAIT][i].i;
    if (v[AC_OPCODE][i].s == p->semaphore)
        g->semaphore_duration_ns += v[AC_DUR][i].i;
    g->hbm_read += v[AC_HR][i].u;
    g->hbm_write += v[AC_HW][i].u;
    g->sbuf_read += v[AC_SR][i].u;
    g->sbuf_write += v[AC_SW][i].u;
    g->dma_bytes += dma_bytes;
}

/* Engine sums, busy span and skinny-DMA accounting of one row (sections only). */
static int attr_add_sections(attr_pass *p, size_t row, size_t i, uint64_t dma_bytes)
{
    table_value *const *v = p->cols;
    if (v[AC_FLAGS][i].u & DM_INSTR_F_DMA_TRIGGER) {
        attr_small_dma *d = &p->s->small_dma;
        d->dma_instructions++;
        if (dma_bytes > 0 && dma_bytes < ATTR_SMALL_DMA_EXPLORER_BYTES)
            d->instr_under_4k.count++, d->instr_under_4k.bytes += dma_bytes;
        if (dma_bytes > 0 && dma_bytes < ATTR_SMALL_DMA_BYTES) {
            d->instr_under_512.count++, d->instr_under_512.bytes += dma_bytes;
            if (p->skinny) {
                attr_source_count *s = &p->skinny[table_code(p->t, DM_INSTR_SOURCE, row)];
                s->count++, s->bytes += dma_bytes, s->duration_ns += v[AC_DUR][i].i;
            }
        }
    }
    int e = p->engine_slot[table_code(p->t, DM_INSTR_ENGINE, row)];
    if (e < 0) {
        p->s->engines_not_itemised++;
        return 0;
    }
    attr_engine *eng = &p->s->engines[e];
    eng->instructions++;
    eng->summed_duration_ns += v[AC_DUR][i].i;
    eng->summed_wait_ns += v[AC_WAIT][i].i;
    if (v[AC_OPCODE][i].s == p->semaphore)
        return 0;
    attr_walk_feed(&p->walks[e], v[AC_TS][i].i, v[AC_TS][i].i + v[AC_DUR][i].i, (uint32_t)row, p->s->gap_min_ns, eng);
    return 0;
}

static int attr_scan(attr_pass *p, const atomic_int *cancel, nl_error *err)
{
    size_t rows = p->t ? table_rows(p->t) : 0;
    for (size_t base = 0; base < rows; base += ATTR_CHUNK) {
        if (attr_cancelled(cancel))
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        size_t n = rows - base < ATTR_CHUNK ? rows - base : ATTR_CHUNK;
        for (int c = 0; c < AC_NCOLS; c++)
            table_read(p->t, attr_chunk_columns[c], base, n, p->cols[c]);
        table_value *const *v = p->cols;
        for (size_t i = 0; i < n; i++) {
            uint64_t dma_bytes = v[AC_FLAGS][i].u & DM_INSTR_F_DMA_TRIGGER ? v[AC_HR][i].u + v[AC_HW][i].u + v[AC_SW][i].u : 0;
            if (p->g) {
                attr_coverage *cov = &p->g->coverage;
                attr_add_group(p, base + i, i, dma_bytes);
                cov->instructions++;
                cov->duration_ns += v[AC_DUR][i].i;
                if (v[AC_SOURCE][i].s) {
                    cov->with_source++;
                    cov->duration_with_source_ns += v[AC_DUR][i].i;
                }
            }
            if (p->s && attr_add_sections(p, base + i, i, dma_bytes))
                return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (busy intervals)");
        }
    }
    if (p->g)
        for (uint32_t c = 0; c < p->g->ngroups; c++) {
            p->g->groups[c].code = c;
            p->g->groups[c].key = table_dict_id(p->t, p->key_col, c);
        }
    return 0;
}

/* ---- pass 2: rank ------------------------------------------------------------------------------------- */

static int64_t attr_value(const attr_group *g, attr_metric metric)
{
    switch (metric) {
    case ATTR_METRIC_TIME: return g->duration_ns + g->wait_ns;
    case ATTR_METRIC_DURATION: return g->duration_ns;
    case ATTR_METRIC_WAIT: return g->wait_ns;
    case ATTR_METRIC_HBM_BYTES: return attr_clamp(g->hbm_read + g->hbm_write);
    case ATTR_METRIC_DMA_BYTES: return attr_clamp(g->dma_bytes);
    default: return attr_clamp(g->count);
    }
}

/* Metric descending, then key text, then code. */
static int attr_group_cmp(const void *pa, const void *pb, const void *ctx)
{
    const attr_group *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    if (a->key != b->key) {
        int c = strcmp(device_model_str(ctx, a->key, NULL), device_model_str(ctx, b->key, NULL));
        if (c)
            return c;
    }
    return (a->code > b->code) - (a->code < b->code);
}

/* Rank the memoized groups by req->metric: totals over all groups, then a topn heap of `top` groups after
 * the cursor. Values are computed on copies; `g` is never written (it may be shared by concurrent calls). */
static int attr_rank(const device_model *m, const attr_groups *g, const attr_request *req, attr_result *out, nl_error *err)
{
    out->metric = req->metric;
    topn heap;
    if (topn_init(&heap, sizeof(attr_group), req->top, attr_group_cmp, m))
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (group heap)");
    attr_group after = {0};
    if (req->has_after) {
        after = g->groups[req->after_code];
        after.value = attr_value(&after, req->metric);
    }
    for (uint32_t c = 0; c < g->ngroups; c++) {
        attr_group x = g->groups[c];
        x.value = attr_value(&x, req->metric);
        if (__builtin_add_overflow(out->metric_total, x.value, &out->metric_total))
            out->metric_total = INT64_MAX;
        out->groups_total += x.count > 0;
        if (!x.count || (req->has_after && attr_group_cmp(&x, &after, m) <= 0))
            continue;
        out->groups_after_cursor++;
        topn_offer(&heap, &x);
    }
    size_t n = topn_finish(&heap);
    out->groups = malloc((n ? n : 1) * sizeof *out->groups);
    if (!out->groups) {
        topn_close(&heap);
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (groups)");
    }
    for (size_t i = 0; i < n; i++) {
        out->groups[i] = *(const attr_group *)topn_at(&heap, i);
        out->groups[i].share_pct = out->metric_total > 0 ? 100.0 * (double)out->groups[i].value / (double)out->metric_total : 0;
    }
    out->group_count = n;
    out->more = out->groups_after_cursor > n;
    topn_close(&heap);
    return 0;
}

/* ---- pass 3: engine busy time and idle gaps ----------------------------------------------------------- */

typedef struct attr_span {
    int64_t start, end;
    uint32_t row;
} attr_span;

static int attr_span_cmp(const void *pa, const void *pb)
{
    const attr_span *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* Put the spans in start order (rows move with their intervals). Exports are already ordered. */
static int attr_spans_order(attr_spans *s)
{
    size_t i;
    for (i = 1; i < s->iv.n && s->iv.v[i - 1].start <= s->iv.v[i].start; i++)
        ;
    if (i >= s->iv.n)
        return 0;
    attr_span *tmp = malloc(s->iv.n * sizeof *tmp);
    if (!tmp)
        return -1;
    for (i = 0; i < s->iv.n; i++)
        tmp[i] = (attr_span){s->iv.v[i].start, s->iv.v[i].end, s->rows[i]};
    qsort(tmp, s->iv.n, sizeof *tmp, attr_span_cmp);
    for (i = 0; i < s->iv.n; i++) {
        s->iv.v[i] = (interval){tmp[i].start, tmp[i].end};
        s->rows[i] = tmp[i].row;
    }
    free(tmp);
    return 0;
}

static void attr_gap_side_fill(const device_model *m, size_t row, attr_gap_side *s)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    s->row = row;
    s->start_ns = table_i64(t, DM_INSTR_TIMESTAMP, row);
    s->end_ns = s->start_ns + table_i64(t, DM_INSTR_DURATION, row);
    s->opcode = table_str(t, DM_INSTR_OPCODE, row);
    s->source = table_str(t, DM_INSTR_SOURCE, row);
    s->layer = table_str(t, DM_INSTR_LAYER, row);
}

/* The spans of itemised engine e (every non-EVENT_SEMAPHORE instruction), from a second pass over the table,
 * in start order. */
static int attr_collect_spans(const attr_pass *p, size_t e, attr_spans *sp)
{
    for (size_t r = 0; r < table_rows(p->t); r++) {
        if (p->engine_slot[table_code(p->t, DM_INSTR_ENGINE, r)] != (int)e || table_str(p->t, DM_INSTR_OPCODE, r) == p->semaphore)
            continue;
        int64_t start = table_i64(p->t, DM_INSTR_TIMESTAMP, r);
        if (attr_spans_push(sp, start, start + table_i64(p->t, DM_INSTR_DURATION, r), r))
            return -1;
    }
    return attr_spans_order(sp);
}

/* Walk engine e again from its sorted spans, after pass 1 found them out of order. */
static int attr_walk_sorted(attr_pass *p, size_t e, attr_engine *eng)
{
    attr_walk *w = &p->walks[e];
    attr_spans sp = {0};
    int rc = attr_collect_spans(p, e, &sp);
    topn_close(&w->heap);
    w->heap_ready = false;
    if (!rc)
        rc = topn_init(&w->heap, sizeof(attr_gap_key), p->s->gaps_per_engine, attr_gap_cmp, NULL);
    if (!rc) {
        w->heap_ready = true;
        w->busy = (interval_stream){0};
        w->open = false;
        eng->busy_intervals = eng->gaps_over_min = 0;
        eng->gaps_over_min_ns = 0;
        for (size_t i = 0; i < sp.iv.n; i++)
            attr_walk_span(w, sp.iv.v[i].start, sp.iv.v[i].end, sp.rows[i], p->s->gap_min_ns, eng);
    }
    interval_vec_free(&sp.iv);
    free(sp.rows);
    return rc;
}

static int attr_engine_finish(attr_pass *p, size_t e, nl_error *err)
{
    attr_walk *w = &p->walks[e];
    attr_engine *eng = &p->s->engines[e];
    if (w->unordered && attr_walk_sorted(p, e, eng))
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (idle gaps)");
    eng->busy_ns = interval_stream_total(&w->busy);
    eng->gap_count = (unsigned)topn_finish(&w->heap);
    for (unsigned g = 0; g < eng->gap_count; g++) {
        const attr_gap_key *k = topn_at(&w->heap, g);
        attr_gap *gap = &eng->gaps[g];
        gap->start_ns = k->start;
        gap->end_ns = k->end;
        gap->gap_ns = k->gap;
        attr_gap_side_fill(p->m, k->before, &gap->before);
        attr_gap_side_fill(p->m, k->after, &gap->after);
    }
    return 0;
}

/* Union of the export's active_time rows per itemised engine (names compared case-insensitively). */
static int attr_active_rows(const device_model *m, attr_sections *out, nl_error *err)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_ACTIVE_TIME);
    uint32_t n = t ? table_dict_size(t, DM_ACTIVE_ENGINE) : 0;
    int *slot = malloc((n ? n : 1) * sizeof *slot);
    interval_vec *per = calloc(out->engine_count ? out->engine_count : 1, sizeof *per);
    int rc = !slot || !per ? nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (active rows)") : 0;
    for (uint32_t code = 0; !rc && code < n; code++) {
        const char *name = device_model_str(m, table_dict_id(t, DM_ACTIVE_ENGINE, code), NULL);
        slot[code] = -1;
        for (size_t e = 0; e < out->engine_count; e++)
            if (!strcasecmp(name, device_model_str(m, out->engines[e].name, NULL)))
                slot[code] = (int)e;
    }
    size_t rows = t ? table_rows(t) : 0;
    table_value *start = malloc(ATTR_CHUNK * sizeof *start), *end = malloc(ATTR_CHUNK * sizeof *end);
    if (!rc && (!start || !end))
        rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (active rows)");
    for (size_t base = 0; !rc && base < rows; base += ATTR_CHUNK) {
        size_t k = rows - base < ATTR_CHUNK ? rows - base : ATTR_CHUNK;
        table_read(t, DM_ACTIVE_START, base, k, start);
        table_read(t, DM_ACTIVE_END, base, k, end);
        for (size_t i = 0; i < k && !rc; i++) {
            int e = slot[table_code(t, DM_ACTIVE_ENGINE, base + i)];
            if (e >= 0 && interval_vec_push(&per[e], start[i].i, end[i].i))
                rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (active rows)");
        }
    }
    free(start);
    free(end);
    for (size_t e = 0; per && e < out->engine_count; e++) {
        if (!rc && per[e].n) {
            out->engines[e].has_active_rows = true;
            out->engines[e].active_rows = per[e].n;
            out->engines[e].active_rows_ns = interval_union(per[e].v, per[e].n);
        }
        interval_vec_free(&per[e]);
    }
    free(per);
    free(slot);
    return rc;
}

/* ---- pass 4: small DMA -------------------------------------------------------------------------------- */

static void attr_size_class_add(attr_size_class *c, uint64_t bytes, uint64_t limit)
{
    if (bytes < limit) {
        c->count++;
        c->bytes += bytes;
    }
}

static int attr_queue_cmp(const void *pa, const void *pb, const void *ctx)
{
    const attr_dma_queue *a = pa, *b = pb;
    if (a->under_4k.count != b->under_4k.count)
        return a->under_4k.count > b->under_4k.count ? -1 : 1;
    if (a->packets != b->packets)
        return a->packets > b->packets ? -1 : 1;
    int c = strcmp(device_model_str(ctx, a->queue, NULL), device_model_str(ctx, b->queue, NULL));
    return c ? c : (a->queue > b->queue) - (a->queue < b->queue);
}

static int attr_queues_top(const device_model *m, const attr_dma_queue *q, uint32_t n, attr_small_dma *d, nl_error *err)
{
    topn heap;
    if (topn_init(&heap, sizeof *q, ATTR_DMA_QUEUES_MAX, attr_queue_cmp, m))
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (queues)");
    for (uint32_t c = 0; c < n; c++)
        if (q[c].packets) {
            d->queues_total++;
            topn_offer(&heap, &q[c]);
        }
    d->queue_count = (unsigned)topn_finish(&heap);
    for (unsigned i = 0; i < d->queue_count; i++)
        d->queues[i] = *(const attr_dma_queue *)topn_at(&heap, i);
    topn_close(&heap);
    return 0;
}

static void attr_small_dma_packet(const table *t, size_t row, uint64_t bytes, attr_dma_queue *queues, attr_small_dma *d)
{
    d->packets++;
    d->packet_bytes += bytes;
    attr_size_class_add(&d->under_512, bytes, ATTR_SMALL_DMA_BYTES);
    attr_size_class_add(&d->under_4k, bytes, ATTR_SMALL_DMA_EXPLORER_BYTES);
    attr_dma_queue *q = &queues[table_code(t, DM_DMA_QUEUE, row)];
    if (!q->packets) {
        q->queue = table_str(t, DM_DMA_QUEUE, row);
        q->queue_type = table_str(t, DM_DMA_QUEUE_TYPE, row);
    }
    q->packets++;
    q->bytes += bytes;
    attr_size_class_add(&q->under_512, bytes, ATTR_SMALL_DMA_BYTES);
    attr_size_class_add(&q->under_4k, bytes, ATTR_SMALL_DMA_EXPLORER_BYTES);
}

static int attr_small_dma_scan(const device_model *m, const atomic_int *cancel, attr_small_dma *d, nl_error *err)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_DMA);
    size_t rows = t ? table_rows(t) : 0;
    uint32_t nq = t ? table_dict_size(t, DM_DMA_QUEUE) : 0;
    uint32_t unknown = device_model_str_find(m, "unknown");
    attr_dma_queue *q = calloc(nq ? nq : 1, sizeof *q);
    table_value *flags = malloc(ATTR_CHUNK * sizeof *flags), *size = malloc(ATTR_CHUNK * sizeof *size),
                *var = malloc(ATTR_CHUNK * sizeof *var);
    int rc = !q || !flags || !size || !var ? nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (queues)") : 0;
    for (size_t base = 0; !rc && base < rows; base += ATTR_CHUNK) {
        if (attr_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = rows - base < ATTR_CHUNK ? rows - base : ATTR_CHUNK;
        table_read(t, DM_DMA_FLAGS, base, n, flags);
        table_read(t, DM_DMA_TRANSFER_SIZE, base, n, size);
        table_read(t, DM_DMA_VARIABLE, base, n, var);
        for (size_t i = 0; i < n; i++) {
            if (flags[i].u & DM_DMA_F_DUPLICATE) {
                d->duplicates++;
            } else if (flags[i].u & DM_DMA_F_AGGREGATED) {
                d->transfers++;
            } else {
                d->unknown_variable += unknown != STRTAB_NONE && var[i].s == unknown;
                attr_small_dma_packet(t, base + i, size[i].u, q, d);
            }
        }
    }
    if (!rc)
        rc = attr_queues_top(m, q, nq, d, err);
    free(q);
    free(flags);
    free(size);
    free(var);
    return rc;
}

static int attr_source_cmp(const void *pa, const void *pb, const void *ctx)
{
    const attr_source_count *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    int c = strcmp(device_model_str(ctx, a->source, NULL), device_model_str(ctx, b->source, NULL));
    return c ? c : (a->source > b->source) - (a->source < b->source);
}

static int attr_skinny_top(attr_pass *p, attr_small_dma *d, nl_error *err)
{
    d->by_source = p->skinny != NULL;
    if (!p->skinny)
        return 0;
    topn heap;
    if (topn_init(&heap, sizeof(attr_source_count), ATTR_SKINNY_SOURCES_MAX, attr_source_cmp, p->m))
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (skinny DMA sources)");
    uint32_t n = table_dict_size(p->t, DM_INSTR_SOURCE);
    for (uint32_t c = 0; c < n; c++) {
        if (!p->skinny[c].count)
            continue;
        p->skinny[c].source = table_dict_id(p->t, DM_INSTR_SOURCE, c);
        d->sources_total++;
        topn_offer(&heap, &p->skinny[c]);
    }
    d->source_count = (unsigned)topn_finish(&heap);
    for (unsigned i = 0; i < d->source_count; i++)
        d->sources[i] = *(const attr_source_count *)topn_at(&heap, i);
    topn_close(&heap);
    return 0;
}

static int attr_sections_finish(attr_pass *p, const atomic_int *cancel, nl_error *err)
{
    attr_sections *out = p->s;
    for (size_t e = 0; e < out->engine_count; e++) {
        if (attr_cancelled(cancel))
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        if (attr_engine_finish(p, e, err))
            return -1;
    }
    if (attr_active_rows(p->m, out, err) || attr_small_dma_scan(p->m, cancel, &out->small_dma, err))
        return -1;
    return attr_skinny_top(p, &out->small_dma, err);
}

static int attr_check(const attr_request *req, nl_error *err)
{
    const char *field = req->top < 1 || req->top > ATTR_TOP_MAX ? "top"
                      : req->gaps_per_engine > ATTR_GAPS_PER_ENGINE_MAX ? "gaps_per_engine"
                      : req->gap_min_ns < 0 ? "gap_min_ns"
                      : req->group_by >= ATTR_GROUP_BY_COUNT ? "group_by" : req->metric >= ATTR_METRIC_KINDS ? "metric" : NULL;
    if (!field)
        return 0;
    nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "%s is out of range (top 1..%u, gaps_per_engine 0..%u, gap_min_ns >= 0)",
                 field, ATTR_TOP_MAX, ATTR_GAPS_PER_ENGINE_MAX);
    nl_error_set_field(err, field);
    return -1;
}

static int attr_check_cursor(const attr_request *req, attr_group_by by, uint32_t ngroups, nl_error *err)
{
    if (!req->has_after || req->after_code < ngroups)
        return 0;
    nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "the cursor names group %u but grouping by %s has %u groups",
                 req->after_code, attr_group_by_name(by), ngroups);
    nl_error_set_field(err, "cursor");
    return -1;
}

void attr_groups_free(attr_groups *g)
{
    if (g) {
        free(g->groups);
        free(g);
    }
}

void attr_sections_free(attr_sections *s)
{
    if (s) {
        free(s->engines);
        free(s);
    }
}

size_t attr_groups_bytes(const attr_groups *g)
{
    return sizeof *g + (size_t)g->ngroups * sizeof *g->groups;
}

size_t attr_sections_bytes(const attr_sections *s)
{
    return sizeof *s + s->engine_count * sizeof *s->engines;
}

/* Pass 1 once for whichever of groups (*g) and sections (*s) is asked for, then pass 3/4 for sections. */
static int attr_build(const device_model *m, attr_group_by by, attr_groups **g, int64_t gap_min_ns, uint32_t gaps_per_engine,
                      attr_sections **s, const atomic_int *cancel, nl_error *err)
{
    attr_groups *gr = g ? calloc(1, sizeof *gr) : NULL;
    attr_sections *sec = s ? calloc(1, sizeof *sec) : NULL;
    if ((g && !gr) || (s && !sec)) {
        free(gr);
        free(sec);
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (attribution)");
    }
    if (sec) {
        sec->gap_min_ns = gap_min_ns;
        sec->gaps_per_engine = gaps_per_engine;
    }
    attr_pass p;
    int rc = attr_pass_open(&p, m, by, gr, sec, err);
    if (!rc)
        rc = attr_scan(&p, cancel, err);
    if (!rc && sec)
        rc = attr_sections_finish(&p, cancel, err);
    attr_pass_close(&p);
    if (rc) {
        attr_groups_free(gr);
        attr_sections_free(sec);
        return -1;
    }
    if (g)
        *g = gr;
    if (s)
        *s = sec;
    return 0;
}

int attr_groups_compute(const device_model *m, attr_group_by by, const atomic_int *cancel, attr_groups **out, nl_error *err)
{
    *out = NULL;
    if ((unsigned)by >= ATTR_GROUP_BY_COUNT) {
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "group_by is out of range");
        nl_error_set_field(err, "group_by");
        return -1;
    }
    return attr_build(m, by, out, 0, 0, NULL, cancel, err);
}

int attr_sections_compute(const device_model *m, int64_t gap_min_ns, uint32_t gaps_per_engine, const atomic_int *cancel,
                          attr_sections **out, nl_error *err)
{
    *out = NULL;
    if (gap_min_ns < 0 || gaps_per_engine > ATTR_GAPS_PER_ENGINE_MAX) {
        const char *field = gap_min_ns < 0 ? "gap_min_ns" : "gaps_per_engine";
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "%s is out of range (gaps_per_engine 0..%u, gap_min_ns >= 0)", field,
                     ATTR_GAPS_PER_ENGINE_MAX);
        nl_error_set_field(err, field);
        return -1;
    }
    return attr_build(m, ATTR_BY_SOURCE, NULL, gap_min_ns, gaps_per_engine, out, cancel, err);
}

int attr_compute_from(const device_model *m, const attr_request *req, const attr_groups *groups,
                      const attr_sections *sections, attr_result *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    if (attr_check(req, err))
        return -1;
    out->group_by = attr_effective_group_by(m, req->group_by, &out->source_abstained);
    if (!groups || groups->group_by != out->group_by ||
        (req->sections && (!sections || sections->gap_min_ns != req->gap_min_ns ||
                           sections->gaps_per_engine != req->gaps_per_engine))) {
        memset(out, 0, sizeof *out);
        return nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "precomputed attribution parts do not match the request");
    }
    if (attr_check_cursor(req, out->group_by, groups->ngroups, err)) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->coverage = groups->coverage;
    int rc = groups->has_table ? attr_rank(m, groups, req, out, err) : 0;
    if (!rc && req->sections) {
        size_t n = sections->engine_count;
        if ((out->engines = malloc((n ? n : 1) * sizeof *out->engines))) {
            memcpy(out->engines, sections->engines, n * sizeof *out->engines);
            out->engine_count = n;
            out->engines_not_itemised = sections->engines_not_itemised;
            out->small_dma = sections->small_dma;
            out->has_sections = true;
        } else {
            rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (engines)");
        }
    }
    if (!rc && !out->groups && !(out->groups = malloc(sizeof *out->groups)))
        rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (groups)");
    if (rc)
        attr_result_free(out);
    return rc;
}

int attr_compute(const device_model *m, const attr_request *req, const atomic_int *cancel, attr_result *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    if (attr_check(req, err))
        return -1;
    bool abstained;
    attr_group_by by = attr_effective_group_by(m, req->group_by, &abstained);
    if (attr_check_cursor(req, by, attr_group_keys(m, by), err)) /* before the pass over the rows */
        return -1;
    attr_groups *g = NULL;
    attr_sections *s = NULL;
    int rc = attr_build(m, by, &g, req->gap_min_ns, req->gaps_per_engine, req->sections ? &s : NULL, cancel, err);
    if (!rc)
        rc = attr_compute_from(m, req, g, s, out, err);
    attr_groups_free(g);
    attr_sections_free(s);
    return rc;
}

void attr_result_free(attr_result *r)
{
    free(r->groups);
    free(r->engines);
    memset(r, 0, sizeof *r);
}
