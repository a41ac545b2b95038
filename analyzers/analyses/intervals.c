/* intervals — see intervals.h. */
#include "intervals.h"

#include <stdlib.h>

/* ---- sorting by start, in place ------------------------------------------------------------------------
 * Why not qsort: glibc's qsort is a merge sort that mallocs a copy of the array (16 B per interval: 5 MB
 * for the DMA packets of a 1 GB export, on top of the array itself, at the peak of a cold summary). This is
 * an introsort: quicksort with a median-of-three pivot, insertion sort below 16 elements, recursion only
 * into the smaller side (O(log n) stack), and heapsort when the depth passes 2 log2 n (O(n log n) worst
 * case). The union does not depend on the order of equal starts, so stability is not needed. */

static void iv_swap(interval *a, interval *b)
{
    interval t = *a;
    *a = *b;
    *b = t;
}

static void iv_insertion_sort(interval *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        interval x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1].start > x.start; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static void iv_sift_down(interval *v, size_t root, size_t n)
{
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && v[child + 1].start > v[child].start)
            child++;
        if (v[root].start >= v[child].start)
            return;
        iv_swap(&v[root], &v[child]);
    }
}

static void iv_heap_sort(interval *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        iv_sift_down(v, i, n);
    for (size_t end = n; end-- > 1;) {
        iv_swap(&v[0], &v[end]);
        iv_sift_down(v, 0, end);
    }
}

/* Partition around the median of first, middle and last; returns the split: v[0, k) <= pivot <= v[k, n). */
static size_t iv_partition(interval *v, size_t n)
{
    size_t mid = n / 2;
    if (v[mid].start < v[0].start)
        iv_swap(&v[mid], &v[0]);
    if (v[n - 1].start < v[0].start)
        iv_swap(&v[n - 1], &v[0]);
    if (v[n - 1].start < v[mid].start)
        iv_swap(&v[n - 1], &v[mid]);
    int64_t pivot = v[mid].start;
    size_t i = 0, j = n - 1;
    for (;;) {
        while (v[i].start < pivot)
            i++;
        while (v[j].start > pivot)
            j--;
        if (i >= j)
            return j + 1;
        iv_swap(&v[i], &v[j]);
        i++;
        j--;
    }
}

static void iv_sort(interval *v, size_t n, unsigned depth)
{
    while (n > 16) {
        if (depth-- == 0) {
            iv_heap_sort(v, n);
            return;
        }
        size_t k = iv_partition(v, n);
        if (k < n - k) {
            iv_sort(v, k, depth);
            v += k;
            n -= k;
        } else {
            iv_sort(v + k, n - k, depth);
            n = k;
        }
    }
    iv_insertion_sort(v, n);
}

static void iv_sort_by_start(interval *v, size_t n)
{
    unsigned depth = 0;
    for (size_t m = n; m > 1; m >>= 1)
        depth += 2;
    iv_sort(v, n, depth);
}

int64_t interval_union(interval *v, size_t n)
{
    size_t i;
    for (i = 1; i < n && v[i - 1].start <= v[i].start; i++)
        ;
    if (i < n)
        iv_sort_by_start(v, n);
    int64_t total = 0, cur_start = 0, cur_end = 0;
    int open = 0;
    for (i = 0; i < n; i++) {
        if (v[i].end <= v[i].start)
            continue;
        if (open && v[i].start <= cur_end) {
            if (v[i].end > cur_end)
                cur_end = v[i].end;
            continue;
        }
        if (open)
            total += cur_end - cur_start;
        cur_start = v[i].start;
        cur_end = v[i].end;
        open = 1;
    }
    if (open)
        total += cur_end - cur_start;
    return total;
}

int interval_vec_push(interval_vec *iv, int64_t start, int64_t end)
{
    if (iv->n == iv->cap) {
        size_t cap = iv->cap ? iv->cap * 2 : 1024;
        interval *grown = realloc(iv->v, cap * sizeof *grown);
        if (!grown)
            return -1;
        iv->v = grown;
        iv->cap = cap;
    }
    iv->v[iv->n].start = start;
    iv->v[iv->n].end = end;
    iv->n++;
    return 0;
}

void interval_vec_free(interval_vec *iv)
{
    free(iv->v);
    iv->v = NULL;
    iv->n = iv->cap = 0;
}

void interval_stream_add(interval_stream *s, int64_t start, int64_t end)
{
    if (end <= start || s->unordered)
        return;
    if (s->open && start < s->start) {
        s->unordered = 1;
        return;
    }
    if (s->open && start <= s->end) { /* same merge rule as interval_union: touching intervals join */
        if (end > s->end)
            s->end = end;
        return;
    }
    if (s->open)
        s->closed_ns += s->end - s->start;
    s->start = start;
    s->end = end;
    s->open = 1;
    s->pieces++;
}

int64_t interval_stream_total(const interval_stream *s)
{
    return s->closed_ns + (s->open ? s->end - s->start : 0);
}
