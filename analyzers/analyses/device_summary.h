/* device_summary — the headline analysis of one device profile (the `summary` tool's numbers).
 *
 * Computes from a finished device_model: per-engine instruction counts, summed durations and merged busy
 * time (union of instruction intervals), the union of the export's own active_time rows, DMA packet and
 * transfer totals with merged DMA busy time and size classes, the AWS performance bounds that the export
 * allows (formats.md §11.6), the six Neuron Explorer summary rules plus the small-DMA rule (§11.7), and
 * data-quality findings with their fixes (§12). Export `summary` values are not recomputed here; tools
 * read them from the model and report them as given, with the computed values beside them.
 * Result: a plain struct filled by the call (no heap parts, nothing to free). Pure over an immutable model:
 * thread-safe. Polls `cancel` between passes. */
#ifndef NL_DEVICE_SUMMARY_H
#define NL_DEVICE_SUMMARY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "device_model.h"
#include "nl_error.h"

#define DS_ENGINE_COUNT 5
#define DS_QUEUE_TYPES_MAX 8
#define DS_FINDINGS_MAX 8
#define DS_QUALITY_MAX 16
#define DS_SMALL_DMA_BYTES 512u
#define DS_SMALL_DMA_EXPLORER_BYTES 4096u

/* An optional number: `has` = 0 when the input did not carry it. */
typedef struct ds_opt {
    bool has;
    double v;
} ds_opt;

typedef struct ds_engine {
    const char *name;                 /* "tensor", "vector", "scalar", "gpsimd", "sync" */
    uint64_t instructions;            /* rows whose engine (subgroup) is this engine */
    int64_t summed_duration_ns;       /* Σ duration; includes semaphore waits */
    int64_t busy_ns;                  /* union of [timestamp, timestamp + duration) over the engine's
                                         instructions except EVENT_SEMAPHORE (its duration is waiting) */
    uint64_t busy_intervals;          /* disjoint intervals in that union */
    int64_t summed_wait_ns;           /* Σ evt_wait_time (per engine; never summed across engines) */
    bool has_active_rows;
    int64_t active_rows_ns;           /* union of the export's active_time rows for this engine */
    uint64_t active_rows;             /* active_time rows of this engine */
    ds_opt summary_active_ns;         /* summary E_engine_active_time × 1e9 */
    ds_opt summary_instruction_count; /* summary E_engine_instruction_count */
    ds_opt model_info_count;          /* model_info E_engine_instruction_count */
    double utilization_pct;           /* active / total × 100 */
    const char *utilization_basis;    /* which active time and total were used */
} ds_engine;

typedef struct ds_queue_type {
    uint32_t name;                    /* strtab id */
    uint64_t packets, bytes;
} ds_queue_type;

typedef struct ds_dma {
    uint64_t records, packets, transfers, duplicates, cc_packets;
    uint64_t packet_bytes, transfer_bytes;
    int64_t packet_busy_ns;           /* union of packet intervals (memory_bound) */
    const char *size_basis;           /* "aggregated transfers" or "packets" */
    uint64_t size_basis_count;
    uint64_t under_512, under_512_bytes, under_4k, under_4k_bytes;
    uint64_t unknown_variable;        /* packets whose variable is "unknown" (no DGE notifications) */
    ds_queue_type queue_types[DS_QUEUE_TYPES_MAX];
    unsigned queue_type_count;
    uint64_t ideal_bytes;             /* packets not on instruction queues and > 4 B (bounds) */
} ds_dma;

typedef enum ds_status { DS_NOT_EVALUATED, DS_PASSED, DS_FIRED } ds_status;

typedef struct ds_finding {
    const char *id;                   /* "model_flops_share", ... */
    const char *title;
    ds_status status;
    double value, threshold;          /* the ratio tested and its threshold (when evaluated) */
    char evidence[320];               /* the numbers behind it, or why it was not evaluated */
    const char *recommendation;
} ds_finding;

typedef enum ds_severity { DS_INFO, DS_WARNING, DS_ERROR } ds_severity;

typedef struct ds_quality {
    const char *code;                 /* "dge_notifications_missing", ... */
    ds_severity severity;
    char problem[320];
    const char *fix;
} ds_quality;

typedef struct ds_bounds {
    ds_opt window_ns;                 /* total used for the bounds: summary total_time, else span */
    ds_opt compute_bound_ns;          /* merged tensor busy */
    ds_opt memory_bound_ns;           /* merged DMA packet busy */
    ds_opt memory_bound_ideal_ns;     /* ideal bytes / dma_ddr_bandwidth */
    ds_opt perfect_pipeline_ns;       /* max(engines, memory_bound) */
    ds_opt pipeline_share_pct;        /* perfect_pipeline / window × 100: how much of the window the
                                         busiest unit covers; the rest is serialisation and waiting */
    const char *bottleneck;           /* argmax of the pipeline terms, NULL when not computed */
    char not_computed[480];           /* bounds that could not be computed, with reasons */
} ds_bounds;

typedef struct device_summary {
    ds_opt total_time_ns;             /* summary total_time × 1e9 */
    ds_opt metadata_span_ns;          /* metadata last_hw − first_hw */
    int64_t instruction_span_ns;      /* max end − min start over instructions (0 when none) */
    uint64_t instructions;
    uint64_t instructions_with_source;
    ds_engine engines[DS_ENGINE_COUNT];
    ds_dma dma;
    ds_bounds bounds;
    ds_finding findings[DS_FINDINGS_MAX];
    unsigned finding_count;
    ds_quality quality[DS_QUALITY_MAX];
    unsigned quality_count;
} device_summary;

/* Compute the summary. 0, or -1 with err (NL_ERR_NOMEM, NL_ERR_CANCELLED). */
int device_summary_compute(const device_model *m, const atomic_int *cancel, device_summary *out, nl_error *err)
    __attribute__((warn_unused_result));

/* The record-level part only (engines' summary times, the rules that need only summary keys) for inputs
 * that carry a summary and no rows (summary-json). Rules needing rows are marked not evaluated. */
void device_summary_from_record(const kvlist *sum, device_summary *out);

/* Engine index (0..4) of an instruction engine/subgroup or active_time engine name, case-insensitive; -1. */
int device_summary_engine_index(const char *name);

#endif
