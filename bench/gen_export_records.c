/* gen_export_records — the large arrays of the synthetic export: instruction, dma, semaphore_update,
 * active_time. This is the hot path of `--target-bytes`: records are hand-formatted with literal keys and
 * the integer formatter of gen_out, nothing is allocated, and every string is built from the record's
 * own fields (operands, layer path, HLO text, addresses derived from the id).
 *
 * Instruction record = the 22 keys formats.md §4.2 lists as always present, then sparse keys only when
 * meaningful: compiler_opcode/compiler_operands (DMA triggers), compiler_pc, raw_hlo_id and
 * raw_framework_id (instructions with BIR info), elements (MATMUL), the *_bytes fields when non-zero,
 * is_psum_read_sbuf_write, predecessors, trigger (Sync DMA triggers) and nki_source_location
 * (`path:line`, absent on scaffolding, on a share of the rest and everywhere with --no-source).
 * That is the order the members are written in; gen_wr_end then shuffles them per record, like the real
 * exports (gen_export_internal.h), so every key goes through its own GEN_K* call. */
#include "gen_export_internal.h"

#include <string.h>

#define GEN_SUBGRAPH "/sg00"

void gen_export_layer_path(gen_out *o, const gen_core *c, const gen_instr *in)
{
    (void)c;
    if (in->group == GEN_GROUP_NONE)
        return;
    if (in->group >= GEN_GROUP_LAYER0 && in->sub < GEN_SUBS_PER_LAYER) {
        GEN_OUT_LIT(o, "decoder.layers.");
        gen_out_u64(o, (uint64_t)(in->group - GEN_GROUP_LAYER0));
        gen_out_ch(o, '.');
    }
    gen_out_raw(o, gen_subs[in->sub].name);
}

static const char *gen_act_fn(const gen_instr *in)
{
    if (in->op != GEN_OP_ACTIVATE)
        return "";
    switch (gen_subs[in->sub].hlo) {
    case GEN_HLO_ACT: return "SILU";
    case GEN_HLO_NORM: return "RSQRT";
    case GEN_HLO_SDPA: return "EXP";
    default: return "COPY";
    }
}

static uint32_t gen_hlo_id(const gen_core *c, const gen_instr *in)
{
    uint32_t L = (uint32_t)c->params->layers;
    if (in->group == GEN_GROUP_EMBED)
        return 3;
    if (in->group == GEN_GROUP_NORM(c->params->layers))
        return 10 + 16 * L;
    if (in->group == GEN_GROUP_HEAD(c->params->layers))
        return 12 + 16 * L;
    return 10 + 16 * (uint32_t)(in->group - GEN_GROUP_LAYER0) + in->sub;
}

static const char *const gen_hlo_ops[] = {
    [GEN_HLO_DOT] = "dot", [GEN_HLO_NORM] = "rsqrt", [GEN_HLO_ROPE] = "multiply",
    [GEN_HLO_SDPA] = "custom-call", [GEN_HLO_ACT] = "logistic", [GEN_HLO_GATHER] = "gather"};

/* `%dot.42 = dot(%add.41, %p7)`-style text; the operands only need to look plausible. */
static void gen_wr_hlo_name(gen_out *o, uint32_t id, gen_hlo_kind kind)
{
    const char *op = gen_hlo_ops[kind];
    gen_out_ch(o, '%');
    gen_out_raw(o, op);
    gen_out_ch(o, '.');
    gen_out_u64(o, id);
    GEN_OUT_LIT(o, " = ");
    gen_out_raw(o, op);
    GEN_OUT_LIT(o, "(%add.");
    gen_out_u64(o, id - 1);
    if (kind == GEN_HLO_DOT || kind == GEN_HLO_GATHER || kind == GEN_HLO_SDPA) {
        GEN_OUT_LIT(o, ", %p");
        gen_out_u64(o, id % 97);
    }
    gen_out_ch(o, ')');
}

