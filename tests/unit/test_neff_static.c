/* test_neff_static — NEFF static facts (neff_static.c) on synthetic NEFFs (nl_synth): engine programs,
 * the asm debug info's slot → BIR ids, the HLO table, metrics, kernel source; members that are not what
 * their names say are counted problems, never failures; a truncated NEFF is an error with its offset; and
 * the slot alignment against an NTFF built with ntff_synth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "neff_static.h"
#include "nl_synth.h"
#include "ntff_payload.h"
#include "ntff_synth.h"

static const uint8_t UUID[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* `n` slots whose byte 0 is ops[i] and the rest a pattern of i. */
static void slots(synth_buf *b, const uint8_t *ops, size_t n, uint8_t salt)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t s[64];
        for (int j = 0; j < 64; j++)
            s[j] = (uint8_t)(i * 31 + (size_t)j + salt);
        s[0] = ops[i];
        synth_append(b, s, sizeof s);
    }
}

/* debug_info_asm: {1 text, 2 next, 3 {3 packed ids}...}; entry i names id ids[i] (0: an empty entry). */
static void asm_dbg(synth_buf *b, const uint32_t *ids, size_t n)
{
    synth_string_field(b, 1, "Debug info for one engine's assembly instructions.");
    synth_string_field(b, 2, "debug_info_backend_PE.dbg");
    for (size_t i = 0; i < n; i++) {
        synth_buf e = {0}, packed = {0};
        if (ids[i]) {
            synth_varint(&packed, ids[i]);
            synth_varint(&packed, ids[i] + 1);
            synth_msg_field(&e, 3, &packed);
        }
        synth_msg_field(b, 3, &e);
        synth_free(&e);
        synth_free(&packed);
    }
}

static void hlo_dbg(synth_buf *b)
{
    synth_string_field(b, 1, "Debug info for XLA generated HLO instructions");
    synth_buf e = {0}, attr = {0};
    synth_varint_field(&e, 1, 3);
    synth_string_field(&e, 2, "%dot.3 = dot(%p0, %p1)");
    synth_string_field(&attr, 1, "op_type");
    synth_string_field(&attr, 2, "xla__dot_general");
    synth_msg_field(&e, 7, &attr);
    synth_free(&attr);
    synth_string_field(&attr, 1, "source_file");
    synth_string_field(&attr, 2, "/src/model.py");
    synth_msg_field(&e, 7, &attr);
    synth_free(&attr);
    synth_string_field(&attr, 1, "source_line");
    synth_string_field(&attr, 2, "42");
    synth_msg_field(&e, 7, &attr);
    synth_free(&attr);
    synth_msg_field(b, 3, &e);
    synth_free(&e);
}

static const uint8_t PE_OPS[3] = {0x01, 0x02, 0x02};
static const uint8_t ACT_OPS[2] = {0x21, 0xa2};

