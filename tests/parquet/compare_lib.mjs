// compare_lib.mjs — shared by the Parquet checks: open DuckDB from the install folder, run the C dump tools,
// and compare values exactly (int64 as decimal strings, doubles bit-for-bit through JSON numbers).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);

export async function openDuckDB() {
    const dir = process.env.NL_DUCKDB_DIR || path.join(here, '.duckdb');
    const require = createRequire(path.join(dir, 'package.json'));
    const { DuckDBInstance } = require('@duckdb/node-api');
    const inst = await DuckDBInstance.create(':memory:');
    const con = await inst.connect();
    return {
        run: (sql) => con.run(sql),
        rows: async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson(),
        columns: async (sql) => (await con.runAndReadAll(sql)).getColumnsObjectJson(),
        close: () => { con.closeSync?.(); inst.closeSync?.(); },
    };
}

export function runJson(bin, args) {
    try {
        const out = execFileSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
        return JSON.parse(out);
    } catch (e) {
        throw new Error(`${path.basename(bin)} ${args.join(' ')} failed (status ${e.status}): ${e.stderr || e.message}`);
    }
}

export function sqlString(s) {
    return `'${String(s).replaceAll("'", "''")}'`;
}

// Exact equality of a C value and a DuckDB JSON value (both already JSON-parsed).
export function sameValue(c, d) {
    if (c === null || d === null) return c === d;
    if (Array.isArray(c) || Array.isArray(d)) {
        if (!Array.isArray(c) || !Array.isArray(d) || c.length !== d.length) return false;
        return c.every((x, i) => sameValue(x, d[i]));
    }
    if (typeof d === 'number' && typeof c === 'string') return Number.isSafeInteger(d) && c === String(d); // INTEGER
    if (typeof d === 'number') return typeof c === 'number' && (c === d || (Number.isNaN(c) && Number.isNaN(d)));
    if (typeof d === 'string' && typeof c === 'number') return false;
    if (typeof d === 'boolean') return c === d;
    return String(c) === String(d);
}

export function show(v) {
    const s = JSON.stringify(v);
    return s && s.length > 200 ? s.slice(0, 200) + '…' : s;
}
