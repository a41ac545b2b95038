/* parquet — see parquet.h. File layout (Apache Parquet format 2.x):
 *
 *   offset            size  field
 *   0                 4     magic "PAR1"
 *   4                 ..    column chunks, row group after row group (only the footer says where)
 *   size - 8 - F      F     FileMetaData, Thrift compact (parquet_meta.c)
 *   size - 8          4     F, u32 little-endian
 *   size - 4          4     magic "PAR1" ("PARE" = encrypted footer: refused)
 *
 * A column chunk is [dictionary page] data page+, each page = PageHeader (Thrift compact) + body:
 *
 *   PageHeader        1 type i32 (0 DATA_PAGE, 1 INDEX_PAGE, 2 DICTIONARY_PAGE, 3 DATA_PAGE_V2)
 *                     2 uncompressed_page_size i32 · 3 compressed_page_size i32 · 4 crc i32 (CRC-32 of the body)
 *                     5 DataPageHeader{1 num_values, 2 encoding, 3 definition_level_encoding,
 *                                      4 repetition_level_encoding} (i32 each)
 *                     7 DictionaryPageHeader{1 num_values, 2 encoding}
 *                     8 DataPageHeaderV2{1 num_values, 2 num_nulls, 3 num_rows, 4 encoding,
 *                                        5 definition_levels_byte_length, 6 repetition_levels_byte_length,
 *                                        7 is_compressed bool (default true)}
 *   DICTIONARY_PAGE   body compressed; PLAIN values (the dictionary)
 *   DATA_PAGE (v1)    body compressed; inside: [u32 LE len + RLE repetition levels] if max_rep > 0,
 *                     [u32 LE len + RLE definition levels] if max_def > 0 (BIT_PACKED levels: no length),
 *                     then the values of the non-null slots in the page's encoding
 *   DATA_PAGE_V2      repetition levels, definition levels (RLE, no length prefix, never compressed), then
 *                     the values, compressed unless is_compressed is false
 *
 * Decoding (one chunk): levels go to def[]/rep[]; a level whose definition reaches the leaf (def = max_def)
 * carries a value; a list element exists where def reaches the repeated node (rep_def); the values of a
 * page come dense and are scattered to their slots. Byte strings stay where they lie (the chunk buffer for
 * uncompressed pages, the decompressed page otherwise), so a chunk of strings costs its decompressed size
 * plus 16 bytes a value — or 4 bytes a value when every page is dictionary-encoded, in which case only the
 * indices are kept (dict_index) and consumers work per distinct string.
 * Checks: page sizes within the chunk, CRC when present, decompressed size = header's, levels <= max,
 * dictionary indices < dictionary size, total levels = ColumnMetaData.num_values, rows = row group rows,
 * v2 num_nulls/num_rows = what the levels say. */
#include "parquet.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "parquet_codec.h"
#include "parquet_encoding.h"
#include "parquet_internal.h"
#include "rdfile.h"
#include "thrift_compact.h"

/* Smallest pool block for decompressed pages and assembled strings. */
#define PQ_POOL_BLOCK ((size_t)64 << 10)

/* ---- names ------------------------------------------------------------------------------------------- */

