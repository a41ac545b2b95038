/* shape — pieces every tool result shares: data_quality entries, opaque page cursors, units, the
 * profile label and provenance of a catalog profile. All builders return new jansson references. */
#ifndef NL_SHAPE_H
#define NL_SHAPE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"

/* {"problem", "fix", "severity"[, "file"]}; fix may be NULL ("none needed"). */
json_t *shape_quality(const char *severity, const char *problem, const char *fix, const char *file);

/* Cursor text "<tag>.<offset>" (tag guards against using one tool's cursor with another). */
void shape_cursor_make(char *out, size_t cap, const char *tag, size_t offset);
/* 0 and *offset on success; -1 when the cursor is not one of ours for `tag`. */
int shape_cursor_parse(const char *cursor, const char *tag, size_t *offset);

/* {"id", "kind", "rank", "core", "dir"} for a catalog profile. */
json_t *shape_profile_label(const nl_catalog *cat, const nl_catalog_profile *p);
/* {"files": {...}, "ntff_version", "runtime_version", "instance_type", "instance_id", "neff_uuid", ...}
 * for a catalog profile (only what is known). */
json_t *shape_profile_provenance(const nl_catalog *cat, const nl_catalog_profile *p);
/* Catalog notes about `p`'s files (or all notes when p is NULL) appended to `arr` as data_quality entries. */
void shape_catalog_notes(const nl_catalog *cat, const nl_catalog_profile *p, json_t *arr);
/* "nc4" from a profile id segment, or NULL. */
const char *shape_core_of(const char *profile_id, char *buf, size_t cap);

#endif
