/* resources — serves the Markdown files of references/ (embedded at build time) as MCP resources with
 * URIs neuronlens://references/<name>, mimeType text/markdown, plus one URI template naming them. */
#include "server_internal.h"
#include "references.h"

#include <stdio.h>
#include <string.h>

#define REFERENCE_URI_PREFIX "neuronlens://references/"

static json_t *reference_entry(const nl_reference *r)
{
    char uri[256];
    snprintf(uri, sizeof uri, REFERENCE_URI_PREFIX "%s", r->name);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "uri", uri, "name", r->name, "title", r->title,
                     "description", r->description, "mimeType", "text/markdown", "size", (json_int_t)r->size);
}

json_t *resources_list(nl_server *s, const json_t *id, const json_t *params)
{
    if (server_check_no_cursor(s, id, params))
        return NULL;
    json_t *list = json_array();
    for (unsigned i = 0; i < nl_reference_count; i++)
        json_array_append_new(list, reference_entry(&nl_references[i]));
    return json_pack("{s:o}", "resources", list);
}

json_t *resources_templates_list(nl_server *s, const json_t *id, const json_t *params)
{
    if (server_check_no_cursor(s, id, params))
        return NULL;
    return json_pack("{s:[{s:s, s:s, s:s, s:s, s:s}]}", "resourceTemplates",
                     "uriTemplate", REFERENCE_URI_PREFIX "{name}", "name", "reference", "title", "neuronlens reference",
                     "description", "A neuronlens reference document by name (see resources/list for the names).",
                     "mimeType", "text/markdown");
}

static const nl_reference *find_reference(const char *uri)
{
    size_t plen = strlen(REFERENCE_URI_PREFIX);
    if (!uri || strncmp(uri, REFERENCE_URI_PREFIX, plen))
        return NULL;
    for (unsigned i = 0; i < nl_reference_count; i++)
        if (!strcmp(uri + plen, nl_references[i].name))
            return &nl_references[i];
    return NULL;
}

json_t *resources_read(nl_server *s, const json_t *id, const json_t *params)
{
    const json_t *uri = json_object_get(params, "uri");
    if (!json_is_string(uri)) {
        server_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: resources/read needs params.uri (a string)", NULL);
        return NULL;
    }
    const nl_reference *r = find_reference(json_string_value(uri));
    if (!r) {
        server_send_error(s, id, RPC_RESOURCE_NOT_FOUND, "Resource not found (see resources/list)",
                          json_pack("{s:O}", "uri", uri));
        return NULL;
    }
    return json_pack("{s:[{s:O, s:s, s:s%}]}", "contents", "uri", uri, "mimeType", "text/markdown", "text", r->text, r->size);
}
