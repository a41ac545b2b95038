/* memory_model — the columnar model of one PyTorch caching-allocator snapshot (torch.cuda.memory._snapshot(),
 * written by torch_neuronx's NeuronProfiler.export_snapshot as memory_snapshot_rank<N>.pickle).
 *
 * Owns: one arena holding everything: the strtab, five tables (segments, blocks, block history of the
 * PyTorch 2.0 layout, trace entries, frames), the stack table (each stack a run of frame ids), the
 * allocator settings record, per-device trace ranges, notes and facts about the file. memory_model_free
 * releases it all; every pointer and id obtained from a model is valid while it lives.
 * Threads: the reader builds it on one thread; after memory_model_finish it is read-only and may be shared.
 * Errors: building functions return 0/-1 with a nullable nl_error (NL_ERR_NOMEM, NL_ERR_LIMIT).
 *
 * Ids: strings are strtab ids (0 = ""); a frame id is a row of the frames table, interned by value
 * (name, filename, line), so equal frames written as separate dicts get one id; a stack id indexes the
 * stack table, interned by its sequence of frame ids; stack 0 is the empty stack (no frames recorded).
 * Frames run innermost first, as PyTorch writes them. Sizes and addresses are bytes as written (int64);
 * time_us is the allocator's clock (unix µs on CUDA). */
#ifndef NL_MEMORY_MODEL_H
#define NL_MEMORY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvlist.h"
#include "nl_error.h"
#include "strtab.h"
#include "table.h"

/* Segments: one row per `segments` element, in file order. */
enum {
    MM_SEG_DEVICE,         /* INT */
    MM_SEG_ADDRESS,        /* INT */
    MM_SEG_TOTAL_SIZE,     /* INT reserved bytes (cudaMalloc'd) */
    MM_SEG_ALLOCATED_SIZE, /* INT bytes of active_allocated blocks */
    MM_SEG_ACTIVE_SIZE,    /* INT bytes of active blocks (allocated + pending free) */
    MM_SEG_REQUESTED_SIZE, /* INT bytes the allocations asked for (before rounding) */
    MM_SEG_STREAM,         /* INT the stream handle as an integer */
    MM_SEG_TYPE,           /* UINT memory_segment_type */
    MM_SEG_TYPE_NAME,      /* STR segment_type as written */
    MM_SEG_POOL_A,         /* INT segment_pool_id[0] (private pool owner; (0, 0) = the default pool) */
    MM_SEG_POOL_B,         /* INT segment_pool_id[1] */
    MM_SEG_EXPANDABLE,     /* UINT is_expandable 0/1 */
    MM_SEG_FRAMES,         /* UINT stack id (where the segment was cudaMalloc'd; 0 when not recorded) */
    MM_SEG_FIRST_BLOCK,    /* UINT row of its first block */
    MM_SEG_BLOCKS,         /* UINT number of its blocks */
    MM_SEG_FLAGS,          /* UINT MM_SEG_F_*: which fields the file had */
    MM_SEG_OFFSET,         /* INT byte offset of the segment's dict */
    MM_SEG_NCOLS
};
#define MM_SEG_F_DEVICE 0x1u
#define MM_SEG_F_ALLOCATED 0x2u
#define MM_SEG_F_ACTIVE 0x4u
#define MM_SEG_F_REQUESTED 0x8u
#define MM_SEG_F_STREAM 0x10u
#define MM_SEG_F_TYPE 0x20u
#define MM_SEG_F_POOL 0x40u
#define MM_SEG_F_EXPANDABLE 0x80u
#define MM_SEG_F_FRAMES 0x100u

typedef enum memory_segment_type {
    MM_SEGTYPE_UNKNOWN, /* no segment_type */
    MM_SEGTYPE_LARGE,   /* "large": the large-block pool (allocations > 1 MiB) */
    MM_SEGTYPE_SMALL,   /* "small": the small-block pool (2 MiB segments of ≤ 1 MiB blocks) */
    MM_SEGTYPE_OTHER,   /* any other name (kept in MM_SEG_TYPE_NAME) */
    MM_SEGTYPE_COUNT
} memory_segment_type;

