/* Unit tests for analyzers/readers/neuron_json and summary_json on small handcrafted exports: every modelled
 * column, sparse keys, metadata after the rows (time normalisation), unknown arrays and keys, source
 * locations, DMA queues, wrong types and truncation (file, offset, record, field), cancel, progress, read
 * sizes, memory limits; plus a check on a real export when NL_SAMPLES_DIR has one (skipped otherwise). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_model.h"
#include "neuron_json.h"
#include "summary_json.h"

/* Two instructions (the first sparse, the second with every modelled key), metadata after them with
 * first_hw_timestamp 1000, DMA packet + aggregated with ids above 2^63, and one of every other table. */
static const char export_doc[] =
    "{\"instruction\":[\n"
    "  {\"timestamp\":1007,\"duration\":5,\"opcode\":\"NOP\",\"subgroup\":\"Tensor\",\"label\":\"Tensor\",\"id\":7},\n"
    "  {\"activation_fn\":\"\",\"bir_id\":\"sg0000:112\",\"crc_in\":65535,\"timestamp\":1100,\"duration\":37,"
    "\"evt_wait_time\":12,\"id\":18446744073709551615,\"opcode\":\"WRITE\",\"compiler_opcode\":\"PSEUDO_DMA_TRIGGER\","
    "\"subgroup\":\"Sync\",\"label\":\"Sync\",\"layer\":\"_dot.3\",\"hlo_name\":\"%dot.3 = dot(%p0, %p1)\","
    "\"instruction_type\":\"REGULAR\",\"hbm_read_bytes\":32768,\"hbm_write_bytes\":1,\"sbuf_read_bytes\":2,"
    "\"sbuf_write_bytes\":32768,\"psum_read_bytes\":3,\"psum_write_bytes\":4,\"spill_save_bytes\":5,"
    "\"spill_reload_bytes\":6,\"raw_framework_id\":[5],\"predecessors\":[{\"id\":1,\"type\":\"FLOW_DEPENDENCE\"}],"
    "\"hlo_attrs\":\"[{\\\"op_type\\\":\\\"\\\",\\\"source_file\\\":\\\"model.py\\\",\\\"source_line\\\":\\\"42\\\"}]\"}\n"
    "],\n"
    "\"ham\":[{\"k\":1},{\"k\":2},{\"k\":3}],\n"
    "\"dma\":[\n"
    "  {\"timestamp\":1200,\"duration\":96,\"id\":140303715310285174,\"packet_aggregation_id\":9223372036854775809,"
    "\"subgroup\":\"qSyncSpillReload0-Q1-E0\",\"queue_type\":\"data\",\"dma_engine\":\"0\",\"dma_queue\":\"1\","
    "\"transfer_size\":2048,\"variable\":\"identity_52\",\"aggregated\":\"no\",\"is_cc_dma\":\"no\",\"duplicate\":\"no\","
    "\"source\":[[\"WEIGHT\"]]},\n"
    "  {\"timestamp\":1150,\"duration\":382,\"id\":9223372036854775809,\"subgroup\":\"qSyncSpillReload0\","
    "\"queue_type\":\"data\",\"dma_engine\":\"15\",\"transfer_size\":32768,\"aggregated\":\"yes\",\"is_cc_dma\":\"yes\","
    "\"duplicate\":\"yes\",\"variable\":\"unknown\"}\n"
    "],\n"
    "\"active_time\":[{\"pcore_idx\":0,\"engine\":\"tensor\",\"start_ts\":1057,\"end_ts\":1122,\"duration_ns\":64}],\n"
    "\"semaphore_update\":[{\"value\":1,\"id\":\"2\",\"timestamp\":1499}],\n"
    "\"layer_summary\":[{\"name\":\"/sg00\",\"fully_qualified_subgraph\":\"/sg00\",\"start\":1007,\"end\":2000,"
    "\"duration\":993,\"tensor_engine_active_time\":427,\"sync_engine_instruction_count\":1,"
    "\"tensor_engine_active_percent\":0.5,\"tensor_engine_mfu\":2.6089068091508943e-05}],\n"
    "\"warnings\":[{\"message\":\"Missing DGE\",\"category\":\"Missing Data\"}],\n"
    "\"summary\":[{\"total_time\":0.001869298853,\"hbm_read_bytes\":100352,\"instance_type\":\"inf2.xlarge\"}],\n"
    "\"metadata\":[{\"first_hw_timestamp\":1000,\"pe_clock_freq\":2.8,\"vnc_enabled\":false}],\n"
    "\"model_info\":[{\"tensor_engine_instruction_count\":1,\"sg_name\":\"sg00\"},{\"extra\":1}],\n"
    "\"profile_info\":[{\"profiler_version\":\"2.27.33.0\",\"nested\":{\"a\":[1]}}],\n"
    "\"neff_header\":[{\"uuid\":\"ec35848ca8c1428c8a311d8c5dd22cc2\"}]\n"
    "}\n";

