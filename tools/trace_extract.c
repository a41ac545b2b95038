/* trace-extract — MCP tool: a filtered, windowed, sorted, projected page of one profile's timeline, for every
 * kind of rows: instruction, dma and semaphore of a device profile, the spans of a system profile (kind
 * system), the events of a PyTorch/Kineto trace (kind framework), the allocator trace of a PyTorch memory
 * snapshot (kind memory), the collective operations of a neuron-explorer profile (kind collective, its CcOp
 * table). Kind collective on a profile without that table is an honest not_available: the full JSON export
 * has no collective-operation rows.
 *
 * One path for every kind: the profile is selected through select.h (the kind's family narrows the choice;
 * without a kind the profile's own kind is used), the arguments are parsed once and checked against the
 * kind's adapter (analyzers/analyses/timeline.h, timeline_kinds.h) before any model is read, the model is
 * loaded (warm from the model cache), the cursor is checked against the query it was issued for, and the
 * timeline engine chooses the page from the row order of (kind, sort) memoized with the model (memo.h:
 * built on the first call; a warm page is then a slice of it instead of a ranking of
 * every row). When the memo cannot be had, the engine ranks the rows itself: same page either way. Filters
 * are applied per call on top of the order. Rows are added to the result one at a time while its serialized
 * size stays within the byte budget (page.h); a page that cannot hold even one row is an error saying how to
 * narrow the request. What differs by model is only the envelope (device: export versions and caveats of
 * the kind; system and framework: the files read, the time base, the reader's notes) and, for kinds whose
 * times are unix ns, a `timeline` block (row count, first and last time, rows left out) to aim a window at.
 *
 * Cursor: "te<fingerprint>.<row>" — the fingerprint covers kind, sort, the filters the model's kinds have,
 * profile and the table's row count, so a cursor only resumes the query that issued it; page size and
 * columns may change between pages. Rows are arrays in the order of `columns`. */
#include "tool_common.h"
#include "memo.h"
#include "page.h"
#include "select.h"
#include "shape.h"
#include "timeline_kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TE_CURSOR_PREFIX "te"
#define TE_CURSOR_MAX 64
#define TE_KINDS_ACCEPTED "instruction, dma, collective, semaphore, system, framework, memory"

/* Every kind: the family of profiles it reads and its adapter (none for collective). */
static const struct te_kind {
    const char *name;
    const char *family;
    const timeline_adapter *adapter;
} te_kinds[] = {
    {"instruction", "device", &timeline_instruction}, {"dma", "device", &timeline_dma},
    {"collective", "device", &timeline_collective}, {"semaphore", "device", &timeline_semaphore},
    {"system", "system", &timeline_system}, {"framework", "framework", &timeline_framework},
    {"memory", "memory", &timeline_memory},
};

static const struct te_kind *te_kind_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof te_kinds / sizeof te_kinds[0]; i++)
        if (!strcmp(te_kinds[i].name, name))
            return &te_kinds[i];
    return NULL;
}

typedef struct te_args {
    const struct te_kind *kind;
    timeline_request req;
    int columns[TIMELINE_COLUMNS_MAX];
    size_t ncols;
    const char *cursor;
    size_t budget;
    bool engine_error;         /* err: a bad engine value, reported once the model can list what it accepts */
    nl_error err;
} te_args;

/* ---- arguments ---------------------------------------------------------------------------------------- */

static const char *te_str(const json_t *args, const char *key)
{
    return json_string_value(json_object_get(args, key));
}

