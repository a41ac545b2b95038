/* Unit tests for analyzers/analyses/gaps: trigger times built from known per-layer latencies, including the
 * irregular cases of issue 4 (missing trigger, extra prologue collective, warm-up layer 0, outlier layer,
 * two CC-cores with different counts, cc_core forced), the mapping checks (leftover gaps, duplicate times,
 * periodicity with a wrong collectives_per_layer, uniform gaps), the documented median / p90 ranks, the
 * coverage of the total time, and argument errors. Every expected number is worked out in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaps.h"
#include "show_session.h"

#define MAX_T 256

typedef struct times {
    int64_t t[MAX_T];
    size_t n;
} times;

/* t0, then t0 + prologue, then each layer's gaps in order. */
static void build(times *ts, int64_t t0, int64_t prologue, const int64_t (*layers)[2], size_t nlayers)
{
    ts->n = 0;
    ts->t[ts->n++] = t0;
    ts->t[ts->n++] = t0 + prologue;
    for (size_t k = 0; k < nlayers; k++)
        for (int j = 0; j < 2; j++) {
            ts->t[ts->n] = ts->t[ts->n - 1] + layers[k][j];
            ts->n++;
        }
}

static gaps_result *run(const times *ts, uint32_t core, const gaps_options *opt)
{
    gaps_core_input in = {core, ts->t, ts->n, false};
    gaps_result *r = NULL;
    nl_error err;
    if (gaps_compute(&in, 1, opt, &r, &err))
        fail_msg("gaps_compute: %s", err.message);
    return r;
}

static bool has_problem(const gaps_result *r, const char *code)
{
    for (size_t i = 0; i < r->problem_count; i++)
        if (!strcmp(r->problems[i].code, code))
            return true;
    return false;
}

static void assert_latencies(const gaps_result *r, const int64_t *want, size_t n)
{
    assert_int_equal(r->layer_count, n);
    for (size_t k = 0; k < n; k++)
        if (r->layers[k].latency_ns != want[k])
            fail_msg("layer %zu: got %lld, want %lld", k, (long long)r->layers[k].latency_ns, (long long)want[k]);
}

/* Warm-up layer 0 = 4000 + 6000, layers 1-5 = 800 + 1200 except layer 4 = 1600 + 2400; prologue 500. */
static const int64_t WARM_OUTLIER[][2] = {{4000, 6000}, {800, 1200}, {800, 1200}, {800, 1200}, {1600, 2400}, {800, 1200}};

static void known_layers_with_warmup_and_outlier(void **state)
{
    (void)state;
    times ts;
    build(&ts, 100000, 500, WARM_OUTLIER, 6);
    gaps_options opt;
    gaps_options_default(&opt);
    opt.has_total_time = true;
    opt.total_time_ns = 23500;
    gaps_result *r = run(&ts, 8, &opt);
    static const int64_t want[] = {10000, 2000, 2000, 2000, 4000, 2000};
    assert_latencies(r, want, 6);
    assert_int_equal(r->cc_core, 8);
    assert_false(r->forced);
    assert_int_equal(r->trigger_count, 14);
    assert_int_equal(r->gap_count, 13);
    assert_int_equal(r->leftover_gaps, 0);
    assert_true(r->consistent);
    /* layer K opens at t(P + 2K): layer 0 at 100500, layer 5 at 120500 and closes at 122500 */
    assert_int_equal(r->layers[0].start_ns, 100500);
    assert_int_equal(r->layers[0].end_ns, 110500);
    assert_int_equal(r->layers[0].first_gap, 2);
    assert_int_equal(r->layers[5].first_gap, 12);
    assert_int_equal(r->layers[5].end_ns, 122500);
    /* sorted 2000 ×4, 4000, 10000: median (2000 + 2000) / 2; p90 rank ⌈5.4⌉ = 6 → 10000 */
    assert_int_equal(r->median_ns, 2000);
    assert_int_equal(r->p90_ns, 10000);
    assert_int_equal(r->min_ns, 2000);
    assert_int_equal(r->max_ns, 10000);
    assert_true(r->has_steady);
    assert_int_equal(r->steady_median_ns, 2000);
    /* outlier: 4000 > 1.5 × 2000; layer 0 is the warm-up layer, never listed as an outlier */
    assert_int_equal(r->outlier_count, 1);
    assert_true(r->layers[4].outlier);
    assert_false(r->layers[0].outlier);
    assert_true(fabs(r->layers[4].ratio_to_median - 2.0) < 1e-12);
    assert_true(r->warmup_slow);
    assert_true(fabs(r->warmup_ratio - 5.0) < 1e-12);
    /* shares 0.4 / 0.6 in every steady layer, the slow one too: a perfect period-2 fit */
    assert_true(r->has_fit);
    assert_false(r->uniform);
    assert_true(fabs(r->fit - 1.0) < 1e-12);
    assert_string_equal(r->confidence, "high");
    assert_int_equal(r->better_period, 0);
    /* Σ layers = 122500 − 100500; window = 122500 − 100000 */
    assert_int_equal(r->layers_sum_ns, 22000);
    assert_int_equal(r->window_ns, 22500);
    assert_true(fabs(r->layers_to_total - 22000.0 / 23500) < 1e-12);
    assert_int_equal(r->problem_count, 0);
    /* roles of the gaps */
    assert_int_equal(gaps_gap_layer(r, 1), -1);
    assert_int_equal(gaps_gap_layer(r, 2), 0);
    assert_int_equal(gaps_gap_layer(r, 3), 0);
    assert_int_equal(gaps_gap_layer(r, 13), 5);
    gaps_result_free(r);
}

