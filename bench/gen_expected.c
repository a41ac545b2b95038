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

json_t *gen_expected_core(const gen_core *c, const char *export_rel, uint64_t export_bytes)
{
    const gen_stats *st = &c->st;
    gen_jb jb = {0}, *b = &jb;
    char sum[64], key[48];
    snprintf(sum, sizeof sum, "summary_nc%d.json", c->nc);
    gen_export_summary_key(c, key);
    json_t *o = json_pack("{sisssssssisIsIsIsIsfsI}", "nc", c->nc, "export", export_rel, "summary_json", sum,
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

/* ---- ranks: timeline, system profile, Kineto trace ---- */

static json_t *gen_rank_execs(gen_jb *b, const gen_rank_plan *pl)
{
    json_t *a = gen_new(b, json_array());
    for (int e = 0; e < pl->executions; e++) {
        const gen_step *st = &pl->step[e];
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", e);
        json_t *x = json_pack("{sisbsIsIsIsIss}", "exec_id", e + 1, "warmup", e == 0, "start_ns",
                              (json_int_t)st->dev_first, "end_ns", (json_int_t)st->dev_last, "span_ns",
                              (json_int_t)(st->dev_last - st->dev_first), "busy_ns",
                              (json_int_t)gen_plan_exec_busy(pl, e), "step", name);
        gen_append(b, a, x);
    }
    return a;
}

static json_t *gen_rank_cores(gen_jb *b, const gen_rank_plan *pl, int64_t *sum)
{
    json_t *a = gen_new(b, json_array());
    *sum = 0;
    for (int k = 0; k < pl->cores; k++) {
        json_t *spans = gen_new(b, json_array());
        int64_t busy = 0;
        for (int e = 0; e < pl->executions; e++) {
            const gen_exec_core *x = gen_plan_ex(pl, e, k);
            int64_t off = gen_plan_nc_offset(pl, k, e);
            busy += x->dev_end - x->dev_start;
            gen_append(b, spans, json_pack("{sisIsIsIsIsIsI}", "exec_id", e + 1, "start_ns", (json_int_t)x->dev_start,
                                           "end_ns", (json_int_t)x->dev_end, "duration_ns",
                                           (json_int_t)(x->dev_end - x->dev_start), "nc_start_ns",
                                           (json_int_t)(x->dev_start - off), "nc_end_ns",
                                           (json_int_t)(x->dev_end - off), "launch_latency_ns",
                                           (json_int_t)(x->dev_start - x->sched - GEN_CAP_EXECUTE_AFTER_SCHED_NS)));
        }
        *sum += busy;
        /* one core's executions never overlap, so its busy time is the sum of its spans */
        gen_append(b, a, json_pack("{sisisisIsIso}", "nc", k, "worker_gid", k, "device_core_idx", k, "busy_ns",
                                   (json_int_t)busy, "export_total_ns", (json_int_t)pl->core[k].total_ns, "spans",
                                   spans));
    }
    return a;
}

static json_t *gen_rank_timeline(gen_jb *b, const gen_rank_plan *pl)
{
    int64_t busy = 0, sum = 0, gap_total = 0, gap_max = 0;
    size_t ngaps = 0, cap = (size_t)pl->executions * (size_t)pl->cores;
    int64_t *gaps = malloc(cap * sizeof *gaps);
    if (!gaps || gen_plan_device_union(pl, &busy, gaps, cap, &ngaps) != 0) {
        free(gaps);
        b->bad = 1;
        return NULL;
    }
    json_t *ga = gen_new(b, json_array());
    for (size_t i = 0; i < ngaps && i < cap; i++) {
        gen_append(b, ga, json_integer((json_int_t)gaps[i]));
        gap_total += gaps[i];
        gap_max = gaps[i] > gap_max ? gaps[i] : gap_max;
    }
    free(gaps);
    json_t *loads = gen_new(b, json_array());
    for (int k = 0; k < pl->cores; k++)
        gen_append(b, loads, json_pack("{sisIsIsIsI}", "worker_gid", k, "start_ns", (json_int_t)pl->load_start[k],
                                       "end_ns", (json_int_t)(pl->load_start[k] + pl->load_dur[k]), "duration_ns",
                                       (json_int_t)pl->load_dur[k], "weight_bytes",
                                       (json_int_t)pl->core[k].weight_bytes));
    json_t *o = gen_new(b, json_pack("{sIsIsIsisisIsI}", "start_ns", (json_int_t)pl->t0, "end_ns",
                                     (json_int_t)pl->end, "model_id", (json_int_t)pl->model_id, "export_execution",
                                     GEN_CAP_EXPORT_EXECUTION, "ops_per_step", (int)pl->ops, "warmup_extra_ns",
                                     (json_int_t)GEN_CAP_WARMUP_EXTRA_NS, "drift_ns_per_execution",
                                     (json_int_t)GEN_CAP_DRIFT_NS));
    gen_set(b, o, "neff_path", json_string(GEN_NEFF_NAME));
    gen_set(b, o, "main_thread", json_integer((json_int_t)gen_plan_tid_main(pl)));
    gen_set(b, o, "executions", gen_rank_execs(b, pl));
    gen_set(b, o, "nc_exec_running", gen_rank_cores(b, pl, &sum));
    gen_set(b, o, "device_busy_ns", json_integer((json_int_t)busy));
    gen_set(b, o, "device_sum_ns", json_integer((json_int_t)sum));
    gen_set(b, o, "gaps_ns", ga);
    gen_set(b, o, "gap_total_ns", json_integer((json_int_t)gap_total));
    gen_set(b, o, "gap_max_ns", json_integer((json_int_t)gap_max));
    gen_set(b, o, "nrt_load", loads);
    return o;
}

static json_t *gen_rank_system(gen_jb *b, const gen_rank_plan *pl, const gen_sys_stats *st)
{
    char path[160];
    json_t *files = gen_new(b, json_object());
    static const char *const names[4] = {"trace_info.pb", "ntrace.pb", "cpu_util.pb", "host_mem.pb"};
    static const char *const keys[4] = {"trace_info", "ntrace", "cpu_util", "host_mem"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", pl->dir, names[i]);
        gen_set(b, files, keys[i], json_string(path));
    }
    json_t *counts = gen_new(b, json_object());
    for (int t = 0; t < GEN_EV_COUNT; t++) {
        const gen_ev_count *c = &st->ev[t];
        gen_set(b, counts, gen_ev_name((gen_ev)t),
                json_pack("{sIsIsIsI}", "records", (json_int_t)(c->begins + c->ends + c->instants), "begin",
                          (json_int_t)c->begins, "end", (json_int_t)c->ends, "instant", (json_int_t)c->instants));
    }
    json_t *o = gen_new(b, json_object());
    gen_set(b, o, "files", files);
    gen_set(b, o, "records", json_pack("{sIsIsI}", "ntrace", (json_int_t)st->ntrace_records, "cpu_util",
                                       (json_int_t)st->cpu_records, "host_mem", (json_int_t)st->mem_records));
    gen_set(b, o, "bytes", json_pack("{sIsIsIsI}", "trace_info", (json_int_t)st->bytes_trace_info, "ntrace",
                                     (json_int_t)st->bytes_ntrace, "cpu_util", (json_int_t)st->bytes_cpu_util,
                                     "host_mem", (json_int_t)st->bytes_host_mem));
    gen_set(b, o, "event_counts", counts);
    gen_set(b, o, "workers", json_integer(pl->cores));
    gen_set(b, o, "sync", json_pack("{sIsIsIsI}", "points", (json_int_t)st->ev[GEN_EV_TIMESTAMP_SYNC_POINT].instants,
                                    "groups", (json_int_t)pl->executions * pl->cores, "max_abs_error_ns",
                                    (json_int_t)0, "drift_ns_per_execution", (json_int_t)GEN_CAP_DRIFT_NS));
    gen_set(b, o, "copies", json_pack("{sIsIsI}", "h2d_input_bytes", (json_int_t)st->h2d_bytes, "d2h_output_bytes",
                                      (json_int_t)st->d2h_bytes, "weight_bytes", (json_int_t)st->weight_bytes));
    gen_set(b, o, "cpu", json_pack("{sisIsIsIsfsisIsIsI}", "cpus", GEN_CAP_CPUS, "samples",
                                   (json_int_t)st->cpu_samples, "records", (json_int_t)st->cpu_records,
                                   "omitted_util_records", (json_int_t)st->cpu_util_omitted, "max_pct",
                                   st->cpu_max_pct, "max_cpu", st->cpu_max_id, "max_at_ns",
                                   (json_int_t)st->cpu_max_at_ns, "first_sample_ns", (json_int_t)st->first_sample_ns,
                                   "last_sample_ns", (json_int_t)st->last_sample_ns));
    gen_set(b, o, "host_mem", json_pack("{sIsIsIsI}", "samples", (json_int_t)st->mem_records, "min_bytes",
                                        (json_int_t)st->mem_min, "max_bytes", (json_int_t)st->mem_max, "total_bytes",
                                        (json_int_t)st->mem_total));
    return o;
}

static json_t *gen_rank_kineto(gen_jb *b, const gen_rank_plan *pl, const gen_kin_stats *st, const char *rel)
{
    json_t *cats = gen_new(b, json_object()), *phs = gen_new(b, json_object()), *steps = gen_new(b, json_array());
    for (int c = 0; c < GEN_KC_COUNT; c++)
        gen_set(b, cats, gen_kcat_name((gen_kcat)c), json_integer((json_int_t)st->cat[c]));
    for (int p = 0; p < GEN_KP_COUNT; p++)
        gen_set(b, phs, gen_kph_name((gen_kph)p), json_integer((json_int_t)st->ph[p]));
    for (int e = 0; e < pl->executions; e++) {
        const gen_step *s = &pl->step[e];
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", e);
        /* each step holds exactly its own execution on every core */
        gen_append(b, steps, json_pack("{sssIsIsIsI}", "name", name, "start_ns", (json_int_t)s->start, "end_ns",
                                       (json_int_t)s->end, "dur_ns", (json_int_t)(s->end - s->start), "device_busy_ns",
                                       (json_int_t)gen_plan_exec_busy(pl, e)));
    }
    int64_t busy = 0;
    size_t ngaps = 0;
    if (gen_plan_device_union(pl, &busy, NULL, 0, &ngaps) != 0)
        b->bad = 1;
    json_t *o = gen_new(b, json_pack("{sssIsIsIsI}", "file", rel, "bytes", (json_int_t)st->bytes, "base_time_ns",
                                     (json_int_t)st->base_ns, "events", (json_int_t)st->events,
                                     "events_without_category", (json_int_t)st->no_cat));
    gen_set(b, o, "by_category", cats);
    gen_set(b, o, "by_phase", phs);
    gen_set(b, o, "steps", steps);
    gen_set(b, o, "compiled_regions", json_integer((json_int_t)st->compiled_regions));
    gen_set(b, o, "compiled_region_ns", json_integer((json_int_t)st->compiled_region_ns));
    gen_set(b, o, "device_events", json_integer((json_int_t)st->device_events));
    gen_set(b, o, "launch_op", json_string(GEN_KINETO_LAUNCH_OP));
    gen_set(b, o, "per_op_device_ns",
            json_pack("{sI}", GEN_KINETO_LAUNCH_OP, (json_int_t)st->launch_op_device_ns));
    /* the launch op is the only op with device time, so its union is the whole device union */
    gen_set(b, o, "per_op_device_union_ns", json_pack("{sI}", GEN_KINETO_LAUNCH_OP, (json_int_t)busy));
    gen_set(b, o, "device_busy_ns", json_integer((json_int_t)busy));
    gen_set(b, o, "flow_latency_ns", json_pack("{sIsI}", "min", (json_int_t)st->latency_min_ns, "max",
                                               (json_int_t)st->latency_max_ns));
    return o;
}

json_t *gen_expected_rank(const gen_rank_plan *pl, const gen_sys_stats *sys, const gen_kin_stats *kin,
                          const char *kineto_rel)
{
    gen_jb jb = {0}, *b = &jb;
    json_t *o = gen_new(b, json_pack("{sisIssss}", "rank", pl->rank, "pid", (json_int_t)pl->pid, "instance_id",
                                     pl->instance, "dir", pl->dir));
    if (!sys)
        gen_set(b, o, "dir", json_null());
    json_t *ex = gen_new(b, json_array());
    for (int k = 0; k < pl->cores; k++) {
        char f[160];
        snprintf(f, sizeof f, "%s/profile_nc%d.json", pl->dir, k);
        if (sys)
            gen_append(b, ex, json_string(f));
    }
    gen_set(b, o, "exports", ex);
    gen_set(b, o, "timeline", gen_rank_timeline(b, pl));
    if (sys)
        gen_set(b, o, "system", gen_rank_system(b, pl, sys));
    if (kin)
        gen_set(b, o, "kineto", gen_rank_kineto(b, pl, kin, kineto_rel));
    return gen_done(b, o);
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
    char dir[64] = "";
    if (p->capture)
        gen_rank_dir_name(0, p->ranks, dir, sizeof dir);
    for (int nc = 0; nc < p->cores; nc++) {
        char f[160];
        snprintf(f, sizeof f, "%s%sprofile_nc%d.json", dir, dir[0] ? "/" : "", nc);
        gen_append(b, ex, json_string(f));
        snprintf(f, sizeof f, "summary_nc%d.json", nc);
        gen_append(b, sj, json_string(f));
    }
    json_t *o = json_pack("{sosossss}", "exports", ex, "summary_json", sj, "show_session_trace",
                          "show_session_trace.txt", "show_session_json", "show_session.json");
    if (p->capture || p->kineto) {
        json_t *dirs = gen_new(b, json_array()), *traces = gen_new(b, json_array());
        for (int r = 0; r < p->ranks; r++) {
            char d[64], t[96];
            gen_rank_dir_name(r, p->ranks, d, sizeof d);
            if (p->capture)
                gen_append(b, dirs, json_string(d));
            snprintf(t, sizeof t, "%s%strace.json", p->capture ? d : "", p->capture ? "/" : "");
            if (p->kineto)
                gen_append(b, traces, json_string(t));
        }
        gen_set(b, o, "capture_dirs", dirs);
        gen_set(b, o, "kineto", traces);
    }
    return o;
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

static json_t *gen_rank_definitions_json(void)
{
    return json_pack(
        "{ssssssssssssssssssss}", "time",
        "timeline, system and kineto times are unix ns on the host clock; trace.json ts/dur are us with 3 decimals "
        "relative to baseTimeNanoseconds, so unix ns = baseTimeNanoseconds + ts x 1000 exactly",
        "nc_exec_running", "per core (nc_idx = device_core_idx = worker_gid), one span per execution; duration = "
        "the core's export total_ns (last_hw_timestamp - first_hw_timestamp), + warmup_extra_ns for exec_id 1; "
        "host ns of export timestamp t during execution e = start_ns + t",
        "device_busy_ns", "length of the union of all cores' nc_exec_running intervals (formats.md 11.9), never a "
        "sum (device_sum_ns); executions[].busy_ns is the union of one execution's cores",
        "gaps_ns", "the holes of that union in time order: one per pair of consecutive executions (the last "
        "core's end of one to the first core's start of the next)",
        "launch_latency_ns", "nrt_execute begin to nc_exec_running begin on the same nc_idx",
        "sync", "per (exec_id, nc_idx) one timestamp_sync_point; cpu_timestamp_ns + (nc_timestamp_ns - "
        "sync.nc_timestamp_ns) equals the record's f2 for both ends of nc_exec_running (max_abs_error_ns 0); the "
        "device clock drifts drift_ns_per_execution per execution, so another execution's sync point is off by a "
        "multiple of it",
        "cpu", "12 CPUs sampled at 1 Hz; f1 omitted when 0 (omitted_util_records), the first timestamp all 0; "
        "max_pct is the largest float32 written, as a double",
        "per_op_device_ns", "each privateuse1_driver event's correlation id names one privateuse1_runtime "
        "nrta_execute_schedule, whose enclosing cpu_op is the launch op; the op's device time is the sum of its "
        "device events (per_op_device_union_ns: their union)",
        "flow_latency_ns", "ac2g f (device event start) minus s (the schedule call's start) of the same id",
        "steps", "ProfilerStep#N spans (N = exec_id - 1); device_busy_ns = union of the device events inside");
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

int gen_expected_write(const char *path, const gen_params *p, const gen_plan *plan, json_t *cores, json_t *ranks,
                       gen_err *err)
{
    gen_jb jb = {0}, *b = &jb;
    if (!cores || json_array_size(cores) != (size_t)p->cores)
        b->bad = 1;
    if ((p->capture || p->kineto || p->memory_snapshot) && (!ranks || json_array_size(ranks) != (size_t)p->ranks))
        b->bad = 1;
    json_t *params = json_pack("{sisisIsbsbsbsIsfsf}", "layers", p->layers, "cores", p->cores,
                               "instructions_per_layer", (json_int_t)p->ipl, "missing_dge", p->missing_dge,
                               "no_source", p->no_source, "demo", p->demo, "target_bytes",
                               (json_int_t)p->target_bytes, "warmup_factor", p->warmup_factor, "outlier_factor",
                               p->outlier_factor);
    json_t *doc = gen_new(b, json_pack("{sssisbsssIso}", "generator", "nl-gen-profile", "format_version", 1,
                                       "synthetic", 1, "note", GEN_SYNTHETIC_NOTE, "seed", (json_int_t)p->seed,
                                       "params", params));
    gen_set(b, params, "capture", json_boolean(p->capture));
    gen_set(b, params, "ranks", json_integer(p->ranks));
    gen_set(b, params, "executions", json_integer(p->executions));
    gen_set(b, params, "kineto", json_boolean(p->kineto));
    gen_set(b, params, "kineto_target_bytes", json_integer((json_int_t)p->kineto_target_bytes));
    gen_set(b, params, "kineto_ops_per_step", json_integer((json_int_t)p->kineto_ops));
    gen_set(b, params, "memory_snapshot", json_boolean(p->memory_snapshot));
    gen_set(b, params, "memory_layout", json_string(p->memory_layout ? "v2_0" : "current"));
    gen_set(b, params, "memory_target_bytes", json_integer((json_int_t)p->memory_target_bytes));
    gen_set(b, params, "memory_oom", json_boolean(p->memory_oom));
    gen_set(b, params, "memory_devices", json_integer(p->memory_devices ? p->memory_devices : 1));
    gen_set(b, doc, "files", gen_files_json(b, p));
    json_t *defs = gen_new(b, gen_definitions_json());
    if (p->capture || p->kineto)
        gen_set(b, defs, "ranks", gen_rank_definitions_json());
    gen_set(b, doc, "definitions", defs);
    gen_set(b, doc, "layers", gen_layers_json(b, p, plan));
    gen_set(b, doc, "collectives", gen_collectives_json(b, p, plan));
    gen_set(b, doc, "cores", cores);
    if (ranks)
        gen_set(b, doc, "ranks", ranks);
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
