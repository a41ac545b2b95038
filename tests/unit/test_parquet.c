/* test_parquet — the Parquet reader (analyzers/readers/parquet.h) on files built byte by byte
 * (tests/unit/parquet_build.c): required, optional, dictionary-encoded and list columns in v1 and v2 pages,
 * row-group streaming and cancellation, reading from a path, and every error the reader promises, each
 * asserted for code, source, byte offset, column (field) and row group (record) on a poisoned nl_error; then
 * the torture: every prefix of a small file and every single-byte corruption of it must end in an error or
 * a result, never a crash (the ASan build checks the "never"). Finally two tiny files written by DuckDB
 * (tests/data/parquet/, made by tests/parquet/make_tiny.mjs) against the values DuckDB reads from them. */
#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <snappy-c.h>

#include "parquet.h"
#include "parquet_build.h"

#define SRC "t.parquet"

static void poison(nl_error *e)
{
    memset(e, 0x5a, sizeof *e);
    e->source[sizeof e->source - 1] = '\0';
    e->field[sizeof e->field - 1] = '\0';
    e->message[sizeof e->message - 1] = '\0';
}

static void assert_error(const nl_error *e, nl_error_code code, int64_t offset, const char *field, int64_t record)
{
    if (e->code != code || e->offset != offset)
        print_message("got %s at %lld (field %s, record %lld): %s\n", nl_error_code_name(e->code),
                      (long long)e->offset, e->field, (long long)e->record, e->message);
    assert_int_equal(e->code, code);
    assert_string_equal(e->source, SRC);
    assert_int_equal(e->offset, offset);
    if (field) {
        assert_string_equal(e->field, field);
        assert_int_equal(e->record, record);
    }
    assert_true(strlen(e->message) > 0);
}

static void assert_message_has(const nl_error *e, const char *what)
{
    if (!strstr(e->message, what))
        print_message("message \"%s\" lacks \"%s\"\n", e->message, what);
    assert_non_null(strstr(e->message, what));
}

/* ---- fixtures ------------------------------------------------------------------------------------- */

static const pb_elem SCHEMA_A[] = {
    {"schema", -1, -1, 1, -1, 0, 0, 0, 0},
    {"a", PARQUET_INT64, PARQUET_REQUIRED, 0, -1, 0, 0, 0, 0},
};

static void chunk_int64(pb_buf *chunk, const int64_t *v, size_t n)
{
    pb_buf body = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t u = (uint64_t)v[i];
        for (int k = 0; k < 8; k++)
            pb_u8(&body, (uint8_t)(u >> (8 * k)));
    }
    pb_page h = {.type = 0, .num_values = (int32_t)n, .encoding = 0, .def_enc = 3, .rep_enc = 3, .uncompressed = -1,
                 .compressed = -1, .crc = -2};
    pb_page_write(chunk, &h, body.p, body.len);
    pb_free(&body);
}

/* A: one required INT64 column "a" = 10, -20, 30 (page header at offset 4). */
static void file_a(pb_buf *file)
{
    static const int64_t v[3] = {10, -20, 30};
    pb_buf chunk = {0};
    chunk_int64(&chunk, v, 3);
    pb_column col = {&chunk, PARQUET_INT64, PARQUET_UNCOMPRESSED, 3, 0, "a", 0};
    pb_row_group rg = {3, &col, 1};
    pb_file(file, SCHEMA_A, 2, &rg, 1, 0, NULL, NULL);
    pb_free(&chunk);
}

static const pb_elem SCHEMA_S[] = {
    {"schema", -1, -1, 1, -1, 0, 0, 0, 0},
    {"s", PARQUET_BYTE_ARRAY, PARQUET_OPTIONAL, 0, 0, 1, 0, 0, 0},
};

static void put_str(pb_buf *b, const char *s)
{
    pb_le32(b, (uint32_t)strlen(s));
    pb_bytes(b, s, strlen(s));
}

/* The dictionary page of B: "x", "yy". */
static size_t dict_page(pb_buf *chunk, int32_t entries)
{
    pb_buf body = {0};
    put_str(&body, "x");
    put_str(&body, "yy");
    pb_page h = {.type = 2, .num_values = entries, .encoding = 0, .uncompressed = -1, .compressed = -1, .crc = -1};
    size_t start = chunk->len;
    pb_page_write(chunk, &h, body.p, body.len);
    pb_free(&body);
    return chunk->len - start;
}

/* A dictionary-encoded v1 page: def levels `def` (bit width 1), indices of the non-null rows at `bw` bits. */
static void dict_data_page(pb_buf *chunk, const uint32_t *def, size_t n, const uint32_t *idx, size_t nidx, unsigned bw)
{
    pb_buf levels = {0}, body = {0};
    pb_rle_packed(&levels, def, n, 1);
    pb_le32(&body, (uint32_t)levels.len);
    pb_bytes(&body, levels.p, levels.len);
    pb_u8(&body, (uint8_t)bw);
    pb_rle_packed(&body, idx, nidx, bw);
    pb_page h = {.type = 0, .num_values = (int32_t)n, .encoding = 8, .def_enc = 3, .rep_enc = 3, .uncompressed = -1,
                 .compressed = -1, .crc = -1};
    pb_page_write(chunk, &h, body.p, body.len);
    pb_free(&levels);
    pb_free(&body);
}

/* B: optional strings "s" = x, NULL, yy, x (dictionary), then zzz, x (PLAIN, when `plain_page`). */
static void file_b(pb_buf *file, int plain_page, const uint32_t *idx_override)
{
    static const uint32_t def[4] = {1, 0, 1, 1}, idx[3] = {0, 1, 0};
    pb_buf chunk = {0};
    size_t dlen = dict_page(&chunk, 2);
    dict_data_page(&chunk, def, 4, idx_override ? idx_override : idx, 3, 1);
    int64_t values = 4;
    if (plain_page) {
        pb_buf levels = {0}, body = {0};
        static const uint32_t def2[2] = {1, 1};
        pb_rle_packed(&levels, def2, 2, 1);
        pb_le32(&body, (uint32_t)levels.len);
        pb_bytes(&body, levels.p, levels.len);
        put_str(&body, "zzz");
        put_str(&body, "x");
        pb_page h = {.type = 0, .num_values = 2, .encoding = 0, .def_enc = 3, .rep_enc = 3, .uncompressed = -1,
                     .compressed = -1, .crc = -1};
        pb_page_write(&chunk, &h, body.p, body.len);
        pb_free(&levels);
        pb_free(&body);
        values = 6;
    }
    pb_column col = {&chunk, PARQUET_BYTE_ARRAY, PARQUET_UNCOMPRESSED, values, dlen, "s", 0};
    pb_row_group rg = {values, &col, 1};
    pb_file(file, SCHEMA_S, 2, &rg, 1, 0, NULL, NULL);
    pb_free(&chunk);
}

