/* host_select — picks the host-side profile a tool call names and loads its model: a capture directory's
 * system profile (id "rank<N>/system": ntrace.pb + trace_info.pb of one <instance>_pid_<pid>/ directory)
 * or a framework trace (id = the trace's path relative to the scanned root, e.g.
 * "i-…_pid_713479/trace.json" or "cpu_only_rank34.pt.trace.json.gz"). The same ids as summary and orient.
 *
 * Used by trace-extract (kinds system and framework), collective-gaps (system and framework sources) and
 * the host↔device section of a framework summary. Models come from the shared model cache (memo.h: read
 * once per version of their files, with the cancel flag of the call that reads them), so every tool and
 * summary on one capture shares one read. Builders fill an isError result (nl_tool_result_error) with
 * what the path holds and the ids to pass; any worker thread may call them. */
#ifndef NL_HOST_SELECT_H
#define NL_HOST_SELECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "framework_model.h"
#include "model_cache.h"
#include "system_model.h"
#include "tools.h"

typedef enum nl_host_kind { NL_HOST_SYSTEM, NL_HOST_FRAMEWORK } nl_host_kind;

/* What a catalog offers, for routing and for messages. With `wanted`, `system` / `trace` point at the
 * profile of that id (else at the only one of its kind, or NULL when there are several). */
typedef struct nl_host_candidates {
    size_t systems, traces, devices, dumps; /* dumps: show-session text or -j files */
    const nl_catalog_rank *system;
    const nl_catalog_file *trace;
    char ids[1536];                         /* "id (kind), ..." for messages, bounded */
} nl_host_candidates;

void nl_host_candidates_collect(const nl_catalog *cat, const char *wanted, nl_host_candidates *c);

typedef struct nl_host_selection {
    nl_catalog *cat;                /* owned */
    nl_host_kind kind;
    const nl_catalog_rank *rank;    /* system: its rank; framework: the trace's capture directory or NULL */
    const nl_catalog_file *trace;   /* framework only */
    char id[512];
} nl_host_selection;

/* Scan args.path and select the profile of `kind` (args.profile, or the only one of that kind). 0, or -1
 * after filling `res` with an argument error naming the ids available. */
int nl_host_select(nl_call *call, const json_t *args, nl_host_kind kind, nl_host_selection *sel, nl_tool_result *res);
/* Select from an existing catalog (taken: owned by sel afterwards, also on failure). */
int nl_host_select_in(nl_catalog *cat_take, const char *wanted, nl_host_kind kind, nl_host_selection *sel,
                      nl_tool_result *res);
void nl_host_selection_clear(nl_host_selection *sel);

/* The system profile of the capture directory a framework trace sits in, or NULL. */
const nl_catalog_rank *nl_host_trace_system(const nl_catalog *cat, const nl_catalog_file *trace);

/* The models, cached (nl_memo_system_model / nl_memo_framework_model). Returns a reference the caller
 * releases (nl_model_ref_release) and sets *out to its model, borrowed while the reference is held; NULL
 * with err (system: trace_info.pb / ntrace.pb unreadable; framework: the reader's error — a cut-off trace is
 * not an error but a model marked partial; NL_ERR_CANCELLED). */
nl_model_ref *nl_host_load_system(nl_call *call, const nl_catalog *cat, const nl_catalog_rank *rank,
                                  const system_model **out, nl_error *err) __attribute__((warn_unused_result));
nl_model_ref *nl_host_load_framework(nl_call *call, const nl_catalog_file *trace, const framework_model **out,
                                     nl_error *err) __attribute__((warn_unused_result));

/* {"id", "kind", "rank", "core": null, ...} of a selection. */
json_t *nl_host_profile_label(const nl_host_selection *sel);
/* data_quality entries for a model's reading problems (partial files, notes), appended to arr. */
void nl_host_quality_system(const system_model *m, json_t *arr);
void nl_host_quality_framework(const framework_model *m, json_t *arr);

#endif
