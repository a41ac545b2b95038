/* test_ntff_payload — the NTFF payload decoder (ntff_payload*.c) on synthetic NTFFs built in memory
 * (ntff_synth.c): the documented conversion on a small core whose every row is known, exact floors across
 * clocks, the origin rule and its fallback, opcode lookup by pc byte, the v6 layout, threads, and bad input:
 * truncated and overlapping sections, sections past the end, records of unknown patterns, more ends than
 * starts, clock ratio zero, unknown versions, caps — each asserting code, source, offset (and field). The
 * torture cases decode every prefix and single-byte corruptions of the file and only require "an error or
 * a result, never a crash"; the sanitizer build turns any out-of-bounds access into a failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model_compare.h"
#include "ntff_payload.h"
#include "ntff_synth.h"

#define SRC "synthetic.ntff"

static void poison(nl_error *e)
{
    memset(e, 0x5a, sizeof *e);
    e->source[sizeof e->source - 1] = '\0';
    e->field[sizeof e->field - 1] = '\0';
    e->message[sizeof e->message - 1] = '\0';
}

static void assert_error(const nl_error *e, nl_error_code code, int64_t offset, const char *field)
{
    if (e->code != code || e->offset != offset)
        print_message("unexpected error: %s @%lld: %s\n", nl_error_code_name(e->code), (long long)e->offset,
                      e->message);
    assert_int_equal(e->code, code);
    assert_string_equal(e->source, SRC);
    assert_int_equal(e->offset, offset);
    assert_true(strlen(e->message) > 0);
    if (field)
        assert_string_equal(e->field, field);
}

/* ---- the canonical core ------------------------------------------------------------------------------
 * One inf2 core, every clock 1 ns per 1000 ticks (engine clocks from base T0). Per engine e (1..5):
 * start-up stream 0x40+e with pc 0; main stream 0x80+e with pc 0 (0x20 marker, 3..4 ns), pc 1 (5 .. 6+e ns:
 * G candidates, G = 11 ns from Sync), pc 2 (20+e .. 30+2e ns, 14e wait cycles: the visible row), pc 3
 * (40 ns, never ends). Tensor's pc 2 slot is MATMUL (label TensorMatrix), the others' 0x5a (not in the
 * table). DMA: engine 0 queue 3 packets at 15..19 ns (4096 B, CRC 0xbeef) and 20..26.5 ns (0x1234 B, CRC 7,
 * with a type-6 record between), engine 1 queue 2 at 5..8 ns (before G). Semaphores at 12, 13.5 and 3 ns.
 * Two kind-5 records. */
static const uint8_t TENSOR_SLOTS[4] = {0xa2, 0xa0, 0x02, 0x01};
#define T0 7000000 /* engine clocks' base: instruction ticks are T0 + ps */
static const uint8_t OTHER_SLOTS[4] = {0xa2, 0xa0, 0x5a, 0xb1};

static void canonical(ntff_synth *s, uint8_t version, const char *instance)
{
    ns_init(s, version, instance);
    ns_core *c = ns_add_core(s, "sg00", version >= 6 ? 4 : -1);
    ns_clocks_all(c, 0, 1000, 1000);
    for (unsigned e = 1; e <= 5; e++) /* engines: base T0 (not the identity, so waits are decoded) */
        ns_clock_set(c, e, T0, 1000, 1000);
    ns_dma_clocks(c, 2, 0, 1000, 1000);
    for (unsigned e = 1; e <= 5; e++)
        ns_stream(c, e, e == 1 ? TENSOR_SLOTS : OTHER_SLOTS, 4);
    ns_section *in = ns_section_add(c, 0, 0);
    for (unsigned e = 1; e <= 5; e++) {
        ns_instr(in, e, (uint8_t)(0x40 + e), 0, 0, T0 + 1000, T0 + 2000, 1);
        ns_instr(in, e, (uint8_t)(0x80 + e), 0, 0x20, T0 + 3000, T0 + 4000, 1);
        ns_instr(in, e, (uint8_t)(0x80 + e), 1, 0, T0 + 5000, T0 + 6000 + 1000 * e, 1);
        ns_instr(in, e, (uint8_t)(0x80 + e), 2, 0, T0 + 20000 + 1000 * e, T0 + 30000 + 2000 * e, 14 * e);
        ns_push(in, 3, (uint8_t)(0x80 + e), 0, (uint8_t)(0x80 | e << 2), 1 << 16, T0 + 40000);
    }
    ns_section *sem = ns_section_add(c, 1, 0);
    ns_sem(sem, 2, 1, 12000);
    ns_sem(sem, 2, 2, 13500);
    ns_sem(sem, 5, 1, 3000);
    ns_section_add(c, 2, 0);
    ns_section *dma = ns_section_add(c, 4, 1);
    ns_dma(dma, 0, 3, 15000, 19000, 4096, 0xbeef);
    ns_dma(dma, 1, 2, 5000, 8000, 64, 1);
    ns_push(dma, 0, 0, 0, 0x80, 3 << 4 | 1, 20000);
    ns_push(dma, 0, 0, 0, 0x80, 3 << 4 | 6, 21000);
    ns_push(dma, 0x34, 0x12, 0, 0x80, 7u << 16 | 3 << 4 | 5, 26500);
    ns_section *k5 = ns_section_add(c, 5, 0);
    ns_push(k5, 14, 0, 8, 0x9e, 7, 50000);
    ns_push(k5, 0, 0, 0, 0x9e, 0x80, 50064);
}

