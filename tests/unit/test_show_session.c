/* Unit tests for analyzers/readers/show_session: every case in tests/data/show_session/<case>/ (input →
 * expected rendering, or the exact error with its offset) read from disk, from memory, one byte at a time
 * with garbage past each chunk, and in pseudo-random chunks; plus caps, cancel and the spent parser.
 *
 * The rendering (render_session below) is the contract of the `expected` files; tests/data/show_session/
 * README.md explains the cases. The trailing `gaps` lines come from analyses/gaps with default options
 * (automatic CC-core, collectives_per_layer 2, skip_prologue_gaps 1) and, when the dump prints one, the
 * dump's total execution time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaps.h"
#include "show_session.h"

/* ---- text buffer ---------------------------------------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(sbuf *b, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof line);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
    memcpy(b->s + b->len, line, (size_t)n + 1);
    b->len += (size_t)n;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* ---- rendering: the format of the `expected` files -------------------------------------------------- */

static void render_error(sbuf *b, const nl_error *e)
{
    sb_add(b, "error %s %lld", nl_error_code_name(e->code), (long long)e->offset);
    if (e->record >= 0)
        sb_add(b, " record %lld", (long long)e->record);
    if (e->field[0])
        sb_add(b, " field %s", e->field);
    sb_add(b, " %s\n", e->message);
}

static void render_gaps(sbuf *b, const show_session *ss)
{
    gaps_core_input *in;
    int64_t *storage;
    size_t n;
    nl_error err;
    assert_int_equal(gaps_inputs_from_show_session(ss, &in, &n, &storage, &err), 0);
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r;
    int rc = gaps_compute(in, n, &opt, &r, &err);
    int64_t total, total_at;
    if (rc == 0 && show_session_total_time_for_core(ss, r->cc_core, &total, &total_at)) {
        /* as the tool does: the total time of the chosen core's header block */
        gaps_result_free(r);
        opt.has_total_time = true;
        opt.total_time_ns = total;
        rc = gaps_compute(in, n, &opt, &r, &err);
        sb_add(b, "gaps total_time_ns %lld from %lld\n", (long long)total, (long long)total_at);
    }
    if (rc) {
        sb_add(b, "gaps error %s %s\n", nl_error_code_name(err.code), err.message);
    } else {
        sb_add(b, "gaps cc_core %u forced %s triggers %zu layers %zu leftover %zu consistent %s median %lld p90 %lld",
               r->cc_core, r->forced ? "yes" : "no", r->trigger_count, r->layer_count, r->leftover_gaps,
               r->consistent ? "yes" : "no", (long long)r->median_ns, (long long)r->p90_ns);
        if (r->has_steady)
            sb_add(b, " steady %lld", (long long)r->steady_median_ns);
        else
            sb_add(b, " steady -");
        sb_add(b, " outliers");
        size_t shown = 0;
        for (size_t k = 0; k < r->layer_count; k++)
            if (r->layers[k].outlier)
                sb_add(b, "%s%zu", shown++ ? "," : " ", k);
        if (!shown)
            sb_add(b, " -");
        sb_add(b, " warmup %s\n", !r->has_steady ? "-" : r->warmup_slow ? "slow" : "ok");
        for (size_t k = 0; k < r->layer_count; k++)
            sb_add(b, "layer %zu %lld\n", k, (long long)r->layers[k].latency_ns);
        for (size_t i = 0; i < r->irregular_listed; i++)
            sb_add(b, "irregular gap %zu %lld %s\n", r->irregular[i].gap, (long long)r->irregular[i].ns,
                   r->irregular[i].kind == GAPS_GAP_LONG ? "long" : "short");
        for (size_t i = 0; i < r->problem_count; i++)
            sb_add(b, "problem %s\n", r->problems[i].code);
        gaps_result_free(r);
    }
    free(in);
    free(storage);
}

