/* demo — `neuronlens demo [DIR]`: starts the real server (this same binary, `serve`) as a child over
 * pipes and walks it through an assistant's first minute — initialize, tools/list, resources/list,
 * prompts/list, a resource read and a first tool call — printing what the assistant sees.
 *
 * The client side here is deliberately small: blocking writes, a poll()-bounded line reader, one request
 * in flight at a time. Notifications the server sends in between are printed and skipped. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEMO_TIMEOUT_MS 30000
#define DEMO_MAX_LINE (16 * 1024 * 1024)

extern char **environ;

typedef struct demo_client {
    pid_t pid;
    int to_server, from_server;
    char *buf;
    size_t len, cap;
    int next_id;
} demo_client;

static int demo_start(demo_client *c)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    int in[2], out[2];
    if (pipe(in) || pipe(out))
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    char *argv[] = {self, "serve", NULL};
    int rc = posix_spawn(&c->pid, self, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    c->to_server = in[1];
    c->from_server = out[0];
    return rc ? -1 : 0;
}

static int demo_send(demo_client *c, json_t *msg)
{
    char *line = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!line)
        return -1;
    size_t n = strlen(line);
    line[n] = '\n'; /* json_dumps leaves room for the terminator we replace */
    const char *p = line;
    size_t left = n + 1;
    while (left) {
        ssize_t w = write(c->to_server, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            free(line);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    free(line);
    return 0;
}

/* Read one line from the server (bounded wait); returns a parsed message or NULL. */
static json_t *demo_read(demo_client *c)
{
    for (;;) {
        char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            json_t *msg = json_loadb(c->buf, n, 0, NULL);
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            return msg;
        }
        struct pollfd pfd = {c->from_server, POLLIN, 0};
        if (poll(&pfd, 1, DEMO_TIMEOUT_MS) <= 0 || c->len >= DEMO_MAX_LINE)
            return NULL;
        if (c->cap - c->len < 65536) {
            size_t cap = c->cap ? c->cap * 2 : 131072;
            char *grown = realloc(c->buf, cap);
            if (!grown)
                return NULL;
            c->buf = grown;
            c->cap = cap;
        }
        ssize_t r = read(c->from_server, c->buf + c->len, c->cap - c->len);
        if (r <= 0)
            return NULL;
        c->len += (size_t)r;
    }
}

/* Send a request and wait for its response, printing notifications seen meanwhile. */
static json_t *demo_request(demo_client *c, const char *method, json_t *params)
{
    int id = c->next_id++;
    json_t *msg = json_pack("{s:s, s:i, s:s}", "jsonrpc", "2.0", "id", id, "method", method);
    if (params)
        json_object_set_new(msg, "params", params);
    if (demo_send(c, msg))
        return NULL;
    for (;;) {
        json_t *in = demo_read(c);
        if (!in)
            return NULL;
        if (json_integer_value(json_object_get(in, "id")) == id && !json_object_get(in, "method"))
            return in;
        printf("    (notification %s)\n", json_string_value(json_object_get(in, "method")));
        json_decref(in);
    }
}

static void demo_stop(demo_client *c)
{
    close(c->to_server); /* stdin EOF: the server exits on its own */
    int status = 0;
    waitpid(c->pid, &status, 0);
    close(c->from_server);
    free(c->buf);
}

static void print_wrapped(const char *indent, const char *text, size_t width)
{
    size_t col = 0;
    printf("%s", indent);
    for (const char *w = text; *w;) {
        size_t n = strcspn(w, " ");
        if (col && col + n + 1 > width) {
            printf("\n%s", indent);
            col = 0;
        } else if (col) {
            putchar(' ');
            col++;
        }
        printf("%.*s", (int)n, w);
        col += n;
        w += n;
        while (*w == ' ')
            w++;
    }
    putchar('\n');
}

static int demo_handshake(demo_client *c)
{
    printf("assistant → initialize (protocol 2025-11-25)\n");
    json_t *r = demo_request(c, "initialize", json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", "2025-11-25",
                                                            "capabilities", "clientInfo", "name", "neuronlens-demo", "version", "1"));
    json_t *result = json_object_get(r, "result");
    if (!result) {
        json_decref(r);
        return -1;
    }
    json_t *info = json_object_get(result, "serverInfo");
    printf("server   ← %s %s, protocol %s\n", json_string_value(json_object_get(info, "name")),
           json_string_value(json_object_get(info, "version")), json_string_value(json_object_get(result, "protocolVersion")));
    print_wrapped("           ", json_string_value(json_object_get(result, "instructions")), 96);
    json_decref(r);
    return demo_send(c, json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", "notifications/initialized"));
}

static void demo_list(demo_client *c, const char *method, const char *key, const char *name_key, const char *desc_key)
{
    json_t *r = demo_request(c, method, NULL);
    json_t *items = json_object_get(json_object_get(r, "result"), key);
    char *raw = json_dumps(json_object_get(r, "result"), JSON_COMPACT);
    printf("\nassistant → %s\nserver   ← %zu %s (%zu bytes on the wire)\n", method, json_array_size(items), key,
           raw ? strlen(raw) : 0);
    free(raw);
    size_t i;
    json_t *it;
    json_array_foreach(items, i, it) {
        printf("  • %s\n", json_string_value(json_object_get(it, name_key)));
        const char *d = json_string_value(json_object_get(it, desc_key));
        if (d)
            print_wrapped("      ", d, 92);
    }
    json_decref(r);
}

static void demo_first_call(demo_client *c, const char *path)
{
    printf("\nassistant → tools/call orient {\"path\": \"%s\"}\n", path);
    json_t *r = demo_request(c, "tools/call", json_pack("{s:s, s:{s:s}}", "name", "orient", "arguments", "path", path));
    json_t *result = json_object_get(r, "result");
    json_t *text = json_object_get(json_array_get(json_object_get(result, "content"), 0), "text");
    printf("server   ← %s\n", json_is_true(json_object_get(result, "isError")) ? "isError: true" : "result");
    print_wrapped("           ", text ? json_string_value(text) : "(no text)", 92);
    json_decref(r);
}

int cli_demo(int argc, char **argv)
{
    const char *dir = argc > 0 ? argv[0] : ".";
    if (argc > 1) {
        fprintf(stderr, "usage: neuronlens demo [DIR]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    demo_client c = {0};
    if (demo_start(&c)) {
        fprintf(stderr, "neuronlens demo: cannot start the server: %s\n", strerror(errno));
        return 1;
    }
    printf("neuronlens demo — the real server, driven over stdio the way a coding assistant drives it.\n\n");
    int status = 0;
    if (demo_handshake(&c)) {
        fprintf(stderr, "neuronlens demo: the server did not answer initialize\n");
        status = 1;
    } else {
        demo_list(&c, "tools/list", "tools", "name", "description");
        demo_list(&c, "resources/list", "resources", "uri", "description");
        demo_list(&c, "prompts/list", "prompts", "name", "description");
        demo_first_call(&c, dir);
    }
    demo_stop(&c);
    return status;
}
