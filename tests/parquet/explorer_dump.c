/* explorer_dump — test driver: read a neuron-explorer Parquet profile directory with explorer_parquet.h and
 * print the aggregates tests/parquet/check_explorer.mjs computes independently with DuckDB SQL over the same
 * files, in the same JSON shape, so the two can be compared key by key.
 *
 * Usage: explorer_dump [--stats] DIR
 * --stats prints load time and model memory to stderr. Integers that may exceed 2^53 (sums of ids, taken
 * modulo 2^64) are decimal strings; sums of doubles are numbers. Exit: 0 ok, 1 reader error (code, source,
 * offset, field, record, message on stderr), 2 usage. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device_model.h"
#include "explorer_parquet.h"

static json_t *u64s(uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return json_string(buf);
}

static json_t *i64s(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return json_string(buf);
}

static const char *str(const device_model *m, uint32_t id)
{
    const char *s = device_model_str(m, id, NULL);
    return s ? s : "";
}

/* obj[key][field] += by, as an integer, created at 0. */
static void add(json_t *obj, const char *key, const char *field, json_int_t by)
{
    json_t *o = json_object_get(obj, key);
    if (!o) {
        o = json_object();
        json_object_set_new(obj, key, o);
    }
    json_t *v = json_object_get(o, field);
    if (!v)
        json_object_set_new(o, field, json_integer(by));
    else
        json_integer_set(v, json_integer_value(v) + by);
}

/* Distinct non-empty strings of a STR column. */
static json_int_t distinct(const table *t, uint32_t col)
{
    json_int_t n = 0;
    for (uint32_t c = 0; c < table_dict_size(t, col); c++)
        n += table_dict_id(t, col, c) != 0;
    return n;
}

static int64_t int_sum(const table *t, uint32_t col)
{
    uint64_t s = 0;
    for (size_t i = 0; i < table_rows(t); i++)
        s += (uint64_t)table_i64(t, col, i);
    return (int64_t)s;
}

static uint64_t uint_sum(const table *t, uint32_t col)
{
    uint64_t s = 0;
    for (size_t i = 0; i < table_rows(t); i++)
        s += table_u64(t, col, i);
    return s;
}

static double f64_sum(const table *t, uint32_t col)
{
    double s = 0;
    for (size_t i = 0; i < table_rows(t); i++)
        s += table_f64(t, col, i);
    return s;
}

static json_t *int_min(const table *t, uint32_t col)
{
    if (!table_rows(t))
        return json_null();
    int64_t lo, hi;
    table_int_range(t, col, &lo, &hi);
    return i64s(lo);
}

