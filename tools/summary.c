/* summary — MCP tool: one device profile's headline numbers.
 *
 * Selection and loading: profile_select (catalog + model cache + neuron-profile adapter). Numbers:
 * analyzers/analyses/device_summary computes engine busy time, DMA totals, bounds, rules and quality;
 * values the export's `summary` record carries are reported as given, converted only in unit (seconds
 * → ns, fractions → %), and every converted field says so in `units`. When the profile has no readable
 * export, the result abstains (status "abstained") with the reason and the exact fix, and still reports
 * what the catalog read natively (files, pairing, versions). */
#include "tool_common.h"
#include "device_summary.h"
#include "memo.h"
#include "ntff_payload.h"
#include "select.h"
#include "summary_memory.h"
#include "summary_program.h"
#include "shape.h"
#include "summary_kinds.h"
#include "summary_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ns from a summary seconds value, rounded to the picosecond the profiler keeps. */
static json_t *ns_from_seconds(double s)
{
    return json_real(round(s * 1e12) / 1e3);
}

static json_t *opt_json(ds_opt o, int decimals)
{
    if (!o.has)
        return json_null();
    double scale = pow(10, decimals);
    return decimals ? json_real(round(o.v * scale) / scale) : json_integer((json_int_t)llround(o.v));
}

static json_t *record_value(const kvlist *rec, const char *key)
{
    const kvlist_entry *e = rec ? kvlist_get(rec, key) : NULL;
    if (!e)
        return NULL;
    switch (e->kind) {
    case KVLIST_INT: return json_integer(e->i);
    case KVLIST_UINT: return json_real((double)e->u);
    case KVLIST_DOUBLE: return json_real(e->num);
    case KVLIST_BOOL: return json_boolean(e->i);
    case KVLIST_STRING: return json_string(kvlist_text_str(rec, e));
    default: return NULL;
    }
}

/* Copy summary keys into obj; absent keys are omitted unless zero_if_absent (summaries omit zeros). */
static void copy_keys(json_t *obj, const kvlist *rec, const char *const *keys, bool zero_if_absent)
{
    for (size_t i = 0; keys[i]; i++) {
        json_t *v = record_value(rec, keys[i]);
        if (!v && zero_if_absent && rec)
            v = json_integer(0);
        if (v)
            json_object_set_new(obj, keys[i], v);
    }
}

static json_t *percent_of_fraction(const kvlist *rec, const char *key)
{
    double v;
    if (!rec || !kvlist_get_num(rec, key, &v))
        return json_null();
    return json_real(round(v * 100 * 1e6) / 1e6);
}

