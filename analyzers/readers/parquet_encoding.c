/* parquet_encoding — see parquet_encoding.h. Byte formats (Parquet Encodings.md):
 *
 *   varint          ULEB128; zigzag for signed values (DELTA_BINARY_PACKED header and min deltas)
 *   bit packing     values LSB first, value i at bits [i*w, (i+1)*w) of a little-endian bit stream
 *                   (the deprecated BIT_PACKED level encoding is the one exception: MSB first)
 *   RLE hybrid      run*; run = varint h; h even: h/2 repeats of a value stored in ceil(w/8) bytes LE;
 *                   h odd: h/2 groups of 8 bit-packed values, w bytes per group
 *   PLAIN           fixed-width little-endian values; BYTE_ARRAY = u32 LE length + bytes; booleans 1 bit
 *   DELTA_BINARY_PACKED   header: varint block size (multiple of 128), varint miniblocks per block
 *                   (values per miniblock a multiple of 32), varint total count, zigzag first value;
 *                   block: zigzag min delta, one width byte per miniblock, miniblocks bit-packed; a miniblock
 *                   after the last value has a width byte but no body; values = running sum of
 *                   min delta + packed delta, wrapping at the type's width
 *   DELTA_LENGTH_BYTE_ARRAY lengths as DELTA_BINARY_PACKED, then all bytes concatenated
 *   DELTA_BYTE_ARRAY prefix lengths (DELTA_BINARY_PACKED) then suffixes (DELTA_LENGTH_BYTE_ARRAY)
 *   BYTE_STREAM_SPLIT byte k of value i at k*n + i
 *
 * Bit unpacking reads 8 bytes at a time (one unaligned little-endian load) except within 8 bytes of the
 * buffer's end, where the remaining bytes are assembled one by one, so no read leaves [p, p + len). */
#include "parquet_encoding.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PQ_LITTLE_ENDIAN 1
#else
#define PQ_LITTLE_ENDIAN 0
#endif

