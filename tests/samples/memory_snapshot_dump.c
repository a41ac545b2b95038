/* memory_snapshot_dump — test and bench driver: read a PyTorch memory snapshot with the C reader
 * (analyzers/readers/memory_snapshot.c), summarize it (analyzers/analyses/memory_summary.c) and print JSON in
 * exactly the shape tests/samples/ref_memory_snapshot.py prints, so the two compare value by value.
 *
 * Usage: memory_snapshot_dump [--read-size N] [--stats] [--read-only] [--top N] SNAPSHOT
 * --stats      ingest and summary CPU time, model bytes and peak RSS to stderr
 * --read-only  read the model only and print its row counts (the reader's throughput)
 * Exit: 0 ok, 1 reader or analysis error (code, offset, field and message on stderr), 2 usage. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "memory_model.h"
#include "memory_snapshot.h"
#include "memory_summary.h"

static json_t *dkey(const memory_model *m, uint32_t frame)
{
    if (frame == MEMORY_SITE_NONE)
        return json_null();
    const table *fr = memory_model_frames(m);
    char buf[2048];
    snprintf(buf, sizeof buf, "%s:%" PRId64 ":%s", memory_model_str(m, table_str(fr, MM_FR_FILENAME, frame), NULL),
             table_i64(fr, MM_FR_LINE, frame), memory_model_str(m, table_str(fr, MM_FR_NAME, frame), NULL));
    json_t *j = json_string(buf);
    return j ? j : json_stringn_nocheck(buf, strlen(buf)); /* lone surrogates pass through as bytes */
}

static json_t *dsites(const memory_model *m, const memory_sites *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->count; i++) {
        const memory_site *x = &s->top[i];
        json_array_append_new(a, json_pack("[o b o I I]", dkey(m, x->frame), x->user, dkey(m, x->via),
                                           (json_int_t)x->bytes, (json_int_t)x->count));
    }
    return json_pack("{s:o s:I s:I s:I}", "top", a, "total_sites", (json_int_t)s->total_sites, "other_bytes",
                     (json_int_t)s->other_bytes, "other_count", (json_int_t)s->other_count);
}

static json_t *dpool(const memory_pool_bytes *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "segments", json_integer((json_int_t)p->segments));
    json_object_set_new(o, "blocks", json_integer((json_int_t)p->blocks));
    json_object_set_new(o, "reserved", json_integer(p->reserved));
    json_object_set_new(o, "allocated", json_integer(p->allocated));
    json_object_set_new(o, "active", json_integer(p->active));
    json_object_set_new(o, "requested", json_integer(p->requested));
    json_object_set_new(o, "inactive", json_integer(p->inactive));
    json_object_set_new(o, "pending_free", json_integer(p->pending_free));
    json_object_set_new(o, "inactive_blocks", json_integer((json_int_t)p->inactive_blocks));
    json_object_set_new(o, "pending_free_blocks", json_integer((json_int_t)p->pending_free_blocks));
    json_object_set_new(o, "allocated_blocks", json_integer((json_int_t)p->allocated_blocks));
    json_object_set_new(o, "block_allocated", json_integer(p->block_allocated));
    json_object_set_new(o, "block_requested", json_integer(p->block_requested));
    json_object_set_new(o, "largest_inactive", json_integer(p->largest_inactive));
    return o;
}

static json_t *dactions(const uint64_t *counts)
{
    json_t *o = json_object();
    for (int a = 0; a < MM_ACT_COUNT; a++)
        if (counts[a])
            json_object_set_new(o, memory_action_name((memory_action)a), json_integer((json_int_t)counts[a]));
    return o;
}

static json_t *dtime(bool has, int64_t t)
{
    return has ? json_integer(t) : json_null();
}

