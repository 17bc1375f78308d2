// Greedy reference tokens from llama.cpp, via node-llama-cpp: SmolLM2-135M-Instruct (Q4_1) or
// Qwen2.5-Coder-0.5B-Instruct (Q4_K_M).
//
// Setup (CPU prebuilt binary only, nothing compiled or downloaded at run time):
//   mkdir -p /tmp/nlc && cd /tmp/nlc && npm install node-llama-cpp@3.21.1 --ignore-scripts
// Run from the repository root:
//   NODE_PATH=/tmp/nlc/node_modules node tests/reference/llm_reference.mjs [smollm2|qwen]
// Writes inference/tests/fixtures/llm/{smollm2,qwen}_greedy.json: for each chat prompt, the prompt
// token ids from llama.cpp's tokenizer (special tokens parsed) and 32 greedy (argmax) continuation
// ids. On an AVX512 x86 CPU node-llama-cpp loads libggml-cpu-zen4.so and uses flash attention
// ("auto"); tests/reference/llama_dump reproduces these runs tensor by tensor. On an Intel CPU
// with AMX, node-llama-cpp picks libggml-cpu-sapphirerapids.so instead (AMX int8 tiles: other
// numerics); move that file out of node_modules/@node-llama-cpp/linux-x64/bins/*/ first so the
// zen4 variant runs (checked 2026-12-02: the three short cases then come out unchanged).
import { createRequire } from "node:module";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH ?? "/tmp/nlc/node_modules", "x.js"));
const { getLlama } = await import(require.resolve("node-llama-cpp"));

// A long prompt (~650 tokens, a chapter of our demo course) so that the prompt is read in one
// batch of 64+ rows: llama.cpp's tiled flash attention and its GEMM paths, as Ask's prompts are.
const LONG = `${readFileSync("index-builder/demo-course/python/03-control-flow.md", "utf8").slice(0, 2600)}\n\nSummarise the text above in two sentences.`;

const MODELS = {
  smollm2: {
    file: "SmolLM2-135M-Instruct.Q4_1.gguf",
    system: "You are a helpful AI assistant named SmolLM, trained by Hugging Face",
    users: [
      "What is the capital of France?",
      "Explain what a Python list comprehension is, with an example.",
      "Write a haiku about the number 42 and rain.",
      LONG,
    ],
  },
  // Qwen2.5's template inserts this system message when the conversation has none, so each
  // prompt is what inference::llm::chat::ChatTemplate renders for the user message alone.
  qwen: {
    file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    system: "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
    users: [
      "Write a Python function that checks whether a number is prime.",
      "What is the difference between a list and a tuple in Python?",
      "Explain what a hash map is in two sentences.",
      LONG,
    ],
  },
};
const KEY = process.argv[2] ?? "smollm2";
if (!MODELS[KEY]) throw new Error(`unknown model ${KEY}; one of ${Object.keys(MODELS).join(", ")}`);
const MODEL = `models/cache/${MODELS[KEY].file}`;
const OUT = `inference/tests/fixtures/llm/${KEY}_greedy.json`;
const N_TOKENS = 32;
const SYSTEM = MODELS[KEY].system;
const USERS = MODELS[KEY].users;

// ChatML (SmolLM2's and Qwen2.5's format), rendered by hand exactly as inference::llm::chatml_prompt does.
const chatml = (user) =>
  `<|im_start|>system\n${SYSTEM}<|im_end|>\n<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;

const llama = await getLlama({ gpu: false, build: "never" });
const model = await llama.loadModel({ modelPath: MODEL, gpuLayers: 0 });
const cases = [];
for (const user of USERS) {
  const prompt = chatml(user);
  const promptIds = Array.from(model.tokenize(prompt, true));
  const context = await model.createContext({ contextSize: user === LONG ? 1024 : 512, threads: 2, batchSize: 512 });
  const seq = context.getSequence();
  const out = [];
  // temperature 0: llama.cpp's greedy sampler (argmax of the logits); no repeat penalty.
  for await (const tok of seq.evaluate(promptIds, { temperature: 0 })) {
    out.push(tok);
    if (out.length >= N_TOKENS) break;
  }
  await context.dispose();
  // The five most likely first tokens with llama.cpp's probabilities (softmax at temperature 1),
  // to tell a near-tie (quantized activations) from a real divergence.
  const ctx2 = await model.createContext({ contextSize: user === LONG ? 1024 : 512, threads: 2, batchSize: 512 });
  let firstTop5 = [];
  for await (const { probabilities } of ctx2.getSequence().evaluateWithMetadata(promptIds, { probabilities: true }, { temperature: 1, topK: 0, topP: 1, seed: 1 })) {
    firstTop5 = [...probabilities.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([id, p]) => ({ id, p }));
    break;
  }
  await ctx2.dispose();
  cases.push({ user, prompt, prompt_ids: promptIds, greedy_ids: out, text: model.detokenize(out, true), first_top5: firstTop5 });
  console.log(JSON.stringify({ user, n_prompt: promptIds.length, text: model.detokenize(out, true) }));
}
mkdirSync(path.dirname(OUT), { recursive: true });
writeFileSync(
  OUT,
  JSON.stringify(
    { model: path.basename(MODEL), generator: "node-llama-cpp@3.21.1 (llama.cpp CPU), greedy", system: SYSTEM, n_tokens: N_TOKENS, cases },
    null,
    1,
  ) + "\n",
);
await model.dispose();
