/* Unit tests for analyzers/analyses/attribution (and topn) on the handcrafted export in analysis_fixture.h:
 * group sums, tie order, cursors that concatenate, the source abstention, engine busy time and idle gaps,
 * the small-DMA report, argument errors and cancellation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_fixture.h"
#include "attribution.h"
#include "neuron_json.h"
#include "topn.h"

static device_model *load(const char *doc)
{
    device_model *m = NULL;
    nl_error err;
    if (neuron_json_read_mem(doc, strlen(doc), "fixture.json", NULL, &m, &err))
        fail_msg("fixture does not read: %s (%s)", err.message, err.field);
    return m;
}

static attr_request request(attr_group_by by, attr_metric metric, uint32_t top)
{
    return (attr_request){.group_by = by, .metric = metric, .top = top, .gap_min_ns = ATTR_GAP_MIN_NS_DEFAULT,
                          .gaps_per_engine = 3, .sections = true};
}

static void compute_ok(const device_model *m, const attr_request *req, attr_result *r)
{
    nl_error err;
    memset(r, 0x5a, sizeof *r);
    if (attr_compute(m, req, NULL, r, &err))
        fail_msg("attr_compute: %s", err.message);
}

static const char *key(const device_model *m, const attr_group *g)
{
    return device_model_str(m, g->key, NULL);
}

static const attr_engine *engine(const device_model *m, const attr_result *r, const char *name)
{
    for (size_t e = 0; e < r->engine_count; e++)
        if (!strcmp(device_model_str(m, r->engines[e].name, NULL), name))
            return &r->engines[e];
    fail_msg("no engine %s", name);
    return NULL;
}

static int int_cmp(const void *a, const void *b, const void *ctx)
{
    (void)ctx;
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void topn_keeps_the_smallest_in_order(void **state)
{
    (void)state;
    topn h;
    assert_int_equal(topn_init(&h, sizeof(int), 4, int_cmp, NULL), 0);
    int v[] = {9, 3, 7, 1, 8, 2, 6, 5, 4, 0};
    for (size_t i = 0; i < 10; i++)
        topn_offer(&h, &v[i]);
    assert_int_equal(topn_finish(&h), 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(*(const int *)topn_at(&h, (size_t)i), i);
    topn_close(&h);
    assert_int_equal(topn_init(&h, sizeof(int), 0, int_cmp, NULL), 0);
    topn_offer(&h, &v[0]);
    assert_int_equal(topn_finish(&h), 0);
    topn_close(&h);
    assert_int_equal(topn_init(&h, TOPN_ITEM_MAX + 1, 1, int_cmp, NULL), -1);
}

static void opcode_groups_sum_every_column(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    attr_request req = request(ATTR_BY_OPCODE, ATTR_METRIC_TIME, 20);
    attr_result r;
    compute_ok(m, &req, &r);
    assert_int_equal(r.group_by, ATTR_BY_OPCODE);
    assert_false(r.source_abstained);
    assert_int_equal(r.groups_total, 6);
    assert_int_equal(r.group_count, 6);
    assert_false(r.more);
    /* time = duration + wait: EVENT_SEMAPHORE 100, MATMUL 33, ACTIVATE 30, DMA_DIRECT2D 12, WRITE 5, NOP 0 */
    static const char *const order[] = {"EVENT_SEMAPHORE", "MATMUL", "ACTIVATE", "DMA_DIRECT2D", "WRITE", "NOP"};
    static const int64_t values[] = {100, 33, 30, 12, 5, 0};
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(key(m, &r.groups[i]), order[i]);
        assert_int_equal(r.groups[i].value, values[i]);
    }
    assert_int_equal(r.metric_total, 180);
    const attr_group *mm = &r.groups[1];
    assert_int_equal(mm->count, 3);
    assert_int_equal(mm->duration_ns, 30);
    assert_int_equal(mm->wait_ns, 3);
    assert_int_equal(mm->hbm_read, 200);
    assert_int_equal(r.groups[0].semaphore_duration_ns, 100);
    assert_int_equal(mm->semaphore_duration_ns, 0);
    const attr_group *dma = &r.groups[3];
    assert_int_equal(dma->dma_bytes, 400);
    assert_int_equal(r.groups[4].dma_bytes, 5000);
    assert_true(r.groups[0].share_pct > 55.55 && r.groups[0].share_pct < 55.56);
    assert_int_equal(r.coverage.instructions, 8);
    assert_int_equal(r.coverage.with_source, 6);
    assert_int_equal(r.coverage.duration_ns, 150);
    assert_int_equal(r.coverage.duration_with_source_ns, 50);
    attr_result_free(&r);
    device_model_free(m);
}

