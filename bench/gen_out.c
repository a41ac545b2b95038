/* gen_out — buffered writer and number formatting for the synthetic profile generator.
 *
 * Throughput matters here: `nl-gen-profile --target-bytes 1G` must write a gigabyte in a few seconds, so
 * integers go through a two-digits-at-a-time formatter (no printf), output accumulates in one 4 MiB
 * buffer written with write(2), and nothing is allocated per record. A pinned record (gen_out_pin: the
 * export's records, whose members gen_export reorders in place) is kept whole across flushes by moving it to
 * the front of the buffer (the buffer holds ~500 of the largest record, 8.5 KB). Doubles are rare (summaries,
 * percentages) and use snprintf with the shortest precision that reads back to the same double, so a
 * reader's strtod (or Python's float) sees exactly the value the generator computed. */
#include "gen_out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char gen_out_digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

int gen_out_open(gen_out *o, const char *path, gen_err *err)
{
    char tmp[128];
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->pin = GEN_OUT_NO_PIN;
    o->path = path ? path : "(count)";
    o->buf = malloc(GEN_OUT_BUF_SIZE);
    if (!o->buf) {
        gen_err_set(err, "out of memory for the output buffer of %s", o->path);
        return -1;
    }
    if (path) {
        o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (o->fd < 0) {
            gen_err_set(err, "cannot create %s: %s", path, gen_err_errno(errno, tmp, sizeof tmp));
            free(o->buf);
            o->buf = NULL;
            return -1;
        }
    }
    return 0;
}

void gen_out_fail(gen_out *o, const char *what, int errnum)
{
    if (o->failed)
        return;
    o->failed = 1;
    o->err = errnum;
    o->what = what;
}

static void gen_out_write_all(gen_out *o, const char *p, size_t n)
{
    while (n > 0 && !o->failed) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            gen_out_fail(o, "write to", w < 0 ? errno : EIO);
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Write out the buffered bytes, except a pinned record, which moves to the front of the buffer. */
void gen_out_flush(gen_out *o)
{
    size_t n = o->pin == GEN_OUT_NO_PIN ? o->len : o->pin;
    if (o->fd >= 0 && n > 0)
        gen_out_write_all(o, o->buf, n);
    if (n < o->len)
        memmove(o->buf, o->buf + n, o->len - n);
    o->len -= n;
    if (o->pin != GEN_OUT_NO_PIN)
        o->pin = 0;
}

void gen_out_mem_slow(gen_out *o, const char *s, size_t n)
{
    gen_out_flush(o);
    if (o->len + n <= GEN_OUT_BUF_SIZE) {
        memcpy(o->buf + o->len, s, n);
        o->len += n;
        o->total += n;
        return;
    }
    if (o->pin != GEN_OUT_NO_PIN) { /* the open record alone would overflow the buffer */
        gen_out_fail(o, "buffer a record (over 4 MiB) of", EFBIG);
        o->total += n;
        return;
    }
    while (n > 0) { /* oversized piece: pass it through in buffer-sized chunks (o->len is 0 here) */
        size_t k = n < GEN_OUT_BUF_SIZE ? n : GEN_OUT_BUF_SIZE;
        memcpy(o->buf, s, k);
        o->len = k;
        o->total += k;
        gen_out_flush(o);
        s += k;
        n -= k;
    }
}

char *gen_out_spare(gen_out *o, size_t n)
{
    if (GEN_OUT_BUF_SIZE - o->len < n)
        gen_out_flush(o);
    return GEN_OUT_BUF_SIZE - o->len >= n ? o->buf + o->len : NULL;
}

int gen_out_close(gen_out *o, gen_err *err)
{
    char tmp[128];
    gen_out_unpin(o);
    gen_out_flush(o);
    if (o->fd >= 0 && close(o->fd) != 0)
        gen_out_fail(o, "close", errno);
    if (o->failed)
        gen_err_set(err, "cannot %s %s: %s", o->what, o->path, gen_err_errno(o->err, tmp, sizeof tmp));
    free(o->buf);
    o->buf = NULL;
    o->fd = -1;
    return o->failed ? -1 : 0;
}

void gen_out_raw(gen_out *o, const char *s)
{
    gen_out_mem(o, s, strlen(s));
}

size_t gen_fmt_u64(char *dst, uint64_t v)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned i = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = gen_out_digits2[i + 1];
        *--p = gen_out_digits2[i];
    }
    if (v >= 10) {
        unsigned i = (unsigned)v * 2;
        *--p = gen_out_digits2[i + 1];
        *--p = gen_out_digits2[i];
    } else {
        *--p = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof tmp - p);
    memcpy(dst, p, n);
    return n;
}

void gen_out_u64(gen_out *o, uint64_t v)
{
    char tmp[24];
    gen_out_mem(o, tmp, gen_fmt_u64(tmp, v));
}

void gen_out_i64(gen_out *o, int64_t v)
{
    if (v < 0) {
        gen_out_ch(o, '-');
        gen_out_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        gen_out_u64(o, (uint64_t)v);
    }
}

void gen_out_hex(gen_out *o, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do {
        tmp[15 - n++] = hex[v & 15];
        v >>= 4;
    } while (v);
    gen_out_mem(o, tmp + 16 - n, (size_t)n);
}

void gen_out_hex_fixed(gen_out *o, uint64_t v, int digits)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[16];
    if (digits > 16)
        digits = 16;
    for (int i = digits - 1; i >= 0; i--) {
        tmp[i] = hex[v & 15];
        v >>= 4;
    }
    gen_out_mem(o, tmp, (size_t)digits);
}

size_t gen_fmt_f64(char *dst, size_t cap, double v)
{
    if (!isfinite(v))
        v = 0.0;
    if (v == floor(v) && fabs(v) < 1e15) { /* integral: print as an integer-looking float */
        int n = snprintf(dst, cap, "%.1f", v);
        return n > 0 ? (size_t)n : 0;
    }
    for (int prec = 6; prec <= 17; prec++) {
        int n = snprintf(dst, cap, "%.*g", prec, v);
        if (n > 0 && strtod(dst, NULL) == v)
            return (size_t)n;
    }
    int n = snprintf(dst, cap, "%.17g", v);
    return n > 0 ? (size_t)n : 0;
}

void gen_out_f64(gen_out *o, double v)
{
    char tmp[40];
    gen_out_mem(o, tmp, gen_fmt_f64(tmp, sizeof tmp, v));
}

static int gen_out_needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

void gen_out_str(gen_out *o, const char *s)
{
    gen_out_ch(o, '"');
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!gen_out_needs_escape(c))
            continue;
        gen_out_mem(o, run, (size_t)(s - run));
        run = s + 1;
        if (c == '"' || c == '\\') {
            gen_out_ch(o, '\\');
            gen_out_ch(o, (char)c);
        } else {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", c);
            gen_out_mem(o, esc, 6);
        }
    }
    gen_out_mem(o, run, (size_t)(s - run));
    gen_out_ch(o, '"');
}