static json_t *engines_json(const device_summary *ds)
{
    json_t *arr = json_array();
    for (int e = 0; e < DS_ENGINE_COUNT; e++) {
        const ds_engine *g = &ds->engines[e];
        json_t *o = json_pack("{s:s, s:I, s:o, s:s, s:o, s:I, s:I, s:I, s:I}",
                              "engine", g->name, "instructions", (json_int_t)g->instructions,
                              "utilization_pct", json_real(round(g->utilization_pct * 1e4) / 1e4),
                              "utilization_basis", g->utilization_basis,
                              "active_time_ns", g->summary_active_ns.has ? json_real(round(g->summary_active_ns.v * 1e3) / 1e3)
                                                : g->has_active_rows ? json_integer(g->active_rows_ns) : json_integer(g->busy_ns),
                              "busy_ns_from_instructions", (json_int_t)g->busy_ns,
                              "busy_intervals", (json_int_t)g->busy_intervals,
                              "summed_duration_ns", (json_int_t)g->summed_duration_ns,
                              "summed_evt_wait_ns", (json_int_t)g->summed_wait_ns);
        if (g->has_active_rows)
            json_object_set_new(o, "export_active_time_rows_ns", json_integer(g->active_rows_ns));
        if (g->model_info_count.has)
            json_object_set_new(o, "model_info_instruction_count", json_integer((json_int_t)g->model_info_count.v));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *dma_json(const device_summary *ds, const kvlist *sum, const kvlist *meta)
{
    const ds_dma *d = &ds->dma;
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "records", (json_int_t)d->records,
                          "packets", (json_int_t)d->packets, "packet_bytes", (json_int_t)d->packet_bytes,
                          "transfers", (json_int_t)d->transfers, "transfer_bytes", (json_int_t)d->transfer_bytes,
                          "duplicates_excluded", (json_int_t)d->duplicates,
                          "packet_busy_ns", (json_int_t)d->packet_busy_ns);
    double active_s, bw;
    if (sum && kvlist_get_num(sum, "dma_active_time", &active_s)) {
        json_object_set_new(o, "active_time_ns", ns_from_seconds(active_s));
        if (active_s > 0 && d->packet_bytes)
            json_object_set_new(o, "achieved_bandwidth_Bps", json_real(round((double)d->packet_bytes / active_s)));
    }
    if (meta && kvlist_get_num(meta, "dma_ddr_bandwidth", &bw)) {
        json_object_set_new(o, "dma_ddr_bandwidth_Bps", json_real(bw));
        if (sum && kvlist_get_num(sum, "dma_active_time", &active_s) && active_s > 0 && bw > 0 && d->packet_bytes)
            json_object_set_new(o, "achieved_vs_peak_pct",
                                json_real(round((double)d->packet_bytes / active_s / bw * 100 * 1e4) / 1e4));
    }
    json_object_set_new(o, "size_classes", json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "counted_over", d->size_basis,
                                                     "count", (json_int_t)d->size_basis_count,
                                                     "under_512_B", (json_int_t)d->under_512,
                                                     "under_512_B_bytes", (json_int_t)d->under_512_bytes,
                                                     "under_4_KiB", (json_int_t)d->under_4k,
                                                     "under_4_KiB_bytes", (json_int_t)d->under_4k_bytes));
    static const char *const keys[] = {"dma_transfer_count", "dma_transfer_total_bytes", "dma_transfer_average_bytes",
                                       "static_dma_size", "software_dynamic_dma_size", "hardware_dynamic_dma_size", NULL};
    json_t *from_summary = json_object();
    copy_keys(from_summary, sum, keys, false);
    json_object_set_new(o, "summary", from_summary);
    return o;
}

static json_t *flops_json(const kvlist *sum)
{
    static const char *const keys[] = {"model_flops", "hardware_flops", "transpose_flops", NULL};
    json_t *o = json_object();
    copy_keys(o, sum, keys, true);
    json_object_set_new(o, "mfu_pct", percent_of_fraction(sum, "mfu_estimated_percent"));
    json_object_set_new(o, "hfu_pct", percent_of_fraction(sum, "hfu_estimated_percent"));
    json_object_set_new(o, "mbu_pct", percent_of_fraction(sum, "mbu_estimated_percent"));
    json_t *ai = record_value(sum, "mm_arithmetic_intensity");
    json_t *ratio = record_value(sum, "peak_flops_bandwidth_ratio");
    json_object_set_new(o, "arithmetic_intensity_flop_per_B", ai ? ai : json_null());
    json_object_set_new(o, "peak_flops_bandwidth_ratio_flop_per_B", ratio ? ratio : json_null());
    double a, r;
    if (sum && kvlist_get_num(sum, "mm_arithmetic_intensity", &a) && kvlist_get_num(sum, "peak_flops_bandwidth_ratio", &r))
        json_object_set_new(o, "roofline", json_string(a < r ? "below the ridge point: HBM bandwidth limits matmul throughput"
                                                              : "above the ridge point: Tensor-engine compute limits matmul throughput"));
    return o;
}

static json_t *memory_json(const kvlist *sum)
{
    static const char *const keys[] = {"hbm_read_bytes", "hbm_write_bytes", "sbuf_read_bytes", "sbuf_write_bytes",
                                       "psum_read_bytes", "psum_write_bytes", "spill_save_bytes", "spill_reload_bytes", NULL};
    json_t *o = json_object();
    copy_keys(o, sum, keys, true);
    return o;
}

