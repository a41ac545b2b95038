/* test_system_pb — the system-profile reader on synthetic bytes: framing at any chunk boundary, a
 * truncated length prefix, a truncated body, an oversized length, wrong-typed fields (top level and
 * nested), an unknown event type id, missing fields, unknown fields, value ranges, trace_info.pb tables,
 * file reads with tiny buffers, and garbage that must never crash. Every note and error is checked for
 * code, source, absolute byte offset and (where it applies) record and field, on structs poisoned first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "arena.h"
#include "pb_synth.h"
#include "system_pb.h"

#define SRC "mem.pb"

/* ---- writing test input (pb_synth.h) --------------------------------------------------------------- */

typedef pbs buf;
#define put pbs_put
#define f_varint pbs_uint
#define f_bytes pbs_bytes
#define f_str pbs_str
#define f_float pbs_float
#define attr pbs_attr
#define frame pbs_frame

/* An event: f2 ts, f7 type, f9 thread, f10 seq, f14 phase, f15 span. */
static void event(buf *o, uint64_t ts, uint64_t type, uint64_t phase, uint64_t span)
{
    f_varint(o, 2, ts);
    f_varint(o, 7, type);
    f_varint(o, 9, 42);
    f_varint(o, 10, span);
    attr(o, "nc_idx", "0");
    f_varint(o, 14, phase);
    f_varint(o, 15, span);
}

/* trace_info.pb with an ntrace_inspect_type table {0 generic, 7 nc_exec_running, 3 nrt_execute}, unsorted,
 * id 0 written explicitly as the real file does. */
static void trace_info_bytes(buf *o)
{
    const struct { uint64_t id; const char *name; } types[] = {{7, "nc_exec_running"}, {0, "generic"}, {3, "nrt_execute"}};
    buf table = {.n = 0};
    f_str(&table, 1, SYSPB_TABLE_EVENT_TYPES);
    for (size_t i = 0; i < 3; i++) {
        buf e = {.n = 0};
        f_varint(&e, 1, types[i].id);
        f_str(&e, 2, types[i].name);
        f_bytes(&table, 2, e.b, e.n);
    }
    f_varint(o, 1, 2);
    f_varint(o, 2, 1234);
    f_str(o, 4, "i-test");
    f_bytes(o, 10, table.b, table.n);
    f_varint(o, 14, 3);
}

/* ---- collecting sink -------------------------------------------------------------------------------- */

typedef struct seen {
    size_t events, cpus, mems, notes;
    syspb_event ev[16];
    char type_names[16][32];
    char first_attr[16][32];   /* "key=value" of each event's first attribute (attrs are borrowed) */
    syspb_cpu_sample cpu[16];
    syspb_mem_sample mem[16];
    syspb_note note[16];
} seen;

static int on_event(void *ctx, const syspb_event *ev, nl_error *err)
{
    (void)err;
    seen *s = ctx;
    if (s->events < 16) {
        s->ev[s->events] = *ev;
        snprintf(s->type_names[s->events], 32, "%s", ev->type_name ? ev->type_name : "(null)");
        snprintf(s->first_attr[s->events], 32, "%s=%s", ev->attr_count ? ev->attrs[0].key : "",
                 ev->attr_count ? ev->attrs[0].value : "");
        s->ev[s->events].attrs = NULL; /* borrowed for the callback only */
    }
    s->events++;
    return 0;
}

static int on_cpu(void *ctx, const syspb_cpu_sample *c, nl_error *err)
{
    (void)err;
    seen *s = ctx;
    if (s->cpus < 16)
        s->cpu[s->cpus] = *c;
    s->cpus++;
    return 0;
}

static int on_mem(void *ctx, const syspb_mem_sample *m, nl_error *err)
{
    (void)err;
    seen *s = ctx;
    if (s->mems < 16)
        s->mem[s->mems] = *m;
    s->mems++;
    return 0;
}

static void on_note(void *ctx, const syspb_note *n)
{
    seen *s = ctx;
    if (s->notes < 16)
        s->note[s->notes] = *n;
    s->notes++;
}

static syspb_sink sink_for(seen *s)
{
    return (syspb_sink){.ctx = s, .event = on_event, .cpu = on_cpu, .mem = on_mem, .note = on_note};
}

static void poison(void *p, size_t n)
{
    memset(p, 0x5a, n);
}

