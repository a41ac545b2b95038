/* gen_model — the synthetic decoder-step timeline of one NeuronCore: instructions, DMA transfers and
 * packets, collectives and their CC-core events, plus every statistic the writers need (gen_stats.c).
 *
 * Owns: a gen_core owns its arrays from a successful gen_core_build until gen_core_free; writers only read
 * it. Params and plan are borrowed for the core's lifetime.
 * Threads: no global mutable state; one gen_core per thread, builds for different cores are independent
 * (own PRNG streams), so concurrent runs are safe.
 * Errors: nothing aborts or prints. Bad parameters are rejected by gen_params_check before anything is
 * built; out-of-memory makes gen_core_build return -1 (the arrays grow with the instruction count). */
#ifndef NL_GEN_MODEL_H
#define NL_GEN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "gen_err.h"
#include "gen_profile.h"
#include "gen_rng.h"
#include "gen_tables.h"

/* GEN_MAX_LAYERS, GEN_MAX_CORES, GEN_MIN_IPL, GEN_MAX_IPL and the factor limits: gen_profile.h. */
#define GEN_SLOT_NS 400 /* nominal Tensor-row slot; base layer latency = slot * Tensor-row instructions */

#define GEN_JITTER 0.03
#define GEN_OUTLIER_THRESHOLD 1.5 /* neuronlens gaps: a layer >= 1 is an outlier above 1.5 x the median */
#define GEN_CC_PER_LAYER 2

/* neff_node tensors besides the weights, and the throttling samples (ham) of every core. */
#define GEN_INPUT_BYTES 8192u   /* input_ids + position_ids, 4 KiB each */
#define GEN_OUTPUT_BYTES 262144u /* logits */
#define GEN_HAM_RECORDS 2
#define GEN_HAM_DURATION_NS 45

/* Layer groups (layer_summary rows): 0 = whole subgraph, then embed, decoder layers, norm, lm_head. */
#define GEN_GROUP_ALL 0
#define GEN_GROUP_EMBED 1
#define GEN_GROUP_LAYER0 2
#define GEN_GROUP_NORM(L) (2 + (L))
#define GEN_GROUP_HEAD(L) (3 + (L))
#define GEN_GROUP_COUNT(L) (4 + (L))
#define GEN_GROUP_NONE (-1) /* runtime scaffolding: layer "" */

typedef struct gen_params {
    uint64_t seed;
    int layers, cores;
    uint32_t ipl; /* instructions per decoder layer, per core (exact) */
    int missing_dge, no_source, demo;
    uint64_t target_bytes; /* 0 = unused; else ipl was derived from it */
    double warmup_factor, outlier_factor; /* layer 0 and the outlier layer, x the base latency */
    int capture, ranks, executions, kineto; /* gen_capture.h */
    uint64_t kineto_target_bytes;           /* 0 = unused; else kineto_ops was derived from it */
    uint32_t kineto_ops;                    /* host ops before each step's compiled region */
    int memory_snapshot, memory_layout, memory_oom, memory_devices; /* gen_memsnap.h */
    uint64_t memory_target_bytes;
} gen_params;

/* What all cores share: the per-layer latencies and the fixed phase lengths. */
typedef struct gen_plan {
    int64_t base_ns;
    int64_t latency_ns[GEN_MAX_LAYERS];
    double factor[GEN_MAX_LAYERS];
    int warmup_layer, outlier_layer; /* -1: none */
    int64_t prologue_ns, epilogue_ns, cc_dur_ns;
} gen_plan;

/* Instruction flags. */
#define GEN_IF_TRANSPOSE 1u
#define GEN_IF_PSRW 2u     /* is_psum_read_sbuf_write */
#define GEN_IF_CC 4u       /* collective trigger */
#define GEN_IF_SOURCE 8u   /* has nki_source_location */
#define GEN_IF_LONGWAIT 16u

typedef struct gen_instr {
    int64_t ts, dur, evt_wait;
    uint64_t id;
    uint64_t pred[2];
    uint32_t seq;              /* creation order, the sort tie-break */
    uint32_t pc, bir, penguin; /* bir == 0: no BIR/HLO info (scaffolding) */
    uint32_t k, m, n;          /* MATMUL shape: flops = 2*k*m*n */
    uint32_t hbm_r, hbm_w, sbuf_r, sbuf_w, psum_r, psum_w, psrw, weight_q, spill_save, spill_reload;
    int32_t xfer;              /* DMA transfer triggered, -1 none */
    int16_t group;             /* GEN_GROUP_*, or GEN_GROUP_NONE */
    uint16_t crc_in, crc_out;
    uint16_t src_line;
    uint16_t cc_index;         /* collective number for GEN_IF_CC */
    uint8_t op, row, sub, npred, flags;
} gen_instr;

