/* trace_extract_host — see trace_extract_host.h.
 *
 * Arguments are checked before anything is read: the filters a host kind does not have (source, layer,
 * min_wait_ns) and sort wait are argument errors that list what the kind accepts; the window, page size
 * and column names are checked as for the device kinds. The profile is then selected (host_select: id
 * "rank<N>/system" or the trace's path), its model read, the cursor checked against the query it was
 * issued for, and analyzers/analyses/host_extract chooses the page from the row order of the sort memoized
 * with the model (memo.h), or with a bounded heap when the memo cannot be had (same page). The timeline
 * counts are memoized too: at 1.8M framework events a warm call took ~40 ms, two full passes (counts, then
 * ranking every row). Rows are added while the result stays within the byte budget (page.h), as
 * trace_extract.c does.
 *
 * Times are unix ns on the host clock in both kinds (filters and rows alike), so rows of the two kinds —
 * and of a capture's two traces — line up without conversion; `timeline` gives the first and last time of
 * the table to aim a window at. Cursor: "te<fingerprint>.<row>", the fingerprint covering kind, sort,
 * filters, profile id and the table's row count. */
#include "tool_common.h"
#include "host_extract.h"
#include "memo.h"
#include "page.h"
#include "shape.h"
#include "trace_extract_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TH_CURSOR_PREFIX "te"
#define TH_CURSOR_MAX 64
#define TH_FILTERS_ACCEPTED "engine, opcode (a glob on the event name), start_ns / end_ns (unix ns) and min_duration_ns"

typedef enum th_kind { TH_SYSTEM, TH_FRAMEWORK } th_kind;

typedef struct th_args {
    th_kind kind;
    host_extract_kind hkind;
    host_extract_request req;
    int columns[EXTRACT_COLUMNS_MAX];
    size_t ncols;
    const char *cursor;
    size_t budget;
} th_args;

bool nl_trace_extract_is_host_kind(const char *kind)
{
    return kind && (!strcmp(kind, "system") || !strcmp(kind, "framework"));
}

