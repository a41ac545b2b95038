/* Unit tests for analyzers/analyses/host_device_join on a synthetic capture (host_synth.h) and handcrafted
 * traces whose answers are worked out in the comments.
 *
 * The system profile (unix ns): nrt_execute nc0 on OS thread 4242 [2.0M, 9.0M) launches exec_id 1 on
 * core 4 [3M, 5M) and core 5 [4M, 6M); nrt_execute nc0 [20M, 30M) launches exec_id 2 on core 4 [21M, 22M);
 * nc1 has no launch call and runs core 6 [40M, 41M). Traces use baseTimeNanoseconds 1,000,000, so
 * ts (µs) = (unix ns − 1e6) / 1000. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "host_device_join.h"
#include "host_synth.h"

#define NC0 "worker_gid", "0", "nc_idx", "0"
#define NC1 "worker_gid", "1", "nc_idx", "1"

static system_model *capture(hs_capture *c)
{
    static const hs_ev list[] = {
        {2000000, HS_EXECUTE, 1, 1, 4242, {NC0, "model_id", "500", NULL}},
        {3000000, HS_EXEC_RUNNING, 1, 2, 7, {NC0, "device_core_idx", "4", "exec_id", "1", "nc_timestamp_ns", "1", NULL}},
        {4000000, HS_EXEC_RUNNING, 1, 3, 7, {NC0, "device_core_idx", "5", "exec_id", "1", "nc_timestamp_ns", "2", NULL}},
        {5000000, HS_EXEC_RUNNING, 2, 2, 7, {NC0, "nc_timestamp_ns", "3", NULL}},
        {6000000, HS_EXEC_RUNNING, 2, 3, 7, {NC0, "nc_timestamp_ns", "4", NULL}},
        {9000000, HS_EXECUTE, 2, 1, 4242, {NC0, NULL}},
        {20000000, HS_EXECUTE, 1, 4, 4242, {NC0, "model_id", "500", NULL}},
        {21000000, HS_EXEC_RUNNING, 1, 5, 7, {NC0, "device_core_idx", "4", "exec_id", "2", "nc_timestamp_ns", "5", NULL}},
        {22000000, HS_EXEC_RUNNING, 2, 5, 7, {NC0, "nc_timestamp_ns", "6", NULL}},
        {30000000, HS_EXECUTE, 2, 4, 4242, {NC0, NULL}},
        {40000000, HS_EXEC_RUNNING, 1, 6, 8, {NC1, "device_core_idx", "6", "exec_id", "3", "nc_timestamp_ns", "7", NULL}},
        {41000000, HS_EXEC_RUNNING, 2, 6, 8, {NC1, "nc_timestamp_ns", "8", NULL}},
        {50000000, HS_EXEC_RUNNING, 2, 99, 8, {NC1, "nc_timestamp_ns", "9", NULL}}, /* an end without a begin */
    };
    return hs_system(c, list, sizeof list / sizeof list[0]);
}

static void join(const framework_model *fm, const system_model *sm, host_device_join *j)
{
    nl_error err;
    memset(j, 0x5a, sizeof *j);
    if (host_device_join_compute(fm, sm, NULL, j, &err) != 0)
        fail_msg("join failed: %s", err.message);
}

static const char *name_of(const framework_model *m, size_t row)
{
    return row == HDJ_NO_ROW ? "(none)" : framework_model_str(m, table_str(framework_model_events(m), FM_EV_NAME, row), NULL);
}

static const hdj_group *find_group(const framework_model *m, const hdj_group *g, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(framework_model_str(m, g[i].name, NULL), name))
            return &g[i];
    fail_msg("no group %s", name);
    return NULL;
}

/* Host spans on tid 4242: ProfilerStep#3 [1.5M, 35M); aten::add [1.9M, 9.5M) with a runtime call inside;
 * Torch-Compiled Region [19M, 31M) ⊃ CompiledFunction [19.5M, 30.5M). tid 99: aten::mul [39M, 42M), and a
 * python frame around it that must not be taken as the op.
 * exec 1 (cores 4, 5): anchor 2.0M → aten::add, slack min(0.1M, 7.5M) = 100,000; exec 2: anchor 20M →
 * CompiledFunction (slack 500,000), region; exec 3: no launch, anchor = its start 40M → aten::mul on tid 99
 * (slack 1,000,000), outside the step. Device time: aten::add = union [3M, 6M) = 3M over 2 spans (core sum
 * 4M); the step = [3M, 6M) ∪ [21M, 22M) = 4M; all = 5M, core sum 6M. */
