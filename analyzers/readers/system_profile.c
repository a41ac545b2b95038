/* system_profile — reads one rank's system profile into a system_model (see system_profile.h).
 *
 * Read order: trace_info.pb first (event type names, model_id → NEFF path, declared record counts), then
 * the three streams through system_pb's sink callbacks; nothing is kept of a record but its model rows.
 *
 * Pairing (formats.md §9.3): a begin (phase 1) waits in `pending` under its span id (f15) until the end
 * (phase 2) with the same id arrives; the file is grouped by worker, not sorted by time, so the end may
 * come much later. A small open-addressing map (span id → pending slot, linear probing with
 * backward-shift deletion) holds only the spans still open, so memory follows the number of
 * concurrently open spans, not the file. At the end of ntrace.pb every still-open begin becomes an open
 * span (flag OPEN); an end without a begin becomes an orphan (flag ORPHAN_END); both are noted.
 *
 * Attributes (f12) are split between begin and end and are merged: the typed ones (worker_gid, nc_idx,
 * device_core_idx, exec_id, model_id, nc_timestamp_ns, cpu_timestamp_ns, size / allocated_bytes /
 * freed_bytes, usage_type, return_code) go to span columns — the begin's value wins, the end fills what the
 * begin lacked (nrt_load's model_id is only on its end) — and every other attribute, or a typed one whose
 * text is not a number, goes to SM_ATTRS. A record with both cpu_timestamp_ns and nc_timestamp_ns
 * (timestamp_sync_point) also becomes an SM_SYNC row. */
#include "system_profile.h"
#include "system_pb.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- span id → pending slot ------------------------------------------------------------------------- */

typedef struct span_map {
    uint64_t *keys;
    uint32_t *vals;  /* slot + 1; 0 = empty */
    size_t mask, count;
} span_map;

static size_t span_hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k;
}

static int span_map_grow(span_map *s)
{
    size_t cap = s->keys ? (s->mask + 1) * 2 : 256;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; s->keys && i <= s->mask; i++) {
        if (!s->vals[i])
            continue;
        size_t j = span_hash(s->keys[i]) & (cap - 1);
        while (vals[j])
            j = (j + 1) & (cap - 1);
        keys[j] = s->keys[i];
        vals[j] = s->vals[i];
    }
    free(s->keys);
    free(s->vals);
    s->keys = keys;
    s->vals = vals;
    s->mask = cap - 1;
    return 0;
}

/* Position of key, or of the empty slot where it would go. */
static size_t span_map_probe(const span_map *s, uint64_t key)
{
    size_t j = span_hash(key) & s->mask;
    while (s->vals[j] && s->keys[j] != key)
        j = (j + 1) & s->mask;
    return j;
}

static int span_map_get(const span_map *s, uint64_t key, uint32_t *slot)
{
    if (!s->keys)
        return 0;
    size_t j = span_map_probe(s, key);
    if (!s->vals[j])
        return 0;
    *slot = s->vals[j] - 1;
    return 1;
}

static int span_map_put(span_map *s, uint64_t key, uint32_t slot)
{
    if ((!s->keys || (s->count + 1) * 2 > s->mask + 1) && span_map_grow(s))
        return -1;
    size_t j = span_map_probe(s, key);
    if (!s->vals[j])
        s->count++;
    s->keys[j] = key;
    s->vals[j] = slot + 1;
    return 0;
}

/* Remove key (present) with backward-shift deletion, so probes never need tombstones. */
static void span_map_del(span_map *s, uint64_t key)
{
    size_t j = span_map_probe(s, key);
    if (!s->vals[j])
        return;
    s->vals[j] = 0;
    s->count--;
    for (size_t k = (j + 1) & s->mask; s->vals[k]; k = (k + 1) & s->mask) {
        size_t home = span_hash(s->keys[k]) & s->mask;
        /* move k into the hole j when its home is not in the cyclic range (j, k] */
        bool in_range = j <= k ? (home > j && home <= k) : (home > j || home <= k);
        if (!in_range) {
            s->keys[j] = s->keys[k];
            s->vals[j] = s->vals[k];
            s->vals[k] = 0;
            j = k;
        }
    }
}

