/* neuron_json — see neuron_json.h.
 *
 * Input format (formats.md §4; verified on neuron-profile 2.27.33 exports):
 *
 *   { "<array name>": [ {record}, {record}, ... ], ... }     one object; key order differs between files
 *
 *   modelled arrays (→ device_model):
 *     instruction[]       flat records, ~2 KB each; 22 keys always present, ~19 sparse ones (absent = 0/"")
 *                         nested values: raw_framework_id [int], predecessors [{id,type}] (ignored)
 *                         hlo_attrs is JSON *text*: "[{\"op_type\":…,\"source_file\":…,\"source_line\":\"0\"}]"
 *     dma[]               packet and aggregated records (aggregated:"yes"); flags are "yes"/"no" strings;
 *                         dma_engine / dma_queue are digit strings; ids ≥ 2^53 (integers, never doubles)
 *     active_time[], semaphore_update[], layer_summary[], warnings[]       flat records
 *     summary[0], metadata[0], model_info[0], profile_info[0], neff_header[0]   singletons → kvlist
 *   every other array (ham, dma_throughput, terminology, neff_node, ...) is skipped and counted.
 *
 * Times are raw device ns; metadata (with first_hw_timestamp) may come after the rows, so rows are stored
 * raw and device_model_finish normalises at the end.
 *
 * Parsing: json_stream tokens drive the state machine below; token depth says where we are
 * (0 top object, 1 top keys/arrays, 2 records, 3 record keys/values, ≥4 inside a nested value):
 *
 *   START ─{→ TOP ─key→ TOP_VALUE ─[→ ARRAY ─{→ RECORD ─key→ FIELD ─scalar→ RECORD
 *                                  │           │  └─}→ ARRAY      └─{ or [→ NESTED ─matching end→ RECORD
 *                                  │           └─]→ TOP
 *                                  └─ not modelled / not an array → SKIP_ARRAY / SKIP_VALUE → TOP
 *
 * A record's values collect in `row` (zeroed from a per-table default) and are appended when its '}'
 * arrives, so sparse keys cost nothing and key order is irrelevant. Record keys are found through a small
 * per-table hash index built at start (no global state). Strings are interned; hlo_attrs → source location
 * and dma subgroup → queue name are computed once per distinct string (caches indexed by strtab id).
 *
 * Input comes through an nj_input (a descriptor, memory, or one of neuron_json_par.c's inputs). A large
 * input is read by neuron_json_par.c on several threads with this same state machine: each piece of a
 * split array is read as `{"<name>":[<elements>]}` in piece mode (no note for the array, no time
 * normalisation), and the document read calls the nj_split_hook at every top-level '[' to merge the pieces
 * of a split array, whose elements its input then skips. Nothing here depends on record order beyond the
 * first-seen order of strings, codes and notes, which the in-order merge keeps. */
#include "neuron_json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hashtab.h"
#include "hlo_source.h"
#include "json_kv_internal.h"
#include "json_stream.h"
#include "neuron_json_internal.h"
#include "nl_cpu.h"

/* ---- arrays and fields -------------------------------------------------------------------------------- */

enum nj_kind {
    NJ_INSTRUCTION = DEVICE_MODEL_INSTRUCTIONS,
    NJ_DMA = DEVICE_MODEL_DMA,
    NJ_ACTIVE = DEVICE_MODEL_ACTIVE_TIME,
    NJ_SEM = DEVICE_MODEL_SEMAPHORES,
    NJ_LAYER = DEVICE_MODEL_LAYERS,
    NJ_WARN = DEVICE_MODEL_WARNINGS,
    NJ_TABLES,                       /* kinds below NJ_TABLES are tables */
    NJ_SINGLETON0 = NJ_TABLES,       /* NJ_SINGLETON0 + device_model_record */
    NJ_KINDS = NJ_SINGLETON0 + DEVICE_MODEL_RECORD_COUNT,
    NJ_OTHER = NJ_KINDS,             /* not modelled */
};

static const char *const nj_array_names[NJ_KINDS] = {
    "instruction", "dma", "active_time", "semaphore_update", "layer_summary", "warnings",
    "summary", "metadata", "model_info", "profile_info", "neff_header",
};

enum nj_action {
    NJ_IGNORE,    /* known, not modelled */
    NJ_COL,       /* convert to the column's kind */
    NJ_FLAG,      /* "yes"/true sets bit `bit` of column `col` */
    NJ_STRINT,    /* digit string or number → TABLE_INT (-1 when not a number) */
    NJ_SRC_NKI,   /* instruction source location candidates */
    NJ_SRC_BIR,
    NJ_HLO_ATTRS,
};

typedef struct nj_field {
    const char *name;
    uint8_t action;
    uint8_t col;
    uint8_t bit;
} nj_field;

#define NJ_C(n, c) {n, NJ_COL, c, 0}
#define NJ_I(n) {n, NJ_IGNORE, 0, 0}

static const nj_field nj_instr_fields[] = {
    NJ_C("timestamp", DM_INSTR_TIMESTAMP), NJ_C("duration", DM_INSTR_DURATION),
    NJ_C("evt_wait_time", DM_INSTR_EVT_WAIT), NJ_C("id", DM_INSTR_ID), NJ_C("subgroup", DM_INSTR_ENGINE),
    NJ_C("label", DM_INSTR_LABEL), NJ_C("opcode", DM_INSTR_OPCODE),
    NJ_C("compiler_opcode", DM_INSTR_COMPILER_OPCODE), NJ_C("layer", DM_INSTR_LAYER),
    NJ_C("hlo_name", DM_INSTR_HLO_NAME), NJ_C("instruction_type", DM_INSTR_TYPE),
    NJ_C("hbm_read_bytes", DM_INSTR_HBM_READ), NJ_C("hbm_write_bytes", DM_INSTR_HBM_WRITE),
    NJ_C("sbuf_read_bytes", DM_INSTR_SBUF_READ), NJ_C("sbuf_write_bytes", DM_INSTR_SBUF_WRITE),
    NJ_C("psum_read_bytes", DM_INSTR_PSUM_READ), NJ_C("psum_write_bytes", DM_INSTR_PSUM_WRITE),
    NJ_C("spill_save_bytes", DM_INSTR_SPILL_SAVE), NJ_C("spill_reload_bytes", DM_INSTR_SPILL_RELOAD),
    {"nki_source_location", NJ_SRC_NKI, 0, 0}, {"bir_debug_info_source_location", NJ_SRC_BIR, 0, 0},
    {"hlo_attrs", NJ_HLO_ATTRS, 0, 0},
    NJ_I("activation_fn"), NJ_I("bir_id"), NJ_I("bir_instruction_name"), NJ_I("crc_in"), NJ_I("crc_out"),
    NJ_I("fully_qualified_subgraph"), NJ_I("operands"), NJ_C("pc", DM_INSTR_PC_BYTE), NJ_I("penguin_id"),
    NJ_I("raw_bir_id"),
    NJ_I("raw_penguin_id"), NJ_I("compiler_operands"), NJ_I("compiler_pc"), NJ_I("elements"),
    NJ_I("psum_read_sbuf_write_bytes"), NJ_I("is_psum_read_sbuf_write"), NJ_I("weight_queue_bytes"),
    NJ_I("predecessors"), NJ_I("raw_framework_id"), NJ_I("raw_hlo_id"), NJ_I("trigger"),
    NJ_I("stack_frame_ids"), NJ_I("subgraph"), NJ_I("kernel_instruction_name"), NJ_I("inst_dep_ids"),
};

