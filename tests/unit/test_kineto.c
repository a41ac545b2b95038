/* Unit tests for analyzers/readers/kineto (and the framework_model it fills) on handcrafted traces: exact
 * µs → ns, ids beyond int64, string and numeric pid/tid, top-level keys, every phase, device-or-host
 * classification, chunk boundaries (1-byte to 4 KiB reads), gzip (one member, several members, trailing
 * bytes, cut off, corrupt), cut-off input at every byte with the offset reported, no traceEvents, a bare
 * torch 1.x array, bad fields, caps, any byte corrupted, memory limits and cancel; and the fast paths
 * (whole members, skipped values) against the token path, on valid and corrupted input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "framework_model.h"
#include "framework_summary.h"
#include "kineto.h"

/* A torch 2.x style trace: unsorted events, metadata with ts 0 after the events, flows, an instant,
 * string pids, ids beyond int64, a nested args value, and top-level keys before and after traceEvents. */
static const char trace_doc[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 17, \"name\": \"ARTEMIS\", \"maxGrid\": [8, 8]}, {\"name\": \"x\"}],\n"
    " \"trace_id\": \"13072646111613355758\", \"baseTimeNanoseconds\": 1767189312000000000,\n"
    " \"distributedInfo\": {\"backend\": \"gloo\", \"rank\": 34, \"world_size\": 300, \"pg_config\": [{\"a\": 1}]},\n"
    " \"stackFrames\": {\"1\": {\"name\": \"f\"}},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 865, \"tid\": 1457,"
    " \"ts\": 701805216974.574, \"dur\": 1290.914, \"args\": {\"External id\": 12290, \"Input Dims\": [[4, 512], []],"
    " \"Python parent id\": null, \"Concrete Inputs\": [\"\", \"1e-06\"]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": 865, \"tid\": 1457,"
    " \"ts\": 701805216966.892, \"dur\": 31345.582, \"args\": {\"External id\": 12289}},\n"
    "  {\"ph\": \"X\", \"cat\": \"mtia_runtime\", \"name\": \"launch\", \"pid\": 865, \"tid\": 1457,"
    " \"ts\": 701805216980.000, \"dur\": 3.5, \"args\": {\"correlation\": 18446744073709551616, \"device\": 17,"
    " \"stream_id\": \"108\"}},\n"
    "  {\"ph\": \"s\", \"id\": 21600000, \"pid\": 865, \"tid\": 1457, \"ts\": 701805216980.000, \"cat\": \"ac2g\","
    " \"name\": \"ac2g\"},\n"
    "  {\"ph\": \"f\", \"id\": \"21600000\", \"pid\": \"17\", \"tid\": 3774, \"ts\": 701805217000.25, \"cat\": \"ac2g\","
    " \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "  {\"ph\": \"X\", \"cat\": \"mtia_ccp_events\", \"name\": \"dma_request\", \"pid\": 17, \"tid\": 3774,"
    " \"ts\": 701805217000.25, \"dur\": 5.24, \"args\": {\"correlation\": \"18446744073709551616\","
    " \"direction\": \"HOST_TO_DEVICE\", \"size\": 1024, \"packet_ptr\": 8}},\n"
    "  {\"ph\": \"i\", \"s\": \"g\", \"name\": \"Record Window End\", \"pid\": \"\", \"tid\": \"\","
    " \"ts\": 701805517864.886},\n"
    "  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.0, \"pid\": 17, \"tid\": 0, \"args\": {\"name\": \"MTIA 17\"}},\n"
    "  {\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0, \"pid\": 17, \"tid\": 0, \"args\": {\"labels\": \"MTIA 17\"}},\n"
    "  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 17, \"tid\": 3774, \"args\": {\"name\": \"Stream 108\"}},\n"
    "  {\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\","
    " \"ts\": 701805173347.222, \"dur\": 344517.664, \"args\": {\"Op count\": 0}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\", \"pid\": -1, \"tid\": 0, \"ts\": 12, \"dur\": 0}\n"
    " ],\n"
    " \"INFO\": [\"INFO: one\", \"INFO: two\"], \"ERROR\": [\"ERROR: gpuGetDeviceCount failed\"],\n"
    " \"traceName\": \"/tmp/libkineto_activities_865.json\", \"displayTimeUnit\": \"ms\"\n"
    "}\n";

#define TRACE_EVENTS 12

static framework_model *read_ok(const void *doc, size_t len, const kineto_options *opt)
{
    framework_model *m = (framework_model *)0x1;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    if (kineto_read_mem(doc, len, "trace.json", opt, &m, &err) != 0)
        fail_msg("read failed: %s at %lld record %lld field '%s': %s", nl_error_code_name(err.code),
                 (long long)err.offset, (long long)err.record, err.field, err.message);
    assert_non_null(m);
    return m;
}

static nl_error read_fail(const void *doc, size_t len, const kineto_options *opt)
{
    framework_model *m = (framework_model *)0x1;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    if (kineto_read_mem(doc, len, "trace.json", opt, &m, &err) == 0)
        fail_msg("read of '%.60s' succeeded, expected an error", (const char *)doc);
    assert_null(m);
    assert_string_equal(err.source, "trace.json");
    assert_true(err.message[0] != '\0');
    return err;
}

static const char *col_str(const framework_model *m, uint32_t col, size_t row)
{
    return framework_model_str(m, table_str(framework_model_events(m), col, row), NULL);
}

static int64_t col_i64(const framework_model *m, uint32_t col, size_t row)
{
    return table_i64(framework_model_events(m), col, row);
}

static uint64_t col_u64(const framework_model *m, uint32_t col, size_t row)
{
    return table_u64(framework_model_events(m), col, row);
}

static const framework_model_note *find_note(const framework_model *m, framework_model_note_kind kind, const char *name)
{
    for (size_t i = 0; i < framework_model_note_count(m); i++) {
        const framework_model_note *n = framework_model_note_at(m, i);
        if (n->kind == kind && (!name || strcmp(framework_model_str(m, n->name, NULL), name) == 0))
            return n;
    }
    return NULL;
}

static const framework_model_process *find_process(const framework_model *m, const char *pid)
{
    for (size_t i = 0; i < framework_model_process_count(m); i++) {
        const framework_model_process *p = framework_model_process_at(m, i);
        if (strcmp(framework_model_str(m, p->pid, NULL), pid) == 0)
            return p;
    }
    return NULL;
}

/* gzip `len` bytes of `data` as one member; *out malloc'd. */
static size_t gzip_bytes(const void *data, size_t len, unsigned char **out)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&zs, (uLong)len) + 64;
    *out = malloc(cap);
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)len;
    zs.next_out = *out;
    zs.avail_out = (uInt)cap;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t n = cap - zs.avail_out;
    deflateEnd(&zs);
    return n;
}

