// profile_sql.mjs — the SQL that turns a synthetic JSON export (loaded into DuckDB as table `j`, one row whose
// columns are the export's arrays) into neuron-explorer tables in the documented schema (formats.md §7.3):
// tables(v) maps table name → SELECT, for a variant `v` of make_fixtures.mjs ({drift, shift, firstHw}); the
// tables the export has no array for are made up deterministically from its rows. Used by make_fixtures.mjs
// and bench/parquet_make.mjs. Everything it produces is synthetic.

// Device time columns of each table (shifted in the drift variant).
const deviceTimes = {
    Instruction: ['start_ts', 'end_ts'], DmaPacket: ['start_ts', 'end_ts'], DmaPacketAggregated: ['start_ts', 'end_ts'],
    ActiveTime: ['start_ts', 'end_ts'], SemaphoreUpdate: ['timestamp'], CcOp: ['start_ts', 'end_ts', 'trigger_start_ts'],
    CcInstruction: ['start_ts', 'end_ts', 'trigger_start_ts'],
};

export function tables(v) {
    const eng = v.drift ? 'lower(i.subgroup)' : 'i.subgroup';
    const id = (e) => (v.drift ? `(${e}::BIGINT - 9223372036854775807 - 1)` : `${e}::BIGINT`);
    const pct = v.drift ? 100 : 1;
    const t = {};
    t.Instruction = `SELECT i.timestamp::BIGINT AS start_ts, (i.timestamp + i.duration)::BIGINT AS end_ts,
        i.duration::BIGINT AS duration_ns, ${eng} AS engine, i.label AS timeline_track, NULL::BIGINT AS pcore_idx,
        i.opcode, i.operands, i.compiler_opcode, i.compiler_operands, ${id('i.id')} AS id, i.pc::BIGINT AS pc,
        i.compiler_pc::BIGINT AS compiler_pc, i.penguin_id, i.raw_penguin_id::BIGINT AS raw_penguin_id, i.bir_id,
        i.raw_bir_id::BIGINT AS raw_bir_id, i.bir_instruction_name,
        CASE WHEN i.opcode = 'MATMUL' THEN 'k' || (i.pc % 5) END AS kernel_instruction_name,
        i.crc_in::BIGINT AS crc_in, i.crc_out::BIGINT AS crc_out, i.evt_wait_time::BIGINT AS evt_wait_time_ns,
        i.hlo_attrs, i.hlo_name, i.raw_hlo_id::BIGINT AS raw_hlo_id, i.raw_framework_id[1]::BIGINT AS raw_framework_id,
        nullif(i.layer, '') AS layer, NULL::VARCHAR AS stack_frame_ids, i.nki_source_location,
        ${v.drift ? "CASE WHEN i.nki_source_location IS NULL AND i.layer <> '' THEN 'bir/' || replace(i.layer, '.', '/') || '.py:' || (i.pc % 97) END" : 'NULL::VARCHAR'}
            AS bir_debug_info_source_location,
        i.trigger::BIGINT AS dma_trigger_start_ts, NULL::BIGINT AS dma_trigger_end_ts, NULL::BIGINT AS dma_wait_time_ns,
        NULL::VARCHAR AS instruction_chain, i.hbm_read_bytes::BIGINT AS hbm_read_bytes,
        i.hbm_write_bytes::BIGINT AS hbm_write_bytes, i.sbuf_read_bytes::BIGINT AS sbuf_read_bytes,
        i.sbuf_write_bytes::BIGINT AS sbuf_write_bytes, i.spill_save_bytes::BIGINT AS spill_save_bytes,
        i.spill_reload_bytes::BIGINT AS spill_reload_bytes, i.psum_read_bytes::BIGINT AS psum_read_bytes,
        i.psum_write_bytes::BIGINT AS psum_write_bytes, i.psum_read_sbuf_write_bytes::BIGINT AS psum_read_sbuf_write_bytes,
        NULL::BIGINT AS input_queue_bytes, NULL::BIGINT AS output_queue_bytes, i.weight_queue_bytes::BIGINT AS weight_queue_bytes,
        NULL::VARCHAR AS performance_mode, nullif(i.instruction_type, '') AS tensor_instruction_type,
        i.elements::BIGINT AS tensor_elements,
        CASE WHEN i.opcode = 'MATMUL' THEN 2 * TRY_CAST(regexp_extract(i.operands, '(\\d+)\\*(\\d+)\\s*$', 1) AS BIGINT)
            * TRY_CAST(regexp_extract(i.operands, '(\\d+)\\*(\\d+)\\s*$', 2) AS BIGINT) END AS raw_flops,
        CASE WHEN i.opcode = 'MATMUL' THEN 2 * TRY_CAST(regexp_extract(i.operands, '(\\d+)\\*(\\d+)\\s*$', 1) AS BIGINT)
            * TRY_CAST(regexp_extract(i.operands, '(\\d+)\\*(\\d+)\\s*$', 2) AS BIGINT) END AS adjusted_flops,
        NULL::BIGINT AS tensor_elements_transpose, NULL::BIGINT AS flops_transpose, NULL::BIGINT AS adjusted_flops_transpose,
        nullif(i.activation_fn, '') AS scalar_activation_fn
        ${v.drift ? ", 'future' || (i.pc % 3) AS future_column" : ''}
        FROM (SELECT unnest(instruction) AS i FROM j) ORDER BY start_ts, id`;
    const dmaCommon = `d.timestamp::BIGINT AS start_ts, (d.timestamp + d.duration)::BIGINT AS end_ts,
        d.duration::BIGINT AS duration_ns`;
    t.DmaPacket = `SELECT ${dmaCommon}, NULL::BIGINT AS pcore_idx, ${id('d.id')} AS id, d.packet_idx::INTEGER AS packet_idx,
        ${id('d.packet_aggregation_id')} AS packet_aggregation_id, TRY_CAST(d.dma_engine AS BIGINT) AS engine_idx,
        d.read_size::BIGINT AS read_bytes, d.write_size::BIGINT AS write_bytes, d.transfer_size::BIGINT AS transfer_bytes,
        d.transfer_rate::FLOAT AS throughput, d.queue_type, nullif(d.variable, 'unknown') AS variable,
        regexp_replace(d.subgroup, '-Q[0-9]+-E[0-9]+$', '') AS queue_name, TRY_CAST(d.dma_queue AS BIGINT) AS queue_idx,
        d.crc::BIGINT AS crc
        FROM (SELECT unnest(dma) AS d FROM j) WHERE d.aggregated IS DISTINCT FROM 'yes' ORDER BY d.timestamp, d.id`;
    t.DmaPacketAggregated = `SELECT ${dmaCommon}, ${id('d.id')} AS id, NULL::BIGINT AS pcore_idx,
        d.block_id::INTEGER AS block_id, TRY_CAST(d.dma_queue AS BIGINT) AS queue_idx,
        regexp_replace(d.subgroup, '-Q[0-9]+-E[0-9]+$', '') AS queue_name, d.queue_type, d.op, d.variable,
        d.read_size::BIGINT AS read_bytes, d.write_size::BIGINT AS write_bytes, d.transfer_size::BIGINT AS transfer_bytes,
        d.transfer_rate::FLOAT AS throughput, replace(d.source::VARCHAR, '''', '') AS source,
        replace(d.dest::VARCHAR, '''', '') AS dest, d.semaphore_id, NULL::VARCHAR AS modular_flow_function,
        d.source_sb_partitions AS read_sbuf_partitions, d.source_num_sb_partitions::INTEGER AS read_num_sbuf_partitions,
        d.read_shape::VARCHAR AS read_shape, d.source_offset AS read_offset, d.source_steps AS read_steps,
        d.dest_sb_partitions AS write_sbuf_partitions, d.dest_num_sb_partitions::INTEGER AS write_num_sbuf_partitions,
        d.write_shape::VARCHAR AS write_shape, d.dest_offset AS write_offset, d.dest_steps AS write_steps,
        false AS is_transpose_mode, NULL::VARCHAR AS transpose_element_size, NULL::VARCHAR AS transpose_shape,
        NULL::VARCHAR AS transpose_from_shape, NULL::VARCHAR AS transpose_to_shape, NULL::VARCHAR AS transpose_unroll_factor,
        d.trigger::BIGINT AS trigger, NULL::BIGINT AS completion
        FROM (SELECT unnest(dma) AS d FROM j) WHERE d.aggregated = 'yes' ORDER BY d.timestamp, d.id`;
    t.ActiveTime = `SELECT a.start_ts::BIGINT AS start_ts, a.end_ts::BIGINT AS end_ts,
        ${v.drift ? 'upper(a.engine)' : 'a.engine'} AS engine, a.pcore_idx::BIGINT AS pcore_idx,
        a.duration_ns::BIGINT AS duration_ns FROM (SELECT unnest(active_time) AS a FROM j)`;
    t.SemaphoreUpdate = `SELECT s.id AS semaphore_id, s.value::BIGINT AS value, s.timestamp::BIGINT AS timestamp,
        0::BIGINT AS pcore_idx FROM (SELECT unnest(semaphore_update) AS s FROM j)`;
    t.Warning = `SELECT * FROM (VALUES ('DGE notifications are missing (synthetic)', 'Missing Data'),
        ('NEFF missing compiler metrics (synthetic)', 'Missing Data')) w(message, category)`;
    t.Summary = `SELECT ${summaryColumns.map((c) => summaryExpr(c, pct)).join(', ')} FROM (SELECT unnest(summary) AS s FROM j)`;
    const first = v.shift || v.firstHw || 0;
    t.Metadata = `SELECT '7.4.0' AS profile_schema_version, m.ntff_version::INTEGER AS ntff_version,
        m.num_physical_cores::INTEGER AS num_physical_cores, m.vnc_enabled AS vnc_enabled,
        ${first}::BIGINT AS first_hw_timestamp, (m.last_hw_timestamp + ${v.shift || 0})::BIGINT AS last_hw_timestamp,
        m.first_ts::VARCHAR AS first_ts, m.last_ts::VARCHAR AS last_ts, m.dma_ddr_bandwidth::FLOAT AS dma_ddr_bandwidth,
        16::INTEGER AS num_dma_engines_per_neuroncore, m.hbm_ddr_bandwidth::FLOAT AS hbm_ddr_bandwidth,
        m.pe_num_rows::BIGINT AS tensor_engine_num_rows, m.pe_num_cols::BIGINT AS tensor_engine_num_cols,
        m.pe_clock_freq::FLOAT AS tensor_engine_clock_freq, m.pe_clock_others::FLOAT AS vector_engine_clock_freq,
        m.ticks_per_nanosec::BIGINT AS ticks_per_nanosec, (SELECT s.instance_type FROM (SELECT unnest(summary) AS s FROM j))
            AS instance_type, (SELECT s.runtime_version FROM (SELECT unnest(summary) AS s FROM j)) AS runtime_version,
        (SELECT s.compiler_version FROM (SELECT unnest(summary) AS s FROM j)) AS compiler_version,
        (SELECT s.driver_version FROM (SELECT unnest(summary) AS s FROM j)) AS driver_version,
        (SELECT s.collectives_version FROM (SELECT unnest(summary) AS s FROM j)) AS collectives_version,
        (SELECT p.profile_name FROM (SELECT unnest(profile_info) AS p FROM j)) AS profile_name, 'synthetic' AS explorer_version,
        m.is_simulation AS is_simulation
        FROM (SELECT unnest(metadata) AS m FROM j) ${v.drift ? `UNION ALL SELECT '7.4.0'${', NULL'.repeat(23)}` : ''}`;
    t.NeffHeader = `SELECT n.network_name, n.uuid, n.hash, n.enabled_features, TRY_CAST(n.header_size AS BIGINT) AS header_size,
        TRY_CAST(n.data_size AS BIGINT) AS data_size, TRY_CAST(n.major_version AS BIGINT) AS major_version,
        TRY_CAST(n.minor_version AS BIGINT) AS minor_version, n.package_version, n.build_version,
        NULL::BIGINT AS cc_participant_count, TRY_CAST(n.number_of_neuroncores_per_lnc AS BIGINT) AS neuroncore_count,
        TRY_CAST(n.number_of_logical_neuroncores AS BIGINT) AS logical_neuroncore_count, NULL::BIGINT AS pcore_count_per_lnc
        FROM (SELECT unnest(neff_header) AS n FROM j)`;
    t.TensorInfo = `SELECT nullif(n.variable_name, '') AS variable_name, nullif(n.type, '') AS type,
        nullif(n.format, '') AS format, nullif(n.shape, '') AS shape, TRY_CAST(n.size AS BIGINT) AS size,
        TRY_CAST(n.node AS BIGINT) AS node, 0::BIGINT AS pcore_idx,
        n.load_to_sbuf_avg_size_bytes::BIGINT AS load_to_sbuf_avg_size_bytes,
        n.load_to_sbuf_total_size_bytes::BIGINT AS load_to_sbuf_total_size_bytes,
        n.load_to_sbuf_dma_count::BIGINT AS load_to_sbuf_dma_count,
        n.load_to_sbuf_repeat_factor::FLOAT AS load_to_sbuf_repeat_factor FROM (SELECT unnest(neff_node) AS n FROM j)`;
    t.Flow = `SELECT ${id('p.id')} AS in_id, ${id('i.id')} AS out_id, 'Instruction' AS in_table, 'Instruction' AS out_table,
        p.type AS dependency_type, CASE WHEN i.pc % 4 = 0 THEN NULL ELSE i.pc % 1000 END::BIGINT AS gap_time
        FROM (SELECT i, unnest(i.predecessors) AS p FROM (SELECT unnest(instruction) AS i FROM j))`;
    // Collectives: one CcOp per TPB trigger instruction of the export (synthetic, deterministic), and the
    // CC-core instructions around them.
    t.CcOp = `SELECT i.timestamp::BIGINT AS start_ts, (i.timestamp + 700 + i.pc % 50)::BIGINT AS end_ts,
        (700 + i.pc % 50)::BIGINT AS duration_ns, CASE WHEN i.pc % 2 = 0 THEN 'AllReduce' ELSE 'AllGather' END AS operation,
        'ring' AS algorithm, (1024 * (1 + i.pc % 7))::BIGINT AS num_elements, 'bf16' AS dtype, row_number() OVER ()::BIGINT AS op_id,
        (i.pc % 3)::BIGINT AS stream_id, (i.pc % 5)::BIGINT AS stream_index, i.subgroup AS trigger_engine,
        CASE WHEN i.pc % 3 = 0 THEN NULL ELSE 2048 * (1 + i.pc % 7) END::BIGINT AS input_size,
        (2048 * (1 + i.pc % 7))::BIGINT AS output_size, (1.5e9 + i.pc)::FLOAT AS algorithm_bandwidth,
        CASE WHEN i.pc % 3 = 0 THEN NULL ELSE 2.5e9 + i.pc END::FLOAT AS bus_bandwidth,
        CASE WHEN i.pc % 10 = 3 THEN NULL ELSE i.timestamp - 20 END::BIGINT AS trigger_start_ts,
        CASE WHEN i.pc % 10 = 3 THEN NULL ELSE 20 END::BIGINT AS cc_trigger_start_delay,
        NULL::BIGINT AS replica_group_id, '[0,1]' AS replica_group
        FROM (SELECT unnest(instruction) AS i FROM j) WHERE i.opcode = 'EVENT_SEMAPHORE' AND i.pc % 4 = 1`;
    t.CcInstruction = `SELECT (start_ts + 5)::BIGINT AS start_ts, (end_ts - 5)::BIGINT AS end_ts,
        (duration_ns - 10)::BIGINT AS duration_ns, (op_id % 2)::BIGINT AS core_idx, operation || ' step' AS description,
        CASE WHEN op_id % 2 = 0 THEN NULL ELSE trigger_engine END AS trigger_engine, trigger_start_ts FROM (${t.CcOp})`;
    t.OpcodeSummary = `SELECT lower(i.subgroup) AS engine, i.opcode, count(*)::BIGINT AS instruction_count,
        sum(i.duration)::BIGINT AS instruction_time_ns, sum(i.duration)::BIGINT AS active_time_ns,
        (sum(i.duration) * ${pct} / 168466.0)::FLOAT AS active_time_percent
        FROM (SELECT unnest(instruction) AS i FROM j) GROUP BY ALL ORDER BY ALL`;
    t.SchemaFields = `SELECT 'Instruction' AS table_name, 'Instructions executed' AS table_description, c AS field_name,
        'synthetic description of ' || c AS field_description, NULL::VARCHAR AS field_example,
        CASE WHEN c LIKE '%_ts' OR c LIKE '%_ns' THEN 'integer' ELSE 'string' END AS field_type,
        (c IN ('start_ts', 'opcode')) AS field_required, NULL::VARCHAR AS field_format,
        CASE WHEN c LIKE '%_ns' OR c LIKE '%_ts' THEN 'ns' END AS field_unit,
        CASE WHEN c LIKE '%_ns' THEN 0 END::FLOAT AS field_minimum, NULL::FLOAT AS field_maximum,
        NULL::VARCHAR AS field_enum_values
        FROM (VALUES ('start_ts'), ('end_ts'), ('duration_ns'), ('engine'), ('opcode'), ('evt_wait_time_ns')) v(c)`;
    t.SystemProfileEvents = `SELECT k::BIGINT AS id, CASE k % 3 WHEN 0 THEN 'nrt_execute' WHEN 1 THEN 'nc_exec_running' ELSE 'kbl_exec_pre' END AS name,
        (1767225600000000000 + k * 1000)::BIGINT AS start_ts, (1767225600000000000 + k * 1000 + 500 + k % 17)::BIGINT AS end_ts,
        (500 + k % 17)::BIGINT AS duration_ns, CASE WHEN k % 2 = 0 THEN 'neuron_rt' ELSE 'neuron_hw' END AS trace_event_source,
        'i-0synthetic' AS instance_id, 4242::BIGINT AS process_id, (4242 + k % 4)::BIGINT AS thread_id,
        CASE WHEN k % 5 = 0 THEN NULL ELSE k % 2 END::BIGINT AS nc_idx, NULL::BIGINT AS pcore_idx,
        CASE WHEN k % 5 = 0 THEN NULL ELSE k % 2 END::BIGINT AS worker_gid,
        CASE WHEN k % 7 = 0 THEN NULL WHEN k % 7 = 1 THEN []::VARCHAR[]
             WHEN k % 7 = 2 THEN ['f' || k, NULL] ELSE ['f' || k, 'g' || (k % 11)] END AS flow_id,
        CASE WHEN k % 3 = 0 THEN 'stream0' END AS framework_stream_id, '{"k":' || k || '}' AS extra_attributes_json
        FROM range(300) r(k)`;
    t.KernelInstructions = `SELECT 'k' || k AS kernel_instruction_name, CASE WHEN k = 4 THEN NULL ELSE k END::BIGINT AS stack_frame_id,
        (k % 3)::BIGINT AS stack_frame_depth, NULL::BIGINT AS iteration_variables_id, 0::BIGINT AS iteration_variable_depth,
        0::BIGINT AS pcore_idx, 'kernels/attn.py' AS file_path, (100 + k)::BIGINT AS line_number FROM range(5) r(k)`;
    t.KernelStackFrames = `SELECT k::BIGINT AS stack_frame_id, 'kernels.attn.f' || k AS fully_qualified_function_name,
        CASE WHEN k = 0 THEN NULL ELSE k - 1 END::BIGINT AS parent_stack_frame_id, 0::BIGINT AS pcore_idx,
        'kernels/attn.py' AS file_path, (10 * k)::BIGINT AS line_number FROM range(4) r(k)`;
    t.ThrottleSummary = throttleSummary(pct);
    if (v.drift) t.FutureTable = `SELECT k::BIGINT AS a, 'x' || k AS b FROM range(10) r(k)`;
    if (v.shift) {
        for (const [name, cols] of Object.entries(deviceTimes)) {
            const shifted = cols.map((c) => `${c} + ${v.shift} AS ${c}`).join(', ');
            t[name] = `SELECT * REPLACE (${shifted}) FROM (${t[name]})`;
        }
    }
    return t;
}

