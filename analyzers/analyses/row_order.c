/* row_order — see row_order.h.
 *
 * Build, in two passes over the caller's keys (read ROW_ORDER_CHUNK rows at a time) and a sort:
 *   1. scan: rank keys that sort ascending — v = ~(value ^ 2^63) (value descending), t = ts ^ 2^63 (ts
 *      ascending) — are checked, for the kept rows in row order, for their ranges and whether (v, t) and t
 *      alone already ascend. If (v, t) ascends the order needs no sort: it is the identity (no array) when
 *      every row is kept, else the kept rows as they come (pass 2 writes just them);
 *   2. fill: write each kept row's key(s) and its index, counting the radix histograms on the way;
 *   3. sort: a stable LSD radix sort, RO_RADIX_BITS per pass, passes over a digit every key shares skipped.
 *      Stability makes row order the last tie-break. Keys are shifted down by their minimum; when the
 *      timestamps already ascend with the row (an export's instructions, in practice), t is left out —
 *      the stable sort by v alone then orders ties by (ts, row) — else, when both ranges fit 64 bits
 *      together, one packed key v << bits(t) | t is sorted, and otherwise t first (carrying v), then v.
 * Why radix, and why two passes: at 1M instructions the duration order is 21 bits of v, two passes of 11
 * bits: the build takes ~25 ms (scan 7, fill 10, sort 7), where a qsort of the 24-byte keys takes 270 ms.
 * Pass 1 costs one read of the key columns and spares the identity (instructions by time: 6 ms) any
 * allocation; DMA, whose timestamps do not ascend, sorts 41 bits of packed key in ~40 ms.
 * Memory: kept, 4 bytes per kept row (the index array, malloc'd). While building, 24 bytes per row with one
 * key (two key and index arrays, double-buffered) or 40 with two, in anonymous mappings that are unmapped
 * before return: freed malloc blocks of this size stayed in the worker thread's arena (building the 8
 * device orders of a 1M-instruction export, 25 MB of them, grew the server's RSS by 50 MB with malloc'd
 * buffers, by 10 MB with mappings). */
#include "row_order.h"
#include "topn.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RO_RADIX_BITS 11u
#define RO_BUCKETS ((size_t)1 << RO_RADIX_BITS)
#define RO_MASK (RO_BUCKETS - 1)
#define RO_DIGITS_MAX ((64u + RO_RADIX_BITS - 1) / RO_RADIX_BITS)
#define RO_SIGN ((uint64_t)1 << 63)
#define RO_HUGE_BYTES ((size_t)2 << 20) /* arrays from this size ask for transparent huge pages (see ro_map) */

struct row_order {
    size_t rows;      /* table rows */
    size_t count;     /* kept rows = positions */
    uint32_t *idx;    /* row at each position; NULL = the identity (count == rows) */
};

/* Pass 1's findings over the kept rows, in row order. */
typedef struct ro_scan {
    size_t kept;
    uint64_t vmin, vmax, tmin, tmax, last_v, last_t;
    bool sorted;      /* (v, t) ascends */
    bool t_sorted;    /* t alone ascends */
} ro_scan;

/* One side of the radix sort's double buffer: the key being sorted, an optional second key moved along. */
typedef struct ro_arrays {
    uint64_t *key, *carry;
    uint32_t *idx;
} ro_arrays;

typedef enum ro_mode { RO_SCAN, RO_FILL_IDX, RO_FILL_PACKED, RO_FILL_TWO } ro_mode;

typedef struct ro_build {
    row_order_keys_fn keys;
    void *ctx;
    const atomic_int *cancel;
    size_t rows;
    int64_t *value, *ts;      /* chunk buffers */
    uint8_t *keep;
    ro_scan s;
    unsigned bv, bt;          /* bits of the v and t ranges in the key(s); bt = 0 when t ascends with the row */
    size_t n;                 /* rows written by a fill pass */
    ro_arrays a, b;           /* mapped, s.kept entries each (b: scratch) */
    size_t *hist_key, *hist_carry; /* RO_DIGITS_MAX × RO_BUCKETS each */
} ro_build;

