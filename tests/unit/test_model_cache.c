/* Unit tests for analyzers/catalog/model_cache: one cache of typed models and their memos.
 *
 * Memos: built once per (model, key) and shared, concurrent callers wait for one build, a failed or
 * cancelled build is not kept, a cancelled waiter stops waiting, objects are freed with the model (also
 * when it was evicted while in use), keys past the per-model cap live with their reference, and memo bytes
 * count in the cache's byte bound. Kinds: a model of another kind (here a show-session dump) is loaded once
 * per (path, kind, size, mtime), read again when the file changes, never mistaken for a device model, and
 * takes memos the same way; serials name one load and change when the file is read again. The device models
 * come from the handcrafted export of analysis_fixture.h written to a temporary file. Run under ASan/UBSan in
 * CI (leaks fail the test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis_fixture.h"
#include "model_cache.h"

#define THREADS 8

/* ---- a counting build ---------------------------------------------------------------------------------- */

typedef struct counted {
    int magic;
    atomic_int *released;
} counted;

typedef struct build_ctx {
    atomic_int builds;          /* build calls */
    atomic_int released;        /* objects released */
    atomic_int fail_next;       /* > 0: the next builds fail (decremented) */
    atomic_int started;         /* a build is running (for the cancel test) */
    int sleep_ms;               /* each build takes this long */
    const atomic_int *gate;     /* when set, the build waits until it is nonzero */
    size_t bytes;               /* reported size */
    const device_model *seen;   /* the model the last build got */
} build_ctx;

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void release_counted(void *obj)
{
    counted *c = obj;
    atomic_fetch_add(c->released, 1);
    free(c);
}

static void *build_counted(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    build_ctx *b = ctx;
    atomic_fetch_add(&b->builds, 1);
    atomic_store(&b->started, 1);
    b->seen = r ? nl_model_ref_device(r) : NULL;
    while (b->gate && !atomic_load(b->gate))
        sleep_ms(1);
    if (b->sleep_ms)
        sleep_ms(b->sleep_ms);
    if (atomic_load(&b->fail_next) > 0) {
        atomic_fetch_sub(&b->fail_next, 1);
        nl_error_set(err, NL_ERR_FORMAT, "derived", 7, "build failed on purpose");
        return NULL;
    }
    counted *c = malloc(sizeof *c);
    c->magic = 42;
    c->released = &b->released;
    *bytes = b->bytes;
    return c;
}

/* ---- fixtures -------------------------------------------------------------------------------------------- */

typedef struct fixture {
    char dir[64];
    char path[128];             /* the export */
    char other[128];            /* a second export (same content, another path) */
    char side[128];             /* a show-session dump: a model of another kind */
} fixture;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/nl_test_model_cache_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->path, sizeof fx->path, "%s/a.json", fx->dir);
    snprintf(fx->other, sizeof fx->other, "%s/b.json", fx->dir);
    snprintf(fx->side, sizeof fx->side, "%s/dump.txt", fx->dir);
    write_file(fx->path, fixture_export);
    write_file(fx->other, fixture_export);
    write_file(fx->side, "Collectives trace for CC-core 0\n");
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    unlink(fx->path);
    unlink(fx->other);
    unlink(fx->side);
    rmdir(fx->dir);
    free(fx);
    return 0;
}

static nl_model_ref *get(nl_model_cache *c, const char *path)
{
    nl_error err;
    nl_model_ref *r = nl_model_cache_get(c, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = path}, NULL, &err);
    if (!r)
        fail_msg("nl_model_cache_get %s: %s", path, err.message);
    return r;
}

static const counted *memo_ok(nl_model_ref *r, const char *key, build_ctx *b)
{
    nl_error err;
    const counted *obj = nl_model_ref_memo(r, key, build_counted, release_counted, b, NULL, &err);
    if (!obj)
        fail_msg("nl_model_ref_memo %s: %s", key, err.message);
    assert_int_equal(obj->magic, 42);
    return obj;
}

/* ---- model memos ----------------------------------------------------------------------------------------- */

