/* gen_tables — constant tables behind the synthetic profile generator: timeline rows, engines, opcodes,
 * the sub-paths of a decoder layer, DMA queues and the summary keys with their groups.
 *
 * Owns: only static const data (no mutable state). Names and string values mirror the real exports
 * described in formats.md §4 (labels, subgroups, opcodes, queue types); numbers are the generator's own. */
#ifndef NL_GEN_TABLES_H
#define NL_GEN_TABLES_H

#include <stdint.h>

/* Timeline rows (`label`) and engines (`subgroup`): Tensor and TensorMatrix rows are one engine. */
typedef enum gen_row {
    GEN_ROW_TENSOR,
    GEN_ROW_MATRIX,
    GEN_ROW_VECTOR,
    GEN_ROW_SCALAR,
    GEN_ROW_GPSIMD,
    GEN_ROW_SYNC,
    GEN_ROW_COUNT
} gen_row;

typedef enum gen_engine {
    GEN_ENG_TENSOR,
    GEN_ENG_VECTOR,
    GEN_ENG_SCALAR,
    GEN_ENG_GPSIMD,
    GEN_ENG_SYNC,
    GEN_ENG_COUNT
} gen_engine;

typedef struct gen_row_info {
    const char *label;
    gen_engine engine;
    unsigned share_permille; /* share of a layer's instructions on this row */
} gen_row_info;

typedef struct gen_engine_info {
    const char *subgroup; /* `subgroup` value, show-session engine name */
    const char *lower;    /* active_time `engine`, summary key prefix */
    unsigned semaphore;   /* semaphore index used in this engine's operands */
} gen_engine_info;

/* Opcodes: X(enum suffix, `opcode`, `compiler_opcode` or NULL, min ns, max ns, flags). */
#define GEN_OPF_SOURCE 1u   /* may carry nki_source_location / hlo info inside a layer */
#define GEN_OPF_DMA 2u      /* triggers a DMA transfer */
#define GEN_OPF_SEM 4u      /* semaphore wait/update instruction */
#define GEN_OPCODES(X)                                                                                   \
    X(MATMUL, "MATMUL", NULL, 120, 320, GEN_OPF_SOURCE)                                                  \
    X(LDWEIGHTS, "LDWEIGHTS", NULL, 60, 110, GEN_OPF_SOURCE)                                             \
    X(ACTIVATE, "ACTIVATE", NULL, 80, 300, GEN_OPF_SOURCE)                                               \
    X(ACT_TABLE_LOAD, "ACT_TABLE_LOAD", NULL, 600, 1200, 0)                                              \
    X(TENSOR_TENSOR, "TENSOR_TENSOR", NULL, 60, 280, GEN_OPF_SOURCE)                                     \
    X(TENSOR_COPY, "TENSOR_COPY", NULL, 40, 200, GEN_OPF_SOURCE)                                         \
    X(TENSOR_REDUCE, "TENSOR_REDUCE", NULL, 80, 260, GEN_OPF_SOURCE)                                     \
    X(TENSOR_LOAD, "TENSOR_LOAD", NULL, 200, 700, 0)                                                     \
    X(TENSOR_STORE, "TENSOR_STORE", NULL, 60, 120, 0)                                                    \
    X(DMA_DIRECT2D, "DMA_DIRECT2D", "PSEUDO_DMA_DIRECT2D", 0, 40, GEN_OPF_SOURCE | GEN_OPF_DMA)         \
    X(DMA_TRIGGER, "WRITE", "PSEUDO_DMA_TRIGGER", 30, 70, GEN_OPF_SOURCE | GEN_OPF_DMA)                 \
    X(WRITE, "WRITE", NULL, 40, 70, 0)                                                                   \
    X(EVENT_SEMAPHORE, "EVENT_SEMAPHORE", NULL, 8, 40, GEN_OPF_SEM)                                      \
    X(EVENT_SEMAPHORE_RANGE_CLEAR, "EVENT_SEMAPHORE_RANGE_CLEAR", NULL, 20, 60, 0)                       \
    X(SET_ORDERING_MODE, "SET_ORDERING_MODE", NULL, 5, 20, 0)                                            \
    X(COMPARE_BRANCH, "COMPARE_BRANCH", NULL, 10, 30, 0)                                                 \
    X(DRAIN, "DRAIN", NULL, 5, 25, 0)                                                                    \
    X(NOTIFY, "NOTIFY", NULL, 20, 50, 0)                                                                 \
    X(NOP, "NOP", NULL, 5, 15, 0)

