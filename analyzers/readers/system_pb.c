/* system_pb — the Neuron system-profile files, read with protoc-c (see system_pb.h, the proto/ schemas).
 *
 * Input, as decoded from the real capture (runtime 2.30.51; formats.md §9; field numbers confirmed on
 * every record of the sample; names ours):
 *
 *   trace_info.pb   ONE TraceInfo message, no framing (1,891 B in the sample).
 *     f1 varint format version (2)       f2 varint pid                 f4 string instance id
 *     f6 TraceFile {1 path, 2 type 1, 3 records}                         f9 varint (2, unknown)
 *     f7 HostInfo {1 cpus, 2 cpu model, 3 RAM bytes, 4/5 f32 periods s,
 *                  6 TraceFile cpu_util (count per CPU), 7 TraceFile host_mem}
 *     f10 repeated InternedTable {1 name, repeated 2 {1 varint id, 2 string}} — ids are NOT sorted and
 *         id 0 is written explicitly (`08 00`); tables: ntrace_inspect_type, system_trace,
 *         nrt_inspect_mem_usage_type, nrt_inspect_mem_alloc_errno_type
 *     f11/f12 varint first/last unix ns   f13 string host IP   f14 varint events   f15 string instance type
 *     f16 varint (2, unknown)             f17 string hostname  f18 {4 varint 0xffffffff} (unknown)
 *
 *   ntrace.pb, cpu_util.pb, host_mem.pb   a stream to EOF of records
 *     offset 0  u32 little-endian n      length of the message (no varint, no magic, no header)
 *     offset 4  n bytes                  one message; the next record starts at 4 + n
 *   The lengths must add up to the file size exactly; a prefix cut short, a body cut short and a length
 *   above SYSPB_RECORD_MAX are reported with the prefix's offset.
 *
 *   NtraceEvent      f2 varint unix ns (CPU clock)   f7 varint type id → ntrace_inspect_type
 *                    f9 varint thread   f10 varint seq (worker in bits 50+)   f12 repeated {1 key, 2 value}
 *                    string attributes   f14 varint phase 1 begin / 2 end / 3 instant   f15 varint span id
 *   CpuUtilSample    f1 fixed32 float % (omitted when 0)   f2 varint unix ns   f3 varint cpu (omitted for 0)
 *   HostMemSample    f1 varint used bytes   f2 varint unix ns
 *
 * Decoding: each record goes through the generated nlsys__*__unpack with a scratch allocator (a bump
 * allocator reset after every record, so a million events cost no malloc each, and an allocation failure
 * is told apart from a format error). protobuf-c only says "no" for a malformed record; to say where, the
 * record is walked again with pbwire against the generated descriptor, which finds the first field whose
 * wire type contradicts the schema (or the varint/length that breaks) and its absolute file offset.
 * Fields absent from the schema are kept by protobuf-c as unknown fields and reported as schema drift.
 * Zero-valued scalars may be omitted by the writer (cpu_util does), so an absent event type reads as 0
 * ("generic"); an absent timestamp makes a record unusable. */
#include "system_pb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_util.pb-c.h"
#include "host_mem.pb-c.h"
#include "ntrace.pb-c.h"
#include "pbwire.h"
#include "rdfile.h"
#include "trace_info.pb-c.h"

/* ---- scratch allocator for protobuf-c ---------------------------------------------------------------- */

#define SCRATCH_CHUNK_MIN ((size_t)64 << 10)
#define SCRATCH_ALIGN ((size_t)16)

typedef struct scratch_chunk {
    struct scratch_chunk *next;
    size_t cap, used;
} scratch_chunk;

#define SCRATCH_HDR ((sizeof(scratch_chunk) + SCRATCH_ALIGN - 1) & ~(SCRATCH_ALIGN - 1))

typedef struct scratch {
    scratch_chunk *head; /* newest (and largest) chunk first */
    bool failed;
} scratch;

static void *scratch_alloc(void *data, size_t size)
{
    scratch *s = data;
    if (size > SIZE_MAX / 2) {
        s->failed = true;
        return NULL;
    }
    size = (size + SCRATCH_ALIGN - 1) & ~(SCRATCH_ALIGN - 1);
    scratch_chunk *c = s->head;
    if (!c || c->cap - c->used < size) {
        size_t cap = c ? c->cap * 2 : SCRATCH_CHUNK_MIN;
        if (cap < size)
            cap = size;
        scratch_chunk *n = malloc(SCRATCH_HDR + cap);
        if (!n) {
            s->failed = true;
            return NULL;
        }
        n->next = c;
        n->cap = cap;
        n->used = 0;
        s->head = c = n;
    }
    void *p = (unsigned char *)c + SCRATCH_HDR + c->used;
    c->used += size;
    return p;
}

