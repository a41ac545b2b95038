/* memo — see memo.h.
 *
 * Keys name what each object depends on besides its input: "device_summary", "attr.groups/<grouping>",
 * "attr.sections/<gap_min_ns>/<gaps_per_engine>", and "show_session" for a dump file (keyed further by path,
 * size and mtime in the cache). Anything a result also depends on (metric, top, cursor, byte budget, the
 * chosen CC-core) is applied per call on top of the memoized object, so it never enters a key. Sizes
 * reported to the cache are the objects' heap bytes, so memos count against the same byte bound. */
#include "memo.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct memo_ctx {
    nl_call *call;
    attr_group_by by;
    int64_t gap_min_ns;
    uint32_t gaps_per_engine;
    const char *source;
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
