/* gen_system — one rank's system-profile files, encoded as the real capture is (formats.md §9; the field
 * comments of the proto/ schemas; tests/unit/test_gen_profile.py decodes these files and the real capture in
 * ../shared/samples/capture with the same stdlib decoder and compares field layouts, wire types, interned
 * tables and the attribute keys of every event type and phase).
 *
 * trace_info.pb   ONE message, fields in number order:
 *   1 format 2 · 2 pid · 4 instance id · 6 {1 "./output/<dir>/ntrace.pb", 2 type 1, 3 records}
 *   7 {1 cpus 12, 2 cpu model, 3 host RAM, 4/5 f32 1.0, 6 {cpu_util.pb, 2, samples per CPU},
 *      7 {host_mem.pb, 3, samples}} · 9 = 2 · 10 interned tables: ntrace_inspect_type (the 40 types of
 *   runtime 2.30.51, in the sample's unsorted order), system_trace (model_id → NEFF path, 0 →
 *   "invalid_interned_string"), nrt_inspect_mem_usage_type, nrt_inspect_mem_alloc_errno_type; every entry
 *   writes its id, 0 included (`08 00`) · 11/12 start/end ns · 13 host IP (192.0.2.x, a documentation
 *   range) · 14 events · 15 instance type · 16 = 2 · 17 hostname · 18 {4 0xffffffff}
 *
 * ntrace.pb, cpu_util.pb, host_mem.pb   [u32 LE length][message] to EOF.
 *   NtraceEvent  2 ts · 7 type id · 9 thread · 10 seq = worker << 50 | n (n from 1 per worker) ·
 *                12 {1 key, 2 value} per attribute, values as decimal text, order rotated per record (the
 *                runtime writes them in hash order) · 14 phase 1/2/3 · 15 span = the begin's seq.
 *                All seven fields on every record. The file is grouped by worker; within a worker,
 *                records are in the order the runtime logs them: by their own time, except that
 *                nc_exec_running begin and end are logged 6 µs after the execution ends (after the sync
 *                point, as in the sample), so the file is not sorted by time.
 *   CpuUtilSample 1 f32 % (omitted when 0) · 2 ts · 3 cpu (omitted for cpu 0); 12 CPUs per timestamp;
 *                the first timestamp has no utilisation (as in the sample).
 *   HostMemSample 1 used bytes · 2 ts.
 *
 * Events per worker k (= nc_idx = device_core_idx = worker_gid k; threads from gen_plan_tid):
 *   nrt_load (load thread) ⊃ 4 dmem_buf_copyin of the weights; per execution e: nrt_tensor_write ⊃
 *   dmem_buf_copyin (main thread), nrt_execute ⊃ nrt_model_submit, kbl_exec_pre, kmgr_exec_core (execute
 *   thread), kbl_exec_wait ⊃ timestamp_sync_point, nc_exec_running, then kbl_exec_post (notify thread),
 *   nrt_tensor_read ⊃ dmem_buf_copyout (main thread). Attributes per formats.md §9.3: begins carry the
 *   keys listed there, ends only nc_idx and worker_gid (+ nc_timestamp_ns for nc_exec_running, model_id
 *   for nrt_load). Times: gen_capture.c.
 *
 * Clock: nc_exec_running carries nc_timestamp_ns = host − gen_plan_nc_offset(k, e); the execution's sync
 * point carries cpu_timestamp_ns = start − 8928 and the matching nc_timestamp_ns, so
 * cpu_ts + (nc − sync_nc) = f2 exactly for both ends of the span (0 ns error), while the drift of
 * GEN_CAP_DRIFT_NS per execution makes any other execution's sync point off by a multiple of it. */
#include "gen_system.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_export.h"
#include "gen_model.h"
#include "gen_pb.h"
#include "gen_rng.h"

#define GEN_SYS_PATH_MAX 4096
#define GEN_SYS_MAX_ATTRS 6
#define GEN_SYS_HOST_RAM 137438953472ull /* 128 GiB */
#define GEN_SYS_MEM_BASE 14472425472ull  /* the sample's first host_mem value */
#define GEN_SYS_TENSOR_ID 202982732869795ull
#define GEN_SYS_MEM_HANDLE 125814559873184ull

