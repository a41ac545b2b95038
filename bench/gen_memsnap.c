/* gen_memsnap — see gen_memsnap.h.
 *
 * Three parts:
 *   the workload — one step's script of tensor events (alloc, free, temporary = alloc then free) over
 *     L layers, each event tagged with the stack (site) that made it; step 0 first allocates the
 *     parameters and the Adam states;
 *   the allocator — blocks in one address-ordered array; best fit within the pool, split when the rest is
 *     worth keeping (≥ 512 B small, > 1 MiB large, as the CUDA caching allocator), merge free neighbours;
 *     a new segment (and a segment_alloc record) when nothing fits. Steps after step 0 run the same script,
 *     so once the block layout after a step equals the one after the step before, every later step repeats
 *     it: the records of that step are replayed instead of simulated (only the times differ);
 *   the writer — Python's protocol-4 layout (pickle.py _Pickler): PROTO unframed, then FRAMEs committed at op boundaries
 *     once ≥ 64 KiB (a final frame under 4 bytes gets no header), MEMOIZE after every str/dict/list/tuple,
 *     repeats as BINGET/LONG_BINGET, ints as BININT1/BININT2/BININT/LONG1 (minimal bytes), batches of 1000
 *     as MARK ... APPENDS/SETITEMS or one item + APPEND/SETITEM.
 * Sizes: with target_bytes, one steady step is written to a counting sink and the step count extrapolated
 * (a step's bytes vary only with the widths of time stamps).
 * Randomness: one gen_rng stream per (seed, rank): the gaps between time stamps, drawn in write order. */
#include "gen_memsnap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gen_out.h"
#include "gen_rng.h"

#define MIB ((int64_t)1 << 20)
#define KIB ((int64_t)1 << 10)
#define MS_LAYERS 4
#define MS_BATCH 1000u
#define MS_FRAME_TARGET ((size_t)64 << 10)
#define MS_DEVICE_MEMORY ((int64_t)24 << 30)
#define MS_OOM_REQUEST ((int64_t)16 << 30)
#define MS_SEG_BASE ((int64_t)0x7f2a00000000)
#define MS_TIME_BASE ((int64_t)1761000000000000)
#define MS_MAX_STEPS ((uint64_t)1 << 28)

const char *gen_ms_layout_name(gen_ms_layout l)
{
    return l == GEN_MS_V2_0 ? "v2_0" : "current";
}

/* ---- frames and stacks -------------------------------------------------------------------------------- */

#define FW "/opt/conda/lib/python3.11/site-packages/torch/"
#define USER_MODEL "/workspace/llm/model.py"
#define USER_TRAIN "/workspace/llm/train.py"

typedef struct ms_frame {
    const char *name, *file;
    int line;
} ms_frame;

enum {
    F_LINEAR, F_SOFTMAX, F_GELU, F_LAYER_NORM, F_SDPA, F_CALL_IMPL, F_WRAPPED, F_ADAM_MULTI, F_ADAM_STEP,
    F_OPT_WRAP, F_ENGINE_RUN, F_AUTOGRAD_BACKWARD, F_TENSOR_BACKWARD, F_ZEROS_LIKE, F_PARAM_EMPTY,
    F_ATTN_QKV, F_ATTN_SCORES, F_ATTN_OUT, F_MLP_UP, F_MLP_ACT, F_MLP_DOWN, F_NORM, F_BLOCK_FWD, F_MODEL_FWD,
    F_MODEL_INIT, F_TRAIN_STEP_FWD, F_TRAIN_STEP_BWD, F_TRAIN_STEP_OPT, F_MAIN, F_MODULE, F_RUN_CODE, F_COUNT
};

static const ms_frame ms_frames[F_COUNT] = {
    [F_LINEAR] = {"forward", FW "nn/modules/linear.py", 125},
    [F_SOFTMAX] = {"softmax", FW "nn/functional.py", 2140},
    [F_GELU] = {"gelu", FW "nn/functional.py", 1700},
    [F_LAYER_NORM] = {"layer_norm", FW "nn/functional.py", 2910},
    [F_SDPA] = {"scaled_dot_product_attention", FW "nn/functional.py", 5560},
    [F_CALL_IMPL] = {"_call_impl", FW "nn/modules/module.py", 1762},
    [F_WRAPPED] = {"_wrapped_call_impl", FW "nn/modules/module.py", 1751},
    [F_ADAM_MULTI] = {"_multi_tensor_adam", FW "optim/adam.py", 755},
    [F_ADAM_STEP] = {"step", FW "optim/adam.py", 247},
    [F_OPT_WRAP] = {"wrapper", FW "optim/optimizer.py", 485},
    [F_ENGINE_RUN] = {"_engine_run_backward", FW "autograd/graph.py", 824},
    [F_AUTOGRAD_BACKWARD] = {"backward", FW "autograd/__init__.py", 347},
    [F_TENSOR_BACKWARD] = {"backward", FW "_tensor.py", 648},
    [F_ZEROS_LIKE] = {"_init_group", FW "optim/adam.py", 175},
    [F_PARAM_EMPTY] = {"__init__", FW "nn/modules/linear.py", 106},
    [F_ATTN_QKV] = {"forward", USER_MODEL, 54},
    [F_ATTN_SCORES] = {"forward", USER_MODEL, 61},
    [F_ATTN_OUT] = {"forward", USER_MODEL, 66},
    [F_MLP_UP] = {"forward", USER_MODEL, 88},
    [F_MLP_ACT] = {"forward", USER_MODEL, 90},
    [F_MLP_DOWN] = {"forward", USER_MODEL, 93},
    [F_NORM] = {"forward", USER_MODEL, 40},
    [F_BLOCK_FWD] = {"forward", USER_MODEL, 120},
    [F_MODEL_FWD] = {"forward", USER_MODEL, 151},
    [F_MODEL_INIT] = {"__init__", USER_MODEL, 30},
    [F_TRAIN_STEP_FWD] = {"train_step", USER_TRAIN, 45},
    [F_TRAIN_STEP_BWD] = {"train_step", USER_TRAIN, 47},
    [F_TRAIN_STEP_OPT] = {"train_step", USER_TRAIN, 48},
    [F_MAIN] = {"main", USER_TRAIN, 101},
    [F_MODULE] = {"<module>", USER_TRAIN, 130},
    [F_RUN_CODE] = {"_run_code", "/opt/conda/lib/python3.11/runpy.py", 88},
};

