/* show_session — see show_session.h.
 *
 * Input formats (formats.md §6; no real dump has been seen, so everything below is located by name, never
 * by column, and anything else is counted, not trusted):
 *
 * Text (`neuron-profile show-session -s X.ntff [--show-trace]`), line oriented, LF or CRLF:
 *
 *   Model Name: /path/to/model.neff                     header `key: value` lines before the first section
 *   Total execution time: 1203456 ns                    any line containing "execution time" with a number;
 *                                                       unit from "(ns)"/"(us)"/"(ms)"/"(s)" or the token after
 *                                                       the number (ns, us, µs, ms, s); none = ns [T: "(ns)"].
 *                                                       A dump of several cores may repeat the header block:
 *                                                       each core gets the last one before its section
 *   Tensor instructions: 1234 ...                       other header lines: counted as other_lines
 *   1234 trace events were dropped                      a line containing "dropped" and "event" with an
 *                                                       integer, anywhere: its first integer is added up
 *   Instruction trace for ND <d> NC <c>                 section header: lines until the next header are
 *     Tensor  ...  START ...                            counted per section, not parsed (a community
 *                                                       recipe reads field 5 of `Tensor … START`)
 *   Collectives trace for CC-core <N>                   section header: events of CC-core N until the next
 *     <EVENT_TYPE> <timestamp_ns> <START|END> ...       header [T]; types seen: TPB_TRIGGER, SEMAPHORE_WAIT,
 *                                                       DMA_ADVANCE, ALGO_MESH_*
 *   <Anything> trace for ...                            any other section header ends the current section
 *   Model Name … / … execution time … <number>          a header line ends any section too: a dump of several
 *                                                       cores repeats the header block before each core
 *
 *   A section header is a line whose text before "trace for" (case-insensitive) is only letters, blanks,
 *   '-' and '_'. The CC-core number is the first integer after "core" in the rest of the line; a CC header
 *   without one is an error (its events could not be attributed). The same core appearing twice is merged.
 *   Event line, after splitting on blanks and trimming brackets and , ; | from each token:
 *     type      the first identifier token ([A-Za-z][A-Za-z0-9_]*) that contains '_' or is all upper case
 *               with at least 3 characters, and is not START/END
 *     phase     a token equal to START or END (any case)
 *     time      a `ts=`/`timestamp=`/`time=` (or `:`) token with an integer value if any, else the first
 *               token after the type that is a decimal integer, optionally suffixed "ns"
 *   A line with a type but no usable time, or with no type, is "unparsed" (counted, first few kept with
 *   their offsets). Blank lines and separator lines (only = - * _ + # | and blanks) are skipped everywhere.
 *
 * JSON (`-j`), tokenized with json_stream (depth capped):
 *   { "Name": "<neff path>",
 *     "NeffNodes": [ { "NodeInfo": { "Graphs": [ { "NC": int, "CycleCount": int,
 *         "TotalInstructionTraceCount": int, "EventsCount": int, "ErrorCount": int, ... } ] } } ] }
 *   Only these fields are read [D: AWS nki-library]; a wrong-typed one is a format error naming the field;
 *   other keys are counted. The -j form carries no collective trace.
 *
 * Parser: bytes before the first non-blank decide the mode; text lines are processed in place when a
 * chunk holds them whole, else gathered in `line` (at most SHOW_SESSION_LINE_MAX bytes). */
#include "show_session.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "json_stream.h"
#include "rdfile.h"

#define SS_TOKENS_MAX 64u
#define SS_OTHER_TYPE SHOW_SESSION_TYPES_MAX /* type_counts slot of "(other)" */

/* ---- parser state ----------------------------------------------------------------------------------- */

enum ss_mode { SS_MODE_UNKNOWN, SS_MODE_TEXT, SS_MODE_JSON };
enum ss_section { SS_SEC_HEADER, SS_SEC_CC, SS_SEC_INSTR, SS_SEC_OTHER };

/* -j keys that matter, by depth (see the format block). */
enum ss_jkey { SS_JK_OTHER, SS_JK_NAME, SS_JK_NEFFNODES, SS_JK_NODEINFO, SS_JK_GRAPHS, SS_JK_NC, SS_JK_CYCLES,
               SS_JK_INSTR_COUNT, SS_JK_EVENTS, SS_JK_ERRORS };
#define SS_JKEY_DEPTHS 8u

struct show_session_parser {
    show_session *ss;
    char source[NL_ERROR_PATH_MAX];
    const atomic_int *cancel;
    enum ss_mode mode;
    bool failed;
    nl_error saved;          /* the error every call repeats after a failure */
    int64_t offset;          /* absolute offset of the next byte pushed */
    uint64_t lead_bytes, lead_newlines, lead_tail; /* blanks before the first non-blank byte */

    /* text */
    char *line;
    size_t line_len, line_cap;
    int64_t line_start;
    bool have_partial;
    enum ss_section section;
    size_t cur;              /* current CC-core (SS_SEC_CC) or instruction section index (SS_SEC_INSTR) */
    bool cur_listed;         /* the instruction section has a slot in ss->instr */

    /* -j */
    json_stream *js;
    uint8_t container[SHOW_SESSION_JSON_DEPTH_MAX + 2]; /* 1 = array, 2 = object, by depth */
    enum ss_jkey key_at[SS_JKEY_DEPTHS];
    bool in_graph, saw_top;
};