static bool th_int(const json_t *args, const char *key, int64_t *out)
{
    json_t *v = json_object_get(args, key);
    if (!json_is_integer(v))
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

static int th_parse_columns(const json_t *args, th_args *a, nl_tool_result *res)
{
    size_t n;
    const extract_column *cols = host_extract_columns(a->hkind, &n);
    json_t *list = json_object_get(args, "columns");
    if (!list || !json_array_size(list)) {
        for (size_t i = 0; i < n && a->ncols < EXTRACT_COLUMNS_MAX; i++)
            if (cols[i].is_default)
                a->columns[a->ncols++] = (int)i;
        return 0;
    }
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) {
        int c = host_extract_column_find(a->hkind, json_string_value(v));
        if (c >= 0 && a->ncols < EXTRACT_COLUMNS_MAX) {
            a->columns[a->ncols++] = c;
            continue;
        }
        char names[1024] = "";
        for (size_t k = 0, used = 0; k < n && used < sizeof names; k++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", cols[k].name);
        return nl_tool_result_error(res, "Invalid argument columns: '%s' is not a column of kind %s. Accepted: %s.",
                                    json_string_value(v), host_extract_kind_name(a->hkind), names), -1;
    }
    return 0;
}

static int th_parse(const json_t *args, nl_call *call, const char *kind, th_args *a, nl_tool_result *res)
{
    memset(a, 0, sizeof *a);
    a->kind = !strcmp(kind, "system") ? TH_SYSTEM : TH_FRAMEWORK;
    a->hkind = a->kind == TH_SYSTEM ? HOST_EXTRACT_SYSTEM : HOST_EXTRACT_FRAMEWORK;
    static const char *const foreign[] = {"source", "layer", "min_wait_ns"};
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
        if (json_object_get(args, foreign[i]))
            return nl_tool_result_error(res, "Invalid argument %s: it does not apply to kind %s (it filters device "
                                        "instructions). Kind %s accepts " TH_FILTERS_ACCEPTED ".", foreign[i], kind, kind), -1;
    const char *sort = json_string_value(json_object_get(args, "sort"));
    if (sort && host_extract_sort_parse(sort, &a->req.sort))
        return nl_tool_result_error(res, "Invalid argument sort: '%s' is not available for kind %s; accepted: time, "
                                    "duration, bytes.", sort, kind), -1;
    host_extract_filter *f = &a->req.filter;
    f->engine = json_string_value(json_object_get(args, "engine"));
    f->name_glob = json_string_value(json_object_get(args, "opcode"));
    f->has_start = th_int(args, "start_ns", &f->start_ns);
    f->has_end = th_int(args, "end_ns", &f->end_ns);
    th_int(args, "min_duration_ns", &f->min_duration_ns);
    if (f->has_start && f->has_end && f->end_ns < f->start_ns)
        return nl_tool_result_error(res, "Invalid argument end_ns: %lld is before start_ns %lld. For kind %s the window "
                                    "is [start_ns, end_ns) in unix ns (see timeline in a result); pass end_ns >= "
                                    "start_ns.", (long long)f->end_ns, (long long)f->start_ns, kind), -1;
    int64_t max_rows = PAGE_ROWS_DEFAULT;
    th_int(args, "max_rows", &max_rows);
    if (max_rows < 1 || max_rows > EXTRACT_LIMIT_MAX)
        return nl_tool_result_error(res, "Invalid argument max_rows: %lld; accepted 1..%u.", (long long)max_rows,
                                    EXTRACT_LIMIT_MAX), -1;
    a->req.limit = (size_t)max_rows;
    a->cursor = json_string_value(json_object_get(args, "cursor"));
    a->budget = page_budget(args, call);
    return th_parse_columns(args, a, res);
}

static void th_cursor_tag(const th_args *a, const char *profile_id, size_t rows, char *tag, size_t cap)
{
    const host_extract_filter *f = &a->req.filter;
    char text[2048];
    snprintf(text, sizeof text, "%s|%s|%s|%s|%d:%lld|%d:%lld|%lld|%s|%zu", host_extract_kind_name(a->hkind),
             host_extract_sort_name(a->req.sort), f->engine ? f->engine : "", f->name_glob ? f->name_glob : "",
             f->has_start, (long long)f->start_ns, f->has_end, (long long)f->end_ns, (long long)f->min_duration_ns,
             profile_id, rows);
    page_cursor_tag(tag, cap, TH_CURSOR_PREFIX, page_fingerprint(text));
}

static json_t *th_cell_json(const extract_cell *c)
{
    char buf[32];
    switch (c->kind) {
    case EXTRACT_CELL_INT: return json_integer(c->i);
    case EXTRACT_CELL_UINT: return json_integer(c->u > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)c->u);
    case EXTRACT_CELL_ID: snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->u); return json_string(buf);
    case EXTRACT_CELL_STR: return page_string(c->s);
    case EXTRACT_CELL_BOOL: return json_boolean(c->i);
    default: return json_null();
    }
}

static json_t *th_row(const host_extract_source *src, const th_args *a, size_t row)
{
    json_t *arr = json_array();
    char scratch[HOST_EXTRACT_SCRATCH];
    for (size_t c = 0; c < a->ncols; c++) {
        extract_cell cell;
        host_extract_cell_get(src, a->columns[c], row, scratch, &cell);
        json_array_append_new(arr, th_cell_json(&cell));
    }
    return arr;
}

static json_t *th_filters_json(const host_extract_filter *f)
{
    json_t *o = json_object();
    if (f->engine) json_object_set_new(o, "engine", page_string(f->engine));
    if (f->name_glob) json_object_set_new(o, "opcode", page_string(f->name_glob));
    if (f->has_start) json_object_set_new(o, "start_ns", json_integer(f->start_ns));
    if (f->has_end) json_object_set_new(o, "end_ns", json_integer(f->end_ns));
    if (f->min_duration_ns) json_object_set_new(o, "min_duration_ns", json_integer(f->min_duration_ns));
    return o;
}

static json_t *th_units(th_kind kind)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "time", kind == TH_SYSTEM
                         ? "unix ns on the host CPU clock (ntrace.pb f2; device events already shifted to CPU time by "
                           "the per-core timestamp_sync_point); start_ns/end_ns filters use the same clock"
                         : "unix ns on the host clock: baseTimeNanoseconds + ts (ts in µs converted exactly; unix µs "
                           "when the trace has no base); start_ns/end_ns filters use the same clock",
                     "bytes", "B", "id", "decimal string (64-bit ids exceed 2^53)",
                     "opcode", kind == TH_SYSTEM ? "glob on the event type name" : "glob on the event name",
                     "rows", "arrays, one value per name in columns; null = absent");
}