static bool te_int(const json_t *args, const char *key, int64_t *out)
{
    json_t *v = json_object_get(args, key);
    if (!json_is_integer(v))
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

static int te_parse_columns(const json_t *args, te_args *a, nl_tool_result *res)
{
    const timeline_adapter *ad = a->kind->adapter;
    json_t *list = json_object_get(args, "columns");
    if (!list || !json_array_size(list)) {
        for (size_t i = 0; i < ad->ncolumns && a->ncols < TIMELINE_COLUMNS_MAX; i++)
            if (ad->columns[i].is_default)
                a->columns[a->ncols++] = (int)i;
        return 0;
    }
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) {
        int c = timeline_column_find(ad, json_string_value(v));
        if (c >= 0 && a->ncols < TIMELINE_COLUMNS_MAX) {
            a->columns[a->ncols++] = c;
            continue;
        }
        char names[1024] = "";
        for (size_t k = 0, used = 0; k < ad->ncolumns && used < sizeof names; k++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", ad->columns[k].name);
        return nl_tool_result_error(res, "Invalid argument columns: '%s' is not a column of kind %s. Accepted: %s.",
                                    json_string_value(v), ad->kind, names), -1;
    }
    return 0;
}

/* Every argument, checked against the kind before a model is read, except that an engine value the kind
 * takes is reported after the model is read, with the values the profile accepts. */
static int te_parse(const json_t *args, nl_call *call, const struct te_kind *kind, te_args *a, nl_tool_result *res)
{
    memset(a, 0, sizeof *a);
    a->kind = kind;
    const char *sort = te_str(args, "sort");
    if (sort && timeline_sort_parse(sort, &a->req.sort))
        return nl_tool_result_error(res, "Invalid argument sort: '%s'; accepted: time, duration, wait, bytes.", sort), -1;
    timeline_filter *f = &a->req.filter;
    f->engine = te_str(args, "engine");
    f->opcode_glob = te_str(args, "opcode");
    f->source = te_str(args, "source");
    f->layer = te_str(args, "layer");
    f->has_start = te_int(args, "start_ns", &f->start_ns);
    f->has_end = te_int(args, "end_ns", &f->end_ns);
    te_int(args, "min_duration_ns", &f->min_duration_ns);
    te_int(args, "min_wait_ns", &f->min_wait_ns);
    te_int(args, "min_bytes", &f->min_bytes);
    int64_t max_rows = PAGE_ROWS_DEFAULT;
    te_int(args, "max_rows", &max_rows);
    a->req.limit = max_rows < 0 ? 0 : (size_t)max_rows;
    a->cursor = te_str(args, "cursor");
    a->budget = page_budget(args, call);
    nl_error_clear(&a->err);
    if (timeline_check(kind->adapter, &a->req, &a->err)) {
        a->engine_error = !strcmp(a->err.field, "engine") &&
                          (kind->adapter->filters & (1u << TIMELINE_F_ENGINE));
        if (!a->engine_error)
            return nl_tool_result_error(res, "Invalid argument %s: %s.", a->err.field, a->err.message), -1;
    }
    return te_parse_columns(args, a, res);
}

/* ---- selection ---------------------------------------------------------------------------------------- */

/* The profile a call is about and the kind of rows it asks for. With `kind`, only profiles of that kind's
 * family are considered; without, the profile decides and its own kind is used (instruction for a device
 * profile). NULL after filling res. */
static const struct te_kind *te_select(const json_t *args, nl_call *call, nl_select *sel, nl_tool_result *res)
{
    const char *name = te_str(args, "kind");
    if (!name) {
        if (nl_select_profile(call, args, NL_ANALYSIS_TRACE_EXTRACT, sel, res))
            return NULL;
        nl_profile_kind k = sel->profile->kind;
        bool own_kind = k == NL_PROFILE_SYSTEM || k == NL_PROFILE_FRAMEWORK || k == NL_PROFILE_MEMORY;
        return te_kind_find(own_kind ? nl_profile_kind_family(k) : "instruction");
    }
    const struct te_kind *kind = te_kind_find(name);
    if (!kind) {
        memset(sel, 0, sizeof *sel);
        return nl_tool_result_error(res, "Invalid argument kind: '%s'; accepted: " TE_KINDS_ACCEPTED ".", name), NULL;
    }
    char because[64];
    snprintf(because, sizeof because, "kind %s", name);
    return nl_select_family(call, args, NL_ANALYSIS_TRACE_EXTRACT, kind->family, because, sel, res) ? NULL : kind;
}

/* The adapter of the call's kind paired with the selection's model (a device model from an export, an NTFF
 * or Parquet tables alike). */
static timeline_source te_source(const te_args *a, const nl_select *sel)
{
    timeline_source src = {a->kind->adapter, NULL};
    const nl_model_ref *m = sel->model;
    src.model = nl_model_ref_device(m) ? (const void *)nl_model_ref_device(m)
              : nl_model_ref_system(m) ? (const void *)nl_model_ref_system(m)
              : nl_model_ref_framework(m) ? (const void *)nl_model_ref_framework(m)
                                          : (const void *)nl_model_ref_memory(m);
    return src;
}

/* ---- the result's parts ------------------------------------------------------------------------------- */

static json_t *te_units(const timeline_adapter *ad)
{
    json_t *u = json_pack("{s:s, s:s, s:s}", "time", ad->units_time, "bytes", "B", "id",
                          "decimal string (64-bit ids exceed 2^53)");
    if (ad->units_opcode)
        json_object_set_new(u, "opcode", json_string(ad->units_opcode));
    json_object_set_new(u, "rows", json_string("arrays, one value per name in columns; null = absent"));
    return u;
}

/* The files a system or framework profile was read from, how its times were based, and by which reader. */
static json_t *te_host_provenance(const nl_select *sel)
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
    } else if (sel->profile->kind == NL_PROFILE_MEMORY) {
        const memory_model_info *info = memory_model_info_of(nl_model_ref_memory(sel->model));
        json_object_set_new(files, "memory_snapshot",
                            json_string(nl_catalog_file_at(sel->cat, (size_t)sel->profile->file)->rel_path));
        json_object_set_new(p, "layout", json_string(memory_layout_name(info->layout)));
        json_object_set_new(p, "history", json_string(memory_history_name(info->history)));
        json_object_set_new(p, "reader", json_string("neuronlens streaming pickle reader (no Python)"));
    } else {
        const framework_model *fw = nl_model_ref_framework(sel->model);
        int64_t base;
        json_object_set_new(files, "trace", json_string(nl_catalog_file_at(sel->cat, (size_t)sel->profile->file)->rel_path));
        json_object_set_new(p, "gzipped", json_boolean(framework_model_gzipped(fw)));
        json_object_set_new(p, "time_base", framework_model_time_base(fw, &base)
                                                ? json_pack("{s:s, s:I}", "basis", "baseTimeNanoseconds", "base_ns", (json_int_t)base)
                                                : json_pack("{s:s}", "basis", "ts is unix µs (no baseTimeNanoseconds)"));
        json_object_set_new(p, "reader", json_string("neuronlens streaming Kineto reader (no DOM)"));
    }
    json_object_set_new(p, "files", files);
    return p;
}

