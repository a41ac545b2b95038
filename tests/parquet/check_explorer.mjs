// check_explorer.mjs DIR... — the device model explorer_dump (analyzers/readers/explorer_parquet.c) builds from a
// neuron-explorer Parquet profile directory, against the same aggregates computed by DuckDB SQL over the same
// files: counts, sums of durations per engine and engine/opcode, byte sums, distinct strings, null handling
// (defaults), list joins, id sums modulo 2^64, the singleton records, the notes and the inventory.
// The expectations restate formats.md §4.5/§7 and device_model.h independently of the C code. DIR/../<name>.expect.json
// (written by make_fixtures.mjs) says which columns the generator added beyond the documented schema.
// Exit 0 when every directory matches, 1 with the differences printed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { openDuckDB, runJson, sqlString } from './compare_lib.mjs';

const dumpBin = process.env.NL_EXPLORER_DUMP;
const db = await openDuckDB();
const U64 = 18446744073709551616n;

// ---- the directory: tables and their parts, in read order ----
function listTables(dir) {
    const byTable = new Map();
    for (const f of readdirSync(dir)) {
        const m = /^([A-Za-z][A-Za-z0-9_]*?)(?:_([0-9]{1,9}))?\.parquet$/.exec(f);
        if (!m || !statSync(path.join(dir, f)).isFile()) continue;
        const list = byTable.get(m[1]) || [];
        list.push({ file: path.join(dir, f), part: m[2] === undefined ? -1 : Number(m[2]) });
        byTable.set(m[1], list);
    }
    for (const list of byTable.values()) list.sort((a, b) => a.part - b.part || (a.file < b.file ? -1 : 1));
    return new Map([...byTable.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => [k, v.map((x) => x.file)]));
}

const modelled = ['Metadata', 'NeffHeader', 'Summary', 'ThrottleSummary', 'Instruction', 'DmaPacket', 'DmaPacketAggregated', 'ActiveTime',
    'SemaphoreUpdate', 'Warning', 'Flow', 'TensorInfo', 'CcOp', 'CcInstruction', 'OpcodeSummary', 'SchemaFields',
    'SystemProfileEvents', 'KernelInstructions', 'KernelStackFrames'];

