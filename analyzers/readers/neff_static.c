/* neff_static — static facts of a NEFF (neff_static.h). The container (1024-byte header + gzip tar) is read
 * by neff.c; this file makes one more pass over the tar and decodes these members (verified on the four
 * sample NEFFs: neff-ntff ×2, nki-kernel, capture):
 *
 *   sgNN/{PE,Activation,Pool,DVE,SP}.bin   the engine programs: 64-byte instruction slots, byte 0 the opcode
 *                                          (the same slots the NTFF's instruction streams carry, after a
 *                                          runtime preamble: neff_static_match_ntff finds the offset)
 *   sgNN/debug_info_asm_<engine>.dbg       protobuf {1 description, 2 next file, 3 entry repeated}; "instructions
 *                                          in this debug info occur in the same order as those in the actual
 *                                          binary file" (its own description): one entry per slot, entry =
 *                                          {3 packed varint backend (BIR) instruction ids}; 1,474/467/931/386/11
 *                                          entries for as many slots in v6b.neff's sg00
 *   sgNN/def.json                          {"version", "<engine>_instr": "<stem>.bin", ...}
 *   metrics.json                           [{"MetricName", "Value", "Unit"}] (trn1 sample only)
 *   hlo_stats.json                         {name: number} (v6 samples)
 *   debug_info/debug_info_hlo.dbg_*        protobuf {1 description, 2 next file, 3 entry repeated}; entry =
 *                                          {1 id, 2 HLO text, 7 attribute {1 key, 2 value} repeated}; keys seen:
 *                                          op_type, source_file, source_line
 *   <kernel>.klir.debuginfo.json           [{"lnc", "info": [{"func": {"name", "line", "file", ...}}, ...]}]
 *
 * Compile flags: none of the four sample NEFFs carries them in any member (searched), so none are read.
 * Nothing else in the payload is decompressed into memory: other members are skipped by libarchive. */
#include "neff_static.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbwire.h"
#include "rdfile.h"

#define NS_READ_CHUNK (64 * 1024)

static const char *const ns_stems[NTFF_ENGINE_COUNT] = {NULL, "PE", "Activation", "Pool", "DVE", "SP"};

static void ns_problem(neff_static *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ns_problem(neff_static *s, const char *fmt, ...)
{
    if (s->problem_count++ > 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->problem, sizeof s->problem, fmt, ap);
    va_end(ap);
}

/* Small allocations abort (STYLE §11); input-sized ones are checked against the caps first. */
static void *ns_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fputs("neuronlens: out of memory\n", stderr);
        abort();
    }
    return p;
}

static char *ns_xstrndup(const char *s, size_t n)
{
    char *d = ns_xcalloc(n + 1, 1);
    memcpy(d, s, n);
    return d;
}

static uint64_t ns_fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* ---- subgraphs ---------------------------------------------------------------------------------------- */

static neff_subgraph_static *ns_subgraph(neff_static *s, const char *name, size_t len)
{
    for (size_t i = 0; i < s->subgraph_count; i++)
        if (strlen(s->subgraphs[i].name) == len && memcmp(s->subgraphs[i].name, name, len) == 0)
            return &s->subgraphs[i];
    if (len >= sizeof s->subgraphs[0].name || s->subgraph_count >= NEFF_STATIC_SUBGRAPHS_MAX)
        return NULL;
    if (!s->subgraphs)
        s->subgraphs = ns_xcalloc(NEFF_STATIC_SUBGRAPHS_MAX, sizeof *s->subgraphs);
    neff_subgraph_static *g = &s->subgraphs[s->subgraph_count++];
    memcpy(g->name, name, len);
    g->name[len] = '\0';
    for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
        g->engine[e].ntff_engine = e, g->engine[e].stem = ns_stems[e];
    return g;
}