static int pq_fail(parquet_decode_error *e, nl_error_code code, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int pq_fail(parquet_decode_error *e, nl_error_code code, size_t pos, const char *fmt, ...)
{
    if (e) {
        e->code = code;
        e->pos = pos;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void pq_set_used(size_t *used, size_t v)
{
    if (used)
        *used = v;
}

const char *parquet_encoding_name(int encoding)
{
    switch (encoding) {
    case PARQUET_ENC_PLAIN: return "PLAIN";
    case PARQUET_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case PARQUET_ENC_RLE: return "RLE";
    case PARQUET_ENC_BIT_PACKED: return "BIT_PACKED";
    case PARQUET_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case PARQUET_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case PARQUET_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case PARQUET_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
    case PARQUET_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
    default: return "unknown encoding";
    }
}

unsigned parquet_bit_width(uint64_t max)
{
    unsigned w = 0;
    while (max) {
        w++;
        max >>= 1;
    }
    return w;
}

/* ---- primitives ------------------------------------------------------------------------------------- */

static inline uint64_t pq_load64(const uint8_t *p, size_t avail)
{
    uint64_t v = 0;
    if (avail >= 8 && PQ_LITTLE_ENDIAN) {
        memcpy(&v, p, 8);
        return v;
    }
    size_t n = avail < 8 ? avail : 8;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline uint32_t pq_load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int pq_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 10 && *pos + i < len; i++) {
        uint8_t b = p[*pos + i];
        if (i == 9 && b > 1)
            return -1;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *pos += i + 1;
            *out = v;
            return 0;
        }
    }
    return -1;
}

static int pq_varint_fail(parquet_decode_error *e, const uint8_t *p, size_t len, size_t pos, const char *what)
{
    size_t i = pos;
    while (i < len && i - pos < 10 && (p[i] & 0x80))
        i++;
    if (i >= len)
        return pq_fail(e, NL_ERR_TRUNCATED, pos, "%s: the data ends inside a varint", what);
    return pq_fail(e, NL_ERR_FORMAT, pos, "%s: varint exceeds 64 bits", what);
}

static int64_t pq_unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* count values of bw <= 32 bits from p (bit 0 of p[0] first); ceil(count * bw / 8) <= avail. */
static void pq_unpack32(const uint8_t *p, size_t avail, unsigned bw, size_t count, uint32_t *out)
{
    if (bw == 0) {
        memset(out, 0, count * sizeof *out);
        return;
    }
    uint64_t mask = bw == 32 ? 0xffffffffu : ((uint64_t)1 << bw) - 1;
    size_t bit = 0;
    for (size_t i = 0; i < count; i++, bit += bw) {
        size_t byte = bit >> 3;
        out[i] = (uint32_t)((pq_load64(p + byte, avail - byte) >> (bit & 7)) & mask);
    }
}

/* Same for bw <= 64 into uint64. */
static void pq_unpack64(const uint8_t *p, size_t avail, unsigned bw, size_t count, uint64_t *out)
{
    if (bw == 0) {
        memset(out, 0, count * sizeof *out);
        return;
    }
    uint64_t mask = bw == 64 ? UINT64_MAX : ((uint64_t)1 << bw) - 1;
    size_t bit = 0;
    for (size_t i = 0; i < count; i++, bit += bw) {
        size_t byte = bit >> 3;
        unsigned sh = bit & 7;
        uint64_t v = pq_load64(p + byte, avail - byte) >> sh;
        if (sh + bw > 64)
            v |= (uint64_t)p[byte + 8] << (64 - sh);
        out[i] = v & mask;
    }
}

/* ---- RLE / bit-packed hybrid --------------------------------------------------------------------------- */

/* The RLE hybrid into 32-bit values (out32) or, for levels, 16-bit ones (out16, bit_width <= 16). */
static int pq_rle(const uint8_t *p, size_t len, unsigned bit_width, size_t n, uint32_t *out32, uint16_t *out16,
                  size_t *used, parquet_decode_error *e)
{
    unsigned max_width = out16 ? 16 : 32;
    if (bit_width > max_width)
        return pq_fail(e, NL_ERR_FORMAT, 0, "RLE bit width %u is above %u", bit_width, max_width);
    size_t pos = 0, got = 0;
    unsigned value_bytes = (bit_width + 7) / 8;
    while (got < n) {
        size_t at = pos;
        uint64_t h;
        if (pq_varint(p, len, &pos, &h) != 0) {
            if (at >= len)
                return pq_fail(e, NL_ERR_TRUNCATED, at, "RLE data ends after %zu of %zu values", got, n);
            return pq_varint_fail(e, p, len, at, "RLE run header");
        }
        size_t need = n - got;
        if (h & 1) {
            uint64_t groups = h >> 1;
            size_t avail = len - pos, values, bytes;
            if (bit_width == 0) {
                values = groups > need / 8 + 1 ? need : (size_t)groups * 8;
                bytes = 0;
            } else if (groups <= avail / bit_width) {
                values = (size_t)groups * 8;
                bytes = (size_t)groups * bit_width;
            } else { /* the last run may stop short of its declared groups: keep what is there */
                values = avail * 8 / bit_width;
                bytes = avail;
            }
            size_t take = values < need ? values : need;
            if (take == 0 && groups > 0)
                return pq_fail(e, NL_ERR_TRUNCATED, at, "RLE data ends after %zu of %zu values", got, n);
            if (out32) {
                pq_unpack32(p + pos, avail, bit_width, take, out32 + got);
            } else {
                uint32_t tmp[64];
                for (size_t k = 0; k < take; k += 64) { /* k * bit_width / 8 is whole: k is a multiple of 8 */
                    size_t c = take - k < 64 ? take - k : 64, skip = k * bit_width / 8;
                    pq_unpack32(p + pos + skip, avail - skip, bit_width, c, tmp);
                    for (size_t j = 0; j < c; j++)
                        out16[got + k + j] = (uint16_t)tmp[j];
                }
            }
            pos += bytes;
            got += take;
        } else {
            uint64_t count = h >> 1;
            if (len - pos < value_bytes)
                return pq_fail(e, NL_ERR_TRUNCATED, pos, "RLE run value cut off after %zu of %zu values", got, n);
            uint32_t v = 0;
            for (unsigned i = 0; i < value_bytes; i++)
                v |= (uint32_t)p[pos + i] << (8 * i);
            if (bit_width < 32 && (v >> bit_width) != 0)
                return pq_fail(e, NL_ERR_FORMAT, pos, "RLE run value %u does not fit in %u bits", v, bit_width);
            pos += value_bytes;
            size_t take = count < need ? (size_t)count : need;
            if (out32)
                for (size_t i = 0; i < take; i++)
                    out32[got + i] = v;
            else
                for (size_t i = 0; i < take; i++)
                    out16[got + i] = (uint16_t)v;
            got += take;
        }
    }
    pq_set_used(used, pos);
    return 0;
}

int parquet_rle_decode(const uint8_t *p, size_t len, unsigned bit_width, size_t n, uint32_t *out, size_t *used,
                       parquet_decode_error *e)
{
    return pq_rle(p, len, bit_width, n, out, NULL, used, e);
}

int parquet_rle_decode_levels(const uint8_t *p, size_t len, unsigned bit_width, size_t n, uint16_t *out, size_t *used,
                              parquet_decode_error *e)
{
    return pq_rle(p, len, bit_width, n, NULL, out, used, e);
}

int parquet_bitpacked_decode(const uint8_t *p, size_t len, unsigned bit_width, size_t n, uint32_t *out,
                             size_t *used, parquet_decode_error *e)
{
    if (bit_width > 32)
        return pq_fail(e, NL_ERR_FORMAT, 0, "BIT_PACKED bit width %u is above 32", bit_width);
    if (bit_width && n > (SIZE_MAX - 7) / bit_width)
        return pq_fail(e, NL_ERR_LIMIT, 0, "BIT_PACKED: %zu values overflow", n);
    size_t bytes = (n * bit_width + 7) / 8;
    if (bytes > len)
        return pq_fail(e, NL_ERR_TRUNCATED, len, "BIT_PACKED levels need %zu bytes, %zu left", bytes, len);
    size_t bit = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = 0;
        for (unsigned b = 0; b < bit_width; b++, bit++)
            v = v << 1 | ((p[bit >> 3] >> (7 - (bit & 7))) & 1u);
        out[i] = v;
    }
    pq_set_used(used, bytes);
    return 0;
}

