/* model_cache — builds each model once per version of its files and shares it, whatever the profile kind.
 *
 * A bounded LRU (by entry count and by bytes) of finished models of every kind: device (a full JSON
 * export), system (a capture directory's .pb files), framework (a Kineto trace) and show-session (a dump).
 * nl_model_cache_get returns one typed, counted reference (kind + model); the model stays alive while any
 * reference is held, even after eviction. Two calls for the same source at once read the files once: the
 * second waits for the first. A failed or cancelled load is not cached. Thread-safe: one mutex guards the
 * table; loading runs without it. `loads` counts reads, so tests can prove a warm call did not re-read.
 * Key: the main file's path, size and mtime plus, for a system profile, the size, mtime and path of its
 * companion files (trace_info.pb, cpu_util.pb, host_mem.pb), and for a Parquet directory the count, total
 * size and latest mtime of its *.parquet files, so rewriting any of them reads it again.
 * Memos: objects derived from a model (a summary, a row order, a join with another model) are built once
 * per (model, key) by nl_model_ref_memo, whatever the kind, counted in the same byte bound, freed with the
 * model and evicted with it. Lock order: the cache mutex and a model's memo mutex are never held together;
 * builds run without either. */
#ifndef NL_MODEL_CACHE_H
#define NL_MODEL_CACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "framework_model.h"
#include "memory_model.h"
#include "nl_error.h"
#include "show_session_model.h"
#include "system_model.h"

#define NL_MODEL_CACHE_DEFAULT_ENTRIES 256 /* the byte bound is the real limit; 32-rank captures must stay warm */
#define NL_MODEL_CACHE_DEFAULT_BYTES ((size_t)4 << 30)

typedef struct nl_model_cache nl_model_cache;
typedef struct nl_model_ref nl_model_ref;

/* What a model is read from. `path` is the main file: the export (device), the NTFF (device, decoded
 * natively), ntrace.pb (system), the trace (framework), the dump (show-session). A system profile also names
 * its companions (NULL when the capture lacks them; trace_info.pb is required). `label` names a show-session
 * dump in errors (nullable). An NTFF model is one physical core: `core` is its physical id (or its index
 * when the file names none), -1 for the core with the most instruction records. */
typedef enum nl_model_kind {
    NL_MODEL_DEVICE,
    NL_MODEL_SYSTEM,
    NL_MODEL_FRAMEWORK,
    NL_MODEL_SHOW_SESSION,
    NL_MODEL_NTFF,             /* a device_model decoded from the NTFF itself (nl_model_ref_device reads it) */
    NL_MODEL_MEMORY,           /* a memory_model of a PyTorch allocator snapshot */
    NL_MODEL_PARQUET,          /* a device_model of a neuron-explorer Parquet directory (`path` = the directory) */
    NL_MODEL_KIND_COUNT
} nl_model_kind;

typedef struct nl_model_source {
    nl_model_kind kind;
    const char *path;
    const char *trace_info, *cpu_util, *host_mem;
    const char *label;
    int64_t core;
} nl_model_source;

/* Stable name of a kind ("device", "system", "framework", "show_session", "ntff", "memory", "parquet"). */
const char *nl_model_kind_name(nl_model_kind kind);

typedef struct nl_model_load_options {
    const atomic_int *cancel;
    void (*progress)(void *ctx, uint64_t bytes_done, uint64_t bytes_total); /* device and framework reads */
    void *progress_ctx;
    unsigned threads; /* threads for one large export (neuron_json_options.threads): 0 = one per CPU */
} nl_model_load_options;

nl_model_cache *nl_model_cache_new(size_t max_entries, size_t max_bytes);
/* Frees the cache and its models. Every reference must have been released before. */
void nl_model_cache_free(nl_model_cache *c);

/* The model of `src`, loading it on a miss. NULL with err on failure: NL_ERR_NOT_FOUND when the main file
 * cannot be stat'ed, the reader's error (a cut-off Kineto trace is not an error but a model marked partial),
 * NL_ERR_CANCELLED, NL_ERR_NOMEM. */
nl_model_ref *nl_model_cache_get(nl_model_cache *c, const nl_model_source *src, const nl_model_load_options *opt,
                                 nl_error *err) __attribute__((warn_unused_result));
