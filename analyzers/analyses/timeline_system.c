/* timeline_system — the timeline adapter (timeline.h) of a system profile's spans: kind system, every
 * SM_SPANS row of a system_model (ntrace.pb begin/end pairs, instants, unpaired records). See
 * timeline_kinds.h for what its filters match.
 *
 * Times are the model's: unix ns on the host CPU clock (hardware events already shifted to CPU time,
 * formats.md §9.3). A span is [start, end); an end before its start reads as an instant. Every span is a
 * timeline row. The engine filter names one lane (host / device by the hardware flag, or one value of the
 * nc, core, worker or thread column) and is checked against the spans once (a lane without spans is an
 * argument error); the opcode glob resolves once per dictionary code of the type name.
 * State: the resolved filters of one request, one thread. */
#include "timeline_kinds.h"
#include "name_list.h"
#include "system_model.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- columns ------------------------------------------------------------------------------------------ */

enum {
    SY_ROW, SY_TYPE, SY_START, SY_END, SY_DURATION, SY_PHASE, SY_HARDWARE, SY_WORKER, SY_NC, SY_CORE, SY_EXEC,
    SY_MODEL, SY_BYTES, SY_THREAD, SY_SPAN_ID, SY_NC_START, SY_NC_END, SY_USAGE, SY_NEFF, SY_ATTRS, SY_COUNT
};
static const timeline_column sy_columns[SY_COUNT] = {
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

/* ---- cells -------------------------------------------------------------------------------------------- */

static const system_model *sy_model(const timeline_source *src)
{
    return src->model;
}

static void sy_int_or_null(int64_t v, timeline_cell *out)
{
    if (v >= 0)
        timeline_cell_int(out, v);
}

static const char *sy_string(const system_model *m, uint32_t id)
{
    return strtab_str(system_model_strings(m), id, NULL);
}

/* "k=v, k=v" of a span's SM_ATTRS rows, cut at TIMELINE_ATTRS_MAX with " …". */
static const char *sy_attrs(const system_model *m, size_t row, char *scratch)
{
    const table *sp = system_model_table_get(m, SM_SPANS), *at = system_model_table_get(m, SM_ATTRS);
    uint64_t first = table_u64(sp, SM_SPAN_ATTR_FIRST, row), n = table_u64(sp, SM_SPAN_ATTR_COUNT, row);
    size_t used = 0;
    scratch[0] = '\0';
    for (uint64_t i = 0; at && i < n && first + i < table_rows(at); i++) {
        const char *k = sy_string(m, table_str(at, SM_ATTR_KEY, (size_t)(first + i)));
        const char *v = sy_string(m, table_str(at, SM_ATTR_VALUE, (size_t)(first + i)));
        int w = snprintf(scratch + used, TIMELINE_ATTRS_MAX - used, "%s%s=%s", used ? ", " : "", k ? k : "",
                         v ? v : "");
        if (w < 0 || (size_t)w >= TIMELINE_ATTRS_MAX - used) {
            while (used > 0 && ((unsigned char)scratch[used] & 0xc0) == 0x80)
                used--;
            strcpy(scratch + used, " \xe2\x80\xa6");
            break;
        }
        used += (size_t)w;
    }
    return scratch;
}

static void sy_cell(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out)
{
    const system_model *m = sy_model(src);
    const table *t = system_model_table_get(m, SM_SPANS);
    uint64_t flags = table_u64(t, SM_SPAN_FLAGS, row), model;
    int64_t start = table_i64(t, SM_SPAN_START, row), end = table_i64(t, SM_SPAN_END, row);
    switch (col) {
    case SY_ROW: timeline_cell_int(out, (int64_t)row); return;
    case SY_TYPE: timeline_cell_str(out, sy_string(m, table_str(t, SM_SPAN_TYPE, row))); return;
    case SY_START: timeline_cell_int(out, start); return;
    case SY_END: timeline_cell_int(out, end); return;
    case SY_DURATION: timeline_cell_int(out, end - start); return;
    case SY_PHASE:
        timeline_cell_str(out, flags & SM_SPAN_F_INSTANT ? "instant" : flags & SM_SPAN_F_OPEN ? "open"
               : flags & SM_SPAN_F_ORPHAN_END ? "orphan_end" : "span");
        return;
    case SY_HARDWARE: timeline_cell_bool(out, flags & SM_SPAN_F_HARDWARE); return;
    case SY_WORKER: sy_int_or_null(table_i64(t, SM_SPAN_WORKER, row), out); return;
    case SY_NC: sy_int_or_null(table_i64(t, SM_SPAN_NC, row), out); return;
    case SY_CORE: sy_int_or_null(table_i64(t, SM_SPAN_CORE, row), out); return;
    case SY_EXEC: sy_int_or_null(table_i64(t, SM_SPAN_EXEC, row), out); return;
    case SY_MODEL:
        if ((model = table_u64(t, SM_SPAN_MODEL, row)) != 0)
            timeline_cell_uint(out, TIMELINE_CELL_ID, model);
        return;
    case SY_BYTES: timeline_cell_uint(out, TIMELINE_CELL_UINT, table_u64(t, SM_SPAN_BYTES, row)); return;
    case SY_THREAD: timeline_cell_uint(out, TIMELINE_CELL_UINT, table_u64(t, SM_SPAN_THREAD, row)); return;
    case SY_SPAN_ID: timeline_cell_uint(out, TIMELINE_CELL_ID, table_u64(t, SM_SPAN_ID, row)); return;
    case SY_NC_START: sy_int_or_null(table_i64(t, SM_SPAN_NC_BEGIN, row), out); return;
    case SY_NC_END: sy_int_or_null(table_i64(t, SM_SPAN_NC_END, row), out); return;
    case SY_USAGE: timeline_cell_str(out, sy_string(m, table_str(t, SM_SPAN_USAGE, row))); return;
    case SY_NEFF:
        model = table_u64(t, SM_SPAN_MODEL, row);
        timeline_cell_str(out, model ? system_model_neff_path(m, model) : NULL);
        return;
    default: timeline_cell_str(out, sy_attrs(m, row, scratch)); return;
    }
}

/* ---- rows and filters --------------------------------------------------------------------------------- */

/* Which spans the engine filter keeps: a flag test or one integer column equal to a value. */
typedef enum sy_lane { SY_LANE_NONE, SY_LANE_HOST, SY_LANE_DEVICE, SY_LANE_NC, SY_LANE_CORE, SY_LANE_WORKER,
                       SY_LANE_THREAD } sy_lane;

typedef struct sy_state {
    const system_model *m;
    const table *t;          /* SM_SPANS; NULL when the model has none */
    uint8_t *name_ok;        /* per dictionary code of the type name */
    sy_lane lane;
    int64_t lane_value;
} sy_state;

static size_t sy_rows(const timeline_source *src)
{
    const table *t = system_model_table_get(sy_model(src), SM_SPANS);
    return t ? table_rows(t) : 0;
}

static void sy_close(void *state)
{
    sy_state *s = state;
    if (!s)
        return;
    free(s->name_ok);
    free(s);
}

/* An argument error about the engine value `e`. */
static int sy_lane_error(nl_error *err, const char *e, bool malformed)
{
    if (malformed)
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "engine '%.64s' is not a system-profile lane; accepted: host, "
                     "device, nc<N>, core<N>, worker<N>, thread<N>", e);
    else
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "no span of this system profile is on '%.64s'", e);
    nl_error_set_field(err, "engine");
    return -1;
}

