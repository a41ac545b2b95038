/* host_extract — see host_extract.h.
 *
 * One request runs as extract.c's does, over a host table instead of a device one:
 *   1. resolve: the name glob becomes one byte per dictionary code of the name column; the engine value
 *      becomes a test on one integer column or flag (system) or one byte per thread of the trace
 *      (framework: a row's thread is framework_model_row_threads()[row]); a value that matches no row is an
 *      argument error that lists what the source offers;
 *   2. with an order (req->order, memoized per model and sort; row_order.h): the cursor's position by
 *      binary search, then the next `limit` positions — or, with filters, one pass setting a bit per
 *      matching row (`total`) and a walk of the order from the cursor's position picking set rows (few
 *      matches are ranked by their keys instead: row_order_rank_matches);
 *   2'. without one, scan: rows are visited in EXTRACT_CHUNK blocks (start, end/duration and flags decoded
 *      with table_read), counted (`total`, and those after the cursor) and offered to a topn heap of `limit`
 *      keys; the kept keys sorted best-first are the page.
 * Both paths rank by hx_key_of and keep exactly the eligible rows, so their pages are equal. Why the order:
 * a warm page of a 1.8M-event framework trace took ~40 ms, all of it ranking every row.
 * Framework rows keep the file's time base internally; every time crossing the API is unix ns (the window
 * is shifted once into file time, cells are shifted out). */
#include "host_extract.h"
#include "name_list.h"
#include "row_order.h"
#include "topn.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const host_extract_filter_names[HOST_EXTRACT_FILTER_COUNT] = {"engine", "opcode", "window",
                                                                         "min_duration_ns"};
static const char *const hx_sort_names[HOST_EXTRACT_SORT_COUNT] = {"time", "duration", "bytes"};

/* ---- columns ------------------------------------------------------------------------------------------ */

enum {
    SY_ROW, SY_TYPE, SY_START, SY_END, SY_DURATION, SY_PHASE, SY_HARDWARE, SY_WORKER, SY_NC, SY_CORE, SY_EXEC,
    SY_MODEL, SY_BYTES, SY_THREAD, SY_SPAN_ID, SY_NC_START, SY_NC_END, SY_USAGE, SY_NEFF, SY_ATTRS, SY_COUNT
};
static const extract_column hx_sys_columns[SY_COUNT] = {
    [SY_ROW] = {"row", "span index in the system model", false},
    [SY_TYPE] = {"type", "event type name (trace_info.pb ntrace_inspect_type)", true},
    [SY_START] = {"start_ns", "begin, unix ns (host CPU clock)", true},
    [SY_END] = {"end_ns", "end, unix ns (= start for instants and unpaired records)", false},
    [SY_DURATION] = {"duration_ns", "end - start, ns", true},
    [SY_PHASE] = {"phase", "span (begin+end), instant, open (no end), orphan_end (no begin)", false},
    [SY_HARDWARE] = {"hardware", "device event shifted to CPU time (carries nc_timestamp_ns)", false},
    [SY_WORKER] = {"worker", "worker_gid", true},
    [SY_NC] = {"nc", "nc_idx (logical NeuronCore)", true},
    [SY_CORE] = {"core", "device_core_idx (physical core)", true},
    [SY_EXEC] = {"exec_id", "exec_id", true},
    [SY_MODEL] = {"model_id", "model_id (decimal string)", true},
    [SY_BYTES] = {"bytes", "size / allocated_bytes / freed_bytes, B", true},
    [SY_THREAD] = {"thread", "OS thread id (f9)", false},
    [SY_SPAN_ID] = {"span_id", "span id f15 (decimal string)", false},
    [SY_NC_START] = {"nc_start_ns", "nc_timestamp_ns of the begin, device clock", false},
    [SY_NC_END] = {"nc_end_ns", "nc_timestamp_ns of the end, device clock", false},
    [SY_USAGE] = {"usage", "usage_type of DMA allocations", false},
    [SY_NEFF] = {"neff", "NEFF path of model_id (trace_info.pb system_trace)", false},
    [SY_ATTRS] = {"attrs", "other attributes, key=value", false},
};

enum {
    FW_ROW, FW_NAME, FW_CAT, FW_PH, FW_START, FW_END, FW_DURATION, FW_PID, FW_TID, FW_ROLE, FW_PROCESS, FW_THREAD,
    FW_CORR, FW_EXT, FW_FLOW, FW_BYTES, FW_DETAIL, FW_COUNT
};
static const extract_column hx_fw_columns[FW_COUNT] = {
    [FW_ROW] = {"row", "event index in traceEvents", false},
    [FW_NAME] = {"name", "event name (cut at 240 B)", true},
    [FW_CAT] = {"cat", "category", true},
    [FW_PH] = {"ph", "phase: X complete, i instant, s/f flow, B/E", false},
    [FW_START] = {"start_ns", "ts, unix ns (baseTimeNanoseconds + ts)", true},
    [FW_END] = {"end_ns", "ts + dur, unix ns", false},
    [FW_DURATION] = {"duration_ns", "dur, ns", true},
    [FW_PID] = {"pid", "pid as written", true},
    [FW_TID] = {"tid", "tid as written", true},
    [FW_ROLE] = {"role", "host or device process", true},
    [FW_PROCESS] = {"process", "process name", false},
    [FW_THREAD] = {"thread", "thread name", false},
    [FW_CORR] = {"correlation", "args.correlation (decimal string)", true},
    [FW_EXT] = {"external_id", "args.External id (decimal string)", false},
    [FW_FLOW] = {"flow_id", "flow id of s/f events (decimal string)", false},
    [FW_BYTES] = {"bytes", "args.bytes / size / mem size, B", false},
    [FW_DETAIL] = {"detail", "args.direction", false},
};

