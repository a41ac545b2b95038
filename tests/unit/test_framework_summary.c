/* Unit tests for analyzers/analyses/framework_summary on small handcrafted traces whose answers are worked
 * out by hand in the comments: self time with a per-thread stack on unsorted input, device time credited
 * through correlation / flow / External id, busy time as a union with gaps, steps, copies, B/E pairs,
 * latency percentiles (nearest rank), a host-only trace and cancel, and the same self times for any order of
 * thousands of nested spans (the per-thread sort). Times are written in µs (ns = ×1000). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework_model.h"
#include "framework_summary.h"
#include "kineto.h"

static framework_model *model_of(const char *doc)
{
    framework_model *m;
    nl_error err;
    if (kineto_read_mem(doc, strlen(doc), "t.json", NULL, &m, &err) != 0)
        fail_msg("read failed: %s at %lld: %s", nl_error_code_name(err.code), (long long)err.offset, err.message);
    return m;
}

static void summarize(const framework_model *m, framework_summary *s)
{
    nl_error err;
    memset(s, 0x5a, sizeof *s);
    if (framework_summary_compute(m, NULL, s, &err) != 0)
        fail_msg("summary failed: %s", err.message);
}

static const fs_op *find_op(const framework_model *m, const fs_op *ops, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(framework_model_str(m, ops[i].name, NULL), name) == 0)
            return &ops[i];
    fail_msg("no op %s", name);
    return NULL;
}

/* One host thread (pid 1, tid 1), written out of order:
 *   A [0,100)   B [10,40) ⊂ A   C [20,30) ⊂ B   D [50,60) ⊂ A   E [95,120) overlaps A's end (counts 5 to A)
 *   G [200,300) and H [200,250): same start, the longer is the parent
 * and tid 2: F [0,1000) with nothing under it.
 * self: A = 100 − (30 + 10 + 5) = 55, B = 30 − 10 = 20, C = 10, D = 10, E = 25, G = 50, H = 50, F = 1000. */
static void self_time_subtracts_direct_children_per_thread_on_unsorted_input(void **state)
{
    (void)state;
    framework_model *m = model_of(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"H\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":50},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"E\",\"pid\":1,\"tid\":1,\"ts\":95,\"dur\":25},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"F\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"D\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":10},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"G\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":1,\"ts\":0,\"dur\":5000},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"ts\":0,\"args\":{\"name\":\"python\"}}"
        "]}");
    framework_summary s;
    summarize(m, &s);
    static const struct {
        const char *name;
        int64_t self, total;
    } want[] = {{"A", 55, 100}, {"B", 20, 30}, {"C", 10, 10}, {"D", 10, 10}, {"E", 25, 25},
                {"G", 50, 100}, {"H", 50, 50}, {"F", 1000, 1000}};
    assert_int_equal(s.nhost_ops, 8); /* the profiler's Trace span is not an op */
    assert_int_equal(s.host_spans, 8);
    assert_int_equal(s.host_threads, 2);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const fs_op *op = find_op(m, s.host_ops, s.nhost_ops, want[i].name);
        assert_int_equal(op->count, 1);
        assert_int_equal(op->self_ns, want[i].self * 1000);
        assert_int_equal(op->total_ns, want[i].total * 1000);
    }
    /* ordered by self time: F, A, G and H (tie → total, then name), B, E, ... */
    assert_string_equal(framework_model_str(m, s.host_ops[0].name, NULL), "F");
    assert_string_equal(framework_model_str(m, s.host_ops[1].name, NULL), "A");
    assert_string_equal(framework_model_str(m, s.host_ops[2].name, NULL), "G");
    assert_string_equal(framework_model_str(m, s.host_ops[3].name, NULL), "H");
    /* window excludes the metadata event at ts 0 but not the Trace span at 0 */
    assert_true(s.has_window);
    assert_int_equal(s.first_ns, 0);
    assert_int_equal(s.last_ns, 5000000);
    assert_int_equal(s.meta_events, 1);
    assert_int_equal(s.meta_ts_zero, 1);
    assert_int_equal(s.profiler_spans, 1);
    assert_int_equal(s.device_spans, 0);
    assert_int_equal(s.latency.basis, FS_LAT_NONE);
    framework_summary_free(&s);
    framework_model_free(m);
}

