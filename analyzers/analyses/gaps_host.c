/* gaps_host — see gaps_host.h.
 *
 * Both adapters run the same three steps: pick the collective events (by type name or by event name,
 * resolved once per dictionary code), collect (lane key, start time, name) triples, then sort them by lane
 * and time and cut them into one gaps_core_input per lane. Times arrive sorted, so gaps_compute never
 * reports the input as reordered for these sources (files keep events in completion or worker order, not
 * time order, and that is no sign of a problem here). */
#include "gaps_host.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct gh_event {
    int64_t key;    /* lane: core / nc number, or thread index */
    int64_t ts;     /* unix ns */
    uint32_t name;  /* strtab id */
    int64_t nc;
} gh_event;

typedef struct gh_vec {
    gh_event *v;
    size_t n, cap;
} gh_vec;

static int gh_push(gh_vec *vec, gh_event e, nl_error *err)
{
    if (vec->n >= GAPS_TRIGGERS_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "more than %zu collective events", (size_t)GAPS_TRIGGERS_MAX);
    if (vec->n == vec->cap) {
        size_t cap = vec->cap ? vec->cap * 2 : 64;
        gh_event *v = realloc(vec->v, cap * sizeof *v);
        if (!v)
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (collective events)");
        vec->v = v;
        vec->cap = cap;
    }
    vec->v[vec->n++] = e;
    return 0;
}