static int ss_fail(show_session_parser *p, nl_error *err, nl_error_code code, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int ss_fail(show_session_parser *p, nl_error *err, nl_error_code code, int64_t offset, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nl_error_set(&p->saved, code, p->source, offset, "%s", msg);
    p->failed = true;
    if (err)
        *err = p->saved;
    return -1;
}

/* Keep an error that came from elsewhere (json_stream), with our source name. */
static int ss_fail_with(show_session_parser *p, nl_error *err, const nl_error *from)
{
    p->saved = *from;
    if (!p->saved.source[0])
        snprintf(p->saved.source, sizeof p->saved.source, "%s", p->source);
    p->failed = true;
    if (err)
        *err = p->saved;
    return -1;
}

static int ss_repeat(const show_session_parser *p, nl_error *err)
{
    if (err)
        *err = p->saved;
    return -1;
}

show_session_parser *show_session_parser_new(const show_session_options *opt, nl_error *err)
{
    show_session_parser *p = calloc(1, sizeof *p);
    show_session *ss = calloc(1, sizeof *ss);
    if (!p || !ss) {
        free(p);
        free(ss);
        nl_error_set(err, NL_ERR_NOMEM, opt ? opt->source : NULL, -1, "out of memory creating a show-session parser");
        return NULL;
    }
    p->ss = ss;
    if (opt && opt->source)
        snprintf(p->source, sizeof p->source, "%s", opt->source);
    p->cancel = opt ? opt->cancel : NULL;
    nl_error_clear(&p->saved);
    ss->info.format = SHOW_SESSION_FORMAT_TEXT;
    return p;
}

void show_session_parser_free(show_session_parser *p)
{
    if (!p)
        return;
    show_session_free(p->ss);
    json_stream_free(p->js);
    free(p->line);
    free(p);
}

/* ---- small text helpers ----------------------------------------------------------------------------- */

static bool ss_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static const char *ss_find_ci(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    int lo = tolower((unsigned char)needle[0]), up = toupper((unsigned char)needle[0]);
    for (size_t i = 0; k <= n && i <= n - k; i++)
        if ((s[i] == lo || s[i] == up) && strncasecmp(s + i, needle, k) == 0)
            return s + i;
    return NULL;
}

static bool ss_separator(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strchr("=-*_+#| \t", s[i]))
            return false;
    return true;
}

/* Parse a decimal unsigned integer at s[0..n) (exactly, no sign); 1 on success, 0 when not all digits,
 * -1 when out of int64 range. */
static int ss_parse_u63(const char *s, size_t n, int64_t *out)
{
    if (n == 0)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = (int64_t)v;
    return 1;
}

/* The first run of digits in s[0..n) (an integer), 1 and *out, else 0. */
static int ss_first_integer(const char *s, size_t n, int64_t *out)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            size_t j = i;
            while (j < n && s[j] >= '0' && s[j] <= '9')
                j++;
            return ss_parse_u63(s + i, j - i, out) == 1;
        }
    }
    return 0;
}

