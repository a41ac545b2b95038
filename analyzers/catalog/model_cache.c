/* model_cache — see model_cache.h.
 *
 * Entries form a doubly linked list in recency order (head = most recent). Each entry holds one
 * reference to its shared block (the model, of any kind) and each nl_model_ref handed out holds another
 * (`refs` counts them), so eviction never frees what is in use. A loading entry has `loading` set; waiters
 * sleep on `cv` and re-check. Keys: the main path as given, the kind and — for a system profile — its
 * companions' "<size>.<mtime ns>.<name>" (name = the base name, up to KEY_NAME_MAX bytes, when the file
 * sits beside ntrace.pb, else "#" and a 64-bit FNV-1a hash of its path; "-" for a file the capture lacks,
 * "?" for one that cannot be stat'ed), plus the main file's st_size and st_mtim (ns) from stat(2). Files
 * are stat'ed before they are read, so a file rewritten during the read may be kept under its earlier
 * (size, mtime); the next version is read again.
 *
 * Memos hang on the shared block, not on the entry, so they live exactly as long as the model: a model
 * evicted while a call still holds it keeps its memos until the last reference goes. Each published block gets a serial from the cache's counter
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
#include "explorer_parquet.h"
#include "kineto.h"
#include "memory_snapshot.h"
#include "neuron_json.h"
#include "ntff_payload.h"
#include "nl_cpu.h"
#include "show_session.h"
#include "system_profile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#define WAIT_SLICE_NS 20000000L /* a cancelled waiter notices within 20 ms */
#define KEY_NAME_MAX 32         /* longest companion base name written into a key as is */
#define KEY_PART_MAX 80         /* one companion in a key, NUL included: 20 + 1 + 20 + 1 + 32 < 80 */

typedef struct memo {
    struct memo *next;
    void *obj;                  /* NULL while building */
    nl_memo_release_fn release;
    size_t bytes;
    bool building;
    char key[];
} memo;