static device_model *read_ok(const char *doc, size_t len, const neuron_json_options *opt)
{
    device_model *m = (device_model *)0x1;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    if (neuron_json_read_mem(doc, len, "test.json", opt, &m, &err) != 0)
        fail_msg("read failed: %s at %lld record %lld field '%s': %s", nl_error_code_name(err.code),
                 (long long)err.offset, (long long)err.record, err.field, err.message);
    assert_non_null(m);
    return m;
}

static nl_error read_fail(const char *doc, size_t len, const neuron_json_options *opt)
{
    device_model *m = (device_model *)0x1;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    if (neuron_json_read_mem(doc, len, "test.json", opt, &m, &err) == 0)
        fail_msg("read of '%.60s' succeeded, expected an error", doc);
    assert_null(m);
    assert_string_equal(err.source, "test.json");
    assert_true(err.message[0] != '\0');
    return err;
}

static const char *str_at(const device_model *m, device_model_table t, uint32_t col, size_t row)
{
    return device_model_str(m, table_str(device_model_table_get(m, t), col, row), NULL);
}

static const device_model_note *find_note(const device_model *m, device_model_note_kind kind, const char *name)
{
    for (size_t i = 0; i < device_model_note_count(m); i++) {
        const device_model_note *n = device_model_note_at(m, i);
        if (n->kind == kind && strcmp(device_model_str(m, n->name, NULL), name) == 0)
            return n;
    }
    return NULL;
}

/* ---- reading ------------------------------------------------------------------------------------------ */

static void instructions_fill_every_column_and_sparse_keys_read_as_zero(void **state)
{
    (void)state;
    device_model *m = read_ok(export_doc, sizeof export_doc - 1, NULL);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS), 2);
    device_model_instr a, b;
    device_model_instr_get(m, 0, &a);
    device_model_instr_get(m, 1, &b);
    assert_int_equal(a.timestamp_ns, 7); /* 1007 - first_hw_timestamp 1000 */
    assert_int_equal(a.duration_ns, 5);
    assert_int_equal(a.evt_wait_ns, 0);
    assert_true(a.id == 7);
    assert_string_equal(device_model_str(m, a.opcode, NULL), "NOP");
    assert_int_equal(a.compiler_opcode, 0);
    assert_int_equal(a.layer, 0);
    assert_int_equal(a.source, 0);
    assert_true(a.hbm_read == 0 && a.spill_reload == 0);
    assert_int_equal(a.flags, 0);
    assert_int_equal(b.timestamp_ns, 100);
    assert_int_equal(b.duration_ns, 37);
    assert_int_equal(b.evt_wait_ns, 12);
    assert_true(b.id == UINT64_MAX);
    assert_string_equal(device_model_str(m, b.engine, NULL), "Sync");
    assert_string_equal(device_model_str(m, b.label, NULL), "Sync");
    assert_string_equal(device_model_str(m, b.opcode, NULL), "WRITE");
    assert_string_equal(device_model_str(m, b.compiler_opcode, NULL), "PSEUDO_DMA_TRIGGER");
    assert_string_equal(device_model_str(m, b.layer, NULL), "_dot.3");
    assert_string_equal(device_model_str(m, b.hlo_name, NULL), "%dot.3 = dot(%p0, %p1)");
    assert_string_equal(device_model_str(m, b.type, NULL), "REGULAR");
    assert_string_equal(device_model_str(m, b.source, NULL), "model.py:42");
    assert_true(b.hbm_read == 32768 && b.hbm_write == 1 && b.sbuf_read == 2 && b.sbuf_write == 32768);
    assert_true(b.psum_read == 3 && b.psum_write == 4 && b.spill_save == 5 && b.spill_reload == 6);
    assert_int_equal(b.flags, DM_INSTR_F_DMA_TRIGGER); /* PSEUDO_DMA_TRIGGER although opcode is WRITE */
    device_model_free(m);
}