const char *parquet_type_name(parquet_type t)
{
    static const char *const names[] = {"BOOLEAN", "INT32",      "INT64",     "INT96",
                                        "FLOAT",   "DOUBLE",     "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "unknown type";
}

const char *parquet_codec_name(parquet_codec c)
{
    static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "unknown codec";
}

static const char *pq_want_name(parquet_want w)
{
    switch (w) {
    case PARQUET_WANT_I64: return "int64";
    case PARQUET_WANT_F64: return "double";
    case PARQUET_WANT_BOOL: return "boolean";
    case PARQUET_WANT_BYTES: return "bytes";
    }
    return "?";
}

parquet_want parquet_want_of(parquet_type t)
{
    switch (t) {
    case PARQUET_BOOLEAN: return PARQUET_WANT_BOOL;
    case PARQUET_INT32:
    case PARQUET_INT64: return PARQUET_WANT_I64;
    case PARQUET_FLOAT:
    case PARQUET_DOUBLE: return PARQUET_WANT_F64;
    default: return PARQUET_WANT_BYTES;
    }
}

/* ---- open / close ------------------------------------------------------------------------------------ */

static int pq_read_at(const parquet_file *f, void *dst, size_t n, uint64_t offset, nl_error *err)
{
    if (f->mem) {
        memcpy(dst, f->mem + offset, n);
        return 0;
    }
    size_t got;
    if (rdfile_pread(f->fd, dst, n, offset, &got, f->source, err) != 0)
        return -1;
    if (got != n)
        return nl_error_set(err, NL_ERR_TRUNCATED, f->source, (int64_t)(offset + got),
                            "the file ends after %zu of %zu bytes read here (was it truncated while open?)", got, n);
    return 0;
}

static int pq_open_footer(parquet_file *f, nl_error *err)
{
    uint8_t head[4], tail[8];
    if (f->size < 12)
        return nl_error_set(err, f->size >= 4 && f->mem && memcmp(f->mem, "PAR1", 4) == 0 ? NL_ERR_TRUNCATED : NL_ERR_FORMAT,
                            f->source, 0, "%llu bytes: too short for Parquet (magic, footer length and magic need 12)",
                            (unsigned long long)f->size);
    if (pq_read_at(f, head, 4, 0, err) != 0 || pq_read_at(f, tail, 8, f->size - 8, err) != 0)
        return -1;
    if (memcmp(head, "PAR1", 4) != 0)
        return nl_error_set(err, NL_ERR_FORMAT, f->source, 0, "wrong magic: not a Parquet file (expected \"PAR1\")");
    if (memcmp(tail + 4, "PARE", 4) == 0)
        return nl_error_set(err, NL_ERR_UNSUPPORTED, f->source, (int64_t)f->size - 4,
                            "encrypted Parquet footer (\"PARE\") is not supported");
    if (memcmp(tail + 4, "PAR1", 4) != 0)
        return nl_error_set(err, NL_ERR_TRUNCATED, f->source, (int64_t)f->size - 4,
                            "no \"PAR1\" at the end: the file is truncated or not Parquet");
    uint32_t flen = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 | (uint32_t)tail[3] << 24;
    if (flen > f->size - 12)
        return nl_error_set(err, NL_ERR_FORMAT, f->source, (int64_t)f->size - 8,
                            "footer length %u runs past the start of the file (%llu bytes)", flen,
                            (unsigned long long)f->size);
    if (flen > PARQUET_FOOTER_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, f->source, (int64_t)f->size - 8, "footer of %u bytes (at most %u)",
                            flen, PARQUET_FOOTER_MAX);
    f->data_end = f->size - 8 - flen;
    const uint8_t *buf = f->mem ? f->mem + f->data_end : NULL;
    uint8_t *copy = NULL;
    if (!buf) {
        copy = malloc(flen ? flen : 1);
        if (!copy)
            return nl_error_set(err, NL_ERR_NOMEM, f->source, (int64_t)f->data_end, "out of memory for a %u-byte footer",
                                flen);
        if (pq_read_at(f, copy, flen, f->data_end, err) != 0) {
            free(copy);
            return -1;
        }
        buf = copy;
    }
    int rc = parquet_meta_decode(f, buf, flen, (int64_t)f->data_end, err);
    free(copy);
    return rc;
}

static parquet_file *pq_new(const char *name)
{
    parquet_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->fd = -1;
    f->source = strdup(name ? name : "(memory)");
    if (!f->source) {
        free(f);
        return NULL;
    }
    return f;
}

int parquet_open(const char *path, parquet_file **out, nl_error *err)
{
    *out = NULL;
    parquet_file *f = pq_new(path);
    if (!f)
        return nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory opening a Parquet file");
    if (rdfile_open(path, &f->fd, &f->size, err) != 0 || pq_open_footer(f, err) != 0) {
        parquet_close(f);
        return -1;
    }
    *out = f;
    return 0;
}

int parquet_open_mem(const void *data, size_t len, const char *name, parquet_file **out, nl_error *err)
{
    *out = NULL;
    parquet_file *f = pq_new(name);
    if (!f)
        return nl_error_set(err, NL_ERR_NOMEM, name, -1, "out of memory opening a Parquet buffer");
    f->mem = data ? data : (const uint8_t *)"";
    f->size = data ? len : 0;
    if (pq_open_footer(f, err) != 0) {
        parquet_close(f);
        return -1;
    }
    *out = f;
    return 0;
}

void parquet_close(parquet_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    for (size_t i = 0; i < f->nrgs; i++)
        free(f->rgs[i].chunks);
    free(f->rgs);
    free(f->leaves);
    free(f->names);
    free(f->created_by);
    free(f->source);
    free(f);
}

/* ---- metadata ---------------------------------------------------------------------------------------- */

const char *parquet_source(const parquet_file *f)
{
    return f->source;
}

uint64_t parquet_file_size(const parquet_file *f)
{
    return f->size;
}

int64_t parquet_rows(const parquet_file *f)
{
    return f->num_rows;
}

size_t parquet_row_groups(const parquet_file *f)
{
    return f->nrgs;
}

int64_t parquet_row_group_rows(const parquet_file *f, size_t row_group)
{
    return row_group < f->nrgs ? f->rgs[row_group].num_rows : 0;
}

size_t parquet_columns(const parquet_file *f)
{
    return f->nleaves;
}

const parquet_column_info *parquet_column(const parquet_file *f, size_t i)
{
    return i < f->nleaves ? &f->leaves[i].info : NULL;
}

long parquet_find_column(const parquet_file *f, const char *name)
{
    long by_name = -1;
    size_t matches = 0, leaves_of_name = 0;
    for (size_t i = 0; i < f->nleaves; i++) {
        if (strcmp(f->leaves[i].info.path, name) == 0)
            return (long)i;
        if (strcmp(f->leaves[i].info.name, name) == 0) {
            leaves_of_name++;
            if (!matches++)
                by_name = (long)i;
        }
    }
    return leaves_of_name == 1 ? by_name : -1;
}

const char *parquet_created_by(const parquet_file *f)
{
    return f->created_by ? f->created_by : "";
}

parquet_codec parquet_chunk_codec(const parquet_file *f, size_t row_group, size_t col)
{
    return (parquet_codec)f->rgs[row_group].chunks[col].codec;
}

uint64_t parquet_chunk_compressed_bytes(const parquet_file *f, size_t row_group, size_t col)
{
    return f->rgs[row_group].chunks[col].size;
}

uint64_t parquet_chunk_offset(const parquet_file *f, size_t row_group, size_t col)
{
    return f->rgs[row_group].chunks[col].start;
}

int64_t parquet_chunk_null_count(const parquet_file *f, size_t row_group, size_t col)
{
    return f->rgs[row_group].chunks[col].null_count;
}

/* ---- chunk buffers ----------------------------------------------------------------------------------- */

typedef struct pq_vec {
    void *p;
    size_t bytes; /* capacity in bytes: one vector may hold different element types from read to read */
} pq_vec;

typedef struct pq_block {
    uint8_t *p;
    size_t cap, used;
} pq_block;

/* Buffers a read needs only while it runs (nothing in the chunk points into them), and the decompressor:
 * parquet_scan lends one set to all the chunks it reads, so they cost the largest column's, not the sum. */
typedef struct pq_scratch {
    pq_vec lv, idx, t_i64, t_f64, t_b, t_bytes, scratch, split, page;
    parquet_codec_ctx *codec;
} pq_scratch;

struct parquet_chunk_buf {
    /* outputs, indexed by slot / level / row */
    pq_vec valid, i64, f64, b, bytes, dict_index, offsets, row_valid, def, rep;
    /* the dictionary, decoded per want */
    pq_vec dict, dict_i64, dict_f64, dict_b;
    /* compressed chunk bytes (file input; uncompressed pages' byte views point into them) */
    pq_vec raw;
    pq_scratch own;
    pq_scratch *scr; /* &own, or a scan's shared set */
    /* decompressed pages and assembled strings that byte views point into */
    pq_block *blocks;
    size_t nblocks, blocks_cap, cur;
    size_t pooled;
    size_t hint; /* size for the next new block: what the last read used, so one block serves the next */
    parquet_codec_ctx *codec;
};

static int pq_reserve(pq_vec *v, size_t n, size_t elem)
{
    if (n > SIZE_MAX / elem)
        return -1;
    size_t need = n * elem;
    if (need <= v->bytes)
        return 0;
    size_t cap = v->bytes ? v->bytes : 1024;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    void *p = realloc(v->p, cap);
    if (!p)
        return -1;
    v->p = p;
    v->bytes = cap;
    return 0;
}

static void pq_vec_free(pq_vec *v)
{
    free(v->p);
    v->p = NULL;
    v->bytes = 0;
}

/* Make the pool empty for the next read. A read that needed several blocks leaves one block of their
 * total size behind instead of all of them: chunk after chunk, the pool holds about one chunk. */
static void pq_pool_reset(parquet_chunk_buf *b)
{
    if (b->nblocks > 1) {
        for (size_t i = 0; i < b->nblocks; i++)
            free(b->blocks[i].p);
        b->nblocks = 0;
        b->hint = b->pooled + b->pooled / 8;
    }
    if (b->nblocks)
        b->blocks[0].used = 0;
    b->cur = 0;
    b->pooled = 0;
}

static uint8_t *pq_pool_alloc(parquet_chunk_buf *b, size_t n)
{
    if (n > PARQUET_CHUNK_BYTES_MAX - b->pooled)
        return NULL;
    for (; b->cur < b->nblocks; b->cur++) {
        pq_block *k = &b->blocks[b->cur];
        if (k->cap - k->used >= n) {
            uint8_t *p = k->p + k->used;
            k->used += n;
            b->pooled += n;
            return p;
        }
    }
    if (b->nblocks == b->blocks_cap) {
        size_t cap = b->blocks_cap ? b->blocks_cap * 2 : 8;
        pq_block *nb = realloc(b->blocks, cap * sizeof *nb);
        if (!nb)
            return NULL;
        b->blocks = nb;
        b->blocks_cap = cap;
    }
    size_t size = n > PQ_POOL_BLOCK ? n : PQ_POOL_BLOCK;
    if (b->hint > size)
        size = b->hint;
    b->hint = 0;
    uint8_t *p = malloc(size);
    if (!p)
        return NULL;
    b->blocks[b->nblocks++] = (pq_block){p, size, n};
    b->cur = b->nblocks - 1;
    b->pooled += n;
    return p;
}

static uint8_t *pq_pool_alloc_cb(void *ctx, size_t n)
{
    return pq_pool_alloc(ctx, n);
}

void parquet_chunk_init(parquet_chunk *c)
{
    memset(c, 0, sizeof *c);
}

static void pq_scratch_free(pq_scratch *s)
{
    pq_vec *vecs[] = {&s->lv, &s->idx, &s->t_i64, &s->t_f64, &s->t_b, &s->t_bytes, &s->scratch, &s->split, &s->page};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
        pq_vec_free(vecs[i]);
    parquet_codec_free(s->codec);
    s->codec = NULL;
}

void parquet_chunk_close(parquet_chunk *c)
{
    parquet_chunk_buf *b = c->buf;
    if (b) {
        pq_vec *vecs[] = {&b->valid, &b->i64,      &b->f64,     &b->b,        &b->bytes,   &b->dict_index,
                          &b->offsets, &b->row_valid, &b->def,    &b->rep,      &b->dict,    &b->dict_i64,
                          &b->dict_f64, &b->dict_b,  &b->raw};
        for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
            pq_vec_free(vecs[i]);
        for (size_t i = 0; i < b->nblocks; i++)
            free(b->blocks[i].p);
        free(b->blocks);
        pq_scratch_free(&b->own);
        free(b);
    }
    memset(c, 0, sizeof *c);
}

/* The chunk's buffers, created on first use; `shared` (nullable) lends a scan's scratch. */
static parquet_chunk_buf *pq_chunk_buf(parquet_chunk *c, pq_scratch *shared)
{
    if (!c->buf && !(c->buf = calloc(1, sizeof *c->buf)))
        return NULL;
    c->buf->scr = shared ? shared : &c->buf->own;
    return c->buf;
}

parquet_bytes parquet_chunk_bytes(const parquet_chunk *c, size_t slot)
{
    parquet_bytes none = {(const uint8_t *)"", 0};
    if (slot >= c->count || (c->valid && !c->valid[slot]))
        return none;
    if (c->bytes)
        return c->bytes[slot];
    if (c->dict_index && c->dict_index[slot] < c->dict_count)
        return c->dict[c->dict_index[slot]];
    return none;
}

/* ---- one chunk read ---------------------------------------------------------------------------------- */

enum { PQ_MODE_UNDECIDED, PQ_MODE_DICT, PQ_MODE_VIEWS };

typedef struct pq_read {
    const parquet_file *f;
    const pq_leaf *leaf;
    const parquet_column_info *ci;
    const pq_chunk_meta *m;
    size_t rg;
    parquet_want want;
    parquet_chunk *out;
    parquet_chunk_buf *b;
    pq_scratch *s; /* b->scr */
    nl_error *err;
    const uint8_t *chunk; /* the chunk's bytes */
    size_t page;          /* index of the page being read */
    int64_t page_offset;  /* its header's file offset */
    size_t levels, slots, rows, nulls, data_pages;
    int mode;             /* BYTES: dictionary indices or views */
    bool have_dict;
    size_t dict_count;
    bool unsigned32;      /* INT32 annotated unsigned: zero-extend */
} pq_read;

static int pq_fail(pq_read *rd, nl_error_code code, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int pq_fail(pq_read *rd, nl_error_code code, int64_t offset, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nl_error_set(rd->err, code, rd->f->source, offset, "column %.60s, row group %zu, page %zu: %s", rd->ci->path, rd->rg,
                 rd->page, msg);
    nl_error_set_field(rd->err, rd->ci->path);
    nl_error_set_record(rd->err, (int64_t)rd->rg);
    return -1;
}

static int pq_nomem(pq_read *rd, const char *what)
{
    return pq_fail(rd, NL_ERR_NOMEM, rd->page_offset, "out of memory for %s", what);
}

/* A decoder's error, placed at the page's header; `where` says which part of the page. */
static int pq_decode_fail(pq_read *rd, const parquet_decode_error *e, const char *where)
{
    return pq_fail(rd, e->code, rd->page_offset, "%s (byte %zu of the %s)", e->message, e->pos, where);
}

#define PQ_RESERVE(rd, vec, n, type)                                                                           \
    do {                                                                                                       \
        if (pq_reserve(&(rd)->b->vec, (n), sizeof(type)) != 0)                                                 \
            return pq_nomem((rd), #vec);                                                                       \
    } while (0)
#define PQ_SCRATCH(rd, vec, n, type)                                                                           \
    do {                                                                                                       \
        if (pq_reserve(&(rd)->s->vec, (n), sizeof(type)) != 0)                                                 \
            return pq_nomem((rd), #vec);                                                                       \
    } while (0)

/* ---- page header -------------------------------------------------------------------------------------- */

typedef struct pq_page_header {
    int32_t type, uncompressed, compressed, crc;
    bool has_type, has_sizes_u, has_sizes_c, has_crc, has_v1, has_v2, has_dict;
    int32_t num_values, encoding, def_enc, rep_enc;    /* v1 and dictionary */
    int32_t num_nulls, num_rows, def_len, rep_len;     /* v2 */
    bool is_compressed;
} pq_page_header;

static int pq_i32_field(thrift_reader *r, const thrift_field *f, const char *strct, const char *name, int32_t *out)
{
    if (f->type != THRIFT_I32)
        return thrift_wrong_type(r, f, strct, name, "i32");
    return thrift_read_i32(r, out);
}

/* DataPageHeader (v1), DictionaryPageHeader or DataPageHeaderV2 (which = 5, 7, 8). */
static int pq_sub_header(thrift_reader *r, int which, pq_page_header *h)
{
    static const char *const v1[] = {"", "num_values", "encoding", "definition_level_encoding",
                                     "repetition_level_encoding"};
    static const char *const v2[] = {"", "num_values", "num_nulls", "num_rows", "encoding",
                                     "definition_levels_byte_length", "repetition_levels_byte_length"};
    const char *strct = which == 5 ? "DataPageHeader" : which == 7 ? "DictionaryPageHeader" : "DataPageHeaderV2";
    thrift_field f;
    int rc;
    bool seen[8] = {false};
    if (thrift_struct_begin(r) != 0)
        return -1;
    while ((rc = thrift_field_next(r, &f)) > 0) {
        int32_t *dst = NULL;
        const char *name = "";
        if (which == 5 && f.id >= 1 && f.id <= 4) {
            int32_t *t[] = {NULL, &h->num_values, &h->encoding, &h->def_enc, &h->rep_enc};
            dst = t[f.id];
            name = v1[f.id];
        } else if (which == 7 && f.id >= 1 && f.id <= 2) {
            dst = f.id == 1 ? &h->num_values : &h->encoding;
            name = v1[f.id];
        } else if (which == 8 && f.id >= 1 && f.id <= 6) {
            int32_t *t[] = {NULL, &h->num_values, &h->num_nulls, &h->num_rows, &h->encoding, &h->def_len, &h->rep_len};
            dst = t[f.id];
            name = v2[f.id];
        } else if (which == 8 && f.id == 7 && (f.type == THRIFT_TRUE || f.type == THRIFT_FALSE)) {
            h->is_compressed = f.type == THRIFT_TRUE;
            continue;
        }
        if (dst) {
            if (pq_i32_field(r, &f, strct, name, dst) != 0)
                return -1;
            seen[f.id] = true;
        } else if (thrift_skip(r, f.type) != 0) {
            return -1;
        }
    }
    if (rc != 0)
        return -1;
    int need = which == 5 ? 4 : which == 7 ? 2 : 6;
    for (int i = 1; i <= need; i++)
        if (!seen[i])
            return nl_error_set(r->err, NL_ERR_FORMAT, r->source, r->base_offset, "%s lacks %s", strct,
                                which == 8 ? v2[i] : v1[i]);
    return 0;
}

static int pq_page_header_decode(thrift_reader *r, pq_page_header *h)
{
    memset(h, 0, sizeof *h);
    h->is_compressed = true;
    thrift_field f;
    int rc;
    if (thrift_struct_begin(r) != 0)
        return -1;
    while ((rc = thrift_field_next(r, &f)) > 0) {
        int x = 0;
        switch (f.id) {
        case 1: x = pq_i32_field(r, &f, "PageHeader", "type", &h->type); h->has_type = true; break;
        case 2: x = pq_i32_field(r, &f, "PageHeader", "uncompressed_page_size", &h->uncompressed); h->has_sizes_u = true; break;
        case 3: x = pq_i32_field(r, &f, "PageHeader", "compressed_page_size", &h->compressed); h->has_sizes_c = true; break;
        case 4: x = pq_i32_field(r, &f, "PageHeader", "crc", &h->crc); h->has_crc = true; break;
        case 5:
        case 7:
        case 8:
            if (f.type != THRIFT_STRUCT)
                return thrift_wrong_type(r, &f, "PageHeader", f.id == 5 ? "data_page_header" : f.id == 7 ? "dictionary_page_header" : "data_page_header_v2", "struct");
            x = pq_sub_header(r, f.id, h);
            if (f.id == 5)
                h->has_v1 = true;
            else if (f.id == 7)
                h->has_dict = true;
            else
                h->has_v2 = true;
            break;
        default: x = thrift_skip(r, f.type); break;
        }
        if (x != 0)
            return -1;
    }
    if (rc != 0)
        return -1;
    if (!h->has_type || !h->has_sizes_u || !h->has_sizes_c)
        return nl_error_set(r->err, NL_ERR_FORMAT, r->source, r->base_offset,
                            "PageHeader lacks its type or sizes");
    return 0;
}

/* ---- levels ------------------------------------------------------------------------------------------- */

/* Decode n levels (max `max`) with `enc` from p[0, len) into dst; *used = bytes consumed. v1 RLE levels
 * carry a u32 length prefix (`prefixed`). */
static int pq_levels(pq_read *rd, const char *what, int enc, bool prefixed, const uint8_t *p, size_t len, size_t n,
                     uint16_t max, uint16_t *dst, size_t *used)
{
    unsigned bw = parquet_bit_width(max);
    parquet_decode_error e;
    size_t u = 0;
    if (enc == PARQUET_ENC_RLE) {
        size_t start = 0, body = len;
        if (prefixed) {
            if (len < 4)
                return pq_fail(rd, NL_ERR_TRUNCATED, rd->page_offset, "%s levels: no room for their length", what);
            uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            if (l > len - 4)
                return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "%s levels claim %u bytes, the page has %zu", what,
                               l, len - 4);
            start = 4;
            body = l;
        }
        if (parquet_rle_decode_levels(p + start, body, bw, n, dst, NULL, &e) != 0)
            return pq_decode_fail(rd, &e, what);
        u = start + body;
    } else if (enc == PARQUET_ENC_BIT_PACKED && prefixed) {
        PQ_SCRATCH(rd, lv, n, uint32_t);
        uint32_t *lv = rd->s->lv.p;
        if (parquet_bitpacked_decode(p, len, bw, n, lv, &u, &e) != 0)
            return pq_decode_fail(rd, &e, what);
        for (size_t i = 0; i < n; i++) /* bw <= 5: the values fit */
            dst[i] = (uint16_t)lv[i];
    } else {
        return pq_fail(rd, NL_ERR_UNSUPPORTED, rd->page_offset, "%s levels in encoding %s", what,
                       parquet_encoding_name(enc));
    }
    for (size_t i = 0; i < n; i++)
        if (dst[i] > max)
            return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "%s level %u of value %zu is above the maximum %u", what,
                           dst[i], i, max);
    *used = u;
    return 0;
}

/* ---- values ------------------------------------------------------------------------------------------- */

static bool pq_encoding_fits(int enc, parquet_type t)
{
    switch (enc) {
    case PARQUET_ENC_PLAIN:
    case PARQUET_ENC_PLAIN_DICTIONARY:
    case PARQUET_ENC_RLE_DICTIONARY: return true;
    case PARQUET_ENC_RLE: return t == PARQUET_BOOLEAN;
    case PARQUET_ENC_DELTA_BINARY_PACKED: return t == PARQUET_INT32 || t == PARQUET_INT64;
    case PARQUET_ENC_DELTA_LENGTH_BYTE_ARRAY: return t == PARQUET_BYTE_ARRAY;
    case PARQUET_ENC_DELTA_BYTE_ARRAY: return t == PARQUET_BYTE_ARRAY || t == PARQUET_FIXED_LEN_BYTE_ARRAY;
    case PARQUET_ENC_BYTE_STREAM_SPLIT:
        return t == PARQUET_INT32 || t == PARQUET_INT64 || t == PARQUET_FLOAT || t == PARQUET_DOUBLE ||
               t == PARQUET_FIXED_LEN_BYTE_ARRAY;
    default: return false;
    }
}

static size_t pq_width(const parquet_column_info *ci)
{
    switch (ci->type) {
    case PARQUET_INT32:
    case PARQUET_FLOAT: return 4;
    case PARQUET_INT64:
    case PARQUET_DOUBLE: return 8;
    case PARQUET_FIXED_LEN_BYTE_ARRAY: return (size_t)ci->type_length;
    default: return 0;
    }
}

/* PLAIN values of the column's type into the want's array. */
static int pq_plain(pq_read *rd, const uint8_t *p, size_t len, size_t n, void *dst, size_t *used,
                    parquet_decode_error *e)
{
    switch (rd->ci->type) {
    case PARQUET_BOOLEAN: return parquet_plain_bool(p, len, n, dst, used, e);
    case PARQUET_INT32: return parquet_plain_i32(p, len, n, rd->unsigned32, dst, used, e);
    case PARQUET_INT64: return parquet_plain_i64(p, len, n, dst, used, e);
    case PARQUET_FLOAT: return parquet_plain_float(p, len, n, dst, used, e);
    case PARQUET_DOUBLE: return parquet_plain_double(p, len, n, dst, used, e);
    case PARQUET_BYTE_ARRAY: return parquet_plain_byte_array(p, len, n, dst, used, e);
    case PARQUET_FIXED_LEN_BYTE_ARRAY:
        return parquet_plain_fixed(p, len, n, (size_t)rd->ci->type_length, dst, used, e);
    default: break;
    }
    e->code = NL_ERR_UNSUPPORTED;
    e->pos = 0;
    snprintf(e->message, sizeof e->message, "%s values are not supported", parquet_type_name(rd->ci->type));
    return -1;
}

/* BYTE_STREAM_SPLIT into the want's array (views into pooled bytes for FIXED_LEN_BYTE_ARRAY). */
static int pq_split(pq_read *rd, const uint8_t *p, size_t len, size_t n, void *dst, parquet_decode_error *e)
{
    size_t w = pq_width(rd->ci);
    if (w && n > SIZE_MAX / w)
        return parquet_byte_stream_split_decode(p, len, n, w, NULL, NULL, e);
    uint8_t *buf;
    if (rd->ci->type == PARQUET_FIXED_LEN_BYTE_ARRAY) {
        buf = n ? pq_pool_alloc(rd->b, n * w) : (uint8_t *)"";
        if (!buf)
            return pq_nomem(rd, "BYTE_STREAM_SPLIT values");
    } else {
        if (pq_reserve(&rd->s->split, n * w + 1, 1) != 0)
            return pq_nomem(rd, "BYTE_STREAM_SPLIT values");
        buf = rd->s->split.p;
    }
    if (parquet_byte_stream_split_decode(p, len, n, w, buf, NULL, e) != 0)
        return -1;
    switch (rd->ci->type) {
    case PARQUET_INT32: return parquet_plain_i32(buf, n * w, n, rd->unsigned32, dst, NULL, e);
    case PARQUET_INT64: return parquet_plain_i64(buf, n * w, n, dst, NULL, e);
    case PARQUET_FLOAT: return parquet_plain_float(buf, n * w, n, dst, NULL, e);
    case PARQUET_DOUBLE: return parquet_plain_double(buf, n * w, n, dst, NULL, e);
    default: return parquet_plain_fixed(buf, n * w, n, w, dst, NULL, e);
    }
}

/* Dictionary indices of a page: a bit-width byte, then RLE hybrid; each index checked. Decoded into `dst`
 * when given (BYTES chunks keep indices), else into scratch; *out = where they are. */
static int pq_indices(pq_read *rd, const uint8_t *p, size_t len, size_t n, uint32_t *dst, uint32_t **out)
{
    if (!rd->have_dict)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "dictionary-encoded page but the chunk has no dictionary page");
    if (len < 1)
        return pq_fail(rd, NL_ERR_TRUNCATED, rd->page_offset, "dictionary-encoded page without its bit width");
    if (p[0] > 32)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "dictionary index bit width %u is above 32", p[0]);
    uint32_t *idx = dst;
    if (!idx) {
        PQ_SCRATCH(rd, idx, n, uint32_t);
        idx = rd->s->idx.p;
    }
    parquet_decode_error e;
    if (parquet_rle_decode(p + 1, len - 1, p[0], n, idx, NULL, &e) != 0) {
        e.pos += 1;
        return pq_decode_fail(rd, &e, "page's values");
    }
    for (size_t i = 0; i < n; i++)
        if (idx[i] >= rd->dict_count)
            return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset,
                           "dictionary index %u of value %zu is out of range (the dictionary has %zu entries)", idx[i],
                           i, rd->dict_count);
    *out = idx;
    return 0;
}

