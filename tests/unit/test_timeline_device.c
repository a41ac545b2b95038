/* Unit tests for the device adapters of the timeline engine (analyzers/analyses/timeline_device.c: kinds
 * instruction, dma, semaphore) on the handcrafted export in analysis_fixture.h: time order, sorts with ties,
 * cursors that resume exactly, windows (overlap, zero-length rows, instants), opcode globs, engine/source/
 * layer filters, per-kind argument errors and their wording, explanations of empty results, projection.
 * Every page is taken twice, ranked by the engine and from a memoized order (timeline_order_build), and must
 * agree; on a generated export both are checked against a sort this file does itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis_fixture.h"
#include "neuron_json.h"
#include "ref_order.h"
#include "timeline_kinds.h"

static device_model *load(const char *doc)
{
    device_model *m = NULL;
    nl_error err;
    if (neuron_json_read_mem(doc, strlen(doc), "fixture.json", NULL, &m, &err))
        fail_msg("fixture does not read: %s (%s)", err.message, err.field);
    return m;
}

#define INSTR (&timeline_instruction)
#define DMA (&timeline_dma)
#define SEM (&timeline_semaphore)

/* A request of one device kind (the adapter), as the cases write it; tl() is the engine's request. */
typedef struct treq {
    const timeline_adapter *kind;
    timeline_filter filter;
    timeline_sort sort;
    size_t limit;
    bool has_after;
    size_t after_row;
} treq;

static treq request(const timeline_adapter *kind, timeline_sort sort, size_t limit)
{
    return (treq){.kind = kind, .sort = sort, .limit = limit};
}

static timeline_request tl(const treq *q, const timeline_order *o)
{
    return (timeline_request){.filter = q->filter, .sort = q->sort, .limit = q->limit, .has_after = q->has_after,
                              .after_row = q->after_row, .order = o};
}

static timeline_source src_of(const device_model *m, const timeline_adapter *kind)
{
    return (timeline_source){kind, m};
}

static int run(const device_model *m, const treq *q, const timeline_order *o, timeline_page *pg, nl_error *err)
{
    timeline_source src = src_of(m, q->kind);
    timeline_request r = tl(q, o);
    return timeline_run(&src, &r, NULL, pg, err);
}

/* The value of column `name` of the kind at `row`. */
static void cell(const device_model *m, const timeline_adapter *kind, const char *name, size_t row, timeline_cell *out)
{
    char scratch[TIMELINE_SCRATCH];
    timeline_source src = src_of(m, kind);
    int col = timeline_column_find(kind, name);
    assert_true(col >= 0);
    timeline_cell_get(&src, col, row, scratch, out);
}

static void engines(const device_model *m, const timeline_adapter *kind, char *buf, size_t cap)
{
    timeline_source src = src_of(m, kind);
    kind->engines(&src, buf, cap);
}

static timeline_order *order_of(const device_model *m, const timeline_adapter *kind, timeline_sort sort)
{
    timeline_order *o = NULL;
    nl_error err;
    timeline_source src = src_of(m, kind);
    if (timeline_order_build(&src, sort, NULL, &o, &err))
        fail_msg("timeline_order_build: %s (%s)", err.message, err.field);
    return o;
}

/* One page through both paths — ranked by the engine itself, and taken from the memoized order — which must
 * agree on every field; returns the first (free with timeline_page_free). */
static timeline_page page_both_ways(const device_model *m, const treq *req, const timeline_order *o)
{
    timeline_page pg, po;
    nl_error err;
    if (run(m, req, NULL, &pg, &err) || run(m, req, o, &po, &err))
        fail_msg("timeline_run: %s (%s)", err.message, err.field);
    assert_false(pg.ordered);
    assert_true(po.ordered);
    assert_int_equal(po.total, pg.total);
    assert_int_equal(po.after_cursor, pg.after_cursor);
    assert_int_equal(po.count, pg.count);
    assert_int_equal(po.more, pg.more);
    for (size_t i = 0; i < pg.count; i++)
        if (po.rows[i] != pg.rows[i])
            fail_msg("page position %zu: ordered row %zu, ranked row %zu", i, po.rows[i], pg.rows[i]);
    timeline_page_free(&po);
    return pg;
}