static json_t *bounds_json(const ds_bounds *b)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:s}", "window_ns", opt_json(b->window_ns, 3),
                          "compute_bound_ns", opt_json(b->compute_bound_ns, 0), "memory_bound_ns", opt_json(b->memory_bound_ns, 0),
                          "memory_bound_ideal_ns", opt_json(b->memory_bound_ideal_ns, 1),
                          "perfect_pipeline_ns", opt_json(b->perfect_pipeline_ns, 0), "not_computed", b->not_computed);
    json_object_set_new(o, "bottleneck", b->bottleneck ? json_string(b->bottleneck) : json_null());
    json_object_set_new(o, "busiest_unit_share_pct", opt_json(b->pipeline_share_pct, 4));
    if (b->pipeline_share_pct.has)
        json_object_set_new(o, "reading", json_string(b->pipeline_share_pct.v < 50
            ? "the busiest engine or DMA is active for under half of the window: the time goes to serialisation and "
              "waiting (semaphores, dependencies, launch overhead), not to one saturated unit — look at idle gaps and waits"
            : "the busiest unit covers most of the window: speeding it up shortens the profile"));
    json_object_set_new(o, "method", json_string("AWS performance bounds, single core (see neuronlens://references/performance-bounds-and-rules)"));
    return o;
}

static const char *status_name(ds_status s)
{
    return s == DS_FIRED ? "fired" : s == DS_PASSED ? "passed" : "not_evaluated";
}

static json_t *findings_json(const device_summary *ds)
{
    json_t *arr = json_array();
    for (unsigned i = 0; i < ds->finding_count; i++) {
        const ds_finding *f = &ds->findings[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "rule", f->id, "title", f->title, "status", status_name(f->status),
                              "evidence", f->evidence);
        if (f->status != DS_NOT_EVALUATED) {
            json_object_set_new(o, "value", json_real(round(f->value * 1e6) / 1e6));
            json_object_set_new(o, "threshold", json_real(f->threshold));
        }
        if (f->status == DS_FIRED)
            json_object_set_new(o, "recommendation", json_string(f->recommendation));
        json_array_append_new(arr, o);
    }
    return arr;
}

static void quality_json(const device_summary *ds, json_t *arr)
{
    static const char *const sev[] = {"info", "warning", "error"};
    for (unsigned i = 0; i < ds->quality_count; i++) {
        json_t *q = shape_quality(sev[ds->quality[i].severity], ds->quality[i].problem, ds->quality[i].fix, NULL);
        json_object_set_new(q, "code", json_string(ds->quality[i].code));
        json_array_append_new(arr, q);
    }
    json_array_append_new(arr, shape_quality("info", "evt_wait_time double-counts across engines: per-engine waits are "
                                             "shown, never a cross-engine total", NULL, NULL));
}

static json_t *units_json(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}",
                     "time", "ns (device time relative to first_hw_timestamp); summary seconds converted to ns",
                     "bytes", "B", "bandwidth", "B/s",
                     "utilization_pct", "percent of total time, 0-100",
                     "mfu_pct, hfu_pct, mbu_pct", "percent: the export stores fractions 0..1, multiplied by 100 here",
                     "flops", "floating-point operations");
}

static void add_versions(json_t *prov, const device_model *m)
{
    static const char *const meta_keys[] = {"ntff_version", "data_version", "profile_schema_version", "explorer_version",
                                            NULL};
    static const char *const sum_keys[] = {"runtime_version", "compiler_version", "driver_version", "collectives_version",
                                           "instance_type", NULL};
    static const char *const info_keys[] = {"profiler_version", "profile_name", "ntff_filename", NULL};
    const kvlist *meta = device_model_record_get(m, DEVICE_MODEL_METADATA);
    json_t *v = json_object();
    copy_keys(v, meta, meta_keys, false);
    copy_keys(v, device_model_record_get(m, DEVICE_MODEL_SUMMARY), sum_keys, false);
    for (size_t i = 0; sum_keys[i]; i++) /* neuron-explorer keeps the versions in Metadata, not Summary */
        if (!json_object_get(v, sum_keys[i]))
            copy_keys(v, meta, (const char *const[]){sum_keys[i], NULL}, false);
    copy_keys(v, device_model_record_get(m, DEVICE_MODEL_PROFILE_INFO), info_keys, false);
    for (size_t i = 0; info_keys[i]; i++)
        if (!json_object_get(v, info_keys[i]))
            copy_keys(v, meta, (const char *const[]){info_keys[i], NULL}, false);
    json_object_set_new(prov, "export", v);
}

