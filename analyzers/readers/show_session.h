/* show_session — lenient reader of `neuron-profile show-session` output (formats.md §6): the text dump
 * (default header plus the `--show-trace` sections) and the `-j` JSON form.
 *
 * Owns: a show_session_parser owns its pending partial line and, for -j, a json_stream; the show_session
 * it produces owns every array and string reachable from it (show_session_free releases all of them;
 * everything borrowed stays valid until then). Input is pushed in chunks of any size and boundary
 * (show_session_parser_feed), then show_session_parser_finish hands over the result; show_session_read
 * does that for a file, reading SHOW_SESSION_READ_SIZE bytes at a time, so memory is the result plus one
 * line, whatever the dump size. Text vs JSON is decided by the first non-blank byte ('{' = -j).
 * Kept per CC-core: every TPB_TRIGGER line (time, phase, byte offset), counts per event type, the time
 * span, and counts of lines that could not be read. Instruction-trace lines are counted, not stored.
 * Threads: one parser per thread; a finished show_session is read-only and may be shared.
 * Errors: -1 with nl_error naming the source and the byte offset: NL_ERR_FORMAT (a NUL byte in a text
 * dump, a CC-core header without a number, malformed or wrong-typed -j JSON), NL_ERR_TRUNCATED (-j cut
 * off), NL_ERR_LIMIT (a cap below), NL_ERR_NOMEM, NL_ERR_IO, NL_ERR_CANCELLED. After an error every
 * further call fails the same way. Lines the reader cannot interpret are never errors: they are counted
 * and the first SHOW_SESSION_ISSUES_MAX are kept with their offsets. */
#ifndef NL_SHOW_SESSION_H
#define NL_SHOW_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

/* ---- caps (exceeding one is NL_ERR_LIMIT, never a crash) ------------------------------------------- */

#define SHOW_SESSION_LINE_MAX ((size_t)64 << 10)  /* bytes in one line, newline excluded */
#define SHOW_SESSION_CORES_MAX 1024u              /* distinct CC-cores */
#define SHOW_SESSION_CORE_ID_MAX 65535u           /* largest N accepted in "CC-core N" */
#define SHOW_SESSION_TRIGGERS_MAX ((size_t)1 << 20) /* trigger lines kept, all cores together */
#define SHOW_SESSION_TYPES_MAX 64u                /* distinct event type names; more are counted as "(other)" */
#define SHOW_SESSION_TYPE_NAME_MAX 64u            /* longer event type names are cut (and still counted) */
#define SHOW_SESSION_ISSUES_MAX 16u               /* unreadable lines kept as samples (all are counted) */
#define SHOW_SESSION_INSTR_SECTIONS_MAX 64u       /* "Instruction trace for ND d NC c" pairs listed */
#define SHOW_SESSION_GRAPHS_MAX 4096u             /* -j NeffNodes[].NodeInfo.Graphs[] records */
#define SHOW_SESSION_TEXT_MAX 512u                /* Model Name / -j Name kept (longer: cut, flagged) */
#define SHOW_SESSION_TOTALS_MAX 64u               /* "Total execution time" lines kept (one per header block) */
#define SHOW_SESSION_JSON_DEPTH_MAX 64u           /* -j nesting depth */
#define SHOW_SESSION_READ_SIZE ((size_t)1 << 20)  /* bytes per read(2) in show_session_read */
#define SHOW_SESSION_POLL_LINES 4096u             /* lines between two polls of the cancel flag */

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

/* ---- parsing ---------------------------------------------------------------------------------------- */

typedef struct show_session_options {
    const char *source;         /* name for errors (a path); nullable, copied */
    const atomic_int *cancel;   /* nullable; nonzero stops with NL_ERR_CANCELLED */
    size_t read_size;           /* show_session_read: bytes per read, 0 = SHOW_SESSION_READ_SIZE */
} show_session_options;

typedef struct show_session_parser show_session_parser;

/* A new parser; opt may be NULL. NULL with err set (NL_ERR_NOMEM). */
show_session_parser *show_session_parser_new(const show_session_options *opt, nl_error *err)
    __attribute__((warn_unused_result));
/* Push bytes (any chunking). 0, or -1 with err set. */
int show_session_parser_feed(show_session_parser *p, const void *data, size_t len, nl_error *err)
    __attribute__((warn_unused_result));
/* No more input: process the last line, check the -j document is complete, hand over the result. */
int show_session_parser_finish(show_session_parser *p, show_session **out, nl_error *err)
    __attribute__((warn_unused_result));
void show_session_parser_free(show_session_parser *p);

/* Read a whole file / buffer. 0 and *out, or -1 with err set (no result). */
int show_session_read(const char *path, const show_session_options *opt, show_session **out, nl_error *err)
    __attribute__((warn_unused_result));
int show_session_read_mem(const void *data, size_t len, const show_session_options *opt, show_session **out,
                          nl_error *err) __attribute__((warn_unused_result));

#endif