/* All rows of a request, page by page through the cursor (at most max_pages pages); returns the count, rows
 * in out[]. Every page is checked through both paths (page_both_ways). */
static size_t all_pages_upto(const device_model *m, treq req, size_t max_pages, size_t *out, size_t cap,
                             uint64_t *total)
{
    timeline_order *o = order_of(m, req.kind, req.sort);
    size_t n = 0;
    for (size_t pages = 0; pages < max_pages; pages++) {
        timeline_page pg = page_both_ways(m, &req, o);
        *total = pg.total;
        for (size_t i = 0; i < pg.count && n < cap; i++)
            out[n++] = pg.rows[i];
        bool more = pg.more;
        if (pg.count) {
            req.has_after = true;
            req.after_row = pg.rows[pg.count - 1];
        }
        timeline_page_free(&pg);
        if (!more)
            break;
    }
    timeline_order_free(o);
    return n;
}

static size_t all_pages(const device_model *m, treq req, size_t *out, size_t cap, uint64_t *total)
{
    return all_pages_upto(m, req, SIZE_MAX, out, cap, total);
}

static void expect_rows(const device_model *m, treq req, const size_t *want, size_t nwant)
{
    size_t got[64];
    uint64_t total;
    size_t n = all_pages(m, req, got, 64, &total);
    assert_int_equal(total, nwant);
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < nwant; i++)
        if (got[i] != want[i])
            fail_msg("position %zu: row %zu, expected %zu", i, got[i], want[i]);
}

/* The request fails with `code` (and names `field` when not NULL); returns the message. */
static const char *error_field_with(const device_model *m, const treq *req, const timeline_order *o, nl_error_code code,
                                    const char *field)
{
    static nl_error err;
    timeline_page pg;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(run(m, req, o, &pg, &err), -1);
    assert_int_equal(err.code, code);
    if (field)
        assert_string_equal(err.field, field);
    assert_true(err.message[0] != '\0');
    assert_null(pg.rows);
    return err.message;
}

static const char *error_field(const device_model *m, const treq *req, nl_error_code code, const char *field)
{
    return error_field_with(m, req, NULL, code, field);
}

static void time_order_pages_concatenate_in_row_order(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    treq req = request(INSTR, TIMELINE_SORT_TIME, 3);
    timeline_page pg;
    nl_error err;
    assert_int_equal(run(m, &req, NULL, &pg, &err), 0);
    assert_true(pg.time_ordered_scan);
    assert_int_equal(pg.total, 8);
    assert_int_equal(pg.count, 3);
    assert_true(pg.more);
    timeline_page_free(&pg);
    static const size_t want[] = {0, 1, 2, 3, 4, 5, 6, 7};
    expect_rows(m, req, want, 8);
    device_model_free(m);
}

/* dma timestamps are out of order in the file: time order comes from the heap, ties by row. */
static void time_order_of_unsorted_dma_uses_timestamps(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    treq req = request(DMA, TIMELINE_SORT_TIME, 2);
    static const size_t want[] = {1, 3, 4, 2, 0}; /* 100 (row 1), 100 (row 3), 200, 300, 500 */
    expect_rows(m, req, want, 5);
    req.sort = TIMELINE_SORT_BYTES;
    static const size_t by_bytes[] = {3, 2, 0, 1, 4};
    expect_rows(m, req, by_bytes, 5);
    device_model_free(m);
}

/* duration ties (10 ns: rows 0, 1, 2, 5) keep time order, then row; every page size gives the same list. */
static void duration_ties_are_stable_for_every_page_size(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    static const size_t want[] = {3, 0, 1, 2, 5, 6, 7, 4};
    for (size_t limit = 1; limit <= 9; limit++)
        expect_rows(m, request(INSTR, TIMELINE_SORT_DURATION, limit), want, 8);
    static const size_t by_wait[] = {1, 6, 5, 0, 2, 3, 4, 7};
    expect_rows(m, request(INSTR, TIMELINE_SORT_WAIT, 3), by_wait, 8);
    static const size_t by_bytes[] = {7, 6, 0, 2, 1, 3, 4, 5}; /* 5000, 400, 100, 100, 64, then 0 by time */
    expect_rows(m, request(INSTR, TIMELINE_SORT_BYTES, 4), by_bytes, 8);
    device_model_free(m);
}

