/* Unit tests for analyzers/readers/json_stream: every token kind with depth and offset, escapes and
 * surrogates, exact 64-bit integers, the depth/string/number caps, malformed input with the exact offset
 * and code, chunk independence (one byte at a time, random chunks, zero-copy pushes), and flat objects
 * decoded in one call (json_stream_flat_object) giving exactly the tokens of json_stream_next. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_stream.h"
#include "token_text.h"

/* ---- helpers ------------------------------------------------------------------------------------------ */

/* Drain tokens until NEED_MORE/END/ERROR; returns that status. */
static json_stream_status drain(json_stream *js, token_text *b, nl_error *err)
{
    for (;;) {
        json_stream_token t;
        json_stream_status st = json_stream_next(js, &t, err);
        if (st != JSON_STREAM_TOKEN)
            return st;
        token_text_token(b, &t, 0);
    }
}

/* Tokenize `doc` pushed in chunks of the sizes produced by `next_chunk` (NULL = all at once), copied or
 * zero-copy (then with garbage written past each chunk). The result ends with "END" or "ERROR code offset". */
static char *tokenize_chunked(const char *doc, size_t len, size_t (*next_chunk)(void *), void *ctx, int zero_copy)
{
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    assert_non_null(js);
    token_text b = {0};
    size_t pos = 0;
    json_stream_status st = JSON_STREAM_NEED_MORE;
    while (st == JSON_STREAM_NEED_MORE) {
        if (pos == len) {
            json_stream_finish(js);
        } else {
            size_t n = next_chunk ? next_chunk(ctx) : len;
            if (n > len - pos)
                n = len - pos;
            if (zero_copy) {
                size_t avail;
                char *dst = json_stream_reserve(js, n, &avail, &err);
                assert_non_null(dst);
                assert_true(avail >= n);
                memcpy(dst, doc + pos, n);
                memset(dst + n, '"', avail - n); /* garbage past the chunk must never be read */
                json_stream_commit(js, n);
            } else {
                assert_int_equal(json_stream_feed(js, doc + pos, n, &err), 0);
            }
            pos += n;
        }
        st = drain(js, &b, &err);
    }
    if (st == JSON_STREAM_END)
        token_text_add(&b, "END\n");
    else
        token_text_add(&b, "ERROR %s %lld\n", nl_error_code_name(err.code), (long long)err.offset);
    json_stream_free(js);
    return b.s;
}

static char *tokenize(const char *doc)
{
    return tokenize_chunked(doc, strlen(doc), NULL, NULL, 0);
}

/* Tokenize `doc` whole; expect an error; return it (err poisoned first so unset fields show). */
static nl_error expect_error(const char *doc, size_t len, const json_stream_options *opt)
{
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    json_stream *js = json_stream_new(opt, &err);
    assert_non_null(js);
    assert_int_equal(json_stream_feed(js, doc, len, &err), 0);
    json_stream_finish(js);
    token_text b = {0};
    json_stream_status st = drain(js, &b, &err);
    if (st != JSON_STREAM_ERROR)
        fail_msg("expected an error for '%.*s', got status %d after tokens:\n%s", (int)len, doc, (int)st,
                 b.s ? b.s : "");
    /* the error is sticky */
    json_stream_token t;
    nl_error again;
    assert_int_equal(json_stream_next(js, &t, &again), JSON_STREAM_ERROR);
    assert_int_equal(again.code, err.code);
    assert_int_equal(again.offset, err.offset);
    json_stream_free(js);
    free(b.s);
    return err;
}

/* ---- token kinds -------------------------------------------------------------------------------------- */

static void every_token_kind_has_depth_and_offset(void **state)
{
    (void)state;
    const char *doc = "{\"a\": [1, -2, 3.5, \"s\", true, false, null, {}, []]}";
    char *got = tokenize(doc);
    const char *want = "1 0 0\n"                 /* {       */
                       "5 1 1 [61]\n"            /* "a"     */
                       "3 1 6\n"                 /* [       */
                       "7 2 7 [31] i=1\n"        /* 1       */
                       "7 2 10 [2d32] i=-2\n"    /* -2      */
                       "9 2 14 [332e35] d=3.5\n" /* 3.5     */
                       "6 2 19 [73]\n"           /* "s"     */
                       "10 2 24\n"               /* true    */
                       "11 2 30\n"               /* false   */
                       "12 2 37\n"               /* null    */
                       "1 2 43\n"                /* {       */
                       "2 2 44\n"                /* }       */
                       "3 2 47\n"                /* [       */
                       "4 2 48\n"                /* ]       */
                       "4 1 49\n"                /* ]       */
                       "2 0 50\n"                /* }       */
                       "END\n";
    assert_string_equal(got, want);
    free(got);
}