#define MS_STACK_MAX 12
typedef struct ms_stack {
    int n;
    int f[MS_STACK_MAX];
} ms_stack;

/* Sites: innermost op frame, the user line, the module plumbing, the training loop. */
enum { S_EMPTY, S_QKV, S_SCORES, S_ATTN_OUT, S_UP, S_ACT, S_DOWN, S_NORM, S_NORM_SMALL, S_SOFTMAX_TMP, S_BACKWARD,
       S_ADAM_STATE, S_ADAM_TMP, S_PARAM, S_LOSS, S_COUNT };

static void ms_site_stack(int site, ms_stack *s)
{
    static const int fwd_tail[] = {F_CALL_IMPL, F_WRAPPED, F_BLOCK_FWD, F_CALL_IMPL, F_WRAPPED, F_MODEL_FWD,
                                   F_TRAIN_STEP_FWD, F_MAIN, F_MODULE, F_RUN_CODE};
    int head[2] = {-1, -1};
    s->n = 0;
    switch (site) {
    case S_EMPTY: return;
    case S_QKV: head[0] = F_LINEAR, head[1] = F_ATTN_QKV; break;
    case S_SCORES: head[0] = F_SDPA, head[1] = F_ATTN_SCORES; break;
    case S_ATTN_OUT: head[0] = F_LINEAR, head[1] = F_ATTN_OUT; break;
    case S_UP: head[0] = F_LINEAR, head[1] = F_MLP_UP; break;
    case S_ACT: head[0] = F_GELU, head[1] = F_MLP_ACT; break;
    case S_DOWN: head[0] = F_LINEAR, head[1] = F_MLP_DOWN; break;
    case S_NORM: case S_NORM_SMALL: head[0] = F_LAYER_NORM, head[1] = F_NORM; break;
    case S_SOFTMAX_TMP: head[0] = F_SOFTMAX, head[1] = F_ATTN_SCORES; break;
    case S_LOSS: head[0] = F_MODEL_FWD; break;
    default: break;
    }
    if (head[0] >= 0) {
        s->f[s->n++] = head[0];
        if (head[1] >= 0)
            s->f[s->n++] = head[1];
        int from = site == S_LOSS ? 6 : 0;
        for (size_t k = (size_t)from; k < sizeof fwd_tail / sizeof fwd_tail[0]; k++)
            s->f[s->n++] = fwd_tail[k];
        return;
    }
    static const int bwd[] = {F_ENGINE_RUN, F_AUTOGRAD_BACKWARD, F_TENSOR_BACKWARD, F_TRAIN_STEP_BWD, F_MAIN,
                              F_MODULE, F_RUN_CODE};
    static const int adam[] = {F_ADAM_MULTI, F_ADAM_STEP, F_OPT_WRAP, F_TRAIN_STEP_OPT, F_MAIN, F_MODULE,
                               F_RUN_CODE};
    static const int state[] = {F_ZEROS_LIKE, F_ADAM_STEP, F_OPT_WRAP, F_TRAIN_STEP_OPT, F_MAIN, F_MODULE,
                                F_RUN_CODE};
    static const int param[] = {F_PARAM_EMPTY, F_MODEL_INIT, F_MAIN, F_MODULE, F_RUN_CODE};
    const int *src = site == S_BACKWARD ? bwd : site == S_ADAM_TMP ? adam : site == S_ADAM_STATE ? state : param;
    int n = site == S_PARAM ? 5 : 7;
    for (int k = 0; k < n; k++)
        s->f[s->n++] = src[k];
}

/* ---- the workload ------------------------------------------------------------------------------------- */

typedef enum { EV_ALLOC, EV_FREE, EV_TEMP, EV_OOM } ms_evkind;

typedef struct ms_ev {
    uint8_t kind;
    uint8_t site;
    uint16_t tensor; /* EV_ALLOC / EV_FREE */
    int64_t size;
} ms_ev;

/* Tensor slots: activations 0..L*8-1, grads, loss, params, Adam states. */
#define T_ACT(l, k) ((l) * 8 + (k))
#define T_GRAD(l, k) (MS_LAYERS * 8 + (l) * 4 + (k))
#define T_LOSS (MS_LAYERS * 12)
#define T_PARAM(l, k) (T_LOSS + 1 + (l) * 6 + (k))
#define T_STATE(l, k) (T_PARAM(MS_LAYERS, 0) + (l) * 12 + (k))

static const int64_t ms_act_size[8] = {8 * MIB, 24 * MIB, 64 * MIB, 8 * MIB, 32 * MIB, 32 * MIB, 8 * MIB, 32 * KIB};
static const int ms_act_site[8] = {S_NORM, S_QKV, S_SCORES, S_ATTN_OUT, S_UP, S_ACT, S_DOWN, S_NORM_SMALL};
static const int64_t ms_param_size[6] = {6 * MIB, 2 * MIB, 8 * MIB, 8 * MIB, 2 * KIB, 2 * KIB};

typedef struct ms_script {
    ms_ev *ev;
    size_t n, cap;
} ms_script;

static int ms_add(ms_script *s, int kind, int site, int tensor, int64_t size)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        ms_ev *p = realloc(s->ev, nc * sizeof *p);
        if (!p)
            return -1;
        s->ev = p;
        s->cap = nc;
    }
    s->ev[s->n++] = (ms_ev){.kind = (uint8_t)kind, .site = (uint8_t)site, .tensor = (uint16_t)tensor, .size = size};
    return 0;
}

/* One step's script; step 0 adds the parameters first and the Adam states at its optimizer step; a step
 * with `oom` stops in the forward pass of the middle layer. */
