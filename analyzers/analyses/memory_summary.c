/* memory_summary — see memory_summary.h for the definitions; this file says how.
 *
 * Snapshot state: one pass over segments and one over blocks, summed per (device, pool).
 *
 * Replay without an element list: allocated(t) = start + delta(t), where delta moves by ±size at each
 * alloc / free_completed, and start (what was held before the window) is only known at the end of the pass
 * (frees of unseen allocations, plus the snapshot's active_allocated blocks left unmatched). So one pass
 * over the device's rows keeps a map addr → live allocation (memory ∝ allocations live at once, not the
 * trace), the running delta, its first maximum and row, and the delta before each oom; start is added
 * afterwards. What was held at one point k (the peak, an oom) is a second pass with a fresh map: the map's
 * content when k is reached, allocations replaced at the same address before k (never freed, still held,
 * as in MemoryViz), frees after k of unseen allocations, and the unmatched snapshot blocks.
 * An allocation's order (for "the largest, earliest on ties") is its trace row (the alloc's, or the free's
 * for an allocation from before the window), then, after every row, the snapshot block's row.
 *
 * Sites: a frame's class is computed once per frame (the frames table is small: tens to hundreds of
 * distinct frames), a stack's site once per stack; sites are summed in an array indexed by frame id and
 * ranked with topn. */
#include "memory_summary.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topn.h"

/* ---- frame classes ------------------------------------------------------------------------------------ */

/* MemoryViz's frameFilter (torch/utils/viz/MemoryViz.js): substrings of the function name or the file. */
static const char *const msm_omit_names[] = {
    "unwind::unwind", "CapturedTraceback::gather", "gather_with_cpp", "_start", "__libc_start_main", "PyEval_",
    "PyObject_", "PyFunction_",
};
static const char *const msm_omit_files[] = {
    "core/boxing", "/Register", "/Redispatch", "pythonrun.c", "Modules/main.c", "Objects/call.c",
    "Objects/methodobject.c", "pycore_ceval.h", "ceval.c", "cpython/abstract.h",
};
/* Framework paths: lower case, '/' separators. */
static const char *const msm_framework_paths[] = {
    "/site-packages/", "/dist-packages/", "/lib/python", "<frozen", "/torch/",
};
/* Python source: user code can only be here; every other file (C/C++ sources, object files, "??") is native. */
static const char *const msm_python_ext[] = {".py", ".pyw"};

static bool msm_has(const char *s, size_t n, const char *pat)
{
    size_t k = strlen(pat);
    if (k > n)
        return false;
    return memmem(s, n, pat, k) != NULL;
}

/* Substring match on a path with case ignored and '\' read as '/'. */
static bool msm_path_has(const char *s, size_t n, const char *pat)
{
    size_t k = strlen(pat);
    for (size_t i = 0; i + k <= n; i++) {
        size_t j = 0;
        for (; j < k; j++) {
            char c = s[i + j];
            if (c == '\\')
                c = '/';
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            if (c != pat[j])
                break;
        }
        if (j == k)
            return true;
    }
    return false;
}

static bool msm_path_ends(const char *s, size_t n, const char *ext)
{
    size_t k = strlen(ext);
    return n >= k && strncasecmp(s + n - k, ext, k) == 0;
}

memory_frame_class memory_frame_classify(const memory_model *m, uint32_t frame)
{
    const table *fr = memory_model_frames(m);
    if (frame >= table_rows(fr))
        return MEMORY_FRAME_OMITTED;
    size_t nl = 0, fl = 0;
    const char *name = memory_model_str(m, table_str(fr, MM_FR_NAME, frame), &nl);
    const char *file = memory_model_str(m, table_str(fr, MM_FR_FILENAME, frame), &fl);
    if (!name)
        name = "", nl = 0;
    if (!file)
        file = "", fl = 0;
    for (size_t i = 0; i < sizeof msm_omit_names / sizeof msm_omit_names[0]; i++)
        if (msm_has(name, nl, msm_omit_names[i]))
            return MEMORY_FRAME_OMITTED;
    for (size_t i = 0; i < sizeof msm_omit_files / sizeof msm_omit_files[0]; i++)
        if (msm_has(file, fl, msm_omit_files[i]))
            return MEMORY_FRAME_OMITTED;
    bool python = fl > 0 && file[0] == '<'; /* <string>, <stdin>, <ipython-input-...> */
    for (size_t i = 0; i < sizeof msm_python_ext / sizeof msm_python_ext[0]; i++)
        python = python || msm_path_ends(file, fl, msm_python_ext[i]);
    if (!python)
        return MEMORY_FRAME_NATIVE;
    for (size_t i = 0; i < sizeof msm_framework_paths / sizeof msm_framework_paths[0]; i++)
        if (msm_path_has(file, fl, msm_framework_paths[i]))
            return MEMORY_FRAME_FRAMEWORK;
    return MEMORY_FRAME_USER;
}