/* ---- tables ---- */

typedef struct gen_intern {
    uint64_t id;
    const char *name;
} gen_intern;

/* ntrace_inspect_type of runtime 2.30.51, in the order the sample's trace_info.pb lists it. */
static const gen_intern gen_types[] = {
    {34, "nrt_dma_mem_alloc"}, {9, "nrt_tensor_read"}, {17, "kbl_exec_pre"}, {33, "dmem_buf_batch_copyout"},
    {18, "kbl_exec_core"}, {31, "dmem_buf_copyout"}, {3, "nrt_execute"}, {12, "nrt_tensor_write_batch"},
    {32, "dmem_buf_batch_copyin"}, {11, "nrt_tensor_read_batch"}, {19, "kbl_exec_wait"}, {6, "cc_exec_barrier"},
    {28, "nrt_tensor_free"}, {7, "nc_exec_running"}, {20, "kbl_exec_post"}, {39, "exec_consume_gpsimd_stdio"},
    {25, "timestamp_sync_point"}, {26, "nc_model_switch"}, {14, "enc_barrier_recv"}, {21, "nrt_model_switch"},
    {13, "numerical_err"}, {30, "dmem_buf_copyin"}, {0, "generic"}, {5, "nrt_load_collectives"},
    {38, "notification_consume_errors"}, {22, "nrt_model_submit"}, {37, "exec_consume_cc_core_notifications"},
    {8, "cc_running"}, {24, "hw_notify"}, {36, "exec_consume_nc_status_notifications"},
    {23, "nrt_async_sema_wait"}, {2, "async_post_request"}, {27, "nrt_tensor_allocate"}, {15, "enc_barrier_send"},
    {10, "nrt_tensor_write"}, {35, "nrt_dma_mem_dealloc"}, {1, "nrt_load"}, {29, "tensor_block_while_exec"},
    {4, "kmgr_exec_core"}, {16, "enc_barrier"},
};

static const gen_intern gen_usage_types[] = {
    {8, "act table"}, {20, "dma rings io"}, {16, "scratchpad"}, {3, "pool"}, {12, "tensor"},
    {11, "shared scratchpad"}, {17, "xt cc"}, {21, "dma rings collectives"}, {15, "collectives"}, {2, "act"},
    {5, "spill"}, {10, "sp"}, {1, "pe"}, {14, "pool stdio"}, {18, "dma rings runtime"}, {6, "weight"},
    {9, "dve"}, {4, "io"}, {0, "generic"}, {7, "profiler buffers"}, {13, "ucode"}, {19, "dma rings spill"},
};

static const gen_intern gen_errno_types[] = {{12, "OUT_OF_MEMORY"}, {0, "SUCCESS"}};

/* Our event types → their names (the ids come from gen_types by name). */
static const char *const gen_ev_names[GEN_EV_COUNT] = {
    [GEN_EV_NRT_LOAD] = "nrt_load",
    [GEN_EV_NRT_EXECUTE] = "nrt_execute",
    [GEN_EV_NRT_MODEL_SUBMIT] = "nrt_model_submit",
    [GEN_EV_KBL_EXEC_PRE] = "kbl_exec_pre",
    [GEN_EV_KMGR_EXEC_CORE] = "kmgr_exec_core",
    [GEN_EV_KBL_EXEC_WAIT] = "kbl_exec_wait",
    [GEN_EV_TIMESTAMP_SYNC_POINT] = "timestamp_sync_point",
    [GEN_EV_NC_EXEC_RUNNING] = "nc_exec_running",
    [GEN_EV_KBL_EXEC_POST] = "kbl_exec_post",
    [GEN_EV_NRT_TENSOR_WRITE] = "nrt_tensor_write",
    [GEN_EV_NRT_TENSOR_READ] = "nrt_tensor_read",
    [GEN_EV_DMEM_BUF_COPYIN] = "dmem_buf_copyin",
    [GEN_EV_DMEM_BUF_COPYOUT] = "dmem_buf_copyout",
};

