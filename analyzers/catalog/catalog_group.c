/* catalog_group — turn the classified files into ranks and profiles (catalog.h has the id scheme).
 *
 * Steps, each over files in rel_path order so every choice is deterministic:
 *   1. ranks: a file belongs to the first directory on its path named `<instance>_pid_<digits>` (the root
 *      itself counts). Ranks are numbered in directory path order. Each records its system-profile files
 *      (the first of each name) and a Kineto trace in it.
 *   2. device profiles: one per NTFF. Its NEFF is a NEFF with the same uuid (NEFF header @204 == NTFF
 *      f2[0:16]), preferring the same directory, then the same rank, then anywhere. Without one, a NEFF in
 *      the same directory with the same network name or file stem (or the directory's only NEFF) is
 *      reported as a uuid mismatch; otherwise the NTFF is unpaired. NEFFs left over are noted.
 *   3. full JSON exports attach to an NTFF whose uuid equals the export's neff_header.uuid and/or whose
 *      file name equals the basename of profile_info.ntff_filename; an export whose uuid contradicts an
 *      NTFF's never attaches to it. Score: uuid 4, file name 2, same directory 1, same stem 1; best wins,
 *      ties go to the first in path order. With no identity known, a same-directory same-stem NTFF is
 *      used. An export that attaches nowhere becomes an export-only profile.
 *   4. show-session dumps are attached to the device profile they belong to: same directory, else same rank;
 *      matched by the file stem of the profile's main file (the longest stem the dump name starts with,
 *      followed by '.', '_' or '-'), or the only device profile there. A dump left over goes to the one device
 *      profile of its directory left without a dump, when there is exactly one. The largest text dump is the
 *      profile's `dump` (a --show-trace dump dwarfs a header-only one).
 *   5. host-side and single-file profiles: one system profile per capture directory with a valid ntrace.pb and
 *      trace_info.pb ("<rank>/system"), then one profile per Kineto trace and summary-json file, and one per
 *      show-session dump that belongs to no device profile (id = the file's path).
 *   6. each directory holding `*.parquet` tables becomes one profile.
 *   7. ids are built, then clashes get `~2`, `~3`, ... in creation (= path) order.
 *   8. when the root is a file, only the profiles that use it are kept (with the notes about their files). */
#include "catalog_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- paths ------------------------------------------------------------------------------------------ */

/* Length of the directory part of rel ("a/b/c" → 3, "c" → 0). */
static size_t group_dir_len(const char *rel)
{
    const char *s = strrchr(rel, '/');
    return s ? (size_t)(s - rel) : 0;
}

static bool group_same_dir(const char *a, const char *b)
{
    size_t la = group_dir_len(a), lb = group_dir_len(b);
    return la == lb && strncmp(a, b, la) == 0;
}

/* File name without its extension(s): ".ntff", ".neff", ".json", ".json.gz". Copied into out. */
static void group_stem(const char *rel, char *out, size_t cap)
{
    snprintf(out, cap, "%s", catalog_basename(rel));
    static const char *const exts[] = {".json.gz", ".ntff", ".neff", ".json", NULL};
    size_t n = strlen(out);
    for (const char *const *e = exts; *e; e++) {
        size_t k = strlen(*e);
        if (n > k && strcmp(out + n - k, *e) == 0) {
            out[n - k] = '\0';
            return;
        }
    }
}

/* Does path component [s, s+n) look like `<instance>_pid_<digits>`? */
static bool group_is_capture_name(const char *s, size_t n, uint64_t *pid, size_t *inst_len)
{
    for (size_t i = n; i-- > 1;) {
        if (i + 5 > n || memcmp(s + i, "_pid_", 5) != 0)
            continue;
        size_t d = i + 5;
        if (d == n)
            return false;
        uint64_t v = 0;
        for (size_t k = d; k < n; k++) {
            if (s[k] < '0' || s[k] > '9' || v > (UINT64_MAX - 9) / 10)
                return false;
            v = v * 10 + (uint64_t)(s[k] - '0');
        }
        *pid = v;
        *inst_len = i;
        return true;
    }
    return false;
}

typedef struct group_capture {
    bool found;
    size_t dir_len;            /* prefix of rel_path naming the capture dir (0 = the root) */
    const char *name;          /* its last component */
    size_t name_len;
    uint64_t pid;
    size_t inst_len;
} group_capture;

