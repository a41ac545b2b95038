/* test_samples_system — the real system + device capture in $NL_SAMPLES_DIR/capture (runtime 2.30.51,
 * trn2.3xlarge) read through system_pb → system_model → system_summary, asserted against the facts in
 * ../shared/samples/README.md (capture/ section): trace_info.pb fields and interned tables, every byte of
 * the four .pb files consumed, event counts per type, the two nc_exec_running spans (one per physical
 * core) and their union, the sync-point conversion error (0 ns), the other runtime durations, nrt_load per
 * worker, and the CPU and host-memory series. Every test skips, saying why, when the samples are absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "system_model.h"
#include "system_profile.h"
#include "system_summary.h"

#define CAPTURE "capture/i-0af76a70a6d3864dd_pid_713479"
#define MODEL_ID 171450338541704ull

static bool samples_present(void)
{
    const char *dir = getenv("NL_SAMPLES_DIR");
    struct stat st;
    return dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

typedef struct fixture {
    char paths[4][1024];
    system_model *m;
    system_summary s;
} fixture;

static int setup(void **state)
{
    if (!samples_present()) {
        *state = NULL;
        return 0;
    }
    fixture *f = calloc(1, sizeof *f);
    const char *names[4] = {"trace_info.pb", "ntrace.pb", "cpu_util.pb", "host_mem.pb"};
    for (int i = 0; i < 4; i++)
        snprintf(f->paths[i], sizeof f->paths[i], "%s/%s/%s", getenv("NL_SAMPLES_DIR"), CAPTURE, names[i]);
    system_profile_paths p = {f->paths[0], f->paths[1], f->paths[2], f->paths[3]};
    nl_error e;
    if (system_profile_load(&p, NULL, &f->m, &e) || system_summary_compute(f->m, NULL, &f->s, &e)) {
        print_message("cannot read the capture: %s (%s, offset %lld)\n", e.message, e.source, (long long)e.offset);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f) {
        system_summary_free(&f->s);
        system_model_free(f->m);
        free(f);
    }
    return 0;
}

#define REQUIRE_SAMPLES(f)                                                                                    \
    fixture *f = *state;                                                                                      \
    do {                                                                                                      \
        if (!f) {                                                                                             \
            print_message("skipping: samples directory %s is absent (set NL_SAMPLES_DIR to ../shared/samples)\n", \
                          getenv("NL_SAMPLES_DIR") ? getenv("NL_SAMPLES_DIR") : "(NL_SAMPLES_DIR unset)");      \
            skip();                                                                                           \
        }                                                                                                     \
    } while (0)

static const char *str(const fixture *f, uint32_t id)
{
    return strtab_str(system_model_strings(f->m), id, NULL);
}

static const ss_type *type_of(const fixture *f, const char *name)
{
    for (size_t i = 0; i < f->s.ntypes; i++)
        if (!strcmp(str(f, f->s.types[i].name), name))
            return &f->s.types[i];
    return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static void trace_info_matches_the_readme(void **state)
{
    REQUIRE_SAMPLES(f);
    const syspb_trace_info *ti = system_model_trace_info(f->m);
    assert_int_equal(ti->format_version, 2);
    assert_int_equal(ti->pid, 713479);
    assert_string_equal(ti->instance_id, "i-0af76a70a6d3864dd");
    assert_string_equal(ti->instance_type, "trn2.3xlarge");
    assert_string_equal(ti->host_ip, "172.31.131.112");
    assert_int_equal(ti->event_count, 1676);
    assert_int_equal(ti->ntrace_records, 1676);
    assert_int_equal(ti->cpu_count, 12);
    assert_string_equal(ti->cpu_model, "Intel(R) Xeon(R) Platinum 8488C");
    assert_int_equal(ti->memory_bytes, 133975228416ull);
    assert_int_equal(ti->cpu_util_records, 600);
    assert_int_equal(ti->host_mem_records, 600);
    assert_int_equal(ti->start_ns, 1773237643508494611ull);
    assert_int_equal(ti->end_ns, 1773238243677100845ull);
    assert_int_equal(ti->unknown_fields, 0);
    const syspb_intern_table *types = syspb_trace_info_table(ti, SYSPB_TABLE_EVENT_TYPES);
    assert_int_equal(types->count, 40);
    assert_string_equal(syspb_intern_lookup(types, 0), "generic");
    assert_string_equal(syspb_intern_lookup(types, 7), "nc_exec_running");
    assert_string_equal(syspb_intern_lookup(types, 25), "timestamp_sync_point");
    assert_string_equal(syspb_intern_lookup(types, 39), "exec_consume_gpsimd_stdio");
    const syspb_intern_table *models = syspb_trace_info_table(ti, SYSPB_TABLE_MODELS);
    assert_int_equal(models->count, 2);
    assert_string_equal(syspb_intern_lookup(models, 0), "invalid_interned_string");
    assert_true(ends_with(system_model_neff_path(f->m, MODEL_ID), "model.MODULE_297095076442530781+fad94d7c.neff"));
    assert_int_equal(syspb_trace_info_table(ti, "nrt_inspect_mem_usage_type")->count, 22);
    const syspb_intern_table *errnos = syspb_trace_info_table(ti, "nrt_inspect_mem_alloc_errno_type");
    assert_string_equal(syspb_intern_lookup(errnos, 0), "SUCCESS");
    assert_string_equal(syspb_intern_lookup(errnos, 12), "OUT_OF_MEMORY");
}

static void every_byte_of_every_file_is_consumed(void **state)
{
    REQUIRE_SAMPLES(f);
    const uint64_t bytes[SM_FILE_COUNT] = {1891, 230793, 126210, 12000};
    const uint64_t records[SM_FILE_COUNT] = {1, 1676, 7200, 600};
    for (int i = 0; i < SM_FILE_COUNT; i++) {
        const system_file_info *fi = system_model_file(f->m, (system_file)i);
        assert_true(fi->read);
        assert_int_equal(fi->stats.file_bytes, bytes[i]);
        assert_int_equal(fi->stats.bytes_consumed, bytes[i]);
        assert_int_equal(fi->stats.records, records[i]);
        assert_int_equal(fi->stats.records_skipped, 0);
        assert_false(fi->stats.partial);
        assert_int_equal(fi->declared_records, records[i]);
    }
    assert_int_equal(system_model_note_count(f->m), 0);
}

static void event_counts_per_type_match(void **state)
{
    REQUIRE_SAMPLES(f);
    const system_model_counts *c = system_model_counts_get(f->m);
    assert_int_equal(c->records, 1676);
    assert_int_equal(c->begins, 837);
    assert_int_equal(c->ends, 837);
    assert_int_equal(c->instants, 2);
    assert_int_equal(c->pairs, 837);
    assert_int_equal(c->open_begins, 0);
    assert_int_equal(c->orphan_ends, 0);
    static const struct { const char *name; uint64_t pairs; } PAIRS[] = {
        {"dmem_buf_copyin", 398}, {"nrt_dma_mem_alloc", 395}, {"nrt_tensor_allocate", 9}, {"nrt_tensor_write", 8},
        {"nrt_dma_mem_dealloc", 5}, {"nrt_load", 4}, {"nc_exec_running", 2}, {"nc_model_switch", 2},
        {"exec_consume_gpsimd_stdio", 2}, {"notification_consume_errors", 2}, {"nrt_tensor_free", 2},
        {"nrt_execute", 1}, {"nrt_model_submit", 1}, {"kbl_exec_pre", 1}, {"kbl_exec_wait", 1}, {"kbl_exec_post", 1},
        {"kmgr_exec_core", 1}, {"nrt_tensor_read", 1}, {"dmem_buf_copyout", 1},
    };
    uint64_t total = 0;
    for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++) {
        const ss_type *t = type_of(f, PAIRS[i].name);
        assert_non_null(t);
        assert_int_equal(t->pairs, PAIRS[i].pairs);
        assert_int_equal(t->instants + t->open + t->orphan_ends, 0);
        total += t->pairs;
    }
    assert_int_equal(total, 837);
    const ss_type *sync = type_of(f, "timestamp_sync_point");
    assert_int_equal(sync->instants, 2);
    assert_int_equal(sync->pairs, 0);
    assert_int_equal(f->s.ntypes, sizeof PAIRS / sizeof PAIRS[0] + 1);
}

/* seq >> 50 == worker_gid (README), and records per worker 488/396/396/396. */
static void span_ids_carry_the_worker(void **state)
{
    REQUIRE_SAMPLES(f);
    const table *t = system_model_table_get(f->m, SM_SPANS);
    uint64_t per_worker[4] = {0};
    for (size_t r = 0; r < table_rows(t); r++) {
        int64_t w = table_i64(t, SM_SPAN_WORKER, r);
        assert_true(w >= 0 && w < 4);
        assert_int_equal(table_u64(t, SM_SPAN_ID, r) >> 50, (uint64_t)w);
        per_worker[w] += (table_u64(t, SM_SPAN_FLAGS, r) & SM_SPAN_F_INSTANT) ? 1 : 2;
    }
    assert_int_equal(per_worker[0], 488);
    assert_int_equal(per_worker[1], 396);
    assert_int_equal(per_worker[2], 396);
    assert_int_equal(per_worker[3], 396);
}

