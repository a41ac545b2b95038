/* timeline_device — the timeline adapters (timeline.h) of a device model's rows: kinds instruction (the
 * export's instruction array), dma (its dma array), semaphore (semaphore_update) and collective (the CcOp
 * table of a neuron-explorer profile; the JSON export has none). See timeline_kinds.h for what each kind's
 * filters match.
 *
 * One set of callbacks serves the four kinds; each adapter's `data` is the kind's layout (which table,
 * which columns hold the start, duration, wait, opcode and the engine filter's strings). Times are the model's:
 * ns from the profile start. A row is [timestamp, timestamp + duration); a duration <= 0 (and every
 * semaphore update) is an instant, and an end past INT64_MAX saturates. Every row is a timeline row.
 * Filters on string columns resolve once per dictionary code (open): matching a chunk is a decode of its
 * codes and a lookup per row. State: the resolved maps of one request, one thread. */
#include "timeline_kinds.h"
#include "device_model.h"
#include "name_list.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DV_NO_COL UINT32_MAX

static const char *const dv_canonical_engines[] = {"tensor", "vector", "scalar", "gpsimd", "sync"};
#define DV_CANONICAL_ENGINES (sizeof dv_canonical_engines / sizeof dv_canonical_engines[0])

/* Where a kind keeps what the filters and sorts read. */
typedef enum dv_bytes { DV_BYTES_NONE, DV_BYTES_INSTR, DV_BYTES_DMA, DV_BYTES_CC } dv_bytes;
typedef struct dv_layout {
    device_model_table table;
    uint32_t ts, dur, wait;  /* DV_NO_COL when the kind has none */
    uint32_t engine, label;  /* string columns the engine filter matches */
    uint32_t opcode, opcode2; /* string columns the opcode glob matches */
    dv_bytes bytes;
} dv_layout;

static const dv_layout dv_instr_layout = {DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_TIMESTAMP, DM_INSTR_DURATION,
                                          DM_INSTR_EVT_WAIT, DM_INSTR_ENGINE, DM_INSTR_LABEL, DM_INSTR_OPCODE,
                                          DM_INSTR_COMPILER_OPCODE, DV_BYTES_INSTR};
static const dv_layout dv_dma_layout = {DEVICE_MODEL_DMA, DM_DMA_TIMESTAMP, DM_DMA_DURATION, DV_NO_COL, DM_DMA_QUEUE,
                                        DM_DMA_SUBGROUP, DV_NO_COL, DV_NO_COL, DV_BYTES_DMA};
static const dv_layout dv_sem_layout = {DEVICE_MODEL_SEMAPHORES, DM_SEM_TIMESTAMP, DV_NO_COL, DV_NO_COL, DV_NO_COL,
                                        DV_NO_COL, DV_NO_COL, DV_NO_COL, DV_BYTES_NONE};
/* a collective waits from its trigger to its start (cc_trigger_start_delay) */
static const dv_layout dv_cc_layout = {DEVICE_MODEL_CC_OPS, DM_CCOP_START, DM_CCOP_DURATION, DM_CCOP_TRIGGER_DELAY,
                                       DM_CCOP_TRIGGER_ENGINE, DV_NO_COL, DM_CCOP_OPERATION, DV_NO_COL, DV_BYTES_CC};

/* ---- columns ------------------------------------------------------------------------------------------ */