/* Every column of every row equal. */
static void assert_same_rows(const framework_model *a, const framework_model *b)
{
    assert_int_equal(framework_model_rows(a), framework_model_rows(b));
    const table *ta = framework_model_events(a), *tb = framework_model_events(b);
    for (size_t r = 0; r < framework_model_rows(a); r++) {
        for (uint32_t c = 0; c < FM_EV_NCOLS; c++) {
            const table_column *col = table_column_at(ta, c);
            if (col->kind == TABLE_STR)
                assert_string_equal(framework_model_str(a, table_str(ta, c, r), NULL),
                                    framework_model_str(b, table_str(tb, c, r), NULL));
            else if (col->kind == TABLE_INT)
                assert_int_equal(table_i64(ta, c, r), table_i64(tb, c, r));
            else if (c == FM_EV_FLAGS || !(table_u64(ta, FM_EV_FLAGS, r) & (FM_F_CORR_TEXT | FM_F_EXT_TEXT | FM_F_FLOW_TEXT)))
                assert_true(table_u64(ta, c, r) == table_u64(tb, c, r));
        }
    }
}

/* ---- µs → ns ------------------------------------------------------------------------------------------ */

static void us_to_ns_is_exact_fixed_point_with_half_even_rounding(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int ok;
        int64_t ns;
    } cases[] = {
        {"1212075548353.304", 1, 1212075548353304},
        {"1695835542481129", 1, 1695835542481129000},
        {"1695835542481129.123", 1, 1695835542481129123}, /* a double's ulp here is 0.25 µs */
        {"0", 1, 0},
        {"0.0", 1, 0},
        {"-0.000", 1, 0},
        {"0.0005", 1, 0},  /* 0.5 ns → even 0 */
        {"0.0015", 1, 2},  /* 1.5 ns → even 2 */
        {"0.0025", 1, 2},  /* 2.5 ns → even 2 */
        {"0.00251", 1, 3}, /* above half */
        {"0.00249999999999999999999", 1, 2},
        {"12.3456789", 1, 12346},
        {"-1.5", 1, -1500},
        {"-0.0015", 1, -2},
        {"1e3", 1, 1000000},
        {"1.5E-3", 1, 2},
        {"2.5e-3", 1, 2},
        {"25e-4", 1, 2},
        {"1E+2", 1, 100000},
        {"00012.5", 1, 12500},
        {"9223372036854775.807", 1, INT64_MAX},
        {"-9223372036854775.808", 1, INT64_MIN},
        {"9223372036854775.808", 0, 0},
        {"9223372036854775807", 0, 0},
        {"1e400", 0, 0},
        {"0e400", 1, 0},
        {"1e-400", 1, 0},
        {"123456789012345678901234567890e-30", 1, 123},
        {"", 0, 0},
        {"-", 0, 0},
        {"1.", 0, 0},
        {".5", 0, 0},
        {"1e", 0, 0},
        {"1e+", 0, 0},
        {"abc", 0, 0},
        {"1.5x", 0, 0},
        {"+1", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t ns = 0x5a5a5a5a;
        int rc = kineto_us_to_ns(cases[i].text, strlen(cases[i].text), &ns);
        if (cases[i].ok != (rc == 0) || (rc == 0 && ns != cases[i].ns))
            fail_msg("'%s': rc %d ns %lld, expected %s %lld", cases[i].text, rc, (long long)ns,
                     cases[i].ok ? "ok" : "failure", (long long)cases[i].ns);
    }
}

/* ---- reading ------------------------------------------------------------------------------------------ */

