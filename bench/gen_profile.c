/* gen_profile — nlgen's entry point (gen_profile.h): validates the options, then writes the set one core
 * at a time.
 *
 * Files (formats.md): per core K, profile_nc<K>.json (full JSON export, §4) and summary_nc<K>.json
 * (summary-json, §5.1); for all cores, show_session_trace.txt (show-session --show-trace text, §6),
 * show_session.json (show-session -j) and expected.json (the ground truth, gen_expected.c). With capture,
 * per rank a capture directory (§1.1) with the system profile (§9, gen_system.c) and the exports (the same
 * bytes in every rank, not at the top level); with kineto, per rank a trace.json (§10, gen_kineto.c).
 * Both follow one host timeline per rank (gen_capture.c), built after every core is written because it
 * needs each core's total time.
 *
 * Determinism: the output depends only on the options (not on out_dir, the time, the host or the thread);
 * the same options give byte-identical files. target_bytes replaces instructions_per_layer: two small
 * counting runs of core 0 (nothing written) measure bytes per instruction and the per-layer count is
 * extrapolated so that each profile_nc<K>.json is close to the target. kineto_target_bytes does the same
 * for the host ops per step of rank 0's trace.json (its gaps between executions grow with them).
 *
 * Memory: cores are built, written and freed one at a time, so a run holds one core's arrays (~250 bytes
 * per instruction) plus small per-core summaries; ranks likewise (one rank's timeline and one worker's
 * ntrace records at a time; trace.json is streamed). The run context (plan, core, trace writer: ~40 KiB of
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

#include "gen_capture.h"
#include "gen_expected.h"
#include "gen_export.h"
#include "gen_kineto.h"
#include "gen_memsnap.h"
#include "gen_model.h"
#include "gen_out.h"
#include "gen_system.h"
#include "gen_trace.h"

#define GEN_DEFAULT_SEED 1
#define GEN_DEFAULT_LAYERS 8
#define GEN_DEFAULT_CORES 2
#define GEN_DEFAULT_IPL 1000u
#define GEN_DEMO_IPL 200u
#define GEN_DEFAULT_WARMUP_FACTOR 1.8
#define GEN_DEFAULT_OUTLIER_FACTOR 1.7
#define GEN_CALIBRATE_IPL 2000u
#define GEN_CALIBRATE_OPS 400u
#define GEN_DEFAULT_EXECUTIONS 3
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
    o->ranks = 1;
    o->executions = GEN_DEFAULT_EXECUTIONS;
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
    json_t *cores, *graphs, *ranks;
    gen_core_info info[GEN_MAX_CORES]; /* what the rank timelines need of each core */
    gen_rank_plan rank_plan;
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

/* The export of core nc: at the top level, or (capture) the same bytes in every rank's directory. Its path
 * relative to the output directory (rank 0's with capture) goes to rel. */
static int gen_write_exports(gen_run *r, const gen_core *c, uint64_t *bytes, char *rel, size_t relcap)
{
    char name[160], path[GEN_PATH_MAX];
    int ranks = r->p.capture ? r->p.ranks : 1;
    for (int k = 0; k < ranks; k++) {
        char dir[64] = "";
        if (r->p.capture)
            gen_rank_dir_name(k, r->p.ranks, dir, sizeof dir);
        snprintf(name, sizeof name, "%s%sprofile_nc%d.json", dir, dir[0] ? "/" : "", c->nc);
        if (k == 0)
            snprintf(rel, relcap, "%s", name);
        if (gen_path(r, path, sizeof path, name) != 0 || gen_export_write(c, path, bytes, r->err) != 0)
            return -1;
    }
    return 0;
}

static int gen_one_core(gen_run *r, int nc)
{
    char name[64], path[GEN_PATH_MAX], rel[160];
    if (gen_core_build(&r->p, &r->plan, nc, &r->core) != 0) {
        gen_err_set(r->err, "out of memory while building core %d (%u instructions per layer)", nc, r->p.ipl);
        return -1;
    }
    gen_core *c = &r->core;
    uint64_t bytes = 0;
    r->info[nc] = (gen_core_info){c->st.total_ns, c->st.weight_size};
    int rc = gen_write_exports(r, c, &bytes, rel, sizeof rel);
    snprintf(name, sizeof name, "summary_nc%d.json", nc);
    if (rc == 0)
        rc = gen_path(r, path, sizeof path, name);
    if (rc == 0)
        rc = gen_export_summary_json(c, path, r->err);
    if (rc == 0) {
        gen_trace_core(&r->trace, c);
        /* a NULL (out of memory) fails the append, and gen_expected_write sees a short array */
        json_array_append_new(r->cores, gen_expected_core(c, rel, bytes));
        json_array_append_new(r->graphs, gen_expected_graph(c));
        if (nc == 0) {
            memcpy(r->first_cc_ts, c->cc_ts, c->n_cc * sizeof c->cc_ts[0]);
            r->first_n_cc = c->n_cc;
        }
    }
    gen_core_free(c);
    return rc;
}

