// Speed of the quantized CPU runtime (wasm SIMD128, one thread) in headless Chromium: prefill and
// decode of SmolLM2-135M on the fixture's first chat prompt and of a long prompt.
//
//   BASE=http://127.0.0.1:PORT/ node tests/browser/cpu-llm.bench.mjs model.gguf N
// (the page and model come from the same build as scripts/webgpu-llm-test.sh)
import { readFileSync } from 'node:fs';
import { launch } from './chromium.mjs';

const [file = 'model.gguf', n = '32'] = process.argv.slice(2);
const fx = JSON.parse(readFileSync(new URL('../../inference/tests/fixtures/llm/smollm2_greedy.json', import.meta.url)));
const browser = await launch();
const page = await browser.newPage();
await page.goto(process.env.BASE);
await page.waitForFunction(() => typeof window.runCpu === 'function', null, { timeout: 300_000 });
await page.waitForFunction(() => window.ready === true);
const prompts = [fx.cases[0].prompt_ids];
const out = await page.evaluate(async ({ file, prompts, n }) => window.runCpu(file, prompts, [0, 2], n), { file, prompts, n: Number(n) });
console.log(out);
await browser.close();
