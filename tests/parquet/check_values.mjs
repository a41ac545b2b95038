// check_values.mjs FILE... — every value of every column as parquet_dump (the C reader) prints it, against
// DuckDB reading the same file. Exit 0 when all equal, 1 with the first differences printed.
import { openDuckDB, runJson, sqlString, sameValue, show } from './compare_lib.mjs';

const dump = process.env.NL_PARQUET_DUMP;
const db = await openDuckDB();
let bad = 0;
for (const file of process.argv.slice(2)) {
    const c = runJson(dump, [file]);
    const d = await db.columns(`SELECT * FROM read_parquet(${sqlString(file)})`);
    for (const [name, cv] of Object.entries(c.values)) {
        const dv = d[name];
        if (!dv) { console.log(`${file}: ${name}: not in DuckDB's result`); bad++; continue; }
        if (cv.length !== dv.length) { console.log(`${file}: ${name}: ${cv.length} rows, DuckDB ${dv.length}`); bad++; continue; }
        for (let i = 0; i < cv.length; i++) {
            if (!sameValue(cv[i], dv[i])) {
                console.log(`${file}: ${name}[${i}]: C ${show(cv[i])}, DuckDB ${show(dv[i])}`);
                bad++;
                break;
            }
        }
    }
    const missing = Object.keys(d).filter((k) => !(k in c.values));
    if (missing.length) { console.log(`${file}: columns DuckDB has, the dump lacks: ${missing.join(', ')}`); bad++; }
}
process.exit(bad ? 1 : 0);
