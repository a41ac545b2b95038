/* device_summary — see device_summary.h.
 *
 * Passes over the model (each polls the cancel flag): instructions (engines, busy intervals, span, source
 * coverage), DMA (packets vs aggregated transfers, size classes, queue types, packet busy time),
 * active_time rows, then the record-based rules and data-quality checks.
 *
 * Engine busy time: the export's active_time rows are the union of each engine's instruction intervals
 * without EVENT_SEMAPHORE, whose `duration` is time spent blocked (verified on all three real exports:
 * every endpoint within 1 ns — the export rounds picosecond times — and zero-length instructions kept as
 * zero-length rows). So busy_ns is computed that way and reconciled against the rows with a tolerance of
 * 1 ns per row. */
#include "device_summary.h"
#include "intervals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DS_CHUNK 4096
#define DS_SMALL_DMA_SHARE 0.10 /* [I] neuronlens threshold for the small-DMA rule */

static const char *const engine_names[DS_ENGINE_COUNT] = {"tensor", "vector", "scalar", "gpsimd", "sync"};

int device_summary_engine_index(const char *name)
{
    for (int e = 0; name && e < DS_ENGINE_COUNT; e++)
        if (!strcasecmp(name, engine_names[e]))
            return e;
    return -1;
}

static bool cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

static ds_opt opt_none(void)
{
    return (ds_opt){false, 0};
}

static ds_opt opt_of(double v)
{
    return (ds_opt){true, v};
}

static ds_opt kv_num(const kvlist *rec, const char *key)
{
    double v;
    return rec && kvlist_get_num(rec, key, &v) ? opt_of(v) : opt_none();
}

static ds_opt record_num(const device_model *m, device_model_record which, const char *key)
{
    return kv_num(device_model_record_get(m, which), key);
}

/* Map every dictionary code of a string column to an engine index (or -1). */
static int *engine_map_new(const device_model *m, const table *t, uint32_t col)
{
    uint32_t n = table_dict_size(t, col);
    int *map = malloc((n ? n : 1) * sizeof *map);
    for (uint32_t c = 0; map && c < n; c++)
        map[c] = device_summary_engine_index(device_model_str(m, table_dict_id(t, col, c), NULL));
    return map;
}

typedef struct instr_pass {
    interval_stream busy[DS_ENGINE_COUNT]; /* merged online; see engine_busy_by_sort for unordered ones */
    int64_t busy_ns[DS_ENGINE_COUNT];
    uint64_t busy_pieces[DS_ENGINE_COUNT];
    int64_t min_start, max_end;
} instr_pass;

/* Count disjoint intervals of a union (after interval_union sorted the array). */
static uint64_t union_pieces(const interval *v, size_t n)
{
    uint64_t pieces = 0;
    int64_t end = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (v[i].end <= v[i].start)
            continue;
        if (!pieces || v[i].start > end)
            pieces++;
        if (v[i].end > end)
            end = v[i].end;
    }
    return pieces;
}

/* Busy time of engine e from every one of its instructions, sorted: for an export whose instructions are
 * not in timestamp order on that engine (interval_stream could not place one). A second pass over the
 * table, paid only in that case. */
static int engine_busy_by_sort(const table *t, const int *engine_of, int e, uint32_t sem, int64_t *busy_ns,
                               uint64_t *pieces, nl_error *err)
{
    interval_vec iv = {0};
    for (size_t r = 0; r < table_rows(t); r++) {
        if (engine_of[table_code(t, DM_INSTR_ENGINE, r)] != e || table_str(t, DM_INSTR_OPCODE, r) == sem)
            continue;
        int64_t start = table_i64(t, DM_INSTR_TIMESTAMP, r);
        if (interval_vec_push(&iv, start, start + table_i64(t, DM_INSTR_DURATION, r))) {
            interval_vec_free(&iv);
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (busy intervals)");
        }
    }
    *busy_ns = interval_union(iv.v, iv.n);
    *pieces = union_pieces(iv.v, iv.n);
    interval_vec_free(&iv);
    return 0;
}

