/* json_kv — shared by the JSON readers (folder-internal): store one json_stream value into a kvlist.
 *
 * Owns nothing. Scalars become typed entries (numbers keep their literal text, interned in `names`);
 * OBJECT_BEGIN/ARRAY_BEGIN become KVLIST_COMPOUND (the caller skips the container's tokens).
 * Threads: whatever owns the kvlist. Errors: NL_ERR_NOMEM / NL_ERR_LIMIT from interning or the kvlist. */
#ifndef NL_JSON_KV_INTERNAL_H
#define NL_JSON_KV_INTERNAL_H

#include <stdint.h>

#include "json_stream.h"
#include "kvlist.h"
#include "nl_error.h"
#include "strtab.h"

/* Set l[key] from the value token `tok` (any kind except KEY and *_END). 0 or -1 with err set. */
int json_kv_set(kvlist *l, strtab *names, uint32_t key, const json_stream_token *tok, nl_error *err)
    __attribute__((warn_unused_result));

#endif
