/* memory_model — see memory_model.h.
 *
 * Layout: one arena; in it the strtab, the five tables (schemas below), the settings kvlist, the two hash
 * indexes (frames by value, stacks by content) and the notes. Three growable arrays live outside it, in
 * malloc'd memory counted against the model's limit: the frame triples (for the frame index), the stack
 * table (first frame and length per stack) and the pool of frame ids all stacks are cut from. They grow by
 * doubling; an arena could not hand back the old copies.
 *
 * Costs: a block row ~12-20 B (address deltas within a segment are small), a trace row ~20-30 B (time_us
 * and addr deltas, 1-2 B codes), a stack 12 B plus 4 B per frame — and stacks are shared: the real
 * snapshots have 63-3443 distinct stacks for 20-5163 rows that refer to them. */
#include "memory_model.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "hashtab.h"

static const table_column mm_seg_cols[MM_SEG_NCOLS] = {
    [MM_SEG_DEVICE] = {"device", TABLE_INT},
    [MM_SEG_ADDRESS] = {"address", TABLE_INT},
    [MM_SEG_TOTAL_SIZE] = {"total_size", TABLE_INT},
    [MM_SEG_ALLOCATED_SIZE] = {"allocated_size", TABLE_INT},
    [MM_SEG_ACTIVE_SIZE] = {"active_size", TABLE_INT},
    [MM_SEG_REQUESTED_SIZE] = {"requested_size", TABLE_INT},
    [MM_SEG_STREAM] = {"stream", TABLE_INT},
    [MM_SEG_TYPE] = {"segment_type", TABLE_UINT},
    [MM_SEG_TYPE_NAME] = {"segment_type_name", TABLE_STR},
    [MM_SEG_POOL_A] = {"pool_a", TABLE_INT},
    [MM_SEG_POOL_B] = {"pool_b", TABLE_INT},
    [MM_SEG_EXPANDABLE] = {"is_expandable", TABLE_UINT},
    [MM_SEG_FRAMES] = {"frames", TABLE_UINT},
    [MM_SEG_FIRST_BLOCK] = {"first_block", TABLE_UINT},
    [MM_SEG_BLOCKS] = {"blocks", TABLE_UINT},
    [MM_SEG_FLAGS] = {"flags", TABLE_UINT},
    [MM_SEG_OFFSET] = {"offset", TABLE_INT},
};

static const table_column mm_blk_cols[MM_BLK_NCOLS] = {
    [MM_BLK_SEGMENT] = {"segment", TABLE_UINT},
    [MM_BLK_ADDRESS] = {"address", TABLE_INT},
    [MM_BLK_SIZE] = {"size", TABLE_INT},
    [MM_BLK_REQUESTED_SIZE] = {"requested_size", TABLE_INT},
    [MM_BLK_STATE] = {"state", TABLE_UINT},
    [MM_BLK_FRAMES] = {"frames", TABLE_UINT},
    [MM_BLK_FLAGS] = {"flags", TABLE_UINT},
    [MM_BLK_OFFSET] = {"offset", TABLE_INT},
};

static const table_column mm_hist_cols[MM_HIST_NCOLS] = {
    [MM_HIST_BLOCK] = {"block", TABLE_UINT},
    [MM_HIST_ADDR] = {"addr", TABLE_INT},
    [MM_HIST_REAL_SIZE] = {"real_size", TABLE_INT},
    [MM_HIST_FRAMES] = {"frames", TABLE_UINT},
    [MM_HIST_OFFSET] = {"offset", TABLE_INT},
};

