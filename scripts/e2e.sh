#!/usr/bin/env bash
# End-to-end suites in a real n8n 2.41.1 (e2e/): CLI, REST, the editor in
# headless Chromium, queue mode with Redis and PostgreSQL, the AI Agent; and
# the version matrix on each n8n of e2e/versions/. Run through with-node24.sh
# (npm run e2e does that). Without arguments the suites that mostly wait for
# n8n's poll schedule run in a second jest process beside the others
# (e2e/lanes.js); with arguments (jest's, e.g. a suite's name) one jest runs
# what they select.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/processes.sh
# However it ends (a failed install, a signal, a suite cut short before its
# own clean-up): what it started goes, the installs' npm and the lanes' n8n
# servers included, and every temporary folder of the run (n8n's user
# folders, PostgreSQL's, Redis's and Chromium's, jest's cache), all made in
# one folder of the run's own.
own_tmpdir workplace-e2e

echo "== e2e install"
# e2e/'s n8n and each n8n of the version matrix install side by side: each is
# mostly waiting on the registry and the disk, in its own folder, and compiles
# its own sqlite3. Lines of the matrix's installs say their version.
installs=()
bash e2e/install.sh & installs+=($!)
for version in e2e/versions/*/; do
  version="$(basename "$version")"
  (bash e2e/install.sh "$version" 2>&1 | sed -u "s/^\[setup\]/[setup $version]/") >&2 & installs+=($!)
done
failed=0
for pid in "${installs[@]}"; do wait "$pid" || failed=1; done
if [ "$failed" -ne 0 ]; then echo "e2e install failed (its output is above)" >&2; exit 1; fi
echo "== build"; npm run --silent build; npm run --silent build:dev
echo "== typecheck e2e"; npx tsc -p e2e/tsconfig.json
mkdir -p build
rm -f build/e2e-results*.json build/e2e-schedule.log
jest=(node node_modules/jest/bin/jest.js -c e2e/jest.config.js --ci --json)
status=0
if [ $# -eq 0 ]; then
  echo "== e2e tests (the schedule lane runs beside these; its output follows them)"
  E2E_LANE=schedule "${jest[@]}" --outputFile=build/e2e-results-schedule.json > build/e2e-schedule.log 2>&1 &
  schedule=$!
  E2E_LANE=others "${jest[@]}" --outputFile=build/e2e-results-others.json || status=$?
  wait "$schedule" || status=$?
  echo "== e2e tests, schedule lane (ran beside the above)"
  cat build/e2e-schedule.log
  parts=(build/e2e-results-others.json build/e2e-results-schedule.json)
else
  echo "== e2e tests"
  "${jest[@]}" --outputFile=build/e2e-results-run.json "$@" || status=$?
  parts=(build/e2e-results-run.json)
fi
# One results file and one line for the whole run; a lane that wrote no
# results (it could not start) counts as a failure.
node -e '
const fs = require("node:fs");
const parts = process.argv.slice(1).map((file) => fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : undefined);
const sum = (key) => parts.reduce((total, part) => total + (part ? part[key] : 0), 0);
const merged = { ...parts.find(Boolean), numPassedTests: sum("numPassedTests"), numFailedTests: sum("numFailedTests"), numTotalTests: sum("numTotalTests"), numRuntimeErrorTestSuites: sum("numRuntimeErrorTestSuites"), numTotalTestSuites: sum("numTotalTestSuites"), testResults: parts.flatMap((part) => part ? part.testResults : []), success: parts.every((part) => part && part.success) };
fs.writeFileSync("build/e2e-results.json", JSON.stringify(merged));
const missing = parts.filter((part) => !part).length;
console.log(`e2e: ${merged.numPassedTests} passed, ${merged.numFailedTests + merged.numRuntimeErrorTestSuites + missing} failed`);
process.exit(merged.success && missing === 0 ? 0 : 1);
' "${parts[@]}" || status=1
rm -f "${parts[@]}"
exit $status
