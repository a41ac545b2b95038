/* gen_capture — one rank's host timeline (gen_capture.h). All times are int64 unix ns on the host clock.
 *
 *   t0                      capture start: GEN_CAP_EPOCH_NS + (seed mod 24) h + rank × 1,000,003 ns
 *   t0 + 1.2 s + 150 µs·k   nrt_load on worker k, 9.5 ms + 77 µs·k (weights copied in 4 chunks)
 *   t0 + 2.5 s              step 1 starts; steps follow each other 2 µs apart
 *   last step end + 1.5 s   capture end
 *
 * One step e (0-based; ProfilerStep#e), on the main thread unless noted, c = cores:
 *
 *   start                   ProfilerStep#e begins
 *   start + 1000            prelude: `ops` host ops, op i lasting gen_plan_op_dur(e, i) (600..3999 ns),
 *                           300 ns apart
 *   prelude_end + 700       region: Torch-Compiled Region
 *     region + 500 + 12500k   input copy of core k: aten::copy_ (12 µs) ⊃ nrt_tensor_write (+1..+11 µs)
 *                             ⊃ dmem_buf_copyin (+2..+10 µs)
 *     region + 500 + 12500c   launch: neuron::execute_graph, 700 + 2600c ns
 *       launch + 400 + 2600k    nrta_execute_schedule for core k (2.2 µs); nrt_execute on worker k's
 *                               execute thread begins 900 ns into it
 *     launch_end + 30 µs + 37k  core k executes (nc_exec_running): its export's total_ns, + 1 ms on the
 *                               warm-up (e = 0)
 *     launch_end + 300        neuron::synchronize until the last core's end + 20 µs
 *     sync_end + 500 + 14500k output copy of core k: aten::copy_ (14 µs) ⊃ nrt_tensor_read ⊃ copyout
 *   region_end = sync_end + 500 + 14500c
 *   region_end + 400        aten::argmax (3 µs), then aten::item (1.5 µs) at +3300
 *   end = post + 5600
 *
 * The gap between executions e and e+1 (all-core union) is therefore the completion and output copies of
 * e, the prelude of e+1, its input copies and its launch: it grows with --executions' ops per step (which
 * --kineto-target-bytes raises). Core starts are 37 ns apart and every execution lasts at least a few µs,
 * so the cores of one execution overlap and the union has exactly executions − 1 holes. */
#include "gen_capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_rng.h"

#define GEN_CAP_LOAD_AT_NS 1200000000ll
#define GEN_CAP_FIRST_STEP_NS 2500000000ll
#define GEN_CAP_TAIL_NS 1500000000ll
#define GEN_CAP_STEP_GAP_NS 2000
#define GEN_CAP_PID_BASE 4242u
#define GEN_CAP_NC_CLOCK_BASE 257063000000000ll /* device clocks start near the sample's (2.57e14 ns) */

static uint64_t gen_plan_hash(const gen_rank_plan *pl, int e, uint32_t i, uint64_t stream)
{
    uint64_t x = pl->params->seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)i | (uint64_t)e << 26 |
                                                             (uint64_t)pl->rank << 36 | stream << 48);
    return gen_rng_mix(&x);
}

int64_t gen_plan_op_dur(const gen_rank_plan *pl, int e, uint32_t i)
{
    return 600 + (int64_t)(gen_plan_hash(pl, e, i, 1) % 3400);
}

uint32_t gen_plan_op_pick(const gen_rank_plan *pl, int e, uint32_t i)
{
    return (uint32_t)(gen_plan_hash(pl, e, i, 2) >> 32);
}

int64_t gen_plan_nc_offset(const gen_rank_plan *pl, int k, int e)
{
    int64_t base = GEN_CAP_NC_CLOCK_BASE + (int64_t)k * 1000003000ll + (int64_t)pl->rank * 13000000007ll;
    return pl->t0 - base + (int64_t)GEN_CAP_DRIFT_NS * e;
}

uint64_t gen_rank_pid(int rank)
{
    return GEN_CAP_PID_BASE + 131u * (uint64_t)rank;
}

void gen_rank_instance(int rank, int ranks, char *dst, size_t cap)
{
    int width = 1;
    for (int n = ranks - 1; n >= 10; n /= 10)
        width++;
    snprintf(dst, cap, "i-0synthetic%0*d", width, rank);
}

void gen_rank_dir_name(int rank, int ranks, char *dst, size_t cap)
{
    char inst[32];
    gen_rank_instance(rank, ranks, inst, sizeof inst);
    snprintf(dst, cap, "%s_pid_%llu", inst, (unsigned long long)gen_rank_pid(rank));
}

void gen_rank_plan_free(gen_rank_plan *pl)
{
    free(pl->load_start);
    free(pl->load_dur);
    free(pl->step);
    free(pl->ex);
    pl->load_start = pl->load_dur = NULL;
    pl->step = NULL;
    pl->ex = NULL;
}

