/* collective-gaps — MCP tool: per-layer latency from the gaps between collectives on a CC-core.
 *
 * Source, in order (formats.md §6, §11.1; references/layer-latency-from-collective-gaps.md):
 *   1. a show-session --show-trace text dump: `path` names it, or the catalog finds one that belongs to the
 *      selected profile (collective_gaps.h: same directory, else same rank; matched by file stem, or the
 *      only profile there). Several dumps for one profile: the largest (a --show-trace dump dwarfs the
 *      header-only one); the others are named in data_quality. A dump that several profiles of one
 *      directory share (named after none) is analysed as a whole when no profile is asked for; a path to an
 *      export or NTFF is resolved through its directory.
 *   2. nothing usable: the result abstains with the reason and the command that produces the dump. A -j
 *      dump carries no collective trace. The full JSON export has no collective array in the three real
 *      neuron-profile 2.27 samples (every dma record is_cc_dma "no", summary cc_op_count 0); where DMA
 *      records are flagged is_cc_dma they are packets — several per collective, without trigger times — so
 *      they are reported (counts, summary cc_op_count), never turned into layers.
 * Numbers: analyzers/analyses/gaps (choice of CC-core, gaps, layer mapping and its checks, statistics).
 * Total time for the coverage ratio: the "Total execution time" of the chosen core's header block in the
 * dump, else the attached export's summary total_time when that export is cached or small
 * (CG_EXPORT_LOAD_MAX_BYTES); the core is chosen first, then the analysis runs again with that total.
 * Bounds: layers are paged (max_rows, cursor "cgaps-<core>-<A>-<P>.<offset>", which refuses a cursor made
 * for another core or mapping); CC-cores, outliers and irregular gaps are capped lists with totals; raw
 * gaps (shown only when the mapping is inconsistent) cover the layers of the page; a page that would not fit
 * the caller's byte budget is halved until it does. */
#include "tool_common.h"
#include "collective_gaps_host.h"
#include "gaps.h"
#include "gaps_render.h"
#include "memo.h"
#include "model_cache.h"
#include "select.h"
#include "shape.h"
#include "show_session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CG_DEFAULT_ROWS 20
#define CG_EXPORT_LOAD_MAX_BYTES (64u << 20)     /* an export this small is read for its total time */
#define CG_DEFAULT_BUDGET 24576u
#define CG_BUDGET_MARGIN 2048u                   /* room for the envelope and the text block */

static const char *cg_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---- the call's state -------------------------------------------------------------------------------- */

typedef struct cg_call {
    nl_call *call;
    const char *path;
    nl_select sel;                        /* the profile chosen by the catalog (owns cat) */
    const nl_catalog *cat;                /* sel.cat */
    const nl_catalog_profile *profile;    /* NULL for a show-session dump (its own profile) */
    long dump;                            /* text dump file index or -1 */
    const char *dump_path;                /* openable path of the dump read */
    const char *dump_rel;
    long json_dump;                       /* a -j dump (for provenance and the abstention) or -1 */
    int64_t cc_core;
    unsigned per_layer, skip;
    size_t max_rows, offset;
    const char *cursor;
    json_t *out;                          /* the result being built */
    json_t *dq;                           /* out.data_quality (owned by out once out exists) */
    const show_session *ss;               /* borrowed from ss_ref */
    nl_model_ref *ss_ref;                 /* the parsed dump, memoized in the model cache (memo.h) */
    gaps_result *gr;
    bool has_total;
    int64_t total_ns;
    char total_source[600];
} cg_call;

static void cg_quality(cg_call *c, const char *severity, const char *problem, const char *fix, const char *file)
{
    json_array_append_new(c->dq, shape_quality(severity, problem, fix, file));
}

static void cg_quality_code(cg_call *c, const char *code, const char *severity, const char *problem, const char *fix,
                            const char *file)
{
    json_t *q = shape_quality(severity, problem, fix, file);
    json_object_set_new(q, "code", json_string(code));
    json_array_append_new(c->dq, q);
}