/* C: l LIST<INT32> = [1, 2], NULL, [], [NULL, 3]:
 *   rep levels 0 1 0 0 0 1, def levels 3 3 0 1 2 3 (max_def 3: l defined 1, list entry 2, element 3), values 1 2 3 */
static const pb_elem SCHEMA_L[] = {
    {"schema", -1, -1, 1, -1, 0, 0, 0, 0},
    {"l", -1, PARQUET_OPTIONAL, 1, 3, 3, 0, 0, 0},
    {"list", -1, PARQUET_REPEATED, 1, -1, 0, 0, 0, 0},
    {"element", PARQUET_INT32, PARQUET_OPTIONAL, 0, -1, 0, 0, 0, 0},
};
static const uint32_t REP_L[6] = {0, 1, 0, 0, 0, 1}, DEF_L[6] = {3, 3, 0, 1, 2, 3};

static void list_values(pb_buf *b)
{
    pb_le32(b, 1);
    pb_le32(b, 2);
    pb_le32(b, 3);
}

static void file_c_v1(pb_buf *file)
{
    pb_buf rep = {0}, def = {0}, body = {0}, chunk = {0};
    pb_rle_packed(&rep, REP_L, 6, 1);
    pb_rle_packed(&def, DEF_L, 6, 2);
    pb_le32(&body, (uint32_t)rep.len);
    pb_bytes(&body, rep.p, rep.len);
    pb_le32(&body, (uint32_t)def.len);
    pb_bytes(&body, def.p, def.len);
    list_values(&body);
    pb_page h = {.type = 0, .num_values = 6, .encoding = 0, .def_enc = 3, .rep_enc = 3, .uncompressed = -1,
                 .compressed = -1, .crc = -1};
    pb_page_write(&chunk, &h, body.p, body.len);
    pb_column col = {&chunk, PARQUET_INT32, PARQUET_UNCOMPRESSED, 6, 0, "l.list.element", 0};
    pb_row_group rg = {4, &col, 1};
    pb_file(file, SCHEMA_L, 4, &rg, 1, 0, NULL, NULL);
    pb_free(&rep);
    pb_free(&def);
    pb_free(&body);
    pb_free(&chunk);
}

/* C as one v2 page, levels raw, values snappy-compressed; `num_nulls`/`num_rows` as given. */
static void file_c_v2(pb_buf *file, int32_t num_nulls, int32_t num_rows)
{
    pb_buf rep = {0}, def = {0}, vals = {0}, body = {0}, chunk = {0};
    pb_rle_packed(&rep, REP_L, 6, 1);
    pb_rle_packed(&def, DEF_L, 6, 2);
    list_values(&vals);
    char comp[64];
    size_t clen = sizeof comp;
    assert_int_equal(snappy_compress((const char *)vals.p, vals.len, comp, &clen), SNAPPY_OK);
    pb_bytes(&body, rep.p, rep.len);
    pb_bytes(&body, def.p, def.len);
    pb_bytes(&body, comp, clen);
    pb_page h = {.type = 3, .num_values = 6, .num_nulls = num_nulls, .num_rows = num_rows, .encoding = 0,
                 .def_len = (int32_t)def.len, .rep_len = (int32_t)rep.len, .is_compressed = 1,
                 .uncompressed = (int32_t)(rep.len + def.len + vals.len), .compressed = -1, .crc = -2};
    pb_page_write(&chunk, &h, body.p, body.len);
    pb_column col = {&chunk, PARQUET_INT32, PARQUET_SNAPPY, 6, 0, "l.list.element", 0};
    pb_row_group rg = {4, &col, 1};
    pb_file(file, SCHEMA_L, 4, &rg, 1, 0, NULL, NULL);
    pb_free(&rep);
    pb_free(&def);
    pb_free(&vals);
    pb_free(&body);
    pb_free(&chunk);
}

static parquet_file *open_ok(const pb_buf *b)
{
    parquet_file *f = NULL;
    nl_error e;
    poison(&e);
    if (parquet_open_mem(b->p, b->len, SRC, &f, &e) != 0)
        print_message("open failed: %s\n", e.message);
    assert_non_null(f);
    return f;
}

static int open_fails(const pb_buf *b, nl_error *e)
{
    parquet_file *f = NULL;
    poison(e);
    int rc = parquet_open_mem(b->p, b->len, SRC, &f, e);
    parquet_close(f);
    return rc;
}

/* ---- reading ------------------------------------------------------------------------------------------ */

static void reads_a_required_int64_column(void **state)
{
    (void)state;
    pb_buf file = {0};
    file_a(&file);
    parquet_file *f = open_ok(&file);
    assert_int_equal(parquet_rows(f), 3);
    assert_int_equal(parquet_row_groups(f), 1);
    assert_int_equal(parquet_columns(f), 1);
    assert_string_equal(parquet_created_by(f), "neuronlens parquet_build");
    const parquet_column_info *ci = parquet_column(f, 0);
    assert_string_equal(ci->name, "a");
    assert_string_equal(ci->path, "a");
    assert_int_equal(ci->type, PARQUET_INT64);
    assert_false(ci->nullable);
    assert_false(ci->list);
    assert_int_equal(ci->max_def, 0);
    assert_int_equal(parquet_find_column(f, "a"), 0);
    assert_int_equal(parquet_find_column(f, "b"), -1);
    assert_int_equal(parquet_chunk_offset(f, 0, 0), 4);
    parquet_chunk c;
    parquet_chunk_init(&c);
    nl_error e;
    assert_int_equal(parquet_read_chunk(f, 0, 0, PARQUET_WANT_I64, &c, &e), 0);
    assert_int_equal(c.rows, 3);
    assert_int_equal(c.count, 3);
    assert_int_equal(c.nulls, 0);
    assert_null(c.valid);
    assert_null(c.def);
    assert_int_equal(c.i64[0], 10);
    assert_int_equal(c.i64[1], -20);
    assert_int_equal(c.i64[2], 30);
    assert_int_equal(c.pages, 1);
    parquet_chunk_close(&c);
    parquet_close(f);
    pb_free(&file);
}

