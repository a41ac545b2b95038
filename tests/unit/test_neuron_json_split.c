/* Unit tests for the split read of full JSON exports (analyzers/readers/neuron_json_par.c), its structural
 * scanner (json_split.c) and the merge (table_append_table, device_model_merge_rows): the split read must
 * build exactly the sequential read's model (tests/unit/model_compare.c) whatever the piece size and
 * thread count, including cuts next to strings that contain `},{`, escaped quotes and backslash runs, and
 * must fail exactly as the sequential read does. Likewise the record fast path (json_stream_flat_object)
 * against the token-by-token path, for every read size (records cut at every byte of a buffer end). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_model.h"
#include "json_split.h"
#include "model_compare.h"
#include "neuron_json.h"

/* ---- a growable text buffer and a generated export ---------------------------------------------------- */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void text_add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
        if (t->len == 0)
            t->s[0] = '\0';
    }
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* String values that a naive `},{` split would cut inside: JSON-escaped text for a C string literal. */
static const char *const tricky[] = {
    "plain",
    "a},{\\\"b",                  /* a},{"b */
    "},{\\\"timestamp\\\":1}",    /* },{"timestamp":1} */
    "x\\\\",                      /* x\ (ends in a backslash) */
    "\\\\\\\\},{",                /* \\},{ */
    "\\\\\\\"},{\\\"",            /* \"},{" */
    "[{\\\"op\\\":1},{\\\"op\\\":2}]",
    "\\u007d,\\u007b\\u0022",     /* },{" as \u escapes */
    "",
};
#define TRICKY_N (sizeof tricky / sizeof tricky[0])

static const char *const opcodes[] = {"MATMUL", "DMA_COPY", "ACT", "NOP", "TENSOR_TENSOR"};

/* An export with `n` instructions, n/2 dma records, a skipped array with mixed elements, an unknown key
 * that first appears late, metadata after the rows, a second `instruction` array, and `pretty` whitespace
 * between elements when set. Deterministic for (n, seed, pretty). */
static char *gen_export(size_t n, uint64_t seed, int pretty, size_t *len)
{
    text t = {0};
    uint64_t s = seed | 1;
    const char *sep = pretty ? ",\n    " : ",";
    text_add(&t, "{\"instruction\":[%s", pretty ? "\n    " : "");
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_next(&s);
        text_add(&t, "%s{\"timestamp\":%llu,\"duration\":%llu,\"id\":%llu,\"opcode\":\"%s\",\"label\":\"%s%llu\"",
                 i ? sep : "", (unsigned long long)(1000 + i * 7), (unsigned long long)(r % 500),
                 (unsigned long long)(r >> 1), opcodes[r % 5], tricky[(r >> 8) % TRICKY_N],
                 (unsigned long long)((r >> 16) % (i / 50 + 2)));
        if (r % 6 == 1)
            text_add(&t, ",\"layer\":\"\""); /* an empty string held by the token path */
        if (r % 3 == 0)
            text_add(&t, ",\"hlo_attrs\":\"[{\\\"source_file\\\":\\\"f%llu.py\\\",\\\"source_line\\\":\\\"%llu\\\"}]\"",
                     (unsigned long long)(r % 7), (unsigned long long)(r % 13));
        if (r % 5 == 0)
            text_add(&t, ",\"predecessors\":[{\"id\":1,\"type\":\"x},{\"},{\"id\":2}],\"raw_framework_id\":[5,[6]]");
        if (i > n / 2 && r % 11 == 0)
            text_add(&t, ",\"late_key_%llu\":\"v\"", (unsigned long long)(r % 3));
        if (r % 4 == 0)
            text_add(&t, ",\"hbm_read_bytes\":%llu,\"nki_source_location\":\"k%llu.py:%llu\"",
                     (unsigned long long)(r % 100000), (unsigned long long)(r % 9), (unsigned long long)(r % 50));
        text_add(&t, ",\"subgroup\":\"%s\"}", r % 2 ? "Tensor" : "Vector");
    }
    text_add(&t, "%s],\"ham\":[1,{\"a\":\"]},{\"},[2,3],\"s\",{\"b\":[{}]},null,{}],", pretty ? "\n" : "");
    text_add(&t, "\"dma\":[");
    for (size_t i = 0; i < n / 2; i++) {
        uint64_t r = rng_next(&s);
        text_add(&t, "%s{\"timestamp\":%llu,\"id\":%llu,\"subgroup\":\"q%s-Q%llu-E%llu\",\"queue_type\":\"data\","
                     "\"dma_engine\":\"%llu\",\"transfer_size\":%llu,\"aggregated\":\"%s\",\"variable\":\"v%llu\"}",
                 i ? sep : "", (unsigned long long)(900 + i * 3), (unsigned long long)r,
                 tricky[(r >> 4) % TRICKY_N], (unsigned long long)(r % 4), (unsigned long long)(r % 2),
                 (unsigned long long)(r % 16), (unsigned long long)(r % 65536), r % 2 ? "yes" : "no",
                 (unsigned long long)(r % 40));
    }
    text_add(&t, "],\"metadata\":[{\"first_hw_timestamp\":900}],\"instruction\":[");
    for (size_t i = 0; i < n / 3 + 1; i++)
        text_add(&t, "%s{\"timestamp\":%llu,\"opcode\":\"SECOND\",\"label\":\"L%llu\"}", i ? sep : "",
                 (unsigned long long)(5000000 + i), (unsigned long long)(i % 7));
    text_add(&t, "],\"semaphore_update\":[");
    for (size_t i = 0; i < n / 4 + 1; i++)
        text_add(&t, "%s{\"id\":\"%llu\",\"value\":%llu,\"timestamp\":%llu}", i ? sep : "", (unsigned long long)(i % 5),
                 (unsigned long long)i, (unsigned long long)(2000 + i));
    text_add(&t, "],\"summary\":[{\"total_time\":1.5}],\"empty\":[]}\n");
    *len = t.len;
    return t.s;
}

