/* framework_model — see framework_model.h.
 *
 * Layout: one arena; in it the strtab, the event table (schema fm_cols below), two kvlists, the
 * deviceProperties array, the kept ERROR lines, the notes (array + hashtab on (kind, name)) and, after
 * finish, the process table (indexed by the pid column's dictionary code), the thread table and the
 * per-row thread index (4 B per row).
 *
 * Per-event cost: 14 columns whose cells adapt per segment of 16 Ki rows (table.c): ts 4-8 B (zigzag delta
 * from the segment's first value; Kineto files are unsorted, so deltas span the whole trace), dur 1-4 B,
 * the six strings 1-2 B each (dictionary codes), the three ids 0-8 B (1 B while absent), flags 1-2 B,
 * offset 4 B — about 25-40 B per event, plus the thread index.
 *
 * Device or host (framework_model_finish), per pid, first rule that applies [I, checked on the samples]:
 *   1. a string pid that is not a number ("Spans", "Traces", "") is the profiler's bookkeeping: host;
 *   2. the pid carries a DEVICE_ONLY category                                   → device (by category);
 *   3. it carries no HOST_ONLY category and its process_name / process_labels starts with an accelerator
 *      word (GPU, MTIA, Neuron, NeuronCore, NPU, XPU, HPU, TPU, Device, PrivateUse1) followed by the end,
 *      a space, a digit, ':' or '#'                                             → device (by name);
 *   4. it carries no HOST_ONLY category and equals a deviceProperties id       → device (by properties);
 *   5. otherwise host.
 * On the samples: alexnet pid 0 (kernels) and 1..7 (deviceProperties, no events), MTIA pid 17 ("MTIA 17",
 * mtia_ccp_events) are devices; every other pid is host. */
#include "framework_model.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "hashtab.h"

static const table_column fm_cols[FM_EV_NCOLS] = {
    [FM_EV_TS] = {"ts", TABLE_INT},
    [FM_EV_DUR] = {"dur", TABLE_INT},
    [FM_EV_NAME] = {"name", TABLE_STR},
    [FM_EV_CAT] = {"cat", TABLE_STR},
    [FM_EV_PH] = {"ph", TABLE_STR},
    [FM_EV_PID] = {"pid", TABLE_STR},
    [FM_EV_TID] = {"tid", TABLE_STR},
    [FM_EV_CORR] = {"correlation", TABLE_UINT},
    [FM_EV_EXT] = {"External id", TABLE_UINT},
    [FM_EV_FLOW] = {"id", TABLE_UINT},
    [FM_EV_BYTES] = {"bytes", TABLE_UINT},
    [FM_EV_DETAIL] = {"detail", TABLE_STR},
    [FM_EV_FLAGS] = {"flags", TABLE_UINT},
    [FM_EV_OFFSET] = {"offset", TABLE_INT},
};

typedef struct fm_device {
    int64_t id;
    uint32_t name;
    bool has_id;
} fm_device;

typedef struct fm_note_key {
    framework_model_note_kind kind;
    uint32_t name;
} fm_note_key;

struct framework_model {
    arena *arena;
    strtab *strings;
    table *events;
    kvlist *trace;
    kvlist *dist;
    fm_device *devices;
    size_t device_count, device_cap;
    char *error_lines[FRAMEWORK_MODEL_ERROR_LINES_MAX];
    uint64_t log_count[2]; /* [0] INFO, [1] ERROR */
    framework_model_note *notes;
    uint32_t note_count, note_cap;
    hashtab note_index;
    framework_model_layout layout;
    bool gzipped;
    uint64_t file_bytes, json_bytes;
    bool partial;
    nl_error partial_why;
    /* after finish */
    bool finished;
    framework_model_process *procs;
    size_t proc_count;
    framework_model_thread *threads;
    size_t thread_count;
    uint32_t *row_thread;
};

/* ---- categories --------------------------------------------------------------------------------------- */

static bool fm_is(const char *s, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    return len == n && memcmp(s, lit, n) == 0;
}

static bool fm_ends(const char *s, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    return len >= n && memcmp(s + len - n, lit, n) == 0;
}

