/* export_adapter — turns a raw NTFF (+NEFF) into a neuron-profile full JSON export by running AWS's
 * `neuron-profile` when it is installed, and caches the export by the NTFF's content hash.
 *
 * The tool is found as: the explicit path given, else $NEURONLENS_NEURON_PROFILE, else `neuron-profile`
 * on $PATH. It is run with argv (never a shell), stdin from /dev/null and stdout/stderr to a log file
 * in the cache (never our stdout, which carries MCP), in its own process group, killed on timeout or
 * cancel. When the tool is absent, nl_adapter_command_hint() gives the exact command to run on the
 * Trainium host. Thread-safe: no shared state; concurrent exports of one NTFF race only on an atomic
 * rename of the finished file. */
#ifndef NL_EXPORT_ADAPTER_H
#define NL_EXPORT_ADAPTER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

#define NL_ADAPTER_DEFAULT_TIMEOUT_MS (30 * 60 * 1000)

typedef struct nl_adapter_options {
    const char *tool_path;     /* NULL: $NEURONLENS_NEURON_PROFILE, then PATH */
    const char *cache_dir;     /* NULL: $NEURONLENS_CACHE_DIR, $XDG_CACHE_HOME/neuronlens, ~/.cache/neuronlens */
    int timeout_ms;            /* 0: NL_ADAPTER_DEFAULT_TIMEOUT_MS */
    const atomic_int *cancel;  /* may be NULL */
} nl_adapter_options;

/* Absolute path of the neuron-profile binary to use (malloc'd), or NULL when none is installed. */
char *nl_adapter_find_tool(const nl_adapter_options *opt);

/* The cache directory that would be used (malloc'd), creating it (mode 0700) when `create`. */
char *nl_adapter_cache_dir(const nl_adapter_options *opt, int create, nl_error *err);

/* 64-bit content hash of a file (all bytes, streamed), as 16 lowercase hex chars + NUL in `out`. */
int nl_adapter_hash_file(const char *path, char out[17], const atomic_int *cancel, nl_error *err);

/* The command a user should run on the Trainium host to produce the export (malloc'd). */
char *nl_adapter_command_hint(const char *ntff_path, const char *neff_path);

/* Produce (or reuse) the full JSON export of `ntff_path`. On success *out_path is the cached export
 * (malloc'd) and *was_cached says whether the tool ran. Errors: NL_ERR_NOT_FOUND (tool absent; the
 * message carries the command hint), NL_ERR_CANCELLED, NL_ERR_LIMIT (timeout), NL_ERR_IO (tool failed;
 * the message names its exit status and log file). */
int nl_adapter_export(const char *ntff_path, const char *neff_path, const nl_adapter_options *opt,
                      char **out_path, int *was_cached, nl_error *err) __attribute__((warn_unused_result));

#endif
