/* thrift_compact — see thrift_compact.h.
 *
 * Wire format (Apache Thrift compact protocol, as Parquet writes it; all multi-byte integers are
 * ULEB128 varints, signed ones zigzag-mapped first: 0→0, -1→1, 1→2, ...):
 *
 *   struct        field* STOP                                    STOP = one 0x00 byte
 *   field header  [dddd tttt]                  d = field id delta 1..15 from the previous field of the
 *                 [0000 tttt] zigzag-varint-i16 same struct (long form when the delta is 0 or out of range)
 *   type nibble   1 true, 2 false (bool fields: no value bytes), 3 i8 (1 byte), 4 i16, 5 i32, 6 i64
 *                 (zigzag varints), 7 double (8 bytes little-endian), 8 binary (varint length + bytes),
 *                 9 list, 10 set, 11 map, 12 struct
 *   list / set    [ssss tttt] elements          s = count 0..14, or 15 and a varint count follows;
 *                                               t = element type; bool elements are one byte each
 *   map           varint count, then (count > 0) [kkkk vvvv] key and value types, then the pairs
 *
 * Every element, key and value takes at least one byte, so a count larger than the bytes left is a
 * format error before anything is allocated or iterated. */
#include "thrift_compact.h"

#include <string.h>

void thrift_init(thrift_reader *r, const void *buf, size_t len, int64_t base_offset, const char *source,
                 nl_error *err)
{
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->len = buf ? len : 0;
    r->base_offset = base_offset;
    r->source = source;
    r->err = err;
}

int64_t thrift_offset(const thrift_reader *r)
{
    return r->base_offset + (int64_t)r->pos;
}

const char *thrift_type_name(uint8_t type)
{
    static const char *const names[] = {"stop", "bool", "bool", "i8",   "i16", "i32",    "i64",
                                        "double", "binary", "list", "set", "map", "struct"};
    return type < sizeof names / sizeof names[0] ? names[type] : "invalid type";
}

static int thrift_fail(thrift_reader *r, nl_error_code code, size_t at, const char *what)
{
    return nl_error_set(r->err, code, r->source, r->base_offset + (int64_t)at, "thrift: %s", what);
}

static int thrift_need(thrift_reader *r, size_t n, const char *what)
{
    if (r->len - r->pos < n)
        return thrift_fail(r, NL_ERR_TRUNCATED, r->pos, what);
    return 0;
}

static int thrift_varint(thrift_reader *r, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < THRIFT_VARINT_MAX_BYTES; i++) {
        if (r->pos + i >= r->len)
            return thrift_fail(r, NL_ERR_TRUNCATED, r->pos, "the bytes end inside a varint");
        uint8_t b = r->buf[r->pos + i];
        if (i == THRIFT_VARINT_MAX_BYTES - 1 && b > 1)
            return thrift_fail(r, NL_ERR_FORMAT, r->pos, "varint exceeds 64 bits");
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            r->pos += i + 1;
            *out = v;
            return 0;
        }
    }
    return thrift_fail(r, NL_ERR_FORMAT, r->pos, "varint longer than 10 bytes");
}

static int64_t thrift_unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static int thrift_zigzag(thrift_reader *r, unsigned bits, int64_t *out)
{
    size_t at = r->pos;
    uint64_t u = 0;
    if (thrift_varint(r, &u) != 0)
        return -1;
    if (bits < 64 && (u >> bits) != 0) {
        r->pos = at;
        return thrift_fail(r, NL_ERR_FORMAT, at, bits == 16 ? "i16 out of range" : "i32 out of range");
    }
    *out = thrift_unzigzag(u);
    return 0;
}

int thrift_read_i8(thrift_reader *r, int8_t *out)
{
    if (thrift_need(r, 1, "the bytes end inside an i8") != 0)
        return -1;
    *out = (int8_t)r->buf[r->pos++];
    return 0;
}

int thrift_read_i16(thrift_reader *r, int16_t *out)
{
    int64_t v = 0;
    if (thrift_zigzag(r, 16, &v) != 0)
        return -1;
    *out = (int16_t)v;
    return 0;
}

int thrift_read_i32(thrift_reader *r, int32_t *out)
{
    int64_t v = 0;
    if (thrift_zigzag(r, 32, &v) != 0)
        return -1;
    *out = (int32_t)v;
    return 0;
}

