/* Unit tests for analyzers/readers/memory_snapshot + analyzers/model/memory_model +
 * analyzers/analyses/memory_summary on hand-built snapshots (tests/unit/pickle_writer.h): the current layout
 * read field by field (shared frames and stacks, settings, notes, device ranges), the PyTorch 2.0 layout
 * (computed block addresses, history[0] standing in), the history kinds, a timeline whose peak, sites and
 * OOM were computed by hand, frame classes and folding, valid pickles that are not snapshots, snapshot
 * fields of the wrong type, refused opcodes inside a snapshot, every truncation, and the memory cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory_model.h"
#include "memory_snapshot.h"
#include "memory_summary.h"
#include "pickle_writer.h"
#include "row_order.h"
#include "timeline_kinds.h"

/* ---- building snapshots ------------------------------------------------------------------------------- */

static uint32_t w_frame(pw *w, const char *name, const char *file, int64_t line)
{
    uint32_t i = pw_dict(w);
    pw_str(w, "name"), pw_str(w, name), pw_str(w, "filename"), pw_str(w, file), pw_str(w, "line"), pw_int(w, line);
    pw_dict_end(w);
    return i;
}

static void w_kv_int(pw *w, const char *k, int64_t v)
{
    pw_str(w, k), pw_int(w, v);
}

/* memo indices of the shared objects of the current-layout snapshot */
typedef struct cur_memo {
    uint32_t empty, s1, s4, f_user;
} cur_memo;

static void w_block(pw *w, int64_t addr, int64_t size, int64_t req, const char *state, int64_t frames_memo)
{
    pw_dict(w);
    w_kv_int(w, "address", addr), w_kv_int(w, "size", size), w_kv_int(w, "requested_size", req);
    pw_str(w, "state"), pw_str(w, state), pw_str(w, "frames"), pw_get(w, (uint32_t)frames_memo);
    pw_dict_end(w);
}

static void w_entry(pw *w, const char *action, int64_t addr, int64_t size, int64_t time, int64_t frames_memo)
{
    pw_dict(w);
    pw_str(w, "action"), pw_str(w, action);
    w_kv_int(w, strcmp(action, "oom") ? "addr" : "device_free", addr), w_kv_int(w, "size", size);
    w_kv_int(w, "stream", 0), w_kv_int(w, "time_us", time);
    if (frames_memo >= 0)
        pw_str(w, "frames"), pw_get(w, (uint32_t)frames_memo);
    pw_str(w, "compile_context"), pw_str(w, "N/A"), pw_str(w, "user_metadata"), pw_str(w, "");
    pw_dict_end(w);
}

/* The current-layout snapshot described in the comments of memory_snapshot_current_layout_reads_every_field. */
static void current_snapshot(pw *w, cur_memo *cm)
{
    pw_proto(w);
    pw_dict(w);
    pw_str(w, "segments"), pw_list(w);
    /* segment 0: device 0, large, 2 MiB at 0x10000 */
    pw_dict(w);
    w_kv_int(w, "device", 0), w_kv_int(w, "address", 0x10000), w_kv_int(w, "total_size", 2097152);
    w_kv_int(w, "allocated_size", 150), w_kv_int(w, "active_size", 150), w_kv_int(w, "requested_size", 150);
    w_kv_int(w, "stream", 0), pw_str(w, "segment_type"), pw_str(w, "large");
    pw_str(w, "segment_pool_id"), pw_int(w, 0), pw_int(w, 0), pw_u8(w, 0x86), pw_memoize(w);
    pw_str(w, "is_expandable"), pw_bool(w, 0);
    pw_str(w, "frames"), pw_ops(w, "]"), cm->empty = pw_memoize(w);
    pw_str(w, "blocks"), pw_list(w);
    {
        pw_dict(w);
        w_kv_int(w, "address", 0x10000), w_kv_int(w, "size", 100), w_kv_int(w, "requested_size", 100);
        pw_str(w, "state"), pw_str(w, "active_allocated"), pw_str(w, "frames");
        cm->s1 = pw_list(w);
        w_frame(w, "c10::cuda::CUDACachingAllocator::malloc", "CUDACachingAllocator.cpp", 0);
        w_frame(w, "linear", "/venv/lib/python3.11/site-packages/torch/nn/functional.py", 5);
        cm->f_user = w_frame(w, "forward", "/home/u/model.py", 54);
        w_frame(w, "main", "/home/u/train.py", 10);
        pw_list_end(w);
        pw_dict_end(w);
        w_block(w, 0x10064, 50, 50, "active_allocated", cm->empty);
        w_block(w, 0x10096, 2096998, 2096998, "inactive", cm->empty);
    }
    pw_list_end(w);
    pw_str(w, "mystery"), pw_list(w), pw_int(w, 1), pw_int(w, 2), pw_list_end(w);
    pw_dict_end(w);
    /* segment 1: device 0, small, 1 MiB free */
    pw_dict(w);
    w_kv_int(w, "device", 0), w_kv_int(w, "address", 0x900000), w_kv_int(w, "total_size", 1048576);
    w_kv_int(w, "allocated_size", 0), w_kv_int(w, "active_size", 0), w_kv_int(w, "requested_size", 0);
    w_kv_int(w, "stream", 0), pw_str(w, "segment_type"), pw_str(w, "small");
    pw_str(w, "blocks"), pw_list(w), w_block(w, 0x900000, 1048576, 0, "inactive", cm->empty), pw_list_end(w);
    pw_dict_end(w);
    /* segment 2: device 1, one block waiting on a stream */
    pw_dict(w);
    w_kv_int(w, "device", 1), w_kv_int(w, "address", 0x5000000), w_kv_int(w, "total_size", 4096);
    w_kv_int(w, "allocated_size", 0), w_kv_int(w, "active_size", 4096), w_kv_int(w, "requested_size", 0);
    pw_str(w, "segment_type"), pw_str(w, "large");
    pw_str(w, "blocks"), pw_list(w), w_block(w, 0x5000000, 4096, 4000, "active_pending_free", cm->s1),
        pw_list_end(w);
    pw_dict_end(w);
    pw_list_end(w); /* segments */

    pw_str(w, "device_traces"), pw_list(w);
    pw_list(w); /* device 0 */
    {
        pw_dict(w); /* a free whose alloc is older than the ring buffer */
        pw_str(w, "action"), pw_str(w, "free_completed"), w_kv_int(w, "addr", 0x20000), w_kv_int(w, "size", 30);
        w_kv_int(w, "stream", 0), w_kv_int(w, "time_us", 1000);
        pw_str(w, "frames"), pw_list(w), w_frame(w, "old", "/home/u/train.py", 5), pw_list_end(w);
        pw_dict_end(w);
        w_entry(w, "alloc", 0x10000, 100, 1001, cm->s1);
        pw_dict(w);
        pw_str(w, "action"), pw_str(w, "alloc"), w_kv_int(w, "addr", 0x30000), w_kv_int(w, "size", 200);
        w_kv_int(w, "stream", 0), w_kv_int(w, "time_us", 1002);
        pw_str(w, "frames"), cm->s4 = pw_list(w), w_frame(w, "attention", "/home/u/model.py", 77), pw_list_end(w);
        pw_dict_end(w);
        w_entry(w, "free_requested", 0x30000, 200, 1003, cm->s4);
        w_entry(w, "free_completed", 0x30000, 200, 1004, cm->s4);
        w_entry(w, "segment_alloc", 0x900000, 1048576, 1005, cm->empty);
        w_entry(w, "oom", 10, 500, 1006, cm->s1);
        w_entry(w, "alloc", 0x40000, 70, 1007, cm->s4);
        w_entry(w, "free_completed", 0x40000, 70, 1008, -1);
        w_entry(w, "annotate", 0, 0, 1009, -1);
    }
    pw_list_end(w);
    pw_list(w), pw_list_end(w); /* device 1: nothing recorded */
    pw_list_end(w);

    pw_str(w, "allocator_settings"), pw_dict(w);
    pw_str(w, "PYTORCH_CUDA_ALLOC_CONF"), pw_str(w, "expandable_segments:True");
    w_kv_int(w, "max_split_size", -1), pw_str(w, "garbage_collection_threshold"), pw_float(w, 0.5);
    pw_str(w, "expandable_segments"), pw_bool(w, 1);
    pw_str(w, "roundup_power2_divisions"), pw_dict(w), w_kv_int(w, "1", 0), w_kv_int(w, "2", 4),
        w_kv_int(w, "4", 0), pw_dict_end(w);
    pw_dict_end(w);
    pw_str(w, "external_annotations"), pw_list(w), pw_dict(w), w_kv_int(w, "x", 1), pw_dict_end(w), pw_int(w, 5),
        pw_list_end(w);
    pw_dict_end(w);
    pw_ops(w, ".");
}

