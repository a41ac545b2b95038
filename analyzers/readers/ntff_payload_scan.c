/* ntff_payload_scan — the records of an NTFF payload: the origin pass and the per-kind section scans
 * (ntff.md "Records" and "Conversion"; the layout is in ntff_payload.c).
 *
 * Record (16 bytes, little-endian):  u8 a | u8 b | u8 c | u8 d | u32 w | u64 ts
 *
 *   kind 0 (instructions)  d = 0x80 | engine << 2 | is_end, engine 1 Tensor, 2 Scalar, 3 GpSimd, 4 Vector,
 *                          5 Sync; a = pc & 0xff; b = stream id (start-up program, then main program);
 *                          c = flags, 0x20 on the last start-up instruction; start: w >> 16 = event-wait
 *                          cycles at 1.4 GHz. Start and end pair per (engine, b, a). ts on the engine's clock.
 *   kind 1 (semaphores)    d & 3 == 3 (and d & 0x80); a = semaphore index; w = value; ts on clock 6.
 *   kind 4 (DMA)           d = 0x80 | dma engine; w & 0xff = queue << 4 | type: 1 start, 5 data (bytes 0..1 =
 *                          u16 transfer size, w >> 16 = CRC), 6 not understood (counted). Starts and data
 *                          records pair per (engine, queue) in order. ts on that DMA engine's clock (clock 8).
 *   kind 5                 counted only.
 * Any other bit pattern is skipped and counted, or NL_ERR_FORMAT at its offset with NTFF_PAYLOAD_STRICT.
 * An end (or data record) with no open start is always NL_ERR_FORMAT ("more ends than starts").
 *
 * Time: ns = (ts - base) × measured / (nominal × 1000) exactly, as q + r/denom (64-bit fast path, 128-bit
 * otherwise); every exported value is a floor of a difference of such times (ntff.md), computed without
 * rounding. evt_wait = floor(cycles / 1.4) = cycles × 5 / 7.
 *
 * Memory: one chunk buffer (NTFF_PAYLOAD_CHUNK) per scan, the instruction pairing table (256 pc bytes per
 * (engine, stream) seen: at most 5 × 256 blocks of 6 KiB) and per (DMA engine, queue) a ring of at most
 * NTFF_PAIR_DMA_PENDING_MAX pending starts (NL_ERR_LIMIT beyond). Nothing grows with the file. */
#include "ntff_payload_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef __SIZEOF_INT128__
#error "ntff_payload_scan needs a compiler with 128-bit integers (gcc, clang)"
#endif

/* ---- exact time --------------------------------------------------------------------------------------- */

/* A clock prepared for conversions: floor division by denom = nominal × 1000 through a 64-bit reciprocal
 * (one multiply, at most one correction), since a division per timestamp is most of a scan's time. */
typedef struct np_fclock {
    uint64_t base, measured, denom, inv; /* inv = (2^64 - 1) / denom */
    const ntff_payload_clock *src;
} np_fclock;

static void np_fclock_init(np_fclock *f, const ntff_payload_clock *c)
{
    f->src = c;
    f->base = c->base;
    f->measured = c->measured;
    f->denom = c->nominal * 1000; /* nominal < 2^31 (checked at open) */
    f->inv = f->denom ? UINT64_MAX / f->denom : 0;
}

static int np_time_slow(const np_fclock *f, uint64_t ts, ntff_time *out, const char *source, int64_t offset,
                        nl_error *err)
{
    __int128 num = ((__int128)ts - (__int128)f->base) * (__int128)f->measured; /* |.| < 2^95 */
    __int128 q = num / (__int128)f->denom, r = num % (__int128)f->denom;
    if (r < 0)
        r += f->denom, q -= 1;
    if (q > INT64_MAX || q < INT64_MIN)
        return nl_error_set(err, NL_ERR_FORMAT, source, offset,
                            "timestamp %llu is out of range on its clock (base %llu, ratio %llu/%llu)",
                            (unsigned long long)ts, (unsigned long long)f->base, (unsigned long long)f->measured,
                            (unsigned long long)f->src->nominal);
    out->q = (int64_t)q;
    out->r = (uint64_t)r;
    return 0;
}

