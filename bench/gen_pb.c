/* gen_pb — protobuf wire writer (see gen_pb.h for why this is not protoc-c output).
 *
 * Wire format: each field is a varint key (field_number << 3 | wire_type) and a value: wire type 0 a
 * base-128 varint (low group first, high bit = more), 5 four little-endian bytes, 2 a varint length and
 * that many bytes. Fields are written in the order the caller emits them; the writers emit them in field
 * number order, as the runtime's writer does. */
#include "gen_pb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GEN_PB_FIRST_CAP 256

static int gen_pb_reserve(gen_pb *p, size_t n)
{
    if (p->failed)
        return -1;
    if (p->len + n <= p->cap)
        return 0;
    size_t cap = p->cap ? p->cap : GEN_PB_FIRST_CAP;
    while (cap < p->len + n)
        cap *= 2;
    uint8_t *b = realloc(p->b, cap);
    if (!b) {
        p->failed = 1;
        return -1;
    }
    p->b = b;
    p->cap = cap;
    return 0;
}

void gen_pb_free(gen_pb *p)
{
    free(p->b);
    memset(p, 0, sizeof *p);
}

static size_t gen_pb_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint8_t *gen_pb_put_varint(uint8_t *d, uint64_t v)
{
    while (v >= 0x80) {
        *d++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *d++ = (uint8_t)v;
    return d;
}

static void gen_pb_raw_varint(gen_pb *p, uint64_t v)
{
    if (gen_pb_reserve(p, 10) != 0)
        return;
    p->len = (size_t)(gen_pb_put_varint(p->b + p->len, v) - p->b);
}

void gen_pb_varint(gen_pb *p, uint32_t field, uint64_t v)
{
    gen_pb_raw_varint(p, (uint64_t)field << 3);
    gen_pb_raw_varint(p, v);
}

void gen_pb_float(gen_pb *p, uint32_t field, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    gen_pb_raw_varint(p, (uint64_t)field << 3 | 5);
    if (gen_pb_reserve(p, 4) != 0)
        return;
    for (int i = 0; i < 4; i++)
        p->b[p->len++] = (uint8_t)(u >> (8 * i));
}

void gen_pb_bytes(gen_pb *p, uint32_t field, const void *s, size_t n)
{
    gen_pb_raw_varint(p, (uint64_t)field << 3 | 2);
    gen_pb_raw_varint(p, n);
    if (gen_pb_reserve(p, n) != 0)
        return;
    if (n)
        memcpy(p->b + p->len, s, n);
    p->len += n;
}

void gen_pb_str(gen_pb *p, uint32_t field, const char *s)
{
    gen_pb_bytes(p, field, s, strlen(s));
}

size_t gen_pb_open(gen_pb *p, uint32_t field)
{
    gen_pb_raw_varint(p, (uint64_t)field << 3 | 2);
    if (gen_pb_reserve(p, 1) != 0)
        return 0;
    p->b[p->len++] = 0;
    return p->len; /* the body starts here; its length byte is at mark - 1 */
}

void gen_pb_close(gen_pb *p, size_t mark)
{
    if (p->failed || mark == 0)
        return;
    size_t body = p->len - mark, lenlen = gen_pb_varint_len(body);
    if (lenlen > 1) {
        if (gen_pb_reserve(p, lenlen - 1) != 0)
            return;
        memmove(p->b + mark + lenlen - 1, p->b + mark, body);
        p->len += lenlen - 1;
    }
    gen_pb_put_varint(p->b + mark - 1, body);
}

void gen_pb_frame(gen_out *o, const gen_pb *msg)
{
    if (msg->failed) {
        gen_out_fail(o, "allocate memory for", ENOMEM);
        return;
    }
    uint8_t len[4];
    for (int i = 0; i < 4; i++)
        len[i] = (uint8_t)(msg->len >> (8 * i));
    gen_out_mem(o, (const char *)len, 4);
    gen_out_mem(o, (const char *)msg->b, msg->len);
}

void gen_pb_write(gen_out *o, const gen_pb *msg)
{
    if (msg->failed) {
        gen_out_fail(o, "allocate memory for", ENOMEM);
        return;
    }
    gen_out_mem(o, (const char *)msg->b, msg->len);
}
