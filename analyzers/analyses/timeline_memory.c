/* timeline_memory — the timeline adapter (timeline.h) of a PyTorch allocator snapshot's trace: kind memory,
 * every device_traces entry of a memory_model (all devices, device by device in file order). See
 * timeline_kinds.h for what its filters match.
 *
 * Times: an entry's time_us is the allocator's clock (unix µs on CUDA); rows carry it as unix ns
 * (time_us × 1000, saturated). Every entry is an instant (start = end). Entries without time_us (the
 * `snapshot` marker of the 2.0 layout) are left out: they have no place on a timeline. The value sort bytes
 * ranks by, and min_bytes compares, is the entry's size (requested bytes; for oom the failed request; 0 when
 * the entry has none). Filters: engine names one device ("device<N>" or "<N>"; one without a trace is an
 * argument error); opcode is a comma-separated list of globs on the action name, resolved once per action.
 * State: the resolved filters of one request, one thread. */
#include "timeline_kinds.h"
#include "memory_model.h"
#include "memory_summary.h"
#include "name_list.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- columns ------------------------------------------------------------------------------------------ */

enum { MT_ROW, MT_DEVICE, MT_ACTION, MT_ADDR, MT_SIZE, MT_STREAM, MT_TIME, MT_SITE, MT_FRAMES, MT_CC, MT_UM, MT_COUNT };
static const timeline_column mt_columns[MT_COUNT] = {
    [MT_ROW] = {"row", "trace entry index in the memory model", false},
    [MT_DEVICE] = {"device", "device_traces index", true},
    [MT_ACTION] = {"action", "alloc, free_requested, free_completed, segment_alloc, segment_free, segment_map, "
                             "segment_unmap, oom, snapshot, other", true},
    [MT_ADDR] = {"addr", "address; for oom: device_free, B", true},
    [MT_SIZE] = {"size", "bytes (alloc/free: requested size; oom: the failed request)", true},
    [MT_STREAM] = {"stream", "stream handle as an integer", false},
    [MT_TIME] = {"time_ns", "time_us x 1000, unix ns (allocator clock)", true},
    [MT_SITE] = {"site", "allocation site file:line:function (innermost user frame, else framework)", true},
    [MT_FRAMES] = {"frames", "frames in the entry's stack trace", false},
    [MT_CC] = {"compile_context", "torch.compile context (newer PyTorch)", false},
    [MT_UM] = {"user_metadata", "user metadata (newer PyTorch)", false},
};

/* time_us as unix ns, saturated (time_us comes from the file) */
static int64_t mt_us_to_ns(int64_t us)
{
    if (us > INT64_MAX / 1000)
        return INT64_MAX;
    if (us < INT64_MIN / 1000)
        return INT64_MIN;
    return us * 1000;
}

static const memory_model *mt_model(const timeline_source *src)
{
    return src->model;
}

/* "file:line:function" of the entry's allocation site into scratch (TIMELINE_SCRATCH bytes), cut at
 * TIMELINE_ATTRS_MAX on a UTF-8 boundary with "…" (C++ frame names run to a few hundred bytes). */
static const char *mt_site(const memory_model *m, uint32_t stack, char *scratch)
{
    uint32_t site, via;
    bool user;
    memory_stack_site(m, stack, &site, &user, &via);
    if (site == MEMORY_SITE_NONE)
        return NULL;
    const table *fr = memory_model_frames(m);
    int n = snprintf(scratch, TIMELINE_ATTRS_MAX, "%s:%lld:%s", memory_model_str(m, table_str(fr, MM_FR_FILENAME, site), NULL),
                     (long long)table_i64(fr, MM_FR_LINE, site), memory_model_str(m, table_str(fr, MM_FR_NAME, site), NULL));
    if (n >= (int)TIMELINE_ATTRS_MAX) {
        size_t k = TIMELINE_ATTRS_MAX - 4;
        while (k > 0 && ((unsigned char)scratch[k] & 0xc0) == 0x80)
            k--;
        memcpy(scratch + k, "\xe2\x80\xa6", 4);
    }
    return scratch;
}

