/* schema_check — see schema_check.h for the supported keyword subset.
 *
 * Recursion follows the *schema*, which is ours and shallow (≤ 4 levels), never the input alone: an
 * input nested deeper than the schema is only visited where the schema describes it, so hostile
 * nesting cannot exhaust the stack. Paths are built in a fixed buffer; overlong paths are cut. */
#include "schema_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SCHEMA_PATH_MAX 256

static const char *json_type_word(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

static bool type_matches(const char *type, const json_t *v)
{
    if (!strcmp(type, "object")) return json_is_object(v);
    if (!strcmp(type, "array")) return json_is_array(v);
    if (!strcmp(type, "string")) return json_is_string(v);
    if (!strcmp(type, "boolean")) return json_is_boolean(v);
    if (!strcmp(type, "null")) return json_is_null(v);
    if (!strcmp(type, "integer"))
        return json_is_integer(v) || (json_is_real(v) && floor(json_real_value(v)) == json_real_value(v));
    if (!strcmp(type, "number")) return json_is_number(v);
    return true; /* unknown type names are not ours to reject */
}

static int fail(char *msg, size_t cap, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(char *msg, size_t cap, const char *path, const char *fmt, ...)
{
    char what[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(msg, cap, "%s: %s", path, what);
    return -1;
}

static int check_type(const json_t *schema, const json_t *v, const char *path, char *msg, size_t cap)
{
    const json_t *type = json_object_get(schema, "type");
    if (!type)
        return 0;
    if (json_is_string(type)) {
        if (type_matches(json_string_value(type), v))
            return 0;
        char expected[48];
        snprintf(expected, sizeof expected, "%s", json_string_value(type));
        return fail(msg, cap, path, "expected %s, got %s", expected, json_type_word(v));
    }
    char names[96] = "";
    size_t i;
    const json_t *t;
    json_array_foreach(type, i, t) {
        if (json_is_string(t) && type_matches(json_string_value(t), v))
            return 0;
        if (json_is_string(t) && strlen(names) + strlen(json_string_value(t)) + 4 < sizeof names) {
            if (i) strcat(names, " or ");
            strcat(names, json_string_value(t));
        }
    }
    return fail(msg, cap, path, "expected %s, got %s", names, json_type_word(v));
}

static int check_enum(const json_t *schema, const json_t *v, const char *path, char *msg, size_t cap)
{
    const json_t *cst = json_object_get(schema, "const");
    if (cst && !json_equal(cst, v))
        return fail(msg, cap, path, "must be the constant %s", json_is_string(cst) ? json_string_value(cst) : "value");
    const json_t *en = json_object_get(schema, "enum");
    if (!en)
        return 0;
    size_t i;
    const json_t *e;
    char choices[160] = "";
    json_array_foreach(en, i, e) {
        if (json_equal(e, v))
            return 0;
        if (json_is_string(e) && strlen(choices) + strlen(json_string_value(e)) + 3 < sizeof choices) {
            if (i) strcat(choices, ", ");
            strcat(choices, json_string_value(e));
        }
    }
    return fail(msg, cap, path, "must be one of: %s", choices);
}

static int check_number(const json_t *schema, const json_t *v, const char *path, char *msg, size_t cap)
{
    if (!json_is_number(v))
        return 0;
    double x = json_number_value(v);
    const json_t *mn = json_object_get(schema, "minimum");
    const json_t *mx = json_object_get(schema, "maximum");
    char lo[32] = "-inf", hi[32] = "+inf";
    if (mn) snprintf(lo, sizeof lo, "%.15g", json_number_value(mn));
    if (mx) snprintf(hi, sizeof hi, "%.15g", json_number_value(mx));
    if ((mn && x < json_number_value(mn)) || (mx && x > json_number_value(mx)))
        return fail(msg, cap, path, "must be between %s and %s", lo, hi);
    return 0;
}

static int check_lengths(const json_t *schema, const json_t *v, const char *path, char *msg, size_t cap)
{
    size_t n;
    const char *lo_key, *hi_key;
    if (json_is_string(v)) {
        n = json_string_length(v);
        lo_key = "minLength";
        hi_key = "maxLength";
    } else if (json_is_array(v)) {
        n = json_array_size(v);
        lo_key = "minItems";
        hi_key = "maxItems";
    } else {
        return 0;
    }
    const json_t *lo = json_object_get(schema, lo_key);
    const json_t *hi = json_object_get(schema, hi_key);
    char a[32], b[32];
    if (lo && (json_int_t)n < json_integer_value(lo)) {
        snprintf(a, sizeof a, "%" JSON_INTEGER_FORMAT, json_integer_value(lo));
        return fail(msg, cap, path, "must have at least %s %s", a, json_is_string(v) ? "characters" : "items");
    }
    if (hi && (json_int_t)n > json_integer_value(hi)) {
        snprintf(b, sizeof b, "%" JSON_INTEGER_FORMAT, json_integer_value(hi));
        return fail(msg, cap, path, "must have at most %s %s", b, json_is_string(v) ? "characters" : "items");
    }
    return 0;
}

static int check_value(const json_t *schema, const json_t *v, const char *path, char *msg, size_t cap);

static int check_object(const json_t *schema, const json_t *v, const char *path, char *msg, size_t cap)
{
    if (!json_is_object(v))
        return 0;
    const json_t *props = json_object_get(schema, "properties");
    const json_t *req = json_object_get(schema, "required");
    const json_t *extra = json_object_get(schema, "additionalProperties");
    char sub[SCHEMA_PATH_MAX];
    size_t i;
    const json_t *r;
    json_array_foreach(req, i, r) {
        if (json_is_string(r) && !json_object_get(v, json_string_value(r)))
            return fail(msg, cap, path, "missing required property '%s'", json_string_value(r));
    }
    const char *key;
    const json_t *item;
    json_object_foreach((json_t *)v, key, item) {
        const json_t *ps = props ? json_object_get(props, key) : NULL;
        snprintf(sub, sizeof sub, "%s.%s", path, key);
        if (ps) {
            if (check_value(ps, item, sub, msg, cap))
                return -1;
        } else if (json_is_false(extra)) {
            char known[160] = "";
            const char *pk;
            const json_t *pv;
            json_object_foreach((json_t *)props, pk, pv) {
                (void)pv;
                if (strlen(known) + strlen(pk) + 3 < sizeof known) {
                    if (known[0]) strcat(known, ", ");
                    strcat(known, pk);
                }
            }
            return fail(msg, cap, sub, "unknown property; accepted properties are: %s", known);
        } else if (json_is_object(extra)) {
            if (check_value(extra, item, sub, msg, cap))
                return -1;
        }
    }
    return 0;
}

static int check_array(const json_t *schema, const json_t *v, const char *path, char *msg, size_t cap)
{
    const json_t *items = json_object_get(schema, "items");
    if (!json_is_array(v) || !json_is_object(items))
        return 0;
    char sub[SCHEMA_PATH_MAX];
    size_t i;
    const json_t *e;
    json_array_foreach(v, i, e) {
        snprintf(sub, sizeof sub, "%s[%zu]", path, i);
        if (check_value(items, e, sub, msg, cap))
            return -1;
    }
    return 0;
}

static int check_value(const json_t *schema, const json_t *v, const char *path, char *msg, size_t cap)
{
    if (!json_is_object(schema))
        return 0;
    if (check_type(schema, v, path, msg, cap) || check_enum(schema, v, path, msg, cap) ||
        check_number(schema, v, path, msg, cap) || check_lengths(schema, v, path, msg, cap) ||
        check_object(schema, v, path, msg, cap) || check_array(schema, v, path, msg, cap))
        return -1;
    return 0;
}

int schema_check(const json_t *schema, const json_t *value, const char *root_name, char *msg, size_t cap)
{
    if (cap)
        msg[0] = '\0';
    return check_value(schema, value, root_name ? root_name : "value", msg, cap);
}
