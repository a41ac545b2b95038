/* kineto — see kineto.h.
 *
 * Input format (formats.md §10; verified on the five HTA samples, torch 1.x-2.x, 2022-2026):
 *
 *   file      raw JSON, or gzip (magic 1f 8b at byte 0; one or more concatenated members)
 *   JSON      { "traceEvents": [ event, ... ], <top-level keys> }        torch ≥ 1.x, "JSON Object Format"
 *             [ event, ... ]                                             bare array ("JSON Array Format")
 *   top keys  schemaVersion (int), baseTimeNanoseconds (int ns; ts are relative to it), trace_id (string —
 *             13072646111613355758 exceeds int64), traceName, displayTimeUnit, job keys (any scalar) →
 *             the `trace` record; distributedInfo {backend, rank, world_size, pg_count, pg_config[]} → its
 *             record (scalars; nested values kept as "(compound)"); deviceProperties [{id, name, ...}] →
 *             device ids; INFO / ERROR [log line strings] → counted, first ERROR lines kept; any other
 *             compound value is skipped and noted. Key order varies: traceEvents may come first or last.
 *   event     { "ph": "X"|"B"|"E"|"i"|"I"|"s"|"t"|"f"|"M"|..., "cat", "name", "pid", "tid", "ts", "dur",
 *               "id" (flows, async), "bp": "e" (flow binds to the enclosing slice), "s" (instant scope),
 *               "args": { ... } }       every key optional except ph; any key order; unknown keys skipped
 *     ts, dur    µs as JSON numbers: 3 decimals in torch 2.x, integers before; converted by
 *                kineto_us_to_ns from the literal's text (at epoch-µs magnitude a double's ulp is 0.25 µs)
 *     pid, tid   int (may be negative: -1 "CUPTI Overhead") or string ("Spans", "Traces", "") → canonical text
 *     args       correlation, "External id" (ids, see framework_model.h), bytes / size / "mem size",
 *                direction; for M events name / labels (process_name, thread_name, process_labels).
 *                Everything else (nested lists, nulls, 5 KB strings) is skipped (see Fast paths).
 *
 * Parsing: json_stream tokens drive the state machine below. `ev_depth` is the depth of event objects
 * (2 inside traceEvents, 1 in a bare array); a container the reader does not model is skipped by
 * remembering the depth of its BEGIN (KR_SKIP) and returning to `skip_ret` at the matching END:
 *
 *   START ─{→ TOP ─key→ TOP_VALUE ─traceEvents [→ EVENTS ─{→ EVENT ─key→ FIELD ─scalar→ EVENT
 *     │                │                            │  └─]→ TOP    │  └─}→ EVENTS (row appended)
 *     │                ├─ distributedInfo {→ DIST ⇄ DIST_VALUE      └─ args {→ ARGS ⇄ ARG
 *     │                ├─ deviceProperties [→ DEVPROPS ─{→ DEVPROP ⇄ DEVPROP_VALUE
 *     │                ├─ INFO / ERROR [→ LOG
 *     │                └─ other: scalar → trace record, compound → SKIP
 *     └─[→ EVENTS (bare array; its ']' ends the document)
 *
 * An event's fields collect in `row` and are appended at its '}', so key order is irrelevant and absent
 * keys cost nothing. Repeated strings skip strtab's hashing: ph by its one character, integer pid/tid by
 * the last value, and cat/name/pid/tid text through small direct-mapped caches (kr_cache). ts/dur written
 * as digits '.' three digits (torch 2.x) are converted inline; anything else goes through kineto_us_to_ns.
 *
 * Fast paths (kr_member, json_stream.h): inside an event or its args, a member — key, ':' and a scalar
 * value — comes from one json_stream_next_member call and goes straight to kr_on_field / kr_on_arg, the
 * handlers its two tokens would reach; a container value the model ignores (an unknown key, any args
 * value) is skipped whole by json_stream_skip_value. Both decline whatever they cannot finish in the pushed
 * bytes or would have to report, and the token path above takes over, so the model, the notes and the
 * errors are the token path's (tests/unit/test_kineto.c reads with 1-byte chunks, where they always
 * decline, and compares).
 *
 * Why members are read whole and ignored args skipped in one call: token by token, most of the work went to
 * the ~20 tokens of args each event has and the model ignores (profiles in bench/RESULTS.md).
 *
 * Input: the first read decides gzip or raw. Raw bytes are read straight into json_stream's buffer
 * (json_stream_reserve/commit); gzip is inflated into it. A gzip stream that ends early or is corrupt is
 * reported after the bytes inflated before the break have been parsed, so a partial model keeps them. */
#include "kineto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "json_kv_internal.h"
#include "json_stream.h"

/* ---- exact µs → ns ------------------------------------------------------------------------------------ */

static int kr_digit(char c)
{
    return c >= '0' && c <= '9';
}

int kineto_us_to_ns(const char *s, size_t len, int64_t *ns)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    const char *ip = s + i;
    size_t ni = 0, nf = 0;
    while (i < len && kr_digit(s[i])) {
        i++;
        ni++;
    }
    if (ni == 0)
        return -1;
    const char *fp = s + i + 1;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && kr_digit(s[i])) {
            i++;
            nf++;
        }
        if (nf == 0)
            return -1;
    }
    long exp = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        size_t ne = 0;
        while (i < len && kr_digit(s[i])) {
            if (exp < 1000000)
                exp = exp * 10 + (s[i] - '0');
            i++;
            ne++;
        }
        if (ne == 0)
            return -1;
        if (eneg)
            exp = -exp;
    }
    if (i != len)
        return -1;
    /* value = D · 10^k ns, D = the digits of the integer and fraction parts */
    long k = exp - (long)nf + 3;
    long nd = (long)(ni + nf);
    long keep = k >= 0 ? nd : nd + k; /* digits of D that land at or above the ns position */
    uint64_t v = 0;
    for (long d = 0; d < nd && d < keep; d++) {
        unsigned c = (unsigned)((d < (long)ni ? ip[d] : fp[d - (long)ni]) - '0');
        if (v > (UINT64_MAX - c) / 10)
            return -1;
        v = v * 10 + c;
    }
    if (k > 0 && v) {
        for (long z = 0; z < k; z++) {
            if (v > UINT64_MAX / 10)
                return -1;
            v *= 10;
        }
    } else if (k < 0) {
        /* round half to even on the dropped digits D[keep..nd) (leading virtual zeros when keep < 0) */
        unsigned first = 0;
        int rest = 0;
        for (long d = keep < 0 ? 0 : keep; d < nd; d++) {
            unsigned c = (unsigned)((d < (long)ni ? ip[d] : fp[d - (long)ni]) - '0');
            if (d == keep)
                first = c;
            else if (c)
                rest = 1;
        }
        if (first > 5 || (first == 5 && (rest || (v & 1)))) {
            if (v == UINT64_MAX)
                return -1;
            v++;
        }
    }
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
        return -1;
    *ns = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 0;
}

