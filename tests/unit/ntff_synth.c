/* ntff_synth — see ntff_synth.h. Offsets are tracked while the protobuf messages are nested: every entry's
 * position inside its message plus the sizes of the tags and length prefixes written around it. */
#include "ntff_synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *ns_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("ntff_synth: out of memory\n", stderr);
        abort();
    }
    return q;
}

static size_t ns_vsize(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80)
        v >>= 7, n++;
    return n;
}

void ns_init(ntff_synth *s, uint8_t version, const char *instance_type)
{
    memset(s, 0, sizeof *s);
    s->version = version;
    snprintf(s->instance_type, sizeof s->instance_type, "%s", instance_type);
}

void ns_free(ntff_synth *s)
{
    for (size_t i = 0; i < s->ncores; i++) {
        for (int e = 0; e < 6; e++)
            free(s->core[i].opcodes[e]);
        for (size_t k = 0; k < s->core[i].nsec; k++)
            free(s->core[i].sec[k].recs);
    }
    memset(s, 0, sizeof *s);
}

ns_core *ns_add_core(ntff_synth *s, const char *name, int64_t physical_id)
{
    if (s->ncores >= NS_MAX_CORES)
        abort();
    ns_core *c = &s->core[s->ncores++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->physical_id = physical_id;
    return c;
}

void ns_clock_set(ns_core *c, unsigned subfield, uint64_t base, uint64_t nominal, uint64_t measured)
{
    c->clock[subfield] = (ns_clock){true, base, nominal, measured};
}

void ns_clocks_all(ns_core *c, uint64_t base, uint64_t nominal, uint64_t measured)
{
    for (unsigned k = 1; k <= 6; k++)
        ns_clock_set(c, k, base, nominal, measured);
}

void ns_dma_clocks(ns_core *c, unsigned n, uint64_t base, uint64_t nominal, uint64_t measured)
{
    c->dma_clocks = n;
    c->dma_clock = (ns_clock){true, base, nominal, measured};
}

void ns_stream(ns_core *c, unsigned engine, const uint8_t *opcodes, uint32_t slots)
{
    free(c->opcodes[engine]);
    c->opcodes[engine] = ns_xrealloc(NULL, slots);
    memcpy(c->opcodes[engine], opcodes, slots);
    c->slots[engine] = slots;
}

ns_section *ns_section_add(ns_core *c, uint32_t kind, uint32_t sub)
{
    if (c->nsec >= NS_MAX_SECTIONS)
        abort();
    ns_section *s = &c->sec[c->nsec++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->sub = sub;
    return s;
}

void ns_push(ns_section *s, uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint32_t w, uint64_t ts)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->recs = ns_xrealloc(s->recs, s->cap * sizeof *s->recs);
    }
    s->recs[s->n++] = (ns_rec){a, b, c, d, w, ts};
}

void ns_instr(ns_section *s, unsigned engine, uint8_t stream, uint8_t pc, uint8_t flags, uint64_t start, uint64_t end,
              uint32_t wait_cycles)
{
    ns_push(s, pc, stream, flags, (uint8_t)(0x80 | engine << 2), wait_cycles << 16, start);
    ns_push(s, pc, stream, flags, (uint8_t)(0x80 | engine << 2 | 1), 0xffffffffu, end);
}

void ns_dma(ns_section *s, unsigned engine, unsigned queue, uint64_t start, uint64_t data, uint16_t size, uint16_t crc)
{
    ns_push(s, 0, 0, 0, (uint8_t)(0x80 | engine), queue << 4 | 1, start);
    ns_push(s, (uint8_t)(size & 0xff), (uint8_t)(size >> 8), 0, (uint8_t)(0x80 | engine),
            (uint32_t)crc << 16 | queue << 4 | 5, data);
}

void ns_sem(ns_section *s, uint8_t index, uint32_t value, uint64_t ts)
{
    ns_push(s, index, 1, 0xf9, 0x80 | 1 << 2 | 3, value, ts);
}

/* ---- build -------------------------------------------------------------------------------------------- */

typedef struct ns_place {
    uint64_t stream_off[NS_MAX_CORES][6];
    uint64_t sec_off[NS_MAX_CORES][NS_MAX_SECTIONS];
    uint64_t payload_len;
} ns_place;

