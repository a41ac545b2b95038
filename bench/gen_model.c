/* gen_model — builds the synthetic timeline of one NeuronCore running one decoder step.
 *
 * Timeline of core `nc` (all times integer ns from first_hw_timestamp = 0):
 *
 *   [0, P)                 prologue: runtime scaffolding on every engine (layer ""), the embedding
 *                          (layer "embed_tokens") and collective 0 (embedding all-reduce) at P/2
 *   [a_k, a_k+1)           decoder layer k, k = 0..L-1, a_0 = P, a_k+1 = a_k + latency_k:
 *                            a_k   collective 2k+1 (TPB_TRIGGER START; Sync WRITE/PSEUDO_DMA_TRIGGER)
 *                            attention phase [a_k+100, m_k-50), m_k = a_k + 45% of latency_k
 *                            m_k   collective 2k+2
 *                            MLP phase [m_k+100, a_k+1-50)
 *   a_L                    collective 2L+1 (closing all-gather before the final norm)
 *   [a_L, a_L+E)           epilogue: final norm, lm_head, scaffolding
 *
 * So with the formats.md §11.1 recipe (gaps g_i between the 2L+2 TPB_TRIGGER START times, g_1 the
 * prologue) layer K = g_2K+2 + g_2K+3 = a_K+1 - a_K = latency_K exactly. Latencies come from gen_plan:
 * base B = 400 ns per Tensor-row slot, layer 0 = W·B (warm-up, W = --warmup-factor, 1.8), one random
 * layer of 1..L-1 = F·B (outlier, F = --outlier-factor, 1.7; only when L >= 3), the others B × (1 ± 3%).
 * With the default 8 layers the median of all layers is a normal layer, so the outlier is > 1.5 × the
 * median (the neuronlens gaps rule) and the warm-up is too. Slower layers keep the same instruction
 * durations, so their extra time is idle time and evt_wait.
 *
 * Inside a phase window each timeline row (label) gets a fixed count of instructions, one per equal slot,
 * started at a random point in the first quarter of its slot and lasting at most 70% of it; 15% of
 * EVENT_SEMAPHOREs wait up to 2.5 slots and overlap the next instructions of their row, and Tensor /
 * TensorMatrix rows overlap each other, so an engine's busy time (the union) is less than its summed
 * durations. Instructions never cross a window edge. After all rows are placed the array is sorted by
 * (timestamp, creation order) and decorated in that order (ids, pc, BIR/HLO, bytes, source locations,
 * predecessors, DMA transfers), so every random draw happens in a fixed order: same seed → same bytes.
 *
 * PRNG streams: stream 1 = the plan (shared by all cores), stream 100+nc = core nc. */
#include "gen_model.h"

#include "gen_memsnap.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_PHASE_A_PERCENT 45
#define GEN_WINDOW_LEAD_NS 100
#define GEN_WINDOW_TAIL_NS 50
#define GEN_FIRST_TS 7

typedef struct gen_build {
    gen_core *core;
    gen_rng rng;
    uint32_t seq;
} gen_build;

/* A row's share of one phase window. */
typedef struct gen_row_sched {
    int64_t w0, w1;
    gen_row row;
    unsigned count;
    int group;
    unsigned sub_first, sub_count;
    const gen_row_mix *mix;      /* weighted choice (decoder layers) */
    const struct gen_fixed *fixed; /* or a fixed sequence (prologue, epilogue) */
} gen_row_sched;

/* One entry of a fixed prologue/epilogue sequence. */
typedef struct gen_fixed {
    gen_op op;
    int sub; /* -1: scaffolding (layer ""), else GEN_SUB_* */
} gen_fixed;

/* ---- small helpers shared with the other gen_ files ---- */

void *gen_grow(void *p, size_t *cap, size_t elem, size_t first)
{
    size_t n = first;
    if (*cap) {
        if (*cap > SIZE_MAX / 2)
            return NULL;
        n = *cap * 2;
    }
    if (n == 0 || n > SIZE_MAX / elem)
        return NULL;
    void *q = realloc(p, n * elem);
    if (q)
        *cap = n;
    return q;
}

void gen_spans_push(gen_spans *s, int64_t start, int64_t end)
{
    if (s->n == s->cap) {
        gen_span *v = gen_grow(s->v, &s->cap, sizeof *v, 256);
        if (!v) {
            s->failed = 1;
            return;
        }
        s->v = v;
    }
    s->v[s->n++] = (gen_span){start, end};
}