static json_t *cg_units(void)
{
    return json_pack("{s:s, s:s, s:s, s:s}",
                     "time", "ns; start_ns / end_ns as printed by show-session (device timestamps), latencies and gaps "
                             "are differences of them",
                     "ratio_to_median", "layer latency / median_ns",
                     "layers_to_total, window_to_total", "fraction 0..1 of the profile's total execution time",
                     "fit", "periodicity fit 0..1 (1 = every layer splits its time the same way)");
}

/* ---- choosing the source ----------------------------------------------------------------------------- */

/* The dumps of a device profile, as the catalog attached them, with what the choice means. */
static void cg_attach_dumps(cg_call *c)
{
    const nl_catalog_profile *p = c->profile;
    c->dump = p->dump;
    c->json_dump = p->dump_json;
    if (p->dump < 0)
        return;
    const nl_catalog_file *f = nl_catalog_file_at(c->cat, (size_t)p->dump);
    if (p->dump_by_dir)
        cg_quality(c, "warning", "the show-session dump is not tied to this profile by its name and the directory "
                   "holds several profiles; it was used because it sits beside it", "Name the dump after its NTFF "
                   "(e.g. profile_exec_2.show_session.txt) or pass its path", f->rel_path);
    if (p->dumps > 1) {
        char problem[512];
        snprintf(problem, sizeof problem, "%zu show-session dumps belong to this profile; the largest was used", p->dumps);
        cg_quality(c, "info", problem, "Pass the path of another dump to analyse it instead", f->rel_path);
    }
}

/* The profile (device, or a dump of its own) and its dump. 0, or -1 with res filled. */
static int cg_select(cg_call *c, const json_t *args, nl_tool_result *res)
{
    if (nl_select_profile(c->call, args, NL_ANALYSIS_COLLECTIVE_GAPS, &c->sel, res))
        return -1;
    c->cat = c->sel.cat;
    c->dump = c->json_dump = -1;
    json_array_extend(c->dq, c->sel.data_quality);
    if (c->sel.profile->kind == NL_PROFILE_SHOW_SESSION) {
        const nl_catalog_file *f = nl_catalog_file_at(c->cat, (size_t)c->sel.profile->file);
        if (f->kind == NL_FILE_SHOW_SESSION_JSON)
            c->json_dump = c->sel.profile->file;
        else
            c->dump = c->sel.profile->file;
        return 0;
    }
    c->profile = c->sel.profile;
    cg_attach_dumps(c);
    return 0;
}

/* ---- envelope ----------------------------------------------------------------------------------------- */

static json_t *cg_profile_label(const cg_call *c)
{
    if (c->profile)
        return shape_profile_label(c->cat, c->profile);
    return nl_select_label(&c->sel);
}

static json_t *cg_provenance(const cg_call *c)
{
    json_t *prov = c->profile ? shape_profile_provenance(c->cat, c->profile)
                              : json_pack("{s:s, s:{}}", "root", nl_catalog_root(c->cat), "files");
    json_t *files = json_object_get(prov, "files");
    if (c->dump >= 0)
        json_object_set_new(files, "show_session_text", json_string(nl_catalog_file_at(c->cat, (size_t)c->dump)->rel_path));
    if (c->json_dump >= 0)
        json_object_set_new(files, "show_session_json", json_string(nl_catalog_file_at(c->cat, (size_t)c->json_dump)->rel_path));
    json_object_set_new(prov, "method", json_string("gaps between TPB_TRIGGER START events on one CC-core, A per layer "
                                                    "after P prologue gaps (formats.md §11.1; see "
                                                    "neuronlens://references/layer-latency-from-collective-gaps)"));
    return prov;
}

static void cg_abstain(cg_call *c, const char *reason, const char *fix)
{
    gaps_render_abstained(c->out, reason, fix);
}

