// make_fixtures.mjs EXPORT.json OUTDIR — neuron-explorer-shaped Parquet profiles written by DuckDB from one
// synthetic JSON export of bench/nl-gen-profile (formats.md §7.3 column names and types), in several variants
// of writer settings, so the C readers meet what a real Parquet writer produces:
//
//   v1_snappy               PARQUET_VERSION V1, snappy, dictionaries (DuckDB's defaults)
//   v2_zstd                 V2 data pages: DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT
//   v1_plain_uncompressed   no dictionaries (DICTIONARY_SIZE_LIMIT 1), uncompressed pages
//   v1_gzip_small_groups    gzip, 2048-row row groups
//   v2_lz4_split            LZ4_RAW; Instruction split into Instruction_0.._2, DmaPacket into _0.._1
//   v2_brotli_drift         brotli; Summary percents ×100 (0..100), lowercase engines, negative (≥ 2^63) ids,
//                           device times shifted by first_hw_timestamp = 1000000, an unknown Instruction column,
//                           an unknown table, Metadata with two rows, bir_debug_info_source_location made up where
//                           nki_source_location is absent (elsewhere the source falls back to hlo_attrs, as in the
//                           export, so the tools answer on these directories as on the export: tools_vs_export.py)
//   v1_zstd_relative        first_hw_timestamp = 1000000 with times already relative to it
//
// Every variant also carries the tables the export has no array for, made up deterministically from its rows:
// Flow (from `predecessors`), CcOp, CcInstruction, OpcodeSummary, SchemaFields, SystemProfileEvents (with a
// LIST<VARCHAR> flow_id holding null lists, empty lists and null elements), KernelInstructions,
// KernelStackFrames, Warning. Everything in the files is synthetic. Prints the variant directories.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDuckDB, sqlString } from './compare_lib.mjs';
import { loadSummaryColumns, tables } from './profile_sql.mjs';

const [exportPath, outDir] = process.argv.slice(2);
if (!exportPath || !outDir) {
    console.error('usage: make_fixtures.mjs EXPORT.json OUTDIR');
    process.exit(2);
}

const variants = [
    { name: 'v1_snappy', opts: 'COMPRESSION snappy' },
    { name: 'v2_zstd', opts: 'COMPRESSION zstd, PARQUET_VERSION V2' },
    { name: 'v1_plain_uncompressed', opts: 'COMPRESSION uncompressed, DICTIONARY_SIZE_LIMIT 1' },
    { name: 'v1_gzip_small_groups', opts: 'COMPRESSION gzip, ROW_GROUP_SIZE 2048' },
    { name: 'v2_lz4_split', opts: 'COMPRESSION lz4_raw, PARQUET_VERSION V2', split: { Instruction: 3, DmaPacket: 2 } },
    { name: 'v2_brotli_drift', opts: 'COMPRESSION brotli, PARQUET_VERSION V2', drift: true, shift: 1000000 },
    { name: 'v1_zstd_relative', opts: 'COMPRESSION zstd', firstHw: 1000000 },
];

const db = await openDuckDB();
await db.run(`CREATE TABLE j AS SELECT json.* FROM read_json(${sqlString(exportPath)}, maximum_object_size=2000000000, records=false)`);
await loadSummaryColumns(db);

rmSync(outDir, { recursive: true, force: true });
for (const v of variants) {
    const dir = path.join(outDir, v.name);
    mkdirSync(dir, { recursive: true });
    for (const [name, sql] of Object.entries(tables(v))) {
        const parts = v.split?.[name];
        if (!parts) {
            await db.run(`COPY (${sql}) TO ${sqlString(path.join(dir, name + '.parquet'))} (FORMAT parquet, ${v.opts})`);
            continue;
        }
        await db.run(`CREATE OR REPLACE TEMP TABLE part_src AS SELECT *, row_number() OVER () - 1 AS part_row FROM (${sql})`);
        const n = Number((await db.rows('SELECT count(*) AS n FROM part_src'))[0].n);
        for (let p = 0; p < parts; p++) {
            const lo = Math.floor((n * p) / parts), hi = Math.floor((n * (p + 1)) / parts);
            await db.run(`COPY (SELECT * EXCLUDE (part_row) FROM part_src WHERE part_row >= ${lo} AND part_row < ${hi} ORDER BY part_row)
                TO ${sqlString(path.join(dir, `${name}_${p}.parquet`))} (FORMAT parquet, ${v.opts})`);
        }
    }
    // What only the generator knows: the columns it added beyond the documented schema.
    writeFileSync(path.join(outDir, v.name + '.expect.json'),
        JSON.stringify({ unknown_columns: v.drift ? { Instruction: ['future_column'] } : {} }) + '\n');
    console.log(dir);
}
db.close();