/* Host pid 10, tid 1:
 *   ProfilerStep#1 [0,1000) ⊃ aten::mul [10,100) ⊃ launch [20,30) corr 1
 *                           ⊃ aten::add [200,300) ⊃ launch [210,220) + flow s id 5 at 210
 *                           ⊃ aten::copy_ [400,500) External id 77
 * Device pid 0 (kernels), stream 7:
 *   k1 [50,150) corr 1 → aten::mul         k2 [300,350) f id 5 (bp e) at 300 → aten::add
 *   Memcpy HtoD [600,650) External id 77, 4096 B → aten::copy_      k3 [700,710) no link → unlinked
 *   a cuda_sync [360,380) on the stream: not a device span
 * busy = 100 + 50 + 50 + 10 = 210; gaps 150, 250, 50 (largest at 350); latency (flows) 300 − 210 = 90. */
static const char launch_doc[] =
    "{\"deviceProperties\":[{\"id\":0}],\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":50},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":10,\"tid\":1,\"ts\":0,\"dur\":1000},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":10,\"tid\":1,\"ts\":10,\"dur\":90},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"launch\",\"pid\":10,\"tid\":1,\"ts\":20,\"dur\":10,"
    "\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":10,\"tid\":1,\"ts\":200,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"launch\",\"pid\":10,\"tid\":1,\"ts\":210,\"dur\":10},"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":5,\"pid\":10,\"tid\":1,\"ts\":210},"
    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":5,\"pid\":0,\"tid\":7,\"ts\":300,\"bp\":\"e\"},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::copy_\",\"pid\":10,\"tid\":1,\"ts\":400,\"dur\":100,"
    "\"args\":{\"External id\":77}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":100,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,\"ts\":600,"
    "\"dur\":50,\"args\":{\"External id\":77,\"bytes\":4096}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":700,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":360,\"dur\":20}"
    "]}";

static void device_time_goes_to_the_launching_op_by_correlation_flow_or_external_id(void **state)
{
    (void)state;
    framework_model *m = model_of(launch_doc);
    framework_summary s;
    summarize(m, &s);
    assert_int_equal(s.device_processes, 1);
    assert_int_equal(s.device_spans, 4);
    assert_int_equal(s.device_other_spans, 1);
    assert_int_equal(s.device_sum_ns, 210000);
    assert_int_equal(s.device_busy_ns, 210000);
    assert_int_equal(s.linked_correlation, 1);
    assert_int_equal(s.linked_flow, 1);
    assert_int_equal(s.linked_external, 1);
    assert_int_equal(s.unlinked, 1);
    assert_int_equal(s.unlinked_ns, 10000);
    assert_int_equal(s.ndevice_ops, 3);
    assert_string_equal(framework_model_str(m, s.device_ops[0].name, NULL), "aten::mul");
    assert_int_equal(s.device_ops[0].total_ns, 100000);
    assert_int_equal(find_op(m, s.device_ops, s.ndevice_ops, "aten::add")->total_ns, 50000);
    assert_int_equal(find_op(m, s.device_ops, s.ndevice_ops, "aten::copy_")->total_ns, 50000);
    assert_int_equal(s.nkernels, 4);
    /* busy and gaps */
    assert_int_equal(s.ndevices, 1);
    assert_int_equal(s.devices[0].gaps, 3);
    assert_int_equal(s.devices[0].gap_total_ns, 450000);
    assert_int_equal(s.devices[0].gap_max_ns, 250000);
    assert_int_equal(s.devices[0].gap_max_at_ns, 350000);
    assert_int_equal(s.nstreams, 1);
    assert_int_equal(s.streams[0].busy_ns, 210000);
    /* steps, copies, latency */
    assert_int_equal(s.steps_total, 1);
    assert_int_equal(s.steps[0].number, 1);
    assert_int_equal(s.steps[0].dur_ns, 1000000);
    assert_int_equal(s.steps[0].device_busy_ns, 210000);
    assert_int_equal(s.copies[FS_COPY_H2D].count, 1);
    assert_int_equal(s.copies[FS_COPY_H2D].bytes, 4096);
    assert_int_equal(s.copies[FS_COPY_H2D].dur_ns, 50000);
    assert_int_equal(s.nhost_copy_ops, 1);
    assert_int_equal(s.latency.basis, FS_LAT_FLOWS);
    assert_int_equal(s.latency.pairs, 1);
    assert_int_equal(s.latency.median_ns, 90000);
    /* self time: the launches are children of their ops */
    assert_int_equal(find_op(m, s.host_ops, s.nhost_ops, "aten::mul")->self_ns, 80000);
    assert_int_equal(find_op(m, s.host_ops, s.nhost_ops, "ProfilerStep#1")->self_ns, 1000000 - 290000);
    framework_summary_free(&s);
    framework_model_free(m);
}

