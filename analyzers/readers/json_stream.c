/* json_stream — see json_stream.h.
 *
 * Why not jansson (or any tree parser) for profile exports: a DOM of a 1 GB neuron-profile export takes
 * ~5 GB of RAM (formats.md §4.1; Python's json.load: 4.8 GB and 22-33 s measured) and allocates per value.
 * This tokenizer keeps only the bytes of one unfinished token plus one input chunk, allocates nothing per
 * token, and scans strings 16 bytes at a time, so it runs near memory-scan speed in flat memory
 * (bench/RESULTS.md compares it with a bare memchr pass and with Python's json.load).
 *
 * Buffer: buf[start, end) holds pushed bytes not yet consumed; base is the absolute offset of buf[0].
 * A token is consumed (start moves past it) only when it is complete. If a string, number or literal is
 * cut by the end of the pushed bytes, next() answers NEED_MORE and leaves start at the token's first byte;
 * for strings it remembers how far it scanned (`resume`, `resume_escape`) so feeding one byte at a time
 * stays linear. Pushing compacts (moves the unfinished token to buf[0]) only when the free tail is too
 * small, and doubles the buffer when the live bytes fill more than half of it, so total copying is linear.
 *
 * Grammar: an explicit state (`mode`) plus a bit stack of open containers (1 = array), no recursion:
 *   VALUE        expect a value                        (document start, after ':', after ',' in an array)
 *   ARRAY_FIRST  expect a value or ']'                 (after '[')
 *   OBJECT_FIRST expect a key or '}'                   (after '{')
 *   KEY          expect a key                          (after ',' in an object)
 *   COLON        expect ':'
 *   AFTER        expect ',' or the closing bracket     (after a value inside a container)
 *   DONE         the top-level value is complete; only whitespace may follow
 *
 * Strings: the hot loop tests 16 bytes per step for '"', '\\' and bytes < 0x20 with SSE2 (x86-64 baseline),
 * then 8 bytes per step with SWAR bit tricks (exact for the lowest flagged byte; the byte loop then finds
 * it), which is also the portable path on other CPUs. Strings without escapes are returned in place; with
 * escapes they are decoded into `scratch` (\uXXXX → UTF-8, surrogate pairs joined, lone surrogates
 * rejected). Numbers are validated against the JSON grammar, then converted: integral literals by exact
 * integer arithmetic (int64, or uint64 above INT64_MAX — 64-bit ids never pass through double), others by
 * strtod (which assumes the C locale's '.' decimal point; neuronlens never calls setlocale).
 *
 * Fast paths for compact JSON (what neuron-profile writes): an integer of ≤ 19 digits is validated and
 * converted in one pass (js_small_integer; with 24 readable bytes its digits are counted 8 at a time,
 * js_digits_wide); a ':' right after a key and a ',' right after a value are consumed with the token
 * instead of by another round of the main loop; and a whole flat record can be decoded in one call
 * (json_stream_flat_object), skipping the state machine for each of its ~50 tokens. The fast paths only
 * ever accept input the state machine accepts and give the same tokens; anything else they decline
 * without consuming, and the state machine decides (tests/unit/test_json_stream.c checks both ways). */
#include "json_stream.h"

#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define JS_INITIAL_BUFFER 4096u
#define JS_ONES 0x0101010101010101ull
#define JS_HIGHS 0x8080808080808080ull

enum js_mode { JS_VALUE, JS_ARRAY_FIRST, JS_OBJECT_FIRST, JS_KEY, JS_COLON, JS_AFTER, JS_DONE };

struct json_stream {
    char *buf;
    size_t cap, start, end;
    int64_t base;
    int eof;
    int failed;
    enum js_mode mode;
    uint32_t depth;
    uint32_t depth_max;
    size_t string_max;
    int doubles_as_text;   /* see json_stream_options */
    size_t resume;     /* bytes of the unfinished string already scanned (after the opening quote) */
    int resume_escape; /* that prefix contains a backslash */
    char *scratch;
    size_t scratch_cap;
    nl_error error; /* the first error, replayed by later calls */
    char source[NL_ERROR_PATH_MAX];
    uint64_t stack[JSON_STREAM_DEPTH_LIMIT / 64];
};

const char *json_stream_kind_word(json_stream_kind k)
{
    switch (k) {
    case JSON_STREAM_OBJECT_BEGIN: return "an object";
    case JSON_STREAM_ARRAY_BEGIN: return "an array";
    case JSON_STREAM_STRING: return "a string";
    case JSON_STREAM_INT:
    case JSON_STREAM_UINT:
    case JSON_STREAM_DOUBLE: return "a number";
    case JSON_STREAM_TRUE:
    case JSON_STREAM_FALSE: return "a boolean";
    case JSON_STREAM_NULL: return "null";
    default: return "a token";
    }
}

/* ---- lifecycle ---------------------------------------------------------------------------------------- */

json_stream *json_stream_new(const json_stream_options *opt, nl_error *err)
{
    json_stream *js = calloc(1, sizeof *js);
    if (js)
        js->buf = malloc(JS_INITIAL_BUFFER);
    if (!js || !js->buf) {
        free(js);
        nl_error_set(err, NL_ERR_NOMEM, opt ? opt->source : NULL, -1, "out of memory creating a JSON tokenizer");
        return NULL;
    }
    js->cap = JS_INITIAL_BUFFER;
    js->depth_max = opt && opt->depth_max ? opt->depth_max : JSON_STREAM_DEPTH_MAX;
    if (js->depth_max > JSON_STREAM_DEPTH_LIMIT)
        js->depth_max = JSON_STREAM_DEPTH_LIMIT;
    js->string_max = opt && opt->string_max ? opt->string_max : JSON_STREAM_STRING_MAX;
    js->doubles_as_text = opt && opt->doubles_as_text;
    if (opt && opt->source)
        snprintf(js->source, sizeof js->source, "%s", opt->source);
    json_stream_reset(js);
    return js;
}

void json_stream_free(json_stream *js)
{
    if (!js)
        return;
    free(js->buf);
    free(js->scratch);
    free(js);
}

void json_stream_reset(json_stream *js)
{
    js->start = js->end = 0;
    js->base = 0;
    js->eof = 0;
    js->failed = 0;
    js->mode = JS_VALUE;
    js->depth = 0;
    js->resume = 0;
    js->resume_escape = 0;
    nl_error_clear(&js->error);
}

/* ---- errors ------------------------------------------------------------------------------------------- */

/* Record the first error at absolute offset `off`, with a short excerpt of the input at buffer index
 * `near` (SIZE_MAX = none), and copy it to err. */
/* cold: keeps the error formatting out of the hot token functions (callgrind on a 40 MB export: js_string
 * saved and restored registers for it on every string). */
static json_stream_status js_fail(json_stream *js, nl_error *err, nl_error_code code, int64_t off, size_t near,
                                  const char *fmt, ...) __attribute__((format(printf, 6, 7), cold, noinline));

