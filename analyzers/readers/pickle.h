/* pickle — a safe, streaming reader for Python pickles of plain data (PyTorch memory snapshots).
 *
 * Owns: its own state (the pickle machine's stack, the few memo entries that are referenced again, a byte
 * carry for an opcode split across two feeds); interned strings go into the caller's strtab. Nothing is
 * ever imported or called: the opcodes that would (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ,
 * NEWOBJ_EX, EXT1/2/4, PERSID, BINPERSID, NEXT_BUFFER, READONLY_BUFFER) stop the read with
 * NL_ERR_UNSUPPORTED naming the opcode and its byte offset. Accepted: dicts, lists, tuples of scalars,
 * str (UTF-8, surrogates passed as Python's "surrogatepass" does), bytes, ints, floats, bools, None, the
 * memo, MARK/FRAME/PROTO/STOP — every opcode of protocols 2–5 for these (and protocol 1's binary ones),
 * plus the text PUT/GET; the other text opcodes of protocol 0 are refused as unsupported.
 * Events, not a tree: the handler gets each value in document order with its role (root, list/tuple item,
 * dict key, dict value); a new container is followed by its items and an `end` unless the handler skips
 * it. Memory is bounded by the machine's stack (one batch of items per open container), the depth cap and
 * the memo entries that are read again — never by the document's size.
 * Two passes over the same bytes: pickle opcodes build containers before saying where they go (a dict is
 * filled, then appended to its parent), so the first pass records, in 2 bits per container, which open
 * container each one ends up in, and which memo entries are ever read back (1 bit each); the second pass
 * delivers the events in order with constant look-ahead. The caller feeds the input twice (the *_read_*
 * helpers do it).
 * Threads: one reader per thread; handlers run on the calling thread.
 * Errors: -1 with nl_error naming the source, the opcode's byte offset and what was expected:
 * NL_ERR_FORMAT (unknown opcode, a stack or memo misuse, invalid UTF-8), NL_ERR_TRUNCATED (input ended
 * before STOP), NL_ERR_LIMIT (a cap below), NL_ERR_UNSUPPORTED (refused opcodes, protocol > 5, shapes
 * outside plain data: a dict or list inside a tuple, nested tuples, mutating a container after it was
 * referenced), NL_ERR_NOMEM, NL_ERR_CANCELLED, NL_ERR_IO (the input changed between the passes); a
 * handler's own error passes through. After an error the reader is dead. */
#ifndef NL_PICKLE_H
#define NL_PICKLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"
#include "strtab.h"

/* Caps (NL_ERR_LIMIT beyond them): containers open inside one another, bytes of one str or bytes value
 * (checked on the length prefix, before any allocation), bytes of one LONG1/LONG4 integer, values on the
 * machine's stack at once, items of one tuple, memo entries. */
#define PICKLE_DEPTH_MAX 64u
#define PICKLE_STRING_MAX ((uint64_t)64 << 20)
#define PICKLE_LONG_BYTES_MAX 4096u
#define PICKLE_STACK_MAX ((size_t)1 << 22)
#define PICKLE_TUPLE_MAX 256u
#define PICKLE_MEMO_MAX ((uint64_t)1 << 31)
/* Bytes per read in pickle_read_fd / pickle_read_file, and opcodes between two polls of the cancel flag. */
#define PICKLE_READ_SIZE ((size_t)1 << 20)
#define PICKLE_POLL_OPS 65536u

typedef enum pickle_kind {
    PICKLE_NONE,
    PICKLE_BOOL,   /* i = 0 or 1 */
    PICKLE_INT,    /* i */
    PICKLE_BIGINT, /* an integer outside int64 (LONG1/LONG4); its value is not kept */
    PICKLE_FLOAT,  /* f */
    PICKLE_STR,    /* str: strtab id of its UTF-8 bytes */
    PICKLE_BYTES,  /* bytes / bytearray: strtab id of the bytes */
    PICKLE_DICT,
    PICKLE_LIST,
    PICKLE_TUPLE,
} pickle_kind;

typedef enum pickle_role {
    PICKLE_ROOT,  /* the pickled object itself */
    PICKLE_ITEM,  /* an item of a list or tuple */
    PICKLE_KEY,   /* a dict key (never a dict or list) */
    PICKLE_VALUE, /* the value of the key delivered just before */
} pickle_role;

/* One value as delivered. A tuple read back from the memo is delivered again in full (tuples hold only
 * scalars here); a dict or list read back is a reference (ref true) carrying the tag its `end` set. */
