/* system_summary — see system_summary.h.
 *
 * One pass over the span table sorts every span into what later phases need: per event type (by the
 * type column's dictionary code, so no hash is needed) its counters and its intervals; the
 * nc_exec_running intervals per core; the nrt_execute / nc_model_switch / nrt_load spans; the copy spans
 * and the host spans that may enclose them. Later phases only look at those vectors:
 *
 *   merged lists   each type's intervals sorted and merged, with prefix sums, so "how much of [a, b) does
 *                  type T cover" is two binary searches — that is how gaps get their host activity;
 *   device         the all-core union of nc_exec_running; its holes are the gaps between executions;
 *   executions     nc_exec_running grouped by (nc_idx, exec_id), launch latency from the nrt_execute on the
 *                  same nc_idx whose interval holds the execution's start;
 *   copies         per worker, a sweep over spans sorted by start with a stack of open host calls gives each
 *                  copy its innermost enclosing call;
 *   sync points    sorted by (exec_id, nc_idx) and matched to the hardware events of the same key: one sync
 *                  point per physical core (ascending device_core_idx ↔ file order, formats.md §9.3), or
 *                  one for the whole group; converted = cpu_ts + (nc_ts − sync.nc_ts), error = converted − f2.
 * Hardware types are those whose events carry nc_timestamp_ns; every other span is host (runtime) time. */
#include "system_summary.h"

#include <stdlib.h>
#include <string.h>

#include "intervals.h"

/* ---- merged interval lists -------------------------------------------------------------------------- */

typedef struct merged {
    interval *v;      /* sorted, disjoint */
    int64_t *prefix;  /* prefix[i] = Σ length of v[0..i) */
    size_t n;
} merged;

static int by_start(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* qsort that accepts an empty (NULL) array. */
static void sort_any(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

/* Sort and merge v[0..n) in place; `out` borrows v and owns a prefix array. */
static int merged_build(interval *v, size_t n, merged *out)
{
    sort_any(v, n, sizeof *v, by_start);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].end <= v[i].start)
            continue;
        if (k && v[i].start <= v[k - 1].end) {
            if (v[i].end > v[k - 1].end)
                v[k - 1].end = v[i].end;
            continue;
        }
        v[k++] = v[i];
    }
    out->v = v;
    out->n = k;
    out->prefix = malloc((k + 1) * sizeof *out->prefix);
    if (!out->prefix)
        return -1;
    out->prefix[0] = 0;
    for (size_t i = 0; i < k; i++)
        out->prefix[i + 1] = out->prefix[i] + (v[i].end - v[i].start);
    return 0;
}

static int64_t merged_total(const merged *mg)
{
    return mg->n ? mg->prefix[mg->n] : 0;
}

/* Length of the list's union inside [a, b). */
static int64_t merged_covered(const merged *mg, int64_t a, int64_t b)
{
    if (!mg->n || b <= a)
        return 0;
    size_t lo = 0, hi = mg->n; /* first i with v[i].end > a */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mg->v[mid].end > a)
            hi = mid;
        else
            lo = mid + 1;
    }
    size_t i = lo;
    lo = i, hi = mg->n; /* first j with v[j].start >= b */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mg->v[mid].start >= b)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo <= i)
        return 0;
    size_t j = lo - 1;
    int64_t total = mg->prefix[j + 1] - mg->prefix[i];
    if (a > mg->v[i].start)
        total -= a - mg->v[i].start;
    if (mg->v[j].end > b)
        total -= mg->v[j].end - b;
    return total;
}

static void merged_free(merged *mg)
{
    free(mg->prefix);
    mg->prefix = NULL;
    mg->n = 0;
}

/* ---- collected spans -------------------------------------------------------------------------------- */

typedef struct hw_span {   /* a span with device-clock timestamps (for sync checks) */
    int64_t exec, nc, core, nc_begin, nc_end, start, end;
} hw_span;

typedef struct exec_span {
    int64_t nc, exec, core, start, end;
} exec_span;

typedef struct call_span { /* nrt_execute / nc_model_switch */
    int64_t nc, exec, start, end;
    uint64_t model;
} call_span;

typedef struct sweep_item { /* copies and the host calls that may enclose them */
    int64_t worker, start, end;
    uint64_t bytes;
    uint32_t type;         /* strtab id */
    int copy_slot;         /* SS_COPY_* or -1 */
    bool parent_capable;
} sweep_item;

#define VEC(T) struct { T *v; size_t n, cap; }
#define VEC_PUSH(vec, item) \
    (((vec).n == (vec).cap && vec_grow((void **)&(vec).v, &(vec).cap, sizeof *(vec).v)) ? -1 : ((vec).v[(vec).n++] = (item), 0))

static int vec_grow(void **v, size_t *cap, size_t elem)
{
    size_t n = *cap ? *cap * 2 : 64;
    void *grown = realloc(*v, n * elem);
    if (!grown)
        return -1;
    *v = grown;
    *cap = n;
    return 0;
}

typedef struct type_acc {
    ss_type t;
    interval_vec iv;
    merged mg;
} type_acc;

typedef struct core_acc {
    interval_vec iv;
} core_acc;

typedef struct ctx {
    const system_model *m;
    const table *spans;
    system_summary *out;
    size_t ncodes;
    type_acc *types;            /* by dictionary code of SM_SPAN_TYPE */
    uint32_t exec_name, switch_name, execute_name, load_name;
    uint32_t copy_names[SS_COPY_COUNT];
    core_acc cores[SS_CORES_MAX];
    interval_vec device_iv;
    merged device;
    interval_vec host_iv;
    merged host;
    VEC(hw_span) hw;
    VEC(exec_span) execs;
    VEC(call_span) calls;       /* nrt_execute */
    VEC(call_span) switches;    /* nc_model_switch with a model_id */
    VEC(sweep_item) sweep;
    bool any_copy;
} ctx;