static void ss_copy_text(char *dst, size_t cap, const char *s, size_t n, bool *cut)
{
    if (n >= cap) {
        n = cap - 1;
        if (cut)
            *cut = true;
    }
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static void ss_issue(show_session *ss, int64_t offset, const char *reason, const char *s, size_t n)
{
    if (ss->info.issue_count >= SHOW_SESSION_ISSUES_MAX)
        return;
    show_session_issue *is = &ss->issues[ss->info.issue_count++];
    is->offset = offset;
    is->line = ss->info.lines;
    is->reason = reason;
    size_t k = n < sizeof is->excerpt - 1 ? n : sizeof is->excerpt - 1;
    for (size_t i = 0; i < k; i++)
        is->excerpt[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    is->excerpt[k] = '\0';
}

/* ---- tokens of one line ----------------------------------------------------------------------------- */

typedef struct ss_tok {
    const char *s;
    size_t n;
} ss_tok;

static size_t ss_tokenize(const char *s, size_t n, ss_tok *toks, size_t max)
{
    size_t count = 0, i = 0;
    while (i < n && count < max) {
        while (i < n && ss_blank(s[i]))
            i++;
        size_t b = i;
        while (i < n && !ss_blank(s[i]))
            i++;
        const char *t = s + b;
        size_t tn = i - b;
        while (tn && strchr("[(|", t[0])) {
            t++;
            tn--;
        }
        while (tn && strchr("]),;|", t[tn - 1]))
            tn--;
        if (tn)
            toks[count++] = (ss_tok){t, tn};
    }
    return count;
}

static bool ss_tok_is(const ss_tok *t, const char *word)
{
    return t->n == strlen(word) && strncasecmp(t->s, word, t->n) == 0;
}

static bool ss_tok_ident(const ss_tok *t, bool *has_us, bool *upper)
{
    if (!isalpha((unsigned char)t->s[0]))
        return false;
    *has_us = false;
    *upper = true;
    for (size_t i = 0; i < t->n; i++) {
        unsigned char c = (unsigned char)t->s[i];
        if (c == '_')
            *has_us = true;
        else if (islower(c))
            *upper = false;
        else if (!isupper(c) && !isdigit(c))
            return false;
    }
    return true;
}

/* `ts=123`, `timestamp:123`, `time=123ns`: 1 and *ts, -1 for a bad value, 0 when not such a token. */
static int ss_keyed_time(const ss_tok *t, int64_t *ts)
{
    static const char *const keys[] = {"ts", "timestamp", "time", "timestamp_ns", "time_ns", "ts_ns", NULL};
    const char *sep = memchr(t->s, '=', t->n);
    if (!sep)
        sep = memchr(t->s, ':', t->n);
    if (!sep)
        return 0;
    size_t kn = (size_t)(sep - t->s);
    bool known = false;
    for (size_t i = 0; keys[i] && !known; i++)
        known = kn == strlen(keys[i]) && strncasecmp(t->s, keys[i], kn) == 0;
    if (!known)
        return 0;
    const char *v = sep + 1;
    size_t vn = t->n - kn - 1;
    if (vn > 2 && strncasecmp(v + vn - 2, "ns", 2) == 0)
        vn -= 2;
    int r = ss_parse_u63(v, vn, ts);
    return r == 1 ? 1 : -1;
}

/* ---- result building -------------------------------------------------------------------------------- */

static int ss_core_get(show_session_parser *p, uint32_t id, int64_t offset, nl_error *err, size_t *idx)
{
    show_session *ss = p->ss;
    for (size_t i = 0; i < ss->core_count; i++)
        if (ss->cores[i].id == id) {
            ss->cores[i].sections++;
            *idx = i;
            return 0;
        }
    if (ss->core_count >= SHOW_SESSION_CORES_MAX)
        return ss_fail(p, err, NL_ERR_LIMIT, offset, "more than SHOW_SESSION_CORES_MAX (%u) distinct CC-cores",
                       SHOW_SESSION_CORES_MAX);
    if (ss->core_count == ss->core_cap) {
        size_t cap = ss->core_cap ? ss->core_cap * 2 : 8;
        show_session_core *cores = realloc(ss->cores, cap * sizeof *cores);
        if (cores)
            ss->cores = cores;
        ss_core_store *store = cores ? realloc(ss->store, cap * sizeof *store) : NULL;
        if (!store)
            return ss_fail(p, err, NL_ERR_NOMEM, offset, "out of memory adding CC-core %u", id);
        ss->store = store;
        ss->core_cap = cap;
    }
    uint64_t *counts = calloc(SHOW_SESSION_TYPES_MAX + 1, sizeof *counts);
    if (!counts)
        return ss_fail(p, err, NL_ERR_NOMEM, offset, "out of memory adding CC-core %u", id);
    size_t i = ss->core_count++;
    memset(&ss->cores[i], 0, sizeof ss->cores[i]);
    memset(&ss->store[i], 0, sizeof ss->store[i]);
    ss->cores[i].id = id;
    ss->cores[i].header_offset = offset;
    ss->cores[i].sections = 1;
    ss->cores[i].triggers_sorted = true;
    ss->store[i].counts = counts;
    *idx = i;
    return 0;
}

static size_t ss_type_index(show_session *ss, const char *s, size_t n)
{
    if (n > SHOW_SESSION_TYPE_NAME_MAX)
        n = SHOW_SESSION_TYPE_NAME_MAX;
    for (size_t i = 0; i < ss->type_count; i++)
        if (strlen(ss->type_names[i]) == n && memcmp(ss->type_names[i], s, n) == 0)
            return i;
    if (ss->type_count >= SHOW_SESSION_TYPES_MAX)
        return SS_OTHER_TYPE;
    memcpy(ss->type_names[ss->type_count], s, n);
    ss->type_names[ss->type_count][n] = '\0';
    return ss->type_count++;
}

static int ss_add_trigger(show_session_parser *p, size_t core, int64_t ts, show_session_phase phase, int64_t offset,
                          nl_error *err)
{
    show_session *ss = p->ss;
    ss_core_store *st = &ss->store[core];
    show_session_core *c = &ss->cores[core];
    if (ss->total_triggers >= SHOW_SESSION_TRIGGERS_MAX)
        return ss_fail(p, err, NL_ERR_LIMIT, offset, "more than SHOW_SESSION_TRIGGERS_MAX (%zu) trigger lines",
                       (size_t)SHOW_SESSION_TRIGGERS_MAX);
    if (c->trigger_count == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        show_session_trigger *t = realloc(st->trig, cap * sizeof *t);
        if (!t)
            return ss_fail(p, err, NL_ERR_NOMEM, offset, "out of memory storing trigger lines");
        st->trig = t;
        st->cap = cap;
    }
    st->trig[c->trigger_count++] = (show_session_trigger){ts, offset, phase};
    ss->total_triggers++;
    if (phase == SHOW_SESSION_PHASE_START) {
        c->trigger_start++;
        if (st->have_start && ts < st->last_start)
            c->triggers_sorted = false;
        st->last_start = ts;
        st->have_start = true;
    } else if (phase == SHOW_SESSION_PHASE_END) {
        c->trigger_end++;
    } else {
        c->trigger_none++;
    }
    return 0;
}

/* ---- text lines ------------------------------------------------------------------------------------- */

typedef enum ss_header { SS_HDR_NONE, SS_HDR_CC, SS_HDR_INSTR, SS_HDR_OTHER } ss_header;

static ss_header ss_header_kind(const char *s, size_t n, const char **rest, size_t *rest_n)
{
    const char *at = ss_find_ci(s, n, "trace for");
    if (!at)
        return SS_HDR_NONE;
    const char *w = s; /* decoration before the title ("=== ", "## ") is allowed */
    while (w < at && !isalnum((unsigned char)*w))
        w++;
    if (w == at || !isalpha((unsigned char)*w))
        return SS_HDR_NONE;
    for (const char *q = w; q < at; q++)
        if (!isalpha((unsigned char)*q) && !ss_blank(*q) && *q != '-' && *q != '_')
            return SS_HDR_NONE;
    *rest = at + 9;
    *rest_n = n - (size_t)(*rest - s);
    if (strncasecmp(w, "collective", 10) == 0)
        return SS_HDR_CC;
    if (strncasecmp(w, "instruction", 11) == 0)
        return SS_HDR_INSTR;
    return SS_HDR_OTHER;
}

/* The integer after the word `word` (any case) in s[0..n), skipping blanks, ':', '#', '='. */
static int ss_number_after(const char *s, size_t n, const char *word, int64_t *out)
{
    const char *w = ss_find_ci(s, n, word);
    if (!w)
        return 0;
    const char *q = w + strlen(word), *end = s + n;
    while (q < end && (ss_blank(*q) || *q == ':' || *q == '#' || *q == '='))
        q++;
    const char *d = q;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    return q > d && ss_parse_u63(d, (size_t)(q - d), out) == 1;
}

static int ss_enter_cc(show_session_parser *p, const char *rest, size_t rest_n, int64_t off, nl_error *err)
{
    int64_t id;
    if (!ss_number_after(rest, rest_n, "core", &id))
        return ss_fail(p, err, NL_ERR_FORMAT, off, "a 'Collectives trace for' header without a CC-core number");
    if (id > (int64_t)SHOW_SESSION_CORE_ID_MAX)
        return ss_fail(p, err, NL_ERR_LIMIT, off, "CC-core %lld is above SHOW_SESSION_CORE_ID_MAX (%u)", (long long)id,
                       SHOW_SESSION_CORE_ID_MAX);
    p->section = SS_SEC_CC;
    return ss_core_get(p, (uint32_t)id, off, err, &p->cur);
}

static void ss_enter_instr(show_session_parser *p, const char *rest, size_t rest_n)
{
    show_session *ss = p->ss;
    p->section = SS_SEC_INSTR;
    p->cur_listed = ss->info.instruction_section_count < SHOW_SESSION_INSTR_SECTIONS_MAX;
    p->cur = ss->info.instruction_section_count++;
    if (!p->cur_listed)
        return;
    show_session_instr_section *sec = &ss->instr[p->cur];
    sec->nd = sec->nc = -1;
    sec->lines = 0;
    int64_t v;
    if (ss_number_after(rest, rest_n, "ND", &v))
        sec->nd = v;
    if (ss_number_after(rest, rest_n, "NC", &v))
        sec->nc = v;
}

/* "Total execution time: 1.25 ms" and friends; 1 when the line was one. */
static int ss_total_time(show_session *ss, const char *s, size_t n, int64_t off)
{
    const char *key = ss_find_ci(s, n, "execution time");
    if (!key)
        return 0;
    const char *end = s + n, *q = key + 14;
    const char *colon = memchr(q, ':', (size_t)(end - q));
    if (colon)
        q = colon + 1;
    while (q < end && !(*q >= '0' && *q <= '9'))
        q++;
    if (q == end)
        return 0;
    char num[64];
    size_t k = 0;
    while (q < end && k < sizeof num - 1 && ((*q >= '0' && *q <= '9') || *q == '.' || *q == ','))
        if (*q++ != ',')
            num[k++] = q[-1];
    num[k] = '\0';
    double scale = 1;
    while (q < end && ss_blank(*q))
        q++;
    size_t left = (size_t)(end - q);
    if (ss_find_ci(s, n, "(us)") || ss_find_ci(s, n, "(µs)") || (left >= 2 && !strncasecmp(q, "us", 2)) ||
        (left >= 3 && !strncmp(q, "µs", 3)))
        scale = 1e3;
    else if (ss_find_ci(s, n, "(ms)") || (left >= 2 && !strncasecmp(q, "ms", 2)))
        scale = 1e6;
    else if (ss_find_ci(s, n, "(ns)") || (left >= 2 && !strncasecmp(q, "ns", 2)))
        scale = 1;
    else if (ss_find_ci(s, n, "(s)") || (left >= 1 && (q[0] == 's' || q[0] == 'S') && (left == 1 || !isalpha((unsigned char)q[1])))
             || (left >= 3 && !strncasecmp(q, "sec", 3)))
        scale = 1e9;
    char *stop;
    double v = strtod(num, &stop);
    if (stop == num || v < 0 || v * scale > 9.2e18)
        return 0;
    int64_t ns = (int64_t)(v * scale + 0.5);
    if (!ss->info.has_total_time) {
        ss->info.has_total_time = true;
        ss->info.total_time_ns = ns;
        ss->info.total_time_offset = off;
    }
    if (ss->info.total_time_count < SHOW_SESSION_TOTALS_MAX) {
        ss->totals[ss->info.total_time_count][0] = off;
        ss->totals[ss->info.total_time_count][1] = ns;
    }
    ss->info.total_time_count++;
    return 1;
}

static void ss_header_line(show_session_parser *p, const char *s, size_t n, int64_t off)
{
    show_session *ss = p->ss;
    if (n >= 10 && strncasecmp(s, "model name", 10) == 0) {
        const char *v = s + 10, *end = s + n;
        while (v < end && (ss_blank(*v) || *v == ':' || *v == '='))
            v++;
        if (!ss->info.model_name && v < end) {
            ss_copy_text(ss->model_name, sizeof ss->model_name, v, (size_t)(end - v), &ss->info.model_name_cut);
            ss->info.model_name = ss->model_name;
        }
        return;
    }
    if (ss_total_time(ss, s, n, off))
        return;
    ss->info.other_lines++;
}

static int ss_event_line(show_session_parser *p, const char *s, size_t n, int64_t off, nl_error *err)
{
    show_session *ss = p->ss;
    show_session_core *c = &ss->cores[p->cur];
    ss_tok toks[SS_TOKENS_MAX];
    size_t nt = ss_tokenize(s, n, toks, SS_TOKENS_MAX);
    size_t type = SIZE_MAX;
    show_session_phase phase = SHOW_SESSION_PHASE_NONE;
    for (size_t i = 0; i < nt; i++) {
        bool us, upper;
        if (ss_tok_is(&toks[i], "START"))
            phase = phase == SHOW_SESSION_PHASE_NONE ? SHOW_SESSION_PHASE_START : phase;
        else if (ss_tok_is(&toks[i], "END"))
            phase = phase == SHOW_SESSION_PHASE_NONE ? SHOW_SESSION_PHASE_END : phase;
        else if (type == SIZE_MAX && ss_tok_ident(&toks[i], &us, &upper) && (us || (upper && toks[i].n >= 3)))
            type = i;
    }
    if (type == SIZE_MAX) {
        c->unparsed++;
        ss->info.unparsed_lines++;
        ss_issue(ss, off, "no event type token in a Collectives trace section", s, n);
        return 0;
    }
    int64_t ts = 0;
    int found = 0;
    for (size_t i = 0; i < nt && !found; i++)
        found = ss_keyed_time(&toks[i], &ts);
    for (size_t i = type + 1; i < nt && !found; i++) {
        const ss_tok *t = &toks[i];
        size_t tn = t->n;
        if (tn > 2 && strncasecmp(t->s + tn - 2, "ns", 2) == 0)
            tn -= 2;
        if (t->s[0] >= '0' && t->s[0] <= '9')
            found = ss_parse_u63(t->s, tn, &ts) == 1 ? 1 : -1;
    }
    if (found != 1) {
        c->unparsed++;
        ss->info.unparsed_lines++;
        if (found < 0)
            ss->info.bad_timestamps++;
        ss_issue(ss, off, found < 0 ? "event time is not an integer in int64 range" : "no integer timestamp after the event type",
                 s, n);
        return 0;
    }
    ss_core_store *st = &ss->store[p->cur];
    c->events++;
    st->counts[ss_type_index(ss, toks[type].s, toks[type].n)]++;
    if (!st->have_event || ts < c->first_ns)
        c->first_ns = ts;
    if (!st->have_event || ts > c->last_ns)
        c->last_ns = ts;
    st->have_event = true;
    if (toks[type].n == strlen(SHOW_SESSION_TRIGGER_TYPE) &&
        strncasecmp(toks[type].s, SHOW_SESSION_TRIGGER_TYPE, toks[type].n) == 0)
        return ss_add_trigger(p, p->cur, ts, phase, off, err);
    return 0;
}

/* `word` (any case) in s[0..n) with no letter, digit or '_' on either side. */
static bool ss_has_word(const char *s, size_t n, const char *word)
{
    size_t k = strlen(word);
    for (const char *w = s; (w = ss_find_ci(w, n - (size_t)(w - s), word)) != NULL; w++) {
        bool left = w == s || !(isalnum((unsigned char)w[-1]) || w[-1] == '_');
        bool right = w + k == s + n || !(isalnum((unsigned char)w[k]) || w[k] == '_');
        if (left && right)
            return true;
    }
    return false;
}

/* "1234 trace events were dropped": 1 when the line said so. */
static int ss_dropped_line(show_session *ss, const char *s, size_t n)
{
    int64_t v;
    if (!ss_has_word(s, n, "dropped") || !ss_has_word(s, n, "events") || !ss_first_integer(s, n, &v))
        return 0;
    ss->info.has_dropped = true;
    ss->info.dropped_events += (uint64_t)v;
    return 1;
}

/* A line that opens a header block: "Model Name …", or "… execution time …" with a number. */
static bool ss_block_header(const char *s, size_t n)
{
    if (n >= 10 && strncasecmp(s, "model name", 10) == 0)
        return true;
    const char *k = ss_find_ci(s, n, "execution time");
    if (!k)
        return false;
    for (const char *q = k; q < s + n; q++)
        if (*q >= '0' && *q <= '9')
            return true;
    return false;
}

static int ss_line(show_session_parser *p, const char *s, size_t n, int64_t off, nl_error *err)
{
    show_session *ss = p->ss;
    ss->info.lines++;
    const char *nul = memchr(s, '\0', n);
    if (nul)
        return ss_fail(p, err, NL_ERR_FORMAT, off + (nul - s), "NUL byte in a show-session text dump (binary file?)");
    if (p->cancel && ss->info.lines % SHOW_SESSION_POLL_LINES == 0 && atomic_load(p->cancel))
        return ss_fail(p, err, NL_ERR_CANCELLED, off, "cancelled");
    while (n && ss_blank(s[n - 1]))
        n--;
    size_t lead = 0;
    while (lead < n && ss_blank(s[lead]))
        lead++;
    s += lead;
    n -= lead;
    if (n == 0 || ss_separator(s, n))
        return 0;
    if (ss_dropped_line(ss, s, n))
        return 0;
    const char *rest;
    size_t rest_n;
    switch (ss_header_kind(s, n, &rest, &rest_n)) {
    case SS_HDR_CC: return ss_enter_cc(p, rest, rest_n, off, err);
    case SS_HDR_INSTR: ss_enter_instr(p, rest, rest_n); return 0;
    case SS_HDR_OTHER: p->section = SS_SEC_OTHER; ss->info.other_sections++; return 0;
    case SS_HDR_NONE: break;
    }
    if (p->section != SS_SEC_HEADER && ss_block_header(s, n))
        p->section = SS_SEC_HEADER; /* the next core's header block in a dump of several cores */
    switch (p->section) {
    case SS_SEC_CC: return ss_event_line(p, s, n, off, err);
    case SS_SEC_INSTR:
        ss->info.instruction_lines++;
        if (p->cur_listed)
            ss->instr[p->cur].lines++;
        return 0;
    case SS_SEC_HEADER:
    case SS_SEC_OTHER: ss_header_line(p, s, n, off); return 0;
    }
    return 0;
}

static int ss_text_feed(show_session_parser *p, const char *d, size_t len, nl_error *err)
{
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(d + i, '\n', len - i);
        size_t seg = nl ? (size_t)(nl - (d + i)) : len - i;
        if (!p->have_partial && nl) { /* a whole line in this chunk: process in place */
            if (seg > SHOW_SESSION_LINE_MAX)
                return ss_fail(p, err, NL_ERR_LIMIT, p->offset, "line longer than SHOW_SESSION_LINE_MAX (%zu bytes)",
                               (size_t)SHOW_SESSION_LINE_MAX);
            if (ss_line(p, d + i, seg, p->offset, err))
                return -1;
        } else {
            if (!p->have_partial) {
                p->have_partial = true;
                p->line_len = 0;
                p->line_start = p->offset;
            }
            if (p->line_len + seg > SHOW_SESSION_LINE_MAX)
                return ss_fail(p, err, NL_ERR_LIMIT, p->line_start, "line longer than SHOW_SESSION_LINE_MAX (%zu bytes)",
                               (size_t)SHOW_SESSION_LINE_MAX);
            if (p->line_len + seg > p->line_cap) {
                size_t cap = p->line_cap ? p->line_cap : 256;
                while (cap < p->line_len + seg)
                    cap *= 2;
                char *b = realloc(p->line, cap);
                if (!b)
                    return ss_fail(p, err, NL_ERR_NOMEM, p->line_start, "out of memory buffering a line");
                p->line = b;
                p->line_cap = cap;
            }
            if (seg)
                memcpy(p->line + p->line_len, d + i, seg);
            p->line_len += seg;
            if (nl) {
                p->have_partial = false;
                if (ss_line(p, p->line, p->line_len, p->line_start, err))
                    return -1;
            }
        }
        size_t step = seg + (nl ? 1 : 0);
        p->offset += (int64_t)step;
        i += step;
    }
    return 0;
}

/* ---- -j JSON ---------------------------------------------------------------------------------------- */

static enum ss_jkey ss_jkey_of(const char *s, size_t n, uint32_t depth)
{
    static const struct { const char *name; uint32_t depth; enum ss_jkey key; } keys[] = {
        {"Name", 1, SS_JK_NAME}, {"NeffNodes", 1, SS_JK_NEFFNODES}, {"NodeInfo", 3, SS_JK_NODEINFO},
        {"Graphs", 4, SS_JK_GRAPHS}, {"NC", 6, SS_JK_NC}, {"CycleCount", 6, SS_JK_CYCLES},
        {"TotalInstructionTraceCount", 6, SS_JK_INSTR_COUNT}, {"EventsCount", 6, SS_JK_EVENTS},
        {"ErrorCount", 6, SS_JK_ERRORS}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].depth == depth && strlen(keys[i].name) == n && memcmp(keys[i].name, s, n) == 0)
            return keys[i].key;
    return SS_JK_OTHER;
}

