/* Unit tests for tools/schema_check: each keyword of the supported subset, and that messages name the
 * offending path and what is accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>

#include "schema_check.h"

static const char schema_text[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"path\"],\"properties\":{"
    "\"path\":{\"type\":\"string\",\"minLength\":1},"
    "\"max_rows\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":500},"
    "\"sort\":{\"enum\":[\"time\",\"duration\"]},"
    "\"cc\":{\"type\":[\"integer\",\"null\"]},"
    "\"columns\":{\"type\":\"array\",\"maxItems\":2,\"items\":{\"type\":\"string\"}}}}";

static void expect(const char *value_text, const char *needle)
{
    json_t *schema = json_loads(schema_text, 0, NULL);
    json_t *value = json_loads(value_text, JSON_DECODE_ANY, NULL);
    assert_non_null(schema);
    assert_non_null(value);
    char msg[256];
    int rc = schema_check(schema, value, "arguments", msg, sizeof msg);
    if (!needle) {
        assert_int_equal(rc, 0);
        assert_string_equal(msg, "");
    } else {
        assert_int_equal(rc, -1);
        if (!strstr(msg, needle))
            fail_msg("message '%s' lacks '%s'", msg, needle);
    }
    json_decref(schema);
    json_decref(value);
}

static void valid_arguments_pass(void **state)
{
    (void)state;
    expect("{\"path\":\"/x\"}", NULL);
    expect("{\"path\":\"/x\",\"max_rows\":500,\"sort\":\"time\",\"cc\":null,\"columns\":[\"a\",\"b\"]}", NULL);
    expect("{\"path\":\"/x\",\"max_rows\":2.0}", NULL); /* integral number is an integer */
}

static void each_violation_names_path_and_expectation(void **state)
{
    (void)state;
    expect("{}", "missing required property 'path'");
    expect("{\"path\":7}", "arguments.path: expected string, got an integer");
    expect("{\"path\":\"\"}", "arguments.path: must have at least 1 characters");
    expect("{\"path\":\"/x\",\"max_rows\":0}", "arguments.max_rows: must be between 1 and 500");
    expect("{\"path\":\"/x\",\"max_rows\":1.5}", "arguments.max_rows: expected integer");
    expect("{\"path\":\"/x\",\"sort\":\"size\"}", "arguments.sort: must be one of: time, duration");
    expect("{\"path\":\"/x\",\"cc\":\"a\"}", "expected integer or null");
    expect("{\"path\":\"/x\",\"columns\":[\"a\",1]}", "arguments.columns[1]: expected string");
    expect("{\"path\":\"/x\",\"columns\":[\"a\",\"b\",\"c\"]}", "at most 2 items");
    expect("{\"path\":\"/x\",\"extra\":1}", "arguments.extra: unknown property; accepted properties are: path, max_rows");
    expect("[1]", "arguments: expected object, got an array");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_arguments_pass),
        cmocka_unit_test(each_violation_names_path_and_expectation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
