/* system_pb — reader for the Neuron system-profile files (formats.md §9): trace_info.pb (one message) and
 * the `[u32 LE length][message]` streams ntrace.pb, cpu_util.pb and host_mem.pb, decoded with the protoc-c
 * code generated from the proto/ schemas (the generated types stay inside system_pb.c).
 *
 * Owns: a decoded trace_info lives in the arena the caller passes (it dies with the caller's model).
 * Stream records go to the caller's sink one at a time; everything a callback sees is borrowed for that
 * callback only. The framer buffers at most one record that straddles two pushes.
 * Threads: any thread; no shared state. A cancel flag may be set from another thread.
 * Errors: -1 + nl_error for what stops reading: I/O, NL_ERR_NOMEM, NL_ERR_CANCELLED, a sink failure, and
 * a trace_info.pb that is not a valid message. Problems inside a stream are *notes* handed to the sink —
 * each an nl_error naming the file, the absolute byte offset, the record index and (when known) the
 * field — and reading goes on where the framing allows; syspb_stream_stats.partial then says the result
 * is incomplete. Event type names come from trace_info.pb's `ntrace_inspect_type` table, never from
 * hard-coded ids. */
#ifndef NL_SYSTEM_PB_H
#define NL_SYSTEM_PB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "nl_error.h"
#include "system_records.h"

/* ---- caps ------------------------------------------------------------------------------------------- */

#define SYSPB_RECORD_MAX ((size_t)16 << 20)      /* largest stream record accepted (a length above it
                                                    means the framing is lost: reading stops) */
#define SYSPB_TRACE_INFO_MAX ((size_t)64 << 20)   /* largest trace_info.pb read */
#define SYSPB_READ_SIZE ((size_t)1 << 20)         /* bytes per pread of a stream */
#define SYSPB_POLL_RECORDS 4096u                  /* records between two polls of the cancel flag */
#define SYSPB_CPU_ID_MAX 65535u                   /* larger cpu ids are value-range notes */
#define SYSPB_DIAG_DEPTH 8                        /* nesting followed when locating a decode error */

/* Decode trace_info.pb at `path` into `out`; strings and tables live in `a`. */
__attribute__((warn_unused_result))
int syspb_trace_info_read(const char *path, arena *a, syspb_trace_info *out, nl_error *err);
/* Same from memory; `name` labels errors. */
__attribute__((warn_unused_result))
int syspb_trace_info_decode(const void *data, size_t len, const char *name, arena *a, syspb_trace_info *out,
                            nl_error *err);

/* ---- framing ---------------------------------------------------------------------------------------- */

/* Called once per complete record: `msg[0..len)` (borrowed), `offset` = absolute offset of its length
 * prefix, `record` = its index. Return -1 (err set) to stop. */
typedef int (*syspb_record_fn)(void *ctx, const uint8_t *msg, size_t len, int64_t offset, int64_t record,
                               nl_error *err);

/* A push framer for `[u32 LE length][message]` streams: feed bytes in chunks of any size (one byte at a
 * time works); complete records are delivered in order. Caller storage; fields are private. */
typedef struct syspb_framer {
    const char *source;
    size_t record_max;
    uint64_t offset;        /* absolute offset of the next byte pushed */
    uint64_t record_start;  /* offset of the current record's length prefix */
    int64_t records;        /* records delivered */
    uint8_t hdr[4];
    unsigned hdr_have;
    bool in_body;
    uint32_t body_len;
    uint8_t *body;          /* buffer for a record split across pushes (malloc) */
    size_t body_have, body_cap;
    bool failed;
    bool oversized;         /* the failure was a length prefix above record_max */
} syspb_framer;

/* record_max 0 = SYSPB_RECORD_MAX. */
void syspb_framer_init(syspb_framer *f, const char *source, size_t record_max);
/* Deliver every record completed by buf[0..len). Fails with NL_ERR_LIMIT (a length prefix above
 * record_max: offset = the prefix), NL_ERR_NOMEM, or the callback's error; after a failure the framer
 * refuses further input. */
