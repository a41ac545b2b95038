/* Unit tests for analyzers/model: arena (alignment, big requests, limit), strtab (ids, "" = 0, embedded
 * NUL, growth), table (exact values through every cell width, segments, bulk reads, shift, dictionaries),
 * kvlist (replace, typed getters), device_model (notes, finish), and each allocation failing in turn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "device_model.h"
#include "kvlist.h"
#include "strtab.h"
#include "table.h"

/* ---- arena -------------------------------------------------------------------------------------------- */

static void arena_pointers_are_aligned_and_distinct(void **state)
{
    (void)state;
    arena *a = arena_new(1024);
    assert_non_null(a);
    char *prev = NULL;
    for (size_t i = 0; i < 1000; i++) {
        char *p = arena_alloc(a, i % 37);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % ARENA_ALIGN, 0);
        memset(p, 0xab, i % 37);
        assert_true(p != prev);
        prev = p;
    }
    char *big = arena_alloc(a, 100000); /* above chunk/4: a chunk of its own */
    assert_non_null(big);
    memset(big, 1, 100000);
    char *after = arena_alloc(a, 8); /* small requests still work */
    assert_non_null(after);
    assert_true(arena_used(a) >= 100000);
    assert_true(arena_reserved(a) >= arena_used(a));
    char *s = arena_strndup(a, "abc", 2);
    assert_string_equal(s, "ab");
    arena_free(a);
    arena_free(NULL);
}

static void arena_limit_makes_allocation_fail_without_damage(void **state)
{
    (void)state;
    arena *a = arena_new(4096);
    arena_set_limit(a, 10000);
    assert_non_null(arena_alloc(a, 100));
    assert_null(arena_alloc(a, 20000));
    assert_non_null(arena_alloc(a, 100)); /* the first chunk still serves */
    assert_true(arena_reserved(a) <= 10000);
    assert_null(arena_calloc(a, SIZE_MAX / 2, 4)); /* overflow is a failure, not a wrap */
    arena_free(a);
}

/* ---- strtab ------------------------------------------------------------------------------------------- */

static void strtab_gives_equal_strings_one_id(void **state)
{
    (void)state;
    arena *a = arena_new(0);
    strtab *t = strtab_new(a);
    nl_error err;
    uint32_t id0, id1, id2, id3;
    assert_int_equal(strtab_intern(t, "", 0, &id0, &err), 0);
    assert_int_equal(id0, 0);
    assert_int_equal(strtab_intern(t, "Tensor", 6, &id1, &err), 0);
    assert_int_equal(strtab_intern(t, "Tensorx", 6, &id2, &err), 0); /* only len bytes count */
    assert_int_equal(id1, id2);
    assert_int_equal(strtab_intern(t, "a\0b", 3, &id3, &err), 0);
    assert_true(id3 != id1);
    size_t len;
    assert_memory_equal(strtab_str(t, id3, &len), "a\0b", 3);
    assert_int_equal(len, 3);
    assert_string_equal(strtab_str(t, 0, NULL), "");
    assert_int_equal(strtab_find(t, "Tensor", 6), id1);
    assert_int_equal(strtab_find(t, "Vector", 6), STRTAB_NONE);
    assert_null(strtab_str(t, 12345, NULL));
    /* growth keeps every id stable */
    char buf[32];
    uint32_t ids[5000];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(buf, sizeof buf, "string-%d", i);
        assert_int_equal(strtab_intern(t, buf, (size_t)n, &ids[i], &err), 0);
    }
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(buf, sizeof buf, "string-%d", i);
        assert_string_equal(strtab_str(t, ids[i], NULL), buf);
        assert_int_equal(strtab_find(t, buf, (size_t)n), ids[i]);
    }
    assert_int_equal(strtab_count(t), 5000 + 3);
    arena_free(a);
}

/* ---- table -------------------------------------------------------------------------------------------- */

static const table_column test_cols[] = {
    {"i", TABLE_INT}, {"u", TABLE_UINT}, {"d", TABLE_F64}, {"s", TABLE_STR},
};

static table_value tv_i(int64_t i)
{
    table_value v = {.i = i};
    return v;
}