static const nj_field nj_dma_fields[] = {
    NJ_C("timestamp", DM_DMA_TIMESTAMP), NJ_C("duration", DM_DMA_DURATION), NJ_C("id", DM_DMA_ID),
    NJ_C("packet_aggregation_id", DM_DMA_AGG_ID), NJ_C("transfer_size", DM_DMA_TRANSFER_SIZE),
    NJ_C("subgroup", DM_DMA_SUBGROUP), NJ_C("queue_type", DM_DMA_QUEUE_TYPE), NJ_C("variable", DM_DMA_VARIABLE),
    {"dma_engine", NJ_STRINT, DM_DMA_ENGINE, 0}, {"dma_queue", NJ_STRINT, DM_DMA_QUEUE_IDX, 0},
    {"aggregated", NJ_FLAG, DM_DMA_FLAGS, DM_DMA_F_AGGREGATED}, {"is_cc_dma", NJ_FLAG, DM_DMA_FLAGS, DM_DMA_F_CC},
    {"duplicate", NJ_FLAG, DM_DMA_FLAGS, DM_DMA_F_DUPLICATE},
    NJ_I("trigger"), NJ_I("op"), NJ_I("source"), NJ_I("dest"), NJ_I("semaphore_id"), NJ_I("read_size"),
    NJ_I("write_size"), NJ_I("transfer_rate"), NJ_I("crc"), NJ_I("block_id"), NJ_I("packet_idx"),
    NJ_I("source_sb_partitions"), NJ_I("source_num_sb_partitions"), NJ_I("source_steps"), NJ_I("source_offset"),
    NJ_I("read_shape"), NJ_I("dest_sb_partitions"), NJ_I("dest_num_sb_partitions"), NJ_I("dest_steps"),
    NJ_I("dest_offset"), NJ_I("write_shape"),
};

static const nj_field nj_active_fields[] = {
    NJ_C("engine", DM_ACTIVE_ENGINE), NJ_C("start_ts", DM_ACTIVE_START), NJ_C("end_ts", DM_ACTIVE_END),
    NJ_C("duration_ns", DM_ACTIVE_DURATION), NJ_C("pcore_idx", DM_ACTIVE_PCORE),
};

static const nj_field nj_sem_fields[] = {
    NJ_C("id", DM_SEM_ID), NJ_C("value", DM_SEM_VALUE), NJ_C("timestamp", DM_SEM_TIMESTAMP),
};

#define NJ_LAYER_ENGINE(e, E)                                                                                   \
    NJ_C(e "_engine_active_time", DM_LAYER_ACTIVE(E)), NJ_C(e "_engine_instruction_time", DM_LAYER_INSTR_TIME(E)), \
        NJ_C(e "_engine_instruction_count", DM_LAYER_INSTR_COUNT(E)), NJ_I(e "_engine_active_percent")

static const nj_field nj_layer_fields[] = {
    NJ_C("name", DM_LAYER_NAME), NJ_C("fully_qualified_subgraph", DM_LAYER_SUBGRAPH), NJ_C("start", DM_LAYER_START),
    NJ_C("end", DM_LAYER_END), NJ_C("duration", DM_LAYER_DURATION),
    NJ_LAYER_ENGINE("tensor", DM_ENGINE_TENSOR), NJ_LAYER_ENGINE("vector", DM_ENGINE_VECTOR),
    NJ_LAYER_ENGINE("scalar", DM_ENGINE_SCALAR), NJ_LAYER_ENGINE("gpsimd", DM_ENGINE_GPSIMD),
    NJ_LAYER_ENGINE("sync", DM_ENGINE_SYNC),
    NJ_C("tensor_engine_flop_count", DM_LAYER_FLOPS), NJ_C("tensor_engine_model_flop_count", DM_LAYER_MODEL_FLOPS),
    NJ_C("tensor_engine_mfu", DM_LAYER_MFU), NJ_C("tensor_engine_hfu", DM_LAYER_HFU),
};

static const nj_field nj_warn_fields[] = {
    NJ_C("message", DM_WARN_MESSAGE), NJ_C("category", DM_WARN_CATEGORY),
};

static const struct {
    const nj_field *fields;
    size_t n;
} nj_field_tables[NJ_TABLES] = {
    [NJ_INSTRUCTION] = {nj_instr_fields, sizeof nj_instr_fields / sizeof nj_instr_fields[0]},
    [NJ_DMA] = {nj_dma_fields, sizeof nj_dma_fields / sizeof nj_dma_fields[0]},
    [NJ_ACTIVE] = {nj_active_fields, sizeof nj_active_fields / sizeof nj_active_fields[0]},
    [NJ_SEM] = {nj_sem_fields, sizeof nj_sem_fields / sizeof nj_sem_fields[0]},
    [NJ_LAYER] = {nj_layer_fields, sizeof nj_layer_fields / sizeof nj_layer_fields[0]},
    [NJ_WARN] = {nj_warn_fields, sizeof nj_warn_fields / sizeof nj_warn_fields[0]},
};

/* Per-table key index (open addressing, 256 slots, load ≤ 1/4) and the most fields one table may have. */
#define NJ_KEY_SLOTS 256u
#define NJ_FIELDS_MAX 64u

/* A key's signature: length, first 8 and last 8 bytes (zero-padded when shorter). Equal signatures mean
 * equal keys up to 16 bytes; longer keys also compare their middle bytes. No hashing of whole keys. */
typedef struct nj_key {
    uint64_t pre, suf;
    uint32_t len;
    uint32_t field; /* index + 1; 0 = empty slot */
} nj_key;
/* Interning caches (last value per column, plus the three source-location inputs). */
#define NJ_CACHE_SRC_NKI TABLE_COLUMNS_MAX
#define NJ_CACHE_SRC_BIR (TABLE_COLUMNS_MAX + 1)
#define NJ_CACHE_ATTRS (TABLE_COLUMNS_MAX + 2)
#define NJ_CACHES (TABLE_COLUMNS_MAX + 3)

