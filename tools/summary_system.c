/* summary_system — the `summary` tool on a system profile: a capture directory's ntrace.pb +
 * trace_info.pb (+ cpu_util.pb, host_mem.pb), and what orient shows for it.
 *
 * Reading: analyzers/model/system_model (protoc-c readers, begin/end pairing) and
 * analyzers/analyses/system_summary (numbers); this file only shapes them. The result carries the common
 * envelope (profile, units, provenance, data_quality, status) and, for the system profile:
 *
 *   window          first → last ntrace.pb record (unix ns, host clock); `total_time_ns` is its length
 *   device          nc_exec_running merged per core (physical cores at LNC=2) and over all cores; busy vs
 *                   idle in the window and in the execution window (first device start → last device end)
 *   gaps            holes in the all-core union: count, total, largest, the largest few with what the host
 *                   was doing (runtime spans overlapping, merged per type), and the lead-in / tail
 *   executions      per (nc_idx, exec_id): model → NEFF, cores, device busy, launch latency from nrt_execute
 *   runtime_api     every event type: spans, merged and summed time, bytes, unpaired records
 *   host_to_device / device_to_host   API calls (nrt_tensor_write/read) and buffer copies
 *                   (dmem_buf_copyin/out) with the runtime call enclosing each copy
 *   allocations, loads, clock_sync (sync-point conversion and its error), cpu, host_memory, models
 *
 * The model and its summary come from the shared model cache (memo.h: read and computed once per version of
 * the four files), so a warm call only shapes; provenance.model says whether this call read the files.
 * A result whose input was read only in part (records skipped, cut off or unpaired) has status "partial"
 * and partial: true, with the reason; otherwise status "complete".
 *
 * Times inside the window are offsets from window.start_unix_ns (`*_offset_ns`), so they stay exact for
 * JSON readers that parse numbers as doubles; durations are plain ns. Ids (model_id) are strings.
 * Lists are bounded while building (SYS_*_SHOWN); each says total/shown/truncated. */
#include "tool_common.h"
#include "select.h"
#include "memo.h"
#include "shape.h"
#include "summary_kinds.h"
#include "summary_system.h"
#include "system_model.h"
#include "system_pb.h"
#include "system_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYS_TYPES_SHOWN 24u
#define SYS_LOADS_SHOWN 16u
#define SYS_MODELS_SHOWN 8u
#define SYS_NTFFS_PER_MODEL 8u
#define SYS_DEFAULT_MAX_EVENTS_PER_NC 1000000u /* NeuronConfig max_events_per_nc default (formats.md §12) */
#define SYS_MEM_ERRNO_TABLE "nrt_inspect_mem_alloc_errno_type"
#define SYS_TRIM_KEEP 4u /* items kept per list when a result must shrink to the caller's byte budget */

/* ---- small shapers ---------------------------------------------------------------------------------- */

static json_t *real_round(double v, int decimals)
{
    double scale = pow(10, decimals);
    return json_real(round(v * scale) / scale);
}

static json_t *pct(int64_t part, int64_t whole)
{
    return whole > 0 ? real_round(100.0 * (double)part / (double)whole, 4) : json_null();
}

static json_t *type_name(const system_model *m, uint32_t id)
{
    const char *s = strtab_str(system_model_strings(m), id, NULL);
    return json_string(s && *s ? s : "(none)");
}

static json_t *id_string(uint64_t id)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)id);
    return json_string(buf);
}

static int64_t offset_of(const system_summary *s, int64_t t)
{
    return t - s->window_start;
}

static const char *rel_of(const nl_catalog *cat, int idx)
{
    return idx >= 0 ? nl_catalog_file_at(cat, (size_t)idx)->rel_path : NULL;
}

static const char *path_of(const nl_catalog *cat, int idx)
{
    return idx >= 0 ? nl_catalog_file_at(cat, (size_t)idx)->path : NULL;
}

static long rank_index(const nl_catalog *cat, const nl_catalog_rank *rank)
{
    for (size_t i = 0; i < nl_catalog_rank_count(cat); i++)
        if (nl_catalog_rank_at(cat, i) == rank)
            return (long)i;
    return -1;
}

/* ---- loading ---------------------------------------------------------------------------------------- */

/* ---- envelope --------------------------------------------------------------------------------------- */

static json_t *profile_label(const nl_catalog_rank *rank)
{
    char id[300];
    snprintf(id, sizeof id, "%s/system", rank->id);
    return json_pack("{s:s, s:s, s:s, s:n, s:{s:s, s:I}, s:s}", "id", id, "kind", "system", "rank", rank->id, "core",
                     "process", "instance", rank->instance ? rank->instance : "", "pid", (json_int_t)rank->pid, "dir",
                     rank->dir);
}

static json_t *units_json(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}",
                     "time", "ns; system events are unix-epoch ns on the host CPU clock (device events already shifted "
                     "to it by the runtime, formats.md §9)",
                     "*_offset_ns", "ns after window.start_unix_ns",
                     "*_unix_ns", "unix-epoch ns, host clock",
                     "bytes", "B",
                     "*_pct", "percent 0-100",
                     "model_id", "decimal string (64-bit id)");
}

static json_t *file_json(const nl_catalog *cat, int idx, const system_file_info *fi)
{
    if (idx < 0)
        return json_null();
    json_t *o = json_pack("{s:s, s:I}", "path", rel_of(cat, idx), "bytes", (json_int_t)nl_catalog_file_at(cat, (size_t)idx)->size);
    if (fi && fi->read) {
        json_object_set_new(o, "records", json_integer((json_int_t)fi->stats.records));
        json_object_set_new(o, "bytes_consumed", json_integer((json_int_t)fi->stats.bytes_consumed));
        json_object_set_new(o, "every_byte_consumed", json_boolean(fi->stats.bytes_consumed == fi->stats.file_bytes));
        json_object_set_new(o, "records_skipped", json_integer((json_int_t)fi->stats.records_skipped));
        json_object_set_new(o, "partial", json_boolean(fi->stats.partial));
        if (fi->declared_records)
            json_object_set_new(o, "declared_records", json_integer((json_int_t)fi->declared_records));
    }
    return o;
}

/* The runtime version of this capture, from the NTFF metadata of a device profile in the same directory
 * (trace_info.pb does not carry one). */
