/* gen_ntff — see gen_ntff.h. The file is written front to back in one pass: the metadata needs every
 * section's offset and size, so the record counts are fixed first (gen_ntff_plan), then each core's records
 * are drawn from its own rng streams while they are written (one 4 MiB buffer, gen_out).
 *
 * Timeline of one core (picoseconds; every clock converts them back, ns = (raw - base) × measured /
 * nominal / 1000, so raw = base + ps × nominal / measured):
 *   v5  per engine e: 18 start-up instructions (stream 0x6e + 2(e-1), pcs 4..21) from 1 µs; the main program
 *       (stream 0x8a + 2(e-1)): pcs 0..17 from 3 µs, pc 18 with the 0x20 marker, pc 19 from 5 µs to
 *       5.1 µs + 10 ns × e (so G = Sync's end), then the body (pcs 20..255 cycling) from 6 µs, one after the
 *       other. DMA: 8 packets at 2 µs (before G), the rest from 6 µs.
 *   v6  per engine: every instruction on stream b0 + k / 256, pc k & 0xff, the first one with the marker, from
 *       1 µs. DMA from 1.5 µs. */
#include "gen_ntff.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gen_err.h"
#include "gen_out.h"
#include "gen_pb.h"
#include "gen_rng.h"

#define GEN_NTFF_SLOTS 256u
#define GEN_NTFF_DMA_ENGINES 16u
#define GEN_NTFF_V5_STARTUP 18u       /* start-up instructions per engine */
#define GEN_NTFF_V5_PREFIX 38u        /* start-up + main pcs 0..17 + marker + G candidate */
#define GEN_NTFF_V5_HIDDEN_DMA 8u

/* byte 0 of the slots: the opcodes of the inf2 table (ntff_payload_model.c), cycled */
static const uint8_t gen_ntff_opcodes[] = {0xa2, 0xa0, 0xb1, 0xa5, 0xa6, 0xa9, 0xb0, 0xa4,
                                           0x01, 0x02, 0x21, 0x23, 0xaa, 0xab, 0xb8};

typedef struct gen_ntff_clock {
    uint64_t base, nominal, measured;
} gen_ntff_clock;

/* inf2 values from a real capture's clock table (ntff.md "Clock table"); v6 uses the identity. */
static const gen_ntff_clock gen_ntff_inf2_engine[6] = {
    {0, 0, 0},
    {480618953921560ull, 731428, 731408}, /* Tensor (subfield 1) */
    {480618953905222ull, 731428, 731408}, /* Scalar (2) */
    {480618953910845ull, 731428, 731408}, /* GpSimd (subfield 4) */
    {480619309836024ull, 914286, 914260}, /* Vector (subfield 3) */
    {480618954040131ull, 731428, 731408}, /* Sync (5) */
};
static const gen_ntff_clock gen_ntff_inf2_sem = {480618954090131ull, 731428, 731408};
static const gen_ntff_clock gen_ntff_inf2_dma = {155464887790919ull, 1024, 1204672};
static const unsigned gen_ntff_clock_subfield[6] = {0, 1, 2, 4, 3, 5};

typedef struct gen_ntff_plan {
    uint64_t per_engine;       /* instructions per engine */
    uint64_t dma_packets, sem, kind5;
    uint64_t instr_off, sem_off, kind2_off, dma_off, kind5_off, end; /* payload-relative */
    uint64_t stream_off;       /* v6: first slot of this core's streams */
} gen_ntff_plan;

static void gen_ntff_plan_all(const gen_ntff_options *o, gen_ntff_plan *pl)
{
    uint64_t slots_bytes = o->version >= 6 ? (uint64_t)o->cores * 5 * GEN_NTFF_SLOTS * 64 : 0;
    uint64_t avail = o->target_bytes > slots_bytes ? o->target_bytes - slots_bytes : 0;
    uint64_t records = avail / 16 / (uint64_t)o->cores;
    uint64_t pos = slots_bytes;
    for (int c = 0; c < o->cores; c++) {
        gen_ntff_plan *p = &pl[c];
        p->per_engine = records * 35 / 100 / 10;
        if (p->per_engine < GEN_NTFF_V5_PREFIX + 2)
            p->per_engine = GEN_NTFF_V5_PREFIX + 2;
        p->dma_packets = records * 55 / 100 / 3;
        if (p->dma_packets < GEN_NTFF_V5_HIDDEN_DMA + 8)
            p->dma_packets = GEN_NTFF_V5_HIDDEN_DMA + 8;
        p->sem = records / 10 > 8 ? records / 10 : 8;
        p->kind5 = o->version >= 6 ? 0 : 4;
        p->stream_off = (uint64_t)c * 5 * GEN_NTFF_SLOTS * 64;
        p->instr_off = pos;
        p->sem_off = p->instr_off + p->per_engine * 10 * 16;
        p->kind2_off = p->sem_off + p->sem * 16;
        p->dma_off = p->kind2_off;
        p->kind5_off = p->dma_off + p->dma_packets * 3 * 16;
        p->end = p->kind5_off + p->kind5 * 16;
        pos = p->end;
    }
}

