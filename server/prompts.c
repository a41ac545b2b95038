/* prompts — MCP prompts that script a good investigation: diagnose-profile (orient → summary → the right
 * analysis) and layer-latency (collective gaps). Arguments are strings, as the protocol requires. */
#include "server_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct prompt_arg {
    const char *name;
    const char *description;
    bool required;
} prompt_arg;

typedef struct prompt_desc {
    const char *name;
    const char *title;
    const char *description;
    prompt_arg args[3];
    /* text with {path} and {note} placeholders (note: the optional second argument, or empty) */
    const char *template_text;
} prompt_desc;

static const prompt_desc prompts[] = {
    {
        .name = "diagnose-profile",
        .title = "Diagnose a Neuron profile",
        .description = "Find what limits a Neuron workload: orient, summarize, then drill into the bottleneck.",
        .args = {{"path", "Profile file or capture directory", true},
                 {"question", "What the user wants to know (optional)", false}},
        .template_text =
            "Diagnose the AWS Neuron profile at {path}.{note}\n\n"
            "1. Call the neuronlens tool `orient` with {\"path\": \"{path}\"}. Read every data_quality entry and "
            "apply the fixes it names before trusting numbers (for example missing DGE notifications make DMA "
            "numbers unreliable; no source locations means recompiling with NEURON_FRAMEWORK_DEBUG=1).\n"
            "2. For the profile orient suggests, call `summary`. Note the bottleneck (compute, memory, DMA or "
            "idle) and the rule findings with their evidence.\n"
            "3. Drill in: compute- or stall-bound → `kernel-attribution` grouped by source (or layer/opcode "
            "when sources are missing); a multi-layer model with collectives → `collective-gaps`; to see the "
            "rows behind a finding → `trace-extract` with a narrow filter.\n"
            "4. Report the top three causes with the exact numbers the tools returned, their units, and the "
            "profile id they came from. Do not estimate numbers the tools did not return.",
    },
    {
        .name = "layer-latency",
        .title = "Per-layer latency from collective gaps",
        .description = "Per-layer latency of a decoder-style model from the gaps between collectives.",
        .args = {{"path", "Profile file or capture directory", true},
                 {"collectives_per_layer", "Collectives per layer (default 2)", false}},
        .template_text =
            "Measure per-layer latency for the Neuron profile at {path}.{note}\n\n"
            "1. Call `orient` with {\"path\": \"{path}\"} and pick the device profile with collectives.\n"
            "2. Call `collective-gaps` on it (collectives_per_layer defaults to 2; pass the value above if "
            "given). Check the mapping warning: if the gap count does not fit the layer count, look at the raw "
            "gaps before trusting per-layer numbers.\n"
            "3. Report the median and p90 layer latency, the outlier layers versus the median, whether layer 0 "
            "is a warm-up outlier, and the per-layer total versus the profile's total time. Read the resource "
            "neuronlens://references/layer-latency-from-collective-gaps for the method.",
    },
};
#define PROMPT_COUNT (sizeof prompts / sizeof prompts[0])

static json_t *prompt_entry(const prompt_desc *p)
{
    json_t *args = json_array();
    for (size_t i = 0; i < 3 && p->args[i].name; i++)
        json_array_append_new(args, json_pack("{s:s, s:s, s:b}", "name", p->args[i].name, "description",
                                              p->args[i].description, "required", p->args[i].required));
    return json_pack("{s:s, s:s, s:s, s:o}", "name", p->name, "title", p->title, "description", p->description,
                     "arguments", args);
}

json_t *prompts_list(nl_server *s, const json_t *id, const json_t *params)
{
    if (server_check_no_cursor(s, id, params))
        return NULL;
    json_t *list = json_array();
    for (size_t i = 0; i < PROMPT_COUNT; i++)
        json_array_append_new(list, prompt_entry(&prompts[i]));
    return json_pack("{s:o}", "prompts", list);
}

static const prompt_desc *find_prompt(const char *name)
{
    for (size_t i = 0; name && i < PROMPT_COUNT; i++)
        if (!strcmp(prompts[i].name, name))
            return &prompts[i];
    return NULL;
}

static const char *arg_value(const json_t *args, const char *name)
{
    const char *v = json_string_value(json_object_get(args, name));
    return v ? v : "";
}

/* Copy `tmpl` into `out`, replacing {path} and {note}. Values are the client's strings, inserted verbatim. */
static void render_template(char *out, size_t cap, const char *tmpl, const char *path, const char *note)
{
    size_t n = 0;
    while (*tmpl && n + 1 < cap) {
        const char *value = NULL;
        size_t skip = 0;
        if (!strncmp(tmpl, "{path}", 6)) {
            value = path;
            skip = 6;
        } else if (!strncmp(tmpl, "{note}", 6)) {
            value = note;
            skip = 6;
        }
        if (value) {
            n += (size_t)snprintf(out + n, cap - n, "%s", value);
            if (n >= cap)
                n = cap - 1;
            tmpl += skip;
        } else {
            out[n++] = *tmpl++;
        }
    }
    out[n] = '\0';
}

json_t *prompts_get(nl_server *s, const json_t *id, const json_t *params)
{
    const prompt_desc *p = find_prompt(json_string_value(json_object_get(params, "name")));
    if (!p) {
        server_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: unknown prompt (see prompts/list)", NULL);
        return NULL;
    }
    const json_t *args = json_object_get(params, "arguments");
    for (size_t i = 0; i < 3 && p->args[i].name; i++) {
        const json_t *v = json_object_get(args, p->args[i].name);
        if ((p->args[i].required && !json_is_string(v)) || (v && !json_is_string(v))) {
            char msg[160];
            snprintf(msg, sizeof msg, "Invalid params: prompt %s needs argument '%s' as a string", p->name, p->args[i].name);
            server_send_error(s, id, RPC_INVALID_PARAMS, msg, NULL);
            return NULL;
        }
    }
    char note[640] = "";
    const char *extra = arg_value(args, p->args[1].name);
    if (*extra)
        snprintf(note, sizeof note, " (%s: %.512s)", p->args[1].name, extra);
    char text[8192];
    render_template(text, sizeof text, p->template_text, arg_value(args, p->args[0].name), note);
    return json_pack("{s:s, s:[{s:s, s:{s:s, s:s}}]}", "description", p->description, "messages", "role", "user",
                     "content", "type", "text", "text", text);
}