static json_stream_status js_fail(json_stream *js, nl_error *err, nl_error_code code, int64_t off, size_t near,
                                  const char *fmt, ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char excerpt[24] = "";
    if (near != SIZE_MAX && near < js->end) {
        size_t n = 0;
        for (size_t i = near; i < js->end && n < 16; i++)
            excerpt[n++] = (js->buf[i] >= 0x20 && js->buf[i] < 0x7f) ? js->buf[i] : '.';
        excerpt[n] = '\0';
    }
    if (excerpt[0])
        nl_error_set(&js->error, code, js->source, off, "%s near '%s'", msg, excerpt);
    else
        nl_error_set(&js->error, code, js->source, off, "%s", msg);
    js->failed = 1;
    if (err)
        *err = js->error;
    return JSON_STREAM_ERROR;
}

/* ---- input -------------------------------------------------------------------------------------------- */

char *json_stream_reserve(json_stream *js, size_t min, size_t *avail, nl_error *err)
{
    if (min == 0)
        min = 1;
    if (js->cap - js->end < min) {
        size_t live = js->end - js->start;
        if (js->start) {
            memmove(js->buf, js->buf + js->start, live);
            js->base += (int64_t)js->start;
            js->start = 0;
            js->end = live;
        }
        if (js->cap - js->end < min || live > js->cap / 2) {
            if (min > SIZE_MAX / 2 - live) {
                nl_error_set(err, NL_ERR_NOMEM, js->source[0] ? js->source : NULL, -1, "input chunk too large");
                return NULL;
            }
            size_t cap = js->cap * 2;
            while (cap - live < min)
                cap *= 2;
            char *buf = realloc(js->buf, cap);
            if (!buf) {
                nl_error_set(err, NL_ERR_NOMEM, js->source[0] ? js->source : NULL, js->base + (int64_t)js->end,
                             "out of memory growing the JSON input buffer to %zu bytes", cap);
                return NULL;
            }
            js->buf = buf;
            js->cap = cap;
        }
    }
    if (avail)
        *avail = js->cap - js->end;
    return js->buf + js->end;
}

void json_stream_commit(json_stream *js, size_t n)
{
    if (n > js->cap - js->end)
        n = js->cap - js->end;
    js->end += n;
}

int json_stream_feed(json_stream *js, const void *data, size_t len, nl_error *err)
{
    if (len == 0)
        return 0;
    char *dst = json_stream_reserve(js, len, NULL, err);
    if (!dst)
        return -1;
    memcpy(dst, data, len);
    js->end += len;
    return 0;
}

void json_stream_finish(json_stream *js)
{
    js->eof = 1;
}

int64_t json_stream_offset(const json_stream *js)
{
    return js->base + (int64_t)js->start;
}

uint32_t json_stream_depth(const json_stream *js)
{
    return js->depth;
}

/* ---- containers --------------------------------------------------------------------------------------- */

static int js_top_is_array(const json_stream *js)
{
    uint32_t d = js->depth - 1;
    return (int)((js->stack[d / 64] >> (d % 64)) & 1);
}

/* State after a complete value at js->start. A ',' right behind it (compact JSON) is consumed here, which
 * saves the main loop one round per token; anything else is left to the AFTER state. */
static inline void js_after_value(json_stream *js)
{
    if (!js->depth) {
        js->mode = JS_DONE;
    } else if (js->start < js->end && js->buf[js->start] == ',') {
        js->start++;
        js->mode = js_top_is_array(js) ? JS_VALUE : JS_KEY;
    } else {
        js->mode = JS_AFTER;
    }
}

static json_stream_status js_open(json_stream *js, json_stream_token *tok, nl_error *err, int is_array)
{
    size_t pos = js->start;
    if (js->depth >= js->depth_max)
        return js_fail(js, err, NL_ERR_LIMIT, js->base + (int64_t)pos, SIZE_MAX,
                       "nesting deeper than %u levels", js->depth_max);
    uint32_t d = js->depth;
    if (is_array)
        js->stack[d / 64] |= (uint64_t)1 << (d % 64);
    else
        js->stack[d / 64] &= ~((uint64_t)1 << (d % 64));
    tok->kind = is_array ? JSON_STREAM_ARRAY_BEGIN : JSON_STREAM_OBJECT_BEGIN;
    tok->depth = js->depth++;
    tok->offset = js->base + (int64_t)pos;
    tok->str = NULL;
    tok->len = 0;
    js->start = pos + 1;
    js->mode = is_array ? JS_ARRAY_FIRST : JS_OBJECT_FIRST;
    return JSON_STREAM_TOKEN;
}

static json_stream_status js_close(json_stream *js, json_stream_token *tok, nl_error *err, char c)
{
    size_t pos = js->start;
    int want_array = c == ']';
    if (js->depth == 0 || js_top_is_array(js) != want_array)
        return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)pos, pos, "unexpected '%c'", c);
    tok->kind = want_array ? JSON_STREAM_ARRAY_END : JSON_STREAM_OBJECT_END;
    tok->depth = --js->depth;
    tok->offset = js->base + (int64_t)pos;
    tok->str = NULL;
    tok->len = 0;
    js->start = pos + 1;
    js_after_value(js);
    return JSON_STREAM_TOKEN;
}

/* ---- strings ------------------------------------------------------------------------------------------ */

#if defined(__SSE2__)
/* Bit i set when buf[p + i] is '"', '\\' or a byte < 0x20, for i < 16: the test every string scanner here
 * makes 16 bytes at a time. */
static inline unsigned js_special16(const char *buf, size_t p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + p));
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"')), backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
    __m128i hit = _mm_or_si128(_mm_or_si128(quote, backslash), control);
    return (unsigned)_mm_movemask_epi8(hit);
}
#endif

/* Nonzero when some byte of w is '"', '\\' or < 0x20 (the lowest flagged byte is exact). */
static inline uint64_t js_special8(uint64_t w)
{
    uint64_t q = w ^ (JS_ONES * '"');
    uint64_t b = w ^ (JS_ONES * '\\');
    return ((q - JS_ONES) & ~q & JS_HIGHS) | ((b - JS_ONES) & ~b & JS_HIGHS) | ((w - JS_ONES * 0x20) & ~w & JS_HIGHS);
}