static void cg_fix_command(const cg_call *c, char *out, size_t cap)
{
    const char *ntff = c->profile && c->profile->ntff >= 0 ? cg_base(nl_catalog_file_at(c->cat, (size_t)c->profile->ntff)->rel_path)
                                                           : "<file>.ntff";
    char stem[256];
    snprintf(stem, sizeof stem, "%s", ntff);
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
        *dot = '\0';
    snprintf(out, cap, "On the Trainium host run: neuron-profile show-session -s %s --show-trace > %s.show_session.txt — "
             "then put the .txt next to the profile (or pass its path) and call collective-gaps again. Profile a warm "
             "execution (--profile-nth-exec=2).", ntff, stem);
}

/* The attached export, read when cached or small: summary total_time, cc_op_count, is_cc_dma records. */
typedef struct cg_export_facts {
    bool read;
    const char *rel;
    bool has_total;
    int64_t total_ns;
    bool has_cc_ops;
    int64_t cc_ops;
    uint64_t cc_dma;
} cg_export_facts;

static void cg_read_export(cg_call *c, cg_export_facts *ef)
{
    memset(ef, 0, sizeof *ef);
    if (!c->profile || c->profile->json_export < 0)
        return;
    const nl_catalog_file *f = nl_catalog_file_at(c->cat, (size_t)c->profile->json_export);
    ef->rel = f->rel_path;
    nl_model_cache *cache = nl_tools_models(c->call->tools);
    nl_model_ref *ref = nl_model_cache_peek(cache, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = f->path});
    if (!ref && f->size <= CG_EXPORT_LOAD_MAX_BYTES) {
        nl_error err;
        nl_model_load_options opt = {.cancel = c->call->cancel};
        ref = nl_model_cache_get(cache, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = f->path}, &opt, &err);
        if (!ref) {
            char problem[600];
            snprintf(problem, sizeof problem, "the full JSON export cannot be read (%s, %s at byte %lld); its total time is not used",
                     err.message, nl_error_code_name(err.code), (long long)err.offset);
            cg_quality(c, "warning", problem, "Export it again with neuron-profile view --output-format json", f->rel_path);
            return;
        }
    }
    if (!ref)
        return;
    const device_model *m = nl_model_ref_device(ref);
    ef->read = true;
    const kvlist *sum = device_model_record_get(m, DEVICE_MODEL_SUMMARY);
    double s;
    if (sum && kvlist_get_num(sum, "total_time", &s) && s > 0) {
        ef->has_total = true;
        ef->total_ns = llround(s * 1e9);
    }
    ef->has_cc_ops = sum && kvlist_get_i64(sum, "cc_op_count", &ef->cc_ops);
    const table *dma = device_model_table_get(m, DEVICE_MODEL_DMA);
    for (size_t r = 0; dma && r < device_model_rows(m, DEVICE_MODEL_DMA); r++)
        ef->cc_dma += (table_u64(dma, DM_DMA_FLAGS, r) & DM_DMA_F_CC) != 0;
    nl_model_ref_release(ref);
}

/* No text dump: abstain, saying what the profile does carry. */
static void cg_abstain_no_dump(cg_call *c)
{
    char fix[1024], reason[1024];
    cg_fix_command(c, fix, sizeof fix);
    if (c->json_dump >= 0) {
        snprintf(reason, sizeof reason, "only a show-session -j dump (%s) is here: it holds per-core cycle counts, not the "
                 "collectives trace (Collectives trace for CC-core N, TPB_TRIGGER START lines) this analysis needs",
                 nl_catalog_file_at(c->cat, (size_t)c->json_dump)->rel_path);
        cg_abstain(c, reason, fix);
        return;
    }
    cg_export_facts ef;
    cg_read_export(c, &ef);
    if (ef.read) {
        if (ef.has_cc_ops && ef.cc_ops == 0 && ef.cc_dma == 0)
            snprintf(reason, sizeof reason, "the full JSON export reports no collectives (summary cc_op_count 0, no "
                     "is_cc_dma DMA records): a single-core / TP=1 execution has no layer rhythm to measure; use "
                     "kernel-attribution with group_by layer instead. If collectives did run, the export has no trigger "
                     "events anyway and a show-session dump is needed");
        else
            snprintf(reason, sizeof reason, "the full JSON export has no collective trigger events: neuron-profile "
                     "exports (2.27) carry no collective array, only DMA records flagged is_cc_dma (%llu here; several "
                     "per collective, without trigger times)%s; the per-layer recipe needs the TPB_TRIGGER START times "
                     "of a show-session --show-trace dump", (unsigned long long)ef.cc_dma,
                     ef.has_cc_ops ? " and the summary's cc_op_count" : "");
        if (ef.has_cc_ops)
            json_object_set_new(c->out, "export_collectives", json_pack("{s:s, s:I, s:I}", "file", ef.rel, "cc_op_count",
                                                                        (json_int_t)ef.cc_ops, "is_cc_dma_records",
                                                                        (json_int_t)ef.cc_dma));
    } else if (c->profile && c->profile->json_export >= 0) {
        snprintf(reason, sizeof reason, "no show-session dump is next to this profile, and full JSON exports carry no "
                 "collective trigger events (only DMA packets flagged is_cc_dma)");
    } else {
        snprintf(reason, sizeof reason, "no show-session dump is next to this profile; the collective trigger times live "
                 "in the NTFF payload, which only neuron-profile decodes");
    }
    cg_abstain(c, reason, fix);
}