static void windows_select_overlapping_rows(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    treq req = request(INSTR, TIMELINE_SORT_TIME, 10);
    req.filter.has_start = req.filter.has_end = true;
    req.filter.start_ns = 25;
    req.filter.end_ns = 35;
    static const size_t a[] = {2, 3};
    expect_rows(m, req, a, 2);
    req.filter.start_ns = 40; /* zero-length NOP at 40 is inside [40, 41) */
    req.filter.end_ns = 41;
    static const size_t b[] = {3, 4};
    expect_rows(m, req, b, 2);
    req.filter.end_ns = 40; /* the instant 40 */
    expect_rows(m, req, b, 2);
    req.filter.start_ns = 10; /* [10, 20): row 0 ends at 10, row 2 starts at 20: only row 1 */
    req.filter.end_ns = 20;
    static const size_t c[] = {1};
    expect_rows(m, req, c, 1);
    req.filter.has_end = false; /* open-ended from 2040 */
    req.filter.start_ns = 2040;
    static const size_t d[] = {6, 7};
    expect_rows(m, req, d, 2);
    device_model_free(m);
}

static void opcode_globs_match_opcode_or_compiler_opcode(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    treq req = request(INSTR, TIMELINE_SORT_TIME, 10);
    req.filter.opcode_glob = "*dma*";
    static const size_t dma[] = {6, 7};
    expect_rows(m, req, dma, 2);
    req.filter.opcode_glob = "MAT?UL";
    static const size_t mm[] = {0, 2, 5};
    expect_rows(m, req, mm, 3);
    req.filter.opcode_glob = "[AN]*";
    static const size_t an[] = {1, 4};
    expect_rows(m, req, an, 2);
    device_model_free(m);
}

static void engine_source_layer_and_minimum_filters(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    treq req = request(INSTR, TIMELINE_SORT_TIME, 10);
    req.filter.engine = "tensor";
    static const size_t tensor[] = {0, 2, 4, 5};
    expect_rows(m, req, tensor, 4);
    req.filter.engine = "TensorMatrix"; /* a label */
    static const size_t tm[] = {5};
    expect_rows(m, req, tm, 1);
    req.filter.engine = NULL;
    req.filter.source = "A.PY";
    static const size_t src[] = {0, 1, 2, 5};
    expect_rows(m, req, src, 4);
    req.filter.layer = "l2";
    static const size_t both[] = {2, 5};
    expect_rows(m, req, both, 2);
    req.filter.source = req.filter.layer = NULL;
    req.filter.min_duration_ns = 10;
    req.filter.min_wait_ns = 1;
    static const size_t mins[] = {1, 5};
    expect_rows(m, req, mins, 2);
    req = request(DMA, TIMELINE_SORT_DURATION, 10);
    req.filter.engine = "qA";
    static const size_t qa[] = {3, 1, 0, 4}; /* 450, then the 20 ns ties by time */
    expect_rows(m, req, qa, 4);
    device_model_free(m);
}

static void semaphore_rows_and_window(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    treq req = request(SEM, TIMELINE_SORT_TIME, 1);
    req.filter.has_start = true;
    req.filter.start_ns = 30;
    static const size_t want[] = {1, 2};
    expect_rows(m, req, want, 2);
    timeline_cell c;
    cell(m, SEM, "semaphore", 2, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_STR);
    assert_string_equal(c.s, "5");
    device_model_free(m);
}

