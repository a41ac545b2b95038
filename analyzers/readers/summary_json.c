/* summary_json — see summary_json.h.
 *
 * Input format (formats.md §5.1; neuron-profile 2.27.33):
 *
 *   { "n_<40 hex>": { "total_time": 0.001869298853, "hbm_read_bytes": 100352, "instance_type": "inf2.xlarge",
 *                      ... ~108 flat keys, sparse ... },
 *     "n_<40 hex>": { ... } }                          one key per processed device profile
 *
 * Units follow §0.2 (`*_time` seconds, `*_percent` fractions); the reader stores values as written and
 * leaves units to the analyses. Nested values inside a profile (none seen) become KVLIST_COMPOUND.
 *
 * Why json_stream and not jansson: the file is small, but json_stream keeps integer literals exact
 * (uint64) and the literal text of every number, which jansson does not; the size cap still applies.
 *
 * States (token depth: 0 top object, 1 profile keys/values, 2 metric keys/values, ≥3 nested):
 *   START ─{→ TOP ─key→ VALUE ─{→ METRICS ─key→ METRIC ─scalar→ METRICS, ─{ or [→ NESTED → METRICS
 *                           │        └─}→ TOP
 *                           └─ anything else → skipped (SKIP until its end, for a container) → TOP */
#include "summary_json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "json_kv_internal.h"
#include "json_stream.h"
#include "strtab.h"

struct summary_json {
    arena *arena;
    strtab *strings;
    uint32_t *names;
    kvlist **metrics;
    size_t count, cap;
    size_t skipped;
};

enum sj_state { SJ_START, SJ_TOP, SJ_VALUE, SJ_METRICS, SJ_METRIC, SJ_NESTED, SJ_SKIP, SJ_DONE };

typedef struct sj_parse {
    summary_json *s;
    enum sj_state state;
    kvlist *cur;
    uint32_t key;
    nl_error *err;
    const char *name;
} sj_parse;

static int sj_fail(sj_parse *p, nl_error_code code, int64_t offset, const char *msg)
{
    return nl_error_set(p->err, code, p->name, offset, "%s", msg);
}

/* Context for errors from strtab/kvlist, which carry no source or offset. */
static int sj_context(sj_parse *p, int64_t offset)
{
    if (p->err && !p->err->source[0])
        snprintf(p->err->source, sizeof p->err->source, "%s", p->name);
    if (p->err && p->err->offset < 0)
        p->err->offset = offset;
    return -1;
}

static int sj_add_profile(sj_parse *p, uint32_t name, int64_t offset)
{
    summary_json *s = p->s;
    if (s->count >= SUMMARY_JSON_PROFILES_MAX)
        return sj_fail(p, NL_ERR_LIMIT, offset, "more than SUMMARY_JSON_PROFILES_MAX profiles");
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        uint32_t *names = arena_alloc(s->arena, cap * sizeof *names);
        kvlist **metrics = arena_alloc(s->arena, cap * sizeof *metrics);
        if (!names || !metrics)
            return sj_fail(p, NL_ERR_NOMEM, offset, "out of memory adding a profile");
        if (s->count) {
            memcpy(names, s->names, s->count * sizeof *names);
            memcpy(metrics, s->metrics, s->count * sizeof *metrics);
        }
        s->names = names;
        s->metrics = metrics;
        s->cap = cap;
    }
    p->cur = kvlist_new(s->arena, s->strings);
    if (!p->cur)
        return sj_fail(p, NL_ERR_NOMEM, offset, "out of memory adding a profile");
    s->names[s->count] = name;
    s->metrics[s->count++] = p->cur;
    return 0;
}

static int sj_is_begin(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_OBJECT_BEGIN || t->kind == JSON_STREAM_ARRAY_BEGIN;
}

static int sj_token(sj_parse *p, const json_stream_token *t)
{
    switch (p->state) {
    case SJ_START:
        if (t->kind != JSON_STREAM_OBJECT_BEGIN)
            return sj_fail(p, NL_ERR_FORMAT, t->offset, "top level is not an object: not a summary-json file");
        p->state = SJ_TOP;
        return 0;
    case SJ_TOP:
        if (t->kind == JSON_STREAM_OBJECT_END) {
            p->state = SJ_DONE;
            return 0;
        }
        if (strtab_intern(p->s->strings, t->str, t->len, &p->key, p->err) != 0)
            return sj_context(p, t->offset);
        p->state = SJ_VALUE;
        return 0;
    case SJ_VALUE:
        if (t->kind == JSON_STREAM_OBJECT_BEGIN) {
            p->state = SJ_METRICS;
            return sj_add_profile(p, p->key, t->offset);
        }
        p->s->skipped++;
        p->state = sj_is_begin(t) ? SJ_SKIP : SJ_TOP;
        return 0;
    case SJ_METRICS:
        if (t->kind == JSON_STREAM_OBJECT_END) {
            p->state = SJ_TOP;
            return 0;
        }
        if (strtab_intern(p->s->strings, t->str, t->len, &p->key, p->err) != 0)
            return sj_context(p, t->offset);
        p->state = SJ_METRIC;
        return 0;
    case SJ_METRIC:
        p->state = sj_is_begin(t) ? SJ_NESTED : SJ_METRICS;
        if (json_kv_set(p->cur, p->s->strings, p->key, t, p->err) != 0)
            return sj_context(p, t->offset);
        return 0;
    case SJ_NESTED:
        if (t->depth == 2 && !sj_is_begin(t))
            p->state = SJ_METRICS;
        return 0;
    case SJ_SKIP:
        if (t->depth == 1 && !sj_is_begin(t))
            p->state = SJ_TOP;
        return 0;
    case SJ_DONE: break;
    }
    return sj_fail(p, NL_ERR_INTERNAL, t->offset, "token after the end of the document");
}

