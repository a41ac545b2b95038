/* gen_export_order — the key orders of the synthetic export (gen_export_internal.h says why they vary):
 * the order of a Go map's keys, and the in-place reordering of an open record's members.
 *
 * The order model. The real exports are serialized from Go maps without sorting, so a record's keys come
 * out in Go's map iteration order (runtime/map.go, the bucket maps before Go 1.24): the n keys of a map sit
 * in 2^B buckets of 8 slots (B the least with n <= 8 or n <= 6.5·2^B; a bucket's 9th key and on go to
 * overflow buckets), each bucket chosen by a hash with a per-map random seed and filled in insertion order;
 * iteration starts at a random bucket, wraps around, and visits the slots of every bucket from the same
 * random offset, wrapping within the 8. So a map of up to 8 keys comes out as a rotation of its insertion
 * order, and a larger one as interleaved rotated runs. The real samples show exactly this: every
 * active_time record (5 keys) is one of 5 rotations, semaphore_update (3 keys) one of 3, while all
 * instruction and dma records (22-32 keys) differ; "which key follows key K" is predictable 100% of the
 * time in the small records and ~13% in instruction and dma records (this model: 100% and 14-21%; a uniform
 * shuffle would give ~26% and 4%, i.e. harder data than the real exports). Insertion order = the order
 * the writer emits the members; the buckets, start and offset are drawn from the writer's rng.
 *
 * The reordering. A record is pinned in the gen_out buffer while it is written, so its bytes are
 * contiguous; member i occupies [span[i], span[i+1]) of it and starts with its comma when i > 0. The
 * members are copied in the new order into the buffer's spare space (behind a 64-byte gap: the copies
 * move fixed 64-byte blocks), each but the first with one comma, and the result is copied back: the record keeps its length, so byte counts (and --target-bytes sizing)
 * do not change. Cost per record: one rng draw per 64/B keys plus one, a counting sort over the buckets,
 * and two copies of a record that is in L1 cache. */
#include "gen_export_internal.h"

#include <string.h>

#define GEN_MAP_SLOTS 8 /* Go's bucketCnt */
#define GEN_MAP_MAX_B 8 /* 6.5·2^8 keys: beyond GEN_WR_MAX_SPANS */
#define GEN_MAP_SMALL 16 /* bucket counts zeroed without a length-dependent memset */
#define GEN_COPY_HEAD 64 /* gen_copy_member */
#define GEN_COPY_BLOCK 16

void gen_wr_init(gen_wr *w, gen_out *o, const gen_core *c, uint64_t stream)
{
    memset(w, 0, sizeof *w);
    w->o = o;
    w->c = c;
    gen_rng_seed(&w->rng, c->params->seed, stream);
}

/* log2 of the bucket count of a Go map that grew to n keys (no size hint): it grows on the insertion that
 * would make count > 8 and count > 6.5·2^B. */
static unsigned gen_map_b(unsigned n)
{
    unsigned b = 0;
    while (n > GEN_MAP_SLOTS && 2 * n > (13u << b) && b < GEN_MAP_MAX_B)
        b++;
    return b;
}

/* Bucket of each key (B random bits each), then the keys grouped by bucket in insertion order (a counting
 * sort): bucket k holds by_bucket[k ? end[k-1] : 0 .. end[k]). */
static void gen_map_fill(gen_wr *w, unsigned n, unsigned b, uint16_t *by_bucket, uint16_t *end)
{
    unsigned nb = 1u << b, have = 0;
    uint8_t bucket[GEN_WR_MAX_SPANS];
    uint64_t bits = 0;
    memset(end, 0, GEN_MAP_SMALL * sizeof *end); /* constant size: a couple of vector stores */
    if (nb > GEN_MAP_SMALL)
        memset(end + GEN_MAP_SMALL, 0, (nb - GEN_MAP_SMALL) * sizeof *end);
    for (unsigned i = 0; i < n; i++) {
        if (have < b) {
            bits = gen_rng_next(&w->rng);
            have = 64;
        }
        bucket[i] = (uint8_t)(bits & (nb - 1));
        bits >>= b;
        have -= b;
        end[bucket[i]]++;
    }
    for (unsigned k = 1; k < nb; k++) /* end[k] = start of bucket k, for the scatter */
        end[k] = (uint16_t)(end[k] + end[k - 1]);
    for (unsigned k = nb - 1; k > 0; k--)
        end[k] = end[k - 1];
    end[0] = 0;
    for (unsigned i = 0; i < n; i++) /* afterwards end[k] is the end of bucket k */
        by_bucket[end[bucket[i]]++] = (uint16_t)i;
}