/* Class bits kept per frame: the memory_frame_class, plus MSM_BACKWARD for a name containing "Backward". */
#define MSM_CLASS 0x7fu
#define MSM_BACKWARD 0x80u

static uint8_t msm_frame_bits(const memory_model *m, uint32_t frame)
{
    uint8_t c = (uint8_t)memory_frame_classify(m, frame);
    size_t nl = 0;
    const char *name = memory_model_str(m, table_str(memory_model_frames(m), MM_FR_NAME, frame), &nl);
    if (name && msm_has(name, nl, "Backward"))
        c |= MSM_BACKWARD;
    return c;
}

/* The site of `frames[0..n)` given each frame's class bits (rules in memory_summary.h). */
static void msm_site_of(const uint32_t *frames, uint32_t n, const uint8_t *cls, uint32_t *site, bool *user,
                        uint32_t *via)
{
    *site = MEMORY_SITE_NONE, *user = false, *via = MEMORY_SITE_NONE;
    uint32_t inside = MEMORY_SITE_NONE, py = MEMORY_SITE_NONE, bw = MEMORY_SITE_NONE, native = MEMORY_SITE_NONE;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t c = cls[i] & MSM_CLASS;
        if (c == MEMORY_FRAME_OMITTED)
            continue;
        if (c == MEMORY_FRAME_USER) {
            *site = frames[i];
            *user = true;
            *via = inside;
            return;
        }
        inside = frames[i];
        if (c == MEMORY_FRAME_FRAMEWORK && py == MEMORY_SITE_NONE)
            py = frames[i];
        if (c == MEMORY_FRAME_NATIVE && bw == MEMORY_SITE_NONE && (cls[i] & MSM_BACKWARD))
            bw = frames[i];
        if (c == MEMORY_FRAME_NATIVE && native == MEMORY_SITE_NONE)
            native = frames[i];
    }
    *site = py != MEMORY_SITE_NONE ? py : bw != MEMORY_SITE_NONE ? bw : native;
}

void memory_stack_site(const memory_model *m, uint32_t stack, uint32_t *frame, bool *user, uint32_t *via)
{
    uint32_t n;
    const uint32_t *fr = memory_model_stack(m, stack, &n);
    uint8_t *cls = n ? malloc(n) : NULL;
    if (n && !cls) {
        *frame = MEMORY_SITE_NONE, *user = false, *via = MEMORY_SITE_NONE;
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        cls[i] = msm_frame_bits(m, fr[i]);
    msm_site_of(fr, n, cls, frame, user, via);
    free(cls);
}

size_t memory_stack_fold(const memory_model *m, uint32_t stack, uint32_t *out, size_t cap, size_t *user)
{
    uint32_t n;
    const uint32_t *fr = memory_model_stack(m, stack, &n);
    size_t k = 0, u = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            memory_frame_class c = memory_frame_classify(m, fr[i]);
            if (c == MEMORY_FRAME_OMITTED || (c == MEMORY_FRAME_USER) != (pass == 0))
                continue;
            if (k < cap)
                out[k] = fr[i];
            k++;
            if (pass == 0)
                u++;
        }
    }
    if (user)
        *user = u;
    return k;
}

const char *memory_peak_source_name(memory_peak_source s)
{
    return s == MEMORY_PEAK_TRACE ? "trace" : "at_snapshot";
}

/* ---- context ------------------------------------------------------------------------------------------ */

typedef struct msm_acc {
    int64_t bytes, best_size, best_order;
    uint64_t count;
    uint32_t best_stack;
} msm_acc;

typedef struct msm_ctx {
    const memory_model *m;
    const table *segs, *blks, *tr;
    size_t top;
    const atomic_int *cancel;
    uint64_t poll;
    uint8_t *frame_cls;       /* by frame id */
    uint32_t nframes;
    uint32_t *site_frame;     /* by stack id; site_done marks computed entries */
    uint32_t *site_via;
    uint8_t *site_user, *site_done;
    msm_acc *acc;             /* by site frame id + 1 (0 = no frame) */
    uint32_t *touched;        /* acc slots in use */
    size_t ntouched;
    nl_error *err;
} msm_ctx;