/* ---- reader state ------------------------------------------------------------------------------------- */

enum kr_state {
    KR_START,
    KR_TOP,
    KR_TOP_VALUE,
    KR_EVENTS,
    KR_EVENT,
    KR_FIELD,
    KR_ARGS,
    KR_ARG,
    KR_SKIP,
    KR_DIST,
    KR_DIST_VALUE,
    KR_DEVPROPS,
    KR_DEVPROP,
    KR_DEVPROP_VALUE,
    KR_LOG,
    KR_DONE,
};

enum kr_top { TK_OTHER, TK_EVENTS, TK_DIST, TK_DEVPROPS, TK_INFO, TK_ERROR };
enum kr_field { F_NONE, F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ID, F_BP, F_ARGS };
enum kr_arg { A_NONE, A_CORR, A_EXT, A_BYTES, A_SIZE, A_MEMSIZE, A_DIRECTION, A_NAME, A_LABELS };
static const char *const kr_field_names[] = {"", "ph", "cat", "name", "pid", "tid", "ts", "dur", "id", "bp", "args"};
static const char *const kr_arg_names[] = {"", "args.correlation", "args.External id", "args.bytes", "args.size",
                                           "args.mem size", "args.direction", "args.name", "args.labels"};

#define KR_KEY_TEXT 48u

/* Recently interned strings of one field, direct-mapped by a cheap hash of length and edge bytes: a hit
 * compares the bytes once against the string kept in the model's arena (stable while the model lives) and
 * skips strtab's full hash and probe. Misses and collisions fall through to strtab_intern. */
#define KR_CACHE_SLOTS 64u
typedef struct kr_cache {
    struct {
        const char *bytes; /* the interned copy (arena) */
        size_t len;
        uint32_t id;
    } slot[KR_CACHE_SLOTS];
} kr_cache;

typedef struct kr_reader {
    framework_model *m;
    strtab *strings;
    json_stream *js;
    nl_error error;
    const char *name;
    const kineto_options *opt;
    /* input */
    int fd;
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    size_t read_size;
    uint64_t file_read, file_total, progress_next;
    int raw_eof, decided, gz, gz_done, zs_live;
    z_stream zs;
    unsigned char *zin;
    uint64_t json_bytes;
    nl_error pending; /* an input error to report once the bytes before it are parsed */
    int has_pending;
    /* position */
    enum kr_state state, skip_ret;
    uint32_t skip_depth, ev_depth;
    int events_begun, saw_events;
    framework_model_layout layout;
    uint64_t event_index; /* traceEvents elements seen */
    uint64_t cur_index;   /* index of the element being read */
    uint32_t since_poll;
    int top_key;
    uint32_t key_id;
    char key_text[KR_KEY_TEXT];
    /* current event */
    table_value row[FM_EV_NCOLS];
    uint64_t flags;
    enum kr_field field;
    enum kr_arg arg;
    int has_ph;
    uint32_t arg_name, arg_labels, arg_direction;
    uint64_t bytes[3];
    unsigned bytes_have;
    uint32_t id_m; /* "M" */
    /* deviceProperties entry */
    int dp_field, dp_has_id;
    int64_t dp_id;
    uint32_t dp_name;
    kr_cache c_ph, c_cat, c_name, c_pid, c_tid;
    uint32_t ph1[128];          /* one-character ph → id + 1 */
    struct {
        int64_t v;
        uint32_t id;
        int valid;
    } last_int[2];              /* last integer pid / tid → id */
} kr_reader;

/* ---- errors ------------------------------------------------------------------------------------------- */

static int kr_in_event(const kr_reader *r)
{
    return r->state == KR_EVENT || r->state == KR_FIELD || r->state == KR_ARGS || r->state == KR_ARG ||
           (r->state == KR_SKIP && (r->skip_ret == KR_EVENT || r->skip_ret == KR_ARGS));
}

/* Complete r->error with the file, the offset (when unset) and, inside an event, its index and field. */
static int kr_context(kr_reader *r, int64_t offset)
{
    nl_error *e = &r->error;
    if (!e->source[0])
        snprintf(e->source, sizeof e->source, "%s", r->name);
    if (e->offset < 0)
        e->offset = offset;
    if (kr_in_event(r)) {
        e->record = (int64_t)r->cur_index;
        if (!e->field[0] && r->state == KR_FIELD)
            nl_error_set_field(e, kr_field_names[r->field]);
        else if (!e->field[0] && r->state == KR_ARG)
            nl_error_set_field(e, kr_arg_names[r->arg]);
    }
    return -1;
}

static int kr_fail(kr_reader *r, nl_error_code code, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int kr_fail(kr_reader *r, nl_error_code code, int64_t offset, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nl_error_set(&r->error, code, r->name, offset, "%s", msg);
    return kr_context(r, offset);
}

/* ---- small helpers ------------------------------------------------------------------------------------ */

static int kr_is_begin(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_OBJECT_BEGIN || t->kind == JSON_STREAM_ARRAY_BEGIN;
}

static int kr_is_end(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_OBJECT_END || t->kind == JSON_STREAM_ARRAY_END;
}

static int kr_is_number(const json_stream_token *t)
{
    return t->kind == JSON_STREAM_INT || t->kind == JSON_STREAM_UINT || t->kind == JSON_STREAM_DOUBLE;
}

static int kr_key_is(const json_stream_token *t, const char *lit, size_t n)
{
    return t->len == n && memcmp(t->str, lit, n) == 0;
}

static void kr_skip(kr_reader *r, const json_stream_token *t, enum kr_state ret)
{
    r->skip_depth = t->depth;
    r->skip_ret = ret;
    r->state = KR_SKIP;
}

static int kr_intern(kr_reader *r, const char *s, size_t len, uint32_t *id, int64_t offset)
{
    if (strtab_intern(r->strings, s, len, id, &r->error) != 0)
        return kr_context(r, offset);
    return 0;
}

static size_t kr_cache_index(const char *s, size_t len)
{
    uint64_t a = 0, b = 0;
    memcpy(&a, s, len < 8 ? len : 8);
    if (len > 8)
        memcpy(&b, s + len - 8, 8);
    uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ len) * 0xff51afd7ed558ccdull;
    return (size_t)(h >> 58) & (KR_CACHE_SLOTS - 1);
}

