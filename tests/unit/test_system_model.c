/* test_system_model — the system model and its summary on a small synthetic capture written to a temp
 * directory: begin/end pairing by span id when ends come much later in the file, merged attributes (model_id
 * only on the end), unpaired begins and ends, per-core nc_exec_running busy time and the all-core union,
 * the gap between executions and what the host was doing in it, launch latency, copies attributed to their
 * enclosing call, sync-point conversion (exact, then off by 7 ns), declared-vs-read counts, missing optional
 * files, a cut-off ntrace.pb (partial, with its offset), a bad trace_info.pb, and every allocation limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pb_synth.h"
#include "system_model.h"
#include "system_profile.h"
#include "system_summary.h"

/* Type ids on purpose unlike runtime 2.30.51's, so nothing can depend on hard-coded ids. */
enum { T_LOAD = 41, T_EXECUTE = 42, T_EXEC_RUNNING = 43, T_SYNC = 44, T_TENSOR_WRITE = 45, T_COPYIN = 46 };

typedef struct capture {
    char dir[64];
    char trace_info[96], ntrace[96];
    size_t ntrace_bytes;
    size_t cut_record_offset; /* offset of the last record when `cut` */
} capture;

static void write_file(const char *path, const pbs *data)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data->b, 1, data->n, f), data->n);
    fclose(f);
}

static void interned_table(pbs *ti, const char *name, const uint64_t *ids, const char *const *values, size_t n)
{
    pbs t = {.n = 0};
    pbs_str(&t, 1, name);
    for (size_t i = 0; i < n; i++) {
        pbs e = {.n = 0};
        pbs_uint(&e, 1, ids[i]);
        pbs_str(&e, 2, values[i]);
        pbs_bytes(&t, 2, e.b, e.n);
    }
    pbs_bytes(ti, 10, t.b, t.n);
}

static void trace_info(pbs *ti, uint64_t declared_events)
{
    static const uint64_t ids[] = {T_LOAD, T_EXECUTE, T_EXEC_RUNNING, T_SYNC, T_TENSOR_WRITE, T_COPYIN};
    static const char *const names[] = {"nrt_load", "nrt_execute", "nc_exec_running", "timestamp_sync_point",
                                        "nrt_tensor_write", "dmem_buf_copyin"};
    static const uint64_t models[] = {0, 500};
    static const char *const paths[] = {"invalid_interned_string", "/x/model.neff"};
    pbs_uint(ti, 1, 2);
    pbs_uint(ti, 2, 77);
    interned_table(ti, "ntrace_inspect_type", ids, names, 6);
    interned_table(ti, "system_trace", models, paths, 2);
    pbs_uint(ti, 14, declared_events);
}

typedef struct ev {
    uint64_t ts, type, phase, span;
    const char *attrs[12]; /* key, value, ..., NULL */
} ev;

static void put_event(pbs *stream, const ev *e)
{
    pbs m = {.n = 0};
    pbs_uint(&m, 2, e->ts);
    pbs_uint(&m, 7, e->type);
    pbs_uint(&m, 9, 77);
    pbs_uint(&m, 10, e->span);
    for (size_t i = 0; e->attrs[i]; i += 2)
        pbs_attr(&m, e->attrs[i], e->attrs[i + 1]);
    pbs_uint(&m, 14, e->phase);
    pbs_uint(&m, 15, e->span);
    pbs_frame(stream, &m);
}

#define W0 "worker_gid", "0", "nc_idx", "0"

/* Worker 0's events in file order (not time order). Sync points: core 4 ↔ (cpu 2500, nc 9500), core 5 ↔
 * (cpu 2500, nc 10300 + skew), so converted device times equal f2 when skew is 0. */