/* ---- metadata ----------------------------------------------------------------------------------------- */

static void gen_ntff_clock_entry(gen_pb *m, unsigned sub, const gen_ntff_clock *k)
{
    size_t at = gen_pb_open(m, sub);
    if (k->base)
        gen_pb_varint(m, 1, k->base);
    gen_pb_varint(m, 2, k->nominal);
    gen_pb_varint(m, 3, k->measured);
    gen_pb_close(m, at);
}

static void gen_ntff_section_entry(gen_pb *m, uint32_t field, unsigned kind, unsigned sub, uint64_t off,
                                   uint64_t size, int core_id)
{
    size_t at = gen_pb_open(m, field);
    if (kind)
        gen_pb_varint(m, 1, kind);
    if (sub)
        gen_pb_varint(m, 3, sub);
    if (off)
        gen_pb_varint(m, 5, off);
    if (size)
        gen_pb_varint(m, 6, size);
    if (core_id >= 0)
        gen_pb_varint(m, 7, (uint64_t)core_id);
    gen_pb_close(m, at);
}

static void gen_ntff_slot(uint8_t *slot, unsigned engine, uint32_t k)
{
    for (int j = 0; j < 64; j++)
        slot[j] = (uint8_t)(k * 13 + (unsigned)j * 7 + engine);
    slot[0] = gen_ntff_opcodes[(k + engine) % sizeof gen_ntff_opcodes];
}

static void gen_ntff_sections(gen_pb *m, uint32_t field, const gen_ntff_plan *p, int core_id)
{
    gen_ntff_section_entry(m, field, 0, 0, p->instr_off, p->sem_off - p->instr_off, core_id);
    gen_ntff_section_entry(m, field, 1, 0, p->sem_off, p->kind2_off - p->sem_off, core_id);
    gen_ntff_section_entry(m, field, 2, 0, p->kind2_off, 0, core_id);
    gen_ntff_section_entry(m, field, 4, 1, p->dma_off, p->kind5_off - p->dma_off, core_id);
    gen_ntff_section_entry(m, field, 5, 0, p->kind5_off, p->end - p->kind5_off, core_id);
}

static void gen_ntff_core_msg(gen_pb *m, const gen_ntff_options *o, int c, const gen_ntff_plan *p)
{
    size_t core = gen_pb_open(m, 1);
    char name[16];
    snprintf(name, sizeof name, "sg%02d", c & 0xff);
    gen_pb_str(m, 1, name);
    if (o->version >= 6)
        gen_pb_varint(m, 3, 4 + (uint64_t)c);
    for (unsigned e = 1; e <= 5; e++) {
        size_t st = gen_pb_open(m, 4);
        if (e > 1)
            gen_pb_varint(m, 1, e - 1);
        gen_pb_varint(m, 2, 0x3c0000000ull + (uint64_t)c * 0x1000000 + e * 0x10000);
        if (o->version >= 6) {
            uint64_t off = p->stream_off + (uint64_t)(e - 1) * GEN_NTFF_SLOTS * 64;
            if (off)
                gen_pb_varint(m, 7, off);
            gen_pb_varint(m, 8, (uint64_t)GEN_NTFF_SLOTS * 64);
        } else {
            uint8_t code[GEN_NTFF_SLOTS * 64];
            for (uint32_t k = 0; k < GEN_NTFF_SLOTS; k++)
                gen_ntff_slot(code + 64 * k, e, k);
            gen_pb_bytes(m, 3, code, sizeof code);
        }
        gen_pb_close(m, st);
    }
    if (o->version < 6)
        gen_ntff_sections(m, 6, p, -1);
    size_t clk = gen_pb_open(m, 10);
    static const gen_ntff_clock identity = {0, 1, 1};
    for (unsigned sub = 1; sub <= 6; sub++) {
        const gen_ntff_clock *k = &identity;
        for (unsigned e = 1; e <= 5 && o->version < 6; e++)
            if (gen_ntff_clock_subfield[e] == sub)
                k = &gen_ntff_inf2_engine[e];
        if (sub == 6 && o->version < 6)
            k = &gen_ntff_inf2_sem;
        gen_ntff_clock_entry(m, sub, k);
    }
    for (unsigned d = 0; d < GEN_NTFF_DMA_ENGINES; d++) {
        gen_ntff_clock k = o->version < 6 ? gen_ntff_inf2_dma : identity;
        if (o->version < 6)
            k.base -= d * 3;
        gen_ntff_clock_entry(m, 8, &k);
    }
    gen_pb_close(m, clk);
    gen_pb_close(m, core);
}

