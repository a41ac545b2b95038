/* transport — the stdio event loop (libevent): reads stdin into lines, writes stdout from the main
 * thread only, wakes on worker output, stops on EOF / SIGTERM / SIGINT / a broken stdout.
 *
 * stdin may be a pipe, a socket, a tty, a regular file or /dev/null; epoll refuses the last two, so
 * for anything that is not a pipe or socket the poll backend is chosen. On EOF the server keeps
 * serving running calls for at most EOF_GRACE_MS (so `printf '...' | neuronlens` still gets quick
 * answers), then cancels what is left and returns; the process exits well within the 1 s MCP budget. */
#include "server_internal.h"
#include "linebuf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#define READ_CHUNK (64 * 1024)
#define EOF_GRACE_MS 500

typedef struct transport {
    nl_server *s;
    int in_fd;
    linebuf lines;
    struct event *read_ev, *sigterm_ev, *sigint_ev, *grace_ev;
    bool input_closed;
    bool cancelled_rest;
} transport;

static void stop_if_done(transport *t)
{
    if (t->s->out_broken || (t->input_closed && nl_server_pending(t->s) == 0))
        event_base_loopbreak(t->s->base);
}

static void on_line(void *opaque, const char *line, size_t len)
{
    transport *t = opaque;
    nl_server_handle_line(t->s, line, len);
}

static void on_oversize(void *opaque, size_t max_line)
{
    transport *t = opaque;
    nl_server_line_too_long(t->s, max_line);
}

static void on_grace_over(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    transport *t = arg;
    t->cancelled_rest = true;
    nl_jobs_cancel_all(t->s->jobs); /* in-flight requests are lost at shutdown, as MCP allows */
    event_base_loopbreak(t->s->base);
}

static void input_closed(transport *t)
{
    linebuf_finish(&t->lines);
    t->input_closed = true;
    event_del(t->read_ev);
    struct timeval grace = {0, EOF_GRACE_MS * 1000};
    evtimer_add(t->grace_ev, &grace);
    stop_if_done(t);
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    transport *t = arg;
    char buf[READ_CHUNK];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        input_closed(t);
        return;
    }
    if (linebuf_push(&t->lines, buf, (size_t)n))
        server_log(t->s, "error", "out of memory while buffering input");
    nl_server_drain(t->s);
    stop_if_done(t);
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    transport *t = arg;
    nl_server_drain(t->s);
    stop_if_done(t);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    transport *t = arg;
    server_log(t->s, "info", "signal %d: shutting down", (int)sig);
    nl_jobs_cancel_all(t->s->jobs);
    event_base_loopbreak(t->s->base);
}

static struct event_base *make_base(int in_fd)
{
    struct stat st;
    struct event_config *cfg = event_config_new();
    if (!cfg)
        return NULL;
    if (fstat(in_fd, &st) == 0 && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
        event_config_avoid_method(cfg, "epoll");
    struct event_base *base = event_base_new_with_config(cfg);
    event_config_free(cfg);
    return base;
}

static int transport_open(transport *t, nl_server *s, int in_fd)
{
    t->s = s;
    t->in_fd = in_fd;
    linebuf_init(&t->lines, s->opt.max_line_bytes ? s->opt.max_line_bytes : NL_DEFAULT_MAX_LINE, on_line, on_oversize, t);
    if (evthread_use_pthreads() != 0)
        return -1;
    s->base = make_base(in_fd);
    if (!s->base)
        return -1;
    t->read_ev = event_new(s->base, in_fd, EV_READ | EV_PERSIST, on_readable, t);
    struct event *wake = event_new(s->base, -1, EV_PERSIST, on_wake, t);
    pthread_mutex_lock(&s->wake_lock);
    s->wake_ev = wake;
    pthread_mutex_unlock(&s->wake_lock);
    t->sigterm_ev = evsignal_new(s->base, SIGTERM, on_signal, t);
    t->sigint_ev = evsignal_new(s->base, SIGINT, on_signal, t);
    t->grace_ev = evtimer_new(s->base, on_grace_over, t);
    if (!t->read_ev || !wake || !t->sigterm_ev || !t->sigint_ev || !t->grace_ev)
        return -1;
    if (event_add(t->read_ev, NULL) || event_add(t->sigterm_ev, NULL) || event_add(t->sigint_ev, NULL))
        return -1;
    return 0;
}

static void transport_close(transport *t)
{
    nl_server *s = t->s;
    pthread_mutex_lock(&s->wake_lock);
    struct event *wake = s->wake_ev;
    s->wake_ev = NULL; /* from here on workers no longer touch the loop */
    pthread_mutex_unlock(&s->wake_lock);
    struct event *evs[] = {t->read_ev, wake, t->sigterm_ev, t->sigint_ev, t->grace_ev};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (evs[i])
            event_free(evs[i]);
    if (s->base)
        event_base_free(s->base);
    s->base = NULL;
    linebuf_close(&t->lines);
}

int nl_server_run(nl_server *s, int in_fd, int out_fd)
{
    signal(SIGPIPE, SIG_IGN);
    s->out_fd = out_fd;
    transport t = {0};
    int status = 0;
    if (transport_open(&t, s, in_fd)) {
        fprintf(stderr, "neuronlens: cannot start the event loop on stdin\n");
        status = 1;
    } else {
        event_base_dispatch(s->base);
        nl_jobs_cancel_all(s->jobs);
    }
    /* remove the wake event before workers may fire it again, then flush what finished */
    transport_close(&t);
    if (!s->out_broken)
        nl_server_drain(s);
    return status;
}
