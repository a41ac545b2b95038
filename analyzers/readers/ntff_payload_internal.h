/* ntff_payload_internal — what ntff_payload.c (layout), ntff_payload_scan.c (records) and
 * ntff_payload_model.c (device model, cross-check) share; folder-internal.
 *
 * The handle is built once by ntff_payload_open and read-only afterwards: scans on several threads read it
 * through np_read (pread on the shared fd, or memcpy from the caller's buffer). Errors as in ntff_payload.h. */
#ifndef NL_NTFF_PAYLOAD_INTERNAL_H
#define NL_NTFF_PAYLOAD_INTERNAL_H

#include "ntff_payload.h"

/* Per engine and pc byte: the full pc when exactly one slot has that byte, and the opcode when every
 * candidate slot (pc byte + 256·k below the slot count) has the same byte 0. */
#define NP_PC_NONE (-1)
#define NP_OPCODE_NO_SLOT (-2)   /* internal: no candidate slot at all */
#define NP_OPCODE_AMBIGUOUS (-3) /* internal: candidates disagree */

typedef struct np_core {
    ntff_payload_core pub;
    ntff_payload_section *sections;            /* owned; pub.sections points here */
    ntff_payload_clock *dma_clock;             /* owned; pub.dma_clock points here */
    uint8_t *slot_opcode[NTFF_ENGINE_COUNT];   /* owned; byte 0 of every slot, by engine code */
    int32_t pc_of_byte[NTFF_ENGINE_COUNT][256];
    int16_t opcode_of_byte[NTFF_ENGINE_COUNT][256]; /* 0..255, NP_OPCODE_NO_SLOT or NP_OPCODE_AMBIGUOUS */
} np_core;

struct ntff_payload {
    char *source;                 /* path or the caller's name for the buffer; owned */
    int fd;                       /* -1 for a memory buffer */
    const uint8_t *mem;           /* borrowed (open_mem) */
    uint64_t file_size;
    nl_ntff *hdr;                 /* header and metadata facts (ntff.c); owned */
    ntff_payload_options opt;
    size_t core_count;
    np_core *cores;               /* owned */
    ntff_payload_trust trust;
};

/* Exactly `n` bytes at absolute `offset` into buf; NL_ERR_TRUNCATED when the file ends first. */
int np_read(const ntff_payload *p, void *buf, size_t n, uint64_t offset, nl_error *err)
    __attribute__((warn_unused_result));

/* Bytes at absolute `offset` for reading `n` of them: a pointer into the memory buffer (no copy), or `buf`
 * filled by pread. NULL with err set on failure. */
const uint8_t *np_view(const ntff_payload *p, uint8_t *buf, size_t n, uint64_t offset, nl_error *err);

/* Chunk size of a scan (options, rounded to whole records). */
size_t np_chunk_bytes(const ntff_payload *p);

#endif
