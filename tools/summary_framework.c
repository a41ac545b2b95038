/* summary_framework — the `summary` tool on a PyTorch/Kineto trace.json(.gz): wall time per step, top ops
 * by CPU self time and by device time, merged device busy time and idle gaps, host-to-device copies and
 * launch-to-execution latency.
 *
 * Reads the trace with analyzers/readers/kineto (streaming, gzip-aware; a cut-off file yields the events
 * before the break, labelled partial) and computes analyzers/analyses/framework_summary, whose definitions
 * (device vs host, nesting, self time, links, busy, percentiles) the result cites in `definitions`. The
 * model, its summary and the host-device join come from the shared model cache (memo.h: read and computed
 * once per version of the trace), so a warm call only shapes; progress is reported while a cold call reads
 * and the cancel flag is honoured; provenance.model says whether this call read the trace. A cut-off trace
 * gives status "partial" (and partial: true); otherwise status "complete". Lists are cut while shaping
 * (top N), never by truncating text. */
#include "tool_common.h"
#include "framework_summary.h"
#include "select.h"
#include "kineto.h"
#include "memo.h"
#include "shape.h"
#include "summary_kinds.h"
#include "summary_host_device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SF_TOP_OPS 10u         /* rows of each top-ops list */
#define SF_TOP_KERNELS 10u
#define SF_STEPS_SHOWN 20u
#define SF_CATEGORIES_SHOWN 24u
#define SF_PROCESSES_SHOWN 32u
#define SF_STREAMS_SHOWN 8u
#define SF_DEVICES_SHOWN 8u
#define SF_NAME_SHOWN 240u     /* bytes of a name shown (Kineto names reach 5 KB); longer ones are cut */

typedef struct sf_ctx {
    nl_call *call;
    const framework_model *m;
    const framework_summary *s;
    int64_t origin; /* the window start: every *_ns time below is relative to it */
    json_t *dq;
} sf_ctx;

/* ---- small helpers ------------------------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s[0..n), 0 when invalid. */
static size_t sf_utf8_len(const unsigned char *s, size_t n)
{
    size_t k = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 && s[0] >= 0xc2 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
             : (s[0] & 0xf8) == 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    if (!k || k > n)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return k;
}

/* A name as JSON: invalid UTF-8 bytes become '?', and a name longer than SF_NAME_SHOWN bytes is cut on a
 * character boundary with "…" appended (*cut set). */
static json_t *sf_name(const framework_model *m, uint32_t id, bool *cut)
{
    size_t len;
    const unsigned char *s = (const unsigned char *)framework_model_str(m, id, &len);
    char buf[SF_NAME_SHOWN + 4];
    size_t o = 0;
    for (size_t i = 0; s && i < len;) {
        size_t k = sf_utf8_len(s + i, len - i);
        if (o + (k ? k : 1) > SF_NAME_SHOWN) {
            memcpy(buf + o, "\xe2\x80\xa6", 3);
            o += 3;
            if (cut)
                *cut = true;
            break;
        }
        if (k) {
            memcpy(buf + o, s + i, k);
            o += k;
            i += k;
        } else {
            buf[o++] = '?';
            i++;
        }
    }
    return json_stringn(buf, o);
}

static void sf_set_name(json_t *o, const framework_model *m, uint32_t id)
{
    bool cut = false;
    json_object_set_new(o, "name", sf_name(m, id, &cut));
    if (cut) {
        size_t len;
        framework_model_str(m, id, &len);
        json_object_set_new(o, "name_truncated", json_true());
        json_object_set_new(o, "name_bytes", json_integer((json_int_t)len));
    }
}

static json_t *sf_str(const framework_model *m, uint32_t id)
{
    return sf_name(m, id, NULL);
}

static json_t *sf_pct(int64_t part, int64_t whole)
{
    return whole > 0 ? json_real(round(1e4 * (double)part / (double)whole) / 100) : json_null();
}

