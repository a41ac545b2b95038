/* summary_program — see summary_program.h.
 *
 * Everything here is what the compiler wrote (readers/neff_static.h; formats.md §2): info.json's compiler
 * version, kelf-0.json's target, kernel_debug_info.json's kernels with the source of their entry function,
 * each subgraph's five engine programs as 64-byte instruction slots, the HLO table of debug_info_hlo.dbg_*,
 * metrics.json and hlo_stats.json. Nothing is estimated from it: a NEFF holds no times. Compile flags are not
 * among the members the reader decodes; the result says so rather than leaving them out silently. */
#include "summary_program.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM_KERNELS_LISTED 8u  /* kernels shown; more are counted */
#define PROGRAM_METRICS_LISTED 16u /* compiler metrics shown; more are counted */

/* Slots per engine summed over the subgraphs, in NTFF engine order; returns the total. */
static uint64_t program_slots(const neff_static *s, uint64_t per_engine[NTFF_ENGINE_COUNT],
                              const char *stem[NTFF_ENGINE_COUNT])
{
    uint64_t total = 0;
    for (unsigned e = 0; e < NTFF_ENGINE_COUNT; e++)
        per_engine[e] = 0, stem[e] = NULL;
    for (size_t g = 0; g < s->subgraph_count; g++)
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++) {
            const neff_engine_program *p = &s->subgraphs[g].engine[e];
            if (!p->present)
                continue;
            stem[e] = p->stem;
            per_engine[e] += p->slots;
            total += p->slots;
        }
    return total;
}

static json_t *program_kernels(const neff_static *s)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < s->kernel_count && i < PROGRAM_KERNELS_LISTED; i++) {
        const neff_kernel *k = &s->kernels[i];
        json_t *o = json_pack("{s:s}", "name", k->name ? k->name : "");
        json_object_set_new(o, "source_file", k->source_file ? json_string(k->source_file) : json_null());
        json_object_set_new(o, "source_line", k->source_line >= 0 ? json_integer(k->source_line) : json_null());
        json_array_append_new(arr, o);
    }
    return arr;
}

/* metrics.json entries {name: {value, unit}} and the hlo_stats.json numbers the compiler reported (a -1 is
 * its "not computed" and is left out). */
static json_t *program_metrics(const neff_static *s, size_t *listed)
{
    json_t *o = json_object();
    *listed = 0;
    for (size_t i = 0; i < s->metric_count && *listed < PROGRAM_METRICS_LISTED; i++, (*listed)++)
        json_object_set_new(o, s->metrics[i].name, json_pack("{s:f, s:s}", "value", s->metrics[i].value, "unit",
                                                             s->metrics[i].unit ? s->metrics[i].unit : ""));
    return o;
}

static json_t *program_hlo_stats(const neff_static *s)
{
    json_t *o = json_object();
    for (size_t i = 0; i < s->hlo_stat_count; i++)
        if (s->hlo_stats[i].value >= 0)
            json_object_set_new(o, s->hlo_stats[i].name, json_real(s->hlo_stats[i].value));
    return o;
}

json_t *program_facts_json(const neff_static *s)
{
    const nl_neff *n = s->neff;
    uint64_t slots[NTFF_ENGINE_COUNT];
    const char *stem[NTFF_ENGINE_COUNT];
    uint64_t total = program_slots(s, slots, stem);
    json_t *engines = json_object();
    for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
        if (stem[e])
            json_object_set_new(engines, stem[e], json_integer((json_int_t)slots[e]));
    size_t metrics_listed;
    json_t *o = json_object();
    json_object_set_new(o, "neff_uuid", json_string(n->header.uuid_hex));
    json_object_set_new(o, "network_name", json_string(n->header.network_name));
    json_object_set_new(o, "compiler_version", n->tool_version ? json_string(n->tool_version) : json_null());
    json_object_set_new(o, "target", n->kelf_target ? json_string(n->kelf_target) : json_null());
    json_object_set_new(o, "logical_core_size", json_integer((json_int_t)n->header.lnc_size));
    json_object_set_new(o, "subgraphs", json_integer((json_int_t)s->subgraph_count));
    json_object_set_new(o, "instruction_slots", json_integer((json_int_t)total));
    json_object_set_new(o, "instruction_slots_by_engine", engines);
    json_object_set_new(o, "kernels", program_kernels(s));
    json_object_set_new(o, "kernels_total", json_integer((json_int_t)s->kernel_count));
    json_object_set_new(o, "hlo_instructions", json_integer((json_int_t)s->hlo_count));
    json_object_set_new(o, "hlo_stats", program_hlo_stats(s));
    json_object_set_new(o, "compiler_metrics", program_metrics(s, &metrics_listed));
    json_object_set_new(o, "compiler_metrics_total", json_integer((json_int_t)s->metric_count));
    json_object_set_new(o, "compile_flags", json_null());
    json_object_set_new(o, "compile_flags_note", json_string("not read: none of the NEFF members neuronlens decodes "
                                                             "records the compiler's command line"));
    return o;
}