static void table_values_round_trip_through_every_width(void **state)
{
    (void)state;
    arena *a = arena_new(0);
    table *t = table_new(a, test_cols, 4);
    nl_error err;
    static const int64_t ints[] = {0, 1, -1, 127, -128, 300, -70000, 5000000000LL, INT64_MAX, INT64_MIN, 42};
    static const uint64_t uints[] = {0, 255, 256, 65536, UINT32_MAX, (uint64_t)UINT32_MAX + 1, UINT64_MAX, 7, 8, 9, 10};
    static const double dbls[] = {0, 1.5, -0.0, 1e300, 2.6089068091508943e-05, 0, 0, 0, 0, 0, 3};
    size_t n = sizeof ints / sizeof ints[0];
    for (size_t i = 0; i < n; i++) {
        table_value row[4] = {tv_i(ints[i])};
        row[1].u = uints[i];
        row[2].d = dbls[i];
        row[3].s = (uint32_t)(i * 1000);
        assert_int_equal(table_append(t, row, &err), 0);
    }
    assert_int_equal(table_rows(t), n);
    for (size_t i = 0; i < n; i++) {
        assert_true(table_i64(t, 0, i) == ints[i]);
        assert_true(table_u64(t, 1, i) == uints[i]);
        assert_memory_equal(&dbls[i], &(double){table_f64(t, 2, i)}, sizeof(double));
        assert_int_equal(table_str(t, 3, i), i * 1000);
        assert_int_equal(table_code(t, 3, i), i);
    }
    int64_t lo, hi;
    table_int_range(t, 0, &lo, &hi);
    assert_true(lo == INT64_MIN && hi == INT64_MAX);
    assert_int_equal(table_dict_size(t, 3), n);
    assert_int_equal(table_dict_id(t, 3, 2), 2000);
    arena_free(a);
}

static void table_spans_segments_and_reads_ranges(void **state)
{
    (void)state;
    arena *a = arena_new(0);
    table *t = table_new(a, test_cols, 4);
    nl_error err;
    size_t n = 3 * TABLE_SEG_ROWS + 123;
    for (size_t i = 0; i < n; i++) {
        table_value row[4] = {tv_i(1000000 + (int64_t)i * 7 - (i % 3 ? 0 : 5000))};
        row[1].u = i % 1000 == 999 ? (uint64_t)1 << 40 : i % 5;
        row[2].d = (double)i / 4;
        row[3].s = (uint32_t)(i % 17);
        assert_int_equal(table_append(t, row, &err), 0);
    }
    table_value *out = malloc(n * sizeof *out);
    table_read(t, 0, 0, n, out);
    for (size_t i = 0; i < n; i++)
        assert_true(out[i].i == 1000000 + (int64_t)i * 7 - (i % 3 ? 0 : 5000));
    table_read(t, 1, TABLE_SEG_ROWS - 5, 10, out); /* across a segment boundary */
    for (size_t i = 0; i < 10; i++) {
        size_t r = TABLE_SEG_ROWS - 5 + i;
        assert_true(out[i].u == (r % 1000 == 999 ? (uint64_t)1 << 40 : r % 5));
    }
    table_read(t, 3, n - 40, 40, out);
    for (size_t i = 0; i < 40; i++)
        assert_int_equal(out[i].s, (n - 40 + i) % 17);
    table_read(t, 2, 5, 1, out);
    assert_true(out[0].d == 1.25);
    uint32_t *codes = malloc(n * sizeof *codes); /* dictionary codes in ranges, as table_code reads them */
    table_read_codes(t, 3, TABLE_SEG_ROWS - 30, 2 * TABLE_SEG_ROWS + 60, codes);
    for (size_t i = 0; i < 2 * TABLE_SEG_ROWS + 60; i++)
        assert_int_equal(codes[i], table_code(t, 3, TABLE_SEG_ROWS - 30 + i));
    assert_int_equal(codes[30], table_code(t, 3, TABLE_SEG_ROWS));
    table_read_codes(t, 3, n - 1, 1, codes);
    assert_int_equal(table_dict_id(t, 3, codes[0]), (n - 1) % 17);
    free(codes);
    /* small values stay narrow: about 4 bytes per timestamp-like INT cell, 1 per small string code */
    assert_true(table_column_bytes(t, 0) <= 4 * (n + TABLE_SEG_ROWS));
    assert_true(table_column_bytes(t, 3) <= n + TABLE_SEG_ROWS);
    free(out);
    arena_free(a);
}

static void table_shift_moves_every_value_and_refuses_overflow(void **state)
{
    (void)state;
    arena *a = arena_new(0);
    table *t = table_new(a, test_cols, 1);
    nl_error err;
    for (int64_t i = 0; i < 40000; i++)
        assert_int_equal(table_append(t, &(table_value){.i = 1700000000000000000LL + i}, &err), 0);
    assert_int_equal(table_shift(t, 0, -1700000000000000000LL, &err), 0);
    for (size_t i = 0; i < 40000; i += 999)
        assert_int_equal(table_i64(t, 0, i), (int64_t)i);
    int64_t lo, hi;
    table_int_range(t, 0, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 39999);
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(table_shift(t, 0, INT64_MAX, &err), -1);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(table_i64(t, 0, 7), 7); /* unchanged */
    arena_free(a);
}