typedef enum gen_var_kind { GEN_VAR_WEIGHT, GEN_VAR_SPILL, GEN_VAR_KV, GEN_VAR_IO, GEN_VAR_CC, GEN_VAR_NONE } gen_var_kind;

typedef struct gen_xfer {
    uint64_t agg_id;   /* aggregated record id = packets' packet_aggregation_id */
    int64_t trigger;   /* triggering instruction timestamp, -1 none */
    int64_t ts, end;   /* hull of the data packets */
    uint32_t bytes;    /* Σ data packets = aggregated transfer_size */
    uint32_t first_pkt, n_pkt;
    int32_t var;       /* weight index (neff_node order) for GEN_VAR_WEIGHT, else a small counter */
    int16_t layer;     /* decoder layer or -1 */
    uint16_t block_id;
    uint8_t queue, kind, has_agg, unknown, store, engines;
} gen_xfer;

typedef struct gen_pkt {
    uint64_t id;
    int64_t ts, dur;
    uint32_t size, xfer;
    uint8_t engine, idx, completion;
} gen_pkt;

typedef struct gen_span {
    int64_t start, end;
} gen_span;

typedef struct gen_spans {
    gen_span *v;
    size_t n, cap;
    int failed; /* sticky: a push ran out of memory */
} gen_spans;

/* CC-core trace events. */
typedef enum gen_cc_type { GEN_CC_TPB_TRIGGER, GEN_CC_SEMAPHORE_WAIT, GEN_CC_DMA_ADVANCE, GEN_CC_ALGO_REDUCE,
                           GEN_CC_ALGO_GATHER, GEN_CC_TYPE_COUNT } gen_cc_type;
typedef struct gen_cc_event {
    int64_t ts, dur;
    uint8_t type;
    uint16_t coll; /* collective index on this core */
} gen_cc_event;

typedef struct gen_count {
    uint64_t count;
    int64_t dur_sum;
} gen_count;

typedef struct gen_group_stats {
    int64_t start, end; /* start = INT64_MAX when empty */
    gen_count eng[GEN_ENG_COUNT];
    int64_t busy[GEN_ENG_COUNT];       /* union without EVENT_SEMAPHORE (see gen_stats.c) */
    int64_t instr_time[GEN_ENG_COUNT]; /* sum of durations without EVENT_SEMAPHORE */
    uint64_t flops, transpose_flops;
} gen_group_stats;

enum { GEN_SIZE_LT512, GEN_SIZE_LT4096, GEN_SIZE_GE4096, GEN_SIZE_COUNT };
typedef struct gen_bytes_count {
    uint64_t count, bytes;
} gen_bytes_count;

typedef struct gen_stats {
    int64_t last_hw, total_ns;
    uint64_t n_instr;
    gen_count eng[GEN_ENG_COUNT];
    int64_t busy[GEN_ENG_COUNT];       /* union without EVENT_SEMAPHORE = Σ active_time rows */
    int64_t instr_time[GEN_ENG_COUNT]; /* sum of durations without EVENT_SEMAPHORE */
    uint64_t zero_rows[GEN_ENG_COUNT]; /* zero-length active_time rows */
    gen_count row[GEN_ROW_COUNT];
    gen_count op[GEN_OP_COUNT];
    gen_count eng_op[GEN_ENG_COUNT][GEN_OP_COUNT];
    uint64_t with_source, with_evt_wait, dma_triggers, source_eligible;
    int64_t evt_wait_sum;
    uint64_t hbm_r, hbm_w, sbuf_r, sbuf_w, psum_r, psum_w, psrw_bytes, psrw_count, spill_save, spill_reload,
        weight_q;
    uint64_t flops, transpose_flops;
    /* DMA */
    uint64_t dma_records, agg_records, pkt_records, cc_dma_records, unknown_var_pkts, pkt_groups;
    gen_bytes_count agg, agg_class[GEN_SIZE_COUNT], pkt, pkt_class[GEN_SIZE_COUNT];
    int64_t agg_dur_sum, pkt_dur_sum;
    gen_bytes_count qtype_static, qtype_swdyn; /* packets by summary kind */
    int64_t static_busy, swdyn_busy;
    int64_t total_active;
    /* collectives */
    uint64_t cc_count, cc_core_count;
    int64_t cc_time, cc_active, cc_core_time, cc_core_active;
    uint64_t sem_updates, pending_dma, dma_throughput, instr_usage, ham;
    uint64_t weight_size, input_size, output_size;
    int64_t ham_active;
} gen_stats;