/* ---- PLAIN ------------------------------------------------------------------------------------------- */

static int pq_need_fixed(size_t len, size_t n, size_t width, const char *what, parquet_decode_error *e)
{
    if (width && n > SIZE_MAX / width)
        return pq_fail(e, NL_ERR_LIMIT, 0, "PLAIN %s: %zu values overflow", what, n);
    if (n * width > len)
        return pq_fail(e, NL_ERR_TRUNCATED, len, "PLAIN %s: %zu values need %zu bytes, the page has %zu", what, n,
                       n * width, len);
    return 0;
}

int parquet_plain_bool(const uint8_t *p, size_t len, size_t n, uint8_t *out, size_t *used, parquet_decode_error *e)
{
    size_t bytes = n / 8 + (n % 8 != 0);
    if (bytes > len)
        return pq_fail(e, NL_ERR_TRUNCATED, len, "PLAIN BOOLEAN: %zu values need %zu bytes, the page has %zu", n,
                       bytes, len);
    for (size_t i = 0; i < n; i++)
        out[i] = (p[i >> 3] >> (i & 7)) & 1u;
    pq_set_used(used, bytes);
    return 0;
}

int parquet_plain_i32(const uint8_t *p, size_t len, size_t n, int unsigned32, int64_t *out, size_t *used,
                      parquet_decode_error *e)
{
    if (pq_need_fixed(len, n, 4, "INT32", e) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = pq_load32(p + 4 * i);
        out[i] = unsigned32 ? (int64_t)u : (int64_t)(int32_t)u;
    }
    pq_set_used(used, 4 * n);
    return 0;
}

int parquet_plain_i64(const uint8_t *p, size_t len, size_t n, int64_t *out, size_t *used, parquet_decode_error *e)
{
    if (pq_need_fixed(len, n, 8, "INT64", e) != 0)
        return -1;
    if (PQ_LITTLE_ENDIAN) {
        if (n)
            memcpy(out, p, 8 * n);
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = (int64_t)pq_load64(p + 8 * i, 8);
    }
    pq_set_used(used, 8 * n);
    return 0;
}

int parquet_plain_float(const uint8_t *p, size_t len, size_t n, double *out, size_t *used, parquet_decode_error *e)
{
    if (pq_need_fixed(len, n, 4, "FLOAT", e) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = pq_load32(p + 4 * i);
        float f;
        memcpy(&f, &u, sizeof f);
        out[i] = f;
    }
    pq_set_used(used, 4 * n);
    return 0;
}

int parquet_plain_double(const uint8_t *p, size_t len, size_t n, double *out, size_t *used, parquet_decode_error *e)
{
    if (pq_need_fixed(len, n, 8, "DOUBLE", e) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t u = pq_load64(p + 8 * i, 8);
        memcpy(&out[i], &u, sizeof u);
    }
    pq_set_used(used, 8 * n);
    return 0;
}