static json_t *ddevice(const memory_model *m, const memory_device *dv)
{
    size_t first, n;
    memory_model_trace_range(m, dv->device, &first, &n);
    json_t *pools = json_object();
    for (int t = 0; t < MM_SEGTYPE_COUNT; t++)
        if (dv->pools[t].segments)
            json_object_set_new(pools, memory_segment_type_name((memory_segment_type)t), dpool(&dv->pools[t]));
    const memory_peak *p = &dv->peak;
    json_t *peak = json_object();
    json_object_set_new(peak, "source", json_string(memory_peak_source_name(p->source)));
    json_object_set_new(peak, "start", json_integer(p->start_bytes));
    json_object_set_new(peak, "end", json_integer(p->end_bytes));
    json_object_set_new(peak, "bytes", json_integer(p->bytes));
    json_object_set_new(peak, "row", json_integer(p->row < 0 ? -1 : p->row - (int64_t)first));
    json_object_set_new(peak, "time_us", dtime(p->has_time, p->time_us));
    json_object_set_new(peak, "allocs", json_integer((json_int_t)p->allocs));
    json_object_set_new(peak, "frees", json_integer((json_int_t)p->frees));
    json_object_set_new(peak, "frees_before_window", json_integer((json_int_t)p->frees_before_window));
    json_object_set_new(peak, "blocks_before_window", json_integer((json_int_t)p->blocks_before_window));
    json_object_set_new(peak, "sites", dsites(m, &p->sites));
    json_t *ooms = json_array();
    for (size_t k = 0; k < dv->oom_count; k++) {
        const memory_oom *o = &dv->ooms[k];
        json_t *jo = json_object();
        json_object_set_new(jo, "row", json_integer((json_int_t)(o->row - first)));
        json_object_set_new(jo, "time_us", dtime(o->has_time, o->time_us));
        json_object_set_new(jo, "requested", json_integer(o->requested));
        json_object_set_new(jo, "device_free", json_integer(o->device_free));
        json_object_set_new(jo, "allocated", json_integer(o->allocated));
        json_object_set_new(jo, "reserved", json_integer(o->reserved));
        json_object_set_new(jo, "fits_largest_free", json_boolean(o->fits_largest_free));
        if (k < MEMORY_SUMMARY_OOM_SITES_MAX)
            json_object_set_new(jo, "sites", dsites(m, &o->sites));
        json_array_append_new(ooms, jo);
    }
    json_t *d = json_object();
    json_object_set_new(d, "device", json_integer(dv->device));
    json_object_set_new(d, "pools", pools);
    json_object_set_new(d, "total", dpool(&dv->total));
    json_object_set_new(d, "trace_entries", json_integer((json_int_t)dv->trace_entries));
    json_object_set_new(d, "actions", dactions(dv->actions));
    json_object_set_new(d, "first_time_us", dtime(dv->has_time, dv->first_time_us));
    json_object_set_new(d, "last_time_us", dtime(dv->has_time, dv->last_time_us));
    json_object_set_new(d, "peak", peak);
    json_object_set_new(d, "ooms", ooms);
    json_object_set_new(d, "oom_total", json_integer((json_int_t)dv->oom_total));
    return d;
}

static json_t *dsettings(const memory_model *m, const memory_summary *s)
{
    (void)m;
    const memory_settings *st = &s->settings;
    if (!st->present)
        return json_null();
    return json_pack("{s:o s:o s:o s:o s:I}", "expandable_segments",
                     st->has_expandable ? json_boolean(st->expandable_segments) : json_null(), "max_split_size",
                     st->has_max_split ? json_integer(st->max_split_size) : json_null(),
                     "garbage_collection_threshold", st->has_gc_threshold ? json_real(st->gc_threshold) : json_null(),
                     "alloc_conf", s->alloc_conf ? json_string(s->alloc_conf) : json_null(), "roundup_nonzero",
                     (json_int_t)st->roundup_nonzero);
}

