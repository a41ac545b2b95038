/* scan — the catalog scan every tool does, wired to the shared model cache: a JSON export whose model is
 * already cached (same path, size and mtime) is identified from the model instead of being re-read, so a
 * warm call on a large export costs no file I/O beyond the directory walk. */
#ifndef NL_SCAN_H
#define NL_SCAN_H

#include "catalog.h"
#include "tools.h"

/* nl_catalog_scan with default limits plus the cache hook. NULL with err on failure (err may be NULL). */
nl_catalog *nl_tools_scan(nl_call *call, const char *path, nl_error *err);

#endif
