/* test_catalog — the catalog walk, classification and grouping on temporary trees built at test time:
 * symlink loops, FIFOs, unreadable files, limits, 3000 small files in bounded time, every file kind,
 * NEFF↔NTFF pairing and mismatch, export attachment, capture-directory ranks and profile ids. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "catalog.h"
#include "nl_synth.h"

static const uint8_t UUID_A[16] = {0x3e, 0x35, 0xb3, 0xd8, 0x24, 0x9d, 0x4b, 0x15,
                                   0x99, 0xfa, 0x36, 0x91, 0x93, 0x3d, 0x7c, 0x87};
#define UUID_A_HEX "3e35b3d8249d4b1599fa3691933d7c87"
static const uint8_t UUID_B[16] = {0x81, 0xb6, 0x45, 0x7e, 0x0b, 0x41, 0x4a, 0x62,
                                   0xb5, 0x68, 0xb6, 0xaf, 0xca, 0x39, 0x69, 0x01};
#define UUID_B_HEX "81b6457e0b414a62b568b6afca396901"

/* ---- helpers ---------------------------------------------------------------------------------------- */

typedef struct tree {
    char *dir;
} tree;

static int tree_setup(void **state)
{
    tree *t = calloc(1, sizeof *t);
    t->dir = synth_tmpdir();
    *state = t;
    return 0;
}

static int tree_teardown(void **state)
{
    tree *t = *state;
    synth_rmrf(t->dir);
    free(t->dir);
    free(t);
    return 0;
}

