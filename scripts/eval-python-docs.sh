#!/usr/bin/env bash
# Build a bundle of the Python 3.11 docs (tutorial, faq, reference, howto) and score retrieval on
# tests/eval/data/dev (a copy of the shared dev set). Embeddings are cached in ~/.cache/pathshala, so reruns take seconds.
# Fails when the default configuration's recall@5 drops under $MIN_RECALL (default 0.80).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}"
src=/usr/share/doc/python3.11/html/_sources
dev="${DEV_SET:-tests/eval/data/dev}"
if [ ! -d "$src/faq" ]; then
  echo "error: the Python 3.11 docs are missing at $src; install them with: apt-get install python3.11-doc" >&2; exit 1
fi
if [ ! -f "$dev/qa_python_faq.jsonl" ]; then
  echo "error: no dev set at $dev (expected qa_python_faq.jsonl there); set DEV_SET=path/to/eval/dev" >&2; exit 1
fi
out="${BUNDLE:-$CARGO_TARGET_DIR/python-docs.bundle}"
cargo build --release -p index-builder
bin="$CARGO_TARGET_DIR/release/index-builder"
"$bin" build --title "Python 3.11 documentation" --subject "Python programming" --lang en --root "$src" --out "$out" \
  "$src/tutorial" "$src/faq" "$src/reference" "$src/howto"
python3 tests/eval/retrieval_eval.py --bundle "$out" --dev "$dev" --index-builder "$bin" \
  --min-recall "${MIN_RECALL:-0.80}"
