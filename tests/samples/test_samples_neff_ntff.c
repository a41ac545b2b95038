/* test_samples_neff_ntff — every NEFF and NTFF in the real samples parses to the facts listed in
 * ../shared/samples/README.md, the uuids pair across NEFF, NTFF and the full JSON exports, system .pb
 * files are refused as NTFFs, and the catalog classifies every sample file and recognises the capture
 * directory as one rank. The samples are read in place from $NL_SAMPLES_DIR; every test skips (with a
 * printed reason) when that directory is absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "catalog.h"
#include "neff.h"
#include "ntff.h"

#define CAPTURE "capture/i-0af76a70a6d3864dd_pid_713479"

static char *sample(const char *rel)
{
    const char *dir = getenv("NL_SAMPLES_DIR");
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

/* Every test starts with this: skip (and say why) when the samples are not there. */
#define REQUIRE_SAMPLES()                                                                                   \
    do {                                                                                                    \
        (void)state;                                                                                        \
        if (!samples_present()) {                                                                           \
            print_message("skipping: samples directory %s is absent (set NL_SAMPLES_DIR to "              \
                          "../shared/samples)\n", getenv("NL_SAMPLES_DIR") ? getenv("NL_SAMPLES_DIR")     \
                                                                              : "(NL_SAMPLES_DIR unset)"); \
            skip();                                                                                         \
        }                                                                                                   \
    } while (0)

