/* neuron_json_dump — test driver: read a full JSON export (or a summary-json file) with the C readers and
 * print the aggregates that tests/samples/ref_neuron_json.py computes independently with Python's json
 * module, in the same JSON shape, so run_neuron_json_samples.py can diff them.
 *
 * Usage: neuron_json_dump [--read-size N] [--threads N] [--stats] [--no-dump] EXPORT.json
 *        neuron_json_dump --summary-json FILE
 * --stats prints ingest time, throughput and model memory (bytes per instruction) to stderr; --no-dump skips
 * the aggregates (ingest benchmarks); --threads sets neuron_json_options.threads (0 = online CPUs).
 * Exit: 0 ok, 1 reader error (printed to stderr with code, offset, record and field), 2 usage. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "device_model.h"
#include "neuron_json.h"
#include "summary_json.h"

static const char *const dump_byte_names[] = {"hbm_read_bytes",   "hbm_write_bytes", "sbuf_read_bytes",
                                              "sbuf_write_bytes", "psum_read_bytes", "psum_write_bytes",
                                              "spill_save_bytes", "spill_reload_bytes"};
static const char *const dump_engines[DM_ENGINE_COUNT] = {"tensor", "vector", "scalar", "gpsimd", "sync"};

static json_t *dump_u64_string(uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return json_string(buf);
}

static json_t *dump_str(const device_model *m, uint32_t id)
{
    size_t len;
    const char *s = device_model_str(m, id, &len);
    return json_stringn_nocheck(s ? s : "", s ? len : 0);
}

/* obj[name] += by (an integer member, created at 0). */
static void dump_add(json_t *obj, const char *name, json_int_t by)
{
    json_t *v = json_object_get(obj, name);
    if (!v)
        json_object_set_new(obj, name, json_integer(by));
    else
        json_integer_set(v, json_integer_value(v) + by);
}

/* obj[name] as an object, created empty. */
static json_t *dump_child(json_t *obj, const char *name)
{
    json_t *v = json_object_get(obj, name);
    if (!v) {
        v = json_object();
        json_object_set_new(obj, name, v);
    }
    return v;
}

static json_t *dump_instructions(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    size_t n = table_rows(t);
    json_t *engine = json_object(), *label = json_object(), *opcode = json_object(), *bytes = json_object();
    json_int_t byte_sums[8] = {0};
    json_int_t triggers = 0, with_source = 0;
    uint64_t id_xor = 0, id_sum = 0;
    int64_t first = 0, last_end = 0;
    for (size_t i = 0; i < n; i++) {
        device_model_instr r;
        device_model_instr_get(m, i, &r);
        dump_add(engine, device_model_str(m, r.engine, NULL), 1);
        dump_add(label, device_model_str(m, r.label, NULL), 1);
        json_t *op = dump_child(opcode, device_model_str(m, r.opcode, NULL));
        dump_add(op, "count", 1);
        dump_add(op, "duration", r.duration_ns);
        dump_add(op, "evt_wait", r.evt_wait_ns);
        uint64_t b[8] = {r.hbm_read, r.hbm_write, r.sbuf_read, r.sbuf_write,
                         r.psum_read, r.psum_write, r.spill_save, r.spill_reload};
        for (int k = 0; k < 8; k++)
            byte_sums[k] += (json_int_t)b[k];
        triggers += (r.flags & DM_INSTR_F_DMA_TRIGGER) != 0;
        with_source += r.source != 0;
        id_xor ^= r.id;
        id_sum += r.id;
        if (i == 0 || r.timestamp_ns < first)
            first = r.timestamp_ns;
        if (i == 0 || r.timestamp_ns + r.duration_ns > last_end)
            last_end = r.timestamp_ns + r.duration_ns;
    }
    for (int k = 0; k < 8; k++)
        json_object_set_new(bytes, dump_byte_names[k], json_integer(byte_sums[k]));
    return json_pack("{sI so so so so sI sI so so sI sI}", "count", (json_int_t)n, "per_engine", engine, "per_label",
                     label, "per_opcode", opcode, "bytes", bytes, "dma_triggers", triggers, "with_source",
                     with_source, "id_xor", dump_u64_string(id_xor), "id_sum", dump_u64_string(id_sum),
                     "first_timestamp", (json_int_t)first, "last_end", (json_int_t)last_end);
}