static int kr_intern_cached(kr_reader *r, kr_cache *c, const char *s, size_t len, uint32_t *id, int64_t offset)
{
    size_t k = kr_cache_index(s, len);
    if (c->slot[k].bytes && c->slot[k].len == len && memcmp(c->slot[k].bytes, s, len) == 0) {
        *id = c->slot[k].id;
        return 0;
    }
    if (kr_intern(r, s, len, id, offset) != 0)
        return -1;
    c->slot[k].bytes = strtab_str(r->strings, *id, NULL);
    c->slot[k].len = len;
    c->slot[k].id = *id;
    return 0;
}

static int kr_note(kr_reader *r, framework_model_note_kind kind, const char *name, int64_t offset)
{
    uint32_t id = 0;
    if (name && kr_intern(r, name, strlen(name), &id, offset) != 0)
        return -1;
    if (framework_model_add_note(r->m, kind, id, 1, offset, &r->error) != 0)
        return kr_context(r, offset);
    return 0;
}

/* An id value (framework_model.h): 1 and *v, *text when usable, 0 when absent or unusable, -1 on error. */
static int kr_id(kr_reader *r, const json_stream_token *t, uint64_t *v, int *text)
{
    *text = 0;
    if (t->kind == JSON_STREAM_INT && t->i >= 0) {
        *v = (uint64_t)t->i;
        return 1;
    }
    if (t->kind == JSON_STREAM_UINT) {
        *v = t->u;
        return 1;
    }
    if (t->kind == JSON_STREAM_STRING && t->len >= 1 && t->len <= 20) {
        uint64_t x = 0;
        size_t i;
        for (i = 0; i < t->len && kr_digit(t->str[i]); i++) {
            unsigned c = (unsigned)(t->str[i] - '0');
            if (x > (UINT64_MAX - c) / 10)
                break;
            x = x * 10 + c;
        }
        if (i == t->len) {
            *v = x;
            return 1;
        }
    }
    if (t->kind == JSON_STREAM_STRING || kr_is_number(t)) {
        uint32_t id;
        if (kr_intern(r, t->str, t->len, &id, t->offset) != 0)
            return -1;
        *v = id;
        *text = 1;
        return 1;
    }
    return 0;
}

/* ts/dur from a number or numeric string: 1 and *ns, 0 when unusable. The common torch 2.x literal,
 * up to 15 integer digits and exactly 3 decimals, is converted inline. */
static int kr_time(const json_stream_token *t, int64_t *ns)
{
    if (t->kind == JSON_STREAM_INT && t->i > -9223372036854775 && t->i < 9223372036854775) {
        *ns = t->i * 1000;
        return 1;
    }
    if (t->kind == JSON_STREAM_DOUBLE && t->len >= 5 && t->len <= 19 && t->str[t->len - 4] == '.' && t->str[0] != '-' &&
        kr_digit(t->str[t->len - 3]) && kr_digit(t->str[t->len - 2]) && kr_digit(t->str[t->len - 1])) {
        const char *p = t->str; /* a valid JSON number (the tokenizer checked): digits '.' 3 digits */
        size_t ni = t->len - 4;
        int64_t v = 0;
        for (size_t i = 0; i < ni; i++)
            v = v * 10 + (p[i] - '0');
        *ns = v * 1000 + (p[ni + 1] - '0') * 100 + (p[ni + 2] - '0') * 10 + (p[ni + 3] - '0');
        return 1;
    }
    if (kr_is_number(t) || t->kind == JSON_STREAM_STRING)
        return kineto_us_to_ns(t->str, t->len, ns) == 0;
    return 0;
}

/* ---- events ------------------------------------------------------------------------------------------- */

static void kr_event_begin(kr_reader *r, int64_t offset)
{
    memset(r->row, 0, sizeof r->row);
    r->row[FM_EV_OFFSET].i = offset;
    r->flags = 0;
    r->has_ph = 0;
    r->arg_name = r->arg_labels = r->arg_direction = 0;
    r->bytes_have = 0;
}

static int kr_event_end(kr_reader *r, int64_t offset)
{
    int64_t at = r->row[FM_EV_OFFSET].i;
    if (!r->has_ph)
        return kr_note(r, FM_NOTE_NO_PH, NULL, at);
    if (r->row[FM_EV_PH].s == r->id_m)
        r->row[FM_EV_DETAIL].s = r->arg_name ? r->arg_name : r->arg_labels;
    else
        r->row[FM_EV_DETAIL].s = r->arg_direction;
    for (int k = 0; k < 3; k++) {
        if (r->bytes_have & (1u << k)) {
            r->row[FM_EV_BYTES].u = r->bytes[k];
            r->flags |= FM_F_BYTES;
            break;
        }
    }
    if ((r->flags & FM_F_DUR) && r->row[FM_EV_DUR].i < 0 && kr_note(r, FM_NOTE_NEGATIVE_DUR, NULL, at) != 0)
        return -1;
    r->row[FM_EV_FLAGS].u = r->flags;
    if (framework_model_rows(r->m) >= KINETO_EVENTS_MAX)
        return kr_fail(r, NL_ERR_LIMIT, offset, "more than %zu events (KINETO_EVENTS_MAX)", KINETO_EVENTS_MAX);
    if (framework_model_append(r->m, r->row, &r->error) != 0)
        return kr_context(r, offset);
    return 0;
}