unsigned framework_model_category_traits(const char *cat, size_t len)
{
    static const char *const device_only[] = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation",
                                              "mtia_ccp_events", "privateuse1_driver"};
    static const char *const host_only[] = {"cpu_op", "user_annotation", "python_function", "cpu_instant_event",
                                            "cuda_runtime", "cuda_driver", "xpu_runtime", "privateuse1_runtime"};
    unsigned t = 0;
    for (size_t i = 0; i < sizeof device_only / sizeof device_only[0]; i++)
        if (fm_is(cat, len, device_only[i]))
            t |= FM_CAT_DEVICE_ONLY;
    for (size_t i = 0; i < sizeof host_only / sizeof host_only[0]; i++)
        if (fm_is(cat, len, host_only[i]))
            t |= FM_CAT_HOST_ONLY;
    if (fm_ends(cat, len, "_runtime") || fm_ends(cat, len, "_driver") || fm_is(cat, len, "cuda_sync"))
        t |= FM_CAT_LAUNCH;
    if (fm_is(cat, len, "cuda_sync"))
        t |= FM_CAT_WAIT;
    if (fm_is(cat, len, "gpu_user_annotation"))
        t |= FM_CAT_ANNOTATION;
    if (fm_is(cat, len, "Trace"))
        t |= FM_CAT_PROFILER;
    return t;
}

/* ---- lifecycle ---------------------------------------------------------------------------------------- */

static int fm_note_equal(const void *ctx, uint32_t value, const void *key)
{
    const framework_model *m = ctx;
    const fm_note_key *k = key;
    return m->notes[value].kind == k->kind && m->notes[value].name == k->name;
}

static const hashtab_type fm_note_type = {.equal = fm_note_equal};

framework_model *framework_model_new(size_t memory_limit, nl_error *err)
{
    arena *a = arena_new(0);
    if (a)
        arena_set_limit(a, memory_limit);
    framework_model *m = a ? arena_calloc(a, 1, sizeof *m) : NULL;
    if (m) {
        m->arena = a;
        m->strings = strtab_new(a);
        m->events = m->strings ? table_new(a, fm_cols, FM_EV_NCOLS) : NULL;
    }
    if (!m || !m->events) {
        arena_free(a);
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory creating a framework model");
        return NULL;
    }
    hashtab_init(&m->note_index, &fm_note_type, m, a);
    nl_error_clear(&m->partial_why);
    return m;
}

void framework_model_free(framework_model *m)
{
    if (m)
        arena_free(m->arena);
}

/* ---- building ----------------------------------------------------------------------------------------- */

strtab *framework_model_strtab_mut(framework_model *m)
{
    return m->strings;
}

int framework_model_append(framework_model *m, const table_value *row, nl_error *err)
{
    return table_append(m->events, row, err);
}

static kvlist *fm_record(framework_model *m, kvlist **slot, const char *what, nl_error *err)
{
    if (!*slot) {
        *slot = kvlist_new(m->arena, m->strings);
        if (!*slot)
            nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory creating the %s record", what);
    }
    return *slot;
}

kvlist *framework_model_trace_mut(framework_model *m, nl_error *err)
{
    return fm_record(m, &m->trace, "trace", err);
}

kvlist *framework_model_dist_mut(framework_model *m, nl_error *err)
{
    return fm_record(m, &m->dist, "distributedInfo", err);
}

int framework_model_add_device(framework_model *m, bool has_id, int64_t id, uint32_t name, nl_error *err)
{
    if (m->device_count < FRAMEWORK_MODEL_DEVICES_MAX) {
        if (m->device_count == m->device_cap) {
            size_t cap = m->device_cap ? m->device_cap * 2 : 8;
            fm_device *d = arena_alloc(m->arena, cap * sizeof *d);
            if (!d)
                return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory recording deviceProperties");
            if (m->device_count)
                memcpy(d, m->devices, m->device_count * sizeof *d);
            m->devices = d;
            m->device_cap = cap;
        }
        m->devices[m->device_count] = (fm_device){id, name, has_id};
    }
    m->device_count++;
    return 0;
}

