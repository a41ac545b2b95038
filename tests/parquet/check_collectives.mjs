// check_collectives.mjs DIR... — the CcOp table through the tools, against DuckDB on the same files.
//
// collective-gaps on each neuron-explorer profile directory against the layer rhythm
// DuckDB computes from the same CcOp files (formats.md §11.1): the lane is the stream with most operations
// (ties to the highest stream_id), an operation's time is trigger_start_ts when > 0 else start_ts, the
// operations are sorted by time, and with A = 2 collectives per layer after P = 1 prologue gap layer K spans
// times[P + A·K] → times[P + A·(K + 1)]. Every layer of every page (next_cursor followed) must match, and the
// operation counts per lane.
// trace-extract kind collective (all but the drift variant, whose times are shifted): the rows matching an
// operation glob and a minimum size, ranked by duration (descending, then start, then row), every page.
// Environment: NEURONLENS (the binary).
import path from 'node:path';
import { openDuckDB, runJson, sqlString } from './compare_lib.mjs';

const bin = process.env.NEURONLENS;
const dirs = process.argv.slice(2);
if (!bin || !dirs.length) {
    console.error('usage: NEURONLENS=... check_gaps.mjs DIR...');
    process.exit(2);
}
const A = 2, P = 1;
const db = await openDuckDB();
let failures = 0, layersChecked = 0;
for (const dir of dirs) {
    const name = path.basename(dir);
    const ops = `read_parquet(${sqlString(path.join(dir, 'CcOp*.parquet'))})`;
    const lanes = await db.rows(`SELECT stream_id::BIGINT AS lane, count(*)::BIGINT AS n FROM ${ops}
        GROUP BY stream_id ORDER BY n DESC, lane DESC`);
    const lane = Number(lanes[0].lane);
    const times = (await db.rows(`SELECT (CASE WHEN trigger_start_ts > 0 THEN trigger_start_ts ELSE start_ts END)::BIGINT AS t
        FROM ${ops} WHERE stream_id = ${lane} ORDER BY t`)).map((r) => BigInt(r.t));
    const want = [];
    for (let k = 0; P + A * (k + 1) < times.length; k++)
        want.push(Number(times[P + A * (k + 1)] - times[P + A * k]));
    const got = [];
    let out, cursor = null;
    do {
        const args = { path: dir, max_rows: 500, ...(cursor ? { cursor } : {}) };
        out = runJson(bin, ['call', 'collective-gaps', JSON.stringify(args)]);
        for (const l of out.layers) got.push(l.latency_ns);
        cursor = out.next_cursor;
    } while (cursor);
    const problems = [];
    if (out.cc_core !== lane) problems.push(`lane ${out.cc_core}, DuckDB ${lane}`);
    const counts = Object.fromEntries(out.cc_cores.listed.map((c) => [c.cc_core, c.trigger_starts]));
    for (const l of lanes)
        if (counts[Number(l.lane)] !== Number(l.n)) problems.push(`stream ${l.lane}: ${counts[Number(l.lane)]} ops, DuckDB ${l.n}`);
    if (got.length !== want.length) problems.push(`${got.length} layers, DuckDB ${want.length}`);
    for (let k = 0; k < Math.min(got.length, want.length); k++)
        if (got[k] !== want[k]) problems.push(`layer ${k}: ${got[k]} ns, DuckDB ${want[k]} ns`);
    if (problems.length) {
        failures++;
        console.error(`${name}: ${problems.slice(0, 10).join('; ')}`);
    } else {
        console.log(`${name}: stream ${lane}, ${times.length} collectives, ${got.length} layers: equal`);
        layersChecked += got.length;
    }
}

let rowsChecked = 0;
for (const dir of dirs.filter((d) => !d.includes('drift'))) {
    const name = path.basename(dir);
    // CcOp parts in the reader's order (CcOp.parquet, else CcOp_<N> by N), row numbers across them
    const files = (await db.rows(`SELECT file FROM glob(${sqlString(path.join(dir, 'CcOp*.parquet'))})`)).map((r) => r.file)
        .sort((a, b) => (Number(a.match(/_(\d+)\.parquet$/)?.[1] ?? -1) - Number(b.match(/_(\d+)\.parquet$/)?.[1] ?? -1)));
    const list = `[${files.map(sqlString).join(', ')}]`;
    const want = (await db.rows(`WITH t AS (SELECT *, row_number() OVER (ORDER BY list_position(${list}, filename),
            file_row_number) - 1 AS row FROM read_parquet(${list}, file_row_number = true, filename = true))
        SELECT row::BIGINT AS row, start_ts::BIGINT AS s, duration_ns::BIGINT AS d, operation AS op, output_size::BIGINT AS b
        FROM t WHERE operation ILIKE 'all%' AND output_size >= 4096 ORDER BY d DESC, s, row`))
        .map((r) => [Number(r.row), Number(r.s), Number(r.d), r.op, Number(r.b)]);
    const got = [];
    let out, cursor = null;
    do {
        const args = { path: dir, kind: 'collective', sort: 'duration', opcode: 'All*', min_bytes: 4096, max_rows: 200,
            columns: ['row', 'start_ns', 'duration_ns', 'operation', 'bytes'], ...(cursor ? { cursor } : {}) };
        out = runJson(bin, ['call', 'trace-extract', JSON.stringify(args)]);
        got.push(...out.rows);
        cursor = out.next_cursor;
    } while (cursor);
    const same = JSON.stringify(got) === JSON.stringify(want) && out.total === want.length;
    if (!same) {
        failures++;
        console.error(`${name}: trace-extract kind collective: ${got.length} rows (total ${out.total}), DuckDB ${want.length}; ` +
            `first differing: ${JSON.stringify(got.find((r, i) => JSON.stringify(r) !== JSON.stringify(want[i])))} vs ` +
            `${JSON.stringify(want.find((r, i) => JSON.stringify(r) !== JSON.stringify(got[i])))}`);
    } else {
        console.log(`${name}: trace-extract kind collective: ${got.length} rows: equal`);
        rowsChecked += got.length;
    }
}
db.close();
if (failures || !layersChecked || !rowsChecked) process.exit(1);