static group_capture group_find_capture(const nl_catalog *cat, const char *rel)
{
    group_capture c = {0};
    size_t end = group_dir_len(rel);
    for (size_t start = 0; start < end;) {
        const char *slash = memchr(rel + start, '/', end - start);
        size_t stop = slash ? (size_t)(slash - rel) : end;
        if (group_is_capture_name(rel + start, stop - start, &c.pid, &c.inst_len)) {
            c.found = true;
            c.dir_len = stop;
            c.name = rel + start;
            c.name_len = stop - start;
            return c;
        }
        start = stop + 1;
    }
    if (cat->root_is_dir && group_is_capture_name(cat->root_name, strlen(cat->root_name), &c.pid, &c.inst_len)) {
        c.found = true;
        c.name = cat->root_name;
        c.name_len = strlen(cat->root_name);
    }
    return c;
}

/* ---- 1. ranks --------------------------------------------------------------------------------------- */

static int group_cmp_rank(const void *a, const void *b)
{
    return strcmp(((const nl_catalog_rank *)a)->dir, ((const nl_catalog_rank *)b)->dir);
}

static int group_rank_of(const nl_catalog *cat, const char *dir)
{
    size_t lo = 0, hi = cat->rank_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(cat->ranks[mid].dir, dir);
        if (c == 0)
            return (int)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static void group_rank_slot(nl_catalog_rank *r, const nl_catalog_file *f, int i)
{
    int *slot = NULL;
    switch (f->kind) {
    case NL_FILE_NTRACE_PB: slot = &r->ntrace_pb; break;
    case NL_FILE_TRACE_INFO_PB: slot = &r->trace_info_pb; break;
    case NL_FILE_CPU_UTIL_PB: slot = &r->cpu_util_pb; break;
    case NL_FILE_HOST_MEM_PB: slot = &r->host_mem_pb; break;
    case NL_FILE_KINETO: slot = &r->trace_json; break;
    case NL_FILE_NEFF: r->neff_count++; break;
    case NL_FILE_NTFF: r->ntff_count++; break;
    default: break;
    }
    if (slot && *slot < 0)
        *slot = i;
    r->file_count++;
}

static void group_add_rank(nl_catalog *cat, const char *rel, const group_capture *c)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)c->dir_len, rel);
    for (size_t k = cat->rank_count; k-- > 0;) /* files come in path order: the last rank usually matches */
        if (strcmp(cat->ranks[k].dir, dir) == 0)
            return;
    nl_catalog_rank *r = catalog_push((void **)&cat->ranks, &cat->rank_count, &cat->rank_cap, sizeof *r);
    r->dir = catalog_strdup(cat, dir);
    r->instance = catalog_printf(cat, "%.*s", (int)c->inst_len, c->name);
    r->pid = c->pid;
    r->ntrace_pb = r->trace_info_pb = r->cpu_util_pb = r->host_mem_pb = r->trace_json = -1;
}

static void group_check_rank(nl_catalog *cat, nl_catalog_rank *r)
{
    bool ntrace = r->ntrace_pb >= 0 && cat->files[r->ntrace_pb].valid;
    bool info = r->trace_info_pb >= 0 && cat->files[r->trace_info_pb].valid;
    r->has_system_profile = ntrace && info;
    bool any = r->ntrace_pb >= 0 || r->trace_info_pb >= 0 || r->cpu_util_pb >= 0 || r->host_mem_pb >= 0;
    if (any && !r->has_system_profile)
        catalog_note(cat, NL_NOTE_INCOMPLETE_SYSTEM, NL_NOTE_WARN, r->dir[0] ? r->dir : ".",
                     "copy the whole <instance>_pid_<pid>/ directory; a system profile needs both files",
                     "capture directory has system-profile files but %s", !ntrace ? "no valid ntrace.pb"
                                                                                 : "no valid trace_info.pb");
}