static void scratch_free_ptr(void *data, void *ptr)
{
    (void)data;
    (void)ptr; /* everything dies at the next scratch_reset */
}

/* Keep the newest (largest) chunk for the next record, free the rest. */
static void scratch_reset(scratch *s)
{
    if (!s->head)
        return;
    scratch_chunk *c = s->head->next;
    while (c) {
        scratch_chunk *n = c->next;
        free(c);
        c = n;
    }
    s->head->next = NULL;
    s->head->used = 0;
    s->failed = false;
}

static void scratch_close(scratch *s)
{
    scratch_reset(s);
    free(s->head);
    s->head = NULL;
}

static ProtobufCAllocator scratch_allocator(scratch *s)
{
    return (ProtobufCAllocator){.alloc = scratch_alloc, .free = scratch_free_ptr, .allocator_data = s};
}

/* ---- locating a decode failure ---------------------------------------------------------------------- */

static pbwire_type wire_type_of(const ProtobufCFieldDescriptor *fd)
{
    switch (fd->type) {
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FLOAT: return PBWIRE_FIXED32;
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_DOUBLE: return PBWIRE_FIXED64;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE: return PBWIRE_LEN;
    default: return PBWIRE_VARINT;
    }
}

static const char *wire_type_name(pbwire_type t)
{
    static const char *const names[] = {"varint", "fixed64", "length-delimited", "group start", "group end",
                                        "fixed32"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "invalid";
}

/* Walk buf against descriptor `d`; -1 with err naming the first field that breaks the schema. 0 when
 * nothing was found (the caller then reports a generic rejection). */
static int diagnose(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len, int64_t base,
                    const char *source, unsigned depth, nl_error *err)
{
    pbwire_reader r;
    pbwire_init(&r, buf, len, base, source);
    while (!pbwire_done(&r)) {
        pbwire_field f;
        if (pbwire_next(&r, &f, err)) {
            nl_error_set_field(err, d->short_name);
            return -1;
        }
        const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, f.number);
        if (!fd)
            continue;
        pbwire_type want = wire_type_of(fd);
        bool packed_ok = fd->label == PROTOBUF_C_LABEL_REPEATED && want != PBWIRE_LEN && f.type == PBWIRE_LEN;
        if (f.type != want && !packed_ok) {
            char field[NL_ERROR_FIELD_MAX];
            snprintf(field, sizeof field, "%s.%s", d->short_name, fd->name);
            nl_error_set(err, NL_ERR_FORMAT, source, f.offset,
                         "field %u (%s) has wire type %u (%s); the schema says %s", f.number, fd->name,
                         (unsigned)f.type, wire_type_name(f.type), wire_type_name(want));
            nl_error_set_field(err, field);
            return -1;
        }
        if (fd->type == PROTOBUF_C_TYPE_MESSAGE && depth < SYSPB_DIAG_DEPTH &&
            diagnose(fd->descriptor, f.data, f.len, f.data_offset, source, depth + 1, err))
            return -1;
    }
    return 0;
}

/* Absolute offset of the first occurrence of field `number` in msg, or `fallback`. */
static int64_t field_offset(const uint8_t *msg, size_t len, int64_t base, uint32_t number, int64_t fallback)
{
    pbwire_reader r;
    pbwire_init(&r, msg, len, base, NULL);
    while (!pbwire_done(&r)) {
        pbwire_field f;
        if (pbwire_next(&r, &f, NULL))
            break;
        if (f.number == number)
            return f.offset;
    }
    return fallback;
}

/* Why protobuf-c refused msg: NL_ERR_NOMEM when the allocator failed, else the located format error. */
static void explain_rejection(const ProtobufCMessageDescriptor *d, const scratch *s, const uint8_t *msg, size_t len,
                              int64_t base, const char *source, nl_error *err)
{
    if (s->failed) {
        nl_error_set(err, NL_ERR_NOMEM, source, base, "out of memory decoding a %zu-byte %s", len, d->short_name);
        return;
    }
    if (diagnose(d, msg, len, base, source, 0, err) == 0) {
        nl_error_set(err, NL_ERR_FORMAT, source, base, "protobuf-c rejected this %zu-byte %s", len, d->short_name);
        nl_error_set_field(err, d->short_name);
    }
}

