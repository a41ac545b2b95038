/* test_parquet_codec — page decompression for every codec the Parquet reader accepts (SNAPPY, GZIP, BROTLI,
 * ZSTD, LZ4_RAW, Hadoop-framed LZ4, UNCOMPRESSED): data compressed here with each library's own encoder
 * (random and repetitive, empty to 200 KB) round-trips; a page header that states one byte more or less than
 * the data holds, and corrupt data, are format errors; concatenated gzip members and the LZ4 framings are
 * read; LZO and unknown codecs are refused as unsupported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <brotli/encode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "parquet_codec.h"

static size_t compress_with(int codec, const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
    switch (codec) {
    case PARQUET_UNCOMPRESSED:
        memcpy(dst, src, n);
        return n;
    case PARQUET_SNAPPY: {
        size_t out = cap;
        assert_int_equal(snappy_compress((const char *)src, n, (char *)dst, &out), SNAPPY_OK);
        return out;
    }
    case PARQUET_ZSTD: {
        size_t out = ZSTD_compress(dst, cap, src, n, 3);
        assert_false(ZSTD_isError(out));
        return out;
    }
    case PARQUET_LZ4_RAW: return (size_t)LZ4_compress_default((const char *)src, (char *)dst, (int)n, (int)cap);
    case PARQUET_BROTLI: {
        size_t out = cap;
        assert_int_equal(BrotliEncoderCompress(5, 22, BROTLI_MODE_GENERIC, n, src, &out, dst), BROTLI_TRUE);
        return out;
    }
    case PARQUET_GZIP: {
        z_stream z;
        memset(&z, 0, sizeof z);
        assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
        z.next_in = (Bytef *)(uintptr_t)src;
        z.avail_in = (uInt)n;
        z.next_out = dst;
        z.avail_out = (uInt)cap;
        assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
        size_t out = z.total_out;
        deflateEnd(&z);
        return out;
    }
    }
    fail();
    return 0;
}

static const int codecs[] = {PARQUET_UNCOMPRESSED, PARQUET_SNAPPY, PARQUET_GZIP, PARQUET_BROTLI, PARQUET_ZSTD,
                             PARQUET_LZ4_RAW};

static uint8_t *make_data(size_t n, int repetitive)
{
    uint8_t *p = malloc(n ? n : 1);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = repetitive ? (uint8_t)("timestamp,duration,opcode,"[i % 26]) : (uint8_t)(x >> 16);
    }
    return p;
}

static void poison(parquet_decode_error *e)
{
    memset(e, 0x5a, sizeof *e);
    e->message[sizeof e->message - 1] = '\0';
}

static void every_codec_round_trips(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 100, 4096, 200000};
    parquet_codec_ctx *c = parquet_codec_new();
    assert_non_null(c);
    for (size_t k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
        assert_true(parquet_codec_supported(codecs[k]));
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            for (int rep = 0; rep < 2; rep++) {
                size_t n = sizes[s], cap = n * 2 + 1024;
                uint8_t *src = make_data(n, rep), *comp = malloc(cap), *out = malloc(n);
                size_t clen = compress_with(codecs[k], src, n, comp, cap);
                parquet_decode_error e;
                poison(&e);
                int rc = parquet_codec_decompress(c, codecs[k], comp, clen, out, n, &e);
                if (rc != 0)
                    print_message("codec %d size %zu: %s\n", codecs[k], n, e.message);
                assert_int_equal(rc, 0);
                assert_memory_equal(out, src, n);
                free(src);
                free(comp);
                free(out);
            }
        }
    }
    parquet_codec_free(c);
}

static void a_page_size_off_by_one_is_a_format_error(void **state)
{
    (void)state;
    parquet_codec_ctx *c = parquet_codec_new();
    size_t n = 5000;
    uint8_t *src = make_data(n, 1), comp[16384], out[5002];
    for (size_t k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
        size_t clen = compress_with(codecs[k], src, n, comp, sizeof comp);
        parquet_decode_error e;
        poison(&e);
        assert_int_equal(parquet_codec_decompress(c, codecs[k], comp, clen, out, n + 1, &e), -1);
        assert_int_equal(e.code, NL_ERR_FORMAT);
        assert_non_null(strstr(e.message, "5001"));
        poison(&e);
        assert_int_equal(parquet_codec_decompress(c, codecs[k], comp, clen, out, n - 1, &e), -1);
        assert_int_equal(e.code, NL_ERR_FORMAT);
        assert_non_null(strstr(e.message, "4999"));
    }
    free(src);
    parquet_codec_free(c);
}

static void corrupt_data_is_a_format_error(void **state)
{
    (void)state;
    parquet_codec_ctx *c = parquet_codec_new();
    size_t n = 3000;
    uint8_t *src = make_data(n, 0), comp[8192], out[3000];
    for (size_t k = 1; k < sizeof codecs / sizeof codecs[0]; k++) {
        size_t clen = compress_with(codecs[k], src, n, comp, sizeof comp);
        for (size_t i = 0; i < clen; i += 7)
            comp[i] ^= 0xa5; /* every seventh byte flipped */
        parquet_decode_error e;
        poison(&e);
        int rc = parquet_codec_decompress(c, codecs[k], comp, clen, out, n, &e);
        assert_int_equal(rc, -1);
        assert_int_equal(e.code, NL_ERR_FORMAT);
        /* and a page cut in half */
        clen = compress_with(codecs[k], src, n, comp, sizeof comp);
        poison(&e);
        assert_int_equal(parquet_codec_decompress(c, codecs[k], comp, clen / 2, out, n, &e), -1);
        assert_int_equal(e.code, NL_ERR_FORMAT);
    }
    free(src);
    parquet_codec_free(c);
}

