/* fuzz_system_pb — libFuzzer target for the system-profile readers (analyzers/readers/system_pb.c, pbwire.c):
 * the `[u32 LE length][message]` framer, the ntrace / cpu_util / host_mem record decoders and the
 * trace_info.pb decoder, all over memory. The input is one file of any of these kinds.
 *
 * Each input is decoded as trace_info.pb (its tables, when it decodes, name the event types of the stream
 * reads below), then framed twice — pushed whole and pushed in chunks of a size taken from the input's
 * hash — and the two framings must deliver the same records (offset, index, bytes) and end the same way;
 * then read as each of the three stream kinds (syspb_read_stream_mem), whose statistics must agree with
 * the framing (records, bytes consumed, decoded + skipped = records, partial). Now and then the record cap
 * is made small, so the oversized-record path is fuzzed too.
 *
 * fuzz-max-len: 16384
 * fuzz-seeds: pbstream:samples:ntrace.pb pbstream:samples:cpu_util.pb pbstream:samples:host_mem.pb
 * fuzz-seeds: raw:samples:trace_info.pb pbstream:gen:ntrace.pb pbstream:gen:cpu_util.pb raw:gen:host_mem.pb
 * fuzz-seeds: raw:gen:trace_info.pb */
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "fuzz_common.h"
#include "system_pb.h"

typedef struct framing {
    uint64_t digest; /* of every (offset, index, length, bytes) delivered */
    int64_t records;
} framing;

static int on_frame(void *ctx, const uint8_t *msg, size_t len, int64_t offset, int64_t record, nl_error *err)
{
    (void)err;
    framing *f = ctx;
    FUZZ_CHECK(record == f->records, "record %lld delivered as number %lld", (long long)f->records, (long long)record);
    f->digest = fuzz_hash(fuzz_hash_u64(fuzz_hash_u64(fuzz_hash_u64(f->digest, (uint64_t)offset), (uint64_t)record),
                                        len), msg, len);
    f->records++;
    return 0;
}

/* Frame data[0, size) in pushes of `chunk` bytes; returns the push or finish status, err set on failure. */
static int frame(const uint8_t *data, size_t size, size_t chunk, size_t record_max, framing *out, uint64_t *consumed,
                 nl_error *err)
{
    syspb_framer f;
    syspb_framer_init(&f, "fuzz.pb", record_max);
    out->digest = FUZZ_HASH_INIT;
    out->records = 0;
    int rc = 0;
    for (size_t at = 0; rc == 0 && at < size; at += chunk) {
        size_t n = size - at < chunk ? size - at : chunk;
        rc = syspb_framer_push(&f, data + at, n, on_frame, out, err);
    }
    if (rc == 0)
        rc = syspb_framer_finish(&f, err);
    *consumed = syspb_framer_consumed(&f);
    syspb_framer_close(&f);
    return rc;
}

typedef struct sink_state {
    uint64_t delivered, notes;
} sink_state;

static int on_event(void *ctx, const syspb_event *ev, nl_error *err)
{
    (void)err;
    sink_state *s = ctx;
    FUZZ_CHECK(ev->phase >= SYSPB_PHASE_BEGIN && ev->phase <= SYSPB_PHASE_INSTANT && ev->timestamp_ns <= INT64_MAX,
               "event phase %llu ts %llu", (unsigned long long)ev->phase, (unsigned long long)ev->timestamp_ns);
    for (size_t i = 0; i < ev->attr_count; i++)
        FUZZ_CHECK(ev->attrs[i].key && ev->attrs[i].value && strlen(ev->attrs[i].key) < ((size_t)1 << 24),
                   "attribute %zu", i);
    s->delivered++;
    return 0;
}

static int on_cpu(void *ctx, const syspb_cpu_sample *c, nl_error *err)
{
    (void)err;
    sink_state *s = ctx;
    FUZZ_CHECK(c->cpu <= SYSPB_CPU_ID_MAX && (!c->has_util || (c->util_pct >= 0 && c->util_pct <= 100)),
               "cpu %u util %g", c->cpu, c->util_pct);
    s->delivered++;
    return 0;
}