static int scan_instructions(const device_model *m, const atomic_int *cancel, device_summary *out, instr_pass *p, nl_error *err)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    size_t rows = t ? table_rows(t) : 0;
    if (!rows)
        return 0;
    int *engine_of = engine_map_new(m, t, DM_INSTR_ENGINE);
    if (!engine_of)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (engine map)");
    uint32_t sem = device_model_str_find(m, "EVENT_SEMAPHORE");
    table_value ts[DS_CHUNK], du[DS_CHUNK], wt[DS_CHUNK], op[DS_CHUNK], src[DS_CHUNK];
    p->min_start = INT64_MAX;
    p->max_end = INT64_MIN;
    for (size_t base = 0; base < rows; base += DS_CHUNK) {
        if (cancelled(cancel)) {
            free(engine_of);
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        }
        size_t n = rows - base < DS_CHUNK ? rows - base : DS_CHUNK;
        table_read(t, DM_INSTR_TIMESTAMP, base, n, ts);
        table_read(t, DM_INSTR_DURATION, base, n, du);
        table_read(t, DM_INSTR_EVT_WAIT, base, n, wt);
        table_read(t, DM_INSTR_OPCODE, base, n, op);
        table_read(t, DM_INSTR_SOURCE, base, n, src);
        for (size_t i = 0; i < n; i++) {
            int64_t start = ts[i].i, end = ts[i].i + du[i].i;
            if (start < p->min_start) p->min_start = start;
            if (end > p->max_end) p->max_end = end;
            if (src[i].s)
                out->instructions_with_source++;
            int e = engine_of[table_code(t, DM_INSTR_ENGINE, base + i)];
            if (e < 0)
                continue;
            ds_engine *eng = &out->engines[e];
            eng->instructions++;
            eng->summed_duration_ns += du[i].i;
            eng->summed_wait_ns += wt[i].i;
            if (op[i].s != sem)
                interval_stream_add(&p->busy[e], start, end);
        }
    }
    int rc = 0;
    for (int e = 0; e < DS_ENGINE_COUNT && !rc; e++) {
        p->busy_ns[e] = interval_stream_total(&p->busy[e]);
        p->busy_pieces[e] = p->busy[e].pieces;
        if (p->busy[e].unordered)
            rc = engine_busy_by_sort(t, engine_of, e, sem, &p->busy_ns[e], &p->busy_pieces[e], err);
    }
    free(engine_of);
    out->instructions = rows;
    out->instruction_span_ns = p->max_end - p->min_start;
    return rc;
}

static int scan_active_rows(const device_model *m, device_summary *out, nl_error *err)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_ACTIVE_TIME);
    size_t rows = t ? table_rows(t) : 0;
    interval_vec per[DS_ENGINE_COUNT] = {{0}};
    int rc = 0;
    for (size_t r = 0; r < rows && !rc; r++) {
        int e = device_summary_engine_index(device_model_str(m, table_str(t, DM_ACTIVE_ENGINE, r), NULL));
        if (e < 0)
            continue;
        if (interval_vec_push(&per[e], table_i64(t, DM_ACTIVE_START, r), table_i64(t, DM_ACTIVE_END, r)))
            rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (active rows)");
    }
    for (int e = 0; e < DS_ENGINE_COUNT; e++) {
        if (!rc && per[e].n) {
            out->engines[e].has_active_rows = true;
            out->engines[e].active_rows = per[e].n;
            out->engines[e].active_rows_ns = interval_union(per[e].v, per[e].n);
        }
        interval_vec_free(&per[e]);
    }
    return rc;
}

static void count_queue_type(ds_dma *d, uint32_t name, uint64_t bytes)
{
    for (unsigned q = 0; q < d->queue_type_count; q++)
        if (d->queue_types[q].name == name) {
            d->queue_types[q].packets++;
            d->queue_types[q].bytes += bytes;
            return;
        }
    if (d->queue_type_count < DS_QUEUE_TYPES_MAX) {
        d->queue_types[d->queue_type_count++] = (ds_queue_type){name, 1, bytes};
    }
}

static void count_size_class(ds_dma *d, uint64_t bytes)
{
    d->size_basis_count++;
    if (bytes < DS_SMALL_DMA_BYTES) {
        d->under_512++;
        d->under_512_bytes += bytes;
    }
    if (bytes < DS_SMALL_DMA_EXPLORER_BYTES) {
        d->under_4k++;
        d->under_4k_bytes += bytes;
    }
}