/* s cut to at most max bytes on a UTF-8 character boundary (the text result must stay valid UTF-8). */
static const char *sf_cut(const char *s, size_t max, char *buf)
{
    size_t n = strlen(s);
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

static void sf_quality(sf_ctx *c, const char *severity, const char *code, const char *problem, const char *fix)
{
    json_t *q = shape_quality(severity, problem, fix, NULL);
    if (!q) /* a problem text quoting bytes that are not UTF-8: say so rather than drop it */
        q = shape_quality(severity, "a data-quality problem whose text is not valid UTF-8 (it quotes the trace)", fix,
                          NULL);
    json_object_set_new(q, "code", json_string(code));
    json_array_append_new(c->dq, q);
}

static const char *sf_kv_text(const kvlist *l, const char *key)
{
    const kvlist_entry *e = l ? kvlist_get(l, key) : NULL;
    return e && e->kind != KVLIST_COMPOUND && e->kind != KVLIST_NULL ? kvlist_text_str(l, e) : NULL;
}

static json_t *sf_kv_json(const kvlist *l, const char *key)
{
    const kvlist_entry *e = l ? kvlist_get(l, key) : NULL;
    if (!e)
        return NULL;
    switch (e->kind) {
    case KVLIST_INT: return json_integer(e->i);
    case KVLIST_UINT: return json_string(kvlist_text_str(l, e)); /* beyond int64: the digits as written */
    case KVLIST_DOUBLE: return json_real(e->num);
    case KVLIST_BOOL: return json_boolean(e->i);
    case KVLIST_STRING: return json_string(kvlist_text_str(l, e));
    default: return NULL;
    }
}

static void sf_copy_kv(json_t *o, const kvlist *l, const char *key, const char *as)
{
    json_t *v = sf_kv_json(l, key);
    if (v)
        json_object_set_new(o, as ? as : key, v);
}

/* ---- sections ----------------------------------------------------------------------------------------- */

static json_t *sf_events(const sf_ctx *c)
{
    const framework_summary *s = c->s;
    json_t *ph = json_object(), *cat = json_object();
    for (size_t i = 0; i < s->nphases; i++)
        json_object_set_new(ph, framework_model_str(c->m, s->phases[i].id, NULL), json_integer((json_int_t)s->phases[i].count));
    uint64_t other = 0;
    for (size_t i = 0; i < s->ncats; i++) {
        const char *name = framework_model_str(c->m, s->cats[i].id, NULL);
        if (i < SF_CATEGORIES_SHOWN)
            json_object_set_new(cat, *name ? name : "(none: metadata)", json_integer((json_int_t)s->cats[i].count));
        else
            other += s->cats[i].count;
    }
    if (other)
        json_object_set_new(cat, "(other categories)", json_integer((json_int_t)other));
    return json_pack("{sI so so sI s{sI sI sI} sI}", "total", (json_int_t)s->events, "by_phase", ph, "by_category", cat,
                     "metadata", (json_int_t)s->meta_events, "flows", "start", (json_int_t)s->flow_starts, "step",
                     (json_int_t)s->flow_steps, "finish", (json_int_t)s->flow_finishes, "instants",
                     (json_int_t)s->instants);
}

static json_t *sf_processes(const sf_ctx *c)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < framework_model_process_count(c->m) && i < SF_PROCESSES_SHOWN; i++) {
        const framework_model_process *p = framework_model_process_at(c->m, i);
        json_t *o = json_pack("{s:o, s:s, s:s, s:I}", "pid", sf_str(c->m, p->pid), "role",
                              p->device == FM_HOST ? "host" : "device", "why", framework_model_device_reason_name(p->device),
                              "events", (json_int_t)p->events);
        if (p->name || p->labels)
            json_object_set_new(o, "name", sf_str(c->m, p->name ? p->name : p->labels));
        json_array_append_new(arr, o);
    }
    return arr;
}

static int sf_i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static json_t *sf_steps(const sf_ctx *c)
{
    const framework_summary *s = c->s;
    json_t *items = json_array();
    int64_t total = 0;
    int64_t *walls = malloc((s->nsteps ? s->nsteps : 1) * sizeof *walls);
    for (size_t i = 0; i < s->nsteps; i++) {
        const fs_step *st = &s->steps[i];
        total += st->dur_ns;
        if (walls)
            walls[i] = st->dur_ns;
        if (i >= SF_STEPS_SHOWN)
            continue;
        json_t *o = json_pack("{s:o, s:I, s:I, s:I, s:o}", "name", sf_str(c->m, st->name), "start_ns",
                              (json_int_t)(st->ts_ns - c->origin), "wall_ns", (json_int_t)st->dur_ns, "device_busy_ns",
                              (json_int_t)st->device_busy_ns, "device_busy_pct", sf_pct(st->device_busy_ns, st->dur_ns));
        json_object_set_new(o, "step", st->number >= 0 ? json_integer(st->number) : json_null());
        json_array_append_new(items, o);
    }
    json_t *o = json_pack("{s:I, s:I, s:I, s:o}", "count", (json_int_t)s->steps_total, "shown",
                          (json_int_t)json_array_size(items), "wall_ns_total", (json_int_t)total, "items", items);
    if (walls && s->nsteps) {
        qsort(walls, s->nsteps, sizeof *walls, sf_i64_cmp);
        json_object_set_new(o, "wall_ns_median", json_integer(walls[(s->nsteps + 1) / 2 - 1]));
        json_object_set_new(o, "wall_ns_max", json_integer(walls[s->nsteps - 1]));
    }
    free(walls);
    return o;
}