const extract_column *host_extract_columns(host_extract_kind kind, size_t *count)
{
    *count = kind == HOST_EXTRACT_SYSTEM ? SY_COUNT : FW_COUNT;
    return kind == HOST_EXTRACT_SYSTEM ? hx_sys_columns : hx_fw_columns;
}

int host_extract_column_find(host_extract_kind kind, const char *name)
{
    size_t n;
    const extract_column *cols = host_extract_columns(kind, &n);
    for (size_t i = 0; name && i < n; i++)
        if (!strcmp(cols[i].name, name))
            return (int)i;
    return -1;
}

const char *host_extract_kind_name(host_extract_kind k)
{
    return k == HOST_EXTRACT_SYSTEM ? "system" : "framework";
}

const char *host_extract_sort_name(host_extract_sort s)
{
    return s < HOST_EXTRACT_SORT_COUNT ? hx_sort_names[s] : "?";
}

int host_extract_sort_parse(const char *name, host_extract_sort *out)
{
    for (int s = 0; name && s < HOST_EXTRACT_SORT_COUNT; s++)
        if (!strcmp(name, hx_sort_names[s]))
            return (*out = (host_extract_sort)s), 0;
    return -1;
}

/* ---- cells -------------------------------------------------------------------------------------------- */

static void hx_int(int64_t v, extract_cell *out)
{
    out->kind = EXTRACT_CELL_INT;
    out->i = v;
}

static void hx_int_or_null(int64_t v, extract_cell *out)
{
    if (v >= 0)
        hx_int(v, out);
}

static void hx_str(const char *s, extract_cell *out)
{
    if (s && *s) {
        out->kind = EXTRACT_CELL_STR;
        out->s = s;
    }
}

/* s[0..len) cut to HOST_EXTRACT_NAME_MAX bytes on a UTF-8 boundary with "…", in scratch when cut. */
static const char *hx_cut(const char *s, size_t len, char *scratch)
{
    if (!s || len <= HOST_EXTRACT_NAME_MAX)
        return s;
    size_t n = HOST_EXTRACT_NAME_MAX;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    memcpy(scratch, s, n);
    memcpy(scratch + n, "\xe2\x80\xa6", 4);
    return scratch;
}

static const char *hx_sys_str(const system_model *m, uint32_t id)
{
    return strtab_str(system_model_strings(m), id, NULL);
}

/* "k=v, k=v" of a span's SM_ATTRS rows, cut at HOST_EXTRACT_ATTRS_MAX with " …". */
static const char *hx_sys_attrs(const system_model *m, size_t row, char *scratch)
{
    const table *sp = system_model_table_get(m, SM_SPANS), *at = system_model_table_get(m, SM_ATTRS);
    uint64_t first = table_u64(sp, SM_SPAN_ATTR_FIRST, row), n = table_u64(sp, SM_SPAN_ATTR_COUNT, row);
    size_t used = 0;
    scratch[0] = '\0';
    for (uint64_t i = 0; at && i < n && first + i < table_rows(at); i++) {
        const char *k = hx_sys_str(m, table_str(at, SM_ATTR_KEY, (size_t)(first + i)));
        const char *v = hx_sys_str(m, table_str(at, SM_ATTR_VALUE, (size_t)(first + i)));
        int w = snprintf(scratch + used, HOST_EXTRACT_ATTRS_MAX - used, "%s%s=%s", used ? ", " : "", k ? k : "",
                         v ? v : "");
        if (w < 0 || (size_t)w >= HOST_EXTRACT_ATTRS_MAX - used) {
            while (used > 0 && ((unsigned char)scratch[used] & 0xc0) == 0x80)
                used--;
            strcpy(scratch + used, " \xe2\x80\xa6");
            break;
        }
        used += (size_t)w;
    }
    return scratch;
}

static void hx_sys_cell(const system_model *m, int col, size_t row, char *scratch, extract_cell *out)
{
    const table *t = system_model_table_get(m, SM_SPANS);
    uint64_t flags = table_u64(t, SM_SPAN_FLAGS, row), model;
    int64_t start = table_i64(t, SM_SPAN_START, row), end = table_i64(t, SM_SPAN_END, row);
    switch (col) {
    case SY_ROW: hx_int((int64_t)row, out); return;
    case SY_TYPE: hx_str(hx_sys_str(m, table_str(t, SM_SPAN_TYPE, row)), out); return;
    case SY_START: hx_int(start, out); return;
    case SY_END: hx_int(end, out); return;
    case SY_DURATION: hx_int(end - start, out); return;
    case SY_PHASE:
        hx_str(flags & SM_SPAN_F_INSTANT ? "instant" : flags & SM_SPAN_F_OPEN ? "open"
               : flags & SM_SPAN_F_ORPHAN_END ? "orphan_end" : "span", out);
        return;
    case SY_HARDWARE: out->kind = EXTRACT_CELL_BOOL; out->i = (flags & SM_SPAN_F_HARDWARE) != 0; return;
    case SY_WORKER: hx_int_or_null(table_i64(t, SM_SPAN_WORKER, row), out); return;
    case SY_NC: hx_int_or_null(table_i64(t, SM_SPAN_NC, row), out); return;
    case SY_CORE: hx_int_or_null(table_i64(t, SM_SPAN_CORE, row), out); return;
    case SY_EXEC: hx_int_or_null(table_i64(t, SM_SPAN_EXEC, row), out); return;
    case SY_MODEL:
        if ((model = table_u64(t, SM_SPAN_MODEL, row)) != 0) {
            out->kind = EXTRACT_CELL_ID;
            out->u = model;
        }
        return;
    case SY_BYTES: out->kind = EXTRACT_CELL_UINT; out->u = table_u64(t, SM_SPAN_BYTES, row); return;
    case SY_THREAD: out->kind = EXTRACT_CELL_UINT; out->u = table_u64(t, SM_SPAN_THREAD, row); return;
    case SY_SPAN_ID: out->kind = EXTRACT_CELL_ID; out->u = table_u64(t, SM_SPAN_ID, row); return;
    case SY_NC_START: hx_int_or_null(table_i64(t, SM_SPAN_NC_BEGIN, row), out); return;
    case SY_NC_END: hx_int_or_null(table_i64(t, SM_SPAN_NC_END, row), out); return;
    case SY_USAGE: hx_str(hx_sys_str(m, table_str(t, SM_SPAN_USAGE, row)), out); return;
    case SY_NEFF:
        model = table_u64(t, SM_SPAN_MODEL, row);
        hx_str(model ? system_model_neff_path(m, model) : NULL, out);
        return;
    default: hx_str(hx_sys_attrs(m, row, scratch), out); return;
    }
}

