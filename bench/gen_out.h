/* gen_out — buffered output for the synthetic profile generator, with fast number formatting.
 *
 * Owns: its buffer and file descriptor, from gen_out_open to gen_out_close. A NULL path opens a counting
 * sink that discards bytes but counts them (used to size --target-bytes runs).
 * Threads: one writer per gen_out; no shared state, so different gen_outs may be used from different
 * threads at once.
 * Errors: a failure (write, or a writer's own allocation through gen_out_fail) is sticky: every later call
 * keeps going cheaply and gen_out_close returns -1 and reports the first failure, with its errno text,
 * through a gen_err. Nothing is printed. JSON helpers write compact JSON; strings are escaped.
 * Pinning: between gen_out_pin and gen_out_unpin the bytes written since the pin (one open JSON record) stay
 * contiguous in the buffer: a flush writes only what precedes them and moves them to the front, so a writer
 * can rearrange them in place (gen_export shuffles each record's members). A pinned record larger than the
 * buffer is a failure (EFBIG), never a silent cut. */
#ifndef NL_GEN_OUT_H
#define NL_GEN_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gen_err.h"

#define GEN_OUT_BUF_SIZE ((size_t)4 << 20)
#define GEN_OUT_NO_PIN SIZE_MAX

typedef struct gen_out {
    int fd;           /* -1 for a counting sink */
    int failed;       /* sticky: a write or allocation failed */
    int err;          /* errno of the first failure */
    const char *what; /* "write to", "allocate memory for", … (static text, for the message) */
    char *buf;
    size_t len;
    uint64_t total;   /* bytes accepted so far, including buffered ones */
    const char *path; /* borrowed, for messages */
    size_t pin;       /* buffer offset of the pinned (open) record, or GEN_OUT_NO_PIN */
} gen_out;

/* Open (create/truncate) `path`, or a counting sink when path is NULL. 0, or -1 with a message in `err`
 * (then nothing needs closing). */
int gen_out_open(gen_out *o, const char *path, gen_err *err) __attribute__((warn_unused_result));
/* Flush and close; always releases the buffer and descriptor. 0, or -1 with a message in `err` if anything
 * failed since gen_out_open. */
int gen_out_close(gen_out *o, gen_err *err) __attribute__((warn_unused_result));
void gen_out_flush(gen_out *o);
/* Mark the output failed (errnum, e.g. ENOMEM when a writer's scratch allocation fails); sticky. */
void gen_out_fail(gen_out *o, const char *what, int errnum);

static inline uint64_t gen_out_bytes(const gen_out *o)
{
    return o->total;
}

/* The out-of-line part of gen_out_mem: flush, then copy (or pass an oversized piece through). */
void gen_out_mem_slow(gen_out *o, const char *s, size_t n);

static inline void gen_out_mem(gen_out *o, const char *s, size_t n)
{
    if (o->len + n > GEN_OUT_BUF_SIZE) {
        gen_out_mem_slow(o, s, n);
        return;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->total += n;
}

static inline void gen_out_ch(gen_out *o, char c)
{
    if (o->len >= GEN_OUT_BUF_SIZE) {
        gen_out_mem_slow(o, &c, 1);
        return;
    }
    o->buf[o->len++] = c;
    o->total++;
}

/* Pin the bytes written from now on (one record at a time; the previous pin must be released). */
static inline void gen_out_pin(gen_out *o)
{
    o->pin = o->len;
}

static inline void gen_out_unpin(gen_out *o)
{
    o->pin = GEN_OUT_NO_PIN;
}

/* Bytes written since gen_out_pin, and where they are (valid until the next write or gen_out_spare). */
static inline size_t gen_out_pinned_len(const gen_out *o)
{
    return o->len - o->pin;
}

static inline char *gen_out_pinned(gen_out *o)
{
    return o->buf + o->pin;
}

/* n bytes of free buffer space after the buffered bytes, as scratch (flushing, pinned bytes kept, if needed);
 * NULL when the buffer cannot offer n. Valid until the next write; writing it does not count as output. */
char *gen_out_spare(gen_out *o, size_t n);

/* A string literal, length known at compile time. */
#define GEN_OUT_LIT(o, lit) gen_out_mem((o), "" lit, sizeof(lit) - 1)

void gen_out_raw(gen_out *o, const char *s);             /* unescaped bytes of a C string */
void gen_out_u64(gen_out *o, uint64_t v);                /* decimal */
void gen_out_i64(gen_out *o, int64_t v);                 /* decimal, with sign */
void gen_out_hex(gen_out *o, uint64_t v);                /* lowercase hex, no prefix */
void gen_out_hex_fixed(gen_out *o, uint64_t v, int digits); /* zero-padded lowercase hex */
void gen_out_f64(gen_out *o, double v);                  /* shortest round-trip form; non-finite → 0 */
void gen_out_str(gen_out *o, const char *s);             /* JSON string: quoted and escaped */

/* Format helpers for callers that build short strings on the stack. Return the length written. */
size_t gen_fmt_u64(char *dst, uint64_t v);
size_t gen_fmt_f64(char *dst, size_t cap, double v);

#endif
