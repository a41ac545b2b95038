/* gaps_render — see gaps_render.h.
 *
 * Bounds: lanes and outliers are capped lists with totals; the raw gaps shown when the mapping is inconsistent
 * cover the layers of the page (plus the prologue and leftover gaps at the ends); the page of layers is halved,
 * then the raw gaps, until the serialized result fits the budget. The cursor "cgaps-<lane>-<A>-<P>.<layer>"
 * names the lane and the mapping it was issued for, so it cannot resume another query. */
#include "gaps_render.h"
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GR_LANES_LISTED 16
#define GR_OUTLIERS_LISTED 20
#define GR_RAW_GAPS_MAX 128
#define GR_LAYER_GAPS_MAX 8 /* per-layer gaps_ns shown when collectives_per_layer is at most this */

static json_t *gr_ratio(double v)
{
    return json_real(round(v * 1e4) / 1e4);
}

static json_t *gr_layer(const gaps_result *r, size_t k)
{
    const gaps_layer *ly = &r->layers[k];
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:o, s:b, s:b}", "layer", (json_int_t)k, "latency_ns",
                          (json_int_t)ly->latency_ns, "start_ns", (json_int_t)ly->start_ns, "end_ns",
                          (json_int_t)ly->end_ns, "ratio_to_median", gr_ratio(ly->ratio_to_median), "outlier", ly->outlier,
                          "warmup", k == 0);
    if (r->per_layer <= GR_LAYER_GAPS_MAX) {
        json_t *g = json_array();
        for (size_t j = 0; j < r->per_layer; j++)
            json_array_append_new(g, json_integer(r->gaps[ly->first_gap - 1 + j]));
        json_object_set_new(o, "gaps_ns", g);
    }
    return o;
}

static json_t *gr_cores(const gaps_result *r, const gaps_render_source *src)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < r->core_count && i < GR_LANES_LISTED; i++) {
        json_t *o = json_pack("{s:I, s:I, s:b}", "cc_core", (json_int_t)r->cores[i].id, "trigger_starts",
                              (json_int_t)r->cores[i].triggers, "used", r->cores[i].id == r->cc_core);
        if (r->cores[i].phase_less)
            json_object_set_new(o, "phase_less", json_true());
        json_t *label = src->lane_label ? src->lane_label(src->label_ctx, r->cores[i].id) : NULL;
        if (label)
            json_object_set_new(o, "lane", label);
        json_array_append_new(arr, o);
    }
    return json_pack("{s:I, s:o, s:b}", "total", (json_int_t)r->core_count, "listed", arr, "truncated",
                     r->core_count > GR_LANES_LISTED);
}

static json_t *gr_mapping(const gaps_result *r)
{
    json_t *fit = json_pack("{s:o, s:s, s:b, s:o}", "fit", r->has_fit ? gr_ratio(r->fit) : json_null(), "confidence",
                            r->confidence, "uniform_gaps", r->uniform, "better_period",
                            r->better_period ? json_integer(r->better_period) : json_null());
    if (r->better_period)
        json_object_set_new(fit, "better_period_fit", gr_ratio(r->better_period_fit));
    json_t *codes = json_array();
    for (size_t i = 0; i < r->problem_count; i++)
        if (r->problems[i].breaks_mapping)
            json_array_append_new(codes, json_string(r->problems[i].code));
    return json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:o, s:o}", "consistent", r->consistent, "triggers",
                     (json_int_t)r->trigger_count, "gaps", (json_int_t)r->gap_count, "prologue_gaps",
                     (json_int_t)r->skip_prologue, "collectives_per_layer", (json_int_t)r->per_layer, "layers",
                     (json_int_t)r->layer_count, "leftover_gaps", (json_int_t)r->leftover_gaps, "reordered", r->reordered,
                     "periodicity", fit, "broken_by", codes);
}

static json_t *gr_raw_gaps(const gaps_result *r, size_t offset, size_t end, size_t cap)
{
    size_t first = offset == 0 ? 1 : r->skip_prologue + 1 + (size_t)r->per_layer * offset;
    size_t last = end >= r->layer_count ? r->gap_count : r->skip_prologue + (size_t)r->per_layer * end;
    json_t *arr = json_array();
    size_t shown = 0;
    for (size_t i = first; i <= last && shown < cap; i++, shown++) {
        int64_t layer = gaps_gap_layer(r, i);
        json_array_append_new(arr, json_pack("{s:I, s:I, s:I, s:o, s:s}", "gap", (json_int_t)i, "ns", (json_int_t)r->gaps[i - 1],
                                             "from_ns", (json_int_t)r->times[i - 1], "layer",
                                             layer >= 0 ? json_integer(layer) : json_null(), "role",
                                             layer == -1 ? "prologue" : layer == -2 ? "leftover" : "layer"));
    }
    return json_pack("{s:s, s:I, s:I, s:I, s:b, s:o}", "note", "shown because the mapping is inconsistent: the gaps of "
                     "this page's layers (and the prologue / leftover gaps at the ends), numbered from 1",
                     "total", (json_int_t)r->gap_count, "first_gap", (json_int_t)first, "last_gap",
                     (json_int_t)(shown ? first + shown - 1 : 0), "truncated", first + shown <= last, "gaps", arr);
}

