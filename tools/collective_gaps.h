/* collective_gaps — what the collective-gaps tool exposes to the other tools (orient).
 *
 * A show-session dump belongs to a profile when it sits in the profile's directory (else its rank) and
 * either its file name starts with the stem of the profile's NTFF / export (the longest such stem wins) or
 * that profile is the only one there. Pure functions over an immutable catalog: any thread. */
#ifndef NL_COLLECTIVE_GAPS_H
#define NL_COLLECTIVE_GAPS_H

#include "catalog.h"

/* "ready" when a show-session text dump is available for `p`, else "needs_show_session_trace". */
const char *nl_collective_gaps_status(const nl_catalog *cat, const nl_catalog_profile *p);

#endif
