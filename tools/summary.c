/* summary — MCP tool: one profile's headline (time, engine utilization, DMA, FLOPs/MFU, bounds,
 * rule-based findings with evidence). */
#include "tool_common.h"

static int summary_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    return nl_tool_not_implemented(res, "summary", "the device-profile model and its readers are still being built");
}

const nl_tool_desc nl_tool_summary = {
    .name = "summary",
    .title = "Summary: one profile's headline numbers",
    .description =
        "Headline of one profile: total time (ns), per-engine active time and utilization %, DMA bytes and "
        "achieved bandwidth, FLOPs, MFU/HFU/MBU %, arithmetic intensity, the bottleneck by the AWS "
        "performance-bounds method, and Neuron Explorer rule findings with evidence. Call after orient; "
        "then use kernel-attribution for where time goes, collective-gaps for per-layer latency.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_PROFILE "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"profile\", \"data_quality\", \"provenance\"], \"properties\": {"
        NL_OUT_ENVELOPE ","
        NL_JSON("total_time_ns": {"type": ["integer", "null"]}, "engines": {"type": "array"},
                "dma": {"type": "object"}, "flops": {"type": "object"}, "bounds": {"type": "object"},
                "findings": {"type": "array"})
        "}}",
    .run = summary_run,
};