enum {
    IC_ROW, IC_START, IC_END, IC_DURATION, IC_WAIT, IC_ENGINE, IC_LABEL, IC_OPCODE, IC_COMPILER_OPCODE, IC_LAYER,
    IC_HLO, IC_SOURCE, IC_TYPE, IC_BYTES, IC_HBM_READ, IC_HBM_WRITE, IC_SBUF_READ, IC_SBUF_WRITE, IC_PSUM_READ,
    IC_PSUM_WRITE, IC_SPILL_SAVE, IC_SPILL_RELOAD, IC_DMA_TRIGGER, IC_ID, IC_COUNT
};
static const timeline_column dv_instr_columns[IC_COUNT] = {
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
static const timeline_column dv_dma_columns[DC_COUNT] = {
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
static const timeline_column dv_sem_columns[SC_COUNT] = {
    [SC_ROW] = {"row", "index in the export's semaphore_update array", false},
    [SC_START] = {"start_ns", "update time, ns from profile start", true},
    [SC_SEMAPHORE] = {"semaphore", "semaphore id", true},
    [SC_VALUE] = {"value", "new value", true},
};

enum {
    CC_ROW, CC_START, CC_END, CC_DURATION, CC_OPERATION, CC_ALGORITHM, CC_ELEMENTS, CC_DTYPE, CC_BYTES, CC_INPUT,
    CC_OP_ID, CC_STREAM, CC_STREAM_INDEX, CC_TRIGGER_ENGINE, CC_TRIGGER_START, CC_TRIGGER_DELAY, CC_ALGO_BW, CC_BUS_BW,
    CC_REPLICA_GROUP, CC_COUNT
};
static const timeline_column dv_cc_columns[CC_COUNT] = {
    [CC_ROW] = {"row", "index in the CcOp table", false},
    [CC_START] = {"start_ns", "start, ns from profile start", true},
    [CC_END] = {"end_ns", "end, ns", false},
    [CC_DURATION] = {"duration_ns", "ns", true},
    [CC_OPERATION] = {"operation", "AllReduce, AllGather, ...", true},
    [CC_ALGORITHM] = {"algorithm", "ring, mesh, ...", false},
    [CC_ELEMENTS] = {"elements", "num_elements", false},
    [CC_DTYPE] = {"dtype", "element type", false},
    [CC_BYTES] = {"bytes", "output_size, B", true},
    [CC_INPUT] = {"input_bytes", "input_size, B", false},
    [CC_OP_ID] = {"op_id", "operation id", false},
    [CC_STREAM] = {"stream", "stream_id", true},
    [CC_STREAM_INDEX] = {"stream_index", "position in its stream", false},
    [CC_TRIGGER_ENGINE] = {"trigger_engine", "engine that triggered it", true},
    [CC_TRIGGER_START] = {"trigger_start_ns", "trigger time, ns from profile start", false},
    [CC_TRIGGER_DELAY] = {"wait_ns", "cc_trigger_start_delay: trigger to start, ns", true},
    [CC_ALGO_BW] = {"algorithm_bandwidth", "B/s, rounded", false},
    [CC_BUS_BW] = {"bus_bandwidth", "B/s, rounded", false},
    [CC_REPLICA_GROUP] = {"replica_group", "ranks taking part", false},
};

/* ---- cells -------------------------------------------------------------------------------------------- */

static const device_model *dv_model(const timeline_source *src)
{
    return src->model;
}

static const dv_layout *dv_layout_of(const timeline_source *src)
{
    return src->adapter->data;
}

static void dv_cell_str(const device_model *m, uint32_t id, timeline_cell *out)
{
    timeline_cell_str(out, device_model_str(m, id, NULL));
}

static uint64_t dv_instr_bytes(const table *t, size_t row)
{
    return table_u64(t, DM_INSTR_HBM_READ, row) + table_u64(t, DM_INSTR_HBM_WRITE, row) +
           table_u64(t, DM_INSTR_SBUF_READ, row) + table_u64(t, DM_INSTR_SBUF_WRITE, row);
}

static void dv_instr_cell(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out)
{
    static const uint32_t str_cols[IC_COUNT] = {[IC_ENGINE] = DM_INSTR_ENGINE, [IC_LABEL] = DM_INSTR_LABEL,
        [IC_OPCODE] = DM_INSTR_OPCODE, [IC_COMPILER_OPCODE] = DM_INSTR_COMPILER_OPCODE, [IC_LAYER] = DM_INSTR_LAYER,
        [IC_HLO] = DM_INSTR_HLO_NAME, [IC_SOURCE] = DM_INSTR_SOURCE, [IC_TYPE] = DM_INSTR_TYPE};
    static const uint32_t byte_cols[IC_COUNT] = {[IC_HBM_READ] = DM_INSTR_HBM_READ, [IC_HBM_WRITE] = DM_INSTR_HBM_WRITE,
        [IC_SBUF_READ] = DM_INSTR_SBUF_READ, [IC_SBUF_WRITE] = DM_INSTR_SBUF_WRITE, [IC_PSUM_READ] = DM_INSTR_PSUM_READ,
        [IC_PSUM_WRITE] = DM_INSTR_PSUM_WRITE, [IC_SPILL_SAVE] = DM_INSTR_SPILL_SAVE, [IC_SPILL_RELOAD] = DM_INSTR_SPILL_RELOAD};
    const device_model *m = dv_model(src);
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    (void)scratch;
    switch (col) {
    case IC_ROW: timeline_cell_uint(out, TIMELINE_CELL_UINT, row); return;
    case IC_START: timeline_cell_int(out, table_i64(t, DM_INSTR_TIMESTAMP, row)); return;
    case IC_END: timeline_cell_int(out, table_i64(t, DM_INSTR_TIMESTAMP, row) + table_i64(t, DM_INSTR_DURATION, row)); return;
    case IC_DURATION: timeline_cell_int(out, table_i64(t, DM_INSTR_DURATION, row)); return;
    case IC_WAIT: timeline_cell_int(out, table_i64(t, DM_INSTR_EVT_WAIT, row)); return;
    case IC_BYTES: timeline_cell_uint(out, TIMELINE_CELL_UINT, dv_instr_bytes(t, row)); return;
    case IC_DMA_TRIGGER: timeline_cell_bool(out, table_u64(t, DM_INSTR_FLAGS, row) & DM_INSTR_F_DMA_TRIGGER); return;
    case IC_ID: timeline_cell_uint(out, TIMELINE_CELL_ID, table_u64(t, DM_INSTR_ID, row)); return;
    default: break;
    }
    if (col >= IC_HBM_READ && col <= IC_SPILL_RELOAD)
        timeline_cell_uint(out, TIMELINE_CELL_UINT, table_u64(t, byte_cols[col], row));
    else
        dv_cell_str(m, table_str(t, str_cols[col], row), out);
}

static void dv_dma_cell(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out)
{
    const device_model *m = dv_model(src);
    const table *t = device_model_table_get(m, DEVICE_MODEL_DMA);
    uint64_t flags = table_u64(t, DM_DMA_FLAGS, row);
    int64_t v;
    (void)scratch;
    switch (col) {
    case DC_ROW: timeline_cell_uint(out, TIMELINE_CELL_UINT, row); return;
    case DC_START: timeline_cell_int(out, table_i64(t, DM_DMA_TIMESTAMP, row)); return;
    case DC_END: timeline_cell_int(out, table_i64(t, DM_DMA_TIMESTAMP, row) + table_i64(t, DM_DMA_DURATION, row)); return;
    case DC_DURATION: timeline_cell_int(out, table_i64(t, DM_DMA_DURATION, row)); return;
    case DC_BYTES: timeline_cell_uint(out, TIMELINE_CELL_UINT, table_u64(t, DM_DMA_TRANSFER_SIZE, row)); return;
    case DC_QUEUE: dv_cell_str(m, table_str(t, DM_DMA_QUEUE, row), out); return;
    case DC_SUBGROUP: dv_cell_str(m, table_str(t, DM_DMA_SUBGROUP, row), out); return;
    case DC_QUEUE_TYPE: dv_cell_str(m, table_str(t, DM_DMA_QUEUE_TYPE, row), out); return;
    case DC_VARIABLE: dv_cell_str(m, table_str(t, DM_DMA_VARIABLE, row), out); return;
    case DC_DMA_ENGINE:
    case DC_DMA_QUEUE:
        v = table_i64(t, col == DC_DMA_ENGINE ? DM_DMA_ENGINE : DM_DMA_QUEUE_IDX, row);
        if (v >= 0)
            timeline_cell_int(out, v);
        return;
    case DC_AGGREGATED: timeline_cell_bool(out, flags & DM_DMA_F_AGGREGATED); return;
    case DC_CC: timeline_cell_bool(out, flags & DM_DMA_F_CC); return;
    case DC_DUPLICATE: timeline_cell_bool(out, flags & DM_DMA_F_DUPLICATE); return;
    case DC_ID: timeline_cell_uint(out, TIMELINE_CELL_ID, table_u64(t, DM_DMA_ID, row)); return;
    default: timeline_cell_uint(out, TIMELINE_CELL_ID, table_u64(t, DM_DMA_AGG_ID, row)); return;
    }
}

static void dv_sem_cell(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out)
{
    const device_model *m = dv_model(src);
    const table *t = device_model_table_get(m, DEVICE_MODEL_SEMAPHORES);
    (void)scratch;
    switch (col) {
    case SC_ROW: timeline_cell_uint(out, TIMELINE_CELL_UINT, row); return;
    case SC_START: timeline_cell_int(out, table_i64(t, DM_SEM_TIMESTAMP, row)); return;
    case SC_SEMAPHORE: dv_cell_str(m, table_str(t, DM_SEM_ID, row), out); return;
    default: timeline_cell_int(out, table_i64(t, DM_SEM_VALUE, row)); return;
    }
}

static void dv_cc_cell(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out)
{
    static const uint32_t int_cols[CC_COUNT] = {[CC_START] = DM_CCOP_START, [CC_DURATION] = DM_CCOP_DURATION,
        [CC_ELEMENTS] = DM_CCOP_ELEMENTS, [CC_BYTES] = DM_CCOP_OUTPUT_SIZE, [CC_INPUT] = DM_CCOP_INPUT_SIZE,
        [CC_OP_ID] = DM_CCOP_OP_ID, [CC_STREAM] = DM_CCOP_STREAM_ID, [CC_STREAM_INDEX] = DM_CCOP_STREAM_INDEX,
        [CC_TRIGGER_START] = DM_CCOP_TRIGGER_START, [CC_TRIGGER_DELAY] = DM_CCOP_TRIGGER_DELAY};
    static const uint32_t str_cols[CC_COUNT] = {[CC_OPERATION] = DM_CCOP_OPERATION, [CC_ALGORITHM] = DM_CCOP_ALGORITHM,
        [CC_DTYPE] = DM_CCOP_DTYPE, [CC_TRIGGER_ENGINE] = DM_CCOP_TRIGGER_ENGINE, [CC_REPLICA_GROUP] = DM_CCOP_REPLICA_GROUP};
    const device_model *m = dv_model(src);
    const table *t = device_model_table_get(m, DEVICE_MODEL_CC_OPS);
    (void)scratch;
    double bw;
    switch (col) {
    case CC_ROW: timeline_cell_uint(out, TIMELINE_CELL_UINT, row); return;
    case CC_END: timeline_cell_int(out, table_i64(t, DM_CCOP_END, row)); return;
    case CC_ALGO_BW: case CC_BUS_BW:
        bw = table_f64(t, col == CC_ALGO_BW ? DM_CCOP_ALGO_BW : DM_CCOP_BUS_BW, row);
        if (bw > 0 && bw < 9.2e18)
            timeline_cell_int(out, (int64_t)(bw + 0.5));
        return;
    default: break;
    }
    if (str_cols[col])
        dv_cell_str(m, table_str(t, str_cols[col], row), out);
    else
        timeline_cell_int(out, table_i64(t, int_cols[col], row));
}

/* ---- rows and filters --------------------------------------------------------------------------------- */

typedef struct dv_state {
    const device_model *m;
    const table *t;          /* NULL when the model has no table of the kind (then it has no rows) */
    const dv_layout *lay;
    uint8_t *engine_ok, *label_ok, *opcode_ok, *compiler_ok, *source_ok, *layer_ok; /* per dictionary code */
} dv_state;

static size_t dv_rows(const timeline_source *src)
{
    const table *t = device_model_table_get(dv_model(src), dv_layout_of(src)->table);
    return t ? table_rows(t) : 0;
}

static void dv_close(void *state)
{
    dv_state *s = state;
    if (!s)
        return;
    free(s->engine_ok);
    free(s->label_ok);
    free(s->opcode_ok);
    free(s->compiler_ok);
    free(s->source_ok);
    free(s->layer_ok);
    free(s);
}

typedef enum dv_match_kind { DV_EXACT_CI, DV_GLOB_CI, DV_SUBSTRING_CI } dv_match_kind;

static bool dv_string_matches(const char *s, const char *pattern, dv_match_kind how)
{
    switch (how) {
    case DV_EXACT_CI: return !strcasecmp(s, pattern);
    case DV_GLOB_CI: return *s && !fnmatch(pattern, s, FNM_CASEFOLD);
    default: return *s && strcasestr(s, pattern) != NULL;
    }
}

/* One byte per dictionary code of `col`: whether the code's string matches. *hits += codes that match. */
static uint8_t *dv_code_map(const dv_state *s, uint32_t col, const char *pattern, dv_match_kind how, size_t *hits,
                            nl_error *err)
{
    uint32_t n = table_dict_size(s->t, col);
    uint8_t *map = calloc(n ? n : 1, 1);
    if (!map) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (filter map)");
        return NULL;
    }
    for (uint32_t code = 0; code < n; code++) {
        const char *str = device_model_str(s->m, table_dict_id(s->t, col, code), NULL);
        map[code] = str && dv_string_matches(str, pattern, how);
        *hits += map[code];
    }
    return map;
}

static bool dv_is_canonical_engine(const char *name)
{
    for (size_t i = 0; i < DV_CANONICAL_ENGINES; i++)
        if (!strcasecmp(name, dv_canonical_engines[i]))
            return true;
    return false;
}

static int dv_resolve(dv_state *s, const timeline_source *src, const timeline_filter *f, nl_error *err)
{
    size_t hits = 0;
    if (f->engine) {
        if (!(s->engine_ok = dv_code_map(s, s->lay->engine, f->engine, DV_EXACT_CI, &hits, err)))
            return -1;
        if (s->lay->label != DV_NO_COL && !(s->label_ok = dv_code_map(s, s->lay->label, f->engine, DV_EXACT_CI, &hits, err)))
            return -1;
        if (!hits && !(s->lay->bytes == DV_BYTES_INSTR && dv_is_canonical_engine(f->engine))) {
            nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "unknown engine '%.64s' for kind %s", f->engine,
                         src->adapter->kind);
            nl_error_set_field(err, "engine");
            return -1;
        }
    }
    if (f->opcode_glob) {
        if (!(s->opcode_ok = dv_code_map(s, s->lay->opcode, f->opcode_glob, DV_GLOB_CI, &hits, err)))
            return -1;
        if (s->lay->opcode2 != DV_NO_COL &&
            !(s->compiler_ok = dv_code_map(s, s->lay->opcode2, f->opcode_glob, DV_GLOB_CI, &hits, err)))
            return -1;
    }
    if (f->source && !(s->source_ok = dv_code_map(s, DM_INSTR_SOURCE, f->source, DV_SUBSTRING_CI, &hits, err)))
        return -1;
    if (f->layer && !(s->layer_ok = dv_code_map(s, DM_INSTR_LAYER, f->layer, DV_SUBSTRING_CI, &hits, err)))
        return -1;
    return 0;
}