/* An id column: a number, or (TEXT flag) the strtab id of its text. */
static void hx_fw_id(const framework_model *m, const table *t, uint32_t col, size_t row, uint64_t has, uint64_t text,
                     extract_cell *out)
{
    uint64_t flags = table_u64(t, FM_EV_FLAGS, row), v = table_u64(t, col, row);
    if (!(flags & has))
        return;
    if (flags & text) {
        hx_str(framework_model_str(m, (uint32_t)v, NULL), out);
        return;
    }
    out->kind = EXTRACT_CELL_ID;
    out->u = v;
}

static int64_t hx_fw_base(const framework_model *m)
{
    int64_t base = 0;
    return framework_model_time_base(m, &base) ? base : 0;
}

static int64_t hx_fw_dur(const table *t, size_t row)
{
    int64_t d = table_i64(t, FM_EV_DUR, row);
    return (table_u64(t, FM_EV_FLAGS, row) & FM_F_DUR) && d > 0 ? d : 0;
}

static void hx_fw_cell(const framework_model *m, int col, size_t row, char *scratch, extract_cell *out)
{
    const table *t = framework_model_events(m);
    const uint32_t *threads = framework_model_row_threads(m);
    const framework_model_process *p = framework_model_process_at(m, table_code(t, FM_EV_PID, row));
    const framework_model_thread *th = threads ? framework_model_thread_at(m, threads[row]) : NULL;
    int64_t ts = table_i64(t, FM_EV_TS, row) + hx_fw_base(m);
    size_t len;
    const char *s;
    switch (col) {
    case FW_ROW: hx_int((int64_t)row, out); return;
    case FW_NAME:
        s = framework_model_str(m, table_str(t, FM_EV_NAME, row), &len);
        hx_str(hx_cut(s, len, scratch), out);
        return;
    case FW_CAT: hx_str(framework_model_str(m, table_str(t, FM_EV_CAT, row), NULL), out); return;
    case FW_PH: hx_str(framework_model_str(m, table_str(t, FM_EV_PH, row), NULL), out); return;
    case FW_START: hx_int(ts, out); return;
    case FW_END: hx_int(ts + hx_fw_dur(t, row), out); return;
    case FW_DURATION: hx_int(hx_fw_dur(t, row), out); return;
    case FW_PID: hx_str(framework_model_str(m, table_str(t, FM_EV_PID, row), NULL), out); return;
    case FW_TID: hx_str(framework_model_str(m, table_str(t, FM_EV_TID, row), NULL), out); return;
    case FW_ROLE: hx_str(p && p->device != FM_HOST ? "device" : "host", out); return;
    case FW_PROCESS: hx_str(p ? framework_model_str(m, p->name ? p->name : p->labels, NULL) : NULL, out); return;
    case FW_THREAD: hx_str(th ? framework_model_str(m, th->name, NULL) : NULL, out); return;
    case FW_CORR: hx_fw_id(m, t, FM_EV_CORR, row, FM_F_CORR, FM_F_CORR_TEXT, out); return;
    case FW_EXT: hx_fw_id(m, t, FM_EV_EXT, row, FM_F_EXT, FM_F_EXT_TEXT, out); return;
    case FW_FLOW: hx_fw_id(m, t, FM_EV_FLOW, row, FM_F_FLOW, FM_F_FLOW_TEXT, out); return;
    case FW_BYTES:
        if (table_u64(t, FM_EV_FLAGS, row) & FM_F_BYTES) {
            out->kind = EXTRACT_CELL_UINT;
            out->u = table_u64(t, FM_EV_BYTES, row);
        }
        return;
    default:
        s = framework_model_str(m, table_str(t, FM_EV_DETAIL, row), &len);
        hx_str(hx_cut(s, len, scratch), out);
        return;
    }
}

void host_extract_cell_get(const host_extract_source *src, int col, size_t row, char *scratch, extract_cell *out)
{
    memset(out, 0, sizeof *out);
    if (src->kind == HOST_EXTRACT_SYSTEM)
        hx_sys_cell(src->sys, col, row, scratch, out);
    else
        hx_fw_cell(src->fw, col, row, scratch, out);
}

/* ---- resolve ------------------------------------------------------------------------------------------ */

typedef enum hx_engine {
    HX_ENG_NONE, HX_ENG_HOST, HX_ENG_DEVICE, HX_ENG_NC, HX_ENG_CORE, HX_ENG_WORKER, HX_ENG_THREAD
} hx_engine;

typedef struct hx_ctx {
    const host_extract_source *src;
    const host_extract_request *req;
    const table *t;
    size_t rows;
    int64_t base;             /* framework: file time + base = unix ns */
    uint32_t name_col;
    uint8_t *name_ok;         /* per dictionary code of name_col */
    hx_engine engine;         /* system */
    int64_t engine_value;
    uint8_t *thread_ok;       /* framework: per thread index */
    const uint32_t *row_threads;
    uint8_t *ph_meta;         /* framework: per FM_EV_PH code, 1 for M */
    bool set[HOST_EXTRACT_FILTER_COUNT];
    table_value *a, *b, *f;   /* chunk buffers: start, end (system) or dur (framework), flags */
    uint32_t *codes;          /* chunk buffer: FM_EV_PH codes (framework) */
} hx_ctx;