__attribute__((warn_unused_result))
int syspb_framer_push(syspb_framer *f, const uint8_t *buf, size_t len, syspb_record_fn fn, void *ctx,
                      nl_error *err);
/* End of input: NL_ERR_TRUNCATED when it fell inside a length prefix or a record (offset = the start of
 * that prefix, record = its index). */
__attribute__((warn_unused_result))
int syspb_framer_finish(syspb_framer *f, nl_error *err);
/* Bytes of complete records (prefixes included) delivered so far. */
uint64_t syspb_framer_consumed(const syspb_framer *f);
void syspb_framer_close(syspb_framer *f);

/* ---- streams ---------------------------------------------------------------------------------------- */

typedef enum syspb_stream_kind { SYSPB_NTRACE, SYSPB_CPU_UTIL, SYSPB_HOST_MEM } syspb_stream_kind;

/* Phases of ntrace.pb f14. */
enum { SYSPB_PHASE_BEGIN = 1, SYSPB_PHASE_END = 2, SYSPB_PHASE_INSTANT = 3 };

typedef struct syspb_attr {
    const char *key, *value;   /* NUL-terminated; "" when the attribute lacked one */
} syspb_attr;

typedef struct syspb_event {
    int64_t offset, record;    /* of the record's length prefix */
    uint64_t timestamp_ns;     /* ≤ INT64_MAX (larger values are skipped with a note) */
    uint64_t type_id;
    const char *type_name;     /* from ntrace_inspect_type; NULL when the id is not there (noted) */
    uint64_t phase;            /* SYSPB_PHASE_* */
    uint64_t thread_id, seq_id, span_id;
    bool has_span_id;
    size_t attr_count;
    const syspb_attr *attrs;
} syspb_event;

typedef struct syspb_cpu_sample {
    int64_t offset, record;
    uint64_t timestamp_ns;
    uint32_t cpu;              /* 0 when the record omits f3 (as the writer does for CPU 0) */
    bool has_util;             /* false: f1 omitted (the writer omits 0 %) */
    double util_pct;
} syspb_cpu_sample;

typedef struct syspb_mem_sample {
    int64_t offset, record;
    uint64_t timestamp_ns, used_bytes;
} syspb_mem_sample;

typedef struct syspb_note {
    syspb_note_code code;
    nl_error where;            /* code, source, offset, record, field, message */
} syspb_note;

/* Callbacks for decoded records; the one matching the stream kind must be set. Return -1 (err set) to
 * stop reading. `note` may be NULL. */
typedef struct syspb_sink {
    void *ctx;
    int (*event)(void *ctx, const syspb_event *ev, nl_error *err);
    int (*cpu)(void *ctx, const syspb_cpu_sample *s, nl_error *err);
    int (*mem)(void *ctx, const syspb_mem_sample *s, nl_error *err);
    void (*note)(void *ctx, const syspb_note *n);
} syspb_sink;

typedef struct syspb_options {
    const atomic_int *cancel;  /* nullable */
    size_t read_size;          /* 0 = SYSPB_READ_SIZE */
    size_t record_max;         /* 0 = SYSPB_RECORD_MAX */
} syspb_options;

/* Read the stream at `path` of `kind`. `ti` (nullable) names event types; without it every event is an
 * unknown type. opt may be NULL. `stats` is complete on success; after a failure it holds the counts up to
 * the failure. */
__attribute__((warn_unused_result))
int syspb_read_stream(const char *path, syspb_stream_kind kind, const syspb_trace_info *ti, const syspb_options *opt,
                      const syspb_sink *sink, syspb_stream_stats *stats, nl_error *err);
/* Same from memory; `name` labels errors and notes. */
__attribute__((warn_unused_result))
int syspb_read_stream_mem(const void *data, size_t len, const char *name, syspb_stream_kind kind,
                          const syspb_trace_info *ti, const syspb_options *opt, const syspb_sink *sink,
                          syspb_stream_stats *stats, nl_error *err);

#endif