const neff_subgraph_static *neff_static_subgraph(const neff_static *s, const char *name)
{
    for (size_t i = 0; s && name && i < s->subgraph_count; i++)
        if (strcmp(s->subgraphs[i].name, name) == 0)
            return &s->subgraphs[i];
    return NULL;
}

/* ---- members ------------------------------------------------------------------------------------------ */

static int ns_take_bin(neff_static *s, neff_engine_program *g, const char *name, const uint8_t *data, size_t len,
                       uint64_t *total_slots)
{
    if (len % 64) {
        ns_problem(s, "%s has %zu bytes, not whole 64-byte slots; not decoded", name, len);
        return 0;
    }
    uint32_t n = (uint32_t)(len / 64);
    if (g->present || *total_slots + n > NEFF_STATIC_SLOTS_MAX) {
        ns_problem(s, "%s: %s; not decoded", name, g->present ? "a second copy" : "over NEFF_STATIC_SLOTS_MAX slots");
        return 0;
    }
    *total_slots += n;
    g->present = true;
    g->slots = n;
    g->opcode = ns_xcalloc(n, 1);
    g->slot_hash = ns_xcalloc(n, sizeof *g->slot_hash);
    for (uint32_t i = 0; i < n; i++) {
        g->opcode[i] = data[64 * (size_t)i];
        g->slot_hash[i] = ns_fnv(data + 64 * (size_t)i, 64);
        g->opcode_count[g->opcode[i]]++;
    }
    return 0;
}

/* Entries of a debug_info_asm_*.dbg: field 3, each {3: packed varint ids}; keeps the first id per entry. */
static void ns_take_asm(neff_static *s, neff_engine_program *g, const char *name, const uint8_t *data, size_t len)
{
    pbwire_reader r;
    pbwire_init(&r, data, len, 0, name);
    size_t cap = 0, n = 0;
    uint32_t *ids = NULL;
    nl_error e;
    while (!pbwire_done(&r)) {
        pbwire_field f;
        if (pbwire_next(&r, &f, &e))
            goto bad;
        if (f.number != 3 || f.type != PBWIRE_LEN)
            continue;
        uint64_t first = 0;
        pbwire_reader er;
        pbwire_init_sub(&er, &r, &f);
        while (!pbwire_done(&er)) {
            pbwire_field x;
            if (pbwire_next(&er, &x, &e))
                goto bad;
            if (x.number == 3 && x.type == PBWIRE_LEN && x.len > 0 && first == 0) {
                size_t pos = 0;
                if (pbwire_read_varint(x.data, x.len, &pos, &first, 0, name, &e))
                    goto bad;
            }
        }
        if (n == cap) {
            if (n >= NEFF_STATIC_SLOTS_MAX)
                goto bad;
            cap = cap ? 2 * cap : 64;
            uint32_t *g2 = realloc(ids, cap * sizeof *ids);
            if (!g2)
                goto bad;
            ids = g2;
        }
        ids[n++] = first > UINT32_MAX ? UINT32_MAX : (uint32_t)first;
    }
    g->has_asm_debug = true;
    g->asm_entries = (uint32_t)n;
    free(g->bir_id);
    g->bir_id = ids;
    return;
bad:
    free(ids);
    ns_problem(s, "%s is not the expected protobuf; not decoded", name);
}

static char *ns_attr_string(const pbwire_field *f)
{
    return ns_xstrndup((const char *)f->data, f->len);
}