static const table_column mm_tr_cols[MM_TR_NCOLS] = {
    [MM_TR_DEVICE] = {"device", TABLE_UINT},
    [MM_TR_ACTION] = {"action", TABLE_UINT},
    [MM_TR_ADDR] = {"addr", TABLE_INT},
    [MM_TR_SIZE] = {"size", TABLE_INT},
    [MM_TR_STREAM] = {"stream", TABLE_INT},
    [MM_TR_TIME_US] = {"time_us", TABLE_INT},
    [MM_TR_FRAMES] = {"frames", TABLE_UINT},
    [MM_TR_COMPILE_CONTEXT] = {"compile_context", TABLE_STR},
    [MM_TR_USER_METADATA] = {"user_metadata", TABLE_STR},
    [MM_TR_FLAGS] = {"flags", TABLE_UINT},
    [MM_TR_OFFSET] = {"offset", TABLE_INT},
};

static const table_column mm_fr_cols[MM_FR_NCOLS] = {
    [MM_FR_NAME] = {"name", TABLE_STR},
    [MM_FR_FILENAME] = {"filename", TABLE_STR},
    [MM_FR_LINE] = {"line", TABLE_INT},
};

typedef struct mm_frame {
    uint32_t name, filename;
    int64_t line;
} mm_frame;

typedef struct mm_stack_key {
    const uint32_t *ids;
    uint32_t n;
} mm_stack_key;

struct memory_model {
    arena *arena;
    size_t limit;
    strtab *strings;
    table *segs, *blks, *hist, *trace, *frames;
    kvlist *settings_kv;
    memory_settings settings;
    memory_model_info info;

    mm_frame *frame_vals; /* by frame id */
    size_t frame_cap;
    hashtab frame_index;

    uint64_t *stack_first; /* by stack id: first index in stack_pool */
    uint32_t *stack_len;
    uint32_t nstacks;
    size_t stack_cap;
    uint32_t *stack_pool;
    size_t pool_n, pool_cap;
    hashtab stack_index;
    size_t heap_bytes; /* the malloc'd arrays above */

    size_t *trace_first, *trace_count; /* by device, MEMORY_MODEL_DEVICES_MAX entries */
    uint32_t last_device;
    bool device_begun;

    memory_note notes[MEMORY_MODEL_NOTES_MAX];
    size_t nnotes;
    uint64_t notes_dropped;
};

static int mm_frame_equal(const void *ctx, uint32_t value, const void *key)
{
    const memory_model *m = ctx;
    const mm_frame *a = &m->frame_vals[value], *b = key;
    return a->name == b->name && a->filename == b->filename && a->line == b->line;
}

static int mm_stack_equal(const void *ctx, uint32_t value, const void *key)
{
    const memory_model *m = ctx;
    const mm_stack_key *k = key;
    return m->stack_len[value] == k->n &&
           memcmp(m->stack_pool + m->stack_first[value], k->ids, (size_t)k->n * sizeof *k->ids) == 0;
}

static const hashtab_type mm_frame_type = {.equal = mm_frame_equal};
static const hashtab_type mm_stack_type = {.equal = mm_stack_equal};

static int mm_nomem(nl_error *err, const char *what)
{
    return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory building the memory model (%s)", what);
}

/* Grow a malloc'd array to hold `need` elements, within the model's limit. */
static int mm_grow(memory_model *m, void **buf, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > SIZE_MAX / 4 / size)
            return -1;
        nc *= 2;
    }
    size_t add = (nc - *cap) * size;
    if (m->limit && arena_reserved(m->arena) + m->heap_bytes + add > m->limit)
        return -1;
    void *p = realloc(*buf, nc * size);
    if (!p)
        return -1;
    *buf = p;
    *cap = nc;
    m->heap_bytes += add;
    return 0;
}

