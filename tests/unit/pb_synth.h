/* pb_synth — a tiny protobuf writer for tests of the system-profile readers: varints, tagged fields,
 * `[u32 LE length][message]` framing. Header-only (static inline); a test owns its buffers. Aborts through
 * cmocka when a buffer would overflow. */
#ifndef NL_PB_SYNTH_H
#define NL_PB_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PB_SYNTH_MAX 16384

typedef struct pbs {
    uint8_t b[PB_SYNTH_MAX];
    size_t n;
} pbs;

static inline void pbs_put(pbs *o, const void *p, size_t n)
{
    assert_true(o->n + n <= sizeof o->b);
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

static inline void pbs_varint(pbs *o, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        if (v)
            c |= 0x80;
        pbs_put(o, &c, 1);
    } while (v);
}

static inline void pbs_uint(pbs *o, unsigned field, uint64_t v)
{
    pbs_varint(o, (uint64_t)field << 3);
    pbs_varint(o, v);
}

static inline void pbs_bytes(pbs *o, unsigned field, const void *p, size_t n)
{
    pbs_varint(o, (uint64_t)field << 3 | 2);
    pbs_varint(o, n);
    pbs_put(o, p, n);
}

static inline void pbs_str(pbs *o, unsigned field, const char *s)
{
    pbs_bytes(o, field, s, strlen(s));
}

static inline void pbs_float(pbs *o, unsigned field, float f)
{
    pbs_varint(o, (uint64_t)field << 3 | 5);
    pbs_put(o, &f, 4);
}

/* An ntrace attribute (field 12 {1 key, 2 value}). */
static inline void pbs_attr(pbs *o, const char *k, const char *v)
{
    pbs a = {.n = 0};
    pbs_str(&a, 1, k);
    pbs_str(&a, 2, v);
    pbs_bytes(o, 12, a.b, a.n);
}

/* Append msg to a stream with its length prefix; returns the prefix's offset. */
static inline size_t pbs_frame(pbs *stream, const pbs *msg)
{
    size_t at = stream->n;
    uint8_t len[4] = {(uint8_t)msg->n, (uint8_t)(msg->n >> 8), (uint8_t)(msg->n >> 16), (uint8_t)(msg->n >> 24)};
    pbs_put(stream, len, 4);
    pbs_put(stream, msg->b, msg->n);
    return at;
}

#endif
