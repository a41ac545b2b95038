/* dispatch — the MCP method table and lifecycle (legacy era, negotiating 2025-11-25 down to 2024-11-05).
 *
 * Rules enforced here (see ../shared/docs/mcp.md §2–§4):
 * - unknown methods, including 2026-07-28 ones such as server/discover, get an immediate -32601;
 * - before initialize only initialize and ping are served; other known requests get -32600;
 * - a repeated initialize is an error, never a state reset;
 * - notifications are never answered; client responses are ignored (we send no requests);
 * - tools/call is validated here for shape (name, arguments object) and unknown tools (-32602); argument
 *   values are validated by tools/ and reported as isError results. */
#include "server_internal.h"
#include "nl_config.h"

#include <stdio.h>
#include <string.h>

static const char *const supported_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
#define SUPPORTED_VERSION_COUNT (sizeof supported_versions / sizeof supported_versions[0])

typedef json_t *(*method_fn)(nl_server *s, const json_t *id, const json_t *params);

typedef struct method_entry {
    const char *name;
    method_fn run;          /* returns the result object, or NULL when it already sent an error/queued work */
    bool before_initialize; /* may be served before initialize */
} method_entry;

static const char server_instructions[] =
    "neuronlens analyzes AWS Neuron (Trainium/Inferentia) profiles natively and returns small, exact results. "
    "Start with orient {path} on whatever the user points at (capture dir, JSON export, NEFF/NTFF, trace.json); "
    "then summary, then kernel-attribution (where time goes), collective-gaps (per-layer latency) or "
    "trace-extract (rows). Read data_quality in every result before drawing conclusions. Background on "
    "formats and recipes: resources under neuronlens://references/.";

static bool version_at_least(const char *v, const char *min)
{
    return strcmp(v, min) >= 0; /* ISO dates compare lexically */
}

static json_t *server_capabilities(void)
{
    return json_pack("{s:{s:b}, s:{s:b, s:b}, s:{s:b}, s:{}}",
                     "tools", "listChanged", 0,
                     "resources", "subscribe", 0, "listChanged", 0,
                     "prompts", "listChanged", 0,
                     "logging");
}

static json_t *do_initialize(nl_server *s, const json_t *id, const json_t *params)
{
    if (s->state != NL_STATE_NEW) {
        server_send_error(s, id, RPC_INVALID_REQUEST, "Invalid Request: already initialized (initialize may be sent once per process)", NULL);
        return NULL;
    }
    const json_t *pv = json_object_get(params, "protocolVersion");
    if (!json_is_string(pv)) {
        server_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: initialize needs params.protocolVersion (a string)", NULL);
        return NULL;
    }
    const char *chosen = supported_versions[0];
    for (size_t i = 0; i < SUPPORTED_VERSION_COUNT; i++)
        if (!strcmp(json_string_value(pv), supported_versions[i]))
            chosen = supported_versions[i];
    snprintf(s->protocol_version, sizeof s->protocol_version, "%s", chosen);
    nl_jobs_set_legacy_results(s->jobs, !version_at_least(chosen, "2025-06-18"));
    s->state = NL_STATE_INITIALIZED;
    json_t *info = json_pack("{s:s, s:s, s:s}", "name", "neuronlens", "version", NL_VERSION,
                             "title", "neuronlens — AWS Neuron profile analysis");
    if (version_at_least(chosen, "2025-11-25"))
        json_object_set_new(info, "description", json_string("Native, bounded analysis of Neuron profiles for coding assistants"));
    if (!version_at_least(chosen, "2025-06-18"))
        json_object_del(info, "title");
    return json_pack("{s:s, s:o, s:o, s:s}", "protocolVersion", chosen, "capabilities", server_capabilities(),
                     "serverInfo", info, "instructions", server_instructions);
}

static json_t *do_ping(nl_server *s, const json_t *id, const json_t *params)
{
    (void)s;
    (void)id;
    (void)params;
    return json_object();
}

int server_check_no_cursor(nl_server *s, const json_t *id, const json_t *params)
{
    if (!json_object_get(params, "cursor"))
        return 0;
    server_send_error(s, id, RPC_INVALID_PARAMS,
                      "Invalid params: unknown cursor (this list has a single page; call without a cursor)", NULL);
    return -1;
}

/* Strip fields that protocol revisions before 2025-06-18 do not know. */
static void downgrade_tools(json_t *tools)
{
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) {
        json_object_del(t, "title");
        json_object_del(t, "outputSchema");
    }
}

static json_t *do_tools_list(nl_server *s, const json_t *id, const json_t *params)
{
    if (server_check_no_cursor(s, id, params))
        return NULL;
    json_t *tools = nl_tools_list_json(s->tools);
    if (!version_at_least(s->protocol_version, "2025-06-18"))
        downgrade_tools(tools);
    return json_pack("{s:o}", "tools", tools);
}