/* Exact time of raw `ts`: q + r / denom ns with 0 <= r < denom. */
static inline int np_time(const np_fclock *f, uint64_t ts, ntff_time *out, const char *source, int64_t offset,
                          nl_error *err)
{
    out->denom = f->denom;
    uint64_t num;
    if (__builtin_expect(ts >= f->base && !__builtin_mul_overflow(ts - f->base, f->measured, &num), 1)) {
        /* num/denom - q < 2 (inv underestimates 2^64/denom by less than 1): one correction at most */
        uint64_t q = (uint64_t)(((unsigned __int128)num * f->inv) >> 64), r = num - q * f->denom;
        if (r >= f->denom)
            q++, r -= f->denom;
        out->q = (int64_t)q; /* < 2^64 / 1000 */
        out->r = r;
        return 0;
    }
    return np_time_slow(f, ts, out, source, offset, err);
}

static int np_time_of(const ntff_payload_clock *c, uint64_t ts, ntff_time *out, const char *source, int64_t offset,
                      nl_error *err)
{
    np_fclock f;
    np_fclock_init(&f, c);
    return np_time(&f, ts, out, source, offset, err);
}

/* Sign of a.r/a.denom - b.r/b.denom (both in [0, 1)). */
static inline int np_frac_cmp(const ntff_time *a, const ntff_time *b)
{
    if (a->denom == b->denom)
        return a->r < b->r ? -1 : a->r > b->r;
    unsigned __int128 x = (unsigned __int128)a->r * b->denom, y = (unsigned __int128)b->r * a->denom;
    return x < y ? -1 : x > y;
}

/* floor(a - b); -1 on int64 overflow. */
static inline int np_time_floor_diff(const ntff_time *a, const ntff_time *b, int64_t *out)
{
    int64_t q;
    if (__builtin_sub_overflow(a->q, b->q, &q))
        return -1;
    if (np_frac_cmp(a, b) < 0 && __builtin_sub_overflow(q, 1, &q))
        return -1;
    *out = q;
    return 0;
}

static int np_time_cmp(const ntff_time *a, const ntff_time *b)
{
    if (a->q != b->q)
        return a->q < b->q ? -1 : 1;
    return np_frac_cmp(a, b);
}

/* ---- record access ------------------------------------------------------------------------------------ */

static inline uint32_t np_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t np_le64(const uint8_t *p)
{
    return (uint64_t)np_le32(p) | (uint64_t)np_le32(p + 4) << 32;
}

typedef struct np_rec {
    uint8_t a, b, c, d;
    uint32_t w;
    uint64_t ts;
    uint64_t off; /* absolute file offset */
} np_rec;

static inline void np_rec_get(const uint8_t *r, uint64_t off, np_rec *out)
{
    out->a = r[0], out->b = r[1], out->c = r[2], out->d = r[3];
    out->w = np_le32(r + 4);
    out->ts = np_le64(r + 8);
    out->off = off;
}

static inline bool np_instr_pattern(uint8_t d)
{
    unsigned e = (d >> 2) & 0x1f;
    return (d & 0x82) == 0x80 && e >= 1 && e < NTFF_ENGINE_COUNT;
}

/* ---- walking the sections of one kind ----------------------------------------------------------------- */

typedef int (*np_chunk_fn)(void *ctx, const uint8_t *recs, size_t n, uint64_t offset, nl_error *err);

/* Feed every record of the core's sections of `kind` to fn, chunk by chunk, in table order. A non-empty
 * section of an unknown kind/sub/f4 is counted in *skipped_sections (an error when strict). fn returns 1
 * to stop early (success). */