static size_t events(pbs *s, int64_t skew)
{
    char nc5b[24], sync2[24];
    snprintf(nc5b, sizeof nc5b, "%lld", (long long)(11800));
    snprintf(sync2, sizeof sync2, "%lld", (long long)(10300 + skew));
    const ev list[] = {
        {100, T_LOAD, 1, 1, {W0, NULL}},
        {1100, T_LOAD, 2, 1, {W0, "model_id", "500", NULL}},
        {2000, T_EXECUTE, 1, 2, {W0, "model_id", "500", NULL}},
        {3000, T_EXEC_RUNNING, 1, 3, {W0, "device_core_idx", "4", "exec_id", "1", "nc_timestamp_ns", "10000", NULL}},
        {4000, T_EXEC_RUNNING, 1, 4, {W0, "device_core_idx", "5", "exec_id", "1", "nc_timestamp_ns", nc5b, NULL}},
        {2400, T_SYNC, 3, 5, {W0, "exec_id", "1", "cpu_timestamp_ns", "2500", "nc_timestamp_ns", "9500", NULL}},
        {2400, T_SYNC, 3, 6, {W0, "exec_id", "1", "cpu_timestamp_ns", "2500", "nc_timestamp_ns", sync2, NULL}},
        {6500, T_TENSOR_WRITE, 1, 7, {W0, "size", "4", NULL}},
        {6600, T_COPYIN, 1, 8, {W0, "size", "4", NULL}},
        {7000, T_COPYIN, 2, 8, {W0, NULL}},
        {7500, T_TENSOR_WRITE, 2, 7, {W0, NULL}},
        {8000, T_EXEC_RUNNING, 1, 9, {W0, "device_core_idx", "4", "exec_id", "2", NULL}},
        {8500, T_EXEC_RUNNING, 2, 9, {W0, NULL}},
        {5000, T_EXEC_RUNNING, 2, 3, {W0, "nc_timestamp_ns", "12000", NULL}}, /* ends long after their begins */
        {6000, T_EXEC_RUNNING, 2, 4, {W0, "nc_timestamp_ns", "13800", NULL}},
        {9000, T_EXECUTE, 2, 2, {W0, NULL}},
        {9100, T_EXECUTE, 2, 99, {W0, NULL}},  /* an end without a begin */
        {9500, T_EXECUTE, 1, 100, {W0, NULL}}, /* a begin without an end */
    };
    size_t n = sizeof list / sizeof list[0];
    for (size_t i = 0; i < n; i++)
        put_event(s, &list[i]);
    return n;
}

static void make_capture(capture *c, int64_t skew, int declared_delta, bool cut)
{
    snprintf(c->dir, sizeof c->dir, "/tmp/test_system_model_XXXXXX");
    assert_non_null(mkdtemp(c->dir));
    snprintf(c->trace_info, sizeof c->trace_info, "%s/trace_info.pb", c->dir);
    snprintf(c->ntrace, sizeof c->ntrace, "%s/ntrace.pb", c->dir);
    pbs *s = calloc(1, sizeof *s);
    size_t n = events(s, skew);
    if (cut) {
        pbs extra = {.n = 0};
        pbs_uint(&extra, 2, 9999);
        c->cut_record_offset = pbs_frame(s, &extra);
        s->n -= 1;
    }
    pbs *ti = calloc(1, sizeof *ti);
    trace_info(ti, (uint64_t)((int)n + declared_delta));
    write_file(c->trace_info, ti);
    write_file(c->ntrace, s);
    c->ntrace_bytes = s->n;
    free(s);
    free(ti);
}

static void remove_capture(const capture *c)
{
    unlink(c->trace_info);
    unlink(c->ntrace);
    rmdir(c->dir);
}

static system_model *load(const capture *c)
{
    system_profile_paths p = {.trace_info = c->trace_info, .ntrace = c->ntrace};
    system_model *m = NULL;
    nl_error e;
    assert_int_equal(system_profile_load(&p, NULL, &m, &e), 0);
    return m;
}

static const system_model_note *find_note(const system_model *m, int code, system_file file)
{
    for (size_t i = 0; i < system_model_note_count(m); i++) {
        const system_model_note *n = system_model_note_at(m, i);
        if (n->code == code && n->file == file)
            return n;
    }
    return NULL;
}

static const char *str(const system_model *m, uint32_t id)
{
    return strtab_str(system_model_strings(m), id, NULL);
}

/* ---- the model -------------------------------------------------------------------------------------- */

