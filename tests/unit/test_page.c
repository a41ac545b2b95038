/* Unit tests for tools/page (the byte budget) and the budget behaviour of trace-extract and
 * kernel-attribution, called through the tool registry on the handcrafted export of analysis_fixture.h
 * written to a temporary file: rows stop at the budget, the result never exceeds it, pages cut by the budget
 * still concatenate, and a budget too small for one row is an error saying how to narrow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis_fixture.h"
#include "page.h"
#include "tools.h"

typedef struct fixture {
    char dir[64];
    char path[96];
    nl_tools *tools;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/nl_test_page_XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/fixture.json", f->dir);
    FILE *fp = fopen(f->path, "w");
    if (!fp)
        return -1;
    fputs(fixture_export, fp);
    fclose(fp);
    f->tools = nl_tools_new(NULL);
    *state = f;
    return f->tools ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    nl_tools_free(f->tools);
    unlink(f->path);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Call a tool; returns the structured result (owned) or NULL with *error_text set (malloc'd). */
static json_t *call(fixture *f, const char *tool, json_t *args_take, char **error_text, size_t *size)
{
    nl_tool_result res;
    json_object_set_new(args_take, "path", json_string(f->path));
    assert_int_equal(nl_tools_call(f->tools, tool, args_take, NULL, &res), 0);
    json_decref(args_take);
    *error_text = NULL;
    json_t *out = NULL;
    if (res.is_error) {
        *error_text = strdup(res.text);
    } else {
        out = json_incref(res.structured);
        json_t *whole = nl_tool_result_to_json(&res); /* what the server serialises */
        *size = page_json_size(whole);
        json_decref(whole);
        return out;
    }
    nl_tool_result_clear(&res);
    return out;
}

static void meter_counts_items_until_the_limit(void **state)
{
    (void)state;
    json_t *base = json_pack("{s:[]}", "rows");
    page_meter pm;
    page_meter_init(&pm, page_json_size(base) + PAGE_TEXT_MAX + PAGE_WRAPPER_BYTES + 10, base);
    json_t *item = json_pack("[i,i]", 1, 2); /* 5 bytes + comma */
    assert_true(page_meter_take(&pm, item));
    assert_false(page_meter_take(&pm, item)); /* 12 > 10: refused, nothing counted */
    assert_int_equal(pm.used, pm.limit - 4);
    json_decref(item);
    json_decref(base);
    size_t size;
    json_t *small = json_pack("{s:i}", "a", 1);
    assert_true(page_fits(small, "hi", 200, &size));
    assert_false(page_fits(small, "hi", size - 1, &size));
    json_decref(small);
    assert_int_equal(page_budget(NULL, NULL), PAGE_BUDGET_DEFAULT);
    json_t *args = json_pack("{s:i}", "max_bytes", 5000);
    nl_call c = {.byte_budget = 4000};
    assert_int_equal(page_budget(args, NULL), 5000);
    assert_int_equal(page_budget(args, &c), 4000);
    json_decref(args);
}

/* The bytes the result needs before any row, from the error a too-small budget gives. */
static size_t bytes_without_rows(fixture *f, json_t *args_take)
{
    char *err;
    size_t size, need = 0;
    json_object_set_new(args_take, "max_bytes", json_integer(1024));
    json_t *out = call(f, "trace-extract", args_take, &err, &size);
    assert_null(out);
    const char *p = strstr(err, "already needs ");
    assert_non_null(p);
    need = strtoul(p + strlen("already needs "), NULL, 10);
    assert_non_null(strstr(err, "raise max_bytes"));
    free(err);
    return need;
}

