/* fuzz_rpc — libFuzzer target for the MCP/JSON-RPC front end without real I/O: line framing
 * (server/linebuf.c), envelope parsing (jsonrpc.c), the method table and lifecycle (dispatch.c), resources,
 * prompts and logging, and tools/call validation and hand-off to the worker pool (jobs.c), all driven
 * in-process through nl_server_handle_line with a capturing emitter, as tests/unit/test_dispatch.c does.
 *
 * The input is what a client writes to stdin: it is pushed through a linebuf with a small line cap (so the
 * over-long line path runs), in two pushes split at a point taken from the input's hash, and every line goes
 * to a fresh server (one per input, fixture tools listed, one worker). Every line the server emits must be
 * one compact JSON-RPC 2.0 object without a newline. tools/call of the analysis tools is dropped before it
 * reaches the server: they read whatever path the arguments name (a fuzzer soon writes "/"), which makes
 * runs slow and nondeterministic; the fixture tools (test_*) and unknown names go through. The readers the
 * analysis tools use have targets of their own. Pending calls are cancelled when the server is freed at
 * the end of the input.
 *
 * fuzz-max-len: 16384
 * fuzz-seeds: none (the committed corpus only)
 * fuzz-dict: rpc.dict */
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "linebuf.h"
#include "server.h"
#include "tools.h"

/* Line cap of the harness's linebuf (the server's default is 8 MiB). */
#define FUZZ_RPC_MAX_LINE 2048

/* The analysis tools' registry, to recognise their names. Set once in LLVMFuzzerInitialize and read-only
 * afterwards: libFuzzer's one-process model has no other place to keep it between inputs. */
static nl_tools *analysis_tools;

typedef struct harness {
    nl_server *s;
    size_t emitted;
} harness;

static void on_emit(void *opaque, const char *line, size_t len)
{
    harness *h = opaque;
    FUZZ_CHECK(memchr(line, '\n', len) == NULL, "an emitted line holds a newline");
    json_error_t jerr;
    json_t *m = json_loadb(line, len, 0, &jerr);
    FUZZ_CHECK(m && json_is_object(m), "emitted a line that is not a JSON object: %.200s", line);
    const char *v = json_string_value(json_object_get(m, "jsonrpc"));
    int kinds = !!json_object_get(m, "result") + !!json_object_get(m, "error") + !!json_object_get(m, "method");
    FUZZ_CHECK(v && !strcmp(v, "2.0") && kinds == 1, "not one JSON-RPC 2.0 message: %.200s", line);
    json_decref(m);
    h->emitted++;
}

/* A tools/call of an analysis tool (which would read the filesystem). */
static int calls_analysis_tool(const char *line, size_t len)
{
    json_t *m = json_loadb(line, len, 0, NULL);
    const char *method = json_string_value(json_object_get(m, "method"));
    const char *name = json_string_value(json_object_get(json_object_get(m, "params"), "name"));
    int drop = method && !strcmp(method, "tools/call") && name && nl_tools_exists(analysis_tools, name);
    json_decref(m);
    return drop;
}

static void on_line(void *opaque, const char *line, size_t len)
{
    harness *h = opaque;
    if (!calls_analysis_tool(line, len))
        nl_server_handle_line(h->s, line, len);
    nl_server_drain(h->s);
}

static void on_oversize(void *opaque, size_t max_line)
{
    harness *h = opaque;
    nl_server_line_too_long(h->s, max_line);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    nl_tools_options opt = {.fixtures = false};
    analysis_tools = nl_tools_new(&opt);
    FUZZ_CHECK(analysis_tools != NULL, "nl_tools_new");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nl_server_options opt;
    nl_server_options_default(&opt);
    opt.fixtures = true;
    opt.workers = 1;
    opt.stderr_level = 8; /* silent */
    harness h = {0};
    h.s = nl_server_new(&opt, on_emit, &h);
    FUZZ_CHECK(h.s != NULL, "nl_server_new");
    linebuf lb;
    linebuf_init(&lb, FUZZ_RPC_MAX_LINE, on_line, on_oversize, &h);
    size_t split = size ? (size_t)(fuzz_hash(FUZZ_HASH_INIT, data, size) % size) : 0;
    FUZZ_CHECK(linebuf_push(&lb, (const char *)data, split) == 0 &&
                   linebuf_push(&lb, (const char *)data + split, size - split) == 0,
               "linebuf_push: out of memory");
    linebuf_finish(&lb);
    linebuf_close(&lb);
    nl_server_drain(h.s);
    nl_server_free(h.s); /* cancels and joins pending calls; undrained output is freed */
    return 0;
}
