/* summary_host_device — the `host_device` section of a framework summary: when the trace sits in a capture
 * directory whose system profile is readable, each device execution (nc_exec_running) is attributed to the
 * framework op, ProfilerStep and Torch-Compiled Region that launched it, with the clock alignment used and
 * its uncertainty (analyzers/analyses/host_device_join.h). Otherwise the section says why there is no join.
 * Lists are capped while shaping; data-quality findings go to out.data_quality.
 * Runs on the calling worker thread; the system model and the join come from the shared model cache (memo.h),
 * read or computed with the call's cancel flag on a cold call.
 *
 * Device time is named for how it is counted: device_union_ns = the union of the executions' intervals over
 * all cores (what the device was busy), device_core_sum_ns = the sum of their durations (each core counted;
 * what top_ops_by_device_time's device_ns sums for the trace's own device events). */
#ifndef NL_SUMMARY_HOST_DEVICE_H
#define NL_SUMMARY_HOST_DEVICE_H

#include <jansson.h>

#include "catalog.h"
#include "framework_model.h"
#include "model_cache.h"
#include "tools.h"

#define NL_HOST_DEVICE_OPS_SHOWN 10u
#define NL_HOST_DEVICE_STEPS_SHOWN 10u
#define NL_HOST_DEVICE_REGIONS_SHOWN 5u
#define NL_HOST_DEVICE_EXECS_SHOWN 16u

/* Add out.host_device for `trace` (from catalog `cat`); fw is the reference holding its framework model
 * (nl_host_load_framework), borrowed for the call. */
void nl_summary_host_device(nl_call *call, const nl_catalog *cat, const nl_catalog_file *trace, nl_model_ref *fw,
                            json_t *out);

#endif