static memory_model *read_ok(const pw *w)
{
    memory_model *m = NULL;
    nl_error err;
    if (memory_snapshot_read_mem(w->b, w->n, "t.pickle", NULL, &m, &err) != 0)
        fail_msg("read failed: %s at %lld field '%s': %s", nl_error_code_name(err.code), (long long)err.offset,
                 err.field, err.message);
    return m;
}

static const char *frame_text(const memory_model *m, uint32_t f, char *buf, size_t cap)
{
    if (f == MEMORY_SITE_NONE)
        return "-";
    const table *fr = memory_model_frames(m);
    snprintf(buf, cap, "%s:%lld:%s", memory_model_str(m, table_str(fr, MM_FR_FILENAME, f), NULL),
             (long long)table_i64(fr, MM_FR_LINE, f), memory_model_str(m, table_str(fr, MM_FR_NAME, f), NULL));
    return buf;
}

/* ---- reading ------------------------------------------------------------------------------------------ */

static void memory_snapshot_current_layout_reads_every_field(void **state)
{
    (void)state;
    pw w = {0};
    cur_memo cm;
    current_snapshot(&w, &cm);
    memory_model *m = read_ok(&w);
    const memory_model_info *in = memory_model_info_of(m);
    assert_int_equal(in->layout, MEMORY_LAYOUT_CURRENT);
    assert_int_equal(in->history, MEMORY_HISTORY_TRACE);
    assert_int_equal(in->trace_devices, 2);
    assert_int_equal(in->devices, 2);
    assert_int_equal(in->protocol, 4);
    assert_int_equal(in->file_bytes, w.n);
    assert_true(in->has_allocator_settings && in->has_external_annotations && in->has_compile_context);
    assert_int_equal(in->external_annotations, 2);

    const table *sg = memory_model_segments(m);
    assert_int_equal(table_rows(sg), 3);
    assert_int_equal(table_i64(sg, MM_SEG_ADDRESS, 0), 0x10000);
    assert_int_equal(table_i64(sg, MM_SEG_TOTAL_SIZE, 0), 2097152);
    assert_int_equal(table_u64(sg, MM_SEG_TYPE, 0), MM_SEGTYPE_LARGE);
    assert_int_equal(table_u64(sg, MM_SEG_TYPE, 1), MM_SEGTYPE_SMALL);
    assert_int_equal(table_u64(sg, MM_SEG_FIRST_BLOCK, 1), 3);
    assert_int_equal(table_u64(sg, MM_SEG_BLOCKS, 0), 3);
    assert_int_equal(table_i64(sg, MM_SEG_DEVICE, 2), 1);
    assert_int_equal(table_u64(sg, MM_SEG_FLAGS, 0) & (MM_SEG_F_POOL | MM_SEG_F_EXPANDABLE | MM_SEG_F_FRAMES),
                     MM_SEG_F_POOL | MM_SEG_F_EXPANDABLE | MM_SEG_F_FRAMES);
    assert_int_equal(table_u64(sg, MM_SEG_FLAGS, 1) & MM_SEG_F_POOL, 0);
    assert_int_equal(table_u64(sg, MM_SEG_FRAMES, 0), 0); /* the empty stack */

    const table *bl = memory_model_blocks(m);
    assert_int_equal(table_rows(bl), 5);
    assert_int_equal(table_i64(bl, MM_BLK_ADDRESS, 2), 0x10096);
    assert_int_equal(table_u64(bl, MM_BLK_STATE, 2), MM_BLOCK_INACTIVE);
    assert_int_equal(table_u64(bl, MM_BLK_STATE, 4), MM_BLOCK_ACTIVE_PENDING_FREE);
    assert_int_equal(table_u64(bl, MM_BLK_SEGMENT, 4), 2);
    uint32_t s1 = (uint32_t)table_u64(bl, MM_BLK_FRAMES, 0);
    assert_int_equal(table_u64(bl, MM_BLK_FRAMES, 4), s1); /* the same stack read back from the memo */
    uint32_t n;
    const uint32_t *fr = memory_model_stack(m, s1, &n);
    assert_int_equal(n, 4);
    char buf[256];
    assert_string_equal(frame_text(m, fr[2], buf, sizeof buf), "/home/u/model.py:54:forward");
    assert_int_equal(table_rows(memory_model_frames(m)), 6);
    assert_int_equal(memory_model_stack_count(m), 4); /* empty, s1, [old], [attention] */

    const table *tr = memory_model_trace(m);
    assert_int_equal(table_rows(tr), 10);
    size_t first, count;
    memory_model_trace_range(m, 0, &first, &count);
    assert_int_equal(first, 0);
    assert_int_equal(count, 10);
    memory_model_trace_range(m, 1, &first, &count);
    assert_int_equal(count, 0);
    assert_int_equal(table_u64(tr, MM_TR_ACTION, 6), MM_ACT_OOM);
    assert_int_equal(table_i64(tr, MM_TR_ADDR, 6), 10);
    assert_true(table_u64(tr, MM_TR_FLAGS, 6) & MM_TR_F_DEVICE_FREE);
    assert_int_equal(table_u64(tr, MM_TR_ACTION, 9), MM_ACT_OTHER);
    assert_int_equal(table_i64(tr, MM_TR_TIME_US, 2), 1002);
    assert_int_equal(table_u64(tr, MM_TR_FLAGS, 8) & MM_TR_F_FRAMES, 0);
    assert_string_equal(memory_model_str(m, table_str(tr, MM_TR_COMPILE_CONTEXT, 1), NULL), "N/A");

    const memory_settings *st = memory_model_settings(m);
    assert_true(st->present && st->has_expandable && st->expandable_segments);
    assert_int_equal(st->max_split_size, -1);
    assert_true(st->gc_threshold == 0.5);
    assert_string_equal(memory_model_str(m, st->alloc_conf, NULL), "expandable_segments:True");
    assert_int_equal(st->roundup_nonzero, 1);
    int64_t v;
    assert_int_equal(kvlist_get_i64(memory_model_settings_record(m), "roundup_power2_divisions.2", &v), 1);
    assert_int_equal(v, 4);

    assert_int_equal(memory_model_note_count(m), 2);
    const memory_note *n0 = memory_model_note_at(m, 0), *n1 = memory_model_note_at(m, 1);
    assert_int_equal(n0->kind, MM_NOTE_UNKNOWN_KEY);
    assert_string_equal(n0->where, "segment");
    assert_string_equal(memory_model_str(m, n0->name, NULL), "mystery");
    assert_int_equal(n1->kind, MM_NOTE_UNKNOWN_ACTION);
    assert_string_equal(memory_model_str(m, n1->name, NULL), "annotate");
    memory_model_free(m);
    pw_free(&w);
}

