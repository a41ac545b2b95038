/* Unit tests for analyzers/analyses/extract on the handcrafted export in analysis_fixture.h: time order,
 * sorts with ties, cursors that resume exactly, windows (overlap, zero-length rows, instants), opcode globs,
 * engine/source/layer filters, per-kind argument errors, explanations of empty results, projection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analysis_fixture.h"
#include "extract.h"
#include "neuron_json.h"

static device_model *load(const char *doc)
{
    device_model *m = NULL;
    nl_error err;
    if (neuron_json_read_mem(doc, strlen(doc), "fixture.json", NULL, &m, &err))
        fail_msg("fixture does not read: %s (%s)", err.message, err.field);
    return m;
}

static extract_request request(extract_kind kind, extract_sort sort, size_t limit)
{
    return (extract_request){.kind = kind, .sort = sort, .limit = limit};
}

/* All rows of a request, page by page through the cursor; returns the count, rows in out[]. */
static size_t all_pages(const device_model *m, extract_request req, size_t *out, size_t cap, uint64_t *total)
{
    size_t n = 0;
    for (;;) {
        extract_page pg;
        nl_error err;
        if (extract_run(m, &req, NULL, &pg, &err))
            fail_msg("extract_run: %s (%s)", err.message, err.field);
        *total = pg.total;
        for (size_t i = 0; i < pg.count && n < cap; i++)
            out[n++] = pg.rows[i];
        bool more = pg.more;
        if (pg.count) {
            req.has_after = true;
            req.after_row = pg.rows[pg.count - 1];
        }
        extract_page_free(&pg);
        if (!more)
            return n;
    }
}

static void expect_rows(const device_model *m, extract_request req, const size_t *want, size_t nwant)
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

static void error_field(const device_model *m, const extract_request *req, nl_error_code code, const char *field)
{
    extract_page pg;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(extract_run(m, req, NULL, &pg, &err), -1);
    assert_int_equal(err.code, code);
    if (field)
        assert_string_equal(err.field, field);
    assert_true(err.message[0] != '\0');
    assert_null(pg.rows);
}

static void time_order_pages_concatenate_in_row_order(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    extract_request req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, 3);
    extract_page pg;
    nl_error err;
    assert_int_equal(extract_run(m, &req, NULL, &pg, &err), 0);
    assert_true(pg.time_ordered_scan);
    assert_int_equal(pg.total, 8);
    assert_int_equal(pg.count, 3);
    assert_true(pg.more);
    extract_page_free(&pg);
    static const size_t want[] = {0, 1, 2, 3, 4, 5, 6, 7};
    expect_rows(m, req, want, 8);
    device_model_free(m);
}

/* dma timestamps are out of order in the file: time order comes from the heap, ties by row. */
static void time_order_of_unsorted_dma_uses_timestamps(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    extract_request req = request(EXTRACT_DMA, EXTRACT_SORT_TIME, 2);
    static const size_t want[] = {1, 3, 4, 2, 0}; /* 100 (row 1), 100 (row 3), 200, 300, 500 */
    expect_rows(m, req, want, 5);
    req.sort = EXTRACT_SORT_BYTES;
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
        expect_rows(m, request(EXTRACT_INSTRUCTION, EXTRACT_SORT_DURATION, limit), want, 8);
    static const size_t by_wait[] = {1, 6, 5, 0, 2, 3, 4, 7};
    expect_rows(m, request(EXTRACT_INSTRUCTION, EXTRACT_SORT_WAIT, 3), by_wait, 8);
    static const size_t by_bytes[] = {7, 6, 0, 2, 1, 3, 4, 5}; /* 5000, 400, 100, 100, 64, then 0 by time */
    expect_rows(m, request(EXTRACT_INSTRUCTION, EXTRACT_SORT_BYTES, 4), by_bytes, 8);
    device_model_free(m);
}

static void windows_select_overlapping_rows(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    extract_request req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, 10);
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
    extract_request req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, 10);
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
    extract_request req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, 10);
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
    req = request(EXTRACT_DMA, EXTRACT_SORT_DURATION, 10);
    req.filter.engine = "qA";
    static const size_t qa[] = {3, 1, 0, 4}; /* 450, then the 20 ns ties by time */
    expect_rows(m, req, qa, 4);
    device_model_free(m);
}

static void semaphore_rows_and_window(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    extract_request req = request(EXTRACT_SEMAPHORE, EXTRACT_SORT_TIME, 1);
    req.filter.has_start = true;
    req.filter.start_ns = 30;
    static const size_t want[] = {1, 2};
    expect_rows(m, req, want, 2);
    extract_cell c;
    extract_cell_get(m, EXTRACT_SEMAPHORE, extract_column_find(EXTRACT_SEMAPHORE, "semaphore"), 2, &c);
    assert_int_equal(c.kind, EXTRACT_CELL_STR);
    assert_string_equal(c.s, "5");
    device_model_free(m);
}