int parquet_plain_byte_array(const uint8_t *p, size_t len, size_t n, parquet_bytes *out, size_t *used,
                             parquet_decode_error *e)
{
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (len - pos < 4)
            return pq_fail(e, NL_ERR_TRUNCATED, pos, "PLAIN BYTE_ARRAY: the data ends before value %zu of %zu", i, n);
        uint32_t l = pq_load32(p + pos);
        if (l > len - pos - 4)
            return pq_fail(e, NL_ERR_TRUNCATED, pos, "PLAIN BYTE_ARRAY: value %zu claims %u bytes, %zu left", i, l,
                           len - pos - 4);
        out[i].ptr = p + pos + 4;
        out[i].len = l;
        pos += 4 + (size_t)l;
    }
    pq_set_used(used, pos);
    return 0;
}

int parquet_plain_fixed(const uint8_t *p, size_t len, size_t n, size_t width, parquet_bytes *out, size_t *used,
                        parquet_decode_error *e)
{
    if (pq_need_fixed(len, n, width, "FIXED_LEN_BYTE_ARRAY", e) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        out[i].ptr = p + i * width;
        out[i].len = width;
    }
    pq_set_used(used, n * width);
    return 0;
}

/* ---- DELTA_BINARY_PACKED ------------------------------------------------------------------------------- */

int parquet_delta_binary_decode(const uint8_t *p, size_t len, size_t n, unsigned bits, int64_t *out, size_t *used,
                                parquet_decode_error *e)
{
    size_t pos = 0, at;
    uint64_t block, minis, total, first;
    uint64_t *dst[4] = {&block, &minis, &total, &first};
    for (int i = 0; i < 4; i++) {
        at = pos;
        if (pq_varint(p, len, &pos, dst[i]) != 0)
            return pq_varint_fail(e, p, len, at, "DELTA_BINARY_PACKED header");
    }
    if (block == 0 || block % 128 != 0 || block > PARQUET_DELTA_BLOCK_MAX)
        return pq_fail(e, NL_ERR_FORMAT, 0, "DELTA_BINARY_PACKED block size %llu is not a multiple of 128 in 128..%llu",
                       (unsigned long long)block, (unsigned long long)PARQUET_DELTA_BLOCK_MAX);
    if (minis == 0 || block % minis != 0 || (block / minis) % 32 != 0)
        return pq_fail(e, NL_ERR_FORMAT, 0,
                       "DELTA_BINARY_PACKED: %llu miniblocks do not cut a block of %llu into multiples of 32",
                       (unsigned long long)minis, (unsigned long long)block);
    if (total != n)
        return pq_fail(e, NL_ERR_FORMAT, 0, "DELTA_BINARY_PACKED holds %llu values, the page needs %zu",
                       (unsigned long long)total, n);
    size_t per_mini = (size_t)(block / minis);
    unsigned max_width = bits == 32 ? 32 : 64;
    uint64_t acc = (uint64_t)pq_unzigzag(first);
    uint64_t deltas[64];
    size_t got = 0;
    if (n > 0)
        out[got++] = bits == 32 ? (int64_t)(int32_t)(uint32_t)acc : (int64_t)acc;
    while (got < n) {
        at = pos;
        uint64_t zz;
        if (pq_varint(p, len, &pos, &zz) != 0)
            return pq_varint_fail(e, p, len, at, "DELTA_BINARY_PACKED min delta");
        uint64_t min_delta = (uint64_t)pq_unzigzag(zz);
        if (len - pos < minis)
            return pq_fail(e, NL_ERR_TRUNCATED, pos, "DELTA_BINARY_PACKED: the data ends inside the bit widths");
        const uint8_t *widths = p + pos;
        pos += (size_t)minis;
        for (uint64_t m = 0; m < minis && got < n; m++) {
            unsigned w = widths[m];
            if (w > max_width)
                return pq_fail(e, NL_ERR_FORMAT, (size_t)(widths - p) + (size_t)m,
                               "DELTA_BINARY_PACKED miniblock bit width %u is above %u", w, max_width);
            size_t take = n - got < per_mini ? n - got : per_mini;
            size_t body = per_mini * w / 8, need = (take * w + 7) / 8;
            if (len - pos < need)
                return pq_fail(e, NL_ERR_TRUNCATED, pos, "DELTA_BINARY_PACKED: the data ends after %zu of %zu values",
                               got, n);
            const uint8_t *mp = p + pos;
            size_t avail = len - pos;
            for (size_t k = 0; k < take; k += 64) {
                size_t c = take - k < 64 ? take - k : 64;
                /* k is a multiple of 64, so k * w bits is a whole number of bytes */
                pq_unpack64(mp + k * w / 8, avail - k * w / 8, w, c, deltas);
                for (size_t j = 0; j < c; j++) {
                    acc += min_delta + deltas[j];
                    out[got++] = bits == 32 ? (int64_t)(int32_t)(uint32_t)acc : (int64_t)acc;
                }
            }
            pos += body <= avail ? body : avail; /* a final miniblock may omit its padding */
        }
    }
    pq_set_used(used, pos);
    return 0;
}

