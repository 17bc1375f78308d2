#!/usr/bin/env bash
# Install what building the web app needs, at the versions the workspace pins.
set -euo pipefail
rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
bindgen_version="$(grep -A1 '^name = "wasm-bindgen"$' "$(dirname "$0")/../Cargo.lock" | sed -n 's/version = "\(.*\)"/\1/p')"
if ! trunk --version 2>/dev/null | grep -q "0.21.14"; then
  cargo install trunk --version 0.21.14 --locked
fi
if ! wasm-bindgen --version 2>/dev/null | grep -q "$bindgen_version"; then
  cargo install wasm-bindgen-cli --version "$bindgen_version"
fi
# The threaded worker build (scripts/build-threaded.sh): a nightly pinned by date, with rust-src
# for `-Z build-std` (std rebuilt with shared memory).
# Where the download is refused, a plain `nightly` that is the same build gets rust-src instead
# (scripts/threaded-env.sh accepts it).
nightly=nightly-2026-05-20
if ! rustc "+$nightly" -V >/dev/null 2>&1 || [ ! -d "$(rustc "+$nightly" --print sysroot)/lib/rustlib/src/rust/library" ]; then
  if ! rustup toolchain install "$nightly" --profile minimal --component rust-src; then
    rustc +nightly -V 2>/dev/null | grep -q "(e50aa6fba 2026-05-19)" && rustup component add rust-src --toolchain nightly
  fi
fi