#define NJ_FITS(a) _Static_assert(sizeof a / sizeof a[0] <= NJ_FIELDS_MAX, #a " has too many fields")
NJ_FITS(nj_instr_fields);
NJ_FITS(nj_dma_fields);
NJ_FITS(nj_active_fields);
NJ_FITS(nj_sem_fields);
NJ_FITS(nj_layer_fields);
NJ_FITS(nj_warn_fields);

/* ---- reader state ------------------------------------------------------------------------------------- */

enum nj_state {
    NJ_S_START,
    NJ_S_TOP,
    NJ_S_TOP_VALUE,
    NJ_S_ARRAY,
    NJ_S_RECORD,
    NJ_S_FIELD,
    NJ_S_NESTED,
    NJ_S_SKIP_ARRAY,
    NJ_S_SKIP_VALUE,
    NJ_S_SKIP_RECORD,
    NJ_S_DONE,
};

/* strtab id → derived strtab id (+1; 0 = not computed yet); reader-lifetime, malloc'd. */
typedef struct nj_idcache {
    uint32_t *v;
    size_t cap;
} nj_idcache;

typedef struct nj_reader {
    device_model *m;
    strtab *strings;
    json_stream *js;
    nl_error *err; /* = &error; copied to the caller's at the end */
    nl_error error;
    const char *name;
    /* input */
    const neuron_json_options *opt;
    nj_input in;
    const nj_split_hook *split; /* nullable: top-level arrays whose elements another thread parsed */
    int piece;                  /* reading one piece of a split array (neuron_json_par.c): no end-of-array
                                   note (the merge adds one for the whole array), no time normalisation */
    uint64_t piece_count;       /* elements of the piece's array */
    size_t read_size;
    int fast;              /* records may take the json_stream_flat_object path (not opt->tokens_only) */
    uint64_t fast_records; /* how many did */
    uint64_t bytes_read, bytes_total, progress_next;
    /* position */
    enum nj_state state;
    int kind;
    uint32_t array_id; /* strtab id of the current top-level key */
    char array_text[48];
    uint64_t index; /* current element's index in its array */
    uint64_t count; /* elements seen in the current array */
    const nj_field *field;
    uint32_t key_id;
    const char *key_name; /* current record key: a static field name or a strtab string (both stable) */
    uint32_t since_poll;
    /* current record */
    kvlist *record;
    table_value row[TABLE_COLUMNS_MAX];
    uint32_t src_nki, src_bir, hlo_attrs;
    /* key lookup (exports list keys in a different order in every record, so no order is predicted) */
    nj_key keys[NJ_TABLES][NJ_KEY_SLOTS];
    uint8_t col_kind[NJ_TABLES][TABLE_COLUMNS_MAX];
    /* the last string interned per column: equal bytes reuse the id without hashing */
    struct {
        const char *bytes;
        size_t len;
        uint32_t id;
    } last[NJ_CACHES];
    /* values of the current table record, held until its end (see "table records" below): held[i] is the
     * value of field i of the table (a token of the fast path's member array, or a copy in held_tok whose
     * string bytes are at held_bytes + held_off[i]) */
    const json_stream_token *held[NJ_FIELDS_MAX];
    json_stream_token held_tok[NJ_FIELDS_MAX];
    size_t held_off[NJ_FIELDS_MAX];
    uint64_t held_set, held_copied;
    char *held_bytes;
    size_t held_used, held_cap;
    int hold_by_reference; /* the fast path's tokens stay valid until the record ends */
    nj_idcache subgroup_queue;
    hlo_source *hlo;           /* source from hlo_attrs when an instruction names none; created on first use */
} nj_reader;

/* ---- errors ------------------------------------------------------------------------------------------- */

static int nj_in_record(const nj_reader *r)
{
    return r->state == NJ_S_RECORD || r->state == NJ_S_FIELD || r->state == NJ_S_NESTED ||
           r->state == NJ_S_SKIP_RECORD;
}

/* Complete r->err with file, offset (when unset), record index and field. Returns -1. */
static int nj_context(nj_reader *r, int64_t offset)
{
    nl_error *e = r->err;
    if (!e->source[0])
        snprintf(e->source, sizeof e->source, "%s", r->name);
    if (e->offset < 0)
        e->offset = offset;
    if (nj_in_record(r) || r->state == NJ_S_ARRAY) {
        if (nj_in_record(r))
            e->record = (int64_t)r->index;
        char field[NL_ERROR_FIELD_MAX];
        if (r->state == NJ_S_FIELD || r->state == NJ_S_NESTED)
            snprintf(field, sizeof field, "%.30s.%.31s", r->array_text, r->key_name);
        else
            snprintf(field, sizeof field, "%s", r->array_text);
        if (!e->field[0])
            nl_error_set_field(e, field);
    }
    return -1;
}

static int nj_fail(nj_reader *r, nl_error_code code, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int nj_fail(nj_reader *r, nl_error_code code, int64_t offset, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nl_error_set(r->err, code, r->name, offset, "%s", msg);
    return nj_context(r, offset);
}

static int nj_type_error(nj_reader *r, const json_stream_token *t, const char *want)
{
    return nj_fail(r, NL_ERR_FORMAT, t->offset, "%s[%llu].%s: expected %s, got %s", r->array_text,
                   (unsigned long long)r->index, r->key_name, want, json_stream_kind_word(t->kind));
}

/* ---- small helpers ------------------------------------------------------------------------------------ */

static uint32_t nj_idcache_get(const nj_idcache *c, uint32_t id)
{
    return id < c->cap ? c->v[id] : 0;
}

static int nj_idcache_put(nj_idcache *c, uint32_t id, uint32_t derived)
{
    if (id >= c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap <= id)
            cap *= 2;
        uint32_t *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return -1;
        memset(v + c->cap, 0, (cap - c->cap) * sizeof *v);
        c->v = v;
        c->cap = cap;
    }
    c->v[id] = derived + 1;
    return 0;
}

static void nj_copy_text(char *dst, size_t cap, const char *s, size_t len)
{
    size_t n = len < cap - 1 ? len : cap - 1;
    memcpy(dst, s, n);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)dst[i] < 0x20)
            dst[i] = '?';
    dst[n] = '\0';
}

static int nj_has_prefix(const nj_reader *r, uint32_t id, const char *prefix)
{
    size_t len, n = strlen(prefix);
    const char *s = device_model_str(r->m, id, &len);
    return s && len >= n && memcmp(s, prefix, n) == 0;
}

static int nj_poll(nj_reader *r, int64_t offset)
{
    if (r->opt && r->opt->cancel && atomic_load_explicit(r->opt->cancel, memory_order_relaxed))
        return nj_fail(r, NL_ERR_CANCELLED, offset, "cancelled after %llu bytes",
                       (unsigned long long)r->bytes_read);
    return 0;
}

