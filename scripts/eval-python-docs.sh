#!/usr/bin/env bash
# Build a bundle of the Python 3.11 docs (tutorial, faq, reference, howto) and score retrieval on
# ../shared/eval/dev. Embeddings are cached in ~/.cache/pathshala, so reruns take seconds.
# Fails when the default configuration's recall@5 drops under $MIN_RECALL (default 0.80).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}"
src=/usr/share/doc/python3.11/html/_sources
dev="${DEV_SET:-../shared/eval/dev}"
out="${BUNDLE:-$CARGO_TARGET_DIR/python-docs.bundle}"
cargo build --release -p index-builder
bin="$CARGO_TARGET_DIR/release/index-builder"
"$bin" build --title "Python 3.11 documentation" --root "$src" --out "$out" \
  "$src/tutorial" "$src/faq" "$src/reference" "$src/howto"
if [ ! -d "$dev" ]; then
  echo "no dev set at $dev; set DEV_SET=path/to/eval/dev"; exit 0
fi
python3 tests/eval/retrieval_eval.py --bundle "$out" --dev "$dev" --index-builder "$bin" \
  --min-recall "${MIN_RECALL:-0.80}"
