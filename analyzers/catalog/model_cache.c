/* model_cache — see model_cache.h.
 *
 * Entries form a doubly linked list in recency order (head = most recent). Each entry holds one
 * reference to its shared block — a device model, or for a file memo the object built from the file —
 * and each nl_model_ref handed out holds another (`refs` counts them), so eviction never frees what is in
 * use. A loading entry has `loading` set; waiters sleep on `cv` and re-check. Keys: the path as given,
 * the memo key (NULL for a model) plus st_size and st_mtim (ns) from stat(2) at lookup.
 *
 * Memos hang on the shared block, not on the entry, so they live exactly as long as the model (or the file
 * object: nl_model_ref_object_memo uses the same list): a model evicted while a call still holds it keeps
 * its memos until the last reference goes. Each published block gets a serial from the cache's counter
 * (under the cache mutex), so a key may name another block by it without ever meaning a later load. Each block
 * has its own mutex for its memo list, so a build on one model never waits for another model's memo or
 * for the cache table. Why memos at all: at 1M instructions every warm call used to recompute its
 * analysis over all rows (device summary ≈ 300 ms, attribution ≈ 100 ms, show-session parse ≈ 450 ms);
 * the results are pure functions of (model, arguments), so they are kept with the model.
 *
 * Invariants (the cache mutex guards the table, `bytes`, every block's `refs`, `bytes` and `cached`; a
 * block's memo mutex guards its memo list and the memos' fields):
 *   - c->bytes = Σ s->bytes over the blocks of the entries in the table;
 *   - s->bytes = the model's (or file object's) bytes + Σ bytes of its finished memos;
 *   - the two mutexes are never held together (memo bytes are published first under the memo mutex,
 *     then added under the cache mutex), and no build or release of a memo runs under the memo mutex.
 * Waits are sliced (WAIT_SLICE_NS) only to poll a waiter's cancel flag. */
#include "model_cache.h"
#include "neuron_json.h"
#include "nl_cpu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define WAIT_SLICE_NS 20000000L /* a cancelled waiter notices within 20 ms */

typedef struct memo {
    struct memo *next;
    void *obj;                  /* NULL while building */
    nl_memo_release_fn release;
    size_t bytes;
    bool building;
    char key[];
} memo;

typedef struct shared_model {
    device_model *model;        /* a model entry */
    void *obj;                  /* a file-memo entry: the object built from the file */
    nl_memo_release_fn release;
    uint64_t serial;            /* set once when published (cache mutex), then read-only */
    size_t bytes;               /* cache mutex */
    unsigned refs;              /* cache mutex */
    bool cached;                /* an entry in the table holds this block; cache mutex */
    pthread_mutex_t memo_lock;
    pthread_cond_t memo_cv;     /* a memo build finished (or failed) */
    memo *memos;                /* memo_lock */
    size_t memo_count;          /* memo_lock; building ones included */
} shared_model;

typedef struct entry {
    struct entry *prev, *next;
    char *path;
    char *key;                  /* NULL for a model, else the file memo's key */
    int64_t size, mtime_ns;
    shared_model *shared;       /* NULL while loading */
    bool loading;
} entry;

struct nl_model_cache {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    entry *head, *tail;
    size_t entries, max_entries, bytes, max_bytes;
    uint64_t loads;
    uint64_t serials;           /* the last serial handed to a block */
};

struct nl_model_ref {
    nl_model_cache *cache;
    shared_model *shared;
    memo *own;                  /* memos past NL_MODEL_MEMO_MAX, built for this reference only */
    int was_cached;
    double load_ms;
};

static void cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &attr);
    pthread_condattr_destroy(&attr);
}

static bool is_cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

/* Wait for a broadcast on cv (mutex held); -1 once *cancel is set. Without a flag, an unbounded wait. */
static int wait_cancellable(pthread_cond_t *cv, pthread_mutex_t *lock, const atomic_int *cancel)
{
    if (!cancel) {
        pthread_cond_wait(cv, lock);
        return 0;
    }
    if (is_cancelled(cancel))
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += WAIT_SLICE_NS;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(cv, lock, &ts);
    return is_cancelled(cancel) ? -1 : 0;
}

nl_model_cache *nl_model_cache_new(size_t max_entries, size_t max_bytes)
{
    nl_model_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    cond_init_monotonic(&c->cv);
    c->max_entries = max_entries ? max_entries : NL_MODEL_CACHE_DEFAULT_ENTRIES;
    c->max_bytes = max_bytes ? max_bytes : NL_MODEL_CACHE_DEFAULT_BYTES;
    return c;
}