void gen_spans_free(gen_spans *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int gen_span_cmp(const void *a, const void *b)
{
    const gen_span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

int64_t gen_spans_union(gen_span *v, size_t n)
{
    qsort(v, n, sizeof *v, gen_span_cmp);
    int64_t total = 0, cs = 0, ce = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].end <= v[i].start)
            continue;
        if (open && v[i].start <= ce) {
            if (v[i].end > ce)
                ce = v[i].end;
            continue;
        }
        if (open)
            total += ce - cs;
        cs = v[i].start;
        ce = v[i].end;
        open = 1;
    }
    return open ? total + ce - cs : total;
}

/* Bijection on the low `bits` bits (odd multipliers and xorshifts are invertible mod 2^bits). */
static uint64_t gen_id_mix(uint64_t x, unsigned bits)
{
    uint64_t mask = (bits == 64) ? ~0ull : ((1ull << bits) - 1);
    x &= mask;
    x = (x * 0x9e3779b97f4a7c15ull) & mask;
    x ^= x >> (bits / 2);
    x = (x * 0xc2b2ae3d27d4eb4full) & mask;
    x ^= x >> (bits / 3);
    return x & mask;
}

uint64_t gen_core_next_id(gen_core *core)
{
    uint64_t c = core->id_counter++;
    if (c % 10 == 3) /* every tenth id stays below 2^53, like some ids in real exports */
        return gen_id_mix(c + core->id_key, 52);
    return (1ull << 62) + gen_id_mix(c + core->id_key, 62);
}

unsigned gen_weight_count(int layers)
{
    return (unsigned)layers * GEN_WEIGHTS_PER_LAYER + 2;
}

int gen_size_class(uint64_t bytes)
{
    return bytes < 512 ? GEN_SIZE_LT512 : bytes < 4096 ? GEN_SIZE_LT4096 : GEN_SIZE_GE4096;
}

const char *gen_group_name(int g, int layers, char *dst, size_t cap)
{
    if (g == GEN_GROUP_ALL)
        snprintf(dst, cap, "%s", "");
    else if (g == GEN_GROUP_EMBED)
        snprintf(dst, cap, "%s", "embed_tokens");
    else if (g == GEN_GROUP_NORM(layers))
        snprintf(dst, cap, "%s", "norm");
    else if (g == GEN_GROUP_HEAD(layers))
        snprintf(dst, cap, "%s", "lm_head");
    else
        snprintf(dst, cap, "decoder.layers.%d", g - GEN_GROUP_LAYER0);
    return dst;
}

/* ---- parameters and plan ---- */

static int gen_factor_ok(double f)
{
    return isfinite(f) && f >= GEN_MIN_FACTOR && f <= GEN_MAX_FACTOR;
}