static void span_map_free(span_map *s)
{
    free(s->keys);
    free(s->vals);
}

/* ---- builder ---------------------------------------------------------------------------------------- */

typedef struct span_fields {
    int64_t worker, nc, core, exec, nc_ts, cpu_ts;
    uint64_t model, size, allocated, freed;
    uint32_t usage;
    bool nonzero_rc;
} span_fields;

typedef struct pending {
    uint64_t span_id, type_id, thread;
    uint32_t type_name;
    uint64_t flags;
    int64_t start, record, offset;
    span_fields f;
    uint32_t *attrs;      /* key, value strtab id pairs (malloc) */
    uint32_t nattr, cap;  /* in pairs */
} pending;

typedef struct builder {
    system_model *model;
    strtab *strings;
    table *tables[SM_TABLE_COUNT];
    system_model_counts *counts;
    span_map map;
    pending *slots;
    size_t nslots, cap;
    uint32_t *free_slots;
    size_t nfree;
    const char *source;   /* the stream being read */
    system_file file;
} builder;

static void fields_init(span_fields *f)
{
    *f = (span_fields){.worker = -1, .nc = -1, .core = -1, .exec = -1, .nc_ts = -1, .cpu_ts = -1};
}

static int intern(builder *b, const char *s, uint32_t *id, nl_error *err)
{
    return strtab_intern(b->strings, s, strlen(s), id, err);
}