// The Summary's columns: the export's summary keys minus strings, nc_idx, nd_idx and throttle keys
// (formats.md §7.3); the throttle keys throttle_<t>_active_time_nc<N>_percent become ThrottleSummary rows.
// Call once after loading the export into table j.
let summaryColumns = [];
let throttleKeys = [];
let numericKeys = [];
export async function loadSummaryColumns(db) {
    const all = (await db.rows(`DESCRIBE (SELECT unnest(summary, recursive := true) FROM j)`))
        .filter((r) => r.column_type !== 'VARCHAR' && !['nc_idx', 'nd_idx'].includes(r.column_name));
    numericKeys = all.map((r) => r.column_name);
    summaryColumns = numericKeys.filter((c) => !c.startsWith('throttle'));
    throttleKeys = all.map((r) => r.column_name.match(/^throttle_(.+)_active_time_nc(\d+)_percent$/))
        .filter((m) => m).map((m) => ({ key: m[0], type: m[1], nc: Number(m[2]) }));
}
// One row per (core, throttle type) of the export's summary; no per-type time is in the export (null).
function throttleSummary(pct) {
    const limit = (k) => numericKeys.includes(k) ? k : null;
    const rows = throttleKeys.map(({ key, type, nc }) => {
        const lim = `throttle_${type}_avg_util_limit_nc${nc}_percent`;
        return `SELECT ${nc}::BIGINT AS nc_idx, '${type}' AS throttle_type, NULL::BIGINT AS throttle_active_time_ns,
            (s.${key} * ${pct})::FLOAT AS throttle_active_time_percent,
            ${limit(lim) ? `(s.${lim} * ${pct})::FLOAT` : 'NULL::FLOAT'} AS max_achievable_util_with_throttling_percent
            FROM (SELECT unnest(summary) AS s FROM j)`;
    });
    return rows.length ? rows.join(' UNION ALL ') : `SELECT NULL::BIGINT AS nc_idx, NULL AS throttle_type,
        NULL::BIGINT AS throttle_active_time_ns, NULL::FLOAT AS throttle_active_time_percent,
        NULL::FLOAT AS max_achievable_util_with_throttling_percent WHERE false`;
}
function summaryExpr(c, pct) {
    if (c.endsWith('_percent')) return `(s.${c} * ${pct})::FLOAT AS ${c}`;
    if (c.endsWith('_time')) return `s.${c}::FLOAT AS ${c}`;
    if (['mm_arithmetic_intensity', 'peak_flops_bandwidth_ratio', 'dma_transfer_average_bytes'].includes(c)) return `s.${c}::FLOAT AS ${c}`;
    return `s.${c}::BIGINT AS ${c}`;
}

