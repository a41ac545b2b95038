/* system_model — the columnar model of one rank's system profile (formats.md §9): runtime API spans and
 * hardware events from ntrace.pb (begin/end paired by span id), timestamp sync points, CPU utilisation
 * and host memory series, and the capture metadata and interned tables of trace_info.pb.
 *
 * Owns: one arena holding everything: the strtab, five tables (spans, extra attributes, sync points, CPU
 * samples, memory samples), the decoded trace_info, per-file read statistics and the aggregated notes.
 * system_model_free releases all of it; every pointer and id obtained from a model lives as long as it.
 * Threads: a reader (readers/system_profile.c) builds it on one thread; afterwards it is read-only and may
 * be shared.
 * Errors: system_model_new fails only with NL_ERR_NOMEM; what a reading found wrong is kept as notes
 * (system_model_note_at), each with the file, byte offset and record of its first occurrence.
 *
 * Time: int64 unix-epoch ns on the host CPU clock, as the files write it (hardware events arrive already
 * shifted to CPU time; their raw device-clock `nc_timestamp_ns` is kept in its own columns). */
#ifndef NL_SYSTEM_MODEL_H
#define NL_SYSTEM_MODEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"
#include "strtab.h"
#include "arena.h"
#include "system_records.h"
#include "table.h"

/* Distinct notes kept (each counts its occurrences and keeps the first); more are counted in
 * notes_dropped. */
#define SYSTEM_MODEL_NOTES_MAX 64u
/* Attributes one begin+end pair may carry into SM_ATTRS; more are dropped with a note. */
#define SYSTEM_MODEL_SPAN_ATTRS_MAX 256u

typedef enum system_model_table {
    SM_SPANS, /* one row per begin/end pair, instant, or unpaired record */
    SM_ATTRS, /* string attributes without a typed column, grouped per span */
    SM_SYNC,  /* instants carrying cpu_timestamp_ns + nc_timestamp_ns (timestamp_sync_point), file order */
    SM_CPU,   /* cpu_util.pb samples, file order */
    SM_MEM,   /* host_mem.pb samples, file order */
    SM_TABLE_COUNT
} system_model_table;

/* spans, in the order they completed in the file (not by time) */
enum {
    SM_SPAN_TYPE,       /* STR event type name; "unknown_type_<id>" when the id is not in trace_info.pb */
    SM_SPAN_TYPE_ID,    /* UINT f7 */
    SM_SPAN_START,      /* INT unix ns: the begin's f2 (the record's f2 for instants and unpaired ends) */
    SM_SPAN_END,        /* INT unix ns: the end's f2 (= START for instants and unpaired begins) */
    SM_SPAN_WORKER,     /* INT `worker_gid`, -1 absent */
    SM_SPAN_NC,         /* INT `nc_idx` (logical NeuronCore), -1 absent */
    SM_SPAN_CORE,       /* INT `device_core_idx` (physical core; LNC=2 → two per nc_idx), -1 absent */
    SM_SPAN_EXEC,       /* INT `exec_id`, -1 absent */
    SM_SPAN_MODEL,      /* UINT `model_id` (begin or end), 0 absent */
    SM_SPAN_BYTES,      /* UINT `size`, else `allocated_bytes`, else `freed_bytes`; 0 absent */
    SM_SPAN_NC_BEGIN,   /* INT `nc_timestamp_ns` of the begin (device clock), -1 absent */
    SM_SPAN_NC_END,     /* INT `nc_timestamp_ns` of the end, -1 absent */
    SM_SPAN_USAGE,      /* STR `usage_type` ("" absent) */
    SM_SPAN_THREAD,     /* UINT f9 */
    SM_SPAN_ID,         /* UINT f15 */
    SM_SPAN_RECORD,     /* INT record index of the begin (or of the only record) */
    SM_SPAN_ATTR_FIRST, /* UINT first row of this span's attributes in SM_ATTRS */
    SM_SPAN_ATTR_COUNT, /* UINT */
    SM_SPAN_FLAGS,      /* UINT SM_SPAN_F_* */
    SM_SPAN_NCOLS
};
#define SM_SPAN_F_INSTANT 1u      /* phase 3 */
#define SM_SPAN_F_OPEN 2u         /* a begin whose end never came */
#define SM_SPAN_F_ORPHAN_END 4u   /* an end whose begin never came */
#define SM_SPAN_F_HARDWARE 8u     /* carries nc_timestamp_ns: a device event, shifted to CPU time */
#define SM_SPAN_F_NONZERO_RC 16u  /* `return_code` other than "0" (the code itself stays in SM_ATTRS) */
#define SM_SPAN_F_UNKNOWN_TYPE 32u
#define SM_SPAN_F_PAIRED_MASK (SM_SPAN_F_INSTANT | SM_SPAN_F_OPEN | SM_SPAN_F_ORPHAN_END) /* none set = a pair */

enum { SM_ATTR_KEY, SM_ATTR_VALUE, SM_ATTR_NCOLS }; /* STR, STR */

enum {
    SM_SYNC_TIME,   /* INT f2 of the record */
    SM_SYNC_CPU_TS, /* INT `cpu_timestamp_ns` */
    SM_SYNC_NC_TS,  /* INT `nc_timestamp_ns` */
    SM_SYNC_EXEC,   /* INT `exec_id`, -1 */
    SM_SYNC_NC,     /* INT `nc_idx`, -1 */
    SM_SYNC_WORKER, /* INT `worker_gid`, -1 */
    SM_SYNC_RECORD, /* INT record index */
    SM_SYNC_NCOLS
};

