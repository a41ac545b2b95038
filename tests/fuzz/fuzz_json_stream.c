/* fuzz_json_stream — libFuzzer target for the streaming JSON tokenizer (analyzers/readers/json_stream.c).
 *
 * The input is a JSON text. It is read three times and the readings must agree (a differential oracle, on
 * top of the sanitizers): through json_stream_next alone, pushed whole; through the fast paths the readers
 * use (json_stream_next_member inside objects, json_stream_skip_value for the values a policy skips:
 * members whose key starts with 'x' and every odd array element), pushed whole; and through the fast paths
 * again, pushed in chunks of a size taken from the input's hash. All must report the same tokens (kind,
 * depth, offset, bytes, value), skip the same values and end the same way (END, or the same error code and
 * offset). The two whole readings must also agree on where each skip ended and on the error message; a
 * chunked one may not: a skip consumes the ',' after the value only when it was pushed already, and the
 * excerpt in a message ("near '...'") shows the bytes pushed so far. The hash also
 * picks the options: doubles as text or converted, and now and then a small depth or string cap, so the
 * cap paths are fuzzed at every chunk boundary.
 *
 * fuzz-max-len: 16384
 * fuzz-seeds: raw:samples/neuron-profile-json:*.json export:samples/neuron-profile-json:*.json
 * fuzz-seeds: kineto:samples/kineto:*.json.gz export:gen:profile_nc0.json raw:gen:show_session.json
 * fuzz-seeds: raw:gen:summary_nc0.json
 * fuzz-dict: json.dict */
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_transcript.h"
#include "json_stream.h"

/* Container levels a reader tracks: above the largest depth_max used (the default, 256). */
#define LEVELS (JSON_STREAM_DEPTH_MAX + 2)

typedef struct reader {
    json_stream *js;
    fuzz_transcript out;
    fuzz_transcript skips;              /* the offset where each skip ended */
    char message[NL_ERROR_MESSAGE_MAX]; /* of the error that ended the reading; "" for END */
    unsigned char is_array[LEVELS];
    unsigned count[LEVELS]; /* values seen at each open level */
    unsigned level;
    int skip_next;      /* the next value is skipped (after an 'x' key) */
    int64_t skip_depth; /* skipping a container token by token until its END at this depth; -1 = not */
} reader;

static void record_token(reader *r, const json_stream_token *t)
{
    fuzz_transcript_add(&r->out, "%d %u %lld %zu:", (int)t->kind, (unsigned)t->depth, (long long)t->offset, t->len);
    fuzz_transcript_bytes(&r->out, t->str, t->str ? t->len : 0);
    if (t->kind == JSON_STREAM_INT)
        fuzz_transcript_add(&r->out, " i%lld", (long long)t->i);
    else if (t->kind == JSON_STREAM_UINT)
        fuzz_transcript_add(&r->out, " u%llu", (unsigned long long)t->u);
    if (t->kind == JSON_STREAM_INT || t->kind == JSON_STREAM_UINT || t->kind == JSON_STREAM_DOUBLE)
        fuzz_transcript_add(&r->out, " d%a", t->d);
    fuzz_transcript_add(&r->out, "\n");
}

static int is_begin(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_OBJECT_BEGIN || t->kind == JSON_STREAM_ARRAY_BEGIN;
}

static int is_end(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_OBJECT_END || t->kind == JSON_STREAM_ARRAY_END;
}

static int at_skipped_value(const reader *r)
{
    return r->skip_next || (r->level && r->is_array[r->level - 1] && (r->count[r->level - 1] & 1));
}

static void value_done(reader *r)
{
    r->skip_next = 0;
    if (r->level)
        r->count[r->level - 1]++;
}

static void record_skip(reader *r)
{
    fuzz_transcript_add(&r->out, "skip\n");
    fuzz_transcript_add(&r->skips, "%lld\n", (long long)json_stream_offset(r->js));
    value_done(r);
}

/* One json_stream_next and the policy's bookkeeping. */
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
        record_token(r, &t);
        FUZZ_CHECK(r->level > 0, "an END at level 0");
        r->level--;
        value_done(r);
    } else if (t.kind == JSON_STREAM_KEY) {
        record_token(r, &t);
        r->skip_next = t.len > 0 && t.str[0] == 'x';
    } else if (at_skipped_value(r)) {
        if (is_begin(&t))
            r->skip_depth = t.depth;
        else
            record_skip(r);
    } else {
        record_token(r, &t);
        if (is_begin(&t)) {
            FUZZ_CHECK(r->level < LEVELS, "depth %u beyond the cap", r->level);
            r->is_array[r->level] = t.kind == JSON_STREAM_ARRAY_BEGIN;
            r->count[r->level] = 0;
            r->level++;
        } else {
            value_done(r);
        }
    }
    return st;
}