static uint64_t ro_desc(int64_t v)
{
    return ~((uint64_t)v ^ RO_SIGN);
}

static uint64_t ro_asc(int64_t v)
{
    return (uint64_t)v ^ RO_SIGN;
}

static unsigned ro_bits(uint64_t range)
{
    return range ? 64u - (unsigned)__builtin_clzll(range) : 0u;
}

static bool ro_cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

/* n × size bytes of zeroed anonymous memory, returned to the system by ro_unmap. Large arrays ask for huge
 * pages: a radix pass scatters to 2048 places at once, which with 4 KB pages misses the TLB on most
 * stores. */
static void *ro_map(size_t n, size_t size)
{
    size_t bytes = (n ? n : 1) * size;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= RO_HUGE_BYTES)
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

static void ro_unmap(void *p, size_t n, size_t size)
{
    if (p)
        munmap(p, (n ? n : 1) * size);
}

static void ro_arrays_unmap(ro_arrays *x, size_t n)
{
    ro_unmap(x->key, n, sizeof *x->key);
    ro_unmap(x->carry, n, sizeof *x->carry);
    ro_unmap(x->idx, n, sizeof *x->idx);
    memset(x, 0, sizeof *x);
}

static void ro_build_close(ro_build *b)
{
    free(b->value);
    free(b->ts);
    free(b->keep);
    free(b->hist_key);
    free(b->hist_carry);
    ro_arrays_unmap(&b->a, b->s.kept);
    ro_arrays_unmap(&b->b, b->s.kept);
}

static void ro_scan_row(ro_scan *s, uint64_t v, uint64_t t)
{
    if (s->kept++) {
        s->sorted = s->sorted && (v > s->last_v || (v == s->last_v && t >= s->last_t));
        s->t_sorted = s->t_sorted && t >= s->last_t;
        s->vmin = v < s->vmin ? v : s->vmin;
        s->vmax = v > s->vmax ? v : s->vmax;
        s->tmin = t < s->tmin ? t : s->tmin;
        s->tmax = t > s->tmax ? t : s->tmax;
    } else {
        s->vmin = s->vmax = v;
        s->tmin = s->tmax = t;
    }
    s->last_v = v;
    s->last_t = t;
}

/* Count key's digits into hist (RO_DIGITS_MAX rows of RO_BUCKETS). */
static void ro_hist_add(size_t *hist, uint64_t key, unsigned bits)
{
    for (unsigned d = 0; d * RO_RADIX_BITS < bits; d++)
        hist[d * RO_BUCKETS + ((key >> (d * RO_RADIX_BITS)) & RO_MASK)]++;
}

/* Pass 2: one kept row into the arrays of the chosen layout. */
static void ro_fill_row(ro_build *b, ro_mode mode, size_t row, uint64_t v, uint64_t t)
{
    size_t i = b->n++;
    b->a.idx[i] = (uint32_t)row;
    if (mode == RO_FILL_PACKED) {
        uint64_t tk = b->bt ? t - b->s.tmin : 0, vk = v - b->s.vmin;
        uint64_t key = b->bv ? vk << b->bt | tk : tk; /* bt == 64 only when bv == 0 */
        b->a.key[i] = key;
        ro_hist_add(b->hist_key, key, b->bv + b->bt);
    } else if (mode == RO_FILL_TWO) {
        b->a.key[i] = t - b->s.tmin;
        b->a.carry[i] = v - b->s.vmin;
        ro_hist_add(b->hist_key, b->a.key[i], b->bt);
        ro_hist_add(b->hist_carry, b->a.carry[i], b->bv);
    }
}

