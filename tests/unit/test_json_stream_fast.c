/* Unit tests for the member and skip fast paths of analyzers/readers/json_stream (json_stream_next_member,
 * json_stream_skip_value): a reader that uses them must see exactly what a reader that only calls
 * json_stream_next sees — the same tokens (kind, depth, offset, bytes, value), the same values skipped, the
 * same end or error (code, offset, message) — on valid documents written compactly, torch-style (": ",
 * ", ") and pretty-printed, with escapes, every number shape, literals and deep nesting, pushed in chunks
 * of every size, with doubles as text or converted, under small depth and string caps, and with any byte
 * of a document replaced. Plus the behaviours the fast paths promise on their own: a whole value and the
 * ',' after it consumed, nothing consumed when the value is incomplete, a container member value left to
 * json_stream_next, and a string cut by a chunk end forgotten once a fast path has read it whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_stream.h"
#include "token_text.h"

/* ---- transcripts -------------------------------------------------------------------------------------- */

/* What a reader saw (token_text), one line per token or skipped value. */
typedef token_text transcript;

/* ---- two readers with one skipping policy ------------------------------------------------------------- */

/* Both readers skip the value of every member whose key starts with 'x' and every array element at an
 * odd index; they record "skip <offset after it>" for each. Reader 0 uses json_stream_next only; reader 1
 * tries json_stream_next_member inside objects and json_stream_skip_value wherever it skips. */
#define LEVELS 600

typedef struct reader {
    json_stream *js;
    transcript out;
    int is_array[LEVELS];
    unsigned count[LEVELS]; /* values seen at each open level */
    unsigned level;
    int skip_next;          /* the next value is skipped (after an 'x' key) */
    int64_t skip_depth;     /* skipping a container token by token until its END at this depth; -1 = not */
    unsigned fast_uses;
} reader;

static int is_begin(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_OBJECT_BEGIN || t->kind == JSON_STREAM_ARRAY_BEGIN;
}

static int is_end(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_OBJECT_END || t->kind == JSON_STREAM_ARRAY_END;
}

/* Is the value about to come one the policy skips? */
static int at_skipped_value(const reader *r)
{
    if (r->skip_next)
        return 1;
    return r->level && r->is_array[r->level - 1] && (r->count[r->level - 1] & 1);
}

static void value_done(reader *r)
{
    r->skip_next = 0;
    if (r->level)
        r->count[r->level - 1]++;
}

static void record_skip(reader *r)
{
    token_text_add(&r->out, "skip %lld\n", (long long)json_stream_offset(r->js));
    value_done(r);
}

/* One step of the token path; returns the status. A skipped container is consumed over several steps. */
static json_stream_status token_step(reader *r, nl_error *err)
{
    json_stream_token t;
    json_stream_status st = json_stream_next(r->js, &t, err);
    if (st != JSON_STREAM_TOKEN)
        return st;
    if (r->skip_depth >= 0) {
        if (is_end(&t) && t.depth == r->skip_depth) {
            r->skip_depth = -1;
            record_skip(r);
        }
        return st;
    }
    if (is_end(&t)) {
        token_text_token(&r->out, &t, 1);
        r->level--;
        value_done(r);
        return st;
    }
    if (t.kind == JSON_STREAM_KEY) {
        token_text_token(&r->out, &t, 1);
        r->skip_next = t.len > 0 && t.str[0] == 'x';
        return st;
    }
    if (at_skipped_value(r)) {
        if (is_begin(&t))
            r->skip_depth = t.depth;
        else
            record_skip(r);
        return st;
    }
    token_text_token(&r->out, &t, 1);
    if (is_begin(&t)) {
        assert_true(r->level < LEVELS);
        r->is_array[r->level] = t.kind == JSON_STREAM_ARRAY_BEGIN;
        r->count[r->level] = 0;
        r->level++;
    } else {
        value_done(r);
    }
    return st;
}

/* One step of the fast reader: a fast path when one applies, else the token path. */
static json_stream_status fast_step(reader *r, nl_error *err)
{
    json_stream_token k, v;
    if (r->skip_depth < 0 && at_skipped_value(r) && json_stream_skip_value(r->js)) {
        r->fast_uses++;
        record_skip(r);
        return JSON_STREAM_TOKEN;
    }
    if (r->skip_depth < 0 && !r->skip_next && r->level && !r->is_array[r->level - 1] &&
        json_stream_next_member(r->js, &k, &v)) {
        r->fast_uses++;
        token_text_token(&r->out, &k, 1);
        r->skip_next = k.len > 0 && k.str[0] == 'x';
        if (is_begin(&v)) /* not consumed: skipped by the next step or read as a BEGIN by the token path */
            return JSON_STREAM_TOKEN;
        if (r->skip_next) {
            record_skip(r);
        } else {
            token_text_token(&r->out, &v, 1);
            value_done(r);
        }
        return JSON_STREAM_TOKEN;
    }
    return token_step(r, err);
}

