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
#include "scan.h"
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CH_DEFAULT_ROWS 20
#define CH_CURSOR_PREFIX "cgaps"
#define CH_LANES_LISTED 16
#define CH_OUTLIERS_LISTED 20
#define CH_LAYER_GAPS_MAX 8
#define CH_RAW_GAPS_MAX 64
#define CH_DEFAULT_BUDGET 24576u
#define CH_BUDGET_MARGIN 2048u

typedef struct ch_call {
    nl_call *call;
    nl_select *sel;             /* the chosen profile (borrowed); sel->model holds sm or fm */
    const nl_catalog_rank *rank; /* system: its rank */
    const nl_catalog_file *trace; /* framework: its file */
    const system_model *sm;
    const framework_model *fm;
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
    const char *s = c->sm ? strtab_str(system_model_strings(c->sm), id, NULL) : framework_model_str(c->fm, id, NULL);
    return s ? s : "";
}

static json_t *ch_ratio(double v)
{
    return json_real(round(v * 1e4) / 1e4);
}

static void ch_quality(ch_call *c, const char *code, const char *severity, const char *problem, const char *fix)
{
    json_t *q = shape_quality(severity, problem, fix, NULL);
    if (code)
        json_object_set_new(q, "code", json_string(code));
    json_array_append_new(c->dq, q);
}

static json_t *ch_units(void)
{
    return json_pack("{s:s, s:s, s:s, s:s}",
                     "time", "ns; start_ns / end_ns are the start times of the collectives that open and close a layer, "
                             "unix ns on the host clock (framework: baseTimeNanoseconds + ts); latencies and gaps are "
                             "differences of them",
                     "ratio_to_median", "layer latency / median_ns",
                     "layers_to_total, window_to_total", "fraction 0..1 of the chosen core's execution window",
                     "fit", "periodicity fit 0..1 (1 = every layer splits its time the same way)");
}

static const char *ch_method(const ch_call *c)
{
    return c->sm
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
    json_object_set_new(p, "collectives", col);
    return p;
}

/* ---- abstaining ------------------------------------------------------------------------------------- */

