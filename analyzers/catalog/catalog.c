/* catalog — the walk and the public API (see catalog.h for the contract and the profile id scheme).
 *
 * Scan = walk → classify → group:
 *   1. walk (this file): iterative, with an explicit stack of pending directories, so depth never grows
 *      the C stack. Every entry is lstat'ed; symlinks are followed with stat, and a directory is entered
 *      only if its (dev, ino) has not been seen — this ends symlink loops and avoids entering the same
 *      tree twice. Regular files are de-duplicated by (dev, ino) too. FIFOs, sockets and devices are
 *      noted and never opened (opening a FIFO blocks). Names inside a directory are sorted so that the
 *      result does not depend on readdir order. Limits: max_depth levels, max_files regular files,
 *      max_entries entries of any kind; reaching one stops (or prunes) the walk with a note.
 *   2. classify (catalog_sniff.c): each file's name and first bytes decide its kind; NEFF headers and
 *      NTFF metadata are read for their identity.
 *   3. group (catalog_group.c): ranks, NEFF↔NTFF pairing, export attachment, profiles and their ids.
 *
 * Memory: arrays grow by doubling; strings live in a pool of 64 KiB blocks freed together. */
#include "catalog_internal.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nl_cpu.h"

#define CATALOG_POOL_BLOCK (64 * 1024)
#define CATALOG_CLASSIFY_THREADS_MAX 16 /* threads classifying files (I/O-bound beyond a few) */

/* ---- memory ----------------------------------------------------------------------------------------- */

struct catalog_pool_block {
    catalog_pool_block *next;
    size_t used, cap;
    char data[];
};

static void *catalog_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("neuronlens: out of memory in catalog\n", stderr);
        abort();
    }
    return q;
}

void *catalog_push(void **arr, size_t *count, size_t *cap, size_t elem)
{
    if (*count == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *arr = catalog_xrealloc(*arr, *cap * elem);
    }
    char *slot = (char *)*arr + (*count)++ * elem;
    memset(slot, 0, elem);
    return slot;
}

static char *catalog_pool_alloc(nl_catalog *cat, size_t n)
{
    catalog_pool_block *b = cat->pool;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > CATALOG_POOL_BLOCK ? n : CATALOG_POOL_BLOCK;
        b = catalog_xrealloc(NULL, sizeof *b + cap);
        b->used = 0;
        b->cap = cap;
        b->next = cat->pool;
        cat->pool = b;
    }
    char *p = b->data + b->used;
    b->used += n;
    return p;
}

const char *catalog_strdup(nl_catalog *cat, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = catalog_pool_alloc(cat, n);
    memcpy(p, s, n);
    return p;
}

__attribute__((format(printf, 2, 0)))
static const char *catalog_vprintf(nl_catalog *cat, const char *fmt, va_list ap)
{
    if (!fmt) /* never true; tells gcc's -Wformat-truncation (under -fsanitize) that fmt is not NULL */
        return "";
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    char *p = catalog_pool_alloc(cat, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

const char *catalog_printf(nl_catalog *cat, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *s = catalog_vprintf(cat, fmt, ap);
    va_end(ap);
    return s;
}

void catalog_note(nl_catalog *cat, nl_note_code code, nl_note_severity sev, const char *path, const char *fix,
                  const char *fmt, ...)
{
    if ((unsigned)code < NL_NOTE_CODE_COUNT && cat->notes_by_code[code]++ >= NL_CATALOG_MAX_NOTES_PER_CODE)
        return;
    nl_catalog_note *n = catalog_push((void **)&cat->notes, &cat->note_count, &cat->note_cap, sizeof *n);
    n->code = code;
    n->severity = sev;
    n->path = catalog_strdup(cat, path);
    n->fix = fix;
    va_list ap;
    va_start(ap, fmt);
    n->message = catalog_vprintf(cat, fmt, ap);
    va_end(ap);
}

const char *catalog_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---- (dev, ino) set --------------------------------------------------------------------------------- */

static size_t catalog_idset_slot(const catalog_idset *s, uint64_t dev, uint64_t ino)
{
    uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino * 0xc2b2ae3d27d4eb4full);
    h ^= h >> 29;
    return (size_t)h & (s->cap - 1);
}

static void catalog_idset_grow(catalog_idset *s)
{
    catalog_idset bigger = {.cap = s->cap ? 2 * s->cap : 256};
    bigger.keys = catalog_xrealloc(NULL, bigger.cap * 2 * sizeof *bigger.keys);
    memset(bigger.keys, 0, bigger.cap * 2 * sizeof *bigger.keys);
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->keys[2 * i + 1])
            continue;
        size_t j = catalog_idset_slot(&bigger, s->keys[2 * i], s->keys[2 * i + 1] - 1);
        while (bigger.keys[2 * j + 1])
            j = (j + 1) & (bigger.cap - 1);
        bigger.keys[2 * j] = s->keys[2 * i];
        bigger.keys[2 * j + 1] = s->keys[2 * i + 1];
    }
    bigger.count = s->count;
    free(s->keys);
    *s = bigger;
}

