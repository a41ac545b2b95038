/* device_model — the columnar model of one device profile (one NeuronCore execution).
 *
 * Owns: one arena holding everything of the profile: the strtab, the tables (instructions, dma,
 * active_time, semaphore_update, layer_summary, warnings, ntff_semaphore — the raw semaphore records of a
 * decoded NTFF — and those only the Parquet reader fills so far: flow, tensor_info, cc_ops, ... — see
 * device_model_table), five singleton records (summary, metadata, model_info, profile_info, neff_header) and
 * the notes a reader leaves (arrays read or skipped, unknown keys). device_model_free releases all of it;
 * every pointer and id obtained from a model is valid while it lives.
 * Threads: a reader builds it on one thread; after device_model_finish it is read-only and may be shared.
 * Errors: building functions return 0/-1 with a nullable nl_error (NL_ERR_NOMEM, NL_ERR_LIMIT, NL_ERR_FORMAT).
 *
 * Time: every time column is int64 ns. Readers append raw device time; device_model_finish subtracts
 * metadata.first_hw_timestamp (formats.md §0.1) — metadata may come after the rows in the file. Strings are
 * strtab ids (0 = "" = absent). Read cells with table_i64/table_u64/table_str/table_f64 (table.h) using the
 * DM_* column enums below, or device_model_instr_get for one whole instruction. */
#ifndef NL_DEVICE_MODEL_H
#define NL_DEVICE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "kvlist.h"
#include "nl_error.h"
#include "strtab.h"
#include "table.h"

typedef enum device_model_table {
    DEVICE_MODEL_INSTRUCTIONS, /* instruction[]       formats.md §4.2 */
    DEVICE_MODEL_DMA,          /* dma[]               §4.3, packets and aggregated transfers */
    DEVICE_MODEL_ACTIVE_TIME,  /* active_time[]       §4.4 */
    DEVICE_MODEL_SEMAPHORES,   /* semaphore_update[]  §4.4 */
    DEVICE_MODEL_LAYERS,       /* layer_summary[]     §4.4 */
    DEVICE_MODEL_WARNINGS,     /* warnings[]          §4.4 */
    DEVICE_MODEL_NTFF_SEMAPHORES, /* kind-1 records of a decoded NTFF, raw (ntff_payload.h); no export has it */
    /* Tables only the neuron-explorer Parquet reader fills so far (formats.md §7.3); DM_<table>_* below. */
    DEVICE_MODEL_FLOW,                /* Flow: dependency edges across tables */
    DEVICE_MODEL_TENSOR_INFO,         /* TensorInfo (the JSON export's neff_node) */
    DEVICE_MODEL_CC_OPS,              /* CcOp: collective operations */
    DEVICE_MODEL_CC_INSTRUCTIONS,     /* CcInstruction: collective-core instructions */
    DEVICE_MODEL_OPCODE_SUMMARY,      /* OpcodeSummary */
    DEVICE_MODEL_SCHEMA_FIELDS,       /* SchemaFields: the profile's own schema description */
    DEVICE_MODEL_SYSTEM_EVENTS,       /* SystemProfileEvents (unix ns, never shifted) */
    DEVICE_MODEL_KERNEL_INSTRUCTIONS, /* KernelInstructions: NKI instruction → stack frame, source line */
    DEVICE_MODEL_KERNEL_STACK_FRAMES, /* KernelStackFrames */
    DEVICE_MODEL_TABLE_COUNT
} device_model_table;

typedef enum device_model_record {
    DEVICE_MODEL_SUMMARY,      /* summary[0]      §5.1 */
    DEVICE_MODEL_METADATA,     /* metadata[0]     §4.4 */
    DEVICE_MODEL_MODEL_INFO,   /* model_info[0]   */
    DEVICE_MODEL_PROFILE_INFO, /* profile_info[0] */
    DEVICE_MODEL_NEFF_HEADER,  /* neff_header[0]  */
    DEVICE_MODEL_RECORD_COUNT
} device_model_record;