static int np_walk(const ntff_payload *p, size_t core, ntff_section_kind kind, np_chunk_fn fn, void *ctx,
                   uint64_t *skipped_sections, nl_error *err)
{
    const np_core *c = &p->cores[core];
    size_t chunk = np_chunk_bytes(p);
    uint8_t *buf = NULL;
    int rc = 0;
    for (size_t i = 0; i < c->pub.section_count && rc == 0; i++) {
        const ntff_payload_section *s = &c->sections[i];
        if (!s->decoded) {
            if (s->size && kind == NTFF_SECTION_INSTRUCTIONS && skipped_sections) {
                /* counted once per core, by the instruction scan */
                if (p->opt.flags & NTFF_PAYLOAD_STRICT) {
                    nl_error_set(err, NL_ERR_FORMAT, p->source, s->entry_offset,
                                 "section of unknown kind %u (sub %u, field 4 %u) holds %llu bytes", s->kind, s->sub,
                                 s->f4, (unsigned long long)s->size);
                    nl_error_set_field(err, "section");
                    rc = -1;
                }
                (*skipped_sections)++;
            }
            continue;
        }
        if (s->kind != (uint32_t)kind || s->size == 0)
            continue;
        if (!buf && p->fd >= 0 && !(buf = malloc(chunk))) {
            rc = nl_error_set(err, NL_ERR_NOMEM, p->source, -1, "scan buffer of %zu bytes", chunk);
            break;
        }
        uint64_t base = p->hdr->payload_offset + s->offset;
        for (uint64_t done = 0; done < s->size && rc == 0;) {
            if (p->opt.cancel && atomic_load(p->opt.cancel)) {
                rc = nl_error_set(err, NL_ERR_CANCELLED, p->source, (int64_t)(base + done), "cancelled");
                break;
            }
            size_t n = s->size - done < chunk ? (size_t)(s->size - done) : chunk;
            const uint8_t *v = np_view(p, buf, n, base + done, err);
            rc = v ? fn(ctx, v, n / 16, base + done, err) : -1;
            done += n;
        }
    }
    free(buf);
    return rc < 0 ? -1 : 0;
}

static int np_skip_record(const ntff_payload *p, ntff_scan_stats *st, const np_rec *r, const char *kind,
                          nl_error *err)
{
    if (p->opt.flags & NTFF_PAYLOAD_STRICT) {
        nl_error_set(err, NL_ERR_FORMAT, p->source, (int64_t)r->off,
                     "%s record with bytes a=%02x b=%02x c=%02x d=%02x w=%08x is outside the known bit patterns", kind,
                     r->a, r->b, r->c, r->d, r->w);
        nl_error_set_field(err, "record");
        return -1;
    }
    if (st->skipped++ == 0)
        st->first_skipped_offset = (int64_t)r->off;
    return 0;
}

static int np_missing_clock(const ntff_payload *p, const char *what, const np_rec *r, nl_error *err)
{
    nl_error_set(err, NL_ERR_FORMAT, p->source, (int64_t)r->off, "no clock for %s in the core's clock table (field 10)",
                 what);
    nl_error_set_field(err, "clock");
    return -1;
}

/* ---- origin ------------------------------------------------------------------------------------------- */

typedef struct np_origin_eng {
    bool seen, too_many, marker, started, resolved, has_start;
    unsigned nstreams, marker_stream_index;
    uint8_t streams[2], main, g_pc;
    uint64_t g_end_ts, g_end_off;
    uint64_t min_start_ts, min_start_off; /* FIRST_START pass */
} np_origin_eng;

typedef struct np_origin_ctx {
    np_origin_eng eng[NTFF_ENGINE_COUNT];
    unsigned resolved;
    bool first_start_pass;
} np_origin_ctx;

/* Per engine: note the streams in order of appearance; the first record flagged 0x20 names the main stream;
 * the first start on it after that record is the instruction whose end is the engine's candidate for G. */
static bool np_origin_record(np_origin_eng *g, const np_rec *r)
{
    bool end = r->d & 1;
    g->seen = true;
    unsigned k = 0;
    while (k < g->nstreams && g->streams[k] != r->b)
        k++;
    if (k == g->nstreams) {
        if (g->nstreams < 2)
            g->streams[g->nstreams++] = r->b;
        else
            g->too_many = true;
    }
    if (!g->marker) {
        if (r->c & 0x20)
            g->marker = true, g->main = r->b, g->marker_stream_index = k;
    } else if (!g->started) {
        if (!end && r->b == g->main)
            g->started = true, g->g_pc = r->a;
    } else if (!g->resolved && end && r->b == g->main && r->a == g->g_pc) {
        g->resolved = true, g->g_end_ts = r->ts, g->g_end_off = r->off;
        return true;
    }
    return false;
}

