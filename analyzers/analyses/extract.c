/* extract — see extract.h.
 *
 * One request runs in three steps:
 *   1. resolve: check the request against the kind (which filters and sorts it has), turn every string
 *      filter into a byte per dictionary code of its column (engine/label, opcode/compiler_opcode,
 *      source, layer) so matching a row is a lookup, and check the engine name against what the model
 *      and the canonical engine names offer;
 *   2. with an order (req->order, memoized per model, kind and sort): find the cursor's position by binary
 *      search; without filters the page is the next `limit` positions and `total` the row count; with
 *      filters one pass over the filter columns sets a bit per matching row (and counts `total`), and the
 *      page is the first `limit` set rows walking the order from the cursor's position (the rows after
 *      the cursor are counted on the shorter side of it) — or, when the matches are few (row_order.h,
 *      ROW_ORDER_SPARSE_SHARE), the matches ranked by their keys through a heap;
 *   2'. without one, scan: visit the rows in EXTRACT_CHUNK blocks (time, duration and wait columns decoded
 *      with table_read), count the matches (`total`) and those after the cursor, and offer the latter to a
 *      topn heap of `limit` keys — or, for time order with no filter over a table whose timestamps never
 *      decrease, skip the scan and take the `limit` rows after the cursor directly;
 *   3. finish: sort the kept keys best-first into the page.
 * Why the order: a warm call at 1M instructions, sort duration, took 13.6 ms, nearly all of it decoding
 * and ranking every row to keep 20 (the bench, bench/run_bench.py warm_cases); from the order it is a
 * slice plus the JSON of 20 rows. Both paths rank by the same key (ex_key_of), so their pages are equal.
 *
 * Order keys: time = (timestamp, row); duration / wait / bytes = (value descending, timestamp, row). Row
 * is unique, so the order is total and the cursor (a row index) names one position in it.
 * Window test on a row [s, s + max(duration, 0)): overlaps [a, b) when s < b and (end > a, or the row is
 * zero-length and s >= a); with a == b it selects the rows active at instant a (s <= a < end, or s == a). */
#include "extract.h"
#include "name_list.h"
#include "row_order.h"
#include "topn.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EX_NO_COL UINT32_MAX

const char *const extract_filter_names[EXTRACT_FILTER_COUNT] = {"engine", "opcode", "window", "source", "layer",
                                                               "min_duration_ns", "min_wait_ns"};

static const char *const ex_kind_names[EXTRACT_KIND_COUNT] = {"instruction", "dma", "semaphore", "collective"};
static const char *const ex_sort_names[EXTRACT_SORT_COUNT] = {"time", "duration", "wait", "bytes"};
static const char *const ex_canonical_engines[] = {"tensor", "vector", "scalar", "gpsimd", "sync"};
#define EX_CANONICAL_ENGINES (sizeof ex_canonical_engines / sizeof ex_canonical_engines[0])

/* ---- columns ------------------------------------------------------------------------------------------ */

enum {
    IC_ROW, IC_START, IC_END, IC_DURATION, IC_WAIT, IC_ENGINE, IC_LABEL, IC_OPCODE, IC_COMPILER_OPCODE, IC_LAYER,
    IC_HLO, IC_SOURCE, IC_TYPE, IC_BYTES, IC_HBM_READ, IC_HBM_WRITE, IC_SBUF_READ, IC_SBUF_WRITE, IC_PSUM_READ,
    IC_PSUM_WRITE, IC_SPILL_SAVE, IC_SPILL_RELOAD, IC_DMA_TRIGGER, IC_ID, IC_COUNT
};
static const extract_column ex_instr_columns[IC_COUNT] = {
    [IC_ROW] = {"row", "index in the export's instruction array", false},
    [IC_START] = {"start_ns", "start, ns from profile start", true},
    [IC_END] = {"end_ns", "start + duration, ns", false},
    [IC_DURATION] = {"duration_ns", "engine-local duration, ns (EVENT_SEMAPHORE: time blocked)", true},
    [IC_WAIT] = {"evt_wait_ns", "evt_wait_time, ns blocked before starting", true},
    [IC_ENGINE] = {"engine", "engine (subgroup)", true},
    [IC_LABEL] = {"label", "timeline row", false},
    [IC_OPCODE] = {"opcode", "hardware opcode", true},
    [IC_COMPILER_OPCODE] = {"compiler_opcode", "compiler opcode", false},
    [IC_LAYER] = {"layer", "layer/scope path", true},
    [IC_HLO] = {"hlo", "hlo_name", false},
    [IC_SOURCE] = {"source", "source location path:line", false},
    [IC_TYPE] = {"instruction_type", "instruction_type", false},
    [IC_BYTES] = {"bytes", "HBM read + HBM write + SBUF read + SBUF write, B", false},
    [IC_HBM_READ] = {"hbm_read_bytes", "B", false},
    [IC_HBM_WRITE] = {"hbm_write_bytes", "B", false},
    [IC_SBUF_READ] = {"sbuf_read_bytes", "B", false},
    [IC_SBUF_WRITE] = {"sbuf_write_bytes", "B", false},
    [IC_PSUM_READ] = {"psum_read_bytes", "B", false},
    [IC_PSUM_WRITE] = {"psum_write_bytes", "B", false},
    [IC_SPILL_SAVE] = {"spill_save_bytes", "B", false},
    [IC_SPILL_RELOAD] = {"spill_reload_bytes", "B", false},
    [IC_DMA_TRIGGER] = {"dma_trigger", "DMA-trigger instruction (PSEUDO_DMA_* / DMA_*)", false},
    [IC_ID] = {"id", "instruction id (decimal string)", false},
};

