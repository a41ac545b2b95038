/* parquet_meta — the Parquet footer (FileMetaData, Thrift compact) into struct parquet_file.
 *
 * Fields read (parquet.thrift ids; every other field, and every field of the structs not listed, is
 * skipped by thrift_skip whatever it nests):
 *
 *   FileMetaData    1 version i32 · 2 schema list<SchemaElement> · 3 num_rows i64 · 4 row_groups list<RowGroup>
 *                   · 6 created_by string · 8 encryption_algorithm (present → NL_ERR_UNSUPPORTED)
 *   SchemaElement   1 type i32 · 2 type_length i32 · 3 repetition_type i32 · 4 name string · 5 num_children i32
 *                   · 6 converted_type i32 · 7 scale i32 · 8 precision i32 · 10 logicalType LogicalType
 *   LogicalType     union: 1 STRING · 3 LIST · 4 ENUM · 5 DECIMAL{1 scale, 2 precision} · 6 DATE
 *                   · 7 TIME / 8 TIMESTAMP {1 isAdjustedToUTC bool, 2 unit TimeUnit{1 MILLIS, 2 MICROS, 3 NANOS}}
 *                   · 10 INTEGER{1 bitWidth i8, 2 isSigned bool} · 12 JSON · 14 UUID · 15 FLOAT16 · others → OTHER
 *   RowGroup        1 columns list<ColumnChunk> · 3 num_rows i64
 *   ColumnChunk     1 file_path string (non-empty → unsupported) · 3 meta_data ColumnMetaData
 *   ColumnMetaData  1 type i32 · 4 codec i32 · 5 num_values i64 · 6 total_uncompressed_size i64
 *                   · 7 total_compressed_size i64 · 9 data_page_offset i64 · 11 dictionary_page_offset i64
 *                   · 12 statistics Statistics{3 null_count i64}
 *
 * The schema is a depth-first list: element 0 is the root, a group gives its child count, leaves carry a
 * physical type. Walking it with an explicit stack yields the leaf columns and their Dremel levels
 * (max_def counts optional and repeated ancestors-or-self, max_rep the repeated ones). Checks: children
 * counts add up, depth <= PARQUET_SCHEMA_DEPTH_MAX, every row group has one chunk per leaf whose
 * ColumnMetaData type equals the leaf's, chunk byte ranges lie inside the data area, counts are not
 * negative and the row groups' rows add up to num_rows. */
#include "parquet_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thrift_compact.h"

/* Bytes of all leaf names and paths together. */
#define PM_NAMES_MAX ((size_t)64 << 20)

typedef struct pm_elem {
    const uint8_t *name;
    uint32_t name_len;
    int32_t type, type_length, repetition, num_children, converted, scale, precision;
    bool has_type, has_rep, has_children, has_name;
    parquet_logical logical;
    uint8_t int_bits;
    bool int_signed;
    int64_t unit_ns;
    int64_t offset;
} pm_elem;

typedef struct pm_chunk {
    pq_chunk_meta meta;
    int64_t data_page_offset, dict_offset, total_compressed;
    bool has_meta, has_type, has_codec, has_num_values, has_sizes, has_data_offset;
} pm_chunk;

typedef struct pm_rg {
    int64_t num_rows;
    bool has_rows;
    pm_chunk *chunks;
    uint32_t nchunks;
    int64_t offset;
} pm_rg;

typedef struct pm_ctx {
    parquet_file *f;
    thrift_reader r;
    nl_error *err;
    pm_elem *elems;
    uint32_t nelems;
    pm_rg *rgs;
    uint32_t nrgs;
    int64_t num_rows;
    bool has_schema, has_rows, has_rgs;
} pm_ctx;

