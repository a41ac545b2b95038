/* summary_system — the `summary` tool on a system profile (a capture directory's ntrace.pb +
 * trace_info.pb + cpu_util.pb + host_mem.pb): device busy vs idle from nc_exec_running, gaps between
 * executions, runtime API spans, host-to-device copies, CPU utilisation and host memory peaks. */
#include "tool_common.h"
#include "summary_kinds.h"

int nl_summary_system(const json_t *args, nl_call *call, const nl_catalog *cat, const nl_catalog_rank *rank,
                      nl_tool_result *res)
{
    (void)args;
    (void)call;
    (void)cat;
    (void)rank;
    return nl_tool_not_implemented(res, "summary of a system profile (ntrace.pb)",
                                   "the system-profile readers (protobuf-c schemas for ntrace.pb, trace_info.pb, "
                                   "cpu_util.pb, host_mem.pb) are still being built");
}