static enum kr_field kr_field_of(const json_stream_token *t)
{
    switch (t->len) {
    case 2:
        if (t->str[0] == 'p' && t->str[1] == 'h')
            return F_PH;
        if (t->str[0] == 't' && t->str[1] == 's')
            return F_TS;
        if (t->str[0] == 'i' && t->str[1] == 'd')
            return F_ID;
        if (t->str[0] == 'b' && t->str[1] == 'p')
            return F_BP;
        return F_NONE;
    case 3:
        if (kr_key_is(t, "cat", 3))
            return F_CAT;
        if (kr_key_is(t, "pid", 3))
            return F_PID;
        if (kr_key_is(t, "tid", 3))
            return F_TID;
        if (kr_key_is(t, "dur", 3))
            return F_DUR;
        return F_NONE;
    case 4:
        if (kr_key_is(t, "name", 4))
            return F_NAME;
        if (kr_key_is(t, "args", 4))
            return F_ARGS;
        return F_NONE;
    default: return F_NONE;
    }
}

static enum kr_arg kr_arg_of(const json_stream_token *t)
{
    switch (t->len) {
    case 11:
        if (kr_key_is(t, "correlation", 11))
            return A_CORR;
        if (kr_key_is(t, "External id", 11))
            return A_EXT;
        return A_NONE;
    case 5: return kr_key_is(t, "bytes", 5) ? A_BYTES : A_NONE;
    case 4:
        if (kr_key_is(t, "size", 4))
            return A_SIZE;
        if (kr_key_is(t, "name", 4))
            return A_NAME;
        return A_NONE;
    case 8: return kr_key_is(t, "mem size", 8) ? A_MEMSIZE : A_NONE;
    case 9: return kr_key_is(t, "direction", 9) ? A_DIRECTION : A_NONE;
    case 6: return kr_key_is(t, "labels", 6) ? A_LABELS : A_NONE;
    default: return A_NONE;
    }
}

static int kr_bad_field(kr_reader *r, const char *key, int64_t offset)
{
    return kr_note(r, FM_NOTE_BAD_FIELD, key, offset);
}

static int kr_on_field(kr_reader *r, const json_stream_token *t)
{
    uint32_t id;
    switch (r->field) {
    case F_PH:
        if (t->kind != JSON_STREAM_STRING)
            return kr_bad_field(r, "ph", t->offset);
        if (t->len == 1 && (unsigned char)t->str[0] < 128 && r->ph1[(unsigned char)t->str[0]]) {
            id = r->ph1[(unsigned char)t->str[0]] - 1;
        } else {
            if (kr_intern_cached(r, &r->c_ph, t->str, t->len, &id, t->offset) != 0)
                return -1;
            if (t->len == 1 && (unsigned char)t->str[0] < 128)
                r->ph1[(unsigned char)t->str[0]] = id + 1;
        }
        r->row[FM_EV_PH].s = id;
        r->has_ph = 1;
        return 0;
    case F_CAT:
        if (t->kind != JSON_STREAM_STRING)
            return t->kind == JSON_STREAM_NULL ? 0 : kr_bad_field(r, "cat", t->offset);
        if (kr_intern_cached(r, &r->c_cat, t->str, t->len, &id, t->offset) != 0)
            return -1;
        r->row[FM_EV_CAT].s = id;
        return 0;
    case F_NAME: {
        if (t->kind != JSON_STREAM_STRING)
            return t->kind == JSON_STREAM_NULL ? 0 : kr_bad_field(r, "name", t->offset);
        size_t len = t->len;
        if (len > KINETO_NAME_MAX) {
            len = KINETO_NAME_MAX;
            if (kr_note(r, FM_NOTE_LONG_NAME, NULL, t->offset) != 0)
                return -1;
        }
        if (kr_intern_cached(r, &r->c_name, t->str, len, &id, t->offset) != 0)
            return -1;
        r->row[FM_EV_NAME].s = id;
        return 0;
    }
    case F_PID:
    case F_TID:
        if (t->kind != JSON_STREAM_STRING && !kr_is_number(t))
            return t->kind == JSON_STREAM_NULL ? 0 : kr_bad_field(r, r->field == F_PID ? "pid" : "tid", t->offset);
        int which = r->field == F_TID;
        if (t->kind == JSON_STREAM_INT && r->last_int[which].valid && r->last_int[which].v == t->i) {
            id = r->last_int[which].id;
        } else {
            if (kr_intern_cached(r, which ? &r->c_tid : &r->c_pid, t->str, t->len, &id, t->offset) != 0)
                return -1;
            if (t->kind == JSON_STREAM_INT) {
                r->last_int[which].v = t->i;
                r->last_int[which].id = id;
                r->last_int[which].valid = 1;
            }
        }
        r->row[which ? FM_EV_TID : FM_EV_PID].s = id;
        return 0;
    case F_TS:
    case F_DUR: {
        int64_t ns;
        if (t->kind == JSON_STREAM_NULL)
            return 0;
        if (!kr_time(t, &ns))
            return kr_note(r, FM_NOTE_BAD_TIME, r->field == F_TS ? "ts" : "dur", t->offset);
        r->row[r->field == F_TS ? FM_EV_TS : FM_EV_DUR].i = ns;
        r->flags |= r->field == F_TS ? FM_F_TS : FM_F_DUR;
        return 0;
    }
    case F_ID: {
        uint64_t v;
        int text;
        int rc = kr_id(r, t, &v, &text);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return t->kind == JSON_STREAM_NULL ? 0 : kr_bad_field(r, "id", t->offset);
        r->row[FM_EV_FLOW].u = v;
        r->flags = (r->flags & ~(uint64_t)FM_F_FLOW_TEXT) | FM_F_FLOW | (text ? FM_F_FLOW_TEXT : 0);
        return 0;
    }
    case F_BP:
        if (t->kind == JSON_STREAM_STRING && t->len == 1 && t->str[0] == 'e')
            r->flags |= FM_F_BIND_ENCLOSING;
        return 0;
    case F_ARGS:
    case F_NONE: return 0;
    }
    return 0;
}

