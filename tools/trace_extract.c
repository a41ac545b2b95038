/* trace-extract — MCP tool: a filtered, windowed, paginated slice of a profile's timeline. */
#include "tool_common.h"

static int trace_extract_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    return nl_tool_not_implemented(res, "trace-extract", "timeline extraction over the device model is still being built");
}

const nl_tool_desc nl_tool_trace_extract = {
    .name = "trace-extract",
    .title = "Trace extract: filtered timeline rows",
    .description =
        "Rows of one profile's timeline (instructions, DMA, collectives, semaphores, system or framework "
        "events) filtered by engine, opcode glob, time window, source/layer substring, minimum duration or "
        "wait; sorted, projected to chosen columns, paginated with next_cursor. Use to inspect the rows "
        "behind a finding from summary or kernel-attribution; prefer those for totals.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"path\"], \"properties\": {"
        NL_PROP_PATH "," NL_PROP_PROFILE ","
        NL_JSON("kind": {"enum": ["instruction", "dma", "collective", "semaphore", "system", "framework"], "default": "instruction"},
                "engine": {"type": "string", "maxLength": 64},
                "opcode": {"type": "string", "maxLength": 128, "description": "glob, e.g. MATMUL* or *DMA*"},
                "start_ns": {"type": "integer", "minimum": 0}, "end_ns": {"type": "integer", "minimum": 0},
                "source": {"type": "string", "maxLength": 512}, "layer": {"type": "string", "maxLength": 512},
                "min_duration_ns": {"type": "integer", "minimum": 0}, "min_wait_ns": {"type": "integer", "minimum": 0},
                "sort": {"enum": ["time", "duration", "wait", "bytes"], "default": "time"},
                "columns": {"type": "array", "maxItems": 32, "items": {"type": "string", "maxLength": 64}})
        "," NL_PROP_MAX_ROWS "," NL_PROP_CURSOR "," NL_PROP_MAX_BYTES "}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"rows\", \"total\", \"shown\", \"truncated\"], \"properties\": {"
        NL_OUT_ENVELOPE "," NL_OUT_LIST ","
        NL_JSON("columns": {"type": "array", "items": {"type": "string"}}, "rows": {"type": "array"})
        "}}",
    .run = trace_extract_run,
};
