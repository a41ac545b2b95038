/* kernel-attribution — MCP tool: where one device profile's time goes, by source line, layer, opcode,
 * HLO or engine (formats.md §11.2–11.5).
 *
 * analyzers/analyses/attribution does the arithmetic; this file validates arguments, selects and loads the
 * profile (profile_select, warm from the model cache), checks the cursor against its query and shapes the
 * result. The first page carries the fixed sections — source coverage, engine time (summed durations and
 * merged busy intervals, labelled), idle gaps per engine, small-DMA report — and then as many ranked groups
 * as fit the byte budget (page.h), measured one group at a time. Continuation pages (with a cursor) carry
 * the groups and coverage only.
 *
 * Grouping by source when no instruction has a source location abstains for source (reason + the
 * NEURON_FRAMEWORK_DEBUG=1 / NKI debug-info fix) and ranks by opcode instead; group_by in the result says
 * which grouping the groups use. Cursor: "ka<fingerprint>.<group code>", the fingerprint covering profile,
 * effective grouping, metric and the instruction count. */
#include "tool_common.h"
#include "attribution.h"
#include "memo.h"
#include "page.h"
#include "select.h"
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KA_CURSOR_PREFIX "ka"
#define KA_CURSOR_MAX 64
#define KA_GAPS_PER_ENGINE_DEFAULT 3u

typedef struct ka_args {
    attr_request req;
    const char *cursor;
    size_t budget;
} ka_args;

static const char *const ka_metric_definitions[ATTR_METRIC_KINDS] = {
    "duration + evt_wait per group (ns); engines overlap and waits double-count, so shares are of this sum, not of wall time",
    "summed engine-local duration (ns); includes EVENT_SEMAPHORE blocking (see semaphore_duration_ns)",
    "summed evt_wait_time (ns); a stall seen by several engines counts once per engine",
    "HBM read + HBM write bytes",
    "HBM read + HBM write + SBUF write bytes of DMA-trigger instructions (formats.md §11.3)",
    "instructions",
};

static bool ka_int(const json_t *args, const char *key, int64_t *out)
{
    json_t *v = json_object_get(args, key);
    if (!json_is_integer(v))
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

static int ka_parse(const json_t *args, nl_call *call, ka_args *a, nl_tool_result *res)
{
    memset(a, 0, sizeof *a);
    const char *by = json_string_value(json_object_get(args, "group_by"));
    const char *metric = json_string_value(json_object_get(args, "metric"));
    if (by && attr_group_by_parse(by, &a->req.group_by))
        return nl_tool_result_error(res, "Invalid argument group_by: '%s'; accepted: source, layer, opcode, hlo, engine.", by), -1;
    if (metric && attr_metric_parse(metric, &a->req.metric))
        return nl_tool_result_error(res, "Invalid argument metric: '%s'; accepted: time, duration, wait, hbm_bytes, "
                                    "dma_bytes, count.", metric), -1;
    int64_t top = PAGE_ROWS_DEFAULT, rows = 0, gap_min = ATTR_GAP_MIN_NS_DEFAULT, gaps = KA_GAPS_PER_ENGINE_DEFAULT;
    bool has_top = ka_int(args, "top", &top), has_rows = ka_int(args, "max_rows", &rows);
    if (has_top && has_rows && top != rows)
        return nl_tool_result_error(res, "Invalid argument max_rows: %lld differs from top %lld; they are the same "
                                    "setting, pass one.", (long long)rows, (long long)top), -1;
    if (has_rows)
        top = rows;
    if (top < 1 || top > ATTR_TOP_MAX)
        return nl_tool_result_error(res, "Invalid argument %s: %lld; accepted 1..%u.", has_rows ? "max_rows" : "top",
                                    (long long)top, ATTR_TOP_MAX), -1;
    ka_int(args, "gap_min_ns", &gap_min);
    ka_int(args, "gaps_per_engine", &gaps);
    if (gap_min < 0 || gaps < 0 || gaps > ATTR_GAPS_PER_ENGINE_MAX)
        return nl_tool_result_error(res, "Invalid argument %s: accepted gap_min_ns >= 0, gaps_per_engine 0..%u.",
                                    gap_min < 0 ? "gap_min_ns" : "gaps_per_engine", ATTR_GAPS_PER_ENGINE_MAX), -1;
    a->req.top = (uint32_t)top;
    a->req.gap_min_ns = gap_min;
    a->req.gaps_per_engine = (uint32_t)gaps;
    a->cursor = json_string_value(json_object_get(args, "cursor"));
    a->req.sections = a->cursor == NULL;
    a->budget = page_budget(args, call);
    return 0;
}

static void ka_cursor_tag(const device_model *m, const ka_args *a, const char *profile_id, char *tag, size_t cap)
{
    bool abstained;
    attr_group_by by = attr_effective_group_by(m, a->req.group_by, &abstained);
    char text[1024];
    snprintf(text, sizeof text, "%s|%s|%s|%zu|%u", attr_group_by_name(by), attr_metric_name(a->req.metric), profile_id,
             device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS), attr_group_keys(m, by));
    page_cursor_tag(tag, cap, KA_CURSOR_PREFIX, page_fingerprint(text));
}

