/* Unit tests for analyzers/analyses/intervals: interval_union against a brute-force coverage count (random
 * sets with duplicate starts, empty and inverted intervals, orders that defeat naive quicksorts), the
 * in-place sort leaving the array ordered by start, and interval_stream giving interval_union's total and
 * piece count on ordered input while flagging input it cannot place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "intervals.h"

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Covered length of v[0, n) on the timeline [0, span), one cell per ns; and the runs of covered cells
 * (pieces: touching intervals join, like the union's merge rule). */
static int64_t brute_union(const interval *v, size_t n, int64_t span, uint64_t *pieces)
{
    unsigned char *cell = calloc((size_t)span + 1, 1);
    assert_non_null(cell);
    for (size_t i = 0; i < n; i++)
        for (int64_t t = v[i].start; t < v[i].end; t++)
            cell[t] = 1;
    int64_t total = 0;
    *pieces = 0;
    for (int64_t t = 0; t < span; t++) {
        total += cell[t];
        if (cell[t] && (t == 0 || !cell[t - 1]))
            ++*pieces;
    }
    free(cell);
    return total;
}

/* Random intervals in [0, span): a third empty or inverted, many sharing starts. */
static void random_intervals(interval *v, size_t n, int64_t span, uint64_t *seed)
{
    for (size_t i = 0; i < n; i++) {
        int64_t a = (int64_t)(rng_next(seed) % (uint64_t)span);
        int64_t len = (int64_t)(rng_next(seed) % 40) - 12;
        v[i].start = a;
        v[i].end = a + len > span ? span : a + len;
    }
}

static void assert_sorted_by_start(const interval *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i - 1].start > v[i].start)
            fail_msg("not sorted at %zu: %lld > %lld", i, (long long)v[i - 1].start, (long long)v[i].start);
}

static void union_matches_a_brute_force_count(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 100, 1000, 5000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int round = 0; round < 20; round++) {
            size_t n = sizes[k];
            int64_t span = (int64_t)(n * 3 + 10);
            interval *v = malloc((n ? n : 1) * sizeof *v);
            assert_non_null(v);
            random_intervals(v, n, span, &seed);
            uint64_t pieces;
            int64_t want = brute_union(v, n, span, &pieces);
            assert_int_equal(interval_union(v, n), want);
            assert_sorted_by_start(v, n);
            free(v);
        }
    }
}

/* Orders that make a naive quicksort quadratic or a bad partition loop: sorted, reversed, all equal, organ
 * pipe, sawtooth; 200k elements each, checked for order and for the union of unit intervals. */
static void sort_handles_adversarial_orders(void **state)
{
    (void)state;
    const size_t n = 200000;
    interval *v = malloc(n * sizeof *v);
    assert_non_null(v);
    for (int shape = 0; shape < 5; shape++) {
        for (size_t i = 0; i < n; i++) {
            int64_t s = shape == 0   ? (int64_t)i
                        : shape == 1 ? (int64_t)(n - i)
                        : shape == 2 ? 7
                        : shape == 3 ? (int64_t)(i < n / 2 ? i : n - i)
                                     : (int64_t)(i % 1000);
            v[i].start = s * 2;
            v[i].end = s * 2 + 1;
        }
        /* distinct starts = covered ns (unit intervals two apart); organ pipe: 0..n/2-1 up, n/2..1 down */
        int64_t distinct = shape <= 1 ? (int64_t)n : shape == 2 ? 1 : shape == 3 ? (int64_t)(n / 2 + 1) : 1000;
        assert_int_equal(interval_union(v, n), distinct);
        assert_sorted_by_start(v, n);
    }
    free(v);
}

static void stream_equals_union_on_ordered_input(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)(rng_next(&seed) % 300);
        int64_t span = (int64_t)(n * 2 + 10);
        interval *v = malloc((n ? n : 1) * sizeof *v);
        assert_non_null(v);
        random_intervals(v, n, span, &seed);
        uint64_t pieces;
        int64_t want = brute_union(v, n, span, &pieces);
        interval_union(v, n); /* sorts */
        interval_stream s = {0};
        for (size_t i = 0; i < n; i++)
            interval_stream_add(&s, v[i].start, v[i].end);
        assert_false(s.unordered);
        assert_int_equal(interval_stream_total(&s), want);
        assert_int_equal(s.pieces, pieces);
        free(v);
    }
}

static void stream_flags_what_it_cannot_place(void **state)
{
    (void)state;
    interval_stream s = {0};
    interval_stream_add(&s, 10, 20);
    interval_stream_add(&s, 12, 15); /* starts inside the open piece: still exact */
    interval_stream_add(&s, 20, 25); /* touches: joins */
    interval_stream_add(&s, 30, 30); /* empty: ignored */
    interval_stream_add(&s, 40, 39); /* inverted: ignored */
    interval_stream_add(&s, 26, 28);
    assert_false(s.unordered);
    assert_int_equal(interval_stream_total(&s), 17);
    assert_int_equal(s.pieces, 2);
    interval_stream_add(&s, 11, 12); /* before the open piece (26..28): cannot be placed */
    assert_true(s.unordered);
    interval_stream empty = {0};
    assert_int_equal(interval_stream_total(&empty), 0);
    assert_int_equal(empty.pieces, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(union_matches_a_brute_force_count),
        cmocka_unit_test(sort_handles_adversarial_orders),
        cmocka_unit_test(stream_equals_union_on_ordered_input),
        cmocka_unit_test(stream_flags_what_it_cannot_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
