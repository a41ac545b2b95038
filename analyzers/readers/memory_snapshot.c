/* memory_snapshot — see memory_snapshot.h. A path-driven handler over pickle.h's events.
 *
 * The file (PyTorch torch/csrc/cuda/memory_snapshot.cpp builds the dict, torch.cuda.memory._dump_snapshot
 * pickles it with Python's pickle, protocol 4 in every sample; all keys are str):
 *
 *   {                                          (the root: a dict; anything else is not a snapshot)
 *     "segments": [ segment, ... ]             required; all devices in one list
 *     "device_traces": [ [entry, ...], ... ]   one list per device (a ring buffer); [] per device when
 *                                              history was not recorded
 *     "allocator_settings": {str: scalar | {str: int}}   ≥ 2.1; kept as a flat record
 *     "external_annotations": [ ... ]          newest; counted, not kept
 *   }
 *   segment = {device, address, total_size, allocated_size, active_size, requested_size: int,
 *              stream: int, segment_type: "large" | "small", segment_pool_id: (int, int) (≥ 2.1),
 *              is_expandable: bool (≥ 2.1), frames: [frame] (where it was cudaMalloc'd; ≥ 2.1),
 *              blocks: [block, ...]}                           address and total_size required
 *   block   = {address: int (≥ 2.1; in 2.0 the segment address plus the sizes of the blocks before it),
 *              size: int, requested_size: int, state: "active_allocated" | "active_pending_free" | "inactive",
 *              frames: [frame] (≥ 2.1), history: [{addr, real_size, frames}] (2.0 only)}   size, state required
 *   entry   = {action: str, addr: int (device_free: int for "oom"), size: int, stream: int, time_us: int,
 *              frames: [frame], compile_context: str, user_metadata: str (newest)}        action required
 *   frame   = {name: str, filename: str, line: int}
 *
 * Sharing: PyTorch symbolizes each distinct traceback once, so the same frame dict and the same frames list
 * appear many times; Python's pickler writes them once and reads them back from the memo (BINGET). The
 * handler interns a frame dict at its end (tag = frame id) and a frames list (tag = stack id), so a memo
 * reference resolves in O(1) and nothing is stored twice. `forward_frames` lists are interned the same
 * way (a frame first seen there may be read back later) but not kept.
 * Unknown keys are skipped and noted; a known key of the wrong type is noted and read as absent, except
 * where the model needs it (listed in memory_snapshot.h). A segment's blocks are buffered until its dict
 * ends, so its address may come before or after them. */
#include "memory_snapshot.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pickle.h"
#include "rdfile.h"

#define MS_TAG_FRAME ((uint64_t)1 << 32)
#define MS_TAG_STACK ((uint64_t)2 << 32)
#define MS_TAG_ID(t) ((uint32_t)((t) & 0xffffffffu))
#define MS_TAG_KIND(t) ((t) & ~(uint64_t)0xffffffffu)
/* Nesting of the snapshot's own structure (top, segments, segment, blocks, block, history, entry, frames,
 * frame = 9); anything deeper is skipped before it is entered. */
#define MS_DEPTH 12

typedef enum ms_kind {
    MS_TOP, MS_SEGMENTS, MS_SEGMENT, MS_POOL, MS_BLOCKS, MS_BLOCK, MS_HISTORY, MS_HIST_ENTRY, MS_FRAMES,
    MS_FRAME, MS_TRACES, MS_TRACE, MS_ENTRY, MS_SETTINGS, MS_SETTINGS_SUB, MS_EXTERNAL,
} ms_kind;

static const char *const ms_where[] = {
    [MS_TOP] = "top", [MS_SEGMENTS] = "segments", [MS_SEGMENT] = "segment", [MS_POOL] = "segment_pool_id",
    [MS_BLOCKS] = "blocks", [MS_BLOCK] = "block", [MS_HISTORY] = "history", [MS_HIST_ENTRY] = "history",
    [MS_FRAMES] = "frames", [MS_FRAME] = "frame", [MS_TRACES] = "device_traces", [MS_TRACE] = "device trace",
    [MS_ENTRY] = "trace entry", [MS_SETTINGS] = "allocator_settings", [MS_SETTINGS_SUB] = "allocator_settings",
    [MS_EXTERNAL] = "external_annotations",
};

enum ms_key {
    K_SEGMENTS, K_DEVICE_TRACES, K_ALLOCATOR_SETTINGS, K_EXTERNAL_ANNOTATIONS, K_DEVICE, K_ADDRESS, K_TOTAL_SIZE,
    K_ALLOCATED_SIZE, K_ACTIVE_SIZE, K_REQUESTED_SIZE, K_STREAM, K_SEGMENT_TYPE, K_SEGMENT_POOL_ID,
    K_IS_EXPANDABLE, K_FRAMES, K_BLOCKS, K_SIZE, K_STATE, K_HISTORY, K_ADDR, K_REAL_SIZE, K_ACTION, K_TIME_US,
    K_COMPILE_CONTEXT, K_USER_METADATA, K_DEVICE_FREE, K_NAME, K_FILENAME, K_LINE, K_FORWARD_FRAMES, K_COUNT,
    K_UNKNOWN = K_COUNT,
};

static const char *const ms_key_names[K_COUNT] = {
    "segments", "device_traces", "allocator_settings", "external_annotations", "device", "address", "total_size",
    "allocated_size", "active_size", "requested_size", "stream", "segment_type", "segment_pool_id",
    "is_expandable", "frames", "blocks", "size", "state", "history", "addr", "real_size", "action", "time_us",
    "compile_context", "user_metadata", "device_free", "name", "filename", "line", "forward_frames",
};

