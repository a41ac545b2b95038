/* scan — the catalog scan every tool does, wired to what the server already knows: a JSON export whose
 * model is cached (same path, size and mtime), or whose identity (neff_header.uuid,
 * profile_info.ntff_filename) an earlier scan established, is not read again. Without this, every call on
 * a directory of N exports would re-read all N to pair them (O(N²) bytes over a session).
 * The identity memo is owned by nl_tools, bounded (NL_IDENTITY_MEMO_MAX entries, then cleared) and
 * thread-safe (one mutex). */
#ifndef NL_SCAN_H
#define NL_SCAN_H

#include "catalog.h"
#include "tools.h"

#define NL_IDENTITY_MEMO_MAX 65536

typedef struct nl_identity_memo nl_identity_memo;

nl_identity_memo *nl_identity_memo_new(void);
void nl_identity_memo_free(nl_identity_memo *memo);

/* nl_catalog_scan with default limits plus the hooks. NULL with err on failure (err may be NULL). */
nl_catalog *nl_tools_scan(nl_call *call, const char *path, nl_error *err);

#endif