static json_t *dump_instructions(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    json_t *per_engine = json_object(), *per_op = json_object(), *per_label = json_object(), *per_type = json_object();
    json_int_t triggers = 0, with_source = 0, with_kernel = 0;
    uint64_t id_sum = 0;
    int64_t last_end = INT64_MIN;
    for (size_t i = 0; i < table_rows(t); i++) {
        device_model_instr r;
        device_model_instr_get(m, i, &r);
        add(per_engine, str(m, r.engine), "count", 1);
        add(per_engine, str(m, r.engine), "duration", r.duration_ns);
        add(per_engine, str(m, r.engine), "evt_wait", r.evt_wait_ns);
        char key[160];
        snprintf(key, sizeof key, "%s/%s", str(m, r.engine), str(m, r.opcode));
        add(per_op, key, "count", 1);
        add(per_op, key, "duration", r.duration_ns);
        add(per_label, str(m, r.label), "count", 1);
        add(per_type, str(m, r.type), "count", 1);
        triggers += (r.flags & DM_INSTR_F_DMA_TRIGGER) != 0;
        with_source += r.source != 0;
        with_kernel += r.kernel_name != 0;
        id_sum += r.id;
        if (r.timestamp_ns + r.duration_ns > last_end)
            last_end = r.timestamp_ns + r.duration_ns;
    }
    static const uint32_t byte_cols[] = {DM_INSTR_HBM_READ,  DM_INSTR_HBM_WRITE,  DM_INSTR_SBUF_READ,
                                         DM_INSTR_SBUF_WRITE, DM_INSTR_PSUM_READ, DM_INSTR_PSUM_WRITE,
                                         DM_INSTR_SPILL_SAVE, DM_INSTR_SPILL_RELOAD};
    json_t *bytes = json_object();
    for (size_t k = 0; k < sizeof byte_cols / sizeof byte_cols[0]; k++)
        json_object_set_new(bytes, table_column_at(t, byte_cols[k])->name, u64s(uint_sum(t, byte_cols[k])));
    json_t *out = json_object();
    json_object_set_new(out, "count", json_integer((json_int_t)table_rows(t)));
    json_object_set_new(out, "per_engine", per_engine);
    json_object_set_new(out, "per_engine_opcode", per_op);
    json_object_set_new(out, "per_label", per_label);
    json_object_set_new(out, "per_type", per_type);
    json_object_set_new(out, "bytes", bytes);
    json_object_set_new(out, "dma_triggers", json_integer(triggers));
    json_object_set_new(out, "with_source", json_integer(with_source));
    json_object_set_new(out, "with_kernel_name", json_integer(with_kernel));
    json_object_set_new(out, "distinct_sources", json_integer(distinct(t, DM_INSTR_SOURCE)));
    json_object_set_new(out, "distinct_layers", json_integer(distinct(t, DM_INSTR_LAYER)));
    json_object_set_new(out, "distinct_hlo_names", json_integer(distinct(t, DM_INSTR_HLO_NAME)));
    json_object_set_new(out, "distinct_operands", json_integer(distinct(t, DM_INSTR_OPERANDS)));
    json_object_set_new(out, "distinct_compiler_opcodes", json_integer(distinct(t, DM_INSTR_COMPILER_OPCODE)));
    json_object_set_new(out, "id_sum", u64s(id_sum));
    json_object_set_new(out, "adjusted_flops_sum", i64s(int_sum(t, DM_INSTR_ADJUSTED_FLOPS)));
    json_object_set_new(out, "pc_sum", i64s(int_sum(t, DM_INSTR_PC)));
    json_object_set_new(out, "first_timestamp", int_min(t, DM_INSTR_TIMESTAMP));
    json_object_set_new(out, "last_end", table_rows(t) ? i64s(last_end) : json_null());
    return out;
}

static json_t *dump_dma(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_DMA);
    json_int_t packets = 0, agg = 0;
    uint64_t packet_bytes = 0, agg_bytes = 0, id_sum = 0, agg_id_sum = 0;
    int64_t engine_sum = 0, queue_sum = 0, dur_sum = 0;
    json_t *per_qt = json_object();
    for (size_t i = 0; i < table_rows(t); i++) {
        uint64_t size = table_u64(t, DM_DMA_TRANSFER_SIZE, i);
        if (table_u64(t, DM_DMA_FLAGS, i) & DM_DMA_F_AGGREGATED) {
            agg++;
            agg_bytes += size;
        } else {
            packets++;
            packet_bytes += size;
        }
        add(per_qt, str(m, table_str(t, DM_DMA_QUEUE_TYPE, i)), "count", 1);
        id_sum += table_u64(t, DM_DMA_ID, i);
        agg_id_sum += table_u64(t, DM_DMA_AGG_ID, i);
        engine_sum += table_i64(t, DM_DMA_ENGINE, i);
        queue_sum += table_i64(t, DM_DMA_QUEUE_IDX, i);
        dur_sum += table_i64(t, DM_DMA_DURATION, i);
    }
    json_t *out = json_object();
    json_object_set_new(out, "count", json_integer((json_int_t)table_rows(t)));
    json_object_set_new(out, "packets", json_integer(packets));
    json_object_set_new(out, "aggregated", json_integer(agg));
    json_object_set_new(out, "packet_bytes", u64s(packet_bytes));
    json_object_set_new(out, "aggregated_bytes", u64s(agg_bytes));
    json_object_set_new(out, "per_queue_type", per_qt);
    json_object_set_new(out, "id_sum", u64s(id_sum));
    json_object_set_new(out, "agg_id_sum", u64s(agg_id_sum));
    json_object_set_new(out, "engine_sum", i64s(engine_sum));
    json_object_set_new(out, "queue_idx_sum", i64s(queue_sum));
    json_object_set_new(out, "duration_sum", i64s(dur_sum));
    json_object_set_new(out, "distinct_queues", json_integer(distinct(t, DM_DMA_QUEUE)));
    json_object_set_new(out, "distinct_variables", json_integer(distinct(t, DM_DMA_VARIABLE)));
    json_object_set_new(out, "distinct_sources", json_integer(distinct(t, DM_DMA_SOURCE)));
    json_object_set_new(out, "distinct_dests", json_integer(distinct(t, DM_DMA_DEST)));
    json_object_set_new(out, "first_timestamp", int_min(t, DM_DMA_TIMESTAMP));
    return out;
}

