/* neuron_json — reader for the full JSON export (`neuron-profile view --output-format json`, formats.md §4).
 *
 * Owns: nothing after it returns; on success the caller owns the new device_model (device_model_free).
 * Streams the file in NEURON_JSON_READ_SIZE reads through json_stream: memory is the model plus one read
 * buffer per thread, whatever the file size. Arrays neuronlens does not model are skipped and counted (model
 * notes). A large regular file (or memory buffer) is split between its records and parsed on `threads`
 * threads (neuron_json_par.c); the model is the same as a sequential read's, value for value and id for id.
 * Threads: any thread; one call per model; the call may start threads of its own and joins them before it
 * returns. The cancel flag may be set from another thread; the progress callback runs on the calling thread.
 * Errors: -1 and nl_error naming the file, the byte offset, the record index and the field
 * ("<array>.<key>"): NL_ERR_IO, NL_ERR_FORMAT (malformed JSON or a value of the wrong type), NL_ERR_TRUNCATED
 * (input ends inside the document), NL_ERR_LIMIT, NL_ERR_NOMEM, NL_ERR_CANCELLED. No model on failure.
 * Errors are those of the sequential read (a split read that fails is repeated sequentially to report it). */
#ifndef NL_NEURON_JSON_H
#define NL_NEURON_JSON_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "nl_error.h"

/* Bytes per read(2), and how many records pass between two polls of the cancel flag. */
#define NEURON_JSON_READ_SIZE ((size_t)1 << 20)
#define NEURON_JSON_POLL_RECORDS 1024u
/* Minimum bytes between two progress callbacks (plus one at the start and one at the end). */
#define NEURON_JSON_PROGRESS_STEP ((uint64_t)8 << 20)
/* Inputs smaller than this are read on the calling thread; most threads one read starts. */
#define NEURON_JSON_SPLIT_MIN ((size_t)32 << 20)
#define NEURON_JSON_THREADS_MAX 64u

typedef struct neuron_json_options {
    const atomic_int *cancel; /* nullable; when it reads nonzero the read stops with NL_ERR_CANCELLED */
    /* nullable; bytes consumed so far and the input size (0 when unknown, e.g. a pipe). Keep it cheap. */
    void (*progress)(void *ctx, uint64_t bytes_done, uint64_t bytes_total);
    void *progress_ctx;
    size_t read_size;    /* 0 = NEURON_JSON_READ_SIZE */
    size_t memory_limit; /* cap on the model's memory, 0 = none (exceeding it → NL_ERR_NOMEM); a limit makes
                            the read sequential */
    unsigned threads;    /* threads for one large input: 0 = online CPUs (≤ NEURON_JSON_THREADS_MAX), 1 = none */
    size_t split_min;    /* inputs below this many bytes are read sequentially; 0 = NEURON_JSON_SPLIT_MIN */
    size_t split_records; /* elements per piece of a split array; 0 = TABLE_SEG_ROWS (whole table segments,
                             merged by copy). Tests use small values to cut everywhere. */
    size_t *split_pieces; /* nullable; set to the pieces the input was split into (0 = read sequentially) */
    int tokens_only;      /* nonzero: records go through json_stream_next token by token, never through the
                             json_stream_flat_object fast path (tests compare the two; bench A/B) */
    uint64_t *fast_records; /* nullable; set to the records of a sequential read that took the fast path */
} neuron_json_options;

/* Read the export at `path`. opt may be NULL. 0 and *out = a finished model, or -1 with err set. */
int neuron_json_read(const char *path, const neuron_json_options *opt, device_model **out, nl_error *err)
    __attribute__((warn_unused_result));

/* Same from an open descriptor (not closed); `name` labels errors. */
int neuron_json_read_fd(int fd, const char *name, const neuron_json_options *opt, device_model **out,
                        nl_error *err) __attribute__((warn_unused_result));

/* Same from memory (tests, embedded demo data). */
int neuron_json_read_mem(const void *data, size_t len, const char *name, const neuron_json_options *opt,
                         device_model **out, nl_error *err) __attribute__((warn_unused_result));

#endif
