/* scan — see scan.h. */
#include "scan.h"
#include "model_cache.h"

#include <stdio.h>
#include <string.h>

static int identity_from_cache(void *ctx, const char *path, uint64_t size, int64_t mtime_ns, char uuid_hex[33],
                               char *ntff_filename, size_t cap)
{
    (void)size;
    (void)mtime_ns; /* nl_model_cache_peek re-checks size and mtime itself */
    nl_model_ref *ref = nl_model_cache_peek(ctx, path);
    if (!ref)
        return 0;
    const device_model *m = nl_model_ref_model(ref);
    const char *v;
    const kvlist *hdr = device_model_record_get(m, DEVICE_MODEL_NEFF_HEADER);
    const kvlist *info = device_model_record_get(m, DEVICE_MODEL_PROFILE_INFO);
    snprintf(uuid_hex, 33, "%s", hdr && kvlist_get_str(hdr, "uuid", &v) ? v : "");
    snprintf(ntff_filename, cap, "%s", info && kvlist_get_str(info, "ntff_filename", &v) ? v : "");
    nl_model_ref_release(ref);
    return 1;
}

nl_catalog *nl_tools_scan(nl_call *call, const char *path, nl_error *err)
{
    nl_catalog_limits lim;
    nl_catalog_limits_default(&lim);
    if (call && call->tools) {
        lim.export_identity = identity_from_cache;
        lim.export_identity_ctx = nl_tools_models(call->tools);
    }
    return nl_catalog_scan(path, &lim, err);
}