static void group_ranks(nl_catalog *cat)
{
    for (size_t i = 0; i < cat->file_count; i++) {
        group_capture c = group_find_capture(cat, cat->files[i].rel_path);
        if (c.found)
            group_add_rank(cat, cat->files[i].rel_path, &c);
    }
    if (cat->rank_count > 1)
        qsort(cat->ranks, cat->rank_count, sizeof *cat->ranks, group_cmp_rank);
    for (size_t k = 0; k < cat->rank_count; k++)
        cat->ranks[k].id = catalog_printf(cat, "rank%zu", k);
    for (size_t i = 0; i < cat->file_count; i++) {
        nl_catalog_file *f = &cat->files[i];
        group_capture c = group_find_capture(cat, f->rel_path);
        if (!c.found)
            continue;
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", (int)c.dir_len, f->rel_path);
        f->rank = group_rank_of(cat, dir);
        if (f->rank >= 0)
            group_rank_slot(&cat->ranks[f->rank], f, (int)i);
    }
    for (size_t k = 0; k < cat->rank_count; k++)
        group_check_rank(cat, &cat->ranks[k]);
}

/* ---- profile ids ------------------------------------------------------------------------------------ */

/* Core index carried by an NTFF name: `…_vnc_<N>…` or `…nc_<N>_…` (profile_nc_<N>_session_<S>). */
static int group_core_from_name(const char *base)
{
    const char *pats[] = {"_vnc_", "_nc_", NULL};
    for (const char **p = pats; *p; p++) {
        const char *at = strstr(base, *p);
        if (!at)
            continue;
        at += strlen(*p);
        int v = 0, digits = 0;
        while (at[digits] >= '0' && at[digits] <= '9' && digits < 6)
            v = v * 10 + (at[digits++] - '0');
        if (digits > 0)
            return v;
    }
    return -1;
}

static const char *group_profile_id(nl_catalog *cat, const nl_catalog_file *f)
{
    char stem[1024];
    group_stem(f->rel_path, stem, sizeof stem);
    size_t dl = group_dir_len(f->rel_path);
    if (f->rank < 0)
        return dl ? catalog_printf(cat, "%.*s/%s", (int)dl, f->rel_path, stem) : catalog_strdup(cat, stem);
    const nl_catalog_rank *r = &cat->ranks[f->rank];
    size_t rl = strlen(r->dir);
    size_t sub_start = rl ? rl + 1 : 0; /* skip "<rankdir>/" */
    int sub_len = dl > sub_start ? (int)(dl - sub_start) : 0;
    int core = f->kind == NL_FILE_NTFF ? group_core_from_name(catalog_basename(f->rel_path)) : -1;
    char nc[24] = "";
    if (core >= 0)
        snprintf(nc, sizeof nc, "nc%d/", core);
    return catalog_printf(cat, "%s/%.*s%s%s%s", r->id, sub_len, f->rel_path + sub_start, sub_len ? "/" : "", nc,
                          stem);
}

static nl_catalog_profile *group_new_profile(nl_catalog *cat, nl_profile_kind kind, const nl_catalog_file *f)
{
    nl_catalog_profile *p =
        catalog_push((void **)&cat->profiles, &cat->profile_count, &cat->profile_cap, sizeof *p);
    p->kind = kind;
    p->rank = f ? f->rank : -1;
    p->file = p->ntff = p->neff = p->mismatched_neff = p->json_export = p->dump = p->dump_json = -1;
    p->name_rank = -1;
    p->pairing = NL_PAIR_NOT_APPLICABLE;
    p->dir = f ? catalog_printf(cat, "%.*s", (int)group_dir_len(f->rel_path), f->rel_path) : "";
    return p;
}

typedef struct group_id_ref {
    const char *id;
    size_t index;
} group_id_ref;

static int group_cmp_id(const void *a, const void *b)
{
    const group_id_ref *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static void group_dedup_ids(nl_catalog *cat)
{
    size_t n = cat->profile_count;
    if (n < 2)
        return;
    group_id_ref *refs = malloc(n * sizeof *refs);
    if (!refs)
        abort();
    for (size_t i = 0; i < n; i++)
        refs[i] = (group_id_ref){cat->profiles[i].id, i};
    qsort(refs, n, sizeof *refs, group_cmp_id);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strcmp(refs[j].id, refs[i].id) == 0) {
            cat->profiles[refs[j].index].id = catalog_printf(cat, "%s~%zu", refs[i].id, j - i + 1);
            j++;
        }
        i = j;
    }
    free(refs);
}

