/* pickle_json — test driver: read a pickle with analyzers/readers/pickle.c and print the object it holds as
 * JSON, in the encoding tests/unit/test_pickle_python.py gives Python's own pickle.load result, so the two
 * can be compared value by value:
 *   dict → {"$dict": [[key, value], ...]} in delivery order; list and tuple → [...]; str → a JSON string
 *   (non-ASCII as \u escapes, lone surrogates included); bytes → {"$bytes": "<hex>"}; int → the number;
 *   an int outside int64 → {"$bigint": true}; float → %.17g (NaN / Infinity / -Infinity); bool, None.
 * A memo reference to a dict or list is expanded to that container's text (kept per tag), so shared
 * objects print in full as Python shows them. Every container is visited (never skipped).
 *
 * Usage: pickle_json [--read-size N] [--feed N] [--stats] FILE
 *   --read-size N  bytes per read (both passes)
 *   --feed N       read the whole file, then push it in N-byte pieces through pickle_reader_feed
 *   --stats        print the reader's pickle_stats to stderr
 * Exit: 0 ok, 1 read error (code name, offset and message on stderr), 2 usage. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "pickle.h"
#include "strtab.h"

typedef struct pj_buf {
    char *p;
    size_t n, cap;
} pj_buf;

static void pj_put(pj_buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n + 1)
            nc *= 2;
        char *p = realloc(b->p, nc);
        if (!p) {
            fputs("pickle_json: out of memory\n", stderr);
            exit(1);
        }
        b->p = p;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void pj_puts(pj_buf *b, const char *s)
{
    pj_put(b, s, strlen(s));
}

/* One open container: where its text starts in the output and how many items it has. */
typedef struct pj_level {
    size_t start;
    uint64_t items;
    pickle_kind kind;
    pickle_role role; /* its own role in its parent */
} pj_level;

typedef struct pj_ctx {
    const strtab *st;
    pj_buf out;
    pj_level stack[PICKLE_DEPTH_MAX + 2];
    int depth;
    char **texts; /* by tag - 1 */
    size_t ntexts, cap;
} pj_ctx;

static void pj_str(pj_buf *b, const unsigned char *s, size_t n)
{
    char tmp[16];
    pj_puts(b, "\"");
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        uint32_t cp;
        size_t k;
        if (c < 0x80) {
            cp = c, k = 1;
        } else if (c < 0xe0) {
            cp = c & 0x1f, k = 2;
        } else if (c < 0xf0) {
            cp = c & 0x0f, k = 3;
        } else {
            cp = c & 0x07, k = 4;
        }
        for (size_t j = 1; j < k; j++)
            cp = cp << 6 | (s[i + j] & 0x3f);
        i += k;
        if (cp == '"' || cp == '\\') {
            tmp[0] = '\\', tmp[1] = (char)cp;
            pj_put(b, tmp, 2);
        } else if (cp >= 0x20 && cp < 0x7f) {
            tmp[0] = (char)cp;
            pj_put(b, tmp, 1);
        } else if (cp < 0x10000) {
            snprintf(tmp, sizeof tmp, "\\u%04x", cp);
            pj_puts(b, tmp);
        } else {
            cp -= 0x10000;
            snprintf(tmp, sizeof tmp, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
            pj_puts(b, tmp);
        }
    }
    pj_puts(b, "\"");
}

static void pj_sep(pj_ctx *c, pickle_role role)
{
    if (c->depth == 0)
        return;
    pj_level *l = &c->stack[c->depth - 1];
    if (l->kind == PICKLE_DICT) {
        if (role == PICKLE_KEY)
            pj_puts(&c->out, l->items ? ", [" : "[");
        else
            pj_puts(&c->out, ", ");
    } else if (l->items) {
        pj_puts(&c->out, ", ");
    }
}

static void pj_after(pj_ctx *c, pickle_role role)
{
    if (c->depth == 0)
        return;
    pj_level *l = &c->stack[c->depth - 1];
    if (l->kind == PICKLE_DICT && role == PICKLE_VALUE)
        pj_puts(&c->out, "]");
    if (l->kind != PICKLE_DICT || role == PICKLE_VALUE)
        l->items++;
}

