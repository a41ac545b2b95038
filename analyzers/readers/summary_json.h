/* summary_json — reader for `neuron-profile view --output-format summary-json` (formats.md §5.1).
 *
 * Owns: the returned summary_json (one arena with its strings and records); summary_json_free releases it
 * and everything borrowed from it. The file is small (one flat metrics object per profile), so it is read
 * whole, up to SUMMARY_JSON_SIZE_MAX, and tokenized with json_stream; every metric becomes a kvlist entry
 * (the same form as summary[0] of a full export), numbers keep their literal text.
 * Threads: any thread; the result is read-only and may be shared.
 * Errors: -1 with nl_error (file, offset): NL_ERR_IO, NL_ERR_NOT_FOUND, NL_ERR_LIMIT (file too large),
 * NL_ERR_FORMAT (not JSON, or the top level is not an object), NL_ERR_TRUNCATED, NL_ERR_NOMEM. */
#ifndef NL_SUMMARY_JSON_H
#define NL_SUMMARY_JSON_H

#include <stddef.h>

#include "kvlist.h"
#include "nl_error.h"

/* Largest summary-json file accepted, and most profiles (top-level keys) kept. */
#define SUMMARY_JSON_SIZE_MAX ((size_t)64 << 20)
#define SUMMARY_JSON_PROFILES_MAX 65536u

typedef struct summary_json summary_json;

/* Read the file at `path`. 0 and *out, or -1 with err set (no result). */
int summary_json_read(const char *path, summary_json **out, nl_error *err) __attribute__((warn_unused_result));
/* Same from memory; `name` labels errors. */
int summary_json_read_mem(const void *data, size_t len, const char *name, summary_json **out, nl_error *err)
    __attribute__((warn_unused_result));
void summary_json_free(summary_json *s);

/* Profiles in file order: the top-level key ("n_<40 hex>" for device profiles) and its metrics (borrowed).
 * Top-level values that are not objects are skipped and counted by summary_json_skipped. */
size_t summary_json_count(const summary_json *s);
const char *summary_json_name(const summary_json *s, size_t i);
const kvlist *summary_json_metrics(const summary_json *s, size_t i);
size_t summary_json_skipped(const summary_json *s);

#endif