/* ---- helpers ------------------------------------------------------------------------------------------ */

static device_model *read_with(const char *doc, size_t len, const neuron_json_options *opt, nl_error *err)
{
    device_model *m = NULL;
    memset(err, 0x5a, sizeof *err);
    if (neuron_json_read_mem(doc, len, "split.json", opt, &m, err) != 0) {
        assert_null(m);
        return NULL;
    }
    assert_non_null(m);
    return m;
}

static void assert_same_model(const device_model *a, const device_model *b)
{
    char why[256] = "";
    if (model_compare(a, b, why, sizeof why) != 0)
        fail_msg("split read differs from the sequential read: %s", why);
}

static void assert_same_error(const nl_error *a, const nl_error *b)
{
    assert_int_equal(a->code, b->code);
    assert_int_equal(a->offset, b->offset);
    assert_int_equal(a->record, b->record);
    assert_string_equal(a->source, b->source);
    assert_string_equal(a->field, b->field);
    assert_string_equal(a->message, b->message);
}

/* ---- the split read equals the sequential read -------------------------------------------------------- */

static void split_equals_sequential(size_t n, int pretty, const size_t *records, size_t nrecords)
{
    size_t len;
    char *doc = gen_export(n, 42 + n, pretty, &len);
    neuron_json_options seq = {.threads = 1};
    nl_error err;
    device_model *a = read_with(doc, len, &seq, &err);
    if (!a)
        fail_msg("sequential read failed: %s", err.message);
    static const unsigned threads[] = {2, 3, 5};
    for (size_t k = 0; k < nrecords; k++) {
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            size_t pieces = 0;
            neuron_json_options par = {
                .threads = threads[t], .split_min = 1, .split_records = records[k], .split_pieces = &pieces};
            device_model *b = read_with(doc, len, &par, &err);
            if (!b)
                fail_msg("split read (records %zu, threads %u) failed: %s", records[k], threads[t], err.message);
            if (pieces < 4) /* the split read must really have run, not fallen back to the sequential one */
                fail_msg("records %zu, threads %u: only %zu pieces", records[k], threads[t], pieces);
            assert_same_model(a, b);
            device_model_free(b);
        }
    }
    device_model_free(a);
    free(doc);
}

static void split_read_equals_sequential_for_every_piece_size(void **state)
{
    (void)state;
    static const size_t records[] = {1, 2, 3, 7, 64};
    split_equals_sequential(300, 0, records, sizeof records / sizeof records[0]);
}

static void split_read_equals_sequential_with_whitespace_between_elements(void **state)
{
    (void)state;
    static const size_t records[] = {1, 5};
    split_equals_sequential(120, 1, records, sizeof records / sizeof records[0]);
}