/* Switch a BYTES chunk from dictionary indices to views (a page that is not dictionary-encoded arrived). */
static int pq_to_views(pq_read *rd)
{
    PQ_RESERVE(rd, bytes, rd->slots + 1, parquet_bytes);
    parquet_bytes *v = rd->b->bytes.p;
    const uint32_t *ix = rd->b->dict_index.p;
    const parquet_bytes *d = rd->b->dict.p;
    const uint8_t *valid = rd->ci->max_def ? rd->b->valid.p : NULL;
    for (size_t s = 0; s < rd->slots; s++)
        v[s] = (!valid || valid[s]) && rd->dict_count ? d[ix[s]] : (parquet_bytes){(const uint8_t *)"", 0};
    rd->mode = PQ_MODE_VIEWS;
    return 0;
}

/* Decode the n dense values of a data page into `dst` (typed by want; BYTES in dict mode: uint32 indices). */
static int pq_values(pq_read *rd, int enc, const uint8_t *p, size_t len, size_t n, void *dst)
{
    parquet_decode_error e = {0};
    const parquet_column_info *ci = rd->ci;
    int rc = 0;
    if (enc == PARQUET_ENC_PLAIN_DICTIONARY || enc == PARQUET_ENC_RLE_DICTIONARY) {
        uint32_t *idx = NULL;
        bool keep = rd->want == PARQUET_WANT_BYTES && rd->mode == PQ_MODE_DICT;
        if (pq_indices(rd, p, len, n, keep ? dst : NULL, &idx) != 0)
            return -1;
        parquet_chunk_buf *b = rd->b;
        switch (rd->want) {
        case PARQUET_WANT_I64:
            for (size_t i = 0; i < n; i++)
                ((int64_t *)dst)[i] = ((const int64_t *)b->dict_i64.p)[idx[i]];
            break;
        case PARQUET_WANT_F64:
            for (size_t i = 0; i < n; i++)
                ((double *)dst)[i] = ((const double *)b->dict_f64.p)[idx[i]];
            break;
        case PARQUET_WANT_BOOL:
            for (size_t i = 0; i < n; i++)
                ((uint8_t *)dst)[i] = ((const uint8_t *)b->dict_b.p)[idx[i]];
            break;
        case PARQUET_WANT_BYTES:
            if (rd->mode != PQ_MODE_DICT) /* in dictionary mode the indices were decoded into dst */
                for (size_t i = 0; i < n; i++)
                    ((parquet_bytes *)dst)[i] = ((const parquet_bytes *)b->dict.p)[idx[i]];
            break;
        }
        return 0;
    }
    switch (enc) {
    case PARQUET_ENC_PLAIN: rc = pq_plain(rd, p, len, n, dst, NULL, &e); break;
    case PARQUET_ENC_RLE: { /* booleans: u32 LE length, then RLE hybrid of width 1 */
        if (len < 4)
            return pq_fail(rd, NL_ERR_TRUNCATED, rd->page_offset, "RLE booleans without their length");
        uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        if (l > len - 4)
            return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "RLE booleans claim %u bytes, the page has %zu", l,
                           len - 4);
        PQ_SCRATCH(rd, lv, n, uint32_t);
        uint32_t *lv = rd->s->lv.p;
        rc = parquet_rle_decode(p + 4, l, 1, n, lv, NULL, &e);
        if (rc == 0)
            for (size_t i = 0; i < n; i++)
                ((uint8_t *)dst)[i] = (uint8_t)lv[i];
        else
            e.pos += 4;
        break;
    }
    case PARQUET_ENC_DELTA_BINARY_PACKED:
        rc = parquet_delta_binary_decode(p, len, n, ci->type == PARQUET_INT32 ? 32 : 64, dst, NULL, &e);
        if (rc == 0 && rd->unsigned32)
            for (size_t i = 0; i < n; i++)
                ((int64_t *)dst)[i] &= 0xffffffff;
        break;
    case PARQUET_ENC_DELTA_LENGTH_BYTE_ARRAY:
        PQ_SCRATCH(rd, scratch, n + 1, int64_t);
        rc = parquet_delta_length_decode(p, len, n, rd->s->scratch.p, dst, NULL, &e);
        break;
    case PARQUET_ENC_DELTA_BYTE_ARRAY:
        PQ_SCRATCH(rd, scratch, 2 * n + 1, int64_t);
        rc = parquet_delta_byte_array_decode(p, len, n, rd->s->scratch.p, PARQUET_CHUNK_BYTES_MAX - rd->b->pooled,
                                             pq_pool_alloc_cb, rd->b, dst, NULL, &e);
        break;
    case PARQUET_ENC_BYTE_STREAM_SPLIT: rc = pq_split(rd, p, len, n, dst, &e); break;
    default: return pq_fail(rd, NL_ERR_UNSUPPORTED, rd->page_offset, "value encoding %d", enc);
    }
    if (rc != 0)
        return e.message[0] ? pq_decode_fail(rd, &e, "page's values") : -1;
    return 0;
}

