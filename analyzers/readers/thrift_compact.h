/* thrift_compact — a bounds-checked cursor over the Thrift compact protocol (the encoding of Parquet's
 * footer and page headers, parquet.thrift).
 *
 * Owns nothing: a thrift_reader walks caller-owned bytes, and binary values it returns borrow from them.
 * The caller decodes the structs it knows field by field and hands every other field to thrift_skip,
 * which walks any value (nested structs, lists, sets, maps) iteratively with an explicit stack, so an
 * unknown field never needs a schema and hostile nesting never recurses. Struct nesting (known and skipped
 * alike) is capped at THRIFT_DEPTH_MAX. Every length and count is checked against the bytes left before
 * anything is read or allocated: a list cannot claim more elements than it has bytes.
 * Threads: one reader per thread; no shared state.
 * Errors: 0 / -1 plus a nullable nl_error naming `source` and the absolute offset (base_offset + position)
 * of the offending byte: NL_ERR_TRUNCATED (the bytes end inside a value), NL_ERR_FORMAT (bad type nibble,
 * overlong varint, value out of range, a known field of the wrong type), NL_ERR_LIMIT (nesting). */
#ifndef NL_THRIFT_COMPACT_H
#define NL_THRIFT_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

/* Deepest struct/container nesting accepted (parquet.thrift needs 5: FileMetaData > RowGroup >
 * ColumnChunk > ColumnMetaData > Statistics; LogicalType > TimestampType > TimeUnit is 4 below SchemaElement). */
#define THRIFT_DEPTH_MAX 64
/* A varint is at most 10 bytes. */
#define THRIFT_VARINT_MAX_BYTES 10

/* Compact-protocol type nibbles. Booleans carry their value in the field header (TRUE/FALSE); inside
 * lists a boolean is one byte. */
typedef enum thrift_type {
    THRIFT_STOP = 0,
    THRIFT_TRUE = 1,
    THRIFT_FALSE = 2,
    THRIFT_I8 = 3,
    THRIFT_I16 = 4,
    THRIFT_I32 = 5,
    THRIFT_I64 = 6,
    THRIFT_DOUBLE = 7,
    THRIFT_BINARY = 8,
    THRIFT_LIST = 9,
    THRIFT_SET = 10,
    THRIFT_MAP = 11,
    THRIFT_STRUCT = 12,
} thrift_type;

typedef struct thrift_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;          /* next byte, 0 <= pos <= len */
    int64_t base_offset; /* absolute offset of buf[0] in `source` */
    const char *source;  /* borrowed; for errors */
    nl_error *err;       /* nullable; every failure fills it */
    unsigned depth;      /* structs entered and not yet left */
    int16_t last_field[THRIFT_DEPTH_MAX];
} thrift_reader;

/* One field header. For a boolean field `type` is THRIFT_TRUE or THRIFT_FALSE and there is no value. */
typedef struct thrift_field {
    int16_t id;
    uint8_t type;
    int64_t offset; /* absolute offset of the header byte */
} thrift_field;

void thrift_init(thrift_reader *r, const void *buf, size_t len, int64_t base_offset, const char *source,
                 nl_error *err);

/* Absolute offset of the next byte. */
int64_t thrift_offset(const thrift_reader *r);

/* Enter a struct (its fields follow). NL_ERR_LIMIT beyond THRIFT_DEPTH_MAX. */
int thrift_struct_begin(thrift_reader *r) __attribute__((warn_unused_result));
/* Next field of the current struct: 1 and *f, or 0 at its STOP (the struct is left), or -1. */
int thrift_field_next(thrift_reader *r, thrift_field *f) __attribute__((warn_unused_result));

/* Values. Integers are zigzag varints checked against their width. */
int thrift_read_i8(thrift_reader *r, int8_t *out) __attribute__((warn_unused_result));
int thrift_read_i16(thrift_reader *r, int16_t *out) __attribute__((warn_unused_result));
int thrift_read_i32(thrift_reader *r, int32_t *out) __attribute__((warn_unused_result));
int thrift_read_i64(thrift_reader *r, int64_t *out) __attribute__((warn_unused_result));
int thrift_read_double(thrift_reader *r, double *out) __attribute__((warn_unused_result));
/* A length-prefixed byte string; *data borrows from the buffer. */
int thrift_read_binary(thrift_reader *r, const uint8_t **data, uint32_t *len) __attribute__((warn_unused_result));
/* A list element boolean (one byte: 1 true, 0 or 2 false). */
int thrift_read_bool_element(thrift_reader *r, bool *out) __attribute__((warn_unused_result));
/* List or set header: element type and count (count <= bytes left, since every element takes a byte). */
int thrift_list_begin(thrift_reader *r, uint8_t *elem_type, uint32_t *count) __attribute__((warn_unused_result));

/* Skip one value of `type` (a field's value, or a list element), whatever it nests. */
int thrift_skip(thrift_reader *r, uint8_t type) __attribute__((warn_unused_result));

/* A field of a known struct arrived with the wrong type: NL_ERR_FORMAT naming struct and field. Returns -1. */
int thrift_wrong_type(thrift_reader *r, const thrift_field *f, const char *strct, const char *field,
                      const char *want);
/* Name of a type nibble ("i32", "struct", ...). */
const char *thrift_type_name(uint8_t type);

#endif
