/* gen_profile — nlgen's entry point (gen_profile.h): validates the options, then writes the set one core
 * at a time.
 *
 * Files (formats.md): per core K, profile_nc<K>.json (full JSON export, §4) and summary_nc<K>.json
 * (summary-json, §5.1); for all cores, show_session_trace.txt (show-session --show-trace text, §6),
 * show_session.json (show-session -j) and expected.json (the ground truth, gen_expected.c).
 *
 * Determinism: the output depends only on the options (not on out_dir, the time, the host or the thread);
 * the same options give byte-identical files. target_bytes replaces instructions_per_layer: two small
 * counting runs of core 0 (nothing written) measure bytes per instruction and the per-layer count is
 * extrapolated so that each profile_nc<K>.json is close to the target.
 *
 * Memory: cores are built, written and freed one at a time, so a run holds one core's arrays (~250 bytes
 * per instruction) plus small per-core summaries. The run context (plan, core, trace writer: ~40 KiB of
 * fixed arrays) lives on the heap, so callers on small worker-thread stacks are fine.
 *
 * Thread safety: all state is in the gen_run of one call; the library has no mutable statics and uses
 * only reentrant libc calls (strerror_r, no strtok/strerror/rand/setlocale). */
#include "gen_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen_expected.h"
#include "gen_export.h"
#include "gen_model.h"
#include "gen_out.h"
#include "gen_trace.h"

#define GEN_DEFAULT_SEED 1
#define GEN_DEFAULT_LAYERS 8
#define GEN_DEFAULT_CORES 2
#define GEN_DEFAULT_IPL 1000u
#define GEN_DEMO_IPL 200u
#define GEN_DEFAULT_WARMUP_FACTOR 1.8
#define GEN_DEFAULT_OUTLIER_FACTOR 1.7
#define GEN_CALIBRATE_IPL 2000u
#define GEN_PATH_MAX 4096

void gen_options_default(gen_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = GEN_DEFAULT_SEED;
    o->layers = GEN_DEFAULT_LAYERS;
    o->cores = GEN_DEFAULT_CORES;
    o->instructions_per_layer = GEN_DEFAULT_IPL;
    o->warmup_factor = GEN_DEFAULT_WARMUP_FACTOR;
    o->outlier_factor = GEN_DEFAULT_OUTLIER_FACTOR;
}

void gen_options_demo(gen_options *o)
{
    gen_options_default(o);
    o->instructions_per_layer = GEN_DEMO_IPL;
    o->demo = 1;
}

typedef struct gen_run {
    gen_params p;
    gen_plan plan;
    gen_core core;
    gen_out trace;
    int trace_open;
    json_t *cores, *graphs;
    int64_t first_cc_ts[2 * GEN_MAX_LAYERS + 2];
    unsigned first_n_cc;
    const char *dir;
    gen_err *err;
} gen_run;

/* Export size of core 0 with `ipl` instructions per layer, without writing anything; 0 on failure. */
static uint64_t gen_measure(gen_run *r, uint32_t ipl)
{
    gen_params p = r->p;
    p.ipl = ipl;
    gen_plan_make(&p, &r->plan);
    if (gen_core_build(&p, &r->plan, 0, &r->core) != 0) {
        gen_err_set(r->err, "out of memory while sizing the export");
        return 0;
    }
    uint64_t bytes = 0;
    if (gen_export_write(&r->core, NULL, &bytes, r->err) != 0)
        bytes = 0;
    gen_core_free(&r->core);
    return bytes;
}

static int gen_calibrate(gen_run *r)
{
    uint32_t n1 = GEN_CALIBRATE_IPL / 2, n2 = GEN_CALIBRATE_IPL;
    uint64_t s1 = gen_measure(r, n1), s2 = s1 ? gen_measure(r, n2) : 0;
    if (!s1 || !s2 || s2 <= s1) {
        gen_err_set(r->err, "cannot size the export for target_bytes");
        return -1;
    }
    double per = (double)(s2 - s1) / (n2 - n1);
    double ipl = n1 + ((double)r->p.target_bytes - (double)s1) / per;
    if (ipl < GEN_MIN_IPL)
        ipl = GEN_MIN_IPL;
    if (ipl > GEN_MAX_IPL)
        ipl = GEN_MAX_IPL;
    r->p.ipl = (uint32_t)ipl;
    return 0;
}

/* mkdir -p: create dir and its missing parents; an existing directory is fine. */
static int gen_mkdirs(const char *dir, gen_err *err)
{
    char path[GEN_PATH_MAX], tmp[128];
    struct stat sb;
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) {
        gen_err_set(err, "output directory name is %s", n ? "too long" : "empty");
        return -1;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char c = path[i];
        path[i] = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            gen_err_set(err, "cannot create %s: %s", path, gen_err_errno(errno, tmp, sizeof tmp));
            return -1;
        }
        path[i] = c;
    }
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        gen_err_set(err, "%s is not a directory", dir);
        return -1;
    }
    return 0;
}

/* dir/<name>; -1 (message set) when it does not fit. */
static int gen_path(gen_run *r, char *dst, size_t cap, const char *name)
{
    int n = snprintf(dst, cap, "%s/%s", r->dir, name);
    if (n < 0 || (size_t)n >= cap) {
        gen_err_set(r->err, "output path too long: %s/%s", r->dir, name);
        return -1;
    }
    return 0;
}

