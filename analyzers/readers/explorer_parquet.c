/* explorer_parquet — see explorer_parquet.h.
 *
 * Input (formats.md §7.1, schema 7.4.0; neuron-explorer writes no sample we have, so names follow the
 * documentation and SemaphoreUpdate's columns are our guess):
 *
 *   <dir>/<Table>.parquet                one file per table, present only when the profile has that activity
 *   <dir>/<Table>_<N>.parquet            a large table split in parts, read in increasing N
 *
 * A file belongs to table T when its name is T, optionally _<digits>, then ".parquet" (T starts with a
 * letter; a glob like Instruction* would also catch other tables). Mapping onto the device model (§4.5):
 *
 *   Instruction          → instructions: start_ts→timestamp, duration_ns, evt_wait_time_ns, id (int64 bits
 *                          as uint64), engine (capitalised: Tensor, Vector, Scalar, GpSimd, Sync),
 *                          timeline_track→label, opcode, compiler_opcode, layer, hlo_name, source =
 *                          nki_source_location else bir_debug_info_source_location else hlo_attrs'
 *                          source_file:source_line (hlo_source.h, as neuron_json.c), tensor_instruction_type
 *                          →type, the eight byte counts, operands, adjusted_flops, pc, kernel_instruction_name;
 *                          flag DMA trigger = compiler_opcode PSEUDO_DMA_* or opcode DMA_* (as neuron_json.c)
 *   DmaPacket            → dma packets: start_ts, duration_ns, id, packet_aggregation_id, transfer_bytes,
 *                          queue_name→queue, queue_type, engine_idx→dma_engine, queue_idx→dma_queue, variable
 *                          (no column holds the JSON `subgroup` "<queue>-Q<n>-E<n>": it stays "")
 *   DmaPacketAggregated  → dma rows flagged DM_DMA_F_AGGREGATED, plus source and dest
 *   ActiveTime           → active_time (engine lowercased); SemaphoreUpdate → semaphore_update;
 *   Warning              → warnings; Flow, TensorInfo, CcOp, CcInstruction, OpcodeSummary, SchemaFields,
 *                          SystemProfileEvents, KernelInstructions, KernelStackFrames → the tables of the same
 *                          names (device_model.h), column for column
 *   ThrottleSummary      → Summary keys throttle_<type>_active_time_nc<N>_percent / _ns (ep_read_throttle)
 *   Summary, Metadata, NeffHeader → the singleton records, every column of the first row (null = absent);
 *                          Summary `*_percent` read as fractions, or divided by 100 when any value exceeds 1
 *                          (mbu_min_read_util and avg_util_limit may exceed 1 as fractions: not evidence)
 *
 * Values convert by the model column's kind, whatever the file's physical type: integers from INT32/INT64,
 * integral doubles, booleans or digit strings; strings from byte arrays (or numbers, as their text). Nulls
 * leave the column's default (0, "", or -1 for indices). Byte counts must not be negative; ids keep their
 * 64 bits. Device times are shifted by Metadata.first_hw_timestamp (device_model_finish) unless they are
 * already relative to it: a time earlier than first_hw_timestamp cannot be absolute, so then nothing is
 * shifted (device_model_finish_relative, DEVICE_MODEL_NOTE_TIMES_RELATIVE).
 *
 * Speed: strings of a dictionary-encoded chunk are interned once per dictionary entry (an id map), not per
 * row; other string chunks reuse the previous row's id when the bytes repeat. Rows are converted column by
 * column into a batch of EXPLORER_PARQUET_BATCH rows, then appended. */
#include "explorer_parquet.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hlo_source.h"
#include "parquet.h"
#include "strtab.h"

/* ---- table specs -------------------------------------------------------------------------------------- */

enum ep_action {
    EP_COL,          /* convert to the model column's kind */
    EP_ID,           /* int64 → UINT keeping the 64 bits (ids above 2^63 arrive negative) */
    EP_ENGINE_CAP,   /* string, capitalised engine name */
    EP_ENGINE_LOWER, /* string, lowercased */
    EP_SRC_NKI,      /* instruction source candidates, in order of preference (ep_source_slot) */
    EP_SRC_BIR,
    EP_SRC_HLO,      /* hlo_attrs JSON text: source_file:source_line (hlo_source.h), as the JSON reader */
    EP_JOIN,         /* list<string> joined with ',' */
    EP_IGNORE,       /* known, not modelled (never read) */
};

#define EP_SOURCES 3 /* EP_SRC_NKI .. EP_SRC_HLO */

typedef struct ep_field {
    const char *name;
    uint8_t action;
    uint8_t col;
} ep_field;

static bool ep_is_source(const ep_field *f)
{
    return f->action >= EP_SRC_NKI && f->action <= EP_SRC_HLO;
}

#define EP_C(n, c) {n, EP_COL, c}
#define EP_X(n) {n, EP_IGNORE, 0}
#define EP_RECORD 0x100 /* spec target: EP_RECORD + device_model_record */
#define EP_THROTTLE 0x200 /* spec target: ThrottleSummary rows → Summary keys (ep_read_throttle) */
#define EP_THROTTLE_ROWS_MAX 65536u /* (core, throttle type) rows read: a real table has a few dozen */
#define EP_FIELDS_MAX 64u

static const ep_field ep_instr_fields[] = {
    EP_C("start_ts", DM_INSTR_TIMESTAMP), EP_C("duration_ns", DM_INSTR_DURATION),
    EP_C("evt_wait_time_ns", DM_INSTR_EVT_WAIT), {"id", EP_ID, DM_INSTR_ID},
    {"engine", EP_ENGINE_CAP, DM_INSTR_ENGINE}, EP_C("timeline_track", DM_INSTR_LABEL),
    EP_C("opcode", DM_INSTR_OPCODE), EP_C("compiler_opcode", DM_INSTR_COMPILER_OPCODE), EP_C("layer", DM_INSTR_LAYER),
    EP_C("hlo_name", DM_INSTR_HLO_NAME), {"nki_source_location", EP_SRC_NKI, 0},
    {"bir_debug_info_source_location", EP_SRC_BIR, 0}, EP_C("tensor_instruction_type", DM_INSTR_TYPE),
    EP_C("hbm_read_bytes", DM_INSTR_HBM_READ), EP_C("hbm_write_bytes", DM_INSTR_HBM_WRITE),
    EP_C("sbuf_read_bytes", DM_INSTR_SBUF_READ), EP_C("sbuf_write_bytes", DM_INSTR_SBUF_WRITE),
    EP_C("psum_read_bytes", DM_INSTR_PSUM_READ), EP_C("psum_write_bytes", DM_INSTR_PSUM_WRITE),
    EP_C("spill_save_bytes", DM_INSTR_SPILL_SAVE), EP_C("spill_reload_bytes", DM_INSTR_SPILL_RELOAD),
    EP_C("operands", DM_INSTR_OPERANDS), EP_C("adjusted_flops", DM_INSTR_ADJUSTED_FLOPS), EP_C("pc", DM_INSTR_PC),
    EP_C("kernel_instruction_name", DM_INSTR_KERNEL_NAME),
    EP_X("end_ts"), EP_X("pcore_idx"), EP_X("compiler_operands"), EP_X("compiler_pc"), EP_X("penguin_id"),
    EP_X("raw_penguin_id"), EP_X("bir_id"), EP_X("raw_bir_id"), EP_X("bir_instruction_name"), EP_X("crc_in"),
    EP_X("crc_out"), {"hlo_attrs", EP_SRC_HLO, 0}, EP_X("raw_hlo_id"), EP_X("raw_framework_id"), EP_X("stack_frame_ids"),
    EP_X("dma_trigger_start_ts"), EP_X("dma_trigger_end_ts"), EP_X("dma_wait_time_ns"), EP_X("instruction_chain"),
    EP_X("psum_read_sbuf_write_bytes"), EP_X("input_queue_bytes"), EP_X("output_queue_bytes"),
    EP_X("weight_queue_bytes"), EP_X("performance_mode"), EP_X("tensor_elements"), EP_X("raw_flops"),
    EP_X("tensor_elements_transpose"), EP_X("flops_transpose"), EP_X("adjusted_flops_transpose"),
    EP_X("scalar_activation_fn"),
};

static const ep_field ep_packet_fields[] = {
    EP_C("start_ts", DM_DMA_TIMESTAMP), EP_C("duration_ns", DM_DMA_DURATION), {"id", EP_ID, DM_DMA_ID},
    {"packet_aggregation_id", EP_ID, DM_DMA_AGG_ID}, EP_C("transfer_bytes", DM_DMA_TRANSFER_SIZE),
    EP_C("queue_name", DM_DMA_QUEUE), EP_C("queue_type", DM_DMA_QUEUE_TYPE), EP_C("engine_idx", DM_DMA_ENGINE),
    EP_C("queue_idx", DM_DMA_QUEUE_IDX), EP_C("variable", DM_DMA_VARIABLE),
    EP_X("end_ts"), EP_X("pcore_idx"), EP_X("packet_idx"), EP_X("read_bytes"), EP_X("write_bytes"),
    EP_X("throughput"), EP_X("crc"),
};