static json_t *th_columns_json(const th_args *a)
{
    size_t n;
    const extract_column *cols = host_extract_columns(a->hkind, &n);
    json_t *arr = json_array();
    for (size_t c = 0; c < a->ncols; c++)
        json_array_append_new(arr, json_string(cols[a->columns[c]].name));
    return arr;
}

static json_t *th_provenance(const nl_select *sel, const host_extract_source *src)
{
    json_t *p = json_pack("{s:s}", "root", nl_catalog_root(sel->cat));
    json_t *files = json_object();
    if (sel->profile->kind == NL_PROFILE_SYSTEM) {
        const nl_catalog_rank *r = nl_catalog_rank_at(sel->cat, (size_t)sel->profile->rank);
        const int idx[] = {r->trace_info_pb, r->ntrace_pb, r->cpu_util_pb, r->host_mem_pb};
        for (int f = 0; f < SM_FILE_COUNT; f++)
            if (idx[f] >= 0)
                json_object_set_new(files, system_file_name((system_file)f),
                                    json_string(nl_catalog_file_at(sel->cat, (size_t)idx[f])->rel_path));
        json_object_set_new(p, "reader", json_string("neuronlens protobuf-c system-profile reader (proto/)"));
    } else {
        int64_t base;
        json_object_set_new(files, "trace", json_string(nl_catalog_file_at(sel->cat, (size_t)sel->profile->file)->rel_path));
        json_object_set_new(p, "gzipped", json_boolean(framework_model_gzipped(src->fw)));
        json_object_set_new(p, "time_base", framework_model_time_base(src->fw, &base)
                                                ? json_pack("{s:s, s:I}", "basis", "baseTimeNanoseconds", "base_ns", (json_int_t)base)
                                                : json_pack("{s:s}", "basis", "ts is unix µs (no baseTimeNanoseconds)"));
        json_object_set_new(p, "reader", json_string("neuronlens streaming Kineto reader (no DOM)"));
    }
    json_object_set_new(p, "files", files);
    return p;
}

/* Why nothing matched: the table is empty, or what each filter matches on its own. */
static void th_empty_reason(nl_call *call, const host_extract_source *src, const th_args *a,
                            const host_extract_counts *k, char *buf, size_t cap)
{
    int64_t counts[HOST_EXTRACT_FILTER_COUNT];
    nl_error err;
    if (!k->eligible) {
        snprintf(buf, cap, "the profile has no %s rows", host_extract_kind_name(a->hkind));
        return;
    }
    if (host_extract_explain(src, &a->req, call->cancel, counts, &err)) {
        snprintf(buf, cap, "no row matches the filters");
        return;
    }
    size_t used = (size_t)snprintf(buf, cap, "none of the %llu %s rows matches all filters; on its own",
                                   (unsigned long long)k->eligible, host_extract_kind_name(a->hkind));
    for (int f = 0; f < HOST_EXTRACT_FILTER_COUNT && used < cap; f++)
        if (counts[f] >= 0)
            used += (size_t)snprintf(buf + used, cap - used, " %s matches %lld,", host_extract_filter_names[f],
                                     (long long)counts[f]);
    if (used < cap && used > 0 && buf[used - 1] == ',')
        buf[used - 1] = '\0';
    if (a->req.filter.has_start || a->req.filter.has_end)
        snprintf(buf + strlen(buf), cap - strlen(buf), " (window in unix ns; the rows span %lld .. %lld)",
                 (long long)k->first_ns, (long long)k->last_ns);
}

typedef struct th_fill_ctx {
    const host_extract_source *src;
    const th_args *a;
    const extract_page *pg;
} th_fill_ctx;

static json_t *th_page_row(void *ctx, size_t i)
{
    const th_fill_ctx *c = ctx;
    return th_row(c->src, c->a, c->pg->rows[i]);
}