int gen_params_check(const gen_params *p, gen_err *err)
{
    if (p->seed > INT64_MAX) {
        gen_err_set(err, "seed must be 0..%lld", (long long)INT64_MAX);
        return -1;
    }
    if (p->layers < 1 || p->layers > GEN_MAX_LAYERS) {
        gen_err_set(err, "layers must be 1..%d (got %d)", GEN_MAX_LAYERS, p->layers);
        return -1;
    }
    if (p->cores < 1 || p->cores > GEN_MAX_CORES) {
        gen_err_set(err, "cores must be 1..%d (got %d)", GEN_MAX_CORES, p->cores);
        return -1;
    }
    if (p->ipl < GEN_MIN_IPL || p->ipl > GEN_MAX_IPL) {
        gen_err_set(err, "instructions per layer must be %u..%u (got %u)", GEN_MIN_IPL, GEN_MAX_IPL, p->ipl);
        return -1;
    }
    if (!gen_factor_ok(p->warmup_factor) || !gen_factor_ok(p->outlier_factor)) {
        gen_err_set(err, "warm-up and outlier factors must be %.1f..%.1f (got %g and %g)", GEN_MIN_FACTOR,
                    GEN_MAX_FACTOR, p->warmup_factor, p->outlier_factor);
        return -1;
    }
    if (p->ranks < 1 || p->ranks > GEN_MAX_RANKS) {
        gen_err_set(err, "ranks must be 1..%d (got %d)", GEN_MAX_RANKS, p->ranks);
        return -1;
    }
    if (p->ranks > 1 && !p->capture) {
        gen_err_set(err, "ranks above 1 need capture (one capture directory per rank)");
        return -1;
    }
    if (p->executions < 1 || p->executions > GEN_MAX_EXECUTIONS) {
        gen_err_set(err, "executions must be 1..%d (got %d)", GEN_MAX_EXECUTIONS, p->executions);
        return -1;
    }
    if (p->kineto_target_bytes && !p->kineto) {
        gen_err_set(err, "kineto target bytes need kineto");
        return -1;
    }
    if ((p->memory_target_bytes || p->memory_oom || p->memory_layout || p->memory_devices > 1) &&
        !p->memory_snapshot) {
        gen_err_set(err, "memory snapshot options need memory_snapshot");
        return -1;
    }
    if (p->memory_target_bytes > GEN_MS_MAX_BYTES || p->memory_layout < 0 || p->memory_layout > 1 ||
        p->memory_devices < 0 || p->memory_devices > (int)GEN_MS_MAX_DEVICES) {
        gen_err_set(err, "memory snapshot: target at most %llu bytes, layout 0 or 1, devices 1..%u",
                    (unsigned long long)GEN_MS_MAX_BYTES, GEN_MS_MAX_DEVICES);
        return -1;
    }
    if (p->kineto_target_bytes > GEN_MAX_KINETO_BYTES) {
        gen_err_set(err, "kineto target bytes must be at most %llu (got %llu)",
                    (unsigned long long)GEN_MAX_KINETO_BYTES, (unsigned long long)p->kineto_target_bytes);
        return -1;
    }
    return 0;
}

/* Instructions of each row in one decoder layer; they sum to ipl (the two collective triggers are
 * part of the Sync row's count). */
static void gen_row_counts(uint32_t ipl, unsigned counts[GEN_ROW_COUNT])
{
    uint32_t used = 0;
    for (int r = 0; r < GEN_ROW_COUNT; r++) {
        counts[r] = (unsigned)((uint64_t)ipl * gen_rows[r].share_permille / 1000);
        used += counts[r];
    }
    for (int r = GEN_ROW_VECTOR; used < ipl; r = (r + 1) % GEN_ROW_COUNT, used++)
        counts[r]++;
}

void gen_plan_make(const gen_params *p, gen_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    gen_rng rng;
    gen_rng_seed(&rng, p->seed, 1);
    unsigned counts[GEN_ROW_COUNT];
    gen_row_counts(p->ipl, counts);
    plan->base_ns = (int64_t)GEN_SLOT_NS * (counts[GEN_ROW_TENSOR] + 1);
    plan->warmup_layer = 0;
    plan->outlier_layer = p->layers >= 3 ? 1 + (int)gen_rng_below(&rng, (uint64_t)p->layers - 1) : -1;
    for (int k = 0; k < p->layers; k++) {
        double f = 1.0 + GEN_JITTER * (2.0 * gen_rng_unit(&rng) - 1.0);
        if (k == plan->warmup_layer)
            f = p->warmup_factor;
        else if (k == plan->outlier_layer)
            f = p->outlier_factor;
        plan->factor[k] = f;
        plan->latency_ns[k] = llround((double)plan->base_ns * f);
    }
    plan->prologue_ns = plan->base_ns / 2 > 6000 ? plan->base_ns / 2 : 6000;
    plan->epilogue_ns = plan->base_ns / 3 > 5000 ? plan->base_ns / 3 : 5000;
    int64_t cc = plan->base_ns / 12;
    plan->cc_dur_ns = cc < 400 ? 400 : cc > 20000 ? 20000 : cc;
}

/* ---- placing instructions ---- */

static gen_instr *gen_push(gen_build *b, int64_t ts, int64_t dur, gen_op op, gen_row row, int group, int sub)
{
    gen_core *c = b->core;
    if (c->n_instr == c->cap_instr) {
        gen_instr *v = gen_grow(c->instr, &c->cap_instr, sizeof *v, 4096);
        if (!v) {
            c->oom = 1;
            return NULL;
        }
        c->instr = v;
    }
    gen_instr *in = &c->instr[c->n_instr++];
    memset(in, 0, sizeof *in);
    in->ts = ts;
    in->dur = dur;
    in->op = (uint8_t)op;
    in->row = (uint8_t)row;
    in->group = (int16_t)group;
    in->sub = (uint8_t)(sub < 0 ? 0 : sub);
    in->seq = b->seq++;
    in->xfer = -1;
    return in;
}

