/* host_device_join — see host_device_join.h.
 *
 * Phases (each polls the cancel flag first):
 *   1. framework: one pass over the events collects the host spans (op / step / region candidates, by
 *      thread), the device spans, host events carrying a correlation id, host flow starts (s) and device
 *      flow finishes (f); the time resolution is read off the ts values (any sub-µs digit → 1 ns);
 *   2. system: the paired nc_exec_running spans and the launch calls (by nc_idx, then start);
 *   3. links: every framework device span → its host anchor (correlation first, then flows), and every
 *      execution → the device span overlapping it most;
 *   4. stabbing: each execution's anchor is a query (time, thread forced or preferred); per thread, the
 *      host spans sorted by (ts, end descending, row) are swept once against the queries sorted by time with
 *      a stack, so the innermost containing span is on top — O(spans + queries × threads × depth);
 *   5. groups: executions by op (name, category), by step span and by region name, each a union of
 *      intervals (intervals.h).
 * Framework times stay in file time until they leave (unix = file + base). */
#include "host_device_join.h"
#include "intervals.h"

#include <stdlib.h>
#include <string.h>

#define HDJ_K_STEP 1u
#define HDJ_K_REGION 2u
#define HDJ_K_LAUNCH 4u
#define HDJ_K_PY 8u
#define HDJ_ENCLOSING_LOOKBACK 64u /* launch calls examined backwards for one that encloses the execution */

static const char *const hdj_launch_types[] = {"nrt_execute", "nrta_execute_schedule", "runtime_execute", "dlr_infer"};

typedef struct hdj_span {
    int64_t ts, end;      /* file time */
    size_t row;
    uint32_t thread;
    uint8_t kind;
} hdj_span;

typedef struct hdj_dev {
    int64_t ts, end;      /* file time */
    size_t row;
    uint32_t thread;
    bool linked;
    hdj_basis how;
    int64_t anchor;       /* file time */
    uint32_t anchor_thread;
} hdj_dev;

typedef struct hdj_ref {
    uint64_t id;
    uint8_t text;
    size_t row;
    int64_t ts;           /* file time */
    uint32_t thread;
} hdj_ref;

typedef struct hdj_launch {
    int64_t nc, start, end;
    uint32_t type;
    uint64_t thread, model_id;
} hdj_launch;

typedef struct hdj_query {
    int64_t t;            /* file time */
    int64_t force, prefer; /* thread index or -1 */
    size_t exec;
} hdj_query;

typedef struct hdj_hit {
    size_t op, step, region; /* indices into spans, or HDJ_NO_ROW */
    int64_t op_len;
    bool op_pref, step_pref, region_pref;
    unsigned threads_with_op;
} hdj_hit;

typedef struct hdj_ctx {
    const framework_model *fm;
    const system_model *sm;
    const atomic_int *cancel;
    host_device_join *o;
    nl_error *err;
    const table *ft;
    const uint32_t *threads;
    size_t nthreads;
    int64_t base;
    hdj_span *spans;
    size_t nspans, *thread_first; /* spans of thread t: [thread_first[t], thread_first[t + 1]) */
    hdj_dev *devs;
    size_t ndevs;
    int64_t dev_maxdur;
    hdj_ref *corrs, *starts, *fins;
    size_t ncorrs, nstarts, nfins;
    int64_t *fw_tid;      /* per framework thread: its numeric tid (host threads), else -1 */
    hdj_launch *launches;
    size_t nlaunches;
    hdj_query *queries;
    hdj_hit *hits;
    size_t nqueries;
    hdj_dev **exec_dev;   /* per execution: the framework device span overlapping it most, or NULL */
} hdj_ctx;

const char *hdj_basis_name(hdj_basis b)
{
    switch (b) {
    case HDJ_LINK_CORRELATION: return "framework_device_event_by_correlation";
    case HDJ_LINK_FLOW: return "framework_device_event_by_flow";
    case HDJ_LAUNCH_IN_OP: return "launch_call_in_op";
    case HDJ_EXEC_IN_OP: return "execution_start_in_op";
    default: return "unattributed";
    }
}

size_t host_device_join_bytes(const host_device_join *j)
{
    return sizeof *j + j->nexecs * sizeof *j->execs +
           (j->nops + j->nsteps + j->nregions) * sizeof(hdj_group);
}

void host_device_join_free(host_device_join *j)
{
    if (!j)
        return;
    free(j->execs);
    free(j->ops);
    free(j->steps);
    free(j->regions);
    memset(j, 0, sizeof *j);
}

static int hdj_nomem(hdj_ctx *c, const char *what)
{
    return nl_error_set(c->err, NL_ERR_NOMEM, NULL, -1, "out of memory (%s)", what);
}