static void begins_and_ends_pair_by_span_id_across_the_file(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, false);
    system_model *m = load(&c);
    const system_model_counts *k = system_model_counts_get(m);
    assert_int_equal(k->records, 18);
    assert_int_equal(k->begins, 8);
    assert_int_equal(k->ends, 8);
    assert_int_equal(k->instants, 2);
    assert_int_equal(k->pairs, 7);
    assert_int_equal(k->open_begins, 1);
    assert_int_equal(k->orphan_ends, 1);
    const table *t = system_model_table_get(m, SM_SPANS);
    assert_int_equal(table_rows(t), 11); /* 7 pairs + 2 instants + 1 orphan + 1 open */
    /* nrt_load: model_id only on its end, merged into the span */
    bool load_seen = false;
    for (size_t r = 0; r < table_rows(t); r++) {
        if (strcmp(str(m, table_str(t, SM_SPAN_TYPE, r)), "nrt_load"))
            continue;
        load_seen = true;
        assert_int_equal(table_u64(t, SM_SPAN_MODEL, r), 500);
        assert_int_equal(table_i64(t, SM_SPAN_START, r), 100);
        assert_int_equal(table_i64(t, SM_SPAN_END, r), 1100);
        assert_int_equal(table_i64(t, SM_SPAN_WORKER, r), 0);
    }
    assert_true(load_seen);
    assert_int_equal(table_rows(system_model_table_get(m, SM_SYNC)), 2);
    assert_string_equal(system_model_neff_path(m, 500), "/x/model.neff");
    const system_model_note *n = find_note(m, SM_NOTE_UNMATCHED_BEGIN, SM_FILE_NTRACE);
    assert_non_null(n);
    assert_int_equal(n->first.record, 17);
    assert_string_equal(n->first.source, c.ntrace);
    assert_non_null(find_note(m, SM_NOTE_UNMATCHED_END, SM_FILE_NTRACE));
    assert_non_null(find_note(m, SM_NOTE_MISSING_FILE, SM_FILE_CPU_UTIL));
    assert_non_null(find_note(m, SM_NOTE_MISSING_FILE, SM_FILE_HOST_MEM));
    assert_null(find_note(m, SM_NOTE_COUNT_MISMATCH, SM_FILE_NTRACE));
    const system_file_info *fi = system_model_file(m, SM_FILE_NTRACE);
    assert_int_equal(fi->stats.bytes_consumed, c.ntrace_bytes);
    assert_false(fi->stats.partial);
    system_model_free(m);
    remove_capture(&c);
}

static void fewer_records_than_declared_is_noted(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 5, false);
    system_model *m = load(&c);
    const system_model_note *n = find_note(m, SM_NOTE_COUNT_MISMATCH, SM_FILE_NTRACE);
    assert_non_null(n);
    assert_non_null(strstr(n->first.message, "18 records"));
    assert_non_null(strstr(n->first.message, "23"));
    system_model_free(m);
    remove_capture(&c);
}

static void cut_off_ntrace_is_partial_with_the_offset(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, true);
    system_model *m = load(&c);
    const system_model_note *n = find_note(m, SYSPB_NOTE_TRUNCATED, SM_FILE_NTRACE);
    assert_non_null(n);
    assert_int_equal(n->first.code, NL_ERR_TRUNCATED);
    assert_int_equal(n->first.offset, (int64_t)c.cut_record_offset);
    assert_int_equal(n->first.record, 18);
    assert_true(system_model_file(m, SM_FILE_NTRACE)->stats.partial);
    assert_int_equal(system_model_counts_get(m)->records, 18);
    system_model_free(m);
    remove_capture(&c);
}

static void bad_or_missing_trace_info_is_an_error(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, false);
    pbs bad = {.n = 0};
    pbs_uint(&bad, 1, 2);
    pbs_str(&bad, 14, "x"); /* event_count as a string: byte 2 */
    write_file(c.trace_info, &bad);
    system_profile_paths p = {.trace_info = c.trace_info, .ntrace = c.ntrace};
    system_model *m = (system_model *)1;
    nl_error e;
    assert_int_equal(system_profile_load(&p, NULL, &m, &e), -1);
    assert_null(m);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_string_equal(e.source, c.trace_info);
    assert_int_equal(e.offset, 2);
    assert_string_equal(e.field, "TraceInfo.event_count");
    p.trace_info = NULL;
    assert_int_equal(system_profile_load(&p, NULL, &m, &e), -1);
    assert_int_equal(e.code, NL_ERR_NOT_FOUND);
    remove_capture(&c);
}