static void nj_progress(nj_reader *r, int force)
{
    if (!r->opt || !r->opt->progress || (!force && r->bytes_read < r->progress_next))
        return;
    r->progress_next = r->bytes_read + NEURON_JSON_PROGRESS_STEP;
    r->opt->progress(r->opt->progress_ctx, r->bytes_read, r->bytes_total);
}

/* ---- key lookup --------------------------------------------------------------------------------------- */

/* Shorter keys are read as two overlapping windows (first and last 4 or 2 bytes) instead of byte by byte:
 * with the length known, the windows still determine every byte, and half the keys of an instruction
 * record ("id", "pc", "label", "layer", "opcode") are under 8 bytes. */
static nj_key nj_key_of(const char *s, size_t len)
{
    nj_key k = {0, 0, (uint32_t)len, 0};
    if (len >= 8) {
        memcpy(&k.pre, s, 8);
        memcpy(&k.suf, s + len - 8, 8);
    } else if (len >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + len - 4, 4);
        k.pre = a | (uint64_t)b << 32;
    } else if (len >= 2) {
        uint16_t a, b;
        memcpy(&a, s, 2);
        memcpy(&b, s + len - 2, 2);
        k.pre = a | (uint64_t)b << 16;
    } else if (len == 1) {
        k.pre = (unsigned char)s[0];
    }
    return k;
}

static uint32_t nj_key_slot(const nj_key *k)
{
    uint64_t h = (k->pre * 0x9e3779b97f4a7c15ull) ^ (k->suf * 0xc2b2ae3d27d4eb4full) ^ k->len;
    return (uint32_t)(h >> 56) & (NJ_KEY_SLOTS - 1);
}

static void nj_build_index(nj_reader *r)
{
    for (int k = 0; k < NJ_TABLES; k++) {
        for (size_t f = 0; f < nj_field_tables[k].n; f++) {
            const char *name = nj_field_tables[k].fields[f].name;
            nj_key key = nj_key_of(name, strlen(name));
            key.field = (uint32_t)f + 1;
            uint32_t i = nj_key_slot(&key);
            while (r->keys[k][i].field)
                i = (i + 1) & (NJ_KEY_SLOTS - 1);
            r->keys[k][i] = key;
        }
        const table *t = device_model_table_get(r->m, (device_model_table)k);
        for (uint32_t c = 0; c < table_ncols(t); c++)
            r->col_kind[k][c] = (uint8_t)table_column_at(t, c)->kind;
    }
}

/* The field named s[0, len) of table kind k, or NULL. */
static const nj_field *nj_lookup(const nj_reader *r, int k, const char *s, size_t len)
{
    nj_key key = nj_key_of(s, len);
    for (uint32_t i = nj_key_slot(&key);; i = (i + 1) & (NJ_KEY_SLOTS - 1)) {
        const nj_key *e = &r->keys[k][i];
        if (!e->field)
            return NULL;
        if (e->len == len && e->pre == key.pre && e->suf == key.suf) {
            const nj_field *f = &nj_field_tables[k].fields[e->field - 1];
            if (len <= 16 || memcmp(f->name + 8, s + 8, len - 16) == 0)
                return f;
        }
    }
}

static int nj_array_kind(const char *s, size_t len)
{
    for (int k = 0; k < NJ_KINDS; k++)
        if (strlen(nj_array_names[k]) == len && memcmp(nj_array_names[k], s, len) == 0)
            return k;
    return NJ_OTHER;
}

/* ---- value conversion --------------------------------------------------------------------------------- */

static int nj_to_int(nj_reader *r, const json_stream_token *t, int64_t *out)
{
    switch (t->kind) {
    case JSON_STREAM_INT: *out = t->i; return 0;
    case JSON_STREAM_NULL: *out = 0; return 0;
    case JSON_STREAM_DOUBLE:
        if (isfinite(t->d) && t->d > -9.2e18 && t->d < 9.2e18) {
            *out = llround(t->d);
            return 0;
        }
        return nj_fail(r, NL_ERR_FORMAT, t->offset, "%s[%llu].%s: number %.*s is outside the int64 range",
                       r->array_text, (unsigned long long)r->index, r->key_name, (int)t->len, t->str);
    case JSON_STREAM_UINT:
        return nj_fail(r, NL_ERR_FORMAT, t->offset, "%s[%llu].%s: number %.*s is outside the int64 range",
                       r->array_text, (unsigned long long)r->index, r->key_name, (int)t->len, t->str);
    default: return nj_type_error(r, t, "a number");
    }
}

static int nj_to_uint(nj_reader *r, const json_stream_token *t, uint64_t *out)
{
    switch (t->kind) {
    case JSON_STREAM_UINT: *out = t->u; return 0;
    case JSON_STREAM_NULL: *out = 0; return 0;
    case JSON_STREAM_INT:
        if (t->i >= 0) {
            *out = (uint64_t)t->i;
            return 0;
        }
        break;
    case JSON_STREAM_DOUBLE:
        if (isfinite(t->d) && t->d >= 0 && t->d < 1.8e19) {
            *out = t->d < 9.2e18 ? (uint64_t)llround(t->d) : (uint64_t)t->d;
            return 0;
        }
        break;
    default: return nj_type_error(r, t, "a non-negative integer");
    }
    return nj_fail(r, NL_ERR_FORMAT, t->offset, "%s[%llu].%s: %.*s is not a non-negative 64-bit integer",
                   r->array_text, (unsigned long long)r->index, r->key_name, (int)t->len, t->str);
}

/* Intern s[0, len) for cache slot `slot`: equal to the slot's last string → same id, no hashing. */
static int nj_intern(nj_reader *r, uint32_t slot, const char *s, size_t len, uint32_t *out)
{
    if (r->last[slot].len == len && r->last[slot].bytes && memcmp(r->last[slot].bytes, s, len) == 0) {
        *out = r->last[slot].id;
        return 0;
    }
    if (strtab_intern(r->strings, s, len, out, r->err) != 0)
        return -1;
    r->last[slot].bytes = strtab_str(r->strings, *out, NULL);
    r->last[slot].len = len;
    r->last[slot].id = *out;
    return 0;
}

static int nj_to_str(nj_reader *r, uint32_t slot, const json_stream_token *t, uint32_t *out)
{
    switch (t->kind) {
    case JSON_STREAM_STRING:
    case JSON_STREAM_INT:
    case JSON_STREAM_UINT:
    case JSON_STREAM_DOUBLE: return nj_intern(r, slot, t->str, t->len, out);
    case JSON_STREAM_TRUE: return nj_intern(r, slot, "true", 4, out);
    case JSON_STREAM_FALSE: return nj_intern(r, slot, "false", 5, out);
    case JSON_STREAM_NULL: *out = 0; return 0;
    default: return nj_type_error(r, t, "a string");
    }
}