static int js_hex4(const char *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t js_utf8(char *dst, uint32_t cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xc0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xe0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    dst[0] = (char)(0xf0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    dst[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decode one \u escape (plus its low surrogate) at buf[p] ('\\'), q = end of the string body. Writes UTF-8
 * to *dst, returns the number of input bytes used, or 0 on a malformed escape (*why set). */
static size_t js_unicode_escape(const char *buf, size_t p, size_t q, char **dst, const char **why)
{
    uint32_t cp, lo;
    if (q - p < 6 || js_hex4(buf + p + 2, &cp) != 0) {
        *why = "invalid \\u escape (needs 4 hex digits)";
        return 0;
    }
    if (cp >= 0xdc00 && cp <= 0xdfff) {
        *why = "lone low surrogate in \\u escape";
        return 0;
    }
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (q - p < 12 || buf[p + 6] != '\\' || buf[p + 7] != 'u' || js_hex4(buf + p + 8, &lo) != 0 ||
            lo < 0xdc00 || lo > 0xdfff) {
            *why = "high surrogate not followed by a low surrogate escape";
            return 0;
        }
        *dst += js_utf8(*dst, 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00));
        return 12;
    }
    *dst += js_utf8(*dst, cp);
    return 6;
}

/* The byte a one-character escape stands for, or 0 when `e` does not form one. */
static char js_simple_escape(char e)
{
    switch (e) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return 0;
    }
}

/* Decode the escaped string body buf[b, q) into dst (room for q - b bytes). The decoded
 * length, or -1 with *bad (index of the bad escape) and *why set. Runs between escapes are copied 16 bytes
 * at a time (SSE2) up to the next backslash: exports escape every quote of their embedded JSON (hlo_attrs
 * has a dozen), and a memchr + memcpy call pair per run cost ~860 instructions per such string. A block is
 * stored whole only when 16 input bytes remain, and out never passes p (decoding only shrinks), so the
 * store stays inside dst's q - b bytes. */
static ptrdiff_t js_decode(const char *buf, size_t b, size_t q, char *dst, size_t *bad, const char **why)
{
    char *out = dst;
    size_t p = b;
    while (p < q) {
#if defined(__SSE2__)
        if (q - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + p));
            _mm_storeu_si128((__m128i *)(void *)out, v);
            int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
            size_t run = mask ? (size_t)__builtin_ctz((unsigned)mask) : 16;
            out += run;
            p += run;
            if (!mask)
                continue;
        } else
#endif
        {
            while (p < q && buf[p] != '\\')
                *out++ = buf[p++];
            if (p >= q)
                break;
        }
        char e = buf[p + 1]; /* the scanner guarantees a byte after every backslash before q */
        char c = js_simple_escape(e);
        if (c) {
            *out++ = c;
            p += 2;
            continue;
        }
        *why = "invalid escape";
        size_t used = e == 'u' ? js_unicode_escape(buf, p, q, &out, why) : 0;
        if (!used) {
            *bad = p;
            return -1;
        }
        p += used;
    }
    return out - dst;
}

/* scratch holds at least `need` bytes (1 at least); 0, or -1 when out of memory. */
static int js_scratch_reserve(json_stream *js, size_t need)
{
    if (need == 0)
        need = 1;
    if (js->scratch_cap >= need)
        return 0;
    size_t cap = js->scratch_cap ? js->scratch_cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *s = realloc(js->scratch, cap);
    if (!s)
        return -1;
    js->scratch = s;
    js->scratch_cap = cap;
    return 0;
}

/* Decode the escaped string body buf[b, q) into scratch; sets tok->str/len. Not inlined: few strings have
 * escapes, and inlined it made every js_string call pay for its registers. */
static json_stream_status js_unescape(json_stream *js, json_stream_token *tok, nl_error *err, size_t b, size_t q)
    __attribute__((noinline));

static json_stream_status js_unescape(json_stream *js, json_stream_token *tok, nl_error *err, size_t b, size_t q)
{
    if (js_scratch_reserve(js, q - b) != 0)
        return js_fail(js, err, NL_ERR_NOMEM, js->base + (int64_t)b, SIZE_MAX,
                       "out of memory decoding a %zu-byte string", q - b);
    size_t bad = 0;
    const char *why = NULL;
    ptrdiff_t n = js_decode(js->buf, b, q, js->scratch, &bad, &why);
    if (n < 0)
        return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)bad, bad, "%s", why);
    tok->str = js->scratch;
    tok->len = (size_t)n;
    return JSON_STREAM_TOKEN;
}

/* The index of the first '"', '\\' or control byte in buf[p, end), or end: 16 bytes per step with SSE2,
 * then 8 with SWAR bit tricks (js_special8; also the portable path), then single bytes. */
static inline size_t js_find_special(const char *buf, size_t p, size_t end)
{
#if defined(__SSE2__)
    while (end - p >= 16) {
        unsigned mask = js_special16(buf, p);
        if (mask)
            return p + (size_t)__builtin_ctz(mask); /* exact: skip the narrower loops */
        p += 16;
    }
#endif
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, buf + p, 8);
        if (js_special8(w))
            break;
        p += 8;
    }
    while (p < end) {
        unsigned char c = (unsigned char)buf[p];
        if (c == '"' || c == '\\' || c < 0x20)
            break;
        p++;
    }
    return p;
}

/* Find the closing quote of the string starting at buf[start] ('"'). On success sets *close to its index
 * and *escaped. Returns TOKEN, NEED_MORE (resume state saved) or ERROR. */
static json_stream_status js_scan_string(json_stream *js, nl_error *err, size_t *close, int *escaped)
{
    const char *buf = js->buf;
    size_t body = js->start + 1;
    size_t p = body + js->resume;
    size_t end = js->end;
    int esc = js->resume_escape;
    for (;;) {
        p = js_find_special(buf, p, end);
        if (p - body > js->string_max)
            return js_fail(js, err, NL_ERR_LIMIT, js->base + (int64_t)js->start, SIZE_MAX,
                           "string longer than %zu bytes", js->string_max);
        if (p >= end || (buf[p] == '\\' && p + 1 >= end)) {
            if (js->eof)
                return js_fail(js, err, NL_ERR_TRUNCATED, js->base + (int64_t)end, SIZE_MAX,
                               "input ended inside a string that starts at offset %lld",
                               (long long)(js->base + (int64_t)js->start));
            js->resume = p - body;
            js->resume_escape = esc;
            return JSON_STREAM_NEED_MORE;
        }
        unsigned char c = (unsigned char)buf[p];
        if (c == '"')
            break;
        if (c == '\\') {
            esc = 1;
            p += 2;
            continue;
        }
        return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)p, SIZE_MAX,
                       "unescaped control character 0x%02x in string", c);
    }
    js->resume = 0;
    js->resume_escape = 0;
    *close = p;
    *escaped = esc;
    return JSON_STREAM_TOKEN;
}

static json_stream_status js_string(json_stream *js, json_stream_token *tok, nl_error *err, int is_key)
{
    size_t q = 0;
    int escaped = 0;
    json_stream_status st = js_scan_string(js, err, &q, &escaped);
    if (st != JSON_STREAM_TOKEN)
        return st;
    size_t b = js->start + 1;
    tok->kind = is_key ? JSON_STREAM_KEY : JSON_STREAM_STRING;
    tok->depth = js->depth;
    tok->offset = js->base + (int64_t)js->start;
    if (escaped) {
        st = js_unescape(js, tok, err, b, q);
        if (st != JSON_STREAM_TOKEN)
            return st;
    } else {
        tok->str = js->buf + b;
        tok->len = q - b;
    }
    js->start = q + 1;
    if (!is_key) {
        js_after_value(js);
    } else if (js->start < js->end && js->buf[js->start] == ':') {
        js->start++; /* compact JSON: the colon follows the key directly */
        js->mode = JS_VALUE;
    } else {
        js->mode = JS_COLON;
    }
    return JSON_STREAM_TOKEN;
}