static void filters_matching_nothing_are_explained(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    extract_request req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, 10);
    req.filter.engine = "gpsimd"; /* a known engine with no rows */
    req.filter.opcode_glob = "MATMUL";
    extract_page pg;
    nl_error err;
    assert_int_equal(extract_run(m, &req, NULL, &pg, &err), 0);
    assert_int_equal(pg.total, 0);
    assert_int_equal(pg.count, 0);
    assert_false(pg.more);
    assert_non_null(pg.rows);
    extract_page_free(&pg);
    int64_t counts[EXTRACT_FILTER_COUNT];
    assert_int_equal(extract_explain(m, &req, NULL, counts, &err), 0);
    assert_int_equal(counts[EXTRACT_F_ENGINE], 0);
    assert_int_equal(counts[EXTRACT_F_OPCODE], 3);
    assert_int_equal(counts[EXTRACT_F_WINDOW], -1);
    assert_string_equal(extract_filter_names[EXTRACT_F_OPCODE], "opcode");
    device_model_free(m);
}

static void bad_requests_name_the_argument(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    extract_request req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, 10);
    req.filter.engine = "pe";
    error_field(m, &req, NL_ERR_ARGUMENT, "engine");
    char list[256];
    extract_engines(m, EXTRACT_INSTRUCTION, list, sizeof list);
    assert_string_equal(list, "tensor, vector, scalar, gpsimd, sync, TensorMatrix");
    extract_engines(m, EXTRACT_DMA, list, sizeof list);
    assert_string_equal(list, "qA, qB");
    extract_engines(m, EXTRACT_INSTRUCTION, list, 16);
    assert_true(strlen(list) < 16);
    req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, 10);
    req.filter.has_start = req.filter.has_end = true;
    req.filter.start_ns = 50;
    req.filter.end_ns = 40;
    error_field(m, &req, NL_ERR_ARGUMENT, "end_ns");
    req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, EXTRACT_LIMIT_MAX + 1);
    error_field(m, &req, NL_ERR_ARGUMENT, "max_rows");
    req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, 10);
    req.has_after = true;
    req.after_row = 8;
    error_field(m, &req, NL_ERR_ARGUMENT, "cursor");
    req = request(EXTRACT_DMA, EXTRACT_SORT_TIME, 10);
    req.filter.opcode_glob = "X";
    error_field(m, &req, NL_ERR_ARGUMENT, "opcode");
    req = request(EXTRACT_DMA, EXTRACT_SORT_WAIT, 10);
    error_field(m, &req, NL_ERR_ARGUMENT, "sort");
    req = request(EXTRACT_SEMAPHORE, EXTRACT_SORT_TIME, 10);
    req.filter.engine = "tensor";
    error_field(m, &req, NL_ERR_ARGUMENT, "engine");
    req = request(EXTRACT_INSTRUCTION, EXTRACT_SORT_TIME, 10);
    req.filter.source = "";
    error_field(m, &req, NL_ERR_ARGUMENT, "source");
    req = request(EXTRACT_COLLECTIVE, EXTRACT_SORT_TIME, 10);
    error_field(m, &req, NL_ERR_UNSUPPORTED, NULL);
    device_model_free(m);
}

static void projection_reads_typed_cells(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    extract_cell c;
    extract_cell_get(m, EXTRACT_INSTRUCTION, extract_column_find(EXTRACT_INSTRUCTION, "end_ns"), 5, &c);
    assert_int_equal(c.kind, EXTRACT_CELL_INT);
    assert_int_equal(c.i, 2040);
    extract_cell_get(m, EXTRACT_INSTRUCTION, extract_column_find(EXTRACT_INSTRUCTION, "layer"), 3, &c);
    assert_int_equal(c.kind, EXTRACT_CELL_NULL);
    extract_cell_get(m, EXTRACT_INSTRUCTION, extract_column_find(EXTRACT_INSTRUCTION, "dma_trigger"), 7, &c);
    assert_int_equal(c.kind, EXTRACT_CELL_BOOL);
    assert_int_equal(c.i, 1);
    extract_cell_get(m, EXTRACT_INSTRUCTION, extract_column_find(EXTRACT_INSTRUCTION, "id"), 0, &c);
    assert_int_equal(c.kind, EXTRACT_CELL_ID);
    assert_int_equal(c.u, 1000);
    extract_cell_get(m, EXTRACT_DMA, extract_column_find(EXTRACT_DMA, "queue"), 2, &c);
    assert_string_equal(c.s, "qB");
    extract_cell_get(m, EXTRACT_DMA, extract_column_find(EXTRACT_DMA, "aggregated"), 3, &c);
    assert_int_equal(c.i, 1);
    assert_int_equal(extract_column_find(EXTRACT_DMA, "opcode"), -1);
    size_t n;
    const extract_column *cols = extract_columns(EXTRACT_INSTRUCTION, &n);
    assert_true(n > 20);
    assert_string_equal(cols[0].name, "row");
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