static int hdj_check_cancel(hdj_ctx *c)
{
    if (c->cancel && atomic_load_explicit(c->cancel, memory_order_relaxed))
        return nl_error_set(c->err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
    return 0;
}

/* Append to a growable array of `size`-byte items. */
static int hdj_grow(hdj_ctx *c, void **arr, size_t *n, size_t *cap, size_t size, const void *item)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 256;
        void *p = realloc(*arr, ncap * size);
        if (!p)
            return hdj_nomem(c, "join arrays");
        *arr = p;
        *cap = ncap;
    }
    memcpy((char *)*arr + *n * size, item, size);
    (*n)++;
    return 0;
}

/* qsort that accepts an empty (NULL) array. */
static void hdj_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

/* ---- phase 1: framework ------------------------------------------------------------------------------- */

static int hdj_span_cmp(const void *pa, const void *pb)
{
    const hdj_span *a = pa, *b = pb;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static int hdj_ref_id_cmp(const void *pa, const void *pb)
{
    const hdj_ref *a = pa, *b = pb;
    if (a->text != b->text)
        return a->text < b->text ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static int hdj_ref_time_cmp(const void *pa, const void *pb)
{
    const hdj_ref *a = pa, *b = pb;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static int hdj_dev_cmp(const void *pa, const void *pb)
{
    const hdj_dev *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

typedef struct hdj_codes {
    uint8_t *ph;          /* per FM_EV_PH code: 'X', 's', 'f' or 0 */
    unsigned *cat;        /* per FM_EV_CAT code: FM_CAT_* traits, plus bit 31 for python_function */
    uint8_t *name;        /* per FM_EV_NAME code: HDJ_K_STEP / HDJ_K_REGION */
} hdj_codes;

#define HDJ_CAT_PY 0x80000000u

static void hdj_codes_free(hdj_codes *k)
{
    free(k->ph);
    free(k->cat);
    free(k->name);
}

static int hdj_codes_init(hdj_ctx *c, hdj_codes *k)
{
    const table *t = c->ft;
    uint32_t nph = table_dict_size(t, FM_EV_PH), ncat = table_dict_size(t, FM_EV_CAT), nname = table_dict_size(t, FM_EV_NAME);
    k->ph = calloc(nph ? nph : 1, 1);
    k->cat = calloc(ncat ? ncat : 1, sizeof *k->cat);
    k->name = calloc(nname ? nname : 1, 1);
    if (!k->ph || !k->cat || !k->name)
        return hdj_nomem(c, "code maps");
    for (uint32_t i = 0; i < nph; i++) {
        const char *s = framework_model_str(c->fm, table_dict_id(t, FM_EV_PH, i), NULL);
        k->ph[i] = (uint8_t)(!strcmp(s, "X") ? 'X' : !strcmp(s, "s") ? 's' : !strcmp(s, "f") ? 'f' : 0);
    }
    for (uint32_t i = 0; i < ncat; i++) {
        size_t len;
        const char *s = framework_model_str(c->fm, table_dict_id(t, FM_EV_CAT, i), &len);
        k->cat[i] = framework_model_category_traits(s, len) | (!strcmp(s, "python_function") ? HDJ_CAT_PY : 0);
    }
    for (uint32_t i = 0; i < nname; i++) {
        size_t len;
        const char *s = framework_model_str(c->fm, table_dict_id(t, FM_EV_NAME, i), &len);
        k->name[i] = (uint8_t)((len >= 13 && !memcmp(s, "ProfilerStep#", 13) ? HDJ_K_STEP : 0) |
                               (len >= 21 && !memcmp(s, "Torch-Compiled Region", 21) ? HDJ_K_REGION : 0));
    }
    return 0;
}

/* One framework row into the phase-1 arrays. */
static int hdj_take_row(hdj_ctx *c, const hdj_codes *k, size_t r, int64_t ts, int64_t dur, uint64_t flags,
                        size_t caps[5])
{
    const table *t = c->ft;
    uint8_t ph = k->ph[table_code(t, FM_EV_PH, r)];
    unsigned cat = k->cat[table_code(t, FM_EV_CAT, r)];
    const framework_model_process *p = framework_model_process_at(c->fm, table_code(t, FM_EV_PID, r));
    bool device = p && p->device != FM_HOST;
    uint32_t th = c->threads[r];
    int64_t end = ts + ((flags & FM_F_DUR) && dur > 0 ? dur : 0);
    if (ph == 'X' && !device && !(cat & FM_CAT_PROFILER)) {
        hdj_span s = {ts, end, r, th, (uint8_t)(k->name[table_code(t, FM_EV_NAME, r)] |
                                                ((cat & FM_CAT_LAUNCH) ? HDJ_K_LAUNCH : 0) |
                                                ((cat & HDJ_CAT_PY) ? HDJ_K_PY : 0))};
        if (hdj_grow(c, (void **)&c->spans, &c->nspans, &caps[0], sizeof s, &s))
            return -1;
        c->o->fw_host_spans++;
        if (!c->o->has_fw_window || ts < c->o->fw_first_ns)
            c->o->fw_first_ns = ts;
        if (!c->o->has_fw_window || end > c->o->fw_last_ns)
            c->o->fw_last_ns = end;
        c->o->has_fw_window = true;
    }
    if (!device && (flags & FM_F_CORR)) {
        hdj_ref ref = {table_u64(t, FM_EV_CORR, r), (flags & FM_F_CORR_TEXT) != 0, r, ts, th};
        if (hdj_grow(c, (void **)&c->corrs, &c->ncorrs, &caps[1], sizeof ref, &ref))
            return -1;
    }
    if (ph == 'X' && device && !(cat & (FM_CAT_ANNOTATION | FM_CAT_WAIT | FM_CAT_PROFILER)) &&
        !((cat & FM_CAT_LAUNCH) && !(cat & FM_CAT_DEVICE_ONLY))) {
        hdj_dev d = {ts, end, r, th, false, HDJ_UNATTRIBUTED, 0, 0};
        if (hdj_grow(c, (void **)&c->devs, &c->ndevs, &caps[2], sizeof d, &d))
            return -1;
        if (end - ts > c->dev_maxdur)
            c->dev_maxdur = end - ts;
    }
    if ((ph == 's' || ph == 'f') && (flags & FM_F_FLOW) && (ph == 's') != device) {
        hdj_ref ref = {table_u64(t, FM_EV_FLOW, r), (flags & FM_F_FLOW_TEXT) != 0, r, ts, th};
        if (ph == 's' ? hdj_grow(c, (void **)&c->starts, &c->nstarts, &caps[3], sizeof ref, &ref)
                      : hdj_grow(c, (void **)&c->fins, &c->nfins, &caps[4], sizeof ref, &ref))
            return -1;
    }
    return 0;
}

static int hdj_framework(hdj_ctx *c)
{
    hdj_codes k = {0};
    size_t caps[5] = {0};
    size_t rows = table_rows(c->ft), chunk = 4096;
    table_value *a = malloc(chunk * sizeof *a), *b = malloc(chunk * sizeof *b), *f = malloc(chunk * sizeof *f);
    int rc = (!a || !b || !f) ? hdj_nomem(c, "chunk buffers") : hdj_codes_init(c, &k);
    bool sub_us = false;
    for (size_t base = 0; !rc && base < rows; base += chunk) {
        if ((rc = hdj_check_cancel(c)))
            break;
        size_t n = rows - base < chunk ? rows - base : chunk;
        table_read(c->ft, FM_EV_TS, base, n, a);
        table_read(c->ft, FM_EV_DUR, base, n, b);
        table_read(c->ft, FM_EV_FLAGS, base, n, f);
        for (size_t i = 0; !rc && i < n; i++) {
            if (!(f[i].u & FM_F_TS))
                continue;
            sub_us |= a[i].i % 1000 != 0 || ((f[i].u & FM_F_DUR) && b[i].i % 1000 != 0);
            rc = hdj_take_row(c, &k, base + i, a[i].i, b[i].i, f[i].u, caps);
        }
    }
    free(a);
    free(b);
    free(f);
    hdj_codes_free(&k);
    if (rc)
        return -1;
    c->o->resolution_ns = sub_us ? 1 : 1000;
    c->o->fw_device_events = c->ndevs;
    hdj_sort(c->spans, c->nspans, sizeof *c->spans, hdj_span_cmp);
    hdj_sort(c->devs, c->ndevs, sizeof *c->devs, hdj_dev_cmp);
    hdj_sort(c->corrs, c->ncorrs, sizeof *c->corrs, hdj_ref_id_cmp);
    hdj_sort(c->starts, c->nstarts, sizeof *c->starts, hdj_ref_id_cmp);
    hdj_sort(c->fins, c->nfins, sizeof *c->fins, hdj_ref_time_cmp);
    c->thread_first = calloc(c->nthreads + 1, sizeof *c->thread_first);
    c->fw_tid = malloc((c->nthreads ? c->nthreads : 1) * sizeof *c->fw_tid);
    if (!c->thread_first || !c->fw_tid)
        return hdj_nomem(c, "thread index");
    for (size_t i = 0, s = 0; i <= c->nthreads; i++) {
        while (s < c->nspans && c->spans[s].thread < i)
            s++;
        c->thread_first[i] = s;
    }
    for (size_t i = 0; i < c->nthreads; i++) {
        const framework_model_thread *th = framework_model_thread_at(c->fm, i);
        const framework_model_process *p = framework_model_process_at(c->fm, th->process);
        const char *tid = framework_model_str(c->fm, th->tid, NULL);
        char *end = NULL;
        long long v = tid && *tid >= '0' && *tid <= '9' ? strtoll(tid, &end, 10) : -1;
        c->fw_tid[i] = v >= 0 && end && !*end && !(p && p->device != FM_HOST) ? v : -1;
    }
    return 0;
}

/* ---- phase 2: system ---------------------------------------------------------------------------------- */

static int hdj_launch_cmp(const void *pa, const void *pb)
{
    const hdj_launch *a = pa, *b = pb;
    if (a->nc != b->nc)
        return a->nc < b->nc ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

static int hdj_exec_cmp(const void *pa, const void *pb)
{
    const hdj_exec *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->core != b->core)
        return a->core < b->core ? -1 : 1;
    return (a->span > b->span) - (a->span < b->span);
}

static int hdj_system(hdj_ctx *c)
{
    const table *t = system_model_table_get(c->sm, SM_SPANS);
    const strtab *st = system_model_strings(c->sm);
    size_t rows = t ? table_rows(t) : 0, ecap = 0, lcap = 0;
    uint32_t ncodes = t ? table_dict_size(t, SM_SPAN_TYPE) : 0;
    uint8_t *role = calloc(ncodes ? ncodes : 1, 1); /* 1 execution, 2 launch */
    if (!role)
        return hdj_nomem(c, "event types");
    for (uint32_t k = 0; k < ncodes; k++) {
        const char *s = strtab_str(st, table_dict_id(t, SM_SPAN_TYPE, k), NULL);
        role[k] = !strcmp(s, HDJ_EXEC_TYPE) ? 1 : 0;
        for (size_t i = 0; i < sizeof hdj_launch_types / sizeof hdj_launch_types[0]; i++)
            role[k] = !strcmp(s, hdj_launch_types[i]) ? 2 : role[k];
    }
    int rc = 0;
    for (size_t r = 0; !rc && r < rows; r++) {
        uint8_t k = role[table_code(t, SM_SPAN_TYPE, r)];
        uint64_t flags = table_u64(t, SM_SPAN_FLAGS, r);
        if (!k)
            continue;
        if (flags & SM_SPAN_F_PAIRED_MASK) {
            c->o->unpaired_exec_records += k == 1;
            continue;
        }
        if (k == 2 && !(flags & SM_SPAN_F_HARDWARE)) {
            hdj_launch l = {table_i64(t, SM_SPAN_NC, r), table_i64(t, SM_SPAN_START, r), table_i64(t, SM_SPAN_END, r),
                            table_str(t, SM_SPAN_TYPE, r), table_u64(t, SM_SPAN_THREAD, r),
                            table_u64(t, SM_SPAN_MODEL, r)};
            rc = hdj_grow(c, (void **)&c->launches, &c->nlaunches, &lcap, sizeof l, &l);
        } else if (k == 1) {
            hdj_exec e = {.span = r, .start = table_i64(t, SM_SPAN_START, r), .end = table_i64(t, SM_SPAN_END, r),
                          .core = table_i64(t, SM_SPAN_CORE, r), .nc = table_i64(t, SM_SPAN_NC, r),
                          .exec_id = table_i64(t, SM_SPAN_EXEC, r), .model_id = table_u64(t, SM_SPAN_MODEL, r),
                          .op_row = HDJ_NO_ROW, .step_row = HDJ_NO_ROW, .region_row = HDJ_NO_ROW,
                          .fw_device_row = HDJ_NO_ROW, .slack_ns = -1};
            rc = hdj_grow(c, (void **)&c->o->execs, &c->o->nexecs, &ecap, sizeof e, &e);
        }
    }
    free(role);
    if (rc)
        return -1;
    hdj_sort(c->launches, c->nlaunches, sizeof *c->launches, hdj_launch_cmp);
    hdj_sort(c->o->execs, c->o->nexecs, sizeof *c->o->execs, hdj_exec_cmp);
    c->o->exec_spans = c->o->nexecs;
    return 0;
}

/* The launch call of an execution: on its nc_idx, starting at or before it; the latest enclosing one within
 * the lookback, else the latest one. */
static const hdj_launch *hdj_find_launch(const hdj_ctx *c, const hdj_exec *e)
{
    size_t lo = 0, hi = c->nlaunches;
    while (lo < hi) { /* first launch with (nc, start) > (e->nc, e->start) */
        size_t mid = lo + (hi - lo) / 2;
        const hdj_launch *l = &c->launches[mid];
        if (l->nc < e->nc || (l->nc == e->nc && l->start <= e->start))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || c->launches[lo - 1].nc != e->nc)
        return NULL;
    for (size_t i = lo, seen = 0; i > 0 && seen < HDJ_ENCLOSING_LOOKBACK && c->launches[i - 1].nc == e->nc; i--, seen++)
        if (c->launches[i - 1].end >= e->start)
            return &c->launches[i - 1];
    return &c->launches[lo - 1];
}

/* ---- phase 3: links ----------------------------------------------------------------------------------- */

static const hdj_ref *hdj_find_id(const hdj_ref *v, size_t n, uint64_t id, uint8_t text)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first entry ≥ (text, id) */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].text < text || (v[mid].text == text && v[mid].id < id))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].text == text && v[lo].id == id ? &v[lo] : NULL;
}

