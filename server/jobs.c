/* jobs — see jobs.h for the threading contract.
 *
 * Data: one mutex protects the job list (queued + running, in submission order), the outbox (FIFO of
 * lines) and the shutdown flag; one condition variable wakes idle workers. A worker takes the oldest
 * queued job, marks it running, runs the tool with the lock released, then appends the response (unless
 * the job was cancelled) and unlinks the job. Progress from a tool is rate-limited per job
 * (PROGRESS_MIN_INTERVAL_NS) and strictly increasing, and only sent when the request carried a token. */
#include "jobs.h"
#include "jsonrpc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JOBS_MAX_WORKERS 64
#define PROGRESS_MIN_INTERVAL_NS 50000000LL /* 50 ms: enough for a client, cheap for us */
#define JOBS_ENVELOPE_SLACK 1024            /* bytes allowed over the tool budget for the JSON-RPC wrapping */

typedef struct job {
    struct job *next;
    json_t *id;
    char *tool;
    json_t *args;
    json_t *progress_token;
    atomic_int cancel;
    bool running;
    double last_progress;
    long long last_progress_ns;
    bool sent_progress;
    nl_jobs *owner;
} job;

struct nl_jobs {
    nl_jobs_config cfg;
    pthread_mutex_t lock;
    pthread_cond_t work;
    job *head;                 /* queued and running jobs in submission order */
    nl_outline *out_head, *out_tail;
    bool shutdown;
    atomic_int legacy_results;
    pthread_t threads[JOBS_MAX_WORKERS];
    unsigned nthreads;
};

static const char *const log_levels[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

int nl_log_level_index(const char *name)
{
    for (int i = 0; name && i < 8; i++)
        if (!strcmp(name, log_levels[i]))
            return i;
    return -1;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Append a line to the outbox; wakes the main thread if the outbox was empty. Takes `line`. */
static void outbox_push(nl_jobs *jobs, char *line)
{
    if (!line)
        return;
    nl_outline *node = malloc(sizeof *node);
    if (!node) {
        free(line);
        return;
    }
    node->next = NULL;
    node->line = line;
    pthread_mutex_lock(&jobs->lock);
    bool was_empty = jobs->out_head == NULL;
    if (jobs->out_tail)
        jobs->out_tail->next = node;
    else
        jobs->out_head = node;
    jobs->out_tail = node;
    pthread_mutex_unlock(&jobs->lock);
    if (was_empty && jobs->cfg.wake)
        jobs->cfg.wake(jobs->cfg.wake_opaque);
}

nl_outline *nl_jobs_take_output(nl_jobs *jobs)
{
    pthread_mutex_lock(&jobs->lock);
    nl_outline *all = jobs->out_head;
    jobs->out_head = jobs->out_tail = NULL;
    pthread_mutex_unlock(&jobs->lock);
    return all;
}

void nl_jobs_log(nl_jobs *jobs, const char *level, const char *logger, const char *message)
{
    int want = jobs->cfg.log_level ? atomic_load(jobs->cfg.log_level) : -1;
    int lvl = nl_log_level_index(level);
    if (want < 0 || lvl < want)
        return;
    json_t *params = json_pack("{s:s, s:s, s:s}", "level", level, "logger", logger ? logger : "neuronlens", "data", message);
    outbox_push(jobs, rpc_notification_line("notifications/message", params));
}

static void job_progress(void *opaque, double progress, double total, const char *message)
{
    job *j = opaque;
    if (!j->progress_token || j->cancel)
        return;
    long long t = now_ns();
    bool final = total > 0 && progress >= total;
    if (j->sent_progress && progress <= j->last_progress)
        return;
    if (j->sent_progress && !final && t - j->last_progress_ns < PROGRESS_MIN_INTERVAL_NS)
        return;
    j->sent_progress = true;
    j->last_progress = progress;
    j->last_progress_ns = t;
    json_t *params = json_pack("{s:O, s:f}", "progressToken", j->progress_token, "progress", progress);
    if (total > 0)
        json_object_set_new(params, "total", json_real(total));
    if (message)
        json_object_set_new(params, "message", json_string(message));
    outbox_push(j->owner, rpc_notification_line("notifications/progress", params));
}

static void job_log(void *opaque, const char *level, const char *message)
{
    job *j = opaque;
    nl_jobs_log(j->owner, level, j->tool, message);
}

/* Pre-2025-06-18 clients know no structuredContent: carry the JSON as the text block instead. */
static void downgrade_result(json_t *result)
{
    json_t *sc = json_object_get(result, "structuredContent");
    if (!sc)
        return;
    char *text = json_dumps(sc, JSON_COMPACT);
    json_object_set_new(result, "content", json_pack("[{s:s, s:s}]", "type", "text", "text", text ? text : ""));
    free(text);
    json_object_del(result, "structuredContent");
}

static char *job_response(nl_jobs *jobs, job *j, nl_tool_result *res)
{
    json_t *result = nl_tool_result_to_json(res);
    if (jobs->legacy_results)
        downgrade_result(result);
    char *line = rpc_result_line(j->id, result);
    /* tools budget their result to max_response_bytes; the JSON-RPC envelope and the id ride on top */
    char *id_text = json_dumps(j->id, JSON_ENCODE_ANY | JSON_COMPACT);
    size_t limit = jobs->cfg.max_response_bytes + JOBS_ENVELOPE_SLACK + (id_text ? strlen(id_text) : 0);
    free(id_text);
    if (line && strlen(line) > limit) {
        size_t n = strlen(line);
        free(line);
        char text[320];
        snprintf(text, sizeof text, "The result of %s was %zu bytes, over this server's budget of %zu bytes per "
                 "response; narrow the request (profile, filters, fewer rows with max_rows, or page with cursor).",
                 j->tool, n, jobs->cfg.max_response_bytes);
        json_t *err = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", text, "isError", 1);
        line = rpc_result_line(j->id, err);
    }
    return line;
}

static void job_run(nl_jobs *jobs, job *j)
{
    nl_call call = {
        .cancel = &j->cancel,
        .hooks = {.opaque = j, .progress = job_progress, .log = job_log},
        .byte_budget = jobs->cfg.max_response_bytes,
    };
    nl_tool_result res;
    nl_tools_call(jobs->cfg.tools, j->tool, j->args, &call, &res);
    if (j->cancel) {
        nl_tool_result_clear(&res);
        return; /* MCP: a cancelled request gets no response */
    }
    outbox_push(jobs, job_response(jobs, j, &res));
}

static void job_free(job *j)
{
    json_decref(j->id);
    json_decref(j->args);
    json_decref(j->progress_token);
    free(j->tool);
    free(j);
}

static void unlink_job(nl_jobs *jobs, job *j)
{
    for (job **p = &jobs->head; *p; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            return;
        }
}

static job *next_queued(nl_jobs *jobs)
{
    for (job *j = jobs->head; j; j = j->next)
        if (!j->running)
            return j;
    return NULL;
}

static void *worker_main(void *arg)
{
    nl_jobs *jobs = arg;
    pthread_mutex_lock(&jobs->lock);
    for (;;) {
        job *j = NULL;
        while (!jobs->shutdown && !(j = next_queued(jobs)))
            pthread_cond_wait(&jobs->work, &jobs->lock);
        if (jobs->shutdown)
            break;
        j->running = true;
        pthread_mutex_unlock(&jobs->lock);
        if (!j->cancel)
            job_run(jobs, j);
        pthread_mutex_lock(&jobs->lock);
        unlink_job(jobs, j);
        job_free(j);
        /* a finished job may be what the main thread waits for (EOF drain): wake it */
        bool wake = jobs->out_head == NULL;
        pthread_mutex_unlock(&jobs->lock);
        if (wake && jobs->cfg.wake)
            jobs->cfg.wake(jobs->cfg.wake_opaque);
        pthread_mutex_lock(&jobs->lock);
    }
    pthread_mutex_unlock(&jobs->lock);
    return NULL;
}

nl_jobs *nl_jobs_new(const nl_jobs_config *cfg)
{
    nl_jobs *jobs = calloc(1, sizeof *jobs);
    if (!jobs)
        return NULL;
    jobs->cfg = *cfg;
    jobs->legacy_results = cfg->legacy_results;
    pthread_mutex_init(&jobs->lock, NULL);
    pthread_cond_init(&jobs->work, NULL);
    unsigned n = cfg->workers ? cfg->workers : 1;
    if (n > JOBS_MAX_WORKERS)
        n = JOBS_MAX_WORKERS;
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&jobs->threads[i], NULL, worker_main, jobs))
            break;
        jobs->nthreads++;
    }
    if (!jobs->nthreads) {
        nl_jobs_free(jobs);
        return NULL;
    }
    return jobs;
}