static int nj_to_f64(nj_reader *r, const json_stream_token *t, double *out)
{
    switch (t->kind) {
    case JSON_STREAM_INT:
    case JSON_STREAM_UINT:
    case JSON_STREAM_DOUBLE: *out = t->d; return 0;
    case JSON_STREAM_NULL: *out = 0; return 0;
    default: return nj_type_error(r, t, "a number");
    }
}

/* "yes"/"true"/true/nonzero → 1; "no"/"false"/""/false/0/null → 0. */
static int nj_to_flag(nj_reader *r, const json_stream_token *t, int *on)
{
    switch (t->kind) {
    case JSON_STREAM_STRING:
        *on = (t->len == 3 && memcmp(t->str, "yes", 3) == 0) || (t->len == 4 && memcmp(t->str, "true", 4) == 0);
        return 0;
    case JSON_STREAM_TRUE: *on = 1; return 0;
    case JSON_STREAM_FALSE:
    case JSON_STREAM_NULL: *on = 0; return 0;
    case JSON_STREAM_INT:
    case JSON_STREAM_UINT:
    case JSON_STREAM_DOUBLE: *on = t->d != 0; return 0;
    default: return nj_type_error(r, t, "\"yes\" or \"no\"");
    }
}

/* A digit string ("15") or a number; anything else → -1 (unknown). */
static int nj_to_strint(nj_reader *r, const json_stream_token *t, int64_t *out)
{
    if (t->kind != JSON_STREAM_STRING)
        return t->kind == JSON_STREAM_NULL ? (*out = -1, 0) : nj_to_int(r, t, out);
    int64_t v = 0;
    if (t->len == 0 || t->len > 18) {
        *out = -1;
        return 0;
    }
    for (size_t i = 0; i < t->len; i++) {
        if (t->str[i] < '0' || t->str[i] > '9') {
            *out = -1;
            return 0;
        }
        v = v * 10 + (t->str[i] - '0');
    }
    *out = v;
    return 0;
}

static int nj_to_column(nj_reader *r, uint32_t col, const json_stream_token *t)
{
    table_value *v = &r->row[col];
    switch ((table_kind)r->col_kind[r->kind][col]) {
    case TABLE_INT: return nj_to_int(r, t, &v->i);
    case TABLE_UINT: return nj_to_uint(r, t, &v->u);
    case TABLE_F64: return nj_to_f64(r, t, &v->d);
    case TABLE_STR: return nj_to_str(r, col, t, &v->s);
    }
    return -1;
}

static int nj_apply(nj_reader *r, const nj_field *f, const json_stream_token *t)
{
    int on = 0;
    switch (f->action) {
    case NJ_COL: return nj_to_column(r, f->col, t);
    case NJ_FLAG:
        if (nj_to_flag(r, t, &on) != 0)
            return -1;
        r->row[f->col].u = on ? (r->row[f->col].u | f->bit) : (r->row[f->col].u & ~(uint64_t)f->bit);
        return 0;
    case NJ_STRINT: return nj_to_strint(r, t, &r->row[f->col].i);
    case NJ_SRC_NKI: return nj_to_str(r, NJ_CACHE_SRC_NKI, t, &r->src_nki);
    case NJ_SRC_BIR: return nj_to_str(r, NJ_CACHE_SRC_BIR, t, &r->src_bir);
    case NJ_HLO_ATTRS: return nj_to_str(r, NJ_CACHE_ATTRS, t, &r->hlo_attrs);
    default: return 0;
    }
}

/* ---- derived strings ---------------------------------------------------------------------------------- */

/* Length of s without a trailing "-Q<digits>-E<digits>" (the whole length when there is none). */
static size_t nj_queue_len(const char *s, size_t len)
{
    size_t i = len;
    int part;
    for (part = 0; part < 2; part++) {
        size_t digits_end = i;
        while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
            i--;
        if (i == digits_end || i < 2 || s[i - 1] != (part == 0 ? 'E' : 'Q') || s[i - 2] != '-')
            return len;
        i -= 2;
    }
    return i;
}

static int nj_queue_of(nj_reader *r, uint32_t subgroup, uint32_t *queue)
{
    uint32_t cached = nj_idcache_get(&r->subgroup_queue, subgroup);
    if (cached) {
        *queue = cached - 1;
        return 0;
    }
    size_t len;
    const char *s = device_model_str(r->m, subgroup, &len);
    if (strtab_intern(r->strings, s, nj_queue_len(s, len), queue, r->err) != 0)
        return -1;
    if (nj_idcache_put(&r->subgroup_queue, subgroup, *queue) != 0)
        return nj_fail(r, NL_ERR_NOMEM, -1, "out of memory caching queue names");
    return 0;
}

/* ---- records ------------------------------------------------------------------------------------------ */

/* ---- table records: members in document order, values in field order ----------------------------------
 * Why: real exports list a record's keys in a different order every time (Go map order; all 129
 * instruction records of the 1024-column sample differ). Converting each value as its key came made every
 * dispatch on the way (field action, column kind, token kind, intern cache) a branch the CPU could not
 * predict (bench/RESULTS.md: a shuffled-key export reads markedly slower than an ordered one). So
 * members are looked up in document order (unknown keys noted, containers where a scalar belongs reported,
 * as before), their values held, and converted at the record's end in the order of the field table, the
 * same sequence of branches for every record. What remains of the gap is the key lookup and the value scan
 * meeting keys and value kinds in a random order. Strings are thus interned in field order within a record, on both the token path and the
 * fast path, so the model does not depend on which path a record took. A key given twice keeps its last
 * value (the earlier one is not converted). */

/* Keep t as the value of field f of the current record. The token path's tokens are borrowed only until
 * the next token, so they are copied with their bytes; the fast path's live until the record ends. */
static int nj_hold(nj_reader *r, const nj_field *f, const json_stream_token *t)
{
    unsigned i = (unsigned)(f - nj_field_tables[r->kind].fields);
    uint64_t bit = (uint64_t)1 << i;
    r->held_set |= bit;
    if (r->hold_by_reference) {
        r->held[i] = t;
        r->held_copied &= ~bit;
        return 0;
    }
    if (t->str && t->len > r->held_cap - r->held_used) {
        size_t cap = r->held_cap ? r->held_cap : 4096;
        while (cap - r->held_used < t->len)
            cap *= 2;
        char *grown = realloc(r->held_bytes, cap);
        if (!grown)
            return nj_fail(r, NL_ERR_NOMEM, t->offset, "out of memory holding a %zu-byte value", t->len);
        r->held_bytes = grown;
        r->held_cap = cap;
    }
    r->held_tok[i] = *t;
    r->held_off[i] = r->held_used;
    if (t->str && t->len) { /* an empty string has no bytes (and held_bytes may still be NULL) */
        memcpy(r->held_bytes + r->held_used, t->str, t->len);
        r->held_used += t->len;
    }
    r->held[i] = &r->held_tok[i];
    r->held_copied |= bit;
    return 0;
}

