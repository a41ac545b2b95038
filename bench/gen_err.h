/* gen_err — the one error report of a generator run: the first failure's message, in caller storage.
 *
 * Owns: nothing; `buf` is the caller's (gen_write's errbuf). Threads: one gen_err per run, never shared.
 * The first gen_err_set wins, so a late cleanup failure cannot hide the failure that caused it; later
 * calls are ignored. Nothing here prints: the library reports only through gen_write's return value and
 * message (stdout is the MCP channel when the server embeds it). */
#ifndef NL_GEN_ERR_H
#define NL_GEN_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct gen_err {
    char *buf;  /* nullable */
    size_t cap; /* 0: messages are dropped, failures still counted */
    int set;    /* a failure was recorded */
} gen_err;

static inline void gen_err_init(gen_err *e, char *buf, size_t cap)
{
    e->buf = cap ? buf : NULL;
    e->cap = buf ? cap : 0;
    e->set = 0;
    if (e->buf)
        e->buf[0] = '\0';
}

static inline __attribute__((format(printf, 2, 3))) void gen_err_set(gen_err *e, const char *fmt, ...)
{
    if (e->set)
        return;
    e->set = 1;
    if (!e->buf)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->buf, e->cap, fmt, ap);
    va_end(ap);
}

/* Thread-safe errno text (GNU strerror_r; the project builds with _GNU_SOURCE). */
static inline const char *gen_err_errno(int errnum, char *tmp, size_t cap)
{
    return strerror_r(errnum, tmp, cap);
}

#endif
