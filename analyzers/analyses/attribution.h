/* attribution — where a device profile's time goes (kernel-attribution's numbers, formats.md §11.2–11.5).
 *
 * Groups instructions by source line, layer, opcode, HLO or engine and ranks the groups by a metric; adds
 * per-engine time (summed durations and merged busy intervals, which differ because an engine's
 * instructions overlap and EVENT_SEMAPHORE durations are waiting), the largest idle gaps per engine with
 * the instructions on both sides, a small-DMA report and source-location coverage.
 * Owns: the result it fills (attr_result_free) and the precomputed parts it builds (attr_groups_free,
 * attr_sections_free; see below). Reads a finished, immutable device_model: thread-safe. Polls `cancel`
 * every ATTR_CHUNK rows.
 * Bounded: groups accumulate in an array indexed by the key column's dictionary code (one slot per distinct
 * key, O(1) per row); the page is chosen with a heap of `top` groups and only that page is sorted. Idle gaps,
 * DMA queues and skinny-DMA sources are likewise kept by bounded heaps. Only the per-engine busy intervals
 * (for the merged busy time and the gaps) grow with the rows.
 * Cursor: the dictionary code of the last group shown. Order is metric descending, then key text, then
 * code — a strict total order — so "groups after the cursor group" resumes exactly.
 * Errors: -1 with nl_error: NL_ERR_ARGUMENT (field "cursor" or "top"), NL_ERR_NOMEM, NL_ERR_CANCELLED. */
#ifndef NL_ATTRIBUTION_H
#define NL_ATTRIBUTION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "nl_error.h"

#define ATTR_TOP_MAX 500u                 /* groups one page may hold */
#define ATTR_CHUNK 4096u                  /* rows decoded per table_read, and between cancel polls */
#define ATTR_GAP_MIN_NS_DEFAULT 1000      /* idle gaps at or below this are not listed (formats.md §11.4) */
#define ATTR_GAPS_PER_ENGINE_MAX 20u      /* largest gaps listed per engine */
#define ATTR_ENGINES_MAX 16u              /* distinct engine names reported; further ones are not itemised */
#define ATTR_SMALL_DMA_BYTES 512u         /* "skinny" DMA (community recipe) */
#define ATTR_SMALL_DMA_EXPLORER_BYTES 4096u /* Neuron Explorer's small-DMA band */
#define ATTR_DMA_QUEUES_MAX 5u            /* DMA queues itemised in the small-DMA report */
#define ATTR_SKINNY_SOURCES_MAX 10u       /* sources itemised for skinny DMA instructions (§11.3) */

typedef enum attr_group_by { ATTR_BY_SOURCE, ATTR_BY_LAYER, ATTR_BY_OPCODE, ATTR_BY_HLO, ATTR_BY_ENGINE, ATTR_GROUP_BY_COUNT } attr_group_by;

/* time = duration + evt_wait; hbm_bytes = HBM read + write; dma_bytes = HBM read + HBM write + SBUF write of
 * DMA-trigger instructions (§11.3); count = instructions. */
typedef enum attr_metric {
    ATTR_METRIC_TIME, ATTR_METRIC_DURATION, ATTR_METRIC_WAIT, ATTR_METRIC_HBM_BYTES, ATTR_METRIC_DMA_BYTES,
    ATTR_METRIC_COUNT, ATTR_METRIC_KINDS
} attr_metric;

typedef struct attr_request {
    attr_group_by group_by;  /* ATTR_BY_SOURCE with no source location in the model falls back (see result) */
    attr_metric metric;
    uint32_t top;            /* 1..ATTR_TOP_MAX */
    bool has_after;          /* resume after this group (a cursor) */
    uint32_t after_code;
    bool sections;           /* also compute engine time, idle gaps, small DMA (skip on continuation pages) */
    int64_t gap_min_ns;      /* >= 0 */
    uint32_t gaps_per_engine;/* 0..ATTR_GAPS_PER_ENGINE_MAX */
} attr_request;

typedef struct attr_group {
    uint32_t code;           /* dictionary code of the key (the cursor position) */
    uint32_t key;            /* strtab id of the key; 0 = rows without one */
    uint64_t count;
    int64_t duration_ns, wait_ns;
    int64_t semaphore_duration_ns;  /* part of duration_ns in EVENT_SEMAPHORE rows (blocked, not working) */
    uint64_t hbm_read, hbm_write, sbuf_read, sbuf_write, dma_bytes;
    int64_t value;           /* the ranked metric (byte sums clamped to INT64_MAX) */
    double share_pct;        /* value / metric_total × 100 */
} attr_group;

/* One side of an idle gap: the instruction that ended last before it, or the one that starts it. */
typedef struct attr_gap_side {
    size_t row;
    int64_t start_ns, end_ns;
    uint32_t opcode, source, layer; /* strtab ids */
} attr_gap_side;

typedef struct attr_gap {
    int64_t start_ns, end_ns, gap_ns;
    attr_gap_side before, after;
} attr_gap;

typedef struct attr_engine {
    uint32_t name;           /* strtab id of the engine (subgroup) as written */
    uint64_t instructions;
    int64_t summed_duration_ns, summed_wait_ns;
    int64_t busy_ns;         /* union of [start, end) of its instructions except EVENT_SEMAPHORE */
    uint64_t busy_intervals; /* disjoint intervals of that union */
    bool has_active_rows;    /* the export's active_time rows for this engine (case-insensitive name) */
    int64_t active_rows_ns;  /* their union */
    uint64_t active_rows;
    uint64_t gaps_over_min;  /* gaps between consecutive busy intervals longer than gap_min_ns */
    int64_t gaps_over_min_ns;
    attr_gap gaps[ATTR_GAPS_PER_ENGINE_MAX]; /* largest first */
    unsigned gap_count;
} attr_engine;

