/* table — see table.h.
 *
 * Storage: rows are cut into segments of TABLE_SEG_ROWS rows (row r lives in segment r >> TABLE_SEG_SHIFT at
 * offset r & (TABLE_SEG_ROWS-1)). Segment 0 starts with TABLE_SEG_FIRST rows and doubles until it reaches
 * TABLE_SEG_ROWS, so a 100-row table costs a few hundred bytes; later segments are allocated full. Each
 * segment keeps, per column, a cell array whose width is 1 to 8 bytes (little-endian, unaligned) and grows
 * only when a value does not fit: the segment's array is re-encoded at the wider width (the old array is
 * abandoned in the arena). No value is ever truncated. A cell is read with one unaligned 8-byte load and a
 * mask, and written with one 8-byte store; every cell array has TABLE_PAD spare bytes at its end so both
 * stay in bounds, and cells are written in row order, so the store's spill-over only zeroes cells that are
 * not written yet. Cell arrays are not zero-filled (untouched pages cost no RAM); bytes past the last row
 * are only ever read under the mask. (Big-endian hosts use a byte loop instead.)
 *
 * Cell encodings (u = the unsigned value stored in a cell):
 *   TABLE_INT   u = zigzag(v - base), base = the column's first value in that segment; consecutive
 *               timestamps therefore cost 4 bytes, durations 1-2; table_shift moves every value by
 *               adjusting the bases only (used to make device time relative to first_hw_timestamp).
 *   TABLE_UINT  u = v
 *   TABLE_F64   u = the IEEE-754 bits (0.0 stays 1 byte wide)
 *   TABLE_STR   u = code in the column's dictionary; codes are dense in first-seen order, dict->ids maps
 *               code → strtab id and a hashtab maps id → code (with a one-entry cache for runs).
 *
 * Failure atomicity: a row is written only after every allocation it needs (new segment, growth,
 * dictionary insert, widening) has succeeded; `rows` is incremented last, so a failed append leaves the
 * visible table unchanged (at worst a dictionary holds an unused string, or a segment is wider). */
#include "table.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"

#define TABLE_SEG_FIRST 32u
#define TABLE_SEG_MASK (TABLE_SEG_ROWS - 1)
#define TABLE_PAD 8u

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TABLE_LITTLE_ENDIAN 1
#else
#define TABLE_LITTLE_ENDIAN 0
#endif

typedef struct table_seg {
    uint32_t cap;   /* rows the cell arrays can hold */
    uint8_t *width; /* [ncols] cell width in bytes, 1..8 */
    int64_t *base;  /* [ncols] TABLE_INT base */
    void **data;    /* [ncols] cell arrays */
} table_seg;

typedef struct table_dict {
    hashtab index; /* strtab id → code */
    uint32_t *ids; /* code → strtab id */
    uint32_t count;
    uint32_t cap;
    uint32_t last_id;
    uint32_t last_code;
} table_dict;

struct table {
    arena *arena;
    const table_column *cols;
    uint32_t ncols;
    size_t rows;
    table_seg **segs;
    size_t nseg;
    size_t seg_cap;
    table_dict *dicts;    /* [ncols]; used by TABLE_STR columns */
    int64_t *min, *max;   /* [ncols]; used by TABLE_INT columns */
    size_t *col_bytes;    /* [ncols] bytes of live cell arrays */
};

static int table_dict_equal(const void *ctx, uint32_t code, const void *key)
{
    const table_dict *d = ctx;
    return d->ids[code] == *(const uint32_t *)key;
}

static const hashtab_type table_dict_type = {.equal = table_dict_equal};

table *table_new(arena *a, const table_column *cols, uint32_t ncols)
{
    if (ncols == 0 || ncols > TABLE_COLUMNS_MAX)
        return NULL;
    table *t = arena_calloc(a, 1, sizeof *t);
    if (!t)
        return NULL;
    t->arena = a;
    t->cols = cols;
    t->ncols = ncols;
    t->dicts = arena_calloc(a, ncols, sizeof *t->dicts);
    t->min = arena_calloc(a, ncols, sizeof *t->min);
    t->max = arena_calloc(a, ncols, sizeof *t->max);
    t->col_bytes = arena_calloc(a, ncols, sizeof *t->col_bytes);
    if (!t->dicts || !t->min || !t->max || !t->col_bytes)
        return NULL;
    for (uint32_t c = 0; c < ncols; c++) {
        hashtab_init(&t->dicts[c].index, &table_dict_type, &t->dicts[c], a);
        t->dicts[c].last_id = UINT32_MAX;
    }
    return t;
}