static void memory_snapshot_v2_0_layout_computes_addresses_from_the_segment(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w);
    pw_dict(&w);
    pw_str(&w, "segments"), pw_list(&w);
    pw_dict(&w);
    w_kv_int(&w, "device", 0), w_kv_int(&w, "address", 1000), w_kv_int(&w, "total_size", 300);
    w_kv_int(&w, "allocated_size", 100), w_kv_int(&w, "active_size", 100), w_kv_int(&w, "requested_size", 90);
    w_kv_int(&w, "stream", 0), pw_str(&w, "segment_type"), pw_str(&w, "large");
    pw_str(&w, "blocks"), pw_list(&w);
    pw_dict(&w);
    w_kv_int(&w, "size", 100), pw_str(&w, "state"), pw_str(&w, "active_allocated");
    pw_str(&w, "history"), pw_list(&w), pw_dict(&w), w_kv_int(&w, "addr", 1000), w_kv_int(&w, "real_size", 90);
    pw_str(&w, "frames"), pw_list(&w), w_frame(&w, "init_weight", "/home/d/flex_opt.py", 125), pw_list_end(&w);
    pw_dict_end(&w), pw_list_end(&w);
    pw_dict_end(&w);
    pw_dict(&w), w_kv_int(&w, "size", 200), pw_str(&w, "state"), pw_str(&w, "inactive"), pw_dict_end(&w);
    pw_list_end(&w);
    pw_dict_end(&w);
    pw_list_end(&w);
    pw_str(&w, "device_traces"), pw_list(&w), pw_list(&w), pw_dict(&w), pw_str(&w, "action"), pw_str(&w, "snapshot");
    w_kv_int(&w, "addr", 0), w_kv_int(&w, "size", 100), w_kv_int(&w, "stream", 0), pw_dict_end(&w);
    pw_list_end(&w), pw_list_end(&w);
    pw_dict_end(&w);
    pw_ops(&w, ".");
    memory_model *m = read_ok(&w);
    const memory_model_info *in = memory_model_info_of(m);
    assert_int_equal(in->layout, MEMORY_LAYOUT_V2_0);
    assert_int_equal(in->history, MEMORY_HISTORY_STATE);
    assert_false(in->has_allocator_settings);
    const table *bl = memory_model_blocks(m);
    assert_int_equal(table_i64(bl, MM_BLK_ADDRESS, 0), 1000);
    assert_int_equal(table_i64(bl, MM_BLK_ADDRESS, 1), 1100);
    assert_int_equal(table_i64(bl, MM_BLK_REQUESTED_SIZE, 0), 90); /* history[0].real_size */
    assert_int_equal(table_i64(bl, MM_BLK_REQUESTED_SIZE, 1), 200); /* no history: the size */
    assert_int_equal(table_u64(bl, MM_BLK_FLAGS, 0), MM_BLK_F_HISTORY);
    uint32_t n;
    memory_model_stack(m, (uint32_t)table_u64(bl, MM_BLK_FRAMES, 0), &n);
    assert_int_equal(n, 1);
    const table *h = memory_model_history(m);
    assert_int_equal(table_rows(h), 1);
    assert_int_equal(table_u64(h, MM_HIST_BLOCK, 0), 0);
    assert_int_equal(table_i64(h, MM_HIST_REAL_SIZE, 0), 90);
    const table *tr = memory_model_trace(m);
    assert_int_equal(table_u64(tr, MM_TR_ACTION, 0), MM_ACT_SNAPSHOT);
    assert_int_equal(table_u64(tr, MM_TR_FLAGS, 0) & MM_TR_F_TIME, 0);
    memory_model_free(m);
    pw_free(&w);
}