/* One HLO entry {1 id, 2 text, 7 {1 key, 2 value}}. */
static int ns_take_hlo_entry(neff_hlo_entry *h, const pbwire_reader *parent, const pbwire_field *f, nl_error *e)
{
    pbwire_reader r;
    pbwire_init_sub(&r, parent, f);
    memset(h, 0, sizeof *h);
    h->source_line = -1;
    while (!pbwire_done(&r)) {
        pbwire_field x;
        if (pbwire_next(&r, &x, e))
            return -1;
        if (x.number == 1 && x.type == PBWIRE_VARINT) {
            h->id = x.value;
        } else if (x.number == 2 && x.type == PBWIRE_LEN && !h->text) {
            h->text = ns_attr_string(&x);
        } else if (x.number == 7 && x.type == PBWIRE_LEN) {
            pbwire_reader ar;
            pbwire_init_sub(&ar, &r, &x);
            pbwire_field key = {0}, val = {0};
            while (!pbwire_done(&ar)) {
                pbwire_field y;
                if (pbwire_next(&ar, &y, e))
                    return -1;
                if (y.number == 1 && y.type == PBWIRE_LEN)
                    key = y;
                else if (y.number == 2 && y.type == PBWIRE_LEN)
                    val = y;
            }
            if (!key.data)
                continue;
            if (key.len == 7 && memcmp(key.data, "op_type", 7) == 0 && !h->op_type)
                h->op_type = ns_attr_string(&val);
            else if (key.len == 11 && memcmp(key.data, "source_file", 11) == 0 && !h->source_file)
                h->source_file = ns_attr_string(&val);
            else if (key.len == 11 && memcmp(key.data, "source_line", 11) == 0 && val.len > 0 && val.len < 20) {
                char num[24];
                memcpy(num, val.data, val.len);
                num[val.len] = '\0';
                char *end;
                long long v = strtoll(num, &end, 10);
                h->source_line = *end == '\0' && v >= 0 ? v : -1;
            }
        }
    }
    return 0;
}

static void ns_free_hlo(neff_hlo_entry *h)
{
    free(h->text);
    free(h->op_type);
    free(h->source_file);
}

static void ns_take_hlo(neff_static *s, const char *name, const uint8_t *data, size_t len)
{
    pbwire_reader r;
    pbwire_init(&r, data, len, 0, name);
    nl_error e;
    size_t first = s->hlo_count;
    while (!pbwire_done(&r)) {
        pbwire_field f;
        if (pbwire_next(&r, &f, &e))
            goto bad;
        if (f.number != 3 || f.type != PBWIRE_LEN)
            continue;
        if (s->hlo_count >= NEFF_STATIC_HLO_MAX) {
            ns_problem(s, "%s: more than %u HLO entries; the rest not kept", name, NEFF_STATIC_HLO_MAX);
            return;
        }
        size_t n = s->hlo_count;
        if ((n & (n - 1)) == 0) {
            neff_hlo_entry *g = realloc(s->hlo, (n ? 2 * n : 1) * sizeof *g);
            if (!g)
                abort();
            s->hlo = g;
        }
        if (ns_take_hlo_entry(&s->hlo[n], &r, &f, &e)) {
            ns_free_hlo(&s->hlo[n]);
            goto bad;
        }
        s->hlo_count++;
    }
    return;
bad:
    while (s->hlo_count > first)
        ns_free_hlo(&s->hlo[--s->hlo_count]);
    ns_problem(s, "%s is not the expected protobuf; not decoded", name);
}

static json_t *ns_json(neff_static *s, const char *name, const uint8_t *data, size_t len)
{
    json_error_t je;
    json_t *root = json_loadb((const char *)data, len, 0, &je);
    if (!root)
        ns_problem(s, "%s is not JSON (%s at byte %d)", name, je.text, je.position);
    return root;
}

static void ns_take_metrics(neff_static *s, json_t *root)
{
    size_t n = json_array_size(root);
    if (n > NEFF_STATIC_METRICS_MAX) {
        ns_problem(s, "metrics.json lists %zu metrics; keeping %u", n, NEFF_STATIC_METRICS_MAX);
        n = NEFF_STATIC_METRICS_MAX;
    }
    s->metrics = ns_xcalloc(n, sizeof *s->metrics);
    for (size_t i = 0; i < n; i++) {
        json_t *m = json_array_get(root, i);
        const char *name = json_string_value(json_object_get(m, "MetricName"));
        json_t *v = json_object_get(m, "Value");
        if (!name || !json_is_number(v))
            continue;
        const char *unit = json_string_value(json_object_get(m, "Unit"));
        neff_metric *x = &s->metrics[s->metric_count++];
        x->name = ns_xstrndup(name, strlen(name));
        x->value = json_number_value(v);
        x->unit = ns_xstrndup(unit ? unit : "", unit ? strlen(unit) : 0);
    }
}