/* Read doc[0, len) pushed in chunks of `chunk` bytes (0 = all at once), with the fast paths or without;
 * the transcript ends with "END" or "ERROR code offset message". *uses (nullable) counts fast path hits. */
static char *run(const char *doc, size_t len, size_t chunk, int fast, const json_stream_options *opt, unsigned *uses)
{
    nl_error err;
    reader r;
    memset(&r, 0, sizeof r);
    r.skip_depth = -1;
    r.js = json_stream_new(opt, &err);
    assert_non_null(r.js);
    size_t fed = 0;
    for (;;) {
        json_stream_status st = fast ? fast_step(&r, &err) : token_step(&r, &err);
        if (st == JSON_STREAM_TOKEN)
            continue;
        if (st == JSON_STREAM_NEED_MORE) {
            size_t n = chunk == 0 || len - fed < chunk ? len - fed : chunk;
            if (n)
                assert_int_equal(json_stream_feed(r.js, doc + fed, n, &err), 0);
            else
                json_stream_finish(r.js);
            fed += n;
            continue;
        }
        if (st == JSON_STREAM_END)
            token_text_add(&r.out, "END\n");
        else
            token_text_add(&r.out, "ERROR %d %lld %s\n", (int)err.code, (long long)err.offset, err.message);
        break;
    }
    json_stream_free(r.js);
    if (uses)
        *uses = r.fast_uses;
    return r.out.s;
}

/* The fast reader's transcript equals the token reader's; returns how often a fast path was taken. */
static unsigned assert_same_reading(const char *doc, size_t len, size_t chunk, const json_stream_options *opt)
{
    unsigned uses = 0;
    char *a = run(doc, len, chunk, 0, opt, NULL);
    char *b = run(doc, len, chunk, 1, opt, &uses);
    if (strcmp(a, b) != 0) {
        size_t i = 0;
        while (a[i] && a[i] == b[i])
            i++;
        while (i && a[i - 1] != '\n')
            i--;
        fail_msg("chunk %zu: the fast paths differ from the token path on '%.*s':\ntoken: %.300s\nfast:  %.300s",
                 chunk, (int)(len < 200 ? len : 200), doc, a + i, b + i);
    }
    free(a);
    free(b);
    return uses;
}

/* ---- documents ---------------------------------------------------------------------------------------- */

/* A torch 2.x trace as torch writes it (": " and ", "), with the shapes a Kineto reader meets. */
static const char torch_doc[] =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 865, \"tid\": 1457,"
    " \"ts\": 701805216974.574, \"dur\": 1290.914, \"args\": {\"External id\": 12290, \"xRecord function id\": 0,"
    " \"xConcrete Inputs\": [\"\", \"1e-06\", \"False\"], \"xInput Dims\": [[4, 512], [], [[1], [2, 3]]],"
    " \"Python parent id\": null, \"xEv Idx\": 7}},\n"
    "  {\"ph\": \"f\", \"id\": \"21600000\", \"pid\": \"17\", \"tid\": -1, \"ts\": 0, \"bp\": \"e\","
    " \"x\": {\"a\": {\"b\": []}}},\n"
    "  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.0, \"pid\": 17, \"args\": {\"name\": \"MTIA 17\"}}\n"
    " ], \"traceName\": \"x\", \"xdistributedInfo\": {\"pg_config\": [{\"ranks\": [0, 1]}]}}\n";

/* Every scalar shape, escapes in keys and values, literals, long and unicode strings, empty containers,
 * arrays of arrays, and whitespace of every kind in every place. */
static const char shapes_doc[] =
    "[ {\"s\":\"\",\"t\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\",\"u\":\"\\u00e9\\ud83d\\ude00 \xc3\xa9\","
    "\"k\\u0065y\":1,\"x\\n\":[1],\"long\":\"0123456789abcdef0123456789abcdef0123456789\","
    "\"n\":[0,-0,12,-12,1.5,-0.25,1e10,1E-3,2.5e+3,0.000,9223372036854775807,9223372036854775808,"
    "18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809,1e400,"
    "123456789012345678901234567890],"
    "\"l\":[true,false,null],\"e\":{},\"a\":[],\"xe\":{},\"xa\":[],\"xs\":\"q\\u0041\",\"xn\":-1.5e-7,"
    "\"xl\":false},\n"
    "\t{ \"sp\" : 1 ,\r\n \"x sp\" :\n [ { \"a\" : [ 1 , { } , \"\\\"\" ] } , 2 ] ,"
    " \"z\" : { \"y\" : [ [ ] , { \"w\" : null } ] } } ,"
    "[[[[[[[[[[1]]]]]]]]]], {\"xdeep\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}, 3, \"tail\" ]";

