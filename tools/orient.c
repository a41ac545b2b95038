/* orient — MCP tool: what is at a path. The entry point of every investigation.
 *
 * Scans with the catalog (classification by name and content, NEFF↔NTFF pairing by uuid, exports
 * attached to their NTFF, ranks from capture directories) and lists, per page, the catalog's profiles in its
 * order — device profiles, system profiles, framework traces, summary-json files, show-session dumps,
 * Parquet directories — each with its named kind, files, versions, what each analysis can do with it (the
 * catalog's readiness) and its data-quality problems with fixes. Instruction counts and total time appear
 * when the export is small (ORIENT_LOAD_MAX_BYTES, read into the shared model cache so summary is then warm)
 * or already cached; a large export is left to summary, which reports progress while it reads.
 * next_calls come from the same readiness: a call the profile is ready for (expect "answer"), else one it
 * needs an export for (expect "abstention", with the reason and the fix), never a call that fails. */
#include "tool_common.h"
#include "scan.h"
#include "select.h"
#include "model_cache.h"
#include "device_summary.h"
#include "explorer_parquet.h"
#include "memo.h"
#include "shape.h"
#include "summary_system.h"
#include "summary_program.h"
#include "ntff_payload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORIENT_DEFAULT_ROWS 10 /* ≈ 0.5–1 KB per profile: a default call stays a few KB */
#define ORIENT_CURSOR_TAG "orient"
#define ORIENT_BUDGET_DEFAULT (24u * 1024) /* issue 4: default response budget */
#define ORIENT_FIXED_RESERVE (4u * 1024)  /* next calls, fixes, units, provenance, text, envelope */
#define ORIENT_NOTE_EXAMPLES 3 /* example paths per grouped tree-level note */
#define ORIENT_LOAD_MAX_BYTES (64u << 20) /* exports up to this size are read by orient itself */

/* {"tool": "ready" | "needs_export" | "unsupported"} for every analysis, from the catalog. */
static json_t *analyses_json(const nl_catalog_profile *p)
{
    json_t *o = json_object();
    for (int a = 0; a < NL_ANALYSIS_COUNT; a++)
        json_object_set_new(o, nl_analysis_name((nl_analysis)a), json_string(nl_readiness_name(p->analyses[a].state)));
    return o;
}

/* An NTFF without its JSON export: the device numbers come from decoding its payload here. Says how far that
 * decode is trusted for this file's version and architecture (the decoder's own label) and what only an
 * export adds. */
static json_t *ntff_only_note(const nl_catalog *cat, const nl_catalog_profile *p)
{
    const nl_catalog_file *f = nl_catalog_file_at(cat, (size_t)p->ntff);
    ntff_payload_trust trust;
    ntff_payload_trust_of_header(f->ntff_version, f->instance_type, &trust);
    char problem[640];
    snprintf(problem, sizeof problem,
             "no JSON export next to this NTFF: its instructions, DMA and semaphores are decoded from the NTFF "
             "itself (v%u, %s), %s; source lines, HLO names and fields only the export carries are absent",
             (unsigned)f->ntff_version, trust.instance_type[0] ? trust.instance_type : "instance type unknown",
             trust.label);
    return shape_quality(trust.level == NTFF_TRUST_VERIFIED ? "info" : "warning", problem,
                         "for source/layer attribution and a cross-check of the decode, export it with neuron-profile "
                         "view --output-format json on the Trainium host and put the .json beside the .ntff",
                         NULL);
}

/* Data-quality findings of a loaded model (export warnings, missing DMA detail, no source locations). */
static void add_model_quality(nl_call *call, nl_model_ref *ref, json_t *dq, const char *file)
{
    nl_error err;
    const device_summary *ds = nl_memo_device_summary(call, ref, &err); /* shared with summary, once per model */
    if (!ds)
        return;
    static const char *const sev[] = {"info", "warning", "error"};
    for (unsigned i = 0; i < ds->quality_count; i++) {
        json_t *q = shape_quality(sev[ds->quality[i].severity], ds->quality[i].problem, ds->quality[i].fix, file);
        json_object_set_new(q, "code", json_string(ds->quality[i].code));
        json_array_append_new(dq, q);
    }
}

/* Counts and total time of a device profile whose export is small enough to read now
 * (ORIENT_LOAD_MAX_BYTES) or already in the model cache; larger ones are left to summary. */