static int np_origin_chunk(void *vctx, const uint8_t *recs, size_t n, uint64_t offset, nl_error *err)
{
    (void)err;
    np_origin_ctx *o = vctx;
    for (size_t i = 0; i < n; i++) {
        np_rec r;
        np_rec_get(recs + 16 * i, offset + 16 * i, &r);
        if (!np_instr_pattern(r.d))
            continue; /* counted by the instruction scan */
        np_origin_eng *g = &o->eng[(r.d >> 2) & 0x1f];
        if (o->first_start_pass) {
            if (!(r.d & 1) && (!g->has_start || r.ts < g->min_start_ts))
                g->has_start = true, g->min_start_ts = r.ts, g->min_start_off = r.off;
        } else if (np_origin_record(g, &r) && ++o->resolved == NTFF_ENGINE_COUNT - 1) {
            return 1; /* every engine's G is known: the rest of the section cannot change it */
        }
    }
    return 0;
}

/* Does the export rule apply? Fills out->why when it does not. */
static bool np_rule_applies(const np_origin_ctx *o, ntff_origin *out)
{
    bool any = false;
    for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++) {
        const np_origin_eng *g = &o->eng[e];
        if (!g->seen)
            continue;
        any = true;
        const char *name = ntff_engine_name(e);
        if (!g->marker)
            snprintf(out->why, sizeof out->why, "engine %s has no 0x20 start-up marker", name);
        else if (g->marker_stream_index != 1 || g->too_many)
            snprintf(out->why, sizeof out->why,
                     "engine %s: the marker is not in the second of exactly two streams (start-up, main)", name);
        else if (!g->resolved)
            snprintf(out->why, sizeof out->why, "engine %s has no finished main-stream instruction after the marker",
                     name);
        else
            continue;
        return false;
    }
    if (!any)
        snprintf(out->why, sizeof out->why, "no instruction records");
    return any;
}

int ntff_payload_origin(const ntff_payload *p, size_t core, ntff_origin *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    out->g.denom = 1;
    if (core >= p->core_count)
        return nl_error_set(err, NL_ERR_ARGUMENT, p->source, -1, "no core %zu (the file has %zu)", core,
                            p->core_count);
    const np_core *c = &p->cores[core];
    np_origin_ctx *o = calloc(1, sizeof *o);
    if (!o)
        return nl_error_set(err, NL_ERR_NOMEM, p->source, -1, "origin state");
    int rc = np_walk(p, core, NTFF_SECTION_INSTRUCTIONS, np_origin_chunk, o, NULL, err);
    if (rc == 0 && np_rule_applies(o, out)) {
        out->rule = NTFF_ORIGIN_EXPORT_G;
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT && rc == 0; e++) {
            const np_origin_eng *g = &o->eng[e];
            if (!g->seen)
                continue;
            out->main_stream[e] = g->main;
            np_rec r = {.off = g->g_end_off};
            ntff_time t = {0};
            if (!c->pub.engine_clock[e].present)
                rc = np_missing_clock(p, ntff_engine_name(e), &r, err);
            else if ((rc = np_time_of(&c->pub.engine_clock[e], g->g_end_ts, &t, p->source, (int64_t)r.off, err)) == 0 &&
                     (out->engine == 0 || np_time_cmp(&t, &out->g) > 0))
                out->g = t, out->engine = e;
        }
    } else if (rc == 0 && strcmp(out->why, "no instruction records") == 0) {
        out->rule = NTFF_ORIGIN_NONE;
    } else if (rc == 0) {
        out->rule = NTFF_ORIGIN_FIRST_START;
        memset(o->eng, 0, sizeof o->eng);
        o->first_start_pass = true;
        rc = np_walk(p, core, NTFF_SECTION_INSTRUCTIONS, np_origin_chunk, o, NULL, err);
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT && rc == 0; e++) {
            const np_origin_eng *g = &o->eng[e];
            if (!g->has_start)
                continue;
            np_rec r = {.off = g->min_start_off};
            ntff_time t = {0};
            if (!c->pub.engine_clock[e].present)
                rc = np_missing_clock(p, ntff_engine_name(e), &r, err);
            else if ((rc = np_time_of(&c->pub.engine_clock[e], g->min_start_ts, &t, p->source, (int64_t)r.off,
                                      err)) == 0 &&
                     (out->engine == 0 || np_time_cmp(&t, &out->g) < 0))
                out->g = t, out->engine = e;
        }
    }
    free(o);
    return rc ? -1 : 0;
}

