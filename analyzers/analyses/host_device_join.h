/* host_device_join — which framework op launched each device execution of a capture directory, and how
 * much device time each op, ProfilerStep and Torch-Compiled Region got (issue 5 item 5; formats.md §9.3,
 * §9.5, §10.3, §10.4, §11.9, §12 "clock domains").
 *
 * Inputs: the framework trace (trace.json, framework_model) and the system profile (ntrace.pb, system_model)
 * of the same rank. Device executions are the paired `nc_exec_running` spans (one per physical core at
 * LNC=2), already on the host CPU clock in unix ns.
 *
 * Clock alignment: framework time → unix ns = baseTimeNanoseconds + ts (ts in µs, converted exactly), or ts
 * itself when the trace has no base (ts is then unix µs). Both traces stamp host events with the host's
 * wall clock, so no offset is applied. What cannot be read from the files (the instants at which the two
 * profilers sampled the wall clock, NTP slews during the run) is bounded instead by what the join needs:
 * `min_slack_ns` is how far the clocks could disagree before any time-contained attribution would change;
 * when framework device events are linked to executions, their start offsets are measured too.
 *
 * Attribution of one execution, first that applies:
 *   1. link    a framework device event (a span on a device process that is not an annotation, a wait or a
 *              host API: e.g. PrivateUse1 driver events) overlapping the execution after alignment — the one
 *              overlapping most — that leads to a host event through `correlation` (the first host event
 *              with the same id) or an ac2g flow (an f event on the device event's thread within it, whose
 *              id has an s event on a host thread): the anchor is that host event's time, on its thread;
 *   2. launch  the runtime call that submitted the execution in the system trace — the latest-starting
 *              nrt_execute / nrta_execute_schedule / runtime_execute / dlr_infer span on the same nc_idx
 *              that starts at or before the execution (enclosing it when one does): the anchor is its start;
 *   3. exec    no launch call: the anchor is the execution's own start.
 * The op is then the innermost host span containing the anchor (ts ≤ anchor < ts + dur) that is not a
 * ProfilerStep, a python_function frame or a launch/runtime API event, on the anchor's thread for links,
 * else preferring the framework thread whose tid equals the launch's OS thread id, else the innermost over
 * all host threads (several threads with a candidate and no tid match count as `ambiguous`). The enclosing
 * ProfilerStep#N and Torch-Compiled Region spans are found the same way.
 * Device time of a group (op name, step, region) = the union of its executions' intervals over all cores
 * (device_union_ns; never a sum, §11.9); device_core_sum_ns = their summed durations (one per core).
 * thread_matched (per execution, and its total) says the op's framework thread has the OS thread id of the
 * execution's launch call; false without a launch call or an op, whatever basis placed the execution.
 *
 * Owns: the arrays in host_device_join (host_device_join_free). Borrows both models for the call; strtab
 * ids in the result are the framework model's (ops, steps, regions) or the system model's (launch types).
 * Threads: pure over finished models; any thread. Polls `cancel` between phases.
 * Errors: -1 with nl_error (NL_ERR_NOMEM, NL_ERR_CANCELLED). */
#ifndef NL_HOST_DEVICE_JOIN_H
#define NL_HOST_DEVICE_JOIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framework_model.h"
#include "nl_error.h"
#include "system_model.h"

#define HDJ_NO_ROW SIZE_MAX
#define HDJ_EXEC_TYPE "nc_exec_running"

typedef enum hdj_basis {
    HDJ_UNATTRIBUTED,
    HDJ_LINK_CORRELATION, /* 1 via correlation */
    HDJ_LINK_FLOW,        /* 1 via an ac2g flow */
    HDJ_LAUNCH_IN_OP,     /* 2 */
    HDJ_EXEC_IN_OP,       /* 3 */
} hdj_basis;

typedef struct hdj_exec {
    size_t span;                  /* SM_SPANS row */
    int64_t start, end;           /* unix ns */
    int64_t core, nc, exec_id;    /* -1 when absent */
    uint64_t model_id;            /* its own, else its launch call's; 0 when neither has one */
    uint32_t launch_type;         /* system strtab id of the launch call's type, 0 when none */
    int64_t launch_start;         /* unix ns (0 without a launch) */
    uint64_t launch_thread;
    hdj_basis basis;
    size_t op_row, step_row, region_row; /* framework event rows, HDJ_NO_ROW when none */
    size_t fw_device_row;         /* the linked framework device event, HDJ_NO_ROW when none */
    int64_t anchor_ns;            /* unix ns */
    int64_t slack_ns;             /* distance from the anchor to the nearer edge of the op; -1 without an op */
    bool thread_matched;          /* the op's thread is the launch's OS thread (false without launch or op) */
} hdj_exec;

typedef struct hdj_group {
    uint32_t name, cat;           /* framework strtab ids */
    size_t row;                   /* first framework row of the group */
    int64_t start;                /* unix ns of that row */
    uint64_t instances;           /* distinct framework spans */
    uint64_t exec_spans;          /* nc_exec_running spans credited */
    int64_t device_union_ns;      /* union of their intervals over all cores */
    int64_t device_core_sum_ns;   /* Σ of their durations (each core counted) */
    int64_t host_ns;              /* Σ length of the distinct framework spans */
} hdj_group;

typedef struct host_device_join {
    /* alignment */
    bool has_base;
    int64_t base_ns;
    int64_t resolution_ns;        /* 1 when some ts carries sub-µs digits, else 1000 */
    bool has_fw_window;
    int64_t fw_first_ns, fw_last_ns;     /* unix ns over the framework's host spans */
    bool has_exec_window;
    int64_t exec_first_ns, exec_last_ns;
    bool has_slack;
    int64_t min_slack_ns;
    uint64_t offset_samples;      /* executions linked to a framework device event */
    int64_t offset_min_ns, offset_median_ns, offset_max_ns; /* execution start − device event start */
    /* counts */
    uint64_t exec_spans, unpaired_exec_records, with_launch;
    uint64_t by_correlation, by_flow, by_launch, by_exec_time, unattributed;
    uint64_t outside_fw_window;
    uint64_t thread_matched;      /* executions with hdj_exec.thread_matched */
    uint64_t ambiguous;
    uint64_t fw_host_spans, fw_device_events, fw_linked_device_events;
    int64_t device_union_ns;      /* union of every execution over all cores */
    int64_t device_core_sum_ns;   /* Σ of every execution's duration */
    int64_t unattributed_ns;      /* union of the unattributed executions */
    /* lists */
    hdj_exec *execs;              /* every execution span, by start */
    size_t nexecs;
    hdj_group *ops;               /* by op (name, category), device_union_ns descending */
    size_t nops;
    hdj_group *steps;             /* one per ProfilerStep span with executions, by start */
    size_t nsteps;
    hdj_group *regions;           /* by region name, device_union_ns descending */
    size_t nregions;
} host_device_join;

int host_device_join_compute(const framework_model *fm, const system_model *sm, const atomic_int *cancel,
                             host_device_join *out, nl_error *err) __attribute__((warn_unused_result));
void host_device_join_free(host_device_join *j);
/* Heap bytes of the arrays a join holds, plus the struct itself (for a cache's byte bound). */
size_t host_device_join_bytes(const host_device_join *j);

const char *hdj_basis_name(hdj_basis b);

#endif