static int kr_on_arg(kr_reader *r, const json_stream_token *t)
{
    switch (r->arg) {
    case A_CORR:
    case A_EXT: {
        uint64_t v;
        int text;
        int rc = kr_id(r, t, &v, &text);
        if (rc <= 0)
            return rc;
        int col = r->arg == A_CORR ? FM_EV_CORR : FM_EV_EXT;
        uint64_t have = r->arg == A_CORR ? FM_F_CORR : FM_F_EXT, txt = r->arg == A_CORR ? FM_F_CORR_TEXT : FM_F_EXT_TEXT;
        r->row[col].u = v;
        r->flags = (r->flags & ~txt) | have | (text ? txt : 0);
        return 0;
    }
    case A_BYTES:
    case A_SIZE:
    case A_MEMSIZE: {
        int k = r->arg - A_BYTES;
        if (t->kind == JSON_STREAM_INT && t->i >= 0)
            r->bytes[k] = (uint64_t)t->i;
        else if (t->kind == JSON_STREAM_UINT)
            r->bytes[k] = t->u;
        else
            return 0;
        r->bytes_have |= 1u << k;
        return 0;
    }
    case A_DIRECTION:
    case A_NAME:
    case A_LABELS: {
        if (t->kind != JSON_STREAM_STRING)
            return 0;
        uint32_t id;
        if (kr_intern(r, t->str, t->len, &id, t->offset) != 0)
            return -1;
        *(r->arg == A_DIRECTION ? &r->arg_direction : r->arg == A_NAME ? &r->arg_name : &r->arg_labels) = id;
        return 0;
    }
    case A_NONE: return 0;
    }
    return 0;
}

/* ---- top level ---------------------------------------------------------------------------------------- */

static int kr_poll(kr_reader *r, int64_t offset)
{
    if (r->opt && r->opt->cancel && atomic_load(r->opt->cancel))
        return kr_fail(r, NL_ERR_CANCELLED, offset, "cancelled");
    return 0;
}

static void kr_progress(kr_reader *r, int force)
{
    if (!r->opt || !r->opt->progress || (!force && r->file_read < r->progress_next))
        return;
    r->progress_next = r->file_read + KINETO_PROGRESS_STEP;
    r->opt->progress(r->opt->progress_ctx, r->file_read, r->file_total);
}

static void kr_copy_key(kr_reader *r, const json_stream_token *t)
{
    size_t n = t->len < sizeof r->key_text - 1 ? t->len : sizeof r->key_text - 1;
    memcpy(r->key_text, t->str, n);
    r->key_text[n] = '\0';
}

static int kr_begin_events(kr_reader *r, uint32_t depth)
{
    r->ev_depth = depth + 1;
    r->events_begun = 1;
    r->saw_events = 1;
    r->state = KR_EVENTS;
    return 0;
}

static int kr_on_start(kr_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_OBJECT_BEGIN) {
        r->layout = FM_LAYOUT_OBJECT;
        r->state = KR_TOP;
        return 0;
    }
    if (t->kind == JSON_STREAM_ARRAY_BEGIN) {
        r->layout = FM_LAYOUT_ARRAY;
        return kr_begin_events(r, t->depth);
    }
    return kr_fail(r, NL_ERR_FORMAT, t->offset,
                   "top level is %s: not a Kineto/Chrome trace (expected an object with traceEvents, or an array "
                   "of events)", json_stream_kind_word(t->kind));
}

static int kr_on_top(kr_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_OBJECT_END) {
        r->state = KR_DONE;
        return 0;
    }
    kr_copy_key(r, t);
    r->top_key = kr_key_is(t, "traceEvents", 11)        ? TK_EVENTS
                 : kr_key_is(t, "distributedInfo", 15)  ? TK_DIST
                 : kr_key_is(t, "deviceProperties", 16) ? TK_DEVPROPS
                 : kr_key_is(t, "INFO", 4)              ? TK_INFO
                 : kr_key_is(t, "ERROR", 5)             ? TK_ERROR
                                                        : TK_OTHER;
    if (kr_intern(r, t->str, t->len, &r->key_id, t->offset) != 0)
        return -1;
    r->state = KR_TOP_VALUE;
    return 0;
}

static int kr_on_top_value(kr_reader *r, const json_stream_token *t)
{
    r->state = KR_TOP;
    switch (r->top_key) {
    case TK_EVENTS:
        if (t->kind != JSON_STREAM_ARRAY_BEGIN)
            return kr_fail(r, NL_ERR_FORMAT, t->offset, "traceEvents is %s, expected an array of events",
                           json_stream_kind_word(t->kind));
        return kr_begin_events(r, t->depth);
    case TK_DIST:
        if (t->kind == JSON_STREAM_OBJECT_BEGIN) {
            r->state = KR_DIST;
            return 0;
        }
        break;
    case TK_DEVPROPS:
        if (t->kind == JSON_STREAM_ARRAY_BEGIN) {
            r->state = KR_DEVPROPS;
            return 0;
        }
        break;
    case TK_INFO:
    case TK_ERROR:
        if (t->kind == JSON_STREAM_ARRAY_BEGIN) {
            r->state = KR_LOG;
            return 0;
        }
        if (t->kind == JSON_STREAM_STRING) {
            if (framework_model_add_log(r->m, r->top_key == TK_ERROR, t->str, t->len, &r->error) != 0)
                return kr_context(r, t->offset);
            return 0;
        }
        break;
    default: break;
    }
    if (kr_is_begin(t)) {
        kr_skip(r, t, KR_TOP);
        return kr_note(r, FM_NOTE_TOP_KEY, r->key_text, t->offset);
    }
    kvlist *trace = framework_model_trace_mut(r->m, &r->error);
    if (!trace || json_kv_set(trace, r->strings, r->key_id, t, &r->error) != 0)
        return kr_context(r, t->offset);
    return 0;
}

static int kr_on_events(kr_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_ARRAY_END) {
        r->state = r->layout == FM_LAYOUT_ARRAY ? KR_DONE : KR_TOP;
        return 0;
    }
    if (++r->since_poll >= KINETO_POLL_EVENTS) {
        r->since_poll = 0;
        if (kr_poll(r, t->offset) != 0)
            return -1;
    }
    r->cur_index = r->event_index++;
    if (t->kind == JSON_STREAM_OBJECT_BEGIN) {
        kr_event_begin(r, t->offset);
        r->state = KR_EVENT;
        return 0;
    }
    if (kr_is_begin(t))
        kr_skip(r, t, KR_EVENTS);
    return kr_note(r, FM_NOTE_NOT_OBJECT, NULL, t->offset);
}

