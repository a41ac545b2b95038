/* server — the one nl_server context: MCP lifecycle, method dispatch and the stdio event loop.
 *
 * Owns the tool registry, the worker pool, the negotiated protocol version and the client's log level;
 * it is the only mutable state of the process (no globals elsewhere). The main thread owns stdin,
 * stdout and this struct; workers reach only the jobs module. Startup failures print one stderr line and
 * return an error; after initialize every failure becomes a JSON-RPC error or an isError tool result. */
#ifndef NL_SERVER_H
#define NL_SERVER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct nl_server nl_server;

#define NL_DEFAULT_MAX_LINE (8u * 1024 * 1024)
/* Byte budget of one tool response (issue 4: 24 KB by default; `max_bytes` lowers it per call, the serve
 * option --max-response-bytes changes the server's own). Tools shape their lists to fit while they build
 * them; a result that still does not fit is replaced by an isError saying how to narrow the request. */
#define NL_DEFAULT_MAX_RESPONSE (24u * 1024)

typedef struct nl_server_options {
    size_t max_line_bytes;     /* input line cap (default NL_DEFAULT_MAX_LINE) */
    size_t max_response_bytes; /* budget of one tool response line (NL_DEFAULT_MAX_RESPONSE) */
    unsigned workers;          /* 0 = number of online CPUs, at least 2 */
    bool fixtures;             /* expose conformance/test fixture tools */
    int stderr_level;          /* RFC 5424 index for stderr diagnostics (default warning = 3) */
} nl_server_options;

void nl_server_options_default(nl_server_options *opt);

/* `emit` receives each outgoing line (no newline) on the main thread; NULL = write to stdout. */
typedef void (*nl_emit_fn)(void *opaque, const char *line, size_t len);

nl_server *nl_server_new(const nl_server_options *opt, nl_emit_fn emit, void *emit_opaque);
void nl_server_free(nl_server *s);

/* Handle one incoming line (main thread). Tool calls are queued; their output arrives via
 * nl_server_drain(). Exposed for unit tests; nl_server_run() calls it. */
void nl_server_handle_line(nl_server *s, const char *line, size_t len);
/* Emit every line finished by workers so far. Returns how many were emitted. */
size_t nl_server_drain(nl_server *s);
/* Jobs still queued or running. */
size_t nl_server_pending(nl_server *s);
/* Report an over-long input line (as the transport does). */
void nl_server_line_too_long(nl_server *s, size_t max_line);

/* Run the stdio event loop until stdin EOF (after a short grace for running calls), SIGTERM/SIGINT, or
 * a closed stdout. Returns the process exit status (0 on a clean shutdown). */
int nl_server_run(nl_server *s, int in_fd, int out_fd);

#endif