static void ch_abstain(ch_call *c)
{
    char reason[1024], related[512] = "";
    const char *fix;
    if (c->sm) {
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
    json_object_set_new(c->out, "status", json_string("abstained"));
    json_object_set_new(c->out, "abstained", json_pack("{s:s, s:s}", "reason", reason, "fix", fix));
    json_object_set_new(c->out, "layers", json_array());
    json_object_set_new(c->out, "total", json_integer(0));
    json_object_set_new(c->out, "shown", json_integer(0));
    json_object_set_new(c->out, "truncated", json_false());
    json_object_set_new(c->out, "next_cursor", json_null());
    json_object_set_new(c->out, "cc_core", json_null());
    json_object_set_new(c->out, "median_ns", json_null());
    json_object_set_new(c->out, "p90_ns", json_null());
    json_object_set_new(c->out, "outliers", json_array());
}

/* ---- computing -------------------------------------------------------------------------------------- */

static void ch_lane_list(const ch_call *c, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->in.count && used + 16 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%u", i ? ", " : "", c->in.lanes[i].id);
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
    if (rc == 0 && c->sm && gaps_host_exec_window(c->sm, &c->in, c->gr->cc_core, &c->total_ns) && c->total_ns > 0) {
        c->has_total = true;
        snprintf(c->total_source, sizeof c->total_source, "execution window of core %u: first nc_exec_running start to "
                 "last end (ntrace.pb)", c->gr->cc_core);
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

static json_t *ch_layer_json(const gaps_result *r, size_t k)
{
    const gaps_layer *ly = &r->layers[k];
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:o, s:b, s:b}", "layer", (json_int_t)k, "latency_ns",
                          (json_int_t)ly->latency_ns, "start_ns", (json_int_t)ly->start_ns, "end_ns",
                          (json_int_t)ly->end_ns, "ratio_to_median", ch_ratio(ly->ratio_to_median), "outlier",
                          ly->outlier, "warmup", k == 0);
    if (r->per_layer <= CH_LAYER_GAPS_MAX) {
        json_t *g = json_array();
        for (size_t j = 0; j < r->per_layer; j++)
            json_array_append_new(g, json_integer(r->gaps[ly->first_gap - 1 + j]));
        json_object_set_new(o, "gaps_ns", g);
    }
    return o;
}

static json_t *ch_lane_label(const ch_call *c, uint32_t id)
{
    for (size_t i = 0; i < c->in.count; i++) {
        const gaps_host_lane *l = &c->in.lanes[i];
        if (l->id != id)
            continue;
        if (c->sm)
            return json_pack("{s:s, s:I, s:o}", "basis", c->in.lane_basis, "value", (json_int_t)l->id, "nc",
                             l->nc >= 0 ? json_integer(l->nc) : json_null());
        json_t *o = json_pack("{s:s, s:s, s:s}", "basis", c->in.lane_basis, "pid", ch_name(c, l->pid), "tid",
                              ch_name(c, l->tid));
        if (l->name)
            json_object_set_new(o, "thread_name", json_string(ch_name(c, l->name)));
        return o;
    }
    return json_null();
}

static json_t *ch_cores_json(const ch_call *c)
{
    const gaps_result *r = c->gr;
    json_t *arr = json_array();
    for (size_t i = 0; i < r->core_count && i < CH_LANES_LISTED; i++)
        json_array_append_new(arr, json_pack("{s:I, s:I, s:b, s:o}", "cc_core", (json_int_t)r->cores[i].id,
                                             "trigger_starts", (json_int_t)r->cores[i].triggers, "used",
                                             r->cores[i].id == r->cc_core, "lane", ch_lane_label(c, r->cores[i].id)));
    return json_pack("{s:I, s:o, s:b}", "total", (json_int_t)r->core_count, "listed", arr, "truncated",
                     r->core_count > CH_LANES_LISTED);
}

static json_t *ch_mapping_json(const gaps_result *r)
{
    json_t *fit = json_pack("{s:o, s:s, s:b, s:o}", "fit", r->has_fit ? ch_ratio(r->fit) : json_null(), "confidence",
                            r->confidence, "uniform_gaps", r->uniform, "better_period",
                            r->better_period ? json_integer(r->better_period) : json_null());
    if (r->better_period)
        json_object_set_new(fit, "better_period_fit", ch_ratio(r->better_period_fit));
    json_t *codes = json_array();
    for (size_t i = 0; i < r->problem_count; i++)
        if (r->problems[i].breaks_mapping)
            json_array_append_new(codes, json_string(r->problems[i].code));
    return json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:o, s:o}", "consistent", r->consistent, "triggers",
                     (json_int_t)r->trigger_count, "gaps", (json_int_t)r->gap_count, "prologue_gaps",
                     (json_int_t)r->skip_prologue, "collectives_per_layer", (json_int_t)r->per_layer, "layers",
                     (json_int_t)r->layer_count, "leftover_gaps", (json_int_t)r->leftover_gaps, "reordered", r->reordered,
                     "periodicity", fit, "broken_by", codes);
}

