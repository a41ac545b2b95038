/* nl-parquet-bench — the Parquet side of bench/parquet_bench.sh (a benchmark driver, not a test).
 *
 *   nl-parquet-bench groupby Instruction.parquet   the columns kernel-attribution reads (engine, opcode,
 *                                                  duration_ns, evt_wait_time_ns, start_ts, layer,
 *                                                  nki_source_location), grouped by engine + opcode
 *   nl-parquet-bench load PROFILE_DIR              explorer_parquet_read into a device model
 *   nl-parquet-bench decode FILE [COLUMN...]       decode the named columns (all without names), one row
 *                                                  group at a time, and nothing else: the reader's own cost
 *
 * groupby prints one tab-separated line per group, sorted: engine, opcode, count, Σ duration_ns,
 * Σ evt_wait_time_ns, min start_ts, max start_ts, rows with a source, rows with a layer — the columns of the
 * equivalent DuckDB GROUP BY in bench/parquet_duckdb.mjs, so the script can check both agree. Reading goes
 * through parquet_scan (column projection, one row group at a time); strings of dictionary-encoded chunks
 * are grouped per dictionary entry. Both commands print elapsed seconds (and the model's size) to stderr.
 * Exit: 0, 1 on a reader error, 2 usage. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explorer_parquet.h"
#include "parquet.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int fail(const nl_error *e)
{
    fprintf(stderr, "nl-parquet-bench: %s: %s at offset %lld (field %s, record %lld): %s\n", e->source,
            nl_error_code_name(e->code), (long long)e->offset, e->field, (long long)e->record, e->message);
    return 1;
}

/* ---- string ids: open addressing over distinct strings (engines and opcodes: a few dozen) ---- */

typedef struct names {
    char **s;
    size_t *len;
    size_t n, cap;
    uint32_t *slot; /* id + 1 */
    size_t slots;
} names;

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint32_t names_id(names *t, const uint8_t *p, size_t n)
{
    if (t->n * 2 >= t->slots) {
        size_t slots = t->slots ? t->slots * 2 : 256;
        uint32_t *s = calloc(slots, sizeof *s);
        for (size_t i = 0; i < t->n; i++) {
            size_t k = hash_bytes((const uint8_t *)t->s[i], t->len[i]) & (slots - 1);
            while (s[k])
                k = (k + 1) & (slots - 1);
            s[k] = (uint32_t)i + 1;
        }
        free(t->slot);
        t->slot = s;
        t->slots = slots;
    }
    size_t k = hash_bytes(p, n) & (t->slots - 1);
    for (; t->slot[k]; k = (k + 1) & (t->slots - 1)) {
        uint32_t id = t->slot[k] - 1;
        if (t->len[id] == n && memcmp(t->s[id], p, n) == 0)
            return id;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->s = realloc(t->s, t->cap * sizeof *t->s);
        t->len = realloc(t->len, t->cap * sizeof *t->len);
    }
    t->s[t->n] = malloc(n + 1);
    memcpy(t->s[t->n], p, n);
    t->s[t->n][n] = '\0';
    t->len[t->n] = n;
    t->slot[k] = (uint32_t)t->n + 1;
    return (uint32_t)t->n++;
}

/* ---- group by ---- */

typedef struct group {
    uint32_t engine, opcode;
    uint64_t count, with_source, with_layer;
    int64_t dur, wait, first, last;
} group;

typedef struct agg {
    names strings;
    group *g;
    size_t ng, cap;
    int32_t *index; /* engine * width + opcode → group + 1 */
    size_t width, height;
    uint32_t *emap, *omap; /* per chunk: dictionary entry → string id */
    size_t emap_cap, omap_cap;
} agg;

enum { C_ENGINE, C_OPCODE, C_DUR, C_WAIT, C_START, C_LAYER, C_SOURCE, C_N };
static const char *const columns[C_N] = {"engine", "opcode", "duration_ns", "evt_wait_time_ns", "start_ts", "layer",
                                         "nki_source_location"};

