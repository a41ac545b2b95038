/* gen_dma — DMA transfers and packets of the synthetic profile, shaped like formats.md §4.3.
 *
 * One transfer (gen_xfer) per DMA-trigger instruction, plus untriggered instruction-fetch traffic:
 *
 *   queue                  trigger                          size (data bytes)            aggregated record
 *   qSyncSpillReload0 (data)  Sync WRITE/PSEUDO_DMA_TRIGGER  weights: 2..8 engines × 16..128 KiB   yes
 *   qSyncIO0 (data)        Sync WRITE/PSEUDO_DMA_TRIGGER     spill save/reload, 512..4032 B       yes
 *   qGpSimdDynamic (software_dynamic)  GpSimd DMA_DIRECT2D  65%: 64..480 B, 35%: 512..4032 B   no with --missing-dge
 *   Q14 (instruction)      none                              1024 + 8 + 4 B packets               never
 *   qCollective0 (data, is_cc_dma) the collective trigger    4 engines × 64 KiB                   yes
 *
 * Each engine of a transfer carries one data packet (packet_idx 0) and one 4-byte completion packet
 * (packet_idx 1), as in the samples; the aggregated record's transfer_size counts data packets only and
 * its [timestamp, timestamp+duration) is the hull of all its packets. The instruction's `trigger` is the
 * transfer's start and the record's `trigger` is the instruction's timestamp. Packet records are written
 * per transfer in engine order, so the dma array is not sorted by time (like the real exports).
 *
 * Out of memory: gen_xfer_new returns GEN_NO_XFER and sets core->oom; the callers give up on the
 * transfer (the whole build is abandoned at the end of the phase). */
#include "gen_model.h"

#include <stdint.h>
#include <string.h>

#define GEN_PKT_COMPLETION_BYTES 4
#define GEN_NO_XFER UINT32_MAX

static uint32_t gen_xfer_new(gen_core *c, gen_queue q, gen_var_kind kind, int64_t trigger)
{
    if (c->oom)
        return GEN_NO_XFER;
    if (c->n_xfer == c->cap_xfer) {
        gen_xfer *v = gen_grow(c->xfer, &c->cap_xfer, sizeof *v, 1024);
        if (!v) {
            c->oom = 1;
            return GEN_NO_XFER;
        }
        c->xfer = v;
    }
    uint32_t xi = (uint32_t)c->n_xfer++;
    gen_xfer *x = &c->xfer[xi];
    memset(x, 0, sizeof *x);
    x->agg_id = gen_core_next_id(c);
    x->trigger = trigger;
    x->ts = INT64_MAX;
    x->end = 0;
    x->first_pkt = (uint32_t)c->n_pkt;
    x->var = -1;
    x->layer = -1;
    x->queue = (uint8_t)q;
    x->kind = (uint8_t)kind;
    x->has_agg = 1;
    return xi;
}

static void gen_pkt_push(gen_core *c, uint32_t xi, int64_t ts, int64_t dur, uint32_t size, unsigned engine,
                         unsigned idx, int completion)
{
    if (c->n_pkt == c->cap_pkt) {
        gen_pkt *v = gen_grow(c->pkt, &c->cap_pkt, sizeof *v, 4096);
        if (!v) {
            c->oom = 1;
            return;
        }
        c->pkt = v;
    }
    gen_pkt *p = &c->pkt[c->n_pkt++];
    p->id = gen_core_next_id(c);
    p->ts = ts;
    p->dur = dur < 1 ? 1 : dur;
    p->size = size;
    p->xfer = xi;
    p->engine = (uint8_t)engine;
    p->idx = (uint8_t)idx;
    p->completion = (uint8_t)completion;
    gen_xfer *x = &c->xfer[xi];
    x->n_pkt++;
    if (ts < x->ts)
        x->ts = ts;
    if (ts + p->dur > x->end)
        x->end = ts + p->dur;
    if (!completion)
        x->bytes += size;
}

/* Data + completion packets on `engines` DMA engines, `per_engine` data bytes each. */
static void gen_xfer_packets(gen_core *c, gen_rng *rng, uint32_t xi, int64_t start, unsigned engines,
                             uint32_t per_engine, double bytes_per_ns)
{
    unsigned base = (unsigned)gen_rng_below(rng, 16);
    for (unsigned i = 0; i < engines; i++) {
        unsigned e = (base + i) % 16;
        int64_t ts = start + (int64_t)gen_rng_below(rng, 40);
        int64_t dur = 20 + (int64_t)(per_engine / bytes_per_ns);
        gen_pkt_push(c, xi, ts, dur, per_engine, e, 0, 0);
        int64_t cts = ts + dur + (int64_t)gen_rng_below(rng, 30);
        gen_pkt_push(c, xi, cts, gen_rng_range(rng, 5, 9), GEN_PKT_COMPLETION_BYTES, e, 1, 1);
    }
    c->xfer[xi].engines = (uint8_t)engines;
}

static uint16_t gen_next_block(gen_core *c, gen_queue q)
{
    return (uint16_t)(c->block_next[q]++ & 0xffff);
}

static int gen_layer_of(const gen_core *c, const gen_instr *in)
{
    int L = c->params->layers;
    return in->group >= GEN_GROUP_LAYER0 && in->group < GEN_GROUP_NORM(L) ? in->group - GEN_GROUP_LAYER0 : -1;
}