static const int64_t TEN_LAYERS[][2] = {{3000, 5000}, {800, 1200}, {800, 1200}, {800, 1200}, {800, 1200},
                                        {800, 1200}, {800, 1200}, {800, 1200}, {800, 1200}, {800, 1200}};

static void a_missing_trigger_leaves_a_gap_over_and_is_located(void **state)
{
    (void)state;
    times ts;
    build(&ts, 10000, 500, TEN_LAYERS, 10);
    /* drop the trigger between the two gaps of layer 6 (index 2 + 2·6): gap 14 becomes 800 + 1200 */
    memmove(&ts.t[14], &ts.t[15], (ts.n - 15) * sizeof ts.t[0]);
    ts.n--;
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r = run(&ts, 8, &opt);
    /* 20 gaps − 1 prologue = 19 → 9 layers + 1 leftover; layer 6 = g14 + g15 = 2000 + 800 */
    static const int64_t want[] = {8000, 2000, 2000, 2000, 2000, 2000, 2800, 2000, 2000};
    assert_latencies(r, want, 9);
    assert_int_equal(r->leftover_gaps, 1);
    assert_false(r->consistent);
    assert_true(has_problem(r, "leftover_gaps"));
    /* per-position medians over layers 1-8: 800 and 1200; 2000 ≥ 1200 + 800/2 → long */
    assert_int_equal(r->irregular_count, 1);
    assert_int_equal(r->irregular[0].gap, 14);
    assert_int_equal(r->irregular[0].ns, 2000);
    assert_int_equal(r->irregular[0].kind, GAPS_GAP_LONG);
    /* shares: within = 2 × (0.3142857 + 0.2 + 0.2) = 1.4285714, total = 14 × 0.1 + 2 × 0.2142857 = 1.8285714,
     * fit = 1 − 0.78125 */
    assert_true(fabs(r->fit - 0.21875) < 1e-9);
    assert_string_equal(r->confidence, "low");
    assert_true(has_problem(r, "poor_periodicity"));
    gaps_result_free(r);
}

static void an_extra_prologue_collective_is_fixed_by_skipping_two_gaps(void **state)
{
    (void)state;
    times ts;
    build(&ts, 10000, 500, TEN_LAYERS, 4);
    memmove(&ts.t[2], &ts.t[1], (ts.n - 1) * sizeof ts.t[0]);
    ts.t[1] = 10300; /* an extra collective 300 ns after the first */
    ts.n++;
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r = run(&ts, 8, &opt);
    /* default P = 1: g = 300, 200, 3000, 5000, 800, 1200, 800, 1200, 800, 1200 → 3200, 5800, 2000, 2000 + 1 */
    static const int64_t shifted[] = {3200, 5800, 2000, 2000};
    assert_latencies(r, shifted, 4);
    assert_int_equal(r->leftover_gaps, 1);
    assert_false(r->consistent);
    assert_true(has_problem(r, "leftover_gaps"));
    gaps_result_free(r);

    opt.skip_prologue_gaps = 2;
    r = run(&ts, 8, &opt);
    static const int64_t fixed[] = {8000, 2000, 2000, 2000};
    assert_latencies(r, fixed, 4);
    assert_int_equal(r->leftover_gaps, 0);
    assert_true(r->consistent);
    assert_true(r->warmup_slow);
    assert_int_equal(r->layers[0].start_ns, 10500);
    gaps_result_free(r);
}