static int gh_event_cmp(const void *pa, const void *pb)
{
    const gh_event *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

static int gh_u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

static int gh_count_cmp(const void *pa, const void *pb)
{
    const gaps_host_count *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return (a->name > b->name) - (a->name < b->name);
}

const char *gaps_host_source_name(gaps_host_source s)
{
    switch (s) {
    case GAPS_HOST_SYSTEM_CC: return "system_cc_running";
    case GAPS_HOST_FRAMEWORK_DEVICE: return "framework_device_kernels";
    case GAPS_HOST_FRAMEWORK_HOST: return "framework_host_annotations";
    case GAPS_HOST_DEVICE_CC_OPS: return "device_cc_ops";
    default: return "none";
    }
}

void gaps_host_inputs_free(gaps_host_inputs *in)
{
    if (!in)
        return;
    free(in->cores);
    free(in->lanes);
    free(in->storage);
    in->cores = NULL;
    in->lanes = NULL;
    in->storage = NULL;
    in->count = 0;
}

/* Sorted events → lanes (one per distinct key) and the name counts. */
static int gh_build(gh_vec *ev, gaps_host_inputs *out, nl_error *err)
{
    if (ev->n)
        qsort(ev->v, ev->n, sizeof *ev->v, gh_event_cmp);
    size_t lanes = 0;
    for (size_t i = 0; i < ev->n; i++)
        lanes += i == 0 || ev->v[i].key != ev->v[i - 1].key;
    out->cores = calloc(lanes ? lanes : 1, sizeof *out->cores);
    out->lanes = calloc(lanes ? lanes : 1, sizeof *out->lanes);
    out->storage = malloc((ev->n ? ev->n : 1) * sizeof *out->storage);
    if (!out->cores || !out->lanes || !out->storage)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (collective lanes)");
    size_t k = 0;
    for (size_t i = 0; i < ev->n; i++) {
        if (i == 0 || ev->v[i].key != ev->v[i - 1].key) {
            k = out->count++;
            out->cores[k].ts = out->storage + i;
            out->cores[k].id = (uint32_t)ev->v[i].key;
            out->lanes[k].id = (uint32_t)ev->v[i].key;
            out->lanes[k].nc = ev->v[i].nc;
        }
        out->storage[i] = ev->v[i].ts;
        out->cores[k].count++;
        out->lanes[k].count++;
    }
    out->events = ev->n;
    /* names: sort the name ids, count the runs, keep the most frequent */
    uint32_t *ids = malloc((ev->n ? ev->n : 1) * sizeof *ids);
    gaps_host_count *all = calloc(ev->n ? ev->n : 1, sizeof *all);
    if (!ids || !all) {
        free(ids);
        free(all);
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (collective names)");
    }
    for (size_t i = 0; i < ev->n; i++)
        ids[i] = ev->v[i].name;
    if (ev->n > 1)
        qsort(ids, ev->n, sizeof *ids, gh_u32_cmp);
    size_t nall = 0;
    for (size_t i = 0; i < ev->n; i++) {
        if (i == 0 || ids[i] != ids[i - 1])
            all[nall++].name = ids[i];
        all[nall - 1].count++;
    }
    free(ids);
    if (nall > 1)
        qsort(all, nall, sizeof *all, gh_count_cmp);
    for (size_t j = 0; j < nall; j++) {
        if (j < GAPS_HOST_NAMES_MAX)
            out->names[out->nnames++] = all[j];
        else
            out->other_names += all[j].count;
    }
    free(all);
    return 0;
}

/* ---- system ------------------------------------------------------------------------------------------- */

static bool gh_related_type(const char *s)
{
    return strstr(s, "cc_") == s || strstr(s, "_cc_") || strstr(s, "collective") || strstr(s, "barrier");
}

int gaps_host_from_system(const system_model *m, gaps_host_inputs *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    out->lane_basis = "none";
    const table *t = system_model_table_get(m, SM_SPANS);
    const strtab *st = system_model_strings(m);
    size_t rows = t ? table_rows(t) : 0;
    uint32_t ncodes = t ? table_dict_size(t, SM_SPAN_TYPE) : 0, cc = UINT32_MAX;
    uint64_t *per_code = calloc(ncodes ? ncodes : 1, sizeof *per_code);
    if (!per_code)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (event types)");
    for (uint32_t code = 0; code < ncodes; code++)
        if (!strcmp(strtab_str(st, table_dict_id(t, SM_SPAN_TYPE, code), NULL), GAPS_HOST_CC_TYPE))
            cc = code;
    bool by_core = false, by_nc = false;
    for (size_t r = 0; r < rows; r++) {
        uint32_t code = table_code(t, SM_SPAN_TYPE, r);
        per_code[code]++;
        if (code == cc && !(table_u64(t, SM_SPAN_FLAGS, r) & SM_SPAN_F_ORPHAN_END)) {
            by_core |= table_i64(t, SM_SPAN_CORE, r) >= 0;
            by_nc |= table_i64(t, SM_SPAN_NC, r) >= 0;
        }
    }
    const syspb_intern_table *types = syspb_trace_info_table(system_model_trace_info(m), SYSPB_TABLE_EVENT_TYPES);
    for (size_t i = 0; types && i < types->count && out->nrelated < GAPS_HOST_RELATED_MAX; i++) {
        const char *name = types->entries[i].value;
        if (!name || !gh_related_type(name))
            continue;
        uint64_t spans = 0;
        for (uint32_t code = 0; code < ncodes; code++)
            if (!strcmp(strtab_str(st, table_dict_id(t, SM_SPAN_TYPE, code), NULL), name))
                spans += per_code[code];
        out->related[out->nrelated++] = (gaps_host_related){name, spans};
    }
    free(per_code);
    out->lane_basis = by_core ? "device_core_idx" : by_nc ? "nc_idx" : "none";
    gh_vec ev = {0};
    int rc = 0;
    for (size_t r = 0; !rc && cc != UINT32_MAX && r < rows; r++) {
        if (table_code(t, SM_SPAN_TYPE, r) != cc)
            continue;
        if (table_u64(t, SM_SPAN_FLAGS, r) & SM_SPAN_F_ORPHAN_END) {
            out->skipped++;
            continue;
        }
        int64_t core = table_i64(t, SM_SPAN_CORE, r), nc = table_i64(t, SM_SPAN_NC, r);
        int64_t key = by_core ? core : by_nc ? nc : 0;
        if (key < 0 || key > (int64_t)UINT32_MAX) {
            out->skipped++;
            continue;
        }
        gh_event e = {key, table_i64(t, SM_SPAN_START, r), table_str(t, SM_SPAN_TYPE, r), nc};
        rc = gh_push(&ev, e, err);
    }
    if (!rc)
        rc = gh_build(&ev, out, err);
    free(ev.v);
    if (rc) {
        gaps_host_inputs_free(out);
        return -1;
    }
    out->source = out->events ? GAPS_HOST_SYSTEM_CC : GAPS_HOST_NONE;
    return 0;
}

int gaps_host_exec_window(const system_model *m, const gaps_host_inputs *in, uint32_t lane, int64_t *ns)
{
    const table *t = system_model_table_get(m, SM_SPANS);
    uint32_t type = system_model_type(m, "nc_exec_running");
    bool any = false;
    int64_t first = 0, last = 0;
    for (size_t r = 0; t && type != STRTAB_NONE && r < table_rows(t); r++) {
        if (table_str(t, SM_SPAN_TYPE, r) != type || (table_u64(t, SM_SPAN_FLAGS, r) & SM_SPAN_F_PAIRED_MASK))
            continue;
        int64_t key = !strcmp(in->lane_basis, "device_core_idx") ? table_i64(t, SM_SPAN_CORE, r)
                    : !strcmp(in->lane_basis, "nc_idx") ? table_i64(t, SM_SPAN_NC, r) : (int64_t)lane;
        if (key != (int64_t)lane)
            continue;
        int64_t s = table_i64(t, SM_SPAN_START, r), e = table_i64(t, SM_SPAN_END, r);
        first = !any || s < first ? s : first;
        last = !any || e > last ? e : last;
        any = true;
    }
    if (any)
        *ns = last - first;
    return any;
}

/* ---- framework ---------------------------------------------------------------------------------------- */

bool gaps_host_is_collective_annotation(const char *name, size_t len)
{
    static const char *const ops[] = {"all_reduce", "allreduce", "all_gather", "allgather", "reduce_scatter",
                                      "reduce", "broadcast", "all_to_all", "alltoall", "barrier", "send", "recv",
                                      "gather", "scatter"};
    size_t i = 0;
    while (i < len && (isalnum((unsigned char)name[i]) || name[i] == '_'))
        i++;
    if (i == 0 || i >= len || name[i] != ':' || (i + 1 < len && name[i + 1] == ':'))
        return false;
    const char *op = name + i + 1;
    size_t n = len - i - 1;
    if (n && *op == '_') {
        op++;
        n--;
    }
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t l = strlen(ops[k]);
        if (n >= l && !strncasecmp(op, ops[k], l))
            return true;
    }
    return false;
}

