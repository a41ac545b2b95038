/* Unit tests for analyzers/readers/pickle: every supported opcode from hand-built bytes (the event log
 * names role, kind and value), every refused opcode (code, offset, opcode name), the caps (depth, a 10 GB
 * length prefix, LONG4 size, tuple size), memo misuse, references and their tags, skipping, every prefix of
 * a snapshot-shaped pickle (truncated, never a crash), one-byte corruptions, chunk-boundary independence,
 * an input that changes between the passes, cancellation, and handler errors passing through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "pickle.h"
#include "pickle_writer.h"
#include "strtab.h"

/* ---- reading into an event log ------------------------------------------------------------------------ */

typedef struct log {
    const strtab *st;
    char *s;
    size_t n, cap;
    uint64_t next_tag;
    int skip_dict_with_key; /* skip dicts delivered as the value of key "skip" */
    int fail_at_int;        /* the handler fails on this int value (0 = never) */
    int last_key_skip;
} log_t;

static void log_add(log_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_add(log_t *l, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    assert_true(k >= 0 && (size_t)k < sizeof tmp);
    if (l->n + (size_t)k + 2 > l->cap) {
        l->cap = (l->n + (size_t)k + 2) * 2;
        l->s = realloc(l->s, l->cap);
        assert_non_null(l->s);
    }
    if (l->n)
        l->s[l->n++] = ' ';
    memcpy(l->s + l->n, tmp, (size_t)k + 1);
    l->n += (size_t)k;
}

static int log_value(void *ctx, pickle_role role, const pickle_value *v, nl_error *err)
{
    log_t *l = ctx;
    const char r = "RIKV"[role];
    size_t len;
    const char *s;
    switch (v->kind) {
    case PICKLE_NONE: log_add(l, "%cn", r); break;
    case PICKLE_BOOL: log_add(l, "%cb%d", r, (int)v->i); break;
    case PICKLE_INT:
        if (l->fail_at_int && v->i == l->fail_at_int)
            return nl_error_set(err, NL_ERR_FORMAT, "handler", v->offset, "the handler refused %d", l->fail_at_int);
        log_add(l, "%ci%" PRId64, r, v->i);
        break;
    case PICKLE_BIGINT: log_add(l, "%cB", r); break;
    case PICKLE_FLOAT: log_add(l, "%cf%g", r, v->f); break;
    case PICKLE_STR:
        s = strtab_str(l->st, v->str, &len);
        log_add(l, "%cs'%.*s'", r, (int)len, s);
        l->last_key_skip = role == PICKLE_KEY && len == 4 && !memcmp(s, "skip", 4);
        break;
    case PICKLE_BYTES:
        s = strtab_str(l->st, v->str, &len);
        log_add(l, "%cy%zu", r, len);
        break;
    case PICKLE_DICT: case PICKLE_LIST: case PICKLE_TUPLE: {
        const char *open = v->kind == PICKLE_DICT ? "{" : v->kind == PICKLE_LIST ? "[" : "(";
        if (v->ref) {
            log_add(l, "%c&%s%" PRIu64 "%s", r, open, v->tag, v->open ? "!" : "");
            break;
        }
        if (l->skip_dict_with_key && role == PICKLE_VALUE && l->last_key_skip) {
            log_add(l, "%c%s-skipped", r, open);
            return PICKLE_SKIP;
        }
        log_add(l, "%c%s", r, open);
        return PICKLE_VISIT;
    }
    }
    return 0;
}

static int log_end(void *ctx, int64_t offset, uint64_t *tag, nl_error *err)
{
    (void)offset, (void)err;
    log_t *l = ctx;
    *tag = ++l->next_tag;
    log_add(l, ".%" PRIu64, *tag);
    return 0;
}

static const pickle_handler log_handler = {.value = log_value, .end = log_end};

typedef struct rd {
    arena *a;
    strtab *st;
    log_t log;
    nl_error err;
    int rc;
} rd;

static void rd_close(rd *r)
{
    free(r->log.s);
    arena_free(r->a);
}

/* Read `data` in chunks of `chunk` bytes (0 = whole), each chunk malloc'd to its exact size so ASan sees any
 * read past it. */
static void rd_run(rd *r, const unsigned char *data, size_t len, size_t chunk, const pickle_options *opt)
{
    memset(r, 0, sizeof *r);
    r->a = arena_new(0);
    r->st = strtab_new(r->a);
    assert_non_null(r->st);
    r->log.st = r->st;
    memset(&r->err, 0x5a, sizeof r->err); /* poisoned: unset fields show */
    pickle_reader *p = pickle_reader_new(r->st, &log_handler, &r->log, opt, &r->err);
    assert_non_null(p);
    r->rc = 0;
    for (int pass = 1; pass <= 2 && r->rc == 0; pass++) {
        if (pass == 2) {
            free(r->log.s); /* only the second pass delivers; the first must have delivered nothing */
            r->log.s = NULL, r->log.n = r->log.cap = 0;
        }
        size_t step = chunk ? chunk : (len ? len : 1);
        for (size_t off = 0; off < len && r->rc == 0; off += step) {
            size_t k = len - off < step ? len - off : step;
            unsigned char *piece = malloc(k);
            assert_non_null(piece);
            memcpy(piece, data + off, k);
            r->rc = pickle_reader_feed(p, piece, k, &r->err);
            free(piece);
        }
        if (r->rc == 0) {
            int e = pickle_reader_end(p, &r->err);
            if (e < 0)
                r->rc = -1;
            else
                assert_int_equal(e, pass == 1 ? 1 : 0);
        }
        if (pass == 1 && r->rc == 0)
            assert_int_equal(r->log.n, 0);
    }
    pickle_reader_free(p);
}

static void expect_log(const pw *w, const char *want)
{
    rd r;
    rd_run(&r, w->b, w->n, 0, NULL);
    if (r.rc != 0)
        fail_msg("read failed: %s at %lld: %s", nl_error_code_name(r.err.code), (long long)r.err.offset, r.err.message);
    assert_string_equal(r.log.s ? r.log.s : "", want);
    rd_close(&r);
}

static void expect_err(const pw *w, nl_error_code code, int64_t offset, const char *words)
{
    rd r;
    rd_run(&r, w->b, w->n, 0, NULL);
    assert_int_equal(r.rc, -1);
    if (r.err.code != code || r.err.offset != offset || !strstr(r.err.message, words))
        fail_msg("want %s at %lld containing '%s', got %s at %lld: %s", nl_error_code_name(code), (long long)offset,
                 words, nl_error_code_name(r.err.code), (long long)r.err.offset, r.err.message);
    assert_int_equal(r.err.record, -1);
    rd_close(&r);
}

/* ---- every supported opcode --------------------------------------------------------------------------- */

static void pickle_scalar_opcodes_deliver_their_values(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w);
    pw_u8(&w, 0x95), pw_le(&w, 999, 8); /* FRAME: a hint only */
    pw_ops(&w, "]");                    /* EMPTY_LIST */
    pw_ops(&w, "(");                    /* MARK */
    pw_ops(&w, "K"), pw_u8(&w, 200);    /* BININT1 */
    pw_ops(&w, "M"), pw_le(&w, 65535, 2);
    pw_ops(&w, "J"), pw_le(&w, (uint64_t)-5, 4);
    pw_u8(&w, 0x8a), pw_u8(&w, 0);      /* LONG1 of no bytes = 0 */
    pw_u8(&w, 0x8a), pw_u8(&w, 2), pw_le(&w, 0xff7f, 2); /* -129 */
    pw_u8(&w, 0x8a), pw_u8(&w, 8), pw_le(&w, (uint64_t)INT64_MIN, 8);
    pw_u8(&w, 0x8a), pw_u8(&w, 9), pw_le(&w, 0, 8), pw_u8(&w, 0x01); /* 2^64: beyond int64 */
    pw_u8(&w, 0x8a), pw_u8(&w, 9), pw_le(&w, 5, 8), pw_u8(&w, 0x00); /* 5 with a redundant sign byte */
    pw_u8(&w, 0x8a), pw_u8(&w, 9), pw_le(&w, (uint64_t)1 << 63, 8), pw_u8(&w, 0x00); /* 2^63 */
    pw_u8(&w, 0x8b), pw_le(&w, 3, 4), pw_le(&w, 0xfffffe, 3); /* LONG4: -2 */
    pw_ops(&w, "G"), pw_raw(&w, "\x3f\xf8\x00\x00\x00\x00\x00\x00", 8); /* BINFLOAT 1.5 */
    pw_u8(&w, 0x8c), pw_u8(&w, 3), pw_raw(&w, "abc", 3);
    pw_ops(&w, "X"), pw_le(&w, 2, 4), pw_raw(&w, "\xc3\xa9", 2); /* é */
    pw_u8(&w, 0x8d), pw_le(&w, 1, 8), pw_raw(&w, "z", 1);
    pw_ops(&w, "C"), pw_u8(&w, 2), pw_raw(&w, "\x00\x01", 2);
    pw_ops(&w, "B"), pw_le(&w, 3, 4), pw_raw(&w, "xyz", 3);
    pw_u8(&w, 0x8e), pw_le(&w, 0, 8);
    pw_u8(&w, 0x96), pw_le(&w, 1, 8), pw_raw(&w, "q", 1); /* BYTEARRAY8 */
    pw_ops(&w, "N"), pw_u8(&w, 0x88), pw_u8(&w, 0x89);
    pw_ops(&w, "e.");                   /* APPENDS, STOP */
    expect_log(&w, "R[ Ii200 Ii65535 Ii-5 Ii0 Ii-129 Ii-9223372036854775808 IB Ii5 IB Ii-2 If1.5 Is'abc' "
                   "Is'\xc3\xa9' Is'z' Iy2 Iy3 Iy0 Iy1 In Ib1 Ib0 .1");
    free(w.b);
}