static const char *const COPY_NAMES[SS_COPY_COUNT] = {
    [SS_COPY_TENSOR_WRITE] = "nrt_tensor_write", [SS_COPY_TENSOR_WRITE_BATCH] = "nrt_tensor_write_batch",
    [SS_COPY_BUF_IN] = "dmem_buf_copyin",        [SS_COPY_BUF_BATCH_IN] = "dmem_buf_batch_copyin",
    [SS_COPY_TENSOR_READ] = "nrt_tensor_read",   [SS_COPY_TENSOR_READ_BATCH] = "nrt_tensor_read_batch",
    [SS_COPY_BUF_OUT] = "dmem_buf_copyout",      [SS_COPY_BUF_BATCH_OUT] = "dmem_buf_batch_copyout",
};

const char *system_summary_copy_name(unsigned slot)
{
    return slot < SS_COPY_COUNT ? COPY_NAMES[slot] : "?";
}

static bool is_buffer_copy(int slot)
{
    return slot == SS_COPY_BUF_IN || slot == SS_COPY_BUF_BATCH_IN || slot == SS_COPY_BUF_OUT ||
           slot == SS_COPY_BUF_BATCH_OUT;
}

static int nomem(nl_error *err)
{
    return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory summarising a system profile");
}

static int cancelled(const atomic_int *cancel, nl_error *err)
{
    if (cancel && atomic_load(cancel))
        return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
    return 0;
}

static uint32_t name_id(const ctx *c, const char *name)
{
    uint32_t id = system_model_type(c->m, name);
    return id == STRTAB_NONE ? 0 : id; /* 0 ("") never names a span type */
}

static void ctx_close(ctx *c)
{
    for (size_t i = 0; c->types && i < c->ncodes; i++) {
        interval_vec_free(&c->types[i].iv);
        merged_free(&c->types[i].mg);
    }
    free(c->types);
    for (size_t i = 0; i < SS_CORES_MAX; i++)
        interval_vec_free(&c->cores[i].iv);
    interval_vec_free(&c->device_iv);
    merged_free(&c->device);
    interval_vec_free(&c->host_iv);
    merged_free(&c->host);
    free(c->hw.v);
    free(c->execs.v);
    free(c->calls.v);
    free(c->switches.v);
    free(c->sweep.v);
}

/* ---- phase 1: one pass over the spans --------------------------------------------------------------- */

typedef struct row {
    uint32_t type;
    uint64_t type_id, model, bytes, flags;
    int64_t start, end, worker, nc, core, exec, nc_begin, nc_end;
} row;

static void row_read(const table *t, size_t r, row *out)
{
    out->type = table_str(t, SM_SPAN_TYPE, r);
    out->type_id = table_u64(t, SM_SPAN_TYPE_ID, r);
    out->start = table_i64(t, SM_SPAN_START, r);
    out->end = table_i64(t, SM_SPAN_END, r);
    out->worker = table_i64(t, SM_SPAN_WORKER, r);
    out->nc = table_i64(t, SM_SPAN_NC, r);
    out->core = table_i64(t, SM_SPAN_CORE, r);
    out->exec = table_i64(t, SM_SPAN_EXEC, r);
    out->model = table_u64(t, SM_SPAN_MODEL, r);
    out->bytes = table_u64(t, SM_SPAN_BYTES, r);
    out->nc_begin = table_i64(t, SM_SPAN_NC_BEGIN, r);
    out->nc_end = table_i64(t, SM_SPAN_NC_END, r);
    out->flags = table_u64(t, SM_SPAN_FLAGS, r);
}

static void count_type(ss_type *t, const row *r)
{
    if (r->flags & SM_SPAN_F_HARDWARE)
        t->hardware = true;
    if (r->flags & SM_SPAN_F_NONZERO_RC)
        t->nonzero_rc++;
    if (r->flags & SM_SPAN_F_INSTANT) {
        t->instants++;
        return;
    }
    if (r->flags & SM_SPAN_F_OPEN) {
        t->open++;
        return;
    }
    if (r->flags & SM_SPAN_F_ORPHAN_END) {
        t->orphan_ends++;
        return;
    }
    int64_t d = r->end - r->start;
    if (!t->pairs || d < t->min_ns)
        t->min_ns = d;
    if (!t->pairs || d > t->max_ns)
        t->max_ns = d;
    t->pairs++;
    t->total_ns += d;
    t->bytes += r->bytes;
}

static int core_slot(ctx *c, const row *r)
{
    system_summary *s = c->out;
    int64_t key = r->core >= 0 ? r->core : r->nc;
    bool physical = r->core >= 0;
    for (size_t i = 0; i < s->ncores; i++)
        if (s->cores[i].core == key && s->cores[i].physical == physical)
            return (int)i;
    if (s->ncores == SS_CORES_MAX) {
        s->cores_dropped++;
        return -1;
    }
    s->cores[s->ncores] = (ss_core){.core = key, .physical = physical, .nc = r->nc};
    return (int)s->ncores++;
}

static int collect_exec(ctx *c, const row *r)
{
    c->out->exec_spans++;
    int slot = core_slot(c, r);
    if (slot >= 0) {
        ss_core *k = &c->out->cores[slot];
        k->executions++;
        k->summed_ns += r->end - r->start;
        if (interval_vec_push(&c->cores[slot].iv, r->start, r->end))
            return -1;
    }
    if (interval_vec_push(&c->device_iv, r->start, r->end))
        return -1;
    return VEC_PUSH(c->execs, ((exec_span){r->nc, r->exec, r->core, r->start, r->end}));
}

