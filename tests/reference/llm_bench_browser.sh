#!/usr/bin/env bash
# Prefill and decode speed in headless Chromium at the prompt sizes the agents use (~20, ~600 and
# ~1,500 tokens; the prompts of tests/reference/llm_bench_sizes.sh): ours (the quantized CPU
# runtime in wasm: the single-threaded build, and the threaded build on a pool of Web Workers)
# and llama.cpp's wasm build (wllama 3.13, multi-threaded when the page is isolated), same GGUF,
# same prompts, same thread counts, each pair in the same run; both run in a Web Worker, as the
# app runs ours (since session 25; before, ours ran on the page's main thread). The page is served cross-origin
# isolated (COOP/COEP), as the app's service worker makes it. One JSON line per engine, thread
# count and size.
#
#   mkdir -p /tmp/wl && (cd /tmp/wl && npm install @wllama/wllama@3.13.0)
#   tests/reference/llm_bench_browser.sh models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf [max_tokens] [threads]
#
# threads: comma-separated pool sizes (default 0,1,2; 0 is our single-threaded build alone).
# RELAXED=1 builds ours with relaxed SIMD's kernels (the `relaxed-simd` feature: the app's
# threaded worker where the browser has it, scripts/build-threaded.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
model="$1"; n="${2:-64}"; threads="${3:-0,1,2}"
wllama="${WLLAMA_DIR:-/tmp/wl/node_modules/@wllama/wllama}"
[ -f "$wllama/esm/index.js" ] || { echo "wllama is missing at $wllama: mkdir -p /tmp/wl && (cd /tmp/wl && npm install @wllama/wllama@3.13.0)" >&2; exit 1; }
wasm_dir="${WASM_TARGET_DIR:-$HOME/.cache/pathshala/target-wasm}"
out="$(mktemp -d)"
trap 'rm -rf "$out"; kill ${server:-} 2>/dev/null || true' EXIT

# Ours, single-threaded (stable) and threaded (the pinned nightly, as scripts/build-threaded.sh).
source scripts/threaded-env.sh
features=""
if [ "${RELAXED:-0}" = 1 ]; then features="--features relaxed-simd"; fi
CARGO_TARGET_DIR="$wasm_dir" cargo build --release -p webgpu-llm --target wasm32-unknown-unknown $features
wasm-bindgen --target web --no-typescript --out-dir "$out/st" "$wasm_dir/wasm32-unknown-unknown/release/webgpu_llm.wasm"
if [ "$threads" != 0 ]; then
  RUSTFLAGS="$THREADED_RUSTFLAGS" CARGO_TARGET_DIR="$WASM_MT_TARGET_DIR" cargo "+$PATHSHALA_NIGHTLY" build --release -Z build-std=panic_abort,std \
    --target wasm32-unknown-unknown -p webgpu-llm $features
  wasm-bindgen --target web --no-typescript --out-dir "$out/mt" "$WASM_MT_TARGET_DIR/wasm32-unknown-unknown/release/webgpu_llm.wasm"
fi

cp -r "$wllama/esm" "$out/wllama"
ln -s "$PWD/$model" "$out/model.gguf"

cat > "$out/index.html" <<'HTML'
<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>LLM speed in the browser</title>
<script type="module">
const q = new URLSearchParams(location.search);
const engine = q.get('engine'), threads = Number(q.get('threads'));
const model = () => fetch('model.gguf').then((r) => r.arrayBuffer());
try {
  if (engine === 'ours') {
    // In a module worker, as the app runs it (and wllama runs llama.cpp): the page's main thread
    // may not block while the pool works.
    const worker = new Worker(`ours_worker.js?threads=${threads}`, { type: 'module' });
    const reply = () => new Promise((resolve, reject) => {
      worker.onmessage = (e) => (e.data.error ? reject(new Error(e.data.error)) : resolve(e.data));
      worker.onerror = (e) => reject(new Error(e.message || 'the worker failed to start'));
    });
    await reply();
    window.bench = (texts, n) => {
      const done = reply();
      worker.postMessage({ texts, n });
      return done.then((d) => d.result);
    };
  } else {
    const { Wllama } = await import('./wllama/index.js');
    const w = new Wllama({ default: new URL('./wllama/wasm/wllama.wasm', location.href).href }, { suppressNativeLog: true });
    const t0 = performance.now();
    await w.loadModel([new Blob([await model()])], { n_ctx: 2048, n_threads: threads, n_batch: 512 });
    const load_ms = performance.now() - t0;
    window.bench = async (texts, n) => {
      const cases = [];
      for (const prompt of texts) {
        const r = await w.createCompletion({ prompt, max_tokens: n, temperature: 0, ignore_eos: true, cache_prompt: false, stream: false });
        const t = r.timings;
        cases.push({ prompt_tokens: t.prompt_n, prefill_ms: t.prompt_ms, decode_tok_s: t.predicted_per_second });
      }
      return { threads: w.getNumThreads(), multithread: w.isMultithread(), load_ms, cases };
    };
  }
  window.ready = true;
} catch (e) {
  window.ready = String(e && e.stack || e);
}
</script>
HTML

cat > "$out/ours_worker.js" <<'JS'
const threads = Number(new URLSearchParams(self.location.search).get('threads'));
try {
  const pkg = await import(threads > 0 ? './mt/webgpu_llm.js' : './st/webgpu_llm.js');
  await pkg.default();
  if (threads > 0) await pkg.initThreadPool(threads);
  const bytes = new Uint8Array(await (await fetch('model.gguf')).arrayBuffer());
  self.onmessage = async (e) => {
    try {
      self.postMessage({ result: JSON.parse(await pkg.cpu_bench(bytes, JSON.stringify(e.data.texts), e.data.n)) });
    } catch (err) {
      self.postMessage({ error: String((err && err.stack) || err) });
    }
  };
  self.postMessage({ ready: true });
} catch (err) {
  self.postMessage({ error: String((err && err.stack) || err) });
}
JS

# The prompts, chat-wrapped as tests/reference/llm_bench_sizes.sh wraps them.
course=index-builder/demo-course/python
python3 - "$course" "$out/prompts.json" <<'PY'
import json, sys
course, dest = sys.argv[1], sys.argv[2]
read = lambda f, n: open(f"{course}/{f}", "rb").read()[:n].decode("utf-8", "ignore")
asks = [("short", "What is a Python list? Answer in two sentences."),
        ("medium", read("03-control-flow.md", 2300).rstrip("\n") + "\n\nSummarise the text above in two sentences."),
        ("long", read("04-functions.md", 6000).rstrip("\n") + "\n\nSummarise the text above in two sentences.")]
json.dump([{"size": s, "text": f"<|im_start|>user\n{t}<|im_end|>\n<|im_start|>assistant\n"} for s, t in asks], open(dest, "w"))
PY

# A static server that sends the isolation headers (SharedArrayBuffer for both engines' threads).
port="${PORT:-$((20000 + RANDOM % 20000))}"
python3 - "$out" "$port" >/dev/null 2>&1 <<'PY' &
import functools, http.server, sys
class H(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()
H.extensions_map[".js"] = "text/javascript"
H.extensions_map[".mjs"] = "text/javascript"
H.extensions_map[".wasm"] = "application/wasm"
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), functools.partial(H, directory=sys.argv[1])).serve_forever()
PY
server=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
(cd tests/browser && BASE="http://127.0.0.1:$port/" PROMPTS="$out/prompts.json" N="$n" THREADS="$threads" node llm-threads.bench.mjs)