static void memory_snapshot_without_entries_has_no_history(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w);
    pw_dict(&w), pw_str(&w, "segments"), pw_list(&w), pw_list_end(&w);
    pw_str(&w, "device_traces"), pw_list(&w), pw_list(&w), pw_list_end(&w), pw_list(&w), pw_list_end(&w),
        pw_list_end(&w);
    pw_dict_end(&w), pw_ops(&w, ".");
    memory_model *m = read_ok(&w);
    assert_int_equal(memory_model_info_of(m)->history, MEMORY_HISTORY_NONE);
    assert_int_equal(memory_model_info_of(m)->trace_devices, 2);
    memory_summary *s;
    nl_error err;
    assert_int_equal(memory_summary_compute(m, NULL, NULL, &s, &err), 0);
    assert_int_equal(s->device_count, 0); /* neither device has segments or entries */
    memory_summary_free(s);
    memory_model_free(m);
    pw_free(&w);
}

/* ---- summary ------------------------------------------------------------------------------------------ */

static void memory_summary_replays_the_timeline_as_memoryviz(void **state)
{
    (void)state;
    pw w = {0};
    cur_memo cm;
    current_snapshot(&w, &cm);
    memory_model *m = read_ok(&w);
    memory_summary *s;
    nl_error err;
    assert_int_equal(memory_summary_compute(m, NULL, NULL, &s, &err), 0);
    assert_int_equal(s->device_count, 2);
    assert_true(s->settings.expandable_segments);
    assert_string_equal(s->alloc_conf, "expandable_segments:True");
    const memory_device *d0 = &s->devices[0];
    assert_int_equal(d0->device, 0);
    assert_int_equal(d0->total.reserved, 3145728);
    assert_int_equal(d0->pools[MM_SEGTYPE_LARGE].reserved, 2097152);
    assert_int_equal(d0->pools[MM_SEGTYPE_LARGE].block_allocated, 150);
    assert_int_equal(d0->pools[MM_SEGTYPE_LARGE].inactive, 2096998);
    assert_int_equal(d0->pools[MM_SEGTYPE_SMALL].inactive, 1048576);
    assert_int_equal(d0->total.largest_inactive, 2096998);
    assert_int_equal(d0->largest_inactive_pool, MM_SEGTYPE_LARGE);
    assert_int_equal(d0->trace_entries, 10);
    assert_int_equal(d0->actions[MM_ACT_ALLOC], 3);
    assert_int_equal(d0->first_time_us, 1000);
    assert_int_equal(d0->last_time_us, 1009);
    /* start: the free at row 0 (30, older than the window) + the block at 0x10064 (50) = 80;
     * rows: -30, +100, +200 (peak 350 at row 2), -200, oom (150 held), +70, -70 → end 150 */
    const memory_peak *pk = &d0->peak;
    assert_int_equal(pk->source, MEMORY_PEAK_TRACE);
    assert_int_equal(pk->start_bytes, 80);
    assert_int_equal(pk->bytes, 350);
    assert_int_equal(pk->row, 2);
    assert_true(pk->has_time);
    assert_int_equal(pk->time_us, 1002);
    assert_int_equal(pk->end_bytes, 150);
    assert_int_equal(pk->allocs, 3);
    assert_int_equal(pk->frees, 3);
    assert_int_equal(pk->frees_before_window, 1);
    assert_int_equal(pk->blocks_before_window, 1);
    char buf[256];
    assert_int_equal(pk->sites.count, 3);
    assert_int_equal(pk->sites.total_sites, 3);
    assert_string_equal(frame_text(m, pk->sites.top[0].frame, buf, sizeof buf), "/home/u/model.py:77:attention");
    assert_int_equal(pk->sites.top[0].bytes, 200);
    assert_true(pk->sites.top[0].user);
    assert_int_equal(pk->sites.top[0].via, MEMORY_SITE_NONE);
    assert_string_equal(frame_text(m, pk->sites.top[1].frame, buf, sizeof buf), "/home/u/model.py:54:forward");
    assert_string_equal(frame_text(m, pk->sites.top[1].via, buf, sizeof buf),
                        "/venv/lib/python3.11/site-packages/torch/nn/functional.py:5:linear");
    assert_int_equal(pk->sites.top[1].bytes, 100);
    assert_int_equal(pk->sites.top[2].frame, MEMORY_SITE_NONE);
    assert_int_equal(pk->sites.top[2].bytes, 50);
    assert_int_equal(pk->sites.other_bytes, 0);
    assert_int_equal(d0->oom_total, 1);
    assert_int_equal(d0->oom_count, 1);
    const memory_oom *o = &d0->ooms[0];
    assert_int_equal(o->row, 6);
    assert_int_equal(o->requested, 500);
    assert_int_equal(o->device_free, 10);
    assert_int_equal(o->allocated, 150);
    assert_int_equal(o->reserved, 3145728); /* the segment_alloc came before it */
    assert_true(o->fits_largest_free);
    assert_int_equal(o->sites.count, 2);
    assert_int_equal(o->sites.top[0].bytes, 100);
    assert_int_equal(o->sites.top[1].frame, MEMORY_SITE_NONE);
    /* device 1: no entries, its one block waits on a stream: nothing allocated */
    const memory_device *d1 = &s->devices[1];
    assert_int_equal(d1->peak.source, MEMORY_PEAK_AT_SNAPSHOT);
    assert_int_equal(d1->peak.bytes, 0);
    assert_int_equal(d1->total.pending_free, 4096);
    assert_int_equal(d1->total.pending_free_blocks, 1);
    assert_int_equal(s->total.reserved, 3145728 + 4096);
    memory_summary_free(s);
    memory_summary_options so = {.top_sites = 1};
    assert_int_equal(memory_summary_compute(m, &so, NULL, &s, &err), 0);
    assert_int_equal(s->devices[0].peak.sites.count, 1);
    assert_int_equal(s->devices[0].peak.sites.other_bytes, 150);
    assert_int_equal(s->devices[0].peak.sites.other_count, 2);
    memory_summary_free(s);
    so.top_sites = MEMORY_SUMMARY_SITES_MAX + 1;
    assert_int_equal(memory_summary_compute(m, &so, NULL, &s, &err), -1);
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    memory_model_free(m);
    pw_free(&w);
}

