// End-to-end: the built demo site loads the bundle and encoder, searches the course, cites the
// right section, and says when the course does not cover a question.
//
//   BASE=http://127.0.0.1:8080/ node --test tests/browser/
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from './chromium.mjs';

const base = process.env.BASE || 'http://127.0.0.1:8080/';
let browser, page;

before(async () => {
  browser = await launch();
  page = await browser.newPage();
  await page.goto(base);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 300_000 });
});
after(async () => browser?.close());

async function search(q) {
  await page.fill('[data-testid=search-input]', q);
  await page.click('[data-testid=search-submit]');
  const el = await page.waitForSelector(`[data-testid=results]:has-text(${JSON.stringify(q.slice(0, 20))})`, { timeout: 60_000 });
  return el;
}

test('finds the section that answers', async () => {
  const el = await search('How do default values for parameters work when an argument is left out?');
  assert.equal(await el.getAttribute('data-state'), 'done');
  const first = await page.getAttribute('[data-testid=evidence] >> nth=0', 'data-heading');
  assert.match(first, /Default/);
});

test('searches the Bangla chapter', async () => {
  const el = await search('ক্লোরোফিল কোথায় থাকে এবং এর কাজ কী?');
  assert.equal(await el.getAttribute('data-state'), 'done');
  const text = await page.textContent('[data-testid=evidence] >> nth=0');
  assert.match(text, /ক্লোরোফিল/);
});

test('abstains outside the course', async () => {
  const el = await search('Who painted the Mona Lisa?');
  assert.equal(await el.getAttribute('data-state'), 'abstained');
});
