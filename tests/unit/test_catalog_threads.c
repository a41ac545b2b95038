/* Unit test for classifying a catalog's files on several threads (analyzers/catalog.c,
 * catalog_classify_all): the catalog must be the one the scanning thread alone builds — every file field,
 * rank, profile and note, in the same order, with the same per-code caps — on a tree with valid and
 * broken NEFF/NTFF files, JSON exports with their identity keys in various places, gzip, Kineto and text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog.h"
#include "nl_synth.h"

static void put(const char *dir, const char *rel, const void *data, size_t n)
{
    char *p = synth_path(dir, rel);
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    synth_write(p, data, n);
    free(p);
}

/* A rank directory with a NEFF/NTFF pair (uuid from `k`), an export whose identity sits at the end after
 * `pad` bytes of records, and, every third rank, a broken NTFF and a text file. */
static void put_rank(const char *dir, unsigned k, size_t pad)
{
    char rel[256];
    uint8_t uuid[16];
    for (int i = 0; i < 16; i++)
        uuid[i] = (uint8_t)(k * 31 + (unsigned)i);
    const synth_member m[] = {{"info.json", "{\"num_tpb\": 1}", 14}};
    synth_buf neff = synth_neff(m, 1, uuid, "net");
    snprintf(rel, sizeof rel, "host%u_pid_%u/model.neff", k, 100 + k);
    put(dir, rel, neff.p, neff.len);
    synth_buf meta = synth_ntff_meta(uuid, "net", 1, 4, 256);
    synth_buf ntff = synth_ntff(6, &meta, k % 4 == 0 ? 0 : 256); /* some empty: a note */
    snprintf(rel, sizeof rel, "host%u_pid_%u/profile_exec_1.ntff", k, 100 + k);
    put(dir, rel, ntff.p, ntff.len);
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", uuid[i]);
    size_t cap = pad + 512;
    char *json = malloc(cap);
    size_t n = (size_t)snprintf(json, cap, "{\"instruction\":[");
    while (n + 64 < pad)
        n += (size_t)snprintf(json + n, cap - n, "{\"opcode\":\"neff_header\"},");
    n += (size_t)snprintf(json + n, cap - n,
                          "{}],\"profile_info\":[{\"ntff_filename\":\"profile_exec_1.ntff\"}],"
                          "\"neff_header\":[{\"uuid\":\"%s\",\"network_name\":\"net\"}]}",
                          hex);
    snprintf(rel, sizeof rel, "host%u_pid_%u/profile_exec_1.json", k, 100 + k);
    put(dir, rel, json, n);
    if (k % 3 == 0) {
        snprintf(rel, sizeof rel, "host%u_pid_%u/broken.ntff", k, 100 + k);
        put(dir, rel, "not an ntff at all", 18);
        snprintf(rel, sizeof rel, "host%u_pid_%u/notes.txt", k, 100 + k);
        put(dir, rel, "Model Name: x\n", 14);
    }
    free(json);
    synth_free(&neff);
    synth_free(&meta);
    synth_free(&ntff);
}

static void assert_same_str(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

static void assert_same_catalog(const nl_catalog *a, const nl_catalog *b)
{
    assert_int_equal(nl_catalog_file_count(a), nl_catalog_file_count(b));
    for (size_t i = 0; i < nl_catalog_file_count(a); i++) {
        const nl_catalog_file *x = nl_catalog_file_at(a, i), *y = nl_catalog_file_at(b, i);
        assert_string_equal(x->rel_path, y->rel_path);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->valid, y->valid);
        assert_int_equal(x->readable, y->readable);
        assert_int_equal(x->gzipped, y->gzipped);
        assert_int_equal(x->size, y->size);
        assert_int_equal(x->has_uuid, y->has_uuid);
        assert_string_equal(x->uuid_hex, y->uuid_hex);
        assert_same_str(x->neff_name, y->neff_name);
        assert_int_equal(x->ntff_version, y->ntff_version);
        assert_same_str(x->runtime_version, y->runtime_version);
        assert_same_str(x->instance_type, y->instance_type);
        assert_same_str(x->instance_id, y->instance_id);
        assert_int_equal(x->export_peeked, y->export_peeked);
        assert_same_str(x->export_ntff_filename, y->export_ntff_filename);
        assert_int_equal(x->rank, y->rank);
        assert_int_equal(x->profile, y->profile);
    }
    assert_int_equal(nl_catalog_rank_count(a), nl_catalog_rank_count(b));
    for (size_t i = 0; i < nl_catalog_rank_count(a); i++)
        assert_string_equal(nl_catalog_rank_at(a, i)->id, nl_catalog_rank_at(b, i)->id);
    assert_int_equal(nl_catalog_profile_count(a), nl_catalog_profile_count(b));
    for (size_t i = 0; i < nl_catalog_profile_count(a); i++) {
        const nl_catalog_profile *x = nl_catalog_profile_at(a, i), *y = nl_catalog_profile_at(b, i);
        assert_string_equal(x->id, y->id);
        assert_int_equal(x->pairing, y->pairing);
        assert_int_equal(x->json_export, y->json_export);
        assert_int_equal(x->export_link, y->export_link);
    }
    assert_int_equal(nl_catalog_note_count(a), nl_catalog_note_count(b));
    for (size_t i = 0; i < nl_catalog_note_count(a); i++) {
        const nl_catalog_note *x = nl_catalog_note_at(a, i), *y = nl_catalog_note_at(b, i);
        assert_int_equal(x->code, y->code);
        assert_int_equal(x->severity, y->severity);
        assert_same_str(x->path, y->path);
        assert_same_str(x->message, y->message);
        assert_same_str(x->fix, y->fix);
        assert_int_equal(nl_catalog_note_total(a, x->code), nl_catalog_note_total(b, x->code));
    }
}

static void catalog_classified_on_threads_equals_one_thread(void **state)
{
    (void)state;
    char *dir = synth_tmpdir();
    for (unsigned k = 0; k < 40; k++)
        put_rank(dir, k, k % 5 == 0 ? (size_t)3 << 20 : 2000 + 97 * k);
    nl_catalog_limits one, many;
    nl_catalog_limits_default(&one);
    nl_catalog_limits_default(&many);
    one.threads = 1;
    nl_error err;
    nl_catalog *a = nl_catalog_scan(dir, &one, &err);
    assert_non_null(a);
    assert_true(nl_catalog_note_count(a) > 10); /* the comparison covers notes */
    for (unsigned t = 2; t <= 7; t += 5) {
        many.threads = t;
        nl_catalog *b = nl_catalog_scan(dir, &many, &err);
        assert_non_null(b);
        assert_same_catalog(a, b);
        nl_catalog_free(b);
    }
    /* per-code caps: a small file limit leaves the FILE_LIMIT path, notes still identical */
    one.max_files = many.max_files = 25;
    nl_catalog *c = nl_catalog_scan(dir, &one, &err), *d = nl_catalog_scan(dir, &many, &err);
    assert_non_null(c);
    assert_non_null(d);
    assert_same_catalog(c, d);
    nl_catalog_free(c);
    nl_catalog_free(d);
    nl_catalog_free(a);
    synth_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(catalog_classified_on_threads_equals_one_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
