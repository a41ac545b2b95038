/* gen_stats — every number the writers report, computed once from a core's arrays.
 *
 * Definitions (the test in tests/unit/test_gen_profile.py recomputes them from the written records):
 * - busy / active time of an engine = length of the union of [timestamp, timestamp+duration) over the
 *   engine's instructions whose opcode is not exactly EVENT_SEMAPHORE (engine = subgroup; Tensor covers the
 *   Tensor and TensorMatrix rows). An EVENT_SEMAPHORE's duration is time blocked on the semaphore, so the
 *   real exports leave it out (EVENT_SEMAPHORE_RANGE_CLEAR stays in); neuronlens relies on that
 *   (analyzers/analyses/device_summary.c). Intervals, in timestamp order, merge when they overlap or touch.
 *   The merged intervals are the active_time records; a zero-length instruction that no interval covers or
 *   touches stays a zero-length record, as in the real exports.
 * - instruction time (summary E_engine_instruction_time, layer_summary E_engine_instruction_time) = Σ
 *   duration over the same instructions (without EVENT_SEMAPHORE): the relation of the three real samples,
 *   where e.g. Vector's instruction time equals its active time while one of its EVENT_SEMAPHOREs lasts
 *   1.86 ms. Instruction counts include every instruction. expected.json's duration_sum_ns stays the plain
 *   Σ duration of all instructions. Layer groups (layer_summary) use the same rules over their instructions.
 * - DMA: static = packets on data and instruction queues, software_dynamic = packets on the DGE queue;
 *   their active times are the unions of their packet intervals and dma_active_time is their sum.
 *   Size classes: < 512 B, 512..4095 B, >= 4096 B, applied to packet transfer_size and to aggregated
 *   records' transfer_size.
 * - total time = last_hw_timestamp = the latest end of any instruction or DMA packet (first_hw = 0).
 * - total_active = union of the active_time records (so again without EVENT_SEMAPHORE) and all packet
 *   intervals (formats.md §5.1: total_active_time ≈ union of active_time[] and packet-level dma[]).
 *
 * Out of memory sets core->oom; the results are then incomplete and gen_core_build discards them. */
#include "gen_model.h"

#include <stdlib.h>
#include <string.h>

typedef struct gen_sweep {
    int64_t s, e, total;
    int open;
} gen_sweep;

/* Add [s, e) to a sweep whose starts arrive in nondecreasing order; finished spans go to `out`. An empty
 * interval is absorbed by an open span that covers or touches it, else it becomes a zero-length span. */
static void gen_sweep_add(gen_sweep *w, int64_t s, int64_t e, gen_spans *out)
{
    if (e < s)
        return;
    if (w->open && s <= w->e) {
        if (e > w->e)
            w->e = e;
        return;
    }
    if (w->open) {
        w->total += w->e - w->s;
        if (out)
            gen_spans_push(out, w->s, w->e);
    }
    w->s = s;
    w->e = e;
    w->open = 1;
}

static void gen_sweep_close(gen_sweep *w, gen_spans *out)
{
    if (w->open) {
        w->total += w->e - w->s;
        if (out)
            gen_spans_push(out, w->s, w->e);
    }
    w->open = 0;
}

/* Opcodes whose duration is blocked time, left out of active time and instruction time. */
static int gen_is_wait(const gen_instr *in)
{
    return in->op == GEN_OP_EVENT_SEMAPHORE;
}

static void gen_stats_group(gen_group_stats *g, gen_sweep *sw, const gen_instr *in, gen_engine e, uint64_t flops)
{
    int64_t end = in->ts + in->dur;
    if (in->ts < g->start)
        g->start = in->ts;
    if (end > g->end)
        g->end = end;
    g->eng[e].count++;
    g->eng[e].dur_sum += in->dur;
    g->flops += flops;
    if (in->flags & GEN_IF_TRANSPOSE)
        g->transpose_flops += flops;
    if (gen_is_wait(in))
        return;
    g->instr_time[e] += in->dur;
    gen_sweep_add(&sw[e], in->ts, end, NULL);
}

static void gen_stats_bytes(gen_stats *st, const gen_instr *in)
{
    st->hbm_r += in->hbm_r;
    st->hbm_w += in->hbm_w;
    st->sbuf_r += in->sbuf_r;
    st->sbuf_w += in->sbuf_w;
    st->psum_r += in->psum_r;
    st->psum_w += in->psum_w;
    st->psrw_bytes += in->psrw;
    st->psrw_count += (in->flags & GEN_IF_PSRW) != 0;
    st->spill_save += in->spill_save;
    st->spill_reload += in->spill_reload;
    st->weight_q += in->weight_q;
}

static int gen_source_eligible(const gen_instr *in)
{
    return in->group != GEN_GROUP_NONE && (gen_ops[in->op].flags & (GEN_OPF_SOURCE | GEN_OPF_SEM));
}