/* ---- 2. device profiles and NEFF pairing ------------------------------------------------------------ */

static bool group_neff_usable(const nl_catalog_file *f)
{
    return f->kind == NL_FILE_NEFF && f->valid && f->has_uuid;
}

/* Indices of the usable NEFFs, so pairing loops do not walk every file. */
typedef struct group_neffs {
    size_t *idx;
    size_t count;
    bool *used;                /* per file index */
} group_neffs;

/* Best NEFF with the NTFF's uuid: same dir 2, same rank 1, else 0; first wins ties. */
static int group_find_neff(const nl_catalog *cat, const group_neffs *g, const nl_catalog_file *t)
{
    int best = -1, best_score = -1;
    for (size_t k = 0; k < g->count; k++) {
        size_t i = g->idx[k];
        const nl_catalog_file *n = &cat->files[i];
        if (!group_neff_usable(n) || strcmp(n->uuid_hex, t->uuid_hex) != 0)
            continue;
        int score = group_same_dir(n->rel_path, t->rel_path) ? 2 : (t->rank >= 0 && n->rank == t->rank) ? 1 : 0;
        if (score > best_score) {
            best = (int)i;
            best_score = score;
        }
    }
    return best;
}

/* A same-directory NEFF that should have matched: same network name, same stem, or the only NEFF. */
static int group_find_candidate(const nl_catalog *cat, const group_neffs *g, const nl_catalog_file *t)
{
    char ts[1024], ns[1024];
    group_stem(t->rel_path, ts, sizeof ts);
    int only = -1, count = 0;
    for (size_t k = 0; k < g->count; k++) {
        size_t i = g->idx[k];
        const nl_catalog_file *n = &cat->files[i];
        if (!group_neff_usable(n) || !group_same_dir(n->rel_path, t->rel_path))
            continue;
        group_stem(n->rel_path, ns, sizeof ns);
        if ((t->neff_name && n->neff_name && strcmp(t->neff_name, n->neff_name) == 0) || strcmp(ts, ns) == 0)
            return (int)i;
        only = (int)i;
        count++;
    }
    return count == 1 ? only : -1;
}

static void group_pair(nl_catalog *cat, nl_catalog_profile *p, group_neffs *g)
{
    const nl_catalog_file *t = &cat->files[p->ntff];
    if (!t->valid || !t->has_uuid) {
        p->pairing = NL_PAIR_NO_UUID;
        return;
    }
    int n = group_find_neff(cat, g, t);
    if (n >= 0) {
        p->pairing = NL_PAIR_OK;
        p->neff = n;
        g->used[n] = true;
        return;
    }
    int c = group_find_candidate(cat, g, t);
    if (c >= 0) {
        p->pairing = NL_PAIR_UUID_MISMATCH;
        p->mismatched_neff = c;
        g->used[c] = true;
        catalog_note(cat, NL_NOTE_UUID_MISMATCH, NL_NOTE_WARN, t->rel_path,
                     "locate the NEFF this NTFF was captured with (compile cache; neff_cache_dir / "
                     "TORCH_NEURONX_NEFF_CACHE_DIR)",
                     "NTFF uuid %s does not match %s (uuid %s); the profiler would fail with "
                     "ERROR_PROCESS_INCOMPLETE", t->uuid_hex, cat->files[c].rel_path, cat->files[c].uuid_hex);
        return;
    }
    p->pairing = NL_PAIR_NO_NEFF; /* noted after exports attach (group_note_unpaired) */
}

/* Unpaired NTFFs: a warning, or only information when a full JSON export covers the profile. */
static void group_note_unpaired(nl_catalog *cat)
{
    for (size_t k = 0; k < cat->profile_count; k++) {
        const nl_catalog_profile *p = &cat->profiles[k];
        if (p->kind != NL_PROFILE_DEVICE || p->pairing != NL_PAIR_NO_NEFF)
            continue;
        const nl_catalog_file *t = &cat->files[p->ntff];
        bool covered = p->json_export >= 0;
        catalog_note(cat, NL_NOTE_NTFF_WITHOUT_NEFF, covered ? NL_NOTE_INFO : NL_NOTE_WARN, t->rel_path,
                     "copy the NEFF next to the NTFF (compile cache; neff_cache_dir / TORCH_NEURONX_NEFF_CACHE_DIR)",
                     "no NEFF with uuid %s found; %s", t->uuid_hex,
                     covered ? "the attached JSON export carries the profile" : "only NTFF metadata can be read natively");
    }
}