static void gen_wr_hlo(gen_wr *w, const gen_instr *in)
{
    gen_out *o = w->o;
    if (in->bir == 0) {
        GEN_KL(w, "hlo_name", "");
        GEN_KL(w, "hlo_attrs", "");
        return;
    }
    uint32_t id = gen_hlo_id(w->c, in);
    gen_hlo_kind kind = gen_subs[in->sub].hlo;
    GEN_K(w, "hlo_name");
    gen_out_ch(o, '"');
    gen_wr_hlo_name(o, id, kind);
    gen_out_ch(o, '"');
    GEN_K(w, "hlo_attrs");
    GEN_OUT_LIT(o, "\"[{\\\"op_type\\\":\\\"");
    gen_out_raw(o, gen_hlo_ops[kind]);
    GEN_OUT_LIT(o, "\\\",\\\"source_file\\\":\\\"modeling_llama.py\\\",\\\"source_line\\\":\\\"");
    gen_out_u64(o, 300 + 7u * in->sub);
    GEN_OUT_LIT(o, "\\\"}]\"");
}

static void gen_wr_sem(gen_out *o, gen_engine e)
{
    GEN_OUT_LIT(o, "S[");
    gen_out_u64(o, gen_engines[e].semaphore);
    GEN_OUT_LIT(o, "] (");
    gen_out_raw(o, gen_engines[e].subgroup);
    gen_out_ch(o, ')');
}

static void gen_wr_addr(gen_out *o, const char *dtype, uint64_t addr, const char *pattern)
{
    gen_out_raw(o, dtype);
    GEN_OUT_LIT(o, "@0x");
    gen_out_hex(o, addr);
    gen_out_raw(o, pattern);
}

static void gen_wr_shape(gen_out *o, uint32_t n, int three)
{
    gen_out_ch(o, '[');
    gen_out_u64(o, n);
    if (three)
        GEN_OUT_LIT(o, ",1,1] ");
    else
        GEN_OUT_LIT(o, ",1] ");
}

static void gen_wr_ops_matmul(gen_out *o, const gen_instr *in, uint64_t a)
{
    gen_wr_sem(o, GEN_ENG_TENSOR);
    GEN_OUT_LIT(o, "++@complete acc_flags=3 src=");
    gen_wr_addr(o, "bf16", a & 0x3fff0, "[1,0,0]");
    gen_wr_shape(o, in->n, 1);
    GEN_OUT_LIT(o, "dst=0x");
    gen_out_hex(o, 0x2000000 + ((a >> 20) & 0xfff0));
    GEN_OUT_LIT(o, "[1,0,0]");
    gen_wr_shape(o, in->n, 1);
    gen_out_u64(o, in->k);
    gen_out_ch(o, '*');
    gen_out_u64(o, in->m);
    gen_out_ch(o, ' ');
}

static void gen_wr_ops_ldweights(gen_out *o, const gen_instr *in, uint64_t a)
{
    GEN_OUT_LIT(o, "S[24] (qGpSimdDynamic)>=16 src=");
    gen_wr_addr(o, "bf16", a & 0x3fff0, "[-1,0,-32][32,1,4] ");
    gen_out_u64(o, in->k);
    gen_out_ch(o, '*');
    gen_out_u64(o, in->m);
    gen_out_ch(o, ' ');
}

static void gen_wr_ops_activate(gen_out *o, const gen_instr *in, uint64_t a)
{
    gen_wr_sem(o, GEN_ENG_TENSOR);
    GEN_OUT_LIT(o, ">=1 ");
    gen_wr_sem(o, GEN_ENG_SCALAR);
    GEN_OUT_LIT(o, "++@complete ");
    gen_out_raw(o, gen_act_fn(in));
    GEN_OUT_LIT(o, " bias_imm=0.000000 src=");
    gen_wr_addr(o, "fp32", 0x2000000 + (a & 0xfff0), "[1,1,1]");
    gen_wr_shape(o, in->n, 1);
    GEN_OUT_LIT(o, "dst=");
    gen_wr_addr(o, "bf16", (a >> 18) & 0x3fff0, "[1,1,1]");
    gen_wr_shape(o, in->n, 1);
    GEN_OUT_LIT(o, "channels=128 scale=1.000000 imm=[0x0] accumulator_cmd=IDLE");
}

