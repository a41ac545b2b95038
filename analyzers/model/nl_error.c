/* nl_error — see nl_error.h. Plain formatting helpers; no allocation. */
#include "nl_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void nl_error_clear(nl_error *err)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
    err->offset = -1;
    err->record = -1;
}

int nl_error_set(nl_error *err, nl_error_code code, const char *source, int64_t offset, const char *fmt, ...)
{
    if (!err)
        return -1;
    nl_error_clear(err);
    err->code = code;
    err->offset = offset;
    if (source)
        snprintf(err->source, sizeof err->source, "%s", source);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

void nl_error_set_field(nl_error *err, const char *field)
{
    if (err && field)
        snprintf(err->field, sizeof err->field, "%s", field);
}

void nl_error_set_record(nl_error *err, int64_t record)
{
    if (err)
        err->record = record;
}

const char *nl_error_code_name(nl_error_code code)
{
    switch (code) {
    case NL_OK: return "ok";
    case NL_ERR_IO: return "io";
    case NL_ERR_FORMAT: return "format";
    case NL_ERR_TRUNCATED: return "truncated";
    case NL_ERR_LIMIT: return "limit";
    case NL_ERR_UNSUPPORTED: return "unsupported";
    case NL_ERR_NOMEM: return "nomem";
    case NL_ERR_CANCELLED: return "cancelled";
    case NL_ERR_NOT_FOUND: return "not_found";
    case NL_ERR_ARGUMENT: return "argument";
    case NL_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}