static void gen_ntff_metadata(gen_pb *m, const gen_ntff_options *o, const gen_ntff_plan *pl)
{
    static const uint8_t uuid[22] = {0x5e, 0x17, 0x7e, 0x71, 0xc0, 0x4e, 0x11, 0x7e, 0x5a, 0x5a, 0x00,
                                     0x00, 0x6e, 0x75, 0x72, 0x6f, 0, 0, 0, 0, 0, 0};
    gen_pb_str(m, 1, "SYNTHETIC neuronlens nl-gen-profile NTFF (not from a device)");
    gen_pb_bytes(m, 2, uuid, o->version >= 6 ? 18 : 22);
    gen_pb_varint(m, 3, 10001);
    size_t f4 = gen_pb_open(m, 4);
    size_t f44 = gen_pb_open(m, 4);
    for (int c = 0; c < o->cores; c++)
        gen_ntff_core_msg(m, o, c, &pl[c]);
    gen_pb_close(m, f44);
    gen_pb_close(m, f4);
    gen_pb_varint(m, 5, o->cores > 1 ? 2 : 1);
    size_t f8 = gen_pb_open(m, 8);
    gen_pb_varint(m, 1, 2);
    gen_pb_varint(m, 2, o->version >= 6 ? 30 : 29);
    gen_pb_varint(m, 3, o->version >= 6 ? 51 : 40);
    gen_pb_close(m, f8);
    gen_pb_str(m, 9, o->version >= 6 ? "trn2.3xlarge" : "inf2.xlarge");
    if (o->version >= 6) {
        for (int c = 0; c < o->cores; c++)
            gen_ntff_sections(m, 16, &pl[c], 4 + c);
        gen_pb_str(m, 17, "i-0synthetic");
    }
}

/* ---- records ------------------------------------------------------------------------------------------ */

static void gen_ntff_rec(gen_out *out, uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint32_t w, uint64_t ts)
{
    char r[16];
    r[0] = (char)a, r[1] = (char)b, r[2] = (char)c, r[3] = (char)d;
    for (int i = 0; i < 4; i++)
        r[4 + i] = (char)(w >> (8 * i));
    for (int i = 0; i < 8; i++)
        r[8 + i] = (char)(ts >> (8 * i));
    gen_out_mem(out, r, sizeof r);
}

static uint64_t gen_ntff_raw(const gen_ntff_clock *k, uint64_t ps)
{
    return k->base + (uint64_t)((unsigned __int128)ps * k->nominal / k->measured);
}

/* One engine's instruction stream, drawn as it is written. */
typedef struct gen_ntff_engine {
    gen_rng rng;
    uint64_t k, t;             /* next instruction, body time cursor (ps) */
} gen_ntff_engine;