static void render_session(sbuf *b, const show_session *ss)
{
    const show_session_info *info = show_session_get_info(ss);
    sb_add(b, "format %s\nbytes %llu\nlines %llu\n", info->format == SHOW_SESSION_FORMAT_JSON ? "json" : "text",
           (unsigned long long)info->bytes, (unsigned long long)info->lines);
    sb_add(b, "model_name %s%s\n", info->model_name ? info->model_name : "(none)", info->model_name_cut ? " (cut)" : "");
    if (info->has_total_time)
        sb_add(b, "total_time_ns %lld at %lld (%zu in all)\n", (long long)info->total_time_ns,
               (long long)info->total_time_offset, info->total_time_count);
    else
        sb_add(b, "total_time_ns (none)\n");
    if (info->has_dropped)
        sb_add(b, "dropped %llu\n", (unsigned long long)info->dropped_events);
    else
        sb_add(b, "dropped (none)\n");
    sb_add(b, "unparsed %llu bad_timestamps %llu other_lines %llu other_sections %llu\n",
           (unsigned long long)info->unparsed_lines, (unsigned long long)info->bad_timestamps,
           (unsigned long long)info->other_lines, (unsigned long long)info->other_sections);
    sb_add(b, "instruction_sections %zu lines %llu\n", info->instruction_section_count,
           (unsigned long long)info->instruction_lines);
    for (size_t i = 0; i < info->listed_instruction_sections; i++)
        sb_add(b, "instr nd %lld nc %lld lines %llu\n", (long long)info->instruction_sections[i].nd,
               (long long)info->instruction_sections[i].nc, (unsigned long long)info->instruction_sections[i].lines);
    sb_add(b, "types");
    for (size_t i = 0; i < show_session_type_count(ss); i++)
        sb_add(b, " %s", show_session_type_name(ss, i));
    sb_add(b, "\n");
    for (size_t i = 0; i < show_session_core_count(ss); i++) {
        const show_session_core *c = show_session_core_at(ss, i);
        sb_add(b, "cc_core %u sections %u header %lld events %llu unparsed %llu triggers %zu start %zu end %zu none %zu "
               "sorted %s first %lld last %lld\n", c->id, c->sections, (long long)c->header_offset,
               (unsigned long long)c->events, (unsigned long long)c->unparsed, c->trigger_count, c->trigger_start,
               c->trigger_end, c->trigger_none, c->triggers_sorted ? "yes" : "no", (long long)c->first_ns,
               (long long)c->last_ns);
        sb_add(b, "  counts");
        for (size_t t = 0; t <= SHOW_SESSION_TYPES_MAX; t++)
            if (c->type_counts[t])
                sb_add(b, " %s=%llu", show_session_type_name(ss, t), (unsigned long long)c->type_counts[t]);
        sb_add(b, "\n");
        assert_true(show_session_core_find(ss, c->id) == c);
    }
    for (size_t i = 0; i < info->issue_count; i++)
        sb_add(b, "issue %lld line %llu %s | %s\n", (long long)info->issues[i].offset,
               (unsigned long long)info->issues[i].line, info->issues[i].reason, info->issues[i].excerpt);
    for (size_t i = 0; i < info->graph_count; i++) {
        const show_session_graph *g = &info->graphs[i];
        sb_add(b, "graph nc %lld cycles %lld instr %lld events %lld errors %lld\n", (long long)g->nc,
               (long long)g->cycle_count, (long long)g->instruction_trace_count, (long long)g->events_count,
               (long long)g->error_count);
    }
    if (info->format == SHOW_SESSION_FORMAT_JSON)
        sb_add(b, "json_unknown_keys %llu\n", (unsigned long long)info->json_unknown_keys);
    render_gaps(b, ss);
}

/* ---- feeding strategies ----------------------------------------------------------------------------- */

typedef enum feed_mode { FEED_WHOLE, FEED_BYTES, FEED_RANDOM, FEED_FILE } feed_mode;

static uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Parse `data` with `mode`, render the result or the error. Garbage sits after every pushed chunk. */
static char *parse_render(const char *path, const char *data, size_t len, feed_mode mode)
{
    sbuf b = {0};
    nl_error err;
    nl_error_clear(&err);
    show_session *ss = NULL;
    int rc;
    show_session_options opt = {.source = "input"};
    if (mode == FEED_FILE) {
        opt.read_size = 7; /* odd reads cross every kind of boundary */
        opt.source = NULL;
        rc = show_session_read(path, &opt, &ss, &err);
        if (rc == 0 || err.source[0])
            snprintf(err.source, sizeof err.source, "input"); /* the path differs per machine */
    } else {
        show_session_parser *p = show_session_parser_new(&opt, &err);
        assert_non_null(p);
        uint64_t seed = 12345;
        size_t at = 0;
        rc = 0;
        while (rc == 0 && at < len) {
            size_t n = mode == FEED_WHOLE ? len : mode == FEED_BYTES ? 1 : 1 + rng_next(&seed) % 97;
            if (n > len - at)
                n = len - at;
            char *chunk = malloc(n + 16);
            assert_non_null(chunk);
            memcpy(chunk, data + at, n);
            memcpy(chunk + n, "\n{\0Collectives \n", 16); /* must never be read */
            rc = show_session_parser_feed(p, chunk, n, &err);
            free(chunk);
            at += n;
        }
        if (rc == 0)
            rc = show_session_parser_finish(p, &ss, &err);
        show_session_parser_free(p);
    }
    if (rc) {
        assert_null(ss);
        assert_string_equal(err.source, "input");
        render_error(&b, &err);
    } else {
        render_session(&b, ss);
        show_session_free(ss);
    }
    return b.s;
}

/* ---- the data cases --------------------------------------------------------------------------------- */

static char *data_dir(void)
{
    const char *root = getenv("NL_SOURCE_ROOT");
    char *dir = malloc(4096);
    assert_non_null(dir);
    snprintf(dir, 4096, "%s/tests/data/show_session", root ? root : ".");
    return dir;
}

static void every_case_renders_its_expected_file_however_it_is_fed(void **state)
{
    (void)state;
    char *dir = data_dir();
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    size_t cases = 0;
    const char *write = getenv("NL_WRITE_EXPECTED"); /* regenerate: review every diff by hand */
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char in_path[4600], exp_path[4600];
        snprintf(in_path, sizeof in_path, "%s/%s/input", dir, de->d_name);
        snprintf(exp_path, sizeof exp_path, "%s/%s/expected", dir, de->d_name);
        size_t len, elen;
        char *input = read_all(in_path, &len);
        if (!input)
            continue; /* README.md */
        char *whole = parse_render(in_path, input, len, FEED_WHOLE);
        if (write) {
            FILE *f = fopen(exp_path, "w");
            assert_non_null(f);
            fputs(whole, f);
            fclose(f);
        }
        char *expected = read_all(exp_path, &elen);
        if (!expected)
            fail_msg("case %s has no expected file", de->d_name);
        if (strcmp(whole, expected))
            fail_msg("case %s (whole):\n--- got\n%s--- expected\n%s", de->d_name, whole, expected);
        feed_mode modes[] = {FEED_BYTES, FEED_RANDOM, FEED_FILE};
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            char *got = parse_render(in_path, input, len, modes[m]);
            if (strcmp(got, expected))
                fail_msg("case %s (mode %zu):\n--- got\n%s--- expected\n%s", de->d_name, m, got, expected);
            free(got);
        }
        free(whole);
        free(expected);
        free(input);
        cases++;
    }
    closedir(d);
    free(dir);
    assert_true(cases >= 20);
}

/* Every case, mutated 300 times (bytes flipped, NULs, newlines, braces, digits inserted, cut short): the
 * reader answers with a result or an error whose offset lies inside the input, never a crash (ASan/UBSan
 * builds run this too), and chunked feeding agrees with whole feeding. */
