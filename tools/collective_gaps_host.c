/* collective_gaps_host — see collective_gaps_host.h.
 *
 * Source: analyzers/analyses/gaps_host (cc_running spans by physical core; communication kernels by
 * device stream, else <backend>:<collective> annotations by host thread). Numbers: analyzers/analyses/gaps,
 * the same as for a show-session dump: lane choice (most collectives, ties → highest id, or cc_core), gaps,
 * layer mapping and its checks, statistics. Total time for the coverage ratios (system only): the chosen
 * core's execution window (first nc_exec_running start → last end on that core); a framework trace gives
 * none (its steps and collectives run on different threads, so no window is this lane's own).
 * Bounds: layers paged (max_rows; cursor "cgaps-<lane>-<A>-<P>.<offset>"), lanes and outliers capped; a
 * page that would not fit the byte budget is halved until it does. Result fields match collective_gaps.c. */
#include "tool_common.h"
#include "collective_gaps_host.h"
#include "gaps.h"
#include "gaps_host.h"
#include "gaps_render.h"
#include "scan.h"
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CH_DEFAULT_ROWS 20
#define CH_DEFAULT_BUDGET 24576u
#define CH_BUDGET_MARGIN 2048u

typedef struct ch_call {
    nl_call *call;
    nl_select *sel;             /* the chosen profile (borrowed); sel->model holds sm or fm */
    const nl_catalog_rank *rank; /* system: its rank */
    const nl_catalog_file *trace; /* framework: its file */
    const system_model *sm;
    const framework_model *fm;
    const device_model *dm;     /* a neuron-explorer device profile: its CcOp table */
    gaps_host_inputs in;
    gaps_result *gr;
    int64_t cc_core;
    unsigned per_layer, skip;
    size_t max_rows, offset;
    const char *cursor;
    bool has_total;
    int64_t total_ns;
    char total_source[160];
    json_t *out, *dq;
} ch_call;

static const char *ch_name(const ch_call *c, uint32_t id)
{
    const char *s = c->sm ? strtab_str(system_model_strings(c->sm), id, NULL)
                  : c->dm ? device_model_str(c->dm, id, NULL) : framework_model_str(c->fm, id, NULL);
    return s ? s : "";
}

static void ch_quality(ch_call *c, const char *code, const char *severity, const char *problem, const char *fix)
{
    json_t *q = shape_quality(severity, problem, fix, NULL);
    if (code)
        json_object_set_new(q, "code", json_string(code));
    json_array_append_new(c->dq, q);
}

static json_t *ch_units(const ch_call *c)
{
    const char *time = c->dm ? "ns; start_ns / end_ns are the times of the collectives that open and close a layer (CcOp "
                               "trigger_start_ts, else start_ts), ns from the profile start (first_hw_timestamp); latencies "
                               "and gaps are differences of them"
                             : "ns; start_ns / end_ns are the start times of the collectives that open and close a layer, "
                               "unix ns on the host clock (framework: baseTimeNanoseconds + ts); latencies and gaps are "
                               "differences of them";
    return json_pack("{s:s, s:s, s:s, s:s}", "time", time, "ratio_to_median", "layer latency / median_ns",
                     "layers_to_total, window_to_total", c->dm ? "fraction 0..1 of the profile's total_time (Summary)"
                                                               : "fraction 0..1 of the chosen core's execution window",
                     "fit", "periodicity fit 0..1 (1 = every layer splits its time the same way)");
}

static const char *ch_method(const ch_call *c)
{
    return c->dm
        ? "gaps between the collective operations of one stream in the CcOp table (trigger_start_ts, else start_ts), A "
          "per layer after P prologue gaps (formats.md §11.1)"
        : c->sm
        ? "gaps between the starts of cc_running spans (ntrace.pb) on one physical core, A per layer after P prologue "
          "gaps (formats.md §11.1)"
        : c->in.source == GAPS_HOST_FRAMEWORK_DEVICE
        ? "gaps between the starts of communication kernels (nccl/rccl) on one device stream, A per layer after P "
          "prologue gaps (formats.md §11.1)"
        : "gaps between the starts of <backend>:<collective> annotations (nccl:all_reduce, gloo:all_reduce, ...) on one "
          "host thread, A per layer after P prologue gaps (formats.md §11.1); host-side call times, not device times";
}