static void gen_stats_one(gen_core *c, gen_sweep *sw, gen_sweep *gsw, const gen_instr *in)
{
    gen_stats *st = &c->st;
    gen_engine e = gen_rows[in->row].engine;
    uint64_t flops = in->op == GEN_OP_MATMUL ? 2ull * in->k * in->m * in->n : 0;
    st->eng[e].count++;
    st->eng[e].dur_sum += in->dur;
    st->row[in->row].count++;
    st->row[in->row].dur_sum += in->dur;
    st->op[in->op].count++;
    st->op[in->op].dur_sum += in->dur;
    st->eng_op[e][in->op].count++;
    st->eng_op[e][in->op].dur_sum += in->dur;
    st->with_source += (in->flags & GEN_IF_SOURCE) != 0;
    st->source_eligible += gen_source_eligible(in);
    st->with_evt_wait += in->evt_wait > 0;
    st->evt_wait_sum += in->evt_wait;
    st->dma_triggers += (gen_ops[in->op].flags & GEN_OPF_DMA) != 0;
    st->flops += flops;
    if (in->flags & GEN_IF_TRANSPOSE)
        st->transpose_flops += flops;
    gen_stats_bytes(st, in);
    if (!gen_is_wait(in)) {
        st->instr_time[e] += in->dur;
        gen_sweep_add(&sw[e], in->ts, in->ts + in->dur, &c->active[e]);
    }
    gen_stats_group(&c->groups[GEN_GROUP_ALL], &gsw[GEN_GROUP_ALL * GEN_ENG_COUNT], in, e, flops);
    if (in->group != GEN_GROUP_NONE)
        gen_stats_group(&c->groups[in->group], &gsw[in->group * GEN_ENG_COUNT], in, e, flops);
}

static void gen_stats_instructions(gen_core *c)
{
    int G = GEN_GROUP_COUNT(c->params->layers);
    c->groups = calloc((size_t)G, sizeof *c->groups);
    gen_sweep *gsw = calloc((size_t)G * GEN_ENG_COUNT, sizeof *gsw);
    if (!c->groups || !gsw) {
        free(gsw);
        c->oom = 1;
        return;
    }
    for (int g = 0; g < G; g++)
        c->groups[g].start = INT64_MAX;
    gen_sweep sw[GEN_ENG_COUNT];
    memset(sw, 0, sizeof sw);
    for (size_t i = 0; i < c->n_instr; i++)
        gen_stats_one(c, sw, gsw, &c->instr[i]);
    for (int e = 0; e < GEN_ENG_COUNT; e++) {
        gen_sweep_close(&sw[e], &c->active[e]);
        c->st.busy[e] = sw[e].total;
        if (c->active[e].failed)
            c->oom = 1;
        for (size_t i = 0; i < c->active[e].n; i++)
            c->st.zero_rows[e] += c->active[e].v[i].end == c->active[e].v[i].start;
    }
    for (int g = 0; g < G; g++) {
        for (int e = 0; e < GEN_ENG_COUNT; e++) {
            gen_sweep_close(&gsw[g * GEN_ENG_COUNT + e], NULL);
            c->groups[g].busy[e] = gsw[g * GEN_ENG_COUNT + e].total;
        }
    }
    free(gsw);
    c->st.n_instr = c->n_instr;
}

static void gen_count_bytes(gen_bytes_count *b, uint64_t bytes)
{
    b->count++;
    b->bytes += bytes;
}

static void gen_stats_packets(gen_core *c)
{
    gen_stats *st = &c->st;
    gen_spans stat = {0}, dyn = {0};
    for (size_t i = 0; i < c->n_pkt; i++) {
        const gen_pkt *p = &c->pkt[i];
        const gen_xfer *x = &c->xfer[p->xfer];
        gen_count_bytes(&st->pkt, p->size);
        gen_count_bytes(&st->pkt_class[gen_size_class(p->size)], p->size);
        st->pkt_dur_sum += p->dur;
        st->unknown_var_pkts += x->unknown;
        st->cc_dma_records += gen_queues[x->queue].is_cc;
        int dynamic = x->queue == GEN_Q_DGE;
        gen_count_bytes(dynamic ? &st->qtype_swdyn : &st->qtype_static, p->size);
        gen_spans_push(dynamic ? &dyn : &stat, p->ts, p->ts + p->dur);
    }
    if (stat.failed || dyn.failed)
        c->oom = 1;
    st->static_busy = gen_spans_union(stat.v, stat.n);
    st->swdyn_busy = gen_spans_union(dyn.v, dyn.n);
    gen_spans_free(&stat);
    gen_spans_free(&dyn);
    st->pkt_records = c->n_pkt;
    st->pkt_groups = c->n_xfer;
}

