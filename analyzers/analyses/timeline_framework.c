/* timeline_framework — the timeline adapter (timeline.h) of a PyTorch/Kineto trace's events: kind
 * framework, the rows of framework_model_events. See timeline_kinds.h for what its filters match.
 *
 * Rows: every event except metadata (ph M, left-out reason 1) and events without a usable ts (reason 2);
 * row indices are table rows, so a cursor is stable. Time: the model keeps the file's time base (ts in µs
 * converted exactly to ns); every time crossing the adapter is unix ns, the file time shifted by
 * baseTimeNanoseconds when the trace has one (formats.md §10.3: unix ns = baseTimeNanoseconds + ts·1000;
 * without it ts is already unix µs). An event is [start, start + dur), an instant without a positive dur.
 * The engine filter resolves to one byte per thread of the trace (a row's thread is
 * framework_model_row_threads()[row]); the opcode glob to one byte per dictionary code of the name.
 * State: the resolved filters of one request, one thread. */
#include "timeline_kinds.h"
#include "framework_model.h"
#include "name_list.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { FW_LEFT_OUT_METADATA = 1, FW_LEFT_OUT_NO_TS = 2 };
static const char *const fw_left_out_names[] = {"metadata_events", "events_without_ts"};

/* ---- columns ------------------------------------------------------------------------------------------ */

enum {
    FW_ROW, FW_NAME, FW_CAT, FW_PH, FW_START, FW_END, FW_DURATION, FW_PID, FW_TID, FW_ROLE, FW_PROCESS, FW_THREAD,
    FW_CORR, FW_EXT, FW_FLOW, FW_BYTES, FW_DETAIL, FW_COUNT
};
static const timeline_column fw_columns[FW_COUNT] = {
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

/* ---- cells -------------------------------------------------------------------------------------------- */

static const framework_model *fw_model(const timeline_source *src)
{
    return src->model;
}

static int64_t fw_base(const framework_model *m)
{
    int64_t base = 0;
    return framework_model_time_base(m, &base) ? base : 0;
}

/* s[0..len) cut to TIMELINE_NAME_MAX bytes on a UTF-8 boundary with "…", in scratch when cut. */
static const char *fw_cut(const char *s, size_t len, char *scratch)
{
    if (!s || len <= TIMELINE_NAME_MAX)
        return s;
    size_t n = TIMELINE_NAME_MAX;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    memcpy(scratch, s, n);
    memcpy(scratch + n, "\xe2\x80\xa6", 4);
    return scratch;
}

/* An id column: a number, or (TEXT flag) the strtab id of its text. */
static void fw_id(const framework_model *m, const table *t, uint32_t col, size_t row, uint64_t has, uint64_t text,
                  timeline_cell *out)
{
    uint64_t flags = table_u64(t, FM_EV_FLAGS, row), v = table_u64(t, col, row);
    if (!(flags & has))
        return;
    if (flags & text)
        timeline_cell_str(out, framework_model_str(m, (uint32_t)v, NULL));
    else
        timeline_cell_uint(out, TIMELINE_CELL_ID, v);
}

static int64_t fw_dur(const table *t, size_t row)
{
    int64_t d = table_i64(t, FM_EV_DUR, row);
    return (table_u64(t, FM_EV_FLAGS, row) & FM_F_DUR) && d > 0 ? d : 0;
}

static void fw_cell(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out)
{
    const framework_model *m = fw_model(src);
    const table *t = framework_model_events(m);
    const uint32_t *threads = framework_model_row_threads(m);
    const framework_model_process *p = framework_model_process_at(m, table_code(t, FM_EV_PID, row));
    const framework_model_thread *th = threads ? framework_model_thread_at(m, threads[row]) : NULL;
    int64_t ts = table_i64(t, FM_EV_TS, row) + fw_base(m);
    size_t len;
    const char *s;
    switch (col) {
    case FW_ROW: timeline_cell_int(out, (int64_t)row); return;
    case FW_NAME:
        s = framework_model_str(m, table_str(t, FM_EV_NAME, row), &len);
        timeline_cell_str(out, fw_cut(s, len, scratch));
        return;
    case FW_CAT: timeline_cell_str(out, framework_model_str(m, table_str(t, FM_EV_CAT, row), NULL)); return;
    case FW_PH: timeline_cell_str(out, framework_model_str(m, table_str(t, FM_EV_PH, row), NULL)); return;
    case FW_START: timeline_cell_int(out, ts); return;
    case FW_END: timeline_cell_int(out, ts + fw_dur(t, row)); return;
    case FW_DURATION: timeline_cell_int(out, fw_dur(t, row)); return;
    case FW_PID: timeline_cell_str(out, framework_model_str(m, table_str(t, FM_EV_PID, row), NULL)); return;
    case FW_TID: timeline_cell_str(out, framework_model_str(m, table_str(t, FM_EV_TID, row), NULL)); return;
    case FW_ROLE: timeline_cell_str(out, p && p->device != FM_HOST ? "device" : "host"); return;
    case FW_PROCESS: timeline_cell_str(out, p ? framework_model_str(m, p->name ? p->name : p->labels, NULL) : NULL); return;
    case FW_THREAD: timeline_cell_str(out, th ? framework_model_str(m, th->name, NULL) : NULL); return;
    case FW_CORR: fw_id(m, t, FM_EV_CORR, row, FM_F_CORR, FM_F_CORR_TEXT, out); return;
    case FW_EXT: fw_id(m, t, FM_EV_EXT, row, FM_F_EXT, FM_F_EXT_TEXT, out); return;
    case FW_FLOW: fw_id(m, t, FM_EV_FLOW, row, FM_F_FLOW, FM_F_FLOW_TEXT, out); return;
    case FW_BYTES:
        if (table_u64(t, FM_EV_FLAGS, row) & FM_F_BYTES)
            timeline_cell_uint(out, TIMELINE_CELL_UINT, table_u64(t, FM_EV_BYTES, row));
        return;
    default:
        s = framework_model_str(m, table_str(t, FM_EV_DETAIL, row), &len);
        timeline_cell_str(out, fw_cut(s, len, scratch));
        return;
    }
}

/* ---- rows and filters --------------------------------------------------------------------------------- */

typedef struct fw_state {
    const framework_model *m;
    const table *t;            /* the events; NULL when the model has none */
    int64_t base;              /* file time + base = unix ns */
    const uint32_t *row_threads;
    uint8_t *ph_meta;          /* per FM_EV_PH code: 1 for M */
    uint8_t *name_ok;          /* per FM_EV_NAME code */
    uint8_t *thread_ok;        /* per thread index */
} fw_state;

static size_t fw_rows(const timeline_source *src)
{
    const table *t = framework_model_events(fw_model(src));
    return t ? table_rows(t) : 0;
}

static void fw_close(void *state)
{
    fw_state *s = state;
    if (!s)
        return;
    free(s->ph_meta);
    free(s->name_ok);
    free(s->thread_ok);
    free(s);
}

static int fw_nomem(nl_error *err, const char *what)
{
    return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (%s)", what);
}

static bool fw_eq_ci(const framework_model *m, uint32_t id, const char *s)
{
    const char *v = id ? framework_model_str(m, id, NULL) : NULL;
    return v && *v && !strcasecmp(v, s);
}

/* thread_ok[i] = thread i is on the engine value `e` (a role, "pid:<p>", "tid:<t>", or a pid, tid, process or
 * thread name written exactly); a value naming no thread is an argument error. */
static int fw_resolve_engine(fw_state *s, const char *e, nl_error *err)
{
    const framework_model *m = s->m;
    size_t n = framework_model_thread_count(m), hits = 0;
    if (!(s->thread_ok = calloc(n ? n : 1, 1)))
        return fw_nomem(err, "engine map");
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
                 fw_eq_ci(m, th->name, e) || (p && (fw_eq_ci(m, p->name, e) || fw_eq_ci(m, p->labels, e)));
        s->thread_ok[i] = ok;
        hits += ok;
    }
    if (hits)
        return 0;
    nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "no thread of this trace is '%.64s'", e);
    nl_error_set_field(err, "engine");
    return -1;
}

