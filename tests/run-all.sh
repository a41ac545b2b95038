#!/usr/bin/env bash
# Build neuronlens twice (release-style and ASan+UBSan) and run every meson test suite on both, then fuzz every
# reader for a bounded time (tests/fuzz/run.py).
# The client suite installs pinned MCP clients from the npm registry into .mcp-clients/ (git-ignored)
# on first use; without node/npm it is skipped with a printed reason. Exit status: non-zero on any
# failure. Used verbatim by the README's test command and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

build_and_test() {
    local dir=$1; shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@"
    fi
    ninja -C "$dir"
    meson test -C "$dir" --print-errorlogs --num-processes 2 --timeout-multiplier 3
}

build_and_test build   # includes the valgrind suite (plain builds only)
build_and_test build-asan -Db_sanitize=address,undefined -Db_lundef=false
# libFuzzer: every target of tests/fuzz for NL_FUZZ_SECONDS (default 45) in a clang build of its own
# (build-fuzz); any crash, leak or timeout fails with its reproducer. Skipped (77) without clang.
tests/fuzz/run.py || { rc=$?; [ "$rc" -eq 77 ] || exit "$rc"; }
# the release build the benchmarks use (-O3 raises warnings -O2 does not): it must compile with -Werror
[ -f build-release/build.ninja ] || meson setup build-release --buildtype=release
ninja -C build-release
echo "all suites passed (build and build-asan), fuzz targets ran clean; release build compiles"
