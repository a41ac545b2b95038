/* parquet_build — see parquet_build.h. */
#include "parquet_build.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

void pb_free(pb_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void pb_bytes(pb_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        assert_non_null(b->p);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

void pb_u8(pb_buf *b, uint8_t v)
{
    pb_bytes(b, &v, 1);
}

void pb_le32(pb_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    pb_bytes(b, x, 4);
}

void pb_varint(pb_buf *b, uint64_t v)
{
    while (v >= 0x80) {
        pb_u8(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    pb_u8(b, (uint8_t)v);
}

static uint64_t pb_zz(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

void pb_t_init(pb_thrift *t, pb_buf *b)
{
    memset(t, 0, sizeof *t);
    t->b = b;
    t->depth = 1;
}

void pb_t_end(pb_thrift *t)
{
    pb_u8(t->b, 0);
    t->depth--;
}

void pb_t_field(pb_thrift *t, int16_t id, uint8_t type)
{
    int16_t delta = (int16_t)(id - t->last[t->depth - 1]);
    if (delta > 0 && delta <= 15) {
        pb_u8(t->b, (uint8_t)(delta << 4 | type));
    } else {
        pb_u8(t->b, type);
        pb_varint(t->b, pb_zz(id));
    }
    t->last[t->depth - 1] = id;
}

void pb_t_i32(pb_thrift *t, int16_t id, int32_t v)
{
    pb_t_field(t, id, 5);
    pb_varint(t->b, pb_zz(v));
}

void pb_t_i64(pb_thrift *t, int16_t id, int64_t v)
{
    pb_t_field(t, id, 6);
    pb_varint(t->b, pb_zz(v));
}

void pb_t_str(pb_thrift *t, int16_t id, const char *s)
{
    pb_t_field(t, id, 8);
    pb_varint(t->b, strlen(s));
    pb_bytes(t->b, s, strlen(s));
}

void pb_t_bool(pb_thrift *t, int16_t id, int v)
{
    pb_t_field(t, id, v ? 1 : 2);
}

void pb_t_struct(pb_thrift *t, int16_t id)
{
    pb_t_field(t, id, 12);
    pb_t_elem_struct(t);
}

void pb_t_elem_struct(pb_thrift *t)
{
    assert_true(t->depth < 32);
    t->last[t->depth++] = 0;
}

void pb_t_list(pb_thrift *t, int16_t id, uint8_t elem_type, uint32_t n)
{
    pb_t_field(t, id, 9);
    if (n < 15) {
        pb_u8(t->b, (uint8_t)(n << 4 | elem_type));
    } else {
        pb_u8(t->b, (uint8_t)(0xf0 | elem_type));
        pb_varint(t->b, n);
    }
}

void pb_t_zigzag(pb_thrift *t, int64_t v)
{
    pb_varint(t->b, pb_zz(v));
}

void pb_rle_packed(pb_buf *b, const uint32_t *v, size_t n, unsigned bw)
{
    size_t groups = (n + 7) / 8;
    pb_varint(b, groups << 1 | 1);
    size_t start = b->len, bytes = groups * bw;
    for (size_t i = 0; i < bytes; i++)
        pb_u8(b, 0);
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < bw && k < 32; k++) /* widths above 32 (tests of the limit) pad with zeros */
            if ((v[i] >> k) & 1)
                b->p[start + (i * bw + k) / 8] |= (uint8_t)(1u << ((i * bw + k) % 8));
}

void pb_rle_run(pb_buf *b, uint32_t v, uint32_t count, unsigned bw)
{
    pb_varint(b, (uint64_t)count << 1);
    for (unsigned k = 0; k < (bw + 7) / 8; k++)
        pb_u8(b, k < 4 ? (uint8_t)(v >> (8 * k)) : 0);
}

void pb_page_write(pb_buf *chunk, const pb_page *h, const uint8_t *body, size_t n)
{
    pb_thrift t;
    pb_t_init(&t, chunk);
    pb_t_i32(&t, 1, h->type);
    pb_t_i32(&t, 2, h->uncompressed >= 0 ? h->uncompressed : (int32_t)n);
    pb_t_i32(&t, 3, h->compressed >= 0 ? h->compressed : (int32_t)n);
    if (h->crc != -1)
        pb_t_i32(&t, 4, (int32_t)(h->crc == -2 ? (uint32_t)crc32(0L, body, (uInt)n) : (uint32_t)h->crc));
    if (h->type == 0) {
        pb_t_struct(&t, 5);
        pb_t_i32(&t, 1, h->num_values);
        pb_t_i32(&t, 2, h->encoding);
        pb_t_i32(&t, 3, h->def_enc);
        pb_t_i32(&t, 4, h->rep_enc);
        pb_t_end(&t);
    } else if (h->type == 2) {
        pb_t_struct(&t, 7);
        pb_t_i32(&t, 1, h->num_values);
        pb_t_i32(&t, 2, h->encoding);
        pb_t_end(&t);
    } else if (h->type == 3) {
        pb_t_struct(&t, 8);
        pb_t_i32(&t, 1, h->num_values);
        pb_t_i32(&t, 2, h->num_nulls);
        pb_t_i32(&t, 3, h->num_rows);
        pb_t_i32(&t, 4, h->encoding);
        pb_t_i32(&t, 5, h->def_len);
        pb_t_i32(&t, 6, h->rep_len);
        if (h->is_compressed >= 0)
            pb_t_bool(&t, 7, h->is_compressed);
        pb_t_end(&t);
    }
    pb_t_end(&t);
    pb_bytes(chunk, body, n);
}

static void pb_schema(pb_thrift *t, const pb_elem *schema, size_t n)
{
    pb_t_list(t, 2, 12, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        const pb_elem *e = &schema[i];
        pb_t_elem_struct(t);
        if (e->type >= 0)
            pb_t_i32(t, 1, e->type);
        if (e->type_length)
            pb_t_i32(t, 2, e->type_length);
        if (e->rep >= 0)
            pb_t_i32(t, 3, e->rep);
        pb_t_str(t, 4, e->name);
        if (e->children)
            pb_t_i32(t, 5, e->children);
        if (e->converted >= 0)
            pb_t_i32(t, 6, e->converted);
        if (e->logical) {
            pb_t_struct(t, 10);
            pb_t_struct(t, (int16_t)e->logical);
            if (e->logical == 10) {
                pb_t_field(t, 1, 3);
                pb_u8(t->b, (uint8_t)e->int_bits);
                pb_t_bool(t, 2, e->int_signed);
            }
            pb_t_end(t);
            pb_t_end(t);
        }
        pb_t_end(t);
    }
}

void pb_file(pb_buf *out, const pb_elem *schema, size_t nschema, const pb_row_group *rgs, size_t nrg,
             int64_t rows_delta, const pb_buf *extra_footer, size_t *footer_at)
{
    pb_bytes(out, "PAR1", 4);
    size_t total = 0;
    for (size_t g = 0; g < nrg; g++)
        total += rgs[g].ncols;
    size_t *offsets = calloc(total ? total : 1, sizeof *offsets);
    size_t k = 0;
    int64_t rows = 0;
    for (size_t g = 0; g < nrg; g++) {
        rows += rgs[g].rows;
        for (size_t c = 0; c < rgs[g].ncols; c++, k++) {
            offsets[k] = out->len;
            pb_bytes(out, rgs[g].cols[c].chunk->p, rgs[g].cols[c].chunk->len);
        }
    }
    size_t start = out->len;
    if (footer_at)
        *footer_at = start;
    pb_thrift t;
    pb_t_init(&t, out);
    pb_t_i32(&t, 1, 1);
    pb_schema(&t, schema, nschema);
    pb_t_i64(&t, 3, rows + rows_delta);
    pb_t_list(&t, 4, 12, (uint32_t)nrg);
    k = 0;
    for (size_t g = 0; g < nrg; g++) {
        pb_t_elem_struct(&t);
        pb_t_list(&t, 1, 12, (uint32_t)rgs[g].ncols);
        for (size_t c = 0; c < rgs[g].ncols; c++, k++) {
            const pb_column *col = &rgs[g].cols[c];
            pb_t_elem_struct(&t);
            pb_t_i64(&t, 2, (int64_t)offsets[k]);
            pb_t_struct(&t, 3);
            pb_t_i32(&t, 1, col->type);
            pb_t_list(&t, 2, 5, 1);
            pb_t_zigzag(&t, 0);
            /* path_in_schema: the dotted path split */
            const char *p = col->path;
            uint32_t parts = 1;
            for (const char *q = p; *q; q++)
                parts += *q == '.';
            pb_t_list(&t, 3, 8, parts);
            while (*p) {
                const char *dot = strchr(p, '.');
                size_t len = dot ? (size_t)(dot - p) : strlen(p);
                pb_varint(out, len);
                pb_bytes(out, p, len);
                p += len + (dot != NULL);
            }
            pb_t_i32(&t, 4, col->codec);
            pb_t_i64(&t, 5, col->num_values);
            pb_t_i64(&t, 6, (int64_t)col->chunk->len);
            pb_t_i64(&t, 7, (int64_t)col->chunk->len);
            pb_t_i64(&t, 9, (int64_t)(offsets[k] + col->dict_len) + col->data_page_offset_delta);
            if (col->dict_len)
                pb_t_i64(&t, 11, (int64_t)offsets[k]);
            pb_t_end(&t); /* ColumnMetaData */
            pb_t_end(&t); /* ColumnChunk */
        }
        pb_t_i64(&t, 2, 0);
        pb_t_i64(&t, 3, rgs[g].rows);
        pb_t_end(&t); /* RowGroup */
    }
    pb_t_str(&t, 6, "neuronlens parquet_build");
    if (extra_footer)
        pb_bytes(out, extra_footer->p, extra_footer->len);
    pb_t_end(&t);
    pb_le32(out, (uint32_t)(out->len - start));
    pb_bytes(out, "PAR1", 4);
    free(offsets);
}