/* ---- trace_info.pb ---------------------------------------------------------------------------------- */

static const char *dup_str(arena *a, const char *s, bool *oom)
{
    if (!s)
        return NULL;
    const char *d = arena_strndup(a, s, strlen(s));
    if (!d)
        *oom = true;
    return d;
}

static size_t unknown_in_file(const Nlsys__TraceFile *f)
{
    return f ? f->base.n_unknown_fields : 0;
}

static size_t count_unknown(const Nlsys__TraceInfo *m)
{
    size_t n = m->base.n_unknown_fields + unknown_in_file(m->ntrace_file) + (m->f18 ? m->f18->base.n_unknown_fields : 0);
    if (m->host)
        n += m->host->base.n_unknown_fields + unknown_in_file(m->host->cpu_util_file) +
             unknown_in_file(m->host->host_mem_file);
    for (size_t i = 0; i < m->n_interned_tables; i++) {
        n += m->interned_tables[i]->base.n_unknown_fields;
        for (size_t j = 0; j < m->interned_tables[i]->n_entries; j++)
            n += m->interned_tables[i]->entries[j]->base.n_unknown_fields;
    }
    return n;
}

typedef struct entry_pos {
    uint64_t id;
    size_t pos;
} entry_pos;

static int by_id_then_pos(const void *a, const void *b)
{
    const entry_pos *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Copy one interned table into the arena, sorted by id; a repeated id keeps its first value. */
static int copy_table(arena *a, const Nlsys__InternedTable *src, syspb_intern_table *dst)
{
    bool oom = false;
    size_t n = src->n_entries;
    dst->name = dup_str(a, src->name ? src->name : "", &oom);
    syspb_intern_entry *e = arena_calloc(a, n ? n : 1, sizeof *e);
    entry_pos *order = malloc((n ? n : 1) * sizeof *order);
    if (!e || !order || oom) {
        free(order);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (entry_pos){src->entries[i]->has_id ? src->entries[i]->id : 0, i};
    qsort(order, n, sizeof *order, by_id_then_pos);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out && e[out - 1].id == order[i].id) {
            dst->duplicate_ids++;
            continue;
        }
        const char *v = src->entries[order[i].pos]->value;
        e[out].id = order[i].id;
        e[out].value = dup_str(a, v ? v : "", &oom);
        out++;
    }
    free(order);
    dst->entries = e;
    dst->count = out;
    return oom ? -1 : 0;
}

static void copy_file_info(const Nlsys__TraceFile *f, const char **path, uint64_t *records, arena *a, bool *oom)
{
    if (!f)
        return;
    if (path)
        *path = dup_str(a, f->path, oom);
    if (f->has_record_count)
        *records = f->record_count;
}

static int copy_trace_info(const Nlsys__TraceInfo *m, arena *a, syspb_trace_info *out)
{
    bool oom = false;
    out->format_version = m->has_format_version ? m->format_version : 0;
    out->pid = m->has_pid ? m->pid : 0;
    out->event_count = m->has_event_count ? m->event_count : 0;
    out->start_ns = m->has_start_ns ? m->start_ns : 0;
    out->end_ns = m->has_end_ns ? m->end_ns : 0;
    out->instance_id = dup_str(a, m->instance_id, &oom);
    out->instance_type = dup_str(a, m->instance_type, &oom);
    out->hostname = dup_str(a, m->hostname, &oom);
    out->host_ip = dup_str(a, m->host_ip, &oom);
    copy_file_info(m->ntrace_file, &out->ntrace_path, &out->ntrace_records, a, &oom);
    if (m->host) {
        const Nlsys__HostInfo *h = m->host;
        out->cpu_count = h->has_cpu_count ? h->cpu_count : 0;
        out->memory_bytes = h->has_memory_bytes ? h->memory_bytes : 0;
        out->cpu_model = dup_str(a, h->cpu_model, &oom);
        out->cpu_util_period_s = h->has_cpu_util_period_s ? h->cpu_util_period_s : 0;
        out->host_mem_period_s = h->has_host_mem_period_s ? h->host_mem_period_s : 0;
        copy_file_info(h->cpu_util_file, NULL, &out->cpu_util_records, a, &oom);
        copy_file_info(h->host_mem_file, NULL, &out->host_mem_records, a, &oom);
    }
    syspb_intern_table *tables = arena_calloc(a, m->n_interned_tables ? m->n_interned_tables : 1, sizeof *tables);
    if (!tables || oom)
        return -1;
    for (size_t i = 0; i < m->n_interned_tables; i++)
        if (copy_table(a, m->interned_tables[i], &tables[i]))
            return -1;
    out->tables = tables;
    out->table_count = m->n_interned_tables;
    out->unknown_fields = count_unknown(m);
    return 0;
}