static json_t *gr_irregular(const gaps_result *r)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < r->irregular_listed; i++)
        json_array_append_new(arr, json_pack("{s:I, s:I, s:I, s:s}", "gap", (json_int_t)r->irregular[i].gap, "ns",
                                             (json_int_t)r->irregular[i].ns, "from_ns",
                                             (json_int_t)r->times[r->irregular[i].gap - 1], "looks",
                                             r->irregular[i].kind == GAPS_GAP_LONG
                                                 ? "long: two merged gaps? (a trigger missing here, or the mapping is shifted)"
                                                 : "short: a split gap? (an extra or duplicated trigger)"));
    return json_pack("{s:I, s:o}", "total", (json_int_t)r->irregular_count, "listed", arr);
}

static json_t *gr_outliers(const gaps_result *r)
{
    json_t *outliers = json_array();
    for (size_t k = 0; k < r->layer_count && json_array_size(outliers) < GR_OUTLIERS_LISTED; k++)
        if (r->layers[k].outlier)
            json_array_append_new(outliers, json_pack("{s:I, s:I, s:o}", "layer", (json_int_t)k, "latency_ns",
                                                      (json_int_t)r->layers[k].latency_ns, "ratio_to_median",
                                                      gr_ratio(r->layers[k].ratio_to_median)));
    return outliers;
}

static json_t *gr_warmup(const gaps_result *r)
{
    if (!r->has_steady)
        return json_null();
    return json_pack("{s:i, s:I, s:o, s:b, s:s}", "layer", 0, "latency_ns", (json_int_t)r->layers[0].latency_ns,
                     "ratio_to_steady_median", gr_ratio(r->warmup_ratio), "slow", r->warmup_slow, "reading",
                     r->warmup_slow ? "layer 0 pays for weights nothing prefetched; quote steady_state_median_ns as the "
                                      "per-layer latency"
                                    : "layer 0 is not slower than the others");
}

static void gr_stats(const gaps_result *r, const gaps_render_source *src, json_t *o)
{
    bool any = r->layer_count > 0;
    json_object_set_new(o, "median_ns", any ? json_integer(r->median_ns) : json_null());
    json_object_set_new(o, "p90_ns", any ? json_integer(r->p90_ns) : json_null());
    json_object_set_new(o, "min_ns", any ? json_integer(r->min_ns) : json_null());
    json_object_set_new(o, "max_ns", any ? json_integer(r->max_ns) : json_null());
    json_object_set_new(o, "steady_state_median_ns", r->has_steady ? json_integer(r->steady_median_ns) : json_null());
    json_object_set_new(o, "statistics", json_string("median: middle layer (mean of the two middle ones, rounded down); "
                                                     "p90: nearest rank ceil(0.9 L); steady state: layers 1..L-1"));
    char rule[160];
    snprintf(rule, sizeof rule, "layer >= 1 with latency_ns > %.2g x median_ns (layer 0 is judged as the warm-up layer)",
             r->outlier_k);
    json_object_set_new(o, "outlier_rule", json_string(rule));
    json_object_set_new(o, "outliers", gr_outliers(r));
    json_object_set_new(o, "outliers_total", json_integer((json_int_t)r->outlier_count));
    json_object_set_new(o, "warmup_layer", gr_warmup(r));
    json_object_set_new(o, "totals", json_pack("{s:I, s:I, s:o, s:o, s:o, s:o}", "layers_sum_ns",
                                               (json_int_t)r->layers_sum_ns, "window_ns", (json_int_t)r->window_ns,
                                               "total_time_ns", r->has_total_time ? json_integer(r->total_time_ns) : json_null(),
                                               "total_time_source", src->has_total ? json_string(src->total_source) : json_null(),
                                               "layers_to_total", r->has_total_time ? gr_ratio(r->layers_to_total) : json_null(),
                                               "window_to_total", r->has_total_time ? gr_ratio(r->window_to_total) : json_null()));
}

