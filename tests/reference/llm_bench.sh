#!/usr/bin/env bash
# Side by side on the same GGUF and the same ChatML prompt text (so the same prompt ids), greedy,
# 2 threads each: ours (`index-builder generate --device cpu --bench`) and llama.cpp (node-llama-cpp
# 3.21.1 CPU binary, tests/reference/llm_speed_llamacpp.mjs). Prints one JSON line per engine.
#
#   tests/reference/llm_bench.sh models/cache/SmolLM2-135M-Instruct.Q4_1.gguf "What is a Python list?" 128
set -euo pipefail
cd "$(dirname "$0")/../.."
model="$1"; question="$2"; n="${3:-128}"
exe="${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}/release/index-builder"
# $(…) drops trailing newlines: the one after "assistant" is added back.
prompt="$(printf '<|im_start|>user\n%s<|im_end|>\n<|im_start|>assistant' "$question")"$'\n'
RAYON_NUM_THREADS=2 "$exe" generate --model "$model" --prompt "$prompt" --max-tokens "$n" --bench 2>&1 >/dev/null | tail -1
NODE_PATH="${NODE_PATH:-/tmp/nlc/node_modules}" node tests/reference/llm_speed_llamacpp.mjs "$model" "$question" "$n" | tail -1