static void memo_is_built_once_per_model_and_key(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    build_ctx b = {.bytes = 100};
    nl_model_ref *r1 = get(c, fx->path), *r2 = get(c, fx->path);
    const counted *o1 = memo_ok(r1, "summary", &b);
    assert_ptr_equal(b.seen, nl_model_ref_device(r1));
    assert_ptr_equal(memo_ok(r2, "summary", &b), o1); /* another reference to the same model shares it */
    assert_int_equal(atomic_load(&b.builds), 1);
    assert_ptr_not_equal(memo_ok(r1, "attr.groups/opcode", &b), o1); /* another key: another object */
    assert_int_equal(atomic_load(&b.builds), 2);
    nl_model_ref *r3 = get(c, fx->other);              /* same bytes, other file: its own memos */
    assert_ptr_not_equal(memo_ok(r3, "summary", &b), o1);
    assert_int_equal(atomic_load(&b.builds), 3);
    assert_int_equal(nl_model_cache_loads(c), 2);
    nl_model_ref_release(r1);
    nl_model_ref_release(r2);
    nl_model_ref_release(r3);
    nl_model_ref *r4 = get(c, fx->path);               /* still cached: the memo too */
    assert_ptr_equal(memo_ok(r4, "summary", &b), o1);
    assert_int_equal(atomic_load(&b.builds), 3);
    assert_int_equal(atomic_load(&b.released), 0);
    nl_model_ref_release(r4);
    nl_model_cache_free(c);
    assert_int_equal(atomic_load(&b.released), 3);     /* freed with their models */
}

typedef struct racer {
    nl_model_cache *cache;
    const char *path;
    build_ctx *b;
    const counted *got;
} racer;

static void *race_memo(void *arg)
{
    racer *r = arg;
    nl_model_ref *ref = get(r->cache, r->path);
    nl_error err;
    r->got = nl_model_ref_memo(ref, "summary", build_counted, release_counted, r->b, NULL, &err);
    nl_model_ref_release(ref);
    return NULL;
}

