/* gen_memsnap — writes one rank's synthetic PyTorch caching-allocator snapshot (memory_snapshot_rank<R>.pickle,
 * the torch.cuda.memory._snapshot() dict that torch_neuronx's NeuronProfiler.export_snapshot writes), in
 * either layout, pickled the way Python's pickle (protocol 4) writes it: 64 KiB FRAMEs, every str, dict,
 * list and tuple memoized, repeats read back from the memo (the keys, and — current layout — each frame
 * dict and each stack list, as PyTorch's symbolizer shares them), batches of 1000 items.
 *
 * What it holds: a training loop (forward activations and temporaries per layer, backward gradients, an
 * Adam step) on the last device, through a simplified caching allocator (sizes rounded to 512 B; a small
 * pool of 2 MiB segments for ≤ 1 MiB, a large pool of 20 MiB segments or exact 2 MiB-rounded ones; best
 * fit, split, merge on free). The history window starts inside step 1, so some frees belong to earlier
 * allocations and the parameters are blocks from before the window. With oom, the last step stops in its
 * forward pass on a failed 16 GiB request and the snapshot shows the activations then held. Other devices
 * are idle (empty trace lists, no segments). Deterministic: (seed, rank, layout, size) → the same bytes.
 *
 * Owns: nothing between calls. Threads: any; one call per file at a time.
 * Errors: -1 with the first failure in `err` (the file cannot be written, out of memory); nothing printed. */
#ifndef NL_GEN_MEMSNAP_H
#define NL_GEN_MEMSNAP_H

#include <stdint.h>

#include "gen_err.h"

#define GEN_MS_MAX_BYTES ((uint64_t)64 << 30)
#define GEN_MS_MAX_DEVICES 64u
#define GEN_MS_DEFAULT_STEPS 3u

typedef enum gen_ms_layout {
    GEN_MS_CURRENT, /* PyTorch ≥ 2.1: block addresses and frames, time_us, compile_context, settings */
    GEN_MS_V2_0,    /* PyTorch 2.0: block history (addr, real_size, frames), no time_us, no sharing of frames */
} gen_ms_layout;

typedef struct gen_ms_params {
    uint64_t seed;
    int rank;
    gen_ms_layout layout;
    uint64_t target_bytes; /* 0: GEN_MS_DEFAULT_STEPS steps; else about this many bytes */
    uint32_t devices;      /* len(device_traces), 1..GEN_MS_MAX_DEVICES; the last one trains */
    int oom;               /* end with a failed allocation */
} gen_ms_params;

/* What was written, for expected.json: counts, and the replayed timeline of requested bytes (what
 * memory_summary.h defines) as the generator knows it, with the row of its first maximum in the device's
 * trace (-1: at the window's start). */
typedef struct gen_ms_stats {
    uint64_t bytes, segments, blocks, trace_entries, steps;
    uint64_t allocs, frees, segment_allocs, ooms;
    int64_t reserved, allocated, requested; /* at snapshot time: segments' total, active blocks' sizes, requests */
    int64_t start_bytes, peak_bytes, end_bytes;
    int64_t peak_row;
    int64_t peak_time_us; /* -1 without time (2.0 layout) or at the start */
} gen_ms_stats;

/* Write the snapshot to path (NULL: only count bytes into st->bytes). */
int gen_memsnap_write(const gen_ms_params *p, const char *path, gen_ms_stats *st, gen_err *err)
    __attribute__((warn_unused_result));

const char *gen_ms_layout_name(gen_ms_layout l);

#endif