/* Pieces of TABLE_SEG_ROWS records merge by copying whole segments (with string codes re-encoded); the
 * second `instruction` array then starts mid-segment and merges row by row. */
static void split_read_equals_sequential_with_whole_segments(void **state)
{
    (void)state;
    static const size_t records[] = {0, 16384};
    split_equals_sequential(40000, 0, records, sizeof records / sizeof records[0]);
}

static void split_read_through_a_descriptor_matches_and_leaves_the_offset_at_the_end(void **state)
{
    (void)state;
    size_t len;
    char *doc = gen_export(500, 7, 0, &len);
    char path[] = "/tmp/nl_split_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, doc, len), (ssize_t)len);
    size_t pieces = 0;
    neuron_json_options seq = {.threads = 1},
                        par = {.threads = 2, .split_min = 1, .split_records = 9, .split_pieces = &pieces};
    device_model *a = NULL, *b = NULL;
    nl_error err;
    assert_int_equal(neuron_json_read(path, &seq, &a, &err), 0);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    assert_int_equal(neuron_json_read_fd(fd, path, &par, &b, &err), 0);
    assert_int_equal(lseek(fd, 0, SEEK_CUR), (off_t)len);
    assert_true(pieces > 50);
    assert_same_model(a, b);
    device_model_free(b);
    /* a descriptor positioned past a prefix: both reads start where it points */
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    assert_int_equal(write(fd, "JUNK", 4), 4);
    assert_int_equal(write(fd, doc, len), (ssize_t)len);
    assert_int_equal(lseek(fd, 4, SEEK_SET), 4);
    pieces = 0;
    assert_int_equal(neuron_json_read_fd(fd, path, &par, &b, &err), 0);
    assert_true(pieces > 50);
    assert_int_equal(lseek(fd, 0, SEEK_CUR), (off_t)len + 4);
    assert_same_model(a, b);
    device_model_free(a);
    device_model_free(b);
    close(fd);
    unlink(path);
    free(doc);
}

/* ---- failures are the sequential read's failures ------------------------------------------------------ */

static void split_failure_matches(const char *doc, size_t len)
{
    neuron_json_options seq = {.threads = 1}, par = {.threads = 3, .split_min = 1, .split_records = 4};
    nl_error ea, eb;
    device_model *a = read_with(doc, len, &seq, &ea);
    device_model *b = read_with(doc, len, &par, &eb);
    if (a || b)
        fail_msg("expected both reads to fail: sequential %s, split %s", a ? "ok" : ea.message, b ? "ok" : eb.message);
    assert_same_error(&ea, &eb);
}

/* Replace the first occurrence of `what` after byte `from` of a fresh export by `with`. */
static char *corrupt(size_t from, const char *what, const char *with, size_t *len)
{
    char *doc = gen_export(200, 3, 0, len);
    char *at = strstr(doc + from, what);
    assert_non_null(at);
    size_t wl = strlen(what), nl = strlen(with);
    char *out = malloc(*len - wl + nl + 1);
    assert_non_null(out);
    memcpy(out, doc, (size_t)(at - doc));
    memcpy(out + (at - doc), with, nl);
    memcpy(out + (at - doc) + nl, at + wl, *len - (size_t)(at - doc) - wl + 1);
    *len = *len - wl + nl;
    free(doc);
    return out;
}

/* Edits that make a generated export invalid, each in a record after byte 4000. */
static const struct {
    const char *what, *with;
} corruptions[] = {
        {"\"duration\":", "\"duration\":\"x\","},  /* wrong type in a late record: record index and field */
        {"},{\"timestamp\"", "},,{\"timestamp\""}, /* empty element between two records */
        {"},{\"timestamp\"", "}{\"timestamp\""},   /* missing separator */
        {"\"opcode\":\"", "\"opcode\":\"\x01"},    /* control character in a string */
        {"\"id\":", "\"id\":--"},                  /* invalid number */
        {"],\"ham\"", ",],\"ham\""},               /* trailing comma at the end of a split array */
        {"\"dma\":[", "\"dma\":[\"x\","},          /* a scalar before the records of a modelled array */
        {"{\"timestamp\"", "[\"timestamp\""},      /* an element that opens as an array */
        {"\"opcode\":\"", "\"opcode\":\"\\q"},     /* invalid escape */
        {"\"opcode\":\"", "\"opcode\":\"\\u12g4"}, /* invalid \u escape */
        {"\"opcode\":\"", "\"opcode\":\"\\udc00"}, /* lone low surrogate */
        {"\"id\":", "\"id\":01"},                   /* leading zero */
        {"\"id\":", "\"id\":1.e5,\"x\":"},           /* no digit after the point */
        {"\"id\":", "\"id\":99999999999999999999,\"x\":"}, /* 20 digits: a double, not an integer */
        {"\"id\":", "\"id\":nul,\"x\":"},            /* bad literal */
        {"\"raw_framework_id\":[5,", "\"raw_framework_id\":[5,,"}, /* nested: empty element */
        {"\"raw_framework_id\":[5,", "\"raw_framework_id\":[5}"},  /* nested: wrong close */
        {"\"predecessors\":[{\"id\"", "\"predecessors\":[{id\""}, /* nested: unquoted key */
        {"\"duration\":", "\"duration\"::"},          /* double colon */
        {"\"duration\":", "\"duration\"\x01:"},       /* control byte after a key */
};

