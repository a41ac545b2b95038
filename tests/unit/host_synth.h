/* host_synth — small synthetic inputs for the host-side analyses (test_timeline_host.c,
 * test_gaps_host.c, test_host_device_join.c): a system-profile capture written to a temp directory (trace_info.pb with an
 * event-type table whose ids differ from any runtime's, ntrace.pb from a list of records), loaded as a
 * system_model, and a Kineto trace read from memory. Header-only (static); aborts through cmocka. */
#ifndef NL_HOST_SYNTH_H
#define NL_HOST_SYNTH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framework_model.h"
#include "kineto.h"
#include "pb_synth.h"
#include "system_model.h"
#include "system_profile.h"

/* Type ids on purpose unlike runtime 2.30.51's. */
enum { HS_EXECUTE = 61, HS_EXEC_RUNNING = 62, HS_CC_RUNNING = 63, HS_WRITE = 64, HS_BARRIER = 65 };

typedef struct hs_ev {
    uint64_t ts, type, phase, span, thread;
    const char *attrs[14]; /* key, value, ..., NULL */
} hs_ev;

typedef struct hs_capture {
    char dir[64], trace_info[96], ntrace[96];
} hs_capture;

static void hs_write(const char *path, const pbs *data)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data->b, 1, data->n, f), data->n);
    fclose(f);
}

static void hs_table(pbs *ti, const char *name, const uint64_t *ids, const char *const *values, size_t n)
{
    pbs t = {.n = 0};
    pbs_str(&t, 1, name);
    for (size_t i = 0; i < n; i++) {
        pbs e = {.n = 0};
        pbs_uint(&e, 1, ids[i]);
        pbs_str(&e, 2, values[i]);
        pbs_bytes(&t, 2, e.b, e.n);
    }
    pbs_bytes(ti, 10, t.b, t.n);
}

/* Write the capture (n records) and load it. */
static system_model *hs_system(hs_capture *c, const hs_ev *list, size_t n)
{
    static const uint64_t ids[] = {HS_EXECUTE, HS_EXEC_RUNNING, HS_CC_RUNNING, HS_WRITE, HS_BARRIER};
    static const char *const names[] = {"nrt_execute", "nc_exec_running", "cc_running", "nrt_tensor_write",
                                        "cc_exec_barrier"};
    snprintf(c->dir, sizeof c->dir, "/tmp/test_host_synth_XXXXXX");
    assert_non_null(mkdtemp(c->dir));
    snprintf(c->trace_info, sizeof c->trace_info, "%s/trace_info.pb", c->dir);
    snprintf(c->ntrace, sizeof c->ntrace, "%s/ntrace.pb", c->dir);
    pbs *ti = calloc(1, sizeof *ti), *s = calloc(1, sizeof *s);
    assert_non_null(ti);
    assert_non_null(s);
    pbs_uint(ti, 1, 2);
    pbs_uint(ti, 2, 77);
    hs_table(ti, "ntrace_inspect_type", ids, names, sizeof ids / sizeof ids[0]);
    pbs_uint(ti, 14, n);
    for (size_t i = 0; i < n; i++) {
        pbs m = {.n = 0};
        pbs_uint(&m, 2, list[i].ts);
        pbs_uint(&m, 7, list[i].type);
        pbs_uint(&m, 9, list[i].thread ? list[i].thread : 77);
        pbs_uint(&m, 10, list[i].span);
        for (size_t k = 0; list[i].attrs[k]; k += 2)
            pbs_attr(&m, list[i].attrs[k], list[i].attrs[k + 1]);
        pbs_uint(&m, 14, list[i].phase);
        pbs_uint(&m, 15, list[i].span);
        pbs_frame(s, &m);
    }
    hs_write(c->trace_info, ti);
    hs_write(c->ntrace, s);
    free(ti);
    free(s);
    system_profile_paths p = {.trace_info = c->trace_info, .ntrace = c->ntrace};
    system_model *m = NULL;
    nl_error e;
    assert_int_equal(system_profile_load(&p, NULL, &m, &e), 0);
    return m;
}

static void hs_remove(const hs_capture *c)
{
    unlink(c->trace_info);
    unlink(c->ntrace);
    rmdir(c->dir);
}

static framework_model *hs_trace(const char *doc)
{
    framework_model *m = NULL;
    nl_error err;
    if (kineto_read_mem(doc, strlen(doc), "t.json", NULL, &m, &err) != 0)
        fail_msg("read failed: %s at %lld: %s", nl_error_code_name(err.code), (long long)err.offset, err.message);
    return m;
}

#define HS_W0 "worker_gid", "0", "nc_idx", "0"

/* The capture test_timeline_host.c and test_gaps_host.c share. Spans (completion order): execute [1000,9000) nc0, exec core4 [3000,5000), exec core5 [4000,6000),
 * cc core4 [3500,3600) and [4500,4700), cc core5 [3550,3650), write [7000,7100) 4096 B, an orphan cc end at
 * 8000 on core 4. */
static inline system_model *hs_fixture_system(hs_capture *c)
{
    static const hs_ev list[] = {
        {1000, HS_EXECUTE, 1, 1, 0, {HS_W0, "model_id", "500", NULL}},
        {3000, HS_EXEC_RUNNING, 1, 2, 0, {HS_W0, "device_core_idx", "4", "exec_id", "1", "nc_timestamp_ns", "100", NULL}},
        {4000, HS_EXEC_RUNNING, 1, 3, 0, {HS_W0, "device_core_idx", "5", "exec_id", "1", "nc_timestamp_ns", "1100", NULL}},
        {3500, HS_CC_RUNNING, 1, 4, 0, {HS_W0, "device_core_idx", "4", NULL}},
        {3600, HS_CC_RUNNING, 2, 4, 0, {HS_W0, NULL}},
        {3550, HS_CC_RUNNING, 1, 6, 0, {HS_W0, "device_core_idx", "5", NULL}},
        {3650, HS_CC_RUNNING, 2, 6, 0, {HS_W0, NULL}},
        {4500, HS_CC_RUNNING, 1, 5, 0, {HS_W0, "device_core_idx", "4", NULL}},
        {4700, HS_CC_RUNNING, 2, 5, 0, {HS_W0, NULL}},
        {5000, HS_EXEC_RUNNING, 2, 2, 0, {HS_W0, "nc_timestamp_ns", "2100", NULL}},
        {6000, HS_EXEC_RUNNING, 2, 3, 0, {HS_W0, "nc_timestamp_ns", "3100", NULL}},
        {7000, HS_WRITE, 1, 7, 0, {HS_W0, "size", "4096", NULL}},
        {7100, HS_WRITE, 2, 7, 0, {HS_W0, NULL}},
        {8000, HS_CC_RUNNING, 2, 99, 0, {HS_W0, "device_core_idx", "4", NULL}},
        {9000, HS_EXECUTE, 2, 1, 0, {HS_W0, NULL}},
    };
    return hs_system(c, list, sizeof list / sizeof list[0]);
}

#endif