static void gen_wr_ops_vector(gen_out *o, const gen_instr *in, uint64_t a)
{
    gen_wr_sem(o, GEN_ENG_VECTOR);
    GEN_OUT_LIT(o, "++@complete ");
    if (in->op == GEN_OP_TENSOR_TENSOR)
        GEN_OUT_LIT(o, "op=add src0=");
    else if (in->op == GEN_OP_TENSOR_REDUCE)
        GEN_OUT_LIT(o, "op=add axis=X src=");
    else
        GEN_OUT_LIT(o, "src=");
    gen_wr_addr(o, "bf16", a & 0x3fff0, "[1,1]");
    gen_wr_shape(o, in->n, 0);
    if (in->op == GEN_OP_TENSOR_TENSOR) {
        GEN_OUT_LIT(o, "src1=");
        gen_wr_addr(o, "bf16", (a >> 18) & 0x3fff0, "[1,1]");
        gen_wr_shape(o, in->n, 0);
    }
    GEN_OUT_LIT(o, "dst=");
    gen_wr_addr(o, in->op == GEN_OP_TENSOR_REDUCE ? "fp32" : "bf16", (a >> 36) & 0x3fff0, "[1,1]");
    gen_wr_shape(o, in->op == GEN_OP_TENSOR_REDUCE ? 1 : in->n, 0);
}

#define GEN_D2D_TAIL " src_elem_size=256 dst_elem_size=256 src_pattern=[256,1][128,1] dst_pattern=[262144,1][128,1] "

static void gen_wr_ops_dma(gen_wr *w, const gen_instr *in, uint64_t a)
{
    gen_out *o = w->o;
    if (in->op == GEN_OP_DMA_DIRECT2D) {
        GEN_OUT_LIT(o, " semaphore=24 sem_increment=16 ");
        GEN_OUT_LIT(o, GEN_D2D_TAIL);
        GEN_OUT_LIT(o, "src_table_offset_imm=0x0 src_table_index=0 src_shape_reg=0 dst_addr_imm=0xfffc");
        gen_out_hex_fixed(o, a, 7);
        GEN_OUT_LIT(o, " dst_shape_reg=0 compute_op=NONE ");
        return;
    }
    GEN_OUT_LIT(o, " data=0x");
    gen_out_hex(o, 1 + (a & 7));
    GEN_OUT_LIT(o, " size=4 dst=0xffff");
    gen_out_hex_fixed(o, a >> 8, 7);
    gen_out_ch(o, ' ');
}

static void gen_wr_operands_body(gen_wr *w, const gen_instr *in)
{
    gen_out *o = w->o;
    uint64_t a = in->id >> 3;
    gen_engine e = gen_rows[in->row].engine;
    switch ((gen_op)in->op) {
    case GEN_OP_MATMUL: gen_wr_ops_matmul(o, in, a); break;
    case GEN_OP_LDWEIGHTS: gen_wr_ops_ldweights(o, in, a); break;
    case GEN_OP_ACTIVATE: gen_wr_ops_activate(o, in, a); break;
    case GEN_OP_TENSOR_TENSOR:
    case GEN_OP_TENSOR_COPY:
    case GEN_OP_TENSOR_REDUCE: gen_wr_ops_vector(o, in, a); break;
    case GEN_OP_DMA_DIRECT2D:
    case GEN_OP_DMA_TRIGGER:
    case GEN_OP_WRITE: gen_wr_ops_dma(w, in, a); break;
    case GEN_OP_EVENT_SEMAPHORE:
        GEN_OUT_LIT(o, " setter=0 $S[");
        gen_out_u64(o, gen_engines[e].semaphore);
        GEN_OUT_LIT(o, "]==");
        gen_out_u64(o, 1 + (in->pc & 7));
        GEN_OUT_LIT(o, " $S[");
        gen_out_u64(o, gen_engines[e].semaphore);
        GEN_OUT_LIT(o, "]++@complete ");
        break;
    case GEN_OP_TENSOR_LOAD:
        GEN_OUT_LIT(o, " addr=uint32@0x3c01f");
        gen_out_hex_fixed(o, a, 4);
        GEN_OUT_LIT(o, "[1,0][2,1] data=$R[130],$R[131] ");
        break;
    case GEN_OP_TENSOR_STORE:
        GEN_OUT_LIT(o, " addr=uint32@0xffff0fa");
        gen_out_hex_fixed(o, a, 5);
        GEN_OUT_LIT(o, "[0,0][1,1] data=$R[0] ");
        break;
    case GEN_OP_ACT_TABLE_LOAD: GEN_OUT_LIT(o, " table=exp_and_others "); break;
    case GEN_OP_EVENT_SEMAPHORE_RANGE_CLEAR: GEN_OUT_LIT(o, " start=0 end=31 "); break;
    default: gen_out_ch(o, ' '); break;
    }
}