static void memory_summary_classifies_and_folds_frames(void **state)
{
    (void)state;
    pw w = {0};
    cur_memo cm;
    current_snapshot(&w, &cm);
    memory_model *m = read_ok(&w);
    const table *bl = memory_model_blocks(m);
    uint32_t s1 = (uint32_t)table_u64(bl, MM_BLK_FRAMES, 0), n;
    const uint32_t *fr = memory_model_stack(m, s1, &n);
    assert_int_equal(memory_frame_classify(m, fr[0]), MEMORY_FRAME_NATIVE);
    assert_int_equal(memory_frame_classify(m, fr[1]), MEMORY_FRAME_FRAMEWORK);
    assert_int_equal(memory_frame_classify(m, fr[2]), MEMORY_FRAME_USER);
    assert_int_equal(memory_frame_classify(m, fr[3]), MEMORY_FRAME_USER);
    uint32_t out[8];
    size_t user;
    assert_int_equal(memory_stack_fold(m, s1, out, 8, &user), 4);
    assert_int_equal(user, 2);
    assert_int_equal(out[0], fr[2]); /* user frames first, innermost first */
    assert_int_equal(out[1], fr[3]);
    assert_int_equal(out[2], fr[0]);
    assert_int_equal(out[3], fr[1]);
    uint32_t site, via;
    bool u;
    memory_stack_site(m, s1, &site, &u, &via);
    assert_int_equal(site, fr[2]);
    assert_true(u);
    assert_int_equal(via, fr[1]);
    memory_stack_site(m, 0, &site, &u, &via);
    assert_int_equal(site, MEMORY_SITE_NONE);
    memory_model_free(m);
    pw_free(&w);

    /* the rules on more paths: omitted frames, Windows paths, autograd nodes */
    pw_proto(&w);
    pw_dict(&w), pw_str(&w, "segments"), pw_list(&w), pw_dict(&w);
    w_kv_int(&w, "address", 0), w_kv_int(&w, "total_size", 10), pw_str(&w, "frames"), pw_list(&w);
    w_frame(&w, "torch::unwind::unwind()", "??", 0);
    w_frame(&w, "c10::cuda::CUDACachingAllocator::malloc", "??", 0);
    w_frame(&w, "torch::autograd::generated::MmBackward0::apply", "??", 0);
    w_frame(&w, "einsum", "D:\\env\\Lib\\site-packages\\einops\\einops.py", 9);
    w_frame(&w, "run", "<string>", 1);
    w_frame(&w, "_run_code", "/usr/lib/python3.10/runpy.py", 86);
    pw_list_end(&w);
    pw_str(&w, "blocks"), pw_list(&w), pw_list_end(&w), pw_dict_end(&w), pw_list_end(&w), pw_dict_end(&w);
    pw_ops(&w, ".");
    m = read_ok(&w);
    uint32_t s = (uint32_t)table_u64(memory_model_segments(m), MM_SEG_FRAMES, 0);
    fr = memory_model_stack(m, s, &n);
    assert_int_equal(n, 6);
    static const memory_frame_class want[] = {MEMORY_FRAME_OMITTED, MEMORY_FRAME_NATIVE, MEMORY_FRAME_NATIVE,
                                              MEMORY_FRAME_FRAMEWORK, MEMORY_FRAME_USER, MEMORY_FRAME_FRAMEWORK};
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(memory_frame_classify(m, fr[i]), want[i]);
    memory_stack_site(m, s, &site, &u, &via);
    assert_int_equal(site, fr[4]);
    assert_int_equal(via, fr[3]);
    memory_model_free(m);
    pw_free(&w);
}

/* ---- bad input ---------------------------------------------------------------------------------------- */

static void expect_fail(const pw *w, nl_error_code code, int64_t offset, const char *field, const char *words)
{
    memory_model *m = (memory_model *)1;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(memory_snapshot_read_mem(w->b, w->n, "bad.pickle", NULL, &m, &err), -1);
    assert_null(m);
    if (err.code != code || err.offset != offset || strcmp(err.field, field) || !strstr(err.message, words))
        fail_msg("want %s at %lld field '%s' '%s'; got %s at %lld field '%s': %s", nl_error_code_name(code),
                 (long long)offset, field, words, nl_error_code_name(err.code), (long long)err.offset, err.field,
                 err.message);
    assert_string_equal(err.source, "bad.pickle");
}

static void memory_snapshot_valid_pickles_that_are_not_snapshots(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w), pw_list(&w), pw_int(&w, 1), pw_list_end(&w), pw_ops(&w, ".");
    expect_fail(&w, NL_ERR_FORMAT, 2, "", "not a PyTorch memory snapshot: the pickle holds a list");
    pw_free(&w);
    pw_proto(&w), pw_int(&w, 7), pw_ops(&w, ".");
    expect_fail(&w, NL_ERR_FORMAT, 2, "", "the pickle holds a int");
    pw_free(&w);
    pw_proto(&w), pw_dict(&w), w_kv_int(&w, "a", 1), pw_str(&w, "b"), pw_str(&w, "x"), pw_dict_end(&w), pw_ops(&w, ".");
    expect_fail(&w, NL_ERR_FORMAT, (int64_t)w.n - 1, "segments", "no 'segments' list (its first keys: 'a', 'b')");
    pw_free(&w);
    pw_proto(&w), pw_dict(&w), pw_str(&w, "segments");
    int64_t at = (int64_t)w.n;
    pw_int(&w, 5), pw_dict_end(&w), pw_ops(&w, ".");
    char want[96];
    snprintf(want, sizeof want, "'segments' at byte %lld is a int, expected a list", (long long)at);
    expect_fail(&w, NL_ERR_FORMAT, at, "segments", want);
    pw_free(&w);
    pw_proto(&w), pw_dict(&w), pw_str(&w, "segments"), pw_list(&w);
    at = (int64_t)w.n;
    pw_int(&w, 3), pw_list_end(&w), pw_dict_end(&w), pw_ops(&w, ".");
    snprintf(want, sizeof want, "segments[0] at byte %lld is a int, expected a dict", (long long)at);
    expect_fail(&w, NL_ERR_FORMAT, at, "segments", want);
    pw_free(&w);
}