/* instruction columns. Engine = JSON `subgroup` ("Tensor" for both Tensor rows); label = timeline row. */
enum {
    DM_INSTR_TIMESTAMP,       /* INT ns, relative to first_hw_timestamp */
    DM_INSTR_DURATION,        /* INT ns; includes semaphore waits */
    DM_INSTR_EVT_WAIT,        /* INT ns; `evt_wait_time` */
    DM_INSTR_ID,              /* UINT */
    DM_INSTR_ENGINE,          /* STR `subgroup` */
    DM_INSTR_LABEL,           /* STR */
    DM_INSTR_OPCODE,          /* STR */
    DM_INSTR_COMPILER_OPCODE, /* STR */
    DM_INSTR_LAYER,           /* STR */
    DM_INSTR_HLO_NAME,        /* STR */
    DM_INSTR_SOURCE,          /* STR "path:line": nki_source_location, else bir_debug_info_source_location,
                                 else hlo_attrs source_file:source_line when the line is not "0" */
    DM_INSTR_TYPE,            /* STR `instruction_type` */
    DM_INSTR_HBM_READ,        /* UINT bytes, and the seven below */
    DM_INSTR_HBM_WRITE,
    DM_INSTR_SBUF_READ,
    DM_INSTR_SBUF_WRITE,
    DM_INSTR_PSUM_READ,
    DM_INSTR_PSUM_WRITE,
    DM_INSTR_SPILL_SAVE,
    DM_INSTR_SPILL_RELOAD,
    DM_INSTR_FLAGS,           /* UINT, DM_INSTR_F_* */
    DM_INSTR_PC_BYTE,         /* UINT pc & 0xff: an NTFF record's byte a, or the export's `pc` & 0xff (0 without
                                 one); the full pc above 255 is not in an NTFF (ntff_payload.h) */
    /* Filled by the Parquet reader; the JSON reader leaves them 0 / "". */
    DM_INSTR_OPERANDS,        /* STR `operands` (MATMUL: ... src=…[..][N,..] ... K*M) */
    DM_INSTR_ADJUSTED_FLOPS,  /* INT `adjusted_flops` */
    DM_INSTR_PC,              /* INT `pc` */
    DM_INSTR_KERNEL_NAME,     /* STR `kernel_instruction_name` (joins DEVICE_MODEL_KERNEL_INSTRUCTIONS) */
    DM_INSTR_NCOLS
};
#define DM_INSTR_F_DMA_TRIGGER 1u /* compiler_opcode PSEUDO_DMA_* or opcode DMA_* (§4.2) */

/* dma columns. */
enum {
    DM_DMA_TIMESTAMP,     /* INT ns */
    DM_DMA_DURATION,      /* INT ns */
    DM_DMA_ID,            /* UINT */
    DM_DMA_AGG_ID,        /* UINT `packet_aggregation_id` (packets → their aggregated record's id) */
    DM_DMA_TRANSFER_SIZE, /* UINT bytes */
    DM_DMA_QUEUE,         /* STR queue name: `subgroup` without its "-Q<n>-E<n>" suffix */
    DM_DMA_SUBGROUP,      /* STR `subgroup` as written */
    DM_DMA_QUEUE_TYPE,    /* STR data, software_dynamic, hardware_dynamic, instruction, input, output, unknown */
    DM_DMA_ENGINE,        /* INT `dma_engine`, -1 when absent or not a number */
    DM_DMA_QUEUE_IDX,     /* INT `dma_queue`, -1 when absent or not a number */
    DM_DMA_VARIABLE,      /* STR tensor name ("unknown" without DGE notifications) */
    DM_DMA_FLAGS,         /* UINT, DM_DMA_F_* */
    /* Filled by the Parquet reader for aggregated rows (DmaPacketAggregated); "" otherwise. */
    DM_DMA_SOURCE,        /* STR `source`, e.g. "[[INPUT]]"; "VIRTUAL" marks a spill */
    DM_DMA_DEST,          /* STR `dest`, e.g. "[[SB]]" */
    DM_DMA_NCOLS
};
#define DM_DMA_F_AGGREGATED 1u /* aggregated:"yes" — a transfer, not a packet */
#define DM_DMA_F_CC 2u         /* is_cc_dma:"yes" */
#define DM_DMA_F_DUPLICATE 4u  /* duplicate:"yes" */

/* active_time columns: merged busy intervals per engine. */
enum {
    DM_ACTIVE_ENGINE,   /* STR lowercase engine */
    DM_ACTIVE_START,    /* INT ns `start_ts` */
    DM_ACTIVE_END,      /* INT ns `end_ts` */
    DM_ACTIVE_DURATION, /* INT ns `duration_ns` */
    DM_ACTIVE_PCORE,    /* INT `pcore_idx` */
    DM_ACTIVE_NCOLS
};

