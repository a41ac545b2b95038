/* summary_memory — the `summary` tool on a PyTorch allocator snapshot ("why did I run out of memory?").
 *
 * The snapshot is read into the shared model cache (catalog/model_cache.h, NL_MODEL_MEMORY) and summarised
 * once per model (analyses/memory_summary.h, memoized). The result, per device (at most SM_DEVICES_LISTED,
 * then counted): reserved / allocated / active / requested bytes and each pool (large, small); fragmentation
 * (free cached = reserved − allocated, the largest free block); the peak of allocated memory over the trace
 * and when it was first reached, with the allocation sites holding memory then (folded: the user's frame,
 * the framework call inside it); each out-of-memory event with the request, what the device reported free,
 * whether the largest cached free block would have fit it, and what held memory just before. Plus the
 * allocator settings that matter and what the snapshot's history covers: a snapshot without the ring buffer
 * of events (state only, or none) says so — its peak is the state at snapshot time, not a peak over time.
 * Sizes are bounded by construction (sites per list, frames per stack, devices, OOMs). */
#include "summary_memory.h"
#include "memo.h"
#include "memory_summary.h"
#include "select.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SM_DEVICES_LISTED 8u   /* devices shown in full; more are counted */
#define SM_PEAK_SITES 5u       /* sites shown at a device's peak */
#define SM_OOM_SITES 3u        /* sites shown for one OOM */
#define SM_OOMS_LISTED 4u      /* OOMs shown per device */
#define SM_STACK_FRAMES 4u     /* folded frames shown per site */

static const char *sm_str(const memory_model *m, uint32_t id)
{
    const char *s = memory_model_str(m, id, NULL);
    return s ? s : "";
}

/* "file:line name" of a frame. */
static json_t *sm_frame(const memory_model *m, uint32_t frame)
{
    if (frame == MEMORY_SITE_NONE)
        return json_string("(no stack recorded)");
    const table *fr = memory_model_frames(m);
    char buf[600];
    snprintf(buf, sizeof buf, "%.300s:%lld %.200s", sm_str(m, table_str(fr, MM_FR_FILENAME, frame)),
             (long long)table_i64(fr, MM_FR_LINE, frame), sm_str(m, table_str(fr, MM_FR_NAME, frame)));
    return json_string(buf);
}

static json_t *sm_sites(const memory_model *m, const memory_sites *s, size_t cap)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < s->count && i < cap; i++) {
        const memory_site *site = &s->top[i];
        json_t *o = json_pack("{s:o, s:b, s:I, s:I}", "site", sm_frame(m, site->frame), "user_code", site->user, "bytes",
                              (json_int_t)site->bytes, "allocations", (json_int_t)site->count);
        if (site->via != MEMORY_SITE_NONE)
            json_object_set_new(o, "via", sm_frame(m, site->via));
        uint32_t frames[SM_STACK_FRAMES];
        size_t user = 0, n = memory_stack_fold(m, site->stack, frames, SM_STACK_FRAMES, &user);
        json_t *stack = json_array();
        for (size_t k = 0; k < n && k < SM_STACK_FRAMES; k++)
            json_array_append_new(stack, sm_frame(m, frames[k]));
        json_object_set_new(o, "stack", stack);
        if (n > SM_STACK_FRAMES)
            json_object_set_new(o, "stack_frames_not_shown", json_integer((json_int_t)(n - SM_STACK_FRAMES)));
        json_array_append_new(arr, o);
    }
    return json_pack("{s:o, s:I, s:I, s:I}", "top", arr, "sites", (json_int_t)s->total_sites, "other_bytes",
                     (json_int_t)s->other_bytes, "other_allocations", (json_int_t)s->other_count);
}

static json_t *sm_pool(const memory_pool_bytes *p)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "segments", (json_int_t)p->segments, "blocks",
                     (json_int_t)p->blocks, "reserved_B", (json_int_t)p->reserved, "allocated_B", (json_int_t)p->allocated,
                     "active_B", (json_int_t)p->active, "requested_B", (json_int_t)p->requested, "free_cached_B",
                     (json_int_t)(p->reserved - p->allocated), "pending_free_B", (json_int_t)p->pending_free,
                     "largest_free_block_B", (json_int_t)p->largest_inactive);
}

static json_t *sm_peak(const memory_model *m, const memory_peak *pk)
{
    json_t *o = json_pack("{s:s, s:I}", "source", memory_peak_source_name(pk->source), "allocated_B", (json_int_t)pk->bytes);
    if (pk->source == MEMORY_PEAK_TRACE) {
        json_object_set_new(o, "trace_row", pk->row >= 0 ? json_integer(pk->row) : json_null());
        json_object_set_new(o, "time_us", pk->has_time ? json_integer(pk->time_us) : json_null());
        json_object_set_new(o, "at_window_start", json_boolean(pk->row < 0));
        json_object_set_new(o, "window_start_B", json_integer(pk->start_bytes));
        json_object_set_new(o, "window_end_B", json_integer(pk->end_bytes));
        json_object_set_new(o, "allocs_replayed", json_integer((json_int_t)pk->allocs));
        json_object_set_new(o, "frees_replayed", json_integer((json_int_t)pk->frees));
    }
    json_object_set_new(o, "held_by", sm_sites(m, &pk->sites, SM_PEAK_SITES));
    return o;
}