static void mutated_cases_never_crash_and_errors_stay_inside_the_input(void **state)
{
    (void)state;
    char *dir = data_dir();
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    uint64_t seed = 99;
    static const char noise[] = "\n\r\0{}[]\":,0123456789 TPB_TRIGGER START Collectives trace for CC-core ";
    while ((de = readdir(d)) != NULL) {
        char in_path[4600];
        snprintf(in_path, sizeof in_path, "%s/%s/input", dir, de->d_name);
        size_t len;
        char *input = de->d_name[0] == '.' ? NULL : read_all(in_path, &len);
        if (!input)
            continue;
        for (int m = 0; m < 300; m++) {
            char *buf = malloc(len + 8);
            assert_non_null(buf);
            memcpy(buf, input, len);
            size_t n = len;
            for (int k = 0; k < 1 + (int)(rng_next(&seed) % 4); k++) {
                size_t at = n ? rng_next(&seed) % n : 0;
                switch (rng_next(&seed) % 4) {
                case 0: if (n) buf[at] = (char)(rng_next(&seed) & 0xff); break;
                case 1: if (n) buf[at] = noise[rng_next(&seed) % (sizeof noise - 1)]; break;
                case 2: n = at; break;
                default:
                    if (n < len + 8) {
                        memmove(buf + at + 1, buf + at, n - at);
                        buf[at] = noise[rng_next(&seed) % (sizeof noise - 1)];
                        n++;
                    }
                }
            }
            show_session *ss = NULL;
            nl_error err;
            nl_error_clear(&err);
            if (show_session_read_mem(buf, n, NULL, &ss, &err) == 0) {
                assert_non_null(ss);
                sbuf b = {0};
                render_session(&b, ss); /* the analysis must cope with whatever was read */
                free(b.s);
                show_session_free(ss);
            } else {
                assert_int_not_equal(err.code, NL_OK);
                assert_true(err.offset >= -1 && err.offset <= (int64_t)n);
            }
            char *whole = parse_render(NULL, buf, n, FEED_WHOLE);
            char *bytes = parse_render(NULL, buf, n, FEED_RANDOM);
            if (!strncmp(whole, "error ", 6)) { /* json_stream's "near …" excerpt depends on the chunking */
                size_t upto = 0;
                for (int sp = 0; whole[upto] && sp < 3; upto++)
                    sp += whole[upto] == ' ';
                assert_int_equal(strncmp(whole, bytes, upto), 0);
            } else {
                assert_string_equal(whole, bytes);
            }
            free(whole);
            free(bytes);
            free(buf);
        }
        free(input);
    }
    closedir(d);
    free(dir);
}

/* ---- behaviours not worth a data file ---------------------------------------------------------------- */

static show_session *parse_ok(const char *text)
{
    show_session *ss = NULL;
    nl_error err;
    show_session_options opt = {.source = "mem"};
    if (show_session_read_mem(text, strlen(text), &opt, &ss, &err))
        fail_msg("unexpected error: %s at %lld", err.message, (long long)err.offset);
    return ss;
}

static void a_line_over_the_cap_is_a_limit_error_at_its_start(void **state)
{
    (void)state;
    const char *head = "Collectives trace for CC-core 1\nTPB_TRIGGER 1 START\n";
    size_t hl = strlen(head), n = hl + SHOW_SESSION_LINE_MAX + 10;
    char *buf = malloc(n);
    assert_non_null(buf);
    memcpy(buf, head, hl);
    memset(buf + hl, 'x', n - hl);
    for (int whole = 0; whole < 2; whole++) {
        nl_error err;
        show_session *ss = NULL;
        show_session_options opt = {.source = "big"};
        show_session_parser *p = show_session_parser_new(&opt, &err);
        assert_non_null(p);
        int rc = 0;
        for (size_t at = 0; rc == 0 && at < n; at += whole ? n : 4096)
            rc = show_session_parser_feed(p, buf + at, whole ? n : (n - at < 4096 ? n - at : 4096), &err);
        if (rc == 0)
            rc = show_session_parser_finish(p, &ss, &err);
        assert_int_equal(rc, -1);
        assert_null(ss);
        assert_int_equal(err.code, NL_ERR_LIMIT);
        assert_int_equal(err.offset, (int64_t)hl);
        assert_string_equal(err.source, "big");
        /* a failed parser repeats its error */
        nl_error again;
        assert_int_equal(show_session_parser_feed(p, "x", 1, &again), -1);
        assert_int_equal(again.code, NL_ERR_LIMIT);
        assert_int_equal(again.offset, (int64_t)hl);
        show_session_parser_free(p);
    }
    /* the same line with a newline inside the cap is fine */
    buf[hl + SHOW_SESSION_LINE_MAX] = '\n';
    show_session *ss = NULL;
    nl_error err;
    assert_int_equal(show_session_read_mem(buf, hl + SHOW_SESSION_LINE_MAX + 1, NULL, &ss, &err), 0);
    assert_int_equal(show_session_get_info(ss)->unparsed_lines, 1);
    show_session_free(ss);
    free(buf);
}