static bool samples_present(void)
{
    const char *dir = getenv("NL_SAMPLES_DIR");
    struct stat st;
    return dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* ---- NEFF ------------------------------------------------------------------------------------------- */

typedef struct neff_fact {
    const char *rel;
    uint64_t file_size, data_size, major;
    uint32_t lnc;
    uint64_t features;
    const char *uuid;
    const char *md5;           /* payload MD5 (= header hash, each 32-bit word byte-reversed) */
    const char *name_suffix;
    size_t members;
    const char *tool_version;
    const char *target;
    size_t subgraphs;
    bool metrics, hlo_stats, stack_frame_index;
    const char *debug_file;    /* NULL: no kernel_debug_info.json */
    const char *kernel;
    uint64_t debug_file_size;  /* 0: not asserted */
} neff_fact;

static const neff_fact NEFFS[] = {
    {"neff-ntff/stream_256k_fd1k.neff", 11264, 10240, 1, 1, 0, "3e35b3d8249d4b1599fa3691933d7c87",
     "450c45cdca09dd83f25a848d128f2490", "file.neff", 32, "2.18.121.0+9e31e41a", "sunda", 1, true, false, false,
     NULL, NULL, 0},
    {"neff-ntff/stream_256k_fd1k_trn2.neff", 21504, 20480, 2, 2, 0xc00, "81b6457e0b414a62b568b6afca396901",
     "f20fa78b64857a88bb6469d1695464a7", "file.neff", 60, "2.21.18209.0+043b1bf7", "cayman", 2, false, false,
     false, NULL, NULL, 0},
    {"nki-kernel/v6b.neff", 144384, 143360, 2, 2, 0xc00, "a8a790d126d347ad866ec1a3ef8e866e",
     "cb61ef768ea1ce23f42defb5f4581c21", "model.MODULE_1110545450766486452+fad94d7c.neff", 71,
     "2.23.6484.0+3b612583", "cayman", 2, false, true, true, "nki_moe_v6bkakepajm.klir.debuginfo.json",
     "__main__.nki_moe_v6b", 266844},
    {CAPTURE "/neff_171450338541704.neff", 205824, 204800, 2, 2, 0xc00, "f6620188117941679895f416ec8cb9b0",
     "b1118e9ec9ee66ab000ab20e91c204de", "model.MODULE_297095076442530781+fad94d7c.neff", 71,
     "2.23.6484.0+3b612583", "cayman", 2, false, true, true, "nki_moe_v5uezhcgc7.klir.debuginfo.json",
     "__main__.nki_moe_v5", 0},
};

static void check_neff(const neff_fact *w)
{
    char *path = sample(w->rel);
    nl_error e;
    nl_neff *n = nl_neff_read(path, &e);
    if (!n)
        print_message("%s: %s @%lld: %s\n", w->rel, nl_error_code_name(e.code), (long long)e.offset, e.message);
    assert_non_null(n);
    const nl_neff_header *h = &n->header;
    assert_int_equal(h->file_size, w->file_size);
    assert_int_equal(h->package_version, 2);
    assert_int_equal(h->header_size, 1024);
    assert_int_equal(h->data_size, w->data_size);
    assert_int_equal(h->trailing_bytes, 0);
    assert_int_equal(h->major_version, w->major);
    assert_int_equal(h->minor_version, 0);
    assert_string_equal(h->build_version, "");
    assert_int_equal(h->num_tpb, 1);
    assert_int_equal(h->requested_tpb_count, 1);
    assert_int_equal(h->tpb_per_node[0], 1);
    assert_int_equal(h->lnc_size, w->lnc);
    assert_int_equal(h->feature_bits, w->features);
    assert_string_equal(h->uuid_hex, w->uuid);
    assert_string_equal(h->hash_hex, w->md5);
    for (int i = 188; i < 204; i++)
        assert_int_equal(h->hash[i - 172], 0);
    assert_true(ends_with(h->network_name, w->name_suffix));
    assert_int_equal(n->member_count, w->members);
    assert_true(n->has_info_json);
    assert_string_equal(n->tool_version, w->tool_version);
    assert_int_equal(n->info_num_tpb, 1);
    assert_string_equal(n->info_name, h->network_name);
    assert_true(n->has_kelf);
    assert_string_equal(n->kelf_target, w->target);
    assert_int_equal(n->subgraph_count, w->subgraphs);
    assert_string_equal(n->subgraphs[0], "sg00");
    assert_true(n->has_neff_json);
    assert_int_equal(n->has_metrics_json, w->metrics);
    assert_int_equal(n->has_hlo_stats_json, w->hlo_stats);
    assert_int_equal(n->has_stack_frame_index, w->stack_frame_index);
    assert_int_equal(n->problem_count, 0);
    assert_int_equal(n->has_kernel_debug_info, w->debug_file != NULL);
    if (w->debug_file) {
        assert_int_equal(n->debug_file_count, 1);
        assert_string_equal(n->debug_files[0].file_name, w->debug_file);
        assert_string_equal(n->debug_files[0].kernel_name, w->kernel);
        assert_int_equal(n->debug_files[0].parent_tensorizer_id, 8);
        assert_true(n->debug_files[0].in_payload);
        if (w->debug_file_size)
            assert_int_equal(n->debug_files[0].size, w->debug_file_size);
    } else {
        assert_int_equal(n->debug_file_count, 0);
    }
    nl_neff_header h2;
    assert_int_equal(nl_neff_read_header(path, &h2, &e), 0);
    assert_memory_equal(&h2, h, sizeof h2);
    nl_neff_free(n);
    free(path);
}

static void samples_every_neff_matches_readme(void **state)
{
    REQUIRE_SAMPLES();
    for (size_t i = 0; i < sizeof NEFFS / sizeof NEFFS[0]; i++)
        check_neff(&NEFFS[i]);
}

/* ---- NTFF ------------------------------------------------------------------------------------------- */

typedef struct ntff_fact {
    const char *rel;
    uint8_t version;
    uint64_t file_size;
    uint32_t metadata_len;
    const char *uuid;
    size_t uuid_field_len;
    uint32_t lnc;
    int64_t capture_time;
    const char *runtime, *git_prefix, *driver, *collectives, *instance_type;
    const char *name_suffix;
    bool f14;
    uint64_t span_start, span_end; /* 0/0: no f15 */
    size_t sections;
    const char *instance_id;
    uint64_t f18;
} ntff_fact;

static const ntff_fact NTFFS[] = {
    {"neff-ntff/stream_256k_fd1k.ntff", 4, 84103, 39591, "3e35b3d8249d4b1599fa3691933d7c87", 22, 1, 1750262617,
     "2.25.57", "166c7a4", "2.21", "2.25.65", "trn1.2xlarge", "file.neff", false, 0, 0, 0, "", 0},
    {"neff-ntff/stream_256k_fd1k_trn2.ntff", 5, 123735, 48599, "81b6457e0b414a62b568b6afca396901", 22, 2, -1,
     "2.27.23", "8deec4d", "2.23", "2.27.34", "trn2.3xlarge", "file.neff", true, 0, 0, 0, "", 0},
    {"nki-kernel/profile_v6b_exec_2.ntff", 6, 917030, 10374, "a8a790d126d347ad866ec1a3ef8e866e", 18, 2, -1,
     "2.30.51", "faafe26", "2.26", "2.30.59", "trn2.3xlarge", "model.MODULE_1110545450766486452+fad94d7c.neff",
     true, 341377197827663285ull, 341377198103443688ull, 22, "i-0af76a70a6d3864dd", 884304},
    {CAPTURE "/profile_exec_2.ntff", 6, 2260346, 21626, "f6620188117941679895f416ec8cb9b0", 18, 2, -1, "2.30.51",
     "faafe26", "2.26", "2.30.59", "trn2.3xlarge", "model.MODULE_297095076442530781+fad94d7c.neff", true,
     258452847994680685ull, 258452848997895784ull, 22, "i-0af76a70a6d3864dd", 723577},
    {"neuron-profile-json/profile_128x128x136.ntff", 5, 54507, 23675, "ec35848ca8c1428c8a311d8c5dd22cc2", 22, 1,
     -1, "2.29.40", "f954c", "2.25", "2.29.41", "inf2.xlarge", "neuron_matmul_128x128x136/graph.neff", true, 0, 0,
     0, "", 0},
    {"neuron-profile-json/profile_128x128x512.ntff", 5, 55313, 23681, "a3cf92f553024b1f891867efa4cb49f3", 22, 1,
     -1, "2.29.40", "f954c", "2.25", "2.29.41", "inf2.xlarge", "neuron_matmul_128x128x512/graph.neff", true, 0, 0,
     0, "", 0},
    {"neuron-profile-json/profile_128x128x1024.ntff", 5, 53932, 23804, "5ee240ec1e134d12b7b0ccdf8eff1e5e", 22, 1,
     -1, "2.29.40", "f954c", "2.25", "2.29.41", "inf2.xlarge", "neuron_matmul_128x128x1024/graph.neff", true, 0,
     0, 0, "", 0},
};

static void check_ntff(const ntff_fact *w)
{
    char *path = sample(w->rel);
    nl_error e;
    nl_ntff *n = nl_ntff_read(path, &e);
    if (!n)
        print_message("%s: %s @%lld: %s\n", w->rel, nl_error_code_name(e.code), (long long)e.offset, e.message);
    assert_non_null(n);
    assert_int_equal(n->version, w->version);
    assert_int_equal(n->file_size, w->file_size);
    assert_int_equal(n->metadata_len, w->metadata_len);
    assert_int_equal(n->payload_offset, 128 + w->metadata_len);
    assert_true(n->payload_bytes > 0);
    assert_true(n->has_uuid);
    assert_string_equal(n->uuid_hex, w->uuid);
    assert_int_equal(n->uuid_field_len, w->uuid_field_len);
    assert_int_equal(n->f3, 10001);
    assert_int_equal(n->lnc_size, w->lnc);
    assert_int_equal(n->capture_unix_time, w->capture_time);
    assert_true(n->has_runtime);
    assert_string_equal(n->runtime_version, w->runtime);
    assert_int_equal(strlen(n->runtime_git_hash), 40);
    assert_memory_equal(n->runtime_git_hash, w->git_prefix, strlen(w->git_prefix));
    assert_string_equal(n->driver_version, w->driver);
    assert_string_equal(n->collectives_version, w->collectives);
    assert_string_equal(n->instance_type, w->instance_type);
    assert_true(ends_with(n->neff_name, w->name_suffix));
    assert_int_equal(n->has_f14, w->f14);
    assert_int_equal(n->has_span, w->span_start != 0);
    if (n->has_span) {
        assert_true(n->span_uuid_matches);
        assert_true(n->span_start == w->span_start);
        assert_true(n->span_end == w->span_end);
    }
    assert_int_equal(n->section_count, w->sections);
    if (w->sections) {
        assert_true(n->sections_end_at_eof);
        assert_int_equal(n->payload_offset + n->last_section_offset, w->file_size);
    }
    assert_string_equal(n->instance_id, w->instance_id);
    assert_int_equal(n->has_f18, w->f18 != 0);
    assert_int_equal(n->f18, w->f18);
    assert_int_equal(n->unknown_field_count, 0);
    nl_ntff_free(n);
    free(path);
}

static void samples_every_ntff_matches_readme(void **state)
{
    REQUIRE_SAMPLES();
    for (size_t i = 0; i < sizeof NTFFS / sizeof NTFFS[0]; i++)
        check_ntff(&NTFFS[i]);
}

static void samples_ntff_uuid_pairs_with_its_neff(void **state)
{
    REQUIRE_SAMPLES();
    static const struct { const char *ntff, *neff; } pairs[] = {
        {"neff-ntff/stream_256k_fd1k.ntff", "neff-ntff/stream_256k_fd1k.neff"},
        {"neff-ntff/stream_256k_fd1k_trn2.ntff", "neff-ntff/stream_256k_fd1k_trn2.neff"},
        {"nki-kernel/profile_v6b_exec_2.ntff", "nki-kernel/v6b.neff"},
        {CAPTURE "/profile_exec_2.ntff", CAPTURE "/neff_171450338541704.neff"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char *tp = sample(pairs[i].ntff), *np = sample(pairs[i].neff);
        nl_error e;
        nl_ntff *t = nl_ntff_read(tp, &e);
        nl_neff_header h;
        assert_non_null(t);
        assert_int_equal(nl_neff_read_header(np, &h, &e), 0);
        assert_memory_equal(t->uuid, h.uuid, 16);
        assert_string_equal(t->neff_name, h.network_name); /* NTFF f1 = NEFF network name */
        nl_ntff_free(t);
        free(tp);
        free(np);
    }
}

/* The uuid inside `"neff_header":[{ ... "uuid":"<hex>" ... }]`, found by plain text search. */
static void export_uuid(const char *path, char out[33])
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    const char *h = strstr(buf, "\"neff_header\"");
    assert_non_null(h);
    const char *end = strchr(h, ']');
    const char *u = strstr(h, "\"uuid\":\"");
    assert_non_null(u);
    assert_true(end == NULL || u < end);
    memcpy(out, u + 8, 32);
    out[32] = '\0';
    free(buf);
}

static void samples_json_export_uuid_matches_ntff(void **state)
{
    REQUIRE_SAMPLES();
    static const char *const ks[] = {"136", "512", "1024"};
    for (size_t i = 0; i < 3; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "neuron-profile-json/profile_128x128x%s.json", ks[i]);
        char *jp = sample(rel);
        snprintf(rel, sizeof rel, "neuron-profile-json/profile_128x128x%s.ntff", ks[i]);
        char *tp = sample(rel);
        char uuid[33];
        export_uuid(jp, uuid);
        nl_error e;
        nl_ntff *t = nl_ntff_read(tp, &e);
        assert_non_null(t);
        assert_string_equal(t->uuid_hex, uuid);
        nl_ntff_free(t);
        free(jp);
        free(tp);
    }
}

