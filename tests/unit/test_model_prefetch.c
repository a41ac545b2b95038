/* Unit test for nl_model_cache_prefetch (analyzers/model_cache.c): loading many exports at once on a few
 * threads leaves each one cached exactly once (one file read per export), leaves cached ones alone, does
 * not cache a broken export (the caller's own get reports it), and stops starting loads once cancelled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model_cache.h"

#define N_EXPORTS 12

static char *write_export(const char *dir, int k, int broken)
{
    char *path = malloc(strlen(dir) + 32);
    sprintf(path, "%s/e%d.json", dir, k);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"instruction\":[");
    for (int i = 0; i < 200 + k; i++)
        fprintf(f, "%s{\"timestamp\":%d,\"opcode\":\"OP%d\"}", i ? "," : "", i, i % 7);
    fprintf(f, broken ? "],\"metadata\":[" : "]}");
    fclose(f);
    return path;
}

static void prefetch_caches_each_export_once(void **state)
{
    (void)state;
    char dir[] = "/tmp/nl_prefetch_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *paths[N_EXPORTS + 1];
    for (int k = 0; k < N_EXPORTS; k++)
        paths[k] = write_export(dir, k, 0);
    paths[N_EXPORTS] = write_export(dir, N_EXPORTS, 1);
    nl_model_source srcs[N_EXPORTS + 1];
    for (int k = 0; k <= N_EXPORTS; k++)
        srcs[k] = (nl_model_source){.kind = NL_MODEL_DEVICE, .path = paths[k]};
    nl_model_cache *c = nl_model_cache_new(0, 0);
    assert_non_null(c);

    nl_model_cache_prefetch(c, srcs, N_EXPORTS + 1, 3, NULL);
    assert_int_equal(nl_model_cache_loads(c), N_EXPORTS + 1);
    for (int k = 0; k < N_EXPORTS; k++) {
        nl_model_ref *r = nl_model_cache_peek(c, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = paths[k]});
        assert_non_null(r);
        assert_int_equal(device_model_rows(nl_model_ref_device(r), DEVICE_MODEL_INSTRUCTIONS), 200 + k);
        nl_model_ref_release(r);
    }
    assert_null(nl_model_cache_peek(c, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = paths[N_EXPORTS]})); /* failures are not cached */
    nl_error err;
    assert_null(nl_model_cache_get(c, &(nl_model_source){.kind = NL_MODEL_DEVICE, .path = paths[N_EXPORTS]}, NULL, &err));
    assert_int_equal(err.code, NL_ERR_TRUNCATED);

    uint64_t loads = nl_model_cache_loads(c);
    nl_model_cache_prefetch(c, srcs, N_EXPORTS, 0, NULL); /* all cached: no reads */
    assert_int_equal(nl_model_cache_loads(c), loads);

    atomic_int cancel = 1;
    nl_model_cache *c2 = nl_model_cache_new(0, 0);
    nl_model_cache_prefetch(c2, srcs, N_EXPORTS, 4, &cancel);
    assert_int_equal(nl_model_cache_loads(c2), 0);
    nl_model_cache_free(c2);

    nl_model_cache_free(c);
    for (int k = 0; k <= N_EXPORTS; k++) {
        unlink(paths[k]);
        free(paths[k]);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prefetch_caches_each_export_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
