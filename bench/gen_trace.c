/* gen_trace — synthetic show-session --show-trace text (formats.md §6; no real dump exists, so this follows
 * the doc's description and the community recipes that parse it).
 *
 * Layout, per core, then one decoy CC-core section:
 *
 *   Model Name: synthetic/neuronlens_decoder_step.neff
 *   Session file: synthetic/profile_nc<K>.ntff
 *   ND 0 NC <K>
 *   Total execution time (ns): <last_hw_timestamp>
 *   Instruction count:
 *       Tensor: <n>   (also Vector, Scalar, GpSimd, Sync; DMA = packet records)
 *   Error count: 0
 *
 *   Instruction trace for ND 0 NC <K>
 *     nc<K> <label> <opcode> pc=<pc> <timestamp_ns> START      ← the 5th field is the time
 *     nc<K> <label> <opcode> pc=<pc> <end_ns> END
 *
 *   Collectives trace for CC-core <2K>
 *   <EVENT_TYPE> <timestamp_ns> <START|END> key=value…       ← sorted by time
 *
 * Event types: TPB_TRIGGER (the collective's trigger; its START times are the §11.1 input),
 * SEMAPHORE_WAIT, ALGO_MESH_GATHER / ALGO_MESH_REDUCE and DMA_ADVANCE. Times are the same device ns as
 * the JSON export of that core. */
#include "gen_trace.h"

#include <errno.h>
#include <stdlib.h>

#include "gen_export.h"

static const char *const gen_cc_names[GEN_CC_TYPE_COUNT] = {
    [GEN_CC_TPB_TRIGGER] = "TPB_TRIGGER", [GEN_CC_SEMAPHORE_WAIT] = "SEMAPHORE_WAIT",
    [GEN_CC_DMA_ADVANCE] = "DMA_ADVANCE", [GEN_CC_ALGO_REDUCE] = "ALGO_MESH_REDUCE",
    [GEN_CC_ALGO_GATHER] = "ALGO_MESH_GATHER"};

typedef struct gen_cc_line {
    int64_t ts;
    uint32_t ev;
    uint8_t is_end;
} gen_cc_line;

static int gen_cc_line_cmp(const void *a, const void *b)
{
    const gen_cc_line *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->ev != y->ev)
        return x->ev < y->ev ? -1 : 1;
    return (int)x->is_end - (int)y->is_end;
}

void gen_trace_header(gen_out *o, const gen_params *p)
{
    GEN_OUT_LIT(o, "# " GEN_SYNTHETIC_NAME " show-session --show-trace dump (nl-gen-profile seed ");
    gen_out_u64(o, p->seed);
    GEN_OUT_LIT(o, "): " GEN_SYNTHETIC_NOTE "\n\n");
}

static void gen_trace_summary(gen_out *o, const gen_core *c)
{
    static const char *const names[GEN_ENG_COUNT] = {"Tensor", "Vector", "Scalar", "GpSimd", "Sync"};
    GEN_OUT_LIT(o, "Model Name: " GEN_NEFF_NAME "\nSession file: synthetic/profile_nc");
    gen_out_i64(o, c->nc);
    GEN_OUT_LIT(o, ".ntff\nND 0 NC ");
    gen_out_i64(o, c->nc);
    GEN_OUT_LIT(o, "\nTotal execution time (ns): ");
    gen_out_i64(o, c->st.total_ns);
    GEN_OUT_LIT(o, "\nInstruction count:\n");
    for (int e = 0; e < GEN_ENG_COUNT; e++) {
        GEN_OUT_LIT(o, "    ");
        gen_out_raw(o, names[e]);
        GEN_OUT_LIT(o, ": ");
        gen_out_u64(o, c->st.eng[e].count);
        gen_out_ch(o, '\n');
    }
    GEN_OUT_LIT(o, "    DMA: ");
    gen_out_u64(o, c->st.pkt_records);
    GEN_OUT_LIT(o, "\nError count: 0\n\n");
}

