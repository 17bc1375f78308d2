// Pathshala's service worker: serves the app shell offline and updates cleanly.
//
// scripts/pwa-precache.sh (a Trunk post_build hook) writes VERSION (a hash of every shell file),
// SHELL (their paths, Trunk's hashed names included; precached on install) and LAZY (the sandbox
// worker's wasm: not precached, so a first visit downloads only what asking needs; the page
// fetches it when the Code view needs it or once the course is ready, and it is kept from then
// on, carried into a new version's cache when its sha256 is unchanged) below. All URLs are
// relative to this file, so the site works under any sub-path. The course bundle and models are
// not cached here: the app keeps them in IndexedDB.
//
// Cross-origin isolation: the page and its workers get COOP/COEP headers from here, so any static
// host works. Isolated, the page may start the threaded build of the inference worker (`mt/`, a
// pool of Web Workers sharing one wasm memory); that build is not precached (a first visit is
// never isolated and downloads only the single-threaded one), but kept once fetched.
const VERSION = 'dev';
const SHELL = ['./index.html'];
const LAZY = [];
const PREFIX = 'pathshala-shell-';
const CACHE = PREFIX + VERSION;
const SCOPE = new URL('./', self.location).pathname;
const SHELL_PATHS = new Set(SHELL.map((u) => new URL(u, self.location).pathname));
const LAZY_SHA256 = new Map(LAZY.map((f) => [new URL(f.path, self.location).pathname, f.sha256]));
const INDEX = new URL('./index.html', self.location).href;
const ASSETS = new URL('./assets.json', self.location).pathname;
const THREADED = SCOPE + 'mt/';

async function sha256(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

// The response, with the headers that make a document or worker cross-origin isolated.
function isolated(response) {
  if (!response || response.status === 0 || response.type === 'opaque') return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener('install', (event) => {
  // Bypass the HTTP cache so a new version never precaches an old file.
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL.map((u) => new Request(u, { cache: 'reload' })))));
  // No skipWaiting here: a new version waits until the page asks (see the message handler).
});

self.addEventListener('message', (event) => {
  if (event.data === 'SKIP_WAITING' || (event.data && event.data.type === 'SKIP_WAITING')) self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const key of await caches.keys()) {
      if (!key.startsWith(PREFIX) || key === CACHE) continue;
      // A lazy file whose bytes the new version still has (same sha256) is kept, not fetched again.
      const old = await caches.open(key);
      for (const request of await old.keys()) {
        const want = LAZY_SHA256.get(new URL(request.url).pathname);
        if (!want || (await cache.match(request))) continue;
        const response = await old.match(request);
        if (!response) continue;
        const body = await response.arrayBuffer();
        if ((await sha256(body)) === want) await cache.put(request, new Response(body, { headers: response.headers }));
      }
      await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

// Network first (fresh index.html and assets.json when online), the cached copy offline.
async function networkFirst(request, key) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(key, response.clone());
    return response;
  } catch (err) {
    const cached = await cache.match(key);
    if (cached) return cached;
    throw err;
  }
}

// The cached copy, else the network's (revalidated: worker files keep their names from one
// version to the next, so the HTTP cache may hold an old one), stored as it streams to the page
// (whose download progress then moves as the bytes arrive, not all at once at the end).
async function cacheFirst(event, request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request, { cache: 'no-cache' });
  if (response.ok) event.waitUntil(cache.put(request, response.clone()));
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith(SCOPE)) return;
  if (request.mode === 'navigate' || url.pathname === SCOPE || url.pathname === SCOPE + 'index.html') {
    event.respondWith(networkFirst(request, INDEX).then(isolated));
  } else if (url.pathname === ASSETS) {
    event.respondWith(networkFirst(request, ASSETS));
  } else if (SHELL_PATHS.has(url.pathname) || LAZY_SHA256.has(url.pathname) || url.pathname.startsWith(THREADED)) {
    // Worker scripts need the headers too: a worker is isolated only by its own response's.
    event.respondWith(cacheFirst(event, request).then(isolated));
  }
  // Anything else (course.bundle, models/) goes to the network untouched.
});
