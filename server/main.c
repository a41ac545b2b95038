/* main — the neuronlens command line: `serve` (default; the MCP server on stdin/stdout), `call`, `demo`,
 * `--version`, `--help`. Builds the one nl_server; bad setup exits with one clear stderr line. */
#include "cli.h"
#include "nl_config.h"
#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help_text[] =
    "neuronlens " NL_VERSION " — analyze AWS Neuron (Trainium/Inferentia) profiles from a coding assistant.\n"
    "\n"
    "usage:\n"
    "  neuronlens [serve] [options]     MCP server (JSON-RPC over stdin/stdout; logs on stderr)\n"
    "  neuronlens call TOOL ['JSON']    run one tool, print its structured result as JSON\n"
    "                                   (exit 0 ok, 1 tool error, 2 usage error)\n"
    "  neuronlens demo [DIR]            walk the real server through an assistant's first calls\n"
    "  neuronlens --version | --help\n"
    "\n"
    "serve options:\n"
    "  --max-line-bytes N         reject input lines longer than N bytes (default 8 MiB)\n"
    "  --workers N                worker threads for tool calls (default: online CPUs, 2..8)\n"
    "  --max-response-bytes N     byte budget of one tool response (default 24576; max_bytes lowers it)\n"
    "  --verbose                  debug diagnostics on stderr\n"
    "  --conformance-fixtures     also expose the MCP conformance-suite test tools\n"
    "\n"
    "tools: orient, summary, trace-extract, kernel-attribution, collective-gaps\n"
    "\n"
    "register with an assistant (use the absolute path of this binary):\n"
    "  Claude Code:  claude mcp add neuronlens -- /path/to/neuronlens serve\n"
    "  VS Code:      .vscode/mcp.json\n"
    "                {\"servers\": {\"neuronlens\": {\"type\": \"stdio\", \"command\": \"/path/to/neuronlens\", \"args\": [\"serve\"]}}}\n"
    "  Cursor:       ~/.cursor/mcp.json (or .cursor/mcp.json in a project)\n"
    "                {\"mcpServers\": {\"neuronlens\": {\"command\": \"/path/to/neuronlens\", \"args\": [\"serve\"]}}}\n";

static int usage_error(const char *what)
{
    fprintf(stderr, "neuronlens: %s (see neuronlens --help)\n", what);
    return 2;
}

static int parse_size(const char *text, size_t min, size_t max, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(text ? text : "", &end, 10);
    if (!text || !*text || *end || v < min || v > max)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int serve(int argc, char **argv)
{
    nl_server_options opt;
    nl_server_options_default(&opt);
    for (int i = 0; i < argc; i++) {
        size_t v;
        if (!strcmp(argv[i], "--conformance-fixtures")) {
            opt.fixtures = true;
        } else if (!strcmp(argv[i], "--verbose")) {
            opt.stderr_level = 0;
        } else if (!strcmp(argv[i], "--max-line-bytes")) {
            if (parse_size(i + 1 < argc ? argv[++i] : NULL, 64, (size_t)1 << 30, &v))
                return usage_error("--max-line-bytes needs a number between 64 and 1073741824");
            opt.max_line_bytes = v;
        } else if (!strcmp(argv[i], "--max-response-bytes")) {
            if (parse_size(i + 1 < argc ? argv[++i] : NULL, 4096, (size_t)64 << 20, &v))
                return usage_error("--max-response-bytes needs a number between 4096 and 67108864");
            opt.max_response_bytes = v;
        } else if (!strcmp(argv[i], "--workers")) {
            if (parse_size(i + 1 < argc ? argv[++i] : NULL, 1, 64, &v))
                return usage_error("--workers needs a number between 1 and 64");
            opt.workers = (unsigned)v;
        } else {
            char msg[128];
            snprintf(msg, sizeof msg, "unknown serve option '%.64s'", argv[i]);
            return usage_error(msg);
        }
    }
    nl_server *s = nl_server_new(&opt, NULL, NULL);
    if (!s)
        return 1;
    int status = nl_server_run(s, 0, 1);
    nl_server_free(s);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return serve(0, NULL);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("neuronlens %s\n", NL_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(help_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "serve"))
        return serve(argc - 2, argv + 2);
    if (!strcmp(cmd, "call"))
        return cli_call(argc - 2, argv + 2);
    if (!strcmp(cmd, "demo"))
        return cli_demo(argc - 2, argv + 2);
    if (cmd[0] == '-')
        return serve(argc - 1, argv + 1);
    char msg[128];
    snprintf(msg, sizeof msg, "unknown command '%.64s'", cmd);
    return usage_error(msg);
}
