/* test_thrift_compact — the Thrift compact-protocol cursor behind the Parquet footer and page headers, on
 * hand-built byte vectors: field headers (delta and long form), every scalar type, lists with short and long
 * counts, booleans in headers and in lists, skipping unknown fields of every type including structs nested
 * in lists in maps, the depth cap, and every malformed input (truncation at each byte, overlong varints,
 * out-of-range i16/i32, invalid type nibbles, counts larger than the bytes left). Each failure is checked for
 * code, source and absolute offset on a poisoned error struct. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "thrift_compact.h"

#define SRC "footer.bin"
#define BASE 1000 /* the buffer's absolute offset: errors add it */

static void poison(nl_error *e)
{
    memset(e, 0x5a, sizeof *e);
    e->source[sizeof e->source - 1] = '\0';
    e->message[sizeof e->message - 1] = '\0';
}

static void assert_error(const nl_error *e, nl_error_code code, int64_t offset)
{
    if (e->code != code || e->offset != offset)
        print_message("got %s at %lld: %s\n", nl_error_code_name(e->code), (long long)e->offset, e->message);
    assert_int_equal(e->code, code);
    assert_string_equal(e->source, SRC);
    assert_int_equal(e->offset, offset);
    assert_true(strlen(e->message) > 0);
}

static void init(thrift_reader *r, const uint8_t *b, size_t n, nl_error *e)
{
    poison(e);
    thrift_init(r, b, n, BASE, SRC, e);
}

/* struct { 1: i32 -3, 2: i64 300, 5: binary "ab", 20: i16 7 (long form), 21: bool true, 22: double 1.5 } */
static const uint8_t STRUCT1[] = {
    0x15, 0x05,                   /* field 1 (delta 1), i32, zigzag(-3) = 5 */
    0x16, 0xd8, 0x04,             /* field 2, i64, zigzag(300) = 600 = 0xd8 0x04 */
    0x38, 0x02, 'a', 'b',         /* field 5 (delta 3), binary, length 2 */
    0x04, 0x28, 0x0e,             /* long form: type i16, field id zigzag(20) = 40, value zigzag(7) = 14 */
    0x11,                         /* field 21 (delta 1), bool true */
    0x17, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, /* field 22, double 1.5 little-endian */
    0x00,                         /* STOP */
};

