/* nl-gen-profile — the command-line front end of nlgen (gen_profile.h): deterministic synthetic AWS Neuron
 * profiles for neuronlens tests, the demo and scale benchmarks. Everything it writes is labelled
 * synthetic; nothing comes from a real device. Like the real exports (written from Go maps), every export
 * record lists its keys in its own seeded order, and the arrays too: readers are slower on that than on one
 * fixed order (neuronlens ~65%), so benchmarks need it (bench/README.md "Key order").
 *
 *   nl-gen-profile --out DIR [--seed N] [--layers N] [--cores N] [--instructions-per-layer N]
 *                  [--target-bytes SIZE] [--warmup-factor F] [--outlier-factor F] [--missing-dge]
 *                  [--no-source] [--demo] [--capture] [--ranks N] [--executions N] [--kineto]
 *                  [--kineto-target-bytes SIZE] [--memory-snapshot] [--memory-layout current|v2_0]
 *                  [--memory-target-bytes SIZE] [--memory-oom] [--memory-devices N] [--quiet]
 *   nl-gen-profile --ntff-out FILE [--ntff-version 5|6] [--ntff-target-bytes SIZE] [--cores N] [--seed N]
 *
 * The second form writes one SYNTHETIC NTFF with a payload (gen_ntff.h) and FILE.expected.json (what a
 * decoder must find per core); the other options do not apply to it.
 *
 * The files and their rules: bench/README.md. This file only parses arguments into a gen_options (the
 * --demo base when given, else the defaults, then the explicit options on top), calls gen_write and, unless
 * --quiet, prints one line per core and a summary read back from DIR/expected.json.
 * Exit status: 0 written, 1 generation failed, 2 bad arguments; messages go to stderr. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen_memsnap.h"
#include "gen_ntff.h"
#include "gen_profile.h"

typedef struct gen_cli {
    gen_options o; /* explicit options only; merged onto the base in gen_parse_args */
    const char *out;
    int have_layers, have_cores, have_ipl, have_warmup, have_outlier, quiet;
    const char *ntff_out;       /* --ntff-out: the NTFF form */
    uint64_t ntff_version, ntff_bytes;
} gen_cli;

static void gen_usage(FILE *f)
{
    fputs("usage: nl-gen-profile --out DIR [--seed N] [--layers N] [--cores N] [--instructions-per-layer N]\n"
          "                      [--target-bytes SIZE] [--warmup-factor F] [--outlier-factor F]\n"
          "                      [--missing-dge] [--no-source] [--demo] [--capture] [--ranks N]\n"
          "                      [--executions N] [--kineto] [--kineto-target-bytes SIZE] [--memory-snapshot]\n"
          "                      [--memory-layout current|v2_0] [--memory-target-bytes SIZE] [--memory-oom]\n"
          "                      [--memory-devices N] [--quiet]\n"
          "Writes a deterministic SYNTHETIC Neuron profile set (full JSON export and summary-json per core,\n"
          "show-session trace text and -j JSON, expected.json ground truth) into DIR.\n"
          "  defaults             seed 1, 8 layers, 2 cores, 1000 instructions per layer\n"
          "  --target-bytes SIZE  size each profile_nc<K>.json to about SIZE (K, M, G = powers of 1024)\n"
          "  --warmup-factor F    layer 0 latency / base latency (1.0..10.0, default 1.8)\n"
          "  --outlier-factor F   one random layer of 1..L-1 / base latency (1.0..10.0, default 1.7)\n"
          "  --missing-dge        drop DGE metadata (unknown variables, no aggregated records) and warn\n"
          "  --no-source          no nki_source_location on any instruction\n"
          "  --demo               the demo profile of `neuronlens demo` (200 instructions per layer)\n"
          "  --capture            a system-profile capture directory per rank, i-0synthetic<R>_pid_<pid>/:\n"
          "                       trace_info.pb, ntrace.pb, cpu_util.pb, host_mem.pb and the exports\n"
          "  --ranks N            capture directories (1..256, default 1; above 1 needs --capture)\n"
          "  --executions N       executions per rank, the first a warm-up (1..1000, default 3)\n"
          "  --kineto             a PyTorch profiler trace.json per rank (top level without --capture)\n"
          "  --kineto-target-bytes SIZE  size each trace.json to about SIZE (implies --kineto)\n"
          "  --memory-snapshot    a PyTorch allocator snapshot memory_snapshot_rank<R>.pickle per rank\n"
          "  --memory-layout L    current (PyTorch >= 2.1, default) or v2_0 (implies --memory-snapshot)\n"
          "  --memory-target-bytes SIZE  size each snapshot to about SIZE (implies --memory-snapshot)\n"
          "  --memory-oom         end each snapshot's trace with a failed 16 GiB allocation\n"
          "  --memory-devices N   device_traces lists (1..64, default 1); the last one trains\n"
          "   or: nl-gen-profile --ntff-out FILE [--ntff-version 5|6] [--ntff-target-bytes SIZE] [--cores N]\n"
          "                      [--seed N] [--quiet]\n"
          "Writes one SYNTHETIC NTFF with a payload in the documented layout (v5: inf2-like, v6: trn2-like;\n"
          "default v5, 64M, 1 core) and FILE.expected.json.\n",
          f);
}

