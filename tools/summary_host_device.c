/* summary_host_device — see summary_host_device.h.
 *
 * The system profile of the trace's capture directory is loaded (host_select, cached), the join computed
 * once per pair of models (analyzers/analyses/host_device_join, memo.h) and shaped: alignment and its
 * uncertainty, how each execution was attributed, device time per op / step / region (device_union_ns, with
 * the per-core sum beside it as device_core_sum_ns), and the first executions. Every *_ns
 * position here is unix ns (both clocks are unix wall clocks; the rest of the framework summary counts from
 * its first event, so absolute times are named *_unix_ns). */
#include "summary_host_device.h"
#include "host_device_join.h"
#include "select.h"
#include "memo.h"
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HD_NAME_SHOWN 240u

static json_t *hd_name(const framework_model *m, uint32_t id)
{
    size_t len;
    const char *s = framework_model_str(m, id, &len);
    char buf[HD_NAME_SHOWN + 4];
    if (!s)
        return json_string("");
    if (len > HD_NAME_SHOWN) {
        len = HD_NAME_SHOWN;
        while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
            len--;
        memcpy(buf, s, len);
        memcpy(buf + len, "\xe2\x80\xa6", 3);
        s = buf;
        len += 3;
    }
    json_t *v = json_stringn(s, len);
    return v ? v : json_string("(name is not valid UTF-8)");
}

static json_t *hd_row_name(const framework_model *m, size_t row)
{
    return row == HDJ_NO_ROW ? json_null() : hd_name(m, table_str(framework_model_events(m), FM_EV_NAME, row));
}

static json_t *hd_pct(int64_t part, int64_t whole)
{
    return whole > 0 ? json_real(round(1e4 * (double)part / (double)whole) / 100) : json_null();
}

static void hd_quality(json_t *out, const char *severity, const char *code, const char *problem, const char *fix)
{
    json_t *dq = json_object_get(out, "data_quality");
    json_t *q = shape_quality(severity, problem, fix, NULL);
    if (!dq || !q) {
        json_decref(q);
        return;
    }
    json_object_set_new(q, "code", json_string(code));
    json_array_append_new(dq, q);
}

static json_t *hd_not_available(const char *status, const char *reason)
{
    return json_pack("{s:s, s:s}", "status", status, "reason", reason);
}

static json_t *hd_alignment(const host_device_join *j)
{
    char text[1024], basis[160];
    if (j->has_base)
        snprintf(basis, sizeof basis, "unix ns = baseTimeNanoseconds (%lld) + ts (µs, converted exactly)", (long long)j->base_ns);
    else
        snprintf(basis, sizeof basis, "ts is unix µs (the trace has no baseTimeNanoseconds), converted exactly to ns");
    int n = snprintf(text, sizeof text,
                     "Both traces stamp host events with the host's wall clock (Kineto: its clock converted to unix time "
                     "at profiler start; ntrace.pb: the CPU clock, hardware events shifted by the per-core "
                     "timestamp_sync_point), so no offset is applied. Neither file records the offset between the two "
                     "profilers' clock reads or NTP slews during the run; framework times resolve to %lld ns.",
                     (long long)j->resolution_ns);
    if (j->has_slack && n > 0 && (size_t)n < sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, " Every time-contained attribution holds for any clock offset "
                      "up to %lld ns (the closest an anchor lies to an edge of its op).", (long long)j->min_slack_ns);
    if (j->offset_samples && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n, " Measured against %llu framework device event(s) overlapping "
                 "executions: execution start minus event start, median %lld ns (min %lld, max %lld).",
                 (unsigned long long)j->offset_samples, (long long)j->offset_median_ns, (long long)j->offset_min_ns,
                 (long long)j->offset_max_ns);
    json_t *o = json_pack("{s:s, s:s, s:i, s:I, s:s}", "framework_to_unix", basis, "system_clock",
                          "unix ns, host CPU clock (ntrace.pb f2)", "offset_applied_ns", 0, "framework_resolution_ns",
                          (json_int_t)j->resolution_ns, "uncertainty", text);
    json_object_set_new(o, "robust_to_offset_ns", j->has_slack ? json_integer(j->min_slack_ns) : json_null());
    json_object_set_new(o, "measured_offset", j->offset_samples
        ? json_pack("{s:I, s:I, s:I, s:I, s:s}", "samples", (json_int_t)j->offset_samples, "min_ns",
                    (json_int_t)j->offset_min_ns, "median_ns", (json_int_t)j->offset_median_ns, "max_ns",
                    (json_int_t)j->offset_max_ns, "of", "nc_exec_running start - overlapping framework device event start")
        : json_null());
    json_object_set_new(o, "framework_window_unix_ns", j->has_fw_window
        ? json_pack("{s:I, s:I}", "first", (json_int_t)j->fw_first_ns, "last", (json_int_t)j->fw_last_ns) : json_null());
    json_object_set_new(o, "executions_window_unix_ns", j->has_exec_window
        ? json_pack("{s:I, s:I}", "first", (json_int_t)j->exec_first_ns, "last", (json_int_t)j->exec_last_ns) : json_null());
    return o;
}

