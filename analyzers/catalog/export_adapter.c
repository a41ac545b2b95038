/* export_adapter — see export_adapter.h.
 *
 * Cache layout: <cache>/export-<hash>.json (the finished export, renamed into place atomically),
 * <cache>/export-<hash>.log (the tool's stdout+stderr), <cache>/export-<hash>.<pid>.<n>.tmp while it
 * runs. The hash covers every byte of the NTFF (a rewritten NTFF with the same name, size and mtime
 * still misses the cache), mixed 8 bytes at a time (FNV-style multiply + xorshift): hashing runs at
 * memory speed and collisions among one user's profiles are not a concern we defend against. */
#include "export_adapter.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ADAPTER_POLL_MS 20
#define ADAPTER_HASH_CHUNK (1u << 20)
#define ADAPTER_PATH_MAX 4096

extern char **environ;

static int is_executable(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static char *search_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    char buf[ADAPTER_PATH_MAX];
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        if (n && n + strlen(name) + 2 < sizeof buf) {
            snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name);
            if (is_executable(buf))
                return strdup(buf);
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return NULL;
}

char *nl_adapter_find_tool(const nl_adapter_options *opt)
{
    const char *explicit_path = opt && opt->tool_path ? opt->tool_path : getenv("NEURONLENS_NEURON_PROFILE");
    if (explicit_path && *explicit_path)
        return is_executable(explicit_path) ? strdup(explicit_path) : (strchr(explicit_path, '/') ? NULL : search_path(explicit_path));
    return search_path("neuron-profile");
}

static int mkdir_p(const char *dir)
{
    char buf[ADAPTER_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0700) && errno != EEXIST ? -1 : 0;
}