/* ---- reading and computing --------------------------------------------------------------------------- */

static int cg_read_dump(cg_call *c, nl_tool_result *res)
{
    const nl_catalog_file *f = nl_catalog_file_at(c->cat, (size_t)c->dump);
    c->dump_path = f->path;
    c->dump_rel = f->rel_path;
    nl_call_progress(c->call, 0, 1, "reading the show-session dump");
    nl_error err;
    nl_error_clear(&err);
    if ((c->ss_ref = nl_memo_show_session(c->call, f->path, f->rel_path, &err))) { /* parsed once per file version */
        c->ss = nl_model_ref_show_session(c->ss_ref);
        return 0;
    }
    if (err.code == NL_ERR_CANCELLED)
        return nl_tool_result_error(res, "cancelled"), -1;
    char where[96] = "";
    if (err.offset >= 0)
        snprintf(where, sizeof where, " at byte %lld", (long long)err.offset);
    if (err.record >= 0)
        snprintf(where + strlen(where), sizeof where - strlen(where), ", record %lld", (long long)err.record);
    return nl_tool_result_error(res, "Cannot read the show-session dump %s%s%s%s: %s (%s). Produce it again with "
                                "neuron-profile show-session -s <file.ntff> --show-trace > trace.txt.", f->rel_path, where,
                                err.field[0] ? ", field " : "", err.field, err.message, nl_error_code_name(err.code)), -1;
}

static void cg_reader_quality(cg_call *c)
{
    const show_session_info *info = show_session_get_info(c->ss);
    cg_quality_code(c, "unverified_format", "info", "no real show-session dump has been published: the reader finds "
                    "sections and tokens by name (formats.md §6), never by column, and counts what it cannot read",
                    NULL, c->dump_rel);
    if (info->unparsed_lines) {
        char problem[512];
        const show_session_issue *is = info->issue_count ? &info->issues[0] : NULL;
        int n = snprintf(problem, sizeof problem, "%llu line(s) in Collectives trace sections could not be read as events",
                         (unsigned long long)info->unparsed_lines);
        if (is && n > 0 && (size_t)n < sizeof problem)
            snprintf(problem + n, sizeof problem - (size_t)n, " (first at byte %lld, line %llu: %s)", (long long)is->offset,
                     (unsigned long long)is->line, is->reason);
        cg_quality_code(c, "unparsed_lines", "warning", problem,
                        "If these lines are trigger events in a layout the reader does not know, report one line to "
                        "neuronlens; a missing trigger shifts the layer mapping", c->dump_rel);
    }
    if (info->has_dropped) {
        char problem[256];
        snprintf(problem, sizeof problem, "the dump says %llu trace event(s) were dropped: missing triggers shift the layer mapping",
                 (unsigned long long)info->dropped_events);
        cg_quality_code(c, "dropped_events", "warning", problem,
                        "Raise the profiler's event limit (max_events_per_nc) or capture fewer NCs / event types", c->dump_rel);
    }
}

