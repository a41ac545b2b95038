/* catalog_ready — what each profile can answer, and which profile a call is about.
 *
 * Readiness (per profile, per analysis) is decided here once, from what the scan established, so that every
 * tool and orient's suggested calls agree:
 *   device with a complete full JSON export      summary, trace-extract, kernel-attribution: ready
 *   device with an export that is cut off        those three: unsupported (the export ends inside the document)
 *   device with an NTFF only                     those three: ready (the payload is decoded natively for NTFF
 *                                                versions 4-6; other versions: unsupported)
 *   device whose NTFF failed its format check    everything: unsupported, with the check's message
 *   device, collective-gaps                      ready with a show-session --show-trace dump of it; else
 *                                                needs_export with its NTFF (neuron-profile show-session makes the
 *                                                dump); an export alone: unsupported (no trigger events in it)
 *   system profile / framework trace             summary, trace-extract, collective-gaps: ready;
 *                                                kernel-attribution: unsupported (no device instructions)
 *   summary-json                                 summary: ready; the rest: unsupported (totals only)
 *   show-session dump                            collective-gaps: ready for a text dump, unsupported for -j
 *                                                (no collectives trace); the rest: unsupported
 *   Parquet directory                            summary, trace-extract, kernel-attribution: ready; collective-gaps:
 *                                                ready when a CcOp or CcInstruction table is there
 *   allocator snapshot                           summary: ready; the rest: unsupported
 *   program (a NEFF no NTFF pairs with)          summary: ready (what the NEFF says statically); the rest:
 *                                                unsupported (no run)
 * Choosing (nl_catalog_choose): the id asked for, or the only profile the analysis can read, or the only
 * profile there is; every failure is one sentence that lists the profiles with their kinds, worded the same
 * for every tool. */
#include "catalog_internal.h"
#include "ntff_payload.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *nl_profile_kind_family(nl_profile_kind kind)
{
    switch (kind) {
    case NL_PROFILE_SYSTEM: return "system";
    case NL_PROFILE_FRAMEWORK: return "framework";
    case NL_PROFILE_SHOW_SESSION: return "show_session";
    case NL_PROFILE_MEMORY: return "memory";
    case NL_PROFILE_PROGRAM: return "program";
    default: return "device";
    }
}

const char *nl_profile_kind_name(nl_profile_kind kind)
{
    static const char *const names[NL_PROFILE_KIND_COUNT] = {
        [NL_PROFILE_DEVICE] = "ntff",           [NL_PROFILE_EXPORT_ONLY] = "json_export",
        [NL_PROFILE_SYSTEM] = "system",         [NL_PROFILE_FRAMEWORK] = "framework",
        [NL_PROFILE_SUMMARY_JSON] = "summary_json", [NL_PROFILE_SHOW_SESSION] = "show_session",
        [NL_PROFILE_PARQUET_DIR] = "parquet",    [NL_PROFILE_MEMORY] = "memory_snapshot",
        [NL_PROFILE_PROGRAM] = "neff",
    };
    return (unsigned)kind < NL_PROFILE_KIND_COUNT ? names[kind] : "invalid";
}

const char *nl_analysis_name(nl_analysis a)
{
    static const char *const names[NL_ANALYSIS_COUNT] = {"summary", "trace-extract", "kernel-attribution",
                                                         "collective-gaps"};
    return (unsigned)a < NL_ANALYSIS_COUNT ? names[a] : "invalid";
}

const char *nl_readiness_name(nl_readiness r)
{
    switch (r) {
    case NL_READY: return "ready";
    case NL_NEEDS_EXPORT: return "needs_export";
    case NL_UNSUPPORTED: return "unsupported";
    }
    return "invalid";
}