static int pm_fail(pm_ctx *c, nl_error_code code, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int pm_fail(pm_ctx *c, nl_error_code code, int64_t offset, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return nl_error_set(c->err, code, c->f->source, offset, "footer: %s", msg);
}

#define PM_WANT(c, f, t, strct, name)                                                                          \
    do {                                                                                                       \
        if ((f)->type != (t))                                                                                  \
            return thrift_wrong_type(&(c)->r, (f), strct, name, thrift_type_name(t));                          \
    } while (0)

static bool pm_is_bool(const thrift_field *f)
{
    return f->type == THRIFT_TRUE || f->type == THRIFT_FALSE;
}

/* ---- LogicalType -------------------------------------------------------------------------------------- */

/* TimeUnit union → ns per unit. */
static int pm_time_unit(pm_ctx *c, int64_t *ns)
{
    thrift_field f;
    int rc;
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        if (f.type == THRIFT_STRUCT && f.id >= 1 && f.id <= 3)
            *ns = f.id == 1 ? 1000000 : f.id == 2 ? 1000 : 1;
        if (thrift_skip(&c->r, f.type) != 0)
            return -1;
    }
    return rc;
}

/* TIME / TIMESTAMP payload. */
static int pm_time_type(pm_ctx *c, pm_elem *e)
{
    thrift_field f;
    int rc;
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        if (f.id == 2 && f.type == THRIFT_STRUCT) {
            if (pm_time_unit(c, &e->unit_ns) != 0)
                return -1;
        } else if (thrift_skip(&c->r, f.type) != 0) {
            return -1;
        }
    }
    return rc;
}

static int pm_int_type(pm_ctx *c, pm_elem *e)
{
    thrift_field f;
    int rc;
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        if (f.id == 1 && f.type == THRIFT_I8) {
            int8_t bits;
            if (thrift_read_i8(&c->r, &bits) != 0)
                return -1;
            if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
                return pm_fail(c, NL_ERR_FORMAT, f.offset, "IntType bit width %d is not 8, 16, 32 or 64", bits);
            e->int_bits = (uint8_t)bits;
        } else if (f.id == 2 && pm_is_bool(&f)) {
            e->int_signed = f.type == THRIFT_TRUE;
        } else if (thrift_skip(&c->r, f.type) != 0) {
            return -1;
        }
    }
    return rc;
}

static int pm_decimal_type(pm_ctx *c, pm_elem *e)
{
    thrift_field f;
    int rc;
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        if ((f.id == 1 || f.id == 2) && f.type == THRIFT_I32) {
            if (thrift_read_i32(&c->r, f.id == 1 ? &e->scale : &e->precision) != 0)
                return -1;
        } else if (thrift_skip(&c->r, f.type) != 0) {
            return -1;
        }
    }
    return rc;
}

static int pm_logical_type(pm_ctx *c, pm_elem *e)
{
    thrift_field f;
    int rc;
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        if (f.type != THRIFT_STRUCT) {
            if (thrift_skip(&c->r, f.type) != 0)
                return -1;
            continue;
        }
        int sub = 0;
        switch (f.id) {
        case 1: e->logical = PARQUET_LOGICAL_STRING; break;
        case 4: e->logical = PARQUET_LOGICAL_ENUM; break;
        case 5: e->logical = PARQUET_LOGICAL_DECIMAL; sub = pm_decimal_type(c, e); break;
        case 6: e->logical = PARQUET_LOGICAL_DATE; break;
        case 7: e->logical = PARQUET_LOGICAL_TIME; sub = pm_time_type(c, e); break;
        case 8: e->logical = PARQUET_LOGICAL_TIMESTAMP; sub = pm_time_type(c, e); break;
        case 10: e->logical = PARQUET_LOGICAL_INT; sub = pm_int_type(c, e); break;
        case 12: e->logical = PARQUET_LOGICAL_JSON; break;
        case 14: e->logical = PARQUET_LOGICAL_UUID; break;
        case 15: e->logical = PARQUET_LOGICAL_FLOAT16; break;
        case 2:
        case 3: e->logical = PARQUET_LOGICAL_NONE; break; /* MAP / LIST annotate groups */
        default: e->logical = PARQUET_LOGICAL_OTHER; break;
        }
        if (sub != 0)
            return -1;
        if (f.id != 5 && f.id != 7 && f.id != 8 && f.id != 10 && thrift_skip(&c->r, THRIFT_STRUCT) != 0)
            return -1;
    }
    return rc;
}

