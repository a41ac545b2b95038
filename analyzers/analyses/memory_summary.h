/* memory_summary — what a PyTorch allocator snapshot says about device memory: per device and pool
 * (large/small segments) reserved vs allocated vs requested bytes, fragmentation (free cached bytes, the
 * largest free block), the peak of allocated memory over the trace and when it happened, the allocation
 * sites holding memory at that peak, every out-of-memory event with what held memory then, and the allocator
 * settings that matter.
 *
 * Owns: the memory_summary it returns (memory_summary_free). Reads a finished memory_model (read-only), so
 * any number of summaries may run at once on any threads. Polls `cancel` every MEMORY_SUMMARY_POLL rows.
 * Errors: -1 with nl_error: NL_ERR_NOMEM, NL_ERR_CANCELLED, NL_ERR_ARGUMENT (top_sites over the cap).
 *
 * Bytes. Snapshot state (segments and blocks): reserved = Σ segment total_size; allocated = Σ
 * allocated_size; active = Σ active_size (allocated + pending free); requested = Σ requested_size; from the
 * blocks: inactive (free, cached) and pending-free bytes, and the requested bytes of active_allocated
 * blocks. "Free cached" = reserved − allocated.
 *
 * The timeline (replay), per device, as torch/utils/viz/MemoryViz.js process_alloc_data builds its "Active
 * Memory Timeline": each `alloc` entry is an allocation of its `size` (the requested bytes); a
 * `free_completed` ends the allocation at its addr — when the ring buffer never saw that alloc, the
 * allocation existed before the window and counts from the start (with the free's size and frames; the
 * free_requested right before it with the same addr stands in, as MemoryViz merges the pair into one
 * `free`); `free_requested` alone changes nothing (the block is not reusable until completed); every
 * `active_allocated` block of the snapshot whose address the window did not allocate (and not free) was
 * allocated before the window and is still held: it counts from start to end with its requested_size and
 * frames. Other actions change nothing. Allocated bytes start at the sum of those earlier allocations and
 * move by ±size at each alloc/free_completed; the peak is the largest value, first reached, counting the
 * start (MemoryViz's own y-axis maximum only counts values after an event). The end equals the snapshot's
 * active_allocated requested bytes when the trace and the state agree (both are reported).
 * A device without trace entries has no timeline: its peak is the snapshot state (source AT_SNAPSHOT), with
 * the sites of its active_allocated blocks.
 *
 * Sites. A stack (innermost frame first, as PyTorch records it) is folded: frames MemoryViz hides
 * (unwind::unwind, CapturedTraceback::gather, gather_with_cpp, _start, __libc_start_main, PyEval_*,
 * PyObject_*, PyFunction_* names; core/boxing, /Register, /Redispatch, pythonrun.c, Modules/main.c,
 * Objects/call.c, Objects/methodobject.c, pycore_ceval.h, ceval.c, cpython/abstract.h files) are dropped;
 * each remaining frame is framework or user code. User code is Python source (a file ending in .py or .pyw,
 * case ignored, or a "<...>" pseudo-file such as <string>) outside an installed package, the Python
 * library and torch itself, i.e. whose path (backslashes read as '/', case ignored) contains none of
 * "/site-packages/", "/dist-packages/", "/lib/python", "<frozen", "/torch/". Everything else is framework:
 * those Python files and all native code (C/C++ sources, object files, "??" for unsymbolized frames, as
 * recorded with stacks="all"), so a user's own C++ extension counts as framework. An allocation's
 * site is its innermost user frame ("where in your code"), `via` the framework frame right inside it (the
 * library call that allocated). A stack without user frames is sited at its innermost Python framework
 * frame; without those (native-only stacks, e.g. the autograd engine's backward threads recorded with
 * stacks="all") at its innermost native frame whose name contains "Backward" (the autograd node, e.g.
 * MmBackward0::apply), else at its innermost native frame; such sites have no `via`. A stack without frames
 * (allocated before history was recorded, or recorded without stacks) is sited at MEMORY_SITE_NONE.
 * Sites are ranked by bytes, then allocations, then (filename, line, name) bytewise. */
#ifndef NL_MEMORY_SUMMARY_H
#define NL_MEMORY_SUMMARY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memory_model.h"
#include "nl_error.h"

#define MEMORY_SUMMARY_SITES_DEFAULT 10u
#define MEMORY_SUMMARY_SITES_MAX 100u
/* OOM entries per device given their own sites (all are counted and listed with sizes). */
#define MEMORY_SUMMARY_OOM_SITES_MAX 4u
/* OOM entries per device listed (more are counted). */
#define MEMORY_SUMMARY_OOMS_MAX 64u
#define MEMORY_SUMMARY_POLL 65536u
/* A site without a frame. */
#define MEMORY_SITE_NONE UINT32_MAX

typedef enum memory_frame_class {
    MEMORY_FRAME_USER,
    MEMORY_FRAME_FRAMEWORK, /* Python source of a package, the Python library or torch */
    MEMORY_FRAME_NATIVE,    /* native code (framework too) */
    MEMORY_FRAME_OMITTED,   /* hidden as MemoryViz hides it */
} memory_frame_class;