static json_t *ch_provenance(const ch_call *c)
{
    json_t *p = json_pack("{s:s}", "root", nl_catalog_root(c->sel->cat));
    json_t *files = json_object();
    if (c->sm) {
        if (c->rank->ntrace_pb >= 0)
            json_object_set_new(files, "ntrace.pb", json_string(nl_catalog_file_at(c->sel->cat, (size_t)c->rank->ntrace_pb)->rel_path));
        if (c->rank->trace_info_pb >= 0)
            json_object_set_new(files, "trace_info.pb",
                                json_string(nl_catalog_file_at(c->sel->cat, (size_t)c->rank->trace_info_pb)->rel_path));
    } else if (c->dm) {
        char dir[4096];
        nl_catalog_profile_dir_path(c->sel->cat, c->sel->profile, dir, sizeof dir);
        json_object_set_new(files, "parquet_dir", json_string(dir));
    } else {
        json_object_set_new(files, "trace", json_string(c->trace->rel_path));
    }
    json_object_set_new(p, "files", files);
    json_object_set_new(p, "method", json_string(ch_method(c)));
    json_t *names = json_array();
    for (size_t i = 0; i < c->in.nnames; i++)
        json_array_append_new(names, json_pack("{s:s, s:I}", "name", ch_name(c, c->in.names[i].name), "count",
                                               (json_int_t)c->in.names[i].count));
    json_t *col = json_pack("{s:s, s:s, s:I, s:o, s:I}", "source", gaps_host_source_name(c->in.source), "lane_basis",
                            c->in.lane_basis, "events", (json_int_t)c->in.events, "names", names, "other_names",
                            (json_int_t)c->in.other_names);
    if (c->in.skipped)
        json_object_set_new(col, "skipped", json_integer((json_int_t)c->in.skipped));
    if (c->in.host_annotations)
        json_object_set_new(col, "host_annotations_not_used", json_integer((json_int_t)c->in.host_annotations));
    if (c->dm)
        json_object_set_new(col, "timed_by_trigger_start", json_integer((json_int_t)c->in.triggered));
    json_object_set_new(p, "collectives", col);
    return p;
}

/* ---- abstaining ------------------------------------------------------------------------------------- */

static void ch_abstain(ch_call *c)
{
    char reason[1024], related[512] = "";
    const char *fix;
    if (c->dm) {
        snprintf(reason, sizeof reason, "the CcOp table of this profile has no collective operation with a stream_id");
        fix = "Without collectives there is no layer rhythm to measure: use kernel-attribution with group_by layer for "
              "per-layer time.";
    } else if (c->sm) {
        size_t used = 0;
        for (size_t i = 0; i < c->in.nrelated && used < sizeof related; i++)
            used += (size_t)snprintf(related + used, sizeof related - used, "%s%s %llu", i ? ", " : "",
                                     c->in.related[i].name, (unsigned long long)c->in.related[i].spans);
        snprintf(reason, sizeof reason, "the system profile has no " GAPS_HOST_CC_TYPE " events (spans of the "
                 "collective-related event types in trace_info.pb: %s): this rank ran no collective while it was "
                 "captured, or hardware events were filtered out at capture", related[0] ? related : "none named");
        fix = "Without collectives there is no layer rhythm to measure. For a TP>1 run, capture hardware events "
              "(NEURON_RT_INSPECT_EVENT_FILTER_TYPE unset or including cc_running), or run collective-gaps on the "
              "device profile with a show-session --show-trace dump of its NTFF.";
    } else {
        snprintf(reason, sizeof reason, "the framework trace has no communication kernels (names containing nccl or "
                 "rccl on device streams) and no <backend>:<collective> annotations (e.g. nccl:all_reduce, "
                 "gloo:all_reduce) on host threads");
        fix = "Profile a distributed run (torch.distributed collectives) with ProfilerActivity.CPU and the device "
              "activity; for Neuron devices, use the capture's system profile (rank<N>/system) or a show-session dump.";
    }
    gaps_render_abstained(c->out, reason, fix);
}

/* ---- computing -------------------------------------------------------------------------------------- */

static void ch_lane_list(const ch_call *c, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->in.count && used + 16 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%u", i ? ", " : "", c->in.lanes[i].id);
}

/* The total time the layers are compared with: a system core's execution window, or a device profile's
 * Summary total_time (seconds). Sets has_total, total_ns and total_source; false when there is none. */