static void split_read_fails_like_the_sequential_read(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof corruptions / sizeof corruptions[0]; i++) {
        size_t len;
        char *doc = corrupt(4000, corruptions[i].what, corruptions[i].with, &len);
        split_failure_matches(doc, len);
        free(doc);
    }
    size_t len;
    char *doc = gen_export(200, 3, 0, &len);
    for (size_t cut = len / 3; cut < len; cut += len / 5)
        split_failure_matches(doc, cut); /* truncated inside a split array, then later */
    free(doc);
}

/* ---- the record fast path equals the token path -------------------------------------------------------- */

static const size_t read_sizes[] = {1, 2, 7, 64, 333, 4096, 0};
#define READ_SIZES (sizeof read_sizes / sizeof read_sizes[0])

/* The fast path's model is the token path's, for every read size; returns the records the fast path took
 * with the default read size. */
static uint64_t fast_matches_tokens(const char *doc, size_t len, const char *what)
{
    uint64_t fast = 0;
    for (size_t k = 0; k < READ_SIZES; k++) {
        uint64_t took = 0;
        neuron_json_options tokens = {.threads = 1, .read_size = read_sizes[k], .tokens_only = 1};
        neuron_json_options flat = {.threads = 1, .read_size = read_sizes[k], .fast_records = &took};
        nl_error ea, eb;
        device_model *a = read_with(doc, len, &tokens, &ea);
        device_model *b = read_with(doc, len, &flat, &eb);
        if (!a || !b)
            fail_msg("%s, read size %zu: token path %s, fast path %s", what, read_sizes[k], a ? "ok" : ea.message,
                     b ? "ok" : eb.message);
        assert_same_model(a, b);
        device_model_free(a);
        device_model_free(b);
        if (read_sizes[k] == 0)
            fast = took;
    }
    return fast;
}

static void fast_path_builds_the_token_path_model_for_every_read_size(void **state)
{
    (void)state;
    size_t len;
    char *doc = gen_export(300, 11, 0, &len);
    /* 300 instructions + 150 dma + 101 second instructions + 76 semaphores, all compact: every one fast */
    assert_int_equal(fast_matches_tokens(doc, len, "compact"), 300 + 150 + 101 + 76);
    free(doc);
    doc = gen_export(120, 12, 1, &len); /* whitespace between elements only: records stay fast */
    assert_int_equal(fast_matches_tokens(doc, len, "pretty"), 120 + 60 + 41 + 31);
    free(doc);
}

/* Valid records the fast path declines (whitespace inside, an escaped key, deep nesting, a number cut short
 * of 24 readable bytes) or takes with rare values: same model, and the other records stay fast. */
