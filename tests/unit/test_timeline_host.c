/* Unit tests for the host adapters of the timeline engine (analyzers/analyses/timeline_system.c and
 * timeline_framework.c: trace-extract kinds system and framework), on small handcrafted inputs whose answers
 * are worked out in the comments (the system capture is host_synth.h's hs_fixture_system). Framework times:
 * base 1e12 ns + ts µs × 1000. Every page is taken twice, ranked by the engine and from a memoized order,
 * and must agree; on a generated trace both are checked against a sort this file does itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fnmatch.h>

#include "host_synth.h"
#include "ref_order.h"
#include "timeline_kinds.h"

#define BASE 1000000000000LL

/* The sorts of the host kinds (no wait). */
static const timeline_sort host_sorts[] = {TIMELINE_SORT_TIME, TIMELINE_SORT_DURATION, TIMELINE_SORT_BYTES};

/* Rows (table order): 0 M, 1 add [10,15) µs tid 1, 2 mul [12.5,42.5) tid 2, 3 kernel [20,28) device, 4 instant
 * at 40 tid 1, 5 memcpy [50,52) device 4096 B, 6 an X without ts. Eligible: rows 1-5. */
static const char *const TRACE =
    "{\"baseTimeNanoseconds\": 1000000000000, \"traceEvents\": ["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"ts\":0,\"args\":{\"name\":\"host proc\"}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":1,\"tid\":2,\"ts\":12.5,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":8,"
    "\"args\":{\"correlation\":42}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"mark\",\"pid\":1,\"tid\":1,\"ts\":40,\"s\":\"t\"},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":2,"
    "\"args\":{\"bytes\":4096}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"untimed\",\"pid\":1,\"tid\":1}"
    "]}";

static timeline_order *order_of(const timeline_source *src, timeline_sort sort)
{
    timeline_order *o = NULL;
    nl_error err;
    if (timeline_order_build(src, sort, NULL, &o, &err) != 0)
        fail_msg("order build failed: %s (%s)", err.message, err.field);
    return o;
}

/* One page ranked by the engine and one taken from `order`, a memoized order of the sort (NULL: built here):
 * they must agree on every field. Returns the first (free with timeline_page_free). */
static timeline_page page_both_ways_with(const timeline_source *src, const timeline_request *req,
                                         const timeline_order *order)
{
    timeline_page pg, po;
    nl_error err;
    timeline_order *o = order ? NULL : order_of(src, req->sort);
    timeline_request with = *req;
    with.order = order ? order : o;
    if (timeline_run(src, req, NULL, &pg, &err) != 0 || timeline_run(src, &with, NULL, &po, &err) != 0)
        fail_msg("timeline_run failed: %s (%s)", err.message, err.field);
    assert_false(pg.ordered);
    assert_true(po.ordered);
    assert_int_equal(po.total, pg.total);
    assert_int_equal(po.after_cursor, pg.after_cursor);
    assert_int_equal(po.count, pg.count);
    assert_int_equal(po.more, pg.more);
    if (pg.count)
        assert_memory_equal(po.rows, pg.rows, pg.count * sizeof *pg.rows);
    timeline_page_free(&po);
    timeline_order_free(o);
    return pg;
}

static timeline_page page_both_ways(const timeline_source *src, const timeline_request *req)
{
    return page_both_ways_with(src, req, NULL);
}

static size_t run(const timeline_source *src, timeline_request *req, size_t *rows, size_t cap)
{
    timeline_page pg = page_both_ways(src, req);
    size_t n = pg.count < cap ? pg.count : cap;
    memcpy(rows, pg.rows, n * sizeof *rows);
    size_t total = (size_t)pg.total;
    timeline_page_free(&pg);
    return total;
}

static void expect_arg_error(const timeline_source *src, const timeline_request *req, const char *field)
{
    timeline_page pg;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(timeline_run(src, req, NULL, &pg, &err), -1);
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    assert_string_equal(err.field, field);
    assert_null(pg.rows);
}