static int kr_on_event(kr_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_OBJECT_END) {
        r->state = KR_EVENTS;
        return kr_event_end(r, t->offset);
    }
    r->field = kr_field_of(t);
    if (r->field == F_NONE && json_stream_skip_value(r->js))
        return 0; /* an ignored value, consumed: stay in KR_EVENT */
    r->state = KR_FIELD;
    return 0;
}

static int kr_on_field_value(kr_reader *r, const json_stream_token *t)
{
    r->state = KR_EVENT;
    if (r->field == F_ARGS && t->kind == JSON_STREAM_OBJECT_BEGIN) {
        r->state = KR_ARGS;
        return 0;
    }
    if (kr_is_begin(t)) {
        kr_skip(r, t, KR_EVENT);
        if (r->field != F_NONE && r->field != F_ARGS)
            return kr_bad_field(r, kr_field_names[r->field], t->offset);
        return 0;
    }
    return kr_on_field(r, t);
}

static int kr_on_args(kr_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_OBJECT_END) {
        r->state = KR_EVENT;
        return 0;
    }
    r->arg = kr_arg_of(t);
    if (r->arg == A_NONE && json_stream_skip_value(r->js))
        return 0; /* an ignored value, consumed: stay in KR_ARGS */
    r->state = KR_ARG;
    return 0;
}

static int kr_on_arg_value(kr_reader *r, const json_stream_token *t)
{
    r->state = KR_ARGS;
    if (kr_is_begin(t)) {
        kr_skip(r, t, KR_ARGS);
        return 0;
    }
    return kr_on_arg(r, t);
}

static int kr_on_dist(kr_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_OBJECT_END) {
        r->state = KR_TOP;
        return 0;
    }
    if (r->state == KR_DIST) {
        if (kr_intern(r, t->str, t->len, &r->key_id, t->offset) != 0)
            return -1;
        r->state = KR_DIST_VALUE;
        return 0;
    }
    r->state = KR_DIST;
    kvlist *dist = framework_model_dist_mut(r->m, &r->error);
    if (!dist || json_kv_set(dist, r->strings, r->key_id, t, &r->error) != 0)
        return kr_context(r, t->offset);
    if (kr_is_begin(t))
        kr_skip(r, t, KR_DIST);
    return 0;
}

static int kr_on_devprops(kr_reader *r, const json_stream_token *t)
{
    switch (r->state) {
    case KR_DEVPROPS:
        if (t->kind == JSON_STREAM_ARRAY_END) {
            r->state = KR_TOP;
        } else if (t->kind == JSON_STREAM_OBJECT_BEGIN) {
            r->dp_has_id = 0;
            r->dp_id = 0;
            r->dp_name = 0;
            r->state = KR_DEVPROP;
        } else if (kr_is_begin(t)) {
            kr_skip(r, t, KR_DEVPROPS);
        }
        return 0;
    case KR_DEVPROP:
        if (t->kind == JSON_STREAM_OBJECT_END) {
            r->state = KR_DEVPROPS;
            if (framework_model_add_device(r->m, r->dp_has_id, r->dp_id, r->dp_name, &r->error) != 0)
                return kr_context(r, t->offset);
            return 0;
        }
        r->dp_field = kr_key_is(t, "id", 2) ? 1 : kr_key_is(t, "name", 4) ? 2 : 0;
        r->state = KR_DEVPROP_VALUE;
        return 0;
    default:
        r->state = KR_DEVPROP;
        if (kr_is_begin(t)) {
            kr_skip(r, t, KR_DEVPROP);
        } else if (r->dp_field == 1 && t->kind == JSON_STREAM_INT) {
            r->dp_has_id = 1;
            r->dp_id = t->i;
        } else if (r->dp_field == 2 && t->kind == JSON_STREAM_STRING) {
            return kr_intern(r, t->str, t->len, &r->dp_name, t->offset);
        }
        return 0;
    }
}

static int kr_on_log(kr_reader *r, const json_stream_token *t)
{
    if (t->kind == JSON_STREAM_ARRAY_END) {
        r->state = KR_TOP;
        return 0;
    }
    if (kr_is_begin(t)) {
        kr_skip(r, t, KR_LOG);
        return 0;
    }
    if (t->kind == JSON_STREAM_STRING &&
        framework_model_add_log(r->m, r->top_key == TK_ERROR, t->str, t->len, &r->error) != 0)
        return kr_context(r, t->offset);
    return 0;
}

static int kr_token(kr_reader *r, const json_stream_token *t)
{
    switch (r->state) {
    case KR_EVENT: return kr_on_event(r, t);
    case KR_FIELD: return kr_on_field_value(r, t);
    case KR_ARGS: return kr_on_args(r, t);
    case KR_ARG: return kr_on_arg_value(r, t);
    case KR_SKIP:
        if (t->depth == r->skip_depth && kr_is_end(t))
            r->state = r->skip_ret;
        return 0;
    case KR_EVENTS: return kr_on_events(r, t);
    case KR_START: return kr_on_start(r, t);
    case KR_TOP: return kr_on_top(r, t);
    case KR_TOP_VALUE: return kr_on_top_value(r, t);
    case KR_DIST:
    case KR_DIST_VALUE: return kr_on_dist(r, t);
    case KR_DEVPROPS:
    case KR_DEVPROP:
    case KR_DEVPROP_VALUE: return kr_on_devprops(r, t);
    case KR_LOG: return kr_on_log(r, t);
    case KR_DONE: break;
    }
    return kr_fail(r, NL_ERR_INTERNAL, t->offset, "token after the end of the document");
}

/* A whole member of an event (KR_EVENT) or of its args (KR_ARGS) from one json_stream_next_member call,
 * handled as its key and value tokens would be (kr_on_event + kr_on_field_value, kr_on_args +
 * kr_on_arg_value) without two rounds of both state machines. A container value is skipped in one call when
 * the model ignores it; otherwise its BEGIN comes from the token path next. 1 when a member was read, 0 when
 * the token path goes on, -1 on error. */