static int gen_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v > max)
        return -1;
    *out = v;
    return 0;
}

static int gen_parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0) || !isfinite(v))
        return -1;
    double mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1024.0;
    else if (*end == 'M' || *end == 'm')
        mul = 1024.0 * 1024;
    else if (*end == 'G' || *end == 'g')
        mul = 1024.0 * 1024 * 1024;
    else if (*end)
        return -1;
    if (*end && end[1] && !(end[1] == 'B' && !end[2]) && !(end[1] == 'i' && end[2] == 'B' && !end[3]))
        return -1;
    if (v * mul >= 18446744073709551616.0)
        return -1;
    *out = (uint64_t)(v * mul);
    return 0;
}

static int gen_parse_factor(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int gen_opt_value(int argc, char **argv, int *i, const char **val)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "nl-gen-profile: %s needs a value\n", argv[*i]);
        return -1;
    }
    *val = argv[++*i];
    return 0;
}

static int gen_bad_value(const char *opt, const char *val)
{
    fprintf(stderr, "nl-gen-profile: bad value for %s: '%s'\n", opt, val);
    return -1;
}

/* Options that take a number; 0 ok, -1 error, 1 not one of them. */
static int gen_parse_valued(gen_cli *cli, const char *a, const char *v)
{
    uint64_t n = 0;
    if (!strcmp(a, "--target-bytes"))
        return gen_parse_size(v, &cli->o.target_bytes) == 0 ? 0 : gen_bad_value(a, v);
    if (!strcmp(a, "--kineto-target-bytes"))
        return gen_parse_size(v, &cli->o.kineto_target_bytes) == 0 ? (cli->o.kineto = 1, 0) : gen_bad_value(a, v);
    if (!strcmp(a, "--memory-target-bytes"))
        return gen_parse_size(v, &cli->o.memory_target_bytes) == 0 ? (cli->o.memory_snapshot = 1, 0)
                                                                   : gen_bad_value(a, v);
    if (!strcmp(a, "--memory-devices"))
        return gen_parse_u64(v, GEN_MS_MAX_DEVICES, &n) == 0 && n >= 1
                   ? (cli->o.memory_devices = (int)n, cli->o.memory_snapshot = 1, 0)
                   : gen_bad_value(a, v);
    if (!strcmp(a, "--memory-layout")) {
        if (strcmp(v, "current") && strcmp(v, "v2_0"))
            return gen_bad_value(a, v);
        cli->o.memory_layout = !strcmp(v, "v2_0");
        cli->o.memory_snapshot = 1;
        return 0;
    }
    if (!strcmp(a, "--ranks"))
        return gen_parse_u64(v, GEN_MAX_RANKS, &n) == 0 ? (cli->o.ranks = (int)n, 0) : gen_bad_value(a, v);
    if (!strcmp(a, "--executions"))
        return gen_parse_u64(v, GEN_MAX_EXECUTIONS, &n) == 0 ? (cli->o.executions = (int)n, 0) : gen_bad_value(a, v);
    if (!strcmp(a, "--warmup-factor"))
        return gen_parse_factor(v, &cli->o.warmup_factor) == 0 ? (cli->have_warmup = 1, 0) : gen_bad_value(a, v);
    if (!strcmp(a, "--outlier-factor"))
        return gen_parse_factor(v, &cli->o.outlier_factor) == 0 ? (cli->have_outlier = 1, 0) : gen_bad_value(a, v);
    if (!strcmp(a, "--seed"))
        return gen_parse_u64(v, INT64_MAX, &cli->o.seed) == 0 ? 0 : gen_bad_value(a, v);
    if (!strcmp(a, "--layers"))
        return gen_parse_u64(v, GEN_MAX_LAYERS, &n) == 0 ? (cli->o.layers = (int)n, cli->have_layers = 1, 0)
                                                         : gen_bad_value(a, v);
    if (!strcmp(a, "--cores"))
        return gen_parse_u64(v, GEN_MAX_CORES, &n) == 0 ? (cli->o.cores = (int)n, cli->have_cores = 1, 0)
                                                        : gen_bad_value(a, v);
    if (!strcmp(a, "--ntff-version"))
        return gen_parse_u64(v, 6, &cli->ntff_version) == 0 && cli->ntff_version >= 5 ? 0 : gen_bad_value(a, v);
    if (!strcmp(a, "--ntff-target-bytes"))
        return gen_parse_size(v, &cli->ntff_bytes) == 0 ? 0 : gen_bad_value(a, v);
    if (!strcmp(a, "--instructions-per-layer"))
        return gen_parse_u64(v, GEN_MAX_IPL, &n) == 0
                   ? (cli->o.instructions_per_layer = (uint32_t)n, cli->have_ipl = 1, 0)
                   : gen_bad_value(a, v);
    return 1;
}