static void reads_optional_strings_through_their_dictionary(void **state)
{
    (void)state;
    pb_buf file = {0};
    file_b(&file, 0, NULL);
    parquet_file *f = open_ok(&file);
    const parquet_column_info *ci = parquet_column(f, 0);
    assert_int_equal(ci->logical, PARQUET_LOGICAL_STRING);
    assert_true(ci->nullable);
    assert_int_equal(ci->max_def, 1);
    parquet_chunk c;
    parquet_chunk_init(&c);
    nl_error e;
    assert_int_equal(parquet_read_chunk(f, 0, 0, PARQUET_WANT_BYTES, &c, &e), 0);
    assert_int_equal(c.count, 4);
    assert_int_equal(c.nulls, 1);
    assert_non_null(c.dict_index);
    assert_null(c.bytes);
    assert_int_equal(c.dict_count, 2);
    const uint8_t want_valid[4] = {1, 0, 1, 1};
    assert_memory_equal(c.valid, want_valid, 4);
    assert_int_equal(c.dict_index[0], 0);
    assert_int_equal(c.dict_index[2], 1);
    assert_int_equal(c.dict_index[3], 0);
    const char *want[4] = {"x", "", "yy", "x"};
    for (size_t i = 0; i < 4; i++) {
        parquet_bytes b = parquet_chunk_bytes(&c, i);
        assert_int_equal(b.len, strlen(want[i]));
        assert_memory_equal(b.ptr, want[i], b.len);
    }
    parquet_chunk_close(&c);
    parquet_close(f);
    pb_free(&file);
}

static void a_plain_page_after_dictionary_pages_switches_to_views(void **state)
{
    (void)state;
    pb_buf file = {0};
    file_b(&file, 1, NULL);
    parquet_file *f = open_ok(&file);
    parquet_chunk c;
    parquet_chunk_init(&c);
    nl_error e;
    assert_int_equal(parquet_read_chunk(f, 0, 0, PARQUET_WANT_BYTES, &c, &e), 0);
    assert_int_equal(c.count, 6);
    assert_int_equal(c.pages, 2);
    assert_null(c.dict_index);
    assert_non_null(c.bytes);
    const char *want[6] = {"x", "", "yy", "x", "zzz", "x"};
    for (size_t i = 0; i < 6; i++) {
        parquet_bytes b = parquet_chunk_bytes(&c, i);
        assert_int_equal(b.len, strlen(want[i]));
        assert_memory_equal(b.ptr, want[i], b.len);
    }
    parquet_chunk_close(&c);
    parquet_close(f);
    pb_free(&file);
}

static void check_list_chunk(const parquet_chunk *c)
{
    assert_int_equal(c->rows, 4);
    assert_int_equal(c->count, 4); /* elements: 1, 2, NULL, 3 */
    assert_int_equal(c->nulls, 1);
    assert_int_equal(c->levels, 6);
    const uint32_t off[5] = {0, 2, 2, 2, 4};
    assert_memory_equal(c->offsets, off, sizeof off);
    const uint8_t rv[4] = {1, 0, 1, 1};
    assert_non_null(c->row_valid);
    assert_memory_equal(c->row_valid, rv, 4);
    const uint8_t valid[4] = {1, 1, 0, 1};
    assert_memory_equal(c->valid, valid, 4);
    assert_int_equal(c->i64[0], 1);
    assert_int_equal(c->i64[1], 2);
    assert_int_equal(c->i64[2], 0);
    assert_int_equal(c->i64[3], 3);
    const uint16_t def[6] = {3, 3, 0, 1, 2, 3}, rep[6] = {0, 1, 0, 0, 0, 1};
    assert_memory_equal(c->def, def, sizeof def);
    assert_memory_equal(c->rep, rep, sizeof rep);
}

static void reads_a_list_column_from_v1_and_v2_pages(void **state)
{
    (void)state;
    for (int v2 = 0; v2 < 2; v2++) {
        pb_buf file = {0};
        if (v2)
            file_c_v2(&file, 3, 4);
        else
            file_c_v1(&file);
        parquet_file *f = open_ok(&file);
        const parquet_column_info *ci = parquet_column(f, 0);
        assert_string_equal(ci->name, "l");
        assert_string_equal(ci->path, "l.list.element");
        assert_true(ci->list);
        assert_true(ci->nullable);
        assert_int_equal(ci->max_def, 3);
        assert_int_equal(ci->max_rep, 1);
        assert_int_equal(parquet_find_column(f, "l"), 0);
        assert_int_equal(parquet_find_column(f, "l.list.element"), 0);
        parquet_chunk c;
        parquet_chunk_init(&c);
        nl_error e;
        poison(&e);
        int rc = parquet_read_chunk(f, 0, 0, PARQUET_WANT_I64, &c, &e);
        if (rc)
            print_message("%s\n", e.message);
        assert_int_equal(rc, 0);
        check_list_chunk(&c);
        parquet_chunk_close(&c);
        parquet_close(f);
        pb_free(&file);
    }
}

typedef struct scan_acc {
    int64_t sum;
    size_t groups;
    atomic_int *cancel_after_first;
} scan_acc;

static int scan_fn(void *ctx, size_t rg, size_t rows, parquet_chunk *const *chunks, nl_error *err)
{
    (void)err;
    scan_acc *a = ctx;
    assert_int_equal(rg, a->groups);
    assert_null(chunks[1]); /* the absent column */
    for (size_t i = 0; i < rows; i++)
        a->sum += chunks[0]->i64[i];
    a->groups++;
    if (a->cancel_after_first)
        atomic_store(a->cancel_after_first, 1);
    return 0;
}

