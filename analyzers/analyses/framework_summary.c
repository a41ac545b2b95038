/* framework_summary — see framework_summary.h for the definitions.
 *
 * Phases (each a linear pass or a sort; the cancel flag is polled between them):
 *   1. classify  read ts, dur, ph, cat, pid once (table_read in chunks) into ts[] / end[] / kind[]; count
 *                phases and categories by dictionary code
 *   2. B/E       sort B and E rows by (thread, ts, row), pair them with a stack per thread; a matched B
 *                becomes a span ending at its E
 *   3. walk      items = spans (host, device, other device) + flow probes (s, f), bucketed by thread
 *                (counting sort, stable), each bucket sorted by (ts, probe last, end descending, row); one
 *                stack per thread yields every span's parent and self time and binds every probe
 *   4. link      maps (first in file order): correlation → host span, External id → host op span, flow
 *                id → host s probe; each device span finds its launch, then its op by walking parents
 *   5. group     host ops, device kernels and ops credited with device time through hash maps keyed by
 *                (name code, cat code); busy time through interval_union; steps, copies, latency
 *
 * Memory: about 60 B per event for the duration of the call (ts, end, kind per row; 24-byte items; parent,
 * self and binding per item), on top of the model. Nothing per event survives the call. */
#include "framework_summary.h"

#include <stdlib.h>
#include <string.h>

#include "intervals.h"

enum fs_kind {
    K_NONE,
    K_META,
    K_HOST,     /* host span */
    K_DEV,      /* device span */
    K_DEVOTHER, /* X on a device that is not a device span (annotation, wait, runtime) */
    K_PROF,     /* profiler's own span */
    K_B,
    K_E,
    K_S,
    K_T,
    K_F,
    K_INSTANT,
    K_OTHER,
};
#define K_MASK 0x0fu
#define K_SPAN_SHIFT 4 /* B rows keep the span kind they become in the high nibble */

enum fs_ph { PH_OTHER, PH_X, PH_B, PH_E, PH_S, PH_T, PH_F, PH_I, PH_M };

#define FS_CHUNK 4096u
#define FS_NONE UINT32_MAX
#define FS_PROBE 0x80000000u

typedef struct fs_item {
    int64_t ts, end;
    uint32_t row;
    uint32_t thread; /* | FS_PROBE for s/f probes */
} fs_item;

/* ---- a small hash map: (key, tag) → u32 ------------------------------------------------------------- */

/* One 24-byte entry per slot (key, tag, value and the value's file row share a cache line); tag 0 = empty. */
typedef struct fs_slot {
    uint64_t key;
    uint32_t val;
    uint32_t row;
    uint32_t tag;
} fs_slot;

typedef struct fs_map {
    fs_slot *slots;
    size_t mask, count;
} fs_map;

static uint64_t fs_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static uint64_t fs_hash(uint64_t key, uint32_t tag)
{
    return fs_mix(key ^ ((uint64_t)tag << 61));
}

/* Room for `hint` entries at load ≤ 1/2 without growing. */
static int fs_map_init(fs_map *m, size_t hint)
{
    size_t cap = 64;
    while (cap < hint * 2)
        cap *= 2;
    m->slots = calloc(cap, sizeof *m->slots);
    m->mask = cap - 1;
    m->count = 0;
    return m->slots ? 0 : -1;
}

static void fs_map_free(fs_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* Slot of (key, tag) with hash h: its position, found or empty. */
static size_t fs_map_slot_h(const fs_map *m, uint64_t h, uint64_t key, uint32_t tag)
{
    size_t i = (size_t)h & m->mask;
    while (m->slots[i].tag && (m->slots[i].tag != tag || m->slots[i].key != key))
        i = (i + 1) & m->mask;
    return i;
}

static size_t fs_map_slot(const fs_map *m, uint64_t key, uint32_t tag)
{
    return fs_map_slot_h(m, fs_hash(key, tag), key, tag);
}

static void fs_map_prefetch(const fs_map *m, uint64_t h)
{
    __builtin_prefetch(&m->slots[(size_t)h & m->mask]);
}

/* Pointer to the value of (key, tag), inserted as FS_NONE when absent; NULL when out of memory. */
static uint32_t *fs_map_put(fs_map *m, uint64_t key, uint32_t tag)
{
    size_t h = fs_map_slot(m, key, tag);
    if (m->slots[h].tag)
        return &m->slots[h].val;
    if ((m->count + 1) * 2 > m->mask + 1) {
        fs_map bigger;
        if (fs_map_init(&bigger, m->mask + 1) != 0)
            return NULL;
        for (size_t i = 0; i <= m->mask; i++)
            if (m->slots[i].tag)
                bigger.slots[fs_map_slot(&bigger, m->slots[i].key, m->slots[i].tag)] = m->slots[i];
        bigger.count = m->count;
        fs_map_free(m);
        *m = bigger;
        h = fs_map_slot(m, key, tag);
    }
    m->slots[h] = (fs_slot){key, FS_NONE, UINT32_MAX, tag};
    m->count++;
    return &m->slots[h].val;
}

/* A key waiting for a batched map operation: random slots are prefetched FS_PREFETCH keys ahead. */
typedef struct fs_key {
    uint64_t key, hash;
    uint32_t tag, item, row;
} fs_key;

#define FS_PREFETCH 16u

/* Insert every key keeping, per key, the item whose row comes first in the file. The map was sized for
 * at least n entries (fs_map_init), so it never grows here. */
static void fs_map_put_first(fs_map *m, const fs_key *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i + FS_PREFETCH < n)
            fs_map_prefetch(m, k[i + FS_PREFETCH].hash);
        size_t j = fs_map_slot_h(m, k[i].hash, k[i].key, k[i].tag);
        if (!m->slots[j].tag) {
            m->slots[j] = (fs_slot){k[i].key, k[i].item, k[i].row, k[i].tag};
            m->count++;
        } else if (k[i].row < m->slots[j].row) {
            m->slots[j].val = k[i].item;
            m->slots[j].row = k[i].row;
        }
    }
}

/* out[i] = the value of k[i], or FS_NONE. */
static void fs_map_get_all(const fs_map *m, const fs_key *k, size_t n, uint32_t *out)
{
    for (size_t i = 0; i < n; i++) {
        if (i + FS_PREFETCH < n)
            fs_map_prefetch(m, k[i + FS_PREFETCH].hash);
        size_t j = fs_map_slot_h(m, k[i].hash, k[i].key, k[i].tag);
        out[i] = m->slots[j].tag ? m->slots[j].val : FS_NONE;
    }
}

/* ---- sorting items -------------------------------------------------------------------------------------- */

static inline int fs_item_less(const fs_item *a, const fs_item *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    if (a->thread != b->thread) /* same bucket: differs only by the probe bit; spans first */
        return a->thread < b->thread;
    if (a->end != b->end)
        return a->end > b->end;
    return a->row < b->row;
}