static void nc_exec_running_gives_one_span_per_physical_core(void **state)
{
    REQUIRE_SAMPLES(f);
    const system_summary *s = &f->s;
    assert_int_equal(s->ncores, 2);
    const ss_core *c4 = s->cores[0].core == 4 ? &s->cores[0] : &s->cores[1];
    const ss_core *c5 = s->cores[0].core == 5 ? &s->cores[0] : &s->cores[1];
    assert_int_equal(c4->core, 4);
    assert_int_equal(c5->core, 5);
    assert_true(c4->physical && c5->physical);
    assert_int_equal(c4->nc, 0);
    assert_int_equal(c4->busy_ns, 982590);
    assert_int_equal(c5->busy_ns, 14763);
    assert_int_equal(c4->first_start, 1773237645757031422ll);
    assert_int_equal(c4->last_end, 1773237645758014012ll);
    assert_int_equal(c5->first_start, 1773237645757029574ll);
    assert_int_equal(c5->last_end, 1773237645757044337ll);
    assert_int_equal(s->device_busy_ns, 984438);
    assert_int_equal(s->gaps.count, 0);
    assert_int_equal(s->window_start, 1773237645742008195ll);
    assert_int_equal(s->window_end, 1773237645758435066ll);
    /* the device-clock begin timestamps */
    const table *t = system_model_table_get(f->m, SM_SPANS);
    uint32_t exec = system_model_type(f->m, "nc_exec_running");
    int found = 0;
    for (size_t r = 0; r < table_rows(t); r++) {
        if (table_str(t, SM_SPAN_TYPE, r) != exec)
            continue;
        int64_t core = table_i64(t, SM_SPAN_CORE, r);
        assert_int_equal(table_i64(t, SM_SPAN_NC_BEGIN, r), core == 4 ? 257063241498730ll : 257063241495382ll);
        assert_int_equal(table_i64(t, SM_SPAN_EXEC, r), 1);
        assert_int_equal(table_i64(t, SM_SPAN_NC, r), 0);
        assert_int_equal(table_i64(t, SM_SPAN_WORKER, r), 0);
        /* duration from f2 equals the nc_timestamp_ns difference */
        assert_int_equal(table_i64(t, SM_SPAN_END, r) - table_i64(t, SM_SPAN_START, r),
                         table_i64(t, SM_SPAN_NC_END, r) - table_i64(t, SM_SPAN_NC_BEGIN, r));
        found++;
    }
    assert_int_equal(found, 2);
}