/* Add rows while they fit; *first_size = size of the first row when none fits. */
static size_t th_fill(const host_extract_source *src, const th_args *a, const extract_page *pg, page_meter *pm, json_t *rows,
                      size_t *first_size)
{
    th_fill_ctx c = {src, a, pg};
    return page_meter_fill(pm, rows, pg->count, th_page_row, &c, first_size);
}

static void th_text(json_t *out, nl_tool_result *res)
{
    char buf[PAGE_TEXT_MAX];
    const char *id = json_string_value(json_object_get(json_object_get(out, "profile"), "id"));
    const char *reason = json_string_value(json_object_get(out, "empty_reason"));
    char idc[160];
    snprintf(idc, sizeof idc, "%.150s", id ? id : "?");
    snprintf(buf, sizeof buf, "trace-extract %s: %s rows, %lld shown of %lld matching (sort %s; times unix ns)%s%s%.200s",
             idc, json_string_value(json_object_get(out, "kind")),
             (long long)json_integer_value(json_object_get(out, "shown")),
             (long long)json_integer_value(json_object_get(out, "total")), json_string_value(json_object_get(out, "sort")),
             json_is_true(json_object_get(out, "truncated")) ? "; more with next_cursor" : "",
             reason ? ": " : ". Rows in structuredContent.", reason ? reason : "");
    res->text = strdup(buf);
}

/* Cursor, page, rows under the budget. 0, or -1 with res set. */
static int th_page(nl_call *call, const nl_select *sel, nl_model_ref *model, const host_extract_source *src,
                   th_args *a, const host_extract_counts *k, json_t *out, nl_tool_result *res)
{
    char tag[40], cursor[TH_CURSOR_MAX];
    th_cursor_tag(a, sel->profile->id, k->rows, tag, sizeof tag);
    if (a->cursor) {
        size_t row;
        if (shape_cursor_parse(a->cursor, tag, &row))
            return nl_tool_result_error(res, "Invalid argument cursor: '%.80s' is not a next_cursor issued for this "
                                        "query. Pass the next_cursor of the previous trace-extract page with the same "
                                        "path, profile, kind, filters and sort (max_rows and columns may change), or "
                                        "omit cursor to start from the first row.", a->cursor), -1;
        a->req.has_after = true;
        a->req.after_row = row;
    }
    extract_page pg;
    nl_error err;
    nl_error_clear(&err);
    a->req.order = nl_memo_host_extract_order(call, model, src, a->req.sort, &err); /* NULL: host_extract ranks */
    nl_error_clear(&err);
    if (host_extract_run(src, &a->req, call->cancel, &pg, &err)) {
        char engines[512] = "";
        if (!strcmp(err.field, "engine"))
            host_extract_engines(src, engines, sizeof engines);
        if (err.code != NL_ERR_ARGUMENT)
            return nl_tool_result_error(res, "trace-extract failed: %s (%s)", err.message, nl_error_code_name(err.code)), -1;
        return nl_tool_result_error(res, "Invalid argument %s: %s.%s%s%s", err.field, err.message,
                                    engines[0] ? " Accepted engines (case-insensitive): " : "", engines,
                                    engines[0] && a->kind == TH_FRAMEWORK
                                        ? ", or a pid, tid, process or thread name as written" : ""), -1;
    }
    shape_cursor_make(cursor, sizeof cursor, tag, SIZE_MAX);
    json_t *rows = json_array();
    json_object_set_new(out, "rows", rows);
    json_object_set_new(out, "total", json_integer((json_int_t)pg.total));
    json_object_set_new(out, "shown", json_integer(EXTRACT_LIMIT_MAX));
    json_object_set_new(out, "truncated", json_false());
    json_object_set_new(out, "truncated_by", json_string("max_bytes"));
    json_object_set_new(out, "next_cursor", json_string(cursor)); /* placeholder of the longest size */
    page_meter pm;
    page_meter_init(&pm, a->budget, out);
    if (pm.used > a->budget) {
        extract_page_free(&pg);
        return nl_tool_result_error(res, "The result without rows already needs %zu bytes, over max_bytes %zu; raise "
                                    "max_bytes to at least %zu.", pm.used, a->budget, pm.used + 256), -1;
    }
    size_t first = 0, shown = th_fill(src, a, &pg, &pm, rows, &first);
    if (!shown && pg.count) {
        extract_page_free(&pg);
        return nl_tool_result_error(res, "Not even one row fits the byte budget: the first row takes %zu bytes and %zu of "
                                    "max_bytes %zu are used by the rest of the result. Request fewer or narrower columns "
                                    "(columns), or raise max_bytes (at most 24576).", first, pm.used, a->budget), -1;
    }
    bool truncated = shown < pg.after_cursor;
    json_object_set_new(out, "shown", json_integer((json_int_t)shown));
    json_object_set_new(out, "truncated", json_boolean(truncated));
    json_object_set_new(out, "truncated_by", truncated ? json_string(shown < pg.count ? "max_bytes" : "max_rows") : json_null());
    if (truncated)
        shape_cursor_make(cursor, sizeof cursor, tag, pg.rows[shown - 1]);
    json_object_set_new(out, "next_cursor", truncated ? json_string(cursor) : json_null());
    if (!pg.total) {
        char reason[768];
        th_empty_reason(call, src, a, k, reason, sizeof reason);
        json_object_set_new(out, "empty_reason", json_string(reason));
    } else if (!pg.after_cursor) {
        json_object_set_new(out, "empty_reason", json_string("the cursor is past the last matching row"));
    }
    extract_page_free(&pg);
    return 0;
}

