/* test_neff_ntff_bad_input — NEFF and NTFF readers on synthetic, truncated and corrupted bytes.
 *
 * Inputs are built at test time (nl_synth) in memory or in a mkdtemp directory. Each failure case asserts
 * the error code, source, byte offset (and field where the reader sets one) on a poisoned nl_error; the
 * torture cases feed every prefix and many single-byte corruptions and only require "no crash, and an
 * error or a result" — the sanitizer build turns any out-of-bounds read into a failure. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "neff.h"
#include "nl_synth.h"
#include "ntff.h"

#define SRC "synthetic"

static const uint8_t UUID[16] = {0xa8, 0xa7, 0x90, 0xd1, 0x26, 0xd3, 0x47, 0xad,
                                 0x86, 0x6e, 0xc1, 0xa3, 0xef, 0x8e, 0x86, 0x6e};
#define UUID_HEX "a8a790d126d347ad866ec1a3ef8e866e"

static void poison(nl_error *e)
{
    memset(e, 0x5a, sizeof *e);
    e->source[sizeof e->source - 1] = '\0';
    e->field[sizeof e->field - 1] = '\0';
    e->message[sizeof e->message - 1] = '\0';
}

static void assert_error(const nl_error *e, nl_error_code code, const char *source, int64_t offset)
{
    if (e->code != code || e->offset != offset)
        print_message("unexpected error: %s @%lld: %s\n", nl_error_code_name(e->code), (long long)e->offset,
                      e->message);
    assert_int_equal(e->code, code);
    assert_string_equal(e->source, source);
    assert_int_equal(e->offset, offset);
    assert_true(strlen(e->message) > 0);
}

/* ---- synthetic inputs ------------------------------------------------------------------------------- */

static const char INFO_JSON[] = "{\"tool_version\": \"2.23.6484.0+3b612583\", \"kelp_version\": \"Dynamic\", "
                                "\"name\": \"model.neff\", \"num_tpb\": 1}";
static const char KELF_JSON[] = "{\"graphs\": [{\"definition\": \"sg00/def.json\", \"name\": \"sg00\"}, "
                                "{\"definition\": \"sg01/def.json\", \"name\": \"sg01\"}], \"version\": \"0.5\", "
                                "\"target\": \"cayman\"}";
static const char DEBUG_JSON[] = "{\"debug_info_files\": [{\"file_name\": \"k.klir.debuginfo.json\", "
                                 "\"kernel_name\": \"__main__.k\", \"parent_tensorizer_id\": 8}]}";

static synth_buf good_neff(void)
{
    const synth_member m[] = {
        {"info.json", INFO_JSON, sizeof INFO_JSON - 1},
        {"kelf-0.json", KELF_JSON, sizeof KELF_JSON - 1},
        {"kernel_debug_info.json", DEBUG_JSON, sizeof DEBUG_JSON - 1},
        {"k.klir.debuginfo.json", "{}", 2},
        {"neff.json", "{}", 2},
        {"sg00/def.json", NULL, 3000},
        {"sg01/def.json", NULL, 100},
    };
    return synth_neff(m, sizeof m / sizeof m[0], UUID, "/tmp/work/model.neff");
}

static synth_buf good_ntff(int v6)
{
    synth_buf meta = synth_ntff_meta(UUID, "/tmp/work/model.neff", v6, v6 ? 22 : 0, 5000);
    synth_buf b = synth_ntff(v6 ? 6 : 5, &meta, 5000);
    synth_free(&meta);
    return b;
}

static void set_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- NEFF ------------------------------------------------------------------------------------------- */