/* ---- numbers and literals ----------------------------------------------------------------------------- */

static int js_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the JSON number at s[0, n) if it is exactly one valid number, else 0; *integral set. */
static size_t js_number_grammar(const char *s, size_t n, int *integral)
{
    size_t i = 0;
    *integral = 1;
    if (i < n && s[i] == '-')
        i++;
    if (i < n && s[i] == '0')
        i++;
    else if (i < n && s[i] >= '1' && s[i] <= '9')
        while (i < n && js_is_digit(s[i]))
            i++;
    else
        return 0;
    if (i < n && s[i] == '.') {
        *integral = 0;
        if (++i >= n || !js_is_digit(s[i]))
            return 0;
        while (i < n && js_is_digit(s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        *integral = 0;
        if (++i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || !js_is_digit(s[i]))
            return 0;
        while (i < n && js_is_digit(s[i]))
            i++;
    }
    return i == n ? n : 0;
}

/* Convert a grammar-checked number literal. */
static void js_number_value(const char *s, size_t n, int integral, json_stream_token *tok)
{
    if (integral) {
        int neg = s[0] == '-';
        uint64_t v = 0;
        int overflow = 0;
        for (size_t i = (size_t)neg; i < n; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (v > (UINT64_MAX - d) / 10)
                overflow = 1;
            v = v * 10 + d;
        }
        if (!overflow && !neg && v <= (uint64_t)INT64_MAX) {
            tok->kind = JSON_STREAM_INT;
            tok->i = (int64_t)v;
            tok->d = (double)v;
            return;
        }
        if (!overflow && !neg) {
            tok->kind = JSON_STREAM_UINT;
            tok->u = v;
            tok->d = (double)v;
            return;
        }
        if (!overflow && neg && v <= (uint64_t)INT64_MAX + 1) {
            tok->kind = JSON_STREAM_INT;
            tok->i = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
            tok->d = (double)tok->i;
            return;
        }
    }
    char tmp[JSON_STREAM_NUMBER_MAX + 1];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    tok->kind = JSON_STREAM_DOUBLE;
    tok->d = strtod(tmp, NULL);
}

static int js_number_char(char c)
{
    return js_is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Eight ASCII digits at p (little-endian load) → *out; 0 when some byte is not a digit. SWAR conversion
 * (Lemire, "parse_eight_digits_unrolled"): the 19-digit instruction and DMA ids of an export cost 2 steps
 * instead of 19 loop rounds; number conversion is a large share of the reader's work. */
static inline int js_eight_digits(const char *p, uint64_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, 8);
    if (((w & 0xF0F0F0F0F0F0F0F0ull) | (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) !=
        0x3333333333333333ull)
        return 0;
    w -= 0x3030303030303030ull;
    w = (w * 10) + (w >> 8);
    w = (((w & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
         (((w >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
        32;
    *out = (uint32_t)w;
    return 1;
#else
    (void)p;
    (void)out;
    return 0;
#endif
}

/* Leading ASCII digits in the 8 bytes of w (little-endian load): 0-8. A byte is a digit when its high
 * nibble is 3 and adding 6 keeps it so; a carry out of a non-digit byte can only disturb bytes after the
 * first non-digit, which the count ignores. */
static inline unsigned js_digit_run(uint64_t w)
{
    uint64_t bad = ((w & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull) |
                   (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull);
    return bad ? (unsigned)__builtin_ctzll(bad) / 8 : 8;
}

/* The value of the first n (1-8) digits of w: the digits are shifted to the top (most significant digit
 * first in memory, so the zero bytes shifted in are leading zeros) and converted eight at a time. */
static inline uint64_t js_digits_value(uint64_t w, unsigned n)
{
    w = (w - 0x3030303030303030ull) << (8 * (8 - n));
    w = (w * 10) + (w >> 8);
    return (((w & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
            (((w >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
           32;
}

/* Digits at p with at least 24 readable bytes: count and convert ≤ 19 of them without a per-digit loop
 * (branch mispredictions on the varying lengths of timestamps, 19-digit ids and small counts were most of
 * js_integer_at's time). The digit count, or 0 when there are more than 19. */
static inline size_t js_digits_wide(const char *p, uint64_t *v)
{
    static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    uint64_t w;
    memcpy(&w, p, 8);
    unsigned n = js_digit_run(w);
    if (n < 8) {
        *v = js_digits_value(w, n);
        return n;
    }
    uint64_t hi = js_digits_value(w, 8);
    memcpy(&w, p + 8, 8);
    n = js_digit_run(w);
    if (n < 8) {
        *v = n ? hi * pow10[n] + js_digits_value(w, n) : hi;
        return 8 + n;
    }
    hi = hi * 100000000u + js_digits_value(w, 8);
    memcpy(&w, p + 16, 8);
    n = js_digit_run(w);
    if (n > 3)
        return 0;
    *v = n ? hi * pow10[n] + js_digits_value(w, n) : hi;
    return 16 + n;
}

/* Fast path for the common case, an integer of at most 19 digits that ends before `end` with a byte that is
 * not part of a number: validate and convert s[0, n) in one pass, filling kind/i/u/d. The length n, or 0
 * when the slow path must decide. */
static size_t js_integer_at(const char *s, const char *end, json_stream_token *tok)
{
    const char *p = s;
    int neg = *p == '-';
    p += neg;
    if (p >= end || !js_is_digit(*p))
        return 0;
    uint64_t v = 0;
    if (*p == '0') {
        p++;
    } else if (end - p >= 24) {
        size_t n = js_digits_wide(p, &v);
        if (!n)
            return 0;
        p += n;
    } else {
        const char *d0 = p;
        uint64_t eight;
        while (end - p >= 8 && p - d0 <= 11 && js_eight_digits(p, &eight)) {
            v = v * 100000000u + eight;
            p += 8;
        }
        while (p < end && js_is_digit(*p) && p - d0 < 19)
            v = v * 10 + (uint64_t)(*p++ - '0');
    }
    if (p >= end || js_is_digit(*p) || *p == '.' || *p == 'e' || *p == 'E' || (neg && v > (uint64_t)INT64_MAX))
        return 0;
    if (neg) {
        tok->kind = JSON_STREAM_INT;
        tok->i = -(int64_t)v;
        tok->d = (double)tok->i;
    } else if (v <= (uint64_t)INT64_MAX) {
        tok->kind = JSON_STREAM_INT;
        tok->i = (int64_t)v;
        tok->d = (double)v;
    } else {
        tok->kind = JSON_STREAM_UINT;
        tok->u = v;
        tok->d = (double)v;
    }
    return (size_t)(p - s);
}

static int js_small_integer(json_stream *js, json_stream_token *tok)
{
    const char *s = js->buf + js->start;
    size_t n = js_integer_at(s, js->buf + js->end, tok);
    if (!n)
        return 0;
    tok->depth = js->depth;
    tok->offset = js->base + (int64_t)js->start;
    tok->str = s;
    tok->len = n;
    js->start += n;
    js_after_value(js);
    return 1;
}

static json_stream_status js_number(json_stream *js, json_stream_token *tok, nl_error *err)
{
    if (js_small_integer(js, tok))
        return JSON_STREAM_TOKEN;
    size_t p = js->start;
    while (p < js->end && js_number_char(js->buf[p]) && p - js->start <= JSON_STREAM_NUMBER_MAX)
        p++;
    size_t n = p - js->start;
    if (n > JSON_STREAM_NUMBER_MAX)
        return js_fail(js, err, NL_ERR_LIMIT, js->base + (int64_t)js->start, SIZE_MAX,
                       "number literal longer than %u characters", JSON_STREAM_NUMBER_MAX);
    if (p == js->end && !js->eof)
        return JSON_STREAM_NEED_MORE;
    int integral;
    if (!js_number_grammar(js->buf + js->start, n, &integral)) {
        /* At the end of input, "-", "1." or "2e+" are numbers cut short: they become valid with one more
         * digit. That is truncation, not a malformed literal. */
        char tmp[JSON_STREAM_NUMBER_MAX + 2];
        memcpy(tmp, js->buf + js->start, n);
        tmp[n] = '0';
        if (p == js->end && js_number_grammar(tmp, n + 1, &integral))
            return js_fail(js, err, NL_ERR_TRUNCATED, js->base + (int64_t)js->end, SIZE_MAX,
                           "input ended inside a number");
        return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)js->start, js->start, "invalid number");
    }
    tok->i = 0;
    tok->u = 0;
    if (!integral && js->doubles_as_text) {
        tok->kind = JSON_STREAM_DOUBLE;
        tok->d = NAN; /* the caller reads the text (str/len) */
    } else {
        js_number_value(js->buf + js->start, n, integral, tok);
    }
    tok->depth = js->depth;
    tok->offset = js->base + (int64_t)js->start;
    tok->str = js->buf + js->start;
    tok->len = n;
    js->start = p;
    js_after_value(js);
    return JSON_STREAM_TOKEN;
}

static json_stream_status js_literal(json_stream *js, json_stream_token *tok, nl_error *err)
{
    static const struct {
        const char *text;
        size_t len;
        json_stream_kind kind;
    } lits[] = {{"true", 4, JSON_STREAM_TRUE}, {"false", 5, JSON_STREAM_FALSE}, {"null", 4, JSON_STREAM_NULL}};
    char c = js->buf[js->start];
    size_t k = c == 't' ? 0 : c == 'f' ? 1 : 2;
    size_t have = js->end - js->start;
    size_t cmp = have < lits[k].len ? have : lits[k].len;
    if (memcmp(js->buf + js->start, lits[k].text, cmp) != 0)
        return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)js->start, js->start, "invalid literal");
    if (have < lits[k].len) {
        if (js->eof)
            return js_fail(js, err, NL_ERR_TRUNCATED, js->base + (int64_t)js->end, SIZE_MAX,
                           "input ended inside the literal '%s'", lits[k].text);
        return JSON_STREAM_NEED_MORE;
    }
    tok->kind = lits[k].kind;
    tok->depth = js->depth;
    tok->offset = js->base + (int64_t)js->start;
    tok->str = NULL;
    tok->len = 0;
    js->start += lits[k].len;
    js_after_value(js);
    return JSON_STREAM_TOKEN;
}

/* ---- flat objects in one call ------------------------------------------------------------------------- */

/* Every helper here answers 0 ("decline") when the token path must decide: the bytes are not compact JSON,
 * are cut by the end of the buffer, hit a limit, or are invalid. Declining consumes nothing, so the token
 * path then reads the same bytes and reports any error exactly as it would have. */

/* Index of the closing quote of the string whose body starts at buf[p]. A string with an escape declines
 * when `escaped` is NULL, else sets *escaped. The scan of js_scan_string, without resume state. */
static size_t js_flat_string_end(const char *buf, size_t p, size_t end, size_t max, int *escaped)
{
    size_t body = p;
    for (;;) {
        p = js_find_special(buf, p, end);
        if (p >= end || p - body > max)
            return 0;
        if (buf[p] == '"')
            return p;
        if (buf[p] != '\\' || !escaped || end - p < 3)
            return 0;
        *escaped = 1;
        p += 2;
    }
}

/* Decode the escaped string body buf[b, q) into scratch at *used. Scratch may move while an object is
 * decoded, so tok->str is left NULL and the offset kept in tok->u; json_stream_flat_object points str at
 * the bytes once the object is complete. */
static int js_flat_unescape(json_stream *js, size_t b, size_t q, json_stream_token *tok, size_t *used)
{
    size_t bad;
    const char *why;
    if (q - b > SIZE_MAX - *used || js_scratch_reserve(js, *used + (q - b)) != 0)
        return 0;
    ptrdiff_t n = js_decode(js->buf, b, q, js->scratch + *used, &bad, &why);
    if (n < 0)
        return 0;
    tok->str = NULL;
    tok->u = *used;
    tok->len = (size_t)n;
    *used += (size_t)n;
    return 1;
}

/* The number at buf[p] when it is valid and followed by another byte before `end`: the index after it,
 * else 0; *integral says whether it has neither fraction nor exponent. Integers and plain decimals (ids,
 * "Input Dims", µs timestamps "2500001.000") are checked in one pass over their digits; anything else goes
 * through js_number_grammar like js_number. */
static size_t js_number_end(const char *buf, size_t p, size_t end, int *integral)
{
    size_t d = p + (buf[p] == '-'), q = d, f;
    while (q < end && js_is_digit(buf[q]))
        q++;
    f = q;
    if (q < end && buf[q] == '.')
        for (f = q + 1; f < end && js_is_digit(buf[f]);)
            f++;
    *integral = f == q;
    if (f < end && q > d && f != q + 1 && f - p <= JSON_STREAM_NUMBER_MAX && !js_number_char(buf[f]) &&
        (buf[d] != '0' || q - d == 1))
        return f;
    size_t n = 0;
    while (p + n < end && js_number_char(buf[p + n]) && n <= JSON_STREAM_NUMBER_MAX)
        n++;
    if (p + n >= end || n > JSON_STREAM_NUMBER_MAX || !js_number_grammar(buf + p, n, integral))
        return 0;
    return p + n;
}

/* A number at buf[p] into *tok (kind, value, str/len) exactly as js_number would decode it; the index after
 * it, or 0 when it is invalid or not followed by another byte before `end`. The number decoder of both
 * fast paths (json_stream_flat_object, json_stream_next_member). */
static size_t js_flat_number(const json_stream *js, size_t p, size_t end, json_stream_token *tok)
{
    const char *s = js->buf + p;
    size_t n = js_integer_at(s, js->buf + end, tok);
    if (!n) {
        int integral;
        size_t q = js_number_end(js->buf, p, end, &integral);
        if (!q)
            return 0;
        n = q - p;
        tok->i = 0;
        tok->u = 0;
        if (!integral && js->doubles_as_text) {
            tok->kind = JSON_STREAM_DOUBLE;
            tok->d = NAN;
        } else {
            js_number_value(s, n, integral, tok);
        }
    }
    tok->str = s;
    tok->len = n;
    return p + n;
}

/* The scalar at buf[p] into *tok (kind and value; offset/depth are the caller's); the index after it.
 * Strings with escapes are decoded into scratch at *scratch_used, or declined when scratch_used is NULL. */
static size_t js_flat_scalar(json_stream *js, size_t p, size_t end, json_stream_token *tok, size_t *scratch_used)
{
    const char *buf = js->buf;
    char c = buf[p];
    if (c == '"') {
        int escaped = 0;
        size_t q = js_flat_string_end(buf, p + 1, end, js->string_max, scratch_used ? &escaped : NULL);
        if (!q)
            return 0;
        tok->kind = JSON_STREAM_STRING;
        tok->str = buf + p + 1;
        tok->len = q - p - 1;
        if (escaped && !js_flat_unescape(js, p + 1, q, tok, scratch_used))
            return 0;
        return q + 1;
    }
    if (c == 't' || c == 'f' || c == 'n') {
        size_t len = c == 'f' ? 5 : 4;
        const char *text = c == 't' ? "true" : c == 'f' ? "false" : "null";
        if (end - p <= len || memcmp(buf + p, text, len) != 0)
            return 0;
        tok->kind = c == 't' ? JSON_STREAM_TRUE : c == 'f' ? JSON_STREAM_FALSE : JSON_STREAM_NULL;
        tok->str = NULL;
        tok->len = 0;
        return p + len;
    }
    if (c == '-' || js_is_digit(c))
        return js_flat_number(js, p, end, tok);
    return 0;
}

/* Levels a nested value inside a flat object may have (deeper ones go to the token path). */
#define JS_FLAT_NEST_MAX 64u

enum js_nest_want { JS_NEST_VALUE, JS_NEST_FIRST, JS_NEST_KEY, JS_NEST_AFTER };

/* Check the compact array or object at buf[p] for well-formedness without decoding it; the index after it.
 * The nested members of export records are short lists the reader does not model (`raw_framework_id`,
 * `predecessors`), so validating them here keeps such records on the fast path. Grammar as in
 * json_stream_next: after an open bracket a value (or key) or the close; after each member ',' or the close.
 * Strings with escapes decline (they would need decoding to be validated). */
static size_t js_flat_skip_nested(json_stream *js, size_t p, size_t end)
{
    const char *buf = js->buf;
    uint64_t arrays = 0; /* bit d-1: level d is an array */
    uint32_t depth = 0, room = js->depth_max - js->depth - 1;
    enum js_nest_want want = JS_NEST_VALUE;
    json_stream_token scalar;
    while (p < end) {
        char c = buf[p];
        int in_array = depth && ((arrays >> (depth - 1)) & 1);
        if (want == JS_NEST_FIRST && c == (in_array ? ']' : '}'))
            want = JS_NEST_AFTER; /* the empty container closes below */
        else if (want == JS_NEST_FIRST)
            want = in_array ? JS_NEST_VALUE : JS_NEST_KEY;
        if (want == JS_NEST_KEY) {
            size_t q = c == '"' ? js_flat_string_end(buf, p + 1, end, js->string_max, NULL) : 0;
            if (!q || q + 2 >= end || buf[q + 1] != ':')
                return 0;
            p = q + 2;
            want = JS_NEST_VALUE;
        } else if (want == JS_NEST_VALUE && (c == '[' || c == '{')) {
            if (depth >= JS_FLAT_NEST_MAX || depth >= room)
                return 0;
            arrays = c == '[' ? arrays | ((uint64_t)1 << depth) : arrays & ~((uint64_t)1 << depth);
            depth++;
            p++;
            want = JS_NEST_FIRST;
        } else if (want == JS_NEST_VALUE) {
            p = js_flat_scalar(js, p, end, &scalar, NULL);
            if (!p)
                return 0;
            want = JS_NEST_AFTER;
        } else if (c == ',') {
            p++;
            want = in_array ? JS_NEST_VALUE : JS_NEST_KEY;
        } else if (c == (in_array ? ']' : '}')) {
            p++;
            if (--depth == 0)
                return p;
        } else {
            return 0;
        }
    }
    return 0;
}

/* The member value at buf[p] into *tok; the index after it. A nested value is validated and skipped: its
 * token is the BEGIN kind with str/len = its raw text. */
static size_t js_flat_value(json_stream *js, size_t p, size_t end, json_stream_token *tok, size_t *scratch_used)
{
    tok->offset = js->base + (int64_t)p;
    tok->depth = js->depth + 1;
    if (js->buf[p] != '[' && js->buf[p] != '{')
        return js_flat_scalar(js, p, end, tok, scratch_used);
    size_t after = js_flat_skip_nested(js, p, end);
    if (!after)
        return 0;
    tok->kind = js->buf[p] == '[' ? JSON_STREAM_ARRAY_BEGIN : JSON_STREAM_OBJECT_BEGIN;
    tok->str = js->buf + p;
    tok->len = after - p;
    return after;
}

int json_stream_flat_object(json_stream *js, json_stream_member *members, size_t max, size_t *count,
                            int64_t *open_offset, int64_t *close_offset)
{
    if (js->failed || (js->mode != JS_VALUE && js->mode != JS_ARRAY_FIRST) || js->depth >= js->depth_max)
        return 0;
    const char *buf = js->buf;
    size_t p = js->start, end = js->end, n = 0, scratch_used = 0;
    while (p < end && (buf[p] == ' ' || buf[p] == '\n' || buf[p] == '\r' || buf[p] == '\t'))
        p++; /* between elements of a pretty-printed array */
    size_t open = p;
    if (p + 1 >= end || buf[p] != '{')
        return 0;
    p++;
    if (buf[p] != '}') {
        for (;;) {
            if (n == max || p >= end || buf[p] != '"')
                return 0;
            size_t q = js_flat_string_end(buf, p + 1, end, js->string_max, NULL);
            if (!q || q + 2 >= end || buf[q + 1] != ':')
                return 0;
            json_stream_token *key = &members[n].key;
            key->kind = JSON_STREAM_KEY;
            key->depth = js->depth + 1;
            key->offset = js->base + (int64_t)p;
            key->str = buf + p + 1;
            key->len = q - p - 1;
            p = js_flat_value(js, q + 2, end, &members[n].value, &scratch_used);
            if (!p || p >= end)
                return 0;
            n++;
            if (buf[p] == '}')
                break;
            if (buf[p] != ',')
                return 0;
            p++;
        }
    }
    if (scratch_used)
        for (size_t i = 0; i < n; i++)
            if (members[i].value.kind == JSON_STREAM_STRING && !members[i].value.str)
                members[i].value.str = js->scratch + members[i].value.u;
    *open_offset = js->base + (int64_t)open;
    *close_offset = js->base + (int64_t)p;
    *count = n;
    js->start = p + 1;
    js_after_value(js);
    return 1;
}

/* ---- the state machine -------------------------------------------------------------------------------- */

static json_stream_status js_value(json_stream *js, json_stream_token *tok, nl_error *err, char c)
{
    switch (c) {
    case '{': return js_open(js, tok, err, 0);
    case '[': return js_open(js, tok, err, 1);
    case '"': return js_string(js, tok, err, 0);
    case 't':
    case 'f':
    case 'n': return js_literal(js, tok, err);
    default:
        if (c == '-' || js_is_digit(c))
            return js_number(js, tok, err);
        return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)js->start, js->start, "expected a value");
    }
}

static json_stream_status js_at_end(json_stream *js, nl_error *err)
{
    if (!js->eof)
        return JSON_STREAM_NEED_MORE;
    if (js->mode == JS_DONE)
        return JSON_STREAM_END;
    int64_t off = js->base + (int64_t)js->end;
    if (off == 0)
        return js_fail(js, err, NL_ERR_TRUNCATED, 0, SIZE_MAX, "empty input: no JSON value");
    return js_fail(js, err, NL_ERR_TRUNCATED, off, SIZE_MAX, "input ended inside %s at depth %u",
                   js->depth ? (js_top_is_array(js) ? "an array" : "an object") : "the document", js->depth);
}

json_stream_status json_stream_next(json_stream *js, json_stream_token *tok, nl_error *err)
{
    if (js->failed) {
        if (err)
            *err = js->error;
        return JSON_STREAM_ERROR;
    }
    const char *buf = js->buf;
    for (;;) {
        size_t p = js->start;
        /* compact JSON has no whitespace: one compare ('!' is the first byte above the four ws bytes) */
        if (p < js->end && (unsigned char)buf[p] <= ' ') {
            while (p < js->end && (buf[p] == ' ' || buf[p] == '\n' || buf[p] == '\r' || buf[p] == '\t'))
                p++;
            js->start = p;
        }
        if (p == js->end)
            return js_at_end(js, err);
        char c = buf[p];
        switch (js->mode) {
        case JS_VALUE: return js_value(js, tok, err, c);
        case JS_ARRAY_FIRST:
            if (c == ']')
                return js_close(js, tok, err, c);
            return js_value(js, tok, err, c);
        case JS_OBJECT_FIRST:
            if (c == '}')
                return js_close(js, tok, err, c);
            /* fall through */
        case JS_KEY:
            if (c == '"')
                return js_string(js, tok, err, 1);
            return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)p, p, "expected a string key");
        case JS_COLON:
            if (c != ':')
                return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)p, p, "expected ':'");
            js->start = p + 1;
            js->mode = JS_VALUE;
            continue;
        case JS_AFTER:
            if (c == ',') {
                js->start = p + 1;
                js->mode = js_top_is_array(js) ? JS_VALUE : JS_KEY;
                continue;
            }
            if (c == ']' || c == '}')
                return js_close(js, tok, err, c);
            return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)p, p,
                           js_top_is_array(js) ? "expected ',' or ']'" : "expected ',' or '}'");
        case JS_DONE:
            return js_fail(js, err, NL_ERR_FORMAT, js->base + (int64_t)p, p,
                           "unexpected data after the top-level value");
        }
    }
}

/* ---- members and skipped values in one call ----------------------------------------------------------- */

/* json_stream_next_member and json_stream_skip_value (json_stream.h), for readers that walk objects member
 * by member and ignore most of what they see (kineto.c). Like json_stream_flat_object they work on the
 * pushed bytes only, accept nothing the state machine would reject (same grammar and caps, escapes decoded
 * to check them) and give the tokens it would give; anything else — an incomplete value, an escaped key, an
 * error to report — they decline without consuming, and the state machine decides. Unlike it they accept
 * whitespace anywhere (torch writes ": " and ", "), nested containers (skipped, up to JS_SKIP_LEVELS deep)
 * and containers as member values (left to the state machine).
 * Numbers, on the 0.55 GB synthetic Kineto trace read on one core (median of 5, kineto_dump --read-only):
 * 1.36 s token by token; 1.22 s when the args the model ignores ("Input Dims", "Concrete Inputs", "Input
 * type", ~20 tokens per event) are skipped in one call; 1.12 s when every member is also read in one call
 * (the key, ':' and a scalar value, instead of two rounds of both state machines). */

/* js_string_end for a string that does not end within its first 16 bytes (rescanned from the start) or
 * has an escape: the general scanner, escapes decoded into scratch. */
static size_t js_string_end_slow(json_stream *js, size_t p, size_t end, size_t *decoded)
{
    int esc = 0;
    size_t q = js_flat_string_end(js->buf, p + 1, end, js->string_max, decoded ? &esc : NULL);
    if (q && esc) {
        size_t bad;
        const char *why;
        ptrdiff_t n =
            js_scratch_reserve(js, q - p - 1) == 0 ? js_decode(js->buf, p + 1, q, js->scratch, &bad, &why) : -1;
        if (n < 0)
            return 0;
        *decoded = (size_t)n;
    }
    return q;
}

/* Index of the first byte at or after p that is not JSON whitespace (' ', '\n', '\r', '\t'), or end.
 * One compare when there is none; Kineto writes one space after every ':' and ','. */
static inline size_t js_ws_end(const char *buf, size_t p, size_t end)
{
    const uint64_t ws = (1ull << ' ') | (1ull << '\n') | (1ull << '\r') | (1ull << '\t');
    while (p < end && (unsigned char)buf[p] <= ' ' && ((ws >> (unsigned char)buf[p]) & 1))
        p++;
    return p;
}

/* The string at buf[p] ('"'), complete before `end`, without a control byte, not longer than string_max,
 * and with valid escapes: the index of its closing quote, else 0. An escaped string is decoded into scratch
 * (as the token path does, which also checks it) and *decoded gets its length; SIZE_MAX when it has no
 * escape. With decoded NULL an escape is refused. Most keys and values end within 16 bytes: one block is
 * tested inline before the general scanner (js_flat_string_end). */
static inline size_t js_string_end(json_stream *js, size_t p, size_t end, size_t *decoded)
{
    const char *buf = js->buf;
    if (decoded)
        *decoded = SIZE_MAX;
#if defined(__SSE2__)
    if (end - p > 16 && js->string_max >= 16) {
        unsigned mask = js_special16(buf, p + 1);
        if (mask && buf[p + 1 + (size_t)__builtin_ctz(mask)] == '"')
            return p + 1 + (size_t)__builtin_ctz(mask);
    }
#endif
    return js_string_end_slow(js, p, end, decoded);
}

/* The scalar at buf[p] (string, number or literal) when it is valid and complete before `end`: the index
 * after it, else 0. */
static size_t js_scalar_end(json_stream *js, size_t p, size_t end)
{
    const char *buf = js->buf;
    char c = buf[p];
    if (c == '"') {
        size_t decoded;
        size_t q = js_string_end(js, p, end, &decoded);
        return q ? q + 1 : 0;
    }
    if (c == 't' || c == 'f' || c == 'n') {
        size_t len = c == 'f' ? 5 : 4;
        const char *text = c == 't' ? "true" : c == 'f' ? "false" : "null";
        return end - p >= len && memcmp(buf + p, text, len) == 0 ? p + len : 0;
    }
    int integral;
    return c == '-' || js_is_digit(c) ? js_number_end(buf, p, end, &integral) : 0;
}

/* Levels a skipped value may nest inside itself (one bit each in a local stack); deeper ones go the token
 * path, which applies depth_max. */
#define JS_SKIP_LEVELS 64u

/* The whole value at buf[p] (after any whitespace): the index after it, else 0. A local copy of the state
 * machine's grammar (value, key, ':', ',' and matching brackets) over the pushed bytes; whatever it does
 * not accept, it leaves to the token path. */
static size_t js_value_end(json_stream *js, size_t p, size_t end)
{
    const char *buf = js->buf;
    uint64_t arrays = 0; /* bit l: level l is an array */
    unsigned level = 0;
    uint32_t room = js->depth_max - js->depth; /* containers the skipped value may open */
    for (;;) {
        /* a value is expected at p */
        p = js_ws_end(buf, p, end);
        if (p >= end)
            return 0;
        if (buf[p] == '{' || buf[p] == '[') {
            if (level >= room || level >= JS_SKIP_LEVELS)
                return 0;
            int is_array = buf[p] == '[';
            arrays = is_array ? arrays | ((uint64_t)1 << level) : arrays & ~((uint64_t)1 << level);
            level++;
            p = js_ws_end(buf, p + 1, end);
            if (p >= end)
                return 0;
            if (buf[p] == (is_array ? ']' : '}')) {
                level--;
                p++;
            } else if (is_array) {
                continue;
            } else {
                goto key;
            }
        } else if (!(p = js_scalar_end(js, p, end))) {
            return 0;
        }
        /* after a value: ',' or the closing bracket of the innermost open level, repeatedly */
        for (;;) {
            if (level == 0)
                return p;
            p = js_ws_end(buf, p, end);
            if (p >= end)
                return 0;
            int in_array = (int)((arrays >> (level - 1)) & 1);
            if (buf[p] == ',') {
                p++;
                if (in_array)
                    break;
                goto key;
            }
            if (buf[p] != (in_array ? ']' : '}'))
                return 0;
            level--;
            p++;
        }
        continue;
    key:
        p = js_ws_end(buf, p, end);
        size_t decoded, q = p < end && buf[p] == '"' ? js_string_end(js, p, end, &decoded) : 0;
        if (!q)
            return 0;
        p = js_ws_end(buf, q + 1, end);
        if (p >= end || buf[p] != ':')
            return 0;
        p++;
    }
}

/* After a fast path: the pushed bytes up to p are consumed. The token path may have stopped inside the
 * first of them (a string cut by the end of the pushed bytes, `resume`); that token is gone. */
static void js_fast_consumed(json_stream *js, size_t p, int after_value)
{
    js->start = p;
    js->resume = 0;
    js->resume_escape = 0;
    if (after_value)
        js_after_value(js);
    else
        js->mode = JS_VALUE;
}

int json_stream_skip_value(json_stream *js)
{
    if (js->failed)
        return 0;
    const char *buf = js->buf;
    size_t p = js->start, end = js->end;
    if (js->mode == JS_COLON) {
        p = js_ws_end(buf, p, end);
        if (p >= end || buf[p] != ':')
            return 0;
        p++;
    } else if (js->mode == JS_ARRAY_FIRST) { /* a ']' would close the array: no value to skip */
        p = js_ws_end(buf, p, end);
        if (p >= end || buf[p] == ']')
            return 0;
    } else if (js->mode != JS_VALUE) {
        return 0;
    }
    p = js_value_end(js, p, end);
    if (!p)
        return 0;
    js_fast_consumed(js, p, 1);
    return 1;
}

/* The scalar value at buf[p], complete before `end`, decoded into *tok exactly as the token path would
 * (kind, str/len, i/u/d, offset, depth); the index after it, or 0 when the token path must decide. */
static size_t js_member_value(json_stream *js, size_t p, size_t end, json_stream_token *tok)
{
    const char *buf = js->buf;
    char c = buf[p];
    tok->depth = js->depth;
    tok->offset = js->base + (int64_t)p;
    if (c == '"') {
        size_t decoded, q = js_string_end(js, p, end, &decoded);
        if (!q)
            return 0;
        tok->kind = JSON_STREAM_STRING;
        tok->str = decoded == SIZE_MAX ? buf + p + 1 : js->scratch;
        tok->len = decoded == SIZE_MAX ? q - p - 1 : decoded;
        return q + 1;
    }
    if (c == 't' || c == 'f' || c == 'n') {
        size_t q = js_scalar_end(js, p, end);
        tok->kind = c == 't' ? JSON_STREAM_TRUE : c == 'f' ? JSON_STREAM_FALSE : JSON_STREAM_NULL;
        tok->str = NULL;
        tok->len = 0;
        return q;
    }
    if (c != '-' && !js_is_digit(c))
        return 0;
    return js_flat_number(js, p, end, tok);
}

int json_stream_next_member(json_stream *js, json_stream_token *key, json_stream_token *value)
{
    if (js->failed || !js->depth)
        return 0;
    const char *buf = js->buf;
    size_t end = js->end, p = js_ws_end(buf, js->start, end);
    if (js->mode == JS_AFTER && p < end && buf[p] == ',' && !js_top_is_array(js))
        p = js_ws_end(buf, p + 1, end);
    else if (js->mode != JS_OBJECT_FIRST && js->mode != JS_KEY)
        return 0;
    size_t q = p < end && buf[p] == '"' ? js_string_end(js, p, end, NULL) : 0;
    if (!q)
        return 0;
    size_t v = js_ws_end(buf, q + 1, end);
    if (v >= end || buf[v] != ':')
        return 0;
    v = js_ws_end(buf, v + 1, end);
    if (v >= end)
        return 0;
    key->kind = JSON_STREAM_KEY;
    key->depth = js->depth;
    key->offset = js->base + (int64_t)p;
    key->str = buf + p + 1;
    key->len = q - p - 1;
    if (buf[v] == '{' || buf[v] == '[') { /* only the key is consumed */
        value->kind = buf[v] == '{' ? JSON_STREAM_OBJECT_BEGIN : JSON_STREAM_ARRAY_BEGIN;
        value->depth = js->depth;
        value->offset = js->base + (int64_t)v;
        value->str = NULL;
        value->len = 0;
        js_fast_consumed(js, v, 0);
        return 1;
    }
    size_t after = js_member_value(js, v, end, value);
    if (!after)
        return 0;
    js_fast_consumed(js, after, 1);
    return 1;
}