/* Two streams of device 3 overlap: [0,100) on stream 1, [50,150) and [300,310) on stream 2.
 * Per stream busy 100 and 110; device busy = union = 150 + 10 = 160; summed 210. No links: latency from
 * correlation is impossible, so the basis is none. */
static void busy_time_is_a_union_across_streams(void **state)
{
    (void)state;
    framework_model *m = model_of(
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":3,\"args\":{\"labels\":\"Neuron 3\"}},"
        "{\"ph\":\"X\",\"name\":\"nc_exec_running\",\"pid\":3,\"tid\":2,\"ts\":300,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"nc_exec_running\",\"pid\":3,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"name\":\"nc_exec_running\",\"pid\":3,\"tid\":2,\"ts\":50,\"dur\":100}"
        "]}");
    framework_summary s;
    summarize(m, &s);
    assert_int_equal(s.device_spans, 3);
    assert_int_equal(s.device_sum_ns, 210000);
    assert_int_equal(s.device_busy_ns, 160000);
    assert_int_equal(s.nstreams, 2);
    assert_int_equal(s.streams[0].busy_ns, 110000);
    assert_int_equal(s.streams[1].busy_ns, 100000);
    assert_int_equal(s.devices[0].busy_ns, 160000);
    assert_int_equal(s.devices[0].gaps, 1);
    assert_int_equal(s.devices[0].gap_max_ns, 150000);
    assert_int_equal(s.unlinked, 3);
    assert_int_equal(s.latency.basis, FS_LAT_NONE);
    framework_summary_free(&s);
    framework_model_free(m);
}

/* B/E on one thread, E listed before B: outer [0,10) ⊃ inner [2,5); one E without B, one B never ended. */
static void begin_end_pairs_become_spans(void **state)
{
    (void)state;
    framework_model *m = model_of(
        "{\"traceEvents\":["
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":10},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":5},"
        "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":2},"
        "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":3},"
        "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"open\",\"pid\":1,\"tid\":3,\"ts\":4},"
        "{\"ph\":\"B\",\"name\":\"untimed\",\"pid\":1,\"tid\":3}"
        "]}");
    framework_summary s;
    summarize(m, &s);
    assert_int_equal(s.be_pairs, 2);
    assert_int_equal(s.be_open, 1);
    assert_int_equal(s.be_unmatched_end, 1);
    assert_int_equal(s.untimed_spans, 1);
    assert_int_equal(s.host_spans, 2);
    assert_int_equal(find_op(m, s.host_ops, s.nhost_ops, "outer")->self_ns, 7000);
    assert_int_equal(find_op(m, s.host_ops, s.nhost_ops, "inner")->self_ns, 3000);
    framework_summary_free(&s);
    framework_model_free(m);
}