memory_model *memory_model_new(size_t memory_limit, nl_error *err)
{
    arena *a = arena_new(0);
    if (a)
        arena_set_limit(a, memory_limit);
    memory_model *m = a ? arena_calloc(a, 1, sizeof *m) : NULL;
    if (m) {
        m->arena = a;
        m->limit = memory_limit;
        m->strings = strtab_new(a);
        if (m->strings) {
            m->segs = table_new(a, mm_seg_cols, MM_SEG_NCOLS);
            m->blks = table_new(a, mm_blk_cols, MM_BLK_NCOLS);
            m->hist = table_new(a, mm_hist_cols, MM_HIST_NCOLS);
            m->trace = table_new(a, mm_tr_cols, MM_TR_NCOLS);
            m->frames = table_new(a, mm_fr_cols, MM_FR_NCOLS);
        }
        m->trace_first = arena_calloc(a, MEMORY_MODEL_DEVICES_MAX, sizeof *m->trace_first);
        m->trace_count = arena_calloc(a, MEMORY_MODEL_DEVICES_MAX, sizeof *m->trace_count);
    }
    if (!m || !m->segs || !m->blks || !m->hist || !m->trace || !m->frames || !m->trace_first || !m->trace_count) {
        arena_free(a);
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory creating a memory model");
        return NULL;
    }
    hashtab_init(&m->frame_index, &mm_frame_type, m, a);
    hashtab_init(&m->stack_index, &mm_stack_type, m, a);
    m->settings.max_split_size = -1;
    /* stack 0: the empty stack */
    if (mm_grow(m, (void **)&m->stack_first, &m->stack_cap, 1, sizeof *m->stack_first) != 0 ||
        !(m->stack_len = malloc(m->stack_cap * sizeof *m->stack_len))) {
        free(m->stack_first);
        arena_free(a);
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory creating a memory model");
        return NULL;
    }
    m->heap_bytes += m->stack_cap * sizeof *m->stack_len;
    m->stack_first[0] = 0;
    m->stack_len[0] = 0;
    m->nstacks = 1;
    return m;
}

void memory_model_free(memory_model *m)
{
    if (!m)
        return;
    free(m->frame_vals);
    free(m->stack_first);
    free(m->stack_len);
    free(m->stack_pool);
    arena_free(m->arena);
}

/* ---- building ----------------------------------------------------------------------------------------- */

strtab *memory_model_strtab_mut(memory_model *m)
{
    return m->strings;
}

int memory_model_append_segment(memory_model *m, const table_value *row, nl_error *err)
{
    return table_append(m->segs, row, err);
}

int memory_model_append_block(memory_model *m, const table_value *row, nl_error *err)
{
    return table_append(m->blks, row, err);
}

int memory_model_append_history(memory_model *m, const table_value *row, nl_error *err)
{
    return table_append(m->hist, row, err);
}

int memory_model_begin_device(memory_model *m, uint32_t device, nl_error *err)
{
    if (device >= MEMORY_MODEL_DEVICES_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "more than %u devices in device_traces",
                            MEMORY_MODEL_DEVICES_MAX);
    if (m->device_begun && device <= m->last_device)
        return nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "trace devices must increase (%u after %u)", device,
                            m->last_device);
    m->device_begun = true;
    m->last_device = device;
    m->trace_first[device] = table_rows(m->trace);
    return 0;
}

int memory_model_append_trace(memory_model *m, const table_value *row, nl_error *err)
{
    if (!m->device_begun)
        return nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "a trace row before memory_model_begin_device");
    if (table_append(m->trace, row, err) != 0)
        return -1;
    m->trace_count[m->last_device]++;
    return 0;
}

int memory_model_intern_frame(memory_model *m, uint32_t name, uint32_t filename, int64_t line, uint32_t *id,
                              nl_error *err)
{
    mm_frame key = {.name = name, .filename = filename, .line = line};
    uint32_t h = hashtab_hash_bytes(&key, sizeof key);
    if (hashtab_find(&m->frame_index, h, &key, id))
        return 0;
    size_t n = table_rows(m->frames);
    if (n >= MEMORY_MODEL_FRAMES_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "more than %u distinct frames", MEMORY_MODEL_FRAMES_MAX);
    if (mm_grow(m, (void **)&m->frame_vals, &m->frame_cap, n + 1, sizeof *m->frame_vals) != 0)
        return mm_nomem(err, "frames");
    table_value row[MM_FR_NCOLS];
    row[MM_FR_NAME].s = name;
    row[MM_FR_FILENAME].s = filename;
    row[MM_FR_LINE].i = line;
    if (table_append(m->frames, row, err) != 0)
        return -1;
    m->frame_vals[n] = key;
    if (hashtab_insert(&m->frame_index, h, (uint32_t)n) != 0)
        return mm_nomem(err, "frame index");
    *id = (uint32_t)n;
    return 0;
}