static void sync_point_conversion_is_exact(void **state)
{
    REQUIRE_SAMPLES(f);
    const ss_sync *y = &f->s.sync;
    assert_int_equal(y->points, 2);
    assert_int_equal(y->groups_matched, 1);
    assert_int_equal(y->groups_unmatched, 0);
    assert_int_equal(y->events_unconvertible, 0);
    assert_int_equal(y->events_checked, 8); /* nc_exec_running and nc_model_switch, begin and end, two cores */
    assert_true(y->has_error);
    assert_int_equal(y->max_abs_error_ns, 0);
    assert_int_equal(y->ngroups, 2);
    assert_int_equal(y->groups[0].core, 4);
    assert_int_equal(y->groups[0].sync_cpu_ns, 1773237645757022494ll);
    assert_int_equal(y->groups[0].sync_nc_ns, 257063241489802ll);
    assert_int_equal(y->groups[1].core, 5);
    assert_int_equal(y->groups[1].sync_cpu_ns, 1773237645757022494ll);
    assert_int_equal(y->groups[1].sync_nc_ns, 257063241488302ll);
}

static void runtime_durations_and_loads_match(void **state)
{
    REQUIRE_SAMPLES(f);
    static const struct { const char *name; int64_t ns; } ONE[] = {
        {"nrt_execute", 1240135}, {"kmgr_exec_core", 1129034}, {"kbl_exec_wait", 1014957},
        {"nrt_model_submit", 166404}, {"kbl_exec_pre", 69349}, {"kbl_exec_post", 25566},
    };
    for (size_t i = 0; i < sizeof ONE / sizeof ONE[0]; i++)
        assert_int_equal(type_of(f, ONE[i].name)->total_ns, ONE[i].ns);
    const ss_type *sw = type_of(f, "nc_model_switch");
    assert_int_equal(sw->max_ns, 9025);
    assert_int_equal(sw->min_ns, 7023);
    const int64_t loads[4] = {13579085, 12779175, 13252714, 10658831};
    assert_int_equal(f->s.loads, 4);
    bool seen[4] = {false};
    for (size_t i = 0; i < f->s.nloads; i++) {
        const ss_load *l = &f->s.load_list[i];
        assert_true(l->worker >= 0 && l->worker < 4);
        assert_int_equal(l->duration_ns, loads[l->worker]);
        assert_int_equal(l->model_id, MODEL_ID); /* only on the end record */
        seen[l->worker] = true;
    }
    assert_true(seen[0] && seen[1] && seen[2] && seen[3]);
    assert_int_equal(f->s.executions, 1);
    assert_int_equal(f->s.execs[0].model_id, MODEL_ID);
    assert_int_equal(f->s.execs[0].cores, 2);
    assert_int_equal(f->s.execs[0].busy_ns, 984438);
    assert_true(f->s.execs[0].has_launch);
    assert_int_equal(f->s.execs[0].host_call_ns, 1240135);
    assert_int_equal(f->s.nmodels, 1);
    assert_int_equal(f->s.models[0].loads, 4);
}