static group *group_of(agg *a, uint32_t e, uint32_t o)
{
    if (e >= a->height || o >= a->width) {
        size_t w = a->width > o ? a->width : (size_t)o + 64, h = a->height > e ? a->height : (size_t)e + 16;
        int32_t *ix = calloc(w * h, sizeof *ix);
        for (size_t y = 0; y < a->height; y++)
            memcpy(ix + y * w, a->index + y * a->width, a->width * sizeof *ix);
        free(a->index);
        a->index = ix;
        a->width = w;
        a->height = h;
    }
    int32_t *slot = &a->index[e * a->width + o];
    if (!*slot) {
        if (a->ng == a->cap) {
            a->cap = a->cap ? a->cap * 2 : 64;
            a->g = realloc(a->g, a->cap * sizeof *a->g);
        }
        a->g[a->ng] = (group){.engine = e, .opcode = o, .first = INT64_MAX, .last = INT64_MIN};
        *slot = (int32_t)++a->ng;
    }
    return &a->g[*slot - 1];
}

/* String ids of a chunk's slots: per dictionary entry when the chunk is dictionary-encoded. */
static uint32_t string_id(agg *a, const parquet_chunk *c, uint32_t **map, size_t *cap, size_t row)
{
    if (!c)
        return names_id(&a->strings, (const uint8_t *)"", 0);
    if (c->dict_index && (!c->valid || c->valid[row]))
        return (*map)[c->dict_index[row]];
    parquet_bytes b = parquet_chunk_bytes(c, row);
    (void)cap;
    return names_id(&a->strings, b.ptr, b.len);
}

static void prepare_map(agg *a, const parquet_chunk *c, uint32_t **map, size_t *cap)
{
    if (!c || !c->dict_index)
        return;
    if (c->dict_count > *cap) {
        *cap = c->dict_count;
        *map = realloc(*map, *cap * sizeof **map);
    }
    for (size_t k = 0; k < c->dict_count; k++)
        (*map)[k] = names_id(&a->strings, c->dict[k].ptr, c->dict[k].len);
}

static int on_row_group(void *ctx, size_t rg, size_t rows, parquet_chunk *const *ch, nl_error *err)
{
    (void)rg;
    (void)err;
    agg *a = ctx;
    prepare_map(a, ch[C_ENGINE], &a->emap, &a->emap_cap);
    prepare_map(a, ch[C_OPCODE], &a->omap, &a->omap_cap);
    const parquet_chunk *dur = ch[C_DUR], *wait = ch[C_WAIT], *start = ch[C_START], *layer = ch[C_LAYER],
                        *src = ch[C_SOURCE];
    for (size_t r = 0; r < rows; r++) {
        group *g = group_of(a, string_id(a, ch[C_ENGINE], &a->emap, &a->emap_cap, r),
                            string_id(a, ch[C_OPCODE], &a->omap, &a->omap_cap, r));
        g->count++;
        if (dur && (!dur->valid || dur->valid[r]))
            g->dur += dur->i64[r];
        if (wait && (!wait->valid || wait->valid[r]))
            g->wait += wait->i64[r];
        if (start && (!start->valid || start->valid[r])) {
            int64_t t = start->i64[r];
            g->first = t < g->first ? t : g->first;
            g->last = t > g->last ? t : g->last;
        }
        g->with_layer += layer && (!layer->valid || layer->valid[r]);
        g->with_source += src && (!src->valid || src->valid[r]);
    }
    return 0;
}

static agg *sort_ctx;
static int group_cmp(const void *x, const void *y)
{
    const group *a = x, *b = y;
    int c = strcmp(sort_ctx->strings.s[a->engine], sort_ctx->strings.s[b->engine]);
    return c ? c : strcmp(sort_ctx->strings.s[a->opcode], sort_ctx->strings.s[b->opcode]);
}