/* ---- byte arrays --------------------------------------------------------------------------------------- */

int parquet_delta_length_decode(const uint8_t *p, size_t len, size_t n, int64_t *scratch, parquet_bytes *out,
                                size_t *used, parquet_decode_error *e)
{
    size_t pos;
    if (parquet_delta_binary_decode(p, len, n, 32, scratch, &pos, e) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (scratch[i] < 0)
            return pq_fail(e, NL_ERR_FORMAT, 0, "DELTA_LENGTH_BYTE_ARRAY: length %lld of value %zu is negative",
                           (long long)scratch[i], i);
        if ((uint64_t)scratch[i] > len - pos)
            return pq_fail(e, NL_ERR_TRUNCATED, pos, "DELTA_LENGTH_BYTE_ARRAY: value %zu claims %lld bytes, %zu left",
                           i, (long long)scratch[i], len - pos);
        out[i].ptr = p + pos;
        out[i].len = (size_t)scratch[i];
        pos += (size_t)scratch[i];
    }
    pq_set_used(used, pos);
    return 0;
}

int parquet_delta_byte_array_decode(const uint8_t *p, size_t len, size_t n, int64_t *scratch, size_t max_bytes,
                                    parquet_alloc_fn alloc, void *alloc_ctx, parquet_bytes *out, size_t *used,
                                    parquet_decode_error *e)
{
    size_t pos, pos2;
    int64_t *prefix = scratch;
    if (parquet_delta_binary_decode(p, len, n, 32, prefix, &pos, e) != 0)
        return -1;
    if (parquet_delta_length_decode(p + pos, len - pos, n, scratch + n, out, &pos2, e) != 0) {
        if (e)
            e->pos += pos;
        return -1;
    }
    size_t total = 0, prev = 0;
    for (size_t i = 0; i < n; i++) {
        if (prefix[i] < 0 || (uint64_t)prefix[i] > prev)
            return pq_fail(e, NL_ERR_FORMAT, 0,
                           "DELTA_BYTE_ARRAY: prefix length %lld of value %zu exceeds the previous value's %zu bytes",
                           (long long)prefix[i], i, prev);
        prev = (size_t)prefix[i] + out[i].len;
        if (prev > max_bytes - total)
            return pq_fail(e, NL_ERR_LIMIT, 0, "DELTA_BYTE_ARRAY: values exceed %zu bytes", max_bytes);
        total += prev;
    }
    uint8_t *dst = total ? alloc(alloc_ctx, total) : NULL;
    if (total && !dst)
        return pq_fail(e, NL_ERR_NOMEM, 0, "DELTA_BYTE_ARRAY: out of memory for %zu bytes", total);
    const uint8_t *last = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t pre = (size_t)prefix[i], size = pre + out[i].len;
        if (pre)
            memcpy(dst, last, pre);
        if (out[i].len)
            memcpy(dst + pre, out[i].ptr, out[i].len);
        out[i].ptr = size ? dst : (const uint8_t *)"";
        out[i].len = size;
        last = dst;
        dst += size;
    }
    pq_set_used(used, pos + pos2);
    return 0;
}

int parquet_byte_stream_split_decode(const uint8_t *p, size_t len, size_t n, size_t width, uint8_t *out,
                                     size_t *used, parquet_decode_error *e)
{
    if (width == 0 || n > SIZE_MAX / width)
        return pq_fail(e, NL_ERR_FORMAT, 0, "BYTE_STREAM_SPLIT: width %zu for %zu values", width, n);
    if (len != n * width)
        return pq_fail(e, len < n * width ? NL_ERR_TRUNCATED : NL_ERR_FORMAT, 0,
                       "BYTE_STREAM_SPLIT: %zu values of %zu bytes need %zu bytes, the page has %zu", n, width,
                       n * width, len);
    for (size_t k = 0; k < width; k++) {
        const uint8_t *stream = p + k * n;
        for (size_t i = 0; i < n; i++)
            out[i * width + k] = stream[i];
    }
    pq_set_used(used, n * width);
    return 0;
}