static void mt_cell(const timeline_source *src, int col, size_t row, char *scratch, timeline_cell *out)
{
    const memory_model *m = mt_model(src);
    const table *t = memory_model_trace(m);
    uint64_t flags = table_u64(t, MM_TR_FLAGS, row);
    uint32_t frames;
    switch (col) {
    case MT_ROW: timeline_cell_int(out, (int64_t)row); return;
    case MT_DEVICE: timeline_cell_uint(out, TIMELINE_CELL_UINT, table_u64(t, MM_TR_DEVICE, row)); return;
    case MT_ACTION: timeline_cell_str(out, memory_action_name((memory_action)table_u64(t, MM_TR_ACTION, row))); return;
    case MT_ADDR:
        if (flags & MM_TR_F_ADDR)
            timeline_cell_int(out, table_i64(t, MM_TR_ADDR, row));
        return;
    case MT_SIZE:
        if (flags & MM_TR_F_SIZE)
            timeline_cell_int(out, table_i64(t, MM_TR_SIZE, row));
        return;
    case MT_STREAM:
        if (flags & MM_TR_F_STREAM)
            timeline_cell_int(out, table_i64(t, MM_TR_STREAM, row));
        return;
    case MT_TIME:
        if (flags & MM_TR_F_TIME)
            timeline_cell_int(out, mt_us_to_ns(table_i64(t, MM_TR_TIME_US, row)));
        return;
    case MT_SITE: timeline_cell_str(out, mt_site(m, (uint32_t)table_u64(t, MM_TR_FRAMES, row), scratch)); return;
    case MT_FRAMES:
        memory_model_stack(m, (uint32_t)table_u64(t, MM_TR_FRAMES, row), &frames);
        timeline_cell_uint(out, TIMELINE_CELL_UINT, frames);
        return;
    case MT_CC: case MT_UM:
        timeline_cell_str(out, memory_model_str(m, table_str(t, col == MT_CC ? MM_TR_COMPILE_CONTEXT : MM_TR_USER_METADATA,
                                                             row), NULL));
        return;
    default: return;
    }
}

/* ---- rows and filters --------------------------------------------------------------------------------- */

typedef struct mt_state {
    const memory_model *m;
    const table *t;
    bool action_ok[MM_ACT_COUNT];
    uint64_t device;
} mt_state;

static size_t mt_rows(const timeline_source *src)
{
    return table_rows(memory_model_trace(mt_model(src)));
}

static void mt_close(void *state)
{
    free(state);
}

static int mt_arg(nl_error *err, const char *field, const char *msg)
{
    nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "%s", msg);
    nl_error_set_field(err, field);
    return -1;
}

/* "device<N>" or "<N>" into *out; false when malformed. */
static bool mt_parse_device(const char *e, uint64_t *out)
{
    const char *p = strncasecmp(e, "device", 6) ? e : e + 6;
    if (!*p || strlen(p) > 9)
        return false;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return false;
    *out = strtoull(p, NULL, 10);
    return true;
}

/* Each comma-separated glob of `list` against every action name; an item matching no action is an error
 * (a misspelt action would otherwise read as "no such entries"). */
static int mt_resolve_actions(mt_state *s, const char *list, nl_error *err)
{
    char glob[TIMELINE_NAME_MAX];
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        const char *a = p, *b = p + n;
        while (a < b && *a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        snprintf(glob, sizeof glob, "%.*s", (int)(b - a), a);
        bool any = false;
        for (int k = 0; k < MM_ACT_COUNT; k++)
            if (glob[0] && !fnmatch(glob, memory_action_name((memory_action)k), FNM_CASEFOLD))
                any = s->action_ok[k] = true;
        if (!any) {
            char msg[NL_ERROR_MESSAGE_MAX];
            snprintf(msg, sizeof msg, "'%.64s' matches no action; the actions are alloc, free_requested, "
                     "free_completed, segment_alloc, segment_free, segment_map, segment_unmap, oom, snapshot, other "
                     "(globs, comma-separated)", glob);
            return mt_arg(err, "opcode", msg);
        }
        p = p[n] ? p + n + 1 : p + n;
    }
    return 0;
}

static int mt_open(const timeline_source *src, const timeline_filter *f, void **state, nl_error *err)
{
    mt_state *s = calloc(1, sizeof *s);
    *state = s;
    if (!s)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (memory timeline)");
    s->m = mt_model(src);
    s->t = memory_model_trace(s->m);
    if (!f)
        return 0;
    if (f->opcode_glob && mt_resolve_actions(s, f->opcode_glob, err))
        return -1;
    if (f->engine) {
        uint32_t devices = memory_model_info_of(s->m)->trace_devices;
        if (!mt_parse_device(f->engine, &s->device))
            return mt_arg(err, "engine", "not a device; name one as device<N> or <N>");
        if (s->device >= devices) {
            char msg[160];
            snprintf(msg, sizeof msg, "device %llu has no trace; device_traces holds %u device(s)",
                     (unsigned long long)s->device, devices);
            return mt_arg(err, "engine", msg);
        }
    }
    return 0;
}