static void every_memory_limit_fails_cleanly_or_loads(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, false);
    system_profile_paths p = {.trace_info = c.trace_info, .ntrace = c.ntrace};
    int failures = 0, successes = 0;
    for (size_t limit = 1024; limit <= ((size_t)256 << 10); limit += 4096) {
        system_profile_options opt = {.memory_limit = limit};
        system_model *m = NULL;
        nl_error e;
        if (system_profile_load(&p, &opt, &m, &e)) {
            assert_int_equal(e.code, NL_ERR_NOMEM);
            assert_null(m);
            failures++;
        } else {
            successes++;
            system_model_free(m);
        }
    }
    assert_true(failures > 0);
    assert_true(successes > 0);
    remove_capture(&c);
}

/* ---- the summary ------------------------------------------------------------------------------------ */

static void summary_of(const capture *c, system_model **m, system_summary **s)
{
    *m = load(c);
    *s = calloc(1, sizeof **s);
    nl_error e;
    assert_int_equal(system_summary_compute(*m, NULL, *s, &e), 0);
}

static void done(system_model *m, system_summary *s, capture *c)
{
    system_summary_free(s);
    free(s);
    system_model_free(m);
    remove_capture(c);
}

static const ss_core *core(const system_summary *s, int64_t id)
{
    for (size_t i = 0; i < s->ncores; i++)
        if (s->cores[i].core == id)
            return &s->cores[i];
    return NULL;
}

static void device_busy_is_the_union_per_core_and_over_cores(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, false);
    system_model *m;
    system_summary *s;
    summary_of(&c, &m, &s);
    assert_int_equal(s->ncores, 2);
    assert_true(core(s, 4)->physical);
    assert_int_equal(core(s, 4)->busy_ns, 2000 + 500);
    assert_int_equal(core(s, 4)->executions, 2);
    assert_int_equal(core(s, 4)->gaps, 1);
    assert_int_equal(core(s, 4)->gap_max_ns, 3000);
    assert_int_equal(core(s, 5)->busy_ns, 2000);
    assert_int_equal(s->device_busy_ns, 3000 + 500);
    assert_int_equal(s->window_start, 100);
    assert_int_equal(s->window_end, 9500);
    assert_int_equal(s->exec_window_start, 3000);
    assert_int_equal(s->exec_window_end, 8500);
    done(m, s, &c);
}

static void gaps_carry_the_host_activity_inside_them(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, false);
    system_model *m;
    system_summary *s;
    summary_of(&c, &m, &s);
    const ss_gaps *g = &s->gaps;
    assert_int_equal(g->count, 1);
    assert_int_equal(g->total_ns, 2000);
    assert_int_equal(g->largest_ns, 2000);
    assert_int_equal(g->ntop, 1);
    assert_int_equal(g->top[0].start, 6000);
    assert_int_equal(g->top[0].end, 8000);
    assert_int_equal(g->top[0].host_busy_ns, 2000); /* nrt_execute spans the whole gap */
    assert_int_equal(g->top[0].nact, 3);
    assert_string_equal(str(m, g->top[0].act[0].type), "nrt_execute");
    assert_int_equal(g->top[0].act[0].overlap_ns, 2000);
    assert_string_equal(str(m, g->top[0].act[1].type), "nrt_tensor_write");
    assert_int_equal(g->top[0].act[1].overlap_ns, 1000);
    assert_string_equal(str(m, g->top[0].act[2].type), "dmem_buf_copyin");
    assert_int_equal(g->top[0].act[2].overlap_ns, 400);
    assert_true(g->lead_in.has);
    assert_int_equal(g->lead_in.end - g->lead_in.start, 2900);
    assert_int_equal(g->lead_in.host_busy_ns, 1000 + 1000); /* nrt_load 100-1100, nrt_execute 2000-3000 */
    done(m, s, &c);
}

static void executions_get_launch_latency_and_model(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, false);
    system_model *m;
    system_summary *s;
    summary_of(&c, &m, &s);
    assert_int_equal(s->executions, 2);
    const ss_execution *e1 = &s->execs[0], *e2 = &s->execs[1];
    assert_int_equal(e1->exec_id, 1);
    assert_int_equal(e1->cores, 2);
    assert_int_equal(e1->busy_ns, 3000);
    assert_true(e1->has_launch);
    assert_int_equal(e1->launch_ns, 1000);
    assert_int_equal(e1->model_id, 500);
    assert_int_equal(e2->exec_id, 2);
    assert_int_equal(e2->launch_ns, 6000);
    assert_int_equal(s->loads, 1);
    assert_int_equal(s->load_list[0].duration_ns, 1000);
    assert_int_equal(s->nmodels, 1);
    assert_string_equal(s->models[0].neff_path, "/x/model.neff");
    assert_int_equal(s->models[0].loads, 1);
    assert_int_equal(s->models[0].executions, 2);
    done(m, s, &c);
}