static void samples_system_pb_files_are_refused_as_ntff(void **state)
{
    REQUIRE_SAMPLES();
    static const char *const pbs[] = {"ntrace.pb", "trace_info.pb", "cpu_util.pb", "host_mem.pb"};
    for (size_t i = 0; i < 4; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, CAPTURE "/%s", pbs[i]);
        char *p = sample(rel);
        nl_error e;
        memset(&e, 0x5a, sizeof e);
        assert_null(nl_ntff_read(p, &e));
        assert_int_equal(e.code, NL_ERR_FORMAT);
        assert_string_equal(e.source, p);
        assert_int_equal(e.offset, 0);
        assert_non_null(strstr(e.message, "protobuf"));
        free(p);
    }
}

static void samples_neff_is_refused_as_ntff_and_vice_versa(void **state)
{
    REQUIRE_SAMPLES();
    char *neff = sample("neff-ntff/stream_256k_fd1k.neff"), *ntff = sample("neff-ntff/stream_256k_fd1k.ntff");
    nl_error e;
    assert_null(nl_ntff_read(neff, &e)); /* byte 0 = 2 (package version), L = 0 */
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_null(nl_neff_read(ntff, &e));
    assert_int_not_equal(e.code, NL_OK);
    assert_string_equal(e.source, ntff);
    free(neff);
    free(ntff);
}

