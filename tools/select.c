/* select — see select.h. */
#include "select.h"
#include "export_adapter.h"
#include "scan.h"
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nl_select_profile_in(nl_call *call, nl_catalog *cat_take, const char *wanted, nl_analysis analysis,
                         const char *family, const char *because, nl_select *sel, nl_tool_result *res)
{
    (void)call;
    memset(sel, 0, sizeof *sel);
    sel->cat = cat_take;
    sel->analysis = analysis;
    sel->core = -1;
    sel->data_quality = json_array();
    nl_choice choice;
    if (nl_catalog_choose(cat_take, wanted, analysis, family, because, &choice) &&
        (choice.status != NL_CHOICE_UNSUPPORTED || choice.profile->analyses[analysis].broken)) {
        nl_tool_result_error(res, "%s", choice.message);
        return -1;
    }
    sel->profile = choice.profile;
    sel->core = choice.core;
    if (choice.note[0])
        json_array_append_new(sel->data_quality, shape_quality("info", choice.note, "pass \"profile\" to analyse "
                                                               "another one", NULL));
    if (choice.status == NL_CHOICE_UNSUPPORTED) {
        const nl_profile_readiness *r = &choice.profile->analyses[analysis];
        sel->unsupported = true;
        snprintf(sel->abstain_reason, sizeof sel->abstain_reason, "%s", r->reason ? r->reason : "not supported");
        snprintf(sel->abstain_fix, sizeof sel->abstain_fix, "%s", r->fix ? r->fix : "none");
    }
    shape_catalog_notes(sel->cat, sel->profile, sel->data_quality);
    return 0;
}

int nl_select_profile(nl_call *call, const json_t *args, nl_analysis analysis, nl_select *sel, nl_tool_result *res)
{
    return nl_select_family(call, args, analysis, NULL, NULL, sel, res);
}

int nl_select_family(nl_call *call, const json_t *args, nl_analysis analysis, const char *family, const char *because,
                     nl_select *sel, nl_tool_result *res)
{
    memset(sel, 0, sizeof *sel);
    const char *path = json_string_value(json_object_get(args, "path"));
    nl_error err;
    nl_error_clear(&err);
    nl_catalog *cat = nl_tools_scan(call, path, &err);
    if (!cat) {
        nl_tool_result_error(res, "Cannot examine %s: %s (%s). Check the path exists and is readable.", path,
                             err.message, nl_error_code_name(err.code));
        return -1;
    }
    return nl_select_profile_in(call, cat, json_string_value(json_object_get(args, "profile")), analysis, family,
                                because, sel, res);
}

void nl_select_clear(nl_select *sel)
{
    nl_model_ref_release(sel->model);
    nl_catalog_free(sel->cat);
    json_decref(sel->data_quality);
    free(sel->export_path);
    memset(sel, 0, sizeof *sel);
}

json_t *nl_select_label(const nl_select *sel)
{
    return shape_profile_label(sel->cat, sel->profile);
}

json_t *nl_select_quality(const nl_select *sel)
{
    return json_deep_copy(sel->data_quality);
}

static void prov_meta(json_t *o, const char *key, const device_model *m, const char *meta_key)
{
    const kvlist *md = device_model_record_get(m, DEVICE_MODEL_METADATA);
    const char *v = NULL;
    if (md && kvlist_get_str(md, meta_key, &v))
        json_object_set_new(o, key, json_string(v));
}