static const char *ss_jkey_field(enum ss_jkey k)
{
    switch (k) {
    case SS_JK_NC: return "NeffNodes[].NodeInfo.Graphs[].NC";
    case SS_JK_CYCLES: return "NeffNodes[].NodeInfo.Graphs[].CycleCount";
    case SS_JK_INSTR_COUNT: return "NeffNodes[].NodeInfo.Graphs[].TotalInstructionTraceCount";
    case SS_JK_EVENTS: return "NeffNodes[].NodeInfo.Graphs[].EventsCount";
    case SS_JK_ERRORS: return "NeffNodes[].NodeInfo.Graphs[].ErrorCount";
    case SS_JK_NAME: return "Name";
    default: return "";
    }
}

/* True when the token at `depth` sits where a Graphs[] element (depth 5) or its member (6) would. */
static bool ss_in_graphs_path(const show_session_parser *p)
{
    return p->container[0] == 2 && p->key_at[1] == SS_JK_NEFFNODES && p->container[1] == 1 && p->container[2] == 2 &&
           p->key_at[3] == SS_JK_NODEINFO && p->container[3] == 2 && p->key_at[4] == SS_JK_GRAPHS &&
           p->container[4] == 1;
}

static int ss_json_graph_value(show_session_parser *p, const json_stream_token *t, nl_error *err)
{
    show_session *ss = p->ss;
    enum ss_jkey k = p->key_at[6];
    if (k == SS_JK_OTHER)
        return 0;
    show_session_graph *g = &ss->graphs[ss->info.graph_count - 1];
    int64_t *slot = k == SS_JK_NC ? &g->nc : k == SS_JK_CYCLES ? &g->cycle_count
                  : k == SS_JK_INSTR_COUNT ? &g->instruction_trace_count : k == SS_JK_EVENTS ? &g->events_count
                  : &g->error_count;
    if (t->kind == JSON_STREAM_NULL)
        return 0;
    if (t->kind != JSON_STREAM_INT || t->i < 0) {
        ss_fail(p, err, NL_ERR_FORMAT, t->offset, "%s must be a non-negative integer", ss_jkey_field(k));
        nl_error_set_field(&p->saved, ss_jkey_field(k));
        nl_error_set_record(&p->saved, (int64_t)ss->info.graph_count - 1);
        return ss_repeat(p, err);
    }
    *slot = t->i;
    return 0;
}