/* Blocks: one row per element of a segment's `blocks`, segment by segment, in address order as written. */
enum {
    MM_BLK_SEGMENT,        /* UINT segment row */
    MM_BLK_ADDRESS,        /* INT as written, or (2.0 layout) the segment address plus the sizes before it */
    MM_BLK_SIZE,           /* INT bytes */
    MM_BLK_REQUESTED_SIZE, /* INT as written, else history[0].real_size, else size (as _memory_viz does) */
    MM_BLK_STATE,          /* UINT memory_block_state */
    MM_BLK_FRAMES,         /* UINT stack id: `frames`, else history[0].frames, else 0 */
    MM_BLK_FLAGS,          /* UINT MM_BLK_F_* */
    MM_BLK_OFFSET,         /* INT byte offset of the block's dict */
    MM_BLK_NCOLS
};
#define MM_BLK_F_ADDRESS 0x1u   /* address written in the file (not computed) */
#define MM_BLK_F_REQUESTED 0x2u /* requested_size written */
#define MM_BLK_F_FRAMES 0x4u    /* frames written on the block */
#define MM_BLK_F_HISTORY 0x8u   /* the block had a `history` list (2.0 layout) */

typedef enum memory_block_state {
    MM_BLOCK_ACTIVE_ALLOCATED,    /* "active_allocated": held by a tensor */
    MM_BLOCK_ACTIVE_PENDING_FREE, /* "active_pending_free" ("active_awaiting_free" in docs): freed, waiting on
                                     a stream (record_stream) before reuse */
    MM_BLOCK_INACTIVE,            /* "inactive": cached, free for reuse */
    MM_BLOCK_OTHER,               /* anything else (noted) */
    MM_BLOCK_STATE_COUNT
} memory_block_state;

/* Block history (PyTorch 2.0 layout): one row per `history` entry, block by block. */
enum {
    MM_HIST_BLOCK,     /* UINT block row */
    MM_HIST_ADDR,      /* INT */
    MM_HIST_REAL_SIZE, /* INT */
    MM_HIST_FRAMES,    /* UINT stack id */
    MM_HIST_OFFSET,    /* INT */
    MM_HIST_NCOLS
};

/* Trace entries: one row per element of device_traces[d], device by device, in file (= ring) order. */
enum {
    MM_TR_DEVICE,          /* UINT index into device_traces */
    MM_TR_ACTION,          /* UINT memory_action */
    MM_TR_ADDR,            /* INT addr; for oom: device_free (bytes free on the device) */
    MM_TR_SIZE,            /* INT bytes */
    MM_TR_STREAM,          /* INT */
    MM_TR_TIME_US,         /* INT; 0 when absent (MM_TR_F_TIME clear) */
    MM_TR_FRAMES,          /* UINT stack id */
    MM_TR_COMPILE_CONTEXT, /* STR compile_context (newer PyTorch; "N/A" when none was set) */
    MM_TR_USER_METADATA,   /* STR user_metadata (newer PyTorch) */
    MM_TR_FLAGS,           /* UINT MM_TR_F_* */
    MM_TR_OFFSET,          /* INT byte offset of the entry's dict */
    MM_TR_NCOLS
};
#define MM_TR_F_TIME 0x1u
#define MM_TR_F_ADDR 0x2u
#define MM_TR_F_SIZE 0x4u
#define MM_TR_F_STREAM 0x8u
#define MM_TR_F_FRAMES 0x10u
#define MM_TR_F_COMPILE_CONTEXT 0x20u
#define MM_TR_F_USER_METADATA 0x40u
#define MM_TR_F_DEVICE_FREE 0x80u /* MM_TR_ADDR holds device_free */

typedef enum memory_action {
    MM_ACT_ALLOC,          /* a block was handed to a tensor (size = requested bytes) */
    MM_ACT_FREE_REQUESTED, /* the tensor freed it; the block may still wait on streams */
    MM_ACT_FREE_COMPLETED, /* the block is back in the cache */
    MM_ACT_SEGMENT_ALLOC,  /* cudaMalloc of a new segment */
    MM_ACT_SEGMENT_FREE,   /* cudaFree of a segment (empty_cache, or retry after OOM) */
    MM_ACT_SEGMENT_MAP,    /* expandable segments: pages mapped */
    MM_ACT_SEGMENT_UNMAP,  /* expandable segments: pages unmapped */
    MM_ACT_OOM,            /* an allocation failed: size = request, addr = device_free */
    MM_ACT_SNAPSHOT,       /* a snapshot was taken here */
    MM_ACT_OTHER,          /* any other action name (noted; e.g. newer "annotate" kinds) */
    MM_ACT_COUNT
} memory_action;