/* Sorting a bucket: fs_item_less is a total order (row breaks ties), so any correct sort gives the same
 * result. Kineto buckets are nearly sorted: a thread's events are written when they end, so an enclosing
 * span (python_function, user_annotation) comes a few items after the ops it encloses. A plain bottom-up
 * merge sort copied the whole bucket at each of its log2(n) passes even where runs were already in order
 * (~21 passes over a 1.8 M-item thread). So short runs are insertion-sorted, then adjacent runs are
 * merged in place, copying only the out-of-order middle (the left run's prefix that is not greater than the
 * right run's first item, and the right run's suffix that is not less than the left run's last, stay put):
 * nearly sorted input costs about one pass, the worst case stays O(n log n). */
#define FS_SORT_RUN 32u

static void fs_insertion_sort(fs_item *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        if (!fs_item_less(&v[i], &v[i - 1]))
            continue;
        fs_item x = v[i];
        size_t j = i;
        do {
            v[j] = v[j - 1];
            j--;
        } while (j > 0 && fs_item_less(&x, &v[j - 1]));
        v[j] = x;
    }
}

/* Merge the sorted runs v[lo, mid) and v[mid, hi) in place, with tmp of at least mid - lo items. */
static void fs_merge_runs(fs_item *v, size_t lo, size_t mid, size_t hi, fs_item *tmp)
{
    if (!fs_item_less(&v[mid], &v[mid - 1]))
        return; /* already in order */
    size_t l = lo, h = mid; /* a = first left item greater than v[mid]: v[lo, a) stays */
    while (l < h) {
        size_t m = l + (h - l) / 2;
        if (fs_item_less(&v[mid], &v[m]))
            h = m;
        else
            l = m + 1;
    }
    size_t a = l;
    l = mid, h = hi; /* b = first right item not less than v[mid - 1]: v[b, hi) stays */
    while (l < h) {
        size_t m = l + (h - l) / 2;
        if (fs_item_less(&v[m], &v[mid - 1]))
            l = m + 1;
        else
            h = m;
    }
    size_t b = l;
    size_t nl = mid - a, i = 0, j = mid, k = a;
    memcpy(tmp, v + a, nl * sizeof *v);
    while (i < nl && j < b) /* k ≤ j: the output never overtakes the unread right items */
        v[k++] = fs_item_less(&v[j], &tmp[i]) ? v[j++] : tmp[i++];
    while (i < nl)
        v[k++] = tmp[i++];
}

/* Sort v[0..n) by fs_item_less, with tmp of n items. */
static void fs_sort_items(fs_item *v, size_t n, fs_item *tmp)
{
    for (size_t lo = 0; lo < n; lo += FS_SORT_RUN)
        fs_insertion_sort(v + lo, n - lo < FS_SORT_RUN ? n - lo : FS_SORT_RUN);
    for (size_t width = FS_SORT_RUN; width < n; width *= 2)
        for (size_t lo = 0; lo + width < n; lo += 2 * width)
            fs_merge_runs(v, lo, lo + width, lo + 2 * width < n ? lo + 2 * width : n, tmp);
}

/* Items of the rows selected by `want` (kind table), placed straight into per-thread buckets in row order
 * (counting sort, no copy), then each bucket sorted; starts[t..t+1) = bucket t. `make` fills one item. */
typedef fs_item (*fs_make_fn)(const void *ctx, uint32_t row);

static int fs_bucket_build(const uint32_t *row_thread, const uint8_t *select, size_t nrows, size_t nthreads,
                           fs_make_fn make, const void *ctx, fs_item **items_out, size_t *n_out, size_t **starts_out)
{
    size_t *starts = calloc(nthreads + 1, sizeof *starts);
    size_t *pos = malloc((nthreads ? nthreads : 1) * sizeof *pos);
    if (!starts || !pos) {
        free(starts);
        free(pos);
        return -1;
    }
    for (size_t r = 0; r < nrows; r++)
        if (select[r])
            starts[row_thread[r] + 1]++;
    size_t largest = 0;
    for (size_t t = 0; t < nthreads; t++) {
        if (starts[t + 1] > largest)
            largest = starts[t + 1];
        starts[t + 1] += starts[t];
    }
    size_t n = starts[nthreads];
    fs_item *items = malloc((n ? n : 1) * sizeof *items), *tmp = malloc((largest ? largest : 1) * sizeof *tmp);
    if (!items || !tmp) {
        free(starts);
        free(pos);
        free(items);
        free(tmp);
        return -1;
    }
    memcpy(pos, starts, nthreads * sizeof *pos);
    for (size_t r = 0; r < nrows; r++)
        if (select[r])
            items[pos[row_thread[r]]++] = make(ctx, (uint32_t)r);
    free(pos);
    for (size_t t = 0; t < nthreads; t++)
        fs_sort_items(items + starts[t], starts[t + 1] - starts[t], tmp);
    free(tmp);
    *items_out = items;
    *n_out = n;
    *starts_out = starts;
    return 0;
}

/* ---- the computation state --------------------------------------------------------------------------- */

typedef struct fs_ctx {
    const framework_model *m;
    const table *t;
    const atomic_int *cancel;
    nl_error *err;
    framework_summary *out;
    size_t n;
    int64_t *ts, *end; /* per row; freed once the walk items are built */
    uint8_t *kind;
    uint16_t *flags;   /* per row: FM_F_* */
    const uint32_t *row_thread;
    size_t nthreads;
    /* per dictionary code */
    uint8_t *ph_of;       /* FM_EV_PH code → enum fs_ph */
    unsigned *cat_traits; /* FM_EV_CAT code → FM_CAT_* */
    uint32_t ncat;
    uint8_t *name_flags;  /* FM_EV_NAME code → FS_NAME_* */
    int8_t *name_copy;    /* FM_EV_NAME code → copy kind or -1 */
    int8_t *detail_copy;  /* FM_EV_DETAIL code → copy kind or -1 */
    /* walk */
    fs_item *items;
    size_t nitems;
    size_t *starts;
    uint32_t *parent; /* item → parent item */
    int64_t *self;    /* item → self time (host spans) */
    uint32_t *bind;   /* probe item → bound span item */
    interval_vec all_dev;
} fs_ctx;

#define FS_NAME_STEP 1u
#define FS_NAME_COMPILED 2u
#define FS_NAME_HOST_COPY 4u
#define FS_COPY_UNKNOWN (-2)

static int fs_nomem(fs_ctx *c, const char *what)
{
    return nl_error_set(c->err, NL_ERR_NOMEM, NULL, -1, "out of memory computing the framework summary (%s)", what);
}

static int fs_poll(fs_ctx *c)
{
    if (c->cancel && atomic_load(c->cancel))
        return nl_error_set(c->err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
    return 0;
}

static const char *fs_str(const fs_ctx *c, uint32_t col, uint32_t code, size_t *len)
{
    return framework_model_str(c->m, table_dict_id(c->t, col, code), len);
}

static int fs_contains(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, needle, n) == 0)
            return 1;
    return 0;
}

/* Copy direction named in a memcpy name ("Memcpy HtoD (Pageable -> Device)") or an args.direction
 * ("HOST_TO_DEVICE"); -1 when neither. */