static void cpu_and_host_memory_series_match(void **state)
{
    REQUIRE_SAMPLES(f);
    const ss_cpu *u = &f->s.cpu;
    assert_int_equal(u->records, 7200);
    assert_int_equal(u->cpus, 12);
    assert_int_equal(u->timestamps, 600);
    assert_int_equal(u->omitted_util, 4758);
    assert_true(u->max_pct > 73.735 && u->max_pct < 73.745);
    assert_int_equal(u->first_time, 1773237643676937891ll);
    assert_int_equal(u->last_time, 1773238242792882755ll);
    const ss_mem *m = &f->s.mem;
    assert_int_equal(m->records, 600);
    assert_int_equal(m->min_bytes, 14472425472ull);
    assert_int_equal(m->max_bytes, 15042867200ull);
    assert_int_equal(m->first_time, 1773237643676937891ll);
    assert_int_equal(m->total_bytes, 133975228416ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_info_matches_the_readme),
        cmocka_unit_test(every_byte_of_every_file_is_consumed),
        cmocka_unit_test(event_counts_per_type_match),
        cmocka_unit_test(span_ids_carry_the_worker),
        cmocka_unit_test(nc_exec_running_gives_one_span_per_physical_core),
        cmocka_unit_test(sync_point_conversion_is_exact),
        cmocka_unit_test(runtime_durations_and_loads_match),
        cmocka_unit_test(cpu_and_host_memory_series_match),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