enum {
    SM_CPU_TIME,     /* INT unix ns */
    SM_CPU_ID,       /* UINT */
    SM_CPU_UTIL,     /* F64 percent 0..100 (0 when omitted) */
    SM_CPU_HAS_UTIL, /* UINT 1 when f1 was present */
    SM_CPU_NCOLS
};

enum { SM_MEM_TIME, SM_MEM_USED, SM_MEM_NCOLS }; /* INT unix ns, UINT bytes */

typedef enum system_file { SM_FILE_TRACE_INFO, SM_FILE_NTRACE, SM_FILE_CPU_UTIL, SM_FILE_HOST_MEM, SM_FILE_COUNT } system_file;

/* Stable file name ("trace_info.pb", ...). */
const char *system_file_name(system_file f);

typedef struct system_file_info {
    const char *path;          /* as given; NULL when the capture has no such file */
    bool read;                 /* read completely or partially */
    syspb_stream_stats stats;  /* for trace_info.pb: file_bytes, bytes_consumed, records = 1 */
    uint64_t declared_records; /* what trace_info.pb says was written (cpu_util: × cpu_count); 0 unknown */
} system_file_info;

/* Notes: the reader's codes (syspb_note_code) first, then the model's own. */
typedef enum system_note_code {
    SM_NOTE_UNMATCHED_BEGIN = SYSPB_NOTE_CODE_COUNT, /* begin without an end: kept as an open span */
    SM_NOTE_UNMATCHED_END,     /* end without a begin: kept as an orphan */
    SM_NOTE_TYPE_MISMATCH,     /* begin and end of one span id have different types */
    SM_NOTE_DUPLICATE_SPAN,    /* a second begin with a span id still open */
    SM_NOTE_BAD_ATTRIBUTE,     /* a numeric attribute that is not a number (kept as text) */
    SM_NOTE_TOO_MANY_ATTRS,    /* a span with more than SYSTEM_MODEL_SPAN_ATTRS_MAX attributes */
    SM_NOTE_MISSING_FILE,      /* cpu_util.pb or host_mem.pb absent */
    SM_NOTE_UNREADABLE_FILE,   /* cpu_util.pb or host_mem.pb could not be read */
    SM_NOTE_COUNT_MISMATCH,    /* fewer/more records than trace_info.pb declares */
    SM_NOTE_DUPLICATE_IDS,     /* an interned table repeats an id */
    SM_NOTE_NO_TYPE_TABLE,     /* trace_info.pb lacks ntrace_inspect_type: event types are unnamed */
    SM_NOTE_CODE_COUNT
} system_note_code;

/* Stable lowercase name of any note code (reader or model). */
const char *system_note_code_name(int code);

typedef struct system_model_note {
    int code;                  /* syspb_note_code or system_note_code */
    system_file file;
    uint64_t count;            /* occurrences */
    nl_error first;            /* the first occurrence: source, offset, record, field, message */
} system_model_note;

typedef struct system_model_counts {
    uint64_t records;          /* ntrace records handed to the model */
    uint64_t begins, ends, instants;
    uint64_t pairs, open_begins, orphan_ends;
    uint64_t notes_dropped;    /* notes beyond SYSTEM_MODEL_NOTES_MAX distinct ones */
} system_model_counts;

typedef struct system_model system_model;

/* ---- building (readers/system_profile.c) ------------------------------------------------------------ */

/* An empty model (every table created); memory_limit caps its arena (0 = none). NULL with err (NL_ERR_NOMEM). */
system_model *system_model_new(size_t memory_limit, nl_error *err) __attribute__((warn_unused_result));
void system_model_free(system_model *m);
/* What a reader fills, borrowed from the model. */
arena *system_model_arena(system_model *m);
strtab *system_model_strtab_mut(system_model *m);
table *system_model_table_mut(system_model *m, system_model_table t);
syspb_trace_info *system_model_trace_info_mut(system_model *m);
system_file_info *system_model_file_mut(system_model *m, system_file f);
system_model_counts *system_model_counts_mut(system_model *m);
/* Count a note under (code, file); the first occurrence is kept whole (`where` is copied). */
void system_model_add_note(system_model *m, int code, system_file file, const nl_error *where);
/* The same with the occurrence described here (source NULL = the file's name). */
void system_model_notef(system_model *m, int code, system_file file, const char *source, int64_t offset, int64_t record,
                       const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* ---- reading ---------------------------------------------------------------------------------------- */


const table *system_model_table_get(const system_model *m, system_model_table t);
const strtab *system_model_strings(const system_model *m);
const syspb_trace_info *system_model_trace_info(const system_model *m);
const system_file_info *system_model_file(const system_model *m, system_file f);
const system_model_counts *system_model_counts_get(const system_model *m);
size_t system_model_note_count(const system_model *m);
const system_model_note *system_model_note_at(const system_model *m, size_t i);

/* NEFF path of `model_id` from trace_info.pb's `system_trace` table (borrowed), or NULL. */
const char *system_model_neff_path(const system_model *m, uint64_t model_id);
/* strtab id of an event type name, or STRTAB_NONE when no span has it. */
uint32_t system_model_type(const system_model *m, const char *name);
/* Heap bytes the model holds: what its arena reserved plus its header. */
size_t system_model_bytes(const system_model *m);

#endif