static void neff_valid_synthetic_lists_members_and_small_json(void **state)
{
    (void)state;
    synth_buf b = good_neff();
    nl_error e;
    nl_neff *n = nl_neff_parse(b.p, b.len, SRC, &e);
    assert_non_null(n);
    assert_int_equal(n->header.package_version, 2);
    assert_int_equal(n->header.header_size, 1024);
    assert_int_equal(n->header.data_size, b.len - 1024);
    assert_int_equal(n->header.trailing_bytes, 0);
    assert_int_equal(n->header.lnc_size, 2);
    assert_int_equal(n->header.feature_bits, 0xc00);
    assert_string_equal(n->header.uuid_hex, UUID_HEX);
    assert_string_equal(n->header.network_name, "/tmp/work/model.neff");
    assert_int_equal(n->member_count, 7);
    assert_string_equal(n->members[5].name, "sg00/def.json");
    assert_int_equal(n->members[5].size, 3000);
    assert_string_equal(n->tool_version, "2.23.6484.0+3b612583");
    assert_string_equal(n->info_name, "model.neff");
    assert_int_equal(n->info_num_tpb, 1);
    assert_string_equal(n->kelf_target, "cayman");
    assert_int_equal(n->subgraph_count, 2);
    assert_string_equal(n->subgraphs[1], "sg01");
    assert_true(n->has_neff_json);
    assert_false(n->has_metrics_json);
    assert_true(n->has_kernel_debug_info);
    assert_int_equal(n->debug_file_count, 1);
    assert_string_equal(n->debug_files[0].file_name, "k.klir.debuginfo.json");
    assert_string_equal(n->debug_files[0].kernel_name, "__main__.k");
    assert_int_equal(n->debug_files[0].parent_tensorizer_id, 8);
    assert_true(n->debug_files[0].in_payload);
    assert_int_equal(n->debug_files[0].size, 2);
    assert_int_equal(n->problem_count, 0);
    nl_neff_free(n);
    synth_free(&b);
}

static void neff_shorter_than_header_reports_file_end(void **state)
{
    (void)state;
    synth_buf b = good_neff();
    nl_error e;
    poison(&e);
    assert_null(nl_neff_parse(b.p, 600, SRC, &e));
    assert_error(&e, NL_ERR_TRUNCATED, SRC, 600);
    synth_free(&b);
}

static void neff_wrong_header_size_reports_offset_8(void **state)
{
    (void)state;
    synth_buf b = good_neff();
    set_u64(b.p + 8, 512);
    nl_error e;
    poison(&e);
    assert_null(nl_neff_parse(b.p, b.len, SRC, &e));
    assert_error(&e, NL_ERR_FORMAT, SRC, 8);
    assert_string_equal(e.field, "header_size");
    synth_free(&b);
}

static void neff_data_size_past_eof_reports_offset_16(void **state)
{
    (void)state;
    synth_buf b = good_neff();
    nl_error e;
    poison(&e);
    assert_null(nl_neff_parse(b.p, b.len - 1, SRC, &e)); /* one byte missing */
    assert_error(&e, NL_ERR_TRUNCATED, SRC, 16);
    assert_string_equal(e.field, "data_size");
    synth_free(&b);
}

static void neff_trailing_bytes_are_allowed_and_counted(void **state)
{
    (void)state;
    synth_buf b = good_neff();
    synth_append(&b, "junkjunk", 8);
    nl_error e;
    nl_neff *n = nl_neff_parse(b.p, b.len, SRC, &e);
    assert_non_null(n);
    assert_int_equal(n->header.trailing_bytes, 8);
    assert_int_equal(n->member_count, 7);
    nl_neff_free(n);
    synth_free(&b);
}

static void neff_missing_gzip_magic_reports_offset_1024(void **state)
{
    (void)state;
    synth_buf b = good_neff();
    b.p[1025] = 0x00;
    nl_error e;
    poison(&e);
    assert_null(nl_neff_parse(b.p, b.len, SRC, &e));
    assert_error(&e, NL_ERR_FORMAT, SRC, 1024);
    assert_string_equal(e.field, "payload");
    synth_free(&b);
}

static void neff_corrupt_payload_reports_payload_error(void **state)
{
    (void)state;
    synth_buf b = good_neff();
    for (size_t i = 1024 + 20; i < b.len; i++) /* keep the gzip header, destroy the deflate stream */
        b.p[i] ^= 0x5c;
    nl_error e;
    poison(&e);
    assert_null(nl_neff_parse(b.p, b.len, SRC, &e));
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_string_equal(e.source, SRC);
    assert_string_equal(e.field, "payload");
    assert_true(e.offset >= 1024 && e.offset <= (int64_t)b.len);
    assert_true(e.record >= 0);
    synth_free(&b);
}

static void neff_truncated_payload_fails_cleanly(void **state)
{
    (void)state;
    synth_buf b = good_neff();
    size_t cut = 1024 + (b.len - 1024) / 2;
    set_u64(b.p + 16, cut - 1024); /* header consistent with the shorter file */
    nl_error e;
    poison(&e);
    assert_null(nl_neff_parse(b.p, cut, SRC, &e));
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_string_equal(e.field, "payload");
    assert_true(e.offset >= 1024 && e.offset <= (int64_t)cut);
    synth_free(&b);
}

