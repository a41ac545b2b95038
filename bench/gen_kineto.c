/* gen_kineto — one rank's synthetic trace.json in the torch 2.x shape (formats.md §10), from the same
 * gen_rank_plan as the rank's system profile.
 *
 * File: one JSON object, keys in torch's order: schemaVersion, deviceProperties (one entry per NeuronCore,
 * id = the core = its device pid), distributedInfo {backend "xla", rank, world_size, pg_count, pg_config},
 * neuronlens_synthetic (a string marking the file as generated), traceEvents (one event per line, NOT
 * sorted by time), traceName, displayTimeUnit, baseTimeNanoseconds (the capture start rounded down to the
 * second). ts/dur are µs relative to baseTimeNanoseconds with exactly 3 decimals, written from integer ns
 * (unix ns = baseTimeNanoseconds + ts × 1000, exactly), so every span shared with ntrace.pb has the very
 * same unix ns there and here.
 *
 * Events of step e (host pid = the capture pid, main thread tid = pid), emitted in this order:
 *   cpu_op             the `ops` prelude ops (aten::empty, aten::view, …), each 4th wrapped by a
 *                      python_function `model.py(<line>): <fn>` written after it
 *   cpu_op             per core: aten::copy_ (input, host → device)
 *   cpu_op             neuron::execute_graph, the launch op of the compiled graph on every core
 *   cpu_op             neuron::synchronize (waits for all cores)
 *   cpu_op             per core: aten::copy_ (output, device → host)
 *   user_annotation    Torch-Compiled Region: 0/0;  python_function torch/_dynamo/eval_frame.py(632): _fn
 *   cpu_op             aten::argmax, aten::item;    python_function run_decode.py(57): decode_step
 *   user_annotation    ProfilerStep#e
 *   privateuse1_runtime per core: nrt_tensor_write (in the input copy; = ntrace.pb's span), 
 *                      nrta_execute_schedule (in the launch op; correlation id, ac2g `s` at its start),
 *                      nrt_tensor_read (in the output copy; = ntrace.pb's span)
 *   privateuse1_driver per core: nc_exec_running on device pid k, tid 1, with the correlation id, exec_id
 *                      and nc_idx; ts/dur = ntrace.pb's nc_exec_running; ac2g `f` (bp "e") at its start
 * then the profiler's own Trace span and `Iteration Start` instant, and the M events (process and thread
 * names; devices are "NeuronCore <k>").
 *
 * The join: each device event's correlation names exactly one nrta_execute_schedule, whose enclosing
 * cpu_op is neuron::execute_graph, so that op's device time is the sum of all nc_exec_running durations;
 * the device events' union equals the all-core union of nc_exec_running in ntrace.pb. */
#include "gen_kineto.h"

#include <stdio.h>
#include <string.h>

#include "gen_export.h"
#include "gen_out.h"

static const char *const gen_kcat_names[GEN_KC_COUNT] = {
    [GEN_KC_CPU_OP] = "cpu_op",           [GEN_KC_USER_ANNOTATION] = "user_annotation",
    [GEN_KC_PYTHON_FUNCTION] = "python_function", [GEN_KC_RUNTIME] = "privateuse1_runtime",
    [GEN_KC_DRIVER] = "privateuse1_driver",   [GEN_KC_AC2G] = "ac2g", [GEN_KC_TRACE] = "Trace"};
static const char *const gen_kph_names[GEN_KP_COUNT] = {"X", "i", "s", "f", "M"};

const char *gen_kcat_name(gen_kcat c)
{
    return (unsigned)c < GEN_KC_COUNT ? gen_kcat_names[c] : "?";
}

const char *gen_kph_name(gen_kph p)
{
    return (unsigned)p < GEN_KP_COUNT ? gen_kph_names[p] : "?";
}

/* Prelude ops: name and the args that follow "Record function id" (torch's shapes). */
typedef struct gen_kop {
    const char *name, *args;
} gen_kop;

