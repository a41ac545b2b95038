/* ntff — NTFF fixed header and metadata block (formats.md §3; verified on 7 samples, versions 4, 5, 6).
 *
 * Layout (little-endian):
 *
 *   offset  size  field
 *   0       1     format version: 4 (runtime 2.25), 5 (2.27/2.29), 6 (2.30); 1..7 accepted
 *   1       3     u24 L = length of the protobuf metadata block
 *   4       124   opaque (uninitialised memory in v4/v6) — never interpreted
 *   128     L     protobuf metadata message (schema undocumented; field numbers below were decoded)
 *   128+L   ..    proprietary payload (instructions, DMA, semaphores) — size-checked only
 *
 * Metadata fields (names are ours):
 *   1  string   NEFF name/path (= NEFF header network name)
 *   2  bytes    [0:16] NEFF uuid; 6 (v4/v5) or 2 (v6) trailing bytes of unknown meaning
 *   3  varint   10001 in every sample
 *   4  message  per-subgraph/core info (queue names, descriptors) — skipped
 *   5  varint   LNC size
 *   7  varint   capture unix time, seconds (v4 only)
 *   8  message  runtime version {1 major, 2 minor, 3 patch, 5 git hash}
 *   9  string   instance type ("trn2.3xlarge")
 *   10 varint   2
 *   11 message  driver version {1 major, 2 minor}
 *   12 message  collectives version {1 major, 2 minor, 3 patch}
 *   13 message  memory-usage entries ×8 — skipped
 *   14 message  {4: 0xffffffff} (v5/v6) — presence recorded
 *   15 message  v6 {1 uuid (16 B), 2 start device timestamp, 3 end device timestamp}
 *   16 message  v6 section table entry, repeated: {1 kind, 3, 4, 5 offset, 6 size, 7 class}; offsets are
 *               relative to 128+L and the last entry's offset equals the payload length
 *   17 string   v6 instance id ("i-…")
 *   18 varint   v6 unknown (~7e5..9e5)
 *
 * Rejections: byte 0 = 0 or >= 128 is not an NTFF at all → NL_ERR_FORMAT. A system-profile `.pb` file
 * passed as an NTFF puts a record length (streams: `[u32 LE len][msg]`, e.g. 79, 129, 130) or a protobuf
 * tag (trace_info.pb: 0x08) in byte 0; when the first bytes parse as such, the error is NL_ERR_FORMAT and
 * says which kind of file it looks like (gzip and text are recognised the same way). Any other 8..127 is
 * taken for a future NTFF version → NL_ERR_UNSUPPORTED. L = 0 → NL_ERR_FORMAT.
 * Truncation errors name the offset of the length field that claimed the missing bytes. A wrong wire
 * type on a known field is NL_ERR_FORMAT at that field's tag. */
#include "ntff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbwire.h"
#include "rdfile.h"

/* Bytes parsed when testing whether a non-NTFF looks like protobuf (enough for a few fields). */
#define NTFF_SNIFF_PB_BYTES 256

static bool ntff_parses_as_pb(const uint8_t *buf, size_t len, bool complete, unsigned min_fields)
{
    if (len > NTFF_SNIFF_PB_BYTES)
        return pbwire_plausible(buf, NTFF_SNIFF_PB_BYTES, false, min_fields);
    return pbwire_plausible(buf, len, complete, min_fields);
}

/* When an invalid NTFF is really a system-profile protobuf file, say which kind (formats.md §9.1). */
static const char *ntff_pb_hint(const uint8_t *buf, size_t len, uint64_t file_size)
{
    if (len >= 5) {
        uint32_t n = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24;
        if (n > 0 && (uint64_t)n + 4 <= file_size &&
            ntff_parses_as_pb(buf + 4, len - 4 < n ? len - 4 : n, len - 4 >= n, 1))
            return "; it looks like a [u32 length][protobuf] stream such as ntrace.pb, cpu_util.pb or host_mem.pb";
    }
    if (ntff_parses_as_pb(buf, len, (uint64_t)len >= file_size, 2))
        return "; it looks like a single protobuf message such as trace_info.pb";
    if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b)
        return "; it is gzip data";
    if (len >= 2 && buf[0] >= 0x20 && buf[0] < 0x7f && buf[1] >= 0x20 && buf[1] < 0x7f)
        return "; it looks like text";
    return "";
}