/* What a snapshot's list cannot show: no history, or only the last entry per device. */
static void te_quality_memory(const memory_model *m, json_t *dq)
{
    const memory_model_info *info = memory_model_info_of(m);
    if (info->history == MEMORY_HISTORY_NONE)
        json_array_append_new(dq, shape_quality("warning", "the snapshot kept no allocation history: its trace is "
                                                "empty, only the state at the snapshot is known",
                                                "call torch.cuda.memory._record_memory_history(max_entries=100000) "
                                                "before the run, then dump the snapshot", NULL));
    else if (info->history == MEMORY_HISTORY_STATE)
        json_array_append_new(dq, shape_quality("warning", "the snapshot kept one trace entry per device (history "
                                                "recorded with enabled='state'): the list is not a timeline",
                                                "record with _record_memory_history(enabled='all')", NULL));
}

/* {profile, units, provenance, data_quality}: a device profile's export and its versions (page.h), or a host
 * profile's files and its model's reading problems. */
static json_t *te_envelope(const nl_select *sel, const timeline_adapter *ad)
{
    if (!sel->model || nl_model_ref_device(sel->model))
        return page_envelope(sel, te_units(ad));
    nl_model_kind mk = nl_model_ref_kind(sel->model);
    json_t *out = json_object();
    json_object_set_new(out, "profile", nl_select_label(sel));
    json_object_set_new(out, "units", te_units(ad));
    json_object_set_new(out, "provenance", te_host_provenance(sel));
    json_t *dq = json_array();
    if (mk == NL_MODEL_SYSTEM)
        nl_select_quality_system(nl_model_ref_system(sel->model), dq);
    else if (mk == NL_MODEL_FRAMEWORK)
        nl_select_quality_framework(nl_model_ref_framework(sel->model), dq);
    else if (mk == NL_MODEL_MEMORY)
        te_quality_memory(nl_model_ref_memory(sel->model), dq);
    json_object_set_new(out, "data_quality", dq);
    return out;
}