int thrift_read_i64(thrift_reader *r, int64_t *out)
{
    return thrift_zigzag(r, 64, out);
}

int thrift_read_double(thrift_reader *r, double *out)
{
    if (thrift_need(r, 8, "the bytes end inside a double") != 0)
        return -1;
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = u << 8 | r->buf[r->pos + (size_t)i];
    memcpy(out, &u, sizeof *out);
    r->pos += 8;
    return 0;
}

int thrift_read_binary(thrift_reader *r, const uint8_t **data, uint32_t *len)
{
    size_t at = r->pos;
    uint64_t n;
    if (thrift_varint(r, &n) != 0)
        return -1;
    if (n > UINT32_MAX || n > r->len - r->pos) {
        r->pos = at;
        return thrift_fail(r, n > UINT32_MAX ? NL_ERR_FORMAT : NL_ERR_TRUNCATED, at,
                           "binary length runs past the end of the bytes");
    }
    *data = r->buf + r->pos;
    *len = (uint32_t)n;
    r->pos += (size_t)n;
    return 0;
}

int thrift_read_bool_element(thrift_reader *r, bool *out)
{
    if (thrift_need(r, 1, "the bytes end inside a bool") != 0)
        return -1;
    uint8_t b = r->buf[r->pos];
    if (b > 2)
        return thrift_fail(r, NL_ERR_FORMAT, r->pos, "bool element is not 0, 1 or 2");
    r->pos++;
    *out = b == 1;
    return 0;
}

static int thrift_valid_type(uint8_t t)
{
    return t >= THRIFT_TRUE && t <= THRIFT_STRUCT;
}

int thrift_list_begin(thrift_reader *r, uint8_t *elem_type, uint32_t *count)
{
    size_t at = r->pos;
    if (thrift_need(r, 1, "the bytes end inside a list header") != 0)
        return -1;
    uint8_t h = r->buf[r->pos++];
    uint64_t n = h >> 4;
    if (n == 15 && thrift_varint(r, &n) != 0) {
        r->pos = at;
        return -1;
    }
    uint8_t t = h & 0x0f;
    if (!thrift_valid_type(t)) {
        r->pos = at;
        return thrift_fail(r, NL_ERR_FORMAT, at, "list element type is invalid");
    }
    if (n > r->len - r->pos) {
        r->pos = at;
        return thrift_fail(r, n > UINT32_MAX ? NL_ERR_FORMAT : NL_ERR_TRUNCATED, at,
                           "list count exceeds the bytes left");
    }
    *elem_type = t;
    *count = (uint32_t)n;
    return 0;
}

int thrift_struct_begin(thrift_reader *r)
{
    if (r->depth >= THRIFT_DEPTH_MAX)
        return thrift_fail(r, NL_ERR_LIMIT, r->pos, "structs nested deeper than THRIFT_DEPTH_MAX");
    r->last_field[r->depth++] = 0;
    return 0;
}

/* Parse a field header at pos; *id gets the absolute field id given `last`. */
static int thrift_field_header(thrift_reader *r, int16_t last, int16_t *id, uint8_t *type)
{
    size_t at = r->pos;
    if (thrift_need(r, 1, "the bytes end before the struct's STOP") != 0)
        return -1;
    uint8_t h = r->buf[r->pos++];
    if (h == 0) {
        *type = THRIFT_STOP;
        return 0;
    }
    uint8_t t = h & 0x0f;
    if (!thrift_valid_type(t)) {
        r->pos = at;
        return thrift_fail(r, NL_ERR_FORMAT, at, "field type is invalid");
    }
    int16_t delta = (int16_t)(h >> 4);
    if (delta) {
        *id = (int16_t)(last + delta);
    } else if (thrift_read_i16(r, id) != 0) {
        r->pos = at;
        return -1;
    }
    *type = t;
    return 0;
}

int thrift_field_next(thrift_reader *r, thrift_field *f)
{
    if (r->depth == 0)
        return thrift_fail(r, NL_ERR_INTERNAL, r->pos, "thrift_field_next outside a struct");
    f->offset = thrift_offset(r);
    if (thrift_field_header(r, r->last_field[r->depth - 1], &f->id, &f->type) != 0)
        return -1;
    if (f->type == THRIFT_STOP) {
        r->depth--;
        return 0;
    }
    r->last_field[r->depth - 1] = f->id;
    return 1;
}

/* ---- skipping --------------------------------------------------------------------------------------- */

