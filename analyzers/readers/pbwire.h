/* pbwire — a bounds-checked reader for the protobuf wire format (varints and length-delimited fields).
 *
 * Owns nothing: a pbwire_reader is a cursor over caller-owned bytes, and every pointer it hands out
 * (pbwire_field.data) borrows from that buffer. Any thread may use its own reader; there is no shared
 * state. Errors are 0 / -1 plus a nullable nl_error naming the source and the absolute byte offset
 * (`base_offset` + position) of the byte that broke the rule. Never reads outside [buf, buf + len).
 *
 * Why hand-written rather than protobuf-c: the NTFF metadata block (formats.md §3) and the system-profile
 * streams have no published .proto. protobuf-c only decodes messages through code generated from a
 * schema, so it cannot walk unknown field numbers generically; this small reader can. */
#ifndef NL_PBWIRE_H
#define NL_PBWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

/* A varint is at most 10 bytes (64 bits, 7 per byte); the 10th may only carry bit 63. */
#define PBWIRE_VARINT_MAX_BYTES 10
/* Largest field number protobuf allows (2^29 - 1). */
#define PBWIRE_FIELD_NUMBER_MAX 536870911u

typedef enum pbwire_type {
    PBWIRE_VARINT = 0,
    PBWIRE_FIXED64 = 1,
    PBWIRE_LEN = 2,       /* string, bytes, embedded message, packed repeated */
    PBWIRE_GROUP_START = 3, /* deprecated groups: rejected as a format error */
    PBWIRE_GROUP_END = 4,
    PBWIRE_FIXED32 = 5,
} pbwire_type;

typedef struct pbwire_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;           /* next byte to read, 0 <= pos <= len */
    int64_t base_offset;  /* absolute offset of buf[0] in `source`, for error messages */
    const char *source;   /* borrowed path for errors; may be NULL */
} pbwire_reader;

typedef struct pbwire_field {
    uint32_t number;
    pbwire_type type;
    uint64_t value;       /* VARINT, FIXED64, FIXED32 (little-endian decoded) */
    const uint8_t *data;  /* LEN: borrowed payload, `len` bytes; NULL otherwise */
    size_t len;
    int64_t offset;       /* absolute offset of the tag byte */
    int64_t data_offset;  /* absolute offset of the payload (LEN) or value */
} pbwire_field;

/* Start reading `len` bytes at `buf`; `base_offset` is where buf[0] sits in `source`. */
void pbwire_init(pbwire_reader *r, const uint8_t *buf, size_t len, int64_t base_offset, const char *source);

/* A reader over a LEN field's payload (an embedded message), keeping absolute offsets. */
void pbwire_init_sub(pbwire_reader *sub, const pbwire_reader *parent, const pbwire_field *f);

/* True when every byte has been consumed. */
bool pbwire_done(const pbwire_reader *r);

/* Decode one varint at buf[*pos], advancing *pos. Fails with NL_ERR_TRUNCATED when the buffer ends
 * inside it and NL_ERR_FORMAT when it is longer than 10 bytes or exceeds 64 bits. `base_offset`/`source`
 * only shape the error. On failure *pos and *out are unchanged. */
__attribute__((warn_unused_result))
int pbwire_read_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *out, int64_t base_offset,
                       const char *source, nl_error *err);

/* Read the next field (tag + value). Call only while !pbwire_done(r). On failure the reader does not
 * advance; the error names the offset of the offending byte. */
__attribute__((warn_unused_result))
int pbwire_next(pbwire_reader *r, pbwire_field *out, nl_error *err);

/* Heuristic for sniffing: true when buf[0..len) parses as at least `min_fields` fields, either to a clean
 * end or — when `complete` is false (the buffer is a window cut from a longer message) — until a field
 * runs past the end of the window. Any format error (bad wire type, field number 0, varint overflow)
 * makes it false. Never fails otherwise; no error is reported. */
bool pbwire_plausible(const uint8_t *buf, size_t len, bool complete, unsigned min_fields);

#endif
