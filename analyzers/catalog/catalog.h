/* catalog — what is at a path: the files found, what each one is, which belong together.
 *
 * nl_catalog_scan walks a file or directory (bounded depth, file count and entry count; symlinks are
 * followed but every directory is entered at most once, so loops end), classifies each regular file by
 * name and by its first bytes, reads NEFF headers and NTFF metadata, pairs NEFF↔NTFF by uuid, attaches
 * full JSON exports to their NTFF, and groups everything into ranks and profiles. Problems that do not
 * stop the scan (unreadable files, FIFOs, loops, limits, mismatched pairs) become notes, each with a fix
 * where one exists. The catalog owns every string it hands out; all pointers stay valid until
 * nl_catalog_free. A finished catalog is immutable, so any number of threads may read it; one scan runs
 * on the calling thread. Errors: NULL plus a nullable nl_error only when the root path itself cannot be
 * examined (NL_ERR_ARGUMENT, NL_ERR_NOT_FOUND, NL_ERR_IO).
 *
 * Profile ids (stable for the same tree):
 *   - an NTFF inside a capture directory `<instance>_pid_<pid>/` (formats.md §1.1) gets
 *     `rank<R>/[<subdirs>/][nc<N>/]<ntff-stem>`: R numbers the capture directories found in this scan in
 *     path order (0, 1, ...); <subdirs> are the directories between the capture directory and the file
 *     (e.g. a `<timestamp>/` level); nc<N> appears when the file name carries the core
 *     (`…_vnc_<N>.ntff`, `profile_nc_<N>_…`). Example: `rank0/profile_exec_2`, `rank1/nc4/profile_exec_2`.
 *   - any other NTFF gets `<dir>/<ntff-stem>` with <dir> relative to the scanned root (just the stem at
 *     the root). Example: `neff-ntff/stream_256k_fd1k`.
 *   - a full JSON export attached to no NTFF becomes its own profile, named the same way from its stem;
 *     a directory of `*.parquet` files becomes one profile named by the directory (the root's own name at the
 *     root; a table given as the root stands for its directory's tables, named by that directory).
 *   - a capture directory with ntrace.pb and trace_info.pb is the system profile `rank<R>/system`; a Kineto
 *     trace, a summary-json file, a show-session dump, an allocator snapshot and a NEFF no NTFF pairs with
 *     (a program profile: what the compiler wrote, no run) are profiles named by their relative path.
 *   - when the root is a file, its directory is searched for the files that belong with it (same stem, and
 *     NEFFs to pair by uuid); only the profiles that use the root file are kept.
 *   - a clash (same id twice) gets `~2`, `~3`, ... appended in path order. */
#ifndef NL_CATALOG_H
#define NL_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_error.h"

/* ---- limits ----------------------------------------------------------------------------------------- */

#define NL_CATALOG_DEFAULT_MAX_DEPTH 8          /* directory levels below the root */
#define NL_CATALOG_DEFAULT_MAX_FILES 20000      /* regular files catalogued */
#define NL_CATALOG_DEFAULT_MAX_ENTRIES 200000   /* directory entries examined (any type) */
#define NL_CATALOG_DEFAULT_JSON_PEEK_BYTES (256ull << 20) /* bytes of a JSON export scanned for identity */
#define NL_CATALOG_DEPTH_CAP 64                 /* max_depth is clamped to this */

typedef struct nl_catalog_limits {
    unsigned max_depth;
    size_t max_files;
    size_t max_entries;
    uint64_t json_peek_bytes;   /* 0 = never peek into JSON exports */
    unsigned threads;           /* threads classifying files (reading heads, peeking exports): 0 = online
                                   CPUs, 1 = the scanning thread only; the catalog is the same either way */
    /* Optional: the identity of a JSON export the caller already knows (say, from a cached model), so the
     * scan need not read the file again. Called with the file's path, size and mtime, from the scanning
     * thread or one of the classifying threads (so it must be thread-safe when threads != 1); returns 1 with
     * uuid_hex ("" when unknown) and ntff_filename ("" when unknown) filled, else 0. */
    int (*export_identity)(void *ctx, const char *path, uint64_t size, int64_t mtime_ns, char uuid_hex[33],
                           char *ntff_filename, size_t ntff_filename_cap);
    void *export_identity_ctx;
    /* Optional: told the identity a peek established (complete: both keys found or the whole file read),
     * so the caller can answer export_identity next time without a read. Same ctx and threads. */
    void (*export_identity_found)(void *ctx, const char *path, uint64_t size, int64_t mtime_ns, const char *uuid_hex,
                                  const char *ntff_filename);
} nl_catalog_limits;

