/* ntff-bench — times the NTFF payload decoder (analyzers/readers/ntff_payload*.c) on one file; driven by
 * bench/ntff_bench.py, which also measures the process's peak RSS.
 *
 *   ntff-bench [--threads N] [--mode scan|model] FILE.ntff
 *
 * scan   the record scan alone: per core the origin pass, then every (core, section kind) scan with a visitor
 *        that only sums what it is given, on N threads (1 = one core; 0 = all online CPUs) pulling scans from
 *        a shared counter. Memory is the decoder's own (chunk buffer, pairing state): nothing is kept.
 * model  ntff_payload_fill_model for every core in turn (its threads option = N): the device model is built
 *        and freed; its size is reported.
 * Output: one JSON line {"mode", "threads", "bytes", "seconds", "mb_per_s", "records", "instructions", "dma",
 * "semaphores", "checksum", "model_bytes"}. Exit 0, 1 on a decoder error (on stderr), 2 usage. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "device_model.h"
#include "ntff_payload.h"

#define BENCH_TASKS_MAX (NTFF_PAYLOAD_CORES_MAX * 3)

typedef struct bench_task {
    size_t core;
    ntff_section_kind kind;
    ntff_scan_stats stats;
    uint64_t checksum;
    nl_error err;
    int rc;
} bench_task;

typedef struct bench {
    const ntff_payload *p;
    ntff_origin origin[NTFF_PAYLOAD_CORES_MAX];
    bench_task task[BENCH_TASKS_MAX];
    size_t ntasks;
    atomic_size_t next;
} bench;

static int bench_instr(void *ctx, const ntff_instr_row *r)
{
    *(uint64_t *)ctx += (uint64_t)r->timestamp_ns + (uint64_t)r->duration_ns + (uint64_t)r->evt_wait_ns + r->pc_byte;
    return 0;
}

static int bench_dma(void *ctx, const ntff_dma_row *r)
{
    *(uint64_t *)ctx += (uint64_t)r->timestamp_ns + (uint64_t)r->duration_ns + r->size;
    return 0;
}

static int bench_sem(void *ctx, const ntff_sem_row *r)
{
    *(uint64_t *)ctx += (uint64_t)r->timestamp_ns + r->value;
    return 0;
}

static const ntff_payload_visitor bench_visitor = {bench_instr, bench_dma, bench_sem};

static void *bench_worker(void *arg)
{
    bench *b = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->ntasks)
            return NULL;
        bench_task *t = &b->task[i];
        t->rc = ntff_payload_scan(b->p, t->core, t->kind, &b->origin[t->core], &bench_visitor, &t->checksum,
                                  &t->stats, &t->err);
    }
}

static double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int bench_fail(const nl_error *e)
{
    fprintf(stderr, "ntff-bench: %s at %lld: %s\n", nl_error_code_name(e->code), (long long)e->offset, e->message);
    return 1;
}

static unsigned bench_threads(unsigned n)
{
    if (n)
        return n;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (unsigned)c : 1;
}

static int bench_scan(const ntff_payload *p, unsigned threads, uint64_t *totals)
{
    static bench b;
    memset(&b, 0, sizeof b);
    b.p = p;
    nl_error err;
    for (size_t c = 0; c < ntff_payload_core_count(p); c++) {
        if (ntff_payload_origin(p, c, &b.origin[c], &err))
            return bench_fail(&err);
        static const ntff_section_kind kinds[] = {NTFF_SECTION_DMA, NTFF_SECTION_INSTRUCTIONS, NTFF_SECTION_SEMAPHORES};
        for (size_t k = 0; k < 3; k++)
            b.task[b.ntasks++] = (bench_task){.core = c, .kind = kinds[k]};
    }
    unsigned n = bench_threads(threads);
    pthread_t tid[64];
    unsigned started = 0;
    for (unsigned i = 1; i < n && i < 64; i++)
        if (pthread_create(&tid[started], NULL, bench_worker, &b) == 0)
            started++;
    bench_worker(&b);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    for (size_t i = 0; i < b.ntasks; i++) {
        const bench_task *t = &b.task[i];
        if (t->rc)
            return bench_fail(&t->err);
        totals[0] += t->stats.records;
        totals[1] += t->stats.instr_visible;
        totals[2] += t->stats.dma_visible;
        totals[3] += t->stats.sem_records;
        totals[4] += t->checksum;
    }
    return 0;
}

static int bench_model(const ntff_payload *p, uint64_t *totals, uint64_t *model_bytes)
{
    nl_error err;
    for (size_t c = 0; c < ntff_payload_core_count(p); c++) {
        device_model *m = device_model_new(&err);
        ntff_payload_report rep;
        if (!m || ntff_payload_fill_model(p, c, m, &rep, &err)) {
            device_model_free(m);
            return bench_fail(&err);
        }
        totals[0] += rep.instr.records + rep.dma.records + rep.sem.records;
        totals[1] += device_model_rows(m, DEVICE_MODEL_INSTRUCTIONS);
        totals[2] += device_model_rows(m, DEVICE_MODEL_DMA);
        totals[3] += device_model_rows(m, DEVICE_MODEL_NTFF_SEMAPHORES);
        if (device_model_bytes(m) > *model_bytes)
            *model_bytes = device_model_bytes(m);
        device_model_free(m);
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned threads = 0;
    const char *mode = "scan", *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
            mode = argv[++i];
        else if (!path)
            path = argv[i];
        else
            path = NULL, i = argc;
    }
    if (!path || (strcmp(mode, "scan") && strcmp(mode, "model")))
        return fprintf(stderr, "usage: ntff-bench [--threads N] [--mode scan|model] FILE.ntff\n"), 2;
    struct stat st;
    if (stat(path, &st) != 0)
        return perror(path), 1;
    double t0 = bench_now();
    nl_error err;
    ntff_payload_options opt = {.threads = threads};
    ntff_payload *p = ntff_payload_open(path, &opt, &err);
    if (!p)
        return bench_fail(&err);
    uint64_t totals[5] = {0}, model_bytes = 0;
    int rc = strcmp(mode, "scan") == 0 ? bench_scan(p, threads, totals) : bench_model(p, totals, &model_bytes);
    ntff_payload_free(p);
    double secs = bench_now() - t0;
    if (rc)
        return rc;
    printf("{\"mode\": \"%s\", \"threads\": %u, \"bytes\": %lld, \"seconds\": %.4f, \"mb_per_s\": %.1f, "
           "\"records\": %llu, \"instructions\": %llu, \"dma\": %llu, \"semaphores\": %llu, \"checksum\": %llu, "
           "\"model_bytes\": %llu}\n",
           mode, bench_threads(threads), (long long)st.st_size, secs, (double)st.st_size / secs / 1e6,
           (unsigned long long)totals[0], (unsigned long long)totals[1], (unsigned long long)totals[2],
           (unsigned long long)totals[3], (unsigned long long)totals[4], (unsigned long long)model_bytes);
    return 0;
}
