/* nl_synth — builds small synthetic NEFF / NTFF / protobuf byte strings and temp directories for tests.
 *
 * Everything is generated at test time (no sample data is copied into the repository). Buffers are
 * malloc'ed and owned by the caller; helpers abort on out-of-memory or I/O failure, since a test that
 * cannot build its input has nothing to assert. Single-threaded test code only. */
#ifndef NL_SYNTH_H
#define NL_SYNTH_H

#include <stddef.h>
#include <stdint.h>

typedef struct synth_buf {
    uint8_t *p;
    size_t len, cap;
} synth_buf;

void synth_free(synth_buf *b);
void synth_append(synth_buf *b, const void *data, size_t n);
void synth_varint(synth_buf *b, uint64_t v);
void synth_varint_field(synth_buf *b, uint32_t field, uint64_t v);
void synth_bytes_field(synth_buf *b, uint32_t field, const void *data, size_t n);
void synth_string_field(synth_buf *b, uint32_t field, const char *s);
void synth_msg_field(synth_buf *b, uint32_t field, const synth_buf *msg);

/* A tar member for synth_neff. */
typedef struct synth_member {
    const char *name;
    const char *data;      /* NULL → `len` zero bytes */
    size_t len;
} synth_member;

/* A NEFF: valid 1024-byte header (uuid, network name, LNC 2, features 0xc00) + gzip tar of `members`. */
synth_buf synth_neff(const synth_member *members, size_t n, const uint8_t uuid[16], const char *network_name);

/* Typical NTFF metadata: f1 name, f2 uuid + 2 bytes, f3, f5 LNC, f8 runtime 2.30.51 + hash, f9 instance
 * type, f11 driver 2.26, f12 collectives 2.30.59, f14; when v6: f15 span, `sections` f16 entries (the
 * last at offset `payload_len`), f17 instance id, f18. */
synth_buf synth_ntff_meta(const uint8_t uuid[16], const char *neff_name, int v6, unsigned sections,
                          uint64_t payload_len);

/* Whole NTFF: version byte, u24 metadata length, 124 filler bytes, metadata, `payload_len` bytes. */
synth_buf synth_ntff(uint8_t version, const synth_buf *meta, size_t payload_len);

/* Files and directories. */
char *synth_tmpdir(void);                        /* mkdtemp under $TMPDIR or /tmp; caller frees */
char *synth_path(const char *dir, const char *name); /* dir/name, malloc'ed */
void synth_write(const char *path, const void *data, size_t n);
void synth_write_str(const char *path, const char *s);
void synth_rmrf(const char *dir);

#endif