static json_t *dump_dma(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_DMA);
    size_t n = table_rows(t);
    json_int_t packets = 0, agg = 0, packet_bytes = 0, agg_bytes = 0, cc = 0, dup = 0, unknown = 0, dur = 0;
    uint64_t agg_xor = 0, id_xor = 0;
    int64_t first = 0;
    json_t *per_qt = json_object(), *per_queue = json_object();
    uint32_t unknown_id = device_model_str_find(m, "unknown");
    for (size_t i = 0; i < n; i++) {
        uint64_t flags = table_u64(t, DM_DMA_FLAGS, i);
        json_int_t size = (json_int_t)table_u64(t, DM_DMA_TRANSFER_SIZE, i);
        if (flags & DM_DMA_F_AGGREGATED) {
            agg++;
            agg_bytes += size;
        } else {
            packets++;
            packet_bytes += size;
            json_t *qt = dump_child(per_qt, device_model_str(m, table_str(t, DM_DMA_QUEUE_TYPE, i), NULL));
            dump_add(qt, "count", 1);
            dump_add(qt, "bytes", size);
        }
        dump_add(per_queue, device_model_str(m, table_str(t, DM_DMA_QUEUE, i), NULL), 1);
        cc += (flags & DM_DMA_F_CC) != 0;
        dup += (flags & DM_DMA_F_DUPLICATE) != 0;
        unknown += table_str(t, DM_DMA_VARIABLE, i) == unknown_id;
        agg_xor ^= table_u64(t, DM_DMA_AGG_ID, i);
        id_xor ^= table_u64(t, DM_DMA_ID, i);
        dur += table_i64(t, DM_DMA_DURATION, i);
        int64_t ts = table_i64(t, DM_DMA_TIMESTAMP, i);
        if (i == 0 || ts < first)
            first = ts;
    }
    return json_pack("{sI sI sI sI sI sI so so sI so so sI sI}", "packets", packets, "aggregated", agg,
                     "packet_bytes", packet_bytes, "aggregated_bytes", agg_bytes, "cc", cc, "duplicate", dup,
                     "per_queue_type", per_qt, "per_queue", per_queue, "variable_unknown", unknown, "agg_id_xor",
                     dump_u64_string(agg_xor), "id_xor", dump_u64_string(id_xor), "first_timestamp",
                     (json_int_t)first, "duration_sum", dur);
}

static json_t *dump_active(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_ACTIVE_TIME);
    json_t *out = json_object();
    for (size_t i = 0; i < table_rows(t); i++) {
        json_t *e = dump_child(out, device_model_str(m, table_str(t, DM_ACTIVE_ENGINE, i), NULL));
        int64_t start = table_i64(t, DM_ACTIVE_START, i);
        dump_add(e, "count", 1);
        dump_add(e, "duration_sum", table_i64(t, DM_ACTIVE_DURATION, i));
        dump_add(e, "span_sum", table_i64(t, DM_ACTIVE_END, i) - start);
        json_t *min = json_object_get(e, "start_min");
        if (!min || start < json_integer_value(min))
            json_object_set_new(e, "start_min", json_integer(start));
    }
    return out;
}

static json_t *dump_semaphores(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_SEMAPHORES);
    json_int_t values = 0, stamps = 0;
    for (size_t i = 0; i < table_rows(t); i++) {
        values += table_i64(t, DM_SEM_VALUE, i);
        stamps += table_i64(t, DM_SEM_TIMESTAMP, i);
    }
    return json_pack("{sI sI sI}", "count", (json_int_t)table_rows(t), "value_sum", values, "timestamp_sum", stamps);
}

static json_t *dump_layers(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_LAYERS);
    json_t *out = json_array();
    for (size_t i = 0; i < table_rows(t); i++) {
        json_t *row = json_pack("{so sI sI sI sI sf}", "name", dump_str(m, table_str(t, DM_LAYER_NAME, i)), "start",
                                (json_int_t)table_i64(t, DM_LAYER_START, i), "end",
                                (json_int_t)table_i64(t, DM_LAYER_END, i), "duration",
                                (json_int_t)table_i64(t, DM_LAYER_DURATION, i), "tensor_engine_flop_count",
                                (json_int_t)table_i64(t, DM_LAYER_FLOPS, i), "tensor_engine_mfu",
                                table_f64(t, DM_LAYER_MFU, i));
        for (int e = 0; e < DM_ENGINE_COUNT; e++) {
            static const char *const what[3] = {"active_time", "instruction_time", "instruction_count"};
            for (int k = 0; k < 3; k++) {
                char name[64];
                snprintf(name, sizeof name, "%s_engine_%s", dump_engines[e], what[k]);
                json_object_set_new(row, name, json_integer(table_i64(t, (uint32_t)(DM_LAYER_ENGINE0 + 3 * e + k), i)));
            }
        }
        json_array_append_new(out, row);
    }
    return out;
}

static json_t *dump_warnings(const device_model *m)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_WARNINGS);
    json_t *out = json_array();
    for (size_t i = 0; i < table_rows(t); i++)
        json_array_append_new(out, json_pack("{so so}", "category", dump_str(m, table_str(t, DM_WARN_CATEGORY, i)),
                                             "message", dump_str(m, table_str(t, DM_WARN_MESSAGE, i))));
    return out;
}