static void fast_path_declines_what_it_does_not_handle(void **state)
{
    (void)state;
    static const struct {
        const char *what, *with;
        int declined; /* records the fast path leaves to the token path */
    } edits[] = {
        {"\"duration\":", "\"duration\" : ", 1},
        {"\"duration\":", "\"dur\\u0061tion\":", 1},
        {"\"duration\":", "\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],\"duration\":", 1},
        {"\"duration\":", "\"x\":[[[[1]]]],\"duration\":", 0},
        {"\"duration\":", "\"x\":{\"a\":[true,false,null,-0.5e-3,\"s\"],\"b\":{}},\"duration\":", 0},
        {"\"duration\":", "\"x\":[\"\\\"\"],\"duration\":", 1},  /* escape inside a nested string */
        {"\"duration\":", "\"x\":-12.5e+3,\"y\":true,\"z\":null,\"w\":false,\"duration\":", 0},
        {"\"duration\":", "\"x\":-9223372036854775808,\"y\":18446744073709551615,\"duration\":", 0},
        {"\"duration\":", "\"x\":\"\\ud83d\\ude00\\n\\/\",\"duration\":", 0},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        size_t len;
        char *doc = corrupt(4000, edits[i].what, edits[i].with, &len);
        uint64_t took = fast_matches_tokens(doc, len, edits[i].with);
        if (took != 200 + 100 + 67 + 51 - (uint64_t)edits[i].declined)
            fail_msg("edit %zu: %llu records took the fast path", i, (unsigned long long)took);
        free(doc);
    }
}

static void fast_path_fails_like_the_token_path(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof corruptions / sizeof corruptions[0]; i++) {
        size_t len;
        char *doc = corrupt(4000, corruptions[i].what, corruptions[i].with, &len);
        for (size_t k = 0; k < READ_SIZES; k++) {
            neuron_json_options tokens = {.threads = 1, .read_size = read_sizes[k], .tokens_only = 1};
            neuron_json_options flat = {.threads = 1, .read_size = read_sizes[k]};
            nl_error ea, eb;
            device_model *a = read_with(doc, len, &tokens, &ea);
            device_model *b = read_with(doc, len, &flat, &eb);
            if (a || b)
                fail_msg("corruption %zu, read size %zu: expected both reads to fail", i, read_sizes[k]);
            assert_same_error(&ea, &eb);
        }
        free(doc);
    }
}

static void split_read_reports_cancel(void **state)
{
    (void)state;
    size_t len;
    char *doc = gen_export(300, 5, 0, &len);
    atomic_int cancel = 1;
    neuron_json_options par = {.threads = 2, .split_min = 1, .split_records = 3, .cancel = &cancel};
    nl_error err;
    assert_null(read_with(doc, len, &par, &err));
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    free(doc);
}

typedef struct progress_log {
    uint64_t last, total, calls;
    int backwards;
} progress_log;

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress_log *p = ctx;
    if (done < p->last)
        p->backwards = 1;
    p->last = done;
    p->total = total;
    p->calls++;
}

static void split_read_reports_progress_up_to_the_size(void **state)
{
    (void)state;
    size_t len;
    char *doc = gen_export(3000, 9, 0, &len);
    progress_log log = {0};
    neuron_json_options par = {
        .threads = 2, .split_min = 1, .split_records = 50, .progress = on_progress, .progress_ctx = &log};
    nl_error err;
    device_model *m = read_with(doc, len, &par, &err);
    assert_non_null(m);
    assert_true(log.calls >= 2);
    assert_false(log.backwards);
    assert_int_equal(log.last, len);
    assert_int_equal(log.total, len);
    device_model_free(m);
    free(doc);
}

/* ---- the scanner ---------------------------------------------------------------------------------------- */

typedef struct events {
    size_t off[4096];
    int ev[4096];
    size_t n;
    char key[64];
} events;

static int record_event(void *ctx, json_split_event ev, size_t offset, const char *key, size_t key_len)
{
    events *e = ctx;
    if (ev == JSON_SPLIT_PROGRESS)
        return 0;
    if (ev == JSON_SPLIT_ARRAY_OPEN && key && key_len < sizeof e->key) {
        memcpy(e->key, key, key_len);
        e->key[key_len] = '\0';
    }
    assert_true(e->n < 4096);
    e->off[e->n] = offset;
    e->ev[e->n++] = (int)ev;
    return 0;
}

/* The same events computed one byte at a time (string and escape state), the obvious way. */
static void reference_events(const char *s, size_t len, events *e)
{
    int in_str = 0, esc = 0, top_obj = 0, member_array = 0;
    size_t depth = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_str) {
            if (esc)
                esc = 0;
            else if (c == '\\')
                esc = 1;
            else if (c == '"')
                in_str = 0;
            continue;
        }
        if (c == '"') {
            in_str = 1;
        } else if (c == '{' || c == '[') {
            if (depth == 0)
                top_obj = c == '{';
            else if (depth == 1 && (member_array = top_obj && c == '['))
                record_event(e, JSON_SPLIT_ARRAY_OPEN, i, NULL, 0);
            else if (depth == 2 && member_array)
                record_event(e, JSON_SPLIT_ELEMENT_OPEN, i, NULL, 0);
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
            if (depth == 2 && member_array)
                record_event(e, JSON_SPLIT_ELEMENT_CLOSE, i, NULL, 0);
            else if (depth == 1 && member_array) {
                record_event(e, JSON_SPLIT_ARRAY_CLOSE, i, NULL, 0);
                member_array = 0;
            }
        }
    }
}

