/* test_explorer_parquet — neuron-explorer profile directories (analyzers/readers/explorer_parquet.h) built
 * file by file with tests/unit/parquet_build.c, without node: which file names belong to a table and in what
 * order its parts are read, the mapping onto the device model (engine capitalised, source from
 * nki_source_location else bir_debug_info_source_location, the DMA-trigger flag, ids above 2^63, nulls as
 * defaults), the notes and inventory (unknown columns and tables), the Summary percent interpretation, times
 * already relative to first_hw_timestamp, and errors naming file, table.column and row. The DuckDB-written
 * fixtures of tests/parquet/ cover the same reader against real writer output. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "explorer_parquet.h"
#include "parquet.h"
#include "parquet_build.h"

/* ---- writing tables ---------------------------------------------------------------------------------- */

/* One column: INT64 (i), DOUBLE (d) or BYTE_ARRAY (s); `valid` (nullable) makes it optional. */
typedef struct col_spec {
    const char *name;
    int type;
    const int64_t *i;
    const double *d;
    const char *const *s;
    const uint8_t *valid;
} col_spec;

static void write_file(const char *path, const pb_buf *b)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->p, 1, b->len, f), b->len);
    fclose(f);
}

static void write_table(const char *dir, const char *file, const col_spec *cols, size_t ncols, size_t rows)
{
    pb_elem schema[16];
    pb_buf chunks[16];
    pb_column pc[16];
    assert_true(ncols < 16);
    schema[0] = (pb_elem){"schema", -1, -1, (int)ncols, -1, 0, 0, 0, 0};
    for (size_t c = 0; c < ncols; c++) {
        const col_spec *cs = &cols[c];
        schema[c + 1] = (pb_elem){cs->name, cs->type, cs->valid ? PARQUET_OPTIONAL : PARQUET_REQUIRED, 0, -1,
                                  cs->type == PARQUET_BYTE_ARRAY ? 1 : 0, 0, 0, 0};
        pb_buf body = {0};
        if (cs->valid) {
            pb_buf levels = {0};
            uint32_t def[64];
            for (size_t r = 0; r < rows; r++)
                def[r] = cs->valid[r];
            pb_rle_packed(&levels, def, rows, 1);
            pb_le32(&body, (uint32_t)levels.len);
            pb_bytes(&body, levels.p, levels.len);
            pb_free(&levels);
        }
        for (size_t r = 0; r < rows; r++) {
            if (cs->valid && !cs->valid[r])
                continue;
            if (cs->type == PARQUET_BYTE_ARRAY) {
                pb_le32(&body, (uint32_t)strlen(cs->s[r]));
                pb_bytes(&body, cs->s[r], strlen(cs->s[r]));
            } else {
                uint64_t u;
                if (cs->type == PARQUET_DOUBLE)
                    memcpy(&u, &cs->d[r], 8);
                else
                    u = (uint64_t)cs->i[r];
                for (int k = 0; k < 8; k++)
                    pb_u8(&body, (uint8_t)(u >> (8 * k)));
            }
        }
        memset(&chunks[c], 0, sizeof chunks[c]);
        pb_page h = {.type = 0, .num_values = (int32_t)rows, .encoding = 0, .def_enc = 3, .rep_enc = 3,
                     .uncompressed = -1, .compressed = -1, .crc = -1};
        pb_page_write(&chunks[c], &h, body.p, body.len);
        pb_free(&body);
        pc[c] = (pb_column){&chunks[c], cs->type, PARQUET_UNCOMPRESSED, (int64_t)rows, 0, cs->name, 0};
    }
    pb_row_group rg = {(int64_t)rows, pc, ncols};
    pb_buf out = {0};
    pb_file(&out, schema, ncols + 1, &rg, 1, 0, NULL, NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    write_file(path, &out);
    pb_free(&out);
    for (size_t c = 0; c < ncols; c++)
        pb_free(&chunks[c]);
}

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/nl_explorer_XXXXXX");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        assert_int_equal(unlink(path), 0);
    }
    closedir(d);
    assert_int_equal(rmdir(dir), 0);
    return 0;
}

