/* ntff_payload — opening an NTFF for payload decoding: the per-core layout from the metadata (ntff.md;
 * records are read by ntff_payload_scan.c, the device model is filled by ntff_payload_model.c).
 *
 * File (little-endian; header and metadata block as in ntff.c):
 *
 *   0        1     version: 4, 5, 6 decoded here (others: NL_ERR_UNSUPPORTED)
 *   1        3     u24 L, metadata length
 *   128      L     metadata protobuf
 *   128+L    ..    payload: 16-byte records grouped in sections, uncompressed, to the end of the file
 *
 * Metadata paths used (field numbers; "a.b" = field b inside field a):
 *   4.4.1          per-core message, repeated (one on inf2/trn1, two on trn2: "sg00", "sg01")
 *     1   string   core name
 *     3   varint   physical core id (trn2: 4, 5; absent on inf2/trn1). v6 section entries name it in field 7
 *     4   message  instruction stream, repeated: {1 engine index (0 Tensor, 1 Scalar, 2 GpSimd, 3 Vector,
 *                  4 Sync; default 0), 2 device address, 3 bytes (v4/v5)} — 64-byte slots indexed by pc, byte 0
 *                  the opcode. v6 has no field 3 but {7 offset, 8 size} into the payload (relative to its start);
 *                  those regions tile the payload bytes v6's section table leaves uncovered [not in ntff.md]
 *     6   message  v4/v5 section entry, repeated: {1 kind (default 0), 3 sub, 5 offset, 6 size} (defaults 0);
 *                  offsets relative to the payload start
 *     10  message  clock table: subfield n = {1 base, 2 nominal ps per 1024 ticks, 3 measured ps per 1024
 *                  ticks}; n = 1..5 Tensor, Scalar, Vector, GpSimd, Sync; 6 semaphore records; 8 repeated,
 *                  one per DMA engine; 7 and 9 not used. ns = (ts - base) × measured / nominal / 1000.
 *                  trn2: every entry is base 0, 1/1
 *     14  varint   kept raw (equals the export's summary.total_time in ps on the three inf2 samples; not used)
 *   16             v6 section entry, repeated: {1 kind, 3 sub, 4 ?, 5 offset, 6 size, 7 physical core id}
 *
 * Section kinds decoded: 0/sub 0 instructions, 1/0 semaphores, 4/1 DMA; 2/0 (always empty) and 5/0 (kind-5
 * records, open) are known. Any other non-empty (kind, sub, field 4) is skipped and counted
 * (NTFF_PAYLOAD_STRICT: NL_ERR_FORMAT). Checks made here, each naming the entry's offset: a section or
 * stream beyond the end of the file (NL_ERR_TRUNCATED), a size not a multiple of 16 (sections) or 64
 * (streams), two non-empty sections or streams overlapping, a clock with nominal or measured 0
 * (NL_ERR_FORMAT), a clock term of NTFF_PAYLOAD_CLOCK_MAX or more (NL_ERR_LIMIT). */
#include "ntff_payload_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbwire.h"
#include "rdfile.h"

/* ---- reading ------------------------------------------------------------------------------------------ */

int np_read(const ntff_payload *p, void *buf, size_t n, uint64_t offset, nl_error *err)
{
    if (offset > p->file_size || n > p->file_size - offset)
        return nl_error_set(err, NL_ERR_TRUNCATED, p->source, (int64_t)p->file_size,
                            "file ends at byte %llu; %zu bytes at %llu needed", (unsigned long long)p->file_size,
                            n, (unsigned long long)offset);
    if (p->fd < 0) {
        memcpy(buf, p->mem + offset, n);
        return 0;
    }
    size_t got;
    if (rdfile_pread(p->fd, buf, n, offset, &got, p->source, err))
        return -1;
    if (got < n)
        return nl_error_set(err, NL_ERR_TRUNCATED, p->source, (int64_t)(offset + got),
                            "file ends at byte %llu (it shrank after it was opened)",
                            (unsigned long long)(offset + got));
    return 0;
}

const uint8_t *np_view(const ntff_payload *p, uint8_t *buf, size_t n, uint64_t offset, nl_error *err)
{
    if (p->fd < 0 && offset <= p->file_size && n <= p->file_size - offset)
        return p->mem + offset;
    return np_read(p, buf, n, offset, err) ? NULL : buf;
}