static void gen_plan_step(gen_rank_plan *pl, int e, int64_t start)
{
    gen_step *st = &pl->step[e];
    int c = pl->cores;
    st->start = start;
    st->prelude = start + 1000;
    int64_t u = st->prelude;
    for (uint32_t i = 0; i < pl->ops; i++)
        u += gen_plan_op_dur(pl, e, i) + GEN_CAP_OP_GAP_NS;
    st->prelude_end = pl->ops ? u - GEN_CAP_OP_GAP_NS : st->prelude;
    st->region = st->prelude_end + 700;
    st->launch = st->region + 500 + 12500ll * c;
    st->launch_end = st->launch + 700 + 2600ll * c;
    st->sync = st->launch_end + 300;
    st->dev_first = INT64_MAX;
    st->dev_last = INT64_MIN;
    for (int k = 0; k < c; k++) {
        gen_exec_core *x = &pl->ex[(size_t)e * (size_t)c + (size_t)k];
        x->write = st->region + 500 + 12500ll * k;
        x->sched = st->launch + 400 + 2600ll * k;
        x->dev_start = st->launch_end + GEN_CAP_LAUNCH_NS + (int64_t)GEN_CAP_CORE_SKEW_NS * k;
        x->dev_end = x->dev_start + pl->core[k].total_ns + (e == 0 ? GEN_CAP_WARMUP_EXTRA_NS : 0);
        if (x->dev_start < st->dev_first)
            st->dev_first = x->dev_start;
        if (x->dev_end > st->dev_last)
            st->dev_last = x->dev_end;
    }
    st->sync_end = st->dev_last + 20000;
    for (int k = 0; k < c; k++)
        pl->ex[(size_t)e * (size_t)c + (size_t)k].read = st->sync_end + 500 + 14500ll * k;
    st->region_end = st->sync_end + 500 + 14500ll * c;
    st->post = st->region_end + 400;
    st->end = st->post + 5600;
}

int gen_rank_plan_build(const gen_params *p, const gen_core_info *core, int rank, uint32_t ops, gen_rank_plan *out)
{
    memset(out, 0, sizeof *out);
    gen_rank_plan *pl = out;
    pl->params = p;
    pl->core = core;
    pl->rank = rank;
    pl->cores = p->cores;
    pl->executions = p->executions;
    pl->ops = ops;
    pl->pid = gen_rank_pid(rank);
    gen_rank_instance(rank, p->ranks, pl->instance, sizeof pl->instance);
    gen_rank_dir_name(rank, p->ranks, pl->dir, sizeof pl->dir);
    uint64_t x = p->seed ^ 0x6d6f64656c5f6964ull;
    pl->model_id = 100000000000000ull + gen_rng_mix(&x) % 100000000000000ull; /* 15 digits, as in the sample */
    pl->t0 = GEN_CAP_EPOCH_NS + 3600000000000ll * (int64_t)(p->seed % 24) + 1000003ll * rank;
    size_t c = (size_t)p->cores, n = (size_t)p->executions;
    pl->load_start = malloc(c * sizeof *pl->load_start);
    pl->load_dur = malloc(c * sizeof *pl->load_dur);
    pl->step = malloc(n * sizeof *pl->step);
    pl->ex = malloc(n * c * sizeof *pl->ex);
    if (!pl->load_start || !pl->load_dur || !pl->step || !pl->ex) {
        gen_rank_plan_free(pl);
        return -1;
    }
    for (size_t k = 0; k < c; k++) {
        pl->load_start[k] = pl->t0 + GEN_CAP_LOAD_AT_NS + 150000ll * (int64_t)k;
        pl->load_dur[k] = 9500000 + 77000ll * (int64_t)k;
    }
    int64_t start = pl->t0 + GEN_CAP_FIRST_STEP_NS;
    for (int e = 0; e < p->executions; e++) {
        gen_plan_step(pl, e, start);
        start = pl->step[e].end + GEN_CAP_STEP_GAP_NS;
    }
    pl->end = pl->step[n - 1].end + GEN_CAP_TAIL_NS;
    return 0;
}

static int gen_span_cmp(const void *a, const void *b)
{
    const gen_span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

int64_t gen_plan_exec_busy(const gen_rank_plan *pl, int e)
{
    /* core k starts GEN_CAP_CORE_SKEW_NS after core k-1: the starts are already in order */
    int64_t total = 0, s = 0, end = INT64_MIN;
    for (int k = 0; k < pl->cores; k++) {
        const gen_exec_core *x = gen_plan_ex(pl, e, k);
        if (x->dev_start > end) {
            if (end != INT64_MIN)
                total += end - s;
            s = x->dev_start;
            end = x->dev_end;
        } else if (x->dev_end > end) {
            end = x->dev_end;
        }
    }
    return total + (end - s);
}

int gen_plan_device_union(const gen_rank_plan *pl, int64_t *busy, int64_t *gaps, size_t cap, size_t *ngaps)
{
    size_t n = (size_t)pl->executions * (size_t)pl->cores;
    gen_span *v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++)
        v[i] = (gen_span){pl->ex[i].dev_start, pl->ex[i].dev_end};
    qsort(v, n, sizeof *v, gen_span_cmp);
    int64_t total = 0, s = v[0].start, e = v[0].end;
    size_t holes = 0;
    for (size_t i = 1; i <= n; i++) {
        if (i < n && v[i].start <= e) {
            if (v[i].end > e)
                e = v[i].end;
            continue;
        }
        total += e - s;
        if (i < n) {
            if (holes < cap)
                gaps[holes] = v[i].start - e;
            holes++;
            s = v[i].start;
            e = v[i].end;
        }
    }
    free(v);
    *busy = total;
    *ngaps = holes;
    return 0;
}