static gen_op gen_pick(gen_build *b, const gen_row_mix *mix)
{
    unsigned total = 0;
    for (unsigned i = 0; i < mix->n; i++)
        total += mix->items[i].weight;
    unsigned x = (unsigned)gen_rng_below(&b->rng, total);
    for (unsigned i = 0; i < mix->n; i++) {
        if (x < mix->items[i].weight)
            return mix->items[i].op;
        x -= mix->items[i].weight;
    }
    return mix->items[0].op;
}

/* Duration of one instruction in a slot of `slot` ns with `room` ns left in the window. */
static int64_t gen_draw_dur(gen_build *b, gen_op op, double slot, int64_t room, int in_layer, uint8_t *flags)
{
    const gen_op_info *oi = &gen_ops[op];
    int64_t d = gen_rng_range(&b->rng, oi->dur_lo, oi->dur_hi);
    int64_t cap = (int64_t)(0.7 * slot);
    if (op == GEN_OP_EVENT_SEMAPHORE && in_layer && gen_rng_chance(&b->rng, 15)) {
        d = (int64_t)(slot * (0.8 + 1.7 * gen_rng_unit(&b->rng))); /* waits into the next slots */
        cap = room;
        *flags |= GEN_IF_LONGWAIT;
    }
    if (d > cap)
        d = cap > 1 ? cap : 1;
    if (d > room)
        d = room;
    return d < 0 ? 0 : d;
}

static void gen_sched_row(gen_build *b, const gen_row_sched *rs)
{
    if (rs->count == 0 || rs->w1 <= rs->w0)
        return;
    double slot = (double)(rs->w1 - rs->w0) / rs->count;
    for (unsigned i = 0; i < rs->count; i++) {
        int64_t ts = rs->w0 + (int64_t)(i * slot + 0.25 * slot * gen_rng_unit(&b->rng));
        if (ts >= rs->w1)
            ts = rs->w1 - 1;
        gen_op op;
        int group = rs->group, sub;
        if (rs->fixed) {
            op = rs->fixed[i].op;
            sub = rs->fixed[i].sub;
            group = sub < 0 ? GEN_GROUP_NONE : sub == GEN_SUB_EMBED ? GEN_GROUP_EMBED
                  : sub == GEN_SUB_NORM ? GEN_GROUP_NORM(b->core->params->layers)
                                        : GEN_GROUP_HEAD(b->core->params->layers);
        } else {
            op = gen_pick(b, rs->mix);
            sub = (int)(rs->sub_first + (uint64_t)i * rs->sub_count / rs->count);
        }
        uint8_t flags = 0;
        int64_t dur = gen_draw_dur(b, op, slot, rs->w1 - ts, rs->fixed == NULL, &flags);
        gen_instr *in = gen_push(b, ts, dur, op, rs->row, group, sub);
        if (!in)
            return;
        in->flags |= flags;
    }
}

/* The collective trigger: a Sync WRITE (PSEUDO_DMA_TRIGGER on qCollective0) at exactly `ts`. */
static void gen_push_cc(gen_build *b, int64_t ts, int group, int sub)
{
    gen_core *c = b->core;
    int64_t dur = gen_rng_range(&b->rng, 30, 70);
    gen_instr *in = gen_push(b, ts, dur, GEN_OP_DMA_TRIGGER, GEN_ROW_SYNC, group, sub);
    if (!in)
        return;
    in->flags |= GEN_IF_CC;
    in->cc_index = (uint16_t)c->n_cc;
    c->cc_ts[c->n_cc++] = ts;
}

#define S(op) {GEN_OP_##op, -1}
#define E(op) {GEN_OP_##op, GEN_SUB_EMBED}
#define N(op) {GEN_OP_##op, GEN_SUB_NORM}
#define H(op) {GEN_OP_##op, GEN_SUB_HEAD}
static const gen_fixed gen_pro_tensor[] = {S(DRAIN), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE),
                                           S(EVENT_SEMAPHORE_RANGE_CLEAR), S(EVENT_SEMAPHORE), S(WRITE), S(NOTIFY),
                                           S(COMPARE_BRANCH), S(EVENT_SEMAPHORE), S(NOP)};
