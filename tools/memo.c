/* memo — see memo.h.
 *
 * Keys name what each object depends on besides its input: "device_summary", "attr.groups/<grouping>",
 * "attr.sections/<gap_min_ns>/<gaps_per_engine>", "extract.order/<kind>/<sort>" (trace-extract's row
 * orders: a warm page at 1M instructions took 13.6 ms ranking every row, 0.5 ms as a slice of the order),
 on device models; on system and framework models "system_summary", "framework_summary",
 * "host_device_join/<serial of the system model>", "extract.order/<sort>" and "extract.counts" (trace-extract's
 * row orders and timeline counts of the model). Models of every kind come from the one model cache
 * (model_cache.h keys them by their files). Anything a result also depends on (metric, top, cursor, byte budget, the chosen
 * CC-core) is applied per call on top of the memoized object, so it never enters a key. Sizes reported to
 * the cache are the objects' heap bytes (system_model_bytes, framework_model_bytes, the summaries' and the
 * join's *_bytes), so memos count against the same byte bound. */
#include "memo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void *build_device_summary(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const device_model *m = nl_model_ref_device(r);
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

static void *build_attr_groups(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const device_model *m = nl_model_ref_device(r);
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

static void *build_attr_sections(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const device_model *m = nl_model_ref_device(r);
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

static void *build_extract_order(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const device_model *m = nl_model_ref_device(r);
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

nl_model_ref *nl_memo_show_session(nl_call *call, const char *path, const char *source, nl_error *err)
{
    nl_model_source src = {.kind = NL_MODEL_SHOW_SESSION, .path = path, .label = source};
    nl_model_load_options opt = {.cancel = call->cancel};
    return nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, err);
}

/* ---- host-side profiles ------------------------------------------------------------------------------ */

nl_model_ref *nl_memo_system_model(nl_call *call, const system_profile_paths *paths, nl_error *err)
{
    nl_model_source src = {.kind = NL_MODEL_SYSTEM, .path = paths->ntrace, .trace_info = paths->trace_info,
                           .cpu_util = paths->cpu_util, .host_mem = paths->host_mem};
    nl_model_load_options opt = {.cancel = call->cancel};
    return nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, err);
}

static void memo_read_progress(void *ctx, uint64_t done, uint64_t total)
{
    nl_call_progress(ctx, (double)done, total ? (double)total : 0, "reading trace.json");
}

nl_model_ref *nl_memo_framework_model(nl_call *call, const char *path, nl_error *err)
{
    nl_model_source src = {.kind = NL_MODEL_FRAMEWORK, .path = path};
    nl_model_load_options opt = {.cancel = call->cancel, .progress = memo_read_progress, .progress_ctx = call};
    return nl_model_cache_get(nl_tools_models(call->tools), &src, &opt, err);
}

static void *build_system_summary(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    system_summary *s = calloc(1, sizeof *s);
    if (!s) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (system summary)");
        return NULL;
    }
    if (system_summary_compute(nl_model_ref_system(r), c->call->cancel, s, err)) {
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
    return nl_model_ref_memo(sys, "system_summary", build_system_summary, release_system_summary, &c,
                                    call->cancel, err);
}

static void *build_framework_summary(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    framework_summary *s = calloc(1, sizeof *s);
    if (!s) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (framework summary)");
        return NULL;
    }
    if (framework_summary_compute(nl_model_ref_framework(r), c->call->cancel, s, err)) {
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
    return nl_model_ref_memo(fw, "framework_summary", build_framework_summary, release_framework_summary, &c,
                                    call->cancel, err);
}

static void *build_host_device_join(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    host_device_join *j = calloc(1, sizeof *j);
    if (!j) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (host-device join)");
        return NULL;
    }
    if (host_device_join_compute(nl_model_ref_framework(r), c->sys, c->call->cancel, j, err)) {
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
    memo_ctx c = {.call = call, .sys = nl_model_ref_system(sys)};
    return nl_model_ref_memo(fw, key, build_host_device_join, release_host_device_join, &c, call->cancel, err);
}

static void *build_host_extract_order(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    host_extract_order *o = NULL;
    host_extract_source src = {.kind = c->src->kind};
    src.sys = nl_model_ref_system(r);
    src.fw = nl_model_ref_framework(r);
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
    return nl_model_ref_memo(host, key, build_host_extract_order, release_host_extract_order, &c, call->cancel,
                                    err);
}

static void *build_host_extract_counts(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    host_extract_counts *k = malloc(sizeof *k);
    host_extract_source src = {.kind = c->src->kind};
    src.sys = nl_model_ref_system(r);
    src.fw = nl_model_ref_framework(r);
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
    return nl_model_ref_memo(host, "extract.counts", build_host_extract_counts, free, &c, call->cancel, err);
}