static void top_level_scalar_with_whitespace_is_one_value(void **state)
{
    (void)state;
    char *got = tokenize(" \t\r\n 42 \n");
    assert_string_equal(got, "7 0 5 [3432] i=42\nEND\n");
    free(got);
}

/* ---- strings ------------------------------------------------------------------------------------------ */

static json_stream_token one_string(json_stream *js, const char *doc, nl_error *err)
{
    json_stream_reset(js);
    assert_int_equal(json_stream_feed(js, doc, strlen(doc), err), 0);
    json_stream_finish(js);
    json_stream_token t;
    assert_int_equal(json_stream_next(js, &t, err), JSON_STREAM_TOKEN);
    assert_int_equal(t.kind, JSON_STREAM_STRING);
    return t;
}

static void escapes_are_decoded(void **state)
{
    (void)state;
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    json_stream_token t = one_string(js, "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", &err);
    assert_int_equal(t.len, 8);
    assert_memory_equal(t.str, "\"\\/\b\f\n\r\t", 8);
    t = one_string(js, "\"caf\\u00e9 \\u20ac\"", &err);
    assert_int_equal(t.len, 9);
    assert_memory_equal(t.str, "caf\xc3\xa9 \xe2\x82\xac", 9);
    t = one_string(js, "\"\\ud83d\\ude00!\"", &err); /* U+1F600 as a surrogate pair */
    assert_int_equal(t.len, 5);
    assert_memory_equal(t.str, "\xf0\x9f\x98\x80!", 5);
    t = one_string(js, "\"a\\u0000b\"", &err); /* embedded NUL survives */
    assert_int_equal(t.len, 3);
    assert_memory_equal(t.str, "a\0b", 3);
    t = one_string(js, "\"\\uD834\\uDD1E\"", &err); /* upper-case hex, U+1D11E */
    assert_int_equal(t.len, 4);
    assert_memory_equal(t.str, "\xf0\x9d\x84\x9e", 4);
    t = one_string(js, "\"plain long string without escapes, longer than 8 bytes\"", &err);
    assert_int_equal(t.len, 54);
    json_stream_free(js);
}

static void lone_surrogates_and_bad_escapes_are_rejected(void **state)
{
    (void)state;
    static const struct {
        const char *doc;
        int64_t offset;
    } cases[] = {
        {"[\"ab\\ud83d\"]", 4},         /* high surrogate at the end */
        {"[\"\\ud83d\\u0041\"]", 2},    /* high surrogate followed by a non-low escape */
        {"[\"\\ude00\"]", 2},           /* lone low surrogate */
        {"[\"\\u12\"]", 2},             /* too few hex digits */
        {"[\"\\u12g4\"]", 2},           /* bad hex digit */
        {"[\"\\x\"]", 2},               /* unknown escape */
        {"[\"tab\there\"]", 5},          /* raw control character */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nl_error err = expect_error(cases[i].doc, strlen(cases[i].doc), NULL);
        assert_int_equal(err.code, NL_ERR_FORMAT);
        if (err.offset != cases[i].offset)
            fail_msg("case %zu '%s': offset %lld, want %lld", i, cases[i].doc, (long long)err.offset,
                     (long long)cases[i].offset);
        assert_true(err.message[0] != '\0');
    }
}

/* ---- numbers ------------------------------------------------------------------------------------------ */

static json_stream_token one_number(const char *doc)
{
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    assert_int_equal(json_stream_feed(js, doc, strlen(doc), &err), 0);
    json_stream_finish(js);
    json_stream_token t;
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(t.len, strlen(doc));
    assert_memory_equal(t.str, doc, t.len);
    json_stream_free(js);
    return t;
}