/* Caveats of the device kinds' values. */
static void te_quality(const timeline_source *src, json_t *dq)
{
    if (src->adapter == &timeline_instruction) {
        page_quality_wait(dq);
        json_array_append_new(dq, shape_quality("info", "duration of EVENT_SEMAPHORE rows is time spent blocked on a "
                                                "semaphore, not work", NULL, NULL));
    }
    if (src->adapter == &timeline_dma)
        page_quality_dma(src->model, 0, 0, dq);
}

static json_t *te_filters_json(const timeline_filter *f)
{
    json_t *o = json_object();
    if (f->engine) json_object_set_new(o, "engine", page_string(f->engine));
    if (f->opcode_glob) json_object_set_new(o, "opcode", page_string(f->opcode_glob));
    if (f->has_start) json_object_set_new(o, "start_ns", json_integer(f->start_ns));
    if (f->has_end) json_object_set_new(o, "end_ns", json_integer(f->end_ns));
    if (f->source) json_object_set_new(o, "source", page_string(f->source));
    if (f->layer) json_object_set_new(o, "layer", page_string(f->layer));
    if (f->min_duration_ns) json_object_set_new(o, "min_duration_ns", json_integer(f->min_duration_ns));
    if (f->min_wait_ns) json_object_set_new(o, "min_wait_ns", json_integer(f->min_wait_ns));
    if (f->min_bytes) json_object_set_new(o, "min_bytes", json_integer(f->min_bytes));
    return o;
}

/* {rows, first_ns, last_ns[, left_out]}: where a unix-ns timeline lies, to aim a window at. */
static json_t *te_timeline(const timeline_adapter *ad, const timeline_counts *k)
{
    json_t *o = json_pack("{s:I}", "rows", (json_int_t)k->eligible);
    json_object_set_new(o, "first_ns", k->has_range ? json_integer(k->first_ns) : json_null());
    json_object_set_new(o, "last_ns", k->has_range ? json_integer(k->last_ns) : json_null());
    if (ad->nleft_out) {
        json_t *left = json_object();
        for (size_t i = 0; i < ad->nleft_out && i < TIMELINE_LEFT_OUT_MAX; i++)
            json_object_set_new(left, ad->left_out_names[i], json_integer((json_int_t)k->left_out[i]));
        json_object_set_new(o, "left_out", left);
    }
    return o;
}

static json_t *te_columns_json(const te_args *a)
{
    json_t *arr = json_array();
    for (size_t c = 0; c < a->ncols; c++)
        json_array_append_new(arr, json_string(a->kind->adapter->columns[a->columns[c]].name));
    return arr;
}

static json_t *te_cell_json(const timeline_cell *c)
{
    char buf[32];
    switch (c->kind) {
    case TIMELINE_CELL_INT: return json_integer(c->i);
    case TIMELINE_CELL_UINT: return json_integer(c->u > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)c->u);
    case TIMELINE_CELL_ID: snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->u); return json_string(buf);
    case TIMELINE_CELL_STR: return page_string(c->s);
    case TIMELINE_CELL_BOOL: return json_boolean(c->i);
    default: return json_null();
    }
}

/* ---- the page ----------------------------------------------------------------------------------------- */

/* The query a cursor belongs to: everything but page size, columns and budget. Filters the adapter does not
 * spell are left out with their separators (an unspelled minimum is 0, and "%.0lld" of 0 writes nothing). */
