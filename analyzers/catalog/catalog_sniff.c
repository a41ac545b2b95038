/* catalog_sniff — decide what a file is from its name and its first bytes, and read its identity.
 *
 * Evidence, strongest first:
 *   name        *.neff, *.ntff, *.parquet, ntrace.pb / trace_info.pb / cpu_util.pb / host_mem.pb: the kind is
 *               taken from the name, then checked against the content; a failed check keeps the kind,
 *               sets valid = false and adds a NL_NOTE_BAD_HEADER note carrying the reader's error (e.g. a
 *               `.pb` stream named `.ntff` is reported as such, never parsed as one).
 *   magic       bytes 0..3 "PAR1" (+ the same 4 bytes at the end) → Parquet; 0x80 and a pickle protocol
 *               2..5, with the key "segments" in the head → PyTorch allocator snapshot; u64 @8 == 1024 with gzip
 *               magic 1f 8b @1024 → NEFF; byte 0 in 1..7 with a sane u24 length and a protobuf field-1
 *               string tag (0x0a) @128 → NTFF; 1f 8b → gzip, whose first CATALOG_SNIFF_JSON_BYTES are
 *               inflated with zlib and sniffed as JSON.
 *   JSON head   first key and the first character of its value, found by a tiny bounded scanner (no DOM):
 *                 "traceEvents" anywhere in the head, or "schemaVersion" + "deviceProperties" → Kineto
 *                 a bare array (torch 1.x / Chrome array format) → Kineto only when the name ends in
 *                   trace.json or trace.json.gz (also *.pt.trace.json) and the array opens with an object
 *                   whose keys, in the head, include "ph", or "name" and "ts"
 *                 first key ∈ full-export arrays (metadata, instruction, summary, neff_header, ...) with
 *                   an array value → full JSON export
 *                 first key n_<hex> / s_<hex> with an object value → summary-json
 *                 "Name" / "NeffNodes" → show-session -j
 *                 trace_events / trace_event / mem_usage / cpu_util arrays → system-profile JSON
 *   text head   "Instruction trace for ND", "Collectives trace for CC-core", "Model Name" → show-session
 *               text; a first line `n_<hex>`/`s_<hex>` followed by indented lines, or a `total_time <num>`
 *               line → summary-text.
 *
 * A full JSON export's identity (neff_header.uuid / network_name, profile_info.ntff_filename) may sit
 * anywhere in a file of gigabytes, so it is found by memmem over bounded chunks (CATALOG_PEEK_CHUNK, with
 * an overlap so a key split across chunks is still found), up to lim.json_peek_bytes, and the few bytes
 * after each hit are read with the same bounded scanner.
 * TODO(json reader): when analyzers/readers/json* (the streaming export reader) lands, replace
 * catalog_peek_export with a key-targeted pass of that reader; the result fields stay the same. */
#include "catalog_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "neff.h"
#include "ntff.h"
#include "parquet.h"
#include "pbwire.h"
#include "rdfile.h"

#define CATALOG_PEEK_CHUNK (1u << 20)
#define CATALOG_PEEK_WINDOW 8192     /* bytes read after a key hit */
#define CATALOG_JSON_KEY_MAX 64
#define CATALOG_PEEK_VALUE_MAX 1024
#define CATALOG_PEEK_MAX_HITS 16     /* key occurrences tried per key (a key text inside strings fails) */

/* ---- the bytes at hand ------------------------------------------------------------------------------ */

typedef struct sniff_ctx {
    nl_catalog *cat;
    nl_catalog_file *f;
    int fd;
    uint8_t *head;             /* raw first bytes */
    size_t head_len;
    char *text;                /* head as text: raw, or inflated when gzipped */
    size_t text_len;
    bool text_owned;
} sniff_ctx;

static bool sniff_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Inflate the first bytes of a gzip stream; returns a malloc'ed buffer or NULL. */
static char *sniff_gunzip_head(const uint8_t *in, size_t in_len, size_t *out_len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return NULL;
    char *out = malloc(CATALOG_SNIFF_JSON_BYTES);
    if (!out) {
        inflateEnd(&zs);
        return NULL;
    }
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)in_len;
    zs.next_out = (Bytef *)out;
    zs.avail_out = CATALOG_SNIFF_JSON_BYTES;
    int rc = inflate(&zs, Z_SYNC_FLUSH);
    *out_len = CATALOG_SNIFF_JSON_BYTES - zs.avail_out;
    inflateEnd(&zs);
    if ((rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) || *out_len == 0) {
        free(out);
        return NULL;
    }
    return out;
}

