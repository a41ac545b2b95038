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
 * and of the export's key orders (gen_export_internal.h, gen_export_order.c), through the internal API:
 *   map_order_is_a_go_map_iteration            permutations; up to 8 keys only rotations (all of them seen);
 *                                              30 keys: nearly every draw differs; same seed, same orders
 *   records_stay_whole_across_flushes          records written across the 4 MiB buffer boundary at several
 *                                              offsets keep every member once, with its value and one comma
 *                                              between members; orders vary; same bytes on a rerun and the
 *                                              same byte count through a counting sink
 *   oversized_record_fails                     a pinned record over the buffer size is an error, not a cut
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

#include "gen_export_internal.h"
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

/* slurp, NUL-terminated (for the string functions). */
static char *slurp_text(const char *path, size_t *len)
{
    char *buf = slurp(path, len), *z = buf ? realloc(buf, *len + 1) : NULL;
    if (!z) {
        free(buf);
        return NULL;
    }
    z[*len] = '\0';
    return z;
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

/* ---- key orders ---- */

/* A gen_core that only carries the seed (all gen_wr needs); NULL when out of memory. */
static gen_core *order_core(gen_params *p, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->seed = seed;
    gen_core *c = calloc(1, sizeof *c);
    if (c)
        c->params = p;
    return c;
}

static int is_rotation(const uint16_t *order, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (order[i] != (order[0] + i) % n)
            return 0;
    return 1;
}

static int is_permutation(const uint16_t *order, unsigned n)
{
    unsigned char seen[GEN_WR_MAX_SPANS] = {0};
    for (unsigned i = 0; i < n; i++) {
        if (order[i] >= n || seen[order[i]])
            return 0;
        seen[order[i]] = 1;
    }
    return 1;
}

#define ORDER_DRAWS 400

static void map_order_is_a_go_map_iteration(void)
{
    gen_params p;
    gen_core *c = order_core(&p, 42);
    CHECK(c != NULL, "out of memory");
    if (!c)
        return;
    gen_wr w, again;
    gen_wr_init(&w, NULL, c, 1);
    gen_wr_init(&again, NULL, c, 1);
    for (unsigned n = 1; n <= GEN_WR_MAX_SPANS; n++) {
        uint16_t order[GEN_WR_MAX_SPANS], order2[GEN_WR_MAX_SPANS];
        unsigned firsts = 0; /* bit k: some draw started with key k (n <= 8) */
        for (int d = 0; d < (n <= 8 ? 64 : 4); d++) {
            gen_wr_map_order(&w, order, n);
            gen_wr_map_order(&again, order2, n);
            CHECK(is_permutation(order, n), "n %u: not a permutation", n);
            CHECK(memcmp(order, order2, n * sizeof *order) == 0, "n %u: same stream, other order", n);
            if (n <= 8) {
                CHECK(is_rotation(order, n), "n %u: %u keys in one bucket must come out rotated", n, n);
                firsts |= 1u << order[0];
            }
        }
        CHECK(n > 8 || firsts == (1u << n) - 1, "n %u: rotations seen %#x", n, firsts);
    }
    /* 30 keys (an instruction record): 4 buckets and an offset, so nearly every draw differs */
    static uint16_t orders[ORDER_DRAWS][30];
    int distinct = 0;
    for (int d = 0; d < ORDER_DRAWS; d++) {
        gen_wr_map_order(&w, orders[d], 30);
        int dup = 0;
        for (int e = 0; e < d && !dup; e++)
            dup = memcmp(orders[d], orders[e], sizeof orders[d]) == 0;
        distinct += !dup;
    }
    CHECK(distinct >= ORDER_DRAWS * 95 / 100, "30 keys: only %d distinct orders in %d", distinct, ORDER_DRAWS);
    free(c);
}

#define REC_COUNT 3000

/* Members in record r (1..40, so some records sit in one Go bucket and some in several). */
static unsigned rec_members(unsigned r)
{
    return 1 + (r * 7919u) % 40;
}

/* filler bytes, then REC_COUNT records {"k<i>":<value>,...}, each after a newline, and a final newline; the
 * bytes counted go to *total. */
static int write_records(const char *path, size_t filler, uint64_t *total)
{
    gen_params p;
    gen_core *c = order_core(&p, 9);
    gen_out o;
    gen_err err;
    gen_err_init(&err, NULL, 0);
    if (!c || gen_out_open(&o, path, &err) != 0) {
        free(c);
        return -1;
    }
    for (size_t i = 0; i < filler; i++)
        gen_out_ch(&o, 'x');
    gen_wr w;
    gen_wr_init(&w, &o, c, 5);
    for (unsigned r = 0; r < REC_COUNT; r++) {
        gen_out_ch(&o, '\n');
        gen_wr_begin(&w);
        for (unsigned i = 0; i < rec_members(r); i++) {
            char key[16];
            snprintf(key, sizeof key, "k%u", i);
            gen_wr_key_dyn(&w, key);
            gen_out_u64(&o, (uint64_t)r * 1000003u + i * (i % 3 ? 1u : 1234567u)); /* values of varied length */
        }
        gen_wr_end(&w);
    }
    gen_out_ch(&o, '\n');
    *total = gen_out_bytes(&o);
    int rc = gen_out_close(&o, &err);
    free(c);
    return rc;
}

/* Check one line: every member k0..k(n-1) once with its value; 1 when its order is not the written one. */
static int check_record(const char *line, unsigned r, int *bad)
{
    unsigned n = rec_members(r), next = 0, count = 0, seen[40] = {0};
    int moved = 0;
    const char *p = line;
    if (*p++ != '{')
        return (*bad)++, 0;
    while (*p == '"') {
        unsigned i;
        unsigned long long v;
        int used = 0;
        if (sscanf(p, "\"k%u\":%llu%n", &i, &v, &used) != 2 || i >= n || seen[i] ||
            v != (unsigned long long)r * 1000003u + i * (i % 3 ? 1u : 1234567u))
            return (*bad)++, 0;
        seen[i] = 1;
        moved |= i != next++;
        count++;
        p += used;
        if (*p == ',')
            p++;
        else
            break;
    }
    if (*p != '}' || p[1] != '\n' || count != n)
        return (*bad)++, 0;
    return moved;
}

static void records_stay_whole_across_flushes(const char *scratch)
{
    /* the first records cross the buffer boundary inside a key, a value, and a comma */
    static const size_t offsets[] = {GEN_OUT_BUF_SIZE - 1000, GEN_OUT_BUF_SIZE - 37, GEN_OUT_BUF_SIZE - 5};
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
        char path[1024], again[1100];
        uint64_t total = 0, total2 = 0, counted = 0;
        snprintf(path, sizeof path, "%s/records%zu.txt", scratch, k);
        snprintf(again, sizeof again, "%s.again", path);
        CHECK(write_records(path, offsets[k], &total) == 0, "cannot write %s", path);
        CHECK(write_records(again, offsets[k], &total2) == 0, "cannot write %s", again);
        CHECK(write_records(NULL, offsets[k], &counted) == 0 && counted == total && total2 == total,
              "byte counts %llu %llu %llu", (unsigned long long)total, (unsigned long long)total2,
              (unsigned long long)counted);
        CHECK(same_file(path, again), "%s: a rerun gave other bytes", path);
        size_t len = 0;
        char *text = slurp_text(path, &len);
        CHECK(text && len == total, "%s: %zu bytes, counted %llu", path, len, (unsigned long long)total);
        if (!text || len != total) {
            free(text);
            continue;
        }
        int bad = 0, moved = 0, filler_ok = 1;
        for (size_t i = 0; i < offsets[k]; i++)
            filler_ok &= text[i] == 'x';
        CHECK(filler_ok, "%s: filler damaged", path);
        const char *p = text + offsets[k];
        unsigned r = 0;
        for (; r < REC_COUNT && *p == '\n'; r++) {
            moved += check_record(p + 1, r, &bad);
            p = strchr(p + 1, '\n');
            if (!p)
                break;
        }
        CHECK(bad == 0 && r == REC_COUNT && p == text + len - 1, "%s: %d damaged records", path, bad);
        CHECK(moved > REC_COUNT / 2, "%s: only %d records reordered", path, moved);
        free(text);
    }
}

static void oversized_record_fails(const char *scratch)
{
    char path[1024], chunk[1024], msg[256];
    gen_out o;
    gen_err err;
    gen_err_init(&err, msg, sizeof msg);
    snprintf(path, sizeof path, "%s/oversized.txt", scratch);
    memset(chunk, 'y', sizeof chunk);
    CHECK(gen_out_open(&o, path, &err) == 0, "cannot open %s", path);
    gen_out_pin(&o);
    for (size_t n = 0; n < GEN_OUT_BUF_SIZE + sizeof chunk; n += sizeof chunk)
        gen_out_mem(&o, chunk, sizeof chunk);
    gen_out_unpin(&o);
    CHECK(gen_out_close(&o, &err) == -1 && strstr(msg, "record"), "oversized record: '%s'", msg);
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
    map_order_is_a_go_map_iteration();
    records_stay_whole_across_flushes(argv[1]);
    oversized_record_fails(argv[1]);
    if (failures)
        fprintf(stderr, "nl-gen-write-check: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