/* Convert the held values into the row, in field order. */
static int nj_apply_held(nj_reader *r)
{
    const nj_field *fields = nj_field_tables[r->kind].fields;
    enum nj_state state = r->state;
    r->state = NJ_S_FIELD; /* errors name the field (nj_context) */
    for (uint64_t m = r->held_set; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        json_stream_token *copy = &r->held_tok[i];
        if (((r->held_copied >> i) & 1) && copy->str)
            copy->str = copy->len ? r->held_bytes + r->held_off[i] : ""; /* "" keeps an empty string non-NULL */
        const json_stream_token *t = r->held[i];
        r->key_name = fields[i].name;
        if (nj_apply(r, &fields[i], t) != 0)
            return nj_context(r, t->offset);
    }
    r->state = state;
    r->held_set = r->held_copied = 0;
    r->held_used = 0;
    return 0;
}

static void nj_record_begin(nj_reader *r)
{
    uint32_t n = table_ncols(device_model_table_get(r->m, (device_model_table)r->kind));
    memset(r->row, 0, n * sizeof r->row[0]);
    if (r->kind == NJ_DMA) {
        r->row[DM_DMA_ENGINE].i = -1;
        r->row[DM_DMA_QUEUE_IDX].i = -1;
    }
    r->src_nki = r->src_bir = r->hlo_attrs = 0;
}

static int nj_finish_instruction(nj_reader *r)
{
    uint32_t src = r->src_nki ? r->src_nki : r->src_bir;
    if (!src && r->hlo_attrs) {
        if (!r->hlo && !(r->hlo = hlo_source_new(r->strings, r->err)))
            return -1;
        if (hlo_source_of(r->hlo, r->hlo_attrs, &src, r->err) != 0)
            return -1;
    }
    r->row[DM_INSTR_SOURCE].s = src;
    r->row[DM_INSTR_PC_BYTE].u &= 0xff; /* the NTFF's pc byte: the column a decoded NTFF fills (1 B per row) */
    if (nj_has_prefix(r, r->row[DM_INSTR_COMPILER_OPCODE].s, "PSEUDO_DMA_") ||
        nj_has_prefix(r, r->row[DM_INSTR_OPCODE].s, "DMA_"))
        r->row[DM_INSTR_FLAGS].u |= DM_INSTR_F_DMA_TRIGGER;
    return 0;
}

static int nj_record_end(nj_reader *r, int64_t offset)
{
    if (r->kind >= NJ_TABLES)
        return 0;
    if (nj_apply_held(r) != 0)
        return -1;
    if (r->kind == NJ_INSTRUCTION && nj_finish_instruction(r) != 0)
        return nj_context(r, offset);
    if (r->kind == NJ_DMA && nj_queue_of(r, r->row[DM_DMA_SUBGROUP].s, &r->row[DM_DMA_QUEUE].s) != 0)
        return nj_context(r, offset);
    if (device_model_append(r->m, (device_model_table)r->kind, r->row, r->err) != 0)
        return nj_context(r, offset);
    return 0;
}

/* ---- token handlers (one per state) ------------------------------------------------------------------- */

static int nj_is_begin(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_OBJECT_BEGIN || t->kind == JSON_STREAM_ARRAY_BEGIN;
}

static int nj_is_end(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_OBJECT_END || t->kind == JSON_STREAM_ARRAY_END;
}

static int nj_note(nj_reader *r, device_model_note_kind kind, uint32_t scope, uint32_t name, uint64_t n,
                   int64_t offset)
{
    if (device_model_add_note(r->m, kind, scope, name, n, r->err) != 0)
        return nj_context(r, offset);
    return 0;
}

static int nj_on_start(nj_reader *r, const json_stream_token *t)
{
    if (t->kind != JSON_STREAM_OBJECT_BEGIN)
        return nj_fail(r, NL_ERR_FORMAT, t->offset,
                       "top level is %s, not an object: not a neuron-profile JSON export", json_stream_kind_word(t->kind));
    r->state = NJ_S_TOP;
    return 0;
}

static int nj_on_top(nj_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_OBJECT_END) {
        r->state = NJ_S_DONE;
        return 0;
    }
    r->kind = nj_array_kind(t->str, t->len);
    nj_copy_text(r->array_text, sizeof r->array_text, t->str, t->len);
    if (strtab_intern(r->strings, t->str, t->len, &r->array_id, r->err) != 0)
        return nj_context(r, t->offset);
    r->state = NJ_S_TOP_VALUE;
    return 0;
}

static int nj_on_top_value(nj_reader *r, const json_stream_token *t)
{
    r->index = r->count = 0;
    if (t->kind == JSON_STREAM_ARRAY_BEGIN) {
        r->state = r->kind == NJ_OTHER ? NJ_S_SKIP_ARRAY : NJ_S_ARRAY;
        if (r->split) {
            /* the elements were parsed by other threads and merged here; the input skips their bytes, so
             * the next token is this array's end, which notes the total */
            size_t len;
            const char *name = strtab_str(r->strings, r->array_id, &len);
            int rc = r->split->array(r->split->ctx, r->m, t->offset, name, len, &r->count, r->err);
            if (rc < 0)
                return nj_context(r, t->offset);
            if (rc > 0 && r->count)
                r->index = r->count - 1;
        }
        return 0;
    }
    if (r->kind != NJ_OTHER)
        return nj_fail(r, NL_ERR_FORMAT, t->offset, "'%s' is %s, expected an array of records", r->array_text,
                       json_stream_kind_word(t->kind));
    r->state = t->kind == JSON_STREAM_OBJECT_BEGIN ? NJ_S_SKIP_VALUE : NJ_S_TOP;
    return nj_note(r, DEVICE_MODEL_NOTE_NOT_ARRAY, 0, r->array_id, 1, t->offset);
}

static int nj_on_element(nj_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_ARRAY_END) {
        r->state = NJ_S_TOP;
        if (r->piece) {
            r->piece_count = r->count;
            return 0;
        }
        return nj_note(r, DEVICE_MODEL_NOTE_ARRAY_READ, 0, r->array_id, r->count, t->offset);
    }
    r->index = r->count++;
    if (t->kind != JSON_STREAM_OBJECT_BEGIN)
        return nj_fail(r, NL_ERR_FORMAT, t->offset, "%s[%llu] is %s, expected an object", r->array_text,
                       (unsigned long long)r->index, json_stream_kind_word(t->kind));
    if (++r->since_poll >= NEURON_JSON_POLL_RECORDS) {
        r->since_poll = 0;
        if (nj_poll(r, t->offset) != 0)
            return -1;
    }
    r->state = NJ_S_RECORD;
    if (r->kind < NJ_TABLES) {
        nj_record_begin(r);
        return 0;
    }
    if (r->index > 0) {
        r->state = NJ_S_SKIP_RECORD;
        return nj_note(r, DEVICE_MODEL_NOTE_EXTRA_RECORD, r->array_id, r->array_id, 1, t->offset);
    }
    r->record = device_model_record_mut(r->m, (device_model_record)(r->kind - NJ_SINGLETON0), r->err);
    return r->record ? 0 : nj_context(r, t->offset);
}