static void add_counts(nl_call *call, const nl_catalog *cat, const nl_catalog_profile *p, json_t *o)
{
    if (p->json_export < 0)
        return;
    const nl_catalog_file *f = nl_catalog_file_at(cat, (size_t)p->json_export);
    nl_model_cache *cache = nl_tools_models(call->tools);
    nl_model_ref *ref = nl_model_cache_peek(cache, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = f->path});
    if (!ref && f->size <= ORIENT_LOAD_MAX_BYTES) {
        nl_error err;
        nl_model_load_options opt = {.cancel = call->cancel};
        ref = nl_model_cache_get(cache, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = f->path}, &opt, &err);
        if (!ref) {
            char problem[600];
            snprintf(problem, sizeof problem, "the export cannot be read: %s (%s%s%lld)", err.message,
                     nl_error_code_name(err.code), err.offset >= 0 ? ", byte " : "", (long long)(err.offset >= 0 ? err.offset : 0));
            json_array_append_new(json_object_get(o, "data_quality"),
                                  shape_quality("error", problem, "Export it again with neuron-profile view --output-format json",
                                                f->rel_path));
            return;
        }
    }
    if (!ref) {
        json_object_set_new(o, "counts", json_pack("{s:s}", "note", "export not read yet (large); call summary to read it"));
        return;
    }
    const device_model *m = nl_model_ref_device(ref);
    const kvlist *sum = device_model_record_get(m, DEVICE_MODEL_SUMMARY);
    double total_s;
    json_t *counts = json_pack("{s:I, s:I}", "instructions", (json_int_t)device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS),
                               "dma_records", (json_int_t)device_model_rows(m, DEVICE_MODEL_DMA));
    if (sum && kvlist_get_num(sum, "total_time", &total_s))
        json_object_set_new(counts, "total_time_ns", json_real((double)llround(total_s * 1e12) / 1e3));
    const kvlist *info = device_model_record_get(m, DEVICE_MODEL_PROFILE_INFO);
    const char *pv;
    json_t *versions = json_object_get(o, "versions");
    if (!versions)
        json_object_set_new(o, "versions", versions = json_object());
    if (info && kvlist_get_str(info, "profiler_version", &pv))
        json_object_set_new(versions, "profiler_version", json_string(pv));
    if (sum && kvlist_get_str(sum, "compiler_version", &pv))
        json_object_set_new(versions, "compiler_version", json_string(pv));
    if (!json_object_size(versions))
        json_object_del(o, "versions");
    json_object_set_new(o, "counts", counts);
    add_model_quality(call, ref, json_object_get(o, "data_quality"), f->rel_path);
    nl_model_ref_release(ref);
}

static json_t *device_entry(nl_call *call, const nl_catalog *cat, const nl_catalog_profile *p)
{
    json_t *o = shape_profile_label(cat, p);
    json_t *prov = shape_profile_provenance(cat, p);
    json_object_set(o, "files", json_object_get(prov, "files"));
    if (p->pairing != NL_PAIR_NOT_APPLICABLE)
        json_object_set_new(o, "pairing", json_string(nl_pairing_name(p->pairing)));
    json_t *versions = json_object();
    const char *keys[] = {"ntff_version", "runtime_version", "instance_type", "instance_id", "neff_uuid", "neff_name"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (json_object_get(prov, keys[i]))
            json_object_set(versions, keys[i], json_object_get(prov, keys[i]));
    if (json_object_size(versions))
        json_object_set_new(o, "versions", versions);
    else
        json_decref(versions);
    if (p->json_export >= 0) {
        const nl_catalog_file *f = nl_catalog_file_at(cat, (size_t)p->json_export);
        json_object_set_new(o, "export_bytes", json_integer((json_int_t)f->size));
        if (p->export_link != NL_LINK_NONE)
            json_object_set_new(o, "export_link", json_string(nl_export_link_name(p->export_link)));
    }
    json_object_set_new(o, "analyses", analyses_json(p));
    json_t *dq = json_array();
    shape_catalog_notes(cat, p, dq);
    if (p->json_export < 0 && p->ntff >= 0 && p->analyses[NL_ANALYSIS_SUMMARY].state == NL_READY)
        json_array_append_new(dq, ntff_only_note(cat, p));
    json_object_set_new(o, "data_quality", dq);
    add_counts(call, cat, p, o);
    json_decref(prov);
    return o;
}

static json_t *file_rel(const nl_catalog *cat, int idx)
{
    return idx >= 0 ? json_string(nl_catalog_file_at(cat, (size_t)idx)->rel_path) : json_null();
}

static json_t *system_entry(nl_call *call, const nl_catalog *cat, const nl_catalog_profile *p)
{
    const nl_catalog_rank *r = nl_catalog_rank_at(cat, (size_t)p->rank);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I}", "id", p->id, "kind", "system", "rank", r->id,
                          "instance", r->instance ? r->instance : "", "pid", (json_int_t)r->pid);
    json_object_set_new(o, "files", json_pack("{s:o, s:o, s:o, s:o}", "ntrace_pb", file_rel(cat, r->ntrace_pb),
                                              "trace_info_pb", file_rel(cat, r->trace_info_pb), "cpu_util_pb",
                                              file_rel(cat, r->cpu_util_pb), "host_mem_pb", file_rel(cat, r->host_mem_pb)));
    json_object_set_new(o, "analyses", analyses_json(p));
    json_object_set_new(o, "data_quality", json_array());
    nl_system_orient_facts(call, cat, r, o); /* counts, versions, data_quality */
    return o;
}

