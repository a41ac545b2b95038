/* device_model — see device_model.h.
 *
 * Layout: one arena; in it the strtab, one `table` per device_model_table (schemas below, static const),
 * one kvlist per singleton record (created when the reader first meets it) and the notes array with a
 * hashtab index on (kind, scope, name).
 *
 * Per-instruction cost: 21 columns whose cell width (1-8 B) adapts per segment of 16 Ki rows (table.c):
 * timestamp ~3 B, id 8 B, duration/evt_wait 1-3 B, the eight strings 1-2 B each (dictionary codes), the
 * eight byte counts 1 B while zero and 2-3 B otherwise, flags 1 B. Measured: 43.7 B per instruction on a
 * 1 GB synthetic export built from the real samples' records (issue 6 target: ≤ 48), before the four
 * Parquet-only columns (operands, adjusted_flops, pc, kernel_instruction_name) were appended: 1 B each
 * while a reader leaves them empty.
 *
 * Time normalisation happens once in device_model_finish, by shifting the TABLE_INT time columns listed in
 * dm_time_columns (an O(segments) base adjustment, see table_shift). */
#include "device_model.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "hashtab.h"

static const table_column dm_instr_cols[DM_INSTR_NCOLS] = {
    [DM_INSTR_TIMESTAMP] = {"timestamp", TABLE_INT},
    [DM_INSTR_DURATION] = {"duration", TABLE_INT},
    [DM_INSTR_EVT_WAIT] = {"evt_wait_time", TABLE_INT},
    [DM_INSTR_ID] = {"id", TABLE_UINT},
    [DM_INSTR_ENGINE] = {"subgroup", TABLE_STR},
    [DM_INSTR_LABEL] = {"label", TABLE_STR},
    [DM_INSTR_OPCODE] = {"opcode", TABLE_STR},
    [DM_INSTR_COMPILER_OPCODE] = {"compiler_opcode", TABLE_STR},
    [DM_INSTR_LAYER] = {"layer", TABLE_STR},
    [DM_INSTR_HLO_NAME] = {"hlo_name", TABLE_STR},
    [DM_INSTR_SOURCE] = {"source_location", TABLE_STR},
    [DM_INSTR_TYPE] = {"instruction_type", TABLE_STR},
    [DM_INSTR_HBM_READ] = {"hbm_read_bytes", TABLE_UINT},
    [DM_INSTR_HBM_WRITE] = {"hbm_write_bytes", TABLE_UINT},
    [DM_INSTR_SBUF_READ] = {"sbuf_read_bytes", TABLE_UINT},
    [DM_INSTR_SBUF_WRITE] = {"sbuf_write_bytes", TABLE_UINT},
    [DM_INSTR_PSUM_READ] = {"psum_read_bytes", TABLE_UINT},
    [DM_INSTR_PSUM_WRITE] = {"psum_write_bytes", TABLE_UINT},
    [DM_INSTR_SPILL_SAVE] = {"spill_save_bytes", TABLE_UINT},
    [DM_INSTR_SPILL_RELOAD] = {"spill_reload_bytes", TABLE_UINT},
    [DM_INSTR_FLAGS] = {"flags", TABLE_UINT},
    [DM_INSTR_PC_BYTE] = {"pc_byte", TABLE_UINT},
    [DM_INSTR_OPERANDS] = {"operands", TABLE_STR},
    [DM_INSTR_ADJUSTED_FLOPS] = {"adjusted_flops", TABLE_INT},
    [DM_INSTR_PC] = {"pc", TABLE_INT},
    [DM_INSTR_KERNEL_NAME] = {"kernel_instruction_name", TABLE_STR},
};