/* Whether `s` is `prefix` followed by decimal digits only ("nc12"), with the number in *v. */
static bool sy_prefixed_number(const char *s, const char *prefix, int64_t *v)
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

/* The column a lane tests (flags for host and device). */
static uint32_t sy_lane_column(sy_lane lane)
{
    switch (lane) {
    case SY_LANE_NC: return SM_SPAN_NC;
    case SY_LANE_CORE: return SM_SPAN_CORE;
    case SY_LANE_WORKER: return SM_SPAN_WORKER;
    case SY_LANE_THREAD: return SM_SPAN_THREAD;
    default: return SM_SPAN_FLAGS;
    }
}

/* Whether a span whose lane column holds `v` is on the lane. */
static bool sy_on_lane(const sy_state *s, table_value v)
{
    switch (s->lane) {
    case SY_LANE_HOST: return !(v.u & SM_SPAN_F_HARDWARE);
    case SY_LANE_DEVICE: return (v.u & SM_SPAN_F_HARDWARE) != 0;
    case SY_LANE_THREAD: return v.u == (uint64_t)s->lane_value;
    case SY_LANE_NONE: return true;
    default: return v.i == s->lane_value;
    }
}

static int sy_resolve_lane(sy_state *s, const char *e, size_t rows, nl_error *err)
{
    if (!strcasecmp(e, "host"))
        s->lane = SY_LANE_HOST;
    else if (!strcasecmp(e, "device") || !strcasecmp(e, "hardware"))
        s->lane = SY_LANE_DEVICE;
    else if (sy_prefixed_number(e, "nc", &s->lane_value))
        s->lane = SY_LANE_NC;
    else if (sy_prefixed_number(e, "core", &s->lane_value))
        s->lane = SY_LANE_CORE;
    else if (sy_prefixed_number(e, "worker", &s->lane_value))
        s->lane = SY_LANE_WORKER;
    else if (sy_prefixed_number(e, "thread", &s->lane_value))
        s->lane = SY_LANE_THREAD;
    else
        return sy_lane_error(err, e, true);
    uint32_t col = sy_lane_column(s->lane);
    for (size_t r = 0; r < rows; r++) {
        table_value v;
        table_read(s->t, col, r, 1, &v);
        if (sy_on_lane(s, v))
            return 0;
    }
    return sy_lane_error(err, e, false);
}