/* Frames: one row per distinct (name, filename, line). */
enum {
    MM_FR_NAME,     /* STR function */
    MM_FR_FILENAME, /* STR file ("??" for C++ frames without symbols) */
    MM_FR_LINE,     /* INT */
    MM_FR_NCOLS
};

/* Which writer made the file. */
typedef enum memory_layout {
    MEMORY_LAYOUT_CURRENT, /* blocks carry address, requested_size, frames (PyTorch ≥ 2.1) */
    MEMORY_LAYOUT_V2_0,    /* blocks carry `history` (addr, real_size, frames) and no address (PyTorch 2.0) */
} memory_layout;

/* What the ring buffer of allocator events holds. */
typedef enum memory_history {
    MEMORY_HISTORY_NONE,  /* device_traces absent, or every device's list empty: only the state at snapshot */
    MEMORY_HISTORY_STATE, /* at most one entry per device: the one-entry ring _record_memory_history(enabled=
                             "state") keeps (or a snapshot marker): state only, no timeline to replay */
    MEMORY_HISTORY_TRACE, /* a timeline of events (enabled="all") */
} memory_history;

typedef struct memory_model_info {
    memory_layout layout;
    memory_history history;
    uint32_t trace_devices;       /* len(device_traces) */
    uint32_t devices;             /* max(len(device_traces), largest segment device + 1) */
    bool has_device_traces;       /* the key was present */
    bool has_allocator_settings;
    bool has_external_annotations;
    uint64_t external_annotations; /* elements of external_annotations (not kept) */
    bool has_compile_context;     /* some trace entry had compile_context */
    bool has_user_metadata;       /* some trace entry had user_metadata */
    int protocol;                 /* the pickle protocol */
    uint64_t file_bytes;
} memory_model_info;

/* The allocator settings that matter, parsed from `allocator_settings` (all of it is in the kvlist too,
 * nested dicts flattened as "roundup_power2_divisions.<key>"). has_* 0 = the key was absent. */
typedef struct memory_settings {
    bool present;
    bool has_expandable, expandable_segments;
    bool has_max_split, has_gc_threshold, has_alloc_conf;
    int64_t max_split_size;        /* -1 (or SIZE_MAX as int64) = unlimited */
    double gc_threshold;           /* garbage_collection_threshold; 0 = off */
    uint32_t alloc_conf;           /* strtab id of PYTORCH_CUDA_ALLOC_CONF as the process set it */
    uint32_t roundup_nonzero;      /* roundup_power2_divisions entries that are not 0 */
} memory_settings;

/* What the reader saw besides rows. `name` is a strtab id (the key, action or state concerned), `where`
 * a static word ("top", "segment", "block", "history", "trace entry", "frame", "allocator_settings"). */
typedef enum memory_note_kind {
    MM_NOTE_UNKNOWN_KEY,    /* a key this reader does not use (its value is skipped) */
    MM_NOTE_UNKNOWN_ACTION, /* a trace action outside memory_action (row kept as MM_ACT_OTHER) */
    MM_NOTE_UNKNOWN_STATE,  /* a block state outside memory_block_state (MM_BLOCK_OTHER) */
    MM_NOTE_BAD_VALUE,      /* a known key with a value of the wrong type (read as absent) */
    MM_NOTE_BIG_INT,        /* a known integer key beyond int64 (read as absent) */
    MM_NOTE_KIND_COUNT
} memory_note_kind;

typedef struct memory_note {
    memory_note_kind kind;
    const char *where;
    uint32_t name;
    uint64_t count;
    int64_t first_offset;
} memory_note;

/* Distinct notes kept; more are counted in `notes_dropped`. */
#define MEMORY_MODEL_NOTES_MAX 64u
/* Caps: frames in one stack, distinct stacks, distinct frames, devices (device_traces lists and segment
 * device numbers). */
#define MEMORY_MODEL_STACK_FRAMES_MAX ((uint32_t)1 << 16)
#define MEMORY_MODEL_STACKS_MAX ((uint32_t)1 << 30)
#define MEMORY_MODEL_FRAMES_MAX ((uint32_t)1 << 30)
#define MEMORY_MODEL_DEVICES_MAX 4096u

typedef struct memory_model memory_model;

/* ---- lifecycle ---- */

/* An empty model with a cap on its memory (0 = none; beyond it NL_ERR_NOMEM). NULL with err set. */
memory_model *memory_model_new(size_t memory_limit, nl_error *err) __attribute__((warn_unused_result));
void memory_model_free(memory_model *m);