static bool sniff_is_gzip(const sniff_ctx *s)
{
    return s->head_len >= 2 && s->head[0] == 0x1f && s->head[1] == 0x8b;
}

static const char *sniff_skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Make s->text: the raw head, extended to CATALOG_SNIFF_JSON_BYTES when it starts like JSON or gzip,
 * and inflated when gzipped. */
static void sniff_load_text(sniff_ctx *s)
{
    s->text = (char *)s->head;
    s->text_len = s->head_len;
    const char *p = sniff_skip_ws((const char *)s->head, (const char *)s->head + s->head_len);
    bool jsonish = p < (const char *)s->head + s->head_len && (*p == '{' || *p == '[');
    if ((jsonish || sniff_is_gzip(s)) && s->head_len == CATALOG_SNIFF_BYTES) {
        uint8_t *big = malloc(CATALOG_SNIFF_JSON_BYTES);
        size_t got;
        if (big && rdfile_pread(s->fd, big, CATALOG_SNIFF_JSON_BYTES, 0, &got, s->f->path, NULL) == 0) {
            free(s->head);
            s->head = big;
            s->head_len = got;
            s->text = (char *)big;
            s->text_len = got;
        } else {
            free(big);
        }
    }
    if (sniff_is_gzip(s)) {
        size_t n;
        char *z = sniff_gunzip_head(s->head, s->head_len, &n);
        s->f->gzipped = true;
        s->text = z;
        s->text_len = z ? n : 0;
        s->text_owned = z != NULL;
    }
}

/* ---- by name ---------------------------------------------------------------------------------------- */

static nl_file_kind sniff_by_name(const char *base)
{
    static const struct { const char *name; nl_file_kind kind; } exact[] = {
        {"ntrace.pb", NL_FILE_NTRACE_PB},
        {"trace_info.pb", NL_FILE_TRACE_INFO_PB},
        {"cpu_util.pb", NL_FILE_CPU_UTIL_PB},
        {"host_mem.pb", NL_FILE_HOST_MEM_PB},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(base, exact[i].name) == 0)
            return exact[i].kind;
    if (sniff_ends_with(base, ".neff"))
        return NL_FILE_NEFF;
    if (sniff_ends_with(base, ".ntff"))
        return NL_FILE_NTFF;
    if (sniff_ends_with(base, ".parquet"))
        return NL_FILE_PARQUET;
    return NL_FILE_UNKNOWN;
}

/* ---- JSON head -------------------------------------------------------------------------------------- */

/* Read a JSON string starting at `p` (on the opening quote) into out (cap bytes, truncated, simple
 * escapes decoded). Returns the position after the closing quote, or NULL if it does not end in range. */
static const char *sniff_json_string(const char *p, const char *end, char *out, size_t cap)
{
    size_t n = 0;
    for (p++; p < end; p++) {
        char c = *p;
        if (c == '"') {
            if (cap)
                out[n < cap ? n : cap - 1] = '\0';
            return p + 1;
        }
        if (c == '\\') {
            if (++p >= end)
                return NULL;
            c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        }
        if (n + 1 < cap)
            out[n++] = c;
    }
    return NULL;
}

/* Skip one JSON value at p (string, number, literal, or nested object/array); NULL if it runs out. */
static const char *sniff_json_skip_value(const char *p, const char *end)
{
    int depth = 0;
    bool in_str = false;
    for (; p < end; p++) {
        char c = *p;
        if (in_str) {
            if (c == '\\')
                p++;
            else if (c == '"')
                in_str = false;
            if (!in_str && depth == 0)
                return p + 1;
            continue;
        }
        if (c == '"')
            in_str = true;
        else if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (depth == 0)
                return p;
            if (--depth == 0)
                return p + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t'))
            return p;
    }
    return NULL;
}