static void runtime_version(const nl_catalog *cat, long rank, json_t *prov)
{
    for (size_t i = 0; i < nl_catalog_file_count(cat); i++) {
        const nl_catalog_file *f = nl_catalog_file_at(cat, i);
        if (f->rank == rank && f->kind == NL_FILE_NTFF && f->runtime_version && *f->runtime_version) {
            json_object_set_new(prov, "runtime_version", json_string(f->runtime_version));
            char src[600];
            snprintf(src, sizeof src, "NTFF metadata of %s (trace_info.pb carries no runtime version)", f->rel_path);
            json_object_set_new(prov, "runtime_version_source", json_string(src));
            return;
        }
    }
    json_object_set_new(prov, "runtime_version", json_null());
    json_object_set_new(prov, "runtime_version_source", json_string("not recorded: trace_info.pb has no version and "
                                                                     "the capture has no readable NTFF"));
}

static json_t *trace_info_json(const syspb_trace_info *ti)
{
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "format_version", (json_int_t)ti->format_version,
                          "pid", (json_int_t)ti->pid, "event_count", (json_int_t)ti->event_count, "capture_start_unix_ns",
                          (json_int_t)ti->start_ns, "capture_end_unix_ns", (json_int_t)ti->end_ns, "cpus",
                          (json_int_t)ti->cpu_count, "host_memory_bytes", (json_int_t)ti->memory_bytes);
    const char *keys[] = {"instance_id", "instance_type", "hostname", "cpu_model"};
    const char *vals[] = {ti->instance_id, ti->instance_type, ti->hostname, ti->cpu_model};
    for (size_t i = 0; i < 4; i++)
        json_object_set_new(o, keys[i], vals[i] ? json_string(vals[i]) : json_null());
    json_t *tables = json_object();
    for (size_t i = 0; i < ti->table_count; i++)
        json_object_set_new(tables, ti->tables[i].name, json_integer((json_int_t)ti->tables[i].count));
    json_object_set_new(o, "interned_tables", tables);
    return o;
}

static json_t *provenance_json(const nl_catalog *cat, const nl_catalog_rank *rank, const system_model *m,
                               const nl_model_ref *ref)
{
    const int idx[SM_FILE_COUNT] = {rank->trace_info_pb, rank->ntrace_pb, rank->cpu_util_pb, rank->host_mem_pb};
    const char *keys[SM_FILE_COUNT] = {"trace_info_pb", "ntrace_pb", "cpu_util_pb", "host_mem_pb"};
    json_t *files = json_object();
    for (int f = 0; f < SM_FILE_COUNT; f++)
        json_object_set_new(files, keys[f], file_json(cat, idx[f], m ? system_model_file(m, (system_file)f) : NULL));
    json_t *prov = json_pack("{s:s, s:o}", "root", nl_catalog_root(cat), "files", files);
    runtime_version(cat, rank_index(cat, rank), prov);
    if (m) {
        const system_model_counts *c = system_model_counts_get(m);
        json_object_set_new(prov, "trace_info", trace_info_json(system_model_trace_info(m)));
        json_object_set_new(prov, "record_counts",
                            json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "ntrace_records", (json_int_t)c->records,
                                      "begins", (json_int_t)c->begins, "ends", (json_int_t)c->ends, "instants",
                                      (json_int_t)c->instants, "pairs", (json_int_t)c->pairs, "unpaired_begins",
                                      (json_int_t)c->open_begins, "unpaired_ends", (json_int_t)c->orphan_ends));
        if (ref)
            json_object_set_new(prov, "model", json_pack("{s:f, s:I, s:s}", "load_ms",
                                                         round(nl_model_ref_load_ms(ref) * 1000) / 1000, "bytes",
                                                         (json_int_t)system_model_bytes(m), "cache",
                                                         nl_model_ref_was_cached(ref) ? "warm" : "cold"));
    }
    json_object_set_new(prov, "schemas", json_string("proto/ntrace.proto, trace_info.proto, cpu_util.proto, host_mem.proto "
                                                     "(reconstructed from runtime 2.30.51 files; formats.md §9)"));
    return prov;
}

/* ---- device, gaps, executions ----------------------------------------------------------------------- */

static json_t *window_json(const system_summary *s)
{
    if (!s->has_window)
        return json_null();
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)s->window_start);
    return json_pack("{s:I, s:s, s:I, s:I, s:s}", "start_unix_ns", (json_int_t)s->window_start, "start_unix_ns_text", text,
                     "end_unix_ns", (json_int_t)s->window_end, "duration_ns", (json_int_t)(s->window_end - s->window_start),
                     "basis", "first to last ntrace.pb record");
}

static json_t *core_json(const system_summary *s, const ss_core *k)
{
    json_t *o = json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "core", (json_int_t)k->core,
                          "core_kind", k->physical ? "physical (device_core_idx)" : "logical (nc_idx; no device_core_idx)",
                          "nc_idx", (json_int_t)k->nc, "executions", (json_int_t)k->executions, "busy_ns",
                          (json_int_t)k->busy_ns, "summed_ns", (json_int_t)k->summed_ns, "first_start_offset_ns",
                          (json_int_t)offset_of(s, k->first_start), "last_end_offset_ns",
                          (json_int_t)offset_of(s, k->last_end), "gaps", (json_int_t)k->gaps, "gap_total_ns",
                          (json_int_t)k->gap_total_ns, "largest_gap_ns", (json_int_t)k->gap_max_ns);
    json_object_set_new(o, "busy_pct_of_window", pct(k->busy_ns, s->window_end - s->window_start));
    return o;
}

static json_t *device_json(const system_summary *s)
{
    int64_t window = s->window_end - s->window_start;
    json_t *cores = json_array();
    for (size_t i = 0; i < s->ncores; i++)
        json_array_append_new(cores, core_json(s, &s->cores[i]));
    json_t *o = json_pack("{s:s, s:b, s:I, s:I, s:o, s:o, s:I, s:I}",
                          "source", "nc_exec_running intervals, merged (union), never summed (formats.md §9.3, §11.9)",
                          "has_device_events", s->has_device, "busy_ns", (json_int_t)s->device_busy_ns, "idle_ns",
                          (json_int_t)(s->has_window ? window - s->device_busy_ns : 0), "busy_pct_of_window",
                          pct(s->device_busy_ns, window), "cores", cores, "nc_exec_running_spans",
                          (json_int_t)s->exec_spans, "unpaired_nc_exec_running", (json_int_t)s->exec_unpaired);
    if (s->cores_dropped)
        json_object_set_new(o, "cores_not_listed", json_integer((json_int_t)s->cores_dropped));
    if (s->has_device) {
        int64_t span = s->exec_window_end - s->exec_window_start;
        json_object_set_new(o, "execution_window",
                            json_pack("{s:I, s:I, s:I, s:I, s:o}", "start_offset_ns",
                                      (json_int_t)offset_of(s, s->exec_window_start), "end_offset_ns",
                                      (json_int_t)offset_of(s, s->exec_window_end), "duration_ns", (json_int_t)span,
                                      "idle_ns", (json_int_t)(span - s->device_busy_ns), "busy_pct",
                                      pct(s->device_busy_ns, span)));
    }
    return o;
}

