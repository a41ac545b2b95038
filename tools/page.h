/* page — what the paged analysis tools (trace-extract, kernel-attribution) share: the byte budget a result
 * is built under, cursor tags that tie a cursor to its query, the device-profile envelope (profile, units,
 * provenance with export versions, data_quality) and the model caveats they report.
 *
 * Budget: a result is assembled piece by piece; page_meter counts the serialized size of each piece as
 * the server will write it (compact, as jsonrpc.c dumps) before it is added, so a list stops growing at
 * the budget instead of being cut after serialisation. All functions run on the calling worker thread;
 * json_t values returned are new references. */
#ifndef NL_PAGE_H
#define NL_PAGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "select.h"
#include "tools.h"

#define PAGE_BUDGET_DEFAULT 24576u /* bytes of one result unless max_bytes lowers it */
#define PAGE_TEXT_MAX 480u         /* longest text rendering (content[0].text) */
#define PAGE_WRAPPER_BYTES 96u     /* CallToolResult keys around structuredContent and the text */
#define PAGE_ROWS_DEFAULT 20u

/* min(max_bytes argument or PAGE_BUDGET_DEFAULT, the server's ceiling for this call). */
size_t page_budget(const json_t *args, const nl_call *call);
/* Serialized size of v as the server writes it. */
size_t page_json_size(const json_t *v);

typedef struct page_meter {
    size_t limit, used;
} page_meter;

/* Start counting with `base` (the result so far) plus the text and wrapper reserve. */
void page_meter_init(page_meter *pm, size_t limit, const json_t *base);
/* Count one more array element (its size plus a comma); false, counting nothing, when it would not fit. */
bool page_meter_take(page_meter *pm, const json_t *item);
/* Element i of a list being paged (a new reference), built on demand by page_meter_fill. */
typedef json_t *(*page_item_fn)(void *ctx, size_t i);
/* Append items 0..n-1 to `arr` while they fit; returns how many were added. When not even the first fits,
 * *first_size is its size (for the "narrow the request" error). */
size_t page_meter_fill(page_meter *pm, json_t *arr, size_t n, page_item_fn item, void *ctx, size_t *first_size);
/* Count a member "key": value added to an object. */
bool page_meter_take_member(page_meter *pm, const char *key, const json_t *value);

/* Whether a finished result (structured + text) fits `budget`; *size = its size. The last guard: lists were
 * already bounded while being built, so this fails only when the fixed parts alone exceed a small budget. */
bool page_fits(const json_t *structured, const char *text, size_t budget, size_t *size);

/* FNV-1a over a query description; cursor tag "<prefix><16 hex>". */
uint64_t page_fingerprint(const char *text);
void page_cursor_tag(char *out, size_t cap, const char *prefix, uint64_t fingerprint);

/* A JSON string of s; bytes that are not valid UTF-8 become '?' (model strings come from input files). */
json_t *page_string(const char *s);

/* {profile, units, provenance (+ export file, versions, cache state), data_quality} of a selection. */
json_t *page_envelope(const nl_select *sel, json_t *units_take);
/* The export's own warnings about DMA detail (DGE notifications), as data_quality entries in arr;
 * `unknown_variable`/`packets` (may be 0) add the share of DMA packets without a tensor name. */
void page_quality_dma(const device_model *m, uint64_t unknown_variable, uint64_t packets, json_t *arr);
/* The evt_wait double-count caveat. */
void page_quality_wait(json_t *arr);
/* No source location in the export: the fix. */
#define PAGE_SOURCE_FIX "Recompile with NEURON_FRAMEWORK_DEBUG=1 (BIR source locations) or NKI debug info, clear " \
    "cached NEFFs (they keep old metadata), and profile again."

#endif
