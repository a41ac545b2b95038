/* ntff_payload_dump — test driver: decode every core of an NTFF with ntff_payload_fill_model and print the
 * models as one JSON object, so tests/samples/test_ntff_payload.py can compare them row by row with the
 * stdlib-Python reference decoder (ref_ntff.py) and with neuron-profile's export.
 *
 * Usage: ntff_payload_dump [--threads N] [--chunk BYTES] [--strict] [--export EXPORT.json] FILE.ntff
 * Output: {"version", "trust": {...}, "absent": [...], "cores": [{"name", "physical_id", "f14", "origin": {rule,
 *   why, engine, floor_ns (floor of the origin in ns on its clock)},
 *   "stats": {...}, "metadata": {...}, "model_info": {...}, "instructions": [[ts, dur, engine, wait, pc_byte, pc,
 *   opcode, label]], "dma": [[ts, dur, engine, queue, size, crc]] (pc and crc from a second scan: the model
 *   does not keep them), "semaphores": [[ts, index, value, d, b, c]]}],
 *   "crosscheck": {...} (core 0 against --export)}. Exit: 0 ok, 1 decoder error (code, offset, message on
 *   stderr), 2 usage. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_model.h"
#include "kvlist.h"
#include "neuron_json.h"
#include "ntff_payload.h"

static json_t *dump_str(const device_model *m, uint32_t id)
{
    const char *s = device_model_str(m, id, NULL);
    return json_string(s ? s : "");
}

static json_t *dump_record(const device_model *m, device_model_record which)
{
    json_t *o = json_object();
    const kvlist *l = device_model_record_get(m, which);
    for (size_t i = 0; l && i < kvlist_count(l); i++) {
        const kvlist_entry *e = kvlist_at(l, i);
        json_t *v = e->kind == KVLIST_INT ? json_integer(e->i) : json_string(kvlist_text_str(l, e));
        json_object_set_new(o, kvlist_key_str(l, e), v);
    }
    return o;
}

static json_t *dump_stats(const ntff_scan_stats *s)
{
    json_t *per = json_object();
    for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
        json_object_set_new(per, ntff_engine_name(e), json_integer((json_int_t)s->instr_per_engine[e]));
    return json_pack("{sI sI sI sI sI sI sI sI sI so sI sI sI sI sI sI sI sI sI}", "records", (json_int_t)s->records,
                     "skipped", (json_int_t)s->skipped, "first_skipped_offset", (json_int_t)s->first_skipped_offset,
                     "skipped_sections", (json_int_t)s->skipped_sections, "instr_pairs", (json_int_t)s->instr_pairs,
                     "instr_visible", (json_int_t)s->instr_visible, "instr_before_origin",
                     (json_int_t)s->instr_before_origin, "instr_other_stream", (json_int_t)s->instr_other_stream,
                     "instr_unended", (json_int_t)s->instr_unended, "instr_per_engine", per, "opcode_ambiguous",
                     (json_int_t)s->opcode_ambiguous, "opcode_no_slot", (json_int_t)s->opcode_no_slot, "dma_pairs",
                     (json_int_t)s->dma_pairs, "dma_visible", (json_int_t)s->dma_visible, "dma_before_origin",
                     (json_int_t)s->dma_before_origin, "dma_unended", (json_int_t)s->dma_unended, "dma_type6",
                     (json_int_t)s->dma_type6, "sem_records", (json_int_t)s->sem_records, "kind5_records",
                     (json_int_t)s->kind5_records);
}

/* The full pc and the DMA CRC are not in the model: a scan of the same core gives them in the same order. */
typedef struct dump_extra {
    json_t *pc, *crc;
} dump_extra;

static int dump_pc(void *ctx, const ntff_instr_row *r)
{
    return json_array_append_new(((dump_extra *)ctx)->pc, json_integer(r->pc));
}

static int dump_crc(void *ctx, const ntff_dma_row *r)
{
    return json_array_append_new(((dump_extra *)ctx)->crc, json_integer(r->crc));
}