#define GEN_OP_ENUM(name, op, cop, lo, hi, fl) GEN_OP_##name,
typedef enum gen_op { GEN_OPCODES(GEN_OP_ENUM) GEN_OP_COUNT } gen_op;
#undef GEN_OP_ENUM

typedef struct gen_op_info {
    const char *opcode;
    const char *compiler_opcode; /* NULL: key absent */
    int dur_lo, dur_hi;          /* ns, before clamping to the slot */
    unsigned flags;
} gen_op_info;

/* Weighted opcode choice for one row inside a decoder layer. */
typedef struct gen_op_weight {
    gen_op op;
    unsigned weight;
} gen_op_weight;

typedef struct gen_row_mix {
    const gen_op_weight *items;
    unsigned n;
} gen_row_mix;

/* The sub-paths of one decoder layer, in execution order; phase 0 = attention, 1 = MLP. */
typedef enum gen_hlo_kind { GEN_HLO_DOT, GEN_HLO_NORM, GEN_HLO_ROPE, GEN_HLO_SDPA, GEN_HLO_ACT, GEN_HLO_GATHER } gen_hlo_kind;
typedef struct gen_sub_info {
    const char *name;   /* appended to `decoder.layers.<k>.` */
    const char *file;   /* NKI kernel file for nki_source_location */
    unsigned line;      /* first line of the kernel call; opcodes add a small offset */
    gen_hlo_kind hlo;
    unsigned phase;
    int weight;         /* index into the layer's weights (gen_weight_names), -1 none */
} gen_sub_info;

#define GEN_SUBS_PER_LAYER 12 /* entries 0..11: one decoder layer */
#define GEN_SUB_EMBED 12      /* then the paths outside the decoder layers */
#define GEN_SUB_NORM 13
#define GEN_SUB_HEAD 14
#define GEN_SUB_COUNT 15
#define GEN_WEIGHTS_PER_LAYER 7

/* DMA queues. */
typedef enum gen_queue {
    GEN_Q_WEIGHTS,   /* qSyncSpillReload0: static weight loads triggered by Sync */
    GEN_Q_SPILL,     /* qSyncIO0: spill/reload and input/output traffic */
    GEN_Q_DGE,       /* qGpSimdDynamic: software DGE transfers triggered by GpSimd DMA_DIRECT2D */
    GEN_Q_INSTR,     /* instruction fetch */
    GEN_Q_CC,        /* qCollective0: collective traffic */
    GEN_Q_COUNT
} gen_queue;

typedef struct gen_queue_info {
    const char *name;       /* dma_queues_info q_name, compiler_operands queue */
    const char *subgroup;   /* dma record subgroup prefix; "-E<engine>" is appended */
    const char *queue_type; /* dma `queue_type` */
    const char *q_type;     /* dma_queues_info `q_type` */
    unsigned q_idx, q_eng_idx;
    int is_cc;
} gen_queue_info;

/* Summary key → group (summary_groups) and one-sentence definition (terminology). */
typedef struct gen_summary_key {
    const char *key;
    const char *group;
    const char *definition;
} gen_summary_key;

extern const gen_row_info gen_rows[GEN_ROW_COUNT];
extern const gen_engine_info gen_engines[GEN_ENG_COUNT];
extern const gen_op_info gen_ops[GEN_OP_COUNT];
extern const gen_row_mix gen_layer_mix[GEN_ROW_COUNT];
extern const gen_sub_info gen_subs[GEN_SUB_COUNT];
extern const char *const gen_weight_names[GEN_WEIGHTS_PER_LAYER];
extern const gen_queue_info gen_queues[GEN_Q_COUNT];
extern const gen_summary_key gen_summary_keys[];
extern const unsigned gen_summary_key_count;
extern const char *const gen_summary_group_order[];
extern const unsigned gen_summary_group_count;

/* Opcode-specific line offset inside a kernel call, so a few lines per kernel collect most of the time. */
unsigned gen_op_line_offset(gen_op op);

#endif