/* One option at argv[*i]; 0 ok, 1 help printed, -1 error. */
static int gen_parse_opt(gen_cli *cli, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
        return gen_usage(stdout), 1;
    if (!strcmp(a, "--missing-dge"))
        return cli->o.missing_dge = 1, 0;
    if (!strcmp(a, "--no-source"))
        return cli->o.no_source = 1, 0;
    if (!strcmp(a, "--demo"))
        return cli->o.demo = 1, 0;
    if (!strcmp(a, "--quiet"))
        return cli->quiet = 1, 0;
    if (!strcmp(a, "--capture"))
        return cli->o.capture = 1, 0;
    if (!strcmp(a, "--kineto"))
        return cli->o.kineto = 1, 0;
    if (!strcmp(a, "--memory-snapshot"))
        return cli->o.memory_snapshot = 1, 0;
    if (!strcmp(a, "--memory-oom"))
        return cli->o.memory_oom = cli->o.memory_snapshot = 1, 0;
    static const char *const valued[] = {"--out", "--target-bytes", "--warmup-factor", "--outlier-factor", "--seed",
                                         "--layers", "--cores", "--instructions-per-layer", "--ranks",
                                         "--executions", "--kineto-target-bytes", "--memory-target-bytes",
                                         "--memory-devices", "--memory-layout", "--ntff-out", "--ntff-version",
                                         "--ntff-target-bytes"};
    size_t k = 0;
    while (k < sizeof valued / sizeof valued[0] && strcmp(a, valued[k]))
        k++;
    if (k == sizeof valued / sizeof valued[0]) {
        fprintf(stderr, "nl-gen-profile: unknown option '%s'\n", a);
        return -1;
    }
    if (gen_opt_value(argc, argv, i, &v) != 0)
        return -1;
    if (!strcmp(a, "--out"))
        return cli->out = v, 0;
    if (!strcmp(a, "--ntff-out"))
        return cli->ntff_out = v, 0;
    return gen_parse_valued(cli, a, v);
}