/* Read every row's keys through the caller's function; scan them (mode RO_SCAN) or fill the arrays. */
static int ro_pass(ro_build *b, ro_mode mode, nl_error *err)
{
    for (size_t base = 0; base < b->rows; base += ROW_ORDER_CHUNK) {
        if (ro_cancelled(b->cancel))
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        size_t n = b->rows - base < ROW_ORDER_CHUNK ? b->rows - base : ROW_ORDER_CHUNK;
        b->keys(b->ctx, base, n, b->value, b->ts, b->keep);
        for (size_t i = 0; i < n; i++) {
            if (!b->keep[i])
                continue;
            if (mode == RO_SCAN)
                ro_scan_row(&b->s, ro_desc(b->value[i]), ro_asc(b->ts[i]));
            else
                ro_fill_row(b, mode, base + i, ro_desc(b->value[i]), ro_asc(b->ts[i]));
        }
    }
    return 0;
}

/* Whether one bucket of a digit's histogram holds every key (the pass would not move anything). */
static bool ro_single_bucket(const size_t *hist, size_t n)
{
    for (size_t b = 0; b < RO_BUCKETS; b++)
        if (hist[b])
            return hist[b] == n;
    return true;
}

/* One stable counting pass over digit `d` from x into y; hist becomes the bucket offsets. */
static void ro_scatter(const ro_arrays *x, const ro_arrays *y, size_t n, unsigned d, size_t *hist)
{
    size_t sum = 0;
    for (size_t i = 0; i < RO_BUCKETS; i++) {
        size_t c = hist[i];
        hist[i] = sum;
        sum += c;
    }
    unsigned shift = d * RO_RADIX_BITS;
    for (size_t i = 0; i < n; i++) {
        size_t p = hist[(x->key[i] >> shift) & RO_MASK]++;
        y->key[p] = x->key[i];
        if (x->carry)
            y->carry[p] = x->carry[i];
        y->idx[p] = x->idx[i];
    }
}

/* Stable LSD radix sort of x->key[0, n) (every key < 2^bits, digits counted in hist), moving carry and idx
 * along; y is scratch of the same shape. On return *x holds the sorted arrays, *y the scratch. */
static int ro_radix(ro_arrays *x, ro_arrays *y, size_t n, unsigned bits, size_t *hist, const atomic_int *cancel,
                    nl_error *err)
{
    for (unsigned d = 0; d * RO_RADIX_BITS < bits; d++) {
        if (ro_cancelled(cancel))
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        if (ro_single_bucket(hist + d * RO_BUCKETS, n))
            continue;
        ro_scatter(x, y, n, d, hist + d * RO_BUCKETS);
        ro_arrays tmp = *x;
        *x = *y;
        *y = tmp;
    }
    return 0;
}

/* Map the arrays of the layout and the histograms. */
static int ro_alloc_sort(ro_build *b, bool two, nl_error *err)
{
    size_t n = b->s.kept;
    b->a.key = ro_map(n, sizeof *b->a.key);
    b->b.key = ro_map(n, sizeof *b->b.key);
    b->a.idx = ro_map(n, sizeof *b->a.idx);
    b->b.idx = ro_map(n, sizeof *b->b.idx);
    bool ok = b->a.key && b->b.key && b->a.idx && b->b.idx;
    if (two) {
        b->a.carry = ro_map(n, sizeof *b->a.carry);
        b->b.carry = ro_map(n, sizeof *b->b.carry);
        ok = ok && b->a.carry && b->b.carry;
    }
    b->hist_key = calloc((size_t)RO_DIGITS_MAX * RO_BUCKETS, sizeof *b->hist_key);
    b->hist_carry = calloc((size_t)RO_DIGITS_MAX * RO_BUCKETS, sizeof *b->hist_carry);
    if (!ok || !b->hist_key || !b->hist_carry)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (row order keys)");
    return 0;
}

