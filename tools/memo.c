/* memo — see memo.h.
 *
 * Keys name what each object depends on besides its input: "device_summary", "attr.groups/<grouping>",
 * "attr.sections/<gap_min_ns>/<gaps_per_engine>", "extract.order/<kind>/<sort>" (trace-extract's row
 * orders: a warm page at 1M instructions took 13.6 ms ranking every row, 0.5 ms as a slice of the order),
 * and "show_session" for a dump file (keyed further by path,
 * size and mtime in the cache). Host-side profiles: "framework_model" for a trace file; for a system profile
 * the file memo of ntrace.pb with "system_model/" and, for trace_info.pb, cpu_util.pb and host_mem.pb in that
 * order, "<size>.<mtime ns>.<name>" (name = the base name, up to MEMO_NAME_MAX bytes, when the file sits
 * beside ntrace.pb, else "#" and a 64-bit FNV-1a hash of its path; "-" for a file the capture lacks, "?" for
 * one that cannot be stat'ed); on those objects "system_summary", "framework_summary",
 * "host_device_join/<serial of the system model>", "extract.order/<sort>" and "extract.counts" (trace-extract's
 * row orders and timeline counts of the model; 1.8M framework events took ~40 ms a call without them). Files are stat'ed before they are read, so a file
 * rewritten during the read may be kept under its earlier (size, mtime), as for device models; the next
 * version is read again. Anything a result also depends on (metric, top, cursor, byte budget, the chosen
 * CC-core) is applied per call on top of the memoized object, so it never enters a key. Sizes reported to
 * the cache are the objects' heap bytes (system_model_bytes, framework_model_bytes, the summaries' and the
 * join's *_bytes), so memos count against the same byte bound. */
#include "memo.h"
#include "kineto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct memo_ctx {
    nl_call *call;
    extract_kind kind;
    extract_sort sort;
    host_extract_sort host_sort;
    const host_extract_source *src;
    attr_group_by by;
    int64_t gap_min_ns;
    uint32_t gaps_per_engine;
    const char *source;
    const system_profile_paths *paths;
    const system_model *sys;
} memo_ctx;

static void *build_device_summary(const device_model *m, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    device_summary *ds = calloc(1, sizeof *ds);
    if (!ds) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (device summary)");
        return NULL;
    }
    if (device_summary_compute(m, c->call->cancel, ds, err)) {
        free(ds);
        return NULL;
    }
    *bytes = sizeof *ds;
    return ds;
}

const device_summary *nl_memo_device_summary(nl_call *call, nl_model_ref *ref, nl_error *err)
{
    memo_ctx c = {.call = call};
    return nl_model_ref_memo(ref, "device_summary", build_device_summary, free, &c, call->cancel, err);
}

static void *build_attr_groups(const device_model *m, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    attr_groups *g = NULL;
    if (attr_groups_compute(m, c->by, c->call->cancel, &g, err))
        return NULL;
    *bytes = attr_groups_bytes(g);
    return g;
}

static void release_attr_groups(void *obj)
{
    attr_groups_free(obj);
}

const attr_groups *nl_memo_attr_groups(nl_call *call, nl_model_ref *ref, attr_group_by by, nl_error *err)
{
    char key[64];
    snprintf(key, sizeof key, "attr.groups/%s", attr_group_by_name(by));
    memo_ctx c = {.call = call, .by = by};
    return nl_model_ref_memo(ref, key, build_attr_groups, release_attr_groups, &c, call->cancel, err);
}

static void *build_attr_sections(const device_model *m, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    attr_sections *s = NULL;
    if (attr_sections_compute(m, c->gap_min_ns, c->gaps_per_engine, c->call->cancel, &s, err))
        return NULL;
    *bytes = attr_sections_bytes(s);
    return s;
}

static void release_attr_sections(void *obj)
{
    attr_sections_free(obj);
}

const attr_sections *nl_memo_attr_sections(nl_call *call, nl_model_ref *ref, int64_t gap_min_ns, uint32_t gaps_per_engine,
                                           nl_error *err)
{
    char key[96];
    snprintf(key, sizeof key, "attr.sections/%lld/%u", (long long)gap_min_ns, gaps_per_engine);
    memo_ctx c = {.call = call, .gap_min_ns = gap_min_ns, .gaps_per_engine = gaps_per_engine};
    return nl_model_ref_memo(ref, key, build_attr_sections, release_attr_sections, &c, call->cancel, err);
}

static void *build_extract_order(const device_model *m, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    extract_order *o = NULL;
    if (extract_order_build(m, c->kind, c->sort, c->call->cancel, &o, err))
        return NULL;
    *bytes = extract_order_bytes(o);
    return o;
}

