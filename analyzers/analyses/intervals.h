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

/* The same union computed online, in O(1) memory, for intervals fed in order of start (instruction
 * streams: exports list them by timestamp). Why: collecting 1M instruction intervals to merge them held
 * 16 MB, the largest transient of a cold summary (issue 6: peak RSS ≤ 100 MB for a 1 GB export).
 * An interval that starts before the piece being merged cannot be placed without the earlier intervals:
 * the stream then marks itself `unordered` and its totals are not valid; the caller collects that
 * stream's intervals again and calls interval_union. Zero-initialise; no cleanup. */
typedef struct interval_stream {
    int64_t start, end; /* the piece being merged (when open) */
    int64_t closed_ns;  /* length of the pieces before it */
    uint64_t pieces;    /* disjoint pieces so far, the open one included */
    int open;
    int unordered;
} interval_stream;

void interval_stream_add(interval_stream *s, int64_t start, int64_t end);
/* Length of the union, and its disjoint pieces (as interval_union / a count of its merged runs). */
int64_t interval_stream_total(const interval_stream *s);

#endif