/* Steps 2 and 3 of the design note; the sorted rows end in b->a.idx. */
static int ro_sort(ro_build *b, nl_error *err)
{
    b->bv = ro_bits(b->s.vmax - b->s.vmin);
    b->bt = b->s.t_sorted ? 0 : ro_bits(b->s.tmax - b->s.tmin);
    bool two = b->bv + b->bt > 64;
    if (ro_alloc_sort(b, two, err) || ro_pass(b, two ? RO_FILL_TWO : RO_FILL_PACKED, err))
        return -1;
    if (!two)
        return ro_radix(&b->a, &b->b, b->n, b->bv + b->bt, b->hist_key, b->cancel, err);
    if (ro_radix(&b->a, &b->b, b->n, b->bt, b->hist_key, b->cancel, err))
        return -1;
    ro_arrays va = {b->a.carry, NULL, b->a.idx}, vb = {b->b.carry, NULL, b->b.idx}; /* v in t order, scratch */
    int rc = ro_radix(&va, &vb, b->n, b->bv, b->hist_carry, b->cancel, err);
    b->a.carry = va.key; /* keep every mapping owned by exactly one field */
    b->a.idx = va.idx;
    b->b.carry = vb.key;
    b->b.idx = vb.idx;
    return rc;
}

/* The index array kept: the sorted rows (or, already in order, the kept rows) copied to the heap. */
static int ro_finish(ro_build *b, row_order *o, nl_error *err)
{
    o->count = b->s.kept;
    if (b->s.sorted && b->s.kept == b->rows)
        return 0; /* the identity */
    if (!(o->idx = malloc((o->count ? o->count : 1) * sizeof *o->idx)))
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (row order)");
    memcpy(o->idx, b->a.idx, o->count * sizeof *o->idx);
    return 0;
}

int row_order_build(size_t rows, row_order_keys_fn keys, void *ctx, const atomic_int *cancel, row_order **out,
                    nl_error *err)
{
    *out = NULL;
    if ((uint64_t)rows > (uint64_t)UINT32_MAX + 1)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "%zu rows: a row order holds at most 2^32", rows);
    ro_build b = {.keys = keys, .ctx = ctx, .cancel = cancel, .rows = rows, .s = {.sorted = true, .t_sorted = true}};
    b.value = malloc(ROW_ORDER_CHUNK * sizeof *b.value);
    b.ts = malloc(ROW_ORDER_CHUNK * sizeof *b.ts);
    b.keep = malloc(ROW_ORDER_CHUNK);
    row_order *o = calloc(1, sizeof *o);
    int rc = !b.value || !b.ts || !b.keep || !o ? nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (row order)")
                                                : ro_pass(&b, RO_SCAN, err);
    if (!rc && b.s.sorted && b.s.kept < rows) { /* in order already, some rows left out: list the kept ones */
        if (!(b.a.idx = ro_map(b.s.kept, sizeof *b.a.idx)))
            rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (row order)");
        else
            rc = ro_pass(&b, RO_FILL_IDX, err);
    } else if (!rc && !b.s.sorted) {
        rc = ro_sort(&b, err);
    }
    if (!rc) {
        o->rows = rows;
        rc = ro_finish(&b, o, err);
    }
    ro_build_close(&b);
    if (rc) {
        row_order_free(o);
        return -1;
    }
    *out = o;
    return 0;
}

void row_order_free(row_order *o)
{
    if (!o)
        return;
    free(o->idx);
    free(o);
}

size_t row_order_bytes(const row_order *o)
{
    return sizeof *o + (o->idx ? (o->count ? o->count : 1) * sizeof *o->idx : 0);
}

size_t row_order_table_rows(const row_order *o)
{
    return o->rows;
}

size_t row_order_count(const row_order *o)
{
    return o->count;
}

bool row_order_is_identity(const row_order *o)
{
    return !o->idx;
}

size_t row_order_at(const row_order *o, size_t pos)
{
    return o->idx ? o->idx[pos] : pos;
}