static shared_model *shared_new(void)
{
    shared_model *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_init(&s->memo_lock, NULL);
    cond_init_monotonic(&s->memo_cv);
    return s;
}

static void memo_list_free(memo *m)
{
    while (m) {
        memo *next = m->next;
        if (m->obj && m->release)
            m->release(m->obj);
        free(m);
        m = next;
    }
}

/* Last reference gone: nobody can be inside nl_model_ref_memo on this block, so no memo lock is needed. */
static void shared_release_locked(shared_model *s)
{
    if (!s || --s->refs)
        return;
    memo_list_free(s->memos);
    device_model_free(s->model);
    if (s->obj && s->release)
        s->release(s->obj);
    pthread_cond_destroy(&s->memo_cv);
    pthread_mutex_destroy(&s->memo_lock);
    free(s);
}

static void unlink_entry(nl_model_cache *c, entry *e)
{
    if (e->prev) e->prev->next = e->next; else c->head = e->next;
    if (e->next) e->next->prev = e->prev; else c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void push_front(nl_model_cache *c, entry *e)
{
    e->prev = NULL;
    e->next = c->head;
    if (c->head) c->head->prev = e; else c->tail = e;
    c->head = e;
}

static void drop_entry_locked(nl_model_cache *c, entry *e)
{
    unlink_entry(c, e);
    c->entries--;
    if (e->shared) {
        c->bytes -= e->shared->bytes;
        e->shared->cached = false;
        shared_release_locked(e->shared);
    }
    free(e->path);
    free(e->key);
    free(e);
}

void nl_model_cache_free(nl_model_cache *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    while (c->head)
        drop_entry_locked(c, c->head);
    pthread_mutex_unlock(&c->lock);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static entry *find_locked(nl_model_cache *c, const char *path, const char *key, int64_t size, int64_t mtime_ns)
{
    for (entry *e = c->head; e; e = e->next)
        if (e->size == size && e->mtime_ns == mtime_ns && !strcmp(e->path, path) && !e->key == !key &&
            (!key || !strcmp(e->key, key)))
            return e;
    return NULL;
}

/* Evict least recently used finished entries beyond the bounds (never the one just added at head). */
static void evict_locked(nl_model_cache *c)
{
    entry *e = c->tail;
    while (e && e != c->head && (c->entries > c->max_entries || c->bytes > c->max_bytes)) {
        entry *prev = e->prev;
        if (!e->loading)
            drop_entry_locked(c, e);
        e = prev;
    }
}

static nl_model_ref *make_ref(nl_model_cache *c, shared_model *s, int cached, double ms)
{
    nl_model_ref *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    s->refs++;
    r->cache = c;
    r->shared = s;
    r->was_cached = cached;
    r->load_ms = ms;
    return r;
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static int stat_key(const char *path, int64_t *size, int64_t *mtime_ns)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    *size = (int64_t)st.st_size;
    *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    return 0;
}

/* A new loading entry at the head (cache mutex held); NULL when out of memory. */
static entry *add_loading_locked(nl_model_cache *c, const char *path, const char *key, int64_t size, int64_t mtime_ns)
{
    entry *e = calloc(1, sizeof *e);
    if (!e || !(e->path = strdup(path)) || (key && !(e->key = strdup(key)))) {
        if (e)
            free(e->path);
        free(e);
        return NULL;
    }
    e->size = size;
    e->mtime_ns = mtime_ns;
    e->loading = true;
    push_front(c, e);
    c->entries++;
    return e;
}

/* Publish a finished block into its entry (cache mutex held) and hand out the first reference. */
static nl_model_ref *publish_locked(nl_model_cache *c, entry *e, shared_model *s, double ms, nl_error *err)
{
    s->refs = 1; /* the cache's own reference */
    s->cached = true;
    s->serial = ++c->serials;
    e->shared = s;
    c->bytes += s->bytes;
    nl_model_ref *r = make_ref(c, s, 0, ms);
    if (!r)
        nl_error_set(err, NL_ERR_NOMEM, e->path, -1, "out of memory");
    evict_locked(c);
    return r;
}

/* Load outside the lock, then publish (or discard on failure) and wake waiters. */
static nl_model_ref *load_entry(nl_model_cache *c, entry *e, const nl_model_load_options *opt, nl_error *err)
{
    pthread_mutex_unlock(&c->lock);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    neuron_json_options jopt = {0};
    if (opt) {
        jopt.cancel = opt->cancel;
        jopt.progress = opt->progress;
        jopt.progress_ctx = opt->progress_ctx;
        jopt.threads = opt->threads;
    }
    device_model *model = NULL;
    int rc = neuron_json_read(e->path, &jopt, &model, err);
    shared_model *s = rc ? NULL : shared_new();
    double ms = ms_since(&t0);
    pthread_mutex_lock(&c->lock);
    c->loads++;
    e->loading = false;
    pthread_cond_broadcast(&c->cv);
    if (!s) {
        if (!rc)
            nl_error_set(err, NL_ERR_NOMEM, e->path, -1, "out of memory");
        device_model_free(model);
        drop_entry_locked(c, e);
        return NULL;
    }
    s->model = model;
    s->bytes = device_model_bytes(model);
    return publish_locked(c, e, s, ms, err);
}

nl_model_ref *nl_model_cache_get(nl_model_cache *c, const char *path, const nl_model_load_options *opt, nl_error *err)
{
    int64_t size, mtime_ns;
    if (stat_key(path, &size, &mtime_ns)) {
        nl_error_set(err, NL_ERR_NOT_FOUND, path, -1, "cannot stat the export");
        return NULL;
    }
    pthread_mutex_lock(&c->lock);
    for (;;) {
        entry *e = find_locked(c, path, NULL, size, mtime_ns);
        if (e && e->loading) {
            pthread_cond_wait(&c->cv, &c->lock);
            continue; /* the loader may have failed and dropped the entry: look again */
        }
        if (e) {
            unlink_entry(c, e);
            push_front(c, e);
            nl_model_ref *r = make_ref(c, e->shared, 1, 0);
            pthread_mutex_unlock(&c->lock);
            if (!r)
                nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory");
            return r;
        }
        e = add_loading_locked(c, path, NULL, size, mtime_ns);
        if (!e) {
            pthread_mutex_unlock(&c->lock);
            nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory");
            return NULL;
        }
        nl_model_ref *r = load_entry(c, e, opt, err);
        pthread_mutex_unlock(&c->lock);
        return r;
    }
}

nl_model_ref *nl_model_cache_peek(nl_model_cache *c, const char *path)
{
    int64_t size, mtime_ns;
    if (stat_key(path, &size, &mtime_ns))
        return NULL;
    pthread_mutex_lock(&c->lock);
    entry *e = find_locked(c, path, NULL, size, mtime_ns);
    nl_model_ref *r = e && !e->loading ? make_ref(c, e->shared, 1, 0) : NULL;
    pthread_mutex_unlock(&c->lock);
    return r;
}

const device_model *nl_model_ref_model(const nl_model_ref *r)
{
    return r->shared->model;
}

const void *nl_model_ref_object(const nl_model_ref *r)
{
    return r->shared->obj;
}

uint64_t nl_model_ref_serial(const nl_model_ref *r)
{
    return r->shared->serial;
}

int nl_model_ref_was_cached(const nl_model_ref *r)
{
    return r->was_cached;
}

double nl_model_ref_load_ms(const nl_model_ref *r)
{
    return r->load_ms;
}

void nl_model_ref_release(nl_model_ref *r)
{
    if (!r)
        return;
    memo_list_free(r->own); /* before the model they derive from can go */
    pthread_mutex_lock(&r->cache->lock);
    shared_release_locked(r->shared);
    pthread_mutex_unlock(&r->cache->lock);
    free(r);
}

uint64_t nl_model_cache_loads(nl_model_cache *c)
{
    pthread_mutex_lock(&c->lock);
    uint64_t n = c->loads;
    pthread_mutex_unlock(&c->lock);
    return n;
}

size_t nl_model_cache_bytes(nl_model_cache *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->bytes;
    pthread_mutex_unlock(&c->lock);
    return n;
}

/* ---- memos ------------------------------------------------------------------------------------------ */

static memo *memo_find(memo *m, const char *key)
{
    for (; m; m = m->next)
        if (!strcmp(m->key, key))
            return m;
    return NULL;
}

static memo *memo_new(const char *key, size_t len, nl_memo_release_fn release)
{
    memo *m = calloc(1, sizeof *m + len + 1);
    if (m) {
        memcpy(m->key, key, len + 1);
        m->release = release;
    }
    return m;
}

/* Add a finished memo's bytes to its block and, while the block is in the table, to the cache. */
static void memo_account(nl_model_cache *c, shared_model *s, size_t bytes)
{
    pthread_mutex_lock(&c->lock);
    s->bytes += bytes;
    if (s->cached) {
        c->bytes += bytes;
        evict_locked(c);
    }
    pthread_mutex_unlock(&c->lock);
}

/* What a memo is built from: a device model (nl_model_ref_memo) or a file object (nl_model_ref_object_memo);
 * exactly one of the two functions is set. */
typedef struct memo_builder {
    nl_memo_build_fn model;
    nl_object_memo_build_fn object;
} memo_builder;

static void *memo_run(const memo_builder *b, const shared_model *s, void *ctx, size_t *bytes, nl_error *err)
{
    return b->model ? b->model(s->model, ctx, bytes, err) : b->object(s->obj, ctx, bytes, err);
}

/* Over the per-model cap: build for this reference only. */
static const void *memo_build_own(nl_model_ref *r, const char *key, size_t len, const memo_builder *build,
                                  nl_memo_release_fn release, void *ctx, nl_error *err)
{
    memo *m = memo_find(r->own, key);
    if (m)
        return m->obj;
    if (!(m = memo_new(key, len, release))) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (memo)");
        return NULL;
    }
    m->obj = memo_run(build, r->shared, ctx, &m->bytes, err);
    if (!m->obj) {
        free(m);
        return NULL;
    }
    m->next = r->own;
    r->own = m;
    return m->obj;
}

static const void *memo_get(nl_model_ref *r, const char *key, const memo_builder *build, nl_memo_release_fn release,
                            void *ctx, const atomic_int *cancel, nl_error *err)
{
    shared_model *s = r->shared;
    size_t len = strlen(key);
    if (len >= NL_MODEL_MEMO_KEY_MAX) {
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "memo key longer than %d bytes", NL_MODEL_MEMO_KEY_MAX - 1);
        return NULL;
    }
    pthread_mutex_lock(&s->memo_lock);
    memo *m;
    while ((m = memo_find(s->memos, key)) && m->building) {
        if (wait_cancellable(&s->memo_cv, &s->memo_lock, cancel)) {
            pthread_mutex_unlock(&s->memo_lock);
            nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
            return NULL;
        }
    }
    if (m) {
        const void *obj = m->obj;
        pthread_mutex_unlock(&s->memo_lock);
        return obj;
    }
    if (s->memo_count >= NL_MODEL_MEMO_MAX) {
        pthread_mutex_unlock(&s->memo_lock);
        return memo_build_own(r, key, len, build, release, ctx, err);
    }
    if (!(m = memo_new(key, len, release))) {
        pthread_mutex_unlock(&s->memo_lock);
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (memo)");
        return NULL;
    }
    m->building = true;
    m->next = s->memos;
    s->memos = m;
    s->memo_count++;
    pthread_mutex_unlock(&s->memo_lock);

    size_t bytes = 0;
    void *obj = memo_run(build, s, ctx, &bytes, err);

    pthread_mutex_lock(&s->memo_lock);
    if (obj) {
        m->obj = obj;
        m->bytes = bytes;
        m->building = false;
    } else { /* not kept: unlink it, and the next caller builds */
        memo **p = &s->memos;
        while (*p != m)
            p = &(*p)->next;
        *p = m->next;
        s->memo_count--;
        free(m);
    }
    pthread_cond_broadcast(&s->memo_cv);
    pthread_mutex_unlock(&s->memo_lock);
    if (obj)
        memo_account(r->cache, s, bytes);
    return obj;
}

