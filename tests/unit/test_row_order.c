/* Unit tests for analyzers/analyses/row_order (the memoized orders trace-extract pages through): every layout
 * the build can choose — the identity, kept rows already in order, one packed key, timestamps left out
 * because they ascend with the row, two keys wider than 64 bits together — against a plain qsort of
 * (value descending, ts ascending, row ascending); the cursor's position by binary search; walks with a match
 * bitmap; out-of-range keys; cancellation. Keys come from arrays the tests fill. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "row_order.h"

typedef struct keys {
    size_t n;
    int64_t *value, *ts;
    uint8_t *keep;
    size_t calls;
} keys;

static void keys_fn(void *ctx, size_t base, size_t n, int64_t *value, int64_t *ts, uint8_t *keep)
{
    keys *k = ctx;
    assert_true(n <= ROW_ORDER_CHUNK && base + n <= k->n);
    memcpy(value, k->value + base, n * sizeof *value);
    memcpy(ts, k->ts + base, n * sizeof *ts);
    for (size_t i = 0; i < n; i++)
        keep[i] = k->keep ? k->keep[base + i] : 1;
    k->calls++;
}

static keys keys_new(size_t n, bool with_keep)
{
    keys k = {n, calloc(n + 1, sizeof(int64_t)), calloc(n + 1, sizeof(int64_t)), with_keep ? calloc(n + 1, 1) : NULL, 0};
    assert_non_null(k.value);
    assert_non_null(k.ts);
    return k;
}

static void keys_free(keys *k)
{
    free(k->value);
    free(k->ts);
    free(k->keep);
}

/* Deterministic xorshift, so a failure reproduces. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const keys *cmp_keys;

static int reference_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const keys *k = cmp_keys;
    if (k->value[a] != k->value[b])
        return k->value[a] > k->value[b] ? -1 : 1;
    if (k->ts[a] != k->ts[b])
        return k->ts[a] < k->ts[b] ? -1 : 1;
    return (a > b) - (a < b);
}

/* The kept rows sorted by qsort; returns their count. */
static size_t reference(const keys *k, size_t *out)
{
    size_t n = 0;
    for (size_t r = 0; r < k->n; r++)
        if (!k->keep || k->keep[r])
            out[n++] = r;
    cmp_keys = k;
    qsort(out, n, sizeof *out, reference_cmp);
    return n;
}

static row_order *build(keys *k)
{
    row_order *o = NULL;
    nl_error err;
    if (row_order_build(k->n, keys_fn, k, NULL, &o, &err))
        fail_msg("row_order_build: %s", err.message);
    return o;
}

/* The order equals the reference, and every kept row's upper bound is its position + 1. */
static void expect_reference(keys *k, row_order *o)
{
    size_t *want = malloc((k->n + 1) * sizeof *want);
    size_t n = reference(k, want);
    assert_int_equal(row_order_count(o), n);
    assert_int_equal(row_order_table_rows(o), k->n);
    for (size_t p = 0; p < n; p++) {
        if (row_order_at(o, p) != want[p])
            fail_msg("position %zu: row %zu, expected %zu", p, row_order_at(o, p), want[p]);
        size_t r = want[p];
        assert_int_equal(row_order_upper_bound(o, k->value[r], k->ts[r], r, keys_fn, k), p + 1);
    }
    free(want);
}

static void rows_in_order_are_the_identity_with_no_array(void **state)
{
    (void)state;
    keys k = keys_new(10000, false);
    for (size_t r = 0; r < k.n; r++)
        k.ts[r] = (int64_t)(r / 3); /* ties resolve by row, which ascends */
    row_order *o = build(&k);
    assert_true(row_order_is_identity(o));
    assert_true(row_order_bytes(o) < 64); /* no index array (it would take 40000 bytes) */
    assert_int_equal(row_order_count(o), 10000);
    assert_int_equal(row_order_at(o, 1234), 1234);
    expect_reference(&k, o);
    row_order_free(o);
    keys_free(&k);
}

static void kept_rows_in_order_keep_only_their_indices(void **state)
{
    (void)state;
    keys k = keys_new(9000, true);
    for (size_t r = 0; r < k.n; r++) {
        k.ts[r] = (int64_t)r * 10;
        k.keep[r] = r % 3 != 1; /* 6000 kept */
    }
    row_order *o = build(&k);
    assert_false(row_order_is_identity(o));
    assert_int_equal(row_order_count(o), 6000);
    assert_true(row_order_bytes(o) >= 6000 * sizeof(uint32_t));
    assert_int_equal(row_order_at(o, 0), 0);
    assert_int_equal(row_order_at(o, 1), 2);
    assert_int_equal(row_order_at(o, 5999), 8999);
    expect_reference(&k, o);
    row_order_free(o);
    keys_free(&k);
}

