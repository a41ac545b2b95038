/* json_stream — a streaming JSON tokenizer (pull tokens, push bytes) with flat memory.
 *
 * Owns: its input buffer (holds unconsumed bytes: at most one partial token plus what the caller pushed),
 * a scratch buffer for strings with escapes, and the container stack (a bit per level). Bytes are pushed in
 * chunks of any size and boundary (json_stream_feed, or zero-copy json_stream_reserve + commit); tokens are
 * pulled with json_stream_next, which answers TOKEN, NEED_MORE (push more bytes, or finish), END or ERROR.
 * The grammar is RFC 8259, strict (one top-level value, no trailing commas, no comments, no NaN, no lone
 * surrogates); UTF-8 in strings is passed through unvalidated.
 * Threads: one json_stream per thread. Errors: nl_error with the absolute byte offset (NL_ERR_FORMAT,
 * NL_ERR_TRUNCATED when input ends inside a value, NL_ERR_LIMIT for the caps below, NL_ERR_NOMEM); after
 * an error every further call fails the same way. */
#ifndef NL_JSON_STREAM_H
#define NL_JSON_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

/* Default and hard caps on nesting depth, on one string's encoded length, and on a number's length. */
#define JSON_STREAM_DEPTH_MAX 256u
#define JSON_STREAM_DEPTH_LIMIT 4096u
#define JSON_STREAM_STRING_MAX ((size_t)64 << 20)
#define JSON_STREAM_NUMBER_MAX 512u

typedef enum json_stream_kind {
    JSON_STREAM_OBJECT_BEGIN = 1,
    JSON_STREAM_OBJECT_END,
    JSON_STREAM_ARRAY_BEGIN,
    JSON_STREAM_ARRAY_END,
    JSON_STREAM_KEY,    /* an object member name */
    JSON_STREAM_STRING, /* a string value */
    JSON_STREAM_INT,    /* integral number (no fraction/exponent) in int64 range: i (and d) */
    JSON_STREAM_UINT,   /* integral number in (INT64_MAX, UINT64_MAX]: u (and d) */
    JSON_STREAM_DOUBLE, /* any other number: d (±inf when out of double range; NAN with doubles_as_text) */
    JSON_STREAM_TRUE,
    JSON_STREAM_FALSE,
    JSON_STREAM_NULL,
} json_stream_kind;

typedef struct json_stream_token {
    json_stream_kind kind;
    uint32_t depth; /* containers enclosing the token; an END has the depth of its BEGIN; top value = 0 */
    int64_t offset; /* absolute byte offset of the token's first byte */
    /* KEY/STRING: the decoded bytes (UTF-8, may contain NUL); INT/UINT/DOUBLE: the literal as written.
     * Not NUL-terminated; borrowed until the next call on the stream. NULL/0 for other kinds. */
    const char *str;
    size_t len;
    int64_t i;
    uint64_t u;
    double d;
} json_stream_token;

typedef enum json_stream_status {
    JSON_STREAM_TOKEN,     /* *tok holds the next token */
    JSON_STREAM_NEED_MORE, /* every pushed byte is consumed or belongs to an unfinished token */
    JSON_STREAM_END,       /* json_stream_finish was called and the single top-level value is complete */
    JSON_STREAM_ERROR,     /* err is set; the stream is dead */
} json_stream_status;

typedef struct json_stream_options {
    const char *source;  /* name for error messages (a path); nullable, copied */
    uint32_t depth_max;  /* 0 = JSON_STREAM_DEPTH_MAX; clamped to JSON_STREAM_DEPTH_LIMIT */
    size_t string_max;   /* 0 = JSON_STREAM_STRING_MAX */
    /* Nonzero: a non-integral number is returned as JSON_STREAM_DOUBLE with d = NAN, its text in str/len
     * only. For readers that convert the text themselves (Kineto µs → exact ns): strtod is ~40% of the
     * tokenizer's time on timestamp-heavy traces and its result would be thrown away. */
    int doubles_as_text;
} json_stream_options;

typedef struct json_stream json_stream;

/* "an object", "a string", "a number", ... for error messages about a token of this kind. */
const char *json_stream_kind_word(json_stream_kind k);

