/* topn — bounded "best N" selection over a stream of fixed-size items.
 *
 * Owns: one malloc'd array of `cap` items. topn_offer keeps the `cap` best items seen so far in a heap
 * whose root is the worst kept one (O(log cap) per offer, nothing proportional to the stream);
 * topn_finish sorts the kept items best-first in place. "Best" is defined by the caller's comparator,
 * which must be a strict total order (break ties, e.g. by row or key) so results are stable.
 * Threads: caller storage, one thread. Errors: topn_init returns -1 when the array cannot be allocated. */
#ifndef NL_TOPN_H
#define NL_TOPN_H

#include <stddef.h>

/* Largest item, in bytes (items are swapped through a stack buffer of this size). */
#define TOPN_ITEM_MAX 128u

/* < 0 when `a` ranks before (is better than) `b`, > 0 when after, 0 only for the same item. */
typedef int (*topn_cmp)(const void *a, const void *b, const void *ctx);

typedef struct topn {
    unsigned char *items;
    size_t item_size, cap, n;
    topn_cmp cmp;
    const void *ctx;
} topn;

/* cap may be 0 (offers are ignored). 0, or -1 when out of memory or item_size > TOPN_ITEM_MAX. */
int topn_init(topn *h, size_t item_size, size_t cap, topn_cmp cmp, const void *ctx) __attribute__((warn_unused_result));
void topn_close(topn *h);

/* Keep `item` (copied) if it is among the `cap` best so far. */
void topn_offer(topn *h, const void *item);
/* Whether `item` would be kept by topn_offer (false when full and it ranks after the worst kept one). */
int topn_would_keep(const topn *h, const void *item);
/* Sort the kept items best-first; returns their count. Offer nothing afterwards. */
size_t topn_finish(topn *h);
/* Item i (0 = best after topn_finish). */
const void *topn_at(const topn *h, size_t i);

#endif