static void pickle_container_opcodes_nest_as_written(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w);
    pw_ops(&w, "}");                       /* {'a': [1], 'b': (), 'c': (1,), 'd': (1, 2), 'e': (1, 2, 3), 'f': (1,2,3,4)} */
    pw_ops(&w, "(");
    pw_str(&w, "a"), pw_ops(&w, "]"), pw_int(&w, 1), pw_ops(&w, "a");
    pw_str(&w, "b"), pw_ops(&w, ")");
    pw_str(&w, "c"), pw_int(&w, 1), pw_u8(&w, 0x85);
    pw_str(&w, "d"), pw_int(&w, 1), pw_int(&w, 2), pw_u8(&w, 0x86);
    pw_str(&w, "e"), pw_int(&w, 1), pw_int(&w, 2), pw_int(&w, 3), pw_u8(&w, 0x87);
    pw_str(&w, "f"), pw_ops(&w, "("), pw_int(&w, 1), pw_int(&w, 2), pw_int(&w, 3), pw_int(&w, 4), pw_ops(&w, "t");
    pw_ops(&w, "u");
    pw_str(&w, "g"), pw_ops(&w, "}"), pw_str(&w, "h"), pw_ops(&w, "N"), pw_ops(&w, "s"), pw_ops(&w, "s"); /* SETITEM */
    pw_ops(&w, ".");
    expect_log(&w, "R{ Ks'a' V[ Ii1 .1 Ks'b' V( .2 Ks'c' V( Ii1 .3 Ks'd' V( Ii1 Ii2 .4 Ks'e' V( Ii1 Ii2 Ii3 .5 "
                   "Ks'f' V( Ii1 Ii2 Ii3 Ii4 .6 Ks'g' V{ Ks'h' Vn .7 .8");
    free(w.b);
}