static void framework_rows_leave_out_metadata_and_untimed_events(void **state)
{
    (void)state;
    framework_model *m = hs_trace(TRACE);
    timeline_source src = {&timeline_framework, m};
    timeline_counts k;
    nl_error err;
    assert_int_equal(timeline_count(&src, NULL, &k, &err), 0);
    assert_int_equal(k.rows, 7);
    assert_int_equal(k.eligible, 5);
    assert_string_equal(src.adapter->left_out_names[0], "metadata_events");
    assert_int_equal(k.left_out[0], 1);
    assert_string_equal(src.adapter->left_out_names[1], "events_without_ts");
    assert_int_equal(k.left_out[1], 1);
    assert_true(k.has_range);
    assert_int_equal(k.first_ns, BASE + 10000);
    assert_int_equal(k.last_ns, BASE + 52000);
    timeline_request req = {.limit = 10};
    size_t rows[10];
    assert_int_equal(run(&src, &req, rows, 10), 5);
    const size_t want[] = {1, 2, 3, 4, 5};
    assert_memory_equal(rows, want, sizeof want);
    framework_model_free(m);
}

/* Duration order: mul 30000, kernel 8000, add 5000, memcpy 2000, mark 0; pages of two concatenate. */
static void framework_pages_by_duration_concatenate_through_the_cursor(void **state)
{
    (void)state;
    framework_model *m = hs_trace(TRACE);
    timeline_source src = {&timeline_framework, m};
    timeline_request req = {.sort = TIMELINE_SORT_DURATION, .limit = 2};
    size_t got[6], n = 0, page[2];
    for (int i = 0; i < 3; i++) {
        timeline_page pg = page_both_ways(&src, &req);
        assert_int_equal(pg.total, 5);
        memcpy(page, pg.rows, pg.count * sizeof *page);
        memcpy(got + n, page, pg.count * sizeof *page);
        n += pg.count;
        req.has_after = true;
        req.after_row = pg.rows[pg.count - 1];
        timeline_page_free(&pg);
    }
    assert_int_equal(n, 5);
    const size_t want[] = {2, 3, 1, 5, 4};
    assert_memory_equal(got, want, sizeof want);
    framework_model_free(m);
}

static void framework_window_is_unix_ns_and_half_open(void **state)
{
    (void)state;
    framework_model *m = hs_trace(TRACE);
    timeline_source src = {&timeline_framework, m};
    size_t rows[8];
    timeline_request req = {.limit = 8, .filter = {.has_start = true, .has_end = true, .start_ns = BASE + 15000,
                                                       .end_ns = BASE + 21000}};
    assert_int_equal(run(&src, &req, rows, 8), 2); /* add ends at 15000 (excluded); mul and kernel overlap */
    assert_int_equal(rows[0], 2);
    assert_int_equal(rows[1], 3);
    req.filter.start_ns = req.filter.end_ns = BASE + 40000; /* active at the instant: mul, and the instant itself */
    assert_int_equal(run(&src, &req, rows, 8), 2);
    assert_int_equal(rows[0], 2);
    assert_int_equal(rows[1], 4);
    framework_model_free(m);
}

