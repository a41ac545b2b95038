// make_tiny.mjs — (re)write the two tiny DuckDB-made files of tests/data/parquet/ and the values DuckDB reads
// back from them (expected.json), for test_parquet (which needs no node at test time). Run by hand after
// changing them:  node tests/parquet/make_tiny.mjs   (DuckDB from tests/parquet/install-duckdb.sh)
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDuckDB, sqlString } from './compare_lib.mjs';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'data', 'parquet');
const rows = `SELECT k::BIGINT AS id, CASE WHEN k % 4 = 0 THEN NULL ELSE ['MATMUL', 'ACTIVATE', 'DMA_DIRECT2D'][1 + k % 3] END AS opcode,
    (k * 7 - 20)::INTEGER AS small, CASE WHEN k % 5 = 0 THEN NULL ELSE k / 8.0 END::DOUBLE AS ratio, (k / 3.0)::FLOAT AS f,
    (k % 3 = 0) AS flag, CASE WHEN k % 6 = 0 THEN NULL WHEN k % 6 = 1 THEN []::VARCHAR[]
        ELSE ['f' || k, CASE WHEN k % 2 = 0 THEN NULL ELSE 'g' END] END AS flow_id,
    'kernels/attn.py:' || (100 + k % 9) AS src FROM range(40) r(k)`;
const cases = [
    ['duckdb_v1_snappy', 'COMPRESSION snappy'],
    ['duckdb_v2_zstd', 'COMPRESSION zstd, PARQUET_VERSION V2'],
];
const db = await openDuckDB();
for (const [name, opts] of cases) {
    const dir = path.join(root, name);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'input.parquet');
    await db.run(`COPY (${rows}) TO ${sqlString(file)} (FORMAT parquet, ${opts})`);
    const cols = await db.columns(`SELECT * FROM read_parquet(${sqlString(file)})`);
    writeFileSync(path.join(dir, 'expected.json'), JSON.stringify(cols) + '\n');
    console.log(file);
}
db.close();