static void neff_bad_info_json_is_a_problem_not_an_error(void **state)
{
    (void)state;
    const synth_member m[] = {{"info.json", "{not json", 9}, {"kelf-0.json", KELF_JSON, sizeof KELF_JSON - 1}};
    synth_buf b = synth_neff(m, 2, UUID, "x.neff");
    nl_error e;
    nl_neff *n = nl_neff_parse(b.p, b.len, SRC, &e);
    assert_non_null(n);
    assert_false(n->has_info_json);
    assert_null(n->tool_version);
    assert_int_equal(n->info_num_tpb, -1);
    assert_true(n->has_kelf);
    assert_int_equal(n->problem_count, 1);
    assert_non_null(strstr(n->problem, "info.json"));
    nl_neff_free(n);
    synth_free(&b);
}

static void neff_oversized_small_json_is_skipped_with_problem(void **state)
{
    (void)state;
    size_t big = NL_NEFF_SMALL_JSON_MAX + 1;
    const synth_member m[] = {{"kernel_debug_info.json", NULL, big}, {"info.json", INFO_JSON, sizeof INFO_JSON - 1}};
    synth_buf b = synth_neff(m, 2, UUID, "x.neff");
    nl_error e;
    nl_neff *n = nl_neff_parse(b.p, b.len, SRC, &e);
    assert_non_null(n);
    assert_true(n->has_kernel_debug_info); /* present, even though not decoded */
    assert_int_equal(n->debug_file_count, 0);
    assert_true(n->has_info_json);
    assert_int_equal(n->problem_count, 1);
    assert_non_null(strstr(n->problem, "over the"));
    nl_neff_free(n);
    synth_free(&b);
}

static void neff_file_errors_name_the_path(void **state)
{
    (void)state;
    char *dir = synth_tmpdir();
    char *path = synth_path(dir, "short.neff");
    synth_buf b = good_neff();
    synth_write(path, b.p, b.len - 10);
    nl_error e;
    poison(&e);
    assert_null(nl_neff_read(path, &e));
    assert_error(&e, NL_ERR_TRUNCATED, path, 16);
    nl_neff_header h;
    poison(&e);
    assert_int_equal(nl_neff_read_header(path, &h, &e), -1);
    assert_error(&e, NL_ERR_TRUNCATED, path, 16);

    synth_write(path, b.p, b.len);
    nl_neff *n = nl_neff_read(path, &e);
    assert_non_null(n);
    assert_int_equal(n->member_count, 7);
    nl_neff_free(n);
    assert_int_equal(nl_neff_read_header(path, &h, &e), 0);
    assert_string_equal(h.uuid_hex, UUID_HEX);

    char *missing = synth_path(dir, "missing.neff");
    poison(&e);
    assert_null(nl_neff_read(missing, &e));
    assert_error(&e, NL_ERR_IO, missing, -1);
    synth_rmrf(dir);
    free(missing);
    free(path);
    free(dir);
    synth_free(&b);
}

static void neff_fifo_is_refused_without_blocking(void **state)
{
    (void)state;
    char *dir = synth_tmpdir();
    char *path = synth_path(dir, "pipe.neff");
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(20); /* a blocking open would hang here; fail loudly instead */
    nl_error e;
    poison(&e);
    assert_null(nl_neff_read(path, &e));
    assert_error(&e, NL_ERR_FORMAT, path, -1);
    poison(&e);
    assert_null(nl_ntff_read(path, &e));
    assert_error(&e, NL_ERR_FORMAT, path, -1);
    alarm(0);
    synth_rmrf(dir);
    free(path);
    free(dir);
}

static void neff_every_prefix_fails_or_parses_without_crash(void **state)
{
    (void)state;
    synth_buf b = good_neff();
    uint8_t *copy = malloc(b.len);
    size_t step = b.len / 300 + 1;
    for (size_t len = 0; len < b.len; len += (len < 1100 ? 1 : step)) {
        memcpy(copy, b.p, len);
        if (len > 1024)
            set_u64(copy + 16, len - 1024); /* make the header agree, so the tar reader is exercised */
        nl_error e;
        nl_neff *n = nl_neff_parse(copy, len, SRC, &e);
        if (!n)
            assert_int_not_equal(e.code, NL_OK);
        nl_neff_free(n);
    }
    free(copy);
    synth_free(&b);
}

/* ---- NTFF ------------------------------------------------------------------------------------------- */

