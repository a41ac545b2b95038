/* server — the nl_server context: creation, output, logging. Dispatch lives in dispatch.c, the event
 * loop in transport.c. */
#include "server_internal.h"
#include "nl_cpu.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

void nl_server_options_default(nl_server_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->max_line_bytes = NL_DEFAULT_MAX_LINE;
    opt->max_response_bytes = NL_DEFAULT_MAX_RESPONSE;
    opt->stderr_level = 3; /* warning */
}

static unsigned default_workers(void)
{
    unsigned n = nl_cpu_count();
    if (n < 2)
        n = 2;
    if (n > 8)
        n = 8;
    return (unsigned)n;
}

static void wake_main(void *opaque)
{
    nl_server *s = opaque;
    pthread_mutex_lock(&s->wake_lock);
    if (s->wake_ev)
        event_active(s->wake_ev, EV_READ, 0); /* thread-safe: evthread_use_pthreads() was called */
    pthread_mutex_unlock(&s->wake_lock);
}

nl_server *nl_server_new(const nl_server_options *opt, nl_emit_fn emit, void *emit_opaque)
{
    nl_server *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (opt)
        s->opt = *opt;
    else
        nl_server_options_default(&s->opt);
    s->emit = emit;
    s->emit_opaque = emit_opaque;
    s->out_fd = 1;
    atomic_init(&s->log_level, -1);
    pthread_mutex_init(&s->wake_lock, NULL);
    nl_tools_options topt = {.fixtures = s->opt.fixtures};
    s->tools = nl_tools_new(&topt);
    nl_jobs_config jcfg = {
        .workers = s->opt.workers ? s->opt.workers : default_workers(),
        .tools = s->tools,
        .log_level = &s->log_level,
        .max_response_bytes = s->opt.max_response_bytes ? s->opt.max_response_bytes : NL_DEFAULT_MAX_RESPONSE,
        .wake = wake_main,
        .wake_opaque = s,
    };
    s->jobs = s->tools ? nl_jobs_new(&jcfg) : NULL;
    if (!s->jobs) {
        fprintf(stderr, "neuronlens: cannot start: %s\n", s->tools ? "worker threads failed to start" : "tool registry failed");
        nl_server_free(s);
        return NULL;
    }
    return s;
}

void nl_server_free(nl_server *s)
{
    if (!s)
        return;
    nl_jobs_free(s->jobs);
    nl_tools_free(s->tools);
    pthread_mutex_destroy(&s->wake_lock);
    free(s);
}

static void write_all(nl_server *s, const char *buf, size_t n)
{
    while (n && !s->out_broken) {
        ssize_t w = write(s->out_fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            usleep(1000); /* stdout was left non-blocking by the parent; wait for the reader */
            continue;
        }
        if (w <= 0) {
            s->out_broken = true; /* EPIPE: the client is gone; the loop stops */
            return;
        }
        buf += w;
        n -= (size_t)w;
    }
}

void server_send(nl_server *s, char *line)
{
    if (!line)
        return;
    size_t n = strlen(line);
    if (s->emit) {
        s->emit(s->emit_opaque, line, n);
    } else {
        line[n] = '\n'; /* reuse the terminator slot: one write per message */
        write_all(s, line, n + 1);
    }
    free(line);
}

void server_send_result(nl_server *s, const json_t *id, json_t *result)
{
    server_send(s, rpc_result_line(id, result));
}

void server_send_error(nl_server *s, const json_t *id, int code, const char *message, json_t *data)
{
    server_send(s, rpc_error_line(id, code, message, data));
}

void server_log(nl_server *s, const char *level, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (nl_log_level_index(level) >= s->opt.stderr_level)
        fprintf(stderr, "neuronlens: %s: %s\n", level, buf);
    if (s->state != NL_STATE_NEW)
        nl_jobs_log(s->jobs, level, "neuronlens", buf);
}

size_t nl_server_drain(nl_server *s)
{
    size_t n = 0;
    for (nl_outline *o = nl_jobs_take_output(s->jobs), *next; o; o = next) {
        next = o->next;
        server_send(s, o->line);
        free(o);
        n++;
    }
    return n;
}

size_t nl_server_pending(nl_server *s)
{
    return nl_jobs_pending(s->jobs);
}

void nl_server_line_too_long(nl_server *s, size_t max_line)
{
    char msg[160];
    snprintf(msg, sizeof msg, "Invalid Request: line longer than %zu bytes was discarded; the next line is read normally",
             max_line);
    server_send_error(s, NULL, RPC_INVALID_REQUEST, msg, NULL);
}