static int scan_dma(const device_model *m, const atomic_int *cancel, ds_dma *d, nl_error *err)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_DMA);
    size_t rows = t ? table_rows(t) : 0;
    uint32_t unknown = device_model_str_find(m, "unknown");
    uint32_t instruction_q = device_model_str_find(m, "instruction");
    interval_vec busy = {0};
    d->records = rows;
    for (size_t r = 0; r < rows; r++) {
        if ((r & 0xffff) == 0 && cancelled(cancel)) {
            interval_vec_free(&busy);
            return nl_error_set(err, NL_ERR_CANCELLED, NULL, -1, "cancelled");
        }
        uint64_t flags = table_u64(t, DM_DMA_FLAGS, r), bytes = table_u64(t, DM_DMA_TRANSFER_SIZE, r);
        if (flags & DM_DMA_F_DUPLICATE) {
            d->duplicates++; /* formats.md §12: duplicate packets are excluded from every total */
            continue;
        }
        if (flags & DM_DMA_F_AGGREGATED) {
            d->transfers++;
            d->transfer_bytes += bytes;
            continue;
        }
        int64_t start = table_i64(t, DM_DMA_TIMESTAMP, r);
        uint32_t qtype = table_str(t, DM_DMA_QUEUE_TYPE, r);
        d->packets++;
        d->packet_bytes += bytes;
        if (flags & DM_DMA_F_CC)
            d->cc_packets++;
        if (unknown && table_str(t, DM_DMA_VARIABLE, r) == unknown)
            d->unknown_variable++;
        if (qtype != instruction_q && bytes > 4)
            d->ideal_bytes += bytes;
        count_queue_type(d, qtype, bytes);
        if (interval_vec_push(&busy, start, start + table_i64(t, DM_DMA_DURATION, r))) {
            interval_vec_free(&busy);
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory (DMA intervals)");
        }
    }
    d->packet_busy_ns = interval_union(busy.v, busy.n);
    interval_vec_free(&busy);
    /* size classes over transfers when the export has aggregated records, else over packets */
    bool aggregated = d->transfers > 0;
    d->size_basis = aggregated ? "aggregated transfers" : "packets";
    for (size_t r = 0; r < rows; r++) {
        uint64_t flags = table_u64(t, DM_DMA_FLAGS, r);
        if (!(flags & DM_DMA_F_DUPLICATE) && ((flags & DM_DMA_F_AGGREGATED) != 0) == aggregated)
            count_size_class(d, table_u64(t, DM_DMA_TRANSFER_SIZE, r));
    }
    return 0;
}

static void engines_finish(const device_model *m, device_summary *out, instr_pass *p)
{
    char key[64];
    double total = out->total_time_ns.has ? out->total_time_ns.v : (double)out->instruction_span_ns;
    for (int e = 0; e < DS_ENGINE_COUNT; e++) {
        ds_engine *eng = &out->engines[e];
        eng->name = engine_names[e];
        eng->busy_ns = p->busy_ns[e];
        eng->busy_intervals = p->busy_pieces[e];
        snprintf(key, sizeof key, "%s_engine_active_time", eng->name);
        ds_opt s = record_num(m, DEVICE_MODEL_SUMMARY, key);
        eng->summary_active_ns = s.has ? opt_of(s.v * 1e9) : s;
        snprintf(key, sizeof key, "%s_engine_instruction_count", eng->name);
        eng->summary_instruction_count = record_num(m, DEVICE_MODEL_SUMMARY, key);
        eng->model_info_count = record_num(m, DEVICE_MODEL_MODEL_INFO, key);
        double active = eng->summary_active_ns.has ? eng->summary_active_ns.v
                        : eng->has_active_rows ? (double)eng->active_rows_ns : (double)eng->busy_ns;
        eng->utilization_basis = eng->summary_active_ns.has ? "summary active time / summary total_time"
                                 : eng->has_active_rows ? "active_time rows / total"
                                                        : "busy time computed from instructions / total";
        eng->utilization_pct = total > 0 ? 100.0 * active / total : 0;
    }
}

static ds_finding *add_finding(device_summary *out, const char *id, const char *title, const char *recommendation)
{
    ds_finding *f = &out->findings[out->finding_count++];
    memset(f, 0, sizeof *f);
    f->id = id;
    f->title = title;
    f->recommendation = recommendation;
    return f;
}

static void judge(ds_finding *f, double value, double threshold, bool fires)
{
    f->status = fires ? DS_FIRED : DS_PASSED;
    f->value = value;
    f->threshold = threshold;
}