/* How a profile is named in lists: its family, with the source where the family alone would mislead. */
static const char *ready_kind_label(const nl_catalog_profile *p)
{
    switch (p->kind) {
    case NL_PROFILE_SUMMARY_JSON: return "device, summary-json";
    case NL_PROFILE_PARQUET_DIR: return "device, parquet tables";
    case NL_PROFILE_SHOW_SESSION: return "show-session dump";
    case NL_PROFILE_MEMORY: return "memory snapshot";
    case NL_PROFILE_PROGRAM: return "program, NEFF without a trace";
    case NL_PROFILE_DEVICE: return p->json_export >= 0 ? "device" : "device, NTFF only";
    default: return nl_profile_kind_family(p->kind);
    }
}

/* ---- readiness -------------------------------------------------------------------------------------- */

static void ready_set(nl_catalog_profile *p, nl_analysis a, nl_readiness state, const char *reason, const char *fix)
{
    p->analyses[a] = (nl_profile_readiness){state, reason, fix, false};
}

static void ready_all(nl_catalog_profile *p, nl_readiness state, const char *reason, const char *fix)
{
    for (int a = 0; a < NL_ANALYSIS_COUNT; a++)
        ready_set(p, (nl_analysis)a, state, reason, fix);
}

/* The message of the bad-header note about file `f`, or NULL. */
static const nl_catalog_note *ready_bad_header(const nl_catalog *cat, const nl_catalog_file *f)
{
    for (size_t i = 0; i < cat->note_count; i++)
        if (cat->notes[i].code == NL_NOTE_BAD_HEADER && cat->notes[i].path && !strcmp(cat->notes[i].path, f->rel_path))
            return &cat->notes[i];
    return NULL;
}

static void ready_device_rows(nl_catalog *cat, nl_catalog_profile *p)
{
    static const nl_analysis rows[] = {NL_ANALYSIS_SUMMARY, NL_ANALYSIS_TRACE_EXTRACT, NL_ANALYSIS_KERNEL_ATTRIBUTION};
    nl_readiness state = NL_READY;
    const char *reason = NULL, *fix = NULL;
    bool broken = false;
    if (p->json_export >= 0 && !p->export_complete) {
        state = NL_UNSUPPORTED;
        broken = true;
        reason = catalog_printf(cat, "the export %s is cut off at byte %llu (it ends inside the JSON document, not "
                                "with its closing '}')", cat->files[p->json_export].rel_path,
                                (unsigned long long)cat->files[p->json_export].size);
        fix = "export again (neuron-profile view --output-format json) and copy the whole file";
    } else if (p->json_export < 0) {
        uint8_t v = cat->files[p->ntff].ntff_version;
        if (!cat->files[p->ntff].ntff_payload) {
            state = NL_UNSUPPORTED;
            reason = "the NTFF holds no device trace to decode (no payload, or no per-core message laying one out)";
            fix = "capture only the cores that run; an NTFF is empty when a core was set up but not used";
        } else if (v < NL_NTFF_PAYLOAD_VERSION_MIN || v > NL_NTFF_PAYLOAD_VERSION_MAX) {
            state = NL_UNSUPPORTED;
            reason = catalog_printf(cat, "the NTFF is version %u: its payload is decoded natively for versions %d to %d "
                                    "only", v, NL_NTFF_PAYLOAD_VERSION_MIN, NL_NTFF_PAYLOAD_VERSION_MAX);
            fix = catalog_printf(cat, "export it with the neuron-profile that wrote it: neuron-profile view%s%s -s %s "
                                 "--output-format json", p->neff >= 0 ? " -n " : "",
                                 p->neff >= 0 ? cat->files[p->neff].rel_path : "", cat->files[p->ntff].rel_path);
        }
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ready_set(p, rows[i], state, reason, fix);
        p->analyses[rows[i]].broken = broken;
    }
    if (p->dump >= 0)
        ready_set(p, NL_ANALYSIS_COLLECTIVE_GAPS, NL_READY, NULL, NULL);
    else if (p->ntff >= 0 && !cat->files[p->ntff].ntff_payload)
        ready_set(p, NL_ANALYSIS_COLLECTIVE_GAPS, NL_UNSUPPORTED, "the NTFF holds no device trace, so no collectives",
                  "capture only the cores that run; an NTFF is empty when a core was set up but not used");
    else if (p->ntff >= 0)
        ready_set(p, NL_ANALYSIS_COLLECTIVE_GAPS, NL_NEEDS_EXPORT,
                  "no show-session --show-trace dump of this profile is here: the collectives trace is in the NTFF, "
                  "which neuron-profile show-session decodes",
                  catalog_printf(cat, "run neuron-profile show-session -s %s --show-trace > %.*s.show_session.txt next to "
                                 "it", cat->files[p->ntff].rel_path,
                                 (int)strcspn(catalog_basename(cat->files[p->ntff].rel_path), "."),
                                 catalog_basename(cat->files[p->ntff].rel_path)));
    else
        ready_set(p, NL_ANALYSIS_COLLECTIVE_GAPS, NL_UNSUPPORTED,
                  "the full JSON export carries no collective trigger events, and no NTFF or show-session dump of this "
                  "profile is here", "put the profile's NTFF (or its show-session --show-trace dump) next to the export");
}