int memory_model_intern_stack(memory_model *m, const uint32_t *frames, uint32_t n, uint32_t *id, nl_error *err)
{
    if (n == 0) {
        *id = 0;
        return 0;
    }
    if (n > MEMORY_MODEL_STACK_FRAMES_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "a stack of %u frames is over the %u-frame cap", n,
                            MEMORY_MODEL_STACK_FRAMES_MAX);
    mm_stack_key key = {.ids = frames, .n = n};
    uint32_t h = hashtab_hash_bytes(frames, (size_t)n * sizeof *frames);
    if (hashtab_find(&m->stack_index, h, &key, id))
        return 0;
    if (m->nstacks >= MEMORY_MODEL_STACKS_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "more than %u distinct stacks", MEMORY_MODEL_STACKS_MAX);
    size_t old_cap = m->stack_cap;
    if (mm_grow(m, (void **)&m->stack_first, &m->stack_cap, (size_t)m->nstacks + 1, sizeof *m->stack_first) != 0)
        return mm_nomem(err, "stacks");
    if (m->stack_cap != old_cap) {
        uint32_t *len = realloc(m->stack_len, m->stack_cap * sizeof *len);
        if (!len)
            return mm_nomem(err, "stacks");
        m->stack_len = len;
        m->heap_bytes += (m->stack_cap - old_cap) * sizeof *len;
    }
    if (mm_grow(m, (void **)&m->stack_pool, &m->pool_cap, m->pool_n + n, sizeof *m->stack_pool) != 0)
        return mm_nomem(err, "stack frames");
    memcpy(m->stack_pool + m->pool_n, frames, (size_t)n * sizeof *frames);
    uint32_t s = m->nstacks;
    m->stack_first[s] = m->pool_n;
    m->stack_len[s] = n;
    m->pool_n += n;
    if (hashtab_insert(&m->stack_index, h, s) != 0)
        return mm_nomem(err, "stack index");
    m->nstacks++;
    *id = s;
    return 0;
}

kvlist *memory_model_settings_mut(memory_model *m, nl_error *err)
{
    if (!m->settings_kv) {
        m->settings_kv = kvlist_new(m->arena, m->strings);
        if (!m->settings_kv)
            mm_nomem(err, "allocator settings");
    }
    return m->settings_kv;
}

int memory_model_add_note(memory_model *m, memory_note_kind kind, const char *where, uint32_t name,
                          int64_t offset, nl_error *err)
{
    (void)err;
    for (size_t i = 0; i < m->nnotes; i++) {
        memory_note *n = &m->notes[i];
        if (n->kind == kind && n->name == name && n->where == where) {
            n->count++;
            return 0;
        }
    }
    if (m->nnotes == MEMORY_MODEL_NOTES_MAX) {
        m->notes_dropped++;
        return 0;
    }
    m->notes[m->nnotes++] = (memory_note){.kind = kind, .where = where, .name = name, .count = 1,
                                          .first_offset = offset};
    return 0;
}

memory_model_info *memory_model_info_mut(memory_model *m)
{
    return &m->info;
}