static const gen_fixed gen_pro_vector[] = {S(DRAIN), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE),
                                           S(EVENT_SEMAPHORE_RANGE_CLEAR), S(EVENT_SEMAPHORE), S(NOTIFY),
                                           S(COMPARE_BRANCH), E(TENSOR_COPY), E(TENSOR_COPY), E(TENSOR_COPY),
                                           E(TENSOR_COPY)};
static const gen_fixed gen_pro_scalar[] = {S(DRAIN), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE),
                                           S(EVENT_SEMAPHORE_RANGE_CLEAR), S(ACT_TABLE_LOAD), S(EVENT_SEMAPHORE),
                                           S(NOTIFY), S(COMPARE_BRANCH)};
static const gen_fixed gen_pro_gpsimd[] = {S(DRAIN), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE),
                                           S(EVENT_SEMAPHORE_RANGE_CLEAR), S(TENSOR_LOAD), S(TENSOR_LOAD),
                                           S(EVENT_SEMAPHORE), E(DMA_DIRECT2D), E(DMA_DIRECT2D), E(DMA_DIRECT2D),
                                           E(DMA_DIRECT2D), S(COMPARE_BRANCH), S(NOP)};
static const gen_fixed gen_pro_sync[] = {S(DRAIN), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE), S(SET_ORDERING_MODE),
                                         S(EVENT_SEMAPHORE_RANGE_CLEAR), S(EVENT_SEMAPHORE), S(WRITE),
                                         E(DMA_TRIGGER), E(DMA_TRIGGER), S(NOTIFY)};
static const gen_fixed gen_epi_tensor[] = {H(LDWEIGHTS), H(LDWEIGHTS), H(LDWEIGHTS), H(LDWEIGHTS),
                                           S(EVENT_SEMAPHORE), S(DRAIN), S(NOTIFY)};
static const gen_fixed gen_epi_matrix[] = {H(MATMUL), H(MATMUL), H(MATMUL), H(MATMUL)};
static const gen_fixed gen_epi_vector[] = {N(TENSOR_REDUCE), N(TENSOR_REDUCE), N(TENSOR_TENSOR), N(TENSOR_TENSOR),
                                           S(DRAIN), S(NOTIFY)};
static const gen_fixed gen_epi_scalar[] = {N(ACTIVATE), N(ACTIVATE), H(ACTIVATE), H(ACTIVATE), S(DRAIN), S(NOTIFY)};
static const gen_fixed gen_epi_gpsimd[] = {S(TENSOR_STORE), S(TENSOR_STORE), S(DRAIN), S(NOTIFY), S(WRITE)};
static const gen_fixed gen_epi_sync[] = {H(DMA_TRIGGER), H(DMA_TRIGGER), S(EVENT_SEMAPHORE), S(DRAIN), S(WRITE),
                                         S(NOTIFY)};
#undef S
#undef E
#undef N
#undef H

typedef struct gen_fixed_list {
    const gen_fixed *items;
    unsigned n;
} gen_fixed_list;
#define GEN_FL(a) {a, sizeof(a) / sizeof((a)[0])}
static const gen_fixed_list gen_prologue[GEN_ROW_COUNT] = {
    GEN_FL(gen_pro_tensor), {NULL, 0}, GEN_FL(gen_pro_vector), GEN_FL(gen_pro_scalar), GEN_FL(gen_pro_gpsimd),
    GEN_FL(gen_pro_sync)};
static const gen_fixed_list gen_epilogue[GEN_ROW_COUNT] = {
    GEN_FL(gen_epi_tensor), GEN_FL(gen_epi_matrix), GEN_FL(gen_epi_vector), GEN_FL(gen_epi_scalar),
    GEN_FL(gen_epi_gpsimd), GEN_FL(gen_epi_sync)};
#undef GEN_FL

static void gen_sched_fixed(gen_build *b, int64_t w0, int64_t w1, const gen_fixed_list lists[GEN_ROW_COUNT])
{
    for (int r = 0; r < GEN_ROW_COUNT; r++) {
        gen_row_sched rs = {.w0 = w0, .w1 = w1, .row = (gen_row)r, .count = lists[r].n, .fixed = lists[r].items};
        gen_sched_row(b, &rs);
    }
}

