/* test_pbwire — the hand-written protobuf wire reader: varints (1..10 bytes, overflow, truncation),
 * field iteration, wire types, nested offsets, and the sniffing heuristic. Every failing call is checked
 * for code, source and absolute offset on an error struct poisoned beforehand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pbwire.h"

#define SRC "mem.pb"

static void poison(nl_error *e)
{
    memset(e, 0x5a, sizeof *e);
    e->source[sizeof e->source - 1] = '\0';
    e->message[sizeof e->message - 1] = '\0';
}

static void assert_error(const nl_error *e, nl_error_code code, int64_t offset)
{
    assert_int_equal(e->code, code);
    assert_string_equal(e->source, SRC);
    assert_int_equal(e->offset, offset);
    assert_true(strlen(e->message) > 0);
}

static int varint(const uint8_t *b, size_t n, size_t *pos, uint64_t *v, nl_error *e)
{
    return pbwire_read_varint(b, n, pos, v, 100, SRC, e);
}

static void varint_decodes_one_and_two_byte_values(void **state)
{
    (void)state;
    const uint8_t b[] = {0x00, 0x01, 0x7f, 0xac, 0x02};
    size_t pos = 0;
    uint64_t v;
    nl_error e;
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), 0);
    assert_int_equal(v, 0);
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), 0);
    assert_int_equal(v, 1);
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), 0);
    assert_int_equal(v, 127);
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), 0);
    assert_int_equal(v, 300);
    assert_int_equal(pos, sizeof b);
}

static void varint_accepts_ten_byte_uint64_max(void **state)
{
    (void)state;
    const uint8_t b[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    size_t pos = 0;
    uint64_t v = 0;
    nl_error e;
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), 0);
    assert_true(v == UINT64_MAX);
    assert_int_equal(pos, 10);
}

static void varint_accepts_non_minimal_ten_byte_zero(void **state)
{
    (void)state;
    const uint8_t b[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    size_t pos = 0;
    uint64_t v = 1;
    nl_error e;
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), 0);
    assert_int_equal(v, 0);
}

static void varint_tenth_byte_over_one_is_overflow(void **state)
{
    (void)state;
    const uint8_t b[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    size_t pos = 0;
    uint64_t v = 42;
    nl_error e;
    poison(&e);
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 100 + 9);
    assert_int_equal(pos, 0);
    assert_int_equal(v, 42);
}

static void varint_eleven_bytes_is_overflow(void **state)
{
    (void)state;
    const uint8_t b[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    size_t pos = 0;
    uint64_t v;
    nl_error e;
    poison(&e);
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 100 + 9);
}

static void varint_truncated_reports_end_offset(void **state)
{
    (void)state;
    const uint8_t b[] = {0x05, 0x80, 0x80};
    size_t pos = 1;
    uint64_t v;
    nl_error e;
    poison(&e);
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), -1);
    assert_error(&e, NL_ERR_TRUNCATED, 100 + 3);
    assert_int_equal(pos, 1);

    pos = 3; /* empty remainder */
    poison(&e);
    assert_int_equal(varint(b, sizeof b, &pos, &v, &e), -1);
    assert_error(&e, NL_ERR_TRUNCATED, 100 + 3);
}

static void next_reads_every_wire_type(void **state)
{
    (void)state;
    const uint8_t b[] = {
        0x08, 0x96, 0x01,                                     /* f1 varint 150 */
        0x12, 0x03, 'a', 'b', 'c',                            /* f2 LEN "abc" */
        0x19, 1, 2, 3, 4, 5, 6, 7, 8,                         /* f3 fixed64 */
        0x25, 0x78, 0x56, 0x34, 0x12,                         /* f4 fixed32 */
        0x80, 0x01, 0x07,                                     /* f16 varint 7 (2-byte tag) */
    };
    pbwire_reader r;
    pbwire_init(&r, b, sizeof b, 1000, SRC);
    pbwire_field f;
    nl_error e;
    assert_int_equal(pbwire_next(&r, &f, &e), 0);
    assert_int_equal(f.number, 1);
    assert_int_equal(f.type, PBWIRE_VARINT);
    assert_int_equal(f.value, 150);
    assert_int_equal(f.offset, 1000);
    assert_int_equal(pbwire_next(&r, &f, &e), 0);
    assert_int_equal(f.number, 2);
    assert_int_equal(f.type, PBWIRE_LEN);
    assert_int_equal(f.len, 3);
    assert_memory_equal(f.data, "abc", 3);
    assert_int_equal(f.offset, 1003);
    assert_int_equal(f.data_offset, 1005);
    assert_int_equal(pbwire_next(&r, &f, &e), 0);
    assert_int_equal(f.type, PBWIRE_FIXED64);
    assert_true(f.value == 0x0807060504030201ull);
    assert_int_equal(pbwire_next(&r, &f, &e), 0);
    assert_int_equal(f.type, PBWIRE_FIXED32);
    assert_int_equal(f.value, 0x12345678);
    assert_int_equal(pbwire_next(&r, &f, &e), 0);
    assert_int_equal(f.number, 16);
    assert_int_equal(f.value, 7);
    assert_true(pbwire_done(&r));
}

