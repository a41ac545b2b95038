/* collective_gaps_host — collective-gaps from the host-side timelines: the cc_running spans of a system
 * profile and the communication kernels / collective annotations of a framework trace
 * (analyzers/analyses/gaps_host.h says exactly which events count). collective_gaps.c asks this module
 * first; the result has the same shape as the show-session one, with times in unix ns.
 * Runs on the calling worker thread; fills `res` like a tool handler. */
#ifndef NL_COLLECTIVE_GAPS_HOST_H
#define NL_COLLECTIVE_GAPS_HOST_H

#include <jansson.h>

#include "tools.h"

/* 1 when the call was for a system or framework profile and `res` is filled; 0 when the show-session path
 * should handle it: `profile` names a system profile ("rank<N>/system") or a framework trace (its path), or
 * no `profile` is given and the path holds no device profile and no show-session dump but exactly one
 * system profile or framework trace (several: an error listing them). */
int nl_collective_gaps_host_route(const json_t *args, nl_call *call, nl_tool_result *res);

#endif