/* ConvertedType → the logical fields, when no LogicalType said more. */
static void pm_converted(pm_elem *e)
{
    if (e->logical != PARQUET_LOGICAL_NONE || e->converted < 0)
        return;
    int ct = e->converted;
    switch (ct) {
    case 0: e->logical = PARQUET_LOGICAL_STRING; break;
    case 4: e->logical = PARQUET_LOGICAL_ENUM; break;
    case 5: e->logical = PARQUET_LOGICAL_DECIMAL; break;
    case 6: e->logical = PARQUET_LOGICAL_DATE; break;
    case 7: e->logical = PARQUET_LOGICAL_TIME; e->unit_ns = 1000000; break;
    case 8: e->logical = PARQUET_LOGICAL_TIME; e->unit_ns = 1000; break;
    case 9: e->logical = PARQUET_LOGICAL_TIMESTAMP; e->unit_ns = 1000000; break;
    case 10: e->logical = PARQUET_LOGICAL_TIMESTAMP; e->unit_ns = 1000; break;
    case 19: e->logical = PARQUET_LOGICAL_JSON; break;
    case 1: case 2: case 3: break; /* MAP, MAP_KEY_VALUE, LIST: groups */
    default:
        if (ct >= 11 && ct <= 18) {
            static const uint8_t bits[4] = {8, 16, 32, 64};
            e->logical = PARQUET_LOGICAL_INT;
            e->int_bits = bits[(ct - 11) % 4];
            e->int_signed = ct >= 15;
        } else {
            e->logical = PARQUET_LOGICAL_OTHER;
        }
        break;
    }
}

/* ---- SchemaElement ------------------------------------------------------------------------------------ */

static int pm_read_i32_field(pm_ctx *c, const thrift_field *f, const char *name, int32_t *out, bool *has)
{
    PM_WANT(c, f, THRIFT_I32, "SchemaElement", name);
    if (thrift_read_i32(&c->r, out) != 0)
        return -1;
    if (has)
        *has = true;
    return 0;
}

static int pm_schema_element(pm_ctx *c, pm_elem *e)
{
    memset(e, 0, sizeof *e);
    e->type = e->repetition = e->num_children = e->converted = -1;
    e->offset = thrift_offset(&c->r);
    thrift_field f;
    int rc;
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        int r = 0;
        switch (f.id) {
        case 1: r = pm_read_i32_field(c, &f, "type", &e->type, &e->has_type); break;
        case 2: r = pm_read_i32_field(c, &f, "type_length", &e->type_length, NULL); break;
        case 3: r = pm_read_i32_field(c, &f, "repetition_type", &e->repetition, &e->has_rep); break;
        case 4:
            PM_WANT(c, &f, THRIFT_BINARY, "SchemaElement", "name");
            r = thrift_read_binary(&c->r, &e->name, &e->name_len);
            e->has_name = true;
            break;
        case 5: r = pm_read_i32_field(c, &f, "num_children", &e->num_children, &e->has_children); break;
        case 6: r = pm_read_i32_field(c, &f, "converted_type", &e->converted, NULL); break;
        case 7: r = pm_read_i32_field(c, &f, "scale", &e->scale, NULL); break;
        case 8: r = pm_read_i32_field(c, &f, "precision", &e->precision, NULL); break;
        case 10:
            PM_WANT(c, &f, THRIFT_STRUCT, "SchemaElement", "logicalType");
            r = pm_logical_type(c, e);
            break;
        default: r = thrift_skip(&c->r, f.type); break;
        }
        if (r != 0)
            return -1;
    }
    if (rc != 0)
        return -1;
    if (!e->has_name)
        return pm_fail(c, NL_ERR_FORMAT, e->offset, "SchemaElement without a name");
    pm_converted(e);
    return 0;
}

static int pm_schema(pm_ctx *c, const thrift_field *f)
{
    PM_WANT(c, f, THRIFT_LIST, "FileMetaData", "schema");
    uint8_t et;
    uint32_t n;
    if (thrift_list_begin(&c->r, &et, &n) != 0)
        return -1;
    if (et != THRIFT_STRUCT)
        return pm_fail(c, NL_ERR_FORMAT, f->offset, "schema is a list of %s, expected structs", thrift_type_name(et));
    if (n == 0 || n > PARQUET_SCHEMA_MAX)
        return pm_fail(c, n ? NL_ERR_LIMIT : NL_ERR_FORMAT, f->offset, "schema has %u elements (1..%u allowed)", n,
                       PARQUET_SCHEMA_MAX);
    if (c->has_schema)
        return pm_fail(c, NL_ERR_FORMAT, f->offset, "two schema fields");
    c->elems = calloc(n, sizeof *c->elems);
    if (!c->elems)
        return pm_fail(c, NL_ERR_NOMEM, f->offset, "out of memory for %u schema elements", n);
    c->has_schema = true;
    for (uint32_t i = 0; i < n; i++) {
        if (pm_schema_element(c, &c->elems[i]) != 0)
            return -1;
        c->nelems = i + 1;
    }
    return 0;
}

