/* gen_export — the synthetic full JSON export of one core (formats.md §4) and its summary-json (§5.1).
 *
 * File layout: one compact JSON object on one line, like the real exports; each value is an array of
 * flat records. The first key is always `neuronlens_synthetic` (an array unknown to real tools, marking
 * the file as generated, so `head -c 200` of any export shows it, its own keys in written order); the 21
 * arrays of the real exports follow in a seeded random order per core, and every record (singletons like
 * metadata, summary and neff_header included) lists its members in its own seeded random order: the real
 * exports are written from Go maps, so neither the arrays nor the keys of a record keep one order there
 * (all 129 instruction and 228 dma records of profile_128x128x1024.json differ), and a reader's speed
 * depends on it (neuronlens reads the same data ~65% slower with shuffled keys than in one fixed order).
 * Both orders follow Go's map iteration (gen_export_order.c) on the rng stream GEN_WR_STREAM_EXPORT(nc)
 * of --seed: the same arguments give the same bytes, a capture's rank copies of an export are identical,
 * and no value changes (expected.json is the same as with fixed orders).
 *
 * Consistency the readers can rely on (all derived from gen_stats, see gen_stats.c for definitions):
 * - metadata.last_hw_timestamp − first_hw_timestamp (0) = summary.total_time × 1e9 (exactly; total_time is
 *   the correctly rounded quotient) and neuroncore_cycle_count = round(total ns × 1.4).
 * - summary E_engine_* and model_info counts equal the instruction records; E_engine_active_time is the
 *   union of E's active_time records (instructions without EVENT_SEMAPHORE, gen_stats.c) and
 *   E_engine_instruction_time the summed durations of the same instructions; the static/software-dynamic DMA keys follow formats.md §5.1
 *   (static = data + instruction queues); flops/MFU/MBU use the §5.1 relations with 128×128 PEs at
 *   2.8 GHz and 410 GB/s HBM.
 * - layer_summary: one record for /sg00 and one per layer path group (embed_tokens, decoder.layers.K,
 *   norm, lm_head), integer ns times, fractions for *_percent. */
#include "gen_export_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_PE_ROWS 128
#define GEN_PE_COLS 128
#define GEN_PE_FREQ_GHZ 2.8
#define GEN_PE_OTHERS_GHZ 1.4
#define GEN_HBM_BW 410000000000.0
#define GEN_DMA_BW 435000000000ull

static double gen_peak_flops(void)
{
    return 2.0 * GEN_PE_ROWS * GEN_PE_COLS * GEN_PE_FREQ_GHZ * 1e9;
}

static double gen_ratio(double a, double b)
{
    return b != 0.0 ? a / b : 0.0;
}

static double gen_secs(int64_t ns)
{
    return (double)ns / 1e9;
}

void gen_export_neff_hex(uint64_t seed, int which, char *dst)
{
    uint64_t x = seed ^ (0x4e4546465f555549ull + (uint64_t)which);
    for (int i = 0; i < 2; i++)
        snprintf(dst + 16 * i, 17, "%016llx", (unsigned long long)gen_rng_mix(&x));
}

void gen_export_summary_key(const gen_core *c, char *dst)
{
    uint64_t x = c->params->seed ^ (0x6e5f73756d6d6172ull * (uint64_t)(c->nc + 1));
    dst[0] = 'n';
    dst[1] = '_';
    for (int i = 0; i < 5; i++)
        snprintf(dst + 2 + 8 * i, 9, "%08llx", (unsigned long long)(gen_rng_mix(&x) >> 32));
}

static int64_t gen_cycles(int64_t ns)
{
    return llround((double)ns * GEN_PE_OTHERS_GHZ);
}

/* ---- summary ---- */

static void gen_sum_engines(gen_wr *w)
{
    const gen_stats *st = &w->c->st;
    static const gen_engine order[GEN_ENG_COUNT] = {GEN_ENG_TENSOR, GEN_ENG_VECTOR, GEN_ENG_SCALAR, GEN_ENG_SYNC,
                                                    GEN_ENG_GPSIMD};
    double T = gen_secs(st->total_ns);
    char key[80];
    for (int k = 0; k < GEN_ENG_COUNT; k++) {
        gen_engine e = order[k];
        const char *n = gen_engines[e].lower;
        snprintf(key, sizeof key, "%s_engine_active_time", n);
        gen_wr_key_dyn(w, key);
        gen_out_f64(w->o, gen_secs(st->busy[e]));
        snprintf(key, sizeof key, "%s_engine_active_time_percent", n);
        gen_wr_key_dyn(w, key);
        gen_out_f64(w->o, gen_ratio(gen_secs(st->busy[e]), T));
        snprintf(key, sizeof key, "%s_engine_instruction_count", n);
        gen_wr_key_dyn(w, key);
        gen_out_u64(w->o, st->eng[e].count);
        snprintf(key, sizeof key, "%s_engine_instruction_time", n);
        gen_wr_key_dyn(w, key);
        gen_out_f64(w->o, gen_secs(st->instr_time[e]));
    }
    GEN_KU(w, "matmul_instruction_count", st->op[GEN_OP_MATMUL].count);
    GEN_KU(w, "activate_instruction_count", st->op[GEN_OP_ACTIVATE].count);
    GEN_KF(w, "activate_instruction_time", gen_secs(st->op[GEN_OP_ACTIVATE].dur_sum));
}

