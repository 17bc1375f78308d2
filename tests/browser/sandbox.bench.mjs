// Our Python sandbox worker against Pyodide (npm `pyodide`, served from local files), in the same
// headless Chromium: cold start (Worker created → the first `print` is back), an empty run, and a
// small benchmark program (primes, recursion, string building and a dict), same source for both.
// Each side runs in its own Web Worker; ours builds a fresh interpreter per run (that is how it
// keeps runs apart) and checks its clock from a trace hook, Pyodide reuses one interpreter.
//
//   node tests/browser/sandbox.bench.mjs DIST PYODIDE_DIR [rounds]     (scripts/sandbox-bench.sh)
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { launch, percentile } from './chromium.mjs';

const [dist, pyodideDir, rounds = '5'] = process.argv.slice(2);
if (!dist || !pyodideDir) throw new Error('usage: node sandbox.bench.mjs DIST PYODIDE_DIR [rounds]');

const BENCH = `def primes(n):
    sieve = [True] * (n + 1)
    sieve[0] = sieve[1] = False
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            for j in range(i * i, n + 1, i):
                sieve[j] = False
    return [i for i, p in enumerate(sieve) if p]

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

words = []
for i in range(20000):
    words.append(str(i * i)[-3:])
text = ",".join(words)
counts = {}
for w in text.split(","):
    counts[w] = counts.get(w, 0) + 1
print(len(primes(100000)), fib(18), len(counts), len(text))
`;
const EXPECTED = '9592 2584 ';

const PYODIDE_WORKER = `
import { loadPyodide } from './pyodide/pyodide.mjs';
let out = [];
const py = await loadPyodide({ indexURL: new URL('./pyodide/', self.location).href, stdout: (s) => out.push(s), stderr: (s) => out.push(s) });
self.onmessage = (e) => {
  out = [];
  let error = null;
  try { py.runPython(e.data.source); } catch (err) { error = String(err); }
  self.postMessage({ id: e.data.id, stdout: out.join('\\n'), error });
};
self.postMessage({ type: 'ready' });
`;

const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.zip': 'application/zip', '.html': 'text/html' };
const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
  let body, file;
  if (path === '/') body = '<!doctype html><title>sandbox bench</title>', file = '/index.html';
  else if (path === '/pyodide-worker.mjs') body = PYODIDE_WORKER, file = path;
  else {
    file = path.startsWith('/pyodide/') ? join(pyodideDir, path.slice('/pyodide/'.length)) : join(dist, path);
    try { body = await readFile(file); } catch { res.writeHead(404); return res.end(); }
  }
  res.writeHead(200, { 'content-type': types[extname(file || '.html')] || 'application/octet-stream' });
  res.end(body);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}/`;

const browser = await launch();
const page = await browser.newPage();
page.on('console', (m) => { if (m.type() === 'error') console.error('[page]', m.text()); });
await page.goto(base);

// In the page: start a worker, time the first print, then the empty program and the benchmark.
async function measure(kind, rounds, bench) {
  return page.evaluate(async ({ kind, rounds, bench }) => {
    const t0 = performance.now();
    const w = kind === 'ours' ? new Worker('./sandbox_loader.js') : new Worker('./pyodide-worker.mjs', { type: 'module' });
    let next = 0;
    const waiters = new Map();
    let ready;
    const readyP = new Promise((r) => { ready = r; });
    w.onmessage = (e) => {
      const m = typeof e.data === 'string' ? JSON.parse(e.data) : e.data;
      if (m.type === 'Ready' || m.type === 'ready') return ready();
      if (m.type === 'Begun') return;
      if (m.type === 'Crashed') console.error(kind, 'crashed', m.message);
      const id = m.id;
      waiters.get(id)?.(m);
    };
    await readyP;
    const readyMs = performance.now() - t0;
    const run = (source) => new Promise((resolve) => {
      const id = ++next;
      waiters.set(id, (m) => {
        const out = kind === 'ours' ? (m.result ? m.result.stdout + (m.result.exception ? m.result.exception.type_name : '') : JSON.stringify(m)) : (m.error || m.stdout);
        resolve(out);
      });
      if (kind === 'ours') w.postMessage(JSON.stringify({ type: 'Run', id, source, stdin: '', timeout_ms: 120000 }));
      else w.postMessage({ id, source });
    });
    w.onerror = (e) => console.error(kind, 'worker error', e.message);
    const first = await run('print(1)');
    const coldMs = performance.now() - t0;
    const timed = async (source) => {
      const ms = [];
      let out;
      for (let i = 0; i < rounds; i++) {
        const t = performance.now();
        out = await run(source);
        ms.push(performance.now() - t);
      }
      return { ms, out };
    };
    const empty = await timed('pass');
    const work = await timed(bench);
    w.terminate();
    return { readyMs, coldMs, first, empty, work };
  }, { kind, rounds, bench });
}

const r = Number(rounds);
const ours = await measure('ours', r, BENCH);
const pyodide = await measure('pyodide', r, BENCH);
for (const [name, m] of [['ours', ours], ['pyodide', pyodide]]) {
  if (!String(m.first).startsWith('1')) throw new Error(`${name}: first run printed ${m.first}`);
  if (!String(m.work.out).startsWith(EXPECTED)) throw new Error(`${name}: benchmark printed ${m.work.out}`);
}
const med = (xs) => +percentile(xs, 50).toFixed(1);
const row = (m) => ({ worker_ready_ms: +m.readyMs.toFixed(0), cold_start_ms: +m.coldMs.toFixed(0), empty_run_p50_ms: med(m.empty.ms), bench_p50_ms: med(m.work.ms) });
const o = row(ours), p = row(pyodide);
console.log(JSON.stringify({
  rounds: r,
  ours: o,
  pyodide: p,
  ratio_ours_over_pyodide: {
    cold_start: +(o.cold_start_ms / p.cold_start_ms).toFixed(2),
    empty_run: +(o.empty_run_p50_ms / p.empty_run_p50_ms).toFixed(2),
    bench: +(o.bench_p50_ms / p.bench_p50_ms).toFixed(2),
  },
  bench_output: String(ours.work.out).trim(),
  user_agent: await page.evaluate(() => navigator.userAgent),
}, null, 1));
await browser.close();
server.close();