static int sj_parse_all(sj_parse *p, const void *data, size_t len)
{
    json_stream_options jo = {.source = p->name};
    json_stream *js = json_stream_new(&jo, p->err);
    if (!js)
        return -1;
    int rc = json_stream_feed(js, data, len, p->err);
    json_stream_finish(js);
    while (rc == 0) {
        json_stream_token t;
        json_stream_status st = json_stream_next(js, &t, p->err);
        if (st == JSON_STREAM_END)
            break;
        if (st != JSON_STREAM_TOKEN)
            rc = -1;
        else
            rc = sj_token(p, &t);
    }
    json_stream_free(js);
    return rc;
}

int summary_json_read_mem(const void *data, size_t len, const char *name, summary_json **out, nl_error *err)
{
    *out = NULL;
    name = name ? name : "(memory)";
    if (len > SUMMARY_JSON_SIZE_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, name, -1,
                            "summary-json of %zu bytes exceeds SUMMARY_JSON_SIZE_MAX (%zu)", len, SUMMARY_JSON_SIZE_MAX);
    arena *a = arena_new(64 << 10);
    summary_json *s = a ? arena_calloc(a, 1, sizeof *s) : NULL;
    if (s) {
        s->arena = a;
        s->strings = strtab_new(a);
    }
    if (!s || !s->strings) {
        arena_free(a);
        return nl_error_set(err, NL_ERR_NOMEM, name, -1, "out of memory reading summary-json");
    }
    nl_error local;
    nl_error_clear(&local);
    sj_parse p = {.s = s, .state = SJ_START, .err = &local, .name = name};
    if (sj_parse_all(&p, data ? data : "", data ? len : 0) != 0) {
        if (local.code == NL_ERR_TRUNCATED && local.offset == 0)
            nl_error_set(&local, NL_ERR_FORMAT, name, 0, "empty file: no summary-json content");
        if (err)
            *err = local;
        summary_json_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* Read a whole small file into malloc'd memory; -1 with err set. */
static int sj_slurp(const char *path, char **data, size_t *len, nl_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return nl_error_set(err, errno == ENOENT ? NL_ERR_NOT_FOUND : NL_ERR_IO, path, -1, "cannot open: %s",
                            strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > SUMMARY_JSON_SIZE_MAX) {
        close(fd);
        return nl_error_set(err, NL_ERR_LIMIT, path, -1, "file of %lld bytes exceeds SUMMARY_JSON_SIZE_MAX (%zu)",
                            (long long)st.st_size, SUMMARY_JSON_SIZE_MAX);
    }
    size_t cap = 64 << 10, n = 0;
    char *buf = malloc(cap);
    int rc = buf ? 0 : nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory reading the file");
    while (rc == 0) {
        if (n == cap) {
            char *b = cap > SUMMARY_JSON_SIZE_MAX ? NULL : realloc(buf, cap * 2);
            if (!b) {
                rc = cap > SUMMARY_JSON_SIZE_MAX
                         ? nl_error_set(err, NL_ERR_LIMIT, path, (int64_t)n,
                                        "file exceeds SUMMARY_JSON_SIZE_MAX (%zu bytes)", SUMMARY_JSON_SIZE_MAX)
                         : nl_error_set(err, NL_ERR_NOMEM, path, (int64_t)n, "out of memory reading the file");
                break;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            rc = nl_error_set(err, NL_ERR_IO, path, (int64_t)n, "read failed: %s", strerror(errno));
        else if (r == 0)
            break;
        else
            n += (size_t)r;
    }
    close(fd);
    if (rc != 0) {
        free(buf);
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

int summary_json_read(const char *path, summary_json **out, nl_error *err)
{
    *out = NULL;
    char *data = NULL;
    size_t len = 0;
    if (sj_slurp(path, &data, &len, err) != 0)
        return -1;
    int rc = summary_json_read_mem(data, len, path, out, err);
    free(data);
    return rc;
}

void summary_json_free(summary_json *s)
{
    if (s)
        arena_free(s->arena);
}

size_t summary_json_count(const summary_json *s)
{
    return s->count;
}

const char *summary_json_name(const summary_json *s, size_t i)
{
    return i < s->count ? strtab_str(s->strings, s->names[i], NULL) : NULL;
}

const kvlist *summary_json_metrics(const summary_json *s, size_t i)
{
    return i < s->count ? s->metrics[i] : NULL;
}

size_t summary_json_skipped(const summary_json *s)
{
    return s->skipped;
}
