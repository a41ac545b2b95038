/* fixtures — test-only tools, listed only with `neuronlens serve --conformance-fixtures`.
 *
 * The official MCP conformance suite calls fixture tools by name (test_simple_text, ...), and our own
 * end-to-end tests need a call that stays busy on demand (test_sleep) to exercise cancellation, progress
 * and concurrency while no real analysis is long enough. None of these touch a profile. */
#include "tool_common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FIXTURE_SLEEP_SLICE_MS 5

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Sleeps `ms` in small slices; returns the time actually slept (less when cancelled). */
static long sleep_cancellable(nl_call *call, long ms, long progress_every_ms)
{
    long slept = 0;
    while (slept < ms && !nl_call_cancelled(call)) {
        long slice = ms - slept < FIXTURE_SLEEP_SLICE_MS ? ms - slept : FIXTURE_SLEEP_SLICE_MS;
        sleep_ms(slice);
        slept += slice;
        if (progress_every_ms > 0 && slept % progress_every_ms == 0)
            nl_call_progress(call, (double)slept, (double)ms, "sleeping");
    }
    return slept;
}

static int text_result(nl_tool_result *res, const char *text)
{
    res->text = strdup(text);
    return 0;
}

static int simple_text_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    return text_result(res, "This is a simple text response for testing.");
}

static const char fixture_png_1x1[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
static const char fixture_wav[] = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

static int image_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    res->content = json_pack("[{s:s, s:s, s:s}]", "type", "image", "data", fixture_png_1x1, "mimeType", "image/png");
    return text_result(res, "");
}

static int audio_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    res->content = json_pack("[{s:s, s:s, s:s}]", "type", "audio", "data", fixture_wav, "mimeType", "audio/wav");
    return text_result(res, "");
}

static json_t *embedded_resource_block(void)
{
    return json_pack("{s:s, s:{s:s, s:s, s:s}}", "type", "resource", "resource", "uri", "test://embedded-resource",
                     "mimeType", "text/plain", "text", "This is an embedded resource content.");
}

static int embedded_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    res->content = json_array();
    json_array_append_new(res->content, embedded_resource_block());
    return text_result(res, "");
}

static int mixed_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    res->content = json_pack("[{s:s, s:s}, {s:s, s:s, s:s}]", "type", "text", "text", "Multiple content types test:",
                             "type", "image", "data", fixture_png_1x1, "mimeType", "image/png");
    json_array_append_new(res->content, embedded_resource_block());
    return text_result(res, "");
}

static int logging_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    nl_call_log(call, "info", "Tool execution started");
    sleep_cancellable(call, 50, 0);
    nl_call_log(call, "info", "Tool processing data");
    sleep_cancellable(call, 50, 0);
    nl_call_log(call, "info", "Tool execution completed");
    return text_result(res, "Tool with logging executed successfully");
}

static int progress_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    nl_call_progress(call, 0, 100, "started");
    sleep_cancellable(call, 50, 0);
    nl_call_progress(call, 50, 100, "halfway");
    sleep_cancellable(call, 50, 0);
    nl_call_progress(call, 100, 100, "done");
    return text_result(res, "Progress tool completed");
}

static int error_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    (void)args;
    (void)call;
    return nl_tool_result_error(res, "This tool intentionally returns an error for testing");
}

static int sleep_run(const json_t *args, nl_call *call, nl_tool_result *res)
{
    long ms = (long)json_integer_value(json_object_get(args, "ms"));
    long slept = sleep_cancellable(call, ms, 100);
    res->structured = json_pack("{s:I, s:b}", "slept_ms", (json_int_t)slept, "cancelled", nl_call_cancelled(call));
    return text_result(res, nl_call_cancelled(call) ? "cancelled" : "slept");
}

#define FIXTURE_NO_ARGS "{\"type\": \"object\", \"additionalProperties\": false}"
#define FIXTURE(var, nm, desc, fn) \
    static const nl_tool_desc var = {.name = nm, .title = nm, .description = desc, \
                                     .input_schema = FIXTURE_NO_ARGS, .run = fn, .fixture = true}

FIXTURE(fx_simple_text, "test_simple_text", "Conformance fixture: returns a fixed text.", simple_text_run);
FIXTURE(fx_image, "test_image_content", "Conformance fixture: returns a 1x1 PNG.", image_run);
FIXTURE(fx_audio, "test_audio_content", "Conformance fixture: returns a short WAV.", audio_run);
FIXTURE(fx_embedded, "test_embedded_resource", "Conformance fixture: returns an embedded resource.", embedded_run);
FIXTURE(fx_mixed, "test_multiple_content_types", "Conformance fixture: text, image and resource.", mixed_run);
FIXTURE(fx_logging, "test_tool_with_logging", "Conformance fixture: logs three messages.", logging_run);
FIXTURE(fx_progress, "test_tool_with_progress", "Conformance fixture: reports progress 0, 50, 100.", progress_run);
FIXTURE(fx_error, "test_error_handling", "Conformance fixture: always returns isError.", error_run);

static const nl_tool_desc fx_sleep = {
    .name = "test_sleep",
    .title = "test_sleep",
    .description = "Test fixture: stays busy for ms milliseconds, polling cancellation and reporting progress.",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"ms\"], \"properties\": "
                    "{\"ms\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 60000}}}",
    .output_schema = "{\"type\": \"object\", \"required\": [\"slept_ms\", \"cancelled\"], \"properties\": "
                     "{\"slept_ms\": {\"type\": \"integer\"}, \"cancelled\": {\"type\": \"boolean\"}}}",
    .run = sleep_run,
    .fixture = true,
};

const nl_tool_desc *const nl_fixture_tools[] = {
    &fx_simple_text, &fx_image, &fx_audio, &fx_embedded, &fx_mixed, &fx_logging, &fx_progress, &fx_error, &fx_sleep,
};
const size_t nl_fixture_tool_count = sizeof nl_fixture_tools / sizeof nl_fixture_tools[0];