/* [[], [1]] and [[1]] (and the dict forms) share their first opcodes; each must nest as written. */
static void pickle_ambiguous_shapes_nest_correctly(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w);
    pw_ops(&w, "](]]"), pw_int(&w, 1), pw_ops(&w, "ae.");
    expect_log(&w, "R[ I[ .1 I[ Ii1 .2 .3");
    w.n = 0;
    pw_proto(&w);
    pw_ops(&w, "]]"), pw_int(&w, 1), pw_ops(&w, "aa.");
    expect_log(&w, "R[ I[ Ii1 .1 .2");
    w.n = 0; /* {'a': {}, 'b': [1]} */
    pw_proto(&w);
    pw_ops(&w, "}("), pw_str(&w, "a"), pw_ops(&w, "}"), pw_str(&w, "b"), pw_ops(&w, "]"), pw_int(&w, 1);
    pw_ops(&w, "au.");
    expect_log(&w, "R{ Ks'a' V{ .1 Ks'b' V[ Ii1 .2 .3");
    w.n = 0; /* {'a': {'b': [1]}} */
    pw_proto(&w);
    pw_ops(&w, "}"), pw_str(&w, "a"), pw_ops(&w, "}"), pw_str(&w, "b"), pw_ops(&w, "]"), pw_int(&w, 1);
    pw_ops(&w, "ass.");
    expect_log(&w, "R{ Ks'a' V{ Ks'b' V[ Ii1 .1 .2 .3");
    free(w.b);
}

