/* profile_select — see profile_select.h. */
#include "profile_select.h"
#include "scan.h"
#include "export_adapter.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SELECT_LIST_MAX 20

static bool is_device(const nl_catalog_profile *p)
{
    return p->kind == NL_PROFILE_DEVICE || p->kind == NL_PROFILE_EXPORT_ONLY;
}

/* "a, b, c (and N more)" of the device profile ids, for messages. */
static void list_ids(const nl_catalog *cat, char *out, size_t cap)
{
    size_t used = 0, shown = 0, total = 0;
    out[0] = '\0';
    for (size_t i = 0; i < nl_catalog_profile_count(cat); i++) {
        const nl_catalog_profile *p = nl_catalog_profile_at(cat, i);
        if (!is_device(p))
            continue;
        total++;
        if (shown < SELECT_LIST_MAX && used + strlen(p->id) + 3 < cap) {
            used += (size_t)snprintf(out + used, cap - used, "%s%s", shown ? ", " : "", p->id);
            shown++;
        }
    }
    if (total > shown && used + 32 < cap)
        snprintf(out + used, cap - used, " (and %zu more; see orient)", total - shown);
}

static int pick(nl_selection *sel, const char *wanted, nl_tool_result *res)
{
    const nl_catalog *cat = sel->cat;
    char ids[2048];
    if (wanted) {
        sel->profile = nl_catalog_find_profile(cat, wanted);
        if (sel->profile && is_device(sel->profile))
            return 0;
        list_ids(cat, ids, sizeof ids);
        nl_tool_result_error(res, "No device profile '%s' at %s. Profiles there: %s.", wanted, nl_catalog_root(cat),
                             ids[0] ? ids : "none");
        return -1;
    }
    const nl_catalog_profile *only = NULL;
    size_t n = 0;
    for (size_t i = 0; i < nl_catalog_profile_count(cat); i++) {
        const nl_catalog_profile *p = nl_catalog_profile_at(cat, i);
        if (is_device(p)) {
            only = p;
            n++;
        }
    }
    if (n == 1) {
        sel->profile = only;
        return 0;
    }
    if (n == 0) {
        nl_tool_result_error(res, "No device profile (NTFF, or neuron-profile JSON export) found at %s. Call orient on "
                             "the path to see what is there.", nl_catalog_root(cat));
        return -1;
    }
    list_ids(cat, ids, sizeof ids);
    nl_tool_result_error(res, "%s holds %zu device profiles; pass \"profile\" with one of: %s.", nl_catalog_root(cat), n, ids);
    return -1;
}

static void load_progress(void *ctx, uint64_t done, uint64_t total)
{
    nl_call_progress(ctx, (double)done, (double)total, "reading the profile export");
}

static int load_model(nl_call *call, nl_selection *sel, const char *path, nl_tool_result *res)
{
    nl_error err;
    nl_error_clear(&err);
    nl_model_load_options opt = {.cancel = call->cancel, .progress = load_progress, .progress_ctx = call};
    sel->model = nl_model_cache_get(nl_tools_models(call->tools), &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = path}, &opt, &err);
    if (sel->model) {
        sel->export_path = strdup(path);
        return 0;
    }
    if (err.code == NL_ERR_CANCELLED)
        return nl_tool_result_error(res, "cancelled"), -1;
    char where[96] = "";
    if (err.offset >= 0)
        snprintf(where, sizeof where, " at byte %lld", (long long)err.offset);
    if (err.record >= 0)
        snprintf(where + strlen(where), sizeof where - strlen(where), ", record %lld", (long long)err.record);
    nl_tool_result_error(res, "Cannot read the profile export %s%s%s%s: %s (%s). If the file was cut off, export it again "
                         "with neuron-profile view --output-format json.", err.source[0] ? err.source : path, where,
                         err.field[0] ? ", field " : "", err.field, err.message, nl_error_code_name(err.code));
    return -1;
}

/* NTFF without an export: run neuron-profile when installed, else abstain with the command. */
static int export_with_adapter(nl_call *call, nl_selection *sel, nl_tool_result *res)
{
    const nl_catalog *cat = sel->cat;
    const nl_catalog_file *ntff = nl_catalog_file_at(cat, (size_t)sel->profile->ntff);
    const char *neff = sel->profile->neff >= 0 ? nl_catalog_file_at(cat, (size_t)sel->profile->neff)->path : NULL;
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
        int rc = load_model(call, sel, out, res);
        free(out);
        return rc;
    }
    if (err.code == NL_ERR_CANCELLED)
        return nl_tool_result_error(res, "cancelled"), -1;
    char *hint = nl_adapter_command_hint(ntff->path, neff);
    snprintf(sel->abstain_reason, sizeof sel->abstain_reason,
             "the NTFF's instruction and DMA records are in a proprietary encoding that only AWS's neuron-profile "
             "decodes, and %s", err.code == NL_ERR_NOT_FOUND ? "neuron-profile is not installed on this machine"
                                                             : err.message);
    snprintf(sel->abstain_fix, sizeof sel->abstain_fix,
             "On the Trainium host run: %s — then call this tool again on the directory holding the .json (or set "
             "NEURONLENS_NEURON_PROFILE to the neuron-profile binary here).", hint ? hint : "neuron-profile view");
    free(hint);
    return 0;
}

int nl_select_profile(nl_call *call, const json_t *args, bool want_model, nl_selection *sel, nl_tool_result *res)
{
    memset(sel, 0, sizeof *sel);
    const char *path = json_string_value(json_object_get(args, "path"));
    nl_error err;
    nl_error_clear(&err);
    nl_catalog *cat = nl_tools_scan(call, path, &err);
    if (!cat) {
        nl_tool_result_error(res, "Cannot examine %s: %s (%s).", path, err.message, nl_error_code_name(err.code));
        return -1;
    }
    return nl_select_profile_in(call, args, cat, want_model, sel, res);
}

int nl_select_profile_in(nl_call *call, const json_t *args, nl_catalog *cat, bool want_model, nl_selection *sel,
                         nl_tool_result *res)
{
    memset(sel, 0, sizeof *sel);
    sel->cat = cat;
    sel->data_quality = json_array();
    if (pick(sel, json_string_value(json_object_get(args, "profile")), res))
        return -1;
    shape_catalog_notes(sel->cat, sel->profile, sel->data_quality);
    if (!want_model)
        return 0;
    if (sel->profile->json_export >= 0)
        return load_model(call, sel, nl_catalog_file_at(sel->cat, (size_t)sel->profile->json_export)->path, res);
    if (sel->profile->ntff >= 0)
        return export_with_adapter(call, sel, res);
    snprintf(sel->abstain_reason, sizeof sel->abstain_reason, "this profile has no full JSON export and no NTFF");
    snprintf(sel->abstain_fix, sizeof sel->abstain_fix,
             "Export it with neuron-profile view --output-format json (Parquet tables are recognised but not read yet).");
    return 0;
}

void nl_selection_clear(nl_selection *sel)
{
    nl_model_ref_release(sel->model);
    nl_catalog_free(sel->cat);
    json_decref(sel->data_quality);
    free(sel->export_path);
    memset(sel, 0, sizeof *sel);
}

json_t *nl_selection_quality(const nl_selection *sel)
{
    return json_deep_copy(sel->data_quality);
}