/* ---- building (the reader) ---- */

strtab *memory_model_strtab_mut(memory_model *m);
int memory_model_append_segment(memory_model *m, const table_value *row, nl_error *err)
    __attribute__((warn_unused_result));
int memory_model_append_block(memory_model *m, const table_value *row, nl_error *err)
    __attribute__((warn_unused_result));
int memory_model_append_history(memory_model *m, const table_value *row, nl_error *err)
    __attribute__((warn_unused_result));
/* Trace rows go device by device: memory_model_begin_device starts device `device` (= its index in
 * device_traces, increasing), then its rows follow. */
int memory_model_begin_device(memory_model *m, uint32_t device, nl_error *err) __attribute__((warn_unused_result));
int memory_model_append_trace(memory_model *m, const table_value *row, nl_error *err)
    __attribute__((warn_unused_result));
/* The id of frame (name, filename, line), adding it when new. */
int memory_model_intern_frame(memory_model *m, uint32_t name, uint32_t filename, int64_t line, uint32_t *id,
                              nl_error *err) __attribute__((warn_unused_result));
/* The id of the stack frames[0..n) (frame ids, innermost first), adding it when new; n = 0 gives 0. */
int memory_model_intern_stack(memory_model *m, const uint32_t *frames, uint32_t n, uint32_t *id, nl_error *err)
    __attribute__((warn_unused_result));
/* The allocator_settings record, created on first use. NULL + err on OOM. */
kvlist *memory_model_settings_mut(memory_model *m, nl_error *err);
int memory_model_add_note(memory_model *m, memory_note_kind kind, const char *where, uint32_t name,
                          int64_t offset, nl_error *err) __attribute__((warn_unused_result));
memory_model_info *memory_model_info_mut(memory_model *m);
/* After the last row: the device count, the history kind, the layout, the settings. 0 or -1. */
int memory_model_finish(memory_model *m, nl_error *err) __attribute__((warn_unused_result));

/* ---- reading ---- */

const table *memory_model_segments(const memory_model *m);
const table *memory_model_blocks(const memory_model *m);
const table *memory_model_history(const memory_model *m);
const table *memory_model_trace(const memory_model *m);
const table *memory_model_frames(const memory_model *m);
const strtab *memory_model_strings(const memory_model *m);
/* Borrowed NUL-terminated string of an id ("" for 0); NULL for an invalid id. */
const char *memory_model_str(const memory_model *m, uint32_t id, size_t *len);
/* Id of a string if the model has it, else STRTAB_NONE. */
uint32_t memory_model_str_find(const memory_model *m, const char *s);

/* Number of stacks (including the empty stack 0), and the frame ids of stack `id` (innermost first;
 * borrowed) with *n set; NULL (and *n = 0) for an invalid id. */
uint32_t memory_model_stack_count(const memory_model *m);
const uint32_t *memory_model_stack(const memory_model *m, uint32_t id, uint32_t *n);

const memory_model_info *memory_model_info_of(const memory_model *m);
const memory_settings *memory_model_settings(const memory_model *m);
/* The raw allocator_settings record; NULL when the file had none. */
const kvlist *memory_model_settings_record(const memory_model *m);
/* Trace rows of device d: [*first, *first + *count); 0 rows for a device without entries. */
void memory_model_trace_range(const memory_model *m, uint32_t device, size_t *first, size_t *count);

size_t memory_model_note_count(const memory_model *m);
const memory_note *memory_model_note_at(const memory_model *m, size_t i);
uint64_t memory_model_notes_dropped(const memory_model *m);

/* Names: "alloc", "free_requested", ... as PyTorch writes them ("other" for MM_ACT_OTHER); parse returns -1
 * for a name outside the list. Block states likewise ("active_allocated", "active_pending_free",
 * "inactive", "other"); segment types "unknown", "large", "small", "other". */
const char *memory_action_name(memory_action a);
int memory_action_parse(const char *s, size_t len, memory_action *out);
const char *memory_block_state_name(memory_block_state s);
int memory_block_state_parse(const char *s, size_t len, memory_block_state *out);
const char *memory_segment_type_name(memory_segment_type t);
const char *memory_layout_name(memory_layout l);
const char *memory_history_name(memory_history h);
const char *memory_note_kind_name(memory_note_kind k);

/* Memory: bytes reserved by the model's arena and its stack index. */
size_t memory_model_bytes(const memory_model *m);

#endif
