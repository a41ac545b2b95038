/* neuron_json_par — the split read: one large full JSON export parsed on several threads, giving the model
 * a sequential read gives (same rows in the same order, same string ids, same dictionary codes, same notes).
 *
 * Why: one core parses ~0.55 GB/s on the 2.3 GHz VM of issue 6 (tokenizing is most of it), below the 1 GB/s
 * target, and an export is one object of arrays of flat records, so its big arrays can be cut between
 * records and the pieces parsed independently.
 *
 * Threads and what each owns:
 *   scanner (1 thread)   json_split over the whole text (the file read with pread into a small buffer, or
 *                        the caller's memory): finds each top-level array and its elements and cuts them into
 *                        pieces of `split_records` elements (TABLE_SEG_ROWS by default, so that pieces are
 *                        whole table segments and merge by copy). Publishes arrays, pieces and `frontier`.
 *   workers (threads-1)  take pieces in file order and parse each one with the ordinary reader
 *                        (neuron_json.c) from an input `{"<name>":[` + the piece's bytes + `]}`, into a
 *                        model of its own.
 *   calling thread       the document read: the ordinary reader over the file with every split array's
 *                        elements left out (its input jumps from the '[' to the ']'). At each split array's
 *                        '[' the reader calls njp_array_hook, which merges the pieces' models in file order
 *                        (device_model_merge_rows: strings interned in piece order, so ids match a
 *                        sequential read) and frees them. While it waits, it parses pieces too.
 * Why the output is exact: pieces are cut only between two elements whose separator is `ws , ws` (checked
 * on the bytes), every piece is fully parsed (so it is a valid element list in that array's context), and
 * the document read parses everything else; a model is per-record state only (no record depends on another
 * except through string ids and the first-seen order of dictionary codes and notes, which the in-order
 * merge reproduces). The scanner's string tracking only decides where to cut; if it were fooled by
 * invalid input, a piece or the document read fails.
 * Failures: any failure (a piece or the document read fails, the scan finds unbalanced brackets, a thread
 * cannot start, a read fails) abandons the split read and the caller reads sequentially, which reports
 * the canonical error; only NL_ERR_CANCELLED is returned as is.
 * Memory: the model, one read buffer per thread, and at most `window` parsed pieces not yet merged (a piece
 * of 16 Ki records is ~0.8 MB of model). Everything is read with pread, never mmap: a mapping would cost
 * about the same here (page faults instead of copies) but a file truncated by another process while it is
 * mapped kills the whole server with SIGBUS, where read() just returns short.
 *
 * Lock order: one mutex (`lock`) guards the published state; nothing else is locked while it is held, and
 * parsing and merging run without it. Wakeups: one condition variable, broadcast on every change. */
#include "neuron_json_internal.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_split.h"
#include "table.h"

/* Pieces parsed ahead of the merge, per thread (bounds the memory of unmerged pieces). */
#define NJP_WINDOW_PER_THREAD 4u
/* Merged pieces between two malloc_trim calls. Why: a piece model is allocated on a worker thread and
 * freed in njp_array_hook; its chunks go back to the worker's glibc arena, which keeps them resident, so
 * the peak RSS of a cold 1 GB `summary` varied from run to run. Trimming every 8 pieces keeps it steady at
 * no measurable cost; trimming after every piece costs a few percent (bench/RESULTS.md). */
#define NJP_TRIM_EVERY 8u
/* The scanner reads the file in chunks of NJP_SCAN_CHUNK (a multiple of JSON_SPLIT_BLOCK) and keeps the last
 * NJP_SCAN_KEEP bytes of each ahead of the next, for member names and separators that straddle two chunks
 * (a separator longer than that is simply not cut at). */
#define NJP_SCAN_CHUNK ((size_t)256 << 10)
#define NJP_SCAN_KEEP ((size_t)64 << 10)

typedef enum njp_state { NJP_PENDING, NJP_RUNNING, NJP_DONE, NJP_FAILED } njp_state;

