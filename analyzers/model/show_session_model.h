/* show_session_model — what a `neuron-profile show-session` dump holds (formats.md §6), as the reader
 * (readers/show_session.c) leaves it: per CC-core the TPB_TRIGGER lines with their times and phases,
 * counts per event type, the header facts (model name, total execution time, dropped events), the -j
 * per-core graph records, and samples of the lines that could not be read.
 *
 * Owns: every array and string reachable from a show_session (show_session_free releases all of them;
 * everything borrowed stays valid until then). Threads: built by one reader; read-only afterwards, any
 * number of threads may read it. Errors: none here (the reader reports them). */
#ifndef NL_SHOW_SESSION_MODEL_H
#define NL_SHOW_SESSION_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- caps the result is sized by (the reader enforces them) ------------------------------------------ */

#define SHOW_SESSION_TYPES_MAX 64u                /* distinct event type names; more are counted as "(other)" */
#define SHOW_SESSION_TYPE_NAME_MAX 64u            /* longer event type names are cut (and still counted) */
#define SHOW_SESSION_ISSUES_MAX 16u               /* unreadable lines kept as samples (all are counted) */
#define SHOW_SESSION_INSTR_SECTIONS_MAX 64u       /* "Instruction trace for ND d NC c" pairs listed */
#define SHOW_SESSION_TEXT_MAX 512u                /* Model Name / -j Name kept (longer: cut, flagged) */
#define SHOW_SESSION_TOTALS_MAX 64u               /* "Total execution time" lines kept (one per header block) */

/* The event type whose START lines mark a collective (formats.md §11.1). Matched case-insensitively. */
#define SHOW_SESSION_TRIGGER_TYPE "TPB_TRIGGER"

/* ---- result ----------------------------------------------------------------------------------------- */

typedef enum show_session_format { SHOW_SESSION_FORMAT_TEXT, SHOW_SESSION_FORMAT_JSON } show_session_format;

typedef enum show_session_phase {
    SHOW_SESSION_PHASE_NONE,  /* the line carried neither START nor END */
    SHOW_SESSION_PHASE_START,
    SHOW_SESSION_PHASE_END,
} show_session_phase;

typedef struct show_session_trigger {
    int64_t ts_ns;            /* as printed (absolute device time, ns) */
    int64_t offset;           /* byte offset of the line */
    show_session_phase phase;
} show_session_trigger;

typedef struct show_session_core {
    uint32_t id;              /* N of "Collectives trace for CC-core N" */
    int64_t header_offset;    /* byte offset of the first header for this core */
    uint32_t sections;        /* headers seen for this core; > 1 means sections were merged */
    uint64_t events;          /* event lines read (any type) */
    uint64_t unparsed;        /* non-blank lines in the section that are not events */
    int64_t first_ns, last_ns; /* smallest / largest event time in the section (0 when no event) */
    const show_session_trigger *triggers; /* TPB_TRIGGER lines in file order (borrowed) */
    size_t trigger_count;
    size_t trigger_start, trigger_end, trigger_none; /* by phase */
    bool triggers_sorted;     /* START triggers appear in non-decreasing time order */
    const uint64_t *type_counts; /* SHOW_SESSION_TYPES_MAX + 1 counters: events per type, indexed like
                                    show_session_type_name; slot SHOW_SESSION_TYPES_MAX counts "(other)" */
} show_session_core;

typedef struct show_session_issue {
    int64_t offset;           /* byte offset of the line */
    uint64_t line;            /* 1-based line number */
    const char *reason;       /* static text */
    char excerpt[72];         /* start of the line, control bytes replaced by '?' */
} show_session_issue;

typedef struct show_session_graph { /* -j NeffNodes[].NodeInfo.Graphs[] */
    int64_t nc, cycle_count, instruction_trace_count, events_count, error_count; /* -1 when absent */
} show_session_graph;

typedef struct show_session_instr_section {
    int64_t nd, nc;           /* from "Instruction trace for ND <d> NC <c>"; -1 when not given */
    uint64_t lines;           /* non-blank lines in the section */
} show_session_instr_section;

typedef struct show_session_info {
    show_session_format format;
    uint64_t bytes, lines;
    const char *model_name;   /* text "Model Name" / -j "Name"; NULL when absent */
    bool model_name_cut;
    bool has_total_time;      /* text "Total execution time" (any casing, unit-aware): the first one */
    int64_t total_time_ns;
    int64_t total_time_offset;
    size_t total_time_count;  /* all of them (a dump of several cores has one header block per core) */
    bool has_dropped;         /* a line saying trace events were dropped */
    uint64_t dropped_events;
    uint64_t unparsed_lines;  /* in CC sections, all cores */
    uint64_t other_lines;     /* outside CC and instruction sections, not a known header key */
    uint64_t instruction_lines;
    size_t instruction_section_count; /* all seen; the first SHOW_SESSION_INSTR_SECTIONS_MAX are listed */
    const show_session_instr_section *instruction_sections;
    size_t listed_instruction_sections;
    uint64_t other_sections;  /* "<X> trace for ..." headers that are neither CC nor instruction */
    uint64_t bad_timestamps;  /* event lines whose time is not an integer in int64 range (in unparsed) */
    size_t issue_count;       /* samples kept (≤ SHOW_SESSION_ISSUES_MAX) */
    const show_session_issue *issues;
    size_t graph_count;       /* -j */
    const show_session_graph *graphs;
    uint64_t json_unknown_keys; /* -j keys outside Name / NeffNodes…Graphs fields */
} show_session_info;

typedef struct show_session show_session;

const show_session_info *show_session_get_info(const show_session *ss);
/* CC-cores in order of first appearance. */
size_t show_session_core_count(const show_session *ss);
const show_session_core *show_session_core_at(const show_session *ss, size_t i);
/* The core with this id, or NULL. */
const show_session_core *show_session_core_find(const show_session *ss, uint32_t id);
/* The total execution time that belongs to CC-core `id`: the last "Total execution time" line before the
 * core's first section header, else the first one in the dump. 1 and *ns / *offset, or 0 when the dump has
 * none. */
int show_session_total_time_for_core(const show_session *ss, uint32_t id, int64_t *ns, int64_t *offset);
/* Distinct event type names in first-seen order; any index ≥ the count names "(other)". */
size_t show_session_type_count(const show_session *ss);
const char *show_session_type_name(const show_session *ss, size_t i);
/* Heap bytes the result holds (for cache accounting). */
size_t show_session_bytes(const show_session *ss);
void show_session_free(show_session *ss);

/* ---- storage (filled by readers/show_session.c; everyone else reads through the accessors above) ------- */

typedef struct ss_core_store {
    show_session_trigger *trig;
    size_t cap;
    uint64_t *counts;     /* SHOW_SESSION_TYPES_MAX + 1 */
    int64_t last_start;
    bool have_start, have_event;
} ss_core_store;

struct show_session {
    show_session_info info;
    show_session_core *cores;
    ss_core_store *store;
    size_t core_count, core_cap;
    size_t total_triggers;
    char type_names[SHOW_SESSION_TYPES_MAX][SHOW_SESSION_TYPE_NAME_MAX + 1];
    size_t type_count;
    show_session_instr_section instr[SHOW_SESSION_INSTR_SECTIONS_MAX];
    show_session_issue issues[SHOW_SESSION_ISSUES_MAX];
    show_session_graph *graphs;
    size_t graph_cap;
    char model_name[SHOW_SESSION_TEXT_MAX + 1];
    int64_t totals[SHOW_SESSION_TOTALS_MAX][2]; /* (offset, ns) of each "Total execution time" line kept */
};

#endif
