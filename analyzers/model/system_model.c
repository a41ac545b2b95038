/* system_model — the system model's storage, notes and accessors (see system_model.h). The reader that
 * fills it (pairing begins and ends into spans) is readers/system_profile.c. */
#include "system_model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct system_model {
    arena *arena;
    strtab *strings;
    table *tables[SM_TABLE_COUNT];
    syspb_trace_info trace_info;
    system_file_info files[SM_FILE_COUNT];
    system_model_counts counts;
    system_model_note notes[SYSTEM_MODEL_NOTES_MAX];
    size_t note_count;
};

static const table_column SPAN_COLS[SM_SPAN_NCOLS] = {
    [SM_SPAN_TYPE] = {"type", TABLE_STR},           [SM_SPAN_TYPE_ID] = {"type_id", TABLE_UINT},
    [SM_SPAN_START] = {"start", TABLE_INT},         [SM_SPAN_END] = {"end", TABLE_INT},
    [SM_SPAN_WORKER] = {"worker_gid", TABLE_INT},   [SM_SPAN_NC] = {"nc_idx", TABLE_INT},
    [SM_SPAN_CORE] = {"device_core_idx", TABLE_INT}, [SM_SPAN_EXEC] = {"exec_id", TABLE_INT},
    [SM_SPAN_MODEL] = {"model_id", TABLE_UINT},     [SM_SPAN_BYTES] = {"bytes", TABLE_UINT},
    [SM_SPAN_NC_BEGIN] = {"nc_begin", TABLE_INT},   [SM_SPAN_NC_END] = {"nc_end", TABLE_INT},
    [SM_SPAN_USAGE] = {"usage_type", TABLE_STR},    [SM_SPAN_THREAD] = {"thread", TABLE_UINT},
    [SM_SPAN_ID] = {"span_id", TABLE_UINT},         [SM_SPAN_RECORD] = {"record", TABLE_INT},
    [SM_SPAN_ATTR_FIRST] = {"attr_first", TABLE_UINT}, [SM_SPAN_ATTR_COUNT] = {"attr_count", TABLE_UINT},
    [SM_SPAN_FLAGS] = {"flags", TABLE_UINT},
};
static const table_column ATTR_COLS[SM_ATTR_NCOLS] = {{"key", TABLE_STR}, {"value", TABLE_STR}};
static const table_column SYNC_COLS[SM_SYNC_NCOLS] = {
    {"time", TABLE_INT}, {"cpu_timestamp_ns", TABLE_INT}, {"nc_timestamp_ns", TABLE_INT}, {"exec_id", TABLE_INT},
    {"nc_idx", TABLE_INT}, {"worker_gid", TABLE_INT}, {"record", TABLE_INT},
};
static const table_column CPU_COLS[SM_CPU_NCOLS] = {
    {"time", TABLE_INT}, {"cpu", TABLE_UINT}, {"util_pct", TABLE_F64}, {"has_util", TABLE_UINT}};
static const table_column MEM_COLS[SM_MEM_NCOLS] = {{"time", TABLE_INT}, {"used_bytes", TABLE_UINT}};

/* ---- notes ------------------------------------------------------------------------------------------ */

const char *system_file_name(system_file f)
{
    static const char *const names[SM_FILE_COUNT] = {"trace_info.pb", "ntrace.pb", "cpu_util.pb", "host_mem.pb"};
    return (unsigned)f < SM_FILE_COUNT ? names[f] : "?";
}

const char *system_note_code_name(int code)
{
    static const char *const names[SM_NOTE_CODE_COUNT - SYSPB_NOTE_CODE_COUNT] = {
        "unmatched_begin", "unmatched_end", "type_mismatch", "duplicate_span", "bad_attribute",
        "too_many_attributes", "missing_file", "unreadable_file", "record_count_mismatch", "duplicate_interned_id",
        "no_event_type_table",
    };
    if (code >= 0 && code < SYSPB_NOTE_CODE_COUNT)
        return syspb_note_code_name((syspb_note_code)code);
    if (code >= SYSPB_NOTE_CODE_COUNT && code < SM_NOTE_CODE_COUNT)
        return names[code - SYSPB_NOTE_CODE_COUNT];
    return "unknown";
}