static void big_integers_stay_exact(void **state)
{
    (void)state;
    json_stream_token t = one_number("18446744073709551615");
    assert_int_equal(t.kind, JSON_STREAM_UINT);
    assert_true(t.u == UINT64_MAX);
    t = one_number("9223372036854775807");
    assert_int_equal(t.kind, JSON_STREAM_INT);
    assert_true(t.i == INT64_MAX);
    t = one_number("9223372036854775808");
    assert_int_equal(t.kind, JSON_STREAM_UINT);
    assert_true(t.u == (uint64_t)INT64_MAX + 1);
    t = one_number("-9223372036854775808");
    assert_int_equal(t.kind, JSON_STREAM_INT);
    assert_true(t.i == INT64_MIN);
    t = one_number("9200000000000000001"); /* > 2^53: a double would make it ...000000 */
    assert_int_equal(t.kind, JSON_STREAM_INT);
    assert_true(t.i == 9200000000000000001LL);
    t = one_number("4767622535416772230"); /* a real packet_aggregation_id */
    assert_true(t.i == 4767622535416772230LL);
    t = one_number("9.2e18"); /* exponent form is a double, by the JSON grammar */
    assert_int_equal(t.kind, JSON_STREAM_DOUBLE);
    assert_true(t.d == 9.2e18);
    t = one_number("18446744073709551616"); /* beyond uint64 */
    assert_int_equal(t.kind, JSON_STREAM_DOUBLE);
    assert_true(t.d == 18446744073709551616.0);
    t = one_number("-9223372036854775809");
    assert_int_equal(t.kind, JSON_STREAM_DOUBLE);
    t = one_number("-0");
    assert_int_equal(t.kind, JSON_STREAM_INT);
    assert_true(t.i == 0);
    t = one_number("1E-3");
    assert_int_equal(t.kind, JSON_STREAM_DOUBLE);
    assert_true(t.d == 1e-3);
    t = one_number("0.001869298853");
    assert_true(t.d == 0.001869298853);
}

/* ---- caps --------------------------------------------------------------------------------------------- */

static void nesting_deeper_than_the_cap_is_a_limit_error(void **state)
{
    (void)state;
    char doc[600];
    memset(doc, '[', sizeof doc);
    nl_error err = expect_error(doc, sizeof doc, NULL);
    assert_int_equal(err.code, NL_ERR_LIMIT);
    assert_int_equal(err.offset, JSON_STREAM_DEPTH_MAX);
    json_stream_options opt = {.depth_max = 3, .source = "deep.json"};
    err = expect_error("[[[[1]]]]", 9, &opt);
    assert_int_equal(err.code, NL_ERR_LIMIT);
    assert_int_equal(err.offset, 3);
    assert_string_equal(err.source, "deep.json");
    /* exactly at the cap is fine */
    nl_error e2;
    json_stream *js = json_stream_new(&opt, &e2);
    assert_int_equal(json_stream_feed(js, "[[[1]]]", 7, &e2), 0);
    json_stream_finish(js);
    token_text b = {0};
    assert_int_equal(drain(js, &b, &e2), JSON_STREAM_END);
    free(b.s);
    json_stream_free(js);
}

static void long_strings_and_numbers_hit_their_caps(void **state)
{
    (void)state;
    json_stream_options opt = {.string_max = 10};
    nl_error err = expect_error("[\"0123456789A\"]", 15, &opt);
    assert_int_equal(err.code, NL_ERR_LIMIT);
    assert_int_equal(err.offset, 1);
    char num[JSON_STREAM_NUMBER_MAX + 10];
    num[0] = '[';
    memset(num + 1, '7', sizeof num - 2);
    num[sizeof num - 1] = ']';
    err = expect_error(num, sizeof num, NULL);
    assert_int_equal(err.code, NL_ERR_LIMIT);
    assert_int_equal(err.offset, 1);
}

/* ---- malformed input ---------------------------------------------------------------------------------- */