/* Ten flows with latencies 1..10 µs (listed shuffled): nearest rank median = 5, p90 = 9. */
static void latency_percentiles_are_nearest_rank(void **state)
{
    (void)state;
    char doc[8192];
    int n = snprintf(doc, sizeof doc, "{\"traceEvents\":[");
    static const int lat[] = {7, 2, 10, 1, 5, 9, 3, 8, 4, 6};
    for (int i = 0; i < 10; i++)
        n += snprintf(doc + n, sizeof doc - (size_t)n,
                      "%s{\"ph\":\"s\",\"id\":%d,\"pid\":1,\"tid\":1,\"ts\":%d},"
                      "{\"ph\":\"f\",\"id\":%d,\"pid\":0,\"tid\":1,\"ts\":%d,\"bp\":\"e\"},"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":1,\"ts\":%d,\"dur\":1}",
                      i ? "," : "", i, 100 * i, i, 100 * i + lat[i], 100 * i + lat[i]);
    snprintf(doc + n, sizeof doc - (size_t)n, "]}");
    framework_model *m = model_of(doc);
    framework_summary s;
    summarize(m, &s);
    assert_int_equal(s.latency.basis, FS_LAT_FLOWS);
    assert_int_equal(s.latency.pairs, 10);
    assert_int_equal(s.latency.min_ns, 1000);
    assert_int_equal(s.latency.median_ns, 5000);
    assert_int_equal(s.latency.p90_ns, 9000);
    assert_int_equal(s.latency.max_ns, 10000);
    assert_int_equal(s.latency.negative, 0);
    assert_int_equal(s.flow_starts, 10);
    assert_int_equal(s.flow_finishes, 10);
    framework_summary_free(&s);
    framework_model_free(m);
}

/* The seed case's shape (formats.md §10.4): python_function ⊃ aten op ⊃ PrivateUse1 runtime launch, then
 * nc_exec_running on a Neuron device lane ("privateuse1_driver", linked by correlation); a compiled graph as
 * one "Torch-Compiled Region" with one launch; the epsilon scalar's host-to-device copy.
 *   eager:    rms.py(3): forward [0,100) ⊃ aten::add [10,40) ⊃ nrta_execute_schedule [15,20) corr 7
 *                                        ⊃ aten::copy_ [50,60) ⊃ nrta_copy [52,54) corr 8
 *   compiled: Torch-Compiled Region: 0/0 [200,260) ⊃ nrta_execute_schedule [210,215) corr 9
 *   device pid 2 "Neuron Device 0", NC lane 0: nc_exec_running [25,65) corr 7, [220,240) corr 9;
 *             DMA lane: Memcpy HtoD [55,57) corr 8, 4 bytes
 * device time: aten::add 40, Torch-Compiled Region: 0/0 20, aten::copy_ 2 (the launches' ops, never the
 * python_function); busy = 40 + 20 (the copy overlaps [25,65)); one compiled region of 60. */
