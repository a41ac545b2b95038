/* fuzz_neff — libFuzzer target for the NEFF reader (analyzers/readers/neff.c): the 1024-byte header, the
 * gzip-tar payload listing through libarchive and the small JSON members, via nl_neff_parse (memory).
 *
 * Two input shapes, told apart by byte 1024:
 *   - 1f 8b: a NEFF as stored (header + gzip payload), parsed as is; header fields and compressed bytes are
 *     fuzzed, but the mutations behind the gzip mostly break its CRC;
 *   - anything else: header + a raw tar. The harness gzips the tar (zlib, fastest level), writes its length
 *     into data_size and parses that, so the tar headers, member names and the small JSON members
 *     (info.json, kelf-0.json, kernel_debug_info.json) are what gets fuzzed.
 * Beyond the sanitizers, a NEFF that parses must be consistent: the header nl_neff_parse_header returns,
 * member sizes summing to members_total_bytes, caps kept, every debug file's in_payload matching the
 * member list.
 *
 * fuzz-max-len: 65536
 * fuzz-seeds: neff-tar:samples:*.neff neff-gz:samples:*.neff */
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_common.h"
#include "neff.h"

/* Header + gzip(tar) with data_size set; NULL when the input is too short for a header. */
static uint8_t *gzip_payload(const uint8_t *data, size_t size, size_t *out_len)
{
    if (size < NL_NEFF_HEADER_BYTES)
        return NULL;
    size_t tar = size - NL_NEFF_HEADER_BYTES;
    z_stream z;
    memset(&z, 0, sizeof z);
    FUZZ_CHECK(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK, "deflateInit2");
    size_t cap = NL_NEFF_HEADER_BYTES + deflateBound(&z, (uLong)tar) + 32;
    uint8_t *out = malloc(cap);
    FUZZ_CHECK(out != NULL, "out of memory");
    memcpy(out, data, NL_NEFF_HEADER_BYTES);
    z.next_in = (Bytef *)(uintptr_t)(data + NL_NEFF_HEADER_BYTES);
    z.avail_in = (uInt)tar;
    z.next_out = out + NL_NEFF_HEADER_BYTES;
    z.avail_out = (uInt)(cap - NL_NEFF_HEADER_BYTES);
    FUZZ_CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
    uint64_t gz = z.total_out;
    deflateEnd(&z);
    for (int i = 0; i < 8; i++)
        out[16 + i] = (uint8_t)(gz >> (8 * i)); /* data_size, u64 LE */
    *out_len = NL_NEFF_HEADER_BYTES + (size_t)gz;
    return out;
}

static void check_neff(const nl_neff *n, const uint8_t *buf, size_t len)
{
    nl_neff_header h;
    nl_error err;
    FUZZ_CHECK(nl_neff_parse_header(buf, len, len, "fuzz.neff", &h, &err) == 0, "parse_header: %s", err.message);
    FUZZ_CHECK(!memcmp(&h, &n->header, sizeof h), "nl_neff_parse's header differs from nl_neff_parse_header's");
    FUZZ_CHECK(n->member_count <= NL_NEFF_MAX_MEMBERS, "%zu members", n->member_count);
    uint64_t total = 0;
    for (size_t i = 0; i < n->member_count; i++) {
        FUZZ_CHECK(n->members[i].name != NULL && strlen(n->members[i].name) <= NL_NEFF_MEMBER_NAME_MAX,
                   "member %zu name", i);
        total += n->members[i].size;
    }
    FUZZ_CHECK(total == n->members_total_bytes, "members_total_bytes %llu, sum %llu",
               (unsigned long long)n->members_total_bytes, (unsigned long long)total);
    FUZZ_CHECK(n->subgraph_count <= NL_NEFF_MAX_LIST_ITEMS && n->debug_file_count <= NL_NEFF_MAX_LIST_ITEMS,
               "%zu subgraphs, %zu debug files", n->subgraph_count, n->debug_file_count);
    for (size_t i = 0; i < n->debug_file_count; i++) {
        const nl_neff_debug_file *d = &n->debug_files[i];
        long m = d->file_name ? nl_neff_find_member(n, d->file_name) : -1;
        FUZZ_CHECK(d->in_payload == (m >= 0) && (m < 0 || d->size == n->members[m].size), "debug file %zu", i);
    }
    FUZZ_CHECK(strlen(n->problem) < sizeof n->problem && (n->problem_count > 0) == (n->problem[0] != '\0'),
               "%zu problems, first '%s'", n->problem_count, n->problem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *buf = data;
    size_t len = size;
    uint8_t *built = NULL;
    if (size > NL_NEFF_HEADER_BYTES + 1 && !(data[1024] == 0x1f && data[1025] == 0x8b)) {
        built = gzip_payload(data, size, &len);
        buf = built;
    }
    nl_error err;
    nl_neff *n = nl_neff_parse(buf, len, "fuzz.neff", &err);
    if (n)
        check_neff(n, buf, len);
    else
        FUZZ_CHECK(err.code != NL_OK && err.offset >= -1 && err.offset <= (int64_t)len, "failure code %d offset %lld",
                   (int)err.code, (long long)err.offset);
    nl_neff_free(n);
    free(built);
    return 0;
}