typedef struct gen_core {
    const gen_params *params; /* borrowed */
    const gen_plan *plan;     /* borrowed */
    int nc;
    int64_t layer_start[GEN_MAX_LAYERS + 1]; /* collective boundaries: a_k; [L] = the closing collective */
    int64_t layer_mid[GEN_MAX_LAYERS];
    int64_t cc_ts[2 * GEN_MAX_LAYERS + 2];   /* TPB_TRIGGER START times, in order */
    unsigned n_cc;
    gen_instr *instr;
    size_t n_instr, cap_instr;
    gen_xfer *xfer;
    size_t n_xfer, cap_xfer;
    gen_pkt *pkt;
    size_t n_pkt, cap_pkt;
    gen_cc_event *cc;
    size_t n_cc_ev, cap_cc_ev;
    gen_spans active[GEN_ENG_COUNT]; /* merged busy intervals = active_time records */
    gen_group_stats *groups;         /* GEN_GROUP_COUNT(L) */
    uint64_t *weight_loaded;         /* bytes loaded per weight (neff_node), n_weights entries */
    uint64_t *weight_loads;
    unsigned n_weights;
    uint64_t id_key;                 /* seed-derived key of the id bijection */
    uint64_t id_counter;
    uint32_t block_next[GEN_Q_COUNT]; /* next block_id per queue */
    int oom;                          /* sticky: an allocation failed; the build stops at the next phase */
    gen_stats st;
} gen_core;

/* Validate parameters; 0, or -1 with a message in `err`. */
int gen_params_check(const gen_params *p, gen_err *err) __attribute__((warn_unused_result));
/* Choose the per-layer latencies and phase lengths from the seed. */
void gen_plan_make(const gen_params *p, gen_plan *plan);
/* Build core `nc`'s timeline and statistics: 0, or -1 when out of memory (then the core holds nothing and
 * needs no gen_core_free; calling it anyway is harmless). */
int gen_core_build(const gen_params *p, const gen_plan *plan, int nc, gen_core *core)
    __attribute__((warn_unused_result));
void gen_core_free(gen_core *core);

/* Helpers shared with the writers. */
/* Grow an array of `elem`-byte items: capacity `first` when *cap is 0, else doubled. The new pointer, or
 * NULL (p untouched, *cap unchanged) when out of memory. */
void *gen_grow(void *p, size_t *cap, size_t elem, size_t first) __attribute__((warn_unused_result));
/* Append [start, end); on out-of-memory the span is dropped and s->failed set. */
void gen_spans_push(gen_spans *s, int64_t start, int64_t end);
void gen_spans_free(gen_spans *s);
/* Length of the union of `n` spans (sorted in place); empty spans cover nothing. */
int64_t gen_spans_union(gen_span *v, size_t n);
/* Unique 64-bit ids: a bijection of a per-core counter, most above 2^53, some below. */
uint64_t gen_core_next_id(gen_core *core);
/* Number of weights described in neff_node: 7 per layer + embed + lm_head. */
unsigned gen_weight_count(int layers);
/* neff_node size of weight w: its loaded bytes rounded up to MiB (at least 1 MiB). */
uint64_t gen_weight_size(const gen_core *core, unsigned w);
/* Size class of a byte count (GEN_SIZE_*). */
int gen_size_class(uint64_t bytes);
/* Name of layer group g ("" for GEN_GROUP_ALL), written into `dst` (>= 32 bytes). */
const char *gen_group_name(int g, int layers, char *dst, size_t cap);

/* gen_dma.c: create the transfer (and its packets) that instruction `in` triggers; sets in->xfer and the
 * instruction's byte fields. Out of memory: sets core->oom and leaves in->xfer at -1. */
void gen_dma_for_instr(gen_core *core, gen_rng *rng, gen_instr *in);
/* gen_dma.c: an untriggered instruction-fetch transfer (packets only, no aggregated record). */
void gen_dma_instruction_fetch(gen_core *core, gen_rng *rng, int64_t ts, int layer);
/* gen_stats.c: fill core->st, core->active, core->groups and the weight sizes from the arrays; sets
 * core->oom when out of memory. */
void gen_stats_compute(gen_core *core);

#endif