static int collect_special(ctx *c, const row *r)
{
    if (r->type == c->exec_name)
        return collect_exec(c, r);
    if (r->type == c->execute_name)
        return VEC_PUSH(c->calls, ((call_span){r->nc, r->exec, r->start, r->end, r->model}));
    if (r->type == c->switch_name && r->model)
        return VEC_PUSH(c->switches, ((call_span){r->nc, r->exec, r->start, r->end, r->model}));
    return 0;
}

static void collect_load(ctx *c, const row *r)
{
    system_summary *s = c->out;
    s->loads++;
    if (s->nloads < SS_LOADS_LISTED)
        s->load_list[s->nloads++] = (ss_load){.worker = r->worker, .nc = r->nc, .model_id = r->model, .start = r->start,
                                              .duration_ns = r->end - r->start, .open = (r->flags & SM_SPAN_F_OPEN) != 0};
}

static int copy_slot_of(const ctx *c, uint32_t type)
{
    for (int i = 0; i < SS_COPY_COUNT; i++)
        if (c->copy_names[i] && c->copy_names[i] == type)
            return i;
    return -1;
}

/* Device events: anything carrying device-clock time, and nc_exec_running / nc_model_switch by name. */
static bool is_device(const ctx *c, const row *r)
{
    return (r->flags & SM_SPAN_F_HARDWARE) || (r->type && (r->type == c->exec_name || r->type == c->switch_name));
}

static int collect_paired(ctx *c, type_acc *ta, const row *r)
{
    if (interval_vec_push(&ta->iv, r->start, r->end))
        return -1;
    bool device = is_device(c, r);
    ta->t.hardware |= device;
    if (!device && interval_vec_push(&c->host_iv, r->start, r->end))
        return -1;
    if (r->type == c->load_name)
        collect_load(c, r);
    if (r->flags & SM_SPAN_F_HARDWARE && (r->nc_begin >= 0 || r->nc_end >= 0) &&
        VEC_PUSH(c->hw, ((hw_span){r->exec, r->nc, r->core, r->nc_begin, r->nc_end, r->start, r->end})))
        return -1;
    if (device)
        return collect_special(c, r);
    int slot = copy_slot_of(c, r->type);
    c->any_copy |= slot >= 0;
    sweep_item it = {.worker = r->worker, .start = r->start, .end = r->end, .bytes = r->bytes, .type = r->type,
                     .copy_slot = slot, .parent_capable = slot < 0 || !is_buffer_copy(slot)};
    if (VEC_PUSH(c->sweep, it))
        return -1;
    return collect_special(c, r);
}

static void widen_window(system_summary *s, const row *r)
{
    if (!s->has_window || r->start < s->window_start)
        s->window_start = r->start;
    if (!s->has_window || r->end > s->window_end)
        s->window_end = r->end;
    s->has_window = true;
}

static int scan_spans(ctx *c, const atomic_int *cancel, nl_error *err)
{
    size_t rows = table_rows(c->spans);
    for (size_t i = 0; i < rows; i++) {
        if (i % 65536 == 0 && cancelled(cancel, err))
            return -1;
        row r;
        row_read(c->spans, i, &r);
        type_acc *ta = &c->types[table_code(c->spans, SM_SPAN_TYPE, i)];
        ta->t.name = r.type;
        ta->t.type_id = r.type_id;
        count_type(&ta->t, &r);
        widen_window(c->out, &r);
        if (r.flags & SM_SPAN_F_PAIRED_MASK) {
            if (r.type == c->exec_name)
                c->out->exec_unpaired++;
            else if (r.type == c->load_name && (r.flags & SM_SPAN_F_OPEN))
                collect_load(c, &r);
            continue;
        }
        if (collect_paired(c, ta, &r))
            return nomem(err);
    }
    return 0;
}

/* ---- phase 2: device busy and gaps ------------------------------------------------------------------ */

static void core_gaps(ss_core *k, const merged *mg)
{
    k->busy_ns = merged_total(mg);
    if (!mg->n)
        return;
    k->first_start = mg->v[0].start;
    k->last_end = mg->v[mg->n - 1].end;
    for (size_t i = 1; i < mg->n; i++) {
        int64_t g = mg->v[i].start - mg->v[i - 1].end;
        k->gaps++;
        k->gap_total_ns += g;
        if (g > k->gap_max_ns)
            k->gap_max_ns = g;
    }
}

static int device_phase(ctx *c, nl_error *err)
{
    system_summary *s = c->out;
    for (size_t i = 0; i < s->ncores; i++) {
        merged mg;
        if (merged_build(c->cores[i].iv.v, c->cores[i].iv.n, &mg))
            return nomem(err);
        core_gaps(&s->cores[i], &mg);
        merged_free(&mg);
    }
    if (merged_build(c->device_iv.v, c->device_iv.n, &c->device))
        return nomem(err);
    s->has_device = c->device.n > 0;
    s->device_busy_ns = merged_total(&c->device);
    if (s->has_device) {
        s->exec_window_start = c->device.v[0].start;
        s->exec_window_end = c->device.v[c->device.n - 1].end;
    }
    return 0;
}

static int type_phase(ctx *c, nl_error *err)
{
    for (size_t i = 0; i < c->ncodes; i++) {
        type_acc *ta = &c->types[i];
        if (merged_build(ta->iv.v, ta->iv.n, &ta->mg))
            return nomem(err);
        ta->t.union_ns = merged_total(&ta->mg);
    }
    return merged_build(c->host_iv.v, c->host_iv.n, &c->host) ? nomem(err) : 0;
}