static const ep_field ep_aggregated_fields[] = {
    EP_C("start_ts", DM_DMA_TIMESTAMP), EP_C("duration_ns", DM_DMA_DURATION), {"id", EP_ID, DM_DMA_ID},
    EP_C("transfer_bytes", DM_DMA_TRANSFER_SIZE), EP_C("queue_name", DM_DMA_QUEUE),
    EP_C("queue_type", DM_DMA_QUEUE_TYPE), EP_C("queue_idx", DM_DMA_QUEUE_IDX), EP_C("variable", DM_DMA_VARIABLE),
    EP_C("source", DM_DMA_SOURCE), EP_C("dest", DM_DMA_DEST),
    EP_X("end_ts"), EP_X("pcore_idx"), EP_X("block_id"), EP_X("op"), EP_X("read_bytes"), EP_X("write_bytes"),
    EP_X("throughput"), EP_X("semaphore_id"), EP_X("modular_flow_function"), EP_X("read_sbuf_partitions"),
    EP_X("read_num_sbuf_partitions"), EP_X("read_shape"), EP_X("read_offset"), EP_X("read_steps"),
    EP_X("write_sbuf_partitions"), EP_X("write_num_sbuf_partitions"), EP_X("write_shape"), EP_X("write_offset"),
    EP_X("write_steps"), EP_X("is_transpose_mode"), EP_X("transpose_element_size"), EP_X("transpose_shape"),
    EP_X("transpose_from_shape"), EP_X("transpose_to_shape"), EP_X("transpose_unroll_factor"), EP_X("trigger"),
    EP_X("completion"),
};

static const ep_field ep_active_fields[] = {
    {"engine", EP_ENGINE_LOWER, DM_ACTIVE_ENGINE}, EP_C("start_ts", DM_ACTIVE_START),
    EP_C("end_ts", DM_ACTIVE_END), EP_C("duration_ns", DM_ACTIVE_DURATION), EP_C("pcore_idx", DM_ACTIVE_PCORE),
};

/* SemaphoreUpdate: 9 columns in schema 7.4.0 whose names are not documented; the first name found wins. */
static const ep_field ep_sem_fields[] = {
    EP_C("semaphore_id", DM_SEM_ID), EP_C("id", DM_SEM_ID), EP_C("semaphore_name", DM_SEM_ID),
    EP_C("name", DM_SEM_ID), EP_C("value", DM_SEM_VALUE), EP_C("timestamp", DM_SEM_TIMESTAMP),
    EP_C("start_ts", DM_SEM_TIMESTAMP), EP_C("ts", DM_SEM_TIMESTAMP),
    EP_X("end_ts"), EP_X("duration_ns"), EP_X("pcore_idx"), EP_X("timeline_track"),
};

static const ep_field ep_warn_fields[] = {
    EP_C("message", DM_WARN_MESSAGE), EP_C("category", DM_WARN_CATEGORY),
};

static const ep_field ep_flow_fields[] = {
    {"in_id", EP_ID, DM_FLOW_IN_ID}, {"out_id", EP_ID, DM_FLOW_OUT_ID}, EP_C("in_table", DM_FLOW_IN_TABLE),
    EP_C("out_table", DM_FLOW_OUT_TABLE), EP_C("dependency_type", DM_FLOW_TYPE), EP_C("gap_time", DM_FLOW_GAP),
};

static const ep_field ep_tensor_fields[] = {
    EP_C("variable_name", DM_TENSOR_NAME), EP_C("type", DM_TENSOR_TYPE), EP_C("format", DM_TENSOR_FORMAT),
    EP_C("shape", DM_TENSOR_SHAPE), EP_C("size", DM_TENSOR_SIZE), EP_C("node", DM_TENSOR_NODE),
    EP_C("pcore_idx", DM_TENSOR_PCORE), EP_C("load_to_sbuf_avg_size_bytes", DM_TENSOR_LOAD_AVG),
    EP_C("load_to_sbuf_total_size_bytes", DM_TENSOR_LOAD_TOTAL),
    EP_C("load_to_sbuf_dma_count", DM_TENSOR_LOAD_COUNT), EP_C("load_to_sbuf_repeat_factor", DM_TENSOR_REPEAT),
};

static const ep_field ep_ccop_fields[] = {
    EP_C("start_ts", DM_CCOP_START), EP_C("end_ts", DM_CCOP_END), EP_C("duration_ns", DM_CCOP_DURATION),
    EP_C("operation", DM_CCOP_OPERATION), EP_C("algorithm", DM_CCOP_ALGORITHM),
    EP_C("num_elements", DM_CCOP_ELEMENTS), EP_C("dtype", DM_CCOP_DTYPE), EP_C("op_id", DM_CCOP_OP_ID),
    EP_C("stream_id", DM_CCOP_STREAM_ID), EP_C("stream_index", DM_CCOP_STREAM_INDEX),
    EP_C("trigger_engine", DM_CCOP_TRIGGER_ENGINE), EP_C("input_size", DM_CCOP_INPUT_SIZE),
    EP_C("output_size", DM_CCOP_OUTPUT_SIZE), EP_C("algorithm_bandwidth", DM_CCOP_ALGO_BW),
    EP_C("bus_bandwidth", DM_CCOP_BUS_BW), EP_C("trigger_start_ts", DM_CCOP_TRIGGER_START),
    EP_C("cc_trigger_start_delay", DM_CCOP_TRIGGER_DELAY), EP_C("replica_group_id", DM_CCOP_REPLICA_GROUP_ID),
    EP_C("replica_group", DM_CCOP_REPLICA_GROUP),
};

static const ep_field ep_cci_fields[] = {
    EP_C("start_ts", DM_CCI_START), EP_C("end_ts", DM_CCI_END), EP_C("duration_ns", DM_CCI_DURATION),
    EP_C("core_idx", DM_CCI_CORE), EP_C("description", DM_CCI_DESCRIPTION),
    EP_C("trigger_engine", DM_CCI_TRIGGER_ENGINE), EP_C("trigger_start_ts", DM_CCI_TRIGGER_START),
};

static const ep_field ep_opsum_fields[] = {
    {"engine", EP_ENGINE_LOWER, DM_OPSUM_ENGINE}, EP_C("opcode", DM_OPSUM_OPCODE),
    EP_C("instruction_count", DM_OPSUM_COUNT), EP_C("instruction_time_ns", DM_OPSUM_INSTR_TIME),
    EP_C("active_time_ns", DM_OPSUM_ACTIVE_TIME), EP_C("active_time_percent", DM_OPSUM_ACTIVE_PERCENT),
};

static const ep_field ep_schema_fields[] = {
    EP_C("table_name", DM_SCHEMA_TABLE), EP_C("table_description", DM_SCHEMA_TABLE_DESC),
    EP_C("field_name", DM_SCHEMA_FIELD), EP_C("field_description", DM_SCHEMA_FIELD_DESC),
    EP_C("field_example", DM_SCHEMA_EXAMPLE), EP_C("field_type", DM_SCHEMA_TYPE),
    EP_C("field_required", DM_SCHEMA_REQUIRED), EP_C("field_format", DM_SCHEMA_FORMAT),
    EP_C("field_unit", DM_SCHEMA_UNIT), EP_C("field_minimum", DM_SCHEMA_MIN), EP_C("field_maximum", DM_SCHEMA_MAX),
    EP_C("field_enum_values", DM_SCHEMA_ENUM),
};

static const ep_field ep_sysev_fields[] = {
    EP_C("id", DM_SYSEV_ID), EP_C("name", DM_SYSEV_NAME), EP_C("start_ts", DM_SYSEV_START),
    EP_C("end_ts", DM_SYSEV_END), EP_C("duration_ns", DM_SYSEV_DURATION),
    EP_C("trace_event_source", DM_SYSEV_SOURCE), EP_C("instance_id", DM_SYSEV_INSTANCE),
    EP_C("process_id", DM_SYSEV_PROCESS), EP_C("thread_id", DM_SYSEV_THREAD), EP_C("nc_idx", DM_SYSEV_NC),
    EP_C("pcore_idx", DM_SYSEV_PCORE), EP_C("worker_gid", DM_SYSEV_WORKER),
    {"flow_id", EP_JOIN, DM_SYSEV_FLOW_IDS}, EP_C("framework_stream_id", DM_SYSEV_STREAM),
    EP_C("extra_attributes_json", DM_SYSEV_ATTRS),
};

static const ep_field ep_kinstr_fields[] = {
    EP_C("kernel_instruction_name", DM_KINSTR_NAME), EP_C("stack_frame_id", DM_KINSTR_FRAME),
    EP_C("stack_frame_depth", DM_KINSTR_FRAME_DEPTH), EP_C("iteration_variables_id", DM_KINSTR_ITER_VARS),
    EP_C("iteration_variable_depth", DM_KINSTR_ITER_DEPTH), EP_C("pcore_idx", DM_KINSTR_PCORE),
    EP_C("file_path", DM_KINSTR_FILE), EP_C("line_number", DM_KINSTR_LINE),
};

static const ep_field ep_kframe_fields[] = {
    EP_C("stack_frame_id", DM_KFRAME_ID), EP_C("fully_qualified_function_name", DM_KFRAME_FUNCTION),
    EP_C("parent_stack_frame_id", DM_KFRAME_PARENT), EP_C("pcore_idx", DM_KFRAME_PCORE),
    EP_C("file_path", DM_KFRAME_FILE), EP_C("line_number", DM_KFRAME_LINE),
};

typedef struct ep_spec {
    const char *name;
    int target; /* device_model_table, or EP_RECORD + device_model_record */
    const ep_field *fields;
    size_t nfields;
    uint64_t flags; /* DM_DMA_F_* set on every row */
} ep_spec;