static int msm_nomem(msm_ctx *c)
{
    return nl_error_set(c->err, NL_ERR_NOMEM, NULL, -1, "out of memory summarizing a memory snapshot");
}

static int msm_poll(msm_ctx *c)
{
    if (c->cancel && ++c->poll % MEMORY_SUMMARY_POLL == 0 && atomic_load(c->cancel))
        return nl_error_set(c->err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
    return 0;
}

static void msm_stack_site(msm_ctx *c, uint32_t stack, uint32_t *site, bool *user, uint32_t *via)
{
    if (!c->site_done[stack]) {
        uint32_t n;
        const uint32_t *fr = memory_model_stack(c->m, stack, &n);
        uint8_t cls[256] = {0};
        uint8_t *cl = n <= sizeof cls ? cls : malloc(n);
        if (!cl) {
            *site = MEMORY_SITE_NONE, *user = false, *via = MEMORY_SITE_NONE;
            return;
        }
        for (uint32_t i = 0; i < n; i++)
            cl[i] = fr[i] < c->nframes ? c->frame_cls[fr[i]] : MEMORY_FRAME_OMITTED;
        bool u;
        msm_site_of(fr, n, cl, &c->site_frame[stack], &u, &c->site_via[stack]);
        c->site_user[stack] = u;
        c->site_done[stack] = 1;
        if (cl != cls)
            free(cl);
    }
    *site = c->site_frame[stack];
    *user = c->site_user[stack];
    *via = c->site_via[stack];
}

/* ---- site accumulation -------------------------------------------------------------------------------- */

static void msm_add(msm_ctx *c, int64_t size, uint32_t stack, int64_t order)
{
    uint32_t site, via;
    bool user;
    if (stack >= memory_model_stack_count(c->m))
        stack = 0;
    msm_stack_site(c, stack, &site, &user, &via);
    uint32_t slot = site == MEMORY_SITE_NONE ? 0 : site + 1;
    msm_acc *a = &c->acc[slot];
    if (a->count == 0) {
        c->touched[c->ntouched++] = slot;
        a->best_size = size;
        a->best_order = order;
        a->best_stack = stack;
    } else if (size > a->best_size || (size == a->best_size && order < a->best_order)) {
        a->best_size = size;
        a->best_order = order;
        a->best_stack = stack;
    }
    a->bytes += size;
    a->count++;
}

/* Compare two frames' (filename, line, name) bytewise; MEMORY_SITE_NONE sorts as ("", -1, ""). */
static int msm_key_cmp(const memory_model *m, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    const table *fr = memory_model_frames(m);
    size_t la = 0, lb = 0;
    const char *fa = a == MEMORY_SITE_NONE ? "" : memory_model_str(m, table_str(fr, MM_FR_FILENAME, a), &la);
    const char *fb = b == MEMORY_SITE_NONE ? "" : memory_model_str(m, table_str(fr, MM_FR_FILENAME, b), &lb);
    int r = memcmp(fa, fb, la < lb ? la : lb);
    if (r || la != lb)
        return r ? r : (la < lb ? -1 : 1);
    int64_t na = a == MEMORY_SITE_NONE ? -1 : table_i64(fr, MM_FR_LINE, a);
    int64_t nb = b == MEMORY_SITE_NONE ? -1 : table_i64(fr, MM_FR_LINE, b);
    if (na != nb)
        return na < nb ? -1 : 1;
    fa = a == MEMORY_SITE_NONE ? "" : memory_model_str(m, table_str(fr, MM_FR_NAME, a), &la);
    fb = b == MEMORY_SITE_NONE ? "" : memory_model_str(m, table_str(fr, MM_FR_NAME, b), &lb);
    if (a == MEMORY_SITE_NONE)
        la = 0;
    if (b == MEMORY_SITE_NONE)
        lb = 0;
    r = memcmp(fa, fb, la < lb ? la : lb);
    if (r || la != lb)
        return r ? r : (la < lb ? -1 : 1);
    return a < b ? -1 : 1;
}

static int msm_site_cmp(const void *pa, const void *pb, const void *ctx)
{
    const memory_site *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return msm_key_cmp(ctx, a->frame, b->frame);
}

/* Rank the accumulated sites into *out and reset the accumulators. */
static int msm_collect(msm_ctx *c, memory_sites *out)
{
    memset(out, 0, sizeof *out);
    topn h;
    if (topn_init(&h, sizeof(memory_site), c->top, msm_site_cmp, c->m) != 0)
        return msm_nomem(c);
    int64_t all_bytes = 0;
    uint64_t all_count = 0;
    for (size_t i = 0; i < c->ntouched; i++) {
        msm_acc *a = &c->acc[c->touched[i]];
        memory_site s = {.frame = c->touched[i] == 0 ? MEMORY_SITE_NONE : c->touched[i] - 1, .stack = a->best_stack,
                         .bytes = a->bytes, .count = a->count};
        uint32_t site;
        msm_stack_site(c, a->best_stack, &site, &s.user, &s.via);
        all_bytes += a->bytes;
        all_count += a->count;
        topn_offer(&h, &s);
        memset(a, 0, sizeof *a);
    }
    out->total_sites = c->ntouched;
    c->ntouched = 0;
    size_t n = topn_finish(&h);
    if (n) {
        out->top = malloc(n * sizeof *out->top);
        if (!out->top) {
            topn_close(&h);
            return msm_nomem(c);
        }
    }
    for (size_t i = 0; i < n; i++) {
        out->top[i] = *(const memory_site *)topn_at(&h, i);
        all_bytes -= out->top[i].bytes;
        all_count -= out->top[i].count;
    }
    out->count = n;
    out->other_bytes = all_bytes;
    out->other_count = all_count;
    topn_close(&h);
    return 0;
}

/* ---- the live-allocation map -------------------------------------------------------------------------- */

typedef struct msm_live {
    int64_t addr; /* key */
    int64_t size;
    int64_t order;
    uint32_t stack;
    uint32_t used;
} msm_live;

typedef struct msm_map {
    msm_live *slots;
    size_t cap, n; /* cap a power of two, load ≤ 1/2 */
} msm_map;

static size_t msm_hash(int64_t addr, size_t mask)
{
    uint64_t x = (uint64_t)addr;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x & mask;
}

static msm_live *msm_find(msm_map *mp, int64_t addr)
{
    if (!mp->cap)
        return NULL;
    size_t mask = mp->cap - 1;
    for (size_t i = msm_hash(addr, mask);; i = (i + 1) & mask) {
        if (!mp->slots[i].used)
            return NULL;
        if (mp->slots[i].addr == addr)
            return &mp->slots[i];
    }
}

static int msm_put(msm_map *mp, const msm_live *e)
{
    if ((mp->n + 1) * 2 > mp->cap) {
        size_t nc = mp->cap ? mp->cap * 2 : 1024;
        msm_live *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < mp->cap; i++) {
            if (!mp->slots[i].used)
                continue;
            size_t j = msm_hash(mp->slots[i].addr, nc - 1);
            while (ns[j].used)
                j = (j + 1) & (nc - 1);
            ns[j] = mp->slots[i];
        }
        free(mp->slots);
        mp->slots = ns;
        mp->cap = nc;
    }
    size_t mask = mp->cap - 1;
    size_t i = msm_hash(e->addr, mask);
    while (mp->slots[i].used)
        i = (i + 1) & mask;
    mp->slots[i] = *e;
    mp->slots[i].used = 1;
    mp->n++;
    return 0;
}