bool nl_model_ref_memo_has_room(nl_model_ref *r, const char *key)
{
    shared_model *s = r->shared;
    pthread_mutex_lock(&s->memo_lock);
    bool room = s->memo_count < NL_MODEL_MEMO_MAX || memo_find(s->memos, key) != NULL;
    pthread_mutex_unlock(&s->memo_lock);
    return room;
}

const void *nl_model_ref_memo(nl_model_ref *r, const char *key, nl_memo_build_fn build, nl_memo_release_fn release,
                              void *ctx, const atomic_int *cancel, nl_error *err)
{
    if (!r->shared->model) {
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "memo on a reference without a model");
        return NULL;
    }
    memo_builder b = {.model = build};
    return memo_get(r, key, &b, release, ctx, cancel, err);
}

const void *nl_model_ref_object_memo(nl_model_ref *r, const char *key, nl_object_memo_build_fn build,
                                     nl_memo_release_fn release, void *ctx, const atomic_int *cancel, nl_error *err)
{
    if (!r->shared->obj) {
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "object memo on a reference without a file object");
        return NULL;
    }
    memo_builder b = {.object = build};
    return memo_get(r, key, &b, release, ctx, cancel, err);
}

/* Build outside the lock, then publish (or drop the entry on failure) and wake waiters. */
static nl_model_ref *file_memo_build(nl_model_cache *c, entry *e, nl_file_memo_build_fn build, nl_memo_release_fn release,
                                     void *ctx, nl_error *err)
{
    pthread_mutex_unlock(&c->lock);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t bytes = 0;
    void *obj = build(e->path, ctx, &bytes, err);
    shared_model *s = obj ? shared_new() : NULL;
    double ms = ms_since(&t0);
    pthread_mutex_lock(&c->lock);
    e->loading = false;
    pthread_cond_broadcast(&c->cv);
    if (!s) {
        if (obj) {
            release(obj);
            nl_error_set(err, NL_ERR_NOMEM, e->path, -1, "out of memory");
        }
        drop_entry_locked(c, e);
        return NULL;
    }
    s->obj = obj;
    s->release = release;
    s->bytes = bytes;
    return publish_locked(c, e, s, ms, err);
}

