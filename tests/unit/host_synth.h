/* host_synth — small synthetic inputs for the host-side analyses (test_host_extract.c,
 * test_host_device_join.c): a system-profile capture written to a temp directory (trace_info.pb with an
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

#endif