static int kr_member(kr_reader *r)
{
    json_stream_token k, v;
    if (!json_stream_next_member(r->js, &k, &v))
        return 0;
    if (r->state == KR_EVENT) {
        r->field = kr_field_of(&k);
        if (!kr_is_begin(&v))
            return kr_on_field(r, &v) != 0 ? -1 : 1;
        if (r->field != F_NONE || !json_stream_skip_value(r->js))
            r->state = KR_FIELD;
        return 1;
    }
    r->arg = kr_arg_of(&k);
    if (!kr_is_begin(&v))
        return kr_on_arg(r, &v) != 0 ? -1 : 1;
    if (!json_stream_skip_value(r->js)) /* args never use a container value */
        r->state = KR_ARG;
    return 1;
}

/* ---- input -------------------------------------------------------------------------------------------- */

/* Up to `want` raw file bytes into dst; *got = 0 at the end of the input. */
static int kr_read_raw(kr_reader *r, void *dst, size_t want, size_t *got)
{
    ssize_t n;
    if (r->mem) {
        n = (ssize_t)(r->mem_len - r->mem_pos < want ? r->mem_len - r->mem_pos : want);
        memcpy(dst, r->mem + r->mem_pos, (size_t)n);
        r->mem_pos += (size_t)n;
    } else {
        do
            n = read(r->fd, dst, want);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            return kr_fail(r, NL_ERR_IO, (int64_t)r->json_bytes, "read failed at file byte %llu: %s",
                           (unsigned long long)r->file_read, strerror(errno));
    }
    if (n == 0)
        r->raw_eof = 1;
    r->file_read += (uint64_t)n;
    *got = (size_t)n;
    return 0;
}