static const gen_kop gen_kops[] = {
    {"aten::empty", "\"Concrete Inputs\": [\"[1, 1024]\", \"4\", \"0\", \"\", \"False\", \"\"], "
                    "\"Input type\": [\"ScalarList\", \"Scalar\", \"Scalar\", \"\", \"Scalar\", \"\"], "
                    "\"Input Dims\": [[], [], [], [], [], []]"},
    {"aten::view", "\"Concrete Inputs\": [\"\", \"[1, 1024, 32, 128]\"], \"Input type\": [\"c10::BFloat16\", "
                   "\"ScalarList\"], \"Input Dims\": [[1, 1024, 4096], []]"},
    {"aten::slice", "\"Concrete Inputs\": [\"\", \"1\", \"0\", \"1\", \"1\"], \"Input type\": [\"long int\", "
                    "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"], \"Input Dims\": [[1, 1024], [], [], [], []]"},
    {"aten::unsqueeze", "\"Concrete Inputs\": [\"\", \"0\"], \"Input type\": [\"long int\", \"Scalar\"], "
                        "\"Input Dims\": [[1024], []]"},
    {"aten::arange", "\"Concrete Inputs\": [\"1024\", \"4\", \"\", \"\", \"False\"], \"Input type\": "
                     "[\"Scalar\", \"Scalar\", \"\", \"\", \"Scalar\"], \"Input Dims\": [[], [], [], [], []]"},
    {"aten::index_select", "\"Concrete Inputs\": [\"\", \"0\", \"\"], \"Input type\": [\"c10::BFloat16\", "
                           "\"Scalar\", \"long int\"], \"Input Dims\": [[65536, 4096], [], [1024]]"},
    {"aten::cat", "\"Concrete Inputs\": [\"\", \"1\"], \"Input type\": [\"GenericList\", \"Scalar\"], "
                  "\"Input Dims\": [[[1, 1023], [1, 1]], []]"},
    {"aten::expand", "\"Concrete Inputs\": [\"\", \"[1, 1024]\", \"False\"], \"Input type\": [\"long int\", "
                     "\"ScalarList\", \"Scalar\"], \"Input Dims\": [[1, 1], [], []]"},
    {"aten::detach", "\"Input type\": [\"c10::BFloat16\"], \"Input Dims\": [[1, 65536]]"},
    {"aten::add", "\"Concrete Inputs\": [\"\", \"1\", \"1\"], \"Input type\": [\"long int\", \"Scalar\", "
                  "\"Scalar\"], \"Input Dims\": [[1, 1024], [], []]"},
    {"aten::lt", "\"Concrete Inputs\": [\"\", \"1024\"], \"Input type\": [\"long int\", \"Scalar\"], "
                 "\"Input Dims\": [[1, 1024], []]"},
    {"aten::masked_fill", "\"Concrete Inputs\": [\"\", \"\", \"-inf\"], \"Input type\": [\"float\", \"bool\", "
                          "\"Scalar\"], \"Input Dims\": [[1, 1, 1024, 1024], [1, 1, 1024, 1024], []]"},
};
#define GEN_KOP_COUNT (sizeof gen_kops / sizeof gen_kops[0])

static const char *const gen_kfns[] = {"forward", "_prepare_inputs", "_update_cache", "rotary_embedding",
                                       "_attention_mask", "sample"};

#define GEN_K_DEVICE_TID 1

typedef struct gen_kin {
    gen_out *o;
    const gen_rank_plan *pl;
    gen_kin_stats *st;
    int64_t base;
    uint64_t ext, evidx, pyid;
    int first;
} gen_kin;

/* µs with 3 decimals from non-negative ns. */
static void gen_k_us(gen_out *o, int64_t ns)
{
    if (ns < 0)
        ns = 0; /* never: every event is after baseTimeNanoseconds */
    gen_out_u64(o, (uint64_t)ns / 1000);
    unsigned f = (unsigned)((uint64_t)ns % 1000);
    char b[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10)};
    gen_out_mem(o, b, 4);
}