static void te_cursor_tag(const te_args *a, const char *profile_id, size_t rows, char *tag, size_t cap)
{
    const timeline_filter *f = &a->req.filter;
    unsigned spelled = a->kind->adapter->cursor_filters;
    bool src = spelled & (1u << TIMELINE_F_SOURCE), layer = spelled & (1u << TIMELINE_F_LAYER);
    bool wait = spelled & (1u << TIMELINE_F_MIN_WAIT), bytes = spelled & (1u << TIMELINE_F_MIN_BYTES);
    char text[2048];
    snprintf(text, sizeof text, "%s|%s|%s|%s|%d:%lld|%d:%lld|%s%s%s%s%lld|%.*lld%s%.*lld%s%s|%zu", a->kind->name,
             timeline_sort_name(a->req.sort), f->engine ? f->engine : "", f->opcode_glob ? f->opcode_glob : "",
             f->has_start, (long long)f->start_ns, f->has_end, (long long)f->end_ns, src && f->source ? f->source : "",
             src ? "|" : "", layer && f->layer ? f->layer : "", layer ? "|" : "", (long long)f->min_duration_ns,
             wait ? 1 : 0, wait ? (long long)f->min_wait_ns : 0LL, wait ? "|" : "", bytes ? 1 : 0,
             bytes ? (long long)f->min_bytes : 0LL, bytes ? "|" : "", profile_id, rows);
    page_cursor_tag(tag, cap, TE_CURSOR_PREFIX, page_fingerprint(text));
}

/* Why nothing matched: the table is empty, or what each filter matches on its own. */
static void te_empty_reason(nl_call *call, const timeline_source *src, const te_args *a, const timeline_counts *k,
                            char *buf, size_t cap)
{
    const timeline_adapter *ad = src->adapter;
    int64_t counts[TIMELINE_FILTER_COUNT];
    nl_error err;
    if (!k->eligible) {
        snprintf(buf, cap, "the profile has no %s rows", ad->kind);
        return;
    }
    if (timeline_explain(src, &a->req, call->cancel, counts, &err)) {
        snprintf(buf, cap, "no row matches the filters");
        return;
    }
    size_t used = (size_t)snprintf(buf, cap, "none of the %llu %s rows matches all filters; on its own",
                                   (unsigned long long)k->eligible, ad->kind);
    for (int f = 0; f < TIMELINE_FILTER_COUNT && used < cap; f++)
        if (counts[f] >= 0)
            used += (size_t)snprintf(buf + used, cap - used, " %s matches %lld,", timeline_filter_names[f],
                                     (long long)counts[f]);
    if (used < cap && used > 0 && buf[used - 1] == ',')
        buf[used - 1] = '\0';
    const char *hint = ad->empty_hint ? ad->empty_hint(src, &a->req.filter) : NULL;
    if (hint)
        snprintf(buf + strlen(buf), cap - strlen(buf), " (%s)", hint);
    if (ad->unix_time && (a->req.filter.has_start || a->req.filter.has_end))
        snprintf(buf + strlen(buf), cap - strlen(buf), " (window in unix ns; the rows span %lld .. %lld)",
                 (long long)k->first_ns, (long long)k->last_ns);
}

typedef struct te_fill_ctx {
    const timeline_source *src;
    const te_args *a;
    const timeline_page *pg;
} te_fill_ctx;

static json_t *te_page_row(void *ctx, size_t i)
{
    const te_fill_ctx *c = ctx;
    json_t *arr = json_array();
    char scratch[TIMELINE_SCRATCH];
    for (size_t col = 0; col < c->a->ncols; col++) {
        timeline_cell cell;
        timeline_cell_get(c->src, c->a->columns[col], c->pg->rows[i], scratch, &cell);
        json_array_append_new(arr, te_cell_json(&cell));
    }
    return arr;
}