/* Keep an input error until the bytes before it have been parsed. */
static void kr_defer(kr_reader *r, nl_error_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void kr_defer(kr_reader *r, nl_error_code code, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nl_error_set(&r->pending, code, r->name, (int64_t)r->json_bytes, "%s", msg);
    r->has_pending = 1;
}

/* Refill zin after keeping its unconsumed tail. */
static int kr_gz_refill(kr_reader *r)
{
    size_t keep = r->zs.avail_in;
    if (keep)
        memmove(r->zin, r->zs.next_in, keep);
    size_t got;
    if (kr_read_raw(r, r->zin + keep, r->read_size - keep, &got) != 0)
        return -1;
    r->zs.next_in = r->zin;
    r->zs.avail_in = (uInt)(keep + got);
    return 0;
}

static int kr_gz_magic(const unsigned char *p)
{
    return p[0] == 0x1f && p[1] == 0x8b;
}

/* Inflate into json_stream; returns the number of JSON bytes produced through *produced. */
static int kr_fill_gz(kr_reader *r, char *dst, size_t room, size_t *produced)
{
    r->zs.next_out = (Bytef *)dst;
    r->zs.avail_out = (uInt)room;
    while (r->zs.avail_out > 0 && !r->gz_done) {
        if (r->zs.avail_in == 0 && !r->raw_eof && kr_gz_refill(r) != 0)
            return -1;
        int rc = inflate(&r->zs, Z_NO_FLUSH);
        uint64_t at = r->file_read - r->zs.avail_in;
        if (rc == Z_STREAM_END) {
            if (r->zs.avail_in < 2 && !r->raw_eof && kr_gz_refill(r) != 0)
                return -1;
            if (r->zs.avail_in == 0) {
                r->gz_done = 1;
            } else if (r->zs.avail_in >= 2 && kr_gz_magic(r->zs.next_in)) {
                inflateReset(&r->zs); /* the next member of a concatenated gzip file */
            } else {
                r->gz_done = 1;
                if (kr_note(r, FM_NOTE_TRAILING_BYTES, NULL, (int64_t)r->json_bytes) != 0)
                    return -1;
            }
        } else if (rc == Z_BUF_ERROR && r->zs.avail_in == 0 && r->raw_eof) {
            kr_defer(r, NL_ERR_TRUNCATED, "the gzip stream ends early at compressed byte %llu (file cut off?); "
                     "%llu JSON bytes were inflated", (unsigned long long)at,
                     (unsigned long long)(r->json_bytes + room - r->zs.avail_out));
            break;
        } else if (rc == Z_MEM_ERROR) {
            return kr_fail(r, NL_ERR_NOMEM, (int64_t)r->json_bytes, "out of memory inflating gzip data");
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            kr_defer(r, NL_ERR_FORMAT, "corrupt gzip data at compressed byte %llu: %s", (unsigned long long)at,
                     r->zs.msg ? r->zs.msg : "inflate failed");
            break;
        }
    }
    *produced = room - r->zs.avail_out;
    return 0;
}

static int kr_decide(kr_reader *r)
{
    size_t got;
    if (kr_read_raw(r, r->zin, r->read_size, &got) != 0)
        return -1;
    r->decided = 1;
    if (got >= 2 && kr_gz_magic(r->zin)) {
        r->gz = 1;
        memset(&r->zs, 0, sizeof r->zs);
        if (inflateInit2(&r->zs, 16 + MAX_WBITS) != Z_OK)
            return kr_fail(r, NL_ERR_NOMEM, 0, "cannot initialise zlib");
        r->zs_live = 1;
        r->zs.next_in = r->zin;
        r->zs.avail_in = (uInt)got;
        return 0;
    }
    if (json_stream_feed(r->js, r->zin, got, &r->error) != 0)
        return kr_context(r, 0);
    r->json_bytes += got;
    if (got == 0)
        json_stream_finish(r->js);
    return 0;
}

/* Push the next chunk into the tokenizer, or signal the end of input. */
static int kr_fill(kr_reader *r)
{
    if (r->has_pending) {
        r->error = r->pending;
        return kr_context(r, r->pending.offset);
    }
    if (!r->decided) {
        if (kr_decide(r) != 0)
            return -1;
    } else {
        size_t avail, n;
        char *dst = json_stream_reserve(r->js, r->read_size, &avail, &r->error);
        if (!dst)
            return kr_context(r, (int64_t)r->json_bytes);
        size_t room = r->read_size < avail ? r->read_size : avail;
        if (r->gz ? kr_fill_gz(r, dst, room, &n) != 0 : kr_read_raw(r, dst, room, &n) != 0)
            return -1;
        json_stream_commit(r->js, n);
        r->json_bytes += n;
        if (r->has_pending) /* the break is where the inflated bytes end */
            r->pending.offset = (int64_t)r->json_bytes;
        else if (n == 0)
            json_stream_finish(r->js);
    }
    kr_progress(r, 0);
    return kr_poll(r, (int64_t)r->json_bytes);
}

/* ---- driver ------------------------------------------------------------------------------------------- */

static int kr_run(kr_reader *r)
{
    kr_progress(r, 1);
    for (;;) {
        if (r->state == KR_EVENT || r->state == KR_ARGS) { /* a member in one call when it can be */
            int rc = kr_member(r);
            if (rc < 0)
                return -1;
            if (rc > 0)
                continue;
        }
        json_stream_token t;
        json_stream_status st = json_stream_next(r->js, &t, &r->error);
        if (st == JSON_STREAM_TOKEN) {
            if (kr_token(r, &t) != 0)
                return -1;
        } else if (st == JSON_STREAM_NEED_MORE) {
            if (kr_fill(r) != 0)
                return -1;
        } else if (st == JSON_STREAM_END) {
            break;
        } else {
            if (r->error.code == NL_ERR_TRUNCATED && r->json_bytes == 0)
                nl_error_set(&r->error, NL_ERR_FORMAT, r->name, 0, "empty file: no trace events");
            return kr_context(r, json_stream_offset(r->js));
        }
    }
    kr_progress(r, 1);
    if (!r->saw_events)
        return kr_fail(r, NL_ERR_FORMAT, -1,
                       "no traceEvents array: not a Kineto/Chrome trace (a trace.json has {\"traceEvents\": [...]})");
    return 0;
}

/* Whether a failed run may still return the events read so far. */
static int kr_can_be_partial(const kr_reader *r)
{
    nl_error_code c = r->error.code;
    return r->events_begun && !(r->opt && r->opt->strict) &&
           (c == NL_ERR_TRUNCATED || c == NL_ERR_FORMAT || c == NL_ERR_LIMIT || c == NL_ERR_IO);
}

static int kr_read(kr_reader *r, framework_model **out, nl_error *err)
{
    *out = NULL;
    nl_error_clear(&r->error);
    nl_error_clear(&r->pending);
    r->read_size = r->opt && r->opt->read_size ? r->opt->read_size : KINETO_READ_SIZE;
    if (r->read_size < 2)
        r->read_size = 2;
    /* doubles_as_text: every number this reader keeps is converted from its text (kineto_us_to_ns) */
    json_stream_options jo = {.source = r->name, .depth_max = KINETO_DEPTH_MAX, .string_max = KINETO_STRING_MAX,
                              .doubles_as_text = 1};
    int rc = -1;
    r->m = framework_model_new(r->opt ? r->opt->memory_limit : 0, &r->error);
    r->zin = malloc(r->read_size);
    if (r->m && !r->zin)
        nl_error_set(&r->error, NL_ERR_NOMEM, r->name, -1, "out of memory allocating the read buffer");
    if (r->m && r->zin) {
        r->strings = framework_model_strtab_mut(r->m);
        r->js = json_stream_new(&jo, &r->error);
        if (r->js && strtab_intern(r->strings, "M", 1, &r->id_m, &r->error) == 0)
            rc = kr_run(r);
        if (rc != 0 && r->m && r->js && kr_can_be_partial(r)) {
            kr_context(r, json_stream_offset(r->js));
            if (r->gz && r->error.message[0] && !strstr(r->error.message, "gzip"))
                strncat(r->error.message, " (offset in the inflated JSON of a gzip file)",
                        sizeof r->error.message - strlen(r->error.message) - 1);
            framework_model_set_partial(r->m, &r->error);
            rc = 0;
        }
        if (rc == 0) {
            framework_model_set_input(r->m, r->layout, r->gz, r->file_read, r->json_bytes);
            if (framework_model_finish(r->m, &r->error) != 0)
                rc = kr_context(r, -1);
        }
    }
    if (rc != 0) {
        kr_context(r, -1);
        framework_model_free(r->m);
        if (err)
            *err = r->error;
    } else {
        *out = r->m;
    }
    if (r->zs_live)
        inflateEnd(&r->zs);
    json_stream_free(r->js);
    free(r->zin);
    return rc;
}

static kr_reader *kr_new(const char *name, const kineto_options *opt, nl_error *err)
{
    kr_reader *r = calloc(1, sizeof *r);
    if (!r) {
        nl_error_set(err, NL_ERR_NOMEM, name, -1, "out of memory creating the trace reader");
        return NULL;
    }
    r->name = name ? name : "(memory)";
    r->opt = opt;
    r->fd = -1;
    return r;
}

int kineto_read_fd(int fd, const char *name, const kineto_options *opt, framework_model **out, nl_error *err)
{
    *out = NULL;
    kr_reader *r = kr_new(name, opt, err);
    if (!r)
        return -1;
    struct stat st;
    r->fd = fd;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        r->file_total = (uint64_t)st.st_size;
    int rc = kr_read(r, out, err);
    free(r);
    return rc;
}

int kineto_read(const char *path, const kineto_options *opt, framework_model **out, nl_error *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return nl_error_set(err, errno == ENOENT ? NL_ERR_NOT_FOUND : NL_ERR_IO, path, -1, "cannot open: %s",
                            strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return nl_error_set(err, NL_ERR_IO, path, -1, "not a regular file");
    }
    int rc = kineto_read_fd(fd, path, opt, out, err);
    close(fd);
    return rc;
}

int kineto_read_mem(const void *data, size_t len, const char *name, const kineto_options *opt, framework_model **out,
                    nl_error *err)
{
    *out = NULL;
    kr_reader *r = kr_new(name, opt, err);
    if (!r)
        return -1;
    r->mem = data ? data : (const unsigned char *)"";
    r->mem_len = data ? len : 0;
    r->file_total = r->mem_len;
    int rc = kr_read(r, out, err);
    free(r);
    return rc;
}
