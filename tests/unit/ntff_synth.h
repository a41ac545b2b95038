/* ntff_synth — builds synthetic NTFFs with a payload (ntff.md layout) in memory for the decoder's tests.
 *
 * A test describes cores (name, physical id, clocks, instruction streams as opcode bytes) and sections of
 * 16-byte records, then ns_build lays them out: v4/v5 with the section table in each core message
 * (field 6), v6 with the streams at the start of the payload (fields 4.7/4.8) and the table at top-level
 * field 16 (field 7 = core id). Sections are placed one after the other unless the test fixes an entry's
 * offset and size (to describe a broken layout). ns_build reports where every entry and record landed, so
 * error offsets can be asserted exactly. Buffers are malloc'ed and owned by the caller (synth_free);
 * allocation failure aborts. Single-threaded test code. */
#ifndef NL_NTFF_SYNTH_H
#define NL_NTFF_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_synth.h"

#define NS_MAX_CORES 4
#define NS_MAX_SECTIONS 16
#define NS_MAX_DMA_CLOCKS 32

typedef struct ns_rec {
    uint8_t a, b, c, d;
    uint32_t w;
    uint64_t ts;
} ns_rec;

typedef struct ns_section {
    uint32_t kind, sub, f4;
    ns_rec *recs;
    size_t n, cap;
    bool fixed;               /* write `offset`/`size` into the table as given (records still placed) */
    uint64_t offset, size;
} ns_section;

typedef struct ns_clock {
    bool on;
    uint64_t base, nominal, measured;
} ns_clock;

typedef struct ns_core {
    char name[16];
    int64_t physical_id;      /* -1: no field 3 */
    ns_clock clock[7];        /* subfields 1..6 */
    unsigned dma_clocks;      /* subfield 8 entries, all with dma_clock */
    ns_clock dma_clock;
    uint8_t *opcodes[6];      /* byte 0 of each slot, by engine code 1..5 */
    uint32_t slots[6];
    ns_section sec[NS_MAX_SECTIONS];
    size_t nsec;
} ns_core;

typedef struct ntff_synth {
    uint8_t version;
    char instance_type[32];
    ns_core core[NS_MAX_CORES];
    size_t ncores;
} ntff_synth;

/* Where ns_build put things (absolute file offsets). */
typedef struct ns_layout {
    uint64_t payload_offset;
    int64_t section_entry[NS_MAX_CORES][NS_MAX_SECTIONS];
    uint64_t section_data[NS_MAX_CORES][NS_MAX_SECTIONS]; /* first record */
    int64_t clock_entry[NS_MAX_CORES][7];                 /* subfields 1..6 */
} ns_layout;

void ns_init(ntff_synth *s, uint8_t version, const char *instance_type);
void ns_free(ntff_synth *s);
ns_core *ns_add_core(ntff_synth *s, const char *name, int64_t physical_id);
void ns_clock_set(ns_core *c, unsigned subfield, uint64_t base, uint64_t nominal, uint64_t measured);
/* The same clock for engine subfields 1..5 and the semaphore clock 6. */
void ns_clocks_all(ns_core *c, uint64_t base, uint64_t nominal, uint64_t measured);
void ns_dma_clocks(ns_core *c, unsigned n, uint64_t base, uint64_t nominal, uint64_t measured);
/* Engine code 1..5; `opcodes` (copied) gives byte 0 of each of `slots` slots. */
void ns_stream(ns_core *c, unsigned engine, const uint8_t *opcodes, uint32_t slots);
ns_section *ns_section_add(ns_core *c, uint32_t kind, uint32_t sub);
void ns_push(ns_section *s, uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint32_t w, uint64_t ts);
/* Kind-0 start and end records of one instruction: d = 0x80 | engine << 2 | is_end; the start carries
 * wait cycles in w >> 16 (and 0x0000 below), the end w = 0xffffffff. */
void ns_instr(ns_section *s, unsigned engine, uint8_t stream, uint8_t pc, uint8_t flags, uint64_t start, uint64_t end,
              uint32_t wait_cycles);
/* Kind-4 start (type 1) and data (type 5) records. */
void ns_dma(ns_section *s, unsigned engine, unsigned queue, uint64_t start, uint64_t data, uint16_t size, uint16_t crc);
/* Kind-1 record: d = 0x80 | engine << 2 | 3. */
void ns_sem(ns_section *s, uint8_t index, uint32_t value, uint64_t ts);

synth_buf ns_build(const ntff_synth *s, ns_layout *layout);

#endif
