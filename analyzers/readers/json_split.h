/* json_split — a structural pre-scan of one JSON text in memory: where the members of the top-level object
 * that are arrays open and close, and where each of their bracketed elements ({...} or [...]) begins and
 * ends, found without tokenizing (64 bytes per step), so a reader can cut a large array between two
 * elements and parse the pieces on several threads (neuron_json_par.c).
 *
 * Owns: nothing; scans caller memory and reports events through a callback, in text order.
 * Exactness: for valid JSON every reported bracket is structural (brackets inside strings, including after
 * escaped quotes and runs of backslashes, are never reported). Invalid JSON may produce wrong events, so a
 * caller must validate (parse) every piece it cuts; the scan itself never reads outside [data, data+len).
 * Threads: reentrant; any thread. Errors: the return value (see json_split_scan). */
#ifndef NL_JSON_SPLIT_H
#define NL_JSON_SPLIT_H

#include <stddef.h>
#include <stdint.h>

/* Longest member name reported with JSON_SPLIT_ARRAY_OPEN (longer names are reported as NULL). */
#define JSON_SPLIT_KEY_MAX 256u
/* Bytes between two JSON_SPLIT_PROGRESS events. */
#define JSON_SPLIT_PROGRESS_STEP ((size_t)1 << 20)

typedef enum json_split_event {
    JSON_SPLIT_ARRAY_OPEN,    /* '[' of a member of the top-level object; key = the member name as written
                                 (escapes kept, without quotes) or NULL when it could not be isolated */
    JSON_SPLIT_ELEMENT_OPEN,  /* '{' or '[' opening an element of that array (offset of the bracket) */
    JSON_SPLIT_ELEMENT_CLOSE, /* the bracket closing that element */
    JSON_SPLIT_ARRAY_CLOSE,   /* the array's ']' */
    JSON_SPLIT_PROGRESS,      /* offset = bytes scanned so far; every JSON_SPLIT_PROGRESS_STEP bytes */
} json_split_event;

/* Return 0 to continue, nonzero to stop the scan. key/key_len only for JSON_SPLIT_ARRAY_OPEN. */
typedef int (*json_split_fn)(void *ctx, json_split_event ev, size_t offset, const char *key, size_t key_len);

/* Scan data[0, len). 0: scanned to the end, every bracket closed; 1: stopped by the callback; -1: the
 * brackets do not balance (a close without an open, or containers left open), i.e. not valid JSON. */
int json_split_scan(const char *data, size_t len, json_split_fn fn, void *ctx);

#endif