/* ---- scans -------------------------------------------------------------------------------------------- */

/* One open start per (engine, stream, pc byte). */
typedef struct np_open {
    uint64_t ts, off;
    uint32_t w;
    uint8_t c, open;
} np_open;

/* Pairing state: one block of 256 pc bytes per (engine, stream), allocated when the stream first appears. */
#define NP_PAIR_BLOCKS ((size_t)(NTFF_ENGINE_COUNT - 1) << 8)

typedef struct np_dma_queue {
    uint64_t *ts, *off;
    uint32_t head, count, cap;
} np_dma_queue;

typedef struct np_scan {
    const ntff_payload *p;
    const np_core *core;
    const ntff_origin *origin;
    const ntff_payload_visitor *v;
    void *ctx;
    ntff_scan_stats *st;
    bool evt_wait;
    np_open **pairs;          /* instructions: NP_PAIR_BLOCKS blocks of 256 */
    uint64_t open_count;
    np_dma_queue **queues;    /* DMA: per engine (NTFF_PAYLOAD_DMA_ENGINES_MAX) 16 queues, allocated when seen */
    np_fclock engine_clock[NTFF_ENGINE_COUNT], semaphore_clock;
    np_fclock *dma_clock;     /* one per DMA clock of the core */
} np_scan;

static int np_stop(const np_scan *s, uint64_t off, nl_error *err)
{
    return nl_error_set(err, NL_ERR_CANCELLED, s->p->source, (int64_t)off, "the row visitor stopped the scan");
}

static int np_emit_instr(np_scan *s, unsigned e, const np_open *o, const np_rec *end, uint8_t a, nl_error *err)
{
    const np_fclock *clk = &s->engine_clock[e];
    ntff_time ts = {0}, te = {0}; /* zeroed: gcc -O3 cannot see np_time_slow sets them on success */
    if (np_time(clk, o->ts, &ts, s->p->source, (int64_t)o->off, err) ||
        np_time(clk, end->ts, &te, s->p->source, (int64_t)end->off, err))
        return -1;
    ntff_instr_row row;
    if (np_time_floor_diff(&ts, &s->origin->g, &row.timestamp_ns) ||
        np_time_floor_diff(&te, &ts, &row.duration_ns) || np_time_floor_diff(&te, &s->origin->g, &row.end_ns))
        return nl_error_set(err, NL_ERR_FORMAT, s->p->source, (int64_t)end->off, "instruction time out of range");
    if (row.timestamp_ns < 0) {
        s->st->instr_before_origin++;
        return 0;
    }
    row.evt_wait_ns = s->evt_wait ? (int64_t)(o->w >> 16) * 5 / 7 : -1;
    row.engine = e;
    row.pc_byte = a;
    row.pc = s->core->pc_of_byte[e][a];
    int op = s->core->opcode_of_byte[e][a];
    row.opcode = op >= 0 ? op : NTFF_OPCODE_NONE;
    if (op == NP_OPCODE_AMBIGUOUS)
        s->st->opcode_ambiguous++;
    else if (op == NP_OPCODE_NO_SLOT)
        s->st->opcode_no_slot++;
    row.stream = end->b;
    row.flags = o->c;
    row.start_offset = o->off;
    s->st->instr_visible++;
    s->st->instr_per_engine[e]++;
    if (row.end_ns > s->st->last_end_ns)
        s->st->last_end_ns = row.end_ns;
    if (s->v && s->v->instruction && s->v->instruction(s->ctx, &row))
        return np_stop(s, end->off, err);
    return 0;
}