/* Insert (type, ov) into a top list kept largest first. */
static void top_insert(ss_window_activity *w, uint32_t type, int64_t ov)
{
    if (ov <= 0)
        return;
    unsigned pos = w->nact;
    while (pos > 0 && w->act[pos - 1].overlap_ns < ov)
        pos--;
    if (pos >= SS_ACTIVITY_TOP)
        return;
    unsigned last = w->nact < SS_ACTIVITY_TOP ? w->nact : SS_ACTIVITY_TOP - 1;
    for (unsigned k = last; k > pos; k--)
        w->act[k] = w->act[k - 1];
    w->act[pos] = (ss_activity){type, ov};
    if (w->nact < SS_ACTIVITY_TOP)
        w->nact++;
}

static void window_activity(const ctx *c, int64_t a, int64_t b, ss_window_activity *w)
{
    *w = (ss_window_activity){.has = true, .start = a, .end = b, .host_busy_ns = merged_covered(&c->host, a, b)};
    for (size_t i = 0; i < c->ncodes; i++)
        if (!c->types[i].t.hardware)
            top_insert(w, c->types[i].t.name, merged_covered(&c->types[i].mg, a, b));
}

static void gap_top_insert(ss_gaps *g, int64_t a, int64_t b)
{
    unsigned pos = g->ntop;
    while (pos > 0 && g->top[pos - 1].end - g->top[pos - 1].start < b - a)
        pos--;
    if (pos >= SS_TOP_GAPS)
        return;
    unsigned last = g->ntop < SS_TOP_GAPS ? g->ntop : SS_TOP_GAPS - 1;
    for (unsigned k = last; k > pos; k--)
        g->top[k] = g->top[k - 1];
    g->top[pos] = (ss_window_activity){.has = true, .start = a, .end = b};
    if (g->ntop < SS_TOP_GAPS)
        g->ntop++;
}

static int gaps_phase(ctx *c, const atomic_int *cancel, nl_error *err)
{
    system_summary *s = c->out;
    ss_gaps *g = &s->gaps;
    if (!s->has_device)
        return 0;
    int64_t *per_type = calloc(c->ncodes ? c->ncodes : 1, sizeof *per_type);
    if (!per_type)
        return nomem(err);
    for (size_t i = 1; i < c->device.n; i++) {
        if (i % 4096 == 0 && cancelled(cancel, err)) {
            free(per_type);
            return -1;
        }
        int64_t a = c->device.v[i - 1].end, b = c->device.v[i].start;
        g->count++;
        g->total_ns += b - a;
        if (b - a > g->largest_ns)
            g->largest_ns = b - a;
        gap_top_insert(g, a, b);
        g->all.host_busy_ns += merged_covered(&c->host, a, b);
        for (size_t t = 0; t < c->ncodes; t++)
            if (!c->types[t].t.hardware)
                per_type[t] += merged_covered(&c->types[t].mg, a, b);
    }
    g->all.has = g->count > 0;
    for (size_t t = 0; t < c->ncodes; t++)
        top_insert(&g->all, c->types[t].t.name, per_type[t]);
    free(per_type);
    for (unsigned k = 0; k < g->ntop; k++)
        window_activity(c, g->top[k].start, g->top[k].end, &g->top[k]);
    if (s->window_start < s->exec_window_start)
        window_activity(c, s->window_start, s->exec_window_start, &g->lead_in);
    if (s->exec_window_end < s->window_end)
        window_activity(c, s->exec_window_end, s->window_end, &g->tail);
    return 0;
}

/* ---- phase 3: executions, launches, models ---------------------------------------------------------- */