int nl_ntff_check_prefix(const uint8_t *buf, size_t len, uint64_t file_size, const char *source, nl_error *err)
{
    if (len < 1 || file_size < 1)
        return nl_error_set(err, NL_ERR_TRUNCATED, source, 0, "empty file: no NTFF version byte");
    uint8_t v = buf[0];
    if (v < NL_NTFF_VERSION_MIN || v > NL_NTFF_VERSION_MAX) {
        const char *hint = ntff_pb_hint(buf, len, file_size);
        if (v == 0 || v >= 128 || hint[0])
            return nl_error_set(err, NL_ERR_FORMAT, source, 0, "byte 0 is %u, not an NTFF version (%d-%d)%s", v,
                                NL_NTFF_VERSION_MIN, NL_NTFF_VERSION_MAX,
                                hint[0] ? hint : v >= 128 ? "; a length-prefixed .pb stream puts its length here" : "");
        return nl_error_set(err, NL_ERR_UNSUPPORTED, source, 0, "NTFF version %u is not supported (%d-%d)", v,
                            NL_NTFF_VERSION_MIN, NL_NTFF_VERSION_MAX);
    }
    if (len < 4 || file_size < NL_NTFF_HEADER_BYTES) {
        uint64_t end = file_size < len ? file_size : len;
        return nl_error_set(err, NL_ERR_TRUNCATED, source, (int64_t)end,
                            "file ends at byte %llu, inside the %d-byte NTFF header", (unsigned long long)end,
                            NL_NTFF_HEADER_BYTES);
    }
    uint32_t L = (uint32_t)buf[1] | (uint32_t)buf[2] << 8 | (uint32_t)buf[3] << 16;
    const char *hint = L == 0 || (uint64_t)NL_NTFF_HEADER_BYTES + L > file_size ? ntff_pb_hint(buf, len, file_size) : "";
    if (L == 0 || hint[0]) {
        nl_error_set(err, NL_ERR_FORMAT, source, 1, "metadata length is %u%s", L,
                     hint[0] ? hint : "; an NTFF always carries a metadata block");
        nl_error_set_field(err, "metadata_length");
        return -1;
    }
    if ((uint64_t)NL_NTFF_HEADER_BYTES + L > file_size) {
        nl_error_set(err, NL_ERR_TRUNCATED, source, 1,
                     "metadata length %u needs bytes %d..%llu but the file has %llu bytes", L,
                     NL_NTFF_HEADER_BYTES, (unsigned long long)NL_NTFF_HEADER_BYTES + L,
                     (unsigned long long)file_size);
        nl_error_set_field(err, "metadata_length");
        return -1;
    }
    return 0;
}

static int ntff_wrong_type(const pbwire_field *f, pbwire_type want, const char *source, nl_error *err)
{
    if (f->type == want)
        return 0;
    return nl_error_set(err, NL_ERR_FORMAT, source, f->offset, "metadata field %u has wire type %d, expected %d",
                        f->number, (int)f->type, (int)want);
}

/* Copy a LEN field as a NUL-terminated string; longer than `cap - 1` is NL_ERR_LIMIT. */
static int ntff_copy_string(char *dst, size_t cap, const pbwire_field *f, const char *source, const char *what,
                            nl_error *err)
{
    if (f->len >= cap) {
        nl_error_set(err, NL_ERR_LIMIT, source, f->data_offset, "%s is %zu bytes, cap is %zu", what, f->len,
                     cap - 1);
        nl_error_set_field(err, what);
        return -1;
    }
    memcpy(dst, f->data, f->len);
    dst[f->len] = '\0';
    return 0;
}

static void ntff_hex(char *dst, const uint8_t *src, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        dst[2 * i] = digits[src[i] >> 4];
        dst[2 * i + 1] = digits[src[i] & 15];
    }
    dst[2 * n] = '\0';
}

/* Up to 3 varint sub-fields (1, 2, 3) of a version message, plus sub-field 5 as a string for f8. */
typedef struct ntff_version_msg {
    uint64_t part[3];
    char git[NL_NTFF_SHORT_STRING_MAX];
} ntff_version_msg;

static int ntff_read_version_msg(const pbwire_reader *parent, const pbwire_field *f, ntff_version_msg *out,
                                 nl_error *err)
{
    pbwire_reader r;
    pbwire_init_sub(&r, parent, f);
    memset(out, 0, sizeof *out);
    while (!pbwire_done(&r)) {
        pbwire_field s;
        if (pbwire_next(&r, &s, err))
            return -1;
        if (s.number >= 1 && s.number <= 3 && s.type == PBWIRE_VARINT)
            out->part[s.number - 1] = s.value;
        else if (s.number == 5 && s.type == PBWIRE_LEN &&
                 ntff_copy_string(out->git, sizeof out->git, &s, r.source, "runtime_git_hash", err))
            return -1;
    }
    return 0;
}

