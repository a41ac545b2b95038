/* gen_capture — the host timeline of one rank: when the process loads its model, when each step's host ops,
 * copies and launches run, and when each NeuronCore executes (host unix ns). The system-profile writer
 * (gen_system.c) and the Kineto writer (gen_kineto.c) both draw every timestamp from it, which is what
 * makes a host↔device join between their files exact (bench/README.md "Capture and Kineto").
 *
 * Owns: a gen_rank_plan owns its arrays from a successful gen_rank_plan_build until gen_rank_plan_free.
 * Threads: no global mutable state; plans of different ranks are independent.
 * Errors: gen_rank_plan_build returns -1 only when out of memory (nothing to free then). */
#ifndef NL_GEN_CAPTURE_H
#define NL_GEN_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "gen_model.h"

#define GEN_CAP_CPUS 12                           /* host CPUs sampled in cpu_util.pb */
#define GEN_CAP_EPOCH_NS 1767225600000000000ll    /* 2026-01-01T00:00:00Z: the synthetic clock's origin */
#define GEN_CAP_WARMUP_EXTRA_NS 1000000           /* warm-up execution: +1 ms (GpSimd library load, §12) */
#define GEN_CAP_DRIFT_NS 11                       /* device clock drift vs host per execution */
#define GEN_CAP_LAUNCH_NS 30000                   /* launch op end → device start (core 0) */
#define GEN_CAP_CORE_SKEW_NS 37                   /* device start skew per core */
#define GEN_CAP_DEFAULT_OPS 48u                   /* host ops before each compiled region */
#define GEN_CAP_MAX_OPS 50000000u
#define GEN_CAP_EXPORT_EXECUTION 2                /* the execution the device exports show (as profile_exec_2) */
#define GEN_CAP_EXECUTE_AFTER_SCHED_NS 900         /* nrt_execute begins this long into nrta_execute_schedule */

/* What the timeline needs of each core's device export. */
typedef struct gen_core_info {
    int64_t total_ns;      /* last_hw_timestamp − first_hw_timestamp: one steady execution */
    uint64_t weight_bytes; /* neff_node weights, loaded by nrt_load */
} gen_core_info;

/* One execution on one core (host ns). */
typedef struct gen_exec_core {
    int64_t write;      /* input copy: cpu_op aten::copy_ [write, write+12000) */
    int64_t sched;      /* launch: nrta_execute_schedule [sched, sched+2200); nrt_execute begins at
                           sched + GEN_CAP_EXECUTE_AFTER_SCHED_NS */
    int64_t dev_start, dev_end; /* nc_exec_running */
    int64_t read;       /* output copy: cpu_op aten::copy_ [read, read+14000) */
} gen_exec_core;

/* One step (= one execution on every core) on the main thread (host ns). */
typedef struct gen_step {
    int64_t start, end;             /* ProfilerStep#<e-1> */
    int64_t prelude, prelude_end;   /* first op start, last op end */
    int64_t region, region_end;     /* Torch-Compiled Region */
    int64_t launch, launch_end;     /* cpu_op neuron::execute_graph */
    int64_t sync, sync_end;         /* cpu_op neuron::synchronize (waits for every core) */
    int64_t post;                   /* aten::argmax, then aten::item */
    int64_t dev_first, dev_last;    /* earliest device start, latest device end */
} gen_step;

typedef struct gen_rank_plan {
    const gen_params *params;       /* borrowed */
    const gen_core_info *core;      /* borrowed, params->cores entries */
    int rank, cores, executions;
    uint32_t ops;                   /* host ops per step (prelude) */
    uint64_t pid;
    char instance[32];              /* "i-0synthetic<R>" */
    char dir[64];                   /* "<instance>_pid_<pid>" */
    uint64_t model_id;
    int64_t t0, end;                /* capture start / end (trace_info f11 / f12) */
    int64_t *load_start, *load_dur; /* per core: nrt_load on its worker */
    gen_step *step;                 /* executions */
    gen_exec_core *ex;              /* [e * cores + k], e = 0-based execution */
} gen_rank_plan;

/* The instance id of rank r of `ranks`, "i-0synthetic<r>", r zero-padded to the digits of ranks − 1 so that
 * directory path order is rank order (neuronlens numbers ranks in path order); its capture directory
 * "<instance>_pid_<pid>" (dst >= 64 bytes); its pid. */
void gen_rank_instance(int rank, int ranks, char *dst, size_t cap);
void gen_rank_dir_name(int rank, int ranks, char *dst, size_t cap);
uint64_t gen_rank_pid(int rank);

int gen_rank_plan_build(const gen_params *p, const gen_core_info *core, int rank, uint32_t ops, gen_rank_plan *out)
    __attribute__((warn_unused_result));
void gen_rank_plan_free(gen_rank_plan *pl);

static inline const gen_exec_core *gen_plan_ex(const gen_rank_plan *pl, int e, int k)
{
    return &pl->ex[(size_t)e * (size_t)pl->cores + (size_t)k];
}

/* Union of execution e's nc_exec_running intervals over all cores (ns). */
int64_t gen_plan_exec_busy(const gen_rank_plan *pl, int e);

/* Device clock of core k during execution e (0-based): nc = host − offset, offset drifting by
 * GEN_CAP_DRIFT_NS per execution, so only the execution's own sync point converts exactly. */
int64_t gen_plan_nc_offset(const gen_rank_plan *pl, int k, int e);

/* Duration (ns) of prelude op i of step e: a pure function of (seed, rank, e, i). */
int64_t gen_plan_op_dur(const gen_rank_plan *pl, int e, uint32_t i);
/* 0..2^32-1 hash of the same key, for the op's name and shapes. */
uint32_t gen_plan_op_pick(const gen_rank_plan *pl, int e, uint32_t i);
#define GEN_CAP_OP_GAP_NS 300   /* between prelude ops */

/* Thread ids (Linux tids of the synthetic process): main thread = pid; per worker k a load, an execute and
 * a notification thread. */
static inline uint64_t gen_plan_tid_main(const gen_rank_plan *pl)
{
    return pl->pid;
}
static inline uint64_t gen_plan_tid(const gen_rank_plan *pl, int k, int which)
{
    return pl->pid + 11 + 4 * (uint64_t)k + (uint64_t)which; /* which: 0 load, 1 exec, 2 notify */
}
/* Kineto correlation id of execution e (0-based) on core k (also the ac2g flow id). */
static inline uint64_t gen_plan_corr(int e, int k)
{
    return 1000000u + 100u * (uint64_t)(e + 1) + (uint64_t)k;
}

/* Union of the nc_exec_running intervals of all cores (formats.md §11.9): its length in *busy and its
 * holes, in time order, in gaps[0..min(count, cap)); *ngaps = count. By construction the cores of one
 * execution overlap, so the holes are exactly the gaps between consecutive executions. 0, or -1 when out
 * of memory. */
int gen_plan_device_union(const gen_rank_plan *pl, int64_t *busy, int64_t *gaps, size_t cap, size_t *ngaps)
    __attribute__((warn_unused_result));

#endif