static void struct_fields_decode_with_delta_and_long_ids(void **state)
{
    (void)state;
    thrift_reader r;
    nl_error e;
    thrift_field f;
    init(&r, STRUCT1, sizeof STRUCT1, &e);
    assert_int_equal(thrift_struct_begin(&r), 0);
    int32_t i32;
    int64_t i64;
    int16_t i16;
    double d;
    const uint8_t *p;
    uint32_t len;
    assert_int_equal(thrift_field_next(&r, &f), 1);
    assert_int_equal(f.id, 1);
    assert_int_equal(f.type, THRIFT_I32);
    assert_int_equal(f.offset, BASE);
    assert_int_equal(thrift_read_i32(&r, &i32), 0);
    assert_int_equal(i32, -3);
    assert_int_equal(thrift_field_next(&r, &f), 1);
    assert_int_equal(f.id, 2);
    assert_int_equal(thrift_read_i64(&r, &i64), 0);
    assert_int_equal(i64, 300);
    assert_int_equal(thrift_field_next(&r, &f), 1);
    assert_int_equal(f.id, 5);
    assert_int_equal(thrift_read_binary(&r, &p, &len), 0);
    assert_int_equal(len, 2);
    assert_memory_equal(p, "ab", 2);
    assert_int_equal(thrift_field_next(&r, &f), 1);
    assert_int_equal(f.id, 20);
    assert_int_equal(f.type, THRIFT_I16);
    assert_int_equal(thrift_read_i16(&r, &i16), 0);
    assert_int_equal(i16, 7);
    assert_int_equal(thrift_field_next(&r, &f), 1);
    assert_int_equal(f.id, 21);
    assert_int_equal(f.type, THRIFT_TRUE);
    assert_int_equal(thrift_field_next(&r, &f), 1);
    assert_int_equal(f.id, 22);
    assert_int_equal(thrift_read_double(&r, &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(thrift_field_next(&r, &f), 0);
    assert_int_equal(r.depth, 0);
    assert_int_equal(r.pos, sizeof STRUCT1);
}

static void skip_walks_every_field_type(void **state)
{
    (void)state;
    thrift_reader r;
    nl_error e;
    thrift_field f;
    init(&r, STRUCT1, sizeof STRUCT1, &e);
    assert_int_equal(thrift_struct_begin(&r), 0);
    int fields = 0;
    int rc;
    while ((rc = thrift_field_next(&r, &f)) > 0) {
        assert_int_equal(thrift_skip(&r, f.type), 0);
        fields++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(fields, 6);
    assert_int_equal(r.pos, sizeof STRUCT1);
}

/* struct { 1: map<i32, list<struct{1: i8, 2: set<bool>}>> {5: [{1: -1, 2: {true, false}}]}, 2: i32 9 } */
static const uint8_t NESTED[] = {
    0x1b,       /* field 1, map */
    0x01,       /* 1 pair */
    0x59,       /* key i32 (5), value list (9) */
    0x0a,       /* key: zigzag(5) = 10 */
    0x1c,       /* value: list of 1 struct */
    0x13, 0xff, /* field 1, i8 -1 */
    0x1a, 0x21, 0x01, 0x02, /* field 2, set of 2 bools (elem type 1): true, false */
    0x00,       /* end of the struct */
    0x15, 0x12, /* field 2, i32 zigzag(9) = 18 */
    0x00,
};

static void skip_handles_structs_in_lists_in_maps(void **state)
{
    (void)state;
    thrift_reader r;
    nl_error e;
    thrift_field f;
    init(&r, NESTED, sizeof NESTED, &e);
    assert_int_equal(thrift_struct_begin(&r), 0);
    assert_int_equal(thrift_field_next(&r, &f), 1);
    assert_int_equal(f.type, THRIFT_MAP);
    assert_int_equal(thrift_skip(&r, f.type), 0);
    assert_int_equal(thrift_field_next(&r, &f), 1);
    assert_int_equal(f.id, 2);
    int32_t v;
    assert_int_equal(thrift_read_i32(&r, &v), 0);
    assert_int_equal(v, 9);
    assert_int_equal(thrift_field_next(&r, &f), 0);
}

static void skip_of_every_prefix_is_truncated_never_past_the_end(void **state)
{
    (void)state;
    for (size_t n = 0; n < sizeof NESTED; n++) {
        thrift_reader r;
        nl_error e;
        init(&r, NESTED, n, &e);
        int rc = thrift_struct_begin(&r);
        assert_int_equal(rc, 0);
        thrift_field f;
        while ((rc = thrift_field_next(&r, &f)) > 0)
            if ((rc = thrift_skip(&r, f.type)) != 0)
                break;
        assert_int_equal(rc, -1);
        assert_int_equal(e.code, NL_ERR_TRUNCATED);
        assert_true(e.offset >= BASE && e.offset <= BASE + (int64_t)n);
        assert_true(r.pos <= n);
    }
}

static void list_headers_short_and_long_counts(void **state)
{
    (void)state;
    /* list<i32> of 3: [1, -1, 2]; list<binary> of 16 (long count): each "" */
    uint8_t b[64] = {0x35, 0x02, 0x01, 0x04, 0xf8, 0x10};
    size_t n = 6;
    for (int i = 0; i < 16; i++)
        b[n++] = 0x00;
    thrift_reader r;
    nl_error e;
    init(&r, b, n, &e);
    uint8_t t;
    uint32_t count;
    assert_int_equal(thrift_list_begin(&r, &t, &count), 0);
    assert_int_equal(t, THRIFT_I32);
    assert_int_equal(count, 3);
    int32_t v[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(thrift_read_i32(&r, &v[i]), 0);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], -1);
    assert_int_equal(v[2], 2);
    assert_int_equal(thrift_list_begin(&r, &t, &count), 0);
    assert_int_equal(t, THRIFT_BINARY);
    assert_int_equal(count, 16);
    for (int i = 0; i < 16; i++) {
        const uint8_t *p;
        uint32_t len;
        assert_int_equal(thrift_read_binary(&r, &p, &len), 0);
        assert_int_equal(len, 0);
    }
    assert_int_equal(r.pos, n);
}

static void list_count_beyond_the_bytes_left_is_refused_before_reading(void **state)
{
    (void)state;
    const uint8_t b[] = {0x00, 0xf5, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01}; /* list<i32> claiming 2^32-1 */
    thrift_reader r;
    nl_error e;
    init(&r, b, sizeof b, &e);
    r.pos = 1;
    uint8_t t;
    uint32_t count = 77;
    assert_int_equal(thrift_list_begin(&r, &t, &count), -1);
    assert_error(&e, NL_ERR_TRUNCATED, BASE + 1);
    assert_int_equal(count, 77);
    assert_int_equal(r.pos, 1);
}

static void bool_list_elements_are_bytes(void **state)
{
    (void)state;
    const uint8_t b[] = {0x31, 0x01, 0x02, 0x00, 0x03};
    thrift_reader r;
    nl_error e;
    init(&r, b, sizeof b, &e);
    uint8_t t;
    uint32_t count;
    bool v;
    assert_int_equal(thrift_list_begin(&r, &t, &count), 0);
    assert_int_equal(count, 3);
    assert_int_equal(thrift_read_bool_element(&r, &v), 0);
    assert_true(v);
    assert_int_equal(thrift_read_bool_element(&r, &v), 0);
    assert_false(v);
    assert_int_equal(thrift_read_bool_element(&r, &v), 0);
    assert_false(v);
    assert_int_equal(thrift_read_bool_element(&r, &v), -1);
    assert_error(&e, NL_ERR_FORMAT, BASE + 4);
}

static void varints_longer_than_ten_bytes_or_above_64_bits_fail(void **state)
{
    (void)state;
    const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    const uint8_t wide[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    const uint8_t max[] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    thrift_reader r;
    nl_error e;
    int64_t v;
    init(&r, eleven, sizeof eleven, &e);
    assert_int_equal(thrift_read_i64(&r, &v), -1);
    assert_error(&e, NL_ERR_FORMAT, BASE);
    init(&r, wide, sizeof wide, &e);
    assert_int_equal(thrift_read_i64(&r, &v), -1);
    assert_error(&e, NL_ERR_FORMAT, BASE);
    init(&r, max, sizeof max, &e);
    assert_int_equal(thrift_read_i64(&r, &v), 0);
    assert_int_equal(v, INT64_MAX);
}

static void i32_and_i16_out_of_range_fail_at_their_first_byte(void **state)
{
    (void)state;
    const uint8_t big32[] = {0x80, 0x80, 0x80, 0x80, 0x10}; /* 2^32 */
    const uint8_t big16[] = {0x80, 0x80, 0x04};             /* 2^16 */
    thrift_reader r;
    nl_error e;
    int32_t v32;
    int16_t v16;
    init(&r, big32, sizeof big32, &e);
    assert_int_equal(thrift_read_i32(&r, &v32), -1);
    assert_error(&e, NL_ERR_FORMAT, BASE);
    assert_int_equal(r.pos, 0);
    init(&r, big16, sizeof big16, &e);
    assert_int_equal(thrift_read_i16(&r, &v16), -1);
    assert_error(&e, NL_ERR_FORMAT, BASE);
}

static void invalid_type_nibbles_are_format_errors(void **state)
{
    (void)state;
    const uint8_t field13[] = {0x1d};       /* field 1 of type 13 */
    const uint8_t list0[] = {0x10};         /* list of type 0 */
    const uint8_t map_bad[] = {0x02, 0xf5}; /* map claiming 2 pairs in 1 byte */
    thrift_reader r;
    nl_error e;
    thrift_field f;
    init(&r, field13, sizeof field13, &e);
    assert_int_equal(thrift_struct_begin(&r), 0);
    assert_int_equal(thrift_field_next(&r, &f), -1);
    assert_error(&e, NL_ERR_FORMAT, BASE);
    init(&r, list0, sizeof list0, &e);
    assert_int_equal(thrift_skip(&r, THRIFT_LIST), -1);
    assert_error(&e, NL_ERR_FORMAT, BASE);
    uint8_t padded[8] = {0x01, 0xf5, 0, 0, 0, 0, 0, 0};
    init(&r, padded, sizeof padded, &e);
    assert_int_equal(thrift_skip(&r, THRIFT_MAP), -1);
    assert_error(&e, NL_ERR_FORMAT, BASE);
    init(&r, map_bad, sizeof map_bad, &e);
    assert_int_equal(thrift_skip(&r, THRIFT_MAP), -1);
    assert_error(&e, NL_ERR_TRUNCATED, BASE); /* 2 pairs need at least 4 bytes after the count */
}

static void binary_length_past_the_end_is_truncated(void **state)
{
    (void)state;
    const uint8_t b[] = {0x05, 'a', 'b'};
    thrift_reader r;
    nl_error e;
    const uint8_t *p;
    uint32_t len;
    init(&r, b, sizeof b, &e);
    assert_int_equal(thrift_read_binary(&r, &p, &len), -1);
    assert_error(&e, NL_ERR_TRUNCATED, BASE);
    assert_int_equal(r.pos, 0);
}

static void nesting_beyond_the_cap_is_a_limit_error(void **state)
{
    (void)state;
    uint8_t b[2 * THRIFT_DEPTH_MAX + 8];
    size_t n = 0;
    for (int i = 0; i < THRIFT_DEPTH_MAX + 2; i++)
        b[n++] = 0x1c; /* field 1: struct */
    thrift_reader r;
    nl_error e;
    init(&r, b, n, &e);
    assert_int_equal(thrift_skip(&r, THRIFT_STRUCT), -1);
    assert_int_equal(e.code, NL_ERR_LIMIT);
    assert_string_equal(e.source, SRC);
    assert_true(e.offset > BASE && e.offset < BASE + (int64_t)n);
    /* entering structs one by one hits the same cap */
    init(&r, b, n, &e);
    int rc = 0;
    for (int i = 0; i <= THRIFT_DEPTH_MAX && rc == 0; i++)
        rc = thrift_struct_begin(&r);
    assert_int_equal(rc, -1);
    assert_int_equal(e.code, NL_ERR_LIMIT);
}

static void wrong_type_names_struct_field_and_offset(void **state)
{
    (void)state;
    const uint8_t b[] = {0x00, 0x00, 0x18, 0x00};
    thrift_reader r;
    nl_error e;
    thrift_field f;
    init(&r, b, sizeof b, &e);
    r.pos = 2;
    assert_int_equal(thrift_struct_begin(&r), 0);
    assert_int_equal(thrift_field_next(&r, &f), 1);
    assert_int_equal(thrift_wrong_type(&r, &f, "ColumnMetaData", "num_values", "i64"), -1);
    assert_error(&e, NL_ERR_FORMAT, BASE + 2);
    assert_non_null(strstr(e.message, "ColumnMetaData.num_values"));
    assert_non_null(strstr(e.message, "binary"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(struct_fields_decode_with_delta_and_long_ids),
        cmocka_unit_test(skip_walks_every_field_type),
        cmocka_unit_test(skip_handles_structs_in_lists_in_maps),
        cmocka_unit_test(skip_of_every_prefix_is_truncated_never_past_the_end),
        cmocka_unit_test(list_headers_short_and_long_counts),
        cmocka_unit_test(list_count_beyond_the_bytes_left_is_refused_before_reading),
        cmocka_unit_test(bool_list_elements_are_bytes),
        cmocka_unit_test(varints_longer_than_ten_bytes_or_above_64_bits_fail),
        cmocka_unit_test(i32_and_i16_out_of_range_fail_at_their_first_byte),
        cmocka_unit_test(invalid_type_nibbles_are_format_errors),
        cmocka_unit_test(binary_length_past_the_end_is_truncated),
        cmocka_unit_test(nesting_beyond_the_cap_is_a_limit_error),
        cmocka_unit_test(wrong_type_names_struct_field_and_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
