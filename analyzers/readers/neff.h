/* neff — reads a NEFF container: the 1024-byte header and a listing of its gzip-tar payload (formats.md §2).
 *
 * Two entry points: nl_neff_read_header fills caller storage from the first 1026 bytes (cheap; what the
 * catalog uses), nl_neff_read also streams the payload through libarchive, listing every member and
 * decoding the small JSON members (info.json, kelf-0.json, kernel_debug_info.json) up to a size cap. The
 * nl_neff it returns owns all its strings; free it with nl_neff_free. Reentrant; no shared state. Errors
 * are NULL / -1 plus a nullable nl_error naming the file and byte offset: NL_ERR_TRUNCATED (file shorter
 * than the header or than data_size claims), NL_ERR_FORMAT (header_size != 1024, no gzip magic at 1024,
 * corrupt tar), NL_ERR_LIMIT (a NL_NEFF_* cap exceeded), NL_ERR_IO. Problems inside small JSON members are
 * not fatal: they are counted in `problem_count` and the first is kept in `problem`. */
#ifndef NL_NEFF_H
#define NL_NEFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

#define NL_NEFF_HEADER_BYTES 1024
#define NL_NEFF_SNIFF_BYTES (NL_NEFF_HEADER_BYTES + 2)   /* header + gzip magic */
#define NL_NEFF_MAX_MEMBERS 65536                        /* tar members listed; 32..71 seen */
#define NL_NEFF_MEMBER_NAME_MAX 4096                     /* bytes in one member path */
#define NL_NEFF_SMALL_JSON_MAX (1u << 20)                /* info.json / kelf-0.json / kernel_debug_info.json */
#define NL_NEFF_EXPANDED_MAX (16ull << 30)               /* sum of member sizes (decompression bomb guard) */
#define NL_NEFF_MAX_LIST_ITEMS 1024                      /* subgraphs, debug_info_files kept */

typedef struct nl_neff_header {
    uint64_t file_size;
    uint64_t package_version;        /* @0   2 in all samples */
    uint64_t header_size;            /* @8   1024 */
    uint64_t data_size;              /* @16  payload bytes */
    uint64_t major_version;          /* @24 */
    uint64_t minor_version;          /* @32 */
    char build_version[129];         /* @40  char[128], NUL added */
    uint32_t num_tpb;                /* @168 */
    uint8_t hash[32];                /* @172 raw bytes */
    char hash_hex[33];               /* bytes 172..187 as the payload MD5 in canonical order: each stored
                                        32-bit little-endian word byte-reversed (formats.md §2) */
    uint8_t uuid[16];                /* @204 */
    char uuid_hex[33];               /* 32 lowercase hex chars; pairs with NTFF f2[0:16] */
    char network_name[257];          /* @220 char[256], NUL added */
    uint32_t requested_tpb_count;    /* @476 */
    uint8_t tpb_per_node[64];        /* @480 */
    uint64_t feature_bits;           /* @544 0xc00 on trn2 ("dge, dge-cast") */
    uint32_t lnc_size;               /* @552 physical cores per logical core */
    uint64_t trailing_bytes;         /* file_size - 1024 - data_size */
} nl_neff_header;

typedef struct nl_neff_member {
    char *name;        /* path inside the tar, leading "./" removed */
    uint64_t size;
    bool is_file;      /* regular file (not a directory/link entry) */
} nl_neff_member;

typedef struct nl_neff_debug_file {   /* one kernel_debug_info.json debug_info_files[] entry */
    char *file_name;                  /* e.g. "nki_moe_v6bkakepajm.klir.debuginfo.json" */
    char *kernel_name;                /* e.g. "__main__.nki_moe_v6b" */
    int64_t parent_tensorizer_id;     /* -1 when absent */
    bool in_payload;                  /* file_name is a member of the tar */
    uint64_t size;                    /* its member size when in_payload */
} nl_neff_debug_file;

typedef struct nl_neff {
    nl_neff_header header;

    size_t member_count;
    nl_neff_member *members;          /* member_count entries, tar order */
    uint64_t members_total_bytes;     /* Σ member sizes (uncompressed) */

    bool has_info_json;               /* info.json decoded */
    char *tool_version;               /* info.json tool_version = compiler version; NULL when absent */
    char *kelp_version;
    char *info_name;                  /* info.json name */
    int64_t info_num_tpb;             /* -1 when absent */

    bool has_kelf;                    /* kelf-0.json decoded */
    char *kelf_target;                /* "sunda" (trn1), "cayman" (trn2) */
    char *kelf_version;
    size_t subgraph_count;            /* kelf graphs[].name, e.g. "sg00", "sg01" */
    char **subgraphs;

    bool has_neff_json, has_metrics_json, has_hlo_stats_json, has_stack_frame_index;

    bool has_kernel_debug_info;       /* kernel_debug_info.json present: NKI source attribution possible */
    size_t debug_file_count;
    nl_neff_debug_file *debug_files;

    size_t problem_count;             /* non-fatal problems (bad/oversized small JSON members) */
    char problem[NL_ERROR_MESSAGE_MAX]; /* the first one; "" when none */
} nl_neff;

/* Validate and decode a header from `buf` (the first `len` bytes of a file of `file_size` bytes; at
 * least NL_NEFF_SNIFF_BYTES unless the file is shorter). `source` names the input in errors. */
__attribute__((warn_unused_result))
int nl_neff_parse_header(const uint8_t *buf, size_t len, uint64_t file_size, const char *source,
                         nl_neff_header *out, nl_error *err);

/* Read and validate only the header of `path`. */
__attribute__((warn_unused_result))
int nl_neff_read_header(const char *path, nl_neff_header *out, nl_error *err);

/* Read the header and list the payload of `path`. Returns an owned nl_neff or NULL. */
__attribute__((warn_unused_result))
nl_neff *nl_neff_read(const char *path, nl_error *err);

/* As nl_neff_read, over a whole NEFF held in memory (`len` = file size). */
__attribute__((warn_unused_result))
nl_neff *nl_neff_parse(const uint8_t *buf, size_t len, const char *source, nl_error *err);

/* Index of member `name` or -1. */
long nl_neff_find_member(const nl_neff *neff, const char *name);

void nl_neff_free(nl_neff *neff);

#endif
