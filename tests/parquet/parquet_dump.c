/* parquet_dump — test driver: read a Parquet file with analyzers/readers/parquet.h and print it as JSON, so
 * tests/parquet/check_parquet.mjs can compare it value by value with what DuckDB reads from the same file.
 *
 * Usage: parquet_dump [--meta] FILE
 * Output: {"rows": N, "row_groups": G, "created_by": "...", "columns": [{"name", "path", "type", "logical",
 * "nullable", "list", "max_def", "max_rep", "nulls", "pages", "codecs": [...]}, ...],
 * "values": {"<name>": [row values...]}} with int64 as decimal strings (exact), doubles as JSON numbers
 * (%.17g, exact), booleans, strings, null, and a list column's rows as arrays. Columns of nested groups
 * other than one-level lists are listed but have no values. --meta leaves out "values".
 * Row groups are read one at a time through parquet_scan (the streaming path the readers use).
 * Exit: 0 ok, 1 reader error (code, offset, field, record and message on stderr), 2 usage. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet.h"

typedef struct dump_ctx {
    const parquet_file *f;
    json_t *values;   /* name → array */
    json_t *columns;  /* array of column objects, parallel to cols */
    long *cols;
    size_t n;
} dump_ctx;

static const char *logical_name(parquet_logical l)
{
    static const char *const names[] = {"none", "string", "enum", "json", "int", "decimal", "date",
                                        "time", "timestamp", "uuid", "float16", "other"};
    return (unsigned)l < sizeof names / sizeof names[0] ? names[l] : "?";
}

static json_t *dump_value(const parquet_chunk *c, size_t slot)
{
    if (c->valid && !c->valid[slot])
        return json_null();
    char buf[32];
    switch (c->want) {
    case PARQUET_WANT_I64:
        if (c->column->logical == PARQUET_LOGICAL_INT && !c->column->int_signed && c->column->int_bits == 64)
            snprintf(buf, sizeof buf, "%" PRIu64, (uint64_t)c->i64[slot]);
        else
            snprintf(buf, sizeof buf, "%" PRId64, c->i64[slot]);
        return json_string(buf);
    case PARQUET_WANT_F64: return json_real(c->f64[slot]);
    case PARQUET_WANT_BOOL: return json_boolean(c->b[slot]);
    case PARQUET_WANT_BYTES: {
        parquet_bytes v = parquet_chunk_bytes(c, slot);
        return json_stringn_nocheck((const char *)v.ptr, v.len);
    }
    }
    return json_null();
}

static int dump_row_group(void *ctx, size_t rg, size_t rows, parquet_chunk *const *chunks, nl_error *err)
{
    (void)err;
    dump_ctx *d = ctx;
    for (size_t i = 0; i < d->n; i++) {
        const parquet_chunk *c = chunks[i];
        if (!c)
            continue;
        json_t *col = json_array_get(d->columns, i);
        json_object_set_new(col, "nulls", json_integer(json_integer_value(json_object_get(col, "nulls")) +
                                                       (json_int_t)c->nulls));
        json_object_set_new(col, "pages", json_integer(json_integer_value(json_object_get(col, "pages")) +
                                                       (json_int_t)c->pages));
        json_array_append_new(json_object_get(col, "codecs"),
                              json_string(parquet_codec_name(parquet_chunk_codec(d->f, rg, (size_t)d->cols[i]))));
        json_t *arr = json_object_get(d->values, c->column->name);
        if (!arr)
            continue;
        if (!c->column->list) {
            for (size_t r = 0; r < rows; r++)
                json_array_append_new(arr, dump_value(c, r));
            continue;
        }
        for (size_t r = 0; r < rows; r++) {
            if (c->row_valid && !c->row_valid[r]) {
                json_array_append_new(arr, json_null());
                continue;
            }
            json_t *list = json_array();
            for (uint32_t s = c->offsets[r]; s < c->offsets[r + 1]; s++)
                json_array_append_new(list, dump_value(c, s));
            json_array_append_new(arr, list);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    int meta_only = argc == 3 && strcmp(argv[1], "--meta") == 0;
    if (argc != 2 + meta_only) {
        fprintf(stderr, "usage: parquet_dump [--meta] FILE\n");
        return 2;
    }
    const char *path = argv[1 + meta_only];
    nl_error err;
    parquet_file *f;
    if (parquet_open(path, &f, &err) != 0) {
        fprintf(stderr, "parquet_dump: %s: %s at offset %lld (field %s, record %lld): %s\n", err.source,
                nl_error_code_name(err.code), (long long)err.offset, err.field, (long long)err.record, err.message);
        return 1;
    }
    dump_ctx d = {.f = f, .values = json_object(), .columns = json_array(), .n = parquet_columns(f)};
    d.cols = calloc(d.n ? d.n : 1, sizeof *d.cols);
    parquet_want *wants = calloc(d.n ? d.n : 1, sizeof *wants);
    for (size_t i = 0; i < d.n; i++) {
        const parquet_column_info *ci = parquet_column(f, i);
        /* a top-level field with one leaf (flat or a one-level list) gets values */
        int plain = parquet_find_column(f, ci->name) == (long)i && ci->max_rep <= 1;
        d.cols[i] = meta_only ? -1 : (long)i;
        wants[i] = parquet_want_of(ci->type);
        if (ci->type == PARQUET_INT96)
            d.cols[i] = -1;
        if (plain && d.cols[i] >= 0)
            json_object_set_new(d.values, ci->name, json_array());
        json_array_append_new(d.columns,
                              json_pack("{ss ss ss ss sb sb si si si si s[]}", "name", ci->name, "path", ci->path,
                                        "type", parquet_type_name(ci->type), "logical", logical_name(ci->logical),
                                        "nullable", ci->nullable, "list", ci->list, "max_def", ci->max_def, "max_rep",
                                        ci->max_rep, "nulls", 0, "pages", 0, "codecs"));
    }
    int rc = parquet_scan(f, d.cols, wants, d.n, NULL, dump_row_group, &d, &err);
    if (rc != 0) {
        fprintf(stderr, "parquet_dump: %s: %s at offset %lld (field %s, record %lld): %s\n", err.source,
                nl_error_code_name(err.code), (long long)err.offset, err.field, (long long)err.record, err.message);
    } else {
        json_t *out = json_pack("{sI sI ss so}", "rows", (json_int_t)parquet_rows(f), "row_groups",
                                (json_int_t)parquet_row_groups(f), "created_by", parquet_created_by(f), "columns",
                                d.columns);
        if (!meta_only)
            json_object_set(out, "values", d.values);
        json_dumpf(out, stdout, JSON_COMPACT | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
        json_decref(out);
    }
    json_decref(d.values);
    free(d.cols);
    free(wants);
    parquet_close(f);
    return rc ? 1 : 0;
}
