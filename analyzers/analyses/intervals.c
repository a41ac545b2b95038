/* intervals — see intervals.h. */
#include "intervals.h"

#include <stdlib.h>

static int by_start(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

int64_t interval_union(interval *v, size_t n)
{
    size_t i;
    for (i = 1; i < n && v[i - 1].start <= v[i].start; i++)
        ;
    if (i < n)
        qsort(v, n, sizeof *v, by_start);
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