static int ka_cursor(ka_args *a, const nl_select *sel, nl_tool_result *res)
{
    char tag[40];
    size_t code;
    if (!a->cursor)
        return 0;
    ka_cursor_tag(nl_model_ref_device(sel->model), a, sel->profile->id, tag, sizeof tag);
    if (shape_cursor_parse(a->cursor, tag, &code) || code > UINT32_MAX)
        return nl_tool_result_error(res, "Invalid argument cursor: '%.80s' is not a next_cursor issued for this query. "
                                    "Pass the next_cursor of the previous kernel-attribution page with the same path, "
                                    "profile, group_by and metric (top may change), or omit cursor to start from the "
                                    "top group.", a->cursor), -1;
    a->req.has_after = true;
    a->req.after_code = (uint32_t)code;
    return 0;
}

/* ---- JSON pieces -------------------------------------------------------------------------------------- */

static json_t *ka_str(const device_model *m, uint32_t id)
{
    const char *s = device_model_str(m, id, NULL);
    return s && *s ? page_string(s) : json_null();
}

static json_t *ka_u64(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static double ka_pct(double part, double whole)
{
    return whole > 0 ? round(part / whole * 100 * 1e4) / 1e4 : 0;
}

static json_t *ka_group_json(const device_model *m, const attr_group *g)
{
    json_t *o = json_pack("{s:o, s:I, s:I, s:I, s:I}", "key", ka_str(m, g->key), "count", (json_int_t)g->count,
                          "duration_ns", (json_int_t)g->duration_ns, "evt_wait_ns", (json_int_t)g->wait_ns,
                          "value", (json_int_t)g->value);
    json_object_set_new(o, "share_pct", json_real(round(g->share_pct * 1e4) / 1e4));
    if (g->semaphore_duration_ns)
        json_object_set_new(o, "semaphore_duration_ns", json_integer(g->semaphore_duration_ns));
    static const char *const names[] = {"hbm_read_bytes", "hbm_write_bytes", "sbuf_read_bytes", "sbuf_write_bytes", "dma_bytes"};
    const uint64_t vals[] = {g->hbm_read, g->hbm_write, g->sbuf_read, g->sbuf_write, g->dma_bytes};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        if (vals[i])
            json_object_set_new(o, names[i], ka_u64(vals[i]));
    return o;
}

typedef struct ka_fill_ctx {
    const device_model *m;
    const attr_result *r;
} ka_fill_ctx;

static json_t *ka_page_group(void *ctx, size_t i)
{
    const ka_fill_ctx *c = ctx;
    return ka_group_json(c->m, &c->r->groups[i]);
}

static json_t *ka_coverage_json(const attr_result *r)
{
    const attr_coverage *c = &r->coverage;
    return json_pack("{s:I, s:I, s:f, s:f}", "instructions", (json_int_t)c->instructions,
                     "with_source", (json_int_t)c->with_source,
                     "instructions_pct", ka_pct((double)c->with_source, (double)c->instructions),
                     "duration_pct", ka_pct((double)c->duration_with_source_ns, (double)c->duration_ns));
}

static json_t *ka_source_json(const attr_result *r, attr_group_by requested)
{
    if (requested != ATTR_BY_SOURCE)
        return NULL;
    if (!r->source_abstained)
        return json_pack("{s:s}", "status", "available");
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "status", "abstained",
                     "reason", "no instruction in this export carries a source location (nki_source_location, "
                               "bir_debug_info_source_location, or an hlo_attrs source line)",
                     "fix", PAGE_SOURCE_FIX, "fallback_group_by", "opcode",
                     "suggestion", "groups below are by opcode; call again with group_by layer or hlo for the other views");
}