static synth_buf build_neff(void)
{
    synth_buf pe = {0}, act = {0}, bad_bin = {0}, asm_act = {0}, hlo = {0};
    slots(&pe, PE_OPS, 3, 0);
    slots(&act, ACT_OPS, 2, 1);
    synth_append(&bad_bin, PE_OPS, 3); /* 3 bytes: not whole slots */
    static const uint32_t ids[2] = {0, 19646};
    asm_dbg(&asm_act, ids, 2);
    hlo_dbg(&hlo);
    static const char info[] = "{\"tool_version\": \"2.23.6484.0+3b612583\", \"kelp_version\": \"Dynamic\"}";
    static const char kelf[] = "{\"graphs\": [{\"name\": \"sg00\"}], \"version\": \"0.5\", \"target\": \"cayman\"}";
    static const char kdi[] = "{\"debug_info_files\": [{\"file_name\": \"k.klir.debuginfo.json\", "
                              "\"kernel_name\": \"__main__.k\", \"parent_tensorizer_id\": 8}]}";
    static const char klir[] = "[{\"lnc\": 1, \"info\": [{\"inst\": {\"name\": \"jmp.3\", \"line\": 0}}, "
                               "{\"func\": {\"name\": \"__main__.k\", \"line\": 45, \"file\": \"/src/k.py\"}}]}]";
    static const char metrics[] = "[{\"MetricName\": \"TPBCount\", \"Value\": 1, \"Unit\": \"Count\"}]";
    static const char def[] = "{\"version\": \"0.6\", \"pe_instr\": \"PE.bin\"}";
    const synth_member m[] = {
        {"info.json", info, sizeof info - 1},
        {"kelf-0.json", kelf, sizeof kelf - 1},
        {"kernel_debug_info.json", kdi, sizeof kdi - 1},
        {"k.klir.debuginfo.json", klir, sizeof klir - 1},
        {"metrics.json", metrics, sizeof metrics - 1},
        {"hlo_stats.json", "{not json", 9},
        {"debug_info/debug_info_hlo.dbg_sg000000", (const char *)hlo.p, hlo.len},
        {"sg00/def.json", def, sizeof def - 1},
        {"sg00/PE.bin", (const char *)pe.p, pe.len},
        {"sg00/Activation.bin", (const char *)act.p, act.len},
        {"sg00/debug_info_asm_Activation.dbg", (const char *)asm_act.p, asm_act.len},
        {"sg00/debug_info_asm_PE.dbg", "\xff\xff\xff", 3},
        {"sg00/DVE.bin", (const char *)bad_bin.p, bad_bin.len},
    };
    synth_buf out = synth_neff(m, sizeof m / sizeof m[0], UUID, "/tmp/synthetic.neff");
    synth_free(&pe);
    synth_free(&act);
    synth_free(&bad_bin);
    synth_free(&asm_act);
    synth_free(&hlo);
    return out;
}

static void neff_static_decodes_members_and_counts_problems(void **state)
{
    (void)state;
    synth_buf b = build_neff();
    nl_error err;
    neff_static *s = neff_static_parse(b.p, b.len, "synthetic.neff", &err);
    assert_non_null(s);
    assert_string_equal(s->neff->tool_version, "2.23.6484.0+3b612583");
    assert_int_equal(s->subgraph_count, 1);
    const neff_subgraph_static *g = neff_static_subgraph(s, "sg00");
    assert_non_null(g);
    assert_string_equal(g->def_version, "0.6");
    const neff_engine_program *pe = &g->engine[NTFF_ENGINE_TENSOR], *act = &g->engine[NTFF_ENGINE_SCALAR];
    assert_true(pe->present);
    assert_int_equal(pe->slots, 3);
    assert_int_equal(pe->opcode_count[0x02], 2);
    assert_int_equal(pe->opcode[0], 0x01);
    assert_false(pe->has_asm_debug); /* its .dbg is not protobuf */
    assert_null(pe->bir_id);
    assert_int_equal(act->slots, 2);
    assert_true(act->has_asm_debug);
    assert_int_equal(act->asm_entries, 2);
    assert_non_null(act->bir_id);
    assert_int_equal(act->bir_id[0], 0);
    assert_int_equal(act->bir_id[1], 19646);
    assert_false(g->engine[NTFF_ENGINE_VECTOR].present); /* DVE.bin is 3 bytes */
    assert_int_equal(s->metric_count, 1);
    assert_string_equal(s->metrics[0].name, "TPBCount");
    assert_true(s->metrics[0].value == 1.0);
    assert_string_equal(s->metrics[0].unit, "Count");
    assert_int_equal(s->hlo_stat_count, 0);
    assert_int_equal(s->hlo_count, 1);
    assert_int_equal(s->hlo[0].id, 3);
    assert_string_equal(s->hlo[0].text, "%dot.3 = dot(%p0, %p1)");
    assert_string_equal(s->hlo[0].op_type, "xla__dot_general");
    assert_string_equal(s->hlo[0].source_file, "/src/model.py");
    assert_int_equal(s->hlo[0].source_line, 42);
    assert_int_equal(s->kernel_count, 1);
    assert_string_equal(s->kernels[0].name, "__main__.k");
    assert_string_equal(s->kernels[0].source_file, "/src/k.py");
    assert_int_equal(s->kernels[0].source_line, 45);
    assert_int_equal(s->problem_count, 3); /* hlo_stats.json, debug_info_asm_PE.dbg, DVE.bin */
    assert_true(strlen(s->problem) > 0);
    neff_static_free(s);
    synth_free(&b);
}