static void metadata_after_rows_still_normalises_every_time_column(void **state)
{
    (void)state;
    device_model *m = read_ok(export_doc, sizeof export_doc - 1, NULL);
    int from_meta = 0;
    assert_int_equal(device_model_time_origin(m, &from_meta), 1000);
    assert_int_equal(from_meta, 1);
    const table *d = device_model_table_get(m, DEVICE_MODEL_DMA);
    assert_int_equal(table_i64(d, DM_DMA_TIMESTAMP, 0), 200);
    assert_int_equal(table_i64(d, DM_DMA_TIMESTAMP, 1), 150);
    assert_int_equal(table_i64(d, DM_DMA_DURATION, 1), 382); /* durations are not shifted */
    const table *at = device_model_table_get(m, DEVICE_MODEL_ACTIVE_TIME);
    assert_int_equal(table_i64(at, DM_ACTIVE_START, 0), 57);
    assert_int_equal(table_i64(at, DM_ACTIVE_END, 0), 122);
    assert_int_equal(table_i64(at, DM_ACTIVE_DURATION, 0), 64);
    const table *s = device_model_table_get(m, DEVICE_MODEL_SEMAPHORES);
    assert_int_equal(table_i64(s, DM_SEM_TIMESTAMP, 0), 499);
    const table *l = device_model_table_get(m, DEVICE_MODEL_LAYERS);
    assert_int_equal(table_i64(l, DM_LAYER_START, 0), 7);
    assert_int_equal(table_i64(l, DM_LAYER_END, 0), 1000);
    assert_int_equal(table_i64(l, DM_LAYER_DURATION, 0), 993);
    device_model_free(m);
}

static void dma_records_keep_ids_flags_and_queue_names(void **state)
{
    (void)state;
    device_model *m = read_ok(export_doc, sizeof export_doc - 1, NULL);
    const table *d = device_model_table_get(m, DEVICE_MODEL_DMA);
    assert_int_equal(table_rows(d), 2);
    assert_true(table_u64(d, DM_DMA_ID, 0) == 140303715310285174ull);
    assert_true(table_u64(d, DM_DMA_AGG_ID, 0) == 9223372036854775809ull);
    assert_true(table_u64(d, DM_DMA_ID, 1) == 9223372036854775809ull);
    assert_true(table_u64(d, DM_DMA_AGG_ID, 1) == 0);
    assert_true(table_u64(d, DM_DMA_TRANSFER_SIZE, 0) == 2048);
    assert_string_equal(str_at(m, DEVICE_MODEL_DMA, DM_DMA_QUEUE, 0), "qSyncSpillReload0");
    assert_string_equal(str_at(m, DEVICE_MODEL_DMA, DM_DMA_SUBGROUP, 0), "qSyncSpillReload0-Q1-E0");
    assert_string_equal(str_at(m, DEVICE_MODEL_DMA, DM_DMA_QUEUE, 1), "qSyncSpillReload0");
    assert_string_equal(str_at(m, DEVICE_MODEL_DMA, DM_DMA_QUEUE_TYPE, 0), "data");
    assert_string_equal(str_at(m, DEVICE_MODEL_DMA, DM_DMA_VARIABLE, 1), "unknown");
    assert_int_equal(table_i64(d, DM_DMA_ENGINE, 0), 0);
    assert_int_equal(table_i64(d, DM_DMA_QUEUE_IDX, 0), 1);
    assert_int_equal(table_i64(d, DM_DMA_ENGINE, 1), 15);
    assert_int_equal(table_i64(d, DM_DMA_QUEUE_IDX, 1), -1); /* absent */
    assert_int_equal(table_u64(d, DM_DMA_FLAGS, 0), 0);
    assert_int_equal(table_u64(d, DM_DMA_FLAGS, 1), DM_DMA_F_AGGREGATED | DM_DMA_F_CC | DM_DMA_F_DUPLICATE);
    device_model_free(m);
}

