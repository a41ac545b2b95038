/* tools — the MCP tool surface of neuronlens: one descriptor per tool, looked up by name.
 *
 * Owns: the static registry table (registry.c), argument validation against each tool's input schema
 * (schema_check.c), and the per-call context a handler sees. The server (server/) calls
 * nl_tools_call() on a worker thread; a handler must poll nl_call_cancelled() in long loops and may
 * report progress and log through the call. Results are built here and handed to the server as owned
 * json_t values (never shared across threads). Thread-safety: the registry and parsed schemas are
 * immutable after nl_tools_new(); a nl_tools may be shared by all workers. */
#ifndef NL_TOOLS_H
#define NL_TOOLS_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct nl_tools nl_tools;
typedef struct nl_call nl_call;
struct nl_model_cache;
struct nl_identity_memo;

/* Hooks the server hangs on a call. All may be NULL (as in `neuronlens call`). */
typedef struct nl_call_hooks {
    void *opaque;
    /* progress is strictly increasing; the server rate-limits and drops it when no token was sent */
    void (*progress)(void *opaque, double progress, double total, const char *message);
    /* level: RFC 5424 name ("debug", "info", "warning", ...) */
    void (*log)(void *opaque, const char *level, const char *message);
} nl_call_hooks;

struct nl_call {
    const atomic_int *cancel;   /* nonzero once the client cancelled; never NULL inside a handler */
    nl_call_hooks hooks;
    nl_tools *tools;
    size_t byte_budget;         /* maximum serialized size of the result the caller will accept */
};

bool nl_call_cancelled(const nl_call *call);
void nl_call_progress(nl_call *call, double progress, double total, const char *message);
void nl_call_log(nl_call *call, const char *level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A finished call: either structured (success, conforming to the output schema) or an error text.
 * `text` is the short rendering placed in `content`; both are owned by the result. */
typedef struct nl_tool_result {
    json_t *structured; /* object or NULL */
    char *text;         /* malloc'd, never NULL after a call */
    json_t *content;    /* optional ContentBlock[] replacing the single text block (fixtures) */
    bool is_error;
} nl_tool_result;

void nl_tool_result_clear(nl_tool_result *res);
/* Make `res` an error result with a printf message; returns 0 so handlers can `return`. */
int nl_tool_result_error(nl_tool_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef int (*nl_tool_fn)(const json_t *args, nl_call *call, nl_tool_result *res);

typedef struct nl_tool_desc {
    const char *name;
    const char *title;
    const char *description;
    const char *input_schema;  /* JSON text */
    const char *output_schema; /* JSON text */
    nl_tool_fn run;
    bool fixture;              /* only listed in --conformance-fixtures mode */
} nl_tool_desc;

typedef struct nl_tools_options {
    bool fixtures;             /* expose the conformance/test fixture tools */
} nl_tools_options;

/* Parses every schema once; fails (returns NULL with a message on stderr) only on a programming error. */
nl_tools *nl_tools_new(const nl_tools_options *opt);
void nl_tools_free(nl_tools *tools);

/* The shared device-model cache and export-identity memo (borrowed; live as long as `tools`). */
struct nl_model_cache *nl_tools_models(nl_tools *tools);
struct nl_identity_memo *nl_tools_identity(nl_tools *tools);

/* The `tools` array for tools/list (a new reference each call). */
json_t *nl_tools_list_json(const nl_tools *tools);
bool nl_tools_exists(const nl_tools *tools, const char *name);

/* Validate `args` (may be NULL = {}) and run the tool. Always fills `res` (is_error on invalid
 * arguments or domain failures). Returns -1 only when the tool does not exist. */
int nl_tools_call(nl_tools *tools, const char *name, const json_t *args, nl_call *call, nl_tool_result *res);

/* The complete CallToolResult object for `res` (content + structuredContent + isError). Consumes res. */
json_t *nl_tool_result_to_json(nl_tool_result *res);

#endif
