/* kineto_dump — test and bench driver: read a Kineto trace.json(.gz) with the C reader, compute the
 * framework summary and print it as JSON in exactly the shape tests/samples/ref_kineto.py prints, so the
 * two can be compared value by value.
 *
 * Usage: kineto_dump [--read-size N] [--stats] [--read-only] TRACE
 * --stats      prints ingest and summary CPU time, throughput, model bytes and peak RSS to stderr
 * --read-only  reads the trace and prints only the event count (throughput of the reader alone)
 * Exit: 0 ok, 1 reader or analysis error (code, offset, record, field and message on stderr), 2 usage. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "framework_model.h"
#include "framework_summary.h"
#include "kineto.h"

static json_t *dstr(const framework_model *m, uint32_t id)
{
    size_t len;
    const char *s = framework_model_str(m, id, &len);
    return json_stringn_nocheck(s ? s : "", s ? len : 0);
}

static json_t *dops(const framework_model *m, const fs_op *ops, size_t n, int with_self)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *row = json_pack("[o o I I]", dstr(m, ops[i].name), dstr(m, ops[i].cat), (json_int_t)ops[i].count,
                                (json_int_t)ops[i].total_ns);
        if (with_self)
            json_array_append_new(row, json_integer(ops[i].self_ns));
        json_array_append_new(a, row);
    }
    return a;
}

static json_t *dcounts(const framework_model *m, const fs_count *c, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++) {
        const char *s = framework_model_str(m, c[i].id, NULL);
        json_object_set_new(o, s ? s : "", json_integer((json_int_t)c[i].count));
    }
    return o;
}

static json_t *dbusy(const framework_model *m, const fs_busy *b, size_t n, int streams)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *row = json_pack("[o]", dstr(m, b[i].pid));
        if (streams)
            json_array_append_new(row, dstr(m, b[i].tid));
        json_t *rest = json_pack("[I I I I I I]", (json_int_t)b[i].spans, (json_int_t)b[i].sum_ns,
                                 (json_int_t)b[i].busy_ns, (json_int_t)b[i].gaps, (json_int_t)b[i].gap_total_ns,
                                 (json_int_t)b[i].gap_max_ns);
        json_array_extend(row, rest);
        json_decref(rest);
        json_array_append_new(a, row);
    }
    return a;
}

static json_t *dcopy(const fs_copy *c)
{
    return json_pack("[I I I I]", (json_int_t)c->count, (json_int_t)c->dur_ns, (json_int_t)c->bytes,
                     (json_int_t)c->with_bytes);
}

static json_t *dump(const framework_model *m, const framework_summary *s)
{
    json_t *procs = json_object();
    for (size_t i = 0; i < framework_model_process_count(m); i++) {
        const framework_model_process *p = framework_model_process_at(m, i);
        json_object_set_new(procs, framework_model_str(m, p->pid, NULL),
                            json_string(p->device == FM_HOST ? "host" : "device"));
    }
    json_t *steps = json_array();
    for (size_t i = 0; i < s->nsteps; i++)
        json_array_append_new(steps, json_pack("[o I I I I]", dstr(m, s->steps[i].name), (json_int_t)s->steps[i].number,
                                               (json_int_t)s->steps[i].ts_ns, (json_int_t)s->steps[i].dur_ns,
                                               (json_int_t)s->steps[i].device_busy_ns));
    json_t *copies = json_object();
    for (int k = 0; k < FS_COPY_KINDS; k++)
        json_object_set_new(copies, fs_copy_kind_name(k), dcopy(&s->copies[k]));
    const fs_latency *l = &s->latency;
    json_t *device = json_object();
    json_object_set_new(device, "spans", json_integer((json_int_t)s->device_spans));
    json_object_set_new(device, "other_spans", json_integer((json_int_t)s->device_other_spans));
    json_object_set_new(device, "sum_ns", json_integer(s->device_sum_ns));
    json_object_set_new(device, "busy_ns", json_integer(s->device_busy_ns));
    json_object_set_new(device, "first_ns", json_integer(s->device_spans ? s->device_first_ns : 0));
    json_object_set_new(device, "last_ns", json_integer(s->device_spans ? s->device_last_ns : 0));
    json_object_set_new(device, "per_device", dbusy(m, s->devices, s->ndevices, 0));
    json_object_set_new(device, "per_stream", dbusy(m, s->streams, s->nstreams, 1));
    json_object_set_new(device, "kernels", dops(m, s->kernels, s->nkernels, 0));
    json_object_set_new(device, "ops", dops(m, s->device_ops, s->ndevice_ops, 0));
    json_object_set_new(device, "links", json_pack("{sI sI sI sI sI}", "correlation", (json_int_t)s->linked_correlation,
                                                   "flow", (json_int_t)s->linked_flow, "external_id",
                                                   (json_int_t)s->linked_external, "unlinked", (json_int_t)s->unlinked,
                                                   "unlinked_ns", (json_int_t)s->unlinked_ns));
    json_t *o = json_object();
    json_object_set_new(o, "events", json_integer((json_int_t)s->events));
    json_object_set_new(o, "layout", json_string(framework_model_layout_of(m) == FM_LAYOUT_ARRAY ? "array" : "object"));
    json_object_set_new(o, "partial", json_boolean(framework_model_partial(m, NULL)));
    json_object_set_new(o, "ph", dcounts(m, s->phases, s->nphases));
    json_object_set_new(o, "cat", dcounts(m, s->cats, s->ncats));
    json_object_set_new(o, "window", s->has_window ? json_pack("[I I]", (json_int_t)s->first_ns, (json_int_t)s->last_ns)
                                                   : json_null());
    json_object_set_new(o, "meta", json_pack("[I I]", (json_int_t)s->meta_events, (json_int_t)s->meta_ts_zero));
    json_object_set_new(o, "processes", procs);
    json_object_set_new(o, "host", json_pack("{sI sI so}", "spans", (json_int_t)s->host_spans, "threads",
                                             (json_int_t)s->host_threads, "ops", dops(m, s->host_ops, s->nhost_ops, 1)));
    json_object_set_new(o, "device", device);
    json_object_set_new(o, "steps", steps);
    json_object_set_new(o, "compiled_regions", json_pack("[I I]", (json_int_t)s->compiled_regions,
                                                         (json_int_t)s->compiled_region_ns));
    json_object_set_new(o, "copies", copies);
    json_object_set_new(o, "memsets", dcopy(&s->memsets));
    json_object_set_new(o, "host_copy_ops", dops(m, s->host_copy_ops, s->nhost_copy_ops, 1));
    json_object_set_new(o, "flows", json_pack("[I I I]", (json_int_t)s->flow_starts, (json_int_t)s->flow_steps,
                                              (json_int_t)s->flow_finishes));
    json_object_set_new(o, "instants", json_integer((json_int_t)s->instants));
    json_object_set_new(o, "latency", json_pack("{ss sI sI sI sI sI sI}", "basis", fs_latency_basis_name(l->basis),
                                                "pairs", (json_int_t)l->pairs, "negative", (json_int_t)l->negative,
                                                "min", (json_int_t)l->min_ns, "median", (json_int_t)l->median_ns,
                                                "p90", (json_int_t)l->p90_ns, "max", (json_int_t)l->max_ns));
    json_object_set_new(o, "be", json_pack("[I I I]", (json_int_t)s->be_pairs, (json_int_t)s->be_open,
                                           (json_int_t)s->be_unmatched_end));
    json_object_set_new(o, "untimed", json_integer((json_int_t)s->untimed_spans));
    return o;
}

/* CPU seconds (user + system) of this process: throughput "on one core" whatever else the machine runs. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    kineto_options opt = {0};
    int stats = 0, read_only = 0, i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (!strcmp(argv[i], "--read-size") && i + 1 < argc)
            opt.read_size = (size_t)strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--stats"))
            stats = 1;
        else if (!strcmp(argv[i], "--read-only"))
            read_only = 1;
        else
            break;
    }
    if (i != argc - 1) {
        fprintf(stderr, "usage: kineto_dump [--read-size N] [--stats] [--read-only] TRACE\n");
        return 2;
    }
    framework_model *m;
    nl_error err;
    double t0 = now_s();
    if (kineto_read(argv[i], &opt, &m, &err) != 0) {
        fprintf(stderr, "kineto_dump: %s: %s at offset %lld record %lld field '%s': %s\n", err.source,
                nl_error_code_name(err.code), (long long)err.offset, (long long)err.record, err.field, err.message);
        return 1;
    }
    double t1 = now_s();
    framework_summary s;
    if (!read_only && framework_summary_compute(m, NULL, &s, &err) != 0) {
        fprintf(stderr, "kineto_dump: summary: %s: %s\n", nl_error_code_name(err.code), err.message);
        framework_model_free(m);
        return 1;
    }
    double t2 = now_s();
    if (stats) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double mb = (double)framework_model_json_bytes(m) / 1e6;
        fprintf(stderr,
                "kineto_dump: %zu events, %.1f MB JSON (%.1f MB file): CPU time: read %.3f s (%.0f MB/s), summary %.3f s, "
                "total %.3f s (%.0f MB/s); model %.1f MB (%.1f B/event); peak RSS %.1f MB\n",
                framework_model_rows(m), mb, (double)framework_model_file_bytes(m) / 1e6, t1 - t0, mb / (t1 - t0),
                t2 - t1, t2 - t0, mb / (t2 - t0), (double)framework_model_bytes(m) / 1e6,
                framework_model_rows(m) ? (double)framework_model_bytes(m) / (double)framework_model_rows(m) : 0.0,
                (double)ru.ru_maxrss / 1024.0);
    }
    if (read_only) {
        printf("{\"events\": %zu}\n", framework_model_rows(m));
    } else {
        json_t *o = dump(m, &s);
        char *text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
        puts(text);
        free(text);
        json_decref(o);
        framework_summary_free(&s);
    }
    framework_model_free(m);
    return 0;
}