static int dv_open(const timeline_source *src, const timeline_filter *f, void **state, nl_error *err)
{
    dv_state *s = calloc(1, sizeof *s);
    *state = s;
    if (!s)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (device timeline)");
    s->m = dv_model(src);
    s->lay = dv_layout_of(src);
    s->t = device_model_table_get(s->m, s->lay->table);
    return s->t && f ? dv_resolve(s, src, f, err) : 0;
}

/* Column `col` of rows [base, base + n) into out (0 without the column). */
static void dv_read_column(const dv_state *s, uint32_t col, size_t base, size_t n, table_value *out)
{
    if (col == DV_NO_COL) {
        for (size_t i = 0; i < n; i++)
            out[i].i = 0;
        return;
    }
    table_read(s->t, col, base, n, out);
}

/* The sort value `bytes`: HBM and SBUF reads and writes of an instruction, a transfer's size; a column at a
 * time, as four table_u64 calls per row would decode each cell's segment four times. */
static void dv_read_bytes(const dv_state *s, size_t base, size_t n, const timeline_chunk *out)
{
    static const uint32_t instr[] = {DM_INSTR_HBM_READ, DM_INSTR_HBM_WRITE, DM_INSTR_SBUF_READ, DM_INSTR_SBUF_WRITE};
    table_value *b = out->bytes;
    if (s->lay->bytes == DV_BYTES_NONE) {
        dv_read_column(s, DV_NO_COL, base, n, b);
        return;
    }
    table_read(s->t, s->lay->bytes == DV_BYTES_DMA ? DM_DMA_TRANSFER_SIZE
                     : s->lay->bytes == DV_BYTES_CC ? DM_CCOP_OUTPUT_SIZE : instr[0], base, n, b);
    for (size_t k = 1; s->lay->bytes == DV_BYTES_INSTR && k < sizeof instr / sizeof instr[0]; k++) {
        table_read(s->t, instr[k], base, n, out->scratch);
        for (size_t i = 0; i < n; i++)
            b[i].u += out->scratch[i].u;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t u = b[i].u;
        b[i].i = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    }
}

