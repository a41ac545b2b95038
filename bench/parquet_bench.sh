#!/usr/bin/env bash
# parquet_bench.sh [BUILD_DIR] [REPLICAS] — the Parquet reader against DuckDB (a benchmark, not a test).
#
#   meson setup build-release --buildtype=release && ninja -C build-release
#   bench/parquet_bench.sh build-release 100
#
# 1. nl-gen-profile writes one synthetic core (8 layers × 12,500 instructions ≈ 100k instructions);
# 2. bench/parquet_make.mjs turns it into a neuron-explorer Instruction table repeated REPLICAS times
#    (default 100 → ~10M rows), written by DuckDB with zstd and with snappy (bench/out/parquet/);
# 3. per codec, 3 runs each under /usr/bin/time -v (median wall time, largest max RSS):
#    nl-parquet-bench groupby (our reader, one thread) vs DuckDB's GROUP BY (bench/parquet_duckdb.mjs) with
#    SET threads=1 and with every core — the two outputs must be identical —, then nl-parquet-bench load
#    (the whole profile into the device model, one thread);
# 4. prints a Markdown table (also written to bench/out/parquet/results.md).
# DuckDB runs inside node: its RSS includes node's (~45 MB, measured by a `SELECT 1` run, reported too).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-release}
replicas=${2:-100}
out=bench/out/parquet
mkdir -p "$out"
node=$(tests/parquet/install-duckdb.sh)
bench=$build/bench/nl-parquet-bench
[ -x "$bench" ] || { echo "parquet_bench: build $bench first" >&2; exit 1; }

if [ ! -f "$out/gen/profile_nc0.json" ]; then
    "$build/bench/nl-gen-profile" --out "$out/gen" --cores 1 --layers 8 --instructions-per-layer 12500 --quiet
fi
for codec in zstd snappy; do
    [ -f "$out/p_${codec}_${replicas}/Instruction.parquet" ] ||
        "$node" bench/parquet_make.mjs "$out/gen/profile_nc0.json" "$out/p_${codec}_${replicas}" "$replicas" "$codec"
done

# run LABEL CMD... → "wall_s cpu_s rss_kb": the run of median wall time of 3 (its user + system CPU), and the
# largest max RSS of the 3. The machine may be shared: CPU time is the steadier number.
run() {
    local label=$1; shift
    local lines=() rss=0
    for i in 1 2 3; do
        /usr/bin/time -v "$@" >"$out/$label.out" 2>"$out/$label.err"
        local wall user sys r
        wall=$(grep 'Elapsed (wall clock)' "$out/$label.err" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
        user=$(grep 'User time' "$out/$label.err" | awk '{print $NF}')
        sys=$(grep 'System time' "$out/$label.err" | awk '{print $NF}')
        r=$(grep 'Maximum resident' "$out/$label.err" | awk '{print $NF}')
        [ "$r" -gt "$rss" ] && rss=$r
        lines+=("$wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
    done
    printf '%s %s\n' "$(printf '%s\n' "${lines[@]}" | sort -n | sed -n 2p)" "$rss"
}

# The Instruction columns explorer_parquet.c maps (its field table), for the decode-only run.
instr_cols="start_ts duration_ns evt_wait_time_ns id engine timeline_track opcode compiler_opcode layer hlo_name
nki_source_location bir_debug_info_source_location tensor_instruction_type hbm_read_bytes hbm_write_bytes
sbuf_read_bytes sbuf_write_bytes psum_read_bytes psum_write_bytes spill_save_bytes spill_reload_bytes operands
adjusted_flops pc kernel_instruction_name"

{
echo "| input | run | wall (median of 3) | CPU user+sys | peak RSS |"
echo "|---|---|---|---|---|"
read -r w c r < <(run node_baseline "$node" -e "const {createRequire}=require('module');const r=createRequire('$PWD/tests/parquet/.duckdb/package.json');r('@duckdb/node-api').DuckDBInstance.create(':memory:').then(i=>i.connect()).then(c=>c.runAndReadAll('SELECT 1'))")
echo "| — | node + DuckDB, \`SELECT 1\` (the baseline in DuckDB's rows) | ${w} s | ${c} s | $((r / 1024)) MB |"
for codec in zstd snappy; do
    dir="$out/p_${codec}_${replicas}"
    file="$dir/Instruction.parquet"
    rows=$("$bench" load "$dir" 2>/dev/null | cut -f1)
    size=$(du -m "$file" | cut -f1)
    in="${rows} rows, ${codec}, ${size} MB"
    read -r w c r < <(run ours "$bench" groupby "$file")
    echo "| $in | nl-parquet-bench groupby (1 thread) | ${w} s | ${c} s | $((r / 1024)) MB |"
    read -r w c r < <(run duck1 "$node" bench/parquet_duckdb.mjs "$file" 1)
    echo "| $in | DuckDB GROUP BY, threads=1 (query alone $(grep -o '[0-9.]* s$' "$out/duck1.err" | tail -1)) | ${w} s | ${c} s | $((r / 1024)) MB |"
    cmp -s "$out/ours.out" "$out/duck1.out" || { echo "parquet_bench: results differ from DuckDB's ($out/ours.out, $out/duck1.out)" >&2; exit 1; }
    read -r w c r < <(run duckN "$node" bench/parquet_duckdb.mjs "$file" all)
    echo "| $in | DuckDB GROUP BY, all $(nproc) threads (query alone $(grep -o '[0-9.]* s$' "$out/duckN.err" | tail -1)) | ${w} s | ${c} s | $((r / 1024)) MB |"
    cmp -s "$out/ours.out" "$out/duckN.out" || { echo "parquet_bench: results differ from DuckDB's" >&2; exit 1; }
    # shellcheck disable=SC2086
    read -r w c r < <(run decode "$bench" decode "$file" $instr_cols)
    echo "| $in | nl-parquet-bench decode: the 25 columns the model reads, nothing else | ${w} s | ${c} s | $((r / 1024)) MB |"
    read -r w c r < <(run load "$bench" load "$dir")
    echo "| $in | nl-parquet-bench load → device model (1 thread; $(grep -o '[0-9.]* B per instruction' "$out/load.err")) | ${w} s | ${c} s | $((r / 1024)) MB |"
done
} | tee "$out/results.md"