static void gen_wr_bir(gen_wr *w, const gen_instr *in)
{
    gen_out *o = w->o;
    if (in->bir == 0) {
        GEN_KL(w, "bir_id", "");
        GEN_KU(w, "raw_bir_id", 0);
        GEN_KL(w, "penguin_id", "");
        GEN_KU(w, "raw_penguin_id", 0);
        GEN_KL(w, "bir_instruction_name", "");
        GEN_KL(w, "instruction_type", "");
        return;
    }
    GEN_K(w, "bir_id");
    GEN_OUT_LIT(o, "\"sg0000:");
    gen_out_u64(o, in->bir);
    gen_out_ch(o, '"');
    GEN_KU(w, "raw_bir_id", in->bir);
    GEN_K(w, "penguin_id");
    GEN_OUT_LIT(o, "\"sg0000:");
    gen_out_u64(o, in->penguin);
    gen_out_ch(o, '"');
    GEN_KU(w, "raw_penguin_id", in->penguin);
    GEN_K(w, "bir_instruction_name");
    GEN_OUT_LIT(o, "\"I-");
    gen_out_u64(o, in->penguin);
    if (in->op == GEN_OP_DMA_TRIGGER)
        GEN_OUT_LIT(o, "-0-trig\"");
    else if (in->op == GEN_OP_ACTIVATE)
        GEN_OUT_LIT(o, "-0-act\"");
    else
        GEN_OUT_LIT(o, "-0\"");
    if (in->flags & GEN_IF_TRANSPOSE)
        GEN_KL(w, "instruction_type", "TRANSPOSE");
    else
        GEN_KL(w, "instruction_type", "REGULAR");
}

static void gen_wr_instr_fixed(gen_wr *w, const gen_instr *in)
{
    gen_out *o = w->o;
    const gen_row_info *ri = &gen_rows[in->row];
    GEN_KI(w, "timestamp", in->ts);
    GEN_KI(w, "duration", in->dur);
    GEN_KU(w, "id", in->id);
    GEN_KR(w, "label", ri->label);
    GEN_KR(w, "subgroup", gen_engines[ri->engine].subgroup);
    GEN_KR(w, "opcode", gen_ops[in->op].opcode);
    GEN_K(w, "operands");
    gen_out_ch(o, '"');
    gen_wr_operands_body(w, in);
    gen_out_ch(o, '"');
    GEN_KU(w, "pc", in->pc);
    GEN_KI(w, "evt_wait_time", in->evt_wait);
    GEN_K(w, "layer");
    gen_out_ch(o, '"');
    gen_export_layer_path(o, w->c, in);
    gen_out_ch(o, '"');
    gen_wr_hlo(w, in);
    GEN_KL(w, "fully_qualified_subgraph", GEN_SUBGRAPH);
    gen_wr_bir(w, in);
    GEN_KS(w, "activation_fn", gen_act_fn(in));
    GEN_KU(w, "crc_in", in->crc_in);
    GEN_KU(w, "crc_out", in->crc_out);
}