static void pickle_memo_reads_deliver_references_with_tags(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w); /* [d, d, s, s, t, t] with d = {'k': 1} memoized (MEMOIZE), s a string (BINPUT), t a tuple (PUT) */
    pw_ops(&w, "]"), pw_u8(&w, 0x94), pw_ops(&w, "(");
    pw_ops(&w, "}"), pw_u8(&w, 0x94), pw_str(&w, "k"), pw_u8(&w, 0x94), pw_int(&w, 1), pw_ops(&w, "s");
    pw_ops(&w, "h"), pw_u8(&w, 1);                                     /* BINGET 1: the dict */
    pw_str(&w, "str"), pw_ops(&w, "q"), pw_u8(&w, 3);                  /* BINPUT 3 */
    pw_ops(&w, "j"), pw_le(&w, 3, 4);                                  /* LONG_BINGET 3 */
    pw_int(&w, 7), pw_str(&w, "x"), pw_u8(&w, 0x86), pw_ops(&w, "p4\n"); /* PUT 4 */
    pw_ops(&w, "g4\n");                                                /* GET 4 */
    pw_ops(&w, "h"), pw_u8(&w, 2);                                     /* the key string, read back */
    pw_ops(&w, "r"), pw_le(&w, 5, 4);                                  /* LONG_BINPUT 5 */
    pw_ops(&w, "h"), pw_u8(&w, 0);                                     /* the outer list: still open */
    pw_ops(&w, "e.");
    expect_log(&w, "R[ I{ Ks'k' Vi1 .1 I&{1 Is'str' Is'str' I( Ii7 Is'x' .2 I( Ii7 Is'x' .3 Is'k' I&[0! .4");
    free(w.b);
}

static void pickle_skipped_container_delivers_nothing_more(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w); /* {'skip': {'a': [1, 2]}, 'keep': 3, 'again': <the skipped dict>} */
    pw_ops(&w, "}("), pw_str(&w, "skip"), pw_ops(&w, "}"), pw_u8(&w, 0x94), pw_str(&w, "a");
    pw_ops(&w, "]("), pw_int(&w, 1), pw_int(&w, 2), pw_ops(&w, "es");
    pw_str(&w, "keep"), pw_int(&w, 3), pw_str(&w, "again"), pw_ops(&w, "h"), pw_u8(&w, 0), pw_ops(&w, "u.");
    rd r;
    memset(&r, 0, sizeof r);
    r.a = arena_new(0);
    r.st = strtab_new(r.a);
    r.log.st = r.st;
    r.log.skip_dict_with_key = 1;
    nl_error err;
    assert_int_equal(pickle_read_mem(w.b, w.n, r.st, &log_handler, &r.log, NULL, NULL, &err), 0);
    assert_string_equal(r.log.s, "R{ Ks'skip' V{-skipped Ks'keep' Vi3 Ks'again' V&{0 .1");
    rd_close(&r);
    free(w.b);
}

/* ---- refusals and errors ------------------------------------------------------------------------------ */