enum {
    DC_ROW, DC_START, DC_END, DC_DURATION, DC_BYTES, DC_QUEUE, DC_SUBGROUP, DC_QUEUE_TYPE, DC_DMA_ENGINE,
    DC_DMA_QUEUE, DC_VARIABLE, DC_AGGREGATED, DC_CC, DC_DUPLICATE, DC_ID, DC_AGG_ID, DC_COUNT
};
static const extract_column ex_dma_columns[DC_COUNT] = {
    [DC_ROW] = {"row", "index in the export's dma array", false},
    [DC_START] = {"start_ns", "start, ns from profile start", true},
    [DC_END] = {"end_ns", "start + duration, ns", false},
    [DC_DURATION] = {"duration_ns", "ns", true},
    [DC_BYTES] = {"bytes", "transfer_size, B", true},
    [DC_QUEUE] = {"queue", "queue name", true},
    [DC_SUBGROUP] = {"subgroup", "timeline row (queue-Q<n>-E<n>)", false},
    [DC_QUEUE_TYPE] = {"queue_type", "data, software_dynamic, ...", true},
    [DC_DMA_ENGINE] = {"dma_engine", "DMA engine index", false},
    [DC_DMA_QUEUE] = {"dma_queue", "queue index", false},
    [DC_VARIABLE] = {"variable", "tensor name (unknown without DGE notifications)", false},
    [DC_AGGREGATED] = {"aggregated", "an aggregated transfer, not a packet", true},
    [DC_CC] = {"cc", "is_cc_dma", false},
    [DC_DUPLICATE] = {"duplicate", "duplicate record", false},
    [DC_ID] = {"id", "decimal string", false},
    [DC_AGG_ID] = {"aggregation_id", "packet_aggregation_id, decimal string", false},
};

enum { SC_ROW, SC_START, SC_SEMAPHORE, SC_VALUE, SC_COUNT };
static const extract_column ex_sem_columns[SC_COUNT] = {
    [SC_ROW] = {"row", "index in the export's semaphore_update array", false},
    [SC_START] = {"start_ns", "update time, ns from profile start", true},
    [SC_SEMAPHORE] = {"semaphore", "semaphore id", true},
    [SC_VALUE] = {"value", "new value", true},
};

const extract_column *extract_columns(extract_kind kind, size_t *count)
{
    switch (kind) {
    case EXTRACT_INSTRUCTION: *count = IC_COUNT; return ex_instr_columns;
    case EXTRACT_DMA: *count = DC_COUNT; return ex_dma_columns;
    case EXTRACT_SEMAPHORE: *count = SC_COUNT; return ex_sem_columns;
    default: *count = 0; return NULL;
    }
}

int extract_column_find(extract_kind kind, const char *name)
{
    size_t n;
    const extract_column *cols = extract_columns(kind, &n);
    for (size_t i = 0; name && i < n; i++)
        if (!strcmp(cols[i].name, name))
            return (int)i;
    return -1;
}

static void ex_cell_str(const device_model *m, uint32_t id, extract_cell *out)
{
    const char *s = device_model_str(m, id, NULL);
    out->kind = s && *s ? EXTRACT_CELL_STR : EXTRACT_CELL_NULL;
    out->s = s;
}

static void ex_cell_int(int64_t v, extract_cell *out)
{
    out->kind = EXTRACT_CELL_INT;
    out->i = v;
}

static void ex_cell_uint(uint64_t v, extract_cell *out)
{
    out->kind = EXTRACT_CELL_UINT;
    out->u = v;
}

static void ex_cell_bool(bool v, extract_cell *out)
{
    out->kind = EXTRACT_CELL_BOOL;
    out->i = v;
}

static void ex_cell_id(uint64_t v, extract_cell *out)
{
    out->kind = EXTRACT_CELL_ID;
    out->u = v;
}

static uint64_t ex_instr_bytes(const table *t, size_t row)
{
    return table_u64(t, DM_INSTR_HBM_READ, row) + table_u64(t, DM_INSTR_HBM_WRITE, row) +
           table_u64(t, DM_INSTR_SBUF_READ, row) + table_u64(t, DM_INSTR_SBUF_WRITE, row);
}

static void ex_instr_cell(const device_model *m, const table *t, int col, size_t row, extract_cell *out)
{
    static const uint32_t str_cols[IC_COUNT] = {[IC_ENGINE] = DM_INSTR_ENGINE, [IC_LABEL] = DM_INSTR_LABEL,
        [IC_OPCODE] = DM_INSTR_OPCODE, [IC_COMPILER_OPCODE] = DM_INSTR_COMPILER_OPCODE, [IC_LAYER] = DM_INSTR_LAYER,
        [IC_HLO] = DM_INSTR_HLO_NAME, [IC_SOURCE] = DM_INSTR_SOURCE, [IC_TYPE] = DM_INSTR_TYPE};
    static const uint32_t byte_cols[IC_COUNT] = {[IC_HBM_READ] = DM_INSTR_HBM_READ, [IC_HBM_WRITE] = DM_INSTR_HBM_WRITE,
        [IC_SBUF_READ] = DM_INSTR_SBUF_READ, [IC_SBUF_WRITE] = DM_INSTR_SBUF_WRITE, [IC_PSUM_READ] = DM_INSTR_PSUM_READ,
        [IC_PSUM_WRITE] = DM_INSTR_PSUM_WRITE, [IC_SPILL_SAVE] = DM_INSTR_SPILL_SAVE, [IC_SPILL_RELOAD] = DM_INSTR_SPILL_RELOAD};
    switch (col) {
    case IC_ROW: ex_cell_uint(row, out); return;
    case IC_START: ex_cell_int(table_i64(t, DM_INSTR_TIMESTAMP, row), out); return;
    case IC_END: ex_cell_int(table_i64(t, DM_INSTR_TIMESTAMP, row) + table_i64(t, DM_INSTR_DURATION, row), out); return;
    case IC_DURATION: ex_cell_int(table_i64(t, DM_INSTR_DURATION, row), out); return;
    case IC_WAIT: ex_cell_int(table_i64(t, DM_INSTR_EVT_WAIT, row), out); return;
    case IC_BYTES: ex_cell_uint(ex_instr_bytes(t, row), out); return;
    case IC_DMA_TRIGGER: ex_cell_bool(table_u64(t, DM_INSTR_FLAGS, row) & DM_INSTR_F_DMA_TRIGGER, out); return;
    case IC_ID: ex_cell_id(table_u64(t, DM_INSTR_ID, row), out); return;
    default: break;
    }
    if (col >= IC_HBM_READ && col <= IC_SPILL_RELOAD)
        ex_cell_uint(table_u64(t, byte_cols[col], row), out);
    else
        ex_cell_str(m, table_str(t, str_cols[col], row), out);
}