static int by_exec_key(const void *a, const void *b)
{
    const exec_span *x = a, *y = b;
    if (x->nc != y->nc)
        return x->nc < y->nc ? -1 : 1;
    if (x->exec != y->exec)
        return x->exec < y->exec ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int by_call_nc_start(const void *a, const void *b)
{
    const call_span *x = a, *y = b;
    if (x->nc != y->nc)
        return x->nc < y->nc ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* The nrt_execute on `nc` with the latest start ≤ t that is still running at t, or NULL. */
static const call_span *enclosing_call(const ctx *c, int64_t nc, int64_t t)
{
    const call_span *best = NULL;
    size_t lo = 0, hi = c->calls.n; /* first call with (nc, start) > (nc, t) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const call_span *k = &c->calls.v[mid];
        if (k->nc < nc || (k->nc == nc && k->start <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        const call_span *k = &c->calls.v[i];
        if (k->nc != nc)
            break;
        if (k->end >= t) {
            best = k;
            break;
        }
    }
    return best;
}

static uint64_t switch_model(const ctx *c, int64_t nc, int64_t exec)
{
    for (size_t i = 0; i < c->switches.n; i++)
        if (c->switches.v[i].nc == nc && c->switches.v[i].exec == exec)
            return c->switches.v[i].model;
    return 0;
}

static void finish_execution(ctx *c, ss_execution *e, interval *iv, size_t n)
{
    e->busy_ns = interval_union(iv, n);
    e->model_id = switch_model(c, e->nc, e->exec_id);
    const call_span *call = enclosing_call(c, e->nc, e->start);
    if (call) {
        e->has_launch = true;
        e->launch_ns = e->start - call->start;
        e->completion_ns = call->end - e->end;
        e->host_call_ns = call->end - call->start;
        if (!e->model_id)
            e->model_id = call->model;
    }
}

static void record_execution(system_summary *s, const ss_execution *e)
{
    s->executions++;
    if (e->has_launch) {
        s->launches++;
        s->launch_total_ns += e->launch_ns;
        if (e->launch_ns > s->launch_max_ns)
            s->launch_max_ns = e->launch_ns;
    }
    if (s->nexec < SS_EXECUTIONS_LISTED)
        s->execs[s->nexec++] = *e;
    for (size_t i = 0; i < s->nmodels; i++)
        if (s->models[i].model_id == e->model_id)
            s->models[i].executions++;
}

static void add_model(system_summary *s, const system_model *m, uint64_t id)
{
    if (!id)
        return;
    for (size_t i = 0; i < s->nmodels; i++)
        if (s->models[i].model_id == id)
            return;
    if (s->nmodels < SS_MODELS_MAX)
        s->models[s->nmodels++] = (ss_model){.model_id = id, .neff_path = system_model_neff_path(m, id)};
}

static int executions_phase(ctx *c, nl_error *err)
{
    system_summary *s = c->out;
    sort_any(c->execs.v, c->execs.n, sizeof *c->execs.v, by_exec_key);
    sort_any(c->calls.v, c->calls.n, sizeof *c->calls.v, by_call_nc_start);
    for (size_t i = 0; i < c->switches.n; i++)
        add_model(s, c->m, c->switches.v[i].model);
    for (size_t i = 0; i < c->calls.n; i++)
        add_model(s, c->m, c->calls.v[i].model);
    for (size_t i = 0; i < s->nloads; i++)
        add_model(s, c->m, s->load_list[i].model_id);
    interval *iv = malloc((c->execs.n ? c->execs.n : 1) * sizeof *iv);
    if (!iv)
        return nomem(err);
    for (size_t i = 0; i < c->execs.n;) {
        const exec_span *x = &c->execs.v[i];
        ss_execution e = {.nc = x->nc, .exec_id = x->exec, .start = x->start, .end = x->end};
        size_t n = 0;
        int64_t cores[SS_CORES_MAX];
        for (; i < c->execs.n && c->execs.v[i].nc == e.nc && c->execs.v[i].exec == e.exec_id; i++) {
            const exec_span *y = &c->execs.v[i];
            iv[n++] = (interval){y->start, y->end};
            if (y->start < e.start)
                e.start = y->start;
            if (y->end > e.end)
                e.end = y->end;
            unsigned k = 0;
            while (k < e.cores && cores[k] != y->core)
                k++;
            if (k == e.cores && e.cores < SS_CORES_MAX)
                cores[e.cores++] = y->core;
        }
        finish_execution(c, &e, iv, n);
        record_execution(s, &e);
    }
    free(iv);
    for (size_t i = 0; i < s->nloads; i++)
        for (size_t k = 0; k < s->nmodels; k++)
            s->models[k].loads += s->models[k].model_id == s->load_list[i].model_id;
    return 0;
}

/* ---- phase 4: copies and allocations ---------------------------------------------------------------- */

static int by_worker_start(const void *a, const void *b)
{
    const sweep_item *x = a, *y = b;
    if (x->worker != y->worker)
        return x->worker < y->worker ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* the longer (enclosing) span first */
    return (int)y->parent_capable - (int)x->parent_capable;
}

static void add_parent(ss_copy *cp, uint32_t parent, uint64_t bytes)
{
    for (unsigned i = 0; i < cp->nparents; i++)
        if (cp->parents[i].type == parent) {
            cp->parents[i].count++;
            cp->parents[i].bytes += bytes;
            return;
        }
    if (cp->nparents < SS_PARENTS_TOP)
        cp->parents[cp->nparents++] = (ss_parent){parent, 1, bytes};
}

static void count_copy(ss_copy *cp, const sweep_item *it, uint32_t parent)
{
    cp->count++;
    cp->bytes += it->bytes;
    cp->total_ns += it->end - it->start;
    add_parent(cp, parent, it->bytes);
}

/* Per worker, a sweep with a stack of open host calls: a copy's parent is the innermost call holding it. */
static int copies_phase(ctx *c, nl_error *err)
{
    system_summary *s = c->out;
    for (int i = 0; i < SS_COPY_COUNT; i++) {
        s->copies[i].type = c->copy_names[i];
        s->copies[i].h2d = i < SS_COPY_TENSOR_READ;
    }
    if (!c->any_copy)
        return 0;
    sort_any(c->sweep.v, c->sweep.n, sizeof *c->sweep.v, by_worker_start);
    const sweep_item **stack = malloc(c->sweep.n * sizeof *stack);
    if (!stack)
        return nomem(err);
    size_t depth = 0;
    for (size_t i = 0; i < c->sweep.n; i++) {
        const sweep_item *it = &c->sweep.v[i];
        if (i && it->worker != c->sweep.v[i - 1].worker)
            depth = 0;
        while (depth && stack[depth - 1]->end <= it->start)
            depth--;
        if (it->copy_slot >= 0) {
            uint32_t parent = 0;
            for (size_t k = depth; k-- > 0;)
                if (stack[k]->start <= it->start && stack[k]->end >= it->end) {
                    parent = stack[k]->type;
                    break;
                }
            count_copy(&s->copies[it->copy_slot], it, parent);
        }
        if (it->parent_capable)
            stack[depth++] = it;
    }
    free(stack);
    return 0;
}

#define USAGE_TRACKED 256u

typedef struct usage_acc {
    ss_usage v[USAGE_TRACKED];
    unsigned n;
    uint64_t untracked_count, untracked_bytes;
} usage_acc;

static void add_usage(usage_acc *u, uint32_t usage, uint64_t bytes)
{
    for (unsigned i = 0; i < u->n; i++)
        if (u->v[i].usage == usage) {
            u->v[i].count++;
            u->v[i].bytes += bytes;
            return;
        }
    if (u->n < USAGE_TRACKED) {
        u->v[u->n++] = (ss_usage){usage, 1, bytes};
    } else {
        u->untracked_count++;
        u->untracked_bytes += bytes;
    }
}

static int by_usage_bytes(const void *a, const void *b)
{
    const ss_usage *x = a, *y = b;
    return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

static void usage_top(ss_alloc *a, usage_acc *u)
{
    sort_any(u->v, u->n, sizeof *u->v, by_usage_bytes);
    a->usage_other_count = u->untracked_count;
    a->usage_other_bytes = u->untracked_bytes;
    for (unsigned i = 0; i < u->n; i++) {
        if (i < SS_USAGE_TOP) {
            a->usage[a->nusage++] = u->v[i];
        } else {
            a->usage_other_count += u->v[i].count;
            a->usage_other_bytes += u->v[i].bytes;
        }
    }
}

/* The span's `return_code` attribute, or 0 when it is absent or not a number. */
static int64_t return_code(const ctx *c, size_t span)
{
    const table *attrs = system_model_table_get(c->m, SM_ATTRS);
    const strtab *st = system_model_strings(c->m);
    uint64_t first = table_u64(c->spans, SM_SPAN_ATTR_FIRST, span), n = table_u64(c->spans, SM_SPAN_ATTR_COUNT, span);
    for (uint64_t k = first; k < first + n; k++)
        if (!strcmp(strtab_str(st, table_str(attrs, SM_ATTR_KEY, k), NULL), "return_code"))
            return strtoll(strtab_str(st, table_str(attrs, SM_ATTR_VALUE, k), NULL), NULL, 10);
    return 0;
}

static void add_code(ss_alloc *a, int64_t code)
{
    for (unsigned i = 0; i < a->ncodes; i++)
        if (a->codes[i].code == code) {
            a->codes[i].count++;
            return;
        }
    if (a->ncodes < SS_RETURN_CODES_MAX)
        a->codes[a->ncodes++] = (ss_return_code){code, 1};
}

static int allocations_phase(ctx *c, nl_error *err)
{
    ss_alloc *a = &c->out->alloc;
    uint32_t alloc = name_id(c, "nrt_dma_mem_alloc"), dealloc = name_id(c, "nrt_dma_mem_dealloc");
    uint32_t talloc = name_id(c, "nrt_tensor_allocate"), tfree = name_id(c, "nrt_tensor_free");
    usage_acc *u = calloc(1, sizeof *u);
    if (!u)
        return nomem(err);
    size_t rows = table_rows(c->spans);
    for (size_t i = 0; i < rows; i++) {
        uint32_t type = table_str(c->spans, SM_SPAN_TYPE, i);
        uint64_t flags = table_u64(c->spans, SM_SPAN_FLAGS, i);
        if (!type || (type != alloc && type != dealloc && type != talloc && type != tfree) ||
            (flags & SM_SPAN_F_PAIRED_MASK))
            continue;
        uint64_t bytes = table_u64(c->spans, SM_SPAN_BYTES, i);
        if (type == alloc) {
            a->dma_allocs++;
            a->dma_alloc_bytes += bytes;
            add_usage(u, table_str(c->spans, SM_SPAN_USAGE, i), bytes);
            if (flags & SM_SPAN_F_NONZERO_RC) {
                a->dma_nonzero_rc++;
                add_code(a, return_code(c, i));
            }
        } else if (type == dealloc) {
            a->dma_deallocs++;
            a->dma_freed_bytes += bytes;
        } else if (type == talloc) {
            a->tensor_allocs++;
            a->tensor_alloc_bytes += bytes;
        } else {
            a->tensor_frees++;
        }
    }
    usage_top(a, u);
    free(u);
    return 0;
}

/* ---- phase 5: sync points --------------------------------------------------------------------------- */

typedef struct sync_row {
    int64_t exec, nc, cpu, ncts, record;
} sync_row;

static int by_sync_key(const void *a, const void *b)
{
    const sync_row *x = a, *y = b;
    if (x->exec != y->exec)
        return x->exec < y->exec ? -1 : 1;
    if (x->nc != y->nc)
        return x->nc < y->nc ? -1 : 1;
    return (x->record > y->record) - (x->record < y->record);
}

static int by_hw_key(const void *a, const void *b)
{
    const hw_span *x = a, *y = b;
    if (x->exec != y->exec)
        return x->exec < y->exec ? -1 : 1;
    if (x->nc != y->nc)
        return x->nc < y->nc ? -1 : 1;
    return (x->core > y->core) - (x->core < y->core);
}

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* |converted device time − f2| for one timestamp. */
static int64_t conversion_error(const sync_row *sp, int64_t nc_ts, int64_t f2)
{
    return abs64(sp->cpu + (nc_ts - sp->ncts) - f2);
}

/* Compare converted device timestamps of hw[0..n) (one core) with f2; returns the largest |error|. */
static int64_t check_core(const hw_span *hw, size_t n, const sync_row *sp, uint64_t *events)
{
    int64_t worst = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t e[2] = {-1, -1};
        if (hw[i].nc_begin >= 0)
            e[0] = conversion_error(sp, hw[i].nc_begin, hw[i].start);
        if (hw[i].nc_end >= 0)
            e[1] = conversion_error(sp, hw[i].nc_end, hw[i].end);
        for (int k = 0; k < 2; k++)
            if (e[k] >= 0) {
                (*events)++;
                worst = e[k] > worst ? e[k] : worst;
            }
    }
    return worst;
}

static void sync_group_result(ss_sync *sy, int64_t nc, int64_t exec, int64_t core, const sync_row *sp, uint64_t events,
                              int64_t worst)
{
    sy->events_checked += events;
    if (events && (!sy->has_error || worst > sy->max_abs_error_ns))
        sy->max_abs_error_ns = worst;
    sy->has_error |= events > 0;
    if (sy->ngroups < SS_SYNC_GROUPS_MAX)
        sy->groups[sy->ngroups++] = (ss_sync_group){.nc = nc, .exec_id = exec, .core = core, .sync_cpu_ns = sp->cpu,
                                                    .sync_nc_ns = sp->ncts, .offset_ns = sp->cpu - sp->ncts,
                                                    .events = events, .max_abs_error_ns = worst};
}

/* One (exec_id, nc_idx) key: syncs[0..ns) in file order, hw[0..nh) sorted by core. */
static void sync_key(ss_sync *sy, const sync_row *syncs, size_t ns, const hw_span *hw, size_t nh)
{
    size_t ncores = 0;
    for (size_t i = 0; i < nh; i++)
        ncores += i == 0 || hw[i].core != hw[i - 1].core;
    if (ns != ncores && ns != 1) {
        sy->groups_unmatched++;
        for (size_t i = 0; i < nh; i++)
            sy->events_unconvertible += (hw[i].nc_begin >= 0) + (hw[i].nc_end >= 0);
        return;
    }
    sy->groups_matched++;
    for (size_t i = 0, k = 0; i < nh; k++) {
        size_t j = i;
        while (j < nh && hw[j].core == hw[i].core)
            j++;
        const sync_row *sp = ns == 1 ? &syncs[0] : &syncs[k];
        uint64_t events = 0;
        int64_t worst = check_core(hw + i, j - i, sp, &events);
        sync_group_result(sy, hw[i].nc, hw[i].exec, ns == 1 && ncores > 1 ? -1 : hw[i].core, sp, events, worst);
        i = j;
    }
}

static int sync_phase(ctx *c, nl_error *err)
{
    ss_sync *sy = &c->out->sync;
    const table *t = system_model_table_get(c->m, SM_SYNC);
    size_t n = table_rows(t);
    sy->points = n;
    sync_row *rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows)
        return nomem(err);
    for (size_t i = 0; i < n; i++)
        rows[i] = (sync_row){table_i64(t, SM_SYNC_EXEC, i), table_i64(t, SM_SYNC_NC, i), table_i64(t, SM_SYNC_CPU_TS, i),
                             table_i64(t, SM_SYNC_NC_TS, i), table_i64(t, SM_SYNC_RECORD, i)};
    sort_any(rows, n, sizeof *rows, by_sync_key);
    sort_any(c->hw.v, c->hw.n, sizeof *c->hw.v, by_hw_key);
    size_t i = 0, h = 0;
    while (h < c->hw.n) {
        const hw_span *x = &c->hw.v[h];
        size_t he = h;
        while (he < c->hw.n && c->hw.v[he].exec == x->exec && c->hw.v[he].nc == x->nc)
            he++;
        while (i < n && (rows[i].exec < x->exec || (rows[i].exec == x->exec && rows[i].nc < x->nc)))
            i++;
        size_t ie = i;
        while (ie < n && rows[ie].exec == x->exec && rows[ie].nc == x->nc)
            ie++;
        if (ie > i) {
            sync_key(sy, rows + i, ie - i, x, he - h);
        } else {
            for (size_t k = h; k < he; k++)
                sy->events_unconvertible += (c->hw.v[k].nc_begin >= 0) + (c->hw.v[k].nc_end >= 0);
        }
        i = ie;
        h = he;
    }
    free(rows);
    return 0;
}

/* ---- phase 6: CPU and memory ------------------------------------------------------------------------ */

typedef struct cpu_row {
    int64_t time;
    uint32_t cpu;
    double util;
} cpu_row;

static int by_cpu_time(const void *a, const void *b)
{
    const cpu_row *x = a, *y = b;
    return (x->time > y->time) - (x->time < y->time);
}

/* Per-timestamp means across CPUs: peak and the sample that covers the ntrace window. */
static void cpu_timeline(ss_cpu *u, const cpu_row *rows, size_t n, const system_summary *s)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double sum = 0, mx = 0;
        while (j < n && rows[j].time == rows[i].time) {
            sum += rows[j].util;
            mx = rows[j].util > mx ? rows[j].util : mx;
            j++;
        }
        double mean = sum / (double)(j - i);
        u->timestamps++;
        if (u->timestamps == 1 || mean > u->peak_all_cpu_mean_pct) {
            u->peak_all_cpu_mean_pct = mean;
            u->peak_all_cpu_time = rows[i].time;
        }
        if (s->has_window && !u->has_window_sample && rows[i].time >= s->window_end) {
            u->has_window_sample = true;
            u->window_sample_time = rows[i].time;
            u->window_mean_pct = mean;
            u->window_max_pct = mx;
        }
        i = j;
    }
}