/* count ties (five opcodes with one instruction) are broken by key text; pages of two concatenate. */
static void ties_break_by_key_and_cursor_pages_concatenate(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    static const char *const want[] = {"MATMUL", "ACTIVATE", "DMA_DIRECT2D", "EVENT_SEMAPHORE", "NOP", "WRITE"};
    attr_request req = request(ATTR_BY_OPCODE, ATTR_METRIC_COUNT, 2);
    req.sections = false;
    size_t seen = 0;
    for (int page = 0; page < 3; page++) {
        attr_result r;
        compute_ok(m, &req, &r);
        assert_int_equal(r.group_count, 2);
        assert_int_equal(r.groups_after_cursor, 6 - seen);
        for (size_t i = 0; i < r.group_count; i++)
            assert_string_equal(key(m, &r.groups[i]), want[seen++]);
        assert_int_equal(r.more, page < 2);
        assert_false(r.has_sections);
        req.has_after = true;
        req.after_code = r.groups[1].code;
        attr_result_free(&r);
    }
    assert_int_equal(seen, 6);
    device_model_free(m);
}

static void source_groups_include_rows_without_source(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    attr_request req = request(ATTR_BY_SOURCE, ATTR_METRIC_DURATION, 20);
    attr_result r;
    compute_ok(m, &req, &r);
    assert_int_equal(r.group_by, ATTR_BY_SOURCE);
    assert_false(r.source_abstained);
    assert_int_equal(r.groups_total, 5);
    /* duration: (none) 100, a.py:1 20, a.py:2 10, a.py:3 10, b.py:9 10 — ties by text */
    assert_int_equal(r.groups[0].key, 0);
    assert_int_equal(r.groups[0].count, 2);
    assert_string_equal(key(m, &r.groups[1]), "a.py:1");
    assert_string_equal(key(m, &r.groups[2]), "a.py:2");
    assert_string_equal(key(m, &r.groups[3]), "a.py:3");
    assert_string_equal(key(m, &r.groups[4]), "b.py:9");
    assert_int_equal(r.groups[4].count, 2);
    attr_result_free(&r);
    device_model_free(m);
}

static void source_grouping_abstains_without_locations(void **state)
{
    (void)state;
    device_model *m = load(fixture_no_source);
    bool abstained = false;
    assert_int_equal(attr_effective_group_by(m, ATTR_BY_SOURCE, &abstained), ATTR_BY_OPCODE);
    assert_true(abstained);
    assert_int_equal(attr_effective_group_by(m, ATTR_BY_LAYER, &abstained), ATTR_BY_LAYER);
    assert_false(abstained);
    attr_request req = request(ATTR_BY_SOURCE, ATTR_METRIC_TIME, 20);
    attr_result r;
    compute_ok(m, &req, &r);
    assert_true(r.source_abstained);
    assert_int_equal(r.group_by, ATTR_BY_OPCODE);
    assert_int_equal(r.groups_total, 2);
    assert_string_equal(key(m, &r.groups[0]), "ACTIVATE");
    assert_int_equal(r.coverage.with_source, 0);
    assert_false(r.small_dma.by_source);
    attr_result_free(&r);
    device_model_free(m);
}