void program_facts_text(const neff_static *s, const char *id, char *buf, size_t cap)
{
    uint64_t slots[NTFF_ENGINE_COUNT];
    const char *stem[NTFF_ENGINE_COUNT];
    uint64_t total = program_slots(s, slots, stem);
    const nl_neff *n = s->neff;
    int k = snprintf(buf, cap, "NEFF %.200s (compiler %.60s, target %.30s): %llu instruction slots in %zu subgraph(s)", id,
                     n->tool_version ? n->tool_version : "unknown", n->kelf_target ? n->kelf_target : "unknown",
                     (unsigned long long)total, s->subgraph_count);
    const char *sep = " (";
    for (unsigned e = 1; e < NTFF_ENGINE_COUNT && k > 0 && (size_t)k < cap; e++)
        if (stem[e]) {
            k += snprintf(buf + k, cap - (size_t)k, "%s%s %llu", sep, stem[e], (unsigned long long)slots[e]);
            sep = ", ";
        }
    if (k > 0 && (size_t)k < cap && sep[0] == ',')
        k += snprintf(buf + k, cap - (size_t)k, ")");
    if (k > 0 && (size_t)k < cap && s->kernel_count)
        k += snprintf(buf + k, cap - (size_t)k, "; kernel %.200s%s", s->kernels[0].name ? s->kernels[0].name : "",
                      s->kernel_count > 1 ? " and others" : "");
    if (k > 0 && (size_t)k < cap)
        snprintf(buf + k, cap - (size_t)k, "; %zu HLO instructions.", s->hlo_count);
}

/* The reader's skipped members as one data-quality entry. */
static void program_quality(const neff_static *s, const char *file, json_t *dq)
{
    if (!s->problem_count)
        return;
    char problem[NL_ERROR_MESSAGE_MAX + 96];
    snprintf(problem, sizeof problem, "%zu NEFF member(s) skipped as not what their names say; the first: %s",
             s->problem_count, s->problem);
    json_array_append_new(dq, shape_quality("warning", problem, "recompile to get a whole NEFF", file));
}

int nl_summary_program(nl_call *call, nl_select *sel, nl_tool_result *res)
{
    (void)call;
    const nl_catalog_file *f = nl_catalog_file_at(sel->cat, (size_t)sel->profile->neff);
    nl_error err;
    nl_error_clear(&err);
    neff_static *s = neff_static_read(f->path, &err);
    if (!s)
        return nl_tool_result_error(res, "%s is not a readable NEFF: %s (%s, byte %lld).", f->rel_path, err.message,
                                    nl_error_code_name(err.code), (long long)err.offset);
    json_t *out = json_object();
    json_object_set_new(out, "profile", nl_select_label(sel));
    json_object_set_new(out, "units", json_pack("{s:s, s:s}", "instruction_slots", "64-byte instructions of the "
                                                "engine programs", "hlo_stats", "as the compiler wrote them"));
    json_object_set_new(out, "provenance", json_pack("{s:{s:s}, s:s, s:I}", "files", "neff", f->rel_path, "reader",
                                                     "neuronlens NEFF reader (libarchive)", "bytes",
                                                     (json_int_t)f->size));
    json_t *dq = nl_select_quality(sel);
    json_array_append_new(dq, shape_quality("info", "a NEFF alone holds the compiled program, not a run: no times, "
                                            "utilization, waits or DMA traffic", sel->profile->analyses[NL_ANALYSIS_TRACE_EXTRACT].fix,
                                            f->rel_path));
    program_quality(s, f->rel_path, dq);
    json_object_set_new(out, "data_quality", dq);
    json_object_set_new(out, "status", json_string("complete"));
    json_object_set_new(out, "program", program_facts_json(s));
    char text[1024];
    program_facts_text(s, sel->profile->id, text, sizeof text);
    size_t n = strlen(text);
    snprintf(text + n, sizeof text - n, " No run: capture an NTFF of it for times.");
    res->text = strdup(text);
    res->structured = out;
    neff_static_free(s);
    return 0;
}

/* ---- the program of a device profile, memoized with its model ------------------------------------------- */

typedef struct program_memo_ctx {
    const char *path;
} program_memo_ctx;

/* The memo holds the rendered `program` object as JSON text: jansson values are not shared across threads,
 * text is, and each call parses its own copy. */
static void *program_memo_build(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    (void)r;
    const program_memo_ctx *c = ctx;
    neff_static *s = neff_static_read(c->path, err);
    if (!s)
        return NULL;
    json_t *o = program_facts_json(s);
    neff_static_free(s);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!text)
        return nl_error_set(err, NL_ERR_NOMEM, c->path, -1, "out of memory rendering the NEFF's facts"), NULL;
    *bytes = strlen(text) + 1;
    return text;
}

static void program_memo_release(void *obj)
{
    free(obj);
}

void summary_program_attach(nl_call *call, nl_select *sel, json_t *out, json_t *dq)
{
    if (!sel->model || sel->profile->neff < 0)
        return;
    const nl_catalog_file *f = nl_catalog_file_at(sel->cat, (size_t)sel->profile->neff);
    char key[96]; /* the NEFF's identity: a rewritten NEFF beside an unchanged trace is read again */
    snprintf(key, sizeof key, "program:%llu:%lld", (unsigned long long)f->size, (long long)f->mtime_ns);
    program_memo_ctx ctx = {.path = f->path};
    nl_error err;
    nl_error_clear(&err);
    const char *text = nl_model_ref_memo(sel->model, key, program_memo_build, program_memo_release, &ctx,
                                         call->cancel, &err);
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    if (o) {
        json_object_set_new(out, "program", o);
        return;
    }
    char problem[NL_ERROR_MESSAGE_MAX + 64];
    snprintf(problem, sizeof problem, "the NEFF's static facts cannot be read: %s (%s, byte %lld)", err.message,
             nl_error_code_name(err.code), (long long)err.offset);
    json_array_append_new(dq, shape_quality("warning", problem, "copy the NEFF again from the compile cache", f->rel_path));
}