static void small_tables_and_singleton_records_are_filled(void **state)
{
    (void)state;
    device_model *m = read_ok(export_doc, sizeof export_doc - 1, NULL);
    assert_string_equal(str_at(m, DEVICE_MODEL_ACTIVE_TIME, DM_ACTIVE_ENGINE, 0), "tensor");
    assert_string_equal(str_at(m, DEVICE_MODEL_SEMAPHORES, DM_SEM_ID, 0), "2");
    assert_int_equal(table_i64(device_model_table_get(m, DEVICE_MODEL_SEMAPHORES), DM_SEM_VALUE, 0), 1);
    const table *l = device_model_table_get(m, DEVICE_MODEL_LAYERS);
    assert_string_equal(str_at(m, DEVICE_MODEL_LAYERS, DM_LAYER_NAME, 0), "/sg00");
    assert_int_equal(table_i64(l, DM_LAYER_ACTIVE(DM_ENGINE_TENSOR), 0), 427);
    assert_int_equal(table_i64(l, DM_LAYER_INSTR_COUNT(DM_ENGINE_SYNC), 0), 1);
    assert_int_equal(table_i64(l, DM_LAYER_ACTIVE(DM_ENGINE_VECTOR), 0), 0);
    assert_true(table_f64(l, DM_LAYER_MFU, 0) == 2.6089068091508943e-05);
    assert_string_equal(str_at(m, DEVICE_MODEL_WARNINGS, DM_WARN_CATEGORY, 0), "Missing Data");
    assert_string_equal(str_at(m, DEVICE_MODEL_WARNINGS, DM_WARN_MESSAGE, 0), "Missing DGE");

    const kvlist *s = device_model_record_get(m, DEVICE_MODEL_SUMMARY);
    double d = 0;
    int64_t i = 0;
    const char *str = NULL;
    assert_true(kvlist_get_num(s, "total_time", &d) && d == 0.001869298853);
    assert_string_equal(kvlist_text_str(s, kvlist_get(s, "total_time")), "0.001869298853");
    assert_true(kvlist_get_i64(s, "hbm_read_bytes", &i) && i == 100352);
    assert_true(kvlist_get_str(s, "instance_type", &str));
    assert_string_equal(str, "inf2.xlarge");
    assert_false(kvlist_get_num(s, "instance_type", &d));
    assert_null(kvlist_get(s, "latency"));
    const kvlist *meta = device_model_record_get(m, DEVICE_MODEL_METADATA);
    assert_true(kvlist_get_i64(meta, "vnc_enabled", &i) && i == 0);
    assert_int_equal(kvlist_get(meta, "vnc_enabled")->kind, KVLIST_BOOL);
    const kvlist *mi = device_model_record_get(m, DEVICE_MODEL_MODEL_INFO);
    assert_int_equal(kvlist_count(mi), 2); /* only model_info[0] */
    assert_null(kvlist_get(mi, "extra"));
    const kvlist *pi = device_model_record_get(m, DEVICE_MODEL_PROFILE_INFO);
    assert_int_equal(kvlist_get(pi, "nested")->kind, KVLIST_COMPOUND);
    assert_true(kvlist_get_str(device_model_record_get(m, DEVICE_MODEL_NEFF_HEADER), "uuid", &str));
    device_model_free(m);
}

static void unknown_arrays_keys_and_extra_records_are_counted(void **state)
{
    (void)state;
    device_model *m = read_ok(export_doc, sizeof export_doc - 1, NULL);
    const device_model_note *n = find_note(m, DEVICE_MODEL_NOTE_ARRAY_SKIPPED, "ham");
    assert_non_null(n);
    assert_int_equal(n->count, 3);
    n = find_note(m, DEVICE_MODEL_NOTE_ARRAY_READ, "instruction");
    assert_non_null(n);
    assert_int_equal(n->count, 2);
    n = find_note(m, DEVICE_MODEL_NOTE_EXTRA_RECORD, "model_info");
    assert_non_null(n);
    assert_int_equal(n->count, 1);
    device_model_free(m);

    static const char doc[] = "{\"cc_stream\":[1,{\"a\":[2,3]},[4],\"x\"],\"version\":\"9\",\"blob\":{\"k\":[1]},"
                              "\"instruction\":[{\"opcode\":\"NOP\",\"brand_new\":{\"x\":[1]}},{\"brand_new\":2}]}";
    m = read_ok(doc, sizeof doc - 1, NULL);
    n = find_note(m, DEVICE_MODEL_NOTE_ARRAY_SKIPPED, "cc_stream");
    assert_non_null(n);
    assert_int_equal(n->count, 4);
    assert_non_null(find_note(m, DEVICE_MODEL_NOTE_NOT_ARRAY, "version"));
    assert_non_null(find_note(m, DEVICE_MODEL_NOTE_NOT_ARRAY, "blob"));
    n = find_note(m, DEVICE_MODEL_NOTE_UNKNOWN_KEY, "brand_new");
    assert_non_null(n);
    assert_int_equal(n->count, 2);
    assert_string_equal(device_model_str(m, n->scope, NULL), "instruction");
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS), 2);
    int from_meta = 1;
    assert_int_equal(device_model_time_origin(m, &from_meta), 0); /* no metadata: times stay raw */
    assert_int_equal(from_meta, 0);
    device_model_free(m);
}