int syspb_trace_info_decode(const void *data, size_t len, const char *name, arena *a, syspb_trace_info *out,
                            nl_error *err)
{
    memset(out, 0, sizeof *out);
    out->file_bytes = len;
    if (len > SYSPB_TRACE_INFO_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, name, 0, "trace_info.pb is %zu bytes; the cap is %zu", len,
                            SYSPB_TRACE_INFO_MAX);
    scratch s = {0};
    ProtobufCAllocator alloc = scratch_allocator(&s);
    Nlsys__TraceInfo *m = nlsys__trace_info__unpack(&alloc, len, data);
    int rc = 0;
    if (!m) {
        explain_rejection(&nlsys__trace_info__descriptor, &s, data, len, 0, name, err);
        rc = -1;
    } else if (copy_trace_info(m, a, out)) {
        rc = nl_error_set(err, NL_ERR_NOMEM, name, -1, "out of memory copying trace_info.pb");
    }
    scratch_close(&s);
    out->file_bytes = len;
    return rc;
}

int syspb_trace_info_read(const char *path, arena *a, syspb_trace_info *out, nl_error *err)
{
    memset(out, 0, sizeof *out);
    int fd;
    uint64_t size;
    if (rdfile_open(path, &fd, &size, err))
        return -1;
    if (size > SYSPB_TRACE_INFO_MAX) {
        close(fd);
        return nl_error_set(err, NL_ERR_LIMIT, path, 0, "trace_info.pb is %llu bytes; the cap is %zu",
                            (unsigned long long)size, SYSPB_TRACE_INFO_MAX);
    }
    uint8_t *buf = malloc(size ? (size_t)size : 1);
    if (!buf) {
        close(fd);
        return nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory reading trace_info.pb");
    }
    size_t got = 0;
    int rc = rdfile_pread(fd, buf, (size_t)size, 0, &got, path, err);
    close(fd);
    if (rc == 0)
        rc = syspb_trace_info_decode(buf, got, path, a, out, err);
    free(buf);
    return rc;
}

/* ---- framer ----------------------------------------------------------------------------------------- */

void syspb_framer_init(syspb_framer *f, const char *source, size_t record_max)
{
    memset(f, 0, sizeof *f);
    f->source = source;
    f->record_max = record_max ? record_max : SYSPB_RECORD_MAX;
}

void syspb_framer_close(syspb_framer *f)
{
    free(f->body);
    f->body = NULL;
    f->body_cap = 0;
}

uint64_t syspb_framer_consumed(const syspb_framer *f)
{
    return f->record_start;
}

static int framer_deliver(syspb_framer *f, const uint8_t *msg, syspb_record_fn fn, void *ctx, nl_error *err)
{
    int64_t at = (int64_t)f->record_start, index = f->records;
    f->in_body = false;
    f->hdr_have = 0;
    f->body_have = 0;
    f->records++;
    f->record_start = f->offset;
    if (fn(ctx, msg, f->body_len, at, index, err)) {
        f->failed = true;
        return -1;
    }
    return 0;
}

/* Consume length-prefix bytes; sets in_body when the prefix is complete. */
static int framer_header(syspb_framer *f, const uint8_t *buf, size_t len, size_t *p, nl_error *err)
{
    while (f->hdr_have < 4 && *p < len) {
        f->hdr[f->hdr_have++] = buf[(*p)++];
        f->offset++;
    }
    if (f->hdr_have < 4)
        return 0;
    f->body_len = (uint32_t)f->hdr[0] | (uint32_t)f->hdr[1] << 8 | (uint32_t)f->hdr[2] << 16 | (uint32_t)f->hdr[3] << 24;
    if (f->body_len > f->record_max) {
        f->failed = true;
        f->oversized = true;
        nl_error_set(err, NL_ERR_LIMIT, f->source, (int64_t)f->record_start,
                     "record %lld declares %u bytes, above the %zu-byte record cap: the length prefix is corrupt "
                     "or this is not a length-prefixed stream", (long long)f->records, f->body_len, f->record_max);
        nl_error_set_record(err, f->records);
        return -1;
    }
    f->in_body = true;
    return 0;
}