static json_t *activity_json(const system_model *m, const system_summary *s, const ss_window_activity *w, bool times)
{
    json_t *act = json_array();
    for (unsigned i = 0; i < w->nact; i++)
        json_array_append_new(act, json_pack("{s:o, s:I}", "type", type_name(m, w->act[i].type), "overlap_ns",
                                             (json_int_t)w->act[i].overlap_ns));
    json_t *o = json_pack("{s:I, s:o}", "host_busy_ns", (json_int_t)w->host_busy_ns, "host_activity", act);
    if (times) {
        json_object_set_new(o, "start_offset_ns", json_integer((json_int_t)offset_of(s, w->start)));
        json_object_set_new(o, "duration_ns", json_integer((json_int_t)(w->end - w->start)));
        json_object_set_new(o, "host_idle_ns", json_integer((json_int_t)(w->end - w->start - w->host_busy_ns)));
    }
    return o;
}

static json_t *gaps_json(const system_model *m, const system_summary *s)
{
    const ss_gaps *g = &s->gaps;
    json_t *top = json_array();
    for (unsigned i = 0; i < g->ntop; i++)
        json_array_append_new(top, activity_json(m, s, &g->top[i], true));
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:o}", "between",
                          "consecutive device executions (holes in the all-core nc_exec_running union)", "count",
                          (json_int_t)g->count, "total_ns", (json_int_t)g->total_ns, "largest_ns", (json_int_t)g->largest_ns,
                          "largest", top);
    json_object_set_new(o, "host_activity_in_gaps", g->all.has ? activity_json(m, s, &g->all, false) : json_null());
    json_object_set_new(o, "before_first_execution", g->lead_in.has ? activity_json(m, s, &g->lead_in, true) : json_null());
    json_object_set_new(o, "after_last_execution", g->tail.has ? activity_json(m, s, &g->tail, true) : json_null());
    json_object_set_new(o, "host_activity_basis", json_string("overlap of each runtime span type with the window, "
                        "spans of one type merged first; nested calls (nrt_execute ⊃ kmgr_exec_core ⊃ kbl_*) each count, "
                        "so types add up to more than host_busy_ns, which is the union of all host spans"));
    return o;
}

static json_t *neff_of(const system_model *m, uint64_t model_id)
{
    const char *p = model_id ? system_model_neff_path(m, model_id) : NULL;
    return p ? json_string(p) : json_null();
}

static json_t *executions_json(const system_model *m, const system_summary *s)
{
    json_t *items = json_array();
    for (size_t i = 0; i < s->nexec; i++) {
        const ss_execution *e = &s->execs[i];
        json_t *o = json_pack("{s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:I}", "nc_idx", (json_int_t)e->nc, "exec_id",
                              (json_int_t)e->exec_id, "model_id", e->model_id ? id_string(e->model_id) : json_null(),
                              "neff_path", neff_of(m, e->model_id), "start_offset_ns",
                              (json_int_t)offset_of(s, e->start), "device_span_ns", (json_int_t)(e->end - e->start),
                              "device_busy_ns", (json_int_t)e->busy_ns, "cores", (json_int_t)e->cores);
        if (e->has_launch) {
            json_object_set_new(o, "launch_latency_ns", json_integer((json_int_t)e->launch_ns));
            json_object_set_new(o, "completion_to_return_ns", json_integer((json_int_t)e->completion_ns));
            json_object_set_new(o, "nrt_execute_ns", json_integer((json_int_t)e->host_call_ns));
        }
        json_array_append_new(items, o);
    }
    json_t *o = json_pack("{s:I, s:I, s:b, s:o}", "total", (json_int_t)s->executions, "shown", (json_int_t)s->nexec,
                          "truncated", s->executions > s->nexec, "items", items);
    json_object_set_new(o, "launch_latency",
                        json_pack("{s:s, s:I, s:I, s:o}", "basis",
                                  "nrt_execute begin → first nc_exec_running begin on the same nc_idx", "executions",
                                  (json_int_t)s->launches, "max_ns", (json_int_t)s->launch_max_ns, "mean_ns",
                                  s->launches ? real_round((double)s->launch_total_ns / (double)s->launches, 1) : json_null()));
    return o;
}

/* ---- runtime spans, copies, allocations ------------------------------------------------------------- */

static json_t *type_json(const system_model *m, const ss_type *t)
{
    json_t *o = json_pack("{s:o, s:I, s:s, s:I, s:I, s:I, s:I, s:I}", "type", type_name(m, t->name), "type_id",
                          (json_int_t)t->type_id, "kind", t->hardware ? "device" : "host", "spans", (json_int_t)t->pairs,
                          "total_ns", (json_int_t)t->total_ns, "merged_ns", (json_int_t)t->union_ns, "max_ns",
                          (json_int_t)t->max_ns, "min_ns", (json_int_t)t->min_ns);
    json_object_set_new(o, "mean_ns", t->pairs ? real_round((double)t->total_ns / (double)t->pairs, 1) : json_null());
    if (t->bytes)
        json_object_set_new(o, "bytes", json_integer((json_int_t)t->bytes));
    if (t->instants)
        json_object_set_new(o, "instants", json_integer((json_int_t)t->instants));
    if (t->open)
        json_object_set_new(o, "unpaired_begins", json_integer((json_int_t)t->open));
    if (t->orphan_ends)
        json_object_set_new(o, "unpaired_ends", json_integer((json_int_t)t->orphan_ends));
    if (t->nonzero_rc)
        json_object_set_new(o, "nonzero_return_codes", json_integer((json_int_t)t->nonzero_rc));
    return o;
}

