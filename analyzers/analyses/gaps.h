/* gaps — per-layer latency from the gaps between collectives on one CC-core (formats.md §11.1,
 * references/layer-latency-from-collective-gaps.md).
 *
 * Input: per CC-core, the start times of its collective triggers (TPB_TRIGGER START lines of a
 * show-session --show-trace dump; any source that yields one time per collective fits). Chooses the core
 * (most triggers, ties → highest id, or the one forced), sorts its times, takes the gaps g_i = t_i − t_(i−1)
 * (1-based), skips P prologue gaps and sums every A consecutive gaps into one layer:
 *   layer K (0-based) = g_(P+1+A·K) + … + g_(P+A·(K+1)),  L = ⌊(n − 1 − P) / A⌋ layers, the rest "leftover".
 * Then checks the mapping (leftover gaps, duplicate times, periodicity of the gaps with period A) and
 * computes median, p90, outliers versus the median, the warm-up layer and the share of the total time.
 * Result: a gaps_result owned by the caller (gaps_result_free); every array in it dies with it.
 * Threads: pure function of its inputs; any thread. Errors: -1 with nl_error: NL_ERR_ARGUMENT (options out
 * of range), NL_ERR_NOT_FOUND (the forced core is not in the input, or no core has any trigger),
 * NL_ERR_LIMIT (more than GAPS_TRIGGERS_MAX times), NL_ERR_NOMEM. */
#ifndef NL_GAPS_H
#define NL_GAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"
#include "show_session_model.h"

#define GAPS_PER_LAYER_MAX 64u          /* largest A accepted */
#define GAPS_SKIP_MAX 100000u           /* largest P accepted */
#define GAPS_TRIGGERS_MAX ((size_t)1 << 20)
#define GAPS_OUTLIER_K_DEFAULT 1.5      /* a layer is an outlier when latency > k × median (Explorer rule 5) */
#define GAPS_RATIO_LOW 0.80             /* layers / total time below this: warn (expect ≈ 0.95) */
#define GAPS_RATIO_HIGH 1.02            /* above this: the total time cannot be this execution's */
#define GAPS_FIT_HIGH 0.80              /* periodicity fit ≥ this: confidence "high" */
#define GAPS_FIT_MEDIUM 0.50            /* ≥ this: "medium"; below: "low" and the mapping is inconsistent */
#define GAPS_UNIFORM_CV 0.05            /* gaps this even (stddev / mean) fit any period */
#define GAPS_PERIOD_TRY_MAX 8u          /* periods tried when looking for a better A */
#define GAPS_BETTER_PERIOD_MARGIN 0.20  /* another period is suggested when its fit is this much higher */
#define GAPS_LONG_GAP_K 1.75            /* A = 1: gap > k × the median gap: a trigger may be missing (A ≥ 2:
                                           a gap ≥ largest + smallest/2 per-position median) */
#define GAPS_SHORT_GAP_K 0.5            /* gap < k × smallest per-position median: an extra trigger? */
#define GAPS_IRREGULAR_MAX 32u          /* irregular gaps listed (all are counted) */
#define GAPS_PROBLEMS_MAX 12u

typedef struct gaps_core_input {
    uint32_t id;
    const int64_t *ts;      /* one time per collective, any order (borrowed) */
    size_t count;
    bool phase_less;        /* the times come from trigger lines without START/END */
} gaps_core_input;

typedef struct gaps_options {
    int64_t cc_core;                /* -1 = automatic */
    unsigned collectives_per_layer; /* A, 1..GAPS_PER_LAYER_MAX */
    unsigned skip_prologue_gaps;    /* P, 0..GAPS_SKIP_MAX */
    double outlier_k;               /* > 1; see GAPS_OUTLIER_K_DEFAULT */
    bool has_total_time;            /* the profile's total execution time, for the coverage ratios */
    int64_t total_time_ns;
} gaps_options;

/* cc_core -1, A = 2, P = 1, k = GAPS_OUTLIER_K_DEFAULT, no total time. */
void gaps_options_default(gaps_options *opt);

typedef struct gaps_core_stat {
    uint32_t id;
    size_t triggers;
    bool phase_less;
} gaps_core_stat;

typedef struct gaps_layer {
    size_t first_gap;       /* 1-based index of its first gap */
    int64_t start_ns;       /* trigger time opening the layer, as in the input */
    int64_t end_ns;         /* trigger time closing it */
    int64_t latency_ns;     /* end − start = the sum of its A gaps */
    double ratio_to_median;
    bool outlier;           /* layer ≥ 1 and latency > k × median (layer 0 is judged as the warm-up layer) */
} gaps_layer;

