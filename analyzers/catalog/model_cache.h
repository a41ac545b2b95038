/* model_cache — builds each device model once per (path, size, mtime) and shares it.
 *
 * A bounded LRU of finished device models (by entry count and by model bytes). nl_model_cache_get returns
 * a counted reference; the model stays alive while any reference is held, even after eviction. Two calls
 * for the same key at once read the file once: the second waits for the first. A failed or cancelled
 * load is not cached. Thread-safe: one mutex guards the table; loading runs without it.
 * `loads` counts file reads, so tests can prove a warm call did not re-read the file.
 * Memos: objects derived from a cached model (nl_model_ref_memo) or from another file (a show-session dump,
 * a system or framework model: nl_model_cache_file_memo), and objects derived from such a file object in turn
 * (nl_model_ref_object_memo: e.g. a summary of a cached system model), are built once per key, counted in the
 * same byte bound and freed with what they derive from. Lock order: the cache mutex and a model's memo mutex
 * are never held together; builds run without either. */
#ifndef NL_MODEL_CACHE_H
#define NL_MODEL_CACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "nl_error.h"

#define NL_MODEL_CACHE_DEFAULT_ENTRIES 256 /* the byte bound is the real limit; 32-rank captures must stay warm */
#define NL_MODEL_CACHE_DEFAULT_BYTES ((size_t)4 << 30)

typedef struct nl_model_cache nl_model_cache;
typedef struct nl_model_ref nl_model_ref;

typedef struct nl_model_load_options {
    const atomic_int *cancel;
    void (*progress)(void *ctx, uint64_t bytes_done, uint64_t bytes_total);
    void *progress_ctx;
    unsigned threads; /* threads for one large export (neuron_json_options.threads): 0 = online CPUs */
} nl_model_load_options;

nl_model_cache *nl_model_cache_new(size_t max_entries, size_t max_bytes);
/* Frees the cache and its models. Every reference must have been released before. */
void nl_model_cache_free(nl_model_cache *c);

/* The model of the full JSON export at `path`, loading it on a miss. NULL with err on failure. */
nl_model_ref *nl_model_cache_get(nl_model_cache *c, const char *path, const nl_model_load_options *opt, nl_error *err)
    __attribute__((warn_unused_result));
/* Load the exports paths[0, n) into the cache at once, one per thread on up to `threads` threads (0 = online
 * CPUs), each read on its own thread (no split read inside, so cores are not oversubscribed); paths already
 * cached or loading are left alone. For callers about to use many small models (orient over a capture):
 * on 2 cores a page of ten 12 MB exports loads in half the time. Failed loads are not cached, so the caller's
 * own nl_model_cache_get reports them. Returns when every load is done; stops starting loads once *cancel
 * (nullable) is nonzero. Thread-safe. */
void nl_model_cache_prefetch(nl_model_cache *c, const char *const *paths, size_t n, unsigned threads,
                             const atomic_int *cancel);
/* The cached model for `path` if present and current, without loading; NULL otherwise. */
nl_model_ref *nl_model_cache_peek(nl_model_cache *c, const char *path);
/* The model of a reference from get/peek (NULL for a file-memo reference). */
const device_model *nl_model_ref_model(const nl_model_ref *r);
/* Whether this reference came from the cache without reading the file. */
int nl_model_ref_was_cached(const nl_model_ref *r);
/* Milliseconds the load took (0 when cached). */
double nl_model_ref_load_ms(const nl_model_ref *r);
void nl_model_ref_release(nl_model_ref *r);

uint64_t nl_model_cache_loads(nl_model_cache *c);

/* ---- memos ------------------------------------------------------------------------------------------ */

#define NL_MODEL_MEMO_MAX 64          /* memos kept per model; further keys are built per reference */
#define NL_MODEL_MEMO_KEY_MAX 256     /* bytes of a memo key, NUL included */