static void gen_k_sep(gen_kin *k)
{
    if (k->first) {
        GEN_OUT_LIT(k->o, "\n  ");
        k->first = 0;
    } else {
        GEN_OUT_LIT(k->o, ",\n  ");
    }
    k->st->events++;
}

/* {"ph": …, "cat": …, "name": "<name><suffix>", "pid": …, "tid": …, "ts": …, "dur": …, "args": {  — the
 * caller writes the args and closes with gen_k_end. `suffix` (nullable) is appended to the name. */
static void gen_k_x(gen_kin *k, gen_kcat cat, const char *name, const char *suffix, uint64_t pid, uint64_t tid,
                    int64_t ts, int64_t dur)
{
    gen_out *o = k->o;
    gen_k_sep(k);
    GEN_OUT_LIT(o, "{\"ph\": \"X\", \"cat\": \"");
    gen_out_raw(o, gen_kcat_names[cat]);
    GEN_OUT_LIT(o, "\", \"name\": \"");
    gen_out_raw(o, name);
    if (suffix)
        gen_out_raw(o, suffix);
    GEN_OUT_LIT(o, "\", \"pid\": ");
    gen_out_u64(o, pid);
    GEN_OUT_LIT(o, ", \"tid\": ");
    gen_out_u64(o, tid);
    GEN_OUT_LIT(o, ", \"ts\": ");
    gen_k_us(o, ts - k->base);
    GEN_OUT_LIT(o, ", \"dur\": ");
    gen_k_us(o, dur);
    GEN_OUT_LIT(o, ", \"args\": {");
    k->st->cat[cat]++;
    k->st->ph[GEN_KP_X]++;
}

static void gen_k_end(gen_kin *k)
{
    GEN_OUT_LIT(k->o, "}}");
}

/* "External id": n, "Record function id": 0 — the first args of cpu_op and user_annotation. */
static void gen_k_ext(gen_kin *k, uint64_t ext)
{
    GEN_OUT_LIT(k->o, "\"External id\": ");
    gen_out_u64(k->o, ext);
    GEN_OUT_LIT(k->o, ", \"Record function id\": 0");
}

static void gen_k_evidx(gen_kin *k)
{
    GEN_OUT_LIT(k->o, ", \"Ev Idx\": ");
    gen_out_u64(k->o, k->evidx++);
}

/* A cpu_op or user_annotation with its External id; returns the id. `args` (nullable) are extra args. */
static uint64_t gen_k_op(gen_kin *k, gen_kcat cat, const char *name, const char *suffix, int64_t ts, int64_t dur,
                         const char *args)
{
    uint64_t ext = ++k->ext;
    gen_k_x(k, cat, name, suffix, k->pl->pid, gen_plan_tid_main(k->pl), ts, dur);
    gen_k_ext(k, ext);
    if (args) {
        GEN_OUT_LIT(k->o, ", ");
        gen_out_raw(k->o, args);
    }
    gen_k_evidx(k);
    gen_k_end(k);
    return ext;
}

static void gen_k_py(gen_kin *k, const char *name, int64_t ts, int64_t dur, uint64_t id, uint64_t parent)
{
    gen_k_x(k, GEN_KC_PYTHON_FUNCTION, name, NULL, k->pl->pid, gen_plan_tid_main(k->pl), ts, dur);
    GEN_OUT_LIT(k->o, "\"Python parent id\": ");
    if (parent)
        gen_out_u64(k->o, parent);
    else
        GEN_OUT_LIT(k->o, "null");
    GEN_OUT_LIT(k->o, ", \"Python id\": ");
    gen_out_u64(k->o, id);
    GEN_OUT_LIT(k->o, ", \"Python thread\": 0");
    gen_k_evidx(k);
    gen_k_end(k);
}