static void ntff_valid_v6_synthetic_decodes_every_field(void **state)
{
    (void)state;
    synth_buf b = good_ntff(1);
    nl_error e;
    nl_ntff *n = nl_ntff_parse(b.p, b.len, b.len, SRC, &e);
    assert_non_null(n);
    assert_int_equal(n->version, 6);
    assert_int_equal(n->file_size, b.len);
    assert_int_equal(n->payload_bytes, 5000);
    assert_string_equal(n->neff_name, "/tmp/work/model.neff");
    assert_true(n->has_uuid);
    assert_string_equal(n->uuid_hex, UUID_HEX);
    assert_int_equal(n->uuid_field_len, 18);
    assert_int_equal(n->f3, 10001);
    assert_int_equal(n->lnc_size, 2);
    assert_int_equal(n->capture_unix_time, -1);
    assert_string_equal(n->runtime_version, "2.30.51");
    assert_string_equal(n->runtime_git_hash, "faafe26f0401e2d1d9cec13866f859b15b529d1e");
    assert_string_equal(n->instance_type, "trn2.3xlarge");
    assert_string_equal(n->driver_version, "2.26");
    assert_string_equal(n->collectives_version, "2.30.59");
    assert_true(n->has_f14);
    assert_true(n->has_span);
    assert_true(n->span_uuid_matches);
    assert_true(n->span_start == 341377197827663285ull);
    assert_true(n->span_end == 341377198103443688ull);
    assert_int_equal(n->section_count, 22);
    assert_int_equal(n->last_section_offset, 5000);
    assert_true(n->sections_end_at_eof);
    assert_int_equal(n->sections[21].cls, 5);
    assert_string_equal(n->instance_id, "i-0123456789abcdef0");
    assert_true(n->has_f18);
    assert_int_equal(n->f18, 723577);
    assert_int_equal(n->unknown_field_count, 0);
    nl_ntff_free(n);
    synth_free(&b);
}

static void ntff_section_table_not_at_eof_is_flagged(void **state)
{
    (void)state;
    synth_buf b = good_ntff(1);
    synth_append(&b, "extra", 5);
    nl_error e;
    nl_ntff *n = nl_ntff_parse(b.p, b.len, b.len, SRC, &e);
    assert_non_null(n);
    assert_false(n->sections_end_at_eof);
    nl_ntff_free(n);
    synth_free(&b);
}

static void ntff_empty_file_reports_truncated_at_0(void **state)
{
    (void)state;
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse((const uint8_t *)"", 0, 0, SRC, &e));
    assert_error(&e, NL_ERR_TRUNCATED, SRC, 0);
}

static void ntff_truncated_header_reports_offset(void **state)
{
    (void)state;
    synth_buf b = good_ntff(0);
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, 60, 60, SRC, &e));
    assert_error(&e, NL_ERR_TRUNCATED, SRC, 60);
    synth_free(&b);
}

static void ntff_truncated_metadata_reports_offset(void **state)
{
    (void)state;
    synth_buf b = good_ntff(0);
    size_t cut = 128 + 20; /* L is > 20 */
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, cut, cut, SRC, &e));
    assert_error(&e, NL_ERR_TRUNCATED, SRC, 1); /* the u24 length that claims the missing bytes */
    assert_string_equal(e.field, "metadata_length");
    synth_free(&b);
}

static void ntff_truncated_metadata_file_names_path(void **state)
{
    (void)state;
    char *dir = synth_tmpdir();
    char *path = synth_path(dir, "cut.ntff");
    synth_buf b = good_ntff(1);
    synth_write(path, b.p, 200);
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_read(path, &e));
    assert_error(&e, NL_ERR_TRUNCATED, path, 1);
    synth_write(path, b.p, b.len);
    nl_ntff *n = nl_ntff_read(path, &e);
    assert_non_null(n);
    assert_true(n->sections_end_at_eof);
    nl_ntff_free(n);
    synth_rmrf(dir);
    free(path);
    free(dir);
    synth_free(&b);
}