static void gen_sum_dma_kind(gen_wr *w, const char *kind, const gen_bytes_count *b, int64_t busy)
{
    const gen_stats *st = &w->c->st;
    double all_busy = (double)(st->static_busy + st->swdyn_busy);
    double all_pkts = (double)(st->qtype_static.count + st->qtype_swdyn.count);
    double all_bytes = (double)(st->qtype_static.bytes + st->qtype_swdyn.bytes);
    char key[80];
    snprintf(key, sizeof key, "%s_dma_active_time", kind);
    gen_wr_key_dyn(w, key);
    gen_out_f64(w->o, gen_secs(busy));
    snprintf(key, sizeof key, "%s_dma_active_time_percent", kind);
    gen_wr_key_dyn(w, key);
    gen_out_f64(w->o, gen_ratio((double)busy, all_busy));
    snprintf(key, sizeof key, "%s_dma_packet_count", kind);
    gen_wr_key_dyn(w, key);
    gen_out_u64(w->o, b->count);
    snprintf(key, sizeof key, "%s_dma_packet_percent", kind);
    gen_wr_key_dyn(w, key);
    gen_out_f64(w->o, gen_ratio((double)b->count, all_pkts));
    snprintf(key, sizeof key, "%s_dma_size", kind);
    gen_wr_key_dyn(w, key);
    gen_out_u64(w->o, b->bytes);
    snprintf(key, sizeof key, "%s_dma_size_percent", kind);
    gen_wr_key_dyn(w, key);
    gen_out_f64(w->o, gen_ratio((double)b->bytes, all_bytes));
}

static void gen_sum_dma(gen_wr *w)
{
    const gen_stats *st = &w->c->st;
    int64_t busy = st->static_busy + st->swdyn_busy;
    double T = gen_secs(st->total_ns);
    GEN_KI(w, "dma_active_cycles", gen_cycles(busy));
    GEN_KF(w, "dma_active_time", gen_secs(busy));
    GEN_KF(w, "dma_active_time_percent", gen_ratio(gen_secs(busy), T));
    GEN_KF(w, "dma_packet_time", gen_secs(st->pkt_dur_sum));
    GEN_KF(w, "dma_transfer_time", gen_secs(st->agg_dur_sum));
    GEN_KU(w, "dma_queue_count", GEN_Q_COUNT);
    GEN_KF(w, "dma_transfer_average_bytes", gen_ratio((double)st->agg.bytes, (double)st->agg.count));
    GEN_KU(w, "dma_transfer_count", st->agg.count);
    GEN_KU(w, "dma_transfer_total_bytes", st->agg.bytes);
    gen_sum_dma_kind(w, "static", &st->qtype_static, st->static_busy);
    gen_sum_dma_kind(w, "software_dynamic", &st->qtype_swdyn, st->swdyn_busy);
    double all_pkts = (double)(st->qtype_static.count + st->qtype_swdyn.count);
    double all_bytes = (double)(st->qtype_static.bytes + st->qtype_swdyn.bytes);
    GEN_KF(w, "dynamic_dma_active_time_percent", gen_ratio((double)st->swdyn_busy, (double)busy));
    GEN_KF(w, "dynamic_dma_packet_percent", gen_ratio((double)st->qtype_swdyn.count, all_pkts));
    GEN_KF(w, "dynamic_dma_size_percent", gen_ratio((double)st->qtype_swdyn.bytes, all_bytes));
    GEN_KF(w, "hardware_dynamic_dma_active_time_percent", 0.0);
    GEN_KF(w, "hardware_dynamic_dma_packet_percent", 0.0);
    GEN_KF(w, "hardware_dynamic_dma_size_percent", 0.0);
}

static void gen_sum_bytes(gen_wr *w)
{
    const gen_stats *st = &w->c->st;
    GEN_KU(w, "hbm_read_bytes", st->hbm_r);
    GEN_KU(w, "hbm_write_bytes", st->hbm_w);
    GEN_KU(w, "sbuf_read_bytes", st->sbuf_r);
    GEN_KU(w, "sbuf_write_bytes", st->sbuf_w);
    GEN_KU(w, "psum_read_bytes", st->psum_r);
    GEN_KU(w, "psum_write_bytes", st->psum_w);
    GEN_KU(w, "psum_read_sbuf_write_bytes", st->psrw_bytes);
    GEN_KU(w, "psum_read_sbuf_write_count", st->psrw_count);
    GEN_KU(w, "spill_save_bytes", st->spill_save);
    GEN_KU(w, "spill_reload_bytes", st->spill_reload);
    GEN_KU(w, "input_queue_bytes", 0);
    GEN_KU(w, "output_queue_bytes", 0);
    GEN_KU(w, "weight_queue_bytes", st->weight_q);
    GEN_KU(w, "weight_size_bytes", st->weight_size);
    GEN_KU(w, "inputs_and_weights_size_bytes", st->weight_size + st->input_size);
    GEN_KU(w, "inputs_outputs_weights_size_bytes", st->weight_size + st->input_size + st->output_size);
}