/* A runtime call on the main thread, inside the op `ext`. corr 0: no correlation id. */
static void gen_k_runtime(gen_kin *k, const char *name, int64_t ts, int64_t dur, uint64_t ext, int core, uint64_t corr,
                          uint64_t bytes)
{
    gen_k_x(k, GEN_KC_RUNTIME, name, NULL, k->pl->pid, gen_plan_tid_main(k->pl), ts, dur);
    GEN_OUT_LIT(k->o, "\"External id\": ");
    gen_out_u64(k->o, ext);
    if (corr) {
        GEN_OUT_LIT(k->o, ", \"correlation\": ");
        gen_out_u64(k->o, corr);
    }
    GEN_OUT_LIT(k->o, ", \"device\": ");
    gen_out_u64(k->o, (uint64_t)core);
    if (bytes) {
        GEN_OUT_LIT(k->o, ", \"bytes\": ");
        gen_out_u64(k->o, bytes);
    }
    gen_k_end(k);
}

/* ac2g flow event: s on the host at the launch, f (bp "e") on the device at the execution. */
static void gen_k_flow(gen_kin *k, int finish, uint64_t id, uint64_t pid, uint64_t tid, int64_t ts)
{
    gen_out *o = k->o;
    gen_k_sep(k);
    if (finish)
        GEN_OUT_LIT(o, "{\"ph\": \"f\", \"id\": ");
    else
        GEN_OUT_LIT(o, "{\"ph\": \"s\", \"id\": ");
    gen_out_u64(o, id);
    GEN_OUT_LIT(o, ", \"pid\": ");
    gen_out_u64(o, pid);
    GEN_OUT_LIT(o, ", \"tid\": ");
    gen_out_u64(o, tid);
    GEN_OUT_LIT(o, ", \"ts\": ");
    gen_k_us(o, ts - k->base);
    if (finish)
        GEN_OUT_LIT(o, ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}");
    else
        GEN_OUT_LIT(o, ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}");
    k->st->cat[GEN_KC_AC2G]++;
    k->st->ph[finish ? GEN_KP_F : GEN_KP_S]++;
}

static void gen_k_device(gen_kin *k, int e, int core, uint64_t ext, uint64_t corr)
{
    const gen_exec_core *x = gen_plan_ex(k->pl, e, core);
    gen_k_x(k, GEN_KC_DRIVER, GEN_KINETO_DEVICE_EVENT, NULL, (uint64_t)core, GEN_K_DEVICE_TID, x->dev_start,
            x->dev_end - x->dev_start);
    GEN_OUT_LIT(k->o, "\"External id\": ");
    gen_out_u64(k->o, ext);
    GEN_OUT_LIT(k->o, ", \"correlation\": ");
    gen_out_u64(k->o, corr);
    GEN_OUT_LIT(k->o, ", \"device\": ");
    gen_out_u64(k->o, (uint64_t)core);
    GEN_OUT_LIT(k->o, ", \"stream\": 1, \"exec_id\": ");
    gen_out_u64(k->o, (uint64_t)e + 1);
    GEN_OUT_LIT(k->o, ", \"nc_idx\": ");
    gen_out_u64(k->o, (uint64_t)core);
    GEN_OUT_LIT(k->o, ", \"model_id\": \"");
    gen_out_u64(k->o, k->pl->model_id);
    GEN_OUT_LIT(k->o, "\", \"neff\": \"" GEN_NEFF_NAME "\"");
    gen_k_end(k);
    k->st->device_events++;
}

static void gen_k_prelude(gen_kin *k, int e, uint64_t root)
{
    const gen_rank_plan *pl = k->pl;
    char name[96];
    int64_t u = pl->step[e].prelude;
    for (uint32_t i = 0; i < pl->ops; i++) {
        int64_t d = gen_plan_op_dur(pl, e, i);
        uint32_t pick = gen_plan_op_pick(pl, e, i);
        const gen_kop *op = &gen_kops[pick % GEN_KOP_COUNT];
        gen_k_op(k, GEN_KC_CPU_OP, op->name, NULL, u, d, op->args);
        if (i % 4 == 0) {
            snprintf(name, sizeof name, "model.py(%u): %s", 100 + (pick >> 8) % 400,
                     gen_kfns[(pick >> 20) % (sizeof gen_kfns / sizeof gen_kfns[0])]);
            gen_k_py(k, name, u - 100, d + 200, ++k->pyid, root);
        }
        u += d + GEN_CAP_OP_GAP_NS;
    }
}