static void gen_sched_phase(gen_build *b, int layer, int phase, int64_t w0, int64_t w1, const unsigned counts[])
{
    unsigned first = phase == 0 ? 0 : 7, nsub = phase == 0 ? 7 : GEN_SUBS_PER_LAYER - 7;
    for (int r = 0; r < GEN_ROW_COUNT; r++) {
        unsigned c = counts[r] - (r == GEN_ROW_SYNC ? GEN_CC_PER_LAYER : 0);
        unsigned ca = (c * GEN_PHASE_A_PERCENT + 50) / 100;
        gen_row_sched rs = {.w0 = w0, .w1 = w1, .row = (gen_row)r, .count = phase == 0 ? ca : c - ca,
                            .group = GEN_GROUP_LAYER0 + layer, .sub_first = first, .sub_count = nsub,
                            .mix = &gen_layer_mix[r]};
        gen_sched_row(b, &rs);
    }
}

static void gen_sched_layer(gen_build *b, int k, const unsigned counts[])
{
    gen_core *c = b->core;
    int64_t a = c->layer_start[k], lat = c->plan->latency_ns[k];
    int64_t m = a + lat * GEN_PHASE_A_PERCENT / 100;
    c->layer_mid[k] = m;
    c->layer_start[k + 1] = a + lat;
    gen_push_cc(b, a, GEN_GROUP_LAYER0 + k, 0);
    gen_sched_phase(b, k, 0, a + GEN_WINDOW_LEAD_NS, m - GEN_WINDOW_TAIL_NS, counts);
    gen_push_cc(b, m, GEN_GROUP_LAYER0 + k, 7);
    gen_sched_phase(b, k, 1, m + GEN_WINDOW_LEAD_NS, a + lat - GEN_WINDOW_TAIL_NS, counts);
}

static void gen_schedule(gen_build *b)
{
    gen_core *c = b->core;
    const gen_plan *pl = c->plan;
    int L = c->params->layers;
    int64_t P = pl->prologue_ns + 173 * c->nc; /* cores start their layers a little apart */
    unsigned counts[GEN_ROW_COUNT];
    gen_row_counts(c->params->ipl, counts);
    gen_sched_fixed(b, GEN_FIRST_TS, P / 2 - GEN_WINDOW_TAIL_NS, gen_prologue);
    gen_push_cc(b, P / 2, GEN_GROUP_EMBED, GEN_SUB_EMBED);
    c->layer_start[0] = P;
    for (int k = 0; k < L; k++)
        gen_sched_layer(b, k, counts);
    int64_t aL = c->layer_start[L];
    gen_push_cc(b, aL, GEN_GROUP_NORM(L), GEN_SUB_NORM);
    gen_sched_fixed(b, aL + GEN_WINDOW_LEAD_NS, aL + pl->epilogue_ns, gen_epilogue);
}

/* Sort by (timestamp, creation order) through 16-byte keys, then gather once: moving the ~150-byte records
 * inside qsort would dominate the run time of a gigabyte profile. */
typedef struct gen_sort_key {
    int64_t ts;
    uint32_t seq, idx;
} gen_sort_key;

