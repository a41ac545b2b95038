/* token_text — tokens of analyzers/readers/json_stream rendered as text lines ("kind depth offset [bytes]
 * value"), so that two token streams compare with one strcmp. Shared by the json_stream tests. */
#ifndef NL_TEST_TOKEN_TEXT_H
#define NL_TEST_TOKEN_TEXT_H

#include <stddef.h>

#include "json_stream.h"

typedef struct token_text {
    char *s; /* NUL-terminated; malloc'd (free it) */
    size_t len, cap;
} token_text;

/* Append a formatted line fragment (a line is at most 511 bytes). */
void token_text_add(token_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append one token's line; doubles as %a when exact_doubles (bit-exact), else %.17g. */
void token_text_token(token_text *t, const json_stream_token *tok, int exact_doubles);

#endif