static void too_many_cc_cores_is_a_limit_error(void **state)
{
    (void)state;
    sbuf b = {0};
    for (unsigned i = 0; i <= SHOW_SESSION_CORES_MAX; i++)
        sb_add(&b, "Collectives trace for CC-core %u\n", i);
    show_session *ss = NULL;
    nl_error err;
    assert_int_equal(show_session_read_mem(b.s, b.len, NULL, &ss, &err), -1);
    assert_int_equal(err.code, NL_ERR_LIMIT);
    assert_int_equal(err.offset, (int64_t)(b.len - strlen("Collectives trace for CC-core 1024\n")));
    free(b.s);
}

static void more_event_types_than_the_cap_count_as_other(void **state)
{
    (void)state;
    sbuf b = {0};
    sb_add(&b, "Collectives trace for CC-core 0\n");
    for (unsigned i = 0; i < SHOW_SESSION_TYPES_MAX + 3; i++)
        sb_add(&b, "EVT_%u %u START\n", i, i);
    show_session *ss = parse_ok(b.s);
    assert_int_equal(show_session_type_count(ss), SHOW_SESSION_TYPES_MAX);
    const show_session_core *c = show_session_core_at(ss, 0);
    assert_int_equal(c->events, SHOW_SESSION_TYPES_MAX + 3);
    assert_int_equal(c->type_counts[SHOW_SESSION_TYPES_MAX], 3);
    assert_string_equal(show_session_type_name(ss, SHOW_SESSION_TYPES_MAX), "(other)");
    show_session_free(ss);
    free(b.s);
}

static void a_long_model_name_is_cut_and_flagged(void **state)
{
    (void)state;
    sbuf b = {0};
    sb_add(&b, "Model Name: ");
    for (int i = 0; i < 60; i++)
        sb_add(&b, "/very/long");
    sb_add(&b, "\n");
    show_session *ss = parse_ok(b.s);
    const show_session_info *info = show_session_get_info(ss);
    assert_true(info->model_name_cut);
    assert_int_equal(strlen(info->model_name), SHOW_SESSION_TEXT_MAX);
    show_session_free(ss);
    free(b.s);
}

static void total_time_units_are_converted_to_ns(void **state)
{
    (void)state;
    static const struct { const char *line; int64_t ns; } cases[] = {
        {"Total execution time: 1203456 ns", 1203456},
        {"Total execution time (ns): 1,203,456", 1203456},
        {"Total Execution Time: 1203456", 1203456},
        {"Execution time: 1.5 ms", 1500000},
        {"total execution time (us): 12.25", 12250},
        {"Total execution time: 2 s", 2000000000},
        {"Total execution time: 3.5µs", 3500},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        show_session *ss = parse_ok(cases[i].line);
        const show_session_info *info = show_session_get_info(ss);
        assert_true(info->has_total_time);
        if (info->total_time_ns != cases[i].ns)
            fail_msg("%s: got %lld", cases[i].line, (long long)info->total_time_ns);
        show_session_free(ss);
    }
    show_session *ss = parse_ok("Execution time per engine:\n");
    assert_false(show_session_get_info(ss)->has_total_time);
    assert_int_equal(show_session_get_info(ss)->other_lines, 1);
    show_session_free(ss);
}