static void table_append_fails_whole_when_memory_runs_out(void **state)
{
    (void)state;
    /* every allocation site fails in turn: grow the limit byte by byte-ish until 300 rows fit */
    int succeeded = 0;
    for (size_t limit = 0; limit < 60000 && !succeeded; limit += 97) {
        arena *a = arena_new(256);
        arena_set_limit(a, limit);
        table *t = table_new(a, test_cols, 4);
        if (!t) {
            arena_free(a);
            continue;
        }
        nl_error err;
        size_t ok = 0;
        for (size_t i = 0; i < 300; i++) {
            table_value row[4] = {tv_i((int64_t)i * 100000)};
            row[1].u = i;
            row[2].d = 0.5;
            row[3].s = (uint32_t)i;
            memset(&err, 0x5a, sizeof err);
            if (table_append(t, row, &err) != 0) {
                assert_int_equal(err.code, NL_ERR_NOMEM);
                break;
            }
            ok++;
        }
        assert_int_equal(table_rows(t), ok);
        for (size_t i = 0; i < ok; i++) { /* rows that made it are intact */
            assert_int_equal(table_i64(t, 0, i), (int64_t)i * 100000);
            assert_int_equal(table_str(t, 3, i), i);
        }
        succeeded = ok == 300;
        arena_free(a);
    }
    assert_true(succeeded);
}

static void strtab_and_kvlist_fail_with_nomem_and_stay_usable(void **state)
{
    (void)state;
    for (size_t limit = 0; limit < 20000; limit += 61) {
        arena *a = arena_new(512);
        arena_set_limit(a, limit);
        strtab *t = strtab_new(a);
        kvlist *l = t ? kvlist_new(a, t) : NULL;
        if (!l) {
            arena_free(a);
            continue;
        }
        nl_error err;
        char key[32];
        int i;
        for (i = 0; i < 200; i++) {
            uint32_t id;
            int n = snprintf(key, sizeof key, "key_%d", i);
            if (strtab_intern(t, key, (size_t)n, &id, &err) != 0) {
                assert_int_equal(err.code, NL_ERR_NOMEM);
                break;
            }
            kvlist_entry e = {.key = id, .kind = KVLIST_INT, .i = i, .num = i};
            if (kvlist_set(l, &e, &err) != 0) {
                assert_int_equal(err.code, NL_ERR_NOMEM);
                break;
            }
        }
        for (int k = 0; k < i; k++) {
            int64_t v;
            snprintf(key, sizeof key, "key_%d", k);
            assert_true(kvlist_get_i64(l, key, &v));
            assert_int_equal(v, k);
        }
        arena_free(a);
    }
}

/* ---- kvlist ------------------------------------------------------------------------------------------- */

static void kvlist_replaces_duplicates_and_converts_on_request(void **state)
{
    (void)state;
    arena *a = arena_new(0);
    strtab *t = strtab_new(a);
    kvlist *l = kvlist_new(a, t);
    nl_error err;
    uint32_t k1, k2, k3, text;
    assert_int_equal(strtab_intern(t, "cycles", 6, &k1, &err), 0);
    assert_int_equal(strtab_intern(t, "ratio", 5, &k2, &err), 0);
    assert_int_equal(strtab_intern(t, "name", 4, &k3, &err), 0);
    assert_int_equal(strtab_intern(t, "x", 1, &text, &err), 0);
    assert_int_equal(kvlist_set(l, &(kvlist_entry){.key = k1, .kind = KVLIST_INT, .i = 1, .num = 1}, &err), 0);
    assert_int_equal(kvlist_set(l, &(kvlist_entry){.key = k2, .kind = KVLIST_DOUBLE, .num = 2.0}, &err), 0);
    assert_int_equal(kvlist_set(l, &(kvlist_entry){.key = k3, .kind = KVLIST_STRING, .text = text}, &err), 0);
    assert_int_equal(kvlist_set(l, &(kvlist_entry){.key = k1, .kind = KVLIST_INT, .i = 5, .num = 5}, &err), 0);
    assert_int_equal(kvlist_count(l), 3);
    assert_string_equal(kvlist_key_str(l, kvlist_at(l, 0)), "cycles");
    int64_t i;
    double d;
    const char *s;
    assert_true(kvlist_get_i64(l, "cycles", &i) && i == 5);
    assert_true(kvlist_get_i64(l, "ratio", &i) && i == 2); /* integral double */
    assert_true(kvlist_get_num(l, "cycles", &d) && d == 5);
    assert_false(kvlist_get_num(l, "name", &d));
    assert_true(kvlist_get_str(l, "name", &s));
    assert_string_equal(s, "x");
    assert_false(kvlist_get_str(l, "cycles", &s));
    assert_false(kvlist_get_i64(l, "absent", &i));
    assert_null(kvlist_at(l, 3));
    arena_free(a);
}