/* Values spread over 20 bits, timestamps over 27 bits, out of order: one packed key of 47 bits. */
static void random_keys_match_a_qsort(void **state)
{
    (void)state;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    keys k = keys_new(50000, true);
    for (size_t r = 0; r < k.n; r++) {
        k.value[r] = (int64_t)(rnd(&s) % (1u << 20)) - 5000;
        k.ts[r] = (int64_t)(rnd(&s) % (1u << 27));
        k.keep[r] = rnd(&s) % 10 != 0;
    }
    k.value[7] = k.value[8] = k.value[9]; /* exact ties on value and ts: rows decide */
    k.ts[7] = k.ts[8] = k.ts[9];
    row_order *o = build(&k);
    expect_reference(&k, o);
    assert_int_equal(row_order_bytes(o) / sizeof(uint32_t) >= row_order_count(o), 1);
    row_order_free(o);
    keys_free(&k);
}

/* Timestamps ascend with the row (instructions): value ties must still come out by (ts, row). */
static void ascending_timestamps_order_value_ties_by_time(void **state)
{
    (void)state;
    uint64_t s = 42;
    keys k = keys_new(30000, false);
    for (size_t r = 0; r < k.n; r++) {
        k.ts[r] = (int64_t)(r / 4) * 3 + 1000000000000LL; /* equal timestamps in runs of four */
        k.value[r] = (int64_t)(rnd(&s) % 40);            /* many value ties */
    }
    row_order *o = build(&k);
    expect_reference(&k, o);
    row_order_free(o);
    keys_free(&k);
}

/* Ranges wider than 64 bits together (ts spans 2^62, values 2^40), extremes included: two keys. */
static void keys_wider_than_64_bits_sort_in_two_steps(void **state)
{
    (void)state;
    uint64_t s = 7;
    keys k = keys_new(20000, false);
    for (size_t r = 0; r < k.n; r++) {
        k.ts[r] = (int64_t)(rnd(&s) >> 2) - ((int64_t)1 << 61);
        k.value[r] = (int64_t)(rnd(&s) % ((uint64_t)1 << 40));
    }
    k.value[0] = INT64_MAX;
    k.value[1] = INT64_MIN;
    k.ts[2] = INT64_MIN;
    k.ts[3] = INT64_MAX;
    k.value[4] = k.value[5];
    k.ts[4] = k.ts[5];
    row_order *o = build(&k);
    expect_reference(&k, o);
    assert_int_equal(row_order_at(o, 0), 0);          /* INT64_MAX first */
    assert_int_equal(row_order_at(o, k.n - 1), 1);    /* INT64_MIN last */
    row_order_free(o);
    keys_free(&k);
}

static void empty_and_single_row_tables(void **state)
{
    (void)state;
    keys k = keys_new(0, false);
    row_order *o = build(&k);
    assert_int_equal(row_order_count(o), 0);
    assert_int_equal(row_order_take(o, 0, NULL, 10, NULL), 0);
    assert_int_equal(row_order_matches_from(o, 0, NULL, 0), 0);
    row_order_free(o);
    keys_free(&k);
    k = keys_new(1, true);
    row_order *none = build(&k); /* its one row left out */
    assert_int_equal(row_order_count(none), 0);
    row_order_free(none);
    keys_free(&k);
}