static void ex_dma_cell(const device_model *m, const table *t, int col, size_t row, extract_cell *out)
{
    uint64_t flags = table_u64(t, DM_DMA_FLAGS, row);
    int64_t v;
    switch (col) {
    case DC_ROW: ex_cell_uint(row, out); return;
    case DC_START: ex_cell_int(table_i64(t, DM_DMA_TIMESTAMP, row), out); return;
    case DC_END: ex_cell_int(table_i64(t, DM_DMA_TIMESTAMP, row) + table_i64(t, DM_DMA_DURATION, row), out); return;
    case DC_DURATION: ex_cell_int(table_i64(t, DM_DMA_DURATION, row), out); return;
    case DC_BYTES: ex_cell_uint(table_u64(t, DM_DMA_TRANSFER_SIZE, row), out); return;
    case DC_QUEUE: ex_cell_str(m, table_str(t, DM_DMA_QUEUE, row), out); return;
    case DC_SUBGROUP: ex_cell_str(m, table_str(t, DM_DMA_SUBGROUP, row), out); return;
    case DC_QUEUE_TYPE: ex_cell_str(m, table_str(t, DM_DMA_QUEUE_TYPE, row), out); return;
    case DC_VARIABLE: ex_cell_str(m, table_str(t, DM_DMA_VARIABLE, row), out); return;
    case DC_DMA_ENGINE:
    case DC_DMA_QUEUE:
        v = table_i64(t, col == DC_DMA_ENGINE ? DM_DMA_ENGINE : DM_DMA_QUEUE_IDX, row);
        if (v < 0)
            out->kind = EXTRACT_CELL_NULL;
        else
            ex_cell_int(v, out);
        return;
    case DC_AGGREGATED: ex_cell_bool(flags & DM_DMA_F_AGGREGATED, out); return;
    case DC_CC: ex_cell_bool(flags & DM_DMA_F_CC, out); return;
    case DC_DUPLICATE: ex_cell_bool(flags & DM_DMA_F_DUPLICATE, out); return;
    case DC_ID: ex_cell_id(table_u64(t, DM_DMA_ID, row), out); return;
    default: ex_cell_id(table_u64(t, DM_DMA_AGG_ID, row), out); return;
    }
}

static void ex_sem_cell(const device_model *m, const table *t, int col, size_t row, extract_cell *out)
{
    switch (col) {
    case SC_ROW: ex_cell_uint(row, out); return;
    case SC_START: ex_cell_int(table_i64(t, DM_SEM_TIMESTAMP, row), out); return;
    case SC_SEMAPHORE: ex_cell_str(m, table_str(t, DM_SEM_ID, row), out); return;
    default: ex_cell_int(table_i64(t, DM_SEM_VALUE, row), out); return;
    }
}

void extract_cell_get(const device_model *m, extract_kind kind, int col, size_t row, extract_cell *out)
{
    memset(out, 0, sizeof *out);
    switch (kind) {
    case EXTRACT_INSTRUCTION: ex_instr_cell(m, device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS), col, row, out); return;
    case EXTRACT_DMA: ex_dma_cell(m, device_model_table_get(m, DEVICE_MODEL_DMA), col, row, out); return;
    case EXTRACT_SEMAPHORE: ex_sem_cell(m, device_model_table_get(m, DEVICE_MODEL_SEMAPHORES), col, row, out); return;
    default: out->kind = EXTRACT_CELL_NULL; return;
    }
}

/* ---- names -------------------------------------------------------------------------------------------- */

const char *extract_kind_name(extract_kind k)
{
    return k < EXTRACT_KIND_COUNT ? ex_kind_names[k] : "?";
}

const char *extract_sort_name(extract_sort s)
{
    return s < EXTRACT_SORT_COUNT ? ex_sort_names[s] : "?";
}

int extract_kind_parse(const char *name, extract_kind *out)
{
    for (int k = 0; name && k < EXTRACT_KIND_COUNT; k++)
        if (!strcmp(name, ex_kind_names[k]))
            return (*out = (extract_kind)k), 0;
    return -1;
}

int extract_sort_parse(const char *name, extract_sort *out)
{
    for (int s = 0; name && s < EXTRACT_SORT_COUNT; s++)
        if (!strcmp(name, ex_sort_names[s]))
            return (*out = (extract_sort)s), 0;
    return -1;
}

/* ---- resolve ------------------------------------------------------------------------------------------ */

/* Where a kind keeps what the filters read. */
typedef struct ex_layout {
    device_model_table table;
    uint32_t ts, dur, wait;  /* EX_NO_COL when the kind has none */
    uint32_t engine, label;  /* string columns the engine filter matches */
} ex_layout;

static const ex_layout ex_layouts[EXTRACT_KIND_COUNT] = {
    [EXTRACT_INSTRUCTION] = {DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_TIMESTAMP, DM_INSTR_DURATION, DM_INSTR_EVT_WAIT,
                             DM_INSTR_ENGINE, DM_INSTR_LABEL},
    [EXTRACT_DMA] = {DEVICE_MODEL_DMA, DM_DMA_TIMESTAMP, DM_DMA_DURATION, EX_NO_COL, DM_DMA_QUEUE, DM_DMA_SUBGROUP},
    [EXTRACT_SEMAPHORE] = {DEVICE_MODEL_SEMAPHORES, DM_SEM_TIMESTAMP, EX_NO_COL, EX_NO_COL, EX_NO_COL, EX_NO_COL},
};

