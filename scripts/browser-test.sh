#!/usr/bin/env bash
# Build the web app, put a test course (the demo course, a slice of the Python docs and test
# fixtures) and the models next to it, serve it on a local port, and run the browser tests in
# Debian's headless Chromium (WebGPU flags on: SwiftShader is a software adapter, so the app picks
# the CPU runtime; one test forces WebGPU with `?llm=webgpu` when BROWSER_WEBGPU=1, ~15 min on
# SwiftShader). BROWSER_TESTS=app.test.mjs runs
# one file.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}"
WASM_TARGET_DIR="${WASM_TARGET_DIR:-$HOME/.cache/pathshala/target-wasm}"
export PATH="$HOME/.cargo/bin:$PATH"

if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
  (apt-get update -q && apt-get install -y -q chromium chromium-driver) >/dev/null
fi
[ -f models/cache/all-MiniLM-L6-v2/model.safetensors ] || models/fetch.sh encoder
# SmolLM2-135M as the course model keeps the tests fast; the Code tutor's model is a separate,
# on-demand one (TUTOR_LLM=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf for the larger one).
export LLM=SmolLM2-135M-Instruct.Q4_1.gguf
export TUTOR_LLM="${TUTOR_LLM:-qwen2.5-coder-0.5b-instruct-q4_k_m.gguf}"
[ -f models/cache/SmolLM2-135M-Instruct.Q4_1.gguf ] && [ -f "models/cache/$TUTOR_LLM" ] || models/fetch.sh llm
scripts/install-web-tools.sh
CARGO_TARGET_DIR="$WASM_TARGET_DIR" trunk build
rm -rf dist/models/e5-small
mkdir -p dist/models/all-MiniLM-L6-v2
cp models/cache/all-MiniLM-L6-v2/{config.json,model.safetensors,tokenizer.json} dist/models/all-MiniLM-L6-v2/
cp models/cache/SmolLM2-135M-Instruct.Q4_1.gguf "models/cache/$TUTOR_LLM" dist/models/
cargo build --release -p index-builder

# The Ask test asks a question of the shared dev set whose gold section is in this slice.
docs=/usr/share/doc/python3.11/html/_sources/tutorial
if [ ! -d "$docs" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  (apt-get update -q && apt-get install -y -q python3.11-doc) >/dev/null
fi
if [ ! -d "$docs" ]; then
  echo "error: the Python 3.11 docs are missing at $docs; install them with: apt-get install python3.11-doc" >&2
  exit 1
fi
slice=("$docs/appendix.rst.txt" "$docs/venv.rst.txt" "$docs/interactive.rst.txt")
"$CARGO_TARGET_DIR/release/index-builder" build --title "Pathshala test course" --out dist/course.bundle \
  --subject "introductory Python programming" --subject "school science (Class 8)" \
  index-builder/demo-course "${slice[@]}" tests/browser/course
scripts/assets-manifest.sh dist

port="${PORT:-$((20000 + RANDOM % 20000))}"
python3 -m http.server --bind 127.0.0.1 --directory dist "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
(cd tests/browser && npm install --no-audit --no-fund --silent && BASE="http://127.0.0.1:$port/" DIST="$PWD/../../dist" node --test ${BROWSER_TESTS:-})
