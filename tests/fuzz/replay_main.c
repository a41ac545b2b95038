/* replay_main — the main() a fuzz target gets outside the libFuzzer build: runs LLVMFuzzerTestOneInput once
 * on every regular file named on the command line or found (not recursively) in a directory named there, in
 * name order, so the committed corpus of each target (seeds and the reproducer of every crash found) is a
 * regression test of the normal, clang and ASan builds. An oracle failure aborts (the test fails); the
 * file being run is printed first so the failing one is named. Exit: 0, or 1 when an argument is unreadable
 * or names no file. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

/* Only a target that defines it has one (libFuzzer treats it the same way). */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    printf("replay: %s (%zu bytes)\n", path, len);
    fflush(stdout);
    /* an exact-size copy, so ASan sees a read one past the input as one */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file in `dir`, in name order; returns how many ran, or -1. */
static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
        }
        size_t need = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(need);
        if (!names[n]) {
            rc = -1;
            break;
        }
        snprintf(names[n], need, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (names)
        qsort(names, n, sizeof *names, by_name);
    int ran = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(names[i]) != 0)
                rc = -1;
            else
                ran++;
        }
        free(names[i]);
    }
    free(names);
    return rc ? -1 : ran;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int ran = -1;
        if (stat(argv[i], &st) == 0)
            ran = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) ? -1 : 1;
        if (ran < 0) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 1;
        }
        total += ran;
    }
    if (total == 0) {
        fprintf(stderr, "replay: no input files\n");
        return 1;
    }
    printf("replay: %d inputs, no failure\n", total);
    return 0;
}
