/* framework_model — the columnar model of one PyTorch/Kineto framework trace (trace.json, formats.md §10).
 *
 * Owns: one arena holding everything of the trace: the strtab, the event table (one row per element of
 * traceEvents, in file order, M events included), the top-level scalars (`trace` record), distributedInfo,
 * the deviceProperties ids, the first ERROR log lines, reader notes, and — after framework_model_finish —
 * the per-process and per-thread side tables (names, device-or-host) and a thread index per row.
 * framework_model_free releases all of it; every pointer and id obtained from a model is valid while it
 * lives. Threads: the reader builds it on one thread; after framework_model_finish it is read-only and may
 * be shared. Errors: building functions return 0/-1 with a nullable nl_error (NL_ERR_NOMEM, NL_ERR_LIMIT).
 *
 * Time: FM_EV_TS/FM_EV_DUR are int64 ns converted exactly from the file's µs text (fixed point, never
 * through double), on the file's own time base: relative to baseTimeNanoseconds when the trace has one,
 * unix µs·1000 otherwise (framework_model_time_base). Strings are strtab ids (0 = "" = absent).
 *
 * Ids (correlation, External id, flow id): a non-negative integer literal or digit string that fits uint64
 * is stored as that number; anything else (negative, fractional, beyond uint64, non-digit strings) is
 * stored as the strtab id of its text with the matching *_TEXT flag, so ids beyond int64 keep their raw
 * digits and never pass through double. Two ids are equal when value and TEXT flag are equal. */
#ifndef NL_FRAMEWORK_MODEL_H
#define NL_FRAMEWORK_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvlist.h"
#include "nl_error.h"
#include "strtab.h"
#include "table.h"

/* Event columns. */
enum {
    FM_EV_TS,     /* INT ns (see Time above); 0 when absent (FM_F_TS clear) */
    FM_EV_DUR,    /* INT ns; 0 when absent (FM_F_DUR clear) */
    FM_EV_NAME,   /* STR `name` */
    FM_EV_CAT,    /* STR `cat` ("" when absent: metadata events) */
    FM_EV_PH,     /* STR `ph` as written ("X", "M", "i", "s", "f", "B", "E", ...) */
    FM_EV_PID,    /* STR canonical pid: a number's literal text ("865", "-1") or a string pid as written */
    FM_EV_TID,    /* STR canonical tid, same rule */
    FM_EV_CORR,   /* UINT args.correlation (id rule above) */
    FM_EV_EXT,    /* UINT args."External id" */
    FM_EV_FLOW,   /* UINT `id` of flow (s/t/f) and async events */
    FM_EV_BYTES,  /* UINT args.bytes, else args.size, else args."mem size" (non-negative integers only) */
    FM_EV_DETAIL, /* STR M events: args.name / args.labels; others: args.direction when present */
    FM_EV_FLAGS,  /* UINT FM_F_* */
    FM_EV_OFFSET, /* INT byte offset of the event's '{' in the (decompressed) JSON text */
    FM_EV_NCOLS
};

#define FM_F_TS 0x1u          /* ts present and valid */
#define FM_F_DUR 0x2u         /* dur present and valid */
#define FM_F_CORR 0x4u        /* args.correlation present */
#define FM_F_CORR_TEXT 0x8u   /*   ... stored as a strtab id */
#define FM_F_EXT 0x10u        /* args."External id" present */
#define FM_F_EXT_TEXT 0x20u
#define FM_F_FLOW 0x40u       /* `id` present */
#define FM_F_FLOW_TEXT 0x80u
#define FM_F_BIND_ENCLOSING 0x100u /* flow event with bp:"e" (binds to the enclosing slice) */
#define FM_F_BYTES 0x200u

/* What a reader saw besides rows. `name` is a strtab id naming the key or field concerned (0 if none). */
typedef enum framework_model_note_kind {
    FM_NOTE_NOT_OBJECT,     /* a traceEvents element that is not an object (skipped) */
    FM_NOTE_NO_PH,          /* an event without a string `ph` (skipped) */
    FM_NOTE_BAD_TIME,       /* ts/dur not a number in range (name = "ts"/"dur"); the field reads as absent */
    FM_NOTE_BAD_FIELD,      /* name/cat/pid/tid/id of an unexpected type (name = the key); reads as absent */
    FM_NOTE_LONG_NAME,      /* a name longer than KINETO_NAME_MAX bytes, truncated */
    FM_NOTE_TOP_KEY,        /* a top-level key neuronlens does not use (name = the key) */
    FM_NOTE_NEGATIVE_DUR,   /* dur < 0 (kept as written; analyses treat the span as empty) */
    FM_NOTE_TRAILING_BYTES, /* bytes after the last gzip member that are not another member (ignored) */
    FM_NOTE_KIND_COUNT
} framework_model_note_kind;

