/* ntff_payload_model — a decoded NTFF core into the device model, and the cross-check against an export
 * (ntff_payload.h). Records come from ntff_payload_scan.c.
 *
 * Threads: ntff_payload_fill_model scans the instruction, DMA and semaphore sections of the core on up to
 * three threads. The instructions go straight into the caller's model on the calling thread; DMA and
 * semaphores each into a piece model of its own, merged afterwards in that order (device_model_merge_rows
 * interns a piece's strings in its own order and copies whole segments). A sequential decode appends the
 * same rows to the caller's model in the same order, so both give the same model, value for value and id
 * for id (tests/unit/test_ntff_payload.c compares them).
 *
 * Opcode names: byte 0 of the instruction's slot → the export's `opcode`, learned once from the three
 * sample pairs in ../shared/samples/neuron-profile-json (inf2, neuron-profile 2.27.33): for every exported
 * instruction, the byte at slot `pc` of its engine's stream next to the export's `opcode`: 383 rows, 15
 * codes, one name per code and one code per name. Applied where that instruction set is used (inf2, trn1:
 * NeuronCore-v2); other codes, and every code on other architectures, are written "OPCODE_0x5a". The label
 * is the engine's name except "TensorMatrix" for MATMUL, which holds for every instruction of those pairs. */
#include "ntff_payload_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvlist.h"

static const char *const np_opcode_names[256] = {
    [0x01] = "LDWEIGHTS",         [0x02] = "MATMUL",
    [0x21] = "ACTIVATE",          [0x23] = "ACT_TABLE_LOAD",
    [0xa0] = "EVENT_SEMAPHORE",   [0xa2] = "DRAIN",
    [0xa4] = "NOP",               [0xa5] = "WRITE",
    [0xa6] = "NOTIFY",            [0xa9] = "COMPARE_BRANCH",
    [0xaa] = "TENSOR_LOAD",       [0xab] = "TENSOR_STORE",
    [0xb0] = "EVENT_SEMAPHORE_RANGE_CLEAR", [0xb1] = "SET_ORDERING_MODE",
    [0xb8] = "DMA_DIRECT2D",
};
#define NP_OPCODE_MATMUL 0x02

/* ---- absent fields ------------------------------------------------------------------------------------ */

#define NP_ABSENT_COMMON                                                                                      \
    "instruction.id", "instruction.operands", "instruction.compiler_opcode", "instruction.layer",               \
        "instruction.hlo_name", "instruction.source_location", "instruction.instruction_type",                  \
        "instruction.bir_id", "instruction.predecessors", "instruction.hbm/sbuf/psum/spill bytes",              \
        "instruction.pc (pc_byte only)", "dma.id", "dma.queue (name)", "dma.subgroup", "dma.crc (in the scan rows)", \
        "dma.queue_type", "dma.variable", "dma.source", "dma.dest", "dma.semaphore_id",                          \
        "dma.aggregated transfers and packet_aggregation_id", "semaphore_update (mapping open)", "active_time",   \
        "layer_summary", "summary", "warnings", "profile_info", "neff_header"

static const char *const np_absent_all[] = {NP_ABSENT_COMMON, NULL};
static const char *const np_absent_wait[] = {NP_ABSENT_COMMON, "instruction.evt_wait_time", NULL};
static const char *const np_absent_names[] = {NP_ABSENT_COMMON, "instruction.opcode (names; codes given)",
                                              "instruction.label (TensorMatrix)", NULL};
static const char *const np_absent_both[] = {NP_ABSENT_COMMON, "instruction.evt_wait_time",
                                             "instruction.opcode (names; codes given)",
                                             "instruction.label (TensorMatrix)", NULL};

const char *const *ntff_payload_absent_fields(const ntff_payload_trust *trust)
{
    if (trust->evt_wait)
        return trust->opcode_names ? np_absent_all : np_absent_names;
    return trust->opcode_names ? np_absent_wait : np_absent_both;
}

/* ---- pieces ------------------------------------------------------------------------------------------- */

