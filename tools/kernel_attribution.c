/* kernel-attribution — MCP tool: where the time goes by source line, layer, opcode, HLO or engine. */
#include "tool_common.h"

static int kernel_attribution_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    return nl_tool_not_implemented(res, "kernel-attribution", "attribution over the device model is still being built");
}

const nl_tool_desc nl_tool_kernel_attribution = {
    .name = "kernel-attribution",
    .title = "Kernel attribution: time by source line, layer, opcode",
    .description =
        "Where device time goes, grouped by source line, layer, opcode, HLO or engine and ranked by a metric "
        "(duration + stall wait, bytes, count), with share of total; plus small-DMA report, per-engine idle "
        "gaps with the instructions around them, and source-location coverage. Abstains with the fix when "
        "the profile has no source locations. Call after summary to find the hot spots to fix.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_PROFILE ","
        NL_JSON("group_by": {"enum": ["source", "layer", "opcode", "hlo", "engine"], "default": "source"},
                "metric": {"enum": ["time", "duration", "wait", "hbm_bytes", "dma_bytes", "count"], "default": "time"},
                "top": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20})
        "," NL_PROP_CURSOR "," NL_PROP_MAX_BYTES "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"groups\", \"total\", \"shown\", \"truncated\"], \"properties\": {"
        NL_OUT_ENVELOPE "," NL_OUT_LIST ","
        NL_JSON("group_by": {"type": "string"}, "metric": {"type": "string"}, "groups": {"type": "array"},
                "coverage": {"type": "object"}, "small_dma": {"type": "object"}, "idle_gaps": {"type": "array"})
        "}}",
    .run = kernel_attribution_run,
};
