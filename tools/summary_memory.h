/* summary_memory — the `summary` tool's handler for a PyTorch allocator snapshot profile (summary_memory.c
 * says what it reports). Fills `res` like a tool handler and returns 0; any worker thread. */
#ifndef NL_SUMMARY_MEMORY_H
#define NL_SUMMARY_MEMORY_H

#include "select.h"
#include "tools.h"

/* The summary of the snapshot `sel` chose (its model is read here through the model cache). */
int nl_summary_memory(nl_call *call, nl_select *sel, nl_tool_result *res);

#endif
