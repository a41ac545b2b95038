/* gen_trace — the synthetic `neuron-profile show-session --show-trace` text dump (formats.md §6), one
 * file for all cores, written section by section while cores are built one at a time.
 *
 * Owns: nothing; writes through a caller-owned gen_out. Threads: the caller's.
 * Errors: an allocation failure marks the gen_out failed (reported by gen_out_close).
 * CC-core numbering: core nc's collectives appear under `Collectives trace for CC-core 2*nc`; one extra
 * CC-core (2*cores+1, the highest index) carries only two TPB_TRIGGER STARTs, so the "most TPB_TRIGGER
 * START events, ties → highest index" rule of §11.1 must pick 2*(cores-1), not the decoy. */
#ifndef NL_GEN_TRACE_H
#define NL_GEN_TRACE_H

#include "gen_model.h"
#include "gen_out.h"

#define GEN_TRACE_DECOY_STARTS 2

static inline int gen_trace_cc_core(int nc)
{
    return 2 * nc;
}

static inline int gen_trace_decoy_core(int cores)
{
    return 2 * cores + 1;
}

void gen_trace_header(gen_out *o, const gen_params *p);
/* Header, instruction trace and collectives trace of one core. */
void gen_trace_core(gen_out *o, const gen_core *c);
/* The decoy CC-core, echoing the first and last collective of core 0 (cc_ts, n_cc). */
void gen_trace_decoy(gen_out *o, const gen_params *p, const int64_t *cc_ts, unsigned n_cc);

#endif