int framework_model_add_log(framework_model *m, bool is_error, const char *line, size_t len, nl_error *err)
{
    uint64_t k = m->log_count[is_error]++;
    if (!is_error || k >= FRAMEWORK_MODEL_ERROR_LINES_MAX)
        return 0;
    if (len > FRAMEWORK_MODEL_ERROR_LINE_BYTES) {
        len = FRAMEWORK_MODEL_ERROR_LINE_BYTES;
        while (len > 0 && ((unsigned char)line[len] & 0xc0) == 0x80) /* keep whole UTF-8 characters */
            len--;
    }
    m->error_lines[k] = arena_strndup(m->arena, line, len);
    if (!m->error_lines[k])
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory keeping an ERROR line");
    return 0;
}

int framework_model_add_note(framework_model *m, framework_model_note_kind kind, uint32_t name, uint64_t count,
                             int64_t offset, nl_error *err)
{
    if (m->note_count >= FRAMEWORK_MODEL_NOTES_MAX && strtab_intern(m->strings, "(other)", 7, &name, err) != 0)
        return -1;
    fm_note_key key = {kind, name};
    uint32_t hash = hashtab_hash_u32(name ^ ((uint32_t)kind << 27));
    uint32_t idx;
    if (hashtab_find(&m->note_index, hash, &key, &idx)) {
        m->notes[idx].count += count;
        return 0;
    }
    if (m->note_count == m->note_cap) {
        uint32_t cap = m->note_cap ? m->note_cap * 2 : 16;
        framework_model_note *n = arena_alloc(m->arena, (size_t)cap * sizeof *n);
        if (!n)
            return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory adding a reader note");
        if (m->note_count)
            memcpy(n, m->notes, (size_t)m->note_count * sizeof *n);
        m->notes = n;
        m->note_cap = cap;
    }
    if (hashtab_insert(&m->note_index, hash, m->note_count) != 0)
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory adding a reader note");
    m->notes[m->note_count++] = (framework_model_note){kind, name, count, offset};
    return 0;
}

void framework_model_set_input(framework_model *m, framework_model_layout layout, bool gzipped, uint64_t file_bytes,
                               uint64_t json_bytes)
{
    m->layout = layout;
    m->gzipped = gzipped;
    m->file_bytes = file_bytes;
    m->json_bytes = json_bytes;
}

void framework_model_set_partial(framework_model *m, const nl_error *why)
{
    m->partial = true;
    if (why)
        m->partial_why = *why;
}

/* ---- finish: processes, threads, device classification ------------------------------------------------ */

/* 1 when s[0..len) is an optional '-' followed by 1-18 digits; *v gets the value. */
static int fm_small_int(const char *s, size_t len, int64_t *v)
{
    size_t i = len && s[0] == '-';
    if (len == i || len - i > 18)
        return 0;
    int64_t x = 0;
    for (size_t k = i; k < len; k++) {
        if (s[k] < '0' || s[k] > '9')
            return 0;
        x = x * 10 + (s[k] - '0');
    }
    *v = i ? -x : x;
    return 1;
}

static bool fm_device_word(const char *s, size_t len)
{
    static const char *const words[] = {"NeuronCore", "Neuron", "PrivateUse1", "GPU", "MTIA", "NPU", "XPU",
                                        "HPU", "TPU", "Device"};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t n = strlen(words[w]);
        if (len < n || strncasecmp(s, words[w], n) != 0)
            continue;
        char c = len > n ? s[n] : '\0';
        if (c == '\0' || c == ' ' || c == ':' || c == '#' || (c >= '0' && c <= '9'))
            return true;
    }
    return false;
}

typedef struct fm_thread_map {
    uint64_t *keys; /* (pid code << 32 | tid code) + 1; 0 = empty */
    uint32_t *vals;
    size_t mask;
} fm_thread_map;

