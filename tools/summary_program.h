/* summary_program — what a NEFF says about its program without a run (issue 12.5): the compiler and target,
 * the kernels it was built from, instruction slots per engine, its HLO table and compiler metrics, read by
 * readers/neff_static. `summary` answers this alone on a program profile (a NEFF no NTFF pairs with) and adds
 * it as `program` to a device profile's summary when the profile has its NEFF; orient shows it for program
 * profiles. Any worker thread; no shared state. */
#ifndef NL_SUMMARY_PROGRAM_H
#define NL_SUMMARY_PROGRAM_H

#include <jansson.h>

#include "neff_static.h"
#include "select.h"
#include "tools.h"

/* The `program` object of a read NEFF (bounded: PROGRAM_* lists, then counted). New reference. */
json_t *program_facts_json(const neff_static *s);

/* One sentence naming the program's compiler, kernels and instruction slots, into buf (always terminated). */
void program_facts_text(const neff_static *s, const char *id, char *buf, size_t cap);

/* The summary of the program profile `sel` chose. Fills `res` like a tool handler and returns 0. */
int nl_summary_program(nl_call *call, nl_select *sel, nl_tool_result *res);

/* Adds `program` to a device profile's summary `out` when the profile has a NEFF (memoized with the model, so
 * a warm summary does not read the NEFF again); a NEFF that cannot be read becomes a data-quality entry of
 * `dq` instead. */
void summary_program_attach(nl_call *call, nl_select *sel, json_t *out, json_t *dq);

#endif