static void rule_model_flops(const kvlist *sum, device_summary *out)
{
    ds_finding *f = add_finding(out, "model_flops_share", "Model FLOPs below 50% of hardware FLOPs",
                                "The Tensor engine does work the model does not need (transposes, padding) or is "
                                "not pipelined; check kernel-attribution by opcode for TRANSPOSE matmuls.");
    ds_opt model = kv_num(sum, "model_flops");
    ds_opt hw = kv_num(sum, "adjusted_hardware_flops");
    const char *hw_key = "adjusted_hardware_flops";
    if (!hw.has) {
        hw = kv_num(sum, "hardware_flops");
        hw_key = "hardware_flops";
    }
    if (!model.has || !hw.has || hw.v <= 0) {
        snprintf(f->evidence, sizeof f->evidence, "not evaluated: the summary has no model_flops/hardware_flops (or no Tensor-engine FLOPs)");
        return;
    }
    judge(f, model.v / hw.v, 0.5, model.v / hw.v < 0.5);
    snprintf(f->evidence, sizeof f->evidence, "model_flops %.0f / %s %.0f = %.3f", model.v, hw_key, hw.v, f->value);
}

static void rule_transpose(const kvlist *sum, device_summary *out)
{
    ds_finding *f = add_finding(out, "transpose_flops_share", "Transpose FLOPs above 10% of hardware FLOPs",
                                "Improve data layout so fewer transposes run on the Tensor engine (see the "
                                "performance-bounds reference, investigation redundant_te_transposes).");
    ds_opt hw = kv_num(sum, "hardware_flops");
    if (!hw.has || hw.v <= 0) {
        snprintf(f->evidence, sizeof f->evidence, "not evaluated: no hardware_flops in the summary");
        return;
    }
    ds_opt tr = kv_num(sum, "transpose_flops");
    double t = tr.has ? tr.v : 0; /* summaries omit zero-valued keys (formats.md §0.7) */
    judge(f, t / hw.v, 0.10, t / hw.v > 0.10);
    snprintf(f->evidence, sizeof f->evidence, "transpose_flops %.0f%s / hardware_flops %.0f = %.3f", t,
             tr.has ? "" : " (key absent = 0)", hw.v, f->value);
}

static void rule_spill(const kvlist *sum, device_summary *out)
{
    ds_finding *f = add_finding(out, "spill_reload_share", "Spill/reload bytes above 25% of HBM reads",
                                "Reduce SBUF pressure (tile sizes, live ranges); check dependencies that force spills.");
    ds_opt hbm = kv_num(sum, "hbm_read_bytes");
    if (!hbm.has || hbm.v <= 0) {
        snprintf(f->evidence, sizeof f->evidence, "not evaluated: no hbm_read_bytes in the summary");
        return;
    }
    ds_opt sp = kv_num(sum, "spill_reload_bytes");
    double s = sp.has ? sp.v : 0;
    judge(f, s / hbm.v, 0.25, s / hbm.v > 0.25);
    snprintf(f->evidence, sizeof f->evidence, "spill_reload_bytes %.0f%s / hbm_read_bytes %.0f = %.3f", s,
             sp.has ? "" : " (key absent = 0)", hbm.v, f->value);
}

static void rule_throttle(const kvlist *sum, device_summary *out)
{
    ds_finding *f = add_finding(out, "throttling", "Throttling of active FLOPs detected",
                                "Find the throttling cause (power/thermal limits, low Tensor-engine use in short "
                                "windows re-enables throttling on trn2/trn3).");
    const kvlist *s = sum;
    size_t keys = 0;
    double worst = 0;
    const char *worst_key = NULL;
    for (size_t i = 0; s && i < kvlist_count(s); i++) {
        const kvlist_entry *e = kvlist_at(s, i);
        const char *k = kvlist_key_str(s, e);
        /* throttle_<t>_active_time_nc<N>_percent (fractions) and throttle_active_nc<N>_time_ns (ns) */
        if (strncmp(k, "throttle_", 9) || !strstr(k, "active") || !strstr(k, "time"))
            continue;
        keys++;
        if (e->num > worst) {
            worst = e->num;
            worst_key = k;
        }
    }
    if (!keys) {
        snprintf(f->evidence, sizeof f->evidence, "not evaluated: the summary has no throttle active-time keys");
        return;
    }
    judge(f, worst, 0, worst > 0);
    if (worst_key)
        snprintf(f->evidence, sizeof f->evidence, "%zu throttle active-time keys; largest %s = %g", keys, worst_key, worst);
    else
        snprintf(f->evidence, sizeof f->evidence, "%zu throttle active-time keys, all zero", keys);
}