/* ---- cells ------------------------------------------------------------------------------------------ */

static unsigned table_width_for(uint64_t u)
{
    return u ? (unsigned)(64 - __builtin_clzll(u) + 7) / 8 : 1;
}

static size_t table_array_bytes(size_t cap, unsigned width)
{
    return cap * width + TABLE_PAD;
}

static inline uint64_t table_cell(const void *data, unsigned width, size_t off)
{
    const uint8_t *p = (const uint8_t *)data + off * width;
    uint64_t v = 0;
#if TABLE_LITTLE_ENDIAN
    memcpy(&v, p, 8);
    return v & (UINT64_MAX >> (64 - 8 * width));
#else
    for (unsigned i = 0; i < width; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
#endif
}

/* Write cell `off`; bytes past it up to TABLE_PAD may be zeroed (see the design note). */
static inline void table_set_cell(void *data, unsigned width, size_t off, uint64_t u)
{
    uint8_t *p = (uint8_t *)data + off * width;
#if TABLE_LITTLE_ENDIAN
    memcpy(p, &u, 8);
#else
    for (unsigned i = 0; i < width; i++)
        p[i] = (uint8_t)(u >> (8 * i));
#endif
}

static inline uint64_t table_zigzag(int64_t d)
{
    return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

static inline int64_t table_unzigzag(uint64_t u)
{
    return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

/* ---- segments --------------------------------------------------------------------------------------- */

/* A new segment; its cell widths start where the previous segment's ended (values of one column have a
 * stable range, so later segments rarely widen and abandon arrays). */
static table_seg *table_seg_new(table *t, uint32_t cap)
{
    uint32_t n = t->ncols;
    const table_seg *prev = t->nseg ? t->segs[t->nseg - 1] : NULL;
    table_seg *s = arena_alloc(t->arena, sizeof *s);
    uint8_t *width = arena_alloc(t->arena, n);
    int64_t *base = arena_calloc(t->arena, n, sizeof *base);
    void **data = arena_alloc(t->arena, n * sizeof *data);
    if (!s || !width || !base || !data)
        return NULL;
    for (uint32_t c = 0; c < n; c++) {
        width[c] = prev ? prev->width[c] : 1;
        data[c] = arena_alloc(t->arena, table_array_bytes(cap, width[c]));
        if (!data[c])
            return NULL;
    }
    for (uint32_t c = 0; c < n; c++)
        t->col_bytes[c] += table_array_bytes(cap, width[c]);
    s->cap = cap;
    s->width = width;
    s->base = base;
    s->data = data;
    return s;
}

static int table_push_seg(table *t, table_seg *s)
{
    if (t->nseg == t->seg_cap) {
        size_t cap = t->seg_cap ? t->seg_cap * 2 : 8;
        table_seg **segs = arena_alloc(t->arena, cap * sizeof *segs);
        if (!segs)
            return -1;
        if (t->nseg)
            memcpy(segs, t->segs, t->nseg * sizeof *segs);
        t->segs = segs;
        t->seg_cap = cap;
    }
    t->segs[t->nseg++] = s;
    return 0;
}

/* Double a (first) segment's capacity; all-or-nothing. */
static int table_seg_grow(table *t, table_seg *s, size_t used)
{
    uint32_t cap = s->cap * 2;
    void *fresh[TABLE_COLUMNS_MAX];
    for (uint32_t c = 0; c < t->ncols; c++) {
        fresh[c] = arena_alloc(t->arena, table_array_bytes(cap, s->width[c]));
        if (!fresh[c])
            return -1;
    }
    for (uint32_t c = 0; c < t->ncols; c++) {
        memcpy(fresh[c], s->data[c], used * s->width[c]);
        t->col_bytes[c] += table_array_bytes(cap, s->width[c]) - table_array_bytes(s->cap, s->width[c]);
        s->data[c] = fresh[c];
    }
    s->cap = cap;
    return 0;
}

/* Re-encode column `c` of segment `s` (rows [0, used)) at `width` bytes per cell. */
static int table_seg_widen(table *t, table_seg *s, uint32_t c, unsigned width, size_t used)
{
    void *fresh = arena_alloc(t->arena, table_array_bytes(s->cap, width));
    if (!fresh)
        return -1;
    for (size_t r = 0; r < used; r++)
        table_set_cell(fresh, width, r, table_cell(s->data[c], s->width[c], r));
    t->col_bytes[c] += table_array_bytes(s->cap, width) - table_array_bytes(s->cap, s->width[c]);
    s->data[c] = fresh;
    s->width[c] = (uint8_t)width;
    return 0;
}

/* The segment that receives row t->rows, creating or growing it as needed. */
static table_seg *table_tail_seg(table *t)
{
    size_t si = t->rows >> TABLE_SEG_SHIFT;
    size_t off = t->rows & TABLE_SEG_MASK;
    if (si < t->nseg) {
        table_seg *s = t->segs[si];
        if (off == s->cap && table_seg_grow(t, s, off) != 0)
            return NULL;
        return s;
    }
    table_seg *s = table_seg_new(t, si == 0 ? TABLE_SEG_FIRST : (uint32_t)TABLE_SEG_ROWS);
    if (!s || table_push_seg(t, s) != 0)
        return NULL;
    return s;
}

/* ---- dictionaries ----------------------------------------------------------------------------------- */

static int table_dict_code(table *t, table_dict *d, uint32_t id, uint32_t *code, nl_error *err)
{
    if (id == d->last_id) {
        *code = d->last_code;
        return 0;
    }
    uint32_t hash = hashtab_hash_u32(id);
    if (!hashtab_find(&d->index, hash, &id, code)) {
        if (d->count >= TABLE_DICT_MAX)
            return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "more than TABLE_DICT_MAX distinct strings in a column");
        if (d->count == d->cap) {
            uint32_t cap = d->cap ? d->cap * 2 : 16;
            uint32_t *ids = arena_alloc(t->arena, (size_t)cap * sizeof *ids);
            if (!ids)
                return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory growing a string dictionary");
            if (d->count)
                memcpy(ids, d->ids, (size_t)d->count * sizeof *ids);
            d->ids = ids;
            d->cap = cap;
        }
        d->ids[d->count] = id;
        if (hashtab_insert(&d->index, hash, d->count) != 0)
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory growing a string dictionary");
        *code = d->count++;
    }
    d->last_id = id;
    d->last_code = *code;
    return 0;
}

/* ---- append ----------------------------------------------------------------------------------------- */

static int table_encode(table *t, const table_seg *s, uint32_t c, table_value v, uint64_t *u, nl_error *err)
{
    switch (t->cols[c].kind) {
    case TABLE_INT: *u = table_zigzag((int64_t)((uint64_t)v.i - (uint64_t)s->base[c])); return 0;
    case TABLE_UINT: *u = v.u; return 0;
    case TABLE_F64: memcpy(u, &v.d, sizeof *u); return 0;
    case TABLE_STR: {
        uint32_t code;
        if (table_dict_code(t, &t->dicts[c], v.s, &code, err) != 0)
            return -1;
        *u = code;
        return 0;
    }
    }
    return nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "bad column kind");
}

static void table_track_range(table *t, uint32_t c, int64_t v)
{
    if (t->rows == 0 || v < t->min[c])
        t->min[c] = v;
    if (t->rows == 0 || v > t->max[c])
        t->max[c] = v;
}

int table_append(table *t, const table_value *row, nl_error *err)
{
    if (t->rows >= TABLE_ROWS_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "more than TABLE_ROWS_MAX rows in one table");
    table_seg *s = table_tail_seg(t);
    if (!s)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory growing a table to %zu rows", t->rows + 1);
    size_t off = t->rows & TABLE_SEG_MASK;
    uint64_t enc[TABLE_COLUMNS_MAX];
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (off == 0 && t->cols[c].kind == TABLE_INT)
            s->base[c] = row[c].i;
        if (table_encode(t, s, c, row[c], &enc[c], err) != 0)
            return -1;
        unsigned need = table_width_for(enc[c]);
        if (need > s->width[c] && table_seg_widen(t, s, c, need, off) != 0)
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory widening a table column");
    }
    for (uint32_t c = 0; c < t->ncols; c++) {
        table_set_cell(s->data[c], s->width[c], off, enc[c]);
        if (t->cols[c].kind == TABLE_INT)
            table_track_range(t, c, row[c].i);
    }
    t->rows++;
    return 0;
}

