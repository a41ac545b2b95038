/* parquet — a streaming reader for Apache Parquet files (neuron-explorer profiles, formats.md §7).
 *
 * Owns: a parquet_file holds the decoded footer (schema, row groups, column chunk metadata) and, for a
 * file opened by path, its descriptor. A parquet_chunk (caller storage) holds the decoded values of one
 * column chunk and the buffers behind them; it is reused from read to read, and everything it points to is
 * valid until the next read into it or parquet_chunk_close. Nothing else is cached: reading one column of
 * one row group touches only that chunk's bytes (column projection), so memory is the footer plus one row
 * group of the columns asked for, whatever the file size.
 * Threads: a parquet_file is immutable after parquet_open; any number of threads may read chunks from it at
 * once, each into its own parquet_chunk (reads use pread).
 * Errors: 0 / -1 (or NULL) plus a nullable nl_error with the file as source, the byte offset (the footer
 * field, or the header of the page at fault), field = the column's dotted path and record = the row group:
 * NL_ERR_IO, NL_ERR_FORMAT (bad magic, footer or page structure, corrupt Thrift, a page decompressing to the
 * wrong size, a CRC mismatch, a dictionary index out of range, a physical type other than the one asked
 * for, counts that do not add up), NL_ERR_TRUNCATED, NL_ERR_UNSUPPORTED (encrypted files, INT96, LZO,
 * column data in other files), NL_ERR_LIMIT (a cap below), NL_ERR_NOMEM, NL_ERR_CANCELLED (parquet_scan).
 * The message names the column, row group and page. */
#ifndef NL_PARQUET_H
#define NL_PARQUET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

/* Caps on what a file may make the reader do. */
#define PARQUET_FOOTER_MAX ((uint32_t)256 << 20)      /* footer (FileMetaData) bytes */
#define PARQUET_SCHEMA_MAX 100000u                    /* schema elements */
#define PARQUET_SCHEMA_DEPTH_MAX 32u                  /* nesting of groups; levels fit in 16 bits */
#define PARQUET_ROW_GROUPS_MAX 1000000u
#define PARQUET_NAME_MAX 4096u                        /* bytes of one dotted column path */
#define PARQUET_PAGE_MAX ((size_t)1 << 30)            /* bytes of one page, compressed or not */
#define PARQUET_CHUNK_VALUES_MAX ((size_t)1 << 26)    /* levels (values incl. nulls) of one column chunk */
#define PARQUET_CHUNK_BYTES_MAX ((size_t)4 << 30)     /* decoded bytes of one column chunk */

/* Physical types (parquet.thrift Type). */
typedef enum parquet_type {
    PARQUET_BOOLEAN = 0,
    PARQUET_INT32 = 1,
    PARQUET_INT64 = 2,
    PARQUET_INT96 = 3, /* legacy timestamps: refused when read */
    PARQUET_FLOAT = 4,
    PARQUET_DOUBLE = 5,
    PARQUET_BYTE_ARRAY = 6,
    PARQUET_FIXED_LEN_BYTE_ARRAY = 7,
} parquet_type;

/* Logical annotation of a column: the LogicalType when present, else the legacy ConvertedType. */
typedef enum parquet_logical {
    PARQUET_LOGICAL_NONE,
    PARQUET_LOGICAL_STRING, /* also ENUM, JSON, BSON-free text annotations: UTF-8 bytes */
    PARQUET_LOGICAL_ENUM,
    PARQUET_LOGICAL_JSON,
    PARQUET_LOGICAL_INT,       /* int_bits / int_signed say which */
    PARQUET_LOGICAL_DECIMAL,
    PARQUET_LOGICAL_DATE,
    PARQUET_LOGICAL_TIME,
    PARQUET_LOGICAL_TIMESTAMP, /* time_unit_ns: 1e6 millis, 1e3 micros, 1 nanos */
    PARQUET_LOGICAL_UUID,
    PARQUET_LOGICAL_FLOAT16,
    PARQUET_LOGICAL_OTHER,     /* any other annotation (BSON, INTERVAL, VARIANT, ...) */
} parquet_logical;