/* First key of a top-level object and the first byte of its value. */
static bool sniff_json_first_key(const char *t, size_t n, char *key, size_t cap, char *value_start)
{
    const char *end = t + n, *p = t;
    if (n >= 3 && (unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf)
        p += 3;
    p = sniff_skip_ws(p, end);
    if (p >= end || *p != '{')
        return false;
    p = sniff_skip_ws(p + 1, end);
    if (p >= end || *p != '"' || !(p = sniff_json_string(p, end, key, cap)))
        return false;
    p = sniff_skip_ws(p, end);
    if (p >= end || *p != ':')
        return false;
    p = sniff_skip_ws(p + 1, end);
    if (p >= end)
        return false;
    *value_start = *p;
    return true;
}

static bool sniff_in_list(const char *key, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(key, *list) == 0)
            return true;
    return false;
}

static bool sniff_is_profile_key(const char *key)
{
    if ((key[0] != 'n' && key[0] != 's') || key[1] != '_')
        return false;
    size_t hex = strspn(key + 2, "0123456789abcdefABCDEF");
    return hex >= 8 && key[2 + hex] == '\0';
}

static bool sniff_has(const char *t, size_t n, const char *needle)
{
    return t && memmem(t, n, needle, strlen(needle)) != NULL;
}

/* How many known export array names appear as `"name":[` in the head (first key unknown). */
static unsigned sniff_export_arrays(const char *t, size_t n, const char *const *keys)
{
    unsigned found = 0;
    char pattern[CATALOG_JSON_KEY_MAX + 8];
    for (; *keys; keys++) {
        snprintf(pattern, sizeof pattern, "\"%s\":[", *keys);
        found += sniff_has(t, n, pattern);
    }
    return found;
}

static nl_file_kind sniff_json(const char *t, size_t n)
{
    static const char *const export_keys[] = {
        "metadata", "warnings", "instruction", "ham", "summary_group_order", "dma_queues_info",
        "instruction_usage", "summary", "layer_summary", "profile_info", "semaphore_update", "dma",
        "dma_throughput", "terminology", "neff_node", "pending_dma", "active_time", "summary_groups",
        "neff_header", "model_info", "nc_mem_usage", "cc_stream", "stack_frame_function_name", NULL};
    static const char *const system_keys[] = {"trace_events", "trace_event", "mem_usage", "cpu_util", NULL};
    char key[CATALOG_JSON_KEY_MAX];
    char v;
    if (!sniff_json_first_key(t, n, key, sizeof key, &v))
        return NL_FILE_UNKNOWN;
    if (sniff_has(t, n, "\"traceEvents\"") ||
        (sniff_has(t, n, "\"schemaVersion\"") && sniff_has(t, n, "\"deviceProperties\"")))
        return NL_FILE_KINETO;
    if (v == '[' && (sniff_in_list(key, export_keys) || sniff_export_arrays(t, n, export_keys) >= 2))
        return NL_FILE_JSON_EXPORT; /* newer or synthetic exports may open with an array we do not know */
    if (v == '{' && sniff_is_profile_key(key))
        return NL_FILE_SUMMARY_JSON;
    if (strcmp(key, "Name") == 0 || strcmp(key, "NeffNodes") == 0 || sniff_has(t, n, "\"NeffNodes\""))
        return NL_FILE_SHOW_SESSION_JSON;
    if (v == '[' && sniff_in_list(key, system_keys))
        return NL_FILE_SYSTEM_JSON;
    return NL_FILE_UNKNOWN;
}

/* A torch 1.x trace: `[` then `{`, named *trace.json(.gz), with event keys in the head (see the top). */
static bool sniff_kineto_array(const char *base, const char *t, size_t n)
{
    if (!t || !(sniff_ends_with(base, "trace.json") || sniff_ends_with(base, "trace.json.gz")))
        return false;
    const char *end = t + n, *p = t;
    if (n >= 3 && (unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf)
        p += 3;
    p = sniff_skip_ws(p, end);
    if (p >= end || *p != '[')
        return false;
    p = sniff_skip_ws(p + 1, end);
    if (p >= end || *p != '{')
        return false;
    size_t rest = (size_t)(end - p);
    return sniff_has(p, rest, "\"ph\"") || (sniff_has(p, rest, "\"name\"") && sniff_has(p, rest, "\"ts\""));
}

/* ---- text head -------------------------------------------------------------------------------------- */

static bool sniff_is_text(const char *t, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == 0)
            return false;
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
            bad++;
    }
    return n > 0 && bad * 100 <= n;
}