static void scan_streams_row_groups_and_polls_cancel(void **state)
{
    (void)state;
    static const int64_t v1[3] = {1, 2, 3}, v2[2] = {100, 200};
    pb_buf c1 = {0}, c2 = {0}, file = {0};
    chunk_int64(&c1, v1, 3);
    chunk_int64(&c2, v2, 2);
    pb_column col1 = {&c1, PARQUET_INT64, PARQUET_UNCOMPRESSED, 3, 0, "a", 0};
    pb_column col2 = {&c2, PARQUET_INT64, PARQUET_UNCOMPRESSED, 2, 0, "a", 0};
    pb_row_group rgs[2] = {{3, &col1, 1}, {2, &col2, 1}};
    pb_file(&file, SCHEMA_A, 2, rgs, 2, 0, NULL, NULL);
    parquet_file *f = open_ok(&file);
    assert_int_equal(parquet_row_groups(f), 2);
    assert_int_equal(parquet_row_group_rows(f, 1), 2);
    long cols[2] = {0, -1};
    parquet_want wants[2] = {PARQUET_WANT_I64, PARQUET_WANT_I64};
    scan_acc a = {0};
    nl_error e;
    assert_int_equal(parquet_scan(f, cols, wants, 2, NULL, scan_fn, &a, &e), 0);
    assert_int_equal(a.sum, 306);
    assert_int_equal(a.groups, 2);
    atomic_int cancel = 0;
    scan_acc b = {.cancel_after_first = &cancel};
    poison(&e);
    assert_int_equal(parquet_scan(f, cols, wants, 2, &cancel, scan_fn, &b, &e), -1);
    assert_int_equal(e.code, NL_ERR_CANCELLED);
    assert_int_equal(b.groups, 1);
    parquet_close(f);
    pb_free(&c1);
    pb_free(&c2);
    pb_free(&file);
}

static void reads_from_a_path_and_reports_missing_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/nl_parquet_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/a.parquet", dir);
    pb_buf file = {0};
    file_a(&file);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(file.p, 1, file.len, fp), file.len);
    fclose(fp);
    parquet_file *f = NULL;
    nl_error e;
    assert_int_equal(parquet_open(path, &f, &e), 0);
    assert_string_equal(parquet_source(f), path);
    assert_int_equal(parquet_file_size(f), file.len);
    parquet_chunk c;
    parquet_chunk_init(&c);
    assert_int_equal(parquet_read_chunk(f, 0, 0, PARQUET_WANT_I64, &c, &e), 0);
    assert_int_equal(c.i64[1], -20);
    parquet_chunk_close(&c);
    parquet_close(f);
    unlink(path);
    poison(&e);
    assert_int_equal(parquet_open(path, &f, &e), -1);
    assert_int_equal(e.code, NL_ERR_IO);
    assert_string_equal(e.source, path);
    rmdir(dir);
    pb_free(&file);
}

/* ---- errors: the file ------------------------------------------------------------------------------- */

