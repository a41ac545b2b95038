/* nl-gen-write-check — checks of the nlgen library API (gen_profile.h) that the CLI cannot make; run by
 * tests/unit/test_gen_profile.py as `nl-gen-write-check SCRATCH_DIR`.
 *
 * Cases (each named by the behaviour it checks):
 *   demo_options_are_the_documented_demo        gen_options_demo / gen_options_default values
 *   bad_options_fail_with_a_message            -1 and a message naming the field; NULL/0 errbuf accepted
 *   message_is_truncated_to_errcap             the message is NUL-terminated within errcap
 *   out_dir_that_is_a_file_fails               -1, "not a directory"; nothing written
 *   missing_parents_are_created                out_dir with missing parents is created
 *   nothing_is_printed_to_stdout               stdout is redirected to a file around gen_write: it stays empty
 *   concurrent_writes_give_identical_files     4 threads write the same options to 4 directories at once;
 *                                              every file equals the sequential run byte for byte
 *   concurrent_captures_give_identical_files   the same with --capture --ranks 2 --kineto: every file of
 *                                              the tree, rank directories included, equals the sequential run
 * Exit status 0 when all pass; failures are listed on stderr. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen_profile.h"

#define CHECK_THREADS 4

static int failures;

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "FAIL %s:%d %s: ", __FILE__, __LINE__, #cond);            \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            failures++;                                                               \
        }                                                                             \
    } while (0)

static const char *const files[] = {"profile_nc0.json", "summary_nc0.json", "profile_nc1.json", "summary_nc1.json",
                                    "show_session_trace.txt", "show_session.json", "expected.json"};

static void small_options(gen_options *o)
{
    gen_options_default(o);
    o->seed = 7;
    o->layers = 5;
    o->cores = 2;
    o->instructions_per_layer = 120;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, k;
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            char *g = realloc(buf, cap);
            if (!g) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = g;
        }
        k = fread(buf + n, 1, cap - n, f);
        n += k;
    } while (k > 0);
    fclose(f);
    *len = n;
    return buf;
}

static int same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

static void demo_options_are_the_documented_demo(void)
{
    gen_options o, d;
    memset(&o, 0xa5, sizeof o);
    gen_options_demo(&o);
    CHECK(o.layers == 8 && o.cores == 2 && o.instructions_per_layer == 200 && o.demo, "demo %d %d %u %d", o.layers,
          o.cores, o.instructions_per_layer, o.demo);
    CHECK(o.warmup_factor == 1.8 && o.outlier_factor == 1.7 && o.seed == 1, "factors %g %g", o.warmup_factor,
          o.outlier_factor);
    CHECK(!o.missing_dge && !o.no_source && !o.target_bytes, "demo flags");
    CHECK(!o.capture && o.ranks == 1 && o.executions == 3 && !o.kineto && !o.kineto_target_bytes,
          "demo capture options %d %d %d %d", o.capture, o.ranks, o.executions, o.kineto);
    gen_options_default(&d);
    CHECK(d.layers == 8 && d.instructions_per_layer == 1000 && !d.demo, "default %d %u", d.layers,
          d.instructions_per_layer);
    char msg[200] = "poison";
    CHECK(gen_options_check(&o, msg, sizeof msg) == 0 && msg[0] == '\0', "demo options rejected: %s", msg);
}

static void bad_options_fail_with_a_message(const char *scratch)
{
    char dir[1024], msg[256];
    snprintf(dir, sizeof dir, "%s/bad", scratch);
    static const char *const field[] = {"layers", "cores", "instructions per layer", "factors", "factors", "ranks",
                                        "need capture", "executions", "executions", "need kineto",
                                        "kineto target bytes"};
    gen_options o;
    for (int i = 0; i < 11; i++) {
        small_options(&o);
        if (i == 0)
            o.layers = 0;
        else if (i == 1)
            o.cores = GEN_MAX_CORES + 1;
        else if (i == 2)
            o.instructions_per_layer = GEN_MIN_IPL - 1;
        else if (i == 3)
            o.outlier_factor = 0.5;
        else if (i == 4)
            o.warmup_factor = INFINITY;
        else if (i == 5)
            o.ranks = GEN_MAX_RANKS + 1, o.capture = 1;
        else if (i == 6)
            o.ranks = 2; /* without capture */
        else if (i == 7)
            o.executions = 0;
        else if (i == 8)
            o.executions = GEN_MAX_EXECUTIONS + 1;
        else if (i == 9)
            o.kineto_target_bytes = 1 << 20; /* without kineto */
        else
            o.kineto = 1, o.kineto_target_bytes = GEN_MAX_KINETO_BYTES + 1;
        strcpy(msg, "poison");
        CHECK(gen_write(&o, dir, msg, sizeof msg) == -1, "case %d accepted", i);
        CHECK(strstr(msg, field[i]) != NULL, "case %d message '%s'", i, msg);
        strcpy(msg, "poison");
        CHECK(gen_options_check(&o, msg, sizeof msg) == -1 && strstr(msg, field[i]), "check %d: '%s'", i, msg);
        CHECK(gen_write(&o, dir, NULL, 0) == -1, "case %d without errbuf", i);
    }
    struct stat sb;
    CHECK(stat(dir, &sb) != 0 && errno == ENOENT, "bad options created %s", dir);
    strcpy(msg, "poison");
    CHECK(gen_write(NULL, dir, msg, sizeof msg) == -1 && strstr(msg, "NULL"), "NULL options: '%s'", msg);
    small_options(&o);
    strcpy(msg, "poison");
    CHECK(gen_write(&o, NULL, msg, sizeof msg) == -1 && strstr(msg, "NULL"), "NULL out_dir: '%s'", msg);
}