static int ss_json_token(show_session_parser *p, const json_stream_token *t, nl_error *err)
{
    show_session *ss = p->ss;
    uint32_t d = t->depth;
    if (!p->saw_top) {
        p->saw_top = true;
        if (t->kind != JSON_STREAM_OBJECT_BEGIN)
            return ss_fail(p, err, NL_ERR_FORMAT, t->offset, "show-session -j output must be a JSON object");
    }
    switch (t->kind) {
    case JSON_STREAM_OBJECT_BEGIN:
    case JSON_STREAM_ARRAY_BEGIN:
        if (d <= SHOW_SESSION_JSON_DEPTH_MAX)
            p->container[d] = t->kind == JSON_STREAM_ARRAY_BEGIN ? 1 : 2;
        if (d + 1 < SS_JKEY_DEPTHS)
            p->key_at[d + 1] = SS_JK_OTHER;
        if (d == 5 && t->kind == JSON_STREAM_OBJECT_BEGIN && ss_in_graphs_path(p)) {
            if (ss->info.graph_count >= SHOW_SESSION_GRAPHS_MAX)
                return ss_fail(p, err, NL_ERR_LIMIT, t->offset, "more than SHOW_SESSION_GRAPHS_MAX (%u) Graphs records",
                               SHOW_SESSION_GRAPHS_MAX);
            if (ss->info.graph_count == ss->graph_cap) {
                size_t cap = ss->graph_cap ? ss->graph_cap * 2 : 8;
                show_session_graph *g = realloc(ss->graphs, cap * sizeof *g);
                if (!g)
                    return ss_fail(p, err, NL_ERR_NOMEM, t->offset, "out of memory storing Graphs records");
                ss->graphs = g;
                ss->graph_cap = cap;
            }
            ss->graphs[ss->info.graph_count++] = (show_session_graph){-1, -1, -1, -1, -1};
            p->in_graph = true;
        } else if (d == 1 && p->key_at[1] == SS_JK_NAME) {
            return ss_fail(p, err, NL_ERR_FORMAT, t->offset, "Name must be a string");
        } else if (d == 6 && p->in_graph && p->key_at[6] != SS_JK_OTHER) {
            ss_fail(p, err, NL_ERR_FORMAT, t->offset, "%s must be a non-negative integer", ss_jkey_field(p->key_at[6]));
            nl_error_set_field(&p->saved, ss_jkey_field(p->key_at[6]));
            return ss_repeat(p, err);
        }
        return 0;
    case JSON_STREAM_OBJECT_END:
    case JSON_STREAM_ARRAY_END:
        if (d == 5 && p->in_graph)
            p->in_graph = false;
        return 0;
    case JSON_STREAM_KEY:
        if (d < SS_JKEY_DEPTHS) {
            p->key_at[d] = ss_jkey_of(t->str, t->len, d);
            if (p->key_at[d] == SS_JK_OTHER && (d == 1 || (d == 6 && p->in_graph)))
                ss->info.json_unknown_keys++;
        }
        return 0;
    default:
        break;
    }
    /* scalars */
    if (d == 1 && p->key_at[1] == SS_JK_NAME) {
        if (t->kind != JSON_STREAM_STRING) {
            ss_fail(p, err, NL_ERR_FORMAT, t->offset, "Name must be a string");
            nl_error_set_field(&p->saved, "Name");
            return ss_repeat(p, err);
        }
        if (!ss->info.model_name) {
            ss_copy_text(ss->model_name, sizeof ss->model_name, t->str, t->len, &ss->info.model_name_cut);
            ss->info.model_name = ss->model_name;
        }
        return 0;
    }
    if (d == 6 && p->in_graph)
        return ss_json_graph_value(p, t, err);
    return 0;
}