/* Insert; returns false when the pair was already present. */
static bool catalog_idset_add(catalog_idset *s, uint64_t dev, uint64_t ino)
{
    if (2 * (s->count + 1) > s->cap)
        catalog_idset_grow(s);
    size_t j = catalog_idset_slot(s, dev, ino);
    while (s->keys[2 * j + 1]) {
        if (s->keys[2 * j] == dev && s->keys[2 * j + 1] == ino + 1)
            return false;
        j = (j + 1) & (s->cap - 1);
    }
    s->keys[2 * j] = dev;
    s->keys[2 * j + 1] = ino + 1;
    s->count++;
    return true;
}

/* ---- walk ------------------------------------------------------------------------------------------- */

typedef struct catalog_pending {
    char *path;                /* openable path */
    char *rel;                 /* relative to the root ("" for the root) */
    unsigned depth;
} catalog_pending;

typedef struct catalog_walk {
    nl_catalog *cat;
    catalog_pending *stack;
    size_t count, cap;
    size_t entries;            /* entries examined so far */
    bool stop;                 /* a limit ended the walk */
} catalog_walk;

static char *catalog_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = catalog_xrealloc(NULL, a + b + 2);
    memcpy(p, dir, a);
    size_t k = a;
    if (a && dir[a - 1] != '/')
        p[k++] = '/';
    memcpy(p + k, name, b + 1);
    return p;
}

static const char *catalog_special_name(mode_t m)
{
    if (S_ISFIFO(m))
        return "FIFO";
    if (S_ISSOCK(m))
        return "socket";
    if (S_ISCHR(m))
        return "character device";
    if (S_ISBLK(m))
        return "block device";
    return "special file";
}

static void catalog_stop(catalog_walk *w, const char *rel, const char *what, size_t limit)
{
    if (w->stop)
        return;
    w->stop = true;
    w->cat->truncated = true;
    catalog_note(w->cat, NL_NOTE_FILE_LIMIT, NL_NOTE_WARN, rel,
                 "point the scan at a narrower directory, or raise the limit",
                 "scan stopped after %zu %s; files beyond this point are not catalogued", limit, what);
}

static void catalog_add_file(catalog_walk *w, const char *path, const char *rel, const struct stat *st)
{
    nl_catalog *cat = w->cat;
    if (cat->file_count >= cat->lim.max_files) {
        catalog_stop(w, rel, "regular files (max_files)", cat->lim.max_files);
        return;
    }
    if (!catalog_idset_add(&cat->files_seen, (uint64_t)st->st_dev, (uint64_t)st->st_ino)) {
        catalog_note(cat, NL_NOTE_DUPLICATE_FILE, NL_NOTE_INFO, rel, NULL,
                     "same file as one already catalogued (reached through a link); listed once");
        return;
    }
    nl_catalog_file *f = catalog_push((void **)&cat->files, &cat->file_count, &cat->file_cap, sizeof *f);
    f->path = catalog_strdup(cat, path);
    f->rel_path = catalog_strdup(cat, rel);
    f->size = (uint64_t)st->st_size;
    f->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    f->dev = (uint64_t)st->st_dev;
    f->ino = (uint64_t)st->st_ino;
    f->readable = true;
    f->rank = -1;
    f->profile = -1;
}

