/* fuzz_kineto — libFuzzer target for the PyTorch/Kineto trace reader (analyzers/readers/kineto.c) through
 * kineto_read_mem, plain JSON or gzip (an input starting 1f 8b is inflated).
 *
 * Three reads of the input must agree, besides the sanitizers: the default read size; a small read size
 * from the input's hash (the tokenizer and the inflater meet every chunk boundary) — the same model
 * (every events cell, the string table, notes, processes, threads, devices, logs, layout, partial and its
 * error code, offset and record; the JSON byte count of a whole model) or the same error code and offset;
 * and a strict read, which must fail with the error a partial model carries, or succeed with the same
 * model when the model is whole. A model that loads is summarized (framework_summary_compute). Not
 * compared across read sizes: error messages, whose excerpt shows the bytes read so far, and the JSON
 * byte count of a partial model (the bytes read, not parsed, before the stop).
 *
 * fuzz-max-len: 32768
 * fuzz-seeds: kineto:samples/kineto:*.json.gz kineto:samples/kineto-multirank:*.json.gz kineto:gen:trace.json
 * fuzz-seeds: raw:samples/kineto:compare_base.json.gz
 * fuzz-dict: json.dict */
#include <stdint.h>
#include <string.h>

#include "framework_summary.h"
#include "fuzz_common.h"
#include "kineto.h"

static uint64_t model_digest(const framework_model *m)
{
    const strtab *st = framework_model_strings(m);
    uint64_t h = fuzz_hash_table(FUZZ_HASH_INIT, framework_model_events(m), st);
    uint32_t n = strtab_count(st);
    h = fuzz_hash_u64(h, n);
    for (uint32_t id = 0; id < n; id++) {
        size_t len = 0;
        const char *s = strtab_str(st, id, &len);
        h = fuzz_hash(fuzz_hash_u64(h, len), s, len);
    }
    for (size_t i = 0; i < framework_model_note_count(m); i++) {
        const framework_model_note *note = framework_model_note_at(m, i);
        h = fuzz_hash_u64(fuzz_hash_u64(fuzz_hash_u64(fuzz_hash_u64(h, note->kind), note->name), note->count),
                          (uint64_t)note->first_offset);
    }
    for (size_t i = 0; i < framework_model_process_count(m); i++) {
        const framework_model_process *p = framework_model_process_at(m, i);
        h = fuzz_hash_u64(fuzz_hash_u64(fuzz_hash_u64(h, p->pid), p->name), p->events + ((uint64_t)p->device << 56));
    }
    for (size_t i = 0; i < framework_model_thread_count(m); i++) {
        const framework_model_thread *t = framework_model_thread_at(m, i);
        h = fuzz_hash_u64(fuzz_hash_u64(fuzz_hash_u64(h, t->pid), t->tid), t->events + ((uint64_t)t->name << 40));
    }
    int64_t base = 0;
    h = fuzz_hash_u64(h, (uint64_t)framework_model_time_base(m, &base));
    h = fuzz_hash_u64(h, (uint64_t)base);
    h = fuzz_hash_u64(h, framework_model_device_count(m));
    h = fuzz_hash_u64(h, framework_model_log_count(m, true) * 31 + framework_model_log_count(m, false));
    h = fuzz_hash_u64(h, (uint64_t)framework_model_layout_of(m) * 2 + framework_model_gzipped(m));
    nl_error why;
    if (!framework_model_partial(m, &why))
        h = fuzz_hash_u64(h, framework_model_json_bytes(m));
    return h;
}

/* Code, offset, record and field (the message's excerpt depends on the read size). */
static void same_code_and_offset(const nl_error *a, const nl_error *b, const char *what)
{
    nl_error x = *b;
    memcpy(x.message, a->message, sizeof x.message);
    fuzz_check_same_error(a, &x, what);
}

static framework_model *read_with(const uint8_t *data, size_t size, const kineto_options *opt, nl_error *err)
{
    framework_model *m = NULL;
    int rc = kineto_read_mem(data, size, "fuzz.json", opt, &m, err);
    FUZZ_CHECK((rc == 0) == (m != NULL), "rc %d with model %p", rc, (void *)m);
    return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fuzz_hash(FUZZ_HASH_INIT, data, size);
    kineto_options whole = {0}, chunked = {.read_size = 1 + (size_t)(h % 89)}, strict = {.strict = true};
    nl_error e1, e2, e3, why;
    framework_model *m1 = read_with(data, size, &whole, &e1);
    framework_model *m2 = read_with(data, size, &chunked, &e2);
    FUZZ_CHECK(!m1 == !m2, "read size %zu: one read %s, the other %s", chunked.read_size, m1 ? "succeeded" : e1.message,
               m2 ? "succeeded" : e2.message);
    if (!m1) {
        same_code_and_offset(&e1, &e2, "default vs small read size");
    } else {
        FUZZ_CHECK(model_digest(m1) == model_digest(m2), "read size %zu: the models differ", chunked.read_size);
        int p1 = framework_model_partial(m1, &why), p2 = framework_model_partial(m2, &e2);
        FUZZ_CHECK(p1 == p2, "partial %d vs %d", p1, p2);
        if (p1)
            same_code_and_offset(&why, &e2, "the partial models' errors");
    }
    framework_model_free(m2);

    framework_model *m3 = read_with(data, size, &strict, &e3);
    if (!m1)
        fuzz_check_same_error(&e1, &e3, "lenient vs strict failure");
    else if (framework_model_partial(m1, &why))
        FUZZ_CHECK(!m3 && why.code == e3.code && why.offset == e3.offset, "strict read of a partial model: %s (%s)",
                   m3 ? "succeeded" : e3.message, why.message);
    else
        FUZZ_CHECK(m3 && model_digest(m1) == model_digest(m3), "strict read of a whole model: %s",
                   m3 ? "a different model" : e3.message);
    framework_model_free(m3);

    if (m1) {
        framework_summary fs;
        nl_error es;
        FUZZ_CHECK(framework_summary_compute(m1, NULL, &fs, &es) == 0, "framework_summary: %s", es.message);
        framework_summary_free(&fs);
    }
    framework_model_free(m1);
    return 0;
}