/* Fill `lim` with the NL_CATALOG_DEFAULT_* values. */
void nl_catalog_limits_default(nl_catalog_limits *lim);

/* ---- files ------------------------------------------------------------------------------------------ */

typedef enum nl_file_kind {
    NL_FILE_UNKNOWN = 0,
    NL_FILE_NEFF,              /* compiled model container (§2) */
    NL_FILE_NTFF,              /* device trace (§3) */
    NL_FILE_JSON_EXPORT,       /* full `view --output-format json` export (§4) */
    NL_FILE_SUMMARY_JSON,      /* {"n_<hex>": {...}} (§5.1) */
    NL_FILE_SUMMARY_TEXT,      /* summary-text (§5.2) */
    NL_FILE_SHOW_SESSION_JSON, /* show-session -j (§6) */
    NL_FILE_SHOW_SESSION_TEXT, /* show-session text (§6) */
    NL_FILE_SYSTEM_JSON,       /* system_profile.json (§9.6) */
    NL_FILE_NTRACE_PB,         /* system profile (§9) */
    NL_FILE_TRACE_INFO_PB,
    NL_FILE_CPU_UTIL_PB,
    NL_FILE_HOST_MEM_PB,
    NL_FILE_KINETO,            /* PyTorch trace.json / .json.gz (§10) */
    NL_FILE_PARQUET,           /* neuron-explorer table (§7) */
    NL_FILE_MEMORY_SNAPSHOT,   /* PyTorch allocator snapshot pickle (memory_snapshot_rank<N>.pickle) */
    NL_FILE_KIND_COUNT
} nl_file_kind;

/* Stable lowercase name ("neff", "ntff", "json_export", ...). */
const char *nl_file_kind_name(nl_file_kind kind);

typedef struct nl_catalog_file {
    const char *path;          /* openable path (root joined with rel_path) */
    const char *rel_path;      /* relative to the scanned root; the basename when the root is a file */
    nl_file_kind kind;
    bool valid;                /* false: named/looks like `kind` but its header failed (see notes) */
    bool readable;             /* false: could not be opened; kind from the name only */
    bool gzipped;              /* content is gzip (Kineto .json.gz) */
    uint64_t size;
    int64_t mtime_ns;
    uint64_t dev, ino;

    /* identity, when the kind carries one (NEFF header, NTFF metadata, JSON export neff_header) */
    bool has_uuid;
    char uuid_hex[33];
    const char *neff_name;     /* NEFF network name / NTFF f1 / NULL */
    uint8_t ntff_version;      /* NTFF byte 0; 0 for other kinds */
    bool ntff_payload;         /* NTFF: a payload after the metadata and a per-core message (field 4) laying it out */
    const char *runtime_version;   /* NTFF "2.29.40"; NULL otherwise */
    const char *instance_type;     /* NTFF f9; NULL when absent */
    const char *instance_id;       /* NTFF f17; NULL when absent */
    bool export_peeked;            /* JSON export: identity keys searched for */
    bool complete;                 /* false: a JSON export whose last byte is not the end of a document */
    bool companion;                /* the root is a file and this one was added from its directory to pair it */
    const char *export_ntff_filename; /* JSON export profile_info.ntff_filename; NULL when not found */

    int rank;                  /* index into ranks, -1 when not inside a capture directory */
    int profile;               /* index of the profile using this file, -1 when none */
} nl_catalog_file;

/* ---- ranks and profiles ----------------------------------------------------------------------------- */

typedef struct nl_catalog_rank {
    const char *id;            /* "rank0" */
    const char *dir;           /* capture directory, relative to the root ("" when the root is one) */
    const char *instance;      /* the <instance> part of <instance>_pid_<pid> */
    uint64_t pid;
    int ntrace_pb, trace_info_pb, cpu_util_pb, host_mem_pb, trace_json; /* file indices or -1 */
    size_t neff_count, ntff_count, file_count;
    bool has_system_profile;   /* ntrace.pb + trace_info.pb both present and valid */
} nl_catalog_rank;