typedef struct shared_model {
    nl_model_kind kind;
    void *model;                /* device_model, system_model, framework_model or show_session */
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
    char *key;                  /* kind and companions (see the design note) */
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

static void model_free(nl_model_kind kind, void *model)
{
    if (!model)
        return;
    switch (kind) {
    case NL_MODEL_DEVICE: device_model_free(model); return;
    case NL_MODEL_SYSTEM: system_model_free(model); return;
    case NL_MODEL_FRAMEWORK: framework_model_free(model); return;
    case NL_MODEL_SHOW_SESSION: show_session_free(model); return;
    case NL_MODEL_NTFF: device_model_free(model); return;
    case NL_MODEL_MEMORY: memory_model_free(model); return;
    case NL_MODEL_PARQUET: device_model_free(model); return;
    default: return;
    }
}

/* Last reference gone: nobody can be inside nl_model_ref_memo on this block, so no memo lock is needed. */
static void shared_release_locked(shared_model *s)
{
    if (!s || --s->refs)
        return;
    memo_list_free(s->memos);
    model_free(s->kind, s->model);
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
        if (e->size == size && e->mtime_ns == mtime_ns && !strcmp(e->path, path) && !strcmp(e->key, key))
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
    if (!e || !(e->path = strdup(path)) || !(e->key = strdup(key))) {
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

/* Instruction-section bytes of one NTFF core: how much it ran, without decoding it. */
static uint64_t ntff_core_instruction_bytes(const ntff_payload_core *c)
{
    uint64_t n = 0;
    for (size_t i = 0; i < c->section_count; i++)
        if (c->sections[i].kind == NTFF_SECTION_INSTRUCTIONS && c->sections[i].decoded)
            n += c->sections[i].size;
    return n;
}

/* The core index `want` names (physical id, else index), or the busiest one for -1; -1 when none matches. */
static long ntff_pick_core(const ntff_payload *p, int64_t want)
{
    long best = -1;
    uint64_t best_bytes = 0;
    for (size_t i = 0; i < ntff_payload_core_count(p); i++) {
        const ntff_payload_core *c = ntff_payload_core_at(p, i);
        if (want >= 0 && (c->has_physical_id ? c->physical_id == (uint64_t)want : (int64_t)i == want))
            return (long)i;
        uint64_t b = ntff_core_instruction_bytes(c);
        if (want < 0 && (best < 0 || b > best_bytes)) {
            best = (long)i;
            best_bytes = b;
        }
    }
    return best;
}

/* One core of an NTFF decoded into a device model (ntff_payload_fill_model). */
static void *ntff_load(const nl_model_source *src, const nl_model_load_options *opt, size_t *bytes, nl_error *err)
{
    ntff_payload_options popt = {.cancel = opt ? opt->cancel : NULL, .threads = opt ? opt->threads : 0};
    ntff_payload *p = ntff_payload_open(src->path, &popt, err);
    if (!p)
        return NULL;
    long core = ntff_pick_core(p, src->core);
    device_model *m = NULL;
    if (core < 0)
        nl_error_set(err, NL_ERR_NOT_FOUND, src->path, -1, "the NTFF has no physical core %lld (it has %zu)",
                     (long long)src->core, ntff_payload_core_count(p));
    else if ((m = device_model_new(err)) && ntff_payload_fill_model(p, (size_t)core, m, NULL, err)) {
        device_model_free(m);
        m = NULL;
    }
    ntff_payload_free(p);
    if (m)
        *bytes = device_model_bytes(m);
    return m;
}

/* Read the model of `src` (no lock held). */
static void *model_load(const nl_model_source *src, const nl_model_load_options *opt, size_t *bytes, nl_error *err)
{
    const atomic_int *cancel = opt ? opt->cancel : NULL;
    switch (src->kind) {
    case NL_MODEL_DEVICE: {
        neuron_json_options jopt = {.cancel = cancel};
        if (opt) {
            jopt.progress = opt->progress;
            jopt.progress_ctx = opt->progress_ctx;
            jopt.threads = opt->threads;
        }
        device_model *m = NULL;
        if (neuron_json_read(src->path, &jopt, &m, err))
            return NULL;
        *bytes = device_model_bytes(m);
        return m;
    }
    case NL_MODEL_SYSTEM: {
        system_profile_paths paths = {.trace_info = src->trace_info, .ntrace = src->path, .cpu_util = src->cpu_util,
                                      .host_mem = src->host_mem};
        system_profile_options sopt = {.cancel = cancel};
        system_model *m = NULL;
        if (system_profile_load(&paths, &sopt, &m, err))
            return NULL;
        *bytes = system_model_bytes(m);
        return m;
    }
    case NL_MODEL_FRAMEWORK: {
        kineto_options kopt = {.cancel = cancel};
        if (opt) {
            kopt.progress = opt->progress;
            kopt.progress_ctx = opt->progress_ctx;
        }
        framework_model *m = NULL;
        if (kineto_read(src->path, &kopt, &m, err))
            return NULL;
        *bytes = framework_model_bytes(m);
        return m;
    }
    case NL_MODEL_SHOW_SESSION: {
        show_session_options ssopt = {.source = src->label, .cancel = cancel};
        show_session *ss = NULL;
        if (show_session_read(src->path, &ssopt, &ss, err))
            return NULL;
        *bytes = show_session_bytes(ss);
        return ss;
    }
    case NL_MODEL_NTFF: return ntff_load(src, opt, bytes, err);
    case NL_MODEL_PARQUET: {
        explorer_parquet_options popt = {.cancel = cancel};
        device_model *m = NULL;
        if (explorer_parquet_read(src->path, &popt, &m, NULL, err))
            return NULL;
        *bytes = device_model_bytes(m);
        return m;
    }
    case NL_MODEL_MEMORY: {
        memory_snapshot_options mopt = {.cancel = cancel};
        memory_model *m = NULL;
        if (memory_snapshot_read(src->path, &mopt, &m, err))
            return NULL;
        *bytes = memory_model_bytes(m);
        return m;
    }
    default:
        nl_error_set(err, NL_ERR_INTERNAL, src->path, -1, "unknown model kind %d", (int)src->kind);
        return NULL;
    }
}

/* Load outside the lock, then publish (or discard on failure) and wake waiters. */
static nl_model_ref *load_entry(nl_model_cache *c, entry *e, const nl_model_source *src,
                                const nl_model_load_options *opt, nl_error *err)
{
    pthread_mutex_unlock(&c->lock);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t bytes = 0;
    void *model = model_load(src, opt, &bytes, err);
    shared_model *s = model ? shared_new() : NULL;
    double ms = ms_since(&t0);
    pthread_mutex_lock(&c->lock);
    c->loads++;
    e->loading = false;
    pthread_cond_broadcast(&c->cv);
    if (!s) {
        if (model)
            nl_error_set(err, NL_ERR_NOMEM, e->path, -1, "out of memory");
        model_free(src->kind, model);
        drop_entry_locked(c, e);
        return NULL;
    }
    s->kind = src->kind;
    s->model = model;
    s->bytes = bytes;
    return publish_locked(c, e, s, ms, err);
}

static uint64_t key_fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* One companion file of ntrace.pb in a system key (see the design note). */
static void key_part(char *out, size_t cap, const char *ntrace, const char *path)
{
    struct stat st;
    if (!path) {
        snprintf(out, cap, "-");
        return;
    }
    if (stat(path, &st) != 0) {
        snprintf(out, cap, "?");
        return;
    }
    const char *slash = strrchr(ntrace, '/'), *base = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - ntrace) + 1 : 0;
    bool beside = (size_t)((base ? base + 1 : path) - path) == dir && !strncmp(path, ntrace, dir);
    const char *name = base ? base + 1 : path;
    long long mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    if (beside && strlen(name) <= KEY_NAME_MAX)
        snprintf(out, cap, "%lld.%lld.%s", (long long)st.st_size, mtime_ns, name);
    else
        snprintf(out, cap, "%lld.%lld.#%016llx", (long long)st.st_size, mtime_ns, (unsigned long long)key_fnv1a(path));
}

/* "parquet/<files>.<bytes>.<latest mtime ns>" of the *.parquet files of a directory: a table rewritten in
 * place changes it even when the directory's own mtime does not. */
static void parquet_key(const char *dir, char *key, size_t cap)
{
    uint64_t files = 0, bytes = 0;
    int64_t latest = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 8, ".parquet"))
            continue;
        char path[4096];
        struct stat st;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path || stat(path, &st))
            continue;
        int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        files++;
        bytes += (uint64_t)st.st_size;
        latest = mt > latest ? mt : latest;
    }
    if (d)
        closedir(d);
    snprintf(key, cap, "parquet/%llu.%llu.%lld", (unsigned long long)files, (unsigned long long)bytes, (long long)latest);
}