static bool ch_total_time(ch_call *c)
{
    double s;
    const kvlist *sum = c->dm ? device_model_record_get(c->dm, DEVICE_MODEL_SUMMARY) : NULL;
    if (c->dm && sum && kvlist_get_num(sum, "total_time", &s) && s > 0) {
        c->total_ns = (int64_t)llround(s * 1e9);
        snprintf(c->total_source, sizeof c->total_source, "Summary total_time (%.9g s)", s);
    } else if (c->sm && gaps_host_exec_window(c->sm, &c->in, c->gr->cc_core, &c->total_ns) && c->total_ns > 0) {
        snprintf(c->total_source, sizeof c->total_source, "execution window of core %u: first nc_exec_running start to "
                 "last end (ntrace.pb)", c->gr->cc_core);
    } else {
        return false;
    }
    c->has_total = true;
    return true;
}

static int ch_compute(ch_call *c, nl_tool_result *res)
{
    gaps_options opt;
    gaps_options_default(&opt);
    opt.cc_core = c->cc_core;
    opt.collectives_per_layer = c->per_layer;
    opt.skip_prologue_gaps = c->skip;
    nl_error err;
    nl_error_clear(&err);
    int rc = gaps_compute(c->in.cores, c->in.count, &opt, &c->gr, &err);
    if (rc == 0 && ch_total_time(c)) {
        gaps_result_free(c->gr);
        c->gr = NULL;
        opt.has_total_time = true;
        opt.total_time_ns = c->total_ns;
        rc = gaps_compute(c->in.cores, c->in.count, &opt, &c->gr, &err);
    }
    if (rc == 0)
        return 0;
    if (err.code == NL_ERR_NOT_FOUND && c->cc_core >= 0) {
        char lanes[512];
        ch_lane_list(c, lanes, sizeof lanes);
        return nl_tool_result_error(res, "Invalid arguments for collective-gaps — arguments.cc_core: %lld is not a lane "
                                    "of %s (lanes by %s: %s). Omit cc_core for the automatic choice.",
                                    (long long)c->cc_core, c->sel->profile->id, c->in.lane_basis, lanes), -1;
    }
    return nl_tool_result_error(res, "collective-gaps failed on %s: %s (%s)", c->sel->profile->id, err.message,
                                nl_error_code_name(err.code)), -1;
}

/* ---- shaping ---------------------------------------------------------------------------------------- */

static json_t *ch_lane_label(const void *ctx, uint32_t id)
{
    const ch_call *c = ctx;
    for (size_t i = 0; i < c->in.count; i++) {
        const gaps_host_lane *l = &c->in.lanes[i];
        if (l->id != id)
            continue;
        if (c->sm)
            return json_pack("{s:s, s:I, s:o}", "basis", c->in.lane_basis, "value", (json_int_t)l->id, "nc",
                             l->nc >= 0 ? json_integer(l->nc) : json_null());
        if (c->dm)
            return json_pack("{s:s, s:I}", "basis", c->in.lane_basis, "value", (json_int_t)l->id);
        json_t *o = json_pack("{s:s, s:s, s:s}", "basis", c->in.lane_basis, "pid", ch_name(c, l->pid), "tid",
                              ch_name(c, l->tid));
        if (l->name)
            json_object_set_new(o, "thread_name", json_string(ch_name(c, l->name)));
        return o;
    }
    return json_null();
}

static int ch_shape(ch_call *c, nl_tool_result *res)
{
    gaps_render_source src = {
        .lane_word = "lane", .choice_auto = "automatic: the lane with most collectives, ties to the highest id",
        .lane_label = ch_lane_label, .label_ctx = c, .has_total = c->has_total, .total_source = c->total_source,
        .no_total_problem = c->dm ? "the Summary table has no total_time: the share of the profile covered by the "
                                    "layers is not computed"
                          : c->sm ? "no nc_exec_running on the chosen core: the share of its execution window covered "
                                    "by the layers is not computed"
                                  : "a framework trace gives no total time for this lane: the share covered by the "
                                    "layers is not computed"};
    size_t budget = c->call->byte_budget ? c->call->byte_budget : CH_DEFAULT_BUDGET;
    budget = budget > CH_BUDGET_MARGIN * 2 ? budget - CH_BUDGET_MARGIN : budget / 2;
    return gaps_render(c->gr, &src, c->cursor, c->max_rows, budget, c->out, &c->offset, res);
}