static void message_is_truncated_to_errcap(void)
{
    gen_options o;
    small_options(&o);
    o.layers = -3;
    char msg[8];
    memset(msg, 'x', sizeof msg);
    CHECK(gen_write(&o, "unused", msg, 5) == -1, "accepted");
    CHECK(msg[4] == '\0' && strlen(msg) == 4 && msg[5] == 'x', "not truncated to 5: '%.8s'", msg);
}

static void out_dir_that_is_a_file_fails(const char *scratch)
{
    char path[1024], below[1100], msg[256] = "poison";
    snprintf(path, sizeof path, "%s/plain-file", scratch);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot create %s", path);
    if (f)
        fclose(f);
    gen_options o;
    small_options(&o);
    CHECK(gen_write(&o, path, msg, sizeof msg) == -1 && strstr(msg, "not a directory"), "file as dir: '%s'", msg);
    snprintf(below, sizeof below, "%s/sub", path);
    strcpy(msg, "poison");
    CHECK(gen_write(&o, below, msg, sizeof msg) == -1 && strstr(msg, "cannot create"), "below a file: '%s'", msg);
}

static void missing_parents_are_created(const char *scratch)
{
    char dir[1024], path[1200], msg[256] = "poison";
    snprintf(dir, sizeof dir, "%s/a/b/c", scratch);
    gen_options o;
    small_options(&o);
    o.cores = 1;
    CHECK(gen_write(&o, dir, msg, sizeof msg) == 0 && msg[0] == '\0', "write failed: '%s'", msg);
    snprintf(path, sizeof path, "%s/expected.json", dir);
    CHECK(access(path, R_OK) == 0, "%s missing", path);
}

static void nothing_is_printed_to_stdout(const char *scratch)
{
    char dir[1024], cap[1024], msg[256] = "poison";
    snprintf(dir, sizeof dir, "%s/quiet", scratch);
    snprintf(cap, sizeof cap, "%s/stdout.txt", scratch);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(saved >= 0 && fd >= 0, "cannot redirect stdout");
    if (saved < 0 || fd < 0)
        return;
    dup2(fd, STDOUT_FILENO);
    close(fd);
    gen_options o;
    small_options(&o);
    int rc = gen_write(&o, dir, msg, sizeof msg);
    o.layers = 0;
    int bad = gen_write(&o, dir, msg + 128, sizeof msg - 128);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    struct stat sb;
    CHECK(rc == 0 && bad == -1, "rc %d bad %d: '%s'", rc, bad, msg);
    CHECK(stat(cap, &sb) == 0 && sb.st_size == 0, "gen_write wrote %lld bytes to stdout", (long long)sb.st_size);
}