static json_t *sf_host_ops(const sf_ctx *c)
{
    const framework_summary *s = c->s;
    json_t *arr = json_array();
    for (size_t i = 0; i < s->nhost_ops && i < SF_TOP_OPS; i++) {
        const fs_op *op = &s->host_ops[i];
        json_t *o = json_object();
        sf_set_name(o, c->m, op->name);
        json_object_set_new(o, "category", sf_str(c->m, op->cat));
        json_object_set_new(o, "calls", json_integer((json_int_t)op->count));
        json_object_set_new(o, "self_ns", json_integer(op->self_ns));
        json_object_set_new(o, "total_ns", json_integer(op->total_ns));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *sf_device_ops(const sf_ctx *c, const fs_op *ops, size_t n, const char *count_key)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n && i < SF_TOP_OPS; i++) {
        json_t *o = json_object();
        sf_set_name(o, c->m, ops[i].name);
        json_object_set_new(o, "category", sf_str(c->m, ops[i].cat));
        json_object_set_new(o, count_key, json_integer((json_int_t)ops[i].count));
        json_object_set_new(o, "device_ns", json_integer(ops[i].total_ns));
        json_object_set_new(o, "pct_of_device_time", sf_pct(ops[i].total_ns, c->s->device_sum_ns));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *sf_gaps(const fs_busy *b, int64_t origin)
{
    json_t *o = json_pack("{s:I, s:I, s:I}", "count", (json_int_t)b->gaps, "total_ns", (json_int_t)b->gap_total_ns,
                          "largest_ns", (json_int_t)b->gap_max_ns);
    if (b->gaps)
        json_object_set_new(o, "largest_starts_at_ns", json_integer(b->gap_max_at_ns - origin));
    return o;
}

static json_t *sf_busy(const sf_ctx *c, const fs_busy *b, bool stream)
{
    json_t *o = json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:o}", "pid", sf_str(c->m, b->pid), "events",
                          (json_int_t)b->spans, "busy_ns", (json_int_t)b->busy_ns, "summed_ns", (json_int_t)b->sum_ns,
                          "first_ns", (json_int_t)(b->first_ns - c->origin), "last_ns", (json_int_t)(b->last_ns - c->origin),
                          "busy_pct_of_active_span", sf_pct(b->busy_ns, b->last_ns - b->first_ns));
    if (stream)
        json_object_set_new(o, "tid", sf_str(c->m, b->tid));
    if (b->name)
        json_object_set_new(o, "name", sf_str(c->m, b->name));
    json_object_set_new(o, "idle_gaps", sf_gaps(b, c->origin));
    return o;
}

static json_t *sf_device(const sf_ctx *c)
{
    const framework_summary *s = c->s;
    json_t *devices = json_array(), *streams = json_array();
    for (size_t i = 0; i < s->ndevices && i < SF_DEVICES_SHOWN; i++)
        json_array_append_new(devices, sf_busy(c, &s->devices[i], false));
    for (size_t i = 0; i < s->nstreams && i < SF_STREAMS_SHOWN; i++)
        json_array_append_new(streams, sf_busy(c, &s->streams[i], true));
    int64_t span = s->device_spans ? s->device_last_ns - s->device_first_ns : 0;
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:o, s:o, s:{s:I, s:o}}",
                          "device_processes", (json_int_t)s->device_processes, "events", (json_int_t)s->device_spans,
                          "other_device_events", (json_int_t)s->device_other_spans, "busy_ns", (json_int_t)s->device_busy_ns,
                          "summed_ns", (json_int_t)s->device_sum_ns, "active_span_ns", (json_int_t)span,
                          "busy_pct_of_active_span", sf_pct(s->device_busy_ns, span), "idle_in_active_span_ns",
                          (json_int_t)(span - s->device_busy_ns), "busy_pct_of_trace",
                          sf_pct(s->device_busy_ns, s->has_window ? s->last_ns - s->first_ns : 0), "per_device", devices,
                          "streams", "total", (json_int_t)s->streams_total, "busiest", streams);
    json_object_set_new(o, "linked_to_host_ops", json_pack("{s:I, s:I, s:I, s:I, s:I}", "by_correlation",
                                                           (json_int_t)s->linked_correlation, "by_flow",
                                                           (json_int_t)s->linked_flow, "by_external_id",
                                                           (json_int_t)s->linked_external, "unlinked",
                                                           (json_int_t)s->unlinked, "unlinked_ns", (json_int_t)s->unlinked_ns));
    if (s->device_spans)
        json_object_set_new(o, "first_ns", json_integer(s->device_first_ns - c->origin));
    return o;
}