static int fs_copy_kind_of(const char *s, size_t len)
{
    if (fs_contains(s, len, "HtoD") || fs_contains(s, len, "HOST_TO_DEVICE"))
        return FS_COPY_H2D;
    if (fs_contains(s, len, "DtoH") || fs_contains(s, len, "DEVICE_TO_HOST"))
        return FS_COPY_D2H;
    if (fs_contains(s, len, "DtoD") || fs_contains(s, len, "DEVICE_TO_DEVICE"))
        return FS_COPY_D2D;
    if (fs_contains(s, len, "HtoH") || fs_contains(s, len, "HOST_TO_HOST"))
        return FS_COPY_H2H;
    if (fs_contains(s, len, "PtoP") || fs_contains(s, len, "PEER_TO_PEER"))
        return FS_COPY_P2P;
    return -1;
}

static int fs_prepare_dicts(fs_ctx *c)
{
    uint32_t nph = table_dict_size(c->t, FM_EV_PH), nname = table_dict_size(c->t, FM_EV_NAME);
    uint32_t ndet = table_dict_size(c->t, FM_EV_DETAIL);
    c->ncat = table_dict_size(c->t, FM_EV_CAT);
    c->ph_of = calloc(nph ? nph : 1, 1);
    c->cat_traits = calloc(c->ncat ? c->ncat : 1, sizeof *c->cat_traits);
    c->name_flags = calloc(nname ? nname : 1, 1);
    c->name_copy = malloc(nname ? nname : 1);
    c->detail_copy = malloc(ndet ? ndet : 1);
    if (!c->ph_of || !c->cat_traits || !c->name_flags || !c->name_copy || !c->detail_copy)
        return fs_nomem(c, "dictionaries");
    static const struct {
        const char *ph;
        uint8_t e;
    } phs[] = {{"X", PH_X}, {"B", PH_B}, {"E", PH_E}, {"s", PH_S}, {"t", PH_T},
               {"f", PH_F}, {"i", PH_I}, {"I", PH_I}, {"M", PH_M}};
    for (uint32_t k = 0; k < nph; k++) {
        size_t len;
        const char *s = fs_str(c, FM_EV_PH, k, &len);
        for (size_t j = 0; j < sizeof phs / sizeof phs[0]; j++)
            if (len == 1 && s[0] == phs[j].ph[0])
                c->ph_of[k] = phs[j].e;
    }
    for (uint32_t k = 0; k < c->ncat; k++) {
        size_t len;
        const char *s = fs_str(c, FM_EV_CAT, k, &len);
        c->cat_traits[k] = framework_model_category_traits(s, len);
    }
    static const char *const host_copy[] = {"aten::copy_", "aten::_to_copy", "aten::to", "aten::_copy_from",
                                            "aten::_copy_from_and_resize"};
    for (uint32_t k = 0; k < nname; k++) {
        size_t len;
        const char *s = fs_str(c, FM_EV_NAME, k, &len);
        if (len >= 13 && memcmp(s, "ProfilerStep#", 13) == 0)
            c->name_flags[k] |= FS_NAME_STEP;
        if (len >= 21 && memcmp(s, "Torch-Compiled Region", 21) == 0)
            c->name_flags[k] |= FS_NAME_COMPILED;
        for (size_t j = 0; j < sizeof host_copy / sizeof host_copy[0]; j++)
            if (len == strlen(host_copy[j]) && memcmp(s, host_copy[j], len) == 0)
                c->name_flags[k] |= FS_NAME_HOST_COPY;
    }
    memset(c->name_copy, FS_COPY_UNKNOWN, nname ? nname : 1); /* computed on first use (device spans only) */
    memset(c->detail_copy, FS_COPY_UNKNOWN, ndet ? ndet : 1);
    return 0;
}

/* ---- phase 1: classify rows ---------------------------------------------------------------------------- */

static uint8_t fs_span_kind(const fs_ctx *c, uint32_t pcode, unsigned traits)
{
    const framework_model_process *p = framework_model_process_at(c->m, pcode);
    if (p && p->device != FM_HOST) {
        if ((traits & (FM_CAT_ANNOTATION | FM_CAT_WAIT | FM_CAT_PROFILER)) ||
            ((traits & FM_CAT_LAUNCH) && !(traits & FM_CAT_DEVICE_ONLY)))
            return K_DEVOTHER;
        return K_DEV;
    }
    return traits & FM_CAT_PROFILER ? K_PROF : K_HOST;
}

static int fs_classify(fs_ctx *c)
{
    framework_summary *o = c->out;
    uint32_t nph = table_dict_size(c->t, FM_EV_PH);
    uint64_t *ph_count = calloc(nph ? nph : 1, sizeof *ph_count);
    uint64_t *cat_count = calloc(c->ncat ? c->ncat : 1, sizeof *cat_count);
    table_value *a = malloc(FS_CHUNK * sizeof *a), *b = malloc(FS_CHUNK * sizeof *b);
    table_value *f = malloc(FS_CHUNK * sizeof *f);
    if (!ph_count || !cat_count || !a || !b || !f) {
        free(ph_count);
        free(cat_count);
        free(a);
        free(b);
        free(f);
        return fs_nomem(c, "classification");
    }
    for (size_t r0 = 0; r0 < c->n; r0 += FS_CHUNK) {
        size_t k = c->n - r0 < FS_CHUNK ? c->n - r0 : FS_CHUNK;
        table_read(c->t, FM_EV_TS, r0, k, a);
        table_read(c->t, FM_EV_DUR, r0, k, b);
        table_read(c->t, FM_EV_FLAGS, r0, k, f);
        for (size_t j = 0; j < k; j++) {
            size_t r = r0 + j;
            c->ts[r] = a[j].i;
            c->end[r] = a[j].i + ((f[j].u & FM_F_DUR) && b[j].i > 0 ? b[j].i : 0);
            c->flags[r] = (uint16_t)f[j].u;
        }
        for (size_t j = 0; j < k; j++) {
            size_t r = r0 + j;
            uint32_t phc = table_code(c->t, FM_EV_PH, r), catc = table_code(c->t, FM_EV_CAT, r);
            ph_count[phc]++;
            cat_count[catc]++;
            int has_ts = (f[j].u & FM_F_TS) != 0;
            uint8_t k8 = K_OTHER;
            switch (c->ph_of[phc]) {
            case PH_M:
                k8 = K_META;
                o->meta_events++;
                o->meta_ts_zero += has_ts && c->ts[r] == 0;
                break;
            case PH_X:
                if (has_ts)
                    k8 = fs_span_kind(c, table_code(c->t, FM_EV_PID, r), c->cat_traits[catc]);
                else
                    o->untimed_spans++;
                o->profiler_spans += k8 == K_PROF;
                break;
            case PH_B:
            case PH_E:
                if (!has_ts) {
                    o->untimed_spans++;
                    break;
                }
                k8 = c->ph_of[phc] == PH_E ? K_E
                                           : (uint8_t)(K_B | fs_span_kind(c, table_code(c->t, FM_EV_PID, r),
                                                                          c->cat_traits[catc]) << K_SPAN_SHIFT);
                break;
            case PH_S:
                o->flow_starts++;
                k8 = has_ts ? K_S : K_OTHER;
                break;
            case PH_T:
                o->flow_steps++;
                k8 = K_T;
                break;
            case PH_F:
                o->flow_finishes++;
                k8 = has_ts ? K_F : K_OTHER;
                break;
            case PH_I:
                o->instants++;
                k8 = K_INSTANT;
                break;
            default: break;
            }
            if (k8 != K_META && has_ts) {
                if (!o->has_window || c->ts[r] < o->first_ns)
                    o->first_ns = c->ts[r];
                if (!o->has_window || c->end[r] > o->last_ns)
                    o->last_ns = c->end[r];
                o->has_window = 1;
            }
            c->kind[r] = k8;
        }
    }
    free(a);
    free(b);
    free(f);
    /* phase and category counts */
    o->phases = calloc(nph ? nph : 1, sizeof *o->phases);
    o->cats = calloc(c->ncat ? c->ncat : 1, sizeof *o->cats);
    if (!o->phases || !o->cats) {
        free(ph_count);
        free(cat_count);
        return fs_nomem(c, "counts");
    }
    for (uint32_t k = 0; k < nph; k++)
        if (ph_count[k])
            o->phases[o->nphases++] = (fs_count){table_dict_id(c->t, FM_EV_PH, k), ph_count[k]};
    for (uint32_t k = 0; k < c->ncat; k++)
        if (cat_count[k])
            o->cats[o->ncats++] = (fs_count){table_dict_id(c->t, FM_EV_CAT, k), cat_count[k]};
    free(ph_count);
    free(cat_count);
    return 0;
}

