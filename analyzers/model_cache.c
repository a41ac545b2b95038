/* model_cache — see model_cache.h.
 *
 * Entries form a doubly linked list in recency order (head = most recent). Each entry holds one
 * reference to its model; each nl_model_ref handed out holds another (the `shared` block counts them),
 * so eviction never frees a model in use. A loading entry has `loading` set; waiters sleep on `cv` and
 * re-check. Keys: the path as given plus st_size and st_mtim (ns) from stat(2) at lookup. */
#include "model_cache.h"
#include "neuron_json.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct shared_model {
    device_model *model;
    size_t bytes;
    unsigned refs; /* guarded by the cache mutex */
} shared_model;

typedef struct entry {
    struct entry *prev, *next;
    char *path;
    int64_t size, mtime_ns;
    shared_model *shared; /* NULL while loading */
    bool loading;
} entry;

struct nl_model_cache {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    entry *head, *tail;
    size_t entries, max_entries, bytes, max_bytes;
    uint64_t loads;
};

struct nl_model_ref {
    nl_model_cache *cache;
    shared_model *shared;
    int was_cached;
    double load_ms;
};

nl_model_cache *nl_model_cache_new(size_t max_entries, size_t max_bytes)
{
    nl_model_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->max_entries = max_entries ? max_entries : NL_MODEL_CACHE_DEFAULT_ENTRIES;
    c->max_bytes = max_bytes ? max_bytes : NL_MODEL_CACHE_DEFAULT_BYTES;
    return c;
}

static void shared_release_locked(shared_model *s)
{
    if (s && --s->refs == 0) {
        device_model_free(s->model);
        free(s);
    }
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
        shared_release_locked(e->shared);
    }
    free(e->path);
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

static entry *find_locked(nl_model_cache *c, const char *path, int64_t size, int64_t mtime_ns)
{
    for (entry *e = c->head; e; e = e->next)
        if (e->size == size && e->mtime_ns == mtime_ns && !strcmp(e->path, path))
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
    }
    device_model *model = NULL;
    int rc = neuron_json_read(e->path, &jopt, &model, err);
    shared_model *s = rc ? NULL : calloc(1, sizeof *s);
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
    s->refs = 1; /* the cache's own reference */
    e->shared = s;
    c->bytes += s->bytes;
    nl_model_ref *r = make_ref(c, s, 0, ms);
    evict_locked(c);
    return r;
}

nl_model_ref *nl_model_cache_get(nl_model_cache *c, const char *path, const nl_model_load_options *opt, nl_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        nl_error_set(err, NL_ERR_NOT_FOUND, path, -1, "cannot stat the export");
        return NULL;
    }
    int64_t mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        entry *e = find_locked(c, path, (int64_t)st.st_size, mtime_ns);
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
        e = calloc(1, sizeof *e);
        if (!e || !(e->path = strdup(path))) {
            free(e);
            pthread_mutex_unlock(&c->lock);
            nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory");
            return NULL;
        }
        e->size = (int64_t)st.st_size;
        e->mtime_ns = mtime_ns;
        e->loading = true;
        push_front(c, e);
        c->entries++;
        nl_model_ref *r = load_entry(c, e, opt, err);
        pthread_mutex_unlock(&c->lock);
        return r;
    }
}

nl_model_ref *nl_model_cache_peek(nl_model_cache *c, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    int64_t mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    pthread_mutex_lock(&c->lock);
    entry *e = find_locked(c, path, (int64_t)st.st_size, mtime_ns);
    nl_model_ref *r = e && !e->loading ? make_ref(c, e->shared, 1, 0) : NULL;
    pthread_mutex_unlock(&c->lock);
    return r;
}

const device_model *nl_model_ref_model(const nl_model_ref *r)
{
    return r->shared->model;
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