static bool parse_i64(const char *s, int64_t *out)
{
    if (!*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* A typed attribute → its column. 1 when consumed, 0 when it is not a typed key, -1 when typed but not a
 * number (kept as text and noted by the caller). */
static int typed_attr(builder *b, const syspb_attr *a, span_fields *f, nl_error *err)
{
    static const struct { const char *key; size_t off; } INTS[] = {
        {"worker_gid", offsetof(span_fields, worker)}, {"nc_idx", offsetof(span_fields, nc)},
        {"device_core_idx", offsetof(span_fields, core)}, {"exec_id", offsetof(span_fields, exec)},
        {"nc_timestamp_ns", offsetof(span_fields, nc_ts)}, {"cpu_timestamp_ns", offsetof(span_fields, cpu_ts)},
    };
    static const struct { const char *key; size_t off; } UINTS[] = {
        {"model_id", offsetof(span_fields, model)}, {"size", offsetof(span_fields, size)},
        {"allocated_bytes", offsetof(span_fields, allocated)}, {"freed_bytes", offsetof(span_fields, freed)},
    };
    for (size_t i = 0; i < sizeof INTS / sizeof INTS[0]; i++)
        if (!strcmp(a->key, INTS[i].key))
            return parse_i64(a->value, (int64_t *)((char *)f + INTS[i].off)) ? 1 : -1;
    for (size_t i = 0; i < sizeof UINTS / sizeof UINTS[0]; i++)
        if (!strcmp(a->key, UINTS[i].key))
            return parse_u64(a->value, (uint64_t *)((char *)f + UINTS[i].off)) ? 1 : -1;
    if (!strcmp(a->key, "usage_type"))
        return intern(b, a->value, &f->usage, err) ? -2 : 1;
    if (!strcmp(a->key, "return_code"))
        f->nonzero_rc = strcmp(a->value, "0") != 0; /* also kept as text */
    return 0;
}

static int pending_push_attr(builder *b, pending *p, const syspb_attr *a, nl_error *err)
{
    if (p->nattr == SYSTEM_MODEL_SPAN_ATTRS_MAX) {
        system_model_notef(b->model, SM_NOTE_TOO_MANY_ATTRS, b->file, b->source, p->offset, p->record,
                   "span %llu carries more than %u attributes; the rest are dropped", (unsigned long long)p->span_id,
                   SYSTEM_MODEL_SPAN_ATTRS_MAX);
        return 0;
    }
    if (p->nattr == p->cap) {
        uint32_t cap = p->cap ? p->cap * 2 : 8;
        uint32_t *grown = realloc(p->attrs, (size_t)cap * 2 * sizeof *grown);
        if (!grown)
            return nl_error_set(err, NL_ERR_NOMEM, b->source, p->offset, "out of memory for span attributes");
        p->attrs = grown;
        p->cap = cap;
    }
    uint32_t *kv = &p->attrs[2 * p->nattr];
    if (intern(b, a->key, &kv[0], err) || intern(b, a->value, &kv[1], err))
        return -1;
    p->nattr++;
    return 0;
}

/* Split a record's attributes into typed fields and kept text. */
static int absorb_attrs(builder *b, pending *p, const syspb_event *ev, span_fields *f, nl_error *err)
{
    for (size_t i = 0; i < ev->attr_count; i++) {
        int t = typed_attr(b, &ev->attrs[i], f, err);
        if (t == -2)
            return -1;
        if (t == -1)
            system_model_notef(b->model, SM_NOTE_BAD_ATTRIBUTE, b->file, b->source, ev->offset, ev->record,
                       "attribute %s=\"%.40s\" is not a number; kept as text", ev->attrs[i].key, ev->attrs[i].value);
        if (t != 1 && pending_push_attr(b, p, &ev->attrs[i], err))
            return -1;
    }
    return 0;
}

/* The end's values fill what the begin lacked. */
static void merge_fields(span_fields *into, const span_fields *from)
{
    int64_t *ia[] = {&into->worker, &into->nc, &into->core, &into->exec, &into->cpu_ts};
    const int64_t *ib[] = {&from->worker, &from->nc, &from->core, &from->exec, &from->cpu_ts};
    for (size_t i = 0; i < sizeof ia / sizeof ia[0]; i++)
        if (*ia[i] < 0)
            *ia[i] = *ib[i];
    uint64_t *ua[] = {&into->model, &into->size, &into->allocated, &into->freed};
    const uint64_t *ub[] = {&from->model, &from->size, &from->allocated, &from->freed};
    for (size_t i = 0; i < sizeof ua / sizeof ua[0]; i++)
        if (!*ua[i])
            *ua[i] = *ub[i];
    if (!into->usage)
        into->usage = from->usage;
    into->nonzero_rc |= from->nonzero_rc;
}

static int type_name_id(builder *b, const syspb_event *ev, uint32_t *id, nl_error *err)
{
    if (ev->type_name)
        return intern(b, ev->type_name, id, err);
    char buf[48];
    snprintf(buf, sizeof buf, "unknown_type_%llu", (unsigned long long)ev->type_id);
    return intern(b, buf, id, err);
}

static int slot_new(builder *b, uint32_t *slot, nl_error *err)
{
    if (b->nfree) {
        *slot = b->free_slots[--b->nfree];
        return 0;
    }
    if (b->nslots == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        pending *grown = realloc(b->slots, cap * sizeof *grown);
        uint32_t *fgrown = realloc(b->free_slots, cap * sizeof *fgrown);
        if (grown)
            b->slots = grown;
        if (fgrown)
            b->free_slots = fgrown;
        if (!grown || !fgrown || cap > UINT32_MAX)
            return nl_error_set(err, NL_ERR_NOMEM, b->source, -1, "out of memory for open spans");
        b->cap = cap;
    }
    *slot = (uint32_t)b->nslots++;
    return 0;
}

static void slot_release(builder *b, uint32_t slot)
{
    pending *p = &b->slots[slot];
    free(p->attrs);
    p->attrs = NULL;
    p->nattr = p->cap = 0;
    b->free_slots[b->nfree++] = slot;
}

/* Append one span row (and its attributes) from a pending record whose end (if any) is merged. */
static int emit_span(builder *b, const pending *p, int64_t end, int64_t nc_end, nl_error *err)
{
    const span_fields *f = &p->f;
    table *attrs = b->tables[SM_ATTRS];
    size_t first = table_rows(attrs);
    for (uint32_t i = 0; i < p->nattr; i++) {
        table_value kv[SM_ATTR_NCOLS] = {{.s = p->attrs[2 * i]}, {.s = p->attrs[2 * i + 1]}};
        if (table_append(attrs, kv, err))
            return -1;
    }
    uint64_t flags = p->flags;
    if (f->nc_ts >= 0 || nc_end >= 0)
        flags |= SM_SPAN_F_HARDWARE;
    if (f->nonzero_rc)
        flags |= SM_SPAN_F_NONZERO_RC;
    uint64_t bytes = f->size ? f->size : f->allocated ? f->allocated : f->freed;
    table_value row[SM_SPAN_NCOLS] = {
        [SM_SPAN_TYPE] = {.s = p->type_name}, [SM_SPAN_TYPE_ID] = {.u = p->type_id},
        [SM_SPAN_START] = {.i = p->start},    [SM_SPAN_END] = {.i = end},
        [SM_SPAN_WORKER] = {.i = f->worker},  [SM_SPAN_NC] = {.i = f->nc},
        [SM_SPAN_CORE] = {.i = f->core},      [SM_SPAN_EXEC] = {.i = f->exec},
        [SM_SPAN_MODEL] = {.u = f->model},    [SM_SPAN_BYTES] = {.u = bytes},
        [SM_SPAN_NC_BEGIN] = {.i = f->nc_ts}, [SM_SPAN_NC_END] = {.i = nc_end},
        [SM_SPAN_USAGE] = {.s = f->usage},    [SM_SPAN_THREAD] = {.u = p->thread},
        [SM_SPAN_ID] = {.u = p->span_id},     [SM_SPAN_RECORD] = {.i = p->record},
        [SM_SPAN_ATTR_FIRST] = {.u = first},  [SM_SPAN_ATTR_COUNT] = {.u = p->nattr},
        [SM_SPAN_FLAGS] = {.u = flags},
    };
    return table_append(b->tables[SM_SPANS], row, err);
}

static void pending_init(pending *p, const syspb_event *ev, uint32_t type_name)
{
    *p = (pending){.span_id = ev->span_id, .type_id = ev->type_id, .thread = ev->thread_id, .type_name = type_name,
                   .start = (int64_t)ev->timestamp_ns, .record = ev->record, .offset = ev->offset,
                   .flags = ev->type_name ? 0 : SM_SPAN_F_UNKNOWN_TYPE};
    fields_init(&p->f);
}

static int add_sync(builder *b, const syspb_event *ev, const span_fields *f, nl_error *err)
{
    table_value row[SM_SYNC_NCOLS] = {
        [SM_SYNC_TIME] = {.i = (int64_t)ev->timestamp_ns}, [SM_SYNC_CPU_TS] = {.i = f->cpu_ts},
        [SM_SYNC_NC_TS] = {.i = f->nc_ts}, [SM_SYNC_EXEC] = {.i = f->exec}, [SM_SYNC_NC] = {.i = f->nc},
        [SM_SYNC_WORKER] = {.i = f->worker}, [SM_SYNC_RECORD] = {.i = ev->record},
    };
    return table_append(b->tables[SM_SYNC], row, err);
}

/* Instants and unpaired ends are spans of their own; a temporary pending carries their attributes. */
static int emit_single(builder *b, const syspb_event *ev, uint32_t type_name, uint64_t flag, nl_error *err)
{
    pending p;
    pending_init(&p, ev, type_name);
    p.flags |= flag;
    int rc = absorb_attrs(b, &p, ev, &p.f, err);
    if (rc == 0 && flag == SM_SPAN_F_INSTANT && p.f.cpu_ts >= 0 && p.f.nc_ts >= 0)
        rc = add_sync(b, ev, &p.f, err);
    int64_t nc_end = -1;
    if (flag == SM_SPAN_F_ORPHAN_END) { /* its device time is an end time */
        nc_end = p.f.nc_ts;
        p.f.nc_ts = -1;
    }
    if (rc == 0)
        rc = emit_span(b, &p, p.start, nc_end, err);
    free(p.attrs);
    return rc;
}

static int on_begin(builder *b, const syspb_event *ev, uint32_t type_name, nl_error *err)
{
    uint32_t slot = 0;
    if (span_map_get(&b->map, ev->span_id, &slot)) {
        pending *old = &b->slots[slot];
        system_model_notef(b->model, SM_NOTE_DUPLICATE_SPAN, b->file, b->source, ev->offset, ev->record,
                   "span id %llu begins again while the begin of record %lld is still open; that one is kept as "
                   "an open span", (unsigned long long)ev->span_id, (long long)old->record);
        old->flags |= SM_SPAN_F_OPEN;
        if (emit_span(b, old, old->start, -1, err))
            return -1;
        b->counts->open_begins++;
        slot_release(b, slot);
        span_map_del(&b->map, ev->span_id);
    }
    if (slot_new(b, &slot, err))
        return -1;
    pending *p = &b->slots[slot];
    pending_init(p, ev, type_name);
    if (absorb_attrs(b, p, ev, &p->f, err))
        return -1;
    if (span_map_put(&b->map, ev->span_id, slot))
        return nl_error_set(err, NL_ERR_NOMEM, b->source, ev->offset, "out of memory for the span index");
    return 0;
}

static int on_end(builder *b, const syspb_event *ev, uint32_t type_name, nl_error *err)
{
    uint32_t slot;
    if (!span_map_get(&b->map, ev->span_id, &slot)) {
        system_model_notef(b->model, SM_NOTE_UNMATCHED_END, b->file, b->source, ev->offset, ev->record,
                   "end of span %llu has no begin (dropped or cut from the capture); kept as an orphan",
                   (unsigned long long)ev->span_id);
        b->counts->orphan_ends++;
        return emit_single(b, ev, type_name, SM_SPAN_F_ORPHAN_END, err);
    }
    pending *p = &b->slots[slot];
    if (p->type_id != ev->type_id)
        system_model_notef(b->model, SM_NOTE_TYPE_MISMATCH, b->file, b->source, ev->offset, ev->record,
                   "span %llu begins as type %llu and ends as type %llu; the begin's type is kept",
                   (unsigned long long)ev->span_id, (unsigned long long)p->type_id, (unsigned long long)ev->type_id);
    span_fields end;
    fields_init(&end);
    if (absorb_attrs(b, p, ev, &end, err))
        return -1;
    merge_fields(&p->f, &end);
    if (emit_span(b, p, (int64_t)ev->timestamp_ns, end.nc_ts, err))
        return -1;
    b->counts->pairs++;
    slot_release(b, slot);
    span_map_del(&b->map, ev->span_id);
    return 0;
}

static int sink_event(void *ctx, const syspb_event *ev, nl_error *err)
{
    builder *b = ctx;
    uint32_t type_name;
    if (type_name_id(b, ev, &type_name, err))
        return -1;
    b->counts->records++;
    switch (ev->phase) {
    case SYSPB_PHASE_BEGIN: b->counts->begins++; return on_begin(b, ev, type_name, err);
    case SYSPB_PHASE_END: b->counts->ends++; return on_end(b, ev, type_name, err);
    default: b->counts->instants++; return emit_single(b, ev, type_name, SM_SPAN_F_INSTANT, err);
    }
}

static int by_record(const void *a, const void *b, void *ctx)
{
    const pending *slots = ctx;
    int64_t x = slots[*(const uint32_t *)a].record, y = slots[*(const uint32_t *)b].record;
    return (x > y) - (x < y);
}

/* Every begin still waiting becomes an open span, in record order. */
static int close_open_spans(builder *b, nl_error *err)
{
    if (!b->map.count)
        return 0;
    uint32_t *open = malloc(b->map.count * sizeof *open);
    if (!open)
        return nl_error_set(err, NL_ERR_NOMEM, b->source, -1, "out of memory closing open spans");
    size_t n = 0;
    for (size_t i = 0; i <= b->map.mask; i++)
        if (b->map.vals[i])
            open[n++] = b->map.vals[i] - 1;
    qsort_r(open, n, sizeof *open, by_record, b->slots);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        pending *p = &b->slots[open[i]];
        system_model_notef(b->model, SM_NOTE_UNMATCHED_BEGIN, SM_FILE_NTRACE, b->source, p->offset, p->record,
                   "begin of span %llu has no end (the capture stopped first, or the end was dropped); kept as "
                   "an open span", (unsigned long long)p->span_id);
        p->flags |= SM_SPAN_F_OPEN;
        rc = emit_span(b, p, p->start, -1, err);
        b->counts->open_begins++;
    }
    free(open);
    return rc;
}

static void builder_close(builder *b)
{
    for (size_t i = 0; i < b->nslots; i++)
        free(b->slots[i].attrs);
    free(b->slots);
    free(b->free_slots);
    span_map_free(&b->map);
}

static int sink_cpu(void *ctx, const syspb_cpu_sample *s, nl_error *err)
{
    builder *b = ctx;
    table_value row[SM_CPU_NCOLS] = {{.i = (int64_t)s->timestamp_ns}, {.u = s->cpu}, {.d = s->util_pct},
                                     {.u = s->has_util}};
    return table_append(b->tables[SM_CPU], row, err);
}

static int sink_mem(void *ctx, const syspb_mem_sample *s, nl_error *err)
{
    builder *b = ctx;
    table_value row[SM_MEM_NCOLS] = {{.i = (int64_t)s->timestamp_ns}, {.u = s->used_bytes}};
    return table_append(b->tables[SM_MEM], row, err);
}

static void sink_note(void *ctx, const syspb_note *n)
{
    builder *b = ctx;
    system_model_add_note(b->model, n->code, b->file, &n->where);
}

/* ---- loading ---------------------------------------------------------------------------------------- */

static void check_trace_info(system_model *m, const char *path)
{
    const syspb_trace_info *ti = system_model_trace_info_mut(m);
    if (!syspb_trace_info_table(ti, SYSPB_TABLE_EVENT_TYPES))
        system_model_notef(m, SM_NOTE_NO_TYPE_TABLE, SM_FILE_TRACE_INFO, path, -1, -1,
                   "trace_info.pb has no %s table: event types cannot be named", SYSPB_TABLE_EVENT_TYPES);
    for (size_t i = 0; i < ti->table_count; i++)
        if (ti->tables[i].duplicate_ids)
            system_model_notef(m, SM_NOTE_DUPLICATE_IDS, SM_FILE_TRACE_INFO, path, -1, -1,
                       "interned table %s repeats %zu id(s); the first value of each is used", ti->tables[i].name,
                       ti->tables[i].duplicate_ids);
    if (ti->unknown_fields) {
        nl_error e;
        nl_error_set(&e, NL_ERR_UNSUPPORTED, path, -1, "%zu field(s) of trace_info.pb the schema does not know",
                     ti->unknown_fields);
        system_model_add_note(m, SYSPB_NOTE_UNKNOWN_FIELDS, SM_FILE_TRACE_INFO, &e);
    }
}

static int load_trace_info(system_model *m, const char *path, nl_error *err)
{
    system_file_info *fi = system_model_file_mut(m, SM_FILE_TRACE_INFO);
    fi->path = path;
    if (!path)
        return nl_error_set(err, NL_ERR_NOT_FOUND, NULL, -1, "the capture has no trace_info.pb");
    if (syspb_trace_info_read(path, system_model_arena(m), system_model_trace_info_mut(m), err))
        return -1;
    fi->read = true;
    uint64_t bytes = system_model_trace_info_mut(m)->file_bytes;
    fi->stats = (syspb_stream_stats){.file_bytes = bytes, .bytes_consumed = bytes, .records = 1, .records_decoded = 1};
    fi->declared_records = 1;
    check_trace_info(m, path);
    return 0;
}

static void check_count(system_model *m, system_file f)
{
    system_file_info *fi = system_model_file_mut(m, f);
    if (!fi->read || !fi->declared_records || fi->declared_records == fi->stats.records)
        return;
    system_model_notef(m, SM_NOTE_COUNT_MISMATCH, f, fi->path, -1, -1,
               "%s holds %llu records; trace_info.pb says %llu were written%s", system_file_name(f),
               (unsigned long long)fi->stats.records, (unsigned long long)fi->declared_records,
               fi->stats.records < fi->declared_records ? " (events lost or the file was cut)" : "");
}

static int load_stream(system_model *m, builder *b, system_file f, syspb_stream_kind kind, const char *path,
                       const system_profile_options *opt, nl_error *err)
{
    system_file_info *fi = system_model_file_mut(m, f);
    fi->path = path;
    b->file = f;
    b->source = path;
    if (!path) {
        system_model_notef(m, SM_NOTE_MISSING_FILE, f, system_file_name(f), -1, -1, "the capture has no %s",
                   system_file_name(f));
        return 0;
    }
    syspb_sink sink = {.ctx = b, .event = sink_event, .cpu = sink_cpu, .mem = sink_mem, .note = sink_note};
    syspb_options so = {.cancel = opt ? opt->cancel : NULL, .read_size = opt ? opt->read_size : 0};
    nl_error e;
    if (syspb_read_stream(path, kind, system_model_trace_info_mut(m), &so, &sink, &fi->stats, &e)) {
        bool optional = f != SM_FILE_NTRACE && e.code == NL_ERR_IO;
        if (!optional) {
            *err = e;
            return -1;
        }
        system_model_add_note(m, SM_NOTE_UNREADABLE_FILE, f, &e);
        return 0;
    }
    fi->read = true;
    check_count(m, f);
    return 0;
}

static void set_declared(system_model *m)
{
    const syspb_trace_info *ti = system_model_trace_info_mut(m);
    system_model_file_mut(m, SM_FILE_NTRACE)->declared_records = ti->ntrace_records ? ti->ntrace_records : ti->event_count;
    system_model_file_mut(m, SM_FILE_CPU_UTIL)->declared_records = ti->cpu_util_records * (ti->cpu_count ? ti->cpu_count : 1);
    system_model_file_mut(m, SM_FILE_HOST_MEM)->declared_records = ti->host_mem_records;
}

int system_profile_load(const system_profile_paths *paths, const system_profile_options *opt, system_model **out,
                        nl_error *err)
{
    *out = NULL;
    system_model *m = system_model_new(opt ? opt->memory_limit : 0, err);
    if (!m)
        return -1;
    builder b = {.model = m, .strings = system_model_strtab_mut(m), .counts = system_model_counts_mut(m)};
    for (int t = 0; t < SM_TABLE_COUNT; t++)
        b.tables[t] = system_model_table_mut(m, (system_model_table)t);
    int rc = load_trace_info(m, paths->trace_info, err);
    if (rc == 0) {
        set_declared(m);
        if (!paths->ntrace)
            rc = nl_error_set(err, NL_ERR_NOT_FOUND, NULL, -1, "the capture has no ntrace.pb");
    }
    if (rc == 0)
        rc = load_stream(m, &b, SM_FILE_NTRACE, SYSPB_NTRACE, paths->ntrace, opt, err);
    if (rc == 0) {
        b.source = paths->ntrace;
        rc = close_open_spans(&b, err);
    }
    if (rc == 0)
        rc = load_stream(m, &b, SM_FILE_CPU_UTIL, SYSPB_CPU_UTIL, paths->cpu_util, opt, err);
    if (rc == 0)
        rc = load_stream(m, &b, SM_FILE_HOST_MEM, SYSPB_HOST_MEM, paths->host_mem, opt, err);
    builder_close(&b);
    if (rc) {
        system_model_free(m);
        return -1;
    }
    *out = m;
    return 0;
}
