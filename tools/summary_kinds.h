/* summary_kinds — the `summary` tool's handlers for non-device profiles, chosen by summary.c from the
 * catalog: a capture directory's system profile (summary_system.c) and a framework trace
 * (summary_framework.c). Each fills `res` like a tool handler and returns 0. */
#ifndef NL_SUMMARY_KINDS_H
#define NL_SUMMARY_KINDS_H

#include "catalog.h"
#include "tools.h"

int nl_summary_system(const json_t *args, nl_call *call, const nl_catalog *cat, const nl_catalog_rank *rank,
                      nl_tool_result *res);
int nl_summary_framework(const json_t *args, nl_call *call, const nl_catalog *cat, const nl_catalog_file *trace,
                         nl_tool_result *res);

#endif
