/* memo — the analyses tools repeat on one input, kept in the shared model cache (model_cache.h memos).
 *
 * Owns nothing itself: every object lives in nl_tools_models() and is freed with the model (or, for a
 * show-session dump, a system model or a framework model, evicted like a model; their summaries and the
 * host-device join hang on them and go with them). Each helper builds its object on the first call for (model,
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
#include "framework_model.h"
#include "framework_summary.h"
#include "host_device_join.h"
#include "model_cache.h"
#include "show_session.h"
#include "system_model.h"
#include "system_profile.h"
#include "system_summary.h"
#include "timeline.h"
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

/* Every timeline row of src's kind in `sort` order (timeline_order_build), for trace-extract's pages, on
 * the model src reads (`ref`: the reference src->model came from, of any kind): one memo per (kind, sort), so
 * at most five kinds × TIMELINE_SORT_COUNT of them, 4 bytes per row each (none for a table already in that
 * order). Filters are applied per call on top of it, so they never enter the key. NULL (err untouched) when
 * the model's memo table is full: an order built for one call costs more than ranking directly, which the
 * caller then does. */
const timeline_order *nl_memo_timeline_order(nl_call *call, nl_model_ref *ref, const timeline_source *src,
                                             timeline_sort sort, nl_error *err) __attribute__((warn_unused_result));

/* timeline_count of src (the rows, timeline rows and time range trace-extract reports), one memo per kind. */
const timeline_counts *nl_memo_timeline_counts(nl_call *call, nl_model_ref *ref, const timeline_source *src,
                                               nl_error *err) __attribute__((warn_unused_result));

/* The parsed show-session dump at `path` (`source` names it in errors). Returns a reference owned by the
 * caller (nl_model_ref_release); the show_session is nl_model_ref_object(ref), borrowed while it is held. */
nl_model_ref *nl_memo_show_session(nl_call *call, const char *path, const char *source, nl_error *err)
    __attribute__((warn_unused_result));

/* ---- host-side profiles ------------------------------------------------------------------------------ */

/* The system model of one capture (system_profile_load of `paths`, with the call's cancel flag): one file memo
 * per file set, keyed by paths->ntrace (size and mtime checked by the cache) and by the size, mtime and path
 * of trace_info.pb, cpu_util.pb and host_mem.pb, so rewriting any of the four reads them again. Returns a
 * reference owned by the caller (nl_model_ref_release); the model is nl_model_ref_object(ref), borrowed
 * while it is held. Its bytes in the cache are system_model_bytes. */
nl_model_ref *nl_memo_system_model(nl_call *call, const system_profile_paths *paths, nl_error *err)
    __attribute__((warn_unused_result));

/* The framework model of the Kineto trace at `path` (kineto_read, reporting the call's progress), one file
 * memo per file version. A cut-off trace reads as a model marked partial and is kept like any other; a read
 * error is not kept (the reader's error, e.g. NL_ERR_FORMAT). Ownership as nl_memo_system_model. */
nl_model_ref *nl_memo_framework_model(nl_call *call, const char *path, nl_error *err)
    __attribute__((warn_unused_result));

/* system_summary_compute of a reference from nl_memo_system_model (summary of a system profile). */
const system_summary *nl_memo_system_summary(nl_call *call, nl_model_ref *sys, nl_error *err)
    __attribute__((warn_unused_result));

/* framework_summary_compute of a reference from nl_memo_framework_model. */
const framework_summary *nl_memo_framework_summary(nl_call *call, nl_model_ref *fw, nl_error *err)
    __attribute__((warn_unused_result));

/* host_device_join_compute of the two models, kept with the framework model under the system model's serial
 * (a reloaded system profile gets a new one, so it is joined again). Borrowed while fw is held; its strtab
 * ids name strings of both models, so hold sys too while reading it. */
const host_device_join *nl_memo_host_device_join(nl_call *call, nl_model_ref *fw, nl_model_ref *sys, nl_error *err)
    __attribute__((warn_unused_result));

#endif
