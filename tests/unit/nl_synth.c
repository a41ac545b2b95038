/* nl_synth — see nl_synth.h. The NEFF payload is written with libarchive (ustar + gzip) into memory. */
#include "nl_synth.h"

#include <archive.h>
#include <archive_entry.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void synth_die(const char *what)
{
    fprintf(stderr, "nl_synth: %s\n", what);
    abort();
}

void synth_free(synth_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void synth_append(synth_buf *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p)
            synth_die("out of memory");
        b->cap = cap;
    }
    if (data)
        memcpy(b->p + b->len, data, n);
    else
        memset(b->p + b->len, 0, n);
    b->len += n;
}

void synth_varint(synth_buf *b, uint64_t v)
{
    do {
        uint8_t c = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            c |= 0x80;
        synth_append(b, &c, 1);
    } while (v);
}

void synth_varint_field(synth_buf *b, uint32_t field, uint64_t v)
{
    synth_varint(b, (uint64_t)field << 3 | 0);
    synth_varint(b, v);
}

void synth_bytes_field(synth_buf *b, uint32_t field, const void *data, size_t n)
{
    synth_varint(b, (uint64_t)field << 3 | 2);
    synth_varint(b, n);
    synth_append(b, data, n);
}

void synth_string_field(synth_buf *b, uint32_t field, const char *s)
{
    synth_bytes_field(b, field, s, strlen(s));
}

void synth_msg_field(synth_buf *b, uint32_t field, const synth_buf *msg)
{
    synth_bytes_field(b, field, msg->p, msg->len);
}

static void synth_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static size_t synth_targz(const synth_member *members, size_t n, uint8_t *out, size_t cap)
{
    struct archive *a = archive_write_new();
    size_t used = 0;
    if (!a || archive_write_add_filter_gzip(a) != ARCHIVE_OK || archive_write_set_format_ustar(a) != ARCHIVE_OK ||
        archive_write_open_memory(a, out, cap, &used) != ARCHIVE_OK)
        synth_die("libarchive writer setup");
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, members[i].name);
        archive_entry_set_size(e, (la_int64_t)members[i].len);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        if (archive_write_header(a, e) != ARCHIVE_OK)
            synth_die(archive_error_string(a));
        char *zeros = members[i].data ? NULL : calloc(1, members[i].len + 1);
        const void *data = members[i].data ? (const void *)members[i].data : zeros;
        if (members[i].len && archive_write_data(a, data, members[i].len) != (la_ssize_t)members[i].len)
            synth_die(archive_error_string(a));
        free(zeros);
        archive_entry_free(e);
    }
    if (archive_write_close(a) != ARCHIVE_OK)
        synth_die(archive_error_string(a));
    archive_write_free(a);
    return used;
}

synth_buf synth_neff(const synth_member *members, size_t n, const uint8_t uuid[16], const char *network_name)
{
    size_t cap = 1 << 16;
    for (size_t i = 0; i < n; i++)
        cap += members[i].len + 1024;
    synth_buf b = {0};
    synth_append(&b, NULL, 1024 + cap);
    size_t data = synth_targz(members, n, b.p + 1024, cap);
    b.len = 1024 + data;
    uint8_t *h = b.p;
    memset(h, 0, 1024);
    synth_le(h + 0, 2, 8);
    synth_le(h + 8, 1024, 8);
    synth_le(h + 16, data, 8);
    synth_le(h + 24, 2, 8);
    synth_le(h + 168, 1, 4);
    memcpy(h + 204, uuid, 16);
    snprintf((char *)h + 220, 256, "%s", network_name);
    synth_le(h + 476, 1, 4);
    h[480] = 1;
    synth_le(h + 544, 0xc00, 8);
    synth_le(h + 552, 2, 4);
    return b;
}

synth_buf synth_ntff_meta(const uint8_t uuid[16], const char *neff_name, int v6, unsigned sections,
                          uint64_t payload_len)
{
    synth_buf m = {0}, sub = {0};
    synth_string_field(&m, 1, neff_name);
    uint8_t f2[18];
    memcpy(f2, uuid, 16);
    f2[16] = 0x64;
    f2[17] = 0x1b;
    synth_bytes_field(&m, 2, f2, sizeof f2);
    synth_varint_field(&m, 3, 10001);
    synth_varint_field(&m, 5, 2);
    synth_varint_field(&sub, 1, 2);
    synth_varint_field(&sub, 2, 30);
    synth_varint_field(&sub, 3, 51);
    synth_string_field(&sub, 5, "faafe26f0401e2d1d9cec13866f859b15b529d1e");
    synth_msg_field(&m, 8, &sub);
    sub.len = 0;
    synth_string_field(&m, 9, "trn2.3xlarge");
    synth_varint_field(&m, 10, 2);
    synth_varint_field(&sub, 1, 2);
    synth_varint_field(&sub, 2, 26);
    synth_msg_field(&m, 11, &sub);
    sub.len = 0;
    synth_varint_field(&sub, 1, 2);
    synth_varint_field(&sub, 2, 30);
    synth_varint_field(&sub, 3, 59);
    synth_msg_field(&m, 12, &sub);
    sub.len = 0;
    synth_varint_field(&sub, 4, 0xffffffffu);
    synth_msg_field(&m, 14, &sub);
    sub.len = 0;
    if (v6) {
        synth_bytes_field(&sub, 1, uuid, 16);
        synth_varint_field(&sub, 2, 341377197827663285ull);
        synth_varint_field(&sub, 3, 341377198103443688ull);
        synth_msg_field(&m, 15, &sub);
        sub.len = 0;
        for (unsigned i = 0; i < sections; i++) {
            uint64_t off = sections > 1 ? payload_len * i / (sections - 1) : payload_len;
            synth_varint_field(&sub, 1, i);
            synth_varint_field(&sub, 5, off);
            synth_varint_field(&sub, 6, 16);
            synth_varint_field(&sub, 7, 5);
            synth_msg_field(&m, 16, &sub);
            sub.len = 0;
        }
        synth_string_field(&m, 17, "i-0123456789abcdef0");
        synth_varint_field(&m, 18, 723577);
    }
    synth_free(&sub);
    return m;
}

synth_buf synth_ntff(uint8_t version, const synth_buf *meta, size_t payload_len)
{
    synth_buf b = {0};
    uint8_t head[128];
    memset(head, 0xa5, sizeof head); /* bytes 4..127 are garbage in real files */
    head[0] = version;
    synth_le(head + 1, meta->len, 3);
    synth_append(&b, head, sizeof head);
    synth_append(&b, meta->p, meta->len);
    synth_append(&b, NULL, payload_len);
    return b;
}

char *synth_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/nl_test_XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(tmpl))
        synth_die("mkdtemp");
    return strdup(tmpl);
}

char *synth_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (!p)
        synth_die("out of memory");
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

void synth_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
        synth_die(path);
}

void synth_write_str(const char *path, const char *s)
{
    synth_write(path, s, strlen(s));
}

static int synth_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void synth_rmrf(const char *dir)
{
    nftw(dir, synth_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
