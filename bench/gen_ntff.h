/* gen_ntff — writes a SYNTHETIC NTFF with a payload in the layout ../shared/docs/ntff.md documents, for the
 * payload decoder's tests and benchmarks (`nl-gen-profile --ntff-out FILE`).
 *
 * Two layouts: version 5 as on inf2 (section table in each core message, instruction slots inline, inf2
 * clock ratios, a start-up stream then a main stream with the 0x20 marker per engine: the export's origin
 * rule applies) and version 6 as on trn2 (instruction slots in the payload, section table at top-level
 * field 16 naming each core's field 3, identity clocks, stream ids counting up every 256 instructions and
 * the marker on the first instruction: the rule does not apply). Per core about 35 % of the records are
 * instructions (five engines, 256 slots each), 55 % DMA (16 engines × 16 queues; start, data, type 6),
 * 10 % semaphore records, plus four kind-5 records (v5). Nothing comes from a device: the NEFF name says
 * SYNTHETIC. Same options → same bytes.
 *
 * Owns: nothing between calls. Threads: no global state; concurrent calls writing different files are
 * safe. Never prints. Errors: 0, or -1 with a one-line message in errbuf (the file may be partial). */
#ifndef NL_GEN_NTFF_H
#define NL_GEN_NTFF_H

#include <stddef.h>
#include <stdint.h>

#define GEN_NTFF_MAX_CORES 8
#define GEN_NTFF_MIN_BYTES ((uint64_t)16 << 10)
#define GEN_NTFF_MAX_BYTES ((uint64_t)64 << 30)

typedef struct gen_ntff_options {
    uint64_t seed;
    int version;              /* 5 or 6 */
    int cores;                /* 1..GEN_NTFF_MAX_CORES */
    uint64_t target_bytes;    /* payload size to aim at, GEN_NTFF_MIN_BYTES..GEN_NTFF_MAX_BYTES */
} gen_ntff_options;

/* What a decoder following ntff.md must find, per core. */
typedef struct gen_ntff_core_expected {
    char name[8];                  /* "sg00" */
    uint64_t visible[6];           /* visible instructions by engine code 1..5 */
    uint64_t instr_records, dma_records, sem_records, kind5_records;
    uint64_t dma_visible, dma_before_origin;
    const char *origin_rule;       /* "export_g" (v5) or "first_start" (v6) */
} gen_ntff_core_expected;

typedef struct gen_ntff_expected {
    uint64_t file_bytes, payload_bytes, metadata_bytes;
    int cores;
    gen_ntff_core_expected core[GEN_NTFF_MAX_CORES];
} gen_ntff_expected;

int gen_ntff_write(const gen_ntff_options *o, const char *path, gen_ntff_expected *exp, char *errbuf,
                   size_t errcap) __attribute__((warn_unused_result));

#endif