/* semaphore_update columns. */
enum {
    DM_SEM_ID,        /* STR */
    DM_SEM_VALUE,     /* INT */
    DM_SEM_TIMESTAMP, /* INT ns */
    DM_SEM_NCOLS
};

/* ntff_semaphore columns: one kind-1 NTFF record each (ntff.md "Kind 1"); the mapping to the export's
 * semaphore_update rows is open, so these are the raw fields. */
enum {
    DM_NSEM_TIMESTAMP, /* INT ns on the semaphore clock (clock subfield 6), relative to the decode's origin */
    DM_NSEM_INDEX,     /* INT byte a: semaphore index */
    DM_NSEM_VALUE,     /* INT w: value */
    DM_NSEM_CODE,      /* INT byte d (d & 3 == 3) */
    DM_NSEM_B,         /* INT byte b, raw */
    DM_NSEM_C,         /* INT byte c, raw */
    DM_NSEM_NCOLS
};

/* layer_summary columns; times in integer ns (§0.3). Per engine E in tensor, vector, scalar, gpsimd, sync
 * (in that order, see DM_ENGINE_*): active time, instruction time, instruction count. */
enum {
    DM_LAYER_NAME,     /* STR */
    DM_LAYER_SUBGRAPH, /* STR `fully_qualified_subgraph` */
    DM_LAYER_START,    /* INT ns */
    DM_LAYER_END,      /* INT ns */
    DM_LAYER_DURATION, /* INT ns */
    DM_LAYER_ENGINE0,  /* INT: DM_LAYER_ENGINE0 + 3*e + {0 active, 1 instruction time, 2 count} */
    DM_LAYER_FLOPS = DM_LAYER_ENGINE0 + 15, /* INT tensor_engine_flop_count */
    DM_LAYER_MODEL_FLOPS,                   /* INT tensor_engine_model_flop_count */
    DM_LAYER_MFU,                           /* F64 tensor_engine_mfu */
    DM_LAYER_HFU,                           /* F64 tensor_engine_hfu */
    DM_LAYER_NCOLS
};
enum { DM_ENGINE_TENSOR, DM_ENGINE_VECTOR, DM_ENGINE_SCALAR, DM_ENGINE_GPSIMD, DM_ENGINE_SYNC, DM_ENGINE_COUNT };
#define DM_LAYER_ACTIVE(e) (DM_LAYER_ENGINE0 + 3 * (e))
#define DM_LAYER_INSTR_TIME(e) (DM_LAYER_ENGINE0 + 3 * (e) + 1)
#define DM_LAYER_INSTR_COUNT(e) (DM_LAYER_ENGINE0 + 3 * (e) + 2)

/* warnings columns. */
enum { DM_WARN_MESSAGE, DM_WARN_CATEGORY, DM_WARN_NCOLS };

/* What a reader saw besides rows: top-level arrays (read, or skipped because neuronlens does not model
 * them, e.g. ham, dma_throughput, terminology), top-level keys whose value is not an array, keys inside
 * modelled records that neuronlens does not know (schema drift), and records beyond the first of a
 * singleton array. `scope` is the array's name id for the last two kinds, else 0. */
typedef enum device_model_note_kind {
    DEVICE_MODEL_NOTE_ARRAY_READ,
    DEVICE_MODEL_NOTE_ARRAY_SKIPPED,
    DEVICE_MODEL_NOTE_NOT_ARRAY,
    DEVICE_MODEL_NOTE_UNKNOWN_KEY,
    DEVICE_MODEL_NOTE_EXTRA_RECORD,
    /* Parquet reader: how Summary `*_percent` columns were read (scope = the table's name id; count = the
     * percent columns). FRACTION: every value <= 1, kept as fractions. SCALED: some value > 1, so all were
     * taken as 0..100 and divided by 100; name = the first column above 1 (formats.md §0.2). */
    DEVICE_MODEL_NOTE_PERCENT_FRACTION,
    DEVICE_MODEL_NOTE_PERCENT_SCALED,
    /* Parquet reader: device times were already relative to first_hw_timestamp (earlier than it), so
     * device_model_finish_relative kept them; name = "first_hw_timestamp". */
    DEVICE_MODEL_NOTE_TIMES_RELATIVE,
} device_model_note_kind;

typedef struct device_model_note {
    device_model_note_kind kind;
    uint32_t scope; /* strtab id */
    uint32_t name;  /* strtab id */
    uint64_t count; /* records in the array / occurrences */
} device_model_note;