static void ns_place_all(const ntff_synth *s, ns_place *pl)
{
    uint64_t pos = 0;
    memset(pl, 0, sizeof *pl);
    if (s->version >= 6)
        for (size_t i = 0; i < s->ncores; i++)
            for (unsigned e = 1; e <= 5; e++)
                pl->stream_off[i][e] = pos, pos += (uint64_t)s->core[i].slots[e] * 64;
    for (size_t i = 0; i < s->ncores; i++)
        for (size_t k = 0; k < s->core[i].nsec; k++)
            pl->sec_off[i][k] = pos, pos += s->core[i].sec[k].n * 16;
    pl->payload_len = pos;
}

static void ns_slot_bytes(const ns_core *c, unsigned e, synth_buf *b)
{
    for (uint32_t k = 0; k < c->slots[e]; k++) {
        uint8_t slot[64];
        for (int j = 0; j < 64; j++)
            slot[j] = (uint8_t)(k * 7 + j);
        slot[0] = c->opcodes[e][k];
        synth_append(b, slot, 64);
    }
}

static void ns_section_entry(synth_buf *b, const ns_section *sec, uint64_t placed, int64_t core_id)
{
    uint64_t off = sec->fixed ? sec->offset : placed, size = sec->fixed ? sec->size : sec->n * 16;
    if (sec->kind)
        synth_varint_field(b, 1, sec->kind);
    if (sec->sub)
        synth_varint_field(b, 3, sec->sub);
    if (sec->f4)
        synth_varint_field(b, 4, sec->f4);
    if (off)
        synth_varint_field(b, 5, off);
    if (size)
        synth_varint_field(b, 6, size);
    if (core_id >= 0)
        synth_varint_field(b, 7, (uint64_t)core_id);
}

static void ns_clock_entry(synth_buf *b, unsigned sub, const ns_clock *k)
{
    synth_buf m = {0};
    if (k->base)
        synth_varint_field(&m, 1, k->base);
    synth_varint_field(&m, 2, k->nominal);
    synth_varint_field(&m, 3, k->measured);
    synth_msg_field(b, sub, &m);
    synth_free(&m);
}

/* One core message; *_rel are positions inside it. */
static synth_buf ns_core_msg(const ntff_synth *s, size_t i, const ns_place *pl, int64_t sec_rel[NS_MAX_SECTIONS],
                             int64_t clk_rel[7])
{
    const ns_core *c = &s->core[i];
    synth_buf b = {0};
    synth_string_field(&b, 1, c->name);
    if (c->physical_id >= 0)
        synth_varint_field(&b, 3, (uint64_t)c->physical_id);
    for (unsigned e = 1; e <= 5; e++) {
        if (!c->opcodes[e])
            continue;
        synth_buf st = {0};
        if (e > 1)
            synth_varint_field(&st, 1, e - 1);
        synth_varint_field(&st, 2, 0x3c0000000ull + e * 0x10000);
        if (s->version >= 6) {
            if (pl->stream_off[i][e])
                synth_varint_field(&st, 7, pl->stream_off[i][e]);
            synth_varint_field(&st, 8, (uint64_t)c->slots[e] * 64);
        } else {
            synth_buf code = {0};
            ns_slot_bytes(c, e, &code);
            synth_msg_field(&st, 3, &code);
            synth_free(&code);
        }
        synth_msg_field(&b, 4, &st);
        synth_free(&st);
    }
    for (size_t k = 0; k < c->nsec && s->version < 6; k++) {
        synth_buf e = {0};
        ns_section_entry(&e, &c->sec[k], pl->sec_off[i][k], -1);
        sec_rel[k] = (int64_t)b.len;
        synth_msg_field(&b, 6, &e);
        synth_free(&e);
    }
    synth_buf clk = {0};
    int64_t rel[7] = {0};
    for (unsigned sub = 1; sub <= 6; sub++)
        if (c->clock[sub].on) {
            rel[sub] = (int64_t)clk.len;
            ns_clock_entry(&clk, sub, &c->clock[sub]);
        }
    for (unsigned d = 0; d < c->dma_clocks; d++)
        ns_clock_entry(&clk, 8, &c->dma_clock);
    int64_t at = (int64_t)b.len + 1 + (int64_t)ns_vsize(clk.len);
    for (unsigned sub = 1; sub <= 6; sub++)
        clk_rel[sub] = c->clock[sub].on ? at + rel[sub] : -1;
    synth_msg_field(&b, 10, &clk);
    synth_free(&clk);
    synth_varint_field(&b, 14, 123456789);
    return b;
}

