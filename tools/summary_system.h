/* summary_system — the system-profile side of the tools: the `summary` handler itself is declared in
 * summary_kinds.h; this header adds what orient shows for a capture directory's system profile.
 * Builders return new jansson references; any worker thread may call them (nothing is shared). */
#ifndef NL_SUMMARY_SYSTEM_H
#define NL_SUMMARY_SYSTEM_H

#include <jansson.h>

#include "catalog.h"
#include "tools.h"

/* ntrace.pb files up to this size are read by orient itself to count events and executions. */
#define NL_SYSTEM_ORIENT_LOAD_MAX ((uint64_t)16 << 20)

/* Fill orient's entry `o` for `rank`'s system profile: "counts" (declared events from trace_info.pb always;
 * events read, executions, cores and models when ntrace.pb is small — read into the model cache, so summary
 * is warm afterwards), "versions" and "data_quality" problems found while reading. */
void nl_system_orient_facts(nl_call *call, const nl_catalog *cat, const nl_catalog_rank *rank, json_t *o);

#endif