/* ---- read ------------------------------------------------------------------------------------------- */

size_t table_rows(const table *t)
{
    return t->rows;
}

uint32_t table_ncols(const table *t)
{
    return t->ncols;
}

const table_column *table_column_at(const table *t, uint32_t col)
{
    return col < t->ncols ? &t->cols[col] : NULL;
}

static inline uint64_t table_raw(const table *t, uint32_t col, size_t row, const table_seg **seg)
{
    assert(col < t->ncols && row < t->rows);
    const table_seg *s = t->segs[row >> TABLE_SEG_SHIFT];
    *seg = s;
    return table_cell(s->data[col], s->width[col], row & TABLE_SEG_MASK);
}

int64_t table_i64(const table *t, uint32_t col, size_t row)
{
    assert(t->cols[col].kind == TABLE_INT);
    const table_seg *s;
    uint64_t u = table_raw(t, col, row, &s);
    return (int64_t)((uint64_t)s->base[col] + (uint64_t)table_unzigzag(u));
}

uint64_t table_u64(const table *t, uint32_t col, size_t row)
{
    assert(t->cols[col].kind == TABLE_UINT);
    const table_seg *s;
    return table_raw(t, col, row, &s);
}

double table_f64(const table *t, uint32_t col, size_t row)
{
    assert(t->cols[col].kind == TABLE_F64);
    const table_seg *s;
    uint64_t u = table_raw(t, col, row, &s);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

uint32_t table_code(const table *t, uint32_t col, size_t row)
{
    assert(t->cols[col].kind == TABLE_STR);
    const table_seg *s;
    return (uint32_t)table_raw(t, col, row, &s);
}

uint32_t table_str(const table *t, uint32_t col, size_t row)
{
    return t->dicts[col].ids[table_code(t, col, row)];
}

static table_value table_decode(const table *t, const table_seg *s, uint32_t col, uint64_t u)
{
    table_value v;
    switch (t->cols[col].kind) {
    case TABLE_INT: v.i = (int64_t)((uint64_t)s->base[col] + (uint64_t)table_unzigzag(u)); break;
    case TABLE_STR: v.u = 0; v.s = t->dicts[col].ids[u]; break;
    case TABLE_F64: memcpy(&v.d, &u, sizeof v.d); break;
    default: v.u = u; break;
    }
    return v;
}

/* Cells [off, off + k) of one segment's column, decoded as table_decode does, with the kind, base, width and
 * dictionary read once: with table_decode per cell they are reloaded for every cell (out may alias them, for
 * all the compiler knows). trace-extract's filter passes and order builds read whole columns this way. */
static void table_read_seg(const table *t, const table_seg *s, uint32_t col, size_t off, size_t k, table_value *out)
{
    const void *data = s->data[col];
    unsigned width = s->width[col];
    switch (t->cols[col].kind) {
    case TABLE_INT: {
        uint64_t base = (uint64_t)s->base[col];
        for (size_t i = 0; i < k; i++)
            out[i].i = (int64_t)(base + (uint64_t)table_unzigzag(table_cell(data, width, off + i)));
        return;
    }
    case TABLE_STR: {
        const uint32_t *ids = t->dicts[col].ids;
        for (size_t i = 0; i < k; i++) {
            out[i].u = 0;
            out[i].s = ids[table_cell(data, width, off + i)];
        }
        return;
    }
    case TABLE_F64:
        for (size_t i = 0; i < k; i++) {
            uint64_t u = table_cell(data, width, off + i);
            memcpy(&out[i].d, &u, sizeof out[i].d);
        }
        return;
    default:
        for (size_t i = 0; i < k; i++)
            out[i].u = table_cell(data, width, off + i);
        return;
    }
}

void table_read(const table *t, uint32_t col, size_t row, size_t n, table_value *out)
{
    assert(col < t->ncols && row <= t->rows && n <= t->rows - row);
    while (n) {
        const table_seg *s = t->segs[row >> TABLE_SEG_SHIFT];
        size_t off = row & TABLE_SEG_MASK;
        size_t k = TABLE_SEG_ROWS - off < n ? TABLE_SEG_ROWS - off : n;
        table_read_seg(t, s, col, off, k, out);
        out += k;
        row += k;
        n -= k;
    }
}

void table_read_codes(const table *t, uint32_t col, size_t row, size_t n, uint32_t *out)
{
    assert(t->cols[col].kind == TABLE_STR && row <= t->rows && n <= t->rows - row);
    while (n) {
        const table_seg *s = t->segs[row >> TABLE_SEG_SHIFT];
        size_t off = row & TABLE_SEG_MASK;
        size_t k = TABLE_SEG_ROWS - off < n ? TABLE_SEG_ROWS - off : n;
        const void *data = s->data[col]; /* read once, as in table_read_seg */
        unsigned width = s->width[col];
        for (size_t i = 0; i < k; i++)
            out[i] = (uint32_t)table_cell(data, width, off + i);
        out += k;
        row += k;
        n -= k;
    }
}

void table_int_range(const table *t, uint32_t col, int64_t *min, int64_t *max)
{
    *min = t->rows ? t->min[col] : 0;
    *max = t->rows ? t->max[col] : 0;
}

int table_shift(table *t, uint32_t col, int64_t delta, nl_error *err)
{
    assert(t->cols[col].kind == TABLE_INT);
    if (t->rows == 0 || delta == 0)
        return 0;
    int64_t lo, hi;
    if (__builtin_add_overflow(t->min[col], delta, &lo) || __builtin_add_overflow(t->max[col], delta, &hi))
        return nl_error_set(err, NL_ERR_FORMAT, NULL, -1, "column %s: shifting by %lld leaves the int64 range",
                            t->cols[col].name, (long long)delta);
    for (size_t i = 0; i < t->nseg; i++)
        t->segs[i]->base[col] = (int64_t)((uint64_t)t->segs[i]->base[col] + (uint64_t)delta);
    t->min[col] = lo;
    t->max[col] = hi;
    return 0;
}

uint32_t table_dict_size(const table *t, uint32_t col)
{
    return t->dicts[col].count;
}

uint32_t table_dict_id(const table *t, uint32_t col, uint32_t code)
{
    assert(code < t->dicts[col].count);
    return t->dicts[col].ids[code];
}

size_t table_column_bytes(const table *t, uint32_t col)
{
    return t->col_bytes[col];
}

size_t table_bytes(const table *t)
{
    size_t n = t->nseg * (sizeof(table_seg) + t->ncols * (1 + sizeof(int64_t) + sizeof(void *)));
    for (uint32_t c = 0; c < t->ncols; c++) {
        n += t->col_bytes[c];
        n += (size_t)t->dicts[c].cap * sizeof(uint32_t) + hashtab_bytes(&t->dicts[c].index);
    }
    return n;
}

/* ---- merge ------------------------------------------------------------------------------------------ */

/* Why whole segments: merging the pieces of a 1 GB export row by row (decode + table_append) costs ~0.15 s
 * on the merging thread, which every other thread then waits for; copying cell arrays costs a memcpy. The
 * copy keeps src's per-segment widths and bases (values are identical; only a segment's width may be
 * narrower than the sequential reader's, which inherits widths from the previous segment). */
static int table_copy_segment(table *t, const table_seg *ss, size_t n, uint32_t *const *code_map)
{
    size_t si = t->rows >> TABLE_SEG_SHIFT;
    uint32_t cap = si == 0 ? ss->cap : (uint32_t)TABLE_SEG_ROWS;
    uint32_t nc = t->ncols;
    table_seg *s = arena_alloc(t->arena, sizeof *s);
    uint8_t *width = arena_alloc(t->arena, nc);
    int64_t *base = arena_alloc(t->arena, nc * sizeof *base);
    void **data = arena_alloc(t->arena, nc * sizeof *data);
    if (!s || !width || !base || !data)
        return -1;
    for (uint32_t c = 0; c < nc; c++) {
        base[c] = ss->base[c];
        width[c] = ss->width[c];
        if (code_map[c]) {
            uint32_t top = 0;
            for (size_t r = 0; r < n; r++) {
                uint32_t code = code_map[c][table_cell(ss->data[c], ss->width[c], r)];
                top = code > top ? code : top;
            }
            width[c] = (uint8_t)table_width_for(top);
        }
        data[c] = arena_alloc(t->arena, table_array_bytes(cap, width[c]));
        if (!data[c])
            return -1;
        if (code_map[c]) {
            for (size_t r = 0; r < n; r++)
                table_set_cell(data[c], width[c], r, code_map[c][table_cell(ss->data[c], ss->width[c], r)]);
        } else {
            memcpy(data[c], ss->data[c], n * width[c]);
        }
    }
    s->cap = cap;
    s->width = width;
    s->base = base;
    s->data = data;
    if (table_push_seg(t, s) != 0)
        return -1;
    for (uint32_t c = 0; c < nc; c++)
        t->col_bytes[c] += table_array_bytes(cap, width[c]);
    return 0;
}

static int table_append_rows(table *t, const table *src, const uint32_t *id_map, nl_error *err)
{
    table_value row[TABLE_COLUMNS_MAX];
    for (size_t r = 0; r < src->rows; r++) {
        const table_seg *ss = src->segs[r >> TABLE_SEG_SHIFT];
        for (uint32_t c = 0; c < src->ncols; c++) {
            row[c] = table_decode(src, ss, c, table_cell(ss->data[c], ss->width[c], r & TABLE_SEG_MASK));
            if (src->cols[c].kind == TABLE_STR && id_map)
                row[c].s = id_map[row[c].s];
        }
        if (table_append(t, row, err) != 0)
            return -1;
    }
    return 0;
}

int table_append_table(table *t, const table *src, const uint32_t *id_map, nl_error *err)
{
    if (src->ncols != t->ncols || src->cols != t->cols)
        return nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "table_append_table: column schemas differ");
    if (src->rows == 0)
        return 0;
    if (src->rows > TABLE_ROWS_MAX - t->rows)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "more than TABLE_ROWS_MAX rows in one table");
    /* Row by row unless t ends exactly on a segment boundary (the pieces of a split array are cut at
     * multiples of TABLE_SEG_ROWS records, so every piece but a short last one takes the fast path). */
    if ((t->rows & TABLE_SEG_MASK) != 0 || t->nseg != t->rows >> TABLE_SEG_SHIFT)
        return table_append_rows(t, src, id_map, err);
    uint32_t *code_map[TABLE_COLUMNS_MAX] = {0};
    int rc = -1;
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (t->cols[c].kind != TABLE_STR)
            continue;
        const table_dict *sd = &src->dicts[c];
        code_map[c] = malloc((sd->count ? sd->count : 1) * sizeof(uint32_t));
        if (!code_map[c]) {
            nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory merging a string column");
            goto out;
        }
        /* src codes are in src's first-seen order, so inserting them in code order gives t the codes a
         * row-by-row append would have given */
        for (uint32_t k = 0; k < sd->count; k++)
            if (table_dict_code(t, &t->dicts[c], id_map ? id_map[sd->ids[k]] : sd->ids[k], &code_map[c][k], err) != 0)
                goto out;
    }
    for (size_t i = 0; i < src->nseg && i << TABLE_SEG_SHIFT < src->rows; i++) {
        size_t n = src->rows - (i << TABLE_SEG_SHIFT);
        n = n < TABLE_SEG_ROWS ? n : TABLE_SEG_ROWS;
        if (table_copy_segment(t, src->segs[i], n, code_map) != 0) {
            nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory merging a table to %zu rows", t->rows + n);
            goto out;
        }
        t->rows += n;
    }
    for (uint32_t c = 0; c < t->ncols; c++)
        if (t->cols[c].kind == TABLE_INT) {
            int first = t->rows == src->rows;
            t->min[c] = first || src->min[c] < t->min[c] ? src->min[c] : t->min[c];
            t->max[c] = first || src->max[c] > t->max[c] ? src->max[c] : t->max[c];
        }
    rc = 0;
out:
    for (uint32_t c = 0; c < t->ncols; c++)
        free(code_map[c]);
    return rc;
}
