/* select — the one way a tool turns {path, profile?} into a profile and its model, for every kind.
 *
 * nl_select_profile scans the path with the catalog (scan.h: wired to the model cache and the identity memo) and
 * asks nl_catalog_choose for the profile of the tool's analysis: the catalog decides which profiles exist,
 * their ids, their readiness and the wording of every "unknown", "ambiguous" or "cannot answer" message, so
 * the same folder reads the same in every tool. nl_select_load then reads the chosen profile's model through
 * the shared model cache (one typed reference, warm after the first call): a device profile from its full
 * JSON export — or, for an NTFF alone, from the export neuron-profile makes when it is installed and the
 * NTFF is small (NL_SELECT_ADAPTER_MAX_BYTES: the export carries what the payload does not), else from the
 * NTFF decoded natively (one physical core: the busiest, or the one "<id>@core<N>" names; its trust, version
 * and the fields it lacks go to data_quality) — a system profile from its .pb files, a framework trace from
 * its file, a show-session dump from its text. Any worker thread may call these; results are owned by the selection. */
#ifndef NL_SELECT_H
#define NL_SELECT_H

#include <jansson.h>
#include <stdbool.h>

#include "catalog.h"
#include "framework_model.h"
#include "model_cache.h"
#include "system_model.h"
#include "tools.h"

/* NTFFs up to this size are exported with neuron-profile when it is installed; larger ones (neuron-profile
 * takes over 30 minutes beyond 2 GB) and all of them without it are decoded natively. */
#define NL_SELECT_ADAPTER_MAX_BYTES ((uint64_t)64 << 20)

typedef struct nl_select {
    nl_catalog *cat;                   /* owned */
    const nl_catalog_profile *profile; /* borrowed from cat */
    nl_analysis analysis;
    nl_model_ref *model;               /* owned; NULL before nl_select_load and when it abstains */
    bool unsupported;                  /* the analysis cannot read this profile: abstain_* say why, nothing loads */
    int64_t core;                      /* the physical core "<id>@core<N>" asked for, -1 for the default */
    bool decoded;                      /* the device model was decoded from the NTFF itself (no export) */
    char *export_path;                 /* device: the export the model came from (malloc'd) */
    bool export_generated;             /* produced by neuron-profile for this call or earlier (cached) */
    char abstain_reason[1024];         /* why there is no model ("" when there is) */
    char abstain_fix[1024];
    json_t *data_quality;              /* owned array: catalog notes about the profile's files, adapter notes */
} nl_select;

/* Scan args.path and choose args.profile (or the only profile `analysis` can read). 0 with sel filled, or -1
 * after filling res with an isError result (path cannot be examined; the catalog's choice message; a chosen
 * profile whose file failed its format check). A chosen profile the analysis cannot read but that is valid
 * input (a system profile for kernel-attribution) is not an error: sel->unsupported is set with the reason
 * and fix in abstain_*, and the tool abstains. The selection must be cleared either way. */
int nl_select_profile(nl_call *call, const json_t *args, nl_analysis analysis, nl_select *sel, nl_tool_result *res);
/* The same among the profiles of one family (nl_catalog_choose's `family` and `because`), on a catalog the
 * caller scanned (taken: owned by sel afterwards, also on failure). */
int nl_select_profile_in(nl_call *call, nl_catalog *cat_take, const char *wanted, nl_analysis analysis,
                         const char *family, const char *because, nl_select *sel, nl_tool_result *res);
/* nl_select_profile among the profiles of one family. */
int nl_select_family(nl_call *call, const json_t *args, nl_analysis analysis, const char *family, const char *because,
                     nl_select *sel, nl_tool_result *res);
/* Read the chosen profile's model (see the header note). 0 with sel->model set, or 0 with sel->model NULL and
 * abstain_reason / abstain_fix set (a device profile whose export neuron-profile would make), or -1 with res
 * filled: a read error naming the file, the byte offset and what was expected, or "cancelled". */
int nl_select_load(nl_call *call, nl_select *sel, nl_tool_result *res);
void nl_select_clear(nl_select *sel);

/* {"id", "kind", ["source"], "rank", "core", ["process"], ["dir"]} of the chosen profile. */
json_t *nl_select_label(const nl_select *sel);
/* Where the loaded model came from, added to a result's provenance: the export file, or for an NTFF decoded
 * natively the decoder's trust (version, architecture, verified or not, core, time origin rule); and whether
 * the model came warm from the cache. */
void nl_select_model_provenance(const nl_select *sel, json_t *prov);
/* Data-quality entries of the selection (a new reference). */
json_t *nl_select_quality(const nl_select *sel);
/* Add the selection's data-quality entries that res's structured result does not carry yet (handlers that
 * build their own list from the model call this once the result is complete). */
void nl_select_merge_quality(const nl_select *sel, nl_tool_result *res);

/* ---- host-side models shared between tools ---------------------------------------------------------- */

/* The system profile of the capture directory a file sits in, or NULL. */
const nl_catalog_rank *nl_select_rank_system(const nl_catalog *cat, int rank);
/* The system model of `rank` / the framework model of `trace`, cached. A reference the caller releases, *out
 * borrowed while it is held; NULL with err (the reader's error; NL_ERR_CANCELLED). */
nl_model_ref *nl_select_load_system(nl_call *call, const nl_catalog *cat, const nl_catalog_rank *rank,
                                    const system_model **out, nl_error *err) __attribute__((warn_unused_result));
nl_model_ref *nl_select_load_framework(nl_call *call, const nl_catalog_file *trace, const framework_model **out,
                                       nl_error *err) __attribute__((warn_unused_result));
/* data_quality entries for a host model's reading problems (partial files, unpaired spans, no time base). */
void nl_select_quality_system(const system_model *m, json_t *arr);
void nl_select_quality_framework(const framework_model *m, json_t *arr);

#endif
