/* parquet_codec — see parquet_codec.h. Per codec (CompressionCodec in parquet.thrift):
 *
 *   SNAPPY    raw snappy block (varint uncompressed length + elements); no framing
 *   GZIP      gzip member(s) (RFC 1952); zlib headers accepted too (inflate with automatic detection);
 *             concatenated members are decoded one after another
 *   BROTLI    one brotli stream
 *   ZSTD      zstd frame(s)
 *   LZ4_RAW   one LZ4 block, no framing
 *   LZ4       deprecated: Hadoop framing, blocks of [u32 BE uncompressed size][u32 BE compressed size]
 *             [LZ4 block]; when the bytes do not parse that way, one raw LZ4 block (some writers wrote that)
 *   LZO       not supported (no writer of neuron-explorer's era uses it)
 *
 * In every case the output must be exactly `expected` bytes: a decoder that needs more room is reported
 * as "decompresses to more than", one that stops early as "decompresses to N bytes". */
#include "parquet_codec.h"

#include <brotli/decode.h>
#include <limits.h>
#include <lz4.h>
#include <snappy-c.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

struct parquet_codec_ctx {
    ZSTD_DCtx *zstd;
    z_stream z;
    int z_ready;
};

static int pc_fail(parquet_decode_error *e, nl_error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int pc_fail(parquet_decode_error *e, nl_error_code code, const char *fmt, ...)
{
    if (e) {
        e->code = code;
        e->pos = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

parquet_codec_ctx *parquet_codec_new(void)
{
    return calloc(1, sizeof(parquet_codec_ctx));
}

void parquet_codec_free(parquet_codec_ctx *c)
{
    if (!c)
        return;
    ZSTD_freeDCtx(c->zstd);
    if (c->z_ready)
        inflateEnd(&c->z);
    free(c);
}

int parquet_codec_supported(int codec)
{
    switch (codec) {
    case PARQUET_UNCOMPRESSED:
    case PARQUET_SNAPPY:
    case PARQUET_GZIP:
    case PARQUET_BROTLI:
    case PARQUET_LZ4:
    case PARQUET_ZSTD:
    case PARQUET_LZ4_RAW: return 1;
    default: return 0;
    }
}

static int pc_size_mismatch(parquet_decode_error *e, const char *codec, size_t got, size_t expected)
{
    return pc_fail(e, NL_ERR_FORMAT, "%s page decompresses to %zu bytes, the page header says %zu", codec, got,
                   expected);
}

static int pc_snappy(const uint8_t *src, size_t n, uint8_t *dst, size_t expected, parquet_decode_error *e)
{
    size_t len;
    if (snappy_uncompressed_length((const char *)src, n, &len) != SNAPPY_OK)
        return pc_fail(e, NL_ERR_FORMAT, "SNAPPY page: corrupt length header");
    if (len != expected)
        return pc_size_mismatch(e, "SNAPPY", len, expected);
    size_t out = expected;
    if (snappy_uncompress((const char *)src, n, (char *)dst, &out) != SNAPPY_OK)
        return pc_fail(e, NL_ERR_FORMAT, "SNAPPY page: corrupt data");
    if (out != expected)
        return pc_size_mismatch(e, "SNAPPY", out, expected);
    return 0;
}

static int pc_gzip(parquet_codec_ctx *c, const uint8_t *src, size_t n, uint8_t *dst, size_t expected,
                   parquet_decode_error *e)
{
    if (n > UINT_MAX || expected > UINT_MAX)
        return pc_fail(e, NL_ERR_LIMIT, "GZIP page above 4 GiB");
    if (!c->z_ready) {
        if (inflateInit2(&c->z, 15 + 32) != Z_OK)
            return pc_fail(e, NL_ERR_NOMEM, "GZIP: cannot create an inflate stream");
        c->z_ready = 1;
    } else if (inflateReset2(&c->z, 15 + 32) != Z_OK) {
        return pc_fail(e, NL_ERR_INTERNAL, "GZIP: cannot reset the inflate stream");
    }
    c->z.next_in = (Bytef *)(uintptr_t)src;
    c->z.avail_in = (uInt)n;
    c->z.next_out = dst;
    c->z.avail_out = (uInt)expected;
    for (;;) {
        int rc = inflate(&c->z, Z_FINISH);
        if (rc == Z_STREAM_END) {
            if (c->z.avail_in == 0)
                break;
            /* another gzip member follows */
            if (inflateReset2(&c->z, 15 + 32) != Z_OK)
                return pc_fail(e, NL_ERR_INTERNAL, "GZIP: cannot reset the inflate stream");
            continue;
        }
        if ((rc == Z_BUF_ERROR || rc == Z_OK) && c->z.avail_out == 0)
            return pc_fail(e, NL_ERR_FORMAT, "GZIP page decompresses to more than the %zu bytes the page header says",
                           expected);
        if (rc == Z_BUF_ERROR && c->z.avail_in == 0)
            return pc_fail(e, NL_ERR_FORMAT, "GZIP page: the compressed data ends early (%zu of %zu bytes out)",
                           expected - c->z.avail_out, expected);
        if (rc != Z_OK)
            return pc_fail(e, NL_ERR_FORMAT, "GZIP page: corrupt data (%s)", c->z.msg ? c->z.msg : "inflate failed");
    }
    if (c->z.avail_out != 0)
        return pc_size_mismatch(e, "GZIP", expected - c->z.avail_out, expected);
    return 0;
}

static int pc_zstd(parquet_codec_ctx *c, const uint8_t *src, size_t n, uint8_t *dst, size_t expected,
                   parquet_decode_error *e)
{
    if (!c->zstd && !(c->zstd = ZSTD_createDCtx()))
        return pc_fail(e, NL_ERR_NOMEM, "ZSTD: cannot create a decompression context");
    size_t got = ZSTD_decompressDCtx(c->zstd, dst, expected, src, n);
    if (ZSTD_isError(got)) {
        if (ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall)
            return pc_fail(e, NL_ERR_FORMAT, "ZSTD page decompresses to more than the %zu bytes the page header says",
                           expected);
        return pc_fail(e, NL_ERR_FORMAT, "ZSTD page: %s", ZSTD_getErrorName(got));
    }
    if (got != expected)
        return pc_size_mismatch(e, "ZSTD", got, expected);
    return 0;
}

static int pc_lz4_block(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *got)
{
    if (n > INT_MAX || cap > INT_MAX)
        return -1;
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)cap);
    if (r < 0)
        return -1;
    *got = (size_t)r;
    return 0;
}

static int pc_lz4_raw(const uint8_t *src, size_t n, uint8_t *dst, size_t expected, parquet_decode_error *e)
{
    size_t got;
    if (pc_lz4_block(src, n, dst, expected, &got) != 0)
        return pc_fail(e, NL_ERR_FORMAT, "LZ4_RAW page: corrupt data, or more than the %zu bytes the page header says",
                       expected);
    if (got != expected)
        return pc_size_mismatch(e, "LZ4_RAW", got, expected);
    return 0;
}

static uint32_t pc_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Hadoop framing: 0 when the whole input parses as frames that fill exactly `expected` bytes. */
static int pc_lz4_hadoop(const uint8_t *src, size_t n, uint8_t *dst, size_t expected)
{
    size_t in = 0, out = 0;
    while (in < n) {
        if (n - in < 8)
            return -1;
        uint32_t raw = pc_be32(src + in), comp = pc_be32(src + in + 4);
        in += 8;
        if (raw > expected - out || comp > n - in)
            return -1;
        size_t got;
        if (pc_lz4_block(src + in, comp, dst + out, raw, &got) != 0 || got != raw)
            return -1;
        in += comp;
        out += raw;
    }
    return out == expected ? 0 : -1;
}

static int pc_lz4(const uint8_t *src, size_t n, uint8_t *dst, size_t expected, parquet_decode_error *e)
{
    if (pc_lz4_hadoop(src, n, dst, expected) == 0)
        return 0;
    if (pc_lz4_raw(src, n, dst, expected, e) == 0)
        return 0;
    return pc_fail(e, NL_ERR_FORMAT, "LZ4 page: neither Hadoop-framed nor a raw block of %zu bytes", expected);
}

static int pc_brotli(const uint8_t *src, size_t n, uint8_t *dst, size_t expected, parquet_decode_error *e)
{
    size_t got = expected;
    BrotliDecoderResult r = BrotliDecoderDecompress(n, src, &got, dst);
    if (r != BROTLI_DECODER_RESULT_SUCCESS)
        return pc_fail(e, NL_ERR_FORMAT, "BROTLI page: corrupt data, or more than the %zu bytes the page header says",
                       expected);
    if (got != expected)
        return pc_size_mismatch(e, "BROTLI", got, expected);
    return 0;
}

int parquet_codec_decompress(parquet_codec_ctx *c, int codec, const uint8_t *src, size_t n, uint8_t *dst,
                             size_t expected, parquet_decode_error *e)
{
    uint8_t spare;
    if (expected == 0 && n == 0)
        return 0; /* an empty page (e.g. the values of an all-null v2 page) has nothing to decode */
    if (expected == 0)
        dst = &spare; /* decoders want a valid pointer even for no output */
    switch (codec) {
    case PARQUET_UNCOMPRESSED:
        if (n != expected)
            return pc_size_mismatch(e, "UNCOMPRESSED", n, expected);
        if (n)
            memcpy(dst, src, n);
        return 0;
    case PARQUET_SNAPPY: return pc_snappy(src, n, dst, expected, e);
    case PARQUET_GZIP: return pc_gzip(c, src, n, dst, expected, e);
    case PARQUET_ZSTD: return pc_zstd(c, src, n, dst, expected, e);
    case PARQUET_LZ4_RAW: return pc_lz4_raw(src, n, dst, expected, e);
    case PARQUET_LZ4: return pc_lz4(src, n, dst, expected, e);
    case PARQUET_BROTLI: return pc_brotli(src, n, dst, expected, e);
    case PARQUET_LZO: return pc_fail(e, NL_ERR_UNSUPPORTED, "LZO-compressed pages are not supported");
    default: return pc_fail(e, NL_ERR_UNSUPPORTED, "unknown compression codec %d", codec);
    }
}