static int fm_thread_index(framework_model *m, fm_thread_map *map, uint32_t pcode, uint32_t tcode, uint32_t *out,
                           size_t *cap)
{
    uint64_t key = (((uint64_t)pcode << 32) | tcode) + 1;
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull >> 20) & map->mask;
    while (map->keys[h] && map->keys[h] != key)
        h = (h + 1) & map->mask;
    if (map->keys[h]) {
        *out = map->vals[h];
        return 0;
    }
    if (m->thread_count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        framework_model_thread *t = realloc(m->threads, ncap * sizeof *t);
        if (!t)
            return -1;
        m->threads = t;
        *cap = ncap;
    }
    if ((m->thread_count + 1) * 2 > map->mask + 1) {
        size_t nsize = (map->mask + 1) * 2;
        uint64_t *keys = calloc(nsize, sizeof *keys);
        uint32_t *vals = malloc(nsize * sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return -1;
        }
        for (size_t i = 0; i <= map->mask; i++) {
            if (!map->keys[i])
                continue;
            size_t j = (size_t)(map->keys[i] * 0x9E3779B97F4A7C15ull >> 20) & (nsize - 1);
            while (keys[j])
                j = (j + 1) & (nsize - 1);
            keys[j] = map->keys[i];
            vals[j] = map->vals[i];
        }
        free(map->keys);
        free(map->vals);
        map->keys = keys;
        map->vals = vals;
        map->mask = nsize - 1;
        h = (size_t)(key * 0x9E3779B97F4A7C15ull >> 20) & map->mask;
        while (map->keys[h])
            h = (h + 1) & map->mask;
    }
    uint32_t idx = (uint32_t)m->thread_count++;
    map->keys[h] = key;
    map->vals[h] = idx;
    m->threads[idx] = (framework_model_thread){0};
    *out = idx;
    return 0;
}

#define FM_FINISH_CHUNK 4096u

/* Build the per-row thread index and per-thread/per-process counts; collect M-event names. */
static int fm_scan_rows(framework_model *m, uint8_t *pcat, nl_error *err)
{
    const table *t = m->events;
    size_t n = table_rows(t);
    uint32_t ncat = table_dict_size(t, FM_EV_CAT), nph = table_dict_size(t, FM_EV_PH);
    unsigned *cat_traits = calloc(ncat ? ncat : 1, sizeof *cat_traits);
    uint8_t *ph_meta = calloc(nph ? nph : 1, 1);
    fm_thread_map map = {calloc(1024, sizeof(uint64_t)), malloc(1024 * sizeof(uint32_t)), 1023};
    size_t thread_cap = 0;
    uint32_t id_process_name = strtab_find(m->strings, "process_name", 12);
    uint32_t id_process_labels = strtab_find(m->strings, "process_labels", 14);
    uint32_t id_thread_name = strtab_find(m->strings, "thread_name", 11);
    int rc = -1;
    if (!cat_traits || !ph_meta || !map.keys || !map.vals)
        goto done;
    for (uint32_t c = 0; c < ncat; c++) {
        size_t len;
        const char *s = strtab_str(m->strings, table_dict_id(t, FM_EV_CAT, c), &len);
        cat_traits[c] = framework_model_category_traits(s, len);
    }
    for (uint32_t c = 0; c < nph; c++)
        ph_meta[c] = fm_is(strtab_str(m->strings, table_dict_id(t, FM_EV_PH, c), NULL), 1, "M");
    for (size_t r = 0; r < n; r++) {
        uint32_t pcode = table_code(t, FM_EV_PID, r), tcode = table_code(t, FM_EV_TID, r);
        uint32_t th;
        if (fm_thread_index(m, &map, pcode, tcode, &th, &thread_cap) != 0)
            goto done;
        m->row_thread[r] = th;
        framework_model_thread *ft = &m->threads[th];
        if (ft->events++ == 0) {
            ft->pid = table_str(t, FM_EV_PID, r);
            ft->tid = table_str(t, FM_EV_TID, r);
            ft->process = pcode;
        }
        m->procs[pcode].events++;
        pcat[pcode] |= (uint8_t)(cat_traits[table_code(t, FM_EV_CAT, r)] & (FM_CAT_DEVICE_ONLY | FM_CAT_HOST_ONLY));
        if (!ph_meta[table_code(t, FM_EV_PH, r)])
            continue;
        uint32_t name = table_str(t, FM_EV_NAME, r), detail = table_str(t, FM_EV_DETAIL, r);
        if (!detail)
            continue;
        if (name == id_process_name && !m->procs[pcode].name)
            m->procs[pcode].name = detail;
        else if (name == id_process_labels && !m->procs[pcode].labels)
            m->procs[pcode].labels = detail;
        else if (name == id_thread_name && !ft->name)
            ft->name = detail;
    }
    rc = 0;
done:
    if (rc != 0)
        nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory indexing the threads of a framework trace");
    free(cat_traits);
    free(ph_meta);
    free(map.keys);
    free(map.vals);
    return rc;
}