static void malformed_input_reports_code_and_exact_offset(void **state)
{
    (void)state;
    static const struct {
        const char *doc;
        nl_error_code code;
        int64_t offset;
    } cases[] = {
        {"{\"a\" 1}", NL_ERR_FORMAT, 5},      /* missing ':' */
        {"[1,]", NL_ERR_FORMAT, 3},           /* trailing comma */
        {"[1 2]", NL_ERR_FORMAT, 3},          /* missing comma */
        {"{\"a\":1,}", NL_ERR_FORMAT, 7},     /* trailing comma in object */
        {"{1:2}", NL_ERR_FORMAT, 1},          /* non-string key */
        {"[01]", NL_ERR_FORMAT, 1},           /* leading zero */
        {"[1.]", NL_ERR_FORMAT, 1},           /* fraction without digits */
        {"[-]", NL_ERR_FORMAT, 1},            /* sign alone */
        {"[+1]", NL_ERR_FORMAT, 1},           /* plus sign */
        {"[.5]", NL_ERR_FORMAT, 1},           /* no integer part */
        {"[tru]", NL_ERR_FORMAT, 1},          /* bad literal */
        {"[nulL]", NL_ERR_FORMAT, 1},         /* literals are case-sensitive */
        {"NaN", NL_ERR_FORMAT, 0},            /* not JSON */
        {"[1]]", NL_ERR_FORMAT, 3},           /* data after the value */
        {"{\"a\":1}x", NL_ERR_FORMAT, 7},     /* data after the value */
        {"[1}", NL_ERR_FORMAT, 2},            /* mismatched bracket */
        {"{\"a\":1]", NL_ERR_FORMAT, 6},      /* mismatched bracket */
        {"}", NL_ERR_FORMAT, 0},              /* close without open */
        {"[1,2", NL_ERR_TRUNCATED, 4},        /* cut after a value */
        {"{\"a\":1", NL_ERR_TRUNCATED, 6},    /* cut inside an object */
        {"[\"abc", NL_ERR_TRUNCATED, 5},      /* cut inside a string */
        {"[\"ab\\", NL_ERR_TRUNCATED, 5},     /* cut after a backslash */
        {"[1e", NL_ERR_TRUNCATED, 3},         /* cut inside a number */
        {"[-", NL_ERR_TRUNCATED, 2},          /* cut after a sign */
        {"[nul", NL_ERR_TRUNCATED, 4},        /* cut inside a literal */
        {"{\"a\"", NL_ERR_TRUNCATED, 4},      /* cut before ':' */
        {"", NL_ERR_TRUNCATED, 0},            /* empty */
        {"  \n", NL_ERR_TRUNCATED, 3},        /* whitespace only */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_stream_options opt = {.source = "case.json"};
        nl_error err = expect_error(cases[i].doc, strlen(cases[i].doc), &opt);
        if (err.code != cases[i].code || err.offset != cases[i].offset)
            fail_msg("case %zu '%s': got %s at %lld (%s), want %s at %lld", i, cases[i].doc,
                     nl_error_code_name(err.code), (long long)err.offset, err.message,
                     nl_error_code_name(cases[i].code), (long long)cases[i].offset);
        assert_string_equal(err.source, "case.json");
        assert_true(err.message[0] != '\0');
        assert_int_equal(err.record, -1);
        assert_string_equal(err.field, "");
    }
}

static void offsets_count_bytes_across_many_chunks(void **state)
{
    (void)state;
    /* an error far into a stream that was pushed in small pieces reports the absolute offset */
    size_t n = 100000;
    char *doc = malloc(n + 3);
    doc[0] = '[';
    for (size_t i = 1; i < n; i += 2) {
        doc[i] = '1';
        doc[i + 1] = ',';
    }
    doc[n - 1] = ']'; /* "...,1,]" → trailing comma error at n-1 */
    size_t pos = 0;
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    token_text b = {0};
    json_stream_status st = JSON_STREAM_NEED_MORE;
    while (st == JSON_STREAM_NEED_MORE) {
        size_t k = n - pos < 777 ? n - pos : 777;
        if (k == 0)
            json_stream_finish(js);
        assert_int_equal(json_stream_feed(js, doc + pos, k, &err), 0);
        pos += k;
        b.len = 0;
        st = drain(js, &b, &err);
    }
    assert_int_equal(st, JSON_STREAM_ERROR);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, (int64_t)n - 1);
    free(b.s);
    free(doc);
    json_stream_free(js);
}

/* ---- chunk independence ------------------------------------------------------------------------------- */

static const char chunk_doc[] =
    "{\"metadata\":[{\"first_hw_timestamp\":0,\"pe_clock_freq\":2.8,\"is_ext\":true,\"x\":null}],\n"
    " \"instruction\" : [ {\"id\": 18446744073709551615, \"opcode\":\"EVENT_SEMAPHORE\", \"timestamp\": -7,"
    " \"hlo_attrs\":\"[{\\\"op_type\\\":\\\"\\\",\\\"source_file\\\":\\\"a\\\\\\/b.py\\\",\\\"source_line\\\":\\\"0\\\"}]\","
    " \"u\":\"\\ud83d\\ude00 caf\\u00e9 \\t\\n tail that is long enough to cross many eight byte words\","
    " \"nested\":{\"deep\":[[[],[{}]],1e-7,-0.5E+3]}, \"f\":false},\n"
    "  {\"id\":9.2e18,\"empty\":\"\",\"arr\":[ ]}\t]\r\n}\n";