static int dump_scan_extra(const ntff_payload *p, size_t core, const ntff_origin *o, dump_extra *x, nl_error *err)
{
    static const ntff_payload_visitor v = {dump_pc, dump_crc, NULL};
    x->pc = json_array();
    x->crc = json_array();
    return ntff_payload_scan(p, core, NTFF_SECTION_INSTRUCTIONS, o, &v, x, NULL, err) ||
                   ntff_payload_scan(p, core, NTFF_SECTION_DMA, o, &v, x, NULL, err)
               ? -1
               : 0;
}

static json_t *dump_rows(const device_model *m, device_model_table which, const dump_extra *x)
{
    const table *t = device_model_table_get(m, which);
    json_t *a = json_array();
    for (size_t r = 0; r < table_rows(t); r++) {
        json_t *row;
        if (which == DEVICE_MODEL_INSTRUCTIONS)
            row = json_pack("[I I o I I O o o]", (json_int_t)table_i64(t, DM_INSTR_TIMESTAMP, r),
                            (json_int_t)table_i64(t, DM_INSTR_DURATION, r),
                            dump_str(m, table_str(t, DM_INSTR_ENGINE, r)),
                            (json_int_t)table_i64(t, DM_INSTR_EVT_WAIT, r),
                            (json_int_t)table_u64(t, DM_INSTR_PC_BYTE, r), json_array_get(x->pc, r),
                            dump_str(m, table_str(t, DM_INSTR_OPCODE, r)),
                            dump_str(m, table_str(t, DM_INSTR_LABEL, r)));
        else if (which == DEVICE_MODEL_DMA)
            row = json_pack("[I I I I I O]", (json_int_t)table_i64(t, DM_DMA_TIMESTAMP, r),
                            (json_int_t)table_i64(t, DM_DMA_DURATION, r), (json_int_t)table_i64(t, DM_DMA_ENGINE, r),
                            (json_int_t)table_i64(t, DM_DMA_QUEUE_IDX, r),
                            (json_int_t)table_u64(t, DM_DMA_TRANSFER_SIZE, r), json_array_get(x->crc, r));
        else
            row = json_pack("[I I I I I I]", (json_int_t)table_i64(t, DM_NSEM_TIMESTAMP, r),
                            (json_int_t)table_i64(t, DM_NSEM_INDEX, r), (json_int_t)table_i64(t, DM_NSEM_VALUE, r),
                            (json_int_t)table_i64(t, DM_NSEM_CODE, r), (json_int_t)table_i64(t, DM_NSEM_B, r),
                            (json_int_t)table_i64(t, DM_NSEM_C, r));
        json_array_append_new(a, row);
    }
    return a;
}

static const char *dump_rule(ntff_origin_rule r)
{
    return r == NTFF_ORIGIN_EXPORT_G ? "export_g" : r == NTFF_ORIGIN_FIRST_START ? "first_start" : "none";
}

static int dump_fail(const nl_error *e)
{
    fprintf(stderr, "error %s at %lld (%s): %s\n", nl_error_code_name(e->code), (long long)e->offset,
            e->field[0] ? e->field : "-", e->message);
    return 1;
}

static json_t *dump_crosscheck(const device_model *decoded, const char *export_path, nl_error *err)
{
    device_model *ex = NULL;
    if (neuron_json_read(export_path, NULL, &ex, err))
        return NULL;
    ntff_crosscheck c;
    int rc = ntff_payload_crosscheck(decoded, ex, &c, err);
    device_model_free(ex);
    if (rc)
        return NULL;
    return json_pack("{sI sI sI sI sI sI sI sI sI si ss ss}", "instr_export", (json_int_t)c.instr_export,
                     "instr_decoded", (json_int_t)c.instr_decoded, "instr_matched", (json_int_t)c.instr_matched,
                     "dma_export", (json_int_t)c.dma_export, "dma_export_aggregated",
                     (json_int_t)c.dma_export_aggregated, "dma_decoded", (json_int_t)c.dma_decoded, "dma_matched",
                     (json_int_t)c.dma_matched, "dma_matched_but_timestamp", (json_int_t)c.dma_matched_but_timestamp,
                     "dma_timestamp_max_diff", (json_int_t)c.dma_timestamp_max_diff, "engine_counts_equal",
                     c.engine_counts_equal, "first_instr_disagreement", c.first_instr_disagreement,
                     "first_dma_disagreement", c.first_dma_disagreement);
}