static void next_len_past_end_reports_length_offset(void **state)
{
    (void)state;
    const uint8_t b[] = {0x08, 0x01, 0x0a, 0x10, 'x', 'y'};
    pbwire_reader r;
    pbwire_init(&r, b, sizeof b, 128, SRC);
    pbwire_field f;
    nl_error e;
    assert_int_equal(pbwire_next(&r, &f, &e), 0);
    poison(&e);
    assert_int_equal(pbwire_next(&r, &f, &e), -1);
    assert_error(&e, NL_ERR_TRUNCATED, 128 + 3); /* the length varint 0x10 */
    assert_int_equal(r.pos, 2);                  /* the reader did not advance */
}

static void next_truncated_fixed_reports_value_offset(void **state)
{
    (void)state;
    const uint8_t b[] = {0x09, 1, 2, 3};
    pbwire_reader r;
    pbwire_init(&r, b, sizeof b, 0, SRC);
    pbwire_field f;
    nl_error e;
    poison(&e);
    assert_int_equal(pbwire_next(&r, &f, &e), -1);
    assert_error(&e, NL_ERR_TRUNCATED, 1);
}

static void next_rejects_field_zero_groups_and_bad_wire_types(void **state)
{
    (void)state;
    const uint8_t cases[][2] = {{0x00, 0x01}, {0x0b, 0x00}, {0x0c, 0x00}, {0x0e, 0x00}, {0x0f, 0x00}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pbwire_reader r;
        pbwire_init(&r, cases[i], 2, 50, SRC);
        pbwire_field f;
        nl_error e;
        poison(&e);
        assert_int_equal(pbwire_next(&r, &f, &e), -1);
        assert_error(&e, NL_ERR_FORMAT, 50);
    }
}

static void next_tag_overflow_is_format_error(void **state)
{
    (void)state;
    const uint8_t b[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    pbwire_reader r;
    pbwire_init(&r, b, sizeof b, 0, SRC);
    pbwire_field f;
    nl_error e;
    poison(&e);
    assert_int_equal(pbwire_next(&r, &f, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 9);
}

static void sub_reader_keeps_absolute_offsets(void **state)
{
    (void)state;
    const uint8_t b[] = {0x08, 0x01, 0x42, 0x04, 0x08, 0x02, 0x12, 0x05}; /* f8 {f1=2, f2 LEN 5 (short)} */
    pbwire_reader r, sub;
    pbwire_init(&r, b, sizeof b, 128, SRC);
    pbwire_field f;
    nl_error e;
    assert_int_equal(pbwire_next(&r, &f, &e), 0);
    assert_int_equal(pbwire_next(&r, &f, &e), 0);
    assert_int_equal(f.number, 8);
    pbwire_init_sub(&sub, &r, &f);
    assert_int_equal(pbwire_next(&sub, &f, &e), 0);
    assert_int_equal(f.offset, 128 + 4);
    poison(&e);
    assert_int_equal(pbwire_next(&sub, &f, &e), -1);
    assert_error(&e, NL_ERR_TRUNCATED, 128 + 7);
}

static void empty_buffer_is_done(void **state)
{
    (void)state;
    pbwire_reader r;
    pbwire_init(&r, NULL, 10, 0, SRC);
    assert_true(pbwire_done(&r));
}

static void plausible_accepts_messages_and_cut_windows(void **state)
{
    (void)state;
    const uint8_t msg[] = {0x08, 0x02, 0x10, 0x87, 0xc6, 0x2b, 0x22, 0x03, 'a', 'b', 'c'};
    assert_true(pbwire_plausible(msg, sizeof msg, true, 2));
    assert_false(pbwire_plausible(msg, 8, true, 2)); /* cut inside f4 but claimed complete */
    assert_true(pbwire_plausible(msg, 8, false, 2)); /* a window of a longer message */
    const uint8_t ntff_v5[] = {0x05, 0x7b, 0x5c, 0x00};
    assert_false(pbwire_plausible(ntff_v5, sizeof ntff_v5, false, 1)); /* field number 0 */
    const uint8_t text[] = "# README";
    assert_false(pbwire_plausible(text, 8, false, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(varint_decodes_one_and_two_byte_values),
        cmocka_unit_test(varint_accepts_ten_byte_uint64_max),
        cmocka_unit_test(varint_accepts_non_minimal_ten_byte_zero),
        cmocka_unit_test(varint_tenth_byte_over_one_is_overflow),
        cmocka_unit_test(varint_eleven_bytes_is_overflow),
        cmocka_unit_test(varint_truncated_reports_end_offset),
        cmocka_unit_test(next_reads_every_wire_type),
        cmocka_unit_test(next_len_past_end_reports_length_offset),
        cmocka_unit_test(next_truncated_fixed_reports_value_offset),
        cmocka_unit_test(next_rejects_field_zero_groups_and_bad_wire_types),
        cmocka_unit_test(next_tag_overflow_is_format_error),
        cmocka_unit_test(sub_reader_keeps_absolute_offsets),
        cmocka_unit_test(empty_buffer_is_done),
        cmocka_unit_test(plausible_accepts_messages_and_cut_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