/* A neuron-explorer Parquet directory: every table must pass its footer check, the rows need the
 * Instruction table, collective-gaps the CcOp/CcInstruction tables. */
static void ready_parquet(nl_catalog *cat, nl_catalog_profile *p)
{
    if (p->bad_table >= 0) {
        const nl_catalog_file *f = &cat->files[p->bad_table];
        const nl_catalog_note *bad = ready_bad_header(cat, f);
        ready_all(p, NL_UNSUPPORTED,
                  bad ? catalog_printf(cat, "%s failed its format check: %s", f->rel_path, bad->message)
                      : catalog_printf(cat, "%s could not be read", f->rel_path),
                  "export the profile again with neuron-explorer and copy every table whole");
        for (int a = 0; a < NL_ANALYSIS_COUNT; a++)
            p->analyses[a].broken = true;
        return;
    }
    if (p->instruction_table)
        ready_all(p, NL_READY, NULL, NULL);
    else
        ready_all(p, NL_UNSUPPORTED, "the directory has no Instruction table (Instruction.parquet or its "
                  "Instruction_<N> parts): the analyses read the device's instruction rows",
                  "copy the whole neuron-explorer output directory, Instruction table included");
    if (!p->cc_tables)
        ready_set(p, NL_ANALYSIS_COLLECTIVE_GAPS, NL_UNSUPPORTED, "the profile has no CcOp or CcInstruction table: "
                  "neuron-explorer writes them only when collectives ran", "capture a multi-core (TP > 1) run, or "
                  "use the capture's system profile (cc_running spans)");
}

static void ready_device(nl_catalog *cat, nl_catalog_profile *p)
{
    const nl_catalog_file *main = &cat->files[p->file];
    const nl_catalog_note *bad = main->valid ? NULL : ready_bad_header(cat, main);
    if (!main->valid && p->json_export < 0) {
        ready_all(p, NL_UNSUPPORTED,
                  bad ? catalog_printf(cat, "%s failed its format check: %s", main->rel_path, bad->message)
                      : catalog_printf(cat, "%s could not be read", main->rel_path),
                  bad && bad->fix ? bad->fix : "copy the file again from the capture");
        for (int a = 0; a < NL_ANALYSIS_COUNT; a++)
            p->analyses[a].broken = true;
        return;
    }
    ready_device_rows(cat, p);
}

static void ready_host(nl_catalog *cat, nl_catalog_profile *p)
{
    ready_all(p, NL_READY, NULL, NULL);
    const char *device = NULL; /* the rank's device profile, for the fix */
    for (size_t k = 0; k < cat->profile_count && !device; k++)
        if (cat->profiles[k].kind == NL_PROFILE_DEVICE && p->rank >= 0 && cat->profiles[k].rank == p->rank)
            device = cat->profiles[k].id;
    ready_set(p, NL_ANALYSIS_KERNEL_ATTRIBUTION, NL_UNSUPPORTED,
              p->kind == NL_PROFILE_SYSTEM ? "a system profile holds runtime and hardware spans, not device instructions"
                                           : "a PyTorch trace holds framework events, not device instructions",
              device ? catalog_printf(cat, "call kernel-attribution with profile %s (the rank's device profile)", device)
                     : "call kernel-attribution on a device profile (an NTFF with its JSON export)");
}

