#!/usr/bin/env bash
# The package in a real n8n editor: installs n8n 2.41.1 into e2e/ on the first
# run, builds, then runs scripts/dev.ts (emulator + n8n with the package, the
# credentials and the example workflows; Ctrl-C stops both).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash e2e/install.sh
npm run --silent build
npm run --silent build:dev
exec node build/scripts/dev.js "$@"
