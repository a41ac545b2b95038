/* collective_gaps_host — collective-gaps from the host-side timelines: the cc_running spans of a system
 * profile and the communication kernels / collective annotations of a framework trace; and from the CcOp
 * table of a neuron-explorer device profile
 * (analyzers/analyses/gaps_host.h says exactly which events count). collective_gaps.c hands a chosen system
 * or framework profile here; the result has the same shape as the show-session one, with times in unix ns.
 * Runs on the calling worker thread; fills `res` like a tool handler. */
#ifndef NL_COLLECTIVE_GAPS_HOST_H
#define NL_COLLECTIVE_GAPS_HOST_H

#include <jansson.h>

#include "select.h"
#include "tools.h"

/* Per-layer latency of the system, framework or Parquet device profile `sel` chose (borrowed); returns 0 with res filled. */
int nl_collective_gaps_host(const json_t *args, nl_call *call, nl_select *sel, nl_tool_result *res);

#endif