static int ms_script_step(ms_script *s, bool first, bool oom)
{
    int rc = 0;
    s->n = 0;
    for (int l = 0; first && l < MS_LAYERS; l++)
        for (int k = 0; k < 6; k++)
            rc |= ms_add(s, EV_ALLOC, S_PARAM, T_PARAM(l, k), ms_param_size[k]);
    for (int l = 0; l < MS_LAYERS; l++) {
        for (int k = 0; k < 8; k++) {
            rc |= ms_add(s, EV_ALLOC, ms_act_site[k], T_ACT(l, k), ms_act_size[k]);
            if (k == 2)
                rc |= ms_add(s, EV_TEMP, S_SOFTMAX_TMP, 0, 16 * MIB);
        }
        rc |= ms_add(s, EV_TEMP, S_NORM_SMALL, 0, 512);
        rc |= ms_add(s, EV_TEMP, S_NORM_SMALL, 0, 96);
        if (oom && l == MS_LAYERS / 2) {
            rc |= ms_add(s, EV_OOM, S_SCORES, 0, MS_OOM_REQUEST);
            return rc;
        }
    }
    rc |= ms_add(s, EV_ALLOC, S_LOSS, T_LOSS, 4);
    for (int l = MS_LAYERS - 1; l >= 0; l--) {
        rc |= ms_add(s, EV_TEMP, S_BACKWARD, 0, 32 * MIB);
        for (int k = 0; k < 4; k++)
            rc |= ms_add(s, EV_ALLOC, S_BACKWARD, T_GRAD(l, k), ms_param_size[k]);
        for (int k = 7; k >= 0; k--)
            rc |= ms_add(s, EV_FREE, 0, T_ACT(l, k), 0);
        rc |= ms_add(s, EV_TEMP, S_BACKWARD, 0, 24 * MIB);
    }
    rc |= ms_add(s, EV_FREE, 0, T_LOSS, 0);
    for (int l = 0; first && l < MS_LAYERS; l++)
        for (int k = 0; k < 12; k++)
            rc |= ms_add(s, EV_ALLOC, S_ADAM_STATE, T_STATE(l, k), ms_param_size[k % 6]);
    for (int l = 0; l < MS_LAYERS; l++)
        rc |= ms_add(s, EV_TEMP, S_ADAM_TMP, 0, 4 * KIB);
    for (int l = 0; l < MS_LAYERS; l++)
        for (int k = 0; k < 4; k++)
            rc |= ms_add(s, EV_FREE, 0, T_GRAD(l, k), 0);
    return rc;
}

/* ---- the allocator ------------------------------------------------------------------------------------ */

typedef struct ms_block {
    int64_t addr, size, req;
    int32_t seg;
    int32_t tensor; /* -1 free, -2 a temporary */
    uint8_t site;
} ms_block;

typedef struct ms_seg {
    int64_t addr, size;
    uint8_t small;
    uint8_t site; /* the allocation that made it cudaMalloc */
} ms_seg;

typedef enum { R_ALLOC, R_FREE_REQ, R_FREE_DONE, R_SEG_ALLOC, R_OOM } ms_rkind;

/* One trace record of a simulated step. */
typedef struct ms_rec {
    uint8_t kind, site;
    int64_t addr, size;
} ms_rec;

typedef struct ms_alloc {
    ms_block *b;
    size_t nb, cap;
    ms_seg *seg;
    size_t nseg, seg_cap;
    int64_t next_seg;
    ms_rec *rec;
    size_t nrec, rec_cap;
    int64_t live_req;              /* requested bytes held */
} ms_alloc;

static int ms_recs(ms_alloc *a, int kind, int site, int64_t addr, int64_t size)
{
    if (a->nrec == a->rec_cap) {
        size_t nc = a->rec_cap ? a->rec_cap * 2 : 512;
        ms_rec *p = realloc(a->rec, nc * sizeof *p);
        if (!p)
            return -1;
        a->rec = p;
        a->rec_cap = nc;
    }
    a->rec[a->nrec++] = (ms_rec){.kind = (uint8_t)kind, .site = (uint8_t)site, .addr = addr, .size = size};
    return 0;
}

static int ms_insert_block(ms_alloc *a, size_t at, const ms_block *b)
{
    if (a->nb == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 256;
        ms_block *p = realloc(a->b, nc * sizeof *p);
        if (!p)
            return -1;
        a->b = p;
        a->cap = nc;
    }
    memmove(a->b + at + 1, a->b + at, (a->nb - at) * sizeof *a->b);
    a->b[at] = *b;
    a->nb++;
    return 0;
}

static int64_t ms_round(int64_t size)
{
    return size < 512 ? 512 : (size + 511) / 512 * 512;
}

/* Index of a new segment's one free block. */
static int ms_new_segment(ms_alloc *a, bool small, int64_t rounded, int site, size_t *at)
{
    int64_t size = small ? 2 * MIB : rounded < 10 * MIB ? 20 * MIB : (rounded + 2 * MIB - 1) / (2 * MIB) * (2 * MIB);
    if (a->nseg == a->seg_cap) {
        size_t nc = a->seg_cap ? a->seg_cap * 2 : 64;
        ms_seg *p = realloc(a->seg, nc * sizeof *p);
        if (!p)
            return -1;
        a->seg = p;
        a->seg_cap = nc;
    }
    int64_t addr = a->next_seg;
    a->next_seg += (size + 2 * MIB - 1) / (2 * MIB) * (2 * MIB) + 2 * MIB;
    a->seg[a->nseg] = (ms_seg){.addr = addr, .size = size, .small = small, .site = (uint8_t)site};
    ms_block b = {.addr = addr, .size = size, .seg = (int32_t)a->nseg, .tensor = -1};
    a->nseg++;
    size_t k = 0;
    while (k < a->nb && a->b[k].addr < addr)
        k++;
    if (ms_insert_block(a, k, &b) != 0)
        return -1;
    *at = k;
    return ms_recs(a, R_SEG_ALLOC, site, addr, size);
}