/* ---- catalog ---------------------------------------------------------------------------------------- */

static const struct { const char *rel; nl_file_kind kind; } KINDS[] = {
    {"README.md", NL_FILE_UNKNOWN},
    {"kineto/LICENSE-HolisticTraceAnalysis", NL_FILE_UNKNOWN},
    {"kineto/alexnet_cuda_trace.json.gz", NL_FILE_KINETO},
    {"kineto/compare_base.json.gz", NL_FILE_KINETO},
    {"kineto/compare_test.json.gz", NL_FILE_KINETO},
    {"kineto/cpu_only_rank34.pt.trace.json.gz", NL_FILE_KINETO},
    {"kineto/mtia_inference_rank_0.json.gz", NL_FILE_KINETO},
    {"kineto-multirank/README.md", NL_FILE_UNKNOWN},
    {"kineto-multirank/sampled_rank-0.json.gz", NL_FILE_KINETO},
    {"kineto-multirank/sampled_rank-1.json.gz", NL_FILE_KINETO},
    {"memory-snapshot/README.md", NL_FILE_UNKNOWN},
    {"memory-snapshot/flexgen_fork_v2_0_layout.pickle", NL_FILE_MEMORY_SNAPSHOT},
    {"memory-snapshot/magma27_compile_context.pickle", NL_FILE_MEMORY_SNAPSHOT},
    {"memory-snapshot/silmont2000_mem_snapshot.pickle", NL_FILE_MEMORY_SNAPSHOT},
    {"memory-snapshot/sketchkv2_state_only.pickle", NL_FILE_MEMORY_SNAPSHOT},
    {"memory-snapshot/verl_pending_free.pickle", NL_FILE_MEMORY_SNAPSHOT},
    {"neff-ntff/stream_256k_fd1k.neff", NL_FILE_NEFF},
    {"neff-ntff/stream_256k_fd1k.ntff", NL_FILE_NTFF},
    {"neff-ntff/stream_256k_fd1k_trn2.neff", NL_FILE_NEFF},
    {"neff-ntff/stream_256k_fd1k_trn2.ntff", NL_FILE_NTFF},
    {"nki-kernel/profile_v6b_exec_2.ntff", NL_FILE_NTFF},
    {"nki-kernel/v6b.neff", NL_FILE_NEFF},
    {CAPTURE "/cpu_util.pb", NL_FILE_CPU_UTIL_PB},
    {CAPTURE "/host_mem.pb", NL_FILE_HOST_MEM_PB},
    {CAPTURE "/neff_171450338541704.neff", NL_FILE_NEFF},
    {CAPTURE "/ntrace.pb", NL_FILE_NTRACE_PB},
    {CAPTURE "/profile_exec_2.ntff", NL_FILE_NTFF},
    {CAPTURE "/trace_info.pb", NL_FILE_TRACE_INFO_PB},
    {"neuron-profile-json/profile_128x128x1024.json", NL_FILE_JSON_EXPORT},
    {"neuron-profile-json/profile_128x128x1024.ntff", NL_FILE_NTFF},
    {"neuron-profile-json/profile_128x128x136.json", NL_FILE_JSON_EXPORT},
    {"neuron-profile-json/profile_128x128x136.ntff", NL_FILE_NTFF},
    {"neuron-profile-json/profile_128x128x512.json", NL_FILE_JSON_EXPORT},
    {"neuron-profile-json/profile_128x128x512.ntff", NL_FILE_NTFF},
};

