/* ntff — reads the header and protobuf metadata block of an NTFF device trace (formats.md §3).
 *
 * Owns one nl_ntff per call (heap; free with nl_ntff_free). Only the fixed header and the metadata
 * block are read — at most 128 + 16 MiB bytes, since the metadata length is a u24; the proprietary
 * payload after it is never decoded, only its size is checked. Reentrant; no shared state. Fails with
 * 0 / -1 or NULL plus a nullable nl_error naming the file and the byte offset: NL_ERR_IO (open/read),
 * NL_ERR_TRUNCATED (file shorter than a length field claims), NL_ERR_FORMAT (not an NTFF, e.g. a `.pb`
 * stream whose first length byte reads as version 129/130), NL_ERR_UNSUPPORTED (version 8..127). */
#ifndef NL_NTFF_H
#define NL_NTFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

#define NL_NTFF_HEADER_BYTES 128       /* fixed header; metadata starts here */
#define NL_NTFF_VERSION_MIN 1          /* Explorer 2.31/2.32 accepts 1..7; 4, 5, 6 seen */
#define NL_NTFF_VERSION_MAX 7
#define NL_NTFF_UUID_BYTES 16          /* f2[0:16] = NEFF uuid */
#define NL_NTFF_NAME_MAX 1024          /* f1 NEFF path (the NEFF header holds 256 bytes) */
#define NL_NTFF_SHORT_STRING_MAX 128   /* instance type, instance id, git hash */
#define NL_NTFF_VERSION_STRING_MAX 48  /* "2.29.40" */
#define NL_NTFF_MAX_SECTIONS 4096      /* f16 entries kept; 22 seen */

/* One v6 section-table entry (f16). Offsets are relative to the payload start 128 + L. */
typedef struct nl_ntff_section {
    uint64_t kind;    /* f1 */
    uint64_t f3;
    uint64_t f4;
    uint64_t offset;  /* f5 */
    uint64_t size;    /* f6 */
    uint64_t cls;     /* f7 (4 or 5 seen) */
} nl_ntff_section;

typedef struct nl_ntff {
    uint8_t version;              /* byte 0 */
    uint32_t metadata_len;        /* L, u24 LE at bytes 1..3 */
    uint64_t file_size;
    uint64_t payload_offset;      /* 128 + L */
    uint64_t payload_bytes;       /* file_size - payload_offset; 0 = empty device trace */

    char neff_name[NL_NTFF_NAME_MAX];         /* f1; "" when absent */
    bool has_uuid;                            /* f2 present with >= 16 bytes */
    uint8_t uuid[NL_NTFF_UUID_BYTES];
    char uuid_hex[2 * NL_NTFF_UUID_BYTES + 1];/* 32 lowercase hex chars */
    size_t uuid_field_len;                    /* whole f2 length: 22 (v4/v5) or 18 (v6) seen */
    uint64_t f3;                              /* 10001 seen */
    uint32_t lnc_size;                        /* f5; 0 when absent */
    int64_t capture_unix_time;                /* f7 (v4); -1 when absent */

    bool has_runtime;                         /* f8 {1 major, 2 minor, 3 patch, 5 git hash} */
    uint32_t runtime_major, runtime_minor, runtime_patch;
    char runtime_version[NL_NTFF_VERSION_STRING_MAX]; /* "2.29.40" */
    char runtime_git_hash[NL_NTFF_SHORT_STRING_MAX];  /* 40 hex chars seen */
    char instance_type[NL_NTFF_SHORT_STRING_MAX];     /* f9 */
    bool has_driver;                                  /* f11 {1,2} */
    char driver_version[NL_NTFF_VERSION_STRING_MAX];  /* "2.25" */
    bool has_collectives;                             /* f12 {1,2,3} */
    char collectives_version[NL_NTFF_VERSION_STRING_MAX]; /* "2.29.41" */
    bool has_f14;
    size_t core_info_count;                   /* f4 messages (per-subgraph / per-core info, §3): 0 = no payload
                                                 layout to decode */

    bool has_span;                            /* v6 f15 {1 uuid, 2 start, 3 end} */
    bool span_uuid_matches;                   /* f15.1 == f2[0:16] */
    uint64_t span_start, span_end;            /* device timestamps (ps assumed, formats.md §13) */

    size_t section_count;                     /* f16 entries seen (all counted) */
    nl_ntff_section *sections;                /* first min(count, NL_NTFF_MAX_SECTIONS), owned */
    bool sections_end_at_eof;                 /* 128 + L + last.offset == file size */
    uint64_t last_section_offset;

    char instance_id[NL_NTFF_SHORT_STRING_MAX]; /* f17 (v6) */
    bool has_f18;
    uint64_t f18;
    size_t unknown_field_count;               /* fields other than 1..18 (skipped) */
} nl_ntff;

/* Read `path`. Returns an owned nl_ntff or NULL with `err` set. */
__attribute__((warn_unused_result))
nl_ntff *nl_ntff_read(const char *path, nl_error *err);

/* Parse from memory: `buf` holds the first `len` bytes of a file of `file_size` bytes (len may be less
 * than file_size, but must cover 128 + L for success). `source` names the input in errors. */
__attribute__((warn_unused_result))
nl_ntff *nl_ntff_parse(const uint8_t *buf, size_t len, uint64_t file_size, const char *source, nl_error *err);

/* Check only byte 0 and the u24 length against `file_size` (first 4 bytes of `buf`). The quick test the
 * catalog uses; the error is the one nl_ntff_parse would report for these bytes. */
__attribute__((warn_unused_result))
int nl_ntff_check_prefix(const uint8_t *buf, size_t len, uint64_t file_size, const char *source, nl_error *err);

void nl_ntff_free(nl_ntff *ntff);

#endif