static const table_column dm_dma_cols[DM_DMA_NCOLS] = {
    [DM_DMA_TIMESTAMP] = {"timestamp", TABLE_INT},
    [DM_DMA_DURATION] = {"duration", TABLE_INT},
    [DM_DMA_ID] = {"id", TABLE_UINT},
    [DM_DMA_AGG_ID] = {"packet_aggregation_id", TABLE_UINT},
    [DM_DMA_TRANSFER_SIZE] = {"transfer_size", TABLE_UINT},
    [DM_DMA_QUEUE] = {"queue", TABLE_STR},
    [DM_DMA_SUBGROUP] = {"subgroup", TABLE_STR},
    [DM_DMA_QUEUE_TYPE] = {"queue_type", TABLE_STR},
    [DM_DMA_ENGINE] = {"dma_engine", TABLE_INT},
    [DM_DMA_QUEUE_IDX] = {"dma_queue", TABLE_INT},
    [DM_DMA_VARIABLE] = {"variable", TABLE_STR},
    [DM_DMA_FLAGS] = {"flags", TABLE_UINT},
    [DM_DMA_SOURCE] = {"source", TABLE_STR},
    [DM_DMA_DEST] = {"dest", TABLE_STR},
};

static const table_column dm_active_cols[DM_ACTIVE_NCOLS] = {
    [DM_ACTIVE_ENGINE] = {"engine", TABLE_STR},
    [DM_ACTIVE_START] = {"start_ts", TABLE_INT},
    [DM_ACTIVE_END] = {"end_ts", TABLE_INT},
    [DM_ACTIVE_DURATION] = {"duration_ns", TABLE_INT},
    [DM_ACTIVE_PCORE] = {"pcore_idx", TABLE_INT},
};

static const table_column dm_sem_cols[DM_SEM_NCOLS] = {
    [DM_SEM_ID] = {"id", TABLE_STR},
    [DM_SEM_VALUE] = {"value", TABLE_INT},
    [DM_SEM_TIMESTAMP] = {"timestamp", TABLE_INT},
};

