#!/usr/bin/env bash
# The Burn path (`generate --device wgpu`) against the quantized CPU runtime on one machine with a
# GPU: first token and decode, a short prompt and an Ask-size one (docs/BENCHMARKS.md, "Native
# wgpu on a real GPU"). Needs an index-builder built with `--features wgpu` and Vulkan.
#   tests/reference/wgpu_bench.sh [INDEX_BUILDER] [MODEL.gguf]
set -u
cd "$(dirname "$0")/../.."
B="${1:-${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}/release/index-builder}"
M="${2:-models/cache/SmolLM2-135M-Instruct.Q4_1.gguf}"
SHORT="What is a Python list? Answer in two sentences."
LONG="Passages from the course book:

[1] $(head -c 2300 index-builder/demo-course/python/02-variables-and-types.md)

Question: explain the main idea of this passage in three sentences."
run() { # label, then generate's arguments
  local label=$1; shift
  echo "=== $label"
  timeout 120 "$B" generate --model "$M" --chat --bench "$@" 2>&1 | tail -c 1500
}
for w in q8 f32 q4; do
  run "wgpu $w short #1" --device wgpu --weights $w --prompt "$SHORT" --max-tokens 64
  run "wgpu $w short #2" --device wgpu --weights $w --prompt "$SHORT" --max-tokens 64
  run "wgpu $w long" --device wgpu --weights $w --prompt "$LONG" --max-tokens 128
done
run "cpu short" --device cpu --prompt "$SHORT" --max-tokens 64
run "cpu long" --device cpu --prompt "$LONG" --max-tokens 128
