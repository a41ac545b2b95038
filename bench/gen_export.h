/* gen_export — writes one core's synthetic full JSON export (formats.md §4) and its summary-json
 * (§5.1), hand-formatted through gen_out (no JSON library: the export can be gigabytes).
 *
 * Owns: nothing; reads a built gen_core. Threads: any, one call per core at a time.
 * Errors: -1 when the file cannot be written (message in `err`), else 0. */
#ifndef NL_GEN_EXPORT_H
#define NL_GEN_EXPORT_H

#include <stdint.h>

#include "gen_model.h"
#include "gen_out.h"

#define GEN_SYNTHETIC_NAME "SYNTHETIC neuronlens demo"
#define GEN_NEFF_NAME "synthetic/neuronlens_decoder_step.neff"
#define GEN_SYNTHETIC_NOTE "synthetic data, not from a real device"

/* Write the full export to `path`; path NULL only counts. *bytes (nullable) receives the size. */
int gen_export_write(const gen_core *core, const char *path, uint64_t *bytes, gen_err *err)
    __attribute__((warn_unused_result));
/* Write `{"n_<40 hex>": {summary}}` to `path`. */
int gen_export_summary_json(const gen_core *core, const char *path, gen_err *err) __attribute__((warn_unused_result));
/* The summary-json key of this core, "n_" + 40 hex digits (dst >= 43 bytes). */
void gen_export_summary_key(const gen_core *core, char *dst);
/* The NEFF uuid and hash shared by all cores, 32 hex digits each (dst >= 33 bytes). */
void gen_export_neff_hex(uint64_t seed, int which, char *dst);

#endif