static json_t *framework_entry(nl_call *call, const nl_catalog *cat, const nl_catalog_profile *p)
{
    enum { FRAMEWORK_COUNT_MAX_BYTES = 16 << 20 }; /* traces up to this file size are read here for counts */
    const nl_catalog_file *f = nl_catalog_file_at(cat, (size_t)p->file);
    json_t *o = json_pack("{s:s, s:s, s:{s:s}, s:I, s:b}", "id", p->id, "kind", "framework", "files", "trace_json",
                          f->rel_path, "bytes", (json_int_t)f->size, "gzipped", f->gzipped);
    json_object_set_new(o, "rank", f->rank >= 0 ? json_string(nl_catalog_rank_at(cat, (size_t)f->rank)->id) : json_null());
    json_object_set_new(o, "analyses", analyses_json(p));
    json_t *dq = json_array();
    const framework_model *m = NULL;
    nl_error err;
    nl_error_clear(&err);
    nl_model_ref *ref = f->size <= FRAMEWORK_COUNT_MAX_BYTES ? nl_select_load_framework(call, f, &m, &err) : NULL;
    if (ref) {
        size_t devices = 0;
        for (size_t i = 0; i < framework_model_process_count(m); i++)
            devices += framework_model_process_at(m, i)->device != FM_HOST;
        json_object_set_new(o, "counts", json_pack("{s:I, s:I, s:I, s:b}", "events", (json_int_t)framework_model_rows(m),
                                                   "processes", (json_int_t)framework_model_process_count(m),
                                                   "device_processes", (json_int_t)devices, "partial",
                                                   framework_model_partial(m, NULL)));
        nl_error why;
        if (framework_model_partial(m, &why))
            json_array_append_new(dq, shape_quality("warning", why.message, "export the trace again and let the export "
                                                    "finish; counts cover the events before the break", f->rel_path));
        else if (!devices)
            json_array_append_new(dq, shape_quality("warning", "no device process in this trace: empty PrivateUse1 device "
                                                    "time", "profile with ProfilerActivity.PrivateUse1, call "
                                                    "torch.neuron.synchronize() before export, set correlate_device_time=True",
                                                    f->rel_path));
        nl_model_ref_release(ref);
    } else if (f->size <= FRAMEWORK_COUNT_MAX_BYTES) {
        json_array_append_new(dq, shape_quality("error", err.message, "export the trace again (a .json or .json.gz "
                                                "with traceEvents)", f->rel_path));
    }
    json_object_set_new(o, "data_quality", dq);
    return o;
}

static json_t *summary_json_entry(const nl_catalog *cat, const nl_catalog_profile *p)
{
    const nl_catalog_file *f = nl_catalog_file_at(cat, (size_t)p->file);
    json_t *o = json_pack("{s:s, s:s, s:s, s:{s:s}, s:I, s:o, s:[]}", "id", p->id, "kind", "device", "source",
                          "summary-json", "files", "summary_json", f->rel_path, "bytes", (json_int_t)f->size, "analyses",
                          analyses_json(p), "data_quality");
    json_object_set_new(o, "rank", f->rank >= 0 ? json_string(nl_catalog_rank_at(cat, (size_t)f->rank)->id) : json_null());
    return o;
}