/* An error of the run, an engine error with the values the model accepts (none without a model). */
static int te_run_error(const timeline_source *src, const nl_error *err, nl_tool_result *res)
{
    char engines[512] = "";
    if (err->code != NL_ERR_ARGUMENT)
        return nl_tool_result_error(res, "trace-extract failed: %s (%s)", err->message, nl_error_code_name(err->code));
    if (!strcmp(err->field, "engine") && src->model)
        src->adapter->engines(src, engines, sizeof engines);
    return nl_tool_result_error(res, "Invalid argument %s: %s.%s%s%s", err->field, err->message,
                                engines[0] ? " Accepted engines (case-insensitive): " : "", engines,
                                engines[0] ? src->adapter->engines_note : "");
}

/* Cursor, page, rows under the budget. 0, or -1 with res set. */
static int te_page(nl_call *call, const nl_select *sel, const timeline_source *src, te_args *a,
                   const timeline_counts *k, json_t *out, nl_tool_result *res)
{
    char tag[40], cursor[TE_CURSOR_MAX];
    te_cursor_tag(a, sel->profile->id, k->rows, tag, sizeof tag);
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
    timeline_page pg;
    nl_error err;
    nl_error_clear(&err);
    a->req.order = nl_memo_timeline_order(call, sel->model, src, a->req.sort, &err); /* NULL: the engine ranks */
    nl_error_clear(&err);
    if (timeline_run(src, &a->req, call->cancel, &pg, &err))
        return te_run_error(src, &err, res), -1;
    shape_cursor_make(cursor, sizeof cursor, tag, SIZE_MAX);
    json_t *rows = json_array();
    json_object_set_new(out, "rows", rows);
    json_object_set_new(out, "total", json_integer((json_int_t)pg.total));
    json_object_set_new(out, "shown", json_integer(TIMELINE_LIMIT_MAX));
    json_object_set_new(out, "truncated", json_false());
    json_object_set_new(out, "truncated_by", json_string("max_bytes"));
    json_object_set_new(out, "next_cursor", json_string(cursor)); /* placeholder of the longest size */
    page_meter pm;
    page_meter_init(&pm, a->budget, out);
    if (pm.used > a->budget) {
        timeline_page_free(&pg);
        return nl_tool_result_error(res, "The result without rows already needs %zu bytes (profile, provenance, "
                                    "data_quality and %u bytes kept for the text), over max_bytes %zu; raise max_bytes "
                                    "to at least %zu.", pm.used, PAGE_TEXT_MAX + PAGE_WRAPPER_BYTES, a->budget,
                                    pm.used + 256), -1;
    }
    te_fill_ctx fc = {src, a, &pg};
    size_t first = 0, shown = page_meter_fill(&pm, rows, pg.count, te_page_row, &fc, &first);
    if (!shown && pg.count) {
        timeline_page_free(&pg);
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
        te_empty_reason(call, src, a, k, reason, sizeof reason);
        json_object_set_new(out, "empty_reason", json_string(reason));
    } else if (!pg.after_cursor) {
        json_object_set_new(out, "empty_reason", json_string("the cursor is past the last matching row"));
    }
    timeline_page_free(&pg);
    return 0;
}

/* What the table holds (timeline.h): counted once per model and kind when the kind shows a `timeline` or
 * leaves rows out, else every table row is a timeline row. */
static void te_counts(nl_call *call, const nl_select *sel, const timeline_source *src, timeline_counts *k)
{
    nl_error err;
    nl_error_clear(&err);
    memset(k, 0, sizeof *k);
    if (src->adapter->unix_time || src->adapter->nleft_out) {
        const timeline_counts *memo = nl_memo_timeline_counts(call, sel->model, src, &err);
        if (memo) {
            *k = *memo;
            return;
        }
        if (!timeline_count(src, call->cancel, k, &err))
            return;
    }
    k->rows = src->adapter->rows(src);
    k->eligible = k->rows;
}

/* Whether the device model has collective-operation rows (a neuron-explorer profile's CcOp table). */
static bool te_has_collectives(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_CC_OPS);
    return t && table_rows(t) > 0;
}

