/* gaps — see gaps.h.
 *
 * Steps, in order:
 *   1. choose:   rank the cores by trigger count (ties → highest id); the first, or the forced one
 *   2. gaps:     copy and sort its times (reordered = the input was not sorted); g_i = t_i − t_(i−1)
 *   3. layers:   L = ⌊(n − 1 − P) / A⌋; layer K spans t(P + A·K) … t(P + A·(K + 1)); leftover = the rest
 *   4. stats:    median / p90 over all layers, steady median over layers 1 … L − 1, outliers (K ≥ 1,
 *                latency > k × median), warm-up (layer 0 > k × steady median)
 *   5. fit:      the periodicity of the gaps inside the steady layers (all layers when L < 3; needs two),
 *                on shares s = g / (its layer's latency), so a uniformly slow layer still fits:
 *                fit = 1 − Σ|s − m_pos| / Σ|s − m_all| with m_pos the median share at the same position in
 *                the layer; shares with stddev/mean < GAPS_UNIFORM_CV are "uniform" (fit 1: any period fits);
 *                A = 1 is not checked. Periods 2 … GAPS_PERIOD_TRY_MAX are fitted the same way, and the
 *                smallest whose fit is within 0.05 of the best is offered when it beats A by a margin.
 *   6. irregular: only when the count does not add up (leftover gaps or duplicate times), against the
 *                per-position median gaps hi (largest) and lo (smallest) of the same window: a gap of at
 *                least hi + lo/2 looks like two merged gaps (a trigger missing; for A = 1: above
 *                GAPS_LONG_GAP_K × hi), a gap under GAPS_SHORT_GAP_K × lo like a split one (an extra
 *                trigger); the prologue and layer 0 (warm-up) are not judged.
 *   7. coverage: Σ layers and the trigger window against the total time, when known.
 * The mapping is consistent when L ≥ 1, no gap is left over, no two triggers share a time, and the fit
 * (when checked) is at least GAPS_FIT_MEDIUM. Coverage problems are reported but do not break the mapping. */
#include "gaps.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gaps_store {
    gaps_result r;
    gaps_core_stat *cores;
    int64_t *times, *gaps;
    gaps_layer *layers;
    gaps_irregular irregular[GAPS_IRREGULAR_MAX];
    gaps_problem problems[GAPS_PROBLEMS_MAX];
} gaps_store;

void gaps_options_default(gaps_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->cc_core = -1;
    opt->collectives_per_layer = 2;
    opt->skip_prologue_gaps = 1;
    opt->outlier_k = GAPS_OUTLIER_K_DEFAULT;
}

void gaps_result_free(gaps_result *r)
{
    gaps_store *s = (gaps_store *)r;
    if (!s)
        return;
    free(s->cores);
    free(s->times);
    free(s->gaps);
    free(s->layers);
    free(s);
}