static void source_location_prefers_nki_then_bir_then_hlo_attrs(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"instruction\":["
        "{\"hlo_attrs\":\"[{\\\"source_file\\\":\\\"m.py\\\",\\\"source_line\\\":\\\"0\\\"}]\"},"   /* line 0 → none */
        "{\"hlo_attrs\":\"[{\\\"source_file\\\":\\\"\\\",\\\"source_line\\\":\\\"3\\\"},"
        "{\\\"source_line\\\":7,\\\"source_file\\\":\\\"k.py\\\"}]\"},"                             /* 2nd element */
        "{\"hlo_attrs\":\"[{\\\"source_file\\\":\\\"m.py\\\",\\\"source_line\\\":\\\"9\\\"}]\","
        "\"bir_debug_info_source_location\":\"b.py:2\"},"
        "{\"bir_debug_info_source_location\":\"b.py:2\",\"nki_source_location\":\"kernel.py:11\"},"
        "{\"hlo_attrs\":\"not json\"},"
        "{\"hlo_attrs\":\"[{\\\"source_file\\\":\\\"m.py\\\",\\\"source_line\\\":\\\"0\\\"}]\"}"  /* cached */
        "]}";
    device_model *m = read_ok(doc, sizeof doc - 1, NULL);
    assert_string_equal(str_at(m, DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_SOURCE, 0), "");
    assert_string_equal(str_at(m, DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_SOURCE, 1), "k.py:7");
    assert_string_equal(str_at(m, DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_SOURCE, 2), "b.py:2");
    assert_string_equal(str_at(m, DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_SOURCE, 3), "kernel.py:11");
    assert_string_equal(str_at(m, DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_SOURCE, 4), "");
    assert_string_equal(str_at(m, DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_SOURCE, 5), "");
    device_model_free(m);
}

static void dma_trigger_flag_checks_compiler_opcode_then_opcode(void **state)
{
    (void)state;
    static const char doc[] = "{\"instruction\":[{\"opcode\":\"DMA_DIRECT2D\"},{\"opcode\":\"WRITE\"},"
                              "{\"opcode\":\"WRITE\",\"compiler_opcode\":\"PSEUDO_DMA_TRIGGER\"},"
                              "{\"opcode\":\"MATMUL\",\"compiler_opcode\":\"\"}]}";
    device_model *m = read_ok(doc, sizeof doc - 1, NULL);
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    assert_int_equal(table_u64(t, DM_INSTR_FLAGS, 0), DM_INSTR_F_DMA_TRIGGER);
    assert_int_equal(table_u64(t, DM_INSTR_FLAGS, 1), 0);
    assert_int_equal(table_u64(t, DM_INSTR_FLAGS, 2), DM_INSTR_F_DMA_TRIGGER);
    assert_int_equal(table_u64(t, DM_INSTR_FLAGS, 3), 0);
    device_model_free(m);
}

static void read_size_does_not_change_the_model(void **state)
{
    (void)state;
    size_t sizes[] = {1, 2, 3, 7, 64, 4096, 0};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        neuron_json_options opt = {.read_size = sizes[k]};
        device_model *m = read_ok(export_doc, sizeof export_doc - 1, &opt);
        device_model_instr b;
        device_model_instr_get(m, 1, &b);
        assert_true(b.id == UINT64_MAX);
        assert_string_equal(device_model_str(m, b.source, NULL), "model.py:42");
        assert_string_equal(device_model_str(m, b.hlo_name, NULL), "%dot.3 = dot(%p0, %p1)");
        assert_int_equal(device_model_rows(m, DEVICE_MODEL_DMA), 2);
        assert_int_equal(device_model_time_origin(m, NULL), 1000);
        assert_int_equal(kvlist_count(device_model_record_get(m, DEVICE_MODEL_SUMMARY)), 3);
        device_model_free(m);
    }
}

