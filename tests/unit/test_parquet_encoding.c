/* test_parquet_encoding — the Parquet value and level decoders (analyzers/readers/parquet_encoding.c):
 * hand-computed vectors (the examples of the Parquet encoding spec, worked out bit by bit in the comments),
 * round trips through small reference encoders written here from the spec (RLE / bit-packed hybrid at every
 * bit width 0..32 and edge lengths, DELTA_BINARY_PACKED for INT32 and INT64 at extreme values), and every
 * malformed input the decoders reject, with the error code and byte position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet_encoding.h"

/* ---- a byte buffer and reference encoders ------------------------------------------------------------ */

typedef struct buf {
    uint8_t b[1 << 16];
    size_t n;
} buf;

static void put(buf *o, uint8_t v)
{
    assert_true(o->n < sizeof o->b);
    o->b[o->n++] = v;
}

static void put_varint(buf *o, uint64_t v)
{
    while (v >= 0x80) {
        put(o, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    put(o, (uint8_t)v);
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* Append `count` values of `bw` bits, LSB first, padded to whole bytes. */
static void put_packed(buf *o, const uint64_t *v, size_t count, unsigned bw)
{
    size_t bits = count * bw, start = o->n;
    for (size_t i = 0; i < (bits + 7) / 8; i++)
        put(o, 0);
    for (size_t i = 0; i < count; i++)
        for (unsigned k = 0; k < bw; k++)
            if ((v[i] >> k) & 1)
                o->b[start + (i * bw + k) / 8] |= (uint8_t)(1u << ((i * bw + k) % 8));
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* RLE hybrid from the spec: alternate runs of one value and bit-packed groups of 8 (the last padded). */
static void encode_rle(buf *o, const uint32_t *v, size_t n, unsigned bw)
{
    size_t i = 0;
    int packed = 0;
    while (i < n) {
        size_t left = n - i;
        if (!packed) { /* a run of the current value as long as it repeats */
            size_t r = 1;
            while (i + r < n && v[i + r] == v[i])
                r++;
            put_varint(o, (uint64_t)r << 1);
            for (unsigned k = 0; k < (bw + 7) / 8; k++)
                put(o, (uint8_t)(v[i] >> (8 * k)));
            i += r;
        } else {
            size_t groups = (left < 24 ? left : 24) / 8 + ((left < 24 ? left : 24) % 8 != 0);
            uint64_t tmp[24] = {0};
            size_t take = left < groups * 8 ? left : groups * 8;
            for (size_t k = 0; k < take; k++)
                tmp[k] = v[i + k];
            put_varint(o, (uint64_t)groups << 1 | 1);
            put_packed(o, tmp, groups * 8, bw);
            i += take;
        }
        packed = !packed;
    }
}

/* DELTA_BINARY_PACKED from the spec; bits 32 wraps deltas at 32 bits like parquet-mr. */
static void encode_delta(buf *o, const int64_t *v, size_t n, unsigned bits, size_t block, size_t minis)
{
    put_varint(o, block);
    put_varint(o, minis);
    put_varint(o, n);
    put_varint(o, zigzag(n ? v[0] : 0));
    size_t per = block / minis;
    for (size_t i = 1; i < n; i += block) {
        size_t m = n - i < block ? n - i : block;
        int64_t d[4096];
        assert_true(block <= 4096);
        int64_t min = INT64_MAX;
        for (size_t k = 0; k < m; k++) {
            uint64_t delta = (uint64_t)v[i + k] - (uint64_t)v[i + k - 1];
            d[k] = bits == 32 ? (int64_t)(int32_t)(uint32_t)delta : (int64_t)delta;
            if (d[k] < min)
                min = d[k];
        }
        put_varint(o, zigzag(min));
        size_t wpos = o->n;
        for (size_t k = 0; k < minis; k++)
            put(o, 0);
        for (size_t mb = 0; mb * per < m; mb++) {
            uint64_t rel[4096] = {0}, max = 0;
            for (size_t k = 0; k < per && mb * per + k < m; k++) {
                rel[k] = (uint64_t)d[mb * per + k] - (uint64_t)min;
                if (bits == 32)
                    rel[k] &= 0xffffffffu;
                if (rel[k] > max)
                    max = rel[k];
            }
            unsigned w = parquet_bit_width(max);
            o->b[wpos + mb] = (uint8_t)w;
            put_packed(o, rel, per, w);
        }
    }
}

static void poison(parquet_decode_error *e)
{
    memset(e, 0x5a, sizeof *e);
    e->message[sizeof e->message - 1] = '\0';
}

static void assert_decode_error(const parquet_decode_error *e, nl_error_code code, size_t pos)
{
    if (e->code != code || e->pos != pos)
        print_message("got %s at %zu: %s\n", nl_error_code_name(e->code), e->pos, e->message);
    assert_int_equal(e->code, code);
    assert_int_equal(e->pos, pos);
    assert_true(strlen(e->message) > 0);
}

/* ---- RLE / bit-packed hybrid ------------------------------------------------------------------------- */

static void rle_spec_example_bit_packed_0_to_7(void **state)
{
    (void)state;
    /* spec: 0..7 at 3 bits = 10001000 11000110 11111010; header (1 group << 1) | 1 */
    const uint8_t in[] = {0x03, 0x88, 0xc6, 0xfa};
    uint32_t out[8];
    size_t used;
    parquet_decode_error e;
    assert_int_equal(parquet_rle_decode(in, sizeof in, 3, 8, out, &used, &e), 0);
    for (uint32_t i = 0; i < 8; i++)
        assert_int_equal(out[i], i);
    assert_int_equal(used, 4);
    /* only 5 wanted: the group's last 3 values are dropped, its bytes consumed */
    assert_int_equal(parquet_rle_decode(in, sizeof in, 3, 5, out, &used, &e), 0);
    assert_int_equal(out[4], 4);
    assert_int_equal(used, 4);
}

static void rle_run_and_width_zero(void **state)
{
    (void)state;
    const uint8_t run[] = {0x14, 0x05, 0x04, 0x07}; /* 10 × 5, then 2 × 7 at width 3 */
    const uint8_t zero[] = {0x14, 0x03};            /* width 0: 10 zeros (no value byte), then 1 group */
    uint32_t out[12];
    size_t used;
    parquet_decode_error e;
    assert_int_equal(parquet_rle_decode(run, sizeof run, 3, 12, out, &used, &e), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(out[i], 5);
    assert_int_equal(out[10], 7);
    assert_int_equal(out[11], 7);
    assert_int_equal(used, 4);
    memset(out, 0xff, sizeof out);
    assert_int_equal(parquet_rle_decode(zero, sizeof zero, 0, 12, out, &used, &e), 0);
    for (int i = 0; i < 12; i++)
        assert_int_equal(out[i], 0);
    assert_int_equal(used, 2);
}

static void rle_round_trips_every_width_and_edge_length(void **state)
{
    (void)state;
    static const size_t lengths[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000};
    static buf o;
    static uint32_t v[1000], out[1000 + 8];
    for (unsigned bw = 0; bw <= 32; bw++) {
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            size_t n = lengths[li];
            uint64_t mask = bw == 32 ? 0xffffffffu : ((uint64_t)1 << bw) - 1;
            for (size_t i = 0; i < n; i++) /* runs of repeated values mixed with noise */
                v[i] = (uint32_t)((i % 13 < 5 ? 3u * (i / 13) : rnd()) & mask);
            o.n = 0;
            encode_rle(&o, v, n, bw);
            size_t used = 0;
            parquet_decode_error e;
            memset(out, 0xee, sizeof out);
            assert_int_equal(parquet_rle_decode(o.b, o.n, bw, n, out, &used, &e), 0);
            assert_memory_equal(out, v, n * sizeof *v);
            assert_int_equal(used, o.n);
            assert_int_equal(out[n], 0xeeeeeeeeu); /* nothing written past n */
        }
    }
}

static void rle_rejects_wide_widths_short_data_and_oversized_run_values(void **state)
{
    (void)state;
    uint32_t out[32];
    parquet_decode_error e;
    const uint8_t run[] = {0x14, 0x05};
    poison(&e);
    assert_int_equal(parquet_rle_decode(run, sizeof run, 33, 1, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 0);
    poison(&e);
    assert_int_equal(parquet_rle_decode(run, sizeof run, 3, 11, out, NULL, &e), -1); /* 10 values, 11 wanted */
    assert_decode_error(&e, NL_ERR_TRUNCATED, 2);
    const uint8_t big[] = {0x02, 0x09}; /* value 9 does not fit 3 bits */
    poison(&e);
    assert_int_equal(parquet_rle_decode(big, sizeof big, 3, 1, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 1);
    const uint8_t cut[] = {0x02}; /* run header without its value byte */
    poison(&e);
    assert_int_equal(parquet_rle_decode(cut, sizeof cut, 8, 1, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, 1);
    const uint8_t packed_cut[] = {0x05}; /* 2 bit-packed groups of width 4, no bytes */
    poison(&e);
    assert_int_equal(parquet_rle_decode(packed_cut, sizeof packed_cut, 4, 16, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, 0);
    const uint8_t overlong[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    poison(&e);
    assert_int_equal(parquet_rle_decode(overlong, sizeof overlong, 1, 1, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 0);
}

static void rle_last_group_may_stop_short_of_its_declared_groups(void **state)
{
    (void)state;
    /* header says 3 groups of width 8 (24 bytes), 10 values are wanted and 10 bytes are there */
    uint8_t in[11] = {0x07};
    for (int i = 0; i < 10; i++)
        in[1 + i] = (uint8_t)(i * 3);
    uint32_t out[10];
    size_t used;
    parquet_decode_error e;
    assert_int_equal(parquet_rle_decode(in, sizeof in, 8, 10, out, &used, &e), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(out[i], (uint32_t)(i * 3));
    assert_int_equal(used, 11);
}

static void bit_packed_levels_are_msb_first(void **state)
{
    (void)state;
    /* spec: 0..7 at 3 bits, BIT_PACKED = 00000101 00111001 01110111 */
    const uint8_t in[] = {0x05, 0x39, 0x77};
    uint32_t out[8];
    size_t used;
    parquet_decode_error e;
    assert_int_equal(parquet_bitpacked_decode(in, sizeof in, 3, 8, out, &used, &e), 0);
    for (uint32_t i = 0; i < 8; i++)
        assert_int_equal(out[i], i);
    assert_int_equal(used, 3);
    poison(&e);
    assert_int_equal(parquet_bitpacked_decode(in, 2, 3, 8, out, &used, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, 2);
}

/* ---- PLAIN ---------------------------------------------------------------------------------------- */

static void plain_values_of_every_type(void **state)
{
    (void)state;
    parquet_decode_error e;
    size_t used;
    const uint8_t bools[] = {0x0d, 0x01}; /* 1,0,1,1,0,0,0,0 | 1 */
    uint8_t b[9];
    assert_int_equal(parquet_plain_bool(bools, sizeof bools, 9, b, &used, &e), 0);
    const uint8_t want_b[9] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
    assert_memory_equal(b, want_b, 9);
    assert_int_equal(used, 2);

    const uint8_t i32[] = {0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x80};
    int64_t v[2];
    assert_int_equal(parquet_plain_i32(i32, sizeof i32, 2, 0, v, &used, &e), 0);
    assert_int_equal(v[0], -1);
    assert_int_equal(v[1], (int64_t)INT32_MIN + 2);
    assert_int_equal(parquet_plain_i32(i32, sizeof i32, 2, 1, v, &used, &e), 0);
    assert_int_equal(v[0], 0xffffffffll);
    assert_int_equal(v[1], 0x80000002ll);

    const uint8_t i64[] = {0x01, 0, 0, 0, 0, 0, 0, 0x80};
    assert_int_equal(parquet_plain_i64(i64, sizeof i64, 1, v, &used, &e), 0);
    assert_int_equal(v[0], INT64_MIN + 1);

    const uint8_t f32[] = {0x00, 0x00, 0xc0, 0x3f}; /* 1.5f */
    const uint8_t f64[] = {0, 0, 0, 0, 0, 0, 0x04, 0xc0}; /* -2.5 */
    double d;
    assert_int_equal(parquet_plain_float(f32, sizeof f32, 1, &d, &used, &e), 0);
    assert_true(d == 1.5);
    assert_int_equal(parquet_plain_double(f64, sizeof f64, 1, &d, &used, &e), 0);
    assert_true(d == -2.5);

    const uint8_t ba[] = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'x', 'y', 'z'};
    parquet_bytes s[3];
    assert_int_equal(parquet_plain_byte_array(ba, sizeof ba, 3, s, &used, &e), 0);
    assert_int_equal(s[0].len, 2);
    assert_memory_equal(s[0].ptr, "hi", 2);
    assert_int_equal(s[1].len, 0);
    assert_int_equal(s[2].len, 3);
    assert_memory_equal(s[2].ptr, "xyz", 3);
    assert_int_equal(used, sizeof ba);

    assert_int_equal(parquet_plain_fixed(ba, 6, 2, 3, s, &used, &e), 0);
    assert_ptr_equal(s[1].ptr, ba + 3);
    assert_int_equal(s[1].len, 3);
}

static void plain_short_data_is_truncated(void **state)
{
    (void)state;
    parquet_decode_error e;
    const uint8_t ba[] = {2, 0, 0, 0, 'h', 'i', 9, 0, 0, 0, 'x'};
    parquet_bytes s[2];
    poison(&e);
    assert_int_equal(parquet_plain_byte_array(ba, sizeof ba, 2, s, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, 6);
    poison(&e);
    assert_int_equal(parquet_plain_byte_array(ba, 8, 2, s, NULL, &e), -1); /* no room for the second length */
    assert_decode_error(&e, NL_ERR_TRUNCATED, 6);
    int64_t v[3];
    poison(&e);
    assert_int_equal(parquet_plain_i64(ba, sizeof ba, 2, v, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, sizeof ba);
    uint8_t b[20];
    poison(&e);
    assert_int_equal(parquet_plain_bool(ba, 1, 9, b, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, 1);
}

/* ---- DELTA_BINARY_PACKED --------------------------------------------------------------------------- */

static void delta_spec_examples(void **state)
{
    (void)state;
    /* 1,2,3,4,5: block 128, 4 miniblocks, 5 values, first zigzag(1) = 2; min delta zigzag(1) = 2, widths 0 */
    const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    /* 7,5,3,1,2,3,4,5: deltas -2,-2,-2,1,1,1,1; min -2 (zigzag 3); relative 0,0,0,3,3,3,3 at width 2:
     * byte 0 = v0..v3 = 00 00 00 11 → 0xc0, byte 1 = v4..v7 = 11 11 11 00 → 0x3f, 6 bytes of padding */
    const uint8_t ex2[] = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00, 0x00,
                           0xc0, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    int64_t out[8];
    size_t used;
    parquet_decode_error e;
    assert_int_equal(parquet_delta_binary_decode(ex1, sizeof ex1, 5, 64, out, &used, &e), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(out[i], i + 1);
    assert_int_equal(used, sizeof ex1);
    assert_int_equal(parquet_delta_binary_decode(ex2, sizeof ex2, 8, 32, out, &used, &e), 0);
    const int64_t want[8] = {7, 5, 3, 1, 2, 3, 4, 5};
    assert_memory_equal(out, want, sizeof want);
    assert_int_equal(used, sizeof ex2);
}

static void delta_round_trips_int32_and_int64_extremes(void **state)
{
    (void)state;
    static buf o;
    static int64_t v[3000], out[3000];
    static const size_t lengths[] = {0, 1, 2, 31, 32, 33, 127, 128, 129, 1000, 3000};
    static const size_t blocks[][2] = {{128, 4}, {128, 1}, {256, 8}, {1024, 32}};
    for (unsigned bits = 32; bits <= 64; bits += 32) {
        for (size_t bi = 0; bi < 4; bi++) {
            for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
                size_t n = lengths[li];
                for (size_t i = 0; i < n; i++) {
                    uint64_t r = rnd();
                    int64_t x = i % 17 == 3 ? (bits == 32 ? INT32_MIN : INT64_MIN)
                                : i % 17 == 9 ? (bits == 32 ? INT32_MAX : INT64_MAX)
                                : i % 3 ? (int64_t)(i * 1000 + r % 50)
                                        : (int64_t)r;
                    v[i] = bits == 32 ? (int64_t)(int32_t)(uint32_t)x : x;
                }
                o.n = 0;
                encode_delta(&o, v, n, bits, blocks[bi][0], blocks[bi][1]);
                size_t used = 0;
                parquet_decode_error e;
                assert_int_equal(parquet_delta_binary_decode(o.b, o.n, n, bits, out, &used, &e), 0);
                assert_memory_equal(out, v, n * sizeof *v);
                assert_int_equal(used, o.n);
            }
        }
    }
}

static void delta_rejects_bad_headers_widths_and_short_data(void **state)
{
    (void)state;
    int64_t out[8];
    parquet_decode_error e;
    const uint8_t block100[] = {0x64, 0x04, 0x01, 0x00};
    poison(&e);
    assert_int_equal(parquet_delta_binary_decode(block100, sizeof block100, 1, 64, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 0);
    const uint8_t minis3[] = {0x80, 0x01, 0x03, 0x01, 0x00};
    poison(&e);
    assert_int_equal(parquet_delta_binary_decode(minis3, sizeof minis3, 1, 64, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 0);
    const uint8_t count[] = {0x80, 0x01, 0x04, 0x05, 0x02};
    poison(&e);
    assert_int_equal(parquet_delta_binary_decode(count, sizeof count, 4, 64, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 0);
    /* INT32 with a miniblock width of 33, at byte 6 */
    const uint8_t w33[] = {0x80, 0x01, 0x04, 0x02, 0x00, 0x00, 0x21, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff};
    poison(&e);
    assert_int_equal(parquet_delta_binary_decode(w33, sizeof w33, 2, 32, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 6);
    /* width 8 needs a byte per value: 3 values after the first, 1 byte there */
    const uint8_t cut[] = {0x80, 0x01, 0x04, 0x04, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01};
    poison(&e);
    assert_int_equal(parquet_delta_binary_decode(cut, sizeof cut, 4, 64, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, 10);
    /* the widths of a block cut off */
    const uint8_t widths_cut[] = {0x80, 0x01, 0x04, 0x02, 0x00, 0x00, 0x00};
    poison(&e);
    assert_int_equal(parquet_delta_binary_decode(widths_cut, sizeof widths_cut, 2, 64, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, 6);
}

/* ---- byte arrays ---------------------------------------------------------------------------------- */

/* lengths 5,5,6,6: first zigzag(5) = 10; deltas 0,1,0 (min 0), width 1: bits 0,1,0 → 0x02 */
static const uint8_t DLBA[] = {0x80, 0x01, 0x04, 0x04, 0x0a, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
                               'H', 'e', 'l', 'l', 'o', 'W', 'o', 'r', 'l', 'd', 'F', 'o', 'o', 'b', 'a', 'r',
                               'A', 'B', 'C', 'D', 'E', 'F'};

static void delta_length_byte_array_spec_example(void **state)
{
    (void)state;
    int64_t scratch[4];
    parquet_bytes out[4];
    size_t used;
    parquet_decode_error e;
    assert_int_equal(parquet_delta_length_decode(DLBA, sizeof DLBA, 4, scratch, out, &used, &e), 0);
    const char *want[4] = {"Hello", "World", "Foobar", "ABCDEF"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(out[i].len, strlen(want[i]));
        assert_memory_equal(out[i].ptr, want[i], out[i].len);
    }
    assert_int_equal(used, sizeof DLBA);
    poison(&e);
    assert_int_equal(parquet_delta_length_decode(DLBA, sizeof DLBA - 1, 4, scratch, out, &used, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, 30);
    /* a first length of -1 */
    const uint8_t neg[] = {0x80, 0x01, 0x04, 0x01, 0x01};
    poison(&e);
    assert_int_equal(parquet_delta_length_decode(neg, sizeof neg, 1, scratch, out, &used, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 0);
}

static uint8_t arena[4096];
static size_t arena_used;
static uint8_t *test_alloc(void *ctx, size_t n)
{
    (void)ctx;
    if (n > sizeof arena - arena_used)
        return NULL;
    arena_used += n;
    return arena + arena_used - n;
}

/* axis, axle, babble, babyhood: prefixes 0,2,0,3 (first 0; deltas 2,-2,3, min -2 → zigzag 3; relative 4,0,5 at
 * width 3: bits 001 000 101 LSB first → 0x44 0x01); suffix lengths 4,2,6,5 (first zigzag(4) = 8; deltas -2,4,-1,
 * min -2; relative 0,6,1: bits 000 011 100 → 0x70 0x00); then "axislebabbleyhood" */
static const uint8_t DBA[] = {
    0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 0x03, 0x00, 0x00, 0x00, 0x70, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    'a', 'x', 'i', 's', 'l', 'e', 'b', 'a', 'b', 'b', 'l', 'e', 'y', 'h', 'o', 'o', 'd'};

static void delta_byte_array_spec_example(void **state)
{
    (void)state;
    int64_t scratch[8];
    parquet_bytes out[4];
    size_t used;
    parquet_decode_error e;
    arena_used = 0;
    assert_int_equal(parquet_delta_byte_array_decode(DBA, sizeof DBA, 4, scratch, 1000, test_alloc, NULL, out, &used, &e),
                     0);
    const char *want[4] = {"axis", "axle", "babble", "babyhood"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(out[i].len, strlen(want[i]));
        assert_memory_equal(out[i].ptr, want[i], out[i].len);
    }
    assert_int_equal(used, sizeof DBA);
    assert_int_equal(arena_used, 4 + 4 + 6 + 8);
    /* the same values capped below their 22 assembled bytes */
    arena_used = 0;
    poison(&e);
    assert_int_equal(parquet_delta_byte_array_decode(DBA, sizeof DBA, 4, scratch, 21, test_alloc, NULL, out, &used, &e),
                     -1);
    assert_decode_error(&e, NL_ERR_LIMIT, 0);
}

static void delta_byte_array_prefix_longer_than_the_previous_value_fails(void **state)
{
    (void)state;
    /* prefixes 0, 5 after a 4-byte first value: first 0, delta 5 (min 5, width 0) */
    static buf o;
    o.n = 0;
    const int64_t pre[2] = {0, 5}, lens[2] = {4, 1};
    encode_delta(&o, pre, 2, 32, 128, 4);
    encode_delta(&o, lens, 2, 32, 128, 4);
    memcpy(o.b + o.n, "abcdx", 5);
    o.n += 5;
    int64_t scratch[4];
    parquet_bytes out[2];
    parquet_decode_error e;
    arena_used = 0;
    poison(&e);
    assert_int_equal(parquet_delta_byte_array_decode(o.b, o.n, 2, scratch, 1000, test_alloc, NULL, out, NULL, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 0);
}

static void byte_stream_split_reassembles_and_checks_its_size(void **state)
{
    (void)state;
    /* 1.0f = 00 00 80 3f, 2.0f = 00 00 00 40 → streams [00 00] [00 00] [80 00] [3f 40] */
    const uint8_t in[] = {0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x3f, 0x40};
    uint8_t out[8];
    size_t used;
    parquet_decode_error e;
    assert_int_equal(parquet_byte_stream_split_decode(in, sizeof in, 2, 4, out, &used, &e), 0);
    double d[2];
    assert_int_equal(parquet_plain_float(out, sizeof out, 2, d, NULL, &e), 0);
    assert_true(d[0] == 1.0 && d[1] == 2.0);
    assert_int_equal(used, 8);
    poison(&e);
    assert_int_equal(parquet_byte_stream_split_decode(in, 7, 2, 4, out, &used, &e), -1);
    assert_decode_error(&e, NL_ERR_TRUNCATED, 0);
    poison(&e);
    assert_int_equal(parquet_byte_stream_split_decode(in, 8, 1, 4, out, &used, &e), -1);
    assert_decode_error(&e, NL_ERR_FORMAT, 0);
}

static void bit_width_of_level_maxima(void **state)
{
    (void)state;
    assert_int_equal(parquet_bit_width(0), 0);
    assert_int_equal(parquet_bit_width(1), 1);
    assert_int_equal(parquet_bit_width(2), 2);
    assert_int_equal(parquet_bit_width(3), 2);
    assert_int_equal(parquet_bit_width(4), 3);
    assert_int_equal(parquet_bit_width(UINT32_MAX), 32);
    assert_int_equal(parquet_bit_width(UINT64_MAX), 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rle_spec_example_bit_packed_0_to_7),
        cmocka_unit_test(rle_run_and_width_zero),
        cmocka_unit_test(rle_round_trips_every_width_and_edge_length),
        cmocka_unit_test(rle_rejects_wide_widths_short_data_and_oversized_run_values),
        cmocka_unit_test(rle_last_group_may_stop_short_of_its_declared_groups),
        cmocka_unit_test(bit_packed_levels_are_msb_first),
        cmocka_unit_test(plain_values_of_every_type),
        cmocka_unit_test(plain_short_data_is_truncated),
        cmocka_unit_test(delta_spec_examples),
        cmocka_unit_test(delta_round_trips_int32_and_int64_extremes),
        cmocka_unit_test(delta_rejects_bad_headers_widths_and_short_data),
        cmocka_unit_test(delta_length_byte_array_spec_example),
        cmocka_unit_test(delta_byte_array_spec_example),
        cmocka_unit_test(delta_byte_array_prefix_longer_than_the_previous_value_fails),
        cmocka_unit_test(byte_stream_split_reassembles_and_checks_its_size),
        cmocka_unit_test(bit_width_of_level_maxima),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