static void the_core_with_most_triggers_is_chosen_and_others_listed(void **state)
{
    (void)state;
    int64_t t0[] = {0, 100, 1100, 1600};                 /* 4 triggers: one layer of 1500 */
    int64_t t8[] = {50, 550, 1550, 2050, 3050, 3550};    /* 6 triggers: two layers of 1500 */
    int64_t t3[] = {0};
    gaps_core_input in[] = {{0, t0, 4, false}, {3, t3, 0, false}, {8, t8, 6, false}};
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r;
    nl_error err;
    assert_int_equal(gaps_compute(in, 3, &opt, &r, &err), 0);
    assert_int_equal(r->cc_core, 8);
    assert_int_equal(r->layer_count, 2);
    assert_int_equal(r->core_count, 3);
    assert_int_equal(r->cores[0].id, 8);
    assert_int_equal(r->cores[0].triggers, 6);
    assert_int_equal(r->cores[1].id, 0);
    assert_int_equal(r->cores[2].id, 3);
    gaps_result_free(r);

    opt.cc_core = 0; /* forced: its own trace, even with fewer triggers */
    assert_int_equal(gaps_compute(in, 3, &opt, &r, &err), 0);
    assert_int_equal(r->cc_core, 0);
    assert_true(r->forced);
    int64_t one[] = {1500};
    assert_latencies(r, one, 1);
    gaps_result_free(r);

    opt.cc_core = 3; /* forced onto a core without triggers: no layers, said so */
    assert_int_equal(gaps_compute(in, 3, &opt, &r, &err), 0);
    assert_int_equal(r->layer_count, 0);
    assert_false(r->consistent);
    assert_true(has_problem(r, "no_triggers_on_core"));
    gaps_result_free(r);

    opt.cc_core = 9;
    r = (gaps_result *)&err; /* poison */
    assert_int_equal(gaps_compute(in, 3, &opt, &r, &err), -1);
    assert_null(r);
    assert_int_equal(err.code, NL_ERR_NOT_FOUND);
    assert_string_equal(err.message, "CC-core 9 is not in the input; CC-cores (triggers): 8 (6), 0 (4), 3 (0)");
}

static void a_tie_goes_to_the_highest_core_id(void **state)
{
    (void)state;
    int64_t a[] = {0, 100, 1100, 1600}, b[] = {0, 200, 1200, 1800};
    gaps_core_input in[] = {{5, a, 4, false}, {12, b, 4, false}, {7, a, 4, false}};
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r;
    nl_error err;
    assert_int_equal(gaps_compute(in, 3, &opt, &r, &err), 0);
    assert_int_equal(r->cc_core, 12);
    assert_int_equal(r->layers[0].latency_ns, 1600);
    assert_int_equal(r->cores[1].id, 7);
    assert_int_equal(r->cores[2].id, 5);
    gaps_result_free(r);
}

static void no_core_with_triggers_is_not_found(void **state)
{
    (void)state;
    gaps_core_input in[] = {{1, NULL, 0, false}};
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r;
    nl_error err;
    assert_int_equal(gaps_compute(in, 1, &opt, &r, &err), -1);
    assert_int_equal(err.code, NL_ERR_NOT_FOUND);
    assert_int_equal(gaps_compute(NULL, 0, &opt, &r, &err), -1);
    assert_int_equal(err.code, NL_ERR_NOT_FOUND);
}

/* Three collectives per layer (500, 700, 800) mapped with two: shares alternate, fit ≈ 0.11, period 3 fits. */
static void a_wrong_collectives_per_layer_shows_in_the_periodicity(void **state)
{
    (void)state;
    times ts = {.n = 0};
    ts.t[ts.n++] = 0;
    ts.t[ts.n++] = 300;
    static const int64_t pattern[] = {500, 700, 800};
    for (int k = 0; k < 6; k++)
        for (int j = 0; j < 3; j++, ts.n++)
            ts.t[ts.n] = ts.t[ts.n - 1] + pattern[j];
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r = run(&ts, 0, &opt);
    assert_int_equal(r->layer_count, 9);
    assert_int_equal(r->leftover_gaps, 0);
    assert_true(r->fit < 0.15 && r->fit > 0.08);
    assert_string_equal(r->confidence, "low");
    assert_int_equal(r->better_period, 3);
    assert_true(fabs(r->better_period_fit - 1.0) < 1e-12);
    assert_false(r->consistent);
    assert_true(has_problem(r, "poor_periodicity"));
    gaps_result_free(r);

    opt.collectives_per_layer = 3;
    r = run(&ts, 0, &opt);
    int64_t want[] = {2000, 2000, 2000, 2000, 2000, 2000};
    assert_latencies(r, want, 6);
    assert_true(r->consistent);
    assert_string_equal(r->confidence, "high");
    gaps_result_free(r);
}