void nl_select_model_provenance(const nl_select *sel, json_t *prov)
{
    if (!sel->model)
        return;
    if (sel->decoded) {
        const device_model *m = nl_model_ref_device(sel->model);
        const nl_catalog_file *ntff = nl_catalog_file_at(sel->cat, (size_t)sel->profile->ntff);
        json_t *d = json_pack("{s:s, s:s, s:i}", "reader", "neuronlens native NTFF payload decoder", "file",
                              ntff->rel_path, "ntff_version", ntff->ntff_version);
        prov_meta(d, "architecture", m, "neuronlens_ntff_architecture");
        prov_meta(d, "trust", m, "neuronlens_ntff_trust");
        prov_meta(d, "trust_label", m, "neuronlens_ntff_trust_label");
        prov_meta(d, "core", m, "neuronlens_ntff_core");
        prov_meta(d, "time_origin_rule", m, "neuronlens_ntff_origin_rule");
        json_object_set_new(prov, "decoded", d);
    } else if (sel->export_path) {
        json_object_set_new(prov, "export_file", json_string(sel->export_path));
    }
    json_object_set_new(prov, "model", json_pack("{s:s, s:f}", "cache", nl_model_ref_was_cached(sel->model) ? "warm" : "cold",
                                                 "load_ms", round(nl_model_ref_load_ms(sel->model) * 1000) / 1000));
}

void nl_select_merge_quality(const nl_select *sel, nl_tool_result *res)
{
    json_t *dq = res->structured ? json_object_get(res->structured, "data_quality") : NULL;
    if (!json_is_array(dq))
        return;
    size_t i, j;
    json_t *q, *have;
    json_array_foreach(sel->data_quality, i, q) {
        bool seen = false;
        json_array_foreach(dq, j, have)
            seen = seen || json_equal(q, have);
        if (!seen)
            json_array_append(dq, q);
    }
}

/* ---- loading ---------------------------------------------------------------------------------------- */

static const char *file_path(const nl_catalog *cat, int idx)
{
    return idx >= 0 ? nl_catalog_file_at(cat, (size_t)idx)->path : NULL;
}

static void load_progress(void *ctx, uint64_t done, uint64_t total)
{
    nl_call_progress(ctx, (double)done, (double)total, "reading the profile export");
}

static void trace_progress(void *ctx, uint64_t done, uint64_t total)
{
    nl_call_progress(ctx, (double)done, total ? (double)total : 0, "reading trace.json");
}

/* The error of a failed read, naming the file, the byte and the record (and field) where it stopped. */
static void load_error(nl_tool_result *res, const char *what, const char *path, const nl_error *err, const char *fix)
{
    if (err->code == NL_ERR_CANCELLED) {
        nl_tool_result_error(res, "cancelled");
        return;
    }
    char where[96] = "";
    if (err->offset >= 0)
        snprintf(where, sizeof where, " at byte %lld", (long long)err->offset);
    if (err->record >= 0)
        snprintf(where + strlen(where), sizeof where - strlen(where), ", record %lld", (long long)err->record);
    nl_tool_result_error(res, "Cannot read the %s %s%s%s%s: %s (%s).%s%s", what, err->source[0] ? err->source : path, where,
                         err->field[0] ? ", field " : "", err->field, err->message, nl_error_code_name(err->code),
                         fix ? " " : "", fix ? fix : "");
}

static int load_export(nl_call *call, nl_select *sel, const char *path, nl_tool_result *res)
{
    nl_error err;
    nl_error_clear(&err);
    nl_model_load_options opt = {.cancel = call->cancel, .progress = load_progress, .progress_ctx = call};
    nl_model_source src = {.kind = NL_MODEL_DEVICE, .path = path};
    sel->model = nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, &err);
    if (sel->model) {
        sel->export_path = strdup(path);
        return 0;
    }
    load_error(res, "profile export", path, &err,
               "If the file was cut off, export it again with neuron-profile view --output-format json.");
    return -1;
}

static const char *meta_str(const device_model *m, const char *key)
{
    const kvlist *md = device_model_record_get(m, DEVICE_MODEL_METADATA);
    const char *v = NULL;
    return md && kvlist_get_str(md, key, &v) ? v : NULL;
}

/* What every result of a decoded NTFF says: which version and architecture, whether that combination is
 * verified against neuron-profile's exports, which physical core, and the fields only an export carries. */
