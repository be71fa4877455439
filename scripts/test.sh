#!/usr/bin/env bash
# The project's whole check: build, lint, strict type check, the GitHub
# workflows (actionlint), n8n's verification scan of the source and the packed
# tarball, then every jest suite (emulator endpoints, real-engine node tests). Run through
# with-node24.sh (npm test does that).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

echo "== build"; npm run --silent build
echo "== lint (n8n community-node rules)"; npm run --silent lint
echo "== typecheck (tsc --strict)"; npm run --silent typecheck
echo "== workflows (actionlint)"; node scripts/lint-workflows.mjs
echo "== n8n verification scan (@n8n/scan-community-package)"; node scripts/scan.mjs
echo "== tests"
mkdir -p build
status=0
npx jest --ci --json --outputFile=build/jest-results.json "$@" || status=$?
node -e '
const r = require("./build/jest-results.json");
console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests + r.numRuntimeErrorTestSuites} failed`);
' || status=1
exit $status