static int ms_malloc(ms_alloc *a, int64_t req, int tensor, int site, int64_t *addr)
{
    int64_t rounded = ms_round(req);
    bool small = rounded <= MIB;
    size_t best = SIZE_MAX;
    for (size_t k = 0; k < a->nb; k++) {
        const ms_block *b = &a->b[k];
        if (b->tensor != -1 || b->size < rounded || a->seg[b->seg].small != small)
            continue;
        if (best == SIZE_MAX || b->size < a->b[best].size)
            best = k;
    }
    if (best == SIZE_MAX && ms_new_segment(a, small, rounded, site, &best) != 0)
        return -1;
    ms_block *b = &a->b[best];
    int64_t rest = b->size - rounded;
    if (small ? rest >= 512 : rest > MIB) {
        ms_block tail = {.addr = b->addr + rounded, .size = rest, .seg = b->seg, .tensor = -1};
        b->size = rounded;
        if (ms_insert_block(a, best + 1, &tail) != 0)
            return -1;
        b = &a->b[best];
    }
    b->req = req;
    b->tensor = tensor;
    b->site = (uint8_t)site;
    a->live_req += req;
    *addr = b->addr;
    return ms_recs(a, R_ALLOC, site, b->addr, req);
}

static void ms_free_at(ms_alloc *a, size_t k)
{
    ms_block *b = &a->b[k];
    a->live_req -= b->req;
    b->tensor = -1;
    b->req = 0;
    if (k + 1 < a->nb && a->b[k + 1].tensor == -1 && a->b[k + 1].seg == b->seg) {
        b->size += a->b[k + 1].size;
        memmove(a->b + k + 1, a->b + k + 2, (a->nb - k - 2) * sizeof *a->b);
        a->nb--;
    }
    if (k > 0 && a->b[k - 1].tensor == -1 && a->b[k - 1].seg == b->seg) {
        a->b[k - 1].size += b->size;
        memmove(a->b + k, a->b + k + 1, (a->nb - k - 1) * sizeof *a->b);
        a->nb--;
    }
}

static int ms_free_tensor(ms_alloc *a, int tensor, int64_t addr_hint)
{
    for (size_t k = 0; k < a->nb; k++) {
        if (a->b[k].tensor == tensor && (tensor != -2 || a->b[k].addr == addr_hint)) {
            int64_t addr = a->b[k].addr, req = a->b[k].req;
            ms_free_at(a, k);
            if (ms_recs(a, R_FREE_REQ, 0, addr, req) != 0 || ms_recs(a, R_FREE_DONE, 0, addr, req) != 0)
                return -1;
            return 0;
        }
    }
    return 0; /* never allocated (a script bug would show as a missing free in the test) */
}

/* Run one step's script; its records replace a->rec. */
static int ms_run_step(ms_alloc *a, const ms_script *s)
{
    a->nrec = 0;
    for (size_t i = 0; i < s->n; i++) {
        const ms_ev *e = &s->ev[i];
        int64_t addr;
        switch (e->kind) {
        case EV_ALLOC:
            if (ms_malloc(a, e->size, e->tensor, e->site, &addr) != 0)
                return -1;
            break;
        case EV_TEMP:
            if (ms_malloc(a, e->size, -2, e->site, &addr) != 0 || ms_free_tensor(a, -2, addr) != 0)
                return -1;
            break;
        case EV_FREE:
            if (ms_free_tensor(a, e->tensor, 0) != 0)
                return -1;
            break;
        default:
            if (ms_recs(a, R_OOM, e->site, MS_DEVICE_MEMORY, e->size) != 0)
                return -1;
            break;
        }
    }
    return 0;
}

/* ---- the pickle writer -------------------------------------------------------------------------------- */

typedef struct mw_memostr {
    const char *s; /* borrowed: static text */
    size_t len;
    uint32_t memo;
} mw_memostr;

typedef struct mw {
    gen_out *out;
    unsigned char *fb; /* the open frame */
    size_t fn, fcap;
    uint64_t memo;
    mw_memostr *strs; /* memoized strings, open addressing on content */
    size_t scap, sn;
    int failed;
} mw;

static void mw_raw(mw *w, const void *p, size_t n)
{
    if (w->fn + n > w->fcap) {
        size_t nc = w->fcap ? w->fcap : 128 << 10;
        while (nc < w->fn + n)
            nc *= 2;
        unsigned char *q = realloc(w->fb, nc);
        if (!q) {
            w->failed = 1;
            gen_out_fail(w->out, "allocate memory for", ENOMEM);
            return;
        }
        w->fb = q;
        w->fcap = nc;
    }
    memcpy(w->fb + w->fn, p, n);
    w->fn += n;
}

static void mw_u8(mw *w, unsigned v)
{
    unsigned char c = (unsigned char)v;
    mw_raw(w, &c, 1);
}

static void mw_le(mw *w, uint64_t v, unsigned n)
{
    unsigned char b[8];
    for (unsigned k = 0; k < n; k++)
        b[k] = (unsigned char)(v >> (8 * k));
    mw_raw(w, b, n);
}

/* Commit the frame (FRAME + length, unless under 4 bytes) to the output. */
static void mw_commit(mw *w)
{
    if (!w->fn)
        return;
    if (w->fn >= 4) {
        unsigned char h[9] = {0x95};
        for (int k = 0; k < 8; k++)
            h[1 + k] = (unsigned char)((uint64_t)w->fn >> (8 * k));
        gen_out_mem(w->out, (const char *)h, 9);
    }
    gen_out_mem(w->out, (const char *)w->fb, w->fn);
    w->fn = 0;
}

/* An opcode boundary: commit the frame once it reached the target. */
static void mw_boundary(mw *w)
{
    if (w->fn >= MS_FRAME_TARGET)
        mw_commit(w);
}

static void mw_memoize(mw *w)
{
    mw_u8(w, 0x94);
    w->memo++;
}

static void mw_get(mw *w, uint64_t idx)
{
    if (idx < 256) {
        mw_u8(w, 'h');
        mw_u8(w, (unsigned)idx);
    } else {
        mw_u8(w, 'j');
        mw_le(w, idx, 4);
    }
}