size_t np_chunk_bytes(const ntff_payload *p)
{
    size_t c = p->opt.chunk_bytes ? p->opt.chunk_bytes : NTFF_PAYLOAD_CHUNK;
    c &= ~(size_t)15;
    return c ? c : 16;
}

/* ---- small helpers ------------------------------------------------------------------------------------ */

static const char *const np_engine_names[NTFF_ENGINE_COUNT] = {"", "Tensor", "Scalar", "GpSimd", "Vector", "Sync"};

const char *ntff_engine_name(unsigned engine)
{
    return engine >= 1 && engine < NTFF_ENGINE_COUNT ? np_engine_names[engine] : "";
}

/* Clock subfield of an engine code: Tensor 1, Scalar 2, GpSimd 4, Vector 3, Sync 5 (ntff.md). */
static const unsigned np_clock_subfield[NTFF_ENGINE_COUNT] = {0, 1, 2, 4, 3, 5};

static int np_wire(const pbwire_field *f, pbwire_type want, const char *source, const char *what, nl_error *err)
{
    if (f->type == want)
        return 0;
    nl_error_set(err, NL_ERR_FORMAT, source, f->offset, "%s (field %u) has wire type %d, expected %d", what,
                 f->number, (int)f->type, (int)want);
    nl_error_set_field(err, what);
    return -1;
}

/* ---- per-core message --------------------------------------------------------------------------------- */

static int np_read_clock(const pbwire_reader *parent, const pbwire_field *f, ntff_payload_clock *c, nl_error *err)
{
    pbwire_reader r;
    pbwire_init_sub(&r, parent, f);
    *c = (ntff_payload_clock){.present = true, .entry_offset = f->offset};
    bool has_nominal = false, has_measured = false;
    while (!pbwire_done(&r)) {
        pbwire_field s;
        if (pbwire_next(&r, &s, err))
            return -1;
        if (s.number < 1 || s.number > 3)
            continue;
        if (np_wire(&s, PBWIRE_VARINT, r.source, "clock", err))
            return -1;
        if (s.number == 1)
            c->base = s.value;
        else if (s.number == 2)
            c->nominal = s.value, has_nominal = true;
        else
            c->measured = s.value, has_measured = true;
    }
    if (!has_nominal || !has_measured || c->nominal == 0 || c->measured == 0) {
        nl_error_set(err, NL_ERR_FORMAT, r.source, f->offset,
                     "clock subfield %u has ratio %llu/%llu: nominal and measured must both be present and nonzero",
                     f->number, (unsigned long long)c->measured, (unsigned long long)c->nominal);
        nl_error_set_field(err, "clock");
        return -1;
    }
    if (c->nominal >= NTFF_PAYLOAD_CLOCK_MAX || c->measured >= NTFF_PAYLOAD_CLOCK_MAX) {
        nl_error_set(err, NL_ERR_LIMIT, r.source, f->offset, "clock subfield %u ratio %llu/%llu: terms must be < %llu",
                     f->number, (unsigned long long)c->measured, (unsigned long long)c->nominal,
                     (unsigned long long)NTFF_PAYLOAD_CLOCK_MAX);
        nl_error_set_field(err, "clock");
        return -1;
    }
    return 0;
}

static int np_read_clock_table(const pbwire_reader *parent, const pbwire_field *f, np_core *c, nl_error *err)
{
    pbwire_reader r;
    pbwire_init_sub(&r, parent, f);
    while (!pbwire_done(&r)) {
        pbwire_field s;
        if (pbwire_next(&r, &s, err))
            return -1;
        if ((s.number < 1 || s.number > 6) && s.number != 8)
            continue; /* 7, 9: present, not used */
        if (np_wire(&s, PBWIRE_LEN, r.source, "clock", err))
            return -1;
        ntff_payload_clock clk;
        if (np_read_clock(&r, &s, &clk, err))
            return -1;
        if (s.number == 6) {
            c->pub.semaphore_clock = clk;
        } else if (s.number == 8) {
            if (c->pub.dma_clock_count >= NTFF_PAYLOAD_DMA_ENGINES_MAX) {
                nl_error_set(err, NL_ERR_LIMIT, r.source, s.offset, "more than %u DMA clocks (clock subfield 8)",
                             NTFF_PAYLOAD_DMA_ENGINES_MAX);
                return -1;
            }
            if (!c->dma_clock) {
                c->dma_clock = calloc(NTFF_PAYLOAD_DMA_ENGINES_MAX, sizeof *c->dma_clock);
                if (!c->dma_clock)
                    return nl_error_set(err, NL_ERR_NOMEM, r.source, -1, "DMA clock table");
                c->pub.dma_clock = c->dma_clock;
            }
            c->dma_clock[c->pub.dma_clock_count++] = clk;
        } else {
            for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
                if (np_clock_subfield[e] == s.number)
                    c->pub.engine_clock[e] = clk;
        }
    }
    return 0;
}