synth_buf ns_build(const ntff_synth *s, ns_layout *layout)
{
    ns_place pl;
    ns_place_all(s, &pl);
    ns_layout L;
    memset(&L, 0xff, sizeof L);
    int64_t sec_rel[NS_MAX_CORES][NS_MAX_SECTIONS], clk_rel[NS_MAX_CORES][7];
    synth_buf list = {0};
    size_t core_start[NS_MAX_CORES];
    for (size_t i = 0; i < s->ncores; i++) {
        synth_buf core = ns_core_msg(s, i, &pl, sec_rel[i], clk_rel[i]);
        core_start[i] = list.len + 1 + ns_vsize(core.len);
        synth_msg_field(&list, 1, &core);
        synth_free(&core);
    }
    synth_buf f4 = {0};
    size_t list_start = 1 + ns_vsize(list.len);
    synth_msg_field(&f4, 4, &list);
    synth_buf top = {0};
    static const uint8_t uuid[22] = {0xec, 0x35, 0x84, 0x8c, 0xa8, 0xc1, 0x42, 0x8c, 0x8a, 0x31, 0x1d,
                                     0x8c, 0x5d, 0xd2, 0x2c, 0xc2, 1, 2, 3, 4, 5, 6};
    synth_string_field(&top, 1, "/tmp/synthetic/graph.neff");
    synth_bytes_field(&top, 2, uuid, s->version >= 6 ? 18 : 22);
    synth_varint_field(&top, 3, 10001);
    size_t f4_start = top.len + 1 + ns_vsize(f4.len);
    synth_msg_field(&top, 4, &f4);
    synth_varint_field(&top, 5, s->ncores > 1 ? 2 : 1);
    synth_string_field(&top, 9, s->instance_type);
    for (size_t i = 0; i < s->ncores; i++) {
        uint64_t core_abs = 128 + f4_start + list_start + core_start[i];
        for (size_t k = 0; k < s->core[i].nsec; k++) {
            L.section_data[i][k] = pl.sec_off[i][k]; /* made absolute below */
            L.section_entry[i][k] = s->version < 6 ? (int64_t)core_abs + sec_rel[i][k] : -1;
        }
        for (unsigned sub = 1; sub <= 6; sub++)
            L.clock_entry[i][sub] = clk_rel[i][sub] >= 0 ? (int64_t)core_abs + clk_rel[i][sub] : -1;
    }
    if (s->version >= 6)
        for (size_t i = 0; i < s->ncores; i++)
            for (size_t k = 0; k < s->core[i].nsec; k++) {
                synth_buf e = {0};
                ns_section_entry(&e, &s->core[i].sec[k], pl.sec_off[i][k], s->core[i].physical_id);
                L.section_entry[i][k] = 128 + (int64_t)top.len;
                synth_msg_field(&top, 16, &e);
                synth_free(&e);
            }
    synth_buf out = {0};
    uint8_t head[128];
    memset(head, 0xa5, sizeof head);
    head[0] = s->version;
    head[1] = (uint8_t)top.len, head[2] = (uint8_t)(top.len >> 8), head[3] = (uint8_t)(top.len >> 16);
    synth_append(&out, head, sizeof head);
    synth_append(&out, top.p, top.len);
    L.payload_offset = out.len;
    if (s->version >= 6)
        for (size_t i = 0; i < s->ncores; i++)
            for (unsigned e = 1; e <= 5; e++)
                if (s->core[i].opcodes[e])
                    ns_slot_bytes(&s->core[i], e, &out);
    for (size_t i = 0; i < s->ncores; i++)
        for (size_t k = 0; k < s->core[i].nsec; k++) {
            const ns_section *sec = &s->core[i].sec[k];
            L.section_data[i][k] += L.payload_offset;
            for (size_t r = 0; r < sec->n; r++) {
                uint8_t rec[16];
                const ns_rec *x = &sec->recs[r];
                rec[0] = x->a, rec[1] = x->b, rec[2] = x->c, rec[3] = x->d;
                for (int j = 0; j < 4; j++)
                    rec[4 + j] = (uint8_t)(x->w >> (8 * j));
                for (int j = 0; j < 8; j++)
                    rec[8 + j] = (uint8_t)(x->ts >> (8 * j));
                synth_append(&out, rec, sizeof rec);
            }
        }
    synth_free(&list);
    synth_free(&f4);
    synth_free(&top);
    if (layout)
        *layout = L;
    return out;
}