static void catalog_push_dir(catalog_walk *w, char *path, char *rel, unsigned depth)
{
    catalog_pending *p = catalog_push((void **)&w->stack, &w->count, &w->cap, sizeof *p);
    p->path = path;
    p->rel = rel;
    p->depth = depth;
}

/* stat through a symlink, turning failures into notes. Returns 0 when `st` is usable. */
static int catalog_follow(catalog_walk *w, const char *path, const char *rel, struct stat *st)
{
    if (stat(path, st) == 0)
        return 0;
    int e = errno;
    if (e == ELOOP)
        catalog_note(w->cat, NL_NOTE_SYMLINK_LOOP, NL_NOTE_INFO, rel, NULL, "symlink loop (%s); not followed",
                     strerror(e));
    else if (e == ENOENT)
        catalog_note(w->cat, NL_NOTE_DANGLING_SYMLINK, NL_NOTE_INFO, rel, NULL, "symlink target does not exist");
    else
        catalog_note(w->cat, NL_NOTE_UNREADABLE, NL_NOTE_WARN, rel, "check the permissions of the target",
                     "cannot stat symlink target: %s", strerror(e));
    return -1;
}

static void catalog_visit_dir(catalog_walk *w, char *path, char *rel, const struct stat *st, unsigned depth,
                              bool via_link)
{
    nl_catalog *cat = w->cat;
    if (depth > cat->lim.max_depth) {
        catalog_note(cat, NL_NOTE_DEPTH_LIMIT, NL_NOTE_WARN, rel, "scan the deeper directory directly",
                     "directory is %u levels deep (max_depth %u); not entered", depth, cat->lim.max_depth);
    } else if (!catalog_idset_add(&cat->dirs_seen, (uint64_t)st->st_dev, (uint64_t)st->st_ino)) {
        catalog_note(cat, NL_NOTE_SYMLINK_LOOP, NL_NOTE_INFO, rel, NULL,
                     via_link ? "symlink to a directory already scanned (loop or duplicate); not followed"
                              : "directory already scanned (bind mount or loop); not entered again");
    } else {
        catalog_push_dir(w, path, rel, depth);
        return; /* ownership of path/rel moved to the stack */
    }
    free(path);
    free(rel);
}

static void catalog_visit(catalog_walk *w, const char *dir, const char *dir_rel, const char *name,
                          unsigned depth)
{
    char *path = catalog_join(dir, name);
    char *rel = catalog_join(dir_rel, name);
    struct stat st;
    bool via_link = false;
    if (lstat(path, &st) != 0) {
        catalog_note(w->cat, NL_NOTE_UNREADABLE, NL_NOTE_WARN, rel, "check permissions", "cannot stat: %s",
                     strerror(errno));
        goto done;
    }
    if (S_ISLNK(st.st_mode)) {
        via_link = true;
        if (catalog_follow(w, path, rel, &st))
            goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        catalog_visit_dir(w, path, rel, &st, depth + 1, via_link);
        return;
    }
    if (S_ISREG(st.st_mode))
        catalog_add_file(w, path, rel, &st);
    else
        catalog_note(w->cat, NL_NOTE_SKIPPED_SPECIAL, NL_NOTE_INFO, rel, NULL, "%s skipped, never opened",
                     catalog_special_name(st.st_mode));
done:
    free(path);
    free(rel);
}