/* Bytes of rank 0's trace.json with `ops` host ops per step, without writing anything; 0 on failure. */
static uint64_t gen_measure_kineto(gen_run *r, uint32_t ops)
{
    gen_kin_stats st;
    uint64_t bytes = 0;
    if (gen_rank_plan_build(&r->p, r->info, 0, ops, &r->rank_plan) != 0) {
        gen_err_set(r->err, "out of memory while sizing trace.json");
        return 0;
    }
    if (gen_kineto_write(&r->rank_plan, NULL, &st, r->err) == 0)
        bytes = st.bytes;
    gen_rank_plan_free(&r->rank_plan);
    return bytes;
}

/* kineto_target_bytes → host ops per step, by two counting runs (trace.json grows linearly with them). */
static int gen_calibrate_kineto(gen_run *r)
{
    uint32_t n1 = GEN_CALIBRATE_OPS / 2, n2 = GEN_CALIBRATE_OPS;
    uint64_t s1 = gen_measure_kineto(r, n1), s2 = s1 ? gen_measure_kineto(r, n2) : 0;
    if (!s1 || !s2 || s2 <= s1) {
        gen_err_set(r->err, "cannot size trace.json for kineto_target_bytes");
        return -1;
    }
    double per = (double)(s2 - s1) / (n2 - n1);
    double ops = n1 + ((double)r->p.kineto_target_bytes - (double)s1) / per;
    if (ops < 1)
        ops = 1;
    if (ops > GEN_CAP_MAX_OPS)
        ops = GEN_CAP_MAX_OPS;
    r->p.kineto_ops = (uint32_t)ops;
    return 0;
}

/* One rank's memory snapshot (gen_memsnap.h) and its part of expected.json in *out. */
static int gen_one_memsnap(gen_run *r, int rank, const char *dir, json_t **out)
{
    char rel[160], path[GEN_PATH_MAX];
    snprintf(rel, sizeof rel, "%s%smemory_snapshot_rank%d.pickle", r->p.capture ? dir : "", r->p.capture ? "/" : "",
             rank);
    gen_ms_params mp = {.seed = r->p.seed, .rank = rank, .layout = r->p.memory_layout ? GEN_MS_V2_0 : GEN_MS_CURRENT,
                        .target_bytes = r->p.memory_target_bytes,
                        .devices = r->p.memory_devices ? (uint32_t)r->p.memory_devices : 1, .oom = r->p.memory_oom};
    gen_ms_stats st;
    if (gen_path(r, path, sizeof path, rel) != 0 || gen_memsnap_write(&mp, path, &st, r->err) != 0)
        return -1;
    *out = json_pack("{ss ss sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI}", "file", rel, "layout",
                     gen_ms_layout_name(mp.layout), "bytes", (json_int_t)st.bytes, "segments", (json_int_t)st.segments,
                     "blocks", (json_int_t)st.blocks, "trace_entries", (json_int_t)st.trace_entries, "steps",
                     (json_int_t)st.steps, "allocs", (json_int_t)st.allocs, "frees", (json_int_t)st.frees,
                     "segment_allocs", (json_int_t)st.segment_allocs, "ooms", (json_int_t)st.ooms, "reserved",
                     (json_int_t)st.reserved, "allocated", (json_int_t)st.allocated, "requested",
                     (json_int_t)st.requested, "start_bytes", (json_int_t)st.start_bytes, "peak_bytes",
                     (json_int_t)st.peak_bytes, "peak_row", (json_int_t)st.peak_row, "end_bytes",
                     (json_int_t)st.end_bytes);
    if (*out && st.peak_time_us >= 0)
        json_object_set_new(*out, "peak_time_us", json_integer(st.peak_time_us));
    return 0;
}

/* One rank: its timeline, then its system profile (capture), trace.json (kineto) and memory snapshot, then
 * its part of expected.json. */