/* ---- phase 2: B/E pairs ----------------------------------------------------------------------------- */

static fs_item fs_make_be(const void *ctx, uint32_t r)
{
    const fs_ctx *c = ctx;
    return (fs_item){c->ts[r], c->ts[r], r, c->row_thread[r]};
}

static int fs_pair_be(fs_ctx *c)
{
    size_t nbe = 0;
    uint8_t *sel = malloc(c->n ? c->n : 1);
    if (!sel)
        return fs_nomem(c, "B/E pairs");
    for (size_t r = 0; r < c->n; r++) {
        sel[r] = (c->kind[r] & K_MASK) == K_B || c->kind[r] == K_E;
        nbe += sel[r];
    }
    if (!nbe) {
        free(sel);
        return 0;
    }
    fs_item *v = NULL;
    size_t *starts = NULL, n;
    uint32_t *stack = malloc(nbe * sizeof *stack);
    if (!stack || fs_bucket_build(c->row_thread, sel, c->n, c->nthreads, fs_make_be, c, &v, &n, &starts) != 0) {
        free(sel);
        free(stack);
        return fs_nomem(c, "B/E pairs");
    }
    free(sel);
    for (size_t t = 0; t < c->nthreads; t++) {
        size_t depth = 0;
        for (size_t i = starts[t]; i < starts[t + 1]; i++) {
            uint32_t r = v[i].row;
            if (c->kind[r] == K_E) {
                if (!depth) {
                    c->out->be_unmatched_end++;
                    continue;
                }
                uint32_t b = stack[--depth];
                c->end[b] = c->ts[r];
                c->kind[b] = (uint8_t)(c->kind[b] >> K_SPAN_SHIFT);
                c->out->be_pairs++;
            } else {
                stack[depth++] = r;
            }
        }
        for (size_t d = 0; d < depth; d++)
            c->kind[stack[d]] = K_OTHER;
        c->out->be_open += depth;
    }
    free(starts);
    free(v);
    free(stack);
    return 0;
}

/* ---- phase 3: the walk ------------------------------------------------------------------------------ */

static int fs_is_walked(uint8_t k)
{
    return k == K_HOST || k == K_DEV || k == K_DEVOTHER || k == K_S || k == K_F;
}

static fs_item fs_make_walk(const void *ctx, uint32_t r)
{
    const fs_ctx *c = ctx;
    int probe = c->kind[r] == K_S || c->kind[r] == K_F;
    return (fs_item){c->ts[r], probe ? c->ts[r] : c->end[r], r, c->row_thread[r] | (probe ? FS_PROBE : 0)};
}

static int fs_walk(fs_ctx *c)
{
    uint8_t *sel = malloc(c->n ? c->n : 1);
    if (!sel)
        return fs_nomem(c, "nesting");
    for (size_t r = 0; r < c->n; r++)
        sel[r] = (uint8_t)fs_is_walked(c->kind[r]);
    int rc = fs_bucket_build(c->row_thread, sel, c->n, c->nthreads, fs_make_walk, c, &c->items, &c->nitems, &c->starts);
    free(sel);
    /* the items carry ts and end from here on */
    free(c->ts);
    free(c->end);
    c->ts = c->end = NULL;
    if (rc != 0)
        return fs_nomem(c, "nesting");
    size_t n = c->nitems;
    c->parent = malloc((n ? n : 1) * sizeof *c->parent);
    c->self = malloc((n ? n : 1) * sizeof *c->self);
    c->bind = malloc((n ? n : 1) * sizeof *c->bind);
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
    if (!c->parent || !c->self || !c->bind || !stack) {
        free(stack);
        return fs_nomem(c, "nesting");
    }
    if (fs_poll(c) != 0) {
        free(stack);
        return -1;
    }
    for (size_t t = 0; t < c->nthreads; t++) {
        size_t depth = 0, lo = c->starts[t], hi = c->starts[t + 1];
        uint32_t next_span = FS_NONE;
        /* next span at or after each probe: a backward pass fills bind[] provisionally for probes */
        for (size_t i = hi; i-- > lo;) {
            if (c->items[i].thread & FS_PROBE)
                c->bind[i] = next_span;
            else
                next_span = (uint32_t)i;
        }
        for (size_t i = lo; i < hi; i++) {
            const fs_item *it = &c->items[i];
            if (it->thread & FS_PROBE) {
                uint32_t found = FS_NONE;
                for (size_t d = depth; d-- > 0;) {
                    if (c->items[stack[d]].end >= it->ts) {
                        found = stack[d];
                        break;
                    }
                }
                if (found != FS_NONE || c->kind[it->row] == K_S)
                    c->bind[i] = found;
                c->parent[i] = FS_NONE;
                continue;
            }
            while (depth && c->items[stack[depth - 1]].end <= it->ts)
                depth--;
            uint32_t p = depth ? stack[depth - 1] : FS_NONE;
            c->parent[i] = p;
            c->self[i] = it->end - it->ts;
            c->bind[i] = FS_NONE;
            if (p != FS_NONE) {
                int64_t e = it->end < c->items[p].end ? it->end : c->items[p].end;
                c->self[p] -= e - it->ts;
            }
            stack[depth++] = (uint32_t)i;
        }
    }
    free(stack);
    return fs_poll(c);
}

/* ---- groups ----------------------------------------------------------------------------------------- */

typedef struct fs_groups {
    uint32_t *by_name; /* name code → index + 1 of the group of its first category (0 = none yet) */
    fs_map map;        /* (name code · ncat + cat code) → index, for the other categories */
    fs_op *ops;
    size_t n, cap;
} fs_groups;