static void assert_note(const syspb_note *n, syspb_note_code code, nl_error_code ecode, int64_t offset, int64_t record,
                        const char *field)
{
    assert_int_equal(n->code, code);
    assert_int_equal(n->where.code, ecode);
    assert_string_equal(n->where.source, SRC);
    assert_int_equal(n->where.offset, offset);
    assert_int_equal(n->where.record, record);
    if (field)
        assert_string_equal(n->where.field, field);
    assert_true(strlen(n->where.message) > 0);
}

typedef struct fixture {
    arena *a;
    syspb_trace_info ti;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->a = arena_new(0);
    buf ti = {.n = 0};
    trace_info_bytes(&ti);
    nl_error e;
    assert_int_equal(syspb_trace_info_decode(ti.b, ti.n, "trace_info.pb", f->a, &f->ti, &e), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    arena_free(f->a);
    free(f);
    return 0;
}

static int read_ntrace(const fixture *f, const buf *stream, seen *s, syspb_stream_stats *st, nl_error *e)
{
    syspb_sink sk = sink_for(s);
    return syspb_read_stream_mem(stream->b, stream->n, SRC, SYSPB_NTRACE, &f->ti, NULL, &sk, st, e);
}

/* ---- trace_info.pb ---------------------------------------------------------------------------------- */

static void trace_info_tables_are_sorted_and_looked_up_by_id(void **state)
{
    fixture *f = *state;
    assert_int_equal(f->ti.format_version, 2);
    assert_int_equal(f->ti.pid, 1234);
    assert_string_equal(f->ti.instance_id, "i-test");
    assert_int_equal(f->ti.event_count, 3);
    const syspb_intern_table *t = syspb_trace_info_table(&f->ti, SYSPB_TABLE_EVENT_TYPES);
    assert_non_null(t);
    assert_int_equal(t->count, 3);
    assert_int_equal(t->entries[0].id, 0);
    assert_string_equal(syspb_intern_lookup(t, 0), "generic");
    assert_string_equal(syspb_intern_lookup(t, 7), "nc_exec_running");
    assert_null(syspb_intern_lookup(t, 8));
    assert_null(syspb_trace_info_table(&f->ti, "no_such_table"));
}

static void trace_info_repeated_id_keeps_the_first_value(void **state)
{
    (void)state;
    buf table = {.n = 0}, e1 = {.n = 0}, e2 = {.n = 0}, ti = {.n = 0};
    f_str(&table, 1, "t");
    f_varint(&e1, 1, 5);
    f_str(&e1, 2, "first");
    f_varint(&e2, 1, 5);
    f_str(&e2, 2, "second");
    f_bytes(&table, 2, e1.b, e1.n);
    f_bytes(&table, 2, e2.b, e2.n);
    f_bytes(&ti, 10, table.b, table.n);
    arena *a = arena_new(0);
    syspb_trace_info out;
    nl_error e;
    assert_int_equal(syspb_trace_info_decode(ti.b, ti.n, SRC, a, &out, &e), 0);
    const syspb_intern_table *t = syspb_trace_info_table(&out, "t");
    assert_int_equal(t->count, 1);
    assert_int_equal(t->duplicate_ids, 1);
    assert_string_equal(syspb_intern_lookup(t, 5), "first");
    arena_free(a);
}

static void trace_info_wrong_typed_field_reports_field_and_offset(void **state)
{
    (void)state;
    buf ti = {.n = 0};
    f_varint(&ti, 1, 2);          /* bytes 0-1 */
    f_str(&ti, 2, "not a pid");   /* tag at byte 2: pid must be a varint */
    arena *a = arena_new(0);
    syspb_trace_info out;
    nl_error e;
    poison(&e, sizeof e);
    assert_int_equal(syspb_trace_info_decode(ti.b, ti.n, SRC, a, &out, &e), -1);
    assert_int_equal(e.code, NL_ERR_FORMAT);
    assert_string_equal(e.source, SRC);
    assert_int_equal(e.offset, 2);
    assert_string_equal(e.field, "TraceInfo.pid");
    arena_free(a);
}

static void trace_info_truncated_nested_message_reports_offset(void **state)
{
    (void)state;
    buf ti = {.n = 0};
    f_varint(&ti, 1, 2);
    const uint8_t cut[] = {0x52, 0x10, 0x0a, 0x02}; /* f10 declares 16 bytes, 2 follow */
    put(&ti, cut, sizeof cut);
    arena *a = arena_new(0);
    syspb_trace_info out;
    nl_error e;
    poison(&e, sizeof e);
    assert_int_equal(syspb_trace_info_decode(ti.b, ti.n, SRC, a, &out, &e), -1);
    assert_int_equal(e.code, NL_ERR_TRUNCATED);
    assert_string_equal(e.source, SRC);
    assert_int_equal(e.offset, 3); /* the length varint of field 10 */
    arena_free(a);
}

/* ---- framing ---------------------------------------------------------------------------------------- */

static void well_formed_stream_decodes_every_record(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, m1 = {.n = 0}, m2 = {.n = 0};
    event(&m1, 1000, 7, SYSPB_PHASE_BEGIN, 1);
    event(&m2, 2000, 7, SYSPB_PHASE_END, 1);
    frame(&stream, &m1);
    frame(&stream, &m2);
    seen s = {0};
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(read_ntrace(f, &stream, &s, &st, &e), 0);
    assert_int_equal(s.events, 2);
    assert_int_equal(s.notes, 0);
    assert_string_equal(s.type_names[0], "nc_exec_running");
    assert_int_equal(s.ev[0].timestamp_ns, 1000);
    assert_int_equal(s.ev[1].phase, SYSPB_PHASE_END);
    assert_int_equal(s.ev[1].offset, 4 + (int64_t)m1.n);
    assert_int_equal(s.ev[1].record, 1);
    assert_int_equal(s.ev[0].attr_count, 1);
    assert_string_equal(s.first_attr[0], "nc_idx=0");
    assert_int_equal(st.records, 2);
    assert_int_equal(st.bytes_consumed, stream.n);
    assert_int_equal(st.file_bytes, stream.n);
    assert_false(st.partial);
}

typedef struct frames {
    size_t n;
    int64_t offsets[8];
    size_t lens[8];
    uint8_t first[8];
} frames;

static int collect_frame(void *ctx, const uint8_t *msg, size_t len, int64_t offset, int64_t record, nl_error *err)
{
    (void)err;
    frames *fr = ctx;
    assert_int_equal(record, (int64_t)fr->n);
    fr->offsets[fr->n] = offset;
    fr->lens[fr->n] = len;
    fr->first[fr->n] = len ? msg[0] : 0;
    fr->n++;
    return 0;
}

static void framer_accepts_one_byte_at_a_time_with_garbage_past_each_chunk(void **state)
{
    (void)state;
    buf stream = {.n = 0}, a = {.n = 0}, b = {.n = 0}, empty = {.n = 0};
    f_varint(&a, 2, 5);
    f_str(&b, 12, "xyz");
    frame(&stream, &a);
    frame(&stream, &empty); /* a zero-length record is legal */
    frame(&stream, &b);
    syspb_framer fr;
    syspb_framer_init(&fr, SRC, 0);
    frames got = {0};
    nl_error e;
    for (size_t i = 0; i < stream.n; i++) {
        uint8_t chunk[8];
        memset(chunk, 0xee, sizeof chunk); /* garbage after the one valid byte */
        chunk[0] = stream.b[i];
        assert_int_equal(syspb_framer_push(&fr, chunk, 1, collect_frame, &got, &e), 0);
    }
    assert_int_equal(syspb_framer_finish(&fr, &e), 0);
    assert_int_equal(got.n, 3);
    assert_int_equal(got.offsets[1], 4 + (int64_t)a.n);
    assert_int_equal(got.lens[1], 0);
    assert_int_equal(got.lens[2], b.n);
    assert_int_equal(got.first[2], 0x62);
    assert_int_equal(syspb_framer_consumed(&fr), stream.n);
    syspb_framer_close(&fr);
}

static void truncated_length_prefix_reports_offset(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, m = {.n = 0};
    event(&m, 1000, 3, SYSPB_PHASE_INSTANT, 1);
    frame(&stream, &m);
    size_t cut_at = stream.n;
    const uint8_t half[2] = {0x10, 0x00};
    put(&stream, half, 2);
    seen s;
    poison(&s, sizeof s);
    s.events = s.notes = 0;
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(read_ntrace(f, &stream, &s, &st, &e), 0);
    assert_int_equal(s.events, 1);
    assert_int_equal(s.notes, 1);
    assert_note(&s.note[0], SYSPB_NOTE_TRUNCATED, NL_ERR_TRUNCATED, (int64_t)cut_at, 1, NULL);
    assert_non_null(strstr(s.note[0].where.message, "length prefix"));
    assert_true(st.partial);
    assert_int_equal(st.bytes_consumed, cut_at);
    assert_int_equal(st.file_bytes, stream.n);
}

static void truncated_record_body_reports_offset(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, m = {.n = 0};
    event(&m, 1000, 3, SYSPB_PHASE_INSTANT, 1);
    frame(&stream, &m);
    size_t second = frame(&stream, &m);
    stream.n -= 3; /* cut the second record's last three bytes */
    seen s = {0};
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(read_ntrace(f, &stream, &s, &st, &e), 0);
    assert_int_equal(s.events, 1);
    assert_note(&s.note[0], SYSPB_NOTE_TRUNCATED, NL_ERR_TRUNCATED, (int64_t)second, 1, NULL);
    assert_true(st.partial);
    assert_int_equal(st.bytes_consumed, second);
}

static void oversized_length_stops_reading_with_offset(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, m = {.n = 0};
    event(&m, 1000, 3, SYSPB_PHASE_INSTANT, 1);
    frame(&stream, &m);
    size_t bad = stream.n;
    const uint8_t huge[4] = {0xf0, 0xff, 0xff, 0x7f};
    put(&stream, huge, 4);
    frame(&stream, &m); /* never reached: the framing is lost */
    seen s = {0};
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(read_ntrace(f, &stream, &s, &st, &e), 0);
    assert_int_equal(s.events, 1);
    assert_int_equal(s.notes, 1);
    assert_note(&s.note[0], SYSPB_NOTE_OVERSIZED, NL_ERR_LIMIT, (int64_t)bad, 1, NULL);
    assert_true(st.partial);
    assert_int_equal(st.bytes_consumed, bad);
}

/* ---- records ---------------------------------------------------------------------------------------- */

static void wrong_typed_field_is_skipped_with_field_and_offset(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, good = {.n = 0}, bad = {.n = 0};
    event(&good, 1000, 3, SYSPB_PHASE_INSTANT, 1);
    f_varint(&bad, 7, 3);
    const uint8_t ts_fixed32[] = {0x15, 1, 2, 3, 4}; /* f2 with wire type 5: the schema says varint */
    size_t tag_in_msg = bad.n;
    put(&bad, ts_fixed32, sizeof ts_fixed32);
    frame(&stream, &good);
    size_t at = frame(&stream, &bad);
    frame(&stream, &good);
    seen s = {0};
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(read_ntrace(f, &stream, &s, &st, &e), 0);
    assert_int_equal(s.events, 2); /* reading went on after the bad record */
    assert_int_equal(s.notes, 1);
    assert_note(&s.note[0], SYSPB_NOTE_BAD_RECORD, NL_ERR_FORMAT, (int64_t)(at + 4 + tag_in_msg), 1,
                "NtraceEvent.timestamp_ns");
    assert_int_equal(st.records, 3);
    assert_int_equal(st.records_skipped, 1);
    assert_true(st.partial);
    assert_int_equal(st.bytes_consumed, stream.n);
}

static void wrong_typed_nested_field_reports_nested_offset(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, m = {.n = 0}, a = {.n = 0};
    f_varint(&m, 2, 1000);
    f_varint(&a, 1, 9); /* attribute key as a varint: the schema says string */
    size_t attr_at = m.n;
    f_bytes(&m, 12, a.b, a.n);
    size_t at = frame(&stream, &m);
    seen s = {0};
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(read_ntrace(f, &stream, &s, &st, &e), 0);
    assert_int_equal(s.events, 0);
    /* tag 0x62, length 2, then the inner tag: record start + 4 + attr offset + 2 */
    assert_note(&s.note[0], SYSPB_NOTE_BAD_RECORD, NL_ERR_FORMAT, (int64_t)(at + 4 + attr_at + 2), 0,
                "NtraceAttribute.key");
}

static void unknown_event_type_id_is_noted_and_kept(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, m = {.n = 0};
    f_varint(&m, 2, 1000);
    size_t type_at = m.n;
    f_varint(&m, 7, 99);
    f_varint(&m, 14, SYSPB_PHASE_INSTANT);
    size_t at = frame(&stream, &m);
    seen s = {0};
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(read_ntrace(f, &stream, &s, &st, &e), 0);
    assert_int_equal(s.events, 1);
    assert_string_equal(s.type_names[0], "(null)");
    assert_int_equal(s.ev[0].type_id, 99);
    assert_note(&s.note[0], SYSPB_NOTE_UNKNOWN_TYPE, NL_ERR_FORMAT, (int64_t)(at + 4 + type_at), 0,
                "NtraceEvent.event_type");
    assert_non_null(strstr(s.note[0].where.message, "99"));
    assert_false(st.partial); /* kept: nothing was lost */
}

static void event_without_timestamp_or_with_bad_phase_is_skipped(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, no_ts = {.n = 0}, bad_phase = {.n = 0};
    f_varint(&no_ts, 7, 3);
    f_varint(&no_ts, 14, 1);
    f_varint(&bad_phase, 2, 5);
    size_t phase_at = bad_phase.n;
    f_varint(&bad_phase, 14, 9);
    size_t a0 = frame(&stream, &no_ts);
    size_t a1 = frame(&stream, &bad_phase);
    seen s = {0};
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(read_ntrace(f, &stream, &s, &st, &e), 0);
    assert_int_equal(s.events, 0);
    assert_int_equal(s.notes, 2);
    assert_note(&s.note[0], SYSPB_NOTE_MISSING_FIELD, NL_ERR_FORMAT, (int64_t)(a0 + 4), 0, "NtraceEvent.timestamp_ns");
    assert_note(&s.note[1], SYSPB_NOTE_UNKNOWN_PHASE, NL_ERR_FORMAT, (int64_t)(a1 + 4 + phase_at), 1, "NtraceEvent.phase");
    assert_int_equal(st.records_skipped, 2);
    assert_true(st.partial);
}

static void unknown_fields_are_noted_and_the_record_kept(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, m = {.n = 0};
    event(&m, 1000, 3, SYSPB_PHASE_INSTANT, 1);
    f_varint(&m, 30, 1);
    size_t at = frame(&stream, &m);
    seen s = {0};
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(read_ntrace(f, &stream, &s, &st, &e), 0);
    assert_int_equal(s.events, 1);
    assert_note(&s.note[0], SYSPB_NOTE_UNKNOWN_FIELDS, NL_ERR_UNSUPPORTED, (int64_t)(at + 4), 0, "NtraceEvent");
}

static void cpu_samples_read_omitted_fields_as_zero_and_reject_bad_values(void **state)
{
    (void)state;
    buf stream = {.n = 0}, cpu0 = {.n = 0}, cpu3 = {.n = 0}, bad = {.n = 0};
    f_varint(&cpu0, 2, 77);               /* only a timestamp: CPU 0, 0 % */
    f_float(&cpu3, 1, 42.5f);
    f_varint(&cpu3, 2, 77);
    f_varint(&cpu3, 3, 3);
    size_t util_at = bad.n;
    f_float(&bad, 1, 150.0f);
    f_varint(&bad, 2, 78);
    frame(&stream, &cpu0);
    frame(&stream, &cpu3);
    size_t at = frame(&stream, &bad);
    seen s = {0};
    syspb_sink sk = sink_for(&s);
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(syspb_read_stream_mem(stream.b, stream.n, SRC, SYSPB_CPU_UTIL, NULL, NULL, &sk, &st, &e), 0);
    assert_int_equal(s.cpus, 2);
    assert_int_equal(s.cpu[0].cpu, 0);
    assert_false(s.cpu[0].has_util);
    assert_true(s.cpu[0].util_pct == 0.0);
    assert_int_equal(s.cpu[1].cpu, 3);
    assert_true(s.cpu[1].util_pct == 42.5);
    assert_note(&s.note[0], SYSPB_NOTE_VALUE_RANGE, NL_ERR_FORMAT, (int64_t)(at + 4 + util_at), 2,
                "CpuUtilSample.utilization_pct");
}

static void host_memory_samples_decode(void **state)
{
    (void)state;
    buf stream = {.n = 0}, m = {.n = 0};
    f_varint(&m, 1, 15042867200ull);
    f_varint(&m, 2, 99);
    frame(&stream, &m);
    seen s = {0};
    syspb_sink sk = sink_for(&s);
    syspb_stream_stats st;
    nl_error e;
    assert_int_equal(syspb_read_stream_mem(stream.b, stream.n, SRC, SYSPB_HOST_MEM, NULL, NULL, &sk, &st, &e), 0);
    assert_int_equal(s.mems, 1);
    assert_int_equal(s.mem[0].used_bytes, 15042867200ull);
    assert_int_equal(s.mem[0].timestamp_ns, 99);
}

static void file_read_with_tiny_buffer_matches_memory_read(void **state)
{
    fixture *f = *state;
    buf stream = {.n = 0}, m = {.n = 0};
    for (int i = 0; i < 5; i++) {
        m.n = 0;
        event(&m, 1000 + (uint64_t)i, 7, SYSPB_PHASE_INSTANT, (uint64_t)i + 1);
        frame(&stream, &m);
    }
    const uint8_t half[2] = {1, 0};
    put(&stream, half, 2);
    char path[] = "/tmp/test_system_pb_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, stream.b, stream.n), (ssize_t)stream.n);
    close(fd);
    seen s = {0};
    syspb_sink sk = sink_for(&s);
    syspb_stream_stats st;
    nl_error e;
    syspb_options opt = {.read_size = 3};
    assert_int_equal(syspb_read_stream(path, SYSPB_NTRACE, &f->ti, &opt, &sk, &st, &e), 0);
    unlink(path);
    assert_int_equal(s.events, 5);
    assert_int_equal(s.notes, 1);
    assert_int_equal(s.note[0].code, SYSPB_NOTE_TRUNCATED);
    assert_string_equal(s.note[0].where.source, path);
    assert_int_equal(s.note[0].where.offset, (int64_t)stream.n - 2);
    assert_int_equal(st.bytes_consumed, stream.n - 2);
}

static void missing_file_is_an_io_error(void **state)
{
    (void)state;
    seen s = {0};
    syspb_sink sk = sink_for(&s);
    syspb_stream_stats st;
    nl_error e;
    poison(&e, sizeof e);
    assert_int_equal(syspb_read_stream("/nonexistent/ntrace.pb", SYSPB_NTRACE, NULL, NULL, &sk, &st, &e), -1);
    assert_int_equal(e.code, NL_ERR_IO);
    assert_string_equal(e.source, "/nonexistent/ntrace.pb");
}

static void garbage_never_crashes(void **state)
{
    fixture *f = *state;
    uint32_t x = 12345;
    for (int round = 0; round < 300; round++) {
        buf g = {.n = 0};
        size_t n = (size_t)(round * 7) % 600;
        for (size_t i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            uint8_t b = (uint8_t)(x >> 16);
            if (round % 3 == 0 && i % 64 < 2)
                b = 0; /* small length prefixes, so records do get framed */
            put(&g, &b, 1);
        }
        for (int kind = SYSPB_NTRACE; kind <= SYSPB_HOST_MEM; kind++) {
            seen s = {0};
            syspb_sink sk = sink_for(&s);
            syspb_stream_stats st;
            nl_error e;
            assert_int_equal(syspb_read_stream_mem(g.b, g.n, SRC, (syspb_stream_kind)kind, &f->ti, NULL, &sk, &st, &e), 0);
            assert_true(st.bytes_consumed <= st.file_bytes);
            assert_int_equal(st.records, st.records_decoded + st.records_skipped);
        }
        arena *a = arena_new(0);
        syspb_trace_info ti;
        nl_error e;
        int rc = syspb_trace_info_decode(g.b, g.n, SRC, a, &ti, &e);
        assert_true(rc == 0 || (e.offset >= 0 && e.offset <= (int64_t)g.n && strlen(e.message) > 0));
        arena_free(a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(trace_info_tables_are_sorted_and_looked_up_by_id, setup, teardown),
        cmocka_unit_test(trace_info_repeated_id_keeps_the_first_value),
        cmocka_unit_test(trace_info_wrong_typed_field_reports_field_and_offset),
        cmocka_unit_test(trace_info_truncated_nested_message_reports_offset),
        cmocka_unit_test_setup_teardown(well_formed_stream_decodes_every_record, setup, teardown),
        cmocka_unit_test(framer_accepts_one_byte_at_a_time_with_garbage_past_each_chunk),
        cmocka_unit_test_setup_teardown(truncated_length_prefix_reports_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(truncated_record_body_reports_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(oversized_length_stops_reading_with_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_typed_field_is_skipped_with_field_and_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_typed_nested_field_reports_nested_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_event_type_id_is_noted_and_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(event_without_timestamp_or_with_bad_phase_is_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_fields_are_noted_and_the_record_kept, setup, teardown),
        cmocka_unit_test(cpu_samples_read_omitted_fields_as_zero_and_reject_bad_values),
        cmocka_unit_test(host_memory_samples_decode),
        cmocka_unit_test_setup_teardown(file_read_with_tiny_buffer_matches_memory_read, setup, teardown),
        cmocka_unit_test(missing_file_is_an_io_error),
        cmocka_unit_test_setup_teardown(garbage_never_crashes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