static json_t *types_json(const system_model *m, const system_summary *s)
{
    json_t *items = json_array();
    size_t shown = s->ntypes < SYS_TYPES_SHOWN ? s->ntypes : SYS_TYPES_SHOWN;
    for (size_t i = 0; i < shown; i++)
        json_array_append_new(items, type_json(m, &s->types[i]));
    return json_pack("{s:s, s:I, s:I, s:b, s:o}", "order", "total_ns descending", "total", (json_int_t)s->ntypes,
                     "shown", (json_int_t)shown, "truncated", shown < s->ntypes, "spans_by_type", items);
}

static json_t *copy_json(const system_model *m, const ss_copy *c)
{
    json_t *parents = json_array();
    for (unsigned i = 0; i < c->nparents; i++)
        json_array_append_new(parents, json_pack("{s:o, s:I, s:I}", "call", c->parents[i].type
                                                 ? type_name(m, c->parents[i].type) : json_string("(none)"),
                                                 "count", (json_int_t)c->parents[i].count, "bytes",
                                                 (json_int_t)c->parents[i].bytes));
    return json_pack("{s:I, s:I, s:I, s:o}", "count", (json_int_t)c->count, "bytes", (json_int_t)c->bytes, "total_ns",
                     (json_int_t)c->total_ns, "by_enclosing_call", parents);
}

static json_t *direction_json(const system_model *m, const system_summary *s, bool h2d)
{
    json_t *api = json_object(), *buffers = json_object();
    for (unsigned i = 0; i < SS_COPY_COUNT; i++) {
        const ss_copy *c = &s->copies[i];
        if (c->h2d != h2d || !c->count)
            continue;
        bool buffer = !strncmp(system_summary_copy_name(i), "dmem_", 5);
        json_object_set_new(buffer ? buffers : api, system_summary_copy_name(i), copy_json(m, c));
    }
    return json_pack("{s:o, s:o, s:s}", "api_calls", api, "buffer_copies", buffers, "note",
                     h2d ? "api_calls: nrt_tensor_write* as the application called them; buffer_copies: dmem_buf_copyin* "
                           "done by the runtime, each attributed to the innermost runtime call enclosing it on the same "
                           "worker (a copy inside nrt_tensor_write is that write; inside nrt_load it is model loading)"
                         : "api_calls: nrt_tensor_read*; buffer_copies: dmem_buf_copyout*, attributed to the enclosing call");
}

static json_t *allocations_json(const system_model *m, const system_summary *s)
{
    const ss_alloc *a = &s->alloc;
    const syspb_intern_table *errnos = syspb_trace_info_table(system_model_trace_info(m), SYS_MEM_ERRNO_TABLE);
    json_t *usage = json_array(), *codes = json_array();
    for (unsigned i = 0; i < a->nusage; i++)
        json_array_append_new(usage, json_pack("{s:o, s:I, s:I}", "usage_type", type_name(m, a->usage[i].usage), "count",
                                               (json_int_t)a->usage[i].count, "bytes", (json_int_t)a->usage[i].bytes));
    for (unsigned i = 0; i < a->ncodes; i++) {
        const char *name = a->codes[i].code >= 0 ? syspb_intern_lookup(errnos, (uint64_t)a->codes[i].code) : NULL;
        json_array_append_new(codes, json_pack("{s:I, s:I, s:s}", "return_code", (json_int_t)a->codes[i].code, "count",
                                               (json_int_t)a->codes[i].count, "name",
                                               name ? name : "not in " SYS_MEM_ERRNO_TABLE));
    }
    json_t *dma = json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "allocations", (json_int_t)a->dma_allocs,
                            "allocated_bytes", (json_int_t)a->dma_alloc_bytes, "deallocations", (json_int_t)a->dma_deallocs,
                            "freed_bytes", (json_int_t)a->dma_freed_bytes, "nonzero_return_codes",
                            (json_int_t)a->dma_nonzero_rc, "return_codes", codes, "by_usage_type", usage);
    if (a->usage_other_count)
        json_object_set_new(dma, "other_usage_types", json_pack("{s:I, s:I}", "count", (json_int_t)a->usage_other_count,
                                                                "bytes", (json_int_t)a->usage_other_bytes));
    return json_pack("{s:o, s:{s:I, s:I, s:I}}", "dma_memory", dma, "tensors", "allocations", (json_int_t)a->tensor_allocs,
                     "allocated_bytes", (json_int_t)a->tensor_alloc_bytes, "frees", (json_int_t)a->tensor_frees);
}

static json_t *loads_json(const system_model *m, const system_summary *s)
{
    json_t *items = json_array();
    size_t shown = s->nloads < SYS_LOADS_SHOWN ? s->nloads : SYS_LOADS_SHOWN;
    for (size_t i = 0; i < shown; i++) {
        const ss_load *l = &s->load_list[i];
        json_array_append_new(items, json_pack("{s:I, s:I, s:o, s:o, s:I, s:I, s:b}", "worker_gid", (json_int_t)l->worker,
                                               "nc_idx", (json_int_t)l->nc, "model_id",
                                               l->model_id ? id_string(l->model_id) : json_null(), "neff_path",
                                               neff_of(m, l->model_id), "start_offset_ns",
                                               (json_int_t)offset_of(s, l->start), "duration_ns",
                                               (json_int_t)l->duration_ns, "unfinished", l->open));
    }
    return json_pack("{s:s, s:I, s:I, s:b, s:o}", "call", SS_LOAD_TYPE, "total", (json_int_t)s->loads, "shown",
                     (json_int_t)shown, "truncated", shown < s->loads, "items", items);
}

/* ---- clock sync, host series, models ---------------------------------------------------------------- */

static json_t *sync_json(const system_summary *s)
{
    const ss_sync *y = &s->sync;
    json_t *groups = json_array();
    for (unsigned i = 0; i < y->ngroups; i++) {
        const ss_sync_group *g = &y->groups[i];
        json_array_append_new(groups, json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I}", "nc_idx", (json_int_t)g->nc,
                                                "exec_id", (json_int_t)g->exec_id, "core",
                                                g->core >= 0 ? json_integer((json_int_t)g->core) : json_null(),
                                                "sync_cpu_timestamp_ns", (json_int_t)g->sync_cpu_ns,
                                                "sync_nc_timestamp_ns", (json_int_t)g->sync_nc_ns, "offset_ns",
                                                (json_int_t)g->offset_ns, "timestamps_checked", (json_int_t)g->events,
                                                "max_abs_error_ns", (json_int_t)g->max_abs_error_ns));
    }
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "formula",
                     "host_ns = sync.cpu_timestamp_ns + (event.nc_timestamp_ns - sync.nc_timestamp_ns)", "matching",
                     "sync point with the event's exec_id and nc_idx; one per physical core, matched in file order to "
                     "ascending device_core_idx (formats.md §9.3); error = converted - the record's own timestamp",
                     "sync_points", (json_int_t)y->points, "groups_matched", (json_int_t)y->groups_matched,
                     "groups_unmatched", (json_int_t)y->groups_unmatched, "timestamps_checked",
                     (json_int_t)y->events_checked, "timestamps_without_sync_point", (json_int_t)y->events_unconvertible,
                     "max_abs_error_ns", y->has_error ? json_integer((json_int_t)y->max_abs_error_ns) : json_null(),
                     "per_core", groups);
}

