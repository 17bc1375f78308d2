// Query latency in the browser: load the site with ?bench=QUERIES and read the per-query times the
// app measured (embedding + retrieval, wasm on the CPU backend), as p50/p95.
//
//   node tests/browser/bench.mjs http://127.0.0.1:8080/ bench-queries.json [rounds]
import { launch, percentile } from './chromium.mjs';

const [base, queries, rounds = '3'] = process.argv.slice(2);
const browser = await launch();
const page = await browser.newPage();
page.on('console', (m) => { if (m.type() === 'error') console.error('[page]', m.text()); });
const all = [];
let readyMs = 0;
for (let r = 0; r < Number(rounds); r++) {
  const t0 = Date.now();
  await page.goto(`${base}?bench=${encodeURIComponent(queries)}`);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 600_000 });
  readyMs = Date.now() - t0;
  const el = await page.waitForSelector('[data-testid=bench]', { timeout: 600_000 });
  const data = JSON.parse(await el.textContent());
  if (data.error) throw new Error(data.error);
  all.push(...data.ms);
}
console.log(JSON.stringify({
  queries: all.length,
  p50_ms: +percentile(all, 50).toFixed(1),
  p95_ms: +percentile(all, 95).toFixed(1),
  mean_ms: +(all.reduce((a, b) => a + b, 0) / all.length).toFixed(1),
  time_to_ready_ms: readyMs,
  user_agent: await page.evaluate(() => navigator.userAgent),
}));
await browser.close();