/* A split array. open/table/key are set before it is published and never change; the rest under lock. */
typedef struct njp_array {
    size_t open;      /* offset of '[' */
    size_t close;     /* offset of ']', once closed */
    size_t first_job; /* its pieces are jobs[first_job, first_job + njobs) */
    size_t njobs;
    int closed;
    int merged; /* calling thread only */
    int table;  /* device_model_table, or -1 for an array the reader skips */
    char key[JSON_SPLIT_KEY_MAX];
    size_t key_len;
} njp_array;

/* A piece: bytes [start, end) of one array. array/start/end never change; the rest under lock. */
typedef struct njp_job {
    const njp_array *array;
    size_t start, end;
    njp_state state;
    device_model *model;
    uint64_t count;
    nl_error err;
} njp_job;

typedef struct njp_scan {
    int in_array;   /* inside a member array */
    int splittable; /* ... that may be cut */
    int table;
    size_t open;
    njp_array *array; /* published once the first cut is made */
    size_t job_start, last_close;
    uint64_t job_elems;
    int cut_pending;
    char key[JSON_SPLIT_KEY_MAX];
    size_t key_len;
    const char *buf; /* the bytes the scanner holds: text offsets [buf_base, buf_base + buf_len) */
    size_t buf_base, buf_len;
} njp_scan;

typedef struct njp {
    const char *name;
    const neuron_json_options *user; /* the caller's options (progress, cancel) */
    neuron_json_options opt;         /* for the inner reads: no progress callback (reported here) */
    int fd;                          /* -1 for memory */
    off_t fd_base;                   /* file offset of the text's first byte */
    const char *data;                /* the text, for memory (NULL for a file) */
    size_t len;
    uint64_t split_records;
    unsigned threads;
    size_t window;

    pthread_mutex_t lock;
    pthread_cond_t cv;
    /* under lock */
    void **arrays; /* njp_array * */
    size_t narrays, arrays_cap;
    void **jobs; /* njp_job * */
    size_t njobs, jobs_cap;
    size_t frontier; /* the document read may take bytes below this */
    int scan_done;
    size_t next_job; /* first piece nobody has taken */
    size_t merged;   /* pieces merged (all of jobs[0, merged)) */
    atomic_int abort;
    int cancelled;
    nl_error cancel_err;
    atomic_uint_least64_t bytes_done; /* bytes parsed by pieces and the document read (progress) */

    njp_scan sc; /* scanner thread only */

    /* calling thread only */
    unsigned trim_countdown; /* pieces merged since the start, for NJP_TRIM_EVERY */
    size_t pos;      /* next byte of data the document read takes */
    size_t next_gap; /* first split array not yet skipped */
    size_t skipped;  /* bytes skipped so far (document offsets + skipped = data offsets) */
    uint64_t progress_next;
} njp;

/* ---- input bytes -------------------------------------------------------------------------------------- */

/* Copy text bytes [off, off + n) to dst: pread for a file, memcpy for memory. */
static ssize_t njp_copy(njp *p, char *dst, size_t off, size_t n, nl_error *err)
{
    if (p->fd < 0) {
        memcpy(dst, p->data + off, n);
        return (ssize_t)n;
    }
    ssize_t got;
    do
        got = pread(p->fd, dst, n, p->fd_base + (off_t)off);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        nl_error_set(err, NL_ERR_IO, p->name, (int64_t)off, "read failed: %s", strerror(errno));
    else if (got == 0)
        nl_error_set(err, NL_ERR_IO, p->name, (int64_t)off, "the file shrank while it was read");
    return got > 0 ? got : -1;
}

/* ---- progress ----------------------------------------------------------------------------------------- */

static void njp_progress(njp *p, int force)
{
    if (!p->user || !p->user->progress)
        return;
    uint64_t done = atomic_load_explicit(&p->bytes_done, memory_order_relaxed);
    if (done > p->len)
        done = p->len;
    if (!force && done < p->progress_next)
        return;
    p->progress_next = done + NEURON_JSON_PROGRESS_STEP;
    p->user->progress(p->user->progress_ctx, done, p->len);
}