const char *gen_ev_name(gen_ev t)
{
    return (unsigned)t < GEN_EV_COUNT ? gen_ev_names[t] : "?";
}

static uint64_t gen_ev_id(gen_ev t)
{
    for (size_t i = 0; i < sizeof gen_types / sizeof gen_types[0]; i++)
        if (!strcmp(gen_types[i].name, gen_ev_names[t]))
            return gen_types[i].id;
    return 0; /* unreachable: every gen_ev is in the table */
}

/* Attribute keys. */
typedef enum gen_ak {
    GEN_AK_NC_IDX, GEN_AK_WORKER_GID, GEN_AK_MODEL_ID, GEN_AK_EXEC_ID, GEN_AK_DEVICE_CORE_IDX,
    GEN_AK_NC_TIMESTAMP_NS, GEN_AK_CPU_TIMESTAMP_NS, GEN_AK_SIZE, GEN_AK_TENSOR_ID, GEN_AK_MEM_HANDLE,
    GEN_AK_MEM_TYPE, GEN_AK_OFFSET, GEN_AK_COUNT
} gen_ak;

static const char *const gen_ak_names[GEN_AK_COUNT] = {
    "nc_idx", "worker_gid", "model_id", "exec_id", "device_core_idx", "nc_timestamp_ns", "cpu_timestamp_ns",
    "size", "tensor_id", "mem_handle", "mem_type", "offset"};

/* ---- records of one worker ---- */

typedef struct gen_attr {
    uint8_t key;
    uint64_t v;
} gen_attr;

typedef struct gen_rec {
    int64_t ts, log;
    uint32_t order;
    int32_t begin; /* index of the begin record (ends), else -1 */
    uint64_t tid;
    uint8_t ev, phase, nattr;
    gen_attr attr[GEN_SYS_MAX_ATTRS];
} gen_rec;

typedef struct gen_recs {
    gen_rec *v;
    size_t n, cap;
    int oom;
} gen_recs;

typedef struct gen_sys {
    const gen_rank_plan *pl;
    gen_sys_stats *st;
    gen_recs r;
    uint64_t ids[GEN_EV_COUNT];
    int k;               /* current worker */
    int64_t nc_offset;   /* of the current (k, e) */
} gen_sys;

static int32_t gen_rec_add(gen_sys *s, gen_ev ev, int phase, int64_t ts, int64_t log, uint64_t tid, int32_t begin)
{
    gen_recs *r = &s->r;
    if (r->n == r->cap) {
        gen_rec *v = gen_grow(r->v, &r->cap, sizeof *v, 1024);
        if (!v) {
            r->oom = 1;
            return -1;
        }
        r->v = v;
    }
    gen_rec *x = &r->v[r->n];
    memset(x, 0, sizeof *x);
    x->ts = ts;
    x->log = log;
    x->order = (uint32_t)r->n;
    x->begin = begin;
    x->tid = tid;
    x->ev = (uint8_t)ev;
    x->phase = (uint8_t)phase;
    gen_ev_count *c = &s->st->ev[ev];
    if (phase == 1)
        c->begins++;
    else if (phase == 2)
        c->ends++;
    else
        c->instants++;
    return (int32_t)r->n++;
}

static void gen_rec_attr(gen_sys *s, int32_t i, gen_ak key, uint64_t v)
{
    if (i < 0)
        return;
    gen_rec *x = &s->r.v[i];
    if (x->nattr < GEN_SYS_MAX_ATTRS)
        x->attr[x->nattr++] = (gen_attr){(uint8_t)key, v};
}

/* A begin/end pair; the end carries nc_idx and worker_gid. Returns the begin's index (attributes are
 * added by the caller). */
static int32_t gen_pair(gen_sys *s, gen_ev ev, int64_t start, int64_t end, uint64_t tid)
{
    int32_t b = gen_rec_add(s, ev, 1, start, start, tid, -1);
    int32_t e = gen_rec_add(s, ev, 2, end, end, tid, b);
    gen_rec_attr(s, e, GEN_AK_NC_IDX, (uint64_t)s->k);
    gen_rec_attr(s, e, GEN_AK_WORKER_GID, (uint64_t)s->k);
    return b;
}