/* `total_time <number>` on a line of its own (legacy summary-text). */
static bool sniff_has_total_time_line(const char *t, size_t n)
{
    const char *end = t + n;
    for (const char *p = t; p && p < end; p = memchr(p, '\n', (size_t)(end - p)), p = p ? p + 1 : NULL) {
        const char *q = p;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if ((size_t)(end - q) > 11 && memcmp(q, "total_time", 10) == 0 && (q[10] == ' ' || q[10] == '\t')) {
            q = sniff_skip_ws(q + 10, end);
            if (q < end && ((*q >= '0' && *q <= '9') || *q == '.'))
                return true;
        }
    }
    return false;
}

static bool sniff_summary_text_header(const char *t, size_t n)
{
    const char *end = t + n, *p = sniff_skip_ws(t, end);
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl || nl - p >= CATALOG_JSON_KEY_MAX)
        return false;
    char line[CATALOG_JSON_KEY_MAX];
    size_t len = (size_t)(nl - p);
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\r' || p[len - 1] == ':'))
        len--;
    memcpy(line, p, len);
    line[len] = '\0';
    return sniff_is_profile_key(line) && nl + 1 < end && (nl[1] == ' ' || nl[1] == '\t');
}

static nl_file_kind sniff_text(const char *t, size_t n)
{
    /* the section headers are specific enough to name a dump even when binary bytes follow: the reader then
     * reports the first bad byte with its offset, rather than the file passing as unknown */
    if (sniff_has(t, n, "Instruction trace for ND") || sniff_has(t, n, "Collectives trace for CC-core"))
        return NL_FILE_SHOW_SESSION_TEXT;
    if (!sniff_is_text(t, n))
        return NL_FILE_UNKNOWN;
    if (sniff_has(t, n, "Model Name"))
        return NL_FILE_SHOW_SESSION_TEXT;
    if (sniff_summary_text_header(t, n) || sniff_has_total_time_line(t, n))
        return NL_FILE_SUMMARY_TEXT;
    return NL_FILE_UNKNOWN;
}

/* ---- magic ------------------------------------------------------------------------------------------ */

static bool sniff_parquet_magic(const sniff_ctx *s)
{
    if (s->head_len < 4 || memcmp(s->head, "PAR1", 4) != 0 || s->f->size < 12)
        return false;
    uint8_t tail[4];
    size_t got;
    return rdfile_pread(s->fd, tail, 4, s->f->size - 4, &got, s->f->path, NULL) == 0 && got == 4 &&
           memcmp(tail, "PAR1", 4) == 0;
}

static bool sniff_neff_magic(const sniff_ctx *s)
{
    static const uint8_t hs[8] = {0x00, 0x04, 0, 0, 0, 0, 0, 0}; /* u64 LE 1024 */
    return s->head_len >= NL_NEFF_SNIFF_BYTES && memcmp(s->head + 8, hs, 8) == 0 && s->head[1024] == 0x1f &&
           s->head[1025] == 0x8b;
}

static bool sniff_ntff_magic(const sniff_ctx *s)
{
    return s->head_len > NL_NTFF_HEADER_BYTES && s->head[NL_NTFF_HEADER_BYTES] == 0x0a &&
           nl_ntff_check_prefix(s->head, s->head_len, s->f->size, s->f->path, NULL) == 0;
}

/* A pickle of protocol 2-5 (0x80 then the protocol byte) whose head names the snapshot's first key: the dict
 * torch.cuda.memory._snapshot() returns starts with "segments" (every sample; formats.md §1.1). */
static bool sniff_memory_snapshot(const sniff_ctx *s)
{
    static const char key[] = "segments";
    return s->head_len >= 2 && s->head[0] == 0x80 && s->head[1] >= 2 && s->head[1] <= 5 &&
           memmem(s->head, s->head_len, key, sizeof key - 1) != NULL;
}