static json_t *ka_engines_json(const device_model *m, const attr_result *r)
{
    json_t *arr = json_array();
    for (size_t e = 0; e < r->engine_count; e++) {
        const attr_engine *g = &r->engines[e];
        json_t *o = json_pack("{s:o, s:I, s:I, s:I, s:I, s:I}", "engine", ka_str(m, g->name),
                              "instructions", (json_int_t)g->instructions, "summed_duration_ns", (json_int_t)g->summed_duration_ns,
                              "summed_evt_wait_ns", (json_int_t)g->summed_wait_ns, "merged_busy_ns", (json_int_t)g->busy_ns,
                              "busy_intervals", (json_int_t)g->busy_intervals);
        if (g->has_active_rows)
            json_object_set_new(o, "export_active_time_ns", json_integer(g->active_rows_ns));
        json_array_append_new(arr, o);
    }
    return json_pack("{s:s, s:o}", "note",
                     "summed_duration_ns adds instruction durations (overlapping instructions and EVENT_SEMAPHORE waits "
                     "included); merged_busy_ns is the union of the engine's instruction intervals without "
                     "EVENT_SEMAPHORE, comparable with the export's active_time", "engines", arr);
}

/* The instruction on one side of a gap; source and layer only when it has them. */
static json_t *ka_side_json(const device_model *m, const attr_gap_side *s, bool before)
{
    json_t *o = json_pack("{s:I, s:o, s:I}", "row", (json_int_t)s->row, "opcode", ka_str(m, s->opcode),
                          before ? "end_ns" : "start_ns", (json_int_t)(before ? s->end_ns : s->start_ns));
    if (s->source)
        json_object_set_new(o, "source", ka_str(m, s->source));
    if (s->layer)
        json_object_set_new(o, "layer", ka_str(m, s->layer));
    return o;
}

static json_t *ka_gaps_json(const device_model *m, const attr_result *r, const attr_request *req)
{
    json_t *arr = json_array();
    for (size_t e = 0; e < r->engine_count; e++) {
        const attr_engine *g = &r->engines[e];
        json_t *top = json_array();
        for (unsigned i = 0; i < g->gap_count; i++) {
            const attr_gap *gap = &g->gaps[i];
            json_array_append_new(top, json_pack("{s:I, s:I, s:I, s:o, s:o}", "start_ns", (json_int_t)gap->start_ns,
                                                 "end_ns", (json_int_t)gap->end_ns, "gap_ns", (json_int_t)gap->gap_ns,
                                                 "before", ka_side_json(m, &gap->before, true),
                                                 "after", ka_side_json(m, &gap->after, false)));
        }
        json_array_append_new(arr, json_pack("{s:o, s:I, s:I, s:I, s:o}", "engine", ka_str(m, g->name),
                                             "threshold_ns", (json_int_t)req->gap_min_ns,
                                             "gaps_over_threshold", (json_int_t)g->gaps_over_min,
                                             "gap_total_ns", (json_int_t)g->gaps_over_min_ns, "largest", top));
    }
    return arr;
}