static int np_instr_chunk(void *vctx, const uint8_t *recs, size_t n, uint64_t offset, nl_error *err)
{
    np_scan *s = vctx;
    s->st->records += n;
    bool export_rule = s->origin->rule == NTFF_ORIGIN_EXPORT_G;
    for (size_t i = 0; i < n; i++) {
        np_rec r;
        np_rec_get(recs + 16 * i, offset + 16 * i, &r);
        if (!np_instr_pattern(r.d)) {
            if (np_skip_record(s->p, s->st, &r, "instruction", err))
                return -1;
            continue;
        }
        unsigned e = (r.d >> 2) & 0x1f;
        np_open **block = &s->pairs[(size_t)(e - 1) << 8 | r.b];
        if (!*block && !(*block = calloc(256, sizeof **block)))
            return nl_error_set(err, NL_ERR_NOMEM, s->p->source, -1, "instruction pairing block");
        np_open *o = &(*block)[r.a];
        if (!(r.d & 1)) {
            if (o->open)
                s->st->instr_unended++; /* started again before it ended */
            else
                s->open_count++;
            *o = (np_open){.ts = r.ts, .off = r.off, .w = r.w, .c = r.c, .open = 1};
            continue;
        }
        if (!o->open) {
            nl_error_set(err, NL_ERR_FORMAT, s->p->source, (int64_t)r.off,
                         "more ends than starts: end of %s pc byte %u (stream %u) with no open start",
                         ntff_engine_name(e), r.a, r.b);
            nl_error_set_field(err, "record");
            return -1;
        }
        o->open = 0;
        s->open_count--;
        s->st->instr_pairs++;
        if (!s->core->pub.engine_clock[e].present)
            return np_missing_clock(s->p, ntff_engine_name(e), &r, err);
        if (s->origin->rule == NTFF_ORIGIN_NONE) {
            s->st->instr_before_origin++;
        } else if (export_rule && r.b != s->origin->main_stream[e]) {
            s->st->instr_other_stream++;
        } else if (np_emit_instr(s, e, o, &r, r.a, err)) {
            return -1;
        }
    }
    return 0;
}

static int np_dma_push(np_scan *s, np_dma_queue *q, const np_rec *r, nl_error *err)
{
    if (q->count == q->cap) {
        if (q->cap >= NTFF_PAIR_DMA_PENDING_MAX) {
            nl_error_set(err, NL_ERR_LIMIT, s->p->source, (int64_t)r->off,
                         "more than %u DMA starts pending on engine %u queue %u", NTFF_PAIR_DMA_PENDING_MAX,
                         r->d & 0x7f, (r->w >> 4) & 15);
            nl_error_set_field(err, "record");
            return -1;
        }
        uint32_t cap = q->cap ? 2 * q->cap : 4;
        uint64_t *ts = malloc((size_t)cap * sizeof *ts), *off = malloc((size_t)cap * sizeof *off);
        if (!ts || !off) {
            free(ts);
            free(off);
            return nl_error_set(err, NL_ERR_NOMEM, s->p->source, -1, "DMA pairing queue");
        }
        for (uint32_t k = 0; k < q->count; k++) {
            ts[k] = q->ts[(q->head + k) & (q->cap - 1)];
            off[k] = q->off[(q->head + k) & (q->cap - 1)];
        }
        free(q->ts);
        free(q->off);
        q->ts = ts, q->off = off, q->cap = cap, q->head = 0;
    }
    uint32_t at = (q->head + q->count++) & (q->cap - 1); /* cap is a power of two */
    q->ts[at] = r->ts;
    q->off[at] = r->off;
    return 0;
}