static void engine_time_is_summed_and_merged_with_gaps(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    attr_request req = request(ATTR_BY_ENGINE, ATTR_METRIC_TIME, 20);
    req.gap_min_ns = 5;
    attr_result r;
    compute_ok(m, &req, &r);
    assert_int_equal(r.engine_count, 3);
    const attr_engine *t = engine(m, &r, "Tensor");
    assert_int_equal(t->instructions, 4);
    assert_int_equal(t->summed_duration_ns, 30);
    assert_int_equal(t->busy_ns, 30);
    assert_int_equal(t->busy_intervals, 3);
    assert_true(t->has_active_rows);
    assert_int_equal(t->active_rows_ns, 30);
    assert_int_equal(t->active_rows, 3);
    assert_int_equal(t->gaps_over_min, 2);
    assert_int_equal(t->gaps_over_min_ns, 2010);
    assert_int_equal(t->gap_count, 2);
    assert_int_equal(t->gaps[0].gap_ns, 2000);
    assert_int_equal(t->gaps[0].start_ns, 30);
    assert_int_equal(t->gaps[0].end_ns, 2030);
    assert_int_equal(t->gaps[0].before.row, 2);
    assert_int_equal(t->gaps[0].after.row, 5);
    assert_string_equal(device_model_str(m, t->gaps[0].after.source, NULL), "a.py:3");
    assert_string_equal(device_model_str(m, t->gaps[0].before.opcode, NULL), "MATMUL");
    assert_int_equal(t->gaps[1].gap_ns, 10);
    assert_int_equal(t->gaps[1].before.row, 0);
    const attr_engine *v = engine(m, &r, "Vector");
    assert_int_equal(v->summed_duration_ns, 110); /* the semaphore wait is summed ... */
    assert_int_equal(v->busy_ns, 10);             /* ... but not busy */
    assert_int_equal(v->summed_wait_ns, 20);
    assert_int_equal(v->active_rows_ns, 10);
    assert_false(engine(m, &r, "Scalar")->has_active_rows);
    /* default threshold 1000 ns keeps only the long gap; gaps_per_engine 1 lists one */
    req.gap_min_ns = ATTR_GAP_MIN_NS_DEFAULT;
    req.gaps_per_engine = 1;
    attr_result_free(&r);
    compute_ok(m, &req, &r);
    t = engine(m, &r, "Tensor");
    assert_int_equal(t->gaps_over_min, 1);
    assert_int_equal(t->gap_count, 1);
    attr_result_free(&r);
    device_model_free(m);
}

/* An export of n instructions on three engines with distinct starts per engine (so the start order is
 * unique), in timestamp order or shuffled. */
