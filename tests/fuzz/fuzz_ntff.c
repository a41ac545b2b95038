/* fuzz_ntff — libFuzzer target for the NTFF header and metadata reader (analyzers/readers/ntff.c, and the
 * protobuf wire reader pbwire.c under it) through nl_ntff_parse over memory; the input is the file.
 *
 * Beyond the sanitizers: when the input holds the whole metadata block (128 + L bytes), parsing only those
 * bytes (same file size) must give the same result — every field and section, or the same error — since
 * the reader promises never to look past the metadata. (When byte 0 is no NTFF version both must fail, but
 * the code and message may differ: they come from a guess at what the file is, made from the bytes given,
 * e.g. NL_ERR_FORMAT "looks like a .pb stream" versus NL_ERR_UNSUPPORTED for byte 0 = 44.) A parse that
 * succeeds must keep its caps and its own arithmetic (payload offset and size, sections kept ≤
 * NL_NTFF_MAX_SECTIONS).
 *
 * fuzz-max-len: 65536
 * fuzz-seeds: ntff:samples:*.ntff raw:samples/capture:trace_info.pb raw:gen:host_mem.pb */
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "ntff.h"

static void same_ntff(const nl_ntff *a, const nl_ntff *b)
{
    nl_ntff x = *a, y = *b;
    x.sections = y.sections = NULL;
    FUZZ_CHECK(!memcmp(&x, &y, sizeof x), "the metadata-only parse differs from the whole-file parse");
    size_t kept = a->section_count < NL_NTFF_MAX_SECTIONS ? a->section_count : NL_NTFF_MAX_SECTIONS;
    FUZZ_CHECK(!kept || !memcmp(a->sections, b->sections, kept * sizeof *a->sections), "sections differ");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nl_error e1, e2;
    nl_ntff *a = nl_ntff_parse(data, size, size, "fuzz.ntff", &e1);
    if (a) {
        FUZZ_CHECK(a->payload_offset == (uint64_t)NL_NTFF_HEADER_BYTES + a->metadata_len &&
                       a->payload_offset <= size && a->payload_bytes == size - a->payload_offset,
                   "payload %llu + %llu in %zu bytes", (unsigned long long)a->payload_offset,
                   (unsigned long long)a->payload_bytes, size);
        FUZZ_CHECK(a->section_count == 0 || a->sections != NULL, "%zu sections, none kept", a->section_count);
        FUZZ_CHECK(strlen(a->neff_name) < sizeof a->neff_name && strlen(a->instance_id) < sizeof a->instance_id,
                   "strings");
    } else {
        FUZZ_CHECK(e1.code != NL_OK && e1.offset >= -1 && e1.offset <= (int64_t)size, "failure code %d offset %lld",
                   (int)e1.code, (long long)e1.offset);
    }
    if (size >= 4) {
        size_t meta_end = NL_NTFF_HEADER_BYTES + ((size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16);
        if (meta_end > NL_NTFF_HEADER_BYTES && meta_end < size) {
            uint8_t *cut = malloc(meta_end); /* exact size: a read past the metadata is an ASan report */
            FUZZ_CHECK(cut != NULL, "out of memory");
            memcpy(cut, data, meta_end);
            nl_ntff *b = nl_ntff_parse(cut, meta_end, size, "fuzz.ntff", &e2);
            FUZZ_CHECK(!a == !b, "whole file %s, metadata only %s", a ? "parses" : e1.message,
                       b ? "parses" : e2.message);
            if (a)
                same_ntff(a, b);
            else if (data[0] >= NL_NTFF_VERSION_MIN && data[0] <= NL_NTFF_VERSION_MAX)
                fuzz_check_same_error(&e1, &e2, "whole file vs metadata only");
            else
                FUZZ_CHECK(e1.offset == 0 && e2.offset == 0, "whole file: %s; metadata only: %s", e1.message,
                           e2.message);
            nl_ntff_free(b);
            free(cut);
        }
    }
    nl_ntff_free(a);
    return 0;
}