static const char *const TRACE =
    "{\"baseTimeNanoseconds\": 1000000, \"traceEvents\": ["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":4242,\"tid\":4242,\"ts\":500,\"dur\":33500},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":4242,\"tid\":4242,\"ts\":900,\"dur\":7600},"
    "{\"ph\":\"X\",\"cat\":\"privateuse1_runtime\",\"name\":\"nrta_execute\",\"pid\":4242,\"tid\":4242,\"ts\":950,\"dur\":7400},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"Torch-Compiled Region: 0/0\",\"pid\":4242,\"tid\":4242,"
    "\"ts\":18000,\"dur\":12000},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"CompiledFunction\",\"pid\":4242,\"tid\":4242,\"ts\":18500,\"dur\":11000},"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"model.py(12): forward\",\"pid\":4242,\"tid\":99,\"ts\":38500,"
    "\"dur\":2000},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":4242,\"tid\":99,\"ts\":38000,\"dur\":3000}"
    "]}";

static void executions_go_to_the_op_around_their_launch_call(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *sm = capture(&cap);
    framework_model *fm = hs_trace(TRACE);
    host_device_join j;
    join(fm, sm, &j);
    assert_true(j.has_base);
    assert_int_equal(j.base_ns, 1000000);
    assert_int_equal(j.resolution_ns, 1000);
    assert_int_equal(j.exec_spans, 4);
    assert_int_equal(j.unpaired_exec_records, 1);
    assert_int_equal(j.with_launch, 3);
    assert_int_equal(j.by_launch, 3);
    assert_int_equal(j.by_exec_time, 1);
    assert_int_equal(j.unattributed, 0);
    assert_int_equal(j.thread_matched, 3);
    assert_int_equal(j.ambiguous, 0);
    assert_int_equal(j.device_union_ns, 5000000);
    assert_int_equal(j.device_core_sum_ns, 6000000);
    assert_true(j.has_slack);
    assert_int_equal(j.min_slack_ns, 100000);
    /* executions by start: core4 3M, core5 4M, core4 21M, core6 40M */
    assert_int_equal(j.nexecs, 4);
    assert_string_equal(name_of(fm, j.execs[0].op_row), "aten::add");
    assert_string_equal(name_of(fm, j.execs[1].op_row), "aten::add");
    assert_int_equal(j.execs[1].core, 5);
    assert_int_equal(j.execs[0].basis, HDJ_LAUNCH_IN_OP);
    assert_int_equal(j.execs[0].launch_start, 2000000);
    assert_int_equal(j.execs[0].launch_thread, 4242);
    assert_int_equal(j.execs[0].model_id, 500); /* from the launch call: nc_exec_running carries none */
    assert_int_equal(j.execs[3].model_id, 0);
    assert_int_equal(j.execs[0].slack_ns, 100000);
    assert_true(j.execs[0].thread_matched);
    assert_false(j.execs[3].thread_matched); /* no launch call */
    assert_string_equal(name_of(fm, j.execs[0].step_row), "ProfilerStep#3");
    assert_string_equal(name_of(fm, j.execs[2].op_row), "CompiledFunction");
    assert_string_equal(name_of(fm, j.execs[2].region_row), "Torch-Compiled Region: 0/0");
    assert_int_equal(j.execs[2].slack_ns, 500000);
    assert_string_equal(name_of(fm, j.execs[3].op_row), "aten::mul");
    assert_int_equal(j.execs[3].basis, HDJ_EXEC_IN_OP);
    assert_int_equal(j.execs[3].anchor_ns, 40000000);
    assert_int_equal(j.execs[3].step_row, HDJ_NO_ROW);
    assert_int_equal(j.execs[3].slack_ns, 1000000);
    /* groups */
    assert_int_equal(j.nops, 3);
    assert_string_equal(framework_model_str(fm, j.ops[0].name, NULL), "aten::add");
    assert_int_equal(j.ops[0].device_union_ns, 3000000);
    assert_int_equal(j.ops[0].device_core_sum_ns, 4000000);
    assert_int_equal(j.ops[0].exec_spans, 2);
    assert_int_equal(j.ops[0].instances, 1);
    assert_int_equal(j.ops[0].host_ns, 7600000);
    assert_int_equal(find_group(fm, j.ops, j.nops, "aten::mul")->device_union_ns, 1000000);
    assert_int_equal(j.nsteps, 1);
    assert_int_equal(j.steps[0].device_union_ns, 4000000);
    assert_int_equal(j.steps[0].exec_spans, 3);
    assert_int_equal(j.steps[0].host_ns, 33500000);
    assert_int_equal(j.steps[0].start, 1500000);
    assert_int_equal(j.nregions, 1);
    assert_int_equal(j.regions[0].device_union_ns, 1000000);
    assert_true(j.has_fw_window);
    assert_int_equal(j.fw_first_ns, 1500000);
    assert_int_equal(j.fw_last_ns, 42000000);
    assert_int_equal(j.outside_fw_window, 0);
    host_device_join_free(&j);
    framework_model_free(fm);
    system_model_free(sm);
    hs_remove(&cap);
}

