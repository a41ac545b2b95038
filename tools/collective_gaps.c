/* collective-gaps — MCP tool: per-layer latency from the gaps between collectives on a CC-core. */
#include "tool_common.h"

static int collective_gaps_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    return nl_tool_not_implemented(res, "collective-gaps", "collective events and show-session trace reading are still being built");
}

const nl_tool_desc nl_tool_collective_gaps = {
    .name = "collective-gaps",
    .title = "Collective gaps: per-layer latency",
    .description =
        "Per-layer latency of a decoder-style model from the gaps between collectives: picks the CC-core "
        "with most trigger events (or cc_core), maps gaps to layers (collectives_per_layer, default 2), "
        "checks the mapping, and reports per-layer latency, median, p90, outliers versus the median and "
        "the warm-up layer. Call when a user asks which layer is slow or why a step takes long.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_PROFILE ","
        NL_JSON("cc_core": {"type": "integer", "minimum": 0, "maximum": 1023},
                "collectives_per_layer": {"type": "integer", "minimum": 1, "maximum": 64, "default": 2},
                "skip_prologue_gaps": {"type": "integer", "minimum": 0, "maximum": 100000, "default": 1})
        "," NL_PROP_MAX_ROWS "," NL_PROP_CURSOR "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"layers\", \"data_quality\"], \"properties\": {"
        NL_OUT_ENVELOPE "," NL_OUT_LIST ","
        NL_JSON("cc_core": {"type": ["integer", "null"]}, "layers": {"type": "array"},
                "median_ns": {"type": ["integer", "null"]}, "p90_ns": {"type": ["integer", "null"]},
                "outliers": {"type": "array"})
        "}}",
    .run = collective_gaps_run,
};
