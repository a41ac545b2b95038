/* pickle_writer — see pickle_writer.h. */
#include "pickle_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pw_raw(pw *w, const void *p, size_t n)
{
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 64;
        w->b = realloc(w->b, w->cap);
        if (!w->b) {
            fputs("pickle_writer: out of memory\n", stderr);
            abort();
        }
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

void pw_u8(pw *w, unsigned v)
{
    unsigned char c = (unsigned char)v;
    pw_raw(w, &c, 1);
}

void pw_le(pw *w, uint64_t v, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        pw_u8(w, (unsigned)(v >> (8 * k)) & 0xff);
}

void pw_ops(pw *w, const char *ops)
{
    pw_raw(w, ops, strlen(ops));
}

void pw_str(pw *w, const char *s)
{
    size_t n = strlen(s);
    if (n < 256) {
        pw_u8(w, 0x8c);
        pw_u8(w, (unsigned)n);
    } else {
        pw_u8(w, 'X');
        pw_le(w, n, 4);
    }
    pw_raw(w, s, n);
}

void pw_int(pw *w, int64_t v)
{
    if (v >= 0 && v < 256) {
        pw_u8(w, 'K');
        pw_u8(w, (unsigned)v);
    } else if (v >= 0 && v < 65536) {
        pw_u8(w, 'M');
        pw_le(w, (uint64_t)v, 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        pw_u8(w, 'J');
        pw_le(w, (uint64_t)v, 4);
    } else {
        pw_u8(w, 0x8a);
        pw_u8(w, 8);
        pw_le(w, (uint64_t)v, 8);
    }
}

void pw_float(pw *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    pw_u8(w, 'G');
    for (int k = 7; k >= 0; k--)
        pw_u8(w, (unsigned)(bits >> (8 * k)) & 0xff);
}

void pw_bool(pw *w, int v)
{
    pw_u8(w, v ? 0x88 : 0x89);
}

void pw_proto(pw *w)
{
    pw_u8(w, 0x80);
    pw_u8(w, 4);
}

uint32_t pw_memoize(pw *w)
{
    pw_u8(w, 0x94);
    return w->memo++;
}

void pw_get(pw *w, uint32_t idx)
{
    if (idx < 256) {
        pw_u8(w, 'h');
        pw_u8(w, idx);
    } else {
        pw_u8(w, 'j');
        pw_le(w, idx, 4);
    }
}

uint32_t pw_dict(pw *w)
{
    pw_u8(w, '}');
    uint32_t i = pw_memoize(w);
    pw_u8(w, '(');
    return i;
}

void pw_dict_end(pw *w)
{
    pw_u8(w, 'u');
}

uint32_t pw_list(pw *w)
{
    pw_u8(w, ']');
    uint32_t i = pw_memoize(w);
    pw_u8(w, '(');
    return i;
}

void pw_list_end(pw *w)
{
    pw_u8(w, 'e');
}

void pw_free(pw *w)
{
    free(w->b);
    w->b = NULL;
    w->n = w->cap = 0;
    w->memo = 0;
}