typedef struct ms_level {
    ms_kind kind;
    int key;           /* dict: enum ms_key of the current key (K_UNKNOWN for others) */
    uint32_t key_id;   /* dict: strtab id of the current key, 0 when it is not a str */
    uint64_t seen;     /* dict: bit per known key already read */
    uint64_t items;    /* list/tuple: items so far */
    int frames_for;    /* MS_FRAMES: the record kind that gets the stack, -1 = none (forward_frames) */
    int64_t offset;
} ms_level;

typedef struct ms_seg {
    int64_t device, address, total, allocated, active, requested, stream, pool[2];
    uint32_t type_name, frames, flags;
    uint8_t type;
    bool expandable, has_address, has_total;
    int64_t offset;
} ms_seg;

typedef struct ms_blk {
    int64_t address, size, requested;
    uint32_t frames, flags;
    uint8_t state;
    bool has_size, has_state;
    bool h0;           /* history[0] seen */
    int64_t h0_real;
    uint32_t h0_frames;
    bool h0_has_real, h0_has_frames;
    int64_t offset;
} ms_blk;

typedef struct ms_hist {
    size_t block; /* index in the segment's buffer */
    int64_t addr, real_size;
    uint32_t frames;
    bool has_real, has_frames;
    int64_t offset;
} ms_hist;

typedef struct ms_entry {
    int64_t addr, size, stream, time;
    uint32_t frames, cc, um, flags;
    uint8_t action;
    bool has_action;
    int64_t offset;
} ms_entry;

typedef struct ms_frame {
    uint32_t name, filename;
    int64_t line;
} ms_frame;

typedef struct ms_reader {
    memory_model *m;
    strtab *st;
    memory_model_info *info;
    const char *path;
    uint8_t *key_of; /* strtab id → enum ms_key + 1 (0 = not a known key), for ids < key_of_n */
    uint32_t key_of_n;
    uint32_t id_large, id_small, state_ids[MM_BLOCK_OTHER], action_ids[MM_ACT_OTHER];
    ms_level lv[MS_DEPTH];
    int depth;
    bool have_segments;
    ms_seg seg;
    ms_blk blk;
    ms_hist hist;
    ms_entry ent;
    ms_frame fr;
    ms_blk *blks;
    size_t nblks, blks_cap;
    ms_hist *hists;
    size_t nhists, hists_cap;
    uint32_t *stack;
    uint32_t nstack;
    size_t stack_cap;
    uint32_t next_device;
    uint32_t top_keys[6];
    unsigned ntop_keys;
} ms_reader;

/* ---- helpers ------------------------------------------------------------------------------------------ */