static int catalog_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read the names of one directory (bounded by the entry budget), sorted. */
static char **catalog_read_names(catalog_walk *w, const catalog_pending *d, size_t *count_out)
{
    *count_out = 0;
    DIR *dh = opendir(d->path);
    if (!dh) {
        catalog_note(w->cat, NL_NOTE_UNREADABLE, NL_NOTE_WARN, d->rel[0] ? d->rel : ".", "check permissions",
                     "cannot open directory: %s", strerror(errno));
        return NULL;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(dh)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (++w->entries > w->cat->lim.max_entries) {
            catalog_stop(w, d->rel, "directory entries (max_entries)", w->cat->lim.max_entries);
            break;
        }
        char **slot = catalog_push((void **)&names, &count, &cap, sizeof *names);
        *slot = catalog_join("", de->d_name);
    }
    closedir(dh);
    if (count > 1)
        qsort(names, count, sizeof *names, catalog_cmp_str);
    *count_out = count;
    return names;
}

static void catalog_walk_dir(catalog_walk *w, catalog_pending d)
{
    size_t count;
    char **names = catalog_read_names(w, &d, &count);
    for (size_t i = 0; i < count; i++) {
        if (!w->stop)
            catalog_visit(w, d.path, d.rel, names[i], d.depth);
        free(names[i]);
    }
    free(names);
    free(d.path);
    free(d.rel);
}

static void catalog_walk_all(nl_catalog *cat, const struct stat *root_st)
{
    catalog_walk w = {.cat = cat};
    catalog_idset_add(&cat->dirs_seen, (uint64_t)root_st->st_dev, (uint64_t)root_st->st_ino);
    catalog_push_dir(&w, catalog_join("", cat->root), catalog_join("", ""), 0);
    while (w.count > 0) {
        catalog_pending d = w.stack[--w.count];
        if (w.stop) {
            free(d.path);
            free(d.rel);
            continue;
        }
        catalog_walk_dir(&w, d);
    }
    free(w.stack);
}

/* ---- API -------------------------------------------------------------------------------------------- */

void nl_catalog_limits_default(nl_catalog_limits *lim)
{
    memset(lim, 0, sizeof *lim); /* hooks off */
    lim->max_depth = NL_CATALOG_DEFAULT_MAX_DEPTH;
    lim->max_files = NL_CATALOG_DEFAULT_MAX_FILES;
    lim->max_entries = NL_CATALOG_DEFAULT_MAX_ENTRIES;
    lim->json_peek_bytes = NL_CATALOG_DEFAULT_JSON_PEEK_BYTES;
}

size_t nl_catalog_note_total(const nl_catalog *cat, nl_note_code code)
{
    if ((unsigned)code >= NL_NOTE_CODE_COUNT)
        return 0;
    return cat->notes_by_code[code]; /* the closing "N more" notes are pushed directly, not counted */
}

/* One closing note per code whose notes were capped. */
static void catalog_note_suppressed(nl_catalog *cat)
{
    for (unsigned c = 0; c < NL_NOTE_CODE_COUNT; c++) {
        size_t offered = cat->notes_by_code[c];
        if (offered <= NL_CATALOG_MAX_NOTES_PER_CODE)
            continue;
        nl_catalog_note *n = catalog_push((void **)&cat->notes, &cat->note_count, &cat->note_cap, sizeof *n);
        n->code = (nl_note_code)c;
        n->severity = NL_NOTE_INFO;
        n->message = catalog_printf(cat, "%zu more %s notes not listed", offered - NL_CATALOG_MAX_NOTES_PER_CODE,
                                    nl_note_code_name((nl_note_code)c));
    }
}

/* File name without the extension(s) the pairing rules know (".json.gz", ".ntff", ".neff", ".json"). */
static size_t catalog_stem_len(const char *name)
{
    static const char *const exts[] = {".json.gz", ".ntff", ".neff", ".json"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t k = strlen(exts[i]);
        if (n > k && strcmp(name + n - k, exts[i]) == 0)
            return n - k;
    }
    return n;
}

static bool catalog_has_ext(const char *name, const char *ext)
{
    size_t n = strlen(name), k = strlen(ext);
    return n > k && strcmp(name + n - k, ext) == 0;
}

/* For a NEFF root: is `n` an NTFF, or an export named after an NTFF of the directory (x.json beside x.ntff)?
 * The NTFFs pair with the NEFF by uuid whatever their names, so all are candidates. */