/* The total time for CC-core `core`: the header block of the dump before its section, else the export. */
static void cg_total_time(cg_call *c, uint32_t core)
{
    int64_t ns, off;
    if (show_session_total_time_for_core(c->ss, core, &ns, &off)) {
        c->has_total = true;
        c->total_ns = ns;
        snprintf(c->total_source, sizeof c->total_source, "show-session header 'Total execution time' (%s, byte %lld)",
                 c->dump_rel, (long long)off);
        return;
    }
    cg_export_facts ef;
    cg_read_export(c, &ef);
    if (ef.has_total) {
        c->has_total = true;
        c->total_ns = ef.total_ns;
        snprintf(c->total_source, sizeof c->total_source, "full JSON export summary.total_time (%s)", ef.rel);
    }
}

static int cg_compute(cg_call *c, nl_tool_result *res)
{
    gaps_core_input *in = NULL;
    int64_t *storage = NULL;
    size_t n = 0;
    nl_error err;
    nl_error_clear(&err);
    if (gaps_inputs_from_show_session(c->ss, &in, &n, &storage, &err))
        return nl_tool_result_error(res, "collective-gaps failed: %s", err.message), -1;
    size_t with_triggers = 0;
    for (size_t i = 0; i < n; i++)
        with_triggers += in[i].count > 0;
    if (c->cc_core < 0 && with_triggers == 0) {
        char reason[512], fix[1024];
        if (n == 0) {
            snprintf(reason, sizeof reason, "%s has no 'Collectives trace for CC-core N' section: it was produced without "
                     "--show-trace, or the run used no collectives", c->dump_rel);
            cg_fix_command(c, fix, sizeof fix);
        } else {
            snprintf(reason, sizeof reason, "%s has %zu Collectives trace section(s) but no TPB_TRIGGER line in any: no "
                     "collective ran (single core / TP=1?)", c->dump_rel, n);
            snprintf(fix, sizeof fix, "Without collectives there is no layer rhythm to measure: use kernel-attribution with "
                     "group_by layer for per-layer time.");
        }
        cg_abstain(c, reason, fix);
        free(in);
        free(storage);
        return 0;
    }
    gaps_options opt;
    gaps_options_default(&opt);
    opt.cc_core = c->cc_core;
    opt.collectives_per_layer = c->per_layer;
    opt.skip_prologue_gaps = c->skip;
    int rc = gaps_compute(in, n, &opt, &c->gr, &err);
    if (rc == 0) { /* the total time depends on the core chosen: compute again with it */
        cg_total_time(c, c->gr->cc_core);
        if (c->has_total) {
            gaps_result_free(c->gr);
            c->gr = NULL;
            opt.has_total_time = true;
            opt.total_time_ns = c->total_ns;
            rc = gaps_compute(in, n, &opt, &c->gr, &err);
        }
    }
    free(in);
    free(storage);
    if (rc == 0)
        return 0;
    if (err.code == NL_ERR_NOT_FOUND && c->cc_core >= 0)
        return nl_tool_result_error(res, "Invalid arguments for collective-gaps — arguments.cc_core: %s (in %s). Omit "
                                    "cc_core for the automatic choice.", err.message, c->dump_rel), -1;
    return nl_tool_result_error(res, "collective-gaps failed on %s: %s (%s)", c->dump_rel, err.message,
                                nl_error_code_name(err.code)), -1;
}

/* ---- shaping ---------------------------------------------------------------------------------------- */

static size_t cg_budget(const cg_call *c)
{
    size_t b = c->call->byte_budget ? c->call->byte_budget : CG_DEFAULT_BUDGET;
    return b > CG_BUDGET_MARGIN * 2 ? b - CG_BUDGET_MARGIN : b / 2;
}

