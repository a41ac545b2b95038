/* Unit tests for the timeline engine itself (analyzers/analyses/timeline.c) over a toy adapter that keeps its
 * rows in arrays: the one window rule on every row shape, the one argument check and its wording, rows left
 * out (never a row, counted by reason, refused as a cursor), the three page paths (in row order, ranked,
 * from an order) against rankings worked out by hand, explanations, counts, cancellation, and that the
 * adapter's state is closed on every path. The device, system and framework adapters have their own tests
 * (test_timeline_device.c, test_timeline_host.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

/* ---- the toy adapter -------------------------------------------------------------------------------- */

#define TOY_MAX 16

typedef struct toy_row {
    int64_t start, end, wait, bytes;
    uint8_t why;          /* left-out reason, 0 = a timeline row */
    const char *name, *lane;
} toy_row;

typedef struct toy_model {
    size_t rows;
    toy_row row[TOY_MAX];
    int opened, closed;   /* adapter states opened and closed */
} toy_model;

typedef struct toy_state {
    toy_model *m;
    const timeline_filter *f;
} toy_state;

static size_t toy_rows(const timeline_source *src)
{
    return ((const toy_model *)src->model)->rows;
}

static int toy_open(const timeline_source *src, const timeline_filter *f, void **state, nl_error *err)
{
    toy_model *m = (toy_model *)src->model;
    toy_state *s = calloc(1, sizeof *s);
    *state = s;
    assert_non_null(s);
    m->opened++;
    s->m = m;
    s->f = f;
    if (f && f->engine && !strcmp(f->engine, "nowhere")) {
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "no lane is 'nowhere'");
        nl_error_set_field(err, "engine");
        return -1;
    }
    return 0;
}

static void toy_close(void *state)
{
    toy_state *s = state;
    if (!s)
        return;
    s->m->closed++;
    free(s);
}

static void toy_read(void *state, size_t base, size_t n, unsigned fields, const timeline_chunk *out)
{
    const toy_state *s = state;
    for (size_t i = 0; i < n; i++) {
        const toy_row *r = &s->m->row[base + i];
        if (fields & TIMELINE_START)
            out->start[i].i = r->start;
        if (fields & TIMELINE_END)
            out->end[i].i = r->end;
        if (fields & TIMELINE_DURATION)
            out->duration[i].i = r->end - r->start;
        if (fields & TIMELINE_WAIT)
            out->wait[i].i = r->wait;
        if (fields & TIMELINE_BYTES)
            out->bytes[i].i = r->bytes;
        if (fields & TIMELINE_LEFT_OUT)
            out->left_out[i] = r->why;
    }
}

static void toy_match(void *state, timeline_filter_id which, size_t base, size_t n, const timeline_chunk *x,
                      uint8_t *keep)
{
    (void)x;
    const toy_state *s = state;
    for (size_t i = 0; i < n; i++) {
        const toy_row *r = &s->m->row[base + i];
        if (which == TIMELINE_F_OPCODE)
            keep[i] &= !fnmatch(s->f->opcode_glob, r->name, FNM_CASEFOLD);
        else if (which == TIMELINE_F_ENGINE)
            keep[i] &= !strcmp(s->f->engine, r->lane);
    }
}

static const timeline_column toy_columns[] = {{"row", "row", true}, {"name", "name", true}};

static void toy_cell(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out)
{
    (void)scratch;
    if (col == 0)
        timeline_cell_uint(out, TIMELINE_CELL_UINT, row);
    else
        timeline_cell_str(out, ((const toy_model *)src->model)->row[row].name);
}

static void toy_engines(const timeline_source *src, char *buf, size_t cap)
{
    (void)src;
    snprintf(buf, cap, "a, b");
}

static const char *const toy_reasons[] = {"metadata", "untimed"};

static const timeline_adapter toy = {
    .kind = "toy",
    .filters = (1u << TIMELINE_F_ENGINE) | (1u << TIMELINE_F_OPCODE) | (1u << TIMELINE_F_WINDOW) |
               (1u << TIMELINE_F_MIN_DURATION) | (1u << TIMELINE_F_MIN_WAIT),
    .sorts = (1u << TIMELINE_SORT_TIME) | (1u << TIMELINE_SORT_DURATION) | (1u << TIMELINE_SORT_BYTES),
    .filters_accepted = "kind toy accepts everything but source and layer",
    .sorts_accepted = "time, duration, bytes",
    .columns = toy_columns,
    .ncolumns = 2,
    .unix_time = true,
    .units_time = "toy ns",
    .left_out_names = toy_reasons,
    .nleft_out = 2,
    .engines_note = "",
    .rows = toy_rows,
    .open = toy_open,
    .close = toy_close,
    .read = toy_read,
    .match = toy_match,
    .cell = toy_cell,
    .engines = toy_engines,
};

