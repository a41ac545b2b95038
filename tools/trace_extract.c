/* trace-extract — MCP tool: a filtered, windowed, sorted, projected page of one profile's timeline.
 *
 * Arguments are checked before anything is read (kind/filter/sort combinations, the window, the column
 * names); the profile is then selected and loaded through profile_select (warm from the model cache), the
 * cursor is checked against the query it was issued for, and analyzers/analyses/extract chooses the page
 * from the row order of (kind, sort) memoized with the model (memo.h: built on the first call, 25-45 ms at
 * 1M rows; a warm page is then a slice of it instead of a ranking of every row: 0.5 ms where it took
 * 13.6 ms at 1M instructions by duration). When the memo cannot be had, extract ranks the rows itself
 * (bounded heap, or an in-order scan when the table is already in time order): same page either way.
 * Filters are applied per call on top of the order (one pass over the filter columns). Rows are added to the
 * result one at a time while its serialized size stays within the byte budget (page.h); a page that
 * cannot hold even one row is an error saying how to narrow the request.
 *
 * Cursor: "te<fingerprint>.<row>" — the fingerprint covers profile, kind, filters, sort and the table's
 * row count, so a cursor only resumes the query that issued it; page size and columns may change between
 * pages. Rows are arrays in the order of `columns`; times are ns from the profile start. */
#include "tool_common.h"
#include "extract.h"
#include "memo.h"
#include "page.h"
#include "select.h"
#include "shape.h"
#include "trace_extract_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TE_CURSOR_PREFIX "te"
#define TE_CURSOR_MAX 64

typedef struct te_args {
    extract_request req;
    int columns[EXTRACT_COLUMNS_MAX];
    size_t ncols;
    const char *cursor;
    size_t budget;
} te_args;

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
    size_t n;
    const extract_column *cols = extract_columns(a->req.kind, &n);
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
        int c = extract_column_find(a->req.kind, json_string_value(v));
        if (c >= 0 && a->ncols < EXTRACT_COLUMNS_MAX) {
            a->columns[a->ncols++] = c;
            continue;
        }
        char names[1024] = "";
        for (size_t k = 0, used = 0; k < n && used < sizeof names; k++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", cols[k].name);
        return nl_tool_result_error(res, "Invalid argument columns: '%s' is not a column of kind %s. Accepted: %s.",
                                    json_string_value(v), extract_kind_name(a->req.kind), names), -1;
    }
    return 0;
}

static int te_parse(const json_t *args, nl_call *call, const char *kind, te_args *a, nl_tool_result *res)
{
    memset(a, 0, sizeof *a);
    const char *sort = te_str(args, "sort");
    if (kind && extract_kind_parse(kind, &a->req.kind))
        return nl_tool_result_error(res, "Invalid argument kind: '%s'; accepted: instruction, dma, collective, semaphore, "
                                    "system, framework.", kind), -1;
    if (sort && extract_sort_parse(sort, &a->req.sort))
        return nl_tool_result_error(res, "Invalid argument sort: '%s'; accepted: time, duration, wait, bytes.", sort), -1;
    extract_filter *f = &a->req.filter;
    f->engine = te_str(args, "engine");
    f->opcode_glob = te_str(args, "opcode");
    f->source = te_str(args, "source");
    f->layer = te_str(args, "layer");
    f->has_start = te_int(args, "start_ns", &f->start_ns);
    f->has_end = te_int(args, "end_ns", &f->end_ns);
    te_int(args, "min_duration_ns", &f->min_duration_ns);
    te_int(args, "min_wait_ns", &f->min_wait_ns);
    if (f->has_start && f->has_end && f->end_ns < f->start_ns)
        return nl_tool_result_error(res, "Invalid argument end_ns: %lld is before start_ns %lld. The window is [start_ns, "
                                    "end_ns) in ns from the profile start; pass end_ns >= start_ns (equal selects the "
                                    "rows active at that instant).", (long long)f->end_ns, (long long)f->start_ns), -1;
    int64_t max_rows = PAGE_ROWS_DEFAULT;
    te_int(args, "max_rows", &max_rows);
    if (max_rows < 1 || max_rows > EXTRACT_LIMIT_MAX)
        return nl_tool_result_error(res, "Invalid argument max_rows: %lld; accepted 1..%u.", (long long)max_rows,
                                    EXTRACT_LIMIT_MAX), -1;
    a->req.limit = (size_t)max_rows;
    a->cursor = te_str(args, "cursor");
    a->budget = page_budget(args, call);
    return a->req.kind == EXTRACT_COLLECTIVE ? 0 : te_parse_columns(args, a, res);
}

