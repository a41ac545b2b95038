/* kineto — streaming reader for PyTorch/Kineto (Chrome trace event) trace.json and trace.json.gz
 * (formats.md §10).
 *
 * Owns: nothing after it returns; on success the caller owns the new framework_model
 * (framework_model_free). Never builds a DOM: bytes are read (and inflated, when the file starts with the
 * gzip magic 1f 8b; concatenated members are read in turn) in KINETO_READ_SIZE chunks and pushed through
 * json_stream; memory is the model plus one read buffer, whatever the file size.
 * Threads: any thread; one call per model. The cancel flag may be set from another thread; the progress
 * callback runs on the calling thread.
 * Errors: -1 and nl_error naming the file, the byte offset (in the decompressed JSON text; the message says
 * when the file was gzipped) and, inside traceEvents, the event index: NL_ERR_IO, NL_ERR_FORMAT (not JSON,
 * no traceEvents, corrupt gzip), NL_ERR_TRUNCATED, NL_ERR_LIMIT, NL_ERR_NOMEM, NL_ERR_CANCELLED.
 * Partial results: when the input is cut off or breaks (truncated JSON or gzip, malformed JSON, a cap)
 * after traceEvents has begun, the events read so far are kept and the call succeeds with a model that
 * framework_model_partial() reports, carrying that error — unless options.strict asks for the error. */
#ifndef NL_KINETO_H
#define NL_KINETO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framework_model.h"
#include "nl_error.h"

/* Bytes per read(2) (and per inflate output step), and events between two polls of the cancel flag. */
#define KINETO_READ_SIZE ((size_t)1 << 20)
#define KINETO_POLL_EVENTS 4096u
/* Minimum input bytes between two progress callbacks (plus one at the start and one at the end). */
#define KINETO_PROGRESS_STEP ((uint64_t)8 << 20)
/* Caps: events kept, bytes of one event name (longer names are truncated and noted), bytes of any one JSON
 * string (longer → NL_ERR_LIMIT), nesting depth. */
#define KINETO_EVENTS_MAX ((size_t)1 << 31)
#define KINETO_NAME_MAX ((size_t)64 << 10)
#define KINETO_STRING_MAX ((size_t)16 << 20)
#define KINETO_DEPTH_MAX 128u

typedef struct kineto_options {
    const atomic_int *cancel; /* nullable; when it reads nonzero the read stops with NL_ERR_CANCELLED */
    /* nullable; file bytes consumed so far and the file size (0 when unknown). Keep it cheap. */
    void (*progress)(void *ctx, uint64_t bytes_done, uint64_t bytes_total);
    void *progress_ctx;
    size_t read_size;    /* 0 = KINETO_READ_SIZE */
    size_t memory_limit; /* cap on the model's memory, 0 = none (exceeding it → NL_ERR_NOMEM) */
    bool strict;         /* fail instead of returning a partial model */
} kineto_options;

/* Read the trace at `path`. opt may be NULL. 0 and *out = a finished model, or -1 with err set. */
int kineto_read(const char *path, const kineto_options *opt, framework_model **out, nl_error *err)
    __attribute__((warn_unused_result));

/* Same from an open descriptor (not closed); `name` labels errors. */
int kineto_read_fd(int fd, const char *name, const kineto_options *opt, framework_model **out, nl_error *err)
    __attribute__((warn_unused_result));

/* Same from memory (raw JSON or gzip bytes). */
int kineto_read_mem(const void *data, size_t len, const char *name, const kineto_options *opt,
                    framework_model **out, nl_error *err) __attribute__((warn_unused_result));

/* Exact µs → ns: convert a JSON number literal (or a numeric string) s[0..len) in µs into int64 ns
 * without going through double: integer part ×1000 plus the fraction digits, rounded half to even past
 * the third decimal; exponents allowed. 0, or -1 when the text is not a number or the result leaves the
 * int64 range. */
int kineto_us_to_ns(const char *s, size_t len, int64_t *ns);

#endif
