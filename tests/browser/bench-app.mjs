// App figures for docs/BENCHMARKS.md: first-visit download size, time to ready (cold: a fresh
// profile; warm: a reload, from IndexedDB), time to the first answer token and tokens/s, and the
// main thread's longest task while the worker generates (PerformanceObserver 'longtask').
//
//   node tests/browser/bench-app.mjs BASE_URL DIST_DIR [rounds]
//   e.g. node tests/browser/bench-app.mjs http://127.0.0.1:8080/ dist 3
//   LLM=quantized node tests/browser/bench-app.mjs …   (`?llm=`: webgpu, burn or quantized; unset, the app picks)
//   THINK_S=30 node tests/browser/bench-app.mjs …      (wait 30 s after ready before the first question)
//   THREADS=0 node tests/browser/bench-app.mjs …       (the single-threaded worker after the reload;
//                                                       by default the threaded one, one thread per core)
//   QUESTIONS=q1.jsonl,q2.jsonl node tests/browser/bench-app.mjs …
//                                                      (ask these files' `question`s instead of the three
//                                                       below: e.g. the dev set over a Python-docs course)
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchProfile, percentile } from './chromium.mjs';

const [site, dist, roundsArg = '3'] = process.argv.slice(2);
const params = new URLSearchParams();
if (process.env.LLM) params.set('llm', process.env.LLM);
if (process.env.THREADS) params.set('threads', process.env.THREADS);
const base = params.size ? `${site}?${params}` : site;
const rounds = Number(roundsArg);
const questions = process.env.QUESTIONS
  ? process.env.QUESTIONS.split(',').flatMap((f) => readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).question))
  : [
    'Does the interactive prompt support pressing Tab to complete names, and is my command history saved between sessions?',
    'Can I make a few imports run automatically every time I open the interactive interpreter?',
    'How do I record every package my project uses so a classmate can install exactly the same versions?',
  ];

function sizes() {
  const out = {};
  for (const f of readdirSync(dist)) {
    if (!/\.(wasm|js|css|html)$/.test(f)) continue;
    const data = readFileSync(join(dist, f));
    out[f] = { bytes: data.length, gzip9: gzipSync(data, { level: 9 }).length };
  }
  const assets = JSON.parse(readFileSync(join(dist, 'assets.json'), 'utf8')).assets;
  for (const a of assets) out[a.url] = { bytes: a.bytes };
  const shell = Object.entries(out).filter(([k]) => !assets.some((a) => a.url === k));
  return {
    files: out,
    shell_bytes: shell.reduce((s, [, v]) => s + v.bytes, 0),
    shell_gzip9: shell.reduce((s, [, v]) => s + v.gzip9, 0),
    assets_bytes: assets.reduce((s, a) => s + a.bytes, 0),
  };
}

async function ready(page) {
  await page.waitForSelector('[data-testid=status][data-state=ready], [data-testid=status][data-state=error]', { timeout: 600_000 });
  if ((await page.getAttribute('[data-testid=status]', 'data-state')) !== 'ready') throw new Error(await page.textContent('[data-testid=status]'));
  const el = await page.$('[data-testid=status] [data-load-ms]');
  return { worker_load_ms: Number(await el.getAttribute('data-load-ms')), timings: JSON.parse(await el.getAttribute('data-timings')) };
}

const observe = () => {
  // The answer to question `q`: the page shows one answer and reuses its element, so its
  // question tells this answer from the one before.
  window.__answerTo = (q) => {
    const answer = document.querySelector('[data-testid=answer]');
    return answer && answer.querySelector('.question')?.textContent.trim() === q.trim() ? answer : null;
  };
  // Whether question `q` was sent to the Code view (it opens with the task filled in).
  window.__toCode = (q) => document.querySelector('[data-testid=code-view]:not([hidden]) [data-testid=code-task-input]')?.value.trim() === q.trim();
  window.__longest = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
  }).observe({ type: 'longtask', buffered: true });
  // The longest gap between animation frames: what a learner would see as a stutter.
  window.__maxGap = 0;
  let last = 0;
  const frame = (t) => {
    if (last) window.__maxGap = Math.max(window.__maxGap, t - last);
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
};