typedef struct job {
    char dir[1024];
    char msg[256];
    int capture;
    int rc;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    gen_options o;
    small_options(&o);
    if (j->capture) {
        o.capture = 1;
        o.ranks = 2;
        o.kineto = 1;
        o.executions = 2;
    }
    j->rc = gen_write(&o, j->dir, j->msg, sizeof j->msg);
    return NULL;
}

/* Every regular file under a/rel equals the one under b/rel (and exists there); returns the files seen. */
static int same_tree(const char *a, const char *b, const char *rel, int depth)
{
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s%s%s", a, rel[0] ? "/" : "", rel);
    DIR *d = opendir(pa);
    CHECK(d != NULL, "cannot list %s", pa);
    if (!d)
        return 0;
    int seen = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char sub[2048];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
        snprintf(pa, sizeof pa, "%s/%s", a, sub);
        snprintf(pb, sizeof pb, "%s/%s", b, sub);
        struct stat sb;
        if (stat(pa, &sb) == 0 && S_ISDIR(sb.st_mode) && depth < 2) {
            seen += same_tree(a, b, sub, depth + 1);
            continue;
        }
        seen++;
        CHECK(same_file(pa, pb), "%s differs from %s", pb, pa);
    }
    closedir(d);
    return seen;
}

static void concurrent_captures_give_identical_files(const char *scratch)
{
    job ref = {.capture = 1}, jobs[CHECK_THREADS];
    pthread_t t[CHECK_THREADS];
    snprintf(ref.dir, sizeof ref.dir, "%s/cap-seq", scratch);
    run_job(&ref);
    CHECK(ref.rc == 0, "sequential capture: %s", ref.msg);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    for (int i = 0; i < CHECK_THREADS; i++) {
        jobs[i].capture = 1;
        snprintf(jobs[i].dir, sizeof jobs[i].dir, "%s/cap-thread%d", scratch, i);
        CHECK(pthread_create(&t[i], &attr, run_job, &jobs[i]) == 0, "pthread_create %d", i);
    }
    for (int i = 0; i < CHECK_THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_attr_destroy(&attr);
    for (int i = 0; i < CHECK_THREADS; i++) {
        CHECK(jobs[i].rc == 0, "capture thread %d: %s", i, jobs[i].msg);
        /* 2 ranks × (4 .pb + 2 exports + trace.json) + 2 summaries + 2 show-session files + expected.json */
        int n = same_tree(ref.dir, jobs[i].dir, "", 0);
        CHECK(n == 2 * 7 + 5, "capture thread %d: %d files", i, n);
    }
}

static void concurrent_writes_give_identical_files(const char *scratch)
{
    job ref = {0}, jobs[CHECK_THREADS];
    pthread_t t[CHECK_THREADS];
    snprintf(ref.dir, sizeof ref.dir, "%s/seq", scratch);
    run_job(&ref);
    CHECK(ref.rc == 0, "sequential run: %s", ref.msg);
    /* small stacks, as a server's worker threads may have */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    for (int i = 0; i < CHECK_THREADS; i++) {
        jobs[i].capture = 0;
        snprintf(jobs[i].dir, sizeof jobs[i].dir, "%s/thread%d", scratch, i);
        CHECK(pthread_create(&t[i], &attr, run_job, &jobs[i]) == 0, "pthread_create %d", i);
    }
    for (int i = 0; i < CHECK_THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_attr_destroy(&attr);
    for (int i = 0; i < CHECK_THREADS; i++) {
        CHECK(jobs[i].rc == 0, "thread %d: %s", i, jobs[i].msg);
        for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
            char a[8192], b[8192];
            snprintf(a, sizeof a, "%s/%s", ref.dir, files[k]);
            snprintf(b, sizeof b, "%s/%s", jobs[i].dir, files[k]);
            CHECK(same_file(a, b), "%s differs from %s", b, a);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: nl-gen-write-check SCRATCH_DIR\n");
        return 2;
    }
    demo_options_are_the_documented_demo();
    bad_options_fail_with_a_message(argv[1]);
    message_is_truncated_to_errcap();
    out_dir_that_is_a_file_fails(argv[1]);
    missing_parents_are_created(argv[1]);
    nothing_is_printed_to_stdout(argv[1]);
    concurrent_writes_give_identical_files(argv[1]);
    concurrent_captures_give_identical_files(argv[1]);
    if (failures)
        fprintf(stderr, "nl-gen-write-check: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