static void ch_text(ch_call *c, nl_tool_result *res)
{
    char buf[1024];
    const json_t *o = c->out;
    const char *status = json_string_value(json_object_get(o, "status"));
    if (!strcmp(status, "abstained")) {
        snprintf(buf, sizeof buf, "collective-gaps of %.200s abstained: %.500s", c->sel->profile->id,
                 json_string_value(json_object_get(json_object_get(o, "abstained"), "reason")));
    } else {
        const gaps_result *r = c->gr;
        int n = snprintf(buf, sizeof buf, "%.200s: lane %u (%s %s; %zu lane(s)), %zu layers of %u collectives after %u "
                         "prologue gap(s)%s; median %lld ns, p90 %lld ns", c->sel->profile->id, r->cc_core, c->in.lane_basis,
                         r->forced ? "forced" : "with most collectives", r->core_count, r->layer_count, r->per_layer,
                         r->skip_prologue, r->consistent ? "" : " — MAPPING INCONSISTENT, see data_quality",
                         (long long)r->median_ns, (long long)r->p90_ns);
        if (n > 0 && (size_t)n < sizeof buf)
            snprintf(buf + n, sizeof buf - (size_t)n, ". Times %s; layers in structuredContent.",
                     c->dm ? "ns from the profile start" : "unix ns");
    }
    res->text = strdup(buf);
}

static int ch_run(ch_call *c, nl_tool_result *res)
{
    nl_error err;
    nl_error_clear(&err);
    if (nl_select_load(c->call, c->sel, res))
        return -1;
    c->sm = nl_model_ref_system(c->sel->model);
    c->fm = nl_model_ref_framework(c->sel->model);
    c->dm = nl_model_ref_device(c->sel->model);
    int rc = c->sm ? gaps_host_from_system(c->sm, &c->in, &err)
           : c->dm ? gaps_host_from_cc_ops(c->dm, &c->in, &err) : gaps_host_from_framework(c->fm, &c->in, &err);
    if (rc)
        return nl_tool_result_error(res, "collective-gaps failed on %s: %s (%s)", c->sel->profile->id, err.message,
                                    nl_error_code_name(err.code)), -1;
    c->out = json_object();
    c->dq = json_array();
    json_object_set_new(c->out, "profile", nl_select_label(c->sel));
    json_object_set_new(c->out, "units", ch_units(c));
    json_object_set_new(c->out, "provenance", ch_provenance(c));
    json_object_set_new(c->out, "data_quality", c->dq); /* c->dq stays a borrowed view */
    if (c->sm)
        nl_select_quality_system(c->sm, c->dq);
    else if (c->fm)
        nl_select_quality_framework(c->fm, c->dq);
    if (c->in.source == GAPS_HOST_FRAMEWORK_HOST)
        ch_quality(c, "host_call_times", "info", "the times are when the host thread entered each collective call, not "
                   "when the collective ran on a device; asynchronous collectives (NCCL) can run much later",
                   "when the trace has device activity, communication kernels are used instead");
    if (!c->in.events) {
        ch_abstain(c);
        return 0;
    }
    if (ch_compute(c, res) || ch_shape(c, res))
        return -1;
    return 0;
}

int nl_collective_gaps_host(const json_t *args, nl_call *call, nl_select *sel, nl_tool_result *res)
{
    const json_t *v;
    ch_call c = {.call = call, .sel = sel};
    const nl_catalog_profile *p = sel->profile;
    c.rank = p->rank >= 0 ? nl_catalog_rank_at(sel->cat, (size_t)p->rank) : NULL;
    c.trace = p->kind == NL_PROFILE_FRAMEWORK ? nl_catalog_file_at(sel->cat, (size_t)p->file) : NULL;
    c.cc_core = (v = json_object_get(args, "cc_core")) ? (int64_t)json_integer_value(v) : -1;
    c.per_layer = (v = json_object_get(args, "collectives_per_layer")) ? (unsigned)json_integer_value(v) : 2;
    c.skip = (v = json_object_get(args, "skip_prologue_gaps")) ? (unsigned)json_integer_value(v) : 1;
    c.max_rows = (v = json_object_get(args, "max_rows")) ? (size_t)json_integer_value(v) : CH_DEFAULT_ROWS;
    c.cursor = json_string_value(json_object_get(args, "cursor"));
    if (ch_run(&c, res) == 0) {
        ch_text(&c, res);
        res->structured = c.out;
        c.out = NULL;
    }
    json_decref(c.out);
    gaps_result_free(c.gr);
    gaps_host_inputs_free(&c.in); /* before the model they borrow from goes with the selection */
    return 0;
}
