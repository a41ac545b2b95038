#!/usr/bin/env bash
# install-duckdb.sh — install the pinned DuckDB node API (package.json + package-lock.json next to this
# script) into the git-ignored folder tests/parquet/.duckdb/, for the Parquet tests and bench/parquet_bench.sh.
# Safe to run by hand; every Parquet test that needs DuckDB runs it first (through run.sh).
#
#   tests/parquet/install-duckdb.sh        # install if needed; prints the node binary to use
#
# Idempotent: a stamp (sha256 of package.json + package-lock.json + machine arch) records what is installed;
# when it matches, nothing touches the network. Otherwise `npm ci --ignore-scripts` runs in .duckdb/ (the
# bindings come as a prebuilt per-platform package; ~70 MB, ~6 s).
#
# On success the only line on stdout is the path of the node binary. Exit status: 0 ready; 77 skipped (node
# or npm missing, registry unreachable, no prebuilt binding for this platform) with the reason on stderr;
# 1 install failed. Environment: NL_DUCKDB_DIR (install folder; default tests/parquet/.duckdb),
# NL_NPM_TIMEOUT (seconds for npm ci, default 240).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEST=${NL_DUCKDB_DIR:-$HERE/.duckdb}
NPM_TIMEOUT=${NL_NPM_TIMEOUT:-240}

log() { echo "install-duckdb: $*" >&2; }
skip() { log "SKIP: $*"; exit 77; }
fail() { log "FAILED: $*"; exit 1; }

node=$(command -v node 2>/dev/null) || skip "node is not installed (Debian: apt-get install -y nodejs npm)"
stamp() { { cat "$HERE/package.json" "$HERE/package-lock.json"; uname -m; } | sha256sum | cut -d' ' -f1; }
want=$(stamp) || fail "cannot hash $HERE/package-lock.json"

ready() {
    "$node" -e "require('$DEST/node_modules/@duckdb/node-api')" 2>"$DEST/probe.log" ||
        skip "the DuckDB node API does not load here ($(head -n1 "$DEST/probe.log"))"
    echo "$node"
    exit 0
}

[ -f "$DEST/.stamp" ] && [ "$(cat "$DEST/.stamp")" = "$want" ] && [ -d "$DEST/node_modules/@duckdb/node-api" ] && ready

command -v npm >/dev/null 2>&1 || skip "npm is not installed (Debian: apt-get install -y nodejs npm)"
mkdir -p "$DEST" || fail "cannot create $DEST"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$DEST/.lock"
    flock -w "$((NPM_TIMEOUT + 30))" 9 || fail "timed out waiting for another install ($DEST/.lock)"
    [ -f "$DEST/.stamp" ] && [ "$(cat "$DEST/.stamp")" = "$want" ] && [ -d "$DEST/node_modules/@duckdb/node-api" ] && ready
fi
registry=$(npm config get registry 2>/dev/null || echo "the npm registry")
if ! timeout 30 npm ping --fetch-retries=0 --fetch-timeout=20000 >/dev/null 2>"$DEST/npm-ping.log"; then
    skip "npm registry $registry is unreachable: $(grep -m1 -i error "$DEST/npm-ping.log" || tail -n1 "$DEST/npm-ping.log")"
fi
rm -f "$DEST/.stamp"
cp "$HERE/package.json" "$HERE/package-lock.json" "$DEST/" || fail "cannot copy the package files to $DEST"
log "installing @duckdb/node-api into $DEST from $registry ..."
(cd "$DEST" && timeout "$NPM_TIMEOUT" npm ci --no-audit --no-fund --ignore-scripts --loglevel=error \
    --fetch-retries=2 --fetch-timeout=60000 >"$DEST/npm-ci.log" 2>&1)
rc=$?
if [ "$rc" -ne 0 ]; then
    tail -n 20 "$DEST/npm-ci.log" >&2
    [ "$rc" -eq 124 ] && skip "npm ci did not finish within $NPM_TIMEOUT s"
    grep -q -E 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network' \
        "$DEST/npm-ci.log" && skip "npm ci lost the registry $registry (log: $DEST/npm-ci.log)"
    fail "npm ci failed (log: $DEST/npm-ci.log)"
fi
echo "$want" >"$DEST/.stamp"
ready
