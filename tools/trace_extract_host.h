/* trace_extract_host — trace-extract's kinds `system` (the spans of a capture directory's system profile)
 * and `framework` (the events of a PyTorch/Kineto trace). trace_extract.c routes a call here when its
 * `kind` is one of these; the tool's name, input schema, cursor format and result shape stay the same.
 * Runs on the calling worker thread and fills `res` like a tool handler (returns 0). */
#ifndef NL_TRACE_EXTRACT_HOST_H
#define NL_TRACE_EXTRACT_HOST_H

#include <jansson.h>
#include <stdbool.h>

#include "select.h"
#include "tools.h"

/* Whether `kind` (may be NULL) names a host-side kind. */
bool nl_trace_extract_is_host_kind(const char *kind);
/* The page of a chosen system or framework profile (sel, borrowed) for `kind` ("system" or "framework",
 * matching the profile). */
int nl_trace_extract_host(const json_t *args, nl_call *call, const char *kind, nl_select *sel, nl_tool_result *res);

#endif
