/* topn — see topn.h.
 *
 * A binary max-heap ordered by the caller's comparator: the root is the item that ranks last among those
 * kept, so a new item enters only when it ranks before the root, replacing it. topn_finish is an in-place
 * heapsort: popping the root to the end repeatedly leaves the array best-first. */
#include "topn.h"

#include <stdlib.h>
#include <string.h>

static unsigned char *topn_slot(const topn *h, size_t i)
{
    return h->items + i * h->item_size;
}

static void topn_swap(topn *h, size_t i, size_t j)
{
    unsigned char tmp[TOPN_ITEM_MAX];
    memcpy(tmp, topn_slot(h, i), h->item_size);
    memcpy(topn_slot(h, i), topn_slot(h, j), h->item_size);
    memcpy(topn_slot(h, j), tmp, h->item_size);
}

/* Whether slot i ranks after slot j (belongs nearer the root). */
static int topn_after(const topn *h, size_t i, size_t j)
{
    return h->cmp(topn_slot(h, i), topn_slot(h, j), h->ctx) > 0;
}

static void topn_sift_up(topn *h, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!topn_after(h, i, parent))
            return;
        topn_swap(h, i, parent);
        i = parent;
    }
}

static void topn_sift_down(topn *h, size_t i, size_t n)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, worst = i;
        if (l < n && topn_after(h, l, worst))
            worst = l;
        if (r < n && topn_after(h, r, worst))
            worst = r;
        if (worst == i)
            return;
        topn_swap(h, i, worst);
        i = worst;
    }
}

int topn_init(topn *h, size_t item_size, size_t cap, topn_cmp cmp, const void *ctx)
{
    memset(h, 0, sizeof *h);
    if (item_size == 0 || item_size > TOPN_ITEM_MAX)
        return -1;
    h->item_size = item_size;
    h->cap = cap;
    h->cmp = cmp;
    h->ctx = ctx;
    if (cap && !(h->items = malloc(cap * item_size)))
        return -1;
    return 0;
}

void topn_close(topn *h)
{
    free(h->items);
    memset(h, 0, sizeof *h);
}

int topn_would_keep(const topn *h, const void *item)
{
    if (h->n < h->cap)
        return 1;
    return h->cap > 0 && h->cmp(item, topn_slot(h, 0), h->ctx) < 0;
}

void topn_offer(topn *h, const void *item)
{
    if (h->n < h->cap) {
        memcpy(topn_slot(h, h->n), item, h->item_size);
        topn_sift_up(h, h->n++);
    } else if (topn_would_keep(h, item)) {
        memcpy(topn_slot(h, 0), item, h->item_size);
        topn_sift_down(h, 0, h->n);
    }
}

size_t topn_finish(topn *h)
{
    for (size_t end = h->n; end > 1; end--) {
        topn_swap(h, 0, end - 1);
        topn_sift_down(h, 0, end - 1);
    }
    return h->n;
}

const void *topn_at(const topn *h, size_t i)
{
    return topn_slot(h, i);
}