typedef struct ex_ctx {
    const device_model *m;
    const table *t;
    const extract_request *req;
    const ex_layout *lay;
    size_t rows;
    uint8_t *engine_ok, *label_ok, *opcode_ok, *compiler_ok, *source_ok, *layer_ok; /* per dictionary code */
    bool set[EXTRACT_FILTER_COUNT];
    table_value *ts, *dur, *wait; /* chunk buffers */
    table_value *aux;             /* chunk buffer for the byte columns of an order's keys (lazy) */
    uint64_t *bytes;
} ex_ctx;

static void ex_ctx_close(ex_ctx *c)
{
    free(c->engine_ok);
    free(c->label_ok);
    free(c->opcode_ok);
    free(c->compiler_ok);
    free(c->source_ok);
    free(c->layer_ok);
    free(c->ts);
    free(c->dur);
    free(c->wait);
    free(c->aux);
    free(c->bytes);
}

typedef enum ex_match_kind { EX_EXACT_CI, EX_GLOB_CI, EX_SUBSTRING_CI } ex_match_kind;

static bool ex_string_matches(const char *s, const char *pattern, ex_match_kind how)
{
    switch (how) {
    case EX_EXACT_CI: return !strcasecmp(s, pattern);
    case EX_GLOB_CI: return *s && !fnmatch(pattern, s, FNM_CASEFOLD);
    default: return *s && strcasestr(s, pattern) != NULL;
    }
}

/* One byte per dictionary code of `col`: whether the code's string matches. *hits = codes that match. */
static uint8_t *ex_code_map(const ex_ctx *c, uint32_t col, const char *pattern, ex_match_kind how, size_t *hits,
                            nl_error *err)
{
    uint32_t n = table_dict_size(c->t, col);
    uint8_t *map = calloc(n ? n : 1, 1);
    if (!map) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (filter map)");
        return NULL;
    }
    for (uint32_t code = 0; code < n; code++) {
        const char *s = device_model_str(c->m, table_dict_id(c->t, col, code), NULL);
        map[code] = s && ex_string_matches(s, pattern, how);
        *hits += map[code];
    }
    return map;
}

static int ex_arg_error(nl_error *err, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int ex_arg_error(nl_error *err, const char *field, const char *fmt, ...)
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

/* The first filter that the kind does not have, or NULL. */
static const char *ex_foreign_filter(const extract_request *req)
{
    const extract_filter *f = &req->filter;
    if (req->kind == EXTRACT_INSTRUCTION)
        return NULL;
    if (f->opcode_glob || f->source || f->layer || f->min_wait_ns)
        return f->opcode_glob ? "opcode" : f->source ? "source" : f->layer ? "layer" : "min_wait_ns";
    if (req->kind == EXTRACT_SEMAPHORE && (f->engine || f->min_duration_ns))
        return f->engine ? "engine" : "min_duration_ns";
    return NULL;
}

/* Filters and sorts that the kind does not have, empty strings, negative or inverted windows and page sizes
 * out of range are argument errors naming the argument. */
static int ex_check_kind(const extract_request *req, nl_error *err)
{
    const extract_filter *f = &req->filter;
    const char *kind = extract_kind_name(req->kind);
    const char *foreign = ex_foreign_filter(req);
    if (foreign)
        return ex_arg_error(err, foreign, "%s does not apply to kind %s; kind dma accepts engine (queue), window and "
                            "min_duration_ns, kind semaphore only the window", foreign, kind);
    bool instr = req->kind == EXTRACT_INSTRUCTION, dma = req->kind == EXTRACT_DMA;
    if (!(req->sort == EXTRACT_SORT_TIME || instr || (dma && req->sort != EXTRACT_SORT_WAIT)))
        return ex_arg_error(err, "sort", "sort %s is not available for kind %s; accepted: time, duration and bytes for "
                            "dma, time for semaphore", extract_sort_name(req->sort), kind);
    const char *empty = f->engine && !*f->engine ? "engine" : f->opcode_glob && !*f->opcode_glob ? "opcode"
                      : f->source && !*f->source ? "source" : f->layer && !*f->layer ? "layer" : NULL;
    if (empty)
        return ex_arg_error(err, empty, "%s must not be empty (omit it to match every row)", empty);
    if (f->min_duration_ns < 0 || f->min_wait_ns < 0 || (f->has_start && f->start_ns < 0) || (f->has_end && f->end_ns < 0))
        return ex_arg_error(err, f->has_start && f->start_ns < 0 ? "start_ns" : f->has_end && f->end_ns < 0 ? "end_ns"
                            : f->min_wait_ns < 0 ? "min_wait_ns" : "min_duration_ns", "times and minimums must be >= 0 ns");
    if (f->has_start && f->has_end && f->end_ns < f->start_ns)
        return ex_arg_error(err, "end_ns", "end_ns %lld is before start_ns %lld: the window [start_ns, end_ns) must "
                            "not be inverted", (long long)f->end_ns, (long long)f->start_ns);
    if (req->limit < 1 || req->limit > EXTRACT_LIMIT_MAX)
        return ex_arg_error(err, "max_rows", "the page size must be 1..%u, got %zu", EXTRACT_LIMIT_MAX, req->limit);
    return 0;
}

static bool ex_is_canonical_engine(const char *name)
{
    for (size_t i = 0; i < EX_CANONICAL_ENGINES; i++)
        if (!strcasecmp(name, ex_canonical_engines[i]))
            return true;
    return false;
}

static int ex_resolve(ex_ctx *c, nl_error *err)
{
    const extract_filter *f = &c->req->filter;
    size_t hits = 0;
    if (f->engine) {
        c->engine_ok = ex_code_map(c, c->lay->engine, f->engine, EX_EXACT_CI, &hits, err);
        c->label_ok = c->engine_ok ? ex_code_map(c, c->lay->label, f->engine, EX_EXACT_CI, &hits, err) : NULL;
        if (!c->label_ok)
            return -1;
        if (!hits && !(c->req->kind == EXTRACT_INSTRUCTION && ex_is_canonical_engine(f->engine))) {
            nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "unknown engine '%.64s' for kind %s", f->engine,
                         extract_kind_name(c->req->kind));
            nl_error_set_field(err, "engine");
            return -1;
        }
    }
    if (f->opcode_glob) {
        c->opcode_ok = ex_code_map(c, DM_INSTR_OPCODE, f->opcode_glob, EX_GLOB_CI, &hits, err);
        c->compiler_ok = c->opcode_ok ? ex_code_map(c, DM_INSTR_COMPILER_OPCODE, f->opcode_glob, EX_GLOB_CI, &hits, err) : NULL;
        if (!c->compiler_ok)
            return -1;
    }
    if (f->source && !(c->source_ok = ex_code_map(c, DM_INSTR_SOURCE, f->source, EX_SUBSTRING_CI, &hits, err)))
        return -1;
    if (f->layer && !(c->layer_ok = ex_code_map(c, DM_INSTR_LAYER, f->layer, EX_SUBSTRING_CI, &hits, err)))
        return -1;
    c->set[EXTRACT_F_ENGINE] = f->engine != NULL;
    c->set[EXTRACT_F_OPCODE] = f->opcode_glob != NULL;
    c->set[EXTRACT_F_WINDOW] = f->has_start || f->has_end;
    c->set[EXTRACT_F_SOURCE] = f->source != NULL;
    c->set[EXTRACT_F_LAYER] = f->layer != NULL;
    c->set[EXTRACT_F_MIN_DURATION] = f->min_duration_ns > 0;
    c->set[EXTRACT_F_MIN_WAIT] = f->min_wait_ns > 0;
    return 0;
}