static int fs_groups_init(const fs_ctx *c, fs_groups *g)
{
    memset(g, 0, sizeof *g);
    uint32_t nname = table_dict_size(c->t, FM_EV_NAME);
    g->by_name = calloc(nname ? nname : 1, sizeof *g->by_name);
    return g->by_name && fs_map_init(&g->map, 16) == 0 ? 0 : -1;
}

static void fs_groups_free(fs_groups *g)
{
    free(g->by_name);
    fs_map_free(&g->map);
    free(g->ops);
    memset(g, 0, sizeof *g);
}

static fs_op *fs_group(fs_ctx *c, fs_groups *g, uint32_t row)
{
    uint32_t nc = table_code(c->t, FM_EV_NAME, row), cc = table_code(c->t, FM_EV_CAT, row);
    uint32_t cat = table_dict_id(c->t, FM_EV_CAT, cc);
    uint32_t first = g->by_name[nc];
    if (first && g->ops[first - 1].cat == cat)
        return &g->ops[first - 1];
    uint32_t none = FS_NONE, *slot = first ? fs_map_put(&g->map, (uint64_t)nc * (c->ncat ? c->ncat : 1) + cc, 1) : &none;
    if (!slot)
        return NULL;
    if (*slot == FS_NONE) {
        if (g->n == g->cap) {
            size_t cap = g->cap ? g->cap * 2 : 64;
            fs_op *ops = realloc(g->ops, cap * sizeof *ops);
            if (!ops)
                return NULL;
            g->ops = ops;
            g->cap = cap;
        }
        *slot = (uint32_t)g->n;
        if (!first)
            g->by_name[nc] = (uint32_t)g->n + 1;
        g->ops[g->n++] = (fs_op){table_dict_id(c->t, FM_EV_NAME, nc), cat, 0, 0, 0};
    }
    return &g->ops[*slot];
}

/* Comparators take the model as qsort_r context (GNU; _GNU_SOURCE is set project-wide). */
static int fs_strcmp_ids(const framework_model *m, uint32_t a, uint32_t b)
{
    size_t la, lb;
    const char *sa = framework_model_str(m, a, &la), *sb = framework_model_str(m, b, &lb);
    int r = memcmp(sa, sb, la < lb ? la : lb);
    return r ? r : (la > lb) - (la < lb);
}

/* By self time (then total) descending, then name, then category. */
static int fs_op_cmp(const void *pa, const void *pb, void *m)
{
    const fs_op *a = pa, *b = pb;
    if (a->self_ns != b->self_ns)
        return a->self_ns > b->self_ns ? -1 : 1;
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    int r = fs_strcmp_ids(m, a->name, b->name);
    return r ? r : fs_strcmp_ids(m, a->cat, b->cat);
}

static int fs_count_cmp(const void *pa, const void *pb, void *m)
{
    const fs_count *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return fs_strcmp_ids(m, a->id, b->id);
}

static int fs_busy_cmp(const void *pa, const void *pb, void *m)
{
    const fs_busy *a = pa, *b = pb;
    if (a->busy_ns != b->busy_ns)
        return a->busy_ns > b->busy_ns ? -1 : 1;
    int r = fs_strcmp_ids(m, a->pid, b->pid);
    return r ? r : fs_strcmp_ids(m, a->tid, b->tid);
}

static void fs_sort(const framework_model *m, void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *, void *))
{
    if (n > 1)
        qsort_r(base, n, size, cmp, (void *)(uintptr_t)m);
}

/* ---- phase 4-5: host ops, device spans, links --------------------------------------------------------- */

static int fs_host_ops(fs_ctx *c)
{
    framework_summary *o = c->out;
    fs_groups g, copies;
    uint8_t *thread_seen = calloc(c->nthreads ? c->nthreads : 1, 1);
    int ok_g = fs_groups_init(c, &g) == 0, ok_c = fs_groups_init(c, &copies) == 0;
    if (!thread_seen || !ok_g || !ok_c)
        goto nomem;
    for (size_t i = 0; i < c->nitems; i++) {
        const fs_item *it = &c->items[i];
        if (c->kind[it->row] != K_HOST)
            continue;
        o->host_spans++;
        if (!thread_seen[it->thread]) {
            thread_seen[it->thread] = 1;
            o->host_threads++;
        }
        fs_op *op = fs_group(c, &g, it->row);
        if (!op)
            goto nomem;
        op->count++;
        op->total_ns += it->end - it->ts;
        op->self_ns += c->self[i];
        uint8_t nf = c->name_flags[table_code(c->t, FM_EV_NAME, it->row)];
        if (nf & FS_NAME_COMPILED) {
            o->compiled_regions++;
            o->compiled_region_ns += it->end - it->ts;
        }
        if (nf & FS_NAME_HOST_COPY) {
            fs_op *cp = fs_group(c, &copies, it->row);
            if (!cp)
                goto nomem;
            cp->count++;
            cp->total_ns += it->end - it->ts;
            cp->self_ns += c->self[i];
        }
    }
    fs_sort(c->m, g.ops, g.n, sizeof *g.ops, fs_op_cmp);
    fs_sort(c->m, copies.ops, copies.n, sizeof *copies.ops, fs_op_cmp);
    o->host_ops = g.ops;
    o->nhost_ops = g.n;
    o->host_copy_ops = copies.ops;
    o->nhost_copy_ops = copies.n;
    g.ops = copies.ops = NULL;
    fs_groups_free(&g);
    fs_groups_free(&copies);
    free(thread_seen);
    return 0;
nomem:
    fs_groups_free(&g);
    fs_groups_free(&copies);
    free(thread_seen);
    return fs_nomem(c, "host ops");
}

/* An id of `row` in column col (flag bits have/text): 1 and key/tag when present. */
static int fs_id(const fs_ctx *c, size_t row, uint32_t col, uint64_t have, uint64_t text, uint64_t *key,
                 uint8_t *tag)
{
    uint64_t fl = c->flags[row];
    if (!(fl & have))
        return 0;
    *key = table_u64(c->t, col, row);
    *tag = (fl & text) ? 2 : 1;
    return 1;
}

/* The op a launch span counts for: itself or its nearest non-launch ancestor (the launch when none). */
static uint32_t fs_op_of(const fs_ctx *c, uint32_t launch)
{
    for (uint32_t i = launch; i != FS_NONE; i = c->parent[i]) {
        unsigned tr = c->cat_traits[table_code(c->t, FM_EV_CAT, c->items[i].row)];
        if (!(tr & FM_CAT_LAUNCH))
            return i;
    }
    return launch;
}

static void fs_busy_init(fs_busy *b, uint32_t pid, uint32_t tid, uint32_t name)
{
    memset(b, 0, sizeof *b);
    b->pid = pid;
    b->tid = tid;
    b->name = name;
}