/* A PrivateUse1 driver event [3,000,250, 4,999,000) on device pid 100 carries correlation 77, which leads to a
 * runtime call inside aten::mul on tid 5 [2.5M, 3.5M): exec 1 on both cores overlaps it, so both go to
 * aten::mul although aten::add contains the launch call. Offsets: 3M − 3,000,250 = −250 and 4M − 3,000,250 =
 * 999,750 (median: the lower middle, −250). ts with decimals → resolution 1 ns. */
static void a_correlated_device_event_takes_precedence(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *sm = capture(&cap);
    framework_model *fm = hs_trace(
        "{\"baseTimeNanoseconds\": 1000000, \"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":4242,\"tid\":4242,\"ts\":900,\"dur\":7600},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":4242,\"tid\":5,\"ts\":1500,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_runtime\",\"name\":\"launch\",\"pid\":4242,\"tid\":5,\"ts\":1600,\"dur\":100,"
        "\"args\":{\"correlation\":77}},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_driver\",\"name\":\"nc_exec\",\"pid\":100,\"tid\":1,\"ts\":2000.25,"
        "\"dur\":1998.75,\"args\":{\"correlation\":77}}"
        "]}");
    host_device_join j;
    join(fm, sm, &j);
    assert_int_equal(j.resolution_ns, 1);
    assert_int_equal(j.fw_device_events, 1);
    assert_int_equal(j.fw_linked_device_events, 1);
    assert_int_equal(j.by_correlation, 2);
    assert_string_equal(name_of(fm, j.execs[0].op_row), "aten::mul");
    assert_string_equal(name_of(fm, j.execs[1].op_row), "aten::mul");
    assert_int_equal(j.execs[0].basis, HDJ_LINK_CORRELATION);
    assert_int_equal(j.execs[0].anchor_ns, 2600000);
    /* the op is on tid 5, the launch call (nrt_execute) on OS thread 4242: not matched, though the link forced
     * the thread */
    assert_false(j.execs[0].thread_matched);
    assert_false(j.execs[1].thread_matched);
    assert_int_equal(j.thread_matched, 0);
    assert_int_equal(j.offset_samples, 2);
    assert_int_equal(j.offset_min_ns, -250);
    assert_int_equal(j.offset_median_ns, -250);
    assert_int_equal(j.offset_max_ns, 999750);
    /* exec 2 lies in no op of this trace; exec 3 neither */
    assert_int_equal(j.unattributed, 2);
    assert_int_equal(j.unattributed_ns, 2000000);
    assert_int_equal(j.outside_fw_window, 2);
    host_device_join_free(&j);
    framework_model_free(fm);
    system_model_free(sm);
    hs_remove(&cap);
}

/* The same device event without a correlation, linked by an ac2g flow: f inside it on its thread, s at 2.65M on
 * tid 5 inside aten::mul. */