static int ex_open(ex_ctx *c, const device_model *m, const extract_request *req, nl_error *err)
{
    memset(c, 0, sizeof *c);
    if (req->kind == EXTRACT_COLLECTIVE || req->kind >= EXTRACT_KIND_COUNT)
        return nl_error_set(err, NL_ERR_UNSUPPORTED, NULL, -1, "the full JSON export has no collective-operation rows");
    if (ex_check_kind(req, err))
        return -1;
    c->m = m;
    c->req = req;
    c->lay = &ex_layouts[req->kind];
    c->t = device_model_table_get(m, c->lay->table);
    c->rows = c->t ? table_rows(c->t) : 0;
    if (req->has_after && req->after_row >= c->rows) {
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "the cursor points at row %zu but the %s table has %zu rows",
                     req->after_row, extract_kind_name(req->kind), c->rows);
        nl_error_set_field(err, "cursor");
        return -1;
    }
    if (!c->t)
        return 0;
    c->ts = malloc(EXTRACT_CHUNK * sizeof *c->ts);
    c->dur = malloc(EXTRACT_CHUNK * sizeof *c->dur);
    c->wait = malloc(EXTRACT_CHUNK * sizeof *c->wait);
    if (!c->ts || !c->dur || !c->wait)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (chunk buffers)");
    return ex_resolve(c, err);
}

/* ---- matching ----------------------------------------------------------------------------------------- */

static bool ex_in_window(const extract_filter *f, int64_t s, int64_t dur)
{
    int64_t a = f->has_start ? f->start_ns : INT64_MIN, b = f->has_end ? f->end_ns : INT64_MAX;
    int64_t e;
    if (dur <= 0 || __builtin_add_overflow(s, dur, &e))
        e = dur <= 0 ? s : INT64_MAX;
    if (a == b)
        return s <= a && (e > a || s == a);
    return s < b && (e > a || (e == s && s >= a));
}

/* Whether row (at chunk index i) passes filter `which`. */
static bool ex_test(const ex_ctx *c, int which, size_t row, size_t i)
{
    const extract_filter *f = &c->req->filter;
    switch (which) {
    case EXTRACT_F_ENGINE:
        return c->engine_ok[table_code(c->t, c->lay->engine, row)] || c->label_ok[table_code(c->t, c->lay->label, row)];
    case EXTRACT_F_OPCODE:
        return c->opcode_ok[table_code(c->t, DM_INSTR_OPCODE, row)] ||
               c->compiler_ok[table_code(c->t, DM_INSTR_COMPILER_OPCODE, row)];
    case EXTRACT_F_WINDOW: return ex_in_window(f, c->ts[i].i, c->lay->dur == EX_NO_COL ? 0 : c->dur[i].i);
    case EXTRACT_F_SOURCE: return c->source_ok[table_code(c->t, DM_INSTR_SOURCE, row)];
    case EXTRACT_F_LAYER: return c->layer_ok[table_code(c->t, DM_INSTR_LAYER, row)];
    case EXTRACT_F_MIN_DURATION: return c->dur[i].i >= f->min_duration_ns;
    default: return c->wait[i].i >= f->min_wait_ns;
    }
}

static bool ex_matches(const ex_ctx *c, size_t row, size_t i)
{
    for (int f = 0; f < EXTRACT_FILTER_COUNT; f++)
        if (c->set[f] && !ex_test(c, f, row, i))
            return false;
    return true;
}

static bool ex_cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

/* Decode the chunk [base, base + n) of the time columns the request needs. */
static void ex_read_chunk(ex_ctx *c, size_t base, size_t n, bool need_dur, bool need_wait)
{
    table_read(c->t, c->lay->ts, base, n, c->ts);
    if (need_dur && c->lay->dur != EX_NO_COL)
        table_read(c->t, c->lay->dur, base, n, c->dur);
    if (need_wait && c->lay->wait != EX_NO_COL)
        table_read(c->t, c->lay->wait, base, n, c->wait);
}

/* Only the columns the set filters read (the match pass of an ordered request). */
static void ex_read_filter_chunk(ex_ctx *c, size_t base, size_t n)
{
    bool need_dur = c->set[EXTRACT_F_WINDOW] || c->set[EXTRACT_F_MIN_DURATION];
    if (c->set[EXTRACT_F_WINDOW])
        table_read(c->t, c->lay->ts, base, n, c->ts);
    if (need_dur && c->lay->dur != EX_NO_COL)
        table_read(c->t, c->lay->dur, base, n, c->dur);
    if (c->set[EXTRACT_F_MIN_WAIT] && c->lay->wait != EX_NO_COL)
        table_read(c->t, c->lay->wait, base, n, c->wait);
}

/* ---- order -------------------------------------------------------------------------------------------- */

