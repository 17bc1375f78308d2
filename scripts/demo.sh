#!/usr/bin/env bash
# Serve the demo: fetch the encoder and the chat model (sha256-checked), build the demo course
# bundle, build the web app with Trunk, write assets.json, and serve the site on
# http://127.0.0.1:${PORT:-8080}/ . Any static host works the same, under any sub-path: copy dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}"
WASM_TARGET_DIR="${WASM_TARGET_DIR:-$HOME/.cache/pathshala/target-wasm}"

models/fetch.sh e5
models/fetch.sh llm
cargo build --release -p index-builder
# multilingual-e5-small: the demo has Bangla chapters, and the router's learned classifier reads
# its vectors (English-only courses keep the default, all-MiniLM-L6-v2: docs/EVALUATION.md).
"$CARGO_TARGET_DIR/release/index-builder" build --encoder e5-small --title "Pathshala demo course" \
  --subject "introductory Python programming" --subject "school science (Class 8)" \
  --out "$CARGO_TARGET_DIR/demo.bundle" index-builder/demo-course

scripts/install-web-tools.sh
CARGO_TARGET_DIR="$WASM_TARGET_DIR" trunk build
rm -rf dist/models/all-MiniLM-L6-v2
mkdir -p dist/models/e5-small
cp models/cache/e5-small/e5-small-q4.bin dist/models/e5-small/
# The course's chat model, shared by Ask and the Code tutor: Qwen2.5-Coder-0.5B-Instruct;
# LLM=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf for the larger one (models/fetch.sh llm-large).
export LLM="${LLM:-qwen2.5-coder-0.5b-instruct-q4_k_m.gguf}"
cp "models/cache/$LLM" dist/models/
cp "$CARGO_TARGET_DIR/demo.bundle" dist/course.bundle
scripts/assets-manifest.sh dist
echo "serving dist/ on http://127.0.0.1:${PORT:-8080}/"
exec python3 -m http.server --bind 127.0.0.1 --directory dist "${PORT:-8080}"
