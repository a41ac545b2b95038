/* tool_common — schema fragments and small helpers shared by the five tool files.
 *
 * Schemas are written as JSON tokens inside NL_JSON(...), which the preprocessor turns into one string
 * literal (whitespace collapsed), so they read as JSON in the source and cost nothing at run time.
 * Fragments are concatenated as adjacent string literals. registry.c parses each schema once. */
#ifndef NL_TOOL_COMMON_H
#define NL_TOOL_COMMON_H

#include "tools.h"

#define NL_JSON(...) #__VA_ARGS__

#define NL_PROP_PATH NL_JSON("path": {"type": "string", "minLength": 1, "maxLength": 4096, \
    "description": "File or directory: capture dir, neuron-profile JSON export, summary-json, NEFF/NTFF, trace.json(.gz)"})
#define NL_PROP_PROFILE NL_JSON("profile": {"type": "string", "minLength": 1, "maxLength": 512, \
    "description": "Profile id from orient; needed when path holds several"})
#define NL_PROP_MAX_ROWS NL_JSON("max_rows": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20, \
    "description": "Rows per page."})
#define NL_PROP_CURSOR NL_JSON("cursor": {"type": "string", "minLength": 1, "maxLength": 1024, \
    "description": "next_cursor of the previous page"})
#define NL_PROP_MAX_BYTES NL_JSON("max_bytes": {"type": "integer", "minimum": 1024, "maximum": 24576, \
    "description": "Byte budget for the result (default 24576)."})

/* Output envelope common to every tool (properties; used inside "properties": {...}). */
#define NL_OUT_ENVELOPE NL_JSON( \
    "profile": {"type": ["object", "null"]}, "units": {"type": "object"}, "provenance": {"type": "object"}, \
    "data_quality": {"type": "array", "items": {"type": "object", "required": ["problem", "fix"]}})
#define NL_OUT_LIST NL_JSON( \
    "total": {"type": "integer", "minimum": 0}, "shown": {"type": "integer", "minimum": 0}, \
    "truncated": {"type": "boolean"}, "next_cursor": {"type": ["string", "null"]})

#endif