static json_t *sm_ooms(const memory_model *m, const memory_device *d)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < d->oom_count && i < SM_OOMS_LISTED; i++) {
        const memory_oom *o = &d->ooms[i];
        json_t *e = json_pack("{s:I, s:o, s:I, s:I, s:I, s:I, s:b}", "trace_row", (json_int_t)o->row, "time_us",
                              o->has_time ? json_integer(o->time_us) : json_null(), "requested_B", (json_int_t)o->requested,
                              "device_free_B", (json_int_t)o->device_free, "allocated_B", (json_int_t)o->allocated,
                              "reserved_B", (json_int_t)o->reserved, "largest_free_block_would_fit",
                              o->fits_largest_free);
        if (o->sites.count)
            json_object_set_new(e, "held_by", sm_sites(m, &o->sites, SM_OOM_SITES));
        json_array_append_new(arr, e);
    }
    return arr;
}

static json_t *sm_device(const memory_model *m, const memory_device *d)
{
    json_t *o = json_pack("{s:I, s:o}", "device", (json_int_t)d->device, "total", sm_pool(&d->total));
    json_t *pools = json_object();
    for (int t = 0; t < MM_SEGTYPE_COUNT; t++)
        if (d->pools[t].segments)
            json_object_set_new(pools, memory_segment_type_name((memory_segment_type)t), sm_pool(&d->pools[t]));
    json_object_set_new(o, "pools", pools);
    json_object_set_new(o, "trace_entries", json_integer((json_int_t)d->trace_entries));
    json_t *actions = json_object();
    for (int a = 0; a < MM_ACT_COUNT; a++)
        if (d->actions[a])
            json_object_set_new(actions, memory_action_name((memory_action)a), json_integer((json_int_t)d->actions[a]));
    json_object_set_new(o, "actions", actions);
    if (d->has_time)
        json_object_set_new(o, "window_us", json_pack("{s:I, s:I}", "first", (json_int_t)d->first_time_us, "last",
                                                      (json_int_t)d->last_time_us));
    json_object_set_new(o, "peak", sm_peak(m, &d->peak));
    json_object_set_new(o, "ooms", sm_ooms(m, d));
    json_object_set_new(o, "oom_total", json_integer((json_int_t)d->oom_total));
    return o;
}

static json_t *sm_settings(const memory_model *m, const memory_summary *s)
{
    const memory_settings *st = &s->settings;
    json_t *o = json_pack("{s:b}", "recorded", st->present);
    if (st->has_expandable)
        json_object_set_new(o, "expandable_segments", json_boolean(st->expandable_segments));
    if (st->has_max_split)
        json_object_set_new(o, "max_split_size_B", st->max_split_size < 0 ? json_string("unlimited")
                                                                           : json_integer(st->max_split_size));
    if (st->has_gc_threshold)
        json_object_set_new(o, "garbage_collection_threshold", json_real(st->gc_threshold));
    if (st->has_alloc_conf)
        json_object_set_new(o, "alloc_conf", json_string(sm_str(m, st->alloc_conf)));
    return o;
}

/* What the snapshot's history covers, and the reading problems the reader counted. */
static void sm_quality(const memory_model *m, const memory_summary *s, const char *file, json_t *dq)
{
    if (s->history == MEMORY_HISTORY_NONE)
        json_array_append_new(dq, shape_quality("warning", "the snapshot has no allocation history (device_traces "
                                                "empty): peaks and sites are the state at snapshot time, not over time",
                                                "call torch_neuronx.memory._record_memory_history() (or "
                                                "torch.cuda.memory._record_memory_history(max_entries=100000)) before "
                                                "the work, then export the snapshot", file));
    else if (s->history == MEMORY_HISTORY_STATE)
        json_array_append_new(dq, shape_quality("warning", "the snapshot was recorded with history of state only (one "
                                                "entry per device): there is no timeline to find a peak in; the peak "
                                                "shown is the state at the start of the window", "record with "
                                                "_record_memory_history(enabled=\"all\") for the allocation events",
                                                file));
    for (size_t i = 0; i < memory_model_note_count(m); i++) {
        const memory_note *n = memory_model_note_at(m, i);
        char problem[400];
        snprintf(problem, sizeof problem, "%s in %s: %s (%llu time(s), first at byte %lld)", memory_note_kind_name(n->kind),
                 n->where, sm_str(m, n->name), (unsigned long long)n->count, (long long)n->first_offset);
        json_array_append_new(dq, shape_quality("info", problem, NULL, file));
    }
}

