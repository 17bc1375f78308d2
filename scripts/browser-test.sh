#!/usr/bin/env bash
# Build the web app, serve it with the demo course on a local port, and run the browser tests in
# Debian's headless Chromium (WebGPU flags on; the encoder runs on Burn's CPU backend in wasm).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}"
WASM_TARGET_DIR="${WASM_TARGET_DIR:-$HOME/.cache/pathshala/target-wasm}"
export PATH="$HOME/.cargo/bin:$PATH"

if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
  (apt-get update -q && apt-get install -y -q chromium chromium-driver) >/dev/null
fi
scripts/install-web-tools.sh
CARGO_TARGET_DIR="$WASM_TARGET_DIR" trunk build
mkdir -p dist/models/all-MiniLM-L6-v2
cp models/cache/all-MiniLM-L6-v2/{config.json,model.safetensors,tokenizer.json} dist/models/all-MiniLM-L6-v2/
cargo build --release -p index-builder
"$CARGO_TARGET_DIR/release/index-builder" build --title "Pathshala demo course" --out dist/course.bundle index-builder/demo-course

port="${PORT:-$((20000 + RANDOM % 20000))}"
python3 -m http.server --bind 127.0.0.1 --directory dist "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
(cd tests/browser && npm install --no-audit --no-fund --silent && BASE="http://127.0.0.1:$port/" node --test)