static int summarize(nl_call *call, nl_select *sel, json_t *out, nl_tool_result *res)
{
    const device_model *m = nl_model_ref_device(sel->model);
    nl_error err;
    nl_error_clear(&err);
    const device_summary *ds = nl_memo_device_summary(call, sel->model, &err); /* computed once per model */
    if (!ds)
        return nl_tool_result_error(res, "summary failed: %s", err.message), -1;
    const kvlist *sum = device_model_record_get(m, DEVICE_MODEL_SUMMARY);
    double total_s;
    json_object_set_new(out, "total_time_ns", sum && kvlist_get_num(sum, "total_time", &total_s)
                                                  ? ns_from_seconds(total_s) : opt_json(ds->metadata_span_ns, 0));
    json_object_set_new(out, "total_time_basis", json_string(sum && kvlist_get_num(sum, "total_time", &total_s)
                                                                 ? "summary total_time" : "metadata last_hw - first_hw"));
    json_object_set_new(out, "instruction_span_ns", json_integer(ds->instruction_span_ns));
    json_object_set_new(out, "instructions", json_integer((json_int_t)ds->instructions));
    json_object_set_new(out, "source_coverage_pct",
                        json_real(ds->instructions ? round(1e4 * (double)ds->instructions_with_source / (double)ds->instructions) / 100 : 0));
    json_object_set_new(out, "engines", engines_json(ds));
    json_object_set_new(out, "dma", dma_json(ds, sum, device_model_record_get(m, DEVICE_MODEL_METADATA)));
    json_object_set_new(out, "memory", memory_json(sum));
    json_object_set_new(out, "flops", flops_json(sum));
    json_object_set_new(out, "bounds", bounds_json(&ds->bounds));
    json_object_set_new(out, "findings", findings_json(ds));
    quality_json(ds, json_object_get(out, "data_quality"));
    if (!sum)
        json_array_append_new(json_object_get(out, "data_quality"),
                              sel->decoded ? shape_quality("info", "the NTFF carries no summary record: FLOPs, MFU and byte "
                                                           "totals come only from neuron-profile's export",
                                                           "Export with neuron-profile view --output-format json for them.", NULL)
                                           : shape_quality("warning", "the export has no summary record: FLOPs, MFU and byte "
                                                           "totals are unavailable", "Export again with a current "
                                                           "neuron-profile (view --output-format json).", NULL));
    add_versions(json_object_get(out, "provenance"), m);
    return 0;
}

static void text_rendering(json_t *out, nl_tool_result *res)
{
    char buf[1024];
    const char *id = json_string_value(json_object_get(json_object_get(out, "profile"), "id"));
    if (json_object_get(out, "abstained")) {
        snprintf(buf, sizeof buf, "summary of %s abstained: %s. Fix: %s", id,
                 json_string_value(json_object_get(json_object_get(out, "abstained"), "reason")),
                 json_string_value(json_object_get(json_object_get(out, "abstained"), "fix")));
    } else {
        const json_t *b = json_object_get(out, "bounds");
        size_t fired = 0;
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(out, "findings"), i, f)
            fired += !strcmp(json_string_value(json_object_get(f, "status")), "fired");
        snprintf(buf, sizeof buf, "%s: total %.0f ns, %lld instructions, bottleneck %s, %zu rule finding(s) fired, %zu "
                 "data-quality note(s). Full numbers in structuredContent.", id,
                 json_number_value(json_object_get(out, "total_time_ns")),
                 (long long)json_integer_value(json_object_get(out, "instructions")),
                 json_string_value(json_object_get(b, "bottleneck")) ? json_string_value(json_object_get(b, "bottleneck")) : "unknown",
                 fired, json_array_size(json_object_get(out, "data_quality")));
    }
    res->text = strdup(buf);
}

