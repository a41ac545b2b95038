#!/usr/bin/env bash
# run.sh NAME — entry point of every test in the `client` suite (tests/client/meson.build).
#
# Installs the pinned clients if needed (install-clients.sh; its exit 77 "skip" and 1 "failure" pass
# through unchanged, so meson reports SKIP with the printed reason), then runs NAME.test.mjs with the
# Node >= 22.19 binary the installer found, that binary's folder first on PATH (the clients' `#!/usr/bin/env
# node` launchers then use it too).
#
# Environment from meson: NEURONLENS (the server binary), NL_SOURCE_ROOT, NL_BUILD_ROOT. Exported to the
# test: NL_NODE22, NL_MCP_CLIENTS, NL_CLIENT_OUT (a scratch folder for logs and conformance results
# under the build directory).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
name=${1:?usage: run.sh inspector-cli|sdk-v1|conformance}
script=$HERE/$name.test.mjs
[ -f "$script" ] || { echo "run.sh: no such test: $script" >&2; exit 2; }

export NL_SOURCE_ROOT=${NL_SOURCE_ROOT:-$(cd "$HERE/../.." && pwd)}
export NL_BUILD_ROOT=${NL_BUILD_ROOT:-$NL_SOURCE_ROOT/build}
export NL_MCP_CLIENTS=${NL_MCP_CLIENTS:-$NL_SOURCE_ROOT/.mcp-clients}
export NEURONLENS=${NEURONLENS:-$NL_BUILD_ROOT/neuronlens}
[ -x "$NEURONLENS" ] || { echo "run.sh: server binary not found: $NEURONLENS (build first)" >&2; exit 1; }

node22=$("$HERE/install-clients.sh")
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"

export NL_NODE22=$node22
export PATH="$(dirname "$node22"):$PATH"
export NL_CLIENT_OUT=$NL_BUILD_ROOT/client-tests/$name
rm -rf "$NL_CLIENT_OUT" && mkdir -p "$NL_CLIENT_OUT" || exit 1
exec "$node22" "$script"