static bool catalog_neff_companion(const char *n, char *const *names, size_t count)
{
    if (catalog_has_ext(n, ".ntff"))
        return true;
    if (!catalog_has_ext(n, ".json") && !catalog_has_ext(n, ".json.gz"))
        return false;
    size_t ns = catalog_stem_len(n);
    for (size_t j = 0; j < count; j++)
        if (catalog_has_ext(names[j], ".ntff") && catalog_stem_len(names[j]) == ns && !strncmp(names[j], n, ns))
            return true;
    return false;
}

/* A file root is catalogued with the files of its directory that belong with it: the same stem under another
 * known extension (x.json beside x.ntff), files named after it (x.show_session.txt, x_trace.txt: a dump of
 * it), and every NEFF (an NTFF pairs with its NEFF by uuid, whatever the NEFF's name). For a NEFF root, every
 * NTFF and the exports named after them, for the same reason; for a Parquet table, every other table of its
 * directory (one profile is the directory's tables). They are marked `companion`; catalog_group
 * keeps only the profiles that use the root. */
static void catalog_add_companions(catalog_walk *w)
{
    nl_catalog *cat = w->cat;
    const char *base = catalog_basename(cat->root);
    size_t stem = catalog_stem_len(base);
    char *dir = catalog_join("", cat->root);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
    else
        strcpy(dir, ".");
    catalog_pending d = {.path = dir, .rel = catalog_join("", "")};
    size_t count;
    char **names = catalog_read_names(w, &d, &count);
    bool root_is_neff = catalog_has_ext(base, ".neff"), root_is_table = catalog_has_ext(base, ".parquet");
    for (size_t i = 0; i < count; i++) {
        const char *n = names[i];
        size_t ns = catalog_stem_len(n);
        bool same_stem = !strncmp(n, base, stem) && strcmp(n, base) != 0 &&
                         (ns == stem || (n[stem] && strchr("._-", n[stem])));
        bool neff = ns != strlen(n) && !strcmp(n + ns, ".neff") && strcmp(n, base) != 0;
        bool of_neff_root = root_is_neff && !same_stem && catalog_neff_companion(n, names, count);
        bool sibling_table = root_is_table && catalog_has_ext(n, ".parquet") && strcmp(n, base) != 0;
        struct stat st;
        char *path = catalog_join(d.path, n);
        if ((same_stem || neff || of_neff_root || sibling_table) && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            size_t before = cat->file_count;
            catalog_add_file(w, path, n, &st);
            if (cat->file_count > before)
                cat->files[cat->file_count - 1].companion = true;
        }
        free(path);
    }
    for (size_t i = 0; i < count; i++) /* after the loop: catalog_neff_companion reads every name */
        free(names[i]);
    free(names);
    free(d.path);
    free(d.rel);
}

static int catalog_cmp_file(const void *a, const void *b)
{
    return strcmp(((const nl_catalog_file *)a)->rel_path, ((const nl_catalog_file *)b)->rel_path);
}

static void catalog_scan_root(nl_catalog *cat, const struct stat *st)
{
    if (S_ISDIR(st->st_mode)) {
        cat->root_is_dir = true;
        catalog_walk_all(cat, st);
    } else if (S_ISREG(st->st_mode)) {
        catalog_walk w = {.cat = cat};
        catalog_add_file(&w, cat->root, catalog_basename(cat->root), st);
        catalog_add_companions(&w);
    } else {
        catalog_note(cat, NL_NOTE_SKIPPED_SPECIAL, NL_NOTE_INFO, cat->root, NULL, "%s skipped, never opened",
                     catalog_special_name(st->st_mode));
    }
    if (cat->file_count > 1)
        qsort(cat->files, cat->file_count, sizeof *cat->files, catalog_cmp_file);
}

/* ---- classification on several threads ---------------------------------------------------------------- */