static ntff_payload *open_buf(const synth_buf *b, unsigned flags, nl_error *err)
{
    ntff_payload_options opt = {.flags = flags};
    return ntff_payload_open_mem(b->p, b->len, SRC, &opt, err);
}

static device_model *decode_core(const synth_buf *b, unsigned threads, size_t chunk, ntff_payload_report *rep)
{
    nl_error err;
    ntff_payload_options opt = {.threads = threads, .chunk_bytes = chunk};
    ntff_payload *p = ntff_payload_open_mem(b->p, b->len, SRC, &opt, &err);
    assert_non_null(p);
    device_model *m = device_model_new(&err);
    assert_non_null(m);
    int rc = ntff_payload_fill_model(p, 0, m, rep, &err);
    if (rc)
        print_message("fill_model: %s @%lld: %s\n", nl_error_code_name(err.code), (long long)err.offset, err.message);
    assert_int_equal(rc, 0);
    ntff_payload_free(p);
    return m;
}

/* The scan rows of core 0 (what the model does not keep: full pc, DMA CRC). */
#define ROWS_MAX 64
typedef struct scan_rows {
    ntff_instr_row instr[ROWS_MAX];
    ntff_dma_row dma[ROWS_MAX];
    size_t ninstr, ndma;
} scan_rows;

static int keep_instr(void *ctx, const ntff_instr_row *r)
{
    scan_rows *s = ctx;
    if (s->ninstr < ROWS_MAX)
        s->instr[s->ninstr++] = *r;
    return 0;
}

static int keep_dma(void *ctx, const ntff_dma_row *r)
{
    scan_rows *s = ctx;
    if (s->ndma < ROWS_MAX)
        s->dma[s->ndma++] = *r;
    return 0;
}

static void scan_core0(const synth_buf *b, scan_rows *out)
{
    nl_error err;
    ntff_payload *p = ntff_payload_open_mem(b->p, b->len, SRC, NULL, &err);
    assert_non_null(p);
    ntff_origin o;
    assert_int_equal(ntff_payload_origin(p, 0, &o, &err), 0);
    static const ntff_payload_visitor v = {keep_instr, keep_dma, NULL};
    memset(out, 0, sizeof *out);
    assert_int_equal(ntff_payload_scan(p, 0, NTFF_SECTION_INSTRUCTIONS, &o, &v, out, NULL, &err), 0);
    assert_int_equal(ntff_payload_scan(p, 0, NTFF_SECTION_DMA, &o, &v, out, NULL, &err), 0);
    ntff_payload_free(p);
}

static const char *str(const device_model *m, const table *t, uint32_t col, size_t row)
{
    return device_model_str(m, table_str(t, col, row), NULL);
}