static void empty_and_blank_inputs_read_as_empty_text(void **state)
{
    (void)state;
    const char *inputs[] = {"", "\n\n  \n", "   "};
    for (size_t i = 0; i < 3; i++) {
        show_session *ss = parse_ok(inputs[i]);
        assert_int_equal(show_session_get_info(ss)->format, SHOW_SESSION_FORMAT_TEXT);
        assert_int_equal(show_session_core_count(ss), 0);
        show_session_free(ss);
    }
}

static void leading_blanks_keep_json_offsets_absolute(void **state)
{
    (void)state;
    const char *doc = "\n\n   {\"Name\": 5}";
    show_session *ss = NULL;
    nl_error err;
    assert_int_equal(show_session_read_mem(doc, strlen(doc), NULL, &ss, &err), -1);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 14);
    assert_string_equal(err.field, "Name");
}

static void a_json_document_with_trailing_garbage_is_a_format_error(void **state)
{
    (void)state;
    const char *doc = "{\"Name\": \"m\"} x";
    show_session *ss = NULL;
    nl_error err;
    assert_int_equal(show_session_read_mem(doc, strlen(doc), NULL, &ss, &err), -1);
    assert_int_equal(err.code, NL_ERR_FORMAT);
    assert_int_equal(err.offset, 14);
}

static void a_set_cancel_flag_stops_the_read(void **state)
{
    (void)state;
    sbuf b = {0};
    sb_add(&b, "Collectives trace for CC-core 0\n");
    for (unsigned i = 0; i < 3 * SHOW_SESSION_POLL_LINES; i++)
        sb_add(&b, "TPB_TRIGGER %u START\n", i);
    atomic_int cancel = 1;
    show_session_options opt = {.cancel = &cancel};
    show_session *ss = NULL;
    nl_error err;
    assert_int_equal(show_session_read_mem(b.s, b.len, &opt, &ss, &err), -1);
    assert_int_equal(err.code, NL_ERR_CANCELLED);
    free(b.s);
}

static void a_finished_parser_refuses_more_input(void **state)
{
    (void)state;
    nl_error err;
    show_session_parser *p = show_session_parser_new(NULL, &err);
    assert_non_null(p);
    assert_int_equal(show_session_parser_feed(p, "Model Name: x\n", 14, &err), 0);
    show_session *ss = NULL;
    assert_int_equal(show_session_parser_finish(p, &ss, &err), 0);
    assert_non_null(ss);
    assert_int_equal(show_session_parser_feed(p, "x", 1, &err), -1);
    assert_int_equal(err.code, NL_ERR_ARGUMENT);
    show_session_free(ss);
    show_session_parser_free(p);
}

static void a_missing_file_is_an_io_error_naming_it(void **state)
{
    (void)state;
    show_session *ss = NULL;
    nl_error err;
    assert_int_equal(show_session_read("/nonexistent/session.txt", NULL, &ss, &err), -1);
    assert_int_equal(err.code, NL_ERR_IO);
    assert_string_equal(err.source, "/nonexistent/session.txt");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_case_renders_its_expected_file_however_it_is_fed),
        cmocka_unit_test(mutated_cases_never_crash_and_errors_stay_inside_the_input),
        cmocka_unit_test(a_line_over_the_cap_is_a_limit_error_at_its_start),
        cmocka_unit_test(too_many_cc_cores_is_a_limit_error),
        cmocka_unit_test(more_event_types_than_the_cap_count_as_other),
        cmocka_unit_test(a_long_model_name_is_cut_and_flagged),
        cmocka_unit_test(total_time_units_are_converted_to_ns),
        cmocka_unit_test(empty_and_blank_inputs_read_as_empty_text),
        cmocka_unit_test(leading_blanks_keep_json_offsets_absolute),
        cmocka_unit_test(a_json_document_with_trailing_garbage_is_a_format_error),
        cmocka_unit_test(a_set_cancel_flag_stops_the_read),
        cmocka_unit_test(a_finished_parser_refuses_more_input),
        cmocka_unit_test(a_missing_file_is_an_io_error_naming_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