/* The query a cursor belongs to (everything but page size, columns and budget). */
static void te_cursor_tag(const te_args *a, const char *profile_id, size_t rows, char *tag, size_t cap)
{
    const extract_filter *f = &a->req.filter;
    char text[2048];
    snprintf(text, sizeof text, "%s|%s|%s|%s|%d:%lld|%d:%lld|%s|%s|%lld|%lld|%s|%zu", extract_kind_name(a->req.kind),
             extract_sort_name(a->req.sort), f->engine ? f->engine : "", f->opcode_glob ? f->opcode_glob : "",
             f->has_start, (long long)f->start_ns, f->has_end, (long long)f->end_ns, f->source ? f->source : "",
             f->layer ? f->layer : "", (long long)f->min_duration_ns, (long long)f->min_wait_ns, profile_id, rows);
    page_cursor_tag(tag, cap, TE_CURSOR_PREFIX, page_fingerprint(text));
}

static size_t te_rows_of(const device_model *m, extract_kind kind)
{
    static const device_model_table tables[EXTRACT_KIND_COUNT] = {DEVICE_MODEL_INSTRUCTIONS, DEVICE_MODEL_DMA,
                                                                 DEVICE_MODEL_SEMAPHORES, DEVICE_MODEL_TABLE_COUNT};
    return tables[kind] == DEVICE_MODEL_TABLE_COUNT ? 0 : device_model_rows(m, tables[kind]);
}

static int te_cursor(te_args *a, const nl_select *sel, nl_tool_result *res)
{
    const device_model *m = nl_model_ref_device(sel->model);
    char tag[40];
    size_t row;
    if (!a->cursor)
        return 0;
    te_cursor_tag(a, sel->profile->id, te_rows_of(m, a->req.kind), tag, sizeof tag);
    if (shape_cursor_parse(a->cursor, tag, &row))
        return nl_tool_result_error(res, "Invalid argument cursor: '%.80s' is not a next_cursor issued for this query. "
                                    "Pass the next_cursor of the previous trace-extract page with the same path, profile, "
                                    "kind, filters and sort (max_rows and columns may change), or omit cursor to start "
                                    "from the first row.", a->cursor), -1;
    a->req.has_after = true;
    a->req.after_row = row;
    return 0;
}

static json_t *te_cell_json(const extract_cell *c)
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

static json_t *te_row(const device_model *m, const te_args *a, size_t row)
{
    json_t *arr = json_array();
    for (size_t c = 0; c < a->ncols; c++) {
        extract_cell cell;
        extract_cell_get(m, a->req.kind, a->columns[c], row, &cell);
        json_array_append_new(arr, te_cell_json(&cell));
    }
    return arr;
}

static json_t *te_filters_json(const extract_request *req)
{
    const extract_filter *f = &req->filter;
    json_t *o = json_object();
    if (f->engine) json_object_set_new(o, "engine", page_string(f->engine));
    if (f->opcode_glob) json_object_set_new(o, "opcode", page_string(f->opcode_glob));
    if (f->has_start) json_object_set_new(o, "start_ns", json_integer(f->start_ns));
    if (f->has_end) json_object_set_new(o, "end_ns", json_integer(f->end_ns));
    if (f->source) json_object_set_new(o, "source", page_string(f->source));
    if (f->layer) json_object_set_new(o, "layer", page_string(f->layer));
    if (f->min_duration_ns) json_object_set_new(o, "min_duration_ns", json_integer(f->min_duration_ns));
    if (f->min_wait_ns) json_object_set_new(o, "min_wait_ns", json_integer(f->min_wait_ns));
    return o;
}

static json_t *te_units(void)
{
    return json_pack("{s:s, s:s, s:s, s:s}", "time", "ns from the profile start (metadata.first_hw_timestamp)",
                     "bytes", "B", "id", "decimal string (64-bit ids exceed 2^53)",
                     "rows", "arrays, one value per name in columns; null = absent");
}

/* Why nothing matched: the table is empty, or what each filter matches on its own. */
static void te_empty_reason(nl_call *call, const device_model *m, const te_args *a, char *buf, size_t cap)
{
    int64_t counts[EXTRACT_FILTER_COUNT];
    nl_error err;
    size_t rows = te_rows_of(m, a->req.kind);
    if (!rows) {
        snprintf(buf, cap, "the profile has no %s rows", extract_kind_name(a->req.kind));
        return;
    }
    if (extract_explain(m, &a->req, call->cancel, counts, &err)) {
        snprintf(buf, cap, "no row matches the filters");
        return;
    }
    size_t used = (size_t)snprintf(buf, cap, "none of the %zu %s rows matches all filters; on its own", rows,
                                   extract_kind_name(a->req.kind));
    for (int f = 0; f < EXTRACT_FILTER_COUNT && used < cap; f++)
        if (counts[f] >= 0)
            used += (size_t)snprintf(buf + used, cap - used, " %s matches %lld,", extract_filter_names[f], (long long)counts[f]);
    if (used < cap && used > 0 && buf[used - 1] == ',')
        buf[used - 1] = '\0';
    if (a->req.filter.source && !extract_has_sources(m))
        snprintf(buf + strlen(buf), cap - strlen(buf), " (instructions carry source locations only when compiled with "
                 "NEURON_FRAMEWORK_DEBUG=1 or NKI debug info)");
}

