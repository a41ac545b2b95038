/* gen_kineto — writes one rank's synthetic PyTorch profiler trace (trace.json, formats.md §10) from its
 * gen_rank_plan, hand-formatted through gen_out (it may be sized to gigabytes).
 *
 * Owns: nothing between calls. Threads: any; one call per file at a time.
 * Errors: -1 with the first failure in `err` (the file cannot be written, out of memory); nothing printed. */
#ifndef NL_GEN_KINETO_H
#define NL_GEN_KINETO_H

#include <stdint.h>

#include "gen_capture.h"
#include "gen_err.h"

/* Event categories written (the `cat` key); M and profiler instants have none. */
typedef enum gen_kcat {
    GEN_KC_CPU_OP,
    GEN_KC_USER_ANNOTATION,
    GEN_KC_PYTHON_FUNCTION,
    GEN_KC_RUNTIME,  /* privateuse1_runtime: host calls into the Neuron runtime */
    GEN_KC_DRIVER,   /* privateuse1_driver: the executions on each NeuronCore's device timeline */
    GEN_KC_AC2G,     /* flows from the launch to the device event */
    GEN_KC_TRACE,    /* the profiler's own span */
    GEN_KC_COUNT
} gen_kcat;

typedef enum gen_kph { GEN_KP_X, GEN_KP_I, GEN_KP_S, GEN_KP_F, GEN_KP_M, GEN_KP_COUNT } gen_kph;

const char *gen_kcat_name(gen_kcat c);
const char *gen_kph_name(gen_kph p);

#define GEN_KINETO_LAUNCH_OP "neuron::execute_graph"
#define GEN_KINETO_DEVICE_EVENT "nc_exec_running"

typedef struct gen_kin_stats {
    uint64_t bytes, events, no_cat;
    uint64_t cat[GEN_KC_COUNT], ph[GEN_KP_COUNT];
    int64_t base_ns;                 /* baseTimeNanoseconds */
    uint64_t device_events;
    int64_t launch_op_device_ns;     /* device time credited to GEN_KINETO_LAUNCH_OP through the join */
    uint64_t launch_ops;
    uint64_t compiled_regions;
    int64_t compiled_region_ns;
    int64_t latency_min_ns, latency_max_ns; /* device start − its ac2g flow start (the schedule call) */
} gen_kin_stats;

/* Write trace.json to path (NULL: only count bytes into st->bytes). */
int gen_kineto_write(const gen_rank_plan *pl, const char *path, gen_kin_stats *st, gen_err *err)
    __attribute__((warn_unused_result));

#endif