/* ---- slots -------------------------------------------------------------------------------------------- */

#define PQ_SCATTER(type, outp, dense)                                                                          \
    do {                                                                                                       \
        type *o_ = (type *)(outp);                                                                             \
        const type *d_ = (const type *)(dense);                                                                \
        size_t k_ = 0, s_ = base;                                                                              \
        for (size_t j_ = 0; j_ < L; j_++) {                                                                    \
            uint16_t dl_ = def[j_];                                                                            \
            if (dl_ < rep_def)                                                                                 \
                continue;                                                                                      \
            if (dl_ == max_def)                                                                                \
                o_[s_] = d_[k_++];                                                                             \
            else                                                                                               \
                memset(&o_[s_], 0, sizeof o_[s_]);                                                             \
            s_++;                                                                                              \
        }                                                                                                      \
    } while (0)

/* The data part shared by v1 and v2 pages: L levels (def/rep of this page already stored at rd->levels),
 * values p[0, len) in encoding `enc`. */
static int pq_page_data(pq_read *rd, int enc, const uint8_t *p, size_t len, size_t L)
{
    const parquet_column_info *ci = rd->ci;
    parquet_chunk_buf *b = rd->b;
    uint16_t max_def = ci->max_def, rep_def = ci->max_rep ? rd->leaf->rep_def : 0;
    const uint16_t *def = max_def ? (const uint16_t *)b->def.p + rd->levels : NULL;
    size_t V = L, S = L;
    if (def) {
        V = S = 0;
        for (size_t j = 0; j < L; j++) {
            V += def[j] == max_def;
            S += def[j] >= rep_def;
        }
    }
    if (!pq_encoding_fits(enc, ci->type))
        return pq_fail(rd, NL_ERR_UNSUPPORTED, rd->page_offset, "encoding %s for a %s column",
                       parquet_encoding_name(enc), parquet_type_name(ci->type));
    bool dict_enc = enc == PARQUET_ENC_PLAIN_DICTIONARY || enc == PARQUET_ENC_RLE_DICTIONARY;
    if (rd->want == PARQUET_WANT_BYTES) {
        if (rd->mode == PQ_MODE_UNDECIDED)
            rd->mode = dict_enc ? PQ_MODE_DICT : PQ_MODE_VIEWS;
        else if (rd->mode == PQ_MODE_DICT && !dict_enc && pq_to_views(rd) != 0)
            return -1;
    }
    size_t base = rd->slots, need = base + S;
    size_t esize;
    pq_vec *outv, *tmpv;
    switch (rd->want) {
    case PARQUET_WANT_I64: outv = &b->i64; tmpv = &rd->s->t_i64; esize = sizeof(int64_t); break;
    case PARQUET_WANT_F64: outv = &b->f64; tmpv = &rd->s->t_f64; esize = sizeof(double); break;
    case PARQUET_WANT_BOOL: outv = &b->b; tmpv = &rd->s->t_b; esize = 1; break;
    default:
        /* dictionary mode keeps uint32 indices, view mode parquet_bytes; dense values go through t_bytes */
        if (rd->mode == PQ_MODE_DICT) {
            outv = &b->dict_index;
            esize = sizeof(uint32_t);
        } else {
            outv = &b->bytes;
            esize = sizeof(parquet_bytes);
        }
        tmpv = &rd->s->t_bytes;
        break;
    }
    if (pq_reserve(outv, need + 1, esize) != 0 || (max_def && pq_reserve(&b->valid, need + 1, 1) != 0))
        return pq_nomem(rd, "column values");
    if (V == S) { /* every slot has a value: decode in place */
        if (V && pq_values(rd, enc, p, len, V, (char *)outv->p + base * esize) != 0)
            return -1;
        if (max_def)
            memset((uint8_t *)b->valid.p + base, 1, S);
    } else {
        if (pq_reserve(tmpv, V + 1, esize) != 0)
            return pq_nomem(rd, "page values");
        if (V && pq_values(rd, enc, p, len, V, tmpv->p) != 0)
            return -1;
        uint8_t *valid = (uint8_t *)b->valid.p;
        size_t s = base;
        for (size_t j = 0; j < L; j++)
            if (def[j] >= rep_def)
                valid[s++] = def[j] == max_def;
        switch (esize) {
        case 1: PQ_SCATTER(uint8_t, outv->p, tmpv->p); break;
        case 4: PQ_SCATTER(uint32_t, outv->p, tmpv->p); break;
        case 8:
            if (rd->want == PARQUET_WANT_F64)
                PQ_SCATTER(double, outv->p, tmpv->p);
            else
                PQ_SCATTER(int64_t, outv->p, tmpv->p);
            break;
        default: PQ_SCATTER(parquet_bytes, outv->p, tmpv->p); break;
        }
    }
    rd->slots = need;
    rd->nulls += S - V;
    if (ci->max_rep) {
        const uint16_t *rep = (const uint16_t *)b->rep.p + rd->levels;
        for (size_t j = 0; j < L; j++)
            rd->rows += rep[j] == 0;
    } else {
        rd->rows += L;
    }
    rd->levels += L;
    rd->data_pages++;
    return 0;
}