static json_t *cpu_json(const system_summary *s)
{
    const ss_cpu *u = &s->cpu;
    if (!u->has)
        return json_null();
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:{s:o, s:I, s:I}, s:o, s:{s:I, s:o}, s:{s:o, s:I}, s:I}", "records",
                          (json_int_t)u->records, "cpus", (json_int_t)u->cpus, "samples_per_cpu",
                          (json_int_t)(u->cpus ? u->records / u->cpus : 0), "records_without_utilisation",
                          (json_int_t)u->omitted_util, "max", "pct", real_round(u->max_pct, 4), "cpu",
                          (json_int_t)u->max_cpu, "offset_from_series_start_ns", (json_int_t)(u->max_time - u->first_time),
                          "mean_pct", real_round(u->mean_pct, 4), "busiest_cpu", "cpu", (json_int_t)u->busiest_cpu,
                          "mean_pct", real_round(u->busiest_mean_pct, 4), "peak_all_cpu_mean", "pct",
                          real_round(u->peak_all_cpu_mean_pct, 4), "offset_from_series_start_ns",
                          (json_int_t)(u->peak_all_cpu_time - u->first_time), "series_duration_ns",
                          (json_int_t)(u->last_time - u->first_time));
    if (u->has_window_sample)
        json_object_set_new(o, "sample_covering_ntrace_window",
                            json_pack("{s:o, s:o, s:s}", "mean_pct", real_round(u->window_mean_pct, 4), "max_pct",
                                      real_round(u->window_max_pct, 4), "basis",
                                      "first sample at or after the ntrace window's end; a sample covers the preceding "
                                      "period (inferred: the first sample of the series is all zeros)"));
    return o;
}

static json_t *mem_json(const system_summary *s)
{
    const ss_mem *mm = &s->mem;
    if (!mm->has)
        return json_null();
    json_t *o = json_pack("{s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:I}", "records", (json_int_t)mm->records, "min_used_bytes",
                          (json_int_t)mm->min_bytes, "max_used_bytes", (json_int_t)mm->max_bytes, "mean_used_bytes",
                          real_round(mm->mean_bytes, 0), "first_used_bytes", (json_int_t)mm->first_bytes,
                          "last_used_bytes", (json_int_t)mm->last_bytes, "growth_bytes",
                          (json_int_t)((int64_t)mm->last_bytes - (int64_t)mm->first_bytes), "max_offset_from_series_start_ns",
                          (json_int_t)(mm->max_time - mm->first_time));
    json_object_set_new(o, "host_memory_bytes", mm->total_bytes ? json_integer((json_int_t)mm->total_bytes) : json_null());
    json_object_set_new(o, "max_used_pct_of_host", mm->total_bytes ? real_round(100.0 * (double)mm->max_bytes /
                                                                                (double)mm->total_bytes, 4) : json_null());
    return o;
}

/* A NEFF of this model in the rank: by `neff_<model_id>[_vnc_N].neff` or by network name == NEFF path. */
static bool neff_matches(const nl_catalog_file *f, uint64_t model_id, const char *neff_path)
{
    char prefix[48];
    snprintf(prefix, sizeof prefix, "neff_%llu", (unsigned long long)model_id);
    const char *base = strrchr(f->rel_path, '/') ? strrchr(f->rel_path, '/') + 1 : f->rel_path;
    size_t n = strlen(prefix);
    bool by_name = !strncmp(base, prefix, n) && (base[n] == '.' || base[n] == '_');
    return by_name || (neff_path && f->neff_name && !strcmp(f->neff_name, neff_path));
}

static json_t *ntffs_of(const nl_catalog *cat, long rank, const char *neff_path)
{
    json_t *arr = json_array();
    for (size_t i = 0; neff_path && i < nl_catalog_file_count(cat) && json_array_size(arr) < SYS_NTFFS_PER_MODEL; i++) {
        const nl_catalog_file *f = nl_catalog_file_at(cat, i);
        if (f->rank != rank || f->kind != NL_FILE_NTFF || !f->neff_name || strcmp(f->neff_name, neff_path))
            continue;
        const nl_catalog_profile *p = f->profile >= 0 ? nl_catalog_profile_at(cat, (size_t)f->profile) : NULL;
        json_array_append_new(arr, json_pack("{s:s, s:o, s:o}", "file", f->rel_path, "profile",
                                             p ? json_string(p->id) : json_null(), "uuid",
                                             f->has_uuid ? json_string(f->uuid_hex) : json_null()));
    }
    return arr;
}

static json_t *model_json(const nl_catalog *cat, long rank, const ss_model *md)
{
    json_t *o = json_pack("{s:o, s:o, s:I, s:I}", "model_id", id_string(md->model_id), "neff_path",
                          md->neff_path ? json_string(md->neff_path) : json_null(), "loads", (json_int_t)md->loads,
                          "executions", (json_int_t)md->executions);
    json_t *neff = json_null();
    for (size_t i = 0; i < nl_catalog_file_count(cat); i++) {
        const nl_catalog_file *f = nl_catalog_file_at(cat, i);
        if (f->rank == rank && f->kind == NL_FILE_NEFF && neff_matches(f, md->model_id, md->neff_path)) {
            neff = json_pack("{s:s, s:o, s:b}", "file", f->rel_path, "uuid", f->has_uuid ? json_string(f->uuid_hex)
                                                                                          : json_null(),
                             "network_name_matches", md->neff_path && f->neff_name && !strcmp(f->neff_name, md->neff_path));
            break;
        }
    }
    json_object_set_new(o, "neff_file", neff);
    json_object_set_new(o, "ntff_files", ntffs_of(cat, rank, md->neff_path));
    return o;
}