static void gen_wr_compiler(gen_wr *w, const gen_instr *in)
{
    gen_out *o = w->o;
    const gen_op_info *oi = &gen_ops[in->op];
    if (oi->compiler_opcode) {
        GEN_KS(w, "compiler_opcode", oi->compiler_opcode);
        GEN_K(w, "compiler_operands");
        if (in->op == GEN_OP_DMA_DIRECT2D) {
            GEN_OUT_LIT(o, "\" dge_op=DIRECT2D semaphore=24 sem_increment=16 ");
            GEN_OUT_LIT(o, GEN_D2D_TAIL);
            GEN_OUT_LIT(o, "src_table_offset_imm=0 src_table_index=0 src_shape_reg=0 dst_var_id=0 dst_var_offset=");
            gen_out_u64(o, (in->id >> 5) & 0x3ff00);
            GEN_OUT_LIT(o, " dst_shape_reg=0   \"");
        } else {
            const gen_xfer *x = &w->c->xfer[in->xfer];
            GEN_OUT_LIT(o, "\" ");
            gen_out_raw(o, gen_queues[x->queue].name);
            GEN_OUT_LIT(o, " block_id=");
            gen_out_u64(o, x->block_id);
            GEN_OUT_LIT(o, " \"");
        }
    }
    if (in->bir) {
        GEN_KU(w, "compiler_pc", in->pc - 38);
        GEN_KU(w, "raw_hlo_id", gen_hlo_id(w->c, in));
        GEN_K(w, "raw_framework_id");
        gen_out_ch(o, '[');
        gen_out_u64(o, 1000 + gen_hlo_id(w->c, in));
        gen_out_ch(o, ']');
    }
}

#define GEN_KU_NZ(w, name, v) \
    do {                      \
        if (v)                \
            GEN_KU(w, name, v); \
    } while (0)

static void gen_wr_instr_sparse(gen_wr *w, const gen_instr *in)
{
    gen_out *o = w->o;
    gen_wr_compiler(w, in);
    if (in->op == GEN_OP_MATMUL)
        GEN_KU(w, "elements", (uint64_t)in->k * in->m * in->n);
    GEN_KU_NZ(w, "hbm_read_bytes", in->hbm_r);
    GEN_KU_NZ(w, "hbm_write_bytes", in->hbm_w);
    GEN_KU_NZ(w, "sbuf_read_bytes", in->sbuf_r);
    GEN_KU_NZ(w, "sbuf_write_bytes", in->sbuf_w);
    GEN_KU_NZ(w, "psum_read_bytes", in->psum_r);
    GEN_KU_NZ(w, "psum_write_bytes", in->psum_w);
    GEN_KU_NZ(w, "psum_read_sbuf_write_bytes", in->psrw);
    if (in->flags & GEN_IF_PSRW)
        GEN_KB(w, "is_psum_read_sbuf_write", 1);
    GEN_KU_NZ(w, "spill_save_bytes", in->spill_save);
    GEN_KU_NZ(w, "spill_reload_bytes", in->spill_reload);
    GEN_KU_NZ(w, "weight_queue_bytes", in->weight_q);
    if (in->op == GEN_OP_DMA_TRIGGER && in->xfer >= 0)
        GEN_KI(w, "trigger", w->c->xfer[in->xfer].ts);
    if (in->npred) {
        GEN_K(w, "predecessors");
        gen_out_ch(o, '[');
        for (unsigned i = 0; i < in->npred; i++) {
            GEN_OUT_LIT(o, "{\"id\":");
            gen_out_u64(o, in->pred[i]);
            GEN_OUT_LIT(o, ",\"type\":\"FLOW_DEPENDENCE\"}");
            if (i + 1 < in->npred)
                gen_out_ch(o, ',');
        }
        gen_out_ch(o, ']');
    }
    if (in->flags & GEN_IF_SOURCE) {
        GEN_K(w, "nki_source_location");
        gen_out_ch(o, '"');
        gen_out_raw(o, gen_subs[in->sub].file);
        gen_out_ch(o, ':');
        gen_out_u64(o, in->src_line);
        gen_out_ch(o, '"');
    }
}

