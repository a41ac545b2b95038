/* system_records — see system_records.h. */
#include "system_records.h"

#include <string.h>

const syspb_intern_table *syspb_trace_info_table(const syspb_trace_info *ti, const char *name)
{
    for (size_t i = 0; ti && i < ti->table_count; i++)
        if (ti->tables[i].name && !strcmp(ti->tables[i].name, name))
            return &ti->tables[i];
    return NULL;
}

const char *syspb_intern_lookup(const syspb_intern_table *t, uint64_t id)
{
    if (!t)
        return NULL;
    size_t lo = 0, hi = t->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->entries[mid].id == id)
            return t->entries[mid].value;
        if (t->entries[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *syspb_note_code_name(syspb_note_code code)
{
    static const char *const names[SYSPB_NOTE_CODE_COUNT] = {
        [SYSPB_NOTE_TRUNCATED] = "truncated",         [SYSPB_NOTE_OVERSIZED] = "oversized_record",
        [SYSPB_NOTE_BAD_RECORD] = "bad_record",       [SYSPB_NOTE_MISSING_FIELD] = "missing_field",
        [SYSPB_NOTE_UNKNOWN_TYPE] = "unknown_event_type", [SYSPB_NOTE_UNKNOWN_PHASE] = "unknown_phase",
        [SYSPB_NOTE_VALUE_RANGE] = "value_range",     [SYSPB_NOTE_UNKNOWN_FIELDS] = "unknown_fields",
    };
    return (unsigned)code < SYSPB_NOTE_CODE_COUNT ? names[code] : "unknown";
}