static void release_extract_order(void *obj)
{
    extract_order_free(obj);
}

const extract_order *nl_memo_extract_order(nl_call *call, nl_model_ref *ref, extract_kind kind, extract_sort sort,
                                           nl_error *err)
{
    char key[64];
    snprintf(key, sizeof key, "extract.order/%s/%s", extract_kind_name(kind), extract_sort_name(sort));
    if (!nl_model_ref_memo_has_room(ref, key))
        return NULL; /* built for one call it costs 2-3 direct rankings: rank directly */
    memo_ctx c = {.call = call, .kind = kind, .sort = sort};
    return nl_model_ref_memo(ref, key, build_extract_order, release_extract_order, &c, call->cancel, err);
}

static void *build_show_session(const char *path, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    show_session_options opt = {.source = c->source, .cancel = c->call->cancel};
    show_session *ss = NULL;
    if (show_session_read(path, &opt, &ss, err))
        return NULL;
    *bytes = show_session_bytes(ss);
    return ss;
}

static void release_show_session(void *obj)
{
    show_session_free(obj);
}

nl_model_ref *nl_memo_show_session(nl_call *call, const char *path, const char *source, nl_error *err)
{
    memo_ctx c = {.call = call, .source = source};
    return nl_model_cache_file_memo(nl_tools_models(call->tools), path, "show_session", build_show_session,
                                    release_show_session, &c, call->cancel, err);
}

/* ---- host-side profiles ------------------------------------------------------------------------------ */

#define MEMO_NAME_MAX 32   /* longest base name written into a key as is */
#define MEMO_PART_MAX 80   /* one file of a system-model key, NUL included: 20 + 1 + 20 + 1 + 32 < 80 */

static uint64_t memo_fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* One companion file of ntrace.pb in a system-model key (see the design note). */
static void memo_file_part(char *out, size_t cap, const char *ntrace, const char *path)
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
    if (beside && strlen(name) <= MEMO_NAME_MAX)
        snprintf(out, cap, "%lld.%lld.%s", (long long)st.st_size, mtime_ns, name);
    else
        snprintf(out, cap, "%lld.%lld.#%016llx", (long long)st.st_size, mtime_ns,
                 (unsigned long long)memo_fnv1a(path));
}

static void *build_system_model(const char *path, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    (void)path; /* c->paths->ntrace */
    system_profile_options opt = {.cancel = c->call->cancel};
    system_model *m = NULL;
    if (system_profile_load(c->paths, &opt, &m, err))
        return NULL;
    *bytes = system_model_bytes(m);
    return m;
}

static void release_system_model(void *obj)
{
    system_model_free(obj);
}

nl_model_ref *nl_memo_system_model(nl_call *call, const system_profile_paths *paths, nl_error *err)
{
    if (!paths->ntrace) { /* nothing to key the memo by (as system_profile_load words it) */
        nl_error_set(err, NL_ERR_NOT_FOUND, NULL, -1, "the capture has no ntrace.pb");
        return NULL;
    }
    char ti[MEMO_PART_MAX], cu[MEMO_PART_MAX], hm[MEMO_PART_MAX], key[NL_MODEL_MEMO_KEY_MAX];
    memo_file_part(ti, sizeof ti, paths->ntrace, paths->trace_info);
    memo_file_part(cu, sizeof cu, paths->ntrace, paths->cpu_util);
    memo_file_part(hm, sizeof hm, paths->ntrace, paths->host_mem);
    snprintf(key, sizeof key, "system_model/%s/%s/%s", ti, cu, hm); /* ≤ 13 + 3 × 79 + 2 < 256 */
    memo_ctx c = {.call = call, .paths = paths};
    return nl_model_cache_file_memo(nl_tools_models(call->tools), paths->ntrace, key, build_system_model,
                                    release_system_model, &c, call->cancel, err);
}

static void memo_read_progress(void *ctx, uint64_t done, uint64_t total)
{
    nl_call_progress(ctx, (double)done, total ? (double)total : 0, "reading trace.json");
}

static void *build_framework_model(const char *path, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    kineto_options opt = {.cancel = c->call->cancel, .progress = memo_read_progress, .progress_ctx = c->call};
    framework_model *m = NULL;
    if (kineto_read(path, &opt, &m, err))
        return NULL;
    *bytes = framework_model_bytes(m);
    return m;
}

static void release_framework_model(void *obj)
{
    framework_model_free(obj);
}