/* One 8-slot bucket (or overflow bucket) of `used` keys, visited from slot `offset` with wrap-around: the
 * empty slots drop out, so that is keys[r..used) then keys[0..r) with r = offset, or 0 past the last key. */
static unsigned gen_map_visit(const uint16_t *keys, unsigned used, unsigned offset, uint16_t *out)
{
    unsigned r = offset < used ? offset : 0, n = 0;
    for (unsigned i = r; i < used; i++)
        out[n++] = keys[i];
    for (unsigned i = 0; i < r; i++)
        out[n++] = keys[i];
    return n;
}

void gen_wr_map_order(gen_wr *w, uint16_t *order, unsigned n)
{
    uint16_t by_bucket[GEN_WR_MAX_SPANS], end[1u << GEN_MAP_MAX_B];
    if (n > GEN_WR_MAX_SPANS)
        n = GEN_WR_MAX_SPANS;
    unsigned b = gen_map_b(n), nb = 1u << b, out = 0;
    gen_map_fill(w, n, b, by_bucket, end);
    uint64_t r = gen_rng_next(&w->rng); /* mapiterinit: startBucket = r & mask, offset = r >> B & 7 */
    unsigned start = (unsigned)(r & (nb - 1)), offset = (unsigned)(r >> b) & (GEN_MAP_SLOTS - 1);
    for (unsigned k = 0; k < nb; k++) {
        unsigned bk = (start + k) & (nb - 1);
        for (unsigned chunk = bk ? end[bk - 1] : 0; chunk < end[bk]; chunk += GEN_MAP_SLOTS) { /* + overflow */
            unsigned left = end[bk] - chunk;
            out += gen_map_visit(by_bucket + chunk, left < GEN_MAP_SLOTS ? left : GEN_MAP_SLOTS, offset, order + out);
        }
    }
}

/* Copy a member of n bytes: one fixed 64-byte block (a few vector moves, no branch: most members are
 * shorter, and a data-dependent loop exit per member would mispredict), then 16-byte blocks for the rest
 * (operands, HLO text). Reads and writes up to 63 bytes past the end of source and destination, which the
 * caller keeps inside the buffer and apart from each other. */
static void gen_copy_member(char *dst, const char *src, size_t n)
{
    memcpy(dst, src, GEN_COPY_HEAD);
    for (size_t i = GEN_COPY_HEAD; i < n; i += GEN_COPY_BLOCK)
        memcpy(dst + i, src + i, GEN_COPY_BLOCK);
}

void gen_wr_shuffle(gen_wr *w)
{
    gen_out *o = w->o;
    unsigned n = w->members < GEN_WR_MAX_SPANS ? w->members : GEN_WR_MAX_SPANS;
    uint16_t order[GEN_WR_MAX_SPANS];
    gen_wr_map_order(w, order, n); /* drawn first: the stream never depends on the buffer's state */
    size_t len = gen_out_pinned_len(o), head = w->span[0]; /* bytes before the first key stay (none today) */
    /* spare space (may flush: the record moves to the front): a gap that takes the overread past the
     * record's end, so no copy's source overlaps its destination, then the reordered record and the
     * overrun of its last copy */
    char *spare = gen_out_spare(o, GEN_COPY_HEAD + len + GEN_COPY_HEAD);
    if (!spare)
        return; /* only for a record over half the buffer: it keeps its order */
    const char *rec = gen_out_pinned(o);
    char *tmp = spare + GEN_COPY_HEAD, *p = tmp;
    for (unsigned j = 0; j < n; j++) {
        unsigned i = order[j];
        size_t from = w->span[i] + (i > 0), to = i + 1 < n ? w->span[i + 1] : len;
        *p = ',';
        p += j > 0;
        gen_copy_member(p, rec + from, to - from);
        p += to - from;
    }
    memcpy(gen_out_pinned(o) + head, tmp, (size_t)(p - tmp));
}
