/* call — `neuronlens call TOOL 'JSON-ARGS'`: the same tool dispatch as tools/call, for scripts. Prints the
 * structured result (or, for a tool without one, the text) as JSON on stdout; errors go to stderr and to
 * a JSON object {"isError": true, "message": ...} on stdout so scripts can parse either way. */
#include "cli.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_json(json_t *value)
{
    char *s = json_dumps(value, JSON_INDENT(2) | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
    if (s)
        puts(s);
    free(s);
}

static int call_usage(void)
{
    fprintf(stderr, "usage: neuronlens call TOOL ['{\"path\": \"...\", ...}'] [--conformance-fixtures]\n"
                    "tools: orient, summary, trace-extract, kernel-attribution, collective-gaps\n");
    return 2;
}

int cli_call(int argc, char **argv)
{
    const char *tool = NULL, *args_text = NULL;
    nl_tools_options opt = {0};
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--conformance-fixtures"))
            opt.fixtures = true;
        else if (!tool)
            tool = argv[i];
        else if (!args_text)
            args_text = argv[i];
        else
            return call_usage();
    }
    if (!tool)
        return call_usage();
    json_error_t jerr;
    json_t *args = args_text ? json_loads(args_text, JSON_REJECT_DUPLICATES, &jerr) : json_object();
    if (!args || !json_is_object(args)) {
        fprintf(stderr, "neuronlens call: arguments must be a JSON object%s%s\n", args ? "" : ": ", args ? "" : jerr.text);
        json_decref(args);
        return 2;
    }
    nl_tools *tools = nl_tools_new(&opt);
    if (!tools) {
        json_decref(args);
        return 1;
    }
    nl_tool_result res;
    int status;
    if (nl_tools_call(tools, tool, args, NULL, &res)) {
        fprintf(stderr, "neuronlens call: unknown tool '%s'\n", tool);
        status = call_usage();
    } else if (res.is_error) {
        fprintf(stderr, "neuronlens call: %s\n", res.text);
        json_t *err = json_pack("{s:b, s:s}", "isError", 1, "message", res.text);
        print_json(err);
        json_decref(err);
        status = 1;
    } else {
        json_t *out = res.structured ? json_incref(res.structured) : json_pack("{s:s}", "text", res.text);
        print_json(out);
        json_decref(out);
        status = 0;
    }
    nl_tool_result_clear(&res);
    nl_tools_free(tools);
    json_decref(args);
    return status;
}