static void ntff_format_version(char *dst, size_t cap, const ntff_version_msg *v, int parts)
{
    if (parts == 2)
        snprintf(dst, cap, "%llu.%llu", (unsigned long long)v->part[0], (unsigned long long)v->part[1]);
    else
        snprintf(dst, cap, "%llu.%llu.%llu", (unsigned long long)v->part[0], (unsigned long long)v->part[1],
                 (unsigned long long)v->part[2]);
}

static int ntff_read_span(const pbwire_reader *parent, const pbwire_field *f, nl_ntff *n, nl_error *err)
{
    pbwire_reader r;
    pbwire_init_sub(&r, parent, f);
    bool uuid_seen = false;
    while (!pbwire_done(&r)) {
        pbwire_field s;
        if (pbwire_next(&r, &s, err))
            return -1;
        if (s.number == 1 && s.type == PBWIRE_LEN) {
            uuid_seen = true;
            n->span_uuid_matches =
                n->has_uuid && s.len >= NL_NTFF_UUID_BYTES && memcmp(s.data, n->uuid, NL_NTFF_UUID_BYTES) == 0;
        } else if (s.number == 2 && s.type == PBWIRE_VARINT) {
            n->span_start = s.value;
        } else if (s.number == 3 && s.type == PBWIRE_VARINT) {
            n->span_end = s.value;
        }
    }
    if (!uuid_seen)
        n->span_uuid_matches = false;
    n->has_span = true;
    return 0;
}

static int ntff_read_section(const pbwire_reader *parent, const pbwire_field *f, nl_ntff *n, nl_error *err)
{
    pbwire_reader r;
    pbwire_init_sub(&r, parent, f);
    nl_ntff_section sec = {0};
    while (!pbwire_done(&r)) {
        pbwire_field s;
        if (pbwire_next(&r, &s, err))
            return -1;
        if (s.type != PBWIRE_VARINT)
            continue;
        switch (s.number) {
        case 1: sec.kind = s.value; break;
        case 3: sec.f3 = s.value; break;
        case 4: sec.f4 = s.value; break;
        case 5: sec.offset = s.value; break;
        case 6: sec.size = s.value; break;
        case 7: sec.cls = s.value; break;
        default: break;
        }
    }
    if (n->section_count < NL_NTFF_MAX_SECTIONS) {
        if (!n->sections) {
            n->sections = calloc(NL_NTFF_MAX_SECTIONS, sizeof *n->sections);
            if (!n->sections)
                return nl_error_set(err, NL_ERR_NOMEM, r.source, f->offset, "section table allocation");
        }
        n->sections[n->section_count] = sec;
    }
    n->section_count++;
    n->last_section_offset = sec.offset;
    return 0;
}

/* Fields whose value is a string/bytes/message (wire type LEN) in the samples. */
static bool ntff_field_is_len(uint32_t num)
{
    return num == 1 || num == 2 || num == 4 || num == 8 || num == 9 || num == 11 || num == 12 || num == 13 ||
           num == 14 || num == 15 || num == 16 || num == 17;
}