static void hx_ctx_close(hx_ctx *c)
{
    free(c->name_ok);
    free(c->thread_ok);
    free(c->ph_meta);
    free(c->a);
    free(c->b);
    free(c->f);
    free(c->codes);
}

static int hx_arg_error(nl_error *err, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int hx_arg_error(nl_error *err, const char *field, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "%s", msg);
    nl_error_set_field(err, field);
    return -1;
}

static int hx_nomem(nl_error *err, const char *what)
{
    return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (%s)", what);
}

static const char *hx_name_of_code(const hx_ctx *c, uint32_t code)
{
    uint32_t id = table_dict_id(c->t, c->name_col, code);
    return c->src->kind == HOST_EXTRACT_SYSTEM ? hx_sys_str(c->src->sys, id) : framework_model_str(c->src->fw, id, NULL);
}

/* "nc12" → HX_ENG_NC, 12 when `s` is `prefix` followed by decimal digits only. */
static bool hx_prefixed_number(const char *s, const char *prefix, int64_t *v)
{
    size_t n = strlen(prefix);
    if (strncasecmp(s, prefix, n) || !s[n] || strlen(s + n) > 18)
        return false;
    for (const char *p = s + n; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    *v = strtoll(s + n, NULL, 10);
    return true;
}

static bool hx_sys_engine_row(const hx_ctx *c, size_t row)
{
    const table *t = c->t;
    switch (c->engine) {
    case HX_ENG_HOST: return !(table_u64(t, SM_SPAN_FLAGS, row) & SM_SPAN_F_HARDWARE);
    case HX_ENG_DEVICE: return (table_u64(t, SM_SPAN_FLAGS, row) & SM_SPAN_F_HARDWARE) != 0;
    case HX_ENG_NC: return table_i64(t, SM_SPAN_NC, row) == c->engine_value;
    case HX_ENG_CORE: return table_i64(t, SM_SPAN_CORE, row) == c->engine_value;
    case HX_ENG_WORKER: return table_i64(t, SM_SPAN_WORKER, row) == c->engine_value;
    case HX_ENG_THREAD: return table_u64(t, SM_SPAN_THREAD, row) == (uint64_t)c->engine_value;
    default: return true;
    }
}

static int hx_resolve_sys_engine(hx_ctx *c, nl_error *err)
{
    const char *e = c->req->filter.engine;
    if (!strcasecmp(e, "host"))
        c->engine = HX_ENG_HOST;
    else if (!strcasecmp(e, "device") || !strcasecmp(e, "hardware"))
        c->engine = HX_ENG_DEVICE;
    else if (hx_prefixed_number(e, "nc", &c->engine_value))
        c->engine = HX_ENG_NC;
    else if (hx_prefixed_number(e, "core", &c->engine_value))
        c->engine = HX_ENG_CORE;
    else if (hx_prefixed_number(e, "worker", &c->engine_value))
        c->engine = HX_ENG_WORKER;
    else if (hx_prefixed_number(e, "thread", &c->engine_value))
        c->engine = HX_ENG_THREAD;
    else
        return hx_arg_error(err, "engine", "engine '%.64s' is not a system-profile lane; accepted: host, device, "
                            "nc<N>, core<N>, worker<N>, thread<N>", e);
    for (size_t r = 0; r < c->rows; r++)
        if (hx_sys_engine_row(c, r))
            return 0;
    return hx_arg_error(err, "engine", "no span of this system profile is on '%.64s'", e);
}

static bool hx_eq_ci(const framework_model *m, uint32_t id, const char *s)
{
    const char *v = id ? framework_model_str(m, id, NULL) : NULL;
    return v && *v && !strcasecmp(v, s);
}

static int hx_resolve_fw_engine(hx_ctx *c, nl_error *err)
{
    const framework_model *m = c->src->fw;
    const char *e = c->req->filter.engine;
    size_t n = framework_model_thread_count(m), hits = 0;
    c->thread_ok = calloc(n ? n : 1, 1);
    if (!c->thread_ok)
        return hx_nomem(err, "engine map");
    bool host = !strcasecmp(e, "host"), device = !strcasecmp(e, "device");
    bool by_pid = !strncasecmp(e, "pid:", 4), by_tid = !strncasecmp(e, "tid:", 4);
    for (size_t i = 0; i < n; i++) {
        const framework_model_thread *th = framework_model_thread_at(m, i);
        const framework_model_process *p = framework_model_process_at(m, th->process);
        bool is_dev = p && p->device != FM_HOST, ok;
        if (host || device)
            ok = host ? !is_dev : is_dev;
        else if (by_pid || by_tid)
            ok = !strcmp(framework_model_str(m, by_pid ? th->pid : th->tid, NULL), e + 4);
        else
            ok = !strcmp(framework_model_str(m, th->pid, NULL), e) || !strcmp(framework_model_str(m, th->tid, NULL), e) ||
                 hx_eq_ci(m, th->name, e) || (p && (hx_eq_ci(m, p->name, e) || hx_eq_ci(m, p->labels, e)));
        c->thread_ok[i] = ok;
        hits += ok;
    }
    if (!hits)
        return hx_arg_error(err, "engine", "no thread of this trace is '%.64s'", e);
    return 0;
}

static int hx_resolve(hx_ctx *c, nl_error *err)
{
    const host_extract_filter *f = &c->req->filter;
    if (f->name_glob) {
        uint32_t n = table_dict_size(c->t, c->name_col);
        c->name_ok = calloc(n ? n : 1, 1);
        if (!c->name_ok)
            return hx_nomem(err, "name filter");
        for (uint32_t code = 0; code < n; code++) {
            const char *s = hx_name_of_code(c, code);
            c->name_ok[code] = s && *s && !fnmatch(f->name_glob, s, FNM_CASEFOLD);
        }
    }
    if (f->engine && (c->src->kind == HOST_EXTRACT_SYSTEM ? hx_resolve_sys_engine(c, err) : hx_resolve_fw_engine(c, err)))
        return -1;
    c->set[HOST_EXTRACT_F_ENGINE] = f->engine != NULL;
    c->set[HOST_EXTRACT_F_NAME] = f->name_glob != NULL;
    c->set[HOST_EXTRACT_F_WINDOW] = f->has_start || f->has_end;
    c->set[HOST_EXTRACT_F_MIN_DURATION] = f->min_duration_ns > 0;
    return 0;
}

static int hx_check(const host_extract_request *req, nl_error *err)
{
    const host_extract_filter *f = &req->filter;
    const char *empty = f->engine && !*f->engine ? "engine" : f->name_glob && !*f->name_glob ? "opcode" : NULL;
    if (empty)
        return hx_arg_error(err, empty, "%s must not be empty (omit it to match every row)", empty);
    if (f->min_duration_ns < 0 || (f->has_start && f->start_ns < 0) || (f->has_end && f->end_ns < 0))
        return hx_arg_error(err, f->has_start && f->start_ns < 0 ? "start_ns" : f->has_end && f->end_ns < 0 ? "end_ns"
                            : "min_duration_ns", "times and minimums must be >= 0 ns");
    if (f->has_start && f->has_end && f->end_ns < f->start_ns)
        return hx_arg_error(err, "end_ns", "end_ns %lld is before start_ns %lld: the window [start_ns, end_ns) must not "
                            "be inverted", (long long)f->end_ns, (long long)f->start_ns);
    if (req->limit < 1 || req->limit > EXTRACT_LIMIT_MAX)
        return hx_arg_error(err, "max_rows", "the page size must be 1..%u, got %zu", EXTRACT_LIMIT_MAX, req->limit);
    if (req->sort >= HOST_EXTRACT_SORT_COUNT)
        return hx_arg_error(err, "sort", "unknown sort");
    return 0;
}

static int hx_open(hx_ctx *c, const host_extract_source *src, const host_extract_request *req, nl_error *err)
{
    memset(c, 0, sizeof *c);
    c->src = src;
    c->req = req;
    if (hx_check(req, err))
        return -1;
    if (src->kind == HOST_EXTRACT_SYSTEM) {
        c->t = system_model_table_get(src->sys, SM_SPANS);
        c->name_col = SM_SPAN_TYPE;
    } else {
        c->t = framework_model_events(src->fw);
        c->name_col = FM_EV_NAME;
        c->base = hx_fw_base(src->fw);
        c->row_threads = framework_model_row_threads(src->fw);
    }
    c->rows = c->t ? table_rows(c->t) : 0;
    if (src->kind == HOST_EXTRACT_FRAMEWORK && c->t) {
        uint32_t n = table_dict_size(c->t, FM_EV_PH);
        if (!(c->ph_meta = calloc(n ? n : 1, 1)))
            return hx_nomem(err, "phase map");
        for (uint32_t code = 0; code < n; code++)
            c->ph_meta[code] = !strcmp(framework_model_str(src->fw, table_dict_id(c->t, FM_EV_PH, code), NULL), "M");
    }
    c->a = malloc(EXTRACT_CHUNK * sizeof *c->a);
    c->b = malloc(EXTRACT_CHUNK * sizeof *c->b);
    c->f = malloc(EXTRACT_CHUNK * sizeof *c->f);
    c->codes = malloc(EXTRACT_CHUNK * sizeof *c->codes);
    if (!c->a || !c->b || !c->f || !c->codes)
        return hx_nomem(err, "chunk buffers");
    if (!c->t)
        return 0;
    return hx_resolve(c, err);
}

/* ---- rows --------------------------------------------------------------------------------------------- */

typedef struct hx_row {
    bool eligible;
    int64_t start, end; /* unix ns */
} hx_row;

static void hx_read_chunk(hx_ctx *c, size_t base, size_t n)
{
    if (c->src->kind == HOST_EXTRACT_SYSTEM) {
        table_read(c->t, SM_SPAN_START, base, n, c->a);
        table_read(c->t, SM_SPAN_END, base, n, c->b);
    } else {
        table_read(c->t, FM_EV_TS, base, n, c->a);
        table_read(c->t, FM_EV_DUR, base, n, c->b);
        table_read(c->t, FM_EV_FLAGS, base, n, c->f);
        table_read_codes(c->t, FM_EV_PH, base, n, c->codes); /* a table_code per row was half of a row's cost */
    }
}

/* Whether framework chunk row i is a timeline row (has a ts, is not metadata); flags and codes decoded. */
static bool hx_fw_eligible(const hx_ctx *c, size_t i)
{
    return (c->f[i].u & FM_F_TS) && !c->ph_meta[c->codes[i]];
}

/* Chunk row i (decoded by hx_read_chunk). */
static hx_row hx_row_at(const hx_ctx *c, size_t i)
{
    hx_row r = {true, c->a[i].i, c->b[i].i};
    if (c->src->kind == HOST_EXTRACT_SYSTEM) {
        if (r.end < r.start)
            r.end = r.start;
        return r;
    }
    uint64_t f = c->f[i].u;
    r.eligible = hx_fw_eligible(c, i);
    r.start = c->a[i].i + c->base;
    r.end = r.start + ((f & FM_F_DUR) && c->b[i].i > 0 ? c->b[i].i : 0);
    return r;
}

/* The same values for one row outside a chunk (the cursor row). */
static hx_row hx_row_single(hx_ctx *c, size_t row)
{
    hx_read_chunk(c, row, 1);
    return hx_row_at(c, 0);
}

static bool hx_in_window(const host_extract_filter *f, int64_t s, int64_t e)
{
    int64_t a = f->has_start ? f->start_ns : INT64_MIN, b = f->has_end ? f->end_ns : INT64_MAX;
    if (a == b)
        return s <= a && (e > a || s == a);
    return s < b && (e > a || (e == s && s >= a));
}

static bool hx_test(const hx_ctx *c, int which, size_t row, const hx_row *r)
{
    const host_extract_filter *f = &c->req->filter;
    switch (which) {
    case HOST_EXTRACT_F_ENGINE:
        return c->src->kind == HOST_EXTRACT_SYSTEM ? hx_sys_engine_row(c, row) : c->thread_ok[c->row_threads[row]];
    case HOST_EXTRACT_F_NAME: return c->name_ok[table_code(c->t, c->name_col, row)];
    case HOST_EXTRACT_F_WINDOW: return hx_in_window(f, r->start, r->end);
    default: return r->end - r->start >= f->min_duration_ns;
    }
}

static bool hx_matches(const hx_ctx *c, size_t row, const hx_row *r)
{
    if (!r->eligible)
        return false;
    for (int f = 0; f < HOST_EXTRACT_FILTER_COUNT; f++)
        if (c->set[f] && !hx_test(c, f, row, r))
            return false;
    return true;
}

static bool hx_cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

/* ---- order -------------------------------------------------------------------------------------------- */

/* A row's page key: sort value (descending; 0 for time order), start, row. */
typedef row_order_key hx_key;

static int64_t hx_bytes(const hx_ctx *c, size_t row)
{
    uint64_t v;
    if (c->src->kind == HOST_EXTRACT_SYSTEM)
        v = table_u64(c->t, SM_SPAN_BYTES, row);
    else
        v = table_u64(c->t, FM_EV_FLAGS, row) & FM_F_BYTES ? table_u64(c->t, FM_EV_BYTES, row) : 0;
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

static hx_key hx_key_of(const hx_ctx *c, size_t row, const hx_row *r)
{
    hx_key k = {0, r->start, row};
    if (c->req->sort == HOST_EXTRACT_SORT_DURATION)
        k.value = r->end - r->start;
    else if (c->req->sort == HOST_EXTRACT_SORT_BYTES)
        k.value = hx_bytes(c, row);
    return k;
}

/* ---- run ---------------------------------------------------------------------------------------------- */

/* The cursor row's key; an argument error when it is not a row of the kind. */
static int hx_cursor_key(hx_ctx *c, hx_key *after, nl_error *err)
{
    hx_row r = {false, 0, 0};
    size_t row = c->req->after_row;
    if (row < c->rows)
        r = hx_row_single(c, row);
    if (!r.eligible)
        return hx_arg_error(err, "cursor", "the cursor points at row %zu, which is not a %s row (the table has %zu "
                            "rows)", row, host_extract_kind_name(c->src->kind), c->rows);
    *after = hx_key_of(c, row, &r);
    return 0;
}

/* Rank every row through a heap of `limit` keys (no order given). */
static int hx_page_scan(hx_ctx *c, const hx_key *after, const atomic_int *cancel, extract_page *out, nl_error *err)
{
    const host_extract_request *req = c->req;
    topn heap = {0};
    int rc = topn_init(&heap, sizeof(hx_key), req->limit, row_order_key_cmp, NULL) ? hx_nomem(err, "page heap") : 0;
    for (size_t base = 0; !rc && base < c->rows; base += EXTRACT_CHUNK) {
        if (hx_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = c->rows - base < EXTRACT_CHUNK ? c->rows - base : EXTRACT_CHUNK;
        hx_read_chunk(c, base, n);
        for (size_t i = 0; i < n; i++) {
            hx_row r = hx_row_at(c, i);
            if (!hx_matches(c, base + i, &r))
                continue;
            out->total++;
            hx_key k = hx_key_of(c, base + i, &r);
            if (req->has_after && row_order_key_cmp(&k, after, NULL) <= 0)
                continue;
            out->after_cursor++;
            topn_offer(&heap, &k);
        }
    }
    if (!rc) {
        size_t n = topn_finish(&heap);
        if (!(out->rows = malloc((n ? n : 1) * sizeof *out->rows))) {
            rc = hx_nomem(err, "page");
        } else {
            for (size_t i = 0; i < n; i++)
                out->rows[i] = ((const hx_key *)topn_at(&heap, i))->row;
            out->count = n;
        }
    }
    topn_close(&heap);
    return rc;
}

/* ---- memoized order ----------------------------------------------------------------------------------- */

struct host_extract_order {
    host_extract_kind kind;
    host_extract_sort sort;
    row_order *rows;
};

_Static_assert(ROW_ORDER_CHUNK <= EXTRACT_CHUNK, "row_order chunks are decoded into the EXTRACT_CHUNK buffers");
_Static_assert(EXTRACT_CHUNK % 64 == 0, "match bits are packed a word at a time from chunk starts");

/* row_order_keys_fn: the hx_key of rows [base, base + n); rows that are not timeline rows are left out. */
static void hx_order_keys(void *ctx, size_t base, size_t n, int64_t *value, int64_t *ts, uint8_t *keep)
{
    hx_ctx *c = ctx;
    hx_read_chunk(c, base, n);
    for (size_t i = 0; i < n; i++) {
        hx_row r = hx_row_at(c, i);
        hx_key k = hx_key_of(c, base + i, &r);
        value[i] = k.value;
        ts[i] = k.ts;
        keep[i] = r.eligible;
    }
}

int host_extract_order_build(const host_extract_source *src, host_extract_sort sort, const atomic_int *cancel,
                             host_extract_order **out, nl_error *err)
{
    host_extract_request req = {.sort = sort, .limit = 1};
    host_extract_order *o = NULL;
    hx_ctx c;
    int rc = hx_open(&c, src, &req, err);
    if (!rc && !(o = calloc(1, sizeof *o)))
        rc = hx_nomem(err, "order");
    if (!rc)
        rc = row_order_build(c.rows, hx_order_keys, &c, cancel, &o->rows, err);
    hx_ctx_close(&c);
    if (rc) {
        host_extract_order_free(o);
        *out = NULL;
        return -1;
    }
    o->kind = src->kind;
    o->sort = sort;
    *out = o;
    return 0;
}

void host_extract_order_free(host_extract_order *o)
{
    if (o)
        row_order_free(o->rows);
    free(o);
}

size_t host_extract_order_bytes(const host_extract_order *o)
{
    return sizeof *o + row_order_bytes(o->rows);
}

/* Scratch of the match pass: the chunk's rows, a keep flag per row, name codes. */
typedef struct hx_match_scratch {
    hx_row *rows;
    uint8_t *keep;
    uint32_t *names;
} hx_match_scratch;

/* keep[i] &= the set filter `which` holds for chunk row i (one filter at a time over the chunk). */
static void hx_keep_filter(const hx_ctx *c, hx_match_scratch *x, int which, size_t base, size_t n)
{
    const host_extract_filter *f = &c->req->filter;
    switch (which) {
    case HOST_EXTRACT_F_ENGINE:
        for (size_t i = 0; i < n; i++)
            x->keep[i] &= c->src->kind == HOST_EXTRACT_SYSTEM ? hx_sys_engine_row(c, base + i)
                                                              : c->thread_ok[c->row_threads[base + i]];
        return;
    case HOST_EXTRACT_F_NAME:
        table_read_codes(c->t, c->name_col, base, n, x->names);
        for (size_t i = 0; i < n; i++)
            x->keep[i] &= c->name_ok[x->names[i]];
        return;
    case HOST_EXTRACT_F_WINDOW:
        for (size_t i = 0; i < n; i++)
            x->keep[i] &= hx_in_window(f, x->rows[i].start, x->rows[i].end);
        return;
    default:
        for (size_t i = 0; i < n; i++)
            x->keep[i] &= x->rows[i].end - x->rows[i].start >= f->min_duration_ns;
        return;
    }
}

/* keep[i] = chunk row i is a timeline row, with its times in rows[i] (a window or minimum duration is set). */
static void hx_match_rows(hx_ctx *c, hx_match_scratch *x, size_t base, size_t n)
{
    hx_read_chunk(c, base, n);
    for (size_t i = 0; i < n; i++) {
        x->rows[i] = hx_row_at(c, i);
        x->keep[i] = x->rows[i].eligible;
    }
}

/* keep[i] = chunk row i is a timeline row, decoding only what that takes (the framework flags and phase). */
static void hx_match_eligible(hx_ctx *c, hx_match_scratch *x, size_t base, size_t n)
{
    if (c->src->kind == HOST_EXTRACT_SYSTEM) {
        memset(x->keep, 1, n);
        return;
    }
    table_read(c->t, FM_EV_FLAGS, base, n, c->f);
    table_read_codes(c->t, FM_EV_PH, base, n, c->codes);
    for (size_t i = 0; i < n; i++)
        x->keep[i] = hx_fw_eligible(c, i);
}

/* One bit per row that is a timeline row and passes every set filter; *total = how many. Same tests as
 * hx_matches, a filter at a time over each chunk: at 1.8M framework events an engine filter took 48 ms a
 * row at a time (table_code per row for the phase), 6 ms so, decoding only the columns the filters read. */
static int hx_match_bits(hx_ctx *c, const atomic_int *cancel, uint64_t **out, uint64_t *total, nl_error *err)
{
    uint64_t *match = calloc(row_order_match_words(c->rows) + 1, sizeof *match);
    hx_match_scratch x = {malloc(EXTRACT_CHUNK * sizeof *x.rows), malloc(EXTRACT_CHUNK),
                          malloc(EXTRACT_CHUNK * sizeof *x.names)};
    int rc = !match || !x.rows || !x.keep || !x.names ? hx_nomem(err, "match bits") : 0;
    bool need_times = c->set[HOST_EXTRACT_F_WINDOW] || c->set[HOST_EXTRACT_F_MIN_DURATION];
    *total = 0;
    for (size_t base = 0; !rc && base < c->rows; base += EXTRACT_CHUNK) {
        if (hx_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = c->rows - base < EXTRACT_CHUNK ? c->rows - base : EXTRACT_CHUNK;
        if (need_times)
            hx_match_rows(c, &x, base, n);
        else
            hx_match_eligible(c, &x, base, n);
        for (int f = 0; f < HOST_EXTRACT_FILTER_COUNT; f++)
            if (c->set[f])
                hx_keep_filter(c, &x, f, base, n);
        *total += row_order_match_pack(match, base, x.keep, n);
    }
    free(x.rows);
    free(x.keep);
    free(x.names);
    if (rc) {
        free(match);
        return -1;
    }
    *out = match;
    return 0;
}

static bool hx_any_filter(const hx_ctx *c)
{
    for (int f = 0; f < HOST_EXTRACT_FILTER_COUNT; f++)
        if (c->set[f])
            return true;
    return false;
}

/* The page from a memoized order (step 2 of the design note). */
static int hx_page_ordered(hx_ctx *c, const host_extract_order *o, const hx_key *after, const atomic_int *cancel,
                           extract_page *out, nl_error *err)
{
    if (o->kind != c->src->kind || o->sort != c->req->sort || row_order_table_rows(o->rows) != c->rows)
        return nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "the order was built for %s by %s over %zu rows, not for "
                            "this request", host_extract_kind_name(o->kind), host_extract_sort_name(o->sort),
                            row_order_table_rows(o->rows));
    uint64_t *match = NULL;
    if (hx_any_filter(c) && hx_match_bits(c, cancel, &match, &out->total, err))
        return -1;
    out->ordered = true;
    if (!(out->rows = malloc(c->req->limit * sizeof *out->rows))) {
        free(match);
        return hx_nomem(err, "page");
    }
    row_order_key key = {after->value, after->ts, after->row};
    if (match && row_order_is_sparse(o->rows, out->total)) {
        int rc = row_order_rank_matches(c->rows, match, c->req->has_after ? &key : NULL, hx_order_keys, c,
                                        c->req->limit, out->rows, &out->count, &out->after_cursor);
        free(match);
        return rc ? hx_nomem(err, "page heap") : 0;
    }
    size_t from = c->req->has_after ? row_order_upper_bound(o->rows, key.value, key.ts, key.row, hx_order_keys, c) : 0;
    if (!match)
        out->total = row_order_count(o->rows);
    out->after_cursor = row_order_matches_from(o->rows, from, match, out->total);
    out->count = row_order_take(o->rows, from, match, c->req->limit, out->rows);
    free(match);
    return 0;
}

int host_extract_run(const host_extract_source *src, const host_extract_request *req, const atomic_int *cancel,
                     extract_page *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    hx_ctx c;
    hx_key after = {0};
    int rc = hx_open(&c, src, req, err);
    if (!rc && req->has_after)
        rc = hx_cursor_key(&c, &after, err);
    if (!rc)
        rc = req->order ? hx_page_ordered(&c, req->order, &after, cancel, out, err)
                        : hx_page_scan(&c, &after, cancel, out, err);
    hx_ctx_close(&c);
    if (rc) {
        extract_page_free(out);
        return -1;
    }
    out->more = out->after_cursor > out->count;
    return 0;
}

int host_extract_explain(const host_extract_source *src, const host_extract_request *req, const atomic_int *cancel,
                         int64_t counts[HOST_EXTRACT_FILTER_COUNT], nl_error *err)
{
    hx_ctx c;
    int rc = hx_open(&c, src, req, err);
    for (int f = 0; f < HOST_EXTRACT_FILTER_COUNT; f++)
        counts[f] = !rc && c.set[f] ? 0 : -1;
    for (size_t base = 0; !rc && base < c.rows; base += EXTRACT_CHUNK) {
        if (hx_cancelled(cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            break;
        }
        size_t n = c.rows - base < EXTRACT_CHUNK ? c.rows - base : EXTRACT_CHUNK;
        hx_read_chunk(&c, base, n);
        for (size_t i = 0; i < n; i++) {
            hx_row r = hx_row_at(&c, i);
            for (int f = 0; r.eligible && f < HOST_EXTRACT_FILTER_COUNT; f++)
                if (c.set[f] && hx_test(&c, f, base + i, &r))
                    counts[f]++;
        }
    }
    hx_ctx_close(&c);
    return rc;
}

void host_extract_count(const host_extract_source *src, host_extract_counts *out)
{
    memset(out, 0, sizeof *out);
    host_extract_request req = {.limit = 1};
    hx_ctx c;
    if (hx_open(&c, src, &req, NULL)) {
        hx_ctx_close(&c);
        return;
    }
    out->rows = c.rows;
    for (size_t base = 0; base < c.rows; base += EXTRACT_CHUNK) {
        size_t n = c.rows - base < EXTRACT_CHUNK ? c.rows - base : EXTRACT_CHUNK;
        hx_read_chunk(&c, base, n);
        for (size_t i = 0; i < n; i++) {
            hx_row r = hx_row_at(&c, i);
            if (!r.eligible) {
                bool meta = src->kind == HOST_EXTRACT_FRAMEWORK && c.ph_meta[table_code(c.t, FM_EV_PH, base + i)];
                out->metadata += meta;
                out->untimed += !meta;
                continue;
            }
            out->eligible++;
            if (!out->has_range || r.start < out->first_ns)
                out->first_ns = r.start;
            if (!out->has_range || r.end > out->last_ns)
                out->last_ns = r.end;
            out->has_range = true;
        }
    }
    hx_ctx_close(&c);
}

/* ---- accepted engines --------------------------------------------------------------------------------- */

static void hx_list_sys_column(name_list *l, const table *t, uint32_t col, const char *prefix)
{
    char name[48];
    for (size_t r = 0; t && r < table_rows(t) && !l->full; r++) {
        int64_t v = table_i64(t, col, r);
        if (v < 0)
            continue;
        snprintf(name, sizeof name, "%s%lld", prefix, (long long)v);
        name_list_add(l, name);
    }
}

void host_extract_engines(const host_extract_source *src, char *buf, size_t cap)
{
    name_list l;
    name_list_init(&l, buf, cap, 8, false); /* lane and pid/tid names match exactly */
    name_list_add(&l, "host");
    name_list_add(&l, "device");
    if (src->kind == HOST_EXTRACT_SYSTEM) {
        const table *t = system_model_table_get(src->sys, SM_SPANS);
        hx_list_sys_column(&l, t, SM_SPAN_NC, "nc");
        hx_list_sys_column(&l, t, SM_SPAN_CORE, "core");
        hx_list_sys_column(&l, t, SM_SPAN_WORKER, "worker");
        return;
    }
    const framework_model *m = src->fw;
    char name[160];
    for (size_t i = 0; i < framework_model_process_count(m) && !l.full; i++) {
        const framework_model_process *p = framework_model_process_at(m, i);
        snprintf(name, sizeof name, "pid:%.64s", framework_model_str(m, p->pid, NULL));
        name_list_add(&l, name);
    }
    for (size_t i = 0; i < framework_model_thread_count(m) && !l.full; i++) {
        const framework_model_thread *th = framework_model_thread_at(m, i);
        snprintf(name, sizeof name, "tid:%.64s", framework_model_str(m, th->tid, NULL));
        name_list_add(&l, name);
    }
}