static void pickle_refused_opcodes_name_the_opcode_and_offset(void **state)
{
    (void)state;
    static const struct {
        unsigned char op;
        const char *name;
    } refused[] = {
        {'c', "GLOBAL"}, {0x93, "STACK_GLOBAL"}, {'R', "REDUCE"}, {'b', "BUILD"}, {'i', "INST"}, {'o', "OBJ"},
        {0x81, "NEWOBJ"}, {0x92, "NEWOBJ_EX"}, {0x82, "EXT1"}, {0x83, "EXT2"}, {0x84, "EXT4"}, {'P', "PERSID"},
        {'Q', "BINPERSID"}, {0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        pw w = {0};
        pw_proto(&w);
        pw_ops(&w, "]("), pw_int(&w, 1);
        size_t at = w.n;
        pw_u8(&w, refused[i].op);
        pw_ops(&w, "builtins\neval\n"); /* whatever argument would follow is never looked at */
        char want[64];
        snprintf(want, sizeof want, "opcode %s (0x%02x) at byte %zu would import or call", refused[i].name,
                 refused[i].op, at);
        expect_err(&w, NL_ERR_UNSUPPORTED, (int64_t)at, want);
        assert_string_equal(pickle_opcode_name(refused[i].op), refused[i].name);
        free(w.b);
    }
}

static void pickle_unsupported_and_unknown_opcodes_are_errors(void **state)
{
    (void)state;
    static const char *unsupported = "012FILSTUVdl\x8f\x90\x91";
    for (const char *p = unsupported; *p; p++) {
        pw w = {0};
        pw_proto(&w);
        pw_u8(&w, (unsigned char)*p);
        char want[64];
        snprintf(want, sizeof want, "opcode %s (0x%02x) at byte 2 is not supported",
                 pickle_opcode_name((uint8_t)*p), (unsigned char)*p);
        expect_err(&w, NL_ERR_UNSUPPORTED, 2, want);
        free(w.b);
    }
    pw w = {0};
    pw_proto(&w);
    pw_u8(&w, 0xff);
    expect_err(&w, NL_ERR_FORMAT, 2, "byte 0xff at 2 is not a pickle opcode");
    assert_null(pickle_opcode_name(0xff));
    w.n = 0;
    pw_u8(&w, 0x80), pw_u8(&w, 6), pw_ops(&w, "N.");
    expect_err(&w, NL_ERR_UNSUPPORTED, 0, "protocol 6");
    free(w.b);
}

static void pickle_ten_gigabyte_length_is_refused_before_allocating(void **state)
{
    (void)state;
    const unsigned char ops[] = {0x8d, 0x8e, 0x96}; /* BINUNICODE8, BINBYTES8, BYTEARRAY8 */
    for (size_t i = 0; i < sizeof ops; i++) {
        pw w = {0};
        pw_proto(&w);
        pw_u8(&w, ops[i]), pw_le(&w, 10000000000ull, 8), pw_raw(&w, "abc", 3);
        expect_err(&w, NL_ERR_LIMIT, 2, "a length of 10000000000 bytes is over");
        free(w.b);
    }
    pw w = {0};
    pw_proto(&w);
    pw_ops(&w, "X"), pw_le(&w, 0xffffffffu, 4); /* 4 GB str: over the 64 MB cap, header alone suffices */
    expect_err(&w, NL_ERR_LIMIT, 2, "a length of 4294967295 bytes is over");
    w.n = 0;
    pw_proto(&w);
    pw_u8(&w, 0x8b), pw_le(&w, 1u << 20, 4); /* LONG4 of 1 MB */
    expect_err(&w, NL_ERR_LIMIT, 2, "an integer of 1048576 bytes");
    w.n = 0;
    pw_proto(&w);
    pw_u8(&w, 0x8b), pw_le(&w, 0x80000000u, 4);
    expect_err(&w, NL_ERR_FORMAT, 2, "negative length");
    free(w.b);
}

static void pickle_deep_nesting_stops_at_the_depth_cap(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w);
    for (int i = 0; i < 1000; i++)
        pw_ops(&w, "]");
    for (int i = 0; i < 999; i++)
        pw_ops(&w, "a");
    pw_ops(&w, ".");
    /* the 65th list (offset 2 + 64) would be the 65th open container */
    expect_err(&w, NL_ERR_LIMIT, 2 + PICKLE_DEPTH_MAX, "nested more than 64 deep");
    w.n = 0; /* exactly the cap is fine */
    pw_proto(&w);
    for (unsigned i = 0; i < PICKLE_DEPTH_MAX; i++)
        pw_ops(&w, "]");
    for (unsigned i = 0; i + 1 < PICKLE_DEPTH_MAX; i++)
        pw_ops(&w, "a");
    pw_ops(&w, ".");
    rd r;
    rd_run(&r, w.b, w.n, 0, NULL);
    assert_int_equal(r.rc, 0);
    rd_close(&r);
    pickle_options opt = {.depth_max = 3};
    rd_run(&r, w.b, w.n, 0, &opt);
    assert_int_equal(r.rc, -1);
    assert_int_equal(r.err.code, NL_ERR_LIMIT);
    assert_int_equal(r.err.offset, 5);
    rd_close(&r);
    free(w.b);
}

static void pickle_stack_and_memo_misuse_are_errors(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w), pw_ops(&w, "h"), pw_u8(&w, 0), pw_ops(&w, ".");
    expect_err(&w, NL_ERR_FORMAT, 2, "memo index 0 was never set");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "N"), pw_ops(&w, "q"), pw_u8(&w, 5), pw_ops(&w, ".");
    expect_err(&w, NL_ERR_UNSUPPORTED, 3, "memo index 5 is out of sequence");
    w.n = 0;
    pw_proto(&w), pw_u8(&w, 0x94);
    expect_err(&w, NL_ERR_FORMAT, 2, "no value on the stack to memoize");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "NN.");
    expect_err(&w, NL_ERR_FORMAT, 4, "STOP at byte 4 with 2 values");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, ".");
    expect_err(&w, NL_ERR_FORMAT, 2, "with 0 values");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "NNa");
    expect_err(&w, NL_ERR_FORMAT, 4, "needs a list built on the stack below its items");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "]"), pw_u8(&w, 0x94), pw_ops(&w, "h"), pw_u8(&w, 0), pw_ops(&w, "Na");
    expect_err(&w, NL_ERR_UNSUPPORTED, 7, "found a value read back from the memo");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "}(NNNu");
    expect_err(&w, NL_ERR_FORMAT, 7, "an odd number of items (3)");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "}]Ns");
    expect_err(&w, NL_ERR_FORMAT, 3, "a dict key at byte 3 is a list (unhashable)");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "]"), pw_u8(&w, 0x85);
    expect_err(&w, NL_ERR_UNSUPPORTED, 3, "a tuple holding a new dict or list (made at byte 2)");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "N"), pw_u8(&w, 0x85), pw_u8(&w, 0x85), pw_ops(&w, ".");
    expect_err(&w, NL_ERR_UNSUPPORTED, 4, "a tuple inside a tuple");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "(");
    for (int i = 0; i < 300; i++)
        pw_ops(&w, "N");
    pw_ops(&w, "t.");
    expect_err(&w, NL_ERR_LIMIT, 303, "a tuple of 300 items");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "Ne");
    expect_err(&w, NL_ERR_FORMAT, 3, "needs a MARK");
    w.n = 0;
    pw_proto(&w), pw_u8(&w, 0x8c), pw_u8(&w, 2), pw_raw(&w, "\xc3\x28", 2), pw_ops(&w, ".");
    expect_err(&w, NL_ERR_FORMAT, 2, "not valid UTF-8");
    w.n = 0; /* a lone surrogate, as Python writes it with surrogatepass, is accepted */
    pw_proto(&w), pw_u8(&w, 0x8c), pw_u8(&w, 3), pw_raw(&w, "\xed\xa0\x80", 3), pw_ops(&w, ".");
    expect_log(&w, "Rs'\xed\xa0\x80'");
    w.n = 0;
    pw_proto(&w), pw_ops(&w, "p1x\n");
    expect_err(&w, NL_ERR_FORMAT, 2, "is not a decimal number");
    free(w.b);
}

