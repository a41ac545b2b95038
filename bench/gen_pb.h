/* gen_pb — a minimal protobuf wire-format writer for the system-profile files of the generator
 * (formats.md §9: trace_info.pb, ntrace.pb, cpu_util.pb, host_mem.pb).
 *
 * Owns: the growable byte buffer of a gen_pb, from its zero initialisation to gen_pb_free.
 * Threads: one writer per gen_pb; no shared state.
 * Errors: an allocation failure is sticky (`failed`); later calls do nothing and the caller checks the flag
 * once per message (gen_pb_frame turns it into a failed gen_out).
 *
 * Why not the protoc-c code of proto/: proto/meson.build compiles the generated sources into exactly one
 * library (nlcore, the analyzers), and nlgen must not depend on the analyzers; compiling them a second time
 * into nlgen would put two copies of every nlsys__* symbol into the binaries that link both (neuronlens
 * links nlgen for `demo`), which only links by the luck of archive member selection. An encoder written
 * from formats.md §9, independent of the reader's generated code, also means the generator tests the
 * reader against a second implementation rather than against itself. The subset needed is small (varint,
 * fixed32 float, length-delimited), and the caller decides presence field by field, which is what the
 * real capture needs: an explicit `08 00` for interned id 0, omitted zeros in cpu_util.pb. */
#ifndef NL_GEN_PB_H
#define NL_GEN_PB_H

#include <stddef.h>
#include <stdint.h>

#include "gen_out.h"

typedef struct gen_pb {
    uint8_t *b;
    size_t len, cap;
    int failed;
} gen_pb;

void gen_pb_free(gen_pb *p);
static inline void gen_pb_reset(gen_pb *p)
{
    p->len = 0;
}

void gen_pb_varint(gen_pb *p, uint32_t field, uint64_t v);        /* wire type 0 */
void gen_pb_float(gen_pb *p, uint32_t field, float v);            /* wire type 5, IEEE-754 little-endian */
void gen_pb_bytes(gen_pb *p, uint32_t field, const void *s, size_t n); /* wire type 2 */
void gen_pb_str(gen_pb *p, uint32_t field, const char *s);
/* A nested message: gen_pb_open writes the tag and reserves a one-byte length; gen_pb_close fixes the
 * length (moving the body when it needs a longer varint). Nesting is allowed; close in reverse order. */
size_t gen_pb_open(gen_pb *p, uint32_t field);
void gen_pb_close(gen_pb *p, size_t mark);

/* One record of a length-prefixed stream: [u32 little-endian length][message]. A failed message marks
 * the output failed (ENOMEM). */
void gen_pb_frame(gen_out *o, const gen_pb *msg);
/* The whole buffer, unframed (trace_info.pb is one message). */
void gen_pb_write(gen_out *o, const gen_pb *msg);

#endif