/* Remove a slot (backward-shift deletion keeps probe chains intact). */
static void msm_del(msm_map *mp, msm_live *s)
{
    size_t mask = mp->cap - 1;
    size_t i = (size_t)(s - mp->slots);
    mp->slots[i].used = 0;
    mp->n--;
    for (size_t j = (i + 1) & mask; mp->slots[j].used; j = (j + 1) & mask) {
        size_t home = msm_hash(mp->slots[j].addr, mask);
        /* move j back to i when its home is not in (i, j] cyclically */
        bool move = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (move) {
            mp->slots[i] = mp->slots[j];
            mp->slots[j].used = 0;
            i = j;
        }
    }
}

static void msm_map_free(msm_map *mp)
{
    free(mp->slots);
    memset(mp, 0, sizeof *mp);
}

/* ---- one device --------------------------------------------------------------------------------------- */

typedef struct msm_row {
    uint8_t action;
    int64_t addr, size, time;
    uint32_t frames;
    uint64_t flags;
} msm_row;

static void msm_read_row(const table *tr, size_t r, msm_row *x)
{
    x->action = (uint8_t)table_u64(tr, MM_TR_ACTION, r);
    x->addr = table_i64(tr, MM_TR_ADDR, r);
    x->size = table_i64(tr, MM_TR_SIZE, r);
    x->time = table_i64(tr, MM_TR_TIME_US, r);
    x->frames = (uint32_t)table_u64(tr, MM_TR_FRAMES, r);
    x->flags = table_u64(tr, MM_TR_FLAGS, r);
}