static int np_emit_dma(np_scan *s, unsigned eng, uint64_t start_ts, uint64_t start_off, const np_rec *r,
                       nl_error *err)
{
    const np_fclock *clk = &s->dma_clock[eng];
    ntff_time ts = {0}, te = {0}; /* zeroed: gcc -O3 cannot see np_time_slow sets them on success */
    if (np_time(clk, start_ts, &ts, s->p->source, (int64_t)start_off, err) ||
        np_time(clk, r->ts, &te, s->p->source, (int64_t)r->off, err))
        return -1;
    ntff_dma_row row;
    if (np_time_floor_diff(&ts, &s->origin->g, &row.timestamp_ns) || np_time_floor_diff(&te, &ts, &row.duration_ns))
        return nl_error_set(err, NL_ERR_FORMAT, s->p->source, (int64_t)r->off, "DMA time out of range");
    if (s->origin->rule == NTFF_ORIGIN_NONE || row.timestamp_ns < 0) {
        s->st->dma_before_origin++;
        return 0;
    }
    row.engine = eng;
    row.queue = (r->w >> 4) & 15;
    row.size = (uint32_t)r->a | (uint32_t)r->b << 8;
    row.crc = r->w >> 16;
    row.start_offset = start_off;
    s->st->dma_visible++;
    if (s->v && s->v->dma && s->v->dma(s->ctx, &row))
        return np_stop(s, r->off, err);
    return 0;
}

static int np_dma_chunk(void *vctx, const uint8_t *recs, size_t n, uint64_t offset, nl_error *err)
{
    np_scan *s = vctx;
    s->st->records += n;
    for (size_t i = 0; i < n; i++) {
        np_rec r;
        np_rec_get(recs + 16 * i, offset + 16 * i, &r);
        unsigned eng = r.d & 0x7f, type = r.w & 15;
        if (!(r.d & 0x80) || eng >= s->core->pub.dma_clock_count || (type != 1 && type != 5 && type != 6)) {
            if (np_skip_record(s->p, s->st, &r, "DMA", err))
                return -1;
            continue;
        }
        if (!s->queues[eng] && !(s->queues[eng] = calloc(16, sizeof *s->queues[eng])))
            return nl_error_set(err, NL_ERR_NOMEM, s->p->source, -1, "DMA pairing queues");
        np_dma_queue *q = &s->queues[eng][(r.w >> 4) & 15];
        if (type == 6) {
            s->st->dma_type6++;
        } else if (type == 1) {
            if (np_dma_push(s, q, &r, err))
                return -1;
        } else {
            if (q->count == 0) {
                nl_error_set(err, NL_ERR_FORMAT, s->p->source, (int64_t)r.off,
                             "more ends than starts: DMA data record on engine %u queue %u with no pending start", eng,
                             (r.w >> 4) & 15);
                nl_error_set_field(err, "record");
                return -1;
            }
            uint64_t ts = q->ts[q->head], off = q->off[q->head];
            q->head = (q->head + 1) & (q->cap - 1);
            q->count--;
            s->st->dma_pairs++;
            if (np_emit_dma(s, eng, ts, off, &r, err))
                return -1;
        }
    }
    return 0;
}

static int np_sem_chunk(void *vctx, const uint8_t *recs, size_t n, uint64_t offset, nl_error *err)
{
    np_scan *s = vctx;
    s->st->records += n;
    const np_fclock *clk = &s->semaphore_clock;
    for (size_t i = 0; i < n; i++) {
        np_rec r;
        np_rec_get(recs + 16 * i, offset + 16 * i, &r);
        if ((r.d & 0x83) != 0x83) {
            if (np_skip_record(s->p, s->st, &r, "semaphore", err))
                return -1;
            continue;
        }
        if (!clk->src->present)
            return np_missing_clock(s->p, "semaphore records (subfield 6)", &r, err);
        ntff_time t = {0};
        ntff_sem_row row;
        if (np_time(clk, r.ts, &t, s->p->source, (int64_t)r.off, err))
            return -1;
        if (np_time_floor_diff(&t, &s->origin->g, &row.timestamp_ns))
            return nl_error_set(err, NL_ERR_FORMAT, s->p->source, (int64_t)r.off, "semaphore time out of range");
        row.index = r.a, row.b = r.b, row.c = r.c, row.d = r.d, row.value = r.w, row.offset = r.off;
        s->st->sem_records++;
        if (s->v && s->v->semaphore && s->v->semaphore(s->ctx, &row))
            return np_stop(s, r.off, err);
    }
    return 0;
}