static json_t *do_tools_call(nl_server *s, const json_t *id, const json_t *params)
{
    const json_t *name = json_object_get(params, "name");
    const json_t *args = json_object_get(params, "arguments");
    if (!json_is_string(name)) {
        server_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: tools/call needs params.name (a string)", NULL);
        return NULL;
    }
    if (args && !json_is_object(args) && !json_is_null(args)) {
        server_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: params.arguments must be an object", NULL);
        return NULL;
    }
    if (!nl_tools_exists(s->tools, json_string_value(name))) {
        char msg[200];
        snprintf(msg, sizeof msg, "Unknown tool: %.120s (call tools/list for the available tools)", json_string_value(name));
        server_send_error(s, id, RPC_INVALID_PARAMS, msg, NULL);
        return NULL;
    }
    json_t *token = json_object_get(json_object_get(params, "_meta"), "progressToken");
    if (token && !json_is_string(token) && !json_is_integer(token))
        token = NULL;
    json_t *id_copy = json_deep_copy(id), *args_copy = json_is_object(args) ? json_deep_copy(args) : NULL;
    json_t *token_copy = token ? json_deep_copy(token) : NULL;
    if (nl_jobs_submit(s->jobs, id_copy, json_string_value(name), args_copy, token_copy)) {
        /* a refused submit steals nothing (jobs.h): the copies are still ours */
        json_decref(id_copy);
        json_decref(args_copy);
        json_decref(token_copy);
        server_send_error(s, id, RPC_INVALID_REQUEST, "Invalid Request: a request with this id is still in flight", NULL);
    }
    return NULL; /* the worker answers */
}

static json_t *do_set_level(nl_server *s, const json_t *id, const json_t *params)
{
    const json_t *level = json_object_get(params, "level");
    int idx = nl_log_level_index(json_string_value(level));
    if (idx < 0) {
        server_send_error(s, id, RPC_INVALID_PARAMS,
                          "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency", NULL);
        return NULL;
    }
    atomic_store(&s->log_level, idx);
    return json_object();
}

static const method_entry methods[] = {
    {"initialize", do_initialize, true},
    {"ping", do_ping, true},
    {"tools/list", do_tools_list, false},
    {"tools/call", do_tools_call, false},
    {"resources/list", resources_list, false},
    {"resources/templates/list", resources_templates_list, false},
    {"resources/read", resources_read, false},
    {"prompts/list", prompts_list, false},
    {"prompts/get", prompts_get, false},
    {"logging/setLevel", do_set_level, false},
};

static const method_entry *find_method(const char *name)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (!strcmp(methods[i].name, name))
            return &methods[i];
    return NULL;
}

static void handle_request(nl_server *s, const rpc_message *msg)
{
    const method_entry *m = find_method(msg->method);
    if (!m) {
        char text[200];
        snprintf(text, sizeof text, "Method not found: %.120s", msg->method);
        server_send_error(s, msg->id, RPC_METHOD_NOT_FOUND, text, NULL);
        return;
    }
    if (s->state == NL_STATE_NEW && !m->before_initialize) {
        server_send_error(s, msg->id, RPC_INVALID_REQUEST, "Invalid Request: server not initialized; send initialize first", NULL);
        return;
    }
    if (msg->params && !json_is_object(msg->params)) {
        server_send_error(s, msg->id, RPC_INVALID_PARAMS, "Invalid params: params must be an object", NULL);
        return;
    }
    json_t *result = m->run(s, msg->id, msg->params);
    if (result)
        server_send_result(s, msg->id, result);
}

static void handle_notification(nl_server *s, const rpc_message *msg)
{
    if (!strcmp(msg->method, "notifications/initialized")) {
        if (s->state == NL_STATE_INITIALIZED)
            s->state = NL_STATE_READY;
    } else if (!strcmp(msg->method, "notifications/cancelled")) {
        const json_t *rid = json_object_get(msg->params, "requestId");
        if (rid && nl_jobs_cancel(s->jobs, rid))
            server_log(s, "debug", "cancel requested for an in-flight call");
    }
    /* every other notification is ignored, as JSON-RPC requires (never answered) */
}

void nl_server_handle_line(nl_server *s, const char *line, size_t len)
{
    rpc_message msg;
    rpc_parse(line, len, &msg);
    switch (msg.kind) {
    case RPC_KIND_INVALID:
        server_send_error(s, msg.id, msg.error_code, msg.error_message, NULL);
        break;
    case RPC_KIND_REQUEST:
        handle_request(s, &msg);
        break;
    case RPC_KIND_NOTIFICATION:
        handle_notification(s, &msg);
        break;
    case RPC_KIND_RESPONSE:
        break;
    }
    rpc_message_clear(&msg);
}