static bool gh_has_ci(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (!strncasecmp(s + i, needle, n))
            return true;
    return false;
}

enum { GH_NAME_ANNOTATION = 1, GH_NAME_KERNEL = 2 };

int gaps_host_from_framework(const framework_model *m, gaps_host_inputs *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    out->lane_basis = "tid";
    const table *t = framework_model_events(m);
    const uint32_t *threads = framework_model_row_threads(m);
    size_t rows = t ? table_rows(t) : 0;
    uint32_t nname = t ? table_dict_size(t, FM_EV_NAME) : 0, ncat = t ? table_dict_size(t, FM_EV_CAT) : 0;
    uint32_t nph = t ? table_dict_size(t, FM_EV_PH) : 0;
    uint8_t *name_kind = calloc(nname ? nname : 1, 1), *cat_skip = calloc(ncat ? ncat : 1, 1);
    uint8_t *ph_x = calloc(nph ? nph : 1, 1);
    uint8_t *use = calloc(rows ? rows : 1, 1); /* 1 device kernel, 2 host annotation */
    int rc = 0;
    if (!name_kind || !cat_skip || !ph_x || !use)
        rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (collective classification)");
    for (uint32_t k = 0; !rc && k < nname; k++) {
        size_t len;
        const char *s = framework_model_str(m, table_dict_id(t, FM_EV_NAME, k), &len);
        name_kind[k] = (uint8_t)((gaps_host_is_collective_annotation(s, len) ? GH_NAME_ANNOTATION : 0) |
                                 (gh_has_ci(s, len, "nccl") || gh_has_ci(s, len, "rccl") ? GH_NAME_KERNEL : 0));
    }
    for (uint32_t k = 0; !rc && k < ncat; k++) {
        size_t len;
        const char *s = framework_model_str(m, table_dict_id(t, FM_EV_CAT, k), &len);
        cat_skip[k] = (framework_model_category_traits(s, len) & (FM_CAT_ANNOTATION | FM_CAT_PROFILER)) != 0;
    }
    for (uint32_t k = 0; !rc && k < nph; k++)
        ph_x[k] = !strcmp(framework_model_str(m, table_dict_id(t, FM_EV_PH, k), NULL), "X");
    uint64_t device = 0, host = 0;
    for (size_t r = 0; !rc && r < rows; r++) {
        uint32_t nk = name_kind[table_code(t, FM_EV_NAME, r)];
        if (!nk || !ph_x[table_code(t, FM_EV_PH, r)] || !(table_u64(t, FM_EV_FLAGS, r) & FM_F_TS) ||
            cat_skip[table_code(t, FM_EV_CAT, r)])
            continue;
        const framework_model_process *p = framework_model_process_at(m, table_code(t, FM_EV_PID, r));
        if (p && p->device != FM_HOST) {
            use[r] = 1;
            device++;
        } else if (nk & GH_NAME_ANNOTATION) {
            use[r] = 2;
            host++;
        }
    }
    int64_t base = 0;
    if (!framework_model_time_base(m, &base))
        base = 0;
    uint8_t want = device ? 1 : 2;
    out->host_annotations = device ? host : 0;
    gh_vec ev = {0};
    for (size_t r = 0; !rc && r < rows; r++)
        if (use[r] == want) {
            gh_event e = {threads[r], table_i64(t, FM_EV_TS, r) + base, table_str(t, FM_EV_NAME, r), -1};
            rc = gh_push(&ev, e, err);
        }
    if (!rc)
        rc = gh_build(&ev, out, err);
    free(ev.v);
    free(name_kind);
    free(cat_skip);
    free(ph_x);
    free(use);
    if (rc) {
        gaps_host_inputs_free(out);
        return -1;
    }
    /* lane ids: numeric tids when they are distinct integers up to GAPS_HOST_TID_MAX, else thread indices */
    bool numeric = true;
    for (size_t i = 0; i < out->count; i++) {
        uint32_t th = out->lanes[i].id; /* thread index, as keyed */
        const framework_model_thread *x = framework_model_thread_at(m, th);
        out->lanes[i].thread = th;
        out->lanes[i].pid = x->pid;
        out->lanes[i].tid = x->tid;
        out->lanes[i].name = x->name;
        const char *tid = framework_model_str(m, x->tid, NULL);
        char *end;
        unsigned long long v = tid && *tid && isdigit((unsigned char)*tid) ? strtoull(tid, &end, 10) : 0;
        if (!tid || !*tid || !isdigit((unsigned char)*tid) || *end || v > GAPS_HOST_TID_MAX)
            numeric = false;
        for (size_t j = 0; numeric && j < i; j++)
            numeric = out->lanes[j].tid != x->tid; /* the same tid in two processes: ids would clash */
    }
    for (size_t i = 0; i < out->count; i++) {
        uint32_t id = numeric ? (uint32_t)strtoull(framework_model_str(m, out->lanes[i].tid, NULL), NULL, 10)
                              : out->lanes[i].thread;
        out->lanes[i].id = id;
        out->cores[i].id = id;
    }
    out->lane_basis = numeric ? "tid" : "thread_index";
    out->source = !out->events ? GAPS_HOST_NONE : device ? GAPS_HOST_FRAMEWORK_DEVICE : GAPS_HOST_FRAMEWORK_HOST;
    return 0;
}