static int fw_resolve(fw_state *s, const timeline_filter *f, nl_error *err)
{
    if (f->opcode_glob) {
        uint32_t n = table_dict_size(s->t, FM_EV_NAME);
        if (!(s->name_ok = calloc(n ? n : 1, 1)))
            return fw_nomem(err, "name filter");
        for (uint32_t code = 0; code < n; code++) {
            const char *name = framework_model_str(s->m, table_dict_id(s->t, FM_EV_NAME, code), NULL);
            s->name_ok[code] = name && *name && !fnmatch(f->opcode_glob, name, FNM_CASEFOLD);
        }
    }
    return f->engine ? fw_resolve_engine(s, f->engine, err) : 0;
}

static int fw_open(const timeline_source *src, const timeline_filter *f, void **state, nl_error *err)
{
    fw_state *s = calloc(1, sizeof *s);
    *state = s;
    if (!s)
        return fw_nomem(err, "framework timeline");
    s->m = fw_model(src);
    s->t = framework_model_events(s->m);
    s->base = fw_base(s->m);
    s->row_threads = framework_model_row_threads(s->m);
    if (!s->t)
        return 0;
    uint32_t n = table_dict_size(s->t, FM_EV_PH);
    if (!(s->ph_meta = calloc(n ? n : 1, 1)))
        return fw_nomem(err, "phase map");
    for (uint32_t code = 0; code < n; code++)
        s->ph_meta[code] = !strcmp(framework_model_str(s->m, table_dict_id(s->t, FM_EV_PH, code), NULL), "M");
    return f ? fw_resolve(s, f, err) : 0;
}

