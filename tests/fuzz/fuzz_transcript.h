/* fuzz_transcript — a growable byte buffer that records what a reader saw (tokens, values, errors), so two
 * readings of one input compare with one memcmp. Used by the differential targets; aborts on out of memory
 * (a fuzz harness, not the product). Header-only; caller storage; one thread. */
#ifndef NL_FUZZ_TRANSCRIPT_H
#define NL_FUZZ_TRANSCRIPT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fuzz_transcript {
    char *s;
    size_t len, cap;
} fuzz_transcript;

static inline void fuzz_transcript_bytes(fuzz_transcript *t, const void *p, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        char *s = realloc(t->s, cap);
        if (!s)
            abort();
        t->s = s;
        t->cap = cap;
    }
    if (n)
        memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static inline void fuzz_transcript_add(fuzz_transcript *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void fuzz_transcript_add(fuzz_transcript *t, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    fuzz_transcript_bytes(t, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* Where two transcripts first differ (for the failure message); equal ones return 0 and *at = length. */
static inline int fuzz_transcript_diff(const fuzz_transcript *a, const fuzz_transcript *b, size_t *at)
{
    size_t i = 0;
    while (i < a->len && i < b->len && a->s[i] == b->s[i])
        i++;
    *at = i;
    return !(a->len == b->len && i == a->len);
}

/* Print the line of `t` holding byte `at` (and the one before), bytes outside printable ASCII as \xNN. */
static inline void fuzz_transcript_show(const fuzz_transcript *t, size_t at, const char *label)
{
    size_t from = at < t->len ? at : t->len, lines = 0;
    while (from > 0 && !(t->s[from - 1] == '\n' && ++lines == 2))
        from--;
    fprintf(stderr, "%s: ", label);
    for (size_t i = from, nl = 0; i < t->len && nl < 3; i++) {
        unsigned char c = (unsigned char)t->s[i];
        nl += c == '\n';
        if (c == '\n')
            fputs("\n\n    ", stderr);
        else if (c >= 0x20 && c < 0x7f)
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    fputc('\n', stderr);
}

static inline void fuzz_transcript_free(fuzz_transcript *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}

#endif
