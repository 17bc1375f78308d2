// Where the page's main thread goes after `ready`: its long tasks (PerformanceObserver) and a CPU
// profile (Chrome DevTools Protocol) of the next SECONDS, self time per function.
//
//   node tests/browser/profile-page.mjs http://127.0.0.1:8080/ [seconds]
//
// The built wasm has no function names (scripts/wasm-strip-names.py drops them): a line reads
// `wasm-function[N]`. To name N, run wasm-bindgen on the unstripped binary of the same build,
//   wasm-bindgen --target web --out-dir /tmp/named $WASM_TARGET_DIR/wasm32-unknown-unknown/release/app.wasm
// and read entry N of /tmp/named/app_bg.wasm's name section (the indices match). This is how the
// constructors run on every call into wasm were found (docs/BENCHMARKS.md, session 25).
import { launch } from './chromium.mjs';

const [base, seconds = '20'] = process.argv.slice(2);
const browser = await launch();
const page = await browser.newPage();
await page.addInitScript(() => {
  window.__long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push([Math.round(e.startTime), Math.round(e.duration)]);
  }).observe({ type: 'longtask', buffered: true });
});
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
const t0 = Date.now();
await page.goto(base);
await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 300_000 });
const readyMs = Date.now() - t0;
await cdp.send('Profiler.start');
await page.waitForTimeout(1000 * Number(seconds));
const { profile } = await cdp.send('Profiler.stop');
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
profile.samples.forEach((id, i) => {
  const f = nodes.get(id).callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
  self.set(key, (self.get(key) || 0) + (profile.timeDeltas[i] || 0) / 1000);
});
const long = await page.evaluate(() => window.__long);
const afterReady = long.filter(([start]) => start >= readyMs - 50);
console.log(JSON.stringify({
  ready_ms: readyMs,
  profiled_s: Number(seconds),
  long_tasks_after_ready: afterReady.length,
  long_task_ms_after_ready: afterReady.reduce((s, [, d]) => s + d, 0),
  top_self_ms: [...self].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, ms]) => [k, Math.round(ms)]),
}, null, 1));
await browser.close();
