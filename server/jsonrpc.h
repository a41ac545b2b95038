/* jsonrpc — JSON-RPC 2.0 envelopes for the MCP stdio transport: classify an incoming line and build
 * compact single-line responses, errors and notifications.
 *
 * Ids are kept as the raw json_t the client sent (0, negative, string) and echoed unchanged. Every
 * builder returns a malloc'd, newline-free compact string (the transport adds '\n') or NULL on OOM.
 * Pure functions; thread-safe. */
#ifndef NL_JSONRPC_H
#define NL_JSONRPC_H

#include <jansson.h>
#include <stddef.h>

enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    RPC_RESOURCE_NOT_FOUND = -32002, /* MCP legacy: resources/read of an unknown URI */
};

typedef enum rpc_kind {
    RPC_KIND_REQUEST,      /* method + id */
    RPC_KIND_NOTIFICATION, /* method, no id */
    RPC_KIND_RESPONSE,     /* result/error from the client (we send no requests; ignored) */
    RPC_KIND_INVALID,      /* answered with error_code/error_message; id may be NULL */
} rpc_kind;

typedef struct rpc_message {
    rpc_kind kind;
    json_t *root;         /* owned; the whole parsed message (NULL on parse error) */
    const char *method;   /* borrowed from root */
    json_t *id;           /* borrowed from root; NULL for notifications and unreadable ids */
    json_t *params;       /* borrowed; NULL when absent */
    int error_code;       /* for RPC_KIND_INVALID */
    char error_message[256];
} rpc_message;

/* Parse and validate one line (without its newline). Always fills `msg`; free with rpc_message_clear. */
void rpc_parse(const char *line, size_t len, rpc_message *msg);
void rpc_message_clear(rpc_message *msg);

/* Serialize `value` compactly (one line). Steals `value`. */
char *rpc_dump_take(json_t *value);

/* {"jsonrpc":"2.0","id":id,"result":result}; steals result; id borrowed (NULL → null). */
char *rpc_result_line(const json_t *id, json_t *result);
/* {"jsonrpc":"2.0","id":id,"error":{code,message[,data]}}; steals data (may be NULL). */
char *rpc_error_line(const json_t *id, int code, const char *message, json_t *data);
/* {"jsonrpc":"2.0","method":method,"params":params}; steals params. */
char *rpc_notification_line(const char *method, json_t *params);

#endif