/* ---- RowGroup / ColumnChunk / ColumnMetaData ---------------------------------------------------------- */

static int pm_i64(pm_ctx *c, const thrift_field *f, const char *strct, const char *name, int64_t *out)
{
    PM_WANT(c, f, THRIFT_I64, strct, name);
    return thrift_read_i64(&c->r, out);
}

static int pm_statistics(pm_ctx *c, pm_chunk *ch)
{
    thrift_field f;
    int rc;
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        if (f.id == 3 && f.type == THRIFT_I64) {
            if (thrift_read_i64(&c->r, &ch->meta.null_count) != 0)
                return -1;
        } else if (thrift_skip(&c->r, f.type) != 0) {
            return -1;
        }
    }
    return rc;
}

static int pm_column_meta(pm_ctx *c, pm_chunk *ch)
{
    thrift_field f;
    int rc;
    const char *S = "ColumnMetaData";
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        int r = 0;
        switch (f.id) {
        case 1:
            PM_WANT(c, &f, THRIFT_I32, S, "type");
            r = thrift_read_i32(&c->r, &ch->meta.type);
            ch->has_type = true;
            break;
        case 4:
            PM_WANT(c, &f, THRIFT_I32, S, "codec");
            r = thrift_read_i32(&c->r, &ch->meta.codec);
            ch->has_codec = true;
            break;
        case 5:
            r = pm_i64(c, &f, S, "num_values", &ch->meta.num_values);
            ch->has_num_values = true;
            break;
        case 6: r = pm_i64(c, &f, S, "total_uncompressed_size", &ch->meta.total_uncompressed); break;
        case 7:
            r = pm_i64(c, &f, S, "total_compressed_size", &ch->total_compressed);
            ch->has_sizes = true;
            break;
        case 9:
            r = pm_i64(c, &f, S, "data_page_offset", &ch->data_page_offset);
            ch->has_data_offset = true;
            break;
        case 11: r = pm_i64(c, &f, S, "dictionary_page_offset", &ch->dict_offset); break;
        case 12:
            PM_WANT(c, &f, THRIFT_STRUCT, S, "statistics");
            r = pm_statistics(c, ch);
            break;
        default: r = thrift_skip(&c->r, f.type); break;
        }
        if (r != 0)
            return -1;
    }
    return rc;
}

static int pm_column_chunk(pm_ctx *c, pm_chunk *ch)
{
    thrift_field f;
    int rc;
    memset(ch, 0, sizeof *ch);
    ch->meta.null_count = -1;
    ch->meta.meta_offset = thrift_offset(&c->r);
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        if (f.id == 1) {
            PM_WANT(c, &f, THRIFT_BINARY, "ColumnChunk", "file_path");
            const uint8_t *p;
            uint32_t len;
            if (thrift_read_binary(&c->r, &p, &len) != 0)
                return -1;
            if (len)
                return pm_fail(c, NL_ERR_UNSUPPORTED, f.offset,
                               "a column chunk stored in another file (%.*s) is not supported", (int)(len < 64 ? len : 64), p);
        } else if (f.id == 3) {
            PM_WANT(c, &f, THRIFT_STRUCT, "ColumnChunk", "meta_data");
            if (pm_column_meta(c, ch) != 0)
                return -1;
            ch->has_meta = true;
        } else if (thrift_skip(&c->r, f.type) != 0) {
            return -1;
        }
    }
    if (rc != 0)
        return -1;
    if (!ch->has_meta)
        return pm_fail(c, NL_ERR_UNSUPPORTED, ch->meta.meta_offset,
                       "column chunk without ColumnMetaData (encrypted columns are not supported)");
    if (!ch->has_type || !ch->has_codec || !ch->has_num_values || !ch->has_sizes || !ch->has_data_offset)
        return pm_fail(c, NL_ERR_FORMAT, ch->meta.meta_offset,
                       "ColumnMetaData lacks a required field (type, codec, num_values, sizes or data_page_offset)");
    return 0;
}