static void rule_nki_coverage(device_summary *out, const uint64_t with_src[DS_ENGINE_COUNT])
{
    ds_finding *f = add_finding(out, "nki_coverage", "NKI/source coverage below 50% on tensor, vector or scalar engine",
                                "Write NKI kernels for the uncovered operations, or recompile with "
                                "NEURON_FRAMEWORK_DEBUG=1 if the coverage is low only because locations are missing.");
    double worst = 2;
    int worst_e = -1;
    char *p = f->evidence;
    size_t left = sizeof f->evidence;
    for (int e = 0; e < 3; e++) {
        if (!out->engines[e].instructions)
            continue;
        double share = (double)with_src[e] / (double)out->engines[e].instructions;
        int n = snprintf(p, left, "%s%s %llu/%llu", worst_e < 0 && worst > 1 ? "" : ", ", engine_names[e],
                         (unsigned long long)with_src[e], (unsigned long long)out->engines[e].instructions);
        if (n > 0 && (size_t)n < left) {
            p += n;
            left -= (size_t)n;
        }
        if (share < worst) {
            worst = share;
            worst_e = e;
        }
    }
    if (worst_e < 0) {
        snprintf(f->evidence, sizeof f->evidence, "not evaluated: no tensor, vector or scalar instructions");
        return;
    }
    judge(f, worst, 0.5, worst < 0.5);
    snprintf(p, left, " instructions with a source location; lowest %s = %.3f", engine_names[worst_e], worst);
}

static void rule_collective_outliers(device_summary *out)
{
    ds_finding *f = add_finding(out, "collective_outliers", "Collective operations slower than their group median",
                                "Look for instructions overlapping the slow collectives.");
    snprintf(f->evidence, sizeof f->evidence,
             "not evaluated: the full JSON export carries no collective-operation table (Parquet CcOp); "
             "use collective-gaps for per-layer collective timing");
}

static void rule_small_dma(device_summary *out)
{
    ds_finding *f = add_finding(out, "small_dma", "Many DMA transfers under 4 KiB",
                                "Make transfers larger and contiguous per SBUF partition; see kernel-attribution's "
                                "small-DMA report for where they come from.");
    const ds_dma *d = &out->dma;
    if (!d->size_basis_count) {
        snprintf(f->evidence, sizeof f->evidence, "not evaluated: no DMA records");
        return;
    }
    double share = (double)d->under_4k / (double)d->size_basis_count;
    judge(f, share, DS_SMALL_DMA_SHARE, share >= DS_SMALL_DMA_SHARE && d->under_4k > 0);
    snprintf(f->evidence, sizeof f->evidence,
             "%llu of %llu %s under 4 KiB (%llu B), %llu under 512 B; share %.3f (neuronlens threshold %.2f)",
             (unsigned long long)d->under_4k, (unsigned long long)d->size_basis_count, d->size_basis,
             (unsigned long long)d->under_4k_bytes, (unsigned long long)d->under_512, share, DS_SMALL_DMA_SHARE);
}

static ds_quality *add_quality(device_summary *out, const char *code, ds_severity sev, const char *fix)
{
    if (out->quality_count >= DS_QUALITY_MAX)
        return NULL;
    ds_quality *q = &out->quality[out->quality_count++];
    q->code = code;
    q->severity = sev;
    q->fix = fix;
    q->problem[0] = '\0';
    return q;
}

static void quality_from_warnings(const device_model *m, device_summary *out)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_WARNINGS);
    for (size_t r = 0; t && r < table_rows(t); r++) {
        const char *msg = device_model_str(m, table_str(t, DM_WARN_MESSAGE, r), NULL);
        const char *cat = device_model_str(m, table_str(t, DM_WARN_CATEGORY, r), NULL);
        ds_quality *q;
        if (strstr(msg, "dge") || strstr(msg, "DGE") || strstr(msg, "dynamic DMA metadata"))
            q = add_quality(out, "dge_notifications_missing", DS_WARNING,
                            "Recapture with NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1 (or --enable-dge-notifs); watch for "
                            "notification-queue overflow (error 1204) at full-model scale.");
        else if (strstr(msg, "compiler metrics"))
            q = add_quality(out, "neff_missing_compiler_metrics", DS_INFO,
                            "Recompile the model with a current Neuron compiler.");
        else
            q = add_quality(out, "export_warning", DS_INFO, "See the profiler's message.");
        if (q)
            snprintf(q->problem, sizeof q->problem, "export warning (%s): %s", cat, msg);
    }
}

