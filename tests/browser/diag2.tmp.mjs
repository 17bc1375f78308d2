import { launch } from './chromium.mjs';
const browser = await launch();
const page = await browser.newPage();
const t0 = Date.now();
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await page.goto(process.env.BASE);
await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 300_000 });
console.log('ready at', Date.now()-t0);
await cdp.send('Profiler.start');
await new Promise(r=>setTimeout(r,20000));
const { profile } = await cdp.send('Profiler.stop');
const self = new Map(); const byId = new Map(profile.nodes.map(n=>[n.id,n]));
const dt = profile.timeDeltas; const counts = new Map();
profile.samples.forEach((s,i)=>counts.set(s,(counts.get(s)||0)+(dt[i]||0)));
for (const [id,t] of counts){ const n=byId.get(id); const k=n.callFrame.functionName+' '+n.callFrame.url.split('/').pop()+':'+n.callFrame.lineNumber; self.set(k,(self.get(k)||0)+t);}
console.log([...self].sort((a,b)=>b[1]-a[1]).slice(0,25).map(([k,t])=>(t/1000|0)+'ms '+k).join('\n'));
// parent chains of top
const parent = new Map(); for (const n of profile.nodes) for (const c of (n.children||[])) parent.set(c,n.id);
const top=[...counts].sort((a,b)=>b[1]-a[1]).slice(0,3);
for (const [id] of top){ let c=id, chain=[]; while(c&&chain.length<25){const n=byId.get(c); chain.push(n.callFrame.functionName||'(anon)'); c=parent.get(c);} console.log(chain.join(' < '));}
await browser.close();