static nl_catalog *scan_samples(void)
{
    const char *dir = getenv("NL_SAMPLES_DIR");
    nl_error e;
    nl_catalog *c = nl_catalog_scan(dir, NULL, &e);
    assert_non_null(c);
    return c;
}

static void samples_catalog_classifies_every_file(void **state)
{
    REQUIRE_SAMPLES();
    nl_catalog *c = scan_samples();
    size_t expected = sizeof KINDS / sizeof KINDS[0];
    for (size_t i = 0; i < nl_catalog_file_count(c); i++) { /* nothing unexpected */
        const nl_catalog_file *f = nl_catalog_file_at(c, i);
        bool known = false;
        for (size_t k = 0; k < expected && !known; k++)
            known = strcmp(KINDS[k].rel, f->rel_path) == 0;
        if (!known)
            print_message("unexpected file in samples: %s (%s)\n", f->rel_path, nl_file_kind_name(f->kind));
        assert_true(known);
    }
    for (size_t k = 0; k < expected; k++) {
        long i = nl_catalog_find_file(c, KINDS[k].rel);
        if (i < 0)
            print_message("missing: %s\n", KINDS[k].rel);
        assert_true(i >= 0);
        const nl_catalog_file *f = nl_catalog_file_at(c, (size_t)i);
        if (f->kind != KINDS[k].kind)
            print_message("%s: %s, expected %s\n", f->rel_path, nl_file_kind_name(f->kind),
                          nl_file_kind_name(KINDS[k].kind));
        assert_int_equal(f->kind, KINDS[k].kind);
        assert_true(f->valid);
        assert_true(f->readable);
        assert_int_equal(f->gzipped, ends_with(f->rel_path, ".gz"));
    }
    assert_int_equal(nl_catalog_file_count(c), expected);
    assert_false(nl_catalog_truncated(c));
    for (size_t i = 0; i < nl_catalog_note_count(c); i++) { /* no problems except the NEFF-less exports */
        const nl_catalog_note *n = nl_catalog_note_at(c, i);
        assert_int_equal(n->code, NL_NOTE_NTFF_WITHOUT_NEFF);
        assert_int_equal(n->severity, NL_NOTE_INFO);
        assert_non_null(strstr(n->path, "neuron-profile-json/"));
    }
    nl_catalog_free(c);
}