static void put(const tree *t, const char *rel, const void *data, size_t n)
{
    char *p = synth_path(t->dir, rel);
    /* create parent directories */
    for (char *s = p + strlen(t->dir) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    synth_write(p, data, n);
    free(p);
}

/* A real Parquet file (DuckDB-written, tests/data/parquet) at rel: the catalog checks table footers. */
static void put_real_parquet(const tree *t, const char *rel)
{
    const char *root = getenv("NL_SOURCE_ROOT");
    char src[4096];
    snprintf(src, sizeof src, "%s/tests/data/parquet/duckdb_v1_snappy/input.parquet", root ? root : ".");
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    assert_true(n > 0 && n < sizeof buf && feof(f));
    fclose(f);
    put(t, rel, buf, n);
}

static void put_str(const tree *t, const char *rel, const char *s)
{
    put(t, rel, s, strlen(s));
}

static void put_neff(const tree *t, const char *rel, const uint8_t uuid[16], const char *name)
{
    const synth_member m[] = {{"info.json", "{\"num_tpb\": 1}", 14}};
    synth_buf b = synth_neff(m, 1, uuid, name);
    put(t, rel, b.p, b.len);
    synth_free(&b);
}

static void put_ntff(const tree *t, const char *rel, const uint8_t uuid[16], const char *name)
{
    synth_buf meta = synth_ntff_meta(uuid, name, 1, 4, 256);
    synth_buf b = synth_ntff(6, &meta, 256);
    put(t, rel, b.p, b.len);
    synth_free(&meta);
    synth_free(&b);
}

static nl_catalog *scan(const tree *t, const nl_catalog_limits *lim)
{
    nl_error e;
    nl_catalog *c = nl_catalog_scan(t->dir, lim, &e);
    if (!c)
        print_message("scan failed: %s\n", e.message);
    assert_non_null(c);
    return c;
}

static const nl_catalog_file *file(const nl_catalog *c, const char *rel)
{
    long i = nl_catalog_find_file(c, rel);
    if (i < 0)
        print_message("file not catalogued: %s\n", rel);
    assert_true(i >= 0);
    return nl_catalog_file_at(c, (size_t)i);
}

static size_t count_notes(const nl_catalog *c, nl_note_code code, const char *path_substr)
{
    size_t n = 0;
    for (size_t i = 0; i < nl_catalog_note_count(c); i++) {
        const nl_catalog_note *note = nl_catalog_note_at(c, i);
        if (note->code == code && (!path_substr || (note->path && strstr(note->path, path_substr))))
            n++;
    }
    return n;
}

/* The first note of `code`, or NULL. */
static const nl_catalog_note *note_of(const nl_catalog *c, nl_note_code code)
{
    for (size_t i = 0; i < nl_catalog_note_count(c); i++)
        if (nl_catalog_note_at(c, i)->code == code)
            return nl_catalog_note_at(c, i);
    return NULL;
}

static const nl_catalog_profile *profile(const nl_catalog *c, const char *id)
{
    const nl_catalog_profile *p = nl_catalog_find_profile(c, id);
    if (!p) {
        print_message("no profile %s; have:\n", id);
        for (size_t i = 0; i < nl_catalog_profile_count(c); i++)
            print_message("  %s\n", nl_catalog_profile_at(c, i)->id);
    }
    assert_non_null(p);
    return p;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- walk ------------------------------------------------------------------------------------------- */

static void catalog_missing_path_is_not_found(void **state)
{
    tree *t = *state;
    char *p = synth_path(t->dir, "nope");
    nl_error e;
    memset(&e, 0x5a, sizeof e);
    assert_null(nl_catalog_scan(p, NULL, &e));
    assert_int_equal(e.code, NL_ERR_NOT_FOUND);
    assert_string_equal(e.source, p);
    assert_null(nl_catalog_scan("", NULL, &e));
    assert_int_equal(e.code, NL_ERR_ARGUMENT);
    free(p);
}

static void catalog_symlink_loop_terminates_with_note(void **state)
{
    tree *t = *state;
    put_str(t, "a/b/file.txt", "hello\n");
    char *loop = synth_path(t->dir, "a/b/up");
    char *self = synth_path(t->dir, "a/self");
    char *dangling = synth_path(t->dir, "a/dangling");
    assert_int_equal(symlink("../..", loop), 0); /* a/b/up -> the root */
    assert_int_equal(symlink("self", self), 0);  /* ELOOP */
    assert_int_equal(symlink("missing", dangling), 0);
    alarm(20);
    nl_catalog *c = scan(t, NULL);
    alarm(0);
    assert_int_equal(nl_catalog_file_count(c), 1);
    assert_string_equal(file(c, "a/b/file.txt")->rel_path, "a/b/file.txt");
    assert_int_equal(count_notes(c, NL_NOTE_SYMLINK_LOOP, "a/b/up"), 1);
    assert_int_equal(count_notes(c, NL_NOTE_SYMLINK_LOOP, "a/self"), 1);
    assert_int_equal(count_notes(c, NL_NOTE_DANGLING_SYMLINK, "a/dangling"), 1);
    assert_false(nl_catalog_truncated(c));
    nl_catalog_free(c);
    free(loop);
    free(self);
    free(dangling);
}

static void catalog_symlinked_file_is_listed_once(void **state)
{
    tree *t = *state;
    put_str(t, "x/data.txt", "x\n");
    char *link = synth_path(t->dir, "x/alias.txt");
    assert_int_equal(symlink("data.txt", link), 0);
    nl_catalog *c = scan(t, NULL);
    assert_int_equal(nl_catalog_file_count(c), 1);
    assert_int_equal(count_notes(c, NL_NOTE_DUPLICATE_FILE, NULL), 1);
    nl_catalog_free(c);
    free(link);
}

static void catalog_fifo_is_noted_and_never_opened(void **state)
{
    tree *t = *state;
    put_str(t, "readme.txt", "x\n");
    char *fifo = synth_path(t->dir, "trace.ntff"); /* a FIFO with a tempting name */
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(20); /* opening the FIFO would block forever: fail by SIGALRM instead */
    nl_catalog *c = scan(t, NULL);
    alarm(0);
    assert_int_equal(nl_catalog_file_count(c), 1);
    assert_int_equal(count_notes(c, NL_NOTE_SKIPPED_SPECIAL, "trace.ntff"), 1);
    nl_catalog_free(c);

    nl_error e;
    alarm(20);
    c = nl_catalog_scan(fifo, NULL, &e); /* the root itself is a FIFO */
    alarm(0);
    assert_non_null(c);
    assert_int_equal(nl_catalog_file_count(c), 0);
    assert_int_equal(count_notes(c, NL_NOTE_SKIPPED_SPECIAL, NULL), 1);
    nl_catalog_free(c);
    free(fifo);
}

/* Checks for the unreadable-file and unreadable-directory cases; return 0 when they hold. Plain code (no
 * cmocka asserts) so that they can run in a forked child. */
static int check_unreadable_file(const tree *t)
{
    nl_error e;
    nl_catalog *c = nl_catalog_scan(t->dir, NULL, &e);
    if (!c)
        return 1;
    long i = nl_catalog_find_file(c, "secret.ntff");
    const nl_catalog_file *f = i >= 0 ? nl_catalog_file_at(c, (size_t)i) : NULL;
    int bad = !f || f->readable || f->valid || f->kind != NL_FILE_NTFF /* kind from the name */ ||
              count_notes(c, NL_NOTE_UNREADABLE, "secret.ntff") != 1;
    nl_catalog_free(c);
    return bad;
}

static int check_unreadable_dir(const tree *t)
{
    nl_error e;
    nl_catalog *c = nl_catalog_scan(t->dir, NULL, &e);
    if (!c)
        return 1;
    int bad = nl_catalog_file_count(c) != 1 || count_notes(c, NL_NOTE_UNREADABLE, "locked") != 1;
    nl_catalog_free(c);
    return bad;
}

/* Run `check` here when permissions are enforced for this process; as root (which ignores them) run it
 * in a child that switched to uid/gid 65534, or skip with the reason when that is impossible. */
static void run_without_privileges(const tree *t, const char *probe_rel, int (*check)(const tree *))
{
    char *probe = synth_path(t->dir, probe_rel);
    bool enforced = access(probe, R_OK) != 0;
    free(probe);
    if (enforced) {
        assert_int_equal(check(t), 0);
        return;
    }
    assert_int_equal(chmod(t->dir, 0755), 0); /* let the unprivileged child reach the tree */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(77);
        _exit(check(t));
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
        print_message("skipping: uid %d ignores file permissions and cannot switch to an unprivileged user\n",
                      (int)geteuid());
        skip();
    }
    print_message("uid %d ignores file permissions: checked as uid 65534 in a child\n", (int)geteuid());
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void catalog_unreadable_file_is_noted(void **state)
{
    tree *t = *state;
    put_str(t, "secret.ntff", "\x05\x10");
    put_str(t, "open.txt", "x");
    char *p = synth_path(t->dir, "secret.ntff");
    assert_int_equal(chmod(p, 0), 0);
    free(p);
    run_without_privileges(t, "secret.ntff", check_unreadable_file);
}

static void catalog_unreadable_directory_is_noted(void **state)
{
    tree *t = *state;
    put_str(t, "locked/inner.txt", "x\n");
    put_str(t, "open.txt", "x");
    char *p = synth_path(t->dir, "locked");
    assert_int_equal(chmod(p, 0), 0);
    run_without_privileges(t, "locked", check_unreadable_dir);
    chmod(p, 0755); /* so that teardown can remove it */
    free(p);
}

static void catalog_three_thousand_small_files_in_bounded_time(void **state)
{
    tree *t = *state;
    char name[64];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "d%02d/f%04d.txt", i % 30, i);
        put_str(t, name, "small file\n");
    }
    double t0 = now_s();
    nl_catalog *c = scan(t, NULL);
    double dt = now_s() - t0;
    print_message("3000 files scanned in %.3f s\n", dt);
    assert_int_equal(nl_catalog_file_count(c), 3000);
    assert_false(nl_catalog_truncated(c));
    assert_true(dt < 15.0);
    for (size_t i = 1; i < nl_catalog_file_count(c); i++) /* sorted by rel_path */
        assert_true(strcmp(nl_catalog_file_at(c, i - 1)->rel_path, nl_catalog_file_at(c, i)->rel_path) < 0);
    nl_catalog_free(c);
}