static int cg_shape(cg_call *c, nl_tool_result *res)
{
    gaps_render_source src = {.lane_word = "CC-core",
                              .choice_auto = "automatic: most TPB_TRIGGER START events, ties to the highest index",
                              .has_total = c->has_total, .total_source = c->total_source};
    return gaps_render(c->gr, &src, c->cursor, c->max_rows, cg_budget(c), c->out, &c->offset, res);
}

static void cg_text(cg_call *c, nl_tool_result *res)
{
    char buf[1024];
    const json_t *o = c->out;
    const char *id = json_string_value(json_object_get(json_object_get(o, "profile"), "id"));
    const char *status = json_string_value(json_object_get(o, "status"));
    if (!strcmp(status, "abstained")) {
        snprintf(buf, sizeof buf, "collective-gaps of %s abstained: %s. Fix: %s", id ? id : c->path,
                 json_string_value(json_object_get(json_object_get(o, "abstained"), "reason")),
                 json_string_value(json_object_get(json_object_get(o, "abstained"), "fix")));
    } else {
        const gaps_result *r = c->gr;
        size_t shown = (size_t)json_integer_value(json_object_get(o, "shown"));
        int n = snprintf(buf, sizeof buf, "%s: CC-core %u (%s; %zu CC-core(s) in the dump), %zu layers of %u collectives after %u prologue gap(s)%s; "
                         "median %lld ns, p90 %lld ns", id ? id : c->dump_rel, r->cc_core, r->forced ? "forced" : "most triggers",
                         r->core_count, r->layer_count, r->per_layer, r->skip_prologue,
                         r->consistent ? "" : " — MAPPING INCONSISTENT, see data_quality and raw_gaps",
                         (long long)r->median_ns, (long long)r->p90_ns);
        if (n > 0 && (size_t)n < sizeof buf && r->has_steady)
            n += snprintf(buf + n, sizeof buf - (size_t)n, ", steady %lld ns, layer 0 %lld ns%s",
                          (long long)r->steady_median_ns, (long long)r->layers[0].latency_ns,
                          r->warmup_slow ? " (slow warm-up)" : "");
        if (n > 0 && (size_t)n < sizeof buf && shown)
            snprintf(buf + n, sizeof buf - (size_t)n, ", %zu outlier layer(s). Layers %zu-%zu shown%s.", r->outlier_count,
                     c->offset, c->offset + shown - 1, json_is_true(json_object_get(o, "truncated")) ? "; more with next_cursor" : "");
        else if (n > 0 && (size_t)n < sizeof buf)
            snprintf(buf + n, sizeof buf - (size_t)n, "; no whole layer.");
    }
    res->text = strdup(buf);
}

