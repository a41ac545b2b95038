/* json_split — a structural pre-scan of one JSON text in memory: where the members of the top-level object
 * that are arrays open and close, and where each of their bracketed elements ({...} or [...]) begins and
 * ends, found without tokenizing (64 bytes per step), so a reader can cut a large array between two
 * elements and parse the pieces on several threads (neuron_json_par.c).
 *
 * Owns: nothing; scans caller memory (the whole text at once, or piece by piece through json_split_feed, so
 * a file can be read into a bounded buffer) and reports events through a callback, in text order.
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
/* json_split_feed: lengths of all but the last piece are multiples of this. */
#define JSON_SPLIT_BLOCK 64u
/* Flag: use the baseline (SSE2) path even where AVX2 is available (tests). */
#define JSON_SPLIT_PORTABLE 1u

typedef enum json_split_event {
    JSON_SPLIT_ARRAY_OPEN,    /* '[' of a member of the top-level object; key = the member name as written
                                 (escapes kept, without quotes) or NULL when it could not be isolated */
    JSON_SPLIT_ELEMENT_OPEN,  /* '{' or '[' opening an element of that array (offset of the bracket) */
    JSON_SPLIT_ELEMENT_CLOSE, /* the bracket closing that element */
    JSON_SPLIT_ARRAY_CLOSE,   /* the array's ']' */
    JSON_SPLIT_PROGRESS,      /* offset = bytes scanned so far; every JSON_SPLIT_PROGRESS_STEP bytes */
} json_split_event;

/* Return 0 to continue, nonzero to stop the scan. Offsets are absolute (from the text's first byte).
 * key/key_len only for JSON_SPLIT_ARRAY_OPEN. */
typedef int (*json_split_fn)(void *ctx, json_split_event ev, size_t offset, const char *key, size_t key_len);

/* Scan state, in caller storage; treat the fields as private. */
typedef struct json_split {
    json_split_fn fn;
    void *ctx;
    unsigned flags;
    uint64_t prev_escaped, prev_in_string; /* carried between blocks */
    size_t depth;
    size_t next_progress;
    size_t scanned; /* bytes scanned so far */
    int top_is_object;
    int in_member_array; /* the container at depth 2 is an array member of the top-level object */
    const char *win;     /* the piece being scanned, preceded by `win_before` readable bytes */
    size_t win_base, win_before;
} json_split;

void json_split_init(json_split *s, json_split_fn fn, void *ctx, unsigned flags);

/* Scan the next piece of the text, data[0, len), which holds bytes [s->scanned, s->scanned + len). `before`
 * bytes ahead of data (data[-before, 0), the end of the previous piece) may be read to find a member name
 * (keep JSON_SPLIT_KEY_MAX + a little). `last`: no more pieces; len must be a multiple of JSON_SPLIT_BLOCK
 * otherwise. Returns like json_split_scan; 0 on a piece that is not the last means "so far so good". */
int json_split_feed(json_split *s, const char *data, size_t len, size_t before, int last);

/* Scan the whole text data[0, len) at once. 0: scanned to the end, every bracket closed; 1: stopped by the
 * callback; -1: the brackets do not balance (a close without an open, or containers left open), i.e. not
 * valid JSON. */
int json_split_scan(const char *data, size_t len, json_split_fn fn, void *ctx);
int json_split_scan_with(const char *data, size_t len, json_split_fn fn, void *ctx, unsigned flags);

#endif