static void gen_attrs_nc_worker(gen_sys *s, int32_t b)
{
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)s->k);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)s->k);
}

static void gen_copy(gen_sys *s, gen_ev ev, int64_t start, int64_t end, uint64_t tid, uint64_t size, uint64_t handle)
{
    int32_t b = gen_pair(s, ev, start, end, tid);
    gen_rec_attr(s, b, GEN_AK_MEM_HANDLE, handle);
    gen_rec_attr(s, b, GEN_AK_MEM_TYPE, 2);
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)s->k);
    gen_rec_attr(s, b, GEN_AK_OFFSET, 0);
    gen_rec_attr(s, b, GEN_AK_SIZE, size);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)s->k);
}

static void gen_tensor(gen_sys *s, gen_ev ev, int64_t start, int64_t end, uint64_t size, uint64_t tensor)
{
    int32_t b = gen_pair(s, ev, start, end, gen_plan_tid_main(s->pl));
    gen_rec_attr(s, b, GEN_AK_TENSOR_ID, tensor);
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)s->k);
    gen_rec_attr(s, b, GEN_AK_SIZE, size);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)s->k);
}

static void gen_load(gen_sys *s)
{
    const gen_rank_plan *pl = s->pl;
    int k = s->k;
    int64_t start = pl->load_start[k], end = start + pl->load_dur[k];
    uint64_t tid = gen_plan_tid(pl, k, 0), w = pl->core[k].weight_bytes;
    int32_t b = gen_pair(s, GEN_EV_NRT_LOAD, start, end, tid);
    gen_attrs_nc_worker(s, b);
    if (b >= 0)
        gen_rec_attr(s, b + 1, GEN_AK_MODEL_ID, pl->model_id); /* the end names the loaded model */
    for (int j = 0; j < 4; j++) {
        uint64_t size = j < 3 ? w / 4 : w - 3 * (w / 4);
        int64_t at = start + 400000 + 2000000ll * j;
        gen_copy(s, GEN_EV_DMEM_BUF_COPYIN, at, at + 1200000, tid, size,
                 GEN_SYS_MEM_HANDLE + 0x10000ull * (uint64_t)k + 0x400ull * (uint64_t)j);
        s->st->weight_bytes += size;
    }
}