/* take and the counts walk the order from a position, skipping rows whose bit is clear. */
static void walks_pick_matching_rows_from_a_position(void **state)
{
    (void)state;
    keys k = keys_new(200, false);
    for (size_t r = 0; r < k.n; r++)
        k.value[r] = (int64_t)r; /* order: 199, 198, ..., 0 */
    row_order *o = build(&k);
    uint64_t match[4] = {0};
    uint64_t total = 0;
    for (size_t r = 0; r < k.n; r += 7) { /* 0, 7, ..., 196: 29 rows */
        row_order_match_set(match, r);
        total++;
    }
    assert_true(row_order_match_has(match, 196));
    assert_false(row_order_match_has(match, 195));
    uint64_t packed[4] = {0}; /* the same bits packed from flags, 64 at a time, the last word partial */
    uint8_t flags[200];
    for (size_t r = 0; r < 200; r++)
        flags[r] = r % 7 == 0 ? (uint8_t)(1 + r % 3) : 0;
    assert_int_equal(row_order_match_pack(packed, 0, flags, 128), 19);
    assert_int_equal(row_order_match_pack(packed, 128, flags + 128, 72), 10);
    assert_memory_equal(packed, match, sizeof match);
    size_t out[5];
    assert_int_equal(row_order_take(o, 0, match, 5, out), 5);
    const size_t first[] = {196, 189, 182, 175, 168};
    assert_memory_equal(out, first, sizeof first);
    size_t from = row_order_upper_bound(o, 175, 0, 175, keys_fn, &k); /* just after row 175: position 25 */
    assert_int_equal(from, 25);
    assert_int_equal(row_order_take(o, from, match, 2, out), 2);
    assert_int_equal(out[0], 168);
    assert_int_equal(out[1], 161);
    assert_int_equal(row_order_count_matches(o, 0, from, match), 4);
    assert_int_equal(row_order_matches_from(o, from, match, total), 25); /* counted before the position */
    assert_int_equal(row_order_matches_from(o, 150, match, total), 8);   /* counted after it: rows 49, ..., 0 */
    assert_int_equal(row_order_matches_from(o, 150, NULL, 200), 50);
    assert_int_equal(row_order_matches_from(o, 200, match, total), 0);
    assert_int_equal(row_order_take(o, 0, NULL, 3, out), 3);
    assert_int_equal(out[2], 197);
    row_order_free(o);
    keys_free(&k);
}

/* Few matches are ranked by their keys, through a heap, in the order's ranking. */
static void few_matches_are_ranked_without_a_walk(void **state)
{
    (void)state;
    keys k = keys_new(1000, false);
    for (size_t r = 0; r < k.n; r++) {
        k.value[r] = (int64_t)(r % 10);
        k.ts[r] = (int64_t)(1000 - r);
    }
    row_order *o = build(&k);
    uint64_t match[16] = {0};
    const size_t rows[] = {5, 15, 25, 995, 4, 14}; /* values 5, 5, 5, 5, 4, 4 */
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        row_order_match_set(match, rows[i]);
    assert_true(row_order_is_sparse(o, 6));
    assert_false(row_order_is_sparse(o, 1000 / ROW_ORDER_SPARSE_SHARE));
    size_t out[4], n = 0;
    uint64_t after = 0;
    assert_int_equal(row_order_rank_matches(k.n, match, NULL, keys_fn, &k, 4, out, &n, &after), 0);
    assert_int_equal(n, 4);
    assert_int_equal(after, 6);
    const size_t first[] = {995, 25, 15, 5}; /* value 5, then later rows have earlier timestamps */
    assert_memory_equal(out, first, sizeof first);
    row_order_key cursor = {5, 1000 - 15, 15};
    assert_int_equal(row_order_rank_matches(k.n, match, &cursor, keys_fn, &k, 4, out, &n, &after), 0);
    assert_int_equal(n, 3);
    assert_int_equal(after, 3);
    const size_t rest[] = {5, 14, 4};
    assert_memory_equal(out, rest, sizeof rest);
    size_t walked[3]; /* the walk of the order agrees */
    assert_int_equal(row_order_take(o, row_order_upper_bound(o, 5, 1000 - 15, 15, keys_fn, &k), match, 3, walked), 3);
    assert_memory_equal(walked, rest, sizeof rest);
    row_order_free(o);
    keys_free(&k);
}

static void a_set_cancel_flag_stops_the_build(void **state)
{
    (void)state;
    keys k = keys_new(20000, false);
    for (size_t r = 0; r < k.n; r++)
        k.value[r] = (int64_t)(r % 977);
    atomic_int cancel = 1;
    row_order *o = (row_order *)&k;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(row_order_build(k.n, keys_fn, &k, &cancel, &o, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    assert_null(o);
    assert_int_equal(k.calls, 0);
    keys_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_in_order_are_the_identity_with_no_array),
        cmocka_unit_test(kept_rows_in_order_keep_only_their_indices),
        cmocka_unit_test(random_keys_match_a_qsort),
        cmocka_unit_test(ascending_timestamps_order_value_ties_by_time),
        cmocka_unit_test(keys_wider_than_64_bits_sort_in_two_steps),
        cmocka_unit_test(empty_and_single_row_tables),
        cmocka_unit_test(walks_pick_matching_rows_from_a_position),
        cmocka_unit_test(few_matches_are_ranked_without_a_walk),
        cmocka_unit_test(a_set_cancel_flag_stops_the_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