/* Rows, int sums (as strings), double sums, distinct strings and minimum of the listed columns. */
static json_t *dump_generic(const device_model *m, device_model_table which, uint32_t min_col)
{
    const table *t = device_model_table_get(m, which);
    json_t *out = json_object(), *sums = json_object(), *fsums = json_object(), *dist = json_object();
    for (uint32_t c = 0; c < table_ncols(t); c++) {
        const table_column *col = table_column_at(t, c);
        switch (col->kind) {
        case TABLE_INT: json_object_set_new(sums, col->name, i64s(int_sum(t, c))); break;
        case TABLE_UINT: json_object_set_new(sums, col->name, u64s(uint_sum(t, c))); break;
        case TABLE_F64: json_object_set_new(fsums, col->name, json_real(f64_sum(t, c))); break;
        case TABLE_STR: json_object_set_new(dist, col->name, json_integer(distinct(t, c))); break;
        }
    }
    json_object_set_new(out, "count", json_integer((json_int_t)table_rows(t)));
    json_object_set_new(out, "sums", sums);
    json_object_set_new(out, "double_sums", fsums);
    json_object_set_new(out, "distinct", dist);
    if (min_col != UINT32_MAX)
        json_object_set_new(out, "min", int_min(t, min_col));
    return out;
}

static json_t *dump_record(const device_model *m, device_model_record which)
{
    const kvlist *l = device_model_record_get(m, which);
    json_t *out = json_object();
    for (size_t i = 0; l && i < kvlist_count(l); i++) {
        const kvlist_entry *e = kvlist_at(l, i);
        const char *key = kvlist_key_str(l, e);
        switch (e->kind) {
        case KVLIST_INT: json_object_set_new(out, key, i64s(e->i)); break;
        case KVLIST_UINT: json_object_set_new(out, key, u64s(e->u)); break;
        case KVLIST_DOUBLE: json_object_set_new(out, key, json_real(e->num)); break;
        case KVLIST_BOOL: json_object_set_new(out, key, json_boolean(e->i)); break;
        case KVLIST_STRING: json_object_set_new(out, key, json_string(kvlist_text_str(l, e))); break;
        case KVLIST_NULL: json_object_set_new(out, key, json_null()); break;
        case KVLIST_COMPOUND: json_object_set_new(out, key, json_string("(compound)")); break;
        }
    }
    return out;
}

static const char *note_kind(device_model_note_kind k)
{
    switch (k) {
    case DEVICE_MODEL_NOTE_ARRAY_READ: return "read";
    case DEVICE_MODEL_NOTE_ARRAY_SKIPPED: return "skipped";
    case DEVICE_MODEL_NOTE_NOT_ARRAY: return "not_array";
    case DEVICE_MODEL_NOTE_UNKNOWN_KEY: return "unknown_column";
    case DEVICE_MODEL_NOTE_EXTRA_RECORD: return "extra_record";
    case DEVICE_MODEL_NOTE_PERCENT_FRACTION: return "percent_fraction";
    case DEVICE_MODEL_NOTE_PERCENT_SCALED: return "percent_scaled";
    case DEVICE_MODEL_NOTE_TIMES_RELATIVE: return "times_relative";
    }
    return "?";
}