static json_t *models_json(const nl_catalog *cat, long rank, const system_summary *s)
{
    json_t *items = json_array();
    size_t shown = s->nmodels < SYS_MODELS_SHOWN ? s->nmodels : SYS_MODELS_SHOWN;
    for (size_t i = 0; i < shown; i++)
        json_array_append_new(items, model_json(cat, rank, &s->models[i]));
    return json_pack("{s:s, s:I, s:I, s:b, s:o}", "linkage",
                     "model_id → NEFF path (trace_info.pb system_trace) → NEFF file (neff_<model_id>.neff or network "
                     "name) → NTFF (metadata NEFF name)", "total", (json_int_t)s->nmodels, "shown", (json_int_t)shown,
                     "truncated", shown < s->nmodels, "items", items);
}

/* ---- data quality ----------------------------------------------------------------------------------- */

typedef struct note_advice {
    int code;
    const char *severity;
    const char *fix;
} note_advice;

static const note_advice ADVICE[] = {
    {SYSPB_NOTE_TRUNCATED, "warning", "The file ends inside a record (capture stopped early or an incomplete copy): copy "
                                      "the capture directory again from the Trainium host. Numbers cover the records "
                                      "before the offset."},
    {SYSPB_NOTE_OVERSIZED, "warning", "A length prefix is corrupt or the file is not a length-prefixed stream: copy the "
                                      "file again. Nothing after the offset was read."},
    {SYSPB_NOTE_BAD_RECORD, "warning", "The record contradicts the schema (proto/); it was skipped. Many such records mean a "
                                       "runtime version changed the format: report it with the runtime version."},
    {SYSPB_NOTE_MISSING_FIELD, "warning", "The record lacks a field it needs and was skipped; copy the file again."},
    {SYSPB_NOTE_UNKNOWN_TYPE, "warning", "Use the trace_info.pb written by the same capture: event type ids are read from "
                                         "its ntrace_inspect_type table and change between runtime versions."},
    {SYSPB_NOTE_UNKNOWN_PHASE, "warning", "Records with a phase other than begin/end/instant were skipped."},
    {SYSPB_NOTE_VALUE_RANGE, "warning", "Records with impossible values were skipped; copy the file again."},
    {SYSPB_NOTE_UNKNOWN_FIELDS, "info", "A newer runtime writes fields neuronlens does not model; they were ignored."},
    {SM_NOTE_UNMATCHED_BEGIN, "warning", "A call was still running when the capture stopped, or its end was dropped: "
                                         "stop profiling after the work completes (torch.neuron.synchronize()) and check "
                                         "max_events_per_nc."},
    {SM_NOTE_UNMATCHED_END, "warning", "The begin was dropped or the capture started mid-call; raise max_events_per_nc or "
                                       "filter NCs/event types at capture."},
    {SM_NOTE_TYPE_MISMATCH, "warning", "Begin and end of one span disagree on the type; the span ids may be reused."},
    {SM_NOTE_DUPLICATE_SPAN, "warning", "A span id began twice; the first begin is kept as unfinished."},
    {SM_NOTE_BAD_ATTRIBUTE, "info", "An attribute expected to be a number is not; it is kept as text."},
    {SM_NOTE_TOO_MANY_ATTRS, "info", "Attributes beyond the cap were dropped."},
    {SM_NOTE_MISSING_FILE, "info", "Capture with NeuronConfig modes ProfileMode.CPU_UTIL and ProfileMode.HOST_MEMORY to "
                                   "get the host series."},
    {SM_NOTE_UNREADABLE_FILE, "warning", "Check the file's permissions and copy it again."},
    {SM_NOTE_COUNT_MISMATCH, "warning", "Events were dropped or the file is incomplete: raise max_events_per_nc (default "
                                        "1,000,000) or filter NCs/event types at capture; copy the file again."},
    {SM_NOTE_DUPLICATE_IDS, "info", "The first value of each repeated id is used."},
    {SM_NOTE_NO_TYPE_TABLE, "warning", "Use the trace_info.pb written by the same capture; without its "
                                       "ntrace_inspect_type table no event can be named."},
};

static const note_advice *advice_for(int code)
{
    for (size_t i = 0; i < sizeof ADVICE / sizeof ADVICE[0]; i++)
        if (ADVICE[i].code == code)
            return &ADVICE[i];
    return NULL;
}

static json_t *note_json(const nl_catalog *cat, const nl_catalog_rank *rank, const system_model_note *n)
{
    const note_advice *a = advice_for(n->code);
    const int idx[SM_FILE_COUNT] = {rank->trace_info_pb, rank->ntrace_pb, rank->cpu_util_pb, rank->host_mem_pb};
    char problem[NL_ERROR_MESSAGE_MAX + 64];
    snprintf(problem, sizeof problem, "%s%s", n->first.message, n->count > 1 ? " (first of several)" : "");
    json_t *q = shape_quality(a ? a->severity : "warning", problem, a ? a->fix : NULL,
                              idx[n->file] >= 0 ? rel_of(cat, idx[n->file]) : system_file_name(n->file));
    json_object_set_new(q, "code", json_string(system_note_code_name(n->code)));
    json_object_set_new(q, "count", json_integer((json_int_t)n->count));
    json_object_set_new(q, "offset", n->first.offset >= 0 ? json_integer(n->first.offset) : json_null());
    if (n->first.record >= 0)
        json_object_set_new(q, "record", json_integer(n->first.record));
    if (n->first.field[0])
        json_object_set_new(q, "field", json_string(n->first.field));
    return q;
}

/* The NTFF of this capture is named for an execution the system trace does not hold (the sample: exec_2 vs
 * exec_id 1): do not join it to nc_exec_running by time. */
static void ntff_exec_gate(const nl_catalog *cat, long rank, const system_summary *s, json_t *dq)
{
    for (size_t i = 0; i < nl_catalog_file_count(cat); i++) {
        const nl_catalog_file *f = nl_catalog_file_at(cat, i);
        const char *p = f->rank == rank && f->kind == NL_FILE_NTFF ? strstr(f->rel_path, "_exec_") : NULL;
        long n;
        if (!p || sscanf(p, "_exec_%ld", &n) != 1)
            continue;
        bool seen = false;
        for (size_t k = 0; k < s->nexec; k++)
            seen |= s->execs[k].exec_id == n;
        if (seen || !s->executions)
            continue;
        char problem[700];
        snprintf(problem, sizeof problem, "%s is named for execution %ld, but ntrace.pb holds no nc_exec_running with "
                 "exec_id %ld: the device trace and the system trace cover different executions", f->rel_path, n, n);
        json_array_append_new(dq, shape_quality("info", problem, "Do not join this NTFF to nc_exec_running by time; "
                                                "capture system and device profiles of the same execution", f->rel_path));
    }
}