static int nj_on_record_key(nj_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_OBJECT_END) {
        if (nj_record_end(r, t->offset) != 0)
            return -1;
        r->state = NJ_S_ARRAY;
        return 0;
    }
    r->state = NJ_S_FIELD;
    r->key_name = "";
    r->field = r->kind < NJ_TABLES ? nj_lookup(r, r->kind, t->str, t->len) : NULL;
    if (r->field) {
        r->key_name = r->field->name;
        return 0;
    }
    /* singleton record keys, and keys a modelled table does not know (noted as schema drift) */
    if (strtab_intern(r->strings, t->str, t->len, &r->key_id, r->err) != 0)
        return nj_context(r, t->offset);
    r->key_name = strtab_str(r->strings, r->key_id, NULL);
    if (r->kind >= NJ_TABLES)
        return 0;
    return nj_note(r, DEVICE_MODEL_NOTE_UNKNOWN_KEY, r->array_id, r->key_id, 1, t->offset);
}

static int nj_on_field(nj_reader *r, const json_stream_token *t)
{
    if (r->kind >= NJ_TABLES) {
        if (json_kv_set(r->record, r->strings, r->key_id, t, r->err) != 0)
            return nj_context(r, t->offset);
    } else if (r->field) {
        /* The fast path holds ignored fields too (a pointer, converted to nothing in field order) rather
         * than branching on the field's action for each member in random key order, which the CPU cannot
         * predict on exports with Go-order keys. */
        if (nj_is_begin(t)) {
            if (r->field->action != NJ_IGNORE)
                return nj_type_error(r, t, "a scalar");
        } else if ((r->hold_by_reference || r->field->action != NJ_IGNORE) && nj_hold(r, r->field, t) != 0) {
            return nj_context(r, t->offset);
        }
    }
    r->state = nj_is_begin(t) ? NJ_S_NESTED : NJ_S_RECORD;
    return 0;
}

static int nj_token(nj_reader *r, const json_stream_token *t)
{
    switch (r->state) {
    case NJ_S_START: return nj_on_start(r, t);
    case NJ_S_TOP: return nj_on_top(r, t);
    case NJ_S_TOP_VALUE: return nj_on_top_value(r, t);
    case NJ_S_ARRAY: return nj_on_element(r, t);
    case NJ_S_RECORD: return nj_on_record_key(r, t);
    case NJ_S_FIELD: return nj_on_field(r, t);
    case NJ_S_NESTED:
        if (t->depth == 3 && nj_is_end(t))
            r->state = NJ_S_RECORD;
        return 0;
    case NJ_S_SKIP_ARRAY:
        if (t->depth == 2 && t->kind != JSON_STREAM_KEY && !nj_is_end(t))
            r->count++;
        if (t->depth == 1 && t->kind == JSON_STREAM_ARRAY_END) {
            r->state = NJ_S_TOP;
            if (r->piece) {
                r->piece_count = r->count;
                return 0;
            }
            return nj_note(r, DEVICE_MODEL_NOTE_ARRAY_SKIPPED, 0, r->array_id, r->count, t->offset);
        }
        return 0;
    case NJ_S_SKIP_VALUE:
        if (t->depth == 1 && nj_is_end(t))
            r->state = NJ_S_TOP;
        return 0;
    case NJ_S_SKIP_RECORD:
        if (t->depth == 2 && t->kind == JSON_STREAM_OBJECT_END)
            r->state = NJ_S_ARRAY;
        return 0;
    case NJ_S_DONE: break;
    }
    return nj_fail(r, NL_ERR_INTERNAL, t->offset, "token after the end of the document");
}

/* One record decoded whole: the same handlers, in the same order, as its tokens would meet. */
static int nj_fast_record(nj_reader *r, const json_stream_member *members, size_t n, int64_t open_offset,
                          int64_t close_offset)
{
    json_stream_token edge = {
        .kind = JSON_STREAM_OBJECT_BEGIN, .depth = json_stream_depth(r->js), .offset = open_offset};
    if (nj_on_element(r, &edge) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (nj_on_record_key(r, &members[i].key) != 0 || nj_on_field(r, &members[i].value) != 0)
            return -1;
        r->state = NJ_S_RECORD; /* a nested value was skipped whole (NJ_S_NESTED waits for its end) */
    }
    edge.kind = JSON_STREAM_OBJECT_END;
    edge.offset = close_offset;
    if (nj_on_record_key(r, &edge) != 0)
        return -1;
    r->fast_records++;
    return 0;
}

/* Records decoded whole by json_stream_flat_object, fed to the same handlers as tokens would be (so notes,
 * string ids, errors and offsets are exactly those of the token path). Stops at the first record the fast
 * path declines (whitespace inside it, an escaped key, deep nesting, an error, cut by the end of the
 * buffer); json_stream_next takes that one. Why: it spares the token path's per-token dispatch on the
 * records that make up nearly all of an export; its measurements are in bench/RESULTS.md. */
static int nj_fast_records(nj_reader *r)
{
    json_stream_member members[NJ_FIELDS_MAX];
    size_t n;
    int64_t open_offset, close_offset;
    int rc = 0;
    r->hold_by_reference = 1; /* members[] lives until the record's end converts the held values */
    while (!rc && r->state == NJ_S_ARRAY && r->kind < NJ_TABLES &&
           json_stream_flat_object(r->js, members, NJ_FIELDS_MAX, &n, &open_offset, &close_offset))
        rc = nj_fast_record(r, members, n, open_offset, close_offset);
    r->hold_by_reference = 0;
    return rc;
}

/* ---- input -------------------------------------------------------------------------------------------- */

/* Push the next chunk into the tokenizer, or signal the end of input. */
static int nj_fill(nj_reader *r)
{
    size_t avail;
    char *dst = json_stream_reserve(r->js, r->read_size, &avail, r->err);
    if (!dst)
        return nj_context(r, (int64_t)r->bytes_read);
    size_t want = r->read_size < avail ? r->read_size : avail;
    ssize_t n = r->in.read(r->in.ctx, dst, want, r->err);
    if (n < 0)
        return nj_context(r, (int64_t)r->bytes_read);
    if (n == 0)
        json_stream_finish(r->js);
    json_stream_commit(r->js, (size_t)n);
    r->bytes_read += (uint64_t)n;
    nj_progress(r, 0);
    return nj_poll(r, (int64_t)r->bytes_read);
}