static int64_t fw_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static void fw_read(void *state, size_t base, size_t n, unsigned fields, const timeline_chunk *out)
{
    const fw_state *s = state;
    const table_value *flags = out->scratch;
    if (!s->t)
        return;
    if (fields & (TIMELINE_LEFT_OUT | TIMELINE_END | TIMELINE_DURATION | TIMELINE_BYTES))
        table_read(s->t, FM_EV_FLAGS, base, n, out->scratch);
    if (fields & TIMELINE_LEFT_OUT) {
        uint32_t *ph = out->codes[0];
        const uint8_t *meta = s->ph_meta;
        uint8_t *why = out->left_out;
        table_read_codes(s->t, FM_EV_PH, base, n, ph); /* a table_code per row was half of a row's cost */
        for (size_t i = 0; i < n; i++)
            why[i] = meta[ph[i]] ? FW_LEFT_OUT_METADATA : !(flags[i].u & FM_F_TS) ? FW_LEFT_OUT_NO_TS : 0;
    }
    if (fields & (TIMELINE_START | TIMELINE_END)) {
        table_read(s->t, FM_EV_TS, base, n, out->start);
        for (size_t i = 0; i < n; i++)
            out->start[i].i = fw_add(out->start[i].i, s->base);
    }
    if (fields & (TIMELINE_END | TIMELINE_DURATION)) {
        table_read(s->t, FM_EV_DUR, base, n, out->duration);
        for (size_t i = 0; i < n; i++)
            if (!(flags[i].u & FM_F_DUR) || out->duration[i].i < 0)
                out->duration[i].i = 0;
    }
    if (fields & TIMELINE_END)
        for (size_t i = 0; i < n; i++)
            out->end[i].i = fw_add(out->start[i].i, out->duration[i].i);
    if (fields & TIMELINE_WAIT)
        for (size_t i = 0; i < n; i++)
            out->wait[i].i = 0;
    if (fields & TIMELINE_BYTES) {
        table_read(s->t, FM_EV_BYTES, base, n, out->bytes);
        for (size_t i = 0; i < n; i++) {
            uint64_t b = flags[i].u & FM_F_BYTES ? out->bytes[i].u : 0;
            out->bytes[i].i = b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)b;
        }
    }
}

static void fw_match(void *state, timeline_filter_id which, size_t base, size_t n, const timeline_chunk *x,
                     uint8_t *keep)
{
    const fw_state *s = state;
    if (!s->t)
        return;
    if (which == TIMELINE_F_ENGINE) {
        const uint8_t *ok = s->thread_ok; /* locals: a store through keep may alias any field */
        const uint32_t *thread = s->row_threads + base;
        for (size_t i = 0; i < n; i++)
            keep[i] &= ok[thread[i]];
    } else if (which == TIMELINE_F_OPCODE) {
        const uint8_t *ok = s->name_ok;
        uint32_t *code = x->codes[0];
        table_read_codes(s->t, FM_EV_NAME, base, n, code);
        for (size_t i = 0; i < n; i++)
            keep[i] &= ok[code[i]];
    }
}

/* ---- accepted engines --------------------------------------------------------------------------------- */

static void fw_engines(const timeline_source *src, char *buf, size_t cap)
{
    const framework_model *m = fw_model(src);
    name_list l;
    char name[160];
    name_list_init(&l, buf, cap, 8, false); /* pid and tid names match exactly */
    name_list_add(&l, "host");
    name_list_add(&l, "device");
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

/* ---- the adapter -------------------------------------------------------------------------------------- */

#define FW_FILTERS ((1u << TIMELINE_F_ENGINE) | (1u << TIMELINE_F_OPCODE) | (1u << TIMELINE_F_WINDOW) | \
                    (1u << TIMELINE_F_MIN_DURATION))

const timeline_adapter timeline_framework = {
    .kind = "framework",
    .data = NULL,
    .filters = FW_FILTERS,
    .sorts = (1u << TIMELINE_SORT_TIME) | (1u << TIMELINE_SORT_DURATION) | (1u << TIMELINE_SORT_BYTES),
    .filters_accepted = "kind framework accepts engine, opcode (a glob on the event name), start_ns / end_ns (unix "
                        "ns) and min_duration_ns",
    .sorts_accepted = "time, duration, bytes",
    .cursor_filters = FW_FILTERS,
    .columns = fw_columns,
    .ncolumns = FW_COUNT,
    .unix_time = true,
    .units_time = "unix ns on the host clock: baseTimeNanoseconds + ts (ts in µs converted exactly; unix µs when the "
                  "trace has no base); start_ns/end_ns filters use the same clock",
    .units_opcode = "glob on the event name",
    .left_out_names = fw_left_out_names,
    .nleft_out = sizeof fw_left_out_names / sizeof fw_left_out_names[0],
    .engines_note = ", or a pid, tid, process or thread name as written",
    .rows = fw_rows,
    .open = fw_open,
    .close = fw_close,
    .read = fw_read,
    .match = fw_match,
    .cell = fw_cell,
    .engines = fw_engines,
    .empty_hint = NULL,
};
