/* neff_static_dump — test driver: read a NEFF with neff_static_read and print its static facts as JSON, and
 * with --ntff, how each subgraph's engine programs sit in the NTFF core of the same name
 * (neff_static_match_ntff), so tests/samples/test_neff_static.py can compare them with a stdlib-Python
 * reading (tarfile) of the same files.
 *
 * Usage: neff_static_dump [--ntff FILE.ntff] FILE.neff
 * Output: {"tool_version", "kelp_version", "kelf_target", "kelf_version", "kernels": [[name, debug_file,
 *   source_file, source_line]], "subgraphs": {name: {"def_version", "engines": {stem: {"slots", "asm_entries",
 *   "bir_ids", "opcodes": {hex: count}, "first_bir_ids": [..8]}}}}, "metrics": [[name, value, unit]],
 *   "hlo_stats": {name: value}, "hlo": [[id, text, op_type, source_file, source_line]], "problems",
 *   "match": {subgraph: {stem: [neff_slots, ntff_slots, offset, equal_slots, equal_opcodes]}}}.
 * Exit: 0 ok, 1 reader error (on stderr), 2 usage. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "neff_static.h"
#include "ntff_payload.h"

static json_t *dump_str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *dump_engine(const neff_engine_program *g)
{
    json_t *ops = json_object();
    for (int b = 0; b < 256; b++)
        if (g->opcode_count[b]) {
            char key[8];
            snprintf(key, sizeof key, "0x%02x", b);
            json_object_set_new(ops, key, json_integer(g->opcode_count[b]));
        }
    json_t *first = json_array();
    for (uint32_t i = 0; g->bir_id && i < g->slots && i < 8; i++)
        json_array_append_new(first, json_integer(g->bir_id[i]));
    return json_pack("{sI sI sb so so}", "slots", (json_int_t)g->slots, "asm_entries", (json_int_t)g->asm_entries,
                     "bir_ids", g->bir_id != NULL, "opcodes", ops, "first_bir_ids", first);
}

static int dump_fail(const nl_error *e)
{
    fprintf(stderr, "error %s at %lld: %s\n", nl_error_code_name(e->code), (long long)e->offset, e->message);
    return 1;
}

int main(int argc, char **argv)
{
    const char *ntff = NULL, *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ntff") == 0 && i + 1 < argc)
            ntff = argv[++i];
        else if (!path)
            path = argv[i];
        else
            return fprintf(stderr, "usage: %s [--ntff FILE.ntff] FILE.neff\n", argv[0]), 2;
    }
    if (!path)
        return fprintf(stderr, "usage: %s [--ntff FILE.ntff] FILE.neff\n", argv[0]), 2;
    nl_error err;
    neff_static *s = neff_static_read(path, &err);
    if (!s)
        return dump_fail(&err);
    json_t *kernels = json_array(), *subgraphs = json_object(), *metrics = json_array(), *stats = json_object(),
           *hlo = json_array();
    for (size_t i = 0; i < s->kernel_count; i++)
        json_array_append_new(kernels, json_pack("[o o o I]", dump_str(s->kernels[i].name),
                                                 dump_str(s->kernels[i].debug_file),
                                                 dump_str(s->kernels[i].source_file),
                                                 (json_int_t)s->kernels[i].source_line));
    for (size_t i = 0; i < s->subgraph_count; i++) {
        const neff_subgraph_static *g = &s->subgraphs[i];
        json_t *eng = json_object();
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
            if (g->engine[e].present)
                json_object_set_new(eng, g->engine[e].stem, dump_engine(&g->engine[e]));
        json_object_set_new(subgraphs, g->name, json_pack("{ss so}", "def_version", g->def_version, "engines", eng));
    }
    for (size_t i = 0; i < s->metric_count; i++)
        json_array_append_new(metrics, json_pack("[s f s]", s->metrics[i].name, s->metrics[i].value,
                                                 s->metrics[i].unit));
    for (size_t i = 0; i < s->hlo_stat_count; i++)
        json_object_set_new(stats, s->hlo_stats[i].name, json_real(s->hlo_stats[i].value));
    for (size_t i = 0; i < s->hlo_count; i++)
        json_array_append_new(hlo, json_pack("[I o o o I]", (json_int_t)s->hlo[i].id, dump_str(s->hlo[i].text),
                                             dump_str(s->hlo[i].op_type), dump_str(s->hlo[i].source_file),
                                             (json_int_t)s->hlo[i].source_line));
    const nl_neff *n = s->neff;
    json_t *out = json_pack("{so so so so so so so so so sI}", "tool_version", dump_str(n->tool_version),
                            "kelp_version", dump_str(n->kelp_version), "kelf_target", dump_str(n->kelf_target),
                            "kelf_version", dump_str(n->kelf_version), "kernels", kernels, "subgraphs", subgraphs,
                            "metrics", metrics, "hlo_stats", stats, "hlo", hlo, "problems",
                            (json_int_t)s->problem_count);
    int rc = 0;
    if (ntff) {
        ntff_payload *p = ntff_payload_open(ntff, NULL, &err);
        json_t *match = json_object();
        for (size_t c = 0; p && c < ntff_payload_core_count(p) && rc == 0; c++) {
            const neff_subgraph_static *g = neff_static_subgraph(s, ntff_payload_core_at(p, c)->name);
            if (!g)
                continue;
            neff_slot_match m[NTFF_ENGINE_COUNT];
            if (neff_static_match_ntff(s, g, p, c, m, &err)) {
                rc = dump_fail(&err);
                break;
            }
            json_t *j = json_object();
            for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
                json_object_set_new(j, g->engine[e].stem, json_pack("[I I I I I]", (json_int_t)m[e].neff_slots,
                                                                  (json_int_t)m[e].ntff_slots, (json_int_t)m[e].offset,
                                                                  (json_int_t)m[e].equal_slots,
                                                                  (json_int_t)m[e].equal_opcodes));
            json_object_set_new(match, g->name, j);
        }
        if (!p)
            rc = dump_fail(&err);
        ntff_payload_free(p);
        json_object_set_new(out, "match", match);
    }
    if (rc == 0) {
        json_dumpf(out, stdout, JSON_COMPACT);
        fputc('\n', stdout);
    }
    json_decref(out);
    neff_static_free(s);
    return rc;
}