static void group_device_profiles(nl_catalog *cat)
{
    size_t n = cat->file_count ? cat->file_count : 1;
    group_neffs g = {.idx = malloc(n * sizeof *g.idx), .used = calloc(n, sizeof *g.used)};
    if (!g.idx || !g.used)
        abort();
    for (size_t i = 0; i < cat->file_count; i++)
        if (group_neff_usable(&cat->files[i]))
            g.idx[g.count++] = i;
    for (size_t i = 0; i < cat->file_count; i++) {
        nl_catalog_file *f = &cat->files[i];
        if (f->kind != NL_FILE_NTFF)
            continue;
        nl_catalog_profile *p = group_new_profile(cat, NL_PROFILE_DEVICE, f);
        p->file = p->ntff = (int)i;
        p->id = group_profile_id(cat, f);
        group_pair(cat, p, &g);
    }
    for (size_t k = 0; k < g.count; k++)
        if (!g.used[g.idx[k]]) {
            const nl_catalog_file *f = &cat->files[g.idx[k]];
            catalog_note(cat, NL_NOTE_NEFF_WITHOUT_NTFF, NL_NOTE_INFO, f->rel_path,
                         "capture a device profile of this NEFF for its run; summary reads what the NEFF says by "
                         "itself", "NEFF uuid %s has no NTFF here", f->uuid_hex);
            nl_catalog_profile *p = group_new_profile(cat, NL_PROFILE_PROGRAM, f); /* what the NEFF says alone */
            p->file = p->neff = (int)g.idx[k];
            p->id = catalog_strdup(cat, f->rel_path);
        }
    free(g.idx);
    free(g.used);
}

/* ---- 3. JSON exports -------------------------------------------------------------------------------- */

static int group_export_score(const nl_catalog_file *e, const nl_catalog_file *t, nl_export_link *link)
{
    bool uuid_known = e->has_uuid && t->has_uuid;
    bool by_uuid = uuid_known && strcmp(e->uuid_hex, t->uuid_hex) == 0;
    if (uuid_known && !by_uuid)
        return -1;
    bool by_name = e->export_ntff_filename &&
                   strcmp(catalog_basename(e->export_ntff_filename), catalog_basename(t->rel_path)) == 0;
    bool same_dir = group_same_dir(e->rel_path, t->rel_path);
    char es[1024], ts[1024];
    group_stem(e->rel_path, es, sizeof es);
    group_stem(t->rel_path, ts, sizeof ts);
    bool same_stem = strcmp(es, ts) == 0;
    if (!by_uuid && !by_name && !(same_dir && same_stem && !e->has_uuid))
        return -1;
    *link = by_uuid && by_name ? NL_LINK_UUID_AND_FILENAME : by_uuid ? NL_LINK_UUID
            : by_name          ? NL_LINK_FILENAME
                               : NL_LINK_STEM;
    return 4 * by_uuid + 2 * by_name + same_dir + same_stem;
}

static void group_attach_export(nl_catalog *cat, size_t ei)
{
    const nl_catalog_file *e = &cat->files[ei];
    int best = -1, best_score = -1;
    nl_export_link best_link = NL_LINK_NONE;
    for (size_t k = 0; k < cat->profile_count; k++) {
        const nl_catalog_profile *p = &cat->profiles[k];
        if (p->kind != NL_PROFILE_DEVICE || p->json_export >= 0)
            continue;
        nl_export_link link;
        int score = group_export_score(e, &cat->files[p->ntff], &link);
        if (score > best_score) {
            best = (int)k;
            best_score = score;
            best_link = link;
        }
    }
    if (best >= 0) {
        cat->profiles[best].json_export = (int)ei;
        cat->profiles[best].export_link = best_link;
        cat->profiles[best].export_complete = e->complete;
        return;
    }
    nl_catalog_profile *p = group_new_profile(cat, NL_PROFILE_EXPORT_ONLY, e);
    p->file = p->json_export = (int)ei;
    p->export_complete = e->complete;
    p->id = group_profile_id(cat, e);
    catalog_note(cat, NL_NOTE_EXPORT_UNATTACHED, NL_NOTE_INFO, e->rel_path, NULL,
                 e->has_uuid ? "no NTFF with the export's uuid here; the export is analyzed on its own"
                             : "export identity unknown and no NTFF of the same name here; analyzed on its own");
}