/* Distinct notes kept; further distinct ones are summed into one note named "(other)". */
#define DEVICE_MODEL_NOTES_MAX 4096u

/* One instruction, decoded from all its columns (convenience; hot loops read columns directly). */
typedef struct device_model_instr {
    int64_t timestamp_ns, duration_ns, evt_wait_ns;
    uint64_t id;
    uint32_t engine, label, opcode, compiler_opcode, layer, hlo_name, source, type; /* strtab ids */
    uint64_t hbm_read, hbm_write, sbuf_read, sbuf_write, psum_read, psum_write, spill_save, spill_reload;
    uint32_t flags;
    uint32_t operands, kernel_name; /* strtab ids (Parquet only) */
    int64_t adjusted_flops, pc;     /* Parquet only */
} device_model_instr;

typedef struct device_model device_model;

/* ---- lifecycle ---- */

/* An empty model; NULL with err set (NL_ERR_NOMEM). */
device_model *device_model_new(nl_error *err) __attribute__((warn_unused_result));
/* Same with a cap on the model's total memory (0 = none); allocations beyond it fail with NL_ERR_NOMEM. */
device_model *device_model_new_limited(size_t memory_limit, nl_error *err) __attribute__((warn_unused_result));
/* Release the model and everything borrowed from it. Safe on NULL. */
void device_model_free(device_model *m);

/* ---- building (readers) ---- */

int device_model_intern(device_model *m, const char *s, size_t len, uint32_t *id, nl_error *err)
    __attribute__((warn_unused_result));
/* The model's string table for interning (readers); borrowed. */
strtab *device_model_strtab_mut(device_model *m);
/* Append one row (row[c] for every column of that table). */
int device_model_append(device_model *m, device_model_table which, const table_value *row, nl_error *err)
    __attribute__((warn_unused_result));
/* The singleton record to fill (created on first use); NULL with err set on NL_ERR_NOMEM. */
kvlist *device_model_record_mut(device_model *m, device_model_record which, nl_error *err);
/* Add `count` to the note (kind, scope, name), creating it. */
int device_model_add_note(device_model *m, device_model_note_kind kind, uint32_t scope, uint32_t name, uint64_t count,
                          nl_error *err) __attribute__((warn_unused_result));
/* Append the rows of table `which` of `src` (a model built from one piece of the same file, not finished)
 * after dst's, with src's strings interned into dst in src's id order and src's notes added in order, so
 * merging the pieces of a file in file order gives the model one sequential read would have built. src is
 * not changed (the caller frees it); its singleton records must be empty. NL_ERR_LIMIT when the merged notes
 * could exceed DEVICE_MODEL_NOTES_MAX (the caller then reads sequentially). On failure dst may hold part of
 * src and must be discarded. */
int device_model_merge_rows(device_model *dst, const device_model *src, device_model_table which, nl_error *err)
    __attribute__((warn_unused_result));
/* Make times relative to metadata.first_hw_timestamp (0 when absent or not an integer). Call once, after
 * the last row; fails with NL_ERR_FORMAT if a time would overflow. */
int device_model_finish(device_model *m, nl_error *err) __attribute__((warn_unused_result));

/* ---- reading ---- */

const table *device_model_table_get(const device_model *m, device_model_table which);
size_t device_model_rows(const device_model *m, device_model_table which);
/* The singleton record, or NULL when the file had none. */
const kvlist *device_model_record_get(const device_model *m, device_model_record which);
const strtab *device_model_strings(const device_model *m);
/* Borrowed NUL-terminated string of an id ("" for 0); NULL for an invalid id. */
const char *device_model_str(const device_model *m, uint32_t id, size_t *len);
/* Id of a string if the model has it, else STRTAB_NONE (e.g. to filter a column by opcode). */
uint32_t device_model_str_find(const device_model *m, const char *s);
void device_model_instr_get(const device_model *m, size_t row, device_model_instr *out);

/* The raw first_hw_timestamp subtracted by device_model_finish; *from_metadata = 1 when it came from the
 * file (nullable). */
int64_t device_model_time_origin(const device_model *m, int *from_metadata);

size_t device_model_note_count(const device_model *m);
const device_model_note *device_model_note_at(const device_model *m, size_t i);