static int cpu_phase(ctx *c, nl_error *err)
{
    ss_cpu *u = &c->out->cpu;
    const table *t = system_model_table_get(c->m, SM_CPU);
    size_t n = table_rows(t);
    u->records = n;
    if (!n)
        return 0;
    cpu_row *rows = malloc(n * sizeof *rows);
    double *sum = calloc(SS_CPUS_MAX, sizeof *sum);
    uint64_t *cnt = calloc(SS_CPUS_MAX, sizeof *cnt);
    if (!rows || !sum || !cnt) {
        free(rows), free(sum), free(cnt);
        return nomem(err);
    }
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        cpu_row r = {table_i64(t, SM_CPU_TIME, i), (uint32_t)table_u64(t, SM_CPU_ID, i), table_f64(t, SM_CPU_UTIL, i)};
        rows[i] = r;
        u->omitted_util += !table_u64(t, SM_CPU_HAS_UTIL, i);
        total += r.util;
        if (i == 0 || r.util > u->max_pct)
            u->max_pct = r.util, u->max_cpu = r.cpu, u->max_time = r.time;
        if (i == 0 || r.time < u->first_time)
            u->first_time = r.time;
        if (i == 0 || r.time > u->last_time)
            u->last_time = r.time;
        if (r.cpu < SS_CPUS_MAX) {
            u->cpus += cnt[r.cpu] == 0;
            sum[r.cpu] += r.util;
            cnt[r.cpu]++;
        }
    }
    u->has = true;
    u->mean_pct = total / (double)n;
    for (uint32_t k = 0; k < SS_CPUS_MAX; k++)
        if (cnt[k] && (u->busiest_mean_pct < sum[k] / (double)cnt[k] || u->busiest_mean_pct == 0)) {
            u->busiest_cpu = k;
            u->busiest_mean_pct = sum[k] / (double)cnt[k];
        }
    sort_any(rows, n, sizeof *rows, by_cpu_time);
    cpu_timeline(u, rows, n, c->out);
    free(rows), free(sum), free(cnt);
    return 0;
}