static void gen_trace_instr_line(gen_out *o, const gen_core *c, const gen_instr *in, int64_t t, int end)
{
    GEN_OUT_LIT(o, "  nc");
    gen_out_i64(o, c->nc);
    gen_out_ch(o, ' ');
    gen_out_raw(o, gen_rows[in->row].label);
    gen_out_ch(o, ' ');
    gen_out_raw(o, gen_ops[in->op].opcode);
    GEN_OUT_LIT(o, " pc=");
    gen_out_u64(o, in->pc);
    gen_out_ch(o, ' ');
    gen_out_i64(o, t);
    if (end)
        GEN_OUT_LIT(o, " END\n");
    else
        GEN_OUT_LIT(o, " START\n");
}

static void gen_trace_instructions(gen_out *o, const gen_core *c)
{
    GEN_OUT_LIT(o, "Instruction trace for ND 0 NC ");
    gen_out_i64(o, c->nc);
    gen_out_ch(o, '\n');
    for (size_t i = 0; i < c->n_instr; i++) {
        const gen_instr *in = &c->instr[i];
        gen_trace_instr_line(o, c, in, in->ts, 0);
        gen_trace_instr_line(o, c, in, in->ts + in->dur, 1);
    }
    gen_out_ch(o, '\n');
}

static void gen_trace_cc_line(gen_out *o, const gen_cc_event *ev, const gen_cc_line *ln, int64_t coll_bytes)
{
    gen_out_raw(o, gen_cc_names[ev->type]);
    gen_out_ch(o, ' ');
    gen_out_i64(o, ln->ts);
    if (ln->is_end) {
        GEN_OUT_LIT(o, " END coll=");
        gen_out_u64(o, ev->coll);
        gen_out_ch(o, '\n');
        return;
    }
    GEN_OUT_LIT(o, " START coll=");
    gen_out_u64(o, ev->coll);
    if (ev->type == GEN_CC_TPB_TRIGGER) {
        if (ev->coll % 2)
            GEN_OUT_LIT(o, " cc_op=AllGather");
        else
            GEN_OUT_LIT(o, " cc_op=AllReduce");
        GEN_OUT_LIT(o, " bytes=");
        gen_out_i64(o, coll_bytes);
    }
    gen_out_ch(o, '\n');
}

static void gen_trace_cc_section(gen_out *o, int cc_core, const gen_cc_event *ev, size_t n)
{
    gen_cc_line *lines = malloc((2 * n + 1) * sizeof *lines);
    if (!lines) {
        gen_out_fail(o, "allocate memory for", ENOMEM);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        lines[2 * i] = (gen_cc_line){ev[i].ts, (uint32_t)i, 0};
        lines[2 * i + 1] = (gen_cc_line){ev[i].ts + ev[i].dur, (uint32_t)i, 1};
    }
    qsort(lines, 2 * n, sizeof *lines, gen_cc_line_cmp);
    GEN_OUT_LIT(o, "Collectives trace for CC-core ");
    gen_out_i64(o, cc_core);
    gen_out_ch(o, '\n');
    for (size_t i = 0; i < 2 * n; i++)
        gen_trace_cc_line(o, &ev[lines[i].ev], &lines[i], 4 * 65536);
    gen_out_ch(o, '\n');
    free(lines);
}

void gen_trace_core(gen_out *o, const gen_core *c)
{
    gen_trace_summary(o, c);
    gen_trace_instructions(o, c);
    gen_trace_cc_section(o, gen_trace_cc_core(c->nc), c->cc, c->n_cc_ev);
}

void gen_trace_decoy(gen_out *o, const gen_params *p, const int64_t *cc_ts, unsigned n_cc)
{
    gen_cc_event ev[2 * GEN_TRACE_DECOY_STARTS];
    size_t n = 0;
    for (unsigned i = 0; i < GEN_TRACE_DECOY_STARTS && n_cc > 0; i++) {
        unsigned coll = i == 0 ? 0 : n_cc - 1;
        ev[n++] = (gen_cc_event){cc_ts[coll] + 5, 40, GEN_CC_TPB_TRIGGER, (uint16_t)coll};
        ev[n++] = (gen_cc_event){cc_ts[coll] + 60, 300, GEN_CC_SEMAPHORE_WAIT, (uint16_t)coll};
    }
    gen_trace_cc_section(o, gen_trace_decoy_core(p->cores), ev, n);
}