static const char *const docs[] = {torch_doc, shapes_doc};

/* ---- tests -------------------------------------------------------------------------------------------- */

static void fast_paths_read_what_the_token_path_reads_at_every_chunk_size(void **state)
{
    (void)state;
    json_stream_options text = {.doubles_as_text = 1}, converted = {0};
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        size_t len = strlen(docs[d]);
        char *whole = run(docs[d], len, 0, 0, &text, NULL);
        assert_non_null(strstr(whole, "\nEND\n")); /* a valid document */
        free(whole);
        assert_true(assert_same_reading(docs[d], len, 0, &text) > 10); /* the fast paths were taken */
        assert_true(assert_same_reading(docs[d], len, 0, &converted) > 10);
        for (size_t chunk = 1; chunk <= 64; chunk++)
            assert_same_reading(docs[d], len, chunk, chunk & 1 ? &text : &converted);
        assert_same_reading(docs[d], len, 4093, &text);
    }
}

static void fast_paths_keep_the_depth_and_string_caps(void **state)
{
    (void)state;
    json_stream_options shallow = {.depth_max = 8, .doubles_as_text = 1}, short_strings = {.string_max = 20};
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        size_t len = strlen(docs[d]);
        for (size_t chunk = 0; chunk <= 9; chunk += 3) {
            assert_same_reading(docs[d], len, chunk, &shallow);
            assert_same_reading(docs[d], len, chunk, &short_strings);
        }
    }
    /* ten arrays inside an object: skipped whole with depth_max 11, an error with 10 */
    static const char doc[] = "{\"x\": [[[[[[[[[[1]]]]]]]]]], \"y\": 2}";
    json_stream_options at = {.depth_max = 11}, below = {.depth_max = 10};
    char *ok = run(doc, sizeof doc - 1, 0, 1, &at, NULL), *bad = run(doc, sizeof doc - 1, 0, 1, &below, NULL);
    assert_non_null(strstr(ok, "END"));
    assert_non_null(strstr(bad, "ERROR"));
    free(ok);
    free(bad);
    assert_same_reading(doc, sizeof doc - 1, 0, &below);
}

/* Any byte replaced by a troublesome one: the same tokens up to the same error (or end). */
static void a_corrupted_byte_gives_the_token_path_error(void **state)
{
    (void)state;
    static const char subst[] = {'\0', '"', '{', '}', '[', ']', ',', ':', ' ', '\n', '0', '9', '.', '-', '+', 'e',
                                 'x', 't', 'n', '\\', 'u', (char)0x1f, (char)0xff};
    json_stream_options text = {.doubles_as_text = 1};
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        size_t len = strlen(docs[d]);
        char *doc = malloc(len);
        for (size_t i = 0; i < len; i++) {
            for (size_t k = 0; k < sizeof subst; k++) {
                memcpy(doc, docs[d], len);
                doc[i] = subst[k];
                assert_same_reading(doc, len, 0, &text);
                assert_same_reading(doc, len, 1 + (i + k) % 13, &text);
            }
        }
        free(doc);
    }
}

static void skip_value_consumes_a_whole_value_and_the_comma_after_it(void **state)
{
    (void)state;
    static const char doc[] = "{\"a\": [1, {\"b\": [\"c\", null]}, 2.5],\"z\": 3}";
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    assert_int_equal(json_stream_feed(js, doc, sizeof doc - 1, &err), 0);
    json_stream_finish(js);
    json_stream_token t;
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN); /* { */
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN); /* "a" */
    assert_int_equal(json_stream_skip_value(js), 1);
    assert_int_equal(json_stream_offset(js), strchr(doc, 'z') - 1 - doc); /* past "]," */
    assert_int_equal(json_stream_depth(js), 1);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(t.kind, JSON_STREAM_KEY);
    assert_int_equal(t.len, 1);
    assert_int_equal(t.str[0], 'z');
    assert_int_equal(json_stream_skip_value(js), 1); /* a scalar too */
    assert_int_equal(json_stream_skip_value(js), 0); /* not at a value: '}' */
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(t.kind, JSON_STREAM_OBJECT_END);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_END);
    json_stream_free(js);
}