typedef struct np_piece {
    const ntff_payload *p;
    size_t core;
    const ntff_origin *origin;
    ntff_section_kind kind;
    device_model *target;     /* borrowed: rows go straight into the caller's model; NULL: into `m` */
    device_model *m;          /* where rows go (owned when target is NULL) */
    ntff_scan_stats stats, kind5;
    nl_error err;
    int rc;
    /* interning caches (0 = not yet) */
    uint32_t engine_id[NTFF_ENGINE_COUNT], label_id[NTFF_ENGINE_COUNT], matrix_id, opcode_id[256];
} np_piece;

static int np_intern(np_piece *pc, const char *s, uint32_t *cache)
{
    if (*cache || !s[0])
        return 0;
    return device_model_intern(pc->m, s, strlen(s), cache, &pc->err);
}

static int np_instr_row(void *ctx, const ntff_instr_row *r)
{
    np_piece *pc = ctx;
    table_value row[DM_INSTR_NCOLS];
    memset(row, 0, sizeof row);
    const char *engine = ntff_engine_name(r->engine);
    bool names = pc->p->trust.opcode_names;
    if (np_intern(pc, engine, &pc->engine_id[r->engine]))
        return -1;
    uint32_t label = pc->engine_id[r->engine];
    if (r->opcode >= 0) {
        uint32_t *id = &pc->opcode_id[r->opcode];
        if (!*id) {
            char num[24];
            snprintf(num, sizeof num, "OPCODE_0x%02x", (unsigned)r->opcode & 0xff);
            if (np_intern(pc, names && np_opcode_names[r->opcode] ? np_opcode_names[r->opcode] : num, id))
                return -1;
        }
        row[DM_INSTR_OPCODE].s = *id;
        if (names && r->opcode == NP_OPCODE_MATMUL && r->engine == NTFF_ENGINE_TENSOR) {
            if (np_intern(pc, "TensorMatrix", &pc->matrix_id))
                return -1;
            label = pc->matrix_id;
        }
    }
    row[DM_INSTR_TIMESTAMP].i = r->timestamp_ns;
    row[DM_INSTR_DURATION].i = r->duration_ns;
    row[DM_INSTR_EVT_WAIT].i = r->evt_wait_ns > 0 ? r->evt_wait_ns : 0;
    row[DM_INSTR_ENGINE].s = pc->engine_id[r->engine];
    row[DM_INSTR_LABEL].s = label;
    row[DM_INSTR_PC_BYTE].u = r->pc_byte;
    return device_model_append(pc->m, DEVICE_MODEL_INSTRUCTIONS, row, &pc->err);
}

static int np_dma_row(void *ctx, const ntff_dma_row *r)
{
    np_piece *pc = ctx;
    table_value row[DM_DMA_NCOLS];
    memset(row, 0, sizeof row);
    row[DM_DMA_TIMESTAMP].i = r->timestamp_ns;
    row[DM_DMA_DURATION].i = r->duration_ns;
    row[DM_DMA_TRANSFER_SIZE].u = r->size;
    row[DM_DMA_ENGINE].i = r->engine;
    row[DM_DMA_QUEUE_IDX].i = r->queue;
    return device_model_append(pc->m, DEVICE_MODEL_DMA, row, &pc->err);
}

static int np_sem_row(void *ctx, const ntff_sem_row *r)
{
    np_piece *pc = ctx;
    table_value row[DM_NSEM_NCOLS];
    row[DM_NSEM_TIMESTAMP].i = r->timestamp_ns;
    row[DM_NSEM_INDEX].i = r->index;
    row[DM_NSEM_VALUE].i = r->value;
    row[DM_NSEM_CODE].i = r->d;
    row[DM_NSEM_B].i = r->b;
    row[DM_NSEM_C].i = r->c;
    return device_model_append(pc->m, DEVICE_MODEL_NTFF_SEMAPHORES, row, &pc->err);
}

static const ntff_payload_visitor np_piece_visitor = {np_instr_row, np_dma_row, np_sem_row};