static void mem_phase(ctx *c)
{
    ss_mem *mm = &c->out->mem;
    const table *t = system_model_table_get(c->m, SM_MEM);
    size_t n = table_rows(t);
    mm->records = n;
    mm->total_bytes = system_model_trace_info(c->m)->memory_bytes;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t time = table_i64(t, SM_MEM_TIME, i);
        uint64_t used = table_u64(t, SM_MEM_USED, i);
        sum += (double)used;
        if (i == 0 || used < mm->min_bytes)
            mm->min_bytes = used;
        if (i == 0 || used > mm->max_bytes)
            mm->max_bytes = used, mm->max_time = time;
        if (i == 0 || time < mm->first_time)
            mm->first_time = time, mm->first_bytes = used;
        if (i == 0 || time >= mm->last_time)
            mm->last_time = time, mm->last_bytes = used;
    }
    mm->has = n > 0;
    mm->mean_bytes = n ? sum / (double)n : 0;
}

/* ---- driver ----------------------------------------------------------------------------------------- */

static int by_total(const void *a, const void *b)
{
    const ss_type *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns < y->total_ns ? 1 : -1;
    uint64_t cx = x->pairs + x->instants, cy = y->pairs + y->instants;
    if (cx != cy)
        return cx < cy ? 1 : -1;
    return (x->type_id > y->type_id) - (x->type_id < y->type_id);
}