static void fast_paths_consume_nothing_when_the_value_is_incomplete(void **state)
{
    (void)state;
    static const char doc[] = "{\"k\": 12, \"a\": [1, 2";
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    json_stream_token k, v, t;
    /* "k": 12 needs the byte after 12 to know the number ended */
    assert_int_equal(json_stream_feed(js, doc, 8, &err), 0);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(json_stream_next_member(js, &k, &v), 0);
    assert_int_equal(json_stream_offset(js), 1);
    assert_int_equal(json_stream_feed(js, doc + 8, sizeof doc - 1 - 8, &err), 0);
    assert_int_equal(json_stream_next_member(js, &k, &v), 1);
    assert_int_equal(v.kind, JSON_STREAM_INT);
    assert_int_equal(v.i, 12);
    assert_int_equal(v.offset, 6);
    /* "a": [1, 2 — the key is read, the array is not complete */
    assert_int_equal(json_stream_next_member(js, &k, &v), 1);
    assert_int_equal(v.kind, JSON_STREAM_ARRAY_BEGIN);
    int64_t at = json_stream_offset(js);
    assert_int_equal(json_stream_skip_value(js), 0);
    assert_int_equal(json_stream_offset(js), at);
    json_stream_finish(js);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(t.kind, JSON_STREAM_ARRAY_BEGIN);
    assert_int_equal(t.offset, strchr(doc, '[') - doc);
    json_stream_free(js);
}

/* Regression: the token path stopped inside a string cut by the chunk end and remembered how far it had
 * scanned; a fast path then read that string whole from the next chunk, and the next string the token path
 * scanned started from the stale position (its first bytes were taken as scanned). */
static void a_string_cut_by_the_chunk_end_is_forgotten_after_a_fast_path(void **state)
{
    (void)state;
    static const char doc[] = "{\"a\": {\"key\": [\"\", \"Scalar\", \"\"]}, \"b\": 1}";
    for (size_t chunk = 1; chunk < 8; chunk++)
        assert_same_reading(doc, sizeof doc - 1, chunk, NULL);
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    json_stream_token t, k, v;
    assert_int_equal(json_stream_feed(js, doc, 9, &err), 0); /* {"a": {"ke */
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_NEED_MORE); /* inside "key" */
    assert_int_equal(json_stream_feed(js, doc + 9, sizeof doc - 1 - 9, &err), 0);
    json_stream_finish(js);
    assert_int_equal(json_stream_next_member(js, &k, &v), 1);
    assert_int_equal(k.len, 3);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN); /* [ */
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(t.kind, JSON_STREAM_STRING);
    assert_int_equal(t.len, 0); /* "", not the bytes after it */
    json_stream_free(js);
}

static void a_member_with_a_container_value_leaves_it_to_next(void **state)
{
    (void)state;
    static const char doc[] = "{ \"args\" :\t{\"n\": \"v\"} }";
    nl_error err;
    json_stream *js = json_stream_new(NULL, &err);
    assert_int_equal(json_stream_feed(js, doc, sizeof doc - 1, &err), 0);
    json_stream_finish(js);
    json_stream_token t, k, v;
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(json_stream_next_member(js, &k, &v), 1);
    assert_int_equal(k.kind, JSON_STREAM_KEY);
    assert_int_equal(k.offset, 2);
    assert_int_equal(k.depth, 1);
    assert_int_equal(v.kind, JSON_STREAM_OBJECT_BEGIN);
    assert_int_equal(v.offset, strchr(doc + 1, '{') - doc);
    assert_int_equal(json_stream_next(js, &t, &err), JSON_STREAM_TOKEN);
    assert_int_equal(t.kind, JSON_STREAM_OBJECT_BEGIN);
    assert_int_equal(t.offset, v.offset);
    assert_int_equal(t.depth, 1);
    assert_int_equal(json_stream_next_member(js, &k, &v), 1);
    assert_int_equal(v.kind, JSON_STREAM_STRING);
    assert_int_equal(v.depth, 2);
    assert_int_equal(json_stream_next_member(js, &k, &v), 0); /* '}' */
    json_stream_free(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_paths_read_what_the_token_path_reads_at_every_chunk_size),
        cmocka_unit_test(fast_paths_keep_the_depth_and_string_caps),
        cmocka_unit_test(a_corrupted_byte_gives_the_token_path_error),
        cmocka_unit_test(skip_value_consumes_a_whole_value_and_the_comma_after_it),
        cmocka_unit_test(fast_paths_consume_nothing_when_the_value_is_incomplete),
        cmocka_unit_test(a_string_cut_by_the_chunk_end_is_forgotten_after_a_fast_path),
        cmocka_unit_test(a_member_with_a_container_value_leaves_it_to_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