static void gen_sum_overall(gen_wr *w)
{
    const gen_stats *st = &w->c->st;
    double T = gen_secs(st->total_ns), peak = gen_peak_flops();
    uint64_t model = st->flops - st->transpose_flops, hbm = st->hbm_r + st->hbm_w;
    double mfu = gen_ratio((double)model, peak * T);
    double mfu_max = gen_ratio((double)model, peak * gen_secs(st->busy[GEN_ENG_TENSOR]));
    GEN_KF(w, "total_time", T);
    GEN_KF(w, "total_active_time", gen_secs(st->total_active));
    GEN_KF(w, "total_active_time_percent", gen_ratio(gen_secs(st->total_active), T));
    GEN_KI(w, "neuroncore_cycle_count", gen_cycles(st->total_ns));
    GEN_KU(w, "event_count", st->sem_updates + st->pending_dma + st->ham);
    GEN_KU(w, "trace_count", st->n_instr + st->pkt_records);
    GEN_KU(w, "model_flops", model);
    GEN_KU(w, "hardware_flops", st->flops);
    GEN_KU(w, "transpose_flops", st->transpose_flops);
    GEN_KF(w, "mm_arithmetic_intensity", gen_ratio((double)model, (double)hbm));
    GEN_KF(w, "peak_flops_bandwidth_ratio", peak / GEN_HBM_BW);
    GEN_KF(w, "mfu_estimated_percent", mfu);
    GEN_KF(w, "mfu_max_achievable_estimated_percent", mfu_max);
    GEN_KF(w, "mfu_hlo_estimated_percent", mfu);
    GEN_KF(w, "mfu_hlo_max_achievable_estimated_percent", mfu_max);
    GEN_KF(w, "mfu_inst_estimated_percent", mfu);
    GEN_KF(w, "mfu_inst_max_achievable_estimated_percent", mfu_max);
    GEN_KF(w, "hfu_estimated_percent", gen_ratio((double)st->flops, peak * T));
    GEN_KF(w, "mbu_estimated_percent", gen_ratio((double)hbm, T * GEN_HBM_BW));
    GEN_KF(w, "mbu_min_read_util_percent", gen_ratio((double)(st->weight_size + st->input_size), T * GEN_HBM_BW));
}

static void gen_sum_cc_system(gen_wr *w)
{
    const gen_core *c = w->c;
    const gen_stats *st = &c->st;
    double T = gen_secs(st->total_ns);
    GEN_KF(w, "cc_op_active_time", gen_secs(st->cc_active));
    GEN_KF(w, "cc_op_active_time_percent", gen_ratio(gen_secs(st->cc_active), T));
    GEN_KU(w, "cc_op_count", st->cc_count);
    GEN_KF(w, "cc_op_time", gen_secs(st->cc_time));
    GEN_KF(w, "cc_cores_instruction_active_time", gen_secs(st->cc_core_active));
    GEN_KF(w, "cc_cores_instruction_active_time_percent", gen_ratio(gen_secs(st->cc_core_active), T));
    GEN_KU(w, "cc_cores_instruction_count", st->cc_core_count);
    GEN_KF(w, "cc_cores_instruction_time", gen_secs(st->cc_core_time));
    GEN_KL(w, "instance_type", "trn1.2xlarge");
    GEN_KL(w, "compiler_version", "2.22.0.0+synthetic");
    GEN_KL(w, "runtime_version", "2.29.40 (synthetic)");
    GEN_KL(w, "collectives_version", "2.29.41 (synthetic)");
    GEN_KL(w, "driver_version", "2.25.0 (synthetic)");
    GEN_KL(w, "profiler_version", "2.27.33.0%nl-gen-profile");
    GEN_KI(w, "nc_idx", c->nc);
    GEN_KI(w, "nd_idx", 0);
}

/* Summary keys that carry the physical core number are written from the `<N>` pattern of the table. */
static void gen_throttle_key(char *dst, size_t cap, const char *pattern, int nc)
{
    const char *p = strstr(pattern, "<N>");
    if (!p) {
        snprintf(dst, cap, "%s", pattern);
        return;
    }
    snprintf(dst, cap, "%.*s%d%s", (int)(p - pattern), pattern, nc, p + 3);
}

static void gen_sum_throttle(gen_wr *w)
{
    const gen_core *c = w->c;
    char key[96];
    double frac = gen_ratio((double)c->st.ham_active, (double)c->st.total_ns);
    gen_throttle_key(key, sizeof key, "throttle_active_nc<N>_time_ns", c->nc);
    gen_wr_key_dyn(w, key);
    gen_out_i64(w->o, c->st.ham_active);
    gen_throttle_key(key, sizeof key, "throttle_avg_util_limit_nc<N>_percent", c->nc);
    gen_wr_key_dyn(w, key);
    gen_out_f64(w->o, 0.875 * frac);
    gen_throttle_key(key, sizeof key, "throttle_activity_0_active_time_nc<N>_percent", c->nc);
    gen_wr_key_dyn(w, key);
    gen_out_f64(w->o, frac);
    gen_throttle_key(key, sizeof key, "throttle_activity_0_avg_util_limit_nc<N>_percent", c->nc);
    gen_wr_key_dyn(w, key);
    gen_out_f64(w->o, 0.875);
    gen_throttle_key(key, sizeof key, "throttle_unknown_active_time_nc<N>_percent", c->nc);
    gen_wr_key_dyn(w, key);
    gen_out_f64(w->o, 0.0);
    gen_throttle_key(key, sizeof key, "throttle_unknown_avg_util_limit_nc<N>_percent", c->nc);
    gen_wr_key_dyn(w, key);
    gen_out_f64(w->o, 1.0);
}