static json_t *hd_groups(const framework_model *m, const host_device_join *j, const hdj_group *g, size_t n, size_t cap,
                         bool step)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n && i < cap; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", hd_name(m, g[i].name));
        if (!step)
            json_object_set_new(o, "category", hd_name(m, g[i].cat));
        if (step)
            json_object_set_new(o, "start_unix_ns", json_integer(g[i].start));
        json_object_set_new(o, step ? "wall_ns" : "host_ns", json_integer(g[i].host_ns));
        if (!step)
            json_object_set_new(o, "instances", json_integer((json_int_t)g[i].instances));
        json_object_set_new(o, "exec_spans", json_integer((json_int_t)g[i].exec_spans));
        json_object_set_new(o, "device_union_ns", json_integer(g[i].device_union_ns));
        json_object_set_new(o, "device_core_sum_ns", json_integer(g[i].device_core_sum_ns));
        json_object_set_new(o, step ? "device_pct_of_wall" : "pct_of_device_time",
                            step ? hd_pct(g[i].device_union_ns, g[i].host_ns)
                                 : hd_pct(g[i].device_union_ns, j->device_union_ns));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *hd_execs(const framework_model *m, const system_model *sm, const host_device_join *j)
{
    json_t *arr = json_array();
    const strtab *st = system_model_strings(sm);
    for (size_t i = 0; i < j->nexecs && i < NL_HOST_DEVICE_EXECS_SHOWN; i++) {
        const hdj_exec *e = &j->execs[i];
        char model[24];
        snprintf(model, sizeof model, "%llu", (unsigned long long)e->model_id);
        json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:I, s:I, s:s}", "core", e->core >= 0 ? json_integer(e->core) : json_null(),
                              "nc", e->nc >= 0 ? json_integer(e->nc) : json_null(), "exec_id",
                              e->exec_id >= 0 ? json_integer(e->exec_id) : json_null(), "model_id",
                              e->model_id ? json_string(model) : json_null(), "start_unix_ns", (json_int_t)e->start,
                              "device_ns", (json_int_t)(e->end - e->start), "basis", hdj_basis_name(e->basis));
        json_object_set_new(o, "launch", e->launch_type
            ? json_pack("{s:s, s:I, s:I}", "type", strtab_str(st, e->launch_type, NULL), "start_unix_ns",
                        (json_int_t)e->launch_start, "thread", (json_int_t)e->launch_thread)
            : json_null());
        json_object_set_new(o, "op", hd_row_name(m, e->op_row));
        json_object_set_new(o, "step", hd_row_name(m, e->step_row));
        json_object_set_new(o, "compiled_region", hd_row_name(m, e->region_row));
        json_object_set_new(o, "anchor_unix_ns", json_integer(e->anchor_ns));
        json_object_set_new(o, "slack_ns", e->slack_ns >= 0 ? json_integer(e->slack_ns) : json_null());
        json_object_set_new(o, "thread_matched", json_boolean(e->thread_matched));
        json_array_append_new(arr, o);
    }
    return arr;
}

static void hd_quality_all(const host_device_join *j, json_t *out)
{
    char problem[512];
    if (j->unattributed) {
        snprintf(problem, sizeof problem, "host_device: %llu of %llu device executions (%lld ns of device time) fall in "
                 "no framework op: their launch lies outside every host span of the trace%s",
                 (unsigned long long)j->unattributed, (unsigned long long)j->exec_spans, (long long)j->unattributed_ns,
                 j->outside_fw_window ? " (some lie outside the trace's time range altogether)" : "");
        hd_quality(out, "warning", "unattributed_executions", problem,
                   "profile the whole region that runs on the device (start the profiler before the first launch); if "
                   "the executions lie outside the trace's window, check that trace.json and ntrace.pb are from the same run");
    }
    if (j->ambiguous) {
        snprintf(problem, sizeof problem, "host_device: %llu execution(s) fell inside ops on several host threads and no "
                 "thread id matched the launch call's; the innermost op was taken", (unsigned long long)j->ambiguous);
        hd_quality(out, "info", "ambiguous_thread", problem, NULL);
    }
    if (j->exec_spans && !j->with_launch) {
        hd_quality(out, "info", "no_launch_calls", "host_device: no nrt_execute / nrta_execute_schedule call in the system "
                   "trace: executions were placed by their own start time, which lags the op that launched them",
                   "capture runtime (software) events as well: NeuronConfig modes include ProfileMode.RUNTIME");
    }
    if (j->exec_spans && !j->fw_device_events)
        hd_quality(out, "info", "device_time_from_system_profile", "device time per op comes from the system profile "
                   "here (host_device.ops: nc_exec_running joined to the framework ops), not from the trace's own device "
                   "events (top_ops_by_device_time stays empty without them)", NULL);
    if (j->unpaired_exec_records) {
        snprintf(problem, sizeof problem, "host_device: %llu nc_exec_running record(s) without a begin or an end were "
                 "left out", (unsigned long long)j->unpaired_exec_records);
        hd_quality(out, "warning", "unpaired_executions", problem, "copy the capture again; raise max_events_per_nc");
    }
}

