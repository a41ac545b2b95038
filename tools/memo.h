/* memo — the analyses tools repeat on one input, kept in the shared model cache (model_cache.h memos).
 *
 * Owns nothing itself: every object lives in nl_tools_models() and is freed with the model (or, for a
 * show-session dump, evicted like a model). Each helper builds its object on the first call for (model,
 * the arguments the object depends on) and returns it borrowed, valid while the reference it was asked
 * with is held; later calls, from any worker thread, get the same object without reading a row. Results
 * are the analyses' own structs, so a memoized call answers exactly what a direct call would.
 * Errors: NULL with nl_error (the analysis's error, NL_ERR_CANCELLED when the call is cancelled while
 * building or waiting for another call's build, NL_ERR_NOMEM); a failed build is not kept. */
#ifndef NL_TOOLS_MEMO_H
#define NL_TOOLS_MEMO_H

#include <stdint.h>

#include "attribution.h"
#include "device_summary.h"
#include "model_cache.h"
#include "show_session.h"
#include "tools.h"

/* device_summary_compute of the model (summary, orient). */
const device_summary *nl_memo_device_summary(nl_call *call, nl_model_ref *ref, nl_error *err)
    __attribute__((warn_unused_result));

/* Per-group aggregates of grouping `by` (pass attr_effective_group_by's result). */
const attr_groups *nl_memo_attr_groups(nl_call *call, nl_model_ref *ref, attr_group_by by, nl_error *err)
    __attribute__((warn_unused_result));

/* Engine time, idle gaps and small DMA for one gap setting. */
const attr_sections *nl_memo_attr_sections(nl_call *call, nl_model_ref *ref, int64_t gap_min_ns, uint32_t gaps_per_engine,
                                           nl_error *err) __attribute__((warn_unused_result));

/* The parsed show-session dump at `path` (`source` names it in errors). Returns a reference owned by the
 * caller (nl_model_ref_release); the show_session is nl_model_ref_object(ref), borrowed while it is held. */
nl_model_ref *nl_memo_show_session(nl_call *call, const char *path, const char *source, nl_error *err)
    __attribute__((warn_unused_result));

#endif