/* ---- errors ------------------------------------------------------------------------------------------- */

static void every_cut_of_an_export_is_truncated_at_the_cut(void **state)
{
    (void)state;
    size_t len = sizeof export_doc - 1;
    while (export_doc[len - 1] == '\n' || export_doc[len - 1] == '}')
        len--;
    for (size_t cut = 1; cut <= len; cut++) {
        nl_error err = read_fail(export_doc, cut, NULL);
        if (err.code != NL_ERR_TRUNCATED || err.offset != (int64_t)cut)
            fail_msg("cut at %zu: %s at %lld (%s)", cut, nl_error_code_name(err.code), (long long)err.offset,
                     err.message);
    }
}

static void a_cut_inside_a_record_names_record_and_field(void **state)
{
    (void)state;
    const char *p = strstr(export_doc, "\"opcode\":\"WRITE");
    size_t cut = (size_t)(p - export_doc) + 12; /* inside the string value "WR */
    nl_error err = read_fail(export_doc, cut, NULL);
    assert_int_equal(err.code, NL_ERR_TRUNCATED);
    assert_int_equal(err.offset, (int64_t)cut);
    assert_int_equal(err.record, 1);
    assert_string_equal(err.field, "instruction.opcode");
    neuron_json_options opt = {.read_size = 5};
    err = read_fail(export_doc, cut, &opt);
    assert_int_equal(err.code, NL_ERR_TRUNCATED);
    assert_int_equal(err.offset, (int64_t)cut);
    assert_int_equal(err.record, 1);
}

static void a_value_of_the_wrong_type_names_record_field_and_offset(void **state)
{
    (void)state;
    static const char doc[] = "{\"instruction\":[{\"timestamp\":1},{\"timestamp\":\"soon\"}]}";
    nl_error err = read_fail(doc, sizeof doc - 1, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, (int64_t)(strstr(doc, "\"soon\"") - doc));
    assert_int_equal(err.record, 1);
    assert_string_equal(err.field, "instruction.timestamp");
    assert_non_null(strstr(err.message, "expected a number"));

    static const char neg[] = "{\"dma\":[{\"transfer_size\":-1}]}";
    err = read_fail(neg, sizeof neg - 1, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_string_equal(err.field, "dma.transfer_size");
    assert_int_equal(err.record, 0);

    static const char nested[] = "{\"instruction\":[{\"opcode\":[\"NOP\"]}]}";
    err = read_fail(nested, sizeof nested - 1, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_string_equal(err.field, "instruction.opcode");

    static const char scalar_row[] = "{\"instruction\":[{},7]}";
    err = read_fail(scalar_row, sizeof scalar_row - 1, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 19);

    static const char not_array[] = "{\"dma\":{\"a\":1}}";
    err = read_fail(not_array, sizeof not_array - 1, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 7);
}

static void empty_and_non_object_files_are_format_errors(void **state)
{
    (void)state;
    nl_error err = read_fail("", 0, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 0);
    assert_non_null(strstr(err.message, "empty"));
    err = read_fail("[1,2]", 5, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 0);
    err = read_fail("{\"instruction\":[]} {}", 21, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 19);
    device_model *m = read_ok("{}", 2, NULL);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS), 0);
    assert_null(device_model_record_get(m, DEVICE_MODEL_SUMMARY));
    device_model_free(m);
}

static void missing_file_is_not_found(void **state)
{
    (void)state;
    device_model *m = (device_model *)0x1;
    nl_error err;
    assert_int_equal(neuron_json_read("/nonexistent/neuronlens/x.json", NULL, &m, &err), -1);
    assert_null(m);
    assert_int_equal(err.code, NL_ERR_NOT_FOUND);
    assert_string_equal(err.source, "/nonexistent/neuronlens/x.json");
}

static void a_set_cancel_flag_stops_the_read(void **state)
{
    (void)state;
    atomic_int cancel = 1;
    neuron_json_options opt = {.cancel = &cancel, .read_size = 64};
    nl_error err = read_fail(export_doc, sizeof export_doc - 1, &opt);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
}

typedef struct progress_log {
    int calls;
    uint64_t last_done, total;
    int monotonic;
} progress_log;

