/* gen_system — writes one rank's synthetic system profile (formats.md §9) from its gen_rank_plan:
 * ntrace.pb, cpu_util.pb, host_mem.pb and trace_info.pb in the rank's capture directory.
 *
 * Owns: nothing between calls. Threads: any; one call per rank directory at a time.
 * Errors: -1 with the first failure in `err` (a file that cannot be written, out of memory); files written
 * before the failure stay. Nothing is printed. */
#ifndef NL_GEN_SYSTEM_H
#define NL_GEN_SYSTEM_H

#include <stdint.h>

#include "gen_capture.h"
#include "gen_err.h"

/* The ntrace event types the generator writes, with their runtime 2.30.51 ids (trace_info.pb's
 * ntrace_inspect_type table, which the file carries in full). */
typedef enum gen_ev {
    GEN_EV_NRT_LOAD,
    GEN_EV_NRT_EXECUTE,
    GEN_EV_NRT_MODEL_SUBMIT,
    GEN_EV_KBL_EXEC_PRE,
    GEN_EV_KMGR_EXEC_CORE,
    GEN_EV_KBL_EXEC_WAIT,
    GEN_EV_TIMESTAMP_SYNC_POINT,
    GEN_EV_NC_EXEC_RUNNING,
    GEN_EV_KBL_EXEC_POST,
    GEN_EV_NRT_TENSOR_WRITE,
    GEN_EV_NRT_TENSOR_READ,
    GEN_EV_DMEM_BUF_COPYIN,
    GEN_EV_DMEM_BUF_COPYOUT,
    GEN_EV_COUNT
} gen_ev;

const char *gen_ev_name(gen_ev t);

typedef struct gen_ev_count {
    uint64_t begins, ends, instants;
} gen_ev_count;

/* What the written files hold, for expected.json. */
typedef struct gen_sys_stats {
    uint64_t ntrace_records, cpu_records, cpu_samples, cpu_util_omitted, mem_records;
    uint64_t bytes_trace_info, bytes_ntrace, bytes_cpu_util, bytes_host_mem;
    gen_ev_count ev[GEN_EV_COUNT];
    uint64_t h2d_bytes, d2h_bytes, weight_bytes; /* dmem_buf_copyin (inputs), copyout, copyin in nrt_load */
    double cpu_max_pct;       /* the largest float written, as a double */
    int cpu_max_id;
    int64_t cpu_max_at_ns;
    uint64_t mem_min, mem_max, mem_total;
    int64_t first_sample_ns, last_sample_ns;
} gen_sys_stats;

/* Write the four files into dir (which exists). */
int gen_system_write(const gen_rank_plan *pl, const char *dir, gen_sys_stats *st, gen_err *err)
    __attribute__((warn_unused_result));

#endif