static void *np_piece_run(void *arg)
{
    np_piece *pc = arg;
    nl_error_clear(&pc->err);
    pc->m = pc->target ? pc->target : device_model_new(&pc->err);
    pc->rc = -1;
    if (!pc->m)
        return NULL;
    nl_error scan_err;
    nl_error_clear(&scan_err);
    pc->rc = ntff_payload_scan(pc->p, pc->core, pc->kind, pc->origin, &np_piece_visitor, pc, &pc->stats, &scan_err);
    if (pc->rc == 0 && pc->kind == NTFF_SECTION_SEMAPHORES)
        pc->rc = ntff_payload_scan(pc->p, pc->core, NTFF_SECTION_KIND5, pc->origin, NULL, NULL, &pc->kind5,
                                   &scan_err);
    /* A visitor failure (NL_ERR_NOMEM/LIMIT from the model) stopped the scan: report the visitor's error. */
    if (pc->rc && pc->err.code == NL_OK)
        pc->err = scan_err;
    return NULL;
}

static unsigned np_threads(const ntff_payload *p)
{
    unsigned t = p->opt.threads;
    if (t == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        t = n > 0 ? (unsigned)n : 1;
    }
    return t > NTFF_PAYLOAD_THREADS_MAX ? NTFF_PAYLOAD_THREADS_MAX : t;
}

/* Run the three pieces: the calling thread takes the first, one thread each for the others when allowed.
 * The first piece writes into the caller's model directly, since nothing precedes it there; so do all
 * pieces when they run one after the other on the calling thread. */
static void np_run_pieces(const ntff_payload *p, np_piece *pieces, size_t n, device_model *m)
{
    unsigned threads = np_threads(p);
    for (size_t i = 0; i < n; i++)
        pieces[i].target = i == 0 || threads < 2 ? m : NULL;
    pthread_t tid[3];
    bool started[3] = {false, false, false};
    for (size_t i = 1; i < n && i < threads; i++)
        started[i] = pthread_create(&tid[i], NULL, np_piece_run, &pieces[i]) == 0;
    np_piece_run(&pieces[0]);
    for (size_t i = 1; i < n; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            np_piece_run(&pieces[i]);
    }
}

/* ---- records ------------------------------------------------------------------------------------------ */

static int np_kv(device_model *m, kvlist *l, const char *key, kvlist_kind kind, int64_t i, const char *text,
                 nl_error *err)
{
    kvlist_entry e = {.kind = kind, .i = i, .u = (uint64_t)i, .num = (double)i};
    char num[32];
    if (kind == KVLIST_INT) {
        snprintf(num, sizeof num, "%lld", (long long)i);
        text = num;
    } else if (kind == KVLIST_BOOL) {
        text = "";
    }
    if (device_model_intern(m, key, strlen(key), &e.key, err) ||
        device_model_intern(m, text, strlen(text), &e.text, err))
        return -1;
    return kvlist_set(l, &e, err);
}

static const char *np_rule_name(ntff_origin_rule r)
{
    return r == NTFF_ORIGIN_EXPORT_G ? "export_g" : r == NTFF_ORIGIN_FIRST_START ? "first_start" : "none";
}