static json_t *show_session_entry(const nl_catalog *cat, const nl_catalog_profile *p)
{
    const nl_catalog_file *f = nl_catalog_file_at(cat, (size_t)p->file);
    json_t *o = json_pack("{s:s, s:s, s:s, s:{s:s}, s:I, s:o}", "id", p->id, "kind", "show_session", "format",
                          f->kind == NL_FILE_SHOW_SESSION_JSON ? "json (-j)" : "text", "files", "show_session", f->rel_path,
                          "bytes", (json_int_t)f->size, "analyses", analyses_json(p));
    json_object_set_new(o, "rank", f->rank >= 0 ? json_string(nl_catalog_rank_at(cat, (size_t)f->rank)->id) : json_null());
    json_t *dq = json_array();
    shape_catalog_notes(cat, p, dq);
    json_object_set_new(o, "data_quality", dq);
    return o;
}

static json_t *memory_entry(nl_call *call, const nl_catalog *cat, const nl_catalog_profile *p)
{
    enum { MEMORY_COUNT_MAX_BYTES = 64 << 20 }; /* snapshots up to this size are read here for counts */
    const nl_catalog_file *f = nl_catalog_file_at(cat, (size_t)p->file);
    json_t *o = shape_profile_label(cat, p);
    json_object_set_new(o, "files", json_pack("{s:s}", "memory_snapshot", f->rel_path));
    json_object_set_new(o, "bytes", json_integer((json_int_t)f->size));
    json_object_set_new(o, "analyses", analyses_json(p));
    json_t *dq = json_array();
    if (f->size <= MEMORY_COUNT_MAX_BYTES) {
        nl_error err;
        nl_error_clear(&err);
        nl_model_source src = {.kind = NL_MODEL_MEMORY, .path = f->path};
        nl_model_load_options opt = {.cancel = call->cancel};
        nl_model_ref *ref = nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, &err);
        if (ref) {
            const memory_model *m = nl_model_ref_memory(ref);
            const memory_model_info *info = memory_model_info_of(m);
            json_object_set_new(o, "counts", json_pack("{s:I, s:I, s:I, s:s, s:s}", "segments",
                                                       (json_int_t)table_rows(memory_model_segments(m)), "blocks",
                                                       (json_int_t)table_rows(memory_model_blocks(m)), "trace_entries",
                                                       (json_int_t)table_rows(memory_model_trace(m)), "layout",
                                                       memory_layout_name(info->layout), "history",
                                                       memory_history_name(info->history)));
            nl_model_ref_release(ref);
        } else {
            char problem[600];
            snprintf(problem, sizeof problem, "the snapshot cannot be read: %s (%s, byte %lld)", err.message,
                     nl_error_code_name(err.code), (long long)err.offset);
            json_array_append_new(dq, shape_quality("error", problem, "export the snapshot again", f->rel_path));
        }
    }
    json_object_set_new(o, "data_quality", dq);
    return o;
}

/* The tables of a neuron-explorer directory from their footers (no pages read): rows per table, the schema
 * version, the tables neuronlens does not read and the columns of read tables it does not know (schema drift
 * to mention before trusting an answer). */
static void parquet_inventory(const nl_catalog *cat, const nl_catalog_profile *p, json_t *o)
{
    char dir[4096];
    nl_catalog_profile_dir_path(cat, p, dir, sizeof dir);
    json_object_set_new(o, "parquet_tables", json_integer((json_int_t)p->parquet_count));
    explorer_parquet_inventory *inv = NULL;
    nl_error err;
    nl_error_clear(&err);
    if (explorer_parquet_inventory_read(dir, NULL, &inv, &err) != 0) {
        char problem[600];
        snprintf(problem, sizeof problem, "the table footers cannot be listed: %s (%s, byte %lld)", err.message,
                 nl_error_code_name(err.code), (long long)err.offset);
        json_array_append_new(json_object_get(o, "data_quality"),
                              shape_quality("error", problem, "export the profile again with neuron-explorer",
                                            err.source[0] ? err.source : NULL));
        return;
    }
    json_t *rows = json_object(), *not_read = json_array(), *unknown = json_object();
    for (size_t i = 0; i < explorer_parquet_table_count(inv); i++) {
        const explorer_parquet_table *t = explorer_parquet_table_at(inv, i);
        json_object_set_new(rows, t->name, json_integer((json_int_t)t->rows));
        if (!t->modelled)
            json_array_append_new(not_read, json_string(t->name));
        if (t->unknown_count) {
            json_t *cols = json_array();
            for (size_t k = 0; k < t->unknown_count; k++)
                json_array_append_new(cols, json_string(t->unknown[k]));
            json_object_set_new(unknown, t->name, cols);
        }
    }
    const char *version = explorer_parquet_schema_version(inv);
    json_object_set_new(o, "parquet", json_pack("{s:o, s:o, s:o, s:o}", "schema_version",
                                                 version[0] ? json_string(version) : json_null(), "rows", rows,
                                                 "tables_not_read", not_read, "unknown_columns", unknown));
    explorer_parquet_inventory_free(inv);
}