static int gen_sort_key_cmp(const void *a, const void *b)
{
    const gen_sort_key *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static void gen_sort_instructions(gen_core *c)
{
    size_t n = c->n_instr;
    gen_sort_key *keys = malloc((n + 1) * sizeof *keys);
    gen_instr *sorted = malloc((n + 1) * sizeof *sorted);
    if (!keys || !sorted) {
        free(keys);
        free(sorted);
        c->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = (gen_sort_key){c->instr[i].ts, c->instr[i].seq, (uint32_t)i};
    qsort(keys, n, sizeof *keys, gen_sort_key_cmp);
    for (size_t i = 0; i < n; i++)
        sorted[i] = c->instr[keys[i].idx];
    free(keys);
    free(c->instr);
    c->instr = sorted;
    c->cap_instr = n + 1;
}

/* ---- decoration, in timestamp order ---- */

typedef struct gen_deco {
    uint32_t pc[GEN_ENG_COUNT];
    int64_t row_end[GEN_ROW_COUNT];
    uint32_t bir;
    uint64_t last_ldw, last_mm, last_trig;
    int64_t next_fetch; /* next instruction-fetch DMA time */
} gen_deco;

static uint32_t gen_pick_cols(gen_rng *rng)
{
    static const uint32_t cols[] = {128, 256, 512, 512};
    return cols[gen_rng_below(rng, 4)];
}

static void gen_deco_bytes(gen_rng *rng, gen_instr *in)
{
    switch ((gen_op)in->op) {
    case GEN_OP_MATMUL:
        in->k = 128;
        in->m = gen_rng_chance(rng, 80) ? 128 : 64;
        in->n = gen_pick_cols(rng);
        if (gen_rng_chance(rng, 15)) {
            in->flags |= GEN_IF_TRANSPOSE;
            in->m = 128;
            in->n = 128;
        }
        in->sbuf_r = in->k * in->n * 2;
        in->psum_w = in->m * in->n * 4;
        break;
    case GEN_OP_LDWEIGHTS:
        in->k = 128;
        in->m = 128;
        in->sbuf_r = in->k * in->m * 2;
        break;
    case GEN_OP_ACTIVATE:
        in->n = gen_pick_cols(rng);
        in->psum_r = 128 * in->n * 4;
        in->sbuf_w = 128 * in->n * 2;
        if (gen_rng_chance(rng, 50)) {
            in->flags |= GEN_IF_PSRW;
            in->psrw = in->sbuf_w;
        }
        break;
    case GEN_OP_TENSOR_TENSOR:
        in->n = gen_pick_cols(rng);
        in->sbuf_r = 2 * 128 * in->n * 2;
        in->sbuf_w = 128 * in->n * 2;
        break;
    case GEN_OP_TENSOR_COPY:
        in->n = gen_pick_cols(rng);
        in->sbuf_r = in->sbuf_w = 128 * in->n * 2;
        break;
    case GEN_OP_TENSOR_REDUCE:
        in->n = gen_pick_cols(rng);
        in->sbuf_r = 128 * in->n * 2;
        in->sbuf_w = 128 * 4;
        break;
    default:
        break;
    }
}

static void gen_deco_source(gen_build *b, gen_instr *in)
{
    const gen_op_info *oi = &gen_ops[in->op];
    if (in->group == GEN_GROUP_NONE)
        return;
    unsigned pct = (oi->flags & GEN_OPF_SOURCE) ? 90 : (oi->flags & GEN_OPF_SEM) ? 50 : 0;
    if (pct == 0)
        return;
    if (b->core->params->no_source || !gen_rng_chance(&b->rng, pct))
        return;
    in->flags |= GEN_IF_SOURCE;
    in->src_line = (uint16_t)(gen_subs[in->sub].line + gen_op_line_offset((gen_op)in->op));
}

static void gen_deco_links(gen_deco *d, gen_instr *in)
{
    if (in->op == GEN_OP_MATMUL) {
        if (d->last_ldw)
            in->pred[in->npred++] = d->last_ldw;
        if (d->last_trig)
            in->pred[in->npred++] = d->last_trig;
        d->last_mm = in->id;
    } else if (in->op == GEN_OP_ACTIVATE && d->last_mm) {
        in->pred[in->npred++] = d->last_mm;
    } else if (in->op == GEN_OP_LDWEIGHTS) {
        d->last_ldw = in->id;
    } else if (in->op == GEN_OP_DMA_TRIGGER) {
        d->last_trig = in->id;
    }
}

static void gen_deco_wait(gen_build *b, gen_deco *d, gen_instr *in)
{
    int64_t gap = in->ts - d->row_end[in->row];
    int warm = in->group == GEN_GROUP_LAYER0 + b->core->plan->warmup_layer;
    if (gap > 0 && in->group != GEN_GROUP_NONE && !(in->flags & GEN_IF_LONGWAIT) &&
        gen_rng_chance(&b->rng, warm ? 60 : 20))
        in->evt_wait = 1 + (int64_t)gen_rng_below(&b->rng, (uint64_t)gap);
    if (in->ts + in->dur > d->row_end[in->row])
        d->row_end[in->row] = in->ts + in->dur;
}

static void gen_decorate_one(gen_build *b, gen_deco *d, gen_instr *in)
{
    gen_core *c = b->core;
    in->id = gen_core_next_id(c);
    in->pc = d->pc[gen_rows[in->row].engine]++;
    in->crc_in = in->crc_out = 65535;
    if (in->group != GEN_GROUP_NONE) {
        in->bir = d->bir++;
        in->penguin = in->bir - 9;
        in->crc_in = (uint16_t)gen_rng_below(&b->rng, 65536);
        in->crc_out = (uint16_t)gen_rng_below(&b->rng, 65536);
    }
    gen_deco_wait(b, d, in);
    gen_deco_bytes(&b->rng, in);
    gen_deco_source(b, in);
    if (gen_ops[in->op].flags & GEN_OPF_DMA)
        gen_dma_for_instr(c, &b->rng, in);
    gen_deco_links(d, in);
    while (in->ts >= d->next_fetch) { /* instruction-fetch traffic every ~quarter layer */
        int layer = in->group >= GEN_GROUP_LAYER0 && in->group < GEN_GROUP_NORM(c->params->layers)
                        ? in->group - GEN_GROUP_LAYER0 : -1;
        gen_dma_instruction_fetch(c, &b->rng, d->next_fetch, layer);
        d->next_fetch += c->plan->base_ns / 4;
    }
}

static void gen_decorate(gen_build *b)
{
    gen_deco d;
    memset(&d, 0, sizeof d);
    for (int e = 0; e < GEN_ENG_COUNT; e++)
        d.pc[e] = 40;
    d.bir = 50;
    d.next_fetch = 1000;
    for (size_t i = 0; i < b->core->n_instr && !b->core->oom; i++)
        gen_decorate_one(b, &d, &b->core->instr[i]);
}

/* ---- CC-core events of each collective (show-session "Collectives trace") ---- */

static void gen_cc_push(gen_core *c, int64_t ts, int64_t dur, gen_cc_type type, unsigned coll)
{
    if (c->n_cc_ev == c->cap_cc_ev) {
        gen_cc_event *v = gen_grow(c->cc, &c->cap_cc_ev, sizeof *v, 256);
        if (!v) {
            c->oom = 1;
            return;
        }
        c->cc = v;
    }
    c->cc[c->n_cc_ev++] = (gen_cc_event){ts, dur, (uint8_t)type, (uint16_t)coll};
}

/* Per collective: TPB_TRIGGER, a SEMAPHORE_WAIT, the mesh algorithm (gather for odd collectives, reduce
 * for even ones) and three DMA_ADVANCE steps inside it, all within cc_dur_ns of the trigger. */
static void gen_cc_events(gen_build *b)
{
    gen_core *c = b->core;
    int64_t D = c->plan->cc_dur_ns;
    for (unsigned i = 0; i < c->n_cc; i++) {
        int64_t t = c->cc_ts[i];
        gen_cc_push(c, t, 40, GEN_CC_TPB_TRIGGER, i);
        int64_t w = gen_rng_range(&b->rng, 100, D / 4 > 100 ? D / 4 : 100);
        gen_cc_push(c, t + 50, w, GEN_CC_SEMAPHORE_WAIT, i);
        int64_t a0 = t + 100 + w, a1 = t + D - 50;
        gen_cc_push(c, a0, a1 - a0, (i % 2) ? GEN_CC_ALGO_GATHER : GEN_CC_ALGO_REDUCE, i);
        int64_t step = (a1 - a0) / 3;
        for (int j = 0; j < 3; j++)
            gen_cc_push(c, a0 + 20 + j * step, step / 2, GEN_CC_DMA_ADVANCE, i);
    }
}

int gen_core_build(const gen_params *p, const gen_plan *plan, int nc, gen_core *core)
{
    memset(core, 0, sizeof *core);
    core->params = p;
    core->plan = plan;
    core->nc = nc;
    uint64_t key = p->seed ^ (0x5851f42d4c957f2dull * (uint64_t)(nc + 1));
    core->id_key = gen_rng_mix(&key);
    gen_build b = {.core = core};
    gen_rng_seed(&b.rng, p->seed, 100 + (uint64_t)nc);
    gen_schedule(&b);
    if (!core->oom)
        gen_sort_instructions(core);
    if (!core->oom)
        gen_decorate(&b);
    if (!core->oom)
        gen_cc_events(&b);
    if (!core->oom)
        gen_stats_compute(core);
    if (core->oom) {
        gen_core_free(core);
        return -1;
    }
    return 0;
}

void gen_core_free(gen_core *core)
{
    free(core->instr);
    free(core->xfer);
    free(core->pkt);
    free(core->cc);
    free(core->groups);
    free(core->weight_loaded);
    free(core->weight_loads);
    for (int e = 0; e < GEN_ENG_COUNT; e++)
        gen_spans_free(&core->active[e]);
    memset(core, 0, sizeof *core);
}