static void log_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress_log *p = ctx;
    if (done < p->last_done)
        p->monotonic = 0;
    p->last_done = done;
    p->total = total;
    p->calls++;
}

static void progress_reports_bytes_against_the_total(void **state)
{
    (void)state;
    progress_log log = {.monotonic = 1};
    neuron_json_options opt = {.progress = log_progress, .progress_ctx = &log, .read_size = 100};
    device_model *m = read_ok(export_doc, sizeof export_doc - 1, &opt);
    assert_true(log.calls >= 2);
    assert_true(log.monotonic);
    assert_int_equal(log.total, sizeof export_doc - 1);
    assert_int_equal(log.last_done, sizeof export_doc - 1);
    device_model_free(m);
}

static void a_memory_limit_fails_cleanly_with_nomem(void **state)
{
    (void)state;
    size_t limits[] = {1, 4096, 32768};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        neuron_json_options opt = {.memory_limit = limits[k]};
        nl_error err = read_fail(export_doc, sizeof export_doc - 1, &opt);
        assert_int_equal(err.code, NL_ERR_NOMEM);
    }
    /* 40,000 instructions with distinct hlo_names need more than one 1 MiB arena chunk: the limit hits in
     * the middle of the instruction array, and the error says where */
    size_t cap = 40000 * 64 + 64, len = 0;
    char *doc = malloc(cap);
    len += (size_t)snprintf(doc + len, cap - len, "{\"instruction\":[");
    for (int i = 0; i < 40000; i++)
        len += (size_t)snprintf(doc + len, cap - len, "%s{\"hlo_name\":\"%%fusion.%08d = f(%%p)\"}", i ? "," : "", i);
    len += (size_t)snprintf(doc + len, cap - len, "]}");
    neuron_json_options opt = {.memory_limit = ((size_t)1 << 20) + 64};
    nl_error err = read_fail(doc, len, &opt);
    assert_int_equal(err.code, NL_ERR_NOMEM);
    assert_true(err.record > 0 && err.record < 40000);
    assert_true(err.offset > 0 && err.offset < (int64_t)len);
    assert_true(strncmp(err.field, "instruction", 11) == 0);
    opt.memory_limit = (size_t)16 << 20;
    device_model *m = read_ok(doc, len, &opt);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS), 40000);
    assert_int_equal(table_dict_size(device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS), DM_INSTR_HLO_NAME), 40000);
    device_model_free(m);
    free(doc);
}

static void a_file_on_disk_reads_like_memory(void **state)
{
    (void)state;
    char path[] = "/tmp/nl-neuron-json-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, export_doc, sizeof export_doc - 1), (ssize_t)(sizeof export_doc - 1));
    close(fd);
    device_model *m;
    nl_error err;
    assert_int_equal(neuron_json_read(path, NULL, &m, &err), 0);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS), 2);
    device_model_free(m);
    unlink(path);
}

/* ---- summary-json ------------------------------------------------------------------------------------- */

static void summary_json_reads_each_profile_as_a_record(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"n_ec35848ca8c1428c8a311d8c5dd22cc2aaaaaaaa\":{\"total_time\":0.001869298853,\"nc_idx\":0,"
        "\"hbm_read_bytes\":100352,\"runtime_version\":\"2.29.40 (f954c)\",\"big\":18446744073709551615,\"x\":[1]},"
        "\"s_1\":{\"total_time\":1e-3},\"junk\":3}";
    summary_json *s = NULL;
    nl_error err;
    assert_int_equal(summary_json_read_mem(doc, sizeof doc - 1, "s.json", &s, &err), 0);
    assert_int_equal(summary_json_count(s), 2);
    assert_int_equal(summary_json_skipped(s), 1);
    assert_string_equal(summary_json_name(s, 0), "n_ec35848ca8c1428c8a311d8c5dd22cc2aaaaaaaa");
    const kvlist *l = summary_json_metrics(s, 0);
    double d;
    int64_t i;
    const char *str;
    assert_true(kvlist_get_num(l, "total_time", &d) && d == 0.001869298853);
    assert_string_equal(kvlist_text_str(l, kvlist_get(l, "total_time")), "0.001869298853");
    assert_true(kvlist_get_i64(l, "hbm_read_bytes", &i) && i == 100352);
    assert_true(kvlist_get_str(l, "runtime_version", &str));
    assert_string_equal(str, "2.29.40 (f954c)");
    assert_int_equal(kvlist_get(l, "big")->kind, KVLIST_UINT);
    assert_true(kvlist_get(l, "big")->u == UINT64_MAX);
    assert_false(kvlist_get_i64(l, "big", &i));
    assert_int_equal(kvlist_get(l, "x")->kind, KVLIST_COMPOUND);
    assert_true(kvlist_get_num(summary_json_metrics(s, 1), "total_time", &d) && d == 1e-3);
    summary_json_free(s);
}

