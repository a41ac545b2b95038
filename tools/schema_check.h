/* schema_check — validates a JSON value against the subset of JSON Schema (2020-12) that neuronlens's
 * own tool schemas use: type (one name or an array of names), properties, required,
 * additionalProperties (false or a schema), items, enum, const, minimum, maximum, minLength, maxLength,
 * minItems, maxItems. Hand-written because Debian ships no JSON Schema validator for jansson; unknown
 * keywords are ignored (annotations such as description, default, title).
 *
 * On failure the message names the path of the offending value (e.g. "arguments.max_rows") and what
 * was expected, in words a model can act on. Pure function; thread-safe. */
#ifndef NL_SCHEMA_CHECK_H
#define NL_SCHEMA_CHECK_H

#include <jansson.h>
#include <stddef.h>

/* Returns 0 when `value` conforms, -1 otherwise with `msg` filled (NUL-terminated, truncated to cap). */
int schema_check(const json_t *schema, const json_t *value, const char *root_name, char *msg, size_t cap);

#endif