static void object_trace_reads_every_event_column_and_top_level_key(void **state)
{
    (void)state;
    framework_model *m = read_ok(trace_doc, sizeof trace_doc - 1, NULL);
    assert_int_equal(framework_model_rows(m), TRACE_EVENTS);
    assert_int_equal(framework_model_partial(m, NULL), 0);
    assert_int_equal(framework_model_layout_of(m), FM_LAYOUT_OBJECT);
    assert_false(framework_model_gzipped(m));
    assert_int_equal(framework_model_json_bytes(m), sizeof trace_doc - 1);
    /* row 0: fractional µs exactly, External id, nested args skipped */
    assert_string_equal(col_str(m, FM_EV_PH, 0), "X");
    assert_string_equal(col_str(m, FM_EV_CAT, 0), "cpu_op");
    assert_string_equal(col_str(m, FM_EV_NAME, 0), "aten::add");
    assert_string_equal(col_str(m, FM_EV_PID, 0), "865");
    assert_string_equal(col_str(m, FM_EV_TID, 0), "1457");
    assert_int_equal(col_i64(m, FM_EV_TS, 0), 701805216974574);
    assert_int_equal(col_i64(m, FM_EV_DUR, 0), 1290914);
    uint64_t f0 = col_u64(m, FM_EV_FLAGS, 0);
    assert_true((f0 & (FM_F_TS | FM_F_DUR | FM_F_EXT)) == (FM_F_TS | FM_F_DUR | FM_F_EXT));
    assert_false(f0 & (FM_F_CORR | FM_F_FLOW | FM_F_EXT_TEXT));
    assert_true(col_u64(m, FM_EV_EXT, 0) == 12290);
    assert_true(col_i64(m, FM_EV_OFFSET, 0) > 0 && trace_doc[col_i64(m, FM_EV_OFFSET, 0)] == '{');
    /* row 2: a correlation beyond uint64 keeps its digits as text */
    uint64_t f2 = col_u64(m, FM_EV_FLAGS, 2);
    assert_true((f2 & (FM_F_CORR | FM_F_CORR_TEXT)) == (FM_F_CORR | FM_F_CORR_TEXT));
    assert_string_equal(framework_model_str(m, (uint32_t)col_u64(m, FM_EV_CORR, 2), NULL), "18446744073709551616");
    /* row 5: the same digits as a string are the same id; direction and size */
    assert_true(col_u64(m, FM_EV_FLAGS, 5) & FM_F_CORR_TEXT);
    assert_true(col_u64(m, FM_EV_CORR, 5) == col_u64(m, FM_EV_CORR, 2));
    assert_string_equal(col_str(m, FM_EV_DETAIL, 5), "HOST_TO_DEVICE");
    assert_true((col_u64(m, FM_EV_FLAGS, 5) & FM_F_BYTES) && col_u64(m, FM_EV_BYTES, 5) == 1024);
    assert_int_equal(col_i64(m, FM_EV_TS, 5), 701805217000250);
    /* rows 3/4: flow ids, numeric and digit string are the same id; bp "e"; string pid "17" == 17 */
    assert_true(col_u64(m, FM_EV_FLOW, 3) == 21600000 && col_u64(m, FM_EV_FLOW, 4) == 21600000);
    assert_false(col_u64(m, FM_EV_FLAGS, 4) & FM_F_FLOW_TEXT);
    assert_true(col_u64(m, FM_EV_FLAGS, 4) & FM_F_BIND_ENCLOSING);
    assert_false(col_u64(m, FM_EV_FLAGS, 3) & FM_F_BIND_ENCLOSING);
    assert_string_equal(col_str(m, FM_EV_PID, 4), "17");
    assert_string_equal(col_str(m, FM_EV_PID, 5), "17");
    /* rows 6-9: instant with empty string pid; metadata detail */
    assert_string_equal(col_str(m, FM_EV_PH, 6), "i");
    assert_string_equal(col_str(m, FM_EV_PID, 6), "");
    assert_string_equal(col_str(m, FM_EV_DETAIL, 7), "MTIA 17");
    assert_string_equal(col_str(m, FM_EV_DETAIL, 8), "MTIA 17");
    assert_string_equal(col_str(m, FM_EV_DETAIL, 9), "Stream 108");
    assert_int_equal(col_i64(m, FM_EV_TS, 7), 0);
    assert_string_equal(col_str(m, FM_EV_CAT, 7), "");
    /* row 11: negative pid, integer µs */
    assert_string_equal(col_str(m, FM_EV_PID, 11), "-1");
    assert_int_equal(col_i64(m, FM_EV_TS, 11), 12000);
    /* top level */
    const kvlist *tr = framework_model_trace(m);
    const char *s;
    int64_t base;
    assert_true(framework_model_time_base(m, &base) && base == 1767189312000000000);
    assert_true(kvlist_get_str(tr, "trace_id", &s) && strcmp(s, "13072646111613355758") == 0);
    assert_true(kvlist_get_str(tr, "traceName", &s) && strcmp(s, "/tmp/libkineto_activities_865.json") == 0);
    int64_t v;
    assert_true(kvlist_get_i64(framework_model_dist(m), "rank", &v) && v == 34);
    assert_true(kvlist_get_str(framework_model_dist(m), "backend", &s) && strcmp(s, "gloo") == 0);
    assert_int_equal(framework_model_device_count(m), 2);
    uint32_t name;
    assert_true(framework_model_device_at(m, 0, &v, &name) && v == 17);
    assert_string_equal(framework_model_str(m, name, NULL), "ARTEMIS");
    assert_false(framework_model_device_at(m, 1, &v, &name));
    assert_int_equal(framework_model_log_count(m, false), 2);
    assert_int_equal(framework_model_log_count(m, true), 1);
    assert_string_equal(framework_model_error_line(m, 0), "ERROR: gpuGetDeviceCount failed");
    assert_non_null(find_note(m, FM_NOTE_TOP_KEY, "stackFrames"));
    /* processes: 17 is a device (categories + name), the rest host; threads named */
    assert_int_equal(find_process(m, "17")->device, FM_DEVICE_BY_CATEGORY);
    assert_string_equal(framework_model_str(m, find_process(m, "17")->name, NULL), "MTIA 17");
    assert_int_equal(find_process(m, "865")->device, FM_HOST);
    assert_int_equal(find_process(m, "Spans")->device, FM_HOST);
    assert_int_equal(find_process(m, "-1")->device, FM_HOST);
    const uint32_t *rt = framework_model_row_threads(m);
    const framework_model_thread *th = framework_model_thread_at(m, rt[5]);
    assert_string_equal(framework_model_str(m, th->name, NULL), "Stream 108");
    assert_int_equal(rt[0], rt[1]);
    assert_int_equal(rt[4], rt[5]);
    framework_model_free(m);
}

static void processes_are_devices_by_category_name_or_properties_never_string_pids(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"deviceProperties\": [{\"id\": 3}, {\"id\": 1}],\"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":5,\"args\":{\"name\":\"Neuron Device 5\"}},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_runtime\",\"name\":\"r\",\"pid\":5,\"tid\":1,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":6,\"args\":{\"labels\":\"NeuronCore 2\"}},"
        "{\"ph\":\"X\",\"name\":\"nc_exec_running\",\"pid\":6,\"tid\":1,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":8,\"args\":{\"name\":\"devicemanager\"}},"
        "{\"ph\":\"X\",\"name\":\"x\",\"pid\":8,\"tid\":1,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"x\",\"pid\":3,\"tid\":1,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"container pid 1\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":\"GPU\",\"tid\":1,\"ts\":1,\"dur\":1}"
        "]}";
    framework_model *m = read_ok(doc, sizeof doc - 1, NULL);
    assert_int_equal(find_process(m, "0")->device, FM_DEVICE_BY_CATEGORY);
    assert_int_equal(find_process(m, "5")->device, FM_HOST); /* a host-only category wins over the name */
    assert_int_equal(find_process(m, "6")->device, FM_DEVICE_BY_NAME);
    assert_int_equal(find_process(m, "8")->device, FM_HOST); /* "devicemanager": no word boundary */
    assert_int_equal(find_process(m, "3")->device, FM_DEVICE_BY_PROPERTIES);
    assert_int_equal(find_process(m, "1")->device, FM_HOST); /* cpu_op on a pid equal to a device id */
    assert_int_equal(find_process(m, "GPU")->device, FM_HOST); /* string pids are never devices */
    framework_model_free(m);
}

