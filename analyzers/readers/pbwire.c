/* pbwire — protobuf wire format, read without a schema.
 *
 * Wire format (https://protobuf.dev/programming-guides/encoding/):
 *
 *   field   := tag value
 *   tag     := varint; field number = tag >> 3 (1 .. 2^29-1), wire type = tag & 7
 *   value   := type 0 VARINT   varint, 1..10 bytes, 7 bits per byte, least significant group first,
 *                              high bit set on every byte but the last; the 10th byte may only be 0 or 1
 *              type 1 FIXED64  8 bytes little-endian
 *              type 2 LEN      varint length n, then n bytes (string, bytes, message, packed)
 *              type 3/4        start/end group — deprecated; not used by any Neuron file, rejected
 *              type 5 FIXED32  4 bytes little-endian
 *              type 6/7        invalid
 *
 * Every read checks the remaining length first, so a corrupt length can never move the cursor past the
 * buffer; a LEN whose n exceeds what remains is NL_ERR_TRUNCATED at the offset of the length varint.
 * Errors name absolute offsets (reader base_offset + position), so a nested reader over an embedded
 * message still reports positions in the file. */
#include "pbwire.h"

void pbwire_init(pbwire_reader *r, const uint8_t *buf, size_t len, int64_t base_offset, const char *source)
{
    r->buf = buf;
    r->len = buf ? len : 0;
    r->pos = 0;
    r->base_offset = base_offset;
    r->source = source;
}

void pbwire_init_sub(pbwire_reader *sub, const pbwire_reader *parent, const pbwire_field *f)
{
    pbwire_init(sub, f->data, f->len, f->data_offset, parent->source);
}

bool pbwire_done(const pbwire_reader *r)
{
    return r->pos >= r->len;
}

int pbwire_read_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *out, int64_t base_offset,
                       const char *source, nl_error *err)
{
    size_t p = *pos;
    uint64_t v = 0;
    for (unsigned i = 0; i < PBWIRE_VARINT_MAX_BYTES; i++) {
        if (p >= len)
            return nl_error_set(err, NL_ERR_TRUNCATED, source, base_offset + (int64_t)p,
                                "varint starting at offset %lld runs past the end of its buffer",
                                (long long)(base_offset + (int64_t)*pos));
        uint8_t b = buf[p++];
        if (i == PBWIRE_VARINT_MAX_BYTES - 1 && b > 1)
            return nl_error_set(err, NL_ERR_FORMAT, source, base_offset + (int64_t)p - 1,
                                "varint starting at offset %lld overflows 64 bits",
                                (long long)(base_offset + (int64_t)*pos));
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *pos = p;
            *out = v;
            return 0;
        }
    }
    /* unreachable: the 10th byte either ends the varint or fails the b > 1 check */
    return nl_error_set(err, NL_ERR_INTERNAL, source, base_offset + (int64_t)*pos, "varint decoder");
}

static uint64_t pbwire_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Read `n` fixed bytes at *p as a little-endian integer. */
static int pbwire_read_fixed(const pbwire_reader *r, size_t *p, unsigned n, uint64_t *out, nl_error *err)
{
    if (r->len - *p < n)
        return nl_error_set(err, NL_ERR_TRUNCATED, r->source, r->base_offset + (int64_t)*p,
                            "%u-byte fixed field needs %u bytes, only %zu remain", n, n, r->len - *p);
    *out = pbwire_le(r->buf + *p, n);
    *p += n;
    return 0;
}

static int pbwire_read_len(const pbwire_reader *r, size_t *p, pbwire_field *f, nl_error *err)
{
    size_t len_at = *p;
    uint64_t n;
    if (pbwire_read_varint(r->buf, r->len, p, &n, r->base_offset, r->source, err))
        return -1;
    if (n > r->len - *p)
        return nl_error_set(err, NL_ERR_TRUNCATED, r->source, r->base_offset + (int64_t)len_at,
                            "field %u declares %llu bytes, only %zu remain", f->number, (unsigned long long)n,
                            r->len - *p);
    f->data = r->buf + *p;
    f->len = (size_t)n;
    *p += (size_t)n;
    return 0;
}

int pbwire_next(pbwire_reader *r, pbwire_field *out, nl_error *err)
{
    size_t p = r->pos;
    uint64_t tag;
    pbwire_field f = {0};
    f.offset = r->base_offset + (int64_t)p;
    if (pbwire_read_varint(r->buf, r->len, &p, &tag, r->base_offset, r->source, err))
        return -1;
    uint64_t number = tag >> 3;
    if (number == 0 || number > PBWIRE_FIELD_NUMBER_MAX)
        return nl_error_set(err, NL_ERR_FORMAT, r->source, f.offset, "invalid protobuf field number %llu",
                            (unsigned long long)number);
    f.number = (uint32_t)number;
    f.type = (pbwire_type)(tag & 7);
    f.data_offset = r->base_offset + (int64_t)p;
    int rc;
    switch (f.type) {
    case PBWIRE_VARINT:
        rc = pbwire_read_varint(r->buf, r->len, &p, &f.value, r->base_offset, r->source, err);
        break;
    case PBWIRE_FIXED64:
        rc = pbwire_read_fixed(r, &p, 8, &f.value, err);
        break;
    case PBWIRE_FIXED32:
        rc = pbwire_read_fixed(r, &p, 4, &f.value, err);
        break;
    case PBWIRE_LEN:
        rc = pbwire_read_len(r, &p, &f, err);
        if (rc == 0)
            f.data_offset = r->base_offset + (int64_t)(p - f.len);
        break;
    default:
        return nl_error_set(err, NL_ERR_FORMAT, r->source, f.offset,
                            "field %u has unsupported wire type %u", f.number, (unsigned)f.type);
    }
    if (rc)
        return -1;
    r->pos = p;
    *out = f;
    return 0;
}

bool pbwire_plausible(const uint8_t *buf, size_t len, bool complete, unsigned min_fields)
{
    pbwire_reader r;
    pbwire_init(&r, buf, len, 0, NULL);
    unsigned fields = 0;
    while (!pbwire_done(&r)) {
        pbwire_field f;
        nl_error e;
        if (pbwire_next(&r, &f, &e))
            return !complete && e.code == NL_ERR_TRUNCATED && fields >= min_fields;
        fields++;
    }
    return fields >= min_fields;
}