static void ntff_pb_stream_version_129_is_format_error(void **state)
{
    (void)state;
    /* [u32 LE 129][129-byte message of varint fields] ×2 — what ntrace.pb-like streams look like */
    synth_buf b = {0};
    for (int rec = 0; rec < 2; rec++) {
        synth_buf msg = {0};
        while (msg.len < 129 - 3)
            synth_varint_field(&msg, 2, 1); /* 2 bytes each */
        synth_varint_field(&msg, 9, 200);   /* 3 bytes */
        assert_int_equal(msg.len, 129);
        uint8_t len[4] = {129, 0, 0, 0};
        synth_append(&b, len, 4);
        synth_append(&b, msg.p, msg.len);
        synth_free(&msg);
    }
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, b.len, b.len, SRC, &e));
    assert_error(&e, NL_ERR_FORMAT, SRC, 0);
    assert_non_null(strstr(e.message, "129"));
    assert_non_null(strstr(e.message, "stream"));
    b.p[0] = 130; /* a 130-byte first record also fails, as a plain "not an NTFF version" */
    poison(&e);
    assert_null(nl_ntff_parse(b.p, b.len, b.len, SRC, &e));
    assert_error(&e, NL_ERR_FORMAT, SRC, 0);
    assert_non_null(strstr(e.message, "130"));
    synth_free(&b);
}

static void ntff_pb_message_is_format_error(void **state)
{
    (void)state;
    synth_buf b = {0};
    synth_varint_field(&b, 1, 2);
    synth_varint_field(&b, 2, 713479);
    synth_string_field(&b, 4, "i-0af76a70a6d3864dd");
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, b.len, b.len, SRC, &e));
    assert_error(&e, NL_ERR_FORMAT, SRC, 0);
    assert_non_null(strstr(e.message, "trace_info.pb"));
    synth_free(&b);
}

static void ntff_future_version_is_unsupported(void **state)
{
    (void)state;
    synth_buf b = good_ntff(0);
    b.p[0] = 0x0b; /* reads as a group tag, so not mistaken for protobuf */
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, b.len, b.len, SRC, &e));
    assert_error(&e, NL_ERR_UNSUPPORTED, SRC, 0);
    b.p[0] = 0;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, b.len, b.len, SRC, &e));
    assert_error(&e, NL_ERR_FORMAT, SRC, 0);
    synth_free(&b);
}

static void ntff_zero_metadata_length_is_format_error(void **state)
{
    (void)state;
    uint8_t b[200] = {5, 0, 0, 0};
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b, sizeof b, sizeof b, SRC, &e));
    assert_error(&e, NL_ERR_FORMAT, SRC, 1);
}

static synth_buf ntff_with_meta(const synth_buf *meta)
{
    return synth_ntff(5, meta, 100);
}

static void ntff_metadata_wrong_wire_type_reports_field_offset(void **state)
{
    (void)state;
    synth_buf meta = {0};
    synth_varint_field(&meta, 1, 5); /* f1 must be a string */
    synth_buf b = ntff_with_meta(&meta);
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, b.len, b.len, SRC, &e));
    assert_error(&e, NL_ERR_FORMAT, SRC, 128);
    synth_free(&meta);
    synth_free(&b);
}

static void ntff_metadata_field_past_block_reports_length_offset(void **state)
{
    (void)state;
    synth_buf meta = {0};
    synth_string_field(&meta, 9, "trn2.3xlarge");
    const uint8_t bad[] = {0x0a, 0x7f, 'x'}; /* f1 claims 127 bytes, 1 remains */
    synth_append(&meta, bad, sizeof bad);
    synth_buf b = ntff_with_meta(&meta);
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, b.len, b.len, SRC, &e));
    assert_error(&e, NL_ERR_TRUNCATED, SRC, (int64_t)(128 + meta.len - 2));
    synth_free(&meta);
    synth_free(&b);
}

static void ntff_short_uuid_reports_value_offset(void **state)
{
    (void)state;
    synth_buf meta = {0};
    synth_string_field(&meta, 1, "a.neff");
    synth_bytes_field(&meta, 2, UUID, 10);
    synth_buf b = ntff_with_meta(&meta);
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, b.len, b.len, SRC, &e));
    assert_error(&e, NL_ERR_FORMAT, SRC, 128 + 8 + 2);
    synth_free(&meta);
    synth_free(&b);
}

static void ntff_overlong_neff_name_hits_limit(void **state)
{
    (void)state;
    char *name = malloc(NL_NTFF_NAME_MAX + 10);
    memset(name, 'n', NL_NTFF_NAME_MAX + 9);
    name[NL_NTFF_NAME_MAX + 9] = '\0';
    synth_buf meta = {0};
    synth_string_field(&meta, 1, name);
    synth_buf b = ntff_with_meta(&meta);
    nl_error e;
    poison(&e);
    assert_null(nl_ntff_parse(b.p, b.len, b.len, SRC, &e));
    assert_error(&e, NL_ERR_LIMIT, SRC, 128 + 3);
    assert_string_equal(e.field, "neff_name");
    free(name);
    synth_free(&meta);
    synth_free(&b);
}