typedef struct framework_model_note {
    framework_model_note_kind kind;
    uint32_t name;  /* strtab id */
    uint64_t count; /* occurrences */
    int64_t first_offset; /* byte offset of the first occurrence */
} framework_model_note;

/* Distinct notes kept; further distinct ones are summed into the note of their kind named "(other)". */
#define FRAMEWORK_MODEL_NOTES_MAX 1024u
/* ERROR log lines kept (the rest are only counted), and bytes kept of each. */
#define FRAMEWORK_MODEL_ERROR_LINES_MAX 8u
#define FRAMEWORK_MODEL_ERROR_LINE_BYTES 512u
/* deviceProperties entries kept. */
#define FRAMEWORK_MODEL_DEVICES_MAX 1024u

/* How the trace was laid out. */
typedef enum framework_model_layout {
    FM_LAYOUT_OBJECT, /* {"traceEvents": [...], ...} (torch ≥ 1.x exporters, Chrome "JSON Object Format") */
    FM_LAYOUT_ARRAY,  /* a bare array of events (Chrome "JSON Array Format"; older exporters) */
} framework_model_layout;

/* Why a pid is classified as a device (see framework_model_finish). */
typedef enum framework_model_device_reason {
    FM_HOST = 0,
    FM_DEVICE_BY_CATEGORY,   /* carries device-only categories (kernel, gpu_memcpy, mtia_ccp_events, ...) */
    FM_DEVICE_BY_NAME,       /* process_name/process_labels names an accelerator ("GPU 0", "MTIA 17", ...) */
    FM_DEVICE_BY_PROPERTIES, /* a numeric pid equal to a deviceProperties id */
} framework_model_device_reason;

typedef struct framework_model_process {
    uint32_t pid;    /* strtab id of the canonical pid */
    uint32_t name;   /* process_name args.name, 0 if none */
    uint32_t labels; /* process_labels args.labels, 0 if none */
    framework_model_device_reason device;
    uint64_t events; /* rows with this pid */
} framework_model_process;

typedef struct framework_model_thread {
    uint32_t pid, tid; /* strtab ids */
    uint32_t process;  /* index into the process table */
    uint32_t name;     /* thread_name args.name, 0 if none */
    uint64_t events;
} framework_model_thread;

/* What a category means (formats.md §10.1-10.4), as a bitmask of FM_CAT_*; unknown categories give 0.
 *   DEVICE_ONLY  recorded on a device timeline: kernel, gpu_memcpy, gpu_memset, gpu_user_annotation,
 *                mtia_ccp_events, privateuse1_driver (PrivateUse1 device events "by stream" [D/T])
 *   HOST_ONLY    recorded on a host thread: cpu_op, user_annotation, python_function, cpu_instant_event,
 *                cuda_runtime, cuda_driver, xpu_runtime, privateuse1_runtime
 *   LAUNCH       a runtime/driver API call or sync, not an op: names ending in _runtime or _driver, cuda_sync
 *   WAIT         waiting, not executing, on a device timeline: cuda_sync
 *   ANNOTATION   a range marker on a device timeline: gpu_user_annotation
 *   PROFILER     the profiler's own bookkeeping span: Trace */
#define FM_CAT_DEVICE_ONLY 0x1u
#define FM_CAT_HOST_ONLY 0x2u
#define FM_CAT_LAUNCH 0x4u
#define FM_CAT_WAIT 0x8u
#define FM_CAT_ANNOTATION 0x10u
#define FM_CAT_PROFILER 0x20u
unsigned framework_model_category_traits(const char *cat, size_t len);

typedef struct framework_model framework_model;

/* ---- lifecycle ---- */

/* An empty model with a cap on its memory (0 = none; beyond it allocations fail with NL_ERR_NOMEM).
 * NULL with err set. */
framework_model *framework_model_new(size_t memory_limit, nl_error *err) __attribute__((warn_unused_result));
/* Release the model and everything borrowed from it. Safe on NULL. */
void framework_model_free(framework_model *m);

/* ---- building (readers) ---- */

