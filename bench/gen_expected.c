/* gen_expected — expected.json (the ground truth tests compare analyses against) and show_session.json.
 *
 * expected.json (format_version 1):
 *   generator, format_version, synthetic (true), note, seed, params{…}, files{…}, definitions{…}
 *   layers{count, collectives_per_layer, base_latency_ns, warmup_layer, warmup_factor, outlier_layer
 *          (null below 3 layers), outlier_factor, jitter_fraction, latency_ns[], median_latency_ns,
 *          median_latency_excluding_warmup_ns, outlier_threshold, outlier_ratio_to_median,
 *          outlier_detectable, layers_above_threshold[], warmup_ratio_to_steady_median,
 *          per_layer[{index, path, latency_ns, factor, role}]}
 *   collectives{tpb_trigger_starts_per_core, cc_op_duration_ns, cc_cores[{cc_core, nc|null,
 *          tpb_trigger_starts, decoy}], selected_cc_core, selected_nc}
 *   cores[{nc, export, summary_json, summary_key, cc_core, export_bytes, first_hw_timestamp,
 *          last_hw_timestamp, total_time_ns, total_time_s, neuroncore_cycle_count, collective_trigger_ts[],
 *          layer_windows[], instructions{…by_engine, by_label, by_opcode, by_compiler_opcode,
 *          by_engine_opcode…}, flops{…}, bytes{…}, dma{…}, total_active_ns, collectives{…}, records{…}}]
 * Every number is computed by gen_stats.c from the same arrays the export is written from; the unit test
 * recomputes them from the written files instead.
 *
 * Out of memory: jansson returns NULL or -1; every set/append goes through gen_set/gen_append, which
 * remember the failure in a gen_jb, so a document is either complete or reported as failed (never
 * written with silently missing parts). */
#include "gen_expected.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen_export.h"
#include "gen_trace.h"

/* A builder's sticky failure flag. */
typedef struct gen_jb {
    int bad;
} gen_jb;

/* A new value from jansson (NULL = out of memory). */
static json_t *gen_new(gen_jb *b, json_t *v)
{
    if (!v)
        b->bad = 1;
    return v;
}

/* Steals v, even on failure (jansson's *_new semantics); o or v may be NULL. */
static void gen_set(gen_jb *b, json_t *o, const char *key, json_t *v)
{
    if (json_object_set_new(o, key, v) != 0)
        b->bad = 1;
}

static void gen_append(gen_jb *b, json_t *a, json_t *v)
{
    if (json_array_append_new(a, v) != 0)
        b->bad = 1;
}