static void ntff_unknown_fields_are_counted_and_skipped(void **state)
{
    (void)state;
    synth_buf meta = {0};
    synth_varint_field(&meta, 99, 1);
    synth_string_field(&meta, 9, "inf2.xlarge");
    synth_bytes_field(&meta, 1234, "zz", 2);
    synth_buf b = ntff_with_meta(&meta);
    nl_error e;
    nl_ntff *n = nl_ntff_parse(b.p, b.len, b.len, SRC, &e);
    assert_non_null(n);
    assert_int_equal(n->unknown_field_count, 2);
    assert_string_equal(n->instance_type, "inf2.xlarge");
    assert_false(n->has_uuid);
    nl_ntff_free(n);
    synth_free(&meta);
    synth_free(&b);
}

static void ntff_every_prefix_and_byte_flip_is_safe(void **state)
{
    (void)state;
    synth_buf b = good_ntff(1);
    size_t meta_end = 128 + ((size_t)b.p[1] | (size_t)b.p[2] << 8 | (size_t)b.p[3] << 16);
    for (size_t len = 0; len < meta_end; len++) { /* every prefix shorter than the metadata fails */
        nl_error e;
        poison(&e);
        assert_null(nl_ntff_parse(b.p, len, len, SRC, &e));
        assert_true(e.code == NL_ERR_TRUNCATED || e.code == NL_ERR_FORMAT);
        assert_string_equal(e.source, SRC);
    }
    uint8_t *copy = malloc(b.len);
    for (size_t i = 0; i < meta_end; i++) { /* flip each header/metadata byte: result or error, no crash */
        for (int flip = 1; flip < 256; flip <<= 2) {
            memcpy(copy, b.p, b.len);
            copy[i] ^= (uint8_t)flip;
            nl_error e;
            nl_ntff *n = nl_ntff_parse(copy, b.len, b.len, SRC, &e);
            if (!n)
                assert_int_not_equal(e.code, NL_OK);
            nl_ntff_free(n);
        }
    }
    free(copy);
    synth_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(neff_valid_synthetic_lists_members_and_small_json),
        cmocka_unit_test(neff_shorter_than_header_reports_file_end),
        cmocka_unit_test(neff_wrong_header_size_reports_offset_8),
        cmocka_unit_test(neff_data_size_past_eof_reports_offset_16),
        cmocka_unit_test(neff_trailing_bytes_are_allowed_and_counted),
        cmocka_unit_test(neff_missing_gzip_magic_reports_offset_1024),
        cmocka_unit_test(neff_corrupt_payload_reports_payload_error),
        cmocka_unit_test(neff_truncated_payload_fails_cleanly),
        cmocka_unit_test(neff_bad_info_json_is_a_problem_not_an_error),
        cmocka_unit_test(neff_oversized_small_json_is_skipped_with_problem),
        cmocka_unit_test(neff_file_errors_name_the_path),
        cmocka_unit_test(neff_fifo_is_refused_without_blocking),
        cmocka_unit_test(neff_every_prefix_fails_or_parses_without_crash),
        cmocka_unit_test(ntff_valid_v6_synthetic_decodes_every_field),
        cmocka_unit_test(ntff_section_table_not_at_eof_is_flagged),
        cmocka_unit_test(ntff_empty_file_reports_truncated_at_0),
        cmocka_unit_test(ntff_truncated_header_reports_offset),
        cmocka_unit_test(ntff_truncated_metadata_reports_offset),
        cmocka_unit_test(ntff_truncated_metadata_file_names_path),
        cmocka_unit_test(ntff_pb_stream_version_129_is_format_error),
        cmocka_unit_test(ntff_pb_message_is_format_error),
        cmocka_unit_test(ntff_future_version_is_unsupported),
        cmocka_unit_test(ntff_zero_metadata_length_is_format_error),
        cmocka_unit_test(ntff_metadata_wrong_wire_type_reports_field_offset),
        cmocka_unit_test(ntff_metadata_field_past_block_reports_length_offset),
        cmocka_unit_test(ntff_short_uuid_reports_value_offset),
        cmocka_unit_test(ntff_overlong_neff_name_hits_limit),
        cmocka_unit_test(ntff_unknown_fields_are_counted_and_skipped),
        cmocka_unit_test(ntff_every_prefix_and_byte_flip_is_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