/* A section-table entry (v4/v5 core field 6, v6 field 16). *core_id gets field 7 (-1 when absent). */
static int np_read_section(const pbwire_reader *parent, const pbwire_field *f, ntff_payload_section *out,
                           int64_t *core_id, nl_error *err)
{
    pbwire_reader r;
    pbwire_init_sub(&r, parent, f);
    *out = (ntff_payload_section){.entry_offset = f->offset};
    *core_id = -1;
    while (!pbwire_done(&r)) {
        pbwire_field s;
        if (pbwire_next(&r, &s, err))
            return -1;
        if (s.number == 2 || s.number > 7)
            continue;
        if (np_wire(&s, PBWIRE_VARINT, r.source, "section", err))
            return -1;
        switch (s.number) {
        case 1: out->kind = s.value > UINT32_MAX ? UINT32_MAX : (uint32_t)s.value; break;
        case 3: out->sub = s.value > UINT32_MAX ? UINT32_MAX : (uint32_t)s.value; break;
        case 4: out->f4 = s.value > UINT32_MAX ? UINT32_MAX : (uint32_t)s.value; break;
        case 5: out->offset = s.value; break;
        case 6: out->size = s.value; break;
        default: *core_id = s.value > INT64_MAX ? INT64_MAX : (int64_t)s.value; break;
        }
    }
    out->decoded = out->f4 == 0 && ((out->kind == NTFF_SECTION_INSTRUCTIONS && out->sub == 0) ||
                                    (out->kind == NTFF_SECTION_SEMAPHORES && out->sub == 0) ||
                                    (out->kind == NTFF_SECTION_DMA && out->sub == 1) ||
                                    (out->kind == NTFF_SECTION_EMPTY2 && out->sub == 0) ||
                                    (out->kind == NTFF_SECTION_KIND5 && out->sub == 0));
    return 0;
}

static int np_add_section(np_core *c, const ntff_payload_section *s, const char *source, nl_error *err)
{
    if (c->pub.section_count >= NTFF_PAYLOAD_SECTIONS_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, source, s->entry_offset, "more than %u sections in one core",
                            NTFF_PAYLOAD_SECTIONS_MAX);
    size_t n = c->pub.section_count;
    if ((n & (n - 1)) == 0) { /* grow at 0, 1, 2, 4, ... */
        ntff_payload_section *g = realloc(c->sections, (n ? 2 * n : 1) * sizeof *g);
        if (!g)
            return nl_error_set(err, NL_ERR_NOMEM, source, -1, "section table");
        c->sections = g;
    }
    c->sections[c->pub.section_count++] = *s;
    c->pub.sections = c->sections;
    return 0;
}

/* Instruction stream entry (core field 4). Inline bytes (field 3) are located by their file offset. */
typedef struct np_stream_entry {
    uint64_t engine_index, address, off7, size8;
    bool has_bytes, has_off, has_size;
    int64_t bytes_offset;
    size_t bytes_len;
} np_stream_entry;