static void catalog_file_limit_warns_and_truncates(void **state)
{
    tree *t = *state;
    char name[64];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "f%04d.txt", i);
        put_str(t, name, "x");
    }
    nl_catalog_limits lim;
    nl_catalog_limits_default(&lim);
    lim.max_files = 100;
    nl_catalog *c = scan(t, &lim);
    assert_int_equal(nl_catalog_file_count(c), 100);
    assert_true(nl_catalog_truncated(c));
    assert_int_equal(count_notes(c, NL_NOTE_FILE_LIMIT, NULL), 1);
    for (size_t i = 0; i < nl_catalog_note_count(c); i++)
        if (nl_catalog_note_at(c, i)->code == NL_NOTE_FILE_LIMIT)
            assert_int_equal(nl_catalog_note_at(c, i)->severity, NL_NOTE_WARN);
    nl_catalog_free(c);

    lim.max_files = 1000;
    lim.max_entries = 50;
    c = scan(t, &lim);
    assert_true(nl_catalog_file_count(c) <= 50);
    assert_true(nl_catalog_truncated(c));
    nl_catalog_free(c);
}

static void catalog_depth_limit_prunes_deep_directories(void **state)
{
    tree *t = *state;
    put_str(t, "1/2/3/4/5/6/7/8/9/10/deep.txt", "x");
    put_str(t, "1/2/shallow.txt", "x");
    nl_catalog *c = scan(t, NULL);
    assert_int_equal(nl_catalog_file_count(c), 1);
    assert_int_equal(count_notes(c, NL_NOTE_DEPTH_LIMIT, "1/2/3/4/5/6/7/8/9"), 1);
    nl_catalog_free(c);
}

static void catalog_many_fifos_are_capped_in_notes(void **state)
{
    tree *t = *state;
    char name[64];
    for (int i = 0; i < NL_CATALOG_MAX_NOTES_PER_CODE + 50; i++) {
        snprintf(name, sizeof name, "fifo%03d", i);
        char *p = synth_path(t->dir, name);
        assert_int_equal(mkfifo(p, 0600), 0);
        free(p);
    }
    alarm(20);
    nl_catalog *c = scan(t, NULL);
    alarm(0);
    assert_int_equal(nl_catalog_file_count(c), 0);
    assert_int_equal(nl_catalog_note_count(c), NL_CATALOG_MAX_NOTES_PER_CODE + 1);
    const nl_catalog_note *last = nl_catalog_note_at(c, nl_catalog_note_count(c) - 1);
    assert_int_equal(last->code, NL_NOTE_SKIPPED_SPECIAL);
    assert_null(last->path);
    assert_non_null(strstr(last->message, "50 more"));
    nl_catalog_free(c);
}

/* ---- classification --------------------------------------------------------------------------------- */

static void put_gz(const tree *t, const char *rel, const char *text)
{
    char *p = synth_path(t->dir, rel);
    gzFile g = gzopen(p, "wb");
    assert_non_null(g);
    assert_int_equal(gzputs(g, text), (int)strlen(text));
    assert_int_equal(gzclose(g), Z_OK);
    free(p);
}

static void catalog_classifies_every_kind_by_name_and_content(void **state)
{
    tree *t = *state;
    put_neff(t, "m/model.neff", UUID_A, "model.neff");
    put_neff(t, "m/renamed.bin", UUID_B, "other.neff"); /* a NEFF without its extension */
    put_ntff(t, "m/model.ntff", UUID_A, "model.neff");
    put_str(t, "e/export.json",
            "{\"metadata\":[{\"ntff_version\":6}],\"instruction\":[],"
            "\"neff_header\":[{\"hash\":\"00\",\"uuid\":\"" UUID_A_HEX "\",\"network_name\":\"model.neff\"}],"
            "\"profile_info\":[{\"cc_only\":false,\"ntff_filename\":\"/home/u/model.ntff\"}]}");
    put_str(t, "e/summary.json", "{\"n_0123456789abcdef0123456789abcdef01234567\": {\"total_time\": 0.1}}");
    put_str(t, "e/session.json", "{\"Name\": \"model.neff\", \"NeffNodes\": []}");
    put_str(t, "e/session.txt", "Model Name: model.neff\nTotal execution time: 100 ns\n");
    put_str(t, "e/summary.txt", "n_0123456789abcdef\n    total_time    0.001\n    nc_idx 0\n");
    put_str(t, "e/legacy_summary.txt", "nd_idx 0\nnc_idx 0\ntotal_time 0.0018\n");
    put_str(t, "e/system_profile.json", "{\"trace_events\": [], \"mem_usage\": []}");
    put_str(t, "k/trace.json", "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\"}]}");
    put_gz(t, "k/rank0.pt.trace.json.gz", "{\"distributedInfo\": {\"rank\": 1}, \"traceEvents\": []}");
    put_real_parquet(t, "p/Instruction.parquet");
    put(t, "p/Dma.parquet", "PAR1\0\0\0\0\0\0\0\0PAR1", 16); /* magic at both ends, no footer */
    put_str(t, "p/bad.parquet", "not parquet");
    put_str(t, "notes.md", "# hello\n");
    put_str(t, "other.json", "{\"hello\": [1, 2]}");
    put(t, "empty.bin", "", 0);
    nl_catalog *c = scan(t, NULL);
    static const struct { const char *rel; nl_file_kind kind; bool valid; } want[] = {
        {"m/model.neff", NL_FILE_NEFF, true},
        {"m/renamed.bin", NL_FILE_NEFF, true},
        {"m/model.ntff", NL_FILE_NTFF, true},
        {"e/export.json", NL_FILE_JSON_EXPORT, true},
        {"e/summary.json", NL_FILE_SUMMARY_JSON, true},
        {"e/session.json", NL_FILE_SHOW_SESSION_JSON, true},
        {"e/session.txt", NL_FILE_SHOW_SESSION_TEXT, true},
        {"e/summary.txt", NL_FILE_SUMMARY_TEXT, true},
        {"e/legacy_summary.txt", NL_FILE_SUMMARY_TEXT, true},
        {"e/system_profile.json", NL_FILE_SYSTEM_JSON, true},
        {"k/trace.json", NL_FILE_KINETO, true},
        {"k/rank0.pt.trace.json.gz", NL_FILE_KINETO, true},
        {"p/Instruction.parquet", NL_FILE_PARQUET, true},
        {"p/Dma.parquet", NL_FILE_PARQUET, false},
        {"p/bad.parquet", NL_FILE_PARQUET, false},
        {"notes.md", NL_FILE_UNKNOWN, true},
        {"other.json", NL_FILE_UNKNOWN, true},
        {"empty.bin", NL_FILE_UNKNOWN, true},
    };
    assert_int_equal(nl_catalog_file_count(c), sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const nl_catalog_file *f = file(c, want[i].rel);
        if (f->kind != want[i].kind)
            print_message("%s: got %s, want %s\n", want[i].rel, nl_file_kind_name(f->kind),
                          nl_file_kind_name(want[i].kind));
        assert_int_equal(f->kind, want[i].kind);
        assert_int_equal(f->valid, want[i].valid);
    }
    assert_true(file(c, "k/rank0.pt.trace.json.gz")->gzipped);
    const nl_catalog_file *ex = file(c, "e/export.json");
    assert_true(ex->export_peeked);
    assert_true(ex->has_uuid);
    assert_string_equal(ex->uuid_hex, UUID_A_HEX);
    assert_string_equal(ex->neff_name, "model.neff");
    assert_string_equal(ex->export_ntff_filename, "/home/u/model.ntff");
    assert_int_equal(count_notes(c, NL_NOTE_BAD_HEADER, "p/bad.parquet"), 1);

    /* the export attaches to m/model.ntff by uuid and file name, even from another directory */
    const nl_catalog_profile *p = profile(c, "m/model");
    assert_int_equal(p->pairing, NL_PAIR_OK);
    assert_string_equal(nl_catalog_file_at(c, (size_t)p->neff)->rel_path, "m/model.neff");
    assert_int_equal(p->json_export, nl_catalog_find_file(c, "e/export.json"));
    assert_int_equal(p->export_link, NL_LINK_UUID_AND_FILENAME);
    const nl_catalog_profile *pq = profile(c, "p");
    assert_int_equal(pq->kind, NL_PROFILE_PARQUET_DIR);
    assert_int_equal(pq->parquet_count, 3);
    assert_true(pq->instruction_table);
    /* a table whose footer fails its checks makes the directory broken, naming the table */
    assert_int_equal(count_notes(c, NL_NOTE_BAD_HEADER, "p/Dma.parquet"), 1);
    assert_int_equal(pq->analyses[NL_ANALYSIS_SUMMARY].state, NL_UNSUPPORTED);
    assert_true(pq->analyses[NL_ANALYSIS_SUMMARY].broken);
    assert_non_null(strstr(pq->analyses[NL_ANALYSIS_SUMMARY].reason, "p/Dma.parquet failed its format check"));
    assert_int_equal(count_notes(c, NL_NOTE_NEFF_WITHOUT_NTFF, "m/renamed.bin"), 1);
    nl_catalog_free(c);
}