static json_t *dump_kvlist(const kvlist *l)
{
    json_t *out = json_object();
    for (size_t i = 0; i < kvlist_count(l); i++) {
        const kvlist_entry *e = kvlist_at(l, i);
        json_t *v;
        switch (e->kind) {
        case KVLIST_NULL: v = json_null(); break;
        case KVLIST_BOOL: v = json_boolean(e->i); break;
        case KVLIST_INT: v = json_integer(e->i); break;
        case KVLIST_UINT:
        case KVLIST_DOUBLE: v = json_real(e->num); break;
        case KVLIST_STRING: v = json_string_nocheck(kvlist_text_str(l, e)); break;
        default: v = json_string("(compound)"); break;
        }
        json_object_set_new_nocheck(out, kvlist_key_str(l, e), v);
    }
    return out;
}

static json_t *dump_model(const device_model *m)
{
    json_t *arrays = json_object(), *records = json_object();
    for (size_t i = 0; i < device_model_note_count(m); i++) {
        const device_model_note *n = device_model_note_at(m, i);
        const char *name = device_model_str(m, n->name, NULL);
        if (n->kind == DEVICE_MODEL_NOTE_ARRAY_READ || n->kind == DEVICE_MODEL_NOTE_ARRAY_SKIPPED)
            json_object_set_new(arrays, name, json_integer((json_int_t)n->count));
        else if (n->kind == DEVICE_MODEL_NOTE_NOT_ARRAY)
            json_object_set_new(arrays, name, json_null());
    }
    for (int r = 0; r < DEVICE_MODEL_RECORD_COUNT; r++) {
        const kvlist *l = device_model_record_get(m, (device_model_record)r);
        if (l)
            json_object_set_new(records, device_model_record_name((device_model_record)r), dump_kvlist(l));
    }
    return json_pack("{so sI so so so so so so so}", "arrays", arrays, "time_origin",
                     (json_int_t)device_model_time_origin(m, NULL), "instruction", dump_instructions(m), "dma",
                     dump_dma(m), "active_time", dump_active(m), "semaphore_update", dump_semaphores(m),
                     "layer_summary", dump_layers(m), "warnings", dump_warnings(m), "records", records);
}

static void dump_error(const nl_error *e)
{
    fprintf(stderr, "error: %s: %s (offset %lld, record %lld, field '%s'): %s\n", e->source,
            nl_error_code_name(e->code), (long long)e->offset, (long long)e->record, e->field, e->message);
}

static double dump_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void dump_stats(const char *path, const device_model *m, double seconds)
{
    struct stat st;
    double mb = stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0;
    size_t n = device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS);
    size_t cols = device_model_table_bytes(m, DEVICE_MODEL_INSTRUCTIONS);
    fprintf(stderr,
            "stats: %.1f MB in %.3f s = %.0f MB/s; %zu instructions, %zu dma; instruction table %zu B = %.1f B per "
            "instruction; model total %zu B = %.1f B per instruction\n",
            mb, seconds, seconds > 0 ? mb / seconds : 0, n, device_model_rows(m, DEVICE_MODEL_DMA), cols,
            n ? (double)cols / (double)n : 0, device_model_bytes(m), n ? (double)device_model_bytes(m) / (double)n : 0);
}

static int dump_summary_json(const char *path)
{
    nl_error err;
    summary_json *s;
    if (summary_json_read(path, &s, &err) != 0) {
        dump_error(&err);
        return 1;
    }
    json_t *out = json_object();
    for (size_t i = 0; i < summary_json_count(s); i++)
        json_object_set_new(out, summary_json_name(s, i), dump_kvlist(summary_json_metrics(s, i)));
    json_dumpf(out, stdout, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    putchar('\n');
    json_decref(out);
    summary_json_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    neuron_json_options opt = {0};
    int stats = 0, no_dump = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--summary-json") == 0 && i + 1 < argc)
            return dump_summary_json(argv[i + 1]);
        if (strcmp(argv[i], "--read-size") == 0 && i + 1 < argc)
            opt.read_size = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            opt.threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--stats") == 0)
            stats = 1;
        else if (strcmp(argv[i], "--no-dump") == 0)
            no_dump = 1;
        else
            path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: neuron_json_dump [--read-size N] [--threads N] [--stats] [--no-dump] EXPORT.json | "
                        "--summary-json FILE\n");
        return 2;
    }
    nl_error err;
    device_model *m;
    double t0 = dump_now();
    if (neuron_json_read(path, &opt, &m, &err) != 0) {
        dump_error(&err);
        return 1;
    }
    double t1 = dump_now();
    if (stats)
        dump_stats(path, m, t1 - t0);
    if (no_dump) {
        device_model_free(m);
        return 0;
    }
    json_t *out = dump_model(m);
    json_dumpf(out, stdout, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    putchar('\n');
    json_decref(out);
    device_model_free(m);
    return 0;
}