static int np_fill_records(const ntff_payload *p, size_t core, device_model *m, const ntff_payload_report *rep,
                           nl_error *err)
{
    kvlist *md = device_model_record_mut(m, DEVICE_MODEL_METADATA, err);
    kvlist *mi = md ? device_model_record_mut(m, DEVICE_MODEL_MODEL_INFO, err) : NULL;
    if (!mi)
        return -1;
    const ntff_payload_core *c = &p->cores[core].pub;
    char absent[1024];
    size_t used = 0;
    absent[0] = '\0';
    for (const char *const *f = ntff_payload_absent_fields(&rep->trust); *f && used < sizeof absent; f++)
        used += (size_t)snprintf(absent + used, sizeof absent - used, "%s%s", used ? ", " : "", *f);
    int rc = np_kv(m, md, "ntff_version", KVLIST_INT, p->hdr->version, NULL, err) ||
             np_kv(m, md, "first_hw_timestamp", KVLIST_INT, 0, NULL, err) ||
             (rep->instr.instr_visible &&
              np_kv(m, md, "last_hw_timestamp", KVLIST_INT, rep->instr.last_end_ns, NULL, err)) ||
             np_kv(m, md, "neuronlens_ntff_trust", KVLIST_STRING, 0,
                   rep->trust.level == NTFF_TRUST_VERIFIED ? "verified" : "unverified", err) ||
             np_kv(m, md, "neuronlens_ntff_trust_label", KVLIST_STRING, 0, rep->trust.label, err) ||
             np_kv(m, md, "neuronlens_ntff_architecture", KVLIST_STRING, 0, rep->trust.architecture, err) ||
             np_kv(m, md, "neuronlens_ntff_core", KVLIST_STRING, 0, c->name, err) ||
             np_kv(m, md, "neuronlens_ntff_core_index", KVLIST_INT, (int64_t)core, NULL, err) ||
             np_kv(m, md, "neuronlens_ntff_origin_rule", KVLIST_STRING, 0, np_rule_name(rep->origin.rule), err) ||
             np_kv(m, md, "neuronlens_ntff_absent", KVLIST_STRING, 0, absent, err) ||
             np_kv(m, mi, "sg_name", KVLIST_STRING, 0, c->name, err) ||
             np_kv(m, mi, "event_count", KVLIST_INT, (int64_t)rep->sem.records, NULL, err);
    static const struct {
        const char *key;
        unsigned engine;
    } counts[] = {{"tensor_engine_instruction_count", NTFF_ENGINE_TENSOR},
                  {"vector_engine_instruction_count", NTFF_ENGINE_VECTOR},
                  {"scalar_engine_instruction_count", NTFF_ENGINE_SCALAR},
                  {"gpsimd_engine_instruction_count", NTFF_ENGINE_GPSIMD},
                  {"sync_engine_instruction_count", NTFF_ENGINE_SYNC}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0] && rc == 0; i++)
        rc = np_kv(m, mi, counts[i].key, KVLIST_INT, (int64_t)rep->instr.instr_per_engine[counts[i].engine], NULL,
                   err);
    return rc ? -1 : 0;
}

int ntff_payload_fill_model(const ntff_payload *p, size_t core, device_model *m, ntff_payload_report *report,
                            nl_error *err)
{
    ntff_payload_report local;
    ntff_payload_report *rep = report ? report : &local;
    memset(rep, 0, sizeof *rep);
    rep->trust = p->trust;
    if (ntff_payload_origin(p, core, &rep->origin, err))
        return -1;
    np_piece pieces[3];
    static const ntff_section_kind kinds[3] = {NTFF_SECTION_INSTRUCTIONS, NTFF_SECTION_DMA,
                                               NTFF_SECTION_SEMAPHORES};
    for (size_t i = 0; i < 3; i++) {
        memset(&pieces[i], 0, sizeof pieces[i]);
        pieces[i].p = p, pieces[i].core = core, pieces[i].origin = &rep->origin, pieces[i].kind = kinds[i];
    }
    np_run_pieces(p, pieces, 3, m);
    int rc = 0;
    static const device_model_table tables[3] = {DEVICE_MODEL_INSTRUCTIONS, DEVICE_MODEL_DMA,
                                                 DEVICE_MODEL_NTFF_SEMAPHORES};
    for (size_t i = 0; i < 3 && rc == 0; i++) {
        if (pieces[i].rc) {
            if (err)
                *err = pieces[i].err;
            rc = -1;
        } else if (!pieces[i].target) {
            rc = device_model_merge_rows(m, pieces[i].m, tables[i], err);
        }
    }
    for (size_t i = 0; i < 3; i++)
        if (!pieces[i].target)
            device_model_free(pieces[i].m);
    if (rc)
        return -1;
    rep->instr = pieces[0].stats;
    rep->dma = pieces[1].stats;
    rep->sem = pieces[2].stats;
    rep->kind5 = pieces[2].kind5;
    if (np_fill_records(p, core, m, rep, err))
        return -1;
    return device_model_finish(m, err);
}