static void dv_read(void *state, size_t base, size_t n, unsigned fields, const timeline_chunk *out)
{
    const dv_state *s = state;
    if (!s->t)
        return;
    if (fields & (TIMELINE_START | TIMELINE_END))
        table_read(s->t, s->lay->ts, base, n, out->start);
    if (fields & (TIMELINE_END | TIMELINE_DURATION))
        dv_read_column(s, s->lay->dur, base, n, out->duration);
    if (fields & TIMELINE_END)
        for (size_t i = 0; i < n; i++) {
            int64_t st = out->start[i].i, d = out->duration[i].i, e;
            if (d <= 0 || __builtin_add_overflow(st, d, &e))
                e = d <= 0 ? st : INT64_MAX;
            out->end[i].i = e;
        }
    if (fields & TIMELINE_WAIT)
        dv_read_column(s, s->lay->wait, base, n, out->wait);
    if (fields & TIMELINE_BYTES)
        dv_read_bytes(s, base, n, out);
}

/* keep[i] &= ok_a[code a] || ok_b[code b] over the chunk (col_b may be absent). */
static void dv_keep_codes(const dv_state *s, size_t base, size_t n, uint32_t col_a, const uint8_t *ok_a, uint32_t col_b,
                          const uint8_t *ok_b, const timeline_chunk *x, uint8_t *keep)
{
    uint32_t *a = x->codes[0], *b = x->codes[1];
    table_read_codes(s->t, col_a, base, n, a);
    if (ok_b)
        table_read_codes(s->t, col_b, base, n, b);
    for (size_t i = 0; i < n; i++)
        keep[i] &= ok_a[a[i]] | (ok_b ? ok_b[b[i]] : 0);
}