nl_model_ref *nl_model_cache_file_memo(nl_model_cache *c, const char *path, const char *key, nl_file_memo_build_fn build,
                                       nl_memo_release_fn release, void *ctx, const atomic_int *cancel, nl_error *err)
{
    int64_t size, mtime_ns;
    if (strlen(key) >= NL_MODEL_MEMO_KEY_MAX) {
        nl_error_set(err, NL_ERR_ARGUMENT, path, -1, "memo key longer than %d bytes", NL_MODEL_MEMO_KEY_MAX - 1);
        return NULL;
    }
    if (stat_key(path, &size, &mtime_ns)) {
        nl_error_set(err, NL_ERR_NOT_FOUND, path, -1, "cannot stat the file");
        return NULL;
    }
    pthread_mutex_lock(&c->lock);
    for (;;) {
        entry *e = find_locked(c, path, key, size, mtime_ns);
        if (e && e->loading) {
            if (wait_cancellable(&c->cv, &c->lock, cancel)) {
                pthread_mutex_unlock(&c->lock);
                nl_error_set(err, NL_ERR_CANCELLED, path, -1, "cancelled");
                return NULL;
            }
            continue; /* the builder may have failed and dropped the entry: look again */
        }
        if (e) {
            unlink_entry(c, e);
            push_front(c, e);
            nl_model_ref *r = make_ref(c, e->shared, 1, 0);
            pthread_mutex_unlock(&c->lock);
            if (!r)
                nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory");
            return r;
        }
        if (!(e = add_loading_locked(c, path, key, size, mtime_ns))) {
            pthread_mutex_unlock(&c->lock);
            nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory");
            return NULL;
        }
        nl_model_ref *r = file_memo_build(c, e, build, release, ctx, err);
        pthread_mutex_unlock(&c->lock);
        return r;
    }
}