/* ThrottleSummary's columns (formats.md §7.3); the last is known but not read (no Summary key holds it). */
static const ep_field ep_throttle_fields[] = {
    EP_X("nc_idx"), EP_X("throttle_type"), EP_X("throttle_active_time_ns"), EP_X("throttle_active_time_percent"),
    EP_X("max_achievable_util_with_throttling_percent"),
};

#define EP_SPEC(n, t, f, fl) {n, t, f, sizeof f / sizeof f[0], fl}
#define EP_REC(n, r) {n, EP_RECORD + (r), NULL, 0, 0}

/* In read order: records first (nothing depends on it, but errors then name them first). */
static const ep_spec ep_specs[] = {
    EP_REC("Metadata", DEVICE_MODEL_METADATA),
    EP_REC("NeffHeader", DEVICE_MODEL_NEFF_HEADER),
    EP_REC("Summary", DEVICE_MODEL_SUMMARY),
    EP_SPEC("ThrottleSummary", EP_THROTTLE, ep_throttle_fields, 0), /* after Summary: uses its percent scale */
    EP_SPEC("Instruction", DEVICE_MODEL_INSTRUCTIONS, ep_instr_fields, 0),
    EP_SPEC("DmaPacket", DEVICE_MODEL_DMA, ep_packet_fields, 0),
    EP_SPEC("DmaPacketAggregated", DEVICE_MODEL_DMA, ep_aggregated_fields, DM_DMA_F_AGGREGATED),
    EP_SPEC("ActiveTime", DEVICE_MODEL_ACTIVE_TIME, ep_active_fields, 0),
    EP_SPEC("SemaphoreUpdate", DEVICE_MODEL_SEMAPHORES, ep_sem_fields, 0),
    EP_SPEC("Warning", DEVICE_MODEL_WARNINGS, ep_warn_fields, 0),
    EP_SPEC("Flow", DEVICE_MODEL_FLOW, ep_flow_fields, 0),
    EP_SPEC("TensorInfo", DEVICE_MODEL_TENSOR_INFO, ep_tensor_fields, 0),
    EP_SPEC("CcOp", DEVICE_MODEL_CC_OPS, ep_ccop_fields, 0),
    EP_SPEC("CcInstruction", DEVICE_MODEL_CC_INSTRUCTIONS, ep_cci_fields, 0),
    EP_SPEC("OpcodeSummary", DEVICE_MODEL_OPCODE_SUMMARY, ep_opsum_fields, 0),
    EP_SPEC("SchemaFields", DEVICE_MODEL_SCHEMA_FIELDS, ep_schema_fields, 0),
    EP_SPEC("SystemProfileEvents", DEVICE_MODEL_SYSTEM_EVENTS, ep_sysev_fields, 0),
    EP_SPEC("KernelInstructions", DEVICE_MODEL_KERNEL_INSTRUCTIONS, ep_kinstr_fields, 0),
    EP_SPEC("KernelStackFrames", DEVICE_MODEL_KERNEL_STACK_FRAMES, ep_kframe_fields, 0),
};
#define EP_NSPECS (sizeof ep_specs / sizeof ep_specs[0])

#define EP_FITS(a) _Static_assert(sizeof a / sizeof a[0] <= EP_FIELDS_MAX, #a " has too many fields")
EP_FITS(ep_instr_fields);
EP_FITS(ep_aggregated_fields);

/* Every table of schema 7.4.0 (§7.2): a directory holding any of them is a profile. */
static const char *const ep_known_tables[] = {
    "Instruction", "DmaPacket", "DmaPacketAggregated", "CcOp", "CcInstruction", "SemaphoreUpdate",
    "CoreBarriers", "Throttle", "Error", "SbufAllocation", "DmaUsage", "HbmUsage", "SbufUsage", "PsumUsage",
    "PendingDma", "CpuUsage", "HostMemUsage", "SystemProfileHbmUsage", "Flow", "FrameworkNode",
    "FrameworkInstruction", "HloInstruction", "PenguinInstruction", "BirInstruction", "Summary", "OpcodeSummary",
    "ActiveTime", "ThrottleSummary", "DmaUsageSummary", "HbmUsageSummaryByType", "DmaQueuesInfo", "TensorInfo",
    "AssemblyInstruction", "KernelInstructions", "KernelIterationVariables", "KernelStackFrames", "StackFrame",
    "StackFrameFileLocation", "StackFrameFileName", "StackFrameFunctionName", "CcStream", "Metadata",
    "NeffHeader", "ExecutionInfo", "DeviceProfileList", "SystemProfileMetadata", "SystemProfileEvents",
    "SchemaFields", "Warning",
};

static const ep_spec *ep_spec_find(const char *name)
{
    for (size_t i = 0; i < EP_NSPECS; i++)
        if (strcmp(ep_specs[i].name, name) == 0)
            return &ep_specs[i];
    return NULL;
}

static bool ep_spec_knows(const ep_spec *s, const char *column)
{
    if (s->target >= EP_RECORD && s->target < EP_THROTTLE)
        return true; /* records keep every column */
    for (size_t i = 0; i < s->nfields; i++)
        if (strcmp(s->fields[i].name, column) == 0)
            return true;
    return false;
}

/* ---- inventory ---------------------------------------------------------------------------------------- */

typedef struct ep_table_store {
    explorer_parquet_table pub;
    char *name;
    char **paths;
    char **unknown;
    size_t unknown_cap;
    char **columns; /* top-level names seen (union) */
    size_t ncolumns, columns_cap;
} ep_table_store;

struct explorer_parquet_inventory {
    ep_table_store *tables;
    size_t n;
    char schema_version[64];
    explorer_parquet_percent percent;
    char evidence[96];
    bool times_relative;
};

void explorer_parquet_inventory_free(explorer_parquet_inventory *inv)
{
    if (!inv)
        return;
    for (size_t i = 0; i < inv->n; i++) {
        ep_table_store *t = &inv->tables[i];
        for (size_t k = 0; k < t->pub.files; k++)
            free(t->paths[k]);
        for (size_t k = 0; k < t->pub.unknown_count; k++)
            free(t->unknown[k]);
        for (size_t k = 0; k < t->ncolumns; k++)
            free(t->columns[k]);
        free(t->paths);
        free(t->unknown);
        free(t->columns);
        free(t->name);
    }
    free(inv->tables);
    free(inv);
}

size_t explorer_parquet_table_count(const explorer_parquet_inventory *inv)
{
    return inv->n;
}

const explorer_parquet_table *explorer_parquet_table_at(const explorer_parquet_inventory *inv, size_t i)
{
    return i < inv->n ? &inv->tables[i].pub : NULL;
}

const explorer_parquet_table *explorer_parquet_table_find(const explorer_parquet_inventory *inv, const char *name)
{
    for (size_t i = 0; i < inv->n; i++)
        if (strcmp(inv->tables[i].name, name) == 0)
            return &inv->tables[i].pub;
    return NULL;
}

const char *explorer_parquet_schema_version(const explorer_parquet_inventory *inv)
{
    return inv->schema_version;
}

explorer_parquet_percent explorer_parquet_summary_percent(const explorer_parquet_inventory *inv, const char **evidence)
{
    if (evidence)
        *evidence = inv->evidence;
    return inv->percent;
}

bool explorer_parquet_times_relative(const explorer_parquet_inventory *inv)
{
    return inv->times_relative;
}

/* A directory entry that names a table part: the table's name and the part number (-1 for no suffix). */
typedef struct ep_entry {
    char tname[EXPLORER_PARQUET_NAME_MAX];
    long long part;
    char *file;
} ep_entry;

/* `name` is <Table>[_<digits>].parquet with <Table> = a letter then letters, digits or '_'. */
static bool ep_parse_name(const char *name, ep_entry *e)
{
    size_t len = strlen(name);
    if (len <= 8 || strcmp(name + len - 8, ".parquet") != 0)
        return false;
    size_t base = len - 8;
    if (!((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z')))
        return false;
    for (size_t i = 0; i < base; i++) {
        char c = name[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    size_t d = base;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    e->part = -1;
    size_t tlen = base;
    if (d < base && d > 1 && name[d - 1] == '_' && base - d <= 9) {
        e->part = strtoll(name + d, NULL, 10);
        tlen = d - 1;
    }
    if (tlen >= EXPLORER_PARQUET_NAME_MAX)
        return false;
    memcpy(e->tname, name, tlen);
    e->tname[tlen] = '\0';
    return true;
}

static int ep_entry_cmp(const void *a, const void *b)
{
    const ep_entry *x = a, *y = b;
    int c = strcmp(x->tname, y->tname);
    if (c)
        return c;
    if (x->part != y->part)
        return x->part < y->part ? -1 : 1;
    return strcmp(x->file, y->file);
}

static char *ep_join(const char *dir, const char *file)
{
    size_t a = strlen(dir), b = strlen(file);
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, file, b + 1);
    }
    return p;
}

static bool ep_is_file(const char *dir, const struct dirent *de)
{
#ifdef DT_REG
    if (de->d_type == DT_REG)
        return true;
    if (de->d_type != DT_UNKNOWN && de->d_type != DT_LNK)
        return false;
#endif
    char *p = ep_join(dir, de->d_name);
    struct stat st;
    bool ok = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    return ok;
}

static void ep_entries_free(ep_entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].file);
    free(v);
}

/* The table parts in `dir`, sorted by table then part. */
static int ep_list_dir(const char *dir, ep_entry **out, size_t *count, nl_error *err)
{
    *out = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return nl_error_set(err, errno == ENOENT ? NL_ERR_NOT_FOUND : NL_ERR_IO, dir, -1, "cannot open the directory: %s",
                            strerror(errno));
    ep_entry *v = NULL;
    size_t n = 0, cap = 0, seen = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (++seen > EXPLORER_PARQUET_ENTRIES_MAX) {
            rc = nl_error_set(err, NL_ERR_LIMIT, dir, -1, "more than %u directory entries", EXPLORER_PARQUET_ENTRIES_MAX);
            break;
        }
        ep_entry e;
        if (!ep_parse_name(de->d_name, &e) || !ep_is_file(dir, de))
            continue;
        if (n == cap) {
            size_t c = cap ? cap * 2 : 32;
            ep_entry *nv = realloc(v, c * sizeof *nv);
            if (!nv) {
                rc = nl_error_set(err, NL_ERR_NOMEM, dir, -1, "out of memory listing the directory");
                break;
            }
            v = nv;
            cap = c;
        }
        e.file = ep_join(dir, de->d_name);
        if (!e.file) {
            rc = nl_error_set(err, NL_ERR_NOMEM, dir, -1, "out of memory listing the directory");
            break;
        }
        v[n++] = e;
    }
    closedir(d);
    if (rc != 0) {
        ep_entries_free(v, n);
        return -1;
    }
    if (n)
        qsort(v, n, sizeof *v, ep_entry_cmp);
    *out = v;
    *count = n;
    return 0;
}