static int framer_body(syspb_framer *f, const uint8_t *buf, size_t len, size_t *p, syspb_record_fn fn, void *ctx,
                       nl_error *err)
{
    size_t avail = len - *p;
    if (f->body_have == 0 && avail >= f->body_len) { /* whole record in this chunk: no copy */
        const uint8_t *msg = buf + *p;
        *p += f->body_len;
        f->offset += f->body_len;
        return framer_deliver(f, msg, fn, ctx, err);
    }
    if (f->body_cap < f->body_len) {
        uint8_t *grown = realloc(f->body, f->body_len);
        if (!grown) {
            f->failed = true;
            return nl_error_set(err, NL_ERR_NOMEM, f->source, (int64_t)f->record_start,
                                "out of memory buffering a %u-byte record", f->body_len);
        }
        f->body = grown;
        f->body_cap = f->body_len;
    }
    size_t take = f->body_len - f->body_have;
    if (take > avail)
        take = avail;
    if (take)
        memcpy(f->body + f->body_have, buf + *p, take);
    f->body_have += take;
    *p += take;
    f->offset += take;
    return f->body_have == f->body_len ? framer_deliver(f, f->body, fn, ctx, err) : 0;
}

int syspb_framer_push(syspb_framer *f, const uint8_t *buf, size_t len, syspb_record_fn fn, void *ctx, nl_error *err)
{
    if (f->failed)
        return nl_error_set(err, NL_ERR_INTERNAL, f->source, (int64_t)f->offset, "framer used after a failure");
    size_t p = 0;
    while (p < len || (f->in_body && f->body_len == 0)) {
        if (!f->in_body && framer_header(f, buf, len, &p, err))
            return -1;
        if (f->in_body && framer_body(f, buf, len, &p, fn, ctx, err))
            return -1;
    }
    return 0;
}

int syspb_framer_finish(syspb_framer *f, nl_error *err)
{
    if (f->failed || (!f->in_body && f->hdr_have == 0))
        return 0;
    if (!f->in_body)
        nl_error_set(err, NL_ERR_TRUNCATED, f->source, (int64_t)f->record_start,
                     "the stream ends inside the length prefix of record %lld (%u of 4 bytes)",
                     (long long)f->records, f->hdr_have);
    else
        nl_error_set(err, NL_ERR_TRUNCATED, f->source, (int64_t)f->record_start,
                     "record %lld declares %u bytes but the stream ends after %zu of them", (long long)f->records,
                     f->body_len, f->body_have);
    nl_error_set_record(err, f->records);
    return -1;
}

/* ---- stream decoding -------------------------------------------------------------------------------- */

typedef struct stream_ctx {
    syspb_stream_kind kind;
    const char *source;
    const syspb_intern_table *types;
    const syspb_sink *sink;
    syspb_stream_stats *stats;
    const atomic_int *cancel;
    scratch scratch;
    ProtobufCAllocator alloc;
    syspb_attr *attrs;
    size_t attrs_cap;
} stream_ctx;

static void emit_note(stream_ctx *c, syspb_note_code code, const nl_error *where)
{
    c->stats->notes++;
    if (!c->sink->note)
        return;
    syspb_note n = {.code = code, .where = *where};
    c->sink->note(c->sink->ctx, &n);
}

__attribute__((format(printf, 7, 8)))
static void note(stream_ctx *c, syspb_note_code code, nl_error_code ecode, int64_t offset, int64_t record,
                 const char *field, const char *fmt, ...)
{
    nl_error e;
    nl_error_clear(&e);
    e.code = ecode;
    e.offset = offset;
    e.record = record;
    snprintf(e.source, sizeof e.source, "%s", c->source ? c->source : "");
    if (field)
        snprintf(e.field, sizeof e.field, "%s", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof e.message, fmt, ap);
    va_end(ap);
    emit_note(c, code, &e);
}