/* Segment rows of device d are found by scanning; devices are few. */
static bool msm_seg_on(const msm_ctx *c, size_t s, uint32_t d)
{
    return table_i64(c->segs, MM_SEG_DEVICE, s) == (int64_t)d;
}

/* Add every unmatched active_allocated block of device d (not live in mp) to the sites. */
static int64_t msm_blocks_unmatched(msm_ctx *c, uint32_t d, msm_map *mp, bool add, uint64_t *count, size_t order0)
{
    int64_t sum = 0;
    size_t nseg = table_rows(c->segs);
    for (size_t s = 0; s < nseg; s++) {
        if (!msm_seg_on(c, s, d))
            continue;
        size_t b0 = (size_t)table_u64(c->segs, MM_SEG_FIRST_BLOCK, s);
        size_t nb = (size_t)table_u64(c->segs, MM_SEG_BLOCKS, s);
        for (size_t b = b0; b < b0 + nb; b++) {
            if (table_u64(c->blks, MM_BLK_STATE, b) != MM_BLOCK_ACTIVE_ALLOCATED)
                continue;
            if (msm_find(mp, table_i64(c->blks, MM_BLK_ADDRESS, b)))
                continue;
            int64_t size = table_i64(c->blks, MM_BLK_REQUESTED_SIZE, b);
            sum += size;
            if (count)
                (*count)++;
            if (add)
                msm_add(c, size, (uint32_t)table_u64(c->blks, MM_BLK_FRAMES, b), (int64_t)(order0 + b));
        }
    }
    return sum;
}

/* What was held right after trace row `k` of the device's rows [first, first+n) (k = -1: before the first
 * row; for an oom, the row before it), summed into the accumulators. */
static int msm_held_at(msm_ctx *c, uint32_t d, size_t first, size_t n, int64_t k, memory_sites *out)
{
    msm_map mp = {0};
    int rc = -1;
    msm_row x, prev = {.action = MM_ACT_COUNT};
    int64_t prev_row = -1;
    if (k < 0) /* nothing from the window is held yet */
        goto snap;
    for (size_t i = 0; i < n; i++) {
        if (msm_poll(c) != 0)
            goto out;
        size_t r = first + i;
        msm_read_row(c->tr, r, &x);
        if (x.action == MM_ACT_ALLOC) {
            msm_live *old = msm_find(&mp, x.addr);
            if (old) { /* replaced without a free: held from then on (after k it is in the map at k) */
                if ((int64_t)i <= k)
                    msm_add(c, old->size, old->stack, old->order);
                msm_del(&mp, old);
            }
            msm_live e = {.addr = x.addr, .size = x.size, .order = (int64_t)r, .stack = x.frames};
            if (msm_put(&mp, &e) != 0)
                goto nomem;
        } else if (x.action == MM_ACT_FREE_COMPLETED) {
            msm_live *e = msm_find(&mp, x.addr);
            if (e) {
                msm_del(&mp, e);
            } else if ((int64_t)i > k) { /* allocated before the window, still held at k */
                bool merged = prev.action == MM_ACT_FREE_REQUESTED && prev.addr == x.addr && prev_row >= 0;
                msm_add(c, merged ? prev.size : x.size, merged ? prev.frames : x.frames,
                        merged ? prev_row : (int64_t)r);
            }
        }
        prev = x;
        prev_row = (int64_t)r;
        if ((int64_t)i == k) { /* the held set at k: every live allocation */
            for (size_t s = 0; s < mp.cap; s++)
                if (mp.slots[s].used)
                    msm_add(c, mp.slots[s].size, mp.slots[s].stack, mp.slots[s].order);
        }
    }
    goto blocks;
snap:
    for (size_t i = 0; i < n; i++) { /* k = -1: every free of an unseen allocation is held at the start */
        if (msm_poll(c) != 0)
            goto out;
        size_t r = first + i;
        msm_read_row(c->tr, r, &x);
        if (x.action == MM_ACT_ALLOC) {
            msm_live *old = msm_find(&mp, x.addr);
            if (old)
                msm_del(&mp, old);
            msm_live e = {.addr = x.addr, .size = x.size, .order = (int64_t)r, .stack = x.frames};
            if (msm_put(&mp, &e) != 0)
                goto nomem;
        } else if (x.action == MM_ACT_FREE_COMPLETED) {
            msm_live *e = msm_find(&mp, x.addr);
            if (e) {
                msm_del(&mp, e);
            } else {
                bool merged = prev.action == MM_ACT_FREE_REQUESTED && prev.addr == x.addr && prev_row >= 0;
                msm_add(c, merged ? prev.size : x.size, merged ? prev.frames : x.frames,
                        merged ? prev_row : (int64_t)r);
            }
        }
        prev = x;
        prev_row = (int64_t)r;
    }
blocks:
    msm_blocks_unmatched(c, d, &mp, true, NULL, table_rows(c->tr));
    rc = msm_collect(c, out);
    goto out;
nomem:
    rc = msm_nomem(c);
out:
    msm_map_free(&mp);
    if (rc != 0)
        c->ntouched = 0;
    return rc;
}