static int np_read_stream(const pbwire_reader *parent, const pbwire_field *f, np_core *c, const nl_ntff *hdr,
                          nl_error *err)
{
    pbwire_reader r;
    pbwire_init_sub(&r, parent, f);
    np_stream_entry e = {0};
    while (!pbwire_done(&r)) {
        pbwire_field s;
        if (pbwire_next(&r, &s, err))
            return -1;
        if (s.number == 3) {
            if (np_wire(&s, PBWIRE_LEN, r.source, "instruction_stream", err))
                return -1;
            e.has_bytes = true, e.bytes_offset = s.data_offset, e.bytes_len = s.len;
        } else if (s.number == 1 || s.number == 2 || s.number == 7 || s.number == 8) {
            if (np_wire(&s, PBWIRE_VARINT, r.source, "instruction_stream", err))
                return -1;
            if (s.number == 1)
                e.engine_index = s.value;
            else if (s.number == 2)
                e.address = s.value;
            else if (s.number == 7)
                e.off7 = s.value, e.has_off = true;
            else
                e.size8 = s.value, e.has_size = true;
        }
    }
    if (e.engine_index >= NTFF_ENGINE_COUNT - 1)
        return 0; /* an engine index ntff.md does not name: not used */
    ntff_payload_stream *st = &c->pub.stream[e.engine_index + 1];
    if (st->present) {
        nl_error_set(err, NL_ERR_FORMAT, r.source, f->offset, "core %s has two instruction streams for engine %s",
                     c->pub.name, ntff_engine_name((unsigned)e.engine_index + 1));
        nl_error_set_field(err, "instruction_stream");
        return -1;
    }
    uint64_t offset, size;
    if (e.has_bytes) {
        offset = (uint64_t)e.bytes_offset, size = e.bytes_len;
    } else if (e.has_off || e.has_size) {
        if (e.off7 > hdr->payload_bytes || e.size8 > hdr->payload_bytes - e.off7) {
            nl_error_set(err, NL_ERR_TRUNCATED, r.source, f->offset,
                         "instruction stream of engine %s claims payload bytes %llu..%llu; the payload has %llu",
                         ntff_engine_name((unsigned)e.engine_index + 1), (unsigned long long)e.off7,
                         (unsigned long long)(e.off7 + e.size8), (unsigned long long)hdr->payload_bytes);
            nl_error_set_field(err, "instruction_stream");
            return -1;
        }
        offset = hdr->payload_offset + e.off7, size = e.size8;
        st->in_payload = true;
    } else {
        offset = 0, size = 0;
    }
    if (size % 64 != 0 || size / 64 > NTFF_PAYLOAD_STREAM_SLOTS_MAX) {
        nl_error_set(err, size % 64 ? NL_ERR_FORMAT : NL_ERR_LIMIT, r.source, f->offset,
                     "instruction stream of engine %s has %llu bytes: %s",
                     ntff_engine_name((unsigned)e.engine_index + 1), (unsigned long long)size,
                     size % 64 ? "not whole 64-byte slots" : "more slots than NTFF_PAYLOAD_STREAM_SLOTS_MAX");
        nl_error_set_field(err, "instruction_stream");
        return -1;
    }
    st->present = true;
    st->entry_offset = f->offset;
    st->address = e.address;
    st->offset = offset;
    st->slots = (uint32_t)(size / 64);
    return 0;
}

static int np_read_core(const pbwire_reader *parent, const pbwire_field *f, np_core *c, const nl_ntff *hdr,
                        nl_error *err)
{
    pbwire_reader r;
    pbwire_init_sub(&r, parent, f);
    while (!pbwire_done(&r)) {
        pbwire_field s;
        if (pbwire_next(&r, &s, err))
            return -1;
        int rc = 0;
        switch (s.number) {
        case 1:
            if (np_wire(&s, PBWIRE_LEN, r.source, "core_name", err))
                return -1;
            if (s.len >= sizeof c->pub.name) {
                nl_error_set(err, NL_ERR_LIMIT, r.source, s.data_offset, "core name of %zu bytes (cap %zu)", s.len,
                             sizeof c->pub.name - 1);
                return -1;
            }
            memcpy(c->pub.name, s.data, s.len);
            c->pub.name[s.len] = '\0';
            break;
        case 3:
        case 14:
            if (np_wire(&s, PBWIRE_VARINT, r.source, s.number == 3 ? "core_id" : "core_f14", err))
                return -1;
            if (s.number == 3)
                c->pub.has_physical_id = true, c->pub.physical_id = s.value;
            else
                c->pub.has_f14 = true, c->pub.f14 = s.value;
            break;
        case 4:
            rc = np_wire(&s, PBWIRE_LEN, r.source, "instruction_stream", err) || np_read_stream(&r, &s, c, hdr, err);
            break;
        case 6:
            if (hdr->version >= 6)
                break; /* v6 keeps its section table at top-level field 16 */
            {
                ntff_payload_section sec;
                int64_t core_id;
                rc = np_wire(&s, PBWIRE_LEN, r.source, "section", err) ||
                     np_read_section(&r, &s, &sec, &core_id, err) || np_add_section(c, &sec, r.source, err);
            }
            break;
        case 10:
            rc = np_wire(&s, PBWIRE_LEN, r.source, "clock", err) || np_read_clock_table(&r, &s, c, err);
            break;
        default:
            break;
        }
        if (rc)
            return -1;
    }
    return 0;
}