static void ns_take_hlo_stats(neff_static *s, json_t *root)
{
    size_t n = json_object_size(root);
    if (n > NEFF_STATIC_METRICS_MAX)
        n = NEFF_STATIC_METRICS_MAX;
    s->hlo_stats = ns_xcalloc(n, sizeof *s->hlo_stats);
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (s->hlo_stat_count >= n)
            break;
        if (!json_is_number(v))
            continue;
        neff_metric *x = &s->hlo_stats[s->hlo_stat_count++];
        x->name = ns_xstrndup(key, strlen(key));
        x->value = json_number_value(v);
        x->unit = ns_xstrndup("", 0);
    }
}

/* The klir debuginfo's first "func" (top-level array → "info" array → element with "func"). */
static void ns_take_klir(neff_kernel *k, json_t *root)
{
    for (size_t i = 0; i < json_array_size(root); i++) {
        json_t *info = json_object_get(json_array_get(root, i), "info");
        for (size_t j = 0; j < json_array_size(info); j++) {
            json_t *fn = json_object_get(json_array_get(info, j), "func");
            if (!json_is_object(fn))
                continue;
            const char *file = json_string_value(json_object_get(fn, "file"));
            json_t *line = json_object_get(fn, "line");
            k->source_file = file ? ns_xstrndup(file, strlen(file)) : NULL;
            k->source_line = json_is_integer(line) ? (int64_t)json_integer_value(line) : -1;
            return;
        }
    }
}

/* ---- the tar pass ------------------------------------------------------------------------------------- */

typedef struct ns_source {
    int fd;
    uint64_t pos, end;
    const char *path;
    uint8_t chunk[NS_READ_CHUNK];
} ns_source;

static la_ssize_t ns_read_cb(struct archive *a, void *ud, const void **out)
{
    ns_source *src = ud;
    if (src->pos >= src->end)
        return 0;
    size_t n = src->end - src->pos < NS_READ_CHUNK ? (size_t)(src->end - src->pos) : NS_READ_CHUNK, got;
    if (rdfile_pread(src->fd, src->chunk, n, src->pos, &got, src->path, NULL) || got == 0) {
        archive_set_error(a, EIO, "read failed at offset %llu", (unsigned long long)src->pos);
        return -1;
    }
    *out = src->chunk;
    src->pos += got;
    return (la_ssize_t)got;
}

/* What a member is: 0 skip, else one of these. */
enum { NS_SKIP, NS_BIN, NS_ASM, NS_DEF, NS_METRICS, NS_HLO_STATS, NS_HLO, NS_KLIR };

static int ns_classify(const neff_static *s, const char *name, size_t *sg_len, unsigned *engine)
{
    if (strcmp(name, "metrics.json") == 0)
        return NS_METRICS;
    if (strcmp(name, "hlo_stats.json") == 0)
        return NS_HLO_STATS;
    if (strncmp(name, "debug_info/debug_info_hlo.dbg", 29) == 0)
        return NS_HLO;
    for (size_t i = 0; i < s->kernel_count; i++)
        if (s->kernels[i].debug_file && strcmp(name, s->kernels[i].debug_file) == 0)
            return NS_KLIR;
    const char *slash = strchr(name, '/');
    if (!slash || strncmp(name, "sg", 2) != 0 || strchr(slash + 1, '/'))
        return NS_SKIP;
    *sg_len = (size_t)(slash - name);
    const char *base = slash + 1;
    if (strcmp(base, "def.json") == 0)
        return NS_DEF;
    for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++) {
        size_t n = strlen(ns_stems[e]);
        *engine = e;
        if (strncmp(base, ns_stems[e], n) == 0 && strcmp(base + n, ".bin") == 0)
            return NS_BIN;
        if (strncmp(base, "debug_info_asm_", 15) == 0 && strncmp(base + 15, ns_stems[e], n) == 0 &&
            strcmp(base + 15 + n, ".dbg") == 0)
            return NS_ASM;
    }
    return NS_SKIP;
}