static void gen_execution(gen_sys *s, int e)
{
    const gen_rank_plan *pl = s->pl;
    int k = s->k;
    const gen_exec_core *x = gen_plan_ex(pl, e, k);
    uint64_t exec_tid = gen_plan_tid(pl, k, 1), note_tid = gen_plan_tid(pl, k, 2), exec_id = (uint64_t)e + 1;
    int64_t off = gen_plan_nc_offset(pl, k, e);
    uint64_t tin = GEN_SYS_TENSOR_ID + 2 * (uint64_t)k, tout = tin + 1;

    gen_tensor(s, GEN_EV_NRT_TENSOR_WRITE, x->write + 1000, x->write + 11000, GEN_INPUT_BYTES, tin);
    gen_copy(s, GEN_EV_DMEM_BUF_COPYIN, x->write + 2000, x->write + 10000, gen_plan_tid_main(pl), GEN_INPUT_BYTES,
             GEN_SYS_MEM_HANDLE + 0x10000ull * (uint64_t)k + 0x8000);
    s->st->h2d_bytes += GEN_INPUT_BYTES;

    int32_t b = gen_pair(s, GEN_EV_NRT_EXECUTE, x->sched + GEN_CAP_EXECUTE_AFTER_SCHED_NS, x->dev_end + 12000, exec_tid);
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_MODEL_ID, pl->model_id);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)k);
    b = gen_pair(s, GEN_EV_NRT_MODEL_SUBMIT, x->sched + 1800, x->dev_start - 4000, exec_tid);
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_MODEL_ID, pl->model_id);
    b = gen_pair(s, GEN_EV_KBL_EXEC_PRE, x->sched + 2600, x->sched + 9000, exec_tid);
    gen_rec_attr(s, b, GEN_AK_MODEL_ID, pl->model_id);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_EXEC_ID, exec_id);
    b = gen_pair(s, GEN_EV_KMGR_EXEC_CORE, x->sched + 9800, x->dev_end + 9000, exec_tid);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_MODEL_ID, pl->model_id);
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)k);

    b = gen_pair(s, GEN_EV_KBL_EXEC_WAIT, x->dev_start - 3000, x->dev_end + 5000, note_tid);
    gen_rec_attr(s, b, GEN_AK_MODEL_ID, pl->model_id);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_EXEC_ID, exec_id);
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)k);
    int64_t sync_cpu = x->dev_start - 8928;
    b = gen_rec_add(s, GEN_EV_TIMESTAMP_SYNC_POINT, 3, x->dev_start - 2000, x->dev_start - 2000, note_tid, -1);
    gen_rec_attr(s, b, GEN_AK_NC_TIMESTAMP_NS, (uint64_t)(sync_cpu - off));
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_CPU_TIMESTAMP_NS, (uint64_t)sync_cpu);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_EXEC_ID, exec_id);
    /* hardware events: logged once the execution has finished */
    int64_t logged = x->dev_end + 6000;
    b = gen_rec_add(s, GEN_EV_NC_EXEC_RUNNING, 1, x->dev_start, logged, note_tid, -1);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_DEVICE_CORE_IDX, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_EXEC_ID, exec_id);
    gen_rec_attr(s, b, GEN_AK_NC_TIMESTAMP_NS, (uint64_t)(x->dev_start - off));
    int32_t en = gen_rec_add(s, GEN_EV_NC_EXEC_RUNNING, 2, x->dev_end, logged, note_tid, b);
    gen_rec_attr(s, en, GEN_AK_NC_TIMESTAMP_NS, (uint64_t)(x->dev_end - off));
    gen_rec_attr(s, en, GEN_AK_NC_IDX, (uint64_t)k);
    gen_rec_attr(s, en, GEN_AK_WORKER_GID, (uint64_t)k);
    b = gen_pair(s, GEN_EV_KBL_EXEC_POST, x->dev_end + 6500, x->dev_end + 10500, note_tid);
    gen_rec_attr(s, b, GEN_AK_NC_IDX, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_EXEC_ID, exec_id);
    gen_rec_attr(s, b, GEN_AK_WORKER_GID, (uint64_t)k);
    gen_rec_attr(s, b, GEN_AK_MODEL_ID, pl->model_id);

    gen_tensor(s, GEN_EV_NRT_TENSOR_READ, x->read + 1000, x->read + 13000, GEN_OUTPUT_BYTES, tout);
    gen_copy(s, GEN_EV_DMEM_BUF_COPYOUT, x->read + 2000, x->read + 12000, gen_plan_tid_main(pl), GEN_OUTPUT_BYTES,
             GEN_SYS_MEM_HANDLE + 0x10000ull * (uint64_t)k + 0xc000);
    s->st->d2h_bytes += GEN_OUTPUT_BYTES;
}