static json_t *ka_class_json(const attr_size_class *c)
{
    return json_pack("{s:I, s:I}", "count", (json_int_t)c->count, "bytes", (json_int_t)c->bytes);
}

static json_t *ka_small_dma_json(const device_model *m, const attr_small_dma *d)
{
    json_t *queues = json_array();
    for (unsigned i = 0; i < d->queue_count; i++) {
        const attr_dma_queue *q = &d->queues[i];
        json_array_append_new(queues, json_pack("{s:o, s:o, s:I, s:I, s:I, s:I}", "queue", ka_str(m, q->queue),
                                                "queue_type", ka_str(m, q->queue_type), "packets", (json_int_t)q->packets,
                                                "bytes", (json_int_t)q->bytes, "under_512_B", (json_int_t)q->under_512.count,
                                                "under_4_KiB", (json_int_t)q->under_4k.count));
    }
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:I}",
                          "counted_over", "DMA packets (descriptor-level records), duplicates excluded",
                          "packets", (json_int_t)d->packets, "packet_bytes", (json_int_t)d->packet_bytes,
                          "aggregated_transfers", (json_int_t)d->transfers, "duplicates_excluded", (json_int_t)d->duplicates,
                          "under_512_B", ka_class_json(&d->under_512), "under_4_KiB", ka_class_json(&d->under_4k),
                          "by_queue", queues, "queues_total", (json_int_t)d->queues_total);
    json_t *instr = json_pack("{s:s, s:I, s:o, s:o}", "bytes", "HBM read + HBM write + SBUF write (formats.md §11.3)",
                              "dma_trigger_instructions", (json_int_t)d->dma_instructions,
                              "under_512_B", ka_class_json(&d->instr_under_512), "under_4_KiB", ka_class_json(&d->instr_under_4k));
    if (d->by_source) {
        json_t *src = json_array();
        for (unsigned i = 0; i < d->source_count; i++)
            json_array_append_new(src, json_pack("{s:o, s:I, s:I, s:I}", "source", ka_str(m, d->sources[i].source),
                                                 "count", (json_int_t)d->sources[i].count, "bytes", (json_int_t)d->sources[i].bytes,
                                                 "duration_ns", (json_int_t)d->sources[i].duration_ns));
        json_object_set_new(instr, "under_512_B_by_source", src);
        json_object_set_new(instr, "sources_total", json_integer((json_int_t)d->sources_total));
    } else {
        json_object_set_new(instr, "by_source", json_string("not available: no source locations (see source_attribution / coverage)"));
    }
    json_object_set_new(o, "instructions", instr);
    return o;
}

static json_t *ka_units(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "time", "ns (device time from the profile start)", "bytes", "B",
                     "share_pct", "percent 0-100 of metric_total", "key", "null = instructions without a value for group_by",
                     "idle_gaps", "before/after: the instruction that ended last before the gap and the one that "
                                  "ends it (row = index in the export's instruction array; source/layer when present)");
}

/* ---- result ------------------------------------------------------------------------------------------- */