static void every_read_size_gives_the_same_rows(void **state)
{
    (void)state;
    framework_model *ref = read_ok(trace_doc, sizeof trace_doc - 1, NULL);
    for (size_t rs = 1; rs <= 64; rs++) {
        kineto_options opt = {.read_size = rs};
        framework_model *m = read_ok(trace_doc, sizeof trace_doc - 1, &opt);
        assert_same_rows(ref, m);
        assert_int_equal(framework_model_note_count(m), framework_model_note_count(ref));
        framework_model_free(m);
    }
    kineto_options opt = {.read_size = 4093};
    framework_model *m = read_ok(trace_doc, sizeof trace_doc - 1, &opt);
    assert_same_rows(ref, m);
    framework_model_free(m);
    framework_model_free(ref);
}

static void gzip_is_detected_by_magic_and_read_at_every_read_size(void **state)
{
    (void)state;
    framework_model *ref = read_ok(trace_doc, sizeof trace_doc - 1, NULL);
    unsigned char *gz;
    size_t n = gzip_bytes(trace_doc, sizeof trace_doc - 1, &gz);
    for (size_t rs = 2; rs <= 40; rs += 3) {
        kineto_options opt = {.read_size = rs};
        framework_model *m = read_ok(gz, n, &opt);
        assert_true(framework_model_gzipped(m));
        assert_int_equal(framework_model_file_bytes(m), n);
        assert_int_equal(framework_model_json_bytes(m), sizeof trace_doc - 1);
        assert_same_rows(ref, m);
        framework_model_free(m);
    }
    /* a file named .json.gz that is not compressed is read as JSON: the magic decides */
    framework_model *m = read_ok(trace_doc, sizeof trace_doc - 1, NULL);
    assert_false(framework_model_gzipped(m));
    framework_model_free(m);
    free(gz);
    framework_model_free(ref);
}

static void concatenated_gzip_members_are_read_in_turn_and_trailing_bytes_noted(void **state)
{
    (void)state;
    size_t half = sizeof trace_doc / 2;
    unsigned char *a, *b;
    size_t na = gzip_bytes(trace_doc, half, &a), nb = gzip_bytes(trace_doc + half, sizeof trace_doc - 1 - half, &b);
    unsigned char *both = malloc(na + nb + 3);
    memcpy(both, a, na);
    memcpy(both + na, b, nb);
    framework_model *ref = read_ok(trace_doc, sizeof trace_doc - 1, NULL);
    kineto_options opt = {.read_size = 7};
    framework_model *m = read_ok(both, na + nb, &opt);
    assert_same_rows(ref, m);
    assert_null(find_note(m, FM_NOTE_TRAILING_BYTES, NULL));
    framework_model_free(m);
    memcpy(both + na + nb, "xyz", 3);
    m = read_ok(both, na + nb + 3, NULL);
    assert_same_rows(ref, m);
    assert_non_null(find_note(m, FM_NOTE_TRAILING_BYTES, NULL));
    framework_model_free(m);
    framework_model_free(ref);
    free(a);
    free(b);
    free(both);
}

static void cut_off_gzip_keeps_the_events_inflated_before_the_cut(void **state)
{
    (void)state;
    unsigned char *gz;
    size_t n = gzip_bytes(trace_doc, sizeof trace_doc - 1, &gz);
    int partials = 0;
    for (size_t cut = 0; cut < n; cut++) {
        framework_model *m = (framework_model *)0x1;
        nl_error err;
        memset(&err, 0x5a, sizeof err);
        if (kineto_read_mem(gz, cut, "trace.json.gz", NULL, &m, &err) != 0) {
            assert_null(m);
            assert_true(err.code == NL_ERR_TRUNCATED || err.code == NL_ERR_FORMAT);
            assert_string_equal(err.source, "trace.json.gz");
            continue;
        }
        nl_error why;
        assert_true(framework_model_partial(m, &why));
        assert_int_equal(why.code, NL_ERR_TRUNCATED);
        assert_non_null(strstr(why.message, "gzip stream ends early"));
        assert_true(framework_model_rows(m) <= TRACE_EVENTS);
        partials++;
        framework_model_free(m);
    }
    assert_true(partials > 0);
    /* corrupt deflate data in the middle: an error or a partial model, never a crash */
    unsigned char *bad = malloc(n);
    memcpy(bad, gz, n);
    for (size_t i = 20; i < n - 8; i += 7)
        bad[i] ^= 0x55;
    framework_model *m;
    nl_error err;
    if (kineto_read_mem(bad, n, "bad.gz", NULL, &m, &err) == 0) {
        nl_error why;
        assert_true(framework_model_partial(m, &why));
        framework_model_free(m);
    } else {
        assert_true(err.code == NL_ERR_FORMAT || err.code == NL_ERR_TRUNCATED);
    }
    free(bad);
    free(gz);
}

static void cut_off_json_at_every_byte_is_partial_or_an_error_with_the_offset(void **state)
{
    (void)state;
    size_t len = sizeof trace_doc - 1;
    const char *events = strstr(trace_doc, "\"traceEvents\": [");
    size_t events_at = (size_t)(events - trace_doc) + 16;
    for (size_t cut = 0; cut < len; cut++) {
        framework_model *m = (framework_model *)0x1;
        nl_error err;
        memset(&err, 0x5a, sizeof err);
        int rc = kineto_read_mem(trace_doc, cut, "trace.json", NULL, &m, &err);
        if (rc != 0) {
            assert_null(m);
            assert_true(cut < events_at); /* after traceEvents began, a cut is always partial */
            assert_true(err.code == NL_ERR_TRUNCATED || err.code == NL_ERR_FORMAT);
            assert_true(err.offset >= 0 && (size_t)err.offset <= cut);
            continue;
        }
        nl_error why;
        if (cut == len - 1) { /* only the final newline missing: complete */
            assert_false(framework_model_partial(m, NULL));
            framework_model_free(m);
            continue;
        }
        assert_true(framework_model_partial(m, &why));
        assert_int_equal(why.code, NL_ERR_TRUNCATED);
        assert_true(why.offset >= 0 && (size_t)why.offset <= cut);
        assert_string_equal(why.source, "trace.json");
        assert_true(framework_model_rows(m) <= TRACE_EVENTS);
        framework_model_free(m);
    }
    /* cut inside the third event: two events kept, the record index names the third */
    const char *third = strstr(trace_doc, "{\"ph\": \"X\", \"cat\": \"mtia_runtime\"");
    size_t cut = (size_t)(third - trace_doc) + 40;
    framework_model *m = read_ok(trace_doc, cut, NULL);
    nl_error why;
    assert_true(framework_model_partial(m, &why));
    assert_int_equal(framework_model_rows(m), 2);
    assert_int_equal(why.record, 2);
    assert_int_equal(why.offset, (int64_t)cut);
    framework_model_free(m);
    /* strict: the same input fails */
    kineto_options strict = {.strict = true};
    nl_error err = read_fail(trace_doc, cut, &strict);
    assert_int_equal(err.code, NL_ERR_TRUNCATED);
    assert_int_equal(err.record, 2);
}

