/* parquet_codec — page decompression for the Parquet reader, through Debian's libraries: libsnappy
 * (snappy-c.h), zlib (GZIP), libzstd, liblz4 (LZ4_RAW and Hadoop-framed LZ4), libbrotli.
 *
 * Owns: a parquet_codec_ctx keeps the reusable decoder states (a zstd context, a zlib stream) so pages
 * decompress without per-page setup. One context per thread.
 * Errors: 0 / -1 plus a parquet_decode_error: NL_ERR_FORMAT when the bytes do not decode or decode to a
 * size other than `expected` (the page header's uncompressed size), NL_ERR_UNSUPPORTED for LZO and unknown
 * codecs, NL_ERR_NOMEM. */
#ifndef NL_PARQUET_CODEC_H
#define NL_PARQUET_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "parquet.h"
#include "parquet_encoding.h"

typedef struct parquet_codec_ctx parquet_codec_ctx;

/* NULL when out of memory. */
parquet_codec_ctx *parquet_codec_new(void) __attribute__((warn_unused_result));
void parquet_codec_free(parquet_codec_ctx *c);

/* Whether this build can decompress `codec`. */
int parquet_codec_supported(int codec);

/* Decompress src[0, n) with `codec` into dst, which holds `expected` bytes; the output must be exactly
 * `expected` bytes long. */
int parquet_codec_decompress(parquet_codec_ctx *c, int codec, const uint8_t *src, size_t n, uint8_t *dst,
                             size_t expected, parquet_decode_error *e) __attribute__((warn_unused_result));

#endif