enum { SKIP_STRUCT, SKIP_LIST, SKIP_MAP };

typedef struct thrift_skip_frame {
    uint8_t kind;
    uint8_t t1, t2;  /* list element type; map key and value types */
    uint64_t left;   /* list elements / map keys plus values still to skip */
} thrift_skip_frame;

/* Skip the bytes of one scalar, or push the container it opens. */
static int thrift_skip_bytes(thrift_reader *r, size_t n, const char *what)
{
    if (thrift_need(r, n, what) != 0)
        return -1;
    r->pos += n;
    return 0;
}

static int thrift_skip_one(thrift_reader *r, uint8_t t, int element, thrift_skip_frame *stack, unsigned *n)
{
    uint64_t u;
    const uint8_t *data;
    uint32_t len;
    switch (t) {
    case THRIFT_TRUE:
    case THRIFT_FALSE: return element ? thrift_skip_bytes(r, 1, "the bytes end inside a bool") : 0;
    case THRIFT_I8: return thrift_skip_bytes(r, 1, "the bytes end inside an i8");
    case THRIFT_I16:
    case THRIFT_I32:
    case THRIFT_I64: return thrift_varint(r, &u);
    case THRIFT_DOUBLE: return thrift_skip_bytes(r, 8, "the bytes end inside a double");
    case THRIFT_BINARY: return thrift_read_binary(r, &data, &len);
    default: break;
    }
    if (r->depth + *n >= THRIFT_DEPTH_MAX)
        return thrift_fail(r, NL_ERR_LIMIT, r->pos, "values nested deeper than THRIFT_DEPTH_MAX");
    thrift_skip_frame *f = &stack[*n];
    memset(f, 0, sizeof *f);
    if (t == THRIFT_STRUCT) {
        f->kind = SKIP_STRUCT;
    } else if (t == THRIFT_LIST || t == THRIFT_SET) {
        uint32_t count;
        if (thrift_list_begin(r, &f->t1, &count) != 0)
            return -1;
        f->kind = SKIP_LIST;
        f->left = count;
    } else if (t == THRIFT_MAP) {
        size_t at = r->pos;
        if (thrift_varint(r, &u) != 0)
            return -1;
        if (u > (r->len - r->pos) / 2) {
            r->pos = at;
            return thrift_fail(r, NL_ERR_TRUNCATED, at, "map count exceeds the bytes left");
        }
        if (u) {
            uint8_t kv = r->buf[r->pos];
            if (!thrift_valid_type(kv >> 4) || !thrift_valid_type(kv & 0x0f)) {
                r->pos = at;
                return thrift_fail(r, NL_ERR_FORMAT, at, "map key or value type is invalid");
            }
            r->pos++;
            f->t1 = kv >> 4;
            f->t2 = kv & 0x0f;
        }
        f->kind = SKIP_MAP;
        f->left = 2 * u;
    } else {
        return thrift_fail(r, NL_ERR_FORMAT, r->pos, "value type is invalid");
    }
    (*n)++;
    return 0;
}

int thrift_skip(thrift_reader *r, uint8_t type)
{
    thrift_skip_frame stack[THRIFT_DEPTH_MAX];
    unsigned n = 0;
    uint8_t t = type;
    int element = 0; /* the value is a list/map element (a bool then takes a byte) */
    for (;;) {
        if (thrift_skip_one(r, t, element, stack, &n) != 0)
            return -1;
        for (;;) { /* the next value to skip, or done */
            if (n == 0)
                return 0;
            thrift_skip_frame *f = &stack[n - 1];
            if (f->kind == SKIP_STRUCT) {
                int16_t id;
                if (thrift_field_header(r, 0, &id, &t) != 0)
                    return -1;
                if (t == THRIFT_STOP) {
                    n--;
                    continue;
                }
                element = 0;
                break;
            }
            if (f->left == 0) {
                n--;
                continue;
            }
            f->left--;
            t = f->kind == SKIP_LIST ? f->t1 : (f->left % 2 ? f->t1 : f->t2);
            element = 1;
            break;
        }
    }
}

int thrift_wrong_type(thrift_reader *r, const thrift_field *f, const char *strct, const char *field,
                      const char *want)
{
    return nl_error_set(r->err, NL_ERR_FORMAT, r->source, f->offset, "thrift: %s.%s (field %d) has type %s, expected %s",
                        strct, field, f->id, thrift_type_name(f->type), want);
}
