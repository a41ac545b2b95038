/* registry — the one table of MCP tools, their parsed schemas, validation and result shaping.
 *
 * Each tool lives in its own file (orient.c, summary.c, ...) and exports one nl_tool_desc with its
 * schemas as JSON text; this file lists them in the order tools/list shows them, parses the schemas
 * once at start-up, validates arguments before a handler runs (a failure is a tool error naming the
 * argument, per MCP 2025-11-25) and turns an nl_tool_result into a CallToolResult. */
#include "tools.h"
#include "schema_check.h"
#include "model_cache.h"
#include "identity_memo.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const nl_tool_desc nl_tool_orient;
extern const nl_tool_desc nl_tool_summary;
extern const nl_tool_desc nl_tool_trace_extract;
extern const nl_tool_desc nl_tool_kernel_attribution;
extern const nl_tool_desc nl_tool_collective_gaps;
extern const nl_tool_desc *const nl_fixture_tools[];
extern const size_t nl_fixture_tool_count;

static const nl_tool_desc *const registry_main[] = {
    &nl_tool_orient,
    &nl_tool_summary,
    &nl_tool_trace_extract,
    &nl_tool_kernel_attribution,
    &nl_tool_collective_gaps,
};
#define REGISTRY_MAIN_COUNT (sizeof registry_main / sizeof registry_main[0])
#define REGISTRY_MAX (REGISTRY_MAIN_COUNT + 16)

typedef struct registry_entry {
    const nl_tool_desc *desc;
    json_t *input_schema;
    json_t *output_schema; /* NULL for fixtures without one */
} registry_entry;

struct nl_tools {
    registry_entry entries[REGISTRY_MAX];
    size_t count;
    nl_model_cache *models; /* shared by every call; thread-safe */
    nl_identity_memo *identity; /* export identities established by earlier scans; thread-safe */
};

static json_t *parse_schema(const char *tool, const char *what, const char *text)
{
    if (!text)
        return NULL;
    json_error_t jerr;
    json_t *schema = json_loads(text, 0, &jerr);
    if (!schema)
        fprintf(stderr, "neuronlens: internal error: %s %s schema: %s (line %d)\n", tool, what, jerr.text, jerr.line);
    return schema;
}

static int registry_add(nl_tools *tools, const nl_tool_desc *desc)
{
    if (tools->count >= REGISTRY_MAX)
        return -1;
    registry_entry *e = &tools->entries[tools->count];
    e->desc = desc;
    e->input_schema = parse_schema(desc->name, "input", desc->input_schema);
    e->output_schema = parse_schema(desc->name, "output", desc->output_schema);
    if (!e->input_schema || (desc->output_schema && !e->output_schema))
        return -1;
    tools->count++;
    return 0;
}

nl_tools *nl_tools_new(const nl_tools_options *opt)
{
    nl_tools *tools = calloc(1, sizeof *tools);
    if (!tools)
        return NULL;
    tools->models = nl_model_cache_new(NL_MODEL_CACHE_DEFAULT_ENTRIES, NL_MODEL_CACHE_DEFAULT_BYTES);
    tools->identity = nl_identity_memo_new(tools->models);
    if (!tools->models || !tools->identity)
        goto fail;
    for (size_t i = 0; i < REGISTRY_MAIN_COUNT; i++)
        if (registry_add(tools, registry_main[i]))
            goto fail;
    for (size_t i = 0; opt && opt->fixtures && i < nl_fixture_tool_count; i++)
        if (registry_add(tools, nl_fixture_tools[i]))
            goto fail;
    return tools;
fail:
    nl_tools_free(tools);
    return NULL;
}

void nl_tools_free(nl_tools *tools)
{
    if (!tools)
        return;
    for (size_t i = 0; i < tools->count; i++) {
        json_decref(tools->entries[i].input_schema);
        json_decref(tools->entries[i].output_schema);
    }
    nl_model_cache_free(tools->models);
    nl_identity_memo_free(tools->identity);
    free(tools);
}