void gen_export_instructions(gen_wr *w)
{
    const gen_core *c = w->c;
    for (size_t i = 0; i < c->n_instr; i++) {
        if (i)
            gen_out_ch(w->o, ',');
        gen_wr_begin(w);
        gen_wr_instr_fixed(w, &c->instr[i]);
        gen_wr_instr_sparse(w, &c->instr[i]);
        gen_wr_end(w);
    }
}

/* ---- dma ---- */

void gen_export_weight_name(gen_out *o, const gen_core *c, unsigned w)
{
    unsigned per = GEN_WEIGHTS_PER_LAYER, L = (unsigned)c->params->layers;
    if (w >= L * per) {
        gen_out_raw(o, w == L * per ? "embed_tokens_weight" : "lm_head_weight");
        return;
    }
    GEN_OUT_LIT(o, "layers_");
    gen_out_u64(o, w / per);
    gen_out_ch(o, '_');
    gen_out_raw(o, gen_weight_names[w % per]);
}

void gen_export_variable(gen_out *o, const gen_core *c, const gen_xfer *x)
{
    if (x->unknown) {
        GEN_OUT_LIT(o, "unknown");
        return;
    }
    switch ((gen_var_kind)x->kind) {
    case GEN_VAR_WEIGHT: gen_export_weight_name(o, c, (unsigned)x->var); break;
    case GEN_VAR_SPILL: GEN_OUT_LIT(o, "spill_buf_"); gen_out_u64(o, (uint64_t)x->var); break;
    case GEN_VAR_KV:
        GEN_OUT_LIT(o, "kv_cache_layers_");
        gen_out_u64(o, x->layer < 0 ? 0 : (uint64_t)x->layer);
        break;
    case GEN_VAR_IO: GEN_OUT_LIT(o, "input_ids"); break;
    case GEN_VAR_CC: GEN_OUT_LIT(o, "cc_buffer_"); gen_out_u64(o, (uint64_t)x->var); break;
    default: GEN_OUT_LIT(o, "unknown"); break;
    }
}

static const unsigned gen_queue_semaphore[GEN_Q_COUNT] = {
    [GEN_Q_WEIGHTS] = 8, [GEN_Q_SPILL] = 9, [GEN_Q_DGE] = 24, [GEN_Q_INSTR] = 0, [GEN_Q_CC] = 12};

/* source / dest / op / semaphore_id of a transfer. */
static void gen_wr_endpoints(gen_wr *w, const gen_xfer *x)
{
    gen_out *o = w->o;
    if (x->unknown) {
        GEN_KL(w, "op", "");
        GEN_K(w, "source");
        GEN_OUT_LIT(o, "[[\"unknown\"]]");
        GEN_K(w, "dest");
        GEN_OUT_LIT(o, "[\"unknown\"]");
        GEN_KL(w, "semaphore_id", "-1");
        return;
    }
    const char *src = "WEIGHT", *dst = "SB";
    switch ((gen_var_kind)x->kind) {
    case GEN_VAR_SPILL: src = x->store ? "SB" : "VIRTUAL"; dst = x->store ? "VIRTUAL" : "SB"; break;
    case GEN_VAR_KV: src = "HBM"; break;
    case GEN_VAR_IO: src = "INPUT"; break;
    case GEN_VAR_CC: src = "SB"; break;
    default: break;
    }
    GEN_KL(w, "op", "copy");
    GEN_K(w, "source");
    GEN_OUT_LIT(o, "[[\"");
    gen_out_raw(o, src);
    GEN_OUT_LIT(o, "\"]]");
    GEN_K(w, "dest");
    GEN_OUT_LIT(o, "[\"");
    gen_out_raw(o, dst);
    GEN_OUT_LIT(o, "\"]");
    GEN_K(w, "semaphore_id");
    GEN_OUT_LIT(o, "\"S[");
    gen_out_u64(o, gen_queue_semaphore[x->queue]);
    GEN_OUT_LIT(o, "] (");
    gen_out_raw(o, gen_queues[x->queue].name);
    GEN_OUT_LIT(o, ")\"");
}

