// llama.cpp (node-llama-cpp 3.21.1 CPU binary) prefill and decode speed on the same chat prompt as
// `index-builder generate --chat --bench`, 2 threads, greedy, for a side-by-side ratio.
//
//   mkdir -p /tmp/nlc && cd /tmp/nlc && npm install node-llama-cpp@3.21.1 --ignore-scripts
//   NODE_PATH=/tmp/nlc/node_modules node tests/reference/llm_speed_llamacpp.mjs MODEL.gguf "prompt" [max_tokens]
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH ?? "/tmp/nlc/node_modules", "x.js"));
const { getLlama } = await import(require.resolve("node-llama-cpp"));
const [modelPath, user, maxTokens = "64"] = process.argv.slice(2);
const llama = await getLlama({ gpu: false, build: "never" });
const t0 = performance.now();
const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
const loadS = (performance.now() - t0) / 1000;
const prompt = `<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;
const ids = Array.from(model.tokenize(prompt, true));
// Room for the prompt and the answer (long-prompt runs need more than 1,024 cells).
const contextSize = Math.max(1024, Math.ceil((ids.length + Number(maxTokens) + 8) / 256) * 256);
const ctx = await model.createContext({ contextSize, threads: 2, batchSize: 512 });
const seq = ctx.getSequence();
const stop = new Set([model.tokens.eos, ...Array.from(model.tokenize("<|im_end|>", true))]);
const out = [];
let first = null;
const t1 = performance.now();
for await (const tok of seq.evaluate(ids, { temperature: 0 })) {
  if (first === null) first = performance.now();
  if (stop.has(tok)) break;
  out.push(tok);
  if (out.length >= Number(maxTokens)) break;
}
const end = performance.now();
console.log(JSON.stringify({
  engine: "llama.cpp via node-llama-cpp 3.21.1", load_s: +loadS.toFixed(2), prompt_tokens: ids.length,
  prefill_tok_s: +(ids.length / ((first - t1) / 1000)).toFixed(1), generated: out.length,
  decode_tok_s: +((out.length - 1) / ((end - first) / 1000)).toFixed(1), text: model.detokenize(out),
}));
await ctx.dispose();