static void memory_snapshot_bad_fields_name_field_and_offset(void **state)
{
    (void)state;
    pw w = {0};
    /* a segment without total_size: offset of its dict */
    pw_proto(&w), pw_dict(&w), pw_str(&w, "segments"), pw_list(&w);
    size_t seg_at = w.n;
    pw_dict(&w), w_kv_int(&w, "address", 5), pw_str(&w, "blocks"), pw_list(&w), pw_list_end(&w), pw_dict_end(&w);
    pw_list_end(&w), pw_dict_end(&w), pw_ops(&w, ".");
    expect_fail(&w, NL_ERR_FORMAT, (int64_t)seg_at, "total_size", "has no int 'total_size'");
    pw_free(&w);
    /* a block state that is not a str */
    pw_proto(&w), pw_dict(&w), pw_str(&w, "segments"), pw_list(&w), pw_dict(&w), w_kv_int(&w, "address", 5);
    w_kv_int(&w, "total_size", 5), pw_str(&w, "blocks"), pw_list(&w), pw_dict(&w), w_kv_int(&w, "size", 5);
    pw_str(&w, "state");
    size_t state_at = w.n;
    pw_int(&w, 1), pw_dict_end(&w), pw_list_end(&w), pw_dict_end(&w), pw_list_end(&w), pw_dict_end(&w), pw_ops(&w, ".");
    expect_fail(&w, NL_ERR_FORMAT, (int64_t)state_at, "state", "a block's 'state' at byte");
    pw_free(&w);
    /* a key written twice */
    pw_proto(&w), pw_dict(&w), pw_str(&w, "segments"), pw_list(&w), pw_dict(&w), w_kv_int(&w, "address", 5);
    size_t dup_at = w.n + 9; /* after the key "address" */
    w_kv_int(&w, "address", 6), pw_dict_end(&w), pw_list_end(&w), pw_dict_end(&w), pw_ops(&w, ".");
    expect_fail(&w, NL_ERR_FORMAT, (int64_t)dup_at, "address", "key 'address' written twice in one segment dict");
    pw_free(&w);
    /* a trace entry without action */
    pw_proto(&w), pw_dict(&w), pw_str(&w, "segments"), pw_list(&w), pw_list_end(&w);
    pw_str(&w, "device_traces"), pw_list(&w), pw_list(&w);
    size_t ent_at = w.n;
    pw_dict(&w), w_kv_int(&w, "size", 1), pw_dict_end(&w), pw_list_end(&w), pw_list_end(&w), pw_dict_end(&w);
    pw_ops(&w, ".");
    expect_fail(&w, NL_ERR_FORMAT, (int64_t)ent_at, "action", "has no 'action'");
    pw_free(&w);
    /* a code-running opcode inside an otherwise fine snapshot */
    pw_proto(&w), pw_dict(&w), pw_str(&w, "segments"), pw_list(&w);
    size_t bad_at = w.n;
    pw_ops(&w, "cos\nsystem\n"), pw_list_end(&w), pw_dict_end(&w), pw_ops(&w, ".");
    expect_fail(&w, NL_ERR_UNSUPPORTED, (int64_t)bad_at, "", "opcode GLOBAL (0x63)");
    pw_free(&w);
    /* a known field with a value of the wrong type is noted and read as absent */
    pw_proto(&w), pw_dict(&w), pw_str(&w, "segments"), pw_list(&w), pw_dict(&w), w_kv_int(&w, "address", 5);
    w_kv_int(&w, "total_size", 5), pw_str(&w, "stream"), pw_str(&w, "s0"), pw_str(&w, "blocks"), pw_list(&w),
        pw_list_end(&w);
    pw_dict_end(&w), pw_list_end(&w), pw_dict_end(&w), pw_ops(&w, ".");
    memory_model *m = read_ok(&w);
    assert_int_equal(table_u64(memory_model_segments(m), MM_SEG_FLAGS, 0) & MM_SEG_F_STREAM, 0);
    assert_int_equal(memory_model_note_count(m), 1);
    assert_int_equal(memory_model_note_at(m, 0)->kind, MM_NOTE_BAD_VALUE);
    memory_model_free(m);
    pw_free(&w);
}

static void memory_snapshot_every_prefix_is_truncated(void **state)
{
    (void)state;
    pw w = {0};
    cur_memo cm;
    current_snapshot(&w, &cm);
    for (size_t len = 0; len + 1 < w.n; len++) {
        unsigned char *p = malloc(len ? len : 1);
        memcpy(p, w.b, len);
        memory_model *m;
        nl_error err;
        assert_int_equal(memory_snapshot_read_mem(p, len, "cut.pickle", NULL, &m, &err), -1);
        if (err.code != NL_ERR_TRUNCATED)
            fail_msg("prefix %zu: %s: %s", len, nl_error_code_name(err.code), err.message);
        assert_true(err.offset >= 0 && (size_t)err.offset <= len);
        free(p);
    }
    pw_free(&w);
}

static void memory_snapshot_memory_cap_is_nomem(void **state)
{
    (void)state;
    pw w = {0};
    cur_memo cm;
    current_snapshot(&w, &cm);
    memory_snapshot_options opt = {.memory_limit = 4096};
    memory_model *m;
    nl_error err;
    assert_int_equal(memory_snapshot_read_mem(w.b, w.n, "cap.pickle", &opt, &m, &err), -1);
    assert_int_equal(err.code, NL_ERR_NOMEM);
    assert_string_equal(err.source, "cap.pickle");
    opt.memory_limit = 64 << 20;
    assert_int_equal(memory_snapshot_read_mem(w.b, w.n, "cap.pickle", &opt, &m, &err), 0);
    assert_true(memory_model_bytes(m) < (64 << 20));
    memory_model_free(m);
    pw_free(&w);
}