static json_t *sf_copy(const fs_copy *cp)
{
    json_t *o = json_pack("{s:I, s:I}", "count", (json_int_t)cp->count, "device_ns", (json_int_t)cp->dur_ns);
    json_object_set_new(o, "bytes", cp->with_bytes ? json_integer((json_int_t)cp->bytes) : json_null());
    if (cp->with_bytes && cp->with_bytes < cp->count)
        json_object_set_new(o, "bytes_known_for", json_integer((json_int_t)cp->with_bytes));
    return o;
}

static json_t *sf_copies(const sf_ctx *c)
{
    const framework_summary *s = c->s;
    json_t *dev = json_object();
    for (int k = 0; k < FS_COPY_KINDS; k++)
        if (s->copies[k].count)
            json_object_set_new(dev, fs_copy_kind_name(k), sf_copy(&s->copies[k]));
    json_t *host = json_array();
    for (size_t i = 0; i < s->nhost_copy_ops; i++) {
        const fs_op *op = &s->host_copy_ops[i];
        json_t *o = json_pack("{s:o, s:o, s:I, s:I, s:I}", "name", sf_str(c->m, op->name), "category",
                              sf_str(c->m, op->cat), "calls", (json_int_t)op->count, "total_ns", (json_int_t)op->total_ns,
                              "self_ns", (json_int_t)op->self_ns);
        json_array_append_new(host, o);
    }
    json_t *o = json_pack("{s:o, s:o}", "device_copies", dev, "host_copy_ops", host);
    if (s->memsets.count)
        json_object_set_new(o, "device_memsets", sf_copy(&s->memsets));
    json_object_set_new(o, "h2d_count", json_integer((json_int_t)s->copies[FS_COPY_H2D].count));
    return o;
}

static json_t *sf_latency(const sf_ctx *c)
{
    const fs_latency *l = &c->s->latency;
    json_t *o = json_pack("{s:s, s:I}", "basis", fs_latency_basis_name(l->basis), "pairs", (json_int_t)l->pairs);
    if (l->pairs) {
        json_object_set_new(o, "min_ns", json_integer(l->min_ns));
        json_object_set_new(o, "median_ns", json_integer(l->median_ns));
        json_object_set_new(o, "p90_ns", json_integer(l->p90_ns));
        json_object_set_new(o, "max_ns", json_integer(l->max_ns));
        json_object_set_new(o, "negative", json_integer((json_int_t)l->negative));
    }
    json_object_set_new(o, "method", json_string(
        l->basis == FS_LAT_FLOWS ? "per flow pair: device-side f timestamp minus the host-side s timestamp of the same id"
        : l->basis == FS_LAT_CORRELATION ? "no host-to-device flows: device event start minus the start of the host "
                                           "event with the same correlation id"
                                         : "no host-to-device flows or correlation ids in the trace"));
    return o;
}

static json_t *sf_basis(const sf_ctx *c)
{
    const framework_summary *s = c->s;
    char text[640];
    if (!s->device_spans)
        snprintf(text, sizeof text, "no device events: device time per op cannot be computed");
    else
        snprintf(text, sizeof text,
                 "computed from the %llu device events themselves (the self_privateuse1_time_total view): each is "
                 "credited to the host op that launched it — %llu linked by correlation id, %llu by flow (ac2g), %llu by "
                 "External id, %llu unlinked. A trace.json carries no per-op device-time column (key_averages() "
                 "derives one the same way); nothing here comes from such a column.",
                 (unsigned long long)s->device_spans, (unsigned long long)s->linked_correlation,
                 (unsigned long long)s->linked_flow, (unsigned long long)s->linked_external,
                 (unsigned long long)s->unlinked);
    return json_string(text);
}

/* ---- provenance and data quality ---------------------------------------------------------------------- */