char *nl_adapter_cache_dir(const nl_adapter_options *opt, int create, nl_error *err)
{
    char buf[ADAPTER_PATH_MAX];
    const char *env;
    if (opt && opt->cache_dir)
        snprintf(buf, sizeof buf, "%s", opt->cache_dir);
    else if ((env = getenv("NEURONLENS_CACHE_DIR")) && *env)
        snprintf(buf, sizeof buf, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(buf, sizeof buf, "%s/neuronlens", env);
    else if ((env = getenv("HOME")) && *env)
        snprintf(buf, sizeof buf, "%s/.cache/neuronlens", env);
    else
        snprintf(buf, sizeof buf, "/tmp/neuronlens-cache-%d", (int)getuid());
    if (create && mkdir_p(buf)) {
        nl_error_set(err, NL_ERR_IO, buf, -1, "cannot create the export cache directory: %s", strerror(errno));
        return NULL;
    }
    return strdup(buf);
}

static uint64_t hash_mix(uint64_t h, uint64_t word)
{
    h ^= word;
    h *= 0x100000001b3ULL * 0x9E3779B97F4A7C15ULL | 1;
    return h ^ (h >> 29);
}

int nl_adapter_hash_file(const char *path, char out[17], const atomic_int *cancel, nl_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return nl_error_set(err, NL_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
    unsigned char *buf = malloc(ADAPTER_HASH_CHUNK);
    if (!buf) {
        close(fd);
        return nl_error_set(err, NL_ERR_NOMEM, path, -1, "out of memory hashing the file");
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    int64_t total = 0;
    for (;;) {
        ssize_t n = read(fd, buf, ADAPTER_HASH_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            nl_error_set(err, NL_ERR_IO, path, total, "read failed: %s", strerror(errno));
            break;
        }
        if (n == 0) {
            h = hash_mix(h, (uint64_t)total);
            snprintf(out, 17, "%016llx", (unsigned long long)h);
            free(buf);
            close(fd);
            return 0;
        }
        size_t i = 0;
        for (; i + 8 <= (size_t)n; i += 8) {
            uint64_t w;
            memcpy(&w, buf + i, 8);
            h = hash_mix(h, w);
        }
        for (; i < (size_t)n; i++)
            h = hash_mix(h, buf[i]);
        total += n;
        if (cancel && atomic_load(cancel)) {
            nl_error_set(err, NL_ERR_CANCELLED, path, total, "cancelled while hashing");
            break;
        }
    }
    free(buf);
    close(fd);
    return -1;
}

char *nl_adapter_command_hint(const char *ntff_path, const char *neff_path)
{
    char buf[3 * ADAPTER_PATH_MAX];
    const char *base = strrchr(ntff_path, '/');
    base = base ? base + 1 : ntff_path;
    size_t stem = strcspn(base, ".");
    snprintf(buf, sizeof buf, "neuron-profile view %s%s%s-s %s --output-format json --output-file %.*s.json",
             neff_path ? "-n " : "", neff_path ? neff_path : "", neff_path ? " " : "", ntff_path, (int)stem, base);
    return strdup(buf);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int spawn_tool(const char *tool, char *const argv[], const char *log_path, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0); /* own group: a kill reaches its children too */
    int rc = posix_spawn(pid, tool, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* Wait for the child, killing its process group on cancel or timeout. Returns 0 when it exited 0. */
static int wait_tool(pid_t pid, const nl_adapter_options *opt, const char *log_path, nl_error *err)
{
    long long deadline = now_ms() + (opt && opt->timeout_ms > 0 ? opt->timeout_ms : NL_ADAPTER_DEFAULT_TIMEOUT_MS);
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
            return nl_error_set(err, NL_ERR_IO, log_path, -1, "neuron-profile failed (%s %d); its output is in the log file",
                                WIFEXITED(status) ? "exit status" : "signal",
                                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        }
        if (r < 0 && errno != EINTR)
            return nl_error_set(err, NL_ERR_IO, log_path, -1, "waitpid failed: %s", strerror(errno));
        int cancelled = opt && opt->cancel && atomic_load(opt->cancel);
        if (cancelled || now_ms() > deadline) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            if (cancelled)
                return nl_error_set(err, NL_ERR_CANCELLED, log_path, -1, "cancelled; neuron-profile was killed");
            return nl_error_set(err, NL_ERR_LIMIT, log_path, -1, "neuron-profile did not finish within %d ms and was killed",
                                opt && opt->timeout_ms > 0 ? opt->timeout_ms : NL_ADAPTER_DEFAULT_TIMEOUT_MS);
        }
        struct timespec ts = {0, ADAPTER_POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static int run_tool(const char *tool, const char *ntff, const char *neff, const char *tmp_path, const char *log_path,
                    const nl_adapter_options *opt, nl_error *err)
{
    char *argv[12];
    int i = 0;
    argv[i++] = (char *)tool;
    argv[i++] = "view";
    if (neff) {
        argv[i++] = "-n";
        argv[i++] = (char *)neff;
    }
    argv[i++] = "-s";
    argv[i++] = (char *)ntff;
    argv[i++] = "--output-format";
    argv[i++] = "json";
    argv[i++] = "--output-file";
    argv[i++] = (char *)tmp_path;
    argv[i] = NULL;
    pid_t pid;
    int rc = spawn_tool(tool, argv, log_path, &pid);
    if (rc)
        return nl_error_set(err, NL_ERR_IO, tool, -1, "cannot start neuron-profile: %s", strerror(rc));
    return wait_tool(pid, opt, log_path, err);
}

static int file_nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

int nl_adapter_export(const char *ntff_path, const char *neff_path, const nl_adapter_options *opt,
                      char **out_path, int *was_cached, nl_error *err)
{
    *out_path = NULL;
    *was_cached = 0;
    char *tool = nl_adapter_find_tool(opt);
    if (!tool) {
        char *hint = nl_adapter_command_hint(ntff_path, neff_path);
        nl_error_set(err, NL_ERR_NOT_FOUND, ntff_path, -1,
                     "neuron-profile is not installed here; on the Trainium host run: %s", hint ? hint : "neuron-profile view");
        free(hint);
        return -1;
    }
    char hash[17];
    char *dir = NULL;
    int rc = -1;
    if (nl_adapter_hash_file(ntff_path, hash, opt ? opt->cancel : NULL, err) ||
        !(dir = nl_adapter_cache_dir(opt, 1, err)))
        goto out;
    char final_path[ADAPTER_PATH_MAX], tmp_path[ADAPTER_PATH_MAX + 64], log_path[ADAPTER_PATH_MAX];
    snprintf(final_path, sizeof final_path, "%s/export-%s.json", dir, hash);
    snprintf(log_path, sizeof log_path, "%s/export-%s.log", dir, hash);
    if (file_nonempty(final_path)) {
        *was_cached = 1;
        *out_path = strdup(final_path);
        rc = 0;
        goto out;
    }
    static const char tmp_fmt[] = "%s.%d.%lld.tmp";
    snprintf(tmp_path, sizeof tmp_path, tmp_fmt, final_path, (int)getpid(), now_ms());
    if (run_tool(tool, ntff_path, neff_path, tmp_path, log_path, opt, err)) {
        unlink(tmp_path);
        goto out;
    }
    if (!file_nonempty(tmp_path)) {
        nl_error_set(err, NL_ERR_FORMAT, log_path, -1, "neuron-profile exited 0 but wrote no export (an empty JSON is a known "
                     "Explorer 2.31/2.32 failure); see the log file");
        unlink(tmp_path);
        goto out;
    }
    if (rename(tmp_path, final_path)) {
        nl_error_set(err, NL_ERR_IO, final_path, -1, "cannot move the export into the cache: %s", strerror(errno));
        unlink(tmp_path);
        goto out;
    }
    *out_path = strdup(final_path);
    rc = 0;
out:
    free(dir);
    free(tool);
    return rc;
}