nl_model_ref *nl_memo_framework_model(nl_call *call, const char *path, nl_error *err)
{
    memo_ctx c = {.call = call};
    return nl_model_cache_file_memo(nl_tools_models(call->tools), path, "framework_model", build_framework_model,
                                    release_framework_model, &c, call->cancel, err);
}

static void *build_system_summary(const void *obj, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    system_summary *s = calloc(1, sizeof *s);
    if (!s) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (system summary)");
        return NULL;
    }
    if (system_summary_compute(obj, c->call->cancel, s, err)) {
        free(s);
        return NULL;
    }
    *bytes = system_summary_bytes(s);
    return s;
}

static void release_system_summary(void *obj)
{
    system_summary_free(obj);
    free(obj);
}

const system_summary *nl_memo_system_summary(nl_call *call, nl_model_ref *sys, nl_error *err)
{
    memo_ctx c = {.call = call};
    return nl_model_ref_object_memo(sys, "system_summary", build_system_summary, release_system_summary, &c,
                                    call->cancel, err);
}

static void *build_framework_summary(const void *obj, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    framework_summary *s = calloc(1, sizeof *s);
    if (!s) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (framework summary)");
        return NULL;
    }
    if (framework_summary_compute(obj, c->call->cancel, s, err)) {
        free(s);
        return NULL;
    }
    *bytes = framework_summary_bytes(s);
    return s;
}

static void release_framework_summary(void *obj)
{
    framework_summary_free(obj);
    free(obj);
}

const framework_summary *nl_memo_framework_summary(nl_call *call, nl_model_ref *fw, nl_error *err)
{
    memo_ctx c = {.call = call};
    return nl_model_ref_object_memo(fw, "framework_summary", build_framework_summary, release_framework_summary, &c,
                                    call->cancel, err);
}

static void *build_host_device_join(const void *obj, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    host_device_join *j = calloc(1, sizeof *j);
    if (!j) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (host-device join)");
        return NULL;
    }
    if (host_device_join_compute(obj, c->sys, c->call->cancel, j, err)) {
        free(j);
        return NULL;
    }
    *bytes = host_device_join_bytes(j);
    return j;
}

static void release_host_device_join(void *obj)
{
    host_device_join_free(obj);
    free(obj);
}

const host_device_join *nl_memo_host_device_join(nl_call *call, nl_model_ref *fw, nl_model_ref *sys, nl_error *err)
{
    char key[64];
    snprintf(key, sizeof key, "host_device_join/%llu", (unsigned long long)nl_model_ref_serial(sys));
    memo_ctx c = {.call = call, .sys = nl_model_ref_object(sys)};
    return nl_model_ref_object_memo(fw, key, build_host_device_join, release_host_device_join, &c, call->cancel, err);
}

static void *build_host_extract_order(const void *obj, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    host_extract_order *o = NULL;
    host_extract_source src = {.kind = c->src->kind};
    if (src.kind == HOST_EXTRACT_SYSTEM)
        src.sys = obj;
    else
        src.fw = obj;
    if (host_extract_order_build(&src, c->host_sort, c->call->cancel, &o, err))
        return NULL;
    *bytes = host_extract_order_bytes(o);
    return o;
}

static void release_host_extract_order(void *obj)
{
    host_extract_order_free(obj);
}

const host_extract_order *nl_memo_host_extract_order(nl_call *call, nl_model_ref *host, const host_extract_source *src,
                                                     host_extract_sort sort, nl_error *err)
{
    char key[64];
    snprintf(key, sizeof key, "extract.order/%s", host_extract_sort_name(sort));
    if (!nl_model_ref_memo_has_room(host, key))
        return NULL; /* as nl_memo_extract_order */
    memo_ctx c = {.call = call, .src = src, .host_sort = sort};
    return nl_model_ref_object_memo(host, key, build_host_extract_order, release_host_extract_order, &c, call->cancel,
                                    err);
}

static void *build_host_extract_counts(const void *obj, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    host_extract_counts *k = malloc(sizeof *k);
    host_extract_source src = {.kind = c->src->kind};
    if (src.kind == HOST_EXTRACT_SYSTEM)
        src.sys = obj;
    else
        src.fw = obj;
    if (!k) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (extract counts)");
        return NULL;
    }
    host_extract_count(&src, k);
    *bytes = sizeof *k;
    return k;
}

const host_extract_counts *nl_memo_host_extract_counts(nl_call *call, nl_model_ref *host, const host_extract_source *src,
                                                       nl_error *err)
{
    memo_ctx c = {.call = call, .src = src};
    return nl_model_ref_object_memo(host, "extract.counts", build_host_extract_counts, free, &c, call->cancel, err);
}