static void ch_stats(ch_call *c)
{
    const gaps_result *r = c->gr;
    json_t *o = c->out;
    bool any = r->layer_count > 0;
    json_object_set_new(o, "median_ns", any ? json_integer(r->median_ns) : json_null());
    json_object_set_new(o, "p90_ns", any ? json_integer(r->p90_ns) : json_null());
    json_object_set_new(o, "min_ns", any ? json_integer(r->min_ns) : json_null());
    json_object_set_new(o, "max_ns", any ? json_integer(r->max_ns) : json_null());
    json_object_set_new(o, "steady_state_median_ns", r->has_steady ? json_integer(r->steady_median_ns) : json_null());
    char rule[160];
    snprintf(rule, sizeof rule, "layer >= 1 with latency_ns > %.2g x median_ns (layer 0 is judged as the warm-up layer)",
             r->outlier_k);
    json_object_set_new(o, "outlier_rule", json_string(rule));
    json_t *outliers = json_array();
    for (size_t k = 0; k < r->layer_count && json_array_size(outliers) < CH_OUTLIERS_LISTED; k++)
        if (r->layers[k].outlier)
            json_array_append_new(outliers, json_pack("{s:I, s:I, s:o}", "layer", (json_int_t)k, "latency_ns",
                                                      (json_int_t)r->layers[k].latency_ns, "ratio_to_median",
                                                      ch_ratio(r->layers[k].ratio_to_median)));
    json_object_set_new(o, "outliers", outliers);
    json_object_set_new(o, "outliers_total", json_integer((json_int_t)r->outlier_count));
    json_object_set_new(o, "warmup_layer", r->has_steady
        ? json_pack("{s:i, s:I, s:o, s:b}", "layer", 0, "latency_ns", (json_int_t)r->layers[0].latency_ns,
                    "ratio_to_steady_median", ch_ratio(r->warmup_ratio), "slow", r->warmup_slow)
        : json_null());
    json_object_set_new(o, "totals", json_pack("{s:I, s:I, s:o, s:o, s:o, s:o}", "layers_sum_ns",
                                               (json_int_t)r->layers_sum_ns, "window_ns", (json_int_t)r->window_ns,
                                               "total_time_ns", r->has_total_time ? json_integer(r->total_time_ns) : json_null(),
                                               "total_time_source", c->has_total ? json_string(c->total_source) : json_null(),
                                               "layers_to_total", r->has_total_time ? ch_ratio(r->layers_to_total) : json_null(),
                                               "window_to_total", r->has_total_time ? ch_ratio(r->window_to_total) : json_null()));
    for (size_t i = 0; i < r->problem_count; i++) {
        if (!strcmp(r->problems[i].code, "no_total_time")) /* its fix speaks of show-session headers */
            ch_quality(c, "no_total_time", "info", c->sm ? "no nc_exec_running on the chosen core: the share of its "
                       "execution window covered by the layers is not computed"
                       : "a framework trace gives no total time for this lane: the share covered by the layers is not "
                         "computed", NULL);
        else
            ch_quality(c, r->problems[i].code, r->problems[i].severity == GAPS_WARNING ? "warning" : "info",
                       r->problems[i].text, r->problems[i].fix);
    }
    if (!r->consistent) { /* the gaps themselves, numbered from 1, so the mapping can be judged by eye */
        json_t *gaps = json_array();
        for (size_t i = 1; i <= r->gap_count && i <= CH_RAW_GAPS_MAX; i++) {
            int64_t layer = gaps_gap_layer(r, i);
            json_array_append_new(gaps, json_pack("{s:I, s:I, s:I, s:o, s:s}", "gap", (json_int_t)i, "ns",
                                                  (json_int_t)r->gaps[i - 1], "from_ns", (json_int_t)r->times[i - 1],
                                                  "layer", layer >= 0 ? json_integer(layer) : json_null(), "role",
                                                  layer == -1 ? "prologue" : layer == -2 ? "leftover" : "layer"));
        }
        json_object_set_new(o, "raw_gaps", json_pack("{s:s, s:I, s:b, s:o}", "note", "shown because the mapping is "
                                                     "inconsistent", "total", (json_int_t)r->gap_count, "truncated",
                                                     r->gap_count > CH_RAW_GAPS_MAX, "gaps", gaps));
    }
}