static void gen_stats_transfers(gen_core *c)
{
    gen_stats *st = &c->st;
    for (size_t i = 0; i < c->n_xfer; i++) {
        const gen_xfer *x = &c->xfer[i];
        if (!x->has_agg)
            continue;
        gen_count_bytes(&st->agg, x->bytes);
        gen_count_bytes(&st->agg_class[gen_size_class(x->bytes)], x->bytes);
        st->agg_dur_sum += x->end - x->ts;
        st->cc_dma_records += gen_queues[x->queue].is_cc;
    }
    st->agg_records = st->agg.count;
    st->dma_records = st->agg_records + st->pkt_records;
}

static void gen_stats_weights(gen_core *c)
{
    c->n_weights = gen_weight_count(c->params->layers);
    c->weight_loaded = calloc(c->n_weights, sizeof *c->weight_loaded);
    c->weight_loads = calloc(c->n_weights, sizeof *c->weight_loads);
    if (!c->weight_loaded || !c->weight_loads) {
        c->oom = 1;
        return;
    }
    for (size_t i = 0; i < c->n_xfer; i++) {
        const gen_xfer *x = &c->xfer[i];
        if (x->kind == GEN_VAR_WEIGHT && x->var >= 0 && (unsigned)x->var < c->n_weights) {
            c->weight_loaded[x->var] += x->bytes;
            c->weight_loads[x->var]++;
        }
    }
    for (unsigned w = 0; w < c->n_weights; w++)
        c->st.weight_size += gen_weight_size(c, w);
    c->st.input_size = GEN_INPUT_BYTES;
    c->st.output_size = GEN_OUTPUT_BYTES;
}

static void gen_stats_collectives(gen_core *c)
{
    gen_stats *st = &c->st;
    int64_t D = c->plan->cc_dur_ns;
    gen_span *v = malloc((c->n_cc + c->n_cc_ev + 1) * sizeof *v);
    if (!v) {
        c->oom = 1;
        return;
    }
    for (unsigned i = 0; i < c->n_cc; i++)
        v[i] = (gen_span){c->cc_ts[i], c->cc_ts[i] + D};
    st->cc_count = c->n_cc;
    st->cc_time = (int64_t)c->n_cc * D;
    st->cc_active = gen_spans_union(v, c->n_cc);
    for (size_t i = 0; i < c->n_cc_ev; i++) {
        v[i] = (gen_span){c->cc[i].ts, c->cc[i].ts + c->cc[i].dur};
        st->cc_core_time += c->cc[i].dur;
    }
    st->cc_core_count = c->n_cc_ev;
    st->cc_core_active = gen_spans_union(v, c->n_cc_ev);
    free(v);
}

static void gen_stats_totals(gen_core *c)
{
    gen_stats *st = &c->st;
    size_t n = c->n_pkt;
    for (int e = 0; e < GEN_ENG_COUNT; e++)
        n += c->active[e].n;
    gen_span *v = malloc((n + 1) * sizeof *v);
    if (!v) {
        c->oom = 1;
        return;
    }
    size_t k = 0;
    int64_t last = 0;
    for (int e = 0; e < GEN_ENG_COUNT; e++)
        for (size_t i = 0; i < c->active[e].n; i++)
            v[k++] = c->active[e].v[i];
    for (size_t i = 0; i < c->n_instr; i++)
        if (c->instr[i].ts + c->instr[i].dur > last)
            last = c->instr[i].ts + c->instr[i].dur;
    for (size_t i = 0; i < c->n_pkt; i++) {
        v[k++] = (gen_span){c->pkt[i].ts, c->pkt[i].ts + c->pkt[i].dur};
        if (c->pkt[i].ts + c->pkt[i].dur > last)
            last = c->pkt[i].ts + c->pkt[i].dur;
    }
    st->total_active = gen_spans_union(v, k);
    free(v);
    st->last_hw = last;
    st->total_ns = last;
    st->sem_updates = st->op[GEN_OP_EVENT_SEMAPHORE].count;
    st->pending_dma = 2u * (unsigned)(c->params->layers + 2);
    st->dma_throughput = (unsigned)c->params->layers + 2;
    st->instr_usage = 2u * (unsigned)c->params->layers;
    st->ham = GEN_HAM_RECORDS;
    st->ham_active = GEN_HAM_RECORDS * GEN_HAM_DURATION_NS;
}

uint64_t gen_weight_size(const gen_core *c, unsigned w)
{
    const uint64_t mib = 1u << 20;
    uint64_t loaded = c->weight_loaded[w];
    uint64_t size = (loaded + mib - 1) / mib * mib;
    return size < mib ? mib : size;
}

void gen_stats_compute(gen_core *c)
{
    memset(&c->st, 0, sizeof c->st);
    gen_stats_instructions(c);
    if (!c->oom)
        gen_stats_packets(c);
    if (!c->oom)
        gen_stats_transfers(c);
    if (!c->oom)
        gen_stats_weights(c);
    if (!c->oom)
        gen_stats_collectives(c);
    if (!c->oom)
        gen_stats_totals(c);
}
