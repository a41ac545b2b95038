/* ntff_payload — decodes the NTFF payload (instructions, DMA packets, semaphore records) natively
 * (../shared/docs/ntff.md; the byte layout is described at the top of ntff_payload.c).
 *
 * Owns: one ntff_payload per open (heap; ntff_payload_free): the header facts (nl_ntff), and per physical
 * core its name, section table, clock table and the opcode byte of every instruction slot. Records are never
 * held: ntff_payload_scan streams one section kind of one core through a visitor, reading NTFF_PAYLOAD_CHUNK
 * bytes at a time with pread, so memory is bounded by the pairing state (NTFF_PAIR_* caps), not the file.
 * ntff_payload_fill_model builds a device_model of one core from those scans, one thread per section kind.
 * Threads: an opened ntff_payload is read-only; any number of threads may scan it at once (each call owns
 * its buffers). Errors: NULL / -1 plus a nullable nl_error naming the file and the absolute byte offset
 * (of the section-table entry, clock entry or record that broke the layout): NL_ERR_IO, NL_ERR_TRUNCATED
 * (a section or stream beyond the end of the file), NL_ERR_FORMAT (overlapping sections, a size not a
 * multiple of 16, a clock ratio of zero, more ends than starts, a record pattern outside ntff.md when
 * NTFF_PAYLOAD_STRICT is set), NL_ERR_UNSUPPORTED (payload versions other than 4, 5, 6), NL_ERR_LIMIT,
 * NL_ERR_NOMEM, NL_ERR_CANCELLED.
 *
 * Trust: every result says which NTFF version and architecture it came from and whether that combination
 * reproduces neuron-profile's export (ntff_payload_trust): v5 on inf2 is verified; everything else is
 * decoded by the same layout, unverified. Points ntff.md marks open are never filled in: they are absent
 * and listed (ntff_payload_absent_fields). */
#ifndef NL_NTFF_PAYLOAD_H
#define NL_NTFF_PAYLOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "nl_error.h"
#include "ntff.h"

#define NL_NTFF_PAYLOAD_VERSION_MIN 4          /* NTFF versions whose payload this decoder reads */
#define NL_NTFF_PAYLOAD_VERSION_MAX 6
#define NTFF_PAYLOAD_CHUNK ((size_t)1 << 20)   /* bytes per pread while scanning a section */
#define NTFF_PAYLOAD_CORES_MAX 64u             /* per-core messages (1 on inf2/trn1, 2 on trn2) */
#define NTFF_PAYLOAD_SECTIONS_MAX 4096u        /* section-table entries per file (5 per core seen, 22 in v6) */
#define NTFF_PAYLOAD_DMA_ENGINES_MAX 128u      /* clock subfield 8 entries; d & 0x7f can name 0..127 */
#define NTFF_PAYLOAD_STREAM_SLOTS_MAX (1u << 22) /* 64-byte instruction slots per engine (4,851 seen) */
#define NTFF_PAIR_DMA_PENDING_MAX 1024u        /* DMA starts waiting for their data record, per (engine, queue);
                                                  2 seen */
#define NTFF_PAYLOAD_CLOCK_MAX ((uint64_t)1 << 31) /* clock ratio terms above this are NL_ERR_LIMIT */
#define NTFF_PAYLOAD_THREADS_MAX 16u

/* Engines in the record code order of kind-0 records (d = 0x80 | engine << 2 | is_end). */
typedef enum ntff_engine {
    NTFF_ENGINE_TENSOR = 1,
    NTFF_ENGINE_SCALAR = 2,
    NTFF_ENGINE_GPSIMD = 3,
    NTFF_ENGINE_VECTOR = 4,
    NTFF_ENGINE_SYNC = 5,
    NTFF_ENGINE_COUNT = 6 /* codes are 1..5 */
} ntff_engine;

/* The export's `subgroup` name of an engine code ("Tensor", ...); "" for other codes. */
const char *ntff_engine_name(unsigned engine);

/* Section kinds (section-table field 1). */
typedef enum ntff_section_kind {
    NTFF_SECTION_INSTRUCTIONS = 0,
    NTFF_SECTION_SEMAPHORES = 1,
    NTFF_SECTION_EMPTY2 = 2,  /* always empty in the samples */
    NTFF_SECTION_DMA = 4,     /* with sub 1 */
    NTFF_SECTION_KIND5 = 5,   /* 4-10 records in a file; [open], counted only */
} ntff_section_kind;

typedef enum ntff_payload_flags {
    /* A record whose bit pattern is outside ntff.md, or a non-empty section of an unknown kind, is an
     * NL_ERR_FORMAT error. Without it such records are skipped and counted (a labelled partial result). */
    NTFF_PAYLOAD_STRICT = 1u,
} ntff_payload_flags;