static int ntff_read_field(const pbwire_reader *r, const pbwire_field *f, nl_ntff *n, nl_error *err)
{
    const char *src = r->source;
    if (f->number > 18) {
        n->unknown_field_count++;
        return 0;
    }
    if (ntff_wrong_type(f, ntff_field_is_len(f->number) ? PBWIRE_LEN : PBWIRE_VARINT, src, err))
        return -1;
    ntff_version_msg v;
    switch (f->number) {
    case 1:
        return ntff_copy_string(n->neff_name, sizeof n->neff_name, f, src, "neff_name", err);
    case 2:
        n->uuid_field_len = f->len;
        if (f->len < NL_NTFF_UUID_BYTES)
            return nl_error_set(err, NL_ERR_FORMAT, src, f->data_offset,
                                "metadata field 2 (NEFF uuid) has %zu bytes, expected at least %d", f->len,
                                NL_NTFF_UUID_BYTES);
        memcpy(n->uuid, f->data, NL_NTFF_UUID_BYTES);
        ntff_hex(n->uuid_hex, n->uuid, NL_NTFF_UUID_BYTES);
        n->has_uuid = true;
        return 0;
    case 3: n->f3 = f->value; return 0;
    case 5: n->lnc_size = (uint32_t)f->value; return 0;
    case 7: n->capture_unix_time = (int64_t)f->value; return 0;
    case 8:
        if (ntff_read_version_msg(r, f, &v, err))
            return -1;
        n->has_runtime = true;
        n->runtime_major = (uint32_t)v.part[0];
        n->runtime_minor = (uint32_t)v.part[1];
        n->runtime_patch = (uint32_t)v.part[2];
        ntff_format_version(n->runtime_version, sizeof n->runtime_version, &v, 3);
        memcpy(n->runtime_git_hash, v.git, sizeof n->runtime_git_hash);
        return 0;
    case 9:
        return ntff_copy_string(n->instance_type, sizeof n->instance_type, f, src, "instance_type", err);
    case 11:
    case 12:
        if (ntff_read_version_msg(r, f, &v, err))
            return -1;
        if (f->number == 11) {
            n->has_driver = true;
            ntff_format_version(n->driver_version, sizeof n->driver_version, &v, 2);
        } else {
            n->has_collectives = true;
            ntff_format_version(n->collectives_version, sizeof n->collectives_version, &v, 3);
        }
        return 0;
    case 14: n->has_f14 = true; return 0;
    case 15: return ntff_read_span(r, f, n, err);
    case 16: return ntff_read_section(r, f, n, err);
    case 17:
        return ntff_copy_string(n->instance_id, sizeof n->instance_id, f, src, "instance_id", err);
    case 18:
        n->has_f18 = true;
        n->f18 = f->value;
        return 0;
    case 4: n->core_info_count++; return 0;
    default: /* 6, 10, 13: known, not needed */
        return 0;
    }
}

nl_ntff *nl_ntff_parse(const uint8_t *buf, size_t len, uint64_t file_size, const char *source, nl_error *err)
{
    if (nl_ntff_check_prefix(buf, len, file_size, source, err))
        return NULL;
    uint32_t L = (uint32_t)buf[1] | (uint32_t)buf[2] << 8 | (uint32_t)buf[3] << 16;
    if (len < (size_t)NL_NTFF_HEADER_BYTES + L) {
        nl_error_set(err, NL_ERR_TRUNCATED, source, (int64_t)len,
                     "buffer of %zu bytes ends inside the metadata block (needs %llu)", len,
                     (unsigned long long)NL_NTFF_HEADER_BYTES + L);
        return NULL;
    }
    nl_ntff *n = calloc(1, sizeof *n);
    if (!n) {
        nl_error_set(err, NL_ERR_NOMEM, source, -1, "NTFF struct allocation");
        return NULL;
    }
    n->version = buf[0];
    n->metadata_len = L;
    n->file_size = file_size;
    n->payload_offset = (uint64_t)NL_NTFF_HEADER_BYTES + L;
    n->payload_bytes = file_size - n->payload_offset;
    n->capture_unix_time = -1;

    pbwire_reader r;
    pbwire_init(&r, buf + NL_NTFF_HEADER_BYTES, L, NL_NTFF_HEADER_BYTES, source);
    while (!pbwire_done(&r)) {
        pbwire_field f;
        if (pbwire_next(&r, &f, err) || ntff_read_field(&r, &f, n, err)) {
            nl_ntff_free(n);
            return NULL;
        }
    }
    if (n->section_count > 0)
        n->sections_end_at_eof = n->payload_offset + n->last_section_offset == file_size;
    return n;
}

nl_ntff *nl_ntff_read(const char *path, nl_error *err)
{
    int fd;
    uint64_t size;
    if (rdfile_open(path, &fd, &size, err))
        return NULL;
    uint8_t head[NL_NTFF_HEADER_BYTES];
    size_t got;
    nl_ntff *n = NULL;
    uint8_t *buf = NULL;
    if (rdfile_pread(fd, head, sizeof head, 0, &got, path, err) ||
        nl_ntff_check_prefix(head, got, size, path, err))
        goto out;
    size_t need = NL_NTFF_HEADER_BYTES + ((size_t)head[1] | (size_t)head[2] << 8 | (size_t)head[3] << 16);
    buf = malloc(need);
    if (!buf) {
        nl_error_set(err, NL_ERR_NOMEM, path, -1, "metadata buffer of %zu bytes", need);
        goto out;
    }
    if (rdfile_pread(fd, buf, need, 0, &got, path, err))
        goto out;
    /* The file may have shrunk since fstat: report where it really ended. */
    n = nl_ntff_parse(buf, got, got < need ? got : size, path, err);
out:
    free(buf);
    close(fd);
    return n;
}

void nl_ntff_free(nl_ntff *ntff)
{
    if (!ntff)
        return;
    free(ntff->sections);
    free(ntff);
}
