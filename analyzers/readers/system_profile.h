/* system_profile — the reader of a rank's system profile: the four .pb files of one capture directory
 * (formats.md §9) into one system_model (model/system_model.h), begins and ends paired into spans.
 *
 * Owns: nothing after it returns; on success the caller owns the model (system_model_free).
 * Threads: any thread; the cancel flag may be set from another thread.
 * Errors: -1 + nl_error only when there is nothing to model (trace_info.pb or ntrace.pb absent or
 * unreadable, trace_info.pb not a valid message, NL_ERR_NOMEM, NL_ERR_CANCELLED); every other problem is a
 * model note (system_model_note_at) and marks the file's stats `partial`. */
#ifndef NL_SYSTEM_PROFILE_H
#define NL_SYSTEM_PROFILE_H

#include <stdatomic.h>
#include <stddef.h>

#include "nl_error.h"
#include "system_model.h"

typedef struct system_profile_paths {
    const char *trace_info, *ntrace; /* required */
    const char *cpu_util, *host_mem; /* NULL when absent (noted) */
} system_profile_paths;

typedef struct system_profile_options {
    const atomic_int *cancel;  /* nullable */
    size_t memory_limit;       /* cap on the model's arena, 0 = none */
    size_t read_size;          /* 0 = SYSPB_READ_SIZE (tests use tiny reads) */
} system_profile_options;

/* Build the model of one capture. opt may be NULL. */
__attribute__((warn_unused_result))
int system_profile_load(const system_profile_paths *paths, const system_profile_options *opt, system_model **out,
                        nl_error *err);

#endif