static size_t chunk_one(void *ctx)
{
    (void)ctx;
    return 1;
}

static size_t chunk_random(void *ctx)
{
    unsigned *seed = ctx;
    *seed = *seed * 1103515245u + 12345u;
    return 1 + (*seed >> 16) % 23;
}

static void chunk_boundaries_do_not_change_tokens(void **state)
{
    (void)state;
    size_t len = sizeof chunk_doc - 1;
    char *whole = tokenize_chunked(chunk_doc, len, NULL, NULL, 0);
    assert_non_null(strstr(whole, "END\n"));
    char *bytewise = tokenize_chunked(chunk_doc, len, chunk_one, NULL, 0);
    assert_string_equal(bytewise, whole);
    free(bytewise);
    char *bytewise_zc = tokenize_chunked(chunk_doc, len, chunk_one, NULL, 1);
    assert_string_equal(bytewise_zc, whole);
    free(bytewise_zc);
    for (unsigned seed = 1; seed <= 200; seed++) {
        unsigned s = seed;
        char *got = tokenize_chunked(chunk_doc, len, chunk_random, &s, (int)(seed & 1));
        if (strcmp(got, whole) != 0)
            fail_msg("seed %u differs:\n%s\nwant:\n%s", seed, got, whole);
        free(got);
    }
    free(whole);
}

static void every_prefix_is_truncated_at_its_length(void **state)
{
    (void)state;
    size_t len = sizeof chunk_doc - 1;
    while (len > 0 && (chunk_doc[len - 1] == '\n' || chunk_doc[len - 1] == '}'))
        len--; /* strip the final '}' and newlines: every prefix up to here is an unfinished document */
    for (size_t cut = 1; cut <= len; cut++) {
        nl_error err = expect_error(chunk_doc, cut, NULL);
        if (err.code != NL_ERR_TRUNCATED || err.offset != (int64_t)cut)
            fail_msg("cut at %zu: %s at %lld (%s)", cut, nl_error_code_name(err.code), (long long)err.offset,
                     err.message);
    }
}

static void a_long_string_fed_bytewise_stays_linear(void **state)
{
    (void)state;
    /* 4 MB string one byte per push: quadratic rescanning would take minutes */
    size_t n = 4u << 20;
    char *doc = malloc(n + 2);
    doc[0] = '"';
    memset(doc + 1, 'x', n);
    doc[n + 1] = '"';
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    json_stream_token t;
    for (size_t i = 0; i < n + 1; i++) {
        assert_int_equal(json_stream_feed(js, doc + i, 1, &err), 0);
        assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_NEED_MORE);
    }
    assert_int_equal(json_stream_feed(js, doc + n + 1, 1, &err), 0);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(t.len, n);
    json_stream_finish(js);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_END);
    free(doc);
    json_stream_free(js);
}

/* Integers inside a container take the one-pass fast path (8 digits at a time, js_eight_digits): every
 * length from 1 to 21 digits, signs, and digit patterns that stress the SWAR check ('0', '9', mixed), must
 * give exactly what strtoll/strtoull give, and switch to UINT / DOUBLE at the same boundaries. */