static void ready_profile(nl_catalog *cat, nl_catalog_profile *p)
{
    switch (p->kind) {
    case NL_PROFILE_DEVICE:
    case NL_PROFILE_EXPORT_ONLY: ready_device(cat, p); return;
    case NL_PROFILE_SYSTEM:
    case NL_PROFILE_FRAMEWORK: ready_host(cat, p); return;
    case NL_PROFILE_SUMMARY_JSON:
        ready_all(p, NL_UNSUPPORTED, "summary-json carries the profile's totals only, no rows",
                  "export the full JSON (neuron-profile view --output-format json) for rows");
        ready_set(p, NL_ANALYSIS_SUMMARY, NL_READY, NULL, NULL);
        return;
    case NL_PROFILE_SHOW_SESSION: {
        bool json = cat->files[p->file].kind == NL_FILE_SHOW_SESSION_JSON;
        ready_all(p, NL_UNSUPPORTED, "a show-session dump holds per-core collective traces and cycle counts, not a "
                  "device profile's rows", "call collective-gaps on the dump; the other analyses need the NTFF's JSON "
                  "export");
        if (json)
            ready_set(p, NL_ANALYSIS_COLLECTIVE_GAPS, NL_UNSUPPORTED, "a show-session -j dump holds per-core cycle "
                      "counts, not the collectives trace", "run neuron-profile show-session -s <file.ntff> --show-trace "
                      "(text, without -j)");
        else
            ready_set(p, NL_ANALYSIS_COLLECTIVE_GAPS, NL_READY, NULL, NULL);
        return;
    }
    case NL_PROFILE_PARQUET_DIR:
        ready_parquet(cat, p);
        return;
    case NL_PROFILE_MEMORY:
        ready_all(p, NL_UNSUPPORTED, "an allocator snapshot holds memory segments, blocks and allocation events, not "
                  "a device timeline or collectives", "call summary or trace-extract (kind memory) on the snapshot; for "
                  "the device timeline use the rank's device profile");
        ready_set(p, NL_ANALYSIS_SUMMARY, NL_READY, NULL, NULL);
        ready_set(p, NL_ANALYSIS_TRACE_EXTRACT, NL_READY, NULL, NULL);
        return;
    case NL_PROFILE_PROGRAM:
        ready_all(p, NL_UNSUPPORTED, "a NEFF is the compiled program: it holds no trace of a run (no times, waits or "
                  "collectives)", "capture a device profile of it (NEURON_RT_INSPECT_ENABLE=1, or neuron-profile "
                  "capture -n <file.neff>) and put the NTFF beside it; summary reads what the NEFF says by itself");
        ready_set(p, NL_ANALYSIS_SUMMARY, NL_READY, NULL, NULL);
        return;
    default: return;
    }
}

void catalog_readiness(nl_catalog *cat)
{
    for (size_t k = 0; k < cat->profile_count; k++)
        ready_profile(cat, &cat->profiles[k]);
}

/* ---- choosing -------------------------------------------------------------------------------------- */

/* Append printf text to out (bounded; a cut keeps the string terminated). */
__attribute__((format(printf, 3, 4)))
static void choose_append(char *out, size_t cap, const char *fmt, ...)
{
    size_t used = strlen(out);
    if (used + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + used, cap - used, fmt, ap);
    va_end(ap);
}

/* "a (device), b (system), ... and N more (see orient)" of every profile; with `why`, each profile's reason
 * the analysis cannot read it is added after its kind. */