static void msm_pool_add_segment(memory_pool_bytes *p, const msm_ctx *c, size_t s)
{
    p->segments++;
    p->reserved += table_i64(c->segs, MM_SEG_TOTAL_SIZE, s);
    p->allocated += table_i64(c->segs, MM_SEG_ALLOCATED_SIZE, s);
    p->active += table_i64(c->segs, MM_SEG_ACTIVE_SIZE, s);
    p->requested += table_i64(c->segs, MM_SEG_REQUESTED_SIZE, s);
}

static void msm_pool_add_block(memory_pool_bytes *p, const msm_ctx *c, size_t b)
{
    int64_t size = table_i64(c->blks, MM_BLK_SIZE, b);
    p->blocks++;
    switch (table_u64(c->blks, MM_BLK_STATE, b)) {
    case MM_BLOCK_ACTIVE_ALLOCATED:
        p->allocated_blocks++;
        p->block_allocated += size;
        p->block_requested += table_i64(c->blks, MM_BLK_REQUESTED_SIZE, b);
        break;
    case MM_BLOCK_ACTIVE_PENDING_FREE:
        p->pending_free_blocks++;
        p->pending_free += size;
        break;
    case MM_BLOCK_INACTIVE:
        p->inactive_blocks++;
        p->inactive += size;
        if (size > p->largest_inactive) {
            p->largest_inactive = size;
            p->largest_inactive_address = table_i64(c->blks, MM_BLK_ADDRESS, b);
        }
        break;
    default: break;
    }
}

static void msm_pool_merge(memory_pool_bytes *to, const memory_pool_bytes *p)
{
    to->segments += p->segments;
    to->blocks += p->blocks;
    to->reserved += p->reserved;
    to->allocated += p->allocated;
    to->active += p->active;
    to->requested += p->requested;
    to->inactive += p->inactive;
    to->pending_free += p->pending_free;
    to->inactive_blocks += p->inactive_blocks;
    to->pending_free_blocks += p->pending_free_blocks;
    to->allocated_blocks += p->allocated_blocks;
    to->block_allocated += p->block_allocated;
    to->block_requested += p->block_requested;
    if (p->largest_inactive > to->largest_inactive) {
        to->largest_inactive = p->largest_inactive;
        to->largest_inactive_address = p->largest_inactive_address;
    }
}

static void msm_state(msm_ctx *c, memory_device *dv)
{
    size_t nseg = table_rows(c->segs);
    for (size_t s = 0; s < nseg; s++) {
        if (!msm_seg_on(c, s, dv->device))
            continue;
        uint64_t t = table_u64(c->segs, MM_SEG_TYPE, s);
        memory_pool_bytes *p = &dv->pools[t < MM_SEGTYPE_COUNT ? t : MM_SEGTYPE_OTHER];
        msm_pool_add_segment(p, c, s);
        size_t b0 = (size_t)table_u64(c->segs, MM_SEG_FIRST_BLOCK, s);
        size_t nb = (size_t)table_u64(c->segs, MM_SEG_BLOCKS, s);
        for (size_t b = b0; b < b0 + nb; b++)
            msm_pool_add_block(p, c, b);
    }
    dv->largest_inactive_pool = MM_SEGTYPE_UNKNOWN;
    for (int t = 0; t < MM_SEGTYPE_COUNT; t++) {
        if (dv->pools[t].largest_inactive > dv->total.largest_inactive)
            dv->largest_inactive_pool = t;
        msm_pool_merge(&dv->total, &dv->pools[t]);
    }
}

