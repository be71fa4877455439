#!/usr/bin/env bash
# Shows the package working: builds it, starts the emulator, and runs the
# example workflows in n8n's real engine (n8n-core WorkflowExecute) against it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
npm run --silent build
npm run --silent build:dev
exec node build/scripts/demo.js "$@"