static json_t *sf_provenance(const sf_ctx *c, const nl_catalog_file *f, const nl_model_ref *ref)
{
    const framework_model *m = c->m;
    const kvlist *tr = framework_model_trace(m), *dist = framework_model_dist(m);
    json_t *p = json_pack("{s:s, s:s, s:b, s:I, s:I, s:s, s:s}", "file", f->rel_path, "path", f->path, "gzipped",
                          framework_model_gzipped(m), "file_bytes", (json_int_t)framework_model_file_bytes(m),
                          "json_bytes", (json_int_t)framework_model_json_bytes(m), "layout",
                          framework_model_layout_of(m) == FM_LAYOUT_ARRAY ? "bare array of events" : "object with traceEvents",
                          "reader", "neuronlens streaming Kineto reader (no DOM)");
    sf_copy_kv(p, tr, "schemaVersion", NULL);
    sf_copy_kv(p, tr, "baseTimeNanoseconds", NULL);
    const char *trace_id = sf_kv_text(tr, "trace_id");
    if (trace_id)
        json_object_set_new(p, "trace_id", json_string(trace_id)); /* as written: it may exceed int64 */
    sf_copy_kv(p, tr, "traceName", NULL);
    sf_copy_kv(p, tr, "displayTimeUnit", NULL);
    if (dist) {
        json_t *d = json_object();
        sf_copy_kv(d, dist, "backend", NULL);
        sf_copy_kv(d, dist, "rank", NULL);
        sf_copy_kv(d, dist, "world_size", NULL);
        sf_copy_kv(d, dist, "pg_count", NULL);
        json_object_set_new(p, "distributedInfo", d);
    }
    json_t *devs = json_array();
    for (size_t i = 0; i < framework_model_device_count(m) && i < 8; i++) {
        int64_t id;
        uint32_t name;
        int has = framework_model_device_at(m, i, &id, &name);
        json_array_append_new(devs, json_pack("{s:o, s:o}", "id", has ? json_integer(id) : json_null(), "name",
                                              sf_str(m, name)));
    }
    json_object_set_new(p, "deviceProperties", devs);
    int64_t base;
    json_object_set_new(p, "time_base", json_string(framework_model_time_base(m, &base)
        ? "ts is relative to baseTimeNanoseconds: unix ns = baseTimeNanoseconds + ts·1000"
        : "no baseTimeNanoseconds: ts is unix µs"));
    json_object_set_new(p, "model", json_pack("{s:f, s:I, s:s}", "load_ms", round(nl_model_ref_load_ms(ref) * 1000) / 1000,
                                              "bytes", (json_int_t)framework_model_bytes(m), "cache",
                                              nl_model_ref_was_cached(ref) ? "warm" : "cold"));
    return p;
}

static void sf_note_quality(sf_ctx *c)
{
    const framework_model *m = c->m;
    for (size_t i = 0; i < framework_model_note_count(m); i++) {
        const framework_model_note *n = framework_model_note_at(m, i);
        const char *name = framework_model_str(m, n->name, NULL);
        char problem[512];
        const char *fix = "none needed: the reader skipped or kept what it could, as described";
        switch (n->kind) {
        case FM_NOTE_NOT_OBJECT:
            snprintf(problem, sizeof problem, "%llu traceEvents element(s) are not objects and were skipped (first at "
                     "byte %lld)", (unsigned long long)n->count, (long long)n->first_offset);
            break;
        case FM_NOTE_NO_PH:
            snprintf(problem, sizeof problem, "%llu event(s) have no string \"ph\" and were skipped (first at byte %lld)",
                     (unsigned long long)n->count, (long long)n->first_offset);
            break;
        case FM_NOTE_BAD_TIME:
            snprintf(problem, sizeof problem, "%llu event(s) have a \"%s\" that is not a number in range; it reads as "
                     "absent (first at byte %lld)", (unsigned long long)n->count, name, (long long)n->first_offset);
            break;
        case FM_NOTE_BAD_FIELD:
            snprintf(problem, sizeof problem, "%llu event(s) have a \"%s\" of an unexpected type; it reads as absent "
                     "(first at byte %lld)", (unsigned long long)n->count, name, (long long)n->first_offset);
            break;
        case FM_NOTE_LONG_NAME:
            snprintf(problem, sizeof problem, "%llu event name(s) longer than %zu bytes were cut to that length",
                     (unsigned long long)n->count, (size_t)KINETO_NAME_MAX);
            break;
        case FM_NOTE_TOP_KEY:
            snprintf(problem, sizeof problem, "top-level key \"%s\" is not used by neuronlens (skipped)", name);
            fix = NULL;
            break;
        case FM_NOTE_NEGATIVE_DUR:
            snprintf(problem, sizeof problem, "%llu event(s) have a negative dur; they count as zero-length",
                     (unsigned long long)n->count);
            break;
        case FM_NOTE_TRAILING_BYTES:
            snprintf(problem, sizeof problem, "bytes after the end of the gzip stream were ignored");
            break;
        default: continue;
        }
        sf_quality(c, n->kind == FM_NOTE_TOP_KEY ? "info" : "warning", framework_model_note_kind_name(n->kind), problem,
                   fix);
    }
}