static char *engines_export(size_t n, int shuffled)
{
    static const char *const names[] = {"Tensor", "Vector", "Scalar"};
    size_t *order = malloc(n * sizeof *order);
    char *doc = malloc(n * 120 + 64);
    assert_true(order && doc);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (size_t i = n - 1; shuffled && i > 0; i--) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        size_t j = (size_t)(seed % (i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    size_t len = (size_t)sprintf(doc, "{\"instruction\":[");
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        /* starts 7 apart per engine; durations 0..22 so some touch, overlap, or leave gaps */
        len += (size_t)sprintf(doc + len, "%s{\"timestamp\":%zu,\"duration\":%zu,\"subgroup\":\"%s\",\"opcode\":\"OP%zu\"}",
                               k ? "," : "", 1000 + (i / 3) * 7 + (i % 3), (i * 7919) % 23, names[i % 3], i % 5);
    }
    strcpy(doc + len, "]}");
    free(order);
    return doc;
}

/* Spans out of timestamp order take the collect-and-sort walk; in order they are walked online during the
 * scan. Both give the same busy time, pieces, gap counts and gap list. */
static void gap_walk_is_the_same_for_shuffled_instructions(void **state)
{
    (void)state;
    char *a_doc = engines_export(3000, 0), *b_doc = engines_export(3000, 1);
    device_model *a = load(a_doc), *b = load(b_doc);
    attr_request req = request(ATTR_BY_ENGINE, ATTR_METRIC_TIME, 20);
    req.gap_min_ns = 3;
    req.gaps_per_engine = 8;
    attr_result ra, rb;
    compute_ok(a, &req, &ra);
    compute_ok(b, &req, &rb);
    static const char *const names[] = {"Tensor", "Vector", "Scalar"};
    for (int e = 0; e < 3; e++) {
        const attr_engine *x = engine(a, &ra, names[e]), *y = engine(b, &rb, names[e]);
        assert_true(x->busy_ns > 0 && x->gaps_over_min > 8);
        assert_int_equal(x->busy_ns, y->busy_ns);
        assert_int_equal(x->busy_intervals, y->busy_intervals);
        assert_int_equal(x->gaps_over_min, y->gaps_over_min);
        assert_int_equal(x->gaps_over_min_ns, y->gaps_over_min_ns);
        assert_int_equal(x->gap_count, 8);
        assert_int_equal(y->gap_count, 8);
        for (unsigned g = 0; g < x->gap_count; g++) {
            assert_int_equal(x->gaps[g].gap_ns, y->gaps[g].gap_ns);
            assert_int_equal(x->gaps[g].start_ns, y->gaps[g].start_ns);
            assert_int_equal(x->gaps[g].before.start_ns, y->gaps[g].before.start_ns);
            assert_int_equal(x->gaps[g].after.start_ns, y->gaps[g].after.start_ns);
            assert_int_equal(x->gaps[g].before.end_ns, x->gaps[g].start_ns);
            assert_int_equal(x->gaps[g].after.start_ns, x->gaps[g].end_ns);
        }
    }
    attr_result_free(&ra);
    attr_result_free(&rb);
    device_model_free(a);
    device_model_free(b);
    free(a_doc);
    free(b_doc);
}

static void small_dma_counts_packets_by_queue(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    attr_request req = request(ATTR_BY_OPCODE, ATTR_METRIC_DMA_BYTES, 1);
    attr_result r;
    compute_ok(m, &req, &r);
    const attr_small_dma *d = &r.small_dma;
    assert_int_equal(d->packets, 3);
    assert_int_equal(d->packet_bytes, 5700);
    assert_int_equal(d->transfers, 1);
    assert_int_equal(d->duplicates, 1);
    assert_int_equal(d->unknown_variable, 2);
    assert_int_equal(d->under_512.count, 1);
    assert_int_equal(d->under_512.bytes, 100);
    assert_int_equal(d->under_4k.count, 2);
    assert_int_equal(d->under_4k.bytes, 700);
    assert_int_equal(d->queues_total, 2);
    assert_int_equal(d->queue_count, 2);
    assert_string_equal(device_model_str(m, d->queues[0].queue, NULL), "qA");
    assert_int_equal(d->queues[0].packets, 2);
    assert_int_equal(d->queues[0].under_4k.count, 2);
    assert_string_equal(device_model_str(m, d->queues[1].queue, NULL), "qB");
    assert_int_equal(d->dma_instructions, 2);
    assert_int_equal(d->instr_under_512.count, 1);
    assert_int_equal(d->instr_under_512.bytes, 400);
    assert_true(d->by_source);
    assert_int_equal(d->source_count, 1);
    assert_string_equal(device_model_str(m, d->sources[0].source, NULL), "b.py:9");
    assert_int_equal(d->sources[0].bytes, 400);
    /* top 1 by dma_bytes: WRITE (5000) */
    assert_int_equal(r.group_count, 1);
    assert_string_equal(key(m, &r.groups[0]), "WRITE");
    assert_true(r.more);
    attr_result_free(&r);
    device_model_free(m);
}

static void bad_cursor_and_ranges_are_argument_errors(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    attr_request req = request(ATTR_BY_OPCODE, ATTR_METRIC_TIME, 20);
    req.has_after = true;
    req.after_code = 6;
    attr_result r;
    nl_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(attr_compute(m, &req, NULL, &r, &err), -1);
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    assert_string_equal(err.field, "cursor");
    assert_null(r.groups);
    req = request(ATTR_BY_OPCODE, ATTR_METRIC_TIME, ATTR_TOP_MAX + 1);
    assert_int_equal(attr_compute(m, &req, NULL, &r, &err), -1);
    assert_string_equal(err.field, "top");
    req = request(ATTR_BY_OPCODE, ATTR_METRIC_TIME, 1);
    req.gaps_per_engine = ATTR_GAPS_PER_ENGINE_MAX + 1;
    assert_int_equal(attr_compute(m, &req, NULL, &r, &err), -1);
    assert_string_equal(err.field, "gaps_per_engine");
    device_model_free(m);
}

static void cancelled_before_the_scan_reports_cancelled(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    atomic_int cancel = 1;
    attr_request req = request(ATTR_BY_OPCODE, ATTR_METRIC_TIME, 20);
    attr_result r;
    nl_error err;
    assert_int_equal(attr_compute(m, &req, &cancel, &r, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    device_model_free(m);
}

static void assert_same_result(const attr_result *a, const attr_result *b)
{
    assert_int_equal(a->group_by, b->group_by);
    assert_int_equal(a->source_abstained, b->source_abstained);
    assert_int_equal(a->metric, b->metric);
    assert_int_equal(a->group_count, b->group_count);
    assert_memory_equal(a->groups, b->groups, a->group_count * sizeof *a->groups);
    assert_int_equal(a->groups_total, b->groups_total);
    assert_int_equal(a->groups_after_cursor, b->groups_after_cursor);
    assert_int_equal(a->more, b->more);
    assert_int_equal(a->metric_total, b->metric_total);
    assert_memory_equal(&a->coverage, &b->coverage, sizeof a->coverage);
    assert_int_equal(a->has_sections, b->has_sections);
    assert_int_equal(a->engine_count, b->engine_count);
    if (a->engine_count)
        assert_memory_equal(a->engines, b->engines, a->engine_count * sizeof *a->engines);
    assert_int_equal(a->engines_not_itemised, b->engines_not_itemised);
    assert_memory_equal(&a->small_dma, &b->small_dma, sizeof a->small_dma);
}

/* The memoized path (issue 6): parts built once per grouping / gap setting, then every metric, page size and
 * cursor ranked from them, must equal attr_compute for the same request. */
static void shared_parts_rank_exactly_like_attr_compute(void **state)
{
    (void)state;
    const char *docs[] = {fixture_export, fixture_no_source};
    for (size_t d = 0; d < 2; d++) {
        device_model *m = load(docs[d]);
        attr_sections *sec = NULL;
        nl_error err;
        assert_int_equal(attr_sections_compute(m, ATTR_GAP_MIN_NS_DEFAULT, 3, NULL, &sec, &err), 0);
        for (int by = 0; by < ATTR_GROUP_BY_COUNT; by++) {
            bool abstained;
            attr_groups *g = NULL;
            assert_int_equal(attr_groups_compute(m, attr_effective_group_by(m, (attr_group_by)by, &abstained), NULL, &g,
                                                 &err), 0);
            for (int metric = 0; metric < ATTR_METRIC_KINDS; metric++) {
                for (uint32_t top = 1; top <= 3; top++) {
                    attr_request req = request((attr_group_by)by, (attr_metric)metric, top);
                    for (int page = 0; page < 10; page++) { /* the first page with sections, then cursor pages */
                        attr_result direct, memo;
                        compute_ok(m, &req, &direct);
                        memset(&memo, 0x5a, sizeof memo);
                        assert_int_equal(attr_compute_from(m, &req, g, sec, &memo, &err), 0);
                        assert_same_result(&direct, &memo);
                        bool more = direct.more;
                        uint32_t last = direct.group_count ? direct.groups[direct.group_count - 1].code : 0;
                        attr_result_free(&direct);
                        attr_result_free(&memo);
                        if (!more)
                            break;
                        req.sections = false;
                        req.has_after = true;
                        req.after_code = last;
                    }
                }
            }
            attr_groups_free(g);
        }
        attr_sections_free(sec);
        device_model_free(m);
    }
}

static void parts_for_another_request_are_refused(void **state)
{
    (void)state;
    device_model *m = load(fixture_export);
    attr_groups *layer = NULL;
    attr_sections *sec = NULL;
    nl_error err;
    assert_int_equal(attr_groups_compute(m, ATTR_BY_LAYER, NULL, &layer, &err), 0);
    assert_int_equal(attr_sections_compute(m, 0, 5, NULL, &sec, &err), 0);
    attr_result r;
    attr_request req = request(ATTR_BY_OPCODE, ATTR_METRIC_TIME, 5);
    memset(&r, 0x5a, sizeof r);
    assert_int_equal(attr_compute_from(m, &req, layer, sec, &r, &err), -1); /* groups of another grouping */
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    assert_null(r.groups);
    req = request(ATTR_BY_LAYER, ATTR_METRIC_TIME, 5);
    assert_int_equal(attr_compute_from(m, &req, layer, sec, &r, &err), -1); /* sections of another gap setting */
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    req.sections = false;                                                   /* not needed on a continuation page */
    assert_int_equal(attr_compute_from(m, &req, layer, NULL, &r, &err), 0);
    assert_false(r.has_sections);
    attr_result_free(&r);
    req.has_after = true;
    req.after_code = attr_group_keys(m, ATTR_BY_LAYER);
    assert_int_equal(attr_compute_from(m, &req, layer, NULL, &r, &err), -1); /* the cursor is still checked */
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    assert_string_equal(err.field, "cursor");
    attr_sections *bad = (attr_sections *)0x1;
    assert_int_equal(attr_sections_compute(m, -1, 3, NULL, &bad, &err), -1);
    assert_null(bad);
    assert_string_equal(err.field, "gap_min_ns");
    atomic_int cancel = 1;
    attr_groups *none = NULL;
    assert_int_equal(attr_groups_compute(m, ATTR_BY_OPCODE, &cancel, &none, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    assert_null(none);
    attr_groups_free(layer);
    attr_sections_free(sec);
    device_model_free(m);
}

static void names_parse_and_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < ATTR_GROUP_BY_COUNT; i++) {
        attr_group_by by;
        assert_int_equal(attr_group_by_parse(attr_group_by_name((attr_group_by)i), &by), 0);
        assert_int_equal(by, i);
    }
    for (int i = 0; i < ATTR_METRIC_KINDS; i++) {
        attr_metric mt;
        assert_int_equal(attr_metric_parse(attr_metric_name((attr_metric)i), &mt), 0);
        assert_int_equal(mt, i);
    }
    attr_metric mt;
    assert_int_equal(attr_metric_parse("bogus", &mt), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(topn_keeps_the_smallest_in_order),
        cmocka_unit_test(opcode_groups_sum_every_column),
        cmocka_unit_test(ties_break_by_key_and_cursor_pages_concatenate),
        cmocka_unit_test(source_groups_include_rows_without_source),
        cmocka_unit_test(source_grouping_abstains_without_locations),
        cmocka_unit_test(engine_time_is_summed_and_merged_with_gaps),
        cmocka_unit_test(gap_walk_is_the_same_for_shuffled_instructions),
        cmocka_unit_test(small_dma_counts_packets_by_queue),
        cmocka_unit_test(bad_cursor_and_ranges_are_argument_errors),
        cmocka_unit_test(cancelled_before_the_scan_reports_cancelled),
        cmocka_unit_test(names_parse_and_round_trip),
        cmocka_unit_test(shared_parts_rank_exactly_like_attr_compute),
        cmocka_unit_test(parts_for_another_request_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