static void framework_engine_selects_role_pid_tid_and_names(void **state)
{
    (void)state;
    framework_model *m = hs_trace(TRACE);
    timeline_source src = {&timeline_framework, m};
    size_t rows[8];
    timeline_request req = {.limit = 8};
    const struct { const char *engine; size_t total; } cases[] = {
        {"device", 2}, {"HOST", 3}, {"pid:0", 2}, {"tid:2", 1}, {"7", 2}, {"Host Proc", 3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        req.filter.engine = cases[i].engine;
        assert_int_equal(run(&src, &req, rows, 8), cases[i].total);
    }
    req.filter.engine = "nope";
    expect_arg_error(&src, &req, "engine");
    char list[256];
    src.adapter->engines(&src, list, sizeof list);
    assert_string_equal(list, "host, device, pid:1, pid:0, tid:0, tid:1, tid:2, tid:7");
    framework_model_free(m);
}

static void framework_opcode_globs_the_name_case_insensitively(void **state)
{
    (void)state;
    framework_model *m = hs_trace(TRACE);
    timeline_source src = {&timeline_framework, m};
    size_t rows[8];
    timeline_request req = {.limit = 8, .filter = {.opcode_glob = "aten::*"}};
    assert_int_equal(run(&src, &req, rows, 8), 2);
    req.filter.opcode_glob = "ATEN::MUL";
    assert_int_equal(run(&src, &req, rows, 8), 1);
    assert_int_equal(rows[0], 2);
    req.filter.opcode_glob = "";
    expect_arg_error(&src, &req, "opcode");
    framework_model_free(m);
}

static void framework_cells_are_unix_ns_ids_and_roles(void **state)
{
    (void)state;
    framework_model *m = hs_trace(TRACE);
    timeline_source src = {&timeline_framework, m};
    char scratch[TIMELINE_SCRATCH];
    timeline_cell c;
    timeline_cell_get(&src, timeline_column_find(&timeline_framework, "start_ns"), 3, scratch, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_INT);
    assert_int_equal(c.i, BASE + 20000);
    timeline_cell_get(&src, timeline_column_find(&timeline_framework, "correlation"), 3, scratch, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_ID);
    assert_int_equal(c.u, 42);
    timeline_cell_get(&src, timeline_column_find(&timeline_framework, "role"), 3, scratch, &c);
    assert_string_equal(c.s, "device");
    timeline_cell_get(&src, timeline_column_find(&timeline_framework, "correlation"), 1, scratch, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_NULL);
    timeline_cell_get(&src, timeline_column_find(&timeline_framework, "bytes"), 5, scratch, &c);
    assert_int_equal(c.u, 4096);
    timeline_cell_get(&src, timeline_column_find(&timeline_framework, "process"), 1, scratch, &c);
    assert_string_equal(c.s, "host proc");
    /* bytes order puts the copy first, then the rest by start */
    size_t rows[8];
    timeline_request req = {.sort = TIMELINE_SORT_BYTES, .limit = 8};
    assert_int_equal(run(&src, &req, rows, 8), 5);
    assert_int_equal(rows[0], 5);
    assert_int_equal(rows[1], 1);
    framework_model_free(m);
}

static void long_names_are_cut_on_a_character_boundary(void **state)
{
    (void)state;
    char *doc = malloc(2048);
    char name[600];
    memset(name, 'a', sizeof name);
    memcpy(name + 238, "\xc3\xa9", 2); /* a 2-byte character straddling byte 240 */
    name[sizeof name - 1] = '\0';
    snprintf(doc, 2048, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,"
             "\"ts\":1,\"dur\":1}]}", name);
    framework_model *m = hs_trace(doc);
    timeline_source src = {&timeline_framework, m};
    char scratch[TIMELINE_SCRATCH];
    timeline_cell c;
    timeline_cell_get(&src, timeline_column_find(&timeline_framework, "name"), 0, scratch, &c);
    assert_int_equal(strlen(c.s), 240 + 3);
    assert_memory_equal(c.s + 238, "\xc3\xa9\xe2\x80\xa6", 5);
    timeline_cell_get(&src, timeline_column_find(&timeline_framework, "start_ns"), 0, scratch, &c);
    assert_int_equal(c.i, 1000); /* no base: ts is unix µs */
    framework_model_free(m);
    free(doc);
}

static void bad_requests_are_argument_errors_naming_the_argument(void **state)
{
    (void)state;
    framework_model *m = hs_trace(TRACE);
    timeline_source src = {&timeline_framework, m};
    timeline_request req = {.limit = 8, .filter = {.has_start = true, .has_end = true, .start_ns = 10, .end_ns = 5}};
    expect_arg_error(&src, &req, "end_ns");
    req = (timeline_request){.limit = 0};
    expect_arg_error(&src, &req, "max_rows");
    req = (timeline_request){.limit = 1, .has_after = true, .after_row = 0}; /* row 0 is metadata */
    expect_arg_error(&src, &req, "cursor");
    req.after_row = 99;
    expect_arg_error(&src, &req, "cursor");
    req = (timeline_request){.limit = 1, .filter = {.min_duration_ns = -1}};
    expect_arg_error(&src, &req, "min_duration_ns");
    framework_model_free(m);
}

/* ---- system -------------------------------------------------------------------------------------------- */

static void system_engine_selects_lanes_and_rejects_unknown_ones(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *m = hs_fixture_system(&cap);
    timeline_source src = {&timeline_system, m};
    size_t rows[16];
    timeline_request req = {.limit = 16};
    assert_int_equal(run(&src, &req, rows, 16), 8);
    const struct { const char *engine; size_t total; } cases[] = {
        {"core4", 4}, {"CORE5", 2}, {"hardware", 2}, {"device", 2}, {"host", 6}, {"nc0", 8}, {"worker0", 8},
        {"thread77", 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        req.filter.engine = cases[i].engine;
        assert_int_equal(run(&src, &req, rows, 16), cases[i].total);
    }
    req.filter.engine = "worker7"; /* well-formed, but no span is there */
    expect_arg_error(&src, &req, "engine");
    req.filter.engine = "gpu0"; /* not a system lane at all */
    expect_arg_error(&src, &req, "engine");
    char list[256];
    src.adapter->engines(&src, list, sizeof list);
    assert_string_equal(list, "host, device, nc0, core4, core5, worker0");
    system_model_free(m);
    hs_remove(&cap);
}

static void system_opcode_window_and_sorts(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *m = hs_fixture_system(&cap);
    timeline_source src = {&timeline_system, m};
    size_t rows[16];
    timeline_request req = {.limit = 16, .filter = {.opcode_glob = "cc_*"}};
    assert_int_equal(run(&src, &req, rows, 16), 4); /* three pairs and the orphan end */
    req.filter.min_duration_ns = 101;               /* [4500,4700) only */
    assert_int_equal(run(&src, &req, rows, 16), 1);
    req = (timeline_request){.limit = 1, .sort = TIMELINE_SORT_BYTES};
    assert_int_equal(run(&src, &req, rows, 1), 8);
    char scratch[TIMELINE_SCRATCH];
    timeline_cell c;
    timeline_cell_get(&src, timeline_column_find(&timeline_system, "type"), rows[0], scratch, &c);
    assert_string_equal(c.s, "nrt_tensor_write");
    req = (timeline_request){.limit = 16, .filter = {.has_start = true, .has_end = true, .start_ns = 5000,
                                                         .end_ns = 6500}};
    assert_int_equal(run(&src, &req, rows, 16), 2); /* execute [1000,9000) and exec core5 [4000,6000) */
    req = (timeline_request){.limit = 1, .sort = TIMELINE_SORT_DURATION};
    run(&src, &req, rows, 1);
    timeline_cell_get(&src, timeline_column_find(&timeline_system, "model_id"), rows[0], scratch, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_ID);
    assert_int_equal(c.u, 500);
    timeline_cell_get(&src, timeline_column_find(&timeline_system, "neff"), rows[0], scratch, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_NULL); /* the capture's trace_info.pb has no system_trace table */
    timeline_cell_get(&src, timeline_column_find(&timeline_system, "core"), rows[0], scratch, &c);
    assert_int_equal(c.kind, TIMELINE_CELL_NULL);
    system_model_free(m);
    hs_remove(&cap);
}

/* ---- memoized orders against a reference sort ------------------------------------------------------------
 *
 * A generated trace (seeded): metadata events and events without ts among X and instant events, timestamps
 * out of order spanning ~2^41 ns, durations up to ~2^25 ns (together wider than 64 bits), byte counts on some.
 * Each sort × filter is paged through the cursor and compared with this file's own filter and sort. */

#define GEN_EVENTS 2500

static const char *const gen_names[] = {"aten::mm", "aten::add", "ncclKernel_AllReduce", "Memcpy HtoD", "mark"};

typedef struct gen_event {
    bool eligible;
    int pid;
    const char *name;
    int64_t start, end;
    uint64_t bytes;
} gen_event;

static uint64_t gen_rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* One event as JSON at out (cap bytes) and its expected values in *e. */
static int gen_event_json(uint64_t *s, size_t i, gen_event *e, char *out, size_t cap)
{
    e->pid = (int)(gen_rnd(s) % 2);
    e->name = gen_names[gen_rnd(s) % 5];
    e->bytes = i % 6 == 0 ? gen_rnd(s) % ((uint64_t)1 << 30) : 0;
    uint64_t ts = gen_rnd(s) % ((uint64_t)1 << 31), dur = gen_rnd(s) % 4 ? gen_rnd(s) % 300 : gen_rnd(s) % 33000;
    e->start = BASE + (int64_t)ts * 1000;
    const char *sep = i ? "," : "";
    if (i % 40 == 3) {
        e->eligible = false;
        return snprintf(out, cap, "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%zu,\"args\":"
                        "{\"name\":\"t\"}}", sep, e->pid, i % 3);
    }
    if (i % 57 == 5) {
        e->eligible = false;
        return snprintf(out, cap, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":%d,\"tid\":%zu}", sep,
                        e->name, e->pid, i % 3);
    }
    e->eligible = true;
    if (i % 9 == 4) { /* an instant */
        e->end = e->start;
        return snprintf(out, cap, "%s{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"%s\",\"pid\":%d,\"tid\":%zu,"
                        "\"ts\":%llu,\"s\":\"t\"}", sep, e->name, e->pid, i % 3, (unsigned long long)ts);
    }
    e->end = e->start + (int64_t)dur * 1000;
    int w = snprintf(out, cap, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":%d,\"tid\":%zu,\"ts\":%llu,"
                     "\"dur\":%llu", sep, e->name, e->pid, i % 3, (unsigned long long)ts, (unsigned long long)dur);
    if (e->bytes)
        w += snprintf(out + w, cap - (size_t)w, ",\"args\":{\"bytes\":%llu}", (unsigned long long)e->bytes);
    return w + snprintf(out + w, cap - (size_t)w, "}");
}

static char *gen_trace(gen_event *ev)
{
    size_t cap = GEN_EVENTS * 200 + 256, used = 0;
    char *doc = malloc(cap);
    assert_non_null(doc);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    used += (size_t)snprintf(doc, cap, "{\"baseTimeNanoseconds\": 1000000000000, \"traceEvents\": [");
    for (size_t i = 0; i < GEN_EVENTS; i++)
        used += (size_t)gen_event_json(&s, i, &ev[i], doc + used, cap - used);
    snprintf(doc + used, cap - used, "]}");
    return doc;
}

static bool gen_matches(const gen_event *e, const timeline_filter *f)
{
    if (!e->eligible)
        return false;
    if (f->engine && e->pid != 1) /* the tests filter "pid:1" only */
        return false;
    if (f->opcode_glob && fnmatch(f->opcode_glob, e->name, FNM_CASEFOLD))
        return false;
    int64_t a = f->has_start ? f->start_ns : INT64_MIN, b = f->has_end ? f->end_ns : INT64_MAX;
    if ((f->has_start || f->has_end) && !(a == b ? e->start <= a && (e->end > a || e->start == a)
                                                 : e->start < b && (e->end > a || (e->end == e->start && e->start >= a))))
        return false;
    return e->end - e->start >= f->min_duration_ns;
}

static size_t gen_reference(const gen_event *ev, const timeline_request *req, size_t *out)
{
    gen_key keys[GEN_EVENTS];
    size_t k = 0;
    for (size_t r = 0; r < GEN_EVENTS; r++) {
        if (!gen_matches(&ev[r], &req->filter))
            continue;
        int64_t v = req->sort == TIMELINE_SORT_DURATION ? ev[r].end - ev[r].start
                  : req->sort == TIMELINE_SORT_BYTES ? (int64_t)ev[r].bytes : 0;
        keys[k++] = (gen_key){v, ev[r].start, r};
    }
    qsort(keys, k, sizeof *keys, gen_key_cmp);
    for (size_t i = 0; i < k; i++)
        out[i] = keys[i].row;
    return k;
}

static void expect_reference_pages(const timeline_source *src, const gen_event *ev, timeline_request req)
{
    static size_t want[GEN_EVENTS];
    size_t nwant = gen_reference(ev, &req, want), n = 0;
    assert_true(nwant > 0);
    timeline_order *o = order_of(src, req.sort); /* one order for every page, as the memo keeps it */
    for (;;) {
        timeline_page pg = page_both_ways_with(src, &req, o);
        assert_int_equal(pg.total, nwant);
        for (size_t i = 0; i < pg.count; i++, n++)
            if (n >= nwant || pg.rows[i] != want[n])
                fail_msg("sort %s, page size %zu, position %zu: row %zu, expected %zu", timeline_sort_name(req.sort),
                         req.limit, n, pg.rows[i], n < nwant ? want[n] : SIZE_MAX);
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
    assert_int_equal(n, nwant);
}

static void framework_orders_page_like_a_reference_sort(void **state)
{
    (void)state;
    static gen_event ev[GEN_EVENTS];
    char *doc = gen_trace(ev);
    framework_model *m = hs_trace(doc);
    timeline_source src = {&timeline_framework, m};
    const timeline_filter filters[] = {
        {0},
        {.engine = "pid:1"},
        {.opcode_glob = "ATEN::*"},
        {.has_start = true, .has_end = true, .start_ns = BASE + 500000000000LL, .end_ns = BASE + 900000000000LL},
        {.min_duration_ns = 20000000},                   /* sparse among 2500 */
        {.engine = "pid:1", .opcode_glob = "mark", .has_start = true, .start_ns = BASE + 1000000000000LL},
    };
    const size_t limits[] = {7, TIMELINE_LIMIT_MAX};
    for (size_t s = 0; s < sizeof host_sorts / sizeof host_sorts[0]; s++)
        for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++)
            for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
                timeline_request req = {.sort = host_sorts[s], .limit = limits[l], .filter = filters[f]};
                expect_reference_pages(&src, ev, req);
            }
    timeline_order *o = NULL;
    nl_error err;
    assert_int_equal(timeline_order_build(&src, TIMELINE_SORT_DURATION, NULL, &o, &err), 0);
    size_t eligible = 0;
    for (size_t r = 0; r < GEN_EVENTS; r++)
        eligible += ev[r].eligible;
    assert_true(timeline_order_bytes(o) >= eligible * sizeof(uint32_t)); /* 4 bytes a timeline row */
    assert_true(timeline_order_bytes(o) < eligible * sizeof(uint32_t) + 128);
    timeline_request req = {.sort = TIMELINE_SORT_TIME, .limit = 5, .order = o};
    timeline_page pg;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(timeline_run(&src, &req, NULL, &pg, &err), -1); /* built for another sort */
    assert_int_equal(err.code, NL_ERR_INTERNAL);
    timeline_order_free(o);
    framework_model_free(m);
    free(doc);
}

/* The system spans through both paths, each sort, through the cursor one row at a time. */
static void system_orders_page_like_the_ranked_pages(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *m = hs_fixture_system(&cap);
    timeline_source src = {&timeline_system, m};
    for (size_t s = 0; s < sizeof host_sorts / sizeof host_sorts[0]; s++) {
        timeline_request req = {.sort = host_sorts[s], .limit = 1};
        size_t n = 0;
        for (bool more = true; more; n++) {
            timeline_page pg = page_both_ways(&src, &req);
            assert_int_equal(pg.total, 8);
            more = pg.more;
            req.has_after = true;
            req.after_row = pg.rows[0];
            timeline_page_free(&pg);
        }
        assert_int_equal(n, 8);
    }
    system_model_free(m);
    hs_remove(&cap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(framework_rows_leave_out_metadata_and_untimed_events),
        cmocka_unit_test(framework_pages_by_duration_concatenate_through_the_cursor),
        cmocka_unit_test(framework_window_is_unix_ns_and_half_open),
        cmocka_unit_test(framework_engine_selects_role_pid_tid_and_names),
        cmocka_unit_test(framework_opcode_globs_the_name_case_insensitively),
        cmocka_unit_test(framework_cells_are_unix_ns_ids_and_roles),
        cmocka_unit_test(long_names_are_cut_on_a_character_boundary),
        cmocka_unit_test(bad_requests_are_argument_errors_naming_the_argument),
        cmocka_unit_test(system_engine_selects_lanes_and_rejects_unknown_ones),
        cmocka_unit_test(system_opcode_window_and_sorts),
        cmocka_unit_test(framework_orders_page_like_a_reference_sort),
        cmocka_unit_test(system_orders_page_like_the_ranked_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