static void dv_match(void *state, timeline_filter_id which, size_t base, size_t n, const timeline_chunk *x,
                     uint8_t *keep)
{
    const dv_state *s = state;
    if (!s->t)
        return;
    switch (which) {
    case TIMELINE_F_ENGINE: dv_keep_codes(s, base, n, s->lay->engine, s->engine_ok, s->lay->label, s->label_ok, x, keep); return;
    case TIMELINE_F_OPCODE:
        dv_keep_codes(s, base, n, s->lay->opcode, s->opcode_ok, s->lay->opcode2, s->compiler_ok, x, keep);
        return;
    case TIMELINE_F_SOURCE: dv_keep_codes(s, base, n, DM_INSTR_SOURCE, s->source_ok, 0, NULL, x, keep); return;
    case TIMELINE_F_LAYER: dv_keep_codes(s, base, n, DM_INSTR_LAYER, s->layer_ok, 0, NULL, x, keep); return;
    default: return;
    }
}

/* ---- accepted engines and hints ----------------------------------------------------------------------- */

static void dv_list_column(name_list *l, const device_model *m, const table *t, uint32_t col)
{
    for (uint32_t code = 0; t && code < table_dict_size(t, col); code++)
        name_list_add(l, device_model_str(m, table_dict_id(t, col, code), NULL));
}