static void *sm_build(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    nl_call *call = ctx;
    memory_summary *s = NULL;
    memory_summary_options opt = {.top_sites = SM_PEAK_SITES};
    if (memory_summary_compute(nl_model_ref_memory(r), &opt, call->cancel, &s, err))
        return NULL;
    *bytes = sizeof *s + s->device_count * sizeof *s->devices;
    return s;
}

static void sm_release(void *obj)
{
    memory_summary_free(obj);
}

/* The headline: per device, what was held at the peak and the biggest site, the cached free bytes, OOMs. */
static void sm_text(const memory_model *m, const memory_summary *s, const char *id, nl_tool_result *res)
{
    char buf[1400];
    int n = snprintf(buf, sizeof buf, "memory snapshot %.200s (%s layout, history %s): %zu device(s).", id,
                     memory_layout_name(s->layout), memory_history_name(s->history), s->device_count);
    for (size_t i = 0; i < s->device_count && i < 3 && n > 0 && (size_t)n < sizeof buf; i++) {
        const memory_device *d = &s->devices[i];
        const memory_peak *pk = &d->peak;
        n += snprintf(buf + n, sizeof buf - (size_t)n, " Device %u: reserved %lld B, allocated %lld B (%lld B cached "
                      "free, largest free block %lld B); peak allocated %lld B (%s)", d->device,
                      (long long)d->total.reserved, (long long)d->total.allocated,
                      (long long)(d->total.reserved - d->total.allocated), (long long)d->total.largest_inactive,
                      (long long)pk->bytes, pk->source == MEMORY_PEAK_TRACE ? "over the trace" : "at snapshot time");
        if (pk->sites.count && n > 0 && (size_t)n < sizeof buf) {
            json_t *f = sm_frame(m, pk->sites.top[0].frame);
            n += snprintf(buf + n, sizeof buf - (size_t)n, ", largest holder %.200s with %lld B", json_string_value(f),
                          (long long)pk->sites.top[0].bytes);
            json_decref(f);
        }
        if (d->oom_total && n > 0 && (size_t)n < sizeof buf)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "; %llu out-of-memory event(s), the first asking %lld B with "
                          "%lld B free", (unsigned long long)d->oom_total, (long long)d->ooms[0].requested,
                          (long long)d->ooms[0].device_free);
        if (n > 0 && (size_t)n < sizeof buf)
            n += snprintf(buf + n, sizeof buf - (size_t)n, ".");
    }
    res->text = strdup(buf);
}

int nl_summary_memory(nl_call *call, nl_select *sel, nl_tool_result *res)
{
    if (nl_select_load(call, sel, res))
        return 0;
    const memory_model *m = nl_model_ref_memory(sel->model);
    nl_error err;
    nl_error_clear(&err);
    const memory_summary *s = nl_model_ref_memo(sel->model, "memory_summary", sm_build, sm_release, call, call->cancel,
                                                &err);
    if (!s)
        return nl_tool_result_error(res, "summary of %s failed: %s (%s).", sel->profile->id, err.message,
                                    nl_error_code_name(err.code));
    const nl_catalog_file *f = nl_catalog_file_at(sel->cat, (size_t)sel->profile->file);
    const memory_model_info *info = memory_model_info_of(m);
    json_t *out = json_object();
    json_object_set_new(out, "profile", nl_select_label(sel));
    json_object_set_new(out, "units", json_pack("{s:s, s:s}", "*_B", "bytes", "time_us", "µs as the snapshot's "
                                                "trace entries record them (time_us)"));
    json_t *prov = json_pack("{s:{s:s}, s:s, s:s, s:i, s:I}", "files", "memory_snapshot", f->rel_path, "layout",
                             memory_layout_name(info->layout), "history", memory_history_name(info->history),
                             "pickle_protocol", info->protocol, "bytes", (json_int_t)info->file_bytes);
    json_object_set_new(prov, "reader", json_string("neuronlens safe pickle reader (no code executed)"));
    nl_select_model_provenance(sel, prov);
    json_object_set_new(out, "provenance", prov);
    json_t *dq = nl_select_quality(sel);
    sm_quality(m, s, f->rel_path, dq);
    json_object_set_new(out, "data_quality", dq);
    json_object_set_new(out, "status", json_string("complete"));
    json_object_set_new(out, "total", sm_pool(&s->total));
    json_t *devices = json_array();
    for (size_t i = 0; i < s->device_count && i < SM_DEVICES_LISTED; i++)
        json_array_append_new(devices, sm_device(m, &s->devices[i]));
    json_object_set_new(out, "devices", devices);
    json_object_set_new(out, "devices_total", json_integer((json_int_t)s->device_count));
    json_object_set_new(out, "allocator_settings", sm_settings(m, s));
    sm_text(m, s, sel->profile->id, res);
    res->structured = out;
    return 0;
}