static const registry_entry *registry_find(const nl_tools *tools, const char *name)
{
    for (size_t i = 0; name && i < tools->count; i++)
        if (!strcmp(tools->entries[i].desc->name, name))
            return &tools->entries[i];
    return NULL;
}

struct nl_model_cache *nl_tools_models(nl_tools *tools)
{
    return tools->models;
}

struct nl_identity_memo *nl_tools_identity(nl_tools *tools)
{
    return tools->identity;
}

bool nl_tools_exists(const nl_tools *tools, const char *name)
{
    return registry_find(tools, name) != NULL;
}

static json_t *tool_json(const registry_entry *e)
{
    json_t *t = json_pack("{s:s, s:s, s:s, s:O, s:{s:b, s:b, s:b}}",
                          "name", e->desc->name, "title", e->desc->title, "description", e->desc->description,
                          "inputSchema", e->input_schema,
                          "annotations", "readOnlyHint", 1, "openWorldHint", 0, "idempotentHint", 1);
    if (t && e->output_schema)
        json_object_set(t, "outputSchema", e->output_schema);
    return t;
}

json_t *nl_tools_list_json(const nl_tools *tools)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < tools->count; i++)
        json_array_append_new(arr, tool_json(&tools->entries[i]));
    return arr;
}

bool nl_call_cancelled(const nl_call *call)
{
    return call && call->cancel && atomic_load_explicit(call->cancel, memory_order_relaxed);
}

void nl_call_progress(nl_call *call, double progress, double total, const char *message)
{
    if (call && call->hooks.progress)
        call->hooks.progress(call->hooks.opaque, progress, total, message);
}

void nl_call_log(nl_call *call, const char *level, const char *fmt, ...)
{
    if (!call || !call->hooks.log)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    call->hooks.log(call->hooks.opaque, level, buf);
}

void nl_tool_result_clear(nl_tool_result *res)
{
    if (!res)
        return;
    json_decref(res->structured);
    json_decref(res->content);
    free(res->text);
    memset(res, 0, sizeof *res);
}

int nl_tool_result_error(nl_tool_result *res, const char *fmt, ...)
{
    nl_tool_result_clear(res);
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    res->text = strdup(buf);
    res->is_error = true;
    return 0;
}

int nl_tools_call(nl_tools *tools, const char *name, const json_t *args, nl_call *call, nl_tool_result *res)
{
    memset(res, 0, sizeof *res);
    const registry_entry *e = registry_find(tools, name);
    if (!e)
        return -1;
    json_t *empty = args ? NULL : json_object();
    const json_t *a = args ? args : empty;
    char msg[512];
    if (schema_check(e->input_schema, a, "arguments", msg, sizeof msg)) {
        nl_tool_result_error(res, "Invalid arguments for %s — %s. Call tools/list to see the input schema.",
                             name, msg);
    } else {
        static const atomic_int never = 0;
        nl_call local = {0};
        nl_call *c = call ? call : &local;
        if (!c->cancel)
            c->cancel = &never;
        c->tools = tools;
        e->desc->run(a, c, res);
        if (c->cancel == &never)
            c->cancel = NULL;
        if (!res->text)
            res->text = strdup(res->is_error ? "tool failed without a message" : "");
        if (!res->is_error && e->output_schema && res->structured &&
            schema_check(e->output_schema, res->structured, "structuredContent", msg, sizeof msg))
            nl_tool_result_error(res, "internal error: %s produced a result that does not match its output schema (%s); "
                                 "please report this", name, msg);
    }
    json_decref(empty);
    return 0;
}

json_t *nl_tool_result_to_json(nl_tool_result *res)
{
    json_t *out = json_object();
    json_t *content = res->content ? json_incref(res->content)
                                   : json_pack("[{s:s, s:s}]", "type", "text", "text", res->text ? res->text : "");
    json_object_set_new(out, "content", content);
    if (res->structured && !res->is_error)
        json_object_set(out, "structuredContent", res->structured);
    if (res->is_error)
        json_object_set_new(out, "isError", json_true());
    nl_tool_result_clear(res);
    return out;
}