static void wrong_magic_short_files_and_encrypted_footers(void **state)
{
    (void)state;
    pb_buf file = {0};
    nl_error e;
    file_a(&file);
    file.p[0] = 'X';
    assert_int_equal(open_fails(&file, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 0, NULL, 0);
    assert_message_has(&e, "magic");
    file.p[0] = 'P';
    file.p[file.len - 1] = 'E'; /* "PARE" */
    assert_int_equal(open_fails(&file, &e), -1);
    assert_error(&e, NL_ERR_UNSUPPORTED, (int64_t)file.len - 4, NULL, 0);
    file.p[file.len - 1] = 'X';
    assert_int_equal(open_fails(&file, &e), -1);
    assert_error(&e, NL_ERR_TRUNCATED, (int64_t)file.len - 4, NULL, 0);
    pb_buf tiny = {0};
    pb_bytes(&tiny, "PAR1PAR1", 8);
    assert_int_equal(open_fails(&tiny, &e), -1);
    assert_error(&e, NL_ERR_TRUNCATED, 0, NULL, 0);
    pb_free(&tiny);
    pb_free(&file);
}

static void footer_length_beyond_the_file_is_a_format_error(void **state)
{
    (void)state;
    pb_buf file = {0};
    nl_error e;
    file_a(&file);
    size_t at = file.len - 8;
    uint32_t too_big = (uint32_t)file.len - 11;
    memcpy(file.p + at, &too_big, 4); /* little-endian host */
    assert_int_equal(open_fails(&file, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, (int64_t)at, NULL, 0);
    assert_message_has(&e, "footer length");
    pb_free(&file);
}

static void corrupt_thrift_in_the_footer_names_its_offset(void **state)
{
    (void)state;
    pb_buf file = {0};
    nl_error e;
    size_t footer;
    static const int64_t v[1] = {7};
    pb_buf chunk = {0};
    chunk_int64(&chunk, v, 1);
    pb_column col = {&chunk, PARQUET_INT64, PARQUET_UNCOMPRESSED, 1, 0, "a", 0};
    pb_row_group rg = {1, &col, 1};
    pb_file(&file, SCHEMA_A, 2, &rg, 1, 0, NULL, &footer);
    /* FileMetaData starts with field 1 (version): header byte 0x15; make its type nibble 13 */
    assert_int_equal(file.p[footer], 0x15);
    file.p[footer] = 0x1d;
    assert_int_equal(open_fails(&file, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, (int64_t)footer, NULL, 0);
    assert_message_has(&e, "thrift");
    /* a known field of the wrong type: version as binary */
    file.p[footer] = 0x18;
    assert_int_equal(open_fails(&file, &e), -1);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_string_equal(e.source, SRC);
    assert_true(e.offset >= (int64_t)footer && e.offset < (int64_t)file.len);
    pb_free(&chunk);
    pb_free(&file);
}

static void unknown_footer_fields_are_skipped_and_encryption_refused(void **state)
{
    (void)state;
    pb_buf file = {0}, extra = {0};
    nl_error e;
    static const int64_t v[1] = {7};
    pb_buf chunk = {0};
    chunk_int64(&chunk, v, 1);
    pb_column col = {&chunk, PARQUET_INT64, PARQUET_UNCOMPRESSED, 1, 0, "a", 0};
    pb_row_group rg = {1, &col, 1};
    /* field 30 (long form after field 6): list<struct{1: map<i32,binary>{1: "q"}}> */
    const uint8_t unknown[] = {0x09, 0x3c, 0x1c, 0x1b, 0x01, 0x58, 0x02, 0x01, 'q', 0x00};
    pb_bytes(&extra, unknown, sizeof unknown);
    pb_file(&file, SCHEMA_A, 2, &rg, 1, 0, &extra, NULL);
    parquet_file *f = open_ok(&file);
    assert_int_equal(parquet_rows(f), 1);
    parquet_close(f);
    pb_free(&file);
    pb_free(&extra);
    /* field 8 (encryption_algorithm): struct, delta 2 from created_by */
    const uint8_t enc[] = {0x2c, 0x00};
    size_t footer;
    pb_bytes(&extra, enc, sizeof enc);
    pb_file(&file, SCHEMA_A, 2, &rg, 1, 0, &extra, &footer);
    assert_int_equal(open_fails(&file, &e), -1);
    assert_error(&e, NL_ERR_UNSUPPORTED, (int64_t)(file.len - 8 - 1 - sizeof enc), NULL, 0);
    pb_free(&file);
    pb_free(&extra);
    pb_free(&chunk);
}

static void chunk_bytes_outside_the_data_area_are_refused_at_open(void **state)
{
    (void)state;
    pb_buf file = {0}, chunk = {0};
    nl_error e;
    static const int64_t v[1] = {7};
    chunk_int64(&chunk, v, 1);
    pb_column col = {&chunk, PARQUET_INT64, PARQUET_UNCOMPRESSED, 1, 0, "a", 10000};
    pb_row_group rg = {1, &col, 1};
    pb_file(&file, SCHEMA_A, 2, &rg, 1, 0, NULL, NULL);
    assert_int_equal(open_fails(&file, &e), -1);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_string_equal(e.field, "a");
    assert_int_equal(e.record, 0);
    assert_message_has(&e, "outside the data area");
    pb_free(&file);
    /* rows of the row groups not adding up to num_rows */
    col.data_page_offset_delta = 0;
    pb_file(&file, SCHEMA_A, 2, &rg, 1, 5, NULL, NULL);
    assert_int_equal(open_fails(&file, &e), -1);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_message_has(&e, "num_rows");
    pb_free(&file);
    pb_free(&chunk);
}

static void schema_children_that_do_not_add_up_are_refused(void **state)
{
    (void)state;
    pb_buf file = {0}, chunk = {0};
    nl_error e;
    static const pb_elem bad[] = {
        {"schema", -1, -1, 2, -1, 0, 0, 0, 0},
        {"a", PARQUET_INT64, PARQUET_REQUIRED, 0, -1, 0, 0, 0, 0},
    };
    static const int64_t v[1] = {7};
    chunk_int64(&chunk, v, 1);
    pb_column col = {&chunk, PARQUET_INT64, PARQUET_UNCOMPRESSED, 1, 0, "a", 0};
    pb_row_group rg = {1, &col, 1};
    pb_file(&file, bad, 2, &rg, 1, 0, NULL, NULL);
    assert_int_equal(open_fails(&file, &e), -1);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_string_equal(e.source, SRC);
    assert_message_has(&e, "schema");
    pb_free(&file);
    pb_free(&chunk);
}

/* ---- errors: column chunks ------------------------------------------------------------------------- */

static int read_fails(const pb_buf *file, parquet_want want, nl_error *e)
{
    parquet_file *f = open_ok(file);
    parquet_chunk c;
    parquet_chunk_init(&c);
    poison(e);
    int rc = parquet_read_chunk(f, 0, 0, want, &c, e);
    parquet_chunk_close(&c);
    parquet_close(f);
    return rc;
}

static void asking_for_another_type_names_the_column(void **state)
{
    (void)state;
    pb_buf file = {0};
    nl_error e;
    file_a(&file);
    assert_int_equal(read_fails(&file, PARQUET_WANT_F64, &e), -1);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_string_equal(e.field, "a");
    assert_int_equal(e.record, 0);
    assert_message_has(&e, "INT64");
    assert_message_has(&e, "double");
    assert_message_has(&e, "row group 0");
    pb_free(&file);
}

static void dictionary_index_out_of_range_names_the_page(void **state)
{
    (void)state;
    pb_buf file = {0};
    nl_error e;
    static const uint32_t idx[3] = {0, 1, 5}; /* 3 bits needed; the page says width 1, so give width 3 */
    pb_buf chunk = {0};
    size_t dlen = dict_page(&chunk, 2);
    size_t page1 = 4 + chunk.len;
    static const uint32_t def[4] = {1, 0, 1, 1};
    dict_data_page(&chunk, def, 4, idx, 3, 3);
    pb_column col = {&chunk, PARQUET_BYTE_ARRAY, PARQUET_UNCOMPRESSED, 4, dlen, "s", 0};
    pb_row_group rg = {4, &col, 1};
    pb_file(&file, SCHEMA_S, 2, &rg, 1, 0, NULL, NULL);
    assert_int_equal(read_fails(&file, PARQUET_WANT_BYTES, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, (int64_t)page1, "s", 0);
    assert_message_has(&e, "dictionary index 5");
    assert_message_has(&e, "page 1");
    pb_free(&chunk);
    pb_free(&file);
}

static void dictionary_bit_width_above_32_is_refused(void **state)
{
    (void)state;
    pb_buf file = {0};
    nl_error e;
    static const uint32_t idx[3] = {0, 1, 0};
    pb_buf chunk = {0};
    size_t dlen = dict_page(&chunk, 2);
    size_t page1 = 4 + chunk.len;
    static const uint32_t def[4] = {1, 0, 1, 1};
    dict_data_page(&chunk, def, 4, idx, 3, 33);
    pb_column col = {&chunk, PARQUET_BYTE_ARRAY, PARQUET_UNCOMPRESSED, 4, dlen, "s", 0};
    pb_row_group rg = {4, &col, 1};
    pb_file(&file, SCHEMA_S, 2, &rg, 1, 0, NULL, NULL);
    assert_int_equal(read_fails(&file, PARQUET_WANT_BYTES, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, (int64_t)page1, "s", 0);
    assert_message_has(&e, "bit width 33");
    pb_free(&chunk);
    pb_free(&file);
}

static void a_page_decompressing_to_the_wrong_size_is_reported(void **state)
{
    (void)state;
    pb_buf file = {0}, chunk = {0};
    nl_error e;
    uint8_t raw[24] = {1}, comp[64];
    size_t clen = sizeof comp;
    assert_int_equal(snappy_compress((const char *)raw, sizeof raw, (char *)comp, &clen), SNAPPY_OK);
    pb_page h = {.type = 0, .num_values = 3, .encoding = 0, .def_enc = 3, .rep_enc = 3, .uncompressed = 25,
                 .compressed = -1, .crc = -1};
    pb_page_write(&chunk, &h, comp, clen);
    pb_column col = {&chunk, PARQUET_INT64, PARQUET_SNAPPY, 3, 0, "a", 0};
    pb_row_group rg = {3, &col, 1};
    pb_file(&file, SCHEMA_A, 2, &rg, 1, 0, NULL, NULL);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 4, "a", 0);
    assert_message_has(&e, "24 bytes");
    assert_message_has(&e, "page 0");
    pb_free(&chunk);
    pb_free(&file);
}

static void a_crc_mismatch_is_reported(void **state)
{
    (void)state;
    pb_buf file = {0}, chunk = {0};
    nl_error e;
    uint8_t raw[24] = {0};
    pb_page h = {.type = 0, .num_values = 3, .encoding = 0, .def_enc = 3, .rep_enc = 3, .uncompressed = -1,
                 .compressed = -1, .crc = 0x1234};
    pb_page_write(&chunk, &h, raw, sizeof raw);
    pb_column col = {&chunk, PARQUET_INT64, PARQUET_UNCOMPRESSED, 3, 0, "a", 0};
    pb_row_group rg = {3, &col, 1};
    pb_file(&file, SCHEMA_A, 2, &rg, 1, 0, NULL, NULL);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 4, "a", 0);
    assert_message_has(&e, "CRC");
    pb_free(&chunk);
    pb_free(&file);
}

/* One required INT64 page whose header fields are given; the chunk metadata says `meta_values`. */
static void file_page(pb_buf *file, const pb_page *h, const uint8_t *body, size_t n, int64_t meta_values, int64_t rows,
                      int codec)
{
    pb_buf chunk = {0};
    pb_page_write(&chunk, h, body, n);
    pb_column col = {&chunk, PARQUET_INT64, codec, meta_values, 0, "a", 0};
    pb_row_group rg = {rows, &col, 1};
    pb_file(file, SCHEMA_A, 2, &rg, 1, 0, NULL, NULL);
    pb_free(&chunk);
}

static void counts_that_do_not_add_up_are_format_errors(void **state)
{
    (void)state;
    nl_error e;
    uint8_t raw[24] = {0};
    pb_page h = {.type = 0, .num_values = 3, .encoding = 0, .def_enc = 3, .rep_enc = 3, .uncompressed = -1,
                 .compressed = -1, .crc = -1};
    pb_buf file = {0};
    /* negative page count */
    h.num_values = -1;
    file_page(&file, &h, raw, sizeof raw, 3, 3, PARQUET_UNCOMPRESSED);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 4, "a", 0);
    assert_message_has(&e, "-1");
    pb_free(&file);
    /* the pages hold 3 values, the metadata says 4 */
    h.num_values = 3;
    file_page(&file, &h, raw, sizeof raw, 4, 3, PARQUET_UNCOMPRESSED);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_string_equal(e.field, "a");
    assert_message_has(&e, "column metadata says 4");
    pb_free(&file);
    /* 3 rows where the row group has 2 */
    file_page(&file, &h, raw, sizeof raw, 3, 2, PARQUET_UNCOMPRESSED);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_message_has(&e, "row group has 2");
    pb_free(&file);
    /* a page body longer than the chunk */
    h.compressed = 500;
    file_page(&file, &h, raw, sizeof raw, 3, 3, PARQUET_UNCOMPRESSED);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 4, "a", 0);
    assert_message_has(&e, "runs past the end of the column chunk");
    pb_free(&file);
    /* values short of the page count */
    h.compressed = -1;
    h.num_values = 4;
    file_page(&file, &h, raw, sizeof raw, 4, 4, PARQUET_UNCOMPRESSED);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_error(&e, NL_ERR_TRUNCATED, 4, "a", 0);
    pb_free(&file);
}

static void definition_levels_above_the_maximum_are_refused(void **state)
{
    (void)state;
    pb_buf file = {0}, chunk = {0}, levels = {0}, body = {0};
    nl_error e;
    /* definition levels as one run of 4 copies of 3, its value in one byte (bit width 8 would be wrong for
     * max level 1, whose width is 1: the run value 3 does not fit one bit) */
    pb_rle_run(&levels, 3, 4, 1);
    pb_le32(&body, (uint32_t)levels.len);
    pb_bytes(&body, levels.p, levels.len);
    pb_u8(&body, 1);
    static const uint32_t idx[4] = {0, 0, 0, 0};
    pb_rle_packed(&body, idx, 4, 1);
    size_t dlen = dict_page(&chunk, 2);
    size_t page1 = 4 + chunk.len;
    pb_page h = {.type = 0, .num_values = 4, .encoding = 8, .def_enc = 3, .rep_enc = 3, .uncompressed = -1,
                 .compressed = -1, .crc = -1};
    pb_page_write(&chunk, &h, body.p, body.len);
    pb_column col = {&chunk, PARQUET_BYTE_ARRAY, PARQUET_UNCOMPRESSED, 4, dlen, "s", 0};
    pb_row_group rg = {4, &col, 1};
    pb_file(&file, SCHEMA_S, 2, &rg, 1, 0, NULL, NULL);
    assert_int_equal(read_fails(&file, PARQUET_WANT_BYTES, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, (int64_t)page1, "s", 0);
    assert_message_has(&e, "definition");
    pb_free(&levels);
    pb_free(&body);
    pb_free(&chunk);
    pb_free(&file);
}

static void v2_null_and_row_counts_must_match_the_levels(void **state)
{
    (void)state;
    pb_buf file = {0};
    nl_error e;
    file_c_v2(&file, 2, 4);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 4, "l.list.element", 0);
    assert_message_has(&e, "null");
    pb_free(&file);
    file_c_v2(&file, 3, 5);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_error(&e, NL_ERR_FORMAT, 4, "l.list.element", 0);
    assert_message_has(&e, "rows");
    pb_free(&file);
}

static void int96_and_lzo_are_unsupported(void **state)
{
    (void)state;
    pb_buf file = {0}, chunk = {0};
    nl_error e;
    static const pb_elem schema96[] = {
        {"schema", -1, -1, 1, -1, 0, 0, 0, 0},
        {"t", PARQUET_INT96, PARQUET_REQUIRED, 0, -1, 0, 0, 0, 0},
    };
    uint8_t raw[12] = {0};
    pb_page h = {.type = 0, .num_values = 1, .encoding = 0, .def_enc = 3, .rep_enc = 3, .uncompressed = -1,
                 .compressed = -1, .crc = -1};
    pb_page_write(&chunk, &h, raw, sizeof raw);
    pb_column col = {&chunk, PARQUET_INT96, PARQUET_UNCOMPRESSED, 1, 0, "t", 0};
    pb_row_group rg = {1, &col, 1};
    pb_file(&file, schema96, 2, &rg, 1, 0, NULL, NULL);
    assert_int_equal(read_fails(&file, PARQUET_WANT_BYTES, &e), -1);
    assert_int_equal(e.code, NL_ERR_UNSUPPORTED);
    assert_string_equal(e.field, "t");
    assert_message_has(&e, "INT96");
    pb_free(&file);
    pb_free(&chunk);
    uint8_t raw8[8] = {0};
    file_page(&file, &h, raw8, sizeof raw8, 1, 1, PARQUET_LZO);
    assert_int_equal(read_fails(&file, PARQUET_WANT_I64, &e), -1);
    assert_int_equal(e.code, NL_ERR_UNSUPPORTED);
    assert_message_has(&e, "LZO");
    pb_free(&file);
}

/* ---- torture ---------------------------------------------------------------------------------------- */

/* Small files with every feature: required INT64; dictionary strings with nulls then a PLAIN page; a list
 * column in a v1 page; the same in a snappy v2 page with a CRC. */
#define TORTURE_FILES 4
static void torture_files(pb_buf files[TORTURE_FILES])
{
    memset(files, 0, TORTURE_FILES * sizeof *files);
    file_a(&files[0]);
    file_b(&files[1], 1, NULL);
    file_c_v1(&files[2]);
    file_c_v2(&files[3], 3, 4);
}

static int read_everything(const uint8_t *p, size_t n)
{
    parquet_file *f = NULL;
    nl_error e;
    if (parquet_open_mem(p, n, SRC, &f, &e) != 0) {
        assert_true(e.code == NL_ERR_FORMAT || e.code == NL_ERR_TRUNCATED || e.code == NL_ERR_LIMIT ||
                    e.code == NL_ERR_UNSUPPORTED);
        assert_string_equal(e.source, SRC);
        assert_true(e.offset >= -1 && e.offset <= (int64_t)n);
        return -1;
    }
    parquet_chunk c;
    parquet_chunk_init(&c);
    int failures = 0;
    for (size_t g = 0; g < parquet_row_groups(f); g++)
        for (size_t k = 0; k < parquet_columns(f); k++) {
            if (parquet_read_chunk(f, g, k, parquet_want_of(parquet_column(f, k)->type), &c, &e) != 0) {
                assert_true(e.code != NL_ERR_INTERNAL && e.code != NL_OK);
                assert_true(e.offset >= -1 && e.offset <= (int64_t)n);
                failures++;
                continue;
            }
            for (size_t i = 0; i < c.count; i++) /* touch every value */
                if (c.want == PARQUET_WANT_BYTES) {
                    parquet_bytes b = parquet_chunk_bytes(&c, i);
                    volatile uint8_t x = b.len ? b.ptr[b.len - 1] : 0;
                    (void)x;
                }
        }
    parquet_chunk_close(&c);
    parquet_close(f);
    return failures ? -1 : 0;
}

static void every_prefix_of_a_file_is_an_error_never_a_crash(void **state)
{
    (void)state;
    pb_buf files[TORTURE_FILES];
    torture_files(files);
    for (int k = 0; k < TORTURE_FILES; k++) {
        pb_buf *file = &files[k];
        assert_int_equal(read_everything(file->p, file->len), 0);
        for (size_t n = 0; n < file->len; n++) {
            uint8_t *copy = malloc(n ? n : 1); /* exact size: ASan sees any read past the prefix */
            memcpy(copy, file->p, n);
            assert_int_equal(read_everything(copy, n), -1);
            free(copy);
        }
        pb_free(file);
    }
}

static void every_single_byte_corruption_ends_in_a_result_or_an_error(void **state)
{
    (void)state;
    pb_buf files[TORTURE_FILES];
    torture_files(files);
    static const uint8_t patterns[] = {0xff, 0x00, 0x80, 0x01, 0x7f};
    size_t errors = 0, results = 0;
    for (int f = 0; f < TORTURE_FILES; f++) {
        pb_buf *file = &files[f];
        for (size_t i = 0; i < file->len; i++) {
            for (size_t k = 0; k < sizeof patterns; k++) {
                uint8_t *copy = malloc(file->len);
                memcpy(copy, file->p, file->len);
                copy[i] = k == 0 ? (uint8_t)(copy[i] ^ 0xff) : patterns[k];
                if (read_everything(copy, file->len) == 0)
                    results++;
                else
                    errors++;
                free(copy);
            }
        }
        pb_free(file);
    }
    assert_true(errors > 0);
    assert_true(results > 0); /* some bytes (values, string contents) change values, not structure */
}

/* ---- files written by DuckDB ------------------------------------------------------------------------- */

static json_t *value_json(const parquet_chunk *c, size_t slot)
{
    if (c->valid && !c->valid[slot])
        return json_null();
    char buf[32];
    switch (c->want) {
    case PARQUET_WANT_I64:
        snprintf(buf, sizeof buf, "%lld", (long long)c->i64[slot]);
        return json_string(buf);
    case PARQUET_WANT_F64: return json_real(c->f64[slot]);
    case PARQUET_WANT_BOOL: return json_boolean(c->b[slot]);
    default: {
        parquet_bytes b = parquet_chunk_bytes(c, slot);
        return json_stringn((const char *)b.ptr, b.len);
    }
    }
}

/* The expected file holds DuckDB's values, column by column; integers as strings (getColumnsObjectJson). */
static void check_duckdb_case(const char *name)
{
    const char *root = getenv("NL_SOURCE_ROOT");
    if (!root)
        skip();
    char path[1024], exp[1024];
    snprintf(path, sizeof path, "%s/tests/data/parquet/%s/input.parquet", root, name);
    snprintf(exp, sizeof exp, "%s/tests/data/parquet/%s/expected.json", root, name);
    json_error_t je;
    json_t *want = json_load_file(exp, 0, &je);
    assert_non_null(want);
    parquet_file *f = NULL;
    nl_error e;
    assert_int_equal(parquet_open(path, &f, &e), 0);
    const char *key;
    json_t *col;
    json_object_foreach(want, key, col) {
        long k = parquet_find_column(f, key);
        assert_true(k >= 0);
        const parquet_column_info *ci = parquet_column(f, (size_t)k);
        json_t *got = json_array();
        parquet_chunk c;
        parquet_chunk_init(&c);
        for (size_t g = 0; g < parquet_row_groups(f); g++) {
            assert_int_equal(parquet_read_chunk(f, g, (size_t)k, parquet_want_of(ci->type), &c, &e), 0);
            for (size_t r = 0; r < c.rows; r++) {
                if (!ci->list) {
                    json_array_append_new(got, value_json(&c, r));
                } else if (c.row_valid && !c.row_valid[r]) {
                    json_array_append_new(got, json_null());
                } else {
                    json_t *l = json_array();
                    for (uint32_t s = c.offsets[r]; s < c.offsets[r + 1]; s++)
                        json_array_append_new(l, value_json(&c, s));
                    json_array_append_new(got, l);
                }
            }
        }
        parquet_chunk_close(&c);
        /* DuckDB prints INTEGER as numbers and BIGINT as strings: compare integers by text */
        assert_int_equal(json_array_size(got), json_array_size(col));
        for (size_t i = 0; i < json_array_size(col); i++) {
            json_t *w = json_array_get(col, i), *g2 = json_array_get(got, i);
            if (json_is_integer(w) && json_is_real(g2)) { /* a DOUBLE with an integral value */
                w = json_real((double)json_integer_value(w));
            } else if (json_is_integer(w)) {
                char buf[32];
                snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(w));
                w = json_string(buf);
            } else {
                json_incref(w);
            }
            if (!json_equal(w, g2)) {
                char *a = json_dumps(w, JSON_ENCODE_ANY), *b = json_dumps(g2, JSON_ENCODE_ANY);
                print_message("%s %s[%zu]: DuckDB %s, reader %s\n", name, key, i, a, b);
                free(a);
                free(b);
            }
            assert_true(json_equal(w, g2));
            json_decref(w);
        }
        json_decref(got);
    }
    parquet_close(f);
    json_decref(want);
}

