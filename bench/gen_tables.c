/* gen_tables — the constant tables of the synthetic profile generator (see gen_tables.h).
 *
 * The layer mix below decides what a synthetic decoder layer looks like: per row, which opcodes appear and
 * how often. Rows sum to 1000 permille of a layer's instructions; the busiest row (Tensor, 200 ‰) sets
 * the layer's base latency (gen_model.c: 400 ns per Tensor-row slot). */
#include "gen_tables.h"

#include <stddef.h>

const gen_row_info gen_rows[GEN_ROW_COUNT] = {
    [GEN_ROW_TENSOR] = {"Tensor", GEN_ENG_TENSOR, 200},
    [GEN_ROW_MATRIX] = {"TensorMatrix", GEN_ENG_TENSOR, 160},
    [GEN_ROW_VECTOR] = {"Vector", GEN_ENG_VECTOR, 180},
    [GEN_ROW_SCALAR] = {"Scalar", GEN_ENG_SCALAR, 160},
    [GEN_ROW_GPSIMD] = {"GpSimd", GEN_ENG_GPSIMD, 140},
    [GEN_ROW_SYNC] = {"Sync", GEN_ENG_SYNC, 160},
};

const gen_engine_info gen_engines[GEN_ENG_COUNT] = {
    [GEN_ENG_TENSOR] = {"Tensor", "tensor", 5},
    [GEN_ENG_VECTOR] = {"Vector", "vector", 3},
    [GEN_ENG_SCALAR] = {"Scalar", "scalar", 4},
    [GEN_ENG_GPSIMD] = {"GpSimd", "gpsimd", 24},
    [GEN_ENG_SYNC] = {"Sync", "sync", 8},
};

#define GEN_OP_INFO(name, op, cop, lo, hi, fl) [GEN_OP_##name] = {op, cop, lo, hi, fl},
const gen_op_info gen_ops[GEN_OP_COUNT] = {GEN_OPCODES(GEN_OP_INFO)};
#undef GEN_OP_INFO

static const gen_op_weight gen_mix_tensor[] = {
    {GEN_OP_LDWEIGHTS, 72}, {GEN_OP_EVENT_SEMAPHORE, 20}, {GEN_OP_NOP, 4}, {GEN_OP_WRITE, 4}};
static const gen_op_weight gen_mix_matrix[] = {{GEN_OP_MATMUL, 1}};
static const gen_op_weight gen_mix_vector[] = {
    {GEN_OP_TENSOR_TENSOR, 45}, {GEN_OP_TENSOR_COPY, 25}, {GEN_OP_TENSOR_REDUCE, 15}, {GEN_OP_EVENT_SEMAPHORE, 15}};
static const gen_op_weight gen_mix_scalar[] = {
    {GEN_OP_ACTIVATE, 76}, {GEN_OP_EVENT_SEMAPHORE, 20}, {GEN_OP_ACT_TABLE_LOAD, 4}};
static const gen_op_weight gen_mix_gpsimd[] = {{GEN_OP_DMA_DIRECT2D, 35}, {GEN_OP_TENSOR_LOAD, 15},
                                               {GEN_OP_TENSOR_STORE, 10}, {GEN_OP_EVENT_SEMAPHORE, 30},
                                               {GEN_OP_NOTIFY, 10}};
static const gen_op_weight gen_mix_sync[] = {{GEN_OP_DMA_TRIGGER, 55}, {GEN_OP_EVENT_SEMAPHORE, 28},
                                             {GEN_OP_NOTIFY, 10}, {GEN_OP_EVENT_SEMAPHORE_RANGE_CLEAR, 4},
                                             {GEN_OP_WRITE, 3}};

#define GEN_MIX(a) {a, sizeof(a) / sizeof((a)[0])}
const gen_row_mix gen_layer_mix[GEN_ROW_COUNT] = {
    [GEN_ROW_TENSOR] = GEN_MIX(gen_mix_tensor), [GEN_ROW_MATRIX] = GEN_MIX(gen_mix_matrix),
    [GEN_ROW_VECTOR] = GEN_MIX(gen_mix_vector), [GEN_ROW_SCALAR] = GEN_MIX(gen_mix_scalar),
    [GEN_ROW_GPSIMD] = GEN_MIX(gen_mix_gpsimd), [GEN_ROW_SYNC] = GEN_MIX(gen_mix_sync),
};
#undef GEN_MIX

