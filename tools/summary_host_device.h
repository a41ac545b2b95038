/* summary_host_device — the `host_device` section of a framework summary: when the trace sits in a capture
 * directory whose system profile is readable, each device execution (nc_exec_running) is attributed to the
 * framework op, ProfilerStep and Torch-Compiled Region that launched it, with the clock alignment used and
 * its uncertainty (analyzers/analyses/host_device_join.h). Otherwise the section says why there is no join.
 * Lists are capped while shaping; data-quality findings go to out.data_quality.
 * Runs on the calling worker thread (reads the system profile with the call's cancel flag). */
#ifndef NL_SUMMARY_HOST_DEVICE_H
#define NL_SUMMARY_HOST_DEVICE_H

#include <jansson.h>

#include "catalog.h"
#include "framework_model.h"
#include "tools.h"

#define NL_HOST_DEVICE_OPS_SHOWN 10u
#define NL_HOST_DEVICE_STEPS_SHOWN 10u
#define NL_HOST_DEVICE_REGIONS_SHOWN 5u
#define NL_HOST_DEVICE_EXECS_SHOWN 16u

/* Add out.host_device for `trace` (its model `m`, from catalog `cat`). */
void nl_summary_host_device(nl_call *call, const nl_catalog *cat, const nl_catalog_file *trace,
                            const framework_model *m, json_t *out);

#endif
