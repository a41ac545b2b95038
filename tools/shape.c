/* shape — see shape.h. */
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *shape_quality(const char *severity, const char *problem, const char *fix, const char *file)
{
    json_t *q = json_pack("{s:s, s:s, s:s}", "problem", problem, "fix", fix ? fix : "none needed", "severity", severity);
    if (file)
        json_object_set_new(q, "file", json_string(file));
    return q;
}

void shape_cursor_make(char *out, size_t cap, const char *tag, size_t offset)
{
    snprintf(out, cap, "%s.%zx", tag, offset);
}

int shape_cursor_parse(const char *cursor, const char *tag, size_t *offset)
{
    size_t n = strlen(tag);
    if (!cursor || strncmp(cursor, tag, n) || cursor[n] != '.' || !cursor[n + 1])
        return -1;
    char *end;
    unsigned long long v = strtoull(cursor + n + 1, &end, 16);
    if (*end || cursor[n + 1] == '-')
        return -1;
    *offset = (size_t)v;
    return 0;
}

const char *shape_core_of(const char *profile_id, char *buf, size_t cap)
{
    for (const char *p = profile_id; p && *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL) {
        if (p[0] == 'n' && p[1] == 'c' && p[2] >= '0' && p[2] <= '9') {
            size_t n = strcspn(p, "/");
            snprintf(buf, cap, "%.*s", (int)n, p);
            return buf;
        }
    }
    return NULL;
}

static const char *profile_source_name(nl_profile_kind k)
{
    switch (k) {
    case NL_PROFILE_PARQUET_DIR: return "parquet tables";
    case NL_PROFILE_EXPORT_ONLY: return "json export without NTFF";
    case NL_PROFILE_SUMMARY_JSON: return "summary-json";
    default: return NULL;
    }
}

/* Host-side and dump profiles: {"id", "kind", "core": null, "rank"[, "process"][, "dir"]}. */
static json_t *host_label(const nl_catalog *cat, const nl_catalog_profile *p)
{
    const nl_catalog_rank *r = p->rank >= 0 ? nl_catalog_rank_at(cat, (size_t)p->rank) : NULL;
    json_t *o = json_pack("{s:s, s:s, s:n}", "id", p->id, "kind", nl_profile_kind_family(p->kind), "core");
    json_object_set_new(o, "rank", r ? json_string(r->id) : json_null());
    if (!r && p->kind == NL_PROFILE_MEMORY) { /* as Neuron Explorer: rank<N> from the file name, else rank 0 */
        char rank[32];
        snprintf(rank, sizeof rank, "rank%d", p->name_rank >= 0 ? p->name_rank : 0);
        json_object_set_new(o, "rank", json_string(rank));
        json_object_set_new(o, "rank_source", json_string(p->name_rank >= 0 ? "file name" : "assumed: the file name "
                                                                                           "names no rank"));
    }
    if (r && p->kind == NL_PROFILE_SYSTEM)
        json_object_set_new(o, "process", json_pack("{s:s, s:I}", "instance", r->instance ? r->instance : "", "pid",
                                                    (json_int_t)r->pid));
    if (r)
        json_object_set_new(o, "dir", json_string(r->dir));
    return o;
}

json_t *shape_profile_label(const nl_catalog *cat, const nl_catalog_profile *p)
{
    if (p->kind == NL_PROFILE_SYSTEM || p->kind == NL_PROFILE_FRAMEWORK || p->kind == NL_PROFILE_SHOW_SESSION ||
        p->kind == NL_PROFILE_MEMORY || p->kind == NL_PROFILE_PROGRAM)
        return host_label(cat, p);
    char core[32];
    const nl_catalog_rank *rank = p->rank >= 0 ? nl_catalog_rank_at(cat, (size_t)p->rank) : NULL;
    const char *c = shape_core_of(p->id, core, sizeof core);
    json_t *label = json_pack("{s:s, s:s}", "id", p->id, "kind", "device");
    if (profile_source_name(p->kind))
        json_object_set_new(label, "source", json_string(profile_source_name(p->kind)));
    json_object_set_new(label, "rank", rank ? json_string(rank->id) : json_null());
    json_object_set_new(label, "core", c ? json_string(c) : json_null()); /* null = not known from the files */
    if (rank)
        json_object_set_new(label, "process", json_pack("{s:s, s:I}", "instance", rank->instance ? rank->instance : "",
                                                        "pid", (json_int_t)rank->pid));
    return label;
}

static void set_file(json_t *files, const char *key, const nl_catalog *cat, int idx)
{
    if (idx >= 0)
        json_object_set_new(files, key, json_string(nl_catalog_file_at(cat, (size_t)idx)->rel_path));
}

static void set_str(json_t *obj, const char *key, const char *value)
{
    if (value && *value)
        json_object_set_new(obj, key, json_string(value));
}

json_t *shape_profile_provenance(const nl_catalog *cat, const nl_catalog_profile *p)
{
    json_t *prov = json_object();
    json_t *files = json_object();
    set_file(files, "ntff", cat, p->ntff);
    set_file(files, "neff", cat, p->neff);
    set_file(files, "json_export", cat, p->json_export);
    json_object_set_new(prov, "root", json_string(nl_catalog_root(cat)));
    json_object_set_new(prov, "files", files);
    json_object_set_new(prov, "pairing", json_string(nl_pairing_name(p->pairing)));
    if (p->json_export >= 0)
        json_object_set_new(prov, "export_link", json_string(nl_export_link_name(p->export_link)));
    if (p->ntff >= 0) {
        const nl_catalog_file *f = nl_catalog_file_at(cat, (size_t)p->ntff);
        if (f->ntff_version)
            json_object_set_new(prov, "ntff_version", json_integer(f->ntff_version));
        set_str(prov, "runtime_version", f->runtime_version);
        set_str(prov, "instance_type", f->instance_type);
        set_str(prov, "instance_id", f->instance_id);
        set_str(prov, "neff_name", f->neff_name);
        if (f->has_uuid)
            json_object_set_new(prov, "neff_uuid", json_string(f->uuid_hex));
    }
    return prov;
}

static bool note_concerns(const nl_catalog *cat, const nl_catalog_profile *p, const nl_catalog_note *n)
{
    if (!p)
        return true;
    if (!n->path)
        return false;
    int idx[] = {p->file, p->ntff, p->neff, p->json_export, p->mismatched_neff};
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++)
        if (idx[i] >= 0 && !strcmp(nl_catalog_file_at(cat, (size_t)idx[i])->rel_path, n->path))
            return true;
    return false;
}

void shape_catalog_notes(const nl_catalog *cat, const nl_catalog_profile *p, json_t *arr)
{
    for (size_t i = 0; i < nl_catalog_note_count(cat); i++) {
        const nl_catalog_note *n = nl_catalog_note_at(cat, i);
        if (!note_concerns(cat, p, n))
            continue;
        json_t *q = shape_quality(n->severity == NL_NOTE_WARN ? "warning" : "info", n->message, n->fix, n->path);
        json_object_set_new(q, "code", json_string(nl_note_code_name(n->code)));
        json_array_append_new(arr, q);
    }
}