/* ---- whole metadata ----------------------------------------------------------------------------------- */

static int np_add_core(ntff_payload *p, const pbwire_reader *r, const pbwire_field *f, nl_error *err)
{
    if (p->core_count >= NTFF_PAYLOAD_CORES_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, p->source, f->offset, "more than %u per-core messages",
                            NTFF_PAYLOAD_CORES_MAX);
    size_t n = p->core_count;
    if ((n & (n - 1)) == 0) { /* grow at 0, 1, 2, 4, ... */
        np_core *g = realloc(p->cores, (n ? 2 * n : 1) * sizeof *g);
        if (!g)
            return nl_error_set(err, NL_ERR_NOMEM, p->source, -1, "core table");
        p->cores = g;
    }
    memset(&p->cores[n], 0, sizeof p->cores[n]);
    p->core_count++;
    return np_read_core(r, f, &p->cores[n], p->hdr, err);
}

/* Top-level field 4 → field 4 → field 1 (ntff.md "Per-core message"). */
static int np_read_cores(ntff_payload *p, const pbwire_reader *top, const pbwire_field *f4, nl_error *err)
{
    pbwire_reader r4;
    pbwire_init_sub(&r4, top, f4);
    while (!pbwire_done(&r4)) {
        pbwire_field g;
        if (pbwire_next(&r4, &g, err))
            return -1;
        if (g.number != 4)
            continue;
        if (np_wire(&g, PBWIRE_LEN, r4.source, "core_list", err))
            return -1;
        pbwire_reader r44;
        pbwire_init_sub(&r44, &r4, &g);
        while (!pbwire_done(&r44)) {
            pbwire_field c;
            if (pbwire_next(&r44, &c, err))
                return -1;
            if (c.number == 1 && (np_wire(&c, PBWIRE_LEN, r44.source, "core", err) || np_add_core(p, &r44, &c, err)))
                return -1;
        }
    }
    return 0;
}

/* v6: a field-16 entry goes to the core whose field 3 equals the entry's field 7 (the only core when there
 * is one and the entry has no field 7). */
static int np_place_v6_section(ntff_payload *p, const pbwire_reader *top, const pbwire_field *f, nl_error *err)
{
    ntff_payload_section sec;
    int64_t core_id;
    if (np_wire(f, PBWIRE_LEN, p->source, "section", err) || np_read_section(top, f, &sec, &core_id, err))
        return -1;
    for (size_t i = 0; i < p->core_count; i++) {
        np_core *c = &p->cores[i];
        if ((core_id < 0 && p->core_count == 1) ||
            (core_id >= 0 && c->pub.has_physical_id && c->pub.physical_id == (uint64_t)core_id))
            return np_add_section(c, &sec, p->source, err);
    }
    if (sec.size == 0)
        return 0; /* an empty entry for no core holds nothing */
    nl_error_set(err, NL_ERR_FORMAT, p->source, f->offset,
                 "section entry (kind %u, %llu bytes) names core %lld, which no per-core message has", sec.kind,
                 (unsigned long long)sec.size, (long long)core_id);
    nl_error_set_field(err, "section");
    return -1;
}

static int np_read_metadata(ntff_payload *p, const uint8_t *meta, size_t len, nl_error *err)
{
    pbwire_reader r;
    pbwire_init(&r, meta, len, NL_NTFF_HEADER_BYTES, p->source);
    while (!pbwire_done(&r)) { /* cores first: v6 section entries refer to them */
        pbwire_field f;
        if (pbwire_next(&r, &f, err))
            return -1;
        if (f.number == 4 && (np_wire(&f, PBWIRE_LEN, p->source, "cores", err) || np_read_cores(p, &r, &f, err)))
            return -1;
    }
    if (p->hdr->version < 6)
        return 0;
    pbwire_init(&r, meta, len, NL_NTFF_HEADER_BYTES, p->source);
    while (!pbwire_done(&r)) {
        pbwire_field f;
        if (pbwire_next(&r, &f, err))
            return -1;
        if (f.number == 16 && np_place_v6_section(p, &r, &f, err))
            return -1;
    }
    return 0;
}

/* ---- checks across cores ------------------------------------------------------------------------------ */

