/* show_session_model — see show_session_model.h. */
#include "show_session_model.h"

#include <stdlib.h>

const show_session_info *show_session_get_info(const show_session *ss) { return &ss->info; }
size_t show_session_core_count(const show_session *ss) { return ss->core_count; }
const show_session_core *show_session_core_at(const show_session *ss, size_t i) { return &ss->cores[i]; }
size_t show_session_type_count(const show_session *ss) { return ss->type_count; }

const char *show_session_type_name(const show_session *ss, size_t i)
{
    return i < ss->type_count ? ss->type_names[i] : "(other)";
}

const show_session_core *show_session_core_find(const show_session *ss, uint32_t id)
{
    for (size_t i = 0; i < ss->core_count; i++)
        if (ss->cores[i].id == id)
            return &ss->cores[i];
    return NULL;
}

int show_session_total_time_for_core(const show_session *ss, uint32_t id, int64_t *ns, int64_t *offset)
{
    size_t kept = ss->info.total_time_count < SHOW_SESSION_TOTALS_MAX ? ss->info.total_time_count : SHOW_SESSION_TOTALS_MAX;
    if (kept == 0)
        return 0;
    const show_session_core *c = show_session_core_find(ss, id);
    size_t pick = 0;
    for (size_t i = 0; c && i < kept; i++)
        if (ss->totals[i][0] < c->header_offset)
            pick = i;
    *offset = ss->totals[pick][0];
    *ns = ss->totals[pick][1];
    return 1;
}

size_t show_session_bytes(const show_session *ss)
{
    size_t n = sizeof *ss + ss->core_cap * (sizeof *ss->cores + sizeof *ss->store) + ss->graph_cap * sizeof *ss->graphs;
    for (size_t i = 0; i < ss->core_count; i++)
        n += ss->store[i].cap * sizeof *ss->store[i].trig + (SHOW_SESSION_TYPES_MAX + 1) * sizeof *ss->store[i].counts;
    return n;
}

void show_session_free(show_session *ss)
{
    if (!ss)
        return;
    for (size_t i = 0; i < ss->core_count; i++) {
        free(ss->store[i].trig);
        free(ss->store[i].counts);
    }
    free(ss->cores);
    free(ss->store);
    free(ss->graphs);
    free(ss);
}