/* Canonical names: "instruction", "dma", ... / "summary", "metadata", ... (as in the full JSON export). */
const char *device_model_table_name(device_model_table which);
const char *device_model_record_name(device_model_record which);

/* Memory: bytes reserved by the model's arena, and column bytes of one table (segments + dictionaries). */
size_t device_model_bytes(const device_model *m);
size_t device_model_table_bytes(const device_model *m, device_model_table which);

/* ---- additions for the Parquet reader (formats.md §7.3) ---- */

/* Like device_model_finish for times that are already relative to metadata.first_hw_timestamp: nothing is
 * shifted; device_model_time_origin then returns 0. */
int device_model_finish_relative(device_model *m, nl_error *err) __attribute__((warn_unused_result));

/* flow columns: an edge from row `in_id` of table `in_table` to row `out_id` of `out_table` (ids are the
 * tables' `id` columns, e.g. Instruction → DmaPacketAggregated). */
enum {
    DM_FLOW_IN_ID,     /* UINT `in_id` */
    DM_FLOW_OUT_ID,    /* UINT `out_id` */
    DM_FLOW_IN_TABLE,  /* STR `in_table` */
    DM_FLOW_OUT_TABLE, /* STR `out_table` */
    DM_FLOW_TYPE,      /* STR `dependency_type`: FLOW_DEPENDENCE, DGE_TRIGGER, ... */
    DM_FLOW_GAP,       /* INT ns `gap_time` */
    DM_FLOW_NCOLS
};

/* tensor_info columns (sizes in bytes). */
enum {
    DM_TENSOR_NAME,       /* STR `variable_name` */
    DM_TENSOR_TYPE,       /* STR IN, OUT, WEIGHT, ... */
    DM_TENSOR_FORMAT,     /* STR */
    DM_TENSOR_SHAPE,      /* STR */
    DM_TENSOR_SIZE,       /* INT `size` */
    DM_TENSOR_NODE,       /* INT `node` */
    DM_TENSOR_PCORE,      /* INT `pcore_idx` */
    DM_TENSOR_LOAD_AVG,   /* INT `load_to_sbuf_avg_size_bytes` */
    DM_TENSOR_LOAD_TOTAL, /* INT `load_to_sbuf_total_size_bytes` */
    DM_TENSOR_LOAD_COUNT, /* INT `load_to_sbuf_dma_count` */
    DM_TENSOR_REPEAT,     /* F64 `load_to_sbuf_repeat_factor` */
    DM_TENSOR_NCOLS
};

/* cc_ops columns (device ns; sizes in bytes; bandwidths B/s). */
enum {
    DM_CCOP_START,          /* INT ns `start_ts` */
    DM_CCOP_END,            /* INT ns `end_ts` */
    DM_CCOP_DURATION,       /* INT ns `duration_ns` */
    DM_CCOP_OPERATION,      /* STR */
    DM_CCOP_ALGORITHM,      /* STR */
    DM_CCOP_ELEMENTS,       /* INT `num_elements` */
    DM_CCOP_DTYPE,          /* STR */
    DM_CCOP_OP_ID,          /* INT */
    DM_CCOP_STREAM_ID,      /* INT */
    DM_CCOP_STREAM_INDEX,   /* INT */
    DM_CCOP_TRIGGER_ENGINE, /* STR */
    DM_CCOP_INPUT_SIZE,     /* INT */
    DM_CCOP_OUTPUT_SIZE,    /* INT */
    DM_CCOP_ALGO_BW,        /* F64 `algorithm_bandwidth` */
    DM_CCOP_BUS_BW,         /* F64 `bus_bandwidth` */
    DM_CCOP_TRIGGER_START,  /* INT ns `trigger_start_ts` */
    DM_CCOP_TRIGGER_DELAY,  /* INT ns `cc_trigger_start_delay` */
    DM_CCOP_REPLICA_GROUP_ID, /* INT */
    DM_CCOP_REPLICA_GROUP,  /* STR */
    DM_CCOP_NCOLS
};

/* cc_instructions columns. */
enum {
    DM_CCI_START,          /* INT ns */
    DM_CCI_END,            /* INT ns */
    DM_CCI_DURATION,       /* INT ns */
    DM_CCI_CORE,           /* INT `core_idx` (CC-core) */
    DM_CCI_DESCRIPTION,    /* STR */
    DM_CCI_TRIGGER_ENGINE, /* STR */
    DM_CCI_TRIGGER_START,  /* INT ns `trigger_start_ts` */
    DM_CCI_NCOLS
};