static void even_gaps_fit_any_period_and_say_so(void **state)
{
    (void)state;
    times ts = {.n = 0};
    for (int i = 0; i < 12; i++)
        ts.t[ts.n++] = 1000 * i;
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r = run(&ts, 0, &opt);
    assert_int_equal(r->layer_count, 5);
    assert_true(r->uniform);
    assert_string_equal(r->confidence, "medium");
    assert_true(r->consistent);
    assert_false(r->warmup_slow);
    gaps_result_free(r);
}

static void duplicate_times_break_the_mapping(void **state)
{
    (void)state;
    int64_t t[] = {0, 500, 1500, 2000, 2000, 3000, 3500, 4500, 5000};
    gaps_core_input in = {4, t, 9, false};
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r;
    nl_error err;
    assert_int_equal(gaps_compute(&in, 1, &opt, &r, &err), 0);
    assert_int_equal(r->zero_gaps, 1);
    assert_false(r->consistent);
    assert_true(has_problem(r, "duplicate_times"));
    /* gaps 500, 1000, 500, 0, 1000, 500, 1000, 500: 7 after the prologue → 3 layers + 1 leftover; the zero
     * gap (g4) is under half the smallest per-position median of layers 1-2 ((0 + 500) / 2 = 250) */
    assert_int_equal(r->leftover_gaps, 1);
    bool short_found = false;
    for (size_t i = 0; i < r->irregular_listed; i++)
        short_found |= r->irregular[i].gap == 4 && r->irregular[i].kind == GAPS_GAP_SHORT;
    assert_true(short_found);
    gaps_result_free(r);
}

static void unsorted_input_is_sorted_and_flagged(void **state)
{
    (void)state;
    int64_t t[] = {1000, 2500, 1500, 3000, 4500, 4000};
    gaps_core_input in = {8, t, 6, false};
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r;
    nl_error err;
    assert_int_equal(gaps_compute(&in, 1, &opt, &r, &err), 0);
    assert_true(r->reordered);
    assert_true(has_problem(r, "reordered"));
    int64_t want[] = {1500, 1500};
    assert_latencies(r, want, 2);
    assert_int_equal(t[1], 2500); /* the input is not modified */
    gaps_result_free(r);
}

static void median_and_p90_follow_the_documented_ranks(void **state)
{
    (void)state;
    /* ten layers of 100·(1 … 10) as one gap each (A = 1, P = 0): median (500 + 600) / 2, p90 rank 9 → 900 */
    times ts = {.n = 0};
    ts.t[ts.n++] = 0;
    int64_t lat[] = {300, 100, 1000, 200, 500, 700, 600, 900, 400, 800};
    for (int i = 0; i < 10; i++, ts.n++)
        ts.t[ts.n] = ts.t[ts.n - 1] + lat[i];
    gaps_options opt;
    gaps_options_default(&opt);
    opt.collectives_per_layer = 1;
    opt.skip_prologue_gaps = 0;
    gaps_result *r = run(&ts, 0, &opt);
    assert_latencies(r, lat, 10);
    assert_int_equal(r->median_ns, 550);
    assert_int_equal(r->p90_ns, 900);
    assert_string_equal(r->confidence, "not_checked");
    /* steady: 100, 1000, 200, 500, 700, 600, 900, 400, 800 → 600 */
    assert_int_equal(r->steady_median_ns, 600);
    /* outliers: > 1.5 × 550 = 825 among layers ≥ 1: 1000 and 900 */
    assert_int_equal(r->outlier_count, 2);
    assert_true(r->layers[2].outlier && r->layers[7].outlier);
    gaps_result_free(r);

    /* five layers: odd count, median is the middle; p90 rank ⌈4.5⌉ = 5 */
    ts.n = 6;
    r = run(&ts, 0, &opt);
    assert_int_equal(r->median_ns, 300);
    assert_int_equal(r->p90_ns, 1000);
    gaps_result_free(r);
}

static void the_outlier_factor_is_an_option(void **state)
{
    (void)state;
    times ts;
    build(&ts, 100000, 500, WARM_OUTLIER, 6);
    gaps_options opt;
    gaps_options_default(&opt);
    opt.outlier_k = 2.5;
    gaps_result *r = run(&ts, 8, &opt);
    assert_int_equal(r->outlier_count, 0); /* 4000 = 2 × median */
    assert_true(r->warmup_slow);           /* 10000 = 5 × steady median */
    gaps_result_free(r);
}