static void filters_matching_nothing_are_explained(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    treq req = request(INSTR, TIMELINE_SORT_TIME, 10);
    req.filter.engine = "gpsimd"; /* a known engine with no rows */
    req.filter.opcode_glob = "MATMUL";
    timeline_page pg;
    nl_error err;
    assert_int_equal(run(m, &req, NULL, &pg, &err), 0);
    assert_int_equal(pg.total, 0);
    assert_int_equal(pg.count, 0);
    assert_false(pg.more);
    assert_non_null(pg.rows);
    timeline_page_free(&pg);
    int64_t counts[TIMELINE_FILTER_COUNT];
    timeline_source src = src_of(m, req.kind);
    timeline_request r = tl(&req, NULL);
    assert_int_equal(timeline_explain(&src, &r, NULL, counts, &err), 0);
    assert_int_equal(counts[TIMELINE_F_ENGINE], 0);
    assert_int_equal(counts[TIMELINE_F_OPCODE], 3);
    assert_int_equal(counts[TIMELINE_F_WINDOW], -1);
    assert_string_equal(timeline_filter_names[TIMELINE_F_OPCODE], "opcode");
    device_model_free(m);
}

static void bad_requests_name_the_argument(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    treq req = request(INSTR, TIMELINE_SORT_TIME, 10);
    req.filter.engine = "pe";
    error_field(m, &req, NL_ERR_ARGUMENT, "engine");
    char list[256];
    engines(m, INSTR, list, sizeof list);
    assert_string_equal(list, "tensor, vector, scalar, gpsimd, sync, TensorMatrix");
    engines(m, DMA, list, sizeof list);
    assert_string_equal(list, "qA, qB");
    engines(m, INSTR, list, 16);
    assert_true(strlen(list) < 16);
    req = request(INSTR, TIMELINE_SORT_TIME, 10);
    req.filter.has_start = req.filter.has_end = true;
    req.filter.start_ns = 50;
    req.filter.end_ns = 40;
    assert_string_equal(error_field(m, &req, NL_ERR_ARGUMENT, "end_ns"), "40 is before start_ns 50. The window is "
                        "[start_ns, end_ns) in ns from the profile start; pass end_ns >= start_ns (equal selects the "
                        "rows active at that instant)");
    req = request(INSTR, TIMELINE_SORT_TIME, TIMELINE_LIMIT_MAX + 1);
    error_field(m, &req, NL_ERR_ARGUMENT, "max_rows");
    req = request(INSTR, TIMELINE_SORT_TIME, 10);
    req.has_after = true;
    req.after_row = 8;
    assert_string_equal(error_field(m, &req, NL_ERR_ARGUMENT, "cursor"),
                        "the cursor points at row 8, which is not a instruction row (the table has 8 rows)");
    req = request(DMA, TIMELINE_SORT_TIME, 10);
    req.filter.opcode_glob = "X";
    assert_string_equal(error_field(m, &req, NL_ERR_ARGUMENT, "opcode"), "opcode does not apply to kind dma; kind dma "
                        "accepts engine (queue), start_ns / end_ns, min_duration_ns and min_bytes");
    req = request(DMA, TIMELINE_SORT_WAIT, 10);
    assert_string_equal(error_field(m, &req, NL_ERR_ARGUMENT, "sort"), "sort wait is not available for kind dma; "
                        "accepted: time, duration, bytes");
    req = request(SEM, TIMELINE_SORT_TIME, 10);
    req.filter.engine = "tensor";
    error_field(m, &req, NL_ERR_ARGUMENT, "engine");
    req = request(INSTR, TIMELINE_SORT_TIME, 10);
    req.filter.source = "";
    assert_string_equal(error_field(m, &req, NL_ERR_ARGUMENT, "source"),
                        "source must not be empty (omit it to match every row)");
    req = request(DMA, TIMELINE_SORT_TIME, 10);
    req.filter.engine = "qZ";
    assert_string_equal(error_field(m, &req, NL_ERR_ARGUMENT, "engine"), "unknown engine 'qZ' for kind dma");
    req = request(SEM, TIMELINE_SORT_TIME, 10);
    req.filter.min_wait_ns = 0; /* 0 = not set: no kind refuses it */
    req.filter.min_duration_ns = 0;
    timeline_page pg;
    nl_error err;
    assert_int_equal(run(m, &req, NULL, &pg, &err), 0);
    timeline_page_free(&pg);
    device_model_free(m);
}

