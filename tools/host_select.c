/* host_select — see host_select.h. */
#include "host_select.h"
#include "memo.h"
#include "scan.h"
#include "shape.h"

#include <stdio.h>
#include <string.h>

static void note_id(nl_host_candidates *c, size_t total, const char *id, const char *kind)
{
    size_t used = strlen(c->ids);
    if (total <= 20 && used + strlen(id) + strlen(kind) + 8 < sizeof c->ids)
        snprintf(c->ids + used, sizeof c->ids - used, "%s%s (%s)", used ? ", " : "", id, kind);
}

void nl_host_candidates_collect(const nl_catalog *cat, const char *wanted, nl_host_candidates *c)
{
    memset(c, 0, sizeof *c);
    const nl_catalog_rank *only_system = NULL;
    const nl_catalog_file *only_trace = NULL;
    for (size_t i = 0; i < nl_catalog_profile_count(cat); i++)
        c->devices += nl_catalog_profile_at(cat, i)->kind != NL_PROFILE_PARQUET_DIR;
    for (size_t i = 0; i < nl_catalog_rank_count(cat); i++) {
        const nl_catalog_rank *r = nl_catalog_rank_at(cat, i);
        if (!r->has_system_profile)
            continue;
        char id[300];
        snprintf(id, sizeof id, "%s/system", r->id);
        note_id(c, c->systems + c->traces + 1, id, "system");
        c->systems++;
        only_system = r;
        if (wanted && !strcmp(wanted, id))
            c->system = r;
    }
    for (size_t i = 0; i < nl_catalog_file_count(cat); i++) {
        const nl_catalog_file *f = nl_catalog_file_at(cat, i);
        c->dumps += f->kind == NL_FILE_SHOW_SESSION_TEXT || f->kind == NL_FILE_SHOW_SESSION_JSON;
        if (f->kind != NL_FILE_KINETO)
            continue;
        note_id(c, c->systems + c->traces + 1, f->rel_path, "framework");
        c->traces++;
        only_trace = f;
        if (wanted && !strcmp(wanted, f->rel_path))
            c->trace = f;
    }
    if (!wanted) {
        c->system = c->systems == 1 ? only_system : NULL;
        c->trace = c->traces == 1 ? only_trace : NULL;
    }
}

void nl_host_selection_clear(nl_host_selection *sel)
{
    nl_catalog_free(sel->cat);
    memset(sel, 0, sizeof *sel);
}

int nl_host_select_in(nl_catalog *cat_take, const char *wanted, nl_host_kind kind, nl_host_selection *sel,
                      nl_tool_result *res)
{
    memset(sel, 0, sizeof *sel);
    sel->cat = cat_take;
    sel->kind = kind;
    nl_host_candidates c;
    nl_host_candidates_collect(cat_take, wanted, &c);
    const char *what = kind == NL_HOST_SYSTEM ? "system profile" : "framework trace";
    size_t n = kind == NL_HOST_SYSTEM ? c.systems : c.traces;
    bool found = kind == NL_HOST_SYSTEM ? c.system != NULL : c.trace != NULL;
    const char *root = nl_catalog_root(cat_take);
    if (!found) {
        if (wanted)
            nl_tool_result_error(res, "Invalid argument profile: no %s '%s' at %s. A %s id is %s. Profiles there: %s.",
                                 what, wanted, root, what, kind == NL_HOST_SYSTEM ? "rank<N>/system"
                                                                                  : "the trace's path relative to path",
                                 c.ids[0] ? c.ids : "none of this kind");
        else if (n == 0)
            nl_tool_result_error(res, "No %s at %s (%s). Call orient on the path to see what it holds.", what, root,
                                 kind == NL_HOST_SYSTEM ? "a capture directory <instance>_pid_<pid>/ with ntrace.pb and "
                                                          "trace_info.pb"
                                                        : "a PyTorch profiler trace.json or .json.gz");
        else
            nl_tool_result_error(res, "%s holds %zu %ss; pass \"profile\" with one of: %s.", root, n, what, c.ids);
        return -1;
    }
    if (kind == NL_HOST_SYSTEM) {
        sel->rank = c.system;
        snprintf(sel->id, sizeof sel->id, "%s/system", c.system->id);
    } else {
        sel->trace = c.trace;
        sel->rank = c.trace->rank >= 0 ? nl_catalog_rank_at(cat_take, (size_t)c.trace->rank) : NULL;
        snprintf(sel->id, sizeof sel->id, "%s", c.trace->rel_path);
    }
    return 0;
}

int nl_host_select(nl_call *call, const json_t *args, nl_host_kind kind, nl_host_selection *sel, nl_tool_result *res)
{
    const char *path = json_string_value(json_object_get(args, "path"));
    nl_error err;
    nl_error_clear(&err);
    memset(sel, 0, sizeof *sel);
    nl_catalog *cat = nl_tools_scan(call, path, &err);
    if (!cat)
        return nl_tool_result_error(res, "Cannot examine %s: %s (%s). Check the path exists and is readable.", path,
                                    err.message, nl_error_code_name(err.code)), -1;
    return nl_host_select_in(cat, json_string_value(json_object_get(args, "profile")), kind, sel, res);
}

const nl_catalog_rank *nl_host_trace_system(const nl_catalog *cat, const nl_catalog_file *trace)
{
    if (!trace || trace->rank < 0)
        return NULL;
    const nl_catalog_rank *r = nl_catalog_rank_at(cat, (size_t)trace->rank);
    return r->has_system_profile ? r : NULL;
}

static const char *path_of(const nl_catalog *cat, int idx)
{
    return idx >= 0 ? nl_catalog_file_at(cat, (size_t)idx)->path : NULL;
}

nl_model_ref *nl_host_load_system(nl_call *call, const nl_catalog *cat, const nl_catalog_rank *rank,
                                  const system_model **out, nl_error *err)
{
    system_profile_paths paths = {.trace_info = path_of(cat, rank->trace_info_pb), .ntrace = path_of(cat, rank->ntrace_pb),
                                .cpu_util = path_of(cat, rank->cpu_util_pb), .host_mem = path_of(cat, rank->host_mem_pb)};
    nl_model_ref *ref = nl_memo_system_model(call, &paths, err);
    *out = ref ? nl_model_ref_system(ref) : NULL;
    return ref;
}

nl_model_ref *nl_host_load_framework(nl_call *call, const nl_catalog_file *trace, const framework_model **out,
                                     nl_error *err)
{
    nl_model_ref *ref = nl_memo_framework_model(call, trace->path, err);
    *out = ref ? nl_model_ref_framework(ref) : NULL;
    return ref;
}

json_t *nl_host_profile_label(const nl_host_selection *sel)
{
    const nl_catalog_rank *r = sel->rank;
    json_t *o = json_pack("{s:s, s:s, s:n}", "id", sel->id, "kind", sel->kind == NL_HOST_SYSTEM ? "system" : "framework",
                          "core");
    json_object_set_new(o, "rank", r ? json_string(r->id) : json_null());
    if (r && sel->kind == NL_HOST_SYSTEM)
        json_object_set_new(o, "process", json_pack("{s:s, s:I}", "instance", r->instance ? r->instance : "", "pid",
                                                    (json_int_t)r->pid));
    if (r)
        json_object_set_new(o, "dir", json_string(r->dir));
    return o;
}

void nl_host_quality_system(const system_model *m, json_t *arr)
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

void nl_host_quality_framework(const framework_model *m, json_t *arr)
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