static void quality_checks(device_summary *out)
{
    const ds_dma *d = &out->dma;
    ds_quality *q;
    if (d->packets && d->unknown_variable * 2 > d->packets && (q = add_quality(out, "dma_variables_unknown", DS_WARNING,
            "Recapture with NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1 so DMAs carry their tensor names.")))
        snprintf(q->problem, sizeof q->problem, "%llu of %llu DMA packets have variable \"unknown\": DMA attribution "
                 "to tensors is unreliable", (unsigned long long)d->unknown_variable, (unsigned long long)d->packets);
    if (!d->packets && (q = add_quality(out, "dma_packets_missing", DS_WARNING,
            "Recapture with DGE notifications (NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1) and export the full JSON again.")))
        snprintf(q->problem, sizeof q->problem, "no packet-level DMA records: memory bounds and DMA busy time cannot be computed");
    if (out->instructions && !out->instructions_with_source && (q = add_quality(out, "no_source_locations", DS_WARNING,
            "Recompile with NEURON_FRAMEWORK_DEBUG=1 (BIR source locations) or NKI debug info, clear cached NEFFs "
            "(they keep old metadata), and profile again.")))
        snprintf(q->problem, sizeof q->problem, "none of the %llu instructions carries a source location: attribution by "
                 "source line is not possible (layer, opcode and HLO still work)", (unsigned long long)out->instructions);
    if (d->duplicates && (q = add_quality(out, "duplicate_dma", DS_INFO, "None needed: duplicates were excluded from "
            "every DMA total; a known profiler artefact.")))
        snprintf(q->problem, sizeof q->problem, "%llu DMA records are marked duplicate and were excluded",
                 (unsigned long long)d->duplicates);
}

static void quality_reconcile(device_summary *out)
{
    for (int e = 0; e < DS_ENGINE_COUNT; e++) {
        const ds_engine *eng = &out->engines[e];
        if (!eng->has_active_rows)
            continue;
        int64_t diff = eng->busy_ns - eng->active_rows_ns;
        int64_t tol = (int64_t)eng->active_rows + 1;
        ds_quality *q;
        if ((diff > tol || diff < -tol) &&
            (q = add_quality(out, "engine_time_mismatch", DS_WARNING,
                             "Report the discrepancy with the profile; prefer the export's active_time for utilization.")))
            snprintf(q->problem, sizeof q->problem, "%s: busy time from instructions %lld ns in %llu intervals vs export "
                     "active_time %lld ns in %llu rows", eng->name, (long long)eng->busy_ns,
                     (unsigned long long)eng->busy_intervals, (long long)eng->active_rows_ns,
                     (unsigned long long)eng->active_rows);
    }
}

static void compute_bounds(const device_model *m, device_summary *out)
{
    ds_bounds *b = &out->bounds;
    b->window_ns = out->total_time_ns.has ? out->total_time_ns : opt_of((double)out->instruction_span_ns);
    char *p = b->not_computed;
    size_t left = sizeof b->not_computed;
    const ds_engine *te = &out->engines[0];
    if (te->instructions)
        b->compute_bound_ns = opt_of((double)(te->has_active_rows ? te->active_rows_ns : te->busy_ns));
    double best = -1;
    const char *names[] = {"tensor", "vector", "scalar", "gpsimd", "memory"};
    double terms[5];
    for (int e = 0; e < 4; e++)
        terms[e] = (double)(out->engines[e].has_active_rows ? out->engines[e].active_rows_ns : out->engines[e].busy_ns);
    terms[4] = -1;
    if (out->dma.packets) {
        b->memory_bound_ns = opt_of((double)out->dma.packet_busy_ns);
        terms[4] = (double)out->dma.packet_busy_ns;
        ds_opt bw = record_num(m, DEVICE_MODEL_METADATA, "dma_ddr_bandwidth");
        if (bw.has && bw.v > 0)
            b->memory_bound_ideal_ns = opt_of((double)out->dma.ideal_bytes / bw.v * 1e9);
        else {
            int n = snprintf(p, left, "memory_bound_ideal: metadata has no dma_ddr_bandwidth. ");
            p += n; left -= (size_t)n;
        }
    } else {
        int n = snprintf(p, left, "memory_bound and memory_bound_ideal: no packet-level DMA records (capture with DGE notifications). ");
        p += n; left -= (size_t)n;
    }
    for (int i = 0; i < 5; i++)
        if (terms[i] > best) {
            best = terms[i];
            b->bottleneck = names[i];
        }
    if (out->instructions) {
        b->perfect_pipeline_ns = opt_of(best);
        if (b->window_ns.has && b->window_ns.v > 0)
            b->pipeline_share_pct = opt_of(100.0 * best / b->window_ns.v);
    } else {
        b->bottleneck = NULL;
    }
    snprintf(p, left, "compute_bound_ideal_flops, ideal_useful and memory_bound_ideal_no_reloads: need per-instruction "
             "adjusted FLOPs and tensor sizes, which only Parquet exports (neuron-explorer) carry.");
}

