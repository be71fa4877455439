#!/usr/bin/env bash
# The project's whole check: build, lint, strict type check, the GitHub
# workflows (actionlint), n8n's verification scan of the source and the packed
# tarball, then every jest suite (emulator endpoints, real-engine node tests). Run through
# with-node24.sh (npm test does that). It prints what runs, what fails (with
# all of its output) and the totals; a step's chatter when it succeeds is left out.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Runs a command, showing its output only when it fails.
quietly() {
	local output
	if ! output=$("$@" 2>&1); then
		printf '%s\n' "$output"
		return 1
	fi
}

echo "== build"; quietly npm run --silent build
echo "== lint (n8n community-node rules)"; npm run --silent lint
echo "== typecheck (tsc --strict)"; npm run --silent typecheck
echo "== workflows (actionlint)"; node scripts/lint-workflows.mjs
echo "== n8n verification scan (@n8n/scan-community-package)"; node scripts/scan.mjs
echo "== tests"
npx jest --ci --testResultsProcessor=./scripts/jestRunTotals.js "$@"
