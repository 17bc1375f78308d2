#!/usr/bin/env bash
# The threaded build of the inference worker (app/threaded): wasm32 with shared memory
# (`+atomics,+bulk-memory`), std rebuilt for it (`-Z build-std`, so the pinned nightly below),
# wasm-bindgen's `web` target (ES modules: the pool's Web Workers import the same module), and
# the loader `mt/worker_loader.js`. Everything else builds on stable.
#
#   scripts/build-threaded.sh OUT_DIR      # writes OUT_DIR/mt/{worker.js,worker_bg.wasm,worker_loader.js,snippets/}
#                                          # and the same built with relaxed SIMD into OUT_DIR/mt/relaxed/
#
# Run by Trunk as a post_build hook (Trunk.toml) into its staging dir, so `trunk build` and
# `trunk serve` ship both builds; PATHSHALA_THREADED=0 skips it (the page then always runs the
# single-threaded worker, as it does on any page that is not cross-origin isolated).
# The loader picks mt/relaxed/ where the browser validates relaxed SIMD's dot product (Chrome
# ≥ 114), else mt/; PATHSHALA_RELAXED=0 skips that build (the loader then falls back to mt/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-${TRUNK_STAGING_DIR:?usage: scripts/build-threaded.sh OUT_DIR}}"
if [ "${PATHSHALA_THREADED:-1}" = 0 ]; then
  echo "build-threaded: skipped (PATHSHALA_THREADED=0)"
  exit 0
fi
source "$root/scripts/threaded-env.sh"
cd "$root"
# build OUT_SUBDIR [CARGO_ARGS]: one build of the worker into $out/OUT_SUBDIR.
build() {
  RUSTFLAGS="$THREADED_RUSTFLAGS" CARGO_TARGET_DIR="$WASM_MT_TARGET_DIR" cargo "+$PATHSHALA_NIGHTLY" build --release --locked \
    -Z build-std=panic_abort,std --target wasm32-unknown-unknown -p worker-threaded "${@:2}"
  wasm-bindgen --target web --no-typescript --out-dir "$out/$1" --out-name worker \
    "$WASM_MT_TARGET_DIR/wasm32-unknown-unknown/release/worker_threaded.wasm"
}
rm -rf "$out/mt"
mkdir -p "$out/mt"
build mt
# The same with the kernels' relaxed-SIMD feature (only `inference` and the worker recompile).
if [ "${PATHSHALA_RELAXED:-1}" != 0 ]; then
  build mt/relaxed --features relaxed-simd
fi
cp app/threaded/worker_loader.js "$out/mt/"
echo "build-threaded: ${SECONDS} s, $(du -sh "$out/mt" | cut -f1) in $out/mt ($(gzip -c "$out/mt/worker_bg.wasm" | wc -c) bytes of wasm gzipped)"