static void gr_problems(const gaps_result *r, const gaps_render_source *src, json_t *dq)
{
    for (size_t i = 0; i < r->problem_count; i++) {
        const gaps_problem *p = &r->problems[i];
        bool replaced = src->no_total_problem && !strcmp(p->code, "no_total_time");
        json_t *q = shape_quality(p->severity == GAPS_WARNING ? "warning" : "info",
                                  replaced ? src->no_total_problem : p->text, replaced ? NULL : p->fix, NULL);
        json_object_set_new(q, "code", json_string(p->code));
        json_array_append_new(dq, q);
    }
}

/* The page [offset, offset + rows) of layers, with raw gaps when the mapping is inconsistent. */
static void gr_page(const gaps_result *r, const char *tag, size_t offset, size_t rows, size_t raw_cap, json_t *out)
{
    size_t total = r->layer_count, end = offset + rows < total ? offset + rows : total;
    json_t *layers = json_array();
    for (size_t k = offset; k < end; k++)
        json_array_append_new(layers, gr_layer(r, k));
    json_object_set_new(out, "layers", layers);
    json_object_set_new(out, "total", json_integer((json_int_t)total));
    json_object_set_new(out, "shown", json_integer((json_int_t)(end - offset)));
    json_object_set_new(out, "truncated", json_boolean(end < total));
    char next[96];
    shape_cursor_make(next, sizeof next, tag, end);
    json_object_set_new(out, "next_cursor", end < total ? json_string(next) : json_null());
    if (!r->consistent)
        json_object_set_new(out, "raw_gaps", gr_raw_gaps(r, offset, end, raw_cap));
    else
        json_object_del(out, "raw_gaps");
}

static size_t gr_size(const json_t *out)
{
    return json_dumpb(out, NULL, 0, JSON_COMPACT);
}

int gaps_render(const gaps_result *r, const gaps_render_source *src, const char *cursor, size_t max_rows,
                size_t budget, json_t *out, size_t *offset, nl_tool_result *res)
{
    char tag[64];
    snprintf(tag, sizeof tag, GAPS_RENDER_CURSOR_PREFIX "-%u-%u-%u", r->cc_core, r->per_layer, r->skip_prologue);
    *offset = 0;
    if (cursor && shape_cursor_parse(cursor, tag, offset))
        return nl_tool_result_error(res, "Invalid arguments for collective-gaps — arguments.cursor: not a cursor of this "
                                    "%s and mapping (expected %s.<n>); call again without a cursor to start from "
                                    "layer 0.", src->lane_word, tag), -1;
    if (*offset > r->layer_count || (*offset == r->layer_count && *offset > 0))
        return nl_tool_result_error(res, "Invalid arguments for collective-gaps — arguments.cursor: beyond the last layer "
                                    "(%zu layers).", r->layer_count), -1;
    json_object_set_new(out, "status", json_string(r->consistent ? "complete" : "inconsistent"));
    json_object_set_new(out, "cc_core", json_integer(r->cc_core));
    json_object_set_new(out, "cc_core_choice", json_string(r->forced ? "forced by the cc_core argument" : src->choice_auto));
    json_object_set_new(out, "cc_cores", gr_cores(r, src));
    json_object_set_new(out, "collectives_per_layer", json_integer(r->per_layer));
    json_object_set_new(out, "skip_prologue_gaps", json_integer(r->skip_prologue));
    json_object_set_new(out, "mapping", gr_mapping(r));
    gr_stats(r, src, out);
    if (r->irregular_count)
        json_object_set_new(out, "irregular_gaps", gr_irregular(r));
    gr_problems(r, src, json_object_get(out, "data_quality"));
    size_t rows = max_rows, raw_cap = GR_RAW_GAPS_MAX;
    for (;;) {
        gr_page(r, tag, *offset, rows, raw_cap, out);
        if (gr_size(out) <= budget)
            return 0;
        if (rows > 1)
            rows /= 2;
        else if (raw_cap > 8)
            raw_cap /= 2;
        else
            return nl_tool_result_error(res, "Even one layer of collective-gaps does not fit the %zu-byte result budget; "
                                        "raise the server's response limit.", budget), -1;
    }
}

void gaps_render_abstained(json_t *out, const char *reason, const char *fix)
{
    json_object_set_new(out, "status", json_string("abstained"));
    json_object_set_new(out, "abstained", json_pack("{s:s, s:s}", "reason", reason, "fix", fix));
    json_object_set_new(out, "layers", json_array());
    json_object_set_new(out, "total", json_integer(0));
    json_object_set_new(out, "shown", json_integer(0));
    json_object_set_new(out, "truncated", json_false());
    json_object_set_new(out, "next_cursor", json_null());
    json_object_set_new(out, "cc_core", json_null());
    json_object_set_new(out, "median_ns", json_null());
    json_object_set_new(out, "p90_ns", json_null());
    json_object_set_new(out, "outliers", json_array());
}