/* Every profile the scan found, whatever its kind, in one list (the order orient shows): device profiles
 * (an NTFF with its NEFF and export, or an export alone), system profiles, framework traces, summary-json
 * files, show-session dumps, Parquet directories. Each kind has one id scheme (above); tools never mint ids
 * or enumerate files themselves. */
typedef enum nl_profile_kind {
    NL_PROFILE_DEVICE,         /* built around an NTFF */
    NL_PROFILE_EXPORT_ONLY,    /* a full JSON export with no NTFF found */
    NL_PROFILE_SYSTEM,         /* a capture directory's ntrace.pb + trace_info.pb: id "<rank>/system" */
    NL_PROFILE_FRAMEWORK,      /* a PyTorch Kineto trace: id = its path relative to the root */
    NL_PROFILE_SUMMARY_JSON,   /* a summary-json file: id = its path ("<path>#<name>" picks one of several) */
    NL_PROFILE_SHOW_SESSION,   /* a show-session dump (text or -j): id = its path */
    NL_PROFILE_PARQUET_DIR,    /* a directory of explorer Parquet tables: id = the directory */
    NL_PROFILE_MEMORY,         /* a PyTorch allocator snapshot: id = its path */
    NL_PROFILE_PROGRAM,        /* a NEFF no NTFF here pairs with (the compiled program, no run): id = its path */
    NL_PROFILE_KIND_COUNT
} nl_profile_kind;

/* The family a kind belongs to, as results name it: "device" (device, export-only, summary-json, Parquet),
 * "system", "framework", "show_session", "memory". */
const char *nl_profile_kind_family(nl_profile_kind kind);
/* The kind itself: "ntff", "json_export", "system", "framework", "summary_json", "show_session", "parquet",
 * "memory_snapshot". */
const char *nl_profile_kind_name(nl_profile_kind kind);

typedef enum nl_pairing {
    NL_PAIR_NOT_APPLICABLE,    /* not a device profile */
    NL_PAIR_OK,                /* a NEFF with the NTFF's uuid was found */
    NL_PAIR_NO_NEFF,           /* no NEFF with that uuid (and no likely candidate) */
    NL_PAIR_UUID_MISMATCH,     /* a NEFF that should match (same dir and name) carries another uuid */
    NL_PAIR_NO_UUID,           /* the NTFF could not be read, or has no uuid */
} nl_pairing;

typedef enum nl_export_link {
    NL_LINK_NONE,
    NL_LINK_UUID,              /* neff_header.uuid == NTFF uuid */
    NL_LINK_FILENAME,          /* profile_info.ntff_filename basename == NTFF file name */
    NL_LINK_UUID_AND_FILENAME,
    NL_LINK_STEM,              /* same directory and file stem, identity unknown */
} nl_export_link;

const char *nl_pairing_name(nl_pairing p);
const char *nl_export_link_name(nl_export_link l);

/* The analyses a profile may answer (the tools that take one profile), and whether it can. */
typedef enum nl_analysis {
    NL_ANALYSIS_SUMMARY,
    NL_ANALYSIS_TRACE_EXTRACT,
    NL_ANALYSIS_KERNEL_ATTRIBUTION,
    NL_ANALYSIS_COLLECTIVE_GAPS,
    NL_ANALYSIS_COUNT
} nl_analysis;

typedef enum nl_readiness {
    NL_READY,                  /* the analysis reads this profile natively */
    NL_NEEDS_EXPORT,           /* it needs an export neuron-profile makes (run here when installed) */
    NL_UNSUPPORTED,            /* it cannot: `reason` says why and `fix` what to do instead */
} nl_readiness;

typedef struct nl_profile_readiness {
    nl_readiness state;
    const char *reason;        /* NULL when ready */
    const char *fix;           /* NULL when there is nothing to do */
    bool broken;               /* unsupported because a file failed its format check: an error to report, not
                                  valid input an analysis abstains on */
} nl_profile_readiness;

/* Tool names ("summary", "trace-extract", "kernel-attribution", "collective-gaps") and states ("ready",
 * "needs_export", "unsupported"). */
const char *nl_analysis_name(nl_analysis a);
const char *nl_readiness_name(nl_readiness r);

