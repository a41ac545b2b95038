/* neff — NEFF container reader (formats.md §2; verified on the 4 sample NEFFs).
 *
 * A NEFF is a fixed 1024-byte little-endian header followed by a gzip-compressed tar:
 *
 *   offset  type        field
 *   0       u64         package version (2)
 *   8       u64         header_size (must be 1024)
 *   16      u64         data_size: payload bytes; 1024 + data_size <= file size (== in every sample)
 *   24      u64         major version (1 trn1, 2 trn2)
 *   32      u64         minor version (0)
 *   40      char[128]   build_version (empty in samples)
 *   168     u32         num_tpb
 *   172     u8[32]      hash: 172..187 = MD5 of the payload as four LE 32-bit words; 188..203 zero
 *   204     u8[16]      uuid (pairs with NTFF metadata f2[0:16])
 *   220     char[256]   network name (often the original NEFF path)
 *   476     u32         requested TPB count
 *   480     u8[64]      TPB count per node
 *   544     u64         feature bits (0xc00 on trn2 = "dge, dge-cast")
 *   552     u32         LNC size
 *   556..   —           zero padding up to 1024
 *   1024    data_size   gzip (1f 8b) tar: info.json, kelf-0.json, neff.json, [metrics.json],
 *                       [hlo_stats.json], [kernel_debug_info.json + <kernel>.klir.debuginfo.json],
 *                       debug_info/…, sgNN/… (32, 60, 71, 71 members in the samples)
 *
 * The payload is streamed through libarchive from a read callback bounded to [1024, 1024 + data_size),
 * so trailing bytes are never read as tar. Only the three small JSON members are decompressed into memory
 * (each at most NL_NEFF_SMALL_JSON_MAX) and decoded with jansson; everything else is skipped. Libarchive
 * does not expose a byte position inside the gzip stream, so tar errors carry the file offset up to which
 * compressed input had been consumed (1024 + bytes handed to libarchive) and the member index. */
#include "neff.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdfile.h"

#define NEFF_READ_CHUNK (64 * 1024)

/* ---- small helpers ---------------------------------------------------------------------------------- */

/* Small allocations abort (STYLE §11); input-sized ones go through the NL_ERR_NOMEM paths below. */
static char *neff_xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        fputs("neuronlens: out of memory\n", stderr);
        abort();
    }
    return d;
}

static uint64_t neff_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t neff_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void neff_hex(char *dst, const uint8_t *src, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        dst[2 * i] = digits[src[i] >> 4];
        dst[2 * i + 1] = digits[src[i] & 15];
    }
    dst[2 * n] = '\0';
}

static void neff_cstr(char *dst, const uint8_t *src, size_t n)
{
    size_t k = strnlen((const char *)src, n);
    memcpy(dst, src, k);
    dst[k] = '\0';
}