static bool fm_in_device_properties(const framework_model *m, int64_t pid)
{
    size_t kept = m->device_count < FRAMEWORK_MODEL_DEVICES_MAX ? m->device_count : FRAMEWORK_MODEL_DEVICES_MAX;
    for (size_t i = 0; i < kept; i++)
        if (m->devices[i].has_id && m->devices[i].id == pid)
            return true;
    return false;
}

static void fm_classify(framework_model *m, const uint8_t *pcat)
{
    for (size_t p = 0; p < m->proc_count; p++) {
        framework_model_process *fp = &m->procs[p];
        size_t len, llen = 0, nlen = 0;
        const char *pid = strtab_str(m->strings, fp->pid, &len);
        const char *name = strtab_str(m->strings, fp->name, &nlen);
        const char *labels = strtab_str(m->strings, fp->labels, &llen);
        int64_t v;
        bool numeric = fm_small_int(pid, len, &v);
        bool host_cats = pcat[p] & FM_CAT_HOST_ONLY;
        fp->device = FM_HOST;
        if (!numeric)
            continue; /* rule 1: "Spans", "Traces", "" (and numbers beyond 18 digits) are never devices */
        if (pcat[p] & FM_CAT_DEVICE_ONLY)
            fp->device = FM_DEVICE_BY_CATEGORY;
        else if (!host_cats && (fm_device_word(name, nlen) || fm_device_word(labels, llen)))
            fp->device = FM_DEVICE_BY_NAME;
        else if (!host_cats && numeric && fm_in_device_properties(m, v))
            fp->device = FM_DEVICE_BY_PROPERTIES;
    }
}

int framework_model_finish(framework_model *m, nl_error *err)
{
    if (m->finished)
        return 0;
    const table *t = m->events;
    size_t n = table_rows(t);
    m->proc_count = table_dict_size(t, FM_EV_PID);
    m->procs = arena_calloc(m->arena, m->proc_count ? m->proc_count : 1, sizeof *m->procs);
    m->row_thread = arena_alloc(m->arena, (n ? n : 1) * sizeof *m->row_thread);
    uint8_t *pcat = calloc(m->proc_count ? m->proc_count : 1, 1);
    if (!m->procs || !m->row_thread || !pcat) {
        free(pcat);
        return nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory indexing the processes of a framework trace");
    }
    for (size_t p = 0; p < m->proc_count; p++)
        m->procs[p].pid = table_dict_id(t, FM_EV_PID, (uint32_t)p);
    int rc = fm_scan_rows(m, pcat, err);
    if (rc == 0) {
        fm_classify(m, pcat);
        /* move the thread table into the arena so the model owns one allocation domain */
        framework_model_thread *th = arena_alloc(m->arena, (m->thread_count ? m->thread_count : 1) * sizeof *th);
        if (!th) {
            rc = nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "out of memory indexing the threads of a framework trace");
        } else {
            if (m->thread_count)
                memcpy(th, m->threads, m->thread_count * sizeof *th);
            free(m->threads);
            m->threads = th;
            m->finished = true;
        }
    }
    if (!m->finished) {
        free(m->threads);
        m->threads = NULL;
        m->thread_count = 0;
    }
    free(pcat);
    return rc;
}

/* ---- reading ------------------------------------------------------------------------------------------ */

const table *framework_model_events(const framework_model *m)
{
    return m->events;
}

size_t framework_model_rows(const framework_model *m)
{
    return table_rows(m->events);
}

const strtab *framework_model_strings(const framework_model *m)
{
    return m->strings;
}

const char *framework_model_str(const framework_model *m, uint32_t id, size_t *len)
{
    return strtab_str(m->strings, id, len);
}

