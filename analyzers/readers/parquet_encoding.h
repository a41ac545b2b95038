/* parquet_encoding — the value and level encodings of Parquet pages, as pure functions over one buffer.
 *
 * Owns nothing: every decoder reads `len` bytes at `p` and writes exactly `n` values into caller arrays;
 * byte-string outputs borrow from `p` (except DELTA_BYTE_ARRAY, which assembles its values in memory from
 * the caller's allocator). parquet.c calls these per page; tests call them on hand-computed vectors.
 * Threads: reentrant. Errors: 0 / -1 plus a parquet_decode_error holding a code (NL_ERR_FORMAT,
 * NL_ERR_TRUNCATED, NL_ERR_LIMIT, NL_ERR_NOMEM), a message and the byte position within the buffer; the
 * caller adds file, column, row group and page. `*used` (nullable) receives the bytes consumed. */
#ifndef NL_PARQUET_ENCODING_H
#define NL_PARQUET_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"
#include "parquet.h"

/* Encodings (parquet.thrift Encoding). */
typedef enum parquet_encoding {
    PARQUET_ENC_PLAIN = 0,
    PARQUET_ENC_PLAIN_DICTIONARY = 2,
    PARQUET_ENC_RLE = 3,
    PARQUET_ENC_BIT_PACKED = 4,
    PARQUET_ENC_DELTA_BINARY_PACKED = 5,
    PARQUET_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    PARQUET_ENC_DELTA_BYTE_ARRAY = 7,
    PARQUET_ENC_RLE_DICTIONARY = 8,
    PARQUET_ENC_BYTE_STREAM_SPLIT = 9,
} parquet_encoding;

/* DELTA_BINARY_PACKED block sizes accepted (values per block; the spec asks for a multiple of 128). */
#define PARQUET_DELTA_BLOCK_MAX ((uint64_t)1 << 20)

typedef struct parquet_decode_error {
    nl_error_code code;
    size_t pos; /* byte position in the decoded buffer */
    char message[160];
} parquet_decode_error;

/* Allocator for assembled byte strings (DELTA_BYTE_ARRAY): `size` bytes that live as long as the output;
 * NULL when out of memory. */
typedef uint8_t *(*parquet_alloc_fn)(void *ctx, size_t size);

const char *parquet_encoding_name(int encoding);

/* Bits needed for values 0..max (0 for max 0). */
unsigned parquet_bit_width(uint64_t max);

/* RLE / bit-packed hybrid (levels, dictionary indices, RLE booleans), without a length prefix:
 *   run := varint header; header & 1 = 0 → (header >> 1) copies of one value in ceil(bit_width / 8) bytes LE;
 *          header & 1 = 1 → (header >> 1) groups of 8 values bit-packed LSB first, bit_width bytes a group.
 * bit_width <= 32. Decodes exactly n values; a final group may hold padding values, which are dropped. */
int parquet_rle_decode(const uint8_t *p, size_t len, unsigned bit_width, size_t n, uint32_t *out, size_t *used,
                       parquet_decode_error *e) __attribute__((warn_unused_result));

/* The same into 16-bit levels (bit_width <= 16; definition and repetition levels never need more). */
int parquet_rle_decode_levels(const uint8_t *p, size_t len, unsigned bit_width, size_t n, uint16_t *out, size_t *used,
                              parquet_decode_error *e) __attribute__((warn_unused_result));

/* Deprecated BIT_PACKED levels: n values of bit_width bits packed MSB first, ceil(n * bit_width / 8) bytes. */
int parquet_bitpacked_decode(const uint8_t *p, size_t len, unsigned bit_width, size_t n, uint32_t *out,
                             size_t *used, parquet_decode_error *e) __attribute__((warn_unused_result));

/* PLAIN. Booleans: one bit each, LSB first. INT32 → int64 (sign- or zero-extended: `unsigned32`). INT64 and
 * DOUBLE: 8 bytes LE. FLOAT → double. BYTE_ARRAY: 4-byte LE length + bytes each. FIXED_LEN_BYTE_ARRAY:
 * `width` bytes each. */
int parquet_plain_bool(const uint8_t *p, size_t len, size_t n, uint8_t *out, size_t *used, parquet_decode_error *e)
    __attribute__((warn_unused_result));
int parquet_plain_i32(const uint8_t *p, size_t len, size_t n, int unsigned32, int64_t *out, size_t *used,
                      parquet_decode_error *e) __attribute__((warn_unused_result));
int parquet_plain_i64(const uint8_t *p, size_t len, size_t n, int64_t *out, size_t *used, parquet_decode_error *e)
    __attribute__((warn_unused_result));
int parquet_plain_float(const uint8_t *p, size_t len, size_t n, double *out, size_t *used, parquet_decode_error *e)
    __attribute__((warn_unused_result));
int parquet_plain_double(const uint8_t *p, size_t len, size_t n, double *out, size_t *used, parquet_decode_error *e)
    __attribute__((warn_unused_result));
int parquet_plain_byte_array(const uint8_t *p, size_t len, size_t n, parquet_bytes *out, size_t *used,
                             parquet_decode_error *e) __attribute__((warn_unused_result));
int parquet_plain_fixed(const uint8_t *p, size_t len, size_t n, size_t width, parquet_bytes *out, size_t *used,
                        parquet_decode_error *e) __attribute__((warn_unused_result));

/* DELTA_BINARY_PACKED: header <block size> <miniblocks per block> <total count> <zigzag first value>, then
 * blocks of <zigzag min delta> <one bit width per miniblock> <miniblocks bit-packed LSB first>. The header's
 * count must be n. `bits` is 32 (INT32: widths <= 32, values wrap at 32 bits, sign-extended) or 64. */
int parquet_delta_binary_decode(const uint8_t *p, size_t len, size_t n, unsigned bits, int64_t *out, size_t *used,
                                parquet_decode_error *e) __attribute__((warn_unused_result));

/* DELTA_LENGTH_BYTE_ARRAY: the n lengths DELTA_BINARY_PACKED, then the bytes concatenated. `scratch` holds
 * n int64 (the lengths). */
int parquet_delta_length_decode(const uint8_t *p, size_t len, size_t n, int64_t *scratch, parquet_bytes *out,
                                size_t *used, parquet_decode_error *e) __attribute__((warn_unused_result));

/* DELTA_BYTE_ARRAY: n prefix lengths (DELTA_BINARY_PACKED), then the suffixes (DELTA_LENGTH_BYTE_ARRAY);
 * value i = the first prefix[i] bytes of value i-1, then suffix i. Assembled values are allocated through
 * `alloc` (at most `max_bytes` in all, else NL_ERR_LIMIT). `scratch` holds 2n int64. */
int parquet_delta_byte_array_decode(const uint8_t *p, size_t len, size_t n, int64_t *scratch, size_t max_bytes,
                                    parquet_alloc_fn alloc, void *alloc_ctx, parquet_bytes *out, size_t *used,
                                    parquet_decode_error *e) __attribute__((warn_unused_result));

/* BYTE_STREAM_SPLIT: byte k of value i is at p[k * n + i]; exactly n * width bytes. Writes the values
 * reassembled (n * width bytes, value after value) to out. */
int parquet_byte_stream_split_decode(const uint8_t *p, size_t len, size_t n, size_t width, uint8_t *out,
                                     size_t *used, parquet_decode_error *e) __attribute__((warn_unused_result));

#endif