static void duckdb_v1_snappy_dictionary_nulls_and_lists(void **state)
{
    (void)state;
    check_duckdb_case("duckdb_v1_snappy");
}

static void duckdb_v2_zstd_delta_and_byte_stream_split(void **state)
{
    (void)state;
    check_duckdb_case("duckdb_v2_zstd");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_a_required_int64_column),
        cmocka_unit_test(reads_optional_strings_through_their_dictionary),
        cmocka_unit_test(a_plain_page_after_dictionary_pages_switches_to_views),
        cmocka_unit_test(reads_a_list_column_from_v1_and_v2_pages),
        cmocka_unit_test(scan_streams_row_groups_and_polls_cancel),
        cmocka_unit_test(reads_from_a_path_and_reports_missing_files),
        cmocka_unit_test(wrong_magic_short_files_and_encrypted_footers),
        cmocka_unit_test(footer_length_beyond_the_file_is_a_format_error),
        cmocka_unit_test(corrupt_thrift_in_the_footer_names_its_offset),
        cmocka_unit_test(unknown_footer_fields_are_skipped_and_encryption_refused),
        cmocka_unit_test(chunk_bytes_outside_the_data_area_are_refused_at_open),
        cmocka_unit_test(schema_children_that_do_not_add_up_are_refused),
        cmocka_unit_test(asking_for_another_type_names_the_column),
        cmocka_unit_test(dictionary_index_out_of_range_names_the_page),
        cmocka_unit_test(dictionary_bit_width_above_32_is_refused),
        cmocka_unit_test(a_page_decompressing_to_the_wrong_size_is_reported),
        cmocka_unit_test(a_crc_mismatch_is_reported),
        cmocka_unit_test(counts_that_do_not_add_up_are_format_errors),
        cmocka_unit_test(definition_levels_above_the_maximum_are_refused),
        cmocka_unit_test(v2_null_and_row_counts_must_match_the_levels),
        cmocka_unit_test(int96_and_lzo_are_unsupported),
        cmocka_unit_test(every_prefix_of_a_file_is_an_error_never_a_crash),
        cmocka_unit_test(every_single_byte_corruption_ends_in_a_result_or_an_error),
        cmocka_unit_test(duckdb_v1_snappy_dictionary_nulls_and_lists),
        cmocka_unit_test(duckdb_v2_zstd_delta_and_byte_stream_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