static void gaps_problem_add(gaps_store *s, const char *code, gaps_severity sev, bool breaks, const char *fix,
                             const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void gaps_problem_add(gaps_store *s, const char *code, gaps_severity sev, bool breaks, const char *fix,
                             const char *fmt, ...)
{
    if (breaks)
        s->r.consistent = false;
    if (s->r.problem_count >= GAPS_PROBLEMS_MAX)
        return;
    gaps_problem *p = &s->problems[s->r.problem_count++];
    p->code = code;
    p->severity = sev;
    p->breaks_mapping = breaks;
    p->fix = fix;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_core(const void *a, const void *b)
{
    const gaps_core_stat *x = a, *y = b;
    if (x->triggers != y->triggers)
        return x->triggers > y->triggers ? -1 : 1;
    return (x->id < y->id) - (x->id > y->id);
}

/* Median of v[0..n) (sorted in place); mean of the middle two, rounded down, for even n. */
static int64_t median_sorted(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64);
    if (n % 2)
        return v[n / 2];
    int64_t a = v[n / 2 - 1], b = v[n / 2];
    return a / 2 + b / 2 + ((a % 2) + (b % 2)) / 2;
}

/* ---- step 1 and 2 ----------------------------------------------------------------------------------- */

static int gaps_choose(gaps_store *s, const gaps_core_input *cores, size_t n, const gaps_options *opt,
                       const gaps_core_input **chosen, nl_error *err)
{
    s->cores = malloc((n ? n : 1) * sizeof *s->cores);
    if (!s->cores)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory ranking CC-cores");
    for (size_t i = 0; i < n; i++)
        s->cores[i] = (gaps_core_stat){cores[i].id, cores[i].count, cores[i].phase_less};
    qsort(s->cores, n, sizeof *s->cores, cmp_core);
    s->r.cores = s->cores;
    s->r.core_count = n;
    *chosen = NULL;
    if (opt->cc_core >= 0) {
        for (size_t i = 0; i < n; i++)
            if (cores[i].id == (uint64_t)opt->cc_core)
                *chosen = &cores[i];
        if (!*chosen) {
            char list[256] = "";
            size_t used = 0;
            for (size_t i = 0; i < n && i < 16 && used + 32 < sizeof list; i++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%u (%zu)", i ? ", " : "", s->cores[i].id,
                                         s->cores[i].triggers);
            return nl_error_set(err, NL_ERR_NOT_FOUND, NULL, -1, "CC-core %lld is not in the input; CC-cores (triggers): %s",
                                (long long)opt->cc_core, n ? list : "none");
        }
        s->r.forced = true;
    } else {
        if (n == 0 || s->cores[0].triggers == 0)
            return nl_error_set(err, NL_ERR_NOT_FOUND, NULL, -1, "no CC-core has any collective trigger");
        for (size_t i = 0; i < n; i++)
            if (cores[i].id == s->cores[0].id)
                *chosen = &cores[i];
    }
    s->r.cc_core = (*chosen)->id;
    s->r.phase_less = (*chosen)->phase_less;
    return 0;
}

static int gaps_take_times(gaps_store *s, const gaps_core_input *c, nl_error *err)
{
    gaps_result *r = &s->r;
    if (c->count > GAPS_TRIGGERS_MAX)
        return nl_error_set(err, NL_ERR_LIMIT, NULL, -1, "CC-core %u has %zu triggers, more than GAPS_TRIGGERS_MAX (%zu)",
                            c->id, c->count, (size_t)GAPS_TRIGGERS_MAX);
    size_t n = c->count;
    s->times = malloc((n ? n : 1) * sizeof *s->times);
    s->gaps = malloc((n ? n : 1) * sizeof *s->gaps);
    if (!s->times || !s->gaps)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory for %zu trigger times", n);
    if (n)
        memcpy(s->times, c->ts, n * sizeof *s->times);
    for (size_t i = 1; i < n && !r->reordered; i++)
        r->reordered = s->times[i] < s->times[i - 1];
    if (r->reordered)
        qsort(s->times, n, sizeof *s->times, cmp_i64);
    r->trigger_count = n;
    r->gap_count = n ? n - 1 : 0;
    for (size_t i = 1; i < n; i++) {
        s->gaps[i - 1] = s->times[i] - s->times[i - 1];
        r->zero_gaps += s->gaps[i - 1] == 0;
    }
    r->times = s->times;
    r->gaps = s->gaps;
    r->window_ns = n ? s->times[n - 1] - s->times[0] : 0;
    return 0;
}

/* ---- step 3 and 4 ----------------------------------------------------------------------------------- */

static int gaps_layers(gaps_store *s, nl_error *err)
{
    gaps_result *r = &s->r;
    size_t A = r->per_layer, P = r->skip_prologue, g = r->gap_count;
    size_t L = g > P ? (g - P) / A : 0;
    r->layer_count = L;
    r->leftover_gaps = g > P ? (g - P) - A * L : 0;
    s->layers = calloc(L ? L : 1, sizeof *s->layers);
    int64_t *sorted = malloc((L ? L : 1) * sizeof *sorted);
    if (!s->layers || !sorted) {
        free(sorted);
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory for %zu layers", L);
    }
    r->layers = s->layers;
    for (size_t k = 0; k < L; k++) {
        gaps_layer *ly = &s->layers[k];
        ly->first_gap = P + 1 + A * k;
        ly->start_ns = s->times[P + A * k];
        ly->end_ns = s->times[P + A * (k + 1)];
        ly->latency_ns = ly->end_ns - ly->start_ns;
        sorted[k] = ly->latency_ns;
    }
    if (L == 0) {
        free(sorted);
        return 0;
    }
    r->layers_sum_ns = s->times[P + A * L] - s->times[P];
    r->median_ns = median_sorted(sorted, L); /* sorts */
    r->min_ns = sorted[0];
    r->max_ns = sorted[L - 1];
    r->p90_ns = sorted[(9 * L + 9) / 10 - 1]; /* rank ⌈0.9·L⌉ in integers */
    if (L >= 2) {
        for (size_t k = 1; k < L; k++)
            sorted[k - 1] = s->layers[k].latency_ns;
        r->has_steady = true;
        r->steady_median_ns = median_sorted(sorted, L - 1);
        if (r->steady_median_ns > 0) {
            r->warmup_ratio = (double)s->layers[0].latency_ns / (double)r->steady_median_ns;
            r->warmup_slow = (double)s->layers[0].latency_ns > r->outlier_k * (double)r->steady_median_ns;
        }
    }
    for (size_t k = 0; k < L; k++) {
        gaps_layer *ly = &s->layers[k];
        ly->ratio_to_median = r->median_ns > 0 ? (double)ly->latency_ns / (double)r->median_ns : 0;
        ly->outlier = k > 0 && (double)ly->latency_ns > r->outlier_k * (double)r->median_ns;
        r->outlier_count += ly->outlier;
    }
    free(sorted);
    return 0;
}

/* ---- step 5 and 6 ----------------------------------------------------------------------------------- */

/* Gaps inside the layers used for the periodicity check, with period `A`: steady layers when there are at
 * least three, else all; NULL when fewer than two layers. */
static size_t gaps_fit_window(const gaps_result *r, unsigned A, size_t *first)
{
    size_t g = r->gap_count, P = r->skip_prologue;
    size_t L = g > P ? (g - P) / A : 0;
    if (L < 2)
        return 0;
    size_t skip = L >= 3 ? 1 : 0;
    *first = P + A * skip; /* 0-based index into gaps[] */
    return (L - skip) * A;
}

static int cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted_f64(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_f64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Periodicity fit of gaps[first .. first+count) with period A (count a multiple of A, at least two
 * periods), on each gap's share of its layer, so a uniformly slow layer does not look irregular;
 * -1 when not computable. */
static double gaps_fit(const int64_t *gaps, size_t first, size_t count, unsigned A, bool *uniform)
{
    if (count < 2 * (size_t)A)
        return -1;
    size_t per = count / A;
    double *sh = malloc(count * sizeof *sh), *tmp = malloc(count * sizeof *tmp);
    if (!sh || !tmp) {
        free(sh);
        free(tmp);
        return -1;
    }
    for (size_t k = 0; k < per; k++) {
        double sum = 0;
        for (unsigned j = 0; j < A; j++)
            sum += (double)gaps[first + k * A + j];
        for (unsigned j = 0; j < A; j++)
            sh[k * A + j] = sum > 0 ? (double)gaps[first + k * A + j] / sum : 1.0 / A;
    }
    double mean = 1.0 / A, var = 0;
    for (size_t i = 0; i < count; i++)
        var += (sh[i] - mean) * (sh[i] - mean);
    *uniform = sqrt(var / (double)count) / mean < GAPS_UNIFORM_CV;
    memcpy(tmp, sh, count * sizeof *tmp);
    double all = median_sorted_f64(tmp, count), total = 0, within = 0;
    for (size_t i = 0; i < count; i++)
        total += fabs(sh[i] - all);
    for (unsigned j = 0; j < A; j++) {
        for (size_t k = 0; k < per; k++)
            tmp[k] = sh[k * A + j];
        double m = median_sorted_f64(tmp, per);
        for (size_t k = 0; k < per; k++)
            within += fabs(sh[k * A + j] - m);
    }
    free(sh);
    free(tmp);
    if (*uniform || total <= 1e-12)
        return 1;
    double fit = 1 - within / total;
    return fit < 0 ? 0 : fit > 1 ? 1 : fit;
}

/* Median gap at each position of the layer (A entries) over gaps[first .. first+count). */
static int gaps_position_medians(const int64_t *gaps, size_t first, size_t count, unsigned A, int64_t *med)
{
    size_t per = count / A;
    int64_t *tmp = malloc((per ? per : 1) * sizeof *tmp);
    if (!tmp || per == 0) {
        free(tmp);
        return -1;
    }
    for (unsigned j = 0; j < A; j++) {
        for (size_t k = 0; k < per; k++)
            tmp[k] = gaps[first + k * A + j];
        med[j] = median_sorted(tmp, per);
    }
    free(tmp);
    return 0;
}

static void gaps_periodicity(gaps_store *s)
{
    gaps_result *r = &s->r;
    r->confidence = "not_checked";
    size_t first, count = gaps_fit_window(r, r->per_layer, &first);
    if (r->per_layer < 2 || count == 0)
        return;
    bool uniform = false;
    double fit = gaps_fit(r->gaps, first, count, r->per_layer, &uniform);
    if (fit < 0)
        return;
    r->has_fit = true;
    r->fit = fit;
    r->uniform = uniform;
    r->confidence = uniform ? "medium" : fit >= GAPS_FIT_HIGH ? "high" : fit >= GAPS_FIT_MEDIUM ? "medium" : "low";
    if (uniform)
        return;
    double best = -1;
    double fits[GAPS_PERIOD_TRY_MAX + 1];
    for (unsigned a = 2; a <= GAPS_PERIOD_TRY_MAX; a++) {
        size_t f2, c2 = gaps_fit_window(r, a, &f2);
        bool u2;
        fits[a] = c2 ? gaps_fit(r->gaps, f2, c2, a, &u2) : -1;
        if (fits[a] > best)
            best = fits[a];
    }
    for (unsigned a = 2; a <= GAPS_PERIOD_TRY_MAX; a++) {
        if (fits[a] >= 0 && fits[a] >= best - 0.05) {
            if (a != r->per_layer && fits[a] >= fit + GAPS_BETTER_PERIOD_MARGIN) {
                r->better_period = a;
                r->better_period_fit = fits[a];
            }
            break;
        }
    }
}

static void gaps_irregular_scan(gaps_store *s)
{
    gaps_result *r = &s->r;
    size_t first, count = gaps_fit_window(r, r->per_layer, &first);
    int64_t med[GAPS_PER_LAYER_MAX];
    if (count == 0 || gaps_position_medians(r->gaps, first, count, r->per_layer, med))
        return;
    int64_t hi = med[0], lo = med[0];
    for (unsigned j = 1; j < r->per_layer; j++) {
        hi = med[j] > hi ? med[j] : hi;
        lo = med[j] < lo ? med[j] : lo;
    }
    size_t from = r->skip_prologue + (r->layer_count >= 2 ? r->per_layer : 0); /* after prologue and layer 0 */
    for (size_t i = from; i < r->gap_count; i++) {
        int64_t g = r->gaps[i];
        int kind = r->per_layer >= 2 && 2 * g >= 2 * hi + lo ? GAPS_GAP_LONG
                 : r->per_layer == 1 && (double)g > GAPS_LONG_GAP_K * (double)hi ? GAPS_GAP_LONG
                 : (double)g < GAPS_SHORT_GAP_K * (double)lo ? GAPS_GAP_SHORT : -1;
        if (kind < 0)
            continue;
        if (r->irregular_listed < GAPS_IRREGULAR_MAX)
            s->irregular[r->irregular_listed++] = (gaps_irregular){i + 1, g, (gaps_irregular_kind)kind};
        r->irregular_count++;
    }
    r->irregular = s->irregular;
}

/* ---- step 7 and problems ---------------------------------------------------------------------------- */

static void gaps_check(gaps_store *s, const gaps_options *opt)
{
    gaps_result *r = &s->r;
    size_t A = r->per_layer, P = r->skip_prologue;
    r->consistent = true;
    if (r->trigger_count == 0)
        gaps_problem_add(s, "no_triggers_on_core", GAPS_WARNING, true, "Choose another CC-core (omit cc_core for the automatic choice).",
                         "CC-core %u has no TPB_TRIGGER START events", r->cc_core);
    if (r->layer_count == 0 && r->trigger_count > 0)
        gaps_problem_add(s, "too_few_triggers", GAPS_WARNING, true,
                         "Check the CC-core, collectives_per_layer and skip_prologue_gaps; a profile of a few ops may "
                         "simply not have whole layers.",
                         "%zu trigger(s) give %zu gap(s): not enough for one layer of %zu gap(s) after %zu prologue gap(s)",
                         r->trigger_count, r->gap_count, A, P);
    if (r->leftover_gaps)
        gaps_problem_add(s, "leftover_gaps", GAPS_WARNING, true,
                         "If collectives run before layer 0 (e.g. around the embedding), raise skip_prologue_gaps; if "
                         "the model issues a different number per layer, set collectives_per_layer; a missing or extra "
                         "trigger shows up in irregular_gaps.",
                         "%zu gap(s) after the %zu prologue gap(s) are not a multiple of collectives_per_layer = %zu: "
                         "%zu gap(s) left over (a missing or extra trigger, or a different prologue)",
                         r->gap_count > P ? r->gap_count - P : 0, P, A, r->leftover_gaps);
    if (r->zero_gaps)
        gaps_problem_add(s, "duplicate_times", GAPS_WARNING, true, "Look for duplicated trigger lines in the dump.",
                         "%zu pair(s) of triggers share the same time (zero gaps): duplicated lines would shift the "
                         "layer mapping", r->zero_gaps);
    if (r->has_fit && !r->uniform && r->fit < GAPS_FIT_MEDIUM) {
        if (r->better_period)
            gaps_problem_add(s, "poor_periodicity", GAPS_WARNING, true, "Count the collectives per layer in the model code and set collectives_per_layer.",
                             "the gaps do not repeat with period %zu (fit %.2f); period %u fits better (%.2f)", A, r->fit,
                             r->better_period, r->better_period_fit);
        else
            gaps_problem_add(s, "poor_periodicity", GAPS_WARNING, true, "Count the collectives per layer in the model code and set collectives_per_layer; try another cc_core.",
                             "the gaps do not repeat with period %zu (fit %.2f)", A, r->fit);
    } else if (r->better_period) {
        gaps_problem_add(s, "poor_periodicity", GAPS_INFO, false, "Check collectives_per_layer against the model code.",
                         "period %u fits the gaps better (%.2f) than collectives_per_layer = %zu (%.2f)", r->better_period,
                         r->better_period_fit, A, r->fit);
    }
    if (r->reordered)
        gaps_problem_add(s, "reordered", GAPS_INFO, false, NULL, "the trigger lines were not in time order; they were sorted");
    if (r->phase_less)
        gaps_problem_add(s, "phase_less", GAPS_INFO, false, NULL,
                         "CC-core %u has TPB_TRIGGER lines without START/END; each was taken as one collective", r->cc_core);
    r->has_total_time = opt->has_total_time && opt->total_time_ns > 0;
    r->total_time_ns = opt->total_time_ns;
    if (!r->has_total_time) {
        gaps_problem_add(s, "no_total_time", GAPS_INFO, false,
                         "Keep the show-session header (it prints the total execution time), or put the full JSON export next to the dump.",
                         "the profile's total execution time is unknown: the share of it covered by the layers is not computed");
        return;
    }
    r->layers_to_total = (double)r->layers_sum_ns / (double)r->total_time_ns;
    r->window_to_total = (double)r->window_ns / (double)r->total_time_ns;
    if (r->layer_count && r->layers_to_total < GAPS_RATIO_LOW)
        gaps_problem_add(s, "low_coverage", GAPS_WARNING, false,
                         "Try another cc_core; look for dropped trace events; check the dump and the total time come from the same execution.",
                         "the layers cover %.1f%% of the total execution time (expect about 95%%): wrong CC-core, "
                         "missing events, or collectives that do not span the model", 100 * r->layers_to_total);
    if (r->window_to_total > GAPS_RATIO_HIGH)
        gaps_problem_add(s, "over_total", GAPS_WARNING, false,
                         "Check that the total time and the trace come from the same execution (and the same units).",
                         "the trigger window is %.1f%% of the total execution time: longer than the execution",
                         100 * r->window_to_total);
}

/* ---- API -------------------------------------------------------------------------------------------- */

int gaps_compute(const gaps_core_input *cores, size_t core_count, const gaps_options *opt, gaps_result **out,
                 nl_error *err)
{
    *out = NULL;
    if (!opt || opt->collectives_per_layer < 1 || opt->collectives_per_layer > GAPS_PER_LAYER_MAX ||
        opt->skip_prologue_gaps > GAPS_SKIP_MAX || !(opt->outlier_k > 1) || opt->cc_core > (int64_t)UINT32_MAX)
        return nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1,
                            "collectives_per_layer must be 1..%u, skip_prologue_gaps 0..%u, outlier k > 1",
                            GAPS_PER_LAYER_MAX, GAPS_SKIP_MAX);
    gaps_store *s = calloc(1, sizeof *s);
    if (!s)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory");
    gaps_result *r = &s->r;
    r->per_layer = opt->collectives_per_layer;
    r->skip_prologue = opt->skip_prologue_gaps;
    r->outlier_k = opt->outlier_k;
    r->problems = s->problems;
    r->irregular = s->irregular;
    const gaps_core_input *chosen;
    if (gaps_choose(s, cores, core_count, opt, &chosen, err) || gaps_take_times(s, chosen, err) || gaps_layers(s, err)) {
        gaps_result_free(r);
        return -1;
    }
    gaps_periodicity(s);
    if (r->leftover_gaps || r->zero_gaps)
        gaps_irregular_scan(s);
    gaps_check(s, opt);
    *out = r;
    return 0;
}

int64_t gaps_gap_layer(const gaps_result *r, size_t i)
{
    if (i <= r->skip_prologue)
        return -1;
    size_t k = (i - r->skip_prologue - 1) / r->per_layer;
    return k < r->layer_count ? (int64_t)k : -2;
}

int gaps_inputs_from_show_session(const show_session *ss, gaps_core_input **inputs, size_t *count, int64_t **storage,
                                  nl_error *err)
{
    size_t n = show_session_core_count(ss), total = 0;
    for (size_t i = 0; i < n; i++)
        total += show_session_core_at(ss, i)->trigger_count;
    *inputs = calloc(n ? n : 1, sizeof **inputs);
    *storage = malloc((total ? total : 1) * sizeof **storage);
    *count = 0;
    if (!*inputs || !*storage) {
        free(*inputs);
        free(*storage);
        *inputs = NULL;
        *storage = NULL;
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory for %zu trigger times", total);
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const show_session_core *c = show_session_core_at(ss, i);
        show_session_phase want = c->trigger_start ? SHOW_SESSION_PHASE_START : SHOW_SESSION_PHASE_NONE;
        gaps_core_input *in = &(*inputs)[i];
        in->id = c->id;
        in->ts = *storage + used;
        in->phase_less = !c->trigger_start && c->trigger_none;
        for (size_t j = 0; j < c->trigger_count; j++)
            if (c->triggers[j].phase == want)
                (*storage)[used + in->count++] = c->triggers[j].ts_ns;
        used += in->count;
    }
    *count = n;
    return 0;
}
