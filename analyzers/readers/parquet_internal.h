/* parquet_internal — the decoded footer shared by parquet_meta.c (which builds it) and parquet.c (which
 * reads column chunks with it). Folder-internal; the public API is parquet.h.
 *
 * Owns: everything hangs off struct parquet_file and is freed by parquet_close. Immutable after
 * parquet_meta_decode returns, so chunk reads on many threads share it. */
#ifndef NL_PARQUET_INTERNAL_H
#define NL_PARQUET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"
#include "parquet.h"

/* One column chunk's ColumnMetaData, checked against the file: [start, start + size) lies between the
 * leading magic and the footer. */
typedef struct pq_chunk_meta {
    int32_t type;   /* physical type written in ColumnMetaData (= the schema leaf's) */
    int32_t codec;
    int64_t num_values;         /* levels, nulls included */
    int64_t total_uncompressed; /* pages with headers */
    int64_t null_count;         /* -1 when the statistics have none */
    uint64_t start;             /* dictionary page, else first data page */
    uint64_t size;              /* total_compressed_size: every page of the chunk with its header */
    int64_t meta_offset;        /* footer offset of the ColumnChunk (errors) */
} pq_chunk_meta;

typedef struct pq_row_group {
    int64_t num_rows;
    pq_chunk_meta *chunks; /* [parquet_file.nleaves] */
} pq_row_group;

typedef struct pq_leaf {
    parquet_column_info info;
    uint16_t rep_def; /* lists: the definition level at which an element exists (the repeated node's) */
} pq_leaf;

struct parquet_file {
    char *source;
    int fd;              /* -1 for memory */
    const uint8_t *mem;  /* memory input, else NULL */
    uint64_t size;
    uint64_t data_end;   /* first byte of the footer */
    char *created_by;
    int64_t num_rows;
    pq_leaf *leaves;
    size_t nleaves;
    pq_row_group *rgs;
    size_t nrgs;
    char *names;         /* every leaf's name and path, NUL-terminated, back to back */
};

/* Decode the footer `buf[0, len)` (FileMetaData, at file offset `offset`) into f (whose source, size and
 * data_end are set). 0 or -1 with err set. */
int parquet_meta_decode(parquet_file *f, const uint8_t *buf, size_t len, int64_t offset, nl_error *err)
    __attribute__((warn_unused_result));

#endif