static void catalog_pb_stream_named_ntff_is_flagged(void **state)
{
    tree *t = *state;
    synth_buf b = {0};
    for (int i = 0; i < 3; i++) {
        synth_buf msg = {0};
        synth_varint_field(&msg, 2, 1773237645742008195ull);
        synth_varint_field(&msg, 7, 7);
        uint8_t len[4] = {(uint8_t)msg.len, 0, 0, 0};
        synth_append(&b, len, 4);
        synth_append(&b, msg.p, msg.len);
        synth_free(&msg);
    }
    put(t, "profile.ntff", b.p, b.len);
    put(t, "cap_pid_1/ntrace.pb", b.p, b.len);
    put_str(t, "cap_pid_1/trace_info.pb", "this is not protobuf at all");
    synth_free(&b);
    nl_catalog *c = scan(t, NULL);
    const nl_catalog_file *f = file(c, "profile.ntff");
    assert_int_equal(f->kind, NL_FILE_NTFF);
    assert_false(f->valid);
    bool found = false;
    for (size_t i = 0; i < nl_catalog_note_count(c); i++) {
        const nl_catalog_note *n = nl_catalog_note_at(c, i);
        if (n->code == NL_NOTE_BAD_HEADER && strcmp(n->path, "profile.ntff") == 0) {
            found = true;
            assert_non_null(strstr(n->message, "stream"));
            assert_int_equal(n->severity, NL_NOTE_WARN);
        }
    }
    assert_true(found);
    assert_int_equal(profile(c, "profile")->pairing, NL_PAIR_NO_UUID);
    assert_true(file(c, "cap_pid_1/ntrace.pb")->valid);
    assert_false(file(c, "cap_pid_1/trace_info.pb")->valid);
    assert_int_equal(nl_catalog_rank_count(c), 1);
    assert_false(nl_catalog_rank_at(c, 0)->has_system_profile);
    assert_int_equal(count_notes(c, NL_NOTE_INCOMPLETE_SYSTEM, "cap_pid_1"), 1);
    nl_catalog_free(c);
}