/* ---- pieces ------------------------------------------------------------------------------------------- */

typedef struct njp_piece_input {
    njp *p;
    const njp_job *job;
    char prefix[JSON_SPLIT_KEY_MAX + 8];
    size_t prefix_len, prefix_pos;
    size_t pos; /* next byte of data */
    size_t suffix_pos;
} njp_piece_input;

static ssize_t njp_piece_read(void *ctx, char *dst, size_t want, nl_error *err)
{
    njp_piece_input *in = ctx;
    if (in->prefix_pos < in->prefix_len) {
        size_t n = in->prefix_len - in->prefix_pos < want ? in->prefix_len - in->prefix_pos : want;
        memcpy(dst, in->prefix + in->prefix_pos, n);
        in->prefix_pos += n;
        return (ssize_t)n;
    }
    if (in->pos < in->job->end) {
        size_t n = in->job->end - in->pos < want ? in->job->end - in->pos : want;
        ssize_t got = njp_copy(in->p, dst, in->pos, n, err);
        if (got > 0) {
            in->pos += (size_t)got;
            atomic_fetch_add_explicit(&in->p->bytes_done, (uint64_t)got, memory_order_relaxed);
        }
        return got;
    }
    static const char suffix[] = "]}";
    size_t n = sizeof suffix - 1 - in->suffix_pos < want ? sizeof suffix - 1 - in->suffix_pos : want;
    memcpy(dst, suffix + in->suffix_pos, n);
    in->suffix_pos += n;
    return (ssize_t)n;
}

/* Parse one piece into its own model (no lock held). */
static void njp_run_piece(njp *p, njp_job *job, device_model **model, uint64_t *count, nl_error *err)
{
    njp_piece_input in = {.p = p, .job = job, .pos = job->start};
    const njp_array *a = job->array;
    in.prefix[0] = '{';
    in.prefix[1] = '"';
    memcpy(in.prefix + 2, a->key, a->key_len);
    memcpy(in.prefix + 2 + a->key_len, "\":[", 3);
    in.prefix_len = a->key_len + 5;
    nj_input input = {njp_piece_read, &in};
    *count = 0;
    if (nj_read_input(p->name, &p->opt, &input, 0, NULL, count, model, err) != 0)
        *model = NULL;
}

/* Take the next piece if the window allows and parse it. Called and returns with the lock held; 1 when it
 * ran a piece. */
static int njp_help_locked(njp *p)
{
    if (atomic_load(&p->abort) || p->next_job >= p->njobs || p->next_job >= p->merged + p->window)
        return 0;
    njp_job *job = p->jobs[p->next_job++];
    job->state = NJP_RUNNING;
    pthread_mutex_unlock(&p->lock);
    device_model *model = NULL;
    uint64_t count = 0;
    nl_error err;
    nl_error_clear(&err);
    njp_run_piece(p, job, &model, &count, &err);
    pthread_mutex_lock(&p->lock);
    job->model = model;
    job->count = count;
    job->err = err;
    job->state = model ? NJP_DONE : NJP_FAILED;
    if (!model) {
        atomic_store(&p->abort, 1);
        if (err.code == NL_ERR_CANCELLED && !p->cancelled) {
            p->cancelled = 1;
            p->cancel_err = err;
        }
    }
    pthread_cond_broadcast(&p->cv);
    return 1;
}