static void decoded_quality(nl_select *sel, const nl_catalog_file *ntff)
{
    const device_model *m = nl_model_ref_device(sel->model);
    const char *trust = meta_str(m, "neuronlens_ntff_trust"), *label = meta_str(m, "neuronlens_ntff_trust_label");
    const char *core = meta_str(m, "neuronlens_ntff_core"), *absent = meta_str(m, "neuronlens_ntff_absent");
    const char *rule = meta_str(m, "neuronlens_ntff_origin_rule");
    bool verified = trust && !strcmp(trust, "verified");
    char problem[1024];
    snprintf(problem, sizeof problem, "decoded natively from NTFF v%u (%s, core %s, time origin rule %s): %s",
             ntff->ntff_version, meta_str(m, "neuronlens_ntff_architecture") ? meta_str(m, "neuronlens_ntff_architecture")
                                                                              : "unknown architecture",
             core ? core : "?", rule ? rule : "?", label ? label : "");
    json_array_append_new(sel->data_quality,
                          shape_quality(verified ? "info" : "warning", problem,
                                        verified ? NULL : "cross-check with neuron-profile view --output-format json "
                                                          "where it is installed; an export next to the NTFF is used "
                                                          "instead and compared", ntff->rel_path));
    if (absent && *absent) {
        snprintf(problem, sizeof problem, "fields only the export or the NEFF carries are absent (not zero): %s", absent);
        json_array_append_new(sel->data_quality,
                              shape_quality("info", problem, "export with neuron-profile view --output-format json for "
                                            "operands, layers, HLO names and DMA tensor names", ntff->rel_path));
    }
}

/* An NTFF alone: decoded natively (one physical core), its trust stated. */
static int load_decoded(nl_call *call, nl_select *sel, nl_tool_result *res)
{
    const nl_catalog_file *ntff = nl_catalog_file_at(sel->cat, (size_t)sel->profile->ntff);
    nl_error err;
    nl_error_clear(&err);
    nl_model_load_options opt = {.cancel = call->cancel};
    nl_model_source src = {.kind = NL_MODEL_NTFF, .path = ntff->path, .core = sel->core};
    nl_call_progress(call, 0, 1, "decoding the NTFF");
    sel->model = nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, &err);
    if (!sel->model) {
        load_error(res, "NTFF", ntff->path, &err, "Copy the NTFF again from the capture; if it is whole, export it "
                   "with neuron-profile view --output-format json and pass the export.");
        return -1;
    }
    sel->decoded = true;
    decoded_quality(sel, ntff);
    return 0;
}

/* An NTFF without an export: neuron-profile's export when it is installed and the NTFF is small, else the
 * native decode. */
static int load_ntff(nl_call *call, nl_select *sel, nl_tool_result *res)
{
    const nl_catalog *cat = sel->cat;
    const nl_catalog_file *ntff = nl_catalog_file_at(cat, (size_t)sel->profile->ntff);
    if (ntff->size > NL_SELECT_ADAPTER_MAX_BYTES || sel->core >= 0)
        return load_decoded(call, sel, res);
    const char *neff = file_path(cat, sel->profile->neff);
    nl_adapter_options opt = {.cancel = call->cancel};
    nl_error err;
    nl_error_clear(&err);
    char *out = NULL;
    int cached = 0;
    if (nl_adapter_export(ntff->path, neff, &opt, &out, &cached, &err) == 0) {
        sel->export_generated = true;
        json_array_append_new(sel->data_quality,
                              shape_quality("info", cached ? "the export was produced earlier by neuron-profile and reused from the cache"
                                                           : "the export was produced now by running neuron-profile", NULL, out));
        int rc = load_export(call, sel, out, res);
        free(out);
        return rc;
    }
    if (err.code == NL_ERR_CANCELLED)
        return nl_tool_result_error(res, "cancelled"), -1;
    if (err.code != NL_ERR_NOT_FOUND)
        json_array_append_new(sel->data_quality, shape_quality("warning", err.message, "the NTFF was decoded natively "
                                                               "instead", ntff->rel_path));
    return load_decoded(call, sel, res);
}

