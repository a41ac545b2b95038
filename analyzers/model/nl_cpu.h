/* nl_cpu — how many CPUs this process may run on: the one place that asks.
 *
 * Affinity-aware (sched_getaffinity, so a container or `taskset` limit is respected), falling back to the
 * online CPU count. Every "0 = one thread per CPU" option in the core resolves through nl_cpu_count, so
 * readers, the catalog, the model cache and the server agree. Reentrant; no state. */
#ifndef NL_CPU_H
#define NL_CPU_H

/* CPUs this process may use, at least 1. */
unsigned nl_cpu_count(void);

/* `requested` when nonzero, else nl_cpu_count(); then clamped to [1, max]. */
unsigned nl_cpu_threads(unsigned requested, unsigned max);

#endif
