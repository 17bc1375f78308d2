#!/usr/bin/env bash
# Seeds for the bundle_decode fuzz target: real bundles of a small course (the demo course's first
# chapter; small inputs keep the fuzzer fast), lexical-only and with MiniLM vectors, written to
# inference/fuzz/seeds/.
# Needs the encoder (models/fetch.sh encoder) and a release index-builder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}"
(cd "$root" && cargo build --release -q -p index-builder)
course="$(mktemp -d)"
trap 'rm -rf "$course"' EXIT
find "$root/index-builder/demo-course/python" -type f | LC_ALL=C sort | head -1 | xargs -I{} cp {} "$course/"
mkdir -p "$here/seeds"
cd "$root"   # the encoder is found under models/cache
"$CARGO_TARGET_DIR/release/index-builder" build --no-embed --title seed --out "$here/seeds/lexical.bundle" "$course" >/dev/null
"$CARGO_TARGET_DIR/release/index-builder" build --no-cache --title seed --out "$here/seeds/vectors.bundle" "$course" >/dev/null
ls -l "$here/seeds"