async function check(dir) {
    const tables = listTables(dir);
    const expect = JSON.parse(readFileSync(path.join(dir, '..', path.basename(dir) + '.expect.json'), 'utf8'));
    const src = (t) => `read_parquet([${tables.get(t).map(sqlString).join(', ')}], union_by_name = true)`;
    const has = (t) => tables.has(t);
    const colsOf = new Map();
    for (const t of tables.keys()) colsOf.set(t, (await db.rows(`DESCRIBE SELECT * FROM ${src(t)}`)).map((r) => r.column_name));
    const col = (t, c, dflt = 'NULL') => (colsOf.get(t)?.includes(c) ? `"${c}"` : dflt);
    const one = async (sql) => Object.values((await db.rows(sql))[0])[0];
    const num = async (sql) => { const v = await one(sql); return v === null ? null : BigInt(v); };

    // time origin: Metadata.first_hw_timestamp, unless a device time is earlier (then times are relative)
    let firstHw = 0n;
    if (has('Metadata') && colsOf.get('Metadata').includes('first_hw_timestamp'))
        firstHw = (await num(`SELECT first_hw_timestamp FROM read_parquet(${sqlString(tables.get('Metadata')[0])}, file_row_number = true) ORDER BY file_row_number LIMIT 1`)) ?? 0n;
    const timeCols = [['Instruction', 'start_ts'], ['DmaPacket', 'start_ts'], ['DmaPacketAggregated', 'start_ts'],
        ['ActiveTime', 'start_ts'], ['SemaphoreUpdate', 'timestamp'], ['CcOp', 'start_ts'], ['CcInstruction', 'start_ts']];
    let relative = false;
    for (const [t, c] of timeCols) {
        if (!has(t)) continue;
        const lo = await num(`SELECT min(coalesce(${col(t, c)}, 0)) FROM ${src(t)}`);
        if (firstHw > 0n && lo !== null && lo < firstHw) relative = true;
    }
    const shift = relative ? 0n : firstHw;
    const s64 = (v) => String(BigInt(v ?? 0));
    const mod64 = (v) => String(((BigInt(v ?? 0) % U64) + U64) % U64);

    const out = {};
    // ---- instructions ----
    if (has('Instruction')) {
        const I = src('Instruction');
        const eng = `CASE lower(${col('Instruction', 'engine')}) WHEN 'tensor' THEN 'Tensor' WHEN 'tensormatrix' THEN 'TensorMatrix'
            WHEN 'vector' THEN 'Vector' WHEN 'scalar' THEN 'Scalar' WHEN 'gpsimd' THEN 'GpSimd' WHEN 'sync' THEN 'Sync'
            ELSE coalesce(${col('Instruction', 'engine')}, '') END`;
        // source: nki, else bir, else the first hlo_attrs element with a file and a line other than '' or '0'
        const hloElems = `TRY(from_json(${col('Instruction', 'hlo_attrs')}, '[{"source_file":"VARCHAR","source_line":"VARCHAR"}]'))`;
        const hloSrc = `(SELECT e.source_file || ':' || e.source_line FROM (SELECT unnest(${hloElems}) AS e)
            WHERE coalesce(e.source_file, '') <> '' AND coalesce(e.source_line, '') NOT IN ('', '0') LIMIT 1)`;
        const srcExpr = `coalesce(nullif(${col('Instruction', 'nki_source_location')}, ''), nullif(${col('Instruction', 'bir_debug_info_source_location')}, ''), ${hloSrc})`;
        const o = {};
        o.count = Number(await one(`SELECT count(*) FROM ${I}`));
        const group = async (key, aggs) => {
            const res = {};
            for (const r of await db.rows(`SELECT ${key} AS k, ${Object.entries(aggs).map(([n, e]) => `${e} AS "${n}"`).join(', ')} FROM ${I} GROUP BY 1`))
                res[r.k] = Object.fromEntries(Object.keys(aggs).map((n) => [n, Number(r[n])]));
            return res;
        };
        o.per_engine = await group(eng, { count: 'count(*)', duration: `sum(coalesce(duration_ns, 0))`, evt_wait: `sum(coalesce(${col('Instruction', 'evt_wait_time_ns', '0')}, 0))` });
        o.per_engine_opcode = await group(`${eng} || '/' || coalesce(opcode, '')`, { count: 'count(*)', duration: 'sum(coalesce(duration_ns, 0))' });
        o.per_label = await group(`coalesce(${col('Instruction', 'timeline_track')}, '')`, { count: 'count(*)' });
        o.per_type = await group(`coalesce(${col('Instruction', 'tensor_instruction_type')}, '')`, { count: 'count(*)' });
        o.bytes = {};
        for (const b of ['hbm_read_bytes', 'hbm_write_bytes', 'sbuf_read_bytes', 'sbuf_write_bytes', 'psum_read_bytes',
            'psum_write_bytes', 'spill_save_bytes', 'spill_reload_bytes'])
            o.bytes[b] = s64(await one(`SELECT sum(coalesce(${col('Instruction', b)}, 0)) FROM ${I}`));
        o.dma_triggers = Number(await one(`SELECT count(*) FROM ${I} WHERE starts_with(coalesce(${col('Instruction', 'compiler_opcode')}, ''), 'PSEUDO_DMA_') OR starts_with(coalesce(opcode, ''), 'DMA_')`));
        o.with_source = Number(await one(`SELECT count(${srcExpr}) FROM ${I}`));
        o.with_kernel_name = Number(await one(`SELECT count(nullif(${col('Instruction', 'kernel_instruction_name')}, '')) FROM ${I}`));
        o.distinct_sources = Number(await one(`SELECT count(DISTINCT ${srcExpr}) FROM ${I}`));
        for (const [k, c] of [['distinct_layers', 'layer'], ['distinct_hlo_names', 'hlo_name'], ['distinct_operands', 'operands'],
            ['distinct_compiler_opcodes', 'compiler_opcode']])
            o[k] = Number(await one(`SELECT count(DISTINCT nullif(${col('Instruction', c)}, '')) FROM ${I}`));
        o.id_sum = mod64(await one(`SELECT sum(coalesce(id, 0)::HUGEINT) FROM ${I}`));
        o.adjusted_flops_sum = s64(await one(`SELECT sum(coalesce(${col('Instruction', 'adjusted_flops')}, 0)) FROM ${I}`));
        o.pc_sum = s64(await one(`SELECT sum(coalesce(${col('Instruction', 'pc')}, 0)) FROM ${I}`));
        o.first_timestamp = o.count ? String((await num(`SELECT min(coalesce(start_ts, 0)) FROM ${I}`)) - shift) : null;
        o.last_end = o.count ? String((await num(`SELECT max(coalesce(start_ts, 0) - ${shift} + coalesce(duration_ns, 0)) FROM ${I}`))) : null;
        out.instructions = o;
    }
    // ---- dma: packets then aggregated transfers ----
    if (has('DmaPacket') || has('DmaPacketAggregated')) {
        const parts = [];
        if (has('DmaPacket'))
            parts.push(`SELECT 0 AS agg, start_ts, duration_ns, id, ${col('DmaPacket', 'packet_aggregation_id', '0')} AS agg_id,
                transfer_bytes, queue_type, coalesce(${col('DmaPacket', 'engine_idx')}, -1) AS engine,
                coalesce(${col('DmaPacket', 'queue_idx')}, -1) AS queue_idx, ${col('DmaPacket', 'queue_name')} AS queue,
                ${col('DmaPacket', 'variable')} AS variable, NULL AS source, NULL AS dest FROM ${src('DmaPacket')}`);
        if (has('DmaPacketAggregated'))
            parts.push(`SELECT 1 AS agg, start_ts, duration_ns, id, 0 AS agg_id, transfer_bytes, queue_type, -1 AS engine,
                coalesce(${col('DmaPacketAggregated', 'queue_idx')}, -1) AS queue_idx, ${col('DmaPacketAggregated', 'queue_name')} AS queue,
                ${col('DmaPacketAggregated', 'variable')} AS variable, ${col('DmaPacketAggregated', 'source')} AS source,
                ${col('DmaPacketAggregated', 'dest')} AS dest FROM ${src('DmaPacketAggregated')}`);
        const D = `(${parts.join(' UNION ALL ')})`;
        const r = (await db.rows(`SELECT count(*) AS count, count(*) FILTER (WHERE agg = 0) AS packets, count(*) FILTER (WHERE agg = 1) AS aggregated,
            sum(coalesce(transfer_bytes, 0)) FILTER (WHERE agg = 0) AS packet_bytes, sum(coalesce(transfer_bytes, 0)) FILTER (WHERE agg = 1) AS aggregated_bytes,
            sum(coalesce(id, 0)::HUGEINT) AS id_sum, sum(coalesce(agg_id, 0)::HUGEINT) AS agg_id_sum, sum(engine) AS engine_sum,
            sum(queue_idx) AS queue_idx_sum, sum(coalesce(duration_ns, 0)) AS duration_sum,
            count(DISTINCT nullif(queue, '')) AS distinct_queues, count(DISTINCT nullif(variable, '')) AS distinct_variables,
            count(DISTINCT nullif(source, '')) AS distinct_sources, count(DISTINCT nullif(dest, '')) AS distinct_dests,
            min(coalesce(start_ts, 0)) AS first FROM ${D}`))[0];
        const perQt = {};
        for (const q of await db.rows(`SELECT coalesce(queue_type, '') AS k, count(*) AS n FROM ${D} GROUP BY 1`)) perQt[q.k] = { count: Number(q.n) };
        out.dma = {
            count: Number(r.count), packets: Number(r.packets), aggregated: Number(r.aggregated),
            packet_bytes: s64(r.packet_bytes), aggregated_bytes: s64(r.aggregated_bytes), per_queue_type: perQt,
            id_sum: mod64(r.id_sum), agg_id_sum: mod64(r.agg_id_sum), engine_sum: s64(r.engine_sum),
            queue_idx_sum: s64(r.queue_idx_sum), duration_sum: s64(r.duration_sum),
            distinct_queues: Number(r.distinct_queues), distinct_variables: Number(r.distinct_variables),
            distinct_sources: Number(r.distinct_sources), distinct_dests: Number(r.distinct_dests),
            first_timestamp: Number(r.count) ? String(BigInt(r.first) - shift) : null,
        };
    }
    // ---- the other tables: [model column, kind, SQL over the table, shifted] (device_model.h) ----
    const generic = {
        active_time: ['ActiveTime', 'start_ts', [['engine', 'str', `lower(${'"engine"'})`], ['start_ts', 'int', 'start_ts', 1],
            ['end_ts', 'int', 'end_ts', 1], ['duration_ns', 'int', 'duration_ns'], ['pcore_idx', 'int', 'pcore_idx']]],
        semaphores: ['SemaphoreUpdate', 'timestamp', [['id', 'str', 'semaphore_id'], ['value', 'int', 'value'], ['timestamp', 'int', 'timestamp', 1]]],
        warnings: ['Warning', null, [['message', 'str', 'message'], ['category', 'str', 'category']]],
        flow: ['Flow', null, [['in_id', 'uint', 'in_id'], ['out_id', 'uint', 'out_id'], ['in_table', 'str', 'in_table'],
            ['out_table', 'str', 'out_table'], ['dependency_type', 'str', 'dependency_type'], ['gap_time', 'int', 'gap_time']]],
        tensor_info: ['TensorInfo', null, [['variable_name', 'str'], ['type', 'str'], ['format', 'str'], ['shape', 'str'], ['size', 'int'],
            ['node', 'int'], ['pcore_idx', 'int'], ['load_to_sbuf_avg_size_bytes', 'int'], ['load_to_sbuf_total_size_bytes', 'int'],
            ['load_to_sbuf_dma_count', 'int'], ['load_to_sbuf_repeat_factor', 'f64']]],
        cc_op: ['CcOp', 'start_ts', [['start_ts', 'int', null, 1], ['end_ts', 'int', null, 1], ['duration_ns', 'int'], ['operation', 'str'],
            ['algorithm', 'str'], ['num_elements', 'int'], ['dtype', 'str'], ['op_id', 'int'], ['stream_id', 'int'], ['stream_index', 'int'],
            ['trigger_engine', 'str'], ['input_size', 'int'], ['output_size', 'int'], ['algorithm_bandwidth', 'f64'], ['bus_bandwidth', 'f64'],
            ['trigger_start_ts', 'int', null, 1], ['cc_trigger_start_delay', 'int'], ['replica_group_id', 'int'], ['replica_group', 'str']]],
        cc_instruction: ['CcInstruction', 'start_ts', [['start_ts', 'int', null, 1], ['end_ts', 'int', null, 1], ['duration_ns', 'int'],
            ['core_idx', 'int'], ['description', 'str'], ['trigger_engine', 'str'], ['trigger_start_ts', 'int', null, 1]]],
        opcode_summary: ['OpcodeSummary', null, [['engine', 'str', 'lower("engine")'], ['opcode', 'str'], ['instruction_count', 'int'],
            ['instruction_time_ns', 'int'], ['active_time_ns', 'int'], ['active_time_percent', 'f64']]],
        schema_fields: ['SchemaFields', null, [['table_name', 'str'], ['table_description', 'str'], ['field_name', 'str'],
            ['field_description', 'str'], ['field_example', 'str'], ['field_type', 'str'], ['field_required', 'uint', 'field_required::INTEGER'],
            ['field_format', 'str'], ['field_unit', 'str'], ['field_minimum', 'f64'], ['field_maximum', 'f64'], ['field_enum_values', 'str']]],
        system_events: ['SystemProfileEvents', 'start_ts', [['id', 'int'], ['name', 'str'], ['start_ts', 'int'], ['end_ts', 'int'],
            ['duration_ns', 'int'], ['trace_event_source', 'str'], ['instance_id', 'str'], ['process_id', 'int'], ['thread_id', 'int'],
            ['nc_idx', 'int', null, 0, -1], ['pcore_idx', 'int', null, 0, -1], ['worker_gid', 'int', null, 0, -1],
            ['flow_id', 'str', `array_to_string(list_filter("flow_id", x -> x IS NOT NULL), ',')`], ['framework_stream_id', 'str'],
            ['extra_attributes_json', 'str']]],
        kernel_instructions: ['KernelInstructions', null, [['kernel_instruction_name', 'str'], ['stack_frame_id', 'int', null, 0, -1],
            ['stack_frame_depth', 'int'], ['iteration_variables_id', 'int', null, 0, -1], ['iteration_variable_depth', 'int'],
            ['pcore_idx', 'int'], ['file_path', 'str'], ['line_number', 'int']]],
        kernel_stack_frames: ['KernelStackFrames', null, [['stack_frame_id', 'int'], ['fully_qualified_function_name', 'str'],
            ['parent_stack_frame_id', 'int', null, 0, -1], ['pcore_idx', 'int'], ['file_path', 'str'], ['line_number', 'int']]],
    };
    for (const [key, [t, minCol, cols]] of Object.entries(generic)) {
        const o = { count: 0, sums: {}, double_sums: {}, distinct: {} };
        const T = has(t) ? src(t) : null;
        const n = T ? BigInt(await one(`SELECT count(*) FROM ${T}`)) : 0n;
        o.count = Number(n);
        for (const [name, kind, expr, shifted, dflt] of cols) {
            const e = expr ?? (T && colsOf.get(t).includes(name) ? `"${name}"` : 'NULL');
            const ex = T && (expr || colsOf.get(t).includes(name)) ? e : 'NULL';
            if (kind === 'str') o.distinct[name] = T ? Number(await one(`SELECT count(DISTINCT nullif((${ex})::VARCHAR, '')) FROM ${T}`)) : 0;
            else if (kind === 'f64') o.double_sums[name] = T ? Number(await one(`SELECT coalesce(sum(coalesce(${ex}, 0)::DOUBLE), 0) FROM ${T}`)) : 0;
            else {
                let s = T ? BigInt((await one(`SELECT coalesce(sum(coalesce(${ex}, ${dflt ?? 0})::HUGEINT), 0) FROM ${T}`)) ?? 0) : 0n;
                if (shifted) s -= n * shift;
                o.sums[name] = kind === 'uint' ? mod64(s) : String(BigInt.asIntN(64, s)); // the C sums wrap at 64 bits
            }
        }
        if (minCol) {
            const shifted = cols.find((c) => c[0] === minCol)?.[3];
            const lo = T && n ? await num(`SELECT min(coalesce("${cols.find((c) => c[0] === minCol)[2] ?? minCol}", 0)) FROM ${T}`) : null;
            o.min = lo === null ? null : String(lo - (shifted ? shift : 0n));
        }
        out[key] = o;
    }
    // ---- records: every non-null column of the first row of the first part ----
    const percentOf = (summary) => {
        const keys = Object.keys(summary).filter((k) => k.endsWith('_percent') && typeof summary[k] === 'number');
        const first = keys.find((k) => !/mbu_min_read_util|avg_util_limit/.test(k) && summary[k] > 1 + 1e-9);
        return { keys, first };
    };
    const shortestFloat = (d) => { for (let p = 1; p <= 9; p++) { const x = Number(d.toPrecision(p)); if (Math.fround(x) === Math.fround(d)) return x; } return d; };
    let percent = 'none', evidence = '';
    for (const [key, t] of [['summary', 'Summary'], ['metadata', 'Metadata'], ['neff_header', 'NeffHeader']]) {
        const rec = {};
        if (has(t)) {
            const f = tables.get(t)[0];
            const types = Object.fromEntries((await db.rows(`SELECT name, type FROM parquet_schema(${sqlString(f)})`)).map((r) => [r.name, r.type]));
            const rows = await db.rows(`SELECT * EXCLUDE (file_row_number) FROM read_parquet(${sqlString(f)}, file_row_number = true) ORDER BY file_row_number LIMIT 1`);
            for (const [k, v] of Object.entries(rows[0] ?? {})) {
                if (v === null) continue;
                if (typeof v === 'number' && types[k] === 'FLOAT') rec[k] = shortestFloat(v);
                else if (typeof v === 'number' && !Number.isInteger(v)) rec[k] = v;
                else if (typeof v === 'number' || (typeof v === 'string' && types[k] && types[k].startsWith('INT'))) rec[k] = String(v);
                else rec[k] = v;
            }
            if (t === 'Summary') {
                const { keys, first } = percentOf(rec);
                if (keys.length) percent = first ? 'scaled' : 'fraction';
                if (first) { evidence = first; for (const k of keys) rec[k] = rec[k] / 100; }
            }
        }
        out[key] = rec;
    }
    // ---- notes and the inventory ----
    const notes = [], inv = [];
    const rowsOf = async (t) => Number(await one(`SELECT count(*) FROM ${src(t)}`));
    for (const t of modelled) {
        if (!has(t)) continue;
        const n = await rowsOf(t);
        notes.push(['read', '', t, n]);
        if (['Summary', 'Metadata', 'NeffHeader'].includes(t) && n > 1) notes.push(['extra_record', t, t, n - 1]);
        for (const c of expect.unknown_columns[t] || []) notes.push(['unknown_column', t, c, n]);
    }
    if (percent !== 'none') notes.push([`percent_${percent === 'scaled' ? 'scaled' : 'fraction'}`, 'Summary', evidence, percentOf(out.summary).keys.length]);
    for (const t of tables.keys()) if (!modelled.includes(t)) notes.push(['skipped', '', t, await rowsOf(t)]);
    if (relative) notes.push(['times_relative', '', 'first_hw_timestamp', 1]);
    for (const [t, files] of tables) {
        const cols = new Set();
        for (const f of files) for (const r of await db.rows(`DESCRIBE SELECT * FROM read_parquet(${sqlString(f)})`)) cols.add(r.column_name);
        inv.push({ name: t, files: files.length, rows: await rowsOf(t), modelled: modelled.includes(t), columns: cols.size,
            unknown: expect.unknown_columns[t] || [] });
    }
    // ThrottleSummary rows → Summary keys, scaled as the Summary's percents (explorer_parquet.c ep_read_throttle)
    if (has('ThrottleSummary')) {
        const f32 = (await db.rows(`SELECT typeof(throttle_active_time_percent) AS t FROM ${src('ThrottleSummary')} LIMIT 1`))[0]?.t === 'FLOAT';
        for (const r of await db.rows(`SELECT nc_idx, throttle_type, throttle_active_time_ns AS ns, throttle_active_time_percent AS pct
                                       FROM ${src('ThrottleSummary')} WHERE nc_idx IS NOT NULL AND throttle_type IS NOT NULL`)) {
            if (r.pct !== null) {
                let v = f32 ? shortestFloat(r.pct) : r.pct;
                if (percent === 'scaled' || (percent === 'none' && v > 1 + 1e-9)) v = v / 100;
                out.summary[`throttle_${r.throttle_type}_active_time_nc${r.nc_idx}_percent`] = v;
            }
            if (r.ns !== null) out.summary[`throttle_${r.throttle_type}_active_time_nc${r.nc_idx}_ns`] = String(r.ns);
        }
    }
    out.notes = notes;
    out.tables = inv;
    out.report = { schema_version: '7.4.0', percent, percent_evidence: evidence, times_relative: relative, time_origin: Number(shift) };
    return out;
}