typedef struct ntff_payload_options {
    unsigned flags;           /* ntff_payload_flags */
    unsigned threads;         /* ntff_payload_fill_model: 0 = online CPUs (at most 3 are used), 1 = sequential */
    size_t chunk_bytes;       /* 0 = NTFF_PAYLOAD_CHUNK; rounded down to a multiple of 16, at least 16 */
    const atomic_int *cancel; /* nullable; polled once per chunk → NL_ERR_CANCELLED */
} ntff_payload_options;

typedef struct ntff_payload ntff_payload;

/* One entry of a core's section table (v4/v5: core field 6; v6: top-level field 16 with field 7 = the core's
 * field 3). Offsets are relative to the payload start; entry_offset is the absolute offset of the entry. */
typedef struct ntff_payload_section {
    uint32_t kind, sub, f4;
    uint64_t offset, size;
    int64_t entry_offset;
    bool decoded;             /* a kind this decoder reads (0/0, 1/0, 4/1) or kind 2 / kind 5 */
} ntff_payload_section;

/* One clock (core field 10): ns = (ts - base) × measured / nominal / 1000. */
typedef struct ntff_payload_clock {
    bool present;
    uint64_t base, nominal, measured;
    int64_t entry_offset;
} ntff_payload_clock;

typedef struct ntff_payload_stream {
    bool present;
    uint64_t address;          /* field 4.2: device address */
    uint32_t slots;            /* 64-byte slots (bytes / 64) */
    bool in_payload;           /* v6: bytes at payload offset field 4.7, size 4.8 (not in ntff.md: see report) */
    uint64_t offset;           /* absolute file offset of slot 0 */
    int64_t entry_offset;      /* absolute offset of the field-4 entry */
} ntff_payload_stream;

typedef struct ntff_payload_core {
    char name[32];             /* core field 1: "sg00" */
    bool has_physical_id;
    uint64_t physical_id;      /* core field 3 (trn2: 4, 5); absent on inf2/trn1 */
    bool has_f14;
    uint64_t f14;              /* core field 14, raw (not interpreted; see the report) */
    size_t section_count;
    const ntff_payload_section *sections;      /* this core's entries in table order */
    ntff_payload_clock engine_clock[NTFF_ENGINE_COUNT]; /* by engine code 1..5 (clock subfields 1,2,4,3,5) */
    ntff_payload_clock semaphore_clock;        /* clock subfield 6 */
    size_t dma_clock_count;
    const ntff_payload_clock *dma_clock;       /* clock subfield 8, one per DMA engine */
    ntff_payload_stream stream[NTFF_ENGINE_COUNT]; /* by engine code (field 4.1 = code - 1) */
} ntff_payload_core;

typedef enum ntff_trust_level {
    NTFF_TRUST_VERIFIED,   /* v5 on inf2: reproduces neuron-profile's export (ntff.md, 9 pairs) */
    NTFF_TRUST_UNVERIFIED, /* decoded by the same layout; no export exists to check it */
} ntff_trust_level;

typedef struct ntff_payload_trust {
    ntff_trust_level level;
    uint8_t ntff_version;
    char architecture[16];     /* instance type before the first '.': "inf2", "trn1", "trn2"; "" unknown */
    char instance_type[NL_NTFF_SHORT_STRING_MAX];
    const char *label;         /* static: one sentence saying which of the two holds and why */
    bool opcode_names;         /* the name table applies (NeuronCore-v2: inf2, trn1) */
    bool evt_wait;             /* w >> 16 is taken as event-wait cycles (engine clocks are not the identity) */
} ntff_payload_trust;

/* ---- lifecycle ---------------------------------------------------------------------------------------- */

/* Open `path`: read the header and metadata, lay out every core. opt may be NULL (defaults). */
ntff_payload *ntff_payload_open(const char *path, const ntff_payload_options *opt, nl_error *err)
    __attribute__((warn_unused_result));
/* The same over a whole NTFF in memory (`len` = file size; borrowed, must outlive the handle). */
ntff_payload *ntff_payload_open_mem(const uint8_t *buf, size_t len, const char *source,
                                    const ntff_payload_options *opt, nl_error *err)
    __attribute__((warn_unused_result));
void ntff_payload_free(ntff_payload *p);

/* ---- layout (borrowed from the handle) ---------------------------------------------------------------- */

const nl_ntff *ntff_payload_header(const ntff_payload *p);
size_t ntff_payload_core_count(const ntff_payload *p);
const ntff_payload_core *ntff_payload_core_at(const ntff_payload *p, size_t core);
void ntff_payload_trust_get(const ntff_payload *p, ntff_payload_trust *out);
/* The trust of an NTFF from its header alone (version byte and instance type, NULL = unknown), as the
 * decoder will state it, except evt_wait (false: it needs the clock tables). For callers that have not
 * opened the payload, such as orient. */
