// parquet_make.mjs EXPORT.json OUTDIR REPLICAS CODEC — a large neuron-explorer-shaped profile for
// bench/parquet_bench.sh: the export's instructions in the documented Instruction schema
// (tests/parquet/profile_sql.mjs), repeated REPLICAS times back to back in time (start_ts shifted by the
// export's span per replica, ids made distinct), sorted by start_ts, written by DuckDB with CODEC
// (zstd, snappy, ...) and its default 122,880-row row groups; plus Metadata.parquet. Synthetic throughout.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { openDuckDB, sqlString } from '../tests/parquet/compare_lib.mjs';
import { loadSummaryColumns, tables } from '../tests/parquet/profile_sql.mjs';

const [exportPath, outDir, replicas, codec] = process.argv.slice(2);
if (!exportPath || !outDir || !replicas || !codec) {
    console.error('usage: parquet_make.mjs EXPORT.json OUTDIR REPLICAS CODEC');
    process.exit(2);
}
const db = await openDuckDB();
await db.run(`CREATE TABLE j AS SELECT json.* FROM read_json(${sqlString(exportPath)}, maximum_object_size=4000000000, records=false)`);
await loadSummaryColumns(db);
const t = tables({});
await db.run(`CREATE TABLE base AS ${t.Instruction}`);

const span = (await db.rows('SELECT max(end_ts) - min(start_ts) + 1000 AS s FROM base'))[0].s;
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
await db.run(`COPY (SELECT * EXCLUDE (r) REPLACE (start_ts + r * ${span} AS start_ts, end_ts + r * ${span} AS end_ts,
        xor(id, r::BIGINT << 44) AS id, pc + r * 1000000 AS pc)
    FROM range(${Number(replicas)}) t(r), base ORDER BY start_ts, id)
    TO ${sqlString(path.join(outDir, 'Instruction.parquet'))} (FORMAT parquet, COMPRESSION ${codec})`);
await db.run(`COPY (${t.Metadata}) TO ${sqlString(path.join(outDir, 'Metadata.parquet'))} (FORMAT parquet, COMPRESSION ${codec})`);
const n = (await db.rows(`SELECT count(*) AS n FROM read_parquet(${sqlString(path.join(outDir, 'Instruction.parquet'))})`))[0].n;
console.log(`${outDir}: ${n} instructions`);
db.close();