/* A NEFF no NTFF pairs with: what the compiler wrote (summary_program), or why it cannot be read. */
static json_t *program_entry(const nl_catalog *cat, const nl_catalog_profile *p)
{
    const nl_catalog_file *f = nl_catalog_file_at(cat, (size_t)p->neff);
    json_t *o = shape_profile_label(cat, p);
    json_object_set_new(o, "files", json_pack("{s:s}", "neff", f->rel_path));
    json_object_set_new(o, "bytes", json_integer((json_int_t)f->size));
    json_object_set_new(o, "analyses", analyses_json(p));
    json_t *dq = json_array();
    shape_catalog_notes(cat, p, dq);
    nl_error err;
    nl_error_clear(&err);
    neff_static *s = neff_static_read(f->path, &err);
    if (s) {
        json_t *facts = program_facts_json(s);
        json_t *brief = json_object(); /* orient's share: what it is; summary has the rest */
        const char *keep[] = {"neff_uuid", "compiler_version", "target", "instruction_slots", "kernels_total",
                              "hlo_instructions"};
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
            json_object_set(brief, keep[i], json_object_get(facts, keep[i]));
        json_object_set_new(o, "program", brief);
        json_decref(facts);
        neff_static_free(s);
    } else {
        char problem[NL_ERROR_MESSAGE_MAX + 64];
        snprintf(problem, sizeof problem, "the NEFF cannot be read: %s (%s, byte %lld)", err.message,
                 nl_error_code_name(err.code), (long long)err.offset);
        json_array_append_new(dq, shape_quality("error", problem, "copy the NEFF again from the compile cache", f->rel_path));
    }
    json_object_set_new(o, "data_quality", dq);
    return o;
}

static json_t *item_json(nl_call *call, const nl_catalog *cat, const nl_catalog_profile *p)
{
    switch (p->kind) {
    case NL_PROFILE_PROGRAM: return program_entry(cat, p);
    case NL_PROFILE_MEMORY: return memory_entry(call, cat, p);
    case NL_PROFILE_SYSTEM: return system_entry(call, cat, p);
    case NL_PROFILE_FRAMEWORK: return framework_entry(call, cat, p);
    case NL_PROFILE_SUMMARY_JSON: return summary_json_entry(cat, p);
    case NL_PROFILE_SHOW_SESSION: return show_session_entry(cat, p);
    default: break;
    }
    json_t *o = device_entry(call, cat, p);
    if (p->kind == NL_PROFILE_PARQUET_DIR)
        parquet_inventory(cat, p, o);
    return o;
}

static json_t *ranks_json(const nl_catalog *cat)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < nl_catalog_rank_count(cat) && i < 64; i++) {
        const nl_catalog_rank *r = nl_catalog_rank_at(cat, i);
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:b}", "id", r->id, "dir", r->dir,
                                             "instance", r->instance ? r->instance : "", "pid", (json_int_t)r->pid,
                                             "neffs", (json_int_t)r->neff_count, "ntffs", (json_int_t)r->ntff_count,
                                             "files", (json_int_t)r->file_count, "system_profile", r->has_system_profile));
    }
    return arr;
}