void ntff_payload_trust_of_header(uint8_t ntff_version, const char *instance_type, ntff_payload_trust *out);
/* Byte 0 of instruction slot `slot` of an engine: 0..255, or -1 without that slot. */
int ntff_payload_slot_opcode(const ntff_payload *p, size_t core, unsigned engine, uint32_t slot);
/* Read `n` whole 64-byte slots starting at `slot` into buf (n * 64 bytes). -1 when out of range or on I/O. */
int ntff_payload_read_slots(const ntff_payload *p, size_t core, unsigned engine, uint32_t slot, uint32_t n,
                            uint8_t *buf, nl_error *err) __attribute__((warn_unused_result));

/* ---- origin ------------------------------------------------------------------------------------------- */

typedef enum ntff_origin_rule {
    /* ntff.md "Origin G": per engine, the first main-stream instruction after the 0x20 marker; G is the
     * latest end among those. Visible: main-stream instructions starting at or after G with an end. */
    NTFF_ORIGIN_EXPORT_G,
    /* The file does not have the structure that rule needs (per engine one start-up stream, then a main
     * stream holding the marker and an instruction after it; v6 files do not): every paired instruction is
     * visible and the origin is the earliest instruction start. Not what an export would show. */
    NTFF_ORIGIN_FIRST_START,
    NTFF_ORIGIN_NONE,          /* no instruction records: nothing is visible */
} ntff_origin_rule;

/* An exact time: q + r / denom ns, 0 <= r < denom (the conversion is floor-exact, never through double). */
typedef struct ntff_time {
    int64_t q;
    uint64_t r, denom;
} ntff_time;

typedef struct ntff_origin {
    ntff_origin_rule rule;
    ntff_time g;               /* the origin */
    unsigned engine;           /* engine whose instruction gave it */
    uint8_t main_stream[NTFF_ENGINE_COUNT]; /* EXPORT_G: main stream id per engine */
    char why[160];             /* FIRST_START: which precondition failed */
} ntff_origin;

/* Find the origin of a core (reads the instruction section up to where every engine's G is known). */
int ntff_payload_origin(const ntff_payload *p, size_t core, ntff_origin *out, nl_error *err)
    __attribute__((warn_unused_result));

/* ---- streaming rows ----------------------------------------------------------------------------------- */

#define NTFF_OPCODE_NONE (-1) /* no slot, or the candidate slots of a pc byte disagree */

typedef struct ntff_instr_row {
    int64_t timestamp_ns;      /* floor(start - origin) */
    int64_t duration_ns;       /* floor(end - start) */
    int64_t end_ns;            /* floor(end - origin) (last_hw_timestamp is the largest) */
    int64_t evt_wait_ns;       /* floor(cycles / 1.4); -1 when the trust says evt_wait is not known */
    unsigned engine;           /* ntff_engine */
    uint8_t pc_byte;           /* record byte a = pc & 0xff */
    int32_t pc;                /* full pc when exactly one slot has this pc byte, else -1 */
    int opcode;                /* slot byte 0 when every candidate slot agrees, else NTFF_OPCODE_NONE */
    uint8_t stream, flags;     /* record bytes b and c of the start */
    uint64_t start_offset;     /* absolute file offset of the start record */
} ntff_instr_row;

typedef struct ntff_dma_row {
    int64_t timestamp_ns;      /* floor(start - origin) */
    int64_t duration_ns;       /* floor(data - start) */
    unsigned engine, queue;    /* d & 0x7f; w >> 4 & 15 */
    uint32_t size;             /* data record bytes 0..1 (u16) */
    uint32_t crc;              /* data record w >> 16 */
    uint64_t start_offset;
} ntff_dma_row;

typedef struct ntff_sem_row {
    int64_t timestamp_ns;      /* floor(ts - origin), clock subfield 6; may be negative */
    uint8_t index;             /* a */
    uint8_t b, c, d;           /* raw bytes (d & 3 == 3) */
    uint32_t value;            /* w */
    uint64_t offset;
} ntff_sem_row;

/* Called once per visible row, in record order (instructions in the order of their end records). A nonzero
 * return stops the scan, which then fails with NL_ERR_CANCELLED. Any member may be NULL. */
typedef struct ntff_payload_visitor {
    int (*instruction)(void *ctx, const ntff_instr_row *row);
    int (*dma)(void *ctx, const ntff_dma_row *row);
    int (*semaphore)(void *ctx, const ntff_sem_row *row);
} ntff_payload_visitor;