/* Merge the explicit options onto the base (--demo or the defaults) into *o. */
static void gen_merge(const gen_cli *cli, gen_options *o)
{
    const gen_options *x = &cli->o;
    if (x->demo)
        gen_options_demo(o);
    else
        gen_options_default(o);
    o->seed = x->seed;
    o->target_bytes = x->target_bytes;
    o->missing_dge = x->missing_dge;
    o->no_source = x->no_source;
    o->capture = x->capture;
    o->ranks = x->ranks;
    o->executions = x->executions;
    o->kineto = x->kineto;
    o->kineto_target_bytes = x->kineto_target_bytes;
    o->memory_snapshot = x->memory_snapshot;
    o->memory_layout = x->memory_layout;
    o->memory_target_bytes = x->memory_target_bytes;
    o->memory_oom = x->memory_oom;
    o->memory_devices = x->memory_devices;
    if (cli->have_layers)
        o->layers = x->layers;
    if (cli->have_cores)
        o->cores = x->cores;
    if (cli->have_ipl)
        o->instructions_per_layer = x->instructions_per_layer;
    if (cli->have_warmup)
        o->warmup_factor = x->warmup_factor;
    if (cli->have_outlier)
        o->outlier_factor = x->outlier_factor;
}

static int gen_parse_args(gen_cli *cli, int argc, char **argv, gen_options *o)
{
    char msg[256];
    memset(cli, 0, sizeof *cli);
    gen_options_default(&cli->o); /* for the seed default */
    for (int i = 1; i < argc; i++) {
        int rc = gen_parse_opt(cli, argc, argv, &i);
        if (rc != 0)
            return rc;
    }
    if (cli->ntff_out)
        return 0;
    if (!cli->out) {
        gen_usage(stderr);
        return -1;
    }
    gen_merge(cli, o);
    if (gen_options_check(o, msg, sizeof msg) != 0) {
        fprintf(stderr, "nl-gen-profile: %s\n", msg);
        return -1;
    }
    return 0;
}

/* The per-core lines and the summary, from DIR/expected.json (the library itself prints nothing). */
static void gen_report(const char *out, double secs)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/expected.json", out);
    json_t *exp = json_load_file(path, 0, NULL);
    if (!exp) {
        printf("nl-gen-profile: SYNTHETIC profile set in %s in %.2f s\n", out, secs);
        return;
    }
    json_t *cores = json_object_get(exp, "cores"), *c;
    size_t i;
    json_array_foreach(cores, i, c) {
        printf("nl-gen-profile: %s/%s: %lld bytes, %lld instructions, %lld DMA records\n", out,
               json_string_value(json_object_get(c, "export")),
               (long long)json_integer_value(json_object_get(c, "export_bytes")),
               (long long)json_integer_value(json_object_get(json_object_get(c, "instructions"), "count")),
               (long long)json_integer_value(json_object_get(json_object_get(c, "dma"), "records")));
    }
    json_t *p = json_object_get(exp, "params"), *l = json_object_get(exp, "layers");
    char outlier[96] = "no outlier layer";
    if (json_is_integer(json_object_get(l, "outlier_layer")))
        snprintf(outlier, sizeof outlier, "outlier layer %lld at %.3g x median",
                 (long long)json_integer_value(json_object_get(l, "outlier_layer")),
                 json_number_value(json_object_get(l, "outlier_ratio_to_median")));
    printf("nl-gen-profile: SYNTHETIC profile set in %s (seed %lld, %lld layers, %lld cores, %lld instructions per "
           "layer; %s) in %.2f s\n",
           out, (long long)json_integer_value(json_object_get(exp, "seed")),
           (long long)json_integer_value(json_object_get(p, "layers")),
           (long long)json_integer_value(json_object_get(p, "cores")),
           (long long)json_integer_value(json_object_get(p, "instructions_per_layer")), outlier, secs);
    json_t *ranks = json_object_get(exp, "ranks"), *r0 = json_array_get(ranks, 0);
    if (r0) {
        json_t *tl = json_object_get(r0, "timeline"), *kin = json_object_get(r0, "kineto");
        printf("nl-gen-profile: %zu rank(s)%s, %lld executions each; rank 0: device busy %lld ns, gaps %lld ns in all",
               json_array_size(ranks), json_is_string(json_object_get(r0, "dir")) ? " in capture directories" : "",
               (long long)json_integer_value(json_object_get(p, "executions")),
               (long long)json_integer_value(json_object_get(tl, "device_busy_ns")),
               (long long)json_integer_value(json_object_get(tl, "gap_total_ns")));
        if (kin)
            printf(", trace.json %lld bytes (%lld events)",
                   (long long)json_integer_value(json_object_get(kin, "bytes")),
                   (long long)json_integer_value(json_object_get(kin, "events")));
        json_t *mem = json_object_get(r0, "memory_snapshot");
        if (mem)
            printf(", %s %lld bytes (%lld trace entries, peak %lld B)",
                   json_string_value(json_object_get(mem, "file")),
                   (long long)json_integer_value(json_object_get(mem, "bytes")),
                   (long long)json_integer_value(json_object_get(mem, "trace_entries")),
                   (long long)json_integer_value(json_object_get(mem, "peak_bytes")));
        putchar('\n');
    }
    json_decref(exp);
}

