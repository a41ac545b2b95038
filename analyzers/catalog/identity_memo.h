/* identity_memo — what earlier scans learned about full JSON exports, so the next scan need not read them.
 *
 * A JSON export whose model is in the model cache (same path, size and mtime), or whose identity
 * (neff_header.uuid, profile_info.ntff_filename) an earlier scan established, is not read again to pair it
 * with its NTFF. Without this, every call on a directory of N exports would re-read all N (O(N²) bytes over
 * a session). Owns its entries; bounded (NL_IDENTITY_MEMO_MAX entries, then cleared). Thread-safe (one
 * mutex): the catalog calls the hooks from its classifying threads. */
#ifndef NL_IDENTITY_MEMO_H
#define NL_IDENTITY_MEMO_H

#include "catalog.h"
#include "model_cache.h"

#define NL_IDENTITY_MEMO_MAX 65536

typedef struct nl_identity_memo nl_identity_memo;

/* An empty memo that also asks `models` (borrowed, nullable; must outlive the memo). NULL when out of memory. */
nl_identity_memo *nl_identity_memo_new(nl_model_cache *models);
void nl_identity_memo_free(nl_identity_memo *memo);

/* Set lim's export_identity hooks to consult and fill `memo`. */
void nl_identity_memo_hook(nl_identity_memo *memo, nl_catalog_limits *lim);

#endif