strtab *framework_model_strtab_mut(framework_model *m);
/* Append one event row (row[c] for every FM_EV_* column). */
int framework_model_append(framework_model *m, const table_value *row, nl_error *err)
    __attribute__((warn_unused_result));
/* The top-level scalars (`trace`) and distributedInfo records, created on first use. NULL + err on OOM. */
kvlist *framework_model_trace_mut(framework_model *m, nl_error *err);
kvlist *framework_model_dist_mut(framework_model *m, nl_error *err);
/* Record one deviceProperties entry (id may be absent: has_id 0); beyond FRAMEWORK_MODEL_DEVICES_MAX only
 * counted. */
int framework_model_add_device(framework_model *m, bool has_id, int64_t id, uint32_t name, nl_error *err)
    __attribute__((warn_unused_result));
/* Count one ERROR/INFO log line, keeping the first ERROR lines (truncated). */
int framework_model_add_log(framework_model *m, bool is_error, const char *line, size_t len, nl_error *err)
    __attribute__((warn_unused_result));
int framework_model_add_note(framework_model *m, framework_model_note_kind kind, uint32_t name, uint64_t count,
                             int64_t offset, nl_error *err) __attribute__((warn_unused_result));
/* Input facts for provenance. */
void framework_model_set_input(framework_model *m, framework_model_layout layout, bool gzipped,
                               uint64_t file_bytes, uint64_t json_bytes);
/* Mark the model partial: the input ended or broke at `why` (copied) after the rows already appended. */
void framework_model_set_partial(framework_model *m, const nl_error *why);
/* Classify processes (device or host), collect process/thread names from M events and index each row's
 * thread. Call once after the last row. NL_ERR_NOMEM on failure. */
int framework_model_finish(framework_model *m, nl_error *err) __attribute__((warn_unused_result));

/* ---- reading ---- */

const table *framework_model_events(const framework_model *m);
size_t framework_model_rows(const framework_model *m);
const strtab *framework_model_strings(const framework_model *m);
/* Borrowed NUL-terminated string of an id ("" for 0); NULL for an invalid id. */
const char *framework_model_str(const framework_model *m, uint32_t id, size_t *len);
/* Id of a string if the model has it, else STRTAB_NONE. */
uint32_t framework_model_str_find(const framework_model *m, const char *s);

/* Records; NULL when the file had none. */
const kvlist *framework_model_trace(const framework_model *m);
const kvlist *framework_model_dist(const framework_model *m);
/* baseTimeNanoseconds: 1 and *base_ns when the trace has an integral one, else 0 (ts are unix µs). */
int framework_model_time_base(const framework_model *m, int64_t *base_ns);

size_t framework_model_device_count(const framework_model *m); /* deviceProperties entries seen */
/* Entry i (< min(count, FRAMEWORK_MODEL_DEVICES_MAX)); 0 when it has no integral id. */
int framework_model_device_at(const framework_model *m, size_t i, int64_t *id, uint32_t *name);

/* Log lines: counts, and kept ERROR line i (borrowed) or NULL. */
uint64_t framework_model_log_count(const framework_model *m, bool is_error);
const char *framework_model_error_line(const framework_model *m, size_t i);

size_t framework_model_note_count(const framework_model *m);
const framework_model_note *framework_model_note_at(const framework_model *m, size_t i);
const char *framework_model_note_kind_name(framework_model_note_kind kind);

framework_model_layout framework_model_layout_of(const framework_model *m);
bool framework_model_gzipped(const framework_model *m);
uint64_t framework_model_file_bytes(const framework_model *m);
uint64_t framework_model_json_bytes(const framework_model *m);
/* 1 and *why (nullable) when the model holds only the events read before the input ended or broke. */
int framework_model_partial(const framework_model *m, nl_error *why);

/* Processes and threads (after finish). A row's process is its pid's dictionary code in FM_EV_PID. */
size_t framework_model_process_count(const framework_model *m);
const framework_model_process *framework_model_process_at(const framework_model *m, size_t i);
size_t framework_model_thread_count(const framework_model *m);
const framework_model_thread *framework_model_thread_at(const framework_model *m, size_t i);
/* The thread index of every row (array of framework_model_rows entries, borrowed). */
const uint32_t *framework_model_row_threads(const framework_model *m);
const char *framework_model_device_reason_name(framework_model_device_reason r);

/* Memory: bytes reserved by the model's arena. */
size_t framework_model_bytes(const framework_model *m);

#endif