static void gen_wr_dma_common(gen_wr *w, const gen_xfer *x, int64_t ts, int64_t dur, uint64_t id, uint32_t size)
{
    gen_out *o = w->o;
    const gen_queue_info *q = &gen_queues[x->queue];
    GEN_KI(w, "timestamp", ts);
    GEN_KI(w, "duration", dur);
    GEN_KU(w, "id", id);
    GEN_K(w, "variable");
    gen_out_ch(o, '"');
    gen_export_variable(o, w->c, x);
    gen_out_ch(o, '"');
    gen_wr_endpoints(w, x);
    GEN_K(w, "dma_queue");
    gen_out_ch(o, '"');
    gen_out_u64(o, q->q_idx);
    gen_out_ch(o, '"');
    GEN_KR(w, "queue_type", q->queue_type);
    GEN_KU(w, "transfer_size", size);
    GEN_KU(w, "read_size", size);
    GEN_KU(w, "write_size", size);
    GEN_KU(w, "transfer_rate", dur > 0 ? (uint64_t)size * 1000000000ull / (uint64_t)dur : 0);
    GEN_KU(w, "crc", (id >> 7) & 0xffff);
    GEN_KL(w, "duplicate", "no");
    if (q->is_cc)
        GEN_KL(w, "is_cc_dma", "yes");
    else
        GEN_KL(w, "is_cc_dma", "no");
}

static void gen_wr_packet(gen_wr *w, const gen_xfer *x, const gen_pkt *p)
{
    gen_out *o = w->o;
    const gen_queue_info *q = &gen_queues[x->queue];
    gen_wr_begin(w);
    gen_wr_dma_common(w, x, p->ts, p->dur, p->id, p->size);
    GEN_K(w, "subgroup");
    gen_out_ch(o, '"');
    gen_out_raw(o, q->subgroup);
    GEN_OUT_LIT(o, "-E");
    gen_out_u64(o, p->engine);
    gen_out_ch(o, '"');
    GEN_K(w, "dma_engine");
    gen_out_ch(o, '"');
    gen_out_u64(o, p->engine);
    gen_out_ch(o, '"');
    GEN_KL(w, "aggregated", "no");
    GEN_KU(w, "packet_idx", p->idx);
    GEN_KU(w, "packet_aggregation_id", x->agg_id);
    if (x->queue == GEN_Q_WEIGHTS || x->queue == GEN_Q_SPILL || x->queue == GEN_Q_CC)
        GEN_KU(w, "block_id", x->block_id);
    gen_wr_end(w);
}

static void gen_wr_sb_layout(gen_wr *w, const gen_xfer *x)
{
    gen_out *o = w->o;
    uint32_t parts = x->bytes >= 4096 ? 128 : 1;
    GEN_KL(w, "source_sb_partitions", "");
    GEN_KU(w, "source_num_sb_partitions", 0);
    GEN_KL(w, "source_steps", "[[1, 256]]");
    GEN_KL(w, "source_offset", "[[0x0]]");
    GEN_K(w, "read_shape");
    GEN_OUT_LIT(o, "[[");
    gen_out_u64(o, x->bytes / parts);
    gen_out_ch(o, ',');
    gen_out_u64(o, parts);
    GEN_OUT_LIT(o, "]]");
    if (parts == 128)
        GEN_KL(w, "dest_sb_partitions", "0-127");
    else
        GEN_KL(w, "dest_sb_partitions", "0-0");
    GEN_KU(w, "dest_num_sb_partitions", parts);
    GEN_KL(w, "dest_steps", "[1, 262144]");
    GEN_K(w, "dest_offset");
    GEN_OUT_LIT(o, "\"[0x");
    gen_out_hex(o, (x->agg_id >> 9) & 0x3fff0);
    GEN_OUT_LIT(o, "]\"");
    GEN_K(w, "write_shape");
    GEN_OUT_LIT(o, "[[");
    gen_out_u64(o, x->bytes / parts);
    gen_out_ch(o, ',');
    gen_out_u64(o, parts);
    GEN_OUT_LIT(o, "]]");
}