int main(int argc, char **argv)
{
    int stats = argc == 3 && strcmp(argv[1], "--stats") == 0;
    if (argc != 2 + stats) {
        fprintf(stderr, "usage: explorer_dump [--stats] DIR\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    device_model *m;
    explorer_parquet_inventory *inv;
    nl_error err;
    if (explorer_parquet_read(argv[1 + stats], NULL, &m, &inv, &err) != 0) {
        fprintf(stderr, "explorer_dump: %s: %s at offset %lld (field %s, record %lld): %s\n", err.source,
                nl_error_code_name(err.code), (long long)err.offset, err.field, (long long)err.record, err.message);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (stats) {
        size_t n = device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS);
        fprintf(stderr, "explorer_dump: %.3f s, %zu instructions, model %zu B (%.1f B per instruction)\n",
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, n, device_model_bytes(m),
                n ? (double)device_model_bytes(m) / (double)n : 0.0);
    }
    json_t *out = json_object();
    json_object_set_new(out, "instructions", dump_instructions(m));
    json_object_set_new(out, "dma", dump_dma(m));
    json_object_set_new(out, "active_time", dump_generic(m, DEVICE_MODEL_ACTIVE_TIME, DM_ACTIVE_START));
    json_object_set_new(out, "semaphores", dump_generic(m, DEVICE_MODEL_SEMAPHORES, DM_SEM_TIMESTAMP));
    json_object_set_new(out, "warnings", dump_generic(m, DEVICE_MODEL_WARNINGS, UINT32_MAX));
    json_object_set_new(out, "flow", dump_generic(m, DEVICE_MODEL_FLOW, UINT32_MAX));
    json_object_set_new(out, "tensor_info", dump_generic(m, DEVICE_MODEL_TENSOR_INFO, UINT32_MAX));
    json_object_set_new(out, "cc_op", dump_generic(m, DEVICE_MODEL_CC_OPS, DM_CCOP_START));
    json_object_set_new(out, "cc_instruction", dump_generic(m, DEVICE_MODEL_CC_INSTRUCTIONS, DM_CCI_START));
    json_object_set_new(out, "opcode_summary", dump_generic(m, DEVICE_MODEL_OPCODE_SUMMARY, UINT32_MAX));
    json_object_set_new(out, "schema_fields", dump_generic(m, DEVICE_MODEL_SCHEMA_FIELDS, UINT32_MAX));
    json_object_set_new(out, "system_events", dump_generic(m, DEVICE_MODEL_SYSTEM_EVENTS, DM_SYSEV_START));
    json_object_set_new(out, "kernel_instructions", dump_generic(m, DEVICE_MODEL_KERNEL_INSTRUCTIONS, UINT32_MAX));
    json_object_set_new(out, "kernel_stack_frames", dump_generic(m, DEVICE_MODEL_KERNEL_STACK_FRAMES, UINT32_MAX));
    json_object_set_new(out, "summary", dump_record(m, DEVICE_MODEL_SUMMARY));
    json_object_set_new(out, "metadata", dump_record(m, DEVICE_MODEL_METADATA));
    json_object_set_new(out, "neff_header", dump_record(m, DEVICE_MODEL_NEFF_HEADER));
    json_t *notes = json_array();
    for (size_t i = 0; i < device_model_note_count(m); i++) {
        const device_model_note *nt = device_model_note_at(m, i);
        json_array_append_new(notes, json_pack("[s s s I]", note_kind(nt->kind), str(m, nt->scope), str(m, nt->name),
                                               (json_int_t)nt->count));
    }
    json_object_set_new(out, "notes", notes);
    json_t *tables = json_array();
    for (size_t i = 0; i < explorer_parquet_table_count(inv); i++) {
        const explorer_parquet_table *t = explorer_parquet_table_at(inv, i);
        json_t *unknown = json_array();
        for (size_t k = 0; k < t->unknown_count; k++)
            json_array_append_new(unknown, json_string(t->unknown[k]));
        json_array_append_new(tables, json_pack("{ss sI sI sb sI so}", "name", t->name, "files", (json_int_t)t->files,
                                                "rows", (json_int_t)t->rows, "modelled", t->modelled, "columns",
                                                (json_int_t)t->columns, "unknown", unknown));
    }
    json_object_set_new(out, "tables", tables);
    const char *evidence;
    explorer_parquet_percent pct = explorer_parquet_summary_percent(inv, &evidence);
    json_object_set_new(out, "report",
                        json_pack("{ss ss ss sb sI}", "schema_version", explorer_parquet_schema_version(inv), "percent",
                                  pct == EXPLORER_PARQUET_PERCENT_SCALED     ? "scaled"
                                  : pct == EXPLORER_PARQUET_PERCENT_FRACTION ? "fraction"
                                                                             : "none",
                                  "percent_evidence", evidence, "times_relative", explorer_parquet_times_relative(inv),
                                  "time_origin", (json_int_t)device_model_time_origin(m, NULL)));
    json_dumpf(out, stdout, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    fputc('\n', stdout);
    json_decref(out);
    explorer_parquet_inventory_free(inv);
    device_model_free(m);
    return 0;
}