static void sf_data_quality(sf_ctx *c)
{
    const framework_model *m = c->m;
    const framework_summary *s = c->s;
    char problem[768];
    nl_error why;
    if (framework_model_partial(m, &why)) {
        snprintf(problem, sizeof problem,
                 "PARTIAL: the trace breaks at byte %lld%s (%s: %s); every number covers only the %llu events read "
                 "before that point",
                 (long long)why.offset, framework_model_gzipped(m) ? " of the inflated JSON" : "",
                 nl_error_code_name(why.code), why.message, (unsigned long long)s->events);
        sf_quality(c, "warning", "partial_trace", problem,
                   "export the trace again and let the export finish (on_trace_ready / export_chrome_trace); copy the "
                   "whole file, and for .gz check it with gzip -t");
    }
    if (framework_model_layout_of(m) == FM_LAYOUT_ARRAY)
        sf_quality(c, "info", "bare_array",
                   "bare-array trace (torch 1.x / Chrome array format): no schemaVersion, baseTimeNanoseconds or "
                   "distributedInfo; ts is taken as unix µs", NULL);
    if (!s->device_spans)
        sf_quality(c, "warning", "no_device_events",
                   "empty PrivateUse1 device time: the trace has no device events, so device time per op (the "
                   "self_privateuse1_time_total view), device busy time and launch latency cannot be computed",
                   "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1] and a NeuronConfig "
                   "(experimental_config); call torch.neuron.synchronize() before the profiler exports; set "
                   "correlate_device_time=True (formats.md §12, incomplete framework trace)");
    if (s->unlinked) {
        snprintf(problem, sizeof problem,
                 "%llu of %llu device events (%lld ns, %.1f%% of summed device time) carry no correlation id, flow or "
                 "External id that leads to a host op: they count in busy time but are credited to no op",
                 (unsigned long long)s->unlinked, (unsigned long long)s->device_spans, (long long)s->unlinked_ns,
                 s->device_sum_ns ? 100.0 * (double)s->unlinked_ns / (double)s->device_sum_ns : 0.0);
        sf_quality(c, "info", "unlinked_device_events", problem,
                   "none needed when these are device-internal events (DMA packets, waits); for Neuron traces set "
                   "correlate_device_time=True");
    }
    if (s->latency.negative) {
        snprintf(problem, sizeof problem, "%llu launch-to-execution latencies are negative (device event before its "
                 "launch): host and device clocks disagree", (unsigned long long)s->latency.negative);
        sf_quality(c, "warning", "negative_latency", problem, "treat latencies as approximate; check clock sync");
    }
    if (s->be_open || s->be_unmatched_end) {
        snprintf(problem, sizeof problem, "%llu B event(s) never end and %llu E event(s) have no B on their thread; "
                 "they are left out of the spans", (unsigned long long)s->be_open,
                 (unsigned long long)s->be_unmatched_end);
        sf_quality(c, "warning", "unmatched_begin_end", problem, "export the trace after every range has closed");
    }
    if (s->untimed_spans) {
        snprintf(problem, sizeof problem, "%llu X/B/E event(s) have no usable ts and are left out",
                 (unsigned long long)s->untimed_spans);
        sf_quality(c, "warning", "untimed_events", problem, NULL);
    }
    if (!s->steps_total && s->host_spans)
        sf_quality(c, "info", "no_steps", "no ProfilerStep#N annotations: wall time per step is unavailable",
                   "drive the profiler with a schedule and call prof.step() once per iteration");
    if (s->meta_ts_zero) {
        snprintf(problem, sizeof problem, "%llu metadata (M) events have ts 0; metadata is excluded from every time "
                 "range", (unsigned long long)s->meta_ts_zero);
        sf_quality(c, "info", "metadata_ts_zero", problem, NULL);
    }
    uint64_t errors = framework_model_log_count(m, true);
    if (errors) {
        char first[304];
        sf_cut(framework_model_error_line(m, 0) ? framework_model_error_line(m, 0) : "", 300, first);
        snprintf(problem, sizeof problem, "the profiler logged %llu ERROR line(s) in the trace, first: %s",
                 (unsigned long long)errors, first);
        sf_quality(c, "warning", "profiler_errors", problem,
                   "read them: dropped or out-of-range events leave the trace incomplete");
    }
    sf_note_quality(c);
    sf_quality(c, "info", "clock_domain",
               "times are the trace's host clock (µs converted exactly to ns), relative to the first event; Neuron "
               "system-profile events are unix ns: join them through baseTimeNanoseconds + ts (provenance.time_base)",
               NULL);
}