typedef enum gaps_irregular_kind { GAPS_GAP_LONG, GAPS_GAP_SHORT } gaps_irregular_kind;

typedef struct gaps_irregular {
    size_t gap;             /* 1-based */
    int64_t ns;
    gaps_irregular_kind kind;
} gaps_irregular;

typedef enum gaps_severity { GAPS_INFO, GAPS_WARNING } gaps_severity;

typedef struct gaps_problem {
    const char *code;       /* stable: "too_few_triggers", "leftover_gaps", "duplicate_times", "poor_periodicity",
                               "low_coverage", "over_total", "reordered", "phase_less", "no_total_time",
                               "no_triggers_on_core" */
    gaps_severity severity;
    bool breaks_mapping;    /* the layer mapping cannot be trusted because of it */
    char text[320];
    const char *fix;        /* static text, or NULL */
} gaps_problem;

typedef struct gaps_result {
    /* CC-core choice */
    uint32_t cc_core;
    bool forced;
    const gaps_core_stat *cores; /* every input core: most triggers first, ties → highest id first */
    size_t core_count;
    bool phase_less;

    /* times and gaps of the chosen core */
    size_t trigger_count;   /* n */
    const int64_t *times;   /* sorted */
    const int64_t *gaps;    /* gaps[i − 1] = g_i, i = 1 … n − 1 */
    size_t gap_count;
    bool reordered;         /* the input was not in time order */
    size_t zero_gaps;       /* duplicate times */

    /* mapping */
    unsigned per_layer, skip_prologue;
    const gaps_layer *layers;
    size_t layer_count;     /* L */
    size_t leftover_gaps;
    bool consistent;

    /* statistics over layers (0 when there are none) */
    int64_t median_ns;      /* middle value; the mean of the two middle values (rounded down) for even L */
    int64_t p90_ns;         /* nearest rank: sorted[⌈0.9·L⌉ − 1] */
    int64_t min_ns, max_ns;
    bool has_steady;        /* L ≥ 2 */
    int64_t steady_median_ns; /* median of layers 1 … L − 1 */
    double outlier_k;
    size_t outlier_count;
    bool warmup_slow;       /* layer 0 latency > k × steady median */
    double warmup_ratio;    /* layer 0 latency / steady median (0 without steady layers) */

    /* periodicity of the gaps inside layers (steady layers when L ≥ 3) */
    bool has_fit;
    double fit;             /* on each gap's share of its layer: 1 − Σ|s − median share at its position| /
                               Σ|s − median of all shares|, in [0, 1] */
    bool uniform;           /* gaps too even to tell periods apart */
    const char *confidence; /* "high", "medium", "low", "not_checked" */
    unsigned better_period; /* a period whose fit beats A by GAPS_BETTER_PERIOD_MARGIN, else 0 */
    double better_period_fit;

    /* gaps that look wrong when the count does not add up (leftover gaps or duplicate times) */
    const gaps_irregular *irregular;
    size_t irregular_listed, irregular_count;

    /* coverage of the profile's total time */
    int64_t layers_sum_ns;  /* Σ latency = t(P + A·L) − t(P) */
    int64_t window_ns;      /* t_n − t_1 = Σ every gap */
    bool has_total_time;
    int64_t total_time_ns;
    double layers_to_total, window_to_total;

    const gaps_problem *problems;
    size_t problem_count;
} gaps_result;

/* Compute everything above. 0 and *out, or -1 with err set. */
int gaps_compute(const gaps_core_input *cores, size_t core_count, const gaps_options *opt, gaps_result **out,
                 nl_error *err) __attribute__((warn_unused_result));
void gaps_result_free(gaps_result *r);

/* The role of gap i (1-based) under the mapping of r: -1 prologue, -2 leftover, else its layer index. */
int64_t gaps_gap_layer(const gaps_result *r, size_t i);

/* Inputs from a show-session dump: per CC-core the times of its TPB_TRIGGER START lines, or of its
 * phase-less TPB_TRIGGER lines when it has no START line. *inputs and *storage are malloc'd (free both);
 * cores without any trigger are included with count 0. */
int gaps_inputs_from_show_session(const show_session *ss, gaps_core_input **inputs, size_t *count, int64_t **storage,
                                  nl_error *err) __attribute__((warn_unused_result));

#endif