static int pj_value(void *ctx, pickle_role role, const pickle_value *v, nl_error *err)
{
    (void)err;
    pj_ctx *c = ctx;
    char tmp[64];
    size_t len;
    const char *s;
    pj_sep(c, role);
    switch (v->kind) {
    case PICKLE_NONE: pj_puts(&c->out, "null"); break;
    case PICKLE_BOOL: pj_puts(&c->out, v->i ? "true" : "false"); break;
    case PICKLE_INT: snprintf(tmp, sizeof tmp, "%" PRId64, v->i); pj_puts(&c->out, tmp); break;
    case PICKLE_BIGINT: pj_puts(&c->out, "{\"$bigint\": true}"); break;
    case PICKLE_FLOAT:
        if (isnan(v->f))
            pj_puts(&c->out, "NaN");
        else if (isinf(v->f))
            pj_puts(&c->out, v->f > 0 ? "Infinity" : "-Infinity");
        else {
            snprintf(tmp, sizeof tmp, "%.17g", v->f);
            if (!strpbrk(tmp, ".e"))
                strcat(tmp, ".0"); /* stays a float in JSON: -0.0, 1e308 as 1.0000000000000001e+308 */
            pj_puts(&c->out, tmp);
        }
        break;
    case PICKLE_STR:
        s = strtab_str(c->st, v->str, &len);
        pj_str(&c->out, (const unsigned char *)s, len);
        break;
    case PICKLE_BYTES:
        s = strtab_str(c->st, v->str, &len);
        pj_puts(&c->out, "{\"$bytes\": \"");
        for (size_t i = 0; i < len; i++) {
            snprintf(tmp, sizeof tmp, "%02x", (unsigned char)s[i]);
            pj_puts(&c->out, tmp);
        }
        pj_puts(&c->out, "\"}");
        break;
    case PICKLE_DICT: case PICKLE_LIST: case PICKLE_TUPLE:
        if (v->ref) {
            if (v->open || v->tag == 0 || v->tag > c->ntexts) {
                fprintf(stderr, "pickle_json: a reference at byte %lld to a container without text\n",
                        (long long)v->offset);
                exit(1);
            }
            pj_puts(&c->out, c->texts[v->tag - 1]);
            break;
        }
        c->stack[c->depth++] = (pj_level){.start = c->out.n, .items = 0, .kind = v->kind, .role = role};
        pj_puts(&c->out, v->kind == PICKLE_DICT ? "{\"$dict\": [" : "[");
        return PICKLE_VISIT;
    }
    pj_after(c, role);
    return 0;
}

static int pj_end(void *ctx, int64_t offset, uint64_t *tag, nl_error *err)
{
    (void)offset, (void)err;
    pj_ctx *c = ctx;
    pj_level l = c->stack[--c->depth];
    pj_puts(&c->out, l.kind == PICKLE_DICT ? "]}" : "]");
    if (l.kind != PICKLE_TUPLE) {
        if (c->ntexts == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 64;
            c->texts = realloc(c->texts, c->cap * sizeof *c->texts);
            if (!c->texts)
                exit(1);
        }
        c->texts[c->ntexts] = strdup(c->out.p + l.start);
        *tag = ++c->ntexts;
    }
    pj_after(c, l.role);
    return 0;
}

static unsigned char *pj_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            data = realloc(data, cap);
            if (!data)
                exit(1);
        }
        size_t got = fread(data + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    *len = n;
    return data;
}

int main(int argc, char **argv)
{
    size_t read_size = 0, feed = 0;
    int stats = 0, a = 1;
    for (; a < argc - 1; a++) {
        if (!strcmp(argv[a], "--read-size") && a + 1 < argc - 1)
            read_size = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--feed") && a + 1 < argc - 1)
            feed = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--stats"))
            stats = 1;
        else
            break;
    }
    if (a != argc - 1) {
        fputs("usage: pickle_json [--read-size N] [--feed N] [--stats] FILE\n", stderr);
        return 2;
    }
    arena *ar = arena_new(0);
    strtab *st = ar ? strtab_new(ar) : NULL;
    if (!st)
        return 1;
    pj_ctx c = {.st = st};
    pickle_handler h = {.value = pj_value, .end = pj_end};
    pickle_options opt = {.source = argv[a], .read_size = read_size};
    pickle_stats ps;
    nl_error err;
    nl_error_clear(&err);
    int rc;
    if (feed) {
        size_t len;
        unsigned char *data = pj_slurp(argv[a], &len);
        if (!data)
            return 1;
        pickle_reader *r = pickle_reader_new(st, &h, &c, &opt, &err);
        rc = r ? 0 : -1;
        for (int pass = 1; rc == 0 && pass <= 2; pass++) {
            for (size_t off = 0; rc == 0 && off < len; off += feed)
                rc = pickle_reader_feed(r, data + off, len - off < feed ? len - off : feed, &err);
            if (rc == 0) {
                int e = pickle_reader_end(r, &err);
                rc = e < 0 ? -1 : 0;
            }
        }
        if (r)
            pickle_reader_stats(r, &ps);
        pickle_reader_free(r);
        free(data);
    } else {
        rc = pickle_read_file(argv[a], st, &h, &c, &opt, &ps, &err);
    }
    if (rc != 0)
        fprintf(stderr, "error %s at %lld: %s\n", nl_error_code_name(err.code), (long long)err.offset, err.message);
    if (rc == 0 && stats)
        fprintf(stderr, "protocol %d bytes %" PRIu64 " ops %" PRIu64 " containers %" PRIu64 " memo %" PRIu64
                " kept %" PRIu64 " gets %" PRIu64 " stack_peak %zu state_bytes %zu\n", ps.protocol, ps.bytes,
                ps.ops, ps.containers, ps.memo_entries, ps.memo_kept, ps.gets, ps.stack_peak, ps.state_bytes);
    if (rc == 0) {
        fwrite(c.out.p ? c.out.p : "", 1, c.out.n, stdout);
        fputc('\n', stdout);
    }
    for (size_t i = 0; i < c.ntexts; i++)
        free(c.texts[i]);
    free(c.texts);
    free(c.out.p);
    arena_free(ar);
    return rc == 0 ? 0 : 1;
}