/* ---- pages -------------------------------------------------------------------------------------------- */

/* The page body decompressed (or as stored when uncompressed). Byte views of BYTES chunks may point into
 * it, so it comes from the pool; other chunks reuse one buffer. */
static int pq_body(pq_read *rd, const uint8_t *src, size_t n, size_t expected, bool compressed, const uint8_t **out)
{
    if (!compressed || rd->m->codec == PARQUET_UNCOMPRESSED) {
        if (n != expected)
            return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset,
                           "uncompressed page of %zu bytes, the page header says %zu", n, expected);
        *out = src;
        return 0;
    }
    uint8_t *dst;
    if (rd->want == PARQUET_WANT_BYTES) {
        dst = expected ? pq_pool_alloc(rd->b, expected) : (uint8_t *)"";
        if (!dst)
            return rd->b->pooled + expected > PARQUET_CHUNK_BYTES_MAX
                       ? pq_fail(rd, NL_ERR_LIMIT, rd->page_offset, "column chunk decodes to more than %zu bytes",
                                 PARQUET_CHUNK_BYTES_MAX)
                       : pq_nomem(rd, "a decompressed page");
    } else {
        if (pq_reserve(&rd->s->page, expected + 1, 1) != 0)
            return pq_nomem(rd, "a decompressed page");
        dst = rd->s->page.p;
    }
    if (!rd->s->codec && !(rd->s->codec = parquet_codec_new()))
        return pq_nomem(rd, "a decompressor");
    parquet_decode_error e = {0};
    if (parquet_codec_decompress(rd->s->codec, rd->m->codec, src, n, dst, expected, &e) != 0)
        return pq_fail(rd, e.code, rd->page_offset, "%s", e.message);
    *out = dst;
    return 0;
}