typedef struct np_extent {
    uint64_t begin, end;       /* payload-relative */
    int64_t entry_offset;
    const char *what;
} np_extent;

static int np_extent_cmp(const void *a, const void *b)
{
    const np_extent *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->entry_offset < y->entry_offset ? -1 : x->entry_offset > y->entry_offset;
}

static int np_check_section(const ntff_payload *p, const ntff_payload_section *s, nl_error *err)
{
    uint64_t payload = p->hdr->payload_bytes;
    if (s->offset > payload || s->size > payload - s->offset) {
        nl_error_set(err, NL_ERR_TRUNCATED, p->source, s->entry_offset,
                     "section (kind %u) claims payload bytes %llu..%llu, the payload has %llu (file ends at %llu)",
                     s->kind, (unsigned long long)s->offset, (unsigned long long)(s->offset + s->size),
                     (unsigned long long)payload, (unsigned long long)p->file_size);
        nl_error_set_field(err, "section");
        return -1;
    }
    if (s->size % 16 != 0) {
        nl_error_set(err, NL_ERR_FORMAT, p->source, s->entry_offset,
                     "section (kind %u) has %llu bytes, not a whole number of 16-byte records", s->kind,
                     (unsigned long long)s->size);
        nl_error_set_field(err, "section");
        return -1;
    }
    return 0;
}

/* Every section inside the payload; no two non-empty sections or v6 instruction streams share a byte. */
static int np_check_layout(ntff_payload *p, nl_error *err)
{
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < p->core_count; i++)
        cap += p->cores[i].pub.section_count + NTFF_ENGINE_COUNT;
    np_extent *x = cap ? malloc(cap * sizeof *x) : NULL;
    if (cap && !x)
        return nl_error_set(err, NL_ERR_NOMEM, p->source, -1, "layout check");
    for (size_t i = 0; i < p->core_count; i++) {
        const np_core *c = &p->cores[i];
        for (size_t k = 0; k < c->pub.section_count; k++) {
            const ntff_payload_section *s = &c->sections[k];
            if (np_check_section(p, s, err)) {
                free(x);
                return -1;
            }
            if (s->size)
                x[n++] = (np_extent){s->offset, s->offset + s->size, s->entry_offset, "section"};
        }
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++) {
            const ntff_payload_stream *st = &c->pub.stream[e];
            if (st->present && st->in_payload && st->slots)
                x[n++] = (np_extent){st->offset - p->hdr->payload_offset,
                                     st->offset - p->hdr->payload_offset + (uint64_t)st->slots * 64,
                                     st->entry_offset, "instruction stream"};
        }
    }
    if (n > 1)
        qsort(x, n, sizeof *x, np_extent_cmp);
    for (size_t i = 1, far = 0; i < n; i++) { /* far: the extent reaching furthest so far */
        if (x[i].begin < x[far].end) {
            nl_error_set(err, NL_ERR_FORMAT, p->source, x[i].entry_offset,
                         "%s at payload bytes %llu..%llu overlaps the %s at %llu..%llu", x[i].what,
                         (unsigned long long)x[i].begin, (unsigned long long)x[i].end, x[far].what,
                         (unsigned long long)x[far].begin, (unsigned long long)x[far].end);
            nl_error_set_field(err, "section");
            free(x);
            return -1;
        }
        if (x[i].end > x[far].end)
            far = i;
    }
    free(x);
    return 0;
}

/* ---- instruction slots -------------------------------------------------------------------------------- */