bool explorer_parquet_is_profile_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    size_t seen = 0;
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL && ++seen <= EXPLORER_PARQUET_ENTRIES_MAX) {
        ep_entry e;
        if (!ep_parse_name(de->d_name, &e))
            continue;
        for (size_t i = 0; i < sizeof ep_known_tables / sizeof ep_known_tables[0]; i++)
            if (strcmp(e.tname, ep_known_tables[i]) == 0)
                found = ep_is_file(dir, de);
    }
    closedir(d);
    return found;
}

static int ep_add_name(char ***v, size_t *n, size_t *cap, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i], s) == 0)
            return 0;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        char **nv = realloc(*v, c * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = c;
    }
    if (!((*v)[*n] = strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

/* Footer facts of one part: rows, bytes, top-level columns (and those a modelled table does not know). */
static int ep_inventory_part(ep_table_store *t, const ep_spec *spec, const char *path, nl_error *err)
{
    parquet_file *pf;
    if (parquet_open(path, &pf, err) != 0)
        return -1;
    t->pub.rows += (uint64_t)parquet_rows(pf);
    t->pub.bytes += parquet_file_size(pf);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < parquet_columns(pf); i++) {
        const char *name = parquet_column(pf, i)->name;
        rc = ep_add_name(&t->columns, &t->ncolumns, &t->columns_cap, name);
        if (rc == 0 && spec && !ep_spec_knows(spec, name))
            rc = ep_add_name(&t->unknown, &t->pub.unknown_count, &t->unknown_cap, name);
    }
    parquet_close(pf);
    if (rc != 0)
        return nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory listing columns");
    return 0;
}

/* Metadata.profile_schema_version of the first Metadata part, when it is a string column. */
static void ep_schema_version(explorer_parquet_inventory *inv)
{
    const explorer_parquet_table *t = explorer_parquet_table_find(inv, "Metadata");
    parquet_file *pf;
    nl_error ignored;
    if (!t || !t->files || parquet_open(t->paths[0], &pf, &ignored) != 0)
        return;
    long col = parquet_find_column(pf, "profile_schema_version");
    parquet_chunk c;
    parquet_chunk_init(&c);
    for (size_t g = 0; col >= 0 && g < parquet_row_groups(pf); g++) {
        if (parquet_row_group_rows(pf, g) == 0)
            continue;
        if (parquet_column(pf, (size_t)col)->type == PARQUET_BYTE_ARRAY &&
            parquet_read_chunk(pf, g, (size_t)col, PARQUET_WANT_BYTES, &c, &ignored) == 0 && c.count > 0) {
            parquet_bytes b = parquet_chunk_bytes(&c, 0);
            size_t n = b.len < sizeof inv->schema_version - 1 ? b.len : sizeof inv->schema_version - 1;
            memcpy(inv->schema_version, b.ptr, n);
            inv->schema_version[n] = '\0';
        }
        break;
    }
    parquet_chunk_close(&c);
    parquet_close(pf);
}

int explorer_parquet_inventory_read(const char *dir, const explorer_parquet_options *opt,
                                    explorer_parquet_inventory **out, nl_error *err)
{
    (void)opt;
    *out = NULL;
    ep_entry *v;
    size_t n;
    if (ep_list_dir(dir, &v, &n, err) != 0)
        return -1;
    explorer_parquet_inventory *inv = calloc(1, sizeof *inv);
    if (!inv || (n && !(inv->tables = calloc(n, sizeof *inv->tables)))) {
        free(inv);
        ep_entries_free(v, n);
        return nl_error_set(err, NL_ERR_NOMEM, dir, -1, "out of memory for the table list");
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t j = i;
        while (j < n && strcmp(v[j].tname, v[i].tname) == 0)
            j++;
        if (j - i > EXPLORER_PARQUET_PARTS_MAX) {
            rc = nl_error_set(err, NL_ERR_LIMIT, v[i].file, -1, "table %s has more than %u parts", v[i].tname,
                              EXPLORER_PARQUET_PARTS_MAX);
            break;
        }
        ep_table_store *t = &inv->tables[inv->n++];
        const ep_spec *spec = ep_spec_find(v[i].tname);
        t->name = strdup(v[i].tname);
        t->paths = calloc(j - i, sizeof *t->paths);
        if (!t->name || !t->paths) {
            rc = nl_error_set(err, NL_ERR_NOMEM, dir, -1, "out of memory for the table list");
            break;
        }
        t->pub.name = t->name;
        t->pub.modelled = spec != NULL;
        for (size_t k = i; k < j; k++) {
            t->paths[t->pub.files++] = v[k].file;
            v[k].file = NULL;
        }
        t->pub.paths = (const char *const *)t->paths;
        for (size_t k = 0; rc == 0 && k < t->pub.files; k++)
            rc = ep_inventory_part(t, spec, t->paths[k], err);
        t->pub.columns = t->ncolumns;
        t->pub.unknown = (const char *const *)t->unknown;
        i = j;
    }
    ep_entries_free(v, n);
    if (rc != 0) {
        explorer_parquet_inventory_free(inv);
        return -1;
    }
    ep_schema_version(inv);
    *out = inv;
    return 0;
}

/* ---- the reader --------------------------------------------------------------------------------------- */

/* One mapped column of the part being read. */
typedef struct ep_res {
    const ep_field *f;
    long col; /* leaf index in the part */
    parquet_want want;
    /* strings of a dictionary-encoded chunk: dict entry → strtab id, interned when the chunk arrives */
    uint32_t *map;
    size_t map_cap;
    /* the previous row's string, for runs */
    const uint8_t *last_ptr;
    size_t last_len;
    uint32_t last_id;
} ep_res;

typedef struct ep_reader {
    device_model *m;
    strtab *strings;
    const explorer_parquet_options *opt;
    nl_error *err;
    explorer_parquet_inventory *inv;
    /* the part being read */
    const ep_spec *spec;
    const char *path;
    parquet_file *pf;
    device_model_table target;
    uint32_t ncols;
    uint8_t kinds[TABLE_COLUMNS_MAX];
    table_value defaults[TABLE_COLUMNS_MAX];
    ep_res res[EP_FIELDS_MAX];
    size_t nres;
    bool sourced[TABLE_COLUMNS_MAX]; /* model columns some resolved file column writes on every row */
    uint64_t row0;   /* table rows appended before this row group (errors) */
    uint64_t rows;   /* table rows appended so far */
    size_t rg;
    /* batch */
    table_value *batch;
    uint32_t *src[EP_SOURCES]; /* per batch row, strtab ids of each source candidate (0 = none) */
    hlo_source *hlo;           /* hlo_attrs → location; created on first use */
    /* strtab id → DMA-trigger verdict (0 unknown, 1 no, 2 yes) */
    uint8_t *trigger;
    size_t trigger_cap;
    char *tmp;
    size_t tmp_cap;
} ep_reader;

static int ep_fail(ep_reader *r, nl_error_code code, const ep_res *res, size_t row, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A mapping error at `row` of the current row group: file, chunk offset, field "<Table>.<column>",
 * record = the row within the table. */
static int ep_fail(ep_reader *r, nl_error_code code, const ep_res *res, size_t row, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int64_t offset = res && r->pf ? (int64_t)parquet_chunk_offset(r->pf, r->rg, (size_t)res->col) : -1;
    nl_error_set(r->err, code, r->path, offset, "%s.%s, row group %zu, row %zu: %s", r->spec->name,
                 res ? res->f->name : "", r->rg, row, msg);
    char field[NL_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "%.30s.%.32s", r->spec->name, res ? res->f->name : "");
    nl_error_set_field(r->err, field);
    nl_error_set_record(r->err, (int64_t)(r->row0 + row));
    return -1;
}

static int ep_tmp(ep_reader *r, size_t n)
{
    if (n <= r->tmp_cap)
        return 0;
    size_t cap = r->tmp_cap ? r->tmp_cap : 256;
    while (cap < n)
        cap *= 2;
    char *p = realloc(r->tmp, cap);
    if (!p)
        return -1;
    r->tmp = p;
    r->tmp_cap = cap;
    return 0;
}

/* ---- strings ---- */

/* Engine names as the instruction table writes them (formats.md §7.1). */
static const char *const ep_engine_caps[] = {"Tensor", "TensorMatrix", "Vector", "Scalar", "GpSimd", "Sync"};

static int ep_intern(ep_reader *r, const ep_res *res, const uint8_t *s, size_t len, uint32_t *id)
{
    char buf[64];
    if (res->f->action == EP_ENGINE_CAP && len < sizeof buf) {
        for (size_t i = 0; i < sizeof ep_engine_caps / sizeof ep_engine_caps[0]; i++)
            if (strlen(ep_engine_caps[i]) == len && strncasecmp(ep_engine_caps[i], (const char *)s, len) == 0) {
                s = (const uint8_t *)ep_engine_caps[i];
                break;
            }
    } else if (res->f->action == EP_ENGINE_LOWER && len < sizeof buf) {
        for (size_t i = 0; i < len; i++)
            buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
        s = (const uint8_t *)buf;
    }
    return strtab_intern(r->strings, (const char *)s, len, id, r->err);
}

/* The strtab id of slot `slot` of a BYTES chunk. */
static int ep_str_at(ep_reader *r, ep_res *res, const parquet_chunk *c, size_t slot, uint32_t *id)
{
    if (c->dict_index) {
        *id = res->map[c->dict_index[slot]];
        return 0;
    }
    parquet_bytes b = c->bytes[slot];
    if (res->last_ptr && res->last_len == b.len && memcmp(res->last_ptr, b.ptr, b.len) == 0) {
        *id = res->last_id;
        return 0;
    }
    if (ep_intern(r, res, b.ptr, b.len, id) != 0)
        return -1;
    res->last_ptr = b.ptr;
    res->last_len = b.len;
    res->last_id = *id;
    return 0;
}

/* Shortest decimal text that reads back as v (as a float when `single`). */
static int ep_double_text(double v, bool single, char *buf, size_t cap)
{
    for (int p = 1; p <= 17; p++) {
        int n = snprintf(buf, cap, "%.*g", p, v);
        if (single ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            return n;
    }
    return snprintf(buf, cap, "%.17g", v);
}

/* A number or boolean cell as text (a string column fed by a numeric column). */
static int ep_number_text(const parquet_chunk *c, size_t slot, char *buf, size_t cap)
{
    switch (c->want) {
    case PARQUET_WANT_I64: return snprintf(buf, cap, "%lld", (long long)c->i64[slot]);
    case PARQUET_WANT_F64: return ep_double_text(c->f64[slot], c->column->type == PARQUET_FLOAT, buf, cap);
    case PARQUET_WANT_BOOL: return snprintf(buf, cap, "%s", c->b[slot] ? "true" : "false");
    default: return snprintf(buf, cap, "?");
    }
}

/* ---- numbers ---- */

/* An integer from a string cell: optional '-', 1..19 digits, nothing else. */
static bool ep_parse_int(const uint8_t *s, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = len > 0 && s[0] == '-';
    i = neg;
    if (len - i == 0 || len - i > 19)
        return false;
    uint64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

static int ep_cell_int(ep_reader *r, const ep_res *res, const parquet_chunk *c, size_t slot, int64_t *out)
{
    switch (c->want) {
    case PARQUET_WANT_I64: *out = c->i64[slot]; return 0;
    case PARQUET_WANT_BOOL: *out = c->b[slot]; return 0;
    case PARQUET_WANT_F64: {
        double d = c->f64[slot];
        if (isfinite(d) && d > -9.2e18 && d < 9.2e18) {
            *out = llround(d);
            return 0;
        }
        return ep_fail(r, NL_ERR_FORMAT, res, slot, "%g is not an integer in the int64 range", d);
    }
    case PARQUET_WANT_BYTES: {
        parquet_bytes b = parquet_chunk_bytes(c, slot);
        if (ep_parse_int(b.ptr, b.len, out))
            return 0;
        return ep_fail(r, NL_ERR_FORMAT, res, slot, "\"%.*s\" is not an integer", (int)(b.len < 40 ? b.len : 40),
                       (const char *)b.ptr);
    }
    }
    return -1;
}

/* ---- converting one column of a batch ---- */

static int ep_convert_join(ep_reader *r, ep_res *res, const parquet_chunk *c, size_t row, size_t n)
{
    table_value *batch = r->batch;
    for (size_t i = 0; i < n; i++) {
        size_t rr = row + i;
        uint32_t id = 0;
        if (c->offsets && (!c->row_valid || c->row_valid[rr])) {
            size_t len = 0;
            for (uint32_t s = c->offsets[rr]; s < c->offsets[rr + 1]; s++) {
                if (c->valid && !c->valid[s])
                    continue;
                parquet_bytes b = parquet_chunk_bytes(c, s);
                if (ep_tmp(r, len + b.len + 2) != 0)
                    return ep_fail(r, NL_ERR_NOMEM, res, rr, "out of memory joining a list");
                if (len)
                    r->tmp[len++] = ',';
                memcpy(r->tmp + len, b.ptr, b.len);
                len += b.len;
            }
            if (len && strtab_intern(r->strings, r->tmp, len, &id, r->err) != 0)
                return -1;
        }
        batch[i * r->ncols + res->f->col].s = id;
    }
    return 0;
}

/* A string column (or an instruction source candidate into `src`). */
static int ep_convert_str(ep_reader *r, ep_res *res, const parquet_chunk *c, size_t row, size_t n, uint32_t *src)
{
    const ep_field *f = res->f;
    table_value *batch = r->batch;
    size_t stride = r->ncols;
    const uint8_t *valid = c->valid;
    if (c->want == PARQUET_WANT_BYTES && c->dict_index) { /* one array lookup per row */
        const uint32_t *ix = c->dict_index + row, *map = res->map;
        for (size_t i = 0; i < n; i++) {
            uint32_t id = valid && !valid[row + i] ? 0 : map[ix[i]];
            if (src)
                src[i] = id;
            else
                batch[i * stride + f->col].s = id;
        }
        return 0;
    }
    char text[40];
    for (size_t i = 0; i < n; i++) {
        size_t slot = row + i;
        uint32_t id = 0;
        if (valid && !valid[slot]) {
            id = 0;
        } else if (c->want == PARQUET_WANT_BYTES) {
            if (ep_str_at(r, res, c, slot, &id) != 0)
                return ep_fail(r, r->err ? r->err->code : NL_ERR_NOMEM, res, slot, "cannot intern the string");
        } else {
            int len = ep_number_text(c, slot, text, sizeof text);
            if (strtab_intern(r->strings, text, (size_t)len, &id, r->err) != 0)
                return -1;
        }
        if (src)
            src[i] = id;
        else
            batch[i * stride + f->col].s = id;
    }
    return 0;
}

static int ep_convert_f64(ep_reader *r, ep_res *res, const parquet_chunk *c, size_t row, size_t n)
{
    uint32_t col = res->f->col;
    for (size_t i = 0; i < n; i++) {
        size_t slot = row + i;
        table_value *out = &r->batch[i * r->ncols + col];
        if (c->valid && !c->valid[slot]) {
            *out = r->defaults[col];
        } else if (c->want == PARQUET_WANT_F64) {
            out->d = c->f64[slot];
        } else if (c->want == PARQUET_WANT_I64) {
            out->d = (double)c->i64[slot];
        } else if (c->want == PARQUET_WANT_BOOL) {
            out->d = c->b[slot];
        } else {
            parquet_bytes b = parquet_chunk_bytes(c, slot);
            char *end;
            if (ep_tmp(r, b.len + 1) != 0)
                return ep_fail(r, NL_ERR_NOMEM, res, slot, "out of memory");
            memcpy(r->tmp, b.ptr, b.len);
            r->tmp[b.len] = '\0';
            out->d = strtod(r->tmp, &end);
            if (end == r->tmp || *end)
                return ep_fail(r, NL_ERR_FORMAT, res, slot, "\"%.40s\" is not a number", r->tmp);
        }
    }
    return 0;
}

/* TABLE_INT and TABLE_UINT (ids keep their 64 bits; other unsigned columns refuse negative values). */
static int ep_convert_int(ep_reader *r, ep_res *res, const parquet_chunk *c, size_t row, size_t n, table_kind kind)
{
    const ep_field *f = res->f;
    table_value *batch = r->batch;
    size_t stride = r->ncols;
    bool check_sign = kind == TABLE_UINT && f->action != EP_ID;
    if (c->want == PARQUET_WANT_I64 && !c->valid) { /* the common case: a required or null-free int column */
        const int64_t *v = c->i64 + row;
        if (!check_sign) {
            for (size_t i = 0; i < n; i++)
                batch[i * stride + f->col].i = v[i];
            return 0;
        }
        for (size_t i = 0; i < n; i++) {
            if (v[i] < 0)
                return ep_fail(r, NL_ERR_FORMAT, res, row + i, "negative value %lld", (long long)v[i]);
            batch[i * stride + f->col].u = (uint64_t)v[i];
        }
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        size_t slot = row + i;
        if (c->valid && !c->valid[slot]) {
            batch[i * stride + f->col] = r->defaults[f->col];
            continue;
        }
        int64_t v = 0;
        if (ep_cell_int(r, res, c, slot, &v) != 0)
            return -1;
        if (check_sign && v < 0)
            return ep_fail(r, NL_ERR_FORMAT, res, slot, "negative value %lld", (long long)v);
        batch[i * stride + f->col].i = v; /* .u for UINT: the same bits */
    }
    return 0;
}

/* Rows [row, row + n) of one mapped column into the batch. */
static int ep_convert(ep_reader *r, ep_res *res, const parquet_chunk *c, size_t row, size_t n)
{
    const ep_field *f = res->f;
    if (f->action == EP_JOIN)
        return ep_convert_join(r, res, c, row, n);
    if (ep_is_source(f))
        return ep_convert_str(r, res, c, row, n, r->src[f->action - EP_SRC_NKI]);
    switch ((table_kind)r->kinds[f->col]) {
    case TABLE_STR: return ep_convert_str(r, res, c, row, n, NULL);
    case TABLE_F64: return ep_convert_f64(r, res, c, row, n);
    default: return ep_convert_int(r, res, c, row, n, (table_kind)r->kinds[f->col]);
    }
}

/* ---- rows ---- */

static bool ep_has_prefix(const ep_reader *r, uint32_t id, const char *prefix)
{
    size_t len, n = strlen(prefix);
    const char *s = device_model_str(r->m, id, &len);
    return s && len >= n && memcmp(s, prefix, n) == 0;
}

/* Whether opcode / compiler_opcode id marks a DMA trigger (cached per strtab id). */
static int ep_trigger(ep_reader *r, uint32_t id, const char *prefix, bool *out)
{
    if (id == 0) {
        *out = false;
        return 0;
    }
    size_t slot = (size_t)id * 2 + (prefix[0] == 'P');
    if (slot >= r->trigger_cap) {
        size_t cap = r->trigger_cap ? r->trigger_cap : 1024;
        while (cap <= slot)
            cap *= 2;
        uint8_t *t = realloc(r->trigger, cap);
        if (!t)
            return -1;
        memset(t + r->trigger_cap, 0, cap - r->trigger_cap);
        r->trigger = t;
        r->trigger_cap = cap;
    }
    if (!r->trigger[slot])
        r->trigger[slot] = ep_has_prefix(r, id, prefix) ? 2 : 1;
    *out = r->trigger[slot] == 2;
    return 0;
}

/* Row i's source location: nki_source_location, else bir_debug_info_source_location, else the one
 * hlo_attrs names: the JSON export reader's order, so both formats attribute a row to the same line. */
static int ep_instruction_source(ep_reader *r, size_t i, uint32_t *out)
{
    *out = r->src[0][i] ? r->src[0][i] : r->src[1][i];
    if (*out || !r->src[2][i])
        return 0;
    if (!r->hlo && !(r->hlo = hlo_source_new(r->strings, r->err)))
        return -1;
    return hlo_source_of(r->hlo, r->src[2][i], out, r->err);
}

static int ep_finish_rows(ep_reader *r, size_t n)
{
    size_t stride = r->ncols;
    if (r->target == DEVICE_MODEL_INSTRUCTIONS) {
        for (size_t i = 0; i < n; i++) {
            table_value *row = &r->batch[i * stride];
            if (ep_instruction_source(r, i, &row[DM_INSTR_SOURCE].s) != 0)
                return ep_fail(r, NL_ERR_NOMEM, NULL, i, "out of memory");
            bool a, b;
            if (ep_trigger(r, row[DM_INSTR_COMPILER_OPCODE].s, "PSEUDO_DMA_", &a) != 0 ||
                ep_trigger(r, row[DM_INSTR_OPCODE].s, "DMA_", &b) != 0)
                return ep_fail(r, NL_ERR_NOMEM, NULL, i, "out of memory");
            if (a || b)
                row[DM_INSTR_FLAGS].u |= DM_INSTR_F_DMA_TRIGGER;
        }
    } else if (r->target == DEVICE_MODEL_DMA && r->spec->flags) {
        for (size_t i = 0; i < n; i++)
            r->batch[i * stride + DM_DMA_FLAGS].u |= r->spec->flags;
    }
    return 0;
}

static void ep_defaults(ep_reader *r)
{
    memset(r->defaults, 0, sizeof r->defaults);
    switch (r->target) {
    case DEVICE_MODEL_DMA: r->defaults[DM_DMA_ENGINE].i = r->defaults[DM_DMA_QUEUE_IDX].i = -1; break;
    case DEVICE_MODEL_SYSTEM_EVENTS:
        r->defaults[DM_SYSEV_NC].i = r->defaults[DM_SYSEV_PCORE].i = r->defaults[DM_SYSEV_WORKER].i = -1;
        break;
    case DEVICE_MODEL_KERNEL_INSTRUCTIONS:
        r->defaults[DM_KINSTR_FRAME].i = r->defaults[DM_KINSTR_ITER_VARS].i = -1;
        break;
    case DEVICE_MODEL_KERNEL_STACK_FRAMES: r->defaults[DM_KFRAME_PARENT].i = -1; break;
    default: break;
    }
}

static int ep_poll(ep_reader *r)
{
    if (r->opt && r->opt->cancel && atomic_load_explicit(r->opt->cancel, memory_order_relaxed))
        return nl_error_set(r->err, NL_ERR_CANCELLED, r->path, -1, "cancelled reading %s", r->spec->name);
    return 0;
}

/* The strtab ids of a dictionary-encoded string chunk's entries (dictionaries are per chunk). */
static int ep_intern_dict(ep_reader *r, ep_res *res, const parquet_chunk *c)
{
    table_kind kind = ep_is_source(res->f) ? TABLE_STR : (table_kind)r->kinds[res->f->col];
    if (kind != TABLE_STR || res->f->action == EP_JOIN)
        return 0; /* read through parquet_chunk_bytes */
    if (c->dict_count > res->map_cap) {
        uint32_t *m = realloc(res->map, c->dict_count * sizeof *m);
        if (!m)
            return ep_fail(r, NL_ERR_NOMEM, res, 0, "out of memory for a dictionary map");
        res->map = m;
        res->map_cap = c->dict_count;
    }
    for (size_t k = 0; k < c->dict_count; k++)
        if (ep_intern(r, res, c->dict[k].ptr, c->dict[k].len, &res->map[k]) != 0)
            return ep_fail(r, r->err ? r->err->code : NL_ERR_NOMEM, res, 0, "cannot intern a dictionary string");
    return 0;
}

static int ep_row_group(void *ctx, size_t rg, size_t rows, parquet_chunk *const *chunks, nl_error *err)
{
    (void)err;
    ep_reader *r = ctx;
    r->rg = rg;
    r->row0 = r->rows;
    for (size_t k = 0; k < r->nres; k++) {
        ep_res *res = &r->res[k];
        const parquet_chunk *c = chunks[k];
        res->last_ptr = NULL;
        if (c && c->dict_index && ep_intern_dict(r, res, c) != 0)
            return -1;
    }
    for (size_t b = 0; b < rows; b += EXPLORER_PARQUET_BATCH) {
        size_t n = rows - b < EXPLORER_PARQUET_BATCH ? rows - b : EXPLORER_PARQUET_BATCH;
        for (uint32_t col = 0; col < r->ncols; col++) /* columns no file column fills */
            if (!r->sourced[col])
                for (size_t i = 0; i < n; i++)
                    r->batch[i * r->ncols + col] = r->defaults[col];
        if (r->target == DEVICE_MODEL_INSTRUCTIONS) {
            for (size_t k = 0; k < EP_SOURCES; k++)
                memset(r->src[k], 0, n * sizeof *r->src[k]);
        }
        for (size_t k = 0; k < r->nres; k++)
            if (ep_convert(r, &r->res[k], chunks[k], b, n) != 0)
                return -1;
        if (ep_finish_rows(r, n) != 0)
            return -1;
        for (size_t i = 0; i < n; i++) {
            if (device_model_append(r->m, r->target, &r->batch[i * r->ncols], r->err) != 0)
                return ep_fail(r, r->err ? r->err->code : NL_ERR_NOMEM, NULL, b + i, "cannot append the row");
            r->rows++;
        }
        if (ep_poll(r) != 0)
            return -1;
    }
    return 0;
}

/* Resolve the spec's columns in the open part; a model column takes the first of its names found. */
static int ep_resolve(ep_reader *r)
{
    bool sourced[TABLE_COLUMNS_MAX + EP_SOURCES] = {false};
    r->nres = 0;
    memset(r->sourced, 0, sizeof r->sourced);
    for (size_t i = 0; i < r->spec->nfields; i++) {
        const ep_field *f = &r->spec->fields[i];
        if (f->action == EP_IGNORE)
            continue;
        long col = parquet_find_column(r->pf, f->name);
        if (col < 0)
            continue;
        size_t key = ep_is_source(f) ? TABLE_COLUMNS_MAX + (size_t)(f->action - EP_SRC_NKI) : f->col;
        if (sourced[key])
            continue;
        sourced[key] = true;
        if (key < TABLE_COLUMNS_MAX)
            r->sourced[key] = true;
        const parquet_column_info *ci = parquet_column(r->pf, (size_t)col);
        ep_res *res = &r->res[r->nres];
        res->f = f;
        res->col = col;
        res->want = parquet_want_of(ci->type);
        if (ci->type == PARQUET_INT96 || (f->action == EP_JOIN ? !ci->list : ci->max_rep != 0)) {
            nl_error_set(r->err, ci->type == PARQUET_INT96 ? NL_ERR_UNSUPPORTED : NL_ERR_FORMAT, r->path, -1,
                         "%s.%s is %s%s, expected %s", r->spec->name, f->name, ci->list ? "a list of " : "",
                         parquet_type_name(ci->type), f->action == EP_JOIN ? "a list of strings" : "a single value");
            char field[NL_ERROR_FIELD_MAX];
            snprintf(field, sizeof field, "%.30s.%.32s", r->spec->name, f->name);
            nl_error_set_field(r->err, field);
            return -1;
        }
        r->nres++;
    }
    return 0;
}

static int ep_read_table_part(ep_reader *r)
{
    if (ep_resolve(r) != 0)
        return -1;
    long cols[EP_FIELDS_MAX];
    parquet_want wants[EP_FIELDS_MAX];
    for (size_t k = 0; k < r->nres; k++) {
        cols[k] = r->res[k].col;
        wants[k] = r->res[k].want;
    }
    int rc = parquet_scan(r->pf, cols, wants, r->nres, r->opt ? r->opt->cancel : NULL, ep_row_group, r, r->err);
    return rc;
}

/* ---- singleton records ---- */

static int ep_record_entry(ep_reader *r, kvlist *l, const parquet_chunk *c, nl_error *err)
{
    const parquet_column_info *ci = c->column;
    kvlist_entry e = {0};
    if (strtab_intern(r->strings, ci->name, strlen(ci->name), &e.key, err) != 0)
        return -1;
    char text[48];
    int len = -1;
    if (ci->list) {
        e.kind = KVLIST_COMPOUND;
    } else if (c->valid && !c->valid[0]) {
        return 0; /* null: absent, as the JSON export omits it */
    } else {
        switch (c->want) {
        case PARQUET_WANT_I64:
            if (ci->logical == PARQUET_LOGICAL_INT && !ci->int_signed && ci->int_bits == 64 && c->i64[0] < 0) {
                e.kind = KVLIST_UINT;
                e.u = (uint64_t)c->i64[0];
                e.num = (double)e.u;
                len = snprintf(text, sizeof text, "%llu", (unsigned long long)e.u);
            } else {
                e.kind = KVLIST_INT;
                e.i = c->i64[0];
                e.u = (uint64_t)e.i;
                e.num = (double)e.i;
                len = snprintf(text, sizeof text, "%lld", (long long)e.i);
            }
            break;
        case PARQUET_WANT_F64:
            e.kind = KVLIST_DOUBLE;
            len = ep_double_text(c->f64[0], ci->type == PARQUET_FLOAT, text, sizeof text);
            e.num = strtod(text, NULL); /* a FLOAT's decimal value (0.1, not 0.100000001) */
            break;
        case PARQUET_WANT_BOOL:
            e.kind = KVLIST_BOOL;
            e.i = c->b[0];
            e.u = (uint64_t)e.i;
            e.num = (double)e.i;
            break;
        case PARQUET_WANT_BYTES: {
            e.kind = KVLIST_STRING;
            parquet_bytes b = parquet_chunk_bytes(c, 0);
            if (strtab_intern(r->strings, (const char *)b.ptr, b.len, &e.text, err) != 0)
                return -1;
            break;
        }
        }
    }
    if (len >= 0 && strtab_intern(r->strings, text, (size_t)len, &e.text, err) != 0)
        return -1;
    return kvlist_set(l, &e, err);
}

/* Exceptions to "a percent above 1 means 0..100" (formats.md §0.2). */
static bool ep_percent_exception(const char *key)
{
    return strstr(key, "mbu_min_read_util") != NULL || strstr(key, "avg_util_limit") != NULL;
}

static bool ep_is_percent(const char *key)
{
    size_t n = strlen(key);
    return n > 8 && strcmp(key + n - 8, "_percent") == 0;
}

static int ep_summary_percent(ep_reader *r, kvlist *l, uint32_t scope)
{
    explorer_parquet_inventory *inv = r->inv;
    size_t count = 0;
    const char *first = NULL;
    for (size_t i = 0; i < kvlist_count(l); i++) {
        const kvlist_entry *e = kvlist_at(l, i);
        const char *key = kvlist_key_str(l, e);
        if (!ep_is_percent(key) || (e->kind != KVLIST_DOUBLE && e->kind != KVLIST_INT))
            continue;
        count++;
        if (!first && !ep_percent_exception(key) && e->num > 1.0 + 1e-9)
            first = key;
    }
    if (!count)
        return 0;
    inv->percent = first ? EXPLORER_PARQUET_PERCENT_SCALED : EXPLORER_PARQUET_PERCENT_FRACTION;
    uint32_t name = 0;
    if (first) {
        snprintf(inv->evidence, sizeof inv->evidence, "%s", first);
        for (size_t i = 0; i < kvlist_count(l); i++) {
            kvlist_entry e = *kvlist_at(l, i);
            if (!ep_is_percent(kvlist_key_str(l, &e)) || (e.kind != KVLIST_DOUBLE && e.kind != KVLIST_INT))
                continue;
            char text[48];
            e.kind = KVLIST_DOUBLE;
            int len = ep_double_text(e.num / 100.0, false, text, sizeof text);
            e.num = strtod(text, NULL);
            e.i = 0;
            e.u = 0;
            if (strtab_intern(r->strings, text, (size_t)len, &e.text, r->err) != 0 || kvlist_set(l, &e, r->err) != 0)
                return -1;
        }
        if (strtab_intern(r->strings, first, strlen(first), &name, r->err) != 0)
            return -1;
    }
    return device_model_add_note(r->m, first ? DEVICE_MODEL_NOTE_PERCENT_SCALED : DEVICE_MODEL_NOTE_PERCENT_FRACTION,
                                 scope, name, count, r->err);
}

/* The first row of the table's first part → the record; further rows are noted. */
static int ep_read_record(ep_reader *r, const explorer_parquet_table *t, uint32_t scope)
{
    device_model_record which = (device_model_record)(r->spec->target - EP_RECORD);
    kvlist *l = device_model_record_mut(r->m, which, r->err);
    if (!l)
        return -1;
    parquet_chunk c;
    parquet_chunk_init(&c);
    int rc = 0;
    size_t g = 0;
    while (g < parquet_row_groups(r->pf) && parquet_row_group_rows(r->pf, g) == 0)
        g++;
    for (size_t i = 0; rc == 0 && g < parquet_row_groups(r->pf) && i < parquet_columns(r->pf); i++) {
        const parquet_column_info *ci = parquet_column(r->pf, i);
        if (parquet_find_column(r->pf, ci->name) != (long)i)
            continue; /* a leaf of a nested group: not a record value */
        if (ci->type == PARQUET_INT96)
            continue;
        if (ci->list) {
            c.column = ci; /* a list: noted as a compound value without decoding it */
            c.valid = NULL;
            rc = ep_record_entry(r, l, &c, r->err);
            continue;
        }
        rc = parquet_read_chunk(r->pf, g, i, parquet_want_of(ci->type), &c, r->err);
        if (rc == 0)
            rc = ep_record_entry(r, l, &c, r->err);
    }
    parquet_chunk_close(&c);
    if (rc == 0 && t->rows > 1)
        rc = device_model_add_note(r->m, DEVICE_MODEL_NOTE_EXTRA_RECORD, scope, scope, t->rows - 1, r->err);
    if (rc == 0 && which == DEVICE_MODEL_SUMMARY)
        rc = ep_summary_percent(r, l, scope);
    return rc;
}

/* ---- ThrottleSummary ---- */

/* Why into Summary: the JSON export keeps throttling in Summary keys (`throttle_<t>_active_time_nc<N>_percent`,
 * formats.md §4), and the Explorer rule reads them there (device_summary rule_throttle); the Parquet schema
 * keeps it in ThrottleSummary rows (nc_idx, throttle_type, throttle_active_time_ns/_percent). Each row becomes
 * the export's key for its percent, scaled as the Summary's percents were (or, without them, divided by 100
 * when above 1), and `throttle_<t>_active_time_nc<N>_ns` for its time when present. */
static int ep_throttle_key(ep_reader *r, kvlist *l, const char *key, double v, bool fraction, bool float32)
{
    kvlist_entry e = {0};
    char text[48];
    int len = ep_double_text(v, float32, text, sizeof text);
    e.kind = KVLIST_DOUBLE;
    e.num = strtod(text, NULL);
    if (!fraction) {
        e.kind = KVLIST_INT;
        e.i = (int64_t)v;
        e.u = (uint64_t)e.i;
        e.num = v;
        len = snprintf(text, sizeof text, "%lld", (long long)e.i);
    }
    if (strtab_intern(r->strings, key, strlen(key), &e.key, r->err) != 0 ||
        strtab_intern(r->strings, text, (size_t)len, &e.text, r->err) != 0)
        return -1;
    return kvlist_set(l, &e, r->err);
}

static int ep_throttle_row(ep_reader *r, kvlist *l, const parquet_chunk c[4], size_t row)
{
    if ((c[0].valid && !c[0].valid[row]) || (c[1].valid && !c[1].valid[row]))
        return 0; /* no core or no type: no key to name */
    parquet_bytes type = parquet_chunk_bytes(&c[1], row);
    char key[192];
    if (c[3].column && (!c[3].valid || c[3].valid[row])) {
        double pct = c[3].f64[row];
        bool float32 = c[3].column->type == PARQUET_FLOAT;
        if (r->inv->percent == EXPLORER_PARQUET_PERCENT_SCALED ||
            (r->inv->percent == EXPLORER_PARQUET_PERCENT_NONE && pct > 1.0 + 1e-9)) {
            char text[48]; /* the value written (a FLOAT's decimal), then scaled, as ep_summary_percent does */
            ep_double_text(pct, float32, text, sizeof text);
            pct = strtod(text, NULL) / 100.0;
            float32 = false;
        }
        snprintf(key, sizeof key, "throttle_%.*s_active_time_nc%lld_percent", (int)(type.len < 64 ? type.len : 64),
                 (const char *)type.ptr, (long long)c[0].i64[row]);
        if (ep_throttle_key(r, l, key, pct, true, float32) != 0)
            return -1;
    }
    if (c[2].column && (!c[2].valid || c[2].valid[row])) {
        snprintf(key, sizeof key, "throttle_%.*s_active_time_nc%lld_ns", (int)(type.len < 64 ? type.len : 64),
                 (const char *)type.ptr, (long long)c[0].i64[row]);
        if (ep_throttle_key(r, l, key, (double)c[2].i64[row], false, false) != 0)
            return -1;
    }
    return 0;
}

static int ep_throttle_part(ep_reader *r, kvlist *l, size_t *rows)
{
    static const char *const names[4] = {"nc_idx", "throttle_type", "throttle_active_time_ns",
                                         "throttle_active_time_percent"};
    static const parquet_want wants[4] = {PARQUET_WANT_I64, PARQUET_WANT_BYTES, PARQUET_WANT_I64, PARQUET_WANT_F64};
    long col[4];
    for (int k = 0; k < 4; k++)
        col[k] = parquet_find_column(r->pf, names[k]);
    if (col[0] < 0 || col[1] < 0)
        return 0; /* without the core and the type no row can be named; the columns are listed as missing */
    parquet_chunk c[4];
    for (int k = 0; k < 4; k++)
        parquet_chunk_init(&c[k]);
    int rc = 0;
    for (size_t g = 0; rc == 0 && g < parquet_row_groups(r->pf) && *rows < EP_THROTTLE_ROWS_MAX; g++) {
        for (int k = 0; rc == 0 && k < 4; k++)
            if (col[k] >= 0)
                rc = parquet_read_chunk(r->pf, g, (size_t)col[k], wants[k], &c[k], r->err);
        for (size_t i = 0; rc == 0 && i < c[0].rows && *rows < EP_THROTTLE_ROWS_MAX; i++, (*rows)++)
            rc = ep_throttle_row(r, l, c, i);
    }
    for (int k = 0; k < 4; k++)
        parquet_chunk_close(&c[k]);
    return rc;
}

static int ep_read_throttle(ep_reader *r, const explorer_parquet_table *t, uint32_t scope)
{
    kvlist *l = device_model_record_mut(r->m, DEVICE_MODEL_SUMMARY, r->err);
    if (!l)
        return -1;
    size_t rows = 0;
    for (size_t p = 0; p < t->files; p++) {
        r->path = t->paths[p];
        if (ep_poll(r) != 0 || parquet_open(r->path, &r->pf, r->err) != 0)
            return -1;
        int rc = ep_throttle_part(r, l, &rows);
        parquet_close(r->pf);
        r->pf = NULL;
        if (rc != 0)
            return -1;
    }
    return device_model_add_note(r->m, DEVICE_MODEL_NOTE_ARRAY_READ, 0, scope, rows, r->err);
}

/* ---- tables ---- */

static int ep_read_table(ep_reader *r, const explorer_parquet_table *t)
{
    uint32_t scope;
    if (strtab_intern(r->strings, t->name, strlen(t->name), &scope, r->err) != 0)
        return -1;
    if (r->spec->target == EP_THROTTLE)
        return ep_read_throttle(r, t, scope);
    bool record = r->spec->target >= EP_RECORD;
    if (!record) {
        r->target = (device_model_table)r->spec->target;
        const table *tab = device_model_table_get(r->m, r->target);
        r->ncols = table_ncols(tab);
        for (uint32_t c = 0; c < r->ncols; c++)
            r->kinds[c] = (uint8_t)table_column_at(tab, c)->kind;
        ep_defaults(r);
        r->rows = 0;
    }
    size_t parts = record ? (t->files ? 1 : 0) : t->files;
    for (size_t p = 0; p < parts; p++) {
        r->path = t->paths[p];
        if (ep_poll(r) != 0 || parquet_open(r->path, &r->pf, r->err) != 0)
            return -1;
        int rc = record ? ep_read_record(r, t, scope) : ep_read_table_part(r);
        parquet_close(r->pf);
        r->pf = NULL;
        if (rc != 0)
            return -1;
    }
    if (device_model_add_note(r->m, DEVICE_MODEL_NOTE_ARRAY_READ, 0, scope, record ? t->rows : r->rows, r->err) != 0)
        return -1;
    for (size_t k = 0; k < t->unknown_count; k++) {
        uint32_t name;
        if (strtab_intern(r->strings, t->unknown[k], strlen(t->unknown[k]), &name, r->err) != 0 ||
            device_model_add_note(r->m, DEVICE_MODEL_NOTE_UNKNOWN_KEY, scope, name, t->rows, r->err) != 0)
            return -1;
    }
    return 0;
}

/* Device times earlier than first_hw_timestamp cannot be absolute: then they are relative already. */
static bool ep_times_relative(const device_model *m)
{
    int64_t first = 0;
    if (!kvlist_get_i64(device_model_record_get(m, DEVICE_MODEL_METADATA), "first_hw_timestamp", &first) || first <= 0)
        return false;
    static const struct {
        device_model_table t;
        uint32_t col;
    } cols[] = {
        {DEVICE_MODEL_INSTRUCTIONS, DM_INSTR_TIMESTAMP}, {DEVICE_MODEL_DMA, DM_DMA_TIMESTAMP},
        {DEVICE_MODEL_ACTIVE_TIME, DM_ACTIVE_START},     {DEVICE_MODEL_SEMAPHORES, DM_SEM_TIMESTAMP},
        {DEVICE_MODEL_CC_OPS, DM_CCOP_START},            {DEVICE_MODEL_CC_INSTRUCTIONS, DM_CCI_START},
    };
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        const table *t = device_model_table_get(m, cols[i].t);
        int64_t lo, hi;
        if (table_rows(t) == 0)
            continue;
        table_int_range(t, cols[i].col, &lo, &hi);
        if (lo < first)
            return true;
    }
    return false;
}

static int ep_read_all(ep_reader *r)
{
    explorer_parquet_inventory *inv = r->inv;
    for (size_t s = 0; s < EP_NSPECS; s++) {
        const explorer_parquet_table *t = explorer_parquet_table_find(inv, ep_specs[s].name);
        if (!t)
            continue;
        r->spec = &ep_specs[s];
        if (ep_read_table(r, t) != 0)
            return -1;
    }
    for (size_t i = 0; i < inv->n; i++) {
        const explorer_parquet_table *t = &inv->tables[i].pub;
        uint32_t name;
        if (t->modelled)
            continue;
        if (strtab_intern(r->strings, t->name, strlen(t->name), &name, r->err) != 0 ||
            device_model_add_note(r->m, DEVICE_MODEL_NOTE_ARRAY_SKIPPED, 0, name, t->rows, r->err) != 0)
            return -1;
    }
    if (ep_times_relative(r->m)) {
        uint32_t name;
        inv->times_relative = true;
        if (strtab_intern(r->strings, "first_hw_timestamp", 18, &name, r->err) != 0 ||
            device_model_add_note(r->m, DEVICE_MODEL_NOTE_TIMES_RELATIVE, 0, name, 1, r->err) != 0)
            return -1;
        return device_model_finish_relative(r->m, r->err);
    }
    return device_model_finish(r->m, r->err);
}

int explorer_parquet_read(const char *dir, const explorer_parquet_options *opt, device_model **out,
                          explorer_parquet_inventory **inventory, nl_error *err)
{
    *out = NULL;
    if (inventory)
        *inventory = NULL;
    ep_reader r = {.opt = opt, .err = err};
    if (explorer_parquet_inventory_read(dir, opt, &r.inv, err) != 0)
        return -1;
    int rc = -1;
    if (r.inv->n == 0) {
        nl_error_set(err, NL_ERR_NOT_FOUND, dir, -1, "no <Table>.parquet file in the directory");
        goto out;
    }
    r.m = device_model_new_limited(opt ? opt->memory_limit : 0, err);
    r.batch = malloc((size_t)EXPLORER_PARQUET_BATCH * TABLE_COLUMNS_MAX * sizeof *r.batch);
    bool sources_ok = true;
    for (size_t k = 0; k < EP_SOURCES; k++)
        sources_ok &= (r.src[k] = malloc(EXPLORER_PARQUET_BATCH * sizeof *r.src[k])) != NULL;
    if (!r.m || !r.batch || !sources_ok) {
        if (r.m)
            nl_error_set(err, NL_ERR_NOMEM, dir, -1, "out of memory for the Parquet reader");
        goto out;
    }
    r.strings = device_model_strtab_mut(r.m);
    rc = ep_read_all(&r);
    if (rc != 0 && err && !err->source[0])
        snprintf(err->source, sizeof err->source, "%s", r.path ? r.path : dir);
out:
    for (size_t k = 0; k < EP_FIELDS_MAX; k++)
        free(r.res[k].map);
    free(r.batch);
    for (size_t k = 0; k < EP_SOURCES; k++)
        free(r.src[k]);
    hlo_source_free(r.hlo);
    free(r.trigger);
    free(r.tmp);
    if (rc != 0) {
        device_model_free(r.m);
        explorer_parquet_inventory_free(r.inv);
        return -1;
    }
    *out = r.m;
    if (inventory)
        *inventory = r.inv;
    else
        explorer_parquet_inventory_free(r.inv);
    return 0;
}
