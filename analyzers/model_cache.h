/* model_cache — builds each device model once per (path, size, mtime) and shares it.
 *
 * A bounded LRU of finished device models (by entry count and by model bytes). nl_model_cache_get returns
 * a counted reference; the model stays alive while any reference is held, even after eviction. Two calls
 * for the same key at once read the file once: the second waits for the first. A failed or cancelled
 * load is not cached. Thread-safe: one mutex guards the table; loading runs without it.
 * `loads` counts file reads, so tests can prove a warm call did not re-read the file. */
#ifndef NL_MODEL_CACHE_H
#define NL_MODEL_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "nl_error.h"

#define NL_MODEL_CACHE_DEFAULT_ENTRIES 8
#define NL_MODEL_CACHE_DEFAULT_BYTES ((size_t)4 << 30)

typedef struct nl_model_cache nl_model_cache;
typedef struct nl_model_ref nl_model_ref;

typedef struct nl_model_load_options {
    const atomic_int *cancel;
    void (*progress)(void *ctx, uint64_t bytes_done, uint64_t bytes_total);
    void *progress_ctx;
} nl_model_load_options;

nl_model_cache *nl_model_cache_new(size_t max_entries, size_t max_bytes);
/* Frees the cache and its models. Every reference must have been released before. */
void nl_model_cache_free(nl_model_cache *c);

/* The model of the full JSON export at `path`, loading it on a miss. NULL with err on failure. */
nl_model_ref *nl_model_cache_get(nl_model_cache *c, const char *path, const nl_model_load_options *opt, nl_error *err)
    __attribute__((warn_unused_result));
/* The cached model for `path` if present and current, without loading; NULL otherwise. */
nl_model_ref *nl_model_cache_peek(nl_model_cache *c, const char *path);
const device_model *nl_model_ref_model(const nl_model_ref *r);
/* Whether this reference came from the cache without reading the file. */
int nl_model_ref_was_cached(const nl_model_ref *r);
/* Milliseconds the load took (0 when cached). */
double nl_model_ref_load_ms(const nl_model_ref *r);
void nl_model_ref_release(nl_model_ref *r);

uint64_t nl_model_cache_loads(nl_model_cache *c);

#endif
