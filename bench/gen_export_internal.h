/* gen_export_internal — the record-writing helpers shared by gen_export.c (small arrays, summary) and
 * gen_export_records.c (the large instruction, dma, semaphore_update and active_time arrays).
 *
 * A gen_wr writes one flat JSON object at a time: gen_wr_begin opens it, the GEN_K* macros write one member
 * each, `,"key":value` (the comma only after the first key), gen_wr_end closes it. Keys are string
 * literals, so their quoting is done at compile time. Every member must start with a GEN_K* / gen_wr_key*
 * call (never write two keys in one literal): a member is the span from its key to the next one.
 *
 * Key order: real exports are written from Go maps, so every record lists its keys in its own order (in
 * profile_128x128x1024.json all 129 instruction and all 228 dma records differ), and a reader's branch
 * prediction sees that: neuronlens reads the same data ~65% slower with shuffled keys than in one fixed
 * order. So the record is pinned in the output buffer while it is written (gen_out_pin: a flush never
 * splits it), each member's start offset is noted, and gen_wr_end reorders the members into a Go map's
 * iteration order (gen_export_order.c: the model, and how it matches the samples) drawn from the gen_wr's
 * own rng stream, seeded from --seed and the core (deterministic, and independent of the model's draws),
 * fixing the commas, in the buffer's spare space. Nested objects inside a value (the predecessors'
 * {"id","type"}) are Go structs in the real exports and keep their order. */
#ifndef NL_GEN_EXPORT_INTERNAL_H
#define NL_GEN_EXPORT_INTERNAL_H

#include "gen_export.h"
#include "gen_rng.h"

/* Members whose spans are recorded; later ones stay glued to the last span (still valid JSON, less shuffled).
 * The largest record (terminology) has ~115 members. */
#define GEN_WR_MAX_SPANS 256

/* rng streams of the key orders (gen_model.c uses streams 1 and 100 + nc). */
#define GEN_WR_STREAM_EXPORT(nc) (((uint64_t)0x6b6579 << 32) + (uint64_t)(nc))
#define GEN_WR_STREAM_SUMMARY(nc) (((uint64_t)0x73756d << 32) + (uint64_t)(nc))

typedef struct gen_wr {
    gen_out *o;
    const gen_core *c;
    gen_rng rng;                     /* key orders */
    unsigned members;                /* members written in the open record */
    uint32_t span[GEN_WR_MAX_SPANS]; /* member i starts span[i] bytes after the record's pin */
} gen_wr;

/* A writer on `o` for core `c`, its key orders drawn from (seed, stream). */
void gen_wr_init(gen_wr *w, gen_out *o, const gen_core *c, uint64_t stream);
/* Reorder the members of the open record (called by gen_wr_end when there are two or more). */
void gen_wr_shuffle(gen_wr *w);
/* The iteration order of a Go map whose keys 0..n-1 were inserted in that order (n <= GEN_WR_MAX_SPANS),
 * into order[0..n), drawn from the writer's stream. */
void gen_wr_map_order(gen_wr *w, uint16_t *order, unsigned n);

static inline void gen_wr_begin(gen_wr *w)
{
    gen_out_ch(w->o, '{');
    gen_out_pin(w->o);
    w->members = 0;
}

static inline void gen_wr_end(gen_wr *w)
{
    if (w->members > 1)
        gen_wr_shuffle(w);
    gen_out_unpin(w->o);
    gen_out_ch(w->o, '}');
}

/* Close the record with its members in the order written (the generator's own neuronlens_synthetic marker,
 * which is no Go map and reads best as written). */
static inline void gen_wr_end_in_order(gen_wr *w)
{
    gen_out_unpin(w->o);
    gen_out_ch(w->o, '}');
}

/* Start a member: note where it begins, then its comma. */
static inline void gen_wr_member(gen_wr *w)
{
    if (w->members < GEN_WR_MAX_SPANS)
        w->span[w->members] = (uint32_t)gen_out_pinned_len(w->o);
    if (w->members++)
        gen_out_ch(w->o, ',');
}

static inline void gen_wr_key(gen_wr *w, const char *quoted_key_colon, size_t n)
{
    gen_wr_member(w);
    gen_out_mem(w->o, quoted_key_colon, n);
}

/* A key computed at run time (no escaping: callers pass identifier-like keys). */
static inline void gen_wr_key_dyn(gen_wr *w, const char *key)
{
    gen_wr_member(w);
    gen_out_ch(w->o, '"');
    gen_out_raw(w->o, key);
    GEN_OUT_LIT(w->o, "\":");
}

#define GEN_K(w, name) gen_wr_key((w), "\"" name "\":", sizeof("\"" name "\":") - 1)
#define GEN_KU(w, name, v) (GEN_K(w, name), gen_out_u64((w)->o, (uint64_t)(v)))
#define GEN_KI(w, name, v) (GEN_K(w, name), gen_out_i64((w)->o, (int64_t)(v)))
#define GEN_KF(w, name, v) (GEN_K(w, name), gen_out_f64((w)->o, (double)(v)))
#define GEN_KS(w, name, s) (GEN_K(w, name), gen_out_str((w)->o, (s)))
#define GEN_KL(w, name, lit) (GEN_K(w, name), GEN_OUT_LIT((w)->o, "\"" lit "\""))
/* A table string known to need no escaping (labels, opcodes): quoted, copied as is. */
#define GEN_KR(w, name, s) \
    (GEN_K(w, name), gen_out_ch((w)->o, '"'), gen_out_raw((w)->o, (s)), gen_out_ch((w)->o, '"'))
#define GEN_KB(w, name, b) (GEN_K(w, name), (b) ? GEN_OUT_LIT((w)->o, "true") : GEN_OUT_LIT((w)->o, "false"))

/* Array bodies written by gen_export_records.c. */
void gen_export_instructions(gen_wr *w);
void gen_export_dma(gen_wr *w);
void gen_export_semaphore_updates(gen_wr *w);
void gen_export_active_time(gen_wr *w);

/* Path of an instruction's layer ("" for scaffolding), written unquoted. */
void gen_export_layer_path(gen_out *o, const gen_core *c, const gen_instr *in);
/* Name of a transfer's variable, written unquoted. */
void gen_export_variable(gen_out *o, const gen_core *c, const gen_xfer *x);
/* Name of weight w in neff_node (and the weight-load DMA `variable`), written unquoted. */
void gen_export_weight_name(gen_out *o, const gen_core *c, unsigned w);

#endif
