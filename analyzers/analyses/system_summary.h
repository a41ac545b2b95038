/* system_summary — the headline of one system profile, computed from a system_model (formats.md §9, §11.9).
 *
 * Owns: the arrays it allocates in a system_summary (system_summary_free releases them); type names are
 * strtab ids and NEFF paths are borrowed from the model, so the model must outlive the summary.
 * Threads: any thread; reads the model only. Polls the cancel flag between phases.
 * Errors: -1 + nl_error (NL_ERR_NOMEM, NL_ERR_CANCELLED); missing data is never an error — the summary
 * says what it could not compute (has_* flags, counts of what was left out).
 *
 * What it computes:
 *   - device busy time: per core, the union of `nc_exec_running` intervals (per physical core when the
 *     events carry device_core_idx, e.g. LNC=2), and the union over all cores — never a sum (§11.9);
 *   - gaps between device executions (in the all-core union): count, total, largest, and what the host was
 *     doing in them (overlap of each runtime span type, and of all host spans together), plus the lead-in
 *     before the first execution and the tail after the last;
 *   - per event type: paired spans, instants, unpaired records, summed and merged duration, bytes;
 *   - executions (nc_exec_running grouped by nc_idx + exec_id) with model, cores and the launch latency
 *     from the enclosing nrt_execute; nrt_load per worker; models seen → NEFF path;
 *   - host↔device copies (nrt_tensor_write/read API calls and dmem_buf_copyin/out buffer copies, each copy
 *     attributed to the innermost runtime call enclosing it on the same worker), tensor and DMA allocations;
 *   - device→host clock conversion with the per-core timestamp_sync_point and its error against f2;
 *   - CPU utilisation and host memory series. */
#ifndef NL_SYSTEM_SUMMARY_H
#define NL_SYSTEM_SUMMARY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"
#include "system_model.h"

/* Caps on what is itemised (everything is still counted). */
#define SS_CORES_MAX 256u
#define SS_TOP_GAPS 5u
#define SS_ACTIVITY_TOP 6u
#define SS_EXECUTIONS_LISTED 16u
#define SS_LOADS_LISTED 64u
#define SS_MODELS_MAX 64u
#define SS_SYNC_GROUPS_MAX 64u
#define SS_USAGE_TOP 8u
#define SS_RETURN_CODES_MAX 8u
#define SS_PARENTS_TOP 6u
#define SS_CPUS_MAX 4096u

/* Event type names the summary looks for (names, not ids: ids come from trace_info.pb). */
#define SS_EXEC_TYPE "nc_exec_running"
#define SS_MODEL_SWITCH_TYPE "nc_model_switch"
#define SS_EXECUTE_TYPE "nrt_execute"
#define SS_LOAD_TYPE "nrt_load"

typedef struct ss_core {
    int64_t core;              /* device_core_idx, or nc_idx when the events lack it */
    bool physical;             /* core is a device_core_idx */
    int64_t nc;                /* nc_idx of its executions (-1 unknown, the first seen otherwise) */
    uint64_t executions;       /* nc_exec_running spans */
    int64_t busy_ns, summed_ns, first_start, last_end;
    uint64_t gaps;             /* between its own merged executions */
    int64_t gap_total_ns, gap_max_ns;
} ss_core;

typedef struct ss_activity {
    uint32_t type;             /* strtab id of the event type */
    int64_t overlap_ns;        /* time its spans (merged) cover inside the window */
} ss_activity;

typedef struct ss_window_activity {
    bool has;
    int64_t start, end;
    int64_t host_busy_ns;      /* union of every host (non-hardware) span inside the window */
    unsigned nact;
    ss_activity act[SS_ACTIVITY_TOP]; /* largest overlap first */
} ss_window_activity;

typedef struct ss_gaps {
    uint64_t count;
    int64_t total_ns, largest_ns;
    unsigned ntop;
    ss_window_activity top[SS_TOP_GAPS];  /* the largest gaps, largest first */
    ss_window_activity all;               /* over all gaps together (start/end unused) */
    ss_window_activity lead_in, tail;     /* trace start → first execution, last execution → trace end */
} ss_gaps;

typedef struct ss_type {
    uint32_t name;             /* strtab id */
    uint64_t type_id;
    bool hardware;             /* its events carry nc_timestamp_ns */
    uint64_t pairs, instants, open, orphan_ends, nonzero_rc;
    int64_t total_ns, union_ns, min_ns, max_ns;
    uint64_t bytes;            /* Σ bytes of paired spans */
} ss_type;

typedef struct ss_execution {
    int64_t nc, exec_id;
    uint64_t model_id;         /* 0 unknown */
    int64_t start, end, busy_ns;
    unsigned cores;
    bool has_launch;           /* an nrt_execute on the same nc_idx encloses the start */
    int64_t launch_ns;         /* nrt_execute begin → first device start */
    int64_t completion_ns;     /* last device end → nrt_execute end */
    int64_t host_call_ns;      /* nrt_execute duration */
} ss_execution;

typedef struct ss_load {
    int64_t worker, nc;
    uint64_t model_id;
    int64_t start, duration_ns;
    bool open;
} ss_load;