static void gates(const nl_catalog *cat, long rank, const system_model *m, const system_summary *s, json_t *dq)
{
    if (!s->has_device)
        json_array_append_new(dq, shape_quality("warning", "no nc_exec_running events: device busy time, gaps and "
                                                "executions cannot be computed", "Capture with hardware events enabled "
                                                "(NEURON_RT_INSPECT_EVENT_FILTER_TYPE must not exclude hardware)", NULL));
    bool only_first = s->executions > 0;
    for (size_t i = 0; i < s->nexec; i++)
        only_first &= s->execs[i].exec_id <= 1;
    if (only_first && s->executions == s->nexec && s->loads)
        json_array_append_new(dq, shape_quality("warning", "the only execution recorded is the first after nrt_load "
                                                "(exec_id 1): a warm-up run, whose device time includes one-off setup",
                                                "Warm up at least 3 iterations before profiling (schedule wait/warmup, or "
                                                "--profile-nth-exec=2) and compare", NULL));
    if (s->sync.groups_unmatched || s->sync.events_unconvertible)
        json_array_append_new(dq, shape_quality("warning", "some device timestamps have no matching timestamp_sync_point "
                                                "(or the number of sync points does not match the cores): their "
                                                "conversion to host time was not checked", NULL, NULL));
    else if (s->sync.has_error && s->sync.max_abs_error_ns > 0)
        json_array_append_new(dq, shape_quality("warning", "device→host conversion with the sync points disagrees with "
                                                "the recorded host timestamps (see clock_sync.max_abs_error_ns)",
                                                "Treat host/device alignment as uncertain by that much", NULL));
    const system_file_info *nt = system_model_file(m, SM_FILE_NTRACE);
    if (nt->stats.records >= SYS_DEFAULT_MAX_EVENTS_PER_NC)
        json_array_append_new(dq, shape_quality("info", "ntrace.pb holds at least max_events_per_nc's default (1,000,000) "
                                                "events: if one core hit the cap, its oldest events were dropped",
                                                "Raise max_events_per_nc or filter NCs/event types at capture", NULL));
    ntff_exec_gate(cat, rank, s, dq);
}

static bool any_partial(const system_model *m)
{
    for (int f = 0; f < SM_FILE_COUNT; f++)
        if (system_model_file(m, (system_file)f)->stats.partial)
            return true;
    return system_model_counts_get(m)->open_begins || system_model_counts_get(m)->orphan_ends;
}

static json_t *quality_json(const nl_catalog *cat, const nl_catalog_rank *rank, const system_model *m,
                            const system_summary *s)
{
    json_t *dq = json_array();
    for (size_t i = 0; i < system_model_note_count(m); i++)
        json_array_append_new(dq, note_json(cat, rank, system_model_note_at(m, i)));
    if (system_model_counts_get(m)->notes_dropped)
        json_array_append_new(dq, shape_quality("warning", "more kinds of problems than listed were found", NULL, NULL));
    if (s)
        gates(cat, rank_index(cat, rank), m, s, dq);
    return dq;
}

/* ---- the tool --------------------------------------------------------------------------------------- */

static void fill_numbers(json_t *out, const nl_catalog *cat, const nl_catalog_rank *rank, const system_model *m,
                         const system_summary *s)
{
    json_object_set_new(out, "total_time_ns", s->has_window ? json_integer((json_int_t)(s->window_end - s->window_start))
                                                            : json_null());
    json_object_set_new(out, "total_time_basis", json_string("ntrace.pb window: first to last record (host clock)"));
    json_object_set_new(out, "window", window_json(s));
    json_object_set_new(out, "device", device_json(s));
    json_object_set_new(out, "gaps", gaps_json(m, s));
    json_object_set_new(out, "executions", executions_json(m, s));
    json_object_set_new(out, "runtime_api", types_json(m, s));
    json_object_set_new(out, "loads", loads_json(m, s));
    json_object_set_new(out, "host_to_device", direction_json(m, s, true));
    json_object_set_new(out, "device_to_host", direction_json(m, s, false));
    json_object_set_new(out, "allocations", allocations_json(m, s));
    json_object_set_new(out, "clock_sync", sync_json(s));
    json_object_set_new(out, "cpu", cpu_json(s));
    json_object_set_new(out, "host_memory", mem_json(s));
    json_object_set_new(out, "models", models_json(cat, rank_index(cat, rank), s));
}

static void text_rendering(const json_t *out, nl_tool_result *res)
{
    const json_t *dev = json_object_get(out, "device"), *gaps = json_object_get(out, "gaps");
    const json_t *err_ns = json_object_get(json_object_get(out, "clock_sync"), "max_abs_error_ns");
    char sync[64];
    if (json_is_integer(err_ns))
        snprintf(sync, sizeof sync, "%lld ns", (long long)json_integer_value(err_ns));
    else
        snprintf(sync, sizeof sync, "not checked");
    char buf[1024];
    snprintf(buf, sizeof buf, "%s: window %lld ns, device busy %lld ns (%.2f%% of it) over %zu core(s), %lld "
             "execution(s), %lld gap(s) totalling %lld ns, sync-point conversion error %s, %zu data-quality note(s)%s. "
             "Full numbers in structuredContent.",
             json_string_value(json_object_get(json_object_get(out, "profile"), "id")),
             (long long)json_integer_value(json_object_get(out, "total_time_ns")),
             (long long)json_integer_value(json_object_get(dev, "busy_ns")),
             json_number_value(json_object_get(dev, "busy_pct_of_window")), json_array_size(json_object_get(dev, "cores")),
             (long long)json_integer_value(json_object_get(json_object_get(out, "executions"), "total")),
             (long long)json_integer_value(json_object_get(gaps, "count")),
             (long long)json_integer_value(json_object_get(gaps, "total_ns")), sync,
             json_array_size(json_object_get(out, "data_quality")),
             json_is_true(json_object_get(out, "partial")) ? "; PARTIAL (see data_quality)" : "");
    res->text = strdup(buf);
}