/* Whether the row at `pos` ranks after (value, ts, row). */
static bool ro_after(const row_order *o, size_t pos, uint64_t v, uint64_t t, size_t row, row_order_keys_fn keys,
                     void *ctx)
{
    int64_t value, ts;
    uint8_t keep;
    size_t r = row_order_at(o, pos);
    keys(ctx, r, 1, &value, &ts, &keep);
    uint64_t pv = ro_desc(value), pt = ro_asc(ts);
    if (pv != v)
        return pv > v;
    if (pt != t)
        return pt > t;
    return r > row;
}

size_t row_order_upper_bound(const row_order *o, int64_t value, int64_t ts, size_t row, row_order_keys_fn keys,
                             void *ctx)
{
    uint64_t v = ro_desc(value), t = ro_asc(ts);
    size_t lo = 0, hi = o->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ro_after(o, mid, v, t, row, keys, ctx))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

size_t row_order_take(const row_order *o, size_t from, const uint64_t *match, size_t limit, size_t *out)
{
    size_t n = 0;
    for (size_t pos = from; pos < o->count && n < limit; pos++) {
        size_t r = row_order_at(o, pos);
        if (!match || row_order_match_has(match, r))
            out[n++] = r;
    }
    return n;
}

uint64_t row_order_count_matches(const row_order *o, size_t from, size_t to, const uint64_t *match)
{
    uint64_t n = 0;
    if (to > o->count)
        to = o->count;
    if (!match)
        return to > from ? to - from : 0;
    for (size_t pos = from; pos < to; pos++)
        n += row_order_match_has(match, row_order_at(o, pos));
    return n;
}

uint64_t row_order_matches_from(const row_order *o, size_t from, const uint64_t *match, uint64_t total)
{
    if (from >= o->count)
        return 0;
    if (!match)
        return o->count - from;
    if (from <= o->count - from)
        return total - row_order_count_matches(o, 0, from, match);
    return row_order_count_matches(o, from, o->count, match);
}

bool row_order_is_sparse(const row_order *o, uint64_t total)
{
    return total < o->count / ROW_ORDER_SPARSE_SHARE;
}

int row_order_key_cmp(const void *pa, const void *pb, const void *ctx)
{
    const row_order_key *a = pa, *b = pb;
    (void)ctx;
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

int row_order_rank_matches(size_t rows, const uint64_t *match, const row_order_key *after, row_order_keys_fn keys,
                           void *ctx, size_t limit, size_t *out, size_t *count, uint64_t *after_count)
{
    topn heap;
    if (topn_init(&heap, sizeof(row_order_key), limit, row_order_key_cmp, NULL))
        return -1;
    *after_count = 0;
    for (size_t w = 0; w < row_order_match_words(rows); w++)
        for (uint64_t bits = match[w]; bits; bits &= bits - 1) {
            row_order_key k = {0, 0, w * 64 + (size_t)__builtin_ctzll(bits)};
            uint8_t keep;
            keys(ctx, k.row, 1, &k.value, &k.ts, &keep);
            if (after && row_order_key_cmp(&k, after, NULL) <= 0)
                continue;
            (*after_count)++;
            topn_offer(&heap, &k);
        }
    *count = topn_finish(&heap);
    for (size_t i = 0; i < *count; i++)
        out[i] = ((const row_order_key *)topn_at(&heap, i))->row;
    topn_close(&heap);
    return 0;
}

uint64_t row_order_match_pack(uint64_t *match, size_t base, const uint8_t *keep, size_t n)
{
    uint64_t total = 0;
    for (size_t w = 0; w * 64 < n; w++) {
        uint64_t bits = 0;
        size_t m = n - w * 64 < 64 ? n - w * 64 : 64;
        for (size_t j = 0; j < m; j++)
            bits |= (uint64_t)(keep[w * 64 + j] != 0) << j;
        match[base / 64 + w] = bits;
        total += (uint64_t)__builtin_popcountll(bits);
    }
    return total;
}