/* o, or NULL (o released) when anything failed while building it. */
static json_t *gen_done(gen_jb *b, json_t *o)
{
    if (b->bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *gen_count_json(const gen_count *c)
{
    return json_pack("{sIsI}", "count", (json_int_t)c->count, "duration_sum_ns", (json_int_t)c->dur_sum);
}

static json_t *gen_bytes_json(const gen_bytes_count *b)
{
    return json_pack("{sIsI}", "count", (json_int_t)b->count, "bytes", (json_int_t)b->bytes);
}

static json_t *gen_classes_json(const gen_bytes_count cls[GEN_SIZE_COUNT])
{
    return json_pack("{sososo}", "lt512", gen_bytes_json(&cls[GEN_SIZE_LT512]), "lt4096",
                     gen_bytes_json(&cls[GEN_SIZE_LT4096]), "ge4096", gen_bytes_json(&cls[GEN_SIZE_GE4096]));
}

static json_t *gen_by_engine(gen_jb *b, const gen_core *c)
{
    json_t *o = gen_new(b, json_object());
    for (int e = 0; e < GEN_ENG_COUNT; e++) {
        json_t *v = gen_new(b, gen_count_json(&c->st.eng[e]));
        gen_set(b, v, "instruction_time_ns", json_integer((json_int_t)c->st.instr_time[e]));
        gen_set(b, v, "busy_ns", json_integer((json_int_t)c->st.busy[e]));
        gen_set(b, v, "active_time_records", json_integer((json_int_t)c->active[e].n));
        gen_set(b, v, "zero_length_active_time_records", json_integer((json_int_t)c->st.zero_rows[e]));
        gen_set(b, o, gen_engines[e].lower, v);
    }
    return o;
}

static json_t *gen_by_label(gen_jb *b, const gen_core *c)
{
    json_t *o = gen_new(b, json_object());
    for (int r = 0; r < GEN_ROW_COUNT; r++)
        if (c->st.row[r].count)
            gen_set(b, o, gen_rows[r].label, gen_count_json(&c->st.row[r]));
    return o;
}

/* Add count/duration of `cnt` under key `name` of `o`, summing with an existing entry (WRITE covers both
 * plain WRITEs and PSEUDO_DMA_TRIGGER WRITEs). */
static void gen_add_count(gen_jb *b, json_t *o, const char *name, const gen_count *cnt)
{
    if (!cnt->count)
        return;
    json_t *v = json_object_get(o, name);
    if (!v) {
        gen_set(b, o, name, gen_count_json(cnt));
        return;
    }
    json_int_t n = json_integer_value(json_object_get(v, "count"));
    json_int_t d = json_integer_value(json_object_get(v, "duration_sum_ns"));
    gen_set(b, v, "count", json_integer(n + (json_int_t)cnt->count));
    gen_set(b, v, "duration_sum_ns", json_integer(d + (json_int_t)cnt->dur_sum));
}

static json_t *gen_by_opcode(gen_jb *b, const gen_count *ops)
{
    json_t *o = gen_new(b, json_object());
    for (int op = 0; op < GEN_OP_COUNT; op++)
        gen_add_count(b, o, gen_ops[op].opcode, &ops[op]);
    return o;
}

static json_t *gen_by_compiler_opcode(gen_jb *b, const gen_core *c)
{
    json_t *o = gen_new(b, json_object());
    for (int op = 0; op < GEN_OP_COUNT; op++)
        if (gen_ops[op].compiler_opcode && c->st.op[op].count)
            gen_add_count(b, o, gen_ops[op].compiler_opcode, &c->st.op[op]);
    return o;
}

static json_t *gen_by_engine_opcode(gen_jb *b, const gen_core *c)
{
    json_t *o = gen_new(b, json_object());
    for (int e = 0; e < GEN_ENG_COUNT; e++)
        gen_set(b, o, gen_engines[e].lower, gen_by_opcode(b, c->st.eng_op[e]));
    return o;
}

static json_t *gen_instructions_json(gen_jb *b, const gen_core *c)
{
    const gen_stats *st = &c->st;
    json_t *o = json_pack("{sIsbsIsIsIsIsI}", "count", (json_int_t)st->n_instr, "sorted_by_timestamp", 1,
                          "with_nki_source", (json_int_t)st->with_source, "source_eligible",
                          (json_int_t)st->source_eligible, "with_evt_wait", (json_int_t)st->with_evt_wait,
                          "evt_wait_sum_ns", (json_int_t)st->evt_wait_sum, "dma_triggers",
                          (json_int_t)st->dma_triggers);
    gen_new(b, o);
    gen_set(b, o, "by_engine", gen_by_engine(b, c));
    gen_set(b, o, "by_label", gen_by_label(b, c));
    gen_set(b, o, "by_opcode", gen_by_opcode(b, st->op));
    gen_set(b, o, "by_compiler_opcode", gen_by_compiler_opcode(b, c));
    gen_set(b, o, "by_engine_opcode", gen_by_engine_opcode(b, c));
    return o;
}

static json_t *gen_bytes_fields(const gen_stats *st)
{
    return json_pack("{sIsIsIsIsIsIsIsIsIsI}", "hbm_read", (json_int_t)st->hbm_r, "hbm_write",
                     (json_int_t)st->hbm_w, "sbuf_read", (json_int_t)st->sbuf_r, "sbuf_write",
                     (json_int_t)st->sbuf_w, "psum_read", (json_int_t)st->psum_r, "psum_write",
                     (json_int_t)st->psum_w, "psum_read_sbuf_write", (json_int_t)st->psrw_bytes, "spill_save",
                     (json_int_t)st->spill_save, "spill_reload", (json_int_t)st->spill_reload, "weight_queue",
                     (json_int_t)st->weight_q);
}

static json_t *gen_dma_json(gen_jb *b, const gen_stats *st)
{
    json_t *pk = json_pack("{sIsIsIso}", "count", (json_int_t)st->pkt.count, "bytes", (json_int_t)st->pkt.bytes,
                           "duration_sum_ns", (json_int_t)st->pkt_dur_sum, "by_size_class",
                           gen_classes_json(st->pkt_class));
    gen_new(b, pk);
    gen_set(b, pk, "static", json_pack("{sIsIsI}", "count", (json_int_t)st->qtype_static.count, "bytes",
                                                (json_int_t)st->qtype_static.bytes, "busy_ns", (json_int_t)st->static_busy));
    gen_set(b, pk, "software_dynamic",
                        json_pack("{sIsIsI}", "count", (json_int_t)st->qtype_swdyn.count, "bytes",
                                  (json_int_t)st->qtype_swdyn.bytes, "busy_ns", (json_int_t)st->swdyn_busy));
    json_t *agg = json_pack("{sIsIsIso}", "count", (json_int_t)st->agg.count, "bytes", (json_int_t)st->agg.bytes,
                            "duration_sum_ns", (json_int_t)st->agg_dur_sum, "by_size_class",
                            gen_classes_json(st->agg_class));
    return json_pack("{sIsIsIsIsIsIsoso}", "records", (json_int_t)st->dma_records, "packet_records",
                     (json_int_t)st->pkt_records, "aggregated_records", (json_int_t)st->agg_records,
                     "packet_groups", (json_int_t)st->pkt_groups, "cc_dma_records", (json_int_t)st->cc_dma_records,
                     "unknown_variable_packets", (json_int_t)st->unknown_var_pkts, "packets", pk, "aggregated",
                     agg);
}

static json_t *gen_windows_json(gen_jb *b, const gen_core *c)
{
    json_t *a = gen_new(b, json_array());
    for (int k = 0; k < c->params->layers; k++)
        gen_append(b, a, json_pack("{sisIsIsIsI}", "index", k, "start_ns", (json_int_t)c->layer_start[k],
                                           "mid_ns", (json_int_t)c->layer_mid[k], "end_ns",
                                           (json_int_t)c->layer_start[k + 1], "latency_ns",
                                           (json_int_t)(c->layer_start[k + 1] - c->layer_start[k])));
    return a;
}

static json_t *gen_records_json(const gen_core *c)
{
    size_t active = 0, groups = 0;
    for (int e = 0; e < GEN_ENG_COUNT; e++)
        active += c->active[e].n;
    for (int g = 0; g < GEN_GROUP_COUNT(c->params->layers); g++)
        groups += c->groups[g].start != INT64_MAX;
    const gen_stats *st = &c->st;
    return json_pack("{sIsIsIsIsIsIsIsI}", "instruction", (json_int_t)st->n_instr, "dma",
                     (json_int_t)st->dma_records, "active_time", (json_int_t)active, "semaphore_update",
                     (json_int_t)st->sem_updates, "layer_summary", (json_int_t)groups, "pending_dma",
                     (json_int_t)st->pending_dma, "dma_throughput", (json_int_t)st->dma_throughput, "neff_node",
                     (json_int_t)(c->n_weights + 4));
}

json_t *gen_expected_core(const gen_core *c, uint64_t export_bytes)
{
    const gen_stats *st = &c->st;
    gen_jb jb = {0}, *b = &jb;
    char file[64], sum[64], key[48];
    snprintf(file, sizeof file, "profile_nc%d.json", c->nc);
    snprintf(sum, sizeof sum, "summary_nc%d.json", c->nc);
    gen_export_summary_key(c, key);
    json_t *o = json_pack("{sisssssssisIsIsIsIsfsI}", "nc", c->nc, "export", file, "summary_json", sum,
                          "summary_key", key, "cc_core", gen_trace_cc_core(c->nc), "export_bytes",
                          (json_int_t)export_bytes, "first_hw_timestamp", (json_int_t)0, "last_hw_timestamp",
                          (json_int_t)st->last_hw, "total_time_ns", (json_int_t)st->total_ns, "total_time_s", (double)st->total_ns / 1e9,
                          "neuroncore_cycle_count", (json_int_t)llround((double)st->total_ns * 1.4));
    gen_new(b, o);
    json_t *ts = gen_new(b, json_array());
    for (unsigned i = 0; i < c->n_cc; i++)
        gen_append(b, ts, json_integer((json_int_t)c->cc_ts[i]));
    gen_set(b, o, "collective_trigger_ts", ts);
    gen_set(b, o, "layer_windows", gen_windows_json(b, c));
    gen_set(b, o, "instructions", gen_instructions_json(b, c));
    gen_set(b, o, "flops", json_pack("{sIsIsI}", "hardware", (json_int_t)st->flops, "transpose",
                                              (json_int_t)st->transpose_flops, "model",
                                              (json_int_t)(st->flops - st->transpose_flops)));
    gen_set(b, o, "bytes", gen_bytes_fields(st));
    gen_set(b, o, "dma", gen_dma_json(b, st));
    gen_set(b, o, "total_active_ns", json_integer((json_int_t)st->total_active));
    gen_set(b, o, "collectives",
                        json_pack("{sIsIsIsIsIsI}", "count", (json_int_t)st->cc_count, "time_ns", (json_int_t)st->cc_time,
                                  "active_ns", (json_int_t)st->cc_active, "cc_core_events", (json_int_t)st->cc_core_count,
                                  "cc_core_time_ns", (json_int_t)st->cc_core_time, "cc_core_active_ns",
                                  (json_int_t)st->cc_core_active));
    gen_set(b, o, "records", gen_records_json(c));
    return gen_done(b, o);
}

json_t *gen_expected_graph(const gen_core *c)
{
    return json_pack("{sisIsIsIsi}", "NC", c->nc, "CycleCount", (json_int_t)llround((double)c->st.total_ns * 1.4),
                     "TotalInstructionTraceCount", (json_int_t)c->st.n_instr, "EventsCount",
                     (json_int_t)(c->st.sem_updates + c->st.pending_dma + c->st.ham), "ErrorCount", 0);
}

/* ---- the document ---- */

static int gen_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n <= GEN_MAX_LAYERS values: the middle one, the mean of the two middle ones for even n. */
static double gen_median(const int64_t *v, int n)
{
    double t[GEN_MAX_LAYERS];
    if (n <= 0 || n > GEN_MAX_LAYERS)
        return 0.0;
    for (int i = 0; i < n; i++)
        t[i] = (double)v[i];
    qsort(t, (size_t)n, sizeof *t, gen_dcmp);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2.0;
}

/* What a median-based outlier rule sees (neuronlens gaps: layer >= 1 above k × the median of all layers;
 * layer 0 judged against the median of layers 1..L-1). */
static void gen_layers_outliers(gen_jb *b, json_t *o, const gen_params *p, const gen_plan *pl)
{
    double med = gen_median(pl->latency_ns, p->layers);
    double steady = gen_median(pl->latency_ns + 1, p->layers - 1);
    json_t *above = gen_new(b, json_array());
    for (int k = 1; k < p->layers; k++)
        if ((double)pl->latency_ns[k] > GEN_OUTLIER_THRESHOLD * med)
            gen_append(b, above, json_integer(k));
    double ratio = pl->outlier_layer >= 0 && med > 0 ? (double)pl->latency_ns[pl->outlier_layer] / med : 0.0;
    gen_set(b, o, "median_latency_ns", json_real(med));
    gen_set(b, o, "median_latency_excluding_warmup_ns", json_real(steady));
    gen_set(b, o, "outlier_threshold", json_real(GEN_OUTLIER_THRESHOLD));
    gen_set(b, o, "outlier_ratio_to_median", pl->outlier_layer >= 0 ? json_real(ratio) : json_null());
    gen_set(b, o, "outlier_detectable", json_boolean(pl->outlier_layer >= 0 && ratio > GEN_OUTLIER_THRESHOLD));
    gen_set(b, o, "layers_above_threshold", above);
    gen_set(b, o, "warmup_ratio_to_steady_median",
            p->layers > 1 && steady > 0 ? json_real((double)pl->latency_ns[0] / steady) : json_null());
}

static json_t *gen_layers_json(gen_jb *b, const gen_params *p, const gen_plan *pl)
{
    json_t *lat = gen_new(b, json_array()), *per = gen_new(b, json_array());
    for (int k = 0; k < p->layers; k++) {
        const char *role = k == pl->warmup_layer ? "warmup" : k == pl->outlier_layer ? "outlier" : "normal";
        char path[48];
        snprintf(path, sizeof path, "decoder.layers.%d", k);
        gen_append(b, lat, json_integer((json_int_t)pl->latency_ns[k]));
        gen_append(b, per, json_pack("{sisssIsfss}", "index", k, "path", path, "latency_ns",
                                     (json_int_t)pl->latency_ns[k], "factor", pl->factor[k], "role", role));
    }
    json_t *o = gen_new(b, json_pack("{sisisIsisfsosfsf}", "count", p->layers, "collectives_per_layer",
                                     GEN_CC_PER_LAYER, "base_latency_ns", (json_int_t)pl->base_ns, "warmup_layer",
                                     pl->warmup_layer, "warmup_factor", p->warmup_factor, "outlier_layer",
                                     pl->outlier_layer >= 0 ? json_integer(pl->outlier_layer) : json_null(),
                                     "outlier_factor", p->outlier_factor, "jitter_fraction", GEN_JITTER));
    gen_set(b, o, "latency_ns", lat);
    gen_layers_outliers(b, o, p, pl);
    gen_set(b, o, "per_layer", per);
    return o;
}

static json_t *gen_collectives_json(gen_jb *b, const gen_params *p, const gen_plan *pl)
{
    int starts = GEN_CC_PER_LAYER * p->layers + 2;
    json_t *cores = gen_new(b, json_array());
    for (int nc = 0; nc < p->cores; nc++)
        gen_append(b, cores, json_pack("{sisisisb}", "cc_core", gen_trace_cc_core(nc), "nc", nc,
                                       "tpb_trigger_starts", starts, "decoy", 0));
    gen_append(b, cores, json_pack("{sisnsisb}", "cc_core", gen_trace_decoy_core(p->cores), "nc",
                                   "tpb_trigger_starts", GEN_TRACE_DECOY_STARTS, "decoy", 1));
    return json_pack("{sisIsosisi}", "tpb_trigger_starts_per_core", starts, "cc_op_duration_ns",
                     (json_int_t)pl->cc_dur_ns, "cc_cores", cores, "selected_cc_core", gen_trace_cc_core(p->cores - 1),
                     "selected_nc", p->cores - 1);
}

static json_t *gen_files_json(gen_jb *b, const gen_params *p)
{
    json_t *ex = gen_new(b, json_array()), *sj = gen_new(b, json_array());
    for (int nc = 0; nc < p->cores; nc++) {
        char f[64];
        snprintf(f, sizeof f, "profile_nc%d.json", nc);
        gen_append(b, ex, json_string(f));
        snprintf(f, sizeof f, "summary_nc%d.json", nc);
        gen_append(b, sj, json_string(f));
    }
    return json_pack("{sosossss}", "exports", ex, "summary_json", sj, "show_session_trace",
                     "show_session_trace.txt", "show_session_json", "show_session.json");
}

static json_t *gen_definitions_json(void)
{
    return json_pack(
        "{ssssssssssssssssssss}", "engine",
        "instruction subgroup in lowercase; tensor covers the Tensor and TensorMatrix labels",
        "busy_ns",
        "length of the union of [timestamp, timestamp+duration) over the engine's instructions except those "
        "whose opcode is exactly EVENT_SEMAPHORE (its duration is time blocked on a semaphore; "
        "EVENT_SEMAPHORE_RANGE_CLEAR is included), as in the real exports; overlapping or touching intervals "
        "merge; equals the sum of the engine's active_time records and summary E_engine_active_time x 1e9",
        "active_time_records",
        "the merged intervals of busy_ns in timestamp order; a zero-length instruction not covered or touched "
        "by another interval is kept as a zero-length record (zero_length_active_time_records), as in the "
        "real exports",
        "duration_sum_ns", "sum of the durations of all instructions, EVENT_SEMAPHORE included",
        "instruction_time_ns", "sum of the durations of the engine's instructions except EVENT_SEMAPHORE "
        "(summary E_engine_instruction_time x 1e9; layer_summary E_engine_instruction_time), the relation of "
        "the real exports; >= busy_ns",
        "total_active_ns", "union of all active_time records and all packet-level dma intervals (summary "
        "total_active_time x 1e9)",
        "size_class", "lt512: bytes < 512; lt4096: 512 <= bytes < 4096; ge4096: bytes >= 4096; applied to "
        "packet records' and aggregated records' transfer_size",
        "static_dma", "packets on queue types data and instruction; software_dynamic = queue type "
        "software_dynamic; busy_ns = union of their packet intervals",
        "layer_latency_ns",
        "formats.md 11.1: with TPB_TRIGGER START times t1..tn (n = 2L+2) of the selected CC-core and gaps "
        "g_i = t_(i+1) - t_i, layer K = g_(2K+2) + g_(2K+3) = t_(2K+3) - t_(2K+1) (1-based t); identical on "
        "every core",
        "layer_outlier", "median_latency_ns = median of all L layer latencies (mean of the two middle values "
        "for even L); a layer K >= 1 is an outlier when latency > outlier_threshold x median "
        "(layers_above_threshold); the warm-up layer 0 is compared with median_latency_excluding_warmup_ns",
        "total_time", "last_hw_timestamp - first_hw_timestamp (0) = latest end of any instruction or DMA "
        "packet; summary total_time = total_time_ns / 1e9",
        "selected_cc_core", "the CC-core with the most TPB_TRIGGER START lines, ties broken by the highest "
        "index; the decoy CC-core has the highest index but only two");
}

/* Write and release doc; doc NULL or bad = out of memory. */
static int gen_dump(gen_jb *b, json_t *doc, const char *path, gen_err *err)
{
    if (b->bad || !doc) {
        json_decref(doc);
        gen_err_set(err, "out of memory while building %s", path);
        return -1;
    }
    int rc = json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (rc != 0) {
        gen_err_set(err, "cannot write %s", path);
        return -1;
    }
    return 0;
}

int gen_expected_write(const char *path, const gen_params *p, const gen_plan *plan, json_t *cores, gen_err *err)
{
    gen_jb jb = {0}, *b = &jb;
    if (!cores || json_array_size(cores) != (size_t)p->cores)
        b->bad = 1;
    json_t *params = json_pack("{sisisIsbsbsbsIsfsf}", "layers", p->layers, "cores", p->cores,
                               "instructions_per_layer", (json_int_t)p->ipl, "missing_dge", p->missing_dge,
                               "no_source", p->no_source, "demo", p->demo, "target_bytes",
                               (json_int_t)p->target_bytes, "warmup_factor", p->warmup_factor, "outlier_factor",
                               p->outlier_factor);
    json_t *doc = gen_new(b, json_pack("{sssisbsssIso}", "generator", "nl-gen-profile", "format_version", 1,
                                       "synthetic", 1, "note", GEN_SYNTHETIC_NOTE, "seed", (json_int_t)p->seed,
                                       "params", params));
    gen_set(b, doc, "files", gen_files_json(b, p));
    gen_set(b, doc, "definitions", gen_definitions_json());
    gen_set(b, doc, "layers", gen_layers_json(b, p, plan));
    gen_set(b, doc, "collectives", gen_collectives_json(b, p, plan));
    gen_set(b, doc, "cores", cores);
    return gen_dump(b, doc, path, err);
}

int gen_expected_session_write(const char *path, json_t *graphs, const gen_params *p, gen_err *err)
{
    gen_jb jb = {0}, *b = &jb;
    if (!graphs || json_array_size(graphs) != (size_t)p->cores)
        b->bad = 1;
    json_t *doc = gen_new(b, json_pack("{sss[{s{so}}]}", "Name", GEN_NEFF_NAME, "NeffNodes", "NodeInfo", "Graphs",
                                       graphs));
    return gen_dump(b, doc, path, err);
}
