#!/usr/bin/env bash
# Starts the service emulator on 127.0.0.1 (PORT, default 8787) and prints
# ready-to-paste credentials.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
npm run --silent build:dev
exec node build/emulator/main.js
