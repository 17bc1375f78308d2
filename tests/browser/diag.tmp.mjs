import { launch } from '/work/main/tests/browser/chromium.mjs';
const browser = await launch();
const page = await browser.newPage();
page.on('console', m => console.log('console:', m.text().slice(0,200)));
const t0 = Date.now();
await page.goto(process.env.BASE);
await page.evaluate(() => { window.__lt = []; new PerformanceObserver(l => { for (const e of l.getEntries()) window.__lt.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({type:'longtask', buffered:true}); });
await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 300_000 });
console.log('ready at', Date.now()-t0);
for (let i=0;i<20;i++){ const a=Date.now(); const st = await page.evaluate(() => [document.querySelector('[data-testid=status]')?.textContent, document.querySelector('[data-testid=search-input]')?.disabled, !!document.querySelector('[data-testid=search-input]')]); console.log(Date.now()-t0, 'ping', Date.now()-a, JSON.stringify(st)); await new Promise(r=>setTimeout(r,1000)); }
const a=Date.now();
await page.fill('[data-testid=search-input]', 'hello', {timeout: 60000}).catch(e=>console.log('fill err', e.message.slice(0,300)));
console.log('fill took', Date.now()-a);
console.log(JSON.stringify(await page.evaluate(() => window.__lt)));
await browser.close();