static void catalog_export_peek_finds_keys_across_chunk_boundary(void **state)
{
    tree *t = *state;
    const size_t chunk = 1u << 20; /* CATALOG_PEEK_CHUNK */
    const char head[] = "{\"metadata\":[{\"pad\":\"";
    const char tail[] = "\"}],\"neff_header\":[{\"hash\":\"1\",\"uuid\":\"" UUID_B_HEX "\"}],"
                        "\"profile_info\":[{\"ntff_filename\":\"/x/far.ntff\"}]}";
    synth_buf b = {0};
    synth_append(&b, head, sizeof head - 1);
    size_t key_at = chunk - 5; /* "neff_header" straddles the first chunk boundary */
    size_t pad = key_at - (sizeof head - 1) - 4;
    synth_append(&b, NULL, pad);
    memset(b.p + sizeof head - 1, 'a', pad);
    synth_append(&b, tail, sizeof tail - 1);
    assert_memory_equal(b.p + key_at, "\"neff_header\"", 13);
    put(t, "big/far.json", b.p, b.len);
    put_ntff(t, "big/far.ntff", UUID_B, "far.neff");
    nl_catalog *c = scan(t, NULL);
    const nl_catalog_file *f = file(c, "big/far.json");
    assert_int_equal(f->kind, NL_FILE_JSON_EXPORT);
    assert_true(f->has_uuid);
    assert_string_equal(f->uuid_hex, UUID_B_HEX);
    assert_string_equal(f->export_ntff_filename, "/x/far.ntff");
    assert_int_equal(profile(c, "big/far")->export_link, NL_LINK_UUID_AND_FILENAME);
    nl_catalog_free(c);

    nl_catalog_limits lim; /* a peek budget smaller than the file: identity unknown, said so */
    nl_catalog_limits_default(&lim);
    lim.json_peek_bytes = 4096;
    c = scan(t, &lim);
    f = file(c, "big/far.json");
    assert_false(f->has_uuid);
    assert_int_equal(count_notes(c, NL_NOTE_EXPORT_NOT_PEEKED, "big/far.json"), 1);
    const nl_catalog_note *n = note_of(c, NL_NOTE_EXPORT_NOT_PEEKED);
    char want[200];
    snprintf(want, sizeof want, "neff_header (uuid) and profile_info (NTFF name) not found in the first 4096 bytes "
             "of a %zu-byte export (exports list their arrays in any order)", b.len);
    assert_string_equal(n->message, want);
    assert_non_null(strstr(n->fix, "call summary"));
    assert_int_equal(profile(c, "big/far")->export_link, NL_LINK_STEM); /* same dir and stem */
    nl_catalog_free(c);

    lim.json_peek_bytes = chunk + 30; /* neff_header inside the budget, profile_info just past it */
    c = scan(t, &lim);
    f = file(c, "big/far.json");
    assert_true(f->has_uuid);
    assert_null(f->export_ntff_filename);
    n = note_of(c, NL_NOTE_EXPORT_NOT_PEEKED);
    assert_non_null(n);
    assert_non_null(strstr(n->message, "profile_info (NTFF name) not found in the first 1048606 bytes"));
    assert_null(strstr(n->message, "neff_header"));
    nl_catalog_free(c);
    synth_free(&b);
}

/* ---- grouping --------------------------------------------------------------------------------------- */

static void catalog_pairs_by_uuid_and_flags_mismatch_and_orphans(void **state)
{
    tree *t = *state;
    put_neff(t, "ok/model.neff", UUID_A, "model.neff");
    put_ntff(t, "ok/exec_1.ntff", UUID_A, "model.neff");
    put_ntff(t, "ok/exec_2.ntff", UUID_A, "model.neff");
    put_neff(t, "bad/model.neff", UUID_B, "model.neff");
    put_ntff(t, "bad/model.ntff", UUID_A, "model.neff"); /* uuid of the NEFF in ok/, name of this one */
    put_ntff(t, "alone/x.ntff", (const uint8_t *)"0123456789abcdef", "x.neff");
    put_neff(t, "spare/unused.neff", (const uint8_t *)"fedcba9876543210", "unused.neff");
    nl_catalog *c = scan(t, NULL);

    const nl_catalog_profile *p1 = profile(c, "ok/exec_1"), *p2 = profile(c, "ok/exec_2");
    assert_int_equal(p1->pairing, NL_PAIR_OK);
    assert_int_equal(p2->pairing, NL_PAIR_OK);
    assert_int_equal(p1->neff, nl_catalog_find_file(c, "ok/model.neff"));
    assert_int_equal(p1->kind, NL_PROFILE_DEVICE);
    assert_int_equal(p1->rank, -1);
    assert_string_equal(p1->dir, "ok");

    /* bad/model.ntff carries uuid A: it pairs with ok/model.neff (same uuid elsewhere wins) */
    const nl_catalog_profile *pb = profile(c, "bad/model");
    assert_int_equal(pb->pairing, NL_PAIR_OK);
    assert_int_equal(pb->neff, nl_catalog_find_file(c, "ok/model.neff"));

    const nl_catalog_profile *pa = profile(c, "alone/x");
    assert_int_equal(pa->pairing, NL_PAIR_NO_NEFF);
    assert_int_equal(pa->neff, -1);
    assert_int_equal(count_notes(c, NL_NOTE_NTFF_WITHOUT_NEFF, "alone/x.ntff"), 1);
    assert_int_equal(count_notes(c, NL_NOTE_NEFF_WITHOUT_NTFF, "spare/unused.neff"), 1);
    assert_int_equal(count_notes(c, NL_NOTE_NEFF_WITHOUT_NTFF, "bad/model.neff"), 1);
    nl_catalog_free(c);

    /* with the uuid-A NEFF gone, the same-directory NEFF is a mismatch */
    char *p = synth_path(t->dir, "ok/model.neff");
    unlink(p);
    free(p);
    c = scan(t, NULL);
    pb = profile(c, "bad/model");
    assert_int_equal(pb->pairing, NL_PAIR_UUID_MISMATCH);
    assert_int_equal(pb->neff, -1);
    assert_int_equal(pb->mismatched_neff, nl_catalog_find_file(c, "bad/model.neff"));
    assert_int_equal(count_notes(c, NL_NOTE_UUID_MISMATCH, "bad/model.ntff"), 1);
    for (size_t i = 0; i < nl_catalog_note_count(c); i++) {
        const nl_catalog_note *n = nl_catalog_note_at(c, i);
        if (n->code == NL_NOTE_UUID_MISMATCH) {
            assert_non_null(strstr(n->message, UUID_A_HEX));
            assert_non_null(strstr(n->message, UUID_B_HEX));
            assert_non_null(n->fix);
        }
    }
    nl_catalog_free(c);
}

/* torch 1.x writes trace.json as a bare array of events (no "traceEvents"): Kineto by name plus head, so the
 * reader (which handles and labels that layout) is reached; the same bytes under another name, or a
 * trace-named array that does not hold events, stay unknown. */