/* The entry key of a source besides its main path, size and mtime. */
static void source_key(const nl_model_source *src, char *key, size_t cap)
{
    if (src->kind == NL_MODEL_PARQUET) {
        parquet_key(src->path, key, cap);
        return;
    }
    if (src->kind == NL_MODEL_NTFF) {
        snprintf(key, cap, "ntff/core%lld", (long long)src->core);
        return;
    }
    if (src->kind != NL_MODEL_SYSTEM) {
        snprintf(key, cap, "%s", nl_model_kind_name(src->kind));
        return;
    }
    char ti[KEY_PART_MAX], cu[KEY_PART_MAX], hm[KEY_PART_MAX];
    key_part(ti, sizeof ti, src->path, src->trace_info);
    key_part(cu, sizeof cu, src->path, src->cpu_util);
    key_part(hm, sizeof hm, src->path, src->host_mem);
    snprintf(key, cap, "system/%s/%s/%s", ti, cu, hm); /* ≤ 7 + 3 × 79 + 2 < NL_MODEL_MEMO_KEY_MAX */
}

static int source_check(const nl_model_source *src, int64_t *size, int64_t *mtime_ns, nl_error *err)
{
    if ((unsigned)src->kind >= NL_MODEL_KIND_COUNT || !src->path)
        return nl_error_set(err, src->path ? NL_ERR_INTERNAL : NL_ERR_NOT_FOUND, NULL, -1, "%s",
                            src->path ? "unknown model kind"
                                      : src->kind == NL_MODEL_SYSTEM ? "the capture has no ntrace.pb" : "no file to read");
    if (stat_key(src->path, size, mtime_ns))
        return nl_error_set(err, NL_ERR_NOT_FOUND, src->path, -1, "cannot stat the file");
    return 0;
}