/* ---- device_model ------------------------------------------------------------------------------------- */

static void device_model_finish_shifts_times_by_first_hw_timestamp(void **state)
{
    (void)state;
    nl_error err;
    device_model *m = device_model_new(&err);
    assert_non_null(m);
    table_value row[DM_INSTR_NCOLS] = {0};
    row[DM_INSTR_TIMESTAMP].i = 5000;
    row[DM_INSTR_DURATION].i = 10;
    assert_int_equal(device_model_append(m, DEVICE_MODEL_INSTRUCTIONS, row, &err), 0);
    kvlist *meta = device_model_record_mut(m, DEVICE_MODEL_METADATA, &err);
    uint32_t key;
    assert_int_equal(device_model_intern(m, "first_hw_timestamp", 18, &key, &err), 0);
    assert_int_equal(kvlist_set(meta, &(kvlist_entry){.key = key, .kind = KVLIST_INT, .i = 4000}, &err), 0);
    assert_int_equal(device_model_finish(m, &err), 0);
    assert_int_equal(device_model_finish(m, &err), 0); /* idempotent */
    device_model_instr in;
    device_model_instr_get(m, 0, &in);
    assert_int_equal(in.timestamp_ns, 1000);
    assert_int_equal(in.duration_ns, 10);
    assert_int_equal(device_model_time_origin(m, NULL), 4000);
    assert_string_equal(device_model_table_name(DEVICE_MODEL_DMA), "dma");
    assert_string_equal(device_model_record_name(DEVICE_MODEL_NEFF_HEADER), "neff_header");
    assert_true(device_model_bytes(m) > 0);
    device_model_free(m);
    device_model_free(NULL);
}

static void device_model_notes_add_up_and_cap(void **state)
{
    (void)state;
    nl_error err;
    device_model *m = device_model_new(&err);
    uint32_t a, b;
    assert_int_equal(device_model_intern(m, "ham", 3, &a, &err), 0);
    assert_int_equal(device_model_intern(m, "instruction", 11, &b, &err), 0);
    assert_int_equal(device_model_add_note(m, DEVICE_MODEL_NOTE_ARRAY_SKIPPED, 0, a, 4, &err), 0);
    assert_int_equal(device_model_add_note(m, DEVICE_MODEL_NOTE_ARRAY_SKIPPED, 0, a, 2, &err), 0);
    assert_int_equal(device_model_add_note(m, DEVICE_MODEL_NOTE_UNKNOWN_KEY, b, a, 1, &err), 0);
    assert_int_equal(device_model_note_count(m), 2);
    assert_int_equal(device_model_note_at(m, 0)->count, 6);
    for (uint32_t i = 0; i < DEVICE_MODEL_NOTES_MAX + 100; i++) {
        char name[32];
        uint32_t id;
        int n = snprintf(name, sizeof name, "k%u", i);
        assert_int_equal(device_model_intern(m, name, (size_t)n, &id, &err), 0);
        assert_int_equal(device_model_add_note(m, DEVICE_MODEL_NOTE_UNKNOWN_KEY, b, id, 1, &err), 0);
    }
    assert_true(device_model_note_count(m) <= DEVICE_MODEL_NOTES_MAX + 1);
    const device_model_note *last = device_model_note_at(m, device_model_note_count(m) - 1);
    assert_string_equal(device_model_str(m, last->name, NULL), "(other)");
    assert_true(last->count >= 100);
    device_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_pointers_are_aligned_and_distinct),
        cmocka_unit_test(arena_limit_makes_allocation_fail_without_damage),
        cmocka_unit_test(strtab_gives_equal_strings_one_id),
        cmocka_unit_test(table_values_round_trip_through_every_width),
        cmocka_unit_test(table_spans_segments_and_reads_ranges),
        cmocka_unit_test(table_shift_moves_every_value_and_refuses_overflow),
        cmocka_unit_test(table_append_fails_whole_when_memory_runs_out),
        cmocka_unit_test(strtab_and_kvlist_fail_with_nomem_and_stay_usable),
        cmocka_unit_test(kvlist_replaces_duplicates_and_converts_on_request),
        cmocka_unit_test(device_model_finish_shifts_times_by_first_hw_timestamp),
        cmocka_unit_test(device_model_notes_add_up_and_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