typedef enum parquet_repetition {
    PARQUET_REQUIRED = 0,
    PARQUET_OPTIONAL = 1,
    PARQUET_REPEATED = 2,
} parquet_repetition;

/* Codecs (CompressionCodec). */
typedef enum parquet_codec {
    PARQUET_UNCOMPRESSED = 0,
    PARQUET_SNAPPY = 1,
    PARQUET_GZIP = 2,
    PARQUET_LZO = 3, /* refused */
    PARQUET_BROTLI = 4,
    PARQUET_LZ4 = 5, /* deprecated Hadoop-framed LZ4; raw blocks accepted too */
    PARQUET_ZSTD = 6,
    PARQUET_LZ4_RAW = 7,
} parquet_codec;

/* One leaf column (a column chunk per row group). */
typedef struct parquet_column_info {
    const char *name;          /* top-level field name ("flow_id"), NUL-terminated */
    const char *path;          /* dotted path of the leaf ("flow_id.list.element") */
    parquet_type type;
    int32_t type_length;       /* FIXED_LEN_BYTE_ARRAY width, else 0 */
    parquet_logical logical;
    uint8_t int_bits;          /* PARQUET_LOGICAL_INT: 8, 16, 32 or 64 */
    bool int_signed;           /* PARQUET_LOGICAL_INT: signed (UINT_* annotations are unsigned) */
    int64_t time_unit_ns;      /* TIMESTAMP/TIME: ns per unit (1000000, 1000, 1); 0 otherwise */
    int32_t scale, precision;  /* DECIMAL */
    parquet_repetition repetition; /* of the top-level field */
    bool nullable;             /* a row may be null (an optional ancestor or leaf) */
    bool list;                 /* one repeated level: each row holds a list of 0..n elements */
    uint16_t max_def, max_rep; /* Dremel levels */
} parquet_column_info;

typedef struct parquet_file parquet_file;

/* ---- opening ---- */

/* Open and decode the footer of the file at `path`. */
int parquet_open(const char *path, parquet_file **out, nl_error *err) __attribute__((warn_unused_result));
/* The same over caller-owned bytes (tests, fuzzing); `data` must outlive the parquet_file. `name` labels
 * errors (NULL: "(memory)"). */
int parquet_open_mem(const void *data, size_t len, const char *name, parquet_file **out, nl_error *err)
    __attribute__((warn_unused_result));
/* Close the file and free the footer. Safe on NULL. Chunks read from it stay valid. */
void parquet_close(parquet_file *f);

/* ---- metadata ---- */

const char *parquet_source(const parquet_file *f);
uint64_t parquet_file_size(const parquet_file *f);
int64_t parquet_rows(const parquet_file *f);
size_t parquet_row_groups(const parquet_file *f);
int64_t parquet_row_group_rows(const parquet_file *f, size_t row_group);
size_t parquet_columns(const parquet_file *f);
/* Leaf column i (< parquet_columns), borrowed from f. */
const parquet_column_info *parquet_column(const parquet_file *f, size_t i);
/* Leaf index of `name`: an exact dotted path, or a top-level field name with a single leaf (a LIST
 * column by its field name). -1 when absent. */
long parquet_find_column(const parquet_file *f, const char *name);
/* The writer's `created_by` ("" when absent), borrowed. */
const char *parquet_created_by(const parquet_file *f);
/* Codec of column `col` in row group `rg`, compressed bytes and null count (-1 when the footer has none). */
parquet_codec parquet_chunk_codec(const parquet_file *f, size_t row_group, size_t col);
uint64_t parquet_chunk_compressed_bytes(const parquet_file *f, size_t row_group, size_t col);
/* File offset of the chunk's first page (for messages about its values). */
uint64_t parquet_chunk_offset(const parquet_file *f, size_t row_group, size_t col);
int64_t parquet_chunk_null_count(const parquet_file *f, size_t row_group, size_t col);

const char *parquet_type_name(parquet_type t);
const char *parquet_codec_name(parquet_codec c);

/* ---- reading one column chunk ---- */

/* What the caller wants a chunk decoded to; the column's physical type must match (else NL_ERR_FORMAT):
 * I64 ← INT32, INT64 (INT32 zero-extended when annotated unsigned); F64 ← FLOAT, DOUBLE; BOOL ← BOOLEAN;
 * BYTES ← BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY. */