static int ms_fail(ms_reader *r, nl_error *err, int64_t off, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int ms_fail(ms_reader *r, nl_error *err, int64_t off, const char *field, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nl_error_set(err, NL_ERR_FORMAT, r->path, off, "%s", msg);
    if (field)
        nl_error_set_field(err, field);
    return -1;
}

static const char *ms_str(const ms_reader *r, uint32_t id)
{
    const char *s = strtab_str(r->st, id, NULL);
    return s ? s : "";
}

static const char *ms_kind_word(const pickle_value *v)
{
    return pickle_kind_name(v->kind);
}

static int ms_grow(void **buf, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 32;
    while (nc < need)
        nc *= 2;
    void *p = realloc(*buf, nc * size);
    if (!p)
        return -1;
    *buf = p;
    *cap = nc;
    return 0;
}

static int ms_nomem(ms_reader *r, nl_error *err, int64_t off)
{
    return nl_error_set(err, NL_ERR_NOMEM, r->path, off, "out of memory reading the memory snapshot");
}

/* Note a skipped or unusable value; 0 (skip the value if it is a container). */
static int ms_note(ms_reader *r, memory_note_kind kind, const ms_level *L, uint32_t name, int64_t off, nl_error *err)
{
    return memory_model_add_note(r->m, kind, ms_where[L->kind], name, off, err);
}

/* An int field: 1 and *out when v is an int, else noted and 0. */
static int ms_int(ms_reader *r, const ms_level *L, const pickle_value *v, int64_t *out, nl_error *err)
{
    if (v->kind == PICKLE_INT) {
        *out = v->i;
        return 1;
    }
    if (ms_note(r, v->kind == PICKLE_BIGINT ? MM_NOTE_BIG_INT : MM_NOTE_BAD_VALUE, L, L->key_id, v->offset, err) != 0)
        return -1;
    return 0;
}

static int ms_push(ms_reader *r, ms_kind kind, int64_t off, nl_error *err)
{
    if (r->depth >= MS_DEPTH)
        return nl_error_set(err, NL_ERR_INTERNAL, r->path, off, "memory snapshot reader nested too deep");
    ms_level *L = &r->lv[r->depth++];
    memset(L, 0, sizeof *L);
    L->kind = kind;
    L->key = K_UNKNOWN;
    L->frames_for = -1;
    L->offset = off;
    return PICKLE_VISIT;
}

/* ---- stacks ------------------------------------------------------------------------------------------- */

static void ms_set_frames(ms_reader *r, int kind, uint32_t stack)
{
    switch (kind) {
    case MS_SEGMENT: r->seg.frames = stack, r->seg.flags |= MM_SEG_F_FRAMES; break;
    case MS_BLOCK: r->blk.frames = stack, r->blk.flags |= MM_BLK_F_FRAMES; break;
    case MS_HIST_ENTRY: r->hist.frames = stack, r->hist.has_frames = true; break;
    case MS_ENTRY: r->ent.frames = stack, r->ent.flags |= MM_TR_F_FRAMES; break;
    default: break;
    }
}

/* The value of a `frames` (or `forward_frames`) key of a record of kind `owner` (-1: not kept). */
static int ms_frames_value(ms_reader *r, const ms_level *L, const pickle_value *v, int owner, nl_error *err)
{
    if (v->kind == PICKLE_LIST && !v->ref) {
        r->nstack = 0;
        int rc = ms_push(r, MS_FRAMES, v->offset, err);
        if (rc > 0)
            r->lv[r->depth - 1].frames_for = owner;
        return rc;
    }
    if (v->kind == PICKLE_LIST && v->ref && MS_TAG_KIND(v->tag) == MS_TAG_STACK) {
        ms_set_frames(r, owner, MS_TAG_ID(v->tag));
        return 0;
    }
    if (v->kind == PICKLE_LIST && v->ref)
        return ms_fail(r, err, v->offset, "frames", "frames at byte %lld repeat a list this reader did not keep "
                       "(it contains itself or was first written under an unknown key)", (long long)v->offset);
    if (ms_note(r, MM_NOTE_BAD_VALUE, L, L->key_id, v->offset, err) != 0)
        return -1;
    return PICKLE_SKIP;
}

/* ---- values in dicts ---------------------------------------------------------------------------------- */

static int ms_top_value(ms_reader *r, ms_level *L, const pickle_value *v, nl_error *err)
{
    switch (L->key) {
    case K_SEGMENTS:
        if (v->kind != PICKLE_LIST || v->ref)
            return ms_fail(r, err, v->offset, "segments", "not a PyTorch memory snapshot: 'segments' at byte %lld "
                           "is a %s, expected a list", (long long)v->offset, ms_kind_word(v));
        r->have_segments = true;
        return ms_push(r, MS_SEGMENTS, v->offset, err);
    case K_DEVICE_TRACES:
        if (v->kind != PICKLE_LIST || v->ref)
            return ms_fail(r, err, v->offset, "device_traces", "not a PyTorch memory snapshot: 'device_traces' at "
                           "byte %lld is a %s, expected a list", (long long)v->offset, ms_kind_word(v));
        r->info->has_device_traces = true;
        return ms_push(r, MS_TRACES, v->offset, err);
    case K_ALLOCATOR_SETTINGS:
        if (v->kind == PICKLE_DICT && !v->ref) {
            r->info->has_allocator_settings = true;
            if (!memory_model_settings_mut(r->m, err))
                return -1;
            return ms_push(r, MS_SETTINGS, v->offset, err);
        }
        break;
    case K_EXTERNAL_ANNOTATIONS:
        if (v->kind == PICKLE_LIST && !v->ref) {
            r->info->has_external_annotations = true;
            return ms_push(r, MS_EXTERNAL, v->offset, err);
        }
        break;
    default:
        return ms_note(r, MM_NOTE_UNKNOWN_KEY, L, L->key_id, v->offset, err);
    }
    return ms_note(r, MM_NOTE_BAD_VALUE, L, L->key_id, v->offset, err);
}

static int ms_segment_value(ms_reader *r, ms_level *L, const pickle_value *v, nl_error *err)
{
    ms_seg *s = &r->seg;
    int64_t x;
    int rc;
    switch (L->key) {
    case K_DEVICE: case K_ADDRESS: case K_TOTAL_SIZE: case K_ALLOCATED_SIZE: case K_ACTIVE_SIZE:
    case K_REQUESTED_SIZE: case K_STREAM:
        rc = ms_int(r, L, v, &x, err);
        if (rc <= 0)
            return rc;
        switch (L->key) {
        case K_DEVICE: s->device = x, s->flags |= MM_SEG_F_DEVICE; break;
        case K_ADDRESS: s->address = x, s->has_address = true; break;
        case K_TOTAL_SIZE: s->total = x, s->has_total = true; break;
        case K_ALLOCATED_SIZE: s->allocated = x, s->flags |= MM_SEG_F_ALLOCATED; break;
        case K_ACTIVE_SIZE: s->active = x, s->flags |= MM_SEG_F_ACTIVE; break;
        case K_REQUESTED_SIZE: s->requested = x, s->flags |= MM_SEG_F_REQUESTED; break;
        default: s->stream = x, s->flags |= MM_SEG_F_STREAM; break;
        }
        return 0;
    case K_SEGMENT_TYPE:
        if (v->kind != PICKLE_STR)
            break;
        s->type_name = v->str;
        s->type = v->str == r->id_large ? MM_SEGTYPE_LARGE : v->str == r->id_small ? MM_SEGTYPE_SMALL
                                                                                   : MM_SEGTYPE_OTHER;
        s->flags |= MM_SEG_F_TYPE;
        return 0;
    case K_SEGMENT_POOL_ID:
        if ((v->kind == PICKLE_TUPLE || v->kind == PICKLE_LIST) && !v->ref)
            return ms_push(r, MS_POOL, v->offset, err);
        break;
    case K_IS_EXPANDABLE:
        if (v->kind != PICKLE_BOOL && v->kind != PICKLE_INT)
            break;
        s->expandable = v->i != 0;
        s->flags |= MM_SEG_F_EXPANDABLE;
        return 0;
    case K_FRAMES: return ms_frames_value(r, L, v, MS_SEGMENT, err);
    case K_BLOCKS:
        if (v->kind != PICKLE_LIST || v->ref)
            return ms_fail(r, err, v->offset, "blocks", "a segment's 'blocks' at byte %lld is a %s, expected a list",
                           (long long)v->offset, ms_kind_word(v));
        return ms_push(r, MS_BLOCKS, v->offset, err);
    default:
        return ms_note(r, MM_NOTE_UNKNOWN_KEY, L, L->key_id, v->offset, err);
    }
    return ms_note(r, MM_NOTE_BAD_VALUE, L, L->key_id, v->offset, err);
}

static int ms_block_value(ms_reader *r, ms_level *L, const pickle_value *v, nl_error *err)
{
    ms_blk *b = &r->blk;
    int64_t x;
    int rc;
    switch (L->key) {
    case K_ADDRESS: case K_SIZE: case K_REQUESTED_SIZE:
        rc = ms_int(r, L, v, &x, err);
        if (rc <= 0)
            return rc;
        if (L->key == K_ADDRESS)
            b->address = x, b->flags |= MM_BLK_F_ADDRESS;
        else if (L->key == K_SIZE)
            b->size = x, b->has_size = true;
        else
            b->requested = x, b->flags |= MM_BLK_F_REQUESTED;
        return 0;
    case K_STATE: {
        if (v->kind != PICKLE_STR)
            return ms_fail(r, err, v->offset, "state", "a block's 'state' at byte %lld is a %s, expected a str",
                           (long long)v->offset, ms_kind_word(v));
        b->state = MM_BLOCK_OTHER;
        for (int k = 0; k < MM_BLOCK_OTHER; k++)
            if (v->str == r->state_ids[k])
                b->state = (uint8_t)k;
        b->has_state = true;
        if (b->state == MM_BLOCK_OTHER)
            return ms_note(r, MM_NOTE_UNKNOWN_STATE, L, v->str, v->offset, err);
        return 0;
    }
    case K_FRAMES: return ms_frames_value(r, L, v, MS_BLOCK, err);
    case K_HISTORY:
        if (v->kind == PICKLE_LIST && !v->ref) {
            b->flags |= MM_BLK_F_HISTORY;
            return ms_push(r, MS_HISTORY, v->offset, err);
        }
        break;
    default:
        return ms_note(r, MM_NOTE_UNKNOWN_KEY, L, L->key_id, v->offset, err);
    }
    return ms_note(r, MM_NOTE_BAD_VALUE, L, L->key_id, v->offset, err);
}

static int ms_hist_value(ms_reader *r, ms_level *L, const pickle_value *v, nl_error *err)
{
    int64_t x;
    int rc;
    switch (L->key) {
    case K_ADDR: case K_REAL_SIZE:
        rc = ms_int(r, L, v, &x, err);
        if (rc <= 0)
            return rc;
        if (L->key == K_ADDR)
            r->hist.addr = x;
        else
            r->hist.real_size = x, r->hist.has_real = true;
        return 0;
    case K_FRAMES: return ms_frames_value(r, L, v, MS_HIST_ENTRY, err);
    default:
        return ms_note(r, MM_NOTE_UNKNOWN_KEY, L, L->key_id, v->offset, err);
    }
}

static int ms_entry_value(ms_reader *r, ms_level *L, const pickle_value *v, nl_error *err)
{
    ms_entry *e = &r->ent;
    int64_t x;
    int rc;
    switch (L->key) {
    case K_ACTION:
        if (v->kind != PICKLE_STR)
            return ms_fail(r, err, v->offset, "action", "a trace entry's 'action' at byte %lld is a %s, expected a "
                           "str", (long long)v->offset, ms_kind_word(v));
        e->action = MM_ACT_OTHER;
        for (int k = 0; k < MM_ACT_OTHER; k++)
            if (v->str == r->action_ids[k])
                e->action = (uint8_t)k;
        e->has_action = true;
        if (e->action == MM_ACT_OTHER)
            return ms_note(r, MM_NOTE_UNKNOWN_ACTION, L, v->str, v->offset, err);
        return 0;
    case K_ADDR: case K_DEVICE_FREE: case K_SIZE: case K_STREAM: case K_TIME_US:
        rc = ms_int(r, L, v, &x, err);
        if (rc <= 0)
            return rc;
        switch (L->key) {
        case K_ADDR: e->addr = x, e->flags |= MM_TR_F_ADDR; break;
        case K_DEVICE_FREE: e->addr = x, e->flags |= MM_TR_F_ADDR | MM_TR_F_DEVICE_FREE; break;
        case K_SIZE: e->size = x, e->flags |= MM_TR_F_SIZE; break;
        case K_STREAM: e->stream = x, e->flags |= MM_TR_F_STREAM; break;
        default: e->time = x, e->flags |= MM_TR_F_TIME; break;
        }
        return 0;
    case K_FRAMES: return ms_frames_value(r, L, v, MS_ENTRY, err);
    case K_FORWARD_FRAMES: return ms_frames_value(r, L, v, -1, err);
    case K_COMPILE_CONTEXT: case K_USER_METADATA:
        if (v->kind != PICKLE_STR)
            break;
        if (L->key == K_COMPILE_CONTEXT) {
            e->cc = v->str, e->flags |= MM_TR_F_COMPILE_CONTEXT;
            r->info->has_compile_context = true;
        } else {
            e->um = v->str, e->flags |= MM_TR_F_USER_METADATA;
            r->info->has_user_metadata = true;
        }
        return 0;
    default:
        return ms_note(r, MM_NOTE_UNKNOWN_KEY, L, L->key_id, v->offset, err);
    }
    return ms_note(r, MM_NOTE_BAD_VALUE, L, L->key_id, v->offset, err);
}

static int ms_frame_value(ms_reader *r, ms_level *L, const pickle_value *v, nl_error *err)
{
    switch (L->key) {
    case K_NAME: case K_FILENAME:
        if (v->kind != PICKLE_STR)
            break;
        if (L->key == K_NAME)
            r->fr.name = v->str;
        else
            r->fr.filename = v->str;
        return 0;
    case K_LINE:
        if (v->kind != PICKLE_INT)
            break;
        r->fr.line = v->i;
        return 0;
    default:
        return ms_note(r, MM_NOTE_UNKNOWN_KEY, L, L->key_id, v->offset, err);
    }
    return ms_note(r, MM_NOTE_BAD_VALUE, L, L->key_id, v->offset, err);
}

/* allocator_settings: scalars become entries; a nested dict's scalars become "outer.inner" entries. */
static int ms_settings_value(ms_reader *r, ms_level *L, const pickle_value *v, nl_error *err)
{
    if (!L->key_id)
        return ms_note(r, MM_NOTE_BAD_VALUE, L, 0, v->offset, err);
    uint32_t key = L->key_id;
    if (L->kind == MS_SETTINGS_SUB) {
        const ms_level *up = &r->lv[r->depth - 2];
        char buf[512];
        int n = snprintf(buf, sizeof buf, "%s.%s", ms_str(r, up->key_id), ms_str(r, L->key_id));
        if (n < 0 || (size_t)n >= sizeof buf)
            return ms_note(r, MM_NOTE_BAD_VALUE, L, L->key_id, v->offset, err);
        if (strtab_intern(r->st, buf, (size_t)n, &key, err) != 0)
            return -1;
    } else if (v->kind == PICKLE_DICT && !v->ref) {
        return ms_push(r, MS_SETTINGS_SUB, v->offset, err);
    }
    kvlist_entry e = {.key = key};
    switch (v->kind) {
    case PICKLE_NONE: e.kind = KVLIST_NULL; break;
    case PICKLE_BOOL: e.kind = KVLIST_BOOL, e.i = v->i, e.num = (double)v->i; break;
    case PICKLE_INT: e.kind = KVLIST_INT, e.i = v->i, e.num = (double)v->i; break;
    case PICKLE_FLOAT: e.kind = KVLIST_DOUBLE, e.num = v->f; break;
    case PICKLE_STR: e.kind = KVLIST_STRING, e.text = v->str; break;
    default: e.kind = KVLIST_COMPOUND; break;
    }
    kvlist *kv = memory_model_settings_mut(r->m, err);
    if (!kv || kvlist_set(kv, &e, err) != 0)
        return -1;
    return PICKLE_SKIP;
}

static int ms_dict_value(ms_reader *r, ms_level *L, const pickle_value *v, nl_error *err)
{
    if (L->key < K_COUNT && L->kind != MS_SETTINGS && L->kind != MS_SETTINGS_SUB) {
        uint64_t bit = (uint64_t)1 << L->key;
        if (L->seen & bit)
            return ms_fail(r, err, v->offset, ms_key_names[L->key], "key '%s' written twice in one %s dict (at byte "
                           "%lld)", ms_key_names[L->key], ms_where[L->kind], (long long)v->offset);
        L->seen |= bit;
    }
    switch (L->kind) {
    case MS_TOP: return ms_top_value(r, L, v, err);
    case MS_SEGMENT: return ms_segment_value(r, L, v, err);
    case MS_BLOCK: return ms_block_value(r, L, v, err);
    case MS_HIST_ENTRY: return ms_hist_value(r, L, v, err);
    case MS_ENTRY: return ms_entry_value(r, L, v, err);
    case MS_FRAME: return ms_frame_value(r, L, v, err);
    case MS_SETTINGS: case MS_SETTINGS_SUB: return ms_settings_value(r, L, v, err);
    default: break;
    }
    return nl_error_set(err, NL_ERR_INTERNAL, r->path, v->offset, "memory snapshot: a dict value in a list context");
}

/* ---- items of lists ----------------------------------------------------------------------------------- */

static int ms_list_item(ms_reader *r, ms_level *L, const pickle_value *v, nl_error *err)
{
    uint64_t i = L->items++;
    bool dict = v->kind == PICKLE_DICT && !v->ref;
    switch (L->kind) {
    case MS_SEGMENTS:
        if (!dict)
            return ms_fail(r, err, v->offset, "segments", "segments[%llu] at byte %lld is a %s, expected a dict",
                           (unsigned long long)i, (long long)v->offset, ms_kind_word(v));
        memset(&r->seg, 0, sizeof r->seg);
        r->seg.offset = v->offset;
        r->nblks = r->nhists = 0;
        return ms_push(r, MS_SEGMENT, v->offset, err);
    case MS_BLOCKS:
        if (!dict)
            return ms_fail(r, err, v->offset, "blocks", "blocks[%llu] at byte %lld is a %s, expected a dict",
                           (unsigned long long)i, (long long)v->offset, ms_kind_word(v));
        memset(&r->blk, 0, sizeof r->blk);
        r->blk.offset = v->offset;
        return ms_push(r, MS_BLOCK, v->offset, err);
    case MS_HISTORY:
        if (!dict)
            return ms_fail(r, err, v->offset, "history", "history[%llu] at byte %lld is a %s, expected a dict",
                           (unsigned long long)i, (long long)v->offset, ms_kind_word(v));
        memset(&r->hist, 0, sizeof r->hist);
        r->hist.offset = v->offset;
        return ms_push(r, MS_HIST_ENTRY, v->offset, err);
    case MS_TRACES:
        if (v->kind != PICKLE_LIST || v->ref)
            return ms_fail(r, err, v->offset, "device_traces", "device_traces[%llu] at byte %lld is a %s, expected "
                           "a list of its own", (unsigned long long)i, (long long)v->offset, ms_kind_word(v));
        if (memory_model_begin_device(r->m, (uint32_t)i, err) != 0)
            return -1;
        r->info->trace_devices = (uint32_t)i + 1;
        return ms_push(r, MS_TRACE, v->offset, err);
    case MS_TRACE:
        if (!dict)
            return ms_fail(r, err, v->offset, "device_traces", "device_traces[%u][%llu] at byte %lld is a %s, "
                           "expected a dict", r->info->trace_devices - 1, (unsigned long long)i, (long long)v->offset,
                           ms_kind_word(v));
        memset(&r->ent, 0, sizeof r->ent);
        r->ent.offset = v->offset;
        return ms_push(r, MS_ENTRY, v->offset, err);
    case MS_FRAMES:
        if (dict) {
            memset(&r->fr, 0, sizeof r->fr);
            return ms_push(r, MS_FRAME, v->offset, err);
        }
        if (v->kind == PICKLE_DICT && v->ref && MS_TAG_KIND(v->tag) == MS_TAG_FRAME) {
            if (ms_grow((void **)&r->stack, &r->stack_cap, (size_t)r->nstack + 1, sizeof *r->stack) != 0)
                return ms_nomem(r, err, v->offset);
            r->stack[r->nstack++] = MS_TAG_ID(v->tag);
            return 0;
        }
        return ms_fail(r, err, v->offset, "frames", "a frame at byte %lld is a %s%s, expected a dict", (long long)v->offset,
                       v->ref ? "reference to a " : "", ms_kind_word(v));
    case MS_POOL:
        if (v->kind == PICKLE_INT && i < 2)
            r->seg.pool[i] = v->i;
        return 0;
    case MS_EXTERNAL:
        r->info->external_annotations++;
        return PICKLE_SKIP;
    default: break;
    }
    return nl_error_set(err, NL_ERR_INTERNAL, r->path, v->offset, "memory snapshot: a list item in a dict context");
}

/* ---- ends --------------------------------------------------------------------------------------------- */

static int ms_end_block(ms_reader *r, nl_error *err)
{
    ms_blk *b = &r->blk;
    if (!b->has_size)
        return ms_fail(r, err, b->offset, "size", "the block at byte %lld has no int 'size'", (long long)b->offset);
    if (!b->has_state)
        return ms_fail(r, err, b->offset, "state", "the block at byte %lld has no 'state'", (long long)b->offset);
    if (!(b->flags & MM_BLK_F_REQUESTED))
        b->requested = b->h0_has_real ? b->h0_real : b->size;
    if (!(b->flags & MM_BLK_F_FRAMES) && b->h0_has_frames)
        b->frames = b->h0_frames;
    if (r->nblks >= MEMORY_SNAPSHOT_BLOCKS_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, r->path, b->offset, "a segment with more than %zu blocks",
                            (size_t)MEMORY_SNAPSHOT_BLOCKS_MAX);
    if (ms_grow((void **)&r->blks, &r->blks_cap, r->nblks + 1, sizeof *r->blks) != 0)
        return ms_nomem(r, err, b->offset);
    r->blks[r->nblks++] = *b;
    return 0;
}

static int ms_end_hist(ms_reader *r, nl_error *err)
{
    ms_hist *h = &r->hist;
    h->block = r->nblks; /* the block being read gets the next slot */
    if (!r->blk.h0) { /* history[0] stands in for a 2.0 block's missing frames and requested size */
        r->blk.h0 = true;
        r->blk.h0_has_real = h->has_real;
        r->blk.h0_real = h->real_size;
        r->blk.h0_has_frames = h->has_frames;
        r->blk.h0_frames = h->frames;
    }
    if (r->nhists >= MEMORY_SNAPSHOT_BLOCKS_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, r->path, h->offset, "a segment with more than %zu history entries",
                            (size_t)MEMORY_SNAPSHOT_BLOCKS_MAX);
    if (ms_grow((void **)&r->hists, &r->hists_cap, r->nhists + 1, sizeof *r->hists) != 0)
        return ms_nomem(r, err, h->offset);
    r->hists[r->nhists++] = *h;
    return 0;
}

static int ms_end_segment(ms_reader *r, nl_error *err)
{
    ms_seg *s = &r->seg;
    if (!s->has_address)
        return ms_fail(r, err, s->offset, "address", "the segment at byte %lld has no int 'address'",
                       (long long)s->offset);
    if (!s->has_total)
        return ms_fail(r, err, s->offset, "total_size", "the segment at byte %lld has no int 'total_size'",
                       (long long)s->offset);
    const table *blks = memory_model_blocks(r->m);
    size_t first = table_rows(blks);
    size_t seg_row = table_rows(memory_model_segments(r->m));
    int64_t addr = s->address;
    for (size_t k = 0; k < r->nblks; k++) {
        ms_blk *b = &r->blks[k];
        if (!(b->flags & MM_BLK_F_ADDRESS))
            b->address = addr;
        addr = (int64_t)((uint64_t)addr + (uint64_t)b->size);
        table_value row[MM_BLK_NCOLS];
        row[MM_BLK_SEGMENT].u = seg_row;
        row[MM_BLK_ADDRESS].i = b->address;
        row[MM_BLK_SIZE].i = b->size;
        row[MM_BLK_REQUESTED_SIZE].i = b->requested;
        row[MM_BLK_STATE].u = b->state;
        row[MM_BLK_FRAMES].u = b->frames;
        row[MM_BLK_FLAGS].u = b->flags;
        row[MM_BLK_OFFSET].i = b->offset;
        if (memory_model_append_block(r->m, row, err) != 0)
            return -1;
    }
    for (size_t k = 0; k < r->nhists; k++) {
        const ms_hist *h = &r->hists[k];
        table_value row[MM_HIST_NCOLS];
        row[MM_HIST_BLOCK].u = first + h->block;
        row[MM_HIST_ADDR].i = h->addr;
        row[MM_HIST_REAL_SIZE].i = h->real_size;
        row[MM_HIST_FRAMES].u = h->frames;
        row[MM_HIST_OFFSET].i = h->offset;
        if (memory_model_append_history(r->m, row, err) != 0)
            return -1;
    }
    table_value row[MM_SEG_NCOLS];
    row[MM_SEG_DEVICE].i = s->device;
    row[MM_SEG_ADDRESS].i = s->address;
    row[MM_SEG_TOTAL_SIZE].i = s->total;
    row[MM_SEG_ALLOCATED_SIZE].i = s->allocated;
    row[MM_SEG_ACTIVE_SIZE].i = s->active;
    row[MM_SEG_REQUESTED_SIZE].i = s->requested;
    row[MM_SEG_STREAM].i = s->stream;
    row[MM_SEG_TYPE].u = s->type;
    row[MM_SEG_TYPE_NAME].s = s->type_name;
    row[MM_SEG_POOL_A].i = s->pool[0];
    row[MM_SEG_POOL_B].i = s->pool[1];
    row[MM_SEG_EXPANDABLE].u = s->expandable;
    row[MM_SEG_FRAMES].u = s->frames;
    row[MM_SEG_FIRST_BLOCK].u = first;
    row[MM_SEG_BLOCKS].u = r->nblks;
    row[MM_SEG_FLAGS].u = s->flags;
    row[MM_SEG_OFFSET].i = s->offset;
    return memory_model_append_segment(r->m, row, err);
}

static int ms_end_entry(ms_reader *r, nl_error *err)
{
    ms_entry *e = &r->ent;
    if (!e->has_action)
        return ms_fail(r, err, e->offset, "action", "the trace entry at byte %lld has no 'action'",
                       (long long)e->offset);
    table_value row[MM_TR_NCOLS];
    row[MM_TR_DEVICE].u = r->info->trace_devices - 1;
    row[MM_TR_ACTION].u = e->action;
    row[MM_TR_ADDR].i = e->addr;
    row[MM_TR_SIZE].i = e->size;
    row[MM_TR_STREAM].i = e->stream;
    row[MM_TR_TIME_US].i = e->time;
    row[MM_TR_FRAMES].u = e->frames;
    row[MM_TR_COMPILE_CONTEXT].s = e->cc;
    row[MM_TR_USER_METADATA].s = e->um;
    row[MM_TR_FLAGS].u = e->flags;
    row[MM_TR_OFFSET].i = e->offset;
    return memory_model_append_trace(r->m, row, err);
}

static int ms_end_top(ms_reader *r, int64_t offset, nl_error *err)
{
    if (r->have_segments)
        return 0;
    char keys[160] = "";
    size_t used = 0;
    for (unsigned k = 0; k < r->ntop_keys && used < sizeof keys; k++) {
        int n = snprintf(keys + used, sizeof keys - used, "%s'%.30s'", k ? ", " : "", ms_str(r, r->top_keys[k]));
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return ms_fail(r, err, offset, "segments", "not a PyTorch memory snapshot: the top dict has no 'segments' list "
                   "(its first keys: %s)", r->ntop_keys ? keys : "none");
}

static int ms_end(void *ctx, int64_t offset, uint64_t *tag, nl_error *err)
{
    ms_reader *r = ctx;
    ms_level L = r->lv[--r->depth];
    switch (L.kind) {
    case MS_TOP: return ms_end_top(r, offset, err);
    case MS_SEGMENT: return ms_end_segment(r, err);
    case MS_BLOCK: return ms_end_block(r, err);
    case MS_HIST_ENTRY: return ms_end_hist(r, err);
    case MS_ENTRY: return ms_end_entry(r, err);
    case MS_FRAME: {
        uint32_t id;
        if (memory_model_intern_frame(r->m, r->fr.name, r->fr.filename, r->fr.line, &id, err) != 0)
            return -1;
        *tag = MS_TAG_FRAME | id;
        if (ms_grow((void **)&r->stack, &r->stack_cap, (size_t)r->nstack + 1, sizeof *r->stack) != 0)
            return ms_nomem(r, err, offset);
        r->stack[r->nstack++] = id;
        return 0;
    }
    case MS_FRAMES: {
        uint32_t id;
        if (memory_model_intern_stack(r->m, r->stack, r->nstack, &id, err) != 0)
            return -1;
        *tag = MS_TAG_STACK | id;
        ms_set_frames(r, L.frames_for, id);
        return 0;
    }
    case MS_POOL:
        if (L.items >= 2)
            r->seg.flags |= MM_SEG_F_POOL;
        return 0;
    default: return 0;
    }
}

static int ms_value(void *ctx, pickle_role role, const pickle_value *v, nl_error *err)
{
    ms_reader *r = ctx;
    if (r->depth == 0) {
        if (v->kind != PICKLE_DICT || v->ref)
            return ms_fail(r, err, v->offset, NULL, "not a PyTorch memory snapshot: the pickle holds a %s, expected "
                           "a dict with 'segments' and 'device_traces'", ms_kind_word(v));
        return ms_push(r, MS_TOP, v->offset, err);
    }
    ms_level *L = &r->lv[r->depth - 1];
    if (role == PICKLE_KEY) {
        L->key_id = v->kind == PICKLE_STR ? v->str : 0;
        L->key = K_UNKNOWN;
        if (v->kind == PICKLE_STR && v->str < r->key_of_n && r->key_of[v->str])
            L->key = r->key_of[v->str] - 1;
        if (L->kind == MS_TOP && r->ntop_keys < sizeof r->top_keys / sizeof r->top_keys[0] && L->key_id)
            r->top_keys[r->ntop_keys++] = L->key_id;
        return PICKLE_SKIP; /* a tuple key is not entered */
    }
    if (role == PICKLE_VALUE)
        return ms_dict_value(r, L, v, err);
    return ms_list_item(r, L, v, err);
}

/* ---- entry points ------------------------------------------------------------------------------------- */

static int ms_intern(ms_reader *r, const char *s, uint32_t *id, nl_error *err)
{
    return strtab_intern(r->st, s, strlen(s), id, err);
}

static int ms_init(ms_reader *r, const char *name, const memory_snapshot_options *opt, nl_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = name;
    r->m = memory_model_new(opt ? opt->memory_limit : 0, err);
    if (!r->m)
        return -1;
    r->st = memory_model_strtab_mut(r->m);
    r->info = memory_model_info_mut(r->m);
    uint32_t ids[K_COUNT], max = 0;
    for (int k = 0; k < K_COUNT; k++) {
        if (ms_intern(r, ms_key_names[k], &ids[k], err) != 0)
            return -1;
        if (ids[k] > max)
            max = ids[k];
    }
    r->key_of_n = max + 1;
    r->key_of = calloc(r->key_of_n, 1);
    if (!r->key_of)
        return ms_nomem(r, err, -1);
    for (int k = 0; k < K_COUNT; k++)
        r->key_of[ids[k]] = (uint8_t)(k + 1);
    if (ms_intern(r, "large", &r->id_large, err) != 0 || ms_intern(r, "small", &r->id_small, err) != 0)
        return -1;
    for (int k = 0; k < MM_BLOCK_OTHER; k++)
        if (ms_intern(r, memory_block_state_name((memory_block_state)k), &r->state_ids[k], err) != 0)
            return -1;
    for (int k = 0; k < MM_ACT_OTHER; k++)
        if (ms_intern(r, memory_action_name((memory_action)k), &r->action_ids[k], err) != 0)
            return -1;
    return 0;
}

static void ms_close(ms_reader *r)
{
    free(r->key_of);
    free(r->blks);
    free(r->hists);
    free(r->stack);
}

typedef int (*ms_read_fn)(void *src, strtab *st, const pickle_handler *h, void *ctx, const pickle_options *opt,
                          pickle_stats *stats, nl_error *err);

static int ms_run(ms_read_fn read, void *src, const char *name, const memory_snapshot_options *opt,
                  memory_model **out, nl_error *err)
{
    *out = NULL;
    ms_reader r;
    if (ms_init(&r, name, opt, err) != 0) {
        if (err && err->source[0] == 0 && name)
            snprintf(err->source, sizeof err->source, "%s", name);
        memory_model_free(r.m);
        ms_close(&r);
        return -1;
    }
    pickle_handler h = {.value = ms_value, .end = ms_end};
    pickle_options po = {.source = name, .cancel = opt ? opt->cancel : NULL, .read_size = opt ? opt->read_size : 0};
    pickle_stats ps;
    int rc = read(src, r.st, &h, &r, &po, &ps, err);
    if (rc == 0) {
        r.info->protocol = ps.protocol;
        r.info->file_bytes = ps.bytes;
        rc = memory_model_finish(r.m, err);
    }
    if (rc != 0 && err && err->source[0] == 0 && name)
        snprintf(err->source, sizeof err->source, "%s", name); /* model errors carry no path */
    ms_close(&r);
    if (rc != 0) {
        memory_model_free(r.m);
        return -1;
    }
    *out = r.m;
    return 0;
}

typedef struct ms_mem {
    const void *data;
    size_t len;
} ms_mem;

static int ms_read_mem_fn(void *src, strtab *st, const pickle_handler *h, void *ctx, const pickle_options *opt,
                          pickle_stats *stats, nl_error *err)
{
    const ms_mem *m = src;
    return pickle_read_mem(m->data, m->len, st, h, ctx, opt, stats, err);
}

static int ms_read_fd_fn(void *src, strtab *st, const pickle_handler *h, void *ctx, const pickle_options *opt,
                         pickle_stats *stats, nl_error *err)
{
    return pickle_read_fd(*(const int *)src, st, h, ctx, opt, stats, err);
}

int memory_snapshot_read_mem(const void *data, size_t len, const char *name, const memory_snapshot_options *opt,
                             memory_model **out, nl_error *err)
{
    ms_mem m = {.data = data, .len = len};
    return ms_run(ms_read_mem_fn, &m, name, opt, out, err);
}

int memory_snapshot_read_fd(int fd, const char *name, const memory_snapshot_options *opt, memory_model **out,
                            nl_error *err)
{
    return ms_run(ms_read_fd_fn, &fd, name, opt, out, err);
}

int memory_snapshot_read(const char *path, const memory_snapshot_options *opt, memory_model **out, nl_error *err)
{
    int fd;
    uint64_t size;
    *out = NULL;
    if (rdfile_open(path, &fd, &size, err) != 0)
        return -1;
    int rc = memory_snapshot_read_fd(fd, path, opt, out, err);
    close(fd);
    return rc;
}