static json_t *file_kinds_json(const nl_catalog *cat)
{
    size_t count[NL_FILE_KIND_COUNT] = {0};
    for (size_t i = 0; i < nl_catalog_file_count(cat); i++)
        count[nl_catalog_file_at(cat, i)->kind]++;
    json_t *o = json_object();
    for (int k = 0; k < NL_FILE_KIND_COUNT; k++)
        if (count[k])
            json_object_set_new(o, nl_file_kind_name((nl_file_kind)k), json_integer((json_int_t)count[k]));
    return o;
}

/* The analyses orient may suggest, in the order it prefers them for one profile. */
static const nl_analysis orient_suggestable[] = {NL_ANALYSIS_SUMMARY, NL_ANALYSIS_COLLECTIVE_GAPS,
                                                 NL_ANALYSIS_TRACE_EXTRACT};

static const char *orient_why(const nl_catalog_profile *p, nl_analysis a)
{
    switch (a) {
    case NL_ANALYSIS_SUMMARY:
        return p->kind == NL_PROFILE_MEMORY    ? "memory held at the peak and by whom, fragmentation, out-of-memory events"
               : p->kind == NL_PROFILE_PROGRAM ? "what the compiled program holds: kernels, instructions per engine, HLO"
                                               : "headline numbers, bottleneck and rule findings";
    case NL_ANALYSIS_COLLECTIVE_GAPS: return "per-layer latency from the gaps between collectives";
    default: return "the profile's timeline rows";
    }
}

/* The call orient suggests for profile p in `pass` (0: one it is ready for, 1: one it needs an export for),
 * or NULL. */
static json_t *orient_call(const char *path, size_t total, const nl_catalog_profile *p, int pass)
{
    nl_readiness want = pass == 0 ? NL_READY : NL_NEEDS_EXPORT;
    for (size_t k = 0; k < sizeof orient_suggestable / sizeof orient_suggestable[0]; k++) {
        nl_analysis a = orient_suggestable[k];
        const nl_profile_readiness *r = &p->analyses[a];
        if (r->state != want)
            continue;
        json_t *args = json_pack("{s:s}", "path", path);
        if (total > 1)
            json_object_set_new(args, "profile", json_string(p->id));
        json_t *c = json_pack("{s:s, s:o, s:s, s:s}", "tool", nl_analysis_name(a), "arguments", args, "why",
                              orient_why(p, a), "expect", want == NL_READY ? "answer" : "abstention");
        if (want != NL_READY)
            json_object_set_new(c, "abstains_because", json_pack("{s:s, s:s}", "reason", r->reason ? r->reason : "",
                                                                 "fix", r->fix ? r->fix : ""));
        return c;
    }
    return NULL;
}

/* Up to three calls from the catalog's readiness: profiles of the page that are ready for one first, then
 * those that need an export (an announced abstention). Profiles no analysis can read get none. */
static json_t *next_calls_json(const char *path, const nl_catalog *cat, size_t from, size_t to)
{
    json_t *calls = json_array();
    size_t total = nl_catalog_profile_count(cat);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = from; i < to && json_array_size(calls) < 3; i++) {
            json_t *c = orient_call(path, total, nl_catalog_profile_at(cat, i), pass);
            if (c)
                json_array_append_new(calls, c);
        }
    return calls;
}

/* Per-profile notes repeat across similar profiles (three exports from one profiler share five notes):
 * keep {code, severity, problem} with each profile and give each code's fix once, in `fixes`. */
static json_t *hoist_fixes(json_t *profiles)
{
    json_t *fixes = json_object();
    size_t i, j;
    json_t *p, *q;
    json_array_foreach(profiles, i, p) {
        json_array_foreach(json_object_get(p, "data_quality"), j, q) {
            const char *code = json_string_value(json_object_get(q, "code"));
            if (!code)
                continue;
            if (!json_object_get(fixes, code))
                json_object_set(fixes, code, json_object_get(q, "fix"));
            json_object_del(q, "fix");
            json_object_del(q, "file");
        }
    }
    return fixes;
}

/* Tree-level catalog notes, one entry per note code (count + a few example paths), so a tree with
 * thousands of odd files still answers in a few KB. Profile-level notes are shown with each profile. */