static int np_load_slots(ntff_payload *p, np_core *c, unsigned e, nl_error *err)
{
    const ntff_payload_stream *st = &c->pub.stream[e];
    for (int a = 0; a < 256; a++) {
        c->pc_of_byte[e][a] = NP_PC_NONE;
        c->opcode_of_byte[e][a] = NP_OPCODE_NO_SLOT;
    }
    if (!st->present || st->slots == 0)
        return 0;
    c->slot_opcode[e] = malloc(st->slots);
    if (!c->slot_opcode[e])
        return nl_error_set(err, NL_ERR_NOMEM, p->source, -1, "opcode array of %u slots", st->slots);
    size_t chunk_slots = np_chunk_bytes(p) / 64 ? np_chunk_bytes(p) / 64 : 1;
    uint8_t *buf = p->fd >= 0 ? malloc(chunk_slots * 64) : NULL;
    if (p->fd >= 0 && !buf)
        return nl_error_set(err, NL_ERR_NOMEM, p->source, -1, "slot buffer");
    for (uint32_t s = 0; s < st->slots;) {
        size_t k = st->slots - s < chunk_slots ? st->slots - s : chunk_slots;
        const uint8_t *v = np_view(p, buf, k * 64, st->offset + (uint64_t)s * 64, err);
        if (!v) {
            free(buf);
            return -1;
        }
        for (size_t i = 0; i < k; i++)
            c->slot_opcode[e][s + i] = v[64 * i];
        s += (uint32_t)k;
    }
    free(buf);
    for (uint32_t s = 0; s < st->slots; s++) {
        unsigned a = s & 0xff;
        int16_t *op = &c->opcode_of_byte[e][a];
        if (*op == NP_OPCODE_NO_SLOT)
            *op = c->slot_opcode[e][s];
        else if (*op != c->slot_opcode[e][s])
            *op = NP_OPCODE_AMBIGUOUS;
        /* the only candidate: no other slot below the count has this byte */
        c->pc_of_byte[e][a] = s < 256 && s + 256 >= st->slots ? (int32_t)s : NP_PC_NONE;
    }
    return 0;
}

/* ---- trust -------------------------------------------------------------------------------------------- */

static const char np_label_verified[] =
    "verified: NTFF v5 on inf2 is the combination whose decode reproduces neuron-profile's JSON export "
    "(instructions and DMA packets, ntff.md)";
static const char np_label_unverified[] =
    "unverified: decoded by the NTFF v5/inf2 layout; no export of this NTFF version and architecture exists to "
    "check the conversion against";

void ntff_payload_trust_of_header(uint8_t ntff_version, const char *instance_type, ntff_payload_trust *t)
{
    memset(t, 0, sizeof *t);
    if (!instance_type)
        instance_type = "";
    t->ntff_version = ntff_version;
    snprintf(t->instance_type, sizeof t->instance_type, "%s", instance_type);
    size_t k = strcspn(instance_type, ".");
    if (k < sizeof t->architecture) {
        memcpy(t->architecture, instance_type, k);
        t->architecture[k] = '\0';
    }
    bool inf2 = strcmp(t->architecture, "inf2") == 0, trn1 = strcmp(t->architecture, "trn1") == 0;
    t->level = t->ntff_version == 5 && inf2 ? NTFF_TRUST_VERIFIED : NTFF_TRUST_UNVERIFIED;
    t->label = t->level == NTFF_TRUST_VERIFIED ? np_label_verified : np_label_unverified;
    /* The opcode table was learned on inf2 (NeuronCore-v2, which trn1 shares); trn2 is another generation. */
    t->opcode_names = inf2 || trn1;
}

static void np_set_trust(ntff_payload *p)
{
    ntff_payload_trust *t = &p->trust;
    ntff_payload_trust_of_header(p->hdr->version, p->hdr->instance_type, t);
    /* The wait is in 1.4 GHz cycles; files whose engine clocks are all the identity (trn2) give no such
     * clock, and there w >> 16 exceeds the gap before most instructions, so it is not taken as a wait. */
    t->evt_wait = false;
    for (size_t i = 0; i < p->core_count; i++)
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++) {
            const ntff_payload_clock *c = &p->cores[i].pub.engine_clock[e];
            if (c->present && (c->base != 0 || c->nominal != c->measured))
                t->evt_wait = true;
        }
}

/* ---- open --------------------------------------------------------------------------------------------- */

static ntff_payload *np_new(const char *source, const ntff_payload_options *opt)
{
    ntff_payload *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->source = strdup(source ? source : "");
    if (!p->source) {
        free(p);
        return NULL;
    }
    p->fd = -1;
    if (opt)
        p->opt = *opt;
    return p;
}