static void mm_parse_settings(memory_model *m)
{
    memory_settings *s = &m->settings;
    const kvlist *kv = m->settings_kv;
    if (!kv)
        return;
    s->present = true;
    const kvlist_entry *e = kvlist_get(kv, "expandable_segments");
    if (e && (e->kind == KVLIST_BOOL || e->kind == KVLIST_INT)) {
        s->has_expandable = true;
        s->expandable_segments = e->i != 0;
    }
    s->has_max_split = kvlist_get_i64(kv, "max_split_size", &s->max_split_size) == 1;
    s->has_gc_threshold = kvlist_get_num(kv, "garbage_collection_threshold", &s->gc_threshold) == 1;
    e = kvlist_get(kv, "PYTORCH_CUDA_ALLOC_CONF");
    if (e && e->kind == KVLIST_STRING) {
        s->has_alloc_conf = true;
        s->alloc_conf = e->text;
    }
    static const char prefix[] = "roundup_power2_divisions.";
    for (size_t i = 0; i < kvlist_count(kv); i++) {
        const kvlist_entry *x = kvlist_at(kv, i);
        const char *k = kvlist_key_str(kv, x);
        if (k && !strncmp(k, prefix, sizeof prefix - 1) && x->kind != KVLIST_NULL && x->num != 0)
            s->roundup_nonzero++;
    }
}

int memory_model_finish(memory_model *m, nl_error *err)
{
    (void)err;
    memory_model_info *in = &m->info;
    uint32_t devices = in->trace_devices;
    size_t nseg = table_rows(m->segs);
    for (size_t r = 0; r < nseg; r++) {
        int64_t d = table_i64(m->segs, MM_SEG_DEVICE, r);
        if (d >= 0 && d < (int64_t)MEMORY_MODEL_DEVICES_MAX && (uint32_t)d + 1 > devices)
            devices = (uint32_t)d + 1;
    }
    in->devices = devices;
    in->history = MEMORY_HISTORY_NONE;
    for (uint32_t d = 0; d < in->trace_devices && d < MEMORY_MODEL_DEVICES_MAX; d++) {
        if (m->trace_count[d] > 1)
            in->history = MEMORY_HISTORY_TRACE;
        else if (m->trace_count[d] == 1 && in->history == MEMORY_HISTORY_NONE)
            in->history = MEMORY_HISTORY_STATE;
    }
    in->layout = MEMORY_LAYOUT_CURRENT;
    size_t nblk = table_rows(m->blks);
    for (size_t r = 0; r < nblk; r++) {
        uint64_t f = table_u64(m->blks, MM_BLK_FLAGS, r);
        if ((f & MM_BLK_F_HISTORY) || !(f & MM_BLK_F_ADDRESS)) {
            in->layout = MEMORY_LAYOUT_V2_0;
            break;
        }
    }
    mm_parse_settings(m);
    return 0;
}

/* ---- reading ------------------------------------------------------------------------------------------ */

const table *memory_model_segments(const memory_model *m) { return m->segs; }
const table *memory_model_blocks(const memory_model *m) { return m->blks; }
const table *memory_model_history(const memory_model *m) { return m->hist; }
const table *memory_model_trace(const memory_model *m) { return m->trace; }
const table *memory_model_frames(const memory_model *m) { return m->frames; }
const strtab *memory_model_strings(const memory_model *m) { return m->strings; }

const char *memory_model_str(const memory_model *m, uint32_t id, size_t *len)
{
    return strtab_str(m->strings, id, len);
}

uint32_t memory_model_str_find(const memory_model *m, const char *s)
{
    return strtab_find(m->strings, s, strlen(s));
}

uint32_t memory_model_stack_count(const memory_model *m)
{
    return m->nstacks;
}

const uint32_t *memory_model_stack(const memory_model *m, uint32_t id, uint32_t *n)
{
    static const uint32_t empty[1];
    if (id >= m->nstacks) {
        *n = 0;
        return NULL;
    }
    *n = m->stack_len[id];
    return *n ? m->stack_pool + m->stack_first[id] : empty;
}

const memory_model_info *memory_model_info_of(const memory_model *m) { return &m->info; }
const memory_settings *memory_model_settings(const memory_model *m) { return &m->settings; }
const kvlist *memory_model_settings_record(const memory_model *m) { return m->settings_kv; }

void memory_model_trace_range(const memory_model *m, uint32_t device, size_t *first, size_t *count)
{
    if (device >= MEMORY_MODEL_DEVICES_MAX || device >= m->info.trace_devices) {
        *first = 0;
        *count = 0;
        return;
    }
    *first = m->trace_first[device];
    *count = m->trace_count[device];
}