static int groupby(const char *path)
{
    double t0 = now();
    parquet_file *f;
    nl_error err;
    if (parquet_open(path, &f, &err) != 0)
        return fail(&err);
    long cols[C_N];
    parquet_want wants[C_N];
    for (int i = 0; i < C_N; i++) {
        cols[i] = parquet_find_column(f, columns[i]);
        wants[i] = i == C_ENGINE || i == C_OPCODE || i == C_LAYER || i == C_SOURCE ? PARQUET_WANT_BYTES
                                                                                     : PARQUET_WANT_I64;
    }
    agg a = {0};
    int rc = parquet_scan(f, cols, wants, C_N, NULL, on_row_group, &a, &err);
    int64_t rows = parquet_rows(f);
    parquet_close(f);
    if (rc != 0)
        return fail(&err);
    double t1 = now();
    sort_ctx = &a;
    qsort(a.g, a.ng, sizeof *a.g, group_cmp);
    for (size_t i = 0; i < a.ng; i++) {
        const group *g = &a.g[i];
        printf("%s\t%s\t%" PRIu64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\n",
               a.strings.s[g->engine], a.strings.s[g->opcode], g->count, g->dur, g->wait, g->first, g->last,
               g->with_source, g->with_layer);
    }
    fprintf(stderr, "nl-parquet-bench groupby: %" PRId64 " rows, %zu groups, %.3f s\n", rows, a.ng, t1 - t0);
    for (size_t i = 0; i < a.strings.n; i++)
        free(a.strings.s[i]);
    free(a.strings.s);
    free(a.strings.len);
    free(a.strings.slot);
    free(a.g);
    free(a.index);
    free(a.emap);
    free(a.omap);
    return 0;
}

static int load(const char *dir)
{
    double t0 = now();
    device_model *m;
    nl_error err;
    if (explorer_parquet_read(dir, NULL, &m, NULL, &err) != 0)
        return fail(&err);
    double t1 = now();
    size_t n = device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS);
    fprintf(stderr, "nl-parquet-bench load: %zu instructions, %.3f s, model %zu B (%.1f B per instruction)\n", n,
            t1 - t0, device_model_bytes(m), n ? (double)device_model_bytes(m) / (double)n : 0.0);
    printf("%zu\t%.6f\t%zu\n", n, t1 - t0, device_model_bytes(m));
    device_model_free(m);
    return 0;
}

typedef struct decode_ctx {
    size_t ncols, values;
} decode_ctx;

static int count_values(void *ctx, size_t rg, size_t rows, parquet_chunk *const *chunks, nl_error *err)
{
    (void)rg;
    (void)rows;
    (void)err;
    decode_ctx *d = ctx;
    for (size_t i = 0; i < d->ncols; i++)
        if (chunks[i])
            d->values += chunks[i]->count;
    return 0;
}

static int decode(const char *path, int ncols, char **wanted)
{
    double t0 = now();
    parquet_file *f;
    nl_error err;
    if (parquet_open(path, &f, &err) != 0)
        return fail(&err);
    size_t n = ncols ? (size_t)ncols : parquet_columns(f);
    long *cols = calloc(n + 1, sizeof *cols);
    parquet_want *wants = calloc(n + 1, sizeof *wants);
    for (size_t i = 0; i < n; i++) {
        cols[i] = ncols ? parquet_find_column(f, wanted[i]) : (long)i;
        if (cols[i] < 0) {
            fprintf(stderr, "nl-parquet-bench: no column %s in %s\n", wanted[i], path);
            return 2;
        }
        wants[i] = parquet_want_of(parquet_column(f, (size_t)cols[i])->type);
    }
    decode_ctx d = {n, 0};
    int rc = parquet_scan(f, cols, wants, n, NULL, count_values, &d, &err);
    double t1 = now();
    if (rc == 0)
        fprintf(stderr, "nl-parquet-bench decode: %" PRId64 " rows, %zu columns, %zu values, %.3f s\n", parquet_rows(f), n,
                d.values, t1 - t0);
    parquet_close(f);
    free(cols);
    free(wants);
    return rc ? fail(&err) : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "decode") == 0)
        return decode(argv[2], argc - 3, argv + 3);
    if (argc == 3 && strcmp(argv[1], "groupby") == 0)
        return groupby(argv[2]);
    if (argc == 3 && strcmp(argv[1], "load") == 0)
        return load(argv[2]);
    fprintf(stderr, "usage: nl-parquet-bench groupby Instruction.parquet | load PROFILE_DIR | decode FILE [COLUMN...]\n");
    return 2;
}