/* A neuron-explorer Parquet directory, read by column name into the device model. */
static int load_parquet(nl_call *call, nl_select *sel, nl_tool_result *res)
{
    char path[4096];
    nl_catalog_profile_dir_path(sel->cat, sel->profile, path, sizeof path);
    nl_error err;
    nl_error_clear(&err);
    nl_model_load_options opt = {.cancel = call->cancel};
    nl_model_source src = {.kind = NL_MODEL_PARQUET, .path = path};
    nl_call_progress(call, 0, 1, "reading the Parquet tables");
    sel->model = nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, &err);
    if (sel->model)
        sel->export_path = strdup(src.path);
    else
        load_error(res, "Parquet profile", src.path, &err, "Export the profile again with neuron-explorer (a table "
                   "whose footer or pages fail their checks cannot be read).");
    return sel->model ? 0 : -1;
}

static int load_device(nl_call *call, nl_select *sel, nl_tool_result *res)
{
    const nl_catalog_profile *p = sel->profile;
    if (p->kind == NL_PROFILE_PARQUET_DIR)
        return load_parquet(call, sel, res);
    if (p->json_export >= 0)
        return load_export(call, sel, file_path(sel->cat, p->json_export), res);
    if (p->ntff >= 0)
        return load_ntff(call, sel, res);
    return nl_tool_result_error(res, "Profile %s has no full JSON export and no NTFF to read.", p->id), -1;
}

static int load_host(nl_call *call, nl_select *sel, nl_tool_result *res)
{
    const nl_catalog_profile *p = sel->profile;
    nl_error err;
    nl_error_clear(&err);
    if (p->kind == NL_PROFILE_SYSTEM) {
        const system_model *m;
        sel->model = nl_select_load_system(call, sel->cat, nl_catalog_rank_at(sel->cat, (size_t)p->rank), &m, &err);
        if (!sel->model)
            load_error(res, "system profile", p->id, &err, "Copy the capture directory again (ntrace.pb and trace_info.pb).");
    } else if (p->kind == NL_PROFILE_FRAMEWORK) {
        const framework_model *m;
        sel->model = nl_select_load_framework(call, nl_catalog_file_at(sel->cat, (size_t)p->file), &m, &err);
        if (!sel->model)
            load_error(res, "framework trace", p->id, &err, "Export the trace again (a .json or .json.gz with traceEvents).");
    } else if (p->kind == NL_PROFILE_MEMORY) {
        nl_model_source src = {.kind = NL_MODEL_MEMORY, .path = nl_catalog_file_at(sel->cat, (size_t)p->file)->path};
        nl_model_load_options opt = {.cancel = call->cancel};
        sel->model = nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, &err);
        if (!sel->model)
            load_error(res, "memory snapshot", p->id, &err, "Export the snapshot again (NeuronProfiler.export_snapshot "
                       "or torch.cuda.memory._dump_snapshot); a cut-off pickle cannot be read.");
    } else {
        const nl_catalog_file *f = nl_catalog_file_at(sel->cat, (size_t)p->dump);
        nl_model_source src = {.kind = NL_MODEL_SHOW_SESSION, .path = f->path, .label = f->rel_path};
        nl_model_load_options opt = {.cancel = call->cancel};
        sel->model = nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, &err);
        if (!sel->model)
            load_error(res, "show-session dump", f->rel_path, &err, "Dump it again with neuron-profile show-session.");
    }
    return sel->model ? 0 : -1;
}

int nl_select_load(nl_call *call, nl_select *sel, nl_tool_result *res)
{
    if (sel->unsupported || sel->model)
        return 0;
    switch (sel->profile->kind) {
    case NL_PROFILE_DEVICE:
    case NL_PROFILE_EXPORT_ONLY:
    case NL_PROFILE_PARQUET_DIR: return load_device(call, sel, res);
    case NL_PROFILE_SYSTEM:
    case NL_PROFILE_FRAMEWORK:
    case NL_PROFILE_MEMORY:
    case NL_PROFILE_SHOW_SESSION: return load_host(call, sel, res);
    default:
        return nl_tool_result_error(res, "%s cannot answer for profile %s: %s.", nl_analysis_name(sel->analysis),
                                    sel->profile->id, sel->profile->analyses[sel->analysis].reason
                                                          ? sel->profile->analyses[sel->analysis].reason
                                                          : "no model reader for this kind"), -1;
    }
}