void device_summary_from_record(const kvlist *sum, device_summary *out)
{
    memset(out, 0, sizeof *out);
    ds_opt total_s = kv_num(sum, "total_time");
    out->total_time_ns = total_s.has ? opt_of(total_s.v * 1e9) : opt_none();
    char key[64];
    for (int e = 0; e < DS_ENGINE_COUNT; e++) {
        ds_engine *eng = &out->engines[e];
        eng->name = engine_names[e];
        snprintf(key, sizeof key, "%s_engine_active_time", eng->name);
        ds_opt a = kv_num(sum, key);
        eng->summary_active_ns = a.has ? opt_of(a.v * 1e9) : a;
        snprintf(key, sizeof key, "%s_engine_instruction_count", eng->name);
        eng->summary_instruction_count = kv_num(sum, key);
        eng->utilization_basis = "summary active time / summary total_time";
        if (a.has && total_s.has && total_s.v > 0)
            eng->utilization_pct = 100.0 * a.v / total_s.v;
    }
    rule_model_flops(sum, out);
    ds_finding *f = add_finding(out, "nki_coverage", "NKI/source coverage below 50% on tensor, vector or scalar engine", NULL);
    snprintf(f->evidence, sizeof f->evidence, "not evaluated: needs instruction records (a full JSON export), not a summary");
    rule_throttle(sum, out);
    rule_transpose(sum, out);
    rule_collective_outliers(out);
    rule_spill(sum, out);
    f = add_finding(out, "small_dma", "Many DMA transfers under 4 KiB", NULL);
    snprintf(f->evidence, sizeof f->evidence, "not evaluated: needs DMA records (a full JSON export), not a summary");
}

int device_summary_compute(const device_model *m, const atomic_int *cancel, device_summary *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    ds_opt total_s = record_num(m, DEVICE_MODEL_SUMMARY, "total_time");
    out->total_time_ns = total_s.has ? opt_of(total_s.v * 1e9) : opt_none();
    ds_opt first = record_num(m, DEVICE_MODEL_METADATA, "first_hw_timestamp");
    ds_opt last = record_num(m, DEVICE_MODEL_METADATA, "last_hw_timestamp");
    if (first.has && last.has)
        out->metadata_span_ns = opt_of(last.v - first.v);
    instr_pass pass = {0};
    if (scan_instructions(m, cancel, out, &pass, err) || scan_active_rows(m, out, err) ||
        scan_dma(m, cancel, &out->dma, err))
        return -1;
    uint64_t with_src[DS_ENGINE_COUNT] = {0};
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    for (size_t r = 0; t && r < table_rows(t); r++) {
        if (!table_str(t, DM_INSTR_SOURCE, r))
            continue;
        int e = device_summary_engine_index(device_model_str(m, table_str(t, DM_INSTR_ENGINE, r), NULL));
        if (e >= 0)
            with_src[e]++;
    }
    engines_finish(m, out, &pass);
    compute_bounds(m, out);
    const kvlist *sum = device_model_record_get(m, DEVICE_MODEL_SUMMARY);
    rule_model_flops(sum, out);
    rule_nki_coverage(out, with_src);
    rule_throttle(sum, out);
    rule_transpose(sum, out);
    rule_collective_outliers(out);
    rule_spill(sum, out);
    rule_small_dma(out);
    quality_from_warnings(m, out);
    quality_checks(out);
    quality_reconcile(out);
    return 0;
}
