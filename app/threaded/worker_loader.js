// The threaded inference worker's entry (a module worker, started by the page only when it is
// cross-origin isolated): instantiate the wasm with shared memory, start the rayon pool of Web
// Workers, then install the message handler. `?threads=N` (from the page) sets the pool's size;
// by default one thread per logical core but one, left to the page (the worker itself waits
// while the pool works): with a worker per core, the page's longest task during an answer went
// from 0.52 s (single-threaded worker) to 0.93 s on a 2-core machine (docs/BENCHMARKS.md).
import init, { initThreadPool, start } from './worker.js';

await init({ module_or_path: new URL('./worker_bg.wasm', import.meta.url) });
const asked = Number(new URL(self.location.href).searchParams.get('threads'));
const threads = asked >= 1 ? asked : Math.max(1, (navigator.hardwareConcurrency || 1) - 1);
await initThreadPool(threads);
// The worker fetches the course's files relative to the site's root, one level up from here.
self.PATHSHALA_SITE = new URL('../', import.meta.url).href;
start();