static void ka_quality(const device_model *m, const attr_result *r, json_t *dq)
{
    page_quality_wait(dq);
    json_array_append_new(dq, shape_quality("info", "EVENT_SEMAPHORE durations are time blocked on a semaphore: they "
                                            "are inside duration_ns (semaphore_duration_ns shows how much) and outside "
                                            "merged_busy_ns", NULL, NULL));
    if (r->has_sections)
        page_quality_dma(m, r->small_dma.unknown_variable, r->small_dma.packets, dq);
    if (r->coverage.instructions && !r->coverage.with_source) {
        json_t *q = shape_quality("warning", "none of the instructions carries a source location: attribution by source "
                                  "line is not possible (layer, opcode, hlo and engine still work)", PAGE_SOURCE_FIX, NULL);
        json_object_set_new(q, "code", json_string("no_source_locations"));
        json_array_append_new(dq, q);
    }
    for (size_t e = 0; e < r->engine_count; e++) {
        const attr_engine *g = &r->engines[e];
        int64_t diff = g->busy_ns - g->active_rows_ns, tol = (int64_t)g->active_rows + 1;
        if (g->has_active_rows && (diff > tol || diff < -tol)) {
            char problem[256];
            snprintf(problem, sizeof problem, "%s: merged busy time from instructions %lld ns vs the export's active_time "
                     "%lld ns", device_model_str(m, g->name, NULL), (long long)g->busy_ns, (long long)g->active_rows_ns);
            json_t *q = shape_quality("warning", problem, "Prefer the export's active_time for utilization; report the "
                                      "discrepancy with the profile.", NULL);
            json_object_set_new(q, "code", json_string("engine_time_mismatch"));
            json_array_append_new(dq, q);
        }
    }
}

/* Fixed sections first (first page), then groups while they fit. 0, or -1 with res set. */
static int ka_fill(const device_model *m, const ka_args *a, const attr_result *r, const char *tag, json_t *out,
                   nl_tool_result *res)
{
    char cursor[KA_CURSOR_MAX];
    json_object_set_new(out, "coverage", ka_coverage_json(r));
    if (r->has_sections) {
        json_object_set_new(out, "engine_time", ka_engines_json(m, r));
        json_object_set_new(out, "idle_gaps", ka_gaps_json(m, r, &a->req));
        json_object_set_new(out, "small_dma", ka_small_dma_json(m, &r->small_dma));
    }
    shape_cursor_make(cursor, sizeof cursor, tag, UINT32_MAX);
    json_t *groups = json_array();
    json_object_set_new(out, "groups", groups);
    json_object_set_new(out, "total", json_integer((json_int_t)r->groups_total));
    json_object_set_new(out, "shown", json_integer(ATTR_TOP_MAX));
    json_object_set_new(out, "truncated", json_false());
    json_object_set_new(out, "truncated_by", json_string("max_bytes"));
    json_object_set_new(out, "next_cursor", json_string(cursor)); /* placeholder of the longest size */
    page_meter pm;
    page_meter_init(&pm, a->budget, out);
    if (pm.used > a->budget)
        return nl_tool_result_error(res, "The result without groups already needs %zu bytes (profile, provenance, "
                                    "data_quality, coverage%s and %u bytes kept for the text), over max_bytes %zu. Raise "
                                    "max_bytes to at least %zu%s.", pm.used, r->has_sections ? ", engine time, idle gaps, "
                                    "small DMA" : "", PAGE_TEXT_MAX + PAGE_WRAPPER_BYTES, a->budget, pm.used + 512,
                                    r->has_sections && a->req.gaps_per_engine ? ", or pass gaps_per_engine 0" : ""), -1;
    ka_fill_ctx c = {m, r};
    size_t need = 0, shown = page_meter_fill(&pm, groups, r->group_count, ka_page_group, &c, &need);
    if (!shown && r->group_count)
        return nl_tool_result_error(res, "Not even one group fits the byte budget: the first takes %zu bytes and %zu of "
                                    "max_bytes %zu are used by the other sections. Raise max_bytes (at most 24576), "
                                    "or pass gaps_per_engine 0.", need, pm.used, a->budget), -1;
    bool truncated = shown < r->groups_after_cursor;
    json_object_set_new(out, "shown", json_integer((json_int_t)shown));
    json_object_set_new(out, "truncated", json_boolean(truncated));
    json_object_set_new(out, "truncated_by", truncated ? json_string(shown < r->group_count ? "max_bytes" : "top") : json_null());
    if (truncated)
        shape_cursor_make(cursor, sizeof cursor, tag, r->groups[shown - 1].code);
    json_object_set_new(out, "next_cursor", truncated ? json_string(cursor) : json_null());
    return 0;
}