static void dv_engines(const timeline_source *src, char *buf, size_t cap)
{
    const device_model *m = dv_model(src);
    const dv_layout *lay = dv_layout_of(src);
    const table *t = device_model_table_get(m, lay->table);
    name_list l;
    name_list_init(&l, buf, cap, 4, true); /* engine names match case-insensitively */
    if (lay->engine == DV_NO_COL)
        return;
    if (lay->bytes == DV_BYTES_INSTR) {
        for (size_t i = 0; i < DV_CANONICAL_ENGINES; i++)
            name_list_add(&l, dv_canonical_engines[i]);
        dv_list_column(&l, m, t, DM_INSTR_ENGINE);
        dv_list_column(&l, m, t, DM_INSTR_LABEL);
    } else {
        dv_list_column(&l, m, t, lay->engine);
    }
}

/* Whether any instruction carries a source location. */
static bool dv_has_sources(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    for (uint32_t code = 0; t && code < table_dict_size(t, DM_INSTR_SOURCE); code++)
        if (table_dict_id(t, DM_INSTR_SOURCE, code) != 0)
            return true;
    return false;
}

static const char *dv_empty_hint(const timeline_source *src, const timeline_filter *f)
{
    if (f->source && dv_layout_of(src)->bytes == DV_BYTES_INSTR && !dv_has_sources(dv_model(src)))
        return "instructions carry source locations only when compiled with NEURON_FRAMEWORK_DEBUG=1 or NKI debug info";
    return NULL;
}