typedef struct ss_model {
    uint64_t model_id;
    const char *neff_path;     /* borrowed from the model; NULL when system_trace lacks it */
    uint64_t loads, executions;
} ss_model;

typedef struct ss_parent {
    uint32_t type;             /* enclosing call type, 0 ("") = none */
    uint64_t count, bytes;
} ss_parent;

typedef struct ss_copy {
    uint32_t type;             /* strtab id; 0 when the type never occurs */
    bool h2d;
    uint64_t count, bytes;
    int64_t total_ns;
    unsigned nparents;
    ss_parent parents[SS_PARENTS_TOP];
} ss_copy;

enum { SS_COPY_TENSOR_WRITE, SS_COPY_TENSOR_WRITE_BATCH, SS_COPY_BUF_IN, SS_COPY_BUF_BATCH_IN, SS_COPY_TENSOR_READ,
       SS_COPY_TENSOR_READ_BATCH, SS_COPY_BUF_OUT, SS_COPY_BUF_BATCH_OUT, SS_COPY_COUNT };

typedef struct ss_usage {
    uint32_t usage;            /* strtab id of usage_type */
    uint64_t count, bytes;
} ss_usage;

typedef struct ss_return_code {
    int64_t code;
    uint64_t count;
} ss_return_code;

typedef struct ss_alloc {
    uint64_t dma_allocs, dma_alloc_bytes, dma_deallocs, dma_freed_bytes;
    uint64_t dma_nonzero_rc;         /* allocations whose end carries return_code ≠ 0 */
    unsigned ncodes;
    ss_return_code codes[SS_RETURN_CODES_MAX]; /* the distinct non-zero codes seen */
    unsigned nusage;
    ss_usage usage[SS_USAGE_TOP];    /* by allocated bytes */
    uint64_t usage_other_count, usage_other_bytes; /* usage types beyond the top */
    uint64_t tensor_allocs, tensor_alloc_bytes, tensor_frees;
} ss_alloc;

typedef struct ss_sync_group {
    int64_t nc, exec_id, core;      /* core -1 when one sync point serves the whole group */
    int64_t sync_cpu_ns, sync_nc_ns, offset_ns; /* offset = cpu - nc */
    uint64_t events;                /* timestamps converted and compared */
    int64_t max_abs_error_ns;
} ss_sync_group;

typedef struct ss_sync {
    uint64_t points, groups_matched, groups_unmatched;
    uint64_t events_checked, events_unconvertible;
    bool has_error;
    int64_t max_abs_error_ns;
    unsigned ngroups;
    ss_sync_group groups[SS_SYNC_GROUPS_MAX];
} ss_sync;

typedef struct ss_cpu {
    uint64_t records, omitted_util, cpus, timestamps;
    bool has;
    double max_pct;
    uint32_t max_cpu;
    int64_t max_time;
    double mean_pct;                 /* over all records (omitted = 0 %) */
    uint32_t busiest_cpu;
    double busiest_mean_pct;
    double peak_all_cpu_mean_pct;    /* largest per-timestamp mean across CPUs */
    int64_t peak_all_cpu_time;
    int64_t first_time, last_time;
    bool has_window_sample;          /* first sample at/after the ntrace window's end */
    int64_t window_sample_time;
    double window_mean_pct, window_max_pct;
} ss_cpu;

typedef struct ss_mem {
    uint64_t records;
    bool has;
    uint64_t min_bytes, max_bytes, first_bytes, last_bytes;
    int64_t max_time, first_time, last_time;
    double mean_bytes;
    uint64_t total_bytes;            /* host RAM from trace_info.pb, 0 unknown */
} ss_mem;

typedef struct system_summary {
    bool has_window;
    int64_t window_start, window_end; /* over every ntrace record */
    /* device */
    uint64_t exec_spans, exec_unpaired;
    size_t ncores;
    ss_core cores[SS_CORES_MAX];
    uint64_t cores_dropped;
    bool has_device;
    int64_t device_busy_ns;           /* union over all cores */
    int64_t exec_window_start, exec_window_end;
    ss_gaps gaps;
    /* spans */
    size_t ntypes;
    ss_type *types;                   /* sorted by total_ns, then pairs */
    uint64_t executions;
    size_t nexec;
    ss_execution execs[SS_EXECUTIONS_LISTED];
    uint64_t launches;                /* executions with has_launch */
    int64_t launch_max_ns, launch_total_ns;
    uint64_t loads;
    size_t nloads;
    ss_load load_list[SS_LOADS_LISTED];
    size_t nmodels;
    ss_model models[SS_MODELS_MAX];
    ss_copy copies[SS_COPY_COUNT];
    ss_alloc alloc;
    ss_sync sync;
    ss_cpu cpu;
    ss_mem mem;
} system_summary;

/* Compute the summary of `m`. On failure `out` holds nothing to free. */
__attribute__((warn_unused_result))
int system_summary_compute(const system_model *m, const atomic_int *cancel, system_summary *out, nl_error *err);
void system_summary_free(system_summary *s);
/* Heap bytes of a computed summary: the struct and its type list (for a cache's byte bound). */
size_t system_summary_bytes(const system_summary *s);

/* Name of a copy slot's event type ("nrt_tensor_write", ...). */
const char *system_summary_copy_name(unsigned slot);

#endif