/* ---- entry point -------------------------------------------------------------------------------------- */

static json_t *sf_profile(const nl_catalog *cat, const nl_catalog_file *f, const framework_model *m)
{
    json_t *p = json_pack("{s:s, s:s, s:n}", "id", f->rel_path, "kind", "framework", "core");
    json_object_set_new(p, "rank", f->rank >= 0 ? json_string(nl_catalog_rank_at(cat, (size_t)f->rank)->id) : json_null());
    if (m) {
        json_t *r = sf_kv_json(framework_model_dist(m), "rank");
        if (r)
            json_object_set_new(p, "trace_rank", r);
    }
    return p;
}

static void sf_text(json_t *out, nl_tool_result *res)
{
    char buf[1024];
    const char *id = json_string_value(json_object_get(json_object_get(out, "profile"), "id"));
    json_t *ab = json_object_get(out, "abstained");
    if (ab) {
        snprintf(buf, sizeof buf, "summary of %s abstained: %s. Fix: %s", id,
                 json_string_value(json_object_get(ab, "reason")), json_string_value(json_object_get(ab, "fix")));
    } else {
        json_t *dev = json_object_get(out, "device");
        json_t *top = json_array_get(json_object_get(out, "top_ops_by_device_time"), 0);
        json_t *self = json_array_get(json_object_get(out, "top_ops_by_cpu_self_time"), 0);
        char top_name[84], self_name[84];
        snprintf(buf, sizeof buf,
                 "%s%s: %lld events over %.3f ms, %lld step(s); device busy %.3f ms in %lld device events; top op by "
                 "device time: %s; top op by CPU self time: %s; %zu data-quality note(s). Full numbers in "
                 "structuredContent.",
                 json_is_true(json_object_get(out, "partial")) ? "PARTIAL " : "", id,
                 (long long)json_integer_value(json_object_get(json_object_get(out, "events"), "total")),
                 json_number_value(json_object_get(out, "total_time_ns")) / 1e6,
                 (long long)json_integer_value(json_object_get(json_object_get(out, "steps"), "count")),
                 (double)json_integer_value(json_object_get(dev, "busy_ns")) / 1e6,
                 (long long)json_integer_value(json_object_get(dev, "events")),
                 sf_cut(top ? json_string_value(json_object_get(top, "name")) : "(none)", 80, top_name),
                 sf_cut(self ? json_string_value(json_object_get(self, "name")) : "(none)", 80, self_name),
                 json_array_size(json_object_get(out, "data_quality")));
    }
    res->text = strdup(buf);
}

static json_t *sf_units(void)
{
    return json_pack("{s:s, s:s, s:s, s:s}", "time",
                     "ns (integer). The trace's ts/dur are µs with up to 3 decimals; converted exactly to ns "
                     "(fixed point, never through floating point)",
                     "*_ns positions", "relative to the first event of the trace (window.start_unix_ns is its absolute time)",
                     "bytes", "B", "*_pct", "percent, 0-100");
}

static json_t *sf_definitions(void)
{
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:s}", "device_event",
        "an X event on a device process (device categories such as kernel, gpu_memcpy, mtia_ccp_events, "
        "privateuse1_driver; a process named like an accelerator; or a deviceProperties id) that is not an "
        "annotation, a wait (cuda_sync) or a runtime API event",
        "self_time", "span length minus its direct children on the same thread (min(child end, parent end) - child start)",
        "device_time_per_op", "each device event credited to the host op that launched it: correlation id, else an ac2g "
        "flow, else External id; the launching runtime event's nearest non-runtime ancestor is the op",
        "busy", "union of device-event intervals (overlaps counted once)", "percentiles",
        "nearest rank: the value at index ceil(q*n)-1 of the sorted values");
}

static void sf_abstain(json_t *out, const nl_error *err)
{
    char reason[900];
    snprintf(reason, sizeof reason, "the trace cannot be read: %s (%s%s%lld)", err->message, nl_error_code_name(err->code),
             err->offset >= 0 ? ", byte " : "", (long long)(err->offset >= 0 ? err->offset : 0));
    const char *fix = err->code == NL_ERR_FORMAT
        ? "pass a PyTorch profiler trace: {\"traceEvents\": [...]} from prof.export_chrome_trace() or "
          "NeuronProfiler.export_trace (.json or .json.gz)"
        : "export the trace again and let the export finish; copy the whole file";
    json_object_set_new(out, "status", json_string("abstained"));
    json_object_set_new(out, "abstained", json_pack("{s:s, s:s}", "reason", reason, "fix", fix));
    json_array_append_new(json_object_get(out, "data_quality"), shape_quality("error", reason, fix, NULL));
}