const gen_sub_info gen_subs[GEN_SUB_COUNT] = {
    {"input_layernorm", "kernels/rmsnorm.py", 21, GEN_HLO_NORM, 0, 0},
    {"self_attn.q_proj", "kernels/attention.py", 57, GEN_HLO_DOT, 0, 0},
    {"self_attn.k_proj", "kernels/attention.py", 66, GEN_HLO_DOT, 0, 1},
    {"self_attn.v_proj", "kernels/attention.py", 75, GEN_HLO_DOT, 0, 2},
    {"self_attn.rotary_emb", "kernels/rope.py", 34, GEN_HLO_ROPE, 0, 1},
    {"self_attn.sdpa", "kernels/attention.py", 112, GEN_HLO_SDPA, 0, 2},
    {"self_attn.o_proj", "kernels/attention.py", 141, GEN_HLO_DOT, 0, 3},
    {"post_attention_layernorm", "kernels/rmsnorm.py", 21, GEN_HLO_NORM, 1, 4},
    {"mlp.gate_proj", "kernels/mlp.py", 33, GEN_HLO_DOT, 1, 4},
    {"mlp.up_proj", "kernels/mlp.py", 41, GEN_HLO_DOT, 1, 5},
    {"mlp.act_fn", "kernels/mlp.py", 49, GEN_HLO_ACT, 1, 5},
    {"mlp.down_proj", "kernels/mlp.py", 58, GEN_HLO_DOT, 1, 6},
    [GEN_SUB_EMBED] = {"embed_tokens", "kernels/embedding.py", 18, GEN_HLO_GATHER, 0, -1},
    [GEN_SUB_NORM] = {"norm", "kernels/rmsnorm.py", 21, GEN_HLO_NORM, 0, -1},
    [GEN_SUB_HEAD] = {"lm_head", "kernels/lm_head.py", 27, GEN_HLO_DOT, 0, -1},
};

const char *const gen_weight_names[GEN_WEIGHTS_PER_LAYER] = {
    "self_attn_q_proj_weight", "self_attn_k_proj_weight", "self_attn_v_proj_weight", "self_attn_o_proj_weight",
    "mlp_gate_proj_weight",    "mlp_up_proj_weight",      "mlp_down_proj_weight",
};

const gen_queue_info gen_queues[GEN_Q_COUNT] = {
    [GEN_Q_WEIGHTS] = {"qSyncSpillReload0", "qSyncSpillReload0-Q1", "data", "weights", 1, 15, 0},
    [GEN_Q_SPILL] = {"qSyncIO0", "qSyncIO0-Q2", "data", "unknown", 2, 14, 0},
    [GEN_Q_DGE] = {"qGpSimdDynamic", "Q0", "software_dynamic", "weights", 0, 15, 0},
    [GEN_Q_INSTR] = {"qInstructionFetch", "Q14", "instruction", "unknown", 14, 2, 0},
    [GEN_Q_CC] = {"qCollective0", "qCollective0-Q5", "data", "unknown", 5, 12, 1},
};

unsigned gen_op_line_offset(gen_op op)
{
    switch (op) {
    case GEN_OP_DMA_TRIGGER:
    case GEN_OP_DMA_DIRECT2D: return 0;
    case GEN_OP_LDWEIGHTS: return 2;
    case GEN_OP_MATMUL: return 3;
    case GEN_OP_ACTIVATE: return 5;
    case GEN_OP_TENSOR_TENSOR: return 6;
    case GEN_OP_TENSOR_REDUCE: return 4;
    case GEN_OP_TENSOR_COPY: return 7;
    default: return 1;
    }
}

const char *const gen_summary_group_order[] = {
    "overall_stats", "data_movement", "software_data_movement", "hardware_data_movement", "tensor_engine",
    "vector_engine", "scalar_engine", "sync_engine", "gpsimd_engine", "cc_engine", "system", "throttling_nc0",
    "throttling_nc1", "server_upload",
};
const unsigned gen_summary_group_count = sizeof gen_summary_group_order / sizeof gen_summary_group_order[0];

/* Group and a short definition for every summary key the generator writes (gen_summary.c writes the
 * values; tests check that both lists name the same keys). `<N>` in throttle keys is the physical core. */
#define ENG_KEYS(e, g)                                                                                   \
    {e "_engine_active_time", g, "Seconds during which the " e " engine ran at least one instruction."},  \
    {e "_engine_active_time_percent", g, "Fraction of total_time during which the " e " engine was busy."}, \
    {e "_engine_instruction_count", g, "Instructions executed by the " e " engine."},                    \
    {e "_engine_instruction_time", g, "Sum of the " e " engine's instruction durations, in seconds."}