static int pm_row_group(pm_ctx *c, pm_rg *rg)
{
    thrift_field f;
    int rc;
    rg->offset = thrift_offset(&c->r);
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        if (f.id == 1) {
            PM_WANT(c, &f, THRIFT_LIST, "RowGroup", "columns");
            uint8_t et;
            uint32_t n;
            if (thrift_list_begin(&c->r, &et, &n) != 0)
                return -1;
            if (et != THRIFT_STRUCT)
                return pm_fail(c, NL_ERR_FORMAT, f.offset, "RowGroup.columns is a list of %s", thrift_type_name(et));
            if (rg->chunks)
                return pm_fail(c, NL_ERR_FORMAT, f.offset, "RowGroup with two column lists");
            rg->chunks = calloc(n ? n : 1, sizeof *rg->chunks);
            if (!rg->chunks)
                return pm_fail(c, NL_ERR_NOMEM, f.offset, "out of memory for %u column chunks", n);
            for (uint32_t i = 0; i < n; i++) {
                if (pm_column_chunk(c, &rg->chunks[i]) != 0)
                    return -1;
                rg->nchunks = i + 1;
            }
        } else if (f.id == 3) {
            if (pm_i64(c, &f, "RowGroup", "num_rows", &rg->num_rows) != 0)
                return -1;
            rg->has_rows = true;
        } else if (thrift_skip(&c->r, f.type) != 0) {
            return -1;
        }
    }
    if (rc != 0)
        return -1;
    if (!rg->chunks || !rg->has_rows)
        return pm_fail(c, NL_ERR_FORMAT, rg->offset, "RowGroup lacks its columns or num_rows");
    return 0;
}

static int pm_row_groups(pm_ctx *c, const thrift_field *f)
{
    PM_WANT(c, f, THRIFT_LIST, "FileMetaData", "row_groups");
    uint8_t et;
    uint32_t n;
    if (thrift_list_begin(&c->r, &et, &n) != 0)
        return -1;
    if (et != THRIFT_STRUCT && n)
        return pm_fail(c, NL_ERR_FORMAT, f->offset, "row_groups is a list of %s", thrift_type_name(et));
    if (n > PARQUET_ROW_GROUPS_MAX)
        return pm_fail(c, NL_ERR_LIMIT, f->offset, "%u row groups (at most %u)", n, PARQUET_ROW_GROUPS_MAX);
    if (c->has_rgs)
        return pm_fail(c, NL_ERR_FORMAT, f->offset, "two row_groups fields");
    c->rgs = calloc(n ? n : 1, sizeof *c->rgs);
    if (!c->rgs)
        return pm_fail(c, NL_ERR_NOMEM, f->offset, "out of memory for %u row groups", n);
    c->has_rgs = true;
    for (uint32_t i = 0; i < n; i++) {
        c->nrgs = i + 1;
        if (pm_row_group(c, &c->rgs[i]) != 0)
            return -1;
    }
    return 0;
}

static int pm_file_metadata(pm_ctx *c)
{
    thrift_field f;
    int rc;
    if (thrift_struct_begin(&c->r) != 0)
        return -1;
    while ((rc = thrift_field_next(&c->r, &f)) > 0) {
        int r = 0;
        switch (f.id) {
        case 2: r = pm_schema(c, &f); break;
        case 3:
            r = pm_i64(c, &f, "FileMetaData", "num_rows", &c->num_rows);
            c->has_rows = true;
            break;
        case 4: r = pm_row_groups(c, &f); break;
        case 6: {
            PM_WANT(c, &f, THRIFT_BINARY, "FileMetaData", "created_by");
            const uint8_t *p;
            uint32_t len;
            r = thrift_read_binary(&c->r, &p, &len);
            if (r == 0) {
                free(c->f->created_by);
                c->f->created_by = strndup((const char *)p, len);
                if (!c->f->created_by)
                    return pm_fail(c, NL_ERR_NOMEM, f.offset, "out of memory");
            }
            break;
        }
        case 8: return pm_fail(c, NL_ERR_UNSUPPORTED, f.offset, "encrypted Parquet files are not supported");
        default: r = thrift_skip(&c->r, f.type); break;
        }
        if (r != 0)
            return -1;
    }
    if (rc != 0)
        return -1;
    if (!c->has_schema || !c->has_rows || !c->has_rgs)
        return pm_fail(c, NL_ERR_FORMAT, c->r.base_offset, "FileMetaData lacks its schema, num_rows or row_groups");
    return 0;
}