// ---- comparison ----
function diff(c, d, where, out) {
    if (typeof d === 'number' && typeof c === 'number') {
        if (Number.isInteger(d) && Number.isInteger(c) ? c !== d : Math.abs(c - d) > 1e-9 * Math.max(1, Math.abs(d)))
            out.push(`${where}: C ${c}, DuckDB ${d}`);
        return;
    }
    if (d === null || c === null || typeof d !== 'object' || typeof c !== 'object') {
        if (c !== d) out.push(`${where}: C ${JSON.stringify(c)}, DuckDB ${JSON.stringify(d)}`);
        return;
    }
    const keys = new Set([...Object.keys(c), ...Object.keys(d)]);
    for (const k of keys) {
        if (!(k in c)) out.push(`${where}.${k}: missing in C (DuckDB ${JSON.stringify(d[k]).slice(0, 120)})`);
        else if (!(k in d)) out.push(`${where}.${k}: missing in DuckDB (C ${JSON.stringify(c[k]).slice(0, 120)})`);
        else diff(c[k], d[k], `${where}.${k}`, out);
    }
}

const sortNotes = (n) => n.map((x) => JSON.stringify(x)).sort();
let failed = 0;
for (const dir of process.argv.slice(2)) {
    if (!existsSync(dir)) { console.log(`${dir}: missing`); failed++; continue; }
    const c = runJson(dumpBin, [dir]);
    const d = await check(dir);
    c.notes = sortNotes(c.notes);
    d.notes = sortNotes(d.notes);
    const out = [];
    diff(c, d, path.basename(dir), out);
    if (out.length) {
        failed++;
        console.log(out.slice(0, 40).join('\n'));
    } else {
        console.log(`${path.basename(dir)}: ${d.instructions?.count ?? 0} instructions, ${d.dma?.count ?? 0} dma rows, ${d.tables.length} tables: equal`);
    }
}
db.close();
process.exit(failed ? 1 : 0);