/* Sort by start and merge v in place; returns the merged count; fills busy/gap figures of b. */
static size_t fs_merge(interval *v, size_t n, fs_busy *b)
{
    b->busy_ns = interval_union(v, n); /* sorts v by start */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].end <= v[i].start)
            continue;
        if (k && v[i].start <= v[k - 1].end) {
            if (v[i].end > v[k - 1].end)
                v[k - 1].end = v[i].end;
            continue;
        }
        v[k++] = v[i];
    }
    for (size_t i = 1; i < k; i++) {
        int64_t gap = v[i].start - v[i - 1].end;
        b->gaps++;
        b->gap_total_ns += gap;
        if (gap > b->gap_max_ns) {
            b->gap_max_ns = gap;
            b->gap_max_at_ns = v[i - 1].end;
        }
    }
    return k;
}

static void fs_span_stats(fs_busy *b, int64_t ts, int64_t end)
{
    if (!b->spans || ts < b->first_ns)
        b->first_ns = ts;
    if (!b->spans || end > b->last_ns)
        b->last_ns = end;
    b->spans++;
    b->sum_ns += end - ts;
}

/* Busy time per stream (thread), per device (process) and overall. */
static int fs_busy_all(fs_ctx *c)
{
    framework_summary *o = c->out;
    size_t nproc = framework_model_process_count(c->m);
    interval_vec *per_proc = calloc(nproc ? nproc : 1, sizeof *per_proc);
    fs_busy *procs = calloc(nproc ? nproc : 1, sizeof *procs);
    fs_busy *streams = NULL;
    size_t nstreams = 0, scap = 0;
    int rc = -1;
    if (!per_proc || !procs)
        goto out;
    for (size_t p = 0; p < nproc; p++) {
        const framework_model_process *fp = framework_model_process_at(c->m, p);
        fs_busy_init(&procs[p], fp->pid, 0, fp->name ? fp->name : fp->labels);
        o->device_processes += fp->device != FM_HOST;
    }
    for (size_t t = 0; t < c->nthreads; t++) {
        fs_busy s;
        const framework_model_thread *ft = framework_model_thread_at(c->m, t);
        fs_busy_init(&s, ft->pid, ft->tid, ft->name);
        interval_vec iv = {0};
        for (size_t i = c->starts[t]; i < c->starts[t + 1]; i++) {
            const fs_item *it = &c->items[i];
            if (c->kind[it->row] != K_DEV)
                continue;
            fs_span_stats(&s, it->ts, it->end);
            fs_span_stats(&procs[ft->process], it->ts, it->end);
            if (interval_vec_push(&iv, it->ts, it->end) != 0 ||
                interval_vec_push(&per_proc[ft->process], it->ts, it->end) != 0 ||
                interval_vec_push(&c->all_dev, it->ts, it->end) != 0) {
                interval_vec_free(&iv);
                goto out;
            }
        }
        if (!s.spans)
            continue;
        fs_merge(iv.v, iv.n, &s);
        interval_vec_free(&iv);
        o->streams_total++;
        if (nstreams == scap) {
            size_t cap = scap ? scap * 2 : 16;
            fs_busy *grown = realloc(streams, cap * sizeof *grown);
            if (!grown)
                goto out;
            streams = grown;
            scap = cap;
        }
        streams[nstreams++] = s;
    }
    /* devices */
    o->devices = calloc(nproc ? nproc : 1, sizeof *o->devices);
    if (!o->devices)
        goto out;
    for (size_t p = 0; p < nproc; p++) {
        if (!procs[p].spans)
            continue;
        fs_merge(per_proc[p].v, per_proc[p].n, &procs[p]);
        o->devices[o->ndevices++] = procs[p];
    }
    fs_sort(c->m, o->devices, o->ndevices, sizeof *o->devices, fs_busy_cmp);
    if (o->ndevices > FS_DEVICES_MAX)
        o->ndevices = FS_DEVICES_MAX;
    fs_sort(c->m, streams, nstreams, sizeof *streams, fs_busy_cmp);
    o->streams = streams;
    o->nstreams = nstreams < FS_STREAMS_MAX ? nstreams : FS_STREAMS_MAX;
    streams = NULL;
    /* overall: sorted and merged in place, kept for the steps */
    fs_busy all;
    fs_busy_init(&all, 0, 0, 0);
    c->all_dev.n = fs_merge(c->all_dev.v, c->all_dev.n, &all);
    o->device_busy_ns = all.busy_ns;
    rc = 0;
out:
    for (size_t p = 0; per_proc && p < nproc; p++)
        interval_vec_free(&per_proc[p]);
    free(per_proc);
    free(procs);
    free(streams);
    return rc == 0 ? 0 : fs_nomem(c, "busy time");
}

static int64_t fs_lat_pick(const int64_t *v, size_t n, unsigned q_percent)
{
    size_t idx = (q_percent * n + 99) / 100; /* ceil(q·n) */
    return v[idx ? idx - 1 : 0];
}

static int fs_i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

static void fs_latency_stats(fs_latency *l, int64_t *v, size_t n, fs_latency_basis basis)
{
    l->basis = basis;
    l->pairs = n;
    if (!n)
        return;
    qsort(v, n, sizeof *v, fs_i64_cmp);
    for (size_t i = 0; i < n; i++)
        l->negative += v[i] < 0;
    l->min_ns = v[0];
    l->max_ns = v[n - 1];
    l->median_ns = fs_lat_pick(v, n, 50);
    l->p90_ns = fs_lat_pick(v, n, 90);
}

static int fs_is_device_row(const fs_ctx *c, size_t row)
{
    const framework_model_process *p = framework_model_process_at(c->m, table_code(c->t, FM_EV_PID, row));
    return p && p->device != FM_HOST;
}

/* Keys of column col (flags have/text) of the items whose kind passes `want`; returns the count. */
static size_t fs_keys(const fs_ctx *c, fs_key *out, int (*want)(const fs_ctx *, uint32_t row), uint32_t col,
                      uint64_t have, uint64_t text)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nitems; i++) {
        uint32_t row = c->items[i].row;
        uint64_t key;
        uint8_t tag;
        if (want(c, row) && fs_id(c, row, col, have, text, &key, &tag))
            out[n++] = (fs_key){key, fs_hash(key, tag), tag, (uint32_t)i, row};
    }
    return n;
}

static int fs_want_host(const fs_ctx *c, uint32_t row)
{
    return c->kind[row] == K_HOST;
}

static int fs_want_host_op(const fs_ctx *c, uint32_t row)
{
    return c->kind[row] == K_HOST && !(c->cat_traits[table_code(c->t, FM_EV_CAT, row)] & FM_CAT_LAUNCH);
}

static int fs_want_host_s(const fs_ctx *c, uint32_t row)
{
    return c->kind[row] == K_S && !fs_is_device_row(c, row);
}

static int fs_want_device_f(const fs_ctx *c, uint32_t row)
{
    return c->kind[row] == K_F && fs_is_device_row(c, row);
}

static int fs_want_device(const fs_ctx *c, uint32_t row)
{
    return c->kind[row] == K_DEV;
}