static void gen_summary_object(gen_wr *w)
{
    gen_wr_begin(w);
    gen_sum_overall(w);
    gen_sum_dma(w);
    gen_sum_bytes(w);
    gen_sum_engines(w);
    gen_sum_cc_system(w);
    gen_sum_throttle(w);
    gen_wr_end(w);
}

/* ---- small arrays ---- */

static void gen_arr_synthetic(gen_wr *w)
{
    const gen_core *c = w->c;
    gen_wr_begin(w);
    GEN_KL(w, "generator", "nl-gen-profile");
    GEN_KU(w, "seed", c->params->seed);
    GEN_KL(w, "note", GEN_SYNTHETIC_NOTE);
    GEN_KI(w, "nc", c->nc);
    GEN_KI(w, "layers", c->params->layers);
    GEN_KI(w, "cores", c->params->cores);
    GEN_KU(w, "instructions_per_layer", c->params->ipl);
    GEN_KL(w, "ground_truth", "expected.json");
    gen_wr_end_in_order(w);
}

/* RFC 3339 time on a 1970 base, as the real exports write relative times ("1970-01-01T00:00:00.00186947Z"). */
static void gen_wr_rel_ts(gen_out *o, int64_t ns)
{
    int64_t s = ns / 1000000000, frac = ns % 1000000000;
    char buf[64];
    int n = snprintf(buf, sizeof buf, "\"1970-01-%02dT%02d:%02d:%02d", (int)(1 + (s / 86400) % 28),
                     (int)(s / 3600 % 24), (int)(s / 60 % 60), (int)(s % 60));
    gen_out_mem(o, buf, (size_t)n);
    if (frac) {
        char f[16];
        snprintf(f, sizeof f, ".%09lld", (long long)frac);
        size_t len = strlen(f);
        while (f[len - 1] == '0')
            len--;
        gen_out_mem(o, f, len);
    }
    GEN_OUT_LIT(o, "Z\"");
}

static void gen_arr_metadata(gen_wr *w)
{
    gen_wr_begin(w);
    GEN_KU(w, "ntff_version", 5);
    GEN_KU(w, "data_version", 8);
    GEN_KB(w, "is_ext", 1);
    GEN_KB(w, "is_simulation", 1);
    GEN_KB(w, "vnc_enabled", 0);
    GEN_KU(w, "dma_ddr_bandwidth", GEN_DMA_BW);
    GEN_KU(w, "hbm_ddr_bandwidth", (uint64_t)GEN_HBM_BW);
    GEN_KF(w, "pe_clock_freq", GEN_PE_FREQ_GHZ);
    GEN_KF(w, "pe_clock_others", GEN_PE_OTHERS_GHZ);
    GEN_KU(w, "pe_num_rows", GEN_PE_ROWS);
    GEN_KU(w, "pe_num_cols", GEN_PE_COLS);
    GEN_KU(w, "ticks_per_nanosec", 1000);
    GEN_KU(w, "first_hw_timestamp", 0);
    GEN_KI(w, "last_hw_timestamp", w->c->st.last_hw);
    GEN_K(w, "first_ts");
    gen_wr_rel_ts(w->o, 0);
    GEN_K(w, "last_ts");
    gen_wr_rel_ts(w->o, w->c->st.last_hw);
    GEN_KU(w, "num_subgraphs", 1);
    GEN_KU(w, "num_physical_cores", 1);
    GEN_KU(w, "total_point_count", 1001);
    gen_wr_end(w);
}

static void gen_arr_warnings(gen_wr *w)
{
    if (!w->c->params->missing_dge)
        return;
    gen_wr_begin(w);
    GEN_KL(w, "category", "Missing Data");
    GEN_KL(w, "message", "Dynamic DMA (DGE) metadata is missing, so reported DMA values may be inaccurate. "
                         "Capture with --enable-dge-notifs or NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1.");
    gen_wr_end(w);
}

static void gen_arr_profile_info(gen_wr *w)
{
    const gen_core *c = w->c;
    char name[160];
    snprintf(name, sizeof name, GEN_SYNTHETIC_NAME " decoder step (nl-gen-profile seed %llu, nc %d)",
             (unsigned long long)c->params->seed, c->nc);
    gen_wr_begin(w);
    GEN_KS(w, "profile_name", name);
    GEN_KL(w, "neff_name", GEN_NEFF_NAME);
    GEN_K(w, "ntff_filename");
    GEN_OUT_LIT(w->o, "\"synthetic/profile_nc");
    gen_out_i64(w->o, c->nc);
    GEN_OUT_LIT(w->o, ".ntff\"");
    GEN_KB(w, "cc_only", 0);
    GEN_KL(w, "profile_type", "normal");
    GEN_KL(w, "profiler_version", "2.27.33.0%nl-gen-profile");
    GEN_KL(w, "profiler_build_time", "1970-01-01T00:00:00Z");
    gen_wr_end(w);
}