static void ch_page(ch_call *c, size_t rows, const char *tag)
{
    const gaps_result *r = c->gr;
    size_t total = r->layer_count, end = c->offset + rows < total ? c->offset + rows : total;
    json_t *layers = json_array();
    for (size_t k = c->offset; k < end; k++)
        json_array_append_new(layers, ch_layer_json(r, k));
    json_object_set_new(c->out, "layers", layers);
    json_object_set_new(c->out, "total", json_integer((json_int_t)total));
    json_object_set_new(c->out, "shown", json_integer((json_int_t)(end - c->offset)));
    json_object_set_new(c->out, "truncated", json_boolean(end < total));
    char next[96];
    shape_cursor_make(next, sizeof next, tag, end);
    json_object_set_new(c->out, "next_cursor", end < total ? json_string(next) : json_null());
}

static int ch_shape(ch_call *c, nl_tool_result *res)
{
    const gaps_result *r = c->gr;
    char tag[64];
    snprintf(tag, sizeof tag, CH_CURSOR_PREFIX "-%u-%u-%u", r->cc_core, r->per_layer, r->skip_prologue);
    if (c->cursor && shape_cursor_parse(c->cursor, tag, &c->offset))
        return nl_tool_result_error(res, "Invalid arguments for collective-gaps — arguments.cursor: not a cursor of this "
                                    "lane and mapping (expected %s.<n>); call again without a cursor to start from "
                                    "layer 0.", tag), -1;
    if (c->offset > r->layer_count || (c->offset == r->layer_count && c->offset > 0))
        return nl_tool_result_error(res, "Invalid arguments for collective-gaps — arguments.cursor: beyond the last layer "
                                    "(%zu layers).", r->layer_count), -1;
    json_object_set_new(c->out, "status", json_string(r->consistent ? "complete" : "inconsistent"));
    json_object_set_new(c->out, "cc_core", json_integer(r->cc_core));
    json_object_set_new(c->out, "cc_core_choice", json_string(r->forced ? "forced by the cc_core argument"
                                                                        : "automatic: the lane with most collectives, "
                                                                          "ties to the highest id"));
    json_object_set_new(c->out, "cc_cores", ch_cores_json(c));
    json_object_set_new(c->out, "collectives_per_layer", json_integer(r->per_layer));
    json_object_set_new(c->out, "skip_prologue_gaps", json_integer(r->skip_prologue));
    json_object_set_new(c->out, "mapping", ch_mapping_json(r));
    ch_stats(c);
    size_t rows = c->max_rows, budget = c->call->byte_budget ? c->call->byte_budget : CH_DEFAULT_BUDGET;
    budget = budget > CH_BUDGET_MARGIN * 2 ? budget - CH_BUDGET_MARGIN : budget / 2;
    for (;;) {
        ch_page(c, rows, tag);
        char *s = json_dumps(c->out, JSON_COMPACT);
        size_t len = s ? strlen(s) : 0;
        free(s);
        if (len <= budget)
            return 0;
        if (rows <= 1)
            return nl_tool_result_error(res, "Even one layer of collective-gaps does not fit the %zu-byte result budget; "
                                        "raise the server's response limit.", budget), -1;
        rows /= 2;
    }
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
            snprintf(buf + n, sizeof buf - (size_t)n, ". Times unix ns; layers in structuredContent.");
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
    int rc = c->sm ? gaps_host_from_system(c->sm, &c->in, &err) : gaps_host_from_framework(c->fm, &c->in, &err);
    if (rc)
        return nl_tool_result_error(res, "collective-gaps failed on %s: %s (%s)", c->sel->profile->id, err.message,
                                    nl_error_code_name(err.code)), -1;
    c->out = json_object();
    c->dq = json_array();
    json_object_set_new(c->out, "profile", nl_select_label(c->sel));
    json_object_set_new(c->out, "units", ch_units());
    json_object_set_new(c->out, "provenance", ch_provenance(c));
    json_object_set_new(c->out, "data_quality", c->dq); /* c->dq stays a borrowed view */
    if (c->sm)
        nl_select_quality_system(c->sm, c->dq);
    else
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