static void choose_list(const nl_catalog *cat, nl_analysis a, bool why, char *out, size_t cap)
{
    size_t shown = 0;
    for (size_t k = 0; k < cat->profile_count; k++) {
        const nl_catalog_profile *p = &cat->profiles[k];
        if (shown == NL_CHOICE_LISTED) {
            choose_append(out, cap, " and %zu more (see orient)", cat->profile_count - shown);
            return;
        }
        const char *reason = why ? p->analyses[a].reason : NULL;
        choose_append(out, cap, "%s%s (%s%s%s)", shown ? ", " : "", p->id, ready_kind_label(p), reason ? ": " : "",
                      reason ? reason : "");
        shown++;
    }
}

/* "b (system), c (framework)" of every profile but `p`. */
static void choose_list_others(const nl_catalog *cat, const nl_catalog_profile *p, char *out, size_t cap)
{
    size_t shown = 0;
    for (size_t k = 0; k < cat->profile_count && shown < NL_CHOICE_LISTED; k++)
        if (&cat->profiles[k] != p)
            choose_append(out, cap, "%s%s (%s)", shown++ ? ", " : "", cat->profiles[k].id,
                          ready_kind_label(&cat->profiles[k]));
    if (cat->profile_count - 1 > shown)
        choose_append(out, cap, " and %zu more", cat->profile_count - 1 - shown);
}

/* "@core<digits>" at s: the number, else -1. */
static int64_t choose_core_suffix(const char *s)
{
    if (strncmp(s, "@core", 5) || !s[5] || strlen(s + 5) > 9)
        return -1;
    int64_t v = 0;
    for (const char *d = s + 5; *d; d++) {
        if (*d < '0' || *d > '9')
            return -1;
        v = v * 10 + (*d - '0');
    }
    return v;
}

static bool choose_id_matches(const nl_catalog_profile *p, const char *wanted, int64_t *core)
{
    size_t n = strlen(p->id);
    *core = -1;
    if (strncmp(wanted, p->id, n))
        return false;
    if (!wanted[n])
        return true;
    if (p->kind == NL_PROFILE_SUMMARY_JSON && wanted[n] == '#')
        return true;
    return p->ntff >= 0 && (*core = choose_core_suffix(wanted + n)) >= 0;
}

static int choose_found(const nl_catalog *cat, const nl_catalog_profile *p, nl_analysis a, nl_choice *out)
{
    out->profile = p;
    const nl_profile_readiness *r = &p->analyses[a];
    if (r->state != NL_UNSUPPORTED)
        return 0;
    out->status = NL_CHOICE_UNSUPPORTED;
    snprintf(out->message, sizeof out->message, "%s cannot answer for profile %s (%s): %s.%s%s%s", nl_analysis_name(a),
             p->id, ready_kind_label(p), r->reason ? r->reason : "not supported", r->fix ? " Fix: " : "",
             r->fix ? r->fix : "", r->fix ? "." : "");
    (void)cat;
    return -1;
}

static bool choose_in_family(const nl_catalog_profile *p, const char *family)
{
    return !family || !strcmp(nl_profile_kind_family(p->kind), family);
}

/* The profile the call means without an id: the only one ready, else the only one needing an export. */
static const nl_catalog_profile *choose_only(const nl_catalog *cat, nl_analysis a, const char *family, size_t *usable)
{
    const nl_catalog_profile *only[2] = {NULL, NULL};
    size_t count[2] = {0, 0};
    for (size_t k = 0; k < cat->profile_count; k++) {
        const nl_catalog_profile *p = &cat->profiles[k];
        nl_readiness st = p->analyses[a].state;
        if (st == NL_UNSUPPORTED || !choose_in_family(p, family))
            continue;
        int tier = st == NL_READY ? 0 : 1;
        only[tier] = p;
        count[tier]++;
    }
    *usable = count[0] + count[1];
    if (count[0] == 1)
        return only[0];
    return count[0] == 0 && count[1] == 1 ? only[1] : NULL;
}

static size_t choose_family_count(const nl_catalog *cat, const char *family, const nl_catalog_profile **one)
{
    size_t n = 0;
    for (size_t k = 0; k < cat->profile_count; k++)
        if (choose_in_family(&cat->profiles[k], family)) {
            *one = &cat->profiles[k];
            n++;
        }
    return n;
}

