#!/usr/bin/env bash
# Compile a gcc release build and a clang build (-Werror both; unit suite under clang), build neuronlens
# plain and with ASan+UBSan and run every meson test suite on both, then fuzz every reader for a bounded
# time (tests/fuzz/run.py).
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

# Compile-only checks first, so a warning fails in minutes: the release build the benchmarks use (gcc -O3
# raises maybe-uninitialized warnings -O0 does not) and a clang build (its own warnings), both -Werror;
# the clang build also runs the unit suite.
[ -f build-release/build.ninja ] || meson setup build-release --buildtype=release
ninja -C build-release
if command -v clang >/dev/null; then
    [ -f build-clang/build.ninja ] || CC=clang meson setup build-clang
    ninja -C build-clang
    meson test -C build-clang --print-errorlogs --num-processes 2 --suite unit
else
    echo "clang build skipped: clang is not installed (apt-get install clang)"
fi
build_and_test build   # includes the valgrind suite (plain builds only)
build_and_test build-asan -Db_sanitize=address,undefined -Db_lundef=false
# libFuzzer: every target of tests/fuzz for NL_FUZZ_SECONDS (default 45) in a clang build of its own
# (build-fuzz); any crash, leak or timeout fails with its reproducer. Skipped (77) without clang.
tests/fuzz/run.py || { rc=$?; [ "$rc" -eq 77 ] || exit "$rc"; }
echo "all suites passed (build, build-asan, unit under clang), fuzz targets ran clean; release build compiles"