nl_model_ref *nl_model_cache_get(nl_model_cache *c, const nl_model_source *src, const nl_model_load_options *opt,
                                 nl_error *err)
{
    int64_t size, mtime_ns;
    if (source_check(src, &size, &mtime_ns, err))
        return NULL;
    char key[NL_MODEL_MEMO_KEY_MAX];
    source_key(src, key, sizeof key);
    const atomic_int *cancel = opt ? opt->cancel : NULL;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        entry *e = find_locked(c, src->path, key, size, mtime_ns);
        if (e && e->loading) {
            if (wait_cancellable(&c->cv, &c->lock, cancel)) {
                pthread_mutex_unlock(&c->lock);
                nl_error_set(err, NL_ERR_CANCELLED, src->path, -1, "cancelled");
                return NULL;
            }
            continue; /* the loader may have failed and dropped the entry: look again */
        }
        if (e) {
            unlink_entry(c, e);
            push_front(c, e);
            nl_model_ref *r = make_ref(c, e->shared, 1, 0);
            pthread_mutex_unlock(&c->lock);
            if (!r)
                nl_error_set(err, NL_ERR_NOMEM, src->path, -1, "out of memory");
            return r;
        }
        e = add_loading_locked(c, src->path, key, size, mtime_ns);
        if (!e) {
            pthread_mutex_unlock(&c->lock);
            nl_error_set(err, NL_ERR_NOMEM, src->path, -1, "out of memory");
            return NULL;
        }
        nl_model_ref *r = load_entry(c, e, src, opt, err);
        pthread_mutex_unlock(&c->lock);
        return r;
    }
}

nl_model_ref *nl_model_cache_peek(nl_model_cache *c, const nl_model_source *src)
{
    int64_t size, mtime_ns;
    if (source_check(src, &size, &mtime_ns, NULL))
        return NULL;
    char key[NL_MODEL_MEMO_KEY_MAX];
    source_key(src, key, sizeof key);
    pthread_mutex_lock(&c->lock);
    entry *e = find_locked(c, src->path, key, size, mtime_ns);
    nl_model_ref *r = e && !e->loading ? make_ref(c, e->shared, 1, 0) : NULL;
    pthread_mutex_unlock(&c->lock);
    return r;
}

const char *nl_model_kind_name(nl_model_kind kind)
{
    static const char *const names[NL_MODEL_KIND_COUNT] = {"device", "system", "framework", "show_session", "ntff",
                                                           "memory", "parquet"};
    return (unsigned)kind < NL_MODEL_KIND_COUNT ? names[kind] : "?";
}

nl_model_kind nl_model_ref_kind(const nl_model_ref *r)
{
    return r->shared->kind;
}

const device_model *nl_model_ref_device(const nl_model_ref *r)
{
    nl_model_kind k = r->shared->kind;
    return k == NL_MODEL_DEVICE || k == NL_MODEL_NTFF || k == NL_MODEL_PARQUET ? r->shared->model : NULL;
}

const system_model *nl_model_ref_system(const nl_model_ref *r)
{
    return r->shared->kind == NL_MODEL_SYSTEM ? r->shared->model : NULL;
}

const framework_model *nl_model_ref_framework(const nl_model_ref *r)
{
    return r->shared->kind == NL_MODEL_FRAMEWORK ? r->shared->model : NULL;
}

const show_session *nl_model_ref_show_session(const nl_model_ref *r)
{
    return r->shared->kind == NL_MODEL_SHOW_SESSION ? r->shared->model : NULL;
}

const memory_model *nl_model_ref_memory(const nl_model_ref *r)
{
    return r->shared->kind == NL_MODEL_MEMORY ? r->shared->model : NULL;
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

/* Over the per-model cap: build for this reference only. */
static const void *memo_build_own(nl_model_ref *r, const char *key, size_t len, nl_memo_build_fn build,
                                  nl_memo_release_fn release, void *ctx, nl_error *err)
{
    memo *m = memo_find(r->own, key);
    if (m)
        return m->obj;
    if (!(m = memo_new(key, len, release))) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (memo)");
        return NULL;
    }
    m->obj = build(r, ctx, &m->bytes, err);
    if (!m->obj) {
        free(m);
        return NULL;
    }
    m->next = r->own;
    r->own = m;
    return m->obj;
}

const void *nl_model_ref_memo(nl_model_ref *r, const char *key, nl_memo_build_fn build, nl_memo_release_fn release,
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
    void *obj = build(r, ctx, &bytes, err);

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

/* ---- prefetch ----------------------------------------------------------------------------------------- */

typedef struct prefetch_job {
    nl_model_cache *cache;
    const nl_model_source *srcs;
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
        nl_model_ref *r = nl_model_cache_get(j->cache, &j->srcs[i], &opt, &err);
        if (r)
            nl_model_ref_release(r);
    }
    return NULL;
}

void nl_model_cache_prefetch(nl_model_cache *c, const nl_model_source *srcs, size_t n, unsigned threads,
                             const atomic_int *cancel)
{
    threads = nl_cpu_threads(threads, NEURON_JSON_THREADS_MAX);
    if (threads > n)
        threads = (unsigned)n;
    prefetch_job j = {.cache = c, .srcs = srcs, .n = n, .cancel = cancel};
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