/* The timeline of device d: peak, ooms (sizes and the held bytes). */
static int msm_replay(msm_ctx *c, memory_device *dv)
{
    size_t first, n;
    memory_model_trace_range(c->m, dv->device, &first, &n);
    memory_peak *pk = &dv->peak;
    msm_map mp = {0};
    int64_t delta = 0, best = 0, seg_delta = 0;
    int64_t best_row = -1;
    msm_row x, prev = {.action = MM_ACT_COUNT};
    int64_t frees_unseen = 0;
    size_t noom = 0;
    int64_t *oom_delta = NULL, *oom_seg = NULL;
    for (size_t i = 0; i < n; i++) {
        if (msm_poll(c) != 0)
            goto fail;
        size_t r = first + i;
        msm_read_row(c->tr, r, &x);
        dv->trace_entries++;
        dv->actions[x.action < MM_ACT_COUNT ? x.action : MM_ACT_OTHER]++;
        if (x.flags & MM_TR_F_TIME) {
            if (!dv->has_time || x.time < dv->first_time_us)
                dv->first_time_us = x.time;
            if (!dv->has_time || x.time > dv->last_time_us)
                dv->last_time_us = x.time;
            dv->has_time = true;
        }
        switch (x.action) {
        case MM_ACT_ALLOC: {
            msm_live *old = msm_find(&mp, x.addr);
            if (old)
                msm_del(&mp, old); /* replaced without a free: stays counted */
            msm_live e = {.addr = x.addr, .size = x.size, .order = (int64_t)r, .stack = x.frames};
            if (msm_put(&mp, &e) != 0)
                goto nomem;
            delta += x.size;
            pk->allocs++;
            if (delta > best) {
                best = delta;
                best_row = (int64_t)r;
            }
            break;
        }
        case MM_ACT_FREE_COMPLETED: {
            msm_live *e = msm_find(&mp, x.addr);
            pk->frees++;
            if (e) {
                delta -= e->size;
                msm_del(&mp, e);
            } else {
                bool merged = prev.action == MM_ACT_FREE_REQUESTED && prev.addr == x.addr;
                int64_t size = merged ? prev.size : x.size;
                delta -= size;
                frees_unseen += size;
                pk->frees_before_window++;
            }
            break;
        }
        case MM_ACT_SEGMENT_ALLOC: case MM_ACT_SEGMENT_MAP: seg_delta += x.size; break;
        case MM_ACT_SEGMENT_FREE: case MM_ACT_SEGMENT_UNMAP: seg_delta -= x.size; break;
        case MM_ACT_OOM:
            if (noom < MEMORY_SUMMARY_OOMS_MAX) {
                if (!oom_delta) {
                    oom_delta = malloc(MEMORY_SUMMARY_OOMS_MAX * sizeof *oom_delta);
                    oom_seg = malloc(MEMORY_SUMMARY_OOMS_MAX * sizeof *oom_seg);
                    dv->ooms = calloc(MEMORY_SUMMARY_OOMS_MAX, sizeof *dv->ooms);
                    if (!oom_delta || !oom_seg || !dv->ooms)
                        goto nomem;
                }
                memory_oom *o = &dv->ooms[noom];
                o->row = r;
                o->has_time = (x.flags & MM_TR_F_TIME) != 0;
                o->time_us = x.time;
                o->requested = x.size;
                o->device_free = x.addr;
                o->stream = table_i64(c->tr, MM_TR_STREAM, r);
                oom_delta[noom] = delta;
                oom_seg[noom] = seg_delta;
                noom++;
            }
            dv->oom_total++;
            break;
        default: break;
        }
        prev = x;
    }
    pk->start_bytes = frees_unseen + msm_blocks_unmatched(c, dv->device, &mp, false, &pk->blocks_before_window, 0);
    pk->end_bytes = pk->start_bytes + delta;
    pk->bytes = pk->start_bytes + best;
    pk->row = best_row;
    if (best_row >= 0 && (table_u64(c->tr, MM_TR_FLAGS, (size_t)best_row) & MM_TR_F_TIME)) {
        pk->has_time = true;
        pk->time_us = table_i64(c->tr, MM_TR_TIME_US, (size_t)best_row);
    }
    msm_map_free(&mp);
    dv->oom_count = noom;
    for (size_t k = 0; k < noom; k++) {
        memory_oom *o = &dv->ooms[k];
        o->allocated = pk->start_bytes + oom_delta[k];
        o->reserved = dv->total.reserved - (seg_delta - oom_seg[k]);
        o->fits_largest_free = dv->total.largest_inactive >= o->requested;
        if (k < MEMORY_SUMMARY_OOM_SITES_MAX &&
            msm_held_at(c, dv->device, first, n, (int64_t)(o->row - first) - 1, &o->sites) != 0)
            goto fail;
    }
    free(oom_delta);
    free(oom_seg);
    return msm_held_at(c, dv->device, first, n, best_row < 0 ? -1 : best_row - (int64_t)first, &pk->sites);
nomem:
    msm_nomem(c);
fail:
    msm_map_free(&mp);
    free(oom_delta);
    free(oom_seg);
    return -1;
}