static void a_flow_links_a_device_event_to_its_host_op(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *sm = capture(&cap);
    framework_model *fm = hs_trace(
        "{\"baseTimeNanoseconds\": 1000000, \"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":4242,\"tid\":5,\"ts\":1500,\"dur\":1000},"
        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":4242,\"tid\":5,\"ts\":1650,\"id\":5,\"bp\":\"e\"},"
        "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":100,\"tid\":1,\"ts\":2000.25,\"id\":5,\"bp\":\"e\"},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_driver\",\"name\":\"nc_exec\",\"pid\":100,\"tid\":1,\"ts\":2000.25,\"dur\":1998.75}"
        "]}");
    host_device_join j;
    join(fm, sm, &j);
    assert_int_equal(j.by_flow, 2);
    assert_int_equal(j.execs[0].basis, HDJ_LINK_FLOW);
    assert_int_equal(j.execs[0].anchor_ns, 2650000);
    assert_string_equal(name_of(fm, j.execs[0].op_row), "aten::mul");
    host_device_join_free(&j);
    framework_model_free(fm);
    system_model_free(sm);
    hs_remove(&cap);
}

/* Two host threads both hold an op around the launch and neither is thread 4242: the innermost wins and the
 * execution counts as ambiguous. */
static void without_a_tid_match_the_innermost_op_wins_and_is_ambiguous(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *sm = capture(&cap);
    framework_model *fm = hs_trace(
        "{\"baseTimeNanoseconds\": 1000000, \"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":9000},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"inner\",\"pid\":1,\"tid\":2,\"ts\":900,\"dur\":200}"
        "]}");
    host_device_join j;
    join(fm, sm, &j);
    assert_string_equal(name_of(fm, j.execs[0].op_row), "inner");
    assert_false(j.execs[0].thread_matched);
    assert_int_equal(j.ambiguous, 2);
    assert_int_equal(j.thread_matched, 0);
    host_device_join_free(&j);
    framework_model_free(fm);
    system_model_free(sm);
    hs_remove(&cap);
}

/* thread_matched follows its documented meaning whatever placed the execution: the correlated launch sits in
 * aten::mul on tid 4242, the OS thread of nrt_execute, so exec 1 on both cores is matched (linked, not placed
 * by the launch call), and the total counts exactly the matched items (it once counted launch-basis ones only
 * while every linked item said true). */
static void thread_matched_per_execution_agrees_with_the_total(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *sm = capture(&cap);
    framework_model *fm = hs_trace(
        "{\"baseTimeNanoseconds\": 1000000, \"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":4242,\"tid\":4242,\"ts\":1500,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_runtime\",\"name\":\"launch\",\"pid\":4242,\"tid\":4242,\"ts\":1600,"
        "\"dur\":100,\"args\":{\"correlation\":77}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::sum\",\"pid\":4242,\"tid\":4242,\"ts\":19000,\"dur\":2000},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_driver\",\"name\":\"nc_exec\",\"pid\":100,\"tid\":1,\"ts\":2000.25,"
        "\"dur\":1998.75,\"args\":{\"correlation\":77}}"
        "]}");
    host_device_join j;
    join(fm, sm, &j);
    assert_int_equal(j.by_correlation, 2);
    assert_int_equal(j.by_launch, 1); /* exec 2: nrt_execute at 20M inside aten::sum, same thread */
    assert_int_equal(j.execs[0].basis, HDJ_LINK_CORRELATION);
    assert_true(j.execs[0].thread_matched);
    assert_true(j.execs[1].thread_matched);
    assert_true(j.execs[2].thread_matched);
    assert_false(j.execs[3].thread_matched); /* unattributed, no launch call */
    uint64_t matched = 0;
    for (size_t i = 0; i < j.nexecs; i++)
        matched += j.execs[i].thread_matched;
    assert_int_equal(j.thread_matched, matched);
    assert_int_equal(j.thread_matched, 3);
    host_device_join_free(&j);
    framework_model_free(fm);
    system_model_free(sm);
    hs_remove(&cap);
}

static void cancel_stops_the_join(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *sm = capture(&cap);
    framework_model *fm = hs_trace(TRACE);
    atomic_int cancel = 1;
    host_device_join j;
    nl_error err;
    assert_int_equal(host_device_join_compute(fm, sm, &cancel, &j, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    assert_null(j.execs);
    framework_model_free(fm);
    system_model_free(sm);
    hs_remove(&cap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(executions_go_to_the_op_around_their_launch_call),
        cmocka_unit_test(a_correlated_device_event_takes_precedence),
        cmocka_unit_test(a_flow_links_a_device_event_to_its_host_op),
        cmocka_unit_test(without_a_tid_match_the_innermost_op_wins_and_is_ambiguous),
        cmocka_unit_test(thread_matched_per_execution_agrees_with_the_total),
        cmocka_unit_test(cancel_stops_the_join),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