/* A fast path when one applies, else token_step. */
static json_stream_status fast_step(reader *r, nl_error *err)
{
    json_stream_token k, v;
    if (r->skip_depth < 0 && at_skipped_value(r) && json_stream_skip_value(r->js)) {
        record_skip(r);
        return JSON_STREAM_TOKEN;
    }
    if (r->skip_depth < 0 && !r->skip_next && r->level && !r->is_array[r->level - 1] &&
        json_stream_next_member(r->js, &k, &v)) {
        record_token(r, &k);
        r->skip_next = k.len > 0 && k.str[0] == 'x';
        if (is_begin(&v)) /* not consumed: skipped or read as a BEGIN by the next step */
            return JSON_STREAM_TOKEN;
        if (r->skip_next) {
            record_skip(r);
        } else {
            record_token(r, &v);
            value_done(r);
        }
        return JSON_STREAM_TOKEN;
    }
    return token_step(r, err);
}

/* What one reading saw: the compared transcript, the skip offsets and the final error message. */
typedef struct reading {
    fuzz_transcript out, skips;
    char message[NL_ERROR_MESSAGE_MAX];
} reading;

/* Read doc[0, len) in chunks of `chunk` bytes (0 = whole), with or without the fast paths. */
static void run(const uint8_t *doc, size_t len, size_t chunk, int fast, const json_stream_options *opt, reading *out)
{
    reader *r = calloc(1, sizeof *r);
    FUZZ_CHECK(r != NULL, "out of memory");
    r->skip_depth = -1;
    nl_error err;
    r->js = json_stream_new(opt, &err);
    FUZZ_CHECK(r->js != NULL, "json_stream_new: %s", err.message);
    size_t fed = 0;
    for (;;) {
        json_stream_status st = fast ? fast_step(r, &err) : token_step(r, &err);
        if (st == JSON_STREAM_TOKEN)
            continue;
        if (st == JSON_STREAM_NEED_MORE) {
            size_t n = chunk == 0 || len - fed < chunk ? len - fed : chunk;
            if (n)
                FUZZ_CHECK(json_stream_feed(r->js, doc + fed, n, &err) == 0, "feed: %s", err.message);
            else
                json_stream_finish(r->js);
            fed += n;
            continue;
        }
        if (st == JSON_STREAM_END) {
            FUZZ_CHECK(r->level == 0 && r->skip_depth < 0, "END with %u levels open", r->level);
            fuzz_transcript_add(&r->out, "END\n");
        } else {
            FUZZ_CHECK(err.offset >= 0 && (uint64_t)err.offset <= len, "error offset %lld outside [0, %zu]",
                       (long long)err.offset, len);
            fuzz_transcript_add(&r->out, "ERROR %d %lld\n", (int)err.code, (long long)err.offset);
            snprintf(r->message, sizeof r->message, "%s", err.message);
        }
        break;
    }
    json_stream_free(r->js);
    out->out = r->out;
    out->skips = r->skips;
    memcpy(out->message, r->message, sizeof r->message);
    free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fuzz_hash(FUZZ_HASH_INIT, data, size);
    json_stream_options opt = {.source = "fuzz", .doubles_as_text = (int)(h & 1)};
    if (((h >> 1) & 7) == 0)
        opt.depth_max = 1 + (uint32_t)((h >> 4) & 15);
    if (((h >> 8) & 7) == 0)
        opt.string_max = 1 + (size_t)((h >> 11) & 31);
    size_t chunk = 1 + (size_t)((h >> 16) % 67);

    reading a = {0}, b = {0}, c = {0};
    run(data, size, 0, 0, &opt, &a);
    run(data, size, 0, 1, &opt, &b);
    run(data, size, chunk, 1, &opt, &c);
    const reading *other[] = {&b, &c};
    for (int k = 0; k < 2; k++) {
        size_t at;
        if (fuzz_transcript_diff(&a.out, &other[k]->out, &at)) {
            fuzz_transcript_show(&a.out, at, "token reader, whole input");
            fuzz_transcript_show(&other[k]->out, at, k ? "fast reader, chunked" : "fast reader, whole input");
            FUZZ_CHECK(0, "chunk %zu, doubles_as_text %d, depth_max %u, string_max %zu: the readings differ",
                       k ? chunk : 0, opt.doubles_as_text, (unsigned)opt.depth_max, opt.string_max);
        }
    }
    size_t at;
    if (fuzz_transcript_diff(&a.skips, &b.skips, &at)) {
        fuzz_transcript_show(&a.skips, at, "token reader's skips end at");
        fuzz_transcript_show(&b.skips, at, "fast reader's skips end at");
        FUZZ_CHECK(0, "whole input: the skips end at different offsets");
    }
    FUZZ_CHECK(!strcmp(a.message, b.message), "the same error, two messages:\ntoken: %s\nfast:  %s", a.message,
               b.message);
    reading *all[] = {&a, &b, &c};
    for (int k = 0; k < 3; k++) {
        fuzz_transcript_free(&all[k]->out);
        fuzz_transcript_free(&all[k]->skips);
    }
    return 0;
}