/* ---- the trace list (trace-extract kind memory: the timeline adapter timeline_memory) ------------------- */

/* Two devices of pseudo-random entries: sizes with ties, times with ties, every 50th entry without time. */
static void trace_snapshot(pw *w, size_t n0, size_t n1)
{
    static const char *const acts[] = {"alloc", "free_requested", "free_completed", "segment_alloc", "oom",
                                       "segment_free", "alloc", "free_completed"};
    uint64_t x = 12345;
    pw_proto(w);
    pw_dict(w), pw_str(w, "segments"), pw_list(w), pw_list_end(w);
    pw_str(w, "device_traces"), pw_list(w);
    for (int d = 0; d < 2; d++) {
        pw_list(w);
        int64_t t = 1700000000000000 + d;
        for (size_t i = 0; i < (d ? n1 : n0); i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            t += (int64_t)((x >> 40) % 3);
            pw_dict(w);
            pw_str(w, "action"), pw_str(w, acts[(x >> 20) % 8]);
            w_kv_int(w, "addr", (int64_t)((x >> 8) % 4096) * 512), w_kv_int(w, "size", (int64_t)((x >> 30) % 64) * 256);
            w_kv_int(w, "stream", 0);
            if (i % 50 != 7)
                w_kv_int(w, "time_us", t);
            pw_dict_end(w);
        }
        pw_list_end(w);
    }
    pw_list_end(w), pw_dict_end(w), pw_ops(w, ".");
}

typedef struct want_ctx {
    const memory_model *m;
    timeline_sort sort;
} want_ctx;

/* The engine's order, written independently: time = (time, row); bytes = (size descending, time, row). */
static row_order_key key_of(const memory_model *m, timeline_sort sort, size_t r)
{
    const table *t = memory_model_trace(m);
    row_order_key k = {0, table_i64(t, MM_TR_TIME_US, r) * 1000, r};
    if (sort == TIMELINE_SORT_BYTES)
        k.value = table_i64(t, MM_TR_SIZE, r);
    return k;
}

static int want_cmp(const void *a, const void *b, void *ctx)
{
    const want_ctx *wc = ctx;
    row_order_key ka = key_of(wc->m, wc->sort, *(const size_t *)a);
    row_order_key kb = key_of(wc->m, wc->sort, *(const size_t *)b);
    return row_order_key_cmp(&ka, &kb, NULL);
}

/* Entries without time are never timeline rows; each entry is an instant at time_us × 1000. */
static bool want_match(const memory_model *m, const timeline_filter *f, const bool *acts, int64_t device, size_t r)
{
    const table *t = memory_model_trace(m);
    if (!(table_u64(t, MM_TR_FLAGS, r) & MM_TR_F_TIME))
        return false;
    if (f->opcode_glob && !acts[table_u64(t, MM_TR_ACTION, r)])
        return false;
    if (device >= 0 && table_u64(t, MM_TR_DEVICE, r) != (uint64_t)device)
        return false;
    if (table_i64(t, MM_TR_SIZE, r) < f->min_bytes)
        return false;
    int64_t ns = table_i64(t, MM_TR_TIME_US, r) * 1000;
    if (f->has_start && f->has_end && f->start_ns == f->end_ns)
        return ns == f->start_ns;
    return (!f->has_start || ns >= f->start_ns) && (!f->has_end || ns < f->end_ns);
}

static void memory_timeline_pages_concatenate_to_the_sorted_filtered_list(void **state)
{
    (void)state;
    pw w = {0};
    trace_snapshot(&w, 700, 500);
    memory_model *m = read_ok(&w);
    const table *t = memory_model_trace(m);
    size_t rows = table_rows(t);
    assert_int_equal(rows, 1200);
    timeline_source src = {&timeline_memory, m};
    int64_t t0 = 1700000000000000ll * 1000;
    struct {
        const char *opcode;
        bool acts[MM_ACT_COUNT];
        const char *engine;
        int64_t device;
        int64_t min_bytes;
        bool has_start, has_end;
        int64_t start, end;
    } cases[] = {
        {.device = -1},
        {.opcode = "alloc, OOM", .acts = {[MM_ACT_ALLOC] = true, [MM_ACT_OOM] = true}, .device = -1},
        {.opcode = "free_*", .acts = {[MM_ACT_FREE_REQUESTED] = true, [MM_ACT_FREE_COMPLETED] = true}, .device = -1},
        {.engine = "device1", .device = 1, .min_bytes = 8000},
        {.device = -1, .has_start = true, .start = t0 + 200000, .has_end = true, .end = t0 + 400000},
        {.device = -1, .has_start = true, .start = t0 + 300000},
        {.opcode = "free_completed", .acts = {[MM_ACT_FREE_COMPLETED] = true}, .engine = "0", .device = 0,
         .has_end = true, .end = t0 + 600000},
        {.device = -1, .min_bytes = 16000}, /* a sparse filter (ranked by keys on the ordered path) */
    };
    size_t *want = malloc(rows * sizeof *want);
    const timeline_sort sorts[] = {TIMELINE_SORT_TIME, TIMELINE_SORT_BYTES};
    for (size_t si = 0; si < 2; si++) {
        timeline_sort sort = sorts[si];
        timeline_order *o;
        nl_error err;
        assert_int_equal(timeline_order_build(&src, sort, NULL, &o, &err), 0);
        for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            timeline_filter f = {.engine = cases[ci].engine, .opcode_glob = cases[ci].opcode,
                                 .min_bytes = cases[ci].min_bytes, .has_start = cases[ci].has_start,
                                 .has_end = cases[ci].has_end, .start_ns = cases[ci].start, .end_ns = cases[ci].end};
            size_t nw = 0;
            for (size_t r = 0; r < rows; r++)
                if (want_match(m, &f, cases[ci].acts, cases[ci].device, r))
                    want[nw++] = r;
            assert_true(nw > 0);
            want_ctx wc = {m, sort};
            qsort_r(want, nw, sizeof *want, want_cmp, &wc);
            for (int ordered = 0; ordered <= 1; ordered++) {
                timeline_request req = {.filter = f, .sort = sort, .limit = 7, .order = ordered ? o : NULL};
                size_t got = 0;
                for (;;) {
                    timeline_page p;
                    if (timeline_run(&src, &req, NULL, &p, &err) != 0)
                        fail_msg("case %zu sort %d: %s", ci, (int)sort, err.message);
                    assert_int_equal(p.total, nw);
                    assert_int_equal(p.after_cursor, nw - got);
                    for (size_t i = 0; i < p.count; i++)
                        assert_int_equal(p.rows[i], want[got + i]);
                    got += p.count;
                    bool more = p.more;
                    if (p.count)
                        req.has_after = true, req.after_row = p.rows[p.count - 1];
                    timeline_page_free(&p);
                    if (!more)
                        break;
                }
                assert_int_equal(got, nw);
            }
            int64_t counts[TIMELINE_FILTER_COUNT];
            timeline_request req = {.filter = f, .sort = sort, .limit = 1};
            assert_int_equal(timeline_explain(&src, &req, NULL, counts, &err), 0);
            assert_int_equal(counts[TIMELINE_F_OPCODE] >= 0, f.opcode_glob != NULL);
            assert_int_equal(counts[TIMELINE_F_MIN_BYTES] >= 0, f.min_bytes > 0);
        }
        timeline_order_free(o);
    }
    /* the rows left out: every 50th entry of each device has no time */
    timeline_counts k;
    nl_error err;
    assert_int_equal(timeline_count(&src, NULL, &k, &err), 0);
    assert_int_equal(k.left_out[0], 14 + 10);
    assert_int_equal(k.eligible, 1200 - 24);
    free(want);
    memory_model_free(m);
    pw_free(&w);
}

