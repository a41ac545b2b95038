/* fuzz_show_session — libFuzzer target for the `neuron-profile show-session` reader
 * (analyzers/readers/show_session.c): the text dump and the -j JSON form, whichever the input is.
 *
 * The input is read twice, with show_session_read_mem (one push) and with a parser fed in chunks of a size
 * taken from the input's hash; the reader promises any chunk boundary gives the same result, so both must
 * give the same summary (every info field, every core with its triggers and type counts, the type names,
 * the instruction sections, the issue samples and -j graphs) or the same error (code, offset, record and
 * field; not the message, whose excerpt of -j JSON shows the bytes pushed so far). A dump that loads then goes
 * through the collective-gap analysis (gaps_inputs_from_show_session, gaps_compute) with its default
 * options, as the collective-gaps tool would run it.
 *
 * fuzz-max-len: 32768
 * fuzz-seeds: lines:gen:show_session_trace.txt raw:gen:show_session.json
 * fuzz-dict: show_session.dict */
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "gaps.h"
#include "show_session.h"

static uint64_t digest(const show_session *ss)
{
    const show_session_info *in = show_session_get_info(ss);
    uint64_t h = FUZZ_HASH_INIT;
    uint64_t scalars[] = {in->format, in->bytes, in->lines, in->model_name_cut, in->has_total_time,
                          (uint64_t)in->total_time_ns, (uint64_t)in->total_time_offset, in->total_time_count,
                          in->has_dropped, in->dropped_events, in->unparsed_lines, in->other_lines,
                          in->instruction_lines, in->instruction_section_count, in->listed_instruction_sections,
                          in->other_sections, in->bad_timestamps, in->issue_count, in->graph_count,
                          in->json_unknown_keys};
    h = fuzz_hash(h, scalars, sizeof scalars);
    if (in->model_name)
        h = fuzz_hash(h, in->model_name, strlen(in->model_name) + 1);
    h = fuzz_hash(h, in->instruction_sections, in->listed_instruction_sections * sizeof *in->instruction_sections);
    for (size_t i = 0; i < in->issue_count; i++) {
        const show_session_issue *is = &in->issues[i];
        h = fuzz_hash_u64(fuzz_hash_u64(h, (uint64_t)is->offset), is->line);
        h = fuzz_hash(h, is->reason, strlen(is->reason));
        h = fuzz_hash(h, is->excerpt, strnlen(is->excerpt, sizeof is->excerpt));
    }
    h = fuzz_hash(h, in->graphs, in->graph_count * sizeof *in->graphs);
    size_t types = show_session_type_count(ss);
    for (size_t i = 0; i < types; i++) {
        const char *name = show_session_type_name(ss, i);
        h = fuzz_hash(h, name, strlen(name) + 1);
    }
    for (size_t i = 0; i < show_session_core_count(ss); i++) {
        const show_session_core *c = show_session_core_at(ss, i);
        FUZZ_CHECK(show_session_core_find(ss, c->id) == c, "core %u is not found by its id", c->id);
        uint64_t cs[] = {c->id, (uint64_t)c->header_offset, c->sections, c->events, c->unparsed,
                         (uint64_t)c->first_ns, (uint64_t)c->last_ns, c->trigger_count, c->trigger_start,
                         c->trigger_end, c->trigger_none, c->triggers_sorted};
        FUZZ_CHECK(c->trigger_start + c->trigger_end + c->trigger_none == c->trigger_count, "core %u phases", c->id);
        h = fuzz_hash(h, cs, sizeof cs);
        for (size_t t = 0; t < c->trigger_count; t++) /* field by field: the struct has padding */
            h = fuzz_hash_u64(fuzz_hash_u64(fuzz_hash_u64(h, (uint64_t)c->triggers[t].ts_ns),
                                            (uint64_t)c->triggers[t].offset), c->triggers[t].phase);
        h = fuzz_hash(h, c->type_counts, (SHOW_SESSION_TYPES_MAX + 1) * sizeof *c->type_counts);
        int64_t ns = 0, off = 0;
        int has = show_session_total_time_for_core(ss, c->id, &ns, &off);
        h = fuzz_hash_u64(fuzz_hash_u64(fuzz_hash_u64(h, (uint64_t)has), (uint64_t)ns), (uint64_t)off);
    }
    return h;
}

static void run_gaps(const show_session *ss)
{
    gaps_core_input *inputs = NULL;
    size_t count = 0;
    int64_t *storage = NULL;
    nl_error err;
    FUZZ_CHECK(gaps_inputs_from_show_session(ss, &inputs, &count, &storage, &err) == 0, "gaps inputs: %s",
               err.message);
    gaps_options opt;
    gaps_options_default(&opt);
    gaps_result *r = NULL;
    if (gaps_compute(inputs, count, &opt, &r, &err) == 0)
        gaps_result_free(r);
    else
        FUZZ_CHECK(err.code == NL_ERR_NOT_FOUND || err.code == NL_ERR_LIMIT, "gaps_compute: %d %s", (int)err.code,
                   err.message);
    free(inputs);
    free(storage);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fuzz_hash(FUZZ_HASH_INIT, data, size);
    size_t chunk = 1 + (size_t)(h % 131);
    show_session_options opt = {.source = "fuzz.txt"};
    nl_error e1, e2;
    show_session *a = NULL, *b = NULL;
    int r1 = show_session_read_mem(data, size, &opt, &a, &e1);
    show_session_parser *p = show_session_parser_new(&opt, &e2);
    FUZZ_CHECK(p != NULL, "parser_new: %s", e2.message);
    int r2 = 0;
    for (size_t at = 0; r2 == 0 && at < size; at += chunk)
        r2 = show_session_parser_feed(p, data + at, size - at < chunk ? size - at : chunk, &e2);
    if (r2 == 0)
        r2 = show_session_parser_finish(p, &b, &e2);
    show_session_parser_free(p);
    FUZZ_CHECK((r1 == 0) == (r2 == 0), "chunk %zu: one read %s, the other %s", chunk, r1 ? e1.message : "succeeded",
               r2 ? e2.message : "succeeded");
    if (r1) {
        memcpy(e2.message, e1.message, sizeof e2.message);
        fuzz_check_same_error(&e1, &e2, "whole vs chunked");
    } else {
        FUZZ_CHECK(digest(a) == digest(b), "chunk %zu: the results differ", chunk);
        run_gaps(a);
    }
    show_session_free(a);
    show_session_free(b);
    return 0;
}