static void missing_trace_events_and_non_traces_are_format_errors(void **state)
{
    (void)state;
    static const char no_events[] = "{\"schemaVersion\": 1, \"traceName\": \"x\"}";
    nl_error err = read_fail(no_events, sizeof no_events - 1, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_non_null(strstr(err.message, "no traceEvents"));
    static const char not_array[] = "{\"traceEvents\": {\"ph\": \"X\"}}";
    err = read_fail(not_array, sizeof not_array - 1, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 16);
    assert_non_null(strstr(err.message, "traceEvents is an object"));
    err = read_fail("42", 2, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 0);
    err = read_fail("", 0, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_non_null(strstr(err.message, "empty"));
    static const char before_events[] = "{\"schemaVersion\": 1 garbage}";
    err = read_fail(before_events, sizeof before_events - 1, NULL);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 20);
    /* malformed JSON inside traceEvents after one event: partial, the format error kept */
    static const char broken[] = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}, {\"ph\": \"X\",, }]}";
    framework_model *m = read_ok(broken, sizeof broken - 1, NULL);
    nl_error why;
    assert_true(framework_model_partial(m, &why));
    assert_int_equal(why.code, NL_ERR_FORMAT);
    assert_int_equal(why.offset, 50); /* the second comma of ",," */
    assert_int_equal(framework_model_rows(m), 1);
    framework_model_free(m);
}

static void bare_torch1_array_is_read_and_an_unclosed_one_is_partial(void **state)
{
    (void)state;
    static const char arr[] = "[{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"conv\",\"pid\":1,\"tid\":\"1\",\"ts\":1600000000000001,"
                              "\"dur\":10},\n{\"ph\":\"X\",\"name\":\"relu\",\"pid\":1,\"tid\":\"1\",\"ts\":1600000000000003,"
                              "\"dur\":2}]";
    framework_model *m = read_ok(arr, sizeof arr - 1, NULL);
    assert_int_equal(framework_model_layout_of(m), FM_LAYOUT_ARRAY);
    assert_int_equal(framework_model_rows(m), 2);
    assert_false(framework_model_partial(m, NULL));
    int64_t base;
    assert_false(framework_model_time_base(m, &base));
    assert_int_equal(col_i64(m, FM_EV_TS, 0), 1600000000000001000);
    framework_model_free(m);
    /* Chrome allows the closing ']' to be missing: partial with both events */
    m = read_ok(arr, sizeof arr - 2, NULL);
    assert_int_equal(framework_model_rows(m), 2);
    assert_true(framework_model_partial(m, NULL));
    framework_model_free(m);
}

static void bad_elements_and_fields_are_skipped_and_noted(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"traceEvents\": [1, [2, 3], \"x\", {\"name\": \"no ph\"}, {\"ph\": 5},"
        "{\"ph\": \"X\", \"name\": 7, \"cat\": [1], \"pid\": true, \"tid\": {}, \"ts\": \"abc\", \"dur\": \"2.5\","
        " \"id\": false, \"args\": [1]},"
        "{\"ph\": \"X\", \"ts\": 1e30, \"dur\": -3, \"args\": {\"correlation\": -5, \"External id\": 1.5, \"bytes\": -1,"
        " \"size\": 9, \"correlation \": 1}},"
        "{\"ph\": \"X\", \"ts\": null, \"cat\": null, \"args\": {\"correlation\": \"-5\", \"bytes\": 18446744073709551615}}"
        "]}";
    framework_model *m = read_ok(doc, sizeof doc - 1, NULL);
    assert_int_equal(framework_model_rows(m), 3);
    assert_int_equal(find_note(m, FM_NOTE_NOT_OBJECT, NULL)->count, 3);
    assert_int_equal(find_note(m, FM_NOTE_NO_PH, NULL)->count, 2);
    assert_non_null(find_note(m, FM_NOTE_BAD_FIELD, "ph"));
    assert_non_null(find_note(m, FM_NOTE_BAD_FIELD, "name"));
    assert_non_null(find_note(m, FM_NOTE_BAD_FIELD, "cat"));
    assert_non_null(find_note(m, FM_NOTE_BAD_FIELD, "pid"));
    assert_non_null(find_note(m, FM_NOTE_BAD_FIELD, "tid"));
    assert_non_null(find_note(m, FM_NOTE_BAD_FIELD, "id"));
    assert_int_equal(find_note(m, FM_NOTE_BAD_TIME, "ts")->count, 2);
    assert_non_null(find_note(m, FM_NOTE_NEGATIVE_DUR, NULL));
    /* row 0: ts unusable, dur from a numeric string */
    uint64_t f0 = col_u64(m, FM_EV_FLAGS, 0);
    assert_false(f0 & FM_F_TS);
    assert_true(f0 & FM_F_DUR);
    assert_int_equal(col_i64(m, FM_EV_DUR, 0), 2500);
    assert_string_equal(col_str(m, FM_EV_NAME, 0), "");
    /* row 1: negative and fractional ids are text; bytes falls back to size */
    uint64_t f1 = col_u64(m, FM_EV_FLAGS, 1);
    assert_true((f1 & (FM_F_CORR | FM_F_CORR_TEXT | FM_F_EXT | FM_F_EXT_TEXT)) ==
                (FM_F_CORR | FM_F_CORR_TEXT | FM_F_EXT | FM_F_EXT_TEXT));
    assert_string_equal(framework_model_str(m, (uint32_t)col_u64(m, FM_EV_CORR, 1), NULL), "-5");
    assert_string_equal(framework_model_str(m, (uint32_t)col_u64(m, FM_EV_EXT, 1), NULL), "1.5");
    assert_true(col_u64(m, FM_EV_BYTES, 1) == 9);
    assert_int_equal(col_i64(m, FM_EV_DUR, 1), -3000);
    /* row 2: "-5" as a string is the same text id; bytes up to UINT64_MAX */
    assert_true(col_u64(m, FM_EV_CORR, 2) == col_u64(m, FM_EV_CORR, 1));
    assert_true(col_u64(m, FM_EV_BYTES, 2) == UINT64_MAX);
    assert_false(col_u64(m, FM_EV_FLAGS, 2) & FM_F_TS);
    framework_model_free(m);
}

static void long_names_are_cut_and_deep_args_hit_the_depth_cap(void **state)
{
    (void)state;
    size_t long_len = KINETO_NAME_MAX + 100;
    size_t cap = long_len + 256;
    char *doc = malloc(cap);
    int n = snprintf(doc, cap, "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"name\": \"");
    memset(doc + n, 'a', long_len);
    n += (int)long_len;
    n += snprintf(doc + n, cap - (size_t)n, "\"}]}");
    framework_model *m = read_ok(doc, (size_t)n, NULL);
    size_t len;
    framework_model_str(m, table_str(framework_model_events(m), FM_EV_NAME, 0), &len);
    assert_int_equal(len, KINETO_NAME_MAX);
    assert_non_null(find_note(m, FM_NOTE_LONG_NAME, NULL));
    framework_model_free(m);
    free(doc);
    /* args nested deeper than KINETO_DEPTH_MAX: the first event is kept, the read stops partial */
    size_t depth = KINETO_DEPTH_MAX + 4;
    cap = 2 * depth + 256;
    doc = malloc(cap);
    n = snprintf(doc, cap, "{\"traceEvents\": [{\"ph\": \"i\", \"ts\": 1}, {\"ph\": \"X\", \"args\": ");
    for (size_t i = 0; i < depth; i++)
        doc[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        doc[n++] = ']';
    n += snprintf(doc + n, cap - (size_t)n, "}]}");
    m = read_ok(doc, (size_t)n, NULL);
    nl_error why;
    assert_true(framework_model_partial(m, &why));
    assert_int_equal(why.code, NL_ERR_LIMIT);
    assert_int_equal(why.record, 1);
    assert_int_equal(framework_model_rows(m), 1);
    framework_model_free(m);
    free(doc);
}

/* Every byte replaced in turn by each of a few troublesome bytes: a model (maybe partial) or a structured
 * error, never a crash (run under ASan/UBSan in CI); each model also goes through the framework summary. */
static void corrupting_any_byte_never_crashes(void **state)
{
    (void)state;
    static const char subst[] = {'\0', '"', '{', ']', '9', '.', '-', 'e', '\\', (char)0xff};
    size_t len = sizeof trace_doc - 1;
    char *doc = malloc(len);
    size_t ok = 0, failed = 0;
    for (size_t i = 0; i < len; i++) {
        for (size_t k = 0; k < sizeof subst; k++) {
            memcpy(doc, trace_doc, len);
            doc[i] = subst[k];
            framework_model *m = (framework_model *)0x1;
            nl_error err;
            if (kineto_read_mem(doc, len, "x.json", NULL, &m, &err) == 0) {
                assert_true(framework_model_rows(m) <= TRACE_EVENTS + 1);
                framework_summary s;
                assert_int_equal(framework_summary_compute(m, NULL, &s, &err), 0);
                framework_summary_free(&s);
                framework_model_free(m);
                ok++;
            } else {
                assert_null(m);
                assert_true(err.code == NL_ERR_FORMAT || err.code == NL_ERR_TRUNCATED || err.code == NL_ERR_LIMIT);
                assert_true(err.message[0] != '\0');
                failed++;
            }
        }
    }
    assert_true(ok > 0 && failed > 0);
    free(doc);
}

static void memory_limits_fail_cleanly_at_every_size(void **state)
{
    (void)state;
    size_t ok_from = 0;
    for (size_t limit = 1024; limit <= (1u << 20); limit += limit / 8) {
        kineto_options opt = {.memory_limit = limit};
        framework_model *m = (framework_model *)0x1;
        nl_error err;
        if (kineto_read_mem(trace_doc, sizeof trace_doc - 1, "trace.json", &opt, &m, &err) == 0) {
            assert_int_equal(framework_model_rows(m), TRACE_EVENTS);
            framework_model_free(m);
            if (!ok_from)
                ok_from = limit;
            continue;
        }
        assert_null(m);
        assert_int_equal(err.code, NL_ERR_NOMEM);
        assert_int_equal(ok_from, 0); /* once it fits, a larger limit fits too */
    }
    assert_true(ok_from > 0);
}

static void cancel_stops_the_read(void **state)
{
    (void)state;
    atomic_int cancel = 1;
    kineto_options opt = {.cancel = &cancel};
    nl_error err = read_fail(trace_doc, sizeof trace_doc - 1, &opt);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
}

static void progress(void *ctx, uint64_t done, uint64_t total)
{
    uint64_t *calls = ctx;
    assert_true(done <= total);
    calls[0]++;
    calls[1] = done;
}

static void reads_files_and_reports_progress(void **state)
{
    (void)state;
    char path[] = "/tmp/nl_test_kineto_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unsigned char *gz;
    size_t n = gzip_bytes(trace_doc, sizeof trace_doc - 1, &gz);
    assert_int_equal(write(fd, gz, n), (ssize_t)n);
    close(fd);
    uint64_t calls[2] = {0, 0};
    kineto_options opt = {.progress = progress, .progress_ctx = calls, .read_size = 64};
    framework_model *m;
    nl_error err;
    assert_int_equal(kineto_read(path, &opt, &m, &err), 0);
    assert_int_equal(framework_model_rows(m), TRACE_EVENTS);
    assert_true(calls[0] >= 2);
    assert_int_equal(calls[1], n);
    framework_model_free(m);
    unlink(path);
    free(gz);
    assert_int_equal(kineto_read(path, NULL, &m, &err), -1);
    assert_int_equal(err.code, NL_ERR_NOT_FOUND);
    assert_int_equal(kineto_read("/tmp", NULL, &m, &err), -1);
    assert_int_equal(err.code, NL_ERR_IO);
}

/* ---- fast paths ----------------------------------------------------------------------------------------- */

/* Events as torch writes them (": ", ", "), pretty-printed, compact, with escapes (an escaped key makes the
 * member fast path decline), ignored args and fields holding containers before and after the ones the
 * model reads, known fields and args holding containers, duplicate and null fields, and M events. */
static const char fast_doc[] =
    "{\"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 865, \"tid\": 1457, \"ts\": 2500001.000,"
    " \"dur\": 0.770, \"args\": {\"Record function id\": 0, \"Concrete Inputs\": [\"1024\", \"4\", \"\", \"False\"],"
    " \"Input Dims\": [[1, 1024], [], [[2]]], \"External id\": 17, \"Ev Idx\": 0}},\n"
    "  {\n    \"ph\" : \"X\",\n    \"cat\"\t: \"kernel\",\r\n    \"name\": \"k\\u00e9rnel \\\"1\\\"\",\n"
    "    \"extra\": {\"a\": [1, {\"b\": null}], \"c\": \"\\n\"}, \"bp\": {\"e\": 1},\n"
    "    \"pid\": 0, \"tid\": \"stream 7\",\n"
    "    \"ts\": 2500002.5, \"dur\": 3, \"args\": {\n      \"queued\": 0, \"correlation\": 42,"
    " \"grid\": [1, 1, 1], \"block\": [128, 1, 1], \"device\": 0\n    }\n  },\n"
    "  {\"ph\":\"f\",\"id\":\"99\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":2500002.500,\"cat\":\"ac2g\","
    "\"name\":\"ac2g\",\"bp\":\"e\",\"x\":[[[]]]},\n"
    "  {\"ph\": \"X\", \"n\\u0061me\": \"escaped key\", \"ts\": -1.25e1, \"dur\": \"7\","
    " \"args\": {\"correlation\": [1],"
    " \"External id\": {\"no\": 1}, \"bytes\": 1e3, \"size\": 512, \"direction\": \"HOST_TO_DEVICE\"}, \"cat\": null,"
    " \"name\": \"dup\", \"name\": \"dup2\"},\n"
    "  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 0, \"tid\": \"stream 7\","
    " \"args\": {\"sort\": [0], \"name\": \"Stream 7\"}},\n"
    "  {\"name\": \"process_labels\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"labels\": \"GPU 0\", \"name\": []}}\n"
    "], \"traceName\": \"fast\", \"baseTimeNanoseconds\": 1767229200000000000}\n";

#define FAST_EVENTS 6

static void assert_same_strings(const framework_model *a, uint32_t ida, const framework_model *b, uint32_t idb)
{
    assert_string_equal(framework_model_str(a, ida, NULL), framework_model_str(b, idb, NULL));
}

static void assert_same_kv(const framework_model *a, const kvlist *la, const framework_model *b, const kvlist *lb)
{
    assert_int_equal(la == NULL, lb == NULL);
    if (!la)
        return;
    assert_int_equal(kvlist_count(la), kvlist_count(lb));
    for (size_t i = 0; i < kvlist_count(la); i++) {
        const kvlist_entry *x = kvlist_at(la, i), *y = kvlist_at(lb, i);
        assert_same_strings(a, x->key, b, y->key);
        assert_same_strings(a, x->text, b, y->text);
        assert_int_equal(x->kind, y->kind);
        assert_true(x->i == y->i && x->u == y->u && memcmp(&x->num, &y->num, sizeof x->num) == 0);
    }
}

/* Everything a reader of the model sees, compared by content (string ids may differ). */
static void assert_same_model(const framework_model *a, const framework_model *b)
{
    assert_same_rows(a, b);
    nl_error wa, wb;
    assert_int_equal(framework_model_partial(a, &wa), framework_model_partial(b, &wb));
    if (framework_model_partial(a, NULL)) {
        assert_int_equal(wa.code, wb.code);
        assert_int_equal(wa.offset, wb.offset);
        assert_int_equal(wa.record, wb.record);
        assert_string_equal(wa.field, wb.field);
    }
    assert_int_equal(framework_model_note_count(a), framework_model_note_count(b));
    for (size_t i = 0; i < framework_model_note_count(a); i++) {
        const framework_model_note *x = framework_model_note_at(a, i), *y = framework_model_note_at(b, i);
        assert_int_equal(x->kind, y->kind);
        assert_same_strings(a, x->name, b, y->name);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->first_offset, y->first_offset);
    }
    assert_same_kv(a, framework_model_trace(a), b, framework_model_trace(b));
    assert_same_kv(a, framework_model_dist(a), b, framework_model_dist(b));
    assert_int_equal(framework_model_device_count(a), framework_model_device_count(b));
    assert_int_equal(framework_model_log_count(a, true), framework_model_log_count(b, true));
    assert_int_equal(framework_model_log_count(a, false), framework_model_log_count(b, false));
    assert_int_equal(framework_model_process_count(a), framework_model_process_count(b));
    for (size_t i = 0; i < framework_model_process_count(a); i++) {
        const framework_model_process *x = framework_model_process_at(a, i), *y = framework_model_process_at(b, i);
        assert_same_strings(a, x->pid, b, y->pid);
        assert_same_strings(a, x->name, b, y->name);
        assert_same_strings(a, x->labels, b, y->labels);
        assert_int_equal(x->device, y->device);
        assert_int_equal(x->events, y->events);
    }
    assert_int_equal(framework_model_thread_count(a), framework_model_thread_count(b));
    for (size_t i = 0; i < framework_model_thread_count(a); i++) {
        const framework_model_thread *x = framework_model_thread_at(a, i), *y = framework_model_thread_at(b, i);
        assert_same_strings(a, x->tid, b, y->tid);
        assert_same_strings(a, x->name, b, y->name);
        assert_int_equal(x->process, y->process);
        assert_int_equal(x->events, y->events);
    }
    if (framework_model_rows(a))
        assert_memory_equal(framework_model_row_threads(a), framework_model_row_threads(b),
                            framework_model_rows(a) * sizeof(uint32_t));
}

/* With 1-byte reads the tokenizer never holds a whole member or value, so the fast paths (kr_member,
 * json_stream_skip_value) always decline and every token goes through the token path: the reference. */
static void fast_paths_build_the_model_of_the_token_path(void **state)
{
    (void)state;
    kineto_options bytewise = {.read_size = 1};
    framework_model *ref = read_ok(fast_doc, sizeof fast_doc - 1, &bytewise);
    framework_model *m = read_ok(fast_doc, sizeof fast_doc - 1, NULL);
    assert_same_model(ref, m);
    for (size_t rs = 2; rs <= 300; rs += rs < 40 ? 1 : 37) {
        kineto_options opt = {.read_size = rs};
        framework_model *c = read_ok(fast_doc, sizeof fast_doc - 1, &opt);
        assert_same_model(ref, c);
        framework_model_free(c);
    }
    framework_model_free(ref);
    /* and the values themselves */
    assert_int_equal(framework_model_rows(m), FAST_EVENTS);
    assert_int_equal(col_i64(m, FM_EV_TS, 0), 2500001000);
    assert_int_equal(col_i64(m, FM_EV_DUR, 0), 770);
    assert_true(col_u64(m, FM_EV_EXT, 0) == 17); /* read after the skipped arrays */
    assert_true(col_u64(m, FM_EV_FLAGS, 0) & FM_F_EXT);
    assert_string_equal(col_str(m, FM_EV_NAME, 1), "k\xc3\xa9rnel \"1\"");
    assert_string_equal(col_str(m, FM_EV_TID, 1), "stream 7");
    assert_int_equal(col_i64(m, FM_EV_TS, 1), 2500002500);
    assert_int_equal(col_i64(m, FM_EV_DUR, 1), 3000);
    assert_true(col_u64(m, FM_EV_CORR, 1) == 42);
    assert_true(col_u64(m, FM_EV_FLOW, 2) == 99);
    assert_true(col_u64(m, FM_EV_FLAGS, 2) & FM_F_BIND_ENCLOSING);
    assert_string_equal(col_str(m, FM_EV_NAME, 3), "dup2"); /* the last of duplicate keys */
    assert_int_equal(col_i64(m, FM_EV_TS, 3), -12500);
    assert_int_equal(col_i64(m, FM_EV_DUR, 3), 7000);
    uint64_t f3 = col_u64(m, FM_EV_FLAGS, 3);
    assert_false(f3 & (FM_F_CORR | FM_F_EXT)); /* containers are not ids */
    assert_true((f3 & FM_F_BYTES) && col_u64(m, FM_EV_BYTES, 3) == 512); /* 1e3 is not an integer */
    assert_string_equal(col_str(m, FM_EV_DETAIL, 3), "HOST_TO_DEVICE");
    assert_string_equal(col_str(m, FM_EV_DETAIL, 4), "Stream 7");
    assert_string_equal(col_str(m, FM_EV_DETAIL, 5), "GPU 0");
    assert_int_equal(find_process(m, "0")->device, FM_DEVICE_BY_CATEGORY);
    assert_int_equal(find_note(m, FM_NOTE_BAD_FIELD, "bp")->count, 1); /* a known field holding an object */
    assert_null(find_note(m, FM_NOTE_BAD_FIELD, "extra"));              /* ignored containers are not */
    assert_false(col_u64(m, FM_EV_FLAGS, 1) & FM_F_BIND_ENCLOSING);
    framework_model_free(m);
}

/* Any byte replaced: the same model (maybe partial) or the same error as the token path. */
static void fast_paths_fail_like_the_token_path_on_any_corrupted_byte(void **state)
{
    (void)state;
    static const char subst[] = {'\0', '"', '{', ']', '}', ',', ':', '9', '.', '-', 'e', 'x', '\\', (char)0xff};
    size_t len = sizeof fast_doc - 1;
    char *doc = malloc(len);
    kineto_options bytewise = {.read_size = 1}, chunked = {.read_size = 97};
    for (size_t i = 0; i < len; i++) {
        for (size_t k = 0; k < sizeof subst; k++) {
            memcpy(doc, fast_doc, len);
            doc[i] = subst[k];
            framework_model *a, *b;
            nl_error ea, eb;
            int ra = kineto_read_mem(doc, len, "x.json", &bytewise, &a, &ea);
            int rb = kineto_read_mem(doc, len, "x.json", (i + k) & 1 ? &chunked : NULL, &b, &eb);
            assert_int_equal(ra, rb);
            if (ra != 0) {
                assert_int_equal(ea.code, eb.code);
                assert_int_equal(ea.offset, eb.offset);
                assert_int_equal(ea.record, eb.record);
                assert_string_equal(ea.field, eb.field);
                continue;
            }
            assert_same_model(a, b);
            framework_model_free(a);
            framework_model_free(b);
        }
    }
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(us_to_ns_is_exact_fixed_point_with_half_even_rounding),
        cmocka_unit_test(object_trace_reads_every_event_column_and_top_level_key),
        cmocka_unit_test(processes_are_devices_by_category_name_or_properties_never_string_pids),
        cmocka_unit_test(every_read_size_gives_the_same_rows),
        cmocka_unit_test(gzip_is_detected_by_magic_and_read_at_every_read_size),
        cmocka_unit_test(concatenated_gzip_members_are_read_in_turn_and_trailing_bytes_noted),
        cmocka_unit_test(cut_off_gzip_keeps_the_events_inflated_before_the_cut),
        cmocka_unit_test(cut_off_json_at_every_byte_is_partial_or_an_error_with_the_offset),
        cmocka_unit_test(missing_trace_events_and_non_traces_are_format_errors),
        cmocka_unit_test(bare_torch1_array_is_read_and_an_unclosed_one_is_partial),
        cmocka_unit_test(bad_elements_and_fields_are_skipped_and_noted),
        cmocka_unit_test(long_names_are_cut_and_deep_args_hit_the_depth_cap),
        cmocka_unit_test(corrupting_any_byte_never_crashes),
        cmocka_unit_test(memory_limits_fail_cleanly_at_every_size),
        cmocka_unit_test(cancel_stops_the_read),
        cmocka_unit_test(reads_files_and_reports_progress),
        cmocka_unit_test(fast_paths_build_the_model_of_the_token_path),
        cmocka_unit_test(fast_paths_fail_like_the_token_path_on_any_corrupted_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
