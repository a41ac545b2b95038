/* jsonrpc — see jsonrpc.h.
 *
 * Validation order follows JSON-RPC 2.0 §5: unparsable → -32700 (id null); a batch array → -32600 (we
 * speak MCP ≥ 2025-06-18 semantics where batching was removed); not an object, wrong "jsonrpc", bad
 * method or id type → -32600, echoing the id when it could be read. jansson rejects integers beyond
 * int64 and that surfaces as a parse error, never a crash. */
#include "jsonrpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_invalid(rpc_message *msg, int code, const char *text)
{
    msg->kind = RPC_KIND_INVALID;
    msg->error_code = code;
    snprintf(msg->error_message, sizeof msg->error_message, "%s", text);
}

static int id_is_valid(const json_t *id)
{
    return json_is_string(id) || json_is_integer(id);
}

/* Why `msg` is not a valid JSON-RPC message, or NULL when it is one (msg->id is set when it has a valid id). */
static const char *classify_problem(rpc_message *msg)
{
    json_t *root = msg->root;
    if (json_is_array(root))
        return "Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18); "
               "send one message per line";
    if (!json_is_object(root))
        return "Invalid Request: a message must be a JSON object";
    json_t *id = json_object_get(root, "id");
    if (id && id_is_valid(id))
        msg->id = id;
    const json_t *version = json_object_get(root, "jsonrpc");
    if (!json_is_string(version) || strcmp(json_string_value(version), "2.0"))
        return "Invalid Request: \"jsonrpc\" must be \"2.0\"";
    if (id && !id_is_valid(id))
        return "Invalid Request: \"id\" must be a string or an integer";
    const json_t *method = json_object_get(root, "method");
    if (!method && id && (json_object_get(root, "result") || json_object_get(root, "error")))
        return NULL; /* a response */
    if (!method)
        return "Invalid Request: missing \"method\"";
    if (!json_is_string(method))
        return "Invalid Request: \"method\" must be a string";
    json_t *params = json_object_get(root, "params");
    if (params && !json_is_object(params) && !json_is_array(params))
        return "Invalid Request: \"params\" must be an object";
    return NULL;
}

static void classify(rpc_message *msg)
{
    const char *problem = classify_problem(msg);
    if (problem) {
        set_invalid(msg, RPC_INVALID_REQUEST, problem);
        return;
    }
    json_t *root = msg->root, *method = json_object_get(root, "method");
    if (!method) {
        msg->kind = RPC_KIND_RESPONSE;
        return;
    }
    msg->method = json_string_value(method);
    msg->params = json_object_get(root, "params");
    msg->kind = json_object_get(root, "id") ? RPC_KIND_REQUEST : RPC_KIND_NOTIFICATION;
}

void rpc_parse(const char *line, size_t len, rpc_message *msg)
{
    memset(msg, 0, sizeof *msg);
    json_error_t jerr;
    msg->root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_ANY, &jerr);
    if (!msg->root) {
        char text[200];
        snprintf(text, sizeof text, "Parse error: %.100s at byte %d", jerr.text, jerr.position);
        set_invalid(msg, RPC_PARSE_ERROR, text);
        return;
    }
    classify(msg);
}

void rpc_message_clear(rpc_message *msg)
{
    json_decref(msg->root);
    memset(msg, 0, sizeof *msg);
}

char *rpc_dump_take(json_t *value)
{
    if (!value)
        return NULL;
    char *s = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
    json_decref(value);
    return s;
}

static json_t *envelope(const json_t *id)
{
    json_t *msg = json_object();
    json_object_set_new(msg, "jsonrpc", json_string("2.0"));
    json_object_set_new(msg, "id", id ? json_deep_copy(id) : json_null());
    return msg;
}

char *rpc_result_line(const json_t *id, json_t *result)
{
    json_t *msg = envelope(id);
    json_object_set_new(msg, "result", result ? result : json_object());
    return rpc_dump_take(msg);
}

char *rpc_error_line(const json_t *id, int code, const char *message, json_t *data)
{
    json_t *msg = envelope(id);
    json_t *err = json_pack("{s:i, s:s}", "code", code, "message", message);
    if (data)
        json_object_set_new(err, "data", data);
    json_object_set_new(msg, "error", err);
    return rpc_dump_take(msg);
}

char *rpc_notification_line(const char *method, json_t *params)
{
    json_t *msg = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
    json_object_set_new(msg, "params", params ? params : json_object());
    return rpc_dump_take(msg);
}
