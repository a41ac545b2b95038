/* hlo_source — an instruction's source location ("file:line") from its hlo_attrs JSON text, the fallback
 * both device readers (neuron_json.c, explorer_parquet.c) use when an instruction carries neither
 * nki_source_location nor bir_debug_info_source_location, so the two formats attribute the same rows to the
 * same lines.
 *
 * hlo_attrs is a JSON array of objects (formats.md §4.5): `[{"op_type":…,"source_file":…,"source_line":"0"}]`.
 * The location is the first element with a non-empty source_file and a source_line other than "" or "0".
 * Texts that are not valid JSON give no location (the reader keeps the row). Results are memoized by the
 * text's strtab id: interned strings share ids, and an export repeats the same few hundred attrs texts.
 *
 * Owns: its JSON tokenizer, a scratch buffer and the id → location memo; the locations are interned in the
 * strtab given at creation (the model's). Threads: one reader thread. Errors: -1 with NL_ERR_NOMEM only. */
#ifndef NL_HLO_SOURCE_H
#define NL_HLO_SOURCE_H

#include <stdint.h>

#include "nl_error.h"
#include "strtab.h"

typedef struct hlo_source hlo_source;

/* A deriver interning into `strings` (borrowed; it must outlive the deriver). NULL with err on no memory. */
hlo_source *hlo_source_new(strtab *strings, nl_error *err);
void hlo_source_free(hlo_source *h);

/* The location named by the hlo_attrs text with strtab id `attrs` (0 = none): 0 and *src = its strtab id, or
 * 0 when the text names none; -1 with err when memory runs out. */
int hlo_source_of(hlo_source *h, uint32_t attrs, uint32_t *src, nl_error *err) __attribute__((warn_unused_result));

#endif
