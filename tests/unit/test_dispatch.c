/* Unit tests for server/dispatch + jsonrpc + tools/registry through nl_server_handle_line with a capturing
 * emitter (no event loop, no pipes): lifecycle, error codes, id echo, argument validation, cancellation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server.h"

#define MAX_OUT 64

typedef struct outbox {
    json_t *msgs[MAX_OUT];
    int count;
} outbox;

static void capture(void *opaque, const char *line, size_t len)
{
    outbox *o = opaque;
    assert_null(memchr(line, '\n', len));
    assert_true(o->count < MAX_OUT);
    json_error_t err;
    o->msgs[o->count] = json_loadb(line, len, 0, &err);
    assert_non_null(o->msgs[o->count]);
    o->count++;
}

typedef struct fixture {
    nl_server *s;
    outbox out;
} fixture;

static void send_line(fixture *f, const char *line)
{
    nl_server_handle_line(f->s, line, strlen(line));
}

/* Pop the oldest message (caller decrefs). */
static json_t *next(fixture *f)
{
    assert_true(f->out.count > 0);
    json_t *m = f->out.msgs[0];
    memmove(f->out.msgs, f->out.msgs + 1, (size_t)(f->out.count - 1) * sizeof(json_t *));
    f->out.count--;
    return m;
}

/* Wait (bounded) until workers have produced n more lines. */
static void drain_until(fixture *f, int n)
{
    for (int i = 0; i < 2000 && f->out.count < n; i++) {
        nl_server_drain(f->s);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    assert_true(f->out.count >= n);
}

static int error_code(const json_t *m)
{
    return (int)json_integer_value(json_object_get(json_object_get(m, "error"), "code"));
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    nl_server_options opt;
    nl_server_options_default(&opt);
    opt.fixtures = true;
    opt.workers = 2;
    opt.stderr_level = 8; /* silence */
    f->s = nl_server_new(&opt, capture, &f->out);
    assert_non_null(f->s);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    nl_server_free(f->s);
    for (int i = 0; i < f->out.count; i++)
        json_decref(f->out.msgs[i]);
    free(f);
    return 0;
}

static void initialize(fixture *f)
{
    send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                 "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    json_t *m = next(f);
    assert_string_equal(json_string_value(json_object_get(json_object_get(m, "result"), "protocolVersion")), "2025-06-18");
    assert_int_equal(json_integer_value(json_object_get(m, "id")), 0);
    json_decref(m);
    send_line(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assert_int_equal(f->out.count, 0);
}

static void request_before_initialize_is_rejected_ping_is_not(void **state)
{
    fixture *f = *state;
    send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\"}");
    json_t *m = next(f);
    assert_int_equal(error_code(m), -32600);
    assert_string_equal(json_string_value(json_object_get(m, "id")), "a");
    json_decref(m);
    send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":-1,\"method\":\"ping\"}");
    m = next(f);
    assert_true(json_is_object(json_object_get(m, "result")));
    assert_int_equal(json_integer_value(json_object_get(m, "id")), -1);
    json_decref(m);
}

static void parse_errors_and_batches_have_null_ids(void **state)
{
    fixture *f = *state;
    send_line(f, "{oops");
    json_t *m = next(f);
    assert_int_equal(error_code(m), -32700);
    assert_true(json_is_null(json_object_get(m, "id")));
    json_decref(m);
    send_line(f, "[]");
    m = next(f);
    assert_int_equal(error_code(m), -32600);
    assert_true(json_is_null(json_object_get(m, "id")));
    json_decref(m);
}

static void unknown_method_is_method_not_found(void **state)
{
    fixture *f = *state;
    initialize(f);
    send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"server/discover\",\"params\":{}}");
    json_t *m = next(f);
    assert_int_equal(error_code(m), -32601);
    json_decref(m);
}

static void invalid_tool_argument_names_the_argument(void **state)
{
    fixture *f = *state;
    initialize(f);
    send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"kernel-attribution\","
                 "\"arguments\":{\"path\":\"/x\",\"metric\":\"speed\"}}}");
    drain_until(f, 1);
    json_t *m = next(f);
    json_t *result = json_object_get(m, "result");
    assert_true(json_is_true(json_object_get(result, "isError")));
    const char *text = json_string_value(json_object_get(json_array_get(json_object_get(result, "content"), 0), "text"));
    assert_non_null(strstr(text, "arguments.metric"));
    assert_non_null(strstr(text, "hbm_bytes"));
    json_decref(m);
}

static void cancelled_call_produces_no_response(void **state)
{
    fixture *f = *state;
    initialize(f);
    send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":\"long\",\"method\":\"tools/call\",\"params\":{\"name\":\"test_sleep\",\"arguments\":{\"ms\":20000}}}");
    send_line(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"long\"}}");
    for (int i = 0; i < 200 && nl_server_pending(f->s); i++) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(nl_server_pending(f->s), 0);
    nl_server_drain(f->s);
    assert_int_equal(f->out.count, 0);
}

static void tool_call_result_carries_structured_content_and_text(void **state)
{
    fixture *f = *state;
    initialize(f);
    send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"test_sleep\",\"arguments\":{\"ms\":1}}}");
    drain_until(f, 1);
    json_t *m = next(f);
    json_t *result = json_object_get(m, "result");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(result, "structuredContent"), "slept_ms")), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(result, "content"), 0), "type")), "text");
    assert_null(json_object_get(result, "isError"));
    json_decref(m);
}

/* Regression (found by tests/fuzz/fuzz_rpc): a tools/call whose id is still in flight is refused, and the
 * copies of its id, arguments and progress token made for the job are released (the ASan build's leak
 * check fails this test if they are not). */
static void call_with_an_id_in_flight_is_refused_and_releases_its_copies(void **state)
{
    fixture *f = *state;
    initialize(f);
    const char *call = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"test_sleep\","
                       "\"arguments\":{\"ms\":20000},\"_meta\":{\"progressToken\":\"p\"}}}";
    send_line(f, call);
    send_line(f, call);
    json_t *m = next(f);
    assert_int_equal(error_code(m), -32600);
    assert_int_equal(json_integer_value(json_object_get(m, "id")), 7);
    assert_non_null(strstr(json_string_value(json_object_get(json_object_get(m, "error"), "message")), "in flight"));
    json_decref(m);
    assert_int_equal(nl_server_pending(f->s), 1); /* the first call still runs; teardown cancels it */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(request_before_initialize_is_rejected_ping_is_not, setup, teardown),
        cmocka_unit_test_setup_teardown(parse_errors_and_batches_have_null_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_method_is_method_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(invalid_tool_argument_names_the_argument, setup, teardown),
        cmocka_unit_test_setup_teardown(cancelled_call_produces_no_response, setup, teardown),
        cmocka_unit_test_setup_teardown(call_with_an_id_in_flight_is_refused_and_releases_its_copies, setup, teardown),
        cmocka_unit_test_setup_teardown(tool_call_result_carries_structured_content_and_text, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
