/* gaps_render — the collective-gaps result, rendered once for every source (a show-session dump, the
 * cc_running spans of a system profile, the collectives of a framework trace).
 *
 * A gaps_result (analyses/gaps.h) becomes the same JSON whatever produced it: the chosen lane, the layer
 * mapping and its checks, the statistics (median, p90, steady state, warm-up layer with its reading), outliers,
 * irregular gaps, totals, the gap problems as data_quality, and a page of layers (with the raw gaps of the page
 * when the mapping is inconsistent) that is shrunk until the result fits the byte budget. What differs by
 * source comes in a gaps_render_source: how a lane is named and labelled, the cursor tag, the wording of a
 * missing total time. Builders return new jansson references; any worker thread may call them. */
#ifndef NL_GAPS_RENDER_H
#define NL_GAPS_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "gaps.h"
#include "tools.h"

#define GAPS_RENDER_CURSOR_PREFIX "cgaps"

typedef struct gaps_render_source {
    const char *lane_word;        /* "CC-core" or "lane", in cursor errors */
    const char *choice_auto;      /* how the lane was chosen when not forced */
    /* the label of lane `id` added to its cc_cores entry, or NULL for none (ctx = label_ctx) */
    json_t *(*lane_label)(const void *ctx, uint32_t id);
    const void *label_ctx;
    const char *no_total_problem; /* replaces the analysis' own no_total_time text, or NULL to keep it */
    bool has_total;               /* where the total time came from, when it is known */
    const char *total_source;
} gaps_render_source;

/* Fill `out` (which already holds profile, units, provenance, data_quality) with the result `r`: everything
 * above, with the page of layers that starts at the cursor (`cursor` nullable) and holds at most max_rows,
 * halved until the serialized result fits `budget` bytes. 0, or -1 with res filled (a cursor of another lane
 * or mapping, beyond the last layer, or not even one layer fits). */
int gaps_render(const gaps_result *r, const gaps_render_source *src, const char *cursor, size_t max_rows,
                size_t budget, json_t *out, size_t *offset, nl_tool_result *res);

/* The fields of a result that abstained (no layers): empty lists, null statistics. */
void gaps_render_abstained(json_t *out, const char *reason, const char *fix);

#endif