/* Why: classifying reads every file's head and peeks into every JSON export for its identity (memmem over
 * up to json_peek_bytes), one file after another: on a generated 32-rank capture (64 exports of 12 MB whose
 * identity keys sit at the end) that was half of orient's first call. Files are independent, so workers
 * classify them in parallel, each into a shadow catalog (its own string pool and notes) sharing the files
 * array (a worker writes only the files it took). Afterwards the notes are replayed file by file in file
 * order through catalog_note, so notes, their order and the per-code caps are what one thread produces,
 * and the shadow pools (holding the files' strings) join the catalog's pool. */

typedef struct classify_shared {
    nl_catalog *cat;
    atomic_size_t next;
    nl_catalog_note **notes; /* [file_count] notes of each file, in the order they were made */
    size_t *note_counts;
} classify_shared;

typedef struct classify_worker {
    classify_shared *sh;
    nl_catalog shadow;
    pthread_t tid;
    bool running;
} classify_worker;

static void *classify_run(void *arg)
{
    classify_worker *w = arg;
    classify_shared *sh = w->sh;
    for (size_t i; (i = atomic_fetch_add(&sh->next, 1)) < sh->cat->file_count;) {
        w->shadow.note_count = 0;
        memset(w->shadow.notes_by_code, 0, sizeof w->shadow.notes_by_code); /* caps apply at the replay */
        catalog_classify(&w->shadow, i);
        if (w->shadow.note_count) {
            sh->notes[i] = catalog_xrealloc(NULL, w->shadow.note_count * sizeof *sh->notes[i]);
            memcpy(sh->notes[i], w->shadow.notes, w->shadow.note_count * sizeof *sh->notes[i]);
            sh->note_counts[i] = w->shadow.note_count;
        }
    }
    return NULL;
}

static void catalog_classify_all(nl_catalog *cat)
{
    size_t threads = nl_cpu_threads(cat->lim.threads, CATALOG_CLASSIFY_THREADS_MAX);
    threads = threads > cat->file_count ? cat->file_count : threads;
    if (threads < 2) {
        for (size_t i = 0; i < cat->file_count; i++)
            catalog_classify(cat, i);
        return;
    }
    classify_shared sh = {.cat = cat};
    atomic_init(&sh.next, 0);
    sh.notes = catalog_xrealloc(NULL, cat->file_count * sizeof *sh.notes);
    sh.note_counts = catalog_xrealloc(NULL, cat->file_count * sizeof *sh.note_counts);
    memset(sh.notes, 0, cat->file_count * sizeof *sh.notes);
    memset(sh.note_counts, 0, cat->file_count * sizeof *sh.note_counts);
    classify_worker *w = catalog_xrealloc(NULL, threads * sizeof *w);
    memset(w, 0, threads * sizeof *w);
    for (size_t t = 0; t < threads; t++) {
        w[t].sh = &sh;
        w[t].shadow.lim = cat->lim;
        w[t].shadow.files = cat->files;
        w[t].shadow.file_count = cat->file_count;
        w[t].running = t > 0 && pthread_create(&w[t].tid, NULL, classify_run, &w[t]) == 0;
    }
    classify_run(&w[0]); /* the scanning thread works too; with no thread started it does everything */
    for (size_t t = 1; t < threads; t++)
        if (w[t].running)
            pthread_join(w[t].tid, NULL);
    for (size_t i = 0; i < cat->file_count; i++) {
        for (size_t k = 0; k < sh.note_counts[i]; k++) {
            const nl_catalog_note *n = &sh.notes[i][k];
            catalog_note(cat, n->code, n->severity, n->path, n->fix, "%s", n->message);
        }
        free(sh.notes[i]);
    }
    for (size_t t = 0; t < threads; t++) {
        catalog_pool_block *b = w[t].shadow.pool;
        while (b) {
            catalog_pool_block *next = b->next;
            if (cat->pool) { /* behind the current block, which keeps serving strdups */
                b->next = cat->pool->next;
                cat->pool->next = b;
            } else {
                b->next = NULL;
                cat->pool = b;
            }
            b = next;
        }
        free(w[t].shadow.notes);
    }
    free(w);
    free(sh.notes);
    free(sh.note_counts);
}