static void mw_int(mw *w, int64_t v)
{
    if (v >= 0 && v < 256) {
        mw_u8(w, 'K');
        mw_u8(w, (unsigned)v);
    } else if (v >= 0 && v < 65536) {
        mw_u8(w, 'M');
        mw_le(w, (uint64_t)v, 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        mw_u8(w, 'J');
        mw_le(w, (uint64_t)v, 4);
    } else {
        unsigned n = 1;
        while (n < 8) { /* minimal two's complement, as pickle's encode_long */
            int64_t lo = -((int64_t)1 << (8 * n - 1)), hi = ((int64_t)1 << (8 * n - 1)) - 1;
            if (v >= lo && v <= hi)
                break;
            n++;
        }
        mw_u8(w, 0x8a);
        mw_u8(w, n);
        mw_le(w, (uint64_t)v, n);
    }
}

static uint64_t mw_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* A str: the first time written and memoized, afterwards read back (Python shares equal strings here). */
static void mw_str(mw *w, const char *s)
{
    size_t n = strlen(s);
    if (w->sn * 2 >= w->scap) {
        size_t nc = w->scap ? w->scap * 2 : 256;
        mw_memostr *t = calloc(nc, sizeof *t);
        if (!t) {
            w->failed = 1;
            gen_out_fail(w->out, "allocate memory for", ENOMEM);
            return;
        }
        for (size_t k = 0; k < w->scap; k++) {
            if (!w->strs[k].s)
                continue;
            size_t j = mw_hash(w->strs[k].s, w->strs[k].len) & (nc - 1);
            while (t[j].s)
                j = (j + 1) & (nc - 1);
            t[j] = w->strs[k];
        }
        free(w->strs);
        w->strs = t;
        w->scap = nc;
    }
    size_t j = mw_hash(s, n) & (w->scap - 1);
    while (w->strs[j].s) {
        if (w->strs[j].len == n && !memcmp(w->strs[j].s, s, n)) {
            mw_get(w, w->strs[j].memo);
            return;
        }
        j = (j + 1) & (w->scap - 1);
    }
    if (n < 256) {
        mw_u8(w, 0x8c);
        mw_u8(w, (unsigned)n);
    } else {
        mw_u8(w, 'X');
        mw_le(w, n, 4);
    }
    mw_raw(w, s, n);
    w->strs[j] = (mw_memostr){.s = s, .len = n, .memo = (uint32_t)w->memo};
    w->sn++;
    mw_memoize(w);
}

static void mw_free(mw *w)
{
    free(w->fb);
    free(w->strs);
    memset(w, 0, sizeof *w);
}

/* Python's batching of n items: MARK ... APPENDS per 1000 (one item: APPEND). Call before and after each
 * item i (0-based). For dicts the item is a key and its value. */
static void mw_batch_before(mw *w, size_t i, size_t n)
{
    if (i % MS_BATCH == 0 && n - i > 1)
        mw_u8(w, '(');
}

static void mw_batch_after(mw *w, size_t i, size_t n, bool dict)
{
    bool last_of_batch = (i + 1) % MS_BATCH == 0 || i + 1 == n;
    if (!last_of_batch)
        return;
    size_t batch_len = i % MS_BATCH + 1;
    mw_u8(w, batch_len > 1 ? (dict ? 'u' : 'e') : (dict ? 's' : 'a'));
}

static void mw_dict_open(mw *w)
{
    mw_u8(w, '}');
    mw_memoize(w);
}

static void mw_list_open(mw *w)
{
    mw_u8(w, ']');
    mw_memoize(w);
}

/* A dict of n keys written key by key: mw_key(w, k, n, "name") then the value then mw_val_end(w, k, n). */
static void mw_key(mw *w, size_t k, size_t n, const char *key)
{
    mw_batch_before(w, k, n);
    mw_str(w, key);
}

static void mw_val_end(mw *w, size_t k, size_t n)
{
    mw_batch_after(w, k, n, true);
}

/* ---- writing the snapshot ----------------------------------------------------------------------------- */

typedef struct ms_gen {
    const gen_ms_params *p;
    gen_ms_stats *st;
    mw w;
    gen_rng rng;
    uint64_t frame_memo[F_COUNT];  /* memo index + 1 of a written frame dict (current layout) */
    uint64_t stack_memo[S_COUNT];  /* memo index + 1 of a written stack list */
    int64_t t;                     /* time_us of the last record */
    int64_t reserved;              /* the segments' total (device_free of the oom entry) */
} ms_gen;

static void ms_write_frame(ms_gen *g, int f)
{
    mw *w = &g->w;
    if (g->p->layout == GEN_MS_CURRENT && g->frame_memo[f]) {
        mw_get(w, g->frame_memo[f] - 1);
        return;
    }
    mw_dict_open(w);
    if (g->p->layout == GEN_MS_CURRENT)
        g->frame_memo[f] = w->memo; /* the dict's own memo index + 1 */
    const ms_frame *fr = &ms_frames[f];
    mw_key(w, 0, 3, g->p->layout == GEN_MS_CURRENT ? "name" : "filename");
    mw_str(w, g->p->layout == GEN_MS_CURRENT ? fr->name : fr->file);
    mw_key(w, 1, 3, g->p->layout == GEN_MS_CURRENT ? "filename" : "name");
    mw_str(w, g->p->layout == GEN_MS_CURRENT ? fr->file : fr->name);
    mw_key(w, 2, 3, "line");
    mw_int(w, fr->line);
    mw_val_end(w, 2, 3);
}

static void ms_write_stack(ms_gen *g, int site)
{
    mw *w = &g->w;
    if ((g->p->layout == GEN_MS_CURRENT || site == S_EMPTY) && g->stack_memo[site]) {
        mw_get(w, g->stack_memo[site] - 1);
        return;
    }
    ms_stack s;
    ms_site_stack(site, &s);
    mw_list_open(w);
    if (g->p->layout == GEN_MS_CURRENT || site == S_EMPTY)
        g->stack_memo[site] = w->memo;
    for (int k = 0; k < s.n; k++) {
        mw_batch_before(w, (size_t)k, (size_t)s.n);
        ms_write_frame(g, s.f[k]);
        mw_batch_after(w, (size_t)k, (size_t)s.n, false);
    }
}

static const char *const ms_action_names[] = {"alloc", "free_requested", "free_completed", "segment_alloc", "oom"};

/* One trace entry (current layout: action, addr|device_free, size, stream, time_us, compile_context,
 * user_metadata, frames; 2.0: action, addr, size, stream, frames). */
static void ms_write_entry(ms_gen *g, const ms_rec *r)
{
    mw *w = &g->w;
    bool cur = g->p->layout == GEN_MS_CURRENT;
    size_t n = cur ? 8 : 5, k = 0;
    g->t += 3 + (int64_t)(gen_rng_next(&g->rng) % 40);
    mw_dict_open(w);
    mw_key(w, k, n, "action"), mw_str(w, ms_action_names[r->kind]), mw_val_end(w, k++, n);
    mw_key(w, k, n, r->kind == R_OOM ? "device_free" : "addr");
    mw_int(w, r->kind == R_OOM ? MS_DEVICE_MEMORY - g->reserved : r->addr), mw_val_end(w, k++, n);
    mw_key(w, k, n, "size"), mw_int(w, r->size), mw_val_end(w, k++, n);
    mw_key(w, k, n, "stream"), mw_int(w, 0), mw_val_end(w, k++, n);
    if (cur) {
        mw_key(w, k, n, "time_us"), mw_int(w, g->t), mw_val_end(w, k++, n);
        mw_key(w, k, n, "compile_context"), mw_str(w, "N/A"), mw_val_end(w, k++, n);
        mw_key(w, k, n, "user_metadata"), mw_str(w, ""), mw_val_end(w, k++, n);
    }
    mw_key(w, k, n, "frames");
    ms_write_stack(g, r->kind == R_FREE_REQ || r->kind == R_FREE_DONE ? S_EMPTY : r->site);
    mw_val_end(w, k, n);
    mw_boundary(w);
}

static void ms_write_block(ms_gen *g, const ms_alloc *a, size_t k)
{
    mw *w = &g->w;
    const ms_block *b = &a->b[k];
    bool cur = g->p->layout == GEN_MS_CURRENT, held = b->tensor >= 0;
    const char *state = held ? "active_allocated" : "inactive";
    mw_dict_open(w);
    if (cur) {
        mw_key(w, 0, 5, "address"), mw_int(w, b->addr), mw_val_end(w, 0, 5);
        mw_key(w, 1, 5, "size"), mw_int(w, b->size), mw_val_end(w, 1, 5);
        mw_key(w, 2, 5, "requested_size"), mw_int(w, held ? b->req : b->size), mw_val_end(w, 2, 5);
        mw_key(w, 3, 5, "state"), mw_str(w, state), mw_val_end(w, 3, 5);
        mw_key(w, 4, 5, "frames"), ms_write_stack(g, held ? b->site : S_EMPTY), mw_val_end(w, 4, 5);
    } else {
        size_t n = held ? 4 : 3;
        mw_key(w, 0, n, "size"), mw_int(w, b->size), mw_val_end(w, 0, n);
        mw_key(w, 1, n, "requested_size"), mw_int(w, held ? b->req : b->size), mw_val_end(w, 1, n);
        mw_key(w, 2, n, "state"), mw_str(w, state), mw_val_end(w, 2, n);
        if (held) {
            mw_key(w, 3, n, "history");
            mw_list_open(w); /* one entry: the allocation that holds it */
            mw_dict_open(w);
            mw_key(w, 0, 3, "addr"), mw_int(w, b->addr), mw_val_end(w, 0, 3);
            mw_key(w, 1, 3, "real_size"), mw_int(w, b->req), mw_val_end(w, 1, 3);
            mw_key(w, 2, 3, "frames"), ms_write_stack(g, b->site), mw_val_end(w, 2, 3);
            mw_u8(w, 'a');
            mw_val_end(w, 3, n);
        }
    }
    mw_boundary(w);
}

static void ms_write_segment(ms_gen *g, const ms_alloc *a, uint32_t device, size_t s, size_t *bk)
{
    mw *w = &g->w;
    const ms_seg *sg = &a->seg[s];
    bool cur = g->p->layout == GEN_MS_CURRENT;
    size_t first = *bk, nb = 0;
    int64_t alloc = 0, req = 0;
    while (first + nb < a->nb && a->b[first + nb].seg == (int32_t)s) {
        const ms_block *b = &a->b[first + nb];
        if (b->tensor >= 0)
            alloc += b->size, req += b->req;
        nb++;
    }
    *bk = first + nb;
    size_t n = cur ? 12 : 9, k = 0;
    mw_dict_open(w);
    mw_key(w, k, n, "device"), mw_int(w, device), mw_val_end(w, k++, n);
    mw_key(w, k, n, "address"), mw_int(w, sg->addr), mw_val_end(w, k++, n);
    mw_key(w, k, n, "total_size"), mw_int(w, sg->size), mw_val_end(w, k++, n);
    mw_key(w, k, n, "allocated_size"), mw_int(w, alloc), mw_val_end(w, k++, n);
    mw_key(w, k, n, "active_size"), mw_int(w, alloc), mw_val_end(w, k++, n);
    mw_key(w, k, n, "requested_size"), mw_int(w, req), mw_val_end(w, k++, n);
    mw_key(w, k, n, "stream"), mw_int(w, 0), mw_val_end(w, k++, n);
    mw_key(w, k, n, "segment_type"), mw_str(w, sg->small ? "small" : "large"), mw_val_end(w, k++, n);
    if (cur) {
        mw_key(w, k, n, "segment_pool_id");
        mw_int(w, 0), mw_int(w, 0), mw_u8(w, 0x86), mw_memoize(w);
        mw_val_end(w, k++, n);
        mw_key(w, k, n, "is_expandable"), mw_u8(w, 0x89), mw_val_end(w, k++, n);
        mw_key(w, k, n, "frames"), ms_write_stack(g, sg->site), mw_val_end(w, k++, n);
    }
    mw_key(w, k, n, "blocks");
    mw_list_open(w);
    for (size_t i = 0; i < nb; i++) {
        mw_batch_before(w, i, nb);
        ms_write_block(g, a, first + i);
        mw_batch_after(w, i, nb, false);
    }
    mw_val_end(w, k, n);
    g->st->segments++;
    g->st->blocks += nb;
    g->st->reserved += sg->size;
    g->st->allocated += alloc;
    g->st->requested += req;
}

static void ms_write_settings(ms_gen *g)
{
    mw *w = &g->w;
    static const char *const keys[] = {"PYTORCH_CUDA_ALLOC_CONF", "max_split_size", "garbage_collection_threshold",
                                       "expandable_segments", "pinned_num_register_threads",
                                       "release_lock_on_cudamalloc", "pinned_use_cuda_host_register",
                                       "roundup_power2_divisions"};
    size_t n = sizeof keys / sizeof keys[0];
    mw_dict_open(w);
    for (size_t k = 0; k < n; k++) {
        mw_key(w, k, n, keys[k]);
        switch (k) {
        case 0: mw_str(w, ""); break;
        case 1: mw_int(w, -1); break;
        case 2: {
            uint64_t bits = 0; /* 0.0 */
            mw_u8(w, 'G');
            mw_le(w, bits, 8);
            break;
        }
        case 4: mw_int(w, 1); break;
        case 7: {
            static const char *const div[] = {"1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024",
                                              "2048", "4096", "8192", "16384", "32768"};
            mw_dict_open(w);
            for (size_t d = 0; d < 16; d++)
                mw_key(w, d, 16, div[d]), mw_int(w, 0), mw_val_end(w, d, 16);
            break;
        }
        default: mw_u8(w, 0x89); break;
        }
        mw_val_end(w, k, n);
    }
}

/* The trace records of one device: window = step 1 after its first `skip` records, steps 2.., and the
 * replayed timeline of requested bytes for the stats. */
typedef struct ms_trace {
    ms_rec *steady;      /* the records of one steady step (replayed) */
    size_t nsteady;
    ms_rec *head;        /* step 1's records after the skip, then the simulated steps before steady state */
    size_t nhead;
    ms_rec *tail;        /* the last step when it differs (oom) */
    size_t ntail;
    uint64_t steady_steps;
    int64_t start_req;   /* requested bytes held when the window starts */
} ms_trace;

static uint64_t ms_trace_len(const ms_trace *tr)
{
    return tr->nhead + tr->steady_steps * tr->nsteady + tr->ntail;
}

static void ms_stat_rec(ms_gen *g, const ms_rec *r, int64_t *live, uint64_t row)
{
    gen_ms_stats *st = g->st;
    switch (r->kind) {
    case R_ALLOC:
        st->allocs++;
        *live += r->size;
        if (*live > st->peak_bytes) {
            st->peak_bytes = *live;
            st->peak_row = (int64_t)row;
            st->peak_time_us = g->p->layout == GEN_MS_CURRENT ? g->t : -1;
        }
        break;
    case R_FREE_DONE: st->frees++, *live -= r->size; break;
    case R_SEG_ALLOC: st->segment_allocs++; break;
    case R_OOM: st->ooms++; break;
    default: break;
    }
}

static void ms_write_trace(ms_gen *g, const ms_trace *tr)
{
    mw *w = &g->w;
    uint64_t n = ms_trace_len(tr), row = 0;
    int64_t live = tr->start_req;
    g->st->start_bytes = g->st->peak_bytes = live;
    g->st->peak_row = -1;
    g->st->peak_time_us = -1;
    mw_list_open(w);
    for (int part = 0; part < 3; part++) {
        uint64_t reps = part == 1 ? tr->steady_steps : 1;
        const ms_rec *recs = part == 0 ? tr->head : part == 1 ? tr->steady : tr->tail;
        size_t nr = part == 0 ? tr->nhead : part == 1 ? tr->nsteady : tr->ntail;
        for (uint64_t s = 0; s < reps; s++) {
            g->t += 2000; /* the gap between steps */
            for (size_t i = 0; i < nr; i++, row++) {
                mw_batch_before(w, (size_t)row, (size_t)n);
                ms_write_entry(g, &recs[i]);
                ms_stat_rec(g, &recs[i], &live, row);
                mw_batch_after(w, (size_t)row, (size_t)n, false);
            }
        }
    }
    g->st->trace_entries += n;
    g->st->end_bytes = live;
}

static int ms_write_all(ms_gen *g, const ms_alloc *a, const ms_trace *tr)
{
    mw *w = &g->w;
    bool cur = g->p->layout == GEN_MS_CURRENT;
    uint32_t ndev = g->p->devices, busy = ndev - 1;
    gen_out_mem(w->out, "\x80\x04", 2); /* PROTO 4, before the first frame */
    size_t n = cur ? 4 : 2, k = 0;
    mw_dict_open(w);
    mw_key(w, k, n, "segments");
    mw_list_open(w);
    size_t bk = 0;
    for (size_t s = 0; s < a->nseg; s++) {
        mw_batch_before(w, s, a->nseg);
        ms_write_segment(g, a, busy, s, &bk);
        mw_batch_after(w, s, a->nseg, false);
    }
    mw_val_end(w, k++, n);
    mw_key(w, k, n, "device_traces");
    mw_list_open(w);
    for (uint32_t d = 0; d < ndev; d++) {
        mw_batch_before(w, d, ndev);
        if (d == busy)
            ms_write_trace(g, tr);
        else
            mw_list_open(w);
        mw_batch_after(w, d, ndev, false);
    }
    mw_val_end(w, k++, n);
    if (cur) {
        mw_key(w, k, n, "allocator_settings"), ms_write_settings(g), mw_val_end(w, k++, n);
        mw_key(w, k, n, "external_annotations"), mw_list_open(w), mw_val_end(w, k++, n);
    }
    mw_u8(w, '.');
    mw_commit(w);
    return w->failed ? -1 : 0;
}

/* ---- simulation --------------------------------------------------------------------------------------- */

static int ms_copy_recs(ms_rec **dst, size_t *n, const ms_rec *src, size_t k)
{
    ms_rec *p = realloc(*dst, (*n + k + 1) * sizeof *p);
    if (!p)
        return -1;
    memcpy(p + *n, src, k * sizeof *src);
    *dst = p;
    *n += k;
    return 0;
}

static bool ms_same_layout(const ms_block *x, size_t nx, const ms_block *y, size_t ny)
{
    if (nx != ny)
        return false;
    for (size_t k = 0; k < nx; k++)
        if (x[k].addr != y[k].addr || x[k].size != y[k].size || x[k].tensor != y[k].tensor)
            return false;
    return true;
}

/* Simulate `steps` steps (step 0 outside the window) into tr and the final allocator state into a. */
static int ms_simulate(const gen_ms_params *p, uint64_t steps, ms_alloc *a, ms_trace *tr)
{
    ms_script s0 = {0}, s = {0}, so = {0};
    ms_block *prev = NULL;
    size_t nprev = 0;
    int rc = -1;
    bool oom = p->oom != 0;
    a->next_seg = MS_SEG_BASE + (int64_t)p->rank * ((int64_t)1 << 36);
    if (ms_script_step(&s0, true, false) != 0 || ms_script_step(&s, false, false) != 0 ||
        ms_script_step(&so, false, true) != 0)
        goto out;
    if (ms_run_step(a, &s0) != 0) /* step 0: parameters, Adam states; before the window */
        goto out;
    uint64_t regular = steps - 1 - (oom ? 1 : 0); /* steps after step 0 that run the regular script */
    for (uint64_t k = 1; k <= regular; k++) {
        int64_t held_before = a->live_req;
        if (ms_run_step(a, &s) != 0)
            goto out;
        if (k == 1) {
            /* the window opens inside step 1, after layer 0's forward (its first 10 records) */
            size_t skip = a->nrec < 10 ? a->nrec : 10;
            int64_t held = held_before;
            for (size_t i = 0; i < skip; i++)
                held += a->rec[i].kind == R_ALLOC ? a->rec[i].size : a->rec[i].kind == R_FREE_DONE ? -a->rec[i].size : 0;
            tr->start_req = held;
            if (ms_copy_recs(&tr->head, &tr->nhead, a->rec + skip, a->nrec - skip) != 0)
                goto out;
        } else if (prev && ms_same_layout(prev, nprev, a->b, a->nb)) {
            /* steady: step k repeated step k-1; every later regular step does the same */
            if (ms_copy_recs(&tr->steady, &tr->nsteady, a->rec, a->nrec) != 0)
                goto out;
            tr->steady_steps = regular - k + 1;
            break;
        } else if (ms_copy_recs(&tr->head, &tr->nhead, a->rec, a->nrec) != 0) {
            goto out;
        }
        ms_block *cp = realloc(prev, (a->nb + 1) * sizeof *cp);
        if (!cp)
            goto out;
        prev = cp;
        memcpy(prev, a->b, a->nb * sizeof *prev);
        nprev = a->nb;
    }
    if (oom) {
        if (regular == 0) { /* the oom step is step 1: the window opens at its start */
            tr->start_req = a->live_req;
        }
        if (ms_run_step(a, &so) != 0 || ms_copy_recs(&tr->tail, &tr->ntail, a->rec, a->nrec) != 0)
            goto out;
    }
    rc = 0;
out:
    free(s0.ev);
    free(s.ev);
    free(so.ev);
    free(prev);
    return rc;
}

static void ms_alloc_free(ms_alloc *a)
{
    free(a->b);
    free(a->seg);
    free(a->rec);
    memset(a, 0, sizeof *a);
}

static void ms_trace_free(ms_trace *t)
{
    free(t->steady);
    free(t->head);
    free(t->tail);
    memset(t, 0, sizeof *t);
}

/* One full run into `path` (NULL: a counting sink). */
static int ms_run(const gen_ms_params *p, uint64_t steps, const char *path, gen_ms_stats *st, gen_err *err)
{
    ms_alloc a = {0};
    ms_trace tr = {0};
    memset(st, 0, sizeof *st);
    st->steps = steps;
    if (ms_simulate(p, steps, &a, &tr) != 0) {
        ms_alloc_free(&a);
        ms_trace_free(&tr);
        gen_err_set(err, "out of memory simulating the allocator");
        return -1;
    }
    gen_out out;
    if (gen_out_open(&out, path, err) != 0) {
        ms_alloc_free(&a);
        ms_trace_free(&tr);
        return -1;
    }
    ms_gen g = {.p = p, .st = st, .t = MS_TIME_BASE + (int64_t)p->rank * 1000};
    g.w.out = &out;
    gen_rng_seed(&g.rng, p->seed, 0x6d656d736e6170ull + (uint64_t)p->rank); /* "memsnap" */
    for (size_t s = 0; s < a.nseg; s++) /* the oom entry's device_free needs it before the trace */
        g.reserved += a.seg[s].size;
    int rc = ms_write_all(&g, &a, &tr);
    mw_free(&g.w);
    if (gen_out_close(&out, err) != 0)
        rc = -1;
    st->bytes = out.total;
    ms_alloc_free(&a);
    ms_trace_free(&tr);
    return rc;
}

int gen_memsnap_write(const gen_ms_params *p, const char *path, gen_ms_stats *st, gen_err *err)
{
    if (p->devices < 1 || p->devices > GEN_MS_MAX_DEVICES) {
        gen_err_set(err, "memory snapshot devices %u outside 1..%u", p->devices, GEN_MS_MAX_DEVICES);
        return -1;
    }
    if (p->target_bytes > GEN_MS_MAX_BYTES) {
        gen_err_set(err, "memory snapshot target over %llu bytes", (unsigned long long)GEN_MS_MAX_BYTES);
        return -1;
    }
    uint64_t steps = GEN_MS_DEFAULT_STEPS + (p->oom ? 1 : 0);
    if (p->target_bytes) {
        gen_ms_stats a, b;
        uint64_t s1 = steps, s2 = steps + 8;
        if (ms_run(p, s1, NULL, &a, err) != 0 || ms_run(p, s2, NULL, &b, err) != 0)
            return -1;
        double per = (double)(b.bytes - a.bytes) / (double)(s2 - s1);
        double want = p->target_bytes > a.bytes ? s1 + ((double)p->target_bytes - (double)a.bytes) / per : s1;
        steps = want > (double)MS_MAX_STEPS ? MS_MAX_STEPS : (uint64_t)want;
        if (steps < s1)
            steps = s1;
    }
    return ms_run(p, steps, path, st, err);
}