static void gen_dma_weights(gen_core *c, gen_rng *rng, gen_instr *in, int64_t start)
{
    static const uint32_t per[] = {16384, 32768, 65536, 131072};
    int L = c->params->layers, layer = gen_layer_of(c, in);
    uint32_t xi = gen_xfer_new(c, GEN_Q_WEIGHTS, GEN_VAR_WEIGHT, in->ts);
    if (xi == GEN_NO_XFER)
        return;
    unsigned engines = 2 + (unsigned)gen_rng_below(rng, 7);
    gen_xfer_packets(c, rng, xi, start, engines, per[gen_rng_below(rng, 4)], 24.0);
    gen_xfer *x = &c->xfer[xi];
    x->layer = (int16_t)layer;
    if (layer >= 0)
        x->var = layer * GEN_WEIGHTS_PER_LAYER + gen_subs[in->sub].weight;
    else
        x->var = L * GEN_WEIGHTS_PER_LAYER + (in->group == GEN_GROUP_EMBED ? 0 : 1);
    in->hbm_r = in->sbuf_w = in->weight_q = x->bytes;
    in->xfer = (int32_t)xi;
}

static void gen_dma_spill(gen_core *c, gen_rng *rng, gen_instr *in, int64_t start)
{
    uint32_t xi = gen_xfer_new(c, GEN_Q_SPILL, GEN_VAR_SPILL, in->ts);
    if (xi == GEN_NO_XFER)
        return;
    uint32_t bytes = 512 + 64 * (uint32_t)gen_rng_below(rng, 57);
    gen_xfer_packets(c, rng, xi, start, 1, bytes, 12.0);
    gen_xfer *x = &c->xfer[xi];
    x->layer = (int16_t)gen_layer_of(c, in);
    x->store = (uint8_t)gen_rng_chance(rng, 40);
    x->var = (int32_t)(c->n_xfer % 64);
    if (x->store) {
        in->sbuf_r = in->hbm_w = in->spill_save = x->bytes;
    } else {
        in->hbm_r = in->sbuf_w = in->spill_reload = x->bytes;
    }
    in->xfer = (int32_t)xi;
}

static void gen_dma_dge(gen_core *c, gen_rng *rng, gen_instr *in, int64_t start)
{
    gen_var_kind kind = in->group == GEN_GROUP_EMBED ? GEN_VAR_IO : GEN_VAR_KV;
    uint32_t xi = gen_xfer_new(c, GEN_Q_DGE, kind, in->ts);
    if (xi == GEN_NO_XFER)
        return;
    int small = gen_rng_chance(rng, 65);
    uint32_t bytes = small ? 64 + 16 * (uint32_t)gen_rng_below(rng, 27) : 512 + 128 * (uint32_t)gen_rng_below(rng, 28);
    unsigned engines = small ? 1 : 2;
    gen_xfer_packets(c, rng, xi, start, engines, bytes / engines, 12.0);
    gen_xfer *x = &c->xfer[xi];
    x->layer = (int16_t)gen_layer_of(c, in);
    x->has_agg = (uint8_t)!c->params->missing_dge;
    x->unknown = (uint8_t)c->params->missing_dge;
    in->hbm_r = in->sbuf_w = x->bytes;
    in->xfer = (int32_t)xi;
}

static void gen_dma_cc(gen_core *c, gen_rng *rng, gen_instr *in, int64_t start)
{
    uint32_t xi = gen_xfer_new(c, GEN_Q_CC, GEN_VAR_CC, in->ts);
    if (xi == GEN_NO_XFER)
        return;
    double half = (double)c->plan->cc_dur_ns / 2;
    gen_xfer_packets(c, rng, xi, start, 4, 65536, 65536.0 / half);
    c->xfer[xi].var = in->cc_index;
    c->xfer[xi].layer = (int16_t)gen_layer_of(c, in);
    in->xfer = (int32_t)xi;
}

void gen_dma_for_instr(gen_core *c, gen_rng *rng, gen_instr *in)
{
    int64_t start = in->ts + gen_rng_range(rng, 150, 400);
    if (in->flags & GEN_IF_CC)
        gen_dma_cc(c, rng, in, start);
    else if (in->op == GEN_OP_DMA_DIRECT2D)
        gen_dma_dge(c, rng, in, start);
    else if (in->group == GEN_GROUP_EMBED || in->group == GEN_GROUP_HEAD(c->params->layers) ||
             gen_rng_chance(rng, 78))
        gen_dma_weights(c, rng, in, start);
    else
        gen_dma_spill(c, rng, in, start);
    if (in->xfer < 0)
        return;
    gen_xfer *x = &c->xfer[in->xfer];
    x->block_id = gen_next_block(c, (gen_queue)x->queue);
}

void gen_dma_instruction_fetch(gen_core *c, gen_rng *rng, int64_t ts, int layer)
{
    static const uint32_t sizes[] = {1024, 8, 4};
    static const unsigned engines[] = {2, 9, 9};
    uint32_t xi = gen_xfer_new(c, GEN_Q_INSTR, GEN_VAR_NONE, -1);
    if (xi == GEN_NO_XFER)
        return;
    for (unsigned i = 0; i < 3; i++) {
        int64_t t = ts + (int64_t)gen_rng_below(rng, 200);
        gen_pkt_push(c, xi, t, 5 + sizes[i] / 20, sizes[i], engines[i], 8 + i, 0);
    }
    gen_xfer *x = &c->xfer[xi];
    x->has_agg = 0;
    x->unknown = 1;
    x->layer = (int16_t)layer;
    x->engines = 2;
}