static json_t *record_engines_json(const device_summary *ds)
{
    json_t *arr = json_array();
    for (int e = 0; e < DS_ENGINE_COUNT; e++) {
        const ds_engine *g = &ds->engines[e];
        json_t *o = json_pack("{s:s, s:o, s:s, s:o, s:o}", "engine", g->name,
                              "utilization_pct", json_real(round(g->utilization_pct * 1e4) / 1e4),
                              "utilization_basis", g->utilization_basis,
                              "active_time_ns", opt_json(g->summary_active_ns, 3),
                              "instructions", opt_json(g->summary_instruction_count, 0));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* summary of one profile of a summary-json file: the record as given (units converted), the rules that
 * need only summary keys; everything needing rows is marked so. */
static void summarize_record(const kvlist *sum, const char *id, const char *file, json_t *out)
{
    device_summary *ds = calloc(1, sizeof *ds);
    if (!ds)
        return;
    device_summary_from_record(sum, ds);
    double total_s;
    json_object_set_new(out, "profile", json_pack("{s:s, s:s, s:s, s:n, s:n}", "id", id, "kind", "device",
                                                  "source", "summary-json", "rank", "core"));
    json_object_set_new(out, "units", units_json());
    json_object_set_new(out, "status", json_string("complete"));
    json_object_set_new(out, "total_time_ns", kvlist_get_num(sum, "total_time", &total_s) ? ns_from_seconds(total_s) : json_null());
    json_object_set_new(out, "total_time_basis", json_string("summary total_time"));
    json_object_set_new(out, "engines", record_engines_json(ds));
    static const char *const dma_keys[] = {"dma_active_time", "dma_transfer_count", "dma_transfer_total_bytes",
                                           "dma_transfer_average_bytes", "static_dma_size", "software_dynamic_dma_size",
                                           "hardware_dynamic_dma_size", NULL};
    json_t *dma = json_object();
    copy_keys(dma, sum, dma_keys, false);
    if (kvlist_get_num(sum, "dma_active_time", &total_s)) {
        json_object_del(dma, "dma_active_time");
        json_object_set_new(dma, "active_time_ns", ns_from_seconds(total_s));
    }
    json_object_set_new(out, "dma", dma);
    json_object_set_new(out, "memory", memory_json(sum));
    json_object_set_new(out, "flops", flops_json(sum));
    json_object_set_new(out, "bounds", json_pack("{s:n, s:s}", "bottleneck", "not_computed",
                                                 "bounds need instruction and DMA records: export the full JSON "
                                                 "(neuron-profile view --output-format json)"));
    json_object_set_new(out, "findings", findings_json(ds));
    json_t *dq = json_array();
    json_array_append_new(dq, shape_quality("info", "summary-json carries totals only: per-instruction analyses, "
                                            "engine busy time from rows and DMA size classes are unavailable",
                                            "For those, export the full JSON: neuron-profile view --output-format json", file));
    json_object_set_new(out, "data_quality", dq);
    static const char *const version_keys[] = {"runtime_version", "compiler_version", "profiler_version", "driver_version",
                                               "collectives_version", "instance_type", NULL};
    json_t *v = json_object();
    copy_keys(v, sum, version_keys, false);
    json_object_set_new(out, "provenance", json_pack("{s:{s:s}, s:o}", "files", "summary_json", file, "export", v));
    free(ds);
}

static int summary_from_summary_json(const json_t *args, const nl_catalog_file *f, nl_tool_result *res)
{
    summary_json *sj = NULL;
    nl_error err;
    nl_error_clear(&err);
    if (summary_json_read(f->path, &sj, &err))
        return nl_tool_result_error(res, "Cannot read the summary-json %s at byte %lld: %s (%s).", f->path,
                                    (long long)err.offset, err.message, nl_error_code_name(err.code));
    const char *wanted = json_string_value(json_object_get(args, "profile"));
    const char *hash = wanted ? strchr(wanted, '#') : NULL;
    size_t pick = summary_json_count(sj);
    for (size_t i = 0; i < summary_json_count(sj); i++)
        if (!hash ? i == 0 : !strcmp(hash + 1, summary_json_name(sj, i)))
            pick = i;
    if (pick == summary_json_count(sj) || (!hash && summary_json_count(sj) > 1)) {
        char names[512] = "";
        for (size_t i = 0; i < summary_json_count(sj) && strlen(names) < 400; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s#%s", i ? ", " : "", f->rel_path,
                     summary_json_name(sj, i));
        nl_tool_result_error(res, "%s holds %zu profiles; pass \"profile\" with one of: %s.", f->path,
                             summary_json_count(sj), names[0] ? names : "(none)");
        summary_json_free(sj);
        return 0;
    }
    char id[600];
    if (summary_json_count(sj) > 1)
        snprintf(id, sizeof id, "%s#%s", f->rel_path, summary_json_name(sj, pick));
    else
        snprintf(id, sizeof id, "%s", f->rel_path);
    json_t *out = json_object();
    summarize_record(summary_json_metrics(sj, pick), id, f->rel_path, out);
    text_rendering(out, res);
    res->structured = out;
    summary_json_free(sj);
    return 0;
}

/* NTFFs up to this size are decoded to cross-check the export of the same NTFF. */
#define SUMMARY_CROSSCHECK_MAX_BYTES ((uint64_t)256 << 20)

/* When both the export and its NTFF are here: the export answers, and the NTFF decoded natively is compared
 * with it, so a disagreement between the two is reported, never hidden. */
static void summary_crosscheck(nl_call *call, const nl_select *sel, json_t *out)
{
    const nl_catalog_profile *p = sel->profile;
    if (sel->decoded || sel->export_generated || p->ntff < 0 || !sel->model)
        return;
    const nl_catalog_file *ntff = nl_catalog_file_at(sel->cat, (size_t)p->ntff);
    json_t *prov = json_object_get(out, "provenance");
    if (!ntff->valid || ntff->ntff_version < NL_NTFF_PAYLOAD_VERSION_MIN || ntff->ntff_version > NL_NTFF_PAYLOAD_VERSION_MAX)
        return;
    if (ntff->size > SUMMARY_CROSSCHECK_MAX_BYTES) {
        json_object_set_new(prov, "ntff_crosscheck", json_pack("{s:s}", "status", "not run: the NTFF is larger than "
                                                               "256 MB (call summary on the NTFF alone to decode it)"));
        return;
    }
    nl_error err;
    nl_error_clear(&err);
    nl_model_load_options opt = {.cancel = call->cancel};
    nl_model_source src = {.kind = NL_MODEL_NTFF, .path = ntff->path, .core = -1};
    nl_model_ref *ref = nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, &err);
    ntff_crosscheck cc;
    if (!ref || ntff_payload_crosscheck(nl_model_ref_device(ref), nl_model_ref_device(sel->model), &cc, &err)) {
        json_object_set_new(prov, "ntff_crosscheck", json_pack("{s:s, s:s}", "status", "failed", "error", err.message));
        json_array_append_new(json_object_get(out, "data_quality"),
                              shape_quality("warning", "the NTFF beside the export could not be decoded to cross-check "
                                            "it", err.message, ntff->rel_path));
        nl_model_ref_release(ref);
        return;
    }
    bool agree = cc.instr_matched == cc.instr_export && cc.instr_decoded == cc.instr_export &&
                 cc.dma_matched + cc.dma_matched_but_timestamp == cc.dma_export && cc.engine_counts_equal != 0;
    json_t *o = json_pack("{s:s, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I, s:I, s:I}, s:o}", "status",
                          agree ? "agree" : "disagree", "instructions", "export", (json_int_t)cc.instr_export, "decoded",
                          (json_int_t)cc.instr_decoded, "matched", (json_int_t)cc.instr_matched, "dma_packets", "export",
                          (json_int_t)cc.dma_export, "decoded", (json_int_t)cc.dma_decoded, "matched",
                          (json_int_t)cc.dma_matched, "matched_but_timestamp", (json_int_t)cc.dma_matched_but_timestamp,
                          "timestamp_max_diff_ns", (json_int_t)cc.dma_timestamp_max_diff, "engine_counts_equal",
                          cc.engine_counts_equal < 0 ? json_null() : json_boolean(cc.engine_counts_equal));
    if (!agree)
        json_object_set_new(o, "first_disagreement", json_string(cc.first_instr_disagreement[0]
                                                                     ? cc.first_instr_disagreement : cc.first_dma_disagreement));
    json_object_set_new(prov, "ntff_crosscheck", o);
    if (!agree)
        json_array_append_new(json_object_get(out, "data_quality"),
                              shape_quality("warning", "the NTFF decoded natively disagrees with its export (see "
                                            "provenance.ntff_crosscheck): the export's numbers are shown",
                                            "report the first disagreement to neuronlens", ntff->rel_path));
    nl_model_ref_release(ref);
}

/* A device profile: its model (from the export, or neuron-profile's), or an abstention with the fix. */
static int summary_device(nl_call *call, nl_select *sel, nl_tool_result *res)
{
    if (nl_select_load(call, sel, res))
        return 0;
    json_t *out = json_object();
    json_object_set_new(out, "profile", nl_select_label(sel));
    json_object_set_new(out, "units", units_json());
    json_t *prov = shape_profile_provenance(sel->cat, sel->profile);
    json_object_set_new(out, "provenance", prov);
    json_object_set_new(out, "data_quality", nl_select_quality(sel));
    if (!sel->model) {
        json_object_set_new(out, "status", json_string("abstained"));
        json_object_set_new(out, "abstained", json_pack("{s:s, s:s}", "reason", sel->abstain_reason, "fix", sel->abstain_fix));
    } else {
        json_object_set_new(out, "status", json_string("complete"));
        nl_select_model_provenance(sel, prov);
        if (summarize(call, sel, out, res)) {
            json_decref(out);
            return 0;
        }
        summary_crosscheck(call, sel, out);
        summary_program_attach(call, sel, out, json_object_get(out, "data_quality"));
    }
    text_rendering(out, res);
    res->structured = out;
    return 0;
}

static int summary_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    nl_select sel;
    if (nl_select_profile(call, args, NL_ANALYSIS_SUMMARY, &sel, res)) {
        nl_select_clear(&sel);
        return 0;
    }
    const nl_catalog_profile *p = sel.profile;
    switch (p->kind) {
    case NL_PROFILE_SYSTEM:
        nl_summary_system(args, call, sel.cat, nl_catalog_rank_at(sel.cat, (size_t)p->rank), res);
        break;
    case NL_PROFILE_FRAMEWORK:
        nl_summary_framework(args, call, sel.cat, nl_catalog_file_at(sel.cat, (size_t)p->file), res);
        break;
    case NL_PROFILE_SUMMARY_JSON:
        summary_from_summary_json(args, nl_catalog_file_at(sel.cat, (size_t)p->file), res);
        break;
    case NL_PROFILE_MEMORY:
        nl_summary_memory(call, &sel, res);
        break;
    case NL_PROFILE_PROGRAM:
        nl_summary_program(call, &sel, res);
        break;
    default:
        summary_device(call, &sel, res);
        break;
    }
    nl_select_merge_quality(&sel, res);
    nl_select_clear(&sel);
    return 0;
}

const nl_tool_desc nl_tool_summary = {
    .name = "summary",
    .title = "Summary: one profile's headline numbers",
    .description =
        "Headline of one profile: total time (ns), per-engine active time and utilization %, DMA bytes and "
        "achieved bandwidth, FLOPs, MFU/HFU/MBU %, arithmetic intensity, the bottleneck by the AWS "
        "performance-bounds method, and Neuron Explorer rule findings with evidence. Call after orient; "
        "then use kernel-attribution for where time goes, collective-gaps for per-layer latency. status is "
        "complete, partial (the input was read only in part: numbers cover what was readable, data_quality says "
        "where) or abstained (with the reason and fix).",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_PROFILE "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"profile\", \"status\", \"data_quality\", \"provenance\"], \"properties\": {"
        NL_OUT_ENVELOPE ","
        NL_JSON("status": {"enum": ["complete", "partial", "abstained"]}, "partial": {"type": "boolean"},
                "abstained": {"type": "object"},
                "total_time_ns": {"type": ["number", "null"]}, "engines": {"type": "array"},
                "dma": {"type": "object"}, "flops": {"type": "object"}, "bounds": {"type": "object"},
                "findings": {"type": "array"})
        "}}",
    .run = summary_run,
};