static void integers_of_every_length_convert_exactly_inside_arrays(void **state)
{
    (void)state;
    static const char *const patterns[] = {"9", "0", "1234567890", "9876543210", "5"};
    for (size_t pat = 0; pat < sizeof patterns / sizeof patterns[0]; pat++) {
        for (int digits = 1; digits <= 21; digits++) {
            for (int neg = 0; neg <= 1; neg++) {
                char num[32];
                size_t n = 0, pl = strlen(patterns[pat]);
                if (neg)
                    num[n++] = '-';
                for (int d = 0; d < digits; d++)
                    num[n++] = patterns[pat][(size_t)d % pl];
                if (digits > 1 && num[neg] == '0')
                    num[neg] = '7'; /* no leading zero */
                num[n] = '\0';
                for (int padded = 0; padded <= 1; padded++) {
                char doc[80];
                /* padded: ≥ 24 bytes follow, so the wide digit counter (js_digits_wide) converts it */
                snprintf(doc, sizeof doc, padded ? "[%s,\"................................\"]" : "[%s,1]", num);
                json_stream *js = json_stream_new(NULL, NULL);
                assert_non_null(js);
                nl_error err;
                assert_int_equal(json_stream_feed(js, doc, strlen(doc), &err), 0);
                json_stream_finish(js);
                json_stream_token t;
                assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
                assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
                assert_int_equal(t.len, n);
                errno = 0;
                long long sv = strtoll(num, NULL, 10);
                if (errno == 0) {
                    assert_int_equal(t.kind, JSON_STREAM_INT);
                    assert_true(t.i == sv);
                } else if (!neg && (errno = 0, strtoull(num, NULL, 10), errno == 0)) {
                    assert_int_equal(t.kind, JSON_STREAM_UINT);
                    assert_true(t.u == strtoull(num, NULL, 10));
                } else {
                    assert_int_equal(t.kind, JSON_STREAM_DOUBLE);
                }
                json_stream_free(js);
                }
            }
        }
    }
}

/* ---- flat objects in one call ------------------------------------------------------------------------- */

/* Tokens of `doc` (an array) rendered like tokenize(), but taking every element that json_stream_flat_object
 * accepts in one call (its members rendered as BEGIN, key, value..., END). *flat = how many it took. */
static char *tokenize_flat(const char *doc, size_t *flat)
{
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    assert_non_null(js);
    assert_int_equal(json_stream_feed(js, doc, strlen(doc), &err), 0);
    json_stream_finish(js);
    token_text b = {0};
    *flat = 0;
    for (;;) {
        json_stream_member m[8];
        size_t n;
        int64_t open, close;
        int64_t before = json_stream_offset(js);
        if (json_stream_depth(js) == 1 && json_stream_flat_object(js, m, 8, &n, &open, &close)) {
            json_stream_token edge = {.kind = JSON_STREAM_OBJECT_BEGIN, .depth = 1, .offset = open};
            token_text_token(&b, &edge, 0);
            for (size_t i = 0; i < n; i++) {
                token_text_token(&b, &m[i].key, 0);
                token_text_token(&b, &m[i].value, 0);
            }
            edge.kind = JSON_STREAM_OBJECT_END;
            edge.offset = close;
            token_text_token(&b, &edge, 0);
            ++*flat;
            continue;
        }
        assert_int_equal(json_stream_offset(js), before); /* a decline consumes nothing */
        json_stream_token t;
        json_stream_status st = json_stream_next(js, &t, &err);
        if (st == JSON_STREAM_END)
            break;
        if (st != JSON_STREAM_TOKEN) {
            token_text_add(&b, "ERROR %s %lld\n", nl_error_code_name(err.code), (long long)err.offset);
            json_stream_free(js);
            return b.s;
        }
        token_text_token(&b, &t, 0);
    }
    token_text_add(&b, "END\n");
    json_stream_free(js);
    return b.s;
}

/* Objects of scalars give exactly json_stream_next's tokens (kinds, depths, offsets, decoded bytes,
 * values); objects the fast path declines (whitespace inside, escaped key, more than 8 members, errors)
 * are left whole to json_stream_next, which then reports the same tokens or the same error. */