typedef enum parquet_want {
    PARQUET_WANT_I64,
    PARQUET_WANT_F64,
    PARQUET_WANT_BOOL,
    PARQUET_WANT_BYTES,
} parquet_want;

/* The natural parquet_want of a physical type (INT96 → PARQUET_WANT_BYTES, which is refused). */
parquet_want parquet_want_of(parquet_type t);

/* A byte string borrowed from a parquet_chunk. */
typedef struct parquet_bytes {
    const uint8_t *ptr;
    size_t len;
} parquet_bytes;

typedef struct parquet_chunk_buf parquet_chunk_buf;

/* The decoded values of one column chunk. A "slot" is one row of a flat column, or one list element of a
 * list column (an empty or null list has none). Arrays indexed by slot have `count` entries; null slots
 * read 0 / false / empty. Pointers are NULL when not applicable. */
typedef struct parquet_chunk {
    const parquet_column_info *column;
    size_t row_group;
    parquet_want want;
    size_t rows;                /* rows of the row group */
    size_t count;               /* slots */
    size_t nulls;               /* slots without a value */
    const uint8_t *valid;       /* [count] 1 = the slot has a value; NULL when every slot does */
    const int64_t *i64;         /* [count] PARQUET_WANT_I64 */
    const double *f64;          /* [count] PARQUET_WANT_F64 */
    const uint8_t *b;           /* [count] PARQUET_WANT_BOOL: 0 or 1 */
    /* PARQUET_WANT_BYTES: when every data page is dictionary-encoded, dict_index[slot] indexes dict[] and
     * `bytes` is NULL (group or intern per dictionary entry, not per row); otherwise bytes[slot]. Use
     * parquet_chunk_bytes() to read either way. */
    const parquet_bytes *bytes;
    const uint32_t *dict_index;
    const parquet_bytes *dict;
    size_t dict_count;
    /* list columns: row r's slots are [offsets[r], offsets[r + 1]); row_valid[r] = 0 for a null list */
    const uint32_t *offsets;    /* [rows + 1] */
    const uint8_t *row_valid;   /* [rows]; NULL when no list is null */
    /* raw Dremel levels, one per value including nulls and empty lists */
    size_t levels;
    const uint16_t *def;        /* NULL when max_def = 0 */
    const uint16_t *rep;        /* NULL when max_rep = 0 */
    size_t pages;               /* data pages read */
    parquet_chunk_buf *buf;     /* private */
} parquet_chunk;

void parquet_chunk_init(parquet_chunk *c);
/* Free the chunk's buffers. Safe on a zeroed or initialised chunk; the chunk may be initialised again. */
void parquet_chunk_close(parquet_chunk *c);

/* Decode column `col` of row group `rg` into `out` (its previous contents are released). Nested columns
 * with more than one repeated level decode their levels and values but no offsets. */
int parquet_read_chunk(const parquet_file *f, size_t row_group, size_t col, parquet_want want, parquet_chunk *out,
                       nl_error *err) __attribute__((warn_unused_result));

/* The bytes of slot i of a PARQUET_WANT_BYTES chunk (empty for a null slot). */
parquet_bytes parquet_chunk_bytes(const parquet_chunk *c, size_t slot);

/* ---- row-group streaming ---- */

/* Called once per row group, in order, with the chunks of the requested columns: chunks[i] is column
 * cols[i], or NULL when cols[i] < 0 (absent from this file). The chunks are valid during the call only.
 * Return 0 to go on, -1 (with err set) to stop. */
typedef int (*parquet_row_group_fn)(void *ctx, size_t row_group, size_t rows, parquet_chunk *const *chunks,
                                    nl_error *err);

/* Read every row group of the columns cols[0..n) (indices from parquet_find_column; negative = absent)
 * decoded as wants[i], calling fn per row group. Memory: one row group of those columns. The cancel flag
 * (nullable) is polled between row groups and columns. */
int parquet_scan(const parquet_file *f, const long *cols, const parquet_want *wants, size_t n,
                 const atomic_int *cancel, parquet_row_group_fn fn, void *ctx, nl_error *err)
    __attribute__((warn_unused_result));

#endif