/* The N of the first "rank<N>" token in a file name (memory_snapshot_rank3.pickle, trace_rank_0.json), -1. */
static int group_name_rank(const char *name)
{
    for (const char *p = name; (p = strstr(p, "rank")) != NULL; p += 4) {
        const char *d = p + 4;
        if (*d == '_' || *d == '-')
            d++;
        int v = 0, digits = 0;
        while (*d >= '0' && *d <= '9' && digits < 6)
            v = v * 10 + (*d++ - '0'), digits++;
        if (digits && (p == name || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z'))))
            return v;
    }
    return -1;
}

/* ---- 4. host-side and single-file profiles ---------------------------------------------------------- */

static void group_host_profiles(nl_catalog *cat)
{
    for (size_t k = 0; k < cat->rank_count; k++) {
        const nl_catalog_rank *r = &cat->ranks[k];
        if (!r->has_system_profile)
            continue;
        nl_catalog_profile *p = group_new_profile(cat, NL_PROFILE_SYSTEM, NULL);
        p->rank = (int)k;
        p->dir = r->dir;
        p->id = catalog_printf(cat, "%s/system", r->id);
    }
    static const struct {
        nl_file_kind file;
        nl_profile_kind profile;
    } singles[] = {{NL_FILE_KINETO, NL_PROFILE_FRAMEWORK}, {NL_FILE_SUMMARY_JSON, NL_PROFILE_SUMMARY_JSON},
                   {NL_FILE_MEMORY_SNAPSHOT, NL_PROFILE_MEMORY}};
    for (size_t k = 0; k < sizeof singles / sizeof singles[0]; k++)
        for (size_t i = 0; i < cat->file_count; i++) {
            const nl_catalog_file *f = &cat->files[i];
            if (f->kind != singles[k].file)
                continue;
            nl_catalog_profile *p = group_new_profile(cat, singles[k].profile, f);
            p->file = (int)i;
            p->id = catalog_strdup(cat, f->rel_path);
            p->name_rank = group_name_rank(catalog_basename(f->rel_path));
        }
}

/* A dump that belongs to no device profile is a profile of its own (the dump as a whole). */
static void group_show_sessions(nl_catalog *cat, const bool *attached)
{
    for (size_t i = 0; i < cat->file_count; i++) {
        const nl_catalog_file *f = &cat->files[i];
        if ((f->kind != NL_FILE_SHOW_SESSION_TEXT && f->kind != NL_FILE_SHOW_SESSION_JSON) || attached[i])
            continue;
        nl_catalog_profile *p = group_new_profile(cat, NL_PROFILE_SHOW_SESSION, f);
        p->file = p->dump = (int)i;
        p->id = catalog_strdup(cat, f->rel_path);
    }
}

/* ---- 5. show-session dumps of device profiles ------------------------------------------------------- */

static bool group_is_device(const nl_catalog_profile *p)
{
    return p->kind == NL_PROFILE_DEVICE || p->kind == NL_PROFILE_EXPORT_ONLY;
}

/* Length of the stem of a profile's main file when the dump's name starts with it followed by '.', '_' or
 * '-'; 0 otherwise. */
static size_t group_stem_match(const char *main_rel, const char *dump_rel)
{
    const char *m = catalog_basename(main_rel), *d = catalog_basename(dump_rel);
    const char *dot = strchr(m, '.');
    size_t n = dot ? (size_t)(dot - m) : strlen(m);
    if (n == 0 || strncmp(m, d, n) != 0 || !d[n] || !strchr("._-", d[n]))
        return 0;
    return n;
}

/* The device profile a dump belongs to, or -1. */
static long group_dump_owner(const nl_catalog *cat, const nl_catalog_file *dump)
{
    for (int pass = 0; pass < 2; pass++) { /* 0: same directory, 1: same rank */
        long best = -1, only = -1;
        size_t best_len = 0, count = 0;
        for (size_t i = 0; i < cat->profile_count; i++) {
            const nl_catalog_profile *p = &cat->profiles[i];
            if (!group_is_device(p))
                continue;
            const char *rel = cat->files[p->file].rel_path;
            bool near = pass == 0 ? group_same_dir(rel, dump->rel_path) : dump->rank >= 0 && p->rank == dump->rank;
            if (!near)
                continue;
            count++;
            only = (long)i;
            size_t len = group_stem_match(rel, dump->rel_path);
            if (len > best_len) {
                best_len = len;
                best = (long)i;
            }
        }
        if (best >= 0)
            return best;
        if (count == 1)
            return only;
        if (count > 1)
            return -1;
    }
    return -1;
}

static void group_take_dump(nl_catalog *cat, nl_catalog_profile *p, size_t i)
{
    p->dumps++;
    if (p->dump < 0 || cat->files[i].size > cat->files[p->dump].size)
        p->dump = (int)i;
}

static bool group_is_dump(const nl_catalog_file *f)
{
    return f->kind == NL_FILE_SHOW_SESSION_TEXT || f->kind == NL_FILE_SHOW_SESSION_JSON;
}

static void group_attach_dump(nl_catalog *cat, nl_catalog_profile *p, size_t i)
{
    if (cat->files[i].kind == NL_FILE_SHOW_SESSION_TEXT)
        group_take_dump(cat, p, i);
    else if (p->dump_json < 0)
        p->dump_json = (int)i;
}

/* The only device profile of dump i's directory that owns no dump, when there is exactly one; else -1. */
static long group_dump_fallback(const nl_catalog *cat, size_t i)
{
    long only = -1;
    for (size_t k = 0; k < cat->profile_count; k++) {
        const nl_catalog_profile *p = &cat->profiles[k];
        if (!group_is_device(p) || p->dumps || p->dump_json >= 0 ||
            !group_same_dir(cat->files[p->file].rel_path, cat->files[i].rel_path))
            continue;
        if (only >= 0)
            return -1;
        only = (long)k;
    }
    return only;
}

/* attached[i] = dump i now belongs to a device profile (by name, else as the one dump left beside the one
 * profile left without any). */
static void group_attach_dumps(nl_catalog *cat, bool *attached)
{
    for (size_t i = 0; i < cat->file_count; i++) {
        if (!group_is_dump(&cat->files[i]))
            continue;
        long owner = group_dump_owner(cat, &cat->files[i]);
        if (owner >= 0) {
            group_attach_dump(cat, &cat->profiles[owner], i);
            attached[i] = true;
        }
    }
    size_t n = cat->file_count;
    long *fallback = malloc((n ? n : 1) * sizeof *fallback);
    if (!fallback)
        abort();
    for (size_t i = 0; i < n; i++) /* decided before any is taken, so the order of dumps does not matter */
        fallback[i] = group_is_dump(&cat->files[i]) && !attached[i] ? group_dump_fallback(cat, i) : -1;
    for (size_t i = 0; i < n; i++)
        if (fallback[i] >= 0) {
            nl_catalog_profile *p = &cat->profiles[fallback[i]];
            group_attach_dump(cat, p, i);
            p->dump_by_dir = true;
            attached[i] = true;
        }
    free(fallback);
}

/* ---- 6. Parquet directories ------------------------------------------------------------------------- */

static bool group_is_dir(const nl_catalog_profile *q, const char *rel, size_t dl)
{
    return q->kind == NL_PROFILE_PARQUET_DIR && strlen(q->dir) == dl && strncmp(q->dir, rel, dl) == 0;
}

static void group_parquet(nl_catalog *cat)
{
    int last = -1; /* files come in path order, so a directory's tables are mostly adjacent */
    for (size_t i = 0; i < cat->file_count; i++) {
        nl_catalog_file *f = &cat->files[i];
        if (f->kind != NL_FILE_PARQUET)
            continue;
        size_t dl = group_dir_len(f->rel_path);
        int found = last >= 0 && group_is_dir(&cat->profiles[last], f->rel_path, dl) ? last : -1;
        for (size_t k = 0; k < cat->profile_count && found < 0; k++)
            if (group_is_dir(&cat->profiles[k], f->rel_path, dl))
                found = (int)k;
        if (found < 0) {
            nl_catalog_profile *p = group_new_profile(cat, NL_PROFILE_PARQUET_DIR, f);
            /* at the root: the root directory's name, or for a table given as the root, its directory's */
            const char *name = cat->root_is_dir ? cat->root_name : cat->root_dir_name;
            p->id = dl ? p->dir : catalog_strdup(cat, name && name[0] ? name : ".");
            found = (int)(cat->profile_count - 1);
            cat->profiles[found].bad_table = -1;
            cat->profiles[found].file = (int)i; /* the first table, in path order */
        }
        cat->profiles[found].parquet_count++;
        const char *base = catalog_basename(f->rel_path);
        if (!strncmp(base, "CcOp", 4) || !strncmp(base, "CcInstruction", 13))
            cat->profiles[found].cc_tables = true;
        if (!strncmp(base, "Instruction.", 12) || !strncmp(base, "Instruction_", 12))
            cat->profiles[found].instruction_table = true;
        if (!f->valid && cat->profiles[found].bad_table < 0)
            cat->profiles[found].bad_table = (int)i;
        f->profile = found;
        last = found;
    }
}

/* ---- 8. a file root: keep what uses it -------------------------------------------------------------- */

static bool group_profile_uses(const nl_catalog_profile *p, int file)
{
    return p->file == file || p->ntff == file || p->neff == file || p->json_export == file || p->dump == file ||
           p->dump_json == file || p->mismatched_neff == file;
}

/* Drop the profiles that do not use the root file, and the notes about companion files no kept profile
 * uses (a NEFF beside the root that pairs with nothing of it is not news). */
static void group_focus(nl_catalog *cat, int focus)
{
    size_t kept = 0;
    for (size_t k = 0; k < cat->profile_count; k++)
        if (group_profile_uses(&cat->profiles[k], focus) || cat->files[focus].profile == (int)k)
            cat->profiles[kept++] = cat->profiles[k];
    cat->profile_count = kept;
    for (size_t i = 0; i < cat->file_count; i++) /* indices changed: group_mark_files sets them again */
        cat->files[i].profile = i == (size_t)focus && kept && cat->files[i].kind == NL_FILE_PARQUET ? 0 : -1;
    size_t notes = 0;
    for (size_t n = 0; n < cat->note_count; n++) {
        const nl_catalog_note *note = &cat->notes[n];
        long f = note->path ? nl_catalog_find_file(cat, note->path) : -1;
        bool drop = f >= 0 && cat->files[f].companion;
        for (size_t k = 0; drop && k < kept; k++)
            drop = !group_profile_uses(&cat->profiles[k], (int)f);
        if (!drop)
            cat->notes[notes++] = *note;
        else
            cat->notes_by_code[note->code]--;
    }
    cat->note_count = notes;
}

/* ---- entry point ------------------------------------------------------------------------------------ */

static void group_mark_files(nl_catalog *cat)
{
    for (size_t k = 0; k < cat->profile_count; k++) {
        const nl_catalog_profile *p = &cat->profiles[k];
        int idx[] = {p->file, p->ntff, p->neff, p->mismatched_neff, p->json_export, p->dump};
        for (size_t j = 0; j < sizeof idx / sizeof idx[0]; j++)
            if (idx[j] >= 0 && cat->files[idx[j]].profile < 0)
                cat->files[idx[j]].profile = (int)k;
    }
}

void catalog_group(nl_catalog *cat)
{
    group_ranks(cat);
    group_device_profiles(cat);
    for (size_t i = 0; i < cat->file_count; i++)
        if (cat->files[i].kind == NL_FILE_JSON_EXPORT)
            group_attach_export(cat, i);
    group_note_unpaired(cat);
    bool *attached = calloc(cat->file_count ? cat->file_count : 1, sizeof *attached);
    if (!attached)
        abort();
    group_attach_dumps(cat, attached);
    group_host_profiles(cat);
    group_show_sessions(cat, attached);
    free(attached);
    group_parquet(cat);
    group_dedup_ids(cat);
    if (!cat->root_is_dir && cat->file_count) {
        long focus = -1;
        for (size_t i = 0; i < cat->file_count && focus < 0; i++)
            focus = cat->files[i].companion ? -1 : (long)i;
        if (focus >= 0)
            group_focus(cat, (int)focus);
    }
    group_mark_files(cat);
    catalog_readiness(cat);
}