static void mt_read(void *state, size_t base, size_t n, unsigned fields, const timeline_chunk *out)
{
    const mt_state *s = state;
    if (fields & (TIMELINE_START | TIMELINE_END | TIMELINE_DURATION | TIMELINE_LEFT_OUT)) {
        table_read(s->t, MM_TR_TIME_US, base, n, out->start);
        table_read(s->t, MM_TR_FLAGS, base, n, out->scratch);
        for (size_t i = 0; i < n; i++) {
            out->start[i].i = mt_us_to_ns(out->start[i].i);
            out->end[i].i = out->start[i].i;
            out->duration[i].i = 0;
            out->left_out[i] = (out->scratch[i].u & MM_TR_F_TIME) ? 0 : 1;
        }
    }
    if (fields & TIMELINE_WAIT)
        for (size_t i = 0; i < n; i++)
            out->wait[i].i = 0;
    if (fields & TIMELINE_BYTES) {
        table_read(s->t, MM_TR_SIZE, base, n, out->bytes);
        for (size_t i = 0; i < n; i++)
            out->bytes[i].i = out->bytes[i].i < 0 ? 0 : out->bytes[i].i;
    }
}

static void mt_match(void *state, timeline_filter_id which, size_t base, size_t n, const timeline_chunk *x,
                     uint8_t *keep)
{
    const mt_state *s = state;
    const table_value *v = x->scratch;
    if (which == TIMELINE_F_ENGINE) {
        uint64_t device = s->device; /* a local copy: a store through keep may alias any field */
        table_read(s->t, MM_TR_DEVICE, base, n, x->scratch);
        for (size_t i = 0; i < n; i++)
            keep[i] &= v[i].u == device;
    } else if (which == TIMELINE_F_OPCODE) {
        bool ok[MM_ACT_COUNT];
        memcpy(ok, s->action_ok, sizeof ok);
        table_read(s->t, MM_TR_ACTION, base, n, x->scratch);
        for (size_t i = 0; i < n; i++)
            keep[i] &= ok[v[i].u < MM_ACT_COUNT ? v[i].u : MM_ACT_OTHER];
    }
}

static void mt_engines(const timeline_source *src, char *buf, size_t cap)
{
    uint32_t devices = memory_model_info_of(mt_model(src))->trace_devices;
    name_list l;
    name_list_init(&l, buf, cap, 8, false);
    char name[32];
    for (uint32_t d = 0; d < devices && !l.full; d++) {
        snprintf(name, sizeof name, "device%u", d);
        name_list_add(&l, name);
    }
}

static const char *mt_empty_hint(const timeline_source *src, const timeline_filter *f)
{
    (void)f;
    return memory_model_info_of(mt_model(src))->history == MEMORY_HISTORY_NONE
               ? "the snapshot kept no allocation history (recorded without _record_memory_history, or with "
                 "enabled=None): it holds the state only; record history before the run to list entries"
               : NULL;
}

/* ---- the adapter -------------------------------------------------------------------------------------- */

#define MT_FILTERS ((1u << TIMELINE_F_ENGINE) | (1u << TIMELINE_F_OPCODE) | (1u << TIMELINE_F_WINDOW) | \
                    (1u << TIMELINE_F_MIN_BYTES))
static const char *const mt_left_out[] = {"no_time"};

const timeline_adapter timeline_memory = {
    .kind = "memory",
    .data = NULL,
    .filters = MT_FILTERS,
    .sorts = (1u << TIMELINE_SORT_TIME) | (1u << TIMELINE_SORT_BYTES),
    .filters_accepted = "kind memory accepts engine (device<N>), opcode (comma-separated globs on the action: alloc, "
                        "free_*, segment_*, oom, ...), start_ns / end_ns (unix ns) and min_bytes",
    .sorts_accepted = "time, bytes",
    .cursor_filters = MT_FILTERS,
    .columns = mt_columns,
    .ncolumns = MT_COUNT,
    .unix_time = true,
    .units_time = "unix ns: the allocator's time_us x 1000 (CUDA: the host's clock); start_ns/end_ns filters use the "
                  "same clock",
    .units_opcode = "comma-separated globs on the trace action",
    .left_out_names = mt_left_out,
    .nleft_out = 1,
    .engines_note = "",
    .rows = mt_rows,
    .open = mt_open,
    .close = mt_close,
    .read = mt_read,
    .match = mt_match,
    .cell = mt_cell,
    .engines = mt_engines,
    .empty_hint = mt_empty_hint,
};