#define GEN_K_COPY_H2D                                                                                         \
    "\"Concrete Inputs\": [\"\", \"\", \"False\"], \"Input type\": [\"long int\", \"long int\", \"Scalar\"], " \
    "\"Input Dims\": [[1, 1024], [1, 1024], []]"
#define GEN_K_COPY_D2H                                                                                   \
    "\"Concrete Inputs\": [\"\", \"\", \"False\"], \"Input type\": [\"float\", \"float\", \"Scalar\"], " \
    "\"Input Dims\": [[1, 65536], [1, 65536], []]"

static void gen_k_step(gen_kin *k, int e)
{
    const gen_rank_plan *pl = k->pl;
    const gen_step *st = &pl->step[e];
    uint64_t root = ++k->pyid, fn = ++k->pyid;
    char num[32];
    snprintf(num, sizeof num, "%d", e);
    gen_k_prelude(k, e, root);
    uint64_t in_ext0 = k->ext + 1;
    for (int c = 0; c < pl->cores; c++)
        gen_k_op(k, GEN_KC_CPU_OP, "aten::copy_", NULL, gen_plan_ex(pl, e, c)->write, 12000, GEN_K_COPY_H2D);
    uint64_t launch = gen_k_op(k, GEN_KC_CPU_OP, GEN_KINETO_LAUNCH_OP, NULL, st->launch, st->launch_end - st->launch,
                               "\"Input type\": [\"GenericList\"], \"Input Dims\": [[]]");
    k->st->launch_ops++;
    gen_k_op(k, GEN_KC_CPU_OP, "neuron::synchronize", NULL, st->sync, st->sync_end - st->sync, NULL);
    uint64_t out_ext0 = k->ext + 1;
    for (int c = 0; c < pl->cores; c++)
        gen_k_op(k, GEN_KC_CPU_OP, "aten::copy_", NULL, gen_plan_ex(pl, e, c)->read, 14000, GEN_K_COPY_D2H);
    gen_k_op(k, GEN_KC_USER_ANNOTATION, "Torch-Compiled Region: 0/0", NULL, st->region, st->region_end - st->region,
             NULL);
    k->st->compiled_regions++;
    k->st->compiled_region_ns += st->region_end - st->region;
    gen_k_py(k, "torch/_dynamo/eval_frame.py(632): _fn", st->region - 200, st->region_end - st->region + 400, fn, root);
    gen_k_op(k, GEN_KC_CPU_OP, "aten::argmax", NULL, st->post, 3000,
             "\"Concrete Inputs\": [\"\", \"-1\", \"False\"], \"Input type\": [\"float\", \"Scalar\", \"Scalar\"], "
             "\"Input Dims\": [[1, 65536], [], []]");
    gen_k_op(k, GEN_KC_CPU_OP, "aten::item", NULL, st->post + 3300, 1500,
             "\"Input type\": [\"long int\"], \"Input Dims\": [[1]]");
    gen_k_py(k, "run_decode.py(57): decode_step", st->start + 400, st->end - st->start - 800, root, 0);
    gen_k_op(k, GEN_KC_USER_ANNOTATION, "ProfilerStep#", num, st->start, st->end - st->start, NULL);

    for (int c = 0; c < pl->cores; c++) {
        const gen_exec_core *x = gen_plan_ex(pl, e, c);
        uint64_t corr = gen_plan_corr(e, c);
        gen_k_runtime(k, "nrt_tensor_write", x->write + 1000, 10000, in_ext0 + (uint64_t)c, c, 0, GEN_INPUT_BYTES);
        gen_k_runtime(k, "nrta_execute_schedule", x->sched, 2200, launch, c, corr, 0);
        gen_k_runtime(k, "nrt_tensor_read", x->read + 1000, 12000, out_ext0 + (uint64_t)c, c, 0, GEN_OUTPUT_BYTES);
    }
    for (int c = 0; c < pl->cores; c++) {
        const gen_exec_core *x = gen_plan_ex(pl, e, c);
        uint64_t corr = gen_plan_corr(e, c);
        gen_k_device(k, e, c, launch, corr);
        gen_k_flow(k, 0, corr, pl->pid, gen_plan_tid_main(pl), x->sched);
        gen_k_flow(k, 1, corr, (uint64_t)c, GEN_K_DEVICE_TID, x->dev_start);
        int64_t lat = x->dev_start - x->sched;
        if (k->st->latency_min_ns == 0 || lat < k->st->latency_min_ns)
            k->st->latency_min_ns = lat;
        if (lat > k->st->latency_max_ns)
            k->st->latency_max_ns = lat;
        k->st->launch_op_device_ns += x->dev_end - x->dev_start;
    }
}