static void coverage_of_the_total_time_is_checked(void **state)
{
    (void)state;
    times ts;
    build(&ts, 100000, 500, WARM_OUTLIER, 6);
    gaps_options opt;
    gaps_options_default(&opt);
    opt.has_total_time = true;
    opt.total_time_ns = 40000; /* layers cover 22000 / 40000 = 55% */
    gaps_result *r = run(&ts, 8, &opt);
    assert_true(has_problem(r, "low_coverage"));
    assert_true(r->consistent); /* a coverage problem does not break the mapping */
    gaps_result_free(r);
    opt.total_time_ns = 20000;  /* window 22500 > 102% of 20000 */
    r = run(&ts, 8, &opt);
    assert_true(has_problem(r, "over_total"));
    gaps_result_free(r);
    opt.has_total_time = false;
    r = run(&ts, 8, &opt);
    assert_true(has_problem(r, "no_total_time"));
    assert_false(r->has_total_time);
    gaps_result_free(r);
}

static void too_few_triggers_give_no_layer(void **state)
{
    (void)state;
    int64_t t[] = {0, 100, 1100};
    gaps_core_input in = {2, t, 3, false};
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r;
    nl_error err;
    assert_int_equal(gaps_compute(&in, 1, &opt, &r, &err), 0);
    assert_int_equal(r->layer_count, 0);
    assert_int_equal(r->median_ns, 0);
    assert_false(r->consistent);
    assert_true(has_problem(r, "too_few_triggers"));
    gaps_result_free(r);
}

static void options_out_of_range_are_argument_errors(void **state)
{
    (void)state;
    int64_t t[] = {0, 1, 2, 3};
    gaps_core_input in = {0, t, 4, false};
    gaps_options bad[4];
    for (int i = 0; i < 4; i++)
        gaps_options_default(&bad[i]);
    bad[0].collectives_per_layer = 0;
    bad[1].collectives_per_layer = GAPS_PER_LAYER_MAX + 1;
    bad[2].skip_prologue_gaps = GAPS_SKIP_MAX + 1;
    bad[3].outlier_k = 1.0;
    for (int i = 0; i < 4; i++) {
        gaps_result *r;
        nl_error err;
        assert_int_equal(gaps_compute(&in, 1, &bad[i], &r, &err), -1);
        assert_int_equal(err.code, NL_ERR_ARGUMENT);
        assert_null(r);
    }
}

static void phase_less_triggers_are_used_when_a_core_has_no_start(void **state)
{
    (void)state;
    const char *text = "Collectives trace for CC-core 1\nTPB_TRIGGER 0 START\nTPB_TRIGGER 10 END\nTPB_TRIGGER 100 START\n"
                       "TPB_TRIGGER 5 \nCollectives trace for CC-core 2\nTPB_TRIGGER 7\nTPB_TRIGGER 9\n";
    show_session *ss;
    nl_error err;
    assert_int_equal(show_session_read_mem(text, strlen(text), NULL, &ss, &err), 0);
    gaps_core_input *in;
    int64_t *storage;
    size_t n;
    assert_int_equal(gaps_inputs_from_show_session(ss, &in, &n, &storage, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(in[0].id, 1);
    assert_int_equal(in[0].count, 2); /* START only: the END and the phase-less line are not collectives */
    assert_int_equal(in[0].ts[1], 100);
    assert_false(in[0].phase_less);
    assert_int_equal(in[1].count, 2);
    assert_true(in[1].phase_less);
    assert_int_equal(in[1].ts[0], 7);
    free(in);
    free(storage);
    show_session_free(ss);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_layers_with_warmup_and_outlier),
        cmocka_unit_test(a_missing_trigger_leaves_a_gap_over_and_is_located),
        cmocka_unit_test(an_extra_prologue_collective_is_fixed_by_skipping_two_gaps),
        cmocka_unit_test(the_core_with_most_triggers_is_chosen_and_others_listed),
        cmocka_unit_test(a_tie_goes_to_the_highest_core_id),
        cmocka_unit_test(no_core_with_triggers_is_not_found),
        cmocka_unit_test(a_wrong_collectives_per_layer_shows_in_the_periodicity),
        cmocka_unit_test(even_gaps_fit_any_period_and_say_so),
        cmocka_unit_test(duplicate_times_break_the_mapping),
        cmocka_unit_test(unsorted_input_is_sorted_and_flagged),
        cmocka_unit_test(median_and_p90_follow_the_documented_ranks),
        cmocka_unit_test(the_outlier_factor_is_an_option),
        cmocka_unit_test(coverage_of_the_total_time_is_checked),
        cmocka_unit_test(too_few_triggers_give_no_layer),
        cmocka_unit_test(options_out_of_range_are_argument_errors),
        cmocka_unit_test(phase_less_triggers_are_used_when_a_core_has_no_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
