/* gen_export_internal — the record-writing helpers shared by gen_export.c (small arrays, summary) and
 * gen_export_records.c (the large instruction, dma, semaphore_update and active_time arrays).
 *
 * A gen_wr writes one flat JSON object at a time: gen_wr_begin opens it, the GEN_K* macros write
 * `,"key":value` (the comma only after the first key), gen_wr_end closes it. Keys are string literals,
 * so their quoting is done at compile time. */
#ifndef NL_GEN_EXPORT_INTERNAL_H
#define NL_GEN_EXPORT_INTERNAL_H

#include "gen_export.h"

typedef struct gen_wr {
    gen_out *o;
    const gen_core *c;
    int comma;
} gen_wr;

static inline void gen_wr_begin(gen_wr *w)
{
    gen_out_ch(w->o, '{');
    w->comma = 0;
}

static inline void gen_wr_end(gen_wr *w)
{
    gen_out_ch(w->o, '}');
    w->comma = 1;
}

static inline void gen_wr_key(gen_wr *w, const char *quoted_key_colon, size_t n)
{
    if (w->comma)
        gen_out_ch(w->o, ',');
    gen_out_mem(w->o, quoted_key_colon, n);
    w->comma = 1;
}

/* A key computed at run time (no escaping: callers pass identifier-like keys). */
static inline void gen_wr_key_dyn(gen_wr *w, const char *key)
{
    if (w->comma)
        gen_out_ch(w->o, ',');
    gen_out_ch(w->o, '"');
    gen_out_raw(w->o, key);
    GEN_OUT_LIT(w->o, "\":");
    w->comma = 1;
}

#define GEN_K(w, name) gen_wr_key((w), "\"" name "\":", sizeof("\"" name "\":") - 1)
#define GEN_KU(w, name, v) (GEN_K(w, name), gen_out_u64((w)->o, (uint64_t)(v)))
#define GEN_KI(w, name, v) (GEN_K(w, name), gen_out_i64((w)->o, (int64_t)(v)))
#define GEN_KF(w, name, v) (GEN_K(w, name), gen_out_f64((w)->o, (double)(v)))
#define GEN_KS(w, name, s) (GEN_K(w, name), gen_out_str((w)->o, (s)))
#define GEN_KL(w, name, lit) (GEN_K(w, name), GEN_OUT_LIT((w)->o, "\"" lit "\""))
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