/* An instruction part: start_ts from `t0`, one row per engine spelling. */
static void instruction_part(const char *file, int64_t t0, size_t rows, const int64_t *hbm)
{
    static const char *const engines[3] = {"tensor", "Vector", "GPSIMD"};
    static const char *const opcodes[3] = {"MATMUL", "WRITE", "DMA_DIRECT2D"};
    static const char *const compiler[3] = {"", "PSEUDO_DMA_TRIGGER", ""};
    static const char *const nki[3] = {"kernels/a.py:10", "", ""};
    static const char *const bir[3] = {"bir/x.py:1", "bir/y.py:2", ""};
    static const char *const future[3] = {"a", "b", "c"};
    static const uint8_t bir_valid[3] = {1, 1, 0};
    int64_t start[3], dur[3] = {5, 7, 11}, id[3] = {-1, 2, 3};
    for (size_t r = 0; r < rows; r++)
        start[r] = t0 + (int64_t)r * 100;
    static const int64_t zero[3] = {0, 0, 0};
    col_spec cols[] = {
        {"start_ts", PARQUET_INT64, start, NULL, NULL, NULL},
        {"duration_ns", PARQUET_INT64, dur, NULL, NULL, NULL},
        {"engine", PARQUET_BYTE_ARRAY, NULL, NULL, engines, NULL},
        {"opcode", PARQUET_BYTE_ARRAY, NULL, NULL, opcodes, NULL},
        {"compiler_opcode", PARQUET_BYTE_ARRAY, NULL, NULL, compiler, NULL},
        {"nki_source_location", PARQUET_BYTE_ARRAY, NULL, NULL, nki, NULL},
        {"bir_debug_info_source_location", PARQUET_BYTE_ARRAY, NULL, NULL, bir, bir_valid},
        {"hbm_read_bytes", PARQUET_INT64, hbm ? hbm : zero, NULL, NULL, NULL},
        {"id", PARQUET_INT64, id, NULL, NULL, NULL},
        {"future_column", PARQUET_BYTE_ARRAY, NULL, NULL, future, NULL},
    };
    write_table(dir, file, cols, sizeof cols / sizeof cols[0], rows);
}

static void metadata(int64_t first_hw)
{
    static const char *const version[1] = {"7.4.0"};
    int64_t first[1] = {first_hw};
    col_spec cols[] = {
        {"profile_schema_version", PARQUET_BYTE_ARRAY, NULL, NULL, version, NULL},
        {"first_hw_timestamp", PARQUET_INT64, first, NULL, NULL, NULL},
    };
    write_table(dir, "Metadata.parquet", cols, 2, 1);
}

static const char *str(const device_model *m, uint32_t id)
{
    return device_model_str(m, id, NULL);
}

static const device_model_note *find_note(const device_model *m, device_model_note_kind kind, const char *name)
{
    for (size_t i = 0; i < device_model_note_count(m); i++) {
        const device_model_note *n = device_model_note_at(m, i);
        if (n->kind == kind && strcmp(str(m, n->name), name) == 0)
            return n;
    }
    return NULL;
}

/* ---- tests ----------------------------------------------------------------------------------------- */