/* ---- CcOp table --------------------------------------------------------------------------------------- */

int gaps_host_from_cc_ops(const device_model *m, gaps_host_inputs *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    out->lane_basis = "stream_id";
    const table *t = device_model_table_get(m, DEVICE_MODEL_CC_OPS);
    size_t rows = t ? table_rows(t) : 0;
    gh_vec ev = {0};
    int rc = 0;
    for (size_t r = 0; !rc && r < rows; r++) {
        int64_t stream = table_i64(t, DM_CCOP_STREAM_ID, r), trigger = table_i64(t, DM_CCOP_TRIGGER_START, r);
        if (stream < 0 || stream > (int64_t)UINT32_MAX) {
            out->skipped++;
            continue;
        }
        out->triggered += trigger > 0;
        gh_event e = {stream, trigger > 0 ? trigger : table_i64(t, DM_CCOP_START, r), table_str(t, DM_CCOP_OPERATION, r), -1};
        rc = gh_push(&ev, e, err);
    }
    if (!rc)
        rc = gh_build(&ev, out, err);
    free(ev.v);
    if (rc) {
        gaps_host_inputs_free(out);
        return -1;
    }
    out->source = out->events ? GAPS_HOST_DEVICE_CC_OPS : GAPS_HOST_NONE;
    return 0;
}