/* Bytes of one pool (segment type) of one device, or of all of them. */
typedef struct memory_pool_bytes {
    uint64_t segments, blocks;
    int64_t reserved, allocated, active, requested; /* Σ of the segments' fields */
    int64_t inactive;                               /* Σ size of inactive blocks (free, cached) */
    int64_t pending_free;                           /* Σ size of active_pending_free blocks */
    uint64_t inactive_blocks, pending_free_blocks, allocated_blocks;
    int64_t block_allocated;                        /* Σ size of active_allocated blocks */
    int64_t block_requested;                        /* Σ requested_size of active_allocated blocks */
    int64_t largest_inactive;                       /* the largest free block, 0 when none */
    int64_t largest_inactive_address;
} memory_pool_bytes;

typedef struct memory_site {
    uint32_t frame;  /* frame id of the site, MEMORY_SITE_NONE for allocations without frames */
    bool user;       /* the site frame is user code */
    uint32_t via;    /* the framework frame right inside the site in `stack`, MEMORY_SITE_NONE if none */
    uint32_t stack;  /* the stack of the site's largest allocation (earliest on ties) */
    int64_t bytes;
    uint64_t count;  /* allocations */
} memory_site;

/* A set of top sites and what is left outside it. */
typedef struct memory_sites {
    memory_site *top;
    size_t count;
    uint64_t total_sites;
    int64_t other_bytes;
    uint64_t other_count;
} memory_sites;

typedef enum memory_peak_source {
    MEMORY_PEAK_TRACE,       /* replayed over the device's trace entries */
    MEMORY_PEAK_AT_SNAPSHOT, /* no entries: the state at snapshot time */
} memory_peak_source;

typedef struct memory_peak {
    memory_peak_source source;
    int64_t start_bytes;  /* TRACE: held before the first entry */
    int64_t end_bytes;    /* TRACE: after the last entry */
    int64_t bytes;        /* the peak */
    int64_t row;          /* TRACE: trace row after which it was first reached; -1 = at the start / at snapshot */
    bool has_time;
    int64_t time_us;      /* that row's time_us */
    uint64_t allocs, frees;            /* alloc and free_completed entries replayed */
    uint64_t frees_before_window;      /* frees of allocations made before the window */
    uint64_t blocks_before_window;     /* active_allocated blocks the window did not allocate */
    memory_sites sites;                /* what was held at the peak */
} memory_peak;

typedef struct memory_oom {
    size_t row;            /* trace row */
    bool has_time;
    int64_t time_us;
    int64_t requested;     /* the allocation that failed */
    int64_t device_free;   /* bytes the device reported free */
    int64_t stream;
    int64_t allocated;     /* replayed allocated bytes just before it */
    int64_t reserved;      /* reserved bytes just before it: the snapshot's, minus segment_alloc/map after it,
                              plus segment_free/unmap after it (as far as the ring buffer reaches) */
    bool fits_largest_free; /* the device's largest free block at snapshot time ≥ requested */
    memory_sites sites;    /* held just before it (the first MEMORY_SUMMARY_OOM_SITES_MAX only) */
} memory_oom;

typedef struct memory_device {
    uint32_t device;
    memory_pool_bytes total;
    memory_pool_bytes pools[MM_SEGTYPE_COUNT]; /* by memory_segment_type */
    int64_t largest_inactive_pool;             /* memory_segment_type of the largest free block */
    uint64_t trace_entries;
    uint64_t actions[MM_ACT_COUNT];
    bool has_time;
    int64_t first_time_us, last_time_us;       /* over entries with time_us */
    memory_peak peak;
    memory_oom *ooms;
    size_t oom_count;                          /* listed */
    uint64_t oom_total;
} memory_device;

typedef struct memory_summary {
    memory_layout layout;
    memory_history history;
    memory_settings settings;
    const char *alloc_conf;       /* PYTORCH_CUDA_ALLOC_CONF (borrowed from the model), NULL if absent */
    memory_device *devices;       /* devices with segments or trace entries, ascending */
    size_t device_count;
    memory_pool_bytes total;      /* all devices */
} memory_summary;

typedef struct memory_summary_options {
    size_t top_sites; /* 0 = MEMORY_SUMMARY_SITES_DEFAULT; at most MEMORY_SUMMARY_SITES_MAX */
} memory_summary_options;

/* Compute the summary of `m`. opt may be NULL. 0 and *out, or -1 with err. */
int memory_summary_compute(const memory_model *m, const memory_summary_options *opt, const atomic_int *cancel,
                           memory_summary **out, nl_error *err) __attribute__((warn_unused_result));
void memory_summary_free(memory_summary *s);

/* The class of a frame (rules above). */
memory_frame_class memory_frame_classify(const memory_model *m, uint32_t frame);
/* Fold a stack for display: the frames that are not omitted, user frames first, then framework frames,
 * each group innermost first, into out[0..cap); returns how many there are (may exceed cap); *user gets
 * the number of user frames. */
size_t memory_stack_fold(const memory_model *m, uint32_t stack, uint32_t *out, size_t cap, size_t *user);
/* The site of a stack: its frame (MEMORY_SITE_NONE if none), whether it is user code, and `via`. */
void memory_stack_site(const memory_model *m, uint32_t stack, uint32_t *frame, bool *user, uint32_t *via);

const char *memory_peak_source_name(memory_peak_source s);

#endif