/* Keep the first `keep` items of out[obj][key] and mark the list truncated. */
static void trim_list(json_t *out, const char *obj, const char *key, size_t keep)
{
    json_t *o = json_object_get(out, obj), *arr = json_object_get(o, key);
    if (!json_is_array(arr) || json_array_size(arr) <= keep)
        return;
    while (json_array_size(arr) > keep)
        json_array_remove(arr, json_array_size(arr) - 1);
    json_object_set_new(o, "shown", json_integer((json_int_t)keep));
    json_object_set_new(o, "truncated", json_true());
}

/* Every list is already capped while it is built; a caller with a smaller byte budget gets shorter lists. */
static void fit_budget(json_t *out, const nl_call *call)
{
    if (!call->byte_budget || json_dumpb(out, NULL, 0, JSON_COMPACT) + 2048 <= call->byte_budget)
        return;
    trim_list(out, "runtime_api", "spans_by_type", SYS_TRIM_KEEP * 2);
    trim_list(out, "loads", "items", SYS_TRIM_KEEP);
    trim_list(out, "executions", "items", SYS_TRIM_KEEP);
    trim_list(out, "models", "items", SYS_TRIM_KEEP);
    json_array_clear(json_object_get(json_object_get(out, "clock_sync"), "per_core"));
    json_object_set_new(out, "trimmed_to_byte_budget", json_integer((json_int_t)call->byte_budget));
}

int nl_summary_system(const json_t *args, nl_call *call, const nl_catalog *cat, const nl_catalog_rank *rank,
                      nl_tool_result *res)
{
    (void)args;
    const system_model *m = NULL;
    nl_error err;
    nl_error_clear(&err);
    nl_call_progress(call, 0, 2, "reading the system profile");
    nl_model_ref *ref = nl_select_load_system(call, cat, rank, &m, &err);
    if (!ref)
        return nl_tool_result_error(res, "cannot read the system profile of %s: %s%s%s byte %lld: %s (%s)", rank->id,
                                    err.source[0] ? err.source : "", err.field[0] ? " field " : "", err.field,
                                    (long long)err.offset, err.message, nl_error_code_name(err.code));
    nl_call_progress(call, 1, 2, "summarising");
    const system_summary *s = nl_memo_system_summary(call, ref, &err);
    if (!s) {
        nl_model_ref_release(ref);
        return nl_tool_result_error(res, "summary of %s failed: %s", rank->id, err.message);
    }
    json_t *out = json_object();
    bool partial = any_partial(m);
    json_object_set_new(out, "profile", profile_label(rank));
    json_object_set_new(out, "status", json_string(partial ? "partial" : "complete"));
    json_object_set_new(out, "partial", json_boolean(partial));
    if (partial)
        json_object_set_new(out, "partial_reason", json_string("some records were skipped, unpaired or cut off: the "
                                                               "numbers cover what was readable (data_quality says where)"));
    json_object_set_new(out, "units", units_json());
    fill_numbers(out, cat, rank, m, s);
    json_object_set_new(out, "data_quality", quality_json(cat, rank, m, s));
    json_object_set_new(out, "provenance", provenance_json(cat, rank, m, ref));
    fit_budget(out, call);
    text_rendering(out, res);
    res->structured = out;
    nl_model_ref_release(ref); /* s and m with it */
    return 0;
}

/* ---- orient ----------------------------------------------------------------------------------------- */

static json_t *orient_counts(const system_model *m, const system_summary *s)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "events_declared",
                     (json_int_t)system_model_trace_info(m)->event_count, "events", (json_int_t)system_model_counts_get(m)->records,
                     "executions", (json_int_t)s->executions, "device_cores", (json_int_t)s->ncores, "models",
                     (json_int_t)s->nmodels, "cpu_samples", (json_int_t)s->cpu.records, "host_memory_samples",
                     (json_int_t)s->mem.records);
}

static json_t *orient_versions(const system_model *m)
{
    const syspb_trace_info *ti = system_model_trace_info(m);
    json_t *v = json_pack("{s:I}", "trace_info_format", (json_int_t)ti->format_version);
    if (ti->instance_type)
        json_object_set_new(v, "instance_type", json_string(ti->instance_type));
    if (ti->instance_id)
        json_object_set_new(v, "instance_id", json_string(ti->instance_id));
    return v;
}

/* Only trace_info.pb (small) when ntrace.pb is too large to read here. */
static void orient_declared_only(const nl_catalog *cat, const nl_catalog_rank *rank, json_t *o)
{
    arena *a = arena_new(0);
    syspb_trace_info ti;
    nl_error err;
    if (a && syspb_trace_info_read(path_of(cat, rank->trace_info_pb), a, &ti, &err) == 0)
        json_object_set_new(o, "counts", json_pack("{s:I, s:s}", "events_declared", (json_int_t)ti.event_count, "note",
                                                   "ntrace.pb is large: call summary to read it"));
    arena_free(a);
}

void nl_system_orient_facts(nl_call *call, const nl_catalog *cat, const nl_catalog_rank *rank, json_t *o)
{
    json_t *dq = json_object_get(o, "data_quality");
    if (rank->ntrace_pb >= 0 && nl_catalog_file_at(cat, (size_t)rank->ntrace_pb)->size > NL_SYSTEM_ORIENT_LOAD_MAX) {
        orient_declared_only(cat, rank, o);
        return;
    }
    const system_model *m = NULL;
    nl_error err;
    nl_error_clear(&err);
    nl_model_ref *ref = nl_select_load_system(call, cat, rank, &m, &err); /* cached: summary is warm afterwards */
    const system_summary *s = ref ? nl_memo_system_summary(call, ref, &err) : NULL;
    if (!s) {
        char problem[700];
        snprintf(problem, sizeof problem, "the system profile cannot be read: %s (%s, byte %lld)", err.message,
                 nl_error_code_name(err.code), (long long)err.offset);
        if (dq)
            json_array_append_new(dq, shape_quality("error", problem, "Copy the capture directory again from the "
                                                    "Trainium host", err.source[0] ? err.source : NULL));
    } else {
        json_object_set_new(o, "counts", orient_counts(m, s));
        json_object_set_new(o, "versions", orient_versions(m));
        json_object_set_new(o, "partial", json_boolean(any_partial(m)));
        json_t *q = quality_json(cat, rank, m, s);
        if (dq)
            json_array_extend(dq, q);
        json_decref(q);
    }
    nl_model_ref_release(ref);
}
