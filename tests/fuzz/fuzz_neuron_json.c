/* fuzz_neuron_json — libFuzzer target for the full JSON export reader (analyzers/readers/neuron_json.c) and
 * its split read (neuron_json_par.c, json_split.c), through neuron_json_read_mem.
 *
 * The input is an export. It is read four ways, which the reader promises give the same model (compared
 * value for value and id for id by tests/unit/model_compare.c) or the same error (code, offset, record,
 * field, message):
 *   1. sequentially (threads = 1), the whole buffer at once, records through json_stream_flat_object;
 *   2. sequentially, token by token (tokens_only), in reads of a size taken from the input's hash, so the
 *      tokenizer meets every chunk boundary;
 *   3. the same reads through the record fast path;
 *   4. split (threads = 2, split_min = 1, split_records = 1..3 from the hash), so every array with more
 *      than a record is cut into pieces parsed on a second thread and merged.
 * Only the error message of a read in small pieces may differ from the whole read's: its excerpt
 * ("near '...'") shows the bytes read so far. Reads 2 and 3 must agree on it too.
 * A model that loads is also summarized (device_summary_compute), so the analyses meet odd models too.
 *
 * fuzz-max-len: 32768
 * fuzz-seeds: export:samples/neuron-profile-json:*.json export:gen:profile_nc0.json raw:gen:summary_nc0.json
 * fuzz-dict: json.dict */
#include <stdint.h>
#include <string.h>

#include "device_summary.h"
#include "fuzz_common.h"
#include "model_compare.h"
#include "neuron_json.h"

static device_model *read_with(const uint8_t *data, size_t size, const neuron_json_options *opt, nl_error *err)
{
    device_model *m = NULL;
    int rc = neuron_json_read_mem(data, size, "fuzz.json", opt, &m, err);
    FUZZ_CHECK((rc == 0) == (m != NULL), "rc %d with model %p", rc, (void *)m);
    if (rc != 0)
        FUZZ_CHECK(err->code != NL_OK && err->offset >= -1 && err->offset <= (int64_t)size,
                   "a failure with code %d offset %lld (input %zu bytes)", (int)err->code, (long long)err->offset,
                   size);
    return m;
}

/* Same model, or the same error; `messages`: including the message (whose excerpt depends on the reads). */
static void same_result(const device_model *a, const nl_error *ea, const device_model *b, const nl_error *eb,
                        int messages, const char *what)
{
    FUZZ_CHECK(!a == !b, "%s: one read %s, the other %s", what, a ? "succeeded" : ea->message,
               b ? "succeeded" : eb->message);
    if (!a) {
        nl_error x = *eb;
        if (!messages)
            memcpy(x.message, ea->message, sizeof x.message);
        fuzz_check_same_error(ea, &x, what);
        return;
    }
    char why[512];
    FUZZ_CHECK(model_compare(a, b, why, sizeof why) == 0, "%s: models differ: %s", what, why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fuzz_hash(FUZZ_HASH_INIT, data, size);
    size_t read_size = 1 + (size_t)(h % 97);
    neuron_json_options whole = {.threads = 1, .read_size = size ? size : 1}; /* no 1 MiB buffer per input */
    neuron_json_options tokens = {.threads = 1, .tokens_only = 1, .read_size = read_size};
    neuron_json_options fast = {.threads = 1, .read_size = read_size};
    neuron_json_options split = {.threads = 2, .split_min = 1, .split_records = 1 + (size_t)((h >> 8) % 3)};
    nl_error e1, e2, e3, e4;
    device_model *m1 = read_with(data, size, &whole, &e1);
    device_model *m2 = read_with(data, size, &tokens, &e2);
    same_result(m1, &e1, m2, &e2, 0, "whole+fast vs chunked+tokens");
    device_model *m3 = read_with(data, size, &fast, &e3);
    same_result(m2, &e2, m3, &e3, 1, "chunked: tokens vs fast");
    device_model_free(m2);
    device_model_free(m3);
    device_model *m4 = read_with(data, size, &split, &e4);
    same_result(m1, &e1, m4, &e4, 1, "sequential vs split");
    device_model_free(m4);
    if (m1) {
        device_summary ds;
        nl_error es;
        FUZZ_CHECK(device_summary_compute(m1, NULL, &ds, &es) == 0, "device_summary: %s", es.message);
    }
    device_model_free(m1);
    return 0;
}