static void pickle_trailing_bytes_after_stop_are_ignored(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w), pw_int(&w, 42), pw_ops(&w, "."), pw_ops(&w, "\xff garbage");
    expect_log(&w, "Ri42");
    free(w.b);
}

static void pickle_handler_error_passes_through(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w), pw_ops(&w, "]("), pw_int(&w, 1), pw_int(&w, 99), pw_ops(&w, "e.");
    arena *a = arena_new(0);
    strtab *st = strtab_new(a);
    log_t l = {.st = st, .fail_at_int = 99};
    nl_error err;
    assert_int_equal(pickle_read_mem(w.b, w.n, st, &log_handler, &l, NULL, NULL, &err), -1);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_string_equal(err.source, "handler");
    assert_int_equal(err.offset, 6);
    assert_string_equal(err.message, "the handler refused 99");
    free(l.s);
    arena_free(a);
    free(w.b);
}

/* ---- streaming ---------------------------------------------------------------------------------------- */

/* A pickle laid out like a memory snapshot: frames shared through the memo, a tuple, a float, a bool, a
 * batch of blocks, an empty trace list beside a filled one. */
static void snapshot_like(pw *w)
{
    pw_proto(w);
    pw_u8(w, 0x95), pw_le(w, 0, 8);
    pw_ops(w, "}"), pw_u8(w, 0x94), pw_ops(w, "(");
    pw_str(w, "segments"), pw_u8(w, 0x94), pw_ops(w, "]"), pw_u8(w, 0x94);
    pw_ops(w, "}"), pw_u8(w, 0x94), pw_ops(w, "(");
    pw_str(w, "address"), pw_u8(w, 0x94), pw_int(w, 140037408686080);
    pw_str(w, "segment_pool_id"), pw_u8(w, 0x94), pw_int(w, 0), pw_int(w, 0), pw_u8(w, 0x86), pw_u8(w, 0x94);
    pw_str(w, "is_expandable"), pw_u8(w, 0x94), pw_u8(w, 0x89);
    pw_str(w, "blocks"), pw_u8(w, 0x94), pw_ops(w, "]"), pw_u8(w, 0x94), pw_ops(w, "(");
    for (int b = 0; b < 3; b++) {
        pw_ops(w, "}"), pw_u8(w, 0x94), pw_ops(w, "(");
        pw_ops(w, "h"), pw_u8(w, 4), pw_int(w, 140037408686080 + b * 512); /* "address" read back */
        pw_str(w, "frames"), pw_u8(w, 0x94);
        if (b == 0) {
            pw_ops(w, "]"), pw_u8(w, 0x94), pw_ops(w, "}"), pw_u8(w, 0x94), pw_ops(w, "(");
            pw_str(w, "name"), pw_u8(w, 0x94), pw_str(w, "forward"), pw_u8(w, 0x94);
            pw_str(w, "line"), pw_u8(w, 0x94), pw_int(w, 54), pw_ops(w, "u"), pw_ops(w, "a");
        } else {
            pw_ops(w, "j"), pw_le(w, 12, 4); /* the stack list */
        }
        pw_ops(w, "u");
    }
    pw_ops(w, "eua");
    pw_str(w, "device_traces"), pw_u8(w, 0x94), pw_ops(w, "]"), pw_u8(w, 0x94), pw_ops(w, "(");
    pw_ops(w, "]"), pw_u8(w, 0x94), pw_ops(w, "]"), pw_u8(w, 0x94), pw_ops(w, "}"), pw_u8(w, 0x94);
    pw_str(w, "time"), pw_ops(w, "G"), pw_raw(w, "\x3f\xf8\x00\x00\x00\x00\x00\x00", 8), pw_ops(w, "s");
    pw_ops(w, "ae");
    pw_ops(w, "u.");
}

