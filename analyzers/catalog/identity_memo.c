/* identity_memo — see identity_memo.h.
 *
 * The memo is a chained hash table keyed by path, holding size and mtime to detect a changed file. */
#include "identity_memo.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEMO_BUCKETS 4096u

typedef struct memo_entry {
    struct memo_entry *next;
    uint64_t size;
    int64_t mtime_ns;
    char uuid_hex[33];
    char *ntff_filename;
    char path[]; /* flexible: the key */
} memo_entry;

struct nl_identity_memo {
    nl_model_cache *models;     /* borrowed, nullable: exports whose model is cached need no peek */
    pthread_mutex_t lock;
    memo_entry *buckets[MEMO_BUCKETS];
    size_t count;
};

nl_identity_memo *nl_identity_memo_new(nl_model_cache *models)
{
    nl_identity_memo *m = calloc(1, sizeof *m);
    if (m) {
        m->models = models;
        pthread_mutex_init(&m->lock, NULL);
    }
    return m;
}

static void memo_clear_locked(nl_identity_memo *m)
{
    for (size_t b = 0; b < MEMO_BUCKETS; b++) {
        for (memo_entry *e = m->buckets[b], *next; e; e = next) {
            next = e->next;
            free(e->ntff_filename);
            free(e);
        }
        m->buckets[b] = NULL;
    }
    m->count = 0;
}

void nl_identity_memo_free(nl_identity_memo *m)
{
    if (!m)
        return;
    memo_clear_locked(m);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static size_t memo_bucket(const char *path)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return (size_t)(h % MEMO_BUCKETS);
}

static int memo_lookup(nl_identity_memo *m, const char *path, uint64_t size, int64_t mtime_ns, char uuid_hex[33],
                       char *ntff, size_t cap)
{
    int found = 0;
    pthread_mutex_lock(&m->lock);
    for (memo_entry *e = m->buckets[memo_bucket(path)]; e; e = e->next)
        if (!strcmp(e->path, path) && e->size == size && e->mtime_ns == mtime_ns) {
            memcpy(uuid_hex, e->uuid_hex, 33);
            snprintf(ntff, cap, "%s", e->ntff_filename ? e->ntff_filename : "");
            found = 1;
            break;
        }
    pthread_mutex_unlock(&m->lock);
    return found;
}

static void memo_store(nl_identity_memo *m, const char *path, uint64_t size, int64_t mtime_ns, const char *uuid_hex,
                       const char *ntff)
{
    size_t len = strlen(path);
    memo_entry *e = calloc(1, sizeof *e + len + 1);
    if (!e)
        return;
    memcpy(e->path, path, len + 1);
    e->size = size;
    e->mtime_ns = mtime_ns;
    snprintf(e->uuid_hex, sizeof e->uuid_hex, "%s", uuid_hex);
    e->ntff_filename = ntff[0] ? strdup(ntff) : NULL;
    size_t b = memo_bucket(path);
    pthread_mutex_lock(&m->lock);
    if (m->count >= NL_IDENTITY_MEMO_MAX)
        memo_clear_locked(m);
    for (memo_entry **p = &m->buckets[b]; *p; p = &(*p)->next)
        if (!strcmp((*p)->path, path)) { /* replace a stale entry for the same path */
            memo_entry *old = *p;
            *p = old->next;
            free(old->ntff_filename);
            free(old);
            m->count--;
            break;
        }
    e->next = m->buckets[b];
    m->buckets[b] = e;
    m->count++;
    pthread_mutex_unlock(&m->lock);
}

static int identity_known(void *ctx, const char *path, uint64_t size, int64_t mtime_ns, char uuid_hex[33],
                          char *ntff_filename, size_t cap)
{
    nl_identity_memo *memo = ctx;
    if (memo_lookup(memo, path, size, mtime_ns, uuid_hex, ntff_filename, cap))
        return 1;
    if (!memo->models)
        return 0;
    nl_model_ref *ref = nl_model_cache_peek(memo->models, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = path}); /* re-checks size and mtime */
    if (!ref)
        return 0;
    const device_model *m = nl_model_ref_device(ref);
    const char *v;
    const kvlist *hdr = device_model_record_get(m, DEVICE_MODEL_NEFF_HEADER);
    const kvlist *info = device_model_record_get(m, DEVICE_MODEL_PROFILE_INFO);
    snprintf(uuid_hex, 33, "%s", hdr && kvlist_get_str(hdr, "uuid", &v) ? v : "");
    snprintf(ntff_filename, cap, "%s", info && kvlist_get_str(info, "ntff_filename", &v) ? v : "");
    nl_model_ref_release(ref);
    return 1;
}

static void identity_found(void *ctx, const char *path, uint64_t size, int64_t mtime_ns, const char *uuid_hex,
                           const char *ntff_filename)
{
    memo_store(ctx, path, size, mtime_ns, uuid_hex, ntff_filename);
}

void nl_identity_memo_hook(nl_identity_memo *memo, nl_catalog_limits *lim)
{
    lim->export_identity = identity_known;
    lim->export_identity_found = identity_found;
    lim->export_identity_ctx = memo;
}