static void samples_catalog_capture_dir_is_one_rank(void **state)
{
    REQUIRE_SAMPLES();
    nl_catalog *c = scan_samples();
    assert_int_equal(nl_catalog_rank_count(c), 1);
    const nl_catalog_rank *r = nl_catalog_rank_at(c, 0);
    assert_string_equal(r->id, "rank0");
    assert_string_equal(r->dir, CAPTURE);
    assert_string_equal(r->instance, "i-0af76a70a6d3864dd");
    assert_int_equal(r->pid, 713479);
    assert_int_equal(r->ntrace_pb, nl_catalog_find_file(c, CAPTURE "/ntrace.pb"));
    assert_int_equal(r->trace_info_pb, nl_catalog_find_file(c, CAPTURE "/trace_info.pb"));
    assert_int_equal(r->cpu_util_pb, nl_catalog_find_file(c, CAPTURE "/cpu_util.pb"));
    assert_int_equal(r->host_mem_pb, nl_catalog_find_file(c, CAPTURE "/host_mem.pb"));
    assert_int_equal(r->trace_json, -1);
    assert_int_equal(r->neff_count, 1);
    assert_int_equal(r->ntff_count, 1);
    assert_int_equal(r->file_count, 6);
    assert_true(r->has_system_profile);

    const nl_catalog_profile *p = nl_catalog_find_profile(c, "rank0/profile_exec_2");
    assert_non_null(p);
    assert_int_equal(p->kind, NL_PROFILE_DEVICE);
    assert_int_equal(p->rank, 0);
    assert_int_equal(p->ntff, nl_catalog_find_file(c, CAPTURE "/profile_exec_2.ntff"));
    assert_int_equal(p->pairing, NL_PAIR_OK);
    assert_int_equal(p->neff, nl_catalog_find_file(c, CAPTURE "/neff_171450338541704.neff"));
    const nl_catalog_file *t = nl_catalog_file_at(c, (size_t)p->ntff);
    assert_int_equal(t->ntff_version, 6);
    assert_string_equal(t->uuid_hex, "f6620188117941679895f416ec8cb9b0");
    assert_string_equal(t->runtime_version, "2.30.51");
    assert_string_equal(t->instance_type, "trn2.3xlarge");
    assert_string_equal(t->instance_id, r->instance);
    for (size_t i = 0; i < nl_catalog_file_count(c); i++) {
        const nl_catalog_file *f = nl_catalog_file_at(c, i);
        assert_int_equal(f->rank, strncmp(f->rel_path, CAPTURE "/", strlen(CAPTURE) + 1) == 0 ? 0 : -1);
    }
    nl_catalog_free(c);

    /* the capture directory scanned on its own is the same rank */
    char *dir = sample(CAPTURE);
    nl_error e;
    c = nl_catalog_scan(dir, NULL, &e);
    assert_non_null(c);
    assert_int_equal(nl_catalog_file_count(c), 6);
    assert_int_equal(nl_catalog_rank_count(c), 1);
    assert_string_equal(nl_catalog_rank_at(c, 0)->dir, "");
    assert_true(nl_catalog_rank_at(c, 0)->has_system_profile);
    p = nl_catalog_find_profile(c, "rank0/profile_exec_2");
    assert_non_null(p);
    assert_int_equal(p->pairing, NL_PAIR_OK);
    assert_int_equal(nl_catalog_note_count(c), 0);
    nl_catalog_free(c);
    free(dir);
}

