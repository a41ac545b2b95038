/* ref_order — the page order written out independently of analyzers/analyses/row_order.c, for the tests
 * that recompute trace-extract pages with qsort (test_timeline_device, test_timeline_host): value
 * descending, then timestamp, then row. */
#ifndef NL_TEST_REF_ORDER_H
#define NL_TEST_REF_ORDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct gen_key {
    int64_t value, ts;
    size_t row;
} gen_key;

static inline int gen_key_cmp(const void *pa, const void *pb)
{
    const gen_key *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

#endif