static void projection_reads_typed_cells(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    timeline_cell c;
    cell(m, INSTR, "end_ns", 5, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_INT);
    assert_int_equal(c.i, 2040);
    cell(m, INSTR, "layer", 3, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_NULL);
    cell(m, INSTR, "dma_trigger", 7, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_BOOL);
    assert_int_equal(c.i, 1);
    cell(m, INSTR, "id", 0, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_ID);
    assert_int_equal(c.u, 1000);
    cell(m, DMA, "queue", 2, &c);
    assert_string_equal(c.s, "qB");
    cell(m, DMA, "aggregated", 3, &c);
    assert_int_equal(c.i, 1);
    assert_int_equal(timeline_column_find(DMA, "opcode"), -1);
    assert_true(INSTR->ncolumns > 20);
    assert_string_equal(INSTR->columns[0].name, "row");
    device_model_free(m);
}

/* ---- memoized orders against a reference sort ------------------------------------------------------------
 *
 * A generated export (seeded, so a failure reproduces): instructions out of time order in places, with value
 * ties; DMA transfers whose timestamps span 2^45 ns and sizes 2^30 B (together wider than 64 bits); semaphore
 * updates. Every kind × sort × filter is paged through the cursor at several page sizes, through both paths,
 * and compared with the rows this file filters and sorts itself from the generator's values. */

#define GEN_INSTR 3000
#define GEN_DMA 2000
#define GEN_SEM 600

static const char *const gen_engines[] = {"Tensor", "Vector", "Scalar", "GpSimd"};
static const char *const gen_opcodes[] = {"MATMUL", "ACTIVATE", "COPY", "EVENT_SEMAPHORE", "NOP"};
static const char *const gen_queues[] = {"qA-Q1-E0", "qB-Q2-E1", "qSync"};

typedef struct gen_row {
    int64_t ts, dur, wait;
    uint64_t bytes;
    const char *engine, *label, *opcode, *compiler, *source, *layer;
} gen_row;

typedef struct gen_export {
    gen_row instr[GEN_INSTR], dma[GEN_DMA], sem[GEN_SEM];
    char *json;
    size_t len, cap;
} gen_export;

static uint64_t gen_rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void gen_put(gen_export *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gen_put(gen_export *g, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(g->json + g->len, g->cap - g->len, fmt, ap);
        va_end(ap);
        assert_true(w >= 0);
        if ((size_t)w < g->cap - g->len) {
            g->len += (size_t)w;
            return;
        }
        g->cap = g->cap * 2 + (size_t)w;
        g->json = realloc(g->json, g->cap);
        assert_non_null(g->json);
    }
}

static void gen_instruction(gen_export *g, uint64_t *s, size_t i)
{
    gen_row *r = &g->instr[i];
    int64_t prev = i ? g->instr[i - 1].ts : 0;
    r->ts = i % 97 == 50 ? prev - (int64_t)(gen_rnd(s) % 500) : prev + (int64_t)(gen_rnd(s) % 4); /* dips, ties */
    if (r->ts < 0)
        r->ts = 0;
    r->dur = (int64_t)(gen_rnd(s) % 8 == 0 ? gen_rnd(s) % 100000 : gen_rnd(s) % 16);
    r->wait = gen_rnd(s) % 100 == 0 ? (int64_t)(1 + gen_rnd(s) % 5000) : 0; /* sparse */
    r->engine = gen_engines[gen_rnd(s) % 4];
    r->label = i % 13 == 0 ? "TensorMatrix" : r->engine;
    r->opcode = gen_opcodes[gen_rnd(s) % 5];
    r->compiler = i % 11 == 0 ? "PSEUDO_DMA_TRIGGER" : "";
    r->source = i % 3 ? (i % 2 ? "kernels/attn.py:12" : "kernels/mlp.py:40") : "";
    r->layer = i % 5 ? (i % 7 ? "decoder.L1" : "decoder.L2") : "";
    uint64_t parts[4] = {gen_rnd(s) % 3 ? 0 : gen_rnd(s) % 9000, gen_rnd(s) % 4 ? 0 : 4096, gen_rnd(s) % 5 ? 0 : 64, 0};
    r->bytes = parts[0] + parts[1] + parts[2] + parts[3];
    gen_put(g, "%s{\"timestamp\":%lld,\"duration\":%lld,\"evt_wait_time\":%lld,\"subgroup\":\"%s\",\"label\":\"%s\","
            "\"opcode\":\"%s\",\"id\":%zu,\"hbm_read_bytes\":%llu,\"hbm_write_bytes\":%llu,\"sbuf_read_bytes\":%llu,"
            "\"sbuf_write_bytes\":%llu", i ? "," : "", (long long)r->ts, (long long)r->dur, (long long)r->wait,
            r->engine, r->label, r->opcode, i, (unsigned long long)parts[0], (unsigned long long)parts[1],
            (unsigned long long)parts[2], (unsigned long long)parts[3]);
    if (*r->compiler)
        gen_put(g, ",\"compiler_opcode\":\"%s\"", r->compiler);
    if (*r->source)
        gen_put(g, ",\"nki_source_location\":\"%s\"", r->source);
    if (*r->layer)
        gen_put(g, ",\"layer\":\"%s\"", r->layer);
    gen_put(g, "}");
}