/* A map from the keys of `want` items (first in file order wins). */
static int fs_build_map(const fs_ctx *c, fs_map *m, fs_key *keys, int (*want)(const fs_ctx *, uint32_t), uint32_t col,
                        uint64_t have, uint64_t text)
{
    size_t n = fs_keys(c, keys, want, col, have, text);
    if (fs_map_init(m, n) != 0)
        return -1;
    fs_map_put_first(m, keys, n);
    return 0;
}

/* Copies and memsets among device spans. */
static void fs_count_copy(fs_ctx *c, uint32_t row, int64_t len)
{
    framework_summary *o = c->out;
    uint32_t nc = table_code(c->t, FM_EV_NAME, row), dc = table_code(c->t, FM_EV_DETAIL, row);
    if (c->name_copy[nc] == FS_COPY_UNKNOWN) {
        size_t nlen;
        const char *ns = fs_str(c, FM_EV_NAME, nc, &nlen);
        c->name_copy[nc] = (int8_t)fs_copy_kind_of(ns, nlen);
    }
    if (c->detail_copy[dc] == FS_COPY_UNKNOWN) {
        size_t dlen;
        const char *ds = fs_str(c, FM_EV_DETAIL, dc, &dlen);
        c->detail_copy[dc] = (int8_t)fs_copy_kind_of(ds, dlen);
    }
    int kind = c->name_copy[nc] >= 0 ? c->name_copy[nc] : c->detail_copy[dc];
    size_t clen;
    const char *cat = fs_str(c, FM_EV_CAT, table_code(c->t, FM_EV_CAT, row), &clen);
    if (kind < 0 && clen == 10 && memcmp(cat, "gpu_memcpy", 10) == 0)
        kind = FS_COPY_OTHER;
    fs_copy *cp = kind >= 0 ? &o->copies[kind] : clen == 10 && memcmp(cat, "gpu_memset", 10) == 0 ? &o->memsets : NULL;
    if (!cp)
        return;
    cp->count++;
    cp->dur_ns += len;
    if (c->flags[row] & FM_F_BYTES) {
        cp->with_bytes++;
        cp->bytes += table_u64(c->t, FM_EV_BYTES, row);
    }
}

static int fs_credit(fs_ctx *c, fs_groups *ops, uint32_t op, int64_t len)
{
    fs_op *g = fs_group(c, ops, c->items[op].row);
    if (!g)
        return -1;
    g->count++;
    g->total_ns += len;
    return 0;
}

static int fs_device(fs_ctx *c)
{
    framework_summary *o = c->out;
    size_t ni = c->nitems ? c->nitems : 1;
    fs_map corr = {0}, ext = {0}, flows = {0};
    fs_groups kernels, ops;
    fs_key *keys = malloc(ni * sizeof *keys);
    uint32_t *found = malloc(ni * sizeof *found), *launch = malloc(ni * sizeof *launch);
    uint32_t *flow_row = malloc(ni * sizeof *flow_row);
    int64_t *lat = malloc(ni * sizeof *lat);
    size_t nlat = 0, n;
    int rc = -1;
    int ok_k = fs_groups_init(c, &kernels) == 0, ok_o = fs_groups_init(c, &ops) == 0;
    if (!keys || !found || !launch || !flow_row || !lat || !ok_k || !ok_o ||
        fs_build_map(c, &corr, keys, fs_want_host, FM_EV_CORR, FM_F_CORR, FM_F_CORR_TEXT) ||
        fs_build_map(c, &flows, keys, fs_want_host_s, FM_EV_FLOW, FM_F_FLOW, FM_F_FLOW_TEXT))
        goto out;
    for (size_t i = 0; i < c->nitems; i++)
        launch[i] = FS_NONE;
    /* flows: latency pairs, and the launch of a device span through the first f (file order) bound to it */
    n = fs_keys(c, keys, fs_want_device_f, FM_EV_FLOW, FM_F_FLOW, FM_F_FLOW_TEXT);
    fs_map_get_all(&flows, keys, n, found);
    for (size_t j = 0; j < n; j++) {
        uint32_t s = found[j], i = keys[j].item;
        if (s == FS_NONE)
            continue;
        lat[nlat++] = c->items[i].ts - c->items[s].ts;
        uint32_t d = c->bind[i], l = c->bind[s];
        if (d == FS_NONE || l == FS_NONE || c->kind[c->items[d].row] != K_DEV || c->kind[c->items[l].row] != K_HOST)
            continue;
        if (launch[d] == FS_NONE || keys[j].row < flow_row[d]) {
            launch[d] = l;
            flow_row[d] = keys[j].row;
        }
    }
    fs_latency_stats(&o->latency, lat, nlat, nlat ? FS_LAT_FLOWS : FS_LAT_NONE);
    int use_corr_latency = nlat == 0;
    nlat = 0;
    /* correlation (preferred over a flow link) */
    n = fs_keys(c, keys, fs_want_device, FM_EV_CORR, FM_F_CORR, FM_F_CORR_TEXT);
    fs_map_get_all(&corr, keys, n, found);
    for (size_t j = 0; j < n; j++) {
        if (found[j] == FS_NONE)
            continue;
        launch[keys[j].item] = found[j];
        flow_row[keys[j].item] = UINT32_MAX; /* marks a correlation link */
    }
    /* device spans */
    size_t next = 0; /* spans left for an External id link, collected in keys[] */
    for (size_t i = 0; i < c->nitems; i++) {
        uint32_t row = c->items[i].row;
        if (c->kind[row] == K_DEVOTHER)
            o->device_other_spans++;
        if (c->kind[row] != K_DEV)
            continue;
        const fs_item *it = &c->items[i];
        int64_t len = it->end - it->ts;
        o->device_spans++;
        o->device_sum_ns += len;
        if (o->device_spans == 1 || it->ts < o->device_first_ns)
            o->device_first_ns = it->ts;
        if (o->device_spans == 1 || it->end > o->device_last_ns)
            o->device_last_ns = it->end;
        fs_op *k = fs_group(c, &kernels, row);
        if (!k)
            goto out;
        k->count++;
        k->total_ns += len;
        fs_count_copy(c, row, len);
        uint64_t key;
        uint8_t tag;
        if (launch[i] != FS_NONE) {
            if (flow_row[i] == UINT32_MAX) {
                o->linked_correlation++;
                if (use_corr_latency)
                    lat[nlat++] = it->ts - c->items[launch[i]].ts;
            } else {
                o->linked_flow++;
            }
            if (fs_credit(c, &ops, fs_op_of(c, launch[i]), len) != 0)
                goto out;
        } else if (fs_id(c, row, FM_EV_EXT, FM_F_EXT, FM_F_EXT_TEXT, &key, &tag)) {
            keys[next++] = (fs_key){key, fs_hash(key, tag), tag, (uint32_t)i, row};
        } else {
            o->unlinked++;
            o->unlinked_ns += len;
        }
    }
    /* External id, only when some device span needs it */
    if (next) {
        fs_key *hk = malloc(ni * sizeof *hk);
        if (!hk || fs_build_map(c, &ext, hk, fs_want_host_op, FM_EV_EXT, FM_F_EXT, FM_F_EXT_TEXT) != 0) {
            free(hk);
            goto out;
        }
        free(hk);
        fs_map_get_all(&ext, keys, next, found);
        for (size_t j = 0; j < next; j++) {
            const fs_item *it = &c->items[keys[j].item];
            if (found[j] == FS_NONE) {
                o->unlinked++;
                o->unlinked_ns += it->end - it->ts;
                continue;
            }
            o->linked_external++;
            if (fs_credit(c, &ops, found[j], it->end - it->ts) != 0)
                goto out;
        }
    }
    if (use_corr_latency && nlat)
        fs_latency_stats(&o->latency, lat, nlat, FS_LAT_CORRELATION);
    fs_sort(c->m, kernels.ops, kernels.n, sizeof *kernels.ops, fs_op_cmp);
    fs_sort(c->m, ops.ops, ops.n, sizeof *ops.ops, fs_op_cmp);
    o->kernels = kernels.ops;
    o->nkernels = kernels.n;
    o->device_ops = ops.ops;
    o->ndevice_ops = ops.n;
    kernels.ops = ops.ops = NULL;
    rc = 0;
out:
    fs_map_free(&corr);
    fs_map_free(&ext);
    fs_map_free(&flows);
    fs_groups_free(&kernels);
    fs_groups_free(&ops);
    free(keys);
    free(found);
    free(launch);
    free(flow_row);
    free(lat);
    return rc == 0 ? 0 : fs_nomem(c, "device time");
}