/* A new tokenizer; opt may be NULL. NULL with err set (NL_ERR_NOMEM). */
json_stream *json_stream_new(const json_stream_options *opt, nl_error *err) __attribute__((warn_unused_result));
void json_stream_free(json_stream *js);
/* Forget all input and state (keeps options and buffers) to tokenize a new document. */
void json_stream_reset(json_stream *js);

/* Push bytes (copied). 0, or -1 with err set (NL_ERR_NOMEM). Invalidates the last token's pointers. */
int json_stream_feed(json_stream *js, const void *data, size_t len, nl_error *err) __attribute__((warn_unused_result));
/* Zero-copy push: a pointer to at least `min` writable bytes (*avail gets the exact count), then commit
 * how many were written. NULL with err set on NL_ERR_NOMEM. Invalidates the last token's pointers. */
char *json_stream_reserve(json_stream *js, size_t min, size_t *avail, nl_error *err)
    __attribute__((warn_unused_result));
void json_stream_commit(json_stream *js, size_t n);
/* No more input will come. */
void json_stream_finish(json_stream *js);

/* The next token. See json_stream_status. */
json_stream_status json_stream_next(json_stream *js, json_stream_token *tok, nl_error *err)
    __attribute__((warn_unused_result));

/* One member of a flat object: its key (kind KEY) and its scalar value, both as json_stream_next would have
 * returned them. */
typedef struct json_stream_member {
    json_stream_token key, value;
} json_stream_member;

/* Fast path for arrays of flat records (a neuron-profile export is one object of such arrays): when the
 * next value is an object whose members are all scalars, written compactly (no whitespace), without escapes,
 * at most `max` members, and complete in the pushed bytes, decode it whole into members[0, *count), set the
 * offsets of its '{' and '}', consume it, and return 1. Otherwise consume nothing and return 0: the caller
 * goes on with json_stream_next, which decides (and reports any error). Pointers are borrowed like a token's.
 * Why: per token, the state machine costs about as much as the scanning; a record of 24 members decoded in
 * one loop skips 50 rounds of it (see the numbers in neuron_json.c, nj_fast_records). */
int json_stream_flat_object(json_stream *js, json_stream_member *members, size_t max, size_t *count,
                            int64_t *open_offset, int64_t *close_offset) __attribute__((warn_unused_result));

/* Absolute offset of the first byte not yet consumed, and the current nesting depth. */
int64_t json_stream_offset(const json_stream *js);
uint32_t json_stream_depth(const json_stream *js);

/* Fast path for values a reader ignores: when the next value (after a key, or in an array) is valid and
 * complete in the pushed bytes — a scalar, or a container nested up to 64 levels inside itself — consume it
 * and return 1. Otherwise consume nothing and return 0: the caller goes on with json_stream_next, which
 * decides (and reports any error). It accepts only what json_stream_next accepts (same grammar, string_max
 * and depth_max; escapes are decoded to check them), so skipping never hides an error. Invalidates the last
 * token's pointers. Why: the args of a Kineto event are mostly arrays the model never reads ("Input Dims",
 * "Concrete Inputs"); one call skips them instead of a round of two state machines per token (kineto.c). */
int json_stream_skip_value(json_stream *js) __attribute__((warn_unused_result));

/* Fast path for objects read member by member: when the next thing in the current object is a member
 * (after its '{' or a ',') whose key has no escape and whose value starts in the pushed bytes, return 1 with
 * *key as json_stream_next would return it. A scalar value complete in the pushed bytes is in *value (as
 * json_stream_next would return it) and consumed with the key. A container value is not consumed:
 * value->kind is JSON_STREAM_OBJECT_BEGIN or JSON_STREAM_ARRAY_BEGIN (offset and depth set), and
 * json_stream_next returns its BEGIN next (or json_stream_skip_value skips it). Otherwise consume nothing
 * and return 0: json_stream_next decides. Whitespace is allowed anywhere. Pointers are borrowed like a
 * token's. Why: one call per member instead of two rounds (key, value) of the caller's and the tokenizer's
 * state machines (kineto.c). */
int json_stream_next_member(json_stream *js, json_stream_token *key, json_stream_token *value)
    __attribute__((warn_unused_result));

#endif
