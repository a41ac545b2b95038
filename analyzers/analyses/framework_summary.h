/* framework_summary — the headline numbers of one framework trace (framework_model): event counts, steps,
 * top ops by CPU self time and by device time, merged device busy time, host↔device copies and
 * launch-to-execution latency. Every number is computed from the events themselves; the trace carries no
 * per-op device-time column (that is what key_averages() derives, the seed's self_privateuse1_time_total).
 *
 * Owns: the framework_summary it fills (arrays malloc'd; framework_summary_free releases them). Borrows the
 * model for the call; strtab ids in the result stay valid while the model lives.
 * Threads: pure over a finished, read-only model; any thread. Polls `cancel` between phases.
 * Errors: 0 / -1 with nl_error (NL_ERR_NOMEM, NL_ERR_CANCELLED).
 *
 * Definitions (the independent reference tests/samples/ref_kineto.py implements the same ones):
 *   span        an X event with a valid ts (end = ts + max(dur, 0)), or a B/E pair matched per thread
 *               (B and E sorted by (ts, file order); E closes the latest open B)
 *   host span   a span on a host process (framework_model_finish), except the profiler's own Trace span
 *   device span a span on a device process whose category is not an annotation (gpu_user_annotation), a
 *               wait (cuda_sync) or a host API (…_runtime / …_driver, except privateuse1_driver)
 *   nesting     per thread, spans sorted by (ts, end descending, file order); a stack pops entries whose
 *               end ≤ the next start; the entry left on top is the parent
 *   self time   span length minus, for each direct child, min(child end, parent end) − child start
 *   flow bind   an s/f event binds to the innermost span of its thread open at its ts (the topmost stack
 *               entry with end ≥ ts, probes sorted after spans of equal ts); an f that binds to none takes
 *               the first span of its thread starting at or after its ts
 *   launch      a device span's launching host span: the first host span (file order) with the same
 *               correlation; else via a flow: of the f events bound to the device span, the first (file
 *               order) whose id has an s on a host process bound to a host span (the first such s in file
 *               order); else, as the op itself, the first non-launch host span with the same External id
 *   op          the launch span or its nearest ancestor whose category is not a launch category
 *               (…_runtime, …_driver, cuda_sync); device time per op = Σ device-span lengths
 *   busy        the union of device-span intervals (intervals.h), overall, per device and per stream
 *   latency     per flow pair: an f on a device process minus the first s (file order) with its id on a
 *               host process; without such pairs, device span start minus its correlated launch's start
 *   percentiles nearest rank: the value at index ceil(q·n) − 1 of the sorted values */
#ifndef NL_FRAMEWORK_SUMMARY_H
#define NL_FRAMEWORK_SUMMARY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "framework_model.h"
#include "nl_error.h"

/* Caps on the lists kept in the result (the totals are always counted). */
#define FS_STEPS_MAX 4096u
#define FS_DEVICES_MAX 256u
#define FS_STREAMS_MAX 1024u

typedef struct fs_count {
    uint32_t id;    /* strtab id of the category or phase */
    uint64_t count;
} fs_count;

/* One group of spans with the same (name, category). */
typedef struct fs_op {
    uint32_t name, cat; /* strtab ids */
    uint64_t count;
    int64_t total_ns;   /* Σ span length (inclusive) — host ops; Σ device time — device ops and kernels */
    int64_t self_ns;    /* host ops: Σ self time; device lists: 0 */
} fs_op;

typedef struct fs_busy {
    uint32_t pid, tid;  /* strtab ids (tid 0 for a whole device) */
    uint32_t name;      /* process or thread name, 0 if none */
    uint64_t spans;
    int64_t sum_ns;     /* Σ span length */
    int64_t busy_ns;    /* union */
    int64_t first_ns, last_ns; /* earliest start, latest end */
    uint64_t gaps;      /* gaps between merged intervals */
    int64_t gap_total_ns, gap_max_ns, gap_max_at_ns;
} fs_busy;

typedef struct fs_step {
    uint32_t name;      /* "ProfilerStep#N" */
    int64_t number;     /* N, -1 when not a number */
    int64_t ts_ns, dur_ns;
    int64_t device_busy_ns; /* union of device spans clipped to the step */
} fs_step;

enum { FS_COPY_H2D, FS_COPY_D2H, FS_COPY_D2D, FS_COPY_H2H, FS_COPY_P2P, FS_COPY_OTHER, FS_COPY_KINDS };

typedef struct fs_copy {
    uint64_t count, with_bytes;
    int64_t dur_ns;
    uint64_t bytes;
} fs_copy;

typedef enum fs_latency_basis { FS_LAT_NONE, FS_LAT_FLOWS, FS_LAT_CORRELATION } fs_latency_basis;

typedef struct fs_latency {
    fs_latency_basis basis;
    uint64_t pairs, negative;
    int64_t min_ns, median_ns, p90_ns, max_ns;
} fs_latency;

typedef struct framework_summary {
    uint64_t events;
    fs_count *phases, *cats; /* all, sorted by count descending then by string */
    size_t nphases, ncats;
    /* time window over every non-M event with a ts (raw file time, ns) */
    int has_window;
    int64_t first_ns, last_ns;
    uint64_t meta_events, meta_ts_zero;
    /* host */
    uint64_t host_spans, host_threads, profiler_spans;
    fs_op *host_ops;         /* every (name, cat) group, by self time descending, then name, then cat */
    size_t nhost_ops;
    /* device */
    uint64_t device_processes; /* processes classified device (with or without spans) */
    uint64_t device_spans, device_other_spans; /* device spans / X events on devices that are not */
    int64_t device_sum_ns, device_busy_ns, device_first_ns, device_last_ns;
    fs_busy *devices, *streams; /* by busy descending */
    size_t ndevices, nstreams, streams_total;
    fs_op *kernels;          /* device spans grouped by (name, cat), by time descending */
    size_t nkernels;
    fs_op *device_ops;       /* host ops credited with device time, by device time descending */
    size_t ndevice_ops;
    uint64_t linked_correlation, linked_flow, linked_external, unlinked;
    int64_t unlinked_ns;
    /* steps and compiled regions */
    fs_step *steps;          /* by start */
    size_t nsteps, steps_total;
    uint64_t compiled_regions;
    int64_t compiled_region_ns;
    /* copies */
    fs_copy copies[FS_COPY_KINDS]; /* device spans that move memory, by direction */
    fs_copy memsets;
    fs_op *host_copy_ops;    /* aten::copy_, aten::_to_copy, aten::to, aten::_copy_from[...], by name */
    size_t nhost_copy_ops;
    /* flows and latency */
    uint64_t flow_starts, flow_steps, flow_finishes, instants;
    fs_latency latency;
    /* B/E pairing */
    uint64_t be_pairs, be_open, be_unmatched_end;
    uint64_t untimed_spans; /* X/B/E without a valid ts */
} framework_summary;

int framework_summary_compute(const framework_model *m, const atomic_int *cancel, framework_summary *out,
                              nl_error *err) __attribute__((warn_unused_result));
void framework_summary_free(framework_summary *s);
/* Heap bytes of a computed summary: the struct and its arrays by their element counts (for a cache's byte
 * bound; arrays sized for more than they hold, such as the streams cut to FS_STREAMS_MAX, count as listed). */
size_t framework_summary_bytes(const framework_summary *s);

const char *fs_copy_kind_name(int kind);
const char *fs_latency_basis_name(fs_latency_basis b);

#endif
