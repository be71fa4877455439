#!/usr/bin/env bash
# The package in a real n8n editor: installs n8n 2.41.1 into e2e/ on the first
# run (no browser: the dev command needs none), builds, then runs
# scripts/dev.ts (emulator + n8n with the package, the credentials and the
# example workflows; Ctrl-C stops both). Every long step prints a line at least
# every 15 s; dev.ts closes with how long each step took.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=progress.sh
source scripts/progress.sh
export WORKPLACE_STARTED="${WORKPLACE_STARTED:-$(date +%s)}"
WORKPLACE_PHASES_FILE="$(mktemp "${TMPDIR:-/tmp}/workplace-dev-phases-XXXXXX")"
export WORKPLACE_PHASES_FILE
# Only this shell removes it (see e2e/install.sh's cleanup).
trap '[ "$BASHPID" = "$$" ] && rm -f "$WORKPLACE_PHASES_FILE"' EXIT
# The steps with-node24.sh timed before this script started.
if [ -n "${WORKPLACE_PHASES:-}" ]; then tr ';' '\n' <<< "$WORKPLACE_PHASES" >> "$WORKPLACE_PHASES_FILE"; fi
bash e2e/install.sh
# dist/ only when the sources changed since it was built (its stamp, as the tests check it);
# the dev scripts incrementally.
build() {
  if [ "$(node -e 'const s = require("./scripts/sourceStamp"); process.stdout.write(String(s.builtStamp(".") === s.sourceStamp(".")))')" != true ]; then
    # gulp's step log only when the build fails.
    local log
    log="$(npm run --silent build 2>&1)" || { echo "$log" >&2; return 1; }
  fi
  # tsc itself, not npx: npm warns about the npm_config_nodedir with-node24.sh sets.
  node node_modules/typescript/bin/tsc -p tsconfig.dev.json --incremental --tsBuildInfoFile build/.dev.tsbuildinfo
}
run_phase "build the package" "" build
# dev.ts reads the phases file and removes it.
trap - EXIT
exec node build/scripts/dev.js "$@"