static void hdj_link_device(hdj_ctx *c, hdj_dev *d)
{
    const table *t = c->ft;
    uint64_t flags = table_u64(t, FM_EV_FLAGS, d->row);
    if (flags & FM_F_CORR) {
        const hdj_ref *h = hdj_find_id(c->corrs, c->ncorrs, table_u64(t, FM_EV_CORR, d->row), (flags & FM_F_CORR_TEXT) != 0);
        if (h) {
            d->linked = true;
            d->how = HDJ_LINK_CORRELATION;
            d->anchor = h->ts;
            d->anchor_thread = h->thread;
            return;
        }
    }
    size_t lo = 0, hi = c->nfins;
    while (lo < hi) { /* first f on this thread at or after d->ts */
        size_t mid = lo + (hi - lo) / 2;
        if (c->fins[mid].thread < d->thread || (c->fins[mid].thread == d->thread && c->fins[mid].ts < d->ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < c->nfins && c->fins[i].thread == d->thread && c->fins[i].ts <= d->end; i++) {
        const hdj_ref *s = hdj_find_id(c->starts, c->nstarts, c->fins[i].id, c->fins[i].text);
        if (s) {
            d->linked = true;
            d->how = HDJ_LINK_FLOW;
            d->anchor = s->ts;
            d->anchor_thread = s->thread;
            return;
        }
    }
}

static int hdj_i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* The device span overlapping [s, e) (file time) most; ties → the earliest. */
static hdj_dev *hdj_best_device(hdj_ctx *c, int64_t s, int64_t e)
{
    size_t lo = 0, hi = c->ndevs;
    int64_t from = s - c->dev_maxdur;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->devs[mid].ts < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    hdj_dev *best = NULL;
    int64_t best_ov = 0;
    for (size_t i = lo; i < c->ndevs && c->devs[i].ts <= e; i++) {
        hdj_dev *d = &c->devs[i];
        int64_t ov = (d->end < e ? d->end : e) - (d->ts > s ? d->ts : s);
        bool touch = ov == 0 && (d->ts == s || (d->ts >= s && d->ts < e)); /* zero-length on either side */
        if (ov > best_ov || (!best && touch)) {
            best = d;
            best_ov = ov;
        }
    }
    return best;
}

static int hdj_links(hdj_ctx *c)
{
    for (size_t i = 0; i < c->ndevs; i++) {
        hdj_link_device(c, &c->devs[i]);
        c->o->fw_linked_device_events += c->devs[i].linked;
    }
    int64_t *offsets = malloc((c->o->nexecs ? c->o->nexecs : 1) * sizeof *offsets);
    c->exec_dev = calloc(c->o->nexecs ? c->o->nexecs : 1, sizeof *c->exec_dev);
    if (!offsets || !c->exec_dev) {
        free(offsets);
        return hdj_nomem(c, "offsets");
    }
    size_t n = 0;
    for (size_t i = 0; c->ndevs && i < c->o->nexecs; i++) {
        hdj_exec *e = &c->o->execs[i];
        hdj_dev *d = hdj_best_device(c, e->start - c->base, e->end - c->base);
        if (!d)
            continue;
        c->exec_dev[i] = d;
        e->fw_device_row = d->row;
        offsets[n++] = e->start - (d->ts + c->base);
    }
    c->o->offset_samples = n;
    if (n) {
        qsort(offsets, n, sizeof *offsets, hdj_i64_cmp);
        c->o->offset_min_ns = offsets[0];
        c->o->offset_max_ns = offsets[n - 1];
        c->o->offset_median_ns = offsets[(n - 1) / 2];
    }
    free(offsets);
    return 0;
}

/* ---- phase 4: stabbing -------------------------------------------------------------------------------- */

static int hdj_query_cmp(const void *pa, const void *pb)
{
    const hdj_query *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->exec > b->exec) - (a->exec < b->exec);
}

static int64_t hdj_thread_of_os_tid(const hdj_ctx *c, uint64_t tid)
{
    for (size_t i = 0; i < c->nthreads; i++)
        if (c->fw_tid[i] >= 0 && (uint64_t)c->fw_tid[i] == tid)
            return (int64_t)i;
    return -1;
}

static int hdj_build_queries(hdj_ctx *c)
{
    host_device_join *o = c->o;
    c->queries = calloc(o->nexecs ? o->nexecs : 1, sizeof *c->queries);
    c->hits = calloc(o->nexecs ? o->nexecs : 1, sizeof *c->hits);
    if (!c->queries || !c->hits)
        return hdj_nomem(c, "queries");
    for (size_t i = 0; i < o->nexecs; i++) {
        hdj_exec *e = &o->execs[i];
        hdj_query *q = &c->queries[c->nqueries++];
        *q = (hdj_query){e->start - c->base, -1, -1, i};
        const hdj_launch *l = hdj_find_launch(c, e);
        if (l) {
            o->with_launch++;
            e->launch_type = l->type;
            e->launch_start = l->start;
            e->launch_thread = l->thread;
            if (!e->model_id) /* nc_exec_running carries no model_id; its launch call does */
                e->model_id = l->model_id;
        }
        const hdj_dev *d = c->exec_dev[i];
        if (d && d->linked) {
            e->basis = d->how;
            q->t = d->anchor;
            q->force = d->anchor_thread;
        } else if (l) {
            e->basis = HDJ_LAUNCH_IN_OP;
            q->t = l->start - c->base;
            q->prefer = hdj_thread_of_os_tid(c, l->thread);
        } else {
            e->basis = HDJ_EXEC_IN_OP;
        }
        e->anchor_ns = q->t + c->base;
        c->hits[i] = (hdj_hit){HDJ_NO_ROW, HDJ_NO_ROW, HDJ_NO_ROW, 0, false, false, false, 0};
    }
    qsort(c->queries, c->nqueries, sizeof *c->queries, hdj_query_cmp);
    return 0;
}

static void hdj_offer(hdj_ctx *c, hdj_hit *h, bool pref, const size_t *stack, size_t depth, int64_t t)
{
    size_t op = HDJ_NO_ROW, step = HDJ_NO_ROW, region = HDJ_NO_ROW;
    for (size_t k = depth; k > 0; k--) {
        const hdj_span *s = &c->spans[stack[k - 1]];
        if (s->end <= t)
            continue; /* ended before the anchor (not properly nested) */
        if (op == HDJ_NO_ROW && !(s->kind & (HDJ_K_STEP | HDJ_K_LAUNCH | HDJ_K_PY)))
            op = stack[k - 1];
        if (step == HDJ_NO_ROW && (s->kind & HDJ_K_STEP))
            step = stack[k - 1];
        if (region == HDJ_NO_ROW && (s->kind & HDJ_K_REGION))
            region = stack[k - 1];
    }
    if (op != HDJ_NO_ROW) {
        int64_t len = c->spans[op].end - c->spans[op].ts;
        h->threads_with_op++;
        if (!h->op_pref && (pref || h->op == HDJ_NO_ROW || len < h->op_len)) {
            h->op = op;
            h->op_len = len;
            h->op_pref = pref;
        }
    }
    if (step != HDJ_NO_ROW && !h->step_pref && (pref || h->step == HDJ_NO_ROW)) {
        h->step = step;
        h->step_pref = pref;
    }
    if (region != HDJ_NO_ROW && !h->region_pref && (pref || h->region == HDJ_NO_ROW)) {
        h->region = region;
        h->region_pref = pref;
    }
}

static int hdj_stab(hdj_ctx *c)
{
    size_t *stack = malloc((c->nspans ? c->nspans : 1) * sizeof *stack);
    if (!stack)
        return hdj_nomem(c, "stack");
    for (size_t th = 0; th < c->nthreads; th++) {
        size_t first = c->thread_first[th], last = c->thread_first[th + 1], next = first, depth = 0;
        if (first == last)
            continue;
        if (hdj_check_cancel(c)) {
            free(stack);
            return -1;
        }
        for (size_t qi = 0; qi < c->nqueries; qi++) {
            const hdj_query *q = &c->queries[qi];
            if (q->force >= 0 && (size_t)q->force != th)
                continue;
            while (next < last && c->spans[next].ts <= q->t) {
                while (depth > 0 && c->spans[stack[depth - 1]].end <= c->spans[next].ts)
                    depth--;
                stack[depth++] = next++;
            }
            while (depth > 0 && c->spans[stack[depth - 1]].end <= q->t)
                depth--;
            hdj_offer(c, &c->hits[q->exec], q->force >= 0 || q->prefer == (int64_t)th, stack, depth, q->t);
        }
    }
    free(stack);
    host_device_join *o = c->o;
    for (size_t i = 0; i < o->nexecs; i++) {
        hdj_exec *e = &o->execs[i];
        const hdj_hit *h = &c->hits[i];
        e->op_row = h->op == HDJ_NO_ROW ? HDJ_NO_ROW : c->spans[h->op].row;
        e->step_row = h->step == HDJ_NO_ROW ? HDJ_NO_ROW : c->spans[h->step].row;
        e->region_row = h->region == HDJ_NO_ROW ? HDJ_NO_ROW : c->spans[h->region].row;
        if (h->op == HDJ_NO_ROW) {
            e->basis = HDJ_UNATTRIBUTED;
        } else {
            const hdj_span *s = &c->spans[h->op];
            int64_t t = e->anchor_ns - c->base, a = t - s->ts, b = s->end - t;
            e->slack_ns = a < b ? a : b;
            int64_t op_tid = c->fw_tid[s->thread];
            e->thread_matched = e->launch_type && op_tid >= 0 && (uint64_t)op_tid == e->launch_thread;
            o->thread_matched += e->thread_matched;
            o->ambiguous += !h->op_pref && h->threads_with_op > 1;
            if (e->basis == HDJ_LAUNCH_IN_OP || e->basis == HDJ_EXEC_IN_OP) {
                o->min_slack_ns = !o->has_slack || e->slack_ns < o->min_slack_ns ? e->slack_ns : o->min_slack_ns;
                o->has_slack = true;
            }
        }
        o->by_correlation += e->basis == HDJ_LINK_CORRELATION;
        o->by_flow += e->basis == HDJ_LINK_FLOW;
        o->by_launch += e->basis == HDJ_LAUNCH_IN_OP;
        o->by_exec_time += e->basis == HDJ_EXEC_IN_OP;
        o->unattributed += e->basis == HDJ_UNATTRIBUTED;
        o->outside_fw_window += !o->has_fw_window || e->anchor_ns < o->fw_first_ns + c->base ||
                                e->anchor_ns >= o->fw_last_ns + c->base;
    }
    return 0;
}

/* ---- phase 5: groups ---------------------------------------------------------------------------------- */

typedef struct hdj_member {
    uint64_t key1, key2;  /* group key */
    size_t exec;
    size_t row;           /* the framework span */
} hdj_member;

static int hdj_member_cmp(const void *pa, const void *pb)
{
    const hdj_member *a = pa, *b = pb;
    if (a->key1 != b->key1)
        return a->key1 < b->key1 ? -1 : 1;
    if (a->key2 != b->key2)
        return a->key2 < b->key2 ? -1 : 1;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    return (a->exec > b->exec) - (a->exec < b->exec);
}

static int hdj_group_device_cmp(const void *pa, const void *pb)
{
    const hdj_group *a = pa, *b = pb;
    if (a->device_union_ns != b->device_union_ns)
        return a->device_union_ns > b->device_union_ns ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static int hdj_group_start_cmp(const void *pa, const void *pb)
{
    const hdj_group *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static int64_t hdj_fw_dur(const hdj_ctx *c, size_t row)
{
    int64_t d = table_i64(c->ft, FM_EV_DUR, row);
    return (table_u64(c->ft, FM_EV_FLAGS, row) & FM_F_DUR) && d > 0 ? d : 0;
}

/* which: 0 ops by (name, cat), 1 steps by span, 2 regions by name. */
static int hdj_make_groups(hdj_ctx *c, int which, hdj_group **out, size_t *nout)
{
    host_device_join *o = c->o;
    hdj_member *m = malloc((o->nexecs ? o->nexecs : 1) * sizeof *m);
    interval *iv = malloc((o->nexecs ? o->nexecs : 1) * sizeof *iv);
    *out = calloc(o->nexecs ? o->nexecs : 1, sizeof **out);
    if (!m || !iv || !*out) {
        free(m);
        free(iv);
        return hdj_nomem(c, "groups");
    }
    size_t n = 0;
    for (size_t i = 0; i < o->nexecs; i++) {
        size_t row = which == 0 ? o->execs[i].op_row : which == 1 ? o->execs[i].step_row : o->execs[i].region_row;
        if (row == HDJ_NO_ROW)
            continue;
        uint64_t name = table_str(c->ft, FM_EV_NAME, row);
        m[n++] = (hdj_member){which == 1 ? row : name, which == 0 ? table_str(c->ft, FM_EV_CAT, row) : 0, i, row};
    }
    qsort(m, n, sizeof *m, hdj_member_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        hdj_group *g = &(*out)[(*nout)++];
        g->name = table_str(c->ft, FM_EV_NAME, m[i].row);
        g->cat = table_str(c->ft, FM_EV_CAT, m[i].row);
        g->row = m[i].row;
        g->start = table_i64(c->ft, FM_EV_TS, m[i].row) + c->base;
        for (; j < n && m[j].key1 == m[i].key1 && m[j].key2 == m[i].key2; j++) {
            const hdj_exec *e = &o->execs[m[j].exec];
            iv[j - i] = (interval){e->start, e->end};
            g->exec_spans++;
            g->device_core_sum_ns += e->end - e->start;
            if (j == i || m[j].row != m[j - 1].row) {
                g->instances++;
                g->host_ns += hdj_fw_dur(c, m[j].row);
            }
        }
        g->device_union_ns = interval_union(iv, j - i);
        i = j;
    }
    qsort(*out, *nout, sizeof **out, which == 1 ? hdj_group_start_cmp : hdj_group_device_cmp);
    hdj_group *fit = *nout ? realloc(*out, *nout * sizeof **out) : NULL; /* sized for every execution above */
    if (fit)
        *out = fit;
    free(m);
    free(iv);
    return 0;
}

static int hdj_totals(hdj_ctx *c)
{
    host_device_join *o = c->o;
    interval *all = malloc((o->nexecs ? o->nexecs : 1) * sizeof *all);
    interval *un = malloc((o->nexecs ? o->nexecs : 1) * sizeof *un);
    if (!all || !un) {
        free(all);
        free(un);
        return hdj_nomem(c, "totals");
    }
    size_t nun = 0;
    for (size_t i = 0; i < o->nexecs; i++) {
        const hdj_exec *e = &o->execs[i];
        all[i] = (interval){e->start, e->end};
        o->device_core_sum_ns += e->end - e->start;
        if (e->basis == HDJ_UNATTRIBUTED)
            un[nun++] = all[i];
        o->exec_first_ns = !o->has_exec_window || e->start < o->exec_first_ns ? e->start : o->exec_first_ns;
        o->exec_last_ns = !o->has_exec_window || e->end > o->exec_last_ns ? e->end : o->exec_last_ns;
        o->has_exec_window = true;
    }
    o->device_union_ns = interval_union(all, o->nexecs);
    o->unattributed_ns = interval_union(un, nun);
    free(all);
    free(un);
    return 0;
}

int host_device_join_compute(const framework_model *fm, const system_model *sm, const atomic_int *cancel,
                             host_device_join *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    hdj_ctx c = {.fm = fm, .sm = sm, .cancel = cancel, .o = out, .err = err};
    c.ft = framework_model_events(fm);
    c.threads = framework_model_row_threads(fm);
    c.nthreads = framework_model_thread_count(fm);
    out->has_base = framework_model_time_base(fm, &out->base_ns) != 0;
    if (!out->has_base)
        out->base_ns = 0;
    c.base = out->base_ns;
    int rc = hdj_framework(&c);
    if (!rc)
        rc = hdj_check_cancel(&c) ? -1 : hdj_system(&c);
    if (!rc)
        rc = hdj_links(&c);
    if (!rc)
        rc = hdj_build_queries(&c);
    if (!rc)
        rc = hdj_stab(&c);
    if (!rc)
        rc = hdj_totals(&c);
    if (!rc)
        rc = hdj_make_groups(&c, 0, &out->ops, &out->nops);
    if (!rc)
        rc = hdj_make_groups(&c, 1, &out->steps, &out->nsteps);
    if (!rc)
        rc = hdj_make_groups(&c, 2, &out->regions, &out->nregions);
    if (out->has_fw_window) { /* leave in unix ns */
        out->fw_first_ns += c.base;
        out->fw_last_ns += c.base;
    }
    free(c.spans);
    free(c.thread_first);
    free(c.devs);
    free(c.corrs);
    free(c.starts);
    free(c.fins);
    free(c.fw_tid);
    free(c.launches);
    free(c.queries);
    free(c.hits);
    free(c.exec_dev);
    if (rc) {
        host_device_join_free(out);
        return -1;
    }
    return 0;
}