/* A record protobuf-c refused: a bad-record note (reading goes on), or -1 when memory ran out. */
static int reject(stream_ctx *c, const ProtobufCMessageDescriptor *d, const uint8_t *msg, size_t len, int64_t offset,
                  int64_t record, nl_error *err)
{
    nl_error e;
    explain_rejection(d, &c->scratch, msg, len, offset + 4, c->source, &e);
    if (e.code == NL_ERR_NOMEM) {
        *err = e;
        return -1;
    }
    e.record = record;
    emit_note(c, SYSPB_NOTE_BAD_RECORD, &e);
    c->stats->records_skipped++;
    return 0;
}

static void note_unknown_fields(stream_ctx *c, const char *what, size_t n, int64_t offset, int64_t record)
{
    if (n)
        note(c, SYSPB_NOTE_UNKNOWN_FIELDS, NL_ERR_UNSUPPORTED, offset, record, what,
             "%zu field(s) the %s schema does not know (kept out of the model)", n, what);
}

static void skip(stream_ctx *c)
{
    c->stats->records_skipped++;
}

static int attrs_reserve(stream_ctx *c, size_t n, nl_error *err)
{
    if (n <= c->attrs_cap)
        return 0;
    syspb_attr *grown = realloc(c->attrs, n * sizeof *grown);
    if (!grown)
        return nl_error_set(err, NL_ERR_NOMEM, c->source, -1, "out of memory for %zu attributes", n);
    c->attrs = grown;
    c->attrs_cap = n;
    return 0;
}

static int event_fill(stream_ctx *c, const Nlsys__NtraceEvent *e, const uint8_t *msg, size_t len, int64_t offset,
                      int64_t record, syspb_event *ev, nl_error *err)
{
    int64_t body = offset + 4;
    size_t unknown = e->base.n_unknown_fields;
    if (attrs_reserve(c, e->n_attributes, err))
        return -1;
    for (size_t i = 0; i < e->n_attributes; i++) {
        c->attrs[i].key = e->attributes[i]->key ? e->attributes[i]->key : "";
        c->attrs[i].value = e->attributes[i]->value ? e->attributes[i]->value : "";
        unknown += e->attributes[i]->base.n_unknown_fields;
    }
    note_unknown_fields(c, "NtraceEvent", unknown, body, record);
    *ev = (syspb_event){.offset = offset, .record = record, .timestamp_ns = e->timestamp_ns,
                        .type_id = e->has_event_type ? e->event_type : 0, .phase = e->has_phase ? e->phase : 0,
                        .thread_id = e->thread_id, .seq_id = e->seq_id, .span_id = e->span_id,
                        .has_span_id = e->has_span_id, .attr_count = e->n_attributes, .attrs = c->attrs};
    if (!e->has_timestamp_ns) {
        note(c, SYSPB_NOTE_MISSING_FIELD, NL_ERR_FORMAT, body, record, "NtraceEvent.timestamp_ns",
             "event without a timestamp (field 2): skipped");
        return 1;
    }
    if (e->timestamp_ns > INT64_MAX) {
        note(c, SYSPB_NOTE_VALUE_RANGE, NL_ERR_FORMAT, field_offset(msg, len, body, 2, body), record,
             "NtraceEvent.timestamp_ns", "timestamp %llu is beyond int64 ns: skipped", (unsigned long long)e->timestamp_ns);
        return 1;
    }
    if (ev->phase < SYSPB_PHASE_BEGIN || ev->phase > SYSPB_PHASE_INSTANT) {
        note(c, SYSPB_NOTE_UNKNOWN_PHASE, NL_ERR_FORMAT, field_offset(msg, len, body, 14, body), record,
             "NtraceEvent.phase", "phase %llu is not 1 (begin), 2 (end) or 3 (instant): skipped",
             (unsigned long long)ev->phase);
        return 1;
    }
    ev->type_name = syspb_intern_lookup(c->types, ev->type_id);
    if (!ev->type_name)
        note(c, SYSPB_NOTE_UNKNOWN_TYPE, NL_ERR_FORMAT, field_offset(msg, len, body, 7, body), record,
             "NtraceEvent.event_type", "event type id %llu is not in trace_info.pb's %s table%s",
             (unsigned long long)ev->type_id, SYSPB_TABLE_EVENT_TYPES, c->types ? "" : " (the table is missing)");
    return 0;
}