/* attr_compute through the model's memos (memo.h): the pass over the rows runs once per grouping and once
 * per gap setting; a warm call only ranks the memoized groups (attr_compute_from, O(groups)). */
static int ka_compute(nl_call *call, nl_model_ref *ref, const attr_request *req, attr_result *r, nl_error *err)
{
    const device_model *m = nl_model_ref_device(ref);
    bool abstained;
    const attr_groups *g = nl_memo_attr_groups(call, ref, attr_effective_group_by(m, req->group_by, &abstained), err);
    const attr_sections *s = NULL;
    if (!g || (req->sections && !(s = nl_memo_attr_sections(call, ref, req->gap_min_ns, req->gaps_per_engine, err)))) {
        memset(r, 0, sizeof *r);
        return -1;
    }
    return attr_compute_from(m, req, g, s, r, err);
}

static int ka_attribute(nl_call *call, const nl_select *sel, ka_args *a, json_t *out, nl_tool_result *res)
{
    const device_model *m = nl_model_ref_device(sel->model);
    if (ka_cursor(a, sel, res))
        return -1;
    attr_result r;
    nl_error err;
    nl_error_clear(&err);
    if (ka_compute(call, sel->model, &a->req, &r, &err)) {
        if (err.code == NL_ERR_ARGUMENT)
            return nl_tool_result_error(res, "Invalid argument %s: %s.", err.field, err.message), -1;
        return nl_tool_result_error(res, "kernel-attribution failed: %s (%s)", err.message, nl_error_code_name(err.code)), -1;
    }
    char tag[40];
    ka_cursor_tag(m, a, sel->profile->id, tag, sizeof tag);
    json_object_set_new(out, "status", json_string("complete"));
    json_object_set_new(out, "group_by", json_string(attr_group_by_name(r.group_by)));
    json_object_set_new(out, "requested_group_by", json_string(attr_group_by_name(a->req.group_by)));
    json_object_set_new(out, "metric", json_string(attr_metric_name(r.metric)));
    json_object_set_new(out, "metric_definition", json_string(ka_metric_definitions[r.metric]));
    json_object_set_new(out, "metric_total", json_integer(r.metric_total));
    json_t *src = ka_source_json(&r, a->req.group_by);
    if (src)
        json_object_set_new(out, "source_attribution", src);
    ka_quality(m, &r, json_object_get(out, "data_quality"));
    int rc = ka_fill(m, a, &r, tag, out, res);
    attr_result_free(&r);
    return rc;
}

static void ka_text(json_t *out, nl_tool_result *res)
{
    char buf[PAGE_TEXT_MAX], top[200] = "";
    const char *id = json_string_value(json_object_get(json_object_get(out, "profile"), "id"));
    json_t *abst = json_object_get(out, "abstained");
    if (abst) {
        snprintf(buf, sizeof buf, "kernel-attribution of %s abstained: %.200s", id ? id : "?",
                 json_string_value(json_object_get(abst, "reason")));
        res->text = strdup(buf);
        return;
    }
    json_t *g0 = json_array_get(json_object_get(out, "groups"), 0);
    if (g0) {
        const char *key = json_string_value(json_object_get(g0, "key"));
        snprintf(top, sizeof top, "; top: %.100s (%.1f%%)", key ? key : "(none)", json_real_value(json_object_get(g0, "share_pct")));
    }
    json_t *sa = json_object_get(out, "source_attribution");
    snprintf(buf, sizeof buf, "kernel-attribution %s: %lld of %lld %s groups by %s%s%s%s. Details in structuredContent.",
             id ? id : "?", (long long)json_integer_value(json_object_get(out, "shown")),
             (long long)json_integer_value(json_object_get(out, "total")), json_string_value(json_object_get(out, "group_by")),
             json_string_value(json_object_get(out, "metric")), top,
             json_is_true(json_object_get(out, "truncated")) ? "; more with next_cursor" : "",
             sa && !strcmp(json_string_value(json_object_get(sa, "status")), "abstained")
                 ? "; source attribution abstained (no source locations: recompile with NEURON_FRAMEWORK_DEBUG=1)" : "");
    res->text = strdup(buf);
}