static void samples_catalog_pairs_and_attaches_exports(void **state)
{
    REQUIRE_SAMPLES();
    nl_catalog *c = scan_samples();
    static const struct { const char *id, *ntff, *neff; } paired[] = {
        {"neff-ntff/stream_256k_fd1k", "neff-ntff/stream_256k_fd1k.ntff", "neff-ntff/stream_256k_fd1k.neff"},
        {"neff-ntff/stream_256k_fd1k_trn2", "neff-ntff/stream_256k_fd1k_trn2.ntff",
         "neff-ntff/stream_256k_fd1k_trn2.neff"},
        {"nki-kernel/profile_v6b_exec_2", "nki-kernel/profile_v6b_exec_2.ntff", "nki-kernel/v6b.neff"},
    };
    for (size_t i = 0; i < 3; i++) {
        const nl_catalog_profile *p = nl_catalog_find_profile(c, paired[i].id);
        assert_non_null(p);
        assert_int_equal(p->pairing, NL_PAIR_OK);
        assert_int_equal(p->ntff, nl_catalog_find_file(c, paired[i].ntff));
        assert_int_equal(p->neff, nl_catalog_find_file(c, paired[i].neff));
        assert_int_equal(p->json_export, -1);
        assert_string_equal(nl_catalog_file_at(c, (size_t)p->ntff)->uuid_hex,
                            nl_catalog_file_at(c, (size_t)p->neff)->uuid_hex);
    }
    static const struct { const char *k, *uuid; } exports[] = {
        {"136", "ec35848ca8c1428c8a311d8c5dd22cc2"},
        {"512", "a3cf92f553024b1f891867efa4cb49f3"},
        {"1024", "5ee240ec1e134d12b7b0ccdf8eff1e5e"},
    };
    for (size_t i = 0; i < 3; i++) {
        char id[128], rel[256];
        snprintf(id, sizeof id, "neuron-profile-json/profile_128x128x%s", exports[i].k);
        const nl_catalog_profile *p = nl_catalog_find_profile(c, id);
        assert_non_null(p);
        assert_int_equal(p->pairing, NL_PAIR_NO_NEFF); /* the NEFFs were not committed upstream */
        snprintf(rel, sizeof rel, "%s.json", id);
        assert_int_equal(p->json_export, nl_catalog_find_file(c, rel));
        assert_int_equal(p->export_link, NL_LINK_UUID_AND_FILENAME);
        const nl_catalog_file *ex = nl_catalog_file_at(c, (size_t)p->json_export);
        assert_true(ex->export_peeked);
        assert_string_equal(ex->uuid_hex, exports[i].uuid);
        assert_string_equal(nl_catalog_file_at(c, (size_t)p->ntff)->uuid_hex, exports[i].uuid);
        snprintf(rel, sizeof rel, "/profile_128x128x%s.ntff", exports[i].k);
        assert_true(ends_with(ex->export_ntff_filename, rel));
        assert_true(ends_with(ex->neff_name, "/graph.neff"));
        assert_int_equal(ex->profile, (int)(p - nl_catalog_profile_at(c, 0)));
    }
    size_t kinds[NL_PROFILE_KIND_COUNT] = {0};
    for (size_t i = 0; i < nl_catalog_profile_count(c); i++)
        kinds[nl_catalog_profile_at(c, i)->kind]++;
    assert_int_equal(kinds[NL_PROFILE_DEVICE], 7);       /* every NTFF */
    assert_int_equal(kinds[NL_PROFILE_SYSTEM], 1);       /* the capture directory */
    assert_int_equal(kinds[NL_PROFILE_FRAMEWORK], 7);    /* kineto/ 5 + kineto-multirank/ 2 */
    assert_int_equal(kinds[NL_PROFILE_MEMORY], 5);       /* memory-snapshot/ */
    assert_int_equal(nl_catalog_profile_count(c), 20);
    nl_catalog_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(samples_every_neff_matches_readme),
        cmocka_unit_test(samples_every_ntff_matches_readme),
        cmocka_unit_test(samples_ntff_uuid_pairs_with_its_neff),
        cmocka_unit_test(samples_json_export_uuid_matches_ntff),
        cmocka_unit_test(samples_system_pb_files_are_refused_as_ntff),
        cmocka_unit_test(samples_neff_is_refused_as_ntff_and_vice_versa),
        cmocka_unit_test(samples_catalog_classifies_every_file),
        cmocka_unit_test(samples_catalog_capture_dir_is_one_rank),
        cmocka_unit_test(samples_catalog_pairs_and_attaches_exports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