static void ntff_payload_canonical_core_decodes_to_the_documented_rows(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    synth_buf b = ns_build(&s, NULL);
    ntff_payload_report rep;
    device_model *m = decode_core(&b, 0, 0, &rep);
    assert_int_equal(rep.trust.level, NTFF_TRUST_VERIFIED);
    assert_true(rep.trust.evt_wait && rep.trust.opcode_names);
    assert_int_equal(rep.origin.rule, NTFF_ORIGIN_EXPORT_G);
    assert_int_equal(rep.origin.engine, NTFF_ENGINE_SYNC);
    assert_int_equal(rep.origin.g.q, 11);
    assert_int_equal(rep.origin.g.r, 0);

    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    assert_int_equal(table_rows(t), 5);
    static const char *const names[] = {"Tensor", "Scalar", "GpSimd", "Vector", "Sync"};
    for (unsigned e = 1; e <= 5; e++) {
        size_t r = e - 1; /* rows come in the order of their end records */
        assert_int_equal(table_i64(t, DM_INSTR_TIMESTAMP, r), 9 + e);
        assert_int_equal(table_i64(t, DM_INSTR_DURATION, r), 10 + e);
        assert_int_equal(table_i64(t, DM_INSTR_EVT_WAIT, r), 10 * e);
        assert_string_equal(str(m, t, DM_INSTR_ENGINE, r), names[r]);
        assert_string_equal(str(m, t, DM_INSTR_LABEL, r), e == 1 ? "TensorMatrix" : names[r]);
        assert_string_equal(str(m, t, DM_INSTR_OPCODE, r), e == 1 ? "MATMUL" : "OPCODE_0x5a");
        assert_int_equal(table_u64(t, DM_INSTR_PC_BYTE, r), 2);
    }
    assert_int_equal(rep.instr.instr_pairs, 20);
    assert_int_equal(rep.instr.instr_visible, 5);
    assert_int_equal(rep.instr.instr_other_stream, 5);
    assert_int_equal(rep.instr.instr_before_origin, 10);
    assert_int_equal(rep.instr.instr_unended, 5);
    assert_int_equal(rep.instr.last_end_ns, 29);

    const table *d = device_model_table_get(m, DEVICE_MODEL_DMA);
    assert_int_equal(table_rows(d), 2);
    assert_int_equal(table_i64(d, DM_DMA_TIMESTAMP, 0), 4);
    assert_int_equal(table_i64(d, DM_DMA_DURATION, 0), 4);
    assert_int_equal(table_u64(d, DM_DMA_TRANSFER_SIZE, 0), 4096);
    assert_int_equal(table_i64(d, DM_DMA_ENGINE, 0), 0);
    assert_int_equal(table_i64(d, DM_DMA_QUEUE_IDX, 0), 3);
    assert_int_equal(table_i64(d, DM_DMA_TIMESTAMP, 1), 9);
    assert_int_equal(table_i64(d, DM_DMA_DURATION, 1), 6);
    assert_int_equal(table_u64(d, DM_DMA_TRANSFER_SIZE, 1), 0x1234);
    assert_int_equal(rep.dma.dma_before_origin, 1);
    assert_int_equal(rep.dma.dma_type6, 1);

    const table *sm = device_model_table_get(m, DEVICE_MODEL_NTFF_SEMAPHORES);
    assert_int_equal(table_rows(sm), 3);
    assert_int_equal(table_i64(sm, DM_NSEM_TIMESTAMP, 0), 1);
    assert_int_equal(table_i64(sm, DM_NSEM_TIMESTAMP, 1), 2); /* floor(13.5 - 11) */
    assert_int_equal(table_i64(sm, DM_NSEM_TIMESTAMP, 2), -8);
    assert_int_equal(table_i64(sm, DM_NSEM_INDEX, 2), 5);
    assert_int_equal(table_i64(sm, DM_NSEM_VALUE, 1), 2);
    assert_int_equal(rep.kind5.kind5_records, 2);
    scan_rows rows;
    scan_core0(&b, &rows);
    assert_int_equal(rows.ninstr, 5);
    assert_int_equal(rows.instr[0].pc, 2); /* 4 slots: the pc byte is the pc */
    assert_int_equal(rows.instr[0].opcode, 0x02);
    assert_int_equal(rows.ndma, 2);
    assert_int_equal(rows.dma[0].crc, 0xbeef);
    assert_int_equal(rows.dma[1].crc, 7);
    assert_int_equal(rows.dma[1].size, 0x1234);

    int64_t v;
    const kvlist *md = device_model_record_get(m, DEVICE_MODEL_METADATA);
    assert_true(kvlist_get_i64(md, "last_hw_timestamp", &v) && v == 29);
    assert_true(kvlist_get_i64(md, "ntff_version", &v) && v == 5);
    const char *trust;
    assert_true(kvlist_get_str(md, "neuronlens_ntff_trust", &trust));
    assert_string_equal(trust, "verified");
    const kvlist *mi = device_model_record_get(m, DEVICE_MODEL_MODEL_INFO);
    assert_true(kvlist_get_i64(mi, "event_count", &v) && v == 3);
    assert_true(kvlist_get_i64(mi, "gpsimd_engine_instruction_count", &v) && v == 1);
    device_model_free(m);
    synth_free(&b);
    ns_free(&s);
}

/* Two engines on clocks with different ratios: every value is the floor of an exact difference. */
static void ntff_payload_times_are_floors_of_exact_differences(void **state)
{
    (void)state;
    ntff_synth s;
    ns_init(&s, 5, "inf2.xlarge");
    ns_core *c = ns_add_core(&s, "sg00", -1);
    ns_clocks_all(c, 0, 1000, 1000);
    ns_clock_set(c, 1, 1000, 3, 1); /* Tensor: ns = (ts - 1000) / 3000 */
    ns_clock_set(c, 3, 0, 7, 2);    /* Vector (subfield 3): ns = 2 ts / 7000 */
    ns_section *in = ns_section_add(c, 0, 0);
    ns_instr(in, 1, 1, 0, 0, 4000, 7000, 0);
    ns_instr(in, 1, 2, 0, 0x20, 10000, 13000, 0);
    ns_instr(in, 1, 2, 1, 0, 16000, 31001, 0);  /* G_T = 30001/3000 = 10.000333.. */
    ns_instr(in, 1, 2, 2, 0, 31002, 61000, 7);  /* 10.000666.. .. 20 */
    ns_instr(in, 4, 3, 0, 0, 3500, 7000, 0);
    ns_instr(in, 4, 4, 0, 0x20, 10500, 14000, 0);
    ns_instr(in, 4, 4, 1, 0, 17500, 35001, 0);  /* G_V = 10.000285.. < G_T */
    ns_instr(in, 4, 4, 2, 0, 35002, 70000, 15); /* 10.000571.. .. 20 */
    ns_instr(in, 4, 4, 3, 0, 35001, 40000, 1);  /* starts 0.00005 ns before G: not visible */
    synth_buf b = ns_build(&s, NULL);
    ntff_payload_report rep;
    device_model *m = decode_core(&b, 1, 0, &rep);
    assert_int_equal(rep.origin.engine, NTFF_ENGINE_TENSOR);
    assert_int_equal(rep.origin.g.q, 10);
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    assert_int_equal(table_rows(t), 2);
    assert_int_equal(table_i64(t, DM_INSTR_TIMESTAMP, 0), 0);
    assert_int_equal(table_i64(t, DM_INSTR_DURATION, 0), 9);  /* 20 - 10.000666 */
    assert_int_equal(table_i64(t, DM_INSTR_EVT_WAIT, 0), 5);  /* floor(7 / 1.4) */
    assert_int_equal(table_i64(t, DM_INSTR_TIMESTAMP, 1), 0); /* 10.000571 - 10.000333 */
    assert_int_equal(table_i64(t, DM_INSTR_DURATION, 1), 9);
    assert_int_equal(table_i64(t, DM_INSTR_EVT_WAIT, 1), 10); /* floor(15 / 1.4) */
    assert_int_equal(rep.instr.instr_before_origin, 5);      /* both pc 0 and 1, and Vector's pc 3 */
    assert_int_equal(rep.instr.last_end_ns, 9);               /* floor(20 - 10.000333) */
    device_model_free(m);
    synth_free(&b);
    ns_free(&s);
}