static int kernel_attribution_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    ka_args a;
    nl_select sel;
    if (ka_parse(args, call, &a, res))
        return 0;
    if (nl_select_profile(call, args, NL_ANALYSIS_KERNEL_ATTRIBUTION, &sel, res) || nl_select_load(call, &sel, res)) {
        nl_select_clear(&sel);
        return 0;
    }
    json_t *out = page_envelope(&sel, ka_units());
    if (!sel.model) {
        json_object_set_new(out, "status", json_string("abstained"));
        json_object_set_new(out, "abstained", json_pack("{s:s, s:s}", "reason", sel.abstain_reason, "fix", sel.abstain_fix));
        json_object_set_new(out, "groups", json_array());
        json_object_set_new(out, "total", json_integer(0));
        json_object_set_new(out, "shown", json_integer(0));
        json_object_set_new(out, "truncated", json_false());
        json_object_set_new(out, "next_cursor", json_null());
    } else if (ka_attribute(call, &sel, &a, out, res)) {
        json_decref(out);
        nl_select_clear(&sel);
        return 0;
    }
    ka_text(out, res);
    size_t size;
    if (!page_fits(out, res->text, a.budget, &size)) {
        json_decref(out);
        nl_select_clear(&sel);
        return nl_tool_result_error(res, "The result needs %zu bytes, over max_bytes %zu; raise max_bytes (at most 24576) "
                                    "or pass gaps_per_engine 0.", size, a.budget);
    }
    res->structured = out;
    nl_select_clear(&sel);
    return 0;
}

const nl_tool_desc nl_tool_kernel_attribution = {
    .name = "kernel-attribution",
    .title = "Kernel attribution: time by source line, layer, opcode",
    .description =
        "Where device time goes, grouped by source line, layer, opcode, HLO or engine and ranked by a metric "
        "(duration + stall wait, bytes, count), with share of total; plus engine time (summed vs merged busy), "
        "small-DMA report, per-engine idle gaps with the instructions around them, and source-location coverage. "
        "Abstains for source with the fix when the profile has no source locations. Call after summary.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_PROFILE ","
        NL_JSON("group_by": {"enum": ["source", "layer", "opcode", "hlo", "engine"], "default": "source"},
                "metric": {"enum": ["time", "duration", "wait", "hbm_bytes", "dma_bytes", "count"], "default": "time"},
                "top": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20},
                "max_rows": {"type": "integer", "minimum": 1, "maximum": 500, "description": "same as top"},
                "gap_min_ns": {"type": "integer", "minimum": 0, "default": 1000},
                "gaps_per_engine": {"type": "integer", "minimum": 0, "maximum": 20, "default": 3})
        "," NL_PROP_CURSOR "," NL_PROP_MAX_BYTES "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"groups\", \"total\", \"shown\", \"truncated\"], \"properties\": {"
        NL_OUT_ENVELOPE "," NL_OUT_LIST ","
        NL_JSON("status": {"enum": ["complete", "abstained"]}, "group_by": {"type": "string"}, "metric": {"type": "string"},
                "groups": {"type": "array"}, "coverage": {"type": "object"}, "engine_time": {"type": "object"},
                "small_dma": {"type": "object"}, "idle_gaps": {"type": "array"})
        "}}",
    .run = kernel_attribution_run,
};