nl_catalog *nl_catalog_scan(const char *path, const nl_catalog_limits *lim, nl_error *err)
{
    if (!path || !path[0]) {
        nl_error_set(err, NL_ERR_ARGUMENT, NULL, -1, "empty path");
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        nl_error_set(err, errno == ENOENT || errno == ENOTDIR ? NL_ERR_NOT_FOUND : NL_ERR_IO, path, -1,
                     "cannot stat: %s", strerror(errno));
        return NULL;
    }
    nl_catalog *cat = catalog_xrealloc(NULL, sizeof *cat);
    memset(cat, 0, sizeof *cat);
    cat->root = catalog_join("", path);
    char *base = realpath(path, NULL);
    if (!base)
        base = catalog_join("", path);
    size_t n = strlen(base);
    while (n > 1 && base[n - 1] == '/')
        base[--n] = '\0';
    cat->root_name = catalog_strdup(cat, catalog_basename(base));
    char *slash = strrchr(base, '/');
    if (slash)
        *slash = '\0';
    cat->root_dir_name = catalog_strdup(cat, slash ? catalog_basename(base) : ".");
    free(base);
    if (lim)
        cat->lim = *lim;
    else
        nl_catalog_limits_default(&cat->lim);
    if (cat->lim.max_depth > NL_CATALOG_DEPTH_CAP)
        cat->lim.max_depth = NL_CATALOG_DEPTH_CAP;
    catalog_scan_root(cat, &st);
    catalog_classify_all(cat);
    catalog_group(cat);
    catalog_note_suppressed(cat);
    return cat;
}

void nl_catalog_free(nl_catalog *cat)
{
    if (!cat)
        return;
    while (cat->pool) {
        catalog_pool_block *next = cat->pool->next;
        free(cat->pool);
        cat->pool = next;
    }
    free(cat->files);
    free(cat->ranks);
    free(cat->profiles);
    free(cat->notes);
    free(cat->dirs_seen.keys);
    free(cat->files_seen.keys);
    free(cat->root);
    free(cat);
}

const char *nl_catalog_root(const nl_catalog *cat) { return cat->root; }

void nl_catalog_profile_dir_path(const nl_catalog *cat, const nl_catalog_profile *p, char *buf, size_t cap)
{
    const char *path = p->file >= 0 ? cat->files[p->file].path : cat->root;
    const char *slash = p->file >= 0 ? strrchr(path, '/') : NULL;
    if (p->file >= 0 && !slash)
        snprintf(buf, cap, ".");
    else
        snprintf(buf, cap, "%.*s", slash ? (int)(slash - path) : (int)strlen(path), path);
}
bool nl_catalog_truncated(const nl_catalog *cat) { return cat->truncated; }
size_t nl_catalog_file_count(const nl_catalog *cat) { return cat->file_count; }
const nl_catalog_file *nl_catalog_file_at(const nl_catalog *cat, size_t i) { return &cat->files[i]; }
size_t nl_catalog_rank_count(const nl_catalog *cat) { return cat->rank_count; }
const nl_catalog_rank *nl_catalog_rank_at(const nl_catalog *cat, size_t i) { return &cat->ranks[i]; }
size_t nl_catalog_profile_count(const nl_catalog *cat) { return cat->profile_count; }
const nl_catalog_profile *nl_catalog_profile_at(const nl_catalog *cat, size_t i) { return &cat->profiles[i]; }
size_t nl_catalog_note_count(const nl_catalog *cat) { return cat->note_count; }
const nl_catalog_note *nl_catalog_note_at(const nl_catalog *cat, size_t i) { return &cat->notes[i]; }

