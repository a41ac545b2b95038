/* Unit tests for analyzers/analyses/gaps_host (collective-gaps inputs from host-side timelines): the system
 * capture of host_synth.h (hs_fixture_system) and small Kineto traces whose answers are worked out in the
 * comments. Framework times without baseTimeNanoseconds are unix µs (× 1000 in ns). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gaps_host.h"
#include "host_synth.h"

static void system_cc_running_gives_one_lane_per_core(void **state)
{
    (void)state;
    hs_capture cap;
    system_model *m = hs_fixture_system(&cap);
    gaps_host_inputs in;
    nl_error err;
    assert_int_equal(gaps_host_from_system(m, &in, &err), 0);
    assert_int_equal(in.source, GAPS_HOST_SYSTEM_CC);
    assert_string_equal(in.lane_basis, "device_core_idx");
    assert_int_equal(in.count, 2);
    assert_int_equal(in.events, 3);
    assert_int_equal(in.skipped, 1); /* the orphan end */
    assert_int_equal(in.cores[0].id, 4);
    assert_int_equal(in.cores[0].count, 2);
    assert_int_equal(in.cores[0].ts[0], 3500);
    assert_int_equal(in.cores[0].ts[1], 4500);
    assert_int_equal(in.cores[1].id, 5);
    assert_int_equal(in.cores[1].ts[0], 3550);
    assert_int_equal(in.nnames, 1);
    assert_int_equal(in.names[0].count, 3);
    assert_int_equal(in.nrelated, 2); /* from the type table, by id: cc_running (63), cc_exec_barrier (65) */
    assert_string_equal(in.related[0].name, "cc_running");
    assert_int_equal(in.related[0].spans, 4);
    assert_string_equal(in.related[1].name, "cc_exec_barrier");
    assert_int_equal(in.related[1].spans, 0);
    int64_t ns = 0;
    assert_int_equal(gaps_host_exec_window(m, &in, 4, &ns), 1);
    assert_int_equal(ns, 2000);
    assert_int_equal(gaps_host_exec_window(m, &in, 9, &ns), 0);
    gaps_host_inputs_free(&in);
    system_model_free(m);
    hs_remove(&cap);
}

static void framework_prefers_device_comm_kernels_over_host_annotations(void **state)
{
    (void)state;
    framework_model *m = hs_trace(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"record_param_comms\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":2},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":2},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm\",\"pid\":0,\"tid\":7,\"ts\":12,\"dur\":2},"
        "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"nccl:all_reduce\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":2}"
        "]}");
    gaps_host_inputs in;
    nl_error err;
    assert_int_equal(gaps_host_from_framework(m, &in, &err), 0);
    assert_int_equal(in.source, GAPS_HOST_FRAMEWORK_DEVICE);
    assert_int_equal(in.events, 2);
    assert_int_equal(in.host_annotations, 2);
    assert_int_equal(in.count, 1);
    assert_string_equal(in.lane_basis, "tid");
    assert_int_equal(in.cores[0].id, 7);
    assert_int_equal(in.cores[0].ts[0], 10000); /* sorted; no base: unix µs */
    assert_int_equal(in.cores[0].ts[1], 30000);
    gaps_host_inputs_free(&in);
    framework_model_free(m);
}

static void framework_host_annotations_lane_by_tid_or_thread_index(void **state)
{
    (void)state;
    framework_model *m = hs_trace(
        "{\"baseTimeNanoseconds\": 5000, \"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:all_reduce\",\"pid\":1,\"tid\":3553,\"ts\":3,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:all_reduce\",\"pid\":1,\"tid\":3554,\"ts\":2,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:all_reduce\",\"pid\":1,\"tid\":3553,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::all_reduce\",\"pid\":1,\"tid\":3553,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::allreduce_\",\"pid\":1,\"tid\":3553,\"ts\":1,\"dur\":1}"
        "]}");
    gaps_host_inputs in;
    nl_error err;
    assert_int_equal(gaps_host_from_framework(m, &in, &err), 0);
    assert_int_equal(in.source, GAPS_HOST_FRAMEWORK_HOST);
    assert_int_equal(in.events, 3);
    assert_int_equal(in.count, 2);
    assert_string_equal(in.lane_basis, "tid");
    assert_int_equal(in.cores[0].id, 3553);
    assert_int_equal(in.cores[0].count, 2);
    assert_int_equal(in.cores[0].ts[0], 6000);
    assert_int_equal(in.cores[0].ts[1], 8000);
    assert_int_equal(in.cores[1].id, 3554);
    gaps_host_inputs_free(&in);
    framework_model_free(m);
    m = hs_trace("{\"traceEvents\":["
                 "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\",\"pid\":9,\"tid\":2575472,"
                 "\"ts\":1,\"dur\":1}]}");
    assert_int_equal(gaps_host_from_framework(m, &in, &err), 0);
    assert_string_equal(in.lane_basis, "thread_index"); /* the tid is beyond the cc_core argument's range */
    assert_int_equal(in.cores[0].id, in.lanes[0].thread);
    assert_string_equal(framework_model_str(m, in.lanes[0].tid, NULL), "2575472");
    gaps_host_inputs_free(&in);
    framework_model_free(m);
    m = hs_trace("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,"
                 "\"ts\":1,\"dur\":1}]}");
    assert_int_equal(gaps_host_from_framework(m, &in, &err), 0);
    assert_int_equal(in.source, GAPS_HOST_NONE);
    assert_int_equal(in.count, 0);
    gaps_host_inputs_free(&in);
    framework_model_free(m);
}

static void collective_annotation_names(void **state)
{
    (void)state;
    const struct { const char *name; bool yes; } cases[] = {
        {"nccl:all_reduce", true}, {"gloo:allreduce", true}, {"nccl:_allgather_base", true},
        {"neuron:reduce_scatter", true}, {"nccl:broadcast", true}, {"gloo:barrier", true}, {"aten::add", false},
        {"record_param_comms", false}, {":all_reduce", false}, {"nccl:foo", false}, {"ProfilerStep#1", false},
        {"c10d::allreduce_", false}, {"nccl:", false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (gaps_host_is_collective_annotation(cases[i].name, strlen(cases[i].name)) != cases[i].yes)
            fail_msg("%s: expected %d", cases[i].name, cases[i].yes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(system_cc_running_gives_one_lane_per_core),
        cmocka_unit_test(framework_prefers_device_comm_kernels_over_host_annotations),
        cmocka_unit_test(framework_host_annotations_lane_by_tid_or_thread_index),
        cmocka_unit_test(collective_annotation_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
