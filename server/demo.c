/* demo — `neuronlens demo [DIR]`: writes the demo profile (synthetic, from the deterministic generator in
 * bench/: a small 8-layer decoder step on 2 NeuronCores, with NKI source locations, DMAs of several sizes
 * and two collectives per layer in show-session form) into DIR, starts the real server (this same binary,
 * `serve`) as a child over pipes and walks it through what an assistant does — initialize, the lists,
 * orient → summary → kernel-attribution → collective-gaps → trace-extract — printing what it sees.
 *
 * The client side here is deliberately small: blocking writes, a poll()-bounded line reader, one request
 * in flight at a time. Notifications the server sends in between are printed and skipped. */
#include "cli.h"
#include "gen_profile.h"

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
        const char *d = desc_key ? json_string_value(json_object_get(it, desc_key)) : NULL;
        if (d)
            print_wrapped("      ", d, 92);
    }
    json_decref(r);
}

/* Print up to `max` entries of a list field of a result, one compact JSON line each. */
static void print_list(const json_t *sc, const char *key, size_t max)
{
    const json_t *list = json_object_get(sc, key);
    size_t i;
    json_t *it;
    json_array_foreach(list, i, it) {
        if (i >= max) {
            printf("      … %zu more\n", json_array_size(list) - max);
            break;
        }
        char *line = json_dumps(it, JSON_COMPACT | JSON_REAL_PRECISION(6));
        printf("      %.150s%s\n", line ? line : "", line && strlen(line) > 150 ? " …" : "");
        free(line);
    }
}

/* One tools/call as the assistant makes it; prints the text block and the first rows of its lists. */
static json_t *demo_call(demo_client *c, const char *tool, json_t *args, const char *why)
{
    char *shown = json_dumps(args, JSON_COMPACT);
    printf("\nassistant → %s %s\n            (%s)\n", tool, shown ? shown : "{}", why);
    free(shown);
    json_t *r = demo_request(c, "tools/call", json_pack("{s:s, s:o}", "name", tool, "arguments", args));
    json_t *result = json_object_get(r, "result");
    json_t *text = json_object_get(json_array_get(json_object_get(result, "content"), 0), "text");
    printf("server   ← %s", json_is_true(json_object_get(result, "isError")) ? "isError: " : "");
    print_wrapped("", text ? json_string_value(text) : "(no answer)", 92);
    json_t *sc = json_object_get(result, "structuredContent");
    static const char *const lists[] = {"profiles", "engines", "findings", "groups", "layers", "rows", NULL};
    for (size_t i = 0; sc && lists[i]; i++)
        if (json_array_size(json_object_get(sc, lists[i]))) {
            printf("    %s:\n", lists[i]);
            print_list(sc, lists[i], strcmp(lists[i], "findings") ? 5 : 8);
        }
    return r;
}

static void demo_walk(demo_client *c, const char *dir)
{
    char export0[4096];
    snprintf(export0, sizeof export0, "%s", dir);
    json_decref(demo_call(c, "orient", json_pack("{s:s}", "path", dir), "what is in this directory?"));
    json_decref(demo_call(c, "summary", json_pack("{s:s, s:s}", "path", dir, "profile", "profile_nc0"),
                          "headline numbers of core 0"));
    json_decref(demo_call(c, "kernel-attribution", json_pack("{s:s, s:s, s:s, s:i}", "path", dir, "profile", "profile_nc0",
                                                             "group_by", "source", "top", 5), "which source lines cost the most?"));
    json_decref(demo_call(c, "collective-gaps", json_pack("{s:s}", "path", dir), "per-layer latency from collective gaps"));
    json_decref(demo_call(c, "trace-extract", json_pack("{s:s, s:s, s:s, s:s, s:i}", "path", dir, "profile", "profile_nc0",
                                                        "kind", "instruction", "sort", "wait", "max_rows", 3),
                          "the instructions that waited longest"));
}

/* Write the synthetic demo profile into `dir` (created when missing). */
static int demo_write_profile(const char *dir)
{
    gen_options opt;
    gen_options_demo(&opt);
    char err[512];
    if (gen_write(&opt, dir, err, sizeof err)) {
        fprintf(stderr, "neuronlens demo: cannot write the demo profile into %s: %s\n", dir, err);
        return -1;
    }
    printf("wrote the demo profile into %s — SYNTHETIC data from neuronlens's generator (an 8-layer decoder step on\n"
           "2 NeuronCores, seed %llu), not a real device capture. Every file in it says so.\n", dir,
           (unsigned long long)opt.seed);
    return 0;
}

int cli_demo(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: neuronlens demo [DIR]\n");
        return 2;
    }
    char tmp[] = "/tmp/neuronlens-demo-XXXXXX";
    const char *dir = argc > 0 ? argv[0] : mkdtemp(tmp);
    if (!dir) {
        fprintf(stderr, "neuronlens demo: cannot create a directory in /tmp: %s\n", strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    printf("neuronlens demo — the real server, driven over stdio the way a coding assistant drives it.\n\n");
    if (demo_write_profile(dir))
        return 1;
    demo_client c = {0};
    if (demo_start(&c)) {
        fprintf(stderr, "neuronlens demo: cannot start the server: %s\n", strerror(errno));
        return 1;
    }
    int status = 0;
    if (demo_handshake(&c)) {
        fprintf(stderr, "neuronlens demo: the server did not answer initialize\n");
        status = 1;
    } else {
        demo_list(&c, "tools/list", "tools", "name", "description");
        demo_list(&c, "resources/list", "resources", "uri", NULL);
        demo_list(&c, "prompts/list", "prompts", "name", NULL);
        demo_walk(&c, dir);
    }
    demo_stop(&c);
    printf("\nThe demo profile stays in %s; point any MCP client at it.\n", dir);
    return status;
}
