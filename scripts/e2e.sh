#!/usr/bin/env bash
# End-to-end suites in a real n8n 2.41.1 (e2e/): CLI, REST, the editor in
# headless Chromium, queue mode with Redis and PostgreSQL, the AI Agent; and
# the version matrix on each n8n of e2e/versions/. Run through with-node24.sh
# (npm run e2e does that).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

echo "== e2e install"; bash e2e/install.sh
for version in e2e/versions/*/; do bash e2e/install.sh "$(basename "$version")"; done
echo "== build"; npm run --silent build; npm run --silent build:dev
echo "== typecheck e2e"; npx tsc -p e2e/tsconfig.json
echo "== e2e tests"
mkdir -p build
status=0
npx jest -c e2e/jest.config.js --ci --json --outputFile=build/e2e-results.json "$@" || status=$?
node -e '
const r = require("./build/e2e-results.json");
console.log(`e2e: ${r.numPassedTests} passed, ${r.numFailedTests + r.numRuntimeErrorTestSuites} failed`);
' || status=1
exit $status