static void gen_wr_aggregated(gen_wr *w, const gen_xfer *x)
{
    gen_out *o = w->o;
    const gen_queue_info *q = &gen_queues[x->queue];
    gen_wr_begin(w);
    gen_wr_dma_common(w, x, x->ts, x->end - x->ts, x->agg_id, x->bytes);
    GEN_KS(w, "subgroup", q->name);
    GEN_K(w, "dma_engine");
    gen_out_ch(o, '"');
    gen_out_u64(o, q->q_eng_idx);
    gen_out_ch(o, '"');
    GEN_KL(w, "aggregated", "yes");
    GEN_KU(w, "block_id", x->block_id);
    if (x->trigger >= 0)
        GEN_KI(w, "trigger", x->trigger);
    gen_wr_sb_layout(w, x);
    gen_wr_end(w);
}

void gen_export_dma(gen_wr *w)
{
    const gen_core *c = w->c;
    int first = 1;
    for (size_t i = 0; i < c->n_xfer; i++) {
        const gen_xfer *x = &c->xfer[i];
        for (uint32_t k = 0; k < x->n_pkt; k++) {
            if (!first)
                gen_out_ch(w->o, ',');
            first = 0;
            gen_wr_packet(w, x, &c->pkt[x->first_pkt + k]);
        }
        if (x->has_agg) {
            gen_out_ch(w->o, ',');
            gen_wr_aggregated(w, x);
        }
    }
}

/* ---- semaphore_update, active_time ---- */

void gen_export_semaphore_updates(gen_wr *w)
{
    const gen_core *c = w->c;
    uint64_t value[GEN_ENG_COUNT] = {0};
    int first = 1;
    for (size_t i = 0; i < c->n_instr; i++) {
        const gen_instr *in = &c->instr[i];
        if (in->op != GEN_OP_EVENT_SEMAPHORE)
            continue;
        gen_engine e = gen_rows[in->row].engine;
        if (!first)
            gen_out_ch(w->o, ',');
        first = 0;
        gen_wr_begin(w);
        GEN_K(w, "id");
        gen_out_ch(w->o, '"');
        gen_out_u64(w->o, gen_engines[e].semaphore);
        gen_out_ch(w->o, '"');
        GEN_KU(w, "value", ++value[e]);
        GEN_KI(w, "timestamp", in->ts + in->dur);
        gen_wr_end(w);
    }
}

void gen_export_active_time(gen_wr *w)
{
    static const gen_engine order[GEN_ENG_COUNT] = {GEN_ENG_TENSOR, GEN_ENG_SCALAR, GEN_ENG_GPSIMD, GEN_ENG_VECTOR,
                                                    GEN_ENG_SYNC};
    const gen_core *c = w->c;
    int first = 1;
    for (int k = 0; k < GEN_ENG_COUNT; k++) {
        const gen_spans *s = &c->active[order[k]];
        for (size_t i = 0; i < s->n; i++) {
            if (!first)
                gen_out_ch(w->o, ',');
            first = 0;
            gen_wr_begin(w);
            GEN_KS(w, "engine", gen_engines[order[k]].lower);
            GEN_KI(w, "start_ts", s->v[i].start);
            GEN_KI(w, "end_ts", s->v[i].end);
            GEN_KI(w, "duration_ns", s->v[i].end - s->v[i].start);
            GEN_KI(w, "pcore_idx", c->nc);
            gen_wr_end(w);
        }
    }
}