static void summary_json_errors_name_offset_and_code(void **state)
{
    (void)state;
    summary_json *s = (summary_json *)0x1;
    nl_error err;
    assert_int_equal(summary_json_read_mem("{\"n_1\":{\"a\":1", 13, "s.json", &s, &err), -1);
    assert_null(s);
    assert_int_equal(err.code, NL_ERR_TRUNCATED);
    assert_int_equal(err.offset, 13);
    assert_string_equal(err.source, "s.json");
    assert_int_equal(summary_json_read_mem("[]", 2, "s.json", &s, &err), -1);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 0);
    assert_int_equal(summary_json_read_mem("", 0, "s.json", &s, &err), -1);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(summary_json_read("/nonexistent/summary.json", &s, &err), -1);
    assert_int_equal(err.code, NL_ERR_NOT_FOUND);
}

/* ---- a real export ------------------------------------------------------------------------------------ */

static void a_real_export_matches_its_documented_facts(void **state)
{
    (void)state;
    const char *dir = getenv("NL_SAMPLES_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/neuron-profile-json/profile_128x128x136.json", dir ? dir : "");
    if (!dir || access(path, R_OK) != 0) {
        printf("skipping: real export not available (NL_SAMPLES_DIR=%s)\n", dir ? dir : "(unset)");
        skip();
    }
    device_model *m;
    nl_error err;
    neuron_json_options opt = {.read_size = 4093};
    assert_int_equal(neuron_json_read(path, &opt, &m, &err), 0);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS), 127);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_DMA), 244);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_ACTIVE_TIME), 86);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_SEMAPHORES), 329);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_LAYERS), 2);
    assert_int_equal(device_model_rows(m, DEVICE_MODEL_WARNINGS), 2);
    assert_int_equal(kvlist_count(device_model_record_get(m, DEVICE_MODEL_SUMMARY)), 108);
    const device_model_note *n = find_note(m, DEVICE_MODEL_NOTE_ARRAY_SKIPPED, "dma_throughput");
    assert_non_null(n);
    assert_int_equal(n->count, 105);
    /* first instruction starts at 7 ns; the last ends at 1,869,470 ns */
    assert_int_equal(table_i64(device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS), DM_INSTR_TIMESTAMP, 0), 7);
    device_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(instructions_fill_every_column_and_sparse_keys_read_as_zero),
        cmocka_unit_test(metadata_after_rows_still_normalises_every_time_column),
        cmocka_unit_test(dma_records_keep_ids_flags_and_queue_names),
        cmocka_unit_test(small_tables_and_singleton_records_are_filled),
        cmocka_unit_test(unknown_arrays_keys_and_extra_records_are_counted),
        cmocka_unit_test(source_location_prefers_nki_then_bir_then_hlo_attrs),
        cmocka_unit_test(dma_trigger_flag_checks_compiler_opcode_then_opcode),
        cmocka_unit_test(read_size_does_not_change_the_model),
        cmocka_unit_test(every_cut_of_an_export_is_truncated_at_the_cut),
        cmocka_unit_test(a_cut_inside_a_record_names_record_and_field),
        cmocka_unit_test(a_value_of_the_wrong_type_names_record_field_and_offset),
        cmocka_unit_test(empty_and_non_object_files_are_format_errors),
        cmocka_unit_test(missing_file_is_not_found),
        cmocka_unit_test(a_set_cancel_flag_stops_the_read),
        cmocka_unit_test(progress_reports_bytes_against_the_total),
        cmocka_unit_test(a_memory_limit_fails_cleanly_with_nomem),
        cmocka_unit_test(a_file_on_disk_reads_like_memory),
        cmocka_unit_test(summary_json_reads_each_profile_as_a_record),
        cmocka_unit_test(summary_json_errors_name_offset_and_code),
        cmocka_unit_test(a_real_export_matches_its_documented_facts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