static void trace_extract_rows_stop_at_the_budget_and_pages_concatenate(void **state)
{
    fixture *f = *state;
    char *err;
    size_t size, full_size;
    json_t *full = call(f, "trace-extract", json_pack("{s:i}", "max_rows", 500), &err, &full_size);
    assert_non_null(full);
    assert_int_equal(json_integer_value(json_object_get(full, "total")), 8);
    assert_int_equal(json_array_size(json_object_get(full, "rows")), 8);
    size_t base = bytes_without_rows(f, json_pack("{s:i}", "max_rows", 500));
    size_t prev_shown = 0, paged = 0;
    for (size_t budget = base + 60; budget <= base + 400; budget += 13) {
        json_t *rows = json_array();
        json_t *cursor = NULL;
        size_t first_shown = 0;
        for (int page = 0; page < 20; page++) {
            json_t *args = json_pack("{s:i, s:i}", "max_rows", 500, "max_bytes", (int)budget);
            if (cursor)
                json_object_set(args, "cursor", cursor);
            json_t *out = call(f, "trace-extract", args, &err, &size);
            if (!out)
                fail_msg("budget %zu: %s", budget, err);
            assert_true(size <= budget);
            size_t shown = (size_t)json_integer_value(json_object_get(out, "shown"));
            assert_true(shown > 0);
            if (!page)
                first_shown = shown;
            paged += page > 0;
            json_array_extend(rows, json_object_get(out, "rows"));
            json_decref(cursor);
            cursor = json_incref(json_object_get(out, "next_cursor"));
            bool truncated = json_is_true(json_object_get(out, "truncated"));
            if (truncated)
                assert_string_equal(json_string_value(json_object_get(out, "truncated_by")), "max_bytes");
            json_decref(out);
            if (!truncated)
                break;
        }
        assert_true(first_shown >= prev_shown);
        prev_shown = first_shown;
        assert_true(json_equal(rows, json_object_get(full, "rows")));
        json_decref(rows);
        json_decref(cursor);
    }
    assert_int_equal(prev_shown, 8);
    assert_true(paged > 3);
    json_decref(full);
}

static void a_budget_too_small_for_one_row_says_how_to_narrow(void **state)
{
    fixture *f = *state;
    char *err;
    size_t size;
    json_t *wide = json_pack("[s, s, s, s, s, s, s, s]", "row", "start_ns", "end_ns", "duration_ns", "evt_wait_ns",
                             "engine", "label", "opcode");
    size_t base = bytes_without_rows(f, json_pack("{s:O}", "columns", wide));
    json_t *out = call(f, "trace-extract", json_pack("{s:i, s:O}", "max_bytes", (int)base + 10, "columns", wide), &err, &size);
    assert_null(out);
    assert_non_null(strstr(err, "Not even one row fits"));
    assert_non_null(strstr(err, "columns"));
    free(err);
    json_decref(wide);
    out = call(f, "kernel-attribution", json_pack("{s:i}", "max_bytes", 2048), &err, &size);
    assert_null(out);
    assert_non_null(strstr(err, "max_bytes"));
    assert_non_null(strstr(err, "gaps_per_engine 0"));
    free(err);
}

static void kernel_attribution_groups_stop_at_the_budget(void **state)
{
    fixture *f = *state;
    char *err;
    size_t full_size, size;
    json_t *full = call(f, "kernel-attribution", json_pack("{s:s}", "group_by", "opcode"), &err, &full_size);
    assert_non_null(full);
    assert_int_equal(json_array_size(json_object_get(full, "groups")), 6);
    assert_true(full_size <= PAGE_BUDGET_DEFAULT);
    json_t *out = call(f, "kernel-attribution", json_pack("{s:s, s:i}", "group_by", "opcode", "max_bytes", (int)full_size - 150),
                       &err, &size);
    if (!out)
        fail_msg("%s", err);
    assert_true(size <= full_size - 150);
    size_t shown = (size_t)json_integer_value(json_object_get(out, "shown"));
    assert_true(shown >= 1 && shown < 6);
    assert_string_equal(json_string_value(json_object_get(out, "truncated_by")), "max_bytes");
    /* the continuation page (groups only) resumes after the last group shown */
    json_t *next = call(f, "kernel-attribution", json_pack("{s:s, s:O}", "group_by", "opcode", "cursor",
                                                           json_object_get(out, "next_cursor")), &err, &size);
    assert_non_null(next);
    assert_int_equal(json_array_size(json_object_get(next, "groups")), 6 - shown);
    assert_null(json_object_get(next, "engine_time"));
    assert_true(json_equal(json_array_get(json_object_get(next, "groups"), 0),
                           json_array_get(json_object_get(full, "groups"), shown)));
    json_decref(next);
    json_decref(out);
    json_decref(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(meter_counts_items_until_the_limit),
        cmocka_unit_test_setup_teardown(trace_extract_rows_stop_at_the_budget_and_pages_concatenate, setup, teardown),
        cmocka_unit_test_setup_teardown(a_budget_too_small_for_one_row_says_how_to_narrow, setup, teardown),
        cmocka_unit_test_setup_teardown(kernel_attribution_groups_stop_at_the_budget, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
