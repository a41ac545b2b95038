#!/usr/bin/env bash
# run.sh — the `parquet_vs_duckdb` test (tests/parquet/meson.build): install DuckDB's node API if needed
# (install-duckdb.sh; its exit 77 "skip" passes through, so meson prints SKIP with the reason), write
# neuron-explorer-shaped Parquet profiles from a synthetic export with DuckDB (make_fixtures.mjs), then check
# the C readers against DuckDB on them: every value of every column (check_values.mjs) and the device model
# built from each profile directory (check_explorer.mjs); then the tools on those directories against the same
# tools on the export (tools_vs_export.py, using $NEURONLENS), and collective-gaps on the CcOp tables against
# DuckDB (check_collectives.mjs).
#
# Usage: run.sh NL_GEN_PROFILE PARQUET_DUMP EXPLORER_DUMP    (meson passes the built tools)
# Environment from meson: NL_BUILD_ROOT (fixtures go to $NL_BUILD_ROOT/parquet-fixtures).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
gen=${1:?usage: run.sh NL_GEN_PROFILE PARQUET_DUMP EXPLORER_DUMP}
export NL_PARQUET_DUMP=${2:?} NL_EXPLORER_DUMP=${3:?}
out=${NL_BUILD_ROOT:-$HERE/../../build}/parquet-fixtures

node=$("$HERE/install-duckdb.sh")
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"

rm -rf "$out" && mkdir -p "$out" || exit 1
# ~3,500 instructions: the 2048-row variant gets two row groups per large table
"$gen" --out "$out/gen" --cores 1 --layers 4 --instructions-per-layer 800 --quiet || exit 1
"$node" "$HERE/make_fixtures.mjs" "$out/gen/profile_nc0.json" "$out/profiles" >"$out/variants.txt" || exit 1
mapfile -t dirs <"$out/variants.txt"
echo "parquet_vs_duckdb: ${#dirs[@]} profile variants in $out/profiles"
"$node" "$HERE/check_values.mjs" "$out"/profiles/*/*.parquet || exit 1
echo "parquet_vs_duckdb: every value of $(ls "$out"/profiles/*/*.parquet | wc -l) files equals DuckDB's"
"$node" "$HERE/check_explorer.mjs" "${dirs[@]}" || exit 1
echo "parquet_vs_duckdb: the device model of every variant equals DuckDB's aggregates"
# the tools answer on each directory as on the export it was written from (all but the drift variant, whose
# made-up schema drift changes answers on purpose)
mapfile -t same < <(printf '%s\n' "${dirs[@]}" | grep -v drift)
/usr/bin/python3 "$HERE/tools_vs_export.py" "$out/gen/profile_nc0.json" "${same[@]}" || exit 1
# collective-gaps and trace-extract kind collective read the CcOp table: against DuckDB on the same files
"$node" "$HERE/check_collectives.mjs" "${dirs[@]}" || exit 1