static nl_file_kind sniff_by_content(sniff_ctx *s)
{
    if (sniff_parquet_magic(s))
        return NL_FILE_PARQUET;
    if (sniff_memory_snapshot(s))
        return NL_FILE_MEMORY_SNAPSHOT;
    if (sniff_neff_magic(s))
        return NL_FILE_NEFF;
    if (sniff_ntff_magic(s))
        return NL_FILE_NTFF;
    sniff_load_text(s);
    if (!s->text)
        return NL_FILE_UNKNOWN;
    nl_file_kind k = sniff_json(s->text, s->text_len);
    if (k == NL_FILE_UNKNOWN && sniff_kineto_array(catalog_basename(s->f->rel_path), s->text, s->text_len))
        k = NL_FILE_KINETO;
    return k != NL_FILE_UNKNOWN ? k : sniff_text(s->text, s->text_len);
}

/* ---- validation of name-derived kinds --------------------------------------------------------------- */

static void sniff_bad(sniff_ctx *s, const char *fix, const char *detail)
{
    s->f->valid = false;
    catalog_note(s->cat, NL_NOTE_BAD_HEADER, NL_NOTE_WARN, s->f->rel_path, fix, "%s", detail);
}

static void sniff_note_error(sniff_ctx *s, const nl_error *e, const char *fix)
{
    s->f->valid = false;
    if (e->offset >= 0)
        catalog_note(s->cat, NL_NOTE_BAD_HEADER, NL_NOTE_WARN, s->f->rel_path, fix, "not a valid %s (%s at byte %lld): %s",
                     nl_file_kind_name(s->f->kind), nl_error_code_name(e->code), (long long)e->offset, e->message);
    else
        catalog_note(s->cat, NL_NOTE_BAD_HEADER, NL_NOTE_WARN, s->f->rel_path, fix, "not a valid %s (%s): %s",
                     nl_file_kind_name(s->f->kind), nl_error_code_name(e->code), e->message);
}

static void sniff_neff(sniff_ctx *s)
{
    nl_neff_header h;
    nl_error e;
    if (nl_neff_parse_header(s->head, s->head_len, s->f->size, s->f->path, &h, &e)) {
        sniff_note_error(s, &e, "re-copy the NEFF from the compile cache");
        return;
    }
    s->f->has_uuid = true;
    memcpy(s->f->uuid_hex, h.uuid_hex, sizeof s->f->uuid_hex);
    s->f->neff_name = catalog_strdup(s->cat, h.network_name);
}

static void sniff_ntff(sniff_ctx *s)
{
    nl_error e;
    nl_ntff *n = nl_ntff_read(s->f->path, &e);
    if (!n) {
        sniff_note_error(s, &e, "check that the file is really an NTFF (neuron-profile capture output)");
        return;
    }
    nl_catalog_file *f = s->f;
    f->ntff_version = n->version;
    f->has_uuid = n->has_uuid;
    memcpy(f->uuid_hex, n->uuid_hex, sizeof f->uuid_hex);
    f->neff_name = n->neff_name[0] ? catalog_strdup(s->cat, n->neff_name) : NULL;
    f->runtime_version = n->has_runtime ? catalog_strdup(s->cat, n->runtime_version) : NULL;
    f->instance_type = n->instance_type[0] ? catalog_strdup(s->cat, n->instance_type) : NULL;
    f->instance_id = n->instance_id[0] ? catalog_strdup(s->cat, n->instance_id) : NULL;
    f->ntff_payload = n->payload_bytes > 0 && n->core_info_count > 0;
    if (n->payload_bytes == 0)
        catalog_note(s->cat, NL_NOTE_EMPTY_NTFF, NL_NOTE_WARN, f->rel_path,
                     "capture only the cores that run (an NTFF is empty when a core was set up but not used)",
                     "NTFF has metadata but no device trace payload");
    else if (n->section_count > 0 && !n->sections_end_at_eof)
        catalog_note(s->cat, NL_NOTE_NTFF_SIZE, NL_NOTE_WARN, f->rel_path, "re-copy the NTFF; it may be truncated",
                     "section table ends at byte %llu but the file has %llu bytes",
                     (unsigned long long)(n->payload_offset + n->last_section_offset),
                     (unsigned long long)n->file_size);
    nl_ntff_free(n);
}

