/* gen_profile — the public entry point of nlgen, the deterministic SYNTHETIC Neuron profile generator
 * (bench/README.md): `nl-gen-profile` is a thin CLI over it, and `neuronlens demo` calls it in-process to
 * write the demo profile.
 *
 * Key order: like the real exports (serialized from Go maps: every record's keys, and the top-level arrays,
 * in their own order), each export record's keys and the arrays are written in a seeded Go-map iteration
 * order, because readers run measurably slower on that than on one fixed order (neuronlens: ~65%), and
 * benchmarks on fixed-order data overstated real-world speed. Same options → same bytes still holds
 * (gen_export_order.c, bench/README.md "Key order").
 *
 * Owns: nothing between calls; gen_write allocates, writes and frees everything within the call.
 * Threads: no global mutable state; any thread may call gen_write, and concurrent calls are safe as long
 *   as they write to different directories. It never prints (stdout is the MCP channel in the server),
 *   never exits or aborts, and installs no signal handlers.
 * Errors: gen_write returns 0, or -1 with a one-line message in errbuf (files written before the failure
 *   stay). Out-of-memory is an error like any other. */
#ifndef NL_GEN_PROFILE_H
#define NL_GEN_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* Limits checked by gen_write. */
#define GEN_MAX_LAYERS 512
#define GEN_MAX_CORES 64
#define GEN_MIN_IPL 50u
#define GEN_MAX_IPL 50000000u
#define GEN_MIN_FACTOR 1.0 /* warm-up and outlier factors, × the base layer latency */
#define GEN_MAX_FACTOR 10.0
#define GEN_MAX_RANKS 256      /* capture directories (ranks) */
#define GEN_MAX_EXECUTIONS 1000 /* executions (= Kineto steps) per rank */
#define GEN_MAX_KINETO_BYTES ((uint64_t)64 << 30)

typedef struct gen_options {
    uint64_t seed;                   /* any value <= INT64_MAX; same options → byte-identical files */
    int layers;                      /* decoder layers, 1..GEN_MAX_LAYERS */
    int cores;                       /* NeuronCores, one export each, 1..GEN_MAX_CORES */
    uint32_t instructions_per_layer; /* per layer and core, GEN_MIN_IPL..GEN_MAX_IPL; ignored when
                                        target_bytes != 0 */
    uint64_t target_bytes;           /* 0, or size each profile_nc<K>.json to about this many bytes */
    double warmup_factor;            /* layer 0 latency / base latency (default 1.8) */
    double outlier_factor;           /* latency of one random layer in 1..L-1 / base (default 1.7; only
                                        when layers >= 3) */
    int missing_dge;                 /* nonzero: drop DGE metadata and add the "Missing Data" warning */
    int no_source;                   /* nonzero: no nki_source_location anywhere */
    int demo;                        /* nonzero: recorded as params.demo in expected.json, nothing else */
    /* System profile and framework trace (bench/README.md "Capture and Kineto"); all off by default. */
    int capture;                     /* nonzero: one capture directory per rank, i-0synthetic<R>_pid_<pid>/,
                                        with trace_info.pb, ntrace.pb, cpu_util.pb, host_mem.pb and the
                                        device exports (which then are not written at the top level) */
    int ranks;                       /* 1..GEN_MAX_RANKS (default 1); more than 1 needs capture */
    int executions;                  /* executions per rank, 1..GEN_MAX_EXECUTIONS (default 3; the first is
                                        the warm-up) */
    int kineto;                      /* nonzero: trace.json per rank (in its capture directory, or at the top
                                        level without capture) */
    uint64_t kineto_target_bytes;    /* 0, or size each trace.json to about this many bytes (needs kineto;
                                        at most GEN_MAX_KINETO_BYTES) */
    /* PyTorch caching-allocator snapshots (gen_memsnap.h); off by default. */
    int memory_snapshot;             /* nonzero: memory_snapshot_rank<R>.pickle per rank (in its capture
                                        directory, or at the top level without capture) */
    int memory_layout;               /* 0: the current layout (PyTorch >= 2.1); 1: the PyTorch 2.0 layout */
    uint64_t memory_target_bytes;    /* 0, or size each snapshot to about this many bytes (needs
                                        memory_snapshot; at most GEN_MS_MAX_BYTES) */
    int memory_oom;                  /* nonzero: each snapshot's trace ends with a failed allocation */
    int memory_devices;              /* device_traces lists, 1..GEN_MS_MAX_DEVICES (0 = 1); the last trains */
} gen_options;

/* The defaults of `nl-gen-profile`: seed 1, 8 layers, 2 cores, 1000 instructions per layer, factors 1.8
 * (warm-up) and 1.7 (outlier), so the outlier is > 1.5 × the median of all layers; no capture, 1 rank,
 * 3 executions, no Kineto trace. */
void gen_options_default(gen_options *o);
/* The demo profile of `neuronlens demo`: the defaults with 200 instructions per layer (about 1,700
 * instructions per core, ~5 MB in all) and demo set. */
void gen_options_demo(gen_options *o);

/* Check the options against the limits above: 0, or -1 with a message in errbuf (as gen_write). gen_write
 * runs the same check first. */
int gen_options_check(const gen_options *o, char *errbuf, size_t errcap) __attribute__((warn_unused_result));

/* Write the profile set into out_dir (created, with missing parents, if needed; existing files of the
 * same names are replaced): profile_nc<K>.json and summary_nc<K>.json per core, show_session_trace.txt,
 * show_session.json and expected.json; with capture, the capture directories (holding the exports
 * instead of out_dir); with kineto, the trace.json files. 0, or -1 with a message in errbuf (errbuf may be NULL or errcap 0
 * when the caller wants no message; the message is NUL-terminated and truncated to errcap). */
int gen_write(const gen_options *o, const char *out_dir, char *errbuf, size_t errcap)
    __attribute__((warn_unused_result));

#endif
