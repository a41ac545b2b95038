/* explorer_parquet — a neuron-explorer profile directory (one `<Table>.parquet`, or `<Table>_<N>.parquet`
 * parts, per table; formats.md §7) into the device_model the JSON export reader fills (§4.5).
 *
 * Owns: nothing after it returns; the caller owns the new device_model and the inventory (a list of the
 * tables found, their files, row counts and the columns neuronlens does not read, for `orient`).
 * Reads by column NAME with column projection (only the columns it maps are decoded) and one row group at
 * a time: memory is the model plus one row group of those columns. Tables it does not model, and columns
 * it does not know, are kept in the inventory and noted in the model (DEVICE_MODEL_NOTE_ARRAY_SKIPPED /
 * UNKNOWN_KEY with the table's name as scope); tables it reads are noted as ARRAY_READ with their rows.
 * Threads: any thread; one call per model. The cancel flag may be set from another thread.
 * Errors: -1 and an nl_error from parquet.h (file, byte offset, field = column, record = row group), or
 * from the mapping: NL_ERR_FORMAT with field "<Table>.<column>" and record = the row within the table
 * (e.g. a negative byte count, a string where a number belongs); NL_ERR_NOT_FOUND when the directory holds
 * no Parquet table; NL_ERR_IO, NL_ERR_NOMEM, NL_ERR_LIMIT, NL_ERR_CANCELLED. No model on failure. */
#ifndef NL_EXPLORER_PARQUET_H
#define NL_EXPLORER_PARQUET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "nl_error.h"

/* Caps: directory entries examined, parts of one table, bytes of a table name. */
#define EXPLORER_PARQUET_ENTRIES_MAX 100000u
#define EXPLORER_PARQUET_PARTS_MAX 65536u
#define EXPLORER_PARQUET_NAME_MAX 128u
/* Rows converted per batch when appending to the model. */
#define EXPLORER_PARQUET_BATCH 2048u

typedef struct explorer_parquet_options {
    const atomic_int *cancel; /* nullable; polled between row groups and columns */
    size_t memory_limit;      /* cap on the model's memory, 0 = none (exceeding it → NL_ERR_NOMEM) */
} explorer_parquet_options;

/* How the Summary's `*_percent` columns were read (formats.md §0.2: detect by range). */
typedef enum explorer_parquet_percent {
    EXPLORER_PARQUET_PERCENT_NONE,     /* no Summary, or no percent column in it */
    EXPLORER_PARQUET_PERCENT_FRACTION, /* every value <= 1: fractions, kept */
    EXPLORER_PARQUET_PERCENT_SCALED,   /* some value > 1: read as 0..100 and divided by 100 */
} explorer_parquet_percent;

/* One table of the directory. */
typedef struct explorer_parquet_table {
    const char *name;         /* "Instruction" */
    size_t files;             /* parts, read in order: <Table>.parquet, then <Table>_<N> by increasing N */
    const char *const *paths; /* [files] full paths */
    uint64_t rows;            /* all parts, from their footers */
    uint64_t bytes;           /* all parts' file sizes */
    bool modelled;            /* read into the device model */
    size_t columns;           /* top-level columns (union over the parts) */
    size_t unknown_count;     /* of those, columns a modelled table has that neuronlens does not read */
    const char *const *unknown; /* [unknown_count] their names */
} explorer_parquet_table;

typedef struct explorer_parquet_inventory explorer_parquet_inventory;

/* Whether `dir` holds at least one file named like a known table (`Instruction.parquet`,
 * `Metadata_0.parquet`, ...). Reads the directory only, no file. */
bool explorer_parquet_is_profile_dir(const char *dir);

/* The tables of `dir` from their file names and footers (no column data except Metadata's schema version).
 * 0 and *out (free with explorer_parquet_inventory_free), or -1 with err. */
int explorer_parquet_inventory_read(const char *dir, const explorer_parquet_options *opt,
                                    explorer_parquet_inventory **out, nl_error *err) __attribute__((warn_unused_result));
void explorer_parquet_inventory_free(explorer_parquet_inventory *inv);

/* Read the profile in `dir`. 0 and *out = a finished model, or -1 with err set. `inventory` (nullable)
 * receives the tables found, with the unknown columns of every part read. */
int explorer_parquet_read(const char *dir, const explorer_parquet_options *opt, device_model **out,
                          explorer_parquet_inventory **inventory, nl_error *err) __attribute__((warn_unused_result));

/* ---- inventory ---- */

size_t explorer_parquet_table_count(const explorer_parquet_inventory *inv);
/* Tables in name order; borrowed from inv. */
const explorer_parquet_table *explorer_parquet_table_at(const explorer_parquet_inventory *inv, size_t i);
/* The table called `name`, or NULL. */
const explorer_parquet_table *explorer_parquet_table_find(const explorer_parquet_inventory *inv, const char *name);
/* Metadata.profile_schema_version ("" when absent), borrowed. */
const char *explorer_parquet_schema_version(const explorer_parquet_inventory *inv);
/* After explorer_parquet_read: how the Summary's percent columns were read, and the first column above 1
 * ("" unless SCALED). */
explorer_parquet_percent explorer_parquet_summary_percent(const explorer_parquet_inventory *inv,
                                                          const char **evidence);
/* After explorer_parquet_read: true when device times were already relative to first_hw_timestamp. */
bool explorer_parquet_times_relative(const explorer_parquet_inventory *inv);

#endif