static int ss_json_drain(show_session_parser *p, nl_error *err)
{
    for (;;) {
        json_stream_token t;
        nl_error e;
        nl_error_clear(&e);
        json_stream_status st = json_stream_next(p->js, &t, &e);
        if (st == JSON_STREAM_TOKEN) {
            if (ss_json_token(p, &t, err))
                return -1;
            continue;
        }
        if (st == JSON_STREAM_ERROR)
            return ss_fail_with(p, err, &e);
        return 0; /* NEED_MORE */
    }
}

static int ss_start_json(show_session_parser *p, nl_error *err)
{
    json_stream_options jo = {.source = p->source, .depth_max = SHOW_SESSION_JSON_DEPTH_MAX};
    nl_error e;
    p->js = json_stream_new(&jo, &e);
    if (!p->js)
        return ss_fail_with(p, err, &e);
    p->mode = SS_MODE_JSON;
    p->ss->info.format = SHOW_SESSION_FORMAT_JSON;
    /* the blanks that came before '{', so json_stream's offsets are absolute */
    for (uint64_t left = p->lead_bytes; left > 0;) {
        static const char spaces[64] = "                                                               ";
        size_t k = left < sizeof spaces - 1 ? (size_t)left : sizeof spaces - 1;
        if (json_stream_feed(p->js, spaces, k, &e))
            return ss_fail_with(p, err, &e);
        left -= k;
    }
    return 0;
}