static int nj_stream_error(nj_reader *r)
{
    if (r->err->code == NL_ERR_TRUNCATED && r->bytes_read == 0)
        nl_error_set(r->err, NL_ERR_FORMAT, r->name, 0,
                     "empty file: no JSON export (neuron-explorer 2.31/2.32 sometimes writes an empty JSON; "
                     "export the profile again)");
    return nj_context(r, json_stream_offset(r->js));
}

static int nj_run(nj_reader *r)
{
    nj_progress(r, 1);
    for (;;) {
        if (r->state == NJ_S_ARRAY && r->kind < NJ_TABLES && r->fast && nj_fast_records(r) != 0)
            return -1;
        json_stream_token t;
        json_stream_status st = json_stream_next(r->js, &t, r->err);
        if (st == JSON_STREAM_TOKEN) {
            if (nj_token(r, &t) != 0)
                return -1;
        } else if (st == JSON_STREAM_NEED_MORE) {
            if (nj_fill(r) != 0)
                return -1;
        } else if (st == JSON_STREAM_END) {
            break;
        } else {
            return nj_stream_error(r);
        }
    }
    nj_progress(r, 1);
    if (!r->piece && device_model_finish(r->m, r->err) != 0)
        return nj_context(r, -1);
    return 0;
}

/* ---- entry points ------------------------------------------------------------------------------------- */

static int nj_read(nj_reader *r, device_model **out, nl_error *err)
{
    *out = NULL;
    r->err = &r->error;
    nl_error_clear(r->err);
    r->read_size = r->opt && r->opt->read_size ? r->opt->read_size : NEURON_JSON_READ_SIZE;
    r->fast = !(r->opt && r->opt->tokens_only);
    json_stream_options jo = {.source = r->name};
    int rc = -1;
    r->m = device_model_new_limited(r->opt ? r->opt->memory_limit : 0, r->err);
    if (r->m) {
        nj_build_index(r);
        r->strings = device_model_strtab_mut(r->m);
        r->js = json_stream_new(&jo, r->err);
        rc = r->js ? nj_run(r) : -1;
    }
    if (rc != 0) {
        nj_context(r, -1);
        device_model_free(r->m);
        if (err)
            *err = r->error;
    } else {
        *out = r->m;
        if (r->opt && r->opt->fast_records && !r->split && !r->piece)
            *r->opt->fast_records = r->fast_records;
    }
    json_stream_free(r->js);
    hlo_source_free(r->hlo);
    free(r->subgroup_queue.v);
    free(r->held_bytes);
    return rc;
}

/* ---- inputs ------------------------------------------------------------------------------------------- */

typedef struct nj_fd_input {
    int fd;
    const char *name;
} nj_fd_input;

static ssize_t nj_fd_read(void *ctx, char *dst, size_t want, nl_error *err)
{
    nj_fd_input *in = ctx;
    ssize_t n;
    do
        n = read(in->fd, dst, want);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        nl_error_set(err, NL_ERR_IO, in->name, -1, "read failed: %s", strerror(errno));
    return n;
}

typedef struct nj_mem_input {
    const unsigned char *data;
    size_t len, pos;
} nj_mem_input;

static ssize_t nj_mem_read(void *ctx, char *dst, size_t want, nl_error *err)
{
    (void)err;
    nj_mem_input *in = ctx;
    size_t n = in->len - in->pos < want ? in->len - in->pos : want;
    memcpy(dst, in->data + in->pos, n);
    in->pos += n;
    return (ssize_t)n;
}

int nj_read_input(const char *name, const neuron_json_options *opt, const nj_input *in, uint64_t bytes_total,
                  const nj_split_hook *split, uint64_t *piece_count, device_model **out, nl_error *err)
{
    *out = NULL;
    nj_reader *r = calloc(1, sizeof *r);
    if (!r)
        return nl_error_set(err, NL_ERR_NOMEM, name, -1, "out of memory creating the JSON reader");
    r->name = name ? name : "(memory)";
    r->opt = opt;
    r->in = *in;
    r->bytes_total = bytes_total;
    r->split = split;
    r->piece = piece_count != NULL;
    int rc = nj_read(r, out, err);
    if (rc == 0 && piece_count)
        *piece_count = r->piece_count;
    free(r);
    return rc;
}

int nj_array_splittable(const char *name, size_t len, int *which)
{
    int k = nj_array_kind(name, len);
    *which = k < NJ_TABLES ? k : -1;
    return k < NJ_TABLES || k == NJ_OTHER;
}

static unsigned nj_threads(const neuron_json_options *opt)
{
    return nl_cpu_threads(opt ? opt->threads : 0, NEURON_JSON_THREADS_MAX);
}

int neuron_json_read_fd(int fd, const char *name, const neuron_json_options *opt, device_model **out, nl_error *err)
{
    *out = NULL;
    if (opt && opt->split_pieces)
        *opt->split_pieces = 0;
    struct stat st;
    uint64_t total = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        total = (uint64_t)st.st_size;
    if (total && nj_threads(opt) > 1) {
        int rc = nj_par_read_fd(fd, name, opt, nj_threads(opt), out, err);
        if (rc <= 0)
            return rc;
        /* 1: not split (too small), or the parallel read failed: the sequential read decides */
    }
    nj_fd_input fin = {fd, name ? name : "(memory)"};
    nj_input in = {nj_fd_read, &fin};
    return nj_read_input(name, opt, &in, total, NULL, NULL, out, err);
}

int neuron_json_read(const char *path, const neuron_json_options *opt, device_model **out, nl_error *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return nl_error_set(err, errno == ENOENT ? NL_ERR_NOT_FOUND : NL_ERR_IO, path, -1, "cannot open: %s",
                            strerror(errno));
    int rc = neuron_json_read_fd(fd, path, opt, out, err);
    close(fd);
    return rc;
}

int neuron_json_read_mem(const void *data, size_t len, const char *name, const neuron_json_options *opt,
                         device_model **out, nl_error *err)
{
    *out = NULL;
    if (opt && opt->split_pieces)
        *opt->split_pieces = 0;
    if (!data)
        len = 0;
    if (len && nj_threads(opt) > 1) {
        int rc = nj_par_read_mem(data, len, name, opt, nj_threads(opt), out, err);
        if (rc <= 0)
            return rc;
    }
    nj_mem_input min = {data ? data : (const unsigned char *)"", len, 0};
    nj_input in = {nj_mem_read, &min};
    return nj_read_input(name, opt, &in, len, NULL, NULL, out, err);
}