/* Without a start-up stream (the v6 samples' shape) the export's rule does not apply: every pair is kept
 * and the origin is the earliest start; the report says why. */
static void ntff_payload_first_start_origin_without_startup_stream(void **state)
{
    (void)state;
    ntff_synth s;
    ns_init(&s, 6, "trn2.3xlarge");
    ns_core *c = ns_add_core(&s, "sg00", 4);
    ns_clocks_all(c, 0, 1, 1);
    ns_dma_clocks(c, 1, 0, 1, 1);
    ns_stream(c, 1, TENSOR_SLOTS, 4);
    ns_section *in = ns_section_add(c, 0, 0);
    ns_instr(in, 1, 7, 0, 0, 5000, 9000, 30000);
    ns_instr(in, 1, 7, 1, 0x20, 10000, 12000, 30000);
    ns_instr(in, 2, 9, 3, 0, 2500, 3000, 1);
    ns_section *dma = ns_section_add(c, 4, 1);
    ns_dma(dma, 0, 0, 2000, 4000, 8, 0);
    synth_buf b = ns_build(&s, NULL);
    ntff_payload_report rep;
    device_model *m = decode_core(&b, 0, 0, &rep);
    assert_int_equal(rep.trust.level, NTFF_TRUST_UNVERIFIED);
    assert_false(rep.trust.evt_wait);     /* identity clocks */
    assert_false(rep.trust.opcode_names); /* trn2 */
    assert_int_equal(rep.origin.rule, NTFF_ORIGIN_FIRST_START);
    assert_string_equal(rep.origin.why, "engine Tensor: the marker is not in the second of exactly two streams "
                                        "(start-up, main)");
    assert_int_equal(rep.origin.g.q, 2); /* Scalar's 2.5 ns */
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    assert_int_equal(table_rows(t), 3);
    assert_int_equal(table_i64(t, DM_INSTR_TIMESTAMP, 0), 2);  /* 5 - 2.5 */
    assert_int_equal(table_i64(t, DM_INSTR_EVT_WAIT, 0), 0);   /* not taken as a wait */
    assert_string_equal(str(m, t, DM_INSTR_OPCODE, 0), "OPCODE_0xa2");
    assert_string_equal(str(m, t, DM_INSTR_LABEL, 0), "Tensor");
    assert_int_equal(table_i64(t, DM_INSTR_TIMESTAMP, 2), 0);
    assert_string_equal(str(m, t, DM_INSTR_OPCODE, 2), ""); /* Scalar has no stream: no slot */
    assert_int_equal(rep.instr.opcode_no_slot, 1);
    assert_int_equal(rep.dma.dma_before_origin, 1); /* 2 ns < 2.5 ns */
    const char *const *absent = ntff_payload_absent_fields(&rep.trust);
    bool wait_listed = false;
    for (; *absent; absent++)
        wait_listed = wait_listed || strcmp(*absent, "instruction.evt_wait_time") == 0;
    assert_true(wait_listed);
    device_model_free(m);
    synth_free(&b);
    ns_free(&s);
}

/* A pc byte names slots byte, byte + 256, ...: the opcode only when they agree, the full pc only when one. */
static void ntff_payload_opcode_only_when_every_candidate_slot_agrees(void **state)
{
    (void)state;
    uint8_t slots[300];
    for (int i = 0; i < 300; i++)
        slots[i] = 0xa2;
    slots[10] = 0xa0;   /* slot 266 stays DRAIN: pc byte 10 is ambiguous */
    slots[20] = slots[276] = 0xb1;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_stream(&s.core[0], 2, slots, 300);
    ns_section *in = &s.core[0].sec[0];
    ns_instr(in, 2, 0x82, 10, 0, T0 + 50000, T0 + 51000, 0);
    ns_instr(in, 2, 0x82, 20, 0, T0 + 52000, T0 + 53000, 0);
    ns_instr(in, 2, 0x82, 100, 0, T0 + 54000, T0 + 55000, 0);
    synth_buf b = ns_build(&s, NULL);
    ntff_payload_report rep;
    device_model *m = decode_core(&b, 0, 0, &rep);
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    assert_int_equal(table_rows(t), 8);
    assert_string_equal(str(m, t, DM_INSTR_OPCODE, 5), "");
    assert_int_equal(table_u64(t, DM_INSTR_PC_BYTE, 5), 10);
    assert_string_equal(str(m, t, DM_INSTR_OPCODE, 6), "SET_ORDERING_MODE");
    assert_string_equal(str(m, t, DM_INSTR_OPCODE, 7), "DRAIN");
    scan_rows rows;
    scan_core0(&b, &rows);
    assert_int_equal(rows.ninstr, 8);
    assert_int_equal(rows.instr[5].pc, -1);
    assert_int_equal(rows.instr[5].opcode, NTFF_OPCODE_NONE);
    assert_int_equal(rows.instr[6].pc, -1);
    assert_int_equal(rows.instr[6].opcode, 0xb1);
    assert_int_equal(rows.instr[7].pc, 100); /* 356 is beyond the 300 slots */
    assert_int_equal(rep.instr.opcode_ambiguous, 1);
    device_model_free(m);
    synth_free(&b);
    ns_free(&s);
}

