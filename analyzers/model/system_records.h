/* system_records — the plain records a system profile is made of, shared by the system-profile reader
 * (readers/system_pb.c fills them) and the system model (model/system_model.c keeps them): the decoded
 * trace_info.pb with its interned tables, per-stream read statistics, and the reader's note codes.
 *
 * Owns nothing: strings and tables point into the arena of whoever decoded them (the model's). The lookups
 * are pure functions of the records; any thread may call them. They keep the `syspb_` prefix of the
 * reader that produces them, so a field reads the same in the reader and in the model. */
#ifndef NL_SYSTEM_RECORDS_H
#define NL_SYSTEM_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Interned-table names read from trace_info.pb (formats.md §9.2). */
#define SYSPB_TABLE_EVENT_TYPES "ntrace_inspect_type"  /* event type id → name */
#define SYSPB_TABLE_MODELS "system_trace"              /* model_id → NEFF path */

/* ---- trace_info.pb ---------------------------------------------------------------------------------- */

typedef struct syspb_intern_entry {
    uint64_t id;
    const char *value;
} syspb_intern_entry;

typedef struct syspb_intern_table {
    const char *name;
    size_t count;
    const syspb_intern_entry *entries; /* sorted by id; a repeated id keeps its first value */
    size_t duplicate_ids;              /* entries dropped because their id repeated */
} syspb_intern_table;

/* Everything optional: 0 / NULL when the file did not carry the field. */
typedef struct syspb_trace_info {
    uint64_t format_version, pid, event_count, start_ns, end_ns;
    const char *instance_id, *instance_type, *hostname, *host_ip;
    const char *ntrace_path;           /* as written at capture time */
    uint64_t ntrace_records;           /* f6.3: events written */
    uint64_t cpu_count, memory_bytes;
    const char *cpu_model;
    double cpu_util_period_s, host_mem_period_s;
    uint64_t cpu_util_records;         /* f7.6.3: samples *per CPU* */
    uint64_t host_mem_records;
    size_t table_count;
    const syspb_intern_table *tables;
    size_t unknown_fields;             /* fields the schema does not know, at any depth */
    uint64_t file_bytes;
} syspb_trace_info;

typedef struct syspb_stream_stats {
    uint64_t file_bytes;       /* input size */
    uint64_t bytes_consumed;   /* bytes of complete records; == file_bytes when framing reached the end */
    uint64_t records;          /* complete records framed */
    uint64_t records_decoded;  /* handed to the sink */
    uint64_t records_skipped;  /* framed but not handed over (bad record, missing field, ...) */
    uint64_t notes;            /* notes emitted */
    bool partial;              /* some records skipped or bytes left unread */
} syspb_stream_stats;

typedef enum syspb_note_code {
    SYSPB_NOTE_TRUNCATED,      /* the stream ends inside a length prefix or record: the rest is lost */
    SYSPB_NOTE_OVERSIZED,      /* a length prefix above the record cap: framing lost, reading stopped */
    SYSPB_NOTE_BAD_RECORD,     /* a record that does not decode (wrong wire type, bad varint, …): skipped */
    SYSPB_NOTE_MISSING_FIELD,  /* a record without a field it needs (timestamp, type, phase, span): skipped */
    SYSPB_NOTE_UNKNOWN_TYPE,   /* an event type id absent from ntrace_inspect_type: kept, unnamed */
    SYSPB_NOTE_UNKNOWN_PHASE,  /* phase not 1/2/3: skipped */
    SYSPB_NOTE_VALUE_RANGE,    /* timestamp above int64, cpu id above the cap, utilisation not 0..100: skipped */
    SYSPB_NOTE_UNKNOWN_FIELDS, /* fields the schema does not know (schema drift): record kept */
    SYSPB_NOTE_CODE_COUNT
} syspb_note_code;

/* Stable lowercase name ("truncated", "bad_record", ...). */
const char *syspb_note_code_name(syspb_note_code code);

/* The table called `name`, or NULL. */
const syspb_intern_table *syspb_trace_info_table(const syspb_trace_info *ti, const char *name);
/* The string of `id` in `t` (borrowed), or NULL when absent (or t is NULL). */
const char *syspb_intern_lookup(const syspb_intern_table *t, uint64_t id);

#endif
