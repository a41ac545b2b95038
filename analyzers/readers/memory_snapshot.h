/* memory_snapshot — reader for PyTorch caching-allocator snapshots (memory_snapshot_rank<N>.pickle, the
 * torch.cuda.memory._snapshot() dict pickled by _dump_snapshot / NeuronProfiler.export_snapshot) into a
 * memory_model.
 *
 * Owns: nothing after it returns; on success the caller owns the new memory_model (memory_model_free).
 * Reads through pickle.h, so nothing in the file is ever executed, and streams: memory is the model plus
 * the pickle reader's state (its stack, the memo entries read back — frames and stacks, shared through the
 * memo — and one read buffer) and the blocks of the segment being read.
 * Threads: any thread; one call per model; the cancel flag may be set from another thread.
 * Errors: -1 with nl_error naming the file and byte offset: the pickle reader's errors (NL_ERR_FORMAT,
 * NL_ERR_TRUNCATED, NL_ERR_LIMIT, NL_ERR_UNSUPPORTED for refused opcodes, NL_ERR_IO, NL_ERR_CANCELLED),
 * NL_ERR_FORMAT with "not a PyTorch memory snapshot" for a valid pickle of something else (the root is
 * not a dict with a `segments` list), NL_ERR_FORMAT for a snapshot field of the wrong type where the model
 * cannot do without it (field set: e.g. a segment without `total_size`, a block state that is not a str,
 * a key written twice), NL_ERR_NOMEM (model over memory_limit).
 * What is read: the layout is in the header of memory_snapshot.c; unknown keys and values of unexpected
 * types where the model can do without them are skipped and listed as notes (memory_model_note_at). */
#ifndef NL_MEMORY_SNAPSHOT_H
#define NL_MEMORY_SNAPSHOT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "memory_model.h"
#include "nl_error.h"

/* Blocks one segment may hold (they are buffered until the segment's dict ends). */
#define MEMORY_SNAPSHOT_BLOCKS_MAX ((size_t)1 << 24)

typedef struct memory_snapshot_options {
    const atomic_int *cancel; /* nullable */
    size_t read_size;         /* 0 = PICKLE_READ_SIZE */
    size_t memory_limit;      /* cap on the model's memory, 0 = none */
} memory_snapshot_options;

/* Read the snapshot at `path`. opt may be NULL. 0 and *out = a finished model, or -1 with err set. */
int memory_snapshot_read(const char *path, const memory_snapshot_options *opt, memory_model **out, nl_error *err)
    __attribute__((warn_unused_result));
/* Same from an open descriptor (read with pread from offset 0, twice; not closed); `name` labels errors. */
int memory_snapshot_read_fd(int fd, const char *name, const memory_snapshot_options *opt, memory_model **out,
                            nl_error *err) __attribute__((warn_unused_result));
/* Same from memory. */
int memory_snapshot_read_mem(const void *data, size_t len, const char *name, const memory_snapshot_options *opt,
                             memory_model **out, nl_error *err) __attribute__((warn_unused_result));

#endif
