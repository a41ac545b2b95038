/* token_text — see token_text.h. Failures are cmocka assertions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "token_text.h"

void token_text_add(token_text *t, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof line);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    memcpy(t->s + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
}

void token_text_token(token_text *t, const json_stream_token *tok, int exact_doubles)
{
    token_text_add(t, "%d %u %lld", (int)tok->kind, tok->depth, (long long)tok->offset);
    if (tok->str) {
        token_text_add(t, " [");
        for (size_t i = 0; i < tok->len; i++)
            token_text_add(t, "%02x", (unsigned char)tok->str[i]);
        token_text_add(t, "]");
    }
    if (tok->kind == JSON_STREAM_INT)
        token_text_add(t, " i=%lld", (long long)tok->i);
    if (tok->kind == JSON_STREAM_UINT)
        token_text_add(t, " u=%llu", (unsigned long long)tok->u);
    if (tok->kind == JSON_STREAM_DOUBLE) {
        if (exact_doubles)
            token_text_add(t, " d=%a", tok->d);
        else
            token_text_add(t, " d=%.17g", tok->d);
    }
    token_text_add(t, "\n");
}