#define DMA_KIND_KEYS(k, g)                                                                              \
    {k "_dma_active_time", g, "Seconds during which at least one " k " DMA packet was in flight."},       \
    {k "_dma_active_time_percent", g, "Share of DMA active time spent on " k " queues."},                \
    {k "_dma_packet_count", g, "DMA packets on " k " queues."},                                          \
    {k "_dma_packet_percent", g, "Share of DMA packets on " k " queues."},                               \
    {k "_dma_size", g, "Bytes moved by DMA packets on " k " queues."},                                   \
    {k "_dma_size_percent", g, "Share of DMA bytes moved on " k " queues."}

const gen_summary_key gen_summary_keys[] = {
    {"total_time", "overall_stats", "Wall time of the profiled execution, in seconds."},
    {"total_active_time", "overall_stats", "Seconds during which any engine or DMA queue was active."},
    {"total_active_time_percent", "overall_stats", "total_active_time as a fraction of total_time."},
    {"neuroncore_cycle_count", "overall_stats", "NeuronCore cycles spanned by the execution."},
    {"event_count", "overall_stats", "Trace events other than instructions and DMA packets."},
    {"trace_count", "overall_stats", "Instruction and DMA packet trace entries."},
    {"model_flops", "overall_stats", "hardware_flops minus transpose_flops."},
    {"hardware_flops", "overall_stats", "Floating-point operations executed by MATMUL instructions."},
    {"transpose_flops", "overall_stats", "Floating-point operations of MATMUL instructions used as transposes."},
    {"mm_arithmetic_intensity", "overall_stats", "model_flops / (hbm_read_bytes + hbm_write_bytes)."},
    {"peak_flops_bandwidth_ratio", "overall_stats", "Peak tensor FLOP/s divided by HBM bandwidth."},
    {"mfu_estimated_percent", "overall_stats", "model_flops over peak FLOPs for total_time."},
    {"mfu_max_achievable_estimated_percent", "overall_stats", "model_flops over peak FLOPs for the tensor engine's active time."},
    {"mfu_hlo_estimated_percent", "overall_stats", "MFU estimate from HLO FLOPs."},
    {"mfu_hlo_max_achievable_estimated_percent", "overall_stats", "Maximum achievable MFU from HLO FLOPs."},
    {"mfu_inst_estimated_percent", "overall_stats", "MFU estimate from instruction FLOPs."},
    {"mfu_inst_max_achievable_estimated_percent", "overall_stats", "Maximum achievable MFU from instruction FLOPs."},
    {"hfu_estimated_percent", "overall_stats", "hardware_flops over peak FLOPs for total_time."},
    {"mbu_estimated_percent", "overall_stats", "HBM bytes over HBM bandwidth times total_time."},
    {"mbu_min_read_util_percent", "overall_stats", "Input and weight bytes over HBM bandwidth times total_time."},
    {"dma_active_cycles", "data_movement", "dma_active_time in cycles of the 1.4 GHz clock."},
    {"dma_active_time", "data_movement", "Static plus dynamic DMA active time, in seconds."},
    {"dma_active_time_percent", "data_movement", "dma_active_time as a fraction of total_time."},
    {"dma_packet_time", "data_movement", "Sum of DMA packet durations, in seconds."},
    {"dma_transfer_time", "data_movement", "Sum of aggregated DMA transfer durations, in seconds."},
    {"dma_queue_count", "data_movement", "DMA queues used by the program."},
    {"dma_transfer_average_bytes", "data_movement", "dma_transfer_total_bytes / dma_transfer_count."},
    {"dma_transfer_count", "data_movement", "Aggregated DMA transfers."},
    {"dma_transfer_total_bytes", "data_movement", "Bytes of the aggregated DMA transfers."},
    {"dynamic_dma_active_time_percent", "data_movement", "Share of DMA active time on dynamic queues."},
    {"dynamic_dma_packet_percent", "data_movement", "Share of DMA packets on dynamic queues."},
    {"dynamic_dma_size_percent", "data_movement", "Share of DMA bytes on dynamic queues."},
    DMA_KIND_KEYS("static", "data_movement"),
    DMA_KIND_KEYS("software_dynamic", "software_data_movement"),
    {"hardware_dynamic_dma_active_time_percent", "hardware_data_movement", "Share of DMA active time on hardware dynamic queues."},
    {"hardware_dynamic_dma_packet_percent", "hardware_data_movement", "Share of DMA packets on hardware dynamic queues."},
    {"hardware_dynamic_dma_size_percent", "hardware_data_movement", "Share of DMA bytes on hardware dynamic queues."},
    {"hbm_read_bytes", "data_movement", "Bytes read from HBM by instructions and their DMAs."},
    {"hbm_write_bytes", "data_movement", "Bytes written to HBM by instructions and their DMAs."},
    {"sbuf_read_bytes", "data_movement", "Bytes read from SBUF."},
    {"sbuf_write_bytes", "data_movement", "Bytes written to SBUF."},
    {"psum_read_bytes", "data_movement", "Bytes read from PSUM."},
    {"psum_write_bytes", "data_movement", "Bytes written to PSUM."},
    {"psum_read_sbuf_write_bytes", "data_movement", "Bytes moved from PSUM to SBUF by compute instructions."},
    {"psum_read_sbuf_write_count", "data_movement", "Instructions that moved data from PSUM to SBUF."},
    {"spill_save_bytes", "data_movement", "Bytes spilled from SBUF to HBM."},
    {"spill_reload_bytes", "data_movement", "Bytes reloaded from HBM spill space."},
    {"input_queue_bytes", "data_movement", "Bytes moved by input queues."},
    {"output_queue_bytes", "data_movement", "Bytes moved by output queues."},
    {"weight_queue_bytes", "data_movement", "Bytes moved by weight queues."},
    {"weight_size_bytes", "data_movement", "Total size of the weight tensors."},
    {"inputs_and_weights_size_bytes", "data_movement", "Total size of inputs and weights."},
    {"inputs_outputs_weights_size_bytes", "data_movement", "Total size of inputs, outputs and weights."},
    ENG_KEYS("tensor", "tensor_engine"),
    ENG_KEYS("vector", "vector_engine"),
    ENG_KEYS("scalar", "scalar_engine"),
    ENG_KEYS("sync", "sync_engine"),
    ENG_KEYS("gpsimd", "gpsimd_engine"),
    {"matmul_instruction_count", "tensor_engine", "MATMUL instructions."},
    {"activate_instruction_count", "scalar_engine", "ACTIVATE instructions."},
    {"activate_instruction_time", "scalar_engine", "Sum of ACTIVATE durations, in seconds."},
    {"cc_op_active_time", "cc_engine", "Seconds during which at least one collective operation was active."},
    {"cc_op_active_time_percent", "cc_engine", "cc_op_active_time as a fraction of total_time."},
    {"cc_op_count", "cc_engine", "Collective operations."},
    {"cc_op_time", "cc_engine", "Sum of collective operation durations, in seconds."},
    {"cc_cores_instruction_active_time", "cc_engine", "Seconds during which a collectives core ran an instruction."},
    {"cc_cores_instruction_active_time_percent", "cc_engine", "cc_cores_instruction_active_time as a fraction of total_time."},
    {"cc_cores_instruction_count", "cc_engine", "Instructions run by collectives cores."},
    {"cc_cores_instruction_time", "cc_engine", "Sum of collectives-core instruction durations, in seconds."},
    {"instance_type", "system", "Instance type the profile claims (synthetic)."},
    {"compiler_version", "system", "Compiler version (synthetic)."},
    {"runtime_version", "system", "Runtime version (synthetic)."},
    {"collectives_version", "system", "Collectives library version (synthetic)."},
    {"driver_version", "system", "Driver version (synthetic)."},
    {"profiler_version", "system", "Profiler version (synthetic)."},
    {"nc_idx", "system", "NeuronCore index."},
    {"nd_idx", "system", "Neuron device index."},
    {"throttle_active_nc<N>_time_ns", "throttling_nc0", "Nanoseconds during which throttling was active on physical core N."},
    {"throttle_avg_util_limit_nc<N>_percent", "throttling_nc0", "Average utilisation limit while throttled on physical core N."},
    {"throttle_activity_0_active_time_nc<N>_percent", "throttling_nc0", "Fraction of time throttled by activity monitor 0."},
    {"throttle_activity_0_avg_util_limit_nc<N>_percent", "throttling_nc0", "Average utilisation limit of activity monitor 0."},
    {"throttle_unknown_active_time_nc<N>_percent", "throttling_nc0", "Fraction of time throttled for an unknown reason."},
    {"throttle_unknown_avg_util_limit_nc<N>_percent", "throttling_nc0", "Average utilisation limit while throttled for an unknown reason."},
};
const unsigned gen_summary_key_count = sizeof gen_summary_keys / sizeof gen_summary_keys[0];
