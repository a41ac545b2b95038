/* gaps_host — collective-gaps inputs (gaps.h: one start time per collective, per lane) taken from the
 * host-side timelines, or from a neuron-explorer profile's CcOp table, instead of a show-session dump.
 *
 *   system profile  the `cc_running` spans of ntrace.pb (a collective running on a core; a hardware event,
 *                   formats.md §9.5), by physical core (device_core_idx), else by nc_idx. The type is found
 *                   by name in trace_info.pb's table, never by id. Orphan ends (no begin) are left out.
 *   framework trace communication kernels on device processes — X events whose name contains "nccl" or
 *                   "rccl" (ncclKernel_*, ncclDevKernel_*) or reads "<backend>:<collective>" — by stream
 *                   (thread); when there are none, the host-side collective annotations torch records around
 *                   each c10d call, "<backend>:<collective>" such as nccl:all_reduce or gloo:all_reduce, by
 *                   host thread. <backend> is one word without "::" (so aten:: ops never match); <collective>
 *                   starts with all_reduce, allreduce, all_gather, allgather, reduce_scatter, reduce,
 *                   broadcast, all_to_all, alltoall, barrier, send, recv, gather or scatter (a leading '_'
 *                   allowed). record_param_comms wrappers are not counted (they would double every call).
 *                   Device annotations (gpu_user_annotation) are never used.
 *   CcOp table      one row per collective operation of a neuron-explorer device profile (formats.md §7.3),
 *                   by stream_id; the time is trigger_start_ts when the row has one (> 0), else start_ts
 *                   (formats.md §11.1). Times are the device model's: ns from the profile start.
 * Times are unix ns on the host clock (framework: baseTimeNanoseconds + ts), the start of each event.
 * Lane ids (gaps_core_input.id): the core or nc number (system); the numeric tid when every lane's tid is a
 * distinct integer up to GAPS_HOST_TID_MAX (the range collective-gaps' cc_core argument accepts), else the
 * lane's thread index in the trace (lane_basis says which).
 *
 * Owns: the arrays in gaps_host_inputs (gaps_host_inputs_free). Borrows the model for the call; strtab ids
 * stay valid while it lives. Threads: pure over a finished model; any thread.
 * Errors: -1 with nl_error (NL_ERR_NOMEM, NL_ERR_LIMIT beyond GAPS_TRIGGERS_MAX events). Finding no
 * collective is not an error: count 0, with what was looked for in `related` / `names`. */
#ifndef NL_GAPS_HOST_H
#define NL_GAPS_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "framework_model.h"
#include "gaps.h"
#include "nl_error.h"
#include "system_model.h"

#define GAPS_HOST_CC_TYPE "cc_running"
#define GAPS_HOST_NAMES_MAX 8u  /* distinct collective names itemised (most frequent first) */
#define GAPS_HOST_RELATED_MAX 8u
#define GAPS_HOST_TID_MAX 65535u /* larger tids (Linux pids reach 4 million) → lanes are numbered by thread index */

typedef enum gaps_host_source {
    GAPS_HOST_NONE,              /* no collective found */
    GAPS_HOST_SYSTEM_CC,         /* cc_running spans of a system profile */
    GAPS_HOST_FRAMEWORK_DEVICE,  /* communication kernels on device streams */
    GAPS_HOST_FRAMEWORK_HOST,    /* <backend>:<collective> annotations on host threads */
    GAPS_HOST_DEVICE_CC_OPS,     /* CcOp rows of a device profile */
} gaps_host_source;

typedef struct gaps_host_lane {
    uint32_t id;                 /* = cores[i].id */
    size_t count;
    int64_t nc;                  /* system: nc_idx of the lane's first event (-1 unknown) */
    uint32_t pid, tid, name;     /* framework: strtab ids of pid, tid and thread name (0 none) */
    uint32_t thread;             /* framework: thread index */
} gaps_host_lane;

typedef struct gaps_host_count {
    uint32_t name;               /* strtab id (of the system model or the framework model) */
    uint64_t count;
} gaps_host_count;

typedef struct gaps_host_related {
    const char *name;            /* borrowed from the system model's trace_info */
    uint64_t spans;
} gaps_host_related;

typedef struct gaps_host_inputs {
    gaps_core_input *cores;      /* for gaps_compute; cores[i].ts points into storage */
    gaps_host_lane *lanes;       /* parallel to cores */
    size_t count;
    int64_t *storage;
    gaps_host_source source;
    const char *lane_basis;      /* "device_core_idx", "nc_idx", "none", "tid", "thread_index" */
    uint64_t events;             /* collective events used */
    uint64_t skipped;            /* system: cc_running orphan ends (no begin time) */
    uint64_t host_annotations;   /* framework: host annotations not used because device kernels exist */
    uint64_t triggered;          /* CcOp: rows timed by trigger_start_ts (the others by start_ts) */
    gaps_host_count names[GAPS_HOST_NAMES_MAX]; /* the collectives used, by name */
    size_t nnames;
    uint64_t other_names;        /* events of names beyond the itemised ones */
    gaps_host_related related[GAPS_HOST_RELATED_MAX]; /* system: the collective-related event types of
                                                         trace_info.pb's type table (cc_*, *_cc_*, *collective*,
                                                         *barrier*), with their spans (0 when none) */
    size_t nrelated;
} gaps_host_inputs;

int gaps_host_from_system(const system_model *m, gaps_host_inputs *out, nl_error *err)
    __attribute__((warn_unused_result));
int gaps_host_from_framework(const framework_model *m, gaps_host_inputs *out, nl_error *err)
    __attribute__((warn_unused_result));
/* names[] and lanes[] name strtab ids of the device model; triggered counts the rows timed by trigger_start_ts. */
int gaps_host_from_cc_ops(const device_model *m, gaps_host_inputs *out, nl_error *err) __attribute__((warn_unused_result));
void gaps_host_inputs_free(gaps_host_inputs *in);

/* Whether name[0..len) is a "<backend>:<collective>" annotation as defined above. */
bool gaps_host_is_collective_annotation(const char *name, size_t len);

/* The execution window of a system lane: first start → last end of nc_exec_running on that core (or nc,
 * by lane_basis). 1 and *ns when there is one, else 0. */
int gaps_host_exec_window(const system_model *m, const gaps_host_inputs *in, uint32_t lane, int64_t *ns);

const char *gaps_host_source_name(gaps_host_source s);

#endif
