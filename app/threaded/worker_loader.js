// The threaded inference worker's entry (a module worker, started by the page only when it is
// cross-origin isolated): instantiate the wasm with shared memory, start the rayon pool of Web
// Workers, then install the message handler. `?threads=N` (from the page) sets the pool's size;
// by default one thread per logical core (the worker itself waits while the pool works, and the
// page needs little: on a 2-core machine a pool of 2 answered 1.5-1.9x sooner than a pool of 1,
// with no main-thread task over 50 ms; docs/BENCHMARKS.md, session 25. Before the constructors
// fix of that session the page itself was busy and one core was left to it).
//
// Two builds sit side by side (scripts/build-threaded.sh): ./ with SIMD128, and ./relaxed/ with
// relaxed SIMD's integer dot product as well (Chrome ≥ 114: the matmul kernels'
// `i32x4.relaxed_dot_i8x16_i7x16_add_s`, docs/BENCHMARKS.md). A module holding an instruction the
// browser lacks does not compile at all, so the loader asks first: the module below is one
// function returning that instruction's result, and `WebAssembly.validate` says whether it is
// known here.
const RELAXED_DOT = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // types: () -> v128
  0x03, 0x02, 0x01, 0x00, // one function of that type
  0x0a, 0x3d, 0x01, 0x3b, 0x00, // its code: 59 bytes, no locals
  ...[0, 1, 2].flatMap(() => [0xfd, 0x0c, ...new Array(16).fill(0)]), // v128.const 0, three times
  0xfd, 0x93, 0x02, // i32x4.relaxed_dot_i8x16_i7x16_add_s
  0x0b, // end
]);
const dir = WebAssembly.validate(RELAXED_DOT) ? './relaxed/' : './';
const { default: init, initThreadPool, start } = await import(dir + 'worker.js');

await init({ module_or_path: new URL(dir + 'worker_bg.wasm', import.meta.url) });
const asked = Number(new URL(self.location.href).searchParams.get('threads'));
const threads = asked >= 1 ? asked : Math.max(1, navigator.hardwareConcurrency || 1);
await initThreadPool(threads);
// The worker fetches the course's files relative to the site's root, one level up from here.
self.PATHSHALA_SITE = new URL('../', import.meta.url).href;
start();