static int decode_event(stream_ctx *c, const uint8_t *msg, size_t len, int64_t offset, int64_t record, nl_error *err)
{
    Nlsys__NtraceEvent *e = nlsys__ntrace_event__unpack(&c->alloc, len, msg);
    if (!e)
        return reject(c, &nlsys__ntrace_event__descriptor, msg, len, offset, record, err);
    syspb_event ev;
    int rc = event_fill(c, e, msg, len, offset, record, &ev, err);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        skip(c);
        return 0;
    }
    c->stats->records_decoded++;
    return c->sink->event(c->sink->ctx, &ev, err);
}

static int decode_cpu(stream_ctx *c, const uint8_t *msg, size_t len, int64_t offset, int64_t record, nl_error *err)
{
    Nlsys__CpuUtilSample *s = nlsys__cpu_util_sample__unpack(&c->alloc, len, msg);
    if (!s)
        return reject(c, &nlsys__cpu_util_sample__descriptor, msg, len, offset, record, err);
    int64_t body = offset + 4;
    note_unknown_fields(c, "CpuUtilSample", s->base.n_unknown_fields, body, record);
    if (!s->has_timestamp_ns || s->timestamp_ns > INT64_MAX) {
        note(c, s->has_timestamp_ns ? SYSPB_NOTE_VALUE_RANGE : SYSPB_NOTE_MISSING_FIELD, NL_ERR_FORMAT, body, record,
             "CpuUtilSample.timestamp_ns", "sample without a usable timestamp (field 2): skipped");
        skip(c);
        return 0;
    }
    if (s->cpu_id > SYSPB_CPU_ID_MAX) {
        note(c, SYSPB_NOTE_VALUE_RANGE, NL_ERR_FORMAT, field_offset(msg, len, body, 3, body), record,
             "CpuUtilSample.cpu_id", "cpu id %llu is above %u: skipped", (unsigned long long)s->cpu_id,
             SYSPB_CPU_ID_MAX);
        skip(c);
        return 0;
    }
    double u = s->utilization_pct;
    if (s->has_utilization_pct && !(u >= 0.0 && u <= 100.001)) {
        note(c, SYSPB_NOTE_VALUE_RANGE, NL_ERR_FORMAT, field_offset(msg, len, body, 1, body), record,
             "CpuUtilSample.utilization_pct", "utilisation %g is not a percentage 0..100: skipped", u);
        skip(c);
        return 0;
    }
    syspb_cpu_sample out = {.offset = offset, .record = record, .timestamp_ns = s->timestamp_ns,
                            .cpu = (uint32_t)s->cpu_id, .has_util = s->has_utilization_pct,
                            .util_pct = s->has_utilization_pct ? u : 0.0};
    c->stats->records_decoded++;
    return c->sink->cpu(c->sink->ctx, &out, err);
}

static int decode_mem(stream_ctx *c, const uint8_t *msg, size_t len, int64_t offset, int64_t record, nl_error *err)
{
    Nlsys__HostMemSample *s = nlsys__host_mem_sample__unpack(&c->alloc, len, msg);
    if (!s)
        return reject(c, &nlsys__host_mem_sample__descriptor, msg, len, offset, record, err);
    int64_t body = offset + 4;
    note_unknown_fields(c, "HostMemSample", s->base.n_unknown_fields, body, record);
    if (!s->has_timestamp_ns || s->timestamp_ns > INT64_MAX) {
        note(c, s->has_timestamp_ns ? SYSPB_NOTE_VALUE_RANGE : SYSPB_NOTE_MISSING_FIELD, NL_ERR_FORMAT, body, record,
             "HostMemSample.timestamp_ns", "sample without a usable timestamp (field 2): skipped");
        skip(c);
        return 0;
    }
    syspb_mem_sample out = {.offset = offset, .record = record, .timestamp_ns = s->timestamp_ns,
                            .used_bytes = s->used_bytes};
    c->stats->records_decoded++;
    return c->sink->mem(c->sink->ctx, &out, err);
}

static int on_record(void *ctx, const uint8_t *msg, size_t len, int64_t offset, int64_t record, nl_error *err)
{
    stream_ctx *c = ctx;
    c->stats->records++;
    if (c->cancel && record % SYSPB_POLL_RECORDS == 0 && atomic_load(c->cancel))
        return nl_error_set(err, NL_ERR_CANCELLED, c->source, offset, "cancelled");
    int rc;
    switch (c->kind) {
    case SYSPB_NTRACE: rc = decode_event(c, msg, len, offset, record, err); break;
    case SYSPB_CPU_UTIL: rc = decode_cpu(c, msg, len, offset, record, err); break;
    default: rc = decode_mem(c, msg, len, offset, record, err); break;
    }
    scratch_reset(&c->scratch);
    return rc;
}