static void gen_ntff_next_instr(const gen_ntff_options *o, unsigned e, gen_ntff_engine *g, gen_out *out)
{
    const gen_ntff_clock *clk = &gen_ntff_inf2_engine[e];
    static const gen_ntff_clock identity = {0, 1, 1};
    if (o->version >= 6)
        clk = &identity;
    uint64_t k = g->k++, start, end;
    uint8_t stream, pc, flags = o->version >= 6 ? 0x01 : 0;
    if (o->version >= 6) {
        stream = (uint8_t)(4 * e + k / 256);
        pc = (uint8_t)k;
        flags |= k == 0 ? 0x20 : 0;
    } else if (k < GEN_NTFF_V5_STARTUP) {
        stream = (uint8_t)(0x6e + 2 * (e - 1));
        pc = (uint8_t)(4 + k);
    } else {
        stream = (uint8_t)(0x8a + 2 * (e - 1));
        uint64_t j = k - GEN_NTFF_V5_STARTUP; /* main program index */
        pc = j < 20 ? (uint8_t)j : (uint8_t)(20 + (j - 20) % (GEN_NTFF_SLOTS - 20));
        flags = j == 18 ? 0x20 : 0;
    }
    if (o->version < 6 && k < GEN_NTFF_V5_STARTUP) {
        start = 1000000 + k * 60000, end = start + 20000;
    } else if (o->version < 6 && k < GEN_NTFF_V5_PREFIX - 1) {
        start = 3000000 + (k - GEN_NTFF_V5_STARTUP) * 60000, end = start + 20000;
    } else if (o->version < 6 && k == GEN_NTFF_V5_PREFIX - 1) {
        start = 5000000, end = 5100000 + 10000 * (uint64_t)e;
    } else {
        start = g->t + (uint64_t)gen_rng_range(&g->rng, 2000, 50000);
        end = start + (uint64_t)gen_rng_range(&g->rng, 5000, 400000);
        g->t = end;
    }
    uint32_t cycles = gen_rng_chance(&g->rng, 5) ? (uint32_t)gen_rng_range(&g->rng, 2, 5000) : 1;
    uint8_t d = (uint8_t)(0x80 | e << 2);
    gen_ntff_rec(out, pc, stream, flags, d, cycles << 16, gen_ntff_raw(clk, start));
    gen_ntff_rec(out, pc, stream, flags, d | 1, 0xffffffffu, gen_ntff_raw(clk, end));
}

static void gen_ntff_core_records(const gen_ntff_options *o, int c, const gen_ntff_plan *p, gen_out *out,
                                  gen_ntff_core_expected *x)
{
    gen_ntff_engine eng[6];
    for (unsigned e = 1; e <= 5; e++) {
        gen_rng_seed(&eng[e].rng, o->seed, 0x4e5446460000ull + (uint64_t)c * 16 + e);
        eng[e].k = 0;
        eng[e].t = (o->version >= 6 ? 1000000 : 6000000) + e * 1000;
    }
    for (uint64_t k = 0; k < p->per_engine; k++)
        for (unsigned e = 1; e <= 5; e++)
            gen_ntff_next_instr(o, e, &eng[e], out);
    static const gen_ntff_clock identity = {0, 1, 1};
    const gen_ntff_clock *sem = o->version >= 6 ? &identity : &gen_ntff_inf2_sem;
    for (uint64_t k = 0; k < p->sem; k++)
        gen_ntff_rec(out, (uint8_t)(k & 31), 1, 0xf9, (uint8_t)(0x87 + 4 * (k % 6)), (uint32_t)k,
                     gen_ntff_raw(sem, 1000000 + k * 1000));
    gen_rng rng;
    gen_rng_seed(&rng, o->seed, 0x444d41000000ull + (uint64_t)c);
    uint64_t t = o->version >= 6 ? 1500000 : 6000000;
    for (uint64_t j = 0; j < p->dma_packets; j++) {
        unsigned engine = (unsigned)(j % GEN_NTFF_DMA_ENGINES), queue = (unsigned)(j / GEN_NTFF_DMA_ENGINES % 16);
        gen_ntff_clock clk = o->version >= 6 ? identity : gen_ntff_inf2_dma;
        if (o->version < 6)
            clk.base -= engine * 3;
        bool hidden = o->version < 6 && j < GEN_NTFF_V5_HIDDEN_DMA;
        uint64_t start = hidden ? 2000000 + j * 10000 : t;
        uint64_t data = start + (uint64_t)gen_rng_range(&rng, 1000, 200000);
        uint16_t size = (uint16_t)gen_rng_range(&rng, 64, 65535), crc = (uint16_t)gen_rng_below(&rng, 65536);
        uint8_t d = (uint8_t)(0x80 | engine);
        gen_ntff_rec(out, 0, 0, 0, d, queue << 4 | 1, gen_ntff_raw(&clk, start));
        gen_ntff_rec(out, (uint8_t)size, (uint8_t)(size >> 8), 0, d, (uint32_t)crc << 16 | queue << 4 | 5,
                     gen_ntff_raw(&clk, data));
        gen_ntff_rec(out, 0, 0, 0, d, queue << 4 | 6, gen_ntff_raw(&clk, data + 500));
        if (!hidden)
            t += (uint64_t)gen_rng_range(&rng, 500, 20000);
        x->dma_visible += !hidden;
        x->dma_before_origin += hidden;
    }
    for (uint64_t k = 0; k < p->kind5; k++)
        gen_ntff_rec(out, (uint8_t)(k & 1 ? 0 : 14), 0, (uint8_t)(k & 1 ? 0 : 8), 0x9e, k & 1 ? 0x80 : 7,
                     gen_ntff_raw(&gen_ntff_inf2_dma, 9000000000ull + k * 64));
    snprintf(x->name, sizeof x->name, "sg%02d", c & 0x3f);
    for (unsigned e = 1; e <= 5; e++)
        x->visible[e] = o->version >= 6 ? p->per_engine : p->per_engine - GEN_NTFF_V5_PREFIX;
    x->instr_records = p->per_engine * 10;
    x->dma_records = p->dma_packets * 3;
    x->sem_records = p->sem;
    x->kind5_records = p->kind5;
    x->origin_rule = o->version >= 6 ? "first_start" : "export_g";
}