/* v6: streams in the payload (fields 4.7/4.8), the table at field 16 with field 7 naming the core. */
static void ntff_payload_v6_layout_two_cores(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 6, "trn2.3xlarge");
    ns_core *c2 = ns_add_core(&s, "sg01", 5);
    ns_clocks_all(c2, 0, 1000, 1000);
    ns_stream(c2, 5, OTHER_SLOTS, 4);
    ns_section *in = ns_section_add(c2, 0, 0);
    ns_instr(in, 5, 1, 0, 0, 100, 200, 0);
    ns_instr(in, 5, 2, 0, 0x20, 300, 400, 0);
    ns_instr(in, 5, 2, 1, 0, 500, 600, 0);
    ns_instr(in, 5, 2, 3, 0, 700, 1900, 0);
    synth_buf b = ns_build(&s, NULL);
    nl_error err;
    ntff_payload *p = open_buf(&b, 0, &err);
    assert_non_null(p);
    assert_int_equal(ntff_payload_core_count(p), 2);
    const ntff_payload_core *k = ntff_payload_core_at(p, 1);
    assert_string_equal(k->name, "sg01");
    assert_int_equal(k->physical_id, 5);
    assert_int_equal(k->section_count, 1);
    assert_true(k->stream[5].in_payload);
    assert_int_equal(k->stream[5].slots, 4);
    assert_int_equal(ntff_payload_slot_opcode(p, 1, 5, 3), 0xb1);
    assert_int_equal(ntff_payload_slot_opcode(p, 0, 1, 2), 0x02);
    uint8_t slot[64];
    assert_int_equal(ntff_payload_read_slots(p, 1, 5, 2, 1, slot, &err), 0);
    assert_int_equal(slot[0], 0x5a);
    assert_int_equal(slot[1], (uint8_t)(2 * 7 + 1));
    device_model *m = device_model_new(&err);
    ntff_payload_report rep;
    assert_int_equal(ntff_payload_fill_model(p, 1, m, &rep, &err), 0);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS), 1);
    assert_int_equal(table_i64(device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS), DM_INSTR_TIMESTAMP, 0), 0);
    assert_int_equal(rep.instr.last_end_ns, 1);
    device_model_free(m);
    ntff_payload_free(p);
    synth_free(&b);
    ns_free(&s);
}

/* One thread or three, whole sections or 16-byte reads: the same model, id for id. */
static void ntff_payload_threads_and_chunks_build_the_same_model(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    synth_buf b = ns_build(&s, NULL);
    device_model *a = decode_core(&b, 1, 0, NULL);
    device_model *c = decode_core(&b, 3, 16, NULL);
    device_model *d = decode_core(&b, 2, 48, NULL);
    char why[256];
    assert_int_equal(model_compare(a, c, why, sizeof why), 0);
    assert_int_equal(model_compare(a, d, why, sizeof why), 0);
    device_model_free(a);
    device_model_free(c);
    device_model_free(d);
    synth_free(&b);
    ns_free(&s);
}

/* ---- bad input ---------------------------------------------------------------------------------------- */

static void expect_open_error(const ntff_synth *s, unsigned flags, nl_error_code code, int64_t offset,
                              const char *field, size_t cut)
{
    synth_buf b = ns_build(s, NULL);
    nl_error err;
    poison(&err);
    ntff_payload_options opt = {.flags = flags};
    ntff_payload *p = ntff_payload_open_mem(b.p, b.len - cut, SRC, &opt, &err);
    assert_null(p);
    assert_error(&err, code, offset, field);
    synth_free(&b);
}

/* Decode core 0 and expect an error from the scan. */
static void expect_decode_error(const ntff_synth *s, unsigned flags, nl_error_code code, int64_t offset,
                                const char *field)
{
    synth_buf b = ns_build(s, NULL);
    nl_error err;
    ntff_payload *p = open_buf(&b, flags, &err);
    assert_non_null(p);
    device_model *m = device_model_new(&err);
    poison(&err);
    assert_int_equal(ntff_payload_fill_model(p, 0, m, NULL, &err), -1);
    assert_error(&err, code, offset, field);
    device_model_free(m);
    ntff_payload_free(p);
    synth_free(&b);
}

static void ntff_payload_truncated_section_reports_entry_offset(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    synth_free(&b);
    /* the file ends 16 bytes early: the last section (kind 5) no longer fits */
    expect_open_error(&s, 0, NL_ERR_TRUNCATED, L.section_entry[0][4], "section", 16);
    ns_free(&s);
}

