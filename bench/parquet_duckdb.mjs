// parquet_duckdb.mjs Instruction.parquet THREADS — DuckDB's side of bench/parquet_bench.sh: the GROUP BY
// engine, opcode over the columns kernel-attribution reads, printed like `nl-parquet-bench groupby` (one
// tab-separated line per group, sorted). THREADS = 1 or "all" (DuckDB's default: every core). The query's
// own time (without node's start-up) goes to stderr.
import { openDuckDB, sqlString } from '../tests/parquet/compare_lib.mjs';

const [file, threads] = process.argv.slice(2);
const db = await openDuckDB();
if (threads === '1') await db.run('SET threads = 1');
const t0 = process.hrtime.bigint();
const rows = await db.rows(`SELECT engine, opcode, count(*) AS n, coalesce(sum(duration_ns), 0) AS dur,
    coalesce(sum(evt_wait_time_ns), 0) AS wait, min(start_ts) AS first, max(start_ts) AS last,
    count(nki_source_location) AS with_source, count(layer) AS with_layer
    FROM read_parquet(${sqlString(file)}) GROUP BY ALL ORDER BY engine, opcode`);
const t1 = process.hrtime.bigint();
for (const r of rows)
    console.log([r.engine, r.opcode, r.n, r.dur, r.wait, r.first, r.last, r.with_source, r.with_layer].join('\t'));
console.error(`duckdb groupby (threads ${threads}): ${rows.length} groups, ${(Number(t1 - t0) / 1e9).toFixed(3)} s`);
db.close();