static void ss_start_text(show_session_parser *p)
{
    p->mode = SS_MODE_TEXT;
    p->ss->info.lines = p->lead_newlines;
    p->offset = (int64_t)p->lead_bytes;
    if (p->lead_tail) { /* blanks of the current line: content does not matter, its start does */
        p->have_partial = true;
        p->line_len = 0;
        p->line_start = (int64_t)(p->lead_bytes - p->lead_tail);
    }
}

/* ---- API -------------------------------------------------------------------------------------------- */

int show_session_parser_feed(show_session_parser *p, const void *data, size_t len, nl_error *err)
{
    if (p->failed)
        return ss_repeat(p, err);
    const char *d = data;
    p->ss->info.bytes += len;
    if (p->mode == SS_MODE_UNKNOWN) {
        size_t i = 0;
        while (i < len && ss_blank(d[i])) {
            if (d[i] == '\n') {
                p->lead_newlines++;
                p->lead_tail = 0;
            } else {
                p->lead_tail++;
            }
            i++;
        }
        p->lead_bytes += i;
        if (i == len)
            return 0;
        d += i;
        len -= i;
        if (*d == '{') {
            if (ss_start_json(p, err))
                return -1;
        } else {
            ss_start_text(p);
        }
    }
    if (p->mode == SS_MODE_JSON) {
        nl_error e;
        if (json_stream_feed(p->js, d, len, &e))
            return ss_fail_with(p, err, &e);
        return ss_json_drain(p, err);
    }
    return ss_text_feed(p, d, len, err);
}