static void catalog_bare_array_trace_json_is_kineto(void **state)
{
    tree *t = *state;
    put_str(t, "a/i-0abc_pid_42/trace.json",
            "[{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 42, \"tid\": 42, "
            "\"ts\": 1.5, \"dur\": 2}]");
    put_str(t, "a/rank1.pt.trace.json", "\xef\xbb\xbf [\n  {\"name\": \"aten::mm\", \"ts\": 10, \"dur\": 1}\n]");
    put_gz(t, "a/rank2.pt.trace.json.gz", "[{\"pid\": 1, \"ph\": \"M\", \"args\": {\"name\": \"python\"}}]");
    put_str(t, "a/events.json", "[{\"ph\": \"X\", \"name\": \"aten::add\", \"ts\": 1}]");
    put_str(t, "a/numbers.trace.json", "[1, 2, 3]");
    put_str(t, "a/other_trace.json", "[{\"hello\": 1}]");
    nl_catalog *c = scan(t, NULL);
    static const struct { const char *rel; nl_file_kind kind; } want[] = {
        {"a/i-0abc_pid_42/trace.json", NL_FILE_KINETO},
        {"a/rank1.pt.trace.json", NL_FILE_KINETO},
        {"a/rank2.pt.trace.json.gz", NL_FILE_KINETO},
        {"a/events.json", NL_FILE_UNKNOWN},
        {"a/numbers.trace.json", NL_FILE_UNKNOWN},
        {"a/other_trace.json", NL_FILE_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const nl_catalog_file *f = file(c, want[i].rel);
        if (f->kind != want[i].kind)
            print_message("%s: got %s, want %s\n", want[i].rel, nl_file_kind_name(f->kind),
                          nl_file_kind_name(want[i].kind));
        assert_int_equal(f->kind, want[i].kind);
        assert_true(f->valid);
    }
    assert_true(file(c, "a/rank2.pt.trace.json.gz")->gzipped);
    assert_int_equal(nl_catalog_rank_count(c), 1); /* the capture directory's trace is its rank's */
    assert_int_equal(nl_catalog_rank_at(c, 0)->trace_json, nl_catalog_find_file(c, "a/i-0abc_pid_42/trace.json"));
    nl_catalog_free(c);
}

static void catalog_capture_dir_is_a_rank_with_stable_ids(void **state)
{
    tree *t = *state;
    put_neff(t, "out/i-0abc_pid_42/neff_1.neff", UUID_A, "model.neff");
    put_ntff(t, "out/i-0abc_pid_42/1_vnc_3.ntff", UUID_A, "model.neff");
    put_ntff(t, "out/i-0abc_pid_42/20250101/profile_exec_2.ntff", UUID_A, "model.neff");
    put_str(t, "out/i-0abc_pid_42/trace.json", "{\"traceEvents\": []}");
    put_ntff(t, "out/i-0abc_pid_7/profile_exec_2.ntff", UUID_B, "b.neff");
    nl_catalog *c = scan(t, NULL);
    assert_int_equal(nl_catalog_rank_count(c), 2);
    const nl_catalog_rank *r0 = nl_catalog_rank_at(c, 0), *r1 = nl_catalog_rank_at(c, 1);
    assert_string_equal(r0->id, "rank0");
    assert_string_equal(r0->dir, "out/i-0abc_pid_42");
    assert_string_equal(r0->instance, "i-0abc");
    assert_int_equal(r0->pid, 42);
    assert_int_equal(r0->ntff_count, 2);
    assert_int_equal(r0->neff_count, 1);
    assert_int_equal(r0->trace_json, nl_catalog_find_file(c, "out/i-0abc_pid_42/trace.json"));
    assert_int_equal(r0->ntrace_pb, -1);
    assert_false(r0->has_system_profile);
    assert_string_equal(r1->dir, "out/i-0abc_pid_7");
    assert_int_equal(r1->pid, 7);

    assert_int_equal(profile(c, "rank0/nc3/1_vnc_3")->pairing, NL_PAIR_OK);
    assert_int_equal(profile(c, "rank0/20250101/profile_exec_2")->rank, 0);
    assert_int_equal(profile(c, "rank1/profile_exec_2")->pairing, NL_PAIR_NO_NEFF);
    assert_int_equal(file(c, "out/i-0abc_pid_42/neff_1.neff")->rank, 0);
    nl_catalog_free(c);

    /* scanning the capture directory itself: the root is the rank */
    char *root = synth_path(t->dir, "out/i-0abc_pid_42");
    nl_error e;
    c = nl_catalog_scan(root, NULL, &e);
    assert_non_null(c);
    assert_int_equal(nl_catalog_rank_count(c), 1);
    assert_string_equal(nl_catalog_rank_at(c, 0)->dir, "");
    assert_int_equal(nl_catalog_rank_at(c, 0)->pid, 42);
    profile(c, "rank0/nc3/1_vnc_3");
    nl_catalog_free(c);
    free(root);

    /* ... also when it is named "." or with a trailing slash */
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    root = synth_path(t->dir, "out/i-0abc_pid_42");
    assert_int_equal(chdir(root), 0);
    c = nl_catalog_scan(".", NULL, &e);
    assert_int_equal(chdir(cwd), 0);
    assert_non_null(c);
    assert_int_equal(nl_catalog_rank_count(c), 1);
    assert_string_equal(nl_catalog_rank_at(c, 0)->instance, "i-0abc");
    nl_catalog_free(c);
    free(root);
    root = synth_path(t->dir, "out/i-0abc_pid_42/");
    c = nl_catalog_scan(root, NULL, &e);
    assert_non_null(c);
    assert_int_equal(nl_catalog_rank_count(c), 1);
    assert_null(strstr(nl_catalog_file_at(c, 0)->path, "//"));
    nl_catalog_free(c);
    free(root);
}

static void catalog_single_file_root_and_id_clash(void **state)
{
    tree *t = *state;
    put_ntff(t, "d/a.ntff", UUID_A, "a.neff");
    /* an export with another uuid and the same stem: not attached, its own profile, id clash → ~2 */
    put_str(t, "d/a.json", "{\"neff_header\":[{\"uuid\":\"" UUID_B_HEX "\"}]}");
    nl_catalog *c = scan(t, NULL);
    const nl_catalog_profile *dev = profile(c, "d/a");
    assert_int_equal(dev->kind, NL_PROFILE_DEVICE);
    assert_int_equal(dev->json_export, -1);
    const nl_catalog_profile *ex = profile(c, "d/a~2");
    assert_int_equal(ex->kind, NL_PROFILE_EXPORT_ONLY);
    assert_int_equal(ex->json_export, nl_catalog_find_file(c, "d/a.json"));
    assert_int_equal(count_notes(c, NL_NOTE_EXPORT_UNATTACHED, "d/a.json"), 1);
    nl_catalog_free(c);

    /* the NTFF's own path: its same-stem export is looked at as a companion, but it belongs to another NEFF,
     * so only the NTFF's profile is kept, and no note about the export */
    char *f = synth_path(t->dir, "d/a.ntff");
    nl_error e;
    c = nl_catalog_scan(f, NULL, &e);
    assert_non_null(c);
    assert_int_equal(nl_catalog_file_count(c), 2);
    assert_string_equal(nl_catalog_file_at(c, 1)->rel_path, "a.ntff");
    assert_string_equal(nl_catalog_file_at(c, 1)->path, f);
    assert_false(nl_catalog_file_at(c, 1)->companion);
    assert_true(nl_catalog_file_at(c, 0)->companion);
    assert_int_equal(nl_catalog_profile_count(c), 1);
    assert_int_equal(profile(c, "a")->json_export, -1);
    assert_int_equal(count_notes(c, NL_NOTE_EXPORT_UNATTACHED, "a.json"), 0);
    nl_catalog_free(c);
    free(f);
}

/* Profiles of every kind, named once, each with its readiness per analysis; choosing words every outcome the
 * same way for every analysis. */
static void catalog_every_kind_is_a_profile_with_readiness(void **state)
{
    tree *t = *state;
    put_neff(t, "dev/model.neff", UUID_A, "model.neff");
    put_ntff(t, "dev/run.ntff", UUID_A, "model.neff");
    put_str(t, "dev/run.json", "{\"neff_header\":[{\"uuid\":\"" UUID_A_HEX "\"}],\"instruction\":[]}");
    put_str(t, "dev/run.show_session.txt", "Collectives trace for CC-core 0\nTPB_TRIGGER 5 START\n");
    put_ntff(t, "bare/lone.ntff", UUID_B, "other.neff");
    put_str(t, "fw/trace.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1}]}");
    put_str(t, "dumps/all.txt", "Collectives trace for CC-core 8\nTPB_TRIGGER 5 START\n");
    put_str(t, "dumps/cycles.json", "{\"Name\":\"m.neff\",\"NeffNodes\":[]}");
    put_str(t, "sums/s.json", "{\"n_0123456789abcdef0123456789abcdef01234567\":{\"total_time\":0.5}}");
    put_str(t, "cut/cut.json", "{\"instruction\":[{\"timestamp\":1},");
    nl_catalog *c = scan(t, NULL);
    static const struct {
        const char *id;
        nl_profile_kind kind;
        nl_readiness summary, extract, attribution, gaps;
    } want[] = {
        /* an NTFF with metadata but no core message: nothing to decode, no collectives */
        {"bare/lone", NL_PROFILE_DEVICE, NL_UNSUPPORTED, NL_UNSUPPORTED, NL_UNSUPPORTED, NL_UNSUPPORTED},
        {"dev/run", NL_PROFILE_DEVICE, NL_READY, NL_READY, NL_READY, NL_READY},
        {"cut/cut", NL_PROFILE_EXPORT_ONLY, NL_UNSUPPORTED, NL_UNSUPPORTED, NL_UNSUPPORTED, NL_UNSUPPORTED},
        {"fw/trace.json", NL_PROFILE_FRAMEWORK, NL_READY, NL_READY, NL_UNSUPPORTED, NL_READY},
        {"sums/s.json", NL_PROFILE_SUMMARY_JSON, NL_READY, NL_UNSUPPORTED, NL_UNSUPPORTED, NL_UNSUPPORTED},
        {"dumps/all.txt", NL_PROFILE_SHOW_SESSION, NL_UNSUPPORTED, NL_UNSUPPORTED, NL_UNSUPPORTED, NL_READY},
        {"dumps/cycles.json", NL_PROFILE_SHOW_SESSION, NL_UNSUPPORTED, NL_UNSUPPORTED, NL_UNSUPPORTED, NL_UNSUPPORTED},
    };
    assert_int_equal(nl_catalog_profile_count(c), sizeof want / sizeof want[0]); /* the owned dump is no profile */
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const nl_catalog_profile *p = profile(c, want[i].id);
        assert_int_equal(p->kind, want[i].kind);
        assert_int_equal(p->analyses[NL_ANALYSIS_SUMMARY].state, want[i].summary);
        assert_int_equal(p->analyses[NL_ANALYSIS_TRACE_EXTRACT].state, want[i].extract);
        assert_int_equal(p->analyses[NL_ANALYSIS_KERNEL_ATTRIBUTION].state, want[i].attribution);
        assert_int_equal(p->analyses[NL_ANALYSIS_COLLECTIVE_GAPS].state, want[i].gaps);
        for (int a = 0; a < NL_ANALYSIS_COUNT; a++) /* every state but ready says why */
            assert_true((p->analyses[a].state == NL_READY) == (p->analyses[a].reason == NULL));
    }
    const nl_catalog_profile *dev = profile(c, "dev/run");
    assert_int_equal(dev->dump, nl_catalog_find_file(c, "dev/run.show_session.txt"));
    assert_true(profile(c, "cut/cut")->analyses[NL_ANALYSIS_SUMMARY].broken);
    assert_string_equal(nl_profile_kind_family(NL_PROFILE_SUMMARY_JSON), "device");

    nl_choice ch;
    assert_int_equal(nl_catalog_choose(c, "dev/run", NL_ANALYSIS_SUMMARY, NULL, NULL, &ch), 0);
    assert_ptr_equal(ch.profile, dev);
    assert_int_equal(nl_catalog_choose(c, "sums/s.json#n_0123456789abcdef0123456789abcdef01234567", NL_ANALYSIS_SUMMARY,
                                       NULL, NULL, &ch), 0);
    assert_int_equal(ch.profile->kind, NL_PROFILE_SUMMARY_JSON);
    /* an unknown id: the same list of every profile with its kind, whatever the analysis */
    char first[NL_CHOICE_MESSAGE_MAX];
    for (int a = 0; a < NL_ANALYSIS_COUNT; a++) {
        assert_int_equal(nl_catalog_choose(c, "nope", (nl_analysis)a, NULL, NULL, &ch), -1);
        assert_int_equal(ch.status, NL_CHOICE_UNKNOWN);
        const char *list = strstr(ch.message, "Profiles there: ");
        assert_non_null(list);
        if (a == 0)
            snprintf(first, sizeof first, "%s", list);
        assert_string_equal(list, first);
    }
    assert_non_null(strstr(first, "dumps/all.txt (show-session dump), dumps/cycles.json (show-session dump)"));
    assert_non_null(strstr(first, "bare/lone (device, NTFF only)"));
    /* no id: several profiles are ready for summary */
    assert_int_equal(nl_catalog_choose(c, NULL, NL_ANALYSIS_SUMMARY, NULL, NULL, &ch), -1);
    assert_int_equal(ch.status, NL_CHOICE_AMBIGUOUS);
    assert_non_null(strstr(ch.message, "holds 7 profiles; pass \"profile\" with one of: "));
    /* a family narrows the choice; the only one there is chosen */
    assert_int_equal(nl_catalog_choose(c, NULL, NL_ANALYSIS_TRACE_EXTRACT, "framework", "kind framework", &ch), 0);
    assert_string_equal(ch.profile->id, "fw/trace.json");
    assert_non_null(strstr(ch.note, "fw/trace.json is the only profile"));
    assert_int_equal(nl_catalog_choose(c, NULL, NL_ANALYSIS_TRACE_EXTRACT, "system", "kind system", &ch), -1);
    assert_int_equal(ch.status, NL_CHOICE_NONE);
    assert_non_null(strstr(ch.message, "No system profile at "));
    assert_non_null(strstr(ch.message, " for kind system. Profiles there: "));
    assert_int_equal(nl_catalog_choose(c, "fw/trace.json", NL_ANALYSIS_TRACE_EXTRACT, "system", "kind system", &ch), -1);
    assert_non_null(strstr(ch.message, "is a framework profile, not a system profile as kind system"));
    /* an id the analysis cannot read: unsupported, with the reason and the fix */
    assert_int_equal(nl_catalog_choose(c, "fw/trace.json", NL_ANALYSIS_KERNEL_ATTRIBUTION, NULL, NULL, &ch), -1);
    assert_int_equal(ch.status, NL_CHOICE_UNSUPPORTED);
    assert_ptr_equal(ch.profile, profile(c, "fw/trace.json"));
    assert_non_null(strstr(ch.message, "kernel-attribution cannot answer for profile fw/trace.json (framework): a "
                                       "PyTorch trace holds framework events, not device instructions."));
    nl_catalog_free(c);
}