size_t memory_model_note_count(const memory_model *m) { return m->nnotes; }

const memory_note *memory_model_note_at(const memory_model *m, size_t i)
{
    return i < m->nnotes ? &m->notes[i] : NULL;
}

uint64_t memory_model_notes_dropped(const memory_model *m) { return m->notes_dropped; }

size_t memory_model_bytes(const memory_model *m)
{
    return arena_reserved(m->arena) + m->heap_bytes;
}

/* ---- names -------------------------------------------------------------------------------------------- */

static const char *const mm_action_names[MM_ACT_COUNT] = {
    [MM_ACT_ALLOC] = "alloc", [MM_ACT_FREE_REQUESTED] = "free_requested",
    [MM_ACT_FREE_COMPLETED] = "free_completed", [MM_ACT_SEGMENT_ALLOC] = "segment_alloc",
    [MM_ACT_SEGMENT_FREE] = "segment_free", [MM_ACT_SEGMENT_MAP] = "segment_map",
    [MM_ACT_SEGMENT_UNMAP] = "segment_unmap", [MM_ACT_OOM] = "oom", [MM_ACT_SNAPSHOT] = "snapshot",
    [MM_ACT_OTHER] = "other",
};

static const char *const mm_state_names[MM_BLOCK_STATE_COUNT] = {
    [MM_BLOCK_ACTIVE_ALLOCATED] = "active_allocated", [MM_BLOCK_ACTIVE_PENDING_FREE] = "active_pending_free",
    [MM_BLOCK_INACTIVE] = "inactive", [MM_BLOCK_OTHER] = "other",
};

static int mm_parse(const char *const *names, int count, const char *s, size_t len)
{
    for (int i = 0; i < count; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], s, len))
            return i;
    return -1;
}

const char *memory_action_name(memory_action a)
{
    return (unsigned)a < MM_ACT_COUNT ? mm_action_names[a] : "?";
}

int memory_action_parse(const char *s, size_t len, memory_action *out)
{
    int i = mm_parse(mm_action_names, MM_ACT_OTHER, s, len);
    if (i < 0)
        return -1;
    *out = (memory_action)i;
    return 0;
}

const char *memory_block_state_name(memory_block_state s)
{
    return (unsigned)s < MM_BLOCK_STATE_COUNT ? mm_state_names[s] : "?";
}

int memory_block_state_parse(const char *s, size_t len, memory_block_state *out)
{
    int i = mm_parse(mm_state_names, MM_BLOCK_OTHER, s, len);
    if (i < 0)
        return -1;
    *out = (memory_block_state)i;
    return 0;
}

const char *memory_segment_type_name(memory_segment_type t)
{
    switch (t) {
    case MM_SEGTYPE_UNKNOWN: return "unknown";
    case MM_SEGTYPE_LARGE: return "large";
    case MM_SEGTYPE_SMALL: return "small";
    case MM_SEGTYPE_OTHER: return "other";
    case MM_SEGTYPE_COUNT: break;
    }
    return "?";
}

const char *memory_layout_name(memory_layout l)
{
    return l == MEMORY_LAYOUT_V2_0 ? "v2_0" : "current";
}

const char *memory_history_name(memory_history h)
{
    switch (h) {
    case MEMORY_HISTORY_NONE: return "none";
    case MEMORY_HISTORY_STATE: return "state_only";
    case MEMORY_HISTORY_TRACE: return "trace";
    }
    return "?";
}

const char *memory_note_kind_name(memory_note_kind k)
{
    switch (k) {
    case MM_NOTE_UNKNOWN_KEY: return "unknown_key";
    case MM_NOTE_UNKNOWN_ACTION: return "unknown_action";
    case MM_NOTE_UNKNOWN_STATE: return "unknown_state";
    case MM_NOTE_BAD_VALUE: return "bad_value";
    case MM_NOTE_BIG_INT: return "big_int";
    case MM_NOTE_KIND_COUNT: break;
    }
    return "?";
}