/* ---- schema tree → leaves ------------------------------------------------------------------------------ */

typedef struct pm_frame {
    int32_t left; /* children still to come */
    uint16_t def, rep, rep_def;
    size_t path_len;
} pm_frame;

/* A growing pool of NUL-terminated names; leaves keep offsets until the pool stops moving. */
typedef struct pm_names {
    char *buf;
    size_t used, cap;
} pm_names;

static int pm_names_add(pm_names *n, const char *s, size_t len, size_t *off)
{
    if (len + 1 > PM_NAMES_MAX - n->used)
        return -1;
    if (n->used + len + 1 > n->cap) {
        size_t cap = n->cap ? n->cap : 4096;
        while (cap < n->used + len + 1)
            cap *= 2;
        char *b = realloc(n->buf, cap);
        if (!b)
            return -1;
        n->buf = b;
        n->cap = cap;
    }
    memcpy(n->buf + n->used, s, len);
    n->buf[n->used + len] = '\0';
    *off = n->used;
    n->used += len + 1;
    return 0;
}

static void pm_copy_name(char *dst, const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = s[i] ? (char)s[i] : '?';
}

static int pm_add_leaf(pm_ctx *c, const pm_elem *e, const char *path, size_t plen, const pm_frame *lv,
                       pm_names *names, size_t *offs)
{
    parquet_file *f = c->f;
    if (e->type < PARQUET_BOOLEAN || e->type > PARQUET_FIXED_LEN_BYTE_ARRAY)
        return pm_fail(c, NL_ERR_FORMAT, e->offset, "column %.*s has physical type %d", (int)plen, path, e->type);
    if (e->type == PARQUET_FIXED_LEN_BYTE_ARRAY && e->type_length <= 0)
        return pm_fail(c, NL_ERR_FORMAT, e->offset, "FIXED_LEN_BYTE_ARRAY column %.*s has width %d", (int)plen, path,
                       e->type_length);
    size_t top = 0;
    while (top < plen && path[top] != '.')
        top++;
    size_t i = f->nleaves;
    if (pm_names_add(names, path, plen, &offs[2 * i]) != 0 || pm_names_add(names, path, top, &offs[2 * i + 1]) != 0)
        return pm_fail(c, NL_ERR_LIMIT, e->offset, "column names exceed %zu bytes (or out of memory)", PM_NAMES_MAX);
    pq_leaf *l = &f->leaves[f->nleaves++];
    parquet_column_info *ci = &l->info;
    ci->type = (parquet_type)e->type;
    ci->type_length = e->type == PARQUET_FIXED_LEN_BYTE_ARRAY ? e->type_length : 0;
    ci->logical = e->logical;
    ci->int_bits = e->int_bits;
    ci->int_signed = e->logical == PARQUET_LOGICAL_INT ? e->int_signed : true;
    ci->time_unit_ns = e->unit_ns;
    ci->scale = e->scale;
    ci->precision = e->precision;
    ci->max_def = lv->def;
    ci->max_rep = lv->rep;
    ci->list = lv->rep == 1;
    ci->nullable = lv->rep ? lv->rep_def > 1 : lv->def > 0;
    l->rep_def = lv->rep_def;
    return 0;
}