static void ntff_payload_section_past_the_end_reports_entry_offset(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_section *sem = &s.core[0].sec[1];
    sem->fixed = true, sem->offset = 1u << 20, sem->size = 48;
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    synth_free(&b);
    expect_open_error(&s, 0, NL_ERR_TRUNCATED, L.section_entry[0][1], "section", 0);
    ns_free(&s);
}

static void ntff_payload_overlapping_sections_report_the_later_entry(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    synth_free(&b);
    ns_section *sem = &s.core[0].sec[1]; /* placed right after the instructions: make it start 16 B earlier */
    sem->fixed = true;
    sem->offset = L.section_data[0][1] - L.payload_offset - 16;
    sem->size = 48;
    b = ns_build(&s, &L);
    synth_free(&b);
    expect_open_error(&s, 0, NL_ERR_FORMAT, L.section_entry[0][1], "section", 0);
    ns_free(&s);
}

static void ntff_payload_section_size_not_whole_records(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    synth_free(&b);
    ns_section *sem = &s.core[0].sec[1];
    sem->fixed = true;
    sem->offset = L.section_data[0][1] - L.payload_offset;
    sem->size = 40;
    b = ns_build(&s, &L);
    synth_free(&b);
    expect_open_error(&s, 0, NL_ERR_FORMAT, L.section_entry[0][1], "section", 0);
    ns_free(&s);
}

static void ntff_payload_clock_ratio_zero_reports_clock_offset(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_clock_set(&s.core[0], 3, 0, 0, 914260);
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    synth_free(&b);
    expect_open_error(&s, 0, NL_ERR_FORMAT, L.clock_entry[0][3], "clock", 0);
    ns_clock_set(&s.core[0], 3, 0, 914286, 0);
    expect_open_error(&s, 0, NL_ERR_FORMAT, L.clock_entry[0][3], "clock", 0);
    ns_clock_set(&s.core[0], 3, 0, 1ull << 31, 1);
    expect_open_error(&s, 0, NL_ERR_LIMIT, L.clock_entry[0][3], "clock", 0);
    ns_free(&s);
}

static void ntff_payload_unknown_versions_are_unsupported(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 7, "trn3.48xlarge");
    expect_open_error(&s, 0, NL_ERR_UNSUPPORTED, 0, NULL, 0);
    s.version = 3;
    expect_open_error(&s, 0, NL_ERR_UNSUPPORTED, 0, NULL, 0);
    ns_free(&s);
}

/* d with bit 1 set (seen on GpSimd in the v6 samples) is outside ntff.md: skipped and counted, or an error
 * at its offset with NTFF_PAYLOAD_STRICT. The same for a DMA type 7 and a DMA engine without a clock. */
static void ntff_payload_unknown_record_pattern_is_counted_or_strict_error(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_section *in = &s.core[0].sec[0];
    ns_push(in, 9, 0x83, 0, 0x8e, 0, T0 + 45000);
    ns_section *dma = &s.core[0].sec[3];
    ns_push(dma, 0, 0, 0, 0x80, 3 << 4 | 7, 30000);
    ns_push(dma, 0, 0, 0, 0x85, 1 << 4 | 1, 30000); /* DMA engine 5: only 2 clocks */
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    ntff_payload_report rep;
    device_model *m = decode_core(&b, 0, 0, &rep);
    assert_int_equal(rep.instr.skipped, 1);
    assert_int_equal(rep.instr.first_skipped_offset, (int64_t)L.section_data[0][0] + 16 * 45);
    assert_int_equal(rep.instr.instr_visible, 5);
    assert_int_equal(rep.dma.skipped, 2);
    assert_int_equal(rep.dma.first_skipped_offset, (int64_t)L.section_data[0][3] + 16 * 7);
    assert_int_equal(rep.dma.dma_visible, 2);
    device_model_free(m);
    synth_free(&b);
    expect_decode_error(&s, NTFF_PAYLOAD_STRICT, NL_ERR_FORMAT, (int64_t)L.section_data[0][0] + 16 * 45, "record");
    ns_free(&s);
}

static void ntff_payload_more_ends_than_starts_reports_record_offset(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_section *in = &s.core[0].sec[0];
    ns_push(in, 2, 0x81, 0, 0x85, 0xffffffffu, T0 + 45000); /* a second end of Tensor pc 2 */
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    synth_free(&b);
    expect_decode_error(&s, 0, NL_ERR_FORMAT, (int64_t)L.section_data[0][0] + 16 * 45, "record");
    ns_free(&s);

    canonical(&s, 5, "inf2.xlarge");
    ns_section *dma = &s.core[0].sec[3];
    ns_push(dma, 0, 1, 0, 0x81, 2 << 4 | 5, 30000); /* data on engine 1 queue 2, whose start was used */
    b = ns_build(&s, &L);
    synth_free(&b);
    expect_decode_error(&s, 0, NL_ERR_FORMAT, (int64_t)L.section_data[0][3] + 16 * 7, "record");
    ns_free(&s);
}

static void ntff_payload_missing_engine_clock_reports_record(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    s.core[0].clock[5].on = false; /* Sync's clock */
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    synth_free(&b);
    /* the origin needs Sync's G: its end record is the 4th record of Sync (engine 5 starts at record 36) */
    expect_decode_error(&s, 0, NL_ERR_FORMAT, (int64_t)L.section_data[0][0] + 16 * (36 + 5), "clock");
    ns_free(&s);
}