static void gen_dma(gen_export *g, uint64_t *s, size_t i)
{
    gen_row *r = &g->dma[i];
    r->ts = (int64_t)(gen_rnd(s) % ((uint64_t)1 << 45));
    if (i % 50 == 7)
        r->ts = g->dma[i - 1].ts; /* timestamp ties */
    r->dur = (int64_t)(gen_rnd(s) % 3000);
    r->bytes = i % 9 == 0 ? 4096 : gen_rnd(s) % ((uint64_t)1 << 30);
    r->engine = r->label = gen_queues[gen_rnd(s) % 3];
    gen_put(g, "%s{\"timestamp\":%lld,\"duration\":%lld,\"transfer_size\":%llu,\"subgroup\":\"%s\",\"queue_type\":"
            "\"data\",\"variable\":\"w\",\"aggregated\":\"no\",\"id\":%zu}", i ? "," : "", (long long)r->ts,
            (long long)r->dur, (unsigned long long)r->bytes, r->engine, 100000 + i);
}

static gen_export *gen_new(void)
{
    gen_export *g = calloc(1, sizeof *g);
    assert_non_null(g);
    uint64_t s = 0x2545f4914f6cdd1dull;
    gen_put(g, "{\"metadata\":[{\"first_hw_timestamp\":0}],\"instruction\":[");
    for (size_t i = 0; i < GEN_INSTR; i++)
        gen_instruction(g, &s, i);
    gen_put(g, "],\"dma\":[");
    for (size_t i = 0; i < GEN_DMA; i++)
        gen_dma(g, &s, i);
    gen_put(g, "],\"semaphore_update\":[");
    for (size_t i = 0; i < GEN_SEM; i++) {
        g->sem[i].ts = (int64_t)(gen_rnd(&s) % 100000);
        gen_put(g, "%s{\"id\":\"%zu\",\"value\":%zu,\"timestamp\":%lld}", i ? "," : "", i % 4, i, (long long)g->sem[i].ts);
    }
    gen_put(g, "]}");
    return g;
}

static bool gen_window(const timeline_filter *f, int64_t s, int64_t dur)
{
    int64_t a = f->has_start ? f->start_ns : INT64_MIN, b = f->has_end ? f->end_ns : INT64_MAX;
    int64_t e = dur > 0 ? s + dur : s;
    if (a == b)
        return s <= a && (e > a || s == a);
    return s < b && (e > a || (e == s && s >= a));
}

static bool gen_glob(const char *glob, const char *s)
{
    return *s && !fnmatch(glob, s, FNM_CASEFOLD);
}

/* The filters as timeline_kinds.h words them, on the generator's values. */
static bool gen_matches(const gen_row *r, const timeline_filter *f)
{
    if (f->engine && strcasecmp(f->engine, r->engine) && strcasecmp(f->engine, r->label))
        return false;
    if (f->opcode_glob && !gen_glob(f->opcode_glob, r->opcode) && !gen_glob(f->opcode_glob, r->compiler))
        return false;
    if ((f->has_start || f->has_end) && !gen_window(f, r->ts, r->dur))
        return false;
    if (f->source && !(*r->source && strcasestr(r->source, f->source)))
        return false;
    if (f->layer && !(*r->layer && strcasestr(r->layer, f->layer)))
        return false;
    return r->dur >= f->min_duration_ns && r->wait >= f->min_wait_ns;
}