/* ---- prefetch ----------------------------------------------------------------------------------------- */

typedef struct prefetch_job {
    nl_model_cache *cache;
    const char *const *paths;
    size_t n;
    atomic_size_t next;
    const atomic_int *cancel;
} prefetch_job;

static void *prefetch_worker(void *arg)
{
    prefetch_job *j = arg;
    nl_model_load_options opt = {.cancel = j->cancel, .threads = 1};
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n;) {
        if (j->cancel && atomic_load(j->cancel))
            break;
        nl_error err;
        nl_model_ref *r = nl_model_cache_get(j->cache, j->paths[i], &opt, &err);
        if (r)
            nl_model_ref_release(r);
    }
    return NULL;
}

void nl_model_cache_prefetch(nl_model_cache *c, const char *const *paths, size_t n, unsigned threads,
                             const atomic_int *cancel)
{
    threads = nl_cpu_threads(threads, NEURON_JSON_THREADS_MAX);
    if (threads > n)
        threads = (unsigned)n;
    prefetch_job j = {.cache = c, .paths = paths, .n = n, .cancel = cancel};
    atomic_init(&j.next, 0);
    pthread_t tid[NEURON_JSON_THREADS_MAX];
    unsigned started = 0;
    for (unsigned i = 1; i < threads; i++) /* the calling thread is the last worker */
        if (pthread_create(&tid[started], NULL, prefetch_worker, &j) == 0)
            started++;
    prefetch_worker(&j);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}