static int np_kind5_chunk(void *vctx, const uint8_t *recs, size_t n, uint64_t offset, nl_error *err)
{
    (void)recs, (void)offset, (void)err;
    np_scan *s = vctx;
    s->st->records += n;
    s->st->kind5_records += n;
    return 0;
}

static void np_scan_free(np_scan *s)
{
    if (s->pairs)
        for (size_t i = 0; i < NP_PAIR_BLOCKS; i++)
            free(s->pairs[i]);
    free(s->pairs);
    for (size_t e = 0; s->queues && e < NTFF_PAYLOAD_DMA_ENGINES_MAX; e++) {
        for (size_t q = 0; s->queues[e] && q < 16; q++) {
            free(s->queues[e][q].ts);
            free(s->queues[e][q].off);
        }
        free(s->queues[e]);
    }
    free(s->queues);
    free(s->dma_clock);
}

int ntff_payload_scan(const ntff_payload *p, size_t core, ntff_section_kind kind, const ntff_origin *origin,
                      const ntff_payload_visitor *v, void *ctx, ntff_scan_stats *stats, nl_error *err)
{
    ntff_scan_stats local;
    ntff_scan_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    st->first_skipped_offset = -1;
    st->last_end_ns = INT64_MIN;
    if (core >= p->core_count)
        return nl_error_set(err, NL_ERR_ARGUMENT, p->source, -1, "no core %zu (the file has %zu)", core,
                            p->core_count);
    np_scan s = {.p = p, .core = &p->cores[core], .origin = origin, .v = v, .ctx = ctx, .st = st,
                 .evt_wait = p->trust.evt_wait};
    for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
        np_fclock_init(&s.engine_clock[e], &s.core->pub.engine_clock[e]);
    np_fclock_init(&s.semaphore_clock, &s.core->pub.semaphore_clock);
    np_chunk_fn fn;
    switch (kind) {
    case NTFF_SECTION_INSTRUCTIONS:
        fn = np_instr_chunk;
        s.pairs = calloc(NP_PAIR_BLOCKS, sizeof *s.pairs);
        if (!s.pairs)
            return nl_error_set(err, NL_ERR_NOMEM, p->source, -1, "instruction pairing table");
        break;
    case NTFF_SECTION_DMA:
        fn = np_dma_chunk;
        s.queues = calloc(NTFF_PAYLOAD_DMA_ENGINES_MAX, sizeof *s.queues);
        s.dma_clock = calloc(s.core->pub.dma_clock_count + 1, sizeof *s.dma_clock);
        if (!s.queues || !s.dma_clock) {
            np_scan_free(&s);
            return nl_error_set(err, NL_ERR_NOMEM, p->source, -1, "DMA pairing queues");
        }
        for (size_t d = 0; d < s.core->pub.dma_clock_count; d++)
            np_fclock_init(&s.dma_clock[d], &s.core->dma_clock[d]);
        break;
    case NTFF_SECTION_SEMAPHORES: fn = np_sem_chunk; break;
    case NTFF_SECTION_KIND5: fn = np_kind5_chunk; break;
    default:
        return nl_error_set(err, NL_ERR_ARGUMENT, p->source, -1, "section kind %d is not scanned", (int)kind);
    }
    int rc = np_walk(p, core, kind, fn, &s, kind == NTFF_SECTION_INSTRUCTIONS ? &st->skipped_sections : NULL, err);
    if (rc == 0 && kind == NTFF_SECTION_INSTRUCTIONS)
        st->instr_unended += s.open_count;
    for (size_t e = 0; rc == 0 && kind == NTFF_SECTION_DMA && e < NTFF_PAYLOAD_DMA_ENGINES_MAX; e++)
        for (size_t q = 0; s.queues[e] && q < 16; q++)
            st->dma_unended += s.queues[e][q].count;
    np_scan_free(&s);
    return rc;
}