static int gen_one_core(gen_run *r, int nc)
{
    char name[64], path[GEN_PATH_MAX];
    if (gen_core_build(&r->p, &r->plan, nc, &r->core) != 0) {
        gen_err_set(r->err, "out of memory while building core %d (%u instructions per layer)", nc, r->p.ipl);
        return -1;
    }
    gen_core *c = &r->core;
    uint64_t bytes = 0;
    snprintf(name, sizeof name, "profile_nc%d.json", nc);
    int rc = gen_path(r, path, sizeof path, name);
    if (rc == 0)
        rc = gen_export_write(c, path, &bytes, r->err);
    snprintf(name, sizeof name, "summary_nc%d.json", nc);
    if (rc == 0)
        rc = gen_path(r, path, sizeof path, name);
    if (rc == 0)
        rc = gen_export_summary_json(c, path, r->err);
    if (rc == 0) {
        gen_trace_core(&r->trace, c);
        /* a NULL (out of memory) fails the append, and gen_expected_write sees a short array */
        json_array_append_new(r->cores, gen_expected_core(c, bytes));
        json_array_append_new(r->graphs, gen_expected_graph(c));
        if (nc == 0) {
            memcpy(r->first_cc_ts, c->cc_ts, c->n_cc * sizeof c->cc_ts[0]);
            r->first_n_cc = c->n_cc;
        }
    }
    gen_core_free(c);
    return rc;
}

static int gen_finish(gen_run *r)
{
    char path[GEN_PATH_MAX];
    gen_trace_decoy(&r->trace, &r->p, r->first_cc_ts, r->first_n_cc);
    r->trace_open = 0;
    int rc = gen_out_close(&r->trace, r->err);
    json_t *graphs = r->graphs, *cores = r->cores;
    r->graphs = r->cores = NULL;
    /* both writers steal their array, so each array is released exactly once on every path */
    if (gen_path(r, path, sizeof path, "show_session.json") != 0) {
        json_decref(graphs);
        rc = -1;
    } else if (gen_expected_session_write(path, graphs, &r->p, r->err) != 0) {
        rc = -1;
    }
    if (gen_path(r, path, sizeof path, "expected.json") != 0) {
        json_decref(cores);
        rc = -1;
    } else if (gen_expected_write(path, &r->p, &r->plan, cores, r->err) != 0) {
        rc = -1;
    }
    return rc;
}

static void gen_params_from(gen_params *p, const gen_options *o)
{
    memset(p, 0, sizeof *p);
    p->seed = o->seed;
    p->layers = o->layers;
    p->cores = o->cores;
    p->ipl = o->target_bytes ? GEN_MIN_IPL : o->instructions_per_layer; /* calibrated below */
    p->missing_dge = o->missing_dge != 0;
    p->no_source = o->no_source != 0;
    p->demo = o->demo != 0;
    p->target_bytes = o->target_bytes;
    p->warmup_factor = o->warmup_factor;
    p->outlier_factor = o->outlier_factor;
}

int gen_options_check(const gen_options *o, char *errbuf, size_t errcap)
{
    gen_err err;
    gen_params p;
    gen_err_init(&err, errbuf, errcap);
    if (!o) {
        gen_err_set(&err, "options are NULL");
        return -1;
    }
    gen_params_from(&p, o);
    return gen_params_check(&p, &err);
}

static int gen_run_all(gen_run *r)
{
    char path[GEN_PATH_MAX];
    if (gen_params_check(&r->p, r->err) != 0)
        return -1;
    if (r->p.target_bytes && gen_calibrate(r) != 0)
        return -1;
    if (gen_mkdirs(r->dir, r->err) != 0)
        return -1;
    gen_plan_make(&r->p, &r->plan);
    if (gen_path(r, path, sizeof path, "show_session_trace.txt") != 0 ||
        gen_out_open(&r->trace, path, r->err) != 0)
        return -1;
    r->trace_open = 1;
    gen_trace_header(&r->trace, &r->p);
    r->cores = json_array();
    r->graphs = json_array();
    int rc = 0;
    if (!r->cores || !r->graphs) {
        gen_err_set(r->err, "out of memory");
        rc = -1;
    }
    for (int nc = 0; nc < r->p.cores && rc == 0; nc++)
        rc = gen_one_core(r, nc);
    if (rc != 0)
        return -1;
    return gen_finish(r);
}

int gen_write(const gen_options *o, const char *out_dir, char *errbuf, size_t errcap)
{
    gen_err err;
    gen_err_init(&err, errbuf, errcap);
    if (!o || !out_dir) {
        gen_err_set(&err, "gen_write: %s is NULL", o ? "out_dir" : "options");
        return -1;
    }
    gen_run *r = calloc(1, sizeof *r);
    if (!r) {
        gen_err_set(&err, "out of memory");
        return -1;
    }
    gen_params_from(&r->p, o);
    r->dir = out_dir;
    r->err = &err;
    int rc = gen_run_all(r);
    if (r->trace_open && gen_out_close(&r->trace, &err) != 0)
        rc = -1;
    json_decref(r->cores);
    json_decref(r->graphs);
    free(r);
    if (rc != 0 && !err.set)
        gen_err_set(&err, "generation failed");
    return rc != 0 || err.set ? -1 : 0;
}
