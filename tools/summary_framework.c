/* summary_framework — the `summary` tool on a PyTorch/Kineto trace.json(.gz): wall time per step, top ops
 * by CPU self time and by device time, host-to-device copies, launch-to-execution latency. */
#include "tool_common.h"
#include "summary_kinds.h"

int nl_summary_framework(const json_t *args, nl_call *call, const nl_catalog *cat, const nl_catalog_file *trace,
                         nl_tool_result *res)
{
    (void)args;
    (void)call;
    (void)cat;
    (void)trace;
    return nl_tool_not_implemented(res, "summary of a framework trace (trace.json)",
                                   "the streaming Kineto trace.json reader is still being built");
}