/* ---- cross-check -------------------------------------------------------------------------------------- */

typedef struct np_key {
    int64_t v[5];   /* compared in order */
    size_t row;
    bool matched;
} np_key;

static int np_key_cmp(const void *a, const void *b)
{
    const np_key *x = a, *y = b;
    for (int i = 0; i < 5; i++)
        if (x->v[i] != y->v[i])
            return x->v[i] < y->v[i] ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Same, skipping v[0] (the timestamp). */
static int np_key_cmp_no_ts(const void *a, const void *b)
{
    const np_key *x = a, *y = b;
    for (int i = 1; i < 5; i++)
        if (x->v[i] != y->v[i])
            return x->v[i] < y->v[i] ? -1 : 1;
    if (x->v[0] != y->v[0])
        return x->v[0] < y->v[0] ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int np_engine_code(const device_model *m, uint32_t id)
{
    const char *s = device_model_str(m, id, NULL);
    for (unsigned e = 1; e < NTFF_ENGINE_COUNT; e++)
        if (s && strcmp(s, ntff_engine_name(e)) == 0)
            return (int)e;
    return 0;
}

/* Instruction keys: timestamp, duration, engine, evt_wait, pc & 0xff. */
static np_key *np_instr_keys(const device_model *m, size_t *n)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_INSTRUCTIONS);
    *n = table_rows(t);
    np_key *k = calloc(*n ? *n : 1, sizeof *k);
    if (!k)
        return NULL;
    for (size_t r = 0; r < *n; r++) {
        uint64_t pcb = table_u64(t, DM_INSTR_PC_BYTE, r);
        k[r].v[0] = table_i64(t, DM_INSTR_TIMESTAMP, r);
        k[r].v[1] = table_i64(t, DM_INSTR_DURATION, r);
        k[r].v[2] = np_engine_code(m, table_str(t, DM_INSTR_ENGINE, r));
        k[r].v[3] = table_i64(t, DM_INSTR_EVT_WAIT, r);
        k[r].v[4] = (int64_t)(pcb & 0xff);
        k[r].row = r;
    }
    return k;
}

/* DMA packet keys: timestamp, duration, engine, queue, size (aggregated export rows left out). */
static np_key *np_dma_keys(const device_model *m, size_t *n, size_t *aggregated)
{
    const table *t = device_model_table_get(m, DEVICE_MODEL_DMA);
    size_t rows = table_rows(t);
    np_key *k = calloc(rows ? rows : 1, sizeof *k);
    if (!k)
        return NULL;
    *n = 0;
    *aggregated = 0;
    for (size_t r = 0; r < rows; r++) {
        if (table_u64(t, DM_DMA_FLAGS, r) & DM_DMA_F_AGGREGATED) {
            (*aggregated)++;
            continue;
        }
        np_key *x = &k[(*n)++];
        x->v[0] = table_i64(t, DM_DMA_TIMESTAMP, r);
        x->v[1] = table_i64(t, DM_DMA_DURATION, r);
        x->v[2] = table_i64(t, DM_DMA_ENGINE, r);
        x->v[3] = table_i64(t, DM_DMA_QUEUE_IDX, r);
        x->v[4] = (int64_t)table_u64(t, DM_DMA_TRANSFER_SIZE, r);
        x->row = r;
    }
    return k;
}

/* Count equal keys of a and b (sorted by cmp) as a multiset, marking them. */
static size_t np_match(np_key *a, size_t na, np_key *b, size_t nb, int (*cmp)(const void *, const void *),
                       int64_t *max_ts_diff)
{
    qsort(a, na, sizeof *a, cmp);
    qsort(b, nb, sizeof *b, cmp);
    size_t i = 0, j = 0, matched = 0;
    while (i < na && j < nb) {
        if (a[i].matched) {
            i++;
            continue;
        }
        if (b[j].matched) {
            j++;
            continue;
        }
        np_key x = a[i], y = b[j];
        int c = 0;
        for (int f = cmp == np_key_cmp ? 0 : 1; f < 5 && c == 0; f++)
            c = x.v[f] < y.v[f] ? -1 : x.v[f] > y.v[f];
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            a[i].matched = b[j].matched = true;
            int64_t d = x.v[0] > y.v[0] ? x.v[0] - y.v[0] : y.v[0] - x.v[0];
            if (max_ts_diff && d > *max_ts_diff)
                *max_ts_diff = d;
            matched++, i++, j++;
        }
    }
    return matched;
}