static void memory_timeline_run_error(const timeline_source *src, timeline_request req, const char *field,
                                      const char *text)
{
    timeline_page p;
    nl_error err;
    assert_int_equal(timeline_run(src, &req, NULL, &p, &err), -1);
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    assert_string_equal(err.field, field);
    if (text && !strstr(err.message, text))
        fail_msg("'%s' lacks '%s'", err.message, text);
}

static void memory_timeline_cells_and_argument_errors(void **state)
{
    (void)state;
    pw w = {0};
    cur_memo cm;
    current_snapshot(&w, &cm);
    memory_model *m = read_ok(&w);
    timeline_source src = {&timeline_memory, m};
    char scratch[TIMELINE_SCRATCH];
    timeline_cell c;
#define CELL(name, row) timeline_cell_get(&src, timeline_column_find(&timeline_memory, name), row, scratch, &c)
    CELL("site", 1);
    assert_int_equal(c.kind, TIMELINE_CELL_STR);
    assert_string_equal(c.s, "/home/u/model.py:54:forward");
    CELL("time_ns", 2);
    assert_int_equal(c.kind, TIMELINE_CELL_INT);
    assert_int_equal(c.i, 1002000);
    CELL("action", 6);
    assert_string_equal(c.s, "oom");
    CELL("addr", 6);
    assert_int_equal(c.i, 10); /* device_free */
    CELL("frames", 1);
    assert_int_equal(c.u, 4);
    CELL("site", 8);
    assert_int_equal(c.kind, TIMELINE_CELL_NULL); /* no frames */
    CELL("compile_context", 1);
    assert_string_equal(c.s, "N/A");
#undef CELL
    assert_int_equal(timeline_column_find(&timeline_memory, "nope"), -1);

    memory_timeline_run_error(&src, (timeline_request){.limit = 5, .filter = {.opcode_glob = "alloc,bogus"}}, "opcode",
                              "'bogus' matches no action");
    memory_timeline_run_error(&src, (timeline_request){.limit = 5, .filter = {.engine = "device7"}}, "engine",
                              "device 7 has no trace");
    memory_timeline_run_error(&src, (timeline_request){.limit = 5, .filter = {.engine = "gpu"}}, "engine", "device<N>");
    memory_timeline_run_error(&src, (timeline_request){.limit = 0}, "max_rows", NULL);
    memory_timeline_run_error(&src, (timeline_request){.limit = 5, .has_after = true, .after_row = 10}, "cursor", NULL);
    memory_timeline_run_error(&src, (timeline_request){.limit = 5, .filter = {.has_start = true, .start_ns = 5,
                              .has_end = true, .end_ns = 4}}, "end_ns", NULL);
    memory_timeline_run_error(&src, (timeline_request){.limit = 5, .sort = TIMELINE_SORT_DURATION}, "sort",
                              "accepted: time, bytes");
    memory_timeline_run_error(&src, (timeline_request){.limit = 5, .filter = {.min_duration_ns = 3}}, "min_duration_ns",
                              "kind memory accepts");
    timeline_order *o;
    nl_error err;
    timeline_page p;
    assert_int_equal(timeline_order_build(&src, TIMELINE_SORT_TIME, NULL, &o, &err), 0);
    timeline_request req = {.limit = 5, .sort = TIMELINE_SORT_BYTES, .order = o};
    assert_int_equal(timeline_run(&src, &req, NULL, &p, &err), -1);
    assert_int_equal(err.code, NL_ERR_INTERNAL);
    timeline_order_free(o);
    memory_model_free(m);
    pw_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memory_snapshot_current_layout_reads_every_field),
        cmocka_unit_test(memory_snapshot_v2_0_layout_computes_addresses_from_the_segment),
        cmocka_unit_test(memory_snapshot_without_entries_has_no_history),
        cmocka_unit_test(memory_summary_replays_the_timeline_as_memoryviz),
        cmocka_unit_test(memory_summary_classifies_and_folds_frames),
        cmocka_unit_test(memory_snapshot_valid_pickles_that_are_not_snapshots),
        cmocka_unit_test(memory_snapshot_bad_fields_name_field_and_offset),
        cmocka_unit_test(memory_snapshot_every_prefix_is_truncated),
        cmocka_unit_test(memory_snapshot_memory_cap_is_nomem),
        cmocka_unit_test(memory_timeline_pages_concatenate_to_the_sorted_filtered_list),
        cmocka_unit_test(memory_timeline_cells_and_argument_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