static int on_mem(void *ctx, const syspb_mem_sample *m, nl_error *err)
{
    (void)m;
    (void)err;
    ((sink_state *)ctx)->delivered++;
    return 0;
}

static void on_note(void *ctx, const syspb_note *n)
{
    FUZZ_CHECK((unsigned)n->code < SYSPB_NOTE_CODE_COUNT, "note code %d", (int)n->code);
    ((sink_state *)ctx)->notes++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fuzz_hash(FUZZ_HASH_INIT, data, size);
    size_t record_max = (h & 7) == 0 ? 1 + (size_t)((h >> 3) % 200) : 0;
    size_t chunk = 1 + (size_t)((h >> 16) % 67);

    arena *a = arena_new(0);
    FUZZ_CHECK(a != NULL, "arena");
    syspb_trace_info ti;
    nl_error eti;
    const syspb_trace_info *names = syspb_trace_info_decode(data, size, "fuzz.pb", a, &ti, &eti) == 0 ? &ti : NULL;
    if (names)
        for (size_t i = 0; i < ti.table_count; i++)
            for (size_t k = 1; k < ti.tables[i].count; k++)
                FUZZ_CHECK(ti.tables[i].entries[k - 1].id < ti.tables[i].entries[k].id, "table %zu not sorted", i);

    framing whole, pushed;
    uint64_t c1, c2;
    nl_error e1, e2;
    int r1 = frame(data, size, size ? size : 1, record_max, &whole, &c1, &e1);
    int r2 = frame(data, size, chunk, record_max, &pushed, &c2, &e2);
    FUZZ_CHECK(r1 == r2 && c1 == c2 && whole.records == pushed.records && whole.digest == pushed.digest,
               "chunk %zu: framing differs (rc %d/%d, consumed %llu/%llu, records %lld/%lld)", chunk, r1, r2,
               (unsigned long long)c1, (unsigned long long)c2, (long long)whole.records, (long long)pushed.records);
    if (r1)
        fuzz_check_same_error(&e1, &e2, "whole vs chunked framing");

    static const syspb_stream_kind kinds[] = {SYSPB_NTRACE, SYSPB_CPU_UTIL, SYSPB_HOST_MEM};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        sink_state st = {0};
        syspb_sink sink = {.ctx = &st, .event = on_event, .cpu = on_cpu, .mem = on_mem, .note = on_note};
        syspb_options opt = {.record_max = record_max};
        syspb_stream_stats stats;
        nl_error err;
        FUZZ_CHECK(syspb_read_stream_mem(data, size, "fuzz.pb", kinds[k], names, &opt, &sink, &stats, &err) == 0,
                   "kind %zu: %s", k, err.message);
        FUZZ_CHECK(stats.records == (uint64_t)whole.records && stats.bytes_consumed == c1 && stats.file_bytes == size,
                   "kind %zu: %llu records, %llu bytes consumed; the framer: %lld, %llu", k,
                   (unsigned long long)stats.records, (unsigned long long)stats.bytes_consumed,
                   (long long)whole.records, (unsigned long long)c1);
        FUZZ_CHECK(stats.records_decoded == st.delivered &&
                       stats.records_decoded + stats.records_skipped == stats.records,
                   "kind %zu: %llu decoded (%llu delivered) + %llu skipped != %llu", k,
                   (unsigned long long)stats.records_decoded, (unsigned long long)st.delivered,
                   (unsigned long long)stats.records_skipped, (unsigned long long)stats.records);
        FUZZ_CHECK(stats.notes == st.notes && stats.partial == (c1 != size || stats.records_skipped > 0),
                   "kind %zu: notes %llu/%llu, partial %d", k, (unsigned long long)stats.notes,
                   (unsigned long long)st.notes, (int)stats.partial);
    }
    arena_free(a);
    return 0;
}