static void parts_are_matched_by_name_and_read_in_part_order(void **state)
{
    (void)state;
    metadata(1000);
    instruction_part("Instruction_10.parquet", 1300, 1, NULL);
    instruction_part("Instruction_2.parquet", 1200, 1, NULL);
    instruction_part("Instruction.parquet", 1100, 3, NULL);
    instruction_part("InstructionTrace.parquet", 1400, 1, NULL); /* another table, not a part */
    instruction_part("_Instruction_3.parquet", 1500, 1, NULL);   /* no table name: ignored */
    char other[128];
    snprintf(other, sizeof other, "%s/Instruction_4.parquet.tmp", dir);
    pb_buf junk = {0};
    pb_bytes(&junk, "junk", 4);
    write_file(other, &junk);
    pb_free(&junk);
    assert_true(explorer_parquet_is_profile_dir(dir));

    device_model *m;
    explorer_parquet_inventory *inv;
    nl_error e;
    int rc = explorer_parquet_read(dir, NULL, &m, &inv, &e);
    if (rc)
        print_message("%s: %s\n", e.source, e.message);
    assert_int_equal(rc, 0);
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    assert_int_equal(table_rows(t), 5);
    /* Instruction.parquet, then _2, then _10; times relative to first_hw_timestamp 1000 */
    const int64_t want_ts[5] = {100, 200, 300, 200, 300};
    for (size_t r = 0; r < 5; r++)
        assert_int_equal(table_i64(t, DM_INSTR_TIMESTAMP, r), want_ts[r]);
    device_model_instr in;
    device_model_instr_get(m, 0, &in);
    assert_string_equal(str(m, in.engine), "Tensor");
    assert_string_equal(str(m, in.source), "kernels/a.py:10");
    assert_int_equal(in.id, UINT64_MAX); /* int64 -1 keeps its 64 bits */
    assert_int_equal(in.flags & DM_INSTR_F_DMA_TRIGGER, 0);
    device_model_instr_get(m, 1, &in);
    assert_string_equal(str(m, in.engine), "Vector");
    assert_string_equal(str(m, in.source), "bir/y.py:2");
    assert_int_equal(in.flags & DM_INSTR_F_DMA_TRIGGER, DM_INSTR_F_DMA_TRIGGER); /* PSEUDO_DMA_TRIGGER */
    device_model_instr_get(m, 2, &in);
    assert_string_equal(str(m, in.engine), "GpSimd");
    assert_string_equal(str(m, in.source), ""); /* nki "" and bir null */
    assert_int_equal(in.flags & DM_INSTR_F_DMA_TRIGGER, DM_INSTR_F_DMA_TRIGGER); /* DMA_DIRECT2D */

    const explorer_parquet_table *ti = explorer_parquet_table_find(inv, "Instruction");
    assert_non_null(ti);
    assert_int_equal(ti->files, 3);
    assert_non_null(strstr(ti->paths[0], "/Instruction.parquet"));
    assert_non_null(strstr(ti->paths[1], "/Instruction_2.parquet"));
    assert_non_null(strstr(ti->paths[2], "/Instruction_10.parquet"));
    assert_int_equal(ti->rows, 5);
    assert_true(ti->modelled);
    assert_int_equal(ti->columns, 10);
    assert_int_equal(ti->unknown_count, 1);
    assert_string_equal(ti->unknown[0], "future_column");
    const explorer_parquet_table *other_t = explorer_parquet_table_find(inv, "InstructionTrace");
    assert_non_null(other_t);
    assert_false(other_t->modelled);
    assert_null(explorer_parquet_table_find(inv, "_Instruction"));
    assert_int_equal(explorer_parquet_table_count(inv), 3); /* Instruction, InstructionTrace, Metadata */
    assert_string_equal(explorer_parquet_schema_version(inv), "7.4.0");
    assert_false(explorer_parquet_times_relative(inv));
    assert_int_equal(device_model_time_origin(m, NULL), 1000);

    const device_model_note *n = find_note(m, DEVICE_MODEL_NOTE_UNKNOWN_KEY, "future_column");
    assert_non_null(n);
    assert_string_equal(str(m, n->scope), "Instruction");
    assert_int_equal(n->count, 5);
    n = find_note(m, DEVICE_MODEL_NOTE_ARRAY_SKIPPED, "InstructionTrace");
    assert_non_null(n);
    assert_int_equal(n->count, 1);
    n = find_note(m, DEVICE_MODEL_NOTE_ARRAY_READ, "Instruction");
    assert_non_null(n);
    assert_int_equal(n->count, 5);
    explorer_parquet_inventory_free(inv);
    device_model_free(m);
}

static void a_negative_byte_count_names_file_column_and_row(void **state)
{
    (void)state;
    static const int64_t hbm[3] = {10, -5, 0};
    instruction_part("Instruction.parquet", 10, 3, hbm);
    device_model *m = (device_model *)1;
    nl_error e;
    memset(&e, 0x5a, sizeof e);
    assert_int_equal(explorer_parquet_read(dir, NULL, &m, NULL, &e), -1);
    assert_null(m);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    char path[128];
    snprintf(path, sizeof path, "%s/Instruction.parquet", dir);
    assert_string_equal(e.source, path);
    assert_string_equal(e.field, "Instruction.hbm_read_bytes");
    assert_int_equal(e.record, 1);
    assert_true(e.offset > 4);
    assert_non_null(strstr(e.message, "negative"));
}

