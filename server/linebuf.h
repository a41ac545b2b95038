/* linebuf — splits a byte stream into lines for the stdio transport, with a length cap.
 *
 * Bytes are pushed in any chunking; each complete line (without '\n' and a trailing '\r') is passed to
 * the callback; empty and whitespace-only lines are skipped. A line that grows beyond `max_line` bytes is
 * reported once through `on_oversize` and its remaining bytes are discarded up to the next newline, where
 * the stream resynchronises. Memory is bounded by max_line + one chunk. Single-threaded (main loop). */
#ifndef NL_LINEBUF_H
#define NL_LINEBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*linebuf_line_fn)(void *opaque, const char *line, size_t len);
typedef void (*linebuf_oversize_fn)(void *opaque, size_t max_line);

typedef struct linebuf {
    char *buf;
    size_t len, cap;
    size_t max_line;
    bool discarding;  /* inside an oversize line, dropping bytes until '\n' */
    linebuf_line_fn on_line;
    linebuf_oversize_fn on_oversize;
    void *opaque;
} linebuf;

void linebuf_init(linebuf *lb, size_t max_line, linebuf_line_fn on_line, linebuf_oversize_fn on_oversize, void *opaque);
void linebuf_close(linebuf *lb);
/* Returns 0, or -1 when the buffer could not grow (out of memory). */
int linebuf_push(linebuf *lb, const char *data, size_t n);
/* At EOF: deliver a final unterminated line, if any. */
void linebuf_finish(linebuf *lb);

#endif
