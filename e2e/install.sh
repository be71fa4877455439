#!/usr/bin/env bash
# Installs n8n 2.41.1 (and playwright-core) into e2e/node_modules when
# e2e/package.json or its lock changed. Run through scripts/with-node24.sh:
# n8n refuses Node 20, and sqlite3 must build against Node 24's headers.
# - overrides in package.json pin linkedom and @langchain/langgraph(-sdk) to
#   versions whose dependencies the registry mirror has;
# - --ignore-scripts: install scripts that download prebuilt binaries fail
#   offline; --legacy-peer-deps: n8n's tree has peer conflicts npm 11 refuses;
# - sqlite3's prebuilt download fails, so it is built from source afterwards.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
stamp=node_modules/.install-stamp
fingerprint() { echo "$(node -v) $(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -c1-16)"; }
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(fingerprint)" ]; then exit 0; fi
echo "[e2e] installing n8n and playwright-core into e2e/node_modules (a few minutes, about 2 GB)" >&2
npm install --ignore-scripts --legacy-peer-deps --no-audit --no-fund --loglevel=error >&2
echo "[e2e] building sqlite3 for $(node -v)" >&2
npm rebuild sqlite3 --loglevel=error >&2
fingerprint > "$stamp"
