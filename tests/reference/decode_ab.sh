#!/usr/bin/env bash
# Two builds of the runtime compared on a noisy host: they alternate (A, B, A, B, …) so drift in
# the machine's load falls on both, and each line is one run of each measurement:
# `matmul_bench MODEL 1 output` (the output matrix, one token: DRAM-bound) and
# `index-builder generate --bench` on llm_bench_sizes.sh's 610-token prompt (decode, prefill).
#
#   cp $CARGO_TARGET_DIR/release/index-builder /tmp/ib-a; cp $CARGO_TARGET_DIR/release/examples/matmul_bench /tmp/mb-a
#   … change, rebuild, copy to /tmp/ib-b and /tmp/mb-b …
#   tests/reference/decode_ab.sh /tmp/ib-a /tmp/mb-a /tmp/ib-b /tmp/mb-b [runs] [models…]
set -euo pipefail
cd "$(dirname "$0")/../.."
ib_a="$1"; mb_a="$2"; ib_b="$3"; mb_b="$4"; runs="${5:-5}"; shift $(( $# < 5 ? $# : 5 ))
models=("$@"); [ ${#models[@]} -gt 0 ] || models=(models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf models/cache/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf)
course=index-builder/demo-course/python
medium="$(head -c 2300 "$course/03-control-flow.md")"$'\n\n'"Summarise the text above in two sentences."
prompt="$(printf '<|im_start|>user\n%s<|im_end|>\n<|im_start|>assistant' "$medium")"$'\n'
for r in $(seq "$runs"); do
  for v in a b; do
    ib="ib_$v"; mb="mb_$v"
    for m in "${models[@]}"; do
      out=$(RAYON_NUM_THREADS=2 "${!mb}" "$m" 1 output | tail -1 | awk '{print $2}')
      bench=$(RAYON_NUM_THREADS=2 "${!ib}" generate --model "$m" --prompt "$prompt" --max-tokens 48 --bench 2>&1 >/dev/null | tail -1)
      echo "{\"run\": $r, \"build\": \"$v\", \"model\": \"$(basename "$m")\", \"output_ms\": $out, \"load\": $(cut -d' ' -f1 /proc/loadavg), \"bench\": $bench}"
    done
  done
done
