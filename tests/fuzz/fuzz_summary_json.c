/* fuzz_summary_json — libFuzzer target for the summary-json reader (analyzers/readers/summary_json.c)
 * through summary_json_read_mem. The input is the file.
 *
 * Beyond the sanitizers: a result keeps its cap and every profile has a name and a metrics list, which goes
 * through device_summary_from_record, as the summary tool does with a summary-json file; a failure names a
 * code and an offset inside the input.
 *
 * fuzz-max-len: 16384
 * fuzz-seeds: raw:gen:summary_nc0.json export:samples/neuron-profile-json:*.json
 * fuzz-dict: json.dict */
#include <stdint.h>
#include <string.h>

#include "device_summary.h"
#include "fuzz_common.h"
#include "summary_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    summary_json *s = NULL;
    nl_error err;
    if (summary_json_read_mem(data, size, "fuzz.json", &s, &err)) {
        FUZZ_CHECK(s == NULL && err.code != NL_OK && err.offset >= -1 && err.offset <= (int64_t)size,
                   "failure code %d offset %lld", (int)err.code, (long long)err.offset);
        return 0;
    }
    size_t n = summary_json_count(s);
    FUZZ_CHECK(n <= SUMMARY_JSON_PROFILES_MAX, "%zu profiles", n);
    for (size_t i = 0; i < n; i++) {
        const kvlist *m = summary_json_metrics(s, i);
        FUZZ_CHECK(summary_json_name(s, i) != NULL && m != NULL, "profile %zu", i);
        device_summary ds;
        device_summary_from_record(m, &ds);
    }
    summary_json_free(s);
    return 0;
}