static json_t *grouped_notes(const nl_catalog *cat)
{
    json_t *groups = json_object(); /* code name → entry */
    json_t *order = json_array();
    for (size_t i = 0; i < nl_catalog_note_count(cat); i++) {
        const nl_catalog_note *n = nl_catalog_note_at(cat, i);
        if (n->code == NL_NOTE_BAD_HEADER || n->code == NL_NOTE_UUID_MISMATCH || n->code == NL_NOTE_NTFF_WITHOUT_NEFF ||
            n->code == NL_NOTE_EMPTY_NTFF || n->code == NL_NOTE_NTFF_SIZE || n->code == NL_NOTE_EXPORT_NOT_PEEKED)
            continue; /* shown with the profile they concern */
        const char *code = nl_note_code_name(n->code);
        json_t *g = json_object_get(groups, code);
        if (g && !n->path)
            continue; /* the catalog's own "N more ... not listed" note: the count below already covers it */
        if (!g) {
            g = shape_quality(n->severity == NL_NOTE_WARN ? "warning" : "info", n->message, n->fix, NULL);
            json_object_set_new(g, "code", json_string(code));
            json_object_set_new(g, "count", json_integer((json_int_t)nl_catalog_note_total(cat, n->code)));
            json_object_set_new(g, "examples", json_array());
            json_object_set_new(groups, code, g);
            json_array_append(order, g);
        }
        json_t *ex = json_object_get(g, "examples");
        if (n->path && json_array_size(ex) < ORIENT_NOTE_EXAMPLES)
            json_array_append_new(ex, json_string(n->path));
    }
    json_decref(groups);
    return order;
}

/* Read the page's small exports into the model cache all at once, one per core (add_counts then finds them
 * cached): a 32-rank capture's first page of ten 12 MB exports loaded in 0.2 s one after another. */
static void orient_prefetch(nl_call *call, const nl_catalog *cat, size_t from, size_t to)
{
    size_t n = to - from;
    nl_model_source *srcs = calloc(n ? n : 1, sizeof *srcs);
    size_t k = 0;
    for (size_t i = from; srcs && i < to; i++) {
        const nl_catalog_profile *p = nl_catalog_profile_at(cat, i);
        const nl_catalog_file *f = p && p->json_export >= 0 ? nl_catalog_file_at(cat, (size_t)p->json_export) : NULL;
        if (f && f->size <= ORIENT_LOAD_MAX_BYTES)
            srcs[k++] = (nl_model_source){.kind = NL_MODEL_DEVICE, .path = f->path};
    }
    if (k > 1)
        nl_model_cache_prefetch(nl_tools_models(call->tools), srcs, k, 0, call->cancel);
    free(srcs);
}

/* The response budget: max_bytes or the server's, whichever is smaller (ORIENT_BUDGET_DEFAULT without). */
static size_t orient_budget(const json_t *args, const nl_call *call)
{
    size_t budget = ORIENT_BUDGET_DEFAULT;
    json_t *mb = json_object_get(args, "max_bytes");
    if (json_is_integer(mb) && (size_t)json_integer_value(mb) < budget)
        budget = (size_t)json_integer_value(mb);
    if (call->byte_budget && call->byte_budget < budget)
        budget = call->byte_budget;
    return budget;
}

