/* nl_error — the one error struct of the analysis core.
 *
 * Every fallible function in analyzers/ returns 0 / -1 (or pointer / NULL) and fills a caller-owned,
 * nullable `nl_error *`. The struct names what failed (code), where (source path, byte offset, and
 * optionally record index and field) and why (a short human message). server/ maps it to JSON-RPC or a
 * tool `isError` result in one place. Thread-safe: no shared state. */
#ifndef NL_ERROR_H
#define NL_ERROR_H

#include <stddef.h>
#include <stdint.h>

typedef enum nl_error_code {
    NL_OK = 0,
    NL_ERR_IO,          /* open/read/stat failed (errno in message) */
    NL_ERR_FORMAT,      /* bytes do not match the expected format */
    NL_ERR_TRUNCATED,   /* input ended before a complete record */
    NL_ERR_LIMIT,       /* a named input cap (depth, record size, rows) was exceeded */
    NL_ERR_UNSUPPORTED, /* recognised, but a version/feature we cannot read */
    NL_ERR_NOMEM,       /* an input-sized allocation failed */
    NL_ERR_CANCELLED,   /* the caller's cancel flag was set */
    NL_ERR_NOT_FOUND,   /* a path/profile/key asked for does not exist */
    NL_ERR_ARGUMENT,    /* a caller argument is invalid */
    NL_ERR_INTERNAL,
} nl_error_code;

#define NL_ERROR_MESSAGE_MAX 256
#define NL_ERROR_PATH_MAX 512
#define NL_ERROR_FIELD_MAX 64

typedef struct nl_error {
    nl_error_code code;
    int64_t offset;        /* byte offset in `source`, -1 when not applicable */
    int64_t record;        /* record index within an array/stream, -1 when not applicable */
    char source[NL_ERROR_PATH_MAX];
    char field[NL_ERROR_FIELD_MAX];
    char message[NL_ERROR_MESSAGE_MAX];
} nl_error;

/* Reset to "no error" (offset/record -1, strings empty). Safe on NULL. */
void nl_error_clear(nl_error *err);

/* Set code, source path (may be NULL), offset (-1 if none) and a printf-style message. Returns -1 so
 * callers can write `return nl_error_set(...)`. Safe on NULL `err`. */
int nl_error_set(nl_error *err, nl_error_code code, const char *source, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Optional context, added after nl_error_set. Safe on NULL. */
void nl_error_set_field(nl_error *err, const char *field);
void nl_error_set_record(nl_error *err, int64_t record);

/* Stable lowercase name of a code ("format", "truncated", ...). */
const char *nl_error_code_name(nl_error_code code);

#endif
