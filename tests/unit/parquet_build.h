/* parquet_build — tests only: assemble Parquet files byte by byte (a Thrift compact writer, page headers, a
 * one-file footer), so reader tests can state exactly what each byte holds and break any of them.
 *
 * Owns: pb_buf memory (pb_free). Everything else writes into a caller's pb_buf. Aborts through cmocka on
 * misuse. Field ids and layouts: parquet.thrift, as documented atop analyzers/readers/parquet.c. */
#ifndef NL_PARQUET_BUILD_H
#define NL_PARQUET_BUILD_H

#include <stddef.h>
#include <stdint.h>

typedef struct pb_buf {
    uint8_t *p;
    size_t len, cap;
} pb_buf;

void pb_free(pb_buf *b);
void pb_bytes(pb_buf *b, const void *p, size_t n);
void pb_u8(pb_buf *b, uint8_t v);
void pb_le32(pb_buf *b, uint32_t v);
void pb_varint(pb_buf *b, uint64_t v);

/* Thrift compact writer; ids are absolute, deltas computed. */
typedef struct pb_thrift {
    pb_buf *b;
    int16_t last[32];
    int depth;
} pb_thrift;

void pb_t_init(pb_thrift *t, pb_buf *b); /* enters the top struct */
void pb_t_end(pb_thrift *t);              /* STOP, leave the struct */
void pb_t_field(pb_thrift *t, int16_t id, uint8_t type);
void pb_t_i32(pb_thrift *t, int16_t id, int32_t v);
void pb_t_i64(pb_thrift *t, int16_t id, int64_t v);
void pb_t_str(pb_thrift *t, int16_t id, const char *s);
void pb_t_bool(pb_thrift *t, int16_t id, int v);
void pb_t_struct(pb_thrift *t, int16_t id); /* field header, then enter */
void pb_t_list(pb_thrift *t, int16_t id, uint8_t elem_type, uint32_t n);
void pb_t_elem_struct(pb_thrift *t);        /* enter a struct that is a list element */
void pb_t_zigzag(pb_thrift *t, int64_t v);  /* a bare i32/i64 list element */

/* RLE hybrid: `n` values of `bw` bits as one bit-packed run (padded to 8). */
void pb_rle_packed(pb_buf *b, const uint32_t *v, size_t n, unsigned bw);
/* RLE hybrid: one run of `count` copies of `v`. */
void pb_rle_run(pb_buf *b, uint32_t v, uint32_t count, unsigned bw);

/* One page: header + body. Sizes default to the body's length (-1), crc -1 = none, -2 = computed. */
typedef struct pb_page {
    int type;                  /* 0 DATA_PAGE, 2 DICTIONARY_PAGE, 3 DATA_PAGE_V2 */
    int32_t num_values;
    int32_t encoding;
    int32_t def_enc, rep_enc;  /* v1: 3 (RLE) by default when 0 is not wanted: set explicitly */
    int32_t num_nulls, num_rows, def_len, rep_len; /* v2 */
    int is_compressed;         /* v2: -1 absent, 0, 1 */
    int32_t uncompressed;      /* -1: body length */
    int32_t compressed;        /* -1: body length */
    int64_t crc;
} pb_page;

void pb_page_write(pb_buf *chunk, const pb_page *h, const uint8_t *body, size_t n);

/* Schema element: type -1 for a group (children > 0), rep -1 for the root. */
typedef struct pb_elem {
    const char *name;
    int type;
    int rep;
    int children;
    int converted;   /* -1 none */
    int logical;     /* 0 none, 1 STRING, 3 LIST, 10 INTEGER (int_bits, int_signed) */
    int int_bits, int_signed;
    int type_length;
} pb_elem;

typedef struct pb_column {
    const pb_buf *chunk;     /* pages */
    int type, codec;
    int64_t num_values;
    size_t dict_len;         /* > 0: the chunk starts with a dictionary page of this many bytes */
    const char *path;        /* path_in_schema, dot-separated */
    int64_t data_page_offset_delta; /* added to the computed data_page_offset (tests break it) */
} pb_column;

typedef struct pb_row_group {
    int64_t rows;
    const pb_column *cols;
    size_t ncols;
} pb_row_group;

/* "PAR1", the chunks of every row group in order, FileMetaData, its length, "PAR1". num_rows = the sum of
 * the row groups' rows (+ rows_delta). `extra_footer` (nullable) appends raw field bytes into FileMetaData
 * before its STOP (e.g. an unknown or an encryption field); *footer_at receives the footer's offset. */
void pb_file(pb_buf *out, const pb_elem *schema, size_t nschema, const pb_row_group *rgs, size_t nrg,
             int64_t rows_delta, const pb_buf *extra_footer, size_t *footer_at);

#endif