/* Decompress the current member into a new buffer (size checked by the caller). */
static uint8_t *ns_member_data(struct archive *a, size_t size, size_t *got)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return NULL;
    *got = 0;
    while (*got < size) {
        la_ssize_t r = archive_read_data(a, buf + *got, size - *got);
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return buf;
}

static void ns_take_member(neff_static *s, int kind, const char *name, size_t sg_len, unsigned engine,
                           const uint8_t *data, size_t len, uint64_t *total_slots)
{
    neff_subgraph_static *g = NULL;
    if (kind == NS_BIN || kind == NS_ASM || kind == NS_DEF) {
        g = ns_subgraph(s, name, sg_len);
        if (!g) {
            ns_problem(s, "%s: subgraph name too long or too many subgraphs; not decoded", name);
            return;
        }
    }
    json_t *root = NULL;
    switch (kind) {
    case NS_BIN: ns_take_bin(s, &g->engine[engine], name, data, len, total_slots); break;
    case NS_ASM: ns_take_asm(s, &g->engine[engine], name, data, len); break;
    case NS_HLO: ns_take_hlo(s, name, data, len); break;
    default:
        if (!(root = ns_json(s, name, data, len)))
            return;
        if (kind == NS_DEF) {
            const char *v = json_string_value(json_object_get(root, "version"));
            snprintf(g->def_version, sizeof g->def_version, "%s", v ? v : "");
        } else if (kind == NS_METRICS && !s->metrics) {
            ns_take_metrics(s, root);
        } else if (kind == NS_HLO_STATS && !s->hlo_stats) {
            ns_take_hlo_stats(s, root);
        } else if (kind == NS_KLIR) {
            for (size_t i = 0; i < s->kernel_count; i++)
                if (s->kernels[i].debug_file && strcmp(name, s->kernels[i].debug_file) == 0 &&
                    !s->kernels[i].source_file)
                    ns_take_klir(&s->kernels[i], root);
        }
        json_decref(root);
    }
}

static int ns_pass(neff_static *s, struct archive *a, const char *source, int64_t payload_end, nl_error *err)
{
    uint64_t total_slots = 0;
    for (size_t index = 0;; index++) {
        struct archive_entry *e;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            return 0;
        if (r < ARCHIVE_WARN) {
            nl_error_set(err, NL_ERR_FORMAT, source, payload_end, "corrupt gzip/tar payload near member %zu: %s",
                         index, archive_error_string(a) ? archive_error_string(a) : "libarchive error");
            nl_error_set_record(err, (int64_t)index);
            return -1;
        }
        const char *name = archive_entry_pathname(e);
        while (name && name[0] == '.' && name[1] == '/')
            name += 2;
        size_t sg_len = 0;
        unsigned engine = 0;
        int kind = name && archive_entry_filetype(e) == AE_IFREG ? ns_classify(s, name, &sg_len, &engine) : NS_SKIP;
        int64_t size = archive_entry_size_is_set(e) ? archive_entry_size(e) : -1;
        if (kind == NS_SKIP)
            continue; /* the next header call skips the data */
        if (size < 0 || (uint64_t)size > NEFF_STATIC_MEMBER_MAX) {
            ns_problem(s, "%s: size %lld is unknown or over NEFF_STATIC_MEMBER_MAX; not decoded", name,
                       (long long)size);
            continue;
        }
        size_t got;
        uint8_t *data = ns_member_data(a, (size_t)size, &got);
        if (!data) {
            nl_error_set(err, NL_ERR_FORMAT, source, payload_end, "cannot decompress member %zu (%s): %s", index, name,
                         archive_error_string(a) ? archive_error_string(a) : "out of memory");
            nl_error_set_record(err, (int64_t)index);
            return -1;
        }
        ns_take_member(s, kind, name, sg_len, engine, data, got, &total_slots);
        free(data);
    }
}

