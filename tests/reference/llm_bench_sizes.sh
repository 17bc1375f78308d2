#!/usr/bin/env bash
# Prefill and decode speed at the prompt sizes the agents use (~20, ~600 and ~1,500 tokens),
# ours (`index-builder generate --bench`, quantized CPU runtime) and llama.cpp (node-llama-cpp
# 3.21.1 CPU binary) back to back on the same GGUF, the same chat prompt and 2 threads each; one
# JSON line per engine and size, with the size, the load average before the pair and, for ours,
# where the time went (matmul / attention / other shares of prefill and decode).
#
#   cargo build --release -p index-builder
#   mkdir -p /tmp/nlc && (cd /tmp/nlc && npm install node-llama-cpp@3.21.1 --ignore-scripts)
#   tests/reference/llm_bench_sizes.sh models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf [max_tokens]
#
# The long prompts are chapters of the demo course (index-builder/demo-course/python), cut at a
# fixed number of characters and followed by one instruction.
set -euo pipefail
cd "$(dirname "$0")/../.."
model="$1"; n="${2:-64}"
exe="${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}/release/index-builder"
course=index-builder/demo-course/python
short="What is a Python list? Answer in two sentences."
medium="$(head -c 2300 "$course/03-control-flow.md")"$'\n\n'"Summarise the text above in two sentences."
long="$(head -c 6000 "$course/04-functions.md")"$'\n\n'"Summarise the text above in two sentences."
for size in short medium long; do
  question="${!size}"
  load="$(cut -d' ' -f1 /proc/loadavg)"
  # $(…) drops trailing newlines: the one after "assistant" is added back.
  prompt="$(printf '<|im_start|>user\n%s<|im_end|>\n<|im_start|>assistant' "$question")"$'\n'
  ours="$(RAYON_NUM_THREADS=2 "$exe" generate --model "$model" --prompt "$prompt" --max-tokens "$n" --bench 2>&1 >/dev/null | tail -1)"
  echo "{\"size\": \"$size\", \"load\": $load, \"engine\": \"pathshala\", ${ours#\{}"
  theirs="$(NODE_PATH="${NODE_PATH:-/tmp/nlc/node_modules}" node tests/reference/llm_speed_llamacpp.mjs "$model" "$question" "$n" | tail -1)"
  echo "{\"size\": \"$size\", \"load\": $load, ${theirs#\{}"
done