static void privateuse1_device_time_is_credited_to_the_aten_op_not_the_python_frame(void **state)
{
    (void)state;
    framework_model *m = model_of(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"rms.py(3): forward\",\"pid\":9,\"tid\":9,\"ts\":0,\"dur\":100,"
        "\"args\":{\"Python id\":1,\"Python parent id\":null}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":9,\"tid\":9,\"ts\":10,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_runtime\",\"name\":\"nrta_execute_schedule\",\"pid\":9,\"tid\":9,\"ts\":15,"
        "\"dur\":5,\"args\":{\"correlation\":7}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::copy_\",\"pid\":9,\"tid\":9,\"ts\":50,\"dur\":10},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_runtime\",\"name\":\"nrta_copy\",\"pid\":9,\"tid\":9,\"ts\":52,\"dur\":2,"
        "\"args\":{\"correlation\":8}},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"Torch-Compiled Region: 0/0\",\"pid\":9,\"tid\":9,\"ts\":200,"
        "\"dur\":60},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_runtime\",\"name\":\"nrta_execute_schedule\",\"pid\":9,\"tid\":9,\"ts\":210,"
        "\"dur\":5,\"args\":{\"correlation\":9}},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"ts\":0,\"args\":{\"name\":\"Neuron Device 0\"}},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_driver\",\"name\":\"nc_exec_running\",\"pid\":2,\"tid\":0,\"ts\":220,\"dur\":20,"
        "\"args\":{\"correlation\":9}},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_driver\",\"name\":\"nc_exec_running\",\"pid\":2,\"tid\":0,\"ts\":25,\"dur\":40,"
        "\"args\":{\"correlation\":7}},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":2,\"tid\":1,\"ts\":55,"
        "\"dur\":2,\"args\":{\"correlation\":8,\"bytes\":4}}"
        "]}");
    framework_summary s;
    summarize(m, &s);
    assert_int_equal(s.device_spans, 3);
    assert_int_equal(s.linked_correlation, 3);
    assert_int_equal(s.unlinked, 0);
    assert_int_equal(s.ndevice_ops, 3);
    assert_string_equal(framework_model_str(m, s.device_ops[0].name, NULL), "aten::add");
    assert_int_equal(s.device_ops[0].total_ns, 40000);
    assert_string_equal(framework_model_str(m, s.device_ops[1].name, NULL), "Torch-Compiled Region: 0/0");
    assert_int_equal(s.device_ops[1].total_ns, 20000);
    assert_string_equal(framework_model_str(m, s.device_ops[2].name, NULL), "aten::copy_");
    assert_int_equal(s.device_ops[2].total_ns, 2000);
    assert_int_equal(s.device_busy_ns, 60000);
    assert_int_equal(s.compiled_regions, 1);
    assert_int_equal(s.compiled_region_ns, 60000);
    assert_int_equal(s.copies[FS_COPY_H2D].count, 1);
    assert_int_equal(s.copies[FS_COPY_H2D].bytes, 4);
    assert_int_equal(s.latency.basis, FS_LAT_CORRELATION);
    assert_int_equal(s.latency.pairs, 3);
    assert_int_equal(s.latency.median_ns, 10000); /* 25 − 15, 55 − 52 = 3, 220 − 210 = 10: sorted 3, 10, 10 */
    /* CPU self time: the python frame keeps 100 − 30 − 10 = 60 */
    assert_int_equal(find_op(m, s.host_ops, s.nhost_ops, "rms.py(3): forward")->self_ns, 60000);
    assert_int_equal(find_op(m, s.host_ops, s.nhost_ops, "aten::add")->self_ns, 25000);
    framework_summary_free(&s);
    framework_model_free(m);
}