/* Strings made of backslash runs, quotes and brackets, with their escapes placed at every offset around
 * 64-byte block boundaries; scanned whole (SIMD and baseline paths) and fed in pieces. */
static void scanner_matches_a_byte_at_a_time_reference(void **state)
{
    (void)state;
    static const char *const bodies[] = {
        "\\\\", "\\\"", "\\\\\\\"]}", "\\\\\\\\", "x\\\"},{\\\"", "[{", "\\\\\\\\\\\"",
    };
    for (size_t pad = 0; pad < 70; pad++) {
        text t = {0};
        text_add(&t, "{\"k%*s\":[", (int)pad, "");
        for (size_t i = 0; i < 40; i++)
            text_add(&t, "%s{\"s\":\"%s\",\"a\":[\"]\",{}]}", i ? "," : "", bodies[(i + pad) % 7]);
        text_add(&t, "],\"o\":{\"x\":[1]},\"z\":[[1],\"[\"]}");
        events want = {.n = 0};
        reference_events(t.s, t.len, &want);
        for (unsigned flags = 0; flags <= JSON_SPLIT_PORTABLE; flags++) { /* SIMD where available, baseline */
            events got = {.n = 0};
            assert_int_equal(json_split_scan_with(t.s, t.len, record_event, &got, flags), 0);
            assert_int_equal(got.n, want.n);
            for (size_t i = 0; i < got.n; i++) {
                assert_int_equal(got.ev[i], want.ev[i]);
                assert_int_equal(got.off[i], want.off[i]);
            }
            assert_string_equal(got.key, "z"); /* the last member array's raw name */
        }
        /* the same text fed in pieces of 64·k bytes (k = 1..5), names and escapes straddling the pieces */
        events got = {.n = 0};
        json_split js;
        json_split_init(&js, record_event, &got, 0);
        size_t at = 0, k = 1;
        int rc = 0;
        while (at < t.len && rc == 0) {
            size_t n = t.len - at < JSON_SPLIT_BLOCK * k ? t.len - at : JSON_SPLIT_BLOCK * k;
            rc = json_split_feed(&js, t.s + at, n, at < 300 ? at : 300, at + n == t.len);
            at += n;
            k = k % 5 + 1;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(got.n, want.n);
        for (size_t i = 0; i < got.n; i++) {
            assert_int_equal(got.ev[i], want.ev[i]);
            assert_int_equal(got.off[i], want.off[i]);
        }
        assert_string_equal(got.key, "z");
        free(t.s);
    }
}

static void scanner_reports_unbalanced_brackets(void **state)
{
    (void)state;
    events e = {.n = 0};
    assert_int_equal(json_split_scan("{\"a\":[{}]}}", 11, record_event, &e), -1);
    e.n = 0;
    assert_int_equal(json_split_scan("{\"a\":[{}]", 9, record_event, &e), -1);
    e.n = 0;
    assert_int_equal(json_split_scan("{\"a\":\"}}}\"}", 11, record_event, &e), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_read_equals_sequential_for_every_piece_size),
        cmocka_unit_test(split_read_equals_sequential_with_whitespace_between_elements),
        cmocka_unit_test(split_read_equals_sequential_with_whole_segments),
        cmocka_unit_test(split_read_through_a_descriptor_matches_and_leaves_the_offset_at_the_end),
        cmocka_unit_test(split_read_fails_like_the_sequential_read),
        cmocka_unit_test(split_read_reports_cancel),
        cmocka_unit_test(fast_path_builds_the_token_path_model_for_every_read_size),
        cmocka_unit_test(fast_path_declines_what_it_does_not_handle),
        cmocka_unit_test(fast_path_fails_like_the_token_path),
        cmocka_unit_test(split_read_reports_progress_up_to_the_size),
        cmocka_unit_test(scanner_matches_a_byte_at_a_time_reference),
        cmocka_unit_test(scanner_reports_unbalanced_brackets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
