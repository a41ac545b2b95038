/* Unit tests for analyzers/analyses/name_list: distinct names, case folding only when asked, the ", …" end
 * when a name does not fit (and nothing after it), and buffers too small to start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "name_list.h"

static void names_are_listed_once(void **state)
{
    (void)state;
    char buf[64];
    name_list l;
    name_list_init(&l, buf, sizeof buf, 4, true);
    static const char *const names[] = {"tensor", "Tensor", "", NULL, "vector", "TENSOR", "sync"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        name_list_add(&l, names[i]);
    assert_string_equal(buf, "tensor, vector, sync");
    name_list_init(&l, buf, sizeof buf, 8, false);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        name_list_add(&l, names[i]);
    assert_string_equal(buf, "tensor, Tensor, vector, TENSOR, sync");
}

static void a_full_list_ends_with_an_ellipsis(void **state)
{
    (void)state;
    char buf[20];
    name_list l;
    name_list_init(&l, buf, sizeof buf, 4, true);
    name_list_add(&l, "alpha");  /* "alpha": 5 + 4 < 20 */
    name_list_add(&l, "bravo");  /* ", bravo": 7 + 4 < 15 */
    name_list_add(&l, "charlie"); /* ", charlie": 9 + 4 >= 8: does not fit */
    name_list_add(&l, "d");       /* nothing after the ellipsis */
    assert_string_equal(buf, "alpha, bravo, \xe2\x80\xa6");
    assert_true(l.full);
    name_list_init(&l, buf, sizeof buf, 8, false);
    name_list_add(&l, "alpha");       /* 5 + 8 < 20 */
    name_list_add(&l, "bravo");       /* 7 + 8 >= 15 */
    assert_string_equal(buf, "alpha, \xe2\x80\xa6");
    name_list_init(&l, buf, 10, 4, true);
    name_list_add(&l, "a-long-name"); /* the first name does not fit: only the ellipsis */
    assert_string_equal(buf, "\xe2\x80\xa6");
}

static void a_tiny_buffer_starts_full(void **state)
{
    (void)state;
    char buf[16] = "x";
    name_list l;
    name_list_init(&l, buf, 15, 8, false);
    assert_true(l.full);
    assert_string_equal(buf, "");
    name_list_add(&l, "a");
    assert_string_equal(buf, "");
    name_list_init(&l, buf, 0, 4, true); /* no byte to write at all */
    name_list_add(&l, "a");
    assert_true(l.full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_are_listed_once),
        cmocka_unit_test(a_full_list_ends_with_an_ellipsis),
        cmocka_unit_test(a_tiny_buffer_starts_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