typedef struct attr_size_class {
    uint64_t count, bytes;
} attr_size_class;

typedef struct attr_dma_queue {
    uint32_t queue, queue_type; /* strtab ids */
    uint64_t packets, bytes;
    attr_size_class under_512, under_4k;
} attr_dma_queue;

typedef struct attr_source_count {
    uint32_t source;         /* strtab id */
    uint64_t count, bytes;
    int64_t duration_ns;
} attr_source_count;

/* DMA size classes over packets (descriptor-level records; duplicates excluded) and the instruction-level
 * view of §11.3 (DMA-trigger instructions with 0 < HBM read + HBM write + SBUF write bytes). */
typedef struct attr_small_dma {
    uint64_t packets, packet_bytes, transfers, duplicates, unknown_variable;
    attr_size_class under_512, under_4k;
    attr_dma_queue queues[ATTR_DMA_QUEUES_MAX]; /* most packets under 4 KiB first */
    unsigned queue_count;
    uint64_t queues_total;
    uint64_t dma_instructions;
    attr_size_class instr_under_512, instr_under_4k;
    bool by_source;          /* source locations exist, so sources[] is filled */
    attr_source_count sources[ATTR_SKINNY_SOURCES_MAX]; /* skinny (< 512 B) DMA instructions by source */
    unsigned source_count;
    uint64_t sources_total;
} attr_small_dma;

typedef struct attr_coverage {
    uint64_t instructions, with_source;
    int64_t duration_ns, duration_with_source_ns;
} attr_coverage;

typedef struct attr_result {
    attr_group_by group_by;  /* what the groups are keyed by (the request's, or the fallback) */
    bool source_abstained;   /* group_by source was asked and no instruction has a source location */
    attr_metric metric;
    attr_group *groups;      /* malloc'd page, best first */
    size_t group_count;
    uint64_t groups_total;   /* distinct keys */
    uint64_t groups_after_cursor;
    bool more;
    int64_t metric_total;    /* Σ value over all groups */
    attr_coverage coverage;
    bool has_sections;
    attr_engine *engines;    /* malloc'd, in first-seen order */
    size_t engine_count;
    uint64_t engines_not_itemised;
    attr_small_dma small_dma;
} attr_result;

int attr_compute(const device_model *m, const attr_request *req, const atomic_int *cancel, attr_result *out,
                 nl_error *err) __attribute__((warn_unused_result));
void attr_result_free(attr_result *r);

/* ---- precomputed parts (for memoizing per model) ------------------------------------------------------
 * attr_compute = the pass over the rows + ranking. The pass yields two immutable parts that do not depend on
 * metric, top or cursor: the per-group aggregates of one grouping (attr_groups) and the engine time / idle
 * gaps / small-DMA sections of one gap setting (attr_sections). attr_compute_from ranks from them in
 * O(groups) without reading a row, and its result is identical to attr_compute's for the same request.
 * Both parts are read-only once built: any number of attr_compute_from calls may share them. */
typedef struct attr_groups attr_groups;
typedef struct attr_sections attr_sections;

/* Aggregates grouped by `by` exactly (pass attr_effective_group_by's result: a source request on a model
 * without source locations ranks by opcode). 0 and *out, or -1 with err (NL_ERR_NOMEM, NL_ERR_CANCELLED). */
int attr_groups_compute(const device_model *m, attr_group_by by, const atomic_int *cancel, attr_groups **out,
                        nl_error *err) __attribute__((warn_unused_result));
void attr_groups_free(attr_groups *g);
size_t attr_groups_bytes(const attr_groups *g);

/* Engine time, idle gaps (those longer than gap_min_ns, the largest gaps_per_engine per engine) and the
 * small-DMA report. 0 and *out, or -1 with err (NL_ERR_ARGUMENT, NL_ERR_NOMEM, NL_ERR_CANCELLED). */
int attr_sections_compute(const device_model *m, int64_t gap_min_ns, uint32_t gaps_per_engine, const atomic_int *cancel,
                          attr_sections **out, nl_error *err) __attribute__((warn_unused_result));
void attr_sections_free(attr_sections *s);
size_t attr_sections_bytes(const attr_sections *s);

/* attr_compute's result from the parts: `groups` of attr_effective_group_by(m, req->group_by); `sections`
 * (only read when req->sections) of req's gap_min_ns and gaps_per_engine — otherwise NL_ERR_ARGUMENT. Same
 * errors as attr_compute for the request itself (top, cursor, ...); never NL_ERR_CANCELLED. */
int attr_compute_from(const device_model *m, const attr_request *req, const attr_groups *groups,
                      const attr_sections *sections, attr_result *out, nl_error *err) __attribute__((warn_unused_result));

/* The grouping attr_compute will use: `by`, or ATTR_BY_OPCODE when `by` is source and no instruction has a
 * source location (*source_abstained set then). */
attr_group_by attr_effective_group_by(const device_model *m, attr_group_by by, bool *source_abstained);
/* Number of distinct keys of a grouping (cursor codes are below it). */
uint32_t attr_group_keys(const device_model *m, attr_group_by by);

const char *attr_group_by_name(attr_group_by by);
const char *attr_metric_name(attr_metric metric);
int attr_group_by_parse(const char *name, attr_group_by *out);
int attr_metric_parse(const char *name, attr_metric *out);

#endif
