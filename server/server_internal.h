/* server_internal — the nl_server struct and the handlers split across the server/ files. Only server/ includes
 * it. Everything here runs on the main thread. */
#ifndef NL_SERVER_INTERNAL_H
#define NL_SERVER_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>

#include "jobs.h"
#include "jsonrpc.h"
#include "server.h"
#include "tools.h"

typedef enum nl_state {
    NL_STATE_NEW,         /* only initialize and ping are served */
    NL_STATE_INITIALIZED, /* initialize answered; notifications/initialized may follow */
    NL_STATE_READY,
} nl_state;

struct nl_server {
    nl_server_options opt;
    nl_tools *tools;
    nl_jobs *jobs;
    nl_state state;
    char protocol_version[16];
    atomic_int log_level;      /* client's logging/setLevel, -1 until set */
    nl_emit_fn emit;
    void *emit_opaque;
    int out_fd;
    bool out_broken;           /* stdout closed (EPIPE): stop */
    struct event_base *base;   /* set while nl_server_run runs */
    struct event *wake_ev;     /* guarded by wake_lock: workers fire it, the main thread frees it */
    pthread_mutex_t wake_lock;
};

/* Send one line and free it (NULL is ignored). */
void server_send(nl_server *s, char *line);
void server_send_result(nl_server *s, const json_t *id, json_t *result);
void server_send_error(nl_server *s, const json_t *id, int code, const char *message, json_t *data);
/* stderr diagnostics at or above opt.stderr_level, plus notifications/message at the client's level. */
void server_log(nl_server *s, const char *level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* resources.c and prompts.c: each returns a result object, or NULL after sending an error itself. */
json_t *resources_list(nl_server *s, const json_t *id, const json_t *params);
json_t *resources_templates_list(nl_server *s, const json_t *id, const json_t *params);
json_t *resources_read(nl_server *s, const json_t *id, const json_t *params);
json_t *prompts_list(nl_server *s, const json_t *id, const json_t *params);
json_t *prompts_get(nl_server *s, const json_t *id, const json_t *params);
/* Shared pagination check: single-page lists accept no cursor except none. */
int server_check_no_cursor(nl_server *s, const json_t *id, const json_t *params);

#endif
