/* orient — MCP tool: what is at a path (profiles, ranks, cores, files, pairing, versions, data quality,
 * suggested next calls). The entry point of every investigation. */
#include "tool_common.h"

static int orient_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    return nl_tool_not_implemented(res, "orient", "the profile catalog (file classification, NEFF/NTFF pairing) is still being built");
}

const nl_tool_desc nl_tool_orient = {
    .name = "orient",
    .title = "Orient: what profiles are at a path",
    .description =
        "Call first on any path a user gives you. Lists every Neuron profile found (capture dirs per rank, "
        "NEFF/NTFF pairs, neuron-profile JSON exports, system traces, PyTorch trace.json) with ids, ranks, "
        "cores, versions, sizes, instruction/DMA counts, which analyses are possible, data-quality problems "
        "with their fixes, and the next calls to make. Paginated for large directories.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_MAX_ROWS "," NL_PROP_CURSOR "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"profiles\", \"data_quality\", \"provenance\"], \"properties\": {"
        NL_OUT_ENVELOPE "," NL_OUT_LIST ","
        NL_JSON("path": {"type": "string"},
                "profiles": {"type": "array", "items": {"type": "object", "required": ["id", "kind"],
                    "properties": {"id": {"type": "string"}, "kind": {"enum": ["device", "system", "framework"]},
                                   "files": {"type": "array"}, "analyses": {"type": "array"}}}},
                "next_calls": {"type": "array", "items": {"type": "object"}})
        "}}",
    .run = orient_run,
};