static void copies_are_attributed_to_the_innermost_enclosing_call(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, false);
    system_model *m;
    system_summary *s;
    summary_of(&c, &m, &s);
    const ss_copy *w = &s->copies[SS_COPY_TENSOR_WRITE], *in = &s->copies[SS_COPY_BUF_IN];
    assert_int_equal(w->count, 1);
    assert_int_equal(w->bytes, 4);
    assert_int_equal(w->nparents, 1);
    assert_string_equal(str(m, w->parents[0].type), "nrt_execute");
    assert_int_equal(in->count, 1);
    assert_int_equal(in->total_ns, 400);
    assert_string_equal(str(m, in->parents[0].type), "nrt_tensor_write");
    done(m, s, &c);
}

static void sync_conversion_is_exact_then_reports_skew(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, false);
    system_model *m;
    system_summary *s;
    summary_of(&c, &m, &s);
    assert_int_equal(s->sync.points, 2);
    assert_int_equal(s->sync.groups_matched, 1);
    assert_int_equal(s->sync.events_checked, 4);
    assert_true(s->sync.has_error);
    assert_int_equal(s->sync.max_abs_error_ns, 0);
    assert_int_equal(s->sync.ngroups, 2);
    assert_int_equal(s->sync.groups[0].core, 4);
    assert_int_equal(s->sync.groups[1].core, 5);
    done(m, s, &c);

    make_capture(&c, 7, 0, false);
    summary_of(&c, &m, &s);
    assert_int_equal(s->sync.max_abs_error_ns, 7);
    assert_int_equal(s->sync.groups[0].max_abs_error_ns, 0);
    assert_int_equal(s->sync.groups[1].max_abs_error_ns, 7);
    done(m, s, &c);
}

static void types_are_counted_with_unpaired_records(void **state)
{
    (void)state;
    capture c;
    make_capture(&c, 0, 0, false);
    system_model *m;
    system_summary *s;
    summary_of(&c, &m, &s);
    const ss_type *exe = NULL, *run = NULL;
    for (size_t i = 0; i < s->ntypes; i++) {
        if (!strcmp(str(m, s->types[i].name), "nrt_execute"))
            exe = &s->types[i];
        if (!strcmp(str(m, s->types[i].name), "nc_exec_running"))
            run = &s->types[i];
    }
    assert_non_null(exe);
    assert_int_equal(exe->type_id, T_EXECUTE);
    assert_int_equal(exe->pairs, 1);
    assert_int_equal(exe->open, 1);
    assert_int_equal(exe->orphan_ends, 1);
    assert_int_equal(exe->total_ns, 7000);
    assert_false(exe->hardware);
    assert_non_null(run);
    assert_true(run->hardware);
    assert_int_equal(run->pairs, 3);
    assert_int_equal(run->union_ns, 3500);
    assert_int_equal(run->total_ns, 2000 + 2000 + 500);
    assert_string_equal(str(m, s->types[0].name), "nrt_execute"); /* largest total first */
    done(m, s, &c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(begins_and_ends_pair_by_span_id_across_the_file),
        cmocka_unit_test(fewer_records_than_declared_is_noted),
        cmocka_unit_test(cut_off_ntrace_is_partial_with_the_offset),
        cmocka_unit_test(bad_or_missing_trace_info_is_an_error),
        cmocka_unit_test(every_memory_limit_fails_cleanly_or_loads),
        cmocka_unit_test(device_busy_is_the_union_per_core_and_over_cores),
        cmocka_unit_test(gaps_carry_the_host_activity_inside_them),
        cmocka_unit_test(executions_get_launch_latency_and_model),
        cmocka_unit_test(copies_are_attributed_to_the_innermost_enclosing_call),
        cmocka_unit_test(sync_conversion_is_exact_then_reports_skew),
        cmocka_unit_test(types_are_counted_with_unpaired_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
