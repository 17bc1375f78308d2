#!/usr/bin/env bash
# Our Python sandbox worker against Pyodide in the same headless Chromium (docs/BENCHMARKS.md,
# "Python sandbox"). Needs a built dist/ (scripts/browser-test.sh or `trunk build`); installs
# Pyodide from npm into tests/browser/pyodide and serves it locally. Never downloads a browser.
#
#   scripts/sandbox-bench.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/sandbox_loader.js ] || { echo "sandbox-bench: no dist/sandbox_loader.js; build first (CARGO_TARGET_DIR=~/.cache/pathshala/target-wasm trunk build)" >&2; exit 1; }
(cd tests/browser && npm install --no-audit --no-fund --silent)
(cd tests/browser/pyodide && npm install --no-audit --no-fund --silent)
node tests/browser/sandbox.bench.mjs "$PWD/dist" "$PWD/tests/browser/pyodide/node_modules/pyodide" "${1:-5}"