void nl_jobs_cancel_all(nl_jobs *jobs)
{
    pthread_mutex_lock(&jobs->lock);
    for (job *j = jobs->head; j; j = j->next)
        j->cancel = 1;
    pthread_mutex_unlock(&jobs->lock);
}

void nl_jobs_free(nl_jobs *jobs)
{
    if (!jobs)
        return;
    nl_jobs_cancel_all(jobs);
    pthread_mutex_lock(&jobs->lock);
    jobs->shutdown = true;
    pthread_cond_broadcast(&jobs->work);
    pthread_mutex_unlock(&jobs->lock);
    for (unsigned i = 0; i < jobs->nthreads; i++)
        pthread_join(jobs->threads[i], NULL);
    while (jobs->head) {
        job *j = jobs->head;
        jobs->head = j->next;
        job_free(j);
    }
    for (nl_outline *o = jobs->out_head, *next; o; o = next) {
        next = o->next;
        free(o->line);
        free(o);
    }
    pthread_cond_destroy(&jobs->work);
    pthread_mutex_destroy(&jobs->lock);
    free(jobs);
}

static job *find_job(nl_jobs *jobs, const json_t *id)
{
    for (job *j = jobs->head; j; j = j->next)
        if (json_equal(j->id, (json_t *)id))
            return j;
    return NULL;
}

int nl_jobs_submit(nl_jobs *jobs, json_t *id, const char *tool, json_t *args, json_t *progress_token)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return -1;
    pthread_mutex_lock(&jobs->lock);
    if (find_job(jobs, id)) {
        pthread_mutex_unlock(&jobs->lock);
        free(j);
        return -1;
    }
    j->id = id;
    j->tool = strdup(tool);
    j->args = args;
    j->progress_token = progress_token;
    j->owner = jobs;
    job **tail = &jobs->head;
    while (*tail)
        tail = &(*tail)->next;
    *tail = j;
    pthread_cond_signal(&jobs->work);
    pthread_mutex_unlock(&jobs->lock);
    return 0;
}

bool nl_jobs_cancel(nl_jobs *jobs, const json_t *id)
{
    pthread_mutex_lock(&jobs->lock);
    job *j = find_job(jobs, id);
    if (j)
        j->cancel = 1;
    pthread_mutex_unlock(&jobs->lock);
    return j != NULL;
}

size_t nl_jobs_pending(nl_jobs *jobs)
{
    size_t n = 0;
    pthread_mutex_lock(&jobs->lock);
    for (job *j = jobs->head; j; j = j->next)
        n++;
    pthread_mutex_unlock(&jobs->lock);
    return n;
}

void nl_jobs_set_legacy_results(nl_jobs *jobs, bool legacy)
{
    jobs->legacy_results = legacy;
}