uint32_t framework_model_str_find(const framework_model *m, const char *s)
{
    return strtab_find(m->strings, s, strlen(s));
}

const kvlist *framework_model_trace(const framework_model *m)
{
    return m->trace;
}

const kvlist *framework_model_dist(const framework_model *m)
{
    return m->dist;
}

int framework_model_time_base(const framework_model *m, int64_t *base_ns)
{
    int64_t v;
    if (!m->trace || !kvlist_get_i64(m->trace, "baseTimeNanoseconds", &v))
        return 0;
    const kvlist_entry *e = kvlist_get(m->trace, "baseTimeNanoseconds");
    if (!e || (e->kind != KVLIST_INT && e->kind != KVLIST_UINT))
        return 0;
    *base_ns = v;
    return 1;
}

size_t framework_model_device_count(const framework_model *m)
{
    return m->device_count;
}

int framework_model_device_at(const framework_model *m, size_t i, int64_t *id, uint32_t *name)
{
    if (i >= m->device_count || i >= FRAMEWORK_MODEL_DEVICES_MAX)
        return 0;
    *name = m->devices[i].name;
    *id = m->devices[i].id;
    return m->devices[i].has_id;
}

uint64_t framework_model_log_count(const framework_model *m, bool is_error)
{
    return m->log_count[is_error];
}

const char *framework_model_error_line(const framework_model *m, size_t i)
{
    return i < FRAMEWORK_MODEL_ERROR_LINES_MAX ? m->error_lines[i] : NULL;
}

size_t framework_model_note_count(const framework_model *m)
{
    return m->note_count;
}

const framework_model_note *framework_model_note_at(const framework_model *m, size_t i)
{
    return i < m->note_count ? &m->notes[i] : NULL;
}

const char *framework_model_note_kind_name(framework_model_note_kind kind)
{
    static const char *const names[FM_NOTE_KIND_COUNT] = {
        [FM_NOTE_NOT_OBJECT] = "not_object", [FM_NOTE_NO_PH] = "no_ph",
        [FM_NOTE_BAD_TIME] = "bad_time",     [FM_NOTE_BAD_FIELD] = "bad_field",
        [FM_NOTE_LONG_NAME] = "long_name",   [FM_NOTE_TOP_KEY] = "top_key",
        [FM_NOTE_NEGATIVE_DUR] = "negative_dur", [FM_NOTE_TRAILING_BYTES] = "trailing_bytes",
    };
    return kind < FM_NOTE_KIND_COUNT ? names[kind] : "?";
}

framework_model_layout framework_model_layout_of(const framework_model *m)
{
    return m->layout;
}

bool framework_model_gzipped(const framework_model *m)
{
    return m->gzipped;
}

uint64_t framework_model_file_bytes(const framework_model *m)
{
    return m->file_bytes;
}

uint64_t framework_model_json_bytes(const framework_model *m)
{
    return m->json_bytes;
}

int framework_model_partial(const framework_model *m, nl_error *why)
{
    if (m->partial && why)
        *why = m->partial_why;
    return m->partial;
}

size_t framework_model_process_count(const framework_model *m)
{
    return m->finished ? m->proc_count : 0;
}

const framework_model_process *framework_model_process_at(const framework_model *m, size_t i)
{
    return m->finished && i < m->proc_count ? &m->procs[i] : NULL;
}

size_t framework_model_thread_count(const framework_model *m)
{
    return m->finished ? m->thread_count : 0;
}

const framework_model_thread *framework_model_thread_at(const framework_model *m, size_t i)
{
    return m->finished && i < m->thread_count ? &m->threads[i] : NULL;
}

const uint32_t *framework_model_row_threads(const framework_model *m)
{
    return m->finished ? m->row_thread : NULL;
}

const char *framework_model_device_reason_name(framework_model_device_reason r)
{
    switch (r) {
    case FM_HOST: return "host";
    case FM_DEVICE_BY_CATEGORY: return "device categories";
    case FM_DEVICE_BY_NAME: return "process name";
    case FM_DEVICE_BY_PROPERTIES: return "deviceProperties id";
    }
    return "?";
}

size_t framework_model_bytes(const framework_model *m)
{
    return arena_reserved(m->arena);
}