static int np_build(ntff_payload *p, nl_error *err)
{
    uint8_t head[NL_NTFF_HEADER_BYTES];
    size_t headn = p->file_size < sizeof head ? (size_t)p->file_size : sizeof head;
    if (np_read(p, head, headn, 0, err) || nl_ntff_check_prefix(head, headn, p->file_size, p->source, err))
        return -1;
    if (head[0] < NL_NTFF_PAYLOAD_VERSION_MIN || head[0] > NL_NTFF_PAYLOAD_VERSION_MAX)
        return nl_error_set(err, NL_ERR_UNSUPPORTED, p->source, 0,
                            "NTFF version %u: the payload decoder reads versions %d to %d", head[0],
                            NL_NTFF_PAYLOAD_VERSION_MIN, NL_NTFF_PAYLOAD_VERSION_MAX);
    size_t need = NL_NTFF_HEADER_BYTES + ((size_t)head[1] | (size_t)head[2] << 8 | (size_t)head[3] << 16);
    uint8_t *meta = malloc(need);
    if (!meta)
        return nl_error_set(err, NL_ERR_NOMEM, p->source, -1, "metadata buffer of %zu bytes", need);
    int rc = -1;
    if (np_read(p, meta, need, 0, err))
        goto out;
    p->hdr = nl_ntff_parse(meta, need, p->file_size, p->source, err);
    if (!p->hdr || np_read_metadata(p, meta + NL_NTFF_HEADER_BYTES, need - NL_NTFF_HEADER_BYTES, err) ||
        np_check_layout(p, err))
        goto out;
    for (size_t i = 0; i < p->core_count; i++)
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
            if (np_load_slots(p, &p->cores[i], e, err))
                goto out;
    np_set_trust(p);
    rc = 0;
out:
    free(meta);
    return rc;
}

ntff_payload *ntff_payload_open(const char *path, const ntff_payload_options *opt, nl_error *err)
{
    ntff_payload *p = np_new(path, opt);
    if (!p) {
        nl_error_set(err, NL_ERR_NOMEM, path, -1, "NTFF payload handle");
        return NULL;
    }
    if (rdfile_open(path, &p->fd, &p->file_size, err) || np_build(p, err)) {
        ntff_payload_free(p);
        return NULL;
    }
    return p;
}

ntff_payload *ntff_payload_open_mem(const uint8_t *buf, size_t len, const char *source,
                                    const ntff_payload_options *opt, nl_error *err)
{
    ntff_payload *p = np_new(source, opt);
    if (!p) {
        nl_error_set(err, NL_ERR_NOMEM, source, -1, "NTFF payload handle");
        return NULL;
    }
    p->mem = buf;
    p->file_size = len;
    if (np_build(p, err)) {
        ntff_payload_free(p);
        return NULL;
    }
    return p;
}

void ntff_payload_free(ntff_payload *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->core_count; i++) {
        free(p->cores[i].sections);
        free(p->cores[i].dma_clock);
        for (unsigned e = 0; e < NTFF_ENGINE_COUNT; e++)
            free(p->cores[i].slot_opcode[e]);
    }
    free(p->cores);
    nl_ntff_free(p->hdr);
    if (p->fd >= 0)
        close(p->fd);
    free(p->source);
    free(p);
}

/* ---- accessors ---------------------------------------------------------------------------------------- */

const nl_ntff *ntff_payload_header(const ntff_payload *p)
{
    return p->hdr;
}

size_t ntff_payload_core_count(const ntff_payload *p)
{
    return p->core_count;
}

const ntff_payload_core *ntff_payload_core_at(const ntff_payload *p, size_t core)
{
    return core < p->core_count ? &p->cores[core].pub : NULL;
}

void ntff_payload_trust_get(const ntff_payload *p, ntff_payload_trust *out)
{
    *out = p->trust;
}

int ntff_payload_slot_opcode(const ntff_payload *p, size_t core, unsigned engine, uint32_t slot)
{
    if (core >= p->core_count || engine < 1 || engine >= NTFF_ENGINE_COUNT)
        return -1;
    const np_core *c = &p->cores[core];
    return slot < c->pub.stream[engine].slots ? c->slot_opcode[engine][slot] : -1;
}

int ntff_payload_read_slots(const ntff_payload *p, size_t core, unsigned engine, uint32_t slot, uint32_t n,
                            uint8_t *buf, nl_error *err)
{
    if (core >= p->core_count || engine < 1 || engine >= NTFF_ENGINE_COUNT)
        return nl_error_set(err, NL_ERR_ARGUMENT, p->source, -1, "no core %zu / engine %u", core, engine);
    const ntff_payload_stream *st = &p->cores[core].pub.stream[engine];
    if (slot > st->slots || n > st->slots - slot)
        return nl_error_set(err, NL_ERR_ARGUMENT, p->source, -1, "slots %u..%u beyond the %u slots of engine %s",
                            slot, slot + n, st->slots, ntff_engine_name(engine));
    return np_read(p, buf, (size_t)n * 64, st->offset + (uint64_t)slot * 64, err);
}