long nl_catalog_find_file(const nl_catalog *cat, const char *rel_path)
{
    size_t lo = 0, hi = cat->file_count; /* files are sorted by rel_path */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(cat->files[mid].rel_path, rel_path);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

const nl_catalog_profile *nl_catalog_find_profile(const nl_catalog *cat, const char *id)
{
    for (size_t i = 0; i < cat->profile_count; i++)
        if (strcmp(cat->profiles[i].id, id) == 0)
            return &cat->profiles[i];
    return NULL;
}

/* ---- names ------------------------------------------------------------------------------------------ */

const char *nl_file_kind_name(nl_file_kind kind)
{
    static const char *const names[NL_FILE_KIND_COUNT] = {
        [NL_FILE_UNKNOWN] = "unknown",
        [NL_FILE_NEFF] = "neff",
        [NL_FILE_NTFF] = "ntff",
        [NL_FILE_JSON_EXPORT] = "json_export",
        [NL_FILE_SUMMARY_JSON] = "summary_json",
        [NL_FILE_SUMMARY_TEXT] = "summary_text",
        [NL_FILE_SHOW_SESSION_JSON] = "show_session_json",
        [NL_FILE_SHOW_SESSION_TEXT] = "show_session_text",
        [NL_FILE_SYSTEM_JSON] = "system_json",
        [NL_FILE_NTRACE_PB] = "ntrace_pb",
        [NL_FILE_TRACE_INFO_PB] = "trace_info_pb",
        [NL_FILE_CPU_UTIL_PB] = "cpu_util_pb",
        [NL_FILE_HOST_MEM_PB] = "host_mem_pb",
        [NL_FILE_KINETO] = "kineto",
        [NL_FILE_PARQUET] = "parquet",
        [NL_FILE_MEMORY_SNAPSHOT] = "memory_snapshot",
    };
    return (unsigned)kind < NL_FILE_KIND_COUNT ? names[kind] : "invalid";
}

const char *nl_pairing_name(nl_pairing p)
{
    switch (p) {
    case NL_PAIR_NOT_APPLICABLE: return "not_applicable";
    case NL_PAIR_OK: return "ok";
    case NL_PAIR_NO_NEFF: return "no_neff";
    case NL_PAIR_UUID_MISMATCH: return "uuid_mismatch";
    case NL_PAIR_NO_UUID: return "no_uuid";
    }
    return "invalid";
}

const char *nl_export_link_name(nl_export_link l)
{
    switch (l) {
    case NL_LINK_NONE: return "none";
    case NL_LINK_UUID: return "uuid";
    case NL_LINK_FILENAME: return "filename";
    case NL_LINK_UUID_AND_FILENAME: return "uuid_and_filename";
    case NL_LINK_STEM: return "stem";
    }
    return "invalid";
}

const char *nl_note_code_name(nl_note_code code)
{
    switch (code) {
    case NL_NOTE_SKIPPED_SPECIAL: return "skipped_special";
    case NL_NOTE_UNREADABLE: return "unreadable";
    case NL_NOTE_SYMLINK_LOOP: return "symlink_loop";
    case NL_NOTE_DANGLING_SYMLINK: return "dangling_symlink";
    case NL_NOTE_DUPLICATE_FILE: return "duplicate_file";
    case NL_NOTE_DEPTH_LIMIT: return "depth_limit";
    case NL_NOTE_FILE_LIMIT: return "file_limit";
    case NL_NOTE_BAD_HEADER: return "bad_header";
    case NL_NOTE_UUID_MISMATCH: return "uuid_mismatch";
    case NL_NOTE_NTFF_WITHOUT_NEFF: return "ntff_without_neff";
    case NL_NOTE_NEFF_WITHOUT_NTFF: return "neff_without_ntff";
    case NL_NOTE_EMPTY_NTFF: return "empty_ntff";
    case NL_NOTE_NTFF_SIZE: return "ntff_size";
    case NL_NOTE_EXPORT_UNATTACHED: return "export_unattached";
    case NL_NOTE_EXPORT_NOT_PEEKED: return "export_not_peeked";
    case NL_NOTE_INCOMPLETE_SYSTEM: return "incomplete_system";
    case NL_NOTE_EXPORT_TRUNCATED: return "export_truncated";
    case NL_NOTE_CODE_COUNT: break;
    }
    return "invalid";
}