static int sy_open(const timeline_source *src, const timeline_filter *f, void **state, nl_error *err)
{
    sy_state *s = calloc(1, sizeof *s);
    *state = s;
    if (!s)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (system timeline)");
    s->m = sy_model(src);
    s->t = system_model_table_get(s->m, SM_SPANS);
    if (!s->t || !f)
        return 0;
    if (f->opcode_glob) {
        uint32_t n = table_dict_size(s->t, SM_SPAN_TYPE);
        if (!(s->name_ok = calloc(n ? n : 1, 1)))
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (name filter)");
        for (uint32_t code = 0; code < n; code++) {
            const char *name = sy_string(s->m, table_dict_id(s->t, SM_SPAN_TYPE, code));
            s->name_ok[code] = name && *name && !fnmatch(f->opcode_glob, name, FNM_CASEFOLD);
        }
    }
    return f->engine ? sy_resolve_lane(s, f->engine, table_rows(s->t), err) : 0;
}

static void sy_read(void *state, size_t base, size_t n, unsigned fields, const timeline_chunk *out)
{
    const sy_state *s = state;
    if (!s->t)
        return;
    if (fields & (TIMELINE_START | TIMELINE_END | TIMELINE_DURATION)) {
        table_read(s->t, SM_SPAN_START, base, n, out->start);
        table_read(s->t, SM_SPAN_END, base, n, out->end);
        for (size_t i = 0; i < n; i++) {
            int64_t st = out->start[i].i, e = out->end[i].i < st ? st : out->end[i].i;
            out->end[i].i = e;
            out->duration[i].i = e - st;
        }
    }
    if (fields & TIMELINE_WAIT)
        for (size_t i = 0; i < n; i++)
            out->wait[i].i = 0;
    if (fields & TIMELINE_BYTES) {
        table_read(s->t, SM_SPAN_BYTES, base, n, out->bytes);
        for (size_t i = 0; i < n; i++) {
            uint64_t u = out->bytes[i].u;
            out->bytes[i].i = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
        }
    }
}

static void sy_match(void *state, timeline_filter_id which, size_t base, size_t n, const timeline_chunk *x,
                     uint8_t *keep)
{
    const sy_state *s = state;
    if (!s->t)
        return;
    if (which == TIMELINE_F_ENGINE) {
        const table_value *v = x->scratch;
        sy_state lane = *s; /* a local copy: a store through keep may alias any field */
        table_read(s->t, sy_lane_column(s->lane), base, n, x->scratch);
        for (size_t i = 0; i < n; i++)
            keep[i] &= sy_on_lane(&lane, v[i]);
    } else if (which == TIMELINE_F_OPCODE) {
        const uint8_t *ok = s->name_ok;
        uint32_t *code = x->codes[0];
        table_read_codes(s->t, SM_SPAN_TYPE, base, n, code);
        for (size_t i = 0; i < n; i++)
            keep[i] &= ok[code[i]];
    }
}

/* ---- accepted engines --------------------------------------------------------------------------------- */

static void sy_list_lanes(name_list *l, const table *t, uint32_t col, const char *prefix)
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

static void sy_engines(const timeline_source *src, char *buf, size_t cap)
{
    const table *t = system_model_table_get(sy_model(src), SM_SPANS);
    name_list l;
    name_list_init(&l, buf, cap, 8, false); /* lane names match exactly */
    name_list_add(&l, "host");
    name_list_add(&l, "device");
    sy_list_lanes(&l, t, SM_SPAN_NC, "nc");
    sy_list_lanes(&l, t, SM_SPAN_CORE, "core");
    sy_list_lanes(&l, t, SM_SPAN_WORKER, "worker");
}

/* ---- the adapter -------------------------------------------------------------------------------------- */

#define SY_FILTERS ((1u << TIMELINE_F_ENGINE) | (1u << TIMELINE_F_OPCODE) | (1u << TIMELINE_F_WINDOW) | \
                    (1u << TIMELINE_F_MIN_DURATION))

const timeline_adapter timeline_system = {
    .kind = "system",
    .data = NULL,
    .filters = SY_FILTERS,
    .sorts = (1u << TIMELINE_SORT_TIME) | (1u << TIMELINE_SORT_DURATION) | (1u << TIMELINE_SORT_BYTES),
    .filters_accepted = "kind system accepts engine, opcode (a glob on the event type name), start_ns / end_ns (unix "
                        "ns) and min_duration_ns",
    .sorts_accepted = "time, duration, bytes",
    .cursor_filters = SY_FILTERS,
    .columns = sy_columns,
    .ncolumns = SY_COUNT,
    .unix_time = true,
    .units_time = "unix ns on the host CPU clock (ntrace.pb f2; device events already shifted to CPU time by the "
                  "per-core timestamp_sync_point); start_ns/end_ns filters use the same clock",
    .units_opcode = "glob on the event type name",
    .left_out_names = NULL,
    .nleft_out = 0,
    .engines_note = "",
    .rows = sy_rows,
    .open = sy_open,
    .close = sy_close,
    .read = sy_read,
    .match = sy_match,
    .cell = sy_cell,
    .engines = sy_engines,
    .empty_hint = NULL,
};