/* Count a note under (code, file); the first occurrence is kept whole. */
void system_model_add_note(system_model *m, int code, system_file file, const nl_error *where)
{
    for (size_t i = 0; i < m->note_count; i++)
        if (m->notes[i].code == code && m->notes[i].file == file) {
            m->notes[i].count++;
            return;
        }
    if (m->note_count == SYSTEM_MODEL_NOTES_MAX) {
        m->counts.notes_dropped++;
        return;
    }
    m->notes[m->note_count++] = (system_model_note){.code = code, .file = file, .count = 1, .first = *where};
}

void system_model_notef(system_model *m, int code, system_file file, const char *source, int64_t offset,
                       int64_t record, const char *fmt, ...)
{
    nl_error e;
    nl_error_clear(&e);
    e.code = NL_ERR_FORMAT;
    e.offset = offset;
    e.record = record;
    snprintf(e.source, sizeof e.source, "%s", source ? source : system_file_name(file));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof e.message, fmt, ap);
    va_end(ap);
    system_model_add_note(m, code, file, &e);
}

/* ---- building ------------------------------------------------------------------------------------- */

system_model *system_model_new(size_t memory_limit, nl_error *err)
{
    system_model *m = calloc(1, sizeof *m);
    if (!m || !(m->arena = arena_new(0))) {
        free(m);
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory for a system model");
        return NULL;
    }
    if (memory_limit)
        arena_set_limit(m->arena, memory_limit);
    m->strings = strtab_new(m->arena);
    m->tables[SM_SPANS] = table_new(m->arena, SPAN_COLS, SM_SPAN_NCOLS);
    m->tables[SM_ATTRS] = table_new(m->arena, ATTR_COLS, SM_ATTR_NCOLS);
    m->tables[SM_SYNC] = table_new(m->arena, SYNC_COLS, SM_SYNC_NCOLS);
    m->tables[SM_CPU] = table_new(m->arena, CPU_COLS, SM_CPU_NCOLS);
    m->tables[SM_MEM] = table_new(m->arena, MEM_COLS, SM_MEM_NCOLS);
    bool ok = m->strings != NULL;
    for (int t = 0; t < SM_TABLE_COUNT; t++)
        ok = ok && m->tables[t];
    if (!ok) {
        system_model_free(m);
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory for a system model");
        return NULL;
    }
    return m;
}

arena *system_model_arena(system_model *m)
{
    return m->arena;
}

strtab *system_model_strtab_mut(system_model *m)
{
    return m->strings;
}

table *system_model_table_mut(system_model *m, system_model_table t)
{
    return (unsigned)t < SM_TABLE_COUNT ? m->tables[t] : NULL;
}

syspb_trace_info *system_model_trace_info_mut(system_model *m)
{
    return &m->trace_info;
}

system_file_info *system_model_file_mut(system_model *m, system_file f)
{
    return (unsigned)f < SM_FILE_COUNT ? &m->files[f] : NULL;
}

system_model_counts *system_model_counts_mut(system_model *m)
{
    return &m->counts;
}

void system_model_free(system_model *m)
{
    if (!m)
        return;
    arena_free(m->arena);
    free(m);
}

const table *system_model_table_get(const system_model *m, system_model_table t)
{
    return (unsigned)t < SM_TABLE_COUNT ? m->tables[t] : NULL;
}

const strtab *system_model_strings(const system_model *m)
{
    return m->strings;
}

const syspb_trace_info *system_model_trace_info(const system_model *m)
{
    return &m->trace_info;
}

const system_file_info *system_model_file(const system_model *m, system_file f)
{
    return (unsigned)f < SM_FILE_COUNT ? &m->files[f] : NULL;
}

const system_model_counts *system_model_counts_get(const system_model *m)
{
    return &m->counts;
}

size_t system_model_note_count(const system_model *m)
{
    return m->note_count;
}

const system_model_note *system_model_note_at(const system_model *m, size_t i)
{
    return i < m->note_count ? &m->notes[i] : NULL;
}

const char *system_model_neff_path(const system_model *m, uint64_t model_id)
{
    return syspb_intern_lookup(syspb_trace_info_table(&m->trace_info, SYSPB_TABLE_MODELS), model_id);
}

uint32_t system_model_type(const system_model *m, const char *name)
{
    return strtab_find(m->strings, name, strlen(name));
}

size_t system_model_bytes(const system_model *m)
{
    return arena_reserved(m->arena) + sizeof *m; /* the header is malloc'd on its own */
}
