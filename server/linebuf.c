/* linebuf — see linebuf.h. The buffer keeps at most one partial line; complete lines are delivered
 * straight from the pushed chunk when no partial line is pending (the common case: no copy). */
#include "linebuf.h"

#include <stdlib.h>
#include <string.h>

void linebuf_init(linebuf *lb, size_t max_line, linebuf_line_fn on_line, linebuf_oversize_fn on_oversize, void *opaque)
{
    memset(lb, 0, sizeof *lb);
    lb->max_line = max_line;
    lb->on_line = on_line;
    lb->on_oversize = on_oversize;
    lb->opaque = opaque;
}

void linebuf_close(linebuf *lb)
{
    free(lb->buf);
    memset(lb, 0, sizeof *lb);
}

static bool is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

static void deliver(linebuf *lb, const char *line, size_t n)
{
    if (n && line[n - 1] == '\r')
        n--;
    if (!is_blank(line, n))
        lb->on_line(lb->opaque, line, n);
}

static int buffer_append(linebuf *lb, const char *data, size_t n)
{
    if (lb->len + n > lb->cap) {
        size_t cap = lb->cap ? lb->cap : 4096;
        while (cap < lb->len + n)
            cap *= 2;
        char *grown = realloc(lb->buf, cap);
        if (!grown)
            return -1;
        lb->buf = grown;
        lb->cap = cap;
    }
    memcpy(lb->buf + lb->len, data, n);
    lb->len += n;
    return 0;
}

static void start_discarding(linebuf *lb)
{
    lb->discarding = true;
    lb->len = 0;
    if (lb->on_oversize)
        lb->on_oversize(lb->opaque, lb->max_line);
}

/* Handle bytes with no newline in them: they extend the pending line. */
static int push_partial(linebuf *lb, const char *data, size_t n)
{
    if (lb->discarding)
        return 0;
    if (lb->len + n > lb->max_line) {
        start_discarding(lb);
        return 0;
    }
    return buffer_append(lb, data, n);
}

/* Handle bytes that end with the newline at data[n]. */
static int push_line_end(linebuf *lb, const char *data, size_t n)
{
    if (lb->discarding) {
        lb->discarding = false; /* the oversize line ends here: resynchronised */
        return 0;
    }
    if (lb->len + n > lb->max_line) {
        lb->len = 0;
        if (lb->on_oversize)
            lb->on_oversize(lb->opaque, lb->max_line);
        return 0;
    }
    if (lb->len == 0) {
        deliver(lb, data, n);
        return 0;
    }
    if (buffer_append(lb, data, n))
        return -1;
    size_t total = lb->len;
    lb->len = 0;
    deliver(lb, lb->buf, total);
    return 0;
}

int linebuf_push(linebuf *lb, const char *data, size_t n)
{
    while (n) {
        const char *nl = memchr(data, '\n', n);
        if (!nl)
            return push_partial(lb, data, n);
        size_t k = (size_t)(nl - data);
        if (push_line_end(lb, data, k))
            return -1;
        data = nl + 1;
        n -= k + 1;
    }
    return 0;
}

void linebuf_finish(linebuf *lb)
{
    if (!lb->discarding && lb->len) {
        size_t n = lb->len;
        lb->len = 0;
        deliver(lb, lb->buf, n);
    }
    lb->discarding = false;
}