static void cancel_stops_the_summary(void **state)
{
    (void)state;
    framework_model *m = model_of(launch_doc);
    framework_summary s;
    atomic_int cancel = 1;
    nl_error err;
    memset(&s, 0x5a, sizeof s);
    assert_int_equal(framework_summary_compute(m, &cancel, &s, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    assert_null(s.host_ops);
    framework_model_free(m);
}

/* A thread of many nested spans, written in several orders (as sorted, reversed, children first as torch
 * writes them, shuffled): the per-thread sort must give every order the same parents. Group i (µs):
 *   P [100i, 100i+90)  C [100i+10, 100i+50) ⊂ P  G [100i+20, 100i+30) ⊂ C
 *   every 7th group also S [100i+60, 100i+70) ⊂ P and T [100i+60, 100i+65) ⊂ S (same start: longer first)
 * self: P = 90 − 40 (− 10 with S), C = 30, G = 10, S = 5, T = 5. */
#define ORDER_GROUPS 2000

static char *nested_doc(int order)
{
    size_t n = 0, cap = (size_t)ORDER_GROUPS * 5;
    struct span {
        const char *name;
        long ts, dur;
    } *v = malloc(cap * sizeof *v);
    for (long i = 0; i < ORDER_GROUPS; i++) {
        v[n++] = (struct span){"G", 100 * i + 20, 10};
        v[n++] = (struct span){"C", 100 * i + 10, 40};
        if (i % 7 == 0) {
            v[n++] = (struct span){"T", 100 * i + 60, 5};
            v[n++] = (struct span){"S", 100 * i + 60, 10};
        }
        v[n++] = (struct span){"P", 100 * i, 90};
    }
    if (order == 1 || order == 2) { /* by start (then longer first), or the reverse of that */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && (v[j].ts < v[j - 1].ts || (v[j].ts == v[j - 1].ts && v[j].dur > v[j - 1].dur));
                 j--) {
                struct span t = v[j];
                v[j] = v[j - 1];
                v[j - 1] = t;
            }
    }
    if (order == 2)
        for (size_t i = 0; i < n / 2; i++) {
            struct span t = v[i];
            v[i] = v[n - 1 - i];
            v[n - 1 - i] = t;
        }
    if (order == 3) { /* Fisher-Yates with a fixed LCG */
        uint64_t x = 12345;
        for (size_t i = n - 1; i > 0; i--) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            size_t j = (size_t)(x >> 33) % (i + 1);
            struct span t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
    }
    size_t dcap = n * 96 + 64, len = 0;
    char *doc = malloc(dcap);
    len += (size_t)snprintf(doc, dcap, "{\"traceEvents\": [");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(doc + len, dcap - len, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1,"
                                " \"tid\": 1, \"ts\": %ld, \"dur\": %ld}", i ? ", " : "", v[i].name, v[i].ts, v[i].dur);
    snprintf(doc + len, dcap - len, "]}");
    free(v);
    return doc;
}

static void self_time_is_the_same_for_any_order_of_the_events(void **state)
{
    (void)state;
    const int64_t g = ORDER_GROUPS, g7 = (ORDER_GROUPS + 6) / 7;
    for (int order = 0; order < 4; order++) {
        char *doc = nested_doc(order);
        framework_model *m = model_of(doc);
        framework_summary s;
        summarize(m, &s);
        assert_int_equal(s.host_spans, 3 * g + 2 * g7);
        const fs_op *p = find_op(m, s.host_ops, s.nhost_ops, "P"), *c = find_op(m, s.host_ops, s.nhost_ops, "C");
        const fs_op *gg = find_op(m, s.host_ops, s.nhost_ops, "G"), *sp = find_op(m, s.host_ops, s.nhost_ops, "S");
        const fs_op *t = find_op(m, s.host_ops, s.nhost_ops, "T");
        assert_int_equal(p->self_ns, (50 * g - 10 * g7) * 1000);
        assert_int_equal(c->self_ns, 30 * g * 1000);
        assert_int_equal(gg->self_ns, 10 * g * 1000);
        assert_int_equal(sp->self_ns, 5 * g7 * 1000);
        assert_int_equal(t->self_ns, 5 * g7 * 1000);
        assert_int_equal(p->total_ns, 90 * g * 1000);
        framework_summary_free(&s);
        framework_model_free(m);
        free(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_time_subtracts_direct_children_per_thread_on_unsorted_input),
        cmocka_unit_test(device_time_goes_to_the_launching_op_by_correlation_flow_or_external_id),
        cmocka_unit_test(busy_time_is_a_union_across_streams),
        cmocka_unit_test(begin_end_pairs_become_spans),
        cmocka_unit_test(latency_percentiles_are_nearest_rank),
        cmocka_unit_test(privateuse1_device_time_is_credited_to_the_aten_op_not_the_python_frame),
        cmocka_unit_test(cancel_stops_the_summary),
        cmocka_unit_test(self_time_is_the_same_for_any_order_of_the_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