static bool sniff_pb_stream_ok(const sniff_ctx *s)
{
    if (s->head_len < 4)
        return s->f->size == 0; /* an empty stream is well-formed */
    const uint8_t *h = s->head;
    uint32_t n = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
    if ((uint64_t)n + 4 > s->f->size)
        return false;
    size_t avail = s->head_len - 4;
    return n == 0 || pbwire_plausible(h + 4, avail < n ? avail : n, avail >= n, 1);
}

static void sniff_pb(sniff_ctx *s)
{
    bool ok = s->f->kind == NL_FILE_TRACE_INFO_PB
                  ? pbwire_plausible(s->head, s->head_len, s->head_len >= s->f->size, 1)
                  : sniff_pb_stream_ok(s);
    if (!ok)
        sniff_bad(s, "re-copy the capture directory",
                  s->f->kind == NL_FILE_TRACE_INFO_PB ? "named trace_info.pb but not a protobuf message"
                                                      : "named like a system-profile stream but not [u32 length][protobuf] records");
}

/* ---- JSON export identity peek ---------------------------------------------------------------------- */

/* In `w` (just after a matched "key"), expect `: [ {` or `: {` and find string member `want` of that
 * first object at depth 1. */
static bool peek_member(const char *w, size_t n, const char *want, char *out, size_t cap)
{
    const char *end = w + n, *p = sniff_skip_ws(w, end);
    if (p >= end || *p != ':')
        return false;
    p = sniff_skip_ws(p + 1, end);
    if (p < end && *p == '[')
        p = sniff_skip_ws(p + 1, end);
    if (p >= end || *p != '{')
        return false;
    p++;
    char key[CATALOG_JSON_KEY_MAX];
    for (;;) {
        p = sniff_skip_ws(p, end);
        if (p >= end || *p != '"' || !(p = sniff_json_string(p, end, key, sizeof key)))
            return false;
        p = sniff_skip_ws(p, end);
        if (p >= end || *p != ':')
            return false;
        p = sniff_skip_ws(p + 1, end);
        if (p >= end)
            return false;
        if (strcmp(key, want) == 0)
            return *p == '"' && sniff_json_string(p, end, out, cap) != NULL;
        if (!(p = sniff_json_skip_value(p, end)))
            return false;
        p = sniff_skip_ws(p, end);
        if (p >= end || *p != ',')
            return false;
        p++;
    }
}

static bool peek_is_uuid(const char *s)
{
    return strlen(s) == 32 && strspn(s, "0123456789abcdef") == 32;
}

typedef struct peek_state {
    bool header_done, info_done;
    unsigned header_hits, info_hits;
} peek_state;

/* Handle one hit of `"neff_header"` or `"profile_info"` at absolute offset `at`. */
static void peek_hit(sniff_ctx *s, peek_state *ps, bool header, uint64_t at, size_t keylen)
{
    char win[CATALOG_PEEK_WINDOW];
    size_t got;
    if (rdfile_pread(s->fd, win, sizeof win, at + keylen, &got, s->f->path, NULL))
        return;
    char val[CATALOG_PEEK_VALUE_MAX];
    if (header && peek_member(win, got, "uuid", val, sizeof val) && peek_is_uuid(val)) {
        ps->header_done = true;
        s->f->has_uuid = true;
        memcpy(s->f->uuid_hex, val, 33);
        if (peek_member(win, got, "network_name", val, sizeof val))
            s->f->neff_name = catalog_strdup(s->cat, val);
    } else if (!header && peek_member(win, got, "ntff_filename", val, sizeof val)) {
        ps->info_done = true;
        s->f->export_ntff_filename = catalog_strdup(s->cat, val);
    }
}

