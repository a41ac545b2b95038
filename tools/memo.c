/* memo — see memo.h.
 *
 * Keys name what each object depends on besides its input: "device_summary", "attr.groups/<grouping>",
 * "attr.sections/<gap_min_ns>/<gaps_per_engine>" on device models; "system_summary", "framework_summary",
 * "host_device_join/<serial of the system model>" on system and framework models; on a model of any kind
 * "timeline.order/<kind>/<sort>" and "timeline.counts/<kind>" (trace-extract's row orders and timeline
 * counts). Models of every kind come from the one model cache (model_cache.h keys them by their files).
 * Anything a result also depends on (metric, top, cursor, byte budget, the chosen CC-core) is applied per
 * call on top of the memoized object, so it never enters a key. Sizes reported to the cache are the
 * objects' heap bytes (system_model_bytes, framework_model_bytes, the summaries' and the join's *_bytes), so
 * memos count against the same byte bound. */
#include "memo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct memo_ctx {
    nl_call *call;
    timeline_sort sort;
    const timeline_source *src;
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

static void *build_timeline_order(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    timeline_order *o = NULL;
    (void)r; /* c->src reads the model of r */
    if (timeline_order_build(c->src, c->sort, c->call->cancel, &o, err))
        return NULL;
    *bytes = timeline_order_bytes(o);
    return o;
}

static void release_timeline_order(void *obj)
{
    timeline_order_free(obj);
}

const timeline_order *nl_memo_timeline_order(nl_call *call, nl_model_ref *ref, const timeline_source *src,
                                             timeline_sort sort, nl_error *err)
{
    char key[64];
    snprintf(key, sizeof key, "timeline.order/%s/%s", src->adapter->kind, timeline_sort_name(sort));
    if (!nl_model_ref_memo_has_room(ref, key))
        return NULL; /* built for one call it costs 2-3 direct rankings: rank directly */
    memo_ctx c = {.call = call, .sort = sort, .src = src};
    return nl_model_ref_memo(ref, key, build_timeline_order, release_timeline_order, &c, call->cancel, err);
}

static void *build_timeline_counts(const nl_model_ref *r, void *ctx, size_t *bytes, nl_error *err)
{
    const memo_ctx *c = ctx;
    timeline_counts *k = malloc(sizeof *k);
    (void)r;
    if (!k) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (timeline counts)");
        return NULL;
    }
    if (timeline_count(c->src, c->call->cancel, k, err)) {
        free(k);
        return NULL;
    }
    *bytes = sizeof *k;
    return k;
}

const timeline_counts *nl_memo_timeline_counts(nl_call *call, nl_model_ref *ref, const timeline_source *src,
                                               nl_error *err)
{
    char key[64];
    snprintf(key, sizeof key, "timeline.counts/%s", src->adapter->kind);
    memo_ctx c = {.call = call, .src = src};
    return nl_model_ref_memo(ref, key, build_timeline_counts, free, &c, call->cancel, err);
}
