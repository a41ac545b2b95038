/* Unit tests for analyzers/export_adapter with fake `neuron-profile` scripts written at test time: argv
 * shape (no shell), caching by content hash, timeout kill, cancel kill, failure reporting, absent tool. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "export_adapter.h"

typedef struct tmpenv {
    char dir[256];
    char tool[300];
    char cache[300];
    char ntff[300];
    char calls[300];
} tmpenv;

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 65536);
    size_t n = fread(buf, 1, 65535, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A fake neuron-profile that logs its argv and writes a tiny export to the --output-file argument. */
static const char fake_ok[] =
    "#!/bin/sh\n"
    "echo \"$@\" >> \"$(dirname \"$0\")/calls\"\n"
    "while [ $# -gt 0 ]; do if [ \"$1\" = --output-file ]; then printf '{\"instruction\":[]}' > \"$2\"; fi; shift; done\n"
    "echo 'this goes to the log, not to MCP stdout'\n";

static int setup(void **state)
{
    tmpenv *t = calloc(1, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "/tmp/nl-adapter-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->tool, sizeof t->tool, "%s/neuron-profile", t->dir);
    snprintf(t->cache, sizeof t->cache, "%s/cache", t->dir);
    snprintf(t->ntff, sizeof t->ntff, "%s/profile with space.ntff", t->dir);
    snprintf(t->calls, sizeof t->calls, "%s/calls", t->dir);
    write_file(t->ntff, "\x06 fake ntff bytes", 0644);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    tmpenv *t = *state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    assert_int_equal(system(cmd), 0);
    free(t);
    return 0;
}

static void export_runs_tool_with_argv_and_caches_by_content(void **state)
{
    tmpenv *t = *state;
    write_file(t->tool, fake_ok, 0755);
    nl_adapter_options opt = {.tool_path = t->tool, .cache_dir = t->cache, .timeout_ms = 10000};
    nl_error err;
    nl_error_clear(&err);
    char *out = NULL;
    int cached = -1;
    assert_int_equal(nl_adapter_export(t->ntff, "/n/x.neff", &opt, &out, &cached, &err), 0);
    assert_int_equal(cached, 0);
    char *json = read_file(out);
    assert_string_equal(json, "{\"instruction\":[]}");
    free(json);
    char *calls = read_file(t->calls);
    /* the path with a space arrived as one argument, in the documented order */
    assert_non_null(strstr(calls, "view -n /n/x.neff -s "));
    assert_non_null(strstr(calls, "profile with space.ntff --output-format json --output-file "));
    free(calls);
    char *again = NULL;
    assert_int_equal(nl_adapter_export(t->ntff, "/n/x.neff", &opt, &again, &cached, &err), 0);
    assert_int_equal(cached, 1);
    assert_string_equal(out, again);
    calls = read_file(t->calls);
    assert_null(strstr(strstr(calls, "\n") + 1, "view")); /* the tool ran once */
    free(calls);
    free(again);
    /* different content → different cache entry → the tool runs again */
    write_file(t->ntff, "\x06 other bytes", 0644);
    assert_int_equal(nl_adapter_export(t->ntff, NULL, &opt, &again, &cached, &err), 0);
    assert_int_equal(cached, 0);
    assert_string_not_equal(out, again);
    free(again);
    free(out);
}

static void absent_tool_gives_the_command_to_run(void **state)
{
    tmpenv *t = *state;
    nl_adapter_options opt = {.tool_path = "/nonexistent/neuron-profile", .cache_dir = t->cache};
    nl_error err;
    char *out = NULL;
    int cached;
    assert_int_equal(nl_adapter_export(t->ntff, "/n/x.neff", &opt, &out, &cached, &err), -1);
    assert_int_equal(err.code, NL_ERR_NOT_FOUND);
    assert_null(out);
    assert_non_null(strstr(err.message, "neuron-profile view -n /n/x.neff -s "));
    assert_non_null(strstr(err.message, "--output-format json --output-file profile with space.json"));
}

static void slow_tool_is_killed_at_the_timeout(void **state)
{
    tmpenv *t = *state;
    write_file(t->tool, "#!/bin/sh\nsleep 30\n", 0755);
    nl_adapter_options opt = {.tool_path = t->tool, .cache_dir = t->cache, .timeout_ms = 200};
    nl_error err;
    char *out = NULL;
    int cached;
    time_t t0 = time(NULL);
    assert_int_equal(nl_adapter_export(t->ntff, NULL, &opt, &out, &cached, &err), -1);
    assert_int_equal(err.code, NL_ERR_LIMIT);
    assert_true(time(NULL) - t0 < 5);
}

static void *cancel_later(void *arg)
{
    struct timespec ts = {0, 150 * 1000000L};
    nanosleep(&ts, NULL);
    atomic_store((atomic_int *)arg, 1);
    return NULL;
}

static void cancel_kills_the_tool(void **state)
{
    tmpenv *t = *state;
    write_file(t->tool, "#!/bin/sh\nsleep 30\n", 0755);
    atomic_int cancel = 0;
    nl_adapter_options opt = {.tool_path = t->tool, .cache_dir = t->cache, .timeout_ms = 60000, .cancel = &cancel};
    pthread_t th;
    pthread_create(&th, NULL, cancel_later, &cancel);
    nl_error err;
    char *out = NULL;
    int cached;
    time_t t0 = time(NULL);
    assert_int_equal(nl_adapter_export(t->ntff, NULL, &opt, &out, &cached, &err), -1);
    pthread_join(th, NULL);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    assert_true(time(NULL) - t0 < 5);
}

static void failing_tool_reports_status_and_log(void **state)
{
    tmpenv *t = *state;
    write_file(t->tool, "#!/bin/sh\necho 'NTFF version 9 is not supported' >&2\nexit 3\n", 0755);
    nl_adapter_options opt = {.tool_path = t->tool, .cache_dir = t->cache, .timeout_ms = 10000};
    nl_error err;
    char *out = NULL;
    int cached;
    assert_int_equal(nl_adapter_export(t->ntff, NULL, &opt, &out, &cached, &err), -1);
    assert_int_equal(err.code, NL_ERR_IO);
    assert_non_null(strstr(err.message, "exit status 3"));
    char *log = read_file(err.source);
    assert_non_null(log);
    assert_non_null(strstr(log, "NTFF version 9 is not supported"));
    free(log);
}

static void tool_that_writes_nothing_is_a_format_error(void **state)
{
    tmpenv *t = *state;
    write_file(t->tool, "#!/bin/sh\nexit 0\n", 0755);
    nl_adapter_options opt = {.tool_path = t->tool, .cache_dir = t->cache, .timeout_ms = 10000};
    nl_error err;
    char *out = NULL;
    int cached;
    assert_int_equal(nl_adapter_export(t->ntff, NULL, &opt, &out, &cached, &err), -1);
    assert_int_equal(err.code, NL_ERR_FORMAT);
}

static void hash_covers_every_byte(void **state)
{
    tmpenv *t = *state;
    char a[17], b[17];
    nl_error err;
    write_file(t->ntff, "abcdefghijklmnopq", 0644);
    assert_int_equal(nl_adapter_hash_file(t->ntff, a, NULL, &err), 0);
    write_file(t->ntff, "abcdefghijklmnopr", 0644);
    assert_int_equal(nl_adapter_hash_file(t->ntff, b, NULL, &err), 0);
    assert_string_not_equal(a, b);
    assert_int_equal(strlen(a), 16);
    assert_int_equal(nl_adapter_hash_file("/nonexistent", a, NULL, &err), -1);
    assert_int_equal(err.code, NL_ERR_IO);
    assert_string_equal(err.source, "/nonexistent");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(export_runs_tool_with_argv_and_caches_by_content, setup, teardown),
        cmocka_unit_test_setup_teardown(absent_tool_gives_the_command_to_run, setup, teardown),
        cmocka_unit_test_setup_teardown(slow_tool_is_killed_at_the_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(cancel_kills_the_tool, setup, teardown),
        cmocka_unit_test_setup_teardown(failing_tool_reports_status_and_log, setup, teardown),
        cmocka_unit_test_setup_teardown(tool_that_writes_nothing_is_a_format_error, setup, teardown),
        cmocka_unit_test_setup_teardown(hash_covers_every_byte, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
