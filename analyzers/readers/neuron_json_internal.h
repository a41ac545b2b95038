/* neuron_json_internal — what neuron_json.c (the reader's state machine) and neuron_json_par.c (the split
 * read on several threads) share. Not for use outside analyzers/readers.
 *
 * A read pulls bytes from an nj_input; neuron_json_par.c supplies inputs that read one piece of a split
 * array (behind a synthetic `{"<name>":[` prefix and before a `]}` suffix) or the document with the pieces
 * left out, and an nj_split_hook through which the document read merges the pieces' models. */
#ifndef NL_NEURON_JSON_INTERNAL_H
#define NL_NEURON_JSON_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "device_model.h"
#include "neuron_json.h"
#include "nl_error.h"

typedef struct nj_input {
    /* Copy up to `want` (> 0) bytes to dst: the count, 0 at the end of input, or -1 with err set. */
    ssize_t (*read)(void *ctx, char *dst, size_t want, nl_error *err);
    void *ctx;
} nj_input;

typedef struct nj_split_hook {
    /* Called on the reading thread at the '[' (absolute offset) of every top-level array, whose member name
     * is name[0, len). 1: its elements were parsed elsewhere and are now merged into m, *count = how many
     * (the input will skip their bytes); 0: read them here; -1 with err set. */
    int (*array)(void *ctx, device_model *m, int64_t offset, const char *name, size_t len, uint64_t *count,
                 nl_error *err);
    void *ctx;
} nj_split_hook;

/* One read of `in` into a new model. split nullable. piece_count non-NULL reads a piece: the input holds
 * `{"<name>":[<elements>]}`; the model is not finished (times stay raw), gets no note for the array itself,
 * and *piece_count = its elements. */
int nj_read_input(const char *name, const neuron_json_options *opt, const nj_input *in, uint64_t bytes_total,
                  const nj_split_hook *split, uint64_t *piece_count, device_model **out, nl_error *err)
    __attribute__((warn_unused_result));

/* Whether the top-level array `name` may be split (a table, or an array neuronlens skips; not a singleton
 * record such as metadata); *which = its device_model_table, or -1 for a skipped array. */
int nj_array_splittable(const char *name, size_t len, int *which);

/* Online CPUs, at least 1 and at most NEURON_JSON_THREADS_MAX. */

/* The split read (neuron_json_par.c). 0: done (*out set); -1: err set, final (NL_ERR_CANCELLED); 1: not
 * done — the input is too small or has nothing to split, or the split read failed — read sequentially. An fd
 * read leaves the file offset where a sequential read would (at the end) only on success. */
int nj_par_read_fd(int fd, const char *name, const neuron_json_options *opt, unsigned threads, device_model **out,
                   nl_error *err) __attribute__((warn_unused_result));
int nj_par_read_mem(const void *data, size_t len, const char *name, const neuron_json_options *opt, unsigned threads,
                    device_model **out, nl_error *err) __attribute__((warn_unused_result));

#endif
