/* fuzz_common — what every libFuzzer target in tests/fuzz shares: the entry point's prototypes, a check that
 * aborts with a message (an oracle failure becomes a crash libFuzzer reports and saves), a byte digest for
 * comparing two readings of one input, and an error comparison.
 *
 * A target is one file fuzz_<name>.c defining LLVMFuzzerTestOneInput (plus, optionally,
 * LLVMFuzzerInitialize) and one line in tests/fuzz/meson.build. The same file is compiled twice: with
 * -fsanitize=fuzzer in a -Dfuzz=true build (the fuzzer), and with replay_main.c in every other build (a
 * meson test that runs the committed corpus through it). Its header comment carries the lines run.py reads:
 *   fuzz-max-len: <bytes>       the -max_len of the target
 *   fuzz-seeds: <kind>:<dir>:<pattern>…  seed files made at run time from the files named <pattern> anywhere
 *                               below <dir>, which starts with samples (NL_SAMPLES_DIR) or gen (the output of
 *                               bench's nl-gen-profile); run.py describes the kinds
 *   fuzz-dict: <file>           optional libFuzzer dictionary in tests/fuzz/dict/
 * Targets have no mutable global state except what libFuzzer's one-process model forces (documented where
 * used). Threads: the targets may start threads (the readers do); each input is finished, joined and freed
 * before LLVMFuzzerTestOneInput returns, so leak detection sees every input on its own. */
#ifndef NL_FUZZ_COMMON_H
#define NL_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_error.h"
#include "strtab.h"
#include "table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An oracle failure: print what differs and abort (libFuzzer saves the input as a crash). */
#define FUZZ_CHECK(cond, ...)                                                                                    \
    do {                                                                                                         \
        if (!(cond)) {                                                                                           \
            fprintf(stderr, "fuzz check failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond);                  \
            fprintf(stderr, __VA_ARGS__);                                                                        \
            fputc('\n', stderr);                                                                                 \
            abort();                                                                                             \
        }                                                                                                        \
    } while (0)

/* FNV-1a over bytes, chained: digest = fuzz_hash(digest, p, n). Start from FUZZ_HASH_INIT. */
#define FUZZ_HASH_INIT 0xcbf29ce484222325ull
static inline uint64_t fuzz_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static inline uint64_t fuzz_hash_u64(uint64_t h, uint64_t v)
{
    return fuzz_hash(h, &v, sizeof v);
}

/* Every cell of `t`, strings by their bytes in `st` (so two models with different ids but equal text
 * digest alike only if every other cell matches too). */
static inline uint64_t fuzz_hash_table(uint64_t h, const table *t, const strtab *st)
{
    if (!t)
        return fuzz_hash_u64(h, 0xdeadull);
    size_t rows = table_rows(t);
    uint32_t ncols = table_ncols(t);
    h = fuzz_hash_u64(fuzz_hash_u64(h, rows), ncols);
    for (uint32_t c = 0; c < ncols; c++) {
        table_kind kind = table_column_at(t, c)->kind;
        for (size_t r = 0; r < rows; r++) {
            table_value v;
            table_read(t, c, r, 1, &v);
            if (kind == TABLE_STR) {
                size_t len = 0;
                const char *s = strtab_str(st, v.s, &len);
                h = fuzz_hash(fuzz_hash_u64(h, len), s, s ? len : 0);
            } else {
                h = fuzz_hash(h, &v, sizeof v); /* the union's 8 bytes: i, u or the double's bits */
            }
        }
    }
    return h;
}

/* Two readings of one input failed the same way: code, offset, record, field and message. */
static inline void fuzz_check_same_error(const nl_error *a, const nl_error *b, const char *what)
{
    FUZZ_CHECK(a->code == b->code && a->offset == b->offset && a->record == b->record &&
                   !strcmp(a->field, b->field) && !strcmp(a->message, b->message),
               "%s: error %d @%lld rec %lld [%s] (%s) vs %d @%lld rec %lld [%s] (%s)", what, (int)a->code,
               (long long)a->offset, (long long)a->record, a->field, a->message, (int)b->code, (long long)b->offset,
               (long long)b->record, b->field, b->message);
}

#endif