static json_t *hd_joined(const framework_model *m, const system_model *sm, const host_device_join *j, const char *id)
{
    json_t *o = json_pack("{s:s, s:s}", "status", j->exec_spans ? "joined" : "no_executions", "system_profile", id);
    json_object_set_new(o, "method", json_string(
        "each nc_exec_running span is credited to the innermost framework op containing its anchor: the host event a "
        "linked framework device event leads to (correlation, ac2g flow), else the start of the runtime call that "
        "launched it (nrt_execute on the same nc_idx), else the execution's own start; device time per group: "
        "device_union_ns = union of its executions over all cores, device_core_sum_ns = their durations summed "
        "(each core counted); thread_matched = the op's thread is the launch call's OS thread"));
    json_object_set_new(o, "clock_alignment", hd_alignment(j));
    json_object_set_new(o, "executions", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
        "nc_exec_running_spans", (json_int_t)j->exec_spans, "with_launch_call", (json_int_t)j->with_launch,
        "by_correlation", (json_int_t)j->by_correlation, "by_flow", (json_int_t)j->by_flow,
        "by_launch_call_in_op", (json_int_t)j->by_launch, "by_execution_start_in_op", (json_int_t)j->by_exec_time,
        "unattributed", (json_int_t)j->unattributed, "unattributed_device_ns", (json_int_t)j->unattributed_ns,
        "outside_framework_window", (json_int_t)j->outside_fw_window, "launch_thread_matched",
        (json_int_t)j->thread_matched, "ambiguous_thread", (json_int_t)j->ambiguous));
    json_object_set_new(o, "framework_device_events", json_pack("{s:I, s:I}", "events", (json_int_t)j->fw_device_events,
                                                                "linked_to_host", (json_int_t)j->fw_linked_device_events));
    json_object_set_new(o, "device_union_ns", json_integer(j->device_union_ns));
    json_object_set_new(o, "device_core_sum_ns", json_integer(j->device_core_sum_ns));
    json_object_set_new(o, "ops", hd_groups(m, j, j->ops, j->nops, NL_HOST_DEVICE_OPS_SHOWN, false));
    json_object_set_new(o, "ops_total", json_integer((json_int_t)j->nops));
    json_object_set_new(o, "steps", hd_groups(m, j, j->steps, j->nsteps, NL_HOST_DEVICE_STEPS_SHOWN, true));
    json_object_set_new(o, "steps_total", json_integer((json_int_t)j->nsteps));
    json_object_set_new(o, "compiled_regions", hd_groups(m, j, j->regions, j->nregions, NL_HOST_DEVICE_REGIONS_SHOWN, false));
    json_object_set_new(o, "compiled_regions_total", json_integer((json_int_t)j->nregions));
    json_object_set_new(o, "execution_list", hd_execs(m, sm, j));
    json_object_set_new(o, "execution_list_truncated", json_boolean(j->nexecs > NL_HOST_DEVICE_EXECS_SHOWN));
    return o;
}

void nl_summary_host_device(nl_call *call, const nl_catalog *cat, const nl_catalog_file *trace, nl_model_ref *fw,
                            json_t *out)
{
    const framework_model *m = fw ? nl_model_ref_framework(fw) : NULL;
    if (!out || !m)
        return;
    const nl_catalog_rank *rank = nl_select_rank_system(cat, trace->rank);
    if (!rank) {
        json_object_set_new(out, "host_device", hd_not_available("not_available", trace->rank < 0
            ? "the trace is not inside a capture directory (<instance>_pid_<pid>/), so no system profile belongs to it; "
              "put trace.json in the rank's capture directory next to ntrace.pb (NeuronProfiler.export_trace does)"
            : "the trace's capture directory has no readable system profile (ntrace.pb + trace_info.pb); capture with "
              "NeuronConfig modes including ProfileMode.RUNTIME"));
        return;
    }
    char id[300];
    snprintf(id, sizeof id, "%s/system", rank->id);
    const system_model *sm = NULL;
    nl_error err;
    nl_error_clear(&err);
    nl_model_ref *sys = nl_select_load_system(call, cat, rank, &sm, &err);
    if (!sys) {
        char reason[700];
        snprintf(reason, sizeof reason, "the system profile %s cannot be read: %s (%s)", id, err.message,
                 nl_error_code_name(err.code));
        json_object_set_new(out, "host_device", hd_not_available("failed", reason));
        hd_quality(out, "warning", "host_device_failed", reason, "summary of the system profile says more");
        return;
    }
    const host_device_join *j = nl_memo_host_device_join(call, fw, sys, &err);
    if (!j) {
        char reason[400];
        snprintf(reason, sizeof reason, "the host-device join failed: %s (%s)", err.message, nl_error_code_name(err.code));
        json_object_set_new(out, "host_device", hd_not_available("failed", reason));
        nl_model_ref_release(sys);
        return;
    }
    json_object_set_new(out, "host_device", hd_joined(m, sm, j, id));
    hd_quality_all(j, out);
    nl_model_ref_release(sys);
}