typedef struct nl_catalog_profile {
    const char *id;            /* see the id scheme above */
    nl_profile_kind kind;
    int rank;                  /* rank index or -1 */
    int file;                  /* the profile's main file: NTFF, export, trace, summary-json, dump; -1 for a
                                  system profile (its files are the rank's) and a Parquet directory */
    int ntff;                  /* file index or -1 */
    int neff;                  /* paired NEFF (NL_PAIR_OK only) or -1 */
    int mismatched_neff;       /* the candidate NEFF when NL_PAIR_UUID_MISMATCH, else -1 */
    nl_pairing pairing;
    int json_export;           /* attached full JSON export or -1 */
    nl_export_link export_link;
    bool export_complete;      /* the attached export ends where a JSON document ends (see catalog_sniff.c) */
    int dump;                  /* device profiles: the show-session text dump that belongs to it (the largest
                                  when several do) or -1; show-session profiles: the dump itself */
    size_t dumps;              /* device profiles: text dumps that belong to it */
    bool dump_by_dir;          /* device profiles: the dumps are the unowned ones of its directory */
    int dump_json;             /* device profiles: a show-session -j dump that belongs to it, or -1 */
    size_t parquet_count;      /* NL_PROFILE_PARQUET_DIR: tables in the directory */
    bool cc_tables;            /* NL_PROFILE_PARQUET_DIR: a CcOp or CcInstruction table is among them */
    bool instruction_table;    /* NL_PROFILE_PARQUET_DIR: an Instruction table (or its parts) is among them */
    int bad_table;             /* NL_PROFILE_PARQUET_DIR: a table file whose footer failed its checks, or -1 */
    int name_rank;             /* the N of a "rank<N>" token in the main file's name, -1 when none */
    const char *dir;           /* directory of the profile's main file, relative to the root */
    nl_profile_readiness analyses[NL_ANALYSIS_COUNT];
} nl_catalog_profile;

/* ---- notes ------------------------------------------------------------------------------------------ */

typedef enum nl_note_severity { NL_NOTE_INFO, NL_NOTE_WARN } nl_note_severity;

typedef enum nl_note_code {
    NL_NOTE_SKIPPED_SPECIAL,   /* FIFO, socket or device: never opened */
    NL_NOTE_UNREADABLE,        /* stat/open/read failed */
    NL_NOTE_SYMLINK_LOOP,      /* symlink leads to a directory already entered, or ELOOP */
    NL_NOTE_DANGLING_SYMLINK,
    NL_NOTE_DUPLICATE_FILE,    /* the same file (dev/ino) reached twice via links */
    NL_NOTE_DEPTH_LIMIT,       /* a directory deeper than max_depth was not entered */
    NL_NOTE_FILE_LIMIT,        /* max_files / max_entries reached; the scan stopped early */
    NL_NOTE_BAD_HEADER,        /* named or sniffed as a known kind, but its header is invalid */
    NL_NOTE_UUID_MISMATCH,     /* NEFF↔NTFF uuid differ */
    NL_NOTE_NTFF_WITHOUT_NEFF,
    NL_NOTE_NEFF_WITHOUT_NTFF,
    NL_NOTE_EMPTY_NTFF,        /* no payload after the metadata */
    NL_NOTE_NTFF_SIZE,         /* v6 section table does not end at the file end */
    NL_NOTE_EXPORT_UNATTACHED, /* JSON export matched no NTFF */
    NL_NOTE_EXPORT_NOT_PEEKED, /* JSON export too large (or gzipped) to peek for its identity */
    NL_NOTE_INCOMPLETE_SYSTEM, /* capture directory lacks ntrace.pb or trace_info.pb */
    NL_NOTE_EXPORT_TRUNCATED,  /* JSON export does not end where a JSON document ends: cut off */
    NL_NOTE_CODE_COUNT
} nl_note_code;

/* At most this many notes of one code are kept; the rest are counted in one closing note of that code
 * ("N more ... not listed", path NULL), so a tree of 100k FIFOs cannot flood a result. */
#define NL_CATALOG_MAX_NOTES_PER_CODE 200

const char *nl_note_code_name(nl_note_code code);

typedef struct nl_catalog_note {
    nl_note_code code;
    nl_note_severity severity;
    const char *path;          /* relative path concerned, or NULL */
    const char *message;
    const char *fix;           /* what to do about it, or NULL */
} nl_catalog_note;

