/* gen_expected — the generator's ground truth (expected.json) and the show-session -j JSON, both small,
 * built with jansson from each core's statistics while the cores are generated one at a time.
 *
 * Owns: the json_t values it returns (new references; the caller steals them into the final document).
 * Errors: the builders return NULL when out of memory; the writers return -1 with a message in `err` when
 * the document is incomplete (a NULL or missing core) or the file cannot be written. Nothing is printed. */
#ifndef NL_GEN_EXPECTED_H
#define NL_GEN_EXPECTED_H

#include <jansson.h>

#include "gen_capture.h"
#include "gen_kineto.h"
#include "gen_model.h"
#include "gen_system.h"

/* Everything expected.json says about one core (NULL: out of memory); `export_rel` is the path of its
 * export relative to the output directory. */
json_t *gen_expected_core(const gen_core *c, const char *export_rel, uint64_t export_bytes);
/* One `NeffNodes[0].NodeInfo.Graphs[]` entry of show-session -j for this core (NULL: out of memory). */
json_t *gen_expected_graph(const gen_core *c);

/* Everything expected.json says about one rank (NULL: out of memory): its timeline, and what its system
 * profile (sys, nullable: no capture) and its trace.json (kin, nullable: no Kineto; kineto_rel its path)
 * hold. */
json_t *gen_expected_rank(const gen_rank_plan *pl, const gen_sys_stats *sys, const gen_kin_stats *kin,
                          const char *kineto_rel);

/* Write expected.json; `cores` (nullable; an array of p->cores gen_expected_core objects) and `ranks`
 * (nullable; NULL when neither capture nor Kineto was asked for, else p->ranks gen_expected_rank objects)
 * are stolen. */
int gen_expected_write(const char *path, const gen_params *p, const gen_plan *plan, json_t *cores, json_t *ranks,
                       gen_err *err) __attribute__((warn_unused_result));
/* Write show_session.json; `graphs` (nullable; p->cores entries) is stolen. */
int gen_expected_session_write(const char *path, json_t *graphs, const gen_params *p, gen_err *err)
    __attribute__((warn_unused_result));

#endif