static void summary_percents_above_one_are_read_as_percent(void **state)
{
    (void)state;
    static const double active[1] = {45.0}, mbu[1] = {1.5}, total[1] = {0.0012};
    col_spec cols[] = {
        {"mbu_min_read_util_percent", PARQUET_DOUBLE, NULL, mbu, NULL, NULL},
        {"tensor_engine_active_time_percent", PARQUET_DOUBLE, NULL, active, NULL, NULL},
        {"total_time", PARQUET_DOUBLE, NULL, total, NULL, NULL},
    };
    write_table(dir, "Summary.parquet", cols, 3, 1);
    device_model *m;
    explorer_parquet_inventory *inv;
    nl_error e;
    assert_int_equal(explorer_parquet_read(dir, NULL, &m, &inv, &e), 0);
    const char *evidence;
    assert_int_equal(explorer_parquet_summary_percent(inv, &evidence), EXPLORER_PARQUET_PERCENT_SCALED);
    assert_string_equal(evidence, "tensor_engine_active_time_percent"); /* mbu_min_read_util is no evidence */
    const kvlist *s = device_model_record_get(m, DEVICE_MODEL_SUMMARY);
    double v;
    assert_true(kvlist_get_num(s, "tensor_engine_active_time_percent", &v));
    assert_true(v == 0.45);
    assert_true(kvlist_get_num(s, "mbu_min_read_util_percent", &v));
    assert_true(v == 0.015);
    assert_true(kvlist_get_num(s, "total_time", &v));
    assert_true(v == 0.0012);
    const device_model_note *n = find_note(m, DEVICE_MODEL_NOTE_PERCENT_SCALED, "tensor_engine_active_time_percent");
    assert_non_null(n);
    assert_int_equal(n->count, 2);
    explorer_parquet_inventory_free(inv);
    device_model_free(m);
    /* the same values as fractions: kept */
    static const double frac[1] = {0.45};
    cols[1].d = frac;
    write_table(dir, "Summary.parquet", cols, 3, 1);
    assert_int_equal(explorer_parquet_read(dir, NULL, &m, &inv, &e), 0);
    assert_int_equal(explorer_parquet_summary_percent(inv, NULL), EXPLORER_PARQUET_PERCENT_FRACTION);
    assert_true(kvlist_get_num(device_model_record_get(m, DEVICE_MODEL_SUMMARY), "mbu_min_read_util_percent", &v));
    assert_true(v == 1.5);
    explorer_parquet_inventory_free(inv);
    device_model_free(m);
}

static void times_earlier_than_first_hw_timestamp_are_already_relative(void **state)
{
    (void)state;
    metadata(1000000);
    instruction_part("Instruction.parquet", 50, 3, NULL);
    device_model *m;
    explorer_parquet_inventory *inv;
    nl_error e;
    assert_int_equal(explorer_parquet_read(dir, NULL, &m, &inv, &e), 0);
    assert_true(explorer_parquet_times_relative(inv));
    assert_int_equal(table_i64(device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS), DM_INSTR_TIMESTAMP, 0), 50);
    assert_int_equal(device_model_time_origin(m, NULL), 0);
    assert_non_null(find_note(m, DEVICE_MODEL_NOTE_TIMES_RELATIVE, "first_hw_timestamp"));
    explorer_parquet_inventory_free(inv);
    device_model_free(m);
}

static void a_directory_without_tables_is_not_found(void **state)
{
    (void)state;
    device_model *m;
    nl_error e;
    assert_false(explorer_parquet_is_profile_dir(dir));
    assert_int_equal(explorer_parquet_read(dir, NULL, &m, NULL, &e), -1);
    assert_int_equal(e.code, NL_ERR_NOT_FOUND);
    assert_string_equal(e.source, dir);
    char missing[128];
    snprintf(missing, sizeof missing, "%s/nope", dir);
    assert_int_equal(explorer_parquet_read(missing, NULL, &m, NULL, &e), -1);
    assert_int_equal(e.code, NL_ERR_NOT_FOUND);
    assert_false(explorer_parquet_is_profile_dir(missing));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(parts_are_matched_by_name_and_read_in_part_order, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(a_negative_byte_count_names_file_column_and_row, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(summary_percents_above_one_are_read_as_percent, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(times_earlier_than_first_hw_timestamp_are_already_relative, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(a_directory_without_tables_is_not_found, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
