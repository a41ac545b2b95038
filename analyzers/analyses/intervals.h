/* intervals — union ("merged busy time") of half-open [start, end) intervals.
 *
 * The one place neuronlens merges intervals: engine busy time from instructions, DMA busy time from
 * packets, and the union of export active_time rows all go through here, so they agree by construction.
 * Caller owns the array; interval_union sorts it in place (O(n log n)), or skips the sort when already
 * ordered, which is the common case for instruction streams. Pure; thread-safe. */
#ifndef NL_INTERVALS_H
#define NL_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

typedef struct interval {
    int64_t start, end;
} interval;

/* Total length covered by the union of v[0..n). Intervals with end <= start cover nothing. */
int64_t interval_union(interval *v, size_t n);

/* A growable interval array (malloc; NULL data when empty). */
typedef struct interval_vec {
    interval *v;
    size_t n, cap;
} interval_vec;

int interval_vec_push(interval_vec *iv, int64_t start, int64_t end); /* 0, or -1 on OOM */
void interval_vec_free(interval_vec *iv);

#endif