static const char snapshot_like_log[] =
    "R{ Ks'segments' V[ I{ Ks'address' Vi140037408686080 Ks'segment_pool_id' V( Ii0 Ii0 .1 "
    "Ks'is_expandable' Vb0 Ks'blocks' V[ I{ Ks'address' Vi140037408686080 Ks'frames' V[ I{ Ks'name' "
    "Vs'forward' Ks'line' Vi54 .2 .3 .4 I{ Ks'address' Vi140037408686592 Ks'frames' V&[3 .5 I{ "
    "Ks'address' Vi140037408687104 Ks'frames' V&[3 .6 .7 .8 .9 Ks'device_traces' V[ I[ .10 I[ I{ "
    "Ks'time' Vf1.5 .11 .12 .13 .14";

static void pickle_snapshot_shape_reads_in_any_chunking(void **state)
{
    (void)state;
    pw w = {0};
    snapshot_like(&w);
    for (size_t chunk = 0; chunk <= 13; chunk++) {
        rd r;
        rd_run(&r, w.b, w.n, chunk, NULL);
        if (r.rc != 0)
            fail_msg("chunk %zu: %s at %lld: %s", chunk, nl_error_code_name(r.err.code), (long long)r.err.offset,
                     r.err.message);
        assert_string_equal(r.log.s, snapshot_like_log);
        rd_close(&r);
    }
    /* two pieces split at every position */
    for (size_t cut = 1; cut < w.n; cut++) {
        arena *a = arena_new(0);
        strtab *st = strtab_new(a);
        log_t l = {.st = st};
        nl_error err;
        pickle_reader *p = pickle_reader_new(st, &log_handler, &l, NULL, &err);
        for (int pass = 1; pass <= 2; pass++) {
            assert_int_equal(pickle_reader_feed(p, w.b, cut, &err), 0);
            assert_int_equal(pickle_reader_feed(p, w.b + cut, w.n - cut, &err), 0);
            assert_int_equal(pickle_reader_end(p, &err), pass == 1 ? 1 : 0);
        }
        assert_string_equal(l.s, snapshot_like_log);
        pickle_reader_free(p);
        free(l.s);
        arena_free(a);
    }
    free(w.b);
}

static void pickle_every_prefix_is_truncated(void **state)
{
    (void)state;
    pw w = {0};
    snapshot_like(&w);
    size_t stop = w.n - 1; /* the STOP byte */
    for (size_t len = 0; len <= stop; len++) {
        for (size_t chunk = 0; chunk <= 1; chunk++) {
            rd r;
            rd_run(&r, w.b, len, chunk ? 1 : 0, NULL);
            assert_int_equal(r.rc, -1);
            if (r.err.code != NL_ERR_TRUNCATED)
                fail_msg("prefix %zu: %s at %lld: %s", len, nl_error_code_name(r.err.code), (long long)r.err.offset,
                         r.err.message);
            assert_true(r.err.offset >= 0 && (size_t)r.err.offset <= len);
            assert_true(strstr(r.err.message, "the input ended") != NULL);
            rd_close(&r);
        }
    }
    free(w.b);
}

static void pickle_one_byte_corruptions_never_crash(void **state)
{
    (void)state;
    pw w = {0};
    snapshot_like(&w);
    static const unsigned char subst[] = {0x00, 0xff, '(', '.', ']', '}', 'a', 'e', 's', 'u', 'h', 0x94, 0x86, 0x8c};
    size_t ok = 0, failed = 0;
    for (size_t i = 0; i < w.n; i++) {
        for (size_t k = 0; k < sizeof subst; k++) {
            unsigned char *c = malloc(w.n);
            memcpy(c, w.b, w.n);
            c[i] = subst[k];
            rd r;
            rd_run(&r, c, w.n, 0, NULL);
            if (r.rc == 0) {
                ok++;
            } else {
                failed++;
                assert_true(r.err.code != NL_OK && r.err.code != NL_ERR_INTERNAL);
                assert_true(r.err.offset >= 0 && (size_t)r.err.offset <= w.n);
            }
            rd_close(&r);
            free(c);
        }
    }
    assert_true(failed > ok); /* most corruptions break the structure; none crashes */
    free(w.b);
}