static int pq_dictionary_page(pq_read *rd, const pq_page_header *h, const uint8_t *data)
{
    if (!h->has_dict)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "dictionary page without a DictionaryPageHeader");
    if (rd->have_dict || rd->data_pages)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "a second dictionary page, or one after data pages");
    if (h->encoding != PARQUET_ENC_PLAIN && h->encoding != PARQUET_ENC_PLAIN_DICTIONARY)
        return pq_fail(rd, NL_ERR_UNSUPPORTED, rd->page_offset, "dictionary page in encoding %s",
                       parquet_encoding_name(h->encoding));
    if (h->num_values < 0)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "dictionary of %d entries", h->num_values);
    size_t n = (size_t)h->num_values;
    const uint8_t *body;
    if (pq_body(rd, data, (size_t)h->compressed, (size_t)h->uncompressed, true, &body) != 0)
        return -1;
    parquet_chunk_buf *b = rd->b;
    pq_vec *v;
    size_t esize;
    switch (rd->want) {
    case PARQUET_WANT_I64: v = &b->dict_i64; esize = sizeof(int64_t); break;
    case PARQUET_WANT_F64: v = &b->dict_f64; esize = sizeof(double); break;
    case PARQUET_WANT_BOOL: v = &b->dict_b; esize = 1; break;
    default: v = &b->dict; esize = sizeof(parquet_bytes); break;
    }
    if (pq_reserve(v, n + 1, esize) != 0)
        return pq_nomem(rd, "the dictionary");
    parquet_decode_error e = {0};
    if (pq_plain(rd, body, (size_t)h->uncompressed, n, v->p, NULL, &e) != 0)
        return pq_decode_fail(rd, &e, "dictionary page");
    rd->have_dict = true;
    rd->dict_count = n;
    return 0;
}