/* The same adapter with every row a timeline row and times from the profile start. */
static timeline_adapter toy_plain(void)
{
    timeline_adapter a = toy;
    a.kind = "plain";
    a.nleft_out = 0;
    a.unix_time = false;
    return a;
}

/* Rows 0-7 (start, end): instant at 10, [10,20), [15,15) left out (metadata), [20,40), instant at 40, [30,35),
 * [50,INT64_MAX) (ends at the saturation), [5,60) untimed (left out). */
static toy_model toy_model_new(void)
{
    toy_model m = {.rows = 8, .row = {
        {10, 10, 0, 0, 0, "mark", "a"},
        {10, 20, 3, 100, 0, "MATMUL", "a"},
        {15, 15, 0, 0, 1, "meta", "a"},
        {20, 40, 0, 500, 0, "matmul", "b"},
        {40, 40, 7, 0, 0, "mark", "b"},
        {30, 35, 0, 100, 0, "copy", "a"},
        {50, INT64_MAX, 0, 0, 0, "open", "b"},
        {5, 60, 0, 0, 2, "untimed", "a"},
    }};
    return m;
}

static timeline_request req_of(timeline_sort sort, size_t limit)
{
    return (timeline_request){.sort = sort, .limit = limit};
}

/* Every row of a request page by page through the cursor; returns the count. */
static size_t pages(const timeline_source *src, timeline_request req, const timeline_order *o, size_t *out)
{
    size_t n = 0;
    req.order = o;
    for (int guard = 0; guard < 32; guard++) {
        timeline_page pg;
        nl_error err;
        if (timeline_run(src, &req, NULL, &pg, &err))
            fail_msg("timeline_run: %s (%s)", err.message, err.field);
        assert_int_equal(pg.ordered, o != NULL);
        for (size_t i = 0; i < pg.count; i++)
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
    return n;
}

/* The request's rows through the scan and through an order of its sort, page sizes 1 and 3: must be want. */
static void expect(const timeline_source *src, timeline_request req, const size_t *want, size_t nwant)
{
    timeline_order *o = NULL;
    nl_error err;
    if (timeline_order_build(src, req.sort, NULL, &o, &err))
        fail_msg("timeline_order_build: %s", err.message);
    const size_t limits[] = {1, 3};
    for (size_t l = 0; l < 2; l++)
        for (int with = 0; with < 2; with++) {
            size_t got[TOY_MAX];
            req.limit = limits[l];
            size_t n = pages(src, req, with ? o : NULL, got);
            assert_int_equal(n, nwant);
            for (size_t i = 0; i < n; i++)
                if (got[i] != want[i])
                    fail_msg("limit %zu, %s: position %zu row %zu, expected %zu", limits[l], with ? "order" : "scan", i,
                             got[i], want[i]);
        }
    timeline_order_free(o);
}

/* ---- cases -------------------------------------------------------------------------------------------- */

static void the_window_rule_holds_for_spans_instants_and_saturated_ends(void **state)
{
    (void)state;
    toy_model m = toy_model_new();
    timeline_source src = {&toy, &m};
    timeline_request req = req_of(TIMELINE_SORT_TIME, 3);
    req.filter.has_start = req.filter.has_end = true;
    const struct { int64_t a, b; size_t n; size_t rows[8]; } cases[] = {
        {10, 20, 2, {0, 1}},          /* the instant at 10 is inside [10, 20); [10,20) overlaps */
        {20, 30, 1, {3}},             /* [10,20) ends at 20: out; [30,35) starts at 30: out */
        {40, 41, 1, {4}},             /* [20,40) ends at 40: out; the instant 40 is inside */
        {40, 40, 1, {4}},             /* the instant 40: active rows at 40 (instants at 40 count) */
        {34, 34, 2, {3, 5}},          /* active at 34: [20,40) and [30,35), by start */
        {1000, 1000, 1, {6}},         /* [50, INT64_MAX) is active long after */
        {60, 70, 1, {6}},             /* row 7 [5,60) is left out */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        req.filter.start_ns = cases[i].a;
        req.filter.end_ns = cases[i].b;
        expect(&src, req, cases[i].rows, cases[i].n);
    }
    req.filter.has_end = false; /* from 35 on: [20,40), the instant 40, [50, ...) */
    req.filter.start_ns = 35;
    const size_t open_ended[] = {3, 4, 6};
    expect(&src, req, open_ended, 3);
}

static void sorts_rank_by_value_then_start_then_row(void **state)
{
    (void)state;
    toy_model m = toy_model_new();
    timeline_source src = {&toy, &m};
    const size_t by_time[] = {0, 1, 3, 5, 4, 6};
    expect(&src, req_of(TIMELINE_SORT_TIME, 1), by_time, 6);
    const size_t by_duration[] = {6, 3, 1, 5, 0, 4}; /* INT64_MAX-50, 20, 10, 5, then the instants by start */
    expect(&src, req_of(TIMELINE_SORT_DURATION, 1), by_duration, 6);
    const size_t by_bytes[] = {3, 1, 5, 0, 4, 6};    /* 500, 100 at 10, 100 at 30, then zeros by start */
    expect(&src, req_of(TIMELINE_SORT_BYTES, 1), by_bytes, 6);
}

static void filters_combine_and_match_strings_through_the_adapter(void **state)
{
    (void)state;
    toy_model m = toy_model_new();
    timeline_source src = {&toy, &m};
    timeline_request req = req_of(TIMELINE_SORT_TIME, 3);
    req.filter.opcode_glob = "mat*";
    const size_t mat[] = {1, 3};
    expect(&src, req, mat, 2);
    req.filter.engine = "b";
    const size_t mat_b[] = {3};
    expect(&src, req, mat_b, 1);
    req = req_of(TIMELINE_SORT_TIME, 3);
    req.filter.min_duration_ns = 6;
    const size_t long_rows[] = {1, 3, 6};
    expect(&src, req, long_rows, 3);
    req.filter.min_duration_ns = 0;
    req.filter.min_wait_ns = 1;
    const size_t waited[] = {1, 4};
    expect(&src, req, waited, 2);
}

static void rows_left_out_are_counted_by_reason_and_refused_as_a_cursor(void **state)
{
    (void)state;
    toy_model m = toy_model_new();
    timeline_source src = {&toy, &m};
    timeline_counts k;
    nl_error err;
    assert_int_equal(timeline_count(&src, NULL, &k, &err), 0);
    assert_int_equal(k.rows, 8);
    assert_int_equal(k.eligible, 6);
    assert_int_equal(k.left_out[0], 1);
    assert_int_equal(k.left_out[1], 1);
    assert_true(k.has_range);
    assert_int_equal(k.first_ns, 10);
    assert_int_equal(k.last_ns, INT64_MAX);
    timeline_request req = req_of(TIMELINE_SORT_TIME, 3);
    req.has_after = true;
    req.after_row = 2;
    timeline_page pg;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(timeline_run(&src, &req, NULL, &pg, &err), -1);
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    assert_string_equal(err.field, "cursor");
    assert_string_equal(err.message, "the cursor points at row 2, which is not a toy row (the table has 8 rows)");
    assert_null(pg.rows);
    req.after_row = 8;
    assert_int_equal(timeline_run(&src, &req, NULL, &pg, &err), -1);
    assert_string_equal(err.field, "cursor");
    assert_int_equal(m.opened, m.closed);
}

static void time_order_over_rows_in_time_order_is_taken_in_row_order(void **state)
{
    (void)state;
    toy_model m = toy_model_new();
    m.rows = 2; /* rows 0 and 1 start at 10: in time order */
    timeline_adapter plain = toy_plain();
    timeline_source src = {&plain, &m};
    timeline_request req = req_of(TIMELINE_SORT_TIME, 1);
    timeline_page pg;
    nl_error err;
    assert_int_equal(timeline_run(&src, &req, NULL, &pg, &err), 0);
    assert_true(pg.time_ordered_scan);
    assert_int_equal(pg.total, 2);
    assert_int_equal(pg.rows[0], 0);
    assert_true(pg.more);
    timeline_page_free(&pg);
    m.rows = 8; /* row 2 starts at 15 after 10, row 7 at 5 after 60: ranked */
    assert_int_equal(timeline_run(&src, &req, NULL, &pg, &err), 0);
    assert_false(pg.time_ordered_scan);
    assert_int_equal(pg.total, 8);
    assert_int_equal(pg.rows[0], 7);
    timeline_page_free(&pg);
    const size_t all[] = {7, 0, 1, 2, 3, 5, 4, 6};
    expect(&src, req, all, 8);
}

static void the_check_names_the_argument_in_one_wording(void **state)
{
    (void)state;
    timeline_adapter plain = toy_plain();
    const struct {
        const timeline_adapter *ad;
        timeline_request req;
        const char *field, *message;
    } cases[] = {
        {&toy, {.limit = 1, .filter = {.source = "x"}}, "source",
         "source does not apply to kind toy; kind toy accepts everything but source and layer"},
        {&toy, {.limit = 1, .sort = TIMELINE_SORT_WAIT}, "sort",
         "sort wait is not available for kind toy; accepted: time, duration, bytes"},
        {&toy, {.limit = 1, .filter = {.engine = ""}}, "engine", "engine must not be empty (omit it to match every row)"},
        {&toy, {.limit = 1, .filter = {.opcode_glob = ""}}, "opcode", "opcode must not be empty (omit it to match every row)"},
        {&toy, {.limit = 1, .filter = {.has_start = true, .start_ns = -1}}, "start_ns", "times and minimums must be >= 0 ns"},
        {&toy, {.limit = 1, .filter = {.min_wait_ns = -2}}, "min_wait_ns", "times and minimums must be >= 0 ns"},
        {&toy, {.limit = 1, .filter = {.has_start = true, .has_end = true, .start_ns = 9, .end_ns = 8}}, "end_ns",
         "8 is before start_ns 9. The window is [start_ns, end_ns) in unix ns (see timeline in a result); pass end_ns "
         ">= start_ns (equal selects the rows active at that instant)"},
        {&plain, {.limit = 1, .filter = {.has_start = true, .has_end = true, .start_ns = 9, .end_ns = 8}}, "end_ns",
         "8 is before start_ns 9. The window is [start_ns, end_ns) in ns from the profile start; pass end_ns >= "
         "start_ns (equal selects the rows active at that instant)"},
        {&toy, {.limit = 0}, "max_rows", "0; accepted 1..500"},
        {&toy, {.limit = TIMELINE_LIMIT_MAX + 1}, "max_rows", "501; accepted 1..500"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nl_error err;
        memset(&err, 0x5a, sizeof err);
        assert_int_equal(timeline_check(cases[i].ad, &cases[i].req, &err), -1);
        assert_int_equal(err.code, NL_ERR_ARGUMENT);
        assert_string_equal(err.field, cases[i].field);
        assert_string_equal(err.message, cases[i].message);
        assert_int_equal(err.offset, -1);
        assert_string_equal(err.source, "");
    }
    timeline_request fine = {.limit = 1, .filter = {.min_wait_ns = 0, .engine = "a"}};
    assert_int_equal(timeline_check(&toy, &fine, NULL), 0);
}

static void an_engine_the_adapter_refuses_is_its_error_and_its_state_is_closed(void **state)
{
    (void)state;
    toy_model m = toy_model_new();
    timeline_source src = {&toy, &m};
    timeline_request req = req_of(TIMELINE_SORT_TIME, 1);
    req.filter.engine = "nowhere";
    timeline_page pg;
    nl_error err;
    assert_int_equal(timeline_run(&src, &req, NULL, &pg, &err), -1);
    assert_string_equal(err.field, "engine");
    assert_string_equal(err.message, "no lane is 'nowhere'");
    int64_t counts[TIMELINE_FILTER_COUNT];
    assert_int_equal(timeline_explain(&src, &req, NULL, counts, &err), -1);
    assert_int_equal(m.opened, 2);
    assert_int_equal(m.closed, 2);
}

static void explain_counts_what_each_filter_keeps_alone(void **state)
{
    (void)state;
    toy_model m = toy_model_new();
    timeline_source src = {&toy, &m};
    timeline_request req = req_of(TIMELINE_SORT_TIME, 5);
    req.filter.opcode_glob = "mark";
    req.filter.min_duration_ns = 1;
    req.filter.has_start = true;
    req.filter.start_ns = 45;
    timeline_page pg;
    nl_error err;
    assert_int_equal(timeline_run(&src, &req, NULL, &pg, &err), 0);
    assert_int_equal(pg.total, 0);
    assert_non_null(pg.rows);
    timeline_page_free(&pg);
    int64_t counts[TIMELINE_FILTER_COUNT];
    assert_int_equal(timeline_explain(&src, &req, NULL, counts, &err), 0);
    assert_int_equal(counts[TIMELINE_F_OPCODE], 2);        /* rows 0 and 4 (row 2 is left out) */
    assert_int_equal(counts[TIMELINE_F_MIN_DURATION], 4);  /* rows 1, 3, 5, 6 */
    assert_int_equal(counts[TIMELINE_F_WINDOW], 1);        /* row 6 */
    assert_int_equal(counts[TIMELINE_F_ENGINE], -1);
    assert_int_equal(counts[TIMELINE_F_SOURCE], -1);
    assert_string_equal(timeline_filter_names[TIMELINE_F_MIN_DURATION], "min_duration_ns");
}

static void a_cancelled_call_stops_with_cancelled(void **state)
{
    (void)state;
    toy_model m = toy_model_new();
    timeline_source src = {&toy, &m};
    atomic_int cancel = 1;
    timeline_request req = req_of(TIMELINE_SORT_DURATION, 2);
    timeline_page pg;
    timeline_order *o = NULL;
    timeline_counts k;
    int64_t counts[TIMELINE_FILTER_COUNT];
    nl_error err;
    assert_int_equal(timeline_run(&src, &req, &cancel, &pg, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    assert_int_equal(timeline_order_build(&src, TIMELINE_SORT_DURATION, &cancel, &o, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    assert_null(o);
    assert_int_equal(timeline_count(&src, &cancel, &k, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    req.filter.opcode_glob = "x";
    assert_int_equal(timeline_explain(&src, &req, &cancel, counts, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    assert_int_equal(m.opened, m.closed);
}

static void an_order_serves_only_its_kind_and_sort(void **state)
{
    (void)state;
    toy_model m = toy_model_new();
    timeline_adapter plain = toy_plain();
    timeline_source src = {&toy, &m}, other = {&plain, &m};
    timeline_order *o = NULL;
    nl_error err;
    assert_int_equal(timeline_order_build(&src, TIMELINE_SORT_BYTES, NULL, &o, &err), 0);
    assert_true(timeline_order_bytes(o) >= 6 * sizeof(uint32_t)); /* six timeline rows */
    timeline_request req = req_of(TIMELINE_SORT_TIME, 2);
    req.order = o;
    timeline_page pg;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(timeline_run(&src, &req, NULL, &pg, &err), -1);
    assert_int_equal(err.code, NL_ERR_INTERNAL);
    req.sort = TIMELINE_SORT_BYTES;
    assert_int_equal(timeline_run(&other, &req, NULL, &pg, &err), -1);
    assert_int_equal(err.code, NL_ERR_INTERNAL);
    timeline_order_free(o);
    assert_int_equal(timeline_order_build(&src, TIMELINE_SORT_WAIT, NULL, &o, &err), -1);
    assert_string_equal(err.field, "sort");
    char scratch[TIMELINE_SCRATCH];
    timeline_cell c;
    timeline_cell_get(&src, timeline_column_find(&toy, "name"), 3, scratch, &c);
    assert_string_equal(c.s, "matmul");
    timeline_cell_get(&src, 7, 3, scratch, &c); /* no such column */
    assert_int_equal(c.kind, TIMELINE_CELL_NULL);
    assert_int_equal(timeline_column_find(&toy, "colour"), -1);
    timeline_sort s;
    assert_int_equal(timeline_sort_parse("bytes", &s), 0);
    assert_int_equal(s, TIMELINE_SORT_BYTES);
    assert_int_equal(timeline_sort_parse("size", &s), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_window_rule_holds_for_spans_instants_and_saturated_ends),
        cmocka_unit_test(sorts_rank_by_value_then_start_then_row),
        cmocka_unit_test(filters_combine_and_match_strings_through_the_adapter),
        cmocka_unit_test(rows_left_out_are_counted_by_reason_and_refused_as_a_cursor),
        cmocka_unit_test(time_order_over_rows_in_time_order_is_taken_in_row_order),
        cmocka_unit_test(the_check_names_the_argument_in_one_wording),
        cmocka_unit_test(an_engine_the_adapter_refuses_is_its_error_and_its_state_is_closed),
        cmocka_unit_test(explain_counts_what_each_filter_keeps_alone),
        cmocka_unit_test(a_cancelled_call_stops_with_cancelled),
        cmocka_unit_test(an_order_serves_only_its_kind_and_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