static void *njp_worker(void *arg)
{
    njp *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (njp_help_locked(p))
            continue;
        if (atomic_load(&p->abort) || (p->scan_done && p->next_job >= p->njobs))
            break;
        pthread_cond_wait(&p->cv, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* ---- scanner ------------------------------------------------------------------------------------------ */

static int njp_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Text bytes [a, b) are `ws , ws`, the only thing allowed between two elements cut apart (0 also when the
 * scanner no longer holds them). */
static int njp_separator(const njp_scan *sc, size_t a, size_t b)
{
    if (a < sc->buf_base || b > sc->buf_base + sc->buf_len)
        return 0;
    const char *data = sc->buf - sc->buf_base;
    while (a < b && njp_ws(data[a]))
        a++;
    if (a >= b || data[a] != ',')
        return 0;
    for (a++; a < b; a++)
        if (!njp_ws(data[a]))
            return 0;
    return 1;
}

static void njp_frontier_locked(njp *p, size_t f)
{
    if (f > p->frontier) {
        p->frontier = f;
        pthread_cond_broadcast(&p->cv);
    }
}

/* Room for one more pointer in *v (capacity *cap, n used); -1 when out of memory. */
static int njp_grow(void ***v, size_t *cap, size_t n)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 64;
    void **grown = realloc(*v, c * sizeof *grown);
    if (!grown)
        return -1;
    *v = grown;
    *cap = c;
    return 0;
}

/* Publish the piece data[start, end) of the current array (creating the array on its first piece). */
static int njp_emit(njp *p, size_t start, size_t end)
{
    njp_scan *sc = &p->sc;
    njp_job *job = calloc(1, sizeof *job);
    njp_array *fresh = sc->array ? NULL : calloc(1, sizeof *fresh);
    pthread_mutex_lock(&p->lock);
    if (!job || (!sc->array && !fresh) || njp_grow(&p->jobs, &p->jobs_cap, p->njobs) != 0 ||
        (fresh && njp_grow(&p->arrays, &p->arrays_cap, p->narrays) != 0)) {
        pthread_mutex_unlock(&p->lock);
        free(job);
        free(fresh);
        return -1;
    }
    if (fresh) {
        fresh->open = sc->open;
        fresh->first_job = p->njobs;
        fresh->table = sc->table;
        memcpy(fresh->key, sc->key, sc->key_len);
        fresh->key_len = sc->key_len;
        p->arrays[p->narrays++] = fresh;
        sc->array = fresh;
        njp_frontier_locked(p, sc->open + 1); /* the document read may now take the '[' */
    }
    job->array = sc->array;
    job->start = start;
    job->end = end;
    p->jobs[p->njobs++] = job;
    sc->array->njobs++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

static int njp_scan_event(void *ctx, json_split_event ev, size_t off, const char *key, size_t key_len)
{
    njp *p = ctx;
    njp_scan *sc = &p->sc;
    switch (ev) {
    case JSON_SPLIT_ARRAY_OPEN:
        sc->in_array = 1;
        sc->open = off;
        sc->array = NULL;
        sc->job_start = off + 1;
        sc->job_elems = 0;
        sc->cut_pending = 0;
        /* names with escapes are left whole: the piece prefix and the hook compare raw bytes */
        sc->splittable = key && key_len < sizeof sc->key && !memchr(key, '\\', key_len) &&
                         nj_array_splittable(key, key_len, &sc->table);
        if (sc->splittable) {
            memcpy(sc->key, key, key_len);
            sc->key_len = key_len;
        }
        pthread_mutex_lock(&p->lock);
        njp_frontier_locked(p, off); /* not the '[' itself until this array is cut or closed */
        pthread_mutex_unlock(&p->lock);
        return 0;
    case JSON_SPLIT_ELEMENT_OPEN:
        if (sc->cut_pending && njp_separator(sc, sc->last_close + 1, off)) {
            if (njp_emit(p, sc->job_start, sc->last_close + 1) != 0)
                return 1;
            sc->job_start = off;
            sc->job_elems = 0;
            sc->cut_pending = 0;
        }
        return 0;
    case JSON_SPLIT_ELEMENT_CLOSE:
        sc->last_close = off;
        if (sc->splittable && ++sc->job_elems >= p->split_records)
            sc->cut_pending = 1;
        return 0;
    case JSON_SPLIT_ARRAY_CLOSE:
        sc->in_array = 0;
        if (sc->array && njp_emit(p, sc->job_start, off) != 0)
            return 1;
        pthread_mutex_lock(&p->lock);
        if (sc->array) {
            sc->array->close = off;
            sc->array->closed = 1;
            pthread_cond_broadcast(&p->cv);
        }
        njp_frontier_locked(p, off + 1);
        pthread_mutex_unlock(&p->lock);
        sc->array = NULL;
        return atomic_load(&p->abort);
    case JSON_SPLIT_PROGRESS:
        if (p->user && p->user->cancel && atomic_load_explicit(p->user->cancel, memory_order_relaxed)) {
            /* the calling thread may be waiting for this scan: stop everything now */
            pthread_mutex_lock(&p->lock);
            if (!p->cancelled) {
                p->cancelled = 1;
                nl_error_set(&p->cancel_err, NL_ERR_CANCELLED, p->name, (int64_t)off, "cancelled after %llu bytes",
                             (unsigned long long)atomic_load(&p->bytes_done));
            }
            atomic_store(&p->abort, 1);
            pthread_cond_broadcast(&p->cv);
            pthread_mutex_unlock(&p->lock);
            return 1;
        }
        if (!sc->in_array) {
            pthread_mutex_lock(&p->lock);
            njp_frontier_locked(p, off);
            pthread_mutex_unlock(&p->lock);
        }
        return atomic_load(&p->abort);
    }
    return 0;
}

/* Scan a file through a bounded buffer. 0/1/-1 like json_split_feed; -1 also when a read fails. */
static int njp_scan_file(njp *p, json_split *js)
{
    char *buf = malloc(NJP_SCAN_KEEP + NJP_SCAN_CHUNK);
    if (!buf)
        return -1;
    int rc = 0;
    size_t kept = 0;
    for (size_t off = 0; off < p->len && rc == 0;) {
        size_t want = p->len - off < NJP_SCAN_CHUNK ? p->len - off : NJP_SCAN_CHUNK;
        nl_error err;
        for (size_t got = 0; got < want;) {
            ssize_t n = njp_copy(p, buf + kept + got, off + got, want - got, &err);
            if (n <= 0) {
                free(buf);
                return -1;
            }
            got += (size_t)n;
        }
        p->sc.buf = buf;
        p->sc.buf_base = off - kept;
        p->sc.buf_len = kept + want;
        rc = json_split_feed(js, buf + kept, want, kept, off + want >= p->len);
        off += want;
        size_t keep = kept + want < NJP_SCAN_KEEP ? kept + want : NJP_SCAN_KEEP;
        memmove(buf, buf + kept + want - keep, keep);
        kept = keep;
    }
    free(buf);
    return rc;
}

static void *njp_scanner(void *arg)
{
    njp *p = arg;
    json_split js;
    json_split_init(&js, njp_scan_event, p, 0);
    int rc;
    if (p->fd >= 0) {
        rc = njp_scan_file(p, &js);
    } else {
        p->sc.buf = p->data;
        p->sc.buf_len = p->len;
        rc = json_split_feed(&js, p->data, p->len, 0, 1);
    }
    pthread_mutex_lock(&p->lock);
    p->scan_done = 1;
    if (rc != 0) /* unbalanced (the sequential read reports the error), stopped, or a read failed */
        atomic_store(&p->abort, 1);
    p->frontier = p->len;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* ---- the document read (calling thread) --------------------------------------------------------------- */

static ssize_t njp_abandon(nl_error *err)
{
    nl_error_set(err, NL_ERR_INTERNAL, NULL, -1, "split read abandoned");
    return -1;
}

/* Wait for a change, parsing a piece meanwhile when one is free. Lock held (and not released between the
 * caller's check and the wait, or a broadcast could be missed). */
static void njp_wait_locked(njp *p)
{
    if (!njp_help_locked(p) && !atomic_load(&p->abort))
        pthread_cond_wait(&p->cv, &p->lock);
}

static ssize_t njp_doc_read(void *ctx, char *dst, size_t want, nl_error *err)
{
    njp *p = ctx;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (atomic_load(&p->abort)) {
            pthread_mutex_unlock(&p->lock);
            return njp_abandon(err);
        }
        const njp_array *a = p->next_gap < p->narrays ? p->arrays[p->next_gap] : NULL;
        if (a && p->pos > a->open) {
            /* right after a split array's '[': the hook has merged its pieces; skip their bytes */
            if (!a->merged || p->pos != a->open + 1) {
                atomic_store(&p->abort, 1);
                pthread_cond_broadcast(&p->cv);
                continue;
            }
            p->skipped += a->close - p->pos;
            p->pos = a->close;
            p->next_gap++;
            continue;
        }
        size_t limit = p->scan_done ? p->len : p->frontier;
        if (a && a->open + 1 < limit)
            limit = a->open + 1;
        if (p->pos < limit) {
            size_t n = limit - p->pos < want ? limit - p->pos : want;
            size_t at = p->pos;
            p->pos += n;
            pthread_mutex_unlock(&p->lock);
            ssize_t got = njp_copy(p, dst, at, n, err);
            if (got > 0 && (size_t)got < n) {
                pthread_mutex_lock(&p->lock);
                p->pos = at + (size_t)got;
                pthread_mutex_unlock(&p->lock);
            }
            if (got > 0)
                atomic_fetch_add_explicit(&p->bytes_done, (uint64_t)got, memory_order_relaxed);
            njp_progress(p, 0);
            return got;
        }
        if (p->scan_done) {
            pthread_mutex_unlock(&p->lock);
            return 0;
        }
        njp_wait_locked(p);
    }
}

static int njp_array_hook(void *ctx, device_model *m, int64_t offset, const char *name, size_t len, uint64_t *count,
                          nl_error *err)
{
    njp *p = ctx;
    size_t at = (size_t)offset + p->skipped;
    pthread_mutex_lock(&p->lock);
    njp_array *a = p->next_gap < p->narrays ? p->arrays[p->next_gap] : NULL;
    if (!a || a->open != at) {
        pthread_mutex_unlock(&p->lock);
        return 0; /* not split: the document read parses it */
    }
    int ok = a->key_len == len && memcmp(a->key, name, len) == 0;
    uint64_t total = 0;
    for (size_t j = a->first_job; ok;) {
        if (atomic_load(&p->abort)) {
            ok = 0;
            break;
        }
        if (j >= a->first_job + a->njobs) {
            if (a->closed)
                break;
            njp_wait_locked(p);
            continue;
        }
        njp_job *job = p->jobs[j];
        if (job->state != NJP_DONE) {
            njp_wait_locked(p);
            continue;
        }
        device_model *piece = job->model;
        job->model = NULL;
        pthread_mutex_unlock(&p->lock);
        if (a->table >= 0 && device_model_merge_rows(m, piece, (device_model_table)a->table, err) != 0)
            ok = 0;
        total += job->count;
        device_model_free(piece);
        if (++p->trim_countdown % NJP_TRIM_EVERY == 0)
            malloc_trim(0);
        njp_progress(p, 0);
        pthread_mutex_lock(&p->lock);
        p->merged = ++j;
        pthread_cond_broadcast(&p->cv);
    }
    if (ok)
        a->merged = 1;
    else
        atomic_store(&p->abort, 1);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->lock);
    njp_progress(p, 0);
    if (!ok) {
        if (!err->code)
            njp_abandon(err);
        return -1;
    }
    *count = total;
    return 1;
}

/* ---- driver ------------------------------------------------------------------------------------------- */

static void njp_free_state(njp *p)
{
    for (size_t i = 0; i < p->njobs; i++) {
        njp_job *job = p->jobs[i];
        device_model_free(job->model);
        free(job);
    }
    for (size_t i = 0; i < p->narrays; i++)
        free(p->arrays[i]);
    free(p->jobs);
    free(p->arrays);
}

static int njp_run(njp *p, device_model **out, nl_error *err)
{
    p->window = (size_t)p->threads * NJP_WINDOW_PER_THREAD;
    p->opt.progress = NULL;
    p->opt.progress_ctx = NULL;
    p->opt.split_pieces = NULL;
    if (!p->split_records)
        p->split_records = TABLE_SEG_ROWS;
    atomic_init(&p->abort, 0);
    atomic_init(&p->bytes_done, 0);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cv, NULL);
    njp_progress(p, 1);

    pthread_t scanner, workers[NEURON_JSON_THREADS_MAX];
    unsigned started = 0;
    int scanning = pthread_create(&scanner, NULL, njp_scanner, p) == 0;
    for (unsigned i = 0; scanning && i + 1 < p->threads; i++)
        if (pthread_create(&workers[started], NULL, njp_worker, p) == 0)
            started++;
    if (!scanning)
        atomic_store(&p->abort, 1);

    nj_input in = {njp_doc_read, p};
    nj_split_hook hook = {njp_array_hook, p};
    nl_error derr;
    nl_error_clear(&derr);
    device_model *m = NULL;
    int rc = nj_read_input(p->name, &p->opt, &in, p->len, &hook, NULL, &m, &derr);

    pthread_mutex_lock(&p->lock);
    if (rc != 0)
        atomic_store(&p->abort, 1);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->lock);
    if (scanning)
        pthread_join(scanner, NULL);
    for (unsigned i = 0; i < started; i++)
        pthread_join(workers[i], NULL);
    for (size_t i = 0; rc == 0 && i < p->narrays; i++)
        if (!((const njp_array *)p->arrays[i])->merged)
            rc = -1;
    if (rc == 0 && p->user && p->user->split_pieces)
        *p->user->split_pieces = p->njobs;
    int cancelled = p->cancelled || (rc != 0 && derr.code == NL_ERR_CANCELLED);
    nl_error cerr = p->cancelled ? p->cancel_err : derr;
    njp_free_state(p);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->lock);
    if (rc == 0 && !cancelled) {
        atomic_store_explicit(&p->bytes_done, p->len, memory_order_relaxed);
        njp_progress(p, 1);
        *out = m;
        return 0;
    }
    device_model_free(m);
    if (cancelled) {
        if (err)
            *err = cerr;
        return -1;
    }
    return 1;
}