static int finish_types(ctx *c, nl_error *err)
{
    system_summary *s = c->out;
    s->types = malloc((c->ncodes ? c->ncodes : 1) * sizeof *s->types);
    if (!s->types)
        return nomem(err);
    for (size_t i = 0; i < c->ncodes; i++)
        if (c->types[i].t.name)
            s->types[s->ntypes++] = c->types[i].t;
    sort_any(s->types, s->ntypes, sizeof *s->types, by_total);
    return 0;
}

static int ctx_init(ctx *c, const system_model *m, system_summary *out, nl_error *err)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->out = out;
    c->spans = system_model_table_get(m, SM_SPANS);
    c->ncodes = table_dict_size(c->spans, SM_SPAN_TYPE);
    c->types = calloc(c->ncodes ? c->ncodes : 1, sizeof *c->types);
    if (!c->types)
        return nomem(err);
    c->exec_name = name_id(c, SS_EXEC_TYPE);
    c->switch_name = name_id(c, SS_MODEL_SWITCH_TYPE);
    c->execute_name = name_id(c, SS_EXECUTE_TYPE);
    c->load_name = name_id(c, SS_LOAD_TYPE);
    for (int i = 0; i < SS_COPY_COUNT; i++)
        c->copy_names[i] = name_id(c, COPY_NAMES[i]);
    return 0;
}

int system_summary_compute(const system_model *m, const atomic_int *cancel, system_summary *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    ctx c;
    int rc = ctx_init(&c, m, out, err);
    if (rc == 0)
        rc = scan_spans(&c, cancel, err);
    if (rc == 0)
        rc = device_phase(&c, err);
    if (rc == 0)
        rc = type_phase(&c, err);
    if (rc == 0)
        rc = gaps_phase(&c, cancel, err);
    if (rc == 0)
        rc = executions_phase(&c, err);
    if (rc == 0)
        rc = copies_phase(&c, err);
    if (rc == 0)
        rc = cancelled(cancel, err);
    if (rc == 0)
        rc = allocations_phase(&c, err);
    if (rc == 0)
        rc = sync_phase(&c, err);
    if (rc == 0)
        rc = cpu_phase(&c, err);
    if (rc == 0) {
        mem_phase(&c);
        rc = finish_types(&c, err);
    }
    ctx_close(&c);
    if (rc)
        system_summary_free(out);
    return rc;
}

size_t system_summary_bytes(const system_summary *s)
{
    return sizeof *s + s->ntypes * sizeof *s->types;
}

void system_summary_free(system_summary *s)
{
    free(s->types);
    s->types = NULL;
    s->ntypes = 0;
}