int main(int argc, char **argv)
{
    ntff_payload_options opt = {0};
    const char *export_path = NULL, *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            opt.threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc)
            opt.chunk_bytes = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--strict") == 0)
            opt.flags |= NTFF_PAYLOAD_STRICT;
        else if (strcmp(argv[i], "--export") == 0 && i + 1 < argc)
            export_path = argv[++i];
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else
            return fprintf(stderr, "usage: %s [--threads N] [--chunk B] [--strict] [--export F] FILE.ntff\n", argv[0]),
                   2;
    }
    if (!path)
        return fprintf(stderr, "usage: %s FILE.ntff\n", argv[0]), 2;
    nl_error err;
    nl_error_clear(&err);
    ntff_payload *p = ntff_payload_open(path, &opt, &err);
    if (!p)
        return dump_fail(&err);
    ntff_payload_trust trust;
    ntff_payload_trust_get(p, &trust);
    json_t *absent = json_array();
    for (const char *const *f = ntff_payload_absent_fields(&trust); *f; f++)
        json_array_append_new(absent, json_string(*f));
    json_t *out = json_pack("{si s{ss ss ss sb sb} so s[]}", "version", ntff_payload_header(p)->version, "trust",
                            "level", trust.level == NTFF_TRUST_VERIFIED ? "verified" : "unverified", "architecture",
                            trust.architecture, "label", trust.label, "opcode_names", trust.opcode_names, "evt_wait",
                            trust.evt_wait, "absent", absent, "cores");
    int rc = 0;
    for (size_t c = 0; c < ntff_payload_core_count(p) && rc == 0; c++) {
        const ntff_payload_core *core = ntff_payload_core_at(p, c);
        device_model *m = device_model_new(&err);
        ntff_payload_report rep;
        dump_extra x = {NULL, NULL};
        if (!m || ntff_payload_fill_model(p, c, m, &rep, &err) || dump_scan_extra(p, c, &rep.origin, &x, &err)) {
            device_model_free(m);
            json_decref(x.pc);
            json_decref(x.crc);
            rc = dump_fail(&err);
            break;
        }
        json_t *stats = json_pack("{so so so so}", "instr", dump_stats(&rep.instr), "dma", dump_stats(&rep.dma),
                                  "sem", dump_stats(&rep.sem), "kind5", dump_stats(&rep.kind5));
        json_t *slots = json_object();
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
            json_object_set_new(slots, ntff_engine_name(e), json_integer(core->stream[e].slots));
        json_t *jc = json_pack("{ss sI sI s{ss ss sI sI} so so so so so so so}", "name", core->name, "physical_id",
                               core->has_physical_id ? (json_int_t)core->physical_id : (json_int_t)-1, "f14",
                               core->has_f14 ? (json_int_t)core->f14 : (json_int_t)-1, "origin", "rule",
                               dump_rule(rep.origin.rule), "why", rep.origin.why, "engine",
                               (json_int_t)rep.origin.engine, "floor_ns", (json_int_t)rep.origin.g.q,
                               "slots", slots, "stats", stats, "metadata",
                               dump_record(m, DEVICE_MODEL_METADATA), "model_info",
                               dump_record(m, DEVICE_MODEL_MODEL_INFO), "instructions",
                               dump_rows(m, DEVICE_MODEL_INSTRUCTIONS, &x), "dma", dump_rows(m, DEVICE_MODEL_DMA, &x),
                               "semaphores", dump_rows(m, DEVICE_MODEL_NTFF_SEMAPHORES, &x));
        json_decref(x.pc);
        json_decref(x.crc);
        json_array_append_new(json_object_get(out, "cores"), jc);
        if (c == 0 && export_path) {
            json_t *check = dump_crosscheck(m, export_path, &err);
            if (!check)
                rc = dump_fail(&err);
            else
                json_object_set_new(out, "crosscheck", check);
        }
        device_model_free(m);
    }
    ntff_payload_free(p);
    if (rc == 0) {
        json_dumpf(out, stdout, JSON_COMPACT);
        fputc('\n', stdout);
    }
    json_decref(out);
    return rc;
}