static void pickle_input_changed_between_passes_is_io_error(void **state)
{
    (void)state;
    pw a = {0}, b = {0};
    pw_proto(&a), pw_ops(&a, "]("), pw_int(&a, 1), pw_int(&a, 2), pw_ops(&a, "e.");
    pw_proto(&b), pw_ops(&b, "]("), pw_int(&b, 1), pw_ops(&b, "]"), pw_ops(&b, "e.");
    arena *ar = arena_new(0);
    strtab *st = strtab_new(ar);
    log_t l = {.st = st};
    nl_error err;
    pickle_reader *p = pickle_reader_new(st, &log_handler, &l, NULL, &err);
    assert_int_equal(pickle_reader_feed(p, a.b, a.n, &err), 0);
    assert_int_equal(pickle_reader_end(p, &err), 1);
    assert_int_equal(pickle_reader_feed(p, b.b, b.n, &err), -1);
    assert_int_equal(err.code, NL_ERR_IO);
    assert_true(strstr(err.message, "changed between the two passes") != NULL);
    assert_int_equal(pickle_reader_feed(p, b.b, b.n, &err), -1); /* dead afterwards */
    assert_int_equal(err.code, NL_ERR_INTERNAL);
    pickle_reader_free(p);
    free(l.s);
    arena_free(ar);
    free(a.b);
    free(b.b);
}

static void pickle_cancel_flag_stops_the_read(void **state)
{
    (void)state;
    pw w = {0};
    pw_proto(&w), pw_ops(&w, "]");
    for (int i = 0; i < 100; i++) {
        pw_ops(&w, "(");
        for (int k = 0; k < 1000; k++)
            pw_int(&w, k);
        pw_ops(&w, "e");
    }
    pw_ops(&w, ".");
    atomic_int cancel = 1;
    pickle_options opt = {.cancel = &cancel, .source = "cancel.pickle"};
    rd r;
    rd_run(&r, w.b, w.n, 0, &opt);
    assert_int_equal(r.rc, -1);
    assert_int_equal(r.err.code, NL_ERR_CANCELLED);
    assert_string_equal(r.err.source, "cancel.pickle");
    rd_close(&r);
    free(w.b);
}

static void pickle_stats_count_the_memo_kept(void **state)
{
    (void)state;
    pw w = {0};
    snapshot_like(&w);
    arena *a = arena_new(0);
    strtab *st = strtab_new(a);
    log_t l = {.st = st};
    nl_error err;
    pickle_stats s;
    assert_int_equal(pickle_read_mem(w.b, w.n, st, &log_handler, &l, NULL, &s, &err), 0);
    assert_int_equal(s.protocol, 4);
    assert_int_equal(s.bytes, w.n);
    assert_int_equal(s.containers, 13);
    assert_int_equal(s.gets, 5);
    assert_int_equal(s.memo_kept, 2); /* "address" and the stack list, of 26 memo entries */
    assert_int_equal(s.memo_entries, 26);
    free(l.s);
    arena_free(a);
    free(w.b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pickle_scalar_opcodes_deliver_their_values),
        cmocka_unit_test(pickle_container_opcodes_nest_as_written),
        cmocka_unit_test(pickle_ambiguous_shapes_nest_correctly),
        cmocka_unit_test(pickle_memo_reads_deliver_references_with_tags),
        cmocka_unit_test(pickle_skipped_container_delivers_nothing_more),
        cmocka_unit_test(pickle_refused_opcodes_name_the_opcode_and_offset),
        cmocka_unit_test(pickle_unsupported_and_unknown_opcodes_are_errors),
        cmocka_unit_test(pickle_ten_gigabyte_length_is_refused_before_allocating),
        cmocka_unit_test(pickle_deep_nesting_stops_at_the_depth_cap),
        cmocka_unit_test(pickle_stack_and_memo_misuse_are_errors),
        cmocka_unit_test(pickle_trailing_bytes_after_stop_are_ignored),
        cmocka_unit_test(pickle_handler_error_passes_through),
        cmocka_unit_test(pickle_snapshot_shape_reads_in_any_chunking),
        cmocka_unit_test(pickle_every_prefix_is_truncated),
        cmocka_unit_test(pickle_one_byte_corruptions_never_crash),
        cmocka_unit_test(pickle_input_changed_between_passes_is_io_error),
        cmocka_unit_test(pickle_cancel_flag_stops_the_read),
        cmocka_unit_test(pickle_stats_count_the_memo_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