static int64_t dsum(const table *t, uint32_t col)
{
    int64_t s = 0;
    for (size_t r = 0; r < table_rows(t); r++)
        s += table_i64(t, col, r);
    return s;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    memory_snapshot_options opt = {0};
    memory_summary_options so = {0};
    int stats = 0, read_only = 0, a = 1;
    for (; a < argc - 1; a++) {
        if (!strcmp(argv[a], "--read-size") && a + 1 < argc - 1)
            opt.read_size = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--top") && a + 1 < argc - 1)
            so.top_sites = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--stats"))
            stats = 1;
        else if (!strcmp(argv[a], "--read-only"))
            read_only = 1;
        else
            break;
    }
    if (a != argc - 1) {
        fputs("usage: memory_snapshot_dump [--read-size N] [--stats] [--read-only] [--top N] SNAPSHOT\n", stderr);
        return 2;
    }
    nl_error err;
    nl_error_clear(&err);
    memory_model *m;
    double t0 = cpu_s();
    if (memory_snapshot_read(argv[a], &opt, &m, &err) != 0) {
        fprintf(stderr, "error %s at %lld field '%s': %s\n", nl_error_code_name(err.code), (long long)err.offset,
                err.field, err.message);
        return 1;
    }
    double t1 = cpu_s();
    const memory_model_info *in = memory_model_info_of(m);
    if (read_only) {
        printf("{\"segments\": %zu, \"blocks\": %zu, \"trace_entries\": %zu, \"frames\": %zu, \"stacks\": %u}\n",
               table_rows(memory_model_segments(m)), table_rows(memory_model_blocks(m)),
               table_rows(memory_model_trace(m)), table_rows(memory_model_frames(m)), memory_model_stack_count(m) - 1);
    }
    memory_summary *s = NULL;
    if (!read_only && memory_summary_compute(m, &so, NULL, &s, &err) != 0) {
        fprintf(stderr, "error %s: %s\n", nl_error_code_name(err.code), err.message);
        memory_model_free(m);
        return 1;
    }
    double t2 = cpu_s();
    if (s) {
        json_t *o = json_object();
        json_object_set_new(o, "layout", json_string(memory_layout_name(in->layout)));
        json_object_set_new(o, "history", json_string(memory_history_name(in->history)));
        json_object_set_new(o, "protocol", json_integer(in->protocol));
        json_object_set_new(o, "segments", json_integer((json_int_t)table_rows(memory_model_segments(m))));
        json_object_set_new(o, "blocks", json_integer((json_int_t)table_rows(memory_model_blocks(m))));
        json_object_set_new(o, "history_entries", json_integer((json_int_t)table_rows(memory_model_history(m))));
        json_object_set_new(o, "frames", json_integer((json_int_t)table_rows(memory_model_frames(m))));
        json_object_set_new(o, "stacks", json_integer(memory_model_stack_count(m) - 1));
        const table *sg = memory_model_segments(m);
        json_object_set_new(o, "totals", json_pack("{s:I s:I s:I s:I}", "total_size", dsum(sg, MM_SEG_TOTAL_SIZE),
                                                   "allocated_size", dsum(sg, MM_SEG_ALLOCATED_SIZE), "active_size",
                                                   dsum(sg, MM_SEG_ACTIVE_SIZE), "requested_size",
                                                   dsum(sg, MM_SEG_REQUESTED_SIZE)));
        json_object_set_new(o, "trace_devices", json_integer(in->trace_devices));
        json_object_set_new(o, "trace_entries", json_integer((json_int_t)table_rows(memory_model_trace(m))));
        uint64_t acts[MM_ACT_COUNT] = {0};
        const table *tr = memory_model_trace(m);
        for (size_t r = 0; r < table_rows(tr); r++)
            acts[table_u64(tr, MM_TR_ACTION, r)]++;
        json_object_set_new(o, "actions", dactions(acts));
        json_object_set_new(o, "external_annotations",
                            in->has_external_annotations ? json_integer((json_int_t)in->external_annotations)
                                                         : json_null());
        json_object_set_new(o, "settings", dsettings(m, s));
        json_t *devs = json_array();
        for (size_t d = 0; d < s->device_count; d++)
            json_array_append_new(devs, ddevice(m, &s->devices[d]));
        json_object_set_new(o, "devices", devs);
        char *txt = json_dumps(o, JSON_SORT_KEYS | JSON_INDENT(1));
        puts(txt);
        free(txt);
        json_decref(o);
    }
    if (stats) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(stderr, "read %.3f s cpu, summary %.3f s cpu, model %zu bytes, peak rss %ld KB\n", t1 - t0, t2 - t1,
                memory_model_bytes(m), ru.ru_maxrss);
    }
    memory_summary_free(s);
    memory_model_free(m);
    return 0;
}