/* A row's page key: sort value (descending; 0 for time order), timestamp, row. */
typedef row_order_key ex_key;

static int64_t ex_clamp_u64(uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

static ex_key ex_key_of(const ex_ctx *c, size_t row, int64_t ts, int64_t dur, int64_t wait)
{
    ex_key k = {0, ts, row};
    switch (c->req->sort) {
    case EXTRACT_SORT_DURATION: k.value = dur; break;
    case EXTRACT_SORT_WAIT: k.value = wait; break;
    case EXTRACT_SORT_BYTES:
        k.value = c->req->kind == EXTRACT_DMA ? ex_clamp_u64(table_u64(c->t, DM_DMA_TRANSFER_SIZE, row))
                                              : ex_clamp_u64(ex_instr_bytes(c->t, row));
        break;
    default: break;
    }
    return k;
}

static ex_key ex_key_of_row(const ex_ctx *c, size_t row)
{
    int64_t dur = c->lay->dur == EX_NO_COL ? 0 : table_i64(c->t, c->lay->dur, row);
    int64_t wait = c->lay->wait == EX_NO_COL ? 0 : table_i64(c->t, c->lay->wait, row);
    return ex_key_of(c, row, table_i64(c->t, c->lay->ts, row), dur, wait);
}

/* ---- scan --------------------------------------------------------------------------------------------- */

static bool ex_any_filter(const ex_ctx *c)
{
    for (int f = 0; f < EXTRACT_FILTER_COUNT; f++)
        if (c->set[f])
            return true;
    return false;
}

/* Whether the timestamps never decrease in row order (then time order is row order). */
static int ex_time_ordered(ex_ctx *c, const atomic_int *cancel, bool *ordered, nl_error *err)
{
    int64_t prev = INT64_MIN;
    *ordered = true;
    for (size_t base = 0; base < c->rows && *ordered; base += EXTRACT_CHUNK) {
        if (ex_cancelled(cancel))
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        size_t n = c->rows - base < EXTRACT_CHUNK ? c->rows - base : EXTRACT_CHUNK;
        table_read(c->t, c->lay->ts, base, n, c->ts);
        for (size_t i = 0; i < n && *ordered; i++) {
            *ordered = c->ts[i].i >= prev;
            prev = c->ts[i].i;
        }
    }
    return 0;
}

/* Time order, no filter, rows already in time order: the page is the rows after the cursor. */
static int ex_page_in_order(ex_ctx *c, extract_page *out, nl_error *err)
{
    size_t first = c->req->has_after ? c->req->after_row + 1 : 0;
    size_t n = c->rows - first < c->req->limit ? c->rows - first : c->req->limit;
    out->total = c->rows;
    out->after_cursor = c->rows - first;
    out->rows = malloc((n ? n : 1) * sizeof *out->rows);
    if (!out->rows)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (page)");
    for (size_t i = 0; i < n; i++)
        out->rows[i] = first + i;
    out->count = n;
    out->time_ordered_scan = true;
    return 0;
}

static int ex_page_scan(ex_ctx *c, const atomic_int *cancel, extract_page *out, nl_error *err)
{
    topn heap;
    if (topn_init(&heap, sizeof(ex_key), c->req->limit, row_order_key_cmp, NULL))
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (page heap)");
    ex_key after = c->req->has_after ? ex_key_of_row(c, c->req->after_row) : (ex_key){0};
    bool need_dur = c->set[EXTRACT_F_WINDOW] || c->set[EXTRACT_F_MIN_DURATION] || c->req->sort == EXTRACT_SORT_DURATION;
    bool need_wait = c->set[EXTRACT_F_MIN_WAIT] || c->req->sort == EXTRACT_SORT_WAIT;
    for (size_t base = 0; base < c->rows; base += EXTRACT_CHUNK) {
        if (ex_cancelled(cancel)) {
            topn_close(&heap);
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        }
        size_t n = c->rows - base < EXTRACT_CHUNK ? c->rows - base : EXTRACT_CHUNK;
        ex_read_chunk(c, base, n, need_dur, need_wait);
        for (size_t i = 0; i < n; i++) {
            if (!ex_matches(c, base + i, i))
                continue;
            out->total++;
            ex_key k = ex_key_of(c, base + i, c->ts[i].i, need_dur ? c->dur[i].i : 0, need_wait ? c->wait[i].i : 0);
            if (c->req->has_after && row_order_key_cmp(&k, &after, NULL) <= 0)
                continue;
            out->after_cursor++;
            topn_offer(&heap, &k);
        }
    }
    size_t n = topn_finish(&heap);
    out->rows = malloc((n ? n : 1) * sizeof *out->rows);
    if (!out->rows) {
        topn_close(&heap);
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (page)");
    }
    for (size_t i = 0; i < n; i++)
        out->rows[i] = ((const ex_key *)topn_at(&heap, i))->row;
    out->count = n;
    topn_close(&heap);
    return 0;
}

/* ---- memoized order ----------------------------------------------------------------------------------- */

struct extract_order {
    extract_kind kind;
    extract_sort sort;
    row_order *rows;
};

_Static_assert(ROW_ORDER_CHUNK <= EXTRACT_CHUNK, "row_order chunks are decoded into the EXTRACT_CHUNK buffers");
_Static_assert(EXTRACT_CHUNK % 64 == 0, "match bits are packed a word at a time from chunk starts");

/* The sort value `bytes` of rows [base, base + n) into c->bytes, as ex_key_of computes it per row, decoded a
 * column at a time: building the instruction bytes order took 17 ms more with four table_u64 per row. */
static void ex_read_bytes(ex_ctx *c, size_t base, size_t n)
{
    static const uint32_t instr[] = {DM_INSTR_HBM_READ, DM_INSTR_HBM_WRITE, DM_INSTR_SBUF_READ, DM_INSTR_SBUF_WRITE};
    bool dma = c->req->kind == EXTRACT_DMA;
    memset(c->bytes, 0, n * sizeof *c->bytes);
    for (size_t k = 0; k < (dma ? 1 : sizeof instr / sizeof instr[0]); k++) {
        table_read(c->t, dma ? DM_DMA_TRANSFER_SIZE : instr[k], base, n, c->aux);
        for (size_t i = 0; i < n; i++)
            c->bytes[i] += c->aux[i].u;
    }
}

/* row_order_keys_fn: the ex_key of rows [base, base + n), decoded into the context's chunk buffers. */
static void ex_order_keys(void *ctx, size_t base, size_t n, int64_t *value, int64_t *ts, uint8_t *keep)
{
    ex_ctx *c = ctx;
    bool need_dur = c->req->sort == EXTRACT_SORT_DURATION, need_wait = c->req->sort == EXTRACT_SORT_WAIT;
    ex_read_chunk(c, base, n, need_dur, need_wait);
    if (c->req->sort == EXTRACT_SORT_BYTES && c->bytes)
        ex_read_bytes(c, base, n);
    for (size_t i = 0; i < n; i++) {
        ex_key k = c->req->sort == EXTRACT_SORT_BYTES && c->bytes
                       ? (ex_key){ex_clamp_u64(c->bytes[i]), c->ts[i].i, base + i}
                       : ex_key_of(c, base + i, c->ts[i].i, need_dur ? c->dur[i].i : 0, need_wait ? c->wait[i].i : 0);
        value[i] = k.value;
        ts[i] = k.ts;
        keep[i] = 1;
    }
}

int extract_order_build(const device_model *m, extract_kind kind, extract_sort sort, const atomic_int *cancel,
                        extract_order **out, nl_error *err)
{
    extract_request req = {.kind = kind, .sort = sort, .limit = 1};
    extract_order *o = NULL;
    ex_ctx c;
    int rc = ex_open(&c, m, &req, err);
    if (!rc && !(o = calloc(1, sizeof *o)))
        rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (order)");
    if (!rc && sort == EXTRACT_SORT_BYTES && c.t) {
        c.aux = malloc(EXTRACT_CHUNK * sizeof *c.aux);
        c.bytes = malloc(EXTRACT_CHUNK * sizeof *c.bytes);
        if (!c.aux || !c.bytes)
            rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (chunk buffers)");
    }
    if (!rc)
        rc = row_order_build(c.rows, ex_order_keys, &c, cancel, &o->rows, err);
    ex_ctx_close(&c);
    if (rc) {
        extract_order_free(o);
        *out = NULL;
        return -1;
    }
    o->kind = kind;
    o->sort = sort;
    *out = o;
    return 0;
}

void extract_order_free(extract_order *o)
{
    if (o)
        row_order_free(o->rows);
    free(o);
}

size_t extract_order_bytes(const extract_order *o)
{
    return sizeof *o + row_order_bytes(o->rows);
}

/* Scratch of the match pass: dictionary codes of two string columns, and a keep flag per chunk row. */
typedef struct ex_match_scratch {
    uint32_t *a, *b;
    uint8_t *keep;
} ex_match_scratch;

/* keep[i] &= ok_a[code a] || ok_b[code b] over the chunk (ok_b / col_b may be absent). */
static void ex_keep_codes(const ex_ctx *c, ex_match_scratch *x, size_t base, size_t n, uint32_t col_a,
                          const uint8_t *ok_a, uint32_t col_b, const uint8_t *ok_b)
{
    table_read_codes(c->t, col_a, base, n, x->a);
    if (ok_b)
        table_read_codes(c->t, col_b, base, n, x->b);
    for (size_t i = 0; i < n; i++)
        x->keep[i] &= ok_a[x->a[i]] | (ok_b ? ok_b[x->b[i]] : 0);
}

/* keep[i] &= the set filter `which` holds for chunk row i (columns already decoded by ex_read_filter_chunk). */
static void ex_keep_filter(const ex_ctx *c, ex_match_scratch *x, int which, size_t base, size_t n)
{
    const extract_filter *f = &c->req->filter;
    switch (which) {
    case EXTRACT_F_ENGINE: ex_keep_codes(c, x, base, n, c->lay->engine, c->engine_ok, c->lay->label, c->label_ok); return;
    case EXTRACT_F_OPCODE:
        ex_keep_codes(c, x, base, n, DM_INSTR_OPCODE, c->opcode_ok, DM_INSTR_COMPILER_OPCODE, c->compiler_ok);
        return;
    case EXTRACT_F_SOURCE: ex_keep_codes(c, x, base, n, DM_INSTR_SOURCE, c->source_ok, 0, NULL); return;
    case EXTRACT_F_LAYER: ex_keep_codes(c, x, base, n, DM_INSTR_LAYER, c->layer_ok, 0, NULL); return;
    case EXTRACT_F_WINDOW:
        for (size_t i = 0; i < n; i++)
            x->keep[i] &= ex_in_window(f, c->ts[i].i, c->lay->dur == EX_NO_COL ? 0 : c->dur[i].i);
        return;
    case EXTRACT_F_MIN_DURATION:
        for (size_t i = 0; i < n; i++)
            x->keep[i] &= c->dur[i].i >= f->min_duration_ns;
        return;
    default:
        for (size_t i = 0; i < n; i++)
            x->keep[i] &= c->wait[i].i >= f->min_wait_ns;
        return;
    }
}

/* One bit per row that passes every set filter; *total = how many. Filters run a column at a time over each
 * chunk (ex_matches tests a row at a time): at 1M instructions an engine filter took 13.6 ms a row at a time
 * with table_code, 1.9 ms a column at a time with the bits packed a word at a time (min_duration_ns 7.8 →
 * 2.3 ms). */
static int ex_match_bits(ex_ctx *c, const atomic_int *cancel, uint64_t **out, uint64_t *total, nl_error *err)
{
    uint64_t *match = calloc(row_order_match_words(c->rows) + 1, sizeof *match);
    ex_match_scratch x = {malloc(EXTRACT_CHUNK * sizeof *x.a), malloc(EXTRACT_CHUNK * sizeof *x.b),
                          malloc(EXTRACT_CHUNK)};
    int rc = !match || !x.a || !x.b || !x.keep
                 ? nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (match bits)") : 0;
    *total = 0;
    for (size_t base = 0; !rc && base < c->rows; base += EXTRACT_CHUNK) {
        if (ex_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = c->rows - base < EXTRACT_CHUNK ? c->rows - base : EXTRACT_CHUNK;
        ex_read_filter_chunk(c, base, n);
        memset(x.keep, 1, n);
        for (int f = 0; f < EXTRACT_FILTER_COUNT; f++)
            if (c->set[f])
                ex_keep_filter(c, &x, f, base, n);
        *total += row_order_match_pack(match, base, x.keep, n);
    }
    free(x.a);
    free(x.b);
    free(x.keep);
    if (rc) {
        free(match);
        return -1;
    }
    *out = match;
    return 0;
}

/* The page from a memoized order: see step 2 of the design note. */
static int ex_page_ordered(ex_ctx *c, const row_order *o, const atomic_int *cancel, extract_page *out, nl_error *err)
{
    uint64_t *match = NULL;
    if (ex_any_filter(c) && ex_match_bits(c, cancel, &match, &out->total, err))
        return -1;
    out->ordered = true;
    if (!(out->rows = malloc(c->req->limit * sizeof *out->rows))) {
        free(match);
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (page)");
    }
    ex_key k = c->req->has_after ? ex_key_of_row(c, c->req->after_row) : (ex_key){0};
    row_order_key after = {k.value, k.ts, k.row};
    if (match && row_order_is_sparse(o, out->total)) {
        int rc = row_order_rank_matches(c->rows, match, c->req->has_after ? &after : NULL, ex_order_keys, c,
                                        c->req->limit, out->rows, &out->count, &out->after_cursor);
        free(match);
        return rc ? nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (page heap)") : 0;
    }
    size_t from = c->req->has_after ? row_order_upper_bound(o, k.value, k.ts, k.row, ex_order_keys, c) : 0;
    if (!match)
        out->total = row_order_count(o);
    out->after_cursor = row_order_matches_from(o, from, match, out->total);
    out->count = row_order_take(o, from, match, c->req->limit, out->rows);
    free(match);
    return 0;
}

static int ex_check_order(const ex_ctx *c, const extract_order *o, nl_error *err)
{
    if (o->kind == c->req->kind && o->sort == c->req->sort && row_order_table_rows(o->rows) == c->rows)
        return 0;
    return nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "the order was built for %s by %s over %zu rows, not for this "
                        "request", extract_kind_name(o->kind), extract_sort_name(o->sort), row_order_table_rows(o->rows));
}

int extract_run(const device_model *m, const extract_request *req, const atomic_int *cancel, extract_page *out,
                nl_error *err)
{
    memset(out, 0, sizeof *out);
    ex_ctx c;
    int rc = ex_open(&c, m, req, err);
    bool ordered = false;
    if (!rc && req->order) {
        rc = ex_check_order(&c, req->order, err);
        if (!rc)
            rc = ex_page_ordered(&c, req->order->rows, cancel, out, err);
    } else if (!rc) {
        if (req->sort == EXTRACT_SORT_TIME && !ex_any_filter(&c) && c.rows)
            rc = ex_time_ordered(&c, cancel, &ordered, err);
        if (!rc)
            rc = ordered ? ex_page_in_order(&c, out, err) : ex_page_scan(&c, cancel, out, err);
    }
    if (!rc && !out->rows && !(out->rows = malloc(sizeof *out->rows)))
        rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (page)");
    ex_ctx_close(&c);
    if (rc) {
        extract_page_free(out);
        return -1;
    }
    out->more = out->after_cursor > out->count;
    return 0;
}

void extract_page_free(extract_page *p)
{
    free(p->rows);
    memset(p, 0, sizeof *p);
}

int extract_explain(const device_model *m, const extract_request *req, const atomic_int *cancel,
                    int64_t counts[EXTRACT_FILTER_COUNT], nl_error *err)
{
    ex_ctx c;
    int rc = ex_open(&c, m, req, err);
    for (int f = 0; f < EXTRACT_FILTER_COUNT; f++)
        counts[f] = !rc && c.set[f] ? 0 : -1;
    for (size_t base = 0; !rc && base < c.rows; base += EXTRACT_CHUNK) {
        if (ex_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = c.rows - base < EXTRACT_CHUNK ? c.rows - base : EXTRACT_CHUNK;
        ex_read_chunk(&c, base, n, true, true);
        for (size_t i = 0; i < n; i++)
            for (int f = 0; f < EXTRACT_FILTER_COUNT; f++)
                if (c.set[f] && ex_test(&c, f, base + i, i))
                    counts[f]++;
    }
    ex_ctx_close(&c);
    return rc;
}

bool extract_has_sources(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    for (uint32_t code = 0; t && code < table_dict_size(t, DM_INSTR_SOURCE); code++)
        if (table_dict_id(t, DM_INSTR_SOURCE, code) != 0)
            return true;
    return false;
}

/* ---- accepted engines --------------------------------------------------------------------------------- */

static void ex_list_column(name_list *l, const device_model *m, const table *t, uint32_t col)
{
    for (uint32_t code = 0; t && code < table_dict_size(t, col); code++)
        name_list_add(l, device_model_str(m, table_dict_id(t, col, code), NULL));
}

void extract_engines(const device_model *m, extract_kind kind, char *buf, size_t cap)
{
    name_list l;
    name_list_init(&l, buf, cap, 4, true); /* engine names match case-insensitively */
    if (kind == EXTRACT_INSTRUCTION) {
        for (size_t i = 0; i < EX_CANONICAL_ENGINES; i++)
            name_list_add(&l, ex_canonical_engines[i]);
        const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
        ex_list_column(&l, m, t, DM_INSTR_ENGINE);
        ex_list_column(&l, m, t, DM_INSTR_LABEL);
    } else if (kind == EXTRACT_DMA) {
        ex_list_column(&l, m, device_model_table_get(m, DEVICE_MODEL_DMA), DM_DMA_QUEUE);
    }
}