/* A page's value count must fit what the column metadata promises (itself capped at open): a corrupt count
 * is caught before anything is sized by it. */
static int pq_check_count(pq_read *rd, size_t L)
{
    if (L > (uint64_t)rd->m->num_values - rd->levels)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset,
                       "the page holds %zu values, more than the %lld of the column metadata left (%zu read)", L,
                       (long long)rd->m->num_values, rd->levels);
    return 0;
}

static int pq_data_page_v1(pq_read *rd, const pq_page_header *h, const uint8_t *data)
{
    if (!h->has_v1)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "data page without a DataPageHeader");
    if (h->num_values < 0)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "data page of %d values", h->num_values);
    size_t L = (size_t)h->num_values;
    if (pq_check_count(rd, L) != 0)
        return -1;
    const uint8_t *body;
    size_t len = (size_t)h->uncompressed, pos = 0, used;
    if (pq_body(rd, data, (size_t)h->compressed, len, true, &body) != 0)
        return -1;
    const parquet_column_info *ci = rd->ci;
    if (ci->max_rep) {
        PQ_RESERVE(rd, rep, rd->levels + L + 1, uint16_t);
        if (pq_levels(rd, "repetition", h->rep_enc, true, body, len, L, ci->max_rep, (uint16_t *)rd->b->rep.p + rd->levels,
                      &used) != 0)
            return -1;
        pos += used;
    }
    if (ci->max_def) {
        PQ_RESERVE(rd, def, rd->levels + L + 1, uint16_t);
        if (pq_levels(rd, "definition", h->def_enc, true, body + pos, len - pos, L, ci->max_def,
                      (uint16_t *)rd->b->def.p + rd->levels, &used) != 0)
            return -1;
        pos += used;
    }
    return pq_page_data(rd, h->encoding, body + pos, len - pos, L);
}

static int pq_data_page_v2(pq_read *rd, const pq_page_header *h, const uint8_t *data)
{
    if (!h->has_v2)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "v2 data page without a DataPageHeaderV2");
    if (h->num_values < 0 || h->num_nulls < 0 || h->num_rows < 0 || h->def_len < 0 || h->rep_len < 0)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "v2 data page with a negative count or length");
    size_t L = (size_t)h->num_values, rl = (size_t)h->rep_len, dl = (size_t)h->def_len;
    if (pq_check_count(rd, L) != 0)
        return -1;
    if (rl > (size_t)h->compressed || dl > (size_t)h->compressed - rl || rl + dl > (size_t)h->uncompressed)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset,
                       "v2 levels of %zu + %zu bytes do not fit the page (%d bytes, %d uncompressed)", rl, dl,
                       h->compressed, h->uncompressed);
    const parquet_column_info *ci = rd->ci;
    size_t used;
    if (ci->max_rep) {
        PQ_RESERVE(rd, rep, rd->levels + L + 1, uint16_t);
        if (pq_levels(rd, "repetition", PARQUET_ENC_RLE, false, data, rl, L, ci->max_rep,
                      (uint16_t *)rd->b->rep.p + rd->levels, &used) != 0)
            return -1;
    }
    if (ci->max_def) {
        PQ_RESERVE(rd, def, rd->levels + L + 1, uint16_t);
        if (pq_levels(rd, "definition", PARQUET_ENC_RLE, false, data + rl, dl, L, ci->max_def,
                      (uint16_t *)rd->b->def.p + rd->levels, &used) != 0)
            return -1;
    }
    size_t values = L;
    if (ci->max_def) {
        const uint16_t *def = (const uint16_t *)rd->b->def.p + rd->levels;
        values = 0;
        for (size_t j = 0; j < L; j++)
            values += def[j] == ci->max_def;
    }
    if ((size_t)h->num_nulls > L || values != L - (size_t)h->num_nulls)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "v2 page says %d of %zu values are null, its levels say %zu",
                       h->num_nulls, L, L - values);
    size_t rows = L;
    if (ci->max_rep) {
        const uint16_t *rep = (const uint16_t *)rd->b->rep.p + rd->levels;
        rows = 0;
        for (size_t j = 0; j < L; j++)
            rows += rep[j] == 0;
    }
    if (rows != (size_t)h->num_rows)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "v2 page says %d rows, its levels say %zu", h->num_rows, rows);
    const uint8_t *body;
    size_t len = (size_t)h->uncompressed - rl - dl;
    if (pq_body(rd, data + rl + dl, (size_t)h->compressed - rl - dl, len, h->is_compressed, &body) != 0)
        return -1;
    return pq_page_data(rd, h->encoding, body, len, L);
}

static int pq_page(pq_read *rd, size_t *pos)
{
    const pq_chunk_meta *m = rd->m;
    rd->page_offset = (int64_t)(m->start + *pos);
    thrift_reader tr;
    pq_page_header h;
    thrift_init(&tr, rd->chunk + *pos, (size_t)m->size - *pos, rd->page_offset, rd->f->source, rd->err);
    if (pq_page_header_decode(&tr, &h) != 0) {
        char msg[NL_ERROR_MESSAGE_MAX];
        snprintf(msg, sizeof msg, "%s", rd->err ? rd->err->message : "");
        int64_t at = rd->err ? rd->err->offset : rd->page_offset;
        return pq_fail(rd, rd->err ? rd->err->code : NL_ERR_FORMAT, at, "page header: %s", msg);
    }
    *pos += tr.pos;
    if (h.compressed < 0 || h.uncompressed < 0)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "page sizes %d / %d are negative", h.compressed,
                       h.uncompressed);
    if ((size_t)h.uncompressed > PARQUET_PAGE_MAX)
        return pq_fail(rd, NL_ERR_LIMIT, rd->page_offset, "page of %d bytes (at most %zu)", h.uncompressed,
                       PARQUET_PAGE_MAX);
    if ((uint64_t)h.compressed > m->size - *pos)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset,
                       "page body of %d bytes runs past the end of the column chunk (%llu bytes left)", h.compressed,
                       (unsigned long long)(m->size - *pos));
    const uint8_t *data = rd->chunk + *pos;
    *pos += (size_t)h.compressed;
    if (h.has_crc) {
        uint32_t crc = (uint32_t)crc32(0L, data, (uInt)h.compressed);
        if (crc != (uint32_t)h.crc)
            return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "CRC mismatch: the body hashes to %08x, the header says %08x",
                           crc, (uint32_t)h.crc);
    }
    int rc = 0;
    switch (h.type) {
    case 2: rc = pq_dictionary_page(rd, &h, data); break;
    case 0: rc = pq_data_page_v1(rd, &h, data); break;
    case 3: rc = pq_data_page_v2(rd, &h, data); break;
    default: break; /* index pages and page types of later format versions carry no values */
    }
    rd->page++;
    return rc;
}