/* No trace entries: the peak is the state at snapshot time. */
static int msm_at_snapshot(msm_ctx *c, memory_device *dv)
{
    memory_peak *pk = &dv->peak;
    pk->source = MEMORY_PEAK_AT_SNAPSHOT;
    pk->row = -1;
    msm_map none = {0};
    pk->bytes = msm_blocks_unmatched(c, dv->device, &none, true, &pk->blocks_before_window, 0);
    pk->start_bytes = pk->end_bytes = pk->bytes;
    return msm_collect(c, &pk->sites);
}

/* ---- entry -------------------------------------------------------------------------------------------- */

static void msm_free_sites(memory_sites *s)
{
    free(s->top);
    s->top = NULL;
}

void memory_summary_free(memory_summary *s)
{
    if (!s)
        return;
    for (size_t d = 0; d < s->device_count; d++) {
        memory_device *dv = &s->devices[d];
        msm_free_sites(&dv->peak.sites);
        for (size_t k = 0; k < dv->oom_count; k++)
            msm_free_sites(&dv->ooms[k].sites);
        free(dv->ooms);
    }
    free(s->devices);
    free(s);
}

static void msm_ctx_free(msm_ctx *c)
{
    free(c->frame_cls);
    free(c->site_frame);
    free(c->site_via);
    free(c->site_user);
    free(c->site_done);
    free(c->acc);
    free(c->touched);
}

int memory_summary_compute(const memory_model *m, const memory_summary_options *opt, const atomic_int *cancel,
                           memory_summary **out, nl_error *err)
{
    *out = NULL;
    size_t top = opt && opt->top_sites ? opt->top_sites : MEMORY_SUMMARY_SITES_DEFAULT;
    if (top > MEMORY_SUMMARY_SITES_MAX)
        return nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "top_sites %zu is over the cap of %u", top,
                            MEMORY_SUMMARY_SITES_MAX);
    msm_ctx c = {.m = m, .segs = memory_model_segments(m), .blks = memory_model_blocks(m),
                 .tr = memory_model_trace(m), .top = top, .cancel = cancel, .err = err};
    const memory_model_info *info = memory_model_info_of(m);
    c.nframes = (uint32_t)table_rows(memory_model_frames(m));
    uint32_t nstacks = memory_model_stack_count(m);
    memory_summary *s = calloc(1, sizeof *s);
    c.frame_cls = malloc((size_t)c.nframes + 1);
    c.site_frame = malloc((size_t)nstacks * sizeof *c.site_frame);
    c.site_via = malloc((size_t)nstacks * sizeof *c.site_via);
    c.site_user = malloc(nstacks);
    c.site_done = calloc(nstacks, 1);
    c.acc = calloc((size_t)c.nframes + 1, sizeof *c.acc);
    c.touched = malloc(((size_t)c.nframes + 1) * sizeof *c.touched);
    if (!s || !c.frame_cls || !c.site_frame || !c.site_via || !c.site_user || !c.site_done || !c.acc || !c.touched)
        goto nomem;
    for (uint32_t f = 0; f < c.nframes; f++)
        c.frame_cls[f] = msm_frame_bits(m, f);
    s->layout = info->layout;
    s->history = info->history;
    s->settings = *memory_model_settings(m);
    s->alloc_conf = s->settings.has_alloc_conf ? memory_model_str(m, s->settings.alloc_conf, NULL) : NULL;
    /* devices: every one with segments or trace entries */
    uint32_t ndev = info->devices;
    s->devices = calloc(ndev ? ndev : 1, sizeof *s->devices);
    if (!s->devices)
        goto nomem;
    for (uint32_t d = 0; d < ndev; d++) {
        size_t f0, cnt;
        memory_model_trace_range(m, d, &f0, &cnt);
        bool any = cnt > 0;
        for (size_t r = 0; !any && r < table_rows(c.segs); r++)
            any = msm_seg_on(&c, r, d);
        if (!any)
            continue;
        memory_device *dv = &s->devices[s->device_count++];
        dv->device = d;
        msm_state(&c, dv);
        msm_pool_merge(&s->total, &dv->total);
        int rc = cnt > 0 ? msm_replay(&c, dv) : msm_at_snapshot(&c, dv);
        if (rc != 0)
            goto fail;
    }
    msm_ctx_free(&c);
    *out = s;
    return 0;
nomem:
    msm_nomem(&c);
fail:
    msm_ctx_free(&c);
    memory_summary_free(s);
    return -1;
}