typedef struct te_fill_ctx {
    const device_model *m;
    const te_args *a;
    const extract_page *pg;
} te_fill_ctx;

static json_t *te_page_row(void *ctx, size_t i)
{
    const te_fill_ctx *c = ctx;
    return te_row(c->m, c->a, c->pg->rows[i]);
}

/* Add rows while they fit; *first_size = size of the first row when none fits. */
static size_t te_fill(const device_model *m, const te_args *a, const extract_page *pg, page_meter *pm, json_t *rows,
                      size_t *first_size)
{
    te_fill_ctx c = {m, a, pg};
    return page_meter_fill(pm, rows, pg->count, te_page_row, &c, first_size);
}

static void te_text(json_t *out, nl_tool_result *res)
{
    char buf[PAGE_TEXT_MAX];
    const char *id = json_string_value(json_object_get(json_object_get(out, "profile"), "id"));
    const char *reason = json_string_value(json_object_get(out, "empty_reason"));
    snprintf(buf, sizeof buf, "trace-extract %s: %s rows, %lld shown of %lld matching (sort %s)%s%s%s",
             id ? id : "?", json_string_value(json_object_get(out, "kind")),
             (long long)json_integer_value(json_object_get(out, "shown")),
             (long long)json_integer_value(json_object_get(out, "total")), json_string_value(json_object_get(out, "sort")),
             json_is_true(json_object_get(out, "truncated")) ? "; more with next_cursor" : "",
             reason ? ": " : ". Rows in structuredContent.", reason ? reason : "");
    res->text = strdup(buf);
}

/* The page itself: run extract, then add rows under the budget. 0, or -1 with res set. */
static int te_page(nl_call *call, const nl_select *sel, te_args *a, json_t *out, nl_tool_result *res)
{
    const device_model *m = nl_model_ref_device(sel->model);
    extract_page pg;
    nl_error err;
    nl_error_clear(&err);
    a->req.order = nl_memo_extract_order(call, sel->model, a->req.kind, a->req.sort, &err); /* NULL: extract ranks */
    nl_error_clear(&err);
    if (extract_run(m, &a->req, call->cancel, &pg, &err)) {
        char engines[512] = "";
        if (!strcmp(err.field, "engine"))
            extract_engines(m, a->req.kind, engines, sizeof engines);
        if (err.code != NL_ERR_ARGUMENT)
            return nl_tool_result_error(res, "trace-extract failed: %s (%s)", err.message, nl_error_code_name(err.code)), -1;
        return nl_tool_result_error(res, "Invalid argument %s: %s.%s%s", err.field, err.message,
                                    engines[0] ? " Accepted engines (case-insensitive): " : "", engines), -1;
    }
    char tag[40], cursor[TE_CURSOR_MAX];
    te_cursor_tag(a, sel->profile->id, te_rows_of(m, a->req.kind), tag, sizeof tag);
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
        return nl_tool_result_error(res, "The result without rows already needs %zu bytes (profile, provenance, "
                                    "data_quality and %u bytes kept for the text), over max_bytes %zu; raise max_bytes "
                                    "to at least %zu.", pm.used, PAGE_TEXT_MAX + PAGE_WRAPPER_BYTES, a->budget,
                                    pm.used + 256), -1;
    }
    size_t first = 0, shown = te_fill(m, a, &pg, &pm, rows, &first);
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
        te_empty_reason(call, m, a, reason, sizeof reason);
        json_object_set_new(out, "empty_reason", json_string(reason));
    } else if (!pg.after_cursor) {
        json_object_set_new(out, "empty_reason", json_string("the cursor is past the last matching row"));
    }
    extract_page_free(&pg);
    return 0;
}

static void te_quality(const device_model *m, const te_args *a, json_t *dq)
{
    if (a->req.kind == EXTRACT_INSTRUCTION) {
        page_quality_wait(dq);
        json_array_append_new(dq, shape_quality("info", "duration of EVENT_SEMAPHORE rows is time spent blocked on a "
                                                "semaphore, not work", NULL, NULL));
    }
    if (a->req.kind == EXTRACT_DMA)
        page_quality_dma(m, 0, 0, dq);
}