/* The NTFF form: the file, then FILE.expected.json. */
static int gen_ntff_main(const gen_cli *cli)
{
    gen_ntff_options o = {.seed = cli->o.seed, .version = cli->ntff_version ? (int)cli->ntff_version : 5,
                          .cores = cli->have_cores ? cli->o.cores : 1,
                          .target_bytes = cli->ntff_bytes ? cli->ntff_bytes : (uint64_t)64 << 20};
    gen_ntff_expected x;
    char msg[512];
    if (gen_ntff_write(&o, cli->ntff_out, &x, msg, sizeof msg) != 0) {
        fprintf(stderr, "nl-gen-profile: %s\n", msg);
        return 1;
    }
    json_t *cores = json_array();
    for (int c = 0; c < x.cores; c++) {
        const gen_ntff_core_expected *k = &x.core[c];
        json_t *vis = json_object();
        static const char *const names[6] = {"", "Tensor", "Scalar", "GpSimd", "Vector", "Sync"};
        for (int e = 1; e <= 5; e++)
            json_object_set_new(vis, names[e], json_integer((json_int_t)k->visible[e]));
        json_array_append_new(cores, json_pack("{ss so sI sI sI sI sI sI ss}", "name", k->name, "visible", vis,
                                               "instr_records", (json_int_t)k->instr_records, "dma_records",
                                               (json_int_t)k->dma_records, "sem_records", (json_int_t)k->sem_records,
                                               "kind5_records", (json_int_t)k->kind5_records, "dma_visible",
                                               (json_int_t)k->dma_visible, "dma_before_origin",
                                               (json_int_t)k->dma_before_origin, "origin_rule", k->origin_rule));
    }
    json_t *root = json_pack("{ss sI si sI sI sI so}", "synthetic", "nl-gen-profile --ntff-out", "seed",
                             (json_int_t)o.seed, "version", o.version, "file_bytes", (json_int_t)x.file_bytes,
                             "payload_bytes", (json_int_t)x.payload_bytes, "metadata_bytes",
                             (json_int_t)x.metadata_bytes, "cores", cores);
    char path[4096];
    snprintf(path, sizeof path, "%s.expected.json", cli->ntff_out);
    int rc = json_dump_file(root, path, JSON_INDENT(1));
    json_decref(root);
    if (rc != 0) {
        fprintf(stderr, "nl-gen-profile: cannot write %s\n", path);
        return 1;
    }
    if (!cli->quiet)
        printf("nl-gen-profile: SYNTHETIC NTFF v%d %s: %llu bytes, %d core(s)\n", o.version, cli->ntff_out,
               (unsigned long long)x.file_bytes, x.cores);
    return 0;
}

int main(int argc, char **argv)
{
    gen_cli cli;
    gen_options o;
    char msg[512];
    int rc = gen_parse_args(&cli, argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (cli.ntff_out)
        return gen_ntff_main(&cli);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (gen_write(&o, cli.out, msg, sizeof msg) != 0) {
        fprintf(stderr, "nl-gen-profile: %s\n", msg);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!cli.quiet)
        gen_report(cli.out, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    return 0;
}