static void gen_arr_model_info(gen_wr *w)
{
    const gen_core *c = w->c;
    gen_wr_begin(w);
    GEN_KL(w, "sg_name", "sg00");
    GEN_KU(w, "nd_idx", 0);
    GEN_KI(w, "nc_idx", c->nc);
    GEN_KI(w, "neuroncore_cycle_count", gen_cycles(c->st.total_ns));
    GEN_KU(w, "trace_count", c->st.n_instr + c->st.pkt_records);
    GEN_KU(w, "event_count", c->st.sem_updates + c->st.pending_dma + c->st.ham);
    GEN_KU(w, "dma_queue_count", GEN_Q_COUNT);
    GEN_KU(w, "tensor_engine_instruction_count", c->st.eng[GEN_ENG_TENSOR].count);
    GEN_KU(w, "vector_engine_instruction_count", c->st.eng[GEN_ENG_VECTOR].count);
    GEN_KU(w, "scalar_engine_instruction_count", c->st.eng[GEN_ENG_SCALAR].count);
    GEN_KU(w, "gpsimd_engine_instruction_count", c->st.eng[GEN_ENG_GPSIMD].count);
    GEN_KU(w, "sync_engine_instruction_count", c->st.eng[GEN_ENG_SYNC].count);
    gen_wr_end(w);
}

static void gen_arr_neff_header(gen_wr *w)
{
    char uuid[33], hash[33];
    gen_export_neff_hex(w->c->params->seed, 0, uuid);
    gen_export_neff_hex(w->c->params->seed, 1, hash);
    gen_wr_begin(w);
    GEN_KL(w, "package_version", "2");
    GEN_KL(w, "header_size", "1024");
    GEN_K(w, "data_size");
    gen_out_ch(w->o, '"');
    gen_out_u64(w->o, w->c->st.weight_size + 30720);
    gen_out_ch(w->o, '"');
    GEN_KL(w, "number_of_neuroncores_per_lnc", "1");
    GEN_KL(w, "build_version", "");
    GEN_KL(w, "number_of_logical_neuroncores", "1");
    GEN_KS(w, "hash", hash);
    GEN_KL(w, "minor_version", "0");
    GEN_KL(w, "major_version", "2");
    GEN_KS(w, "uuid", uuid);
    GEN_KL(w, "network_name", GEN_NEFF_NAME);
    GEN_KL(w, "enabled_features", "dge, dge-cast");
    gen_wr_end(w);
}

static void gen_arr_ham(gen_wr *w)
{
    for (int i = 0; i < GEN_HAM_RECORDS; i++) {
        if (i)
            gen_out_ch(w->o, ',');
        gen_wr_begin(w);
        GEN_KU(w, "k", 7);
        GEN_KU(w, "n", 8);
        GEN_KU(w, "type", 0);
        GEN_KU(w, "duration", GEN_HAM_DURATION_NS);
        GEN_KI(w, "timestamp", w->c->layer_start[0] + 1000 + 900 * i);
        gen_wr_end(w);
    }
}

static void gen_arr_group_order(gen_wr *w)
{
    gen_wr_begin(w);
    for (unsigned i = 0; i < gen_summary_group_count; i++) {
        gen_wr_key_dyn(w, gen_summary_group_order[i]);
        gen_out_u64(w->o, i);
    }
    gen_wr_end(w);
}

static const char *gen_throttle_group(int nc)
{
    return nc % 2 ? "throttling_nc1" : "throttling_nc0";
}

static void gen_arr_summary_groups(gen_wr *w)
{
    char key[96];
    gen_wr_begin(w);
    for (unsigned i = 0; i < gen_summary_key_count; i++) {
        const gen_summary_key *k = &gen_summary_keys[i];
        int throttle = strstr(k->key, "<N>") != NULL;
        gen_throttle_key(key, sizeof key, k->key, w->c->nc);
        gen_wr_key_dyn(w, key);
        gen_out_str(w->o, throttle ? gen_throttle_group(w->c->nc) : k->group);
    }
    gen_wr_end(w);
}