static int njp_eligible(size_t len, const neuron_json_options *opt, unsigned threads)
{
    size_t min = opt && opt->split_min ? opt->split_min : NEURON_JSON_SPLIT_MIN;
    return threads > 1 && len >= min && !(opt && opt->memory_limit);
}

int nj_par_read_mem(const void *data, size_t len, const char *name, const neuron_json_options *opt, unsigned threads,
                    device_model **out, nl_error *err)
{
    if (!njp_eligible(len, opt, threads))
        return 1;
    njp *p = calloc(1, sizeof *p);
    if (!p)
        return 1;
    p->name = name ? name : "(memory)";
    p->user = opt;
    if (opt)
        p->opt = *opt;
    p->fd = -1;
    p->data = data;
    p->len = len;
    p->split_records = opt ? opt->split_records : 0;
    p->threads = threads > NEURON_JSON_THREADS_MAX ? NEURON_JSON_THREADS_MAX : threads;
    int rc = njp_run(p, out, err);
    free(p);
    return rc;
}

int nj_par_read_fd(int fd, const char *name, const neuron_json_options *opt, unsigned threads, device_model **out,
                   nl_error *err)
{
    struct stat st;
    off_t base = lseek(fd, 0, SEEK_CUR);
    if (base < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= base)
        return 1;
    size_t len = (size_t)(st.st_size - base);
    if (!njp_eligible(len, opt, threads))
        return 1;
    njp *p = calloc(1, sizeof *p);
    if (!p)
        return 1;
    p->name = name ? name : "(memory)";
    p->user = opt;
    if (opt)
        p->opt = *opt;
    p->fd = fd;
    p->fd_base = base;
    p->len = len;
    p->split_records = opt ? opt->split_records : 0;
    p->threads = threads > NEURON_JSON_THREADS_MAX ? NEURON_JSON_THREADS_MAX : threads;
    int rc = njp_run(p, out, err);
    free(p);
    if (rc == 0)
        lseek(fd, 0, SEEK_END); /* where a sequential read leaves it */
    return rc;
}