static void ntff_payload_dma_pending_starts_are_capped(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_section *dma = &s.core[0].sec[3];
    for (unsigned i = 0; i <= NTFF_PAIR_DMA_PENDING_MAX; i++)
        ns_push(dma, 0, 0, 0, 0x81, 9 << 4 | 1, 30000 + i);
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    synth_free(&b);
    expect_decode_error(&s, 0, NL_ERR_LIMIT, (int64_t)L.section_data[0][3] + 16 * (7 + NTFF_PAIR_DMA_PENDING_MAX),
                        "record");
    ns_free(&s);
}

static void ntff_payload_unknown_section_kind_is_counted_or_strict_error(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    ns_section *x = ns_section_add(&s.core[0], 0, 2);
    x->f4 = 8;
    ns_push(x, 0, 0, 0, 0x84, 0, 1);
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    ntff_payload_report rep;
    device_model *m = decode_core(&b, 0, 0, &rep);
    assert_int_equal(rep.instr.skipped_sections, 1);
    assert_int_equal(rep.instr.instr_visible, 5);
    device_model_free(m);
    synth_free(&b);
    expect_decode_error(&s, NTFF_PAYLOAD_STRICT, NL_ERR_FORMAT, L.section_entry[0][5], "section");
    ns_free(&s);
}

static void ntff_payload_v6_section_for_no_core_and_stream_past_end(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 6, "trn2.3xlarge");
    ns_core *c2 = ns_add_core(&s, "sg01", 5);
    ns_section *in = ns_section_add(c2, 0, 0);
    ns_instr(in, 1, 1, 0, 0, 1, 2, 0);
    ns_layout L;
    synth_buf b = ns_build(&s, &L);
    nl_error err;
    ntff_payload *p = open_buf(&b, 0, &err);
    assert_non_null(p); /* every entry names its core */
    ntff_payload_free(p);
    synth_free(&b);
    c2->physical_id = -1; /* sg01's entry now names no core, and there are two */
    b = ns_build(&s, &L);
    synth_free(&b);
    expect_open_error(&s, 0, NL_ERR_FORMAT, L.section_entry[1][0], "section", 0);
    ns_free(&s);

    canonical(&s, 6, "trn2.3xlarge");
    b = ns_build(&s, &L);
    /* cut inside the streams (before any section): the first instruction stream is past the end */
    poison(&err);
    p = ntff_payload_open_mem(b.p, L.payload_offset + 100, SRC, NULL, &err);
    assert_null(p);
    assert_int_equal(err.code, NL_ERR_TRUNCATED);
    assert_string_equal(err.source, SRC);
    assert_string_equal(err.field, "instruction_stream");
    assert_true(err.offset > 128 && err.offset < (int64_t)L.payload_offset);
    synth_free(&b);
    ns_free(&s);
}

