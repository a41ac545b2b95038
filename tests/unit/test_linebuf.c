/* Unit tests for server/linebuf: line splitting at any chunk boundary, \r stripping, blank lines, the
 * length cap and resynchronisation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linebuf.h"

typedef struct capture {
    char lines[16][256];
    int count;
    int oversize;
} capture;

static void on_line(void *opaque, const char *line, size_t len)
{
    capture *c = opaque;
    assert_true(c->count < 16);
    snprintf(c->lines[c->count++], sizeof c->lines[0], "%.*s", (int)len, line);
}

static void on_oversize(void *opaque, size_t max_line)
{
    capture *c = opaque;
    assert_int_equal(max_line, 16);
    c->oversize++;
}

static void lines_split_at_any_chunk_boundary(void **state)
{
    (void)state;
    const char *input = "{\"a\":1}\n\r\n  \n{\"b\":22}\r\n{\"c\":333}\n";
    size_t n = strlen(input);
    for (size_t chunk = 1; chunk <= n; chunk++) {
        capture c = {0};
        linebuf lb;
        linebuf_init(&lb, 1024, on_line, on_oversize, &c);
        for (size_t i = 0; i < n; i += chunk)
            assert_int_equal(linebuf_push(&lb, input + i, i + chunk > n ? n - i : chunk), 0);
        linebuf_finish(&lb);
        assert_int_equal(c.count, 3);
        assert_string_equal(c.lines[0], "{\"a\":1}");
        assert_string_equal(c.lines[1], "{\"b\":22}");
        assert_string_equal(c.lines[2], "{\"c\":333}");
        assert_int_equal(c.oversize, 0);
        linebuf_close(&lb);
    }
}

static void oversize_line_is_reported_once_and_stream_resyncs(void **state)
{
    (void)state;
    const char *input = "short\n0123456789abcdefXYZ-way-too-long\nafter\n";
    size_t n = strlen(input);
    for (size_t chunk = 1; chunk <= n; chunk++) {
        capture c = {0};
        linebuf lb;
        linebuf_init(&lb, 16, on_line, on_oversize, &c);
        for (size_t i = 0; i < n; i += chunk)
            linebuf_push(&lb, input + i, i + chunk > n ? n - i : chunk);
        linebuf_finish(&lb);
        assert_int_equal(c.oversize, 1);
        assert_int_equal(c.count, 2);
        assert_string_equal(c.lines[0], "short");
        assert_string_equal(c.lines[1], "after");
        linebuf_close(&lb);
    }
}

static void line_of_exactly_the_limit_is_accepted(void **state)
{
    (void)state;
    capture c = {0};
    linebuf lb;
    linebuf_init(&lb, 16, on_line, on_oversize, &c);
    linebuf_push(&lb, "0123456789abcdef\n", 17);
    linebuf_push(&lb, "0123456789abcdefg\n", 18);
    assert_int_equal(c.count, 1);
    assert_int_equal(c.oversize, 1);
    linebuf_close(&lb);
}

static void unterminated_last_line_is_delivered_at_eof(void **state)
{
    (void)state;
    capture c = {0};
    linebuf lb;
    linebuf_init(&lb, 64, on_line, on_oversize, &c);
    linebuf_push(&lb, "{\"tail\":", 8);
    linebuf_push(&lb, "1}", 2);
    assert_int_equal(c.count, 0);
    linebuf_finish(&lb);
    assert_int_equal(c.count, 1);
    assert_string_equal(c.lines[0], "{\"tail\":1}");
    linebuf_close(&lb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_split_at_any_chunk_boundary),
        cmocka_unit_test(oversize_line_is_reported_once_and_stream_resyncs),
        cmocka_unit_test(line_of_exactly_the_limit_is_accepted),
        cmocka_unit_test(unterminated_last_line_is_delivered_at_eof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