/* kind collective without CcOp rows: the full JSON export (and a decoded NTFF) has no collective-operation
 * rows; say what is there instead. */
static void te_collective(const device_model *m, json_t *out)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_DMA);
    uint64_t cc = 0;
    for (size_t r = 0; t && r < table_rows(t); r++)
        cc += (table_u64(t, DM_DMA_FLAGS, r) & DM_DMA_F_CC) != 0;
    char reason[320];
    snprintf(reason, sizeof reason, "not available in this export kind: the full JSON export (neuron-profile view "
             "--output-format json) has no collective-operation rows; %llu DMA records here are collective DMAs "
             "(kind dma, column cc)", (unsigned long long)cc);
    json_object_set_new(out, "status", json_string("not_available"));
    json_object_set_new(out, "abstained", json_pack("{s:s, s:s}", "reason", reason, "fix",
        "Use collective-gaps (show-session --show-trace), or a neuron-explorer Parquet export (CcOp table)."));
    json_object_set_new(out, "columns", json_array());
    json_object_set_new(out, "rows", json_array());
    json_object_set_new(out, "total", json_integer(0));
    json_object_set_new(out, "shown", json_integer(0));
    json_object_set_new(out, "truncated", json_false());
    json_object_set_new(out, "next_cursor", json_null());
    json_object_set_new(out, "empty_reason", json_string(reason));
}

static void te_abstained(const nl_select *sel, json_t *out)
{
    json_object_set_new(out, "status", json_string("abstained"));
    json_object_set_new(out, "abstained", json_pack("{s:s, s:s}", "reason", sel->abstain_reason, "fix", sel->abstain_fix));
    json_object_set_new(out, "rows", json_array());
    json_object_set_new(out, "total", json_integer(0));
    json_object_set_new(out, "shown", json_integer(0));
    json_object_set_new(out, "truncated", json_false());
    json_object_set_new(out, "next_cursor", json_null());
}

/* The rows of a loaded profile: timeline block, status, columns, caveats and the page. 0, or -1 with res set. */
static int te_rows(nl_call *call, const nl_select *sel, te_args *a, json_t *out, nl_tool_result *res)
{
    timeline_source src = te_source(a, sel);
    if (!src.model) /* the family's selection loads the adapter's model kind */
        return nl_tool_result_error(res, "trace-extract failed: profile %s did not load as a %s model (internal)",
                                    sel->profile->id, a->kind->family), -1;
    timeline_counts k;
    te_counts(call, sel, &src, &k);
    if (src.adapter->unix_time)
        json_object_set_new(out, "timeline", te_timeline(src.adapter, &k));
    json_object_set_new(out, "status", json_string("complete"));
    json_object_set_new(out, "columns", te_columns_json(a));
    te_quality(&src, json_object_get(out, "data_quality"));
    return te_page(call, sel, &src, a, &k, out, res);
}

static void te_text(json_t *out, const timeline_adapter *ad, nl_tool_result *res)
{
    char buf[PAGE_TEXT_MAX];
    const char *id = json_string_value(json_object_get(json_object_get(out, "profile"), "id"));
    const char *reason = json_string_value(json_object_get(out, "empty_reason"));
    snprintf(buf, sizeof buf, "trace-extract %.150s: %s rows, %lld shown of %lld matching (sort %s%s)%s%s%s",
             id ? id : "?", json_string_value(json_object_get(out, "kind")),
             (long long)json_integer_value(json_object_get(out, "shown")),
             (long long)json_integer_value(json_object_get(out, "total")), json_string_value(json_object_get(out, "sort")),
             ad && ad->unix_time ? "; times unix ns" : "",
             json_is_true(json_object_get(out, "truncated")) ? "; more with next_cursor" : "",
             reason ? ": " : ". Rows in structuredContent.", reason ? reason : "");
    res->text = strdup(buf);
}