static void gen_arr_terminology(gen_wr *w)
{
    char key[96];
    gen_wr_begin(w);
    for (unsigned i = 0; i < gen_summary_key_count; i++) {
        gen_throttle_key(key, sizeof key, gen_summary_keys[i].key, w->c->nc);
        gen_wr_key_dyn(w, key);
        gen_out_str(w->o, gen_summary_keys[i].definition);
    }
    for (int q = 0; q < GEN_Q_COUNT; q++) {
        char pat[64];
        snprintf(pat, sizeof pat, "%s*", gen_queues[q].name);
        for (char *p = pat; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        gen_wr_key_dyn(w, pat);
        gen_out_str(w->o, "Synthetic DMA queue of the neuronlens generator.");
    }
    gen_wr_end(w);
}

static void gen_arr_dma_queues(gen_wr *w)
{
    for (int q = 0; q < GEN_Q_COUNT; q++) {
        if (q)
            gen_out_ch(w->o, ',');
        gen_wr_begin(w);
        GEN_KS(w, "q_name", gen_queues[q].name);
        GEN_KS(w, "q_type", gen_queues[q].q_type);
        GEN_KU(w, "q_idx", gen_queues[q].q_idx);
        GEN_KU(w, "q_eng_idx", gen_queues[q].q_eng_idx);
        GEN_KI(w, "q_event_id", -1);
        GEN_KU(w, "q_axi_port", 0);
        GEN_KU(w, "q_dram_channel", 0);
        GEN_KL(w, "subgraph", "sg00");
        gen_wr_end(w);
    }
}

static void gen_arr_instruction_usage(gen_wr *w)
{
    const gen_core *c = w->c;
    for (int k = 0; k < c->params->layers; k++) {
        int64_t lat = c->layer_start[k + 1] - c->layer_start[k];
        double u = 0.05 + 0.1 * (k % 5) + 0.01 * c->nc;
        if (k)
            gen_out_ch(w->o, ',');
        gen_wr_begin(w);
        GEN_KL(w, "type", "sb");
        GEN_KI(w, "timestamp", c->layer_start[k] + lat / 4);
        GEN_KF(w, "partition_0_usage", u);
        GEN_KF(w, "partition_32_usage", u);
        GEN_KF(w, "partition_64_usage", u);
        GEN_KF(w, "partition_96_usage", u);
        GEN_KF(w, "usage_avg", u);
        gen_wr_end(w);
        gen_out_ch(w->o, ',');
        gen_wr_begin(w);
        GEN_KL(w, "type", "psum");
        GEN_KI(w, "timestamp", c->layer_mid[k] + lat / 4);
        GEN_KU(w, "bank_0_usage", 1);
        GEN_KU(w, "bank_1_usage", k % 2);
        GEN_KF(w, "usage_avg", (1 + k % 2) / 8.0);
        gen_wr_end(w);
    }
}

/* Windows of dma_throughput and pending_dma: prologue, each layer, epilogue. */
static int64_t gen_window_start(const gen_core *c, int i)
{
    return i == 0 ? 0 : c->layer_start[i - 1];
}

static int gen_window_of(const gen_core *c, int64_t ts)
{
    int lo = 0, hi = c->params->layers + 1; /* window i starts at gen_window_start(i) */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (gen_window_start(c, mid) <= ts)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void gen_arr_dma_throughput(gen_wr *w)
{
    const gen_core *c = w->c;
    int n = c->params->layers + 2;
    uint64_t bytes[2 * (GEN_MAX_LAYERS + 2)]; /* 8 KiB */
    memset(bytes, 0, 2 * (size_t)n * sizeof *bytes);
    for (size_t i = 0; i < c->n_pkt; i++) {
        int win = gen_window_of(c, c->pkt[i].ts);
        bytes[2 * win] += c->pkt[i].size;
        if (c->xfer[c->pkt[i].xfer].queue != GEN_Q_CC && c->xfer[c->pkt[i].xfer].queue != GEN_Q_INSTR)
            bytes[2 * win + 1] += c->pkt[i].size;
    }
    uint64_t total = 0, hbm = 0;
    for (int i = 0; i < n; i++) {
        int64_t s = gen_window_start(c, i), e = i + 1 < n ? gen_window_start(c, i + 1) : c->st.last_hw;
        double len = e > s ? (double)(e - s) : 1.0;
        total += bytes[2 * i];
        hbm += bytes[2 * i + 1];
        if (i)
            gen_out_ch(w->o, ',');
        gen_wr_begin(w);
        GEN_KI(w, "timestamp", s);
        GEN_KU(w, "transfer_rate", (uint64_t)llround((double)bytes[2 * i] * 1e9 / len));
        GEN_KU(w, "hbm_transfer_rate", (uint64_t)llround((double)bytes[2 * i + 1] * 1e9 / len));
        GEN_KU(w, "total_transfer_bytes", total);
        GEN_KU(w, "hbm_total_transfer_bytes", hbm);
        if (bytes[2 * i + 1])
            GEN_KL(w, "uses_hbm", "true");
        else
            GEN_KL(w, "uses_hbm", "false");
        gen_wr_end(w);
    }
}

static void gen_arr_pending_dma(gen_wr *w)
{
    int n = w->c->params->layers + 2;
    for (int i = 0; i < n; i++) {
        int64_t s = gen_window_start(w->c, i) + 200;
        for (int v = 1; v >= 0; v--) {
            if (i || v == 0)
                gen_out_ch(w->o, ',');
            gen_wr_begin(w);
            GEN_KI(w, "timestamp", s + 300 * (1 - v));
            GEN_KI(w, "value", v);
            gen_wr_end(w);
        }
    }
}

static void gen_node_weight(gen_wr *w, unsigned i)
{
    const gen_core *c = w->c;
    uint64_t size = gen_weight_size(c, i), loaded = c->weight_loaded[i], loads = c->weight_loads[i];
    gen_wr_begin(w);
    GEN_K(w, "variable_name");
    gen_out_ch(w->o, '"');
    gen_export_weight_name(w->o, c, i);
    gen_out_ch(w->o, '"');
    GEN_KL(w, "type", "WEIGHT");
    GEN_KL(w, "format", "CRSM");
    GEN_K(w, "shape");
    GEN_OUT_LIT(w->o, "\"[128 ");
    gen_out_u64(w->o, size / 256);
    GEN_OUT_LIT(w->o, "]\"");
    GEN_K(w, "size");
    gen_out_ch(w->o, '"');
    gen_out_u64(w->o, size);
    gen_out_ch(w->o, '"');
    GEN_KL(w, "sg_name", "");
    GEN_KU(w, "load_to_sbuf_dma_count", loads);
    GEN_KU(w, "load_to_sbuf_total_size_bytes", loaded);
    GEN_KF(w, "load_to_sbuf_repeat_factor", (double)loaded / (double)size);
    GEN_KU(w, "load_to_sbuf_avg_size_bytes", loads ? loaded / loads : 0);
    gen_wr_end(w);
}

/* The fixed neff_node records: the subgraph node, the two inputs and the output. */
typedef struct gen_node_io {
    const char *name, *type, *format, *shape, *size;
} gen_node_io;

static const gen_node_io gen_node_ios[] = {
    {"input_ids", "IN", "NC", "[1 1024]", "4096"},
    {"position_ids", "IN", "NC", "[1 1024]", "4096"},
    {"logits", "OUT", "NC", "[1 65536]", "262144"},
};

static void gen_node_io_record(gen_wr *w, const gen_node_io *n)
{
    gen_wr_begin(w);
    GEN_KR(w, "variable_name", n->name);
    GEN_KR(w, "type", n->type);
    GEN_KR(w, "format", n->format);
    GEN_KR(w, "shape", n->shape);
    GEN_KR(w, "size", n->size);
    GEN_KL(w, "sg_name", "");
    gen_wr_end(w);
}

static void gen_arr_neff_node(gen_wr *w)
{
    gen_wr_begin(w);
    GEN_KL(w, "variable_name", "");
    GEN_KL(w, "type", "");
    GEN_KL(w, "format", "");
    GEN_KL(w, "shape", "");
    GEN_KL(w, "node", "2");
    GEN_KL(w, "sg_name", "sg00");
    gen_wr_end(w);
    for (size_t i = 0; i < sizeof gen_node_ios / sizeof gen_node_ios[0]; i++) {
        gen_out_ch(w->o, ',');
        gen_node_io_record(w, &gen_node_ios[i]);
    }
    for (unsigned i = 0; i < w->c->n_weights; i++) {
        gen_out_ch(w->o, ',');
        gen_node_weight(w, i);
    }
}

static void gen_mem_usage(gen_wr *w, const char *type, uint64_t bytes)
{
    gen_out_ch(w->o, ',');
    gen_wr_begin(w);
    GEN_KS(w, "usage_type", type);
    GEN_KU(w, "amount_bytes", bytes);
    GEN_KU(w, "nd", 0);
    GEN_KI(w, "nc", w->c->nc);
    gen_wr_end(w);
}

static void gen_arr_nc_mem_usage(gen_wr *w)
{
    const gen_stats *st = &w->c->st;
    uint64_t instr = 64 * st->n_instr, tensors = st->input_size + st->output_size;
    uint64_t total = 25600 + instr + st->weight_size + tensors + 36864 + 32768;
    gen_wr_begin(w);
    GEN_KL(w, "usage_type", "Generic");
    GEN_KU(w, "amount_bytes", 25600);
    GEN_KU(w, "nd", 0);
    GEN_KI(w, "nc", w->c->nc);
    gen_wr_end(w);
    gen_mem_usage(w, "Instructions", instr);
    gen_mem_usage(w, "Weights", st->weight_size);
    gen_mem_usage(w, "Tensors", tensors);
    gen_mem_usage(w, "DMA Rings Runtime", 36864);
    gen_mem_usage(w, "DMA Rings Spill", 32768);
    gen_mem_usage(w, "Total", total);
}

static void gen_layer_record(gen_wr *w, int g)
{
    const gen_core *c = w->c;
    const gen_group_stats *gs = &c->groups[g];
    char name[64];
    int64_t dur = gs->end - gs->start;
    double peak = gen_peak_flops(), secs = gen_secs(dur);
    gen_wr_begin(w);
    GEN_K(w, "name");
    GEN_OUT_LIT(w->o, "\"/sg00");
    if (g != GEN_GROUP_ALL) {
        gen_out_ch(w->o, '/');
        gen_out_raw(w->o, gen_group_name(g, c->params->layers, name, sizeof name));
    }
    gen_out_ch(w->o, '"');
    GEN_KL(w, "fully_qualified_subgraph", "/sg00");
    GEN_KI(w, "start", gs->start);
    GEN_KI(w, "end", gs->end);
    GEN_KI(w, "duration", dur);
    for (int e = 0; e < GEN_ENG_COUNT; e++) {
        char key[80];
        snprintf(key, sizeof key, "%s_engine_active_time", gen_engines[e].lower);
        gen_wr_key_dyn(w, key);
        gen_out_i64(w->o, gs->busy[e]);
        snprintf(key, sizeof key, "%s_engine_instruction_time", gen_engines[e].lower);
        gen_wr_key_dyn(w, key);
        gen_out_i64(w->o, gs->instr_time[e]);
        snprintf(key, sizeof key, "%s_engine_active_percent", gen_engines[e].lower);
        gen_wr_key_dyn(w, key);
        gen_out_f64(w->o, gen_ratio((double)gs->busy[e], (double)dur));
        snprintf(key, sizeof key, "%s_engine_instruction_count", gen_engines[e].lower);
        gen_wr_key_dyn(w, key);
        gen_out_u64(w->o, gs->eng[e].count);
    }
    GEN_KU(w, "tensor_engine_flop_count", gs->flops);
    GEN_KU(w, "tensor_engine_model_flop_count", gs->flops - gs->transpose_flops);
    GEN_KF(w, "tensor_engine_mfu", gen_ratio((double)(gs->flops - gs->transpose_flops), peak * secs));
    GEN_KF(w, "tensor_engine_hfu", gen_ratio((double)gs->flops, peak * secs));
    gen_wr_end(w);
}

static void gen_arr_layer_summary(gen_wr *w)
{
    int first = 1;
    for (int g = 0; g < GEN_GROUP_COUNT(w->c->params->layers); g++) {
        if (w->c->groups[g].start == INT64_MAX)
            continue;
        if (!first)
            gen_out_ch(w->o, ',');
        first = 0;
        gen_layer_record(w, g);
    }
}

static void gen_arr_summary(gen_wr *w)
{
    gen_summary_object(w);
}

/* ---- the file ---- */

typedef struct gen_array {
    const char *name;
    void (*write)(gen_wr *w);
} gen_array;

/* The 21 arrays of the real exports (formats.md §4.1, x136 order); shuffled per core when written. */
static const gen_array gen_arrays[] = {
    {"metadata", gen_arr_metadata},
    {"warnings", gen_arr_warnings},
    {"instruction", gen_export_instructions},
    {"ham", gen_arr_ham},
    {"summary_group_order", gen_arr_group_order},
    {"dma_queues_info", gen_arr_dma_queues},
    {"instruction_usage", gen_arr_instruction_usage},
    {"summary", gen_arr_summary},
    {"layer_summary", gen_arr_layer_summary},
    {"profile_info", gen_arr_profile_info},
    {"semaphore_update", gen_export_semaphore_updates},
    {"dma", gen_export_dma},
    {"dma_throughput", gen_arr_dma_throughput},
    {"terminology", gen_arr_terminology},
    {"neff_node", gen_arr_neff_node},
    {"pending_dma", gen_arr_pending_dma},
    {"active_time", gen_export_active_time},
    {"summary_groups", gen_arr_summary_groups},
    {"neff_header", gen_arr_neff_header},
    {"model_info", gen_arr_model_info},
    {"nc_mem_usage", gen_arr_nc_mem_usage},
};
#define GEN_ARRAY_COUNT (sizeof gen_arrays / sizeof gen_arrays[0])

static void gen_write_array(gen_wr *w, const char *name, void (*write)(gen_wr *w))
{
    gen_out_ch(w->o, '"');
    gen_out_raw(w->o, name);
    GEN_OUT_LIT(w->o, "\":[");
    write(w);
    gen_out_ch(w->o, ']');
}

int gen_export_write(const gen_core *core, const char *path, uint64_t *bytes, gen_err *err)
{
    gen_out o;
    if (gen_out_open(&o, path, err) != 0)
        return -1;
    gen_wr w;
    gen_wr_init(&w, &o, core, GEN_WR_STREAM_EXPORT(core->nc));
    uint16_t order[GEN_ARRAY_COUNT];
    gen_wr_map_order(&w, order, GEN_ARRAY_COUNT);
    gen_out_ch(&o, '{');
    gen_write_array(&w, "neuronlens_synthetic", gen_arr_synthetic);
    for (size_t i = 0; i < GEN_ARRAY_COUNT; i++) {
        const gen_array *a = &gen_arrays[order[i]];
        gen_out_ch(&o, ',');
        gen_write_array(&w, a->name, a->write);
    }
    GEN_OUT_LIT(&o, "}\n");
    if (bytes)
        *bytes = gen_out_bytes(&o);
    return gen_out_close(&o, err);
}

int gen_export_summary_json(const gen_core *core, const char *path, gen_err *err)
{
    gen_out o;
    if (gen_out_open(&o, path, err) != 0)
        return -1;
    gen_wr w;
    gen_wr_init(&w, &o, core, GEN_WR_STREAM_SUMMARY(core->nc));
    char key[48];
    gen_export_summary_key(core, key);
    GEN_OUT_LIT(&o, "{\"");
    gen_out_raw(&o, key);
    GEN_OUT_LIT(&o, "\":");
    gen_summary_object(&w);
    GEN_OUT_LIT(&o, "}\n");
    return gen_out_close(&o, err);
}