/* What one scan saw. Fields of other kinds stay 0. */
typedef struct ntff_scan_stats {
    uint64_t records;          /* records read in the scanned sections */
    uint64_t skipped;          /* records outside ntff.md's bit patterns (skipped; an error when STRICT) */
    int64_t first_skipped_offset; /* -1 when none */
    uint64_t skipped_sections; /* non-empty sections of an unknown kind/sub/f4 (their records not counted) */
    /* instructions */
    uint64_t instr_pairs;      /* start/end pairs */
    uint64_t instr_visible;    /* rows given to the visitor */
    uint64_t instr_before_origin, instr_other_stream, instr_unended; /* not visible, by reason */
    uint64_t instr_per_engine[NTFF_ENGINE_COUNT]; /* visible, by engine code */
    uint64_t opcode_ambiguous; /* visible rows whose pc byte has candidate slots with different opcodes */
    uint64_t opcode_no_slot;   /* visible rows whose pc byte is beyond the engine's slots */
    int64_t last_end_ns;       /* largest end_ns of a visible row; INT64_MIN when none */
    /* DMA */
    uint64_t dma_pairs, dma_visible, dma_before_origin, dma_unended, dma_type6;
    /* semaphores, kind 5 */
    uint64_t sem_records, kind5_records;
} ntff_scan_stats;

/* Scan every section of `kind` (INSTRUCTIONS, SEMAPHORES, DMA or KIND5) of one core, in table order, with
 * `origin` from ntff_payload_origin. `stats` (nullable) is zeroed first. */
int ntff_payload_scan(const ntff_payload *p, size_t core, ntff_section_kind kind, const ntff_origin *origin,
                      const ntff_payload_visitor *v, void *ctx, ntff_scan_stats *stats, nl_error *err)
    __attribute__((warn_unused_result));

/* ---- into the device model ---------------------------------------------------------------------------- */

typedef struct ntff_payload_report {
    ntff_payload_trust trust;
    ntff_origin origin;
    ntff_scan_stats instr, dma, sem, kind5;
} ntff_payload_report;

/* Decode one core into `m` (a new, empty model; finished with device_model_finish on success):
 * - instruction: timestamp, duration, evt_wait_time (0 when the trust says unknown), subgroup (engine name),
 *   label (= subgroup, "TensorMatrix" for MATMUL), opcode (name when the table applies, "OPCODE_0x5a"
 *   when the code is not in it, "" when ambiguous), pc_byte;
 * - dma: timestamp, duration, transfer_size, dma_engine, dma_queue (packet rows; never aggregated);
 * - ntff_semaphore: every kind-1 record, raw (the mapping to semaphore_update rows is open);
 * - metadata: ntff_version, first_hw_timestamp 0, last_hw_timestamp, plus neuronlens_ntff_* keys (trust,
 *   label, architecture, core, origin rule); model_info: sg_name, event_count and the five
 *   <engine>_engine_instruction_count.
 * The full pc (where one slot has the pc byte) and the DMA CRC are in the scan rows (ntff_instr_row,
 * ntff_dma_row), not in the model, to keep an export's model at its size.
 * `report` (nullable) receives the trust, origin and scan statistics. Sections are decoded on up to three
 * threads; the model is identical to a sequential decode's. On failure the model must be discarded. */
int ntff_payload_fill_model(const ntff_payload *p, size_t core, device_model *m, ntff_payload_report *report,
                            nl_error *err) __attribute__((warn_unused_result));

/* Export fields a decoded model does not carry (only the export or the NEFF does), as a NULL-terminated
 * list of "table.field" names. Depends on the trust (evt_wait_time, opcode names). */
const char *const *ntff_payload_absent_fields(const ntff_payload_trust *trust);

/* ---- cross-check against an export of the same NTFF --------------------------------------------------- */

typedef struct ntff_crosscheck {
    /* instructions compared on (timestamp, duration, engine, evt_wait, pc & 0xff) as multisets */
    size_t instr_export, instr_decoded, instr_matched;
    /* DMA packets (export rows not aggregated) on (timestamp, duration, engine, queue, size) */
    size_t dma_export, dma_export_aggregated, dma_decoded, dma_matched;
    size_t dma_matched_but_timestamp;  /* further pairs equal except for the timestamp */
    int64_t dma_timestamp_max_diff;    /* largest |difference| among those */
    /* model_info per-engine instruction counts equal (tensor, vector, scalar, gpsimd, sync) */
    int engine_counts_equal;           /* 1 yes, 0 no, -1 a model has no model_info counts */
    char first_instr_disagreement[NL_ERROR_MESSAGE_MAX];
    char first_dma_disagreement[NL_ERROR_MESSAGE_MAX];
} ntff_crosscheck;

/* Compare a model decoded from an NTFF with the export's model of the same NTFF. Both must be finished. */
int ntff_payload_crosscheck(const device_model *decoded, const device_model *exported, ntff_crosscheck *out,
                            nl_error *err) __attribute__((warn_unused_result));

#endif