/* kind collective: the full JSON export carries no collective-operation rows. */
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

static json_t *te_columns_json(const te_args *a)
{
    size_t n;
    const extract_column *cols = extract_columns(a->req.kind, &n);
    json_t *arr = json_array();
    for (size_t c = 0; c < a->ncols; c++)
        json_array_append_new(arr, json_string(cols[a->columns[c]].name));
    return arr;
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

/* The profile a call is about and the kind of rows it asks for. With `kind`, only profiles of that kind's
 * family are considered (instruction, dma, semaphore, collective: device; system; framework); without, the
 * profile decides and its own kind is used (instruction for a device profile). NULL after filling res. */
static const char *te_select(const json_t *args, nl_call *call, nl_select *sel, nl_tool_result *res)
{
    const char *kind = te_str(args, "kind");
    if (!kind) {
        if (nl_select_profile(call, args, NL_ANALYSIS_TRACE_EXTRACT, sel, res))
            return NULL;
        nl_profile_kind k = sel->profile->kind;
        return k == NL_PROFILE_SYSTEM || k == NL_PROFILE_FRAMEWORK ? nl_profile_kind_family(k) : "instruction";
    }
    extract_kind ek;
    if (!nl_trace_extract_is_host_kind(kind) && extract_kind_parse(kind, &ek)) {
        memset(sel, 0, sizeof *sel);
        return nl_tool_result_error(res, "Invalid argument kind: '%s'; accepted: instruction, dma, collective, semaphore, "
                                    "system, framework.", kind), NULL;
    }
    char because[64];
    snprintf(because, sizeof because, "kind %s", kind);
    const char *family = nl_trace_extract_is_host_kind(kind) ? kind : "device";
    return nl_select_family(call, args, NL_ANALYSIS_TRACE_EXTRACT, family, because, sel, res) ? NULL : kind;
}

static int trace_extract_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    te_args a;
    nl_select sel;
    const char *kind;
    if (!(kind = te_select(args, call, &sel, res))) {
        nl_select_clear(&sel);
        return 0;
    }
    if (nl_trace_extract_is_host_kind(kind)) {
        nl_trace_extract_host(args, call, kind, &sel, res); /* kinds system, framework: trace_extract_host.c */
        nl_select_merge_quality(&sel, res);
        nl_select_clear(&sel);
        return 0;
    }
    if (te_parse(args, call, kind, &a, res) || nl_select_load(call, &sel, res)) {
        nl_select_clear(&sel);
        return 0;
    }
    json_t *out = page_envelope(&sel, te_units());
    json_object_set_new(out, "kind", json_string(extract_kind_name(a.req.kind)));
    json_object_set_new(out, "sort", json_string(extract_sort_name(a.req.sort)));
    json_object_set_new(out, "filters", te_filters_json(&a.req));
    if (!sel.model) {
        te_abstained(&sel, out);
    } else if (a.req.kind == EXTRACT_COLLECTIVE) {
        te_collective(nl_model_ref_device(sel.model), out);
    } else {
        json_object_set_new(out, "status", json_string("complete"));
        json_object_set_new(out, "columns", te_columns_json(&a));
        te_quality(nl_model_ref_device(sel.model), &a, json_object_get(out, "data_quality"));
        if (te_cursor(&a, &sel, res) || te_page(call, &sel, &a, out, res)) {
            json_decref(out);
            nl_select_clear(&sel);
            return 0;
        }
    }
    te_text(out, res);
    size_t size;
    if (!page_fits(out, res->text, a.budget, &size)) {
        json_decref(out);
        nl_select_clear(&sel);
        return nl_tool_result_error(res, "The result needs %zu bytes even without rows, over max_bytes %zu; raise "
                                    "max_bytes (at most 24576).", size, a.budget);
    }
    res->structured = out;
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
        "host/device/nc<N>/core<N>/worker<N> or host/device/pid:<p>/tid:<t>.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_PROFILE ","
        NL_JSON("kind": {"enum": ["instruction", "dma", "collective", "semaphore", "system", "framework"], "default": "instruction"},
                "engine": {"type": "string", "maxLength": 64},
                "opcode": {"type": "string", "maxLength": 128, "description": "glob, e.g. MATMUL* or *DMA*"},
                "start_ns": {"type": "integer", "minimum": 0}, "end_ns": {"type": "integer", "minimum": 0},
                "source": {"type": "string", "maxLength": 512}, "layer": {"type": "string", "maxLength": 512},
                "min_duration_ns": {"type": "integer", "minimum": 0}, "min_wait_ns": {"type": "integer", "minimum": 0},
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