/* Passing an export's own path pairs it with the NTFF beside it, as passing the folder does. */
static void catalog_export_path_links_the_ntff_beside_it(void **state)
{
    tree *t = *state;
    put_neff(t, "e/model.neff", UUID_A, "model.neff");
    put_neff(t, "e/other.neff", UUID_B, "other.neff");
    put_ntff(t, "e/run.ntff", UUID_A, "model.neff");
    put_str(t, "e/run.json", "{\"neff_header\":[{\"uuid\":\"" UUID_A_HEX "\"}],\"instruction\":[]}");
    put_str(t, "e/unrelated.json", "{\"neff_header\":[{\"uuid\":\"" UUID_B_HEX "\"}],\"instruction\":[]}");
    char *f = synth_path(t->dir, "e/run.json");
    nl_error e;
    nl_catalog *c = nl_catalog_scan(f, NULL, &e);
    assert_non_null(c);
    assert_int_equal(nl_catalog_profile_count(c), 1);
    const nl_catalog_profile *p = profile(c, "run");
    assert_int_equal(p->kind, NL_PROFILE_DEVICE);
    assert_int_equal(p->json_export, nl_catalog_find_file(c, "run.json"));
    assert_int_equal(p->ntff, nl_catalog_find_file(c, "run.ntff"));
    assert_int_equal(p->export_link, NL_LINK_UUID);
    assert_int_equal(p->pairing, NL_PAIR_OK);
    assert_int_equal(p->neff, nl_catalog_find_file(c, "model.neff"));
    assert_int_equal(nl_catalog_find_file(c, "unrelated.json"), -1); /* another stem: not a companion */
    assert_int_equal(count_notes(c, NL_NOTE_EXPORT_UNATTACHED, NULL), 0);
    assert_int_equal(count_notes(c, NL_NOTE_NEFF_WITHOUT_NTFF, "other.neff"), 0); /* a companion of nothing kept */
    assert_int_equal(p->analyses[NL_ANALYSIS_SUMMARY].state, NL_READY);
    nl_catalog_free(c);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(catalog_missing_path_is_not_found, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_export_path_links_the_ntff_beside_it, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_every_kind_is_a_profile_with_readiness, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_symlink_loop_terminates_with_note, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_symlinked_file_is_listed_once, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_fifo_is_noted_and_never_opened, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_unreadable_file_is_noted, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_unreadable_directory_is_noted, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_three_thousand_small_files_in_bounded_time, tree_setup,
                                        tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_file_limit_warns_and_truncates, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_depth_limit_prunes_deep_directories, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_many_fifos_are_capped_in_notes, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_classifies_every_kind_by_name_and_content, tree_setup,
                                        tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_pb_stream_named_ntff_is_flagged, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_export_peek_finds_keys_across_chunk_boundary, tree_setup,
                                        tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_pairs_by_uuid_and_flags_mismatch_and_orphans, tree_setup,
                                        tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_capture_dir_is_a_rank_with_stable_ids, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_bare_array_trace_json_is_kineto, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(catalog_single_file_root_and_id_clash, tree_setup, tree_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