/* The rows a request must return, in order; returns their count. */
static size_t gen_reference(const gen_export *g, const treq *req, size_t *out)
{
    const gen_row *rows = req->kind == INSTR ? g->instr : req->kind == DMA ? g->dma : g->sem;
    size_t n = req->kind == INSTR ? GEN_INSTR : req->kind == DMA ? GEN_DMA : GEN_SEM, k = 0;
    gen_key *keys = malloc(n * sizeof *keys);
    assert_non_null(keys);
    for (size_t r = 0; r < n; r++) {
        if (!gen_matches(&rows[r], &req->filter))
            continue;
        int64_t v = req->sort == TIMELINE_SORT_DURATION ? rows[r].dur : req->sort == TIMELINE_SORT_WAIT ? rows[r].wait
                  : req->sort == TIMELINE_SORT_BYTES ? (int64_t)rows[r].bytes : 0;
        keys[k++] = (gen_key){v, rows[r].ts, r};
    }
    qsort(keys, k, sizeof *keys, gen_key_cmp);
    for (size_t i = 0; i < k; i++)
        out[i] = keys[i].row;
    free(keys);
    return k;
}

static void expect_reference_pages(const device_model *m, const gen_export *g, treq req)
{
    static size_t want[GEN_INSTR], got[GEN_INSTR];
    size_t nwant = gen_reference(g, &req, want);
    const size_t limits[] = {1, 37, TIMELINE_LIMIT_MAX};
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
        req.limit = limits[l];
        size_t max_pages = limits[l] == 1 ? 40 : SIZE_MAX; /* one row a page: the first 40 are enough */
        uint64_t total = 0;
        size_t n = all_pages_upto(m, req, max_pages, got, GEN_INSTR, &total);
        assert_int_equal(total, nwant);
        assert_int_equal(n, limits[l] == 1 && nwant > 40 ? 40 : nwant);
        for (size_t i = 0; i < n; i++)
            if (got[i] != want[i])
                fail_msg("%s by %s, page size %zu, position %zu: row %zu, expected %zu", req.kind->kind,
                         timeline_sort_name(req.sort), limits[l], i, got[i], want[i]);
    }
}

static void memoized_orders_page_like_a_reference_sort(void **state)
{
    (void)state;
    gen_export *g = gen_new();
    device_model *m = NULL;
    nl_error err;
    if (neuron_json_read_mem(g->json, g->len, "generated.json", NULL, &m, &err))
        fail_msg("generated export does not read: %s (%s)", err.message, err.field);
    const timeline_sort instr_sorts[] = {TIMELINE_SORT_TIME, TIMELINE_SORT_DURATION, TIMELINE_SORT_WAIT, TIMELINE_SORT_BYTES};
    timeline_filter filters[] = {
        {0},
        {.engine = "tensor"},                                      /* dense: walks the order */
        {.engine = "TensorMatrix"},                                /* a label, 1 row in 13 */
        {.opcode_glob = "*dma*"},                                  /* compiler opcodes */
        {.opcode_glob = "MAT?UL", .source = "ATTN", .layer = "l1"},
        {.has_start = true, .has_end = true, .start_ns = 900, .end_ns = 2500},
        {.has_start = true, .has_end = true, .start_ns = 1500, .end_ns = 1500},
        {.min_duration_ns = 50000},
        {.min_wait_ns = 1},                                        /* sparse: ranks its matches itself */
        {.engine = "vector", .min_duration_ns = 1, .has_start = true, .start_ns = 3000},
    };
    for (size_t s = 0; s < sizeof instr_sorts / sizeof instr_sorts[0]; s++)
        for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++) {
            treq req = request(INSTR, instr_sorts[s], 1);
            req.filter = filters[f];
            expect_reference_pages(m, g, req);
        }
    const timeline_sort dma_sorts[] = {TIMELINE_SORT_TIME, TIMELINE_SORT_DURATION, TIMELINE_SORT_BYTES};
    const timeline_filter dma_filters[] = {{0}, {.engine = "qSync"}, {.min_duration_ns = 2990},
                                          {.has_start = true, .start_ns = (int64_t)1 << 44}};
    for (size_t s = 0; s < sizeof dma_sorts / sizeof dma_sorts[0]; s++)
        for (size_t f = 0; f < sizeof dma_filters / sizeof dma_filters[0]; f++) {
            treq req = request(DMA, dma_sorts[s], 1);
            req.filter = dma_filters[f];
            expect_reference_pages(m, g, req);
        }
    treq sem = request(SEM, TIMELINE_SORT_TIME, 1);
    expect_reference_pages(m, g, sem);
    sem.filter.has_start = sem.filter.has_end = true;
    sem.filter.start_ns = 20000;
    sem.filter.end_ns = 30000;
    expect_reference_pages(m, g, sem);
    device_model_free(m);
    free(g->json);
    free(g);
}