static void gzip_members_are_read_one_after_another(void **state)
{
    (void)state;
    parquet_codec_ctx *c = parquet_codec_new();
    uint8_t *a = make_data(1000, 1), *b = make_data(700, 0), comp[8192], out[1700];
    size_t la = compress_with(PARQUET_GZIP, a, 1000, comp, sizeof comp);
    size_t lb = compress_with(PARQUET_GZIP, b, 700, comp + la, sizeof comp - la);
    parquet_decode_error e;
    assert_int_equal(parquet_codec_decompress(c, PARQUET_GZIP, comp, la + lb, out, 1700, &e), 0);
    assert_memory_equal(out, a, 1000);
    assert_memory_equal(out + 1000, b, 700);
    free(a);
    free(b);
    parquet_codec_free(c);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void lz4_reads_hadoop_frames_and_raw_blocks(void **state)
{
    (void)state;
    parquet_codec_ctx *c = parquet_codec_new();
    uint8_t *src = make_data(3000, 1), comp[8192], out[3000];
    /* two Hadoop frames: [raw size BE][compressed size BE][block] */
    size_t pos = 0;
    for (int f = 0; f < 2; f++) {
        size_t off = f ? 1200 : 0, n = f ? 1800 : 1200;
        int clen = LZ4_compress_default((const char *)src + off, (char *)comp + pos + 8, (int)n, (int)(sizeof comp - pos - 8));
        put_be32(comp + pos, (uint32_t)n);
        put_be32(comp + pos + 4, (uint32_t)clen);
        pos += 8 + (size_t)clen;
    }
    parquet_decode_error e;
    assert_int_equal(parquet_codec_decompress(c, PARQUET_LZ4, comp, pos, out, 3000, &e), 0);
    assert_memory_equal(out, src, 3000);
    size_t raw = compress_with(PARQUET_LZ4_RAW, src, 3000, comp, sizeof comp);
    memset(out, 0, sizeof out);
    assert_int_equal(parquet_codec_decompress(c, PARQUET_LZ4, comp, raw, out, 3000, &e), 0);
    assert_memory_equal(out, src, 3000);
    poison(&e);
    assert_int_equal(parquet_codec_decompress(c, PARQUET_LZ4, comp, raw, out, 2999, &e), -1);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    free(src);
    parquet_codec_free(c);
}

static void lzo_and_unknown_codecs_are_unsupported(void **state)
{
    (void)state;
    parquet_codec_ctx *c = parquet_codec_new();
    uint8_t in[4] = {1, 2, 3, 4}, out[4];
    parquet_decode_error e;
    assert_false(parquet_codec_supported(PARQUET_LZO));
    poison(&e);
    assert_int_equal(parquet_codec_decompress(c, PARQUET_LZO, in, 4, out, 4, &e), -1);
    assert_int_equal(e.code, NL_ERR_UNSUPPORTED);
    poison(&e);
    assert_int_equal(parquet_codec_decompress(c, 42, in, 4, out, 4, &e), -1);
    assert_int_equal(e.code, NL_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.message, "42"));
    /* an empty page decodes to nothing under any codec */
    assert_int_equal(parquet_codec_decompress(c, PARQUET_ZSTD, in, 0, out, 0, &e), 0);
    parquet_codec_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_codec_round_trips),
        cmocka_unit_test(a_page_size_off_by_one_is_a_format_error),
        cmocka_unit_test(corrupt_data_is_a_format_error),
        cmocka_unit_test(gzip_members_are_read_one_after_another),
        cmocka_unit_test(lz4_reads_hadoop_frames_and_raw_blocks),
        cmocka_unit_test(lzo_and_unknown_codecs_are_unsupported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