static json_t *th_timeline(const host_extract_counts *k, th_kind kind)
{
    json_t *o = json_pack("{s:I}", "rows", (json_int_t)k->eligible);
    json_object_set_new(o, "first_ns", k->has_range ? json_integer(k->first_ns) : json_null());
    json_object_set_new(o, "last_ns", k->has_range ? json_integer(k->last_ns) : json_null());
    if (kind == TH_FRAMEWORK)
        json_object_set_new(o, "left_out", json_pack("{s:I, s:I}", "metadata_events", (json_int_t)k->metadata,
                                                     "events_without_ts", (json_int_t)k->untimed));
    return o;
}

int nl_trace_extract_host(const json_t *args, nl_call *call, const char *kind, nl_select *sel, nl_tool_result *res)
{
    th_args a;
    if (th_parse(args, call, kind, &a, res) || nl_select_load(call, sel, res))
        return 0;
    nl_model_ref *model = sel->model;
    host_extract_source src = {.kind = a.hkind, .sys = nl_model_ref_system(model), .fw = nl_model_ref_framework(model)};
    const system_model *sm = src.sys;
    const framework_model *fm = src.fw;
    nl_error err;
    nl_error_clear(&err);
    host_extract_counts k;
    const host_extract_counts *memo_k = nl_memo_host_extract_counts(call, model, &src, &err);
    if (memo_k)
        k = *memo_k;
    else
        host_extract_count(&src, &k);
    json_t *out = json_object();
    json_object_set_new(out, "profile", nl_select_label(sel));
    json_object_set_new(out, "units", th_units(a.kind));
    json_object_set_new(out, "provenance", th_provenance(sel, &src));
    json_t *dq = json_array();
    if (sm)
        nl_select_quality_system(sm, dq);
    else
        nl_select_quality_framework(fm, dq);
    json_object_set_new(out, "data_quality", dq);
    json_object_set_new(out, "kind", json_string(host_extract_kind_name(a.hkind)));
    json_object_set_new(out, "sort", json_string(host_extract_sort_name(a.req.sort)));
    json_object_set_new(out, "filters", th_filters_json(&a.req.filter));
    json_object_set_new(out, "timeline", th_timeline(&k, a.kind));
    json_object_set_new(out, "status", json_string("complete"));
    json_object_set_new(out, "columns", th_columns_json(&a));
    int rc = th_page(call, sel, model, &src, &a, &k, out, res);
    if (rc == 0) {
        th_text(out, res);
        size_t size;
        if (!page_fits(out, res->text, a.budget, &size)) {
            nl_tool_result_clear(res);
            nl_tool_result_error(res, "The result needs %zu bytes even without rows, over max_bytes %zu; raise "
                                 "max_bytes (at most 24576).", size, a.budget);
            json_decref(out);
        } else {
            res->structured = out;
        }
    } else {
        json_decref(out);
    }
    return 0;
}
