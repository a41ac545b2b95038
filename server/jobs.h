/* jobs — the worker pool that runs tool calls off the main loop, memcached-style.
 *
 * Threads: the main thread submits jobs and drains the outbox; N workers pop jobs, run the tool and push
 * finished lines (responses, progress and log notifications, already serialized) onto the outbox. The
 * `wake` callback is invoked from a worker only when the outbox goes from empty to non-empty; the main
 * thread then takes the whole outbox in one locked step. A json_t changes hands, never is shared.
 * Lock order: only `jobs->lock` exists; callbacks are never called with it held.
 * Cancellation: a per-job flag the tool polls; a cancelled job produces no response. */
#ifndef NL_JOBS_H
#define NL_JOBS_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "tools.h"

typedef struct nl_jobs nl_jobs;

typedef struct nl_outline {
    struct nl_outline *next;
    char *line; /* compact JSON, no newline */
} nl_outline;

typedef struct nl_jobs_config {
    unsigned workers;
    nl_tools *tools;
    const atomic_int *log_level;       /* minimum level for notifications/message, -1 = off */
    bool legacy_results;               /* protocol < 2025-06-18: JSON text instead of structuredContent */
    size_t max_response_bytes;         /* hard ceiling on one serialized response */
    void (*wake)(void *opaque);        /* called from a worker thread */
    void *wake_opaque;
} nl_jobs_config;

nl_jobs *nl_jobs_new(const nl_jobs_config *cfg);
/* Cancels everything, joins the workers, frees the pool and any undrained output. */
void nl_jobs_free(nl_jobs *jobs);

/* Queue a tools/call. Steals id, args and progress_token (both may be NULL except id). Returns -1 when
 * a request with an equal id is already in flight (nothing is stolen then). */
int nl_jobs_submit(nl_jobs *jobs, json_t *id, const char *tool, json_t *args, json_t *progress_token);
/* Set the cancel flag of the in-flight job with this id; false when none (already finished: harmless). */
bool nl_jobs_cancel(nl_jobs *jobs, const json_t *id);
void nl_jobs_cancel_all(nl_jobs *jobs);
/* Jobs queued or running. */
size_t nl_jobs_pending(nl_jobs *jobs);
/* Take every finished line in order (caller frees each node and its line), or NULL. */
nl_outline *nl_jobs_take_output(nl_jobs *jobs);
void nl_jobs_set_legacy_results(nl_jobs *jobs, bool legacy);
/* Log through the outbox (from any thread): a notifications/message if `level` passes the filter. */
void nl_jobs_log(nl_jobs *jobs, const char *level, const char *logger, const char *message);

/* RFC 5424 level index (debug = 0 … emergency = 7), or -1 for an unknown name. */
int nl_log_level_index(const char *name);

#endif