static int pm_walk_schema(pm_ctx *c, pm_names *names, size_t *offs)
{
    parquet_file *f = c->f;
    const pm_elem *root = &c->elems[0];
    if (c->nelems < 2 || root->num_children <= 0)
        return pm_fail(c, NL_ERR_FORMAT, root->offset, "the schema has no columns");
    pm_frame stack[PARQUET_SCHEMA_DEPTH_MAX + 1];
    char path[PARQUET_NAME_MAX];
    unsigned depth = 1;
    stack[0] = (pm_frame){root->num_children, 0, 0, 0, 0};
    for (uint32_t i = 1; i < c->nelems; i++) {
        while (depth > 0 && stack[depth - 1].left == 0)
            depth--;
        const pm_elem *e = &c->elems[i];
        if (depth == 0)
            return pm_fail(c, NL_ERR_FORMAT, e->offset, "schema element %u is outside the root's children", i);
        pm_frame *parent = &stack[depth - 1];
        parent->left--;
        if (!e->has_rep || e->repetition < PARQUET_REQUIRED || e->repetition > PARQUET_REPEATED)
            return pm_fail(c, NL_ERR_FORMAT, e->offset, "schema element %u has no valid repetition type", i);
        pm_frame lv = {0, (uint16_t)(parent->def + (e->repetition != PARQUET_REQUIRED)),
                       (uint16_t)(parent->rep + (e->repetition == PARQUET_REPEATED)), parent->rep_def, 0};
        if (e->repetition == PARQUET_REPEATED)
            lv.rep_def = lv.def;
        lv.path_len = parent->path_len + (parent->path_len ? 1 : 0) + e->name_len;
        if (lv.path_len >= PARQUET_NAME_MAX)
            return pm_fail(c, NL_ERR_LIMIT, e->offset, "column path longer than %u bytes", PARQUET_NAME_MAX);
        if (parent->path_len)
            path[parent->path_len] = '.';
        pm_copy_name(path + lv.path_len - e->name_len, e->name, e->name_len);
        if (e->has_children && e->num_children > 0) {
            if (depth > PARQUET_SCHEMA_DEPTH_MAX)
                return pm_fail(c, NL_ERR_LIMIT, e->offset, "schema nested deeper than %u", PARQUET_SCHEMA_DEPTH_MAX);
            if ((uint32_t)e->num_children > c->nelems - i - 1)
                return pm_fail(c, NL_ERR_FORMAT, e->offset, "group %.*s claims %d children, %u elements follow",
                               (int)lv.path_len, path, e->num_children, c->nelems - i - 1);
            lv.left = e->num_children;
            stack[depth++] = lv;
            continue;
        }
        if (!e->has_type)
            return pm_fail(c, NL_ERR_FORMAT, e->offset, "schema leaf %.*s has no physical type", (int)lv.path_len, path);
        if (pm_add_leaf(c, e, path, lv.path_len, &lv, names, offs) != 0)
            return -1;
    }
    while (depth > 0 && stack[depth - 1].left == 0)
        depth--;
    if (depth)
        return pm_fail(c, NL_ERR_FORMAT, c->elems[c->nelems - 1].offset,
                       "the schema ends before a group's children do");
    if (f->nleaves == 0)
        return pm_fail(c, NL_ERR_FORMAT, root->offset, "the schema has no leaf columns");
    return 0;
}

static int pm_build_leaves(pm_ctx *c)
{
    parquet_file *f = c->f;
    pm_names names = {0};
    size_t *offs = malloc(2 * (size_t)c->nelems * sizeof *offs);
    f->leaves = calloc(c->nelems, sizeof *f->leaves);
    int rc = -1;
    if (!offs || !f->leaves) {
        pm_fail(c, NL_ERR_NOMEM, c->elems[0].offset, "out of memory for %u schema elements", c->nelems);
    } else if (pm_walk_schema(c, &names, offs) == 0) {
        for (size_t i = 0; i < f->nleaves; i++) {
            f->leaves[i].info.path = names.buf + offs[2 * i];
            f->leaves[i].info.name = names.buf + offs[2 * i + 1];
        }
        f->names = names.buf;
        names.buf = NULL;
        rc = 0;
    }
    free(names.buf);
    free(offs);
    return rc;
}

/* ---- row groups: checks and the final form ----------------------------------------------------------- */