/* Search buf[0..n) (file offset `base`) for the keys still missing; handle every hit. */
static void peek_scan_chunk(sniff_ctx *s, peek_state *ps, const char *buf, size_t n, uint64_t base)
{
    static const char kh[] = "\"neff_header\"", ki[] = "\"profile_info\"";
    for (int which = 0; which < 2; which++) {
        bool header = which == 0;
        const char *key = header ? kh : ki;
        size_t klen = header ? sizeof kh - 1 : sizeof ki - 1;
        const char *p = buf;
        unsigned *hits = header ? &ps->header_hits : &ps->info_hits;
        while (!(header ? ps->header_done : ps->info_done) && *hits < CATALOG_PEEK_MAX_HITS && p < buf + n) {
            const char *hit = memmem(p, (size_t)(buf + n - p), key, klen);
            if (!hit)
                break;
            ++*hits;
            peek_hit(s, ps, header, base + (uint64_t)(hit - buf), klen);
            p = hit + 1;
        }
    }
}

/* The caller's export_identity hook, when it knows this file: no read needed. */
static bool peek_from_hook(sniff_ctx *s)
{
    const nl_catalog_limits *lim = &s->cat->lim;
    nl_catalog_file *f = s->f;
    char uuid[33] = "", ntff[CATALOG_PEEK_VALUE_MAX] = "";
    if (!lim->export_identity ||
        !lim->export_identity(lim->export_identity_ctx, f->path, f->size, f->mtime_ns, uuid, ntff, sizeof ntff))
        return false;
    f->export_peeked = true;
    if (strlen(uuid) == 32) {
        memcpy(f->uuid_hex, uuid, 33);
        f->has_uuid = true;
    }
    if (ntff[0])
        f->export_ntff_filename = catalog_strdup(s->cat, ntff);
    return true;
}

static void catalog_peek_export(sniff_ctx *s)
{
    nl_catalog_file *f = s->f;
    uint64_t budget = s->cat->lim.json_peek_bytes;
    if (peek_from_hook(s))
        return;
    if (f->gzipped || budget == 0) {
        catalog_note(s->cat, NL_NOTE_EXPORT_NOT_PEEKED, NL_NOTE_INFO, f->rel_path, NULL,
                     f->gzipped ? "compressed JSON export: its neff_header/profile_info were not read"
                                : "JSON export peeking disabled (json_peek_bytes = 0)");
        return;
    }
    const size_t overlap = 32; /* > longest key; a key split across chunks is found in the next one */
    char *buf = malloc(CATALOG_PEEK_CHUNK);
    if (!buf)
        return;
    peek_state ps = {0};
    uint64_t off = 0;
    f->export_peeked = true;
    while (!(ps.header_done || ps.header_hits >= CATALOG_PEEK_MAX_HITS) ||
           !(ps.info_done || ps.info_hits >= CATALOG_PEEK_MAX_HITS)) {
        if (off >= f->size || off >= budget)
            break;
        size_t want = budget - off < CATALOG_PEEK_CHUNK ? (size_t)(budget - off) : CATALOG_PEEK_CHUNK;
        size_t got;
        if (rdfile_pread(s->fd, buf, want, off, &got, f->path, NULL) || got == 0)
            break;
        peek_scan_chunk(s, &ps, buf, got, off);
        if (got < want || want <= overlap)
            break;
        off += got - overlap;
    }
    free(buf);
    const nl_catalog_limits *lim = &s->cat->lim;
    if (lim->export_identity_found && ((ps.header_done && ps.info_done) || f->size <= budget))
        lim->export_identity_found(lim->export_identity_ctx, f->path, f->size, f->mtime_ns, f->has_uuid ? f->uuid_hex : "",
                                   f->export_ntff_filename ? f->export_ntff_filename : "");
    if (!(ps.header_done && ps.info_done) && f->size > budget)
        catalog_note(s->cat, NL_NOTE_EXPORT_NOT_PEEKED, NL_NOTE_INFO, f->rel_path,
                     "call summary on this profile: reading the whole export finds its identity, and the next "
                     "scan pairs it",
                     "%s not found in the first %llu bytes of a %llu-byte export (exports list their arrays in any "
                     "order)",
                     !ps.header_done && !ps.info_done ? "neff_header (uuid) and profile_info (NTFF name)"
                     : !ps.header_done                ? "neff_header (uuid)"
                                                      : "profile_info (NTFF name)",
                     (unsigned long long)budget, (unsigned long long)f->size);
}

