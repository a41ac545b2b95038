/* Unit tests for analyzers/analyses/device_summary: engine busy time and its disjoint pieces from
 * instructions, checked against a brute-force coverage count, for an export whose instructions come in
 * timestamp order (merged online) and the same records shuffled (collected and sorted), which must agree;
 * semaphore waits (EVENT_SEMAPHORE) stay out of busy time; DMA busy time is the union of packets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_summary.h"
#include "neuron_json.h"

#define N_INSTR 3000
#define SPAN 20000

static const char *const engines[] = {"Tensor", "Vector", "Scalar", "GpSimd", "Sync"};

typedef struct instr {
    int64_t ts, dur;
    int engine, semaphore;
} instr;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Instructions sorted by timestamp: overlapping, touching and separate, ~1 in 10 a semaphore wait. */
static void make_instructions(instr *v, uint64_t seed)
{
    for (size_t i = 0; i < N_INSTR; i++) {
        v[i].ts = (int64_t)(i * SPAN / N_INSTR) + (int64_t)(rng_next(&seed) % 3);
        v[i].dur = (int64_t)(rng_next(&seed) % 40);
        v[i].engine = (int)(rng_next(&seed) % 5);
        v[i].semaphore = rng_next(&seed) % 10 == 0;
    }
    for (size_t i = 1; i < N_INSTR; i++) /* keep timestamp order after the jitter */
        if (v[i].ts < v[i - 1].ts)
            v[i].ts = v[i - 1].ts;
}

static char *export_text(const instr *v, size_t n)
{
    size_t cap = n * 160 + 256, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len, "{\"instruction\":[");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s{\"timestamp\":%lld,\"duration\":%lld,\"subgroup\":\"%s\",\"opcode\":\"%s\"}",
                                i ? "," : "", (long long)v[i].ts, (long long)v[i].dur, engines[v[i].engine],
                                v[i].semaphore ? "EVENT_SEMAPHORE" : "MATMUL");
    len += (size_t)snprintf(s + len, cap - len, "],\"dma\":[{\"timestamp\":50,\"duration\":10,\"transfer_size\":64},"
                                                "{\"timestamp\":5,\"duration\":50,\"transfer_size\":64},"
                                                "{\"timestamp\":70,\"duration\":5,\"transfer_size\":64}]}");
    assert_true(len < cap);
    return s;
}

/* Busy ns and pieces of engine e by marking every covered ns. */
static int64_t brute_busy(const instr *v, size_t n, int e, uint64_t *pieces)
{
    static unsigned char cell[SPAN + 128];
    memset(cell, 0, sizeof cell);
    for (size_t i = 0; i < n; i++)
        if (v[i].engine == e && !v[i].semaphore)
            for (int64_t t = v[i].ts; t < v[i].ts + v[i].dur; t++)
                cell[t] = 1;
    int64_t busy = 0;
    *pieces = 0;
    for (size_t t = 0; t < sizeof cell; t++) {
        busy += cell[t];
        if (cell[t] && (t == 0 || !cell[t - 1]))
            ++*pieces;
    }
    return busy;
}

static void summarize(const instr *v, size_t n, device_summary *out)
{
    char *text = export_text(v, n);
    device_model *m = NULL;
    nl_error err;
    neuron_json_options opt = {.threads = 1};
    if (neuron_json_read_mem(text, strlen(text), "t.json", &opt, &m, &err) != 0)
        fail_msg("read: %s", err.message);
    if (device_summary_compute(m, NULL, out, &err) != 0)
        fail_msg("summary: %s", err.message);
    device_model_free(m);
    free(text);
}

static void busy_time_is_the_union_in_order_and_shuffled(void **state)
{
    (void)state;
    static instr v[N_INSTR], shuffled[N_INSTR];
    make_instructions(v, 77);
    memcpy(shuffled, v, sizeof v);
    uint64_t seed = 99;
    for (size_t i = N_INSTR - 1; i > 0; i--) {
        size_t j = (size_t)(rng_next(&seed) % (i + 1));
        instr t = shuffled[i];
        shuffled[i] = shuffled[j];
        shuffled[j] = t;
    }
    device_summary a, b;
    summarize(v, N_INSTR, &a);
    summarize(shuffled, N_INSTR, &b);
    for (int e = 0; e < DS_ENGINE_COUNT; e++) {
        uint64_t pieces;
        int64_t want = brute_busy(v, N_INSTR, e, &pieces);
        assert_true(want > 0);
        assert_int_equal(a.engines[e].busy_ns, want);
        assert_int_equal(a.engines[e].busy_intervals, pieces);
        assert_int_equal(b.engines[e].busy_ns, want);
        assert_int_equal(b.engines[e].busy_intervals, pieces);
    }
    assert_int_equal(a.dma.packet_busy_ns, 60); /* [5,55) ∪ [50,60) ∪ [70,75) = [5,60) + [70,75) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(busy_time_is_the_union_in_order_and_shuffled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