/* {"name": "<what>", "ph": "M", "ts": …, "pid": …, "tid": …, "args": {"<key>": <value>}} */
static void gen_k_meta(gen_kin *k, const char *what, int64_t ts, uint64_t pid, uint64_t tid, const char *key,
                       const char *str, int64_t num)
{
    gen_out *o = k->o;
    gen_k_sep(k);
    GEN_OUT_LIT(o, "{\"name\": \"");
    gen_out_raw(o, what);
    GEN_OUT_LIT(o, "\", \"ph\": \"M\", \"ts\": ");
    gen_k_us(o, ts - k->base);
    GEN_OUT_LIT(o, ", \"pid\": ");
    gen_out_u64(o, pid);
    GEN_OUT_LIT(o, ", \"tid\": ");
    gen_out_u64(o, tid);
    GEN_OUT_LIT(o, ", \"args\": {\"");
    gen_out_raw(o, key);
    GEN_OUT_LIT(o, "\": ");
    if (str)
        gen_out_str(o, str);
    else
        gen_out_i64(o, num);
    GEN_OUT_LIT(o, "}}");
    k->st->ph[GEN_KP_M]++;
    k->st->no_cat++;
}

static void gen_k_profiler(gen_kin *k, int64_t t0, int64_t t1)
{
    gen_out *o = k->o;
    gen_k_sep(k);
    GEN_OUT_LIT(o, "{\"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
    gen_k_us(o, t0 - k->base);
    GEN_OUT_LIT(o, ", \"dur\": ");
    gen_k_us(o, t1 - t0);
    GEN_OUT_LIT(o, ", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"name\": \"PyTorch Profiler (0)\", "
                   "\"args\": {\"Op count\": 0}}");
    k->st->cat[GEN_KC_TRACE]++;
    k->st->ph[GEN_KP_X]++;
    gen_k_sep(k);
    GEN_OUT_LIT(o, "{\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\", \"pid\": "
                   "\"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
    gen_k_us(o, t0 - k->base);
    gen_out_ch(o, '}');
    k->st->ph[GEN_KP_I]++;
    k->st->no_cat++;
}

static void gen_k_metadata(gen_kin *k, int64_t t0)
{
    const gen_rank_plan *pl = k->pl;
    char text[96];
    uint64_t main_tid = gen_plan_tid_main(pl);
    gen_k_meta(k, "process_name", t0, pl->pid, 0, "name", "python3", 0);
    gen_k_meta(k, "process_labels", t0, pl->pid, 0, "labels", "SYNTHETIC host process", 0);
    gen_k_meta(k, "process_sort_index", t0, pl->pid, 0, "sort_index", NULL, (int64_t)pl->pid);
    snprintf(text, sizeof text, "thread %llu (python3)", (unsigned long long)main_tid);
    gen_k_meta(k, "thread_name", t0, pl->pid, main_tid, "name", text, 0);
    gen_k_meta(k, "thread_sort_index", t0, pl->pid, main_tid, "sort_index", NULL, (int64_t)main_tid);
    for (int c = 0; c < pl->cores; c++) {
        snprintf(text, sizeof text, "NeuronCore %d", c);
        gen_k_meta(k, "process_name", t0, (uint64_t)c, 0, "name", text, 0);
        snprintf(text, sizeof text, "SYNTHETIC nc%d", c);
        gen_k_meta(k, "process_labels", t0, (uint64_t)c, 0, "labels", text, 0);
        gen_k_meta(k, "process_sort_index", t0, (uint64_t)c, 0, "sort_index", NULL, 0x1000000 + c);
        gen_k_meta(k, "thread_name", t0, (uint64_t)c, GEN_K_DEVICE_TID, "name", "stream 1", 0);
    }
}

static void gen_k_header(gen_kin *k)
{
    const gen_rank_plan *pl = k->pl;
    gen_out *o = k->o;
    GEN_OUT_LIT(o, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
    for (int c = 0; c < pl->cores; c++) {
        if (c)
            gen_out_ch(o, ',');
        GEN_OUT_LIT(o, "\n    {\"id\": ");
        gen_out_u64(o, (uint64_t)c);
        GEN_OUT_LIT(o, ", \"name\": \"NeuronCore ");
        gen_out_u64(o, (uint64_t)c);
        GEN_OUT_LIT(o, " (SYNTHETIC)\", \"totalGlobalMem\": 17179869184, \"computeMajor\": 2, \"computeMinor\": 0}");
    }
    GEN_OUT_LIT(o, "\n  ],\n  \"distributedInfo\": {\"backend\": \"xla\", \"rank\": ");
    gen_out_u64(o, (uint64_t)pl->rank);
    GEN_OUT_LIT(o, ", \"world_size\": ");
    gen_out_u64(o, (uint64_t)pl->params->ranks);
    GEN_OUT_LIT(o, ", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
                   "\"backend_config\": \"xla:neuron\", \"pg_size\": ");
    gen_out_u64(o, (uint64_t)pl->params->ranks);
    GEN_OUT_LIT(o, ", \"ranks\": [");
    for (int r = 0; r < pl->params->ranks; r++) {
        if (r)
            GEN_OUT_LIT(o, ", ");
        gen_out_u64(o, (uint64_t)r);
    }
    GEN_OUT_LIT(o, "]}]},\n  \"neuronlens_synthetic\": \"nl-gen-profile seed ");
    gen_out_u64(o, pl->params->seed);
    GEN_OUT_LIT(o, " rank ");
    gen_out_u64(o, (uint64_t)pl->rank);
    GEN_OUT_LIT(o, ": " GEN_SYNTHETIC_NOTE "; ground truth in expected.json\",\n  \"traceEvents\": [");
}

static void gen_k_footer(gen_kin *k)
{
    gen_out *o = k->o;
    GEN_OUT_LIT(o, "\n  ],\n  \"traceName\": \"" GEN_SYNTHETIC_NAME " rank ");
    gen_out_u64(o, (uint64_t)k->pl->rank);
    GEN_OUT_LIT(o, " (nl-gen-profile)\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ");
    gen_out_i64(o, k->base);
    GEN_OUT_LIT(o, "\n}\n");
}

int gen_kineto_write(const gen_rank_plan *pl, const char *path, gen_kin_stats *st, gen_err *err)
{
    gen_out o;
    memset(st, 0, sizeof *st);
    if (gen_out_open(&o, path, err) != 0)
        return -1;
    gen_kin k = {.o = &o, .pl = pl, .st = st, .first = 1};
    k.base = pl->t0 - pl->t0 % 1000000000ll;
    st->base_ns = k.base;
    gen_k_header(&k);
    for (int e = 0; e < pl->executions; e++)
        gen_k_step(&k, e);
    int64_t t0 = pl->step[0].start - 50000, t1 = pl->step[pl->executions - 1].end + 50000;
    gen_k_profiler(&k, t0, t1);
    gen_k_metadata(&k, t0);
    gen_k_footer(&k);
    st->bytes = gen_out_bytes(&o);
    return gen_out_close(&o, err);
}