#define DM_LAYER_ENGINE_COLS(e)                                                                                 \
    [DM_LAYER_ACTIVE(DM_ENGINE_##e)] = {#e "_engine_active_time", TABLE_INT},                                   \
    [DM_LAYER_INSTR_TIME(DM_ENGINE_##e)] = {#e "_engine_instruction_time", TABLE_INT},                          \
    [DM_LAYER_INSTR_COUNT(DM_ENGINE_##e)] = {#e "_engine_instruction_count", TABLE_INT}

static const table_column dm_layer_cols[DM_LAYER_NCOLS] = {
    [DM_LAYER_NAME] = {"name", TABLE_STR},
    [DM_LAYER_SUBGRAPH] = {"fully_qualified_subgraph", TABLE_STR},
    [DM_LAYER_START] = {"start", TABLE_INT},
    [DM_LAYER_END] = {"end", TABLE_INT},
    [DM_LAYER_DURATION] = {"duration", TABLE_INT},
    DM_LAYER_ENGINE_COLS(TENSOR),
    DM_LAYER_ENGINE_COLS(VECTOR),
    DM_LAYER_ENGINE_COLS(SCALAR),
    DM_LAYER_ENGINE_COLS(GPSIMD),
    DM_LAYER_ENGINE_COLS(SYNC),
    [DM_LAYER_FLOPS] = {"tensor_engine_flop_count", TABLE_INT},
    [DM_LAYER_MODEL_FLOPS] = {"tensor_engine_model_flop_count", TABLE_INT},
    [DM_LAYER_MFU] = {"tensor_engine_mfu", TABLE_F64},
    [DM_LAYER_HFU] = {"tensor_engine_hfu", TABLE_F64},
};

static const table_column dm_nsem_cols[DM_NSEM_NCOLS] = {
    [DM_NSEM_TIMESTAMP] = {"timestamp", TABLE_INT},
    [DM_NSEM_INDEX] = {"semaphore", TABLE_INT},
    [DM_NSEM_VALUE] = {"value", TABLE_INT},
    [DM_NSEM_CODE] = {"d", TABLE_INT},
    [DM_NSEM_B] = {"b", TABLE_INT},
    [DM_NSEM_C] = {"c", TABLE_INT},
};

static const table_column dm_warn_cols[DM_WARN_NCOLS] = {
    [DM_WARN_MESSAGE] = {"message", TABLE_STR},
    [DM_WARN_CATEGORY] = {"category", TABLE_STR},
};

/* Tables of the Parquet reader (formats.md §7.3); column names are the Parquet ones. */
static const table_column dm_flow_cols[DM_FLOW_NCOLS] = {
    [DM_FLOW_IN_ID] = {"in_id", TABLE_UINT},
    [DM_FLOW_OUT_ID] = {"out_id", TABLE_UINT},
    [DM_FLOW_IN_TABLE] = {"in_table", TABLE_STR},
    [DM_FLOW_OUT_TABLE] = {"out_table", TABLE_STR},
    [DM_FLOW_TYPE] = {"dependency_type", TABLE_STR},
    [DM_FLOW_GAP] = {"gap_time", TABLE_INT},
};

static const table_column dm_tensor_cols[DM_TENSOR_NCOLS] = {
    [DM_TENSOR_NAME] = {"variable_name", TABLE_STR},
    [DM_TENSOR_TYPE] = {"type", TABLE_STR},
    [DM_TENSOR_FORMAT] = {"format", TABLE_STR},
    [DM_TENSOR_SHAPE] = {"shape", TABLE_STR},
    [DM_TENSOR_SIZE] = {"size", TABLE_INT},
    [DM_TENSOR_NODE] = {"node", TABLE_INT},
    [DM_TENSOR_PCORE] = {"pcore_idx", TABLE_INT},
    [DM_TENSOR_LOAD_AVG] = {"load_to_sbuf_avg_size_bytes", TABLE_INT},
    [DM_TENSOR_LOAD_TOTAL] = {"load_to_sbuf_total_size_bytes", TABLE_INT},
    [DM_TENSOR_LOAD_COUNT] = {"load_to_sbuf_dma_count", TABLE_INT},
    [DM_TENSOR_REPEAT] = {"load_to_sbuf_repeat_factor", TABLE_F64},
};

static const table_column dm_ccop_cols[DM_CCOP_NCOLS] = {
    [DM_CCOP_START] = {"start_ts", TABLE_INT},
    [DM_CCOP_END] = {"end_ts", TABLE_INT},
    [DM_CCOP_DURATION] = {"duration_ns", TABLE_INT},
    [DM_CCOP_OPERATION] = {"operation", TABLE_STR},
    [DM_CCOP_ALGORITHM] = {"algorithm", TABLE_STR},
    [DM_CCOP_ELEMENTS] = {"num_elements", TABLE_INT},
    [DM_CCOP_DTYPE] = {"dtype", TABLE_STR},
    [DM_CCOP_OP_ID] = {"op_id", TABLE_INT},
    [DM_CCOP_STREAM_ID] = {"stream_id", TABLE_INT},
    [DM_CCOP_STREAM_INDEX] = {"stream_index", TABLE_INT},
    [DM_CCOP_TRIGGER_ENGINE] = {"trigger_engine", TABLE_STR},
    [DM_CCOP_INPUT_SIZE] = {"input_size", TABLE_INT},
    [DM_CCOP_OUTPUT_SIZE] = {"output_size", TABLE_INT},
    [DM_CCOP_ALGO_BW] = {"algorithm_bandwidth", TABLE_F64},
    [DM_CCOP_BUS_BW] = {"bus_bandwidth", TABLE_F64},
    [DM_CCOP_TRIGGER_START] = {"trigger_start_ts", TABLE_INT},
    [DM_CCOP_TRIGGER_DELAY] = {"cc_trigger_start_delay", TABLE_INT},
    [DM_CCOP_REPLICA_GROUP_ID] = {"replica_group_id", TABLE_INT},
    [DM_CCOP_REPLICA_GROUP] = {"replica_group", TABLE_STR},
};

static const table_column dm_cci_cols[DM_CCI_NCOLS] = {
    [DM_CCI_START] = {"start_ts", TABLE_INT},
    [DM_CCI_END] = {"end_ts", TABLE_INT},
    [DM_CCI_DURATION] = {"duration_ns", TABLE_INT},
    [DM_CCI_CORE] = {"core_idx", TABLE_INT},
    [DM_CCI_DESCRIPTION] = {"description", TABLE_STR},
    [DM_CCI_TRIGGER_ENGINE] = {"trigger_engine", TABLE_STR},
    [DM_CCI_TRIGGER_START] = {"trigger_start_ts", TABLE_INT},
};

static const table_column dm_opsum_cols[DM_OPSUM_NCOLS] = {
    [DM_OPSUM_ENGINE] = {"engine", TABLE_STR},
    [DM_OPSUM_OPCODE] = {"opcode", TABLE_STR},
    [DM_OPSUM_COUNT] = {"instruction_count", TABLE_INT},
    [DM_OPSUM_INSTR_TIME] = {"instruction_time_ns", TABLE_INT},
    [DM_OPSUM_ACTIVE_TIME] = {"active_time_ns", TABLE_INT},
    [DM_OPSUM_ACTIVE_PERCENT] = {"active_time_percent", TABLE_F64},
};

static const table_column dm_schema_cols[DM_SCHEMA_NCOLS] = {
    [DM_SCHEMA_TABLE] = {"table_name", TABLE_STR},
    [DM_SCHEMA_TABLE_DESC] = {"table_description", TABLE_STR},
    [DM_SCHEMA_FIELD] = {"field_name", TABLE_STR},
    [DM_SCHEMA_FIELD_DESC] = {"field_description", TABLE_STR},
    [DM_SCHEMA_EXAMPLE] = {"field_example", TABLE_STR},
    [DM_SCHEMA_TYPE] = {"field_type", TABLE_STR},
    [DM_SCHEMA_REQUIRED] = {"field_required", TABLE_UINT},
    [DM_SCHEMA_FORMAT] = {"field_format", TABLE_STR},
    [DM_SCHEMA_UNIT] = {"field_unit", TABLE_STR},
    [DM_SCHEMA_MIN] = {"field_minimum", TABLE_F64},
    [DM_SCHEMA_MAX] = {"field_maximum", TABLE_F64},
    [DM_SCHEMA_ENUM] = {"field_enum_values", TABLE_STR},
};

static const table_column dm_sysev_cols[DM_SYSEV_NCOLS] = {
    [DM_SYSEV_ID] = {"id", TABLE_INT},
    [DM_SYSEV_NAME] = {"name", TABLE_STR},
    [DM_SYSEV_START] = {"start_ts", TABLE_INT},
    [DM_SYSEV_END] = {"end_ts", TABLE_INT},
    [DM_SYSEV_DURATION] = {"duration_ns", TABLE_INT},
    [DM_SYSEV_SOURCE] = {"trace_event_source", TABLE_STR},
    [DM_SYSEV_INSTANCE] = {"instance_id", TABLE_STR},
    [DM_SYSEV_PROCESS] = {"process_id", TABLE_INT},
    [DM_SYSEV_THREAD] = {"thread_id", TABLE_INT},
    [DM_SYSEV_NC] = {"nc_idx", TABLE_INT},
    [DM_SYSEV_PCORE] = {"pcore_idx", TABLE_INT},
    [DM_SYSEV_WORKER] = {"worker_gid", TABLE_INT},
    [DM_SYSEV_FLOW_IDS] = {"flow_id", TABLE_STR},
    [DM_SYSEV_STREAM] = {"framework_stream_id", TABLE_STR},
    [DM_SYSEV_ATTRS] = {"extra_attributes_json", TABLE_STR},
};

static const table_column dm_kinstr_cols[DM_KINSTR_NCOLS] = {
    [DM_KINSTR_NAME] = {"kernel_instruction_name", TABLE_STR},
    [DM_KINSTR_FRAME] = {"stack_frame_id", TABLE_INT},
    [DM_KINSTR_FRAME_DEPTH] = {"stack_frame_depth", TABLE_INT},
    [DM_KINSTR_ITER_VARS] = {"iteration_variables_id", TABLE_INT},
    [DM_KINSTR_ITER_DEPTH] = {"iteration_variable_depth", TABLE_INT},
    [DM_KINSTR_PCORE] = {"pcore_idx", TABLE_INT},
    [DM_KINSTR_FILE] = {"file_path", TABLE_STR},
    [DM_KINSTR_LINE] = {"line_number", TABLE_INT},
};

static const table_column dm_kframe_cols[DM_KFRAME_NCOLS] = {
    [DM_KFRAME_ID] = {"stack_frame_id", TABLE_INT},
    [DM_KFRAME_FUNCTION] = {"fully_qualified_function_name", TABLE_STR},
    [DM_KFRAME_PARENT] = {"parent_stack_frame_id", TABLE_INT},
    [DM_KFRAME_PCORE] = {"pcore_idx", TABLE_INT},
    [DM_KFRAME_FILE] = {"file_path", TABLE_STR},
    [DM_KFRAME_LINE] = {"line_number", TABLE_INT},
};

typedef struct dm_schema {
    const char *name;
    const table_column *cols;
    uint32_t ncols;
} dm_schema;

static const dm_schema dm_schemas[DEVICE_MODEL_TABLE_COUNT] = {
    [DEVICE_MODEL_INSTRUCTIONS] = {"instruction", dm_instr_cols, DM_INSTR_NCOLS},
    [DEVICE_MODEL_DMA] = {"dma", dm_dma_cols, DM_DMA_NCOLS},
    [DEVICE_MODEL_ACTIVE_TIME] = {"active_time", dm_active_cols, DM_ACTIVE_NCOLS},
    [DEVICE_MODEL_SEMAPHORES] = {"semaphore_update", dm_sem_cols, DM_SEM_NCOLS},
    [DEVICE_MODEL_LAYERS] = {"layer_summary", dm_layer_cols, DM_LAYER_NCOLS},
    [DEVICE_MODEL_WARNINGS] = {"warnings", dm_warn_cols, DM_WARN_NCOLS},
    [DEVICE_MODEL_NTFF_SEMAPHORES] = {"ntff_semaphore", dm_nsem_cols, DM_NSEM_NCOLS},
    [DEVICE_MODEL_FLOW] = {"flow", dm_flow_cols, DM_FLOW_NCOLS},
    [DEVICE_MODEL_TENSOR_INFO] = {"tensor_info", dm_tensor_cols, DM_TENSOR_NCOLS},
    [DEVICE_MODEL_CC_OPS] = {"cc_op", dm_ccop_cols, DM_CCOP_NCOLS},
    [DEVICE_MODEL_CC_INSTRUCTIONS] = {"cc_instruction", dm_cci_cols, DM_CCI_NCOLS},
    [DEVICE_MODEL_OPCODE_SUMMARY] = {"opcode_summary", dm_opsum_cols, DM_OPSUM_NCOLS},
    [DEVICE_MODEL_SCHEMA_FIELDS] = {"schema_fields", dm_schema_cols, DM_SCHEMA_NCOLS},
    [DEVICE_MODEL_SYSTEM_EVENTS] = {"system_profile_events", dm_sysev_cols, DM_SYSEV_NCOLS},
    [DEVICE_MODEL_KERNEL_INSTRUCTIONS] = {"kernel_instructions", dm_kinstr_cols, DM_KINSTR_NCOLS},
    [DEVICE_MODEL_KERNEL_STACK_FRAMES] = {"kernel_stack_frames", dm_kframe_cols, DM_KFRAME_NCOLS},
};

static const char *const dm_record_names[DEVICE_MODEL_RECORD_COUNT] = {
    [DEVICE_MODEL_SUMMARY] = "summary",
    [DEVICE_MODEL_METADATA] = "metadata",
    [DEVICE_MODEL_MODEL_INFO] = "model_info",
    [DEVICE_MODEL_PROFILE_INFO] = "profile_info",
    [DEVICE_MODEL_NEFF_HEADER] = "neff_header",
};

/* Device-time columns shifted by device_model_finish. */
static const struct {
    device_model_table table;
    uint32_t col;
} dm_time_columns[] = {
    {DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_TIMESTAMP},
    {DEVICE_MODEL_DMA, DM_DMA_TIMESTAMP},
    {DEVICE_MODEL_ACTIVE_TIME, DM_ACTIVE_START},
    {DEVICE_MODEL_ACTIVE_TIME, DM_ACTIVE_END},
    {DEVICE_MODEL_SEMAPHORES, DM_SEM_TIMESTAMP},
    {DEVICE_MODEL_LAYERS, DM_LAYER_START},
    {DEVICE_MODEL_LAYERS, DM_LAYER_END},
    {DEVICE_MODEL_NTFF_SEMAPHORES, DM_NSEM_TIMESTAMP},
    {DEVICE_MODEL_CC_OPS, DM_CCOP_START},
    {DEVICE_MODEL_CC_OPS, DM_CCOP_END},
    {DEVICE_MODEL_CC_OPS, DM_CCOP_TRIGGER_START},
    {DEVICE_MODEL_CC_INSTRUCTIONS, DM_CCI_START},
    {DEVICE_MODEL_CC_INSTRUCTIONS, DM_CCI_END},
    {DEVICE_MODEL_CC_INSTRUCTIONS, DM_CCI_TRIGGER_START},
};

typedef struct dm_note_key {
    device_model_note_kind kind;
    uint32_t scope;
    uint32_t name;
} dm_note_key;

struct device_model {
    arena *arena;
    strtab *strings;
    table *tables[DEVICE_MODEL_TABLE_COUNT];
    kvlist *records[DEVICE_MODEL_RECORD_COUNT];
    device_model_note *notes;
    uint32_t note_count;
    uint32_t note_cap;
    hashtab note_index;
    int64_t time_origin;
    int time_from_metadata;
    int finished;
};

static int dm_note_equal(const void *ctx, uint32_t value, const void *key)
{
    const device_model *m = ctx;
    const dm_note_key *k = key;
    const device_model_note *n = &m->notes[value];
    return n->kind == k->kind && n->scope == k->scope && n->name == k->name;
}

static const hashtab_type dm_note_type = {.equal = dm_note_equal};

/* ---- lifecycle ---------------------------------------------------------------------------------------- */

device_model *device_model_new(nl_error *err)
{
    return device_model_new_limited(0, err);
}

device_model *device_model_new_limited(size_t memory_limit, nl_error *err)
{
    arena *a = arena_new(0);
    if (a)
        arena_set_limit(a, memory_limit);
    device_model *m = a ? arena_calloc(a, 1, sizeof *m) : NULL;
    if (!m) {
        arena_free(a);
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory creating a device model");
        return NULL;
    }
    m->arena = a;
    m->strings = strtab_new(a);
    for (int i = 0; i < DEVICE_MODEL_TABLE_COUNT && m->strings; i++) {
        m->tables[i] = table_new(a, dm_schemas[i].cols, dm_schemas[i].ncols);
        if (!m->tables[i]) {
            m->strings = NULL;
            break;
        }
    }
    if (!m->strings) {
        arena_free(a);
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory creating a device model");
        return NULL;
    }
    hashtab_init(&m->note_index, &dm_note_type, m, a);
    return m;
}

void device_model_free(device_model *m)
{
    if (m)
        arena_free(m->arena);
}

/* ---- building ----------------------------------------------------------------------------------------- */

int device_model_intern(device_model *m, const char *s, size_t len, uint32_t *id, nl_error *err)
{
    return strtab_intern(m->strings, s, len, id, err);
}

strtab *device_model_strtab_mut(device_model *m)
{
    return m->strings;
}

int device_model_append(device_model *m, device_model_table which, const table_value *row, nl_error *err)
{
    return table_append(m->tables[which], row, err);
}

kvlist *device_model_record_mut(device_model *m, device_model_record which, nl_error *err)
{
    if (!m->records[which]) {
        m->records[which] = kvlist_new(m->arena, m->strings);
        if (!m->records[which])
            nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory creating record %s", dm_record_names[which]);
    }
    return m->records[which];
}

static int dm_note_grow(device_model *m)
{
    uint32_t cap = m->note_cap ? m->note_cap * 2 : 32;
    device_model_note *n = arena_alloc(m->arena, (size_t)cap * sizeof *n);
    if (!n)
        return -1;
    if (m->note_count)
        memcpy(n, m->notes, (size_t)m->note_count * sizeof *n);
    m->notes = n;
    m->note_cap = cap;
    return 0;
}

int device_model_add_note(device_model *m, device_model_note_kind kind, uint32_t scope, uint32_t name, uint64_t count,
                          nl_error *err)
{
    if (m->note_count >= DEVICE_MODEL_NOTES_MAX) {
        uint32_t other;
        if (strtab_intern(m->strings, "(other)", 7, &other, err) != 0)
            return -1;
        scope = 0;
        name = other;
    }
    dm_note_key key = {kind, scope, name};
    uint32_t hash = hashtab_hash_u32(name ^ hashtab_hash_u32(scope ^ ((uint32_t)kind << 28)));
    uint32_t idx;
    if (hashtab_find(&m->note_index, hash, &key, &idx)) {
        m->notes[idx].count += count;
        return 0;
    }
    if ((m->note_count == m->note_cap && dm_note_grow(m) != 0) ||
        hashtab_insert(&m->note_index, hash, m->note_count) != 0)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory adding a reader note");
    m->notes[m->note_count++] = (device_model_note){kind, scope, name, count};
    return 0;
}

int device_model_merge_rows(device_model *dst, const device_model *src, device_model_table which, nl_error *err)
{
    /* The "(other)" note of a full note table is interned when the cap is hit, which a merge cannot place
     * at the same point of the id sequence as a sequential read: refuse instead of differing. */
    if (dst->note_count + src->note_count >= DEVICE_MODEL_NOTES_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "too many reader notes to merge exactly");
    for (int i = 0; i < DEVICE_MODEL_RECORD_COUNT; i++)
        if (src->records[i])
            return nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "device_model_merge_rows: the piece has records");
    uint32_t n = strtab_count(src->strings);
    uint32_t *map = malloc((size_t)n * sizeof *map);
    if (!map)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory merging string ids");
    int rc = -1;
    /* Interning src's strings in src's id order (its first-seen order) after dst's gives each string the id
     * a sequential read would have given it: a string new to dst first occurs in this piece. */
    for (uint32_t id = 0; id < n; id++) {
        size_t len;
        const char *s = strtab_str(src->strings, id, &len);
        if (strtab_intern(dst->strings, s, len, &map[id], err) != 0)
            goto out;
    }
    if (table_append_table(dst->tables[which], src->tables[which], map, err) != 0)
        goto out;
    for (uint32_t i = 0; i < src->note_count; i++) {
        const device_model_note *nt = &src->notes[i];
        if (device_model_add_note(dst, nt->kind, map[nt->scope], map[nt->name], nt->count, err) != 0)
            goto out;
    }
    rc = 0;
out:
    free(map);
    return rc;
}

int device_model_finish(device_model *m, nl_error *err)
{
    if (m->finished)
        return 0;
    int64_t origin = 0;
    m->time_from_metadata = kvlist_get_i64(m->records[DEVICE_MODEL_METADATA], "first_hw_timestamp", &origin);
    if (origin == INT64_MIN)
        return nl_error_set(err, NL_ERR_FORMAT, NULL, -1, "metadata.first_hw_timestamp is out of range");
    for (size_t i = 0; i < sizeof dm_time_columns / sizeof dm_time_columns[0]; i++) {
        if (table_shift(m->tables[dm_time_columns[i].table], dm_time_columns[i].col, -origin, err) != 0) {
            nl_error_set_field(err, dm_schemas[dm_time_columns[i].table].cols[dm_time_columns[i].col].name);
            return -1; /* earlier columns stay shifted; the caller discards the model */
        }
    }
    m->time_origin = origin;
    m->finished = 1;
    return 0;
}

/* ---- reading ------------------------------------------------------------------------------------------ */

const table *device_model_table_get(const device_model *m, device_model_table which)
{
    return m->tables[which];
}

size_t device_model_rows(const device_model *m, device_model_table which)
{
    return table_rows(m->tables[which]);
}

const kvlist *device_model_record_get(const device_model *m, device_model_record which)
{
    return m->records[which];
}

const strtab *device_model_strings(const device_model *m)
{
    return m->strings;
}

const char *device_model_str(const device_model *m, uint32_t id, size_t *len)
{
    return strtab_str(m->strings, id, len);
}

uint32_t device_model_str_find(const device_model *m, const char *s)
{
    return strtab_find(m->strings, s, strlen(s));
}

void device_model_instr_get(const device_model *m, size_t row, device_model_instr *out)
{
    const table *t = m->tables[DEVICE_MODEL_INSTRUCTIONS];
    out->timestamp_ns = table_i64(t, DM_INSTR_TIMESTAMP, row);
    out->duration_ns = table_i64(t, DM_INSTR_DURATION, row);
    out->evt_wait_ns = table_i64(t, DM_INSTR_EVT_WAIT, row);
    out->id = table_u64(t, DM_INSTR_ID, row);
    out->engine = table_str(t, DM_INSTR_ENGINE, row);
    out->label = table_str(t, DM_INSTR_LABEL, row);
    out->opcode = table_str(t, DM_INSTR_OPCODE, row);
    out->compiler_opcode = table_str(t, DM_INSTR_COMPILER_OPCODE, row);
    out->layer = table_str(t, DM_INSTR_LAYER, row);
    out->hlo_name = table_str(t, DM_INSTR_HLO_NAME, row);
    out->source = table_str(t, DM_INSTR_SOURCE, row);
    out->type = table_str(t, DM_INSTR_TYPE, row);
    out->hbm_read = table_u64(t, DM_INSTR_HBM_READ, row);
    out->hbm_write = table_u64(t, DM_INSTR_HBM_WRITE, row);
    out->sbuf_read = table_u64(t, DM_INSTR_SBUF_READ, row);
    out->sbuf_write = table_u64(t, DM_INSTR_SBUF_WRITE, row);
    out->psum_read = table_u64(t, DM_INSTR_PSUM_READ, row);
    out->psum_write = table_u64(t, DM_INSTR_PSUM_WRITE, row);
    out->spill_save = table_u64(t, DM_INSTR_SPILL_SAVE, row);
    out->spill_reload = table_u64(t, DM_INSTR_SPILL_RELOAD, row);
    out->flags = (uint32_t)table_u64(t, DM_INSTR_FLAGS, row);
    out->operands = table_str(t, DM_INSTR_OPERANDS, row);
    out->kernel_name = table_str(t, DM_INSTR_KERNEL_NAME, row);
    out->adjusted_flops = table_i64(t, DM_INSTR_ADJUSTED_FLOPS, row);
    out->pc = table_i64(t, DM_INSTR_PC, row);
}

int64_t device_model_time_origin(const device_model *m, int *from_metadata)
{
    if (from_metadata)
        *from_metadata = m->time_from_metadata;
    return m->time_origin;
}

size_t device_model_note_count(const device_model *m)
{
    return m->note_count;
}

const device_model_note *device_model_note_at(const device_model *m, size_t i)
{
    return i < m->note_count ? &m->notes[i] : NULL;
}

const char *device_model_table_name(device_model_table which)
{
    return which < DEVICE_MODEL_TABLE_COUNT ? dm_schemas[which].name : "?";
}

const char *device_model_record_name(device_model_record which)
{
    return which < DEVICE_MODEL_RECORD_COUNT ? dm_record_names[which] : "?";
}

size_t device_model_bytes(const device_model *m)
{
    return arena_reserved(m->arena);
}

size_t device_model_table_bytes(const device_model *m, device_model_table which)
{
    return table_bytes(m->tables[which]);
}

int device_model_finish_relative(device_model *m, nl_error *err)
{
    (void)err;
    if (m->finished)
        return 0;
    int64_t origin = 0;
    m->time_from_metadata = kvlist_get_i64(m->records[DEVICE_MODEL_METADATA], "first_hw_timestamp", &origin);
    m->time_origin = 0;
    m->finished = 1;
    return 0;
}
