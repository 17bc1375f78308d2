// Quiz figures for docs/BENCHMARKS.md: in the app, with the course's real model, how long a
// learner waits for the subtopic menu, for the first item, and between items (the next item is
// prepared while the learner reads the current one).
//
//   node tests/browser/bench-quiz.mjs BASE_URL [items]
//   e.g. LLM=quantized READ_S=30 node tests/browser/bench-quiz.mjs http://127.0.0.1:18080/ 3
//   TOPIC="quiz me on lists"   the request typed into the Ask box (the router opens the Quiz view)
//   READ_S=30                  seconds the learner reads an item before answering (and after)
//   THREADS=0                  the single-threaded worker (by default the threaded one)
//
// Each item's `wait_ms` is the worker's own figure (from the learner's "Next", or from the
// subtopic's choice for the first item, to the item being ready; 0 when it was prepared while
// the learner read), `page_wait_ms` the same wait as the page sees it, `feedback_ms` the time
// from the learner's click on an option to the feedback (while the next item is being made).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchProfile } from './chromium.mjs';

const [site, itemsArg = '3'] = process.argv.slice(2);
const params = new URLSearchParams();
if (process.env.LLM) params.set('llm', process.env.LLM);
if (process.env.THREADS) params.set('threads', process.env.THREADS);
const base = params.size ? `${site}?${params}` : site;
const items = Number(itemsArg);
const readMs = 1000 * Number(process.env.READ_S ?? 30);
const topic = process.env.TOPIC || 'quiz me on lists';

async function ready(page) {
  await page.waitForSelector('[data-testid=status][data-state=ready], [data-testid=status][data-state=error]', { timeout: 900_000 });
  if ((await page.getAttribute('[data-testid=status]', 'data-state')) !== 'ready') throw new Error(await page.textContent('[data-testid=status]'));
}

const profile = mkdtempSync(join(tmpdir(), 'pathshala-bench-quiz-'));
const context = await launchProfile(profile);
const page = context.pages()[0] || await context.newPage();
const result = { topic, read_s: readMs / 1000, llm: process.env.LLM || 'the app\'s choice (no ?llm=)', items: [] };
try {
  await page.goto(base);
  await ready(page);
  // A reload is cross-origin isolated (the service worker's headers): the threaded worker.
  await page.reload();
  await ready(page);
  result.threads = Number(await page.getAttribute('[data-testid=threads]', 'data-threads'));
  await page.waitForTimeout(1000 * Number(process.env.THINK_S || 0));

  await page.fill('[data-testid=ask-input]', topic);
  let t = Date.now();
  await page.click('[data-testid=ask-submit]');
  await page.waitForSelector('[data-testid=quiz][data-stage=menu], [data-testid=quiz][data-stage=not_covered], [data-testid=quiz][data-stage=error]', { timeout: 600_000 });
  result.menu_ms = Date.now() - t;
  const stage = await page.getAttribute('[data-testid=quiz]', 'data-stage');
  if (stage !== 'menu') throw new Error(`no subtopic menu: ${stage}: ${await page.textContent('[data-testid=quiz]')}`);
  const subtopics = await page.$$eval('[data-testid=quiz-subtopic]', (es) => es.map((e) => e.textContent.trim()));
  result.subtopics = subtopics;
  result.subtopic = subtopics[0];
  t = Date.now();
  await page.click('[data-testid=quiz-subtopic]');
  for (let n = 1; n <= items; n++) {
    await page.waitForSelector(`[data-testid=quiz-item][data-number="${n}"], [data-testid=quiz-results], [data-testid=quiz-error]`, { timeout: 1_800_000 });
    const pageWait = Date.now() - t;
    if (!(await page.$(`[data-testid=quiz-item][data-number="${n}"]`))) {
      result.ended = (await page.textContent('[data-testid=quiz]')).slice(0, 300);
      break;
    }
    const item = await page.$eval(`[data-testid=quiz-item][data-number="${n}"]`, (e) => ({ ...e.dataset }));
    const question = await page.$eval(`[data-testid=quiz-item][data-number="${n}"]`, (e) => e.textContent.slice(0, 200));
    // The learner reads; the worker prepares the next item meanwhile.
    await page.waitForTimeout(readMs);
    const preparing = await page.$eval('[data-testid=quiz-preparing]', (e) => e.dataset.branch).catch(() => null);
    const answered = Date.now();
    await page.click('[data-testid=quiz-option][data-index="0"]');
    const feedback = await page.waitForSelector('[data-testid=quiz-feedback]', { timeout: 600_000 });
    const feedbackMs = Date.now() - answered;
    const correct = await feedback.getAttribute('data-correct');
    await page.waitForTimeout(readMs / 2);
    result.items.push({ number: n, bloom: item.bloom, attempts: Number(item.attempts), wait_ms: Number(item.waitMs), page_wait_ms: pageWait, feedback_ms: feedbackMs, preparing_while_read: preparing, answered_correct: correct === 'true', question });
    console.error(`# item ${n}: ${item.bloom}, ${item.attempts} attempt(s), waited ${pageWait} ms (worker ${item.waitMs} ms); feedback ${feedbackMs} ms after the answer`);
    if (n === items) break;
    const next = await page.$('[data-testid=quiz-next]');
    if (!next) {
      result.ended = 'no Next button';
      break;
    }
    t = Date.now();
    await next.click();
  }
  result.user_agent = await page.evaluate(() => navigator.userAgent);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(result, null, 1));
