/* scan — the catalog scan every tool does, wired to what the server already knows: the shared model cache
 * and the export identities earlier scans established (catalog/identity_memo.h), both owned by nl_tools. */
#ifndef NL_SCAN_H
#define NL_SCAN_H

#include "catalog.h"
#include "tools.h"

/* nl_catalog_scan with default limits plus the identity hooks. NULL with err on failure (err may be NULL). */
nl_catalog *nl_tools_scan(nl_call *call, const char *path, nl_error *err);

#endif