/* Length of the overlap of [a, b) with the merged, sorted intervals v[0..n). */
static int64_t fs_overlap(const interval *v, size_t n, int64_t a, int64_t b)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first interval ending after a */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].end <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t sum = 0;
    for (size_t i = lo; i < n && v[i].start < b; i++) {
        int64_t s = v[i].start > a ? v[i].start : a, e = v[i].end < b ? v[i].end : b;
        if (e > s)
            sum += e - s;
    }
    return sum;
}

static int fs_step_cmp(const void *pa, const void *pb)
{
    const fs_step *a = pa, *b = pb;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    if (a->dur_ns != b->dur_ns)
        return a->dur_ns > b->dur_ns ? -1 : 1;
    return (a->number > b->number) - (a->number < b->number);
}

static int fs_steps(fs_ctx *c)
{
    framework_summary *o = c->out;
    size_t cap = 0;
    for (size_t i = 0; i < c->nitems; i++) {
        const fs_item *it = &c->items[i];
        if (c->kind[it->row] != K_HOST || !(c->name_flags[table_code(c->t, FM_EV_NAME, it->row)] & FS_NAME_STEP))
            continue;
        if (o->nsteps == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            fs_step *s = realloc(o->steps, ncap * sizeof *s);
            if (!s)
                return fs_nomem(c, "steps");
            o->steps = s;
            cap = ncap;
        }
        size_t len;
        uint32_t name = table_str(c->t, FM_EV_NAME, it->row);
        const char *s = framework_model_str(c->m, name, &len);
        int64_t num = -1;
        if (len > 13 && len - 13 <= 18) {
            num = 0;
            for (size_t k = 13; k < len && num >= 0; k++)
                num = s[k] >= '0' && s[k] <= '9' ? num * 10 + (s[k] - '0') : -1;
        }
        o->steps[o->nsteps++] = (fs_step){name, num, it->ts, it->end - it->ts,
                                          fs_overlap(c->all_dev.v, c->all_dev.n, it->ts, it->end)};
    }
    if (o->nsteps) /* qsort(NULL, 0) is undefined behaviour */
        qsort(o->steps, o->nsteps, sizeof *o->steps, fs_step_cmp);
    o->steps_total = o->nsteps;
    if (o->nsteps > FS_STEPS_MAX)
        o->nsteps = FS_STEPS_MAX;
    return 0;
}

/* ---- entry points ------------------------------------------------------------------------------------- */

int framework_summary_compute(const framework_model *m, const atomic_int *cancel, framework_summary *out,
                              nl_error *err)
{
    memset(out, 0, sizeof *out);
    nl_error scratch;
    fs_ctx c = {.m = m, .t = framework_model_events(m), .cancel = cancel, .err = err ? err : &scratch, .out = out};
    c.n = framework_model_rows(m);
    c.row_thread = framework_model_row_threads(m);
    c.nthreads = framework_model_thread_count(m);
    out->events = c.n;
    int rc = -1;
    if (!c.row_thread && c.n)
        return nl_error_set(c.err, NL_ERR_INTERNAL, NULL, -1, "framework model not finished");
    c.ts = malloc((c.n ? c.n : 1) * sizeof *c.ts);
    c.end = malloc((c.n ? c.n : 1) * sizeof *c.end);
    c.kind = malloc(c.n ? c.n : 1);
    c.flags = malloc((c.n ? c.n : 1) * sizeof *c.flags);
    if (!c.ts || !c.end || !c.kind || !c.flags) {
        fs_nomem(&c, "columns");
        goto done;
    }
    if (fs_prepare_dicts(&c) || fs_classify(&c) || fs_poll(&c) || fs_pair_be(&c) || fs_walk(&c) ||
        fs_host_ops(&c) || fs_poll(&c) || fs_device(&c) || fs_busy_all(&c) || fs_steps(&c))
        goto done;
    fs_sort(m, out->phases, out->nphases, sizeof *out->phases, fs_count_cmp);
    fs_sort(m, out->cats, out->ncats, sizeof *out->cats, fs_count_cmp);
    rc = 0;
done:
    free(c.ts);
    free(c.end);
    free(c.kind);
    free(c.flags);
    free(c.ph_of);
    free(c.cat_traits);
    free(c.name_flags);
    free(c.name_copy);
    free(c.detail_copy);
    free(c.items);
    free(c.starts);
    free(c.parent);
    free(c.self);
    free(c.bind);
    interval_vec_free(&c.all_dev);
    if (rc != 0)
        framework_summary_free(out);
    return rc;
}

void framework_summary_free(framework_summary *s)
{
    if (!s)
        return;
    free(s->phases);
    free(s->cats);
    free(s->host_ops);
    free(s->devices);
    free(s->streams);
    free(s->kernels);
    free(s->device_ops);
    free(s->steps);
    free(s->host_copy_ops);
    memset(s, 0, sizeof *s);
}

size_t framework_summary_bytes(const framework_summary *s)
{
    return sizeof *s + (s->nphases + s->ncats) * sizeof(fs_count) +
           (s->nhost_ops + s->nkernels + s->ndevice_ops + s->nhost_copy_ops) * sizeof(fs_op) +
           (s->ndevices + s->nstreams) * sizeof(fs_busy) + s->nsteps * sizeof(fs_step);
}

const char *fs_copy_kind_name(int kind)
{
    static const char *const names[FS_COPY_KINDS] = {"host_to_device", "device_to_host", "device_to_device",
                                                     "host_to_host", "peer_to_peer", "other"};
    return kind >= 0 && kind < FS_COPY_KINDS ? names[kind] : "?";
}

const char *fs_latency_basis_name(fs_latency_basis b)
{
    return b == FS_LAT_FLOWS ? "flows" : b == FS_LAT_CORRELATION ? "correlation" : "none";
}
