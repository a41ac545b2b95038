/* profile_select — turns a tool's {path, profile?} into one device profile and, when asked, its model.
 *
 * Scans the path with the catalog, picks the profile (the one given, or the only device profile),
 * and loads its full JSON export through the shared model cache. A profile with only NTFF(+NEFF) is
 * exported with neuron-profile when installed (export_adapter); otherwise the selection carries an
 * abstention (what is missing and the exact command to run on the Trainium host) while the catalog
 * facts stay available, so a tool can still report what is readable natively. */
#ifndef NL_PROFILE_SELECT_H
#define NL_PROFILE_SELECT_H

#include <jansson.h>
#include <stdbool.h>

#include "catalog.h"
#include "model_cache.h"
#include "tools.h"

typedef struct nl_selection {
    nl_catalog *cat;                   /* owned */
    const nl_catalog_profile *profile; /* borrowed from cat */
    nl_model_ref *model;               /* owned; NULL when not loaded (see abstain_*) */
    char *export_path;                 /* the export the model came from (malloc'd) */
    bool export_generated;             /* produced by neuron-profile for this call or earlier (cached) */
    char abstain_reason[512];          /* why there is no model ("" when there is) */
    char abstain_fix[1024];
    json_t *data_quality;              /* owned array: catalog notes about this profile, adapter notes */
} nl_selection;

/* Select (and, with want_model, load). Returns 0 with `sel` filled — check sel->model — or -1 after
 * filling `res` with an isError result (bad path, unknown/ambiguous profile, unreadable export). */
int nl_select_profile(nl_call *call, const json_t *args, bool want_model, nl_selection *sel, nl_tool_result *res);
/* Same with a catalog the caller already scanned for args.path (taken: freed with the selection). */
int nl_select_profile_in(nl_call *call, const json_t *args, nl_catalog *cat, bool want_model, nl_selection *sel,
                         nl_tool_result *res);
void nl_selection_clear(nl_selection *sel);

/* Data-quality entries of the selection (a new reference). */
json_t *nl_selection_quality(const nl_selection *sel);

#endif