int nl_summary_framework(const json_t *args, nl_call *call, const nl_catalog *cat, const nl_catalog_file *trace,
                         nl_tool_result *res)
{
    (void)args;
    const framework_model *m = NULL;
    nl_error err;
    nl_error_clear(&err);
    nl_model_ref *ref = nl_select_load_framework(call, trace, &m, &err);
    int rc = ref ? 0 : -1;
    if (rc != 0 && err.code == NL_ERR_CANCELLED)
        return nl_tool_result_error(res, "summary of %s was cancelled while reading the trace.", trace->rel_path);
    if (rc != 0 && err.code == NL_ERR_NOMEM)
        return nl_tool_result_error(res, "summary of %s: out of memory reading the trace (%s).", trace->rel_path,
                                    err.message);
    json_t *out = json_object();
    json_object_set_new(out, "profile", sf_profile(cat, trace, m));
    json_object_set_new(out, "units", sf_units());
    json_object_set_new(out, "data_quality", json_array());
    if (rc != 0) {
        json_object_set_new(out, "provenance", json_pack("{s:s, s:s, s:b}", "file", trace->rel_path, "path", trace->path,
                                                         "gzipped", trace->gzipped));
        sf_abstain(out, &err);
        sf_text(out, res);
        res->structured = out;
        return 0;
    }
    const framework_summary *s = nl_memo_framework_summary(call, ref, &err);
    if (!s) {
        json_decref(out);
        nl_model_ref_release(ref);
        return nl_tool_result_error(res, "summary of %s failed: %s (%s).", trace->rel_path, err.message,
                                    nl_error_code_name(err.code));
    }
    sf_ctx c = {.call = call, .m = m, .s = s, .origin = s->has_window ? s->first_ns : 0,
                .dq = json_object_get(out, "data_quality")};
    int64_t base = 0;
    int has_base = framework_model_time_base(m, &base);
    bool partial = framework_model_partial(m, NULL);
    json_object_set_new(out, "status", json_string(partial ? "partial" : "complete"));
    json_object_set_new(out, "partial", json_boolean(partial));
    json_object_set_new(out, "provenance", sf_provenance(&c, trace, ref));
    json_object_set_new(out, "total_time_ns", s->has_window ? json_integer(s->last_ns - s->first_ns) : json_null());
    json_t *window = json_object();
    if (s->has_window) {
        /* unix ns: base + ts when the trace has a base, else ts (unix µs·1000) */
        json_object_set_new(window, "start_unix_ns", json_integer((has_base ? base : 0) + s->first_ns));
        json_object_set_new(window, "end_unix_ns", json_integer((has_base ? base : 0) + s->last_ns));
    }
    json_object_set_new(out, "window", window);
    json_object_set_new(out, "events", sf_events(&c));
    json_object_set_new(out, "processes", sf_processes(&c));
    json_object_set_new(out, "steps", sf_steps(&c));
    json_object_set_new(out, "compiled_regions", json_pack("{s:I, s:I}", "count", (json_int_t)s->compiled_regions,
                                                           "total_ns", (json_int_t)s->compiled_region_ns));
    json_object_set_new(out, "host", json_pack("{s:I, s:I, s:I}", "spans", (json_int_t)s->host_spans, "threads",
                                               (json_int_t)s->host_threads, "op_groups", (json_int_t)s->nhost_ops));
    json_object_set_new(out, "top_ops_by_cpu_self_time", sf_host_ops(&c));
    json_object_set_new(out, "top_ops_by_device_time", sf_device_ops(&c, s->device_ops, s->ndevice_ops, "device_events"));
    json_object_set_new(out, "device_time_basis", sf_basis(&c));
    json_object_set_new(out, "top_device_kernels", sf_device_ops(&c, s->kernels, s->nkernels, "count"));
    json_object_set_new(out, "device", sf_device(&c));
    json_object_set_new(out, "host_to_device_copies", sf_copies(&c));
    json_object_set_new(out, "launch_latency", sf_latency(&c));
    json_object_set_new(out, "definitions", sf_definitions());
    sf_data_quality(&c);
    nl_summary_host_device(call, cat, trace, ref, out); /* summary_host_device.c: join with the rank's system profile */
    sf_text(out, res);
    res->structured = out;
    nl_model_ref_release(ref); /* s and m with it */
    return 0;
}