int show_session_parser_finish(show_session_parser *p, show_session **out, nl_error *err)
{
    *out = NULL;
    if (p->failed)
        return ss_repeat(p, err);
    if (p->mode == SS_MODE_JSON) {
        json_stream_finish(p->js);
        for (;;) {
            json_stream_token t;
            nl_error e;
            json_stream_status st = json_stream_next(p->js, &t, &e);
            if (st == JSON_STREAM_END)
                break;
            if (st == JSON_STREAM_ERROR)
                return ss_fail_with(p, err, &e);
            if (st == JSON_STREAM_NEED_MORE)
                return ss_fail(p, err, NL_ERR_TRUNCATED, json_stream_offset(p->js), "show-session -j output ends early");
            if (ss_json_token(p, &t, err))
                return -1;
        }
    } else {
        if (p->mode == SS_MODE_UNKNOWN)
            ss_start_text(p);
        if (p->have_partial) {
            p->have_partial = false;
            if (ss_line(p, p->line ? p->line : "", p->line_len, p->line_start, err))
                return -1;
        }
    }
    show_session *ss = p->ss;
    for (size_t i = 0; i < ss->core_count; i++) {
        ss->cores[i].triggers = ss->store[i].trig;
        ss->cores[i].type_counts = ss->store[i].counts;
    }
    ss->info.instruction_sections = ss->instr;
    ss->info.listed_instruction_sections = ss->info.instruction_section_count < SHOW_SESSION_INSTR_SECTIONS_MAX
                                               ? ss->info.instruction_section_count : SHOW_SESSION_INSTR_SECTIONS_MAX;
    ss->info.issues = ss->issues;
    ss->info.graphs = ss->graphs;
    if (ss->info.model_name)
        ss->info.model_name = ss->model_name;
    *out = ss;
    p->ss = NULL;
    p->failed = true; /* the result is handed over; the parser is spent */
    nl_error_set(&p->saved, NL_ERR_ARGUMENT, p->source, -1, "show-session parser already finished");
    return 0;
}

int show_session_read_mem(const void *data, size_t len, const show_session_options *opt, show_session **out,
                          nl_error *err)
{
    *out = NULL;
    show_session_parser *p = show_session_parser_new(opt, err);
    if (!p)
        return -1;
    int rc = show_session_parser_feed(p, data, len, err);
    if (rc == 0)
        rc = show_session_parser_finish(p, out, err);
    show_session_parser_free(p);
    return rc;
}

int show_session_read(const char *path, const show_session_options *opt, show_session **out, nl_error *err)
{
    *out = NULL;
    show_session_options o = opt ? *opt : (show_session_options){0};
    if (!o.source)
        o.source = path;
    size_t chunk = o.read_size ? o.read_size : SHOW_SESSION_READ_SIZE;
    int fd;
    uint64_t size;
    if (rdfile_open(path, &fd, &size, err))
        return -1;
    show_session_parser *p = show_session_parser_new(&o, err);
    char *buf = p ? malloc(chunk) : NULL;
    if (!buf) {
        if (p)
            nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory allocating a read buffer");
        show_session_parser_free(p);
        close(fd);
        return -1;
    }
    int rc = 0;
    for (uint64_t at = 0;;) {
        size_t got;
        if (o.cancel && atomic_load(o.cancel)) {
            rc = nl_error_set(err, NL_ERR_CANCELLED, path, (int64_t)at, "cancelled");
            break;
        }
        if ((rc = rdfile_pread(fd, buf, chunk, at, &got, path, err)) != 0)
            break;
        if (got == 0)
            break;
        if ((rc = show_session_parser_feed(p, buf, got, err)) != 0)
            break;
        at += got;
    }
    if (rc == 0)
        rc = show_session_parser_finish(p, out, err);
    free(buf);
    show_session_parser_free(p);
    close(fd);
    return rc;
}