static int gen_one_rank(gen_run *r, int rank)
{
    char dir[64], rel[160], path[GEN_PATH_MAX];
    gen_sys_stats sys;
    gen_kin_stats kin;
    gen_rank_plan *pl = &r->rank_plan;
    if (gen_rank_plan_build(&r->p, r->info, rank, r->p.kineto_ops, pl) != 0) {
        gen_err_set(r->err, "out of memory while planning rank %d", rank);
        return -1;
    }
    gen_rank_dir_name(rank, r->p.ranks, dir, sizeof dir);
    int rc = 0;
    if (r->p.capture) {
        rc = gen_path(r, path, sizeof path, dir);
        if (rc == 0)
            rc = gen_system_write(pl, path, &sys, r->err);
    }
    snprintf(rel, sizeof rel, "%s%strace.json", r->p.capture ? dir : "", r->p.capture ? "/" : "");
    if (rc == 0 && r->p.kineto) {
        rc = gen_path(r, path, sizeof path, rel);
        if (rc == 0)
            rc = gen_kineto_write(pl, path, &kin, r->err);
    }
    json_t *mem = NULL;
    if (rc == 0 && r->p.memory_snapshot)
        rc = gen_one_memsnap(r, rank, dir, &mem);
    if (rc == 0) { /* a NULL (out of memory) fails the append, and gen_expected_write sees a short array */
        json_t *ro = gen_expected_rank(pl, r->p.capture ? &sys : NULL, r->p.kineto ? &kin : NULL, rel);
        if (ro && mem)
            json_object_set_new(ro, "memory_snapshot", mem);
        else
            json_decref(mem);
        json_array_append_new(r->ranks, ro);
    } else {
        json_decref(mem);
    }
    gen_rank_plan_free(pl);
    return rc;
}

static int gen_ranks(gen_run *r)
{
    if (!r->p.capture && !r->p.kineto && !r->p.memory_snapshot)
        return 0;
    if (r->p.kineto_target_bytes && gen_calibrate_kineto(r) != 0)
        return -1;
    r->ranks = json_array();
    if (!r->ranks) {
        gen_err_set(r->err, "out of memory");
        return -1;
    }
    for (int k = 0; k < r->p.ranks; k++)
        if (gen_one_rank(r, k) != 0)
            return -1;
    return 0;
}

static int gen_finish(gen_run *r)
{
    char path[GEN_PATH_MAX];
    gen_trace_decoy(&r->trace, &r->p, r->first_cc_ts, r->first_n_cc);
    r->trace_open = 0;
    int rc = gen_out_close(&r->trace, r->err);
    json_t *graphs = r->graphs, *cores = r->cores, *ranks = r->ranks;
    r->graphs = r->cores = r->ranks = NULL;
    /* both writers steal their array, so each array is released exactly once on every path */
    if (gen_path(r, path, sizeof path, "show_session.json") != 0) {
        json_decref(graphs);
        rc = -1;
    } else if (gen_expected_session_write(path, graphs, &r->p, r->err) != 0) {
        rc = -1;
    }
    if (gen_path(r, path, sizeof path, "expected.json") != 0) {
        json_decref(cores);
        json_decref(ranks);
        rc = -1;
    } else if (gen_expected_write(path, &r->p, &r->plan, cores, ranks, r->err) != 0) {
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
    p->capture = o->capture != 0;
    p->ranks = o->ranks;
    p->executions = o->executions;
    p->kineto = o->kineto != 0;
    p->kineto_target_bytes = o->kineto_target_bytes;
    p->kineto_ops = GEN_CAP_DEFAULT_OPS; /* calibrated when kineto_target_bytes is set */
    p->memory_snapshot = o->memory_snapshot != 0;
    p->memory_layout = o->memory_layout;
    p->memory_target_bytes = o->memory_target_bytes;
    p->memory_oom = o->memory_oom != 0;
    p->memory_devices = o->memory_devices;
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
    for (int k = 0; r->p.capture && k < r->p.ranks; k++) {
        char dir[64];
        gen_rank_dir_name(k, r->p.ranks, dir, sizeof dir);
        if (gen_path(r, path, sizeof path, dir) != 0 || gen_mkdirs(path, r->err) != 0)
            return -1;
    }
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
    if (rc == 0)
        rc = gen_ranks(r);
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
    json_decref(r->ranks);
    free(r);
    if (rc != 0 && !err.set)
        gen_err_set(&err, "generation failed");
    return rc != 0 || err.set ? -1 : 0;
}