static void flat_objects_give_the_tokens_of_next(void **state)
{
    (void)state;
    static const struct {
        const char *doc;
        size_t flat;
    } cases[] = {
        {"[{\"a\":1,\"b\":-2,\"c\":18446744073709551615,\"d\":-0.5e3,\"e\":true,\"f\":false,\"g\":null}]", 1},
        {"[{},{\"s\":\"x\\\"y\\u00e9\\ud83d\\ude00\\n\",\"t\":\"\",\"u\":\"\\\\\"}]", 2},
        {"[ {\"a\":1},\n {\"b\":\"c\"}\t]", 2},              /* whitespace after ',' (pretty-printed) */
        {"[{\"a\":1} ,{\"b\":2}]", 1},                        /* before ',': next() takes the ',' and '{' */
        {"[{\"a\": 1},{\"b\":2}]", 1},                        /* whitespace inside: declined */
        {"[{\"\\u0061\":1},{\"b\":2}]", 1},                   /* escaped key: declined */
        {"[{\"1\":1,\"2\":2,\"3\":3,\"4\":4,\"5\":5,\"6\":6,\"7\":7,\"8\":8,\"9\":9}]", 0}, /* > 8 */
        {"[{\"a\":01}]", 0},                                   /* errors: declined, next() reports */
        {"[{\"a\":\"\\q\"}]", 0},
        {"[{\"a\":tru}]", 0},
        {"[{\"a\":1,}]", 0},
        {"[{\"a\":1}", 1},                                     /* truncated after the object */
        {"[{\"a\":\"\x01\"}]", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t flat;
        char *want = tokenize(cases[i].doc);
        char *got = tokenize_flat(cases[i].doc, &flat);
        if (strcmp(want, got) != 0)
            fail_msg("%s:\nnext():\n%s\nflat:\n%s", cases[i].doc, want, got);
        if (flat != cases[i].flat)
            fail_msg("%s: %zu objects taken whole, expected %zu", cases[i].doc, flat, cases[i].flat);
        free(want);
        free(got);
    }
}

/* A nested member value is validated and returned whole: BEGIN kind, its offset, str/len = its raw text. */
static void flat_objects_return_nested_values_raw(void **state)
{
    (void)state;
    const char *doc = "[{\"p\":[{\"id\":1,\"t\":\"x},{\"},{}],\"q\":{\"a\":[[]]},\"r\":2}]";
    json_stream *js = json_stream_new(NULL, NULL);
    assert_non_null(js);
    nl_error err;
    assert_int_equal(json_stream_feed(js, doc, strlen(doc), &err), 0);
    json_stream_finish(js);
    json_stream_token t;
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    json_stream_member m[4];
    size_t n;
    int64_t open, close;
    assert_int_equal(json_stream_flat_object(js, m, 4, &n, &open, &close), 1);
    assert_int_equal(n, 3);
    assert_int_equal(open, 1);
    assert_int_equal(close, (int64_t)strlen(doc) - 2);
    assert_int_equal(m[0].value.kind, JSON_STREAM_ARRAY_BEGIN);
    assert_int_equal(m[0].value.offset, 6);
    assert_int_equal(m[0].value.depth, 2);
    assert_int_equal(m[0].value.len, strlen("[{\"id\":1,\"t\":\"x},{\"},{}]"));
    assert_memory_equal(m[0].value.str, "[{\"id\":1,", 9);
    assert_int_equal(m[1].value.kind, JSON_STREAM_OBJECT_BEGIN);
    assert_int_equal(m[1].value.len, strlen("{\"a\":[[]]}"));
    assert_int_equal(m[2].value.kind, JSON_STREAM_INT);
    assert_int_equal(m[2].value.i, 2);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(t.kind, JSON_STREAM_ARRAY_END);
    json_stream_free(js);
    /* invalid or escaped nested values are declined; next() then reports or decodes them */
    static const char *const declined[] = {"[{\"p\":[1,,2]}]", "[{\"p\":[1}]}]", "[{\"p\":{a:1}}]",
                                           "[{\"p\":[\"\\\"\"]}]", "[{\"p\":[1]"};
    for (size_t i = 0; i < sizeof declined / sizeof declined[0]; i++) {
        size_t flat;
        char *want = tokenize(declined[i]);
        char *got = tokenize_flat(declined[i], &flat);
        assert_string_equal(want, got);
        assert_int_equal(flat, 0);
        free(want);
        free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_token_kind_has_depth_and_offset),
        cmocka_unit_test(top_level_scalar_with_whitespace_is_one_value),
        cmocka_unit_test(escapes_are_decoded),
        cmocka_unit_test(lone_surrogates_and_bad_escapes_are_rejected),
        cmocka_unit_test(big_integers_stay_exact),
        cmocka_unit_test(integers_of_every_length_convert_exactly_inside_arrays),
        cmocka_unit_test(flat_objects_give_the_tokens_of_next),
        cmocka_unit_test(flat_objects_return_nested_values_raw),
        cmocka_unit_test(nesting_deeper_than_the_cap_is_a_limit_error),
        cmocka_unit_test(long_strings_and_numbers_hit_their_caps),
        cmocka_unit_test(malformed_input_reports_code_and_exact_offset),
        cmocka_unit_test(offsets_count_bytes_across_many_chunks),
        cmocka_unit_test(chunk_boundaries_do_not_change_tokens),
        cmocka_unit_test(every_prefix_is_truncated_at_its_length),
        cmocka_unit_test(a_long_string_fed_bytewise_stays_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