static void ns_copy_kernels(neff_static *s)
{
    const nl_neff *n = s->neff;
    s->kernels = ns_xcalloc(n->debug_file_count, sizeof *s->kernels);
    for (size_t i = 0; i < n->debug_file_count; i++) {
        const nl_neff_debug_file *d = &n->debug_files[i];
        neff_kernel *k = &s->kernels[s->kernel_count++];
        k->name = d->kernel_name ? ns_xstrndup(d->kernel_name, strlen(d->kernel_name)) : NULL;
        k->debug_file = d->file_name ? ns_xstrndup(d->file_name, strlen(d->file_name)) : NULL;
        k->source_line = -1;
    }
}

/* bir_id is kept only when the asm debug info has one entry per slot. */
static void ns_finish(neff_static *s)
{
    for (size_t i = 0; i < s->subgraph_count; i++)
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++) {
            neff_engine_program *g = &s->subgraphs[i].engine[e];
            if (g->bir_id && (!g->present || g->asm_entries != g->slots)) {
                ns_problem(s, "%s/debug_info_asm_%s.dbg has %u entries for %u slots; not used", s->subgraphs[i].name,
                           g->stem, g->asm_entries, g->slots);
                free(g->bir_id);
                g->bir_id = NULL;
            }
        }
}

static neff_static *ns_run(nl_neff *neff, int fd, const uint8_t *mem, const char *source, nl_error *err)
{
    neff_static *s = ns_xcalloc(1, sizeof *s);
    s->neff = neff;
    ns_copy_kernels(s);
    struct archive *a = archive_read_new();
    if (!a) {
        nl_error_set(err, NL_ERR_NOMEM, source, -1, "libarchive handle");
        neff_static_free(s);
        return NULL;
    }
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    uint64_t end = NL_NEFF_HEADER_BYTES + neff->header.data_size;
    ns_source *src = NULL;
    int rc;
    if (mem) {
        rc = archive_read_open_memory(a, mem + NL_NEFF_HEADER_BYTES, (size_t)neff->header.data_size);
    } else {
        src = ns_xcalloc(1, sizeof *src);
        *src = (ns_source){.fd = fd, .pos = NL_NEFF_HEADER_BYTES, .end = end, .path = source};
        rc = archive_read_open(a, src, NULL, ns_read_cb, NULL);
    }
    if (rc != ARCHIVE_OK) {
        nl_error_set(err, NL_ERR_FORMAT, source, NL_NEFF_HEADER_BYTES, "payload: %s",
                     archive_error_string(a) ? archive_error_string(a) : "libarchive error");
        rc = -1;
    } else {
        rc = ns_pass(s, a, source, (int64_t)end, err);
    }
    archive_read_free(a);
    free(src);
    if (rc) {
        neff_static_free(s);
        return NULL;
    }
    ns_finish(s);
    return s;
}

neff_static *neff_static_read(const char *path, nl_error *err)
{
    nl_neff *neff = nl_neff_read(path, err);
    if (!neff)
        return NULL;
    int fd;
    uint64_t size;
    if (rdfile_open(path, &fd, &size, err)) {
        nl_neff_free(neff);
        return NULL;
    }
    neff_static *s = ns_run(neff, fd, NULL, path, err);
    close(fd);
    return s;
}

