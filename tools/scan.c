/* scan — see scan.h. */
#include "scan.h"
#include "identity_memo.h"

nl_catalog *nl_tools_scan(nl_call *call, const char *path, nl_error *err)
{
    nl_catalog_limits lim;
    nl_catalog_limits_default(&lim);
    if (call && call->tools)
        nl_identity_memo_hook(nl_tools_identity(call->tools), &lim);
    return nl_catalog_scan(path, &lim, err);
}