static int orient_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    const char *path = json_string_value(json_object_get(args, "path"));
    json_t *mr = json_object_get(args, "max_rows");
    size_t max_rows = mr ? (size_t)json_integer_value(mr) : ORIENT_DEFAULT_ROWS, offset = 0;
    const char *cursor = json_string_value(json_object_get(args, "cursor"));
    if (cursor && shape_cursor_parse(cursor, ORIENT_CURSOR_TAG, &offset))
        return nl_tool_result_error(res, "Invalid arguments for orient — arguments.cursor: not a cursor orient returned; "
                                    "call orient without a cursor to start from the first page.");
    nl_error err;
    nl_error_clear(&err);
    nl_call_progress(call, 0, 1, "scanning");
    nl_catalog *cat = nl_tools_scan(call, path, &err);
    if (!cat)
        return nl_tool_result_error(res, "Cannot examine %s: %s (%s). Check the path exists and is readable.", path,
                                    err.message, nl_error_code_name(err.code));
    size_t total = nl_catalog_profile_count(cat);
    if (offset > total) {
        nl_catalog_free(cat);
        return nl_tool_result_error(res, "Invalid arguments for orient — arguments.cursor: beyond the last page (%zu items).", total);
    }
    json_t *files = file_kinds_json(cat), *ranks = ranks_json(cat), *dq = grouped_notes(cat);
    json_t *profiles = json_array();
    size_t end = offset + max_rows < total ? offset + max_rows : total;
    orient_prefetch(call, cat, offset, end);
    /* bounded while building: profiles get what the fixed parts leave of the budget (less room for the
     * next calls, fixes, units and provenance); the rest is one cursor away */
    size_t fixed = json_dumpb(files, NULL, 0, JSON_COMPACT) + json_dumpb(ranks, NULL, 0, JSON_COMPACT) +
                   json_dumpb(dq, NULL, 0, JSON_COMPACT) + ORIENT_FIXED_RESERVE;
    size_t budget = orient_budget(args, call), used = 0, i;
    budget = budget > fixed + 1024 ? budget - fixed : 1024;
    for (i = offset; i < end && !nl_call_cancelled(call); i++) {
        json_t *item = item_json(call, cat, nl_catalog_profile_at(cat, i));
        size_t n = json_dumpb(item, NULL, 0, JSON_COMPACT);
        if (i > offset && used + n > budget) {
            json_decref(item);
            break;
        }
        used += n;
        json_array_append_new(profiles, item);
    }
    end = i;
    json_t *out = json_pack("{s:s, s:o, s:o, s:o, s:I, s:I, s:b}", "path", path, "files", files,
                            "ranks", ranks, "profiles", profiles, "total", (json_int_t)total,
                            "shown", (json_int_t)(end - offset), "truncated", end < total);
    char next[64];
    shape_cursor_make(next, sizeof next, ORIENT_CURSOR_TAG, end);
    json_object_set_new(out, "next_cursor", end < total ? json_string(next) : json_null());
    if (!total)
        json_array_append_new(dq, shape_quality("warning", "no Neuron or PyTorch profile was found at this path",
                                                "Point orient at a capture directory (<instance>_pid_<pid>/), a neuron-profile "
                                                "JSON export, an NTFF/NEFF pair or a trace.json", NULL));
    json_object_set_new(out, "data_quality", dq);
    json_object_set_new(out, "next_calls", next_calls_json(path, cat, offset, end));
    json_object_set_new(out, "fixes", hoist_fixes(profiles));
    json_object_set_new(out, "units", json_pack("{s:s, s:s}", "bytes", "B", "pid", "process id of the capture"));
    json_object_set_new(out, "provenance", json_pack("{s:s, s:I, s:b}", "scanned", path, "files_examined",
                                                     (json_int_t)nl_catalog_file_count(cat), "scan_truncated",
                                                     nl_catalog_truncated(cat)));
    json_object_set_new(out, "profile", json_null());
    char text[512];
    snprintf(text, sizeof text, "%s: %zu profile(s) (%zu shown), %zu rank(s), %zu file(s), %zu data-quality note(s)%s",
             path, total, end - offset, nl_catalog_rank_count(cat), nl_catalog_file_count(cat), json_array_size(dq),
             end < total ? "; more with next_cursor" : "");
    res->text = strdup(text);
    res->structured = out;
    nl_catalog_free(cat);
    return 0;
}

const nl_tool_desc nl_tool_orient = {
    .name = "orient",
    .title = "Orient: what profiles are at a path",
    .description =
        "Call first on any path a user gives you. Lists every Neuron profile found (capture dirs per rank, "
        "NEFF/NTFF pairs, neuron-profile JSON exports, system traces, PyTorch trace.json) with ids, ranks, "
        "cores, versions, sizes, instruction/DMA counts, which analyses are possible, data-quality problems "
        "with their fixes, and the next calls to make. Paginated for large directories.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_MAX_ROWS "," NL_PROP_CURSOR "," NL_PROP_MAX_BYTES "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"profiles\", \"data_quality\", \"provenance\", \"total\", \"shown\", \"truncated\"], \"properties\": {"
        NL_OUT_ENVELOPE "," NL_OUT_LIST ","
        NL_JSON("path": {"type": "string"},
                "profiles": {"type": "array", "items": {"type": "object", "required": ["id", "kind"],
                    "properties": {"id": {"type": "string"}, "kind": {"enum": ["device", "system", "framework", "show_session", "memory", "program"]},
                                   "files": {"type": "object"}, "analyses": {"type": "object"}}}},
                "next_calls": {"type": "array", "items": {"type": "object"}},
                "fixes": {"type": "object", "description": "fix for each data-quality code seen in profiles"})
        "}}",
    .run = orient_run,
};
