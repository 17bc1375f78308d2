// Prefill and decode speed in headless Chromium at Ask's prompt sizes: our quantized CPU runtime
// (single-threaded wasm build, and the threaded build on 1, 2, 4… workers) and llama.cpp's wasm
// build (wllama), on the same GGUF, prompts and thread counts, each pair in the same run. Driven by
// tests/reference/llm_bench_browser.sh, which builds and serves the page (cross-origin isolated).
//
//   BASE=http://127.0.0.1:PORT/ PROMPTS=prompts.json N=64 THREADS=1,2 [ENGINES=ours,wllama] [SIZES=short,medium,long] node llm-threads.bench.mjs
// One JSON line per engine, thread count and prompt.
import { readFileSync } from 'node:fs';
import { launch } from './chromium.mjs';

const sizes = (process.env.SIZES || 'short,medium,long').split(',');
const prompts = JSON.parse(readFileSync(process.env.PROMPTS, 'utf8')).filter((p) => sizes.includes(p.size));
const n = Number(process.env.N || 64);
const threads = (process.env.THREADS || '1,2').split(',').map(Number);
const engines = (process.env.ENGINES || 'ours,wllama').split(',');
const browser = await launch();

async function run(engine, t) {
  const page = await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') console.error(`[${engine}/${t}] ${m.text()}`); });
  await page.goto(`${process.env.BASE}?engine=${engine}&threads=${t}`);
  await page.waitForFunction(() => window.ready !== undefined, null, { timeout: 300_000 });
  const ready = await page.evaluate(() => window.ready);
  if (ready !== true) throw new Error(`${engine}/${t}: ${ready}`);
  const out = await page.evaluate(async ({ texts, n }) => window.bench(texts, n), { texts: prompts.map((p) => p.text), n });
  await page.close();
  return out;
}

for (const t of threads) {
  // t = 0: our single-threaded build (what a page that is not cross-origin isolated runs).
  for (const engine of t === 0 ? ['ours'] : engines) {
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const out = await run(engine, t);
    out.cases.forEach((c, i) => {
      console.log(JSON.stringify({ engine: t === 0 ? 'ours-single' : engine, threads: out.threads, size: prompts[i].size, load: Number(load),
        prompt_tokens: c.prompt_tokens, prefill_tok_s: +(c.prompt_tokens / (c.prefill_ms / 1000)).toFixed(2),
        decode_tok_s: +c.decode_tok_s.toFixed(2), prefill_ms: Math.round(c.prefill_ms), load_ms: Math.round(out.load_ms),
        // Our greedy tokens, so two builds of ours can be compared token for token.
        ...(c.ids ? { ids: c.ids } : {}) }));
    });
  }
}
await browser.close();