/* Offsets and null lists of a list column, from its levels. */
static int pq_lists(pq_read *rd)
{
    parquet_chunk_buf *b = rd->b;
    PQ_RESERVE(rd, offsets, rd->rows + 1, uint32_t);
    PQ_RESERVE(rd, row_valid, rd->rows + 1, uint8_t);
    const uint16_t *def = b->def.p, *rep = b->rep.p;
    uint32_t *off = b->offsets.p;
    uint8_t *rv = b->row_valid.p;
    uint16_t rep_def = rd->leaf->rep_def;
    size_t r = 0, s = 0;
    bool null_lists = false;
    for (size_t j = 0; j < rd->levels; j++) {
        if (rep[j] == 0) {
            off[r] = (uint32_t)s;
            rv[r] = def[j] + 1 >= rep_def;
            null_lists |= !rv[r];
            r++;
        }
        s += def[j] >= rep_def;
    }
    off[r] = (uint32_t)s;
    rd->out->offsets = off;
    rd->out->row_valid = null_lists ? rv : NULL;
    return 0;
}

static int pq_check_want(pq_read *rd)
{
    const parquet_column_info *ci = rd->ci;
    if (ci->type == PARQUET_INT96)
        return pq_fail(rd, NL_ERR_UNSUPPORTED, rd->m->meta_offset, "INT96 columns are not supported");
    if (parquet_want_of(ci->type) != rd->want)
        return pq_fail(rd, NL_ERR_FORMAT, rd->m->meta_offset, "the column is %s, asked for as %s",
                       parquet_type_name(ci->type), pq_want_name(rd->want));
    if (!parquet_codec_supported(rd->m->codec))
        return pq_fail(rd, NL_ERR_UNSUPPORTED, rd->m->meta_offset, "compression codec %s (%d) is not supported",
                       parquet_codec_name((parquet_codec)rd->m->codec), rd->m->codec);
    return 0;
}

static int pq_read_chunk(pq_read *rd)
{
    const pq_chunk_meta *m = rd->m;
    if (pq_check_want(rd) != 0)
        return -1;
    if (rd->f->mem) {
        rd->chunk = rd->f->mem + m->start;
    } else {
        if (pq_reserve(&rd->b->raw, (size_t)m->size + 1, 1) != 0)
            return pq_nomem(rd, "the column chunk's bytes");
        if (pq_read_at(rd->f, rd->b->raw.p, (size_t)m->size, m->start, rd->err) != 0)
            return -1;
        rd->chunk = rd->b->raw.p;
    }
    size_t pos = 0;
    while (pos < m->size)
        if (pq_page(rd, &pos) != 0)
            return -1;
    rd->page_offset = (int64_t)(m->start + m->size);
    if (rd->levels != (uint64_t)m->num_values)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "the pages hold %zu values, the column metadata says %lld",
                       rd->levels, (long long)m->num_values);
    if (rd->ci->max_rep && rd->levels && ((const uint16_t *)rd->b->rep.p)[0] != 0)
        return pq_fail(rd, NL_ERR_FORMAT, (int64_t)m->start, "the first value continues a row (repetition level > 0)");
    if (rd->rows != (uint64_t)rd->f->rgs[rd->rg].num_rows)
        return pq_fail(rd, NL_ERR_FORMAT, rd->page_offset, "the pages hold %zu rows, the row group has %lld", rd->rows,
                       (long long)rd->f->rgs[rd->rg].num_rows);
    return 0;
}

static int pq_read_into(const parquet_file *f, size_t row_group, size_t col, parquet_want want, parquet_chunk *out,
                        pq_scratch *shared, nl_error *err)
{
    if (row_group >= f->nrgs || col >= f->nleaves)
        return nl_error_set(err, NL_ERR_ARGUMENT, f->source, -1, "no column %zu in row group %zu (%zu x %zu)", col,
                            row_group, f->nleaves, f->nrgs);
    parquet_chunk_buf *b = pq_chunk_buf(out, shared);
    if (!b)
        return nl_error_set(err, NL_ERR_NOMEM, f->source, -1, "out of memory for a column chunk");
    memset(out, 0, sizeof *out);
    out->buf = b;
    pq_pool_reset(b);
    pq_read rd = {.f = f,
                  .leaf = &f->leaves[col],
                  .ci = &f->leaves[col].info,
                  .m = &f->rgs[row_group].chunks[col],
                  .rg = row_group,
                  .want = want,
                  .out = out,
                  .b = b,
                  .s = b->scr,
                  .err = err};
    rd.unsigned32 = rd.ci->type == PARQUET_INT32 && rd.ci->logical == PARQUET_LOGICAL_INT && !rd.ci->int_signed;
    rd.page_offset = (int64_t)rd.m->start;
    if (pq_read_chunk(&rd) != 0 || (rd.ci->max_rep == 1 && pq_lists(&rd) != 0)) {
        out->column = rd.ci;
        out->row_group = row_group;
        return -1;
    }
    out->column = rd.ci;
    out->row_group = row_group;
    out->want = want;
    out->rows = rd.rows;
    out->count = rd.slots;
    out->nulls = rd.nulls;
    out->valid = rd.nulls ? b->valid.p : NULL;
    out->levels = rd.levels;
    out->def = rd.ci->max_def ? b->def.p : NULL;
    out->rep = rd.ci->max_rep ? b->rep.p : NULL;
    out->pages = rd.data_pages;
    switch (want) {
    case PARQUET_WANT_I64: out->i64 = b->i64.p; break;
    case PARQUET_WANT_F64: out->f64 = b->f64.p; break;
    case PARQUET_WANT_BOOL: out->b = b->b.p; break;
    case PARQUET_WANT_BYTES:
        out->dict = rd.have_dict ? b->dict.p : NULL;
        out->dict_count = rd.have_dict ? rd.dict_count : 0;
        if (rd.mode == PQ_MODE_DICT)
            out->dict_index = b->dict_index.p;
        else
            out->bytes = b->bytes.p;
        break;
    }
    return 0;
}

int parquet_read_chunk(const parquet_file *f, size_t row_group, size_t col, parquet_want want, parquet_chunk *out,
                       nl_error *err)
{
    return pq_read_into(f, row_group, col, want, out, NULL, err);
}

/* ---- streaming ---------------------------------------------------------------------------------------- */

int parquet_scan(const parquet_file *f, const long *cols, const parquet_want *wants, size_t n,
                 const atomic_int *cancel, parquet_row_group_fn fn, void *ctx, nl_error *err)
{
    parquet_chunk *chunks = calloc(n ? n : 1, sizeof *chunks);
    parquet_chunk **ptrs = calloc(n ? n : 1, sizeof *ptrs);
    pq_scratch shared = {0};
    int rc = 0;
    if (!chunks || !ptrs)
        rc = nl_error_set(err, NL_ERR_NOMEM, f->source, -1, "out of memory scanning %zu columns", n);
    for (size_t g = 0; rc == 0 && g < f->nrgs; g++) {
        for (size_t i = 0; rc == 0 && i < n; i++) {
            if (cancel && atomic_load_explicit(cancel, memory_order_relaxed)) {
                rc = nl_error_set(err, NL_ERR_CANCELLED, f->source, -1, "cancelled at row group %zu", g);
                break;
            }
            ptrs[i] = NULL;
            if (cols[i] < 0)
                continue;
            if (pq_read_into(f, g, (size_t)cols[i], wants[i], &chunks[i], &shared, err) != 0)
                rc = -1;
            else
                ptrs[i] = &chunks[i];
        }
        if (rc == 0)
            rc = fn(ctx, g, (size_t)f->rgs[g].num_rows, ptrs, err);
    }
    for (size_t i = 0; chunks && i < n; i++)
        parquet_chunk_close(&chunks[i]);
    pq_scratch_free(&shared);
    free(chunks);
    free(ptrs);
    return rc;
}