static int stream_begin(stream_ctx *c, const char *name, syspb_stream_kind kind, const syspb_trace_info *ti,
                        const syspb_options *opt, const syspb_sink *sink, syspb_stream_stats *stats, nl_error *err)
{
    memset(stats, 0, sizeof *stats);
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->source = name;
    c->types = syspb_trace_info_table(ti, SYSPB_TABLE_EVENT_TYPES);
    c->sink = sink;
    c->stats = stats;
    c->cancel = opt ? opt->cancel : NULL;
    c->alloc = scratch_allocator(&c->scratch);
    bool ok = kind == SYSPB_NTRACE ? sink->event != NULL : kind == SYSPB_CPU_UTIL ? sink->cpu != NULL : sink->mem != NULL;
    return ok ? 0 : nl_error_set(err, NL_ERR_ARGUMENT, name, -1, "the sink has no callback for this stream kind");
}

static void stream_end(stream_ctx *c)
{
    scratch_close(&c->scratch);
    free(c->attrs);
}

/* Turn a framer failure into a note when it is about the input (oversized length), or keep it as the
 * call's error. Returns 0 (note emitted, reading stopped) or -1. */
static int framing_failure(stream_ctx *c, const syspb_framer *f, nl_error *e, nl_error *err)
{
    if (f->oversized) {
        emit_note(c, SYSPB_NOTE_OVERSIZED, e);
        return 0;
    }
    *err = *e;
    return -1;
}

static void stream_finish(stream_ctx *c, syspb_framer *f, uint64_t total)
{
    nl_error e;
    if (syspb_framer_finish(f, &e))
        emit_note(c, SYSPB_NOTE_TRUNCATED, &e);
    c->stats->file_bytes = total;
    c->stats->bytes_consumed = syspb_framer_consumed(f);
    c->stats->partial = c->stats->bytes_consumed != total || c->stats->records_skipped > 0;
}

int syspb_read_stream_mem(const void *data, size_t len, const char *name, syspb_stream_kind kind,
                          const syspb_trace_info *ti, const syspb_options *opt, const syspb_sink *sink,
                          syspb_stream_stats *stats, nl_error *err)
{
    stream_ctx c;
    if (stream_begin(&c, name, kind, ti, opt, sink, stats, err))
        return -1;
    syspb_framer f;
    syspb_framer_init(&f, name, opt ? opt->record_max : 0);
    nl_error e;
    int rc = 0;
    if (syspb_framer_push(&f, data, len, on_record, &c, &e))
        rc = framing_failure(&c, &f, &e, err);
    if (rc == 0)
        stream_finish(&c, &f, len);
    syspb_framer_close(&f);
    stream_end(&c);
    return rc;
}

int syspb_read_stream(const char *path, syspb_stream_kind kind, const syspb_trace_info *ti, const syspb_options *opt,
                      const syspb_sink *sink, syspb_stream_stats *stats, nl_error *err)
{
    stream_ctx c;
    if (stream_begin(&c, path, kind, ti, opt, sink, stats, err))
        return -1;
    int fd;
    uint64_t size;
    if (rdfile_open(path, &fd, &size, err)) {
        stream_end(&c);
        return -1;
    }
    size_t chunk = opt && opt->read_size ? opt->read_size : SYSPB_READ_SIZE;
    uint8_t *buf = malloc(chunk);
    syspb_framer f;
    syspb_framer_init(&f, path, opt ? opt->record_max : 0);
    int rc = buf ? 0 : nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory for a %zu-byte read buffer", chunk);
    uint64_t off = 0;
    bool stopped = false;
    while (rc == 0 && !stopped) {
        size_t got = 0;
        nl_error e;
        if (rdfile_pread(fd, buf, chunk, off, &got, path, err))
            rc = -1;
        else if (got == 0)
            break;
        else if (syspb_framer_push(&f, buf, got, on_record, &c, &e))
            rc = framing_failure(&c, &f, &e, err), stopped = rc == 0;
        off += got;
    }
    if (rc == 0)
        stream_finish(&c, &f, off > size ? off : size);
    syspb_framer_close(&f);
    free(buf);
    close(fd);
    stream_end(&c);
    return rc;
}