/* ---- API -------------------------------------------------------------------------------------------- */

typedef struct nl_catalog nl_catalog;

/* Scan `path` (file or directory). `lim` may be NULL for the defaults. */
__attribute__((warn_unused_result))
nl_catalog *nl_catalog_scan(const char *path, const nl_catalog_limits *lim, nl_error *err);

void nl_catalog_free(nl_catalog *cat);

/* The path given to nl_catalog_scan (borrowed). */
const char *nl_catalog_root(const nl_catalog *cat);

/* The directory holding a NL_PROFILE_PARQUET_DIR profile's tables, written to buf (the root when the root is
 * that directory); buf is cut to cap. */
void nl_catalog_profile_dir_path(const nl_catalog *cat, const nl_catalog_profile *p, char *buf, size_t cap);

/* True when a limit stopped the walk early (a NL_NOTE_FILE_LIMIT note says which). */
bool nl_catalog_truncated(const nl_catalog *cat);

/* Files in rel_path order. `i` must be < count; returns borrowed views. */
size_t nl_catalog_file_count(const nl_catalog *cat);
const nl_catalog_file *nl_catalog_file_at(const nl_catalog *cat, size_t i);
/* Index of the file with this rel_path, or -1. */
long nl_catalog_find_file(const nl_catalog *cat, const char *rel_path);

size_t nl_catalog_rank_count(const nl_catalog *cat);
const nl_catalog_rank *nl_catalog_rank_at(const nl_catalog *cat, size_t i);

size_t nl_catalog_profile_count(const nl_catalog *cat);
const nl_catalog_profile *nl_catalog_profile_at(const nl_catalog *cat, size_t i);
/* The profile with this id, or NULL. */
const nl_catalog_profile *nl_catalog_find_profile(const nl_catalog *cat, const char *id);
/* Index of a profile of this catalog. */
size_t nl_catalog_profile_index(const nl_catalog *cat, const nl_catalog_profile *p);

/* ---- choosing the profile a call is about ----------------------------------------------------------- */

typedef enum nl_choice_status {
    NL_CHOICE_OK,              /* `profile` is set and the analysis can read it (ready or needs_export) */
    NL_CHOICE_UNSUPPORTED,     /* `profile` is set but the analysis cannot read it (its readiness says why:
                                  an abstention, or an error when the readiness is `broken`) */
    NL_CHOICE_UNKNOWN,         /* no profile has the id asked for */
    NL_CHOICE_AMBIGUOUS,       /* no id given and several profiles could answer */
    NL_CHOICE_NONE,            /* no id given and no profile could answer */
} nl_choice_status;

#define NL_CHOICE_MESSAGE_MAX 2048
#define NL_CHOICE_LISTED 20    /* profiles named in a message; more are counted */

typedef struct nl_choice {
    nl_choice_status status;
    const nl_catalog_profile *profile; /* OK and UNSUPPORTED */
    int64_t core;                      /* the physical core an id "<profile>@core<N>" names, else -1 */
    char message[NL_CHOICE_MESSAGE_MAX]; /* every status but OK: the sentence every tool shows */
    char note[NL_CHOICE_MESSAGE_MAX];    /* OK without an id among several profiles: which others are there */
} nl_choice;

/* The profile a call of `analysis` is about. With `wanted`, the profile of that id (a summary-json id may
 * carry "#<name>", a device profile with an NTFF "@core<N>" for one physical core of a multi-core NTFF);
 * without, the only profile the analysis is ready for, else the only one it can read after
 * an export (needs_export), else — when the path holds exactly one profile — that one. `family` (nullable:
 * any) restricts the profiles to one family ("device", "system", "framework", "show_session"); `because`
 * (nullable) says why in messages (e.g. "kind system"). Messages list every profile with its kind, the same
 * way for every tool. Returns 0 when status is OK, else -1. */
int nl_catalog_choose(const nl_catalog *cat, const char *wanted, nl_analysis analysis, const char *family,
                      const char *because, nl_choice *out);

size_t nl_catalog_note_count(const nl_catalog *cat);
/* Notes of `code` the scan produced, including those beyond the per-code cap that were not kept. */
size_t nl_catalog_note_total(const nl_catalog *cat, nl_note_code code);
const nl_catalog_note *nl_catalog_note_at(const nl_catalog *cat, size_t i);

#endif