/* ---- host-side models -------------------------------------------------------------------------------- */

const nl_catalog_rank *nl_select_rank_system(const nl_catalog *cat, int rank)
{
    if (rank < 0)
        return NULL;
    const nl_catalog_rank *r = nl_catalog_rank_at(cat, (size_t)rank);
    return r->has_system_profile ? r : NULL;
}

nl_model_ref *nl_select_load_system(nl_call *call, const nl_catalog *cat, const nl_catalog_rank *rank,
                                    const system_model **out, nl_error *err)
{
    nl_model_source src = {.kind = NL_MODEL_SYSTEM, .path = file_path(cat, rank->ntrace_pb),
                           .trace_info = file_path(cat, rank->trace_info_pb), .cpu_util = file_path(cat, rank->cpu_util_pb),
                           .host_mem = file_path(cat, rank->host_mem_pb)};
    nl_model_load_options opt = {.cancel = call->cancel};
    nl_model_ref *ref = nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, err);
    *out = ref ? nl_model_ref_system(ref) : NULL;
    return ref;
}

nl_model_ref *nl_select_load_framework(nl_call *call, const nl_catalog_file *trace, const framework_model **out,
                                       nl_error *err)
{
    nl_model_source src = {.kind = NL_MODEL_FRAMEWORK, .path = trace->path};
    nl_model_load_options opt = {.cancel = call->cancel, .progress = trace_progress, .progress_ctx = call};
    nl_model_ref *ref = nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, err);
    *out = ref ? nl_model_ref_framework(ref) : NULL;
    return ref;
}

void nl_select_quality_system(const system_model *m, json_t *arr)
{
    for (int f = 0; f < SM_FILE_COUNT; f++) {
        const system_file_info *fi = system_model_file(m, (system_file)f);
        if (fi->read && fi->stats.partial) {
            char problem[256];
            snprintf(problem, sizeof problem, "PARTIAL: %s was read only in part (%llu of %llu bytes in complete "
                     "records, %llu records skipped); rows cover what was readable", system_file_name((system_file)f),
                     (unsigned long long)fi->stats.bytes_consumed, (unsigned long long)fi->stats.file_bytes,
                     (unsigned long long)fi->stats.records_skipped);
            json_array_append_new(arr, shape_quality("warning", problem, "Copy the capture directory again; summary of "
                                                     "the system profile lists every reading problem with its offset",
                                                     fi->path));
        }
    }
    const system_model_counts *k = system_model_counts_get(m);
    if (k->open_begins || k->orphan_ends) {
        char problem[200];
        snprintf(problem, sizeof problem, "%llu begin(s) without an end and %llu end(s) without a begin are rows of "
                 "phase open / orphan_end with duration 0", (unsigned long long)k->open_begins,
                 (unsigned long long)k->orphan_ends);
        json_array_append_new(arr, shape_quality("info", problem, "Stop profiling after the work completes "
                                                 "(torch.neuron.synchronize()); check max_events_per_nc", NULL));
    }
}

void nl_select_quality_framework(const framework_model *m, json_t *arr)
{
    nl_error why;
    int64_t base;
    if (framework_model_partial(m, &why)) {
        char problem[NL_ERROR_MESSAGE_MAX + 128];
        snprintf(problem, sizeof problem, "PARTIAL: the trace breaks at byte %lld (%s: %s); rows cover the events read "
                 "before that point", (long long)why.offset, nl_error_code_name(why.code), why.message);
        json_array_append_new(arr, shape_quality("warning", problem, "Export the trace again and let the export finish; "
                                                 "copy the whole file", NULL));
    }
    if (!framework_model_time_base(m, &base))
        json_array_append_new(arr, shape_quality("info", "the trace has no baseTimeNanoseconds: its ts are taken as unix "
                                                 "µs (older Kineto exporters)", NULL, NULL));
}