static void neff_static_truncated_neff_reports_offset(void **state)
{
    (void)state;
    synth_buf b = build_neff();
    for (size_t cut = 1; cut < b.len; cut += 97) {
        uint8_t *copy = malloc(cut);
        memcpy(copy, b.p, cut);
        nl_error err;
        memset(&err, 0, sizeof err);
        neff_static *s = neff_static_parse(copy, cut, "synthetic.neff", &err);
        assert_null(s);
        assert_true(err.code == NL_ERR_TRUNCATED || err.code == NL_ERR_FORMAT);
        assert_string_equal(err.source, "synthetic.neff");
        assert_true(err.offset >= 0 && err.offset <= (int64_t)b.len);
        free(copy);
    }
    synth_free(&b);
}

/* The NEFF's PE program sits at slot 2 of the NTFF's Tensor stream (slot bytes equal); Activation's first
 * slot differs beyond byte 0. */
static void neff_static_finds_the_program_inside_an_ntff_stream(void **state)
{
    (void)state;
    synth_buf b = build_neff();
    nl_error err;
    neff_static *s = neff_static_parse(b.p, b.len, "synthetic.neff", &err);
    assert_non_null(s);
    /* An NTFF whose Tensor stream is [2 preamble slots][the PE program][1 more], built so its slot bytes
     * equal the NEFF's: ns_build's slot pattern differs, so write the v5 stream bytes directly. */
    ntff_synth t;
    ns_init(&t, 5, "inf2.xlarge");
    ns_core *c = ns_add_core(&t, "sg00", -1);
    ns_clocks_all(c, 0, 1000, 1000);
    static const uint8_t ops[6] = {0xa2, 0xa0, 0x01, 0x02, 0x02, 0xb1};
    ns_stream(c, NTFF_ENGINE_TENSOR, ops, 6);
    synth_buf n = ns_build(&t, NULL);
    /* ns_build writes slot k as bytes (k*7 + j) with byte 0 = opcode; patch slots 2..4 to the NEFF's bytes */
    synth_buf pe = {0};
    slots(&pe, PE_OPS, 3, 0);
    uint8_t pattern[64];
    for (int j = 0; j < 64; j++)
        pattern[j] = (uint8_t)(2 * 7 + j);
    pattern[0] = 0x01;
    uint8_t *at = memmem(n.p, n.len, pattern, sizeof pattern);
    assert_non_null(at);
    memcpy(at, pe.p, pe.len);
    ntff_payload *p = ntff_payload_open_mem(n.p, n.len, "synthetic.ntff", NULL, &err);
    assert_non_null(p);
    neff_slot_match m[NTFF_ENGINE_COUNT];
    assert_int_equal(neff_static_match_ntff(s, neff_static_subgraph(s, "sg00"), p, 0, m, &err), 0);
    assert_int_equal(m[NTFF_ENGINE_TENSOR].neff_slots, 3);
    assert_int_equal(m[NTFF_ENGINE_TENSOR].ntff_slots, 6);
    assert_int_equal(m[NTFF_ENGINE_TENSOR].offset, 2);
    assert_int_equal(m[NTFF_ENGINE_TENSOR].equal_slots, 3);
    assert_int_equal(m[NTFF_ENGINE_TENSOR].equal_opcodes, 3);
    assert_int_equal(m[NTFF_ENGINE_SCALAR].offset, -1); /* the NTFF has no Scalar stream */
    ntff_payload_free(p);
    synth_free(&pe);
    synth_free(&n);
    ns_free(&t);
    neff_static_free(s);
    synth_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(neff_static_decodes_members_and_counts_problems),
        cmocka_unit_test(neff_static_truncated_neff_reports_offset),
        cmocka_unit_test(neff_static_finds_the_program_inside_an_ntff_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