static int trace_extract_result(const json_t *args, nl_call *call, nl_select *sel, const struct te_kind *kind,
                                nl_tool_result *res)
{
    te_args a;
    if (te_parse(args, call, kind, &a, res) || nl_select_load(call, sel, res))
        return 0;
    if (a.engine_error) {
        timeline_source src = sel->model ? te_source(&a, sel) : (timeline_source){kind->adapter, NULL};
        return te_run_error(&src, &a.err, res);
    }
    const timeline_adapter *ad = kind->adapter;
    json_t *out = te_envelope(sel, ad);
    json_object_set_new(out, "kind", json_string(kind->name));
    json_object_set_new(out, "sort", json_string(timeline_sort_name(a.req.sort)));
    json_object_set_new(out, "filters", te_filters_json(&a.req.filter));
    if (!sel->model) {
        te_abstained(sel, out);
    } else if (kind->adapter == &timeline_collective && !te_has_collectives(nl_model_ref_device(sel->model))) {
        te_collective(nl_model_ref_device(sel->model), out);
    } else if (te_rows(call, sel, &a, out, res)) {
        json_decref(out);
        return 0;
    }
    te_text(out, kind->adapter, res);
    size_t size;
    if (!page_fits(out, res->text, a.budget, &size)) {
        json_decref(out);
        return nl_tool_result_error(res, "The result needs %zu bytes even without rows, over max_bytes %zu; raise "
                                    "max_bytes (at most 24576).", size, a.budget);
    }
    res->structured = out;
    nl_select_merge_quality(sel, res);
    return 0;
}

static int trace_extract_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    nl_select sel;
    const struct te_kind *kind = te_select(args, call, &sel, res);
    if (kind)
        trace_extract_result(args, call, &sel, kind, res);
    nl_select_clear(&sel);
    return 0;
}

const nl_tool_desc nl_tool_trace_extract = {
    .name = "trace-extract",
    .title = "Trace extract: filtered timeline rows",
    .description =
        "Rows of one device profile's timeline (instruction, dma, semaphore; collective says when the export has "
        "none) filtered by engine, opcode glob, time window, source/layer substring, minimum duration or wait; "
        "sorted, projected to chosen columns, paged with next_cursor under a byte budget. Use to inspect the rows "
        "behind a finding from summary or kernel-attribution; prefer those for totals. Kinds system (rank<N>/system "
        "spans) and framework (trace.json events): times in unix ns, opcode globs the event name, engine is "
        "host/device/nc<N>/core<N>/worker<N> or host/device/pid:<p>/tid:<t>. Kind memory (PyTorch allocator "
        "snapshots): alloc/free/segment/oom entries, opcode globs the action, engine device<N>, min_bytes, sort bytes.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_PROFILE ","
        NL_JSON("kind": {"enum": ["instruction", "dma", "collective", "semaphore", "system", "framework", "memory"],
                         "default": "instruction"},
                "engine": {"type": "string", "maxLength": 64},
                "opcode": {"type": "string", "maxLength": 128, "description": "glob, e.g. MATMUL* or *DMA*"},
                "start_ns": {"type": "integer", "minimum": 0}, "end_ns": {"type": "integer", "minimum": 0},
                "source": {"type": "string", "maxLength": 512}, "layer": {"type": "string", "maxLength": 512},
                "min_duration_ns": {"type": "integer", "minimum": 0}, "min_wait_ns": {"type": "integer", "minimum": 0},
                "min_bytes": {"type": "integer", "minimum": 0},
                "sort": {"enum": ["time", "duration", "wait", "bytes"], "default": "time"},
                "columns": {"type": "array", "maxItems": 32, "items": {"type": "string", "maxLength": 64}})
        "," NL_PROP_MAX_ROWS "," NL_PROP_CURSOR "," NL_PROP_MAX_BYTES "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"rows\", \"total\", \"shown\", \"truncated\"], \"properties\": {"
        NL_OUT_ENVELOPE "," NL_OUT_LIST ","
        NL_JSON("status": {"enum": ["complete", "abstained", "not_available"]},
                "columns": {"type": "array", "items": {"type": "string"}}, "rows": {"type": "array"})
        "}}",
    .run = trace_extract_run,
};