int gen_ntff_write(const gen_ntff_options *o, const char *path, gen_ntff_expected *exp, char *errbuf,
                   size_t errcap)
{
    gen_err err;
    gen_err_init(&err, errbuf, errcap);
    if ((o->version != 5 && o->version != 6) || o->cores < 1 || o->cores > GEN_NTFF_MAX_CORES ||
        o->target_bytes < GEN_NTFF_MIN_BYTES || o->target_bytes > GEN_NTFF_MAX_BYTES) {
        gen_err_set(&err, "NTFF options: version 5 or 6, 1..%d cores, %llu..%llu bytes", GEN_NTFF_MAX_CORES,
                    (unsigned long long)GEN_NTFF_MIN_BYTES, (unsigned long long)GEN_NTFF_MAX_BYTES);
        return -1;
    }
    gen_ntff_plan pl[GEN_NTFF_MAX_CORES];
    memset(pl, 0, sizeof pl);
    gen_ntff_plan_all(o, pl);
    gen_pb meta = {0};
    gen_ntff_metadata(&meta, o, pl);
    if (meta.failed || meta.len >= (1u << 24)) {
        gen_pb_free(&meta);
        gen_err_set(&err, "NTFF metadata: %s", meta.failed ? "out of memory" : "over 16 MiB");
        return -1;
    }
    gen_out out;
    if (gen_out_open(&out, path, &err) != 0) {
        gen_pb_free(&meta);
        return -1;
    }
    char head[128];
    memset(head, 0, sizeof head);
    head[0] = (char)o->version;
    head[1] = (char)meta.len, head[2] = (char)(meta.len >> 8), head[3] = (char)(meta.len >> 16);
    gen_out_mem(&out, head, sizeof head);
    gen_out_mem(&out, (const char *)meta.b, meta.len);
    gen_ntff_expected x;
    memset(&x, 0, sizeof x);
    x.cores = o->cores;
    x.metadata_bytes = meta.len;
    gen_pb_free(&meta);
    if (o->version >= 6)
        for (int c = 0; c < o->cores; c++)
            for (unsigned e = 1; e <= 5; e++)
                for (uint32_t k = 0; k < GEN_NTFF_SLOTS; k++) {
                    uint8_t slot[64];
                    gen_ntff_slot(slot, e, k);
                    gen_out_mem(&out, (const char *)slot, sizeof slot);
                }
    for (int c = 0; c < o->cores; c++)
        gen_ntff_core_records(o, c, &pl[c], &out, &x.core[c]);
    x.file_bytes = gen_out_bytes(&out);
    x.payload_bytes = pl[o->cores - 1].end;
    if (gen_out_close(&out, &err) != 0)
        return -1;
    if (x.file_bytes != 128 + x.metadata_bytes + x.payload_bytes) {
        gen_err_set(&err, "NTFF layout: wrote %llu bytes, planned %llu", (unsigned long long)x.file_bytes,
                    (unsigned long long)(128 + x.metadata_bytes + x.payload_bytes));
        return -1;
    }
    if (exp)
        *exp = x;
    return 0;
}