static void neff_problem(nl_neff *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void neff_problem(nl_neff *n, const char *fmt, ...)
{
    if (n->problem_count++ > 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->problem, sizeof n->problem, fmt, ap);
    va_end(ap);
}

/* ---- header ----------------------------------------------------------------------------------------- */

static int neff_field_error(nl_error *err, nl_error_code code, const char *source, int64_t off,
                            const char *field, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int neff_field_error(nl_error *err, nl_error_code code, const char *source, int64_t off,
                            const char *field, const char *fmt, ...)
{
    char msg[NL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nl_error_set(err, code, source, off, "%s", msg);
    nl_error_set_field(err, field);
    return -1;
}

static void neff_decode_header(const uint8_t *b, uint64_t file_size, nl_neff_header *h)
{
    memset(h, 0, sizeof *h);
    h->file_size = file_size;
    h->package_version = neff_u64(b + 0);
    h->header_size = neff_u64(b + 8);
    h->data_size = neff_u64(b + 16);
    h->major_version = neff_u64(b + 24);
    h->minor_version = neff_u64(b + 32);
    neff_cstr(h->build_version, b + 40, 128);
    h->num_tpb = neff_u32(b + 168);
    memcpy(h->hash, b + 172, sizeof h->hash);
    uint8_t md5[16];
    for (int w = 0; w < 4; w++)
        for (int i = 0; i < 4; i++)
            md5[4 * w + i] = h->hash[4 * w + 3 - i];
    neff_hex(h->hash_hex, md5, sizeof md5);
    memcpy(h->uuid, b + 204, sizeof h->uuid);
    neff_hex(h->uuid_hex, h->uuid, sizeof h->uuid);
    neff_cstr(h->network_name, b + 220, 256);
    h->requested_tpb_count = neff_u32(b + 476);
    memcpy(h->tpb_per_node, b + 480, sizeof h->tpb_per_node);
    h->feature_bits = neff_u64(b + 544);
    h->lnc_size = neff_u32(b + 552);
}

int nl_neff_parse_header(const uint8_t *buf, size_t len, uint64_t file_size, const char *source,
                         nl_neff_header *out, nl_error *err)
{
    if (file_size < NL_NEFF_HEADER_BYTES || len < NL_NEFF_HEADER_BYTES) {
        uint64_t end = file_size < len ? file_size : len;
        return nl_error_set(err, NL_ERR_TRUNCATED, source, (int64_t)end,
                            "file ends at byte %llu, inside the %d-byte NEFF header", (unsigned long long)end,
                            NL_NEFF_HEADER_BYTES);
    }
    nl_neff_header h;
    neff_decode_header(buf, file_size, &h);
    if (h.header_size != NL_NEFF_HEADER_BYTES)
        return neff_field_error(err, NL_ERR_FORMAT, source, 8, "header_size",
                                "header_size is %llu, expected %d", (unsigned long long)h.header_size,
                                NL_NEFF_HEADER_BYTES);
    if (h.data_size > file_size - NL_NEFF_HEADER_BYTES)
        return neff_field_error(err, NL_ERR_TRUNCATED, source, 16, "data_size",
                                "data_size %llu needs %llu bytes after the header, the file has %llu",
                                (unsigned long long)h.data_size,
                                (unsigned long long)h.data_size,
                                (unsigned long long)(file_size - NL_NEFF_HEADER_BYTES));
    if (h.data_size < 2 || len < NL_NEFF_SNIFF_BYTES || buf[1024] != 0x1f || buf[1025] != 0x8b)
        return neff_field_error(err, NL_ERR_FORMAT, source, NL_NEFF_HEADER_BYTES, "payload",
                                "payload does not start with the gzip magic 1f 8b");
    h.trailing_bytes = file_size - NL_NEFF_HEADER_BYTES - h.data_size;
    *out = h;
    return 0;
}

int nl_neff_read_header(const char *path, nl_neff_header *out, nl_error *err)
{
    int fd;
    uint64_t size;
    if (rdfile_open(path, &fd, &size, err))
        return -1;
    uint8_t buf[NL_NEFF_SNIFF_BYTES];
    size_t got;
    int rc = rdfile_pread(fd, buf, sizeof buf, 0, &got, path, err);
    close(fd);
    if (rc)
        return -1;
    return nl_neff_parse_header(buf, got, got < sizeof buf && got < size ? got : size, path, out, err);
}

/* ---- small JSON members ----------------------------------------------------------------------------- */

static char *neff_json_string(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? neff_xstrdup(s) : NULL;
}

static void neff_take_info(nl_neff *n, json_t *root)
{
    n->has_info_json = true;
    n->tool_version = neff_json_string(root, "tool_version");
    n->kelp_version = neff_json_string(root, "kelp_version");
    n->info_name = neff_json_string(root, "name");
    json_t *tpb = json_object_get(root, "num_tpb");
    n->info_num_tpb = json_is_integer(tpb) ? (int64_t)json_integer_value(tpb) : -1;
}

static void neff_take_kelf(nl_neff *n, json_t *root)
{
    n->has_kelf = true;
    n->kelf_target = neff_json_string(root, "target");
    n->kelf_version = neff_json_string(root, "version");
    json_t *graphs = json_object_get(root, "graphs");
    size_t count = json_array_size(graphs);
    if (count > NL_NEFF_MAX_LIST_ITEMS) {
        neff_problem(n, "kelf-0.json lists %zu graphs; keeping the first %d", count, NL_NEFF_MAX_LIST_ITEMS);
        count = NL_NEFF_MAX_LIST_ITEMS;
    }
    if (count == 0)
        return;
    n->subgraphs = calloc(count, sizeof *n->subgraphs);
    if (!n->subgraphs)
        abort();
    for (size_t i = 0; i < count; i++) {
        const char *name = json_string_value(json_object_get(json_array_get(graphs, i), "name"));
        if (name)
            n->subgraphs[n->subgraph_count++] = neff_xstrdup(name);
    }
}

static void neff_take_debug_info(nl_neff *n, json_t *root)
{
    n->has_kernel_debug_info = true;
    json_t *files = json_object_get(root, "debug_info_files");
    size_t count = json_array_size(files);
    if (count > NL_NEFF_MAX_LIST_ITEMS) {
        neff_problem(n, "kernel_debug_info.json lists %zu files; keeping the first %d", count,
                     NL_NEFF_MAX_LIST_ITEMS);
        count = NL_NEFF_MAX_LIST_ITEMS;
    }
    if (count == 0)
        return;
    n->debug_files = calloc(count, sizeof *n->debug_files);
    if (!n->debug_files)
        abort();
    for (size_t i = 0; i < count; i++) {
        json_t *e = json_array_get(files, i);
        if (!json_is_object(e))
            continue;
        nl_neff_debug_file *d = &n->debug_files[n->debug_file_count++];
        d->file_name = neff_json_string(e, "file_name");
        d->kernel_name = neff_json_string(e, "kernel_name");
        json_t *pid = json_object_get(e, "parent_tensorizer_id");
        d->parent_tensorizer_id = json_is_integer(pid) ? (int64_t)json_integer_value(pid) : -1;
    }
}

typedef enum neff_small { NEFF_SMALL_NONE, NEFF_SMALL_INFO, NEFF_SMALL_KELF, NEFF_SMALL_DEBUG } neff_small;

static neff_small neff_small_kind(const char *name)
{
    if (strcmp(name, "info.json") == 0)
        return NEFF_SMALL_INFO;
    if (strcmp(name, "kelf-0.json") == 0)
        return NEFF_SMALL_KELF;
    if (strcmp(name, "kernel_debug_info.json") == 0)
        return NEFF_SMALL_DEBUG;
    return NEFF_SMALL_NONE;
}

/* Decompress the current member (size <= NL_NEFF_SMALL_JSON_MAX) and decode it. A member that is not
 * valid JSON is a recorded problem; a libarchive failure is fatal (returns -1, message in archive). */
static int neff_read_small(struct archive *a, nl_neff *n, neff_small kind, const char *name, uint64_t size)
{
    bool seen = kind == NEFF_SMALL_INFO ? n->has_info_json
              : kind == NEFF_SMALL_KELF ? n->has_kelf
                                        : n->debug_file_count > 0 || n->has_kernel_debug_info;
    if (kind == NEFF_SMALL_DEBUG)
        n->has_kernel_debug_info = true; /* presence counts even if the content is unusable */
    if (seen) {
        neff_problem(n, "%s appears more than once; the first copy is used", name);
        return archive_read_data_skip(a) < ARCHIVE_WARN ? -1 : 0;
    }
    if (size > NL_NEFF_SMALL_JSON_MAX) {
        neff_problem(n, "%s is %llu bytes, over the %u-byte cap; not decoded", name, (unsigned long long)size,
                     NL_NEFF_SMALL_JSON_MAX);
        return archive_read_data_skip(a) < ARCHIVE_WARN ? -1 : 0;
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf)
        abort();
    size_t got = 0;
    while (got < size) {
        la_ssize_t r = archive_read_data(a, buf + got, (size_t)size - got);
        if (r < 0) {
            free(buf);
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    json_error_t jerr;
    json_t *root = json_loadb(buf, got, 0, &jerr);
    free(buf);
    if (!json_is_object(root)) {
        neff_problem(n, "%s is not a JSON object (%s at byte %d)", name, root ? "wrong type" : jerr.text,
                     root ? 0 : jerr.position);
        json_decref(root);
        return 0;
    }
    if (kind == NEFF_SMALL_INFO)
        neff_take_info(n, root);
    else if (kind == NEFF_SMALL_KELF)
        neff_take_kelf(n, root);
    else
        neff_take_debug_info(n, root);
    json_decref(root);
    return 0;
}

/* ---- tar listing ------------------------------------------------------------------------------------ */

/* Payload byte source for libarchive: either a bounded window of an fd or a memory block. */
typedef struct neff_source {
    int fd;                 /* -1 for memory */
    const uint8_t *mem;
    uint64_t pos, end;      /* absolute file offsets */
    const char *path;
    uint8_t *chunk;         /* NEFF_READ_CHUNK bytes (fd mode) */
} neff_source;

static la_ssize_t neff_source_read(struct archive *a, void *ud, const void **out)
{
    neff_source *s = ud;
    if (s->pos >= s->end)
        return 0;
    uint64_t left = s->end - s->pos;
    size_t n = left < NEFF_READ_CHUNK ? (size_t)left : NEFF_READ_CHUNK;
    if (s->fd < 0) {
        *out = s->mem + s->pos;
        s->pos += n;
        return (la_ssize_t)n;
    }
    size_t got;
    if (rdfile_pread(s->fd, s->chunk, n, s->pos, &got, s->path, NULL)) {
        archive_set_error(a, errno ? errno : EIO, "read failed at offset %llu", (unsigned long long)s->pos);
        return -1;
    }
    if (got == 0) {
        archive_set_error(a, EIO, "file ends at offset %llu, before data_size bytes", (unsigned long long)s->pos);
        return -1;
    }
    *out = s->chunk;
    s->pos += got;
    return (la_ssize_t)got;
}

static int neff_archive_error(struct archive *a, const neff_source *s, const nl_neff *n, nl_error *err)
{
    const char *why = archive_error_string(a);
    nl_error_set(err, NL_ERR_FORMAT, s->path, (int64_t)s->pos,
                 "corrupt gzip/tar payload near member %zu (uncompressed byte %lld): %s", n->member_count,
                 (long long)archive_filter_bytes(a, 0), why ? why : "unknown libarchive error");
    nl_error_set_field(err, "payload");
    nl_error_set_record(err, (int64_t)n->member_count);
    return -1;
}

static int neff_add_member(nl_neff *n, const char *name, uint64_t size, bool is_file, const neff_source *s,
                           nl_error *err)
{
    if (n->member_count >= NL_NEFF_MAX_MEMBERS) {
        nl_error_set(err, NL_ERR_LIMIT, s->path, (int64_t)s->pos, "payload has more than %d tar members",
                     NL_NEFF_MAX_MEMBERS);
        nl_error_set_record(err, (int64_t)n->member_count);
        return -1;
    }
    if (strlen(name) > NL_NEFF_MEMBER_NAME_MAX) {
        nl_error_set(err, NL_ERR_LIMIT, s->path, (int64_t)s->pos, "tar member %zu has a %zu-byte name (cap %d)",
                     n->member_count, strlen(name), NL_NEFF_MEMBER_NAME_MAX);
        return -1;
    }
    n->members_total_bytes += size;
    if (size > NL_NEFF_EXPANDED_MAX || n->members_total_bytes > NL_NEFF_EXPANDED_MAX) {
        nl_error_set(err, NL_ERR_LIMIT, s->path, (int64_t)s->pos,
                     "tar members expand to more than %llu bytes", (unsigned long long)NL_NEFF_EXPANDED_MAX);
        nl_error_set_record(err, (int64_t)n->member_count);
        return -1;
    }
    if ((n->member_count & (n->member_count - 1)) == 0) { /* grow at 0, 1, 2, 4, 8, ... */
        size_t cap = n->member_count ? 2 * n->member_count : 1;
        nl_neff_member *m = realloc(n->members, cap * sizeof *m);
        if (!m)
            return nl_error_set(err, NL_ERR_NOMEM, s->path, -1, "member list of %zu entries", cap);
        n->members = m;
    }
    nl_neff_member *m = &n->members[n->member_count++];
    m->name = neff_xstrdup(name);
    m->size = size;
    m->is_file = is_file;
    return 0;
}

static void neff_note_flags(nl_neff *n, const char *name)
{
    if (strcmp(name, "neff.json") == 0)
        n->has_neff_json = true;
    else if (strcmp(name, "metrics.json") == 0)
        n->has_metrics_json = true;
    else if (strcmp(name, "hlo_stats.json") == 0)
        n->has_hlo_stats_json = true;
    else if (strcmp(name, "debug_info/debug_info_stack_frame_index.dbg") == 0)
        n->has_stack_frame_index = true;
}

static int neff_list_entry(struct archive *a, struct archive_entry *e, nl_neff *n, const neff_source *s,
                           nl_error *err)
{
    const char *name = archive_entry_pathname(e);
    if (!name)
        name = "";
    while (name[0] == '.' && name[1] == '/')
        name += 2;
    uint64_t size = archive_entry_size_is_set(e) && archive_entry_size(e) > 0 ? (uint64_t)archive_entry_size(e) : 0;
    bool is_file = archive_entry_filetype(e) == AE_IFREG;
    if (neff_add_member(n, name, size, is_file, s, err))
        return -1;
    neff_note_flags(n, name);
    neff_small kind = is_file ? neff_small_kind(name) : NEFF_SMALL_NONE;
    int rc = kind != NEFF_SMALL_NONE ? neff_read_small(a, n, kind, name, size)
                                     : (archive_read_data_skip(a) < ARCHIVE_WARN ? -1 : 0);
    return rc ? neff_archive_error(a, s, n, err) : 0;
}

static void neff_resolve_debug_files(nl_neff *n)
{
    for (size_t i = 0; i < n->debug_file_count; i++) {
        nl_neff_debug_file *d = &n->debug_files[i];
        long m = d->file_name ? nl_neff_find_member(n, d->file_name) : -1;
        d->in_payload = m >= 0;
        d->size = m >= 0 ? n->members[m].size : 0;
    }
}

static int neff_list_payload(nl_neff *n, neff_source *s, nl_error *err)
{
    struct archive *a = archive_read_new();
    if (!a)
        return nl_error_set(err, NL_ERR_NOMEM, s->path, -1, "libarchive handle");
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    int rc = 0;
    if (archive_read_open(a, s, NULL, neff_source_read, NULL) != ARCHIVE_OK) {
        rc = neff_archive_error(a, s, n, err);
        goto out;
    }
    for (;;) {
        struct archive_entry *e;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            rc = neff_archive_error(a, s, n, err);
            goto out;
        }
        if (neff_list_entry(a, e, n, s, err)) {
            rc = -1;
            goto out;
        }
    }
    neff_resolve_debug_files(n);
out:
    archive_read_free(a);
    return rc;
}

static nl_neff *neff_new(const nl_neff_header *h)
{
    nl_neff *n = calloc(1, sizeof *n);
    if (!n)
        abort();
    n->header = *h;
    n->info_num_tpb = -1;
    return n;
}

nl_neff *nl_neff_read(const char *path, nl_error *err)
{
    int fd;
    uint64_t size;
    if (rdfile_open(path, &fd, &size, err))
        return NULL;
    uint8_t head[NL_NEFF_SNIFF_BYTES];
    size_t got;
    nl_neff_header h;
    nl_neff *n = NULL;
    if (rdfile_pread(fd, head, sizeof head, 0, &got, path, err) ||
        nl_neff_parse_header(head, got, got < sizeof head && got < size ? got : size, path, &h, err))
        goto out;
    n = neff_new(&h);
    neff_source s = {.fd = fd, .pos = NL_NEFF_HEADER_BYTES, .end = NL_NEFF_HEADER_BYTES + h.data_size,
                     .path = path, .chunk = malloc(NEFF_READ_CHUNK)};
    if (!s.chunk)
        abort();
    int rc = neff_list_payload(n, &s, err);
    free(s.chunk);
    if (rc) {
        nl_neff_free(n);
        n = NULL;
    }
out:
    close(fd);
    return n;
}

nl_neff *nl_neff_parse(const uint8_t *buf, size_t len, const char *source, nl_error *err)
{
    nl_neff_header h;
    if (nl_neff_parse_header(buf, len, len, source, &h, err))
        return NULL;
    nl_neff *n = neff_new(&h);
    neff_source s = {.fd = -1, .mem = buf, .pos = NL_NEFF_HEADER_BYTES, .end = NL_NEFF_HEADER_BYTES + h.data_size,
                     .path = source};
    if (neff_list_payload(n, &s, err)) {
        nl_neff_free(n);
        return NULL;
    }
    return n;
}

long nl_neff_find_member(const nl_neff *neff, const char *name)
{
    for (size_t i = 0; neff && name && i < neff->member_count; i++)
        if (strcmp(neff->members[i].name, name) == 0)
            return (long)i;
    return -1;
}

void nl_neff_free(nl_neff *neff)
{
    if (!neff)
        return;
    for (size_t i = 0; i < neff->member_count; i++)
        free(neff->members[i].name);
    free(neff->members);
    free(neff->tool_version);
    free(neff->kelp_version);
    free(neff->info_name);
    free(neff->kelf_target);
    free(neff->kelf_version);
    for (size_t i = 0; i < neff->subgraph_count; i++)
        free(neff->subgraphs[i]);
    free(neff->subgraphs);
    for (size_t i = 0; i < neff->debug_file_count; i++) {
        free(neff->debug_files[i].file_name);
        free(neff->debug_files[i].kernel_name);
    }
    free(neff->debug_files);
    free(neff);
}