/* Load the sources srcs[0, n) into the cache at once, one per thread on up to `threads` threads (0 = one per
 * CPU), each read on its own thread (no split read inside, so cores are not oversubscribed); sources already
 * cached or loading are left alone. For callers about to use many small models (orient over a capture): on
 * 2 cores a page of ten 12 MB exports loads in half the time. Failed loads are not cached, so the caller's
 * own nl_model_cache_get reports them. Returns when every load is done; stops starting loads once *cancel
 * (nullable) is nonzero. Thread-safe. */
void nl_model_cache_prefetch(nl_model_cache *c, const nl_model_source *srcs, size_t n, unsigned threads,
                             const atomic_int *cancel);
/* The cached model of `src` if present and current, without loading; NULL otherwise. */
nl_model_ref *nl_model_cache_peek(nl_model_cache *c, const nl_model_source *src);

/* The kind of a reference, and its model: each typed accessor returns NULL for a reference of another kind
 * (a device model decoded from an NTFF or read from Parquet tables is a device model: nl_model_ref_device
 * returns it). */
nl_model_kind nl_model_ref_kind(const nl_model_ref *r);
const device_model *nl_model_ref_device(const nl_model_ref *r);
const system_model *nl_model_ref_system(const nl_model_ref *r);
const framework_model *nl_model_ref_framework(const nl_model_ref *r);
const show_session *nl_model_ref_show_session(const nl_model_ref *r);
const memory_model *nl_model_ref_memory(const nl_model_ref *r);
/* Whether this reference came from the cache without reading the files. */
int nl_model_ref_was_cached(const nl_model_ref *r);
/* Milliseconds the load took (0 when cached). */
double nl_model_ref_load_ms(const nl_model_ref *r);
void nl_model_ref_release(nl_model_ref *r);

uint64_t nl_model_cache_loads(nl_model_cache *c);

/* ---- memos ------------------------------------------------------------------------------------------ */

#define NL_MODEL_MEMO_MAX 64          /* memos kept per model; further keys are built per reference */
#define NL_MODEL_MEMO_KEY_MAX 256     /* bytes of a memo key, NUL included */

/* Build the object derived from r's model (read it through the typed accessors). Return it — the cache owns
 * it from then on and frees it with `release` — and its heap size in *bytes (for the byte bound); or NULL
 * with err set (NL_ERR_CANCELLED when the build polled a cancel flag through ctx). Runs without any cache
 * lock. */
typedef void *(*nl_memo_build_fn)(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err);
typedef void (*nl_memo_release_fn)(void *obj);

/* The object for `key` derived from r's model, built on the first call for (model, key). Concurrent callers
 * with the same key wait for one build; a failed or cancelled build is not kept (the next caller builds).
 * A waiter stops waiting with NL_ERR_CANCELLED once *cancel is nonzero (cancel may be NULL). The object is
 * borrowed: valid while `r` is held, freed with the model. Past NL_MODEL_MEMO_MAX keys on one model the
 * object is built for this reference only and freed when it is released. `key` must name everything the
 * build depends on besides the model (NL_ERR_ARGUMENT when it does not fit NL_MODEL_MEMO_KEY_MAX).
 * NULL with err on failure. */
const void *nl_model_ref_memo(nl_model_ref *r, const char *key, nl_memo_build_fn build, nl_memo_release_fn release,
                              void *ctx, const atomic_int *cancel, nl_error *err) __attribute__((warn_unused_result));

/* Whether nl_model_ref_memo would keep `key` for the model (it is kept already, or fewer than
 * NL_MODEL_MEMO_MAX keys are): callers whose object only pays off when shared (an index that costs more to
 * build than one direct answer) skip it otherwise. */
bool nl_model_ref_memo_has_room(nl_model_ref *r, const char *key);

/* A number naming the model r refers to, as loaded once: never 0, never reused by this cache, the same for
 * every reference to the same load. A memo key may name another model by it (e.g. a join of two models),
 * since a reloaded file gets a new serial. */
uint64_t nl_model_ref_serial(const nl_model_ref *r);

/* Bytes the cache accounts for (models and memos of the entries it holds). */
size_t nl_model_cache_bytes(nl_model_cache *c);

#endif