/* Build the object derived from `m` (or from the file at `path`). Return it — the cache owns it from then on
 * and frees it with `release` — and its heap size in *bytes (for the byte bound); or NULL with err set
 * (NL_ERR_CANCELLED when the build polled a cancel flag through ctx). Runs without any cache lock. */
typedef void *(*nl_memo_build_fn)(const device_model *m, void *ctx, size_t *bytes, nl_error *err);
typedef void *(*nl_file_memo_build_fn)(const char *path, void *ctx, size_t *bytes, nl_error *err);
typedef void *(*nl_object_memo_build_fn)(const void *obj, void *ctx, size_t *bytes, nl_error *err);
typedef void (*nl_memo_release_fn)(void *obj);

/* The object for `key` derived from r's model, built on the first call for (model, key). Concurrent callers
 * with the same key wait for one build; a failed or cancelled build is not kept (the next caller builds).
 * A waiter stops waiting with NL_ERR_CANCELLED once *cancel is nonzero (cancel may be NULL). The object is
 * borrowed: valid while `r` is held, freed with the model. Past NL_MODEL_MEMO_MAX keys on one model the
 * object is built for this reference only and freed when it is released. `key` must name everything the
 * build depends on besides the model (NL_ERR_ARGUMENT when it does not fit NL_MODEL_MEMO_KEY_MAX).
 * NULL with err on failure; r must come from nl_model_cache_get/peek (not from a file memo). */
const void *nl_model_ref_memo(nl_model_ref *r, const char *key, nl_memo_build_fn build, nl_memo_release_fn release,
                              void *ctx, const atomic_int *cancel, nl_error *err) __attribute__((warn_unused_result));

/* Whether nl_model_ref_memo / nl_model_ref_object_memo would keep `key` for the model (it is kept already,
 * or fewer than NL_MODEL_MEMO_MAX keys are): callers whose object only pays off when shared (an index that
 * costs more to build than one direct answer) skip it otherwise. */
bool nl_model_ref_memo_has_room(nl_model_ref *r, const char *key);

/* An object derived from the file at `path` (not a device model: e.g. a parsed show-session dump), cached
 * like a model: keyed by (path, key, size, mtime), in the same LRU and byte bound, built once (concurrent
 * callers wait; failures are not kept). Returns a counted reference — read the object with
 * nl_model_ref_object, release with nl_model_ref_release — or NULL with err (NL_ERR_NOT_FOUND when `path`
 * cannot be stat'ed, the build's error, NL_ERR_CANCELLED for a cancelled waiter, NL_ERR_NOMEM). */
nl_model_ref *nl_model_cache_file_memo(nl_model_cache *c, const char *path, const char *key, nl_file_memo_build_fn build,
                                       nl_memo_release_fn release, void *ctx, const atomic_int *cancel, nl_error *err)
    __attribute__((warn_unused_result));
/* The object of a file-memo reference (NULL for a model reference); borrowed while r is held. */
const void *nl_model_ref_object(const nl_model_ref *r);

/* nl_model_ref_memo for a file-memo reference: the object for `key` derived from nl_model_ref_object(r)
 * (build gets that object), with the same rules — built once per (object, key), waiters, failures not kept,
 * borrowed while r is held, freed with the object, its bytes in the byte bound. NL_ERR_ARGUMENT when r is a
 * model reference. */
const void *nl_model_ref_object_memo(nl_model_ref *r, const char *key, nl_object_memo_build_fn build,
                                     nl_memo_release_fn release, void *ctx, const atomic_int *cancel, nl_error *err)
    __attribute__((warn_unused_result));

/* A number naming what r refers to (a model or file object as loaded once): never 0, never reused by this
 * cache, the same for every reference to the same load. A memo key may name another cached object by it
 * (e.g. a join of two models), since a reloaded file gets a new serial. */
uint64_t nl_model_ref_serial(const nl_model_ref *r);

/* Bytes the cache accounts for (models, file objects and memos of the entries it holds). */
size_t nl_model_cache_bytes(nl_model_cache *c);

#endif