typedef struct pickle_value {
    pickle_kind kind;
    bool ref;       /* DICT/LIST: a memo reference to a container delivered earlier, not a new one */
    bool open;      /* ref: that container has not ended yet (it contains itself), so it has no tag */
    int64_t i;      /* BOOL, INT */
    double f;       /* FLOAT */
    uint32_t str;   /* STR, BYTES: strtab id */
    uint64_t tag;   /* ref: the tag set at its end; 0 when none was set or the container was skipped */
    int64_t offset; /* byte offset of the opcode that made the value (EMPTY_DICT, BINGET, TUPLE2, ...) */
} pickle_value;

/* What `value` returns for a new container (kind DICT, LIST or TUPLE with ref false): */
enum {
    PICKLE_SKIP = 0,  /* deliver nothing more of it (no items, no end) */
    PICKLE_VISIT = 1, /* deliver its items, then `end` */
};

typedef struct pickle_handler {
    /* A value in role `role`. New container: PICKLE_VISIT or PICKLE_SKIP; anything else: 0. -1 stops the
     * read with *err set by the handler. */
    int (*value)(void *ctx, pickle_role role, const pickle_value *v, nl_error *err);
    /* The innermost visited container is complete. `offset` = the opcode that showed it. *tag (0 on entry)
     * may be set nonzero: later references to this dict or list carry it (tuples ignore it). 0 or -1. */
    int (*end)(void *ctx, int64_t offset, uint64_t *tag, nl_error *err);
} pickle_handler;

typedef struct pickle_options {
    const char *source;         /* names the input in errors (copied); nullable */
    const atomic_int *cancel;   /* nullable; nonzero stops the read with NL_ERR_CANCELLED */
    size_t read_size;           /* pickle_read_fd/_file: bytes per read, 0 = PICKLE_READ_SIZE */
    uint32_t depth_max;         /* 0 = PICKLE_DEPTH_MAX (also the most accepted) */
    uint64_t string_max;        /* 0 = PICKLE_STRING_MAX (also the most accepted) */
} pickle_options;

/* What a read saw (both passes agree on the counts, or the read fails with NL_ERR_IO). */
typedef struct pickle_stats {
    int protocol;           /* the PROTO opcode's argument; 0 when there was none (protocol 0/1) */
    uint64_t bytes;         /* bytes up to and including STOP */
    uint64_t ops;           /* opcodes executed in one pass */
    uint64_t containers;    /* dicts and lists created */
    uint64_t memo_entries;  /* memo slots written */
    uint64_t memo_kept;     /* of them, read back at least once (the only ones whose value is kept) */
    uint64_t gets;          /* memo reads */
    size_t stack_peak;      /* most values on the machine's stack at once */
    size_t state_bytes;     /* peak heap bytes of the reader's own state (not the strtab) */
} pickle_stats;

typedef struct pickle_reader pickle_reader;

/* A reader delivering to `h` with `ctx`, interning strings into `strings` (borrowed; must outlive the
 * read). opt may be NULL. NULL with err set (NL_ERR_NOMEM, NL_ERR_ARGUMENT for a missing handler). */
pickle_reader *pickle_reader_new(strtab *strings, const pickle_handler *h, void *ctx, const pickle_options *opt,
                                 nl_error *err) __attribute__((warn_unused_result));
void pickle_reader_free(pickle_reader *r);

/* Push the next bytes of the input (any size, any boundary; bytes after STOP are ignored). 0 or -1. */
int pickle_reader_feed(pickle_reader *r, const void *data, size_t len, nl_error *err)
    __attribute__((warn_unused_result));
/* The input of the current pass is complete. 1: the first pass is done — feed the same input again from
 * its first byte; 0: the read is done; -1: error (NL_ERR_TRUNCATED when STOP was not reached). */
int pickle_reader_end(pickle_reader *r, nl_error *err) __attribute__((warn_unused_result));
void pickle_reader_stats(const pickle_reader *r, pickle_stats *out);

/* Whole reads: both passes over memory, an open descriptor (pread from offset 0, not closed) or a path.
 * stats may be NULL. 0 or -1. */
int pickle_read_mem(const void *data, size_t len, strtab *strings, const pickle_handler *h, void *ctx,
                    const pickle_options *opt, pickle_stats *stats, nl_error *err) __attribute__((warn_unused_result));
int pickle_read_fd(int fd, strtab *strings, const pickle_handler *h, void *ctx, const pickle_options *opt,
                   pickle_stats *stats, nl_error *err) __attribute__((warn_unused_result));
int pickle_read_file(const char *path, strtab *strings, const pickle_handler *h, void *ctx,
                     const pickle_options *opt, pickle_stats *stats, nl_error *err)
    __attribute__((warn_unused_result));

/* The name of opcode byte `op` as pickletools spells it ("BINUNICODE", "GLOBAL"); NULL for a byte that is
 * no opcode. */
const char *pickle_opcode_name(uint8_t op);
/* "none", "bool", "int", "bigint", "float", "str", "bytes", "dict", "list", "tuple". */
const char *pickle_kind_name(pickle_kind k);

#endif