/* opcode_summary columns; `active_time_percent` as written (see the PERCENT notes for the Summary). */
enum {
    DM_OPSUM_ENGINE,         /* STR lowercase engine */
    DM_OPSUM_OPCODE,         /* STR */
    DM_OPSUM_COUNT,          /* INT `instruction_count` */
    DM_OPSUM_INSTR_TIME,     /* INT ns `instruction_time_ns` */
    DM_OPSUM_ACTIVE_TIME,    /* INT ns `active_time_ns` */
    DM_OPSUM_ACTIVE_PERCENT, /* F64 `active_time_percent` */
    DM_OPSUM_NCOLS
};

/* schema_fields columns. */
enum {
    DM_SCHEMA_TABLE,       /* STR `table_name` */
    DM_SCHEMA_TABLE_DESC,  /* STR `table_description` */
    DM_SCHEMA_FIELD,       /* STR `field_name` */
    DM_SCHEMA_FIELD_DESC,  /* STR `field_description` */
    DM_SCHEMA_EXAMPLE,     /* STR `field_example` */
    DM_SCHEMA_TYPE,        /* STR `field_type` */
    DM_SCHEMA_REQUIRED,    /* UINT `field_required` 0/1 */
    DM_SCHEMA_FORMAT,      /* STR `field_format` */
    DM_SCHEMA_UNIT,        /* STR `field_unit` */
    DM_SCHEMA_MIN,         /* F64 `field_minimum` (0 when absent) */
    DM_SCHEMA_MAX,         /* F64 `field_maximum` (0 when absent) */
    DM_SCHEMA_ENUM,        /* STR `field_enum_values` */
    DM_SCHEMA_NCOLS
};

/* system_events columns: times in unix ns (host clock), not shifted by device_model_finish. */
enum {
    DM_SYSEV_ID,       /* INT */
    DM_SYSEV_NAME,     /* STR */
    DM_SYSEV_START,    /* INT unix ns `start_ts` */
    DM_SYSEV_END,      /* INT unix ns `end_ts` */
    DM_SYSEV_DURATION, /* INT ns */
    DM_SYSEV_SOURCE,   /* STR `trace_event_source`: neuron_rt, neuron_hw, framework */
    DM_SYSEV_INSTANCE, /* STR `instance_id` */
    DM_SYSEV_PROCESS,  /* INT `process_id` */
    DM_SYSEV_THREAD,   /* INT `thread_id` */
    DM_SYSEV_NC,       /* INT `nc_idx`, -1 when absent */
    DM_SYSEV_PCORE,    /* INT `pcore_idx`, -1 when absent */
    DM_SYSEV_WORKER,   /* INT `worker_gid`, -1 when absent */
    DM_SYSEV_FLOW_IDS, /* STR `flow_id` list joined with ',' ("" for an empty or null list) */
    DM_SYSEV_STREAM,   /* STR `framework_stream_id` */
    DM_SYSEV_ATTRS,    /* STR `extra_attributes_json` */
    DM_SYSEV_NCOLS
};

/* kernel_instructions columns. */
enum {
    DM_KINSTR_NAME,        /* STR `kernel_instruction_name` */
    DM_KINSTR_FRAME,       /* INT `stack_frame_id`, -1 when absent */
    DM_KINSTR_FRAME_DEPTH, /* INT `stack_frame_depth` */
    DM_KINSTR_ITER_VARS,   /* INT `iteration_variables_id`, -1 when absent */
    DM_KINSTR_ITER_DEPTH,  /* INT `iteration_variable_depth` */
    DM_KINSTR_PCORE,       /* INT `pcore_idx` */
    DM_KINSTR_FILE,        /* STR `file_path` */
    DM_KINSTR_LINE,        /* INT `line_number` */
    DM_KINSTR_NCOLS
};

/* kernel_stack_frames columns. */
enum {
    DM_KFRAME_ID,       /* INT `stack_frame_id` */
    DM_KFRAME_FUNCTION, /* STR `fully_qualified_function_name` */
    DM_KFRAME_PARENT,   /* INT `parent_stack_frame_id`, -1 when absent */
    DM_KFRAME_PCORE,    /* INT `pcore_idx` */
    DM_KFRAME_FILE,     /* STR `file_path` */
    DM_KFRAME_LINE,     /* INT `line_number` */
    DM_KFRAME_NCOLS
};

#endif
