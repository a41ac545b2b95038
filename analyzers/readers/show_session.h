/* show_session — lenient reader of `neuron-profile show-session` output (formats.md §6): the text dump
 * (default header plus the `--show-trace` sections) and the `-j` JSON form.
 *
 * Owns: a show_session_parser owns its pending partial line and, for -j, a json_stream; the show_session
 * it produces (model/show_session_model.h) belongs to the caller. Input is pushed in chunks of any size and boundary
 * (show_session_parser_feed), then show_session_parser_finish hands over the result; show_session_read
 * does that for a file, reading SHOW_SESSION_READ_SIZE bytes at a time, so memory is the result plus one
 * line, whatever the dump size. Text vs JSON is decided by the first non-blank byte ('{' = -j).
 * Kept per CC-core: every TPB_TRIGGER line (time, phase, byte offset), counts per event type, the time
 * span, and counts of lines that could not be read. Instruction-trace lines are counted, not stored.
 * Threads: one parser per thread; a finished show_session is read-only and may be shared.
 * Errors: -1 with nl_error naming the source and the byte offset: NL_ERR_FORMAT (a NUL byte in a text
 * dump, a CC-core header without a number, malformed or wrong-typed -j JSON), NL_ERR_TRUNCATED (-j cut
 * off), NL_ERR_LIMIT (a cap below), NL_ERR_NOMEM, NL_ERR_IO, NL_ERR_CANCELLED. After an error every
 * further call fails the same way. Lines the reader cannot interpret are never errors: they are counted
 * and the first SHOW_SESSION_ISSUES_MAX are kept with their offsets. */
#ifndef NL_SHOW_SESSION_H
#define NL_SHOW_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"
#include "show_session_model.h"

/* ---- caps (exceeding one is NL_ERR_LIMIT, never a crash) ------------------------------------------- */

#define SHOW_SESSION_LINE_MAX ((size_t)64 << 10)  /* bytes in one line, newline excluded */
#define SHOW_SESSION_CORES_MAX 1024u              /* distinct CC-cores */
#define SHOW_SESSION_CORE_ID_MAX 65535u           /* largest N accepted in "CC-core N" */
#define SHOW_SESSION_TRIGGERS_MAX ((size_t)1 << 20) /* trigger lines kept, all cores together */
#define SHOW_SESSION_GRAPHS_MAX 4096u             /* -j NeffNodes[].NodeInfo.Graphs[] records */
#define SHOW_SESSION_JSON_DEPTH_MAX 64u           /* -j nesting depth */
#define SHOW_SESSION_READ_SIZE ((size_t)1 << 20)  /* bytes per read(2) in show_session_read */
#define SHOW_SESSION_POLL_LINES 4096u             /* lines between two polls of the cancel flag */

/* ---- parsing ---------------------------------------------------------------------------------------- */

typedef struct show_session_options {
    const char *source;         /* name for errors (a path); nullable, copied */
    const atomic_int *cancel;   /* nullable; nonzero stops with NL_ERR_CANCELLED */
    size_t read_size;           /* show_session_read: bytes per read, 0 = SHOW_SESSION_READ_SIZE */
} show_session_options;

typedef struct show_session_parser show_session_parser;

/* A new parser; opt may be NULL. NULL with err set (NL_ERR_NOMEM). */
show_session_parser *show_session_parser_new(const show_session_options *opt, nl_error *err)
    __attribute__((warn_unused_result));
/* Push bytes (any chunking). 0, or -1 with err set. */
int show_session_parser_feed(show_session_parser *p, const void *data, size_t len, nl_error *err)
    __attribute__((warn_unused_result));
/* No more input: process the last line, check the -j document is complete, hand over the result. */
int show_session_parser_finish(show_session_parser *p, show_session **out, nl_error *err)
    __attribute__((warn_unused_result));
void show_session_parser_free(show_session_parser *p);

/* Read a whole file / buffer. 0 and *out, or -1 with err set (no result). */
int show_session_read(const char *path, const show_session_options *opt, show_session **out, nl_error *err)
    __attribute__((warn_unused_result));
int show_session_read_mem(const void *data, size_t len, const show_session_options *opt, show_session **out,
                          nl_error *err) __attribute__((warn_unused_result));

#endif