static int gen_rec_cmp(const void *a, const void *b)
{
    const gen_rec *x = a, *y = b;
    if (x->log != y->log)
        return x->log < y->log ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* ---- encoding ---- */

static void gen_pb_attr(gen_pb *m, const gen_attr *a)
{
    char v[24];
    size_t n = gen_fmt_u64(v, a->v);
    size_t mark = gen_pb_open(m, 12);
    gen_pb_str(m, 1, gen_ak_names[a->key]);
    gen_pb_bytes(m, 2, v, n);
    gen_pb_close(m, mark);
}

/* Sort the worker's records into logging order, number them and write them. */
static void gen_write_worker(gen_sys *s, gen_out *o, gen_pb *m)
{
    gen_recs *r = &s->r;
    uint64_t *seq = malloc((r->n ? r->n : 1) * sizeof *seq);
    if (!seq) {
        gen_out_fail(o, "allocate memory for", ENOMEM);
        return;
    }
    qsort(r->v, r->n, sizeof *r->v, gen_rec_cmp);
    /* after sorting, v[i].order is the record's creation index; seq[] is indexed by creation index */
    for (size_t i = 0; i < r->n; i++)
        seq[r->v[i].order] = (uint64_t)s->k << 50 | (uint64_t)(i + 1);
    for (size_t i = 0; i < r->n; i++) {
        const gen_rec *x = &r->v[i];
        uint64_t me = seq[x->order];
        gen_pb_reset(m);
        gen_pb_varint(m, 2, (uint64_t)x->ts);
        gen_pb_varint(m, 7, s->ids[x->ev]);
        gen_pb_varint(m, 9, x->tid);
        gen_pb_varint(m, 10, me);
        for (unsigned a = 0; a < x->nattr; a++)
            gen_pb_attr(m, &x->attr[(a + me) % x->nattr]);
        gen_pb_varint(m, 14, x->phase);
        gen_pb_varint(m, 15, x->begin >= 0 ? seq[x->begin] : me);
        gen_pb_frame(o, m);
        s->st->ntrace_records++;
    }
    free(seq);
}

/* Open dir/name; `path` is the caller's buffer (GEN_SYS_PATH_MAX), which gen_out borrows until closed. */
static int gen_open(gen_out *o, char *path, const char *dir, const char *name, gen_err *err)
{
    int n = snprintf(path, GEN_SYS_PATH_MAX, "%s/%s", dir, name);
    if (n < 0 || n >= GEN_SYS_PATH_MAX) {
        gen_err_set(err, "output path too long: %s/%s", dir, name);
        return -1;
    }
    return gen_out_open(o, path, err);
}

static int gen_write_ntrace(gen_sys *s, const char *dir, gen_err *err)
{
    char path[GEN_SYS_PATH_MAX];
    gen_out o;
    gen_pb m = {0};
    if (gen_open(&o, path, dir, "ntrace.pb", err) != 0)
        return -1;
    for (int k = 0; k < s->pl->cores && !o.failed; k++) {
        s->k = k;
        s->r.n = 0;
        gen_load(s);
        for (int e = 0; e < s->pl->executions; e++)
            gen_execution(s, e);
        if (s->r.oom)
            gen_out_fail(&o, "allocate memory for", ENOMEM);
        else
            gen_write_worker(s, &o, &m);
    }
    s->st->bytes_ntrace = gen_out_bytes(&o);
    gen_pb_free(&m);
    return gen_out_close(&o, err);
}

/* ---- cpu_util.pb, host_mem.pb ---- */

static uint64_t gen_sys_hash(const gen_rank_plan *pl, uint64_t j, uint64_t c)
{
    uint64_t x = pl->params->seed * 0xd1b54a32d192ed03ull ^ (j << 16 | c << 8 | (uint64_t)pl->rank << 40);
    return gen_rng_mix(&x);
}

static int64_t gen_sample_ts(const gen_rank_plan *pl, uint64_t j)
{
    return pl->t0 + 168442107 + (int64_t)j * 1000187000ll + (int64_t)(gen_sys_hash(pl, j, 99) % 60000);
}

/* Does (a, b] overlap the load or the execution phase? */
static int gen_busy(const gen_rank_plan *pl, int64_t a, int64_t b)
{
    int64_t l0 = pl->load_start[0], l1 = pl->load_start[pl->cores - 1] + pl->load_dur[pl->cores - 1];
    int64_t x0 = pl->step[0].start, x1 = pl->step[pl->executions - 1].end;
    return (a < l1 && b >= l0) || (a < x1 && b >= x0);
}

/* Utilisation of cpu c over (sample j−1, sample j]: main thread's CPU 3 and the workers' CPUs 4.. are busy
 * while loading and executing; idle CPUs are sometimes exactly 0 (then f1 is omitted). */
static float gen_util(const gen_rank_plan *pl, uint64_t j, int c, int busy)
{
    uint64_t h = gen_sys_hash(pl, j, (uint64_t)c);
    int workers = pl->cores < 8 ? pl->cores : 8;
    if (j == 0)
        return 0.0f;
    if (busy && c == 3)
        return (float)((double)(8800 + h % 1100) / 100.0);
    if (busy && c >= 4 && c < 4 + workers)
        return (float)((double)(3000 + h % 4000) / 100.0);
    if (h % 10 == 0)
        return 0.0f;
    return (float)((double)(50 + h % 800) / 100.0);
}

static int gen_write_samples(gen_sys *s, const char *dir, gen_err *err)
{
    const gen_rank_plan *pl = s->pl;
    gen_sys_stats *st = s->st;
    char cpu_path[GEN_SYS_PATH_MAX], mem_path[GEN_SYS_PATH_MAX];
    gen_out cpu, mem;
    gen_pb m = {0};
    if (gen_open(&cpu, cpu_path, dir, "cpu_util.pb", err) != 0)
        return -1;
    if (gen_open(&mem, mem_path, dir, "host_mem.pb", err) != 0) {
        if (gen_out_close(&cpu, NULL) != 0) { /* the open failure is the one reported */
        }
        return -1;
    }
    uint64_t loaded = 268435456;
    for (int k = 0; k < pl->cores; k++)
        loaded += pl->core[k].weight_bytes;
    st->cpu_max_pct = -1.0;
    st->mem_min = UINT64_MAX;
    int64_t prev = pl->t0;
    for (uint64_t j = 0;; j++) {
        int64_t t = gen_sample_ts(pl, j);
        if (t > pl->end)
            break;
        int busy = j > 0 && gen_busy(pl, prev, t);
        for (int c = 0; c < GEN_CAP_CPUS; c++) {
            float u = gen_util(pl, j, c, busy);
            gen_pb_reset(&m);
            if (u != 0.0f)
                gen_pb_float(&m, 1, u);
            else
                st->cpu_util_omitted++;
            gen_pb_varint(&m, 2, (uint64_t)t);
            if (c)
                gen_pb_varint(&m, 3, (uint64_t)c);
            gen_pb_frame(&cpu, &m);
            st->cpu_records++;
            if ((double)u > st->cpu_max_pct) {
                st->cpu_max_pct = (double)u;
                st->cpu_max_id = c;
                st->cpu_max_at_ns = t;
            }
        }
        uint64_t used = GEN_SYS_MEM_BASE + (t >= pl->load_start[0] ? loaded : 0) +
                        4096 * (gen_sys_hash(pl, j, 77) % 64);
        gen_pb_reset(&m);
        gen_pb_varint(&m, 1, used);
        gen_pb_varint(&m, 2, (uint64_t)t);
        gen_pb_frame(&mem, &m);
        st->mem_records++;
        st->mem_min = used < st->mem_min ? used : st->mem_min;
        st->mem_max = used > st->mem_max ? used : st->mem_max;
        if (j == 0)
            st->first_sample_ns = t;
        st->last_sample_ns = t;
        st->cpu_samples++;
        prev = t;
    }
    st->mem_total = GEN_SYS_HOST_RAM;
    st->bytes_cpu_util = gen_out_bytes(&cpu);
    st->bytes_host_mem = gen_out_bytes(&mem);
    gen_pb_free(&m);
    int rc = gen_out_close(&cpu, err);
    if (gen_out_close(&mem, err) != 0)
        rc = -1;
    return rc;
}

/* ---- trace_info.pb ---- */

static void gen_pb_file(gen_pb *m, uint32_t field, const char *dir, const char *name, uint64_t type, uint64_t n)
{
    char path[256];
    snprintf(path, sizeof path, "./output/%s/%s", dir, name);
    size_t mark = gen_pb_open(m, field);
    gen_pb_str(m, 1, path);
    gen_pb_varint(m, 2, type);
    gen_pb_varint(m, 3, n);
    gen_pb_close(m, mark);
}

static void gen_pb_table(gen_pb *m, const char *name, const gen_intern *v, size_t n)
{
    size_t mark = gen_pb_open(m, 10);
    gen_pb_str(m, 1, name);
    for (size_t i = 0; i < n; i++) {
        size_t e = gen_pb_open(m, 2);
        gen_pb_varint(m, 1, v[i].id); /* explicit, also for id 0 (`08 00`), as the runtime writes it */
        gen_pb_str(m, 2, v[i].name);
        gen_pb_close(m, e);
    }
    gen_pb_close(m, mark);
}

static int gen_write_trace_info(gen_sys *s, const char *dir, gen_err *err)
{
    const gen_rank_plan *pl = s->pl;
    const gen_sys_stats *st = s->st;
    char text[128];
    gen_pb m = {0};
    gen_pb_varint(&m, 1, 2);
    gen_pb_varint(&m, 2, pl->pid);
    gen_pb_str(&m, 4, pl->instance);
    gen_pb_file(&m, 6, pl->dir, "ntrace.pb", 1, st->ntrace_records);
    size_t host = gen_pb_open(&m, 7);
    gen_pb_varint(&m, 1, GEN_CAP_CPUS);
    gen_pb_str(&m, 2, "SYNTHETIC CPU (nl-gen-profile)");
    gen_pb_varint(&m, 3, GEN_SYS_HOST_RAM);
    gen_pb_float(&m, 4, 1.0f);
    gen_pb_float(&m, 5, 1.0f);
    gen_pb_file(&m, 6, pl->dir, "cpu_util.pb", 2, st->cpu_samples);
    gen_pb_file(&m, 7, pl->dir, "host_mem.pb", 3, st->mem_records);
    gen_pb_close(&m, host);
    gen_pb_varint(&m, 9, 2);
    gen_pb_table(&m, "ntrace_inspect_type", gen_types, sizeof gen_types / sizeof gen_types[0]);
    gen_intern models[2] = {{pl->model_id, GEN_NEFF_NAME}, {0, "invalid_interned_string"}};
    gen_pb_table(&m, "system_trace", models, 2);
    gen_pb_table(&m, "nrt_inspect_mem_usage_type", gen_usage_types, sizeof gen_usage_types / sizeof gen_usage_types[0]);
    gen_pb_table(&m, "nrt_inspect_mem_alloc_errno_type", gen_errno_types, 2);
    gen_pb_varint(&m, 11, (uint64_t)pl->t0);
    gen_pb_varint(&m, 12, (uint64_t)pl->end);
    snprintf(text, sizeof text, "192.0.2.%d", pl->rank % 250 + 1);
    gen_pb_str(&m, 13, text);
    gen_pb_varint(&m, 14, st->ntrace_records);
    gen_pb_str(&m, 15, "trn1.2xlarge");
    gen_pb_varint(&m, 16, 2);
    snprintf(text, sizeof text, "synthetic-rank%d", pl->rank);
    gen_pb_str(&m, 17, text);
    size_t f18 = gen_pb_open(&m, 18);
    gen_pb_varint(&m, 4, 0xffffffffull);
    gen_pb_close(&m, f18);

    char path[GEN_SYS_PATH_MAX];
    gen_out o;
    int rc = gen_open(&o, path, dir, "trace_info.pb", err);
    if (rc == 0) {
        gen_pb_write(&o, &m);
        s->st->bytes_trace_info = gen_out_bytes(&o);
        rc = gen_out_close(&o, err);
    }
    gen_pb_free(&m);
    return rc;
}

int gen_system_write(const gen_rank_plan *pl, const char *dir, gen_sys_stats *st, gen_err *err)
{
    memset(st, 0, sizeof *st);
    gen_sys s = {.pl = pl, .st = st};
    for (int t = 0; t < GEN_EV_COUNT; t++)
        s.ids[t] = gen_ev_id((gen_ev)t);
    int rc = gen_write_ntrace(&s, dir, err);
    free(s.r.v);
    if (rc == 0)
        rc = gen_write_samples(&s, dir, err);
    if (rc == 0)
        rc = gen_write_trace_info(&s, dir, err);
    return rc;
}