/* ---- the adapters ------------------------------------------------------------------------------------- */

#define DV_ALL_FILTERS ((1u << TIMELINE_FILTER_COUNT) - 1u)
#define DV_UNITS_TIME "ns from the profile start (metadata.first_hw_timestamp)"

#define DV_ADAPTER(name_, layout_, filters_, sorts_, columns_, cell_, filters_accepted_, sorts_accepted_)     \
    {                                                                                                          \
        .kind = name_, .data = &layout_, .filters = filters_, .sorts = sorts_,                                   \
        .filters_accepted = filters_accepted_, .sorts_accepted = sorts_accepted_,                              \
        .cursor_filters = DV_ALL_FILTERS, .columns = columns_,                                                 \
        .ncolumns = sizeof columns_ / sizeof columns_[0], .unix_time = false, .units_time = DV_UNITS_TIME,      \
        .units_opcode = NULL, .left_out_names = NULL, .nleft_out = 0, .engines_note = "", .rows = dv_rows,      \
        .open = dv_open, .close = dv_close, .read = dv_read, .match = dv_match, .cell = cell_,                 \
        .engines = dv_engines, .empty_hint = dv_empty_hint,                                                    \
    }

const timeline_adapter timeline_instruction =
    DV_ADAPTER("instruction", dv_instr_layout, DV_ALL_FILTERS, (1u << TIMELINE_SORT_COUNT) - 1u, dv_instr_columns,
               dv_instr_cell, "kind instruction accepts every filter", "time, duration, wait, bytes");
const timeline_adapter timeline_dma =
    DV_ADAPTER("dma", dv_dma_layout,
               (1u << TIMELINE_F_ENGINE) | (1u << TIMELINE_F_WINDOW) | (1u << TIMELINE_F_MIN_DURATION) |
                   (1u << TIMELINE_F_MIN_BYTES),
               (1u << TIMELINE_SORT_TIME) | (1u << TIMELINE_SORT_DURATION) | (1u << TIMELINE_SORT_BYTES),
               dv_dma_columns, dv_dma_cell,
               "kind dma accepts engine (queue), start_ns / end_ns, min_duration_ns and min_bytes",
               "time, duration, bytes");
const timeline_adapter timeline_semaphore =
    DV_ADAPTER("semaphore", dv_sem_layout, 1u << TIMELINE_F_WINDOW, 1u << TIMELINE_SORT_TIME, dv_sem_columns,
               dv_sem_cell, "kind semaphore accepts only start_ns / end_ns", "time");
const timeline_adapter timeline_collective =
    DV_ADAPTER("collective", dv_cc_layout,
               (1u << TIMELINE_F_ENGINE) | (1u << TIMELINE_F_OPCODE) | (1u << TIMELINE_F_WINDOW) |
                   (1u << TIMELINE_F_MIN_DURATION) | (1u << TIMELINE_F_MIN_WAIT) | (1u << TIMELINE_F_MIN_BYTES),
               (1u << TIMELINE_SORT_COUNT) - 1u, dv_cc_columns, dv_cc_cell,
               "kind collective accepts engine (trigger engine), opcode (a glob on the operation), start_ns / end_ns, "
               "min_duration_ns, min_wait_ns and min_bytes",
               "time, duration, wait, bytes");