/* Whether an export ends where a JSON document ends: its last non-blank byte is the top-level '}'. Read from
 * the tail, so a cut-off file of any size is found without reading it (the reader would find it too, at the
 * end of a full read). */
static void sniff_export_tail(sniff_ctx *s)
{
    nl_catalog_file *f = s->f;
    char tail[64];
    size_t want = f->size < sizeof tail ? (size_t)f->size : sizeof tail, got = 0;
    if (f->gzipped || want == 0 || rdfile_pread(s->fd, tail, want, f->size - want, &got, f->path, NULL))
        return;
    while (got > 0 && (tail[got - 1] == ' ' || tail[got - 1] == '\n' || tail[got - 1] == '\r' || tail[got - 1] == '\t'))
        got--;
    if (got > 0 && tail[got - 1] == '}')
        return;
    f->complete = false;
    catalog_note(s->cat, NL_NOTE_EXPORT_TRUNCATED, NL_NOTE_WARN, f->rel_path,
                 "export again (neuron-profile view --output-format json) and copy the whole file",
                 "the export is cut off: its %llu bytes end inside the JSON document, not with its closing '}'",
                 (unsigned long long)f->size);
}

/* A Parquet table's footer (schema, row groups, column chunks) parsed by the reader: a table whose footer
 * fails its checks cannot be read, and saying so here keeps orient from suggesting a call that would fail.
 * Reads the last 8 bytes and the footer only, not the pages. */
static void sniff_parquet_footer(sniff_ctx *s)
{
    parquet_file *pf = NULL;
    nl_error e = {0};
    if (parquet_open(s->f->path, &pf, &e) != 0)
        sniff_note_error(s, &e, "export the profile again with neuron-explorer and copy every table whole");
    parquet_close(pf);
}

/* ---- entry point ------------------------------------------------------------------------------------ */

static void sniff_validate(sniff_ctx *s)
{
    switch (s->f->kind) {
    case NL_FILE_NEFF: sniff_neff(s); break;
    case NL_FILE_NTFF: sniff_ntff(s); break;
    case NL_FILE_NTRACE_PB:
    case NL_FILE_TRACE_INFO_PB:
    case NL_FILE_CPU_UTIL_PB:
    case NL_FILE_HOST_MEM_PB: sniff_pb(s); break;
    case NL_FILE_PARQUET:
        if (!sniff_parquet_magic(s))
            sniff_bad(s, "re-export the Parquet tables", "named .parquet but lacks the PAR1 magic at both ends");
        else
            sniff_parquet_footer(s);
        break;
    case NL_FILE_JSON_EXPORT:
        sniff_export_tail(s);
        catalog_peek_export(s);
        break;
    default: break;
    }
}

void catalog_classify(nl_catalog *cat, size_t i)
{
    nl_catalog_file *f = &cat->files[i];
    f->valid = true;
    f->complete = true;
    nl_file_kind by_name = sniff_by_name(catalog_basename(f->rel_path));
    nl_error e;
    sniff_ctx s = {.cat = cat, .f = f, .fd = -1};
    uint64_t size;
    if (rdfile_open(f->path, &s.fd, &size, &e)) {
        f->readable = false;
        f->valid = false;
        f->kind = by_name;
        catalog_note(cat, NL_NOTE_UNREADABLE, NL_NOTE_WARN, f->rel_path, "check the file's permissions", "%s",
                     e.message);
        return;
    }
    f->size = size;
    s.head = malloc(CATALOG_SNIFF_BYTES);
    if (!s.head || rdfile_pread(s.fd, s.head, CATALOG_SNIFF_BYTES, 0, &s.head_len, f->path, &e)) {
        f->readable = false;
        f->valid = false;
        f->kind = by_name;
        catalog_note(cat, NL_NOTE_UNREADABLE, NL_NOTE_WARN, f->rel_path, "check the file's permissions", "%s",
                     s.head ? e.message : "out of memory");
    } else {
        f->kind = by_name != NL_FILE_UNKNOWN ? by_name : sniff_by_content(&s);
        sniff_validate(&s);
    }
    if (s.text_owned)
        free(s.text);
    free(s.head);
    close(s.fd);
}