/* The unmatched key with the lowest row, described. */
static void np_first_unmatched(const np_key *k, size_t n, const char *side, const char *what, const char *fields,
                               char *out, size_t cap)
{
    const np_key *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (!k[i].matched && (!best || k[i].row < best->row))
            best = &k[i];
    if (best && !out[0])
        snprintf(out, cap, "%s %s row %zu (%s = %lld, %lld, %lld, %lld, %lld) has no match", side, what, best->row,
                 fields, (long long)best->v[0], (long long)best->v[1], (long long)best->v[2], (long long)best->v[3],
                 (long long)best->v[4]);
}

static int np_engine_counts_equal(const device_model *a, const device_model *b)
{
    static const char *const keys[] = {"tensor_engine_instruction_count", "vector_engine_instruction_count",
                                       "scalar_engine_instruction_count", "gpsimd_engine_instruction_count",
                                       "sync_engine_instruction_count"};
    const kvlist *x = device_model_record_get(a, DEVICE_MODEL_MODEL_INFO);
    const kvlist *y = device_model_record_get(b, DEVICE_MODEL_MODEL_INFO);
    int equal = 1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        int64_t u, v;
        if (!kvlist_get_i64(x, keys[i], &u) || !kvlist_get_i64(y, keys[i], &v))
            return -1;
        equal = equal && u == v;
    }
    return equal;
}

int ntff_payload_crosscheck(const device_model *decoded, const device_model *exported, ntff_crosscheck *out,
                            nl_error *err)
{
    memset(out, 0, sizeof *out);
    size_t nd, ne, agg_d;
    np_key *kd = np_instr_keys(decoded, &nd), *ke = np_instr_keys(exported, &ne);
    np_key *dd = NULL, *de = NULL;
    int rc = -1;
    if (!kd || !ke)
        goto nomem;
    out->instr_decoded = nd, out->instr_export = ne;
    out->instr_matched = np_match(kd, nd, ke, ne, np_key_cmp, NULL);
    static const char instr_fields[] = "timestamp, duration, engine, evt_wait, pc byte";
    np_first_unmatched(ke, ne, "export", "instruction", instr_fields, out->first_instr_disagreement,
                       sizeof out->first_instr_disagreement);
    np_first_unmatched(kd, nd, "decoded", "instruction", instr_fields, out->first_instr_disagreement,
                       sizeof out->first_instr_disagreement);
    dd = np_dma_keys(decoded, &nd, &agg_d);
    de = np_dma_keys(exported, &ne, &out->dma_export_aggregated);
    if (!dd || !de)
        goto nomem;
    out->dma_decoded = nd, out->dma_export = ne;
    out->dma_matched = np_match(dd, nd, de, ne, np_key_cmp, NULL);
    static const char dma_fields[] = "timestamp, duration, engine, queue, size";
    np_first_unmatched(de, ne, "export", "DMA packet", dma_fields, out->first_dma_disagreement,
                       sizeof out->first_dma_disagreement);
    np_first_unmatched(dd, nd, "decoded", "DMA packet", dma_fields, out->first_dma_disagreement,
                       sizeof out->first_dma_disagreement);
    out->dma_matched_but_timestamp = np_match(dd, nd, de, ne, np_key_cmp_no_ts, &out->dma_timestamp_max_diff);
    out->engine_counts_equal = np_engine_counts_equal(decoded, exported);
    rc = 0;
    goto out;
nomem:
    nl_error_set(err, NL_ERR_NOMEM, NULL, -1, "cross-check keys");
out:
    free(kd);
    free(ke);
    free(dd);
    free(de);
    return rc;
}
