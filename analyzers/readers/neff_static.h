/* neff_static — what a NEFF says about its program without a trace: versions, compiler metrics, kernel
 * names, per-engine instruction slots, the HLO table, and how its slots line up with an NTFF's instruction
 * streams (formats.md §2; layout of each member at the top of neff_static.c).
 *
 * Owns: one neff_static per read (heap; neff_static_free), holding the header and member listing
 * (nl_neff, neff.c) plus what one more pass over the gzip tar (libarchive) decodes: for every subgraph
 * sgNN the five engine programs {PE, Activation, DVE, Pool, SP}.bin kept as byte 0 and a 64-bit hash of
 * each 64-byte slot, the slot → BIR-instruction ids of debug_info_asm_<engine>.dbg, metrics.json,
 * hlo_stats.json and debug_info/debug_info_hlo.dbg_*. Caps: NEFF_STATIC_* (NL_ERR_LIMIT beyond).
 * Reentrant; no shared state. Errors: NULL / -1 plus a nullable nl_error with the file and byte offset, as
 * nl_neff_read (neff.h). A member that is not what its name says (bad JSON, a .bin not whole 64-byte slots,
 * a .dbg that is not protobuf) is not fatal: it is skipped, counted in problem_count, the first kept. */
#ifndef NL_NEFF_STATIC_H
#define NL_NEFF_STATIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "neff.h"
#include "nl_error.h"
#include "ntff_payload.h"

#define NEFF_STATIC_SUBGRAPHS_MAX 256u
#define NEFF_STATIC_SLOTS_MAX (1u << 24)        /* instruction slots over all engines and subgraphs */
#define NEFF_STATIC_MEMBER_MAX ((uint64_t)256 << 20) /* one decoded member (.bin, .dbg, .json) */
#define NEFF_STATIC_HLO_MAX (1u << 20)          /* HLO entries kept */
#define NEFF_STATIC_METRICS_MAX 4096u
#define NEFF_STATIC_MATCH_WORK_MAX ((uint64_t)1 << 32) /* slot comparisons one alignment search may make */

/* The engines in NTFF code order (ntff_engine): the NEFF's file stem for each. */
typedef struct neff_engine_program {
    unsigned ntff_engine;     /* NTFF_ENGINE_TENSOR ... NTFF_ENGINE_SYNC */
    const char *stem;         /* static: "PE", "Activation", "Pool", "DVE", "SP" */
    bool present;             /* sgNN/<stem>.bin was in the payload */
    uint32_t slots;           /* instructions: bytes / 64 */
    uint8_t *opcode;          /* byte 0 of each slot (owned) */
    uint64_t *slot_hash;      /* FNV-1a 64 of each whole slot (owned) */
    uint32_t opcode_count[256]; /* slots per byte-0 value */
    bool has_asm_debug;       /* debug_info_asm_<stem>.dbg decoded */
    uint32_t asm_entries;     /* its per-instruction entries (equal to `slots` in every sample) */
    uint32_t *bir_id;         /* per slot: the first backend (BIR) instruction id of its entry, 0 = none (owned;
                                 NULL unless asm_entries == slots) */
} neff_engine_program;

typedef struct neff_subgraph_static {
    char name[16];            /* "sg00" */
    char def_version[16];     /* def.json "version" ("0.6"); "" when absent */
    neff_engine_program engine[NTFF_ENGINE_COUNT]; /* by NTFF engine code 1..5 */
} neff_subgraph_static;

typedef struct neff_metric {  /* metrics.json: [{MetricName, Value, Unit}] and hlo_stats.json: {name: number} */
    char *name;
    double value;
    char *unit;               /* "" for hlo_stats */
} neff_metric;

typedef struct neff_hlo_entry {  /* debug_info_hlo.dbg_*: field 3 entries */
    uint64_t id;              /* field 1 (0 when absent) */
    char *text;               /* field 2: "%p0.1 = parameter()" (the export's hlo_name form) */
    char *op_type, *source_file; /* attributes (field 7 {1 key, 2 value}) of those names; NULL when absent */
    int64_t source_line;      /* attribute source_line, -1 when absent or not a number */
} neff_hlo_entry;

typedef struct neff_kernel {  /* kernel_debug_info.json entry + its klir debuginfo's first "func" */
    char *name;               /* "__main__.nki_moe_v6b" */
    char *debug_file;         /* the klir member name */
    char *source_file;        /* func.file; NULL when the member is absent or has none */
    int64_t source_line;      /* func.line, -1 when absent */
} neff_kernel;

typedef struct neff_static {
    nl_neff *neff;            /* header, members, info.json, kelf-0.json, kernel_debug_info.json (owned) */
    size_t subgraph_count;
    neff_subgraph_static *subgraphs; /* in the order their members appear */
    size_t metric_count, hlo_stat_count, hlo_count, kernel_count;
    neff_metric *metrics;     /* metrics.json */
    neff_metric *hlo_stats;   /* hlo_stats.json */
    neff_hlo_entry *hlo;      /* all debug_info_hlo.dbg_* files, in order */
    neff_kernel *kernels;
    size_t problem_count;
    char problem[NL_ERROR_MESSAGE_MAX];
} neff_static;

neff_static *neff_static_read(const char *path, nl_error *err) __attribute__((warn_unused_result));
/* A whole NEFF in memory (`len` = file size). */
neff_static *neff_static_parse(const uint8_t *buf, size_t len, const char *source, nl_error *err)
    __attribute__((warn_unused_result));
void neff_static_free(neff_static *s);

/* Subgraph by name ("sg00"), or NULL. */
const neff_subgraph_static *neff_static_subgraph(const neff_static *s, const char *name);

/* How one engine's NEFF program sits in an NTFF instruction stream: the slot offset at which the most
 * NEFF slots equal the NTFF's (whole 64-byte slots; ties go to the lowest offset). */
typedef struct neff_slot_match {
    unsigned ntff_engine;
    uint32_t neff_slots, ntff_slots;
    int64_t offset;           /* NTFF slot of NEFF slot 0; -1 when no alignment was searched (an empty side,
                                 the NEFF program longer than the stream, or over NEFF_STATIC_MATCH_WORK_MAX) */
    uint32_t equal_slots;     /* at that offset */
    uint32_t equal_opcodes;   /* slots whose byte 0 is equal at that offset */
} neff_slot_match;

/* Match subgraph `subgraph` of the NEFF against core `core` of an opened NTFF, engine by engine
 * (out[e] for e = 1..5; out[0] unused). Reads the NTFF's slots (ntff_payload_read_slots). */
int neff_static_match_ntff(const neff_static *s, const neff_subgraph_static *subgraph, const ntff_payload *p,
                           size_t core, neff_slot_match out[NTFF_ENGINE_COUNT], nl_error *err)
    __attribute__((warn_unused_result));

#endif