static int pm_check_chunk(pm_ctx *c, pm_chunk *ch, const pq_leaf *leaf)
{
    parquet_file *f = c->f;
    pq_chunk_meta *m = &ch->meta;
    int64_t at = m->meta_offset;
    if (m->type != (int32_t)leaf->info.type)
        return pm_fail(c, NL_ERR_FORMAT, at, "column %s: ColumnMetaData type %d differs from the schema's %s",
                       leaf->info.path, m->type, parquet_type_name(leaf->info.type));
    if (m->num_values < 0 || ch->total_compressed < 0 || m->total_uncompressed < 0)
        return pm_fail(c, NL_ERR_FORMAT, at, "column %s: negative num_values or size", leaf->info.path);
    if ((uint64_t)m->num_values > PARQUET_CHUNK_VALUES_MAX)
        return pm_fail(c, NL_ERR_LIMIT, at, "column %s: %lld values in one chunk (at most %zu)", leaf->info.path,
                       (long long)m->num_values, PARQUET_CHUNK_VALUES_MAX);
    int64_t start = ch->data_page_offset;
    if (ch->dict_offset > 0 && ch->dict_offset < start)
        start = ch->dict_offset;
    if (start < 4 || (uint64_t)start > f->data_end || (uint64_t)ch->total_compressed > f->data_end - (uint64_t)start)
        return pm_fail(c, NL_ERR_FORMAT, at,
                       "column %s: chunk bytes [%lld, +%lld) lie outside the data area [4, %llu) of the file",
                       leaf->info.path, (long long)start, (long long)ch->total_compressed,
                       (unsigned long long)f->data_end);
    m->start = (uint64_t)start;
    m->size = (uint64_t)ch->total_compressed;
    return 0;
}

static int pm_finish(pm_ctx *c)
{
    parquet_file *f = c->f;
    f->rgs = calloc(c->nrgs ? c->nrgs : 1, sizeof *f->rgs);
    if (!f->rgs)
        return pm_fail(c, NL_ERR_NOMEM, c->r.base_offset, "out of memory for %u row groups", c->nrgs);
    int64_t rows = 0;
    for (uint32_t g = 0; g < c->nrgs; g++) {
        pm_rg *rg = &c->rgs[g];
        if (rg->nchunks != f->nleaves)
            return pm_fail(c, NL_ERR_FORMAT, rg->offset, "row group %u has %u column chunks, the schema %zu columns", g,
                           rg->nchunks, f->nleaves);
        if (rg->num_rows < 0 || rg->num_rows > INT64_MAX - rows)
            return pm_fail(c, NL_ERR_FORMAT, rg->offset, "row group %u has %lld rows", g, (long long)rg->num_rows);
        rows += rg->num_rows;
        f->rgs[g].chunks = malloc(f->nleaves * sizeof *f->rgs[g].chunks);
        if (!f->rgs[g].chunks)
            return pm_fail(c, NL_ERR_NOMEM, rg->offset, "out of memory for row group %u", g);
        f->nrgs = g + 1;
        f->rgs[g].num_rows = rg->num_rows;
        for (size_t k = 0; k < f->nleaves; k++) {
            if (pm_check_chunk(c, &rg->chunks[k], &f->leaves[k]) != 0) {
                nl_error_set_record(c->err, g);
                nl_error_set_field(c->err, f->leaves[k].info.path);
                return -1;
            }
            f->rgs[g].chunks[k] = rg->chunks[k].meta;
        }
    }
    if (c->num_rows != rows)
        return pm_fail(c, NL_ERR_FORMAT, c->r.base_offset, "num_rows is %lld, the row groups hold %lld",
                       (long long)c->num_rows, (long long)rows);
    f->num_rows = rows;
    return 0;
}

/* ---- entry ------------------------------------------------------------------------------------------- */

int parquet_meta_decode(parquet_file *f, const uint8_t *buf, size_t len, int64_t offset, nl_error *err)
{
    pm_ctx c = {.f = f, .err = err};
    thrift_init(&c.r, buf, len, offset, f->source, err);
    int rc = pm_file_metadata(&c);
    if (rc == 0)
        rc = pm_build_leaves(&c);
    if (rc == 0)
        rc = pm_finish(&c);
    for (uint32_t i = 0; i < c.nrgs; i++)
        free(c.rgs[i].chunks);
    free(c.rgs);
    free(c.elems);
    return rc;
}