/* What the memos cost: 4 bytes per row for an order that sorts, next to nothing for a table already in order. */
static void an_order_costs_four_bytes_a_row_unless_the_table_is_in_order(void **state)
{
    (void)state;
    gen_export *g = gen_new();
    device_model *m = NULL;
    nl_error err;
    if (neuron_json_read_mem(g->json, g->len, "generated.json", NULL, &m, &err))
        fail_msg("generated export does not read: %s (%s)", err.message, err.field);
    timeline_order *o = order_of(m, INSTR, TIMELINE_SORT_DURATION);
    assert_true(timeline_order_bytes(o) >= GEN_INSTR * sizeof(uint32_t));
    assert_true(timeline_order_bytes(o) < GEN_INSTR * sizeof(uint32_t) + 128);
    timeline_order_free(o);
    device_model *ordered = load(fixture_export); /* instructions in time order */
    o = order_of(ordered, INSTR, TIMELINE_SORT_TIME);
    assert_true(timeline_order_bytes(o) < 128);
    timeline_order_free(o);
    device_model_free(ordered);
    device_model_free(m);
    free(g->json);
    free(g);
}

static void an_order_answers_only_the_request_it_was_built_for(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    timeline_order *o = order_of(m, INSTR, TIMELINE_SORT_DURATION);
    treq req = request(INSTR, TIMELINE_SORT_WAIT, 5);
    error_field_with(m, &req, o, NL_ERR_INTERNAL, NULL);
    req = request(DMA, TIMELINE_SORT_DURATION, 5);
    error_field_with(m, &req, o, NL_ERR_INTERNAL, NULL);
    timeline_order_free(o);
    timeline_order *bad = (timeline_order *)m;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    timeline_source dma = src_of(m, DMA), sem = src_of(m, SEM);
    assert_int_equal(timeline_order_build(&dma, TIMELINE_SORT_WAIT, NULL, &bad, &err), -1);
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    assert_string_equal(err.field, "sort");
    assert_null(bad);
    assert_int_equal(timeline_order_build(&sem, TIMELINE_SORT_DURATION, NULL, &bad, &err), -1);
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    atomic_int cancel = 1;
    assert_int_equal(timeline_order_build(&dma, TIMELINE_SORT_BYTES, &cancel, &bad, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    device_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(time_order_pages_concatenate_in_row_order),
        cmocka_unit_test(time_order_of_unsorted_dma_uses_timestamps),
        cmocka_unit_test(duration_ties_are_stable_for_every_page_size),
        cmocka_unit_test(windows_select_overlapping_rows),
        cmocka_unit_test(opcode_globs_match_opcode_or_compiler_opcode),
        cmocka_unit_test(engine_source_layer_and_minimum_filters),
        cmocka_unit_test(semaphore_rows_and_window),
        cmocka_unit_test(filters_matching_nothing_are_explained),
        cmocka_unit_test(bad_requests_name_the_argument),
        cmocka_unit_test(projection_reads_typed_cells),
        cmocka_unit_test(memoized_orders_page_like_a_reference_sort),
        cmocka_unit_test(an_order_costs_four_bytes_a_row_unless_the_table_is_in_order),
        cmocka_unit_test(an_order_answers_only_the_request_it_was_built_for),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