static int collective_gaps_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    cg_call c = {.call = call};
    c.path = json_string_value(json_object_get(args, "path"));
    const json_t *v;
    c.cc_core = (v = json_object_get(args, "cc_core")) ? (int64_t)json_integer_value(v) : -1;
    c.per_layer = (v = json_object_get(args, "collectives_per_layer")) ? (unsigned)json_integer_value(v) : 2;
    c.skip = (v = json_object_get(args, "skip_prologue_gaps")) ? (unsigned)json_integer_value(v) : 1;
    c.max_rows = (v = json_object_get(args, "max_rows")) ? (size_t)json_integer_value(v) : CG_DEFAULT_ROWS;
    c.cursor = json_string_value(json_object_get(args, "cursor"));
    c.dq = json_array(); /* selection may already add notes */
    if (cg_select(&c, args, res)) {
        json_decref(c.dq);
        nl_select_clear(&c.sel);
        return 0;
    }
    nl_profile_kind kind = c.sel.profile->kind;
    if (kind == NL_PROFILE_SYSTEM || kind == NL_PROFILE_FRAMEWORK || kind == NL_PROFILE_PARQUET_DIR) {
        json_decref(c.dq);
        nl_collective_gaps_host(args, call, &c.sel, res); /* spans, events or CcOp rows: collective_gaps_host.c */
        nl_select_merge_quality(&c.sel, res);
        nl_select_clear(&c.sel);
        return 0;
    }
    c.out = json_object();
    json_object_set_new(c.out, "profile", cg_profile_label(&c));
    json_object_set_new(c.out, "units", cg_units());
    json_object_set_new(c.out, "provenance", cg_provenance(&c));
    json_object_set_new(c.out, "data_quality", c.dq); /* c.dq stays a borrowed view */
    int rc = 0;
    if (c.dump < 0) {
        cg_abstain_no_dump(&c);
    } else if ((rc = cg_read_dump(&c, res)) == 0) {
        const show_session_info *info = show_session_get_info(c.ss);
        json_t *sp = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "file", c.dump_rel, "format",
                               info->format == SHOW_SESSION_FORMAT_JSON ? "json (-j)" : "text",
                               "bytes", (json_int_t)info->bytes, "lines", (json_int_t)info->lines, "cc_core_sections",
                               (json_int_t)show_session_core_count(c.ss), "unparsed_lines", (json_int_t)info->unparsed_lines,
                               "instruction_trace_sections", (json_int_t)info->instruction_section_count);
        if (info->model_name)
            json_object_set_new(sp, "model_name", json_string(info->model_name));
        json_object_set_new(json_object_get(c.out, "provenance"), "show_session", sp);
        cg_reader_quality(&c);
        if (info->format == SHOW_SESSION_FORMAT_JSON) {
            char reason[512], fix[1024];
            snprintf(reason, sizeof reason, "%s is a show-session -j dump: it holds per-core cycle counts (%zu Graphs "
                     "records), not the collectives trace this analysis needs", c.dump_rel, info->graph_count);
            cg_fix_command(&c, fix, sizeof fix);
            cg_abstain(&c, reason, fix);
        } else {
            rc = cg_compute(&c, res);
            if (rc == 0 && c.gr)
                rc = cg_shape(&c, res);
        }
    }
    if (rc == 0) {
        cg_text(&c, res);
        res->structured = c.out;
    } else {
        json_decref(c.out);
    }
    gaps_result_free(c.gr);
    nl_model_ref_release(c.ss_ref);
    nl_select_clear(&c.sel);
    return 0;
}

const nl_tool_desc nl_tool_collective_gaps = {
    .name = "collective-gaps",
    .title = "Collective gaps: per-layer latency",
    .description =
        "Per-layer latency of a decoder-style model from the gaps between collectives in a show-session "
        "--show-trace dump (found next to the profile, or pass its path): picks the CC-core with most trigger "
        "events (or cc_core), maps gaps to layers (collectives_per_layer, default 2; skip_prologue_gaps, "
        "default 1), checks the mapping, and reports per-layer latency, median, p90, outliers versus the "
        "median and the warm-up layer. Call when a user asks which layer is slow or why a step takes long. Also "
        "reads cc_running spans of a system profile (rank<N>/system) and nccl/gloo collectives of a trace.json.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_PROFILE ","
        NL_JSON("cc_core": {"type": "integer", "minimum": 0, "maximum": 65535},
                "collectives_per_layer": {"type": "integer", "minimum": 1, "maximum": 64, "default": 2},
                "skip_prologue_gaps": {"type": "integer", "minimum": 0, "maximum": 100000, "default": 1})
        "," NL_PROP_MAX_ROWS "," NL_PROP_CURSOR "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"profile\", \"status\", \"layers\", \"data_quality\", "
        "\"provenance\", \"total\", \"shown\", \"truncated\"], \"properties\": {"
        NL_OUT_ENVELOPE "," NL_OUT_LIST ","
        NL_JSON("status": {"enum": ["complete", "inconsistent", "abstained"]}, "abstained": {"type": "object"},
                "cc_core": {"type": ["integer", "null"]}, "layers": {"type": "array", "items": {"type": "object",
                    "required": ["layer", "latency_ns"]}},
                "median_ns": {"type": ["integer", "null"]}, "p90_ns": {"type": ["integer", "null"]},
                "outliers": {"type": "array"}, "mapping": {"type": "object"}, "raw_gaps": {"type": "object"})
        "}}",
    .run = collective_gaps_run,
};