const result = { sizes: sizes(), cold: [], warm: [], answers: [] };
for (let r = 0; r < rounds; r++) {
  const profile = mkdtempSync(join(tmpdir(), 'pathshala-bench-'));
  const context = await launchProfile(profile);
  await context.addInitScript(observe);
  const page = context.pages()[0] || await context.newPage();
  let t0 = Date.now();
  await page.goto(base);
  let info = await ready(page);
  result.cold.push({ page_ms: Date.now() - t0, ...info });
  t0 = Date.now();
  await page.reload();
  info = await ready(page);
  result.warm.push({ page_ms: Date.now() - t0, ...info });
  // The questions are asked on this reloaded page: cross-origin isolated, so the threaded worker.
  result.threads = Number(await page.getAttribute('[data-testid=threads]', 'data-threads'));
  result.isolated = await page.evaluate(() => crossOriginIsolated);
  if (r === 0) {
    // The observer works: a 120 ms busy loop on the main thread must show up.
    await page.evaluate(() => setTimeout(() => { const end = performance.now() + 120; while (performance.now() < end); }, 0));
    await page.waitForTimeout(300);
    result.longtask_check_ms = await page.evaluate(() => window.__longest);
  }
  // THINK_S: seconds between ready and the first question, as a learner reads and types (the
  // worker reads the agents' prompt prefixes meanwhile); 0, the default, asks at once.
  await page.waitForTimeout(1000 * Number(process.env.THINK_S || 0));
  for (const [i, q] of questions.entries()) {
    console.error(`# ${new Date().toISOString()} question ${i + 1} of ${questions.length}: ${q.slice(0, 60)}`);
    await page.evaluate(() => { window.__longest = 0; window.__maxGap = 0; });
    // A question sent to the Code or Quiz view left the page there.
    await page.click('[data-testid=tab-ask]');
    await page.fill('[data-testid=ask-input]', q);
    const t1 = Date.now();
    await page.click('[data-testid=ask-submit]');
    // The sources (retrieval, no model), or the answer's end without any.
    await page.waitForFunction((q) => {
      const answer = window.__answerTo(q);
      return window.__toCode(q) || (answer && (answer.querySelector('[data-testid=source]') || answer.dataset.state !== 'streaming'));
    }, q, { timeout: 600_000 });
    const sourcesPage = Date.now() - t1;
    // The answer's first text, or its end without any (refused, sent to another view, abstained).
    await page.waitForFunction((q) => {
      const answer = window.__answerTo(q);
      return window.__toCode(q) || (answer && (answer.querySelector('[data-testid=answer-body]')?.textContent.length > 0 || answer.dataset.state !== 'streaming'));
    }, q, { timeout: 600_000 });
    const firstTokenPage = Date.now() - t1;
    await page.waitForFunction((q) => window.__toCode(q) || window.__answerTo(q)?.dataset.state !== 'streaming', q, { timeout: 600_000 });
    if (await page.evaluate((q) => window.__toCode(q), q)) {
      result.answers.push({ question: q, state: 'code', sources_page_ms: sourcesPage, route_label: 'code' });
      continue;
    }
    // The router's part of the first token: how it decided (rule, classifier or the chat model) and its time.
    const route = await page.$eval('[data-testid=route-chip]', (e) => ({ ...e.dataset })).catch(() => ({}));
    const state = await page.getAttribute('[data-testid=answer]', 'data-state');
    if (state !== 'done') {
      // No answer to time: say where the question went.
      result.answers.push({ question: q, state, sources_page_ms: sourcesPage, route_label: route.label ?? null, route_decided_by: route.decidedBy ?? null });
      continue;
    }
    const stats = await page.$eval('[data-testid=answer-stats]', (e) => ({ ...e.dataset }));
    result.answers.push({
      question: q,
      sources_page_ms: sourcesPage,
      first_token_page_ms: firstTokenPage,
      first_token_worker_ms: Number(stats.firstTokenMs),
      route_decided_by: route.decidedBy ?? null,
      route_ms: route.ms === undefined ? null : Number(route.ms),
      prompt_tokens: Number(stats.promptTokens),
      tokens: Number(stats.tokens),
      tokens_per_s: Number(stats.tokensPerS),
      total_ms: Number(stats.totalMs),
      longest_main_thread_task_ms: await page.evaluate(() => window.__longest),
      longest_frame_gap_ms: await page.evaluate(() => window.__maxGap),
    });
  }
  result.user_agent = await page.evaluate(() => navigator.userAgent);
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
const med = (xs) => percentile(xs, 50);
// Figures over the questions that were answered (the others say where they went).
const answered = result.answers.filter((a) => a.state === undefined);
result.summary = {
  cold_ready_ms_median: med(result.cold.map((c) => c.page_ms)),
  warm_ready_ms_median: med(result.warm.map((c) => c.page_ms)),
  answered: `${answered.length} of ${result.answers.length}`,
  first_token_ms_median: med(answered.map((a) => a.first_token_page_ms)),
  // Sources (or the refusal, abstention …) on screen, over every question asked.
  sources_ms_median: med(result.answers.map((a) => a.sources_page_ms)),
  sources_ms_p90: percentile(result.answers.map((a) => a.sources_page_ms), 90),
  first_text_ms_p90: percentile(answered.map((a) => a.first_token_page_ms), 90),
  // The model's first token, as the worker measured it (the answer's stats), over the answers
  // the model wrote into (an answer the book's opening covers whole has none: 0 tokens).
  model_answers: answered.filter((a) => a.tokens > 0).length,
  first_model_token_ms_median: med(answered.filter((a) => a.tokens > 0).map((a) => a.first_token_worker_ms)),
  first_model_token_ms_p90: percentile(answered.filter((a) => a.tokens > 0).map((a) => a.first_token_worker_ms), 90),
  tokens_per_s_median: med(answered.map((a) => a.tokens_per_s)),
  prompt_tokens_median: med(answered.map((a) => a.prompt_tokens)),
  longest_main_thread_task_ms_max: Math.max(...answered.map((a) => a.longest_main_thread_task_ms)),
  longest_frame_gap_ms_max: Math.max(...answered.map((a) => a.longest_frame_gap_ms)),
};
result.llm = process.env.LLM || 'the app\'s choice (no ?llm=)';
result.think_s = Number(process.env.THINK_S || 0);
console.log(JSON.stringify(result, null, 1));