static int choose_by_id(const nl_catalog *cat, const char *wanted, nl_analysis analysis, const char *family,
                        const char *because, nl_choice *out)
{
    const char *root = nl_catalog_root(cat);
    for (size_t k = 0; k < cat->profile_count; k++) {
        const nl_catalog_profile *p = &cat->profiles[k];
        int64_t core;
        if (!choose_id_matches(p, wanted, &core))
            continue;
        out->core = core;
        if (choose_in_family(p, family))
            return choose_found(cat, p, analysis, out);
        out->status = NL_CHOICE_UNKNOWN;
        snprintf(out->message, sizeof out->message, "Invalid argument profile: '%s' at %s is a %s profile, not a %s "
                 "profile%s%s. Profiles there: ", wanted, root, nl_profile_kind_family(p->kind), family,
                 because ? " as " : "", because ? because : "");
        choose_list(cat, analysis, false, out->message, sizeof out->message);
        choose_append(out->message, sizeof out->message, ".");
        return -1;
    }
    out->status = NL_CHOICE_UNKNOWN;
    snprintf(out->message, sizeof out->message, "Invalid argument profile: no profile '%s' at %s. Profiles there: ",
             wanted, root);
    if (cat->profile_count)
        choose_list(cat, analysis, false, out->message, sizeof out->message);
    else
        choose_append(out->message, sizeof out->message, "none");
    choose_append(out->message, sizeof out->message, ".");
    return -1;
}

int nl_catalog_choose(const nl_catalog *cat, const char *wanted, nl_analysis analysis, const char *family,
                      const char *because, nl_choice *out)
{
    memset(out, 0, sizeof *out);
    out->core = -1;
    const char *root = nl_catalog_root(cat);
    if (wanted)
        return choose_by_id(cat, wanted, analysis, family, because, out);
    size_t usable;
    const nl_catalog_profile *p = choose_only(cat, analysis, family, &usable), *one = NULL;
    if (p && cat->profile_count > 1) {
        snprintf(out->note, sizeof out->note, "no profile was named: %s is the only profile at %s that %s can answer "
                 "now; the path also holds: ", p->id, root, nl_analysis_name(analysis));
        choose_list_others(cat, p, out->note, sizeof out->note);
    }
    if (p)
        return choose_found(cat, p, analysis, out);
    size_t in_family = choose_family_count(cat, family, &one);
    if (!usable && in_family == 1)
        return choose_found(cat, one, analysis, out);
    if (usable > 1) {
        out->status = NL_CHOICE_AMBIGUOUS;
        snprintf(out->message, sizeof out->message, "%s holds %zu profiles; pass \"profile\" with one of: ", root,
                 cat->profile_count);
        choose_list(cat, analysis, false, out->message, sizeof out->message);
        choose_append(out->message, sizeof out->message, ".");
        return -1;
    }
    out->status = NL_CHOICE_NONE;
    if (!cat->profile_count) {
        snprintf(out->message, sizeof out->message, "No Neuron or PyTorch profile found at %s. Call orient on the path "
                 "to see what it holds.", root);
        return -1;
    }
    if (family && !in_family) {
        snprintf(out->message, sizeof out->message, "No %s profile at %s%s%s. Profiles there: ", family, root,
                 because ? " for " : "", because ? because : "");
        choose_list(cat, analysis, false, out->message, sizeof out->message);
        choose_append(out->message, sizeof out->message, ".");
        return -1;
    }
    snprintf(out->message, sizeof out->message, "None of the %zu profiles at %s can be read by %s: ", cat->profile_count,
             root, nl_analysis_name(analysis));
    choose_list(cat, analysis, true, out->message, sizeof out->message);
    choose_append(out->message, sizeof out->message, ".");
    return -1;
}

size_t nl_catalog_profile_index(const nl_catalog *cat, const nl_catalog_profile *p)
{
    return (size_t)(p - cat->profiles);
}