static void ntff_payload_cancel_flag_stops_the_scan(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    synth_buf b = ns_build(&s, NULL);
    atomic_int cancel = 1;
    ntff_payload_options opt = {.cancel = &cancel, .threads = 1};
    nl_error err;
    ntff_payload *p = ntff_payload_open_mem(b.p, b.len, SRC, &opt, &err);
    assert_non_null(p);
    device_model *m = device_model_new(&err);
    poison(&err);
    assert_int_equal(ntff_payload_fill_model(p, 0, m, NULL, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    assert_string_equal(err.source, SRC);
    device_model_free(m);
    ntff_payload_free(p);
    synth_free(&b);
    ns_free(&s);
}

/* ---- torture ------------------------------------------------------------------------------------------ */

static void try_decode(const uint8_t *buf, size_t len, size_t *opened)
{
    nl_error err;
    poison(&err);
    ntff_payload_options opt = {.threads = 1, .chunk_bytes = 64};
    ntff_payload *p = ntff_payload_open_mem(buf, len, SRC, &opt, &err);
    if (!p) {
        assert_true(err.code != NL_OK && strlen(err.message) > 0);
        assert_true(err.offset >= -1 && err.offset <= (int64_t)len + 16 * 1024 * 1024);
        return;
    }
    (*opened)++;
    static const ntff_section_kind kinds[] = {NTFF_SECTION_INSTRUCTIONS, NTFF_SECTION_DMA, NTFF_SECTION_SEMAPHORES,
                                              NTFF_SECTION_KIND5};
    for (size_t c = 0; c < ntff_payload_core_count(p); c++) {
        ntff_origin o;
        poison(&err);
        if (ntff_payload_origin(p, c, &o, &err)) {
            assert_true(err.code != NL_OK && strlen(err.message) > 0);
            continue;
        }
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            poison(&err);
            if (ntff_payload_scan(p, c, kinds[k], &o, NULL, NULL, NULL, &err))
                assert_true(err.code != NL_OK && strlen(err.message) > 0);
        }
    }
    ntff_payload_free(p);
}

static void ntff_payload_every_prefix_fails_cleanly(void **state)
{
    (void)state;
    for (int v = 5; v <= 6; v++) {
        ntff_synth s;
        canonical(&s, (uint8_t)v, v == 5 ? "inf2.xlarge" : "trn2.3xlarge");
        synth_buf b = ns_build(&s, NULL);
        for (size_t len = 0; len < b.len; len++) {
            uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees any read past the prefix */
            memcpy(copy, b.p, len);
            nl_error err;
            poison(&err);
            ntff_payload *p = ntff_payload_open_mem(copy, len, SRC, NULL, &err);
            assert_null(p);
            assert_true(err.code == NL_ERR_TRUNCATED || err.code == NL_ERR_FORMAT);
            assert_string_equal(err.source, SRC);
            assert_true(err.offset >= 0 && err.offset <= (int64_t)b.len);
            free(copy);
        }
        size_t opened = 0;
        try_decode(b.p, b.len, &opened);
        assert_int_equal(opened, 1);
        device_model_free(decode_core(&b, 1, 64, NULL));
        synth_free(&b);
        ns_free(&s);
    }
}

static void ntff_payload_single_byte_corruptions_never_crash(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    synth_buf b = ns_build(&s, NULL);
    uint8_t *copy = malloc(b.len);
    size_t opened = 0;
    static const uint8_t masks[] = {0x01, 0x80, 0xff};
    for (size_t i = 0; i < b.len; i++)
        for (size_t k = 0; k < sizeof masks; k++) {
            memcpy(copy, b.p, b.len);
            copy[i] ^= masks[k];
            try_decode(copy, b.len, &opened);
        }
    assert_true(opened > 0);
    free(copy);
    synth_free(&b);
    ns_free(&s);
}

/* ---- cross-check -------------------------------------------------------------------------------------- */

static void ntff_payload_crosscheck_counts_matches_and_names_the_first_disagreement(void **state)
{
    (void)state;
    ntff_synth s;
    canonical(&s, 5, "inf2.xlarge");
    synth_buf b = ns_build(&s, NULL);
    device_model *a = decode_core(&b, 0, 0, NULL);
    /* the "export": the same decode with Vector's pc 2 ending 1 ns later and one DMA packet moved 1 ns */
    s.core[0].sec[0].recs[3 * 9 + 7].ts += 1000;
    s.core[0].sec[3].recs[0].ts -= 1000;
    s.core[0].sec[3].recs[1].ts -= 1000;
    synth_free(&b);
    b = ns_build(&s, NULL);
    device_model *e = decode_core(&b, 0, 0, NULL);
    ntff_crosscheck x;
    nl_error err;
    assert_int_equal(ntff_payload_crosscheck(a, e, &x, &err), 0);
    assert_int_equal(x.instr_export, 5);
    assert_int_equal(x.instr_decoded, 5);
    assert_int_equal(x.instr_matched, 4);
    assert_string_equal(x.first_instr_disagreement,
                        "export instruction row 3 (timestamp, duration, engine, evt_wait, pc byte = 13, 15, 4, 40, 2) "
                        "has no match");
    assert_int_equal(x.dma_export, 2);
    assert_int_equal(x.dma_matched, 1);
    assert_int_equal(x.dma_matched_but_timestamp, 1);
    assert_int_equal(x.dma_timestamp_max_diff, 1);
    assert_int_equal(x.engine_counts_equal, 1);
    device_model_free(a);
    device_model_free(e);
    synth_free(&b);
    ns_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ntff_payload_canonical_core_decodes_to_the_documented_rows),
        cmocka_unit_test(ntff_payload_times_are_floors_of_exact_differences),
        cmocka_unit_test(ntff_payload_first_start_origin_without_startup_stream),
        cmocka_unit_test(ntff_payload_opcode_only_when_every_candidate_slot_agrees),
        cmocka_unit_test(ntff_payload_v6_layout_two_cores),
        cmocka_unit_test(ntff_payload_threads_and_chunks_build_the_same_model),
        cmocka_unit_test(ntff_payload_truncated_section_reports_entry_offset),
        cmocka_unit_test(ntff_payload_section_past_the_end_reports_entry_offset),
        cmocka_unit_test(ntff_payload_overlapping_sections_report_the_later_entry),
        cmocka_unit_test(ntff_payload_section_size_not_whole_records),
        cmocka_unit_test(ntff_payload_clock_ratio_zero_reports_clock_offset),
        cmocka_unit_test(ntff_payload_unknown_versions_are_unsupported),
        cmocka_unit_test(ntff_payload_unknown_record_pattern_is_counted_or_strict_error),
        cmocka_unit_test(ntff_payload_more_ends_than_starts_reports_record_offset),
        cmocka_unit_test(ntff_payload_missing_engine_clock_reports_record),
        cmocka_unit_test(ntff_payload_dma_pending_starts_are_capped),
        cmocka_unit_test(ntff_payload_unknown_section_kind_is_counted_or_strict_error),
        cmocka_unit_test(ntff_payload_v6_section_for_no_core_and_stream_past_end),
        cmocka_unit_test(ntff_payload_cancel_flag_stops_the_scan),
        cmocka_unit_test(ntff_payload_every_prefix_fails_cleanly),
        cmocka_unit_test(ntff_payload_single_byte_corruptions_never_crash),
        cmocka_unit_test(ntff_payload_crosscheck_counts_matches_and_names_the_first_disagreement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