neff_static *neff_static_parse(const uint8_t *buf, size_t len, const char *source, nl_error *err)
{
    nl_neff *neff = nl_neff_parse(buf, len, source, err);
    return neff ? ns_run(neff, -1, buf, source, err) : NULL;
}

void neff_static_free(neff_static *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->subgraph_count; i++)
        for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++) {
            free(s->subgraphs[i].engine[e].opcode);
            free(s->subgraphs[i].engine[e].slot_hash);
            free(s->subgraphs[i].engine[e].bir_id);
        }
    free(s->subgraphs);
    for (size_t i = 0; i < s->metric_count; i++)
        free(s->metrics[i].name), free(s->metrics[i].unit);
    free(s->metrics);
    for (size_t i = 0; i < s->hlo_stat_count; i++)
        free(s->hlo_stats[i].name), free(s->hlo_stats[i].unit);
    free(s->hlo_stats);
    for (size_t i = 0; i < s->hlo_count; i++)
        ns_free_hlo(&s->hlo[i]);
    free(s->hlo);
    for (size_t i = 0; i < s->kernel_count; i++) {
        free(s->kernels[i].name);
        free(s->kernels[i].debug_file);
        free(s->kernels[i].source_file);
    }
    free(s->kernels);
    nl_neff_free(s->neff);
    free(s);
}

/* ---- matching against an NTFF ------------------------------------------------------------------------- */

static int ns_match_engine(const neff_engine_program *g, const ntff_payload *p, size_t core, neff_slot_match *m,
                           nl_error *err)
{
    const ntff_payload_core *c = ntff_payload_core_at(p, core);
    m->ntff_slots = c->stream[m->ntff_engine].slots;
    m->neff_slots = g->present ? g->slots : 0;
    uint32_t nb = m->neff_slots, ns = m->ntff_slots;
    if (nb == 0 || ns < nb || (uint64_t)(ns - nb + 1) * nb > NEFF_STATIC_MATCH_WORK_MAX)
        return 0;
    uint64_t *h = malloc((size_t)ns * sizeof *h);
    uint8_t *op = malloc(ns), *buf = malloc(64 * 1024);
    int rc = -1;
    if (!h || !op || !buf) {
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "slot hashes of %u NTFF slots", ns);
        goto out;
    }
    for (uint32_t k = 0; k < ns;) {
        uint32_t n = ns - k < 1024 ? ns - k : 1024;
        if (ntff_payload_read_slots(p, core, m->ntff_engine, k, n, buf, err))
            goto out;
        for (uint32_t i = 0; i < n; i++)
            h[k + i] = ns_fnv(buf + 64 * (size_t)i, 64), op[k + i] = buf[64 * (size_t)i];
        k += n;
    }
    for (uint32_t off = 0; off + nb <= ns; off++) {
        uint32_t eq = 0;
        for (uint32_t i = 0; i < nb; i++)
            eq += h[off + i] == g->slot_hash[i];
        if (m->offset < 0 || eq > m->equal_slots)
            m->offset = off, m->equal_slots = eq;
    }
    for (uint32_t i = 0; i < nb; i++)
        m->equal_opcodes += op[m->offset + i] == g->opcode[i];
    rc = 0;
out:
    free(h);
    free(op);
    free(buf);
    return rc;
}

int neff_static_match_ntff(const neff_static *s, const neff_subgraph_static *subgraph, const ntff_payload *p,
                           size_t core, neff_slot_match out[NTFF_ENGINE_COUNT], nl_error *err)
{
    (void)s;
    if (!subgraph || core >= ntff_payload_core_count(p))
        return nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "no such subgraph or core %zu", core);
    for (unsigned e = 0; e < NTFF_ENGINE_COUNT; e++) {
        memset(&out[e], 0, sizeof out[e]);
        out[e].ntff_engine = e;
        out[e].offset = -1;
    }
    for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
        if (ns_match_engine(&subgraph->engine[e], p, core, &out[e], err))
            return -1;
    return 0;
}