static void concurrent_callers_wait_for_one_build(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    build_ctx b = {.sleep_ms = 50};
    nl_model_ref *keep = get(c, fx->path); /* loaded first, so the threads race on the memo only */
    pthread_t t[THREADS];
    racer r[THREADS];
    for (int i = 0; i < THREADS; i++) {
        r[i] = (racer){.cache = c, .path = fx->path, .b = &b};
        assert_int_equal(pthread_create(&t[i], NULL, race_memo, &r[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&b.builds), 1);
    for (int i = 0; i < THREADS; i++) {
        assert_non_null(r[i].got);
        assert_ptr_equal(r[i].got, r[0].got);
    }
    nl_model_ref_release(keep);
    nl_model_cache_free(c);
    assert_int_equal(atomic_load(&b.released), 1);
}

static void a_failed_build_is_not_kept(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    build_ctx b = {.fail_next = 1};
    nl_model_ref *r = get(c, fx->path);
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    assert_null(nl_model_ref_memo(r, "summary", build_counted, release_counted, &b, NULL, &err));
    assert_int_equal(err.code, NL_ERR_FORMAT); /* the build's own error, untouched */
    assert_string_equal(err.message, "build failed on purpose");
    assert_string_equal(err.source, "derived");
    assert_int_equal(err.offset, 7);
    memo_ok(r, "summary", &b);                 /* the next call builds again */
    assert_int_equal(atomic_load(&b.builds), 2);
    memo_ok(r, "summary", &b);
    assert_int_equal(atomic_load(&b.builds), 2);
    nl_model_ref_release(r);
    nl_model_cache_free(c);
    assert_int_equal(atomic_load(&b.released), 1);
}

static void concurrent_waiters_build_again_after_a_failure(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    build_ctx b = {.sleep_ms = 30, .fail_next = 1};
    nl_model_ref *keep = get(c, fx->path);
    pthread_t t[THREADS];
    racer r[THREADS];
    for (int i = 0; i < THREADS; i++) {
        r[i] = (racer){.cache = c, .path = fx->path, .b = &b};
        assert_int_equal(pthread_create(&t[i], NULL, race_memo, &r[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    int failed = 0;
    const counted *obj = NULL;
    for (int i = 0; i < THREADS; i++) {
        failed += r[i].got == NULL;
        if (r[i].got) {
            if (obj)
                assert_ptr_equal(r[i].got, obj);
            obj = r[i].got;
        }
    }
    assert_int_equal(failed, 1);               /* only the caller whose build failed sees the failure */
    assert_int_equal(atomic_load(&b.builds), 2);
    nl_model_ref_release(keep);
    nl_model_cache_free(c);
    assert_int_equal(atomic_load(&b.released), 1);
}

typedef struct waiter {
    nl_model_ref *ref;
    build_ctx *b;
    atomic_int *cancel;
    const void *got;
    nl_error err;
} waiter;

static void *wait_memo(void *arg)
{
    waiter *w = arg;
    w->got = nl_model_ref_memo(w->ref, "summary", build_counted, release_counted, w->b, w->cancel, &w->err);
    return NULL;
}

static void a_cancelled_waiter_stops_waiting_and_the_build_is_kept(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    atomic_int gate = 0, cancel = 0;
    build_ctx b = {.gate = &gate};
    nl_model_ref *r1 = get(c, fx->path), *r2 = get(c, fx->path);
    waiter builder = {.ref = r1, .b = &b}, w = {.ref = r2, .b = &b, .cancel = &cancel};
    pthread_t tb, tw;
    assert_int_equal(pthread_create(&tb, NULL, wait_memo, &builder), 0);
    while (!atomic_load(&b.started))
        sleep_ms(1);
    assert_int_equal(pthread_create(&tw, NULL, wait_memo, &w), 0);
    sleep_ms(30);
    atomic_store(&cancel, 1);
    pthread_join(tw, NULL);                    /* returns while the build is still blocked */
    assert_null(w.got);
    assert_int_equal(w.err.code, NL_ERR_CANCELLED);
    atomic_store(&gate, 1);
    pthread_join(tb, NULL);
    assert_non_null(builder.got);
    assert_ptr_equal(memo_ok(r2, "summary", &b), builder.got);
    assert_int_equal(atomic_load(&b.builds), 1);
    nl_model_ref_release(r1);
    nl_model_ref_release(r2);
    nl_model_cache_free(c);
    assert_int_equal(atomic_load(&b.released), 1);
}

static void memos_of_an_evicted_model_live_until_its_last_reference(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(1, 0); /* one entry: loading another file evicts the first */
    build_ctx b = {0};
    nl_model_ref *r1 = get(c, fx->path);
    const counted *o = memo_ok(r1, "summary", &b);
    nl_model_ref *r2 = get(c, fx->other);
    assert_null(nl_model_cache_peek(c, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = fx->path})); /* evicted */
    assert_int_equal(o->magic, 42);                 /* still readable through r1 */
    assert_int_equal(atomic_load(&b.released), 0);
    nl_model_ref_release(r1);
    assert_int_equal(atomic_load(&b.released), 1);  /* freed with the model */
    nl_model_ref_release(r2);
    nl_model_cache_free(c);
    assert_int_equal(atomic_load(&b.released), 1);
}

static void keys_past_the_cap_live_with_their_reference(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    build_ctx b = {0};
    nl_model_ref *r = get(c, fx->path);
    char key[32];
    for (int i = 0; i < NL_MODEL_MEMO_MAX; i++) {
        assert_true(nl_model_ref_memo_has_room(r, "extra"));
        snprintf(key, sizeof key, "k%d", i);
        memo_ok(r, key, &b);
    }
    assert_false(nl_model_ref_memo_has_room(r, "extra")); /* full: a new key would not be kept */
    assert_true(nl_model_ref_memo_has_room(r, "k7"));     /* a kept key still is */
    const counted *extra = memo_ok(r, "extra", &b);
    assert_ptr_equal(memo_ok(r, "extra", &b), extra); /* the same reference keeps it */
    assert_int_equal(atomic_load(&b.builds), NL_MODEL_MEMO_MAX + 1);
    nl_model_ref *r2 = get(c, fx->path);
    memo_ok(r2, "extra", &b);                          /* another reference builds its own */
    assert_int_equal(atomic_load(&b.builds), NL_MODEL_MEMO_MAX + 2);
    memo_ok(r2, "k0", &b);                             /* kept keys are still shared */
    assert_int_equal(atomic_load(&b.builds), NL_MODEL_MEMO_MAX + 2);
    nl_model_ref_release(r);
    assert_int_equal(atomic_load(&b.released), 1);
    nl_model_ref_release(r2);
    assert_int_equal(atomic_load(&b.released), 2);
    nl_model_cache_free(c);
    assert_int_equal(atomic_load(&b.released), NL_MODEL_MEMO_MAX + 2);
}

static void memo_bytes_count_in_the_byte_bound(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    build_ctx b = {.bytes = 12345};
    nl_model_ref *r = get(c, fx->path);
    size_t before = nl_model_cache_bytes(c);
    assert_true(before > 0);
    memo_ok(r, "summary", &b);
    assert_int_equal(nl_model_cache_bytes(c), before + 12345);
    memo_ok(r, "summary", &b);
    assert_int_equal(nl_model_cache_bytes(c), before + 12345);
    nl_model_ref_release(r);
    nl_model_cache_free(c);

    /* A bound the memo pushes past evicts the least recently used other model, never the memo's own. */
    c = nl_model_cache_new(4, 2 * before + 1000);
    nl_model_ref *ra = get(c, fx->path), *rb = get(c, fx->other);
    b.bytes = 5000;
    memo_ok(rb, "summary", &b);
    nl_model_ref *pa = nl_model_cache_peek(c, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = fx->path}), *pb = nl_model_cache_peek(c, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = fx->other});
    assert_null(pa);
    assert_non_null(pb);
    assert_int_equal(nl_model_cache_bytes(c), before + 5000);
    nl_model_ref_release(pb);
    nl_model_ref_release(ra);
    nl_model_ref_release(rb);
    nl_model_cache_free(c);
}

static void a_key_too_long_is_an_argument_error(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    build_ctx b = {0};
    nl_model_ref *r = get(c, fx->path);
    char key[NL_MODEL_MEMO_KEY_MAX + 1];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    nl_error err;
    assert_null(nl_model_ref_memo(r, key, build_counted, release_counted, &b, NULL, &err));
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    assert_int_equal(atomic_load(&b.builds), 0);
    key[NL_MODEL_MEMO_KEY_MAX - 1] = '\0';          /* the longest key that fits */
    memo_ok(r, key, &b);
    nl_model_ref_release(r);
    nl_model_cache_free(c);
}

/* ---- models of other kinds ------------------------------------------------------------------------------ */

static nl_model_ref *dump_ok(nl_model_cache *c, const char *path)
{
    nl_error err;
    nl_model_ref *r = nl_model_cache_get(c, &(nl_model_source){.kind = NL_MODEL_SHOW_SESSION, .path = path}, NULL, &err);
    if (!r)
        fail_msg("nl_model_cache_get %s: %s", path, err.message);
    assert_int_equal(nl_model_ref_kind(r), NL_MODEL_SHOW_SESSION);
    assert_null(nl_model_ref_device(r));
    assert_null(nl_model_ref_system(r));
    assert_null(nl_model_ref_framework(r));
    assert_non_null(nl_model_ref_show_session(r));
    return r;
}

static void a_model_of_another_kind_is_loaded_once_per_file_version(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    nl_model_ref *r1 = dump_ok(c, fx->side);
    nl_model_ref *r2 = dump_ok(c, fx->side);
    assert_ptr_equal(nl_model_ref_show_session(r1), nl_model_ref_show_session(r2));
    assert_int_equal(nl_model_cache_loads(c), 1);
    assert_int_equal(nl_model_ref_was_cached(r1), 0);
    assert_int_equal(nl_model_ref_was_cached(r2), 1);
    assert_int_equal(show_session_core_count(nl_model_ref_show_session(r1)), 1);
    /* the kind is part of the identity: the same path as a device model is another entry (and fails) */
    assert_null(nl_model_cache_peek(c, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = fx->side}));
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    assert_null(nl_model_cache_get(c, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = fx->side}, NULL, &err));
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(nl_model_cache_loads(c), 2);
    size_t bytes = nl_model_cache_bytes(c);
    assert_true(bytes > 0);

    write_file(fx->side, "Collectives trace for CC-core 0\nTPB_TRIGGER 5 START\nCollectives trace for CC-core 1\n");
    nl_model_ref *r3 = dump_ok(c, fx->side); /* another size: read again */
    assert_int_equal(nl_model_cache_loads(c), 3);
    assert_ptr_not_equal(nl_model_ref_show_session(r3), nl_model_ref_show_session(r1));
    assert_int_equal(show_session_core_count(nl_model_ref_show_session(r3)), 2);
    assert_int_not_equal(nl_model_ref_serial(r3), nl_model_ref_serial(r1));
    nl_model_ref_release(r1);
    nl_model_ref_release(r2);
    nl_model_ref_release(r3);
    nl_model_cache_free(c);
}

static void a_missing_file_is_not_found_and_not_kept(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/missing.txt", fx->dir);
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    assert_null(nl_model_cache_get(c, &(nl_model_source){.kind = NL_MODEL_SHOW_SESSION, .path = missing}, NULL, &err));
    assert_int_equal(err.code, NL_ERR_NOT_FOUND);
    assert_string_equal(err.source, missing);
    memset(&err, 0x5a, sizeof err);
    assert_null(nl_model_cache_get(c, &(nl_model_source){.kind = NL_MODEL_SYSTEM, .path = NULL}, NULL, &err));
    assert_int_equal(err.code, NL_ERR_NOT_FOUND);
    assert_string_equal(err.message, "the capture has no ntrace.pb");
    assert_int_equal(nl_model_cache_loads(c), 0);
    assert_int_equal(nl_model_cache_bytes(c), 0);
    nl_model_cache_free(c);
}

typedef struct dump_racer {
    nl_model_cache *cache;
    const char *path;
    const void *got;
} dump_racer;

static void *race_dump(void *arg)
{
    dump_racer *r = arg;
    nl_error err;
    nl_model_ref *ref =
        nl_model_cache_get(r->cache, &(nl_model_source){.kind = NL_MODEL_SHOW_SESSION, .path = r->path}, NULL, &err);
    r->got = ref ? nl_model_ref_show_session(ref) : NULL;
    nl_model_ref_release(ref);
    return NULL;
}

static void concurrent_loads_of_another_kind_read_once(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    pthread_t t[THREADS];
    dump_racer r[THREADS];
    for (int i = 0; i < THREADS; i++) {
        r[i] = (dump_racer){.cache = c, .path = fx->side};
        assert_int_equal(pthread_create(&t[i], NULL, race_dump, &r[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(nl_model_cache_loads(c), 1);
    for (int i = 0; i < THREADS; i++) {
        assert_non_null(r[i].got);
        assert_ptr_equal(r[i].got, r[0].got);
    }
    nl_model_cache_free(c);
}

/* A memo that records the kind of model it was built from. */
typedef struct kind_ctx {
    build_ctx *b;
    nl_model_kind seen;
} kind_ctx;

static void *build_kind_counted(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    kind_ctx *k = ctx;
    k->seen = nl_model_ref_kind(r);
    return build_counted(r, k->b, bytes, err);
}

static void memos_on_every_kind_share_one_scheme(void **state)
{
    fixture *fx = *state;
    nl_model_cache *c = nl_model_cache_new(4, 0);
    build_ctx ob = {.bytes = 40};
    kind_ctx kc = {.b = &ob};
    nl_error err;
    nl_model_ref *r1 = dump_ok(c, fx->side);
    size_t model_bytes = nl_model_cache_bytes(c);
    const counted *s1 = nl_model_ref_memo(r1, "gaps", build_kind_counted, release_counted, &kc, NULL, &err);
    assert_non_null(s1);
    assert_int_equal(kc.seen, NL_MODEL_SHOW_SESSION);
    nl_model_ref *r2 = dump_ok(c, fx->side);
    assert_ptr_equal(nl_model_ref_memo(r2, "gaps", build_kind_counted, release_counted, &kc, NULL, &err), s1);
    assert_int_equal(atomic_load(&ob.builds), 1);
    assert_int_equal(nl_model_cache_bytes(c), model_bytes + 40); /* the model's bytes and its memo's */
    assert_int_equal(nl_model_ref_serial(r1), nl_model_ref_serial(r2));
    assert_int_not_equal(nl_model_ref_serial(r1), 0);

    nl_model_ref *m = get(c, fx->path); /* a device model with the same memo key is another object */
    const counted *d = nl_model_ref_memo(m, "gaps", build_kind_counted, release_counted, &kc, NULL, &err);
    assert_non_null(d);
    assert_ptr_not_equal(d, s1);
    assert_int_equal(kc.seen, NL_MODEL_DEVICE);
    assert_int_not_equal(nl_model_ref_serial(m), nl_model_ref_serial(r1));

    /* a failed build is not kept */
    atomic_store(&ob.fail_next, 1);
    assert_null(nl_model_ref_memo(r1, "summary", build_kind_counted, release_counted, &kc, NULL, &err));
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_non_null(nl_model_ref_memo(r1, "summary", build_kind_counted, release_counted, &kc, NULL, &err));
    assert_int_equal(atomic_load(&ob.builds), 4);
    nl_model_ref_release(m);
    nl_model_ref_release(r1);
    nl_model_ref_release(r2);
    assert_int_equal(atomic_load(&ob.released), 0);     /* kept with their models */
    nl_model_cache_free(c);
    assert_int_equal(atomic_load(&ob.released), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(memo_is_built_once_per_model_and_key, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_callers_wait_for_one_build, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failed_build_is_not_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_waiters_build_again_after_a_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(a_cancelled_waiter_stops_waiting_and_the_build_is_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(memos_of_an_evicted_model_live_until_its_last_reference, setup, teardown),
        cmocka_unit_test_setup_teardown(keys_past_the_cap_live_with_their_reference, setup, teardown),
        cmocka_unit_test_setup_teardown(memo_bytes_count_in_the_byte_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(a_key_too_long_is_an_argument_error, setup, teardown),
        cmocka_unit_test_setup_teardown(a_model_of_another_kind_is_loaded_once_per_file_version, setup, teardown),
        cmocka_unit_test_setup_teardown(a_missing_file_is_not_found_and_not_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_loads_of_another_kind_read_once, setup, teardown),
        cmocka_unit_test_setup_teardown(memos_on_every_kind_share_one_scheme, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
